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
//! day arithmetic (exact over the whole range); ISO 8601 text is read by a
//! strict parser of the documented extended forms only (a general ISO 8601
//! parser also takes forms JavaScript rejects: leap seconds, `+25:00`
//! offsets, `20240105`). `dateAdd` of months and years is done on civil fields with
//! JavaScript `Date` overflow: Jan 31 + 1 month is Mar 2 in a leap year,
//! Feb 29 + 1 year is Mar 1, and the time of day is kept.
//!
//! # Fuel
//! Every function costs 1 fuel, plus `bytes / 16` of its string arguments
//! for `parseDate` and `formatDate`. `formatDate` charges its result's bytes
//! of memory before the string value is built.

use super::FunctionDef;
use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

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

/// A date argument: a number, truncated toward zero, within range.
fn date_arg(name: &str, what: &str, v: &Value) -> Result<i64, Error> {
    let Value::Number(n) = v else {
        return Err(Error::type_error(format_args!(
            "{name} expects a number (epoch milliseconds) as {what}, got {}",
            v.type_name()
        )));
    };
    let t = n.trunc();
    if !t.is_finite() || t.abs() > MAX_EPOCH_MS as f64 {
        return Err(out_of_range());
    }
    // In range, so exact and within i64.
    Ok(t as i64)
}

fn str_arg<'v>(name: &str, what: &str, v: &'v Value) -> Result<&'v str, Error> {
    v.as_str().ok_or_else(|| {
        Error::type_error(format_args!(
            "{name} expects a string as {what}, got {}",
            v.type_name()
        ))
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
    let s = str_arg(name, "unit", v)?;
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
                    "invalid unit \"{shown}\": expected years, months, days, hours, minutes, seconds or milliseconds"
                ),
            ));
        }
    })
}

fn invalid_date(text: &str, expected: &str) -> Error {
    let shown: String = text.chars().take(60).collect();
    let more = if text.chars().nth(60).is_some() {
        "..."
    } else {
        ""
    };
    Error::new(
        ErrorKind::Date,
        format!("invalid date string \"{shown}{more}\": {expected}"),
    )
}

fn text_fuel(s: &str) -> u64 {
    1 + s.len() as u64 / 16
}

// ------------------------------------------------------------- parsing

/// Epoch milliseconds of an ISO 8601 date or date-time: date-only
/// (`2024-01-15`, also `2024-01` and `2024` as JavaScript accepts), with a
/// `T` or space before the time, seconds and fraction optional (digits
/// beyond milliseconds are truncated), and `Z`, a numeric offset, or no
/// offset (UTC). Time-zone annotations (`[Europe/Paris]`) are rejected.
///
/// # Errors
/// `invalid date string "...": ...` ([`ErrorKind::Date`]).
pub fn parse_iso(text: &str) -> Result<i64, Error> {
    let bad = || {
        invalid_date(
            text,
            "expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z",
        )
    };
    let b = text.as_bytes();
    let all_digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let number = |r: std::ops::Range<usize>| text.get(r).and_then(|t| t.parse::<i64>().ok());
    // `yyyy` and `yyyy-MM` alone.
    if b.len() == 4 && all_digits(0..4) {
        let year = number(0..4).ok_or_else(bad)?;
        return in_range(i128::from(days_from_civil(year, 1, 1)) * i128::from(MS_PER_DAY));
    }
    if b.len() == 7 && all_digits(0..4) && b.get(4) == Some(&b'-') && all_digits(5..7) {
        let (year, month) = (number(0..4).ok_or_else(bad)?, number(5..7).ok_or_else(bad)?);
        if !(1..=12).contains(&month) {
            return Err(bad());
        }
        return in_range(i128::from(days_from_civil(year, month, 1)) * i128::from(MS_PER_DAY));
    }
    if text.contains('[') {
        return Err(invalid_date(
            text,
            "time zone names are not supported, use Z or an offset",
        ));
    }
    let f = iso_fields(b).ok_or_else(bad)?;
    if !(1..=12).contains(&f.month)
        || !(1..=days_in_month(f.year, f.month)).contains(&f.day)
        || f.hour > 23
        || f.minute > 59
        || f.second > 59
        || f.offset_hour > 23
        || f.offset_minute > 59
    {
        return Err(bad());
    }
    let days = days_from_civil(f.year, f.month, f.day);
    let time_ms =
        f.hour * MS_PER_HOUR + f.minute * MS_PER_MINUTE + f.second * MS_PER_SECOND + f.milli;
    let offset_ms = f.offset_sign * (f.offset_hour * MS_PER_HOUR + f.offset_minute * MS_PER_MINUTE);
    in_range(
        i128::from(days) * i128::from(MS_PER_DAY) + i128::from(time_ms) - i128::from(offset_ms),
    )
}

/// The fields of an ISO 8601 date-time in the documented extended forms.
struct IsoFields {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    /// Milliseconds: the fraction's first three digits (any more are truncated).
    milli: i64,
    /// 1, or -1 for a `-` offset.
    offset_sign: i64,
    offset_hour: i64,
    offset_minute: i64,
}

/// Reads exactly `YYYY-MM-DD`, optionally followed by `T` or a space,
/// `HH:mm`, optionally `:ss` and then `.` and one or more digits, then
/// optionally `Z` or `+HH:mm` / `-HH:mm` (the forms docs/decisions.md
/// lists). Anything else is `None`: the basic format (`20240105`), lower
/// case `t`/`z`, an hour alone, a comma fraction, offsets without a colon,
/// which a general ISO 8601 parser (such as jiff's Temporal grammar) takes
/// though JavaScript's `Date.parse` does not. Ranges are checked by the caller.
fn iso_fields(b: &[u8]) -> Option<IsoFields> {
    let digits = |at: usize, n: usize| -> Option<i64> {
        let d = b.get(at..at + n)?;
        d.iter().all(u8::is_ascii_digit).then(|| {
            d.iter()
                .fold(0i64, |acc, &c| acc * 10 + i64::from(c - b'0'))
        })
    };
    let byte = |at: usize| b.get(at).copied();
    let mut f = IsoFields {
        year: digits(0, 4)?,
        month: 0,
        day: 0,
        hour: 0,
        minute: 0,
        second: 0,
        milli: 0,
        offset_sign: 1,
        offset_hour: 0,
        offset_minute: 0,
    };
    (byte(4) == Some(b'-') && byte(7) == Some(b'-')).then_some(())?;
    f.month = digits(5, 2)?;
    f.day = digits(8, 2)?;
    if b.len() == 10 {
        return Some(f);
    }
    matches!(byte(10), Some(b'T' | b' ')).then_some(())?;
    f.hour = digits(11, 2)?;
    (byte(13) == Some(b':')).then_some(())?;
    f.minute = digits(14, 2)?;
    let mut at = 16;
    if byte(at) == Some(b':') {
        f.second = digits(at + 1, 2)?;
        at += 3;
        if byte(at) == Some(b'.') {
            at += 1;
            let start = at;
            while byte(at).is_some_and(|c| c.is_ascii_digit()) {
                at += 1;
            }
            (at > start).then_some(())?;
            // Three digits, padded with zeros: ".5" is 500 ms.
            f.milli = (0..3).fold(0, |acc, i| {
                let d = if start + i < at {
                    byte(start + i).map_or(0, |c| c - b'0')
                } else {
                    0
                };
                acc * 10 + i64::from(d)
            });
        }
    }
    match byte(at) {
        None => {}
        Some(b'Z') => at += 1,
        Some(sign @ (b'+' | b'-')) => {
            f.offset_sign = if sign == b'-' { -1 } else { 1 };
            f.offset_hour = digits(at + 1, 2)?;
            (byte(at + 3) == Some(b':')).then_some(())?;
            f.offset_minute = digits(at + 4, 2)?;
            at += 6;
        }
        Some(_) => return None,
    }
    (at == b.len()).then_some(f)
}

/// A format token (spec "ICU Format Tokens", a closed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
}

impl Token {
    fn width(self) -> usize {
        match self {
            Token::Year => 4,
            Token::Milli => 3,
            _ => 2,
        }
    }
}

/// One item of a format: a token or a literal character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Token(Token),
    Literal(char),
}

/// Splits a format into tokens (longest first at each position) and
/// literal characters. `yyyyy` is `yyyy` then a literal `y`.
fn tokenize(format: &str) -> Vec<Item> {
    const TOKENS: [(&str, Token); 7] = [
        ("yyyy", Token::Year),
        ("SSS", Token::Milli),
        ("MM", Token::Month),
        ("dd", Token::Day),
        ("HH", Token::Hour),
        ("mm", Token::Minute),
        ("ss", Token::Second),
    ];
    let mut items = Vec::new();
    let mut rest = format;
    while let Some(c) = rest.chars().next() {
        match TOKENS.iter().find(|(t, _)| rest.starts_with(t)) {
            Some((t, token)) => {
                items.push(Item::Token(*token));
                rest = rest.get(t.len()..).unwrap_or("");
            }
            None => {
                items.push(Item::Literal(c));
                rest = rest.get(c.len_utf8()..).unwrap_or("");
            }
        }
    }
    items
}

/// Epoch milliseconds of `text` read with a custom format: each token
/// reads exactly its width in ASCII digits (`yyyy` 4, `SSS` 3, others 2),
/// every other format character must appear as is, and the whole text must
/// be consumed. Fields the format lacks default to 1970-01-01T00:00:00.000;
/// a field out of its range (month 13, Feb 30, hour 24, ...) is invalid.
///
/// # Errors
/// `invalid date string "...": ...` ([`ErrorKind::Date`]).
pub fn parse_with_format(text: &str, format: &str) -> Result<i64, Error> {
    let shown: String = format.chars().take(40).collect();
    let bad = || invalid_date(text, &format!("does not match the format \"{shown}\""));
    let (mut year, mut month, mut day) = (1970, 1, 1);
    let (mut hour, mut minute, mut second, mut milli) = (0, 0, 0, 0);
    let mut rest = text;
    for item in tokenize(format) {
        match item {
            Item::Literal(c) => rest = rest.strip_prefix(c).ok_or_else(bad)?,
            Item::Token(t) => {
                let w = t.width();
                let digits = rest
                    .get(..w)
                    .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(bad)?;
                let v: i64 = digits.parse().map_err(|_| bad())?;
                rest = rest.get(w..).unwrap_or("");
                match t {
                    Token::Year => year = v,
                    Token::Month => month = v,
                    Token::Day => day = v,
                    Token::Hour => hour = v,
                    Token::Minute => minute = v,
                    Token::Second => second = v,
                    Token::Milli => milli = v,
                }
            }
        }
    }
    if !rest.is_empty()
        || !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err(bad());
    }
    let ms = days_from_civil(year, month, day) * MS_PER_DAY
        + hour * MS_PER_HOUR
        + minute * MS_PER_MINUTE
        + second * MS_PER_SECOND
        + milli;
    in_range(i128::from(ms))
}

/// Formats epoch milliseconds with the tokens `yyyy MM dd HH mm ss SSS`
/// (zero-padded; a year below 0 is `-` and at least 4 digits, a year above
/// 9999 has all its digits), every other character copied as is.
pub fn format_ms(ms: i64, format: &str) -> String {
    let c = Civil::from_ms(ms);
    let mut out = String::with_capacity(format.len() + 4);
    for item in tokenize(format) {
        match item {
            Item::Literal(ch) => out.push(ch),
            Item::Token(Token::Year) if c.year < 0 => out.push_str(&format!("-{:04}", -c.year)),
            Item::Token(Token::Year) => out.push_str(&format!("{:04}", c.year)),
            Item::Token(Token::Month) => out.push_str(&format!("{:02}", c.month)),
            Item::Token(Token::Day) => out.push_str(&format!("{:02}", c.day)),
            Item::Token(Token::Hour) => out.push_str(&format!("{:02}", c.hour())),
            Item::Token(Token::Minute) => out.push_str(&format!("{:02}", c.minute())),
            Item::Token(Token::Second) => out.push_str(&format!("{:02}", c.second())),
            Item::Token(Token::Milli) => out.push_str(&format!("{:03}", c.millisecond())),
        }
    }
    out
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
    let text = str_arg(
        "parseDate",
        "first argument",
        args.first().unwrap_or(&Value::Null),
    )?;
    rt.fuel(text_fuel(text))?;
    let ms = match args.get(1) {
        None => parse_iso(text)?,
        Some(f) => {
            let format = str_arg("parseDate", "format", f)?;
            rt.fuel(text_fuel(format))?;
            parse_with_format(text, format)?
        }
    };
    Ok(Value::Number(ms as f64))
}

fn fn_format_date(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let ms = date_arg("formatDate", "date", args.first().unwrap_or(&Value::Null))?;
    let format = str_arg("formatDate", "format", args.get(1).unwrap_or(&Value::Null))?;
    rt.fuel(text_fuel(format))?;
    let out = format_ms(ms, format);
    rt.alloc(out.len() as u64)?;
    Ok(Value::from(out))
}

fn field(
    rt: &mut dyn Runtime,
    name: &str,
    args: &[Value],
    get: fn(&Civil) -> i64,
) -> Result<Value, Error> {
    rt.fuel(1)?;
    let ms = date_arg(name, "argument", args.first().unwrap_or(&Value::Null))?;
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
    let ms = date_arg("dateAdd", "date", date)?;
    let Value::Number(n) = amount else {
        return Err(Error::type_error(format_args!(
            "dateAdd expects a number as amount, got {}",
            amount.type_name()
        )));
    };
    let unit = unit_arg("dateAdd", unit)?;
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
    let d1 = date_arg("dateDiff", "first date", d1)?;
    let d2 = date_arg("dateDiff", "second date", d2)?;
    let (fixed, months) = unit_parts(unit_arg("dateDiff", unit)?);
    Ok(Value::Number(diff(d1, d2, fixed, months) as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;

    fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
        let mut rt = TestRuntime {
            now_ms: 1_710_000_000_000.0,
            ..TestRuntime::default()
        };
        let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
        crate::stdlib::call_function(&mut rt, id, args)
    }

    fn num(name: &str, args: &[Value]) -> f64 {
        match call(name, args) {
            Ok(Value::Number(n)) => n,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn n(x: f64) -> Value {
        Value::Number(x)
    }

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn iso(text: &str) -> f64 {
        num("parseDate", &[s(text)])
    }

    fn err(name: &str, args: &[Value]) -> Error {
        match call(name, args) {
            Err(e) => e,
            Ok(v) => panic!("{name} should fail, got {v:?}"),
        }
    }

    fn fmt(ms: f64) -> String {
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
    fn parse_iso_forms() {
        assert_eq!(iso("1970-01-01T00:00:00Z"), 0.0);
        assert_eq!(iso("2024-01-15T12:00:00Z"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15"), 1_705_276_800_000.0);
        assert_eq!(iso("2024-01-15T12:00:00"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15 12:00:00Z"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15T12:00Z"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15T12:00"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15T12:00:00.123Z"), 1_705_320_000_123.0);
        assert_eq!(iso("2024-01-15T12:00:00.123456Z"), 1_705_320_000_123.0);
        assert_eq!(iso("2024-01-15T12:00:00.5Z"), 1_705_320_000_500.0);
        assert_eq!(iso("2024-01-15T14:00:00+02:00"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15T07:30:00-04:30"), 1_705_320_000_000.0);
        assert_eq!(iso("2024-01-15T12:00:00+00:00"), 1_705_320_000_000.0);
        assert_eq!(iso("2024"), 1_704_067_200_000.0);
        assert_eq!(iso("2024-02"), 1_706_745_600_000.0);
        // Before the epoch: the fraction is truncated, not the instant.
        assert_eq!(iso("1969-12-31T23:59:59.9995Z"), -1.0);
        assert_eq!(iso("1900-01-01"), -2_208_988_800_000.0);
        assert_eq!(iso("2024-02-29"), 1_709_164_800_000.0);
    }

    #[test]
    fn parse_iso_errors() {
        for bad in [
            "not-a-date",
            "",
            "2024-13-01",
            "2023-02-29",
            "2024-01-32",
            "2024-01-15T25:00:00Z",
            " 2024-01-15",
            "2024-01-15 ",
            "2024/01/15",
            "2024-1-5",
            "2024-00",
            "2024-01-15T12:00:00Z[Europe/Paris]",
        ] {
            let e = err("parseDate", &[s(bad)]);
            assert_eq!(e.kind(), ErrorKind::Date, "{bad}");
            assert!(
                e.message().contains("invalid date"),
                "{bad}: {}",
                e.message()
            );
        }
        let e = err("parseDate", &[n(42.0)]);
        assert!(e.message().starts_with("Type error"));
        let e = err("parseDate", &[Value::Null]);
        assert!(e.message().starts_with("Type error"));
        let e = err("parseDate", &[s("2024"), n(1.0)]);
        assert!(e.message().starts_with("Type error"));
    }

    #[test]
    fn parse_custom_formats() {
        let p = |t: &str, f: &str| num("parseDate", &[s(t), s(f)]);
        assert_eq!(p("15/01/2024", "dd/MM/yyyy"), 1_705_276_800_000.0);
        assert_eq!(p("2024-06-15", "yyyy-MM-dd"), 1_718_409_600_000.0);
        assert_eq!(
            p("2024-01-15 12:00:00.123", "yyyy-MM-dd HH:mm:ss.SSS"),
            1_705_320_000_123.0
        );
        assert_eq!(p("20240115", "yyyyMMdd"), 1_705_276_800_000.0);
        assert_eq!(p("12:30", "HH:mm"), 45_000_000.0);
        assert_eq!(p("1969", "yyyy"), -31_536_000_000.0);
        assert_eq!(p("at 2024-01-15!", "at yyyy-MM-dd!"), 1_705_276_800_000.0);
        assert_eq!(p("2024-02-29", "yyyy-MM-dd"), 1_709_164_800_000.0);
        for (t, f) in [
            ("15/01/2024", "yyyy-MM-dd"),
            ("5/1/2024", "dd/MM/yyyy"),
            ("2023-02-29", "yyyy-MM-dd"),
            ("2024-13-01", "yyyy-MM-dd"),
            ("2024-01-15x", "yyyy-MM-dd"),
            ("2024-01", "yyyy-MM-dd"),
            ("24:00", "HH:mm"),
            ("12:60", "HH:mm"),
            ("00:00:60", "HH:mm:ss"),
            ("+024-01-01", "yyyy-MM-dd"),
            ("２024", "yyyy"),
        ] {
            let e = err("parseDate", &[s(t), s(f)]);
            assert_eq!(e.kind(), ErrorKind::Date);
            assert!(
                e.message().contains("invalid date"),
                "{t} {f}: {}",
                e.message()
            );
        }
    }

    #[test]
    fn format_tokens() {
        let f = |ms: f64, p: &str| match call("formatDate", &[n(ms), s(p)]) {
            Ok(Value::String(t)) => t.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(f(0.0, "yyyy-MM-dd"), "1970-01-01");
        assert_eq!(f(0.0, "HH:mm:ss"), "00:00:00");
        assert_eq!(f(0.0, "SSS"), "000");
        assert_eq!(
            f(1_718_447_445_123.0, "yyyy-MM-dd'T'HH:mm:ss.SSS"),
            "2024-06-15'T'10:30:45.123"
        );
        assert_eq!(
            f(1_718_447_445_123.0, "dd/MM/yy M d yyyyy SSSS"),
            "15/06/yy M d 2024y 123S"
        );
        assert_eq!(f(1_718_447_445_123.0, "ÉtéHH😀"), "Été10😀");
        assert_eq!(f(1_718_447_445_123.0, ""), "");
        assert_eq!(fmt(-1.0), "1969-12-31 23:59:59.999");
        assert_eq!(fmt(-62_198_755_200_000.0), "-0001-01-01 00:00:00.000");
        assert_eq!(fmt(8.64e15), "275760-09-13 00:00:00.000");
        assert_eq!(fmt(-8.64e15), "-271821-04-20 00:00:00.000");
        assert_eq!(fmt(-62_167_219_200_000.0), "0000-01-01 00:00:00.000");
        let e = err("formatDate", &[s("not-a-number"), s("yyyy")]);
        assert_eq!(e.kind(), ErrorKind::Type);
        let e = err("formatDate", &[n(0.0), Value::Null]);
        assert_eq!(e.kind(), ErrorKind::Type);
        let mut rt = TestRuntime::default();
        let id = crate::stdlib::function_id("formatDate").unwrap_or(u16::MAX);
        assert!(crate::stdlib::call_function(&mut rt, id, &[n(0.0), s("yyyy-MM-dd")]).is_ok());
        assert_eq!(rt.bytes_used, 10);
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

    #[test]
    fn dates_round_trip_through_format_and_parse() {
        for ms in [
            0.0,
            -1.0,
            1_718_447_445_123.0,
            -2_208_988_800_001.0,
            253_402_300_799_999.0,
        ] {
            let text = match call("formatDate", &[n(ms), s("yyyy-MM-dd HH:mm:ss.SSS")]) {
                Ok(Value::String(t)) => t.to_string(),
                other => panic!("{other:?}"),
            };
            assert_eq!(
                num("parseDate", &[s(&text), s("yyyy-MM-dd HH:mm:ss.SSS")]),
                ms
            );
            assert_eq!(iso(&text.replace(' ', "T")), ms);
        }
    }
}
