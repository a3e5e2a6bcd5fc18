//! `upper` and `lower`: full Unicode case mapping as JavaScript's
//! `toUpperCase`/`toLowerCase`, and the VM's shortcut for an ASCII string
//! held by nothing else, changed in place.

use std::sync::Arc;

use super::{charge_string, text};
use crate::error::Error;
use crate::format::text_fuel;
use crate::runtime::Runtime;
use crate::value::Value;

pub(super) fn upper(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("upper", receiver)?;
    change_case(rt, s, true)
}

pub(super) fn lower(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("lower", receiver)?;
    change_case(rt, s, false)
}

/// `upper` (`to_upper`) or `lower` on a receiver the caller owns (spec
/// 9.2). An ASCII string held by nothing else is changed in place: the same
/// fuel as [`change_case`] but no new allocation, so no memory is charged
/// (the result has the receiver's byte length). Anything else goes the
/// ordinary way.
///
/// # Errors
/// As `upper`/`lower`: fuel and memory budget errors, a type error when the
/// receiver is not a string.
#[inline(always)]
pub(crate) fn change_case_owned(
    rt: &mut dyn Runtime,
    receiver: Value,
    to_upper: bool,
) -> Result<Value, Error> {
    match receiver {
        Value::String(mut s) if ascii_only(&s) => match Arc::get_mut(&mut s) {
            Some(t) => {
                rt.fuel(ascii_case_fuel(t.len()))?;
                set_ascii_case(t, to_upper);
                Ok(Value::String(s))
            }
            None => change_case(rt, &s, to_upper),
        },
        other => {
            let name = if to_upper { "upper" } else { "lower" };
            let s = text(name, &other)?;
            change_case(rt, s, to_upper)
        }
    }
}

/// The fuel of `upper`/`lower` on `len` bytes of ASCII text (read and
/// written once each).
pub(crate) fn ascii_case_fuel(len: usize) -> u64 {
    text_fuel(len * 2)
}

/// Changes the case of ASCII text where it lies.
#[inline]
pub(crate) fn set_ascii_case(t: &mut str, to_upper: bool) {
    if to_upper {
        t.make_ascii_uppercase();
    } else {
        t.make_ascii_lowercase();
    }
}

/// Whether every byte of `s` is ASCII: `str::is_ascii`, eight bytes at a
/// time also for the short strings of records (where the standard library
/// goes byte by byte).
#[inline]
pub(crate) fn ascii_only(s: &str) -> bool {
    let mut chunks = s.as_bytes().chunks_exact(8);
    let mut acc = 0u64;
    for c in &mut chunks {
        acc |= <[u8; 8]>::try_from(c).map_or(u64::MAX, u64::from_ne_bytes);
    }
    let tail = chunks.remainder().iter().fold(0u8, |a, &b| a | b);
    acc & 0x8080_8080_8080_8080 == 0 && tail < 0x80
}

/// Full Unicode case mapping, as JavaScript's `toUpperCase`/`toLowerCase`
/// (`"straße"` uppercases to `"STRASSE"`; a final sigma lowercases to `ς`).
/// The result's exact length is computed (and charged) before it is built.
fn change_case(rt: &mut dyn Runtime, s: &str, to_upper: bool) -> Result<Value, Error> {
    if s.is_ascii() {
        rt.fuel(ascii_case_fuel(s.len()))?;
        charge_string(rt, s.len() as u64)?;
        // One allocation: copied into its shared string, then changed in
        // place (the copy is not shared yet, so `get_mut` succeeds).
        let mut out: Arc<str> = Arc::from(s);
        match Arc::get_mut(&mut out) {
            Some(t) if to_upper => t.make_ascii_uppercase(),
            Some(t) => t.make_ascii_lowercase(),
            None if to_upper => out = Arc::from(s.to_ascii_uppercase()),
            None => out = Arc::from(s.to_ascii_lowercase()),
        }
        return Ok(Value::String(out));
    }
    rt.fuel(text_fuel(s.len()))?;
    let bytes: usize = if to_upper {
        s.chars()
            .flat_map(char::to_uppercase)
            .map(char::len_utf8)
            .sum()
    } else {
        // `str::to_lowercase` maps a final Σ to ς, the same length as σ.
        s.chars()
            .flat_map(char::to_lowercase)
            .map(char::len_utf8)
            .sum()
    };
    rt.fuel(text_fuel(s.len() + bytes))?;
    charge_string(rt, bytes as u64)?;
    Ok(Value::from(if to_upper {
        s.to_uppercase()
    } else {
        s.to_lowercase()
    }))
}
