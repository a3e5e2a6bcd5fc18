//! Built-ins for array values (spec "Collection Methods", "New Array Methods
//! (v0.2)", "New Array Methods (v0.5)", "New Global Function: range"): the
//! registration of every array built-in and the helpers they share. The
//! built-ins themselves live by topic:
//! - `transforms`: `map`, `filter`, `reduce`, `flatMap`, `compact`;
//! - `search`: `find`, `some`, `every`, `includes`, `indexOf`, `unique`,
//!   `first`, `last`;
//! - `ordering`: `sort`, `sortBy`, `reverse` (the merge sort and the
//!   default order behind them are in [`sort`](mod@sort));
//! - `building`: `slice`, `take`, `drop`, `concat`, `flat`, `zip`,
//!   `chunk`, `join` and the global `range`;
//! - `aggregate`: `count`, `sum`, `avg`, `min`, `max`, `partition`,
//!   `groupBy`, `keyBy`;
//! - `testing` (tests only): the stand-ins the unit tests of every topic
//!   call methods with.
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

use std::sync::Arc;

use super::{FunctionDef, MethodDef, method, no_such_method};
use crate::error::Error;
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{Array, HEADER_BYTES, SLOT_BYTES, Value};

mod aggregate;
mod building;
mod ordering;
mod search;
pub mod sort;
#[cfg(test)]
mod testing;
mod transforms;

use aggregate::{avg, count, group_by, key_by, max, min, partition, sum};
pub use building::RANGE_MAX;
use building::{chunk, concat, drop_n, flat, join, range, slice, take_n, zip};
use ordering::{reverse, sort, sort_by};
use search::{every, find, first, includes, index_of, last, some, unique};
use transforms::{compact, filter, flat_map, map, reduce};

/// Fuel units charged per element a method visits.
pub const ELEMENT_FUEL: u64 = 1;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef {
    name: "range",
    arity: Arity::Range(1, 3),
    call: range,
    sig: "(end) | (start, end, step?) -> array",
    doc: "numbers from start (default 0) up to end, excluded",
}];

/// Methods of this module's receiver type.
pub(crate) const METHODS: &[MethodDef] = &[
    // v0.1
    method(
        "map",
        Arity::Exact(1),
        map,
        "(fn) -> array",
        "fn(x) of each element x",
    ),
    method(
        "filter",
        Arity::Exact(1),
        filter,
        "(fn) -> array",
        "elements for which fn(x) is truthy",
    ),
    method(
        "reduce",
        Arity::Range(1, 2),
        reduce,
        "(fn, init?) -> any",
        "fold: acc = fn(acc, x) from init (else the first element)",
    ),
    method(
        "find",
        Arity::Exact(1),
        find,
        "(fn) -> any",
        "first element for which fn(x) is truthy, or null",
    ),
    method(
        "some",
        Arity::Exact(1),
        some,
        "(fn) -> boolean",
        "whether fn(x) is truthy for some element",
    ),
    method(
        "every",
        Arity::Exact(1),
        every,
        "(fn) -> boolean",
        "whether fn(x) is truthy for every element",
    ),
    method(
        "flatMap",
        Arity::Exact(1),
        flat_map,
        "(fn) -> array",
        "map, then flatten one level",
    ),
    method(
        "sort",
        Arity::Range(0, 1),
        sort,
        "(cmp?) -> array",
        "ascending numbers or strings; cmp(x, y) < 0 puts x first",
    ),
    method(
        "reverse",
        Arity::Exact(0),
        reverse,
        "() -> array",
        "reversed",
    ),
    // v0.2
    method(
        "includes",
        Arity::Exact(1),
        includes,
        "(v) -> boolean",
        "whether an element equals v",
    ),
    method(
        "indexOf",
        Arity::Exact(1),
        index_of,
        "(v) -> number",
        "index of the first element equal to v, or -1",
    ),
    method(
        "slice",
        Arity::Range(1, 2),
        slice,
        "(start, end?) -> array",
        "elements start to end (excluded); negative counts from the end",
    ),
    method(
        "join",
        Arity::Exact(1),
        join,
        "(sep) -> string",
        "elements as text, separated by sep",
    ),
    method(
        "concat",
        Arity::Exact(1),
        concat,
        "(other) -> array",
        "elements, then other's",
    ),
    method(
        "flat",
        Arity::Exact(0),
        flat,
        "() -> array",
        "nested arrays flattened one level",
    ),
    method(
        "unique",
        Arity::Exact(0),
        unique,
        "() -> array",
        "without repeated values (first kept)",
    ),
    method(
        "zip",
        Arity::Exact(1),
        zip,
        "(other) -> array",
        "pairs [a[i], other[i]], as long as the shorter",
    ),
    method(
        "chunk",
        Arity::Exact(1),
        chunk,
        "(size) -> array",
        "consecutive groups of size elements",
    ),
    method(
        "groupBy",
        Arity::Exact(1),
        group_by,
        "(fn) -> object",
        "elements grouped under the key fn(x)",
    ),
    // v0.5
    method(
        "sortBy",
        Arity::Exact(1),
        sort_by,
        "(fn) -> array",
        "sorted ascending by the key fn(x)",
    ),
    method(
        "take",
        Arity::Exact(1),
        take_n,
        "(n) -> array",
        "first n elements",
    ),
    method(
        "drop",
        Arity::Exact(1),
        drop_n,
        "(n) -> array",
        "all but the first n elements",
    ),
    method(
        "count",
        Arity::Exact(1),
        count,
        "(fn) -> number",
        "how many elements fn(x) is truthy for",
    ),
    method(
        "sum",
        Arity::Exact(0),
        sum,
        "() -> number",
        "sum of the numbers ([] gives 0)",
    ),
    method(
        "avg",
        Arity::Exact(0),
        avg,
        "() -> number",
        "mean of the numbers",
    ),
    method(
        "compact",
        Arity::Exact(0),
        compact,
        "() -> array",
        "without null elements",
    ),
    method(
        "partition",
        Arity::Exact(1),
        partition,
        "(fn) -> array",
        "[elements where fn(x) is truthy, the others]",
    ),
    method(
        "keyBy",
        Arity::Exact(1),
        key_by,
        "(fn) -> object",
        "each element under the key fn(x) (last wins)",
    ),
    method(
        "min",
        Arity::Exact(0),
        min,
        "() -> number",
        "smallest number",
    ),
    method(
        "max",
        Arity::Exact(0),
        max,
        "() -> number",
        "largest number",
    ),
    method(
        "first",
        Arity::Exact(0),
        first,
        "() -> any",
        "first element, or null",
    ),
    method(
        "last",
        Arity::Exact(0),
        last,
        "() -> any",
        "last element, or null",
    ),
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

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::error::ErrorKind;
    use crate::stdlib::method_id;
    use serde_json::json;

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
