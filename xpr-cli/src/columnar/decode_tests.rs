//! [`Fast`] against parquet's own reader over generated files: every
//! type it decodes, nullable or not, with nulls at several rates,
//! dictionary and plain pages (and a dictionary that overflows into plain
//! pages mid-chunk), small pages, data pages of versions 1 and 2, snappy
//! and none, read whole and late with random verdicts; and damaged files,
//! which must give errors or values, never a panic.

use std::fs::File;
use std::io::Write as _;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_schema::DataType;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{WriterProperties, WriterVersion};

use super::{Fast, Judge};
use crate::columnar::temp_path::TempPath;

/// xorshift64*: the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A column's cell as text, for comparing arrays of different types
/// (strings: plain against dictionary).
fn cell(a: &dyn Array, i: usize) -> Option<String> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::Float32 => format!("{:?}", a.as_primitive::<Float32Type>().value(i).to_bits()),
        DataType::Float64 => format!("{:?}", a.as_primitive::<Float64Type>().value(i).to_bits()),
        DataType::Utf8 => a.as_string::<i32>().value(i).to_string(),
        DataType::Dictionary(..) => {
            let d = a.as_dictionary::<Int32Type>();
            return cell(d.values().as_ref(), d.keys().value(i) as usize);
        }
        other => panic!("unexpected type {other}"),
    })
}

/// The rows of `batches` as text, column by column.
fn rows_of(batches: &[RecordBatch]) -> Vec<Vec<Option<String>>> {
    let mut out = Vec::new();
    for b in batches {
        for i in 0..b.num_rows() {
            out.push(b.columns().iter().map(|c| cell(c.as_ref(), i)).collect());
        }
    }
    out
}

/// A batch of `rows` rows: one column of each type, nulls at `null_rate`
/// percent in the nullable ones, values from `distinct` choices.
fn batch(rng: &mut Rng, rows: usize, null_rate: u64, distinct: u64) -> RecordBatch {
    let null = |rng: &mut Rng| null_rate > 0 && rng.below(100) < null_rate;
    let i32s: Int32Array = (0..rows)
        .map(|_| (!null(rng)).then(|| rng.below(distinct) as i32 - 5))
        .collect();
    let i64s: Int64Array = (0..rows)
        .map(|_| Some((rng.below(distinct) as i64) << 40 | 7))
        .collect();
    let f32s: Float32Array = (0..rows)
        .map(|_| (!null(rng)).then(|| rng.below(distinct) as f32 / 4.0))
        .collect();
    let f64s: Float64Array = (0..rows)
        .map(|_| {
            (!null(rng)).then(|| match rng.below(50) {
                0 => f64::NAN,
                1 => -0.0,
                _ => rng.below(distinct) as f64 * 1.5,
            })
        })
        .collect();
    let strs: StringArray = (0..rows)
        .map(|_| {
            (!null(rng)).then(|| {
                let n = rng.below(distinct);
                match n % 4 {
                    0 => String::new(),
                    1 => format!("é{n}✓"),
                    _ => format!("s{n}{}", "x".repeat((n % 30) as usize)),
                }
            })
        })
        .collect();
    let required: StringArray = (0..rows).map(|i| Some(format!("r{}", i % 7))).collect();
    let columns: Vec<(&str, ArrayRef, bool)> = vec![
        ("i32", Arc::new(i32s), true),
        ("i64", Arc::new(i64s), false),
        ("f32", Arc::new(f32s), true),
        ("f64", Arc::new(f64s), true),
        ("s", Arc::new(strs), true),
        ("r", Arc::new(required), false),
    ];
    let fields: Vec<arrow_schema::Field> = columns
        .iter()
        .map(|(n, a, nullable)| arrow_schema::Field::new(*n, a.data_type().clone(), *nullable))
        .collect();
    let arrays = columns.into_iter().map(|(_, a, _)| a).collect();
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), arrays).expect("batch")
}

/// Writes `batches` with `props` to a temporary file.
fn write(batches: &[RecordBatch], props: WriterProperties) -> (TempPath, File) {
    let path = TempPath::new();
    let file = File::create(&path.0).expect("create");
    let mut w = ArrowWriter::try_new(file, batches[0].schema(), Some(props)).expect("writer");
    for b in batches {
        w.write(b).expect("write");
    }
    w.close().expect("close");
    let file = File::open(&path.0).expect("open");
    (path, file)
}

/// parquet's reading of every row group, columns `columns`.
fn reference(file: &File, columns: &[usize]) -> Vec<RecordBatch> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.try_clone().expect("clone"))
        .expect("builder");
    let mask = parquet::arrow::ProjectionMask::roots(builder.parquet_schema(), columns.to_vec());
    let reader = builder.with_projection(mask).build().expect("reader");
    reader.map(|b| b.expect("batch")).collect()
}

/// [`Fast`]'s reading of every row group; `None` when it leaves one to
/// parquet.
fn fast(
    file: &File,
    columns: &[usize],
    batch_rows: usize,
    mut late: impl FnMut() -> Option<(Vec<usize>, Judge)>,
) -> Result<Option<Vec<RecordBatch>>, String> {
    let meta = ArrowReaderMetadata::load(file, ArrowReaderOptions::default())
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for group in 0..meta.metadata().num_row_groups() {
        let Some(reader) = Fast::new(file, &meta, group, columns, batch_rows, late()) else {
            return Ok(None);
        };
        for b in reader? {
            out.push(b.map_err(|e| e.to_string())?);
        }
    }
    Ok(Some(out))
}

/// Whether a column chunk of `file` uses an encoding [`Fast`] leaves to
/// parquet (parquet's writer falls back to delta encodings in version 2).
fn other_encodings(file: &File) -> bool {
    let meta = ArrowReaderMetadata::load(file, ArrowReaderOptions::default()).expect("meta");
    meta.metadata().row_groups().iter().any(|g| {
        g.columns().iter().any(|c| {
            c.encodings().any(|e| {
                !matches!(
                    e,
                    Encoding::PLAIN
                        | Encoding::PLAIN_DICTIONARY
                        | Encoding::RLE_DICTIONARY
                        | Encoding::RLE
                )
            })
        })
    })
}

fn properties(rng: &mut Rng) -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_writer_version(if rng.below(2) == 0 {
            WriterVersion::PARQUET_1_0
        } else {
            WriterVersion::PARQUET_2_0
        })
        .set_compression(if rng.below(2) == 0 {
            Compression::SNAPPY
        } else {
            Compression::UNCOMPRESSED
        })
        .set_dictionary_enabled(rng.below(4) != 0)
        .set_max_row_group_row_count(Some(200 + rng.below(3000) as usize));
    if rng.below(2) == 0 {
        // Small pages, and dictionaries that overflow into plain pages.
        p = p
            .set_data_page_size_limit(64 + rng.below(2000) as usize)
            .set_dictionary_page_size_limit(64 + rng.below(600) as usize)
            .set_write_batch_size(1 + rng.below(100) as usize);
    }
    p.build()
}

#[test]
fn fast_reads_what_parquet_reads() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0;
    for case in 0..80 {
        let rows = 1 + rng.below(5000) as usize;
        let null_rate = [0, 0, 10, 60, 100][rng.below(5) as usize];
        let distinct = [1, 3, 40, 5000][rng.below(4) as usize];
        let b = batch(&mut rng, rows, null_rate, distinct);
        let (_path, file) = write(&[b], properties(&mut rng));
        if other_encodings(&file) {
            let none = fast(&file, &[0, 1, 2, 3, 4, 5], 64, || None).expect("file");
            assert!(
                none.is_none(),
                "case {case}: decoded an encoding it leaves to parquet"
            );
            continue;
        }
        decoded += 1;
        let all: Vec<usize> = (0..6).collect();
        // In the file's order, as `xpr run` asks.
        let some = vec![1, 4];
        for columns in [all, some, vec![]] {
            let want = reference(&file, &columns);
            let batch_rows = [1, 7, 64, 1024, 8192][rng.below(5) as usize];
            let got = fast(&file, &columns, batch_rows, || None)
                .expect("file")
                .expect("decoded");
            assert_eq!(
                rows_of(&got),
                rows_of(&want),
                "case {case}, columns {columns:?}"
            );
            assert_eq!(
                got.iter().map(RecordBatch::num_rows).sum::<usize>(),
                want.iter().map(RecordBatch::num_rows).sum::<usize>(),
                "case {case}: row count"
            );
        }
    }
    assert!(decoded >= 40, "only {decoded} files decoded here");
}

#[test]
fn late_reading_keeps_the_rows_the_judge_keeps() {
    type Log = Arc<std::sync::Mutex<Vec<Option<bool>>>>;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut decoded = 0;
    // Judged batches with a column of numbers read as dictionary keys.
    let coded = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for case in 0..40 {
        let rows = 1 + rng.below(6000) as usize;
        let null_rate = [0, 10, 100][rng.below(3) as usize];
        let distinct = [3, 40, 5000][rng.below(3) as usize];
        let b = batch(&mut rng, rows, null_rate, distinct);
        let (_path, file) = write(&[b], properties(&mut rng));
        if other_encodings(&file) {
            continue;
        }
        decoded += 1;
        let columns: Vec<usize> = (0..6).collect();
        let want = rows_of(&reference(&file, &columns));
        // Verdicts from a seeded generator, some of them null; in one case
        // of five the judge stops keeping rows after a few batches.
        let keep_rate = [0, 1, 30, 100][rng.below(4) as usize];
        let stop_after = (rng.below(5) == 0).then(|| rng.below(4) as usize);
        let seed = rng.next() | 1;
        // The verdicts given, row group by row group.
        let mut logs: Vec<Log> = Vec::new();
        // The predicate's columns (numbers with nulls and NaN; numbers
        // without nulls and a string column), and the file's rows.
        let reads = if case % 2 == 0 {
            vec![3, 0]
        } else {
            vec![1, 2, 4]
        };
        let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default()).expect("meta");
        let starts: Vec<usize> = meta
            .metadata()
            .row_groups()
            .iter()
            .scan(0, |at, g| {
                let start = *at;
                *at += g.num_rows() as usize;
                Some(start)
            })
            .collect();
        let rows_want = Arc::new(want.clone());
        let late = || {
            let log: Log = Arc::default();
            let mut row = starts[logs.len()];
            logs.push(log.clone());
            let (mut r, mut batches) = (Rng(seed), 0usize);
            let (seen, rows_want, coded) = (reads.clone(), rows_want.clone(), coded.clone());
            let judge: Judge = Box::new(move |b: RecordBatch| {
                // The judge sees the rows' values, however they are held.
                assert_eq!(b.num_columns(), seen.len());
                for (j, &c) in seen.iter().enumerate() {
                    let column = b.column(j);
                    if matches!(column.data_type(), DataType::Dictionary(_, v) if **v != DataType::Utf8)
                    {
                        coded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    for i in 0..b.num_rows() {
                        assert_eq!(
                            cell(column.as_ref(), i),
                            rows_want[row + i][c],
                            "case {case} row {}",
                            row + i
                        );
                    }
                }
                row += b.num_rows();
                batches += 1;
                if stop_after.is_some_and(|s| batches > s) {
                    return None;
                }
                let v: BooleanArray = (0..b.num_rows())
                    .map(|_| match r.below(100) {
                        x if x < 3 => None,
                        x => Some(x < keep_rate + 3),
                    })
                    .collect();
                log.lock().unwrap().extend(v.iter());
                Some(v)
            });
            Some((reads.clone(), judge))
        };
        let got = fast(&file, &columns, [5, 64, 1000][case % 3], late);
        let got = got.expect("file").expect("decoded");
        let mut expected = Vec::new();
        let mut first = 0;
        for (group, log) in meta.metadata().row_groups().iter().zip(&logs) {
            let log = log.lock().unwrap();
            for (i, v) in log.iter().enumerate() {
                if *v == Some(true) {
                    expected.push(want[first + i].clone());
                }
            }
            first += group.num_rows() as usize;
        }
        assert_eq!(logs.len(), meta.metadata().num_row_groups());
        assert_eq!(rows_of(&got), expected, "case {case}");
    }
    assert!(decoded >= 20, "only {decoded} files decoded here");
    let coded = coded.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        coded >= 20,
        "only {coded} batches judged from dictionary keys"
    );
}

#[test]
fn unsupported_columns_are_left_to_parquet() {
    let b = RecordBatch::try_from_iter([
        (
            "b",
            Arc::new(BooleanArray::from(vec![true, false])) as ArrayRef,
        ),
        ("n", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
    ])
    .expect("batch");
    let (_path, file) = write(&[b], WriterProperties::builder().build());
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default()).expect("meta");
    assert!(Fast::new(&file, &meta, 0, &[0, 1], 64, None).is_none());
    assert!(Fast::new(&file, &meta, 0, &[1], 64, None).is_some());
}

#[test]
fn damaged_files_give_errors_not_panics() {
    let mut rng = Rng(77);
    for case in 0..12 {
        let (null_rate, distinct) = ([0, 10][case % 2], [3, 5000][case / 2 % 2]);
        let b = batch(&mut rng, 3000, null_rate, distinct);
        let (path, file) = write(&[b], properties(&mut rng));
        drop(file);
        let clean = std::fs::read(&path.0).expect("read");
        // The footer stays intact (a damaged footer is parquet's to
        // refuse); pages are damaged byte by byte.
        let footer =
            u32::from_le_bytes(clean[clean.len() - 8..clean.len() - 4].try_into().unwrap());
        let body = clean.len() - 8 - footer as usize;
        for _ in 0..40 {
            let mut bytes = clean.clone();
            for _ in 0..1 + rng.below(4) {
                let at = 4 + rng.below(body as u64 - 4) as usize;
                bytes[at] ^= 1 << rng.below(8);
            }
            let damaged = TempPath::new();
            File::create(&damaged.0)
                .and_then(|mut f| f.write_all(&bytes))
                .expect("write");
            let file = File::open(&damaged.0).expect("open");
            let columns: Vec<usize> = (0..6).collect();
            // Any outcome but a panic.
            let _ = fast(&file, &columns, 100, || None);
        }
    }
}
