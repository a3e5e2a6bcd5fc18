//! Hostile expressions (issue: sandbox guarantees). Each one must end with a
//! clean error of the expected kind, within a bound measured in fuel units
//! (never wall-clock), with the counted peak memory inside the budget.
//! Runs on a 2 MiB thread so that any unbounded recursion would overflow.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::on_small_stack;
use xpr::{
    Arity, CancelHandle, Engine, ErrorKind, Limits, RunConfig, Stopwatch, SystemStopwatch, Value,
    Vm, WallCeiling,
};

const SMALL_FUEL: u64 = 2_000_000;
const SMALL_MEMORY: u64 = 16 << 20;

fn small_limits() -> Limits {
    Limits {
        fuel: Some(SMALL_FUEL),
        memory: Some(SMALL_MEMORY),
        timeout: None,
        ..Limits::default()
    }
}

/// Compiles and runs `src` against `ctx` under `limits`; asserts the error kind
/// is one of `kinds`, that fuel used stayed within the budget (plus one
/// built-in's worth of slack), and that counted memory stayed within budget.
fn assert_stops(src: &'static str, ctx: Value, limits: Limits, kinds: &'static [ErrorKind]) {
    let (kind, fuel, peak) = on_small_stack(move || {
        let engine = Engine::new().with_limits(limits.clone()).with_seed(Some(7));
        let mut vm = Vm::new();
        let result = engine.compile(src).and_then(|p| p.run_in(&mut vm, &ctx));
        let err = match result {
            Ok(v) => panic!("{src}: expected an error, got {v:?}"),
            Err(e) => e,
        };
        assert!(
            err.to_string().contains(" at position "),
            "{src}: error without a position: {err}"
        );
        (err.kind(), vm.fuel_used(), vm.peak_memory())
    });
    assert!(
        kinds.contains(&kind),
        "{src}: got {kind:?}, expected one of {kinds:?}"
    );
    assert!(
        fuel <= SMALL_FUEL.max(10_000_000) + 1_000_000,
        "{src}: used {fuel} fuel units"
    );
    assert!(
        peak <= SMALL_MEMORY.max(64 << 20),
        "{src}: counted {peak} bytes"
    );
}

fn empty() -> Value {
    Value::object(Default::default())
}

use ErrorKind::{Access, Arithmetic, Depth, Fuel, Length, Memory, Parse, Regex};

#[test]
fn self_application_hits_the_call_depth() {
    assert_stops("(x => x(x))(x => x(x))", empty(), small_limits(), &[Depth]);
}

#[test]
fn y_combinator_recursion_hits_the_call_depth() {
    let src = "(f => (x => f(y => x(x)(y)))(x => f(y => x(x)(y))))(self => n => self(n + 1))(0)";
    assert_stops(src, empty(), small_limits(), &[Depth]);
}

#[test]
fn recursion_through_map_callbacks_hits_the_call_depth() {
    assert_stops(
        "let f = g => [1].map(x => g(g)); f(f)",
        empty(),
        small_limits(),
        &[Depth],
    );
}

#[test]
fn recursion_through_sort_comparators_hits_the_call_depth() {
    let src = "let f = g => [2, 1].sort((a, b) => g(g)); f(f)";
    assert_stops(src, empty(), small_limits(), &[Depth]);
}

#[test]
fn repeat_of_a_billion_fails_before_allocating() {
    assert_stops(
        r#""ab".repeat(2 ** 30)"#,
        empty(),
        small_limits(),
        &[Memory],
    );
    assert_stops(r#""x".repeat(1e12)"#, empty(), Limits::default(), &[Memory]);
}

#[test]
fn huge_padding_fails_before_allocating() {
    assert_stops(r#""a".padStart(1e10)"#, empty(), small_limits(), &[Memory]);
}

#[test]
fn huge_join_separator_fails() {
    assert_stops(
        r#"range(1000).join("x".repeat(100000))"#,
        empty(),
        small_limits(),
        &[Memory],
    );
}

#[test]
fn huge_template_fails() {
    assert_stops(
        r#"`${"x".repeat(1e8)}`"#,
        empty(),
        small_limits(),
        &[Memory],
    );
}

#[test]
fn range_of_a_billion_fails_fast() {
    assert_stops("range(1e9)", empty(), small_limits(), &[Memory, Fuel]);
    assert_stops(
        "range(1e9).map(x => x)",
        empty(),
        small_limits(),
        &[Memory, Fuel],
    );
}

#[test]
fn quadratic_nested_ranges_run_out() {
    let src = "range(3000).map(i => range(3000).map(j => i * j))";
    assert_stops(src, empty(), small_limits(), &[Memory, Fuel]);
}

#[test]
fn doubling_shared_arrays_counts_logical_size() {
    assert_stops(
        "range(40).reduce((a, _) => [a, a], 1)",
        empty(),
        small_limits(),
        &[Memory],
    );
}

#[test]
fn doubling_strings_in_reduce_fails_on_memory() {
    assert_stops(
        r#"range(100).reduce((s, _) => s + s, "x")"#,
        empty(),
        small_limits(),
        &[Memory],
    );
}

#[test]
fn doubling_objects_in_reduce_fails_on_memory() {
    let src = "range(60).reduce((o, _) => ({a: o, b: o}), {})";
    assert_stops(src, empty(), small_limits(), &[Memory]);
}

#[test]
fn flattening_a_large_product_runs_out() {
    let src = "range(10000).map(x => range(10000)).flat()";
    assert_stops(src, empty(), small_limits(), &[Memory, Fuel]);
}

#[test]
fn long_reduce_runs_out_of_fuel() {
    let limits = Limits {
        fuel: Some(10_000),
        ..small_limits()
    };
    assert_stops(
        "range(100000).reduce((a, x) => a + x, 0)",
        empty(),
        limits,
        &[Fuel],
    );
}

#[test]
fn map_filter_chain_runs_out_of_fuel() {
    let limits = Limits {
        fuel: Some(100_000),
        ..small_limits()
    };
    assert_stops(
        "range(1e6).map(x => x).filter(x => x > 0)",
        empty(),
        limits,
        &[Fuel, Memory],
    );
}

#[test]
fn regex_with_huge_repetition_is_rejected() {
    assert_stops(
        r#"matches("a", "a{1000}{1000}")"#,
        empty(),
        small_limits(),
        &[Regex],
    );
    assert_stops(
        r#"matches("a", "((a{100}){100}){100}")"#,
        empty(),
        small_limits(),
        &[Regex],
    );
}

#[test]
fn regex_literal_with_huge_repetition_is_rejected() {
    assert_stops(
        r#"/(a{100}){100}{100}/.test("a")"#,
        empty(),
        small_limits(),
        &[Regex],
    );
}

#[test]
fn sorting_a_million_host_elements_stops_at_sort() {
    let (kind, position) = on_small_stack(|| {
        let xs: Vec<Value> = (0..1_000_000)
            .rev()
            .map(|i| Value::Number(i as f64))
            .collect();
        let mut map = xpr::Map::default();
        map.insert("xs".into(), Value::array(xs));
        let ctx = Value::object(map);
        let limits = Limits {
            fuel: Some(100_000),
            ..Limits::default()
        };
        let engine = Engine::new().with_limits(limits);
        let err = engine
            .compile("xs.sort()")
            .and_then(|p| p.run(&ctx))
            .expect_err("sort of 1e6 elements under 1e5 fuel must fail");
        (err.kind(), err.position())
    });
    assert_eq!(kind, Fuel);
    // The error is reported at the `.sort` call, not at `xs`.
    assert!(position.is_some_and(|p| p >= 2), "position {position:?}");
}

#[test]
fn inconsistent_comparator_never_panics() {
    let outcome = on_small_stack(|| {
        let engine = Engine::new().with_seed(Some(42));
        engine
            .eval("range(1000).sort((a, b) => random() - 0.5)", &())
            .map(|v| match v {
                Value::Array(a) => a.len(),
                _ => 0,
            })
    });
    match outcome {
        Ok(n) => assert_eq!(n, 1000),
        Err(e) => assert!(!e.message().is_empty()),
    }
}

#[test]
fn deep_parentheses_fail_on_depth() {
    let src: &'static str =
        Box::leak(format!("{}1{}", "(".repeat(1000), ")".repeat(1000)).into_boxed_str());
    assert_stops(src, empty(), small_limits(), &[Depth]);
}

#[test]
fn hundred_thousand_open_brackets_fail_on_depth() {
    for open in ["(", "["] {
        let src: &'static str = Box::leak(open.repeat(100_000).into_boxed_str());
        let limits = Limits {
            max_length: Some(2_000_000),
            ..small_limits()
        };
        assert_stops(src, empty(), limits, &[Depth]);
    }
}

#[test]
fn a_megabyte_of_minus_signs_fails_on_depth() {
    let src: &'static str = Box::leak(format!("{}1", "-".repeat(1 << 20)).into_boxed_str());
    let limits = Limits {
        max_length: Some(2_000_000),
        ..small_limits()
    };
    assert_stops(src, empty(), limits, &[Depth]);
}

#[test]
fn overlong_source_fails_on_length() {
    let src: &'static str = Box::leak(vec!["1"; 6000].join("+").into_boxed_str());
    assert_stops(src, empty(), small_limits(), &[Length, Depth]);
}

#[test]
fn out_of_range_literal_is_a_parse_error() {
    assert_stops("1e400", empty(), small_limits(), &[Parse]);
}

#[test]
fn non_finite_arithmetic_is_an_error() {
    assert_stops("2 ** 2000", empty(), small_limits(), &[Arithmetic]);
    assert_stops("1e308 * 10", empty(), small_limits(), &[Arithmetic]);
    assert_stops("0 / 0", empty(), small_limits(), &[Arithmetic]);
}

fn ctx_with(name: &str, v: Value) -> Value {
    let mut map = xpr::Map::default();
    map.insert(name.into(), v);
    Value::object(map)
}

fn obj() -> Value {
    ctx_with("a", Value::Number(1.0))
}

#[test]
fn restricted_names_are_denied_in_every_access_form() {
    for src in [
        "x.__proto__",
        "x?.prototype",
        r#"x["__pro" + "to__"]"#,
        r#"x["constructor"]"#,
        "let {constructor} = x; constructor",
        r#"let {"prototype": p} = x; p"#,
        "({__proto__: 1})",
        r#"({"constructor": 1})"#,
        "(({prototype}) => prototype)(x)",
    ] {
        assert_stops(src, ctx_with("x", obj()), small_limits(), &[Access]);
    }
}

#[test]
fn data_containing_restricted_keys_passes_through() {
    let ctx = ctx_with("x", ctx_with("__proto__", Value::Number(1.0)));
    let engine = Engine::new();
    let keys = engine
        .eval("x.keys()", &ctx)
        .expect("keys() of data passes");
    assert_eq!(keys, Value::from(vec![Value::from("__proto__")]));
    let spread = engine
        .eval("{...x, b: 2}.entries().length", &ctx)
        .expect("spread passes");
    assert_eq!(spread, Value::Number(2.0));
}

#[test]
fn deep_host_data_is_a_clean_error_or_works() {
    let deep = on_small_stack(|| {
        let text = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        let parsed: Result<serde_json::Value, _> = serde_json::from_str(&text);
        parsed.is_err()
    });
    assert!(
        deep,
        "serde_json's recursion limit must reject 10,000 levels"
    );
    let converted = on_small_stack(|| {
        // Build a 10,000-deep JSON value without recursion, then convert it.
        let mut v = serde_json::Value::from(1);
        for _ in 0..10_000 {
            v = serde_json::Value::Array(vec![v]);
        }
        let result = Value::from_json(&v).map(|_| ()).map_err(|e| e.kind());
        // Tear down iteratively: serde_json's Drop is recursive.
        let mut cur = v;
        while let serde_json::Value::Array(mut items) = cur {
            cur = items.pop().unwrap_or(serde_json::Value::Null);
        }
        result
    });
    assert_eq!(converted, Err(Depth));
}

#[test]
fn strings_from_every_unicode_plane_work() {
    let text: String = ['a', 'é', '中', '😀', '\u{10FFFD}', '\u{E0001}']
        .iter()
        .collect();
    let ctx = ctx_with("s", Value::from(text.as_str()));
    let n = Engine::new().eval("s.len()", &ctx).expect("len");
    assert_eq!(n, Value::Number(6.0));
}

#[test]
fn context_is_never_mutated() {
    let inner = Value::from(vec![
        Value::Number(3.0),
        Value::Number(1.0),
        Value::Number(2.0),
    ]);
    let ctx = ctx_with("xs", inner.clone());
    let engine = Engine::new();
    for src in [
        "xs.sort()",
        "xs.reverse()",
        "[...xs, 4]",
        "let [a, ...rest] = xs; rest",
    ] {
        engine.eval(src, &ctx).expect(src);
    }
    assert_eq!(
        inner,
        Value::from(vec![
            Value::Number(3.0),
            Value::Number(1.0),
            Value::Number(2.0)
        ])
    );
    assert_eq!(Engine::new().eval("xs", &ctx).expect("xs"), inner);
}

#[test]
fn the_wall_clock_ceiling_stops_a_run_after_a_blocking_host_call() {
    let mut engine = Engine::new().with_limits(Limits {
        wall_timeout: WallCeiling::After(Duration::from_millis(5)),
        ..Limits::default()
    });
    engine
        .register("block", Arity::Exact(0), |_| {
            std::thread::sleep(Duration::from_millis(30));
            Ok(Value::Null)
        })
        .expect("register");
    let err = engine
        .eval("[block(), block()]", &())
        .expect_err("must time out");
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert_eq!(
        err.message(),
        "Expression timeout exceeded: wall-clock ceiling of 5 ms"
    );
    // The CPU timeout does not count the time blocked.
    let limits = Limits {
        timeout: Some(Duration::from_millis(5)),
        wall_timeout: WallCeiling::Off,
        ..Limits::default()
    };
    let v = engine
        .clone()
        .with_limits(limits)
        .eval("[block(), block()].length", &())
        .expect("30 ms blocked twice, no CPU time used");
    assert_eq!(v, Value::from(2.0));
}

#[test]
fn the_timeout_counts_the_cpu_time_of_host_functions() {
    // No wall-clock ceiling: a starved thread would reach that first.
    let mut engine = Engine::new().with_limits(Limits {
        timeout: Some(Duration::from_millis(5)),
        wall_timeout: WallCeiling::Off,
        ..Limits::default()
    });
    // Busy until the thread's CPU clock has moved 30 ms, however long the
    // machine takes to give it that.
    engine
        .register("burn", Arity::Exact(0), |_| {
            let clock = SystemStopwatch;
            let start = clock.thread_cpu().expect("a thread CPU clock");
            while clock.thread_cpu().unwrap_or_default() - start < Duration::from_millis(30) {
                std::hint::black_box(());
            }
            Ok(Value::Null)
        })
        .expect("register");
    let err = engine.eval("[burn(), 1]", &()).expect_err("must time out");
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert_eq!(err.message(), "Expression timeout exceeded");
}

#[test]
fn the_ceiling_follows_the_timeout_unless_set() {
    let mut limits = Limits::default();
    assert_eq!(limits.timeout, Some(Duration::from_millis(100)));
    assert_eq!(limits.wall_ceiling(), Some(Duration::from_secs(1)));
    limits.timeout = Some(Duration::from_secs(2));
    assert_eq!(limits.wall_ceiling(), Some(Duration::from_secs(20)));
    // Switching the timeout off switches every time limit off: a test or
    // an embedder writing `timeout: None` gets no 1 s ceiling behind it.
    let off = Limits {
        timeout: None,
        ..Limits::default()
    };
    assert_eq!((off.timeout, off.wall_ceiling()), (None, None));
    limits.wall_timeout = WallCeiling::After(Duration::from_millis(7));
    assert_eq!(limits.wall_ceiling(), Some(Duration::from_millis(7)));
    limits.wall_timeout = WallCeiling::Off;
    assert_eq!(limits.wall_ceiling(), None);
}

#[test]
fn cancellation_from_another_thread_stops_a_long_run() {
    let mut engine = Engine::new().with_limits(Limits {
        fuel: None,
        memory: None,
        timeout: None,
        ..Limits::default()
    });
    // `started()` tells the test thread the run is under way; the work
    // after it takes seconds, so the cancellation lands inside it (checked
    // at a refill of fuel, not around a host call).
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    engine
        .register("started", Arity::Exact(0), move |_| {
            let _ = tx.send(());
            Ok(Value::Bool(true))
        })
        .expect("register");
    let program = Arc::new(
        engine
            .compile(
                "started() && range(1e4).reduce((a, i) => range(1e4).reduce((b, j) => b + j, a), 0)",
            )
            .expect("compile"),
    );
    let cancel = CancelHandle::new();
    let config = RunConfig {
        cancel: Some(cancel.clone()),
        ..RunConfig::default()
    };
    let runner = std::thread::spawn(move || program.run_with(&(), &config));
    rx.recv().expect("the run starts");
    cancel.cancel();
    let err = runner.join().expect("no panic").expect_err("cancelled");
    assert_eq!(err.kind(), ErrorKind::Cancelled);
}

#[test]
fn a_panicking_host_function_is_a_host_error() {
    let mut engine = Engine::new();
    engine
        .register("boom", Arity::Exact(0), |_| panic!("host bug"))
        .expect("register");
    let err = engine.eval("1 + boom()", &()).expect_err("host error");
    assert_eq!(err.kind(), ErrorKind::Host);
    assert!(err.to_string().contains("boom"), "{err}");
}

#[test]
fn host_functions_cannot_shadow_builtins() {
    let mut engine = Engine::new();
    assert!(
        engine
            .register("max", Arity::Exact(1), |_| Ok(Value::Null))
            .is_err()
    );
    assert!(
        engine
            .register("PI", Arity::Exact(0), |_| Ok(Value::Null))
            .is_err()
    );
    assert!(
        engine
            .register("9lives", Arity::Exact(0), |_| Ok(Value::Null))
            .is_err()
    );
}

#[test]
fn long_closure_chains_are_dropped_without_recursion() {
    // Closures capturing closures have no value depth, so nothing bounds the
    // chain but fuel; dropping the result must not recurse per link.
    for (src, want) in [
        (
            "type(range(100000).reduce((f, _) => x => f, null))",
            "function",
        ),
        (
            "type(range(100000).reduce((f, _) => [x => f], null))",
            "array",
        ),
        (
            "type(range(100000).reduce((f, _) => ({g: x => f}), null))",
            "object",
        ),
    ] {
        let ty = on_small_stack(move || {
            let engine = Engine::new().with_limits(Limits {
                timeout: None,
                ..Limits::default()
            });
            engine.eval(src, &()).map_err(|e| e.to_string())
        });
        assert_eq!(ty, Ok(Value::from(want)), "{src}");
    }
}
