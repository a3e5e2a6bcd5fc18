//! Integration tests of the `xpr` binary: `eval` and the flags every
//! subcommand takes, `batch`, `check` and `disasm`, every exit status
//! (`xpr run` has its own file, `cli_run.rs`).

use crate::common;

use std::io::Write as _;

use common::{
    assert_stderr_has, code, lines, orders, run, run_with, spawn, stderr, stdout, temp_file,
};
use serde_json::{Value as Json, json};

// ---------------------------------------------------------------- eval

#[test]
fn eval_prints_json_and_reads_context() {
    let o = run(&["eval", "[1, 2, 3].map(x => x * 2)"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "[2,4,6]\n");

    let o = run(&[
        "eval",
        "user.name.upper() + \"!\"",
        "--context",
        r#"{"user": {"name": "ada"}}"#,
    ]);
    assert_eq!(stdout(&o), "\"ADA!\"\n");

    let file = temp_file("ctx.json", br#"{"a": 0.1, "b": 0.2, "s": "tab\there"}"#);
    let o = run(&["eval", "{sum: a + b, s: s}", "--context-file", &file]);
    assert_eq!(
        stdout(&o),
        "{\"sum\":0.30000000000000004,\"s\":\"tab\\there\"}\n"
    );

    let o = run_with(&["eval", "x * 2", "--context-file", "-"], br#"{"x": 21}"#);
    assert_eq!(stdout(&o), "42\n");

    let o = run(&["eval", "{a: [1, {}]}", "--pretty"]);
    assert_eq!(stdout(&o), "{\n  \"a\": [\n    1,\n    {}\n  ]\n}\n");
}

#[test]
fn eval_values_without_json_form_are_tagged() {
    let o = run(&["eval", "/a+b/i"]);
    assert_eq!(stdout(&o), "{\"$xpr\":\"regex\",\"repr\":\"/a+b/i\"}\n");
    let o = run(&["eval", "x => x"]);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["$xpr"], "function");
}

#[test]
fn eval_expression_errors_exit_1_with_a_caret() {
    let o = run(&["eval", "1 + * 2"]);
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    let mut l = err.lines();
    let first = l.next().unwrap_or_default();
    assert!(
        first.starts_with("error: ") && first.ends_with(" at position 4"),
        "{err}"
    );
    assert_eq!(l.next(), Some("  1 + * 2"));
    assert_eq!(l.next().map(str::trim_end), Some("      ^"));

    let o = run(&["eval", "a / b", "--context", r#"{"a": 1, "b": 0}"#]);
    assert_eq!(code(&o), 1);
    assert_stderr_has(&o, "at position");
}

#[test]
fn eval_usage_and_input_errors_exit_2() {
    for args in [
        vec!["eval"],
        vec!["eval", "1", "--no-such-flag"],
        vec!["frobnicate"],
        vec!["eval", "1", "--context", "{\"a\": "],
        vec!["eval", "1", "--context", "[1, 2]"],
        vec!["eval", "1", "--context-file", "/no/such/file.json"],
        vec!["eval", "1", "--fuel", "lots"],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).is_empty(), "{args:?}");
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
    let o = run(&["eval", "1", "--context", "{\"a\": "]);
    assert_stderr_has(&o, "invalid JSON");
    let o = run(&["eval", "1", "--context-file", "/no/such/file.json"]);
    assert_stderr_has(&o, "/no/such/file.json");
    let file = temp_file("bad-utf8.json", b"{\"a\": \"\xff\"}");
    let o = run(&["eval", "a", "--context-file", &file]);
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, "invalid UTF-8");
}

#[test]
fn help_and_version_exit_0() {
    let o = run(&["--help"]);
    assert_eq!(code(&o), 0);
    for sub in ["eval", "run", "batch", "check", "disasm"] {
        assert!(stdout(&o).contains(sub), "help lists {sub}");
    }
    let o = run(&["run", "--help"]);
    assert!(stdout(&o).contains("--on-error"));
    assert!(stdout(&o).contains("--fuel"));
    assert_eq!(code(&run(&["--version"])), 0);
}

#[test]
fn limits_flags_apply_on_every_subcommand() {
    // Fuel.
    let o = run(&[
        "eval",
        "range(0, 5000).map(x => x * 2).length",
        "--fuel",
        "100",
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).to_lowercase().contains("fuel"), "{}", stderr(&o));
    // (Without time limits either: its time must not decide the outcome.)
    let o = run(&[
        "eval",
        "range(0, 5000).map(x => x * 2).length",
        "--fuel",
        "none",
        "--timeout-ms",
        "none",
    ]);
    assert_eq!(stdout(&o), "5000\n");
    // Memory.
    let o = run(&["eval", "\"x\".repeat(100000)", "--max-memory", "1000"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).to_lowercase().contains("memory"),
        "{}",
        stderr(&o)
    );
    // Length and depth of the source.
    let o = run(&["check", "1 + 2 + 3 + 4", "--max-length", "5"]);
    assert_eq!(code(&o), 1);
    let o = run(&["disasm", "((((((1))))))+[[[[[[1]]]]]]", "--max-depth", "3"]);
    assert_eq!(code(&o), 1);
    // Timeout: an expression that would take far longer than 1 ms of CPU
    // unbounded (no wall-clock ceiling: a starved process reaches that first).
    let o = run(&[
        "eval",
        "range(0, 3000).map(i => range(0, 3000).filter(j => j == i).length).length",
        "--timeout-ms",
        "1",
        "--wall-timeout-ms",
        "none",
        "--fuel",
        "none",
    ]);
    assert_eq!(code(&o), 1);
    assert_stderr_has(&o, "Expression timeout exceeded at position");
    // The wall-clock ceiling, its own flag and words: wall time passes at
    // least as fast as CPU time, so it is reached first.
    let o = run(&[
        "eval",
        "range(0, 3000).map(i => range(0, 3000).filter(j => j == i).length).length",
        "--wall-timeout-ms",
        "1",
        "--fuel",
        "none",
    ]);
    assert_eq!(code(&o), 1);
    assert_stderr_has(
        &o,
        "Expression timeout exceeded: wall-clock ceiling of 1 ms at position",
    );
    // The same flags on run and batch.
    let o = run_with(&["run", "range(0, 1000).length", "--fuel", "10"], b"{}\n");
    assert_eq!(code(&o), 1);
    let o = run_with(
        &["batch", "--fuel", "10"],
        b"{\"expression\": \"range(0, 1000).length\"}\n",
    );
    let v: Json = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["kind"], "fuel", "{v}");
}

#[test]
fn seed_makes_random_reproducible() {
    let a = run(&["eval", "random()", "--seed", "42"]);
    let b = run(&["eval", "random()", "--seed", "42"]);
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    // In run: a fresh seed per record unless --seed fixes it.
    let input = b"{}\n{}\n{}\n{}\n";
    let fresh = lines(&run_with(&["run", "random()", "-q"], input));
    assert_eq!(fresh.len(), 4);
    assert!(fresh.windows(2).all(|w| w[0] != w[1]), "{fresh:?}");
    let fixed = run_with(&["run", "random()", "-q", "--seed", "7"], input);
    assert_eq!(
        fixed.stdout,
        run_with(&["run", "random()", "-q", "--seed", "7"], input).stdout
    );
}

// ---------------------------------------------------------------- batch

#[test]
fn batch_answers_every_line_in_order() {
    let input = [
        r#"{"expression": "a + 1", "context": {"a": 2}}"#,
        r#"{"expression": "1 +"}"#,
        "not json",
        r#"{"expression": "/x+/m"}"#,
        "",
        r#"{"expression": "a + 1", "context": {"a": 40}, "id": 7}"#,
        r#"{"expression": "nope"}"#,
        r#"{"expression": "[null, true, \"s\"]", "context": null}"#,
    ]
    .join("\n");
    let mut input = input.into_bytes();
    input.extend_from_slice(b"\n{\"expression\": \"\xff\"}");
    let o = run_with(&["batch"], &input);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out: Vec<Json> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each answer is JSON"))
        .collect();
    assert_eq!(out.len(), 9);
    assert_eq!(out[0], json!({"ok": 3}));
    assert_eq!(out[1]["kind"], "parse");
    assert_eq!(out[1]["position"], 3);
    let message = out[1]["error"].as_str().unwrap_or_default();
    assert!(message.ends_with(" at position 3"), "{message}");
    assert_eq!(out[2]["kind"], "input");
    assert!(
        out[2]["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("line 3: invalid JSON")
    );
    assert_eq!(out[2]["position"], Json::Null);
    assert_eq!(out[3], json!({"ok": {"$xpr": "regex", "repr": "/x+/m"}}));
    assert_eq!(out[4]["kind"], "input");
    assert_eq!(out[5], json!({"ok": 41}));
    assert_eq!(out[6]["kind"], "reference");
    assert_eq!(out[7], json!({"ok": [null, true, "s"]}));
    assert!(
        out[8]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("line 9: invalid UTF-8")
    );
}

#[test]
fn batch_flushes_each_answer() {
    let mut child = spawn(&["batch", "--cache", "2"]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    // Ask, then read the answer while stdin is still open: the answer must
    // arrive without waiting for more input.
    for (i, expr) in ["1 + 1", "\"a\".upper()", "1 + 1", "[1, 2].sum()", "1 + 1"]
        .iter()
        .enumerate()
    {
        writeln!(stdin, "{}", json!({"expression": expr})).expect("write");
        stdin.flush().expect("flush");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut reader, &mut line).expect("read answer");
        let v: Json = serde_json::from_str(&line).expect("JSON");
        assert!(v.get("ok").is_some(), "answer {i}: {line}");
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success());
}

#[test]
fn batch_with_no_cache_gives_the_same_answers() {
    let input: String = (0..50)
        .map(|i| {
            format!(
                "{}\n",
                json!({"expression": format!("x * {}", i % 5), "context": {"x": i}})
            )
        })
        .collect();
    let cached = run_with(&["batch", "--cache", "3"], input.as_bytes());
    let uncached = run_with(&["batch", "--cache", "0"], input.as_bytes());
    assert_eq!(cached.stdout, uncached.stdout);
    let out = lines(&cached);
    assert_eq!(out.len(), 50);
    assert_eq!(out[49], "{\"ok\":196}");
}

// ---------------------------------------------------------------- check and disasm

#[test]
fn check_lists_free_variables_and_functions() {
    let o = run(&["check", "round(delay / 60) > 1 && origin.lower() == code"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("ok\n"), "{out}");
    assert!(
        out.contains("free variables: delay, origin, code") || out.contains("free variables: "),
        "{out}"
    );
    for name in ["delay", "origin", "code"] {
        assert!(
            out.lines().nth(1).unwrap_or_default().contains(name),
            "{out}"
        );
    }
    assert!(
        out.lines().nth(2).unwrap_or_default().contains("round"),
        "{out}"
    );

    let o = run(&["check", "[1, 2].map(x => x + y)", "--json"]);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["valid"], true);
    assert_eq!(v["free_variables"], json!(["y"]));
    assert_eq!(v["warnings"], json!([]));
}

#[test]
fn check_reports_errors_with_caret_or_json() {
    let o = run(&["check", "a +"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("error: "), "{}", stderr(&o));
    assert_stderr_has(&o, "  a +\n");

    let o = run(&["check", "(a + 1", "--json"]);
    assert_eq!(code(&o), 1);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["valid"], false);
    let e = &v["error"];
    assert_eq!(e["kind"], "parse");
    assert!(
        e["span"]["start"].is_u64() && e["span"]["end"].is_u64(),
        "{v}"
    );
    assert!(
        e["text"]
            .as_str()
            .unwrap_or_default()
            .ends_with(&format!(" at position {}", e["position"]))
    );
    assert!(
        e["expected"].as_array().is_some_and(|a| !a.is_empty()),
        "{v}"
    );

    // Span in characters, not bytes.
    let o = run(&["check", "\"é\" +", "--json"]);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["error"]["position"], 5, "{v}");
}

#[test]
fn check_warns_about_unknown_fields() {
    let o = run(&[
        "check",
        "delya > 60 && distance > 1000",
        "--fields",
        "delay,distance,origin",
    ]);
    assert_eq!(code(&o), 0);
    assert_stderr_has(
        &o,
        "'delya' is not a field of the records (did you mean 'delay'?)",
    );
    let o = run(&[
        "check",
        "delya > 60",
        "--fields",
        "delay,distance",
        "--deny-warnings",
    ]);
    assert_eq!(code(&o), 1);
    // Denied warnings are errors: no `ok`, the warning reported as an error.
    assert!(!stdout(&o).contains("ok"), "{}", stdout(&o));
    assert_stderr_has(&o, "error: 'delya' is not a field of the records");
    assert_stderr_has(&o, "--deny-warnings");
    let o = run(&[
        "check",
        "status == \"paid\" && custmer.name != null",
        "--sample",
        &orders(),
        "--json",
    ]);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["warnings"][0]["name"], "custmer");
    assert_eq!(v["warnings"][0]["suggestion"], "customer");
    let o = run(&["check", "x", "--sample", "/no/such/sample.ndjson"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn check_sample_checks_nested_paths() {
    // A nested name no sample record has: the nearest one they have.
    let o = run(&[
        "check",
        "shipping.adress.city == \"Berlin\" && customer.name != null",
        "--sample",
        &orders(),
        "--json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1), "{v}");
    let w = &v["warnings"][0];
    assert_eq!(w["kind"], "unknown_field");
    assert_eq!(w["name"], "shipping.adress");
    assert_eq!(w["suggestion"], "shipping.address");
    assert_eq!(w["position"], 0);
    assert_eq!(
        w["message"],
        "'shipping.adress' is not a field of the sample records (did you mean 'shipping.address'?)"
    );
    // As text, on stderr; denied, an error.
    let quake = temp_file(
        "quakes.ndjson",
        b"{\"properties\": {\"mag\": 4.5, \"felt\": null, \"place\": null}}\n\
          {\"properties\": {\"mag\": 5, \"place\": {\"name\": \"Lima\"}}, \"id\": \"b\"}\n",
    );
    let o = run(&["check", "properties.magg > 4", "--sample", &quake]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        stderr(&o),
        "warning: 'properties.magg' is not a field of the sample records \
         (did you mean 'properties.mag'?)\n"
    );
    let o = run(&[
        "check",
        "properties.magg > 4",
        "--sample",
        &quake,
        "--deny-warnings",
    ]);
    assert_eq!(code(&o), 1);
    // Every sample record counts: `id` and `place.name` are only in the
    // second; a value that is null in one record and an object in another
    // is judged by the object; no warning for any of these.
    for ok in [
        "id + properties.place.name",
        "properties?.place?.name ?? properties.felt",
        "properties.mag > 4",
    ] {
        let o = run(&["check", ok, "--sample", &quake, "--deny-warnings"]);
        assert_eq!((code(&o), stderr(&o).as_str()), (0, ""), "{ok}");
    }
    // A deeper miss is named at its own depth; through a value no sample
    // holds as an object (a number, a null), nothing is judged.
    let o = run(&["check", "properties.place.nmae", "--sample", &quake]);
    assert_stderr_has(
        &o,
        "'properties.place.nmae' is not a field of the sample records (did you mean 'properties.place.name'?)",
    );
    let o = run(&[
        "check",
        "properties.mag.value + properties.felt.count",
        "--sample",
        &quake,
        "--deny-warnings",
    ]);
    assert_eq!((code(&o), stderr(&o).as_str()), (0, ""));
    // No near name: the warning alone.
    let o = run(&["check", "properties.zzzzzz", "--sample", &quake]);
    assert_eq!(
        stderr(&o),
        "warning: 'properties.zzzzzz' is not a field of the sample records\n"
    );
}

#[test]
fn disasm_prints_the_listing() {
    let o = run(&["disasm", "price * qty > 100"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("price") && out.contains("qty"), "{out}");
    assert!(out.lines().count() >= 4, "{out}");
    let o = run(&["disasm", "price *"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).starts_with("error: "));
}

#[test]
fn check_warns_about_a_misspelt_method() {
    let o = run(&["check", "items.filtr(i => i.price > 50)"]);
    assert_eq!(code(&o), 0);
    assert_stderr_has(
        &o,
        "warning: 'filtr' is not a built-in method (did you mean 'filter'?)",
    );
    // An object's own function field is a method no type has: no warning
    // unless the name is near a built-in one.
    let o = run(&["check", "let o = {double: x => x * 2}; o.double(4)"]);
    assert_eq!(code(&o), 0);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let o = run(&["check", "items.filtr(i => i.x)", "--json"]);
    let v: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["warnings"][0]["kind"], "unknown_method");
    assert_eq!(v["warnings"][0]["suggestion"], "filter");
    let o = run(&["check", "items.filtr(i => i.x)", "--deny-warnings"]);
    assert_eq!(code(&o), 1);
}

#[test]
fn batch_skips_a_byte_order_mark_opening_the_input() {
    let o = run_with(
        &["batch"],
        b"\xEF\xBB\xBF{\"expression\": \"1 + 1\"}\n{\"expression\": \"2\"}\n",
    );
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "{\"ok\":2}\n{\"ok\":2}\n");
    // The limit is on the content, as for `xpr run`: not the mark, not `\r\n`.
    let line = b"\xEF\xBB\xBF{\"expression\":\"12345\"}\r\n";
    let o = run_with(&["batch", "--max-record-bytes", "22"], line);
    assert_eq!(stdout(&o), "{\"ok\":12345}\n");
    let o = run_with(&["batch", "--max-record-bytes", "21"], line);
    assert!(
        stdout(&o).contains("longer than 21 bytes"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn check_sample_reads_every_json_layout() {
    let miss = "'a.bb' is not a field of the sample records (did you mean 'a.b'?)";
    for (name, text) in [
        ("lines.ndjson", &b"\n{\"a\": {\"b\": 1}}\n"[..]),
        (
            "pretty.json",
            b"[\n  {\"a\": {\"b\": 1}},\n  {\"c\": 2}\n]\n",
        ),
        ("indented.json", b"  [\n  {\"a\": {\"b\": 1}}\n]\n"),
        ("bom.json", b"\xef\xbb\xbf[\n  {\"a\": {\"b\": 1}}\n]\n"),
        ("one.json", b"{\n  \"a\": {\"b\": 1}\n}\n"),
        ("one-indented.json", b"\t{\n  \"a\": {\"b\": 1}\n}\n"),
    ] {
        let sample = temp_file(name, text);
        let o = run(&["check", "a.bb", "--sample", &sample]);
        assert_eq!(code(&o), 0, "{name}: {}", stderr(&o));
        assert_stderr_has(&o, miss);
        // From a pipe, read once: the format is told from the first bytes.
        let o = run_with(&["check", "a.bb", "--sample", "-"], text);
        assert_eq!(code(&o), 0, "{name} on stdin: {}", stderr(&o));
        assert_stderr_has(&o, miss);
    }
    for (name, text, says) in [
        ("empty.json", &b"[]"[..], "no record to take fields from"),
        ("blank.ndjson", b"\n\n", "no record to take fields from"),
        (
            "numbers.json",
            b"[1, {\"a\": 1}]",
            "the first record is not a JSON object",
        ),
        (
            "broken.json",
            b"{\n  \"a\": \n",
            "invalid JSON in the first record",
        ),
    ] {
        let sample = temp_file(name, text);
        let o = run(&["check", "a.bb", "--sample", &sample]);
        assert_eq!(code(&o), 2, "{name}");
        assert_stderr_has(&o, says);
    }
}
