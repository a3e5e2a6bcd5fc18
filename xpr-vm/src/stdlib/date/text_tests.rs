//! Unit tests of dates as text: ISO 8601 and custom formats read, formats
//! written, the items of a format, and what formats are charged.

use super::tests::{err, fmt, formatted, iso, n, num, run, s, says};
use crate::error::ErrorKind;
use crate::stdlib::testing::TestRuntime;
use crate::value::Value;

/// ISO 8601 texts and the epoch milliseconds they parse to: four-digit
/// years (read by `parse_iso_forms`), and expanded years, a sign and six
/// digits (read by `parse_iso_expanded_years`).
const ISO_PARSES: &[(&str, f64)] = &[
    ("1970-01-01T00:00:00Z", 0.0),
    ("2024-01-15T12:00:00Z", 1_705_320_000_000.0),
    ("2024-01-15", 1_705_276_800_000.0),
    ("2024-01-15T12:00:00", 1_705_320_000_000.0),
    ("2024-01-15 12:00:00Z", 1_705_320_000_000.0),
    ("2024-01-15T12:00Z", 1_705_320_000_000.0),
    ("2024-01-15T12:00", 1_705_320_000_000.0),
    ("2024-01-15T12:00:00.123Z", 1_705_320_000_123.0),
    ("2024-01-15T12:00:00.123456Z", 1_705_320_000_123.0),
    ("2024-01-15T12:00:00.5Z", 1_705_320_000_500.0),
    ("2024-01-15T14:00:00+02:00", 1_705_320_000_000.0),
    ("2024-01-15T07:30:00-04:30", 1_705_320_000_000.0),
    ("2024-01-15T12:00:00+00:00", 1_705_320_000_000.0),
    ("2024", 1_704_067_200_000.0),
    ("2024-02", 1_706_745_600_000.0),
    // Before the epoch: the fraction is truncated, not the instant.
    ("1969-12-31T23:59:59.9995Z", -1.0),
    ("1900-01-01", -2_208_988_800_000.0),
    ("2024-02-29", 1_709_164_800_000.0),
    // Expanded years: a sign and six digits, in every form a four-digit
    // year takes.
    ("+002024-01-15T00:00:00Z", 1_705_276_800_000.0),
    ("+002024-01-15", 1_705_276_800_000.0),
    ("+002024-03", 1_709_251_200_000.0),
    ("+002024", 1_704_067_200_000.0),
    ("+002024-01-15 10:30", 1_705_314_600_000.0),
    ("+002024-01-15T10:30:00.123+05:30", 1_705_294_800_123.0),
    ("-000001-01-01T00:00:00Z", -62_198_755_200_000.0),
    ("-000001-01-01", -62_198_755_200_000.0),
    ("-000001", -62_198_755_200_000.0),
    ("+010000-01-01T00:00:00Z", 253_402_300_800_000.0),
    ("-010000-01-01T00:00:00Z", -377_736_739_200_000.0),
    // The ends of JavaScript's range, reached with and without an offset.
    ("+275760-09-13T00:00:00Z", 8.64e15),
    ("+275760-09-13", 8.64e15),
    ("+275760-09-12T23:59:59.999Z", 8.64e15 - 1.0),
    ("+275760-09-13T00:00:00+00:01", 8.64e15 - 60_000.0),
    ("-271821-04-20T00:00:00Z", -8.64e15),
    ("-271821-04-20", -8.64e15),
    ("-271821-04-20T00:00:00-00:01", -8.64e15 + 60_000.0),
];

/// Asserts that the texts of [`ISO_PARSES`] with expanded years (or, when
/// `expanded` is false, with four-digit years) parse as it says.
fn check_parses(expanded: bool) {
    for &(text, ms) in ISO_PARSES {
        if text.starts_with(['+', '-']) == expanded {
            assert_eq!(iso(text), ms, "{text}");
        }
    }
}

#[test]
fn parse_iso_forms() {
    check_parses(false);
}

#[test]
fn parse_iso_expanded_years() {
    check_parses(true);
    assert_eq!(iso("+000000-01-01"), iso("0000-01-01"));
    assert_eq!(num("year", &[n(iso("-000001-01-01T00:00:00Z"))]), -1.0);
}

/// Invalid ISO texts and what `parseDate` says of them: `out of range`
/// (exactly `invalid date string: "TEXT", Date out of range`), `not ISO` (a
/// message that contains `expected an ISO 8601 date`), `invalid` (one that
/// contains `invalid date`). The first two are the dates beyond the range
/// and the malformed expanded years (`parse_iso_expanded_year_errors`).
const INVALID_ISO: &[(&str, &str)] = &[
    // One millisecond (or minute of offset) beyond either end.
    ("+275760-09-13T00:00:00.001Z", "out of range"),
    ("+275760-09-14", "out of range"),
    ("+275760-09-13T00:00:00-00:01", "out of range"),
    ("-271821-04-19T23:59:59.999Z", "out of range"),
    ("-271821-04-19", "out of range"),
    ("-271821-04-20T00:00:00+00:01", "out of range"),
    ("-271821", "out of range"),
    ("-271821-04", "out of range"),
    ("+999999-01-01", "out of range"),
    ("-999999-12-31", "out of range"),
    // Exactly six digits, a real sign, and no negative zero.
    ("-000000-01-01", "not ISO"),
    ("-000000", "not ISO"),
    ("-000000-01-01T00:00:00Z", "not ISO"),
    ("+02024-01-15", "not ISO"),
    ("+0002024-01-15", "not ISO"),
    ("002024-01-15", "not ISO"),
    ("+2024-01-15", "not ISO"),
    ("-2024-01-15", "not ISO"),
    ("+002024-1-15", "not ISO"),
    ("+002023-02-29", "not ISO"),
    ("\u{2212}000001-01-01", "not ISO"),
    ("+", "not ISO"),
    ("-", "not ISO"),
    ("+00202a-01-01", "not ISO"),
    // Other forms, fields out of range, time zone names.
    ("not-a-date", "invalid"),
    ("", "invalid"),
    ("2024-13-01", "invalid"),
    ("2023-02-29", "invalid"),
    ("2024-01-32", "invalid"),
    ("2024-01-15T25:00:00Z", "invalid"),
    (" 2024-01-15", "invalid"),
    ("2024-01-15 ", "invalid"),
    ("2024/01/15", "invalid"),
    ("2024-1-5", "invalid"),
    ("2024-00", "invalid"),
    ("2024-01-15T12:00:00Z[Europe/Paris]", "invalid"),
];

/// Asserts that the texts of [`INVALID_ISO`] said to fail as one of `says`
/// fail so.
fn check_invalid(says: &[&str]) {
    for &(text, what) in INVALID_ISO.iter().filter(|(_, w)| says.contains(w)) {
        let e = err("parseDate", &[s(text)]);
        assert_eq!(e.kind(), ErrorKind::Date, "{text}");
        match what {
            "out of range" => assert_eq!(
                e.message(),
                format!("invalid date string: \"{text}\", Date out of range")
            ),
            "not ISO" => assert!(e.message().contains("expected an ISO 8601 date"), "{text}"),
            "invalid" => assert!(
                e.message().contains("invalid date"),
                "{text}: {}",
                e.message()
            ),
            other => panic!("{text}: no check for {other:?}"),
        }
    }
}

#[test]
fn parse_iso_expanded_year_errors() {
    check_invalid(&["out of range", "not ISO"]);
}

#[test]
fn parse_iso_errors() {
    check_invalid(&["invalid"]);
    says(
        "parseDate",
        &[s("2024-13-01")],
        "invalid date string: \"2024-13-01\", expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z",
    );
    says(
        "parseDate",
        &[s("2024-01-15T12:00:00Z[UTC]")],
        "invalid date string: \"2024-01-15T12:00:00Z[UTC]\", time zone names are not supported, use Z or an offset",
    );
    let long = "9".repeat(70);
    assert_eq!(
        err("parseDate", &[s(&long)]).message(),
        format!(
            "invalid date string: \"{}...\", expected an ISO 8601 date such as 2024-01-15 or 2024-01-15T12:00:00Z",
            &long[..60]
        )
    );
    says(
        "parseDate",
        &[n(42.0)],
        "Type error: parseDate expects string, got number",
    );
    says(
        "parseDate",
        &[Value::Null],
        "Type error: parseDate expects string, got null",
    );
    says(
        "parseDate",
        &[s("2024"), n(1.0)],
        "Type error: parseDate format must be string, got number",
    );
    says(
        "parseDate",
        &[s("2024"), Value::Null],
        "Type error: parseDate format must be string, got null",
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
    assert_eq!(p("» 2024-01-15!", "» yyyy-MM-dd!"), 1_705_276_800_000.0);
    // Weekday names, checked against the date.
    assert_eq!(p("Mon 2024-01-15", "EEE yyyy-MM-dd"), 1_705_276_800_000.0);
    assert_eq!(
        p("Monday, 15.01.2024 Mon", "EEEE, dd.MM.yyyy EEE"),
        1_705_276_800_000.0
    );
    says(
        "parseDate",
        &[s("Tue 2024-01-15"), s("EEE yyyy-MM-dd")],
        "invalid date string: \"Tue 2024-01-15\", Tuesday is named but the date is a Monday",
    );
    mentions(
        "parseDate",
        &[s("Mon Tue"), s("EEE EEE")],
        "does not match format",
    );
    assert_eq!(p("2024-02-29", "yyyy-MM-dd"), 1_709_164_800_000.0);
    // `yyyy` also reads the expanded years `formatDate` writes.
    assert_eq!(p("+002024-01-15", "yyyy-MM-dd"), 1_705_276_800_000.0);
    assert_eq!(p("-000001/01", "yyyy/MM"), -62_198_755_200_000.0);
    assert_eq!(p("13.09.+275760", "dd.MM.yyyy"), 8.64e15);
    says(
        "parseDate",
        &[s("14.09.+275760"), s("dd.MM.yyyy")],
        "invalid date string: \"14.09.+275760\", Date out of range",
    );
    says(
        "parseDate",
        &[s("15/01/24"), s("dd/MM/yyyy")],
        "invalid date string: \"15/01/24\" does not match format \"dd/MM/yyyy\"",
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
    assert_eq!(formatted(0.0, "yyyy-MM-dd"), "1970-01-01");
    assert_eq!(formatted(0.0, "HH:mm:ss"), "00:00:00");
    assert_eq!(formatted(0.0, "SSS"), "000");
    assert_eq!(
        formatted(1_718_447_445_123.0, "yyyy-MM-dd'T'HH:mm:ss.SSS"),
        "2024-06-15'T'10:30:45.123"
    );
    assert_eq!(
        formatted(1_718_447_445_123.0, "EEE EEEE yyyy-MM-ddTHH:mmZ"),
        "Sat Saturday 2024-06-15T10:30Z"
    );
    assert_eq!(formatted(1_718_447_445_123.0, "ÉÉHH😀"), "ÉÉ10😀");
    assert_eq!(formatted(1_718_447_445_123.0, ""), "");
    assert_eq!(fmt(-1.0), "1969-12-31 23:59:59.999");
    // Outside 0000..=9999 the year is JavaScript's toISOString year.
    assert_eq!(fmt(-62_198_755_200_000.0), "-000001-01-01 00:00:00.000");
    assert_eq!(fmt(8.64e15), "+275760-09-13 00:00:00.000");
    assert_eq!(fmt(-8.64e15), "-271821-04-20 00:00:00.000");
    assert_eq!(fmt(-62_167_219_200_000.0), "0000-01-01 00:00:00.000");
    assert_eq!(fmt(253_402_300_799_999.0), "9999-12-31 23:59:59.999");
    assert_eq!(fmt(253_402_300_800_000.0), "+010000-01-01 00:00:00.000");
    assert_eq!(fmt(-62_167_219_200_001.0), "-000001-12-31 23:59:59.999");
    says(
        "formatDate",
        &[s("not-a-number"), s("yyyy")],
        "Type error: formatDate expects number (epoch ms), got string",
    );
    says(
        "formatDate",
        &[n(0.0), Value::Null],
        "Type error: formatDate format must be string, got null",
    );
    // Both types are checked before the range.
    let e = err("formatDate", &[n(1e300), n(1.0)]);
    assert_eq!(e.kind(), ErrorKind::Type);
    says("formatDate", &[n(1e300), s("yyyy")], "Date out of range");
    let mut rt = TestRuntime::default();
    assert!(run(&mut rt, "formatDate", &[n(0.0), s("yyyy-MM-dd")]).is_ok());
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
        let text = fmt(ms);
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
    let r = run(&mut rt, name, args);
    (r, rt.fuel_used, rt.bytes_used)
}

#[test]
fn formats_are_read_as_items_without_a_list() {
    use super::tokens::{Item, Token};
    fn items(f: &str) -> Vec<Item<'_>> {
        super::tokens::items(f).collect()
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
    // ASCII letters are read in runs of one letter: a token, or a lone
    // `T` / `Z` (literal); other text is one item up to the next letter,
    // non-ASCII letters included.
    assert_eq!(
        items("EEEE, ddTHH:mm É€ SSSZ"),
        [
            Item::Token(Token::WeekdayLong),
            Item::Literal(", "),
            Item::Token(Token::Day),
            Item::Literal("T"),
            Item::Token(Token::Hour),
            Item::Literal(":"),
            Item::Token(Token::Minute),
            Item::Literal(" É€ "),
            Item::Token(Token::Milli),
            Item::Literal("Z"),
        ]
    );
    assert_eq!(items("-".repeat(1000).as_str()).len(), 1);
    assert!(items("").is_empty());
    assert_eq!(super::formatted_len(0, "yyyy-MM-dd É"), 13);
    assert_eq!(super::formatted_len(8.64e15 as i64, "yyyy"), 7);
    // Weekday names have their own lengths: 1970-01-01 was a Thursday.
    assert_eq!(super::formatted_len(0, "EEEE EEE"), 12);
}

/// Asserts that `name(args)` fails with a message containing `want`.
fn mentions(name: &str, args: &[Value], want: &str) {
    let e = err(name, args);
    assert!(e.message().contains(want), "{e}");
}

#[test]
fn formats_hold_no_letters_but_tokens_and_a_lone_t_or_z() {
    use super::tokens::check;
    for ok in [
        "yyyy-MM-ddTHH:mm:ss.SSSZ",
        "EEE, dd MM yyyy",
        "EEEE",
        "",
        "12:00 ÉÉ 年",
        "'T'",
    ] {
        assert_eq!(check(ok), Ok(()), "{ok}");
    }
    for (bad, run, fix) in [
        ("YYYY-MM-DD", "YYYY", Some("yyyy-MM-dd")),
        ("yy", "yy", Some("yyyy")),
        ("yyyyy", "yyyyy", Some("yyyy")),
        ("HH:mm:ss.SSSS", "SSSS", Some("HH:mm:ss.SSS")),
        ("E dd", "E", Some("EEE dd")),
        ("EEEEE, ddTHH", "EEEEE", Some("EEEE, ddTHH")),
        ("d.M.yyyy hh:mm a", "d", None),
        ("dd.MM.yyyy hh:mm", "hh", Some("dd.MM.yyyy HH:mm")),
        ("%Y%m%d", "Y", Some("yyyyMMdd")),
        ("ddd, dd MMM", "ddd", Some("EEE, dd MM")),
        ("HH:mm TT", "TT", None),
        ("on dd", "o", None),
    ] {
        let e = check(bad).expect_err(bad);
        assert_eq!(e.kind(), ErrorKind::Date);
        assert!(
            e.message().starts_with(&format!(
                "invalid date format \"{bad}\": {run} is not a date token ("
            )),
            "{bad}: {e}"
        );
        match fix {
            Some(f) => assert!(
                e.hint()
                    .is_some_and(|h| h.starts_with(&format!("write \"{f}\": "))),
                "{bad}: {e}"
            ),
            None => assert!(
                e.hint().is_some_and(|h| h.contains("join words with +")),
                "{bad}: {e}"
            ),
        }
    }
    // A long format is shown cut, its run too.
    let e = check(&format!("{}x", "-".repeat(100))).expect_err("x");
    assert!(e.message().contains("-...\": x is"), "{e}");
    // Both built-ins check the format.
    mentions(
        "formatDate",
        &[n(0.0), s("DD")],
        "invalid date format \"DD\": DD is not a date token (write \"dd\"",
    );
    mentions(
        "parseDate",
        &[s("01"), s("DD")],
        "invalid date format \"DD\": DD is not a date token (write \"dd\"",
    );
}

#[test]
fn a_suggested_format_is_checked_without_suggesting_again() {
    // Each fix of a strftime format peels one `%`; checking the fix built
    // its own error and suggestion, and so on: twice the work per `%`
    // (fuzz finding: 25 took over 20 s). 150 would never end.
    let format = format!("yyyy-MM-d{}d à HH:lm", "%".repeat(150));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(super::tokens::check(&format).map_err(|e| e.message().to_string()));
    });
    // Microseconds with the fix: the deadline only turns a hang into a failure.
    let got = rx.recv_timeout(std::time::Duration::from_secs(120));
    let message = got.expect("the check ends").expect_err("refused");
    assert!(message.contains("d is not a date token"), "{message}");
}

#[test]
fn formats_are_charged_per_byte_before_they_are_expanded() {
    // Issue 11: a 60 MB format built an uncounted list of 8 bytes per
    // character (590 MB) before the memory limit stopped it. Now the
    // format costs one fuel per byte before it is read, and the result's
    // memory is charged before it is built.
    let big = "-".repeat(1_000_000);
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
    // A format refused for its letters is charged before it is checked.
    let letters = "x".repeat(1_000_000);
    let (r, fuel, bytes) = metered("formatDate", &[n(0.0), s(&letters)], None, None);
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Date));
    assert_eq!((fuel, bytes), (1 + 1_000_000, 0));
    let (r, _, _) = metered("parseDate", &[s("1"), s(&letters)], Some(1000), None);
    assert_eq!(r.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
}
