use serde_json::json;
use xpr::{Engine, ErrorKind, Value};

use super::*;

fn schema(s: serde_json::Value) -> OutputSchema {
    OutputSchema::from_json(&s).expect("a valid schema")
}

fn eval(expr: &str) -> Value {
    Engine::new().eval(expr, &()).expect("evaluates")
}

fn message(schema: &OutputSchema, expr: &str) -> String {
    let e = schema.check(&eval(expr)).expect_err("does not conform");
    assert_eq!(e.kind(), ErrorKind::Schema, "{e}");
    assert_eq!(e.kind().name(), "schema");
    e.message().to_string()
}

fn priced() -> OutputSchema {
    schema(json!({
        "type": "object",
        "required": ["items"],
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "price"],
                    "properties": {"name": {"type": "string"}, "price": {"type": "number"}}
                }
            }
        }
    }))
}

#[test]
fn a_conforming_result_passes() {
    let s = priced();
    assert_eq!(
        s.check(&eval(
            "{items: [{name: 'pen', price: 3}, {name: 'desk', price: 120.5}]}"
        )),
        Ok(())
    );
    assert_eq!(s.check(&eval("{items: [], extra: /a/.test('a')}")), Ok(()));
}

#[test]
fn a_failing_result_names_the_pointer_of_the_failing_part() {
    let s = priced();
    assert_eq!(
        message(&s, "{items: [{name: 'pen', price: 'x'}]}"),
        r#"result does not match the output schema at /items/0/price: "x" is not of type "number""#
    );
    assert_eq!(
        message(&s, "{items: [{name: 'pen', price: 1}, {price: 2}]}"),
        r#"result does not match the output schema at /items/1: "name" is a required property"#
    );
    // The whole result: no pointer.
    assert_eq!(
        message(&s, "[1, 2]"),
        r#"result does not match the output schema: [1,2] is not of type "object""#
    );
}

#[test]
fn pointers_escape_slash_and_tilde() {
    let s = schema(json!({"additionalProperties": {"type": "string"}}));
    assert_eq!(
        message(&s, "{'a/b~c': 1}"),
        r#"result does not match the output schema at /a~1b~0c: 1 is not of type "string""#
    );
}

#[test]
fn numbers_are_checked_as_javascript_writes_them() {
    let s = schema(json!({"type": "array", "items": {"type": "integer"}}));
    assert_eq!(s.check(&eval("[100, 2 * 50, -0, 1e15]")), Ok(()));
    assert_eq!(
        message(&s, "[1, 0.5]"),
        r#"result does not match the output schema at /1: 0.5 is not of type "integer""#
    );
}

#[test]
fn long_values_are_quoted_cut() {
    let s = schema(json!({"type": "string"}));
    let m = message(&s, "range(1000)");
    assert!(
        m.starts_with("result does not match the output schema: [0,1,2,3,"),
        "{m}"
    );
    assert!(m.ends_with(r#"... is not of type "string""#), "{m}");
    assert!(m.len() < 150, "{m}");
    // A cut never splits a character.
    let m = message(&s, "{k: 'é'.repeat(100)}");
    assert!(m.contains("éé..."), "{m}");
}

#[test]
fn an_invalid_schema_is_an_error_with_a_clear_message() {
    let e = OutputSchema::from_json(&json!({"type": "numbr"})).expect_err("invalid");
    assert_eq!(e.kind(), ErrorKind::Schema);
    assert!(e.message().starts_with("invalid output schema"), "{e}");
    assert!(e.message().contains("numbr"), "{e}");
    let e = OutputSchema::from_json(&json!({"properties": {"a": {"minimum": "3"}}}))
        .expect_err("invalid");
    assert!(
        e.message()
            .starts_with("invalid output schema at /properties/a/minimum: "),
        "{e}"
    );
    let e = OutputSchema::from_text("{\"type\": ").expect_err("not JSON");
    assert!(
        e.message().starts_with("invalid output schema: not JSON: "),
        "{e}"
    );
    assert!(OutputSchema::from_text(r#"{"type": "number"}"#).is_ok());
}

#[test]
fn nothing_outside_the_schema_is_fetched() {
    for reference in [
        "https://example.invalid/schema.json",
        "file:///etc/passwd",
        "other.json#/defs/a",
    ] {
        let e = OutputSchema::from_json(&json!({"$ref": reference})).expect_err(reference);
        assert_eq!(e.kind(), ErrorKind::Schema);
        assert!(e.message().starts_with("invalid output schema"), "{e}");
    }
    // A reference inside the document is fine.
    let s = schema(json!({
        "$defs": {"price": {"type": "number", "minimum": 0}},
        "type": "array",
        "items": {"$ref": "#/$defs/price"}
    }));
    assert_eq!(s.check(&eval("[1, 2.5]")), Ok(()));
    assert_eq!(
        message(&s, "[1, -2]"),
        "result does not match the output schema at /1: -2 is less than the minimum of 0"
    );
}

#[test]
fn a_pattern_schema_uses_the_linear_time_engine() {
    let s = schema(json!({"type": "array", "items": {"type": "string", "pattern": "^KB-\\d+$"}}));
    assert_eq!(s.check(&eval("['KB-101', 'KB-7']")), Ok(()));
    assert_eq!(
        message(&s, "['KB-101', 'MS-1']"),
        r#"result does not match the output schema at /1: "MS-1" does not match "^KB-\d+$""#
    );
    // Exponential for a backtracking engine, linear here (what shows the
    // engine is the refusal of look-ahead and backreferences below; no
    // clock is read: a busy machine must not fail this test).
    let s = schema(json!({"pattern": "^(a+)+$"}));
    let e = s
        .check(&eval("'a'.repeat(5000) + '!'"))
        .expect_err("no match");
    assert!(e.message().contains("does not match"), "{e}");
    // What only a backtracking engine does is an invalid schema.
    let e = OutputSchema::from_json(&json!({"pattern": "(?=a)a"})).expect_err("look-ahead");
    assert!(e.message().starts_with("invalid output schema"), "{e}");
    let e = OutputSchema::from_json(&json!({"pattern": "(a)\\1"})).expect_err("backreference");
    assert!(e.message().starts_with("invalid output schema"), "{e}");
    // patternProperties too.
    let s = schema(json!({"patternProperties": {"^n_": {"type": "number"}}}));
    assert_eq!(
        message(&s, "{n_a: 1, n_b: 'x'}"),
        r#"result does not match the output schema at /n_b: "x" is not of type "number""#
    );
}

#[test]
fn an_oversized_pattern_is_an_invalid_schema() {
    let e = OutputSchema::from_json(&json!({"pattern": "(a|b){20000}y"})).expect_err("too big");
    assert_eq!(
        e.message(),
        r#"invalid output schema at /pattern: "(a|b){20000}y" is not a "regex""#
    );
}

#[test]
fn regexes_and_functions_never_conform() {
    let s = schema(json!({}));
    assert_eq!(s.check(&eval("{a: [1, 2]}")), Ok(()));
    assert_eq!(
        message(&s, "{a: [1, /x/]}"),
        "result does not match the output schema at /a/1: a regex has no JSON form"
    );
    assert_eq!(
        message(&s, "{f: {'a/b': x => x}}"),
        "result does not match the output schema at /f/a~1b: a function has no JSON form"
    );
    assert_eq!(
        message(&s, "abs"),
        "result does not match the output schema: a function has no JSON form"
    );
}

/// `[[...[1]...]]`, `depth` levels.
fn nested(depth: usize) -> Value {
    let mut v = Value::Number(1.0);
    for _ in 0..depth {
        v = Value::array(vec![v]);
    }
    v
}

#[test]
fn deep_results_are_checked_without_overflowing_a_small_stack() {
    // A recursive schema descends as deep as the result.
    let s = schema(json!({
        "$defs": {"node": {"anyOf": [{"type": "number"}, {"type": "array", "items": {"$ref": "#/$defs/node"}}]}},
        "$ref": "#/$defs/node"
    }));
    let outcome = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let good = s.check(&nested(1000));
            let bad = {
                let mut v = Value::from("x");
                for _ in 0..900 {
                    v = Value::array(vec![v]);
                }
                s.check(&v).map_err(|e| e.message().to_string())
            };
            (good, bad)
        })
        .expect("thread")
        .join()
        .expect("no overflow");
    assert_eq!(outcome.0, Ok(()));
    let bad = outcome.1.expect_err("a string at the bottom");
    assert!(
        bad.starts_with("result does not match the output schema"),
        "{bad}"
    );
    // Deeper than JSON data may be: an error, not a crash.
    let e = schema(json!({}))
        .check(&nested(1001))
        .expect_err("too deep");
    assert_eq!(e.kind(), ErrorKind::Schema);
    assert!(e.message().contains("depth"), "{e}");
}

#[test]
fn the_schema_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<OutputSchema>();
    let s = std::sync::Arc::new(priced());
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                let expr = format!("{{items: [{{name: 'n', price: {i}}}]}}");
                s.check(&Engine::new().eval(&expr, &()).expect("evaluates"))
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("joins"), Ok(()));
    }
}
