//! Python callables as XPR host functions (`functions={"tier": fn}`).
//!
//! A call takes the GIL (it may run while an evaluation has released it),
//! converts the arguments to Python objects, calls the function and
//! converts its result back. It costs fuel: one unit as every host call,
//! plus one per 16 bytes of the logical size of its arguments and result
//! (the conversion work). A Python exception becomes a host error whose
//! message names the function and the exception and carries the
//! traceback's frames; the exception itself becomes the `__cause__` of the
//! `XprHostError` raised.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use xpr::{Arity, Engine, HostError, Value};

use crate::convert::{self, Reader};
use crate::errors;

/// Bytes of converted values per fuel unit charged for a host call.
const BYTES_PER_FUEL: u64 = 16;

/// The arity of `f` from its signature: positional parameters, those
/// without a default required, `*args` unbounded; any count when the
/// signature cannot be read (some built-ins).
fn arity(py: Python<'_>, f: &Bound<'_, PyAny>) -> Arity {
    let read = || -> PyResult<Arity> {
        let inspect = py.import("inspect")?;
        let params = inspect
            .call_method1("signature", (f,))?
            .getattr("parameters")?
            .call_method0("values")?;
        let empty = inspect.getattr("Parameter")?.getattr("empty")?;
        let (mut required, mut total, mut rest) = (0u32, 0u32, false);
        for p in params.try_iter()? {
            let p = p?;
            let kind: String = p.getattr("kind")?.getattr("name")?.extract()?;
            match kind.as_str() {
                "POSITIONAL_ONLY" | "POSITIONAL_OR_KEYWORD" => {
                    total += 1;
                    if p.getattr("default")?.is(&empty) {
                        required += 1;
                    }
                }
                "VAR_POSITIONAL" => rest = true,
                _ => {}
            }
        }
        let clamp = |n: u32| n.min(u32::from(u8::MAX)) as u8;
        Ok(if rest {
            Arity::AtLeast(clamp(required))
        } else if required == total {
            Arity::Exact(clamp(total))
        } else {
            Arity::Range(clamp(required), clamp(total))
        })
    };
    read().unwrap_or(Arity::AtLeast(0))
}

/// Registers the callable `f` as host function `name` on `engine`.
///
/// # Errors
/// `f` is not callable (`TypeError`); `name` is not an identifier, is a
/// built-in's or is taken (`XprHostError`).
pub(crate) fn register(
    engine: &mut Engine,
    name: &str,
    f: &Bound<'_, PyAny>,
    reader: Reader,
) -> PyResult<()> {
    let py = f.py();
    if !f.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "functions['{name}'] is not callable"
        )));
    }
    let arity = arity(py, f);
    let callable: Py<PyAny> = f.clone().unbind();
    let owned = name.to_string();
    engine
        .register_metered(name, arity, move |meter, args| {
            Python::attach(|py| {
                let size: u64 = args.iter().map(Value::logical_size).sum();
                let result = call(py, callable.bind(py), &owned, args, reader)?;
                meter.charge((size + result.logical_size()) / BYTES_PER_FUEL);
                Ok(result)
            })
        })
        .map_err(|e| errors::to_py(py, &e, ""))?;
    Ok(())
}

/// Calls `f` with `args`; a Python exception becomes a host error.
fn call(
    py: Python<'_>,
    f: &Bound<'_, PyAny>,
    name: &str,
    args: &[Value],
    reader: Reader,
) -> Result<Value, HostError> {
    let raised = |e: PyErr, what: &str| {
        let text = format!("host function '{name}' {what} {}", describe(py, &e));
        errors::keep_host_cause(e);
        HostError::new(text)
    };
    let converted = args
        .iter()
        .map(|a| convert::to_py(py, a))
        .collect::<PyResult<Vec<_>>>()
        .map_err(|e| raised(e, "cannot take its arguments:"))?;
    let tuple = PyTuple::new(py, converted).map_err(|e| raised(e, "cannot take its arguments:"))?;
    let result = f.call1(tuple).map_err(|e| raised(e, "raised"))?;
    reader
        .whole(&result, 1)
        .map_err(|e| raised(e, "returned a value XPR cannot hold:"))
}

/// `TypeName: message`, then the traceback's frames
/// (`traceback.format_tb`). The message is there once: not again as the
/// traceback's last line, nor with the exceptions chained to it (the
/// exception is the `__cause__` of the host error), so that a host error
/// raised through nested evaluations grows by a few lines a level, not
/// twice over.
fn describe(py: Python<'_>, e: &PyErr) -> String {
    let head = e.value(py).to_string();
    let kind = e
        .get_type(py)
        .name()
        .map_or_else(|_| "Exception".to_string(), |n| n.to_string());
    let trace = || -> PyResult<Option<String>> {
        let Some(tb) = e.traceback(py) else {
            return Ok(None);
        };
        let lines = py.import("traceback")?.call_method1("format_tb", (tb,))?;
        let text = PyString::new(py, "").call_method1("join", (lines,))?;
        Ok(Some(text.extract()?))
    };
    match trace() {
        Ok(Some(t)) => format!(
            "{kind}: {head}\nTraceback (most recent call last):\n{}",
            t.trim_end()
        ),
        _ => format!("{kind}: {head}"),
    }
}
