//! The date built-ins (`now`, `parseDate`, `formatDate`, the field
//! extractors, `dateAdd`, `dateDiff`) and the checks of their arguments.

use super::calendar::{Civil, Unit, add, days_from_civil, diff, out_of_range, unit_parts};
use super::tokens::{check as check_format, weekday};
use super::{
    MAX_EPOCH_MS, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND, format_ms, formatted_len,
    parse_iso, parse_with_format,
};
use crate::error::{Error, ErrorKind};
use crate::runtime::Runtime;
use crate::value::Value;

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

pub(super) fn fn_now(rt: &mut dyn Runtime, _: &[Value]) -> Result<Value, Error> {
    rt.fuel(1)?;
    rt.now().map(Value::Number)
}

pub(super) fn fn_parse_date(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
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

pub(super) fn fn_format_date(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let date = date_number("formatDate", None, args.first().unwrap_or(&Value::Null))?;
    let format = str_arg(
        "formatDate",
        Some("format"),
        args.get(1).unwrap_or(&Value::Null),
    )?;
    rt.fuel(format_fuel(format))?;
    let ms = clip(date)?;
    check_format(format)?;
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

pub(super) fn fn_year(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "year", args, |c| c.year)
}

pub(super) fn fn_month(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "month", args, |c| c.month)
}

pub(super) fn fn_day(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "day", args, |c| c.day)
}

pub(super) fn fn_hour(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "hour", args, Civil::hour)
}

pub(super) fn fn_minute(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "minute", args, Civil::minute)
}

pub(super) fn fn_second(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "second", args, Civil::second)
}

/// `dayOfWeek(date)`: 0 = Sunday ..= 6 = Saturday, UTC, as JavaScript's
/// `getUTCDay()`.
pub(super) fn fn_day_of_week(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "dayOfWeek", args, |c| {
        weekday(days_from_civil(c.year, c.month, c.day)) as i64
    })
}

pub(super) fn fn_millisecond(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    field(rt, "millisecond", args, Civil::millisecond)
}

/// Charges a call's 1 fuel and takes its three arguments (the registry
/// checks their number before the call: a wrong number is unreachable).
fn three_args<'a>(
    rt: &mut dyn Runtime,
    name: &str,
    args: &'a [Value],
) -> Result<[&'a Value; 3], Error> {
    rt.fuel(1)?;
    match args {
        [a, b, c] => Ok([a, b, c]),
        _ => Err(Error::new(
            ErrorKind::Arity,
            format!("Wrong number of arguments for '{name}'"),
        )),
    }
}

pub(super) fn fn_date_add(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [date, amount, unit] = three_args(rt, "dateAdd", args)?;
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

pub(super) fn fn_date_diff(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [d1, d2, unit] = three_args(rt, "dateDiff", args)?;
    let d1 = date_number("dateDiff", Some("first"), d1)?;
    let d2 = date_number("dateDiff", Some("second"), d2)?;
    let (fixed, months) = unit_parts(unit_arg("dateDiff", unit)?);
    let (d1, d2) = (clip(d1)?, clip(d2)?);
    Ok(Value::Number(diff(d1, d2, fixed, months) as f64))
}
