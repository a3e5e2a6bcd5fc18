//! After warm-up, running a small predicate on a reused `Vm` allocates
//! nothing (counted by a global allocator that tallies bytes allocated;
//! no timing involved). This binary holds this one test, so no other
//! thread allocates while it counts.

use std::alloc::System;

use cap::Cap;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

use xpr_vm::{Map, RunOptions, Value, Vm};

#[test]
fn predicate_runs_without_allocating() {
    let src = "(Origin == \"MOW\" || Country == \"RU\") && (Value >= 100 || Adults == 1)";
    let ast = xpr_syntax::parse(src).expect("parses");
    let program =
        xpr_compiler::compile(&ast, &xpr_compiler::CompileEnv::default()).expect("compiles");
    let mut records = Vec::new();
    for (origin, country, value, adults) in [
        ("MOW", "RU", 150.0, 1.0),
        ("LED", "DE", 50.0, 2.0),
        ("LED", "RU", 99.0, 1.0),
    ] {
        let mut m = Map::default();
        m.insert("Origin".into(), Value::from(origin));
        m.insert("Country".into(), Value::from(country));
        m.insert("Value".into(), Value::Number(value));
        m.insert("Adults".into(), Value::Number(adults));
        records.push(m);
    }
    let opts = RunOptions::default();
    let mut vm = Vm::new();
    let mut expected = Vec::new();
    for r in &records {
        expected.push(vm.run(&program, r, &opts).expect("runs"));
    }
    assert_eq!(
        expected,
        [Value::Bool(true), Value::Bool(false), Value::Bool(true)]
    );

    let before = ALLOC.total_allocated();
    for _ in 0..100 {
        for (r, want) in records.iter().zip(&expected) {
            let got = vm.run(&program, r, &opts).expect("runs");
            assert!(got == *want);
        }
    }
    let after = ALLOC.total_allocated();
    assert_eq!(after, before, "bytes allocated while running");
}
