//! XPR errors as Python exceptions: `XprError` and one subclass per
//! [`xpr::ErrorKind`], each instance with `.kind`, `.message`, `.span` and
//! `.hint`, its `str()` the caret rendering under the source.

use std::cell::RefCell;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyType;
use xpr::ErrorKind;

pyo3::create_exception!(
    xpr_rs,
    XprError,
    PyException,
    "An XPR error: `.kind` (\"parse\", \"type\", \"fuel\", ...), `.message` (the \
     spec's words), `.span` ((start, end) in characters of the source, or None), \
     `.hint` (a fix, or None); str() is the message with a caret under the source."
);

/// Declares one subclass of `XprError` per kind.
macro_rules! kinds {
    ($($kind:ident => $class:ident, $doc:literal;)*) => {
        $(pyo3::create_exception!(xpr_rs, $class, XprError, $doc);)*

        /// The exception class of `kind`.
        fn class(py: Python<'_>, kind: ErrorKind) -> Bound<'_, PyType> {
            match kind {
                $(ErrorKind::$kind => py.get_type::<$class>(),)*
                _ => py.get_type::<XprError>(),
            }
        }

        /// Adds `XprError` and its subclasses to the module.
        pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            let py = m.py();
            m.add("XprError", py.get_type::<XprError>())?;
            $(m.add(stringify!($class), py.get_type::<$class>())?;)*
            Ok(())
        }
    };
}

kinds! {
    Parse => XprParseError, "The source does not parse (`1 +`).";
    Type => XprTypeError, "An operation on a value of the wrong type (`'a' - 1`).";
    Reference => XprReferenceError, "An unknown identifier or function (`nmae`).";
    Arity => XprArityError, "A function called with the wrong number of arguments.";
    Arithmetic => XprArithmeticError, "Division by zero and other arithmetic failures.";
    Access => XprAccessError, "A denied property (`__proto__`) or function.";
    Value => XprValueError, "A value out of a function's domain.";
    Regex => XprRegexError, "An invalid regular expression, or one too large.";
    Date => XprDateError, "An invalid date or date format.";
    Host => XprHostError, "A host function failed: a Python callable raised (its traceback is in the message; the exception is `__cause__`).";
    Fuel => XprFuelError, "The fuel budget is used up (`fuel=`).";
    Memory => XprMemoryError, "The memory budget is used up (`max_memory=`).";
    Depth => XprDepthError, "Too deep: expression, calls or values.";
    Length => XprLengthError, "The source, a string or an array is too long.";
    Timeout => XprTimeoutError, "The CPU-time budget (`timeout_ms=`) or the wall-clock ceiling is used up.";
    Cancelled => XprCancelledError, "The evaluation was cancelled.";
    Schema => XprSchemaError, "A result does not conform to an output schema.";
}

thread_local! {
    /// The Python exception of the last host function that raised on this
    /// thread: it becomes the `__cause__` of the `XprHostError`.
    static HOST_CAUSE: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Keeps `err`, raised by a host function, as the cause of the host error
/// about to be raised.
pub(crate) fn keep_host_cause(err: PyErr) {
    HOST_CAUSE.with(|c| *c.borrow_mut() = Some(err));
}

/// Forgets a kept cause (before a run, so a stale one is never attached).
pub(crate) fn clear_host_cause() {
    HOST_CAUSE.with(|c| c.borrow_mut().take());
}

/// `error` (about `source`) as an exception of its kind's class.
pub(crate) fn to_py(py: Python<'_>, error: &xpr::Error, source: &str) -> PyErr {
    let rendering = xpr::render_error(error, source);
    let err = PyErr::from_type(class(py, error.kind()), (rendering.trim_end().to_string(),));
    let value = err.value(py);
    let span = error.span().map(|s| (s.start, s.end));
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("kind", error.kind().name());
    let _ = value.setattr("message", error.message());
    let _ = value.setattr("span", span);
    let _ = value.setattr("hint", error.hint());
    if error.kind() == ErrorKind::Host
        && let Some(cause) = HOST_CAUSE.with(|c| c.borrow_mut().take())
    {
        err.set_cause(py, Some(cause));
    }
    err
}
