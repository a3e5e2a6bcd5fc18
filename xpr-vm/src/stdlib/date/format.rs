//! Writing dates: `formatDate`'s custom formats (the tokens `yyyy MM dd HH
//! mm ss SSS`, and the English weekday names `EEE` / `EEEE`). Years outside 0000..=9999 are written in the expanded form
//! `+YYYYYY` / `-YYYYYY`, as JavaScript's `toISOString` writes them, so
//! every valid date survives `formatDate` then `parseDate`.

use super::MS_PER_DAY;
use super::calendar::Civil;
use super::tokens::{Item, Token, WEEKDAYS, items, weekday};

/// The English name of the weekday of `ms`, whole (`Monday`) or its first
/// three letters (`Mon`).
fn weekday_name(ms: i64, long: bool) -> &'static str {
    let name = WEEKDAYS
        .get(weekday(ms.div_euclid(MS_PER_DAY)))
        .copied()
        .unwrap_or("");
    if long {
        name
    } else {
        name.get(..3).unwrap_or(name)
    }
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
/// writes its width (a year outside 0000..=9999 seven bytes, a weekday
/// its name), every other character itself.
pub fn formatted_len(ms: i64, format: &str) -> usize {
    let wide_year = !(0..=9999).contains(&Civil::from_ms(ms).year);
    items(format)
        .map(|item| match item {
            Item::Literal(l) => l.len(),
            Item::Token(Token::Year) if wide_year => 7,
            Item::Token(Token::WeekdayLong) => weekday_name(ms, true).len(),
            Item::Token(t) => t.width(),
        })
        .fold(0usize, usize::saturating_add)
}

/// Formats epoch milliseconds with the tokens `yyyy MM dd HH mm ss SSS`
/// (zero-padded; a year outside 0000..=9999 is written as JavaScript's
/// `toISOString` writes it, a sign and six digits: `+010000`, `-000001`)
/// and `EEE` / `EEEE` (`Mon`, `Monday`), every other character copied as
/// is (the format is checked before: a run of other letters is copied
/// here). The result has [`formatted_len`] bytes.
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
            Item::Token(t @ (Token::WeekdayShort | Token::WeekdayLong)) => {
                out.push_str(weekday_name(ms, t == Token::WeekdayLong));
                continue;
            }
        };
        push_digits(&mut out, value, width);
    }
    out
}
