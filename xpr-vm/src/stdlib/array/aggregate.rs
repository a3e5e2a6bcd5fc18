//! Array built-ins that sum up or group the elements: `count`, `sum`,
//! `avg`, `min`, `max`; `partition`, `groupBy` and `keyBy`.

use indexmap::IndexMap;
use indexmap::map::Entry;

use super::sort::sort_by_key;
use super::{HEADER_BYTES, SLOT_BYTES, call1, callback, finish, this, units};
use crate::error::{Error, ErrorKind};
use crate::runtime::Runtime;
use crate::stdlib::object::{finish_object, finish_sorted, key_text, put_last};
use crate::value::{Key, Map, Value};

/// The frame of `groupBy` and `keyBy` (method `name`): charges the new
/// object's header and one unit per element, then calls the callback on
/// each element, in order, and hands `file` the key it returns, as text
/// (see [`key_text`]), with the element.
fn file_by_key(
    rt: &mut dyn Runtime,
    name: &str,
    this_: &Value,
    args: &[Value],
    mut file: impl FnMut(&mut dyn Runtime, Key, &Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let arr = this(name, this_)?;
    let f = callback(name, args, 0)?;
    rt.alloc(HEADER_BYTES)?;
    rt.fuel(units(arr.len()))?;
    for item in arr.items() {
        let k = call1(rt, f, item)?;
        let key = key_text(rt, &k, name)?;
        file(rt, key, item)?;
    }
    Ok(())
}

/// `arr.groupBy(fn)`: an object mapping each key `fn(x)` (as text, the
/// display form of `string()`) to the elements with that key, in order;
/// keys in alphabetical (code-point) order.
pub(super) fn group_by(
    rt: &mut dyn Runtime,
    this_: &Value,
    args: &[Value],
) -> Result<Value, Error> {
    let mut groups: IndexMap<Key, Vec<Value>, foldhash::fast::RandomState> = IndexMap::default();
    file_by_key(rt, "groupBy", this_, args, |rt, key, item| {
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
        Ok(())
    })?;
    let sorted = sort_by_key(rt, groups.into_iter().collect())?;
    let map: Map = sorted
        .into_iter()
        .map(|(k, v)| (k, Value::array(v)))
        .collect();
    finish_object(rt, map)
}

/// `arr.count(fn)`: how many elements `fn` is truthy for.
pub(super) fn count(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn sum(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn avg(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("avg", this_)?;
    if arr.is_empty() {
        return Err(empty_error("average"));
    }
    Ok(Value::Number(
        total(rt, "avg", arr.items())? / arr.len() as f64,
    ))
}

/// `arr.partition(fn)`: `[matching, rest]`, both in input order.
pub(super) fn partition(
    rt: &mut dyn Runtime,
    this_: &Value,
    args: &[Value],
) -> Result<Value, Error> {
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
pub(super) fn key_by(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let mut map = Map::default();
    // One lookup per element (hashing the key, charged by `key_text`).
    file_by_key(rt, "keyBy", this_, args, |rt, key, item| {
        put_last(rt, &mut map, key, item)
    })?;
    finish_sorted(rt, map)
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
pub(super) fn min(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    extreme(rt, "min", this_, true)
}

/// `arr.max()`: the largest number; an error on `[]` or a non-number.
pub(super) fn max(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    extreme(rt, "max", this_, false)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

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
        let keys = key_strs(&out);
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
        let keys = key_strs(&out);
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
}
