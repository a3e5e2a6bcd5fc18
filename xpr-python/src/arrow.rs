//! Arrow: `Program.evaluate_arrow` and `Program.filter_arrow` over
//! pyarrow record batches and tables (or anything that speaks the Arrow
//! PyCapsule interface: `__arrow_c_array__` for a batch,
//! `__arrow_c_stream__` for a table or a stream), exchanged through the
//! Arrow C data interface (pyo3-arrow, no copy) and evaluated by
//! xpr-arrow (`evaluate_batch`, `filter_batch`) with the GIL released.

use arrow_array::{ArrayRef, RecordBatch};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::{PyArray, PyRecordBatch, PyTable};
use xpr_arrow::{BatchError, BatchOptions, Budget, OnError};

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

/// A failed batch as an `XprError`, with `.row` the row's index in the
/// whole input (`None` for an error of the batch as a whole).
fn batch_error(py: Python<'_>, source: &str, offset: usize, e: &BatchError) -> PyErr {
    let err = errors::to_py(py, &e.error, source);
    let _ = err.value(py).setattr("row", e.row.map(|r| r + offset));
    err
}

/// The program's result for every row of `data`, as one `pyarrow.Array`
/// (a table's batches are evaluated as one).
pub(crate) fn evaluate<'py>(
    py: Python<'py>,
    program: &xpr::Program,
    source: &str,
    data: AnyRecordBatch,
    on_error: OnError,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = match data {
        AnyRecordBatch::RecordBatch(b) => b.into_inner(),
        AnyRecordBatch::Stream(s) => {
            let (batches, schema) = s.into_table()?.into_inner();
            arrow_select::concat::concat_batches(&schema, &batches)
                .map_err(|e| PyValueError::new_err(e.to_string()))?
        }
    };
    let options = options(on_error);
    let result: Result<ArrayRef, BatchError> =
        py.detach(|| xpr_arrow::evaluate_batch(program, &batch, &options));
    let array = result.map_err(|e| batch_error(py, source, 0, &e))?;
    // pyarrow.array(obj) imports through obj.__arrow_c_array__.
    let exported = PyArray::from_array_ref(array).into_pyobject(py)?;
    py.import("pyarrow")?.getattr("array")?.call1((exported,))
}

/// The rows of `data` for which the program is truthy: a
/// `pyarrow.RecordBatch` for a batch, a `pyarrow.Table` for a table or
/// stream.
pub(crate) fn filter<'py>(
    py: Python<'py>,
    program: &xpr::Program,
    source: &str,
    data: AnyRecordBatch,
    on_error: OnError,
) -> PyResult<Bound<'py, PyAny>> {
    let options = options(on_error);
    let run = |batches: &[RecordBatch]| -> Result<Vec<RecordBatch>, (usize, BatchError)> {
        let mut offset = 0;
        let mut kept = Vec::with_capacity(batches.len());
        for b in batches {
            kept.push(xpr_arrow::filter_batch(program, b, &options).map_err(|e| (offset, e))?);
            offset += b.num_rows();
        }
        Ok(kept)
    };
    let fail = |(offset, e): (usize, BatchError)| batch_error(py, source, offset, &e);
    match data {
        AnyRecordBatch::RecordBatch(b) => {
            let batch = b.into_inner();
            let mut kept = py
                .detach(|| run(std::slice::from_ref(&batch)))
                .map_err(fail)?;
            PyRecordBatch::new(kept.remove(0)).into_pyarrow(py)
        }
        AnyRecordBatch::Stream(s) => {
            let (batches, schema) = s.into_table()?.into_inner();
            let kept = py.detach(|| run(&batches)).map_err(fail)?;
            PyTable::try_new(kept, schema)?.into_pyarrow(py)
        }
    }
}

/// The batch's options: each row is held to the program's per-run limits,
/// and the batch as a whole to what its rows may use one by one
/// (`Budget::PerRow`), as `evaluate_many` holds each record: a table of
/// any length runs with the limits `compile` was given.
fn options(on_error: OnError) -> BatchOptions {
    BatchOptions {
        on_error,
        fuel: Budget::PerRow,
        memory: Budget::PerRow,
        ..BatchOptions::default()
    }
}
