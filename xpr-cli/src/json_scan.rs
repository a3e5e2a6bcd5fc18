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

use super::json_in::{Conv, Shape, ValueSeed, Wanted};

/// The record needs the full reader (see the module documentation).
#[derive(Debug, PartialEq, Eq)]
pub struct Fallback;

type Scan<T> = Result<T, Fallback>;

/// 2^53: integers above it are counted (or refused), so left to serde_json.
const EXACT: u64 = 1 << 53;

/// Reads the top-level fields of `text` in `wanted` into `out` (already
/// reset to `None`s, one per name); the last of duplicate keys wins.
///
/// The cursor is a local position, not the [`Scanner`]'s field, and the
/// usual layout (no whitespace, a scalar value) takes the shortest path;
/// anything else goes the general way (whitespace skipped, a container
/// skipped by [`Scanner::skip`]).
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
    shape: &mut Shape,
) -> Scan<()> {
    let b = text.as_bytes();
    shape.start(wanted);
    let mut pos = ws(b, 0);
    if b.get(pos) != Some(&b'{') {
        return Err(Fallback);
    }
    pos = ws(b, pos + 1);
    if b.get(pos) == Some(&b'}') {
        pos += 1;
    } else {
        // The key's place in the record.
        let mut n = 0;
        loop {
            if b.get(pos) != Some(&b'"') {
                return Err(Fallback);
            }
            let slot = match shape.known(n, b, pos + 1) {
                // The same bytes as the last record's key here, colon included.
                Some((slot, end)) => {
                    pos = end;
                    slot
                }
                None => {
                    // The key: no escape (one falls back), so its bytes are its text.
                    let (a, z) = (pos + 1, plain_run(b, pos + 1));
                    if b.get(z) != Some(&b'"') {
                        return Err(Fallback);
                    }
                    let slot = wanted.find_key(text, a, z);
                    pos = z + 1;
                    if b.get(pos) == Some(&b':') {
                        shape.learn(n, b, a, z + 2 - a, slot);
                    } else {
                        pos = ws(b, pos);
                        if b.get(pos) != Some(&b':') {
                            return Err(Fallback);
                        }
                    }
                    pos += 1;
                    slot
                }
            };
            n += 1;
            pos = ws(b, pos);
            pos = match slot {
                Some(i) => {
                    let (v, end) = value(text, pos, conv, stack)?;
                    if let Some(dest) = out.get_mut(i) {
                        *dest = Some(v);
                    }
                    end
                }
                None => skip_value(b, pos, stack)?,
            };
            let mut c = *b.get(pos).ok_or(Fallback)?;
            if !matches!(c, b',' | b'}') {
                pos = ws(b, pos);
                c = *b.get(pos).ok_or(Fallback)?;
            }
            pos += 1;
            match c {
                b',' => pos = ws(b, pos),
                b'}' => break,
                _ => return Err(Fallback),
            }
        }
    }
    if ws(b, pos) == b.len() {
        Ok(())
    } else {
        Err(Fallback)
    }
}

/// The position of the first byte from `pos` on that is not JSON
/// whitespace (or `b.len()`).
#[inline]
fn ws(b: &[u8], mut pos: usize) -> usize {
    // Usually none: any byte above the space is no whitespace.
    if b.get(pos).is_none_or(|&c| c > b' ') {
        return pos;
    }
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(pos) {
        pos += 1;
    }
    pos
}

/// Converts the value at `pos` (the first byte of a value); where it ends.
#[inline]
fn value(text: &str, pos: usize, conv: &mut Conv, stack: &mut Vec<u8>) -> Scan<(Value, usize)> {
    let b = text.as_bytes();
    match b.get(pos) {
        Some(b'"') => {
            let (a, z) = (pos + 1, plain_run(b, pos + 1));
            if b.get(z) != Some(&b'"') {
                return Err(Fallback);
            }
            let s = conv.string_at(text, a, z).ok_or(Fallback)?;
            Ok((Value::String(s), z + 1))
        }
        Some(b'-' | b'0'..=b'9') => number_value(text, pos),
        Some(b'[' | b'{') => {
            let mut s = Scanner { b, pos };
            s.skip(stack)?;
            let slice = text.get(pos..s.pos).ok_or(Fallback)?;
            let mut de = serde_json::Deserializer::from_str(slice);
            let v = ValueSeed(conv).deserialize(&mut de).map_err(|_| Fallback)?;
            conv.check_depth(v.depth(), 1).map_err(|_| Fallback)?;
            Ok((v, s.pos))
        }
        Some(&c) => {
            let (word, v): (&[u8], Value) = match c {
                b'n' => (b"null", Value::Null),
                b't' => (b"true", Value::Bool(true)),
                b'f' => (b"false", Value::Bool(false)),
                _ => return Err(Fallback),
            };
            let end = pos + word.len();
            if b.get(pos..end) == Some(word) {
                Ok((v, end))
            } else {
                Err(Fallback)
            }
        }
        None => Err(Fallback),
    }
}

/// Skips the value at `pos`, checking it; where it ends. A string or a
/// number here, anything else by [`Scanner::skip`].
#[inline]
fn skip_value(b: &[u8], pos: usize, stack: &mut Vec<u8>) -> Scan<usize> {
    match b.get(pos) {
        Some(b'"') => skip_string(b, pos + 1),
        Some(b'-' | b'0'..=b'9') => number_end(b, pos).map(|(end, _)| end),
        _ => {
            let mut s = Scanner { b, pos };
            s.skip(stack)?;
            Ok(s.pos)
        }
    }
}

/// After a string's opening quote at `pos - 1`: skips it, escapes checked
/// for form; where it ends (past the closing quote).
#[inline]
fn skip_string(b: &[u8], mut pos: usize) -> Scan<usize> {
    loop {
        pos = plain_run(b, pos);
        match b.get(pos) {
            Some(b'"') => return Ok(pos + 1),
            Some(b'\\') => {
                pos = match b.get(pos + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => pos + 2,
                    Some(b'u') => {
                        let hex = b.get(pos + 2..pos + 6).ok_or(Fallback)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(Fallback);
                        }
                        pos + 6
                    }
                    _ => return Err(Fallback),
                };
            }
            _ => return Err(Fallback),
        }
    }
}

/// The position of the first byte from `pos` on that is not a digit.
#[inline]
fn digits(b: &[u8], mut pos: usize) -> usize {
    while b.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    pos
}

/// A number in JSON's grammar at `pos`: where it ends and whether it is
/// an integer (no fraction, no exponent).
#[inline]
fn number_end(b: &[u8], mut pos: usize) -> Scan<(usize, bool)> {
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => pos = digits(b, pos + 1),
        _ => return Err(Fallback),
    }
    let mut integer = true;
    if b.get(pos) == Some(&b'.') {
        integer = false;
        let end = digits(b, pos + 1);
        if end == pos + 1 {
            return Err(Fallback);
        }
        pos = end;
    }
    if let Some(b'e' | b'E') = b.get(pos) {
        integer = false;
        pos += 1;
        if let Some(b'+' | b'-') = b.get(pos) {
            pos += 1;
        }
        let end = digits(b, pos);
        if end == pos {
            return Err(Fallback);
        }
        pos = end;
    }
    Ok((pos, integer))
}

/// The number at `pos` and where it ends: an integer or a short decimal
/// without exponent read in the same pass as its digits are checked (the
/// values [`number`] gives), anything else by [`number`] over its text.
#[inline]
fn number_value(text: &str, pos: usize) -> Scan<(Value, usize)> {
    let b = text.as_bytes();
    let negative = b.get(pos) == Some(&b'-');
    let first = pos + usize::from(negative);
    let (mut n, mut at) = (0u64, first);
    while let Some(&c) = b.get(at).filter(|c| c.is_ascii_digit()) {
        n = n.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        at += 1;
    }
    let int_digits = at - first;
    // JSON's grammar: at least one digit, no leading zero.
    if int_digits == 0 || (int_digits > 1 && b.get(first) == Some(&b'0')) {
        return Err(Fallback);
    }
    let mut frac_digits = 0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while let Some(&c) = b.get(at).filter(|c| c.is_ascii_digit()) {
            n = n.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            at += 1;
        }
        frac_digits = at - start;
        if frac_digits == 0 {
            return Err(Fallback);
        }
    }
    let f = match b.get(at) {
        // An exponent: the general conversion over the text.
        Some(b'e' | b'E') => {
            let (end, integer) = number_end(b, pos)?;
            let f = number(text.get(pos..end).ok_or(Fallback)?, integer)?;
            return Ok((Value::Number(f), end));
        }
        _ if frac_digits == 0 => {
            // Up to 16 digits cannot overflow u64; beyond 2^53 is counted.
            if int_digits > 16 || n > EXACT {
                return Err(Fallback);
            }
            n as f64
        }
        _ if int_digits + frac_digits <= 15 => {
            // Digits and a power of ten both exact: one correctly rounded
            // division (as `number`).
            n as f64 / POW10.get(frac_digits).copied().ok_or(Fallback)?
        }
        // Longer decimals: the general conversion (signed) over the text.
        _ => {
            let f = number(text.get(pos..at).ok_or(Fallback)?, false)?;
            return Ok((Value::Number(f), at));
        }
    };
    // serde_json gives -0 for "-0", as the f64 negation does.
    Ok((Value::Number(if negative { -f } else { f }), at))
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

    /// After the opening quote: skips a string, escapes checked for form.
    #[inline]
    fn skip_string(&mut self) -> Scan<()> {
        self.pos = skip_string(self.b, self.pos)?;
        Ok(())
    }

    /// Skips a number in JSON's grammar from the cursor.
    #[inline]
    fn number(&mut self) -> Scan<()> {
        self.pos = number_end(self.b, self.pos)?.0;
        Ok(())
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
#[path = "json_scan_tests.rs"]
mod tests;
