//! The standard library: global functions and methods, by value kind.
//!
//! Each module exports tables of [`FunctionDef`] (global functions) and/or
//! [`MethodDef`] (methods of one receiver type). This module joins them into
//! one registry, looked up by name at compile time (names become small ids)
//! and dispatched by id and receiver type at run time. Arity is checked here,
//! once, for every built-in.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

pub mod array;
pub mod catalog;
pub mod date;
pub mod math;
pub mod object;
pub mod regex;
pub mod string;
pub mod types;

#[cfg(test)]
mod proportion;

/// A global function: `(runtime, args) -> value`. Arity is checked before the call.
pub type FunctionImpl = fn(&mut dyn Runtime, &[Value]) -> Result<Value, Error>;

/// A method: `(runtime, receiver, args) -> value`. The receiver's type and the
/// arity are checked before the call.
pub type MethodImpl = fn(&mut dyn Runtime, &Value, &[Value]) -> Result<Value, Error>;

/// A global function's entry in the registry.
pub struct FunctionDef {
    /// The name expressions call it by.
    pub name: &'static str,
    /// Accepted argument counts.
    pub arity: Arity,
    /// The implementation.
    pub call: FunctionImpl,
    /// The parameters and result, as the language card prints them after
    /// the name: `(start, end?) -> array`. A parameter's name tells its type
    /// (the card's key: `n` a number, `s` a string, `fn` a function, ...);
    /// `?` marks an optional one, `...` the rest; alternatives are separated
    /// by ` | ` (`(end) | (start, end, step?) -> array`). Checked against
    /// `arity` by a test.
    pub sig: &'static str,
    /// What it does, in one short line (the language card's words).
    pub doc: &'static str,
}

/// A method's entry in one receiver type's table.
pub struct MethodDef {
    /// The name after the dot.
    pub name: &'static str,
    /// Accepted argument counts (not counting the receiver).
    pub arity: Arity,
    /// The implementation.
    pub call: MethodImpl,
    /// The parameters and result, as [`FunctionDef::sig`] (the receiver
    /// not counted).
    pub sig: &'static str,
    /// What it does, in one short line, as [`FunctionDef::doc`].
    pub doc: &'static str,
}

/// A method table entry (for the topic modules' `METHODS` tables); `sig`
/// and `doc` as [`MethodDef`] describes them.
const fn method(
    name: &'static str,
    arity: Arity,
    call: MethodImpl,
    sig: &'static str,
    doc: &'static str,
) -> MethodDef {
    MethodDef {
        name,
        arity,
        call,
        sig,
        doc,
    }
}

/// Receiver kinds that have methods, indexing [`MethodEntry::by_kind`].
const KINDS: usize = 4;
const STRING: usize = 0;
const ARRAY: usize = 1;
const OBJECT: usize = 2;
const REGEX: usize = 3;

/// One method name and its implementation for each receiver kind.
struct MethodEntry {
    name: &'static str,
    by_kind: [Option<&'static MethodDef>; KINDS],
}

struct Registry {
    functions: Vec<&'static FunctionDef>,
    function_ids: HashMap<&'static str, u16>,
    methods: Vec<MethodEntry>,
    method_ids: HashMap<&'static str, u16>,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut functions = Vec::new();
        let mut function_ids = HashMap::new();
        for table in [
            math::FUNCTIONS,
            types::FUNCTIONS,
            string::FUNCTIONS,
            array::FUNCTIONS,
            object::FUNCTIONS,
            regex::FUNCTIONS,
            date::FUNCTIONS,
        ] {
            for def in table {
                let id = u16::try_from(functions.len()).unwrap_or(u16::MAX);
                function_ids.entry(def.name).or_insert(id);
                functions.push(def);
            }
        }
        let mut methods: Vec<MethodEntry> = Vec::new();
        let mut method_ids: HashMap<&'static str, u16> = HashMap::new();
        for (kind, table) in [
            (STRING, string::METHODS),
            (ARRAY, array::METHODS),
            (OBJECT, object::METHODS),
            (REGEX, regex::METHODS),
        ] {
            for def in table {
                let next = u16::try_from(methods.len()).unwrap_or(u16::MAX);
                let id = *method_ids.entry(def.name).or_insert(next);
                if id == next {
                    methods.push(MethodEntry {
                        name: def.name,
                        by_kind: [None; KINDS],
                    });
                }
                // In bounds: `id` indexes an entry pushed above (now or for an
                // earlier table), and `kind` is one of the constants below KINDS.
                // Static tables only; not reachable from input.
                methods[id as usize].by_kind[kind] = Some(def);
            }
        }
        Registry {
            functions,
            function_ids,
            methods,
            method_ids,
        }
    })
}

/// The id of the global built-in function `name`, if there is one.
pub fn function_id(name: &str) -> Option<u16> {
    registry().function_ids.get(name).copied()
}

/// The names of the built-in functions, in registration order.
pub fn function_names() -> impl Iterator<Item = &'static str> {
    registry().functions.iter().map(|d| d.name)
}

/// The name of built-in function `id`.
pub fn function_name(id: u16) -> &'static str {
    registry()
        .functions
        .get(id as usize)
        .map_or("?", |d| d.name)
}

/// Calls built-in function `id`, checking its arity first.
///
/// # Errors
/// `Wrong number of arguments for 'f': expected N, got M`, or whatever the
/// function raises (without a position: the VM adds the call's).
pub fn call_function(rt: &mut dyn Runtime, id: u16, args: &[Value]) -> Result<Value, Error> {
    let def = registry()
        .functions
        .get(id as usize)
        .ok_or_else(|| Error::new(ErrorKind::Reference, format!("Unknown function #{id}")))?;
    check_arity(def.name, def.arity, args.len())?;
    (def.call)(rt, args)
}

/// The id of the method name `name`, if any receiver type has such a method.
pub fn method_id(name: &str) -> Option<u16> {
    registry().method_ids.get(name).copied()
}

/// Whether method `id` is string `upper` (`Some(true)`) or `lower`
/// (`Some(false)`), which the VM runs without a call when the receiver is an
/// unshared ASCII string (see [`string::change_case_owned`]).
#[inline]
pub(crate) fn case_method(id: Option<u16>) -> Option<bool> {
    match id {
        Some(UPPER_ID) => Some(true),
        Some(LOWER_ID) => Some(false),
        _ => None,
    }
}

/// Method ids are given in registration order and string methods are
/// registered first, so a string method's id is its index in
/// [`string::METHODS`].
const UPPER_ID: u16 = string_method_index("upper");
const LOWER_ID: u16 = string_method_index("lower");

const fn string_method_index(name: &str) -> u16 {
    let mut i = 0;
    while i < string::METHODS.len() {
        let n = string::METHODS[i].name.as_bytes();
        let want = name.as_bytes();
        if n.len() == want.len() {
            let mut j = 0;
            while j < n.len() && n[j] == want[j] {
                j += 1;
            }
            if j == n.len() {
                return i as u16;
            }
        }
        i += 1;
    }
    u16::MAX
}

/// The method names of every receiver type, in registration order.
pub fn method_names() -> impl Iterator<Item = &'static str> {
    registry().methods.iter().map(|m| m.name)
}

/// The name of method `id`.
pub fn method_name(id: u16) -> &'static str {
    registry().methods.get(id as usize).map_or("?", |m| m.name)
}

/// Whether a receiver of this value's type has method `id`.
pub fn has_method(id: u16, receiver: &Value) -> bool {
    method_def(id, receiver).is_some()
}

/// The definition of method `id` for this receiver's type, if it has one
/// (one registry lookup; the VM then calls it with [`call_method_def`]).
#[inline]
pub(crate) fn method_def(id: u16, receiver: &Value) -> Option<&'static MethodDef> {
    *registry()
        .methods
        .get(id as usize)?
        .by_kind
        .get(kind_of(receiver)?)?
}

/// The receiver kind (index into [`MethodEntry::by_kind`]) of a value that
/// has methods.
#[inline]
fn kind_of(receiver: &Value) -> Option<usize> {
    match receiver {
        Value::String(_) => Some(STRING),
        Value::Array(_) => Some(ARRAY),
        Value::Object(_) => Some(OBJECT),
        Value::Regex(_) => Some(REGEX),
        _ => None,
    }
}

/// Calls method `id` on `receiver`, checking the receiver's type and the arity.
///
/// # Errors
/// `Type error: cannot call method 'm' on T` (T as `type()` names it;
/// `regex has no method 'm'` for a regex), the arity error, or whatever the method raises.
pub fn call_method(
    rt: &mut dyn Runtime,
    id: u16,
    receiver: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    match method_def(id, receiver) {
        Some(def) => {
            check_arity(def.name, def.arity, args.len())?;
            (def.call)(rt, receiver, args)
        }
        None => Err(no_such_method(method_name(id), receiver)),
    }
}

/// [`call_method`] with a receiver the caller gives up: `upper` and `lower`
/// change a string held by nothing else in place (see
/// [`string::change_case_owned`]); every other method is called as usual.
///
/// # Errors
/// As [`call_method`].
#[cfg(test)]
pub(crate) fn call_method_owned(
    rt: &mut dyn Runtime,
    id: u16,
    receiver: Value,
    args: &[Value],
) -> Result<Value, Error> {
    match method_def(id, &receiver) {
        Some(def) => call_method_def(rt, def, receiver, args),
        None => Err(no_such_method(method_name(id), &receiver)),
    }
}

/// Calls `def` (found by [`method_def`] for this receiver) on a receiver the
/// caller gives up, checking the arity: as [`call_method_owned`] without
/// looking the method up again.
///
/// # Errors
/// The arity error, or whatever the method raises.
#[inline]
pub(crate) fn call_method_def(
    rt: &mut dyn Runtime,
    def: &'static MethodDef,
    receiver: Value,
    args: &[Value],
) -> Result<Value, Error> {
    // `upper` and `lower` take no arguments, so an empty argument list passes
    // their arity check: the shortcut can come first.
    if args.is_empty() && matches!(receiver, Value::String(_)) {
        match def.name {
            "upper" => return string::change_case_owned(rt, receiver, true),
            "lower" => return string::change_case_owned(rt, receiver, false),
            _ => {}
        }
    }
    check_arity(def.name, def.arity, args.len())?;
    (def.call)(rt, &receiver, args)
}

/// The receiver kind of a type as `type()` names it.
fn kind_named(type_name: &str) -> Option<usize> {
    match type_name {
        "string" => Some(STRING),
        "array" => Some(ARRAY),
        "object" => Some(OBJECT),
        "regex" => Some(REGEX),
        _ => None,
    }
}

/// The built-in methods of values of type `type_name` (as `type()` names
/// it: `"string"`, `"array"`, ...), in registration order; none for types
/// without methods.
pub fn methods_of(type_name: &str) -> impl Iterator<Item = &'static str> {
    let kind = kind_named(type_name);
    registry()
        .methods
        .iter()
        .filter(move |m| {
            kind.and_then(|k| m.by_kind.get(k))
                .is_some_and(Option::is_some)
        })
        .map(|m| m.name)
}

/// Whether values of type `type_name` (as `type()` names it) have the
/// built-in method `name`.
pub fn type_has_method(type_name: &str, name: &str) -> bool {
    methods_of(type_name).any(|m| m == name)
}

/// The error for calling a method the receiver's type does not have, with
/// a hint (see [`crate::foreign::method_hint`]): XPR's spelling of another
/// language's method (`cannot call method 'toUpperCase' on string (write
/// `.upper()`)`), or the nearest method that type has when `name` looks
/// like a typo of it (`cannot call method 'filtr' on array (did you mean
/// 'filter'?)`). A regex receiver gets the Python reference's words
/// instead: `regex has no method 'exec'`.
#[cold]
pub fn no_such_method(name: &str, receiver: &Value) -> Error {
    let e = if let Value::Regex(_) = receiver {
        // The Python reference's words for a regex receiver.
        Error::type_error(format_args!("regex has no method '{name}'"))
    } else {
        Error::type_error(format_args!(
            "cannot call method '{name}' on {}",
            receiver.type_name(),
        ))
    };
    match crate::foreign::method_hint(name, Some(receiver.type_name())) {
        Some(hint) => e.with_hint(hint),
        None => e,
    }
}

/// A JavaScript relative index, as `slice` of arrays and strings takes it:
/// truncated toward zero, counted from the end when negative, clamped to
/// `0..=len` (`len` in elements or characters).
pub(crate) fn relative_index(n: f64, len: usize) -> usize {
    let n = n.trunc();
    let len_f = len as f64;
    let i = if n < 0.0 {
        (len_f + n).max(0.0)
    } else {
        n.min(len_f)
    };
    // In 0..=len and integral (NaN cannot reach here: values are finite),
    // so the cast is exact.
    i as usize
}

/// Checks an argument count against an arity.
///
/// # Errors
/// `Wrong number of arguments for 'name': expected N, got M` ([`ErrorKind::Arity`]),
/// with a hint when another language's version of `name` takes `got`
/// arguments (`round(x, 2)`, see [`crate::foreign::arity_hint`]).
pub fn check_arity(name: &str, arity: Arity, got: usize) -> Result<(), Error> {
    if arity.accepts(got) {
        Ok(())
    } else {
        Err(wrong_arity(name, arity, got))
    }
}

#[cold]
fn wrong_arity(name: &str, arity: Arity, got: usize) -> Error {
    let e = Error::new(
        ErrorKind::Arity,
        format!("Wrong number of arguments for '{name}': expected {arity}, got {got}"),
    );
    match crate::foreign::arity_hint(name, arity, got) {
        Some(hint) => e.with_hint(hint),
        None => e,
    }
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_method_ids_match_the_registry() {
        assert_eq!(case_method(method_id("upper")), Some(true));
        assert_eq!(case_method(method_id("lower")), Some(false));
        assert_eq!(case_method(method_id("trim")), None);
        assert_eq!(case_method(None), None);
    }
}
