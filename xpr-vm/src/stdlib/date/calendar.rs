//! Calendar arithmetic: proleptic Gregorian days and civil fields, the
//! range of dates, and `dateAdd` / `dateDiff` in fixed or calendar units.

use super::{MAX_EPOCH_MS, MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND};
use crate::error::{Error, ErrorKind};

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
pub(super) fn days_in_month(year: i64, month: i64) -> i64 {
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

pub(super) fn out_of_range() -> Error {
    Error::new(ErrorKind::Date, "Date out of range")
}

/// Checks an epoch-millisecond value computed in wide arithmetic.
pub(super) fn in_range(ms: i128) -> Result<i64, Error> {
    if ms.unsigned_abs() > MAX_EPOCH_MS as u128 {
        Err(out_of_range())
    } else {
        i64::try_from(ms).map_err(|_| out_of_range())
    }
}

/// A unit of `dateAdd` / `dateDiff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Years,
    Months,
    Fixed(i64),
}

/// Splits a unit into (fixed milliseconds, months per unit).
pub(super) fn unit_parts(unit: Unit) -> (Option<i64>, i64) {
    match unit {
        Unit::Years => (None, 12),
        Unit::Months => (None, 1),
        Unit::Fixed(ms) => (Some(ms), 1),
    }
}

/// `date + amount unit`, months and years with JavaScript overflow (see the
/// module documentation). `amount` is already truncated.
///
/// # Errors
/// `Date out of range`.
pub(super) fn add(
    ms: i64,
    amount: i64,
    unit_ms: Option<i64>,
    months_per_unit: i64,
) -> Result<i64, Error> {
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
pub(super) fn diff(d1: i64, d2: i64, unit: Option<i64>, months_per_unit: i64) -> i64 {
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
