//! The static cost bound (issue 20, part 1): its formula, its value at
//! given sizes or at a context's, where it has none and why, and that runs
//! stay under it (the property test over the conformance cases and
//! generated expressions is in `conformance/tests/suites/cost_bound.rs`).

use xpr::{CostBound, Engine, Limits, Sizes, Value, Vm};

fn engine() -> Engine {
    Engine::new().with_limits(Limits {
        fuel: None,
        timeout: None,
        ..Limits::default()
    })
}

fn bound(src: &str) -> CostBound {
    engine().compile(src).expect("compiles").cost_bound()
}

/// The fuel a run of `src` on `context` uses, and the bound at the
/// context's sizes.
fn measured(src: &str, context: &serde_json::Value) -> (u64, u64) {
    let program = engine().compile(src).expect("compiles");
    let ctx = Value::from_json(context).expect("json");
    let mut vm = Vm::new();
    program.run_in(&mut vm, &ctx).expect("runs");
    let b = program.cost_bound();
    let at = b.evaluate(&b.sizes_of(&ctx)).expect("bounded");
    (vm.fuel_used(), at)
}

fn items(n: usize) -> serde_json::Value {
    let items: Vec<_> = (0..n)
        .map(|i| serde_json::json!({"price": i % 100, "name": format!("item {i}"), "tags": ["a", "bb"]}))
        .collect();
    serde_json::json!({ "items": items, "name": "x".repeat(n) })
}

#[test]
fn formulas_name_the_sizes_of_context_paths() {
    for (src, want) in [
        ("1 + 2", "2"),
        ("name + \"!\"", "5 + bytes(name)/16"),
        (
            "items.filter(x => x.price > 50).map(x => x.name)",
            "6 + 9·len(items)",
        ),
        (
            "items.map(x => x.tags.length).sum()",
            "6 + 6·len(items) + len(items)·bytes(items[].tags)/16",
        ),
        ("let f = x => x * 2; nums.map(f)", "6 + 6·len(nums)"),
        ("nums.reduce((a, b) => a + b, 0)", "5 + 6·len(nums)"),
    ] {
        assert_eq!(bound(src).to_string(), want, "{src}");
    }
    // Sorting: one comparison per element per pass.
    let sort = bound("items.sortBy(x => x.price)").to_string();
    assert!(sort.contains("len(items)·log(items)"), "{sort}");
}

#[test]
fn sizes_of_values_the_program_builds_are_followed() {
    // range with constants: a number, no variable.
    let b = bound("range(0, 10).map(x => x * 2)");
    assert!(b.variables().is_empty(), "{b}");
    // map keeps the length: the second map is bounded by len(items) too.
    let b = bound("items.map(x => x.price).map(p => p + 1)");
    assert_eq!(
        b.variables()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["len(items)"]
    );
}

#[test]
fn evaluate_at_given_sizes_and_at_a_context() {
    let b = bound("items.filter(x => x.price > 50).map(x => x.name)");
    let mut sizes = Sizes::new();
    sizes.set("items", 1000);
    assert_eq!(b.evaluate(&sizes), Some(9_006));
    assert_eq!(b.evaluate(&Sizes::new()), None, "a variable without a size");
    let vars = b.variables();
    assert_eq!(vars[0].measure, xpr::cost::Measure::Len);
    assert_eq!(vars[0].path.to_string(), "items");
    let ctx = Value::from_json(&items(7)).expect("json");
    assert_eq!(
        b.sizes_of(&ctx).iter().collect::<Vec<_>>(),
        [("len(items)", 7)]
    );
    // A path through an array: the largest over its elements.
    let b = bound("items.map(x => x.name.upper())");
    let s = b.sizes_of(&ctx);
    assert_eq!(
        s.iter().find(|(k, _)| k.starts_with("bytes")),
        Some(("bytes(items[].name)", 6))
    );
}

#[test]
fn runs_stay_under_the_bound_and_near_it() {
    for src in [
        "items.filter(x => x.price > 50).map(x => x.name)",
        "items.map(x => x.name.upper()).join(\",\")",
        "items.sortBy(x => x.price).map(x => x.tags.length).sum()",
        "items.groupBy(x => x.price % 3)",
        "`${name}-${items.length}`",
    ] {
        for n in [0, 1, 10, 1000] {
            let (used, at) = measured(src, &items(n));
            assert!(used <= at, "{src} at {n}: used {used} > bound {at}");
            if n == 1000 && !src.contains("sortBy") && !src.contains("groupBy") {
                assert!(at <= 3 * used, "{src} at {n}: bound {at} far above {used}");
            }
        }
    }
}

#[test]
fn recursion_is_unbounded_at_the_call_that_makes_it() {
    let src = "((f) => f(f))((g) => g(g))";
    match bound(src) {
        CostBound::Unbounded { reason, span } => {
            assert!(reason.contains("call itself"), "{reason}");
            assert_eq!(&src[span.start as usize..span.end as usize], "g(g)");
        }
        b => panic!("{src}: {b}"),
    }
}

#[test]
fn functions_of_unknown_cost_are_unbounded_with_the_reason() {
    let b = bound("score(1)");
    assert!(b.to_string().contains("'score'"), "{b}");
}

#[test]
fn host_functions_cost_their_declared_fuel_unless_they_meter() {
    let mut engine = engine();
    engine
        .register("twice", xpr::Arity::Exact(1), |a| Ok(a[0].clone()))
        .expect("registers");
    engine
        .register_metered("work", xpr::Arity::Exact(1), |m, a| {
            m.charge(10);
            Ok(a[0].clone())
        })
        .expect("registers");
    // `twice(n) > 3`: four instructions and the call's declared unit.
    let b = engine
        .compile("twice(n) > 3")
        .expect("compiles")
        .cost_bound();
    assert_eq!(b.to_string(), "5", "{b}");
    let program = engine.compile("twice(n) > 3").expect("compiles");
    let mut vm = Vm::new();
    let ctx = Value::from_json(&serde_json::json!({"n": 5})).expect("json");
    program.run_in(&mut vm, &ctx).expect("runs");
    assert!(vm.fuel_used() <= 5, "{}", vm.fuel_used());
    // What it returns has no known size.
    let b = engine
        .compile("twice(name).length")
        .expect("compiles")
        .cost_bound();
    assert!(b.to_string().contains("what 'twice' returns"), "{b}");
    let b = engine.compile("work(1)").expect("compiles").cost_bound();
    assert!(
        b.to_string().contains("host function 'work', which meters"),
        "{b}"
    );
}

#[test]
fn a_reduce_accumulator_growing_by_a_fixed_amount_is_bounded_by_induction() {
    // Each round copies the text so far: quadratic in the word count.
    let b = bound("words.reduce((a, w) => a + w, \"\")");
    assert!(
        b.to_string()
            .contains("len(words)·len(words)·bytes(words[])/16"),
        "{b}"
    );
    let ctx = serde_json::json!({"words": ["ab", "cde", "f", "ghij"]});
    let (used, at) = measured("words.reduce((a, w) => a + w, \"\")", &ctx);
    assert!(used <= at, "{used} > {at}");
    let b = bound("nums.reduce((a, x) => [...a, x * 2], [])");
    assert!(b.is_bounded(), "{b}");
    // Doubling: bounded by the memory the accumulator is charged.
    let src = "nums.reduce((a, x) => a + a, \"x\")";
    let b = bound(src);
    assert!(b.to_string().contains("len(nums)·memory/8"), "{b}");
    let nums: Vec<u32> = (0..20).collect();
    let (used, at) = measured(src, &serde_json::json!({ "nums": nums }));
    assert!(used <= at, "{used} > {at}");
}

#[test]
fn counts_known_only_at_run_time_are_bounded_by_the_memory_limit() {
    let src = "name.repeat(n)";
    let b = bound(src);
    assert_eq!(b.to_string(), "8 + bytes(name)/16 + memory/16");
    let ctx = Value::from_json(&serde_json::json!({"name": "ab", "n": 3})).expect("json");
    let sizes = b.sizes_of(&ctx);
    assert_eq!(
        sizes.iter().collect::<Vec<_>>(),
        [("bytes(name)", 2), ("memory", 64 << 20)]
    );
    let mut small = sizes.clone();
    small.set("memory", 1600);
    assert_eq!(b.evaluate(&small), Some(109));
    let (used, at) = measured(src, &serde_json::json!({"name": "abc", "n": 10000}));
    assert!(used <= at, "{used} > {at}");
}

#[test]
fn hostile_programs_end_the_analysis_quickly() {
    let engine = Engine::new().with_limits(Limits {
        max_depth: None,
        max_length: None,
        ..Limits::default()
    });
    let bound = |src: &str| engine.compile(src).expect("compiles").cost_bound();
    // Each function calls the one before three times: 3^14 call sites.
    let mut src = String::from("let f0 = x => x + 1; ");
    for i in 1..15 {
        let p = i - 1;
        src.push_str(&format!("let f{i} = x => f{p}(f{p}(f{p}(x))); "));
    }
    src.push_str("f14(1)");
    let b = bound(&src);
    assert!(b.to_string().contains("too large"), "{b}");
    // Calls nested deeper than the analysis follows.
    let mut src = String::from("let g0 = x => x; ");
    for i in 1..56 {
        src.push_str(&format!("let g{i} = x => g{}(x); ", i - 1));
    }
    src.push_str("g55(1)");
    let b = bound(&src);
    assert!(b.to_string().contains("nested too deeply"), "{b}");
    // Long straight code is linear.
    let src = vec!["a.length"; 200].join(" + ");
    assert!(bound(&src).is_bounded());
}

/// Hostile regex runs (long haystacks, patterns whose lazy DFA gives up,
/// many and empty matches, captures, templates that copy the haystack,
/// string patterns compiled at run time, a cold DFA cache filling up):
/// every one is bounded and stays under its bound.
#[test]
fn regex_built_ins_are_bounded_and_runs_stay_under() {
    let ab = "ab".repeat(2_000);
    let digits: String = (0..2_000).map(|i| i.to_string()).collect();
    let short = &digits[..1_500];
    let cases: [(&str, &str); 16] = [
        (r#"matches(s, "a+")"#, &ab),
        (r#"/a[ab]{16}c/.test(s)"#, &ab),
        (r#"match(s, "a[ab]{16}c")"#, &ab),
        (r#"s.match(/b+a/)"#, &ab),
        (r#"matchAll(s, "a").length"#, &ab),
        (r#"matchAll(s, "").length"#, &ab),
        (r#"matchAll(s, /a{1,1000}b|a/).length"#, &ab),
        (r#"s.split(/(a)(x)?/).length"#, &ab),
        (r#"s.split(/x*/).length"#, &ab),
        (r#"replacePattern(s, "(a)(b)", "$2$1").length"#, &ab),
        (r#"s.replace(/[ab]{3}/, "<$&>").length"#, &ab),
        (r#"s.slice(0, 200).replace(/b/, "$`$'").length"#, &ab),
        (r#"matchAll(s, /[\s\S]{300}/).length"#, &digits),
        (r#"matchAll(s, "[0-9]{20}[13579]").length"#, &digits),
        // A cold cache filled by states of a thousand NFA states each,
        // and one that fills up and gives up for the NFA simulation.
        (r#"match(s, /[\s\S]{1000}/)"#, short),
        (r#"matches(s, "[\\s\\S]{1000}z")"#, short),
    ];
    for (src, hay) in cases {
        let (used, at) = measured(src, &serde_json::json!({ "s": hay }));
        assert!(used <= at, "{src}: used {used} > bound {at}");
        println!("{src}: used {used}, bound {at}");
        assert!(
            bound(src)
                .variables()
                .iter()
                .any(|v| v.to_string() == "bytes(s)"),
            "{src}: {}",
            bound(src)
        );
    }
}

/// The functions the cost model takes to give a number or a boolean give
/// one (a string it took for a number was a pattern it did not charge:
/// `match(s, type(null))`), and `type` gives a string.
#[test]
fn the_functions_modelled_as_scalars_give_no_text() {
    let engine = Engine::new();
    for src in [
        "round(1.5)",
        "floor(1.5)",
        "ceil(1.5)",
        "abs(-1)",
        "sqrt(4)",
        "log(1)",
        "pow(2, 3)",
        "random()",
        "sign(-2)",
        "trunc(1.5)",
        "bool(1)",
        "isNumber(1)",
        "isString(1)",
        "isArray(1)",
        "isNull(1)",
        "isObject(1)",
        "isRegex(1)",
        "now()",
        "year(0)",
        "month(0)",
        "day(0)",
        "dayOfWeek(0)",
        "hour(0)",
        "minute(0)",
        "second(0)",
        "millisecond(0)",
        r#"dateAdd(0, 1, "days")"#,
        r#"dateDiff(0, 1, "days")"#,
        "min(1, 2)",
        "max(1, 2)",
        r#"int("1")"#,
        r#"float("1")"#,
    ] {
        let v = engine
            .compile(src)
            .and_then(|p| p.run_json(&serde_json::json!({})));
        let v = v.unwrap_or_else(|e| panic!("{src}: {e}"));
        assert!(
            matches!(v, Value::Number(_) | Value::Bool(_)),
            "{src} gave {v:?}"
        );
    }
    let v = engine
        .compile("type(null)")
        .and_then(|p| p.run_json(&serde_json::json!({})));
    assert!(matches!(v, Ok(Value::String(_))), "{v:?}");
}

#[test]
fn regex_patterns_must_be_known_to_be_bounded() {
    // Read from the context, or built at run time: no bound, and why.
    for src in [
        r#"matches(s, p)"#,
        r#"matches(s, p + "x")"#,
        r#"match(s, type(null))"#,
    ] {
        match bound(src) {
            CostBound::Unbounded { reason, .. } => {
                assert!(reason.contains("pattern"), "{src}: {reason}")
            }
            b => panic!("{src}: {b}"),
        }
    }
    // A literal pattern string costs its compilation on every call.
    let mut sizes = Sizes::new();
    sizes.set("bytes(s)", 100);
    let lit = bound(r#"matches(s, "a+")"#).evaluate(&sizes);
    let re = bound(r#"/a+/.test(s)"#).evaluate(&sizes);
    assert!(lit.is_some() && lit > re, "{lit:?} {re:?}");
}

/// Comparing objects walks one side's keys and looks each up in the
/// other; a long key the other side does not have is refused without
/// being hashed, so the walk costs no more than the lighter side, which is
/// what the bound of `==` and `includes` charges (a 64 KiB key compared
/// with `{"a": 1}` once cost 4,103 fuel against a bound of 11).
#[test]
fn an_equality_walk_costs_no_more_than_the_lighter_side() {
    let long = "k".repeat(1 << 16);
    let ctx = serde_json::json!({
        "x": { long.clone(): 1 },
        "y": {"a": 1},
        "z": { "a": 1, long.clone(): 2 },
        "xs": [{ long.clone(): 1 }, {"a": 1}],
    });
    for src in [
        r#"x == {"a": 1}"#,
        r#"{"a": 1} == x"#,
        "x == y",
        "y == x",
        "[x] == [y]",
        "[y] == [x]",
        r#"{"a": 1, "b": 2} == z"#,
        r#"z == {"a": 1, "b": 2}"#,
        r#"[x].includes({"a": 1})"#,
        "[x].includes(y)",
        "[y].includes(x)",
        "[x].indexOf(y)",
        "xs.includes(y)",
        "xs.filter(e => e == y).length",
        "[[x]].includes([y])",
    ] {
        let (used, at) = measured(src, &ctx);
        assert!(used <= at, "{src}: used {used} > bound {at}");
        assert!(used < 64, "{src}: used {used}: the long key was read");
    }
    // A key both sides have is still hashed and charged.
    let (used, at) = measured(
        "x == w",
        &serde_json::json!({"x": {long.clone(): 1}, "w": {long: 1}}),
    );
    assert!(
        used >= (1 << 16) / 16 && used <= at,
        "used {used}, bound {at}"
    );
}
