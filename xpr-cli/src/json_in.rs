//! JSON text to XPR values, straight from the bytes (no `serde_json::Value`
//! in between), and reading only the top-level fields a program uses.
//!
//! Nesting: what is built may nest as deep as the value-depth limit
//! ([`Conv::max_depth`], `--max-value-depth`, default 1,000; the record or
//! context object is level 1); deeper is an error naming the limit. Texts
//! are read by serde_json, whose recursion stops at 128 levels; a text it
//! gives up on for its depth is read again by [`super::json_deep`], which
//! keeps no state on the native stack. Parts that are not built (fields
//! a program does not read) are only checked, at any depth, as serde_json
//! skips them without recursion.
//!
//! Numbers become f64 (spec "Number Representation"). An integer beyond 2^53
//! cannot be held exactly: each one converted is counted, and in strict mode
//! it is an error instead. Integers too large for 64 bits reach us from
//! serde_json as floating point, so there a float literal of 2^64 or more
//! with no fractional part counts too.

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use xpr::{Key, Map, Value};

use super::json_deep::{self, Top};
use super::json_scan;

/// 2^53: the largest magnitude below which every integer is an exact f64.
const EXACT: u64 = 1 << 53;
/// 2^64 as f64: larger integer literals arrive from serde_json as floats.
const BEYOND_U64: f64 = 18_446_744_073_709_551_616.0;

/// Object keys kept for reuse, at most this many...
const INTERNED_KEYS: usize = 4096;
/// ...each at most this long, in bytes.
const INTERNED_KEY_BYTES: usize = 64;
/// String values kept for reuse are at most this long, in bytes...
const INTERNED_STRING_BYTES: usize = 24;
/// ...in a cache of 2^this many slots.
const STRING_SLOT_BITS: u32 = 10;

/// Conversion state: the number policy, the depth limit, what it
/// counted, and the object keys seen so far (records of one stream repeat
/// the same keys: reusing one shared string per key saves an allocation
/// per key per record).
#[derive(Debug)]
pub struct Conv {
    /// Reject integers beyond 2^53 instead of rounding them.
    pub strict: bool,
    /// The deepest nesting of arrays and objects built (`[]` is 1 level).
    pub max_depth: u32,
    /// Integers beyond 2^53 converted (and so rounded) so far.
    pub big_ints: u64,
    keys: HashMap<Box<str>, Key, foldhash::fast::RandomState>,
    /// The fast reader's stack of open containers, kept for reuse.
    stack: Vec<u8>,
    /// The fast reader's memory of the last record's keys.
    shape: Shape,
    /// Short string values seen lately, shared as keys are (a field of
    /// few distinct values, such as a code or a category, then costs no
    /// allocation per record): a direct-mapped cache of 2^10 slots, a
    /// slot's string replaced on a miss. A slot keeps the text's length
    /// and [`words`], compared instead of the bytes.
    strings: Vec<Option<(usize, [u64; 3], Key)>>,
}

/// Text of at most [`INTERNED_STRING_BYTES`] (24) bytes `b[a..z]` as three
/// words, equal for two texts of one length exactly when their bytes are:
/// up to 8 bytes the [`head`]; up to 16 the words that start at `a` and
/// end at `z` (overlapping); up to 24 those at `a`, `a + 8` and ending at
/// `z`. Beyond that, `None`.
#[inline]
fn words(b: &[u8], a: usize, z: usize) -> Option<[u64; 3]> {
    let len = z.checked_sub(a)?;
    let word = |at: usize| word_at(b, at).unwrap_or(0);
    Some(match len {
        0..=8 => [head(b, a, z), 0, 0],
        9..=16 => [word(a), word(z - 8), 0],
        17..=INTERNED_STRING_BYTES => [word(a), word(a + 8), word(z - 8)],
        _ => return None,
    })
}

impl Default for Conv {
    /// Not strict, with the library's default value-depth limit.
    fn default() -> Self {
        Conv::new(false, xpr::Limits::default().value_depth)
    }
}

/// The deepest text serde_json reads (its recursion limit is 128 levels,
/// counting one it refuses to open).
const SERDE_DEPTH: u32 = 127;

impl Conv {
    /// A converter with the given number policy and depth limit.
    pub fn new(strict: bool, max_depth: u32) -> Self {
        Conv {
            strict,
            max_depth,
            big_ints: 0,
            keys: HashMap::default(),
            stack: Vec::new(),
            shape: Shape::default(),
            strings: Vec::new(),
        }
    }

    /// The message for nesting beyond [`Conv::max_depth`].
    pub fn too_deep(&self) -> String {
        format!(
            "Value depth limit exceeded: JSON nested deeper than {} levels (--max-value-depth)",
            self.max_depth
        )
    }

    /// `Err` when a value of `depth` levels, inside `around` more, is
    /// deeper than the limit (serde_json read it: it is shallow enough
    /// for its own limit, not necessarily for ours). A scalar opens no
    /// level, so it is never too deep.
    pub fn check_depth(&self, depth: u32, around: u32) -> Result<(), JsonError> {
        if self.max_depth < SERDE_DEPTH && depth > 0 && depth + around > self.max_depth {
            return Err(JsonError::new(self.too_deep(), 0, 0, true));
        }
        Ok(())
    }

    /// The shared string for object key `s`; bounded in count and length,
    /// so keys that are data (ids as keys) cannot grow it without limit.
    fn key(&mut self, s: &str) -> Key {
        if let Some(k) = self.keys.get(s) {
            return k.clone();
        }
        let k = Key::from(s);
        if s.len() <= INTERNED_KEY_BYTES && self.keys.len() < INTERNED_KEYS {
            self.keys.insert(s.into(), k.clone());
        }
        k
    }

    /// The string value `text[a..z]` (the fast reader's; `a` and `z` on
    /// character boundaries): a short one shared with the last one of the
    /// same text in its cache slot (cheaper than an allocation; the slot
    /// is a hash of the text's [`words`], which are then compared).
    #[inline]
    pub fn string_at(&mut self, text: &str, a: usize, z: usize) -> Option<Key> {
        let Some(w) = words(text.as_bytes(), a, z) else {
            return text.get(a..z).map(Key::from);
        };
        let len = z - a;
        let mixed = w[0] ^ w[1].rotate_left(29) ^ w[2].rotate_left(47);
        let h = (mixed ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (h >> (64 - STRING_SLOT_BITS)) as usize;
        if self.strings.is_empty() {
            self.strings.resize(1 << STRING_SLOT_BITS, None);
        }
        match self.strings.get_mut(slot) {
            Some(Some((n, kw, k))) if *n == len && *kw == w => Some(k.clone()),
            Some(entry) => {
                let k = Key::from(text.get(a..z)?);
                *entry = Some((len, w, k.clone()));
                Some(k)
            }
            None => text.get(a..z).map(Key::from),
        }
    }

    fn big<E: de::Error>(&mut self, text: impl fmt::Display, n: f64) -> Result<Value, E> {
        if self.strict {
            return Err(E::custom(format_args!(
                "integer {text} is beyond 2^53 and cannot be held exactly as a number (--strict-numbers)"
            )));
        }
        self.big_ints += 1;
        Ok(Value::Number(n))
    }
}

/// Deserializes any JSON value into a [`Value`].
pub struct ValueSeed<'a>(pub &'a mut Conv);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor(self.0))
    }
}

struct ValueVisitor<'a>(&'a mut Conv);

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        if n.unsigned_abs() > EXACT {
            return self.0.big(n, n as f64);
        }
        Ok(Value::Number(n as f64))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        if n > EXACT {
            return self.0.big(n, n as f64);
        }
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        if !n.is_finite() {
            return Err(E::custom("number out of range"));
        }
        if n.abs() >= BEYOND_U64 && n.fract() == 0.0 {
            return self.0.big(n, n);
        }
        Ok(Value::Number(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(Key::from(s)))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(Key::from(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(ValueSeed(&mut *self.0))? {
            items.push(v);
        }
        Ok(Value::array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::default();
        while let Some(key) = map.next_key_seed(KeySeed(&mut *self.0))? {
            let v = map.next_value_seed(ValueSeed(&mut *self.0))?;
            out.insert(key, v);
        }
        Ok(Value::object(out))
    }
}

/// An object key as a shared string, interned by the [`Conv`].
pub struct KeySeed<'a>(pub &'a mut Conv);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Key, E> {
        Ok(self.0.key(s))
    }
}

/// The top-level fields a program reads, looked up by name while parsing.
#[derive(Debug)]
pub struct Wanted {
    /// Tells this set of names from any other (the fast reader's [`Shape`]
    /// is for one set).
    id: u64,
    names: Vec<Key>,
    /// For many names, a hash index; for a few, a linear scan is faster.
    index: Option<HashMap<Key, usize>>,
    /// Bit `n` set when a name is `n` bytes long (n < 64); bit 63 stands
    /// for every longer length too: most keys a record has and the
    /// program does not read are told apart by their length alone.
    lengths: u64,
    /// Each name's length and first eight bytes as a word ([`head`]), so
    /// that the fast reader matches a key in the record's bytes without a
    /// call to compare memory (names longer than 8 bytes compare the rest).
    heads: Vec<(usize, u64)>,
    /// No name appears twice (a compiled program's names never do): a
    /// name found at a position is then the only one there is.
    distinct: bool,
}

/// The first `min(8, len)` bytes of `b[a..z]` as a little-endian word,
/// zero above the text: equal words for equal lengths mean equal bytes.
/// One load where eight bytes can be read from `a` (or end at `z`).
#[inline]
pub(crate) fn head(b: &[u8], a: usize, z: usize) -> u64 {
    let len = z.saturating_sub(a).min(8);
    if len == 0 {
        return 0;
    }
    if let Some(w) = word_at(b, a) {
        return if len == 8 {
            w
        } else {
            w & ((1u64 << (8 * len)) - 1)
        };
    }
    // Fewer than eight bytes from `a` to the end: then `z` is the end of
    // a text shorter than eight bytes, read as the word that ends there.
    if let Some(w) = z.checked_sub(8).and_then(|at| word_at(b, at)) {
        return w >> (8 * (8 - len));
    }
    b.get(a..a + len)
        .unwrap_or(&[])
        .iter()
        .rev()
        .fold(0, |w, &c| (w << 8) | u64::from(c))
}

/// The eight bytes at `at` as a little-endian word, if there are eight.
#[inline]
pub(crate) fn word_at(b: &[u8], at: usize) -> Option<u64> {
    let w: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(w))
}

/// What the fast reader remembers of the last record's keys, in order:
/// for each, the bytes after its opening quote up to its colon (`name":`)
/// and its place among the wanted fields. Records of one stream usually
/// repeat their keys in the same order, so the key at the same place is
/// first compared with these bytes (one or two words); when they are the
/// same, it is the same key, without escapes, with the same place, and
/// neither its end nor its name is searched for.
#[derive(Debug, Default)]
pub struct Shape {
    /// The [`Wanted`] the places are for (0 for none yet).
    wanted: u64,
    keys: Vec<Option<ShapeKey>>,
}

/// A key of [`Shape`]: `len` bytes (3 to 16) as two words, zero above
/// them, and its place.
#[derive(Debug, Clone, Copy)]
struct ShapeKey {
    len: usize,
    words: [u64; 2],
    slot: Option<usize>,
}

/// The low `n` bytes of a word set (`n` from 0 to 8).
#[inline]
fn low_bytes(n: usize) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

/// Keys remembered per record, at most.
const SHAPE_KEYS: usize = 64;

impl Shape {
    /// Forgets the keys if they were read for another set of names.
    #[inline]
    pub fn start(&mut self, wanted: &Wanted) {
        if self.wanted != wanted.id {
            self.wanted = wanted.id;
            self.keys.clear();
        }
    }

    /// When the bytes of `b` from `at` are those of the `n`th key of the
    /// last record (`name":`), its place among the wanted fields and where
    /// its colon ends.
    #[inline]
    pub fn known(&self, n: usize, b: &[u8], at: usize) -> Option<(Option<usize>, usize)> {
        let k = self.keys.get(n)?.as_ref()?;
        let w0 = word_at(b, at)?;
        let same = if k.len <= 8 {
            w0 & low_bytes(k.len) == k.words[0]
        } else {
            w0 == k.words[0] && word_at(b, at + 8)? & low_bytes(k.len - 8) == k.words[1]
        };
        same.then_some((k.slot, at + k.len))
    }

    /// Remembers the `n`th key: its bytes `b[at..at + len]` (the name, its
    /// closing quote and the colon right after) and its place.
    #[inline]
    pub fn learn(&mut self, n: usize, b: &[u8], at: usize, len: usize, slot: Option<usize>) {
        if n >= SHAPE_KEYS {
            return;
        }
        let key = match len {
            3..=8 => word_at(b, at).map(|w| [w & low_bytes(len), 0]),
            9..=16 => word_at(b, at)
                .zip(word_at(b, at + 8))
                .map(|(w0, w1)| [w0, w1 & low_bytes(len - 8)]),
            _ => None,
        }
        .map(|words| ShapeKey { len, words, slot });
        if self.keys.len() <= n {
            self.keys.resize(n + 1, None);
        }
        if let Some(k) = self.keys.get_mut(n) {
            *k = key;
        }
    }
}

impl Wanted {
    /// The fields `names`, in the order their values are returned.
    pub fn new(names: &[Key]) -> Self {
        let names = names.to_vec();
        let index: Option<HashMap<Key, usize>> = (names.len() > 12).then(|| {
            names
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), i))
                .collect()
        });
        let lengths = names.iter().fold(0u64, |m, k| m | 1 << k.len().min(63));
        let heads = names
            .iter()
            .map(|k| (k.len(), head(k.as_bytes(), 0, k.len())))
            .collect();
        let distinct = match &index {
            Some(index) => index.len() == names.len(),
            None => (0..names.len()).all(|i| !names[..i].contains(&names[i])),
        };
        static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Wanted {
            id: IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            names,
            index,
            lengths,
            heads,
            distinct,
        }
    }

    /// The names, in order.
    pub fn names(&self) -> &[Key] {
        &self.names
    }

    /// Whether no name appears twice.
    pub fn distinct(&self) -> bool {
        self.distinct
    }

    /// The position of `key` among the names.
    pub fn find(&self, key: &str) -> Option<usize> {
        if self.lengths & 1 << key.len().min(63) == 0 {
            return None;
        }
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.names.iter().position(|k| &**k == key),
        }
    }

    /// [`Wanted::find`] for the key `text[a..z]` (`a` and `z` on character
    /// boundaries: the key is delimited by quotes), compared word by word
    /// in the text's bytes when the names are few.
    #[inline]
    pub fn find_key(&self, text: &str, a: usize, z: usize) -> Option<usize> {
        let len = z.checked_sub(a)?;
        if self.lengths & 1 << len.min(63) == 0 {
            return None;
        }
        if self.index.is_some() {
            return self.find(text.get(a..z)?);
        }
        let b = text.as_bytes();
        let first = head(b, a, z);
        let rest = b.get(a.saturating_add(8).min(z)..z)?;
        self.heads.iter().zip(&self.names).position(|(&(n, h), k)| {
            n == len && h == first && (n <= 8 || k.as_bytes().get(8..) == Some(rest))
        })
    }
}

/// Parses one JSON text completely into a [`Value`]. Takes text, not
/// bytes: UTF-8 is checked once by the caller (for a whole chunk of
/// records), not again for every string inside.
///
/// # Errors
/// Invalid JSON, trailing characters, nesting deeper than the limit, or
/// (strict mode) an integer beyond 2^53.
pub fn parse_value(text: &str, conv: &mut Conv) -> Result<Value, JsonError> {
    let counted = conv.big_ints;
    let mut de = serde_json::Deserializer::from_str(text);
    match ValueSeed(conv)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
    {
        Ok(v) => {
            conv.check_depth(v.depth(), 0)?;
            Ok(v)
        }
        Err(e) if too_deep_for_serde(&e) => {
            // Read again from the start: what was counted is counted again.
            conv.big_ints = counted;
            json_deep::parse(text, conv, Top::Whole).map(|v| v.unwrap_or(Value::Null))
        }
        Err(e) => Err(e.into()),
    }
}

/// serde_json gave up on the text's depth (its recursion limit).
pub fn too_deep_for_serde(e: &serde_json::Error) -> bool {
    e.classify() == serde_json::error::Category::Syntax
        && e.to_string().starts_with("recursion limit exceeded")
}

/// What reading JSON text found wrong: a message (without position) and
/// where, in lines and columns of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    message: String,
    line: usize,
    column: usize,
    data: bool,
}

impl JsonError {
    /// An error at `line` and `column` (0 when unknown); `data` for text
    /// that is JSON but whose content is refused.
    pub fn new(message: String, line: usize, column: usize, data: bool) -> Self {
        JsonError {
            message,
            line,
            column,
            data,
        }
    }

    /// What is wrong, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The 1-based line (0 when unknown).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column on that line, in bytes (0 when unknown).
    pub fn column(&self) -> usize {
        self.column
    }

    /// The text is JSON, but its content is refused: nesting beyond the
    /// value-depth limit, an integer beyond 2^53 in strict mode, a field
    /// of the wrong type. The message says it all (no "invalid JSON").
    pub fn is_data(&self) -> bool {
        self.data
    }
}

impl From<serde_json::Error> for JsonError {
    /// serde_json's message without its ` at line L column C` suffix.
    fn from(e: serde_json::Error) -> Self {
        let text = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = text
            .strip_suffix(&suffix)
            .map_or_else(|| text.clone(), str::to_string);
        JsonError {
            message,
            line: e.line(),
            column: e.column(),
            data: e.classify() == serde_json::error::Category::Data,
        }
    }
}

/// Parses one JSON record, converting only the top-level fields in `wanted`
/// into `out` (same order; `None` where absent) and skipping everything else
/// without building values. A record that is not an object has no fields.
///
/// # Errors
/// As [`parse_value`] (the record object is level 1 of the depth); skipped
/// parts are still checked to be valid JSON.
pub fn parse_fields(
    text: &str,
    wanted: &Wanted,
    out: &mut Vec<Option<Value>>,
    conv: &mut Conv,
) -> Result<(), JsonError> {
    // Reset in place (records of a stream want the same fields each time).
    if out.len() == wanted.names.len() {
        out.iter_mut().for_each(|v| *v = None);
    } else {
        out.clear();
        out.resize(wanted.names.len(), None);
    }
    let counted = conv.big_ints;
    let mut stack = std::mem::take(&mut conv.stack);
    let mut shape = std::mem::take(&mut conv.shape);
    let fast = json_scan::fields(text, wanted, out, conv, &mut stack, &mut shape);
    conv.stack = stack;
    conv.shape = shape;
    if fast.is_ok() {
        return Ok(());
    }
    // The full reader, from the start: what the fast path read is undone.
    conv.big_ints = counted;
    out.iter_mut().for_each(|v| *v = None);
    parse_fields_full(text, wanted, out, conv)
}

/// [`parse_fields`] by serde_json alone (and [`json_deep`] past its
/// depth), `out` already reset: what the fast path falls back to.
pub(crate) fn parse_fields_full(
    text: &str,
    wanted: &Wanted,
    out: &mut [Option<Value>],
    conv: &mut Conv,
) -> Result<(), JsonError> {
    let counted = conv.big_ints;
    let mut de = serde_json::Deserializer::from_str(text);
    match de
        .deserialize_any(RecordVisitor {
            wanted,
            out,
            conv: &mut *conv,
        })
        .and_then(|()| de.end())
    {
        Ok(()) => {
            for v in out.iter().flatten() {
                conv.check_depth(v.depth(), 1)?;
            }
            Ok(())
        }
        Err(e) if too_deep_for_serde(&e) => {
            conv.big_ints = counted;
            let top = Top::Fields {
                wanted,
                out,
                level: 1,
            };
            json_deep::parse(text, conv, top).map(drop)
        }
        Err(e) => Err(e.into()),
    }
}

/// Reads a record's wanted fields; anything else is only checked.
pub struct RecordVisitor<'a> {
    pub wanted: &'a Wanted,
    pub out: &'a mut [Option<Value>],
    pub conv: &'a mut Conv,
}

impl<'de> Visitor<'de> for RecordVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(slot) = map.next_key_seed(FieldSeed(self.wanted))? {
            match slot {
                Some(i) => {
                    let v = map.next_value_seed(ValueSeed(&mut *self.conv))?;
                    if let Some(dest) = self.out.get_mut(i) {
                        *dest = Some(v);
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// Matches a key against the wanted fields without allocating.
struct FieldSeed<'a>(&'a Wanted);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldSeed<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.find(s))
    }
}

#[cfg(test)]
#[path = "json_in_tests.rs"]
mod tests;
