//! The tokens of custom date formats (`yyyy MM dd HH mm ss SSS`, spec "ICU
//! Format Tokens", and the weekday names `EEE EEEE`), the check that a
//! format holds no other ASCII letters, and a format read as tokens and
//! literal text, one item at a time.
//!
//! ASCII letters are read in runs of one letter, as ICU reads them: a run
//! is a token, or a lone `T` or `Z` (ISO 8601's separator and UTC
//! designator, copied as written), or an error ([`check`]): `YYYY`, `DD`,
//! `yy`, `hh` and words are mistakes, not text to copy. Every other
//! character (digits, punctuation, spaces, non-ASCII letters) is copied.

use crate::error::{Error, ErrorKind};

/// A format token (spec "ICU Format Tokens", a closed set, and the
/// weekday names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    /// `EEE`: `Mon`.
    WeekdayShort,
    /// `EEEE`: `Monday`.
    WeekdayLong,
}

impl Token {
    /// Digits the token reads and writes (a year may also be expanded; a
    /// weekday name is letters, not digits: its width is unused).
    pub(super) fn width(self) -> usize {
        match self {
            Token::Year => 4,
            Token::Milli | Token::WeekdayShort => 3,
            _ => 2,
        }
    }
}

/// The weekday names, Sunday first (the order of `dayOfWeek`).
pub(super) const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The tokens, as an error's hint lists them.
const TOKENS: &str = "yyyy MM dd HH mm ss SSS EEE EEEE";

/// One item of a format: a token, or literal text (a run of characters
/// that holds no token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item<'f> {
    Token(Token),
    Literal(&'f str),
}

/// The items of a format, read one at a time: a run of one ASCII letter
/// is a token or a lone `T` / `Z`; the text up to the next ASCII letter is
/// literal. Never collected into a list, so a format costs no memory
/// beyond itself, and literal text is handled a run at a time. A format
/// that [`check`] refuses is read with its bad runs as literal text.
pub(super) struct Items<'f> {
    rest: &'f str,
}

pub(super) fn items(format: &str) -> Items<'_> {
    Items { rest: format }
}

/// The length of the run of `b`'s first byte at the start of `b`.
fn run_len(b: &[u8]) -> usize {
    match b.first() {
        Some(&c) => b.iter().take_while(|&&x| x == c).count(),
        None => 0,
    }
}

/// The token a run of `len` letters `letter` is.
fn token(letter: u8, len: usize) -> Option<Token> {
    Some(match (letter, len) {
        (b'y', 4) => Token::Year,
        (b'M', 2) => Token::Month,
        (b'd', 2) => Token::Day,
        (b'H', 2) => Token::Hour,
        (b'm', 2) => Token::Minute,
        (b's', 2) => Token::Second,
        (b'S', 3) => Token::Milli,
        (b'E', 3) => Token::WeekdayShort,
        (b'E', 4) => Token::WeekdayLong,
        _ => return None,
    })
}

/// Whether a run is a token or a lone `T` / `Z`.
fn allowed(letter: u8, len: usize) -> bool {
    token(letter, len).is_some() || (len == 1 && matches!(letter, b'T' | b'Z'))
}

impl<'f> Iterator for Items<'f> {
    type Item = Item<'f>;

    fn next(&mut self) -> Option<Item<'f>> {
        let rest = self.rest;
        let bytes = rest.as_bytes();
        let first = *bytes.first()?;
        let (end, item) = if first.is_ascii_alphabetic() {
            let n = run_len(bytes);
            let item = match token(first, n) {
                Some(t) => Item::Token(t),
                None => Item::Literal(rest.get(..n).unwrap_or(rest)),
            };
            (n, item)
        } else {
            // Up to the next ASCII letter: a character boundary.
            let n = bytes
                .iter()
                .position(u8::is_ascii_alphabetic)
                .unwrap_or(bytes.len());
            (n, Item::Literal(rest.get(..n).unwrap_or(rest)))
        };
        self.rest = rest.get(end..).unwrap_or("");
        Some(item)
    }
}

/// Refuses a format with an ASCII letter that is neither part of a token
/// nor a lone `T` / `Z`: `invalid date format "YYYY-MM-DD": YYYY is not a
/// date token` (kind [`ErrorKind::Date`]), with a hint giving the format
/// in XPR's tokens when another convention's are recognised (`write
/// "yyyy-MM-dd"`), else the tokens and how to put words in the result.
///
/// # Errors
/// As above, for the first such run of letters.
pub(super) fn check(format: &str) -> Result<(), Error> {
    match first_bad_run(format) {
        Some(run) => Err(bad_run(format, run)),
        None => Ok(()),
    }
}

/// The first run of ASCII letters in `format` that is neither a token nor
/// a lone `T` / `Z`, if any: one pass, no error built (a suggested fix is
/// checked with this; checking it with [`check`] built that fix's error
/// and its own suggestion in turn, a chain that doubled with each `%` of
/// a strftime format: fuzz finding, `formatDate(0, "d%%%...%%d")` with 25
/// `%` took over 20 s).
fn first_bad_run(format: &str) -> Option<&str> {
    let b = format.as_bytes();
    let mut at = 0;
    while let Some(tail) = b.get(at..) {
        let i = tail.iter().position(u8::is_ascii_alphabetic)?;
        let start = at + i;
        let run = b.get(start..).unwrap_or(&[]);
        let n = run_len(run);
        if !allowed(run.first().copied().unwrap_or(b'T'), n) {
            return Some(format.get(start..start + n).unwrap_or(""));
        }
        at = start + n;
    }
    None
}

#[cold]
fn bad_run(format: &str, run: &str) -> Error {
    let shown: String = format.chars().take(40).collect();
    let more = if format.chars().nth(40).is_some() {
        "..."
    } else {
        ""
    };
    let shown_run: String = run.chars().take(8).collect();
    let e = Error::new(
        ErrorKind::Date,
        format!("invalid date format \"{shown}{more}\": {shown_run} is not a date token"),
    );
    let tokens = format!(
        "XPR's tokens are {TOKENS}; a lone T or Z is copied, other letters are not allowed"
    );
    let fixed = crate::foreign::date_format_fix(format)
        .filter(|f| first_bad_run(f).is_none())
        .or_else(|| run_fix(format).filter(|f| first_bad_run(f).is_none()));
    // ICU's and moment's AM/PM marker, `hh:mm a`.
    let am_pm = format
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| !w.is_empty() && w.bytes().all(|c| matches!(c, b'a' | b'A')));
    let clock = if am_pm {
        "XPR has no AM/PM: HH is the hour 00-23; "
    } else {
        ""
    };
    e.with_hint(match fixed {
        Some(f) => format!("write \"{f}\": {tokens}"),
        None => format!(
            "{clock}{tokens}: join words with +, as formatDate(d, \"dd.MM.yyyy\") + \" at \" + formatDate(d, \"HH:mm\")"
        ),
    })
}

/// `format` with each run of a token's letter of another length written as
/// the token (`yyyyy` -> `yyyy`, `SSSS` -> `SSS`, `E` -> `EEE`, `EEEEE` ->
/// `EEEE`), and `Y`, `D`, `h` runs as `yyyy`, `dd`, `HH`; `None` when
/// nothing changes or the format is longer than 200 bytes.
fn run_fix(format: &str) -> Option<String> {
    if format.len() > 200 {
        return None;
    }
    let b = format.as_bytes();
    let mut out = String::with_capacity(format.len());
    let mut changed = false;
    let mut at = 0;
    while let Some(tail) = b.get(at..).filter(|t| !t.is_empty()) {
        let first = tail.first().copied().unwrap_or(b' ');
        let n = if first.is_ascii_alphabetic() {
            run_len(tail)
        } else {
            // A character: copied whole.
            format.get(at..)?.chars().next()?.len_utf8()
        };
        let run = format.get(at..at + n)?;
        let token = match (first, n) {
            _ if allowed(first, n) => run,
            (b'y' | b'Y', _) => "yyyy",
            (b'M', _) => "MM",
            (b'd' | b'D', _) => "dd",
            (b'H' | b'h', _) => "HH",
            (b'm', _) => "mm",
            (b's', _) => "ss",
            (b'S', _) => "SSS",
            (b'E', 1 | 2) => "EEE",
            (b'E', _) => "EEEE",
            _ => run,
        };
        changed |= token != run;
        out.push_str(token);
        at += n;
    }
    changed.then_some(out)
}

/// The weekday (0 = Sunday ..= 6 = Saturday) of a day count since
/// 1970-01-01, a Thursday.
pub(super) fn weekday(days: i64) -> usize {
    (days + 4).rem_euclid(7) as usize
}
