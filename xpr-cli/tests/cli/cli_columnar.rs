//! `xpr run --input parquet|arrow` and `--output parquet|arrow` (cargo
//! feature `columnar`): round trips read back with arrow-rs, order with
//! `--jobs`, nulls and nested columns, errors per row under each
//! `--on-error` policy, bounded memory, refused codecs and flags.
//!
//! `zstd.parquet` and `gzip.parquet` beside this file hold one column `n`
//! = [1, 2, 3], written by pyarrow 22 with those codecs (this build reads
//! neither).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::Int64Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch,
    RecordBatchReader as _, StringArray, StructArray,
};
use arrow_schema::{DataType, Field};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;

use crate::common::{assert_fails, code, lines, run, stderr, temp_file};

/// `batch` as a Parquet file's bytes, in row groups of `group` rows.
fn parquet_bytes(batch: &RecordBatch, group: usize) -> Vec<u8> {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).expect("writer");
    w.write(batch).expect("write");
    w.into_inner().expect("close")
}

/// `batch` as an Arrow IPC file's bytes.
fn arrow_bytes(batch: &RecordBatch) -> Vec<u8> {
    let mut w = arrow_ipc::writer::FileWriter::try_new(Vec::new(), &batch.schema()).expect("ipc");
    w.write(batch).expect("write");
    w.finish().expect("finish");
    w.into_inner().expect("bytes")
}

/// All rows of a Parquet file's bytes, as one batch.
fn read_parquet(bytes: Vec<u8>) -> RecordBatch {
    let file = std::fs::File::open(temp_file("read.parquet", &bytes)).expect("open");
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet file")
        .build()
        .expect("reader");
    let schema = reader.schema();
    let batches: Vec<_> = reader.map(|b| b.expect("batch")).collect();
    arrow_select::concat::concat_batches(&schema, &batches).expect("concat")
}

/// All rows of an Arrow IPC file's bytes, as one batch.
fn read_arrow(bytes: Vec<u8>) -> RecordBatch {
    let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
        .expect("an Arrow IPC file");
    let schema = reader.schema();
    let batches: Vec<_> = reader.map(|b| b.expect("batch")).collect();
    arrow_select::concat::concat_batches(&schema, &batches).expect("concat")
}

/// Six rows: `id` 0..6, `name` with nulls, `tags` a list column (one list
/// null), `pos` a struct column {x, y}.
fn nested() -> RecordBatch {
    let mut tags = ListBuilder::new(StringBuilder::new());
    for row in [
        Some(vec!["a", "b"]),
        Some(vec![]),
        None,
        Some(vec!["c"]),
        Some(vec!["d", "e", "f"]),
        Some(vec!["g"]),
    ] {
        match row {
            Some(items) => {
                for t in items {
                    tags.values().append_value(t);
                }
                tags.append(true);
            }
            None => tags.append(false),
        }
    }
    let x = Arc::new(Float64Array::from(vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0])) as ArrayRef;
    let y = Arc::new(Int64Array::from(vec![
        Some(1),
        None,
        Some(3),
        Some(4),
        None,
        Some(6),
    ]));
    let pos = StructArray::from(vec![
        (Arc::new(Field::new("x", DataType::Float64, true)), x),
        (
            Arc::new(Field::new("y", DataType::Int64, true)),
            y as ArrayRef,
        ),
    ]);
    RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..6)) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(vec![
                Some("ann"),
                None,
                Some("cy"),
                Some("dee"),
                None,
                Some("fay"),
            ])),
        ),
        ("tags", Arc::new(tags.finish())),
        ("pos", Arc::new(pos)),
    ])
    .expect("batch")
}

/// The NDJSON lines of `xpr run ARGS EXPR FILE`, which must succeed.
fn ndjson(args: &[&str], expr: &str, file: &str) -> Vec<String> {
    let o = run(&[&["run", "-q"], args, &[expr, file]].concat());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    lines(&o)
}

#[test]
fn nested_and_null_columns_read_as_json() {
    let batch = nested();
    // Row groups of 4: the rows come from two of them.
    let file = temp_file("nested.parquet", &parquet_bytes(&batch, 4));
    let want = [
        r#"{"id":0,"name":"ann","tags":["a","b"],"pos":{"x":0.5,"y":1}}"#,
        r#"{"id":1,"name":null,"tags":[],"pos":{"x":1,"y":null}}"#,
        r#"{"id":2,"name":"cy","tags":null,"pos":{"x":1.5,"y":3}}"#,
        r#"{"id":3,"name":"dee","tags":["c"],"pos":{"x":2,"y":4}}"#,
        r#"{"id":4,"name":null,"tags":["d","e","f"],"pos":{"x":2.5,"y":null}}"#,
        r#"{"id":5,"name":"fay","tags":["g"],"pos":{"x":3,"y":6}}"#,
    ];
    assert_eq!(
        ndjson(&["--input", "parquet", "--filter"], "true", &file),
        want
    );
    let arrow = temp_file("nested.arrow", &arrow_bytes(&batch));
    assert_eq!(
        ndjson(&["--input", "arrow", "--filter"], "true", &arrow),
        want
    );
    // Nested fields, list items and nulls in expressions.
    let got = ndjson(
        &["--input", "parquet"],
        "{id: id, first: (tags ?? [])[0], n: (tags ?? []).length, x: pos.x, y: pos.y ?? -1, who: name ?? \"?\"}",
        &file,
    );
    assert_eq!(
        got[0],
        r#"{"id":0,"first":"a","n":2,"x":0.5,"y":1,"who":"ann"}"#
    );
    assert_eq!(
        got[2],
        r#"{"id":2,"first":null,"n":0,"x":1.5,"y":3,"who":"cy"}"#
    );
    assert_eq!(
        got[4],
        r#"{"id":4,"first":"d","n":3,"x":2.5,"y":-1,"who":"?"}"#
    );
}

#[test]
fn filter_round_trips_through_parquet_and_arrow() {
    let batch = nested();
    let file = temp_file("rt.parquet", &parquet_bytes(&batch, 4));
    let keep = BooleanArray::from(vec![false, true, false, true, false, true]);
    let want = arrow_select::filter::filter_record_batch(&batch, &keep).expect("filter");
    for output in ["parquet", "arrow"] {
        let o = run(&[
            "run",
            "-q",
            "--input",
            "parquet",
            "--output",
            output,
            "--filter",
            "id % 2 == 1",
            &file,
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let got = match output {
            "parquet" => read_parquet(o.stdout),
            _ => read_arrow(o.stdout),
        };
        assert_eq!(got, want, "--output {output}");
        // And back through the CLI: the written file is read again.
        let again = temp_file(&format!("rt.{output}"), &{
            let o = run(&[
                "run", "-q", "--input", "parquet", "--output", output, "--filter", "true", &file,
            ]);
            o.stdout
        });
        let got = ndjson(&["--input", output, "--filter"], "true", &again);
        assert_eq!(
            got,
            ndjson(&["--input", "parquet", "--filter"], "true", &file)
        );
    }
}

#[test]
fn results_are_one_value_column() {
    let file = temp_file("values.parquet", &parquet_bytes(&nested(), 4));
    let run_to = |output: &str, expr: &str| {
        let o = run(&[
            "run", "-q", "--input", "parquet", "--output", output, expr, &file,
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        match output {
            "parquet" => read_parquet(o.stdout),
            _ => read_arrow(o.stdout),
        }
    };
    let got = run_to("parquet", "pos.x * 2");
    assert_eq!(got.schema().field(0).name(), "value");
    let want: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    assert_eq!(got.column(0), &want);
    let got = run_to("arrow", "name?.upper()");
    let want: ArrayRef = Arc::new(StringArray::from(vec![
        Some("ANN"),
        None,
        Some("CY"),
        Some("DEE"),
        None,
        Some("FAY"),
    ]));
    assert_eq!(got.column(0), &want);
    // Objects are JSON text.
    let got = run_to("parquet", "{id: id}");
    let want: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..6).map(|i| format!("{{\"id\":{i}}}")),
    ));
    assert_eq!(got.column(0), &want);
}

/// `n` rows: `id` 0..n, `v` = id except every 1000th row (from row 999),
/// null.
fn numbers(n: i64) -> RecordBatch {
    let v = Int64Array::from_iter((0..n).map(|i| (i % 1000 != 999).then_some(i)));
    RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
        ),
        ("v", Arc::new(v) as ArrayRef),
    ])
    .expect("batch")
}

#[test]
fn order_is_kept_with_jobs() {
    let n = 100_000;
    let file = temp_file("order.parquet", &parquet_bytes(&numbers(n), 30_000));
    let want: Vec<String> = (0..n).map(|i| (i * 3).to_string()).collect();
    for jobs in ["1", "4"] {
        assert_eq!(
            ndjson(&["--input", "parquet", "--jobs", jobs], "id * 3", &file),
            want
        );
    }
    // Filtered rows too, into Parquet.
    let o = run(&[
        "run",
        "-q",
        "--input",
        "parquet",
        "--output",
        "parquet",
        "--jobs",
        "4",
        "--filter",
        "id % 7 == 0",
        &file,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = read_parquet(o.stdout);
    let ids = got
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .expect("ids");
    assert_eq!(ids.values().to_vec(), (0..n).step_by(7).collect::<Vec<_>>());
}

/// An unknown name that looks like a typo of one of the file's columns
/// gets `did you mean`, as a record's field does in NDJSON: whether the
/// program reads the column or not, the filter late or not, Parquet or
/// Arrow, stopping the run or shown as a warning.
#[test]
fn a_typo_of_a_column_name_is_answered_with_the_column() {
    let batch = numbers(100);
    let parquet = temp_file("typo.parquet", &parquet_bytes(&batch, 100));
    let arrow = temp_file("typo.arrow", &arrow_bytes(&batch));
    for (file, format) in [(&parquet, "parquet"), (&arrow, "arrow")] {
        for args in [
            vec!["run", "-q", "--input", format, "vv + 1"],
            vec![
                "run",
                "-q",
                "--input",
                format,
                "--filter",
                "id > 1 && vv > 1",
            ],
            vec!["run", "--input", format, "--on-error", "null", "vv + 1"],
        ] {
            let o = run(&[args.as_slice(), &[file.as_str()]].concat());
            let err = stderr(&o);
            assert!(
                err.contains("Unknown identifier 'vv' (did you mean 'v'?)"),
                "{args:?}: {err}"
            );
        }
    }
    // A name like none of them: no guess.
    let o = run(&["run", "-q", "--input", "parquet", "price", &parquet]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
}

#[test]
fn errors_are_per_row_with_the_row_number() {
    // 20,000 rows: nulls in `v` at rows (from 1) 1000, 2000, ... 20000,
    // across several batches.
    let file = temp_file("errors.parquet", &parquet_bytes(&numbers(20_000), 20_000));
    let o = run(&["run", "-q", "--input", "parquet", "v + 1", &file]);
    assert_fails(&o, 1, &format!("error: {file}: row 1000: Type error"));
    // Null: a null line in its place, a warning naming the row.
    let o = run(&[
        "run",
        "--input",
        "parquet",
        "--on-error",
        "null",
        "v + 1",
        &file,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = lines(&o);
    assert_eq!(got.len(), 20_000);
    assert_eq!(got[998], "999");
    assert_eq!(got[999], "null");
    assert_eq!(got[19_999], "null");
    let err = stderr(&o);
    assert!(
        err.contains(&format!("warning: {file}: row 1000: Type error")),
        "{err}"
    );
    assert!(
        err.contains(&format!("warning: {file}: row 9000: Type error")),
        "{err}"
    );
    assert!(
        err.contains("20000 records in, 20000 out, 20 errors"),
        "{err}"
    );
    assert!(!err.contains("further row errors"), "{err}");
    // Beyond 20 errors, the rest are counted.
    let o = run(&[
        "run",
        "--input",
        "parquet",
        "--on-error",
        "null",
        "id % 500 == 0 ? id.x() : id",
        &file,
    ]);
    let err = stderr(&o);
    assert_eq!(err.matches("warning: ").count(), 21, "{err}");
    assert!(
        err.contains("warning: further row errors are counted, not shown\n"),
        "{err}"
    );
    assert!(
        err.contains("20000 records in, 20000 out, 40 errors"),
        "{err}"
    );
    // -q: the summary line alone; -qq: nothing.
    let args = [
        "run",
        "--input",
        "parquet",
        "--on-error",
        "null",
        "id % 500 == 0 ? id.x() : id",
        &file,
    ];
    let quiet = run(&[&args[..], &["-q"]].concat());
    let err = stderr(&quiet);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("xpr: 20000 records in, 20000 out, 40 errors"),
        "{err}"
    );
    assert_eq!(lines(&quiet), lines(&o));
    assert_eq!(stderr(&run(&[&args[..], &["-qq"]].concat())), "");
    // Skip: the row is left out.
    let o = run(&[
        "run",
        "--input",
        "parquet",
        "--on-error",
        "skip",
        "--jobs",
        "3",
        "v + 1",
        &file,
    ]);
    let got = lines(&o);
    assert_eq!(got.len(), 19_980);
    assert_eq!(got[999], "1001");
    assert!(
        stderr(&o).contains("20000 records in, 19980 out, 20 errors"),
        "{}",
        stderr(&o)
    );
    // A filter does not keep a failed row, under either policy.
    let skipped = run(&[
        "run",
        "-q",
        "--input",
        "parquet",
        "--on-error",
        "skip",
        "--filter",
        "v > 18990",
        &file,
    ]);
    let skipped = lines(&skipped);
    let o = run(&[
        "run",
        "-q",
        "--input",
        "parquet",
        "--on-error",
        "null",
        "--filter",
        "v > 18990",
        &file,
    ]);
    assert_eq!(lines(&o), skipped);
    assert_eq!(
        lines(&o),
        (18991..20_000)
            .filter(|i| i % 1000 != 999)
            .map(|i| format!("{{\"id\":{i},\"v\":{i}}}"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn refused_codecs_and_flags_are_named() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    for codec in ["zstd", "gzip"] {
        let file = here.join(format!("{codec}.parquet")).display().to_string();
        let o = run(&["run", "--input", "parquet", "n", &file]);
        assert_fails(
            &o,
            2,
            &format!("{file}: compressed with {codec}, which this build of xpr does not read"),
        );
    }
    let file = temp_file("flags.parquet", &parquet_bytes(&numbers(10), 10));
    let o = run(&["run", "--input", "parquet", "id"]);
    assert_fails(&o, 2, "--input parquet reads files, not standard input");
    let o = run(&["run", "--input", "parquet", "--as", "r", "id", &file]);
    assert_fails(&o, 2, "--as is not supported with --input parquet");
    let o = run(&["run", "--output", "parquet", "id", &file]);
    assert_fails(
        &o,
        2,
        "--output parquet needs --input parquet or --input arrow",
    );
    let missing = format!("{file}.missing");
    let o = run(&["run", "--input", "arrow", "id", &missing]);
    assert_fails(&o, 2, &missing);
}

#[test]
fn results_changing_type_between_batches_are_refused_in_one_column() {
    // Numbers in the first batch, strings in the next: one column cannot
    // hold both; NDJSON can.
    let file = temp_file("types.parquet", &parquet_bytes(&numbers(20_000), 20_000));
    let expr = "id < 10000 ? id : \"x\"";
    let o = run(&[
        "run", "-q", "--input", "parquet", "--output", "parquet", expr, &file,
    ]);
    assert_fails(&o, 1, "results change type from one batch to the next");
    assert_eq!(ndjson(&["--input", "parquet"], expr, &file).len(), 20_000);
    // All-null batches take the column's type.
    let expr = "id < 10000 ? id : null";
    let o = run(&[
        "run", "-q", "--input", "parquet", "--output", "parquet", expr, &file,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let got = read_parquet(o.stdout);
    assert_eq!(got.num_rows(), 20_000);
    assert_eq!(got.column(0).null_count(), 10_000);
}

#[test]
fn memory_stays_near_the_batch_size() {
    // 200,000 rows of 1,000-byte strings: 200 MB decoded, small on disk.
    let n = 200_000;
    let pad = "x".repeat(990);
    let s = StringArray::from_iter_values((0..n).map(|i| format!("{i:010}{pad}")));
    let list = ListArray::from_iter_primitive::<Int64Type, _, _>((0..n).map(|i| Some([Some(i)])));
    let batch = RecordBatch::try_from_iter([
        ("s", Arc::new(s) as ArrayRef),
        ("l", Arc::new(list) as ArrayRef),
    ])
    .expect("batch");
    let file = temp_file("big.parquet", &parquet_bytes(&batch, 16_384));
    // Each row's string, quoted, on a line: 200 MB of output, read slowly
    // enough that the peak is taken while the child is still writing.
    let expected = n as usize * 1003;
    let (out, peak, errors) = crate::cli_bounds::output_and_peak(
        &[
            "run",
            "-q",
            "--input",
            "parquet",
            "--jobs",
            "2",
            "l[0] >= 0 ? s : null",
            &file,
        ],
        b"",
        expected,
    );
    assert_eq!(out, expected, "{errors}");
    assert!(
        peak < 100 << 20,
        "peak {} MiB for 200 MB of rows",
        peak >> 20
    );
}

/// An object literal is evaluated by its properties, each columnar; the
/// output is the same as the whole object's, row by row (`true ? {..} :
/// null` is no literal: evaluated whole), failing rows and budgets too.
#[test]
fn object_literals_by_parts_give_the_whole_objects_answers() {
    let file = temp_file("parts.parquet", &parquet_bytes(&numbers(20_000), 20_000));
    let nested = temp_file("parts-nested.parquet", &parquet_bytes(&nested(), 4));
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "{a: id * 2, b: id % 3 == 0, \"c\\\"d\": `n${id}`}",
            &[],
            &file,
        ),
        (
            "{a: id / 7, s: (id + 0.5).round()}",
            &["--jobs", "3"],
            &file,
        ),
        // Row 1000 fails in a part: its batch is evaluated whole.
        ("{a: id, b: v + 1}", &["--on-error", "null"], &file),
        ("{a: id, b: v + 1}", &["--on-error", "skip"], &file),
        ("{a: id, b: v + 1}", &[], &file),
        // Each part within the fuel, the object not: the whole decides.
        (
            "{a: id + 1, b: id + 2, c: id + 3, d: id + 4}",
            &["--fuel", "12", "--on-error", "null"],
            &file,
        ),
        (
            "{x: pos.x, t: tags, n: name, p: pos, k: {id: id}}",
            &[],
            &nested,
        ),
        ("{x: pos.x, x: 1}", &[], &nested),
    ];
    for (expr, flags, file) in cases {
        let mut outputs = Vec::new();
        for e in [expr.to_string(), format!("true ? {expr} : null")] {
            let o = run(&[&["run", "--input", "parquet"], *flags, &[&e, file]].concat());
            let err = stderr(&o).replace(&e, "EXPR");
            // Positions differ by the prefix's length; the summary line's
            // seconds differ from run to run.
            let err: String = err
                .lines()
                .filter(|l| !l.trim_start().starts_with('^') && !l.starts_with("xpr: "))
                .collect();
            let err = err.split(" at position").next().unwrap_or("").to_string();
            outputs.push((code(&o), lines(&o), err));
        }
        assert_eq!(outputs[0], outputs[1], "{expr} {flags:?}");
        assert!(!outputs[0].1.is_empty() || outputs[0].0 != 0, "{expr}");
    }
}

/// Kept rows are written cell by cell: each Arrow type as the program
/// reads it (integers and floats as numbers, NaN as null); a column of a
/// type XPR does not read is refused, naming it.
#[test]
fn kept_rows_write_each_type_as_read() {
    use arrow_array::{
        BooleanArray, Date32Array, Float32Array, Int32Array, LargeStringArray, UInt8Array,
    };
    let batch = RecordBatch::try_from_iter([
        (
            "f",
            Arc::new(Float32Array::from(vec![1.5, f32::NAN])) as ArrayRef,
        ),
        ("u", Arc::new(UInt8Array::from(vec![Some(255), None]))),
        ("i", Arc::new(Int32Array::from(vec![-7, 0]))),
        ("b", Arc::new(BooleanArray::from(vec![Some(true), None]))),
        (
            "s",
            Arc::new(LargeStringArray::from(vec!["a\"\u{e9}\n", ""])),
        ),
    ])
    .expect("batch");
    let file = temp_file("types.arrow", &arrow_bytes(&batch));
    let want = [
        r#"{"f":1.5,"u":255,"i":-7,"b":true,"s":"a\"é\n"}"#,
        r#"{"f":null,"u":null,"i":0,"b":null,"s":""}"#,
    ];
    assert_eq!(
        ndjson(&["--input", "arrow", "--filter"], "true", &file),
        want
    );
    // The same values as the program reads them.
    let got = ndjson(
        &["--input", "arrow"],
        "{f: f, u: u, i: i, b: b, s: s}",
        &file,
    );
    assert_eq!(got, want);
    let dated = RecordBatch::try_from_iter([
        ("n", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ("d", Arc::new(Date32Array::from(vec![19_000]))),
    ])
    .expect("batch");
    let file = temp_file("dated.arrow", &arrow_bytes(&dated));
    // Not read by the program: fine; written whole by --filter: refused.
    assert_eq!(ndjson(&["--input", "arrow"], "n", &file), ["1"]);
    let o = run(&["run", "--input", "arrow", "--filter", "n > 0", &file]);
    assert_fails(
        &o,
        2,
        "column 'd' has Arrow type Date32, which XPR cannot read",
    );
}

/// Five columns over 50,000 rows, with nulls in each but `id`: `v` null
/// every 1,000th row, `s` every 7th, `f` every 11th, `b` every 13th.
fn mixed(n: i64) -> RecordBatch {
    let v = Int64Array::from_iter((0..n).map(|i| (i % 1000 != 999).then_some(i)));
    let s = StringArray::from_iter((0..n).map(|i| (i % 7 != 3).then(|| format!("s{}", i % 97))));
    let f = Float64Array::from_iter((0..n).map(|i| (i % 11 != 5).then_some(i as f64 / 4.0)));
    let b = BooleanArray::from_iter((0..n).map(|i| (i % 13 != 0).then_some(i % 2 == 0)));
    RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
        ),
        ("v", Arc::new(v) as ArrayRef),
        ("s", Arc::new(s) as ArrayRef),
        ("f", Arc::new(f) as ArrayRef),
        ("b", Arc::new(b) as ArrayRef),
    ])
    .expect("batch")
}

/// What a run gave, comparable between files: status, stdout, and stderr
/// with the file's name and the summary's seconds taken out.
fn outcome(args: &[&str], file: &str) -> (i32, Vec<u8>, String) {
    let o = run(&[args, &[file]].concat());
    let err = stderr(&o).replace(file, "FILE");
    let err = match err.rsplit_once(", ") {
        Some((head, _)) if err.contains(" records in, ") => head.to_string(),
        _ => err,
    };
    (code(&o), o.stdout, err)
}

/// `--filter` over Parquet decodes the predicate's columns first and the
/// others for the kept rows only: the same rows, bytes, warnings and
/// counts as the whole rows evaluated (the same batch read from an Arrow
/// IPC file), over several row groups, with nulls in the predicate's
/// columns and in the others, failing rows, each policy, `--jobs` 1 and 2;
/// through parquet's reader (a boolean column) and through xpr's own
/// decoding (without it; docs/decisions.md, "Parquet pages decoded by
/// xpr").
#[test]
fn late_filter_gives_the_whole_rows_answers() {
    let with_bool = mixed(50_000);
    let without = with_bool.project(&[0, 1, 2, 3]).expect("project");
    let cases = [
        (&with_bool, "s == \"s5\" || b", "b != null"),
        (&without, "s == \"s5\" || f < 10", "true"),
    ];
    for (batch, third, last) in cases {
        let parquet = temp_file("late.parquet", &parquet_bytes(batch, 12_000));
        let arrow = temp_file("late.arrow", &arrow_bytes(batch));
        let every = format!("id >= 0 && v != null && s != null && f != null && {last}");
        let exprs = [
            // Null operands fail (`v + 1` on a null `v`): rows 1000, 2000, ...
            "v + 1 > 40000 || v % 97 == 0",
            "id % 5000 == 0 ? id.x() : id % 3 == 0 && f > 100",
            third,
            "f ?? 0 > 12000",
            // Reads no column, and every column: read whole.
            "true",
            &every,
        ];
        late_filter_case(&parquet, &arrow, &exprs);
    }
}

fn late_filter_case(parquet: &str, arrow: &str, exprs: &[&str]) {
    for &expr in exprs {
        for policy in ["null", "skip"] {
            for jobs in ["1", "2"] {
                let args = [
                    "run",
                    "--on-error",
                    policy,
                    "--jobs",
                    jobs,
                    "--filter",
                    expr,
                ];
                let late = outcome(&[&args[..], &["--input", "parquet"]].concat(), parquet);
                let whole = outcome(&[&args[..], &["--input", "arrow"]].concat(), arrow);
                assert_eq!(late.0, 0, "{expr}: {}", late.2);
                assert!(!late.1.is_empty(), "{expr}");
                assert_eq!(late, whole, "{expr} {policy} --jobs {jobs}");
            }
        }
        // Into Parquet: the same kept rows with the file's schema.
        let args = ["run", "-q", "--on-error", "null", "--output", "parquet"];
        let o = run(&[
            &args[..],
            &["--input", "parquet", "--filter", expr, parquet],
        ]
        .concat());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let w = run(&[&args[..], &["--input", "arrow", "--filter", expr, arrow]].concat());
        assert_eq!(read_parquet(o.stdout), read_parquet(w.stdout), "{expr}");
    }
    // `--on-error fail`: the first failing row (31000, in the third row
    // group) stops the run; the rows kept before its batch are written.
    let expr = "id < 30000 ? id % 1000 == 5 : v + 1 > 0";
    for jobs in ["1", "2"] {
        let o = run(&[
            "run", "--input", "parquet", "--jobs", jobs, "--filter", expr, parquet,
        ]);
        assert_fails(&o, 1, &format!("error: {parquet}: row 31000: Type error"));
        let got = lines(&o);
        assert!(got.len() >= 24, "{}", got.len());
        for (i, line) in got.iter().enumerate() {
            assert!(
                line.starts_with(&format!("{{\"id\":{},", i * 1000 + 5)),
                "{line}"
            );
        }
    }
}

/// String results are written as JSON strings whether or not their batch
/// holds a character to escape (a batch with none is copied as it is):
/// one row group of plain strings, one with quotes, backslashes and
/// control characters, one with non-ASCII text.
#[test]
fn string_results_are_escaped_per_batch_as_needed() {
    let words = ["plain", "a\"b", "c\\d", "e\nf\u{1}", "caf\u{e9} \u{2028}"];
    let n = 30_000;
    let s = StringArray::from_iter_values((0..n).map(|i| {
        let group = i / 10_000;
        match group {
            0 => words[0].to_string(),
            1 => words[1 + i % 3].to_string(),
            _ => words[4].to_string(),
        }
    }));
    let batch = RecordBatch::try_from_iter([("s", Arc::new(s) as ArrayRef)]).expect("batch");
    let file = temp_file("escapes.parquet", &parquet_bytes(&batch, 10_000));
    let got = ndjson(&["--input", "parquet"], "s + \"\"", &file);
    let want: Vec<String> = (0..n)
        .map(|i| match i / 10_000 {
            0 => "\"plain\"".to_string(),
            1 => ["\"a\\\"b\"", "\"c\\\\d\"", "\"e\\nf\\u0001\""][i % 3].to_string(),
            _ => "\"caf\u{e9} \u{2028}\"".to_string(),
        })
        .collect();
    assert_eq!(got, want);
}
