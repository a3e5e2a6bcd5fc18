//! `xpr_rs`: XPR for Python (the `xpr-rs` wheel). Compile an expression
//! once with `xpr_rs.compile`, then evaluate it against dicts
//! (`Program.evaluate`, `evaluate_many`) or NDJSON bytes
//! (`evaluate_ndjson`, `filter_ndjson`) or Arrow batches and tables
//! (`evaluate_arrow`, `filter_arrow`, through xpr-arrow), reading only the parts of each
//! record the expression uses, with the GIL released while the VM runs.
//! Errors are `xpr_rs.XprError` subclasses, one per error kind.
//!
//! The Python package around this extension module is `python/xpr_rs`
//! (re-exports, type stubs, `_restore` for pickling).

#![forbid(unsafe_code)]

mod arrow;
mod convert;
mod errors;
mod host;
mod ndjson;
mod program;

use std::time::Duration;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyString};

use crate::convert::Reader;
use crate::program::Program;

/// A budget argument: `None` keeps the default, `math.inf` lifts the
/// limit, a non-negative int sets it.
fn budget(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Option<u64>>> {
    let Some(v) = value else { return Ok(None) };
    if let Ok(f) = v.cast::<PyFloat>()
        && f.value() == f64::INFINITY
    {
        return Ok(Some(None));
    }
    match v.extract::<u64>() {
        Ok(n) => Ok(Some(Some(n))),
        Err(_) => Err(PyValueError::new_err(format!(
            "{name} must be a non-negative int, None (the default) or math.inf (no limit), not {}",
            v.repr()?
        ))),
    }
}

/// Compiles `source` once. The limits (each `None` for the default,
/// `math.inf` for none): `fuel` (units per evaluation, default
/// 10,000,000), `max_memory` (bytes per evaluation, default 64 MiB),
/// `timeout_ms` (CPU milliseconds per evaluation, default 100),
/// `max_depth` (nesting of the expression, default 50). `functions` maps
/// names to Python callables the expression may call; `seed` fixes what
/// `random()` draws.
///
/// Raises an `XprError` subclass (`XprParseError`, ...) when the source
/// does not compile.
#[pyfunction]
#[pyo3(signature = (source, *, fuel=None, max_memory=None, timeout_ms=None, max_depth=None, functions=None, seed=None))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    source: &Bound<'_, PyString>,
    fuel: Option<&Bound<'_, PyAny>>,
    max_memory: Option<&Bound<'_, PyAny>>,
    timeout_ms: Option<&Bound<'_, PyAny>>,
    max_depth: Option<&Bound<'_, PyAny>>,
    functions: Option<&Bound<'_, PyDict>>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<Program> {
    let text = source.to_str()?.to_string();
    let mut limits = xpr::Limits::default();
    if let Some(f) = budget("fuel", fuel)? {
        limits.fuel = f;
    }
    if let Some(m) = budget("max_memory", max_memory)? {
        limits.memory = m;
    }
    if let Some(d) = budget("max_depth", max_depth)? {
        limits.max_depth = d.map(|d| u32::try_from(d).unwrap_or(u32::MAX));
    }
    if let Some(t) = timeout_ms {
        limits.timeout = timeout(t)?;
    }
    let mut engine = xpr::Engine::new();
    if let Some(s) = seed {
        let s: u64 = s
            .extract()
            .map_err(|_| PyValueError::new_err("seed must be a non-negative int"))?;
        engine = engine.with_seed(Some(s));
    }
    let reader = Reader {
        max_depth: limits.value_depth,
    };
    engine.set_limits(limits);
    if let Some(functions) = functions {
        for (name, f) in functions.iter() {
            let Ok(name) = name.cast::<PyString>() else {
                return Err(PyTypeError::new_err(
                    "functions must map str names to callables",
                ));
            };
            host::register(&mut engine, name.to_str()?, &f, reader)?;
        }
    }
    let program = engine
        .compile(&text)
        .map_err(|e| errors::to_py(py, &e, &text))?;
    let options = PyDict::new(py);
    for (key, value) in [
        ("fuel", fuel),
        ("max_memory", max_memory),
        ("timeout_ms", timeout_ms),
        ("max_depth", max_depth),
        ("seed", seed),
    ] {
        if let Some(v) = value {
            options.set_item(key, v)?;
        }
    }
    if let Some(f) = functions {
        options.set_item("functions", f.copy()?)?;
    }
    Ok(Program::new(py, program, text, reader, options.unbind()))
}

/// `timeout_ms`: milliseconds (int or float), or `math.inf` for none. A
/// finite number beyond what a `Duration` holds (1e300) is the longest
/// one.
fn timeout(value: &Bound<'_, PyAny>) -> PyResult<Option<Duration>> {
    let ms: f64 = value.extract().map_err(|_| {
        PyValueError::new_err("timeout_ms must be a number of milliseconds or math.inf")
    })?;
    if ms == f64::INFINITY {
        Ok(None)
    } else if ms.is_finite() && ms >= 0.0 {
        Ok(Some(
            Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX),
        ))
    } else {
        Err(PyValueError::new_err(
            "timeout_ms must be a number of milliseconds or math.inf",
        ))
    }
}

/// The extension module `xpr_rs._xpr_rs`.
#[pymodule]
fn _xpr_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_class::<Program>()?;
    errors::register(m)?;
    Ok(())
}
