//! Date and time functions (spec "Date/Time Functions (v0.3)").
//!
//! A date is a number: UTC epoch milliseconds. Valid dates are whole or
//! fractional numbers within JavaScript's range, `-8.64e15 ..= 8.64e15`
//! milliseconds (about 271,821 BCE to 275,760 CE); any other number is
//! `Date out of range`. A fractional input is truncated toward zero first,
//! as JavaScript's `new Date(x)` does (`year(-0.5)` is 1970). Every result
//! is a whole number.
//!
//! Civil (calendar) fields are computed with proleptic Gregorian day
//! arithmetic (exact over the whole range, submodule `calendar`); text is
//! read by `parse` and written by `format`, custom formats being read
//! token by token (`tokens`). `dateAdd` of months and years is done
//! on civil fields with JavaScript `Date` overflow: Jan 31 + 1 month is
//! Mar 2 in a leap year, Feb 29 + 1 year is Mar 1, and the time of day is
//! kept.
//!
//! Arguments are checked as the Python reference checks them: the types of
//! all of them first, then the unit's name, then the dates' range; error
//! texts contain the reference's words (`year expects number (epoch ms)`,
//! `dateAdd amount must be number`, `invalid unit "weeks" for dateAdd`)
//! followed by ours (`, got null`). The built-ins and these checks are in
//! the submodule `builtins`; this module registers them.
//!
//! Custom formats hold no ASCII letters but the tokens `yyyy MM dd HH mm
//! ss SSS`, the English weekday names `EEE` (`Mon`) and `EEEE` (`Monday`),
//! and a lone `T` or `Z` ([`check_format`]); `dayOfWeek` numbers the days
//! as JavaScript's `getUTCDay` does, 0 = Sunday.
//!
//! # Fuel
//! Every function costs 1 fuel; `parseDate` also `bytes / 16` of its text,
//! and a custom format (`parseDate`'s second argument, `formatDate`'s) one
//! per byte, charged before the format is read. A format is expanded token
//! by token as it is read, never into a list. `formatDate` computes its
//! result's length first, then charges `bytes / 16` fuel and the bytes of
//! memory, then builds the string.

use self::builtins::{
    fn_date_add, fn_date_diff, fn_day, fn_day_of_week, fn_format_date, fn_hour, fn_millisecond,
    fn_minute, fn_month, fn_now, fn_parse_date, fn_second, fn_year,
};
use super::FunctionDef;
use crate::function::Arity;

mod builtins;
mod calendar;
mod format;
mod parse;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod text_tests;
mod tokens;

pub use calendar::{Civil, civil_from_days, days_from_civil};
pub use format::{format_ms, formatted_len};
pub use parse::{parse_iso, parse_with_format};

/// Checks a custom format (`formatDate`'s, `parseDate`'s second argument)
/// as both functions do before reading it: every ASCII letter is part of
/// a token (`yyyy MM dd HH mm ss SSS EEE EEEE`) or a lone `T` / `Z`.
///
/// # Errors
/// `invalid date format "YYYY-MM-DD": YYYY is not a date token` (kind
/// [`crate::ErrorKind::Date`]) with a hint: the format in XPR's tokens when
/// another convention's are recognised (`write "yyyy-MM-dd"`).
pub fn check_format(format: &str) -> Result<(), crate::Error> {
    tokens::check(format)
}

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
        sig: "() -> number",
        doc: "the current instant",
    },
    FunctionDef {
        name: "parseDate",
        arity: Arity::Range(1, 2),
        call: fn_parse_date,
        sig: "(text, format?) -> number",
        doc: "ISO 8601 text (or text in format) to a date",
    },
    FunctionDef {
        name: "formatDate",
        arity: Arity::Exact(2),
        call: fn_format_date,
        sig: "(date, format) -> string",
        doc: "date as text; format tokens yyyy MM dd HH mm ss SSS EEE EEEE",
    },
    FunctionDef {
        name: "year",
        arity: Arity::Exact(1),
        call: fn_year,
        sig: "(date) -> number",
        doc: "year",
    },
    FunctionDef {
        name: "month",
        arity: Arity::Exact(1),
        call: fn_month,
        sig: "(date) -> number",
        doc: "month, 1-12",
    },
    FunctionDef {
        name: "day",
        arity: Arity::Exact(1),
        call: fn_day,
        sig: "(date) -> number",
        doc: "day of the month, 1-31",
    },
    FunctionDef {
        name: "dayOfWeek",
        arity: Arity::Exact(1),
        call: fn_day_of_week,
        sig: "(date) -> number",
        doc: "day of the week, 0 (Sunday) to 6 (Saturday)",
    },
    FunctionDef {
        name: "hour",
        arity: Arity::Exact(1),
        call: fn_hour,
        sig: "(date) -> number",
        doc: "hour, 0-23",
    },
    FunctionDef {
        name: "minute",
        arity: Arity::Exact(1),
        call: fn_minute,
        sig: "(date) -> number",
        doc: "minute, 0-59",
    },
    FunctionDef {
        name: "second",
        arity: Arity::Exact(1),
        call: fn_second,
        sig: "(date) -> number",
        doc: "second, 0-59",
    },
    FunctionDef {
        name: "millisecond",
        arity: Arity::Exact(1),
        call: fn_millisecond,
        sig: "(date) -> number",
        doc: "millisecond, 0-999",
    },
    FunctionDef {
        name: "dateAdd",
        arity: Arity::Exact(3),
        call: fn_date_add,
        sig: "(date, amount, unit) -> number",
        doc: "date plus amount units",
    },
    FunctionDef {
        name: "dateDiff",
        arity: Arity::Exact(3),
        call: fn_date_diff,
        sig: "(from, to, unit) -> number",
        doc: "to - from, in whole units",
    },
];
