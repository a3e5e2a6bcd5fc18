//! The straight-line tier (`xpr-vm/src/vm/straight.rs`) against the
//! dispatch loop: for generated expressions of the instructions it runs,
//! over contexts that lend, build and lend as text, the same value or
//! error (kind, message, position), the same fuel and memory, under
//! budgets from none to a few units of fuel.

use serde_json::json;
use xpr::{Engine, Limits, RunConfig, Value, Vm};
use xpr_testkit::Rng;

/// Names of the contexts below, and constants, as leaves.
const LEAVES: &[&str] = &[
    "n",
    "m",
    "z",
    "big",
    "s",
    "t",
    "e",
    "b",
    "f",
    "nul",
    "o.x",
    "o.s",
    "o.o.y",
    "o.none",
    "nul.x",
    "n.x",
    "arr",
    "missing",
    "0",
    "1",
    "2.5",
    "-1",
    "1e308",
    "\"MOW\"",
    "\"\"",
    "\"a\"",
    "true",
    "false",
    "null",
    "l",
    "\"sixteen bytes!!!\"",
    "\"fifteen bytes!!\"",
];

const BINARY: &[&str] = &[
    "+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "??",
];

fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.chance(0.3) {
        return (*rng.pick(LEAVES)).to_string();
    }
    match rng.below(10) {
        0 => format!("!{}", expr(rng, depth - 1)),
        1 => format!("-({})", expr(rng, depth - 1)),
        2 => format!(
            "({} ? {} : {})",
            expr(rng, depth - 1),
            expr(rng, depth - 1),
            expr(rng, depth - 1)
        ),
        _ => format!(
            "({} {} {})",
            expr(rng, depth - 1),
            rng.pick(BINARY),
            expr(rng, depth - 1)
        ),
    }
}

/// The record every context below holds.
fn record() -> serde_json::Value {
    json!({
        "n": 3, "m": -2.5, "z": 0, "big": 1e308, "s": "MOW", "t": "RU", "e": "",
        "b": true, "f": false, "nul": null, "arr": [1, 2], "l": "sixteen bytes!!!",
        "o": {"x": 1, "s": "a", "o": {"y": 2}},
    })
}

/// What a run gave: the value or the error, the fuel and the memory.
type Outcome = (
    Result<Value, (String, String, Option<(u32, u32)>)>,
    u64,
    u64,
);

fn outcome(
    program: &xpr::Program,
    ctx: &dyn xpr::Context,
    fuel: Option<u64>,
    straight: bool,
) -> (Outcome, bool) {
    let mut vm = Vm::new();
    vm.set_straight_line(straight);
    // A small fuel budget comes with a small value-depth limit: `o` (an
    // object holding an object) and `arr` are then too deep to read.
    let value_depth = if fuel.is_some_and(|f| f < 9) { 1 } else { 1000 };
    let config = RunConfig {
        limits: Some(Limits {
            fuel,
            value_depth,
            ..Limits::default()
        }),
        ..RunConfig::default()
    };
    // Twice: the second run starts from the first one's hints.
    let _ = program.run_in_with(&mut vm, ctx, &config);
    let got = program.run_in_with(&mut vm, ctx, &config).map_err(|e| {
        (
            format!("{:?}", e.kind()),
            e.to_string(),
            e.span().map(|s| (s.start, s.end)),
        )
    });
    (
        (got, vm.fuel_used(), vm.peak_memory()),
        vm.ran_straight_line(),
    )
}

#[test]
fn the_straight_line_tier_agrees_with_the_dispatch_loop() {
    let json = record();
    let map = match Value::from_json(&json) {
        Ok(Value::Object(o)) => o.map().clone(),
        other => panic!("an object: {other:?}"),
    };
    let value = Value::object(map.clone());
    let contexts: [(&str, &dyn xpr::Context); 3] =
        [("map", &map), ("json", &json), ("value", &value)];
    let engine = Engine::new();
    let mut rng = Rng::new(0x5712_a16e);
    let (mut tried, mut straight) = (0, 0);
    for _ in 0..3000 {
        let src = expr(&mut rng, 4);
        let Ok(program) = engine.compile(&src) else {
            continue;
        };
        tried += 1;
        for (name, ctx) in contexts {
            for fuel in [None, Some(2), Some(5), Some(9)] {
                let (tier, ran) = outcome(&program, ctx, fuel, true);
                let (lp, _) = outcome(&program, ctx, fuel, false);
                assert_eq!(tier, lp, "{src} over the {name} context, fuel {fuel:?}");
                straight += usize::from(ran);
            }
        }
    }
    // The generator reaches the tier, and not only for trivial programs.
    assert!(tried > 2500, "{tried} compiled");
    assert!(straight > 3000, "{straight} runs in the tier");
}

#[test]
fn the_tier_runs_predicates_and_arithmetic_and_leaves_the_rest() {
    // A map lends every value (a serde_json record builds its objects).
    let ctx = Value::from_json(&record()).expect("converts");
    let engine = Engine::new();
    for (src, tier) in [
        ("(n + m) * n - z / n", true),
        (r#"(s == "MOW" || t == "RU") && (n >= 100 || b)"#, true),
        ("o.o.y > 1 ? -n : !f", true),
        ("nul ?? n", true),
        // A lent array is handed back as it is.
        ("arr", true),
        // Leaves it: a call, a string built, an error.
        ("abs(n)", false),
        (r#"s + "x""#, false),
        ("n / z", false),
        ("nul.x", false),
    ] {
        let program = engine.compile(src).expect("compiles");
        let (_, ran) = outcome(&program, &ctx, None, true);
        assert_eq!(ran, tier, "{src}");
    }
    // A serde_json record builds its objects: left to the dispatch loop,
    // which finds the object already built (see `Vm::keep_global`).
    let json = record();
    for (src, tier) in [("n > 1 && s == 'MOW'", true), ("o.x > 0", false)] {
        let program = engine.compile(src).expect("compiles");
        let (_, ran) = outcome(&program, &json, None, true);
        assert_eq!(ran, tier, "{src}");
    }
}

#[test]
fn each_fused_read_agrees_with_the_dispatch_loop_on_every_context() {
    // A context read fused with what takes it at once: arithmetic, a
    // comparison with a number, with a short string (equality in its fuel
    // unit), with a long one, and each over a value of another type.
    let json = record();
    let map = match Value::from_json(&json) {
        Ok(Value::Object(o)) => o.map().clone(),
        other => panic!("an object: {other:?}"),
    };
    let contexts: [(&str, &dyn xpr::Context); 2] = [("map", &map), ("json", &json)];
    let engine = Engine::new();
    for src in [
        r#"s == "MOW""#,
        r#"s != "MOW""#,
        r#"s != "a""#,
        r#"s == "a""#,
        r#"e == """#,
        r#"l == "sixteen bytes!!!""#,
        r#"l != "sixteen bytes!!!""#,
        r#"s < "b""#,
        r#"n == "a""#,
        r#"nul != "a""#,
        r#"b == "a""#,
        "n > 2",
        "n <= 2",
        "s > 2",
        "nul == 1",
        "1 - n * m / n + n",
        "n - s",
        "big * n",
    ] {
        let program = engine.compile(src).expect("compiles");
        for (name, ctx) in contexts {
            let (tier, _) = outcome(&program, ctx, None, true);
            let (lp, _) = outcome(&program, ctx, None, false);
            assert_eq!(tier, lp, "{src} over the {name} context");
        }
    }
}
