//! String methods that take off or add around the text, or repeat it:
//! `trim`, `trimStart`, `trimEnd` (JavaScript whitespace), `padStart`,
//! `padEnd` and `repeat`.

use super::{
    arg, char_count, into_string, is_js_whitespace, num_arg, reserve, str_arg, substring, text,
};
use crate::error::{Error, ErrorKind};
use crate::format::text_fuel;
use crate::runtime::Runtime;
use crate::value::Value;

/// The receiver's text less what `cut` trims off it (method `name`): the
/// receiver itself when nothing is.
fn trimmed(
    rt: &mut dyn Runtime,
    name: &str,
    receiver: &Value,
    cut: impl Fn(&str) -> &str,
) -> Result<Value, Error> {
    let s = text(name, receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    substring(rt, receiver, s, cut(s))
}

pub(super) fn trim(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    trimmed(rt, "trim", receiver, |s| s.trim_matches(is_js_whitespace))
}

pub(super) fn trim_start(
    rt: &mut dyn Runtime,
    receiver: &Value,
    _: &[Value],
) -> Result<Value, Error> {
    trimmed(rt, "trimStart", receiver, |s| {
        s.trim_start_matches(is_js_whitespace)
    })
}

pub(super) fn trim_end(
    rt: &mut dyn Runtime,
    receiver: &Value,
    _: &[Value],
) -> Result<Value, Error> {
    trimmed(rt, "trimEnd", receiver, |s| {
        s.trim_end_matches(is_js_whitespace)
    })
}

/// `repeat(n)`: `n` copies; `n` must be a non-negative integer. The whole
/// result is charged (memory first, then fuel) before anything is built.
pub(super) fn repeat(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let s = text("repeat", receiver)?;
    let n = num_arg(
        "repeat expects non-negative integer",
        arg("repeat", args, 0)?,
    )?;
    if n < 0.0 || n.fract() != 0.0 {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "repeat expects non-negative integer, got {}",
                crate::format::number_to_string(n)
            ),
        ));
    }
    if s.is_empty() || n == 0.0 {
        rt.fuel(1)?;
        return Ok(Value::from(""));
    }
    if n == 1.0 {
        rt.fuel(1)?;
        return Ok(receiver.clone());
    }
    // Saturating: the cast of a huge count saturates, and so does the product.
    let bytes = (s.len() as u64).saturating_mul(n as u64);
    let mut out = reserve(rt, bytes)?;
    rt.fuel(text_fuel(out.capacity()))?;
    // n * s.len() bytes were reserved, so n fits in a usize.
    push_repeated(&mut out, s.as_bytes(), n as usize);
    into_string(out)
}

pub(super) fn pad_start(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    pad(rt, "padStart", receiver, args, true)
}

pub(super) fn pad_end(
    rt: &mut dyn Runtime,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    pad(rt, "padEnd", receiver, args, false)
}

/// `padStart(n[, ch])` / `padEnd`: pads to `n` characters (truncated
/// toward zero) with the pad character `ch` (spec: "`ch` defaults to `\" \"`"):
/// the first character of the string given, a space when none is given or
/// the string is empty, as the reference runtimes do. The receiver as is
/// when it already has `n` characters or more.
fn pad(
    rt: &mut dyn Runtime,
    name: &str,
    receiver: &Value,
    args: &[Value],
    at_start: bool,
) -> Result<Value, Error> {
    let s = text(name, receiver)?;
    let (expects_number, expects_string) = if at_start {
        (
            "padStart expects number argument",
            "padStart pad character must be string",
        )
    } else {
        (
            "padEnd expects number argument",
            "padEnd pad character must be string",
        )
    };
    let target = num_arg(expects_number, arg(name, args, 0)?)?.trunc();
    let fill = match args.get(1) {
        Some(v) => str_arg(expects_string, v)?.chars().next().unwrap_or(' '),
        None => ' ',
    };
    rt.fuel(text_fuel(s.len()))?;
    let len = char_count(s);
    if target <= len as f64 {
        return Ok(receiver.clone());
    }
    // Saturating cast: a target beyond u64 asks for more than any budget.
    let need = (target as u64).saturating_sub(len as u64);
    let mut unit = [0u8; 4];
    let unit = fill.encode_utf8(&mut unit).as_bytes();
    let pad_bytes = need.saturating_mul(unit.len() as u64);
    let mut out = reserve(rt, pad_bytes.saturating_add(s.len() as u64))?;
    rt.fuel(text_fuel(out.capacity()))?;
    if !at_start {
        out.extend_from_slice(s.as_bytes());
    }
    // need * unit.len() bytes were reserved, so need fits in a usize.
    push_repeated(&mut out, unit, need as usize);
    if at_start {
        out.extend_from_slice(s.as_bytes());
    }
    into_string(out)
}

/// Appends `unit` `times` times, copying within the buffer by doubling
/// (O(log times) copies, not `times` small ones).
pub(super) fn push_repeated(buf: &mut Vec<u8>, unit: &[u8], times: usize) {
    if times == 0 || unit.is_empty() {
        return;
    }
    let start = buf.len();
    let total = unit.len().saturating_mul(times);
    buf.extend_from_slice(unit);
    while buf.len() - start < total {
        let have = buf.len() - start;
        // Both are multiples of unit.len(): only whole copies are appended.
        buf.extend_from_within(start..start + have.min(total - have));
    }
}
