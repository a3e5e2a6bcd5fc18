//! Unit tests of the date built-ins and the calendar arithmetic, and the
//! helpers the tests of dates as text (`text_tests`) share.

use super::calendar::days_in_month;
use super::*;
use crate::error::{Error, ErrorKind};
use crate::stdlib::testing::TestRuntime;
use crate::value::Value;

/// Calls the built-in `name` with `args` on `rt`.
pub(super) fn run(rt: &mut TestRuntime, name: &str, args: &[Value]) -> Result<Value, Error> {
    let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
    crate::stdlib::call_function(rt, id, args)
}

pub(super) fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
    let mut rt = TestRuntime {
        now_ms: 1_710_000_000_000.0,
        ..TestRuntime::default()
    };
    run(&mut rt, name, args)
}

pub(super) fn num(name: &str, args: &[Value]) -> f64 {
    match call(name, args) {
        Ok(Value::Number(n)) => n,
        other => panic!("{name}: {other:?}"),
    }
}

pub(super) fn n(x: f64) -> Value {
    Value::Number(x)
}

pub(super) fn s(x: &str) -> Value {
    Value::from(x)
}

pub(super) fn iso(text: &str) -> f64 {
    num("parseDate", &[s(text)])
}

pub(super) fn err(name: &str, args: &[Value]) -> Error {
    match call(name, args) {
        Err(e) => e,
        Ok(v) => panic!("{name} should fail, got {v:?}"),
    }
}

/// `formatDate(ms, pattern)`.
pub(super) fn formatted(ms: f64, pattern: &str) -> String {
    match call("formatDate", &[n(ms), s(pattern)]) {
        Ok(Value::String(t)) => t.to_string(),
        other => panic!("{other:?}"),
    }
}

/// `ms` formatted with every token: `yyyy-MM-dd HH:mm:ss.SSS`.
pub(super) fn fmt(ms: f64) -> String {
    formatted(ms, "yyyy-MM-dd HH:mm:ss.SSS")
}

/// Asserts that `name(args)` fails with the message `want`.
pub(super) fn says(name: &str, args: &[Value], want: &str) {
    assert_eq!(err(name, args).message(), want);
}

#[test]
fn civil_round_trip() {
    for days in (-100_000_000..=100_000_000).step_by(9_973) {
        let (y, m, d) = civil_from_days(days);
        assert!((1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d));
        assert_eq!(days_from_civil(y, m, d), days);
    }
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(-1), (1969, 12, 31));
    assert_eq!(days_from_civil(2000, 2, 29), 11_016);
    assert_eq!(civil_from_days(100_000_000), (275_760, 9, 13));
    assert_eq!(civil_from_days(-100_000_000), (-271_821, 4, 20));
}

#[test]
fn now_reads_the_runtime_clock() {
    assert_eq!(num("now", &[]), 1_710_000_000_000.0);
}

/// The field extractors, in the order of their results below.
const FIELDS: [&str; 7] = [
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "millisecond",
];

/// Asserts that `name(args)` fails with a type error.
fn type_error(name: &str, args: &[Value]) {
    assert_eq!(err(name, args).kind(), ErrorKind::Type, "{name} {args:?}");
}

#[test]
fn field_extractors() {
    let fields = |t: &Value| -> Vec<f64> {
        FIELDS
            .iter()
            .map(|f| num(f, std::slice::from_ref(t)))
            .collect()
    };
    // 2024-06-15T10:30:45.123Z
    let t = n(1_718_447_445_123.0);
    assert_eq!(fields(&t), vec![2024.0, 6.0, 15.0, 10.0, 30.0, 45.0, 123.0]);
    // The millisecond before the epoch.
    let m1 = n(-1.0);
    assert_eq!(
        fields(&m1),
        vec![1969.0, 12.0, 31.0, 23.0, 59.0, 59.0, 999.0]
    );
    // Fractions truncate toward zero: -0.5 is the epoch itself.
    assert_eq!(num("year", &[n(-0.5)]), 1970.0);
    assert_eq!(num("millisecond", &[n(1.9)]), 1.0);
    assert_eq!(num("year", &[n(8.64e15)]), 275_760.0);
    for f in FIELDS {
        for bad in [
            Value::Null,
            s("2024"),
            Value::Bool(true),
            Value::array(vec![]),
        ] {
            let e = err(f, &[bad]);
            assert_eq!(e.kind(), ErrorKind::Type, "{f}");
            assert!(e.message().starts_with("Type error: "));
        }
        let e = err(f, &[n(8.64e15 + 1.0)]);
        assert_eq!(e.message(), "Date out of range");
        let e = err(f, &[n(-1e300)]);
        assert_eq!(e.kind(), ErrorKind::Date);
    }
}

#[test]
fn argument_errors_use_the_reference_words() {
    // The Python reference's words, then ours.
    let msg = |name: &str, args: &[Value]| err(name, args).message().to_string();
    for f in FIELDS {
        assert_eq!(
            msg(f, &[Value::Null]),
            format!("Type error: {f} expects number (epoch ms), got null")
        );
    }
    assert_eq!(
        msg("dateAdd", &[s("x"), n(1.0), s("days")]),
        "Type error: dateAdd expects number (epoch ms), got string"
    );
    assert_eq!(
        msg("dateAdd", &[n(0.0), Value::Null, s("days")]),
        "Type error: dateAdd amount must be number, got null"
    );
    assert_eq!(
        msg("dateAdd", &[n(0.0), n(1.0), n(5.0)]),
        "Type error: dateAdd unit must be string, got number"
    );
    assert_eq!(
        msg("dateAdd", &[n(0.0), n(1.0), s("weeks")]),
        "invalid unit \"weeks\" for dateAdd, expected years, months, days, hours, minutes, seconds or milliseconds"
    );
    assert_eq!(
        msg("dateDiff", &[Value::Bool(true), n(0.0), s("days")]),
        "Type error: dateDiff expects number (epoch ms), got boolean as the first date"
    );
    assert_eq!(
        msg("dateDiff", &[n(0.0), s("2024"), s("days")]),
        "Type error: dateDiff expects number (epoch ms), got string as the second date"
    );
    assert_eq!(
        msg("dateDiff", &[n(0.0), n(0.0), Value::Null]),
        "Type error: dateDiff unit must be string, got null"
    );
    assert!(
        msg("dateDiff", &[n(0.0), n(0.0), s("Days")])
            .starts_with("invalid unit \"Days\" for dateDiff, ")
    );
    // Every type first, then the unit's name, then the range.
    type_error("dateAdd", &[n(1e300), s("1"), s("days")]);
    type_error("dateAdd", &[n(1e300), n(1.0), n(1.0)]);
    assert!(msg("dateAdd", &[n(1e300), n(1.0), s("weeks")]).starts_with("invalid unit"));
    assert_eq!(
        msg("dateAdd", &[n(1e300), n(1.0), s("days")]),
        "Date out of range"
    );
    type_error("dateDiff", &[n(1e300), s("x"), s("days")]);
    assert!(msg("dateDiff", &[n(1e300), n(0.0), s("weeks")]).starts_with("invalid unit"));
    assert_eq!(
        msg("dateDiff", &[n(0.0), n(-1e300), s("days")]),
        "Date out of range"
    );
}

fn add_iso(start: &str, amount: f64, unit: &str) -> String {
    match call("dateAdd", &[n(iso(start)), n(amount), s(unit)]) {
        Ok(Value::Number(ms)) => fmt(ms),
        other => panic!("{other:?}"),
    }
}

#[test]
fn date_add_fixed_units() {
    let base = "2024-01-15T12:00:00Z";
    for (amount, unit, want) in [
        (7.0, "days", "2024-01-22 12:00:00.000"),
        (-7.0, "days", "2024-01-08 12:00:00.000"),
        (3.0, "hours", "2024-01-15 15:00:00.000"),
        (90.0, "minutes", "2024-01-15 13:30:00.000"),
        (61.0, "seconds", "2024-01-15 12:01:01.000"),
        (1000.0, "milliseconds", "2024-01-15 12:00:01.000"),
        (1.7, "days", "2024-01-16 12:00:00.000"),
        (-1.7, "days", "2024-01-14 12:00:00.000"),
        (0.9, "years", "2024-01-15 12:00:00.000"),
    ] {
        assert_eq!(add_iso(base, amount, unit), want, "{amount} {unit}");
    }
    assert_eq!(
        add_iso("1970-01-01", -1.0, "milliseconds"),
        "1969-12-31 23:59:59.999"
    );
}

#[test]
fn date_add_months_overflow_like_js() {
    for (start, amount, unit, want) in [
        (
            "2024-01-31T00:00:00Z",
            1.0,
            "months",
            "2024-03-02 00:00:00.000",
        ),
        (
            "2023-01-31T00:00:00Z",
            1.0,
            "months",
            "2023-03-03 00:00:00.000",
        ),
        (
            "2024-02-29T00:00:00Z",
            1.0,
            "years",
            "2025-03-01 00:00:00.000",
        ),
        (
            "2024-02-29T00:00:00Z",
            4.0,
            "years",
            "2028-02-29 00:00:00.000",
        ),
        (
            "2024-02-29T00:00:00Z",
            -1.0,
            "years",
            "2023-03-01 00:00:00.000",
        ),
        (
            "2024-03-31T10:20:30.456Z",
            -1.0,
            "months",
            "2024-03-02 10:20:30.456",
        ),
        (
            "2024-01-15T00:00:00Z",
            1.0,
            "months",
            "2024-02-15 00:00:00.000",
        ),
        (
            "2024-01-15T00:00:00Z",
            1.0,
            "years",
            "2025-01-15 00:00:00.000",
        ),
        (
            "2024-11-30T23:00:00Z",
            3.0,
            "months",
            "2025-03-02 23:00:00.000",
        ),
        ("2024-05-31", 13.0, "months", "2025-07-01 00:00:00.000"),
        ("2024-01-15", -13.0, "months", "2022-12-15 00:00:00.000"),
        ("2024-01-15", 2.5, "months", "2024-03-15 00:00:00.000"),
        // Before the epoch.
        (
            "1969-12-31T23:59:59.999Z",
            1.0,
            "months",
            "1970-01-31 23:59:59.999",
        ),
        ("1900-01-31", 1.0, "months", "1900-03-03 00:00:00.000"),
        ("2000-01-31", 1.0, "months", "2000-03-02 00:00:00.000"),
    ] {
        assert_eq!(
            add_iso(start, amount, unit),
            want,
            "{start} {amount} {unit}"
        );
    }
}

#[test]
fn date_add_errors() {
    let e = err("dateAdd", &[n(0.0), n(1.0), s("weeks")]);
    assert_eq!(e.kind(), ErrorKind::Date);
    assert!(
        e.message().contains("invalid unit \"weeks\""),
        "{}",
        e.message()
    );
    for unit in ["Days", "day", "", "ms"] {
        assert!(
            err("dateAdd", &[n(0.0), n(1.0), s(unit)])
                .message()
                .contains("invalid unit")
        );
    }
    type_error("dateAdd", &[s("x"), n(1.0), s("days")]);
    type_error("dateAdd", &[n(0.0), s("1"), s("days")]);
    type_error("dateAdd", &[n(0.0), Value::Null, s("days")]);
    type_error("dateAdd", &[n(0.0), n(1.0), n(1.0)]);
    for (amount, unit) in [
        (1e8 + 1.0, "days"),
        (-1e300, "years"),
        (1e300, "milliseconds"),
        (300_000.0, "years"),
        (1e16, "months"),
        (1.0, "milliseconds"),
    ] {
        let e = err("dateAdd", &[n(8.64e15), n(amount), s(unit)]);
        assert_eq!(e.message(), "Date out of range", "{amount} {unit}");
    }
    assert_eq!(
        num("dateAdd", &[n(8.64e15), n(-1.0), s("milliseconds")]),
        8.64e15 - 1.0
    );
    assert_eq!(num("dateAdd", &[n(-8.64e15), n(1e8), s("days")]), 0.0);
    says(
        "dateAdd",
        &[n(9e15), n(0.0), s("days")],
        "Date out of range",
    );
}

fn diff_iso(a: &str, b: &str, unit: &str) -> f64 {
    num("dateDiff", &[n(iso(a)), n(iso(b)), s(unit)])
}

#[test]
fn date_diff_units() {
    let (a, b) = ("2024-01-01T00:00:00Z", "2024-01-08T00:00:00Z");
    assert_eq!(diff_iso(a, b, "days"), 7.0);
    assert_eq!(diff_iso(b, a, "days"), -7.0);
    assert_eq!(diff_iso(a, a, "days"), 0.0);
    assert_eq!(diff_iso(a, b, "hours"), 168.0);
    assert_eq!(diff_iso(a, b, "minutes"), 10_080.0);
    assert_eq!(diff_iso(a, b, "seconds"), 604_800.0);
    assert_eq!(diff_iso(a, b, "milliseconds"), 604_800_000.0);
    // Truncation toward zero, both signs.
    for (from, to, want) in [
        ("2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z", 0.0),
        ("2024-01-01T23:59:59Z", "2024-01-01T00:00:00Z", 0.0),
        ("2024-01-01T00:00:00Z", "2024-01-02T12:00:00Z", 1.0),
        ("2024-01-02T12:00:00Z", "2024-01-01T00:00:00Z", -1.0),
    ] {
        assert_eq!(diff_iso(from, to, "days"), want, "{from} {to}");
    }
    assert_eq!(num("dateDiff", &[n(0.0), n(-1.0), s("seconds")]), 0.0);
    assert_eq!(num("dateDiff", &[n(0.0), n(-1999.0), s("seconds")]), -1.0);
}

#[test]
fn date_diff_calendar_months() {
    for (from, to, unit, want) in [
        ("2024-01-01", "2024-02-01", "months", 1.0),
        ("2024-01-15", "2024-02-14", "months", 0.0),
        ("2024-01-15", "2024-02-15", "months", 1.0),
        ("2024-02-14", "2024-01-15", "months", 0.0),
        ("2024-02-15", "2024-01-15", "months", -1.0),
        (
            "2024-01-15T12:00:00Z",
            "2024-02-15T11:59:59Z",
            "months",
            0.0,
        ),
        ("2024-01-31", "2024-02-29", "months", 0.0),
        ("2024-01-31", "2024-03-31", "months", 2.0),
        ("2023-12-31", "2024-01-01", "months", 0.0),
        ("1969-06-15", "1970-06-15", "months", 12.0),
        ("2024-01-01", "2025-01-01", "years", 1.0),
        ("2024-01-02", "2025-01-01", "years", 0.0),
        ("2024-02-29", "2025-02-28", "years", 0.0),
        ("2024-02-29", "2028-02-29", "years", 4.0),
        ("2025-01-01", "2024-01-02", "years", 0.0),
        ("2030-06-01", "2024-01-01", "years", -6.0),
    ] {
        assert_eq!(diff_iso(from, to, unit), want, "{from} {to} {unit}");
    }
    assert_eq!(
        num("dateDiff", &[n(-8.64e15), n(8.64e15), s("years")]),
        547_581.0
    );
}

#[test]
fn date_diff_errors() {
    let e = err("dateDiff", &[n(0.0), n(0.0), s("weeks")]);
    assert!(e.message().contains("invalid unit"));
    type_error("dateDiff", &[s("x"), n(0.0), s("days")]);
    type_error("dateDiff", &[n(0.0), Value::Null, s("days")]);
    type_error("dateDiff", &[n(0.0), n(0.0), Value::Null]);
    says(
        "dateDiff",
        &[n(0.0), n(1e16), s("days")],
        "Date out of range",
    );
    says(
        "dateDiff",
        &[n(0.0)],
        "Wrong number of arguments for 'dateDiff': expected 3, got 1",
    );
    says(
        "parseDate",
        &[],
        "Wrong number of arguments for 'parseDate': expected 1 to 2, got 0",
    );
}
