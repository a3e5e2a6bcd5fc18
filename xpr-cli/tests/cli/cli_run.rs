//! Integration tests of `xpr run`: the modes, record order under many
//! workers, streaming, bad input, a closed stdout, and the real data in
//! `../shared/data` (skipped with a message when absent, unless
//! `XPR_REQUIRE_SHARED=1`).

use crate::common;

use std::io::{Read as _, Write as _};

use common::{
    assert_stderr_has, code, lines, orders, run, run_with, shared, spawn, stderr, stdout, temp_file,
};
use serde_json::{Value as Json, json};

/// Numbers compared as f64, so that `2` and `2.0` are equal, as in XPR.
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

// ---------------------------------------------------------------- run

#[test]
fn run_maps_each_record_in_order() {
    let o = run(&[
        "run",
        "{id: id, n: items.length, city: shipping?.address?.city}",
        &orders(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = lines(&o);
    let input = std::fs::read_to_string(orders()).expect("orders");
    assert_eq!(out.len(), input.lines().count());
    for (got, line) in out.iter().zip(input.lines()) {
        let record: Json = serde_json::from_str(line).expect("record");
        let got: Json = serde_json::from_str(got).expect("output");
        assert_eq!(
            got["n"].as_u64(),
            record["items"].as_array().map(|a| a.len() as u64)
        );
        assert_eq!(got["city"], record["shipping"]["address"]["city"]);
    }
    let summary = stderr(&o);
    assert!(
        summary.contains("50 records in, 50 out, 0 errors"),
        "{summary}"
    );
    // Two ids in the sample are beyond 2^53, and `id` is read.
    assert!(summary.contains("2 integers beyond 2^53"), "{summary}");
    // stderr is not a terminal here: no progress bar, only the summary line.
    assert_eq!(summary.lines().count(), 1, "{summary}");
    assert!(!summary.contains("records/s"), "{summary}");
}

#[test]
fn run_filter_writes_original_bytes() {
    let input = "{\"id\": 9007199254740993, \"price\": 1.50, \"name\": \"a\\u00e9\"}\n\
                 {\"id\": 2,\"price\":99}\r\n\
                 \n\
                 {  \"price\" : 70 , \"extra\": [1e2, {\"x\": null}] }\n";
    let o = run_with(
        &["run", "price > 50 || id > 10", "--filter", "-"],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let want = "{\"id\": 9007199254740993, \"price\": 1.50, \"name\": \"a\\u00e9\"}\n\
                {\"id\": 2,\"price\":99}\n\
                {  \"price\" : 70 , \"extra\": [1e2, {\"x\": null}] }\n";
    assert_eq!(stdout(&o), want);
    let err = stderr(&o);
    assert!(err.contains("3 records in, 3 out, 0 errors"), "{err}");
    assert!(err.contains("1 integer beyond 2^53"), "{err}");
    // Records the expression does not keep are not written.
    let o = run_with(&["run", "price > 80", "--filter"], input.as_bytes());
    assert_eq!(stdout(&o), "{\"id\": 2,\"price\":99}\n");
}

#[test]
fn run_on_error_modes() {
    let input = "{\"a\": 1}\n{\"a\": 0}\n{\"a\": \n{\"a\": 4}\n";
    // fail: stops at the first bad record, naming its line; earlier output is kept.
    let o = run_with(&["run", "10 / a"], input.as_bytes());
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "10\n");
    let err = stderr(&o);
    assert!(
        err.contains("<stdin>:2: Division by zero at position"),
        "{err}"
    );
    assert!(err.contains("  10 / a"), "{err}");

    // An invalid JSON line under fail is an input error: status 2, line named.
    let o = run_with(&["run", "a"], input.as_bytes());
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "1\n0\n");
    assert_stderr_has(&o, "<stdin>:3: invalid JSON");

    // skip: counted, reported with line numbers, nothing written.
    let o = run_with(&["run", "10 / a", "--on-error", "skip"], input.as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "10\n2.5\n");
    let err = stderr(&o);
    assert!(
        err.contains("warning: <stdin>:2: Division by zero"),
        "{err}"
    );
    assert!(err.contains("warning: <stdin>:3: invalid JSON"), "{err}");
    assert!(err.contains("4 records in, 2 out, 2 errors"), "{err}");

    // null: one output line per record.
    let o = run_with(&["run", "10 / a", "--on-error", "null"], input.as_bytes());
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "10\nnull\nnull\n2.5\n");
    assert_stderr_has(&o, "4 records in, 4 out, 2 errors");

    // null with --filter: a failing record is not kept.
    let o = run_with(
        &["run", "10 / a > 3", "--filter", "--on-error", "null"],
        input.as_bytes(),
    );
    assert_eq!(stdout(&o), "{\"a\": 1}\n");
}

#[test]
fn run_many_errors_are_counted_not_all_shown() {
    let input: String = (0..100)
        .map(|i| format!("{{\"a\": {}}}\n", i % 2))
        .collect();
    let o = run_with(
        &["run", "1 / a", "--on-error", "skip", "--jobs", "2"],
        input.as_bytes(),
    );
    let err = stderr(&o);
    assert_eq!(err.matches("warning: <stdin>:").count(), 20, "{err}");
    assert!(err.contains("further record errors are counted"), "{err}");
    assert!(err.contains("100 records in, 50 out, 50 errors"), "{err}");
}

#[test]
fn run_quiet_drops_record_warnings_and_keeps_the_summary() {
    // Every other record fails: 50 errors, 20 of which are shown by default.
    let input: String = (0..100)
        .map(|i| format!("{{\"a\": {}}}\n", if i % 2 == 0 { "1" } else { "null" }))
        .collect();
    for jobs in ["1", "2"] {
        let args = ["run", "a > 0", "--on-error", "null", "--jobs", jobs];
        let loud = run_with(&args, input.as_bytes());
        assert!(stderr(&loud).contains("warning: <stdin>:2: Type error"));
        // -q: only the summary line, which counts the errors.
        let quiet = run_with(&[&args[..], &["-q"]].concat(), input.as_bytes());
        assert_eq!(code(&quiet), 0, "{}", stderr(&quiet));
        assert_eq!(stdout(&quiet), stdout(&loud));
        let err = stderr(&quiet);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("xpr: 100 records in, 100 out, 50 errors, "),
            "{err}"
        );
        // -qq (or --quiet twice): nothing at all.
        for qq in [&["-qq"][..], &["--quiet", "--quiet"]] {
            let silent = run_with(&[&args[..], qq].concat(), input.as_bytes());
            assert_eq!(stderr(&silent), "");
            assert_eq!(stdout(&silent), stdout(&loud));
        }
    }
    // An error that stops the run is shown whatever -q says.
    let o = run_with(&["run", "a > 0", "-qq"], input.as_bytes());
    assert_eq!(code(&o), 1);
    assert_stderr_has(
        &o,
        "error: <stdin>:2: Type error: cannot compare null and number",
    );
}

#[test]
fn run_jobs_keep_input_order() {
    // Enough records for many chunks.
    let input: String = (0..30_000)
        .map(|i| {
            format!(
                "{{\"i\": {i}, \"s\": \"r{}\", \"pad\": [1, 2, 3]}}\n",
                i * 7 % 1000
            )
        })
        .collect();
    let expr = "i % 3 == 0 ? s + \"-\" + string(i) : i";
    let one = run_with(&["run", expr, "--jobs", "1"], input.as_bytes());
    let four = run_with(&["run", expr, "--jobs", "4"], input.as_bytes());
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert_eq!(code(&four), 0, "{}", stderr(&four));
    assert_eq!(one.stdout, four.stdout);
    // More workers than chunks may be in flight: 64 run, the same output.
    let many = run_with(&["run", expr, "--jobs", "300"], input.as_bytes());
    assert_eq!(code(&many), 0, "{}", stderr(&many));
    assert_eq!(one.stdout, many.stdout);
    let out = lines(&four);
    assert_eq!(out.len(), 30_000);
    assert_eq!(out[2997], "\"r979-2997\"");
    assert_eq!(out[2998], "2998");
    assert_eq!(out[29_998], "29998");
    // A failing record deep in the stream under several jobs: output up to it, then the error.
    let o = run_with(
        &["run", "i == 20000 ? nope : i", "--jobs", "3"],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 1);
    assert_eq!(lines(&o).len(), 20_000);
    assert_stderr_has(&o, "<stdin>:20001:");
}

#[test]
fn run_streams_results_before_the_input_ends() {
    // Like `tail -f | xpr run`: each answer must come out while stdin is still open.
    for jobs in ["1", "2"] {
        let mut child = spawn(&["run", "a * 2", "--jobs", jobs]);
        let mut stdin = child.stdin.take().expect("stdin");
        let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        for a in [1, 2, 3] {
            writeln!(stdin, "{{\"a\": {a}}}").expect("write");
            stdin.flush().expect("flush");
            let mut line = String::new();
            std::io::BufRead::read_line(&mut reader, &mut line).expect("read");
            assert_eq!(line, format!("{}\n", a * 2), "jobs {jobs}");
        }
        drop(stdin);
        assert!(child.wait().expect("wait").success());
    }
}

#[test]
fn run_json_array_input() {
    let input = "[\n  {\"a\": 1, \"tags\": [\"x\", \"y\"]},\n  {\"a\": 2,\n   \"tags\": []},\n  {\"a\": 3, \"s\": \"] , [\"}\n]\n";
    let file = temp_file("array.json", input.as_bytes());
    let o = run(&["run", "a * 10", "--input", "json", &file]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "10\n20\n30\n");
    // --filter writes each element compacted onto one line, its tokens unchanged.
    let o = run(&["run", "a >= 2", "--input", "json", "--filter", &file]);
    assert_eq!(
        stdout(&o),
        "{\"a\":2,\"tags\":[]}\n{\"a\":3,\"s\":\"] , [\"}\n"
    );
    // A broken array names the line; with skip, the earlier records still come out.
    let file = temp_file("broken.json", b"[{\"a\": 1},\n {\"a\": 2}\n");
    let o = run(&["run", "a", "--input", "json", &file]);
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, ":2: invalid JSON array");
    let o = run(&["run", "a", "--input", "json", "--on-error", "skip", &file]);
    assert_eq!(stdout(&o), "1\n2\n");
    // One object (not an array) is one record.
    let o = run_with(&["run", "a + 1", "--input", "json"], b"{\"a\": 41}");
    assert_eq!(stdout(&o), "42\n");
    // NDJSON read as JSON: the error says what is likely wrong.
    let o = run_with(
        &["run", "a", "--input", "json"],
        b"{\"a\": 1}\n{\"a\": 2}\n",
    );
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, "trailing characters (one JSON value per line is NDJSON");
}

#[test]
fn run_as_binds_the_whole_record() {
    let input = b"{\"a\": 1, \"b\": {\"c\": 2}}\n[5, 6]\n";
    let o = run_with(
        &[
            "run",
            "type(rec) == \"array\" ? rec[1] : rec.b.c + a",
            "--as",
            "rec",
        ],
        input,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "3\n6\n");
    let o = run_with(
        &["run", "rec.keys()", "--as", "rec"],
        b"{\"x\": 1, \"y\": 2}\n",
    );
    assert_eq!(stdout(&o), "[\"x\",\"y\"]\n");
}

#[test]
fn run_strict_numbers_rejects_big_integers() {
    let o = run(&["run", "id", &orders(), "--strict-numbers"]);
    assert_eq!(code(&o), 2);
    assert_eq!(lines(&o).len(), 7);
    assert_stderr_has(
        &o,
        "orders.ndjson:8: integer 9007199254747993 is beyond 2^53",
    );
    // A field the expression does not read is never converted, so it is not an error.
    let o = run(&["run", "total > 0", &orders(), "--strict-numbers"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// A Parquet or Arrow IPC file read as text is named as such, with the
/// flag that reads it, before any output; a text file that merely starts
/// with a magic word is read as text.
#[test]
fn a_binary_columnar_file_read_as_text_names_the_flag_that_reads_it() {
    let parquet = temp_file("flights.parquet", b"PAR1\x15\x04\x15\x00PAR1");
    let arrow = temp_file("flights.arrow", b"ARROW1\x00\x00ARROW1");
    let stream = temp_file("flights.arrows", b"\xff\xff\xff\xff\x10\x00\x00\x00");
    for (file, flag, args) in [
        (&parquet, "parquet", vec!["run", "--filter", "delay > 60"]),
        (&arrow, "arrow", vec!["run", "x"]),
        (&stream, "arrow", vec!["run", "--agg", "n: count()"]),
        (&parquet, "parquet", vec!["check", "x", "--sample"]),
    ] {
        let o = run(&[args.as_slice(), &[file.as_str()]].concat());
        assert_eq!(code(&o), 2, "{args:?} {file}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert_stderr_has(&o, &format!("`xpr run --input {flag}` reads it"));
    }
    let text = temp_file("par1.ndjson", b"PAR1 then text\n");
    let o = run(&["run", "1", &text]);
    assert_stderr_has(&o, "par1.ndjson:1: invalid JSON");
}

#[test]
fn run_bad_input_behaves_like_a_unix_tool() {
    // Missing file: status 2 before any output.
    let o = run(&["run", "1", &orders(), "/no/such/input.ndjson"]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.contains("cannot open /no/such/input.ndjson: No such file or directory"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    // A directory among the files: the same, before any output.
    let dir = std::env::temp_dir();
    let o = run(&["run", "1", &orders(), &dir.display().to_string()]);
    assert_eq!(code(&o), 2);
    assert!(o.stdout.is_empty());
    assert_stderr_has(&o, "Is a directory");
    // Empty file and empty stdin: no output, status 0.
    let empty = temp_file("empty.ndjson", b"");
    let o = run(&["run", "x", &empty]);
    assert_eq!(code(&o), 0);
    assert!(o.stdout.is_empty());
    assert_stderr_has(&o, "0 records in, 0 out");
    let o = run(&["run", "x", "--input", "json", &empty]);
    assert_eq!(code(&o), 0);
    let o = run(&["run", "x"]);
    assert_eq!(code(&o), 0);
    // Invalid UTF-8: the line is named.
    let bad = temp_file(
        "bad.ndjson",
        b"{\"x\": 1}\n{\"x\": \"\xc3\x28\"}\n{\"x\": 3}\n",
    );
    let o = run(&["run", "x", &bad]);
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, "bad.ndjson:2: invalid UTF-8");
    let o = run(&["run", "x", &bad, "--on-error", "skip"]);
    assert_eq!(stdout(&o), "1\n3\n");
    // Several files in a row, each with its own line numbers.
    let o = run(&["run", "x", &bad, &bad, "--on-error", "skip"]);
    assert_eq!(stdout(&o), "1\n3\n1\n3\n");
    assert_eq!(stderr(&o).matches("bad.ndjson:2: invalid UTF-8").count(), 2);
    // An over-long record is an error for that record only.
    let long = temp_file(
        "long.ndjson",
        b"{\"x\": 1}\n{\"x\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n{\"x\": 3}\n",
    );
    let o = run(&[
        "run",
        "x",
        &long,
        "--max-record-bytes",
        "20",
        "--on-error",
        "skip",
    ]);
    assert_eq!(stdout(&o), "1\n3\n");
    assert_stderr_has(&o, "long.ndjson:2: record longer than 20 bytes");
    // Compile errors stop before reading: status 1.
    let o = run(&["run", "1 +", &orders()]);
    assert_eq!(code(&o), 1);
    assert!(o.stdout.is_empty());
}

#[test]
fn closed_stdout_ends_quietly() {
    let input: String = (0..200_000).map(|i| format!("{{\"i\": {i}}}\n")).collect();
    let path = temp_file("many.ndjson", input.as_bytes());
    for jobs in ["1", "2"] {
        let mut child = spawn(&[
            "run",
            "{i: i, s: \"padding padding padding\"}",
            &path,
            "--jobs",
            jobs,
        ]);
        let mut out = child.stdout.take().expect("stdout");
        let mut first = [0u8; 64];
        out.read_exact(&mut first).expect("some output");
        drop(out);
        let o = child.wait_with_output().expect("wait");
        assert_eq!(code(&o), 0, "jobs {jobs}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        assert!(!stderr(&o).contains("Broken pipe"), "{}", stderr(&o));
        assert!(first.starts_with(b"{\"i\":0,"));
    }
    // The largest temporary file; the others are a few bytes each.
    let _ = std::fs::remove_file(&path);
}

#[test]
fn run_suggests_a_field_for_a_misspelt_name() {
    let o = run(&["run", "totl > 500", &orders()]);
    assert_eq!(code(&o), 1);
    assert_stderr_has(
        &o,
        "orders.ndjson:1: Unknown identifier 'totl' (did you mean 'total'?)",
    );
    // Nothing near: the plain message. Skipped errors beyond the shown
    // ones are only counted.
    let o = run(&["run", "zzz", &orders(), "--on-error", "skip"]);
    assert_eq!(code(&o), 0);
    assert_stderr_has(&o, "Unknown identifier 'zzz' at");
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
    // Through stdin with several workers: the same hint.
    let input = std::fs::read(orders()).expect("sample");
    let o = run_with(&["run", "custmer.name", "--jobs", "2"], &input);
    assert_stderr_has(
        &o,
        "Unknown identifier 'custmer' (did you mean 'customer'?)",
    );
}

#[test]
fn run_large_outputs_are_written_in_order_as_they_go() {
    // About 5 MB of output per chunk of records (2,048 records of 2.6 KB):
    // more than a chunk's output is held for its turn, so workers write it
    // as they go; the order and the bytes must not change with the number
    // of workers.
    let input: String = (0..5_000).map(|i| format!("{{\"i\": {i}}}\n")).collect();
    let expr = "[i, i + 1, \"ab\".repeat(1300)]";
    let one = run_with(&["run", expr, "--jobs", "1", "-q"], input.as_bytes());
    let four = run_with(&["run", expr, "--jobs", "4", "-q"], input.as_bytes());
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert_eq!(code(&four), 0, "{}", stderr(&four));
    assert!(one.stdout.len() > 12 << 20, "{} bytes", one.stdout.len());
    assert!(
        one.stdout == four.stdout,
        "outputs differ between --jobs 1 and 4"
    );
    let out = lines(&four);
    assert_eq!(out.len(), 5_000);
    assert!(
        out[4_321].starts_with("[4321,4322,"),
        "{}",
        &out[4_321][..20]
    );
    // A fatal error after large outputs: everything before it, then the error.
    let o = run_with(
        &[
            "run",
            "i == 4000 ? nope : \"ab\".repeat(1300)",
            "--jobs",
            "3",
            "-q",
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 1);
    assert_eq!(lines(&o).len(), 4_000);
    assert_stderr_has(&o, "<stdin>:4001: Unknown identifier 'nope'");
}

// ---------------------------------------------------------------- real data

#[test]
fn flights_filter_matches_an_independent_computation() {
    let Some(path) = shared("flights-20k.ndjson") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("read flights");
    let want: String = text
        .lines()
        .filter(|line| {
            let r: Json = serde_json::from_str(line).expect("flight");
            r["delay"].as_f64().unwrap_or(0.0) > 60.0
                && r["distance"].as_f64().unwrap_or(0.0) > 1000.0
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        want.lines().count() > 100,
        "the filter keeps a real share of flights"
    );
    let path = path.display().to_string();
    for jobs in ["1", "2"] {
        let o = run(&[
            "run",
            "delay > 60 && distance > 1000",
            &path,
            "--filter",
            "--jobs",
            jobs,
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(stdout(&o), want, "jobs {jobs}");
        let summary = format!("20000 records in, {} out, 0 errors", want.lines().count());
        assert_stderr_has(&o, &summary);
    }
}

#[test]
fn flights_map_matches_an_independent_computation() {
    let Some(path) = shared("flights-20k.ndjson") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("read flights");
    let o = run(&[
        "run",
        "{route: origin + \"-\" + destination, late: delay > 15}",
        &path.display().to_string(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = lines(&o);
    assert_eq!(got.len(), 20_000);
    let mut late = 0;
    for (line, out) in text.lines().zip(&got) {
        let r: Json = serde_json::from_str(line).expect("flight");
        let route = format!(
            "{}-{}",
            r["origin"].as_str().unwrap_or_default(),
            r["destination"].as_str().unwrap_or_default()
        );
        let is_late = r["delay"].as_f64().unwrap_or(0.0) > 15.0;
        late += usize::from(is_late);
        let want = json!({"route": route, "late": is_late});
        // Byte-exact: keys in the order written, compact.
        assert_eq!(out, &want.to_string());
    }
    assert!(late > 0 && late < 20_000);
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[test]
fn earthquakes_nested_access_optional_chaining_and_dates() {
    let Some(path) = shared("earthquakes.ndjson") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("read earthquakes");
    let expr = "{id: id, mag: properties.mag, day: formatDate(properties.time, \"yyyy-MM-dd\"), \
                depth: geometry.coordinates[2], felt: properties?.felt ?? -1, \
                deep: properties?.nothing?.deeper, alert: properties.alert?.length}";
    let o = run(&["run", expr, &path.display().to_string(), "--jobs", "2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = lines(&o);
    assert_eq!(got.len(), text.lines().count());
    for (line, out) in text.lines().zip(&got) {
        let r: Json = serde_json::from_str(line).expect("quake");
        let p = &r["properties"];
        let ms = p["time"].as_f64().unwrap_or(0.0);
        let (y, m, d) = civil_from_days((ms / 86_400_000.0).floor() as i64);
        let felt = if p["felt"].is_null() {
            json!(-1)
        } else {
            p["felt"].clone()
        };
        let alert = p["alert"]
            .as_str()
            .map_or(Json::Null, |s| json!(s.chars().count()));
        let want = json!({
            "id": r["id"],
            "mag": p["mag"],
            "day": format!("{y:04}-{m:02}-{d:02}"),
            "depth": r["geometry"]["coordinates"][2],
            "felt": felt,
            "deep": null,
            "alert": alert,
        });
        let out: Json = serde_json::from_str(out).expect("output");
        assert!(same(&out, &want), "{out} != {want}");
    }
}

/// Without the cargo feature `columnar`, Parquet and Arrow are refused
/// with how to get them.
#[cfg(not(feature = "columnar"))]
#[test]
fn columnar_formats_need_the_feature() {
    let o = run(&["run", "--input", "parquet", "x", "f.parquet"]);
    common::assert_fails(
        &o,
        2,
        "xpr: --input parquet needs an xpr built with the `columnar` feature: \
         cargo install --path xpr-cli --features columnar",
    );
    let o = run_with(&["run", "--output", "arrow", "x"], b"{\"x\":1}\n");
    common::assert_fails(
        &o,
        2,
        "--output arrow needs an xpr built with the `columnar` feature",
    );
}

/// The benchmark's projection and string transform over strings that
/// need escaping or are not ASCII (a case change that alters the length,
/// a final sigma), several chunks of records: the same bytes with one,
/// two or three workers (each compiles its own program), and the values
/// of the ordinary calls.
#[test]
fn run_transforms_write_the_same_bytes_for_any_jobs() {
    let texts = [
        "LAX",
        "ÉCOLE",
        "ΟΔΟΣ",
        "a\"b\\c",
        "tab\there",
        "ctl\u{1}x",
        "İx",
        "ß",
        "",
    ];
    let input: String = (0..9_000)
        .map(|i| {
            let record =
                json!({"o": texts[i % texts.len()], "d": texts[(i / 3) % texts.len()], "n": i});
            format!("{record}\n")
        })
        .collect();
    for expr in [
        r#"o.lower() + " -> " + d.lower()"#,
        r#"{route: o + "-" + d.upper(), late: n > 3, s: o}"#,
    ] {
        let outputs: Vec<Vec<u8>> = ["1", "2", "3"]
            .iter()
            .map(|jobs| {
                let o = run_with(&["run", expr, "--jobs", jobs, "-q"], input.as_bytes());
                assert_eq!(code(&o), 0, "{}", stderr(&o));
                o.stdout
            })
            .collect();
        assert!(outputs[0] == outputs[1], "{expr}: --jobs 1 and 2 differ");
        assert!(outputs[0] == outputs[2], "{expr}: --jobs 1 and 3 differ");
    }
    let o = run_with(
        &["run", r#"o.lower() + " -> " + d.lower()"#, "-q"],
        input.as_bytes(),
    );
    let out = lines(&o);
    assert_eq!(out.len(), 9_000);
    assert_eq!(out[0], r#""lax -> lax""#);
    assert_eq!(out[4], r#""tab\there -> école""#);
    // A final sigma lowercases to ς; İ to i and a combining dot.
    assert_eq!(out[11], "\"οδο\u{3c2} -> a\\\"b\\\\c\"");
    assert_eq!(out[15], "\"i\u{307}x -> ctl\\u0001x\"");
    assert_eq!(out[24], "\"i\u{307}x -> \"");
    let o = run_with(
        &[
            "run",
            r#"{route: o + "-" + d.upper(), late: n > 3, s: o}"#,
            "-q",
        ],
        input.as_bytes(),
    );
    let out = lines(&o);
    assert_eq!(out[7], r#"{"route":"ß-ΟΔΟΣ","late":true,"s":"ß"}"#);
    assert_eq!(out[25], r#"{"route":"ß-","late":true,"s":"ß"}"#);
    assert_eq!(
        out[21],
        r#"{"route":"a\"b\\c-SS","late":true,"s":"a\"b\\c"}"#
    );
}
