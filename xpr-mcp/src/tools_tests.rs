//! Tests of the tools' logic, without a transport: arguments, values,
//! diagnostics, hostile expressions, the guardrails (allowlist, expected
//! type, output schemas), and `check`'s report.

use std::time::Duration;

use serde_json::{Value as Json, json};

use super::*;
use crate::guards::Guards;

fn args(v: Json) -> JsonObject {
    match v {
        Json::Object(map) => map,
        _ => panic!("arguments are an object"),
    }
}

/// Parses and runs a call of `tool` with `arguments` under `engine` and
/// `guards`.
fn call_guarded(engine: &Engine, guards: &Guards, tool: &str, arguments: Json) -> Outcome {
    match parse(tool, Some(&args(arguments))) {
        Ok(Some(call)) => run(engine, guards, &call),
        Ok(None) => panic!("no tool {tool}"),
        Err(d) => Outcome::Failed(d),
    }
}

/// Parses and runs a call of `tool` with `arguments` under `engine`.
fn call_with(engine: &Engine, tool: &str, arguments: Json) -> Outcome {
    call_guarded(engine, &Guards::default(), tool, arguments)
}

fn call(tool: &str, arguments: Json) -> Outcome {
    call_with(&Engine::new(), tool, arguments)
}

fn value(outcome: Outcome) -> Json {
    match outcome {
        Outcome::Done { structured, .. } => structured["value"].clone(),
        Outcome::Failed(d) => panic!("failed: {d}"),
    }
}

fn failure(outcome: Outcome) -> Json {
    match outcome {
        Outcome::Failed(d) => d,
        Outcome::Done { text, .. } => panic!("succeeded: {text}"),
    }
}

fn report(outcome: Outcome) -> Json {
    match outcome {
        Outcome::Done { structured, text } => {
            assert_eq!(text, structured.to_string(), "the text is the report");
            structured
        }
        Outcome::Failed(d) => panic!("check failed: {d}"),
    }
}

// ------------------------------------------------------------- arguments

#[test]
fn arguments_carry_no_limits() {
    let d = failure(call("evaluate", json!({"expression": "1", "fuel": 1e12})));
    assert_eq!(d["kind"], "arguments");
    assert!(d["message"].as_str().is_some_and(|m| m.contains("'fuel'")));
    let d = failure(call("check", json!({"expression": "1", "timeout_ms": 1})));
    assert_eq!(d["kind"], "arguments");
}

#[test]
fn the_expression_is_a_required_string() {
    assert_eq!(
        failure(call("evaluate", json!({})))["message"],
        "'expression' is required"
    );
    assert_eq!(
        failure(call("check", json!({"expression": 1})))["message"],
        "'expression' must be a string, not a number"
    );
    assert!(parse("evaluate", None).is_err());
}

#[test]
fn the_context_is_an_object_or_absent() {
    let d = failure(call("evaluate", json!({"expression": "1", "context": [1]})));
    assert_eq!(
        d["message"],
        "'context' must be a JSON object, not an array"
    );
    assert_eq!(
        value(call(
            "evaluate",
            json!({"expression": "1", "context": null})
        )),
        json!(1)
    );
}

#[test]
fn check_takes_fields_or_a_sample_not_both() {
    let d = failure(call(
        "check",
        json!({"expression": "a", "fields": ["a"], "sample": {"a": 1}}),
    ));
    assert_eq!(d["message"], "give 'fields' or 'sample', not both");
    let d = failure(call("check", json!({"expression": "a", "fields": [1]})));
    assert_eq!(d["message"], "'fields' must list strings, not a number");
    let Ok(Some(Call::Check(c))) = parse(
        "check",
        Some(&args(
            json!({"expression": "a", "sample": {"b": 1, "a": [2]}}),
        )),
    ) else {
        panic!("a check call")
    };
    assert_eq!(c.known, Some(vec!["b".to_string(), "a".to_string()]));
}

#[test]
fn an_unknown_tool_is_not_a_call() {
    assert_eq!(parse("run", None), Ok(None));
}

// -------------------------------------------------------------- evaluate

#[test]
fn evaluate_reads_the_context_and_returns_json() {
    let out = call(
        "evaluate",
        json!({
            "expression": "items.filter(x => x.price > 50).map(x => x.name)",
            "context": {"items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}]}
        }),
    );
    assert_eq!(
        out,
        Outcome::Done {
            structured: json!({"value": ["desk"]}),
            text: r#"["desk"]"#.to_string(),
        }
    );
}

#[test]
fn the_text_spells_numbers_as_xpr_eval_prints_them() {
    let Outcome::Done { structured, text } = call(
        "evaluate",
        json!({"expression": "{a: 0.1 + 0.2, b: 1e21, c: 100}"}),
    ) else {
        panic!("a value")
    };
    assert_eq!(text, r#"{"a":0.30000000000000004,"b":1e+21,"c":100}"#);
    assert_eq!(structured["value"]["c"], json!(100));
}

#[test]
fn null_is_a_value() {
    assert_eq!(
        value(call("evaluate", json!({"expression": "null"}))),
        Json::Null
    );
}

#[test]
fn a_parse_error_gives_its_span_and_the_expected_tokens() {
    let d = failure(call("evaluate", json!({"expression": "price * (qty + 1"})));
    assert_eq!(d["kind"], "parse");
    assert!(d["span"]["start"].is_u64());
    let expected: Vec<&str> = d["expected"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Json::as_str)
        .collect();
    assert!(expected.contains(&")"), "{expected:?}");
}

#[test]
fn spans_count_characters_not_bytes() {
    let d = failure(call("evaluate", json!({"expression": "'ünïcödé' +"})));
    assert_eq!(d["span"]["start"], 11);
}

#[test]
fn a_run_error_names_its_kind_and_place() {
    let d = failure(call(
        "evaluate",
        json!({"expression": "a.b.c", "context": {"a": {}}}),
    ));
    assert_eq!(d["kind"], "type");
    assert_eq!(d["expected"], json!([]));
    let d = failure(call("evaluate", json!({"expression": "nope + 1"})));
    assert_eq!(d["kind"], "reference");
    assert_eq!(d["span"], json!({"start": 0, "end": 4}));
}

#[test]
fn a_value_without_a_json_form_is_an_error() {
    let d = failure(call("evaluate", json!({"expression": "x => x"})));
    assert_eq!(d["kind"], "type");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("function"))
    );
}

// ------------------------------------------------------ hostile expressions

fn kind_of(engine: &Engine, expression: &str) -> String {
    let d = failure(call_with(
        engine,
        "evaluate",
        json!({"expression": expression}),
    ));
    d["kind"].as_str().expect("a kind").to_string()
}

#[test]
fn deep_nesting_is_a_depth_error() {
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let kind = kind_of(&Engine::new(), &deep);
    assert!(kind == "depth" || kind == "length", "{kind}");
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(kind_of(&Engine::new(), &deep), "depth");
}

#[test]
fn a_long_expression_is_a_length_error() {
    let long = format!("1{}", " + 1".repeat(5000));
    assert_eq!(kind_of(&Engine::new(), &long), "length");
}

#[test]
fn a_huge_range_or_string_is_a_memory_error() {
    for e in [
        "range(1e9)",
        "range(1e9).map(x => x * 2).sum()",
        "'x'.repeat(1e9)",
    ] {
        let kind = kind_of(&Engine::new(), e);
        assert_eq!(kind, "memory", "{e}");
    }
}

#[test]
fn a_regex_bomb_is_harmless() {
    // Linear-time matching: no catastrophic backtracking, a plain value.
    let out = call(
        "evaluate",
        json!({"expression": "/(a+)+$/.test('a'.repeat(5000) + '!')"}),
    );
    assert_eq!(value(out), json!(false));
    // A pattern too big to compile is a regex error.
    let kind = kind_of(&Engine::new(), "/((a{1000}){1000}){1000}/.test('a')");
    assert_eq!(kind, "regex");
}

#[test]
fn the_servers_limits_apply() {
    let limits = xpr::Limits {
        fuel: Some(1000),
        ..Default::default()
    };
    let engine = Engine::new().with_limits(limits);
    assert_eq!(kind_of(&engine, "range(10000).sum()"), "fuel");

    let limits = xpr::Limits {
        memory: Some(1 << 10),
        ..Default::default()
    };
    let engine = Engine::new().with_limits(limits);
    assert_eq!(kind_of(&engine, "'x'.repeat(5000)"), "memory");

    let limits = xpr::Limits {
        fuel: None,
        timeout: Some(Duration::from_millis(20)),
        ..Default::default()
    };
    let engine = Engine::new().with_limits(limits);
    assert_eq!(
        kind_of(&engine, "range(1e6).map(x => range(100).sum()).sum()"),
        "timeout"
    );
}

#[test]
fn a_context_deeper_than_the_value_depth_limit_is_refused() {
    let limits = xpr::Limits {
        value_depth: 4,
        ..Default::default()
    };
    let engine = Engine::new().with_limits(limits);
    let d = failure(call_with(
        &engine,
        "evaluate",
        json!({"expression": "a", "context": {"a": [[[[[1]]]]]}}),
    ));
    assert_eq!(d["kind"], "depth");
}

// ------------------------------------------------------------ guardrails

#[test]
fn a_denied_function_is_an_access_error_in_both_tools() {
    let engine = Engine::new().deny(["now"]);
    let d = failure(call_with(
        &engine,
        "evaluate",
        json!({"expression": "now()"}),
    ));
    assert_eq!(d["kind"], "access");
    assert!(
        d["message"].as_str().is_some_and(|m| m.contains("'now'")),
        "{d}"
    );
    assert_eq!(d["span"]["start"], 0);
    let r = report(call_with(&engine, "check", json!({"expression": "now()"})));
    assert_eq!(r["valid"], false);
    assert_eq!(r["error"]["kind"], "access");
    assert_eq!(
        value(call_with(
            &engine,
            "evaluate",
            json!({"expression": "1 + 1"})
        )),
        json!(2)
    );
}

#[test]
fn an_allowlist_names_what_is_allowed() {
    let engine = Engine::new().allow_only(["filter"]);
    let d = failure(call_with(
        &engine,
        "evaluate",
        json!({"expression": "[1, 2].map(x => x)"}),
    ));
    assert_eq!(d["kind"], "access");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("allowed: filter")),
        "{d}"
    );
}

#[test]
fn the_expected_type_is_checked_at_compile_and_on_the_result() {
    let guards = Guards {
        expect: Some(xpr::ValueType::Boolean),
        ..Guards::default()
    };
    let engine = Engine::new();
    let d = failure(call_guarded(
        &engine,
        &guards,
        "evaluate",
        json!({"expression": "total * 2"}),
    ));
    assert_eq!(d["kind"], "type");
    assert!(d["hint"].is_string(), "{d}");
    let d = failure(call_guarded(
        &engine,
        &guards,
        "evaluate",
        json!({"expression": "flag", "context": {"flag": "yes"}}),
    ));
    assert_eq!(d["kind"], "type");
    let ok = call_guarded(
        &engine,
        &guards,
        "evaluate",
        json!({"expression": "flag", "context": {"flag": true}}),
    );
    assert_eq!(value(ok), json!(true));
    let r = report(call_guarded(
        &engine,
        &guards,
        "check",
        json!({"expression": "total * 2"}),
    ));
    assert_eq!(r["valid"], false);
    assert_eq!(r["error"]["kind"], "type");
}

fn schema(v: Json) -> xpr_schema::OutputSchema {
    xpr_schema::OutputSchema::from_json(&v).expect("a valid schema")
}

#[test]
fn the_servers_schema_checks_every_result_with_the_pointer() {
    let guards = Guards {
        output_schema: Some(schema(json!({
            "type": "object", "required": ["total"],
            "properties": {"total": {"type": "number"}}
        }))),
        ..Guards::default()
    };
    let engine = Engine::new();
    let ok = call_guarded(
        &engine,
        &guards,
        "evaluate",
        json!({"expression": "{total: 3}"}),
    );
    assert_eq!(value(ok), json!({"total": 3}));
    let d = failure(call_guarded(
        &engine,
        &guards,
        "evaluate",
        json!({"expression": "{total: 'x'}"}),
    ));
    assert_eq!(d["kind"], "schema");
    assert_eq!(
        d["message"],
        r#"result does not match the output schema at /total: "x" is not of type "number""#
    );
}

#[test]
fn a_clients_schema_adds_a_check_and_cannot_lift_the_servers() {
    let guards = Guards {
        output_schema: Some(schema(json!({"type": "array"}))),
        ..Guards::default()
    };
    let engine = Engine::new();
    let both = |expression: &str, client: Json| {
        call_guarded(
            &engine,
            &guards,
            "evaluate",
            json!({"expression": expression, "output_schema": client}),
        )
    };
    // The client's `true` accepts anything: the server's still applies.
    let d = failure(both("{a: 1}", json!(true)));
    assert_eq!(d["kind"], "schema");
    assert_eq!(
        d["message"],
        r#"result does not match the output schema: {"a":1} is not of type "array""#
    );
    // Passing the server's, failing the client's: the client's pointer.
    let d = failure(both("[1, 'two']", json!({"items": {"type": "number"}})));
    assert_eq!(d["kind"], "schema");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains(" at /1: ")),
        "{d}"
    );
    assert_eq!(
        value(both("[1, 2]", json!({"items": {"type": "number"}}))),
        json!([1, 2])
    );
}

#[test]
fn a_clients_schema_alone_and_a_bad_one() {
    let d = failure(call(
        "evaluate",
        json!({"expression": "{price: 'x'}", "output_schema": {"properties": {"price": {"type": "number"}}}}),
    ));
    assert_eq!(d["kind"], "schema");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains(" at /price: ")),
        "{d}"
    );
    let d = failure(call(
        "evaluate",
        json!({"expression": "1", "output_schema": {"type": "numbr"}}),
    ));
    assert_eq!(d["kind"], "arguments");
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("'output_schema': invalid output schema")),
        "{d}"
    );
    let d = failure(call(
        "evaluate",
        json!({"expression": "1", "output_schema": 3}),
    ));
    assert_eq!(d["kind"], "arguments");
    // A value without a JSON form fails a schema with its pointer.
    let d = failure(call(
        "evaluate",
        json!({"expression": "{f: x => x}", "output_schema": true}),
    ));
    assert_eq!(d["kind"], "schema");
    assert!(
        d["message"].as_str().is_some_and(|m| m.contains("/f")),
        "{d}"
    );
}

// ----------------------------------------------------------------- check

#[test]
fn check_lists_free_variables_functions_and_warnings() {
    let r = report(call(
        "check",
        json!({"expression": "round(totl * 1.2) > max(limit, 10)", "fields": ["total", "limit"]}),
    ));
    assert_eq!(r["valid"], true);
    assert_eq!(r["free_variables"], json!(["totl", "limit"]));
    assert_eq!(r["functions"], json!(["round", "max"]));
    assert_eq!(r["warnings"][0]["kind"], "unknown_field");
    assert_eq!(r["warnings"][0]["suggestion"], "total");
    assert_eq!(r.get("error"), None);
    assert_eq!(r["errors"], json!([]));
}

#[test]
fn check_takes_the_fields_of_a_sample_record() {
    let r = report(call(
        "check",
        json!({"expression": "status == 'paid' && totl > 1", "sample": {"status": "x", "total": 2}}),
    ));
    assert_eq!(r["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(r["warnings"][0]["name"], "totl");
}

#[test]
fn check_without_fields_warns_only_about_method_typos() {
    let r = report(call("check", json!({"expression": "items.filtr(x => x)"})));
    assert_eq!(r["valid"], true);
    assert_eq!(r["warnings"][0]["kind"], "unknown_method");
}

#[test]
fn an_invalid_expression_is_a_report_with_the_diagnostic() {
    let r = report(call("check", json!({"expression": "a +"})));
    assert_eq!(r["valid"], false);
    assert_eq!(r["error"]["kind"], "parse");
    assert!(
        r["error"]["expected"]
            .as_array()
            .is_some_and(|e| !e.is_empty())
    );
    assert_eq!(r.get("free_variables"), None, "as `xpr check --json`");
}

#[test]
fn check_reports_every_syntax_error_with_its_hint() {
    let r = report(call("check", json!({"expression": "a and b or c"})));
    assert_eq!(r["valid"], false);
    let hints: Vec<&str> = r["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["hint"].as_str())
        .collect();
    assert_eq!(
        hints,
        ["XPR writes `&&` for `and`", "XPR writes `||` for `or`"]
    );
}

#[test]
fn an_unknown_function_makes_the_expression_invalid() {
    let r = report(call("check", json!({"expression": "rond(total)"})));
    assert_eq!(r["valid"], false);
    assert_eq!(r["error"]["kind"], "reference");
    assert_eq!(r["error"]["hint"], "did you mean 'round'?");
    assert_eq!(r["error"]["span"]["start"], 0);
}

/// `check`'s report is `xpr check --json`'s output, byte for byte (these
/// were printed by `xpr check --json EXPR [--fields ...]`).
#[test]
fn check_reports_what_xpr_check_json_prints() {
    let cases = [
        (
            json!({"expression": "totl > 1 && items.filtr(x => x)", "fields": ["total", "items"]}),
            r#"{"valid":true,"errors":[],"warnings":[{"kind":"unknown_field","message":"'totl' is not a field of the records (did you mean 'total'?)","text":"'totl' is not a field of the records (did you mean 'total'?) at position 0","position":0,"span":{"start":0,"end":4},"expected":[],"hint":"did you mean 'total'?","severity":"warning","name":"totl","suggestion":"total"},{"kind":"unknown_method","message":"'filtr' is not a built-in method (did you mean 'filter'?)","text":"'filtr' is not a built-in method (did you mean 'filter'?) at position 18","position":18,"span":{"start":18,"end":31},"expected":[],"hint":"did you mean 'filter'?","severity":"warning","name":"filtr","suggestion":"filter"}],"free_variables":["totl","items"],"functions":[]}"#,
        ),
        (
            json!({"expression": "a +"}),
            r#"{"valid":false,"error":{"kind":"parse","message":"Unexpected end of expression","text":"Unexpected end of expression at position 3","position":3,"span":{"start":3,"end":3},"expected":["number","string","identifier","regex","template","true","false","null","let","-","!","(","[","{"],"hint":null,"severity":"error"},"errors":[{"kind":"parse","message":"Unexpected end of expression","text":"Unexpected end of expression at position 3","position":3,"span":{"start":3,"end":3},"expected":["number","string","identifier","regex","template","true","false","null","let","-","!","(","[","{"],"hint":null,"severity":"error"}],"warnings":[]}"#,
        ),
        (
            json!({"expression": "rond(total)"}),
            r#"{"valid":false,"error":{"kind":"reference","message":"Unknown function 'rond' (did you mean 'round'?)","text":"Unknown function 'rond' (did you mean 'round'?) at position 0","position":0,"span":{"start":0,"end":4},"expected":[],"hint":"did you mean 'round'?","severity":"error"},"errors":[{"kind":"reference","message":"Unknown function 'rond' (did you mean 'round'?)","text":"Unknown function 'rond' (did you mean 'round'?) at position 0","position":0,"span":{"start":0,"end":4},"expected":[],"hint":"did you mean 'round'?","severity":"error"}],"warnings":[],"free_variables":["total"],"functions":[]}"#,
        ),
    ];
    for (arguments, cli) in cases {
        let Outcome::Done { text, .. } = call("check", arguments) else {
            panic!("a report")
        };
        assert_eq!(text, cli);
    }
}

#[test]
fn check_never_runs_the_expression() {
    let r = report(call("check", json!({"expression": "range(1e9).sum()"})));
    assert_eq!(r["valid"], true);
}

// --------------------------------------------------------------- schemas

#[test]
fn the_tools_are_listed_with_both_schemas() {
    let tools = definitions();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, ["evaluate", "check"]);
    for t in &tools {
        assert_eq!(t.input_schema.get("type"), Some(&json!("object")));
        assert_eq!(
            t.input_schema.get("additionalProperties"),
            Some(&json!(false))
        );
        assert!(t.output_schema.is_some());
        assert!(t.description.is_some());
    }
}

#[test]
fn the_input_schemas_list_exactly_the_arguments_parse_accepts() {
    for (tool, schema) in [
        (EVALUATE, evaluate_input_schema()),
        (CHECK, check_input_schema()),
    ] {
        let props = schema["properties"].as_object().expect("properties");
        for name in props.keys().filter(|k| *k != "expression") {
            let mut a = JsonObject::new();
            a.insert("expression".into(), json!("1"));
            a.insert(name.clone(), Json::Null);
            assert!(parse(tool, Some(&a)).is_ok(), "{tool} {name}");
        }
    }
}
