//! Work in proportion to fuel (issue 11, items 2 and 3): the built-ins that
//! compare, order or hash values read at most [`BYTES_PER_UNIT`] bytes per
//! fuel unit they charge, charge before they read, and so stop within a
//! batch of an exhausted budget. Bytes read are counted by
//! [`crate::compare::touched`], never timed.

use std::sync::Arc;

use crate::compare::{BATCH, BYTES_PER_UNIT, touched};
use crate::error::{Error, ErrorKind};
use crate::function::{Arity, Function, HostError, HostFunction, Meter};
use crate::stdlib::testing::TestRuntime;
use crate::stdlib::{call_function, call_method, function_id, method_id};
use crate::value::{Key, Map, Value};

/// A function value running `f` (a stand-in for an arrow function).
fn lam(f: impl Fn(&[Value]) -> Value + Send + Sync + 'static) -> Value {
    Value::Function(Arc::new(Function::Host(Arc::new(HostFunction {
        name: "lambda".into(),
        arity: Arity::AtLeast(0),
        fuel_per_call: 0,
        meters: true,
        callback: Arc::new(
            move |_: &mut Meter, args: &[Value]| -> Result<Value, HostError> { Ok(f(args)) },
        ),
    }))))
}

/// `x => x`
fn identity() -> Value {
    lam(|a| a.first().cloned().unwrap_or(Value::Null))
}

fn method(rt: &mut TestRuntime, recv: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    call_method(rt, method_id(name).expect("method"), recv, args)
}

fn function(rt: &mut TestRuntime, name: &str, args: &[Value]) -> Result<Value, Error> {
    call_function(rt, function_id(name).expect("function"), args)
}

fn limited(fuel: u64) -> TestRuntime {
    TestRuntime {
        fuel_limit: Some(fuel),
        ..TestRuntime::default()
    }
}

/// `n` distinct strings of `len` bytes that differ only at the end (every
/// comparison reads them all), in descending order.
fn long_strings(n: usize, len: usize) -> Value {
    Value::array(
        (0..n)
            .rev()
            .map(|i| Value::from(format!("{}{i:06}", "x".repeat(len))))
            .collect(),
    )
}

/// Runs `f` on an unlimited runtime and checks the bytes it read against
/// the fuel it charged; returns (fuel, bytes read).
#[track_caller]
fn proportional(f: impl FnOnce(&mut TestRuntime) -> Result<Value, Error>) -> (u64, u64) {
    let mut rt = TestRuntime::default();
    touched::take();
    f(&mut rt).expect("runs");
    let read = touched::take();
    assert!(
        read <= BYTES_PER_UNIT * rt.fuel_used,
        "read {read} bytes for {} fuel units",
        rt.fuel_used
    );
    (rt.fuel_used, read)
}

/// Runs `f` under a budget of `limit` units: it must fail with the fuel
/// error having read at most what the budget (and one batch) pays for.
#[track_caller]
fn stops_within_budget(limit: u64, f: impl FnOnce(&mut TestRuntime) -> Result<Value, Error>) {
    let mut rt = limited(limit);
    touched::take();
    let e = f(&mut rt).expect_err("out of fuel");
    let read = touched::take();
    assert_eq!(e.kind(), ErrorKind::Fuel);
    assert!(
        read <= BYTES_PER_UNIT * (limit + BATCH),
        "read {read} bytes under a budget of {limit}"
    );
}

#[test]
fn sort_reads_in_proportion_and_stops_before_reading_past_the_budget() {
    let a = long_strings(200, 5000);
    let (fuel, read) = proportional(|rt| method(rt, &a, "sort", &[]));
    // About n log2 n / 2 comparisons of 5,000 bytes each.
    assert!(read >= 200 * 4 * 5000, "{read}");
    assert!(fuel >= read / BYTES_PER_UNIT, "{fuel}");
    stops_within_budget(10_000, |rt| method(rt, &a, "sort", &[]));
}

#[test]
fn sort_by_reads_in_proportion() {
    let a = long_strings(200, 5000);
    let (_, read) = proportional(|rt| method(rt, &a, "sortBy", &[identity()]));
    assert!(read >= 200 * 4 * 5000, "{read}");
    stops_within_budget(10_000, |rt| method(rt, &a, "sortBy", &[identity()]));
}

#[test]
fn sort_by_one_shared_key_reads_nothing() {
    // The issue's `range(3000).sortBy(i => p)` with a 200 MB `p`, scaled
    // down: every key is the same string, which is equal to itself
    // without being read; each comparison costs its one unit.
    let p = Value::from("x".repeat(1 << 20));
    let items = Value::array((0..3000).map(|i| Value::Number(f64::from(i))).collect());
    let key = lam(move |_| p.clone());
    let (fuel, read) = proportional(|rt| method(rt, &items, "sortBy", &[key]));
    assert_eq!(read, 0);
    assert!(fuel < 3 * 3000 * 2, "{fuel}");
}

#[test]
fn unique_pays_for_the_strings_it_hashes() {
    // The issue's `a.unique()` over 3,200 copies of a 10,000-byte string:
    // it read 32 MB for 3,201 fuel units (24 times the work per unit of an
    // ordinary run).
    let s = Value::from("x".repeat(10_000));
    let a = Value::array(vec![s; 3200]);
    let (fuel, read) = proportional(|rt| method(rt, &a, "unique", &[]));
    assert_eq!(read, 3200 * 10_000);
    assert!(fuel >= 3200 * 10_000 / BYTES_PER_UNIT, "{fuel}");
    stops_within_budget(10_000, |rt| method(rt, &a, "unique", &[]));
    // Scalars and containers stay one unit per element (and the copy).
    let numbers = Value::array(
        (0..1000)
            .map(|i| Value::Number(f64::from(i % 10)))
            .collect(),
    );
    let (fuel, read) = proportional(|rt| method(rt, &numbers, "unique", &[]));
    assert_eq!(read, 0);
    assert!(fuel <= 1000 + 10 + 1, "{fuel}");
}

#[test]
fn includes_and_index_of_pay_for_what_they_compare() {
    let a = long_strings(300, 10_000);
    let needle = Value::from(format!("{}!!!!!!", "x".repeat(10_000)));
    for name in ["includes", "indexOf"] {
        let (_, read) = proportional(|rt| method(rt, &a, name, std::slice::from_ref(&needle)));
        assert!(read >= 300 * 10_000, "{name}: {read}");
        stops_within_budget(10_000, |rt| {
            method(rt, &a, name, std::slice::from_ref(&needle))
        });
    }
    // Strings of another length are unequal without being read: one unit
    // each (an upper bound by size was charged before).
    let short = Value::from("y");
    let (fuel, read) = proportional(|rt| method(rt, &a, "includes", &[short]));
    assert_eq!(read, 0);
    assert!(fuel <= 300, "{fuel}");
    // Arrays: element by element.
    let rows = Value::array((0..100).map(|_| long_strings(10, 1000)).collect());
    let row = long_strings(10, 1000);
    let (fuel, read) = proportional(|rt| method(rt, &rows, "indexOf", &[row]));
    assert_eq!(read, 10 * 1006);
    assert!(fuel >= 10 + 10 * (1006 / BYTES_PER_UNIT), "{fuel}");
}

#[test]
fn object_keys_are_sorted_in_proportion() {
    let mut map = Map::default();
    for i in 0..500 {
        map.insert(
            Key::from(format!("{}{i:06}", "k".repeat(4000))),
            Value::Null,
        );
    }
    let o = Value::object(map);
    for name in ["keys", "values", "entries"] {
        let (_, read) = proportional(|rt| method(rt, &o, name, &[]));
        assert!(read >= 499 * 4000, "{name}: {read}");
    }
    stops_within_budget(5_000, |rt| method(rt, &o, "keys", &[]));
}

#[test]
fn grouping_by_long_keys_pays_for_hashing_and_sorting_them() {
    let a = Value::array(
        (0..3000)
            .map(|i| Value::from(format!("{}{:03}", "g".repeat(2000), i % 50)))
            .collect(),
    );
    for name in ["groupBy", "keyBy"] {
        let (fuel, read) = proportional(|rt| method(rt, &a, name, &[identity()]));
        assert!(read >= 3000 * 2000, "{name}: {read}");
        assert!(fuel >= 3000 * 2000 / BYTES_PER_UNIT, "{name}: {fuel}");
        stops_within_budget(10_000, |rt| method(rt, &a, name, &[identity()]));
    }
    let pairs = Value::array(
        (0..3000)
            .map(|i| {
                let key = Value::from(format!("{}{:03}", "g".repeat(2000), i % 50));
                Value::array(vec![key, Value::Number(f64::from(i))])
            })
            .collect(),
    );
    let (_, read) = proportional(|rt| function(rt, "fromEntries", std::slice::from_ref(&pairs)));
    assert!(read >= 3000 * 2000, "{read}");
    stops_within_budget(10_000, |rt| function(rt, "fromEntries", &[pairs]));
}

#[test]
fn replace_pays_for_every_occurrence() {
    // `"x".repeat(n).replace("x", "")` finds n occurrences and produces
    // nothing: it was charged for the scan alone (n / 16), 14 times less
    // per unit of work than an ordinary run.
    let s = Value::from("x".repeat(100_000));
    let mut rt = TestRuntime::default();
    let out = method(&mut rt, &s, "replace", &[Value::from("x"), Value::from("")]).unwrap();
    assert_eq!(out, Value::from(""));
    assert!(rt.fuel_used >= 100_000, "{}", rt.fuel_used);
    let mut rt = limited(10_000);
    let e = method(&mut rt, &s, "replace", &[Value::from("x"), Value::from("")]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Fuel);
    // The empty pattern: an occurrence between every two characters.
    let mut rt = TestRuntime::default();
    method(&mut rt, &s, "replace", &[Value::from(""), Value::from("")]).unwrap();
    assert!(rt.fuel_used >= 100_001, "{}", rt.fuel_used);
    // No occurrence: the scan only.
    let mut rt = TestRuntime::default();
    method(&mut rt, &s, "replace", &[Value::from("y"), Value::from("")]).unwrap();
    assert!(rt.fuel_used <= 2 + 100_001 / 16, "{}", rt.fuel_used);
}

#[test]
fn split_pays_for_every_piece() {
    let s = Value::from("x,".repeat(10_000));
    let mut rt = TestRuntime::default();
    let out = method(&mut rt, &s, "split", &[Value::from(",")]).unwrap();
    assert_eq!(out.as_array().map(|a| a.len()), Some(10_001));
    assert!(rt.fuel_used >= 3 * 10_001, "{}", rt.fuel_used);
}
