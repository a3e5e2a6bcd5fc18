//! The `xpr` binary's input and output stay within bounds (issue 11): a
//! context is read up to a limit, a line that never ends is reported, JSON
//! nesting is read up to the value-depth limit on every input route, and
//! output is streamed, so the process's peak memory (`VmHWM`) stays within
//! twice the memory budget however the output is escaped; the regex budget
//! (`--max-regex-bytes`) and `batch`'s cache bound (`--cache-bytes`) are
//! taken in bytes (the library's side: `xpr/tests/library/compile_and_format_budgets.rs`).
//! Everything is shown by counting (bytes, records, exit statuses), never
//! by timing.

use crate::common;

use std::io::{Read as _, Write as _};
use std::process::{Output, Stdio};

use common::{
    assert_fails, batch_input_error, code, run, run_with, spawn, stderr, stdout, temp_file, xpr,
};

// ------------------------------------------------------------ the context

#[test]
fn a_context_is_read_up_to_its_limit() {
    // An endless context ends at the default limit (64 MiB), at once.
    let o = run(&["eval", "1", "--context-file", "/dev/zero"]);
    assert_fails(
        &o,
        2,
        "xpr: /dev/zero: longer than 67108864 bytes (--max-context-bytes)",
    );
    assert_eq!(stdout(&o), "");
    // From stdin, and from the command line: exactly the limit is accepted.
    let context = br#"{"a": 41}"#;
    let limit = context.len().to_string();
    let o = run_with(
        &[
            "eval",
            "a + 1",
            "--context-file",
            "-",
            "--max-context-bytes",
            &limit,
        ],
        context,
    );
    assert_eq!(
        (code(&o), stdout(&o).as_str()),
        (0, "42\n"),
        "{}",
        stderr(&o)
    );
    let shorter = (context.len() - 1).to_string();
    let o = run_with(
        &[
            "eval",
            "a",
            "--context-file",
            "-",
            "--max-context-bytes",
            &shorter,
        ],
        context,
    );
    assert_fails(&o, 2, "xpr: -: longer than 8 bytes (--max-context-bytes)");
    let text = std::str::from_utf8(context).unwrap_or_default();
    let o = run(&[
        "eval",
        "a",
        "--context",
        text,
        "--max-context-bytes",
        &shorter,
    ]);
    assert_fails(
        &o,
        2,
        "xpr: --context: longer than 8 bytes (--max-context-bytes)",
    );
    let o = run(&[
        "eval",
        "a",
        "--context",
        text,
        "--max-context-bytes",
        &limit,
    ]);
    assert_eq!(stdout(&o), "41\n", "{}", stderr(&o));
}

// ------------------------------------------------- lines that never end

/// `n` bytes with no newline: pseudo-random (a fixed linear congruential
/// sequence, so every run sees the same bytes), or zeros.
fn no_newline(n: usize, random: bool) -> Vec<u8> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    (0..n)
        .map(|_| {
            if !random {
                return 0;
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            match (state >> 56) as u8 {
                b'\n' => b'x',
                b => b,
            }
        })
        .collect()
}

#[test]
fn an_endless_line_is_reported_at_once() {
    // /dev/zero never ends: the record is reported as soon as it passes
    // the limit (the default, 64 MiB), status 2 with --on-error fail.
    for format in ["ndjson", "json"] {
        let o = run(&["run", "a", "/dev/zero", "--input", format]);
        assert_fails(
            &o,
            2,
            "error: /dev/zero:1: record longer than 67108864 bytes (--max-record-bytes)",
        );
    }
    let o = run(&["check", "a", "--sample", "/dev/zero"]);
    assert_fails(
        &o,
        2,
        "xpr: /dev/zero: the first record is longer than 67108864 bytes",
    );
    // With --on-error skip the run reads on, skipping without holding the
    // line: the warning comes while it does (the child is stopped once the
    // warning is seen; it would read /dev/zero for ever).
    for args in [
        &[
            "run",
            "a",
            "--on-error",
            "skip",
            "--max-record-bytes",
            "1000",
        ][..],
        &["batch", "--max-record-bytes", "1000"][..],
    ] {
        let mut child = xpr()
            .args(args)
            .stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn xpr");
        let want = if args[0] == "run" {
            "warning: <stdin>:1: record longer than 1000 bytes (--max-record-bytes)\n"
        } else {
            "{\"error\":\"line 1: longer than 1000 bytes (--max-record-bytes)\""
        };
        let mut seen = vec![0u8; want.len()];
        let read = if args[0] == "run" {
            child.stderr.take().expect("stderr").read_exact(&mut seen)
        } else {
            child.stdout.take().expect("stdout").read_exact(&mut seen)
        };
        // Ours to stop: it would read /dev/zero for ever.
        let _ = child.kill();
        let _ = child.wait();
        read.expect("a report");
        assert_eq!(String::from_utf8_lossy(&seen), want);
    }
}

#[test]
fn a_too_long_line_is_skipped_and_an_unended_one_ends_the_run() {
    for random in [false, true] {
        // Three megabytes without a newline, then a record, then the same
        // again cut by the end of the input.
        let junk = no_newline(3 << 20, random);
        let mut input = b"{\"a\": 1}\n".to_vec();
        input.extend_from_slice(&junk);
        input.extend_from_slice(b"\n{\"a\": 2}\n");
        input.extend_from_slice(&junk);
        let limit = ["--max-record-bytes", "1000000"];
        for jobs in ["1", "3"] {
            let args = [&["run", "a", "--on-error", "skip", "-j", jobs][..], &limit].concat();
            let o = run_with(&args, &input);
            assert_fails(
                &o,
                2,
                "warning: <stdin>:2: record longer than 1000000 bytes (--max-record-bytes)\n\
                 warning: <stdin>:4: record longer than 1000000 bytes (--max-record-bytes)\n\
                 error: <stdin>:4: the input ended inside this record, longer than 1000000 bytes (--max-record-bytes)\n\
                 xpr: 4 records in, 2 out, 2 errors,",
            );
            assert_eq!(stdout(&o), "1\n2\n");
            // --on-error null answers each line.
            let args = [&["run", "a", "--on-error", "null", "-j", jobs][..], &limit].concat();
            let o = run_with(&args, &input);
            assert_fails(&o, 2, "xpr: 4 records in, 4 out, 2 errors,");
            assert_eq!(stdout(&o), "1\nnull\n2\nnull\n");
            // --on-error fail stops at the first, as for any input error.
            let args = [&["run", "a", "-j", jobs][..], &limit].concat();
            let o = run_with(&args, &input);
            assert_fails(&o, 2, "error: <stdin>:2: record longer than 1000000 bytes");
            assert_eq!(stdout(&o), "1\n");
        }
        // A JSON array element: skipped to its end, or never ended.
        let mut array = b"[1, \"".to_vec();
        array.extend(
            junk.iter()
                .map(|&b| if b == b'"' || b == b'\\' { b'x' } else { b }),
        );
        array.extend_from_slice(b"\", 2, \"");
        array.extend(
            junk.iter()
                .map(|&b| if b == b'"' || b == b'\\' { b'x' } else { b }),
        );
        let args = [
            &[
                "run",
                "_",
                "--as",
                "_",
                "--input",
                "json",
                "--on-error",
                "skip",
            ][..],
            &limit,
        ]
        .concat();
        let o = run_with(&args, &array);
        assert_fails(
            &o,
            2,
            "warning: <stdin>:1: record longer than 1000000 bytes (--max-record-bytes)\n\
             warning: <stdin>:1: record longer than 1000000 bytes (--max-record-bytes)\n\
             error: <stdin>:1: the input ended inside this record, longer than 1000000 bytes (--max-record-bytes)\n\
             xpr: 4 records in, 2 out, 2 errors,",
        );
        assert_eq!(stdout(&o), "1\n2\n");
        // batch answers the line at once, then the next; an unended last
        // line is status 2.
        let mut requests = b"{\"expression\": \"1\"}\n".to_vec();
        requests.extend_from_slice(&junk);
        requests.extend_from_slice(b"\n{\"expression\": \"2\"}\n");
        requests.extend_from_slice(&junk);
        let o = run_with(&[&["batch"][..], &limit].concat(), &requests);
        assert_fails(
            &o,
            2,
            "xpr: line 4: standard input ended inside this line, longer than 1000000 bytes (--max-record-bytes)",
        );
        let too_long = batch_input_error("line 2: longer than 1000000 bytes (--max-record-bytes)");
        assert_eq!(
            stdout(&o),
            format!(
                "{{\"ok\":1}}\n{too_long}\n{{\"ok\":2}}\n{}\n",
                too_long.replace("line 2", "line 4")
            )
        );
    }
}

// ------------------------------------------------------------- output

/// The process's peak resident memory (`VmHWM`), in bytes, while it is
/// alive; `None` once it has exited.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs `xpr ARGS` on `stdin`, whose output is `expected` bytes long, and
/// returns the output's length, the child's peak memory and its stderr.
/// The peak is read while the child still has at least `HELD` bytes to
/// write (it cannot exit while they wait in a full pipe), so nothing it
/// did before its last few megabytes of output is missed; what it does
/// after is only writing them and exiting.
pub(crate) fn output_and_peak(
    args: &[&str],
    stdin: &[u8],
    expected: usize,
) -> (usize, u64, String) {
    const HELD: usize = 16 << 20;
    assert!(
        expected > 2 * HELD,
        "the output must outlast the pipe and the buffers"
    );
    let mut child = spawn(args);
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let mut err = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let mut out = child.stdout.take().expect("stdout");
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0;
    let mut peak = None;
    loop {
        // Never read into the last HELD bytes before the peak is known.
        let want = if peak.is_none() {
            buf.len().min(expected - HELD - total)
        } else {
            buf.len()
        };
        if want == 0 {
            peak = Some(peak_rss(child.id()).expect("the child is alive: it has output left"));
            continue;
        }
        match out.read(&mut buf[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
    let _ = child.wait();
    feeder.join().expect("feeder");
    let errors = errors.join().expect("stderr reader");
    let peak = peak.unwrap_or_else(|| panic!("output ended early: {total} bytes, {errors}"));
    eprintln!(
        "xpr {}: peak {} KiB, {total} bytes out",
        args.join(" "),
        peak >> 10
    );
    (total, peak, errors)
}

/// The memory budget of the tests below, and the string their
/// expressions build: 8 million NUL characters, 48 MB once escaped.
const BUDGET: u64 = 16 << 20;
const NULS: usize = 8_000_000;

#[test]
fn eval_output_is_streamed_within_twice_the_budget() {
    let budget = BUDGET.to_string();
    let expr = format!("\"\\0\".repeat({NULS})");
    for pretty in [false, true] {
        let mut args = vec!["eval", &expr, "--max-memory", &budget];
        if pretty {
            args.push("--pretty");
        }
        let (len, peak, errors) = output_and_peak(&args, b"", 6 * NULS + 3);
        assert_eq!(len, 6 * NULS + 3, "{errors}");
        assert!(
            peak <= 2 * BUDGET,
            "peak {peak} bytes for a budget of {BUDGET}"
        );
    }
}

#[test]
fn batch_output_is_streamed_within_twice_the_budget() {
    let budget = BUDGET.to_string();
    let request = format!("{{\"expression\": \"\\\"\\\\0\\\".repeat({NULS})\"}}\n");
    let (len, peak, errors) = output_and_peak(
        &["batch", "--max-memory", &budget],
        request.as_bytes(),
        6 * NULS + 10,
    );
    assert_eq!(len, 6 * NULS + 10, "{errors}");
    assert!(
        peak <= 2 * BUDGET,
        "peak {peak} bytes for a budget of {BUDGET}"
    );
}

#[test]
fn run_output_is_streamed_within_twice_the_budget_per_worker() {
    // Each worker evaluates its own record under its own budget, so two
    // workers may hold two budgets' worth of values at once.
    let budget = BUDGET.to_string();
    let expr = format!("\"\\0\".repeat({NULS})");
    let records = b"{\"i\":1}\n{\"i\":2}\n{\"i\":3}\n";
    let expected = 3 * (6 * NULS + 3);
    for jobs in ["1", "2"] {
        let args = ["run", &expr, "--max-memory", &budget, "-j", jobs];
        let (len, peak, errors) = output_and_peak(&args, records, expected);
        assert_eq!(len, expected, "{errors}");
        let workers: u64 = jobs.parse().unwrap_or(1);
        assert!(
            peak <= 2 * workers * BUDGET,
            "jobs {jobs}: peak {peak} bytes for a budget of {BUDGET}"
        );
    }
}

// ------------------------------------------------------ nesting depth

/// Arrays and objects in turn, `depth` levels deep, around `1`.
fn nested(depth: usize) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..depth {
        if level % 2 == 0 {
            open.push('[');
            close.insert(0, ']');
        } else {
            open.push_str("{\"b\":");
            close.insert(0, '}');
        }
    }
    format!("{open}1{close}")
}

/// A context or record `depth` levels deep (the object itself is one).
fn record(depth: usize) -> String {
    format!("{{\"a\": {}}}", nested(depth - 1))
}

fn too_deep(limit: u32) -> String {
    format!(
        "Value depth limit exceeded: JSON nested deeper than {limit} levels (--max-value-depth)"
    )
}

#[test]
fn json_nesting_is_read_to_the_value_depth_limit_on_every_route() {
    // 129 is past serde_json's recursion limit; 1,000 the default limit.
    for depth in [129, 1000, 1001] {
        let ok = depth <= 1000;
        let ctx = record(depth);
        let path = temp_file(&format!("ctx{depth}.json"), ctx.as_bytes());
        let check = |o: &Output, route: &str, want_ok: &str| {
            if ok {
                assert_eq!(
                    (code(o), stdout(o).as_str()),
                    (0, want_ok),
                    "{route} at {depth}: {}",
                    stderr(o)
                );
            } else {
                let out = stdout(o);
                let text = format!("{out}{}", stderr(o));
                assert!(text.contains(&too_deep(1000)), "{route} at {depth}: {text}");
            }
        };
        // eval: --context, --context-file FILE and -.
        let o = run(&["eval", "a != null", "--context", &ctx]);
        check(&o, "--context", "true\n");
        let o = run(&["eval", "a != null", "--context-file", &path]);
        check(&o, "--context-file", "true\n");
        let o = run_with(
            &["eval", "a != null", "--context-file", "-"],
            ctx.as_bytes(),
        );
        check(&o, "--context-file -", "true\n");
        if !ok {
            assert_eq!(code(&o), 2);
        }
        // run: the fields read, the whole record (--as), NDJSON or a JSON
        // array, one worker or several.
        let ndjson = format!("{{\"a\": 0}}\n{ctx}\n");
        let array = format!("[{{\"a\": 0}}, {ctx}]");
        for (input, format) in [(&ndjson, "ndjson"), (&array, "json")] {
            for jobs in ["1", "2"] {
                for (expr, extra) in [("a", None), ("r.a", Some("r"))] {
                    let mut args = vec!["run", expr, "--input", format, "-j", jobs, "-q"];
                    if let Some(name) = extra {
                        args.extend(["--as", name]);
                    }
                    let o = run_with(&args, input.as_bytes());
                    let route = format!("run {}", args.join(" "));
                    if ok {
                        assert_eq!(code(&o), 0, "{route}: {}", stderr(&o));
                        let got = stdout(&o);
                        let lines: Vec<&str> = got.lines().collect();
                        assert_eq!(lines.len(), 2, "{route}");
                        assert_eq!(lines[0], "0");
                        // The value read is written back, as deep as it was read.
                        assert_eq!(lines[1], nested(depth - 1), "{route}");
                    } else {
                        assert_eq!(code(&o), 2, "{route}");
                        assert_eq!(stdout(&o), "0\n", "{route}");
                        let want = if format == "json" { ":1: " } else { ":2: " };
                        assert!(
                            stderr(&o).contains(&format!("<stdin>{want}{}", too_deep(1000))),
                            "{route}: {}",
                            stderr(&o)
                        );
                    }
                }
            }
        }
        // batch: the context object is level 1.
        let request = format!("{{\"expression\": \"a != null\", \"context\": {ctx}}}\n");
        let o = run_with(&["batch"], request.as_bytes());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        if ok {
            assert_eq!(stdout(&o), "{\"ok\":true}\n");
        } else {
            assert_eq!(
                stdout(&o),
                format!(
                    "{}\n",
                    batch_input_error(&format!("line 1: {}", too_deep(1000)))
                )
            );
        }
        // check --sample reads the first record.
        let o = run(&["check", "a", "--sample", &path]);
        check(
            &o,
            "check --sample",
            "ok\nfree variables: a\nfunctions: (none)\n",
        );
    }
}

#[test]
fn the_depth_limit_is_the_flag_s_above_and_below_serde_json_s() {
    for (limit, depth) in [(10u32, 10usize), (5000, 5000)] {
        let flag = limit.to_string();
        let args = |ctx: &str| -> Output {
            run(&[
                "eval",
                "a != null",
                "--context",
                ctx,
                "--max-value-depth",
                &flag,
            ])
        };
        let o = args(&record(depth));
        assert_eq!(stdout(&o), "true\n", "{limit}: {}", stderr(&o));
        let o = args(&record(depth + 1));
        assert_eq!(code(&o), 2);
        assert!(stderr(&o).contains(&too_deep(limit)), "{}", stderr(&o));
        let input = format!("{}\n{}\n", record(depth), record(depth + 1));
        let o = run_with(
            &[
                "run",
                "a != null",
                "--on-error",
                "null",
                "--max-value-depth",
                &flag,
            ],
            input.as_bytes(),
        );
        assert_eq!(stdout(&o), "true\nnull\n", "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("<stdin>:2: {}", too_deep(limit))),
            "{}",
            stderr(&o)
        );
    }
    // The flag is the evaluation's value-depth budget too.
    let o = run(&["eval", "[[[1]]]", "--max-value-depth", "2"]);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("Value depth limit exceeded"),
        "{}",
        stderr(&o)
    );
    let o = run(&["eval", "[[1]]", "--max-value-depth", "2"]);
    assert_eq!(stdout(&o), "[[1]]\n");
    let o = run(&["check", "1", "--max-value-depth", "none"]);
    assert_eq!(code(&o), 0);
    // A field the expression does not read is only checked, at any depth.
    let input = format!("{{\"skipped\": {}, \"a\": 2}}\n", nested(100_000));
    let o = run_with(&["run", "a", "-q"], input.as_bytes());
    assert_eq!(
        (code(&o), stdout(&o).as_str()),
        (0, "2\n"),
        "{}",
        stderr(&o)
    );
    // Also when the field read is deeper than serde_json reads.
    let input = format!(
        "{{\"a\": {}, \"skipped\": {}}}\n",
        nested(300),
        nested(100_000)
    );
    let o = run_with(&["run", "a != null", "-q"], input.as_bytes());
    assert_eq!(
        (code(&o), stdout(&o).as_str()),
        (0, "true\n"),
        "{}",
        stderr(&o)
    );
    // Checked, still: a broken skipped part is an error.
    let input = format!(
        "{{\"a\": {}, \"skipped\": [{}, ]}}\n",
        nested(300),
        nested(1000)
    );
    let o = run_with(&["run", "a != null", "-q"], input.as_bytes());
    assert_eq!(code(&o), 2);
    // At the `]` after the comma, as serde_json places it in a shallow text.
    let column = input.find(", ]").map_or(0, |i| i + 3);
    let want = format!("<stdin>:1: invalid JSON: trailing comma at column {column}");
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
}

// ------------------------------------- the regex budget and the batch cache

/// Runs `xpr ARGS` on `stdin`: (status, stdout, stderr).
fn outcome(args: &[&str], stdin: &str) -> (i32, String, String) {
    let o = run_with(args, stdin.as_bytes());
    (code(&o), stdout(&o), stderr(&o))
}

#[test]
fn the_command_line_takes_the_regex_limit_and_a_cache_bound_in_bytes() {
    // Two small literals take about 40 KB together.
    let (code, _, err) = outcome(
        &["eval", "[/a/, /b/].length", "--max-regex-bytes", "30000"],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("error: Regex size limit exceeded: the regex literals of the expression compile to more than 30000 bytes at position 6"),
        "{err}"
    );
    let (code, out, _) = outcome(
        &[
            "eval",
            "[/a/, /a/, /b/].length",
            "--max-regex-bytes",
            "100000",
        ],
        "",
    );
    assert_eq!((code, out.trim()), (0, "3"));
    let (code, out, _) = outcome(
        &["eval", "[/a/, /b/].length", "--max-regex-bytes", "none"],
        "",
    );
    assert_eq!((code, out.trim()), (0, "2"));
    // `batch` with a cache bound smaller than one program: every line is
    // still answered (compiled for its line, not kept).
    let lines = "{\"expression\": \"/a+/.test(s)\", \"context\": {\"s\": \"xa\"}}\n".repeat(3);
    let (code, out, err) = outcome(&["batch", "--cache-bytes", "1000"], &lines);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "{\"ok\":true}\n".repeat(3));
}
