//! Fuzz target: any text through parse + compile + disassembly. Must never
//! panic or overflow the stack.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|src: &str| {
    let engine = xpr::Engine::new();
    if let Ok(program) = engine.compile(src) {
        let _ = program.to_string();
        let _ = program.free_variables();
        let _ = program.functions();
    }
});
