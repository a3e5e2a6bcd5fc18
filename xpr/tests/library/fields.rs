//! `Program::run_fields_in`: an object literal result handed over as its
//! fields, with the same fuel, memory, errors and values as `run_in`.

use serde_json::json;
use xpr::{Engine, ErrorKind, Limits, Output, Value, ValueType, Vm};
use xpr_testkit::Rng;

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

/// A result literal on the whole stack (no locals) is handed over by
/// trading the stack for the fields; one above locals is moved out of
/// it. One VM takes turns at both and at whole runs: each run's fields,
/// fuel and memory are those of its program run whole.
#[test]
fn fields_taken_from_the_whole_stack_or_above_locals_agree() {
    let ctx = json!({"s": "ab", "x": 3, "xs": [1, 2]});
    let programs: Vec<xpr::Program> = [
        "{a: s, b: x}",
        "let k = x * 2; {k: k, s: s + s}",
        "{a: xs, b: {c: s}, d: x > 2}",
        "let a = [s]; let b = a; {b: b, n: x}",
    ]
    .iter()
    .map(|src| Engine::new().compile(src).expect("compiles"))
    .collect();
    let mut vm = Vm::new();
    for round in 0..3 {
        for (i, p) in programs.iter().enumerate() {
            let f = fields_run(p, &mut vm, &ctx);
            let w = whole_run(p, &mut vm, &ctx);
            assert!(f.1, "program {i} came as fields");
            assert_eq!(
                (&f.0, f.2, f.3),
                (&w.0, w.2, w.3),
                "round {round}, program {i}"
            );
        }
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

/// Generated expressions whose results are (or hold) object literals in
/// every position: `run_fields_in` gives the value, error, fuel and memory
/// of `run_in`, under default and tight budgets, on one VM reused
/// across both kinds of run.
#[test]
fn generated_expressions_run_as_fields_as_they_run_whole() {
    let ctx = json!({
        "x": 3, "s": "ab", "n": null, "xs": [1, 2, 3],
        "o": {"a": 1, "b": [true, null], "c": {"d": "é😀"}}, "t": true
    });
    let mut rng = Rng::new(0x5eed_f1e1d5);
    let mut vm = Vm::new();
    let (mut as_fields, mut failed) = (0, 0);
    for case in 0..3000 {
        let src = object(&mut rng, 3);
        let Ok(program) = Engine::new().compile(&src) else {
            continue;
        };
        let limits = match rng.below(4) {
            0 => Limits {
                fuel: Some(rng.range(1..300) as u64),
                ..Limits::default()
            },
            1 => Limits {
                memory: Some(rng.range(1..3000) as u64),
                ..Limits::default()
            },
            2 => Limits {
                value_depth: rng.range(1..6) as u32,
                ..Limits::default()
            },
            _ => Limits::default(),
        };
        let program = Engine::new()
            .with_limits(limits)
            .compile(&src)
            .unwrap_or(program);
        // Either kind of run first, on the VM the last case used.
        let (f, whole) = if rng.coin() {
            let f = fields_run(&program, &mut vm, &ctx);
            (f, whole_run(&program, &mut vm, &ctx))
        } else {
            let w = whole_run(&program, &mut vm, &ctx);
            (fields_run(&program, &mut vm, &ctx), w)
        };
        as_fields += usize::from(f.1);
        failed += usize::from(f.0.starts_with("err"));
        assert_eq!(
            (&f.0, f.2, f.3),
            (&whole.0, whole.2, whole.3),
            "case {case}: {src}"
        );
    }
    // The generator reaches the handed-over path often.
    assert!(as_fields > 400, "{as_fields} results came as fields");
    assert!((300..2000).contains(&failed), "{failed} runs failed");
}

/// The result (or error) shown, whether it came as fields, fuel, memory.
type Run = (String, bool, u64, u64);

fn shown(r: Result<Value, xpr::Error>) -> String {
    match r {
        Ok(v) => format!("ok {v:?}"),
        Err(e) => format!("err {:?} {e} / {:?}", e.kind(), e.hint()),
    }
}

fn fields_run(program: &xpr::Program, vm: &mut Vm, ctx: &serde_json::Value) -> Run {
    let out = program
        .run_fields_in(vm, ctx)
        .map(|o| (matches!(o, Output::Fields(_)), o.into_value()));
    let came = matches!(out, Ok((true, _)));
    (
        shown(out.map(|(_, v)| v)),
        came,
        vm.fuel_used(),
        vm.peak_memory(),
    )
}

fn whole_run(program: &xpr::Program, vm: &mut Vm, ctx: &serde_json::Value) -> Run {
    let out = program.run_in(vm, ctx);
    (shown(out), false, vm.fuel_used(), vm.peak_memory())
}

const KEYS: &[&str] = &["a", "b", "c", "k", "x", "\"a\"", "\"é 😀\"", "\"\"", "s"];

/// An expression whose value is likely an object literal.
fn object(rng: &mut Rng, depth: u32) -> String {
    let d = depth.saturating_sub(1);
    match rng.below(if depth == 0 { 4 } else { 12 }) {
        0..=3 => {
            let n = rng.weighted(&[1, 6, 4, 2, 1, 1]);
            let n = if n == 5 { rng.range(14..19) } else { n };
            let mut props = Vec::new();
            for i in 0..n {
                if rng.chance(0.05) {
                    props.push(format!("...{}", value(rng, d)));
                } else if n > 8 {
                    props.push(format!("k{i}: {}", value(rng, d)));
                } else {
                    props.push(format!("{}: {}", rng.pick(KEYS), value(rng, d)));
                }
            }
            format!("{{{}}}", props.join(", "))
        }
        4 => format!("let k = {}; {}", value(rng, d), object(rng, d)),
        5 => format!(
            "{} ? {} : {}",
            value(rng, d),
            object(rng, d),
            object(rng, d)
        ),
        6 => format!("(() => {})()", object(rng, d)),
        7 => format!("((m) => (() => {})())({})", object(rng, d), value(rng, d)),
        8 => format!("{} ?? {}", value(rng, d), object(rng, d)),
        9 => format!("xs.map(v => {})[{}]", object(rng, d), rng.below(4)),
        10 => format!("{{...{}}}", object(rng, d)),
        _ => format!("[{}][0]", object(rng, d)),
    }
}

/// Any expression over the context, failing now and then.
fn value(rng: &mut Rng, depth: u32) -> String {
    let d = depth.saturating_sub(1);
    match rng.below(if depth == 0 { 10 } else { 18 }) {
        0 => rng.below(100).to_string(),
        1 => "s".into(),
        2 => "x".into(),
        3 => "n".into(),
        4 => "xs".into(),
        5 => "o.c".into(),
        6 => "o?.z?.w".into(),
        7 => "\"é😀\"".into(),
        8 => "t".into(),
        9 => "o.a".into(),
        10 => format!("{} + {}", value(rng, d), value(rng, d)),
        11 => format!("s.repeat({})", rng.below(200)),
        12 => format!("[{}, {}]", value(rng, d), object(rng, d)),
        13 => format!("`<${{{}}}>`", value(rng, d)),
        14 => format!("xs.map(v => v * {})", value(rng, d)),
        15 => object(rng, d),
        16 => format!("{}.a", object(rng, d)),
        _ => format!("range({}).reduce((acc, v) => acc + v, 0)", rng.below(50)),
    }
}
