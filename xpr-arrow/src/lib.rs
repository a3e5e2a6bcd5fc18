//! XPR over Apache Arrow: one compiled expression evaluated over a whole
//! [`RecordBatch`], with the same answers and the same budgets as running
//! it on each row.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, BooleanArray, Float64Array, RecordBatch, StringArray};
//! use xpr_arrow::{BatchOptions, evaluate_batch, filter_batch};
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("delay", Arc::new(Float64Array::from(vec![Some(75.0), None, Some(3.0)])) as _),
//!     ("origin", Arc::new(StringArray::from(vec!["SFO", "JFK", "LAX"])) as _),
//! ]).unwrap();
//! let program = xpr::Engine::new().compile("delay > 60 && origin != \"JFK\"")?;
//! let options = BatchOptions::default();
//! // `null > 60` is a type error on row 1: the default policy fails with its row.
//! let e = evaluate_batch(&program, &batch, &options).unwrap_err();
//! assert_eq!(e.row, Some(1));
//! let options = BatchOptions { on_error: xpr_arrow::OnError::Null, ..options };
//! let out = evaluate_batch(&program, &batch, &options).unwrap();
//! let out = out.as_any().downcast_ref::<BooleanArray>().unwrap();
//! assert_eq!(out.iter().collect::<Vec<_>>(), [Some(true), None, Some(false)]);
//! assert_eq!(filter_batch(&program, &batch, &options).unwrap().num_rows(), 1);
//! # Ok::<(), xpr::Error>(())
//! ```
//!
//! # Columns and values
//! The program's free variables are the batch's top-level columns, by
//! name; a struct column is an object (`route.origin` reads its child
//! column), lists are arrays and maps are objects. Type mapping: see
//! `read.rs` (numbers are doubles; NaN and infinities read as `null`;
//! dates, timestamps, decimals and binary columns are refused when read).
//! A name the batch lacks is an unknown identifier, as for a record
//! without that field.
//!
//! # Results
//! [`evaluate_batch`] returns one cell per row (fewer with
//! [`OnError::Skip`]): `Boolean`, `Float64` or `Utf8` after the program's
//! static result type, else after the values; arrays, objects and a mix of
//! types as JSON text (`Utf8`); `Null` when every result is null and the
//! type is not known.
//!
//! # Budgets
//! The program's [`xpr::Limits`] hold for every row as for a run of its
//! own, and fuel and memory also bound the batch as a whole (see
//! [`Budget`]): every row is charged at least what it costs when run
//! alone, and the columnar path charges each vector operation before it
//! runs, so a batch never does more work than its budget.

#![forbid(unsafe_code)]

mod budget;
mod plan;
mod read;
mod rows;
mod write;

use std::fmt;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch};
use arrow_schema::DataType;
use xpr::{Error, ErrorKind, Program, Value};

use crate::budget::Meter;
use crate::read::Columns;
use crate::rows::RowRunner;
use crate::write::Shape;

/// What a batch does with a row whose evaluation fails (as `xpr run
/// --on-error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// The batch fails with the first failing row's error and index.
    #[default]
    Fail,
    /// The row's result is a null cell ([`filter_batch`]: the row is not kept).
    Null,
    /// The row has no result: [`evaluate_batch`] returns a shorter array
    /// (the failing rows left out, the others in order; which ones are
    /// named by [`evaluate_batch_report`]); [`filter_batch`] does not keep it.
    Skip,
}

/// A batch-wide limit on fuel or memory (see [`BatchOptions`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Budget {
    /// The program's per-run limit bounds the batch as a whole (the
    /// default): the batch may do what one run may.
    #[default]
    Program,
    /// The per-run limit times the number of rows: the batch may do what
    /// its rows may do run one by one.
    PerRow,
    /// This many fuel units or bytes for the batch as a whole.
    Limit(u64),
    /// No batch-wide limit (each row still has the per-run limits).
    Unlimited,
}

/// How [`evaluate_batch`] and [`filter_batch`] run.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    /// What to do with a row whose evaluation fails.
    pub on_error: OnError,
    /// Fuel for the batch as a whole. Every row is charged at least what
    /// it costs run alone (instructions and built-ins' proportional
    /// costs), besides each row's own per-run limit. Spent: the batch
    /// fails (whatever [`BatchOptions::on_error`]) with
    /// [`ErrorKind::Fuel`], `Fuel budget exhausted: out of fuel`.
    pub fuel: Budget,
    /// Memory for the batch as a whole: the bytes of strings, arrays and
    /// objects all rows create, summed (results included). Spent: the
    /// batch fails with [`ErrorKind::Memory`], `Memory limit exceeded`.
    pub memory: Budget,
    /// Runs every row on the VM, never the columnar plan (for comparison
    /// and tests; the answers are the same).
    pub row_by_row: bool,
}

/// A batch that failed: the row whose evaluation failed (none for an
/// error of the batch as a whole: an unreadable column, a budget spent
/// by the columnar path) and the error.
#[derive(Debug)]
pub struct BatchError {
    /// The row's index in the batch, from 0.
    pub row: Option<usize>,
    /// The error, as [`Program::run`] reports it for that row.
    pub error: Error,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.row {
            Some(row) => write!(f, "row {row}: {}", self.error),
            None => fmt::Display::fmt(&self.error, f),
        }
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl BatchError {
    fn batch(error: Error) -> Self {
        BatchError { row: None, error }
    }
}

/// What [`evaluate_batch_report`] returns.
#[derive(Debug)]
pub struct Evaluation {
    /// One cell per row, or per row that did not fail with
    /// [`OnError::Skip`].
    pub values: ArrayRef,
    /// The rows that failed (nulled or skipped by the policy), in order,
    /// with their errors.
    pub errors: Vec<(usize, Error)>,
    /// Fuel units charged to the batch.
    pub fuel_used: u64,
    /// Bytes charged to the batch's memory budget.
    pub memory_used: u64,
    /// How many rows the VM ran (the others were evaluated by vector
    /// operations).
    pub rows_on_vm: usize,
    /// Whether `values` (a `Utf8` array) holds each value's JSON text
    /// (arrays, objects, or a mix of types: strings are then quoted);
    /// false when its strings are the values themselves.
    pub json_text: bool,
}

/// Evaluates `program` on every row of `batch`.
///
/// # Errors
/// The first failing row's error with its index ([`OnError::Fail`]); a
/// spent batch budget ([`BatchOptions::fuel`], [`BatchOptions::memory`]);
/// a column the program reads whose Arrow type XPR cannot read (kind
/// [`ErrorKind::Type`], no row).
pub fn evaluate_batch(
    program: &Program,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<ArrayRef, BatchError> {
    evaluate_batch_report(program, batch, options).map(|e| e.values)
}

/// The rows of `batch` for which `program` is truthy (as `xpr run
/// --filter`), in order. A failing row is not kept unless the policy is
/// [`OnError::Fail`], which fails the batch.
///
/// # Errors
/// As [`evaluate_batch`].
pub fn filter_batch(
    program: &Program,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<RecordBatch, BatchError> {
    filter_batch_report(program, batch, options).map(|(kept, _)| kept)
}

/// As [`filter_batch`], also naming the rows that failed (dropped under
/// [`OnError::Null`] and [`OnError::Skip`]) and what the batch was
/// charged: the [`Evaluation`] of the predicate (its `values` one cell a
/// row, a failed row's cell null).
///
/// # Errors
/// As [`evaluate_batch`].
pub fn filter_batch_report(
    program: &Program,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<(RecordBatch, Evaluation), BatchError> {
    let options = BatchOptions {
        on_error: match options.on_error {
            OnError::Fail => OnError::Fail,
            _ => OnError::Null,
        },
        ..options.clone()
    };
    let evaluation = evaluate_batch_report(program, batch, &options)?;
    let keep = truthy(&evaluation.values);
    let kept = arrow_select::filter::filter_record_batch(batch, &keep).map_err(|e| {
        BatchError::batch(Error::new(ErrorKind::Value, format!("Arrow error: {e}")))
    })?;
    Ok((kept, evaluation))
}

/// The truthiness of each cell of an evaluation's values (a null is falsy).
fn truthy(values: &ArrayRef) -> BooleanArray {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    match values.data_type() {
        DataType::Boolean => {
            let b = values.as_boolean();
            let bits = match b.nulls() {
                Some(valid) => b.values() & valid.inner(),
                None => b.values().clone(),
            };
            BooleanArray::new(bits, None)
        }
        _ => (0..values.len())
            .map(|i| Some(read::value_at(values.as_ref(), i).truthy()))
            .collect(),
    }
}

/// As [`evaluate_batch`], also naming the rows that failed and what the
/// batch was charged.
///
/// # Errors
/// As [`evaluate_batch`].
pub fn evaluate_batch_report(
    program: &Program,
    batch: &RecordBatch,
    options: &BatchOptions,
) -> Result<Evaluation, BatchError> {
    let rows = batch.num_rows();
    let columns = Columns::new(batch, program.context_names()).map_err(BatchError::batch)?;
    let mut meter = Meter::new(program, options, rows);
    let mut collect = Collector::new(options.on_error, rows);
    let mut runner = RowRunner::new(program);
    let shape = write::static_shape(program.result_type());
    let plan = if options.row_by_row {
        None
    } else {
        plan::compile(program, &columns)
    };
    let at = |row: usize| {
        move |error: Error| BatchError {
            row: Some(row),
            error,
        }
    };
    let Some(plan) = plan else {
        for row in 0..rows {
            let result = runner.run(&columns, row, &mut meter).map_err(at(row))?;
            collect.push(row, result)?;
        }
        let (values, json_text) = collect.build(shape)?;
        return Ok(Evaluation {
            values,
            errors: collect.errors,
            fuel_used: meter.fuel,
            memory_used: meter.memory,
            rows_on_vm: rows,
            json_text,
        });
    };
    let outcome = plan::run(&plan, rows, &mut meter).map_err(BatchError::batch)?;
    // The rows the plan marked failed, on the VM: their exact errors.
    let mut reruns = Vec::with_capacity(outcome.failed.len());
    for &row in &outcome.failed {
        match runner.run(&columns, row, &mut meter).map_err(at(row))? {
            Err(error) if options.on_error == OnError::Fail => {
                return Err(BatchError {
                    row: Some(row),
                    error,
                });
            }
            result => reruns.push((row, result)),
        }
    }
    let array = outcome.array;
    let fits = shape.as_ref().is_none_or(|s| s.dt == *array.data_type());
    let (values, json_text) = if fits && reruns.iter().all(|(_, r)| r.is_err()) {
        // Failed rows are null cells already; skipped ones are dropped.
        let array = match options.on_error {
            OnError::Skip if !reruns.is_empty() => {
                let keep: BooleanArray = (0..rows)
                    .map(|i| Some(reruns.binary_search_by_key(&i, |(r, _)| *r).is_err()))
                    .collect();
                arrow_select::filter::filter(array.as_ref(), &keep).map_err(arrow_error)?
            }
            _ => array,
        };
        for (row, r) in reruns {
            if let Err(e) = r {
                collect.errors.push((row, e));
            }
        }
        let json_text = shape.as_ref().is_some_and(|s| s.json_strings);
        if shape.is_none() && array.null_count() == array.len() {
            (
                std::sync::Arc::new(arrow_array::NullArray::new(array.len())) as ArrayRef,
                false,
            )
        } else {
            (array, json_text)
        }
    } else {
        // A failed row the VM evaluated after all, or another type than
        // the static one: written value by value.
        let mut reruns = reruns.into_iter().peekable();
        for row in 0..rows {
            let result = match reruns.next_if(|(r, _)| *r == row) {
                Some((_, result)) => result,
                None => Ok(read::value_at(array.as_ref(), row)),
            };
            collect.push(row, result)?;
        }
        collect.build(shape)?
    };
    Ok(Evaluation {
        values,
        errors: collect.errors,
        fuel_used: meter.fuel,
        memory_used: meter.memory,
        rows_on_vm: outcome.failed.len(),
        json_text,
    })
}

/// Row `row` of `batch` as an XPR object of all its columns, in schema
/// order (as the program sees them; see the type mapping above): what
/// `xpr run --filter` writes of a kept row.
///
/// # Errors
/// A column whose Arrow type XPR cannot read (kind [`ErrorKind::Type`]).
///
/// # Panics
/// If `row` is not below `batch.num_rows()`.
pub fn row_value(batch: &RecordBatch, row: usize) -> Result<Value, Error> {
    let mut map = xpr::Map::default();
    for (field, column) in batch.schema_ref().fields().iter().zip(batch.columns()) {
        if !read::readable(field.data_type()) {
            return Err(read::unsupported(field.name(), field.data_type()));
        }
        map.insert(
            field.name().as_str().into(),
            read::value_at(column.as_ref(), row),
        );
    }
    Ok(Value::object(map))
}

/// Cell `row` of `array` as an XPR value (see the type mapping above).
///
/// # Errors
/// An Arrow type XPR cannot read (kind [`ErrorKind::Type`]).
///
/// # Panics
/// If `row` is not below `array.len()`.
pub fn cell_value(array: &dyn arrow_array::Array, row: usize) -> Result<Value, Error> {
    if !read::readable(array.data_type()) {
        return Err(read::unsupported("(cell)", array.data_type()));
    }
    Ok(read::value_at(array, row))
}

fn arrow_error(e: arrow_schema::ArrowError) -> BatchError {
    BatchError::batch(Error::new(ErrorKind::Value, format!("Arrow error: {e}")))
}

/// Per-row results gathered under a policy.
struct Collector {
    on_error: OnError,
    values: Vec<Option<Value>>,
    errors: Vec<(usize, Error)>,
}

impl Collector {
    fn new(on_error: OnError, rows: usize) -> Self {
        Collector {
            on_error,
            values: Vec::with_capacity(rows),
            errors: Vec::new(),
        }
    }

    /// Records row `row`'s result (a function or regex result, which no
    /// Arrow cell holds, is that row's error).
    fn push(&mut self, row: usize, result: Result<Value, Error>) -> Result<(), BatchError> {
        let result = result.and_then(|v| match v {
            Value::Function(_) | Value::Regex(_) => Err(Error::type_error(format_args!(
                "a {} result has no Arrow form",
                v.type_name()
            ))),
            v => Ok(v),
        });
        match (result, self.on_error) {
            (Ok(v), _) => self.values.push(Some(v)),
            (Err(error), OnError::Fail) => {
                return Err(BatchError {
                    row: Some(row),
                    error,
                });
            }
            (Err(error), policy) => {
                if policy == OnError::Null {
                    self.values.push(None);
                }
                self.errors.push((row, error));
            }
        }
        Ok(())
    }

    /// The array of the gathered results, in `shape` when given and every
    /// value fits it, else in the shape that holds them all.
    /// Also says whether its cells are JSON text ([`Evaluation::json_text`]).
    fn build(&self, shape: Option<Shape>) -> Result<(ArrayRef, bool), BatchError> {
        let shape = shape.unwrap_or_else(|| write::infer(self.values.iter().flatten()));
        let result = match write::build(&self.values, &shape) {
            Err(Ok(_)) => {
                let wider = write::infer(self.values.iter().flatten());
                write::build(&self.values, &wider).map(|a| (a, wider.json_strings))
            }
            other => other.map(|a| (a, shape.json_strings)),
        };
        result.map_err(|e| match e {
            Ok(i) => BatchError {
                row: Some(i),
                error: Error::new(ErrorKind::Value, "result does not fit its column"),
            },
            Err((i, error)) => BatchError {
                row: Some(i),
                error,
            },
        })
    }
}
