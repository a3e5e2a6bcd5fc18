//! String methods (spec "String Methods", "New String Methods (v0.2)",
//! "String Methods with Regex", "str.split(/regex/) Overload (v0.5)"):
//! `len`, `upper`, `lower`, `trim`, `trimStart`, `trimEnd`, `startsWith`,
//! `endsWith`, `contains`, `split`, `replace`, `slice`, `indexOf`,
//! `repeat`, `charAt`, `padStart`, `padEnd`, `match`.
//!
//! A character is a Unicode scalar value (code point) everywhere: `len`,
//! `slice`, `charAt`, `indexOf` and the padding methods count characters,
//! never bytes or UTF-16 units. Whitespace for the `trim` family is
//! JavaScript's (`WhiteSpace` and `LineTerminator`: Unicode `Zs`, tab,
//! vertical tab, form feed, BOM, LF, CR, U+2028, U+2029).
//!
//! Fuel: `1 + bytes / 16` for the text a method scans and produces
//! ([`text_fuel`]), plus 3 per piece `split` produces ([`PIECE_FUEL`]) and
//! 1 per occurrence `replace` replaces ([`OCCURRENCE_FUEL`]). Memory: every new
//! string is charged its byte length through [`Runtime::alloc`] *before* it
//! is built (`"x".repeat(1e12)` fails at once); `split` charges the array
//! header and one slot plus the bytes of each piece. A method whose result
//! equals its receiver (`trim` of a trimmed string, `replace` with no match)
//! returns the receiver itself and charges no memory.

use std::sync::Arc;

use super::{FunctionDef, MethodDef, relative_index};
use crate::error::{Error, ErrorKind};
use crate::format::text_fuel;
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{HEADER_BYTES, SLOT_BYTES, STRING_HEADER_BYTES, Value};

/// Global functions of this module (none: string built-ins are methods).
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];

/// Methods of string values.
pub(crate) const METHODS: &[MethodDef] = &[
    method("len", Arity::Exact(0), len),
    method("upper", Arity::Exact(0), upper),
    method("lower", Arity::Exact(0), lower),
    method("trim", Arity::Exact(0), trim),
    method("trimStart", Arity::Exact(0), trim_start),
    method("trimEnd", Arity::Exact(0), trim_end),
    method("startsWith", Arity::Exact(1), starts_with),
    method("endsWith", Arity::Exact(1), ends_with),
    method("contains", Arity::Exact(1), contains),
    method("split", Arity::Exact(1), split),
    method("replace", Arity::Exact(2), replace),
    method("slice", Arity::Range(1, 2), slice),
    method("indexOf", Arity::Exact(1), index_of),
    method("repeat", Arity::Exact(1), repeat),
    method("charAt", Arity::Exact(1), char_at),
    method("padStart", Arity::Range(1, 2), pad_start),
    method("padEnd", Arity::Range(1, 2), pad_end),
    method("match", Arity::Exact(1), match_),
];

const fn method(name: &'static str, arity: Arity, call: super::MethodImpl) -> MethodDef {
    MethodDef { name, arity, call }
}

/// Whether `c` is whitespace as JavaScript's `trim` defines it
/// (`WhiteSpace` or `LineTerminator`). Differs from
/// [`char::is_whitespace`] in two places: U+FEFF (BOM) is whitespace,
/// U+0085 (NEL) is not.
pub fn is_js_whitespace(c: char) -> bool {
    match c {
        '\u{feff}' => true,
        '\u{85}' => false,
        c => c.is_whitespace(),
    }
}

// ---------------------------------------------------------------- helpers

/// The receiver's text (the registry only dispatches string receivers here).
fn text<'v>(name: &str, receiver: &'v Value) -> Result<&'v str, Error> {
    receiver
        .as_str()
        .ok_or_else(|| super::no_such_method(name, receiver))
}

/// Argument `i` (the registry checked the arity).
fn arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a Value, Error> {
    args.get(i).ok_or_else(|| {
        Error::new(
            ErrorKind::Arity,
            format!("Wrong number of arguments for '{name}'"),
        )
    })
}

/// A string argument, or `Type error: EXPECTS, got T` (`EXPECTS` in the
/// reference runtimes' words, such as `startsWith expects string argument`).
fn str_arg<'a>(expects: &str, v: &'a Value) -> Result<&'a str, Error> {
    v.as_str().ok_or_else(|| wrong_type(expects, v))
}

/// A number argument, or `Type error: EXPECTS, got T`, as [`str_arg`].
fn num_arg(expects: &str, v: &Value) -> Result<f64, Error> {
    v.as_number().ok_or_else(|| wrong_type(expects, v))
}

#[cold]
fn wrong_type(expects: &str, v: &Value) -> Error {
    Error::type_error(format_args!("{expects}, got {}", v.type_name()))
}

/// Charges `bytes` of memory for a string about to be built and returns the
/// size as a `usize`; sizes no `String` can hold are a memory error even
/// when the runtime has no memory limit.
fn charge_string(rt: &mut dyn Runtime, bytes: u64) -> Result<usize, Error> {
    rt.alloc(bytes)?;
    usize::try_from(bytes)
        .ok()
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(memory_error)
}

#[cold]
fn memory_error() -> Error {
    Error::new(ErrorKind::Memory, "Memory limit exceeded")
}

/// An empty buffer with room for `bytes`, charged to the memory budget
/// first. The allocation itself is fallible: with no memory limit
/// configured, a size the allocator refuses is a memory error, not an abort.
fn reserve(rt: &mut dyn Runtime, bytes: u64) -> Result<Vec<u8>, Error> {
    let size = charge_string(rt, bytes)?;
    let mut out = Vec::new();
    out.try_reserve_exact(size).map_err(|_| memory_error())?;
    Ok(out)
}

/// Appends `unit` `times` times, copying within the buffer by doubling
/// (O(log times) copies, not `times` small ones).
fn push_repeated(buf: &mut Vec<u8>, unit: &[u8], times: usize) {
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

/// The text built in `buf` (only whole UTF-8 strings were appended to it).
fn into_string(buf: Vec<u8>) -> Result<Value, Error> {
    String::from_utf8(buf).map(Value::from).map_err(|_| {
        Error::new(
            ErrorKind::Value,
            "internal error: string built from invalid UTF-8",
        )
    })
}

/// A new string value from `s`, charging its bytes of memory first.
fn new_string(rt: &mut dyn Runtime, s: &str) -> Result<Value, Error> {
    charge_string(rt, s.len() as u64)?;
    Ok(Value::from(s))
}

/// The number of characters of `s`.
fn char_count(s: &str) -> usize {
    s.chars().count()
}

/// The byte offset of character `index` of `s` (`s.len()` past the end).
fn byte_offset(s: &str, index: usize) -> usize {
    if s.is_ascii() {
        index.min(s.len())
    } else {
        s.char_indices().nth(index).map_or(s.len(), |(b, _)| b)
    }
}

// ------------------------------------------------------------- the methods

fn len(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("len", receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    Ok(Value::Number(char_count(s) as f64))
}

fn upper(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("upper", receiver)?;
    change_case(rt, s, true)
}

fn lower(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
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

/// The receiver if `part` is all of it, else a new string.
fn substring(rt: &mut dyn Runtime, receiver: &Value, s: &str, part: &str) -> Result<Value, Error> {
    if part.len() == s.len() {
        Ok(receiver.clone())
    } else {
        new_string(rt, part)
    }
}

fn trim(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("trim", receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    substring(rt, receiver, s, s.trim_matches(is_js_whitespace))
}

fn trim_start(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("trimStart", receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    substring(rt, receiver, s, s.trim_start_matches(is_js_whitespace))
}

fn trim_end(rt: &mut dyn Runtime, receiver: &Value, _: &[Value]) -> Result<Value, Error> {
    let s = text("trimEnd", receiver)?;
    rt.fuel(text_fuel(s.len()))?;
    substring(rt, receiver, s, s.trim_end_matches(is_js_whitespace))
}

fn starts_with(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = text("startsWith", receiver)?;
    let prefix = str_arg(
        "startsWith expects string argument",
        arg("startsWith", args, 0)?,
    )?;
    rt.fuel(text_fuel(prefix.len()))?;
    Ok(Value::Bool(s.starts_with(prefix)))
}

fn ends_with(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = text("endsWith", receiver)?;
    let suffix = str_arg(
        "endsWith expects string argument",
        arg("endsWith", args, 0)?,
    )?;
    rt.fuel(text_fuel(suffix.len()))?;
    Ok(Value::Bool(s.ends_with(suffix)))
}

fn contains(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = text("contains", receiver)?;
    let needle = str_arg(
        "contains expects string argument",
        arg("contains", args, 0)?,
    )?;
    rt.fuel(text_fuel(s.len() + needle.len()))?;
    Ok(Value::Bool(s.contains(needle)))
}

fn index_of(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = text("indexOf", receiver)?;
    let needle = str_arg("indexOf expects string argument", arg("indexOf", args, 0)?)?;
    rt.fuel(text_fuel(s.len() + needle.len()))?;
    Ok(Value::Number(match s.find(needle) {
        Some(b) => char_count(s.get(..b).unwrap_or_default()) as f64,
        None => -1.0,
    }))
}

/// `split(sep)`: by a string (an empty separator splits into characters;
/// `""` splits into `[""]`, or `[]` with an empty separator, as in
/// JavaScript) or by a regex (JavaScript semantics, see
/// [`super::regex::split`]).
fn split(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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
        Value::Regex(re) => super::regex::split(rt, re, s)?,
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
/// `` $` ``, `$'`, `$$`) expanded (see [`super::regex::replace_all`]).
fn replace(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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
        Value::Regex(re) => super::regex::replace_all(rt, re, s, replacement).map(Value::from),
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
fn match_(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let s = text("match", receiver)?;
    let re = match arg("match", args, 0)? {
        Value::Regex(re) => Arc::clone(re),
        Value::String(_) => {
            return Err(Error::type_error(
                "match expects regex argument, got string (use a regex literal, or match(s, pattern) for a pattern string)",
            ));
        }
        other => return Err(wrong_type("match expects regex argument", other)),
    };
    super::regex::find_value(rt, &re, s)
}

/// `slice(start[, end])` on characters, as JavaScript's `slice`: indices
/// truncated toward zero, negative ones counted from the end, clamped to
/// the string; an empty result when `start >= end`.
fn slice(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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
fn char_at(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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

/// `repeat(n)`: `n` copies; `n` must be a non-negative integer. The whole
/// result is charged (memory first, then fuel) before anything is built.
fn repeat(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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

fn pad_start(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    pad(rt, "padStart", receiver, args, true)
}

fn pad_end(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;
    use crate::stdlib::{call_method, method_id};

    fn call_with(
        rt: &mut TestRuntime,
        recv: &str,
        name: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let id = method_id(name).unwrap_or_else(|| panic!("no method {name}"));
        call_method(rt, id, &Value::from(recv), args)
    }

    fn call(recv: &str, name: &str, args: &[Value]) -> Result<Value, Error> {
        call_with(&mut TestRuntime::default(), recv, name, args)
    }

    fn ok(recv: &str, name: &str, args: &[Value]) -> Value {
        call(recv, name, args).unwrap_or_else(|e| panic!("{recv:?}.{name}({args:?}): {e}"))
    }

    fn err(recv: &str, name: &str, args: &[Value]) -> Error {
        match call(recv, name, args) {
            Err(e) => e,
            Ok(v) => panic!("{recv:?}.{name}({args:?}) gave {v:?}"),
        }
    }

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn n(x: f64) -> Value {
        Value::Number(x)
    }

    fn strs(xs: &[&str]) -> Value {
        Value::array(xs.iter().map(|x| Value::from(*x)).collect())
    }

    fn re(p: &str, f: &str) -> Value {
        Value::Regex(Arc::new(crate::stdlib::regex::compile(p, f).unwrap()))
    }

    #[test]
    fn len_counts_characters() {
        assert_eq!(ok("hello", "len", &[]), n(5.0));
        assert_eq!(ok("", "len", &[]), n(0.0));
        assert_eq!(ok("😀", "len", &[]), n(1.0));
        assert_eq!(ok("café", "len", &[]), n(4.0));
        assert_eq!(ok("日本語", "len", &[]), n(3.0));
        // e + combining acute accent: two code points.
        assert_eq!(ok("e\u{301}", "len", &[]), n(2.0));
        assert!(
            err("x", "len", &[n(1.0)])
                .message()
                .contains("expected 0, got 1")
        );
    }

    #[test]
    fn upper_and_lower_map_full_unicode() {
        assert_eq!(ok("hello", "upper", &[]), s("HELLO"));
        for t in [
            "",
            "abc",
            "abcdefgh",
            "abcdefghijklmnopq",
            "abcdefgé",
            "abcdefghé",
            "éabcdefghij",
        ] {
            assert_eq!(super::ascii_only(t), t.is_ascii(), "{t}");
        }
        assert_eq!(ok("HeLLo 1!", "lower", &[]), s("hello 1!"));
        assert_eq!(ok("straße", "upper", &[]), s("STRASSE"));
        assert_eq!(ok("ÉCOLE Ça", "lower", &[]), s("école ça"));
        assert_eq!(ok("ΟΔΟΣ", "lower", &[]), s("οδος"));
        assert_eq!(ok("ΟΔΟΣ", "lower", &[]), s("οδος"));
        assert_eq!(ok("ǆ", "upper", &[]), s("Ǆ"));
        assert_eq!(ok("日本😀", "upper", &[]), s("日本😀"));
        assert_eq!(ok("ﬃ", "upper", &[]), s("FFI"));
    }

    #[test]
    fn final_sigma_lowercases_like_javascript() {
        assert_eq!(
            ok("ΟΔΟΣ", "lower", &[]).as_str().map(|x| x.ends_with('ς')),
            Some(true)
        );
    }

    #[test]
    fn case_mapping_charges_the_exact_result_length() {
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "straße", "upper", &[]).unwrap();
        assert_eq!(rt.bytes_used, "STRASSE".len() as u64);
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "ABC", "lower", &[]).unwrap();
        assert_eq!(rt.bytes_used, 3);
    }

    #[test]
    fn owned_case_mapping_reuses_only_an_unshared_ascii_string() {
        let id = super::super::method_id("upper").unwrap();
        // Unshared: changed in place, same fuel, no memory charged.
        let mut rt = TestRuntime::default();
        let owned: Arc<str> = Arc::from("ab c");
        let ptr = Arc::as_ptr(&owned).cast::<u8>();
        let r = super::super::call_method_owned(&mut rt, id, Value::String(owned), &[]).unwrap();
        assert_eq!(r, s("AB C"));
        assert_eq!(r.as_str().map(|t| t.as_ptr()), Some(ptr));
        assert_eq!(rt.bytes_used, 0);
        let mut plain = TestRuntime::default();
        call_with(&mut plain, "ab c", "upper", &[]).unwrap();
        assert_eq!(rt.fuel_used, plain.fuel_used);
        // Shared: the other holder keeps its text.
        let mut rt = TestRuntime::default();
        let shared: Arc<str> = Arc::from("xy");
        let r = super::super::call_method_owned(&mut rt, id, Value::String(shared.clone()), &[])
            .unwrap();
        assert_eq!(r, s("XY"));
        assert_eq!(&*shared, "xy");
        assert_eq!(rt.bytes_used, 2);
        // Non-ASCII goes the full Unicode way; a number is a type error.
        let mut rt = TestRuntime::default();
        let r = super::super::call_method_owned(&mut rt, id, s("straße"), &[]).unwrap();
        assert_eq!(r, s("STRASSE"));
        assert!(
            super::super::call_method_owned(&mut rt, id, n(1.0), &[])
                .unwrap_err()
                .message()
                .contains("cannot call method 'upper' on number")
        );
        let lower = super::super::method_id("lower").unwrap();
        let r = super::super::call_method_owned(&mut rt, lower, s("QR"), &[]).unwrap();
        assert_eq!(r, s("qr"));
    }

    #[test]
    fn trim_family_uses_javascript_whitespace() {
        assert_eq!(ok("  hello  ", "trim", &[]), s("hello"));
        assert_eq!(
            ok(
                "\t\n\u{b}\u{c}\r x \u{a0}\u{feff}\u{2028}\u{3000}",
                "trim",
                &[]
            ),
            s("x")
        );
        assert_eq!(ok("\u{85}x\u{85}", "trim", &[]), s("\u{85}x\u{85}"));
        assert_eq!(ok("  hello  ", "trimStart", &[]), s("hello  "));
        assert_eq!(ok("  hello  ", "trimEnd", &[]), s("  hello"));
        assert_eq!(ok("   ", "trimStart", &[]), s(""));
        assert_eq!(ok("   ", "trimEnd", &[]), s(""));
        assert_eq!(ok(" 日本 ", "trim", &[]), s("日本"));
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "already", "trim", &[]).unwrap();
        assert_eq!(rt.bytes_used, 0, "an unchanged string is not copied");
    }

    #[test]
    fn starts_ends_contains() {
        assert_eq!(
            ok("hello world", "startsWith", &[s("hello")]),
            Value::Bool(true)
        );
        assert_eq!(
            ok("hello world", "startsWith", &[s("world")]),
            Value::Bool(false)
        );
        assert_eq!(
            ok("hello world", "endsWith", &[s("world")]),
            Value::Bool(true)
        );
        assert_eq!(ok("hello", "endsWith", &[s("")]), Value::Bool(true));
        assert_eq!(
            ok("hello world", "contains", &[s("lo wo")]),
            Value::Bool(true)
        );
        assert_eq!(ok("hello", "contains", &[s("xyz")]), Value::Bool(false));
        assert_eq!(ok("😀é", "startsWith", &[s("😀")]), Value::Bool(true));
        assert_eq!(ok("", "contains", &[s("")]), Value::Bool(true));
        for name in ["startsWith", "endsWith", "contains"] {
            let e = err("x", name, &[n(1.0)]);
            assert_eq!(e.kind(), ErrorKind::Type);
            assert_eq!(
                e.message(),
                format!("Type error: {name} expects string argument, got number")
            );
            assert_eq!(err("x", name, &[re("x", "")]).kind(), ErrorKind::Type);
        }
    }

    #[test]
    fn index_of_counts_characters() {
        assert_eq!(ok("hello", "indexOf", &[s("ll")]), n(2.0));
        assert_eq!(ok("hello", "indexOf", &[s("xyz")]), n(-1.0));
        assert_eq!(ok("hello", "indexOf", &[s("")]), n(0.0));
        assert_eq!(ok("😀abc", "indexOf", &[s("a")]), n(1.0));
        assert_eq!(ok("日本語テキスト", "indexOf", &[s("テ")]), n(3.0));
        assert_eq!(ok("aXbX", "indexOf", &[s("X")]), n(1.0));
        assert_eq!(err("x", "indexOf", &[Value::Null]).kind(), ErrorKind::Type);
    }

    #[test]
    fn split_by_string() {
        assert_eq!(ok("a,b,c", "split", &[s(",")]), strs(&["a", "b", "c"]));
        assert_eq!(ok("a,,b,", "split", &[s(",")]), strs(&["a", "", "b", ""]));
        assert_eq!(ok("abc", "split", &[s(",")]), strs(&["abc"]));
        assert_eq!(ok("", "split", &[s(",")]), strs(&[""]));
        assert_eq!(ok("", "split", &[s("")]), strs(&[]));
        assert_eq!(ok("h😀é", "split", &[s("")]), strs(&["h", "😀", "é"]));
        assert_eq!(ok("a::b::c", "split", &[s("::")]), strs(&["a", "b", "c"]));
        assert_eq!(ok("日本,語", "split", &[s(",")]), strs(&["日本", "語"]));
        let e = err("a", "split", &[n(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: split expects string or regex argument, got number"
        );
    }

    #[test]
    fn split_by_regex_follows_javascript() {
        assert_eq!(
            ok("a1b2c3", "split", &[re(r"\d+", "")]),
            strs(&["a", "b", "c", ""])
        );
        assert_eq!(ok("hello", "split", &[re("l", "")]), strs(&["he", "", "o"]));
        assert_eq!(ok("abc", "split", &[re("x*", "")]), strs(&["a", "b", "c"]));
        assert_eq!(
            ok("a, b ,c", "split", &[re(r"\s*,\s*", "")]),
            strs(&["a", "b", "c"])
        );
        assert_eq!(ok("", "split", &[re("x", "")]), strs(&[""]));
        assert_eq!(ok("", "split", &[re("x*", "")]), strs(&[]));
        assert_eq!(
            ok("aXbxc", "split", &[re("x", "i")]),
            strs(&["a", "b", "c"])
        );
    }

    #[test]
    fn split_charges_each_piece() {
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "ab,c", "split", &[s(",")]).unwrap();
        assert_eq!(
            rt.bytes_used,
            HEADER_BYTES + 2 * (SLOT_BYTES + STRING_HEADER_BYTES) + 3
        );
        let mut rt = TestRuntime {
            memory_limit: Some(1000),
            ..TestRuntime::default()
        };
        let long = "x".repeat(10_000);
        assert_eq!(
            call_with(&mut rt, &long, "split", &[s("")])
                .unwrap_err()
                .kind(),
            ErrorKind::Memory
        );
    }

    #[test]
    fn replace_with_string_is_literal_and_global() {
        assert_eq!(ok("hello", "replace", &[s("l"), s("r")]), s("herro"));
        assert_eq!(ok("abc", "replace", &[s("b"), s("[$&]")]), s("a[$&]c"));
        assert_eq!(ok("abc", "replace", &[s("x"), s("y")]), s("abc"));
        assert_eq!(ok("aaa", "replace", &[s("aa"), s("b")]), s("ba"));
        assert_eq!(ok("abc", "replace", &[s(""), s("-")]), s("-a-b-c-"));
        assert_eq!(ok("😀😀", "replace", &[s("😀"), s("é")]), s("éé"));
        assert_eq!(ok("a.b.c", "replace", &[s("."), s("")]), s("abc"));
        assert_eq!(ok("$1", "replace", &[s("$1"), s("$$")]), s("$$"));
        let e = err("a", "replace", &[s("a"), n(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: replace replacement must be string, got number"
        );
        let e = err("a", "replace", &[n(1.0), s("b")]);
        assert_eq!(
            e.message(),
            "Type error: replace expects string or regex as first argument, got number"
        );
    }

    #[test]
    fn replace_charges_the_exact_result() {
        let mut rt = TestRuntime::default();
        let v = call_with(&mut rt, "a-b-c", "replace", &[s("-"), s("==")]).unwrap();
        assert_eq!(rt.bytes_used, v.as_str().unwrap().len() as u64);
        let mut rt = TestRuntime {
            memory_limit: Some(10_000),
            ..TestRuntime::default()
        };
        let long = "x".repeat(1000);
        let big = "y".repeat(100);
        let e = call_with(&mut rt, &long, "replace", &[s("x"), s(&big)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
    }

    #[test]
    fn replace_with_regex_substitutes_like_javascript() {
        assert_eq!(
            ok("hello world", "replace", &[re("o", ""), s("0")]),
            s("hell0 w0rld")
        );
        assert_eq!(
            ok("Hello hello HELLO", "replace", &[re("hello", "i"), s("hi")]),
            s("hi hi hi")
        );
        assert_eq!(
            ok(
                "2024-01-15",
                "replace",
                &[re(r"(\d{4})-(\d{2})-(\d{2})", ""), s("$3/$2/$1")]
            ),
            s("15/01/2024")
        );
        assert_eq!(
            ok("abc", "replace", &[re("b", ""), s("[$&][$$][$1]")]),
            s("a[b][$][$1]c")
        );
        assert_eq!(ok("", "replace", &[re(r"\d+", ""), s("X")]), s(""));
        let e = err("hello", "replace", &[re("l", ""), n(42.0)]);
        assert_eq!(e.kind(), ErrorKind::Type);
    }

    #[test]
    fn match_returns_first_match_or_null() {
        assert_eq!(ok("order-123", "match", &[re(r"\d+", "")]), s("123"));
        assert_eq!(ok("no digits", "match", &[re(r"\d+", "")]), Value::Null);
        assert_eq!(ok("Hello World", "match", &[re("hello", "i")]), s("Hello"));
        assert_eq!(ok("abc 456 def 789", "match", &[re(r"\d+", "")]), s("456"));
        assert_eq!(ok("x😀y", "match", &[re(".y", "")]), s("😀y"));
        // A pattern string is refused (the global match(s, pattern) takes one).
        let e = err("order-123", "match", &[s(r"\d+")]);
        assert_eq!(e.kind(), ErrorKind::Type);
        assert!(
            e.message()
                .starts_with("Type error: match expects regex argument, got string ("),
            "{e}"
        );
        let e = err("a", "match", &[n(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: match expects regex argument, got number"
        );
    }

    #[test]
    fn slice_follows_javascript_on_characters() {
        let cases: &[(&str, f64, Option<f64>, &str)] = &[
            ("hello", 1.0, Some(3.0), "el"),
            ("hello", 1.0, None, "ello"),
            ("hello", -3.0, None, "llo"),
            ("hello", -3.0, Some(-1.0), "ll"),
            ("hello", 0.0, Some(-10.0), ""),
            ("hello", -10.0, Some(2.0), "he"),
            ("hello", 3.0, Some(1.0), ""),
            ("hello", 10.0, None, ""),
            ("hello", 1.7, Some(3.9), "el"),
            ("hello", -1.7, None, "o"),
            ("hello", 0.0, Some(1e300), "hello"),
            ("hello", -1e300, None, "hello"),
            ("😀x", 0.0, Some(1.0), "😀"),
            ("a😀", -1.0, None, "😀"),
            ("日本語テキスト", 2.0, Some(4.0), "語テ"),
            ("café!", 3.0, Some(4.0), "é"),
            ("", 0.0, None, ""),
        ];
        for &(recv, start, end, want) in cases {
            let mut args = vec![n(start)];
            args.extend(end.map(n));
            assert_eq!(
                ok(recv, "slice", &args),
                s(want),
                "{recv:?}.slice({start}, {end:?})"
            );
        }
        assert_eq!(
            err("abc", "slice", &[s("1")]).message(),
            "Type error: slice expects number argument as start, got string"
        );
        assert_eq!(
            err("abc", "slice", &[n(0.0), Value::Null]).message(),
            "Type error: slice expects number argument as end, got null"
        );
        assert_eq!(err("abc", "slice", &[]).kind(), ErrorKind::Arity);
    }

    #[test]
    fn char_at_counts_characters() {
        assert_eq!(ok("hello", "charAt", &[n(1.0)]), s("e"));
        assert_eq!(ok("hello", "charAt", &[n(0.0)]), s("h"));
        assert_eq!(ok("hello", "charAt", &[n(99.0)]), s(""));
        assert_eq!(ok("hello", "charAt", &[n(-1.0)]), s(""));
        assert_eq!(ok("hello", "charAt", &[n(1.9)]), s("e"));
        assert_eq!(ok("hello", "charAt", &[n(-0.5)]), s("h"));
        assert_eq!(ok("😀é日", "charAt", &[n(1.0)]), s("é"));
        assert_eq!(ok("😀é日", "charAt", &[n(2.0)]), s("日"));
        assert_eq!(ok("😀é日", "charAt", &[n(3.0)]), s(""));
        assert_eq!(ok("x", "charAt", &[n(1e300)]), s(""));
        assert_eq!(err("x", "charAt", &[s("0")]).kind(), ErrorKind::Type);
    }

    #[test]
    fn repeat_checks_its_count() {
        assert_eq!(ok("ab", "repeat", &[n(3.0)]), s("ababab"));
        assert_eq!(ok("ab", "repeat", &[n(0.0)]), s(""));
        assert_eq!(ok("ab", "repeat", &[n(1.0)]), s("ab"));
        assert_eq!(ok("😀", "repeat", &[n(2.0)]), s("😀😀"));
        assert_eq!(ok("", "repeat", &[n(1e300)]), s(""));
        for (bad, shown) in [(-1.0, "-1"), (1.5, "1.5"), (-0.5, "-0.5")] {
            let e = err("ab", "repeat", &[n(bad)]);
            assert_eq!(e.kind(), ErrorKind::Value);
            assert_eq!(
                e.message(),
                format!("repeat expects non-negative integer, got {shown}")
            );
        }
        for (bad, name) in [(s("3"), "string"), (Value::Bool(true), "boolean")] {
            assert_eq!(
                err("ab", "repeat", &[bad]).message(),
                format!("Type error: repeat expects non-negative integer, got {name}")
            );
        }
    }

    #[test]
    fn repeat_charges_memory_before_building() {
        let mut rt = TestRuntime {
            memory_limit: Some(1 << 20),
            ..TestRuntime::default()
        };
        let e = call_with(&mut rt, "x", "repeat", &[n(1e12)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        assert_eq!(
            rt.fuel_used, 0,
            "memory is charged before fuel and before any work"
        );
        let e = call_with(&mut TestRuntime::default(), "xy", "repeat", &[n(1e300)]).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::Memory,
            "no String can be that long even without a limit"
        );
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "abc", "repeat", &[n(1000.0)]).unwrap();
        assert_eq!(rt.bytes_used, 3000);
        assert!(rt.fuel_used >= 3000 / 16);
    }

    #[test]
    fn huge_results_fail_cleanly_without_a_memory_limit() {
        // No limit configured: the allocator's refusal is a memory error.
        let e = call("xy", "repeat", &[n(1e15)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        let e = call("x", "padEnd", &[n(1e15), s("é")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
    }

    #[test]
    fn repetition_by_doubling_matches_std_repeat() {
        for (unit, times) in [("ab", 1000usize), ("é😀", 37), ("x", 1), ("日本語", 2)] {
            let want = unit.repeat(times);
            assert_eq!(ok(unit, "repeat", &[n(times as f64)]), s(&want));
            let mut buf = b"<".to_vec();
            push_repeated(&mut buf, unit.as_bytes(), times);
            assert_eq!(buf, format!("<{want}").into_bytes());
        }
        let padded = ok("z", "padStart", &[n(1001.0), s("é")]);
        assert_eq!(padded, s(&format!("{}z", "é".repeat(1000))));
    }

    #[test]
    fn padding_uses_one_pad_character() {
        assert_eq!(ok("5", "padStart", &[n(3.0), s("0")]), s("005"));
        assert_eq!(ok("5", "padEnd", &[n(3.0), s(".")]), s("5.."));
        assert_eq!(ok("5", "padStart", &[n(3.0)]), s("  5"));
        assert_eq!(ok("5", "padEnd", &[n(3.0)]), s("5  "));
        assert_eq!(ok("hello", "padStart", &[n(3.0)]), s("hello"));
        assert_eq!(ok("hello", "padEnd", &[n(-3.0)]), s("hello"));
        // Only the first character of a longer string pads; an empty one
        // pads with the default space.
        assert_eq!(ok("abc", "padStart", &[n(10.0), s("123")]), s("1111111abc"));
        assert_eq!(ok("abc", "padEnd", &[n(6.0), s("12345")]), s("abc111"));
        assert_eq!(ok("abc", "padStart", &[n(6.0), s("")]), s("   abc"));
        assert_eq!(ok("abc", "padEnd", &[n(5.0), s("")]), s("abc  "));
        assert_eq!(ok("é", "padStart", &[n(3.0), s("😀")]), s("😀😀é"));
        assert_eq!(ok("日本", "padEnd", &[n(5.0), s("語x")]), s("日本語語語"));
        assert_eq!(ok("ab", "padStart", &[n(4.9), s("-")]), s("--ab"));
        assert_eq!(
            err("a", "padStart", &[s("3")]).message(),
            "Type error: padStart expects number argument, got string"
        );
        assert_eq!(
            err("a", "padEnd", &[Value::Bool(true)]).message(),
            "Type error: padEnd expects number argument, got boolean"
        );
        assert_eq!(
            err("a", "padEnd", &[n(3.0), n(0.0)]).message(),
            "Type error: padEnd pad character must be string, got number"
        );
        assert_eq!(
            err("a", "padStart", &[n(3.0), Value::Null]).message(),
            "Type error: padStart pad character must be string, got null"
        );
        assert_eq!(err("a", "padEnd", &[]).kind(), ErrorKind::Arity);
    }

    #[test]
    fn padding_charges_memory_first() {
        let mut rt = TestRuntime {
            memory_limit: Some(1 << 20),
            ..TestRuntime::default()
        };
        let e = call_with(&mut rt, "x", "padStart", &[n(1e12), s("ab")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        let mut rt = TestRuntime::default();
        let v = call_with(&mut rt, "é", "padEnd", &[n(4.0), s("😀")]).unwrap();
        assert_eq!(rt.bytes_used, v.as_str().unwrap().len() as u64);
    }

    #[test]
    fn methods_charge_fuel_in_proportion_to_length() {
        let long = "a".repeat(16_000);
        for (name, args) in [
            ("len", vec![]),
            ("upper", vec![]),
            ("trim", vec![]),
            ("contains", vec![s("b")]),
            ("indexOf", vec![s("b")]),
            ("slice", vec![n(1.0)]),
            ("split", vec![s("b")]),
            ("replace", vec![s("a"), s("b")]),
            ("charAt", vec![n(5.0)]),
            ("padEnd", vec![n(16_001.0)]),
        ] {
            let mut rt = TestRuntime::default();
            call_with(&mut rt, &long, name, &args).unwrap();
            assert!(rt.fuel_used >= 1000, "{name} charged {}", rt.fuel_used);
            let mut rt = TestRuntime {
                fuel_limit: Some(100),
                ..TestRuntime::default()
            };
            assert_eq!(
                call_with(&mut rt, &long, name, &args).unwrap_err().kind(),
                ErrorKind::Fuel,
                "{name}"
            );
        }
    }

    #[test]
    fn methods_exist_only_on_strings() {
        let id = method_id("upper").unwrap();
        let e = call_method(&mut TestRuntime::default(), id, &n(42.0), &[]).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: cannot call method 'upper' on number"
        );
        let e = call_method(&mut TestRuntime::default(), id, &Value::Null, &[]).unwrap_err();
        assert!(e.message().contains("null"));
    }

    #[test]
    fn js_whitespace_differs_from_rust_in_two_places() {
        assert!(is_js_whitespace('\u{feff}') && !'\u{feff}'.is_whitespace());
        assert!(!is_js_whitespace('\u{85}') && '\u{85}'.is_whitespace());
        assert!(is_js_whitespace('\u{2029}') && is_js_whitespace('\u{202f}'));
        assert!(!is_js_whitespace('\u{200b}'));
    }
}
