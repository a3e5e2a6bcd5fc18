//! Criterion benchmarks of columnar evaluation (README, "Columnar
//! evaluation over Arrow"): three cases over a 1,000,000-row batch of
//! flight-like columns, each
//! - through `evaluate_batch` (the vector plan),
//! - by a hand-written loop over Arrow's compute kernels doing the same
//!   operations (the floor to compare with),
//! - row by row: the batch's row path (`row_by_row: true`, one kept VM,
//!   cells read in place) and `Program::run` over one `Map` per record
//!   (today's evaluation of records); these on the first 100,000 rows.
//!
//! Cases: a, four comparisons joined by `&&`; c, arithmetic; d,
//! concatenation then `upper()`.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, Scalar, StringArray};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use xpr::{Engine, Limits, Map, Program, Value};
use xpr_arrow::{BatchOptions, evaluate_batch};

const ROWS: usize = 1_000_000;
const ROW_WISE: usize = 100_000;

const CASE_A: &str = "dep_delay > 60 && arr_delay > 60 && distance > 1000 && air_time > 120";
const CASE_C: &str = "(arr_delay - dep_delay) * 60 / air_time + distance / 1000";
const CASE_D: &str = "(origin + \"-\" + dest).upper()";

/// Deterministic flight-like data.
fn flights(rows: usize) -> RecordBatch {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let airports = ["sfo", "jfk", "lax", "ord", "atl", "sea", "bos", "den"];
    let mut dep = Vec::with_capacity(rows);
    let mut arr = Vec::with_capacity(rows);
    let mut dist = Vec::with_capacity(rows);
    let mut air = Vec::with_capacity(rows);
    let mut origin = Vec::with_capacity(rows);
    let mut dest = Vec::with_capacity(rows);
    for _ in 0..rows {
        let r = next();
        dep.push((r % 240) as f64 - 30.0);
        arr.push(((r >> 8) % 260) as f64 - 40.0);
        dist.push(((r >> 16) % 2800) as f64 + 100.0);
        air.push(((r >> 28) % 400) as f64 + 20.0);
        origin.push(airports[((r >> 40) % 8) as usize]);
        dest.push(airports[((r >> 44) % 8) as usize]);
    }
    RecordBatch::try_from_iter([
        ("dep_delay", Arc::new(Float64Array::from(dep)) as ArrayRef),
        ("arr_delay", Arc::new(Float64Array::from(arr))),
        ("distance", Arc::new(Float64Array::from(dist))),
        ("air_time", Arc::new(Float64Array::from(air))),
        ("origin", Arc::new(StringArray::from(origin))),
        ("dest", Arc::new(StringArray::from(dest))),
    ])
    .expect("batch")
}

/// Each row as a `Map` of the columns the programs read.
fn records(batch: &RecordBatch, rows: usize) -> Vec<Map> {
    (0..rows)
        .map(|i| {
            let mut m = Map::default();
            for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = match c.as_any().downcast_ref::<Float64Array>() {
                    Some(a) => Value::Number(a.value(i)),
                    None => Value::from(c.as_string::<i32>().value(i)),
                };
                m.insert(f.name().as_str().into(), v);
            }
            m
        })
        .collect()
}

fn col<'b>(batch: &'b RecordBatch, name: &str) -> &'b Float64Array {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref())
        .expect("column")
}

fn scalar(x: f64) -> Scalar<Float64Array> {
    Scalar::new(Float64Array::from(vec![x]))
}

/// Case a with Arrow's kernels: four `gt`, three `and`.
fn kernels_a(batch: &RecordBatch) -> ArrayRef {
    use arrow_ord::cmp::gt;
    let a = gt(col(batch, "dep_delay"), &scalar(60.0)).expect("gt");
    let b = gt(col(batch, "arr_delay"), &scalar(60.0)).expect("gt");
    let c = gt(col(batch, "distance"), &scalar(1000.0)).expect("gt");
    let d = gt(col(batch, "air_time"), &scalar(120.0)).expect("gt");
    let and = arrow_arith::boolean::and;
    let ab = and(&a, &b).expect("and");
    let cd = and(&c, &d).expect("and");
    Arc::new(and(&ab, &cd).expect("and"))
}

/// Case c with Arrow's kernels.
fn kernels_c(batch: &RecordBatch) -> ArrayRef {
    use arrow_arith::numeric::{add, div, mul, sub};
    let d = sub(col(batch, "arr_delay"), col(batch, "dep_delay")).expect("sub");
    let d = mul(&d, &scalar(60.0)).expect("mul");
    let d = div(&d, col(batch, "air_time")).expect("div");
    let k = div(col(batch, "distance"), &scalar(1000.0)).expect("div");
    add(&d, &k).expect("add")
}

/// Case d with Arrow's concatenation kernel, then a loop for `upper`
/// (Arrow has no case kernel).
fn kernels_d(batch: &RecordBatch) -> ArrayRef {
    use arrow_string::concat_elements::concat_elements_utf8;
    let origin = batch
        .column_by_name("origin")
        .expect("origin")
        .as_string::<i32>();
    let dest = batch
        .column_by_name("dest")
        .expect("dest")
        .as_string::<i32>();
    let dash = StringArray::from(vec!["-"; origin.len()]);
    let s = concat_elements_utf8(origin, &dash).expect("concat");
    let s = concat_elements_utf8(&s, dest).expect("concat");
    let mut b = StringBuilder::with_capacity(s.len(), s.value_data().len());
    let mut t = String::new();
    for v in s.iter() {
        match v {
            Some(v) => {
                t.clear();
                t.push_str(v);
                t.make_ascii_uppercase();
                b.append_value(&t);
            }
            None => b.append_null(),
        }
    }
    Arc::new(b.finish())
}

/// A baseline over Arrow's kernels.
type Kernels = fn(&RecordBatch) -> ArrayRef;

fn bench(c: &mut Criterion) {
    let batch = flights(ROWS);
    let small = batch.slice(0, ROW_WISE);
    let maps = records(&batch, ROW_WISE);
    let engine = Engine::new().with_limits(Limits {
        fuel: None,
        memory: None,
        timeout: None,
        ..Limits::default()
    });
    let options = BatchOptions::default();
    let rows = BatchOptions {
        row_by_row: true,
        ..BatchOptions::default()
    };
    let cases: [(&str, &str, Kernels); 3] = [
        ("a", CASE_A, kernels_a),
        ("c", CASE_C, kernels_c),
        ("d", CASE_D, kernels_d),
    ];
    for (name, source, kernels) in cases {
        let program: Program = engine.compile(source).expect("compile");
        // The same answers, before timing them.
        let ours = evaluate_batch(&program, &small, &options).expect("columnar");
        let by_rows = evaluate_batch(&program, &small, &rows).expect("rows");
        assert_eq!(ours.as_ref(), by_rows.as_ref(), "{name}");
        let mut g = c.benchmark_group(format!("case_{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(ROWS as u64));
        g.bench_function("columnar", |b| {
            b.iter(|| evaluate_batch(&program, black_box(&batch), &options).expect("run"))
        });
        g.bench_function("kernels", |b| b.iter(|| kernels(black_box(&batch))));
        g.throughput(Throughput::Elements(ROW_WISE as u64));
        g.bench_function("row_path", |b| {
            b.iter(|| evaluate_batch(&program, black_box(&small), &rows).expect("run"))
        });
        g.bench_function("run_maps", |b| {
            b.iter(|| {
                let mut n = 0usize;
                for m in black_box(&maps) {
                    if program.run(m).is_ok() {
                        n += 1;
                    }
                }
                n
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
