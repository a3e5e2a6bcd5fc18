//! `xpr check --cost`: the static fuel bound as text and JSON, its value
//! at `--sizes`, at a `--context`, and over a `--sample`.

use crate::common::{code, run, stdout};
use serde_json::Value;

const FILTER: &str = "items.filter(x => x.price > 50).map(x => x.name)";

#[test]
fn cost_prints_the_formula_and_its_value_at_sizes() {
    let o = run(&["check", "--cost", FILTER]);
    assert_eq!(code(&o), 0);
    assert!(
        stdout(&o).contains("cost: 6 + 9·len(items)\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["check", "--cost", FILTER, "--sizes", "items=1000"]);
    assert!(
        stdout(&o).contains("fuel at most: 9006 (at len(items)=1000)\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["check", "--cost", FILTER, "--sizes", "items=lots"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn cost_at_a_context_and_as_json() {
    let ctx = r#"{"items": [{"name": "abc"}, {"name": "hello world"}]}"#;
    let src = "items.map(x => x.name.upper())";
    let o = run(&["check", "--cost", src, "--context", ctx, "--json"]);
    let v: Value = serde_json::from_str(stdout(&o).trim_end()).expect("json");
    let cost = &v["cost"];
    assert_eq!(cost["bounded"], true);
    assert_eq!(cost["sizes"]["len(items)"], 2);
    assert_eq!(cost["sizes"]["bytes(items[].name)"], 11);
    assert!(cost["fuel"].as_u64().is_some_and(|f| f > 10), "{cost}");
    // A size missing: no value, the variable named.
    let o = run(&["check", "--cost", src, "--sizes", "items=3", "--json"]);
    let v: Value = serde_json::from_str(stdout(&o).trim_end()).expect("json");
    assert_eq!(v["cost"]["fuel"], Value::Null);
    assert_eq!(v["cost"]["missing"][0], "bytes(items[].name)");
}

#[test]
fn cost_says_why_there_is_no_bound() {
    let src = "((f) => f(f))((g) => g(g))";
    let o = run(&["check", "--cost", src, "--json"]);
    let v: Value = serde_json::from_str(stdout(&o).trim_end()).expect("json");
    assert_eq!(v["cost"]["bounded"], false);
    assert!(
        v["cost"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("call itself"))
    );
    assert_eq!(v["cost"]["span"], serde_json::json!([21, 25]));
    let o = run(&["check", "--cost", src]);
    assert!(stdout(&o).contains("cost: unbounded: "), "{}", stdout(&o));
}

#[test]
fn cost_over_a_sample_takes_its_largest_record() {
    let dir = std::env::temp_dir().join(format!("xpr-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("records.ndjson");
    std::fs::write(
        &path,
        "{\"items\": [1, 2]}\n{\"items\": [1, 2, 3, 4, 5]}\n{\"items\": []}\n",
    )
    .expect("writes");
    let o = run(&[
        "check",
        "--cost",
        "items.map(x => x * 2)",
        "--sample",
        path.to_str().unwrap_or(""),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stdout(&o).contains("(at len(items)=5)"), "{}", stdout(&o));
}

#[test]
fn memory_in_a_bound_is_the_max_memory_budget() {
    let args = [
        "check",
        "--cost",
        "name.repeat(n)",
        "--sizes",
        "bytes(name)=16",
    ];
    let o = run(&[&args[..], &["--max-memory", "1600"]].concat());
    assert!(
        stdout(&o).contains("fuel at most: 109 (at bytes(name)=16, memory=1600)"),
        "{}",
        stdout(&o)
    );
}
