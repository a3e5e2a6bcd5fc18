//! The conformance suites run through `xpr batch` (the command-line tool, as
//! a harness would drive it) give the same outcome, case by case, as the
//! in-process runner, and so the same pass counts. The suites and the
//! runner are the `conformance` crate's; the binary is the one this package
//! builds.

use crate::common;

use std::collections::BTreeMap;

use common::run_with;
use conformance::{Case, Counts, Outcome};

/// The outcome of one case from its `xpr batch` answer, judged as
/// `conformance::run_case` judges an in-process result.
fn judge(case: &Case, answer: &serde_json::Value) -> Outcome {
    if case.skip {
        return Outcome::Skipped;
    }
    match (&case.error, answer.get("ok"), answer.get("error")) {
        (Some(want), _, Some(got)) => {
            let got = got.as_str().unwrap_or_default();
            if got.contains(want.as_str()) {
                Outcome::Passed
            } else {
                Outcome::Failed(format!("error {got:?} lacks {want:?}"))
            }
        }
        (Some(want), Some(ok), _) => {
            Outcome::Failed(format!("expected an error containing {want:?}, got {ok}"))
        }
        (None, Some(ok), _) => {
            let want = case.expected.clone().unwrap_or(serde_json::Value::Null);
            match (xpr::Value::from_json(&want), xpr::Value::from_json(ok)) {
                (Ok(w), Ok(g)) if w == g => Outcome::Passed,
                _ => Outcome::Failed(format!("expected {want}, got {ok}")),
            }
        }
        _ => Outcome::Failed(format!("unexpected answer {answer}")),
    }
}

fn tally(outcomes: &[&Outcome]) -> Counts {
    let mut c = Counts::default();
    for o in outcomes {
        match o {
            Outcome::Passed => c.passed += 1,
            Outcome::Skipped => c.skipped += 1,
            Outcome::Failed(_) => c.failed += 1,
        }
    }
    c
}

#[test]
fn batch_gives_the_same_outcomes_as_the_runner() {
    let mut suites = Vec::new();
    for dir in conformance::default_dirs() {
        suites.extend(conformance::load_dir(&dir).expect("suites load"));
    }
    assert!(!suites.is_empty(), "no suites found");
    let cases: Vec<(&str, &Case)> = suites
        .iter()
        .flat_map(|s| s.tests.iter().map(move |c| (s.suite.as_str(), c)))
        .collect();

    // In process, with the runner's engine: no timeout, random seed 0x5eed.
    let results = conformance::run_suites(&conformance::engine(), &suites);
    assert_eq!(results.len(), cases.len());

    // Through `xpr batch` with the same limits and seed, one request per case.
    let mut input = String::new();
    for (_, case) in &cases {
        let mut request = serde_json::json!({"expression": case.expression});
        if let Some(context) = &case.context {
            request["context"] = context.clone();
        }
        input.push_str(&request.to_string());
        input.push('\n');
    }
    let output = run_with(
        &[
            "batch",
            "--timeout-ms",
            "none",
            "--seed",
            &0x5eed_u64.to_string(),
        ],
        input.as_bytes(),
    );
    assert!(
        output.status.success(),
        "xpr batch failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer is one JSON line"))
        .collect();
    assert_eq!(answers.len(), cases.len(), "one answer per request");

    let mut differences = Vec::new();
    let mut per_suite: BTreeMap<&str, (Vec<&Outcome>, Vec<Outcome>)> = BTreeMap::new();
    for (((suite, case), answer), result) in cases.iter().zip(&answers).zip(&results) {
        let via_batch = judge(case, answer);
        let same = matches!(
            (&via_batch, &result.outcome),
            (Outcome::Passed, Outcome::Passed)
                | (Outcome::Skipped, Outcome::Skipped)
                | (Outcome::Failed(_), Outcome::Failed(_))
        );
        if !same {
            differences.push(format!(
                "{suite} / {}: runner {:?}, batch {:?}",
                case.name, result.outcome, via_batch
            ));
        }
        let entry = per_suite.entry(suite).or_default();
        entry.0.push(&result.outcome);
        entry.1.push(via_batch);
    }
    for (suite, (runner, batch)) in &per_suite {
        let batch: Vec<&Outcome> = batch.iter().collect();
        let (r, b) = (tally(runner), tally(&batch));
        println!(
            "{suite:<28} runner {:>4} passed {:>4} failed {:>4} skipped | batch {:>4} passed {:>4} failed {:>4} skipped",
            r.passed, r.failed, r.skipped, b.passed, b.failed, b.skipped
        );
    }
    let total = conformance::count(&results);
    println!(
        "runner: {} passed, {} failed, {} skipped; differences through batch: {}",
        total.passed,
        total.failed,
        total.skipped,
        differences.len()
    );
    assert!(
        differences.is_empty(),
        "{} cases differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
    assert!(total.passed > 0, "the suites ran");
}
