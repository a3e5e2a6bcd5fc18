//! Fuzz target: structured random expressions (well-formed ASTs from
//! `xpr_fuzz::gen`, printed to source) compiled and run with small
//! budgets against a fixed context. Must never panic, overflow the stack,
//! hang, or exceed the memory budget.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(src) = xpr_fuzz::generate::expression(&mut u) else {
        return;
    };
    xpr_fuzz::run_small(&src);
});
