//! Built-ins for object values (spec "Object Methods", "New Object Methods
//! (v0.2)", "fromEntries (v0.5)").
//!
//! - `keys()`, `values()` and `entries()` list keys in alphabetical order,
//!   meaning ascending Unicode code-point order (Rust `str` order); objects
//!   otherwise keep insertion order.
//! - Keys built from values (`fromEntries`, and `groupBy` / `keyBy` in the
//!   array module) are the value's display form, as `string()` spells it:
//!   `1` -> `"1"`, `true` -> `"true"`, `null` -> `"null"`, `[1,2]` -> `"[1,2]"`.
//! - Restricted names (`__proto__`, `constructor`, `prototype`) in data pass
//!   through unchanged: only access by name is denied (by the VM).
//! - Fuel: one unit per key visited, plus the sort of the keys: one unit
//!   per comparison (at most `n * ceil(log2 n)` for `n` keys) and
//!   `min(len) / 16` of the two keys compared, charged before each
//!   comparison (`sort::sort_by_key`); a key looked up or inserted is
//!   charged `len / 16` for hashing it. Memory for each new array or object
//!   is charged before it is built.

use std::sync::Arc;

use indexmap::map::Entry;

use super::array::ELEMENT_FUEL;
use super::array::sort::sort_by_key;
use super::{FunctionDef, MethodDef, no_such_method};
use crate::error::Error;
use crate::format::display_metered;
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{Array, HEADER_BYTES, Key, Map, Object, SLOT_BYTES, Value};

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef {
    name: "fromEntries",
    arity: Arity::Exact(1),
    call: from_entries,
    sig: "(pairs) -> object",
    doc: "object from [key, value] pairs",
}];

/// Methods of this module's receiver type.
pub(crate) const METHODS: &[MethodDef] = &[
    MethodDef {
        name: "keys",
        arity: Arity::Exact(0),
        call: keys,
        sig: "() -> array",
        doc: "keys, sorted",
    },
    MethodDef {
        name: "values",
        arity: Arity::Exact(0),
        call: values,
        sig: "() -> array",
        doc: "values, by sorted key",
    },
    MethodDef {
        name: "entries",
        arity: Arity::Exact(0),
        call: entries,
        sig: "() -> array",
        doc: "[key, value] pairs, by sorted key",
    },
    MethodDef {
        name: "has",
        arity: Arity::Exact(1),
        call: has,
        sig: "(key) -> boolean",
        doc: "whether key is present",
    },
];

/// The object key a value stands for: a string as itself (charged
/// `bytes / 16` fuel, for the hashing its caller does), any other value
/// as its display form (what `string()` returns), charged as text built.
/// `method` names the built-in in the error.
///
/// # Errors
/// `Type error: METHOD() key cannot be a function` (nor contain one); the
/// fuel or memory error.
pub(crate) fn key_text(rt: &mut dyn Runtime, v: &Value, method: &str) -> Result<Key, Error> {
    match v {
        Value::String(s) => {
            // Not built, but hashed (and compared) in full by the caller's map.
            rt.fuel(crate::compare::hash_work(s.len()))?;
            crate::compare::touch(s.len());
            Ok(s.clone())
        }
        Value::Function(_) => Err(Error::type_error(format_args!(
            "{method}() key cannot be a function"
        ))),
        other => {
            let mut text = String::new();
            display_metered(rt, other, &mut text).map_err(|e| {
                if e.kind() == crate::error::ErrorKind::Type {
                    Error::type_error(format_args!("{method}() key cannot contain a function"))
                } else {
                    e
                }
            })?;
            Ok(text.into())
        }
    }
}

/// Wraps `map` (memory already charged) into an object value, checking its
/// nesting depth against the budget.
pub(crate) fn finish_object(rt: &mut dyn Runtime, map: Map) -> Result<Value, Error> {
    let object = Object::new(map);
    rt.check_depth(object.depth())?;
    Ok(Value::Object(Arc::new(object)))
}

/// Puts `value` under `key`, replacing the value of an earlier equal key
/// (the last one wins), with one lookup (hashing the key is charged by
/// [`key_text`]). Charges the memory of the entry first: a slot and the
/// value's logical size, plus the key's bytes when the key is new.
pub(super) fn put_last(
    rt: &mut dyn Runtime,
    map: &mut Map,
    key: Key,
    value: &Value,
) -> Result<(), Error> {
    let bytes = SLOT_BYTES + value.logical_size();
    match map.entry(key) {
        Entry::Occupied(mut slot) => {
            rt.alloc(bytes)?;
            slot.insert(value.clone());
        }
        Entry::Vacant(slot) => {
            rt.alloc(bytes.saturating_add(slot.key().len() as u64))?;
            slot.insert(value.clone());
        }
    }
    Ok(())
}

/// `map` (memory already charged) as an object value with its keys in
/// alphabetical (code-point) order: sorted as [`sort_by_key`] sorts and
/// charges, then wrapped as by [`finish_object`].
pub(super) fn finish_sorted(rt: &mut dyn Runtime, map: Map) -> Result<Value, Error> {
    let map: Map = sort_by_key(rt, map.into_iter().collect())?
        .into_iter()
        .collect();
    finish_object(rt, map)
}

/// Wraps `items` (memory already charged) into an array value, checking its
/// nesting depth against the budget.
fn finish_array(rt: &mut dyn Runtime, items: Vec<Value>) -> Result<Value, Error> {
    let array = Array::new(items);
    rt.check_depth(array.depth())?;
    Ok(Value::Array(Arc::new(array)))
}

/// The receiver as an object (the registry guarantees it; the re-check
/// keeps a direct call from panicking).
fn this<'a>(name: &str, v: &'a Value) -> Result<&'a Arc<Object>, Error> {
    match v {
        Value::Object(o) => Ok(o),
        other => Err(no_such_method(name, other)),
    }
}

/// The entries in alphabetical (code-point) key order, charging one unit
/// of fuel per key plus the sort (see [`sort_by_key`]).
fn sorted_entries<'a>(rt: &mut dyn Runtime, o: &'a Object) -> Result<Vec<(Key, &'a Value)>, Error> {
    rt.fuel((o.len() as u64).saturating_mul(ELEMENT_FUEL))?;
    sort_by_key(rt, o.map().iter().map(|(k, v)| (k.clone(), v)).collect())
}

/// `obj.keys()`: the keys, alphabetically.
fn keys(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let o = this("keys", this_)?;
    let list = sorted_entries(rt, o)?;
    let bytes = list.iter().fold(HEADER_BYTES, |acc, (k, _)| {
        acc.saturating_add(SLOT_BYTES + k.len() as u64)
    });
    rt.alloc(bytes)?;
    finish_array(
        rt,
        list.into_iter()
            .map(|(k, _)| Value::String(k.clone()))
            .collect(),
    )
}

/// `obj.values()`: the values, in alphabetical order of their keys.
fn values(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let o = this("values", this_)?;
    let list = sorted_entries(rt, o)?;
    let bytes = list.iter().fold(HEADER_BYTES, |acc, (_, v)| {
        acc.saturating_add(SLOT_BYTES + v.logical_size())
    });
    rt.alloc(bytes)?;
    finish_array(rt, list.into_iter().map(|(_, v)| v.clone()).collect())
}

/// `obj.entries()`: `[key, value]` pairs, alphabetically by key.
fn entries(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let o = this("entries", this_)?;
    let list = sorted_entries(rt, o)?;
    let bytes = list.iter().fold(HEADER_BYTES, |acc, (k, v)| {
        let pair =
            HEADER_BYTES + 2 * SLOT_BYTES + (k.len() as u64).saturating_add(v.logical_size());
        acc.saturating_add(SLOT_BYTES.saturating_add(pair))
    });
    rt.alloc(bytes)?;
    finish_array(
        rt,
        list.into_iter()
            .map(|(k, v)| Value::array(vec![Value::String(k.clone()), v.clone()]))
            .collect(),
    )
}

/// `obj.has(key)`: whether `key` is a top-level key. `key` must be a string.
fn has(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let o = this("has", this_)?;
    rt.fuel(ELEMENT_FUEL)?;
    match args.first() {
        Some(Value::String(k)) => {
            // Looking the key up hashes all of it.
            rt.fuel(k.len() as u64 / crate::format::BYTES_PER_FUEL)?;
            Ok(Value::Bool(o.get(k).is_some()))
        }
        other => Err(Error::type_error(format_args!(
            "has expects string argument, got {}",
            other.map_or("nothing", Value::type_name)
        ))),
    }
}

/// `fromEntries(pairs)`: an object from `[key, value]` pairs, keys in
/// alphabetical (code-point) order as the reference builds it; a later pair
/// with the same key replaces the value. A non-string key becomes its
/// display form (`1` -> `"1"`). Elements of a pair past the second are
/// ignored (as JavaScript and the reference do).
///
/// # Errors
/// `Type error: fromEntries expects array, got T`; `Type error: fromEntries
/// each element must be [key, value] pair, got T at index I` (or `got an
/// array of N element(s)` for fewer than two).
fn from_entries(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    const PAIR: &str = "fromEntries each element must be [key, value] pair";
    let pairs = match args.first() {
        Some(Value::Array(a)) => a,
        other => {
            return Err(Error::type_error(format_args!(
                "fromEntries expects array, got {}",
                other.map_or("nothing", Value::type_name)
            )));
        }
    };
    rt.alloc(HEADER_BYTES)?;
    let mut map = Map::default();
    for (i, pair) in pairs.items().iter().enumerate() {
        rt.fuel(ELEMENT_FUEL)?;
        let (k, v) = match pair {
            Value::Array(p) => match p.items() {
                [k, v, ..] => (k, v),
                [] => {
                    return Err(Error::type_error(format_args!(
                        "{PAIR}, got an empty array at index {i}"
                    )));
                }
                [_] => {
                    return Err(Error::type_error(format_args!(
                        "{PAIR}, got an array of 1 element at index {i}"
                    )));
                }
            },
            other => {
                return Err(Error::type_error(format_args!(
                    "{PAIR}, got {} at index {i}",
                    other.type_name()
                )));
            }
        };
        let key = key_text(rt, k, "fromEntries")?;
        put_last(rt, &mut map, key, v)?;
    }
    finish_sorted(rt, map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::stdlib::testing::TestRuntime;
    use crate::stdlib::{call_function, call_method, function_id, method_id};
    use serde_json::json;

    fn j(v: serde_json::Value) -> Value {
        Value::from_json(&v).unwrap()
    }

    fn call(
        rt: &mut TestRuntime,
        recv: &Value,
        name: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        call_method(rt, method_id(name).unwrap(), recv, args)
    }

    fn ok(recv: serde_json::Value, name: &str, args: &[Value]) -> Value {
        call(&mut TestRuntime::default(), &j(recv), name, args)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn from_entries(arg: Value) -> Result<Value, Error> {
        let mut rt = TestRuntime::default();
        call_function(&mut rt, function_id("fromEntries").unwrap(), &[arg])
    }

    fn key_list(v: &Value) -> Vec<String> {
        v.as_object()
            .unwrap()
            .map()
            .keys()
            .map(|k| k.to_string())
            .collect()
    }

    #[test]
    fn keys_values_entries_in_code_point_order() {
        let recv = json!({"c": 3, "a": 1, "b": 2});
        assert_eq!(ok(recv.clone(), "keys", &[]), j(json!(["a", "b", "c"])));
        assert_eq!(ok(recv.clone(), "values", &[]), j(json!([1, 2, 3])));
        assert_eq!(
            ok(recv, "entries", &[]),
            j(json!([["a", 1], ["b", 2], ["c", 3]]))
        );
        // Upper case before lower case, digits before letters, code points
        // (not UTF-16 units): U+FF5E before U+1F600.
        let recv = json!({"b": 0, "B": 0, "_": 0, "1": 0, "é": 0, "😀": 0, "～": 0});
        assert_eq!(
            ok(recv, "keys", &[]),
            j(json!(["1", "B", "_", "b", "é", "～", "😀"]))
        );
        for name in ["keys", "values", "entries"] {
            assert_eq!(ok(json!({}), name, &[]), j(json!([])));
        }
    }

    #[test]
    fn restricted_names_in_data_pass_through() {
        let recv = json!({"prototype": 1, "__proto__": 2, "constructor": 3});
        assert_eq!(
            ok(recv.clone(), "keys", &[]),
            j(json!(["__proto__", "constructor", "prototype"]))
        );
        assert_eq!(
            ok(recv, "has", &[Value::from("__proto__")]),
            Value::Bool(true)
        );
        let out = from_entries(j(json!([["__proto__", 1]]))).unwrap();
        assert_eq!(key_list(&out), ["__proto__"]);
    }

    #[test]
    fn has_checks_top_level_string_keys() {
        assert_eq!(
            ok(json!({"a": null}), "has", &[Value::from("a")]),
            Value::Bool(true)
        );
        assert_eq!(
            ok(json!({"a": {"b": 1}}), "has", &[Value::from("b")]),
            Value::Bool(false)
        );
        let e = call(
            &mut TestRuntime::default(),
            &j(json!({"1": 1})),
            "has",
            &[Value::Number(1.0)],
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: has expects string argument, got number"
        );
        let e = call(
            &mut TestRuntime::default(),
            &j(json!([1])),
            "has",
            &[Value::from("a")],
        )
        .unwrap_err();
        assert_eq!(e.message(), "Type error: cannot call method 'has' on array");
    }

    #[test]
    fn entries_charge_memory_and_depth() {
        let recv = j(json!({"ab": "xyz", "c": [1]}));
        let mut rt = TestRuntime::default();
        let out = call(&mut rt, &recv, "entries", &[]).unwrap();
        assert_eq!(rt.bytes_used, out.logical_size());
        assert!(rt.fuel_used >= 2);
        let mut deep = Value::Null;
        for _ in 0..999 {
            deep = Value::array(vec![deep]);
        }
        let mut map = Map::default();
        map.insert("k".into(), deep);
        let recv = Value::object(map); // depth 1000
        let e = call(&mut rt, &recv, "entries", &[]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Depth);
        assert!(call(&mut rt, &recv, "values", &[]).is_ok());
        let mut rt = TestRuntime {
            memory_limit: Some(40),
            ..TestRuntime::default()
        };
        let e = call(&mut rt, &j(json!({"a": 1})), "keys", &[]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
    }

    #[test]
    fn from_entries_builds_objects() {
        assert_eq!(
            from_entries(j(json!([["a", 1], ["b", 2]]))).unwrap(),
            j(json!({"a": 1, "b": 2}))
        );
        assert_eq!(from_entries(j(json!([]))).unwrap(), j(json!({})));
        // Later pairs win; keys end in code-point order, whatever order
        // the pairs came in.
        let out = from_entries(j(json!([["b", 1], ["a", 2], ["b", 3], ["B", 4]]))).unwrap();
        assert_eq!(out, j(json!({"a": 2, "b": 3, "B": 4})));
        assert_eq!(key_list(&out), ["B", "a", "b"]);
        // Elements of a pair past the second are ignored.
        let out = from_entries(j(json!([["a", 1, 2], ["b", 3, 4, 5]]))).unwrap();
        assert_eq!(out, j(json!({"a": 1, "b": 3})));
        // Non-string keys: their display form.
        let out = from_entries(j(json!([
            [1, "x"],
            [1.5, "y"],
            [true, 0],
            [null, 0],
            [[1, 2], 0]
        ])))
        .unwrap();
        assert_eq!(key_list(&out), ["1", "1.5", "[1,2]", "null", "true"]);
        // Round trip with entries().
        let obj = j(json!({"z": [1], "a": {"b": null}}));
        let back =
            from_entries(call(&mut TestRuntime::default(), &obj, "entries", &[]).unwrap()).unwrap();
        assert_eq!(back, obj);
    }

    #[test]
    fn from_entries_errors() {
        let e = from_entries(Value::Number(42.0)).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: fromEntries expects array, got number"
        );
        let words = "Type error: fromEntries each element must be [key, value] pair";
        for (bad, detail) in [
            (json!([1, 2]), "got number at index 0"),
            (json!([["a"]]), "got an array of 1 element at index 0"),
            (json!([["a", 1], []]), "got an empty array at index 1"),
            (json!([["a", 1], "ab"]), "got string at index 1"),
        ] {
            let e = from_entries(j(bad.clone())).unwrap_err();
            assert_eq!(e.message(), format!("{words}, {detail}"), "{bad}");
            assert_eq!(e.kind(), ErrorKind::Type);
        }
        let mut rt = TestRuntime::default();
        let e = call_function(&mut rt, function_id("fromEntries").unwrap(), &[]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Arity);
        let f = Value::Function(std::sync::Arc::new(crate::function::Function::Builtin(0)));
        let e = from_entries(Value::array(vec![Value::array(vec![f, Value::Null])])).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: fromEntries() key cannot be a function"
        );
    }
}
