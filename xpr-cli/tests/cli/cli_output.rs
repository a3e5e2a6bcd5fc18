//! `xpr run --slurp`, `-r/--raw` and `--output csv|tsv`.

use crate::common;

use common::{assert_fails, code, lines, orders, run, run_with, stderr, stdout};

const SMALL: &str = r#"{"k":"a","x":1,"s":"p"}
{"k":"b","x":null,"s":"q"}
{"k":"a","x":2.5,"s":null}
{"k":"b","x":null,"s":"q"}
{"k":"c","x":-4,"s":"r"}
"#;

// ------------------------------------------------- --slurp

#[test]
fn slurp_evaluates_once_over_all_records() {
    let o = run(&["run", "--slurp", "records.length", &orders()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "50\n");
    assert!(
        stderr(&o).contains("50 records in, 1 out"),
        "{}",
        stderr(&o)
    );
    let o = run_with(
        &[
            "run",
            "-q",
            "--slurp",
            "records.sortBy(r => -r.x).map(r => r.k)",
        ],
        SMALL.replace("null", "0").as_bytes(),
    );
    assert_eq!(stdout(&o), "[\"a\",\"a\",\"b\",\"b\",\"c\"]\n");
    let o = run_with(&["run", "-q", "--slurp", "records"], b"");
    assert_eq!(stdout(&o), "[]\n"); // The summary counts in the singular or plural, as run and --agg do.
    let one = b"{\"a\": 12345678901234567890}\n\xff\n";
    let o = run_with(&["run", "--slurp", "records", "--on-error", "skip"], one);
    let summary = stderr(&o);
    assert!(
        summary.contains("xpr: 2 records in, 1 out, 1 error, ")
            && summary.ends_with(" 1 integer beyond 2^53\n"),
        "{summary}"
    );
    let o = run_with(&["run", "--slurp", "records"], b"{}\n");
    assert!(
        stderr(&o).starts_with("xpr: 1 record in, 1 out, 0 errors, "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn slurp_is_bounded_by_the_memory_budget() {
    let o = run(&[
        "run",
        "--slurp",
        "records.length",
        "--max-memory",
        "10000",
        &orders(),
    ]);
    assert_fails(
        &o,
        1,
        "Memory limit exceeded: the records take more than 10000 bytes",
    );
    assert_eq!(stdout(&o), "");
    let o = run_with(&["run", "--slurp", "records.length"], b"1\nnope\n2\n");
    assert_fails(&o, 2, "<stdin>:2: invalid JSON");
    let o = run_with(
        &["run", "-q", "--slurp", "records", "--on-error", "null"],
        b"1\nnope\n2\n",
    );
    assert_eq!(stdout(&o), "[1,null,2]\n");
}

// ------------------------------------------------- -r and tables

#[test]
fn raw_prints_strings_without_quotes() {
    let o = run_with(
        &["run", "-q", "-r", "v"],
        b"{\"v\":\"a \\\"b\\\"\"}\n{\"v\":\"tab\\there\"}\n{\"v\":2}\n{\"v\":[\"x\"]}\n{\"v\":null}\n",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "a \"b\"\ntab\there\n2\n[\"x\"]\nnull\n");
    let o = run(&["run", "-q", "--raw", "customer.name", &orders()]);
    assert_eq!(lines(&o)[0], "Barbara Liskov");
    let o = run(&["run", "-q", "--slurp", "-r", "records[0].status", &orders()]);
    assert_eq!(stdout(&o), "paid\n"); // A table writes strings its own way: -r with one is a usage error,
    // whatever else is asked (--agg, --slurp).
    for extra in [&[][..], &["--agg", "n: count()"], &["--slurp"]] {
        for format in ["csv", "tsv"] {
            let mut args = vec!["run", "-r", "--output", format];
            args.extend_from_slice(extra);
            if extra.first() != Some(&"--agg") {
                args.push("{s: status}");
            }
            let path = orders();
            args.push(&path);
            assert_fails(
                &run(&args),
                2,
                &format!(
                    "-r/--raw writes strings as lines of text: it does not go with --output {format}"
                ),
            );
        }
    }
}

#[test]
fn csv_and_tsv_keep_the_first_results_fields_and_quote() {
    let input = br#"{"a":"x,y","b":"say \"hi\"","c":1}
{"a":"line\nbreak","b":"","c":null}
{"a":"t\tab","b":"ok"}
"#;
    let o = run_with(
        &[
            "run",
            "-q",
            "{b: r.b, a: r.a, c: r.c}",
            "--as",
            "r",
            "--output",
            "csv",
        ],
        input,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "b,a,c\n\"say \"\"hi\"\"\",\"x,y\",1\n\"\",\"line\nbreak\",\nok,t\tab,\n"
    );
    let o = run_with(
        &[
            "run",
            "-q",
            "{b: r.b, a: r.a}",
            "--as",
            "r",
            "--output",
            "tsv",
        ],
        input,
    );
    assert_eq!(
        stdout(&o),
        "b\ta\nsay \"hi\"\tx,y\n\tline\\nbreak\nok\tt\\tab\n"
    );
}

#[test]
fn tables_refuse_what_they_cannot_hold() {
    let input = b"{\"a\":1}\n{\"a\":2,\"b\":3}\n{\"a\":4}\n5\n";
    let o = run_with(&["run", "--as", "r", "r", "--output", "csv"], input);
    assert_fails(
        &o,
        1,
        "<stdin>:2: Type error: the result's field 'b' is not a column of the table",
    );
    assert_eq!(stdout(&o), "a\n1\n");
    let o = run_with(
        &[
            "run",
            "-q",
            "--as",
            "r",
            "r",
            "--output",
            "csv",
            "--on-error",
            "skip",
        ],
        input,
    );
    assert_eq!(stdout(&o), "a\n1\n4\n");
    let o = run_with(
        &[
            "run",
            "--as",
            "r",
            "r",
            "--output",
            "csv",
            "--on-error",
            "skip",
        ],
        input,
    );
    assert!(
        stderr(&o).contains("<stdin>:4: Type error: --output csv and tsv write objects"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("4 records in, 2 out, 2 errors"),
        "{}",
        stderr(&o)
    );
    // The rows the table refuses and the results that are no objects are
    // shown in input order.
    let shown: Vec<String> = stderr(&o)
        .lines()
        .filter_map(|l| l.strip_prefix("warning: <stdin>:"))
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(shown, ["2", "4"], "{}", stderr(&o));
    let o = run_with(
        &[
            "run",
            "--as",
            "r",
            "r",
            "--output",
            "tsv",
            "--on-error",
            "null",
        ],
        b"{\"a\":1}\n{\"b\":1}\n5\n{\"c\":1}\n[]\n",
    );
    let shown: Vec<String> = stderr(&o)
        .lines()
        .filter_map(|l| l.strip_prefix("warning: <stdin>:"))
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(shown, ["2", "3", "4", "5"], "{}", stderr(&o));
    // A null result is no row.
    let o = run_with(
        &[
            "run",
            "-q",
            "--as",
            "r",
            "r.a > 1 ? r : null",
            "--output",
            "csv",
            "--on-error",
            "skip",
        ],
        input,
    );
    assert_eq!(stdout(&o), "a,b\n2,3\n4,\n");
    let o = run(&["run", "--filter", "total > 1", "--output", "csv", &orders()]);
    assert_fails(&o, 2, "--filter writes the records as they are");
}

// ------------------------------------- object results written from fields

#[test]
fn object_results_are_written_as_when_built() {
    // Written straight from the literal's fields by default; built (and
    // then written) when a schema, per-record audit lines or -r are on:
    // the same text either way, errors included.
    let input = concat!(
        "{\"k\":\"a\\\"q\",\"x\":1,\"s\":\"\\u00e9\\n\"}\n",
        "{\"k\":\"b\",\"x\":null,\"s\":[1,{\"z\":2}],\"t\":9007199254740993}\n",
        "{\"k\":\"c\",\"x\":-0.5e3,\"s\":{}}\n",
        "{\"k\":\"d\",\"x\":\"no\"}\n",
    );
    let expr = "x == \"no\" ? x * 2 : {k: k, s: s, n: x, e: {}, l: [x, {k: k}], k2: k + \"!\"}";
    let schema = common::temp_file("any.schema.json", b"{}");
    let audit = common::temp_file("direct.audit.jsonl", b"");
    let base = ["run", "--on-error", "null", "-q", expr];
    let direct = run_with(&base, input.as_bytes());
    let want = concat!(
        "{\"k\":\"a\\\"q\",\"s\":\"é\\n\",\"n\":1,\"e\":{},\"l\":[1,{\"k\":\"a\\\"q\"}],\"k2\":\"a\\\"q!\"}\n",
        "{\"k\":\"b\",\"s\":[1,{\"z\":2}],\"n\":null,\"e\":{},\"l\":[null,{\"k\":\"b\"}],\"k2\":\"b!\"}\n",
        "{\"k\":\"c\",\"s\":{},\"n\":-500,\"e\":{},\"l\":[-500,{\"k\":\"c\"}],\"k2\":\"c!\"}\n",
        "null\n",
    );
    assert_eq!(stdout(&direct), want, "{}", stderr(&direct));
    for extra in [
        &["--output-schema", schema.as_str()][..],
        &["--audit", audit.as_str(), "--audit-records"],
        &["-r"],
        &["--jobs", "2"],
    ] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        let o = run_with(&args, input.as_bytes());
        assert_eq!(stdout(&o), want, "{extra:?}: {}", stderr(&o));
        assert_eq!(code(&o), code(&direct), "{extra:?}");
    }
}
