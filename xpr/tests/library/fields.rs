//! `Program::run_fields_in`: an object literal result handed over as its
//! fields, with the same fuel, memory, errors and values as `run_in`.

use serde_json::json;
use xpr::{Engine, ErrorKind, Limits, Output, Value, ValueType, Vm};

/// The fields as a value, with the fuel and memory of the run.
fn run_fields(src: &str, ctx: &serde_json::Value) -> (Result<(bool, Value), xpr::Error>, u64, u64) {
    let program = Engine::new().compile(src).expect("compiles");
    let mut vm = Vm::new();
    let out = program
        .run_fields_in(&mut vm, ctx)
        .map(|o| (matches!(o, Output::Fields(_)), o.into_value()));
    (out, vm.fuel_used(), vm.peak_memory())
}

fn run_in(src: &str, ctx: &serde_json::Value) -> (Result<Value, xpr::Error>, u64, u64) {
    let program = Engine::new().compile(src).expect("compiles");
    let mut vm = Vm::new();
    let out = program.run_in(&mut vm, ctx);
    (out, vm.fuel_used(), vm.peak_memory())
}

#[test]
fn object_literal_results_come_as_fields_with_the_same_charges() {
    let ctx = json!({"origin": "LHR", "destination": "JFK", "delay": 75, "xs": [1, 2, 3]});
    for (src, as_fields) in [
        (
            r#"{route: origin + "-" + destination, late: delay > 60}"#,
            true,
        ),
        ("{a: 1, b: xs, c: {d: xs.map(x => {x: x})}}", true),
        ("let k = 2; {k: k, twice: k * 2}", true),
        // Not object literals of the main program, or not with distinct keys.
        ("xs.map(x => {x: x})", false),
        ("{}", false),
        ("{a: 1, a: 2}", false),
        ("{...{a: 1}, b: 2}", false),
        ("delay > 60 ? {late: true} : null", false),
        ("origin", false),
    ] {
        let (fields, fuel_f, mem_f) = run_fields(src, &ctx);
        let (value, fuel_v, mem_v) = run_in(src, &ctx);
        let (came_as_fields, got) = fields.expect("runs");
        assert_eq!(came_as_fields, as_fields, "{src}");
        assert_eq!(got, value.expect("runs"), "{src}");
        assert_eq!((fuel_f, mem_f), (fuel_v, mem_v), "{src}: fuel and memory");
    }
}

#[test]
fn errors_and_budgets_are_those_of_run_in() {
    let ctx = json!({"s": "x"});
    // Memory: the object is charged as if built.
    let limits = Limits {
        memory: Some(150),
        ..Limits::default()
    };
    let program = Engine::new()
        .with_limits(limits)
        .compile(r#"{a: s.repeat(40), b: s.repeat(40)}"#)
        .expect("compiles");
    let mut vm = Vm::new();
    let e = program.run_fields_in(&mut vm, &ctx).unwrap_err();
    let mut vm2 = Vm::new();
    let e2 = program.run_in(&mut vm2, &ctx).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
    assert_eq!(
        (e.to_string(), vm.fuel_used()),
        (e2.to_string(), vm2.fuel_used())
    );
    // A value error inside the literal.
    let (r, _, _) = run_fields("{a: s - 1}", &ctx);
    let (r2, _, _) = run_in("{a: s - 1}", &ctx);
    assert_eq!(r.unwrap_err().to_string(), r2.unwrap_err().to_string());
    // An expected result type other than object is still enforced.
    let program = Engine::new()
        .compile("s == 'x' ? {a: 1} : 2")
        .and_then(|p| p.expecting(ValueType::Number))
        .expect("may be a number");
    let mut vm = Vm::new();
    let e = program.run_fields_in(&mut vm, &ctx).unwrap_err();
    let e2 = program.run_in(&mut vm, &ctx).unwrap_err();
    assert_eq!(e.to_string(), e2.to_string());
}
