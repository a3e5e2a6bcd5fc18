//! The conformance runner: loads YAML suites in the official schema and
//! checks every case against the `xpr` runtime.
//!
//! Schema (see the official suite's SCHEMA.md): a file has `suite`, `version`
//! and `tests`; a test has `name`, `expression`, optional `context` (default
//! `{}`), and exactly one of `expected` (deep equality, numbers as f64,
//! object key order ignored) or `error` (a case-sensitive substring of the
//! error message, position included); `skip: true` skips it.
//!
//! Cases run without time limits (CPU or wall-clock), so no result depends on machine
//! load; every other budget keeps its default.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One case of a suite file.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// Unique within its suite.
    pub name: String,
    /// The XPR source.
    pub expression: String,
    /// The context object (default `{}`).
    #[serde(default)]
    pub context: Option<serde_json::Value>,
    /// The expected result, when the case must succeed.
    #[serde(default)]
    pub expected: Option<serde_json::Value>,
    /// Whether `expected: null` was written (serde folds it into `None`).
    #[serde(skip)]
    pub expects_null: bool,
    /// A substring of the expected error message, when the case must fail.
    #[serde(default)]
    pub error: Option<String>,
    /// Skipped by every runtime.
    #[serde(default)]
    pub skip: bool,
}

/// A suite file.
#[derive(Debug, Clone, Deserialize)]
pub struct Suite {
    /// The suite's name.
    pub suite: String,
    /// The cases.
    #[serde(default)]
    pub tests: Vec<Case>,
    /// The file it came from.
    #[serde(skip)]
    pub path: PathBuf,
}

/// What became of one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// It behaved as expected.
    Passed,
    /// It was marked `skip`.
    Skipped,
    /// It did not; the text says what happened instead.
    Failed(String),
}

/// The result of one case, with where it came from.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The suite's name.
    pub suite: String,
    /// The case's name.
    pub name: String,
    /// The case's expression.
    pub expression: String,
    /// The outcome.
    pub outcome: Outcome,
}

/// Totals over a set of results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases skipped.
    pub skipped: usize,
}

/// An error loading suites.
#[derive(Debug)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// Parses one suite file's text. `expected: null` is told apart from an
/// absent `expected` by a second, untyped reading of the document.
///
/// # Errors
/// When the YAML is invalid or a case has neither or both of `expected` and `error`.
pub fn parse_suite(text: &str, path: &Path) -> Result<Suite, LoadError> {
    let err = |e: &dyn std::fmt::Display| LoadError(format!("{}: {e}", path.display()));
    let mut suite: Suite = serde_saphyr::from_str(text).map_err(|e| err(&e))?;
    let raw: serde_json::Value = serde_saphyr::from_str(text).map_err(|e| err(&e))?;
    let raw_tests = raw
        .get("tests")
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    for (case, raw_case) in suite.tests.iter_mut().zip(raw_tests) {
        case.expects_null = raw_case.get("expected").is_some_and(|v| v.is_null());
        let has_expected = case.expected.is_some() || case.expects_null;
        if has_expected == case.error.is_some() {
            return Err(err(&format_args!(
                "case '{}' must have exactly one of expected and error",
                case.name
            )));
        }
    }
    suite.path = path.to_path_buf();
    Ok(suite)
}

/// Loads every `*.yaml` suite in `dir` (not recursive), sorted by file name.
///
/// # Errors
/// When the directory or a file cannot be read or parsed.
pub fn load_dir(dir: &Path) -> Result<Vec<Suite>, LoadError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| LoadError(format!("{}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p)
                .map_err(|e| LoadError(format!("{}: {e}", p.display())))?;
            parse_suite(&text, p)
        })
        .collect()
}

/// The engine conformance cases run on: default limits, no time limits
/// (neither the CPU timeout nor the wall-clock ceiling), a fixed random seed.
pub fn engine() -> xpr::Engine {
    let limits = xpr::Limits {
        timeout: None,
        ..xpr::Limits::default()
    };
    xpr::Engine::new()
        .with_limits(limits)
        .with_seed(Some(0x5eed))
}

/// Runs one case.
pub fn run_case(engine: &xpr::Engine, case: &Case) -> Outcome {
    if case.skip {
        return Outcome::Skipped;
    }
    let context = case
        .context
        .clone()
        .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
    let context = match xpr::Value::from_json(&context) {
        Ok(xpr::Value::Object(o)) => o,
        Ok(other) => {
            return Outcome::Failed(format!("context is a {}, not an object", other.type_name()));
        }
        Err(e) => return Outcome::Failed(format!("context does not convert: {e}")),
    };
    let result = engine.eval(&case.expression, &*context);
    match (&case.error, result) {
        (Some(want), Ok(got)) => Outcome::Failed(format!(
            "expected an error containing {want:?}, got {}",
            show(&got)
        )),
        (Some(want), Err(e)) => {
            let message = e.to_string();
            if message.contains(want.as_str()) {
                Outcome::Passed
            } else {
                Outcome::Failed(format!(
                    "expected an error containing {want:?}, got error {message:?}"
                ))
            }
        }
        (None, Err(e)) => Outcome::Failed(format!("unexpected error {:?}", e.to_string())),
        (None, Ok(got)) => {
            let want = case.expected.clone().unwrap_or(serde_json::Value::Null);
            match xpr::Value::from_json(&want) {
                Ok(want_value) if want_value == got => Outcome::Passed,
                Ok(_) => Outcome::Failed(format!("expected {want}, got {}", show(&got))),
                Err(e) => Outcome::Failed(format!("expected value does not convert: {e}")),
            }
        }
    }
}

fn show(v: &xpr::Value) -> String {
    xpr::to_json_string(v).unwrap_or_else(|_| format!("{v:?}"))
}

/// Runs every case of every suite.
pub fn run_suites(engine: &xpr::Engine, suites: &[Suite]) -> Vec<CaseResult> {
    suites
        .iter()
        .flat_map(|s| {
            s.tests.iter().map(|c| CaseResult {
                suite: s.suite.clone(),
                name: c.name.clone(),
                expression: c.expression.clone(),
                outcome: run_case(engine, c),
            })
        })
        .collect()
}

/// Counts outcomes.
pub fn count(results: &[CaseResult]) -> Counts {
    let mut counts = Counts::default();
    for r in results {
        match r.outcome {
            Outcome::Passed => counts.passed += 1,
            Outcome::Skipped => counts.skipped += 1,
            Outcome::Failed(_) => counts.failed += 1,
        }
    }
    counts
}

/// The report: failures with expression, expected and actual; a per-suite
/// table; last the line `N passed, M failed, K skipped`.
pub fn report(results: &[CaseResult]) -> String {
    let mut out = String::new();
    for r in results {
        if let Outcome::Failed(why) = &r.outcome {
            let _ = writeln!(
                out,
                "FAIL {} / {}\n  expression: {}\n  {why}",
                r.suite, r.name, r.expression
            );
        }
    }
    let mut per_suite: BTreeMap<&str, Counts> = BTreeMap::new();
    for r in results {
        let c = per_suite.entry(&r.suite).or_default();
        match r.outcome {
            Outcome::Passed => c.passed += 1,
            Outcome::Skipped => c.skipped += 1,
            Outcome::Failed(_) => c.failed += 1,
        }
    }
    let _ = writeln!(
        out,
        "\n{:<28} {:>7} {:>7} {:>7}",
        "suite", "passed", "failed", "skipped"
    );
    for (suite, c) in &per_suite {
        let _ = writeln!(
            out,
            "{suite:<28} {:>7} {:>7} {:>7}",
            c.passed, c.failed, c.skipped
        );
    }
    let total = count(results);
    let _ = writeln!(
        out,
        "\n{} passed, {} failed, {} skipped",
        total.passed, total.failed, total.skipped
    );
    out
}

/// The project's own suites: `conformance/cases/`.
pub fn own_cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// Where `shared/` is expected: beside the repository.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// The default directories: the project's own cases, plus the official
/// suite and the extra cases from `shared/` when they exist.
pub fn default_dirs() -> Vec<PathBuf> {
    let shared = shared_dir();
    let mut dirs = vec![own_cases_dir()];
    for sub in ["conformance/xpr-v0.5", "cases"] {
        let d = shared.join(sub);
        if d.is_dir() {
            dirs.push(d);
        }
    }
    dirs
}

/// The checked-in list of known failures: `conformance/known-failures.txt`,
/// one case a line as `suite / name  # reason`; blank lines and lines
/// starting with `#` are ignored.
pub fn known_failures_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("known-failures.txt")
}

/// Reads the known-failures list: `(suite, name) -> reason`.
pub fn known_failures(text: &str) -> BTreeMap<(String, String), String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (case, reason) = l.split_once('#').unwrap_or((l, ""));
            let (suite, name) = case.split_once(" / ")?;
            Some((
                (suite.trim().to_string(), name.trim().to_string()),
                reason.trim().to_string(),
            ))
        })
        .collect()
}

/// Compares results with the known-failures list: returns the failures not
/// listed and the listed cases that did not fail (the list must shrink).
pub fn unexpected<'a>(
    results: &'a [CaseResult],
    known: &BTreeMap<(String, String), String>,
) -> (Vec<&'a CaseResult>, Vec<(String, String)>) {
    let mut new_failures = Vec::new();
    let mut failed = std::collections::BTreeSet::new();
    for r in results {
        if matches!(r.outcome, Outcome::Failed(_)) {
            let key = (r.suite.clone(), r.name.clone());
            if !known.contains_key(&key) {
                new_failures.push(r);
            }
            failed.insert(key);
        }
    }
    let fixed = known
        .keys()
        .filter(|k| !failed.contains(*k))
        .cloned()
        .collect();
    (new_failures, fixed)
}

/// Writes every case's expression into `dir` (created if needed), one file
/// a case named by its index: a seed corpus for the fuzz targets. Returns
/// how many files were written.
///
/// # Errors
/// When the directory or a file cannot be written.
pub fn write_seeds(suites: &[Suite], dir: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let mut n = 0;
    for case in suites.iter().flat_map(|s| &s.tests) {
        std::fs::write(dir.join(format!("case-{n:05}")), &case.expression)?;
        n += 1;
    }
    Ok(n)
}

/// Writes every case whose expression compiles as a stored program
/// ([`xpr::Program::to_bytes`]) into `dir` (created if needed): the seeds
/// of the `load` fuzz target. The first 16 are whole files; the others
/// are bodies without the 14-byte header, which the target seals with a
/// valid checksum, so that its mutations reach validation rather than
/// stop at the checksum. Returns how many files were written.
///
/// # Errors
/// When the directory or a file cannot be written.
pub fn write_stored_seeds(suites: &[Suite], dir: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let engine = engine();
    let mut n = 0;
    for case in suites.iter().flat_map(|s| &s.tests) {
        let Ok(program) = engine.compile(&case.expression) else {
            continue;
        };
        let bytes = program.to_bytes();
        let body = if n < 16 { &bytes[..] } else { &bytes[14..] };
        std::fs::write(dir.join(format!("stored-{n:05}")), body)?;
        n += 1;
    }
    Ok(n)
}
