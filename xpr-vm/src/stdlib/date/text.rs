//! Dates as text: the ISO 8601 forms `parseDate` reads, and the custom
//! formats of `parseDate` and `formatDate` (the tokens `yyyy MM dd HH mm ss
//! SSS`, spec "ICU Format Tokens").
//!
//! ISO text is read by a strict parser of the forms of JavaScript's Date
//! Time String Format that docs/decisions.md lists, including the expanded
//! years `+YYYYYY` / `-YYYYYY` (a general ISO 8601 parser also takes forms
//! JavaScript rejects: leap seconds, `+25:00` offsets, `20240105`). Years
//! outside 0000..=9999 are written in that expanded form, as JavaScript's
//! `toISOString` writes them, so every valid date survives
//! `formatDate` then `parseDate`.

use super::{
    Civil, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND, days_from_civil, days_in_month,
    in_range,
};
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

// ------------------------------------------------------------- ISO 8601

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
    parsed(
        text,
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
        year,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        milli: 0,
        offset_sign: 1,
        offset_hour: 0,
        offset_minute: 0,
    };
    if b.is_empty() {
        return Some(f);
    }
    (byte(0) == Some(b'-')).then_some(())?;
    f.month = digits(b, 1, 2)?;
    if b.len() == 3 {
        return Some(f);
    }
    (byte(3) == Some(b'-')).then_some(())?;
    f.day = digits(b, 4, 2)?;
    if b.len() == 6 {
        return Some(f);
    }
    matches!(byte(6), Some(b'T' | b' ')).then_some(())?;
    f.hour = digits(b, 7, 2)?;
    (byte(9) == Some(b':')).then_some(())?;
    f.minute = digits(b, 10, 2)?;
    let mut at = 12;
    if byte(at) == Some(b':') {
        f.second = digits(b, at + 1, 2)?;
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
            f.offset_hour = digits(b, at + 1, 2)?;
            (byte(at + 3) == Some(b':')).then_some(())?;
            f.offset_minute = digits(b, at + 4, 2)?;
            at += 6;
        }
        Some(_) => return None,
    }
    (at == b.len()).then_some(f)
}

// ------------------------------------------------------- custom formats

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
    /// Digits the token reads and writes (a year may also be expanded).
    fn width(self) -> usize {
        match self {
            Token::Year => 4,
            Token::Milli => 3,
            _ => 2,
        }
    }
}

/// One item of a format: a token, or literal text (a run of characters
/// that holds no token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item<'f> {
    Token(Token),
    Literal(&'f str),
}

/// The items of a format, read one at a time: tokens (longest first at
/// each position) and the literal text between them; `yyyyy` is `yyyy`
/// then a literal `y`. Never collected into a list, so a format costs no
/// memory beyond itself, and literal text is handled a run at a time.
struct Items<'f> {
    rest: &'f str,
}

fn items(format: &str) -> Items<'_> {
    Items { rest: format }
}

/// The token starting `s`, with its length in bytes.
fn token_at(s: &[u8]) -> Option<(usize, Token)> {
    let starts = |t: &[u8]| s.starts_with(t);
    match s.first()? {
        b'y' if starts(b"yyyy") => Some((4, Token::Year)),
        b'S' if starts(b"SSS") => Some((3, Token::Milli)),
        b'M' if starts(b"MM") => Some((2, Token::Month)),
        b'd' if starts(b"dd") => Some((2, Token::Day)),
        b'H' if starts(b"HH") => Some((2, Token::Hour)),
        b'm' if starts(b"mm") => Some((2, Token::Minute)),
        b's' if starts(b"ss") => Some((2, Token::Second)),
        _ => None,
    }
}

impl<'f> Iterator for Items<'f> {
    type Item = Item<'f>;

    fn next(&mut self) -> Option<Item<'f>> {
        let rest = self.rest;
        let bytes = rest.as_bytes();
        if bytes.is_empty() {
            return None;
        }
        if let Some((len, t)) = token_at(bytes) {
            self.rest = rest.get(len..).unwrap_or("");
            return Some(Item::Token(t));
        }
        // Literal text up to the next token: every token starts with an
        // ASCII byte, so the cut is at a character boundary.
        let mut end = 1;
        while let Some(tail) = bytes.get(end..) {
            match tail
                .iter()
                .position(|b| matches!(b, b'y' | b'S' | b'M' | b'd' | b'H' | b'm' | b's'))
            {
                Some(i) if token_at(tail.get(i..).unwrap_or(&[])).is_some() => {
                    end += i;
                    break;
                }
                Some(i) => end += i + 1,
                None => {
                    end = bytes.len();
                    break;
                }
            }
        }
        let (literal, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
        self.rest = after;
        Some(Item::Literal(literal))
    }
}

/// Epoch milliseconds of `text` read with a custom format: each token
/// reads exactly its width in ASCII digits (`yyyy` 4, `SSS` 3, others 2;
/// `yyyy` also a sign and six digits, as `formatDate` writes years outside
/// 0000..=9999), every other format character must appear as is, and the
/// whole text must be consumed. Fields the format lacks default to
/// 1970-01-01T00:00:00.000; a field out of its range (month 13, Feb 30,
/// hour 24, ...) is invalid.
///
/// # Errors
/// `invalid date string: "..." does not match format "..."`
/// ([`ErrorKind::Date`]); `..., Date out of range` beyond JavaScript's range.
pub fn parse_with_format(text: &str, format: &str) -> Result<i64, Error> {
    let shown: String = format.chars().take(40).collect();
    let bad = || invalid_date(text, &format!(" does not match format \"{shown}\""));
    let (mut year, mut month, mut day) = (1970, 1, 1);
    let (mut hour, mut minute, mut second, mut milli) = (0, 0, 0, 0);
    let mut rest = text;
    for item in items(format) {
        match item {
            Item::Literal(l) => rest = rest.strip_prefix(l).ok_or_else(bad)?,
            Item::Token(Token::Year) => {
                let (v, w) = year_prefix(rest.as_bytes()).ok_or_else(bad)?;
                year = v;
                rest = rest.get(w..).unwrap_or("");
            }
            Item::Token(t) => {
                let w = t.width();
                let v = digits(rest.as_bytes(), 0, w).ok_or_else(bad)?;
                rest = rest.get(w..).unwrap_or("");
                match t {
                    Token::Month => month = v,
                    Token::Day => day = v,
                    Token::Hour => hour = v,
                    Token::Minute => minute = v,
                    Token::Second => second = v,
                    Token::Milli => milli = v,
                    Token::Year => year = v,
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
    parsed(text, i128::from(ms))
}

/// Appends the last `width` decimal digits of `value` (not negative),
/// zero-padded.
fn push_digits(out: &mut String, value: i64, width: usize) {
    let mut digits = [b'0'; 6];
    let mut v = value.unsigned_abs();
    for d in digits.iter_mut().take(width).rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
    let text = digits.get(..width).unwrap_or(&digits);
    out.push_str(std::str::from_utf8(text).unwrap_or(""));
}

/// Bytes of `formatDate`'s result for `ms` and `format`, computed without
/// building it (so that the result's memory is charged first): a token
/// writes its width (a year outside 0000..=9999 seven bytes), every other
/// character itself.
pub fn formatted_len(ms: i64, format: &str) -> usize {
    let wide_year = !(0..=9999).contains(&Civil::from_ms(ms).year);
    items(format)
        .map(|item| match item {
            Item::Literal(l) => l.len(),
            Item::Token(Token::Year) if wide_year => 7,
            Item::Token(t) => t.width(),
        })
        .fold(0usize, usize::saturating_add)
}

/// Formats epoch milliseconds with the tokens `yyyy MM dd HH mm ss SSS`
/// (zero-padded; a year outside 0000..=9999 is written as JavaScript's
/// `toISOString` writes it, a sign and six digits: `+010000`, `-000001`),
/// every other character copied as is. The result has
/// [`formatted_len`] bytes.
pub fn format_ms(ms: i64, format: &str) -> String {
    let c = Civil::from_ms(ms);
    let mut out = String::with_capacity(formatted_len(ms, format));
    for item in items(format) {
        let (value, width) = match item {
            Item::Literal(l) => {
                out.push_str(l);
                continue;
            }
            Item::Token(Token::Year) if (0..=9999).contains(&c.year) => (c.year, 4),
            Item::Token(Token::Year) => {
                out.push(if c.year < 0 { '-' } else { '+' });
                (c.year.abs(), 6)
            }
            Item::Token(Token::Month) => (c.month, 2),
            Item::Token(Token::Day) => (c.day, 2),
            Item::Token(Token::Hour) => (c.hour(), 2),
            Item::Token(Token::Minute) => (c.minute(), 2),
            Item::Token(Token::Second) => (c.second(), 2),
            Item::Token(Token::Milli) => (c.millisecond(), 3),
        };
        push_digits(&mut out, value, width);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{call, err, fmt, iso, n, num, s};
    use crate::error::ErrorKind;
    use crate::stdlib::testing::TestRuntime;
    use crate::value::Value;

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
    fn parse_iso_expanded_years() {
        // A sign and six digits, in every form a four-digit year takes.
        assert_eq!(iso("+002024-01-15T00:00:00Z"), 1_705_276_800_000.0);
        assert_eq!(iso("+002024-01-15"), 1_705_276_800_000.0);
        assert_eq!(iso("+002024-03"), 1_709_251_200_000.0);
        assert_eq!(iso("+002024"), 1_704_067_200_000.0);
        assert_eq!(iso("+002024-01-15 10:30"), 1_705_314_600_000.0);
        assert_eq!(iso("+002024-01-15T10:30:00.123+05:30"), 1_705_294_800_123.0);
        assert_eq!(iso("-000001-01-01T00:00:00Z"), -62_198_755_200_000.0);
        assert_eq!(iso("-000001-01-01"), -62_198_755_200_000.0);
        assert_eq!(iso("-000001"), -62_198_755_200_000.0);
        assert_eq!(iso("+000000-01-01"), iso("0000-01-01"));
        assert_eq!(iso("+010000-01-01T00:00:00Z"), 253_402_300_800_000.0);
        assert_eq!(iso("-010000-01-01T00:00:00Z"), -377_736_739_200_000.0);
        // The ends of JavaScript's range, reached with and without an offset.
        assert_eq!(iso("+275760-09-13T00:00:00Z"), 8.64e15);
        assert_eq!(iso("+275760-09-13"), 8.64e15);
        assert_eq!(iso("+275760-09-12T23:59:59.999Z"), 8.64e15 - 1.0);
        assert_eq!(iso("+275760-09-13T00:00:00+00:01"), 8.64e15 - 60_000.0);
        assert_eq!(iso("-271821-04-20T00:00:00Z"), -8.64e15);
        assert_eq!(iso("-271821-04-20"), -8.64e15);
        assert_eq!(iso("-271821-04-20T00:00:00-00:01"), -8.64e15 + 60_000.0);
        assert_eq!(num("year", &[n(iso("-000001-01-01T00:00:00Z"))]), -1.0);
    }

    #[test]
    fn parse_iso_expanded_year_errors() {
        // One millisecond (or minute of offset) beyond either end.
        for beyond in [
            "+275760-09-13T00:00:00.001Z",
            "+275760-09-14",
            "+275760-09-13T00:00:00-00:01",
            "-271821-04-19T23:59:59.999Z",
            "-271821-04-19",
            "-271821-04-20T00:00:00+00:01",
            "-271821",
            "-271821-04",
            "+999999-01-01",
            "-999999-12-31",
        ] {
            let e = err("parseDate", &[s(beyond)]);
            assert_eq!(e.kind(), ErrorKind::Date, "{beyond}");
            assert_eq!(
                e.message(),
                format!("invalid date string: \"{beyond}\", Date out of range")
            );
        }
        // Exactly six digits, a real sign, and no negative zero.
        for bad in [
            "-000000-01-01",
            "-000000",
            "-000000-01-01T00:00:00Z",
            "+02024-01-15",
            "+0002024-01-15",
            "002024-01-15",
            "+2024-01-15",
            "-2024-01-15",
            "+002024-1-15",
            "+002023-02-29",
            "\u{2212}000001-01-01",
            "+",
            "-",
            "+00202a-01-01",
        ] {
            let e = err("parseDate", &[s(bad)]);
            assert_eq!(e.kind(), ErrorKind::Date, "{bad}");
            assert!(e.message().contains("expected an ISO 8601 date"), "{bad}");
        }
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
        assert_eq!(
            err("parseDate", &[s("2024-13-01")]).message(),
            "invalid date string: \"2024-13-01\", expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z"
        );
        assert_eq!(
            err("parseDate", &[s("2024-01-15T12:00:00Z[UTC]")]).message(),
            "invalid date string: \"2024-01-15T12:00:00Z[UTC]\", time zone names are not supported, use Z or an offset"
        );
        let long = "9".repeat(70);
        assert_eq!(
            err("parseDate", &[s(&long)]).message(),
            format!(
                "invalid date string: \"{}...\", expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z",
                &long[..60]
            )
        );
        let e = err("parseDate", &[n(42.0)]);
        assert_eq!(
            e.message(),
            "Type error: parseDate expects string, got number"
        );
        let e = err("parseDate", &[Value::Null]);
        assert_eq!(
            e.message(),
            "Type error: parseDate expects string, got null"
        );
        let e = err("parseDate", &[s("2024"), n(1.0)]);
        assert_eq!(
            e.message(),
            "Type error: parseDate format must be string, got number"
        );
        let e = err("parseDate", &[s("2024"), Value::Null]);
        assert_eq!(
            e.message(),
            "Type error: parseDate format must be string, got null"
        );
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
        // `yyyy` also reads the expanded years `formatDate` writes.
        assert_eq!(p("+002024-01-15", "yyyy-MM-dd"), 1_705_276_800_000.0);
        assert_eq!(p("-000001/01", "yyyy/MM"), -62_198_755_200_000.0);
        assert_eq!(p("13.09.+275760", "dd.MM.yyyy"), 8.64e15);
        assert_eq!(
            err("parseDate", &[s("14.09.+275760"), s("dd.MM.yyyy")]).message(),
            "invalid date string: \"14.09.+275760\", Date out of range"
        );
        assert_eq!(
            err("parseDate", &[s("15/01/24"), s("dd/MM/yyyy")]).message(),
            "invalid date string: \"15/01/24\" does not match format \"dd/MM/yyyy\""
        );
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
            ("-000000-01-01", "yyyy-MM-dd"),
            ("+02024-01-01", "yyyy-MM-dd"),
            ("2024-", "yyyy"),
        ] {
            let e = err("parseDate", &[s(t), s(f)]);
            assert_eq!(e.kind(), ErrorKind::Date);
            assert!(
                e.message().contains("does not match format"),
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
        // Outside 0000..=9999 the year is JavaScript's toISOString year.
        assert_eq!(fmt(-62_198_755_200_000.0), "-000001-01-01 00:00:00.000");
        assert_eq!(fmt(8.64e15), "+275760-09-13 00:00:00.000");
        assert_eq!(fmt(-8.64e15), "-271821-04-20 00:00:00.000");
        assert_eq!(fmt(-62_167_219_200_000.0), "0000-01-01 00:00:00.000");
        assert_eq!(fmt(253_402_300_799_999.0), "9999-12-31 23:59:59.999");
        assert_eq!(fmt(253_402_300_800_000.0), "+010000-01-01 00:00:00.000");
        assert_eq!(fmt(-62_167_219_200_001.0), "-000001-12-31 23:59:59.999");
        let e = err("formatDate", &[s("not-a-number"), s("yyyy")]);
        assert_eq!(
            e.message(),
            "Type error: formatDate expects number (epoch ms), got string"
        );
        let e = err("formatDate", &[n(0.0), Value::Null]);
        assert_eq!(
            e.message(),
            "Type error: formatDate format must be string, got null"
        );
        // Both types are checked before the range.
        let e = err("formatDate", &[n(1e300), n(1.0)]);
        assert_eq!(e.kind(), ErrorKind::Type);
        assert_eq!(
            err("formatDate", &[n(1e300), s("yyyy")]).message(),
            "Date out of range"
        );
        let mut rt = TestRuntime::default();
        let id = crate::stdlib::function_id("formatDate").unwrap_or(u16::MAX);
        assert!(crate::stdlib::call_function(&mut rt, id, &[n(0.0), s("yyyy-MM-dd")]).is_ok());
        assert_eq!(rt.bytes_used, 10);
    }

    #[test]
    fn dates_round_trip_through_format_and_parse() {
        for ms in [
            0.0,
            -1.0,
            1_718_447_445_123.0,
            -2_208_988_800_001.0,
            253_402_300_799_999.0,
            253_402_300_800_000.0,
            -62_198_755_200_001.0,
            8.64e15,
            -8.64e15,
            8.64e15 - 1.0,
            -8.64e15 + 1.0,
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

    /// Runs `name` with `args` on a runtime with these limits; returns the
    /// result and what was charged.
    fn metered(
        name: &str,
        args: &[Value],
        fuel: Option<u64>,
        memory: Option<u64>,
    ) -> (Result<Value, crate::Error>, u64, u64) {
        let mut rt = TestRuntime {
            fuel_limit: fuel,
            memory_limit: memory,
            ..TestRuntime::default()
        };
        let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
        let r = crate::stdlib::call_function(&mut rt, id, args);
        (r, rt.fuel_used, rt.bytes_used)
    }

    #[test]
    fn formats_are_read_as_items_without_a_list() {
        use super::{Item, Token};
        fn items(f: &str) -> Vec<Item<'_>> {
            super::items(f).collect()
        }
        assert_eq!(
            items("yyyy-MM-dd"),
            [
                Item::Token(Token::Year),
                Item::Literal("-"),
                Item::Token(Token::Month),
                Item::Literal("-"),
                Item::Token(Token::Day)
            ]
        );
        // Literal text is one item up to the next token, lone token letters
        // and non-ASCII characters included.
        assert_eq!(
            items("yyyyy M d Été SSSS"),
            [
                Item::Token(Token::Year),
                Item::Literal("y M d Été "),
                Item::Token(Token::Milli),
                Item::Literal("S")
            ]
        );
        assert_eq!(items("x".repeat(1000).as_str()).len(), 1);
        assert!(items("").is_empty());
        assert_eq!(super::formatted_len(0, "yyyy-MM-dd Été"), 16);
        assert_eq!(super::formatted_len(8.64e15 as i64, "yyyy"), 7);
    }

    #[test]
    fn formats_are_charged_per_byte_before_they_are_expanded() {
        // Issue 11: a 60 MB format built an uncounted list of 8 bytes per
        // character (590 MB) before the memory limit stopped it. Now the
        // format costs one fuel per byte before it is read, and the result's
        // memory is charged before it is built.
        let big = "x".repeat(1_000_000);
        let (r, fuel, bytes) = metered("formatDate", &[n(0.0), s(&big)], None, None);
        assert_eq!(
            r.ok().and_then(|v| v.as_str().map(str::len)),
            Some(1_000_000)
        );
        assert_eq!(fuel, 1 + 1_000_000 + 1_000_000 / 16);
        assert_eq!(bytes, 1_000_000);
        // A small fuel budget stops it before the format is read: nothing
        // is charged to memory.
        let (r, _, bytes) = metered("formatDate", &[n(0.0), s(&big)], Some(1000), None);
        assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
        assert_eq!(bytes, 0);
        // A small memory budget stops it before the result is built.
        let (r, _, bytes) = metered("formatDate", &[n(0.0), s(&big)], None, Some(1000));
        assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Memory));
        assert_eq!(bytes, 0);
        // The result's length is exact, tokens and expanded years included.
        let (_, _, bytes) = metered("formatDate", &[n(8.64e15), s("yyyy-MM")], None, None);
        assert_eq!(bytes, 10);
        // parseDate: the format costs one fuel per byte, the text 1 / 16.
        let text = "1".repeat(1_000_000);
        let (r, fuel, bytes) = metered("parseDate", &[s(&text), s(&big)], None, None);
        assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Date));
        assert_eq!(fuel, 1 + 1_000_000 / 16 + 1 + 1_000_000);
        assert_eq!(bytes, 0);
        let (r, _, _) = metered("parseDate", &[s(&text), s(&big)], Some(1000), None);
        assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    }
}
