//! Issue 11, items 1 and 4: work that escaped every budget. Regex literals
//! compiled before any budget applied (hundreds of megabytes and seconds of
//! CPU for a 9,000-character expression), and date formats were expanded
//! into an uncounted list of 8 bytes per character. Each reproduction is
//! scaled down and checked by counting (fuel charged, memory charged,
//! compiled bytes, where the error stands), never by timing.

use xpr::{Engine, ErrorKind, Limits, Vm};

/// Runs `src` with `limits` on a fresh VM: the result and the fuel used.
fn run(src: &str, limits: Limits) -> (Result<xpr::Value, xpr::Error>, u64, u64) {
    let engine = Engine::new().with_limits(limits);
    let program = engine.compile(src).expect("compiles");
    let mut vm = Vm::new();
    let r = program.run_in(&mut vm, &());
    (r, vm.fuel_used(), vm.peak_memory())
}

#[test]
fn a_date_format_is_charged_before_it_is_expanded() {
    // `formatDate(0, "x".repeat(60000000))` held 590 MB before failing.
    // Scaled: a 6 MB format under a 10 MB memory budget. The format is
    // paid for (one fuel per byte) before it is read, and the 6 MB result
    // is refused before it is built.
    let limits = Limits {
        memory: Some(10_000_000),
        fuel: None,
        timeout: None,
        ..Limits::default()
    };
    let (r, fuel, peak) = run(r#"formatDate(0, "x".repeat(6000000))"#, limits.clone());
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Memory));
    assert!(fuel >= 6_000_000, "fuel {fuel}");
    assert!(peak <= 10_000_000, "peak {peak}");
    // The same with the default fuel budget and a format longer than it:
    // a fuel error before anything is expanded.
    let limits = Limits {
        timeout: None,
        ..Limits::default()
    };
    let (r, _, peak) = run(r#"formatDate(0, "x".repeat(12000000))"#, limits.clone());
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    assert!(peak <= 12_000_100, "peak {peak}");
    let (r, _, _) = run(r#"parseDate("x", "x".repeat(12000000))"#, limits);
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
}
