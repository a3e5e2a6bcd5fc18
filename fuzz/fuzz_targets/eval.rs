//! Fuzz target: any text compiled and run as the run target runs its
//! generated expressions (small budgets, fixed context, capped heap, the
//! same checks). Seeded with the conformance expressions and `fuzz/seeds`,
//! so mutations of real expressions run; a reproducer is a plain
//! expression file: `cargo fuzz run --sanitizer none eval FILE`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static HEAP: xpr_fuzz::Heap = xpr_fuzz::heap();

fuzz_target!(|src: &str| {
    xpr_fuzz::run_capped(&HEAP, src);
});
