//! Array built-ins that look for elements: by a callback (`find`, `some`,
//! `every`), by equality (`includes`, `indexOf`; `unique`, which keeps the
//! first of equal elements), or by position (`first`, `last`).

use std::collections::HashSet;
use std::sync::Arc;

use super::{ELEMENT_FUEL, arg, call1, callback, charge_copy, finish, this, units};
use crate::compare;
use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::Value;

/// The first element of the receiver for which the callback `fn` (argument
/// 0 of method `name`) is truthy (`truthy == true`) or falsy: one
/// [`ELEMENT_FUEL`] per element, charged before its call; no element is
/// visited past the one found.
fn first_where<'a>(
    rt: &mut dyn Runtime,
    name: &str,
    this_: &'a Value,
    args: &[Value],
    truthy: bool,
) -> Result<Option<&'a Value>, Error> {
    let arr = this(name, this_)?;
    let f = callback(name, args, 0)?;
    for item in arr.items() {
        rt.fuel(ELEMENT_FUEL)?;
        if call1(rt, f, item)?.truthy() == truthy {
            return Ok(Some(item));
        }
    }
    Ok(None)
}

/// `arr.find(fn)`: the first element for which `fn` is truthy, or null.
pub(super) fn find(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let found = first_where(rt, "find", this_, args, true)?;
    Ok(found.cloned().unwrap_or(Value::Null))
}

/// `arr.some(fn)`: whether `fn` is truthy for some element (stops at the first).
pub(super) fn some(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let found = first_where(rt, "some", this_, args, true)?;
    Ok(Value::Bool(found.is_some()))
}

/// `arr.every(fn)`: whether `fn` is truthy for every element (stops at the
/// first falsy one; `[].every(...)` is true).
pub(super) fn every(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let falsy = first_where(rt, "every", this_, args, false)?;
    Ok(Value::Bool(falsy.is_none()))
}

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
pub(super) fn includes(
    rt: &mut dyn Runtime,
    this_: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let arr = this("includes", this_)?;
    Ok(Value::Bool(
        position(rt, arr.items(), arg(args, 0))?.is_some(),
    ))
}

/// `arr.indexOf(v)`: the index of the first element `== v`, or -1.
pub(super) fn index_of(
    rt: &mut dyn Runtime,
    this_: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let arr = this("indexOf", this_)?;
    Ok(Value::Number(
        match position(rt, arr.items(), arg(args, 0))? {
            Some(i) => i as f64,
            None => -1.0,
        },
    ))
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
pub(super) fn unique(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
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

/// `arr.first()`: the first element, or null for `[]`.
pub(super) fn first(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("first", this_)?;
    rt.fuel(ELEMENT_FUEL)?;
    Ok(arr.items().first().cloned().unwrap_or(Value::Null))
}

/// `arr.last()`: the last element, or null for `[]`.
pub(super) fn last(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("last", this_)?;
    rt.fuel(ELEMENT_FUEL)?;
    Ok(arr.items().last().cloned().unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;
    use std::sync::atomic::Ordering as AtomicOrdering;

    #[test]
    fn find_some_every_short_circuit() {
        let (probe, calls) = counted(|a| Ok(Value::Bool(num(&arg0(a)) >= 2.0)));
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
}
