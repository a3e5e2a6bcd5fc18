//! Runs every conformance suite through the full pipeline: the project's own
//! cases always, the official suite and the extra cases when `../shared` is
//! present (required when `XPR_REQUIRE_SHARED=1`, as CI sets it).

#[test]
fn all_suites_pass_except_known_failures() {
    let shared = conformance::shared_dir();
    if !shared.join("conformance/xpr-v0.5").is_dir() {
        assert!(
            std::env::var("XPR_REQUIRE_SHARED").as_deref() != Ok("1"),
            "XPR_REQUIRE_SHARED=1 but {} has no conformance/xpr-v0.5",
            shared.display()
        );
        eprintln!(
            "shared/ not found at {}: running the project's own cases only",
            shared.display()
        );
    }
    let mut suites = Vec::new();
    for dir in conformance::default_dirs() {
        suites.extend(conformance::load_dir(&dir).expect("suites load"));
    }
    assert!(!suites.is_empty(), "no suites found");
    let results = conformance::run_suites(&conformance::engine(), &suites);
    let report = conformance::report(&results);
    let known_text =
        std::fs::read_to_string(conformance::known_failures_path()).unwrap_or_default();
    let known = conformance::known_failures(&known_text);
    let (new_failures, fixed) = conformance::unexpected(&results, &known);
    println!("{report}");
    assert!(
        new_failures.is_empty() && fixed.is_empty(),
        "{} unexpected failures, {} known failures now pass: {:?}\n{report}",
        new_failures.len(),
        fixed.len(),
        fixed
    );
}

/// Every case whose expression compiles, stored (`Program::to_bytes`),
/// loaded (`Engine::load`) and run: the same bytecode listing, the same
/// value or error (kind, message, position, hint), the same fuel and the
/// same memory high-water mark as the compiled program.
#[test]
fn stored_programs_run_as_compiled() {
    let mut suites = Vec::new();
    for dir in conformance::default_dirs() {
        suites.extend(conformance::load_dir(&dir).expect("suites load"));
    }
    let engine = conformance::engine();
    let (mut stored, mut mismatches) = (0usize, Vec::new());
    let mut worst = 0f64;
    for case in suites.iter().flat_map(|s| &s.tests) {
        let Ok(compiled) = engine.compile(&case.expression) else {
            continue;
        };
        let ops: usize = compiled
            .bytecode()
            .protos()
            .iter()
            .map(|p| p.code.len())
            .sum();
        let chars = case.expression.chars().count();
        worst = worst.max((ops as f64 - 16.0) / chars.max(1) as f64);
        let bytes = compiled.to_bytes();
        let loaded = match engine.load(&bytes) {
            Ok(p) => p,
            Err(e) => {
                mismatches.push(format!("{}: load failed: {e}", case.expression));
                continue;
            }
        };
        stored += 1;
        if compiled.to_string() != loaded.to_string() {
            mismatches.push(format!("{}: listings differ", case.expression));
            continue;
        }
        let context = case
            .context
            .clone()
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        let Ok(xpr::Value::Object(context)) = xpr::Value::from_json(&context) else {
            continue;
        };
        let run = |p: &xpr::Program| {
            let mut vm = xpr::Vm::new();
            let r = p
                .run_in(&mut vm, &*context)
                .map_err(|e| (e.kind(), e.to_string(), e.hint().map(str::to_string)));
            (r, vm.fuel_used(), vm.peak_memory())
        };
        let (a, b) = (run(&compiled), run(&loaded));
        if a != b {
            mismatches.push(format!("{}: {a:?} != {b:?}", case.expression));
        }
    }
    assert!(stored > 1000, "only {stored} programs stored");
    // `Engine::load` refuses more than 2 instructions a source byte (+ 64):
    // compiled programs stay far below.
    assert!(worst < 1.0, "{worst} instructions a character");
    assert!(
        mismatches.is_empty(),
        "{} of {stored} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
#[path = "suites/cost_bound.rs"]
mod cost_bound;
