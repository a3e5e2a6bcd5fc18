//! Date and time functions (spec "Date/Time Functions (v0.3)").
//!
//! A date is a number: UTC epoch milliseconds. Valid dates are whole or
//! fractional numbers within JavaScript's range, `-8.64e15 ..= 8.64e15`
//! milliseconds (about 271,821 BCE to 275,760 CE); any other number is
//! `Date out of range`. A fractional input is truncated toward zero first,
//! as JavaScript's `new Date(x)` does (`year(-0.5)` is 1970). Every result
//! is a whole number.
//!
//! Civil (calendar) fields are computed here with proleptic Gregorian
//! day arithmetic (exact over the whole range); text is read and written
//! in the submodule `date_text.rs`. `dateAdd` of months and years is done
//! on civil fields with JavaScript `Date` overflow: Jan 31 + 1 month is
//! Mar 2 in a leap year, Feb 29 + 1 year is Mar 1, and the time of day is
//! kept.
//!
//! Arguments are checked as the Python reference checks them: the types of
//! all of them first, then the unit's name, then the dates' range; error
//! texts contain the reference's words (`year expects number (epoch ms)`,
//! `dateAdd amount must be number`, `invalid unit "weeks" for dateAdd`)
//! followed by ours (`, got null`).
//!
//! # Fuel
//! Every function costs 1 fuel; `parseDate` also `bytes / 16` of its text,
//! and a custom format (`parseDate`'s second argument, `formatDate`'s) one
//! per byte, charged before the format is read. A format is expanded token
//! by token as it is read, never into a list. `formatDate` computes its
//! result's length first, then charges `bytes / 16` fuel and the bytes of
//! memory, then builds the string.

use super::FunctionDef;
use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

mod text;

pub use text::{format_ms, formatted_len, parse_iso, parse_with_format};

/// The largest date magnitude, in epoch milliseconds (JavaScript's
/// `Date` range: 100,000,000 days either side of the epoch).
pub const MAX_EPOCH_MS: i64 = 8_640_000_000_000_000;

const MS_PER_SECOND: i64 = 1_000;
const MS_PER_MINUTE: i64 = 60 * MS_PER_SECOND;
const MS_PER_HOUR: i64 = 60 * MS_PER_MINUTE;
const MS_PER_DAY: i64 = 24 * MS_PER_HOUR;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "now",
        arity: Arity::Exact(0),
        call: fn_now,
    },
    FunctionDef {
        name: "parseDate",
        arity: Arity::Range(1, 2),
        call: fn_parse_date,
    },
    FunctionDef {
        name: "formatDate",
        arity: Arity::Exact(2),
        call: fn_format_date,
    },
    FunctionDef {
        name: "year",
        arity: Arity::Exact(1),
        call: fn_year,
    },
    FunctionDef {
        name: "month",
        arity: Arity::Exact(1),
        call: fn_month,
    },
    FunctionDef {
        name: "day",
        arity: Arity::Exact(1),
        call: fn_day,
    },
    FunctionDef {
        name: "hour",
        arity: Arity::Exact(1),
        call: fn_hour,
    },
    FunctionDef {
        name: "minute",
        arity: Arity::Exact(1),
        call: fn_minute,
    },
    FunctionDef {
        name: "second",
        arity: Arity::Exact(1),
        call: fn_second,
    },
    FunctionDef {
        name: "millisecond",
        arity: Arity::Exact(1),
        call: fn_millisecond,
    },
    FunctionDef {
        name: "dateAdd",
        arity: Arity::Exact(3),
        call: fn_date_add,
    },
    FunctionDef {
        name: "dateDiff",
        arity: Arity::Exact(3),
        call: fn_date_diff,
    },
];

// ------------------------------------------------------- civil arithmetic

/// Days since 1970-01-01 of a proleptic Gregorian date (`month` 1..=12,
/// `day` may exceed the month's length: it then runs into the next months).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian `(year, month 1..=12, day 1..=31)` of a day
/// count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether `year` is a Gregorian leap year.
fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1..=12) of `year`.
fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The UTC calendar fields of an epoch-millisecond instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year (astronomical: 0 is 1 BCE).
    pub year: i64,
    /// Month 1..=12.
    pub month: i64,
    /// Day of the month 1..=31.
    pub day: i64,
    /// Milliseconds since midnight, 0..86,400,000.
    pub time_ms: i64,
}

impl Civil {
    /// The fields of `ms` (epoch milliseconds).
    pub fn from_ms(ms: i64) -> Civil {
        let (year, month, day) = civil_from_days(ms.div_euclid(MS_PER_DAY));
        Civil {
            year,
            month,
            day,
            time_ms: ms.rem_euclid(MS_PER_DAY),
        }
    }

    /// Hour 0..=23.
    pub fn hour(&self) -> i64 {
        self.time_ms / MS_PER_HOUR
    }

    /// Minute 0..=59.
    pub fn minute(&self) -> i64 {
        self.time_ms / MS_PER_MINUTE % 60
    }

    /// Second 0..=59.
    pub fn second(&self) -> i64 {
        self.time_ms / MS_PER_SECOND % 60
    }

    /// Millisecond 0..=999.
    pub fn millisecond(&self) -> i64 {
        self.time_ms % MS_PER_SECOND
    }
}

// ------------------------------------------------------------- arguments

fn out_of_range() -> Error {
    Error::new(ErrorKind::Date, "Date out of range")
}

/// Checks an epoch-millisecond value computed in wide arithmetic.
fn in_range(ms: i128) -> Result<i64, Error> {
    if ms.unsigned_abs() > MAX_EPOCH_MS as u128 {
        Err(out_of_range())
    } else {
        i64::try_from(ms).map_err(|_| out_of_range())
    }
}

/// The number of a date argument of `name` (`which`, when given, says
/// which of two dates it is), or a type error; its range is checked by
/// [`clip`] once every argument's type has been.
fn date_number(name: &str, which: Option<&str>, v: &Value) -> Result<f64, Error> {
    match v {
        Value::Number(n) => Ok(*n),
        _ => Err(Error::type_error(format_args!(
            "{name} expects number (epoch ms), got {}{}",
            v.type_name(),
            which.map_or(String::new(), |w| format!(" as the {w} date"))
        ))),
    }
}

/// A date's epoch milliseconds: truncated toward zero, within range.
fn clip(n: f64) -> Result<i64, Error> {
    let t = n.trunc();
    if !t.is_finite() || t.abs() > MAX_EPOCH_MS as f64 {
        return Err(out_of_range());
    }
    // In range, so exact and within i64.
    Ok(t as i64)
}

/// A string argument of `name`: `NAME expects string` for the first one
/// (`what` = `None`), `NAME WHAT must be string` for the others.
fn str_arg<'v>(name: &str, what: Option<&str>, v: &'v Value) -> Result<&'v str, Error> {
    v.as_str().ok_or_else(|| match what {
        None => Error::type_error(format_args!("{name} expects string, got {}", v.type_name())),
        Some(what) => Error::type_error(format_args!(
            "{name} {what} must be string, got {}",
            v.type_name()
        )),
    })
}

/// A unit of `dateAdd` / `dateDiff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Years,
    Months,
    Fixed(i64),
}

fn unit_arg(name: &str, v: &Value) -> Result<Unit, Error> {
    let s = str_arg(name, Some("unit"), v)?;
    Ok(match s {
        "years" => Unit::Years,
        "months" => Unit::Months,
        "days" => Unit::Fixed(MS_PER_DAY),
        "hours" => Unit::Fixed(MS_PER_HOUR),
        "minutes" => Unit::Fixed(MS_PER_MINUTE),
        "seconds" => Unit::Fixed(MS_PER_SECOND),
        "milliseconds" => Unit::Fixed(1),
        _ => {
            let shown: String = s.chars().take(40).collect();
            return Err(Error::new(
                ErrorKind::Date,
                format!(
                    "invalid unit \"{shown}\" for {name}, expected years, months, days, hours, minutes, seconds or milliseconds"
                ),
            ));
        }
    })
}

fn text_fuel(s: &str) -> u64 {
    1 + s.len() as u64 / 16
}

/// Fuel for expanding a custom format, charged before it is read: one per
/// byte. A format is read token by token (and `formatDate` reads it
/// twice: once to size its result, whose memory is charged before it is
/// built, once to write it); a token costs far more than scanning its
/// bytes of plain text does (16 bytes per fuel).
fn format_fuel(format: &str) -> u64 {
    1 + format.len() as u64
}

// ------------------------------------------------------------ arithmetic

/// `date + amount unit`, months and years with JavaScript overflow (see the
/// module documentation). `amount` is already truncated.
///
/// # Errors
/// `Date out of range`.
fn add(ms: i64, amount: i64, unit_ms: Option<i64>, months_per_unit: i64) -> Result<i64, Error> {
    match unit_ms {
        Some(factor) => in_range(i128::from(ms) + i128::from(amount) * i128::from(factor)),
        None => {
            let c = Civil::from_ms(ms);
            let total = i128::from(c.year) * 12
                + i128::from(c.month - 1)
                + i128::from(amount) * i128::from(months_per_unit);
            // Far beyond the range: stop before the day arithmetic could overflow.
            if total.unsigned_abs() > 12 * 400_000 {
                return Err(out_of_range());
            }
            let (year, month0) = (total.div_euclid(12) as i64, total.rem_euclid(12) as i64);
            let days = days_from_civil(year, month0 + 1, 1) + c.day - 1;
            in_range(i128::from(days) * i128::from(MS_PER_DAY) + i128::from(c.time_ms))
        }
    }
}

/// Whole calendar months from `a` to `b` when `a <= b`: the month count,
/// less one when `b`'s day and time of day come before `a`'s.
fn whole_months(a: i64, b: i64) -> i64 {
    let (ca, cb) = (Civil::from_ms(a), Civil::from_ms(b));
    let months = (cb.year * 12 + cb.month) - (ca.year * 12 + ca.month);
    if (cb.day, cb.time_ms) < (ca.day, ca.time_ms) {
        months - 1
    } else {
        months
    }
}

/// `date2 - date1` in `unit`, truncated toward zero; months count whole
/// calendar months elapsed, years are months / 12.
fn diff(d1: i64, d2: i64, unit: Option<i64>, months_per_unit: i64) -> i64 {
    match unit {
        Some(factor) => (d2 - d1) / factor,
        None => {
            let months = if d1 <= d2 {
                whole_months(d1, d2)
            } else {
                -whole_months(d2, d1)
            };
            months / months_per_unit
        }
    }
}

// ------------------------------------------------------------ built-ins

fn fn_now(rt: &mut dyn Runtime, _: &[Value]) -> Result<Value, Error> {
    rt.fuel(1)?;
    rt.now().map(Value::Number)
}

fn fn_parse_date(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let text = str_arg("parseDate", None, args.first().unwrap_or(&Value::Null))?;
    rt.fuel(text_fuel(text))?;
    let ms = match args.get(1) {
        None => parse_iso(text)?,
        Some(f) => {
            let format = str_arg("parseDate", Some("format"), f)?;
            rt.fuel(format_fuel(format))?;
            parse_with_format(text, format)?
        }
    };
    Ok(Value::Number(ms as f64))
}

fn fn_format_date(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let date = date_number("formatDate", None, args.first().unwrap_or(&Value::Null))?;
    let format = str_arg(
        "formatDate",
        Some("format"),
        args.get(1).unwrap_or(&Value::Null),
    )?;
    rt.fuel(format_fuel(format))?;
    let ms = clip(date)?;
    let len = formatted_len(ms, format) as u64;
    rt.fuel(len / crate::format::BYTES_PER_FUEL)?;
    rt.alloc(len)?;
    Ok(Value::from(format_ms(ms, format)))
}

fn field(
    rt: &mut dyn Runtime,
    name: &str,
    args: &[Value],
    get: fn(&Civil) -> i64,
) -> Result<Value, Error> {
    rt.fuel(1)?;
    let ms = clip(date_number(
        name,
        None,
        args.first().unwrap_or(&Value::Null),
    )?)?;
    Ok(Value::Number(get(&Civil::from_ms(ms)) as f64))
}

fn fn_year(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "year", args, |c| c.year)
}

fn fn_month(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "month", args, |c| c.month)
}

fn fn_day(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "day", args, |c| c.day)
}

fn fn_hour(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "hour", args, Civil::hour)
}

fn fn_minute(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "minute", args, Civil::minute)
}

fn fn_second(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "second", args, Civil::second)
}

fn fn_millisecond(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "millisecond", args, Civil::millisecond)
}

/// Splits a unit into (fixed milliseconds, months per unit).
fn unit_parts(unit: Unit) -> (Option<i64>, i64) {
    match unit {
        Unit::Years => (None, 12),
        Unit::Months => (None, 1),
        Unit::Fixed(ms) => (Some(ms), 1),
    }
}

fn fn_date_add(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    rt.fuel(1)?;
    let [date, amount, unit] = args else {
        return Err(Error::new(
            ErrorKind::Arity,
            "Wrong number of arguments for 'dateAdd'",
        ));
    };
    let date = date_number("dateAdd", None, date)?;
    let Value::Number(n) = amount else {
        return Err(Error::type_error(format_args!(
            "dateAdd amount must be number, got {}",
            amount.type_name()
        )));
    };
    let unit = unit_arg("dateAdd", unit)?;
    let ms = clip(date)?;
    let t = n.trunc();
    // Beyond 2 * 8.64e15 milliseconds no unit can stay in range.
    if t.abs() > 2.0 * MAX_EPOCH_MS as f64 {
        return Err(out_of_range());
    }
    let (fixed, months) = unit_parts(unit);
    add(ms, t as i64, fixed, months).map(|r| Value::Number(r as f64))
}

fn fn_date_diff(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    rt.fuel(1)?;
    let [d1, d2, unit] = args else {
        return Err(Error::new(
            ErrorKind::Arity,
            "Wrong number of arguments for 'dateDiff'",
        ));
    };
    let d1 = date_number("dateDiff", Some("first"), d1)?;
    let d2 = date_number("dateDiff", Some("second"), d2)?;
    let (fixed, months) = unit_parts(unit_arg("dateDiff", unit)?);
    let (d1, d2) = (clip(d1)?, clip(d2)?);
    Ok(Value::Number(diff(d1, d2, fixed, months) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;

    pub(super) fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
        let mut rt = TestRuntime {
            now_ms: 1_710_000_000_000.0,
            ..TestRuntime::default()
        };
        let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
        crate::stdlib::call_function(&mut rt, id, args)
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

    pub(super) fn fmt(ms: f64) -> String {
        match call("formatDate", &[n(ms), s("yyyy-MM-dd HH:mm:ss.SSS")]) {
            Ok(Value::String(t)) => t.to_string(),
            other => panic!("{other:?}"),
        }
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

    #[test]
    fn field_extractors() {
        let t = n(1_718_447_445_123.0); // 2024-06-15T10:30:45.123Z
        assert_eq!(num("year", std::slice::from_ref(&t)), 2024.0);
        assert_eq!(num("month", std::slice::from_ref(&t)), 6.0);
        assert_eq!(num("day", std::slice::from_ref(&t)), 15.0);
        assert_eq!(num("hour", std::slice::from_ref(&t)), 10.0);
        assert_eq!(num("minute", std::slice::from_ref(&t)), 30.0);
        assert_eq!(num("second", std::slice::from_ref(&t)), 45.0);
        assert_eq!(num("millisecond", &[t]), 123.0);
        // The millisecond before the epoch.
        let m1 = n(-1.0);
        let parts: Vec<f64> = [
            "year",
            "month",
            "day",
            "hour",
            "minute",
            "second",
            "millisecond",
        ]
        .iter()
        .map(|f| num(f, std::slice::from_ref(&m1)))
        .collect();
        assert_eq!(parts, vec![1969.0, 12.0, 31.0, 23.0, 59.0, 59.0, 999.0]);
        // Fractions truncate toward zero: -0.5 is the epoch itself.
        assert_eq!(num("year", &[n(-0.5)]), 1970.0);
        assert_eq!(num("millisecond", &[n(1.9)]), 1.0);
        assert_eq!(num("year", &[n(8.64e15)]), 275_760.0);
        for f in [
            "year",
            "month",
            "day",
            "hour",
            "minute",
            "second",
            "millisecond",
        ] {
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
        for f in [
            "year",
            "month",
            "day",
            "hour",
            "minute",
            "second",
            "millisecond",
        ] {
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
        assert_eq!(
            err("dateAdd", &[n(1e300), s("1"), s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateAdd", &[n(1e300), n(1.0), n(1.0)]).kind(),
            ErrorKind::Type
        );
        assert!(msg("dateAdd", &[n(1e300), n(1.0), s("weeks")]).starts_with("invalid unit"));
        assert_eq!(
            msg("dateAdd", &[n(1e300), n(1.0), s("days")]),
            "Date out of range"
        );
        assert_eq!(
            err("dateDiff", &[n(1e300), s("x"), s("days")]).kind(),
            ErrorKind::Type
        );
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
        assert_eq!(add_iso(base, 7.0, "days"), "2024-01-22 12:00:00.000");
        assert_eq!(add_iso(base, -7.0, "days"), "2024-01-08 12:00:00.000");
        assert_eq!(add_iso(base, 3.0, "hours"), "2024-01-15 15:00:00.000");
        assert_eq!(add_iso(base, 90.0, "minutes"), "2024-01-15 13:30:00.000");
        assert_eq!(add_iso(base, 61.0, "seconds"), "2024-01-15 12:01:01.000");
        assert_eq!(
            add_iso(base, 1000.0, "milliseconds"),
            "2024-01-15 12:00:01.000"
        );
        assert_eq!(add_iso(base, 1.7, "days"), "2024-01-16 12:00:00.000");
        assert_eq!(add_iso(base, -1.7, "days"), "2024-01-14 12:00:00.000");
        assert_eq!(add_iso(base, 0.9, "years"), "2024-01-15 12:00:00.000");
        assert_eq!(
            add_iso("1970-01-01", -1.0, "milliseconds"),
            "1969-12-31 23:59:59.999"
        );
    }

    #[test]
    fn date_add_months_overflow_like_js() {
        assert_eq!(
            add_iso("2024-01-31T00:00:00Z", 1.0, "months"),
            "2024-03-02 00:00:00.000"
        );
        assert_eq!(
            add_iso("2023-01-31T00:00:00Z", 1.0, "months"),
            "2023-03-03 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-02-29T00:00:00Z", 1.0, "years"),
            "2025-03-01 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-02-29T00:00:00Z", 4.0, "years"),
            "2028-02-29 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-02-29T00:00:00Z", -1.0, "years"),
            "2023-03-01 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-03-31T10:20:30.456Z", -1.0, "months"),
            "2024-03-02 10:20:30.456"
        );
        assert_eq!(
            add_iso("2024-01-15T00:00:00Z", 1.0, "months"),
            "2024-02-15 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-01-15T00:00:00Z", 1.0, "years"),
            "2025-01-15 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-11-30T23:00:00Z", 3.0, "months"),
            "2025-03-02 23:00:00.000"
        );
        assert_eq!(
            add_iso("2024-05-31", 13.0, "months"),
            "2025-07-01 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-01-15", -13.0, "months"),
            "2022-12-15 00:00:00.000"
        );
        assert_eq!(
            add_iso("2024-01-15", 2.5, "months"),
            "2024-03-15 00:00:00.000"
        );
        // Before the epoch.
        assert_eq!(
            add_iso("1969-12-31T23:59:59.999Z", 1.0, "months"),
            "1970-01-31 23:59:59.999"
        );
        assert_eq!(
            add_iso("1900-01-31", 1.0, "months"),
            "1900-03-03 00:00:00.000"
        );
        assert_eq!(
            add_iso("2000-01-31", 1.0, "months"),
            "2000-03-02 00:00:00.000"
        );
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
        assert_eq!(
            err("dateAdd", &[s("x"), n(1.0), s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateAdd", &[n(0.0), s("1"), s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateAdd", &[n(0.0), Value::Null, s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateAdd", &[n(0.0), n(1.0), n(1.0)]).kind(),
            ErrorKind::Type
        );
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
        assert_eq!(
            err("dateAdd", &[n(9e15), n(0.0), s("days")]).message(),
            "Date out of range"
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
        assert_eq!(
            diff_iso("2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z", "days"),
            0.0
        );
        assert_eq!(
            diff_iso("2024-01-01T23:59:59Z", "2024-01-01T00:00:00Z", "days"),
            0.0
        );
        assert_eq!(
            diff_iso("2024-01-01T00:00:00Z", "2024-01-02T12:00:00Z", "days"),
            1.0
        );
        assert_eq!(
            diff_iso("2024-01-02T12:00:00Z", "2024-01-01T00:00:00Z", "days"),
            -1.0
        );
        assert_eq!(num("dateDiff", &[n(0.0), n(-1.0), s("seconds")]), 0.0);
        assert_eq!(num("dateDiff", &[n(0.0), n(-1999.0), s("seconds")]), -1.0);
    }

    #[test]
    fn date_diff_calendar_months() {
        assert_eq!(diff_iso("2024-01-01", "2024-02-01", "months"), 1.0);
        assert_eq!(diff_iso("2024-01-15", "2024-02-14", "months"), 0.0);
        assert_eq!(diff_iso("2024-01-15", "2024-02-15", "months"), 1.0);
        assert_eq!(diff_iso("2024-02-14", "2024-01-15", "months"), 0.0);
        assert_eq!(diff_iso("2024-02-15", "2024-01-15", "months"), -1.0);
        assert_eq!(
            diff_iso("2024-01-15T12:00:00Z", "2024-02-15T11:59:59Z", "months"),
            0.0
        );
        assert_eq!(diff_iso("2024-01-31", "2024-02-29", "months"), 0.0);
        assert_eq!(diff_iso("2024-01-31", "2024-03-31", "months"), 2.0);
        assert_eq!(diff_iso("2023-12-31", "2024-01-01", "months"), 0.0);
        assert_eq!(diff_iso("1969-06-15", "1970-06-15", "months"), 12.0);
        assert_eq!(diff_iso("2024-01-01", "2025-01-01", "years"), 1.0);
        assert_eq!(diff_iso("2024-01-02", "2025-01-01", "years"), 0.0);
        assert_eq!(diff_iso("2024-02-29", "2025-02-28", "years"), 0.0);
        assert_eq!(diff_iso("2024-02-29", "2028-02-29", "years"), 4.0);
        assert_eq!(diff_iso("2025-01-01", "2024-01-02", "years"), 0.0);
        assert_eq!(diff_iso("2030-06-01", "2024-01-01", "years"), -6.0);
        assert_eq!(
            num("dateDiff", &[n(-8.64e15), n(8.64e15), s("years")]),
            547_581.0
        );
    }

    #[test]
    fn date_diff_errors() {
        let e = err("dateDiff", &[n(0.0), n(0.0), s("weeks")]);
        assert!(e.message().contains("invalid unit"));
        assert_eq!(
            err("dateDiff", &[s("x"), n(0.0), s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateDiff", &[n(0.0), Value::Null, s("days")]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateDiff", &[n(0.0), n(0.0), Value::Null]).kind(),
            ErrorKind::Type
        );
        assert_eq!(
            err("dateDiff", &[n(0.0), n(1e16), s("days")]).message(),
            "Date out of range"
        );
        let e = err("dateDiff", &[n(0.0)]);
        assert_eq!(
            e.message(),
            "Wrong number of arguments for 'dateDiff': expected 3, got 1"
        );
        let e = err("parseDate", &[]);
        assert_eq!(
            e.message(),
            "Wrong number of arguments for 'parseDate': expected 1 to 2, got 0"
        );
    }
}
