//! Turning values into text: JavaScript number spelling, the display form
//! that `string()`, template literals and `join` produce, and compact JSON.
//!
//! - Numbers are spelled exactly as JavaScript's `String(x)` (through the
//!   `ryu-js` crate): `0.1 + 0.2` is `0.30000000000000004`, `1e21` is
//!   `1e+21`, `1e-7` is `1e-7`, `100` is `100`, `-0` is `0`.
//! - The display form (spec "Type Functions", `string(v)`): `null`, `true`,
//!   `false` as words, numbers as above, strings raw, a regex as `/p/f`,
//!   arrays and objects as compact JSON with JavaScript number text
//!   (`[1,2]`, `{"a":1}`). Inside an array or object a regex is written as
//!   the JSON string of its display form (`["/a/i"]`). A function has no
//!   display form: a type error.
//! - JSON (for hosts and the CLI): compact, object keys in insertion order,
//!   strings escaped as `JSON.stringify` does, integral numbers without
//!   `.0`. A regex or a function has no JSON form: a type error, and the
//!   caller decides what to do with it.
//!
//! Every writer here walks arrays and objects with an explicit stack, never
//! by recursion, so a value of any depth (even one built by a host past the
//! VM's depth budget) cannot overflow the thread's stack.

use std::io;

use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::{Key, Value};

/// Bytes of text scanned or produced per fuel unit, for every built-in that
/// works on text (`string()`, templates, `join`, the string methods).
pub const BYTES_PER_FUEL: u64 = 16;

/// Fuel for scanning or producing `bytes` bytes of text: `1 + bytes / 16`.
#[inline]
pub fn text_fuel(bytes: usize) -> u64 {
    1 + bytes as u64 / BYTES_PER_FUEL
}

/// Spells a number exactly as JavaScript's `String(x)` does
/// (ECMAScript `Number::toString`): shortest round-trip digits, plain
/// decimal between `1e-7` (exclusive) and `1e21` (exclusive), exponent form
/// `1e+21` / `1e-7` outside, `-0` as `0`. NaN and infinities (which XPR
/// values never hold) are `NaN`, `Infinity`, `-Infinity`.
pub fn number_to_string(n: f64) -> String {
    let mut out = String::new();
    write_number(n, &mut out);
    out
}

/// Appends [`number_to_string`]`(n)` to `out` without an intermediate allocation.
#[inline]
pub fn write_number(n: f64, out: &mut String) {
    let mut buf = NumberBuf::new();
    out.push_str(buf.format(n));
}

/// Formats numbers: integers below 1e15 in magnitude by a digit loop (the
/// common case in data), everything else through `ryu-js`.
struct NumberBuf {
    digits: [u8; 20],
    ryu: ryu_js::Buffer,
}

impl NumberBuf {
    fn new() -> Self {
        NumberBuf {
            digits: [0; 20],
            ryu: ryu_js::Buffer::new(),
        }
    }

    fn format(&mut self, n: f64) -> &str {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            // Exact: integral and far inside i64; -0 becomes 0, as in JavaScript.
            let negative = n < 0.0;
            let mut m = n.abs() as u64;
            // At most 16 bytes are written (15 digits and a sign) into 20.
            let mut i = self.digits.len();
            loop {
                i -= 1;
                if let Some(d) = self.digits.get_mut(i) {
                    *d = b'0' + (m % 10) as u8;
                }
                m /= 10;
                if m == 0 {
                    break;
                }
            }
            if negative {
                i -= 1;
                if let Some(d) = self.digits.get_mut(i) {
                    *d = b'-';
                }
            }
            let text = self.digits.get(i..).unwrap_or_default();
            return std::str::from_utf8(text).unwrap_or("0");
        }
        self.ryu.format(n)
    }
}

/// Appends the display form of `v` to `out` (see the module doc): what
/// `string(v)`, a template literal `${v}` and `join` produce.
///
/// # Errors
/// `Type error: cannot convert function to string` when `v` is, or contains,
/// a function ([`crate::ErrorKind::Type`]). `out` may then hold a partial text.
pub fn write_display(v: &Value, out: &mut String) -> Result<(), Error> {
    write_value(v, out, Mode::Display)
}

/// The display form of `v` as a new string (see [`write_display`]).
///
/// # Errors
/// As [`write_display`].
pub fn to_display_string(v: &Value) -> Result<String, Error> {
    let mut out = String::new();
    write_display(v, &mut out)?;
    Ok(out)
}

/// The length in bytes of the display form of `v`, computed without
/// building it (one walk over the value). Lets a built-in charge memory and
/// fuel before it writes.
///
/// # Errors
/// As [`write_display`].
pub fn display_len(v: &Value) -> Result<u64, Error> {
    match v {
        Value::String(s) => Ok(s.len() as u64),
        _ => {
            let mut counter = Counter(0);
            write_value(v, &mut counter, Mode::Display)?;
            Ok(counter.0)
        }
    }
}

/// Appends the display form of `v` to `out` on behalf of a built-in:
/// charges the runtime `text_fuel(len)` fuel and `len` bytes of memory
/// (`len` being the display form's length in bytes) *before* writing.
/// Strings, numbers and the other scalars are written in one pass; arrays
/// and objects are measured first ([`display_len`]), then written.
///
/// # Errors
/// The fuel or memory error of the runtime, or the function type error of
/// [`write_display`].
pub fn display_metered(rt: &mut dyn Runtime, v: &Value, out: &mut String) -> Result<(), Error> {
    match v {
        Value::String(s) => {
            rt.alloc(s.len() as u64)?;
            rt.fuel(text_fuel(s.len()))?;
            out.push_str(s);
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Regex(_) => {
            let start = out.len();
            write_display(v, out)?;
            let len = out.len() - start;
            // Scalars are at most a few dozen bytes (a regex: its pattern,
            // already counted when the literal was built), so charging
            // right after writing stays within a constant of the budget.
            rt.alloc(len as u64)?;
            rt.fuel(text_fuel(len))
        }
        Value::Array(_) | Value::Object(_) | Value::Function(_) => {
            let len = display_len(v)?;
            rt.alloc(len)?;
            rt.fuel(text_fuel(usize::try_from(len).unwrap_or(usize::MAX)))?;
            out.reserve(usize::try_from(len).unwrap_or(0));
            write_display(v, out)
        }
    }
}

/// Compact JSON text of `v`: object keys in insertion order, strings escaped
/// as `JSON.stringify` does (`"`, `\`, and control characters; nothing
/// else), numbers spelled as JavaScript does (`100`, not `100.0`).
///
/// # Errors
/// `Type error: cannot convert regex to JSON` / `... function to JSON` when
/// `v` is or contains one ([`crate::ErrorKind::Type`]).
pub fn to_json_string(v: &Value) -> Result<String, Error> {
    let mut out = String::new();
    write_json(v, &mut out)?;
    Ok(out)
}

/// Appends the compact JSON text of `v` to `out` (see [`to_json_string`]).
/// The CLI's fast path: reuse one `String` per output record.
///
/// # Errors
/// As [`to_json_string`]; `out` may then hold a partial text.
pub fn write_json(v: &Value, out: &mut String) -> Result<(), Error> {
    write_value(v, out, Mode::Json)
}

/// Appends the JSON text of `v` indented by two spaces per level, laid out as
/// JavaScript's `JSON.stringify(v, null, 2)` does (`[]` and `{}` stay on one
/// line; `"key": value`).
///
/// # Errors
/// As [`to_json_string`].
pub fn write_json_pretty(v: &Value, out: &mut String) -> Result<(), Error> {
    write_value(v, out, Mode::Pretty)
}

/// Writes the compact JSON text of `v` to an `io::Write` sink.
///
/// # Errors
/// The sink's I/O error, or an `io::ErrorKind::InvalidData` error wrapping
/// the [`Error`] of [`to_json_string`] (recover it with
/// `err.get_ref().and_then(|e| e.downcast_ref::<xpr_vm::Error>())`).
pub fn write_json_io<W: io::Write + ?Sized>(v: &Value, w: &mut W) -> io::Result<()> {
    let mut sink = IoSink { w, err: None };
    let result = write_value(v, &mut sink, Mode::Json);
    if let Some(e) = sink.err {
        return Err(e);
    }
    result.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Appends `s` as a quoted JSON string, escaped as `JSON.stringify` does:
/// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters below
/// U+0020 as `\u00xx` (lower-case hex); everything else (including non-ASCII
/// and U+2028/U+2029) as is.
pub fn write_json_str(s: &str, out: &mut String) {
    write_json_string(s, out);
}

// ---------------------------------------------------------------- internals

/// Where text goes: a string, an I/O sink, or a byte counter.
trait Sink {
    fn put(&mut self, s: &str);
    fn put_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.put(c.encode_utf8(&mut buf));
    }
}

impl Sink for String {
    #[inline]
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
    #[inline]
    fn put_char(&mut self, c: char) {
        self.push(c);
    }
}

/// Counts bytes instead of writing them.
struct Counter(u64);

impl Sink for Counter {
    #[inline]
    fn put(&mut self, s: &str) {
        self.0 = self.0.saturating_add(s.len() as u64);
    }
}

/// Writes to an `io::Write`, keeping the first error and writing nothing after it.
struct IoSink<'a, W: io::Write + ?Sized> {
    w: &'a mut W,
    err: Option<io::Error>,
}

impl<W: io::Write + ?Sized> Sink for IoSink<'_, W> {
    fn put(&mut self, s: &str) {
        if self.err.is_none()
            && let Err(e) = self.w.write_all(s.as_bytes())
        {
            self.err = Some(e);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `string()`: scalars bare, regexes as `/p/f`, containers as compact JSON.
    Display,
    /// Compact JSON; regexes are an error.
    Json,
    /// JSON indented by two spaces.
    Pretty,
}

/// One open array or object in the explicit stack of [`write_value`].
enum Frame<'a> {
    Array(std::slice::Iter<'a, Value>, bool),
    Object(indexmap::map::Iter<'a, Key, Value>, bool),
}

fn write_value(v: &Value, out: &mut impl Sink, mode: Mode) -> Result<(), Error> {
    // Top-level scalars in display mode are bare; everything nested is JSON.
    match (mode, v) {
        (Mode::Display, Value::String(s)) => {
            out.put(s);
            return Ok(());
        }
        (Mode::Display, Value::Regex(r)) => {
            out.put_char('/');
            out.put(r.pattern());
            out.put_char('/');
            out.put(r.flags());
            return Ok(());
        }
        _ => {}
    }
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next: Option<&Value> = Some(v);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Null => out.put("null"),
                Value::Bool(true) => out.put("true"),
                Value::Bool(false) => out.put("false"),
                Value::Number(n) => {
                    if n.is_finite() || mode == Mode::Display {
                        let mut buf = NumberBuf::new();
                        out.put(buf.format(*n));
                    } else {
                        // Never held by an XPR value; JSON.stringify writes null.
                        out.put("null");
                    }
                }
                Value::String(s) => write_json_string(s, out),
                Value::Regex(r) => {
                    if mode != Mode::Display {
                        return Err(Error::type_error("cannot convert regex to JSON"));
                    }
                    let mut text = String::with_capacity(r.pattern().len() + r.flags().len() + 2);
                    text.push('/');
                    text.push_str(r.pattern());
                    text.push('/');
                    text.push_str(r.flags());
                    write_json_string(&text, out);
                }
                Value::Function(_) => {
                    return Err(Error::type_error(if mode == Mode::Display {
                        "cannot convert function to string"
                    } else {
                        "cannot convert function to JSON"
                    }));
                }
                Value::Array(a) => {
                    if a.is_empty() {
                        out.put("[]");
                    } else {
                        out.put_char('[');
                        stack.push(Frame::Array(a.items().iter(), true));
                    }
                }
                Value::Object(o) => {
                    if o.is_empty() {
                        out.put("{}");
                    } else {
                        out.put_char('{');
                        stack.push(Frame::Object(o.map().iter(), true));
                    }
                }
            }
        }
        let depth = stack.len();
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        match top {
            Frame::Array(items, first) => match items.next() {
                Some(item) => {
                    separator(out, mode, first, depth);
                    next = Some(item);
                }
                None => {
                    stack.pop();
                    close(out, mode, ']', depth);
                }
            },
            Frame::Object(fields, first) => match fields.next() {
                Some((key, value)) => {
                    separator(out, mode, first, depth);
                    write_json_string(key, out);
                    out.put(if mode == Mode::Pretty { ": " } else { ":" });
                    next = Some(value);
                }
                None => {
                    stack.pop();
                    close(out, mode, '}', depth);
                }
            },
        }
    }
}

/// Before an element: a comma unless it is the first; in pretty mode a
/// newline and the indentation of `depth` levels.
fn separator(out: &mut impl Sink, mode: Mode, first: &mut bool, depth: usize) {
    if !*first {
        out.put_char(',');
    }
    *first = false;
    if mode == Mode::Pretty {
        newline_indent(out, depth);
    }
}

/// Closes a non-empty array or object opened at `depth` levels.
fn close(out: &mut impl Sink, mode: Mode, bracket: char, depth: usize) {
    if mode == Mode::Pretty {
        newline_indent(out, depth - 1);
    }
    out.put_char(bracket);
}

fn newline_indent(out: &mut impl Sink, depth: usize) {
    const SPACES: &str = "                                ";
    out.put_char('\n');
    let mut remaining = depth * 2;
    while remaining > 0 {
        let n = remaining.min(SPACES.len());
        out.put(SPACES.get(..n).unwrap_or_default());
        remaining -= n;
    }
}

fn write_json_string(s: &str, out: &mut impl Sink) {
    out.put_char('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        // `i` is at an ASCII byte, hence at a character boundary.
        out.put(s.get(start..i).unwrap_or_default());
        if escape.is_empty() {
            // b < 0x20: "\u00" and two lower-case hex digits.
            let hex = |d: u8| char::from_digit(u32::from(d), 16).unwrap_or('0');
            out.put("\\u00");
            out.put_char(hex(b >> 4));
            out.put_char(hex(b & 0xf));
        } else {
            out.put(escape);
        }
        start = i + 1;
    }
    out.put(s.get(start..).unwrap_or_default());
    out.put_char('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::stdlib::testing::TestRuntime;
    use crate::value::Map;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        let mut m = Map::default();
        for (k, v) in pairs {
            m.insert((*k).into(), v.clone());
        }
        Value::object(m)
    }

    fn n(x: f64) -> Value {
        Value::Number(x)
    }

    fn regex(p: &str, f: &str) -> Value {
        Value::Regex(std::sync::Arc::new(
            crate::stdlib::regex::compile(p, f).expect("valid test regex"),
        ))
    }

    #[test]
    fn numbers_are_spelled_as_javascript_does() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (100.0, "100"),
            (-42.0, "-42"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123456789012345680000.0, "123456789012345680000"),
            (2.5e-3, "0.0025"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (-1e-7, "-1e-7"),
            (2.75, "2.75"),
            (9007199254740993.0, "9007199254740992"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(x, want) in cases {
            assert_eq!(number_to_string(x), want, "for {x:e}");
        }
    }

    #[test]
    fn integer_fast_path_agrees_with_ryu_js() {
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let check = |x: f64| {
            let mut ryu = ryu_js::Buffer::new();
            assert_eq!(number_to_string(x), ryu.format(x), "for {x:e}");
        };
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            9.0,
            10.0,
            99.0,
            100.0,
            999999999999999.0,
            -999999999999999.0,
            1e15,
            -1e15,
        ] {
            check(x);
        }
        for _ in 0..20_000 {
            let r = next();
            let digits = (r % 16) as i32;
            let x = ((r >> 8) % 10u64.pow(digits as u32).max(1)) as f64;
            check(if r & 1 == 1 { -x } else { x });
            check(f64::from_bits(next()));
            check(x / 8.0);
        }
    }

    #[test]
    fn display_of_scalars_is_bare() {
        assert_eq!(to_display_string(&Value::Null).unwrap(), "null");
        assert_eq!(to_display_string(&Value::Bool(true)).unwrap(), "true");
        assert_eq!(to_display_string(&Value::Bool(false)).unwrap(), "false");
        assert_eq!(to_display_string(&n(-0.0)).unwrap(), "0");
        assert_eq!(to_display_string(&Value::from("a\"b\n")).unwrap(), "a\"b\n");
        assert_eq!(to_display_string(&regex(r"\d+", "im")).unwrap(), r"/\d+/im");
    }

    #[test]
    fn display_of_containers_is_compact_json_with_js_numbers() {
        let v = Value::array(vec![
            n(1.0),
            n(2.5),
            n(1e21),
            Value::Null,
            Value::from("x\"y"),
        ]);
        assert_eq!(
            to_display_string(&v).unwrap(),
            r#"[1,2.5,1e+21,null,"x\"y"]"#
        );
        let o = obj(&[("b", n(1.0)), ("a", Value::array(vec![])), ("c", obj(&[]))]);
        assert_eq!(to_display_string(&o).unwrap(), r#"{"b":1,"a":[],"c":{}}"#);
        let nested = Value::array(vec![regex("a/b", "i"), Value::Bool(false)]);
        assert_eq!(to_display_string(&nested).unwrap(), r#"["/a/b/i",false]"#);
    }

    #[test]
    fn display_and_json_reject_functions() {
        let f = Value::Function(std::sync::Arc::new(crate::function::Function::Builtin(0)));
        let e = to_display_string(&f).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type);
        assert!(e.message().contains("function"), "{e}");
        let inside = Value::array(vec![n(1.0), f.clone()]);
        assert!(to_display_string(&inside).is_err());
        assert!(display_len(&inside).is_err());
        let e = to_json_string(&obj(&[("f", f)])).unwrap_err();
        assert!(
            e.message().contains("cannot convert function to JSON"),
            "{e}"
        );
    }

    #[test]
    fn json_rejects_regex_but_display_accepts_it() {
        let r = regex("x", "");
        let e = to_json_string(&r).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type);
        assert!(e.message().contains("regex"));
        assert!(to_json_string(&Value::array(vec![r.clone()])).is_err());
        assert_eq!(
            to_display_string(&Value::array(vec![r])).unwrap(),
            r#"["/x/"]"#
        );
    }

    #[test]
    fn json_escapes_like_json_stringify() {
        let s = Value::from("q\" b\\ \u{8}\u{c}\n\r\t \u{1} \u{1f} \u{7f} é 😀 \u{2028}");
        assert_eq!(
            to_json_string(&s).unwrap(),
            "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u001f \u{7f} é 😀 \u{2028}\""
        );
        let mut out = String::new();
        write_json_str("", &mut out);
        assert_eq!(out, "\"\"");
    }

    #[test]
    fn json_keeps_insertion_order_and_integral_numbers() {
        let o = obj(&[("z", n(100.0)), ("a", n(-0.0)), ("m", n(0.5))]);
        assert_eq!(to_json_string(&o).unwrap(), r#"{"z":100,"a":0,"m":0.5}"#);
        assert_eq!(to_json_string(&Value::from("s")).unwrap(), r#""s""#);
        assert_eq!(to_json_string(&Value::Null).unwrap(), "null");
        assert_eq!(to_json_string(&n(f64::NAN)).unwrap(), "null");
    }

    #[test]
    fn pretty_json_matches_json_stringify_indent_two() {
        let o = obj(&[
            ("a", Value::array(vec![n(1.0), Value::array(vec![])])),
            ("b", obj(&[])),
            ("c", obj(&[("d", Value::Null)])),
        ]);
        let mut out = String::new();
        write_json_pretty(&o, &mut out).unwrap();
        assert_eq!(
            out,
            "{\n  \"a\": [\n    1,\n    []\n  ],\n  \"b\": {},\n  \"c\": {\n    \"d\": null\n  }\n}"
        );
        let mut deep = Value::Null;
        for _ in 0..20 {
            deep = Value::array(vec![deep]);
        }
        let mut out = String::new();
        write_json_pretty(&deep, &mut out).unwrap();
        assert!(out.contains(&format!("\n{}null", " ".repeat(40))));
    }

    #[test]
    fn io_writer_matches_string_writer_and_reports_errors() {
        let o = obj(&[("k", Value::array(vec![n(1.0), Value::from("é")]))]);
        let mut bytes = Vec::new();
        write_json_io(&o, &mut bytes).unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            to_json_string(&o).unwrap()
        );
        let e = write_json_io(&regex("a", ""), &mut Vec::new()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let inner = e.get_ref().and_then(|e| e.downcast_ref::<Error>()).unwrap();
        assert_eq!(inner.kind(), ErrorKind::Type);
    }

    #[test]
    fn display_len_is_exact() {
        let values = [
            Value::Null,
            n(0.1 + 0.2),
            Value::from("héllo"),
            regex("a+", "s"),
            Value::array(vec![Value::from("a\u{1}\"é"), n(1e21), Value::Bool(true)]),
            obj(&[("ké\n", obj(&[("x", Value::array(vec![]))]))]),
        ];
        for v in &values {
            assert_eq!(
                display_len(v).unwrap(),
                to_display_string(v).unwrap().len() as u64
            );
        }
    }

    #[test]
    fn display_metered_charges_before_writing() {
        let mut rt = TestRuntime::default();
        let v = Value::array(vec![Value::from("abc"); 100]);
        let len = display_len(&v).unwrap();
        let mut out = String::new();
        display_metered(&mut rt, &v, &mut out).unwrap();
        assert_eq!(out.len() as u64, len);
        assert_eq!(rt.bytes_used, len);
        assert!(rt.fuel_used >= len / BYTES_PER_FUEL);

        let mut rt = TestRuntime {
            memory_limit: Some(100),
            ..TestRuntime::default()
        };
        let mut out = String::new();
        let e = display_metered(&mut rt, &v, &mut out).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Memory);
        assert!(out.is_empty(), "nothing written after a memory error");
    }

    /// Builds a value nested `depth` levels deep on the heap, and takes it
    /// apart level by level afterwards (a recursive drop of 100,000 levels
    /// would itself overflow the stack; that is the builder's concern).
    fn deep_array(depth: usize) -> Value {
        let mut v = n(7.0);
        for _ in 0..depth {
            v = Value::array(vec![v]);
        }
        v
    }

    fn dismantle(mut v: Value) {
        while let Value::Array(a) = v {
            v = a.into_items().pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn writers_do_not_recurse_on_deep_values() {
        let depth = 100_000;
        let v = deep_array(depth);
        let text = to_json_string(&v).unwrap();
        assert_eq!(text.len(), 2 * depth + 1);
        let want = format!("{}7{}", "[".repeat(depth), "]".repeat(depth));
        let same = text == want;
        if !same {
            dismantle(v);
            panic!("wrong text for a deep array");
        }
        assert_eq!(display_len(&v).unwrap(), text.len() as u64);
        assert_eq!(to_display_string(&v).unwrap(), text);
        dismantle(v);
    }
}
