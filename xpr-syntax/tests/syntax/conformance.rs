//! Runs the parser over the shared YAML suites: a case with `expected`
//! must parse; a case with `error` must either parse (the error comes later,
//! from evaluation) or fail with a message containing the expected
//! substring. Failures are collected and reported together.

use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Deserialize)]
struct Suite {
    tests: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    expression: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    skip: Option<bool>,
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn shared_suites_parse() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let require = std::env::var("XPR_REQUIRE_SHARED").is_ok_and(|v| v == "1");
    if !shared.is_dir() {
        assert!(
            !require,
            "XPR_REQUIRE_SHARED=1 but {} is missing",
            shared.display()
        );
        println!("skipping: {} not found", shared.display());
        return;
    }
    let mut files = yaml_files(&shared.join("conformance/xpr-v0.5"));
    files.extend(yaml_files(&shared.join("cases")));
    assert!(
        !files.is_empty() || !require,
        "no YAML suites under {}",
        shared.display()
    );

    let (mut parsed, mut rejected_as_expected, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable suite file");
        let suite: Suite =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let fname = file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        for case in suite.tests {
            let result = xpr_syntax::parse(&case.expression);
            let ok = match (&result, &case.error) {
                (Ok(_), _) => {
                    parsed += 1;
                    true
                }
                (Err(e), Some(want)) if e.to_string().contains(want.as_str()) => {
                    rejected_as_expected += 1;
                    true
                }
                _ => false,
            };
            if !ok {
                if case.skip == Some(true) {
                    skipped += 1;
                    continue;
                }
                let got = result.err().map(|e| e.to_string()).unwrap_or_default();
                failures.push(format!(
                    "{fname} / {}: `{}` -> {got} (wanted {})",
                    case.name,
                    case.expression,
                    case.error
                        .as_deref()
                        .map_or("a parse".to_string(), |w| format!("error containing {w:?}"))
                ));
            }
        }
    }
    println!(
        "{} files: {parsed} parsed, {rejected_as_expected} rejected with the expected message, {skipped} skipped cases failed",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(parsed > 0 || !require);
}
