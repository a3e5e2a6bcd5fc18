//! The errors the VM raises itself (the operators' and built-ins' are
//! theirs), built out of the hot path, and the position an error is given.

use crate::error::{Error, ErrorKind, Span};
use crate::program::Proto;
use crate::stdlib;
use crate::value::Value;

#[cold]
pub(super) fn out_of_fuel() -> Error {
    Error::new(ErrorKind::Fuel, "Fuel budget exhausted: out of fuel")
}

#[cold]
pub(super) fn cancelled() -> Error {
    Error::new(ErrorKind::Cancelled, "Evaluation cancelled")
}

#[cold]
pub(super) fn internal(what: &str) -> Error {
    Error::new(ErrorKind::Value, format!("internal error: {what}"))
}

#[cold]
pub(super) fn restricted(name: &str) -> Error {
    Error::new(
        ErrorKind::Access,
        format!("Access denied: '{name}' is a restricted property"),
    )
}

#[cold]
pub(super) fn value_too_deep() -> Error {
    Error::new(ErrorKind::Depth, "Value depth limit exceeded")
}

#[cold]
#[inline(never)]
pub(super) fn locate(e: Error, proto: &Proto, at: usize) -> Error {
    let span = proto.spans.get(at).copied().unwrap_or(Span::default());
    e.or_at(span)
}

#[cold]
pub(super) fn not_callable(v: &Value) -> Error {
    Error::type_error(format_args!(
        "Cannot call non-function: {} is not callable",
        v.type_name()
    ))
}

/// The error for `null.key` (spec "Missing Property Access": "cannot
/// access .bar on null"), with the reference runtimes' words after it.
#[cold]
pub(super) fn null_property(key: &str) -> Error {
    Error::type_error(format_args!("cannot access .{key} on null ({NULL_ACCESS})"))
}

/// The reference runtimes' words for any access on null.
const NULL_ACCESS: &str = "Cannot access property on null";

/// The error for `null[idx]`, as [`null_property`] with the index shown as
/// written: `[0]`, `["k"]` (a long key cut), `[true]`, or `[array]` for a
/// container, regex or function.
#[cold]
pub(super) fn null_index(idx: &Value) -> Error {
    let shown = match idx {
        Value::Number(n) => crate::format::number_to_string(*n),
        Value::String(k) => stdlib::types::quote_excerpt(k),
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        other => other.type_name().to_owned(),
    };
    Error::type_error(format_args!(
        "cannot access [{shown}] on null ({NULL_ACCESS})"
    ))
}

#[cold]
pub(super) fn unknown_identifier(name: &str) -> Error {
    Error::new(ErrorKind::Reference, format!("Unknown identifier '{name}'"))
}
