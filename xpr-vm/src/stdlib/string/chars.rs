//! String methods that count characters (Unicode scalar values): `len`,
//! `slice` and `charAt`.

use super::{arg, char_count, new_string, num_arg, substring, text};
use crate::error::Error;
use crate::format::text_fuel;
use crate::runtime::Runtime;
use crate::stdlib::relative_index;
use crate::value::Value;

/// The byte offset of character `index` of `s` (`s.len()` past the end).
fn byte_offset(s: &str, index: usize) -> usize {
    if s.is_ascii() {
        index.min(s.len())
    } else {
        s.char_indices().nth(index).map_or(s.len(), |(b, _)| b)
    }
}

// ------------------------------------------------------------- the methods

pub(super) fn len(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("len", receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    Ok(Value::Number(char_count(s) as f64))
}

/// `slice(start[, end])` on characters, as JavaScript's `slice`: indices
/// truncated toward zero, negative ones counted from the end, clamped to
/// the string; an empty result when `start >= end`.
pub(super) fn slice(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("slice", receiver)?;
    let start = num_arg(
        "slice expects number argument as start",
        arg("slice", args, 0)?,
    )?;
    let end = match args.get(1) {
        Some(v) => Some(num_arg("slice expects number argument as end", v)?),
        None => None,
    };
    rt.fuel(text_fuel(s.len()))?;
    let len = char_count(s);
    let from = relative_index(start, len);
    let to = end.map_or(len, |e| relative_index(e, len));
    if from >= to {
        return Ok(Value::from(""));
    }
    let a = byte_offset(s, from);
    let b = a + byte_offset(s.get(a..).unwrap_or_default(), to - from);
    substring(rt, receiver, s, s.get(a..b).unwrap_or_default())
}

/// `charAt(n)`: the character at index `n` (truncated toward zero), or `""`
/// when out of range (negative indices are out of range, as in JavaScript).
pub(super) fn char_at(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("charAt", receiver)?;
    let n = num_arg("charAt expects number argument", arg("charAt", args, 0)?)?.trunc();
    rt.fuel(text_fuel(s.len()))?;
    if n < 0.0 || n >= s.len() as f64 {
        return Ok(Value::from(""));
    }
    // n < s.len(): the cast is exact.
    match s.chars().nth(n as usize) {
        Some(c) => {
            let mut buf = [0u8; 4];
            new_string(rt, c.encode_utf8(&mut buf))
        }
        None => Ok(Value::from("")),
    }
}
