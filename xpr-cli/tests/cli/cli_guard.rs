//! The guardrails of issue 14 on the command line: `check --json` whose
//! `valid` agrees with the exit status, `batch` error lines carrying the
//! whole diagnostic, and `--allow`, `--deny`, `--expect` on `eval`, `run`,
//! `batch` and `check`.

use crate::common;

use common::{code, lines, run, run_with, stderr, stdout};
use serde_json::{Value as Json, json};

fn parse(line: &str) -> Json {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn check_json_says_valid_exactly_when_the_status_is_zero() {
    let cases: &[&[&str]] = &[
        &["check", "total > 1", "--json"],
        &["check", "total >", "--json"],
        &["check", "bonus(total)", "--json"],
        &["check", "totl > 1", "--fields", "total", "--json"],
        &[
            "check",
            "totl > 1",
            "--fields",
            "total",
            "--json",
            "--deny-warnings",
        ],
        &[
            "check",
            "total > 1",
            "--fields",
            "total",
            "--json",
            "--deny-warnings",
        ],
        &["check", "items.filtr(x => x)", "--json", "--deny-warnings"],
        &["check", "total * 2", "--json", "--expect", "boolean"],
        &["check", "total", "--json", "--expect", "boolean"],
        &["check", "now() > 1", "--json", "--deny", "now"],
        &["check", "abs(x)", "--json", "--allow", "abs"],
    ];
    let mut statuses = Vec::new();
    for args in cases {
        let o = run(args);
        let v = parse(stdout(&o).trim_end());
        let status = code(&o);
        assert_eq!(v["valid"], json!(status == 0), "{args:?}: {v}");
        // An invalid report names its first error, which is an error.
        if status != 0 {
            assert_eq!(v["error"]["severity"], "error", "{args:?}: {v}");
        } else {
            assert!(v.get("error").is_none(), "{args:?}: {v}");
        }
        statuses.push(status);
    }
    assert_eq!(statuses, [0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0]);
}

#[test]
fn check_json_lists_every_error_and_the_warnings_in_the_diagnostic_shape() {
    let o = run(&["check", "bonus(1) + dateadd(2)", "--json"]);
    let v = parse(stdout(&o).trim_end());
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["error"], v["errors"][0]);
    assert_eq!(v["errors"][1]["span"], json!({"start": 11, "end": 18}));

    let o = run(&["check", "totl > 1", "--fields", "total", "--json"]);
    let v = parse(stdout(&o).trim_end());
    let w = &v["warnings"][0];
    assert_eq!(w["kind"], "unknown_field");
    assert_eq!(w["severity"], "warning");
    assert_eq!(w["hint"], "did you mean 'total'?");
    assert_eq!(w["span"], json!({"start": 0, "end": 4}));
    // The fields it had before.
    assert_eq!(w["name"], "totl");
    assert_eq!(w["suggestion"], "total");
    assert_eq!(
        w["message"],
        "'totl' is not a field of the records (did you mean 'total'?)"
    );
}

#[test]
fn batch_error_lines_carry_span_expected_tokens_and_hint() {
    let input = concat!(
        "{\"expression\": \"total >\"}\n",
        "{\"expression\": \"x.upper()\", \"context\": {\"x\": 1}}\n",
        "{\"expression\": \"x\", \"context\": {\"x\": 1}}\n",
        "not json\n",
    );
    let o = run_with(&["batch", "--expect", "string"], input.as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out: Vec<Json> = lines(&o).iter().map(|l| parse(l)).collect();
    let parse_error = &out[0];
    // The fields it always had.
    assert_eq!(
        parse_error["error"],
        "Unexpected end of expression at position 7"
    );
    assert_eq!(parse_error["kind"], "parse");
    assert_eq!(parse_error["position"], 7);
    // And the diagnostic's.
    assert_eq!(parse_error["text"], parse_error["error"]);
    assert_eq!(parse_error["message"], "Unexpected end of expression");
    assert_eq!(parse_error["span"], json!({"start": 7, "end": 7}));
    assert!(
        parse_error["expected"]
            .as_array()
            .is_some_and(|a| a.contains(&json!("identifier"))),
        "{parse_error}"
    );
    assert_eq!(parse_error["hint"], json!(null));
    assert_eq!(parse_error["severity"], "error");
    assert_eq!(out[1]["kind"], "type");
    assert_eq!(out[1]["span"], json!({"start": 2, "end": 9}));
    assert_eq!(out[1]["expected"], json!([]));
    assert_eq!(out[2]["kind"], "type");
    assert_eq!(
        out[2]["hint"],
        "convert it with string(x), or write a template such as `${x}`"
    );
    assert_eq!(out[3]["kind"], "input");
    assert_eq!(out[3]["span"], json!(null));
}

#[test]
fn allow_and_deny_apply_on_every_subcommand() {
    let o = run(&["eval", "round(2.5) + abs(-1)", "--allow", "round,abs"]);
    assert_eq!(
        (code(&o), stdout(&o).as_str()),
        (0, "4\n"),
        "{}",
        stderr(&o)
    );
    let o = run(&["eval", "round(2.5) + abs(-1)", "--allow", "round"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stderr(&o),
        "error: Access denied: function 'abs' is not allowed (allowed: round) at position 13\n  \
         round(2.5) + abs(-1)\n               ^~~\n"
    );
    let o = run(&["eval", "now() > 0", "--deny", "now,random"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("(every function and method except now, random)"),
        "{}",
        stderr(&o)
    );

    let records = b"{\"name\":\"ada\"}\n{\"name\":\"bob\"}\n";
    let o = run_with(&["run", "name.upper()", "--allow", "upper", "-q"], records);
    assert_eq!(stdout(&o), "\"ADA\"\n\"BOB\"\n");
    let o = run_with(&["run", "name.lower()", "--allow", "upper", "-q"], records);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "", "refused before the first record");
    assert!(stderr(&o).contains("method 'lower' is not allowed"));

    let o = run_with(
        &["batch", "--deny", "random"],
        b"{\"expression\": \"random()\"}\n{\"expression\": \"1 + 1\"}\n",
    );
    let out: Vec<Json> = lines(&o).iter().map(|l| parse(l)).collect();
    assert_eq!(out[0]["kind"], "access");
    assert_eq!(out[0]["hint"], "every function and method except random");
    assert_eq!(out[1], json!({"ok": 2}));

    let o = run(&["card", "--allow", "filter,map", "--json"]);
    let card = parse(stdout(&o).trim_end());
    let names: Vec<&str> = card["builtins"]
        .as_array()
        .map(|b| b.iter().filter_map(|e| e["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["map", "filter"]);
    let o = run(&["card", "--deny", "upper"]);
    assert!(!stdout(&o).contains("s.upper()") && stdout(&o).contains("s.lower()"));

    let o = run(&["check", "items.map(x => x.price)", "--allow", "filter"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).starts_with("error: Access denied: method 'map' is not allowed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn expect_is_checked_before_the_first_record_when_the_form_shows_the_type() {
    let records = b"{\"total\":600,\"coupon\":\"A\"}\n{\"total\":5,\"coupon\":null}\n";
    let o = run_with(
        &["run", "total * 2", "--filter", "--expect", "boolean", "-q"],
        records,
    );
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "error: Type error: expected boolean, but this expression yields a number \
         (write a comparison such as 'x > 0') at position 0\n  total * 2\n  ^~~~~~~~~\n"
    );
    let o = run_with(
        &[
            "run",
            "total > 100",
            "--filter",
            "--expect",
            "boolean",
            "-q",
        ],
        records,
    );
    assert_eq!(stdout(&o), "{\"total\":600,\"coupon\":\"A\"}\n");
    // Known only from the data: each result, handled by --on-error.
    let o = run_with(
        &["run", "coupon", "--expect", "string", "--on-error", "null"],
        records,
    );
    assert_eq!(stdout(&o), "\"A\"\nnull\n");
    assert!(
        stderr(&o).contains("<stdin>:2: Type error: expected string, but the result is null"),
        "{}",
        stderr(&o)
    );
    // --filter alone keeps truthiness.
    let o = run_with(&["run", "coupon", "--filter", "-q"], records);
    assert_eq!(stdout(&o), "{\"total\":600,\"coupon\":\"A\"}\n");

    let o = run(&["eval", "`${n}`", "--expect", "number"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("(convert it with float(s) or int(s))"),
        "{}",
        stderr(&o)
    );
    let o = run(&["eval", "[1, 2]", "--expect", "array"]);
    assert_eq!(stdout(&o), "[1,2]\n");
    let o = run(&["eval", "1", "--expect", "bool"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("one of null, boolean, number"),
        "{}",
        stderr(&o)
    );
}
