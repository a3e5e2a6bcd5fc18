//! String methods that look for a pattern and answer, split or replace by
//! it: `startsWith`, `endsWith`, `contains`, `indexOf` (string patterns),
//! `split` and `replace` (a string or a regex), `match` (a regex). The
//! regex work itself is done in [`crate::stdlib::regex`].

use std::sync::Arc;

use super::{arg, char_count, into_string, reserve, str_arg, text, wrong_type};
use crate::error::Error;
use crate::format::text_fuel;
use crate::runtime::Runtime;
use crate::stdlib::regex;
use crate::value::{HEADER_BYTES, SLOT_BYTES, STRING_HEADER_BYTES, Value};

/// The receiver's text and argument 0 of method `name` as a string.
///
/// # Errors
/// `Type error: NAME expects string argument, got T`.
fn text_and_needle<'a>(
    name: &str,
    receiver: &'a Value,
    args: &'a [Value],
) -> Result<(&'a str, &'a str), Error> {
    let s = text(name, receiver)?;
    let v = arg(name, args, 0)?;
    match v.as_str() {
        Some(needle) => Ok((s, needle)),
        None => Err(wrong_type(&format!("{name} expects string argument"), v)),
    }
}

pub(super) fn starts_with(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let (s, prefix) = text_and_needle("startsWith", receiver, args)?;
    rt.fuel(text_fuel(prefix.len()))?;
    Ok(Value::Bool(s.starts_with(prefix)))
}

pub(super) fn ends_with(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let (s, suffix) = text_and_needle("endsWith", receiver, args)?;
    rt.fuel(text_fuel(suffix.len()))?;
    Ok(Value::Bool(s.ends_with(suffix)))
}

pub(super) fn contains(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let (s, needle) = text_and_needle("contains", receiver, args)?;
    rt.fuel(text_fuel(s.len() + needle.len()))?;
    Ok(Value::Bool(s.contains(needle)))
}

pub(super) fn index_of(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let (s, needle) = text_and_needle("indexOf", receiver, args)?;
    rt.fuel(text_fuel(s.len() + needle.len()))?;
    Ok(Value::Number(match s.find(needle) {
        Some(b) => char_count(s.get(..b).unwrap_or_default()) as f64,
        None => -1.0,
    }))
}

/// `split(sep)`: by a string (an empty separator splits into characters;
/// `""` splits into `[""]`, or `[]` with an empty separator, as in
/// JavaScript) or by a regex (JavaScript semantics, see
/// [`regex::split`]).
pub(super) fn split(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("split", receiver)?;
    let items = match arg("split", args, 0)? {
        Value::String(sep) => {
            rt.fuel(text_fuel(s.len() + sep.len()))?;
            rt.alloc(HEADER_BYTES)?;
            let mut items = Vec::new();
            let mut push = |rt: &mut dyn Runtime, piece: &str| -> Result<(), Error> {
                rt.fuel(PIECE_FUEL)?;
                rt.alloc(SLOT_BYTES + STRING_HEADER_BYTES + piece.len() as u64)?;
                items.push(Value::from(piece));
                Ok(())
            };
            if sep.is_empty() {
                let mut rest = s;
                while let Some(c) = rest.chars().next() {
                    let (head, tail) = rest.split_at(c.len_utf8());
                    push(rt, head)?;
                    rest = tail;
                }
            } else {
                for piece in s.split(&**sep) {
                    push(rt, piece)?;
                }
            }
            items
        }
        Value::Regex(re) => regex::split(rt, re, s)?,
        other => return Err(wrong_type("split expects string or regex argument", other)),
    };
    Ok(Value::array(items))
}

/// Fuel per piece `split` (by a string) produces, on top of the text
/// scanned: each piece is a new string, allocated (and later freed) on its
/// own, which costs about three instructions (measured with
/// `xpr-bench/examples/work_per_fuel.rs`; at one unit a split into
/// one-character pieces did three times the work per unit of an ordinary
/// run).
pub(crate) const PIECE_FUEL: u64 = 3;

/// Fuel per occurrence `replace` replaces (with a string pattern), on top
/// of the text scanned and produced: finding an occurrence and copying the
/// text around it cost about as much as an instruction each, however short
/// the pattern (`"x".repeat(1e5).replace("x", "")` produces nothing but
/// finds 100,000 occurrences, twice).
pub(crate) const OCCURRENCE_FUEL: u64 = 1;

/// The number of occurrences of `old` (not empty) in `s`, charging
/// [`OCCURRENCE_FUEL`] for each as they are found (in batches of 256).
fn count_occurrences(rt: &mut dyn Runtime, s: &str, old: &str) -> Result<u64, Error> {
    const BATCH: u64 = 256;
    let mut count = 0u64;
    for _ in s.matches(old) {
        count += 1;
        if count % BATCH == 0 {
            rt.fuel(BATCH * OCCURRENCE_FUEL)?;
        }
    }
    rt.fuel((count % BATCH) * OCCURRENCE_FUEL)?;
    Ok(count)
}

/// `replace(pattern, replacement)`: every occurrence. A string pattern is
/// literal (no `$` substitution); a regex pattern replaces every match,
/// with JavaScript's replacement patterns (`$n`, `$nn`, `$<name>`, `$&`,
/// `` $` ``, `$'`, `$$`) expanded (see [`regex::replace_all`]).
pub(super) fn replace(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("replace", receiver)?;
    let pattern = arg("replace", args, 0)?;
    let replacement = str_arg(
        "replace replacement must be string",
        arg("replace", args, 1)?,
    )?;
    match pattern {
        Value::String(old) => {
            let old: &str = old;
            rt.fuel(text_fuel(s.len() + old.len()))?;
            let count = if old.is_empty() {
                let count = char_count(s) as u64 + 1;
                rt.fuel(count.saturating_mul(OCCURRENCE_FUEL))?;
                count
            } else {
                count_occurrences(rt, s, old)?
            };
            if count == 0 {
                return Ok(receiver.clone());
            }
            let bytes = (s.len() as u64 - count * old.len() as u64)
                .saturating_add(count.saturating_mul(replacement.len() as u64));
            rt.fuel(text_fuel(usize::try_from(bytes).unwrap_or(usize::MAX)))?;
            let mut out = reserve(rt, bytes)?;
            if old.is_empty() {
                // Between every two characters and at both ends.
                for c in s.chars() {
                    out.extend_from_slice(replacement.as_bytes());
                    let mut utf8 = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                }
                out.extend_from_slice(replacement.as_bytes());
            } else {
                let mut last = 0;
                for (at, _) in s.match_indices(old) {
                    out.extend_from_slice(s.get(last..at).unwrap_or_default().as_bytes());
                    out.extend_from_slice(replacement.as_bytes());
                    last = at + old.len();
                }
                out.extend_from_slice(s.get(last..).unwrap_or_default().as_bytes());
            }
            into_string(out)
        }
        Value::Regex(re) => regex::replace_all(rt, re, s, replacement).map(Value::from),
        other => Err(wrong_type(
            "replace expects string or regex as first argument",
            other,
        )),
    }
}

/// `match(re)`: the first match of a regex as a string, or `null`. A
/// pattern string is refused (spec "String Methods with Regex" passes a
/// regex; the reference runtimes refuse text): the global `match(s,
/// pattern)` takes one.
pub(super) fn match_(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("match", receiver)?;
    let re = match arg("match", args, 0)? {
        Value::Regex(re) => Arc::clone(re),
        Value::String(_) => {
            return Err(
                Error::type_error("match expects regex argument, got string")
                    .with_hint("use a regex literal, or match(s, pattern) for a pattern string"),
            );
        }
        other => return Err(wrong_type("match expects regex argument", other)),
    };
    regex::find_value(rt, &re, s)
}
