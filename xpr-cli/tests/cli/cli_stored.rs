//! Stored programs on the command line: `xpr compile -o`, then
//! `run --program` and `eval --program` give what the expression gives.

use crate::common;

use common::{assert_fails, code, lines, orders, run, run_with, stdout, temp_file};

/// `xpr compile EXPR -o FILE` (extra flags after), the file's path.
fn compile(expr: &str, extra: &[&str]) -> String {
    let path = temp_file("rule.xprc", b"");
    let mut args = vec!["compile", expr, "-o", &path];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", common::stderr(&o));
    path
}

#[test]
fn run_and_eval_of_a_stored_program_give_what_the_expression_gives() {
    let expr = "total > 100 ? {id: id, status: status} : null";
    let path = compile(expr, &[]);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..4], b"XPRC");
    let stored = run(&["run", "--program", &path, &orders(), "-q"]);
    let direct = run(&["run", expr, &orders(), "-q"]);
    assert_eq!(code(&stored), 0, "{}", common::stderr(&stored));
    assert_eq!(stdout(&stored), stdout(&direct));
    assert!(lines(&stored).len() > 10);
    // Records on standard input, several workers.
    let input = std::fs::read(orders()).unwrap();
    let piped = run_with(&["run", "--program", &path, "-q", "-j", "3"], &input);
    assert_eq!(stdout(&piped), stdout(&direct));
    let o = run(&[
        "eval",
        "--program",
        &path,
        "-c",
        r#"{"total": 150, "id": 7, "status": "paid"}"#,
    ]);
    assert_eq!(stdout(&o), "{\"id\":7,\"status\":\"paid\"}\n");
}

#[test]
fn the_loading_commands_flags_apply() {
    // --deny on the loading side refuses a stored program that uses it.
    let path = compile("string(now())", &[]);
    assert_fails(
        &run(&["eval", "--program", &path, "--deny", "now"]),
        1,
        "Access denied: function 'now' is not allowed",
    );
    // The budgets are the loading command's.
    let path = compile("range(0, 1000).map(x => x * 2).length", &[]);
    assert_fails(
        &run(&["eval", "--program", &path, "--fuel", "50"]),
        1,
        "fuel",
    );
    // --expect is checked when loading.
    assert_fails(
        &run(&["eval", "--program", &path, "--expect", "boolean"]),
        1,
        "expected boolean",
    );
    // An error at run time is shown under the stored source.
    let path = compile("o.c > 10", &[]);
    assert_fails(
        &run(&["eval", "--program", &path, "-c", r#"{"o": {}}"#]),
        1,
        "`(o.c ?? 0) > 10`",
    );
}

#[test]
fn bad_program_files_and_usage_are_refused_clearly() {
    let path = compile("1 + 2", &[]);
    let mut bytes = std::fs::read(&path).unwrap();
    assert_fails(
        &run(&["eval", "1", "--program", &path]),
        2,
        "give an expression or --program FILE, not both",
    );
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let bad = temp_file("bad.xprc", &bytes);
    assert_fails(
        &run(&["eval", "--program", &bad]),
        2,
        "invalid stored program: checksum mismatch",
    );
    bytes[4] = 9;
    let other = temp_file("v9.xprc", &bytes);
    assert_fails(
        &run(&["run", "--program", &other]),
        2,
        "format version 9, but this build of xpr reads version 1",
    );
    let text = temp_file("text.xprc", b"1 + 2");
    assert_fails(&run(&["eval", "--program", &text]), 2, "no XPRC header");
    assert_fails(
        &run(&["eval", "--program", "/nonexistent/x.xprc"]),
        2,
        "cannot read",
    );
    assert_fails(
        &run(&["run", "--program", &path, "--agg", "n: count()"]),
        2,
        "cannot be used with",
    );
}
