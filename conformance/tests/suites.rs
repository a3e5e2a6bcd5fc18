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

#[path = "suites/cost_bound.rs"]
mod cost_bound;
