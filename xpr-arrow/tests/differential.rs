//! Columnar against row by row: the official conformance cases whose
//! context is a flat record of scalars, and generated expressions over
//! typed columns with nulls. Every row must have the same value, or an
//! error of the same kind (and message), and the batch must be charged at
//! least the fuel and memory its rows cost one by one.

use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, NullArray, RecordBatch,
    RecordBatchOptions, StringArray, StructArray,
};
use arrow_schema::{DataType, Field, Schema};
use xpr::{Engine, Limits, Map, Program, Value};
use xpr_arrow::{BatchOptions, Budget, OnError, evaluate_batch_report};

/// A cell of a result array as an XPR value (JSON text stays a string).
fn cell(a: &dyn Array, i: usize) -> Value {
    if a.is_null(i) || a.data_type() == &DataType::Null {
        return Value::Null;
    }
    match a.data_type() {
        DataType::Float64 => Value::Number(a.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Utf8 => Value::from(a.as_string::<i32>().value(i)),
        other => panic!("unexpected result type {other}"),
    }
}

/// Whether cell `got` shows value `want` (itself, or its JSON text).
fn shows(got: &Value, want: &Value) -> bool {
    got == want
        || matches!(got, Value::String(s) if xpr::to_json_string(want).is_ok_and(|j| *j == **s))
}

/// What one row gives run alone, and the fuel and memory it used.
struct Alone {
    result: Result<Value, xpr::Error>,
    fuel: u64,
    memory: u64,
}

fn alone(program: &Program, records: &[Map]) -> Vec<Alone> {
    let mut vm = xpr::Vm::new();
    records
        .iter()
        .map(|r| {
            let result = program.run_in(&mut vm, r);
            Alone {
                result,
                fuel: vm.fuel_used(),
                memory: vm.peak_memory(),
            }
        })
        .collect()
}

/// Compares the columnar evaluation of `program` over `batch` with the
/// rows run alone by `reference`, a second compilation of the same source:
/// each starts with cold regex caches, so the lazy DFA states a search
/// builds (charged to the run that builds them) are paid on both sides.
/// Returns whether the vector plan evaluated some rows.
fn compare(
    program: &Program,
    reference: &Program,
    source: &str,
    batch: &RecordBatch,
    records: &[Map],
) -> bool {
    let rows = alone(reference, records);
    let options = BatchOptions {
        on_error: OnError::Null,
        fuel: Budget::Unlimited,
        memory: Budget::Unlimited,
        ..BatchOptions::default()
    };
    let eval = match evaluate_batch_report(program, batch, &options) {
        Ok(e) => e,
        Err(e) => panic!("{source}: the batch failed: {e}"),
    };
    assert_eq!(eval.values.len(), rows.len(), "{source}");
    let mut errors = eval.errors.iter().peekable();
    for (i, row) in rows.iter().enumerate() {
        match &row.result {
            Ok(v) => {
                let got = cell(eval.values.as_ref(), i);
                assert!(
                    shows(&got, v),
                    "{source}: row {i}: columnar {got:?}, row by row {v:?}"
                );
                if let Some((r, e)) = errors.peek() {
                    assert!(*r != i, "{source}: row {i} failed: {e}, row by row {v:?}");
                }
            }
            Err(want) => {
                let Some((r, got)) = errors.next() else {
                    panic!("{source}: row {i}: no error, row by row {want}");
                };
                assert_eq!(*r, i, "{source}: errors out of order");
                assert_eq!(got.kind(), want.kind(), "{source}: row {i}: {got} / {want}");
                assert_eq!(got.message(), want.message(), "{source}: row {i}");
                assert_eq!(
                    cell(eval.values.as_ref(), i),
                    Value::Null,
                    "{source}: row {i}"
                );
            }
        }
    }
    assert!(errors.next().is_none(), "{source}: extra errors");
    let fuel: u64 = rows.iter().map(|r| r.fuel).sum();
    let memory: u64 = rows.iter().map(|r| r.memory).sum();
    assert!(
        eval.fuel_used >= fuel,
        "{source}: fuel {} < {fuel}",
        eval.fuel_used
    );
    assert!(
        eval.memory_used >= memory,
        "{source}: memory {} < {memory}",
        eval.memory_used
    );
    eval.rows_on_vm < rows.len()
}

fn engine() -> Engine {
    Engine::new()
        .with_limits(Limits {
            timeout: None,
            ..Limits::default()
        })
        .with_seed(Some(7))
}

// ---- the official conformance cases ------------------------------------

fn shared() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/xpr-v0.5");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !std::env::var("XPR_REQUIRE_SHARED").is_ok_and(|v| v == "1"),
        "XPR_REQUIRE_SHARED=1 but {} is missing",
        dir.display()
    );
    println!("skipping: {} not found", dir.display());
    None
}

/// A batch of `copies` rows, each the flat record `context`.
fn record_batch(
    context: &serde_json::Map<String, serde_json::Value>,
    copies: usize,
) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (name, v) in context {
        let (dt, column): (DataType, ArrayRef) = match v {
            serde_json::Value::Null => (DataType::Null, Arc::new(NullArray::new(copies))),
            serde_json::Value::Bool(b) => (
                DataType::Boolean,
                Arc::new(BooleanArray::from(vec![*b; copies])),
            ),
            serde_json::Value::Number(n) => {
                let x = n.as_f64().unwrap_or_default();
                (
                    DataType::Float64,
                    Arc::new(Float64Array::from(vec![x; copies])),
                )
            }
            serde_json::Value::String(s) => (
                DataType::Utf8,
                Arc::new(StringArray::from(vec![s.as_str(); copies])),
            ),
            _ => unreachable!("flat records only"),
        };
        fields.push(Field::new(name, dt, true));
        columns.push(column);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(copies));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options).unwrap()
}

#[test]
fn conformance_cases_with_flat_contexts() {
    let Some(dir) = shared() else { return };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let (mut cases, mut planned) = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let suite: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        for case in suite["tests"].as_array().into_iter().flatten() {
            if case["skip"] == serde_json::Value::Bool(true) {
                continue;
            }
            let context = match &case["context"] {
                serde_json::Value::Null => serde_json::Map::new(),
                serde_json::Value::Object(m) => m.clone(),
                _ => continue,
            };
            if context.values().any(|v| v.is_array() || v.is_object()) {
                continue;
            }
            let source = case["expression"].as_str().unwrap_or_default();
            let Ok(program) = engine().compile(source) else {
                continue;
            };
            let reference = engine().compile(source).expect("compiled once");
            let record: Map = context
                .iter()
                .map(|(k, v)| (k.as_str().into(), xpr::Value::from_json(v).unwrap()))
                .collect();
            let batch = record_batch(&context, 2);
            if compare(
                &program,
                &reference,
                source,
                &batch,
                &[record.clone(), record],
            ) {
                planned += 1;
            }
            cases += 1;
        }
    }
    println!("{cases} conformance cases compared, {planned} through the vector plan");
    assert!(cases > 200, "{cases}");
    assert!(planned > 50, "{planned}");
}

// ---- generated expressions ---------------------------------------------

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const ROWS: usize = 24;

/// The columns: `x` (doubles with nulls, zero, huge), `k` (integers),
/// `y` (doubles, no nulls), `s` and `t` (strings with nulls, blanks,
/// non-ASCII), `u` (strings, no nulls), `b` (booleans with nulls), `r`
/// (a struct {m: number, w: string}, null on some rows).
fn typed_batch() -> (RecordBatch, Vec<Map>) {
    let x: Vec<Option<f64>> = (0..ROWS)
        .map(|i| match i % 6 {
            0 => None,
            1 => Some(0.0),
            2 => Some(1e308),
            3 => Some(-2.5),
            _ => Some(i as f64 * 1.5),
        })
        .collect();
    let k: Vec<Option<i64>> = (0..ROWS)
        .map(|i| (i % 5 != 2).then_some(i as i64 - 7))
        .collect();
    let y: Vec<f64> = (0..ROWS).map(|i| (i as f64 - 10.0) / 4.0).collect();
    let words = [
        " pad ",
        "",
        "Ünï",
        "abc",
        "ABC",
        "a\u{b}",
        "hello world",
        "ab",
    ];
    let s: Vec<Option<&str>> = (0..ROWS)
        .map(|i| (i % 7 != 3).then_some(words[i % words.len()]))
        .collect();
    let t: Vec<Option<&str>> = (0..ROWS)
        .map(|i| (i % 4 != 1).then_some(words[(i * 3) % words.len()]))
        .collect();
    let u: Vec<&str> = (0..ROWS).map(|i| words[(i + 5) % words.len()]).collect();
    let b: Vec<Option<bool>> = (0..ROWS)
        .map(|i| (i % 3 != 0).then_some(i % 2 == 0))
        .collect();
    let m: Vec<Option<f64>> = (0..ROWS)
        .map(|i| (i % 5 != 0).then_some(i as f64))
        .collect();
    let w: Vec<Option<&str>> = (0..ROWS)
        .map(|i| Some(words[(i + 2) % words.len()]))
        .collect();
    let r_valid: Vec<bool> = (0..ROWS).map(|i| i % 8 != 7).collect();
    let r = StructArray::try_new(
        vec![
            Field::new("m", DataType::Float64, true),
            Field::new("w", DataType::Utf8, true),
        ]
        .into(),
        vec![
            Arc::new(Float64Array::from(m.clone())) as ArrayRef,
            Arc::new(StringArray::from(w.clone())),
        ],
        Some(r_valid.clone().into()),
    )
    .unwrap();
    let batch = RecordBatch::try_from_iter([
        ("x", Arc::new(Float64Array::from(x.clone())) as ArrayRef),
        ("k", Arc::new(Int64Array::from(k.clone()))),
        ("y", Arc::new(Float64Array::from(y.clone()))),
        ("s", Arc::new(StringArray::from(s.clone()))),
        ("t", Arc::new(StringArray::from(t.clone()))),
        ("u", Arc::new(StringArray::from(u.clone()))),
        ("b", Arc::new(BooleanArray::from(b.clone()))),
        ("r", Arc::new(r)),
    ])
    .unwrap();
    let num = |v: Option<f64>| v.map_or(Value::Null, Value::Number);
    let text = |v: Option<&str>| v.map_or(Value::Null, Value::from);
    let records = (0..ROWS)
        .map(|i| {
            let mut m2 = Map::default();
            m2.insert("x".into(), num(x[i]));
            m2.insert("k".into(), num(k[i].map(|v| v as f64)));
            m2.insert("y".into(), Value::Number(y[i]));
            m2.insert("s".into(), text(s[i]));
            m2.insert("t".into(), text(t[i]));
            m2.insert("u".into(), Value::from(u[i]));
            m2.insert("b".into(), b[i].map_or(Value::Null, Value::Bool));
            let r = if r_valid[i] {
                let mut o = Map::default();
                o.insert("m".into(), num(m[i]));
                o.insert("w".into(), text(w[i]));
                Value::object(o)
            } else {
                Value::Null
            };
            m2.insert("r".into(), r);
            m2
        })
        .collect();
    (batch, records)
}

/// `batch` with its top-level number and string columns as
/// `Dictionary(Int32, _)` arrays: the entries are the column's cells in
/// reverse order; a null cell has a null key on even rows and, on odd
/// rows, a valid key to its null entry.
fn dictionary_twin(batch: &RecordBatch) -> RecordBatch {
    use arrow_array::types::Int32Type;
    use arrow_array::{DictionaryArray, Int32Array};
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|c| {
            let n = c.len();
            let coded = matches!(
                c.data_type(),
                DataType::Float64 | DataType::Int64 | DataType::Utf8
            );
            if !coded {
                return c.clone();
            }
            let entries = arrow_select::take::take(
                c.as_ref(),
                &arrow_array::UInt32Array::from_iter_values((0..n as u32).rev()),
                None,
            )
            .unwrap();
            let keys = Int32Array::from_iter(
                (0..n).map(|i| (c.is_valid(i) || i % 2 == 1).then_some((n - 1 - i) as i32)),
            );
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, entries).unwrap()) as ArrayRef
        })
        .collect();
    let fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .zip(&columns)
        .map(|(f, c)| f.as_ref().clone().with_data_type(c.data_type().clone()))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// A random expression of depth at most `depth`.
fn expr(rng: &mut Rng, depth: u32) -> String {
    let leaves = [
        "x",
        "k",
        "y",
        "s",
        "t",
        "u",
        "b",
        "r.m",
        "r.w",
        "0",
        "1",
        "2.5",
        "-3",
        "1e308",
        "\"ab\"",
        "\"\"",
        "\" Ün \"",
        "true",
        "false",
        "null",
    ];
    if depth == 0 || rng.below(4) == 0 {
        return rng.pick(&leaves).to_string();
    }
    let d = depth - 1;
    match rng.below(14) {
        0..=2 => {
            let op = rng.pick(&["+", "-", "*", "/", "%", "**", "+", "+"]);
            format!("({} {op} {})", expr(rng, d), expr(rng, d))
        }
        3..=4 => {
            let op = rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
            format!("({} {op} {})", expr(rng, d), expr(rng, d))
        }
        5 => {
            let op = rng.pick(&["&&", "||", "??"]);
            format!("({} {op} {})", expr(rng, d), expr(rng, d))
        }
        6 => format!("({} ? {} : {})", expr(rng, d), expr(rng, d), expr(rng, d)),
        7 => format!("{}({})", rng.pick(&["!", "-"]), expr(rng, d)),
        8 => format!(
            "`{}-${{{}}}-${{{}}}`",
            rng.pick(&["", "a", "Ü"]),
            expr(rng, d),
            expr(rng, d)
        ),
        9..=10 => {
            let m = rng.pick(&["upper()", "lower()", "trim()", "len()", "length"]);
            format!("({}).{m}", expr(rng, d))
        }
        11 => {
            let m = rng.pick(&["startsWith", "contains"]);
            format!("({}).{m}({})", expr(rng, d), expr(rng, d))
        }
        12 => format!("{}({})", rng.pick(&["round", "floor", "abs"]), expr(rng, d)),
        // Outside the subset: the row path.
        _ => {
            let f = rng.pick(&["[{}].length", "string({})", "({}).slice(1)", "{{v: {}}}.v"]);
            f.replace("{}", &expr(rng, d))
        }
    }
}

#[test]
fn generated_expressions_over_typed_columns_with_nulls() {
    let (batch, records) = typed_batch();
    let coded = dictionary_twin(&batch);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let engine = engine();
    let (mut compared, mut planned) = (0, 0);
    let mut tried = 0;
    while compared < 2500 {
        tried += 1;
        assert!(tried < 20_000, "too few expressions compile");
        let source = expr(&mut rng, 4);
        let Ok(program) = engine.compile(&source) else {
            continue;
        };
        let reference = engine.compile(&source).expect("compiled once");
        if compare(&program, &reference, &source, &batch, &records) {
            planned += 1;
        }
        // The same columns as dictionaries: the same rows.
        let reference = engine.compile(&source).expect("compiled once");
        compare(&program, &reference, &source, &coded, &records);
        compared += 1;
    }
    println!("{compared} expressions compared, {planned} through the vector plan");
    assert!(
        planned * 4 > compared,
        "{planned} of {compared} through the plan"
    );
}
