//! Built-ins for array values (spec "Collection Methods", "New Array Methods
//! (v0.2)", "New Array Methods (v0.5)", "New Global Function: range").
//!
//! Conventions of every method here (see `docs/builtins-collections.md`):
//! - Arrays are immutable: every method that returns an array builds a new one.
//! - Callbacks are called with exactly one argument, the element (`reduce`:
//!   accumulator and element; `sort`: two elements). No index is passed: the
//!   suite's `[1,2,3].map((...args) => args)` is `[[1],[2],[3]]`.
//! - Fuel: [`ELEMENT_FUEL`] per element visited (including elements a
//!   callback is called on; the call itself is charged by the VM), one per
//!   comparison in sorts, text fuel (`1 + bytes / 16`) for text built, and
//!   what comparing and hashing values reads (see [`crate::compare`]),
//!   charged before it is read.
//! - Memory: the logical size of each new array (`HEADER_BYTES` plus
//!   `SLOT_BYTES` and the element's logical size per element) is charged
//!   before the array is built; for callback results, as each one arrives.
//! - The depth of every array built is checked against the depth budget.
//! - The receiver's type and the arity are checked by the registry.

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;
use indexmap::map::Entry;

use super::object::{finish_object, key_text};
use super::{FunctionDef, MethodDef, no_such_method, relative_index};
use crate::compare;
use crate::error::{Error, ErrorKind};
use crate::format::{display_metered, number_to_string};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{Array, HEADER_BYTES, Key, Map, SLOT_BYTES, Value};

#[path = "sort.rs"]
pub mod sort;

use sort::{
    check_sort_keys, check_sortable, comparator_result, default_cmp, default_cost, merge_sort,
    merge_sort_costed, sort_by_key,
};

/// Fuel units charged per element a method visits.
pub const ELEMENT_FUEL: u64 = 1;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef {
    name: "range",
    arity: Arity::Range(1, 3),
    call: range,
}];

const fn method(name: &'static str, arity: Arity, call: super::MethodImpl) -> MethodDef {
    MethodDef { name, arity, call }
}

/// Methods of this module's receiver type.
pub(crate) const METHODS: &[MethodDef] = &[
    // v0.1
    method("map", Arity::Exact(1), map),
    method("filter", Arity::Exact(1), filter),
    method("reduce", Arity::Range(1, 2), reduce),
    method("find", Arity::Exact(1), find),
    method("some", Arity::Exact(1), some),
    method("every", Arity::Exact(1), every),
    method("flatMap", Arity::Exact(1), flat_map),
    method("sort", Arity::Range(0, 1), sort),
    method("reverse", Arity::Exact(0), reverse),
    // v0.2
    method("includes", Arity::Exact(1), includes),
    method("indexOf", Arity::Exact(1), index_of),
    method("slice", Arity::Range(1, 2), slice),
    method("join", Arity::Exact(1), join),
    method("concat", Arity::Exact(1), concat),
    method("flat", Arity::Exact(0), flat),
    method("unique", Arity::Exact(0), unique),
    method("zip", Arity::Exact(1), zip),
    method("chunk", Arity::Exact(1), chunk),
    method("groupBy", Arity::Exact(1), group_by),
    // v0.5
    method("sortBy", Arity::Exact(1), sort_by),
    method("take", Arity::Exact(1), take_n),
    method("drop", Arity::Exact(1), drop_n),
    method("count", Arity::Exact(1), count),
    method("sum", Arity::Exact(0), sum),
    method("avg", Arity::Exact(0), avg),
    method("compact", Arity::Exact(0), compact),
    method("partition", Arity::Exact(1), partition),
    method("keyBy", Arity::Exact(1), key_by),
    method("min", Arity::Exact(0), min),
    method("max", Arity::Exact(0), max),
    method("first", Arity::Exact(0), first),
    method("last", Arity::Exact(0), last),
];

// ─── helpers ────────────────────────────────────────────────────────────────

/// The receiver as an array (the registry guarantees it; this re-check
/// keeps a direct call from panicking).
fn this<'a>(name: &str, v: &'a Value) -> Result<&'a Arc<Array>, Error> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(no_such_method(name, other)),
    }
}

/// Argument `i` (the registry checked the count; absent reads as null).
fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// Argument `i` as a callback.
///
/// # Errors
/// `Type error: NAME expects function argument, got T` (the reference's
/// words for `sort`, used for every method taking a callback).
fn callback<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a Value, Error> {
    match arg(args, i) {
        f @ Value::Function(_) => Ok(f),
        other => Err(Error::type_error(format_args!(
            "{name} expects function argument, got {}",
            other.type_name()
        ))),
    }
}

/// Argument `i` as an array.
///
/// # Errors
/// `Type error: NAME expects array argument, got T`.
fn array_arg<'a>(name: &str, args: &'a [Value], i: usize) -> Result<&'a Arc<Array>, Error> {
    match arg(args, i) {
        Value::Array(a) => Ok(a),
        other => Err(Error::type_error(format_args!(
            "{name} expects array argument, got {}",
            other.type_name()
        ))),
    }
}

/// Argument `i` of `slice` as a number; `what` names it (`start`, `end`).
///
/// # Errors
/// `Type error: slice expects number argument as WHAT, got T`.
fn index_arg(args: &[Value], i: usize, what: &str) -> Result<f64, Error> {
    match arg(args, i) {
        Value::Number(n) => Ok(*n),
        other => Err(Error::type_error(format_args!(
            "slice expects number argument as {what}, got {}",
            other.type_name()
        ))),
    }
}

/// Argument `i` as a count of elements for `take` / `drop`: an integer, a
/// negative one counting as 0 (as the reference does); saturated to `usize`.
///
/// # Errors
/// `Type error: NAME expects integer argument, got T` for a non-number;
/// `Invalid argument: NAME expects integer argument, got X` (kind `Value`)
/// for a fraction.
fn count_arg(name: &str, args: &[Value], i: usize) -> Result<usize, Error> {
    let n = match arg(args, i) {
        Value::Number(n) => *n,
        other => {
            return Err(Error::type_error(format_args!(
                "{name} expects integer argument, got {}",
                other.type_name()
            )));
        }
    };
    if n.fract() != 0.0 {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "Invalid argument: {name} expects integer argument, got {}",
                number_to_string(n)
            ),
        ));
    }
    // `as` saturates: a negative count becomes 0, 1e300 becomes
    // usize::MAX, which every caller clamps.
    Ok(n as usize)
}

/// `n` as fuel units.
fn units(n: usize) -> u64 {
    u64::try_from(n)
        .unwrap_or(u64::MAX)
        .saturating_mul(ELEMENT_FUEL)
}

/// Charges fuel for visiting `items` and memory for a new array holding
/// them, before it is built.
fn charge_copy<'a>(
    rt: &mut dyn Runtime,
    items: impl IntoIterator<Item = &'a Value>,
) -> Result<(), Error> {
    let mut n = 0usize;
    let bytes = items.into_iter().fold(HEADER_BYTES, |acc, v| {
        n += 1;
        acc.saturating_add(SLOT_BYTES + v.logical_size())
    });
    rt.fuel(units(n))?;
    rt.alloc(bytes)
}

/// Wraps `items` (memory already charged) into an array value, checking its
/// nesting depth against the budget.
fn finish(rt: &mut dyn Runtime, items: Vec<Value>) -> Result<Value, Error> {
    let array = Array::new(items);
    rt.check_depth(array.depth())?;
    Ok(Value::Array(Arc::new(array)))
}

/// Calls `f` on one element.
#[inline]
fn call1(rt: &mut dyn Runtime, f: &Value, item: &Value) -> Result<Value, Error> {
    rt.call(f, std::slice::from_ref(item))
}

// ─── v0.1: map, filter, reduce, find, some, every, flatMap, sort, reverse ──

/// `arr.map(fn)`: `[fn(x) for x in arr]`.
fn map(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("map", this_)?;
    let f = callback("map", args, 0)?;
    let n = arr.len();
    rt.alloc(HEADER_BYTES.saturating_add(SLOT_BYTES.saturating_mul(n as u64)))?;
    let mut out = Vec::with_capacity(n);
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        let v = call1(rt, f, item)?;
        let size = v.logical_size();
        if size > 0 {
            rt.alloc(size)?;
        }
        out.push(v);
    }
    finish(rt, out)
}

/// `arr.filter(fn)`: the elements for which `fn` is truthy, in order.
fn filter(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("filter", this_)?;
    let f = callback("filter", args, 0)?;
    rt.alloc(HEADER_BYTES)?;
    let mut out = Vec::new();
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        if call1(rt, f, item)?.truthy() {
            rt.alloc(SLOT_BYTES + item.logical_size())?;
            out.push(item.clone());
        }
    }
    finish(rt, out)
}

/// `arr.reduce(fn, init)`: left fold `fn(acc, x)`. Without `init` the first
/// element is the initial accumulator (JavaScript), and an empty array is an
/// error.
fn reduce(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("reduce", this_)?;
    let f = callback("reduce", args, 0)?;
    let mut items = arr.items().iter();
    let mut acc = match args.get(1) {
        Some(init) => init.clone(),
        None => match items.next() {
            Some(first) => first.clone(),
            None => {
                return Err(Error::new(
                    ErrorKind::Value,
                    "Cannot reduce an empty array without an initial value",
                ));
            }
        },
    };
    rt.fuel(units(items.len()))?;
    for item in items {
        let pair = [acc, item.clone()];
        acc = rt.call(f, &pair)?;
    }
    Ok(acc)
}

/// `arr.find(fn)`: the first element for which `fn` is truthy, or null.
fn find(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("find", this_)?;
    let f = callback("find", args, 0)?;
    for item in arr.items() {
        rt.fuel(ELEMENT_FUEL)?;
        if call1(rt, f, item)?.truthy() {
            return Ok(item.clone());
        }
    }
    Ok(Value::Null)
}

/// `arr.some(fn)`: whether `fn` is truthy for some element (stops at the first).
fn some(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("some", this_)?;
    let f = callback("some", args, 0)?;
    for item in arr.items() {
        rt.fuel(ELEMENT_FUEL)?;
        if call1(rt, f, item)?.truthy() {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// `arr.every(fn)`: whether `fn` is truthy for every element (stops at the
/// first falsy one; `[].every(...)` is true).
fn every(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("every", this_)?;
    let f = callback("every", args, 0)?;
    for item in arr.items() {
        rt.fuel(ELEMENT_FUEL)?;
        if !call1(rt, f, item)?.truthy() {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `arr.flatMap(fn)`: map, then flatten one level (a non-array result is
/// kept as one element, as in JavaScript).
fn flat_map(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("flatMap", this_)?;
    let f = callback("flatMap", args, 0)?;
    rt.alloc(HEADER_BYTES)?;
    let mut out = Vec::new();
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        match call1(rt, f, item)? {
            Value::Array(inner) => {
                rt.fuel(units(inner.len()))?;
                rt.alloc(inner.logical_size() - HEADER_BYTES.min(inner.logical_size()))?;
                out.extend(inner.items().iter().cloned());
            }
            other => {
                rt.alloc(SLOT_BYTES + other.logical_size())?;
                out.push(other);
            }
        }
    }
    finish(rt, out)
}

/// `arr.sort()` / `arr.sort(cmp)`: a stable merge sort (see [`sort`]). With
/// no comparator (or a null one, as the reference reads it), the default
/// order of one kind of values: numbers numerically, strings by code point,
/// `false` before `true`.
fn sort(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("sort", this_)?;
    let items = arr.items();
    rt.fuel(units(items.len()))?;
    let cmp = match args.first() {
        None | Some(Value::Null) => {
            check_sortable("sort", "values", items)?;
            None
        }
        Some(_) => Some(callback("sort", args, 0)?),
    };
    rt.alloc(arr.logical_size())?;
    let refs: Vec<&Value> = items.iter().collect();
    let sorted = match cmp {
        // Checked above: all of one kind. Only strings cost more than a
        // unit per comparison.
        None if matches!(items.first(), Some(Value::String(_))) => {
            merge_sort_costed(rt, refs, default_cost, |_, a, b| Ok(default_cmp(a, b)))?
        }
        None => merge_sort(rt, refs, |_, a, b| Ok(default_cmp(a, b)))?,
        Some(f) => merge_sort(rt, refs, |rt, a: &Value, b: &Value| {
            let pair = [a.clone(), b.clone()];
            comparator_result(&rt.call(f, &pair)?)
        })?,
    };
    finish(rt, sorted.into_iter().cloned().collect())
}

/// `arr.reverse()`: a new array in reverse order.
fn reverse(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("reverse", this_)?;
    rt.fuel(units(arr.len()))?;
    rt.alloc(arr.logical_size())?;
    finish(rt, arr.items().iter().rev().cloned().collect())
}

// ─── v0.2 ───────────────────────────────────────────────────────────────────

/// The index of the first element equal (`==`, structural) to `needle`:
/// one unit per element compared plus what `==` charges for it (see
/// [`crate::compare`]), in batches, each comparison's large pieces before
/// they are read.
fn position(rt: &mut dyn Runtime, items: &[Value], needle: &Value) -> Result<Option<usize>, Error> {
    let mut pending = 0u64;
    let mut found = None;
    for (i, item) in items.iter().enumerate() {
        let eq = item.eq_metered(needle, |units| {
            pending = pending.saturating_add(units);
            if pending >= compare::BATCH {
                rt.fuel(std::mem::take(&mut pending))?;
            }
            Ok(())
        })?;
        pending += ELEMENT_FUEL;
        if pending >= compare::BATCH {
            rt.fuel(std::mem::take(&mut pending))?;
        }
        if eq {
            found = Some(i);
            break;
        }
    }
    rt.fuel(pending)?;
    Ok(found)
}

/// `arr.includes(v)`: whether some element `== v` (structural equality).
fn includes(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("includes", this_)?;
    Ok(Value::Bool(
        position(rt, arr.items(), arg(args, 0))?.is_some(),
    ))
}

/// `arr.indexOf(v)`: the index of the first element `== v`, or -1.
fn index_of(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("indexOf", this_)?;
    Ok(Value::Number(
        match position(rt, arr.items(), arg(args, 0))? {
            Some(i) => i as f64,
            None => -1.0,
        },
    ))
}

/// `arr.slice(start[, end])`: JavaScript semantics (negative indices count
/// from the end, fractions truncate, out-of-range clamps).
fn slice(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("slice", this_)?;
    let len = arr.len();
    let start = relative_index(index_arg(args, 0, "start")?, len);
    let end = match args.get(1) {
        Some(_) => relative_index(index_arg(args, 1, "end")?, len),
        None => len,
    };
    let part = arr.items().get(start..end.max(start)).unwrap_or(&[]);
    charge_copy(rt, part)?;
    finish(rt, part.to_vec())
}

/// `arr.join(sep)`: the display form of each element (as `string()`:
/// null/true/false as words, arrays and objects as compact JSON) joined by
/// `sep`.
fn join(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("join", this_)?;
    let sep = match arg(args, 0) {
        Value::String(s) => s,
        other => {
            return Err(Error::type_error(format_args!(
                "join expects string argument as separator, got {}",
                other.type_name()
            )));
        }
    };
    rt.fuel(units(arr.len()))?;
    let mut out = String::new();
    for (i, item) in arr.items().iter().enumerate() {
        if i > 0 && !sep.is_empty() {
            rt.alloc(sep.len() as u64)?;
            rt.fuel(crate::format::text_fuel(sep.len()))?;
            out.push_str(sep);
        }
        display_metered(rt, item, &mut out)?;
    }
    Ok(Value::string(out))
}

/// `arr.concat(other)`: a new array with the elements of both.
fn concat(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("concat", this_)?;
    let other = array_arg("concat", args, 0)?;
    charge_copy(rt, arr.items().iter().chain(other.items()))?;
    let mut out = Vec::with_capacity(arr.len().saturating_add(other.len()));
    out.extend_from_slice(arr.items());
    out.extend_from_slice(other.items());
    finish(rt, out)
}

/// The elements of `items` flattened one level.
fn flattened(items: &[Value]) -> impl Clone + Iterator<Item = &Value> {
    items.iter().flat_map(|v| match v {
        Value::Array(inner) => inner.items().iter(),
        other => std::slice::from_ref(other).iter(),
    })
}

/// `arr.flat()`: flattens one level; non-array elements are kept.
fn flat(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("flat", this_)?;
    rt.fuel(units(arr.len()))?;
    charge_copy(rt, flattened(arr.items()))?;
    finish(rt, flattened(arr.items()).cloned().collect())
}

/// What `unique` compares: scalars by value, arrays, objects and functions
/// by identity, regexes by pattern and flags (as `==` does).
#[derive(PartialEq, Eq, Hash)]
enum UniqueKey<'a> {
    Null,
    Bool(bool),
    Number(u64),
    String(&'a str),
    Regex(&'a str, &'a str),
    Identity(usize),
}

impl<'a> UniqueKey<'a> {
    fn of(v: &'a Value) -> Self {
        match v {
            Value::Null => UniqueKey::Null,
            Value::Bool(b) => UniqueKey::Bool(*b),
            // -0 == 0: one key for both.
            Value::Number(n) => UniqueKey::Number(if *n == 0.0 { 0 } else { n.to_bits() }),
            Value::String(s) => UniqueKey::String(s),
            Value::Regex(r) => UniqueKey::Regex(r.pattern(), r.flags()),
            Value::Array(a) => UniqueKey::Identity(Arc::as_ptr(a) as *const () as usize),
            Value::Object(o) => UniqueKey::Identity(Arc::as_ptr(o) as *const () as usize),
            Value::Function(f) => UniqueKey::Identity(Arc::as_ptr(f) as *const () as usize),
        }
    }

    /// The bytes hashing this key reads (and comparing it with an equal
    /// key it finds).
    fn bytes(&self) -> usize {
        match self {
            UniqueKey::String(s) => s.len(),
            UniqueKey::Regex(p, f) => p.len() + f.len(),
            _ => 0,
        }
    }
}

/// `arr.unique()`: first occurrences, in order. Scalars compare by value;
/// arrays and objects by identity (two equal literals are two values).
/// Fuel: one unit per element, plus `bytes / 16` for each string (or
/// regex pattern) hashed, charged before it is hashed, and the copy.
fn unique(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("unique", this_)?;
    rt.fuel(units(arr.len()))?;
    let mut seen: HashSet<UniqueKey<'_>, foldhash::fast::RandomState> = HashSet::default();
    let mut kept: Vec<&Value> = Vec::new();
    let mut pending = 0u64;
    for v in arr.items() {
        let key = UniqueKey::of(v);
        let bytes = key.bytes();
        pending = pending.saturating_add(compare::hash_work(bytes));
        if pending >= compare::BATCH {
            rt.fuel(std::mem::take(&mut pending))?;
        }
        compare::touch(bytes);
        if seen.insert(key) {
            kept.push(v);
        }
    }
    rt.fuel(pending)?;
    charge_copy(rt, kept.iter().copied())?;
    finish(rt, kept.into_iter().cloned().collect())
}

/// `arr.zip(other)`: `[[a0, b0], [a1, b1], ...]`, as long as the shorter.
fn zip(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("zip", this_)?;
    let other = array_arg("zip", args, 0)?;
    let pairs = arr.items().iter().zip(other.items());
    let mut n = 0usize;
    let bytes = pairs.clone().fold(HEADER_BYTES, |acc, (a, b)| {
        n += 1;
        let pair =
            HEADER_BYTES + 2 * SLOT_BYTES + a.logical_size().saturating_add(b.logical_size());
        acc.saturating_add(SLOT_BYTES.saturating_add(pair))
    });
    rt.fuel(units(n))?;
    rt.alloc(bytes)?;
    finish(
        rt,
        pairs
            .map(|(a, b)| Value::array(vec![a.clone(), b.clone()]))
            .collect(),
    )
}

/// `arr.chunk(size)`: consecutive groups of `size` elements, the last one
/// possibly shorter. `size` must be an integer > 0: otherwise `Type error:
/// chunk size must be a positive integer, got T` for a non-number,
/// `Invalid argument: chunk size must be a positive integer, got X` for a
/// number.
fn chunk(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("chunk", this_)?;
    let size = match arg(args, 0) {
        Value::Number(n) => *n,
        other => {
            return Err(Error::type_error(format_args!(
                "chunk size must be a positive integer, got {}",
                other.type_name()
            )));
        }
    };
    if size <= 0.0 || size.fract() != 0.0 {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "Invalid argument: chunk size must be a positive integer, got {}",
                number_to_string(size)
            ),
        ));
    }
    // `as` saturates; `chunks` needs a non-zero size (guaranteed: size >= 1).
    let size = (size as usize).max(1);
    let chunks = arr.items().chunks(size);
    let count = chunks.len() as u64;
    rt.fuel(units(arr.len()))?;
    let bytes = HEADER_BYTES
        .saturating_add(count.saturating_mul(SLOT_BYTES + HEADER_BYTES))
        .saturating_add(arr.logical_size() - HEADER_BYTES.min(arr.logical_size()));
    rt.alloc(bytes)?;
    finish(rt, chunks.map(|c| Value::array(c.to_vec())).collect())
}

/// `arr.groupBy(fn)`: an object mapping each key `fn(x)` (as text, the
/// display form of `string()`) to the elements with that key, in order;
/// keys in alphabetical (code-point) order.
fn group_by(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("groupBy", this_)?;
    let f = callback("groupBy", args, 0)?;
    rt.alloc(HEADER_BYTES)?;
    let mut groups: IndexMap<Key, Vec<Value>, foldhash::fast::RandomState> = IndexMap::default();
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        let k = call1(rt, f, item)?;
        let key = key_text(rt, &k, "groupBy")?;
        let element = SLOT_BYTES + item.logical_size();
        // One lookup per element (hashing the key, charged by `key_text`).
        match groups.entry(key) {
            Entry::Occupied(mut group) => {
                rt.alloc(element)?;
                group.get_mut().push(item.clone());
            }
            Entry::Vacant(slot) => {
                let header = SLOT_BYTES + slot.key().len() as u64 + HEADER_BYTES;
                rt.alloc(header.saturating_add(element))?;
                slot.insert(vec![item.clone()]);
            }
        }
    }
    let sorted = sort_by_key(rt, groups.into_iter().collect())?;
    let map: Map = sorted
        .into_iter()
        .map(|(k, v)| (k, Value::array(v)))
        .collect();
    finish_object(rt, map)
}

// ─── v0.5 ───────────────────────────────────────────────────────────────────

/// `arr.sortBy(fn)`: stable sort by the key `fn(x)`, computed once per
/// element, in the default order (keys all numbers or all strings).
fn sort_by(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("sortBy", this_)?;
    let f = callback("sortBy", args, 0)?;
    let mut keys = Vec::with_capacity(arr.len());
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        keys.push(call1(rt, f, item)?);
    }
    check_sort_keys(&keys)?;
    rt.alloc(arr.logical_size())?;
    let pairs: Vec<(&Value, &Value)> = keys.iter().zip(arr.items()).collect();
    // Checked above: all numbers or all strings. Only strings cost more
    // than a unit per comparison.
    let sorted = if matches!(keys.first(), Some(Value::String(_))) {
        merge_sort_costed(
            rt,
            pairs,
            |a, b| default_cost(a.0, b.0),
            |_, a, b| Ok(default_cmp(a.0, b.0)),
        )?
    } else {
        merge_sort(rt, pairs, |_, a, b| Ok(default_cmp(a.0, b.0)))?
    };
    finish(rt, sorted.into_iter().map(|(_, v)| v.clone()).collect())
}

/// `arr.take(n)`: the first `n` elements (all of them when `n >= len`,
/// none when `n <= 0`).
fn take_n(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("take", this_)?;
    let n = count_arg("take", args, 0)?.min(arr.len());
    let part = arr.items().get(..n).unwrap_or(&[]);
    charge_copy(rt, part)?;
    finish(rt, part.to_vec())
}

/// `arr.drop(n)`: all but the first `n` elements (`[]` when `n >= len`,
/// all of them when `n <= 0`).
fn drop_n(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("drop", this_)?;
    let n = count_arg("drop", args, 0)?.min(arr.len());
    let part = arr.items().get(n..).unwrap_or(&[]);
    charge_copy(rt, part)?;
    finish(rt, part.to_vec())
}

/// `arr.count(fn)`: how many elements `fn` is truthy for.
fn count(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("count", this_)?;
    let f = callback("count", args, 0)?;
    let mut n = 0u64;
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        if call1(rt, f, item)?.truthy() {
            n += 1;
        }
    }
    Ok(Value::Number(n as f64))
}

/// The elements as numbers.
///
/// # Errors
/// `Type error: NAME expects all elements to be numbers, got T at index I`.
fn numbers<'a>(name: &'a str, items: &'a [Value]) -> impl Iterator<Item = Result<f64, Error>> + 'a {
    items.iter().enumerate().map(move |(i, v)| match v {
        Value::Number(n) => Ok(*n),
        other => Err(Error::type_error(format_args!(
            "{name} expects all elements to be numbers, got {} at index {i}",
            other.type_name()
        ))),
    })
}

/// The left-to-right sum of the elements (no compensated summation).
fn total(rt: &mut dyn Runtime, name: &str, items: &[Value]) -> Result<f64, Error> {
    rt.fuel(units(items.len()))?;
    let mut acc = 0.0;
    for n in numbers(name, items) {
        acc += n?;
    }
    if acc.is_finite() {
        Ok(acc)
    } else {
        Err(Error::new(
            ErrorKind::Arithmetic,
            format!("Number overflow in {name}(): the result is not a finite number"),
        ))
    }
}

/// `arr.sum()`: left fold of `+` over numbers; `[].sum()` is 0.
fn sum(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("sum", this_)?;
    Ok(Value::Number(total(rt, "sum", arr.items())?))
}

/// The error of `avg`, `min`, `max` on `[]`; `what` names the result
/// (`average`, `min`, `max`).
fn empty_error(what: &str) -> Error {
    Error::new(
        ErrorKind::Value,
        format!("cannot compute {what} of empty array"),
    )
}

/// `arr.avg()`: `sum() / length`; an error on `[]`.
fn avg(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("avg", this_)?;
    if arr.is_empty() {
        return Err(empty_error("average"));
    }
    Ok(Value::Number(
        total(rt, "avg", arr.items())? / arr.len() as f64,
    ))
}

/// `arr.compact()`: the elements that are not null (`false`, `0`, `""` stay).
fn compact(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("compact", this_)?;
    rt.fuel(units(arr.len()))?;
    let kept = arr.items().iter().filter(|v| !matches!(v, Value::Null));
    charge_copy(rt, kept.clone())?;
    finish(rt, kept.cloned().collect())
}

/// `arr.partition(fn)`: `[matching, rest]`, both in input order.
fn partition(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("partition", this_)?;
    let f = callback("partition", args, 0)?;
    rt.alloc(3 * HEADER_BYTES + 2 * SLOT_BYTES)?;
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        let hit = call1(rt, f, item)?.truthy();
        rt.alloc(SLOT_BYTES + item.logical_size())?;
        let side = if hit { &mut yes } else { &mut no };
        side.push(item.clone());
    }
    finish(rt, vec![Value::array(yes), Value::array(no)])
}

/// `arr.keyBy(fn)`: an object mapping each key `fn(x)` (as text, like
/// `groupBy`) to the last element with that key; keys in alphabetical
/// (code-point) order, like `groupBy`.
fn key_by(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("keyBy", this_)?;
    let f = callback("keyBy", args, 0)?;
    rt.alloc(HEADER_BYTES)?;
    let mut map = Map::default();
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        let k = call1(rt, f, item)?;
        let key = key_text(rt, &k, "keyBy")?;
        let bytes = SLOT_BYTES + item.logical_size();
        // One lookup per element (hashing the key, charged by `key_text`).
        match map.entry(key) {
            Entry::Occupied(mut slot) => {
                rt.alloc(bytes)?;
                slot.insert(item.clone());
            }
            Entry::Vacant(slot) => {
                rt.alloc(bytes.saturating_add(slot.key().len() as u64))?;
                slot.insert(item.clone());
            }
        }
    }
    let map: Map = sort_by_key(rt, map.into_iter().collect())?
        .into_iter()
        .collect();
    finish_object(rt, map)
}

/// The smallest (`less == true`) or largest number of a non-empty array.
fn extreme(rt: &mut dyn Runtime, name: &str, this_: &Value, less: bool) -> Result<Value, Error> {
    let arr = this(name, this_)?;
    if arr.is_empty() {
        return Err(empty_error(name));
    }
    rt.fuel(units(arr.len()))?;
    let mut best: Option<f64> = None;
    for n in numbers(name, arr.items()) {
        let n = n?;
        best = Some(match best {
            Some(b) if (less && n < b) || (!less && n > b) => n,
            Some(b) => b,
            None => n,
        });
    }
    Ok(best.map_or(Value::Null, Value::Number))
}

/// `arr.min()`: the smallest number; an error on `[]` or a non-number.
fn min(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    extreme(rt, "min", this_, true)
}

/// `arr.max()`: the largest number; an error on `[]` or a non-number.
fn max(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    extreme(rt, "max", this_, false)
}

/// `arr.first()`: the first element, or null for `[]`.
fn first(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("first", this_)?;
    rt.fuel(ELEMENT_FUEL)?;
    Ok(arr.items().first().cloned().unwrap_or(Value::Null))
}

/// `arr.last()`: the last element, or null for `[]`.
fn last(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("last", this_)?;
    rt.fuel(ELEMENT_FUEL)?;
    Ok(arr.items().last().cloned().unwrap_or(Value::Null))
}

// ─── range ──────────────────────────────────────────────────────────────────

/// Most elements `range` will ever build, whatever the budgets: 2^28
/// (4 GiB of logical size). Even with no memory limit, a bigger request
/// fails with the memory error instead of asking the allocator for it.
pub const RANGE_MAX: u64 = 1 << 28;

/// `range(end)`, `range(start, end)`, `range(start, end, step)`: the numbers
/// `start + i * step` strictly before `end` (above it for a negative step).
/// `step` defaults to 1 and must be a non-zero integer; `start` and `end`
/// may be any numbers. Memory and fuel for the whole length are charged
/// before anything is allocated.
fn range(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let mut nums = [0.0f64; 3];
    for (slot, v) in nums.iter_mut().zip(args) {
        *slot = match v {
            Value::Number(n) => *n,
            other => {
                return Err(Error::type_error(format_args!(
                    "range expects number arguments, got {}",
                    other.type_name()
                )));
            }
        };
    }
    let [a, b, c] = nums;
    let (start, end, step) = match args.len() {
        1 => (0.0, a, 1.0),
        2 => (a, b, 1.0),
        _ => (a, b, c),
    };
    if step.fract() != 0.0 {
        return Err(Error::new(
            ErrorKind::Value,
            format!(
                "Invalid argument: range step must be an integer, got float {}",
                number_to_string(step)
            ),
        ));
    }
    if step == 0.0 {
        return Err(Error::new(
            ErrorKind::Value,
            "Invalid argument: range step cannot be zero",
        ));
    }
    // `(end - start) / step` may overflow to infinity: the length then
    // saturates and the memory check below refuses it.
    let want = ((end - start) / step).ceil();
    let len = if want > 0.0 {
        want.min(u64::MAX as f64) as u64
    } else {
        0
    };
    let bytes = HEADER_BYTES.saturating_add(len.saturating_mul(SLOT_BYTES));
    rt.alloc(bytes)?;
    if len > RANGE_MAX {
        return Err(Error::new(
            ErrorKind::Memory,
            format!("Memory limit exceeded: range() of {len} elements"),
        ));
    }
    rt.fuel(len.saturating_mul(ELEMENT_FUEL))?;
    // Fits: len <= u32::MAX.
    let n = usize::try_from(len).unwrap_or(0);
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::new(
            ErrorKind::Memory,
            format!("Memory limit exceeded: range() of {len} elements"),
        )
    })?;
    // Every element lies strictly before `end`; with huge magnitudes,
    // rounding can put the last computed ones on `end` itself: stop there.
    out.extend(
        (0..n)
            .map(|i| start + i as f64 * step)
            .take_while(|&x| if step > 0.0 { x < end } else { x > end })
            .map(Value::Number),
    );
    finish(rt, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{Function, HostError, HostFunction, Meter};
    use crate::stdlib::testing::TestRuntime;
    use crate::stdlib::{call_function, call_method, function_id, method_id};
    use crate::value::Regex;
    use serde_json::json;
    use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

    /// A [`TestRuntime`] that can also call host functions, which stand in
    /// for arrow functions here (closures need the VM and the compiler).
    #[derive(Default)]
    struct Rt {
        inner: TestRuntime,
    }

    impl Rt {
        fn limited(fuel: Option<u64>, memory: Option<u64>) -> Self {
            Rt {
                inner: TestRuntime {
                    fuel_limit: fuel,
                    memory_limit: memory,
                    ..TestRuntime::default()
                },
            }
        }
    }

    impl Runtime for Rt {
        fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error> {
            if let Value::Function(func) = f
                && let Function::Host(h) = &**func
            {
                self.inner.fuel(1)?;
                let mut meter = Meter::default();
                let out =
                    (h.callback)(&mut meter, args).map_err(|e| Error::new(ErrorKind::Host, e.0));
                self.inner.fuel(meter.charged())?;
                return out;
            }
            self.inner.call(f, args)
        }
        fn fuel(&mut self, units: u64) -> Result<(), Error> {
            self.inner.fuel(units)
        }
        fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
            self.inner.alloc(bytes)
        }
        fn check_depth(&self, depth: u32) -> Result<(), Error> {
            self.inner.check_depth(depth)
        }
        fn now(&mut self) -> Result<f64, Error> {
            self.inner.now()
        }
        fn random(&mut self) -> Result<f64, Error> {
            self.inner.random()
        }
        fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error> {
            self.inner.regex(pattern, flags)
        }
    }

    /// A function value running `f` (a stand-in for an arrow function).
    fn lam(f: impl Fn(&[Value]) -> Result<Value, String> + Send + Sync + 'static) -> Value {
        Value::Function(Arc::new(Function::Host(Arc::new(HostFunction {
            name: "lambda".into(),
            arity: Arity::AtLeast(0),
            fuel_per_call: 0,
            callback: Arc::new(move |_: &mut Meter, args: &[Value]| f(args).map_err(HostError)),
        }))))
    }

    fn num(v: &Value) -> f64 {
        v.as_number().unwrap_or(f64::NAN)
    }

    fn arg0(args: &[Value]) -> Value {
        args.first().cloned().unwrap_or(Value::Null)
    }

    /// `x => x`
    fn identity() -> Value {
        lam(|a| Ok(arg0(a)))
    }

    /// `x => x * k`
    fn times(k: f64) -> Value {
        lam(move |a| Ok(Value::Number(num(&arg0(a)) * k)))
    }

    /// `x => x > k`
    fn above(k: f64) -> Value {
        lam(move |a| Ok(Value::Bool(num(&arg0(a)) > k)))
    }

    /// `x => x.field`
    fn field(name: &'static str) -> Value {
        lam(move |a| {
            Ok(arg0(a)
                .as_object()
                .and_then(|o| o.get(name).cloned())
                .unwrap_or(Value::Null))
        })
    }

    /// `(a, b) => a - b`
    fn ascending() -> Value {
        lam(|a| Ok(Value::Number(num(&a[0]) - num(&a[1]))))
    }

    fn j(v: serde_json::Value) -> Value {
        Value::from_json(&v).unwrap()
    }

    fn call(rt: &mut Rt, recv: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
        let id = method_id(name).unwrap_or_else(|| panic!("no method {name}"));
        call_method(rt, id, recv, args)
    }

    fn ok(recv: serde_json::Value, name: &str, args: &[Value]) -> Value {
        let mut rt = Rt::default();
        call(&mut rt, &j(recv), name, args).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn err(recv: serde_json::Value, name: &str, args: &[Value]) -> Error {
        let mut rt = Rt::default();
        match call(&mut rt, &j(recv), name, args) {
            Ok(v) => panic!("{name} should fail, got {v:?}"),
            Err(e) => e,
        }
    }

    fn range_of(args: &[f64]) -> Result<Value, Error> {
        let mut rt = Rt::default();
        let args: Vec<Value> = args.iter().map(|&n| Value::Number(n)).collect();
        call_function(&mut rt, function_id("range").unwrap(), &args)
    }

    fn deep(levels: u32) -> Value {
        let mut v = Value::Null;
        for _ in 0..levels {
            v = Value::array(vec![v]);
        }
        v
    }

    // ─── registry ───────────────────────────────────────────────────────

    #[test]
    fn every_method_is_registered_with_its_arity() {
        for def in METHODS {
            assert!(method_id(def.name).is_some(), "{}", def.name);
        }
        let e = err(json!([1]), "map", &[]);
        assert_eq!(
            e.message(),
            "Wrong number of arguments for 'map': expected 1, got 0"
        );
        let e = err(json!([1]), "first", &[Value::Null]);
        assert_eq!(e.kind(), ErrorKind::Arity);
        let e = err(
            json!([1]),
            "reduce",
            &[identity(), Value::Null, Value::Null],
        );
        assert!(e.message().contains("expected 1 to 2, got 3"), "{e}");
        let mut rt = Rt::default();
        let e = call(&mut rt, &Value::Number(42.0), "map", &[identity()]).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: cannot call method 'map' on number"
        );
    }

    // ─── map / filter / reduce / find / some / every / flatMap ─────────

    #[test]
    fn map_transforms_each_element() {
        assert_eq!(
            ok(json!([1, 2, 3]), "map", &[times(2.0)]),
            j(json!([2, 4, 6]))
        );
        assert_eq!(ok(json!([]), "map", &[times(2.0)]), j(json!([])));
        let e = err(json!([1]), "map", &[Value::Number(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: map expects function argument, got number"
        );
    }

    #[test]
    fn callbacks_get_exactly_the_element() {
        let seen = lam(|a| Ok(Value::Number(a.len() as f64)));
        assert_eq!(ok(json!(["a", "b"]), "map", &[seen]), j(json!([1, 1])));
    }

    #[test]
    fn map_charges_memory_for_results_and_checks_depth() {
        let mut rt = Rt::default();
        let big = Value::from("x".repeat(1000));
        let out = call(
            &mut rt,
            &j(json!([1, 2])),
            "map",
            &[lam(move |_| Ok(big.clone()))],
        )
        .unwrap();
        assert_eq!(rt.inner.bytes_used, out.logical_size());
        let mut rt = Rt::default();
        let d = deep(1000);
        let e = call(
            &mut rt,
            &j(json!([1])),
            "map",
            &[lam(move |_| Ok(d.clone()))],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Depth);
    }

    #[test]
    fn callback_errors_propagate() {
        let failing = lam(|_| Err("nope".into()));
        let e = err(json!([1, 2]), "filter", &[failing]);
        assert_eq!((e.kind(), e.message()), (ErrorKind::Host, "nope"));
    }

    #[test]
    fn filter_keeps_truthy_in_order() {
        assert_eq!(
            ok(json!([1, 2, 3, 4]), "filter", &[above(2.0)]),
            j(json!([3, 4]))
        );
        let truthy = identity();
        assert_eq!(
            ok(
                json!([0, "", null, false, [], {}, "0", 7]),
                "filter",
                &[truthy]
            ),
            j(json!([[], {}, "0", 7]))
        );
    }

    #[test]
    fn reduce_with_and_without_initial_value() {
        let add = lam(|a| Ok(Value::Number(num(&a[0]) + num(&a[1]))));
        assert_eq!(
            ok(
                json!([1, 2, 3]),
                "reduce",
                &[add.clone(), Value::Number(10.0)]
            ),
            Value::Number(16.0)
        );
        assert_eq!(
            ok(json!([1, 2, 3]), "reduce", std::slice::from_ref(&add)),
            Value::Number(6.0)
        );
        assert_eq!(
            ok(json!([]), "reduce", &[add.clone(), Value::from("init")]),
            Value::from("init")
        );
        assert_eq!(
            ok(json!([5]), "reduce", std::slice::from_ref(&add)),
            Value::Number(5.0)
        );
        let e = err(json!([]), "reduce", &[add]);
        assert_eq!(e.kind(), ErrorKind::Value);
        assert!(e.message().contains("empty array"), "{e}");
        // Left to right: (("" + "a") + "b")
        let cat = lam(|a| {
            Ok(Value::from(format!(
                "{}{}",
                a[0].as_str().unwrap_or("?"),
                a[1].as_str().unwrap_or("?")
            )))
        });
        assert_eq!(
            ok(json!(["a", "b"]), "reduce", &[cat, Value::from(">")]),
            Value::from(">ab")
        );
    }

    #[test]
    fn find_some_every_short_circuit() {
        let calls = Arc::new(AtomicU64::new(0));
        let c = calls.clone();
        let probe = lam(move |a| {
            c.fetch_add(1, AtomicOrdering::SeqCst);
            Ok(Value::Bool(num(&arg0(a)) >= 2.0))
        });
        assert_eq!(
            ok(json!([1, 2, 3, 4]), "find", std::slice::from_ref(&probe)),
            Value::Number(2.0)
        );
        assert_eq!(calls.swap(0, AtomicOrdering::SeqCst), 2);
        assert_eq!(
            ok(json!([1, 2, 3, 4]), "some", std::slice::from_ref(&probe)),
            Value::Bool(true)
        );
        assert_eq!(calls.swap(0, AtomicOrdering::SeqCst), 2);
        assert_eq!(
            ok(json!([3, 1, 4]), "every", std::slice::from_ref(&probe)),
            Value::Bool(false)
        );
        assert_eq!(calls.swap(0, AtomicOrdering::SeqCst), 2);
        assert_eq!(
            ok(json!([]), "find", std::slice::from_ref(&probe)),
            Value::Null
        );
        assert_eq!(
            ok(json!([]), "some", std::slice::from_ref(&probe)),
            Value::Bool(false)
        );
        assert_eq!(
            ok(json!([]), "every", std::slice::from_ref(&probe)),
            Value::Bool(true)
        );
        assert_eq!(ok(json!([2, 3]), "every", &[probe]), Value::Bool(true));
    }

    #[test]
    fn flat_map_flattens_one_level_and_keeps_scalars() {
        let f = lam(|a| {
            let x = num(&arg0(a));
            Ok(if x > 1.0 {
                Value::array(vec![Value::Number(x), Value::array(vec![Value::Number(x)])])
            } else {
                Value::Number(x)
            })
        });
        assert_eq!(ok(json!([1, 2]), "flatMap", &[f]), j(json!([1, 2, [2]])));
        assert_eq!(
            ok(json!([[1, 2], [3, 4]]), "flatMap", &[identity()]),
            j(json!([1, 2, 3, 4]))
        );
    }

    // ─── sort / sortBy ──────────────────────────────────────────────────

    #[test]
    fn default_sort_orders_each_kind() {
        assert_eq!(
            ok(json!([10, 9, 1, 100, -5, 0.5]), "sort", &[]),
            j(json!([-5, 0.5, 1, 9, 10, 100]))
        );
        assert_eq!(
            ok(json!(["b", "B", "a", "é", "z", "A"]), "sort", &[]),
            j(json!(["A", "B", "a", "b", "z", "é"]))
        );
        assert_eq!(
            ok(json!([true, false, true]), "sort", &[]),
            j(json!([false, true, true]))
        );
        assert_eq!(ok(json!([]), "sort", &[]), j(json!([])));
        // Code points, not UTF-16 units: U+FF5E sorts before U+1F600.
        assert_eq!(ok(json!(["😀", "～"]), "sort", &[]), j(json!(["～", "😀"])));
    }

    #[test]
    fn default_sort_rejects_mixed_and_unordered_kinds() {
        let e = err(json!([1, "a"]), "sort", &[]);
        assert_eq!(
            e.message(),
            "Type error: sort() cannot compare number and string values"
        );
        for bad in [
            json!([1, null]),
            json!([null]),
            json!([[1], [0]]),
            json!([{}]),
            json!([true, 1]),
        ] {
            let e = err(bad.clone(), "sort", &[]);
            assert_eq!(e.kind(), ErrorKind::Type, "{bad}");
        }
    }

    #[test]
    fn sort_with_comparator_and_stability() {
        assert_eq!(
            ok(json!([3, 1, 2]), "sort", &[ascending()]),
            j(json!([1, 2, 3]))
        );
        let desc = lam(|a| Ok(Value::Number(num(&a[1]) - num(&a[0]))));
        assert_eq!(ok(json!([3, 1, 2]), "sort", &[desc]), j(json!([3, 2, 1])));
        let by_k = lam(|a| {
            let k = |v: &Value| v.as_object().and_then(|o| o.get("k")).map_or(0.0, num);
            Ok(Value::Number(k(&a[0]) - k(&a[1])))
        });
        let items =
            json!([{"k": 1, "v": "a"}, {"k": 0, "v": "b"}, {"k": 1, "v": "c"}, {"k": 0, "v": "d"}]);
        let sorted = ok(items, "sort", &[by_k]);
        let vs: Vec<&str> = sorted
            .as_array()
            .unwrap()
            .items()
            .iter()
            .map(|o| o.as_object().unwrap().get("v").unwrap().as_str().unwrap())
            .collect();
        assert_eq!(vs, ["b", "d", "a", "c"]);
    }

    #[test]
    fn sort_does_not_change_the_receiver() {
        let mut rt = Rt::default();
        let recv = j(json!([3, 1, 2]));
        let out = call(&mut rt, &recv, "sort", &[]).unwrap();
        assert_eq!(recv, j(json!([3, 1, 2])));
        assert_eq!(out, j(json!([1, 2, 3])));
        let out = call(&mut rt, &recv, "reverse", &[]).unwrap();
        assert_eq!((recv, out), (j(json!([3, 1, 2])), j(json!([2, 1, 3]))));
    }

    #[test]
    fn comparator_must_return_a_number_and_may_fail() {
        let bad = lam(|a| Ok(Value::Bool(num(&a[0]) > num(&a[1]))));
        let e = err(json!([2, 1]), "sort", &[bad]);
        assert_eq!(
            e.message(),
            "Type error: sort() comparator must return a number, got boolean"
        );
        let failing = lam(|_| Err("cmp failed".into()));
        assert_eq!(
            err(json!([2, 1]), "sort", &[failing]).message(),
            "cmp failed"
        );
        // A single element needs no comparison, so no error.
        let failing = lam(|_| Err("cmp failed".into()));
        assert_eq!(ok(json!([2]), "sort", &[failing]), j(json!([2])));
        let e = err(json!([2, 1]), "sort", &[Value::from("desc")]);
        assert_eq!(
            e.message(),
            "Type error: sort expects function argument, got string"
        );
        // A null comparator is no comparator (the reference's reading).
        assert_eq!(
            ok(json!([3, 1, 2]), "sort", &[Value::Null]),
            j(json!([1, 2, 3]))
        );
        let e = err(json!([1, null]), "sort", &[Value::Null]);
        assert!(e.message().contains("cannot order null values"), "{e}");
    }

    #[test]
    fn inconsistent_comparator_over_1000_elements_never_panics() {
        let state = Arc::new(AtomicU64::new(12345));
        let s = state.clone();
        let shuffle = lam(move |_| {
            let x = s
                .load(AtomicOrdering::SeqCst)
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.store(x, AtomicOrdering::SeqCst);
            Ok(Value::Number((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5))
        });
        let mut rt = Rt::default();
        let input = range_of(&[1000.0]).unwrap();
        let out = call(&mut rt, &input, "sort", &[shuffle]).unwrap();
        let mut got: Vec<f64> = out.as_array().unwrap().items().iter().map(num).collect();
        assert_ne!(
            Value::array(got.iter().map(|&x| Value::Number(x)).collect()),
            input
        );
        got.sort_by(|a, b| a.total_cmp(b));
        assert_eq!(
            Value::array(got.into_iter().map(Value::Number).collect()),
            input
        );
    }

    #[test]
    fn fuel_limit_stops_sort_of_100000_elements() {
        let items: Vec<Value> = (0..100_000)
            .map(|i| Value::Number(((i * 7919) % 100_003) as f64))
            .collect();
        let recv = Value::array(items);
        for args in [vec![], vec![ascending()]] {
            let mut rt = Rt::limited(Some(150_000), None);
            let e = call(&mut rt, &recv, "sort", &args).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Fuel);
            assert!(rt.inner.fuel_used < 200_000, "fuel {}", rt.inner.fuel_used);
        }
        // With enough fuel the same sort finishes and charges about n log n.
        let mut rt = Rt::default();
        let out = call(&mut rt, &recv, "sort", &[]).unwrap();
        assert_eq!(
            out.as_array().unwrap().items().first(),
            Some(&Value::Number(0.0))
        );
        assert!(
            rt.inner.fuel_used > 1_000_000 && rt.inner.fuel_used < 2_000_000,
            "{}",
            rt.inner.fuel_used
        );
    }

    #[test]
    fn sort_by_key_is_stable_and_computes_keys_once() {
        let calls = Arc::new(AtomicU64::new(0));
        let c = calls.clone();
        let key = lam(move |a| {
            c.fetch_add(1, AtomicOrdering::SeqCst);
            Ok(arg0(a)
                .as_object()
                .and_then(|o| o.get("k").cloned())
                .unwrap_or(Value::Null))
        });
        let items =
            json!([{"k": 1, "v": "a"}, {"k": 0, "v": "b"}, {"k": 1, "v": "c"}, {"k": 0, "v": "d"}]);
        let sorted = ok(items, "sortBy", std::slice::from_ref(&key));
        assert_eq!(calls.load(AtomicOrdering::SeqCst), 4);
        let vs: Vec<&str> = sorted
            .as_array()
            .unwrap()
            .items()
            .iter()
            .map(|o| o.as_object().unwrap().get("v").unwrap().as_str().unwrap())
            .collect();
        assert_eq!(vs, ["b", "d", "a", "c"]);
        assert_eq!(
            ok(
                json!(["banana", "apple", "cherry"]),
                "sortBy",
                &[identity()]
            ),
            j(json!(["apple", "banana", "cherry"]))
        );
        assert_eq!(ok(json!([]), "sortBy", &[identity()]), j(json!([])));
        let words = "Type error: sortBy key function must return all numbers or all strings";
        let e = err(json!([{"k": 1}, {}]), "sortBy", &[key]);
        assert_eq!(e.message(), format!("{words}, got null at index 1"));
        let e = err(json!([1, "a"]), "sortBy", &[identity()]);
        assert_eq!(e.message(), format!("{words}, got number and string"));
        // Boolean keys are refused (the reference's rule), though `sort()`
        // orders booleans.
        let e = err(json!([true, false]), "sortBy", &[identity()]);
        assert_eq!(e.message(), format!("{words}, got boolean at index 0"));
        assert_eq!(
            ok(json!([true, false]), "sort", &[]),
            j(json!([false, true]))
        );
    }

    // ─── v0.2 ───────────────────────────────────────────────────────────

    #[test]
    fn includes_and_index_of_use_structural_equality() {
        assert_eq!(
            ok(json!([1, 2, 3]), "includes", &[Value::Number(2.0)]),
            Value::Bool(true)
        );
        assert_eq!(
            ok(json!([1, 2, 3]), "includes", &[Value::from("1")]),
            Value::Bool(false)
        );
        assert_eq!(
            ok(
                json!([[1], {"a": [2]}]),
                "includes",
                &[j(json!({"a": [2]}))]
            ),
            Value::Bool(true)
        );
        assert_eq!(
            ok(json!([null]), "includes", &[Value::Null]),
            Value::Bool(true)
        );
        assert_eq!(
            ok(json!([0]), "includes", &[Value::Number(-0.0)]),
            Value::Bool(true)
        );
        assert_eq!(
            ok(json!([10, 20, 30, 20]), "indexOf", &[Value::Number(20.0)]),
            Value::Number(1.0)
        );
        assert_eq!(
            ok(json!([10, 20]), "indexOf", &[Value::Number(99.0)]),
            Value::Number(-1.0)
        );
        assert_eq!(
            ok(json!([]), "indexOf", &[Value::Null]),
            Value::Number(-1.0)
        );
        assert_eq!(
            ok(json!([1, [1, 2]]), "indexOf", &[j(json!([1, 2]))]),
            Value::Number(1.0)
        );
    }

    #[test]
    fn slice_follows_javascript() {
        let s = |args: &[f64]| {
            let args: Vec<Value> = args.iter().map(|&n| Value::Number(n)).collect();
            ok(json!([1, 2, 3, 4]), "slice", &args)
        };
        assert_eq!(s(&[1.0, 3.0]), j(json!([2, 3])));
        assert_eq!(s(&[1.0]), j(json!([2, 3, 4])));
        assert_eq!(s(&[-2.0]), j(json!([3, 4])));
        assert_eq!(s(&[-10.0]), j(json!([1, 2, 3, 4])));
        assert_eq!(s(&[0.0, -1.0]), j(json!([1, 2, 3])));
        assert_eq!(s(&[3.0, 1.0]), j(json!([])));
        assert_eq!(s(&[5.0]), j(json!([])));
        assert_eq!(s(&[1.7, 2.9]), j(json!([2])));
        assert_eq!(s(&[-1.5]), j(json!([4])));
        assert_eq!(s(&[0.0, 1e300]), j(json!([1, 2, 3, 4])));
        let e = err(json!([1]), "slice", &[Value::from("1")]);
        assert_eq!(
            e.message(),
            "Type error: slice expects number argument as start, got string"
        );
        let e = err(json!([1]), "slice", &[Value::Number(0.0), Value::Null]);
        assert_eq!(
            e.message(),
            "Type error: slice expects number argument as end, got null"
        );
    }

    #[test]
    fn join_uses_display_form() {
        let recv = json!([1, 0.5, 1e21, -0.0, null, true, "x", [1, 2], {"a": 1}]);
        assert_eq!(
            ok(recv, "join", &[Value::from(",")]),
            Value::from("1,0.5,1e+21,0,null,true,x,[1,2],{\"a\":1}")
        );
        assert_eq!(
            ok(json!([1, 2, 3]), "join", &[Value::from(", ")]),
            Value::from("1, 2, 3")
        );
        assert_eq!(ok(json!([]), "join", &[Value::from(",")]), Value::from(""));
        assert_eq!(
            ok(json!(["a", "b"]), "join", &[Value::from("")]),
            Value::from("ab")
        );
        assert_eq!(
            ok(json!(["é", "😀"]), "join", &[Value::from("—")]),
            Value::from("é—😀")
        );
        let e = err(json!([1]), "join", &[Value::Number(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: join expects string argument as separator, got number"
        );
        let mut rt = Rt::default();
        let e = call(
            &mut rt,
            &Value::array(vec![identity()]),
            "join",
            &[Value::from(",")],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type);
    }

    #[test]
    fn join_charges_memory_before_a_huge_result() {
        let recv = Value::array(vec![Value::from("x".repeat(1000)); 10]);
        let mut rt = Rt::limited(None, Some(5000));
        let e = call(&mut rt, &recv, "join", &[Value::from("-")]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        let mut rt = Rt::default();
        let out = call(&mut rt, &recv, "join", &[Value::from("-")]).unwrap();
        assert_eq!(out.as_str().map(str::len), Some(10_009));
        assert_eq!(rt.inner.bytes_used, 10_009);
    }

    #[test]
    fn concat_flat_and_errors() {
        assert_eq!(
            ok(json!([1, 2]), "concat", &[j(json!([3, [4]]))]),
            j(json!([1, 2, 3, [4]]))
        );
        assert_eq!(ok(json!([]), "concat", &[j(json!([]))]), j(json!([])));
        let e = err(json!([1]), "concat", &[Value::Number(3.0)]);
        assert_eq!(
            e.message(),
            "Type error: concat expects array argument, got number"
        );
        assert_eq!(
            ok(json!([[1, 2], [3, 4]]), "flat", &[]),
            j(json!([1, 2, 3, 4]))
        );
        assert_eq!(
            ok(json!([1, [2, [3]], [], "s"]), "flat", &[]),
            j(json!([1, 2, [3], "s"]))
        );
    }

    #[test]
    fn unique_by_value_for_scalars_and_identity_for_containers() {
        assert_eq!(
            ok(json!([3, 1, 2, 1, 3]), "unique", &[]),
            j(json!([3, 1, 2]))
        );
        assert_eq!(
            ok(json!([1, "1", true, null, null, 0, "1"]), "unique", &[]),
            j(json!([1, "1", true, null, 0]))
        );
        assert_eq!(
            ok(json!([{"a": 1}, {"a": 1}]), "unique", &[]),
            j(json!([{"a": 1}, {"a": 1}]))
        );
        let shared = j(json!([1]));
        let mut rt = Rt::default();
        let out = call(
            &mut rt,
            &Value::array(vec![shared.clone(), shared.clone(), j(json!([1]))]),
            "unique",
            &[],
        )
        .unwrap();
        assert_eq!(out.as_array().map(|a| a.len()), Some(2));
        let out = call(
            &mut rt,
            &Value::array(vec![Value::Number(0.0), Value::Number(-0.0)]),
            "unique",
            &[],
        )
        .unwrap();
        assert_eq!(out.as_array().map(|a| a.len()), Some(1));
    }

    #[test]
    fn zip_and_chunk() {
        assert_eq!(
            ok(json!([1, 2, 3]), "zip", &[j(json!([4, 5]))]),
            j(json!([[1, 4], [2, 5]]))
        );
        assert_eq!(ok(json!([]), "zip", &[j(json!([1]))]), j(json!([])));
        assert_eq!(
            err(json!([1]), "zip", &[Value::Null]).message(),
            "Type error: zip expects array argument, got null"
        );
        assert_eq!(
            ok(json!([1, 2, 3]), "chunk", &[Value::Number(2.0)]),
            j(json!([[1, 2], [3]]))
        );
        assert_eq!(
            ok(json!([1, 2]), "chunk", &[Value::Number(1e300)]),
            j(json!([[1, 2]]))
        );
        assert_eq!(ok(json!([]), "chunk", &[Value::Number(3.0)]), j(json!([])));
        for bad in [0.0, -1.0, 1.5] {
            let e = err(json!([1]), "chunk", &[Value::Number(bad)]);
            assert_eq!(e.kind(), ErrorKind::Value);
            assert_eq!(
                e.message(),
                format!(
                    "Invalid argument: chunk size must be a positive integer, got {}",
                    number_to_string(bad)
                )
            );
        }
        let e = err(json!([1]), "chunk", &[Value::from("2")]);
        assert_eq!(e.kind(), ErrorKind::Type);
        assert_eq!(
            e.message(),
            "Type error: chunk size must be a positive integer, got string"
        );
    }

    #[test]
    fn nesting_methods_check_the_depth_budget() {
        let near_limit = Value::array(vec![deep(999)]); // depth 1000
        let mut rt = Rt::default();
        for (name, args) in [
            ("chunk", vec![Value::Number(1.0)]),
            ("zip", vec![near_limit.clone()]),
            ("partition", vec![identity()]),
            ("groupBy", vec![lam(|_| Ok(Value::from("k")))]),
        ] {
            let e = call(&mut rt, &near_limit, name, &args).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Depth, "{name}");
        }
        // flat lowers the depth: fine.
        assert!(call(&mut rt, &near_limit, "flat", &[]).is_ok());
    }

    #[test]
    fn group_by_uses_display_keys_in_code_point_order() {
        let parity = lam(|a| {
            Ok(Value::from(if num(&arg0(a)) % 2.0 == 0.0 {
                "even"
            } else {
                "odd"
            }))
        });
        assert_eq!(
            ok(json!([1, 2, 3, 4]), "groupBy", &[parity]),
            j(json!({"even": [2, 4], "odd": [1, 3]}))
        );
        assert_eq!(
            ok(json!([1, 2, 1.5, 1]), "groupBy", &[identity()]),
            j(json!({"1": [1, 1], "1.5": [1.5], "2": [2]}))
        );
        let out = ok(
            json!(["b", "a", "B", true, null, "é", [1]]),
            "groupBy",
            &[identity()],
        );
        let keys: Vec<&str> = out
            .as_object()
            .unwrap()
            .map()
            .keys()
            .map(|k| &**k)
            .collect();
        assert_eq!(keys, ["B", "[1]", "a", "b", "null", "true", "é"]);
        assert_eq!(ok(json!([]), "groupBy", &[identity()]), j(json!({})));
        let f = identity();
        let e = err(json!([1]), "groupBy", &[lam(move |_| Ok(f.clone()))]);
        assert_eq!(
            e.message(),
            "Type error: groupBy() key cannot be a function"
        );
        // Restricted names in data pass through.
        assert_eq!(
            ok(json!(["__proto__"]), "groupBy", &[identity()]),
            j(json!({"__proto__": ["__proto__"]}))
        );
    }

    // ─── v0.5 ───────────────────────────────────────────────────────────

    #[test]
    fn take_and_drop() {
        let n = |x: f64| [Value::Number(x)];
        assert_eq!(
            ok(json!([1, 2, 3, 4, 5]), "take", &n(3.0)),
            j(json!([1, 2, 3]))
        );
        assert_eq!(ok(json!([1, 2]), "take", &n(5.0)), j(json!([1, 2])));
        assert_eq!(ok(json!([1, 2]), "take", &n(0.0)), j(json!([])));
        assert_eq!(ok(json!([1, 2]), "take", &n(1e300)), j(json!([1, 2])));
        assert_eq!(
            ok(json!([1, 2, 3, 4, 5]), "drop", &n(2.0)),
            j(json!([3, 4, 5]))
        );
        assert_eq!(ok(json!([1, 2]), "drop", &n(5.0)), j(json!([])));
        assert_eq!(ok(json!([1, 2]), "drop", &n(0.0)), j(json!([1, 2])));
        // A negative count is 0 (the reference's rule).
        for bad in [-1.0, -0.0, -1e300] {
            assert_eq!(ok(json!([1, 2]), "take", &n(bad)), j(json!([])));
            assert_eq!(ok(json!([1, 2]), "drop", &n(bad)), j(json!([1, 2])));
        }
        assert_eq!(ok(json!([]), "take", &n(-1.0)), j(json!([])));
        assert_eq!(ok(json!([]), "drop", &n(-1.0)), j(json!([])));
        for name in ["take", "drop"] {
            for bad in [-1.5, 0.5] {
                let e = err(json!([1]), name, &n(bad));
                assert_eq!(e.kind(), ErrorKind::Value);
                assert_eq!(
                    e.message(),
                    format!(
                        "Invalid argument: {name} expects integer argument, got {}",
                        number_to_string(bad)
                    )
                );
            }
            let e = err(json!([1]), name, &[Value::from("1")]);
            assert_eq!(e.kind(), ErrorKind::Type);
            assert_eq!(
                e.message(),
                format!("Type error: {name} expects integer argument, got string")
            );
        }
    }

    #[test]
    fn count_sum_avg() {
        assert_eq!(
            ok(json!([1, 2, 3, 4, 5]), "count", &[above(3.0)]),
            Value::Number(2.0)
        );
        assert_eq!(ok(json!([]), "count", &[above(3.0)]), Value::Number(0.0));
        assert_eq!(ok(json!([1, 2, 3]), "sum", &[]), Value::Number(6.0));
        assert_eq!(ok(json!([]), "sum", &[]), Value::Number(0.0));
        assert_eq!(
            ok(json!([0.1, 0.2, 0.3]), "sum", &[]),
            Value::Number(0.6000000000000001)
        );
        let e = err(json!([1, "a"]), "sum", &[]);
        assert_eq!(
            e.message(),
            "Type error: sum expects all elements to be numbers, got string at index 1"
        );
        let e = err(json!([1e308, 1e308]), "sum", &[]);
        assert_eq!(e.kind(), ErrorKind::Arithmetic);
        assert_eq!(ok(json!([2, 4, 6]), "avg", &[]), Value::Number(4.0));
        assert_eq!(ok(json!([1, 2]), "avg", &[]), Value::Number(1.5));
        let e = err(json!([]), "avg", &[]);
        assert_eq!(
            (e.kind(), e.message()),
            (ErrorKind::Value, "cannot compute average of empty array")
        );
        assert!(
            err(json!([1, "a"]), "avg", &[])
                .message()
                .starts_with("Type error")
        );
        assert!(
            err(json!([null]), "avg", &[])
                .message()
                .contains("got null at index 0")
        );
    }

    #[test]
    fn compact_partition_key_by() {
        assert_eq!(
            ok(json!([false, 0, "", null, 1, null]), "compact", &[]),
            j(json!([false, 0, "", 1]))
        );
        assert_eq!(ok(json!([]), "compact", &[]), j(json!([])));
        assert_eq!(
            ok(json!([1, 2, 3, 4, 5]), "partition", &[above(3.0)]),
            j(json!([[4, 5], [1, 2, 3]]))
        );
        assert_eq!(
            ok(json!([]), "partition", &[above(3.0)]),
            j(json!([[], []]))
        );
        let items = json!([{"k": "b", "v": 1}, {"k": "a", "v": 2}, {"k": "b", "v": 3}]);
        let out = ok(items, "keyBy", &[field("k")]);
        assert_eq!(
            out,
            j(json!({"a": {"k": "a", "v": 2}, "b": {"k": "b", "v": 3}}))
        );
        let keys: Vec<&str> = out
            .as_object()
            .unwrap()
            .map()
            .keys()
            .map(|k| &**k)
            .collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(
            ok(json!([1, 2]), "keyBy", &[times(10.0)]),
            j(json!({"10": 1, "20": 2}))
        );
        assert_eq!(ok(json!([]), "keyBy", &[identity()]), j(json!({})));
    }

    #[test]
    fn min_max_first_last() {
        assert_eq!(ok(json!([3, 1, 2]), "min", &[]), Value::Number(1.0));
        assert_eq!(ok(json!([3, 1, 2]), "max", &[]), Value::Number(3.0));
        assert_eq!(ok(json!([-1.5]), "max", &[]), Value::Number(-1.5));
        for name in ["min", "max"] {
            let e = err(json!([]), name, &[]);
            assert_eq!(
                (e.kind(), e.message()),
                (
                    ErrorKind::Value,
                    format!("cannot compute {name} of empty array").as_str()
                )
            );
            let e = err(json!(["a"]), name, &[]);
            assert_eq!(
                e.message(),
                format!(
                    "Type error: {name} expects all elements to be numbers, got string at index 0"
                )
            );
        }
        assert_eq!(ok(json!([1, 2, 3]), "first", &[]), Value::Number(1.0));
        assert_eq!(ok(json!([1, 2, 3]), "last", &[]), Value::Number(3.0));
        assert_eq!(ok(json!([]), "first", &[]), Value::Null);
        assert_eq!(ok(json!([]), "last", &[]), Value::Null);
    }

    // ─── range ──────────────────────────────────────────────────────────

    #[test]
    fn range_forms() {
        assert_eq!(range_of(&[5.0]).unwrap(), j(json!([0, 1, 2, 3, 4])));
        assert_eq!(range_of(&[2.0, 5.0]).unwrap(), j(json!([2, 3, 4])));
        assert_eq!(range_of(&[0.0, 10.0, 3.0]).unwrap(), j(json!([0, 3, 6, 9])));
        assert_eq!(
            range_of(&[5.0, 0.0, -1.0]).unwrap(),
            j(json!([5, 4, 3, 2, 1]))
        );
        assert_eq!(range_of(&[5.0, 0.0]).unwrap(), j(json!([])));
        assert_eq!(range_of(&[0.0]).unwrap(), j(json!([])));
        assert_eq!(range_of(&[-3.0]).unwrap(), j(json!([])));
        assert_eq!(range_of(&[0.0, 5.0, -1.0]).unwrap(), j(json!([])));
        assert_eq!(range_of(&[0.5, 3.0]).unwrap(), j(json!([0.5, 1.5, 2.5])));
        assert_eq!(range_of(&[2.5]).unwrap(), j(json!([0, 1, 2])));
        assert_eq!(
            range_of(&[0.0, 1e300, 1e299])
                .unwrap()
                .as_array()
                .map(|a| a.len()),
            Some(10)
        );
    }

    #[test]
    fn range_errors() {
        let e = range_of(&[0.0, 10.0, 0.5]).unwrap_err();
        assert!(e.message().contains("float"), "{e}");
        let e = range_of(&[0.0, 10.0, 0.0]).unwrap_err();
        assert!(e.message().contains("step"), "{e}");
        let mut rt = Rt::default();
        let e =
            call_function(&mut rt, function_id("range").unwrap(), &[Value::from("5")]).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: range expects number arguments, got string"
        );
        let e = call_function(&mut rt, function_id("range").unwrap(), &[]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Arity);
    }

    #[test]
    fn range_of_a_billion_fails_on_memory_before_allocating() {
        let mut rt = Rt::limited(None, Some(64 << 20));
        let e = call_function(
            &mut rt,
            function_id("range").unwrap(),
            &[Value::Number(1e9)],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        assert_eq!((rt.inner.bytes_used, rt.inner.fuel_used), (0, 0));
        // Without any memory limit, an absurd length still fails cleanly.
        let mut rt = Rt::default();
        let e = call_function(
            &mut rt,
            function_id("range").unwrap(),
            &[Value::Number(-1e308), Value::Number(1e308)],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        // Past the hard cap, even with no limits at all.
        let e = call_function(
            &mut rt,
            function_id("range").unwrap(),
            &[Value::Number((RANGE_MAX + 1) as f64)],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        // Under a fuel budget with no memory limit, fuel stops it before
        // anything is allocated.
        let mut rt = Rt::limited(Some(1000), None);
        let e = call_function(
            &mut rt,
            function_id("range").unwrap(),
            &[Value::Number(1e8)],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Fuel);
    }

    #[test]
    fn range_with_huge_magnitudes_stays_before_end() {
        let start = 2f64.powi(60); // spacing of doubles here: 256
        let end = start + 1024.0;
        let out = range_of(&[start, end]).unwrap();
        let items = out.as_array().unwrap().items();
        assert!(!items.is_empty() && items.len() <= 1024);
        assert!(items.iter().all(|v| num(v) >= start && num(v) < end));
        let out = range_of(&[end, start, -1.0]).unwrap();
        assert!(
            out.as_array()
                .unwrap()
                .items()
                .iter()
                .all(|v| num(v) > start && num(v) <= end)
        );
    }

    #[test]
    fn range_charges_fuel_and_memory_per_element() {
        let mut rt = Rt::default();
        let out = call_function(
            &mut rt,
            function_id("range").unwrap(),
            &[Value::Number(100.0)],
        )
        .unwrap();
        assert_eq!(rt.inner.bytes_used, HEADER_BYTES + 100 * SLOT_BYTES);
        assert_eq!(rt.inner.bytes_used, out.logical_size());
        assert_eq!(rt.inner.fuel_used, 100);
    }

    #[test]
    fn copies_charge_their_logical_size() {
        let recv = Value::array(vec![Value::from("abcd"); 10]);
        for (name, args) in [
            ("reverse", vec![]),
            ("sort", vec![]),
            ("slice", vec![Value::Number(0.0)]),
            ("take", vec![Value::Number(10.0)]),
        ] {
            let mut rt = Rt::default();
            let out = call(&mut rt, &recv, name, &args).unwrap();
            assert_eq!(rt.inner.bytes_used, out.logical_size(), "{name}");
            assert!(rt.inner.fuel_used >= 10, "{name}");
        }
        let mut rt = Rt::limited(None, Some(100));
        assert_eq!(
            call(&mut rt, &recv, "reverse", &[]).unwrap_err().kind(),
            ErrorKind::Memory
        );
    }
}
