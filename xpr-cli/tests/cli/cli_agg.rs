//! `xpr run --agg/--group-by` (`--slurp`, `-r` and tables: `cli_output`).
//! Grouped results over the real data in `../shared/data`
//! (skipped with a message when absent, unless `XPR_REQUIRE_SHARED=1`)
//! are compared with the same questions computed here over serde_json,
//! and with DuckDB when `duckdb` is on the PATH; every question gives
//! the same bytes with `--jobs 1` and `--jobs 2`.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use common::{assert_fails, code, lines, run, run_with, shared, stderr, stdout, temp_file};
use serde_json::{Value as Json, json};

fn records(path: &Path) -> Vec<Json> {
    std::fs::read_to_string(path)
        .expect("data")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// Runs `xpr run ARGS FILE` with `--jobs 1` and `--jobs 2`: both must
/// succeed with the same bytes; returns the output lines as JSON.
fn agg(args: &[&str], file: &Path) -> Vec<Json> {
    let file = file.display().to_string();
    let mut outs = Vec::new();
    for jobs in ["1", "2"] {
        let mut all = vec!["run", "-q", "--jobs", jobs];
        all.extend_from_slice(args);
        all.push(&file);
        let o = run(&all);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        outs.push(stdout(&o));
    }
    assert_eq!(outs[0], outs[1], "--jobs 1 and 2 differ for {args:?}");
    outs[0]
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Groups `rows` by `key` in the order of first appearance.
fn group_by(rows: &[Json], key: impl Fn(&Json) -> Json) -> Vec<(Json, Vec<&Json>)> {
    let mut order: Vec<(Json, Vec<&Json>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for r in rows {
        let k = key(r);
        let text = k.to_string();
        let i = *index.entry(text).or_insert_with(|| {
            order.push((k, Vec::new()));
            order.len() - 1
        });
        order[i].1.push(r);
    }
    order
}

fn num(v: &Json) -> Option<f64> {
    v.as_f64()
}

/// Equal, numbers within a relative 1e-12 (an exact sum against the
/// naive left fold computed here).
fn close(got: &Json, want: &Json) -> bool {
    match (got, want) {
        (Json::Number(a), Json::Number(b)) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(x, y))
        }
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && a.keys().zip(b.keys()).all(|(x, y)| x == y)
                && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| close(v, w)))
        }
        _ => got == want,
    }
}

#[track_caller]
fn assert_rows(got: &[Json], want: &[Json]) {
    assert_eq!(got.len(), want.len(), "rows: {got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(close(g, w), "got  {g}\nwant {w}");
    }
}

fn sum(values: impl Iterator<Item = f64>) -> Json {
    let v: Vec<f64> = values.collect();
    if v.is_empty() {
        Json::Null
    } else {
        json!(v.iter().sum::<f64>())
    }
}

fn avg(values: impl Iterator<Item = f64>) -> Json {
    let v: Vec<f64> = values.collect();
    if v.is_empty() {
        Json::Null
    } else {
        json!(v.iter().sum::<f64>() / v.len() as f64)
    }
}

fn extreme(values: impl Iterator<Item = f64>, max: bool) -> Json {
    values
        .reduce(|a, b| if (b > a) == max { b } else { a })
        .map_or(Json::Null, |x| json!(x))
}

// ------------------------------------------------- the real data

#[test]
fn w4_sum_of_distance_per_origin() {
    let Some(file) = shared("flights-20k.ndjson") else {
        return;
    };
    let got = agg(
        &["--group-by", "origin", "--agg", "total: sum(distance)"],
        &file,
    );
    let rows = records(&file);
    let want: Vec<Json> = group_by(&rows, |r| r["origin"].clone())
        .into_iter()
        .map(|(k, g)| json!({"origin": k, "total": sum(g.iter().filter_map(|r| num(&r["distance"])))}))
        .collect();
    assert_rows(&got, &want);
    // Integers: the sums are exact, not only close.
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g["total"].as_f64(), w["total"].as_f64());
    }
}

#[test]
fn flights_per_route_count_lateness_extremes_and_order() {
    let Some(file) = shared("flights-20k.ndjson") else {
        return;
    };
    let got = agg(
        &[
            "--group-by",
            "origin, destination",
            "--agg",
            "n: count(), late: avg(delay > 15 ? 1 : 0), worst: max(delay), best: min(delay), \
             first: first(date), last: last(date), long: count(distance > 2000 ? 1 : null)",
        ],
        &file,
    );
    let rows = records(&file);
    let want: Vec<Json> = group_by(&rows, |r| json!([r["origin"], r["destination"]]))
        .into_iter()
        .map(|(k, g)| {
            let delays = || g.iter().filter_map(|r| num(&r["delay"]));
            json!({
                "origin": k[0], "destination": k[1], "n": g.len(),
                "late": avg(delays().map(|d| if d > 15.0 { 1.0 } else { 0.0 })),
                "worst": extreme(delays(), true), "best": extreme(delays(), false),
                "first": g[0]["date"], "last": g[g.len() - 1]["date"],
                "long": g.iter().filter(|r| num(&r["distance"]).is_some_and(|d| d > 2000.0)).count(),
            })
        })
        .collect();
    assert_rows(&got, &want);
}

#[test]
fn earthquakes_per_network_with_nulls_skipped() {
    let Some(file) = shared("earthquakes.ndjson") else {
        return;
    };
    let got = agg(
        &[
            "--group-by",
            "net: properties.net",
            "--agg",
            "n: count(), felt: count(properties.felt), mag: avg(properties.mag), \
             top: max(properties.mag), felt_sum: sum(properties.felt), \
             types: countDistinct(properties.magType)",
        ],
        &file,
    );
    let rows = records(&file);
    let want: Vec<Json> = group_by(&rows, |r| r["properties"]["net"].clone())
        .into_iter()
        .map(|(k, g)| {
            let p = |name: &'static str| g.iter().map(move |r| &r["properties"][name]);
            let mut types: Vec<String> = p("magType")
                .filter(|t| !t.is_null())
                .map(|t| t.to_string())
                .collect();
            types.sort();
            types.dedup();
            json!({
                "net": k, "n": g.len(),
                "felt": p("felt").filter(|f| !f.is_null()).count(),
                "mag": avg(p("mag").filter_map(num)),
                "top": extreme(p("mag").filter_map(num), true),
                "felt_sum": sum(p("felt").filter_map(num)),
                "types": types.len(),
            })
        })
        .collect();
    assert_rows(&got, &want);
}

#[test]
fn earthquakes_by_magnitude_class_with_depth_sums() {
    let Some(file) = shared("earthquakes.ndjson") else {
        return;
    };
    let got = agg(
        &[
            "--group-by",
            "class: (properties.mag ?? 0) >= 4 ? \"strong\" : \"weak\", tsunami: properties.tsunami",
            "--agg",
            "n: count(), depth: sum(geometry.coordinates[2]), deepest: max(geometry.coordinates[2]), \
             ids: collect(id, 5000)",
        ],
        &file,
    );
    let rows = records(&file);
    let want: Vec<Json> = group_by(&rows, |r| {
        let mag = num(&r["properties"]["mag"]).unwrap_or(0.0);
        json!([
            if mag >= 4.0 { "strong" } else { "weak" },
            r["properties"]["tsunami"]
        ])
    })
    .into_iter()
    .map(|(k, g)| {
        let depth = || {
            g.iter()
                .filter_map(|r| num(&r["geometry"]["coordinates"][2]))
        };
        json!({
            "class": k[0], "tsunami": k[1], "n": g.len(),
            "depth": sum(depth()), "deepest": extreme(depth(), true),
            "ids": g.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(),
        })
    })
    .collect();
    assert_rows(&got, &want);
}

#[test]
fn without_group_by_all_records_are_one_group() {
    let Some(file) = shared("flights-20k.ndjson") else {
        return;
    };
    let got = agg(
        &[
            "--agg",
            "n: count(), total: sum(distance), origins: countDistinct(origin)",
        ],
        &file,
    );
    let rows = records(&file);
    let mut origins: Vec<String> = rows.iter().map(|r| r["origin"].to_string()).collect();
    origins.sort();
    origins.dedup();
    let want = json!({
        "n": rows.len(),
        "total": sum(rows.iter().filter_map(|r| num(&r["distance"]))),
        "origins": origins.len(),
    });
    assert_rows(&got, &[want]);
}

/// DuckDB's answer to `query` (`FILE` replaced by `file`'s path) as JSON
/// rows, or `None` when `duckdb` is not on the PATH.
fn duckdb(query: &str, file: &Path) -> Option<Vec<Json>> {
    let query = query.replace("FILE", &format!("read_json_auto('{}')", file.display()));
    let Ok(out) = std::process::Command::new("duckdb")
        .args(["-json", "-c", &query])
        .output()
    else {
        eprintln!("skipping: duckdb is not on the PATH");
        return None;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if out.stdout.iter().all(u8::is_ascii_whitespace) {
        return Some(Vec::new());
    }
    Some(serde_json::from_slice(&out.stdout).expect("duckdb's JSON"))
}

/// `rows` ordered by the text of their first `keys` fields.
fn by_key(mut rows: Vec<Json>, keys: &[&str]) -> Vec<Json> {
    let text = |r: &Json| keys.iter().map(|k| r[*k].to_string()).collect::<Vec<_>>();
    rows.sort_by_key(text);
    rows
}

/// W4 and three more grouped questions over both data sets, as xpr and
/// DuckDB answer them (when `duckdb` is installed: `pip install
/// duckdb-cli` puts it on the PATH of a venv).
#[test]
fn grouped_questions_match_duckdb_when_installed() {
    let (Some(flights), Some(quakes)) =
        (shared("flights-20k.ndjson"), shared("earthquakes.ndjson"))
    else {
        return;
    };
    let questions: [(&Path, &[&str], &str, &str); 4] = [
        (
            &flights,
            &["origin"],
            "total: sum(distance), n: count(), delay: avg(delay)",
            "SELECT origin, sum(distance)::DOUBLE AS total, count(*) AS n, avg(delay) AS delay \
             FROM FILE GROUP BY origin",
        ),
        (
            &flights,
            &["origin", "destination"],
            "n: count(), late: avg(delay > 15 ? 1 : 0), worst: max(delay), best: min(delay), \
             long: count(distance > 2000 ? 1 : null)",
            "SELECT origin, destination, count(*) AS n, \
             avg(CASE WHEN delay > 15 THEN 1 ELSE 0 END) AS late, max(delay)::DOUBLE AS worst, \
             min(delay)::DOUBLE AS best, count(CASE WHEN distance > 2000 THEN 1 END) AS long \
             FROM FILE GROUP BY origin, destination",
        ),
        (
            &quakes,
            &["net"],
            "n: count(), felt: count(properties.felt), mag: avg(properties.mag), \
             top: max(properties.mag), types: countDistinct(properties.magType)",
            "SELECT properties.net AS net, count(*) AS n, count(properties.felt) AS felt, \
             avg(properties.mag)::DOUBLE AS mag, max(properties.mag)::DOUBLE AS top, \
             count(DISTINCT properties.magType) AS types FROM FILE GROUP BY properties.net",
        ),
        (
            &quakes,
            &["class", "tsunami"],
            "n: count(), depth: sum(geometry.coordinates[2]), deepest: max(geometry.coordinates[2])",
            "SELECT CASE WHEN coalesce(properties.mag, 0) >= 4 THEN 'strong' ELSE 'weak' END AS class, \
             properties.tsunami AS tsunami, count(*) AS n, sum(geometry.coordinates[3])::DOUBLE AS depth, \
             max(geometry.coordinates[3])::DOUBLE AS deepest FROM FILE GROUP BY ALL",
        ),
    ];
    for (file, keys, aggs, query) in questions {
        let Some(want) = duckdb(query, file) else {
            return;
        };
        let group_by = match keys {
            ["net"] => "net: properties.net".to_string(),
            ["class", "tsunami"] => "class: (properties.mag ?? 0) >= 4 ? \"strong\" : \"weak\", \
                                     tsunami: properties.tsunami"
                .to_string(),
            _ => keys.join(", "),
        };
        let got = agg(&["--group-by", &group_by, "--agg", aggs], file);
        assert_rows(&by_key(got, keys), &by_key(want, keys));
    }
}

// ------------------------------------------------- semantics

const SMALL: &str = r#"{"k":"a","x":1,"s":"p"}
{"k":"b","x":null,"s":"q"}
{"k":"a","x":2.5,"s":null}
{"k":"b","x":null,"s":"q"}
{"k":"c","x":-4,"s":"r"}
"#;

#[test]
fn nulls_are_skipped_except_by_count_first_last_and_collect() {
    let o = run_with(
        &[
            "run",
            "-q",
            "--group-by",
            "k",
            "--agg",
            "n: count(), nx: count(x), s: sum(x), a: avg(x), lo: min(x), hi: max(x), \
             f: first(s), l: last(s), d: countDistinct(s), c: collect(x)",
        ],
        SMALL.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        lines(&o),
        [
            r#"{"k":"a","n":2,"nx":2,"s":3.5,"a":1.75,"lo":1,"hi":2.5,"f":"p","l":null,"d":1,"c":[1,2.5]}"#,
            r#"{"k":"b","n":2,"nx":0,"s":null,"a":null,"lo":null,"hi":null,"f":"q","l":"q","d":1,"c":[null,null]}"#,
            r#"{"k":"c","n":1,"nx":1,"s":-4,"a":-4,"lo":-4,"hi":-4,"f":"r","l":"r","d":1,"c":[-4]}"#,
        ]
    );
}

#[test]
fn no_records_give_one_row_without_group_by_and_none_with_it() {
    let o = run_with(
        &["run", "-q", "--agg", "n: count(), s: sum(x), c: collect(x)"],
        b"",
    );
    assert_eq!(lines(&o), [r#"{"n":0,"s":null,"c":[]}"#]);
    let o = run_with(
        &["run", "-q", "--group-by", "k", "--agg", "n: count()"],
        b"",
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn no_groups_as_a_table_are_its_header() {
    for (format, header) in [("csv", "k,\"a,b\",n\n"), ("tsv", "k\ta,b\tn\n")] {
        let o = run_with(
            &[
                "run",
                "-q",
                "--group-by",
                "k, \"a,b\": x",
                "--agg",
                "n: count()",
                "--output",
                format,
            ],
            b"",
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(stdout(&o), header);
    }
    // Written once, before the rows.
    let o = run_with(
        &[
            "run",
            "-q",
            "--group-by",
            "k",
            "--agg",
            "n: count()",
            "--output",
            "csv",
        ],
        b"{\"k\": 1}\n{\"k\": 2}\n",
    );
    assert_eq!(stdout(&o), "k,n\n1,1\n2,1\n");
}

#[test]
fn keys_compare_as_xpr_values_and_fields_read_paths() {
    let input = br#"{"p":{"n":0,"o":{"a":1,"b":2}}}
{"p":{"n":-0,"o":{"b":2,"a":1}}}
{"p":{"n":"0","o":null}}
"#;
    // Names must differ: the key `n` and the aggregate `n` collide.
    assert_fails(
        &o_named_twice(),
        2,
        "'n' is named in --group-by and in --agg",
    );
    let o = run_with(
        &[
            "run",
            "-q",
            "--group-by",
            "p.n, o: p.o",
            "--agg",
            "count: count()",
        ],
        input,
    );
    assert_eq!(
        lines(&o),
        [
            r#"{"n":0,"o":{"a":1,"b":2},"count":2}"#,
            r#"{"n":"0","o":null,"count":1}"#
        ]
    );
}

fn o_named_twice() -> std::process::Output {
    run_with(&["run", "--group-by", "p.n", "--agg", "n: count()"], b"")
}

#[test]
fn record_errors_follow_on_error() {
    let input =
        b"{\"k\":\"a\",\"x\":1}\n{\"k\":\"a\",\"x\":\"two\"}\nnot json\n{\"k\":\"b\",\"x\":3}\n";
    let args = |mode: &'static str| {
        vec![
            "run",
            "--group-by",
            "k",
            "--agg",
            "n: count(), s: sum(x)",
            "--on-error",
            mode,
        ]
    };
    let o = run_with(&args("fail"), input);
    assert_fails(
        &o,
        1,
        "<stdin>:2: s: Type error: sum() takes numbers (or null, which it skips), got string",
    );
    assert_eq!(stdout(&o), "");
    let o = run_with(&args("skip"), input);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        lines(&o),
        [r#"{"k":"a","n":1,"s":1}"#, r#"{"k":"b","n":1,"s":3}"#]
    );
    assert!(
        stderr(&o).contains("warning: <stdin>:3: invalid JSON"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("4 records in, 2 groups out, 2 errors"),
        "{}",
        stderr(&o)
    );
    // null: the failing value is null (skipped by sum), the record counts.
    let o = run_with(&args("null"), input);
    assert_eq!(
        lines(&o),
        [r#"{"k":"a","n":2,"s":1}"#, r#"{"k":"b","n":1,"s":3}"#]
    );
    // An unknown field, as in run.
    let o = run_with(&["run", "--agg", "s: sum(y)"], input);
    assert_fails(&o, 1, "<stdin>:1: s: Unknown identifier 'y'");
    let o = run_with(&["run", "--agg", "s: sum(xx)"], input);
    assert_fails(
        &o,
        1,
        "<stdin>:1: s: Unknown identifier 'xx' (did you mean 'x'?)",
    );
    // A field read directly (no program run) still fails where it is missing.
    let o = run_with(
        &["run", "--group-by", "k", "--agg", "s: sum(x)"],
        b"{\"k\":1,\"x\":1}\n{\"x\":2}\n",
    );
    assert_fails(&o, 1, "<stdin>:2: k: Unknown identifier 'k'");
}

#[test]
fn bounds_stop_the_run_with_the_flag_to_raise() {
    let o = run_with(
        &[
            "run",
            "--group-by",
            "k",
            "--agg",
            "n: count()",
            "--max-groups",
            "2",
        ],
        SMALL.as_bytes(),
    );
    assert_fails(&o, 1, "more than 2 groups (--max-groups 2)");
    assert_eq!(stdout(&o), "");
    let o = run_with(&["run", "--agg", "c: collect(k, 2)"], SMALL.as_bytes());
    assert_fails(
        &o,
        1,
        "c: collect() holds more than 2 values in the group {}",
    );
    let o = run_with(
        &["run", "--agg", "d: countDistinct(k, 2)"],
        SMALL.as_bytes(),
    );
    assert_fails(&o, 1, "d: countDistinct() holds more than 2 values");
    let o = run_with(
        &["run", "--agg", "c: collect(s)", "--max-group-bytes", "300"],
        SMALL.as_bytes(),
    );
    assert_fails(&o, 1, "more than 300 bytes (--max-group-bytes)");
    // A value `last` replaces is given back: 600 strings of 1,000
    // bytes, one held at a time.
    let long = format!("{{\"s\":\"{}\"}}\n", "x".repeat(1000)).repeat(600);
    let o = run_with(
        &[
            "run",
            "-q",
            "--agg",
            "l: last(s), f: first(s)",
            "--max-group-bytes",
            "5000",
        ],
        long.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let big = "{\"x\":1e308}\n".repeat(3);
    let o = run_with(&["run", "--agg", "s: sum(x)"], big.as_bytes());
    assert_fails(&o, 1, "s: Number overflow in sum()");
}

#[test]
fn lists_that_do_not_parse_say_what_to_write() {
    let o = run(&["run", "--agg", "total: summ(distance)"]);
    assert_fails(&o, 2, "'summ' is no aggregate (did you mean 'sum'?)");
    let o = run(&["run", "--agg", "total: sum(distance"]);
    assert_fails(&o, 2, "--agg: ");
    let o = run(&["run", "--group-by", "delay > 15", "--agg", "n: count()"]);
    assert_fails(
        &o,
        2,
        "give the key 'delay > 15' a name: 'NAME: delay > 15'",
    );
    let o = run(&["run", "--agg", "n: count()", "--filter"]);
    assert_fails(&o, 2, "--filter is not supported with --agg");
    let o = run(&["run", "--group-by", "k"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn agg_files_are_every_argument_and_csv_works() {
    let a = temp_file("a.ndjson", b"{\"k\":\"x\",\"v\":1}\n");
    let b = temp_file(
        "b.ndjson",
        b"{\"k\":\"y, z\",\"v\":2}\n{\"k\":\"x\",\"v\":3}\n",
    );
    let o = run(&[
        "run",
        "-q",
        "--group-by",
        "k",
        "--agg",
        "v: sum(v), last: last(v)",
        "--output",
        "csv",
        &a,
        &b,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "k,v,last\nx,4,3\n\"y, z\",2,2\n");
}

#[test]
fn the_first_failing_record_stops_the_run_whatever_the_jobs() {
    // About 40 chunks: with two workers the late failure is often met
    // first, yet the run names the earlier one.
    let mut input = String::new();
    for i in 1..=60_000 {
        let x = if i == 3_000 || i == 50_000 {
            "\"bad\"".to_string()
        } else {
            i.to_string()
        };
        input.push_str(&format!(
            "{{\"k\":{},\"x\":{x},\"pad\":\"{}\"}}\n",
            i % 7,
            "p".repeat(100)
        ));
    }
    for jobs in ["1", "2"] {
        let o = run_with(
            &[
                "run",
                "--jobs",
                jobs,
                "--group-by",
                "k",
                "--agg",
                "s: sum(x)",
            ],
            input.as_bytes(),
        );
        assert_fails(&o, 1, "<stdin>:3000: s: Type error");
        assert!(!stderr(&o).contains(":50000:"), "{}", stderr(&o));
        let o = run_with(
            &[
                "run",
                "--jobs",
                jobs,
                "--group-by",
                "k",
                "--agg",
                "s: sum(x)",
                "--on-error",
                "skip",
            ],
            input.as_bytes(),
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let err = stderr(&o);
        let first = err.find(":3000:").expect("the first error is shown");
        assert!(
            err.find(":50000:").is_some_and(|second| second > first),
            "{err}"
        );
        assert!(
            err.contains("60000 records in, 7 groups out, 2 errors"),
            "{err}"
        );
    }
}

#[test]
fn deep_keys_do_not_overflow_the_stack() {
    let depth = 200_000;
    let record = format!("{{\"k\":{}1{}}}\n", "[".repeat(depth), "]".repeat(depth));
    let input = record.repeat(2);
    let o = run_with(
        &[
            "run",
            "-q",
            "--max-value-depth",
            "none",
            "--group-by",
            "k",
            "--agg",
            "n: count(), d: countDistinct(k)",
        ],
        input.as_bytes(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("]]]],\"n\":2,\"d\":1}\n"),
        "{}",
        &stdout(&o)[..100]
    );
}

#[test]
fn the_group_flags_need_agg() {
    for flag in [
        ["--group-by", "k"],
        ["--max-groups", "5"],
        ["--max-group-bytes", "5"],
    ] {
        let o = run_with(&["run", flag[0], flag[1], "k"], b"{\"k\": 1}\n");
        assert_fails(&o, 2, "--agg <LIST>");
    }
}

#[test]
fn quiet_hides_the_record_warnings_of_agg_and_slurp() {
    let input = b"{\"x\": \"s\"}\n{\"x\": 1}\n\xff\n";
    for mode in [&["--agg", "s: sum(x)"][..], &["--slurp", "records.length"]] {
        let mut args = vec!["run", "--on-error", "skip"];
        args.extend_from_slice(mode);
        let o = run_with(&args, input);
        assert!(stderr(&o).contains("warning: <stdin>:"), "{}", stderr(&o));
        args.push("-q");
        let o = run_with(&args, input);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("xpr: 3 records in, 1 "), "{mode:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{mode:?}: {err}");
        args.push("-q");
        assert_eq!(stderr(&run_with(&args, input)), "", "{mode:?}");
    }
}

#[test]
fn a_part_that_does_not_compile_is_named_after_error() {
    let o = run_with(
        &[
            "run",
            "--group-by",
            "k: x.repeat(1)",
            "--agg",
            "n: count()",
            "--deny",
            "repeat",
        ],
        b"{\"x\": \"a\"}\n",
    );
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).starts_with("error: k: Access denied: method 'repeat' is not allowed"),
        "{}",
        stderr(&o)
    );
}
