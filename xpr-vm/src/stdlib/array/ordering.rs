//! Array built-ins that reorder the elements: `sort`, `sortBy` and
//! `reverse`. The merge sort, the default order and the checks of what may
//! be sorted are in [`super::sort`].

use super::sort::{
    check_sort_keys, check_sortable, comparator_result, default_cmp, default_cost, merge_sort,
    merge_sort_costed,
};
use super::{call1, callback, finish, this, units};
use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::Value;

/// `arr.sort()` / `arr.sort(cmp)`: a stable merge sort (see [`super::sort`]). With
/// no comparator (or a null one, as the reference reads it), the default
/// order of one kind of values: numbers numerically, strings by code point,
/// `false` before `true`.
pub(super) fn sort(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn reverse(
    rt: &mut dyn Runtime,
    this_: &Value,
    _args: &[Value],
) -> Result<Value, Error> {
    let arr = this("reverse", this_)?;
    rt.fuel(units(arr.len()))?;
    rt.alloc(arr.logical_size())?;
    finish(rt, arr.items().iter().rev().cloned().collect())
}

/// `arr.sortBy(fn)`: stable sort by the key `fn(x)`, computed once per
/// element, in the default order (keys all numbers or all strings).
pub(super) fn sort_by(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::error::ErrorKind;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

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
        let vs = field_strs(&sorted, "v");
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
        let (key, calls) = counted(|a| {
            Ok(arg0(a)
                .as_object()
                .and_then(|o| o.get("k").cloned())
                .unwrap_or(Value::Null))
        });
        let items =
            json!([{"k": 1, "v": "a"}, {"k": 0, "v": "b"}, {"k": 1, "v": "c"}, {"k": 0, "v": "d"}]);
        let sorted = ok(items, "sortBy", std::slice::from_ref(&key));
        assert_eq!(calls.load(AtomicOrdering::SeqCst), 4);
        let vs = field_strs(&sorted, "v");
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
}
