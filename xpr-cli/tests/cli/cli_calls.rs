//! The `xpr` tool and calls of unknown functions: `check` reports them as
//! errors, `run` and `eval` warn and evaluate (a record fails only where
//! the call is reached), `batch` answers each request as the library does;
//! and a record field named like a called function is what the call calls.

use crate::common;

use common::{code, run_with, stderr, stdout};
use serde_json::{Value as Json, json};

const RECORDS: &[u8] =
    b"{\"a\":1,\"b\":2,\"c\":3}\n{\"a\":3,\"b\":2,\"c\":3}\n{\"a\":0,\"b\":5,\"c\":1}\n";

#[test]
fn check_reports_an_unknown_function_as_an_error() {
    let o = run_with(&["check", "a > b ? bonus(c) : dateadd(c)"], b"");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "no `ok`");
    assert_eq!(
        stderr(&o),
        "error: Unknown function 'bonus' at position 8\n  a > b ? bonus(c) : dateadd(c)\n          ^~~~~\n\
         error: Unknown function 'dateadd' (did you mean 'dateAdd'?) at position 19\n  a > b ? bonus(c) : dateadd(c)\n                     ^~~~~~~\n"
    );
    let o = run_with(&["check", "1 |> fitler()", "--json"], b"");
    assert_eq!(code(&o), 1);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["valid"], false);
    assert_eq!(v["error"]["kind"], "reference");
    assert_eq!(
        v["error"]["message"],
        "Unknown function 'fitler' (did you mean 'filter'?)"
    );
    assert_eq!(v["error"]["position"], 5);
    // Known functions, methods through a pipe, locals: fine.
    let o = run_with(
        &["check", "let f = x => x; f(round(a)) |> string |> upper"],
        b"",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn run_warns_once_before_the_records_and_fails_only_where_the_call_is_reached() {
    let o = run_with(
        &["run", "a > b ? bonus(c) : 0", "--on-error", "null"],
        RECORDS,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "0\nnull\n0\n");
    let err = stderr(&o);
    let first = err.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "warning: Unknown function 'bonus' at position 8 (evaluations that reach this call fail)"
    );
    assert_eq!(err.matches("warning: Unknown function").count(), 1, "{err}");
    assert!(
        err.contains("<stdin>:2: Unknown function 'bonus' at position 8"),
        "{err}"
    );
    // With the default --on-error fail, the records before it are written.
    let o = run_with(&["run", "a > b ? bonus(c) : 0", "-q"], RECORDS);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "0\n");
    let err = stderr(&o);
    assert!(
        err.starts_with("warning: Unknown function 'bonus'"),
        "{err}"
    );
    // Never reached: every record is answered, the warning still given.
    let o = run_with(&["run", "a > 5 && bonus(c)", "-qq"], RECORDS);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "false\nfalse\nfalse\n");
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn a_record_field_named_like_a_called_function_leaves_the_call_alone() {
    // Events with a `type` field: `type(...)` is still the built-in, and
    // `type` in value position is the field.
    let input = b"{\"type\":\"click\",\"payload\":{\"x\":1}}\n{\"type\":\"key\",\"payload\":\"k\"}\n{\"payload\":null}\n";
    let o = run_with(
        &[
            "run",
            "type(payload) == \"object\" ? type : type(payload)",
            "-qq",
        ],
        input,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "\"click\"\n\"string\"\n\"null\"\n");
    assert_eq!(stderr(&o), "");
    let input = b"{\"max\":3,\"a\":1}\n{\"a\":4}\n";
    let o = run_with(&["run", "[max(a, 2), type(max)]", "-q"], input);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "[2,\"number\"]\n[4,\"function\"]\n");
    // `check` has nothing to warn about a field named like a called function.
    let o = run_with(
        &["check", "max(a, 2)", "--fields", "max,a", "--deny-warnings"],
        b"",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let o = run_with(&["check", "max(a, 2)", "--fields", "max,a", "--json"], b"");
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["warnings"], json!([]));
    assert_eq!(v["free_variables"], json!(["a"]));
}

#[test]
fn eval_warns_only_when_the_value_stands() {
    let o = run_with(&["eval", "false && nope(1)"], b"");
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "false\n");
    assert_eq!(
        stderr(&o),
        "warning: Unknown function 'nope' at position 9 (evaluations that reach this call fail)\n"
    );
    let o = run_with(&["eval", "nope(1)"], b"");
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "error: Unknown function 'nope' at position 0\n  nope(1)\n  ^~~~~~~\n"
    );
    let o = run_with(&["eval", "none?.(1)", "--context", "{\"none\": null}"], b"");
    assert_eq!(stdout(&o), "null\n");
    let o = run_with(&["eval", "none(1)", "--context", "{\"none\": null}"], b"");
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains(
            "Type error: Cannot call non-function 'none': null is not callable at position 0"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn batch_answers_each_request_as_the_library_does() {
    let input = concat!(
        "{\"expression\": \"[false && nope(1), true || nope(2), 1 ?? nope(3)]\"}\n",
        "{\"expression\": \"nope(1)\"}\n",
        "{\"expression\": \"max(1, 2)\", \"context\": {\"max\": 3}}\n",
    );
    let o = run_with(&["batch"], input.as_bytes());
    assert_eq!(code(&o), 0);
    assert_eq!(stderr(&o), "", "no warnings: each answer says all");
    let out: Vec<Json> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(out[0], json!({"ok": [false, true, 1]}));
    assert_eq!(
        out[1],
        json!({
            "error": "Unknown function 'nope' at position 0",
            "kind": "reference",
            "message": "Unknown function 'nope'",
            "text": "Unknown function 'nope' at position 0",
            "position": 0,
            "span": {"start": 0, "end": 7},
            "expected": [],
            "hint": null,
            "severity": "error"
        })
    );
    assert_eq!(out[2], json!({"ok": 2}));
}
