//! Reading dates: the ISO 8601 forms `parseDate` reads, and text in a
//! custom format (`parseDate`'s second argument).
//!
//! ISO text is read by a strict parser of the forms of JavaScript's Date
//! Time String Format that docs/decisions.md lists, including the expanded
//! years `+YYYYYY` / `-YYYYYY` (a general ISO 8601 parser also takes forms
//! JavaScript rejects: leap seconds, `+25:00` offsets, `20240105`).

use super::calendar::{days_from_civil, days_in_month, in_range};
use super::tokens::{Item, Token, WEEKDAYS, items, weekday};
use super::{MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND};
use crate::error::{Error, ErrorKind};

/// `invalid date string: "TEXT"` followed by `detail` (the text cut at 60
/// characters).
fn invalid_date(text: &str, detail: &str) -> Error {
    let shown: String = text.chars().take(60).collect();
    let more = if text.chars().nth(60).is_some() {
        "..."
    } else {
        ""
    };
    Error::new(
        ErrorKind::Date,
        format!("invalid date string: \"{shown}{more}\"{detail}"),
    )
}

/// The epoch milliseconds `ms` of a parsed text, or `invalid date string:
/// "TEXT", Date out of range` beyond JavaScript's range.
fn parsed(text: &str, ms: i128) -> Result<i64, Error> {
    in_range(ms).map_err(|_| invalid_date(text, ", Date out of range"))
}

/// The value of the `n` ASCII digits of `b` at `at`.
fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let d = b.get(at..at + n)?;
    d.iter().all(u8::is_ascii_digit).then(|| {
        d.iter()
            .fold(0i64, |acc, &c| acc * 10 + i64::from(c - b'0'))
    })
}

/// A year at the start of `b`: four digits (`2024`), or a sign and six
/// digits (`+002024`, `-000001`), JavaScript's expanded year; `-000000`
/// is not a year (ECMAScript rules it out). Returns the year and the
/// length read.
fn year_prefix(b: &[u8]) -> Option<(i64, usize)> {
    match b.first()? {
        b'+' => Some((digits(b, 1, 6)?, 7)),
        b'-' => match digits(b, 1, 6)? {
            0 => None,
            y => Some((-y, 7)),
        },
        _ => Some((digits(b, 0, 4)?, 4)),
    }
}

/// Epoch milliseconds of an ISO 8601 date or date-time: a year (`2024`, or
/// expanded `+002024` / `-000001`), optionally `-MM`, then `-DD`, then a
/// `T` or space before the time, seconds and fraction optional (digits
/// beyond milliseconds are truncated), and `Z`, a numeric offset, or no
/// offset (UTC); the time needs the full date. Time-zone annotations
/// (`[Europe/Paris]`) are rejected.
///
/// # Errors
/// `invalid date string: "...", ...` ([`ErrorKind::Date`]), also for a
/// date outside JavaScript's range.
pub fn parse_iso(text: &str) -> Result<i64, Error> {
    let bad = || {
        invalid_date(
            text,
            ", expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z",
        )
    };
    if text.contains('[') {
        return Err(invalid_date(
            text,
            ", time zone names are not supported, use Z or an offset",
        ));
    }
    let b = text.as_bytes();
    let (year, at) = year_prefix(b).ok_or_else(bad)?;
    let f = iso_fields(year, b.get(at..).unwrap_or_default()).ok_or_else(bad)?;
    if f.offset_hour > 23 || f.offset_minute > 59 {
        return Err(bad());
    }
    let utc_ms = f.civil.utc_ms().ok_or_else(bad)?;
    let offset_ms = f.offset_sign * (f.offset_hour * MS_PER_HOUR + f.offset_minute * MS_PER_MINUTE);
    parsed(text, utc_ms - i128::from(offset_ms))
}

/// Calendar fields read from text (a text's missing fields are those of
/// 1970-01-01T00:00:00.000); ranges are checked by [`Fields::utc_ms`].
#[derive(Debug, Clone, Copy)]
struct Fields {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    /// Milliseconds (of ISO text: the fraction's first three digits, any
    /// more truncated).
    milli: i64,
}

impl Fields {
    /// 1970-01-01T00:00:00.000 in `year`.
    fn in_year(year: i64) -> Fields {
        Fields {
            year,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            milli: 0,
        }
    }

    /// Epoch milliseconds of the fields read as UTC, or `None` for a field
    /// out of its range (month 13, Feb 30, hour 24, minute or second 60).
    fn utc_ms(&self) -> Option<i128> {
        if !(1..=12).contains(&self.month)
            || !(1..=days_in_month(self.year, self.month)).contains(&self.day)
            || self.hour > 23
            || self.minute > 59
            || self.second > 59
        {
            return None;
        }
        let days = days_from_civil(self.year, self.month, self.day);
        let time_ms = self.hour * MS_PER_HOUR
            + self.minute * MS_PER_MINUTE
            + self.second * MS_PER_SECOND
            + self.milli;
        Some(i128::from(days) * i128::from(MS_PER_DAY) + i128::from(time_ms))
    }
}

/// The fields of an ISO 8601 date-time in the documented extended forms.
struct IsoFields {
    /// The date and time of day, before the offset.
    civil: Fields,
    /// 1, or -1 for a `-` offset.
    offset_sign: i64,
    offset_hour: i64,
    offset_minute: i64,
}

/// Reads what follows the year: nothing (`yyyy`), `-MM`, or `-MM-DD`
/// optionally followed by `T` or a space, `HH:mm`, optionally `:ss` and
/// then `.` and one or more digits, then optionally `Z` or `+HH:mm` /
/// `-HH:mm` (the forms docs/decisions.md lists). Anything else is `None`:
/// the basic format (`20240105`), lower case `t`/`z`, an hour alone, a
/// comma fraction, offsets without a colon, which a general ISO 8601 parser
/// (such as jiff's Temporal grammar) takes though JavaScript's `Date.parse`
/// does not. Ranges are checked by the caller.
fn iso_fields(year: i64, b: &[u8]) -> Option<IsoFields> {
    let byte = |at: usize| b.get(at).copied();
    let mut f = IsoFields {
        civil: Fields::in_year(year),
        offset_sign: 1,
        offset_hour: 0,
        offset_minute: 0,
    };
    if b.is_empty() {
        return Some(f);
    }
    (byte(0) == Some(b'-')).then_some(())?;
    f.civil.month = digits(b, 1, 2)?;
    if b.len() == 3 {
        return Some(f);
    }
    (byte(3) == Some(b'-')).then_some(())?;
    f.civil.day = digits(b, 4, 2)?;
    if b.len() == 6 {
        return Some(f);
    }
    matches!(byte(6), Some(b'T' | b' ')).then_some(())?;
    f.civil.hour = digits(b, 7, 2)?;
    (byte(9) == Some(b':')).then_some(())?;
    f.civil.minute = digits(b, 10, 2)?;
    let mut at = 12;
    if byte(at) == Some(b':') {
        f.civil.second = digits(b, at + 1, 2)?;
        at += 3;
        if byte(at) == Some(b'.') {
            at += 1;
            let start = at;
            while byte(at).is_some_and(|c| c.is_ascii_digit()) {
                at += 1;
            }
            (at > start).then_some(())?;
            // Three digits, padded with zeros: ".5" is 500 ms.
            f.civil.milli = (0..3).fold(0, |acc, i| {
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
            f.offset_hour = digits(b, at + 1, 2)?;
            (byte(at + 3) == Some(b':')).then_some(())?;
            f.offset_minute = digits(b, at + 4, 2)?;
            at += 6;
        }
        Some(_) => return None,
    }
    (at == b.len()).then_some(f)
}

/// Epoch milliseconds of `text` read with a custom format: each token
/// reads exactly its width in ASCII digits (`yyyy` 4, `SSS` 3, others 2;
/// `yyyy` also a sign and six digits, as `formatDate` writes years outside
/// 0000..=9999), every other format character must appear as is, and the
/// whole text must be consumed. `EEE` / `EEEE` read an English weekday
/// name (`Mon`, `Monday`, capitalised so), which must be the date's.
/// Fields the format lacks default to 1970-01-01T00:00:00.000; a field
/// out of its range (month 13, Feb 30, hour 24, ...) is invalid.
///
/// # Errors
/// `invalid date format "...": YYYY is not a date token` for a format
/// with letters other than the tokens and a lone `T` / `Z`;
/// `invalid date string: "..." does not match format "..."`
/// ([`ErrorKind::Date`]); `invalid date string: "...", Friday is named
/// but the date is a Saturday`; `..., Date out of range` beyond JavaScript's range.
pub fn parse_with_format(text: &str, format: &str) -> Result<i64, Error> {
    super::tokens::check(format)?;
    let shown: String = format.chars().take(40).collect();
    let bad = || invalid_date(text, &format!(" does not match format \"{shown}\""));
    let mut f = Fields::in_year(1970);
    let mut rest = text;
    // The weekdays the text names (0 = Sunday), each checked against the date.
    let mut named: Option<usize> = None;
    for item in items(format) {
        match item {
            Item::Literal(l) => rest = rest.strip_prefix(l).ok_or_else(bad)?,
            Item::Token(t @ (Token::WeekdayShort | Token::WeekdayLong)) => {
                let (day, len) = WEEKDAYS
                    .iter()
                    .enumerate()
                    .find_map(|(i, name)| {
                        let name = if t == Token::WeekdayLong {
                            name
                        } else {
                            name.get(..3).unwrap_or(name)
                        };
                        rest.starts_with(name).then_some((i, name.len()))
                    })
                    .ok_or_else(bad)?;
                if named.is_some_and(|d| d != day) {
                    return Err(bad());
                }
                named = Some(day);
                rest = rest.get(len..).unwrap_or("");
            }
            Item::Token(Token::Year) => {
                let (v, w) = year_prefix(rest.as_bytes()).ok_or_else(bad)?;
                f.year = v;
                rest = rest.get(w..).unwrap_or("");
            }
            Item::Token(t) => {
                let w = t.width();
                let v = digits(rest.as_bytes(), 0, w).ok_or_else(bad)?;
                rest = rest.get(w..).unwrap_or("");
                match t {
                    Token::Month => f.month = v,
                    Token::Day => f.day = v,
                    Token::Hour => f.hour = v,
                    Token::Minute => f.minute = v,
                    Token::Second => f.second = v,
                    Token::Milli => f.milli = v,
                    Token::Year | Token::WeekdayShort | Token::WeekdayLong => f.year = v,
                }
            }
        }
    }
    if !rest.is_empty() {
        return Err(bad());
    }
    let ms = f.utc_ms().ok_or_else(bad)?;
    let actual = weekday(ms.div_euclid(i128::from(MS_PER_DAY)) as i64);
    if let Some(day) = named
        && actual != day
    {
        let name = |d: usize| WEEKDAYS.get(d).copied().unwrap_or("");
        return Err(invalid_date(
            text,
            &format!(
                ", {} is named but the date is a {}",
                name(day),
                name(actual)
            ),
        ));
    }
    parsed(text, ms)
}
