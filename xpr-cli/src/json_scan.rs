//! A fast path for [`super::json_in::parse_fields`]: one pass over a
//! record's bytes that converts only the wanted top-level fields and skips
//! the others without building anything.
//!
//! It accepts only what it is sure of, and is otherwise silent: for any
//! text it does not fully handle (malformed JSON, a record that is not an
//! object, an escape in a key or in a wanted string, a number whose value
//! it cannot reproduce exactly, an integer beyond 2^53) it answers
//! [`Fallback`] and the caller reads the record again with serde_json.
//! So values, error messages and positions, big-integer counting and
//! strict numbers are serde_json's by construction; what this module must
//! guarantee is narrower: a text it accepts is one serde_json accepts, and
//! the values it builds are those serde_json would (tested against
//! serde_json over generated, real and broken records).
//!
//! A wanted value that is an array or an object is delimited here (checked
//! as a skipped value is) and that slice is converted by serde_json.
//!
//! Skipped values are checked as serde_json checks the values it ignores:
//! the whole grammar, control characters in strings refused, escapes
//! checked for form only (a lone surrogate in `\u` form is not an error in
//! a value nobody reads), at any depth, without recursion.

use serde::de::DeserializeSeed as _;
use xpr::Value;

use super::json_in::{Conv, ValueSeed, Wanted};

/// The record needs the full reader (see the module documentation).
#[derive(Debug, PartialEq, Eq)]
pub struct Fallback;

type Scan<T> = Result<T, Fallback>;

/// 2^53: integers above it are counted (or refused), so left to serde_json.
const EXACT: u64 = 1 << 53;

/// Reads the top-level fields of `text` in `wanted` into `out` (already
/// reset to `None`s, one per name); the last of duplicate keys wins.
///
/// # Errors
/// [`Fallback`] for anything it does not fully handle; `out` and
/// `conv.big_ints` may then hold partial results the caller resets.
pub fn fields(
    text: &str,
    wanted: &Wanted,
    out: &mut [Option<Value>],
    conv: &mut Conv,
    stack: &mut Vec<u8>,
) -> Scan<()> {
    let mut s = Scanner {
        b: text.as_bytes(),
        pos: 0,
    };
    s.ws();
    s.eat(b'{')?;
    s.ws();
    if s.peek() == Some(b'}') {
        s.pos += 1;
    } else {
        loop {
            s.eat(b'"')?;
            let key = s.plain_string()?;
            // The text is valid UTF-8 and quotes are ASCII: a str slice.
            let key = text.get(key.0..key.1).ok_or(Fallback)?;
            s.ws();
            s.eat(b':')?;
            s.ws();
            match wanted.find(key) {
                Some(i) => {
                    let v = s.value(text, conv, stack)?;
                    if let Some(dest) = out.get_mut(i) {
                        *dest = Some(v);
                    }
                }
                None => s.skip(stack)?,
            }
            s.ws();
            match s.next()? {
                b',' => s.ws(),
                b'}' => break,
                _ => return Err(Fallback),
            }
        }
    }
    s.ws();
    if s.pos == s.b.len() {
        Ok(())
    } else {
        Err(Fallback)
    }
}

/// Checks `text` as skipped JSON values are checked: `Ok` when it is one
/// valid JSON value with only whitespace around it (for tests).
#[cfg(test)]
pub fn check(text: &str) -> bool {
    let mut s = Scanner {
        b: text.as_bytes(),
        pos: 0,
    };
    s.ws();
    let ok = s.skip(&mut Vec::new()).is_ok();
    s.ws();
    ok && s.pos == s.b.len()
}

/// What each byte is inside a string: 0 plain, 1 quote, 2 backslash,
/// 3 control character (refused).
static STRING_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 3;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 2;
    t
};

/// The position of the first byte from `pos` on that is special in a
/// string (a quote, a backslash or a control character), or `b.len()`:
/// eight bytes at a time (the zero-byte test on a word; its lowest flag
/// is exact, higher ones may be false, so only the lowest is used).
#[inline]
pub(crate) fn plain_run(b: &[u8], mut pos: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = b.get(pos..pos + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w);
        let quote = x ^ (ONES * u64::from(b'"'));
        let slash = x ^ (ONES * u64::from(b'\\'));
        let flags = (quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (x.wrapping_sub(ONES * 0x20) & !x);
        let flags = flags & HIGH;
        if flags != 0 {
            return pos + (flags.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&c) = b.get(pos) {
        if STRING_CLASS[c as usize] != 0 {
            return pos;
        }
        pos += 1;
    }
    pos
}

struct Scanner<'t> {
    b: &'t [u8],
    pos: usize,
}

impl Scanner<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline]
    fn next(&mut self) -> Scan<u8> {
        let c = self.peek().ok_or(Fallback)?;
        self.pos += 1;
        Ok(c)
    }

    #[inline]
    fn eat(&mut self, want: u8) -> Scan<()> {
        if self.next()? == want {
            Ok(())
        } else {
            Err(Fallback)
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// After the opening quote: the content's byte range of a string
    /// without escapes (one with an escape or a control character falls
    /// back), the closing quote consumed.
    #[inline]
    fn plain_string(&mut self) -> Scan<(usize, usize)> {
        let start = self.pos;
        self.pos = plain_run(self.b, self.pos);
        if self.peek() == Some(b'"') {
            self.pos += 1;
            Ok((start, self.pos - 1))
        } else {
            Err(Fallback)
        }
    }

    /// After the opening quote: skips a string, escapes checked for form.
    fn skip_string(&mut self) -> Scan<()> {
        loop {
            self.pos = plain_run(self.b, self.pos);
            let c = self.next()?;
            match STRING_CLASS[c as usize] {
                0 => {}
                1 => return Ok(()),
                2 => match self.next()? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => {
                        for _ in 0..4 {
                            if !self.next()?.is_ascii_hexdigit() {
                                return Err(Fallback);
                            }
                        }
                    }
                    _ => return Err(Fallback),
                },
                _ => return Err(Fallback),
            }
        }
    }

    /// Skips the digits at the cursor; how many.
    #[inline]
    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// A number in JSON's grammar from the cursor: its byte range and
    /// whether it is an integer (no fraction, no exponent).
    fn number(&mut self) -> Scan<(usize, usize, bool)> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return Err(Fallback),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            integer = false;
            if self.digits() == 0 {
                return Err(Fallback);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            integer = false;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(Fallback);
            }
        }
        Ok((start, self.pos, integer))
    }

    /// Skips `word` (after its first letter, already consumed).
    fn rest_of(&mut self, word: &[u8]) -> Scan<()> {
        let end = self.pos + word.len();
        if self.b.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(())
        } else {
            Err(Fallback)
        }
    }

    /// Converts the value at the cursor.
    fn value(&mut self, text: &str, conv: &mut Conv, stack: &mut Vec<u8>) -> Scan<Value> {
        match self.peek().ok_or(Fallback)? {
            b'"' => {
                self.pos += 1;
                let (a, z) = self.plain_string()?;
                Ok(Value::String(conv.string(text.get(a..z).ok_or(Fallback)?)))
            }
            b'n' => {
                self.pos += 1;
                self.rest_of(b"ull").map(|()| Value::Null)
            }
            b't' => {
                self.pos += 1;
                self.rest_of(b"rue").map(|()| Value::Bool(true))
            }
            b'f' => {
                self.pos += 1;
                self.rest_of(b"alse").map(|()| Value::Bool(false))
            }
            b'[' | b'{' => {
                let start = self.pos;
                self.skip(stack)?;
                let slice = text.get(start..self.pos).ok_or(Fallback)?;
                let mut de = serde_json::Deserializer::from_str(slice);
                let v = ValueSeed(conv).deserialize(&mut de).map_err(|_| Fallback)?;
                conv.check_depth(v.depth(), 1).map_err(|_| Fallback)?;
                Ok(v)
            }
            _ => {
                let (a, z, integer) = self.number()?;
                let t = text.get(a..z).ok_or(Fallback)?;
                number(t, integer).map(Value::Number)
            }
        }
    }

    /// Skips one value at the cursor, checking it, without recursion
    /// (`stack` holds the open containers' closing brackets).
    fn skip(&mut self, stack: &mut Vec<u8>) -> Scan<()> {
        stack.clear();
        loop {
            // A value.
            match self.next()? {
                b'"' => self.skip_string()?,
                b'n' => self.rest_of(b"ull")?,
                b't' => self.rest_of(b"rue")?,
                b'f' => self.rest_of(b"alse")?,
                b'[' => {
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                    } else {
                        stack.push(b']');
                        self.ws();
                        continue;
                    }
                }
                b'{' => {
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                    } else {
                        stack.push(b'}');
                        self.member_key()?;
                        continue;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    self.pos -= 1;
                    self.number()?;
                }
                _ => return Err(Fallback),
            }
            // After a value: close containers until one goes on.
            loop {
                let Some(&close) = stack.last() else {
                    return Ok(());
                };
                self.ws();
                match self.next()? {
                    b',' => {
                        if close == b'}' {
                            self.ws();
                            self.member_key()?;
                        } else {
                            self.ws();
                        }
                        break;
                    }
                    c if c == close => {
                        stack.pop();
                    }
                    _ => return Err(Fallback),
                }
            }
        }
    }

    /// A member's key and colon, whitespace after (the cursor on the key's
    /// opening quote).
    fn member_key(&mut self) -> Scan<()> {
        self.eat(b'"')?;
        self.skip_string()?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Ok(())
    }
}

/// Powers of ten exactly representable as f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The f64 of number text `t` (in JSON's grammar), exactly as serde_json
/// (with `float_roundtrip`) converts it, or [`Fallback`] where the
/// conversion would be counted (an integer beyond 2^53, a float of 2^64
/// or more) or refused (out of range).
fn number(t: &str, integer: bool) -> Scan<f64> {
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if integer {
        // Up to 16 digits cannot overflow u64; beyond 2^53 is counted.
        if digits.len() > 16 {
            return Err(Fallback);
        }
        let n = digits
            .bytes()
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        if n > EXACT {
            return Err(Fallback);
        }
        // serde_json gives -0 for "-0", as the f64 negation does.
        let f = n as f64;
        return Ok(if negative { -f } else { f });
    }
    // A short decimal without exponent: digits and a power of ten both
    // exact, so one correctly rounded division, as any correct parser.
    if let Some((int, frac)) = digits.split_once('.')
        && int.len() + frac.len() <= 15
        && !frac.contains(['e', 'E'])
    {
        let n = int
            .bytes()
            .chain(frac.bytes())
            .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        let f = n as f64 / POW10[frac.len()];
        return Ok(if negative { -f } else { f });
    }
    // Otherwise the standard library's correctly rounded parse.
    let f: f64 = t.parse().map_err(|_| Fallback)?;
    if !f.is_finite() || f.abs() >= 18_446_744_073_709_551_616.0 || f == 0.0 {
        return Err(Fallback);
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    //! The fast path against serde_json (the full reader), over generated
    //! records, broken variants of them and the real data sets.

    use serde::de::IgnoredAny;
    use xpr::Key;
    use xpr_testkit::Rng;

    use super::super::json_in::parse_fields_full;
    use super::*;

    /// The same values, numbers bit for bit (so -0 and 0 differ).
    fn same(a: &Option<Value>, b: &Option<Value>) -> bool {
        match (a, b) {
            (Some(Value::Number(x)), Some(Value::Number(y))) => x.to_bits() == y.to_bits(),
            _ => a == b,
        }
    }

    /// Checks one text: what the fast path accepts, serde_json accepts
    /// with the same values and counts; and `check` agrees with
    /// serde_json on validity. Returns whether the fast path accepted.
    fn compare(text: &str, wanted: &Wanted, strict: bool) -> bool {
        let n = wanted.names().len();
        let valid = serde_json::from_str::<IgnoredAny>(text).is_ok();
        assert_eq!(check(text), valid, "validity of {text:?}");
        let mut fast_conv = Conv::new(strict, 1000);
        let mut fast_out = vec![None; n];
        let fast = fields(text, wanted, &mut fast_out, &mut fast_conv, &mut Vec::new());
        let mut full_conv = Conv::new(strict, 1000);
        let mut full_out = vec![None; n];
        let full = parse_fields_full(text, wanted, &mut full_out, &mut full_conv);
        if fast.is_ok() {
            assert!(
                full.is_ok(),
                "fast accepted what serde_json refuses: {text:?} {full:?}"
            );
            for (a, b) in fast_out.iter().zip(&full_out) {
                assert!(same(a, b), "{text:?}: fast {a:?}, serde_json {b:?}");
            }
            assert_eq!(fast_conv.big_ints, full_conv.big_ints, "{text:?}");
        }
        fast.is_ok()
    }

    fn pick(rng: &mut Rng, items: &[&'static str]) -> &'static str {
        items[rng.below(items.len())]
    }

    const KEYS: [&str; 7] = ["a", "b", "delay", "origin", "x y", "é", ""];

    fn gen_string(rng: &mut Rng, out: &mut String) {
        out.push('"');
        for _ in 0..rng.below(6) {
            match rng.below(14) {
                0 => out.push_str("\\n"),
                1 => out.push_str("\\\""),
                2 => out.push_str("\\u00e9"),
                3 => out.push_str("\\ud83d\\ude00"),
                4 => out.push_str("\\ud83d"),
                5 => out.push('é'),
                6 => out.push('😀'),
                7 => out.push_str("\\/"),
                _ => out.push(*rng.pick(&['a', 'Z', ' ', '0', '-', ':', ','])),
            }
        }
        out.push('"');
    }

    const NUMBERS: [&str; 30] = [
        "0",
        "-0",
        "7",
        "-12",
        "1.5",
        "-0.0",
        "0.1",
        "123456.789",
        "3.141592653589793",
        "2.2250738585072014e-308",
        "1e5",
        "1E+2",
        "-4.5e-3",
        "9007199254740992",
        "9007199254740993",
        "-9007199254740993",
        "12345678901234567",
        "-10000000000000000000",
        "123456789012345678901234",
        "1e400",
        "-1e400",
        "1e-400",
        "18446744073709551616.0",
        "1.7976931348623157e308",
        "0.30000000000000004",
        "99999999999999.9",
        "5e-324",
        "1e22",
        "1e23",
        "100000000000000000000000.5",
    ];

    fn gen_value(rng: &mut Rng, depth: usize, out: &mut String) {
        let kind = if depth > 3 {
            rng.below(5)
        } else {
            rng.below(8)
        };
        match kind {
            0 => out.push_str(pick(rng, &NUMBERS)),
            1 => {
                let n = rng.next_u64() % 100_000;
                let f = rng.below(4);
                if f == 0 {
                    out.push_str(&n.to_string());
                } else {
                    out.push_str(&format!("{}.{:0w$}", n / 1000, n % 1000, w = f));
                }
            }
            2 => gen_string(rng, out),
            3 => out.push_str(pick(rng, &["true", "false", "null"])),
            4 => out.push_str(pick(rng, &["[]", "{}", " [ ] "])),
            5 => {
                out.push('[');
                for i in 0..rng.below(4) {
                    if i > 0 {
                        out.push_str(pick(rng, &[",", " , ", ",\n"]));
                    }
                    gen_value(rng, depth + 1, out);
                }
                out.push(']');
            }
            _ => gen_object(rng, depth + 1, out),
        }
    }

    fn gen_object(rng: &mut Rng, depth: usize, out: &mut String) {
        out.push('{');
        for i in 0..rng.below(6) {
            if i > 0 {
                out.push_str(pick(rng, &[",", ", ", " ,\t"]));
            }
            if rng.chance(0.1) {
                out.push_str(pick(rng, &["\"de\\u006cay\"", "\"a\\n\""]));
            } else {
                out.push('"');
                out.push_str(pick(rng, &KEYS));
                out.push('"');
            }
            out.push_str(pick(rng, &[":", ": ", " :\r\n "]));
            gen_value(rng, depth, out);
        }
        out.push('}');
    }

    /// A broken variant: a character replaced, inserted or removed, or the
    /// text cut (at character boundaries: the text stays UTF-8).
    fn mutate(rng: &mut Rng, text: &str) -> String {
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = *rng.pick(&cuts);
        let c = *rng.pick(&[
            ',', ':', '{', '}', '[', ']', '"', '\\', 'x', '0', '-', '.', 'e', '\u{1}', '\t', 'u',
            'n',
        ]);
        let mut s = String::with_capacity(text.len() + 4);
        match rng.below(4) {
            0 => s.push_str(&text[..at]),
            1 => {
                s.push_str(&text[..at]);
                s.push(c);
                s.push_str(&text[at..]);
            }
            _ => {
                s.push_str(&text[..at]);
                let mut rest = text[at..].chars();
                rest.next();
                if rng.coin() {
                    s.push(c);
                }
                s.push_str(rest.as_str());
            }
        }
        s
    }

    #[test]
    fn agrees_with_serde_json_on_generated_and_broken_records() {
        let wanted = Wanted::new(&[Key::from("a"), Key::from("delay"), Key::from("é")]);
        let all = Wanted::new(&KEYS.map(Key::from));
        let mut rng = Rng::new(18);
        let (mut accepted, mut broken_accepted) = (0, 0);
        for case in 0..6000 {
            let mut text = String::new();
            if rng.chance(0.2) {
                out_ws(&mut rng, &mut text);
            }
            gen_object(&mut rng, 0, &mut text);
            let strict = case % 5 == 0;
            let w = if case % 3 == 0 { &all } else { &wanted };
            accepted += usize::from(compare(&text, w, strict));
            for _ in 0..3 {
                let broken = mutate(&mut rng, &text);
                broken_accepted += usize::from(compare(&broken, w, strict));
            }
        }
        // Most generated records take the fast path; the test is not vacuous.
        assert!(accepted > 2500, "{accepted}");
        assert!(broken_accepted > 100, "{broken_accepted}");
    }

    fn out_ws(rng: &mut Rng, out: &mut String) {
        out.push_str(pick(rng, &[" ", "\t", "\r", " \n "]));
    }

    #[test]
    fn plain_runs_end_at_the_first_special_byte() {
        let mut rng = Rng::new(7);
        let bytes = [
            b'a', b'"', b'\\', 0x1f, 0x20, 0x7f, 0x80, 0xe9, 0xff, 0, b'!', b'#',
        ];
        for _ in 0..20_000 {
            let len = rng.below(40);
            let b: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.chance(0.8) {
                        b'x'
                    } else {
                        bytes[rng.below(bytes.len())]
                    }
                })
                .collect();
            let from = rng.below(len + 1);
            let naive = (from..len)
                .find(|&i| STRING_CLASS[b[i] as usize] != 0)
                .unwrap_or(len);
            assert_eq!(plain_run(&b, from), naive, "{b:?} from {from}");
        }
    }

    #[test]
    fn agrees_on_edge_cases() {
        let wanted = Wanted::new(&[Key::from("a"), Key::from("b")]);
        for text in [
            "{}",
            " {\"a\":1} ",
            "{\"a\":1,\"a\":2}",
            "{\"a\":{\"b\":[1,{\"c\":9007199254740993}]}}",
            "{\"a\":\"\\ud800\"}",
            "{\"z\":\"\\ud800\",\"a\":1}",
            "{\"z\":\"\\uZZZZ\",\"a\":1}",
            "{\"a\":1}{",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":.5}",
            "{\"a\":-}",
            "{\"a\":1e}",
            "{\"a\":tru}",
            "{\"a\":nulll}",
            "{\"a\":\"\u{1}\"}",
            "{\"z\":\"\u{1f}\",\"a\":1}",
            "{\"a\":1,}",
            "{,\"a\":1}",
            "{\"z\":[1,],\"a\":1}",
            "{\"z\":{\"k\"},\"a\":1}",
            "{\"z\":{\"k\":1,},\"a\":1}",
            "[1]",
            "\"a\"",
            "",
            "{\"a\" 1}",
        ] {
            compare(text, &wanted, false);
            compare(text, &wanted, true);
        }
        // Deep values: skipped without limit, wanted ones by serde_json.
        let deep = format!(
            "{{\"z\":{}1{},\"a\":2}}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        assert!(compare(&deep, &wanted, false));
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert!(!compare(&deep, &wanted, false));
    }

    #[test]
    fn agrees_on_the_real_data_sets() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
        let sets: [(&str, &[&str]); 2] = [
            (
                "flights-20k.ndjson",
                &["delay", "distance", "origin", "destination", "date"],
            ),
            (
                "earthquakes.ndjson",
                &["properties", "id", "type", "geometry"],
            ),
        ];
        for (file, names) in sets {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                eprintln!("skipped: {file} not found");
                continue;
            };
            let names: Vec<Key> = names.iter().map(|&n| Key::from(n)).collect();
            let one = Wanted::new(&names[..1]);
            let all = Wanted::new(&names);
            let mut rng = Rng::new(4);
            for line in text.lines().take(3000) {
                assert!(compare(line, &one, false), "{line}");
                assert!(compare(line, &all, true) || line.contains('\\'), "{line}");
                compare(&mutate(&mut rng, line), &one, false);
            }
        }
    }
}
