//! The sort behind `sort` and `sortBy` (spec "Collection Methods", v0.5
//! "New Array Methods"; issue: standard library, "sort and sortBy are stable").
//!
//! A bottom-up merge sort of our own rather than `slice::sort_by`, because:
//! - the comparator may fail (a callback error, the fuel budget), and the
//!   error must stop the sort and propagate;
//! - the comparator may be inconsistent (`(a, b) => random() - 0.5`): the
//!   standard sort may panic then, while a merge sort only ever compares the
//!   heads of two runs and writes each element exactly once per pass, so it
//!   always ends, after at most `n * ceil(log2 n)` comparisons, with a
//!   permutation of its input;
//! - every comparison costs one unit of fuel ([`COMPARE_FUEL`]) plus, in
//!   the default order, what comparing its two values reads (two distinct
//!   strings: `min(len) / 16`, see [`crate::compare`]); charged in batches
//!   of [`FUEL_BATCH`] units, a comparison's units before it is made, so
//!   that a sort under a small budget stops within a batch of it, and a
//!   comparison of long strings past the budget (or after a cancellation)
//!   is never made.
//!
//! The merge is stable: on a tie the element of the left run (earlier in
//! the input) is taken first.

use std::cmp::Ordering;

use crate::compare;
use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::{Key, Value};

/// Fuel units charged per comparison (on top of what a comparator callback
/// costs through [`Runtime::call`]).
pub const COMPARE_FUEL: u64 = 1;

/// Comparisons counted locally before they are charged to the runtime.
const FUEL_BATCH: u64 = 256;

/// Counts the fuel of comparisons and charges it to the runtime in batches.
struct Ticker {
    pending: u64,
}

impl Ticker {
    /// Adds the `units` of the comparison about to be made, charging the
    /// batch first when it is full.
    #[inline]
    fn tick(&mut self, rt: &mut dyn Runtime, units: u64) -> Result<(), Error> {
        self.pending = self.pending.saturating_add(units);
        if self.pending >= FUEL_BATCH {
            let units = std::mem::take(&mut self.pending);
            rt.fuel(units)?;
        }
        Ok(())
    }

    fn flush(&mut self, rt: &mut dyn Runtime) -> Result<(), Error> {
        let units = std::mem::take(&mut self.pending);
        if units > 0 { rt.fuel(units) } else { Ok(()) }
    }
}

/// Sorts `items` stably with a fallible comparator, which receives the
/// runtime so that it can call back into the VM.
///
/// `cmp(rt, a, b)` says how `a` orders against `b`; only `Greater` moves `b`
/// before `a`. Charges [`COMPARE_FUEL`] per comparison. Allocates one
/// scratch buffer of `items.len()` elements (the caller charges the memory
/// of what it builds from the result).
///
/// # Errors
/// The first error of `cmp`, or the fuel error; the sort stops there.
pub fn merge_sort<T, F>(rt: &mut dyn Runtime, items: Vec<T>, cmp: F) -> Result<Vec<T>, Error>
where
    T: Copy,
    F: FnMut(&mut dyn Runtime, T, T) -> Result<Ordering, Error>,
{
    merge_sort_costed(rt, items, |_, _| COMPARE_FUEL, cmp)
}

/// [`merge_sort`] where comparing `a` and `b` costs `cost(a, b)` fuel units
/// (at least [`COMPARE_FUEL`]), charged before the comparison is made.
///
/// # Errors
/// The first error of `cmp`, or the fuel error; the sort stops there.
pub fn merge_sort_costed<T, C, F>(
    rt: &mut dyn Runtime,
    items: Vec<T>,
    cost: C,
    mut cmp: F,
) -> Result<Vec<T>, Error>
where
    T: Copy,
    C: Fn(T, T) -> u64,
    F: FnMut(&mut dyn Runtime, T, T) -> Result<Ordering, Error>,
{
    let n = items.len();
    if n < 2 {
        return Ok(items);
    }
    let mut ticker = Ticker { pending: 0 };
    let mut src = items;
    let mut dst = src.clone();
    let mut width = 1usize;
    while width < n {
        let span = width.saturating_mul(2);
        // `src` and `dst` have the same length, so their chunks pair up
        // with equal lengths.
        for (from, to) in src.chunks(span).zip(dst.chunks_mut(span)) {
            let (left, right) = from.split_at(width.min(from.len()));
            merge(rt, &mut ticker, left, right, to, &cost, &mut cmp)?;
        }
        std::mem::swap(&mut src, &mut dst);
        width = span;
    }
    ticker.flush(rt)?;
    Ok(src)
}

/// Merges the sorted runs `left` and `right` into `out`
/// (`out.len() == left.len() + right.len()`).
fn merge<T, C, F>(
    rt: &mut dyn Runtime,
    ticker: &mut Ticker,
    left: &[T],
    right: &[T],
    out: &mut [T],
    cost: &C,
    cmp: &mut F,
) -> Result<(), Error>
where
    T: Copy,
    C: Fn(T, T) -> u64,
    F: FnMut(&mut dyn Runtime, T, T) -> Result<Ordering, Error>,
{
    // Already in order (sorted or nearly sorted input): one comparison.
    if let (Some(&last), Some(&first)) = (left.last(), right.first()) {
        ticker.tick(rt, cost(last, first))?;
        if cmp(rt, last, first)? != Ordering::Greater {
            for (slot, &v) in out.iter_mut().zip(left.iter().chain(right)) {
                *slot = v;
            }
            return Ok(());
        }
    }
    let (mut i, mut j) = (0usize, 0usize);
    for slot in out.iter_mut() {
        *slot = match (left.get(i), right.get(j)) {
            (Some(&a), Some(&b)) => {
                ticker.tick(rt, cost(a, b))?;
                if cmp(rt, a, b)? == Ordering::Greater {
                    j += 1;
                    b
                } else {
                    i += 1;
                    a
                }
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (None, Some(&b)) => {
                j += 1;
                b
            }
            // Unreachable: `out` is exactly as long as both runs together.
            (None, None) => break,
        };
    }
    Ok(())
}

/// The default order of `sort()` and of `sortBy` keys (decision: numbers
/// numerically, strings by code point, `false` before `true`). Only
/// meaningful for two values of one sortable kind, which
/// [`check_sortable`] establishes first; any other pair compares equal.
#[inline]
pub fn default_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        // Never NaN: values are finite. -0 and 0 are equal (stable order kept).
        (Value::Number(x), Value::Number(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        // UTF-8 byte order is Unicode code-point order.
        (Value::String(x), Value::String(y)) => compare::text_order(x, y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// The fuel of comparing `a` and `b` in the default order: one unit, plus
/// `min(len) / 16` for two distinct strings (see [`crate::compare`]).
#[inline]
pub fn default_cost(a: &Value, b: &Value) -> u64 {
    COMPARE_FUEL + compare::order_work(a, b)
}

/// Sorts `entries` by key in code-point order (keys are distinct, so the
/// order is total), charging each comparison one unit plus `min(len) / 16`
/// of the two keys before it is made: object keys (`keys`, `values`,
/// `entries`) and the objects `groupBy`, `keyBy` and `fromEntries` build.
///
/// # Errors
/// The fuel error; the sort stops there.
pub fn sort_by_key<V>(
    rt: &mut dyn Runtime,
    entries: Vec<(Key, V)>,
) -> Result<Vec<(Key, V)>, Error> {
    let order = {
        let keys: Vec<&str> = entries.iter().map(|(k, _)| &**k).collect();
        let key = |i: usize| keys.get(i).copied().unwrap_or_default();
        merge_sort_costed(
            rt,
            (0..keys.len()).collect(),
            |i, j| COMPARE_FUEL + compare::text_order_work(key(i), key(j)),
            |_, i, j| Ok(compare::text_order(key(i), key(j))),
        )?
    };
    let mut slots: Vec<Option<(Key, V)>> = entries.into_iter().map(Some).collect();
    Ok(order
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect())
}

/// Checks that `values` can be put in the default order: all numbers, all
/// strings or all booleans. `what` names them in the error (`"values"`,
/// `"keys"`).
///
/// # Errors
/// `Type error: METHOD() cannot order T values ...` for null, arrays,
/// objects, regexes and functions; `Type error: METHOD() cannot compare
/// T1 and T2 ...` for a mix of kinds.
pub fn check_sortable<'a>(
    method: &str,
    what: &str,
    values: impl IntoIterator<Item = &'a Value>,
) -> Result<(), Error> {
    check_one_kind(
        values,
        |v| matches!(v, Value::Number(_) | Value::String(_) | Value::Bool(_)),
        |_, other| {
            Error::type_error(format_args!(
                "{method}() cannot order {} {what} (only numbers, strings or booleans)",
                other.type_name()
            ))
        },
        |k, t| Error::type_error(format_args!("{method}() cannot compare {k} and {t} {what}")),
    )
}

/// Checks the keys of `sortBy`: all numbers or all strings (as the
/// reference requires; booleans, null and containers are refused).
///
/// # Errors
/// `Type error: sortBy key function must return all numbers or all
/// strings, got T at index I` for a key of another kind, `..., got T1 and
/// T2` for a mix of numbers and strings.
pub fn check_sort_keys(keys: &[Value]) -> Result<(), Error> {
    const WORDS: &str = "sortBy key function must return all numbers or all strings";
    check_one_kind(
        keys,
        |k| matches!(k, Value::Number(_) | Value::String(_)),
        |i, other| {
            Error::type_error(format_args!(
                "{WORDS}, got {} at index {i}",
                other.type_name()
            ))
        },
        |first, t| Error::type_error(format_args!("{WORDS}, got {first} and {t}")),
    )
}

/// Checks that `values` are all of one kind (as `type()` names it), a
/// kind `allowed` accepts, stopping at the first that is not.
///
/// # Errors
/// `refused(i, v)` for a value `v` at index `i` that `allowed` refuses;
/// `mixed(k, t)` for a value of kind `t` after values of kind `k`.
fn check_one_kind<'a>(
    values: impl IntoIterator<Item = &'a Value>,
    allowed: impl Fn(&Value) -> bool,
    refused: impl FnOnce(usize, &Value) -> Error,
    mixed: impl FnOnce(&str, &str) -> Error,
) -> Result<(), Error> {
    let mut kind: Option<&'static str> = None;
    for (i, v) in values.into_iter().enumerate() {
        if !allowed(v) {
            return Err(refused(i, v));
        }
        let t = v.type_name();
        match kind {
            None => kind = Some(t),
            Some(k) if k != t => return Err(mixed(k, t)),
            Some(_) => {}
        }
    }
    Ok(())
}

/// Reads a comparator's result: negative orders `a` first, positive `b`
/// first, zero keeps the input order.
///
/// # Errors
/// `Type error: sort() comparator must return a number, got T`.
pub fn comparator_result(v: &Value) -> Result<Ordering, Error> {
    match v {
        Value::Number(n) if *n < 0.0 => Ok(Ordering::Less),
        Value::Number(n) if *n > 0.0 => Ok(Ordering::Greater),
        Value::Number(_) => Ok(Ordering::Equal),
        other => Err(Error::type_error(format_args!(
            "sort() comparator must return a number, got {}",
            other.type_name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::stdlib::testing::TestRuntime;

    fn ints(v: &[i64]) -> Vec<i64> {
        v.to_vec()
    }

    #[test]
    fn sorts_integers_of_every_small_length() {
        let mut rt = TestRuntime::default();
        let mut state = 7u64;
        for n in 0..70usize {
            let input: Vec<i64> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    ((state >> 33) % 20) as i64
                })
                .collect();
            let got =
                merge_sort(&mut rt, input.clone(), |_, a: i64, b: i64| Ok(a.cmp(&b))).unwrap();
            let mut want = input;
            want.sort();
            assert_eq!(got, want, "n = {n}");
        }
    }

    #[test]
    fn merge_is_stable() {
        let mut rt = TestRuntime::default();
        // (key, original position): sort by key only.
        let input: Vec<(i64, usize)> = [3, 1, 3, 2, 1, 3, 2, 1].iter().copied().zip(0..).collect();
        let got = merge_sort(&mut rt, input, |_, a: (i64, usize), b: (i64, usize)| {
            Ok(a.0.cmp(&b.0))
        })
        .unwrap();
        let positions: Vec<usize> = got.iter().map(|p| p.1).collect();
        assert_eq!(positions, vec![1, 4, 7, 3, 6, 0, 2, 5]);
    }

    #[test]
    fn inconsistent_comparator_returns_a_permutation() {
        let mut rt = TestRuntime::default();
        let mut state = 1u64;
        let input: Vec<i64> = (0..1000).collect();
        let got = merge_sort(&mut rt, input.clone(), |_, _, _| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Ok(match state >> 62 {
                0 => Ordering::Less,
                1 => Ordering::Equal,
                _ => Ordering::Greater,
            })
        })
        .unwrap();
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(sorted, input);
        assert_ne!(got, input, "a random comparator should move something");
    }

    #[test]
    fn comparator_error_stops_the_sort() {
        let mut rt = TestRuntime::default();
        let mut calls = 0;
        let err = merge_sort(&mut rt, ints(&[5, 4, 3, 2, 1]), |_, _, _| {
            calls += 1;
            if calls == 3 {
                Err(Error::type_error("boom"))
            } else {
                Ok(Ordering::Greater)
            }
        })
        .unwrap_err();
        assert_eq!(err.message(), "Type error: boom");
        assert_eq!(calls, 3);
    }

    #[test]
    fn comparisons_are_charged_and_bounded() {
        let mut rt = TestRuntime::default();
        let n = 1024usize;
        let input: Vec<i64> = (0..n as i64).rev().collect();
        let got = merge_sort(&mut rt, input, |_, a: i64, b: i64| Ok(a.cmp(&b))).unwrap();
        assert_eq!(got.first(), Some(&0));
        assert!(rt.fuel_used >= (n as u64) / 2, "fuel {}", rt.fuel_used);
        assert!(rt.fuel_used <= (n as u64) * 10 + 1, "fuel {}", rt.fuel_used);
    }

    #[test]
    fn fuel_limit_stops_a_long_sort() {
        let mut rt = TestRuntime {
            fuel_limit: Some(1000),
            ..TestRuntime::default()
        };
        let input: Vec<i64> = (0..100_000).map(|i| (i * 7919) % 100_003).collect();
        let err = merge_sort(&mut rt, input, |_, a: i64, b: i64| Ok(a.cmp(&b))).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Fuel);
        assert!(rt.fuel_used <= 1000 + FUEL_BATCH);
    }

    #[test]
    fn default_order_and_sortable_kinds() {
        let v = |x: f64| Value::Number(x);
        assert_eq!(default_cmp(&v(2.0), &v(10.0)), Ordering::Less);
        assert_eq!(default_cmp(&v(-0.0), &v(0.0)), Ordering::Equal);
        assert_eq!(
            default_cmp(&Value::from("Z"), &Value::from("a")),
            Ordering::Less
        );
        assert_eq!(
            default_cmp(&Value::from("é"), &Value::from("z")),
            Ordering::Greater
        );
        assert_eq!(
            default_cmp(&Value::from("\u{FFFF}"), &Value::from("😀")),
            Ordering::Less
        );
        assert_eq!(
            default_cmp(&Value::Bool(false), &Value::Bool(true)),
            Ordering::Less
        );
        assert!(check_sortable("sort", "values", &[v(1.0), v(2.0)]).is_ok());
        assert!(check_sortable("sort", "values", &[]).is_ok());
        let e = check_sortable("sort", "values", &[v(1.0), Value::from("a")]).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: sort() cannot compare number and string values"
        );
        let e = check_sortable("sort", "values", &[Value::Null]).unwrap_err();
        assert!(
            e.message().contains("cannot order null values"),
            "{}",
            e.message()
        );
        assert_eq!(e.kind(), ErrorKind::Type);
    }

    #[test]
    fn sort_keys_are_all_numbers_or_all_strings() {
        let v = |x: f64| Value::Number(x);
        assert!(check_sort_keys(&[]).is_ok());
        assert!(check_sort_keys(&[v(2.0), v(1.0)]).is_ok());
        assert!(check_sort_keys(&[Value::from("b"), Value::from("a")]).is_ok());
        let words = "Type error: sortBy key function must return all numbers or all strings";
        for (keys, detail) in [
            (vec![v(1.0), Value::Null], "got null at index 1"),
            (vec![Value::Bool(true)], "got boolean at index 0"),
            (vec![v(1.0), Value::array(vec![])], "got array at index 1"),
            (
                vec![v(1.0), v(2.0), Value::from("a")],
                "got number and string",
            ),
            (vec![Value::from("a"), v(1.0)], "got string and number"),
        ] {
            let e = check_sort_keys(&keys).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Type);
            assert_eq!(e.message(), format!("{words}, {detail}"));
        }
    }

    #[test]
    fn comparator_results() {
        assert_eq!(
            comparator_result(&Value::Number(-0.5)).unwrap(),
            Ordering::Less
        );
        assert_eq!(
            comparator_result(&Value::Number(-0.0)).unwrap(),
            Ordering::Equal
        );
        assert_eq!(
            comparator_result(&Value::Number(3.0)).unwrap(),
            Ordering::Greater
        );
        let e = comparator_result(&Value::Bool(true)).unwrap_err();
        assert_eq!(
            e.message(),
            "Type error: sort() comparator must return a number, got boolean"
        );
    }
}
