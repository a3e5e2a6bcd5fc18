//! The batch API: policies, results, nested columns, budgets.

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, MapBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field};
use xpr::{Engine, ErrorKind, Limits};
use xpr_arrow::{
    BatchOptions, Budget, OnError, evaluate_batch, evaluate_batch_report, filter_batch,
    filter_batch_report,
};

fn batch() -> RecordBatch {
    RecordBatch::try_from_iter([
        (
            "n",
            Arc::new(Float64Array::from(vec![
                Some(1.5),
                None,
                Some(-2.0),
                Some(40.0),
            ])) as ArrayRef,
        ),
        (
            "i",
            Arc::new(Int64Array::from(vec![1, 2, 3, 4])) as ArrayRef,
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![
                Some("ab"),
                Some("Ça"),
                None,
                Some(""),
            ])) as ArrayRef,
        ),
        (
            "b",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
            ])) as ArrayRef,
        ),
    ])
    .unwrap()
}

fn opts(on_error: OnError) -> BatchOptions {
    BatchOptions {
        on_error,
        ..BatchOptions::default()
    }
}

fn both(options: &BatchOptions) -> [BatchOptions; 2] {
    [
        options.clone(),
        BatchOptions {
            row_by_row: true,
            ..options.clone()
        },
    ]
}

fn f64s(a: &ArrayRef) -> Vec<Option<f64>> {
    a.as_primitive::<Float64Type>().iter().collect()
}

#[test]
fn policies_fail_null_skip() {
    let p = Engine::new().compile("n * 2").unwrap();
    for o in both(&opts(OnError::Fail)) {
        let e = evaluate_batch(&p, &batch(), &o).unwrap_err();
        assert_eq!(e.row, Some(1));
        assert_eq!(e.error.kind(), ErrorKind::Type);
        assert!(e.to_string().starts_with("row 1: Type error"), "{e}");
    }
    for o in both(&opts(OnError::Null)) {
        let r = evaluate_batch_report(&p, &batch(), &o).unwrap();
        assert_eq!(f64s(&r.values), [Some(3.0), None, Some(-4.0), Some(80.0)]);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].0, 1);
    }
    for o in both(&opts(OnError::Skip)) {
        let v = evaluate_batch(&p, &batch(), &o).unwrap();
        assert_eq!(f64s(&v), [Some(3.0), Some(-4.0), Some(80.0)]);
    }
}

#[test]
fn result_types_static_inferred_and_mixed() {
    let e = Engine::new();
    let cases: &[(&str, DataType)] = &[
        ("i > 2", DataType::Boolean),
        ("i + 1", DataType::Float64),
        ("`${i}`", DataType::Utf8),
        ("i", DataType::Float64),
        ("s", DataType::Utf8),
        ("null", DataType::Null),
        ("[i]", DataType::Utf8),
        ("i > 2 ? i : \"x\"", DataType::Utf8),
    ];
    for (src, dt) in cases {
        let p = e.compile(src).unwrap();
        for o in both(&opts(OnError::Fail)) {
            let v = evaluate_batch(&p, &batch(), &o).unwrap();
            assert_eq!(v.data_type(), dt, "{src}");
            assert_eq!(v.len(), 4);
        }
    }
    let p = e.compile("i > 2 ? i : \"x\"").unwrap();
    let v = evaluate_batch(&p, &batch(), &BatchOptions::default()).unwrap();
    let got: Vec<_> = v.as_string::<i32>().iter().collect();
    assert_eq!(got, [Some("\"x\""), Some("\"x\""), Some("3"), Some("4")]);
    let p = e.compile("[i, s]").unwrap();
    let v = evaluate_batch(&p, &batch(), &BatchOptions::default()).unwrap();
    assert_eq!(v.as_string::<i32>().value(2), "[3,null]");
    // Whether a `Utf8` result is JSON text: arrays, objects, mixes (static
    // type or inferred), on both paths; not for strings.
    let cases = [
        ("s", false),
        ("`${i}`", false),
        ("[i]", true),
        ("{a: i}", true),
        ("i > 2 ? i : \"x\"", true),
        ("i > 2 ? [i] : {b: 1}", true),
        ("i > 1 ? s : null", false),
        ("i > 2", false),
    ];
    for (src, json) in cases {
        let p = e.compile(src).unwrap();
        for o in both(&opts(OnError::Null)) {
            let r = evaluate_batch_report(&p, &batch(), &o).unwrap();
            assert_eq!(r.json_text, json, "{src} {o:?}");
        }
    }
}

#[test]
fn rows_and_cells_as_values() {
    let b = batch();
    let row = xpr_arrow::row_value(&b, 1).unwrap();
    assert_eq!(
        xpr::to_json_string(&row).unwrap(),
        r#"{"n":null,"i":2,"s":"Ça","b":false}"#
    );
    let cell = xpr_arrow::cell_value(b.column(2).as_ref(), 0).unwrap();
    assert_eq!(cell, xpr::Value::from("ab"));
    let dates: ArrayRef = Arc::new(arrow_array::Date32Array::from(vec![1]));
    let e = xpr_arrow::cell_value(dates.as_ref(), 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    let with_dates = RecordBatch::try_from_iter([("d", dates)]).unwrap();
    let e = xpr_arrow::row_value(&with_dates, 0).unwrap_err();
    assert!(
        e.message().contains("column 'd' has Arrow type Date32"),
        "{e}"
    );
}

#[test]
fn strings_by_characters_and_unknown_columns() {
    let e = Engine::new();
    let p = e.compile("s.len()").unwrap();
    let v = evaluate_batch(&p, &batch(), &opts(OnError::Null)).unwrap();
    assert_eq!(f64s(&v), [Some(2.0), Some(2.0), None, Some(0.0)]);
    let p = e.compile("missing + 1").unwrap();
    let err = evaluate_batch(&p, &batch(), &BatchOptions::default()).unwrap_err();
    assert_eq!((err.row, err.error.kind()), (Some(0), ErrorKind::Reference));
}

#[test]
fn filter_keeps_truthy_rows() {
    let p = Engine::new().compile("s").unwrap();
    let out = filter_batch(&p, &batch(), &BatchOptions::default()).unwrap();
    assert_eq!(out.num_rows(), 2);
    let p = Engine::new().compile("n > 0").unwrap();
    assert_eq!(
        filter_batch(&p, &batch(), &BatchOptions::default())
            .unwrap_err()
            .row,
        Some(1)
    );
    for policy in [OnError::Null, OnError::Skip] {
        let out = filter_batch(&p, &batch(), &opts(policy)).unwrap();
        let kept: Vec<_> = f64s(out.column(0));
        assert_eq!(kept, [Some(1.5), Some(40.0)]);
    }
}

#[test]
fn filter_report_names_the_dropped_failures_and_the_fuel() {
    let p = Engine::new().compile("n > 0").unwrap();
    for policy in [OnError::Null, OnError::Skip] {
        let (kept, report) = filter_batch_report(&p, &batch(), &opts(policy)).unwrap();
        assert_eq!(kept.num_rows(), 2);
        let failed: Vec<_> = report.errors.iter().map(|(r, e)| (*r, e.kind())).collect();
        assert_eq!(failed, [(1, ErrorKind::Type)]);
        assert_eq!(report.values.len(), 4);
        assert!(report.fuel_used > 0);
    }
    let tight = BatchOptions {
        on_error: OnError::Null,
        fuel: Budget::Limit(1),
        ..BatchOptions::default()
    };
    let err = filter_batch_report(&p, &batch(), &tight).unwrap_err();
    assert_eq!((err.row, err.error.kind()), (None, ErrorKind::Fuel));
}

#[test]
fn nested_struct_list_and_map_columns() {
    let inner = StructArray::from(vec![
        (
            Arc::new(Field::new("origin", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec!["SFO", "JFK"])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("miles", DataType::Float64, true)),
            Arc::new(Float64Array::from(vec![10.0, 20.0])) as ArrayRef,
        ),
    ]);
    let mut list = ListBuilder::new(StringBuilder::new());
    list.values().append_value("a");
    list.values().append_value("b");
    list.append(true);
    list.append(false);
    let mut map = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    map.keys().append_value("k");
    map.values().append_value("v");
    map.append(true).unwrap();
    map.append(true).unwrap();
    let batch = RecordBatch::try_from_iter([
        ("route", Arc::new(inner) as ArrayRef),
        ("tags", Arc::new(list.finish()) as ArrayRef),
        ("attrs", Arc::new(map.finish()) as ArrayRef),
    ])
    .unwrap();
    let p = Engine::new()
        .compile("`${route.origin}:${route.miles * 2}:${tags.join(\"+\")}:${attrs.k}`")
        .unwrap();
    let v = evaluate_batch(&p, &batch, &opts(OnError::Null)).unwrap();
    let got: Vec<_> = v.as_string::<i32>().iter().collect();
    // Row 1: tags is null, `null.join` is an error.
    assert_eq!(got, [Some("SFO:20:a+b:v"), None]);
}

#[test]
fn unsupported_column_types_are_refused_when_read() {
    let batch = RecordBatch::try_from_iter([
        (
            "d",
            Arc::new(arrow_array::Date32Array::from(vec![1])) as ArrayRef,
        ),
        ("x", Arc::new(Float64Array::from(vec![1.0])) as ArrayRef),
    ])
    .unwrap();
    let p = Engine::new().compile("x + 1").unwrap();
    assert!(evaluate_batch(&p, &batch, &BatchOptions::default()).is_ok());
    let p = Engine::new().compile("d").unwrap();
    let e = evaluate_batch(&p, &batch, &BatchOptions::default()).unwrap_err();
    assert_eq!((e.row, e.error.kind()), (None, ErrorKind::Type));
    assert!(e.error.message().contains("Date32"), "{e}");
}

fn engine_with(fuel: Option<u64>, memory: Option<u64>) -> Engine {
    Engine::new().with_limits(Limits {
        fuel,
        memory,
        ..Limits::default()
    })
}

#[test]
fn the_fuel_limit_bounds_the_batch_as_a_whole() {
    let rows: i32 = 1000;
    let batch = RecordBatch::try_from_iter([(
        "x",
        Arc::new(Float64Array::from(
            (0..rows).map(f64::from).collect::<Vec<_>>(),
        )) as ArrayRef,
    )])
    .unwrap();
    let src = "x > 10 && x < 900";
    // What the rows cost one by one.
    let p = engine_with(None, None).compile(src).unwrap();
    let mut vm = xpr::Vm::new();
    let mut row_cost = 0;
    for i in 0..rows {
        let mut m = xpr::Map::default();
        m.insert("x".into(), xpr::Value::Number(f64::from(i)));
        p.run_in(&mut vm, &m).unwrap();
        row_cost += vm.fuel_used();
    }
    for o in both(&BatchOptions::default()) {
        let r = evaluate_batch_report(&p, &batch, &o).unwrap();
        assert!(r.fuel_used >= row_cost, "{} < {row_cost}", r.fuel_used);
        for policy in [OnError::Fail, OnError::Null, OnError::Skip] {
            let o = BatchOptions {
                on_error: policy,
                ..o.clone()
            };
            let tight = engine_with(Some(row_cost - 1), None).compile(src).unwrap();
            let e = evaluate_batch(&tight, &batch, &o).unwrap_err();
            assert_eq!(e.error.kind(), ErrorKind::Fuel, "{e}");
            // Enough for one row each, not for the batch: `PerRow` lets it run.
            let per_row = engine_with(Some(row_cost / rows as u64 + 2), None)
                .compile(src)
                .unwrap();
            assert_eq!(
                evaluate_batch(&per_row, &batch, &o)
                    .unwrap_err()
                    .error
                    .kind(),
                ErrorKind::Fuel
            );
            let o = BatchOptions {
                fuel: Budget::PerRow,
                ..o.clone()
            };
            assert!(evaluate_batch(&per_row, &batch, &o).is_ok());
            let o = BatchOptions {
                fuel: Budget::Limit(row_cost - 1),
                ..o.clone()
            };
            assert_eq!(
                evaluate_batch(&p, &batch, &o).unwrap_err().error.kind(),
                ErrorKind::Fuel
            );
        }
    }
}

#[test]
fn the_memory_limit_bounds_the_batch_as_a_whole() {
    let rows = 1000;
    let batch = RecordBatch::try_from_iter([(
        "s",
        Arc::new(StringArray::from(vec!["abcdefgh"; rows])) as ArrayRef,
    )])
    .unwrap();
    let src = "s + s + \"!\"";
    let p = engine_with(None, None).compile(src).unwrap();
    let mut vm = xpr::Vm::new();
    let mut m = xpr::Map::default();
    m.insert("s".into(), xpr::Value::from("abcdefgh"));
    p.run_in(&mut vm, &m).unwrap();
    let one = vm.peak_memory();
    assert!(one > 0);
    let all = one * rows as u64;
    for o in both(&BatchOptions::default()) {
        let r = evaluate_batch_report(&p, &batch, &o).unwrap();
        assert!(r.memory_used >= all, "{} < {all}", r.memory_used);
        let tight = engine_with(None, Some(all - 1)).compile(src).unwrap();
        let e = evaluate_batch(&tight, &batch, &opts(OnError::Null)).unwrap_err();
        assert_eq!(e.error.kind(), ErrorKind::Memory, "{e}");
        let o = BatchOptions {
            memory: Budget::PerRow,
            ..o.clone()
        };
        assert!(evaluate_batch(&tight, &batch, &o).is_ok());
    }
}

#[test]
fn the_common_subset_runs_as_vector_operations() {
    let e = Engine::new();
    for (src, on_vm) in [
        ("i > 2 && i < 4 || !(i == 1)", 0),
        ("i * 2 + i / 4 - 1", 0),
        ("`${s}!`.lower()", 1),
        ("b ? i : -i", 0),
        ("n ?? 0", 0),
        // Row 1's null fails: that row alone is run on the VM.
        ("round(n) + floor(n) + abs(n)", 1),
        // Non-ASCII text: `upper` leaves the row to the VM.
        ("(s ?? \"\").upper()", 1),
        // Outside the subset: every row on the VM.
        ("[i].length", 4),
    ] {
        let p = e.compile(src).unwrap();
        let r = evaluate_batch_report(&p, &batch(), &opts(OnError::Null)).unwrap();
        assert_eq!(r.rows_on_vm, on_vm, "{src}");
        let by_rows = BatchOptions {
            row_by_row: true,
            ..opts(OnError::Null)
        };
        let rows = evaluate_batch_report(&p, &batch(), &by_rows).unwrap();
        assert_eq!(rows.values.as_ref(), r.values.as_ref(), "{src}");
        assert_eq!(rows.rows_on_vm, 4);
        assert!(r.fuel_used >= rows.fuel_used, "{src}");
    }
}

#[test]
fn nan_and_infinities_read_as_null_on_every_path() {
    let mut v: Vec<f64> = (0..5000).map(f64::from).collect();
    v[4100] = f64::NAN;
    v[10] = f64::INFINITY;
    let batch =
        RecordBatch::try_from_iter([("v", Arc::new(Float64Array::from(v)) as ArrayRef)]).unwrap();
    for src in [
        "v > 2",
        "v - 1",
        "v == 3",
        "`${v}`",
        "v > 2 && v < 4500 || v == 1",
    ] {
        let p = Engine::new().compile(src).unwrap();
        let by_rows = BatchOptions {
            row_by_row: true,
            ..opts(OnError::Null)
        };
        let rows = evaluate_batch_report(&p, &batch, &by_rows).unwrap();
        let cols = evaluate_batch_report(&p, &batch, &opts(OnError::Null)).unwrap();
        assert_eq!(rows.values.as_ref(), cols.values.as_ref(), "{src}");
        let failed =
            |e: &xpr_arrow::Evaluation| e.errors.iter().map(|(r, _)| *r).collect::<Vec<_>>();
        assert_eq!(failed(&rows), failed(&cols), "{src}");
        assert!(cols.fuel_used >= rows.fuel_used, "{src}");
        if src != "v == 3" && !src.starts_with('`') {
            assert_eq!(failed(&cols), [10, 4100], "{src}");
        }
    }
}

#[test]
fn chains_of_comparisons_charge_exactly_what_the_rows_cost() {
    let n = 3000;
    let a: Vec<f64> = (0..n).map(|i| f64::from(i % 100)).collect();
    let b: Vec<f64> = (0..n).map(|i| f64::from(i % 7) + 0.5).collect();
    // Integers, some beyond 2^53 (read as the nearest double).
    let k: Vec<i64> = (0..n)
        .map(|i| {
            if i % 5 == 0 {
                (1 << 53) + i64::from(i % 3)
            } else {
                i64::from(i % 50) - 10
            }
        })
        .collect();
    // 3,000 different numbers: as a dictionary, more entries than most
    // batches have rows.
    let big: Vec<f64> = (0..n).map(|i| f64::from((i * 7) % n)).collect();
    let plain = RecordBatch::try_from_iter([
        ("a", Arc::new(Float64Array::from(a.clone())) as ArrayRef),
        ("b", Arc::new(Float64Array::from(b.clone())) as ArrayRef),
        ("k", Arc::new(Int64Array::from(k.clone())) as ArrayRef),
        ("big", Arc::new(Float64Array::from(big.clone())) as ArrayRef),
    ])
    .unwrap();
    // The same columns as dictionaries (Parquet's dictionary pages as
    // `xpr run` reads them).
    let coded = RecordBatch::try_from_iter([
        ("a", dictionary_of(&a, Float64Array::from)),
        ("b", dictionary_of(&b, Float64Array::from)),
        ("k", dictionary_of(&k, Int64Array::from)),
        ("big", dictionary_of(&big, Float64Array::from)),
    ])
    .unwrap();
    let by_rows = BatchOptions {
        row_by_row: true,
        ..BatchOptions::default()
    };
    // Lengths around the pass's words (64 rows) and blocks (1,024), from
    // the start and from an offset.
    let mut batches = vec![];
    for whole in [&plain, &coded] {
        for len in [1, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025, 2111, 3000] {
            batches.push(whole.slice(0, len));
            batches.push(whole.slice(n as usize - len, len));
        }
        batches.push(whole.slice(37, 1500));
    }
    for src in [
        "a > 50 && b < 3",
        "a > 90 || b == 2.5 && a <= 10",
        "(a < 5 || a > 95) && (b != 1.5 || a == 0)",
        "a >= 50 && a <= 60 || b >= 6",
        // A chain under another operator: its bits read back row by row.
        "(a > 50 && b < 3) ? 1 : 2",
        "!(a == 3 || b == 0.5)",
        "k > 20 && a < 50 || k == 9007199254740992",
        "k != -10 && (k <= 0 || k >= 9007199254740993)",
        "big > 1500 && a < 50 || big == 7",
        // Left sides that let few rows through: the right compared at
        // those rows alone.
        "a == 3 && b < 3 || k == 2",
        "k == 7 && big > 10",
        "a != 3 || b == 0.5 && big < 100",
    ] {
        let p = Engine::new().compile(src).unwrap();
        for batch in &batches {
            let rows = evaluate_batch_report(&p, batch, &by_rows).unwrap();
            let cols = evaluate_batch_report(&p, batch, &BatchOptions::default()).unwrap();
            let len = batch.num_rows();
            assert_eq!(rows.values.as_ref(), cols.values.as_ref(), "{src} {len}");
            assert_eq!(cols.fuel_used, rows.fuel_used, "{src} {len}");
            assert_eq!(cols.rows_on_vm, 0, "{src} {len}");
        }
    }
}

#[test]
fn chains_over_dictionaries_of_every_size_match_the_rows() {
    // Entries: a few, some hundreds, some thousands, tens of thousands
    // (each size of the per-entry table), and more than the rows.
    for (rows, entries) in [
        (300_usize, 3_usize),
        (3000, 700),
        (9000, 5000),
        (70_000, 66_000),
        (500, 900),
    ] {
        // Row i of `x` is entry `i * 7919 % entries`: entry e is `e - 40`.
        let keys: Vec<i32> = (0..rows).map(|i| (i * 7919 % entries) as i32).collect();
        let x = arrow_array::DictionaryArray::<arrow_array::types::Int32Type>::try_new(
            arrow_array::Int32Array::from(keys),
            Arc::new(Int64Array::from_iter_values(
                (0..entries as i64).map(|e| e - 40),
            )),
        )
        .unwrap();
        let y: Vec<f64> = (0..rows).map(|i| (i % 13) as f64 / 2.0).collect();
        let coded = RecordBatch::try_from_iter([
            ("x", Arc::new(x) as ArrayRef),
            ("y", dictionary_of(&y, Float64Array::from)),
        ])
        .unwrap();
        let by_rows = BatchOptions {
            row_by_row: true,
            ..BatchOptions::default()
        };
        for src in ["x > 100 && y < 3", "x == -40 || y >= 5.5 && x <= 0"] {
            let p = Engine::new().compile(src).unwrap();
            let want = evaluate_batch_report(&p, &coded, &by_rows).unwrap();
            let got = evaluate_batch_report(&p, &coded, &BatchOptions::default()).unwrap();
            assert_eq!(got.values.as_ref(), want.values.as_ref(), "{src} {entries}");
            assert_eq!(got.fuel_used, want.fuel_used, "{src} {entries}");
        }
    }
}

/// `values` as a `Dictionary(Int32, _)` array: each different value once,
/// in order of first appearance.
fn dictionary_of<T: Copy + PartialEq, A: Array + 'static>(
    values: &[T],
    array: impl Fn(Vec<T>) -> A,
) -> ArrayRef {
    use arrow_array::types::Int32Type;
    let mut entries: Vec<T> = Vec::new();
    let keys: Vec<i32> = values
        .iter()
        .map(|v| {
            let at = entries.iter().position(|e| e == v).unwrap_or_else(|| {
                entries.push(*v);
                entries.len() - 1
            });
            i32::try_from(at).unwrap()
        })
        .collect();
    let d = arrow_array::DictionaryArray::<Int32Type>::try_new(
        arrow_array::Int32Array::from(keys),
        Arc::new(array(entries)),
    )
    .unwrap();
    Arc::new(d)
}

#[test]
fn a_chain_over_a_nan_or_an_infinity_fails_only_that_row() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let a: Vec<f64> = (0..2000)
            .map(|i| if i == 1500 { bad } else { f64::from(i) })
            .collect();
        let batch = RecordBatch::try_from_iter([(
            "a",
            Arc::new(Float64Array::from(a.clone())) as ArrayRef,
        )])
        .unwrap();
        a_chain_fails_only_the_bad_row(&batch, bad);
        // As a dictionary: the bad entry used by one row, then by none.
        let coded =
            RecordBatch::try_from_iter([("a", dictionary_of(&a, Float64Array::from))]).unwrap();
        a_chain_fails_only_the_bad_row(&coded, bad);
        a_chain_fails_only_the_bad_row(&coded.slice(0, 1500), bad);
    }
}

fn a_chain_fails_only_the_bad_row(batch: &RecordBatch, bad: f64) {
    {
        let batch = batch.clone();
        let p = Engine::new().compile("a > 10 && a < 1999").unwrap();
        let rows = evaluate_batch_report(&p, &batch, &opts(OnError::Null)).unwrap();
        let by_rows = BatchOptions {
            row_by_row: true,
            ..opts(OnError::Null)
        };
        let expect = evaluate_batch_report(&p, &batch, &by_rows).unwrap();
        assert_eq!(rows.values.as_ref(), expect.values.as_ref(), "{bad}");
        let failed: Vec<usize> = rows.errors.iter().map(|(r, _)| *r).collect();
        let expected: Vec<usize> = expect.errors.iter().map(|(r, _)| *r).collect();
        assert_eq!(failed, expected, "{bad}");
    }
}

#[test]
fn chains_of_string_concatenation_match_the_rows() {
    let n = 700;
    let word = |i: usize| ["sfo", "Jfk", "", "Los Angeles", "ÉVRY", "oRd"][i % 6];
    let a: Vec<Option<&str>> = (0..n).map(|i| (i % 11 != 5).then(|| word(i))).collect();
    let b: Vec<Option<&str>> = (0..n).map(|i| Some(word(i / 3 + 1))).collect();
    let whole = RecordBatch::try_from_iter([
        ("a", Arc::new(StringArray::from(a)) as ArrayRef),
        ("b", Arc::new(StringArray::from(b)) as ArrayRef),
    ])
    .unwrap();
    let ascii_only = whole.slice(0, 4);
    let by_rows = BatchOptions {
        row_by_row: true,
        ..opts(OnError::Null)
    };
    for src in [
        "a + b",
        r#"a + "-" + b"#,
        r#"a.lower() + " -> " + b.upper()"#,
        r#"(a + "-" + b).upper()"#,
        r#"(a.upper() + ("/" + b.lower())).lower()"#,
        r#"a + (b + a) + b"#,
    ] {
        let p = Engine::new().compile(src).unwrap();
        for batch in [&whole, &whole.slice(3, 400), &ascii_only] {
            let rows = evaluate_batch_report(&p, batch, &by_rows).unwrap();
            let cols = evaluate_batch_report(&p, batch, &opts(OnError::Null)).unwrap();
            assert_eq!(rows.values.as_ref(), cols.values.as_ref(), "{src}");
            let failed =
                |e: &xpr_arrow::Evaluation| e.errors.iter().map(|(r, _)| *r).collect::<Vec<_>>();
            assert_eq!(failed(&rows), failed(&cols), "{src}");
            assert!(cols.fuel_used >= rows.fuel_used, "{src}");
            assert!(cols.memory_used >= rows.memory_used, "{src}");
            if batch.num_rows() == 4 {
                // Nothing fails: all columnar, text charged by the slice's
                // rows only (at twice the VM's rate per byte).
                assert_eq!(cols.rows_on_vm, 0, "{src}");
                assert!(cols.fuel_used < 2 * rows.fuel_used, "{src}");
            }
        }
    }
}

#[test]
fn arithmetic_on_computed_operands_keeps_operand_order() {
    let n = 5000;
    let a: Vec<f64> = (0..n).map(|i| f64::from(i % 13) - 3.0).collect();
    let b: Vec<Option<i64>> = (0..n)
        .map(|i| (i % 17 != 4).then_some(i64::from(i % 9)))
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("a", Arc::new(Float64Array::from(a)) as ArrayRef),
        ("b", Arc::new(Int64Array::from(b)) as ArrayRef),
    ])
    .unwrap();
    let by_rows = BatchOptions {
        row_by_row: true,
        ..opts(OnError::Null)
    };
    for src in [
        "10 - a * 2",
        "(a + 1) / (b - 2)",
        "2 ** (a - 1) - b",
        "100 % (b + 1) - (a * a)",
        "b - (a - (b - a))",
    ] {
        let p = Engine::new().compile(src).unwrap();
        let rows = evaluate_batch_report(&p, &batch, &by_rows).unwrap();
        let cols = evaluate_batch_report(&p, &batch, &opts(OnError::Null)).unwrap();
        assert_eq!(f64s(&rows.values), f64s(&cols.values), "{src}");
        let failed =
            |e: &xpr_arrow::Evaluation| e.errors.iter().map(|(r, _)| *r).collect::<Vec<_>>();
        assert_eq!(failed(&rows), failed(&cols), "{src}");
        assert!(cols.rows_on_vm < n as usize, "{src}");
    }
}

#[test]
fn dictionary_string_columns_read_as_their_strings() {
    use arrow_array::DictionaryArray;
    use arrow_array::types::Int32Type;
    let n = 300;
    let words = StringArray::from(vec!["sfo", "Jfk", "", "Los Angeles", "ÉVRY"]);
    // A dictionary with a null string: its rows are null, as a null key's.
    let with_null = StringArray::from(vec![Some("x"), None, Some("yz")]);
    let keys = |m: i32, nulls: bool| {
        arrow_array::Int32Array::from(
            (0..n)
                .map(|i| (!nulls || i % 7 != 3).then_some((i * 5 + i / 3) % m))
                .collect::<Vec<_>>(),
        )
    };
    let dict = |k, v: &StringArray| {
        Arc::new(DictionaryArray::<Int32Type>::try_new(k, Arc::new(v.clone())).unwrap()) as ArrayRef
    };
    let plain = |k: &arrow_array::Int32Array, v: &StringArray| {
        let cells: Vec<Option<String>> = (0..k.len())
            .map(|i| {
                (k.is_valid(i) && v.is_valid(k.value(i) as usize))
                    .then(|| v.value(k.value(i) as usize).to_string())
            })
            .collect();
        Arc::new(StringArray::from(cells)) as ArrayRef
    };
    let (ka, kb) = (keys(5, true), keys(3, false));
    let as_dict = RecordBatch::try_from_iter([
        ("a", dict(ka.clone(), &words)),
        ("b", dict(kb.clone(), &with_null)),
    ])
    .unwrap();
    let as_plain =
        RecordBatch::try_from_iter([("a", plain(&ka, &words)), ("b", plain(&kb, &with_null))])
            .unwrap();
    let by_rows = BatchOptions {
        row_by_row: true,
        ..opts(OnError::Null)
    };
    for src in [
        "a",
        r#"a + "-" + b"#,
        r#"a.lower() + " -> " + b.upper()"#,
        r#"a == "sfo" || b == "yz""#,
        "a.length > 2",
        r#"(a ?? "none") + (b ?? "?")"#,
        r#"a.startsWith("J") ? 1 : 2"#,
        "`${a}/${b}`",
    ] {
        let p = Engine::new().compile(src).unwrap();
        for (d, s) in [
            (&as_dict, &as_plain),
            (&as_dict.slice(7, 200), &as_plain.slice(7, 200)),
        ] {
            let cols = evaluate_batch_report(&p, d, &opts(OnError::Null)).unwrap();
            let plain = evaluate_batch_report(&p, s, &opts(OnError::Null)).unwrap();
            let rows = evaluate_batch_report(&p, d, &by_rows).unwrap();
            assert_eq!(cols.values.as_ref(), plain.values.as_ref(), "{src}");
            assert_eq!(cols.values.as_ref(), rows.values.as_ref(), "{src}");
            let failed =
                |e: &xpr_arrow::Evaluation| e.errors.iter().map(|(r, _)| *r).collect::<Vec<_>>();
            assert_eq!(failed(&cols), failed(&plain), "{src}");
            assert_eq!(cols.fuel_used, plain.fuel_used, "{src}: the same charges");
            assert!(cols.fuel_used >= rows.fuel_used, "{src}");
        }
    }
}
