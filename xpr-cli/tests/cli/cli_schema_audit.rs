//! What is done with results besides writing them (issue 14, items 5 and 6):
//! `--output-schema FILE` (a result that does not conform is an error of
//! kind `schema`, handled like any other) and `--audit FILE` (one JSON line
//! per evaluation) on `eval`, `run` and `batch`.

use crate::common;

use std::collections::BTreeSet;

use common::*;
use serde_json::{Value as Json, json};
use sha2::{Digest as _, Sha256};

/// `{"type": "object", "required": ["id", "total"], ...}`: what the orders
/// transform below must give.
fn order_schema() -> String {
    let schema = json!({
        "type": "object",
        "required": ["id", "total"],
        "properties": {"id": {"type": "integer"}, "total": {"type": "number", "minimum": 100}}
    });
    temp_file("order-schema.json", schema.to_string().as_bytes())
}

/// A fresh path for an audit log (removed if a run before left one).
fn log_path(name: &str) -> String {
    let path = temp_file(name, b"");
    std::fs::remove_file(&path).expect("remove");
    path
}

/// The lines of an audit log, parsed.
fn audit_lines(path: &str) -> Vec<Json> {
    std::fs::read_to_string(path)
        .expect("audit log")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `2026-12-01T09:30:00.123Z`.
fn is_timestamp(v: &Json) -> bool {
    let Some(t) = v.as_str() else { return false };
    let b = t.as_bytes();
    t.len() == 24
        && b[4] == b'-'
        && b[10] == b'T'
        && b[19] == b'.'
        && t.ends_with('Z')
        && t.starts_with("20")
}

// ------------------------------------------------------------ output schema

#[test]
fn eval_checks_the_result_against_the_output_schema() {
    let schema = order_schema();
    let o = run(&["eval", "{id: 7, total: 120}", "--output-schema", &schema]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"id\":7,\"total\":120}\n");
    // Not conforming: status 1, the pointer and the reason, nothing on stdout.
    let o = run(&["eval", "{id: 7, total: 'x'}", "--output-schema", &schema]);
    assert_fails(
        &o,
        1,
        "error: result does not match the output schema at /total: \"x\" is not of type \"number\"",
    );
    assert_eq!(stdout(&o), "");
    let o = run(&["eval", "{id: 1.5, total: 50}", "--output-schema", &schema]);
    assert_fails(&o, 1, "at /id: 1.5 is not of type \"integer\"");
    let o = run(&["eval", "[1]", "--output-schema", &schema]);
    assert_fails(
        &o,
        1,
        "error: result does not match the output schema: [1] is not of type \"object\"",
    );
}

#[test]
fn an_invalid_or_missing_schema_is_a_usage_error_before_anything_runs() {
    let bad = temp_file("bad-schema.json", br#"{"type": "numbr"}"#);
    let o = run(&["eval", "1", "--output-schema", &bad]);
    assert_fails(&o, 2, "bad-schema.json: invalid output schema at /type: ");
    assert_eq!(stdout(&o), "");
    let not_json = temp_file("not-json-schema.json", b"{\"type\": ");
    let o = run(&["run", "a", "--output-schema", &not_json]);
    assert_fails(&o, 2, "invalid output schema: not JSON");
    let remote = temp_file(
        "remote-schema.json",
        br#"{"$ref": "https://example.invalid/s.json"}"#,
    );
    let o = run_with(
        &["batch", "--output-schema", &remote],
        b"{\"expression\": \"1\"}\n",
    );
    assert_fails(&o, 2, "invalid output schema");
    assert_eq!(stdout(&o), "");
    let o = run(&["eval", "1", "--output-schema", "/nonexistent/schema.json"]);
    assert_fails(&o, 2, "cannot read /nonexistent/schema.json");
}

const ORDERS_EXPR: &str = "{id: id, total: total}";

/// Orders whose total is below the schema's minimum of 100, by line.
fn small_orders() -> Vec<usize> {
    std::fs::read_to_string(orders())
        .expect("orders")
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let r: Json = serde_json::from_str(l).expect("order");
            r["total"].as_f64().expect("total") < 100.0
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn run_handles_a_non_conforming_result_per_on_error() {
    let schema = order_schema();
    let small = small_orders();
    assert!(!small.is_empty() && small.len() < 50, "{small:?}");
    let first = small[0];
    // fail: the results before it, then the error naming its line, status 1.
    let o = run(&["run", ORDERS_EXPR, &orders(), "--output-schema", &schema]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(lines(&o).len(), first - 1);
    assert_stderr_has(
        &o,
        &format!("orders.ndjson:{first}: result does not match the output schema at /total: "),
    );
    assert_stderr_has(&o, "is less than the minimum of 100");
    // skip: counted and reported, nothing written in its place.
    let o = run(&[
        "run",
        ORDERS_EXPR,
        &orders(),
        "--output-schema",
        &schema,
        "--on-error",
        "skip",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(lines(&o).len(), 50 - small.len());
    assert_stderr_has(
        &o,
        &format!("warning: {}:{first}: result does not match", orders()),
    );
    assert_stderr_has(
        &o,
        &format!(
            "50 records in, {} out, {} errors",
            50 - small.len(),
            small.len()
        ),
    );
    // null: null in its place, so line N answers record N.
    let o = run(&[
        "run",
        ORDERS_EXPR,
        &orders(),
        "--output-schema",
        &schema,
        "--on-error",
        "null",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = lines(&o);
    assert_eq!(out.len(), 50);
    for (i, line) in out.iter().enumerate() {
        assert_eq!(
            line == "null",
            small.contains(&(i + 1)),
            "line {}: {line}",
            i + 1
        );
    }
    assert_stderr_has(
        &o,
        &format!("50 records in, 50 out, {} errors", small.len()),
    );
    // The same under several workers.
    let four = run(&[
        "run",
        ORDERS_EXPR,
        &orders(),
        "--output-schema",
        &schema,
        "--on-error",
        "null",
        "-j",
        "4",
    ]);
    assert_eq!(four.stdout, o.stdout);
}

#[test]
fn run_filter_checks_the_predicate_result() {
    let schema = temp_file("boolean-schema.json", br#"{"type": "boolean"}"#);
    let o = run(&[
        "run",
        "total > 900 ? true : null",
        &orders(),
        "--filter",
        "--output-schema",
        &schema,
        "--on-error",
        "skip",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let kept = lines(&o).len();
    assert!(kept > 0);
    assert_stderr_has(
        &o,
        "result does not match the output schema: null is not of type \"boolean\"",
    );
}

#[test]
fn batch_answers_a_non_conforming_result_with_a_schema_error() {
    let schema = temp_file(
        "batch-schema.json",
        br#"{"type": "array", "items": {"type": "string", "pattern": "^[A-Z]{3}$"}}"#,
    );
    let input = concat!(
        "{\"expression\": \"[a, b]\", \"context\": {\"a\": \"LHR\", \"b\": \"CDG\"}}\n",
        "{\"expression\": \"[a, b]\", \"context\": {\"a\": \"LHR\", \"b\": \"cdg\"}}\n",
        "{\"expression\": \"a\", \"context\": {\"a\": 1}}\n",
        "{\"expression\": \"1 +\"}\n",
    );
    let o = run_with(&["batch", "--output-schema", &schema], input.as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out: Vec<Json> = lines(&o)
        .iter()
        .map(|l| serde_json::from_str(l).expect("answer"))
        .collect();
    assert_eq!(out[0], json!({"ok": ["LHR", "CDG"]}));
    let message =
        "result does not match the output schema at /1: \"cdg\" does not match \"^[A-Z]{3}$\"";
    assert_eq!(out[1]["error"], message);
    assert_eq!(out[1]["kind"], "schema");
    assert_eq!(out[1]["message"], message);
    assert_eq!(out[1]["position"], Json::Null);
    assert_eq!(out[1]["span"], Json::Null);
    assert_eq!(
        out[2]["error"],
        "result does not match the output schema: 1 is not of type \"array\""
    );
    // Errors before the check are what they were.
    assert_eq!(out[3]["kind"], "parse");
}

// ---------------------------------------------------------------- audit log

#[test]
fn eval_logs_a_program_line_and_an_evaluation_line() {
    let log = log_path("eval-audit.ndjson");
    let expr = "items.filter(i => i.price > limit).map(i => i.name)";
    let context =
        r#"{"items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}], "limit": 50}"#;
    let o = run(&["eval", expr, "--context", context, "--audit", &log]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let (program, evaluation) = (&lines[0], &lines[1]);
    let hash = sha256_hex(expr);
    assert_eq!(program["kind"], "program");
    assert_eq!(program["hash"], hash);
    assert_eq!(program["command"], "eval");
    assert_eq!(program["expression"], expr);
    assert_eq!(program["fields"], json!(["items", "limit"]));
    assert!(is_timestamp(&program["time"]), "{program}");
    assert_eq!(evaluation["kind"], "evaluation");
    assert_eq!(evaluation["hash"], hash);
    assert_eq!(evaluation["result"], json!(["desk"]));
    assert!(
        evaluation["fuel"].as_u64().expect("fuel") > 10,
        "{evaluation}"
    );
    assert!(
        evaluation["memory_bytes"].as_u64().expect("memory") > 0,
        "{evaluation}"
    );
    assert!(evaluation["cpu_ns"].as_u64().is_some(), "{evaluation}");
    assert!(is_timestamp(&evaluation["time"]), "{evaluation}");
    assert!(evaluation.get("error").is_none());
    // Appended, never overwritten.
    let o = run(&[
        "eval",
        "1 + x / 0",
        "--context",
        "{\"x\": 1}",
        "--audit",
        &log,
    ]);
    assert_eq!(code(&o), 1);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[3]["error"],
        json!({"kind": "arithmetic", "message": "Division by zero", "position": 4})
    );
    assert!(lines[3].get("result").is_none());
    assert_eq!(lines[3]["hash"], sha256_hex("1 + x / 0"));
}

#[test]
fn eval_logs_schema_errors_and_compile_errors() {
    let log = log_path("eval-audit-errors.ndjson");
    let schema = order_schema();
    let o = run(&[
        "eval",
        "{id: 1, total: 5}",
        "--output-schema",
        &schema,
        "--audit",
        &log,
    ]);
    assert_eq!(code(&o), 1);
    let o = run(&["eval", "total >", "--audit", &log]);
    assert_eq!(code(&o), 1);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[1]["error"]["kind"], "schema");
    assert_eq!(
        lines[1]["error"]["message"],
        "result does not match the output schema at /total: 5 is less than the minimum of 100"
    );
    // Did not compile: the program line says why, and nothing was evaluated.
    assert_eq!(lines[2]["kind"], "program");
    assert_eq!(lines[2]["expression"], "total >");
    assert_eq!(lines[2]["error"]["kind"], "parse");
    assert!(lines[2].get("fields").is_none());
}

#[test]
fn run_logs_a_program_and_a_summary_line_and_records_on_request() {
    let log = log_path("run-audit.ndjson");
    let o = run(&["run", ORDERS_EXPR, &orders(), "--audit", &log, "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["kind"], "program");
    assert_eq!(lines[0]["fields"], json!(["id", "total"]));
    let summary = &lines[1];
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["hash"], sha256_hex(ORDERS_EXPR));
    assert_eq!(summary["records"], 50);
    assert_eq!(summary["outputs"], 50);
    assert_eq!(summary["errors"], 0);
    assert!(
        summary["fuel"].as_u64().expect("fuel") >= 50 * 3,
        "{summary}"
    );
    assert!(
        summary["memory_bytes"].as_u64().expect("memory") > 0,
        "{summary}"
    );
    assert!(summary["cpu_ns"].as_u64().is_some() && summary["seconds"].is_number());

    let log = log_path("run-audit-records.ndjson");
    let o = run(&[
        "run",
        ORDERS_EXPR,
        &orders(),
        "--audit",
        &log,
        "--audit-records",
        "-q",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 52);
    let out = common::lines(&o);
    assert_eq!(lines[0]["kind"], "program");
    assert_eq!(lines[0]["hash"], sha256_hex(ORDERS_EXPR));
    for (i, line) in lines[1..51].iter().enumerate() {
        // Only what varies from record to record: the program line before
        // them has the hash, the text and the fields read.
        let mut keys: Vec<&str> = line
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["cpu_ns", "fuel", "memory_bytes", "record", "result"],
            "{line}"
        );
        assert_eq!(line["record"], i + 1);
        let written: Json = serde_json::from_str(&out[i]).expect("output");
        assert_eq!(line["result"], written, "record {}", i + 1);
        assert!(line["fuel"].as_u64().expect("fuel") > 0);
        assert!(line["memory_bytes"].as_u64().expect("memory") > 0, "{line}");
        assert!(line["cpu_ns"].is_u64(), "{line}");
    }
    let fuel: u64 = lines[1..51].iter().filter_map(|l| l["fuel"].as_u64()).sum();
    assert_eq!(lines[51]["fuel"], fuel);
}

#[test]
fn run_logs_failing_records_with_their_error() {
    let log = log_path("run-audit-failures.ndjson");
    let input = "{\"a\": 1}\n{\"a\": 0}\nnot json\n{\"a\": \"x\"}\n";
    let schema = temp_file("number-schema.json", br#"{"type": "number"}"#);
    let o = run_with(
        &[
            "run",
            "10 / a",
            "--on-error",
            "skip",
            "--audit",
            &log,
            "--audit-records",
            "--output-schema",
            &schema,
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[1]["result"], 10);
    assert_eq!(lines[2]["error"]["kind"], "arithmetic");
    assert_eq!(lines[3]["record"], 3);
    assert_eq!(lines[3]["error"]["kind"], "input");
    assert!(
        lines[3]["error"]["message"]
            .as_str()
            .expect("message")
            .starts_with("invalid JSON"),
        "{}",
        lines[3]
    );
    assert_eq!(lines[3]["fuel"], 0);
    // "10" / "x" is a type error before any schema check.
    assert_eq!(lines[4]["error"]["kind"], "type");
    assert_eq!(lines[5]["kind"], "summary");
    assert_eq!(lines[5]["errors"], 3);
    assert_eq!(lines[5]["outputs"], 1);
    // --on-error fail: the failing record is logged, then the summary.
    let log = log_path("run-audit-fail.ndjson");
    let o = run_with(
        &["run", "10 / a", "--audit", &log, "--audit-records"],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 1);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["kind"], "program");
    assert_eq!(
        (lines[1]["record"].as_u64(), lines[2]["record"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(lines[3]["kind"], "summary");
    assert_eq!(lines[2]["error"]["kind"], "arithmetic");
    assert_eq!(lines[3]["records"], 2);
    assert_eq!(lines[3]["errors"], 1);
}

#[test]
fn run_with_jobs_logs_every_record_exactly_once() {
    let records = 10_000;
    let input: String = (0..records)
        .map(|i| format!("{{\"i\": {i}, \"s\": \"r{}\"}}\n", i % 97))
        .collect();
    let log = log_path("run-audit-jobs.ndjson");
    let expr = "i % 5 == 0 ? s.upper() : i * 2";
    let o = run_with(
        &[
            "run",
            expr,
            "--jobs",
            "4",
            "--audit",
            &log,
            "--audit-records",
            "-q",
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = lines(&o);
    assert_eq!(out.len(), records);
    let lines = audit_lines(&log);
    let programs: Vec<&Json> = lines.iter().filter(|l| l["kind"] == "program").collect();
    let summaries: Vec<&Json> = lines.iter().filter(|l| l["kind"] == "summary").collect();
    assert_eq!(programs.len(), 1);
    assert_eq!(summaries.len(), 1);
    assert_eq!(lines[0]["kind"], "program");
    assert_eq!(summaries[0]["records"], records);
    let mut seen = BTreeSet::new();
    for line in lines.iter().filter(|l| l.get("record").is_some()) {
        let n = line["record"].as_u64().expect("record number");
        assert!(seen.insert(n), "record {n} logged twice");
        let i = n as usize - 1;
        let written: Json = serde_json::from_str(&out[i]).expect("output");
        assert_eq!(line["result"], written, "record {n}");
    }
    assert_eq!(seen.len(), records);
    assert_eq!(seen.first(), Some(&1));
    assert_eq!(seen.last(), Some(&(records as u64)));
}

#[test]
fn run_filter_logs_every_record_with_its_predicate_value() {
    // A filter's result is the predicate's value, logged for the records
    // it drops too; numbers up to a new digit (9 -> 10, 99 -> 100) and
    // every kind of scalar result are written right.
    let input: String = (0..120).map(|i| format!("{{\"n\": {i}}}\n")).collect();
    let log = log_path("run-audit-filter.ndjson");
    let o = run_with(
        &[
            "run",
            "--filter",
            "n % 3 == 0",
            "--audit",
            &log,
            "--audit-records",
            "-q",
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(lines(&o).len(), 40);
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 122);
    for (i, line) in lines[1..121].iter().enumerate() {
        assert_eq!(line["record"], i + 1, "{line}");
        assert_eq!(line["result"], json!(i % 3 == 0), "{line}");
    }
    let log = log_path("run-audit-scalars.ndjson");
    let o = run_with(
        &[
            "run",
            "n == 0 ? null : n / 4",
            "--audit",
            &log,
            "--audit-records",
            "-q",
        ],
        b"{\"n\": 0}\n{\"n\": 2}\n{\"n\": 40000000000}\n",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let results: Vec<Json> = audit_lines(&log)[1..4]
        .iter()
        .map(|l| l["result"].clone())
        .collect();
    assert_eq!(results, [json!(null), json!(0.5), json!(10_000_000_000u64)]);
}

#[test]
fn run_record_lines_write_every_kind_of_result_as_the_output_does() {
    // Each kind of result has its own way into a record line (booleans and
    // null built whole, numbers formatted, other values copied from the
    // output): the text after `"result":` is the output line's, byte for
    // byte, and every line is valid JSON with every field.
    let values = [
        "true",
        "false",
        "null",
        "0",
        "-0.0",
        "-7",
        "42",
        "0.1",
        "-2.5e-7",
        "1e300",
        "123456789012345678",
        r#""plain""#,
        r#""quote \" backslash \\ newline \n tab \t bell \u0007 é 😀""#,
        "[]",
        r#"[1, "two", [null, false], {"k": 3.5}]"#,
        r#"{"a": {"b": [true]}, "c": "\u00e9\""}"#,
    ];
    let input: String = values.iter().map(|v| format!("{{\"v\": {v}}}\n")).collect();
    let input = format!("{input}not json\n{{\"v\": \"s\"}}\n");
    let log = log_path("run-audit-kinds.ndjson");
    let o = run_with(
        &[
            "run",
            "type(v) == 'string' && v == 's' ? v.nope() : v",
            "--on-error",
            "skip",
            "--audit",
            &log,
            "--audit-records",
            "-q",
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = common::lines(&o);
    assert_eq!(out.len(), values.len());
    let text = std::fs::read_to_string(&log).expect("audit log");
    let raw: Vec<&str> = text.lines().collect();
    let parsed = audit_lines(&log);
    assert_eq!(parsed.len(), values.len() + 4, "{text}");
    for (i, written) in out.iter().enumerate() {
        let line = &parsed[i + 1];
        assert_eq!(line["record"], i + 1, "{line}");
        let needle = format!("\"result\":{written},\"fuel\":");
        assert!(raw[i + 1].contains(&needle), "{} vs {written}", raw[i + 1]);
        let expected: Json = serde_json::from_str(written).expect("output");
        assert_eq!(line["result"], expected, "{line}");
        for key in ["fuel", "memory_bytes", "cpu_ns"] {
            assert!(line[key].is_u64(), "{key}: {line}");
        }
    }
    // -0 is written as the output writes it; 1e300 and 0.1 round-trip.
    assert_eq!(out[4], "0");
    assert_eq!(parsed[10]["result"].as_f64(), Some(1e300));
    // The two failures: an input error and an evaluation error, each
    // with its kind, message and position, fuel and time.
    let bad = &parsed[values.len() + 1];
    assert_eq!(bad["record"], values.len() + 1);
    assert_eq!(bad["error"]["kind"], "input", "{bad}");
    assert_eq!(bad["error"]["position"], Json::Null, "{bad}");
    assert_eq!(bad["fuel"], 0);
    let failed = &parsed[values.len() + 2];
    assert_eq!(failed["record"], values.len() + 2);
    assert!(failed["error"]["kind"].is_string(), "{failed}");
    assert!(failed["error"]["message"].is_string(), "{failed}");
    assert!(failed["error"]["position"].is_u64(), "{failed}");
    assert!(failed["fuel"].as_u64().expect("fuel") > 0, "{failed}");
    assert!(failed["cpu_ns"].is_u64(), "{failed}");
    assert_eq!(parsed[values.len() + 3]["kind"], "summary");
}

#[test]
fn run_logs_a_result_too_large_to_hold_whole() {
    // Each result is handed on in pieces (beyond 4 MiB): the audit line is
    // written again from the value, and still whole.
    let log = log_path("run-audit-large.ndjson");
    let o = run_with(
        &[
            "run",
            "'x'.repeat(n)",
            "--max-memory",
            "none",
            "--audit",
            &log,
            "--audit-records",
            "-q",
        ],
        b"{\"n\": 5000000}\n{\"n\": 3}\n",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1]["result"].as_str().map(str::len), Some(5_000_000));
    assert_eq!(lines[2]["result"], "xxx");
}

#[test]
fn batch_logs_each_program_once_and_every_request() {
    let log = log_path("batch-audit.ndjson");
    let input = concat!(
        "{\"expression\": \"a + 1\", \"context\": {\"a\": 1}}\n",
        "{\"expression\": \"a + 1\", \"context\": {\"a\": 2}}\n",
        "not a request\n",
        "{\"expression\": \"b\", \"context\": {}}\n",
    );
    let o = run_with(&["batch", "--audit", &log], input.as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = audit_lines(&log);
    let kinds: Vec<&str> = lines.iter().filter_map(|l| l["kind"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "program",
            "evaluation",
            "evaluation",
            "evaluation",
            "program",
            "evaluation"
        ]
    );
    assert_eq!(lines[0]["fields"], json!(["a"]));
    assert_eq!(lines[1]["line"], 1);
    assert_eq!(lines[1]["result"], 2);
    assert_eq!(lines[2]["line"], 2);
    assert_eq!(lines[2]["result"], 3);
    assert_eq!(lines[2]["hash"], sha256_hex("a + 1"));
    assert_eq!(lines[3]["line"], 3);
    assert_eq!(lines[3]["error"]["kind"], "input");
    assert!(lines[3].get("hash").is_none());
    assert_eq!(lines[5]["error"]["kind"], "reference");
}

#[test]
fn audit_flags_are_checked() {
    let o = run(&["run", "a", "--audit-records"]);
    assert_fails(&o, 2, "--audit");
    let o = run(&["eval", "1", "--audit", "/nonexistent/dir/audit.log"]);
    assert_fails(
        &o,
        2,
        "cannot open the audit log /nonexistent/dir/audit.log",
    );
    assert_eq!(stdout(&o), "");
}
