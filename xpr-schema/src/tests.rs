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

/// Runs `f` on a thread of its own and waits at most `secs` seconds for
/// it (a hung check fails the test instead of hanging it).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .expect("finished before the deadline")
}

/// `$defs` a0..a40, each level applying the one below twice through
/// `pair`, and the root applying a40 through `top`: about 2^40 subschemas
/// at the root node of any result, were the schema accepted.
/// Each level has an `$anchor` (`a0`, ...), and with `ids` an `$id`
/// (`a0.json`, ...).
fn doubling(
    pair: impl Fn(serde_json::Value) -> serde_json::Value,
    refer: impl Fn(usize) -> serde_json::Value,
    ids: bool,
) -> serde_json::Value {
    let mut defs = serde_json::Map::new();
    for i in 0..=40 {
        let mut def = if i == 0 {
            json!({"type": "string"})
        } else {
            pair(refer(i - 1))
        };
        def["$anchor"] = json!(format!("a{i}"));
        if ids {
            def["$id"] = json!(format!("a{i}.json"));
        }
        defs.insert(format!("a{i}"), def);
    }
    let mut root = refer(40);
    root["$defs"] = serde_json::Value::Object(defs);
    root
}

/// Compiles `schema` and, if it compiles, checks `1` against it; within
/// 20 seconds (the unbounded schemas below would take years).
fn compile_and_check(schema: serde_json::Value) -> Result<(), xpr::Error> {
    within(20, move || {
        OutputSchema::from_json(&schema)?.check(&eval("1"))
    })
}

fn assert_refused(schema: serde_json::Value, what: &str) {
    let e = compile_and_check(schema).expect_err(what);
    assert_eq!(e.kind(), ErrorKind::Schema, "{what}: {e}");
    assert!(
        e.message().starts_with("invalid output schema: checking "),
        "{what}: {e}"
    );
    assert!(
        e.message().contains(&format!(
            "over the limit of {CHECK_STEPS_PER_NODE} per node"
        )),
        "{what}: {e}"
    );
}

#[test]
fn references_that_multiply_the_work_of_a_check_are_refused() {
    let pointer = |i: usize| json!({"$ref": format!("#/$defs/a{i}")});
    type Pair = fn(serde_json::Value) -> serde_json::Value;
    let pairs: [(&str, Pair); 7] = [
        ("anyOf", |r| json!({"anyOf": [r, r]})),
        ("allOf", |r| json!({"allOf": [r, r]})),
        ("oneOf", |r| json!({"oneOf": [r, r]})),
        ("not", |r| json!({"not": {"not": r}, "anyOf": [r]})),
        ("if/then/else", |r| json!({"if": r, "then": r, "else": r})),
        (
            "dependentSchemas",
            |r| json!({"dependentSchemas": {"x": r, "y": r}}),
        ),
        (
            "a mix",
            |r| json!({"allOf": [{"anyOf": [r]}, {"oneOf": [{"not": r}]}]}),
        ),
    ];
    for (what, pair) in pairs {
        assert_refused(doubling(pair, pointer, false), what);
    }
    // References by anchor, by `$id`-relative URI, and dynamic ones.
    let anyof = |r: serde_json::Value| json!({"anyOf": [r, r]});
    assert_refused(
        doubling(anyof, |i| json!({"$ref": format!("#a{i}")}), false),
        "$anchor",
    );
    assert_refused(
        doubling(anyof, |i| json!({"$ref": format!("a{i}.json")}), true),
        "$id",
    );
    let mut dynamic = doubling(anyof, |i| json!({"$dynamicRef": format!("#d{i}")}), false);
    for i in 0..=40 {
        dynamic["$defs"][format!("a{i}")]["$dynamicAnchor"] = json!(format!("d{i}"));
    }
    assert_refused(dynamic, "$dynamicRef");
}

#[test]
fn the_work_of_a_check_is_refused_before_any_result_is_checked() {
    // Without the bound, this takes seconds per anyOf level: a check of
    // `1` took 1 s (16 levels) and 5 s (18 levels) in a debug build.
    let schema = doubling(
        |r| json!({"anyOf": [r, r]}),
        |i| json!({"$ref": format!("#/$defs/a{i}")}),
        false,
    );
    let started = std::time::Instant::now();
    let e = OutputSchema::from_json(&schema).expect_err("refused");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(e.message().contains("checking the root of a result"), "{e}");
}

#[test]
fn subschemas_multiplying_down_the_levels_of_a_result_are_refused() {
    // Each level of an array applies `a` twice at the level below: 2^d
    // subschemas at depth d, however cheap each level is on its own.
    let schema = json!({
        "$defs": {"a": {"anyOf": [
            {"type": "array", "items": {"$ref": "#/$defs/a"}},
            {"type": "array", "items": {"$ref": "#/$defs/a"}}
        ]}},
        "$ref": "#/$defs/a"
    });
    let e = compile_and_check(schema).expect_err("refused");
    assert!(
        e.message()
            .starts_with("invalid output schema: checking a node "),
        "{e}"
    );
    assert!(e.message().contains(" levels down a result"), "{e}");
}

#[test]
fn an_in_place_reference_cycle_is_an_invalid_schema() {
    // `jsonschema` compiles it and takes a subschema met again at the same
    // node for valid: this schema would let `1` through.
    let schema = json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "string"}]},
                  "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    });
    let plain = jsonschema::options().build(&schema).expect("compiles");
    assert!(plain.is_valid(&json!(1)));
    for schema in [schema, json!({"$ref": "#"}), json!({"not": {"$ref": "#"}})] {
        let e = compile_and_check(schema).expect_err("a cycle");
        assert_eq!(e.kind(), ErrorKind::Schema);
        assert!(
            e.message()
                .starts_with("invalid output schema: the subschema at "),
            "{e}"
        );
        assert!(
            e.message().contains("applies itself at the same node"),
            "{e}"
        );
    }
}

#[test]
fn the_analysis_of_a_deep_schema_does_not_overflow_the_stack() {
    // `serde_json` reads no JSON text nested deeper than 128 levels, and
    // `jsonschema` compiles on the native stack: only the analysis is
    // run here, on a small stack (the `jsonschema` registry it resolves
    // references with takes a few hundred KiB in a debug build, at any
    // depth).
    let outcome = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let mut s = json!({"type": "string"});
            for _ in 0..100_000 {
                s = serde_json::Value::Object(std::iter::once(("not".to_string(), s)).collect());
            }
            let cost = cost::check_cost(&s).map_err(|e| e.len());
            dismantle(s);
            cost
        })
        .expect("thread")
        .join()
        .expect("no overflow");
    // 100,000 `not`s apply 100,000 subschemas at the same node.
    assert!(outcome.is_err());
}

#[test]
fn large_and_recursive_schemas_still_compile_and_check() {
    // An anyOf of 1,000 alternatives.
    let alternatives: Vec<_> = (0..1000)
        .map(|i| json!({"type": "object", "required": ["kind"], "properties": {"kind": {"const": format!("k{i}")}, "n": {"type": "number"}}}))
        .collect();
    let any = json!({"type": "array", "items": {"anyOf": alternatives}});
    // 7 steps per alternative (its keywords, `required`'s name, `const`).
    assert_eq!(cost::check_cost(&any), Ok(7001));
    let s = schema(any);
    assert_eq!(
        s.check(&eval("[{kind: 'k999', n: 1}, {kind: 'k0'}]")),
        Ok(())
    );
    assert!(message(&s, "[{kind: 'k1000'}]").starts_with("result does not match"));
    // A tree through properties, with two recursive keys and an allOf base.
    let s = schema(json!({
        "$defs": {
            "base": {"type": "object", "properties": {"left": {"type": ["object", "null"]}}},
            "node": {"allOf": [{"$ref": "#/$defs/base"}], "required": ["v"], "properties": {
                "v": {"type": "number"},
                "left": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]},
                "right": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]}}}
        },
        "$ref": "#/$defs/node"
    }));
    let tree = "{v: 1, left: {v: 2, left: null, right: {v: 3}}, right: null}";
    assert_eq!(s.check(&eval(tree)), Ok(()));
    assert_eq!(
        message(&s, "{v: 1, left: {v: 'x'}}"),
        r#"result does not match the output schema at /left: {"v":"x"} is not valid under any of the schemas listed in the 'anyOf' keyword"#
    );
    // An expression tree: variants naming different recursive keys, and
    // a tuple.
    let s = schema(json!({
        "$defs": {"e": {"oneOf": [
            {"type": "number"},
            {"type": "object", "required": ["op"], "properties": {"op": {"const": "neg"}, "arg": {"$ref": "#/$defs/e"}}},
            {"type": "object", "required": ["l", "r"], "properties": {"op": {"const": "+"}, "l": {"$ref": "#/$defs/e"}, "r": {"$ref": "#/$defs/e"}}},
            {"type": "array", "prefixItems": [{"const": "*"}, {"$ref": "#/$defs/e"}, {"$ref": "#/$defs/e"}], "items": false}
        ]}},
        "$ref": "#/$defs/e"
    }));
    assert_eq!(
        s.check(&eval("{op: '+', l: ['*', 2, {op: 'neg', arg: 3}], r: 4}")),
        Ok(())
    );
    // Any JSON value, and the dynamic-reference tree of JSON Schema 2020-12.
    let s = schema(json!({
        "$defs": {"v": {"anyOf": [
            {"type": ["null", "boolean", "number", "string"]},
            {"type": "array", "items": {"$ref": "#/$defs/v"}},
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}
        ]}},
        "$ref": "#/$defs/v"
    }));
    assert_eq!(
        s.check(&eval("{a: [1, {b: [null, 'x']}], c: true}")),
        Ok(())
    );
    let s = schema(json!({
        "$id": "https://example.invalid/strict-tree",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "unevaluatedProperties": false,
        "$defs": {"tree": {
            "$id": "tree",
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
        }}
    }));
    assert_eq!(
        s.check(&eval("{children: [{data: 1, children: []}]}")),
        Ok(())
    );
    assert!(message(&s, "{children: [{daat: 1}]}").starts_with("result does not match"));
}

#[test]
fn references_of_older_drafts_are_resolved_for_the_bound() {
    // A draft 7 anchor (`$id: "#price"`) under a base with an empty
    // fragment, a draft 4 `id`, a draft 2019-09 `$recursiveRef`.
    let s = schema(json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "http://example.invalid/root.json#",
        "definitions": {"p": {"$id": "#price", "type": "number"}},
        "type": "array",
        "items": {"$ref": "#price"}
    }));
    assert_eq!(s.check(&eval("[1, 2]")), Ok(()));
    assert!(message(&s, "[1, 'x']").starts_with("result does not match the output schema at /1"));
    let s = schema(json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "http://example.invalid/r",
        "definitions": {"p": {"type": "number"}},
        "items": {"$ref": "#/definitions/p"}
    }));
    assert_eq!(s.check(&eval("[1, 2]")), Ok(()));
    let s = schema(json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": true,
        "type": ["object", "number"],
        "additionalProperties": {"$recursiveRef": "#"}
    }));
    assert_eq!(s.check(&eval("{a: {b: 1}, c: 2}")), Ok(()));
    assert!(
        message(&s, "{a: {b: 'x'}}").starts_with("result does not match the output schema at /a/b")
    );
}
