//! The package's engine, natively: what crosses the boundary as text.

use serde_json::{Value as Json, json};

use super::*;

fn run(source: &str, context: &str) -> Result<Json, Json> {
    let mut p =
        compile_program(source, "").map_err(|e| serde_json::from_str::<Json>(&e).unwrap())?;
    p.run_json(context, 1)
        .map(|s| serde_json::from_str(&s).unwrap())
        .map_err(|e| serde_json::from_str(&e).unwrap())
}

#[test]
fn evaluates_json_contexts_to_json_results() {
    let ctx = r#"{"items": [{"n": "pen", "p": 3}, {"n": "desk", "p": 120}]}"#;
    assert_eq!(
        run("items.filter(x => x.p > 50).map(x => x.n)", ctx).unwrap(),
        json!(["desk"])
    );
    assert_eq!(run("1 + 2", "").unwrap(), json!(3));
    assert_eq!(
        run(r#"{a: 1, b: "x"}"#, "").unwrap(),
        json!({"a": 1, "b": "x"})
    );
}

#[test]
fn errors_carry_kind_span_and_hint() {
    let e = run("1 +", "").unwrap_err();
    assert_eq!(e["kind"], "parse");
    assert_eq!(e["span"]["start"], 3);
    assert!(e["text"].as_str().unwrap().contains("at position 3"));
    let e = run("a - 1", r#"{"a": "x"}"#).unwrap_err();
    assert_eq!(e["kind"], "type");
    assert_eq!(e["span"]["start"], 0);
    let e = run("range(0, 1e9).map(x => x)", "").unwrap_err();
    assert!(
        ["fuel", "memory"].contains(&e["kind"].as_str().unwrap()),
        "{e}"
    );
}

#[test]
fn bad_input_is_an_input_error_not_a_panic() {
    for ctx in ["[1]", "{", "3"] {
        let e = run("1", ctx).unwrap_err();
        assert_eq!(e["kind"], "input", "{ctx}: {e}");
    }
    let e = compile_program("1", r#"{"fuel": -3}"#).err().unwrap();
    assert!(e.contains("'fuel'"), "{e}");
}

#[test]
fn limits_apply_to_runs() {
    let mut p = compile_program("range(1000).sum()", r#"{"fuel": 100}"#).unwrap();
    let e: Json = serde_json::from_str(&p.run_json("", 0).unwrap_err()).unwrap();
    assert_eq!(e["kind"], "fuel");
    let mut p = compile_program("range(1000).sum()", "").unwrap();
    assert_eq!(p.run_json("", 0).unwrap(), "499500");
    assert!(p.fuel_used() > 1000.0);
}

#[test]
fn the_seed_decides_random() {
    let mut p = compile_program("random()", "").unwrap();
    let a = p.run_json("", 7).unwrap();
    assert_eq!(p.run_json("", 7).unwrap(), a);
    assert_ne!(p.run_json("", 8).unwrap(), a);
}

#[test]
fn parse_and_check_report_diagnostics() {
    let engine = engine("").unwrap();
    let all: Json = serde_json::from_str(&parse_report(&engine, "(1 + ")).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert!(!all[0]["expected"].as_array().unwrap().is_empty());
    assert_eq!(parse_report(&engine, "1 + 1"), "[]");
    let report: Json =
        serde_json::from_str(&check_report(&engine, "y + 1", r#"["x"]"#).unwrap()).unwrap();
    assert_eq!(report["valid"], json!(true), "{report}");
    assert_eq!(report["warnings"][0]["span"]["start"], 0, "{report}");
    let report: Json = serde_json::from_str(&check_report(&engine, "1 +", "").unwrap()).unwrap();
    assert_eq!(report["valid"], json!(false), "{report}");
    assert_eq!(report["error"]["kind"], "parse", "{report}");
    assert!(card().contains("filter"));
}
