//! Values: null, boolean, number, string, array, object, function, regex.
//!
//! Cloning a [`Value`] is O(1): every payload larger than a word sits behind
//! an `Arc`. Arrays and objects carry their *logical* size in bytes and their
//! nesting depth, computed once when they are built, so that the memory and
//! depth budgets (issue: sandbox) are O(1) checks however much structure is
//! shared: an array holding the same array twice counts it twice.

use std::sync::Arc;

use indexmap::IndexMap;

use crate::function::Function;

/// An object key or a string payload.
pub type Key = Arc<str>;

/// An object's map: insertion-ordered, with a seeded fast hasher
/// (seeded per process, so untrusted keys cannot force collisions).
pub type Map = IndexMap<Key, Value, KeyHasher>;

/// The hasher of every [`Map`]: foldhash with one random seed per process
/// (from the operating system, through `foldhash`'s global seed), the same
/// for all maps of the process. A key's hash can therefore be computed once
/// (see [`key_hash`]) and reused for every lookup, as programs do for the
/// context names and property names they read; and untrusted keys still
/// cannot be chosen to collide, since the seed is not known outside the
/// process.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyHasher;

impl std::hash::BuildHasher for KeyHasher {
    type Hasher = foldhash::fast::FoldHasher<'static>;

    #[inline]
    fn build_hasher(&self) -> Self::Hasher {
        foldhash::fast::FoldHasher::with_seed(0, foldhash::SharedSeed::global_random())
    }
}

/// The hash of key `key` in every [`Map`] of this process.
#[inline]
pub fn key_hash(key: &str) -> u64 {
    std::hash::BuildHasher::hash_one(&KeyHasher, key)
}

/// Logical bytes charged for one value slot (an element or a field value):
/// the size of a [`Value`], so that the budget is met in real bytes.
pub const SLOT_BYTES: u64 = 24;
/// Logical bytes charged for an array or object header: its `Arc` counters
/// and struct (an object's is the larger, 16 + 72 bytes) and the allocator's
/// rounding. With 16-byte slots and 32-byte headers, arrays of small
/// objects or of closures reached twice the memory budget in resident
/// memory.
pub const HEADER_BYTES: u64 = 96;
/// Extra bytes charged for each string a built-in creates in bulk (the
/// pieces of `split`, the matches of `matchAll`): the `Arc` counters before
/// its text. Without them, a million one-character pieces reached three
/// times the memory budget in resident memory.
pub const STRING_HEADER_BYTES: u64 = 16;

/// An XPR value (spec "Type System", plus `regex` and functions).
#[derive(Clone, Debug)]
pub enum Value {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// An IEEE 754 double, never NaN or infinite.
    Number(f64),
    /// A UTF-8 string; characters are Unicode scalar values.
    String(Key),
    /// An array.
    Array(Arc<Array>),
    /// An object (insertion-ordered).
    Object(Arc<Object>),
    /// A closure, a built-in or a host function.
    Function(Arc<Function>),
    /// A compiled regex literal.
    Regex(Arc<Regex>),
}

const _: () = assert!(size_of::<Value>() <= 24);

/// An immutable array with its logical size and depth.
#[derive(Debug, Default)]
pub struct Array {
    items: Vec<Value>,
    size: u64,
    depth: u32,
}

/// An immutable object with its logical size and depth.
#[derive(Debug, Default)]
pub struct Object {
    map: Map,
    size: u64,
    depth: u32,
}

/// A regex value: the pattern as written, its flags, and the compiled form.
#[derive(Debug)]
pub struct Regex {
    pattern: String,
    flags: String,
    compiled: crate::stdlib::regex::Engine,
    scan_cost: u32,
    rescans: bool,
    lookahead: u64,
    compiled_bytes: u64,
}

impl Value {
    /// The spec's type name, as `type()` returns it: `"null"`, `"boolean"`,
    /// `"number"`, `"string"`, `"array"`, `"object"`, `"function"`, `"regex"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
            Value::Function(_) => "function",
            Value::Regex(_) => "regex",
        }
    }

    /// Truthiness (spec "Truthiness"): `false`, `null`, `0` and `""` are falsy.
    #[inline]
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0,
            Value::String(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// A string value from text.
    pub fn string(s: impl Into<Key>) -> Value {
        Value::String(s.into())
    }

    /// An array value from its elements.
    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Arc::new(Array::new(items)))
    }

    /// An object value from its map.
    pub fn object(map: Map) -> Value {
        Value::Object(Arc::new(Object::new(map)))
    }

    /// Bytes this value counts for in the memory budget when it is stored
    /// into a new array or object: strings by length, arrays and objects by
    /// their logical size, scalars nothing beyond their slot.
    #[inline]
    pub fn logical_size(&self) -> u64 {
        match self {
            Value::String(s) => s.len() as u64,
            Value::Array(a) => a.size,
            Value::Object(o) => o.size,
            Value::Regex(r) => r.pattern.len() as u64,
            _ => 0,
        }
    }

    /// Nesting depth: 0 for scalars, 1 + the deepest element for arrays and objects.
    #[inline]
    pub fn depth(&self) -> u32 {
        match self {
            Value::Array(a) => a.depth,
            Value::Object(o) => o.depth,
            _ => 0,
        }
    }

    /// The number, if this is one.
    #[inline]
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The string, if this is one.
    #[inline]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The array, if this is one.
    #[inline]
    pub fn as_array(&self) -> Option<&Arc<Array>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, if this is one.
    #[inline]
    pub fn as_object(&self) -> Option<&Arc<Object>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }
}

impl Array {
    /// Wraps `items`, computing the logical size and depth (O(n), once).
    pub fn new(items: Vec<Value>) -> Self {
        let mut size = HEADER_BYTES;
        let mut depth = 0;
        for v in &items {
            size = size.saturating_add(SLOT_BYTES + v.logical_size());
            depth = depth.max(v.depth());
        }
        Array {
            items,
            size,
            depth: depth + 1,
        }
    }

    /// The elements.
    #[inline]
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Logical size in bytes (see the module doc).
    pub fn logical_size(&self) -> u64 {
        self.size
    }

    /// Nesting depth: `[]` is 1, `[[1]]` is 2.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The elements, by value (cloned only if the array is shared).
    pub fn into_items(self: Arc<Self>) -> Vec<Value> {
        match Arc::try_unwrap(self) {
            Ok(mut a) => std::mem::take(&mut a.items),
            Err(shared) => shared.items.clone(),
        }
    }
}

impl Object {
    /// Wraps `map`, computing the logical size and depth (O(n), once).
    pub fn new(map: Map) -> Self {
        let mut size = HEADER_BYTES;
        let mut depth = 0;
        for (k, v) in &map {
            size = size.saturating_add(SLOT_BYTES + k.len() as u64 + v.logical_size());
            depth = depth.max(v.depth());
        }
        Object {
            map,
            size,
            depth: depth + 1,
        }
    }

    /// Wraps `map` whose logical size (bytes) and depth the caller has
    /// just measured as [`Object::new`] would.
    #[inline]
    pub(crate) fn measured(map: Map, size: u64, depth: u32) -> Self {
        debug_assert_eq!(Object::new(map.clone()).size, size);
        Object { map, size, depth }
    }

    /// The map, in insertion order.
    #[inline]
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The value of `key`, if present.
    #[inline]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// The value of `key`, if present, given `hash == key_hash(key)`
    /// (computed once by the caller): a lookup that hashes nothing.
    #[inline]
    pub fn get_hashed(&self, key: &str, hash: u64) -> Option<&Value> {
        map_get_hashed(&self.map, key, hash)
    }

    /// As [`Object::get_hashed`], trying position `*hint` first (see
    /// [`map_get_hinted`]).
    #[inline]
    pub fn get_hinted(&self, key: &str, hash: u64, hint: &mut u32) -> Option<&Value> {
        map_get_hinted(&self.map, key, hash, hint)
    }

    /// The number of keys.
    #[inline]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are no keys.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Logical size in bytes (see the module doc).
    pub fn logical_size(&self) -> u64 {
        self.size
    }

    /// Nesting depth: `{}` is 1, `{"a": {}}` is 2.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The map, by value (cloned only if the object is shared).
    pub fn into_map(self: Arc<Self>) -> Map {
        match Arc::try_unwrap(self) {
            Ok(mut o) => std::mem::take(&mut o.map),
            Err(shared) => shared.map.clone(),
        }
    }
}

/// `map.get(key)` given `hash == key_hash(key)`.
#[inline]
pub fn map_get_hashed<'m>(map: &'m Map, key: &str, hash: u64) -> Option<&'m Value> {
    use indexmap::map::RawEntryApiV1;
    // A small map is searched in order: a few key comparisons cost less
    // than probing the hash table (records usually have a few fields).
    if map.len() <= 8 {
        return map
            .iter()
            .find(|(k, _)| bytes_eq(k.as_bytes(), key.as_bytes()))
            .map(|(_, v)| v);
    }
    map.raw_entry_v1()
        .from_hash(hash, |k| bytes_eq(k.as_bytes(), key.as_bytes()))
        .map(|(_, v)| v)
}

/// `map.get(key)` given `hash == key_hash(key)`, trying position `*hint`
/// first: a program that reads the same names from records of the same
/// layout finds each at the position where it was last found, with one key
/// comparison. `*hint` is set to where the key was found (left as it was
/// when the key is absent).
#[inline]
pub fn map_get_hinted<'m>(map: &'m Map, key: &str, hash: u64, hint: &mut u32) -> Option<&'m Value> {
    // Only a short key is compared here: a longer one (a call to
    // `memcmp`) is left to the search, so a hit saves no registers.
    if let Some((k, v)) = map.get_index(*hint as usize)
        && k.len() == key.len()
        && short_eq(k.as_bytes(), key.as_bytes()) == Some(true)
    {
        return Some(v);
    }
    map_find_hinted(map, key, hash, hint)
}

/// The search of [`map_get_hinted`] when the hint misses: out of line, so
/// that a hit saves and restores no registers.
#[inline(never)]
fn map_find_hinted<'m>(map: &'m Map, key: &str, hash: u64, hint: &mut u32) -> Option<&'m Value> {
    let (at, v) = if map.len() <= 8 {
        map.iter()
            .enumerate()
            .find(|(_, (k, _))| bytes_eq(k.as_bytes(), key.as_bytes()))
            .map(|(at, (_, v))| (at, v))?
    } else {
        use indexmap::map::RawEntryApiV1;
        map.raw_entry_v1()
            .from_hash_full(hash, |k| bytes_eq(k.as_bytes(), key.as_bytes()))
            .map(|(at, _, v)| (at, v))?
    };
    *hint = u32::try_from(at).unwrap_or(u32::MAX);
    Some(v)
}

/// `a == b` for byte strings, inline for the short ones object keys and
/// compared words usually are (a call to `memcmp` costs more than the
/// comparison): up to 16 bytes as two overlapping word comparisons.
/// Always inlined in release builds only: in debug builds the dispatch
/// loop's frame must stay within the native-call ceiling's calibration.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    short_eq(a, b).unwrap_or_else(|| a == b)
}

/// `a == b` for two byte strings of the same length up to 16 bytes, with
/// no call; `None` for longer ones.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn short_eq(a: &[u8], b: &[u8]) -> Option<bool> {
    fn words<const W: usize>(a: &[u8], b: &[u8]) -> Option<bool> {
        Some(
            a.first_chunk::<W>()? == b.first_chunk::<W>()?
                && a.last_chunk::<W>()? == b.last_chunk::<W>()?,
        )
    }
    let n = a.len();
    match n {
        0 => Some(true),
        1..=3 => {
            Some(a.first() == b.first() && a.get(n / 2) == b.get(n / 2) && a.last() == b.last())
        }
        4..=7 => words::<4>(a, b),
        8..=16 => words::<8>(a, b),
        _ => None,
    }
}

/// Whether dropping `v` may recurse: it owns values of its own.
#[inline]
fn owns_values(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Object(_) | Value::Function(_))
}

/// Drops values without recursion: the last owner of a nested array,
/// object or closure hands its children to an explicit stack instead of
/// dropping them in a nested call. Without this, a chain such as
/// `range(100000).reduce((f, _) => x => f, null)` (closures capturing
/// closures; no value depth limits it) would overflow the native stack when
/// the result is dropped.
pub(crate) fn drop_iteratively(mut stack: Vec<Value>) {
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => {
                if let Some(mut a) = Arc::into_inner(a) {
                    stack.append(&mut a.items);
                }
            }
            Value::Object(o) => {
                if let Some(mut o) = Arc::into_inner(o) {
                    stack.extend(std::mem::take(&mut o.map).into_values());
                }
            }
            Value::Function(f) => {
                if let Some(Function::Closure(mut c)) = Arc::into_inner(f) {
                    stack.extend(std::mem::take(&mut c.captures).into_vec());
                }
            }
            _ => {}
        }
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if self.items.iter().any(owns_values) {
            drop_iteratively(std::mem::take(&mut self.items));
        }
    }
}

impl Drop for Object {
    fn drop(&mut self) {
        if self.map.values().any(owns_values) {
            drop_iteratively(std::mem::take(&mut self.map).into_values().collect());
        }
    }
}

/// Drops a closure's captures without recursion (see [`drop_iteratively`]).
pub(crate) fn drop_captures(captures: &mut Box<[Value]>) {
    if captures.iter().any(owns_values) {
        drop_iteratively(std::mem::take(captures).into_vec());
    }
}

impl Regex {
    /// A regex value from its source pattern, flags (subset of `ims`) and
    /// the compiled matcher (built by `stdlib::regex`).
    pub fn new(
        pattern: impl Into<String>,
        flags: impl Into<String>,
        compiled: crate::stdlib::regex::Engine,
    ) -> Self {
        Regex {
            pattern: pattern.into(),
            flags: flags.into(),
            compiled,
            scan_cost: 1,
            rescans: false,
            lookahead: 0,
            compiled_bytes: 0,
        }
    }

    /// Sets the compiled size counted for this regex, in bytes (measured
    /// by `stdlib::regex::prepare` before compiling).
    pub fn with_compiled_bytes(mut self, bytes: u64) -> Self {
        self.compiled_bytes = bytes;
        self
    }

    /// The compiled size counted for this regex, in bytes: what a
    /// program's regex allowance, a run's memory budget and the regex
    /// caches count for it (see `stdlib::regex::prepare`).
    pub fn compiled_bytes(&self) -> u64 {
        self.compiled_bytes
    }

    /// Sets the fuel charged per 16 haystack bytes scanned (at least 1),
    /// an estimate of the compiled pattern's size made by `stdlib::regex`.
    pub fn with_scan_cost(mut self, cost: u32) -> Self {
        self.scan_cost = cost.max(1);
        self.compiled.set_scan_cost(u64::from(self.scan_cost));
        self
    }

    /// Fuel per 16 haystack bytes scanned: 1 for a small pattern, more for
    /// a pattern whose automaton is large (see `stdlib::regex::compile`).
    pub fn scan_cost(&self) -> u32 {
        self.scan_cost
    }

    /// Marks a pattern whose searches may read far past the match they
    /// return (a preferred alternative that fails late, as in `\w*b|a`), so
    /// that iterating over all matches may re-read the rest of the haystack
    /// for each one; such searches are charged for the rest of the haystack.
    pub fn with_rescans(mut self, rescans: bool) -> Self {
        self.rescans = rescans;
        self
    }

    /// Whether each search may read to the end of the haystack (see
    /// [`Regex::with_rescans`]).
    pub fn rescans(&self) -> bool {
        self.rescans
    }

    /// Sets how many bytes past its start a search may read while trying a
    /// branch that then fails (an upper bound of the longest match of the
    /// pattern's bounded parts, made by `stdlib::regex`): `a{1,1000}b|a`
    /// reads up to 1,000 bytes for every one-byte match, so iterating over
    /// matches pays for those bytes on each search.
    pub fn with_lookahead(mut self, bytes: u64) -> Self {
        self.lookahead = bytes;
        self
    }

    /// Bytes a search may read past its start (see [`Regex::with_lookahead`]).
    pub fn lookahead(&self) -> u64 {
        self.lookahead
    }

    /// The pattern as written between the slashes.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The flags, e.g. `"i"`.
    pub fn flags(&self) -> &str {
        &self.flags
    }

    /// The compiled matcher (see `stdlib::regex::Engine`).
    pub fn compiled(&self) -> &crate::stdlib::regex::Engine {
        &self.compiled
    }
}

/// Structural equality (the `==` of XPR): numbers by value, strings by
/// content, arrays element-wise, objects by key set and values with key
/// order ignored, regexes by pattern and flags, functions by identity.
///
/// Walks nested values with an explicit stack (see [`crate::compare`]),
/// without charging: the VM and the built-ins compare with
/// [`Value::eq_metered`], which charges as it goes.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        crate::compare::equal_unmetered(self, other)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s.into())
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::array(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_send_sync_and_small() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Value>();
        assert!(size_of::<Value>() <= 24);
    }

    #[test]
    fn dropping_deep_chains_does_not_recurse() {
        let handle = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let mut v = Value::Null;
                for i in 0..200_000 {
                    v = match i % 3 {
                        0 => Value::array(vec![v]),
                        1 => {
                            let mut m = Map::default();
                            m.insert("k".into(), v);
                            Value::object(m)
                        }
                        _ => {
                            Value::Function(Arc::new(Function::Closure(crate::function::Closure {
                                program: crate::program::Program::default(),
                                proto: 0,
                                captures: vec![v].into_boxed_slice(),
                            })))
                        }
                    };
                }
                drop(v);
            })
            .expect("spawn");
        handle.join().expect("no stack overflow");
    }

    #[test]
    fn counted_sizes_cover_the_real_allocations() {
        // The memory budget is meant in real bytes: a slot is a whole
        // `Value`, and a header covers the `Arc` counters and the array or
        // object struct (not the map's hash table, nor allocator rounding).
        // With 16-byte slots and 32-byte headers, small objects and closures
        // reached twice the budget in resident memory.
        assert!(SLOT_BYTES >= size_of::<Value>() as u64);
        assert!(HEADER_BYTES >= 2 * size_of::<usize>() as u64 + size_of::<Array>() as u64);
        assert!(HEADER_BYTES >= 2 * size_of::<usize>() as u64 + size_of::<Object>() as u64);
    }

    #[test]
    fn shared_structure_counts_logically() {
        let a = Value::array(vec![Value::from("abcd"); 10]);
        let pair = Value::array(vec![a.clone(), a.clone()]);
        assert_eq!(
            pair.logical_size(),
            HEADER_BYTES + 2 * (SLOT_BYTES + a.logical_size())
        );
        assert_eq!(pair.depth(), 2);
    }

    #[test]
    fn equality_of_deep_values_does_not_recurse() {
        // A host may raise the value-depth budget far above its default:
        // comparing two 100,000-deep chains overflowed a 2 MiB stack.
        let handle = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| {
                let chain = |leaf: f64| {
                    let mut v = Value::Number(leaf);
                    for i in 0..100_000 {
                        v = if i % 2 == 0 {
                            Value::array(vec![Value::Null, v])
                        } else {
                            let mut m = Map::default();
                            m.insert("k".into(), v);
                            Value::object(m)
                        };
                    }
                    v
                };
                let (a, b, c) = (chain(1.0), chain(1.0), chain(2.0));
                let mut work = 0u64;
                let eq = a.eq_metered(&b, |units| {
                    work += units;
                    Ok(())
                });
                assert!(eq.unwrap());
                assert!(work >= 100_000, "work {work}");
                assert!(a != c);
            })
            .expect("spawn");
        handle.join().expect("no stack overflow");
    }

    #[test]
    fn equality_is_structural_and_ignores_key_order() {
        let mut m1 = Map::default();
        m1.insert("a".into(), Value::from(1.0));
        m1.insert("b".into(), Value::from(2.0));
        let mut m2 = Map::default();
        m2.insert("b".into(), Value::from(2.0));
        m2.insert("a".into(), Value::from(1.0));
        assert_eq!(Value::object(m1), Value::object(m2));
        assert_ne!(Value::from(1.0), Value::from("1"));
        assert!(!Value::from("").truthy() && Value::array(vec![]).truthy());
    }
}
