//! Fuzz target: bytes loaded as a stored program (`Engine::load`) and, when
//! accepted, run as the other targets run (small budgets, fixed context,
//! capped heap, the same checks but for error positions, which a stored
//! program carries as data). Input starting with `XPRC` is loaded as it
//! is; any other is taken for a body and sealed with a valid header and
//! checksum first, so that mutations reach the loader's validation. Seeded
//! with the conformance cases stored (`conformance --stored-seeds`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[global_allocator]
static HEAP: xpr_fuzz::Heap = xpr_fuzz::heap();

fuzz_target!(|data: &[u8]| {
    xpr_fuzz::load_capped(&HEAP, data);
});
