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
