//! The VM runs some instruction sequences as one (a context read compared
//! with a constant, then a jump; a chain of string concatenations): each
//! must give the results, errors, positions and fuel of the instructions
//! run one by one.

use crate::common;

use common::{compile, opts};
use xpr_vm::{Map, Value, Vm};

/// Runs `src` against `ctx` (a native map or a JSON record, which lends
/// strings as text) and returns the result and the fuel used.
fn run(src: &str, ctx: &dyn xpr_vm::Context) -> (Result<Value, xpr_vm::Error>, u64) {
    let program = compile(src).expect("compiles");
    let mut vm = Vm::new();
    let r = vm.run(&program, ctx, &opts());
    (r, vm.fuel_used())
}

fn contexts() -> (Map, serde_json::Value) {
    let json = serde_json::json!({"a": "Ada", "b": "Lovelace", "n": 3, "s": "RU"});
    let map = match Value::from_json(&json).expect("converts") {
        Value::Object(o) => o.map().clone(),
        _ => Map::default(),
    };
    (map, json)
}

#[test]
fn concatenation_chains_match_one_by_one() {
    let (map, json) = contexts();
    for ctx in [&map as &dyn xpr_vm::Context, &json] {
        let (r, fuel) = run(r#"a + " " + b + "!" + a"#, ctx);
        assert_eq!(r.unwrap(), Value::from("Ada Lovelace!Ada"));
        // 4 loads/constants after the first, 4 adds, the first load, return,
        // and each step's text at 16 bytes a unit (only the last reaches 16).
        assert_eq!(fuel, 11);
        // The chain is built from `a`'s text; `upper` then changes the
        // new, unshared string in place: 7 instructions plus the case
        // change's `1 + 24 / 16` (as the ordinary call charges).
        let (r, fuel) = run(r#"(a + " " + b).upper()"#, ctx);
        assert_eq!(r.unwrap(), Value::from("ADA LOVELACE"));
        assert_eq!(fuel, 9);
        let (r, _) = run(r#"(a + " " + b).lower() + a.lower()"#, ctx);
        assert_eq!(r.unwrap(), Value::from("ada lovelaceada"));
        // Not ASCII, or shared (the context's own string, an array's
        // element): the ordinary call, the same answers.
        let (r, _) = run(r#"("é" + a + " ").upper()"#, ctx);
        assert_eq!(r.unwrap(), Value::from("ÉADA "));
        let (r, _) = run(r#"a.upper() + [a + "!"].map(s => s.upper())[0]"#, ctx);
        assert_eq!(r.unwrap(), Value::from("ADAADA!"));
        let (r, _) = run(r#"(1 + 2).upper()"#, ctx);
        assert!(
            r.unwrap_err()
                .message()
                .contains("cannot call method 'upper'")
        );
        // A number in the chain: the add fails at its own position.
        let e = run(r#"a + " " + n"#, ctx).0.unwrap_err();
        assert!(e.message().contains("cannot add string and number"), "{e}");
        let sp = e.span().expect("a position");
        assert_eq!((sp.start, sp.end), (0, 11));
        // An unknown name in the chain: reported where it is written.
        let e = run(r#"a + " " + missing + b"#, ctx).0.unwrap_err();
        assert!(e.message().contains("Unknown identifier 'missing'"), "{e}");
        let sp = e.span().expect("a position");
        assert_eq!((sp.start, sp.end), (10, 17));
    }
}

#[test]
fn fused_comparisons_match_one_by_one() {
    let (map, json) = contexts();
    for ctx in [&map as &dyn xpr_vm::Context, &json] {
        let (r, fuel) = run(r#"(s == "MOW" || s == "RU") && n >= 3"#, ctx);
        assert_eq!(r.unwrap(), Value::Bool(true));
        // Every instruction up to the return, each once.
        assert_eq!(fuel, 9);
        let (r, _) = run(r#"s < "S" && a != "x""#, ctx);
        assert_eq!(r.unwrap(), Value::Bool(true));
        let e = run(r#"s > 1"#, ctx).0.unwrap_err();
        assert!(
            e.message().contains("cannot compare string and number"),
            "{e}"
        );
        let sp = e.span().expect("a position");
        assert_eq!((sp.start, sp.end), (0, 5));
    }
}

#[test]
fn simple_callbacks_match_general_ones() {
    let (map, _) = contexts();
    let items = r#"[{p: 1, n: "a"}, {p: 5, n: "b"}, {p: 0, n: "c"}]"#;
    // `x => x.p > 2` runs without a frame; `x => (x.p > 2) == true` does not.
    // (Their exact fuel is pinned by the fuel golden of case b.)
    let (fast, _) = run(&format!("{items}.filter(x => x.p > 2).map(x => x.n)"), &map);
    let (slow, _) = run(
        &format!("{items}.filter(x => (x.p > 2) == true).map(x => [x.n][0])"),
        &map,
    );
    assert_eq!(fast.unwrap(), Value::array(vec![Value::from("b")]));
    assert_eq!(slow.unwrap(), Value::array(vec![Value::from("b")]));
    // Errors keep their positions inside the callback.
    let e = run("[null].map(x => x.a)", &map).0.unwrap_err();
    assert!(e.message().contains("cannot access .a on null"), "{e}");
    let sp = e.span().expect("a position");
    assert_eq!((sp.start, sp.end), (18, 19));
    let e = run(r#"[{a: 1}].filter(x => x.a < "s")"#, &map)
        .0
        .unwrap_err();
    assert!(
        e.message().contains("cannot compare number and string"),
        "{e}"
    );
    // Out of fuel inside a callback.
    let program = compile("range(1000).map(i => {v: i}).map(x => x.v)").expect("compiles");
    let mut o = opts();
    o.limits.fuel = Some(2000);
    let e = Vm::new().run(&program, &(), &o).unwrap_err();
    assert!(e.message().contains("fuel"), "{e}");
}

/// `(A || B) && (C || D)`: a comparison's result taken by the jump after
/// it, and by the `&&` / `||` or the return it jumps to, is charged one
/// unit per instruction in turn. The instructions each truth assignment
/// runs (listing: 0 A, 1 ==, 2 ||, 3 B, 4 ==, 5 &&, 6 C, 7 >=, 8 ||, 9 D,
/// 10 ==, 11 return): A and C: 0-2, 5-8, 11 (8); A, not C: 10; not A, B
/// and C: 10; not A, B, not C: 12; neither A nor B: 0-5, 11 (7). Each
/// run succeeds with exactly that fuel and fails for one unit less, at
/// the return, the last instruction it runs.
#[test]
fn logic_chains_are_charged_per_instruction() {
    let src = r#"(o == "MOW" || c == "RU") && (v >= 100 || n == 1)"#;
    let program = compile(src).expect("compiles");
    let cases = [
        // (o, c, v, n, result, fuel)
        ("MOW", "FR", 150, 2, true, 8),
        ("MOW", "FR", 50, 1, true, 10),
        ("MOW", "FR", 50, 2, false, 10),
        ("LED", "RU", 150, 2, true, 10),
        ("LED", "RU", 50, 1, true, 12),
        ("LED", "RU", 50, 2, false, 12),
        ("LED", "FR", 150, 1, false, 7),
    ];
    for (o, c, v, n, want, fuel) in cases {
        let json = serde_json::json!({"o": o, "c": c, "v": v, "n": n});
        let map = match Value::from_json(&json).expect("converts") {
            Value::Object(obj) => obj.map().clone(),
            _ => Map::default(),
        };
        for ctx in [&map as &dyn xpr_vm::Context, &json] {
            let mut vm = Vm::new();
            let r = vm.run(&program, ctx, &opts());
            assert_eq!(r.unwrap(), Value::Bool(want), "{json}");
            assert_eq!(vm.fuel_used(), fuel, "{json}");
            let mut tight = opts();
            tight.limits.fuel = Some(fuel - 1);
            let e = vm.run(&program, ctx, &tight).unwrap_err();
            assert_eq!(e.kind(), xpr_vm::ErrorKind::Fuel, "{json}");
            assert_eq!(vm.fuel_used(), fuel - 1, "{json}");
            // Every run ends with the return: the unit it could not pay
            // is the return's, at the whole expression.
            let sp = e.span().expect("a position");
            assert_eq!(
                (sp.start as usize, sp.end as usize),
                (0, src.len()),
                "{json}"
            );
        }
    }
}

/// Arithmetic on two numbers runs in place; anything else (a string, a
/// result that is not finite) takes the general path with its errors.
#[test]
fn arithmetic_fast_paths_match_the_general_path() {
    let (map, _) = contexts();
    let (r, fuel) = run("(n + 1) * n - n / 2 % 2", &map);
    assert_eq!(r.unwrap(), Value::Number(10.5));
    assert_eq!(fuel, 12);
    let (r, _) = run("let x = 2; let y = x * x; y + x - y * x", &map);
    assert_eq!(r.unwrap(), Value::Number(-2.0));
    let e = run("n * 1e308", &map).0.unwrap_err();
    assert!(e.message().contains("is not a finite number"), "{e}");
    let sp = e.span().expect("a position");
    assert_eq!((sp.start, sp.end), (0, 9));
    let e = run("n - a", &map).0.unwrap_err();
    assert!(
        e.message()
            .contains("operator '-' requires numbers, got number and string"),
        "{e}"
    );
    let e = run("n / 0", &map).0.unwrap_err();
    assert!(e.message().contains("Division by zero"), "{e}");
    // A context number as the right operand (`x <op> name`): over a map
    // (lent) and JSON (built), the same results, fuel and errors.
    let json = serde_json::json!({"x": 6, "y": 4, "z": 0, "big": 1e308, "s": "t"});
    let map = match Value::from_json(&json).expect("converts") {
        Value::Object(o) => o.map().clone(),
        _ => Map::default(),
    };
    for ctx in [&map as &dyn xpr_vm::Context, &json] {
        let (r, fuel) = run("(x + y) * y - x / y", ctx);
        assert_eq!(r.unwrap(), Value::Number(38.5));
        assert_eq!(fuel, 10);
        // `x`, `y`, `y`, `*`, `-`: one unit short of each operator, the
        // error is that operator's (`y * y`, then the whole `-`).
        let program = compile("x - y * y").expect("compiles");
        for (fuel, at) in [(3, (4, 9)), (4, (0, 9))] {
            let mut vm = Vm::new();
            let mut tight = opts();
            tight.limits.fuel = Some(fuel);
            let e = vm.run(&program, ctx, &tight).unwrap_err();
            assert_eq!(e.kind(), xpr_vm::ErrorKind::Fuel);
            assert_eq!(vm.fuel_used(), fuel);
            let sp = e.span().expect("a position");
            assert_eq!((sp.start, sp.end), at);
        }
        let e = run("x / z", ctx).0.unwrap_err();
        assert!(e.message().contains("Division by zero"), "{e}");
        let sp = e.span().expect("a position");
        assert_eq!((sp.start, sp.end), (0, 5));
        let e = run("x * big", ctx).0.unwrap_err();
        assert!(e.message().contains("is not a finite number"), "{e}");
        let e = run("x + s", ctx).0.unwrap_err();
        assert!(e.message().contains("cannot add number and string"), "{e}");
        let e = run("s + x", ctx).0.unwrap_err();
        assert!(e.message().contains("cannot add string and number"), "{e}");
    }
}

/// What a run shows of a program: its result, fuel and peak memory, then
/// for every smaller fuel budget and every smaller memory budget the
/// error's kind and position, and for call depths 0 and 1 the same.
fn signature(src: &str, ctx: &dyn xpr_vm::Context) -> String {
    let program = compile(src).expect("compiles");
    let mut vm = Vm::new();
    let r = vm.run(&program, ctx, &opts());
    let (fuel, memory) = (vm.fuel_used(), vm.peak_memory());
    let shown = |r: Result<Value, xpr_vm::Error>| match r {
        Ok(v) => format!("{v:?}"),
        Err(e) => {
            let at = e.span().map(|s| (s.start, s.end));
            format!("{:?} {at:?} {}", e.kind(), e.message())
        }
    };
    let mut out = format!("{} fuel {fuel} memory {memory}", shown(r));
    let mut limited = |f: &dyn Fn(&mut xpr_vm::Limits)| {
        let mut o = opts();
        f(&mut o.limits);
        let mut vm = Vm::new();
        let r = vm.run(&program, ctx, &o);
        out.push_str(&format!(
            "\n  {} fuel {} memory {}",
            shown(r),
            vm.fuel_used(),
            vm.peak_memory()
        ));
    };
    for f in 0..fuel {
        limited(&|l| l.fuel = Some(f));
    }
    for m in (0..memory).step_by(3) {
        limited(&|l| l.memory = Some(m));
    }
    for d in 0..2 {
        limited(&|l| l.call_depth = d);
    }
    out
}

/// `name.lower()` / `name.upper()` inside a chain of concatenations (the
/// string transform of the CLI benchmark's W3) is appended to the chain's
/// text, never built on its own: the same results, fuel, memory and
/// errors (at every budget) as the instructions one by one, recorded
/// before the shortcut existed.
#[test]
fn case_changes_inside_concatenation_chains_match_one_by_one() {
    let json = serde_json::json!({"a": "Ada", "b": "LAX", "e": "Éva", "n": 3});
    let map = match Value::from_json(&json).expect("converts") {
        Value::Object(o) => o.map().clone(),
        _ => Map::default(),
    };
    let mut all = String::new();
    for ctx in [&map as &dyn xpr_vm::Context, &json] {
        for src in [
            r#"a.lower() + " -> " + b.lower()"#,
            r#"a + "/" + b.upper() + a.lower() + "!""#,
            r#"a + e.lower() + b.lower()"#,
            r#"a + " " + n.lower()"#,
            r#"a + " " + missing.lower()"#,
            r#"(a + b.lower()).upper()"#,
        ] {
            all.push_str(&format!("{src}\n{}\n", signature(src, ctx)));
        }
    }
    common::assert_golden("fused__case_chains", &all);
}

/// `name.lower()` / `name.upper()` followed by `+ "constant"` starts the
/// chain from the text changed in case (never built on its own): the same
/// results, fuel, memory and errors at every budget as the instructions
/// one by one, recorded before the shortcut existed; text that is not
/// ASCII, a value that is no string and an unknown name go the ordinary
/// way.
#[test]
fn case_changes_starting_a_chain_match_one_by_one() {
    let json = serde_json::json!({"a": "Ada", "b": "LAX", "e": "Éva", "n": 3});
    let map = match Value::from_json(&json).expect("converts") {
        Value::Object(o) => o.map().clone(),
        _ => Map::default(),
    };
    let mut all = String::new();
    for ctx in [&map as &dyn xpr_vm::Context, &json] {
        for src in [
            r#"b.upper() + "-" + a"#,
            r#"a.lower() + """#,
            r#"a.upper() + "/" + b.lower() + ".""#,
            r#"(a.lower() + "x").upper()"#,
            r#"a.lower() + "x" + n"#,
            r#"e.lower() + "!""#,
            r#"n.lower() + "x""#,
            r#"missing.upper() + "x""#,
            r#"a.lower() + 1"#,
        ] {
            all.push_str(&format!("{src}\n{}\n", signature(src, ctx)));
        }
    }
    common::assert_golden("fused__case_chain_starts", &all);
}
