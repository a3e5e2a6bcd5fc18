//! A budget shared by several runs (issue 20, part 3): exact fuel
//! accounting across threads, the spent errors, the deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::json;
use xpr::{Budget, Engine, ErrorKind, Limits, Program, RunConfig, Stopwatch, Value, Vm};

const FUEL_SPENT: &str = "Fuel budget exhausted: shared budget spent";
const TIME_SPENT: &str = "Expression timeout exceeded: shared time budget spent";

/// Programs of very different costs: straight-line rules (run by the
/// small tier), loops of a few chunks, a costly built-in charge.
fn programs(engine: &Engine) -> Vec<Program> {
    [
        "a + 1 > b",
        "a > 2 && b < 10 || a == b",
        "range(a * 40).sum()",
        "range(3000).map(x => x * a).filter(x => x % 3 == 0).length",
        r#"range(200).map(x => "ab").join("").length + b"#,
        "range(500).map(x => (x * 7919) % 500).sort()[a]",
    ]
    .iter()
    .map(|s| engine.compile(s).expect("compiles"))
    .collect()
}

/// The fuel each program uses on record `i` without a budget, and its value.
fn alone(program: &Program, i: u64) -> (Result<Value, String>, u64) {
    let mut vm = Vm::new();
    let ctx = json!({"a": i % 17, "b": i % 5});
    let r = program.run_in(&mut vm, ctx.as_object().expect("object"));
    (r.map_err(|e| e.to_string()), vm.fuel_used())
}

#[test]
fn threads_drawing_at_once_never_exceed_it_and_the_fuel_adds_up() {
    let engine = Engine::new();
    for total in [0u64, 700, 50_000, 400_000, 5_000_000] {
        let budget = Budget::new(Some(total), None);
        let per_thread: Vec<(u64, u64, u64)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4u64)
                .map(|t| {
                    let programs: Vec<Program> = programs(&engine)
                        .iter()
                        .map(|p| p.with_budget(&budget))
                        .collect();
                    s.spawn(move || {
                        let mut vm = Vm::new();
                        let (mut fuel, mut runs, mut spent) = (0, 0, 0);
                        for i in 0..60u64 {
                            let p = &programs[((i + t) % programs.len() as u64) as usize];
                            let ctx = json!({"a": i % 17, "b": i % 5});
                            let r = p.run_in(&mut vm, ctx.as_object().expect("object"));
                            fuel += vm.fuel_used();
                            runs += 1;
                            match r {
                                Err(e) if e.message() == FUEL_SPENT => {
                                    assert_eq!(e.kind(), ErrorKind::Fuel);
                                    spent += 1;
                                }
                                Err(e) => panic!("{e}"),
                                Ok(_) => {}
                            }
                        }
                        (fuel, runs, spent)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        let report = budget.report();
        let fuel: u64 = per_thread.iter().map(|t| t.0).sum();
        let spent: u64 = per_thread.iter().map(|t| t.2).sum();
        assert_eq!(report.fuel_used, fuel, "total {total}");
        assert!(report.fuel_used <= total, "total {total}: {report:?}");
        assert_eq!(report.runs, 240);
        assert_eq!(report.exhausted, spent > 0);
        if total < 100_000 {
            assert!(spent > 0, "total {total}: {report:?}");
        }
        if total == 5_000_000 {
            assert_eq!(spent, 0, "{report:?}");
        }
    }
}

#[test]
fn a_run_drawing_from_a_budget_uses_and_returns_what_it_would_alone() {
    let engine = Engine::new();
    let budget = Budget::new(Some(100_000_000), None);
    let mut vm = Vm::new();
    let mut total = 0;
    for (n, program) in programs(&engine).iter().enumerate() {
        let shared = program.with_budget(&budget);
        for i in 0..20 {
            let ctx = json!({"a": i % 17, "b": i % 5});
            let got = shared.run_in(&mut vm, ctx.as_object().expect("object"));
            let (want, fuel) = alone(program, i);
            assert_eq!(got.map_err(|e| e.to_string()), want, "program {n}, {i}");
            assert_eq!(vm.fuel_used(), fuel, "program {n}, {i}");
            total += fuel;
        }
    }
    assert_eq!(budget.report().fuel_used, total);
}

#[test]
fn the_straight_line_tier_still_runs_small_rules() {
    let program = Engine::new().compile("a + 1 > b").expect("compiles");
    let (_, fuel) = alone(&program, 3);
    let budget = Budget::new(Some(2 * fuel - 1), None);
    let shared = program.with_budget(&budget);
    let ctx = json!({"a": 3, "b": 3});
    let ctx = ctx.as_object().expect("object");
    let mut vm = Vm::new();
    assert_eq!(shared.run_in(&mut vm, ctx), Ok(Value::Bool(true)));
    assert!(vm.ran_straight_line());
    assert_eq!(vm.fuel_used(), fuel);
    // One unit short: the next run is capped to what is left, and runs out.
    let e = shared.run_in(&mut vm, ctx).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Fuel, FUEL_SPENT));
    assert_eq!(vm.fuel_used(), fuel - 1);
    let e = shared.run_in(&mut vm, ctx).unwrap_err();
    assert_eq!(e.message(), FUEL_SPENT);
    assert_eq!(vm.fuel_used(), 0, "refused at the start");
    let report = budget.report();
    assert_eq!(
        (report.fuel_used, report.runs, report.exhausted),
        (2 * fuel - 1, 3, true)
    );
}

#[test]
fn a_run_stopped_by_its_own_limit_says_out_of_fuel() {
    let engine = Engine::new().with_limits(Limits {
        fuel: Some(2_000),
        ..Limits::default()
    });
    let budget = Budget::new(Some(1_000_000), None);
    let mut vm = Vm::new();
    let one_charge = engine
        .compile("range(5000).sum()")
        .expect("compiles")
        .with_budget(&budget);
    let e = one_charge.run_in(&mut vm, &()).unwrap_err();
    assert_eq!(e.message(), "Fuel budget exhausted: out of fuel");
    // `range(5000)` charges past the limit at once: the run counts the
    // chunk it drew, not its whole limit (as it would alone).
    assert_eq!(vm.fuel_used(), 1_024);
    assert_eq!(budget.report().fuel_used, 1_024);
    let program = engine
        .compile("range(60).map(x => range(60).map(y => x + y).sum()).sum()")
        .expect("compiles")
        .with_budget(&budget);
    let e = program.run_in(&mut vm, &()).unwrap_err();
    assert_eq!(e.message(), "Fuel budget exhausted: out of fuel");
    assert_eq!(vm.fuel_used(), 2_000);
    assert_eq!(budget.report().fuel_used, 3_024);
    assert!(!budget.report().exhausted);
    // A budget with less left than the run's limit: the budget's error.
    let small = Budget::new(Some(1_500), None);
    let config = RunConfig {
        budget: Some(small.clone()),
        ..RunConfig::default()
    };
    let e = program.run_in_with(&mut vm, &(), &config).unwrap_err();
    assert_eq!(e.message(), FUEL_SPENT);
    assert_eq!(vm.fuel_used(), 1_500);
    assert_eq!(small.report().fuel_used, 1_500);
    assert_eq!(
        budget.report().fuel_used,
        3_024,
        "the override's, not the program's"
    );
}

#[test]
fn a_costly_built_in_charge_is_drawn_whole_or_refused() {
    // `join` charges the copy of its text beyond a chunk at once.
    let program = Engine::new()
        .compile(r#"range(20).map(x => "abcdefgh").join("").length > 0 && range(4000).map(x => "0123456789abcdef0123456789abcdef").join("").length > 0"#)
        .expect("compiles");
    let (want, fuel) = alone(&program, 0);
    assert_eq!(want, Ok(Value::Bool(true)));
    for total in [fuel - 1, fuel, fuel + 1] {
        let budget = Budget::new(Some(total), None);
        let mut vm = Vm::new();
        let r = program.with_budget(&budget).run_in(&mut vm, &());
        assert_eq!(r.is_ok(), total >= fuel, "{total} of {fuel}: {r:?}");
        assert_eq!(budget.report().fuel_used, vm.fuel_used());
        assert!(vm.fuel_used() <= total);
    }
}

#[test]
fn the_memory_high_water_mark_is_the_largest_run() {
    let budget = Budget::new(None, None);
    let program = Engine::new()
        .compile("range(n).map(x => [x])")
        .expect("compiles")
        .with_budget(&budget);
    let mut vm = Vm::new();
    let mut peak = 0;
    for n in [10, 300, 20] {
        let ctx = json!({ "n": n });
        program
            .run_in(&mut vm, ctx.as_object().expect("object"))
            .expect("runs");
        peak = peak.max(vm.peak_memory());
    }
    let report = budget.report();
    assert!(peak > 0);
    assert_eq!(report.peak_memory, peak);
    assert_eq!(report.fuel_total, None);
}

#[test]
fn no_time_left_fails_at_once_and_a_generous_deadline_never() {
    let program = Engine::new().compile("range(100).sum()").expect("compiles");
    let none = Budget::new(None, Some(Duration::ZERO));
    let e = program.with_budget(&none).run(&()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Timeout, TIME_SPENT));
    assert!(none.report().exhausted);
    let hour = Budget::new(Some(u64::MAX), Some(Duration::from_secs(3600)));
    let shared = program.with_budget(&hour);
    for _ in 0..50 {
        assert_eq!(shared.run(&()), Ok(Value::Number(4950.0)));
    }
    let report = hour.report();
    assert_eq!((report.runs, report.exhausted), (50, false));
    assert!(report.time_used.is_some());
}

/// A wall clock moving a millisecond at each reading.
#[derive(Debug, Default)]
struct Ticking(AtomicU64);

impl Stopwatch for Ticking {
    fn wall(&self) -> Option<Duration> {
        Some(Duration::from_millis(
            self.0.fetch_add(1, Ordering::Relaxed),
        ))
    }
    fn thread_cpu(&self) -> Option<Duration> {
        None
    }
}

#[test]
fn the_deadline_stops_a_run_that_reaches_it() {
    let clock = Arc::new(Ticking::default());
    let engine = Engine::new()
        .with_limits(Limits {
            fuel: None,
            timeout: None,
            ..Limits::default()
        })
        .with_stopwatch(clock.clone());
    let program = engine
        .compile("range(1000000).map(x => x + 1).sum()")
        .expect("compiles");
    let budget = Budget::with_stopwatch(None, Some(Duration::from_millis(40)), clock);
    let e = program.with_budget(&budget).run(&()).unwrap_err();
    assert_eq!((e.kind(), e.message()), (ErrorKind::Timeout, TIME_SPENT));
    assert!(budget.report().exhausted);
    // The run's own ceiling, when lower than what the budget has left, is its own.
    let own = Budget::with_stopwatch(
        None,
        Some(Duration::from_secs(3600)),
        Arc::new(Ticking::default()),
    );
    let config = RunConfig {
        limits: Some(Limits {
            fuel: None,
            timeout: None,
            wall_timeout: xpr::WallCeiling::After(Duration::from_millis(5)),
            ..Limits::default()
        }),
        budget: Some(own.clone()),
        ..RunConfig::default()
    };
    let e = program.run_with(&(), &config).unwrap_err();
    assert!(e.message().contains("wall-clock ceiling of 5 ms"), "{e}");
    assert!(!own.report().exhausted);
}

#[test]
fn an_object_result_still_comes_as_fields() {
    let program = Engine::new()
        .compile("{a: x + 1, b: range(300).map(i => i).length}")
        .expect("compiles");
    let budget = Budget::new(Some(1_000_000), None);
    let shared = program.with_budget(&budget);
    let ctx = json!({"x": 1});
    let ctx = ctx.as_object().expect("object");
    let mut vm = Vm::new();
    let alone = {
        let _ = program.run_fields_in(&mut vm, ctx).expect("runs");
        vm.fuel_used()
    };
    match shared.run_fields_in(&mut vm, ctx).expect("runs") {
        xpr::Output::Fields(f) => assert_eq!(f.len(), 2),
        xpr::Output::Value(v) => panic!("built {v:?}"),
    }
    assert_eq!(vm.fuel_used(), alone);
    assert_eq!(budget.report().fuel_used, alone);
    let tiny = Budget::new(Some(10), None);
    let e = program
        .with_budget(&tiny)
        .run_fields_in(&mut vm, ctx)
        .unwrap_err();
    assert_eq!(e.message(), FUEL_SPENT);
}
