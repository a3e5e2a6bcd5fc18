//! Array built-ins that call a callback on each element and build from the
//! results: `map`, `filter`, `reduce`, `flatMap`; and `compact`, the
//! filter that drops nulls.

use super::{HEADER_BYTES, SLOT_BYTES, call1, callback, charge_copy, finish, this, units};
use crate::error::{Error, ErrorKind};
use crate::runtime::Runtime;
use crate::value::Value;

/// `arr.map(fn)`: `[fn(x) for x in arr]`.
pub(super) fn map(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn filter(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn reduce(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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

/// `arr.flatMap(fn)`: map, then flatten one level (a non-array result is
/// kept as one element, as in JavaScript).
pub(super) fn flat_map(
    rt: &mut dyn Runtime,
    this_: &Value,
    args: &[Value],
) -> Result<Value, Error> {
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

/// `arr.compact()`: the elements that are not null (`false`, `0`, `""` stay).
pub(super) fn compact(
    rt: &mut dyn Runtime,
    this_: &Value,
    _args: &[Value],
) -> Result<Value, Error> {
    let arr = this("compact", this_)?;
    rt.fuel(units(arr.len()))?;
    let kept = arr.items().iter().filter(|v| !matches!(v, Value::Null));
    charge_copy(rt, kept.clone())?;
    finish(rt, kept.cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

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
}
