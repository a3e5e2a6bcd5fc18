//! The regex built-ins: the global functions `matches`, `match`,
//! `matchAll`, `replacePattern` and the regex method `test`, with the
//! checks of their arguments.

use std::sync::Arc;

use super::{find_value, is_match, match_all_values, replace_all};
use crate::error::{Error, ErrorKind};
use crate::runtime::Runtime;
use crate::value::{Regex, Value};

/// The subject string (first argument) of `name`, or
/// `Type error: NAME expects string as first argument, got T` (the Python
/// reference's words `NAME expects string`, then which argument and its type).
fn subject<'v>(name: &str, v: &'v Value) -> Result<&'v str, Error> {
    v.as_str().ok_or_else(|| {
        Error::type_error(format_args!(
            "{name} expects string as first argument, got {}",
            v.type_name()
        ))
    })
}

/// The pattern argument: a string (compiled with no flags through the
/// runtime's regex cache) or a regex value (used as is, with its flags).
/// Anything else is `Type error: NAME pattern must be string or regex, got T`
/// (the reference's `NAME pattern must be string`, which takes strings only).
fn pattern_arg(rt: &mut dyn Runtime, name: &str, v: &Value) -> Result<Arc<Regex>, Error> {
    match v {
        Value::String(p) => rt.regex(p, ""),
        Value::Regex(r) => Ok(Arc::clone(r)),
        other => Err(Error::type_error(format_args!(
            "{name} pattern must be string or regex, got {}",
            other.type_name()
        ))),
    }
}

pub(super) fn fn_matches(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("matches"));
    };
    let s = subject("matches", s)?;
    let re = pattern_arg(rt, "matches", p)?;
    is_match(rt, &re, s).map(Value::Bool)
}

pub(super) fn fn_match(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("match"));
    };
    let s = subject("match", s)?;
    let re = pattern_arg(rt, "match", p)?;
    find_value(rt, &re, s)
}

pub(super) fn fn_match_all(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("matchAll"));
    };
    let s = subject("matchAll", s)?;
    let re = pattern_arg(rt, "matchAll", p)?;
    match_all_values(rt, &re, s)
}

pub(super) fn fn_replace_pattern(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p, r] = args else {
        return Err(arity_bug("replacePattern"));
    };
    let s = subject("replacePattern", s)?;
    let bad_replacement = || {
        Error::type_error(format_args!(
            "replacePattern replacement must be string, got {}",
            r.type_name()
        ))
    };
    // Argument types first, then the pattern's syntax (as the reference
    // checks them): a bad replacement is reported before an invalid pattern.
    if r.as_str().is_none() && matches!(p, Value::String(_) | Value::Regex(_)) {
        return Err(bad_replacement());
    }
    let re = pattern_arg(rt, "replacePattern", p)?;
    let r = r.as_str().ok_or_else(bad_replacement)?;
    replace_all(rt, &re, s, r).map(Value::from)
}

pub(super) fn method_test(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let Value::Regex(re) = receiver else {
        return Err(super::super::no_such_method("test", receiver));
    };
    let [s] = args else {
        return Err(arity_bug("test"));
    };
    let s = s.as_str().ok_or_else(|| {
        Error::type_error(format_args!(
            "test expects string argument, got {}",
            s.type_name()
        ))
    })?;
    is_match(rt, re, s).map(Value::Bool)
}

/// Unreachable in practice: the registry checks arity before the call.
#[cold]
fn arity_bug(name: &str) -> Error {
    Error::new(
        ErrorKind::Arity,
        format!("Wrong number of arguments for '{name}'"),
    )
}
