//! The regexes a VM compiles from patterns given as strings at run time
//! (`matches(s, "a+")`, `replacePattern(s, "x", "y")`, ...): compiled
//! through a cache bounded in entries and in compiled bytes, each miss
//! charged to the run that compiles it (issue 11).
//!
//! A miss costs, before anything is compiled, [`compile_fuel`] (reading
//! and translating the pattern, measuring it); the pattern's compiled
//! size is then measured (see `stdlib::regex::prepare`) within the memory
//! the run has left, and charged as memory (the regex stays alive while
//! the run may use it) and as fuel, one unit per byte
//! ([`COMPILED_BYTES_PER_FUEL`]), before the `regex` crate builds it.
//! A hit costs the bytes compared with cached patterns of the same length.
//!
//! [`compile_fuel`]: crate::stdlib::regex::compile_fuel

use std::sync::Arc;

use crate::value::Regex;

/// Regexes the cache keeps at most.
pub const REGEX_CACHE: usize = 16;

/// Compiled bytes (see [`Regex::compiled_bytes`]) the cache keeps at most,
/// in all: 8 MiB, more than any one regex the per-regex limits accept
/// (about 5 MiB counted at most) while [`REGEX_CACHE`] ordinary ones take a
/// few hundred KB. A regex bigger than this is used by the run that
/// compiled it and not kept.
pub const REGEX_CACHE_BYTES: u64 = 8 << 20;

/// Compiled bytes per fuel unit charged when a run-time pattern is
/// compiled. The `regex` crate (with the size probe) takes about 1 to 13 ns
/// per compiled byte in a release build (`a+`, 19 KB counted, 22 us;
/// `(?i)hello` 20 KB, 190 us; `\pL+` 81 KB, 1.1 ms; `(?i)\pL{24}`, 1.5 MB,
/// 13 ms), so a compilation costs at most about 13 ns per fuel unit.
pub const COMPILED_BYTES_PER_FUEL: u64 = 1;

struct Entry {
    pattern: Box<str>,
    flags: Box<str>,
    regex: Arc<Regex>,
}

/// Least recently used last-out: the most recent entry is at the end.
#[derive(Default)]
pub(crate) struct RegexCache {
    entries: Vec<Entry>,
    /// Sum of the entries' compiled bytes.
    bytes: u64,
}

impl RegexCache {
    /// Fuel for looking `pattern` up: its bytes / 16 for each cached
    /// pattern of the same length (compared byte by byte).
    pub(crate) fn lookup_fuel(&self, pattern: &str) -> u64 {
        let same_length = self
            .entries
            .iter()
            .filter(|e| e.pattern.len() == pattern.len())
            .count() as u64;
        same_length.saturating_mul(pattern.len() as u64 / crate::format::BYTES_PER_FUEL)
    }

    /// The cached regex for `pattern` and `flags`, now the most recent.
    pub(crate) fn get(&mut self, pattern: &str, flags: &str) -> Option<Arc<Regex>> {
        let i = self
            .entries
            .iter()
            .position(|e| &*e.pattern == pattern && &*e.flags == flags)?;
        let entry = self.entries.remove(i);
        let regex = entry.regex.clone();
        self.entries.push(entry);
        Some(regex)
    }

    /// Keeps `regex`, dropping the least recently used entries until at
    /// most [`REGEX_CACHE`] entries of at most [`REGEX_CACHE_BYTES`] in all
    /// remain; a regex bigger than that on its own is not kept.
    pub(crate) fn insert(&mut self, pattern: &str, flags: &str, regex: Arc<Regex>) {
        let size = regex.compiled_bytes();
        if size > REGEX_CACHE_BYTES {
            return;
        }
        while !self.entries.is_empty()
            && (self.entries.len() >= REGEX_CACHE
                || self.bytes.saturating_add(size) > REGEX_CACHE_BYTES)
        {
            let old = self.entries.remove(0);
            self.bytes = self.bytes.saturating_sub(old.regex.compiled_bytes());
        }
        self.bytes = self.bytes.saturating_add(size);
        self.entries.push(Entry {
            pattern: pattern.into(),
            flags: flags.into(),
            regex,
        });
    }

    /// Compiled bytes held.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regex(p: &str, bytes: u64) -> Arc<Regex> {
        let re = crate::stdlib::regex::compile(p, "").unwrap_or_else(|e| panic!("{e}"));
        Arc::new(re.with_compiled_bytes(bytes))
    }

    #[test]
    fn bounded_in_entries_and_bytes() {
        let mut cache = RegexCache::default();
        for i in 0..40 {
            let p = format!("a{i}");
            cache.insert(&p, "", regex(&p, 1000));
            assert!(cache.len() <= REGEX_CACHE);
        }
        assert_eq!(cache.len(), REGEX_CACHE);
        assert_eq!(cache.bytes(), 16_000);
        // The most recent are kept.
        assert!(cache.get("a39", "").is_some());
        assert!(cache.get("a0", "").is_none());
        // Big entries push the others out by bytes.
        cache.insert("big1", "", regex("big1", REGEX_CACHE_BYTES / 2));
        cache.insert("big2", "", regex("big2", REGEX_CACHE_BYTES / 2));
        assert_eq!(cache.bytes(), REGEX_CACHE_BYTES);
        assert_eq!(cache.len(), 2);
        // Recently used is kept: `big1` was used, `big2` goes first.
        assert!(cache.get("big1", "").is_some());
        cache.insert("small", "", regex("small", 10));
        assert!(cache.get("big2", "").is_none());
        assert!(cache.get("big1", "").is_some());
        assert!(cache.bytes() <= REGEX_CACHE_BYTES);
        // Too big to keep at all.
        cache.insert("huge", "", regex("huge", REGEX_CACHE_BYTES + 1));
        assert!(cache.get("huge", "").is_none());
        assert!(cache.get("small", "").is_some());
        // Flags are part of the key.
        assert!(cache.get("small", "i").is_none());
    }
}
