//! Array built-ins that cut arrays or build new ones from their elements:
//! `slice`, `take`, `drop`, `concat`, `flat`, `zip`, `chunk`, `join` (the
//! elements as text), and the global function `range`.

use std::fmt;
use std::sync::Arc;

use super::{ELEMENT_FUEL, HEADER_BYTES, SLOT_BYTES, arg, charge_copy, finish, this, units};
use crate::error::{Error, ErrorKind};
use crate::format::{display_metered, number_to_string};
use crate::runtime::Runtime;
use crate::stdlib::relative_index;
use crate::value::{Array, Value};

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

/// Argument `i` as a number that `valid` accepts; `expects` says what it
/// must be (`take expects integer argument`).
///
/// # Errors
/// `Type error: EXPECTS, got T` for a non-number; `Invalid argument:
/// EXPECTS, got X` (kind `Value`) for a number `valid` refuses.
fn checked_number(
    args: &[Value],
    i: usize,
    expects: fmt::Arguments<'_>,
    valid: impl Fn(f64) -> bool,
) -> Result<f64, Error> {
    let n = match arg(args, i) {
        Value::Number(n) => *n,
        other => {
            return Err(Error::type_error(format_args!(
                "{expects}, got {}",
                other.type_name()
            )));
        }
    };
    if !valid(n) {
        return Err(Error::new(
            ErrorKind::Value,
            format!("Invalid argument: {expects}, got {}", number_to_string(n)),
        ));
    }
    Ok(n)
}

/// Argument `i` as a count of elements for `take` / `drop`: an integer, a
/// negative one counting as 0 (as the reference does); saturated to `usize`.
///
/// # Errors
/// `Type error: NAME expects integer argument, got T` for a non-number;
/// `Invalid argument: NAME expects integer argument, got X` (kind `Value`)
/// for a fraction.
fn count_arg(name: &str, args: &[Value], i: usize) -> Result<usize, Error> {
    let n = checked_number(
        args,
        i,
        format_args!("{name} expects integer argument"),
        |n| n.fract() == 0.0,
    )?;
    // `as` saturates: a negative count becomes 0, 1e300 becomes
    // usize::MAX, which every caller clamps.
    Ok(n as usize)
}

/// `arr.slice(start[, end])`: JavaScript semantics (negative indices count
/// from the end, fractions truncate, out-of-range clamps).
pub(super) fn slice(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn join(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn concat(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn flat(rt: &mut dyn Runtime, this_: &Value, _args: &[Value]) -> Result<Value, Error> {
    let arr = this("flat", this_)?;
    rt.fuel(units(arr.len()))?;
    charge_copy(rt, flattened(arr.items()))?;
    finish(rt, flattened(arr.items()).cloned().collect())
}

/// `arr.zip(other)`: `[[a0, b0], [a1, b1], ...]`, as long as the shorter.
pub(super) fn zip(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
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
pub(super) fn chunk(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("chunk", this_)?;
    let size = checked_number(
        args,
        0,
        format_args!("chunk size must be a positive integer"),
        |n| n > 0.0 && n.fract() == 0.0,
    )?;
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

/// `arr.take(n)`: the first `n` elements (all of them when `n >= len`,
/// none when `n <= 0`).
pub(super) fn take_n(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("take", this_)?;
    let n = count_arg("take", args, 0)?.min(arr.len());
    let part = arr.items().get(..n).unwrap_or(&[]);
    charge_copy(rt, part)?;
    finish(rt, part.to_vec())
}

/// `arr.drop(n)`: all but the first `n` elements (`[]` when `n >= len`,
/// all of them when `n <= 0`).
pub(super) fn drop_n(rt: &mut dyn Runtime, this_: &Value, args: &[Value]) -> Result<Value, Error> {
    let arr = this("drop", this_)?;
    let n = count_arg("drop", args, 0)?.min(arr.len());
    let part = arr.items().get(n..).unwrap_or(&[]);
    charge_copy(rt, part)?;
    finish(rt, part.to_vec())
}

/// Most elements `range` will ever build, whatever the budgets: 2^28
/// (4 GiB of logical size). Even with no memory limit, a bigger request
/// fails with the memory error instead of asking the allocator for it.
pub const RANGE_MAX: u64 = 1 << 28;

/// `range(end)`, `range(start, end)`, `range(start, end, step)`: the numbers
/// `start + i * step` strictly before `end` (above it for a negative step).
/// `step` defaults to 1 and must be a non-zero integer; `start` and `end`
/// may be any numbers. Memory and fuel for the whole length are charged
/// before anything is allocated.
pub(super) fn range(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
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
    use super::super::testing::*;
    use super::*;
    use crate::stdlib::{call_function, function_id};
    use serde_json::json;

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
        let e = range_in(&mut rt, &[1e9]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        assert_eq!((rt.inner.bytes_used, rt.inner.fuel_used), (0, 0));
        // Without any memory limit, an absurd length still fails cleanly.
        let mut rt = Rt::default();
        let e = range_in(&mut rt, &[-1e308, 1e308]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        // Past the hard cap, even with no limits at all.
        let e = range_in(&mut rt, &[(RANGE_MAX + 1) as f64]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        // Under a fuel budget with no memory limit, fuel stops it before
        // anything is allocated.
        let mut rt = Rt::limited(Some(1000), None);
        let e = range_in(&mut rt, &[1e8]).unwrap_err();
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
        let out = range_in(&mut rt, &[100.0]).unwrap();
        assert_eq!(rt.inner.bytes_used, HEADER_BYTES + 100 * SLOT_BYTES);
        assert_eq!(rt.inner.bytes_used, out.logical_size());
        assert_eq!(rt.inner.fuel_used, 100);
    }
}
