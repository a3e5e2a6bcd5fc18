//! `xpr_rs.Program`: a compiled expression, immutable and shared by threads.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use xpr::{Output, Value, Vm};

use crate::arrow;
use crate::convert::{self, Layout, Reader, Record, Slot, Texts, Values};
use crate::errors;
use crate::ndjson;

/// Records converted before the GIL is released to evaluate them, in
/// `evaluate_many`.
const CHUNK: usize = 256;

/// Fuel one evaluation must use before `evaluate` releases the GIL for
/// the program's later evaluations: below it (a predicate uses tens of
/// units) releasing and taking back the GIL costs more than the run.
const DETACH_FUEL: u64 = 20_000;

thread_local! {
    static VM: RefCell<Vm> = RefCell::new(Vm::new());
}

/// A compiled XPR expression (see `xpr_rs.compile`). Immutable and
/// thread-safe: compile once, evaluate from any thread. Pickles (the
/// source and the `compile` arguments; the program is compiled again).
#[pyclass(frozen, module = "xpr_rs", name = "Program")]
pub(crate) struct Program {
    program: xpr::Program,
    source: String,
    /// The fields read and the slots a record of them has.
    layout: Layout,
    reader: Reader,
    /// Whether an evaluation used [`DETACH_FUEL`]: from then on the GIL is
    /// released while the VM runs.
    heavy: AtomicBool,
    /// The keyword arguments of `compile` that were given, for pickling.
    options: Py<PyDict>,
    /// Whether host functions were given (whose exceptions are kept).
    calls_host: bool,
}

/// Why an NDJSON line failed.
enum LineError {
    Json(String),
    Eval(xpr::Error),
}

impl Program {
    /// Wraps a compiled program.
    pub(crate) fn new(
        py: Python<'_>,
        program: xpr::Program,
        source: String,
        reader: Reader,
        options: Py<PyDict>,
    ) -> Program {
        let layout = Layout::new(py, &program.read_paths());
        let calls_host = options.bind(py).contains("functions").unwrap_or(true);
        Program {
            calls_host,
            program,
            source,
            layout,
            reader,
            heavy: AtomicBool::new(false),
            options,
        }
    }

    /// Runs against the record `slots` on this thread's VM, handing the
    /// result to `then`.
    #[inline(always)]
    fn run<R>(&self, slots: &[Slot<'_>], then: impl FnOnce(Result<Value, xpr::Error>) -> R) -> R {
        let record = Record {
            roots: &self.layout.roots,
            slots,
        };
        VM.with(|vm| {
            let (result, fuel) = match vm.try_borrow_mut() {
                Ok(mut vm) => (self.program.run_in(&mut vm, &record), vm.fuel_used()),
                // Re-entered from a host function: a fresh VM.
                Err(_) => {
                    let mut vm = Vm::new();
                    (self.program.run_in(&mut vm, &record), vm.fuel_used())
                }
            };
            if fuel > DETACH_FUEL {
                self.heavy.store(true, Ordering::Relaxed);
            }
            then(result)
        })
    }

    /// [`Program::run`], an object literal result handed to `then` as its
    /// fields ([`xpr::Program::run_fields_in`]): for a result converted at
    /// once, with no map built and dropped.
    #[inline(always)]
    fn run_fields<R>(
        &self,
        slots: &[Slot<'_>],
        then: impl FnOnce(Result<Output<'_>, xpr::Error>) -> R,
    ) -> R {
        let record = Record {
            roots: &self.layout.roots,
            slots,
        };
        VM.with(|vm| match vm.try_borrow_mut() {
            Ok(mut vm) => {
                let out = then(self.program.run_fields_in(&mut vm, &record));
                if vm.fuel_used() > DETACH_FUEL {
                    self.heavy.store(true, Ordering::Relaxed);
                }
                out
            }
            // Re-entered from a host function: a fresh VM.
            Err(_) => {
                let mut vm = Vm::new();
                then(self.program.run_fields_in(&mut vm, &record))
            }
        })
    }

    fn error(&self, py: Python<'_>, e: &xpr::Error) -> PyErr {
        errors::to_py(py, e, &self.source)
    }

    /// Parses and runs every line of `data` with the GIL released, giving
    /// each result to `keep` with its line's byte range.
    fn each_line(
        &self,
        py: Python<'_>,
        data: &[u8],
        mut keep: impl FnMut(Value, usize, usize) + Send,
    ) -> PyResult<()> {
        let max_depth = self.reader.max_depth;
        let failed = py.detach(|| {
            errors::clear_host_cause();
            let mut values = Values::new();
            for (line, start, end) in ndjson::lines(data) {
                if let Err(m) =
                    ndjson::record(&data[start..end], &self.layout, max_depth, &mut values)
                {
                    return Some((line, LineError::Json(m)));
                }
                match self.run(&values, |r| r) {
                    Ok(v) => keep(v, start, end),
                    Err(e) => return Some((line, LineError::Eval(e))),
                }
            }
            None
        });
        match failed {
            None => Ok(()),
            Some((line, LineError::Json(m))) => {
                let e = PyValueError::new_err(format!("line {line}: {m}"));
                let _ = e.value(py).setattr("line", line);
                Err(e)
            }
            Some((line, LineError::Eval(e))) => {
                let e = self.error(py, &e);
                let _ = e.value(py).setattr("line", line);
                Err(e)
            }
        }
    }
}

#[pymethods]
impl Program {
    /// The expression's source text.
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }

    /// The context fields the expression reads as values, in order of first use.
    #[getter]
    fn free_variables(&self) -> Vec<String> {
        self.program
            .free_variables()
            .iter()
            .map(|k| k.to_string())
            .collect()
    }

    /// The built-in and host functions the expression calls by name.
    #[getter]
    fn functions(&self) -> Vec<String> {
        self.program
            .functions()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The context paths the expression reads, as tuples of names
    /// (`properties.mag > 5` reads `("properties", "mag")`): only these
    /// parts of a record are converted.
    #[getter]
    fn paths<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        self.program
            .read_paths()
            .iter()
            .map(|p| PyTuple::new(py, p.iter().map(|k| &**k)))
            .collect()
    }

    /// The bytecode listing, one instruction a line.
    fn disasm(&self) -> String {
        self.program.to_string()
    }

    /// Evaluates the expression against `context`, a dict whose keys are
    /// the variables (None: no variables). Only the paths the expression
    /// reads are looked up and converted (`properties.mag` converts that
    /// one value; a `str` is lent as text, not copied). The GIL is kept
    /// for a small evaluation and released while the VM runs once one
    /// evaluation of the program has used [`DETACH_FUEL`] units. Returns
    /// the result as a Python value (an integral number as int).
    ///
    /// Raises an `XprError` subclass for an evaluation error, `TypeError`
    /// or `ValueError` for a context XPR cannot hold (`OverflowError` for
    /// an int beyond the doubles).
    #[pyo3(signature = (context=None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        context: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // The strings read whole, lent to the VM as text: each held for
        // the call, so a host function changing the dict frees none.
        let mut texts = Texts::new();
        let mut values = Values::new();
        match context {
            Some(c) => self
                .reader
                .record_into(c, &self.layout, &mut values, Some(&mut texts))?,
            None => values.resize_with(self.layout.width, || Slot::Absent),
        }
        for (slot, s) in &texts {
            values[*slot] = Slot::Text(s.to_str()?);
        }
        if self.calls_host {
            errors::clear_host_cause();
        }
        let answer = |result: Result<Value, xpr::Error>| match result {
            Ok(v) => convert::to_py(py, &v),
            Err(e) => Err(self.error(py, &e)),
        };
        if self.heavy.load(Ordering::Relaxed) {
            answer(py.detach(|| self.run(&values, |r| r)))
        } else {
            // Converted where the run leaves its result (a result moved
            // out first cost a stalled store-to-load forward), an object
            // literal straight from its fields into a dict.
            self.run_fields(&values, |result| match result {
                Ok(Output::Value(v)) => convert::to_py(py, &v),
                Ok(Output::Fields(f)) => convert::fields_to_py(py, f),
                Err(e) => Err(self.error(py, &e)),
            })
        }
    }

    /// Evaluates the expression against each context of `contexts` (any
    /// iterable of dicts), converting a chunk of them, then releasing the
    /// GIL while the chunk runs. Returns the list of results. The first
    /// error is raised, with `.index` the position of its context.
    fn evaluate_many<'py>(
        &self,
        py: Python<'py>,
        contexts: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let mut iter = contexts.try_iter()?;
        // The chunk's records, one after the other, each `width` slots long.
        let width = self.layout.width;
        let mut chunk: Vec<Slot> = Vec::with_capacity(CHUNK * width);
        let mut index = 0usize;
        loop {
            chunk.clear();
            let mut records = 0;
            for item in iter.by_ref().take(CHUNK) {
                self.reader
                    .record_into(&item?, &self.layout, &mut chunk, None)?;
                records += 1;
            }
            if records == 0 {
                return Ok(out);
            }
            let (results, failed) = py.detach(|| {
                if self.calls_host {
                    errors::clear_host_cause();
                }
                let mut results = Vec::with_capacity(records);
                for i in 0..records {
                    match self.run(&chunk[i * width..(i + 1) * width], |r| r) {
                        Ok(v) => results.push(v),
                        Err(e) => return (results, Some(e)),
                    }
                }
                (results, None)
            });
            let done = results.len();
            for v in &results {
                out.append(convert::to_py(py, v)?)?;
            }
            if let Some(e) = failed {
                let e = self.error(py, &e);
                let _ = e.value(py).setattr("index", index + done);
                return Err(e);
            }
            index += records;
        }
    }

    /// Evaluates the expression against each line of `data` (NDJSON: one
    /// JSON object a line; blank lines skipped) with the GIL released,
    /// reading only the paths the expression uses. Returns the list of
    /// results. Raises `ValueError` for a line that is not JSON and an
    /// `XprError` for an evaluation error, each with `.line` (1-based).
    fn evaluate_ndjson<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut results = Vec::new();
        self.each_line(py, data.as_bytes(), |v, _, _| results.push(v))?;
        let items = results
            .iter()
            .map(|v| convert::to_py(py, v))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// The lines of `data` (NDJSON) for which the expression is truthy,
    /// each unchanged but for its line ending, as `xpr run --filter` keeps
    /// records. Errors as `evaluate_ndjson`.
    fn filter_ndjson<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyList>> {
        let bytes = data.as_bytes();
        let mut kept = Vec::new();
        self.each_line(py, bytes, |v, start, end| {
            if v.truthy() {
                kept.push((start, end));
            }
        })?;
        PyList::new(
            py,
            kept.iter().map(|&(s, e)| PyBytes::new(py, &bytes[s..e])),
        )
    }

    /// Evaluates the expression on every row of `data`, a
    /// `pyarrow.RecordBatch` or `pyarrow.Table` (or any object with
    /// `__arrow_c_array__` or `__arrow_c_stream__`): its columns are the
    /// variables (struct columns objects, list columns arrays). Returns a
    /// `pyarrow.Array`, one result a row: boolean, double or string after
    /// the results' type (arrays, objects and mixed types as JSON text).
    /// `on_error`: `"fail"` raises the first error with `.row`; `"null"`
    /// gives a null; `"skip"` leaves the row out. `batch_fuel`: fuel units
    /// for the whole call (default: what its rows may use one by one);
    /// spent, the call raises `XprFuelError` (`.row` None) whatever
    /// `on_error`. `report=True` returns `(array, report)`, `report` a
    /// dict: `rows`, `errors` (rows that failed), `error_rows`,
    /// `messages`, `fuel_used`.
    #[pyo3(signature = (data, *, on_error="fail", batch_fuel=None, report=false))]
    fn evaluate_arrow<'py>(
        &self,
        py: Python<'py>,
        data: Bound<'py, PyAny>,
        on_error: &str,
        batch_fuel: Option<u64>,
        report: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let data = arrow::import(py, data)?;
        let run = arrow::Run {
            on_error: arrow::on_error(on_error)?,
            batch_fuel,
            report,
        };
        arrow::evaluate(py, &self.program, &self.source, data, &run)
    }

    /// The rows of `data` for which the expression is truthy, as a
    /// `pyarrow.RecordBatch` for a batch and a `pyarrow.Table` for a
    /// table. `on_error`: `"fail"` raises the first error with `.row`;
    /// `"null"` and `"skip"` drop the row. `batch_fuel` and `report` as in
    /// `evaluate_arrow` (the fuel shared by a table's batches).
    #[pyo3(signature = (data, *, on_error="fail", batch_fuel=None, report=false))]
    fn filter_arrow<'py>(
        &self,
        py: Python<'py>,
        data: Bound<'py, PyAny>,
        on_error: &str,
        batch_fuel: Option<u64>,
        report: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let data = arrow::import(py, data)?;
        let run = arrow::Run {
            on_error: arrow::on_error(on_error)?,
            batch_fuel,
            report,
        };
        arrow::filter(py, &self.program, &self.source, data, &run)
    }

    /// Pickling: `xpr_rs._restore(source, options)` compiles again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let restore = py.import("xpr_rs")?.getattr("_restore")?;
        let args = (self.source.as_str(), self.options.bind(py).copy()?);
        (restore, args).into_pyobject(py)
    }

    /// A program is immutable: a copy is the program itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// A program is immutable: a copy is the program itself.
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let source = PyString::new(py, &self.source).repr()?;
        Ok(format!("xpr_rs.Program({source})"))
    }
}
