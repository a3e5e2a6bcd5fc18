//! Fuzz target: structured random expressions (well-formed ASTs from
//! `xpr_fuzz::generate`, printed to source) compiled and run with small
//! budgets against a fixed context, with the heap capped (see
//! `xpr_fuzz::run_small` and `run_capped` for what is checked). Must never
//! panic, overflow the stack, hang, or exceed the budgets.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static HEAP: xpr_fuzz::Heap = xpr_fuzz::heap();

fuzz_target!(|data: &[u8]| {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(src) = xpr_fuzz::generate::expression(&mut u) else {
        return;
    };
    xpr_fuzz::run_capped(&HEAP, &src);
});
