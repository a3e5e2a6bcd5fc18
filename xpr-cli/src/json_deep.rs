//! JSON text to XPR values without recursion, for texts nested deeper
//! than serde_json's recursion limit (128 levels) allows: [`super::json_in`]
//! reads every text with serde_json first (fast, and most texts are
//! shallow) and comes here only when serde_json gives up on the depth.
//!
//! The arrays and objects being built are kept on an explicit stack, one
//! entry per level, and a container deeper than the value-depth limit
//! ([`Conv::max_depth`]) is refused before it is opened, so that limit,
//! not the thread's stack, bounds what is read. Parts that are skipped
//! (fields a program does not read) are only checked to be valid JSON,
//! at any depth, with one byte of stack per level, as serde_json skips
//! them.
//!
//! Scalars (strings, numbers) are cut out of the text here and handed to
//! serde_json, so that their escapes, numbers and conversions (integers
//! beyond 2^53 counted, or refused in strict mode) are exactly those of
//! the fast path; so are the error messages, as far as they go.

use serde::Deserialize as _;
use serde::de::{DeserializeSeed as _, IgnoredAny};
use xpr::{Key, Map, Value};

use super::json_in::{Conv, JsonError, KeySeed, RecordVisitor, ValueSeed, Wanted};

/// What is built from the text.
pub enum Top<'a> {
    /// The whole value; its outermost array or object is level 1.
    Whole,
    /// Only the top-level fields of an object that are in `wanted`, into
    /// `out` (same order; `None` where absent); the other fields, or a
    /// text that is not an object, are only checked. The object itself
    /// counts `level` levels (1 for a record, 0 for a `batch` request,
    /// whose `context` field is the level-1 object).
    Fields {
        wanted: &'a Wanted,
        out: &'a mut [Option<Value>],
        level: u32,
    },
}

/// Reads `text` as one JSON value, building what `top` says.
///
/// # Errors
/// Invalid JSON (serde_json's messages, with the line and column in the
/// whole text), nesting deeper than `conv.max_depth` in a part that is
/// built, or what converting a scalar refuses (strict numbers).
pub fn parse(text: &str, conv: &mut Conv, top: Top<'_>) -> Result<Option<Value>, JsonError> {
    let mut p = Parser { text, pos: 0 };
    let value = match top {
        Top::Whole => Some(p.value(conv, 0)?),
        Top::Fields { wanted, out, level } => {
            p.fields(conv, wanted, out, level)?;
            None
        }
    };
    p.ws();
    if p.pos < text.len() {
        return Err(p.syntax("trailing characters"));
    }
    Ok(value)
}

/// An array or object being built.
enum Frame {
    Array(Vec<Value>),
    /// With the key of the member being read.
    Object(Map, Key),
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }

    /// A syntax error at the current byte.
    fn syntax(&self, message: &str) -> JsonError {
        self.error_at(self.pos, message.to_string(), false)
    }

    /// An error at byte `at`, with its line and (1-based) column.
    fn error_at(&self, at: usize, message: String, data: bool) -> JsonError {
        let before = self
            .text
            .as_bytes()
            .get(..at)
            .unwrap_or(self.text.as_bytes());
        let line = 1 + memchr::memchr_iter(b'\n', before).count();
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        JsonError::new(message, line, at - line_start + 1, data)
    }

    /// The limit on built nesting would be passed by opening a container
    /// at `level`.
    fn check_depth(&self, level: usize, conv: &Conv) -> Result<(), JsonError> {
        if level > conv.max_depth as usize {
            return Err(self.error_at(self.pos, conv.too_deep(), true));
        }
        Ok(())
    }

    /// Runs serde_json on the scalar `start..end` of the text; an error's
    /// position is moved into the whole text. A number cut short by what
    /// follows it (`-]`) is an invalid number, as in the whole text.
    fn serde<T>(
        &self,
        start: usize,
        end: usize,
        f: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Result<T, JsonError> {
        let token = self.text.get(start..end).unwrap_or("");
        let mut de = serde_json::Deserializer::from_str(token);
        f(&mut de).and_then(|v| de.end().map(|()| v)).map_err(|e| {
            let data = e.classify() == serde_json::error::Category::Data;
            let message = JsonError::from(e);
            let number = token.starts_with(|c: char| c == '-' || c.is_ascii_digit());
            if number && end < self.text.len() && message.message() == "EOF while parsing a value" {
                return self.error_at(end, "invalid number".to_string(), false);
            }
            // A scalar is on one line: the column counts from its start.
            let at = start + message.column().saturating_sub(1);
            self.error_at(at.min(end), message.message().to_string(), data)
        })
    }

    /// The end of the string that starts at the current byte (a `"`), or
    /// of the text if it never closes (serde_json then says so).
    fn string_end(&self) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = self.pos + 1;
        while let Some(at) = bytes
            .get(i..)
            .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
        {
            i += at;
            if bytes.get(i) == Some(&b'"') {
                return i + 1;
            }
            // A backslash: the byte after it is escaped.
            i += 2;
        }
        bytes.len()
    }

    /// The end of the number that starts at the current byte.
    fn number_end(&self) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = self.pos;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            i += 1;
        }
        i
    }

    /// `true`, `false` or `null` at the current byte.
    fn literal(&mut self) -> Result<Value, JsonError> {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or(&[]);
        for (word, value) in [
            (&b"true"[..], Value::Bool(true)),
            (b"false", Value::Bool(false)),
            (b"null", Value::Null),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(value);
            }
        }
        if rest.len() < 5
            && [&b"true"[..], b"false", b"null"]
                .iter()
                .any(|w| w.starts_with(rest))
        {
            self.pos += rest.len();
            return Err(self.syntax("EOF while parsing a value"));
        }
        Err(self.syntax("expected ident"))
    }

    /// A string, number or literal at the current byte, built.
    fn scalar(&mut self, conv: &mut Conv) -> Result<Value, JsonError> {
        let start = self.pos;
        let end = match self.peek() {
            Some(b'"') => self.string_end(),
            Some(b'-' | b'0'..=b'9') => self.number_end(),
            Some(b't' | b'f' | b'n') => return self.literal(),
            Some(_) => return Err(self.syntax("expected value")),
            None => return Err(self.syntax("EOF while parsing a value")),
        };
        self.pos = end;
        self.serde(start, end, |de| ValueSeed(conv).deserialize(de))
    }

    /// The same, only checked.
    fn skip_scalar(&mut self) -> Result<(), JsonError> {
        let start = self.pos;
        let end = match self.peek() {
            Some(b'"') => self.string_end(),
            Some(b'-' | b'0'..=b'9') => self.number_end(),
            Some(b't' | b'f' | b'n') => return self.literal().map(drop),
            Some(_) => return Err(self.syntax("expected value")),
            None => return Err(self.syntax("EOF while parsing a value")),
        };
        self.pos = end;
        self.serde(start, end, |de| IgnoredAny::deserialize(de).map(drop))
    }

    /// An object member's key and its `:`; `Ok(None)` when only checked.
    fn key(&mut self, conv: Option<&mut Conv>) -> Result<Option<Key>, JsonError> {
        self.ws();
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.syntax("EOF while parsing an object")),
            Some(_) => return Err(self.syntax("key must be a string")),
        }
        let (start, end) = (self.pos, self.string_end());
        self.pos = end;
        let key = match conv {
            Some(conv) => Some(self.serde(start, end, |de| KeySeed(conv).deserialize(de))?),
            None => {
                self.serde(start, end, |de| IgnoredAny::deserialize(de).map(drop))?;
                None
            }
        };
        self.colon()?;
        Ok(key)
    }

    fn colon(&mut self) -> Result<(), JsonError> {
        self.ws();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            None => Err(self.syntax("EOF while parsing an object")),
            Some(_) => Err(self.syntax("expected `:`")),
        }
    }

    /// After a `,`: the next member must not be the end.
    fn no_trailing_comma(&mut self, close: u8) -> Result<(), JsonError> {
        self.ws();
        if self.peek() == Some(close) {
            return Err(self.syntax("trailing comma"));
        }
        Ok(())
    }

    /// What may follow a member of an array (`close` `]`) or object (`}`):
    /// `Ok(true)` for a `,` (consumed, with the check for a trailing
    /// comma), `Ok(false)` for the end (consumed).
    fn after_member(&mut self, close: u8) -> Result<bool, JsonError> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                self.no_trailing_comma(close)?;
                Ok(true)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            None if close == b']' => Err(self.syntax("EOF while parsing a list")),
            None => Err(self.syntax("EOF while parsing an object")),
            Some(_) if close == b']' => Err(self.syntax("expected `,` or `]`")),
            Some(_) => Err(self.syntax("expected `,` or `}`")),
        }
    }

    /// One value, built; `base` levels are open around it already.
    fn value(&mut self, conv: &mut Conv, base: u32) -> Result<Value, JsonError> {
        let mut open: Vec<Frame> = Vec::new();
        'value: loop {
            self.ws();
            let level = base as usize + open.len() + 1;
            let mut v = match self.peek() {
                Some(b'[') => {
                    self.check_depth(level, conv)?;
                    self.pos += 1;
                    self.ws();
                    if self.peek().is_none() {
                        return Err(self.syntax("EOF while parsing a list"));
                    }
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Value::array(Vec::new())
                    } else {
                        open.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'{') => {
                    self.check_depth(level, conv)?;
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::object(Map::default())
                    } else {
                        let key = self.key(Some(conv))?.unwrap_or_else(|| Key::from(""));
                        open.push(Frame::Object(Map::default(), key));
                        continue 'value;
                    }
                }
                _ => self.scalar(conv)?,
            };
            // Hand the value to the container around it, closing those
            // that end.
            loop {
                let Some(frame) = open.last_mut() else {
                    return Ok(v);
                };
                match frame {
                    Frame::Array(items) => {
                        items.push(v);
                        if self.after_member(b']')? {
                            continue 'value;
                        }
                        v = Value::array(std::mem::take(items));
                    }
                    Frame::Object(map, key) => {
                        // A repeated key: the last value, at the first's place.
                        map.insert(key.clone(), v);
                        if self.after_member(b'}')? {
                            *key = self.key(Some(conv))?.unwrap_or_else(|| Key::from(""));
                            continue 'value;
                        }
                        v = Value::object(std::mem::take(map));
                    }
                }
                open.pop();
            }
        }
    }

    /// One value, only checked, at any depth: one byte of stack per level
    /// (the closing bracket awaited).
    fn skip(&mut self) -> Result<(), JsonError> {
        let mut open: Vec<u8> = Vec::new();
        'value: loop {
            self.ws();
            match self.peek() {
                Some(b'[') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek().is_none() {
                        return Err(self.syntax("EOF while parsing a list"));
                    }
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        open.push(b']');
                        continue 'value;
                    }
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        self.key(None)?;
                        open.push(b'}');
                        continue 'value;
                    }
                }
                _ => self.skip_scalar()?,
            }
            while let Some(&close) = open.last() {
                if self.after_member(close)? {
                    if close == b'}' {
                        self.key(None)?;
                    }
                    continue 'value;
                }
                open.pop();
            }
            return Ok(());
        }
    }

    /// The top-level fields of an object in `wanted`; see [`Top::Fields`].
    fn fields(
        &mut self,
        conv: &mut Conv,
        wanted: &Wanted,
        out: &mut [Option<Value>],
        level: u32,
    ) -> Result<(), JsonError> {
        out.iter_mut().for_each(|v| *v = None);
        self.ws();
        match self.peek() {
            Some(b'{') => {}
            // Not an object: no fields. An array's elements are only
            // checked; a scalar is read and dropped (as the fast path
            // does: its checks differ a little from skipping's).
            Some(b'[') => return self.skip(),
            Some(b't' | b'f' | b'n') => return self.literal().map(drop),
            _ => {
                let start = self.pos;
                let end = match self.peek() {
                    Some(b'"') => self.string_end(),
                    Some(b'-' | b'0'..=b'9') => self.number_end(),
                    Some(_) => return Err(self.syntax("expected value")),
                    None => return Err(self.syntax("EOF while parsing a value")),
                };
                self.pos = end;
                return self.serde(start, end, |de| {
                    serde::Deserializer::deserialize_any(
                        de,
                        RecordVisitor {
                            wanted,
                            out: &mut *out,
                            conv: &mut *conv,
                        },
                    )
                });
            }
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.syntax("EOF while parsing an object")),
                Some(_) => return Err(self.syntax("key must be a string")),
            }
            let (start, end) = (self.pos, self.string_end());
            self.pos = end;
            let name = self.serde(start, end, |de| String::deserialize(de))?;
            self.colon()?;
            match wanted.find(&name) {
                Some(i) => {
                    let v = self.value(conv, level)?;
                    if let Some(slot) = out.get_mut(i) {
                        *slot = Some(v);
                    }
                }
                None => self.skip()?,
            }
            if !self.after_member(b'}')? {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str, conv: &mut Conv) -> Result<Value, JsonError> {
        parse(text, conv, Top::Whole).map(|v| v.unwrap_or(Value::Null))
    }

    /// serde_json's reading of `text` (through the fast path's seed).
    fn by_serde(text: &str, conv: &mut Conv) -> Result<Value, JsonError> {
        let mut de = serde_json::Deserializer::from_str(text);
        ValueSeed(conv)
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(JsonError::from)
    }

    const SAMPLES: &[&str] = &[
        "0",
        "-0",
        "-0.0",
        "1.5e3",
        "1E-2",
        "123456789012345678901234567890",
        "-9223372036854775809",
        "18446744073709551616",
        "9007199254740993",
        "1e400",
        "01",
        "1.",
        ".5",
        "-",
        "+1",
        "1e",
        "true",
        "tru",
        "nul",
        "nulls",
        "\"a\\u00e9\\ud83d\\ude00\\n\\\"\\/\"",
        "\"\\ud800\"",
        "\"\\udc00x\"",
        "\"\\u12\"",
        "\"\\x\"",
        "\"a\u{1}\"",
        "\"open",
        "[]",
        "{}",
        "[1, [2, [3, {}]], {\"a\": [true, null]}]",
        " { \"a\" : 1 , \"b\" : [ ] } ",
        "{\"a\": 1, \"a\": 2, \"b\": 3}",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{1: 2}",
        "{\"a\": }",
        "[",
        "[1,",
        "{\"a\":",
        "{\"a\"",
        "[1] x",
        "",
        "   ",
        "x",
        "[\"\\\\\"]",
        "[1,2",
        "{\"a\":1",
        "{\"a\":1 \"b\":2}",
        "[-]",
        "[1.e5]",
        "[\"a\"",
        "[\"a",
        "{\"a\":{\"b\":[{}, {\"c\": \"\\u0000\"}]}}",
        "[9007199254740993, -9007199254740993, 1e300, 123e-400]",
        "{\"id\": 12345678901234567890, \"x\": [1.0, -0, 2.5e-7]}",
        "[tru]",
        "[nul",
        "{\"a\"}",
        "{,}",
        "[,1]",
    ];

    #[test]
    fn reads_as_serde_json_reads() {
        let mut wrong = Vec::new();
        for text in SAMPLES {
            let (mut ours, mut theirs) = (Conv::default(), Conv::default());
            let a = whole(text, &mut ours);
            let b = by_serde(text, &mut theirs);
            match (&a, &b) {
                (Ok(x), Ok(y)) => {
                    assert_eq!(x, y, "{text}");
                    if let (Some(p), Some(q)) = (x.as_number(), y.as_number()) {
                        assert_eq!(p.to_bits(), q.to_bits(), "{text}");
                    }
                    assert_eq!(ours.big_ints, theirs.big_ints, "{text}");
                }
                (Err(x), Err(y)) if x.message() == y.message() => {}
                _ => wrong.push(format!("{text}: ours {a:?}, serde_json's {b:?}")),
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn fields_are_read_as_the_fast_path_reads_them() {
        let wanted = Wanted::new(&[Key::from("a"), Key::from("id")]);
        let mut wrong = Vec::new();
        for text in SAMPLES.iter().copied().chain([
            "{\"a\": [1, {\"b\": 2}], \"z\": 99999999999999999999, \"id\": 9007199254740993}",
            "{\"z\": [1,, 2], \"a\": 1}",
            "{\"a\": 1, \"a\": [2]}",
            "{\"z\": {\"y\": \"\\q\"}, \"a\": 1}",
        ]) {
            let (mut ours, mut theirs) = (Conv::default(), Conv::default());
            let mut a = vec![None, None];
            let top = Top::Fields {
                wanted: &wanted,
                out: &mut a,
                level: 1,
            };
            let x = parse(text, &mut ours, top).map(drop);
            let mut b = Vec::new();
            let y = super::super::json_in::parse_fields(text, &wanted, &mut b, &mut theirs);
            let same = match (&x, &y) {
                (Ok(()), Ok(())) => a == b && ours.big_ints == theirs.big_ints,
                (Err(p), Err(q)) => p.message() == q.message(),
                _ => false,
            };
            if !same {
                wrong.push(format!(
                    "{text}: ours {x:?} {a:?}, serde_json's {y:?} {b:?}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn strict_numbers_are_refused_as_in_the_fast_path() {
        let mut conv = Conv::new(true, 1000);
        let e = whole("[[9007199254740993]]", &mut conv).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.is_data() && e.message().contains("beyond 2^53")),
            "{e:?}"
        );
    }

    fn nested(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn nesting_is_read_up_to_the_limit_without_recursion() {
        // 100,000 levels on a 256 KiB stack: recursion would overflow it.
        let got = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut conv = Conv::new(false, 100_000);
                let deep = whole(&nested(100_000, "7"), &mut conv).map(|v| v.depth());
                let too_deep = whole(&nested(100_001, ""), &mut conv).map(|v| v.depth());
                (deep, too_deep)
            })
            .map(|t| t.join());
        let Ok(Ok((deep, too_deep))) = got else {
            panic!("the reader overflowed its stack")
        };
        assert_eq!(deep.ok(), Some(100_000));
        let e = too_deep.err();
        assert!(
            e.as_ref().is_some_and(|e| e.is_data()
                && e.message() == "Value depth limit exceeded: JSON nested deeper than 100000 levels (--max-value-depth)"
                && e.column() == 100_001),
            "{e:?}"
        );
    }

    #[test]
    fn fields_are_built_to_the_limit_and_the_rest_only_checked() {
        let wanted = Wanted::new(&[Key::from("a")]);
        let mut out = vec![None];
        let mut conv = Conv::new(false, 5);
        // The record is level 1: `a` may nest 4 more.
        let text = format!(
            "{{\"skip\": {}, \"a\": {}}}",
            nested(50_000, "1"),
            nested(4, "2")
        );
        let top = Top::Fields {
            wanted: &wanted,
            out: &mut out,
            level: 1,
        };
        assert!(parse(&text, &mut conv, top).is_ok());
        assert_eq!(out[0].as_ref().map(Value::depth), Some(4));
        let text = format!("{{\"a\": {}}}", nested(5, "2"));
        let top = Top::Fields {
            wanted: &wanted,
            out: &mut out,
            level: 1,
        };
        let e = parse(&text, &mut conv, top).err();
        assert!(e.is_some_and(|e| e.message().contains("deeper than 5 levels")));
        // Skipped parts are still checked.
        let text = format!("{{\"skip\": {}, \"a\": 1}}", nested(200, "1,"));
        let top = Top::Fields {
            wanted: &wanted,
            out: &mut out,
            level: 1,
        };
        let e = parse(&text, &mut conv, top).err();
        assert!(e.is_some_and(|e| e.message() == "trailing comma"), "{text}");
        // A non-object has no fields; a request object is level 0.
        let top = Top::Fields {
            wanted: &wanted,
            out: &mut out,
            level: 1,
        };
        assert!(parse(&nested(300, ""), &mut conv, top).is_ok());
        assert!(out[0].is_none());
        let text = format!("{{\"a\": {}}}", nested(5, "2"));
        let top = Top::Fields {
            wanted: &wanted,
            out: &mut out,
            level: 0,
        };
        assert!(parse(&text, &mut conv, top).is_ok());
    }

    #[test]
    fn errors_are_placed_in_the_whole_text() {
        let mut conv = Conv::default();
        let text = format!("[\n{},\n  \"a\\x\"]", nested(200, "1"));
        let e = whole(&text, &mut conv).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.message() == "invalid escape" && e.line() == 3),
            "{e:?}"
        );
    }
}
