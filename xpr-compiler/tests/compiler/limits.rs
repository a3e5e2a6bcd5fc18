//! Budgets enforced by the VM: fuel, memory, call and value depth, the CPU
//! timeout and the wall-clock ceiling, cancellation; the deep-recursion cases run on a 2 MiB thread.

use crate::common;
use common::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use xpr_vm::{
    Arity, CancelHandle, ErrorKind, HostFunction, Limits, RunOptions, Stopwatch, SystemStopwatch,
    Value, Vm,
};

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow")
}

fn run_with(src: &str, opts: &RunOptions) -> (Result<Value, xpr_vm::Error>, Vm) {
    let program = compile(src).expect("compiles");
    let mut vm = Vm::new();
    let r = vm.run(&program, &(), opts);
    (r, vm)
}

#[test]
fn self_application_ends_with_a_depth_error_on_a_small_stack() {
    let e = on_small_stack(|| eval("(x => x(x))(x => x(x))").unwrap_err());
    assert_eq!(e.kind(), ErrorKind::Depth);
    assert!(e.to_string().contains("depth limit exceeded"), "{e}");
}

#[test]
fn recursion_through_builtins_ends_with_a_depth_error_on_a_small_stack() {
    for src in [
        "(f => [1].map(x => f(f)))(f => [1].map(x => f(f)))",
        "(f => [2, 1].sort((a, b) => f(f)))(f => [2, 1].sort((a, b) => f(f)))",
        "(f => [1].filter(x => f(f)))(f => [1].filter(x => f(f)))",
    ] {
        let e = on_small_stack(move || eval(src).unwrap_err());
        assert_eq!(e.kind(), ErrorKind::Depth, "{src}: {e}");
    }
}

#[test]
fn deep_values_hit_the_value_depth_limit() {
    let e = on_small_stack(|| eval("range(2000).reduce((a, _) => [a], 0)").unwrap_err());
    assert_eq!(e.kind(), ErrorKind::Depth, "{e}");
    assert!(e.to_string().contains("depth limit exceeded"));
    // Comparing host data nested deeper than the limit is refused, not a stack overflow.
    let e = on_small_stack(|| {
        let mut deep = Value::Number(1.0);
        for _ in 0..1500 {
            deep = Value::array(vec![deep]);
        }
        let mut map = xpr_vm::Map::default();
        map.insert("a".into(), deep.clone());
        map.insert("b".into(), deep);
        let program = compile("a == b").unwrap();
        Vm::new().run(&program, &map, &opts()).unwrap_err()
    });
    assert_eq!(e.kind(), ErrorKind::Depth, "{e}");
    let program = compile("a").unwrap();
    let mut deep = Value::Number(1.0);
    for _ in 0..1001 {
        deep = Value::array(vec![deep]);
    }
    let mut map = xpr_vm::Map::default();
    map.insert("a".into(), deep);
    let e = Vm::new().run(&program, &map, &opts()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Depth);
}

#[test]
fn fuel_stops_runaway_work_and_is_readable() {
    let mut o = opts();
    o.limits.fuel = Some(10_000);
    let (r, vm) = run_with("range(100000).map(x => x * 2)", &o);
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Fuel);
    assert!(e.to_string().contains("fuel"), "{e}");
    assert!(vm.fuel_used() <= 10_000);

    let (r, vm) = run_with("1 + 2", &opts());
    assert_eq!(
        r.map_err(|e| format!("{e} {:?}", vm.fuel_used())).unwrap(),
        Value::Number(3.0)
    );
    assert_eq!(vm.fuel_used(), 2, "Int 3 (folded), Return");

    // Exactly enough fuel succeeds; one less fails.
    let mut o = opts();
    o.limits.fuel = Some(2);
    assert!(run_with("1 + 2", &o).0.is_ok());
    o.limits.fuel = Some(1);
    assert_eq!(run_with("1 + 2", &o).0.unwrap_err().kind(), ErrorKind::Fuel);
}

#[test]
fn callbacks_are_charged_per_element() {
    let (_, small) = run_with("range(10).map(x => x)", &opts());
    let (_, large) = run_with("range(1000).map(x => x)", &opts());
    assert!(
        large.fuel_used() > 100 * small.fuel_used() / 10,
        "{} vs {}",
        large.fuel_used(),
        small.fuel_used()
    );
    assert!(large.fuel_used() >= 3000);
}

#[test]
fn memory_is_charged_logically_before_building() {
    let mut o = opts();
    o.limits.memory = Some(1 << 20);
    let (r, vm) = run_with("range(40).reduce((a, _) => [a, a], 1)", &o);
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
    assert!(e.to_string().contains("Memory limit exceeded"));
    assert!(vm.peak_memory() <= 1 << 20);

    let (r, vm) = run_with("range(30).reduce((s, _) => s + s, \"ab\")", &o);
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Memory);
    assert!(vm.peak_memory() <= 1 << 20);

    let (r, vm) = run_with("[1, 2, 3]", &opts());
    assert!(r.is_ok());
    assert!(vm.peak_memory() >= 3 * 16, "{}", vm.peak_memory());
}

/// `sleep(ms)`: blocks the thread, using no CPU time.
fn sleeper() -> Arc<HostFunction> {
    Arc::new(HostFunction {
        name: "sleep".into(),
        arity: Arity::Exact(1),
        fuel_per_call: 1,
        meters: true,
        callback: Arc::new(|_, args: &[Value]| {
            let ms = args.first().and_then(Value::as_number).unwrap_or(0.0);
            std::thread::sleep(Duration::from_millis(ms as u64));
            Ok(Value::Null)
        }),
    })
}

/// `burn(ms)`: keeps the thread busy until its CPU clock has advanced `ms`
/// milliseconds, however long that takes on the wall clock.
fn burner() -> Arc<HostFunction> {
    Arc::new(HostFunction {
        name: "burn".into(),
        arity: Arity::Exact(1),
        fuel_per_call: 1,
        meters: true,
        callback: Arc::new(|_, args: &[Value]| {
            let ms = args.first().and_then(Value::as_number).unwrap_or(0.0);
            let want = Duration::from_millis(ms as u64);
            let clock = SystemStopwatch;
            let start = clock.thread_cpu().expect("a thread CPU clock");
            let mut spins = 0u64;
            while clock.thread_cpu().unwrap_or_default() - start < want {
                spins = std::hint::black_box(spins.wrapping_add(1));
            }
            Ok(Value::Number(spins as f64))
        }),
    })
}

fn compile_with(src: &str, host_functions: Vec<Arc<HostFunction>>) -> xpr_vm::Program {
    let ast = xpr_syntax::parse(src).unwrap();
    let env = xpr_compiler::CompileEnv {
        host_functions,
        ..xpr_compiler::CompileEnv::default()
    };
    xpr_compiler::compile(&ast, &env).unwrap()
}

fn compile_with_host(src: &str) -> xpr_vm::Program {
    compile_with(src, vec![sleeper(), burner()])
}

/// Options with these time limits (in ms) and no others.
fn timed(cpu: Option<u64>, wall: Option<u64>) -> RunOptions {
    let mut o = opts();
    o.limits.fuel = None;
    o.limits.timeout = cpu.map(Duration::from_millis);
    o.limits.wall_timeout = wall.map_or(xpr_vm::WallCeiling::Off, |ms| {
        xpr_vm::WallCeiling::After(Duration::from_millis(ms))
    });
    o
}

#[test]
fn the_timeout_counts_cpu_time_not_time_blocked() {
    // A host function using CPU is charged to the timeout: the first check
    // starts the clocks; the call using the budget up is caught when it
    // returns.
    let program = compile_with_host("[burn(0), burn(30), burn(0)]");
    let e = Vm::new()
        .run(&program, &(), &timed(Some(5), None))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert_eq!(e.to_string(), "Expression timeout exceeded at position 10");
    // Sleeping uses no CPU time: 200 ms asleep leave a 25 ms budget far
    // from spent (room for a busy machine's page faults and the like).
    let program = compile_with_host("[sleep(100), sleep(100)].length");
    let v = Vm::new()
        .run(&program, &(), &timed(Some(25), None))
        .unwrap();
    assert_eq!(v, Value::Number(2.0));
}

#[test]
fn the_wall_clock_ceiling_stops_a_blocking_host_call() {
    let program = compile_with_host("[sleep(0), sleep(30), sleep(0)]");
    let e = Vm::new()
        .run(&program, &(), &timed(Some(100), Some(5)))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert_eq!(
        e.to_string(),
        "Expression timeout exceeded: wall-clock ceiling of 5 ms at position 11"
    );
    // A single blocking call is caught too.
    let program = compile_with_host("sleep(30)");
    let e = Vm::new()
        .run(&program, &(), &timed(None, Some(5)))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
}

/// The system's clocks, counting readings; the wall clock stands still, so
/// the CPU clock is never due after the start.
#[derive(Debug, Default)]
struct Counting {
    wall: AtomicU64,
    cpu: AtomicU64,
}

impl Stopwatch for Counting {
    fn wall(&self) -> Option<Duration> {
        self.wall.fetch_add(1, Ordering::Relaxed);
        Some(Duration::ZERO)
    }
    fn thread_cpu(&self) -> Option<Duration> {
        self.cpu.fetch_add(1, Ordering::Relaxed);
        SystemStopwatch.thread_cpu()
    }
}

#[test]
fn short_runs_read_no_clock() {
    let reads = |src: &str, limits: Limits| {
        let clock = Arc::new(Counting::default());
        let mut o = opts();
        o.limits = limits;
        o.stopwatch = Some(clock.clone());
        let program = compile_with_host(src);
        let mut vm = Vm::new();
        vm.run(&program, &(), &o).expect("runs");
        let fuel = vm.fuel_used();
        (
            clock.wall.load(Ordering::Relaxed),
            clock.cpu.load(Ordering::Relaxed),
            fuel,
        )
    };
    // Under 16,384 fuel units and no host call: no reading at all.
    let (wall, cpu, fuel) = reads("range(1000).map(x => x * 2).length", Limits::default());
    assert!((1024..16_384).contains(&fuel), "{fuel}");
    assert_eq!((wall, cpu), (0, 0));
    // Past it: the wall clock at each refill (at most one per 1,024 fuel
    // units), the CPU clock once, at the start.
    let (wall, cpu, fuel) = reads("range(20000).map(x => x * 2).length", Limits::default());
    assert!(fuel > 40_000, "{fuel}");
    assert!(
        (10..=fuel / 1024).contains(&wall),
        "{wall} readings for {fuel} fuel"
    );
    assert_eq!(cpu, 1);
    // A host call starts the clocks: one reading before, one after.
    let (wall, cpu, _) = reads("sleep(0)", Limits::default());
    assert_eq!((wall, cpu), (2, 1));
    // No time limit: no reading, however long the run.
    let (wall, cpu, _) = reads(
        "[sleep(0), range(20000).map(x => x * 2).length]",
        Limits::unlimited(),
    );
    assert_eq!((wall, cpu), (0, 0));
}

#[test]
fn cancellation_from_another_thread() {
    // `wait()` says it has started, then blocks until the run is
    // cancelled: no timing is involved.
    let cancel = CancelHandle::new();
    let (started, on_start) = std::sync::mpsc::channel::<()>();
    let flag = cancel.clone();
    let wait = Arc::new(HostFunction {
        name: "wait".into(),
        arity: Arity::Exact(0),
        fuel_per_call: 1,
        meters: true,
        callback: Arc::new(move |_, _: &[Value]| {
            let _ = started.send(());
            while !flag.is_cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(Value::Null)
        }),
    });
    let program = compile_with("range(1000).map(x => wait())", vec![wait]);
    let c2 = cancel.clone();
    let t = std::thread::spawn(move || {
        on_start.recv().expect("the run starts");
        c2.cancel();
    });
    let mut o = opts();
    o.limits.fuel = None;
    o.cancel = Some(cancel.clone());
    let e = Vm::new().run(&program, &(), &o).unwrap_err();
    t.join().unwrap();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
    assert!(e.to_string().starts_with("Evaluation cancelled"));
    // Already cancelled: fails at once.
    let e = Vm::new().run(&program, &(), &o).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
}

#[test]
fn random_and_now_follow_the_options() {
    let program = compile("[random(), now()]").unwrap();
    let mut o = RunOptions {
        limits: Limits::unlimited(),
        random: xpr_vm::Randomness::Seeded(1),
        clock: xpr_vm::Clock::Fixed(1000.0),
        cancel: None,
        stopwatch: None,
    };
    let a = Vm::new().run(&program, &(), &o).unwrap();
    let b = Vm::new().run(&program, &(), &o).unwrap();
    assert_eq!(a, b);
    o.random = xpr_vm::Randomness::Disabled;
    assert!(Vm::new().run(&program, &(), &o).is_err());
    // Entropy: each run of one VM gets its own seed from the VM's stream.
    o.random = xpr_vm::Randomness::Entropy;
    let mut vm = Vm::new();
    let c = vm.run(&program, &(), &o).unwrap();
    let d = vm.run(&program, &(), &o).unwrap();
    assert_ne!(c, d);
    o.random = xpr_vm::Randomness::Seeded(1);
    o.clock = xpr_vm::Clock::Disabled;
    assert!(Vm::new().run(&program, &(), &o).is_err());
}

/// One VM run again with other options takes each of them, although a
/// run's set-up copies a shared handle (cancellation, clock, stopwatch)
/// only when it differs from the last run's.
#[test]
fn a_kept_vm_takes_each_run_s_options() {
    let program = compile("now()").unwrap();
    let mut vm = Vm::new();
    let mut o = RunOptions {
        limits: Limits::unlimited(),
        clock: xpr_vm::Clock::Fixed(1000.0),
        ..RunOptions::default()
    };
    assert_eq!(vm.run(&program, &(), &o).unwrap(), Value::Number(1000.0));
    o.clock = xpr_vm::Clock::Fixed(2000.0);
    assert_eq!(vm.run(&program, &(), &o).unwrap(), Value::Number(2000.0));
    let first: Arc<dyn Fn() -> f64 + Send + Sync> = Arc::new(|| 3000.0);
    let second: Arc<dyn Fn() -> f64 + Send + Sync> = Arc::new(|| 4000.0);
    o.clock = xpr_vm::Clock::Custom(first);
    assert_eq!(vm.run(&program, &(), &o).unwrap(), Value::Number(3000.0));
    o.clock = xpr_vm::Clock::Custom(second);
    assert_eq!(vm.run(&program, &(), &o).unwrap(), Value::Number(4000.0));
    o.clock = xpr_vm::Clock::Disabled;
    assert!(vm.run(&program, &(), &o).is_err());
    // A new handle, cancelled, after one that is not; then none.
    let idle = CancelHandle::new();
    o.clock = xpr_vm::Clock::Fixed(1.0);
    o.cancel = Some(idle.clone());
    assert!(vm.run(&program, &(), &o).is_ok());
    let cancelled = CancelHandle::new();
    cancelled.cancel();
    o.cancel = Some(cancelled);
    let e = vm.run(&program, &(), &o).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
    o.cancel = None;
    assert!(vm.run(&program, &(), &o).is_ok());
    // The same handle, cancelled between two runs.
    o.cancel = Some(idle.clone());
    assert!(vm.run(&program, &(), &o).is_ok());
    idle.cancel();
    let e = vm.run(&program, &(), &o).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Cancelled);
    // A stopwatch without clocks, then the system's: a timeout of zero
    // cannot be checked without a clock, and is with one.
    #[derive(Debug)]
    struct Blind;
    impl Stopwatch for Blind {
        fn wall(&self) -> Option<Duration> {
            None
        }
        fn thread_cpu(&self) -> Option<Duration> {
            None
        }
    }
    let spin = compile("range(100000).map(i => i).length").unwrap();
    let mut o = RunOptions {
        limits: Limits {
            timeout: Some(Duration::ZERO),
            ..Limits::unlimited()
        },
        stopwatch: Some(Arc::new(Blind)),
        ..RunOptions::default()
    };
    assert!(vm.run(&spin, &(), &o).is_ok());
    o.stopwatch = Some(Arc::new(SystemStopwatch));
    let e = vm.run(&spin, &(), &o).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
}

#[test]
fn context_is_never_modified() {
    let ctx = serde_json::json!({"items": [3, 1, 2], "o": {"a": 1}});
    let before = ctx.clone();
    yields_in(
        "[items.sort(), items.reverse(), {...o, \"a\": 2}, let [a, ...r] = items; r]",
        ctx.clone(),
        serde_json::json!([[1, 2, 3], [2, 1, 3], {"a": 2}, [1, 2]]),
    );
    assert_eq!(ctx, before);
}

#[test]
fn deep_asts_fail_with_a_depth_error_not_a_stack_overflow() {
    use xpr_syntax::ast::{Expr, ExprKind, Span, UnaryOp};
    let e = on_small_stack(|| {
        let mut e = Expr {
            kind: ExprKind::Ident("x".into()),
            span: Span::new(0, 1),
        };
        for _ in 0..5000 {
            e = Expr {
                kind: ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(e),
                },
                span: Span::new(0, 1),
            };
        }
        let r = xpr_compiler::compile(&e, &xpr_compiler::CompileEnv::default());
        // Drop the deep AST iteratively is not possible from here; leak it
        // so the test measures the compiler, not the AST's recursive drop.
        std::mem::forget(e);
        r.unwrap_err()
    });
    assert_eq!(e.kind(), ErrorKind::Depth);
    let ok = on_small_stack(|| {
        let src = format!("{}x", "-".repeat(300));
        let ast = xpr_syntax::parse_with(
            &src,
            &xpr_syntax::ParseOptions {
                max_depth: None,
                max_length: None,
            },
        );
        match ast {
            Ok(ast) => xpr_compiler::compile(&ast, &xpr_compiler::CompileEnv::default()).is_ok(),
            Err(_) => true,
        }
    });
    assert!(ok);
}
