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
    // Scaled: a 6 MB format under a 10 MB memory budget (of `-`: letters
    // other than tokens are refused since issue 18). The format is
    // paid for (one fuel per byte) before it is read, and the 6 MB result
    // is refused before it is built.
    let limits = Limits {
        memory: Some(10_000_000),
        fuel: None,
        timeout: None,
        ..Limits::default()
    };
    let (r, fuel, peak) = run(r#"formatDate(0, "-".repeat(6000000))"#, limits.clone());
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

/// `[/(?i)\pL{24}SUFFIX/, ...].length` with `n` literals (the same one
/// `n` times when `distinct` is false), and the character offset of each.
fn literals(n: usize, distinct: bool) -> (String, Vec<usize>) {
    let mut src = String::from("[");
    let mut starts = Vec::new();
    for i in 0..n {
        if i > 0 {
            src.push(',');
        }
        starts.push(src.len());
        if distinct {
            src.push_str(&format!(r"/(?i)\pL{{24}}{i}/"));
        } else {
            src.push_str(r"/(?i)\pL{24}/");
        }
    }
    src.push_str("].length");
    (src, starts)
}

fn compile(src: &str, limits: Limits) -> Result<xpr::Program, xpr::Error> {
    Engine::new().with_limits(limits).compile(src)
}

#[test]
fn identical_regex_literals_compile_once() {
    // The reproduction as filed: 642 copies of one literal, `--fuel 1
    // --max-memory 1000` (no timeout: no test depends on the clock). It
    // took 6.4 s of CPU and 784 MB before the fuel error; the literal is
    // now compiled once and the run fails on its first instructions.
    let (src, _) = literals(642, false);
    assert!(src.len() < 10_000);
    let limits = Limits {
        fuel: Some(1),
        memory: Some(1000),
        timeout: None,
        ..Limits::default()
    };
    let program = compile(&src, limits).expect("compiles");
    let regexes = program
        .bytecode()
        .constants()
        .iter()
        .filter(|v| v.type_name() == "regex")
        .count();
    assert_eq!(regexes, 1);
    let (_, starts) = literals(1, false);
    let one = compile(&literals(1, false).0, Limits::default())
        .map(|p| p.bytecode().regex_bytes())
        .unwrap_or(0);
    assert_eq!(starts, [1]);
    assert_eq!(program.bytecode().regex_bytes(), one);
    assert!(program.heap_bytes() < 3 * one, "{}", program.heap_bytes());
    let e = program.run(&()).expect_err("out of fuel");
    assert_eq!(e.kind(), ErrorKind::Fuel);
}

#[test]
fn regex_literals_are_bounded_per_program() {
    // The same reproduction with 500 *distinct* literals: each one is
    // measured before it is compiled, and the first that would take the
    // program past its 8 MiB of compiled regexes is refused, so only a
    // handful are ever compiled.
    let one = compile(&literals(1, true).0, Limits::default())
        .map(|p| p.bytecode().regex_bytes())
        .unwrap_or(0);
    assert!(one > 1_000_000 && one < 2_000_000, "{one}");
    let limit = Limits::default().max_regex_bytes.unwrap_or(0);
    assert_eq!(limit, 8 << 20);
    let (src, starts) = literals(500, true);
    assert!(src.len() < 10_000);
    let e = compile(&src, Limits::default()).expect_err("too much regex");
    assert_eq!(e.kind(), ErrorKind::Regex);
    assert_eq!(
        e.message(),
        "Regex size limit exceeded: the regex literals of the expression compile to more than 8388608 bytes"
    );
    // The error stands at the first literal refused: the ones before it
    // (all that were compiled) fit the limit together.
    let refused = starts
        .iter()
        .position(|&s| u32::try_from(s).ok() == e.position())
        .expect("at a literal");
    assert!(refused >= 1, "{refused}");
    assert!(refused as u64 * one <= limit, "{refused} x {one}");
    assert!((refused as u64 + 1) * one > limit, "{refused} x {one}");
    // A smaller limit: small literals count too (about 20 KB each), and
    // `None` lifts it (each regex keeps its own limits).
    let small = Limits {
        max_regex_bytes: Some(100_000),
        ..Limits::default()
    };
    let few: Vec<String> = (0..4).map(|i| format!("/a{i}/")).collect();
    let many: Vec<String> = (0..20).map(|i| format!("/a{i}/")).collect();
    assert!(compile(&format!("[{}]", few.join(",")), small.clone()).is_ok());
    let e = compile(&format!("[{}]", many.join(",")), small).expect_err("too much");
    assert_eq!(e.kind(), ErrorKind::Regex);
    let unlimited = Limits {
        max_regex_bytes: None,
        ..Limits::default()
    };
    assert!(compile(&format!("[{}]", many.join(",")), unlimited).is_ok());
    // One regex over the per-regex limit is still refused as before.
    let e = compile(r"/\pL{100}/", Limits::default()).expect_err("too big");
    assert_eq!(
        e.message(),
        "invalid regex pattern: the compiled pattern exceeds the size limit of 1048576 bytes"
    );
}

#[test]
fn run_time_patterns_are_charged_for_what_they_compile() {
    let one = compile(&literals(1, true).0, Limits::default())
        .map(|p| p.bytecode().regex_bytes())
        .unwrap_or(0);
    // Three distinct patterns built at run time, no fuel or memory limit:
    // each compilation charges its compiled bytes as memory and as fuel.
    let unlimited = Limits {
        fuel: None,
        memory: None,
        timeout: None,
        ..Limits::default()
    };
    let src = r#"range(3).map(i => matches("x", `(?i)\\pL{24}${i}`)).length"#;
    let (r, fuel, memory) = run(src, unlimited.clone());
    assert_eq!(r.ok(), Some(xpr::Value::Number(3.0)));
    assert!(memory >= 3 * (one - 100), "{memory}");
    assert!(fuel >= 3 * (one - 100), "{fuel}");
    // The same pattern three times: compiled once, through the VM's cache.
    let src = r#"range(3).map(i => matches("x", "(?i)\\pL{24}7")).length"#;
    let (r, fuel, memory) = run(src, unlimited);
    assert_eq!(r.ok(), Some(xpr::Value::Number(3.0)));
    assert!(memory < one + 1000, "{memory}");
    // Its compiled size, and the compile fuel paid before it is read, both
    // count the code points `(?i)\pL` may fold: at most twice `one`.
    assert!(fuel < 2 * one + 200_000, "{fuel}");
    // Under a 4 MB memory budget the third compilation is refused before
    // it is compiled: its size passes what the run has left.
    let small = Limits {
        fuel: None,
        memory: Some(4_000_000),
        timeout: None,
        ..Limits::default()
    };
    let src = r#"range(100).map(i => matches("x", `(?i)\\pL{24}${i}`)).length"#;
    let (r, _, memory) = run(src, small.clone());
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Memory));
    assert!(memory <= 4_000_000, "{memory}");
    assert!(memory >= 2 * (one - 100), "{memory}");
    // And under the default fuel budget (10 million), a stream of
    // distinct patterns stops after a few dozen compilations at most.
    let fuel_only = Limits {
        memory: None,
        timeout: None,
        ..Limits::default()
    };
    let (r, fuel, _) = run(src, fuel_only);
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    assert!(fuel <= 10_000_000);
}
