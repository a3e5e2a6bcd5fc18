//! Arrow: `Program.evaluate_arrow` and `Program.filter_arrow` over
//! pyarrow record batches and tables (or anything that speaks the Arrow
//! PyCapsule interface: `__arrow_c_array__` for a batch,
//! `__arrow_c_stream__` for a table or a stream), exchanged through the
//! Arrow C data interface (pyo3-arrow, no copy) and evaluated by
//! xpr-arrow (`evaluate_batch`, `filter_batch`) with the GIL released.

use arrow_array::RecordBatch;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::{PyArray, PyRecordBatch, PyTable};
use xpr_arrow::{BatchError, BatchOptions, Budget, Evaluation, OnError};

use crate::errors;

/// The `on_error` argument: `"fail"` (raise, the default), `"null"` (a
/// null result; `filter_arrow` drops the row) or `"skip"` (no result).
pub(crate) fn on_error(name: &str) -> PyResult<OnError> {
    match name {
        "fail" => Ok(OnError::Fail),
        "null" => Ok(OnError::Null),
        "skip" => Ok(OnError::Skip),
        _ => Err(PyValueError::new_err(format!(
            "on_error must be 'fail', 'null' or 'skip', not {name:?}"
        ))),
    }
}

/// `data` as an Arrow batch or stream, through `xpr_rs._aligned`
/// first: the C data interface reads buffers in place, and arrow-rs
/// requires offsets and values aligned to their width (a misaligned
/// buffer, as Dask's zero-copy deserialisation leaves them, would be read
/// out of alignment), so a pyarrow batch or table with a misaligned
/// buffer is copied before it is exported.
pub(crate) fn import(py: Python<'_>, data: Bound<'_, PyAny>) -> PyResult<AnyRecordBatch> {
    let aligned = py.import("xpr_rs")?.getattr("_aligned")?.call1((data,))?;
    aligned.extract()
}

/// A failed batch as an `XprError`, with `.row` the row's index in the
/// whole input (`None` for an error of the batch as a whole).
fn batch_error(py: Python<'_>, source: &str, offset: usize, e: &BatchError) -> PyErr {
    let err = errors::to_py(py, &e.error, source);
    let _ = err.value(py).setattr("row", e.row.map(|r| r + offset));
    err
}

/// How a batch call runs: the policy, the batch's fuel (`None`: what
/// its rows may use one by one) and whether the caller wants a report.
pub(crate) struct Run {
    pub(crate) on_error: OnError,
    pub(crate) batch_fuel: Option<u64>,
    pub(crate) report: bool,
}

/// What the rows of one call did, summed over its batches: the failed
/// rows (index in the whole input) with their errors, and the fuel used.
#[derive(Default)]
struct Tally {
    errors: Vec<(usize, xpr::Error)>,
    fuel_used: u64,
}

impl Tally {
    fn add(&mut self, offset: usize, evaluation: Evaluation) {
        self.errors
            .extend(evaluation.errors.into_iter().map(|(r, e)| (r + offset, e)));
        self.fuel_used += evaluation.fuel_used;
    }

    /// `result` alone, or `(result, report)` with `report` a dict:
    /// `rows` (input rows), `errors` (how many failed), `error_rows`
    /// (their indices), `messages` (each error's `str()`), `fuel_used`.
    fn finish<'py>(
        self,
        py: Python<'py>,
        source: &str,
        rows: usize,
        result: Bound<'py, PyAny>,
        run: &Run,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !run.report {
            return Ok(result);
        }
        let report = PyDict::new(py);
        report.set_item("rows", rows)?;
        report.set_item("errors", self.errors.len())?;
        let error_rows: Vec<usize> = self.errors.iter().map(|(r, _)| *r).collect();
        report.set_item("error_rows", error_rows)?;
        let messages = self
            .errors
            .iter()
            .map(|(_, e)| errors::to_py(py, e, source).value(py).str()?.extract())
            .collect::<PyResult<Vec<String>>>()?;
        report.set_item("messages", messages)?;
        report.set_item("fuel_used", self.fuel_used)?;
        Ok((result, report).into_pyobject(py)?.into_any())
    }
}

/// The program's result for every row of `data`, as one `pyarrow.Array`
/// (a table's batches are evaluated as one).
pub(crate) fn evaluate<'py>(
    py: Python<'py>,
    program: &xpr::Program,
    source: &str,
    data: AnyRecordBatch,
    run: &Run,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = match data {
        AnyRecordBatch::RecordBatch(b) => b.into_inner(),
        AnyRecordBatch::Stream(s) => {
            let (batches, schema) = s.into_table()?.into_inner();
            arrow_select::concat::concat_batches(&schema, &batches)
                .map_err(|e| PyValueError::new_err(e.to_string()))?
        }
    };
    let options = options(run.on_error, run.batch_fuel);
    let result: Result<Evaluation, BatchError> =
        py.detach(|| xpr_arrow::evaluate_batch_report(program, &batch, &options));
    let mut evaluation = result.map_err(|e| batch_error(py, source, 0, &e))?;
    let array = std::mem::replace(
        &mut evaluation.values,
        std::sync::Arc::new(arrow_array::NullArray::new(0)),
    );
    let mut tally = Tally::default();
    tally.add(0, evaluation);
    // pyarrow.array(obj) imports through obj.__arrow_c_array__.
    let exported = PyArray::from_array_ref(array).into_pyobject(py)?;
    let result = py.import("pyarrow")?.getattr("array")?.call1((exported,))?;
    tally.finish(py, source, batch.num_rows(), result, run)
}

/// The rows of `data` for which the program is truthy: a
/// `pyarrow.RecordBatch` for a batch, a `pyarrow.Table` for a table or
/// stream.
pub(crate) fn filter<'py>(
    py: Python<'py>,
    program: &xpr::Program,
    source: &str,
    data: AnyRecordBatch,
    run: &Run,
) -> PyResult<Bound<'py, PyAny>> {
    type Kept = (Vec<RecordBatch>, Tally, usize);
    let go = |batches: &[RecordBatch]| -> Result<Kept, (usize, BatchError)> {
        let mut offset = 0;
        let mut kept = Vec::with_capacity(batches.len());
        let mut tally = Tally::default();
        for b in batches {
            // A batch budget is shared by the table's batches.
            let left = run.batch_fuel.map(|f| f.saturating_sub(tally.fuel_used));
            let options = options(run.on_error, left);
            let (k, evaluation) =
                xpr_arrow::filter_batch_report(program, b, &options).map_err(|e| (offset, e))?;
            kept.push(k);
            tally.add(offset, evaluation);
            offset += b.num_rows();
        }
        Ok((kept, tally, offset))
    };
    let fail = |(offset, e): (usize, BatchError)| batch_error(py, source, offset, &e);
    match data {
        AnyRecordBatch::RecordBatch(b) => {
            let batch = b.into_inner();
            let (mut kept, tally, rows) = py
                .detach(|| go(std::slice::from_ref(&batch)))
                .map_err(fail)?;
            let result = PyRecordBatch::new(kept.remove(0)).into_pyarrow(py)?;
            tally.finish(py, source, rows, result, run)
        }
        AnyRecordBatch::Stream(s) => {
            let (batches, schema) = s.into_table()?.into_inner();
            let (kept, tally, rows) = py.detach(|| go(&batches)).map_err(fail)?;
            let result = PyTable::try_new(kept, schema)?.into_pyarrow(py)?;
            tally.finish(py, source, rows, result, run)
        }
    }
}

/// The batch's options: each row is held to the program's per-run limits,
/// and the batch as a whole to what its rows may use one by one
/// (`Budget::PerRow`), as `evaluate_many` holds each record: a table of
/// any length runs with the limits `compile` was given. `batch_fuel`
/// caps the fuel of the whole call instead (a partition's budget).
fn options(on_error: OnError, batch_fuel: Option<u64>) -> BatchOptions {
    BatchOptions {
        on_error,
        fuel: batch_fuel.map_or(Budget::PerRow, Budget::Limit),
        memory: Budget::PerRow,
        ..BatchOptions::default()
    }
}
