//! XPR values to JSON text, appended to a byte buffer that is handed on
//! (to stdout) as it fills ([`Out`]), so that no value's text is ever held
//! whole, and written without recursion, whatever the value's depth.
//!
//! Numbers are written as JavaScript's `JSON.stringify` writes them (ryu-js:
//! `100`, not `100.0`; `1e+21`), strings with the minimal JSON escapes and
//! non-ASCII text left as UTF-8, object keys in insertion order. A value with
//! no JSON form is written as a tagged object, never as plain data:
//! `{"$xpr":"regex","repr":"/a/i"}`, `{"$xpr":"function","repr":"upper"}`.

use std::io;

use xpr::{Key, Map, Value};
use xpr_vm::function::Function;

use super::json_scan::plain_run;

/// Where JSON text goes: a buffer that is handed on (to stdout, in
/// practice) and emptied whenever it holds `limit` bytes or more at a
/// point where the writer checks, after every value and every 64 KiB of a
/// string. So a value's text is never held whole: a string of 60 million
/// NUL characters, 6 bytes each once escaped, costs `limit` bytes of
/// buffer, not 360 MB.
pub struct Out<'a> {
    /// The text not yet handed on.
    pub buf: &'a mut Vec<u8>,
    limit: usize,
    spill: &'a mut dyn FnMut(&[u8]) -> io::Result<()>,
}

impl<'a> Out<'a> {
    /// Text to `buf`, handed to `spill` whenever it holds `limit` bytes.
    pub fn new(
        buf: &'a mut Vec<u8>,
        limit: usize,
        spill: &'a mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Self {
        Out { buf, limit, spill }
    }

    /// Hands the buffer on if it is full.
    #[inline]
    fn check(&mut self) -> io::Result<()> {
        if self.buf.len() >= self.limit {
            self.hand_on()?;
        }
        Ok(())
    }

    /// Hands the buffer on, whatever it holds.
    pub fn hand_on(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            (self.spill)(self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// The buffer `eval` and `batch` write through.
pub const STREAM_BYTES: usize = 64 << 10;

/// Writes to `w` through a buffer of `limit` bytes (or so: a checkpoint
/// may be passed by up to 64 KiB of escaped string, or one number).
pub fn write_to(
    w: &mut dyn io::Write,
    limit: usize,
    f: impl FnOnce(&mut Out<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(limit.min(1 << 20) + 1024);
    let mut spill = |bytes: &[u8]| w.write_all(bytes);
    let mut out = Out::new(&mut buf, limit, &mut spill);
    f(&mut out)?;
    out.hand_on()
}

/// Appends `v` as compact JSON.
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    let mut never = |_: &[u8]| Ok(());
    // Nothing is handed on with no limit, so nothing can fail.
    let _ = write_indented(&mut Out::new(out, usize::MAX, &mut never), v, None);
}

/// Writes `v` as compact JSON (`indent` `None`) or indented by `indent`
/// spaces per level, handing the text on as it goes.
///
/// # Errors
/// Whatever handing the text on returns.
pub fn write_streamed(out: &mut Out<'_>, v: &Value, indent: Option<usize>) -> io::Result<()> {
    match indent {
        None => write_compact(out, v),
        Some(_) => write_indented(out, v, indent),
    }
}

/// [`write_indented`] without indentation, a scalar (the usual field or
/// result) written at once, with no stack of open containers.
#[inline(always)]
fn write_compact(out: &mut Out<'_>, v: &Value) -> io::Result<()> {
    match v {
        Value::Array(a) if !a.is_empty() => write_indented(out, v, None),
        Value::Object(o) if !o.is_empty() => write_indented(out, v, None),
        // The usual fields, without the call (as `write_scalar` writes them).
        Value::String(s) => {
            string(out, s)?;
            out.check()
        }
        Value::Bool(b) => {
            out.buf
                .extend_from_slice(if *b { b"true".as_slice() } else { b"false" });
            out.check()
        }
        _ => {
            write_scalar(out, v)?;
            out.check()
        }
    }
}

/// The text of object keys written lately (`"name":`), found by their
/// shared string: an object result's keys are the program's constants,
/// the same strings every record, so each is escaped once. At most
/// [`KEY_TEXTS`] keys of at most [`SHORT_STRING`] bytes; others are
/// written as any string.
#[derive(Debug, Default)]
pub struct KeyTexts {
    keys: Vec<(Key, Vec<u8>)>,
}

/// Keys [`KeyTexts`] keeps.
const KEY_TEXTS: usize = 32;

impl KeyTexts {
    /// Writes `k` and its colon.
    fn write(&mut self, out: &mut Out<'_>, k: &Key) -> io::Result<()> {
        if let Some((_, text)) = self.keys.iter().find(|(key, _)| Key::ptr_eq(key, k)) {
            out.buf.extend_from_slice(text);
            return out.check();
        }
        let at = out.buf.len();
        string(out, k)?;
        out.buf.push(b':');
        if self.keys.len() < KEY_TEXTS
            && k.len() <= SHORT_STRING
            && let Some(text) = out.buf.get(at..)
        {
            self.keys.push((k.clone(), text.to_vec()));
        }
        Ok(())
    }
}

/// Writes an object given as its members (keys distinct, in order) as
/// compact JSON: the text [`write_streamed`] writes for the object they
/// would make, without the object; the keys' text kept in `keys`.
///
/// # Errors
/// Whatever handing the text on returns.
#[inline]
pub fn write_members<'v>(
    out: &mut Out<'_>,
    members: impl Iterator<Item = (&'v Key, &'v Value)>,
    keys: &mut KeyTexts,
) -> io::Result<()> {
    out.buf.push(b'{');
    let mut any = false;
    for (k, v) in members {
        if std::mem::replace(&mut any, true) {
            out.buf.push(b',');
        }
        keys.write(out, k)?;
        write_compact(out, v)?;
    }
    out.buf.push(b'}');
    out.check()
}

fn newline(out: &mut Vec<u8>, indent: Option<usize>, level: usize) {
    if let Some(step) = indent {
        out.push(b'\n');
        out.resize(out.len() + step * level, b' ');
    }
}

/// An array or object being written: the members left, and whether one
/// was written already (a comma goes before the next).
enum Frame<'v> {
    Array(std::slice::Iter<'v, Value>, bool),
    Object(<&'v Map as IntoIterator>::IntoIter, bool),
}

/// Writes without recursion (an explicit stack of the arrays and objects
/// open), so no nesting the value-depth budget allows, however it is set,
/// can overflow the native stack. The innermost open container is kept
/// apart from the stack, so a flat array or object allocates nothing.
fn write_indented(out: &mut Out<'_>, v: &Value, indent: Option<usize>) -> io::Result<()> {
    let mut open: Vec<Frame<'_>> = Vec::new();
    let mut current: Option<Frame<'_>> = None;
    let mut next = Some(v);
    loop {
        if let Some(v) = next.take() {
            let frame = match v {
                Value::Array(a) if !a.is_empty() => {
                    out.buf.push(b'[');
                    Some(Frame::Array(a.items().iter(), false))
                }
                Value::Object(o) if !o.is_empty() => {
                    out.buf.push(b'{');
                    Some(Frame::Object(o.map().iter(), false))
                }
                _ => {
                    write_scalar(out, v)?;
                    None
                }
            };
            if let Some(frame) = frame
                && let Some(parent) = current.replace(frame)
            {
                open.push(parent);
            }
            out.check()?;
        }
        let level = open.len() + 1;
        let Some(frame) = &mut current else {
            return Ok(());
        };
        let (item, close) = match frame {
            Frame::Array(items, any) => match items.next() {
                Some(item) => {
                    if std::mem::replace(any, true) {
                        out.buf.push(b',');
                    }
                    newline(out.buf, indent, level);
                    (Some(item), b']')
                }
                None => (None, b']'),
            },
            Frame::Object(members, any) => match members.next() {
                Some((k, item)) => {
                    if std::mem::replace(any, true) {
                        out.buf.push(b',');
                    }
                    newline(out.buf, indent, level);
                    string(out, k)?;
                    out.buf.push(b':');
                    if indent.is_some() {
                        out.buf.push(b' ');
                    }
                    (Some(item), b'}')
                }
                None => (None, b'}'),
            },
        };
        match item {
            Some(item) => next = Some(item),
            None => {
                newline(out.buf, indent, level - 1);
                out.buf.push(close);
                current = open.pop();
            }
        }
    }
}

/// A scalar, an empty array or object, a regex or a function.
fn write_scalar(out: &mut Out<'_>, v: &Value) -> io::Result<()> {
    match v {
        Value::Null => out.buf.extend_from_slice(b"null"),
        Value::Bool(true) => out.buf.extend_from_slice(b"true"),
        Value::Bool(false) => out.buf.extend_from_slice(b"false"),
        Value::Number(n) => write_number(out.buf, *n),
        Value::String(s) => string(out, s)?,
        Value::Array(_) => out.buf.extend_from_slice(b"[]"),
        Value::Object(_) => out.buf.extend_from_slice(b"{}"),
        Value::Regex(r) => {
            write_tagged(out.buf, "regex", &format!("/{}/{}", r.pattern(), r.flags()))
        }
        Value::Function(f) => {
            let repr = match &**f {
                Function::Closure(_) => "<closure>".to_string(),
                Function::Builtin(id) => xpr_vm::stdlib::function_name(*id).to_string(),
                Function::Host(h) => h.name.clone(),
            };
            write_tagged(out.buf, "function", &repr);
        }
    }
    Ok(())
}

fn write_tagged(out: &mut Vec<u8>, tag: &str, repr: &str) {
    out.extend_from_slice(b"{\"$xpr\":");
    write_str(out, tag);
    out.extend_from_slice(b",\"repr\":");
    write_str(out, repr);
    out.push(b'}');
}

/// Appends a number as JavaScript writes it; a non-finite one (which no
/// value should hold) as `null`, as `JSON.stringify` does.
pub fn write_number(out: &mut Vec<u8>, n: f64) {
    if !n.is_finite() {
        out.extend_from_slice(b"null");
    } else if n == 0.0 {
        out.push(b'0');
    } else if n.abs() < 1e15 && (n as i64) as f64 == n {
        // Integers: the common case, without the float formatter (and
        // tested by a conversion, not `fract`, a call to libm's `trunc`).
        write_int(out, n as i64);
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.extend_from_slice(buf.format_finite(n).as_bytes());
    }
}

/// Appends an integer below 10^15 in magnitude (as [`write_number`]
/// writes it as a double).
#[inline]
pub fn write_int(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends a JSON string literal: `"`, `\\`, and control characters escaped.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    // `string`'s short way, without a handing-on buffer (a column's cell).
    let b = s.as_bytes();
    if b.len() <= SHORT_STRING && plain(b) {
        out.reserve(b.len() + 2);
        out.push(b'"');
        out.extend_from_slice(b);
        out.push(b'"');
        return;
    }
    let mut never = |_: &[u8]| Ok(());
    // Nothing is handed on with no limit, so nothing can fail.
    let _ = string(&mut Out::new(out, usize::MAX, &mut never), s);
}

/// Whether no byte of `b` needs an escape (`plain_run(b, 0) == b.len()`):
/// text of 4 to 16 bytes, the usual field value, tested as two words
/// that overlap (the first and the last 4 or 8 bytes), not byte by byte.
#[inline]
fn plain(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of every byte of `x` that is a quote, a backslash or a
    // control character (and maybe of bytes above one that is): none set
    // exactly when `x` holds no such byte.
    let special = |x: u64| {
        let quote = x ^ (ONES * u64::from(b'"'));
        let slash = x ^ (ONES * u64::from(b'\\'));
        ((quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH
    };
    let n = b.len();
    let (first, last) = match n {
        // Four bytes as the low half of a word whose high half repeats
        // them (so no zero byte is added).
        4..=7 => {
            let word = |at: usize| {
                b.get(at..at + 4)
                    .and_then(|w| <[u8; 4]>::try_from(w).ok())
                    .map_or(0, |w| u64::from(u32::from_le_bytes(w)) * 0x1_0000_0001)
            };
            (word(0), word(n - 4))
        }
        8..=16 => {
            let word = |at: usize| {
                b.get(at..at + 8)
                    .and_then(|w| <[u8; 8]>::try_from(w).ok())
                    .map_or(0, u64::from_le_bytes)
            };
            (word(0), word(n - 8))
        }
        _ => return plain_run(b, 0) == n,
    };
    // (A word that cannot be read, never the case, reads as zero bytes:
    // control characters, so the text is not plain.)
    special(first) | special(last) == 0
}

/// A long string is escaped this many bytes at a time, the buffer handed
/// on between pieces (escaping works byte by byte, and only ASCII bytes
/// are escaped, so a piece may end inside a UTF-8 sequence).
const STRING_PIECE: usize = 64 << 10;

/// Strings up to this long with nothing to escape take [`string`]'s short way.
const SHORT_STRING: usize = 256;

fn string(out: &mut Out<'_>, s: &str) -> io::Result<()> {
    let b = s.as_bytes();
    // The usual key or value: short, nothing to escape; copied whole with
    // one reservation (the same bytes and hand-on as piece by piece).
    if !b.is_empty() && b.len() <= SHORT_STRING && plain(b) {
        out.buf.reserve(b.len() + 2);
        out.buf.push(b'"');
        out.buf.extend_from_slice(b);
        out.check()?;
        out.buf.push(b'"');
        return Ok(());
    }
    out.buf.push(b'"');
    for piece in s.as_bytes().chunks(STRING_PIECE) {
        escape(out.buf, piece);
        out.check()?;
    }
    out.buf.push(b'"');
    Ok(())
}

/// Appends `bytes` with `"`, `\\` and control characters escaped (the
/// shortest escape JSON has for each, else `\u00XX`): the plain runs
/// between them found eight bytes at a time and copied whole.
fn escape(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    loop {
        let i = plain_run(bytes, start);
        out.extend_from_slice(bytes.get(start..i).unwrap_or(&[]));
        let Some(&b) = bytes.get(i) else {
            return;
        };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
        start = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpr::Map;

    fn json(v: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, v);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn numbers_as_javascript_writes_them() {
        let cases = [
            (100.0, "100"),
            (-0.0, "0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-7.0, "-7"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (9007199254740993.0, "9007199254740992"),
            (999_999_999_999_999.0, "999999999999999"),
            (-999_999_999_999_999.0, "-999999999999999"),
            (1e15, "1000000000000000"),
            (-2.5, "-2.5"),
            (f64::NAN, "null"),
        ];
        for (n, want) in cases {
            assert_eq!(json(&Value::Number(n)), want, "{n}");
        }
    }

    /// The escaping by runs against one written character by character,
    /// over generated strings of every control character, quotes,
    /// backslashes, DEL and non-ASCII text, at every alignment.
    #[test]
    fn escaping_by_runs_matches_character_by_character() {
        fn naive(s: &str) -> String {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        let mut alphabet: Vec<char> = (0u8..0x20).map(char::from).collect();
        alphabet.extend([
            '"', '\\', '\u{7f}', 'a', 'Z', ' ', '/', 'é', '😀', '\u{2028}',
        ]);
        let mut rng = xpr_testkit::Rng::new(11);
        for _ in 0..5000 {
            let len = rng.below(40);
            let s: String = (0..len)
                .map(|_| {
                    if rng.chance(0.7) {
                        'x'
                    } else {
                        *rng.pick(&alphabet)
                    }
                })
                .collect();
            let mut out = Vec::new();
            write_str(&mut out, &s);
            assert_eq!(String::from_utf8(out).ok(), Some(naive(&s)), "{s:?}");
        }
    }

    /// An object given as members is written as the object they make,
    /// scalars and containers alike.
    #[test]
    fn members_are_written_as_their_object() {
        let members: Vec<(xpr::Key, Value)> = vec![
            ("s".into(), Value::from("a\"b")),
            ("n".into(), Value::Number(-1.5)),
            ("t".into(), Value::Bool(true)),
            ("z".into(), Value::Null),
            (
                "e".into(),
                Value::from_json(&serde_json::json!([])).unwrap_or(Value::Null),
            ),
            (
                "a".into(),
                Value::from_json(&serde_json::json!([1, {"k": "v"}])).unwrap_or(Value::Null),
            ),
            (
                "o".into(),
                Value::from_json(&serde_json::json!({"x": [null]})).unwrap_or(Value::Null),
            ),
            ("q\"\n".into(), Value::from("é")),
            ("".into(), Value::Number(0.0)),
        ];
        let whole = Value::from_json(&serde_json::json!({
            "s": "a\"b", "n": -1.5, "t": true, "z": null, "e": [],
            "a": [1, {"k": "v"}], "o": {"x": [null]}, "q\"\n": "é", "": 0
        }))
        .unwrap_or(Value::Null);
        // Twice with the same keys: the second time from their kept text.
        let mut keys = KeyTexts::default();
        for _ in 0..2 {
            let mut buf = Vec::new();
            let mut never = |_: &[u8]| Ok(());
            let mut out = Out::new(&mut buf, usize::MAX, &mut never);
            let members = members.iter().map(|(k, v)| (k, v));
            assert!(write_members(&mut out, members, &mut keys).is_ok());
            assert_eq!(String::from_utf8(buf).ok(), Some(json(&whole)));
        }
    }

    /// The two-word test of short text agrees with the byte-by-byte scan:
    /// every byte value at every place of texts 0 to 40 bytes long (the
    /// others plain ASCII or UTF-8 continuation bytes).
    #[test]
    fn short_texts_are_plain_as_scanned() {
        for len in 0..=40usize {
            for filler in [b'a', 0x80, 0xe9, 0x7f, 0x21, 0x5d] {
                for at in 0..len.max(1) {
                    for byte in 0..=255u8 {
                        let mut b = vec![filler; len];
                        if let Some(c) = b.get_mut(at) {
                            *c = byte;
                        }
                        assert_eq!(plain(&b), plain_run(&b, 0) == b.len(), "{b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn strings_are_escaped_minimally() {
        let v = Value::from("a\"b\\c\nd\u{1}é😀");
        assert_eq!(json(&v), r#""a\"b\\c\nd\u0001é😀""#);
        // The output parses back to the same text.
        let back: Result<String, _> = serde_json::from_str(&json(&v));
        assert_eq!(back.ok().as_deref(), v.as_str());
    }

    /// `v`'s text written through a buffer of `limit` bytes: the text, and
    /// the size of each piece handed on.
    fn streamed(v: &Value, indent: Option<usize>, limit: usize) -> (String, Vec<usize>) {
        let mut text = Vec::new();
        let mut pieces = Vec::new();
        let mut buf = Vec::new();
        let mut spill = |b: &[u8]| {
            pieces.push(b.len());
            text.extend_from_slice(b);
            Ok(())
        };
        let mut out = Out::new(&mut buf, limit, &mut spill);
        assert!(write_streamed(&mut out, v, indent).is_ok());
        assert!(out.hand_on().is_ok());
        (String::from_utf8_lossy(&text).into_owned(), pieces)
    }

    #[test]
    fn streamed_text_is_the_same_whatever_the_buffer() {
        let mut m = Map::default();
        m.insert("k\"ey".into(), Value::from("a\u{1}é😀".repeat(50)));
        m.insert(
            "n".into(),
            Value::array(vec![
                Value::Number(1.5),
                Value::Null,
                Value::object(Map::default()),
            ]),
        );
        let v = Value::array(vec![
            Value::object(m),
            Value::array(vec![]),
            Value::Bool(false),
        ]);
        for indent in [None, Some(2)] {
            let (whole, _) = streamed(&v, indent, usize::MAX);
            for limit in [0, 1, 7, 100] {
                assert_eq!(streamed(&v, indent, limit).0, whole, "{limit}");
            }
        }
        assert_eq!(streamed(&v, None, usize::MAX).0, json(&v));
        let back: Result<serde_json::Value, _> = serde_json::from_str(&json(&v));
        assert!(back.is_ok());
    }

    #[test]
    fn a_long_string_is_handed_on_in_pieces() {
        // 1 MB of NULs is 6 MB of text: never held at once.
        let v = Value::from("\0".repeat(1 << 20));
        let (text, pieces) = streamed(&v, None, 4096);
        assert_eq!(text.len(), 6 * (1 << 20) + 2);
        assert!(pieces.len() >= 16, "{} pieces", pieces.len());
        let largest = pieces.iter().copied().max().unwrap_or(0);
        assert!(largest <= 4096 + 6 * STRING_PIECE, "{largest}");
    }

    #[test]
    fn deep_values_are_written_without_recursion() {
        // 100,000 levels on a 256 KiB stack: recursion would overflow it.
        let text = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut v = Value::array(vec![]);
                for _ in 1..100_000 {
                    v = Value::array(vec![v]);
                }
                json(&v)
            })
            .map(|t| t.join());
        let Ok(Ok(compact)) = text else {
            panic!("the writer overflowed its stack")
        };
        assert_eq!(
            compact,
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))
        );
        // Indented, level by level.
        let v = Value::array(vec![Value::array(vec![Value::Null])]);
        assert_eq!(streamed(&v, Some(2), 1).0, "[\n  [\n    null\n  ]\n]");
    }

    #[test]
    fn nested_structures_keep_key_order() {
        let mut m = Map::default();
        m.insert(
            "z".into(),
            Value::array(vec![Value::Null, Value::Bool(true)]),
        );
        m.insert("a".into(), Value::object(Map::default()));
        m.insert("m".into(), Value::array(vec![]));
        let v = Value::object(m);
        assert_eq!(json(&v), r#"{"z":[null,true],"a":{},"m":[]}"#);
        let mut pretty = Vec::new();
        let _ = write_to(&mut pretty, 1 << 20, |out| write_streamed(out, &v, Some(2)));
        assert_eq!(
            String::from_utf8_lossy(&pretty),
            "{\n  \"z\": [\n    null,\n    true\n  ],\n  \"a\": {},\n  \"m\": []\n}"
        );
    }
}
