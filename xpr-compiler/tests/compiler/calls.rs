//! Calls of global names: a function in the context is called first, a
//! context value that is no function never hides a built-in, host function
//! or method of its name, and a name that is no function fails only when
//! its call is reached (`Unknown function` is an evaluation error in the
//! spec).

use crate::common;
use std::sync::Arc;

use common::*;
use serde_json::json;
use xpr_vm::{Arity, ErrorKind, Function, HostFunction, Map, Value, Vm};

/// The value of `src` run with an empty context (a closure, here).
fn value_of(src: &str) -> Value {
    let program = compile(src).expect("compiles");
    Vm::new().run(&program, &(), &opts()).expect("runs")
}

/// A context of `(name, value)` pairs, which may hold functions.
fn context(fields: Vec<(&str, Value)>) -> Map {
    fields.into_iter().map(|(k, v)| (k.into(), v)).collect()
}

/// Runs `src` against `ctx`.
fn run_in(src: &str, ctx: &Map) -> Result<Value, xpr_vm::Error> {
    let program = compile(src)?;
    Vm::new().run(&program, ctx, &opts())
}

fn host(name: &str) -> Value {
    Value::Function(Arc::new(Function::Host(Arc::new(HostFunction {
        name: name.into(),
        arity: Arity::Exact(1),
        fuel_per_call: 1,
        meters: true,
        callback: Arc::new(|_, args| Ok(Value::from(format!("host got {:?}", args[0])))),
    }))))
}

#[test]
fn an_unknown_function_fails_only_when_its_call_is_reached() {
    // Edge case N-8: && || ?? skip the operand holding the call.
    yields(
        "[false && nope(1), true || nope(2), 1 ?? nope(3)]",
        json!([false, true, 1]),
    );
    let rule = "a > b ? bonus(c) : 0";
    yields_in(rule, json!({"a": 1, "b": 2, "c": 3}), json!(0));
    let e = fails_in(
        rule,
        json!({"a": 3, "b": 2, "c": 3}),
        "Unknown function 'bonus'",
    );
    assert_eq!(e.kind(), ErrorKind::Reference);
    assert_eq!(e.position(), Some(8), "at the call: {e}");
    // The hint is kept: the nearest function, or how to call a method.
    let e = fails(
        "1 + dateadd(1, 2, \"days\")",
        "Unknown function 'dateadd' (did you mean 'dateAdd'?)",
    );
    assert_eq!(e.position(), Some(4));
    fails("upper(\"a\")", "'upper' is a method: write x.upper(...)");
    yields("false && upper(\"a\")", json!(false));
    // Spread arguments, optional calls and pipes alike.
    yields("false && nope(...[1])", json!(false));
    fails("nope(...[1])", "Unknown function 'nope'");
    yields("false && nope?.(1)", json!(false));
    fails("nope?.(1)", "Unknown function 'nope'");
    yields("false && (1 |> nope())", json!(false));
    let e = fails(
        "1 |> fitler(x => x)",
        "Unknown function 'fitler' (did you mean 'filter'?)",
    );
    assert_eq!(e.position(), Some(5), "at the pipe target: {e}");
    // Inside a callback, reached for each element.
    yields("[].map(x => nope(x))", json!([]));
    fails("[1].map(x => nope(x))", "Unknown function 'nope'");
    // The arguments are evaluated first, as in the reference runtimes.
    fails("nope(1 / 0)", "Division by zero");
    // PI and E are constants, not functions.
    fails("PI(1)", "Unknown function 'PI'");
}

#[test]
fn a_call_consults_the_context_first() {
    // A null variable: `?.(` yields null; a plain call is a type error.
    yields_in("none?.(1)", json!({"none": null}), json!(null));
    yields_in("none?.(1 / 0).x", json!({"none": null}), json!(null));
    let e = fails_in(
        "none(1)",
        json!({"none": null}),
        "Type error: Cannot call non-function 'none': null is not callable",
    );
    assert_eq!(e.kind(), ErrorKind::Type);
    fails_in(
        "1 |> none()",
        json!({"none": 5}),
        "Cannot call non-function 'none': number is not callable",
    );
    // A value that is no function never hides a function or method of its
    // name (a record's field `max` or `type`): the function is called, as
    // if the context lacked the name; in value position the name is the
    // context's value.
    yields_in("max", json!({"max": 3}), json!(3));
    yields_in("[max(1, 2), max]", json!({"max": 3}), json!([2, 3]));
    yields_in("max(...[1, 2])", json!({"max": 3}), json!(2));
    yields_in("[1] |> sum()", json!({"sum": "s"}), json!(1));
    yields_in("1 |> max(...[5])", json!({"max": 3}), json!(5));
    yields_in("\"a\" |> upper", json!({"upper": true}), json!("A"));
    yields_in("\"a\" |> upper()", json!({"upper": 1}), json!("A"));
    yields_in("max?.(1, 2)", json!({"max": 3}), json!(2));
    yields_in("max?.(1, 2)", json!({"max": null}), json!(2));
    yields_in("type(type)", json!({"type": "A"}), json!("string"));
    yields_in(
        "[1, 2].map(x => max(x, 2) + max)",
        json!({"max": 10}),
        json!([12, 12]),
    );
    // The same name as a pipe target's method and as a plain call: the
    // method is called, the plain call calls the value (and fails), in
    // either order (the run remembers only "no function here").
    fails_in(
        "[\"a\" |> upper, upper(1)]",
        json!({"upper": true}),
        "Type error: Cannot call non-function 'upper': boolean is not callable",
    );
    fails_in(
        "[upper(1), \"a\" |> upper]",
        json!({"upper": true}),
        "Type error: Cannot call non-function 'upper': boolean is not callable",
    );
    yields_in(
        "[\"a\" |> upper, upper?.(1)]",
        json!({"upper": null}),
        json!(["A", null]),
    );
    // Without such a variable, the built-in; a local always wins.
    yields_in("max(1, 2)", json!({"min": 3}), json!(2));
    yields_in("max?.(1, 2)", json!({}), json!(2));
    yields_in(
        "let max = (a, b) => a; max(1, 2)",
        json!({"max": 3}),
        json!(1),
    );
    yields_in("[1, 5].map(x => max(x, 2))", json!({"a": 1}), json!([2, 5]));
}

#[test]
fn a_function_in_the_context_is_called() {
    let double = value_of("x => x * 2");
    let ctx = context(vec![("double", double.clone()), ("n", Value::Number(21.0))]);
    assert_eq!(run_in("double(n)", &ctx).unwrap(), Value::Number(42.0));
    assert_eq!(run_in("double?.(n)", &ctx).unwrap(), Value::Number(42.0));
    assert_eq!(run_in("n |> double", &ctx).unwrap(), Value::Number(42.0));
    assert_eq!(run_in("n |> double()", &ctx).unwrap(), Value::Number(42.0));
    assert_eq!(run_in("double(...[n])", &ctx).unwrap(), Value::Number(42.0));
    assert_eq!(
        run_in("[1, 2].map(x => double(x))", &ctx).unwrap(),
        Value::from(vec![Value::Number(2.0), Value::Number(4.0)])
    );
    // No longer unknown when the context supplies it.
    let program = compile("double(n)").unwrap();
    assert_eq!(program.unknown_functions().len(), 1);
    // A function hides a built-in and a pipe target's method.
    let ctx = context(vec![("max", double.clone()), ("upper", double)]);
    assert_eq!(run_in("max(4, 1)", &ctx).unwrap(), Value::Number(8.0));
    assert_eq!(run_in("max(...[4, 1])", &ctx).unwrap(), Value::Number(8.0));
    assert_eq!(run_in("4 |> max(1)", &ctx).unwrap(), Value::Number(8.0));
    assert_eq!(run_in("4 |> upper", &ctx).unwrap(), Value::Number(8.0));
    assert_eq!(run_in("4 |> upper()", &ctx).unwrap(), Value::Number(8.0));
    assert_eq!(run_in("max?.(4, 1)", &ctx).unwrap(), Value::Number(8.0));
    // Repeated calls in one run (the run remembers only names without a function).
    assert_eq!(
        run_in("[1, 2].map(x => max(x, 0) + min(x, 0))", &ctx).unwrap(),
        Value::from(vec![Value::Number(2.0), Value::Number(4.0)])
    );
    // A built-in and a host function as context values.
    let abs = value_of("abs");
    let ctx = context(vec![("f", abs), ("h", host("h"))]);
    assert_eq!(run_in("f(-3)", &ctx).unwrap(), Value::Number(3.0));
    assert_eq!(
        run_in("h(1)", &ctx).unwrap(),
        Value::from("host got Number(1.0)")
    );
}

/// `src` compiled with the host function `h` (which names its argument).
fn compile_with_host(src: &str) -> xpr_vm::Program {
    let ast = xpr_syntax::parse(src).expect("parses");
    let Value::Function(f) = host("h") else {
        unreachable!()
    };
    let Function::Host(h) = &*f else {
        unreachable!()
    };
    let env = xpr_compiler::CompileEnv {
        host_functions: vec![h.clone()],
        ..xpr_compiler::CompileEnv::default()
    };
    xpr_compiler::compile(&ast, &env).expect("compiles")
}

#[test]
fn a_host_function_is_hidden_only_by_a_function() {
    let run = |src: &str, ctx: &Map| Vm::new().run(&compile_with_host(src), ctx, &opts());
    let called = Value::from("host got Number(1.0)");
    // A value that is no function, null included, leaves the host function.
    for v in [Value::Number(3.0), Value::Null, Value::from("h")] {
        let ctx = context(vec![("h", v)]);
        for src in ["h(1)", "h(...[1])", "1 |> h()", "1 |> h(...[])", "h?.(1)"] {
            assert_eq!(run(src, &ctx).unwrap(), called, "{src}");
        }
    }
    // A function wins, in every form of call.
    let ctx = context(vec![("h", value_of("x => x * 2"))]);
    for src in ["h(1)", "h(...[1])", "1 |> h()", "1 |> h(...[])", "h?.(1)"] {
        assert_eq!(run(src, &ctx).unwrap(), Value::Number(2.0), "{src}");
    }
}

#[test]
fn a_closure_from_another_program_resolves_calls_in_the_run_context() {
    // The closure's calls index its own program's tables.
    let clamp = value_of("x => false && nope(x) || max(x, 0)");
    let ctx = context(vec![("clamp", clamp.clone())]);
    assert_eq!(
        run_in("clamp(-5) + clamp(4)", &ctx).unwrap(),
        Value::Number(4.0)
    );
    // A value that is no function does not hide the built-in; a function does.
    let ctx = context(vec![("clamp", clamp.clone()), ("max", Value::Null)]);
    assert_eq!(run_in("clamp(1)", &ctx).unwrap(), Value::Number(1.0));
    let ctx = context(vec![
        ("clamp", clamp),
        ("max", value_of("(a, b) => a * 10")),
    ]);
    assert_eq!(run_in("clamp(1)", &ctx).unwrap(), Value::Number(10.0));
}

#[test]
fn the_program_lists_unknown_functions_before_running() {
    let p = compile("a ? nope(1) + dateadd(x) + nope(2) : 1 |> fitler() |> upper").unwrap();
    let names: Vec<&str> = p.unknown_functions().iter().map(|u| &*u.name).collect();
    assert_eq!(names, ["nope", "dateadd", "fitler"]);
    let errors: Vec<String> = p
        .unknown_functions()
        .iter()
        .map(|u| u.error.to_string())
        .collect();
    assert_eq!(
        errors,
        [
            "Unknown function 'nope' at position 4",
            "Unknown function 'dateadd' (did you mean 'dateAdd'?) at position 14",
            "Unknown function 'fitler' (did you mean 'filter'?) at position 42",
        ]
    );
    assert!(
        p.unknown_functions()
            .iter()
            .all(|u| u.error.kind() == ErrorKind::Reference)
    );
    // Names only called are not free variables, but are looked up.
    let p = compile("max(a, b) + nope(c) + PI").unwrap();
    let free: Vec<&str> = p.free_variables().iter().map(|k| &**k).collect();
    assert_eq!(free, ["a", "b", "c", "PI"]);
    let looked: Vec<&str> = p.context_names().iter().map(|k| &**k).collect();
    assert_eq!(looked, ["max", "a", "b", "nope", "c", "PI"]);
    assert_eq!(p.functions(), ["max"]);
    // A name both read and called is a free variable.
    let p = compile("max(1, 2) + max").unwrap();
    let free: Vec<&str> = p.free_variables().iter().map(|k| &**k).collect();
    assert_eq!(free, ["max"]);
    assert!(compile("max(1, 2)").unwrap().unknown_functions().is_empty());
}

#[test]
fn a_missing_name_is_asked_once_per_run() {
    use std::cell::Cell;
    struct Counting<'a>(&'a Cell<u32>);
    impl xpr_vm::Context for Counting<'_> {
        fn get(&self, name: &str) -> Option<Value> {
            if name == "max" {
                self.0.set(self.0.get() + 1);
            }
            None
        }
    }
    let asked = Cell::new(0);
    let program = compile("range(100).map(x => max(x, 50)).sum()").unwrap();
    let mut vm = Vm::new();
    for _ in 0..3 {
        vm.run(&program, &Counting(&asked), &opts()).unwrap();
    }
    assert_eq!(asked.get(), 3, "once per run, not once per call");
    // A value that is no function is asked for once per run too, and the
    // built-in is called.
    struct Field<'a>(&'a Cell<u32>);
    impl xpr_vm::Context for Field<'_> {
        fn get(&self, name: &str) -> Option<Value> {
            (name == "max").then(|| {
                self.0.set(self.0.get() + 1);
                Value::Number(1000.0)
            })
        }
    }
    let asked = Cell::new(0);
    let program = compile("range(100).map(x => max(x, 50)).sum()").unwrap();
    for _ in 0..3 {
        let v = vm.run(&program, &Field(&asked), &opts()).unwrap();
        assert_eq!(v, Value::Number(6225.0));
    }
    assert_eq!(asked.get(), 3, "once per run, not once per call");
}
