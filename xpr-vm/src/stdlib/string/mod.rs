//! String methods (spec "String Methods", "New String Methods (v0.2)",
//! "String Methods with Regex", "str.split(/regex/) Overload (v0.5)"):
//! `len`, `upper`, `lower`, `trim`, `trimStart`, `trimEnd`, `startsWith`,
//! `endsWith`, `contains`, `split`, `replace`, `slice`, `indexOf`,
//! `repeat`, `charAt`, `padStart`, `padEnd`, `match`. This module registers
//! them and holds the helpers they share; the methods live by topic:
//! - `case`: `upper`, `lower`, and the in-place change of case the VM
//!   makes on a string held by nothing else;
//! - `search`: `startsWith`, `endsWith`, `contains`, `indexOf`, `split`,
//!   `replace`, `match` (with a regex, they call on [`super::regex`]);
//! - `chars`: `len`, `slice`, `charAt`, which count characters;
//! - `pad`: `trim`, `trimStart`, `trimEnd`, `padStart`, `padEnd`, `repeat`.
//!
//! A character is a Unicode scalar value (code point) everywhere: `len`,
//! `slice`, `charAt`, `indexOf` and the padding methods count characters,
//! never bytes or UTF-16 units. Whitespace for the `trim` family is
//! JavaScript's (`WhiteSpace` and `LineTerminator`: Unicode `Zs`, tab,
//! vertical tab, form feed, BOM, LF, CR, U+2028, U+2029).
//!
//! Fuel: `1 + bytes / 16` for the text a method scans and produces
//! ([`text_fuel`](crate::format::text_fuel)), plus 3 per piece `split` produces
//! ([`PIECE_FUEL`](search::PIECE_FUEL)) and 1 per occurrence `replace`
//! replaces ([`OCCURRENCE_FUEL`](search::OCCURRENCE_FUEL)). Memory: every new
//! string is charged its byte length through [`Runtime::alloc`] *before* it
//! is built (`"x".repeat(1e12)` fails at once); `split` charges the array
//! header and one slot plus the bytes of each piece. A method whose result
//! equals its receiver (`trim` of a trimmed string, `replace` with no match)
//! returns the receiver itself and charges no memory.

use super::{FunctionDef, MethodDef, method};
use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

mod case;
mod chars;
mod pad;
mod search;
#[cfg(test)]
mod tests;

pub(crate) use case::{ascii_case_fuel, ascii_only, change_case_owned, set_ascii_case};
use case::{lower, upper};
use chars::{char_at, len, slice};
use pad::{pad_end, pad_start, repeat, trim, trim_end, trim_start};
use search::{contains, ends_with, index_of, match_, replace, split, starts_with};

/// Global functions of this module (none: string built-ins are methods).
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];

/// Methods of string values.
pub(crate) const METHODS: &[MethodDef] = &[
    method(
        "len",
        Arity::Exact(0),
        len,
        "() -> number",
        "length in characters (also s.length)",
    ),
    method("upper", Arity::Exact(0), upper, "() -> string", "uppercase"),
    method("lower", Arity::Exact(0), lower, "() -> string", "lowercase"),
    method(
        "trim",
        Arity::Exact(0),
        trim,
        "() -> string",
        "without surrounding whitespace",
    ),
    method(
        "trimStart",
        Arity::Exact(0),
        trim_start,
        "() -> string",
        "without leading whitespace",
    ),
    method(
        "trimEnd",
        Arity::Exact(0),
        trim_end,
        "() -> string",
        "without trailing whitespace",
    ),
    method(
        "startsWith",
        Arity::Exact(1),
        starts_with,
        "(sub) -> boolean",
        "whether s begins with sub",
    ),
    method(
        "endsWith",
        Arity::Exact(1),
        ends_with,
        "(sub) -> boolean",
        "whether s ends with sub",
    ),
    method(
        "contains",
        Arity::Exact(1),
        contains,
        "(sub) -> boolean",
        "whether sub occurs in s",
    ),
    method(
        "split",
        Arity::Exact(1),
        split,
        "(sep) -> array",
        "pieces between each sep (a string or regex; \"\" gives characters)",
    ),
    method(
        "replace",
        Arity::Exact(2),
        replace,
        "(old, new) -> string",
        "every occurrence of old (a string or regex) replaced",
    ),
    method(
        "slice",
        Arity::Range(1, 2),
        slice,
        "(start, end?) -> string",
        "characters start to end (excluded); negative counts from the end",
    ),
    method(
        "indexOf",
        Arity::Exact(1),
        index_of,
        "(sub) -> number",
        "index of the first sub, or -1",
    ),
    method(
        "repeat",
        Arity::Exact(1),
        repeat,
        "(n) -> string",
        "s n times",
    ),
    method(
        "charAt",
        Arity::Exact(1),
        char_at,
        "(i) -> string",
        "character at i, or \"\"",
    ),
    method(
        "padStart",
        Arity::Range(1, 2),
        pad_start,
        "(width, fill?) -> string",
        "padded on the left to width with fill (default a space)",
    ),
    method(
        "padEnd",
        Arity::Range(1, 2),
        pad_end,
        "(width, fill?) -> string",
        "padded on the right to width with fill (default a space)",
    ),
    method(
        "match",
        Arity::Exact(1),
        match_,
        "(re) -> string|null",
        "first match of the regex re, or null",
    ),
];

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

/// The receiver if `part` is all of it, else a new string.
fn substring(rt: &mut dyn Runtime, receiver: &Value, s: &str, part: &str) -> Result<Value, Error> {
    if part.len() == s.len() {
        Ok(receiver.clone())
    } else {
        new_string(rt, part)
    }
}
