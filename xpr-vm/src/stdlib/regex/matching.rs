//! Matching: the fuel of a scan, the first match, every match as
//! JavaScript's global regexes find them (`matchAll`), and splitting
//! around matches (the string method `split`).

use super::engine::Locations;
use super::{CAPTURE_FUEL_PER_BYTE, CAPTURE_SEARCH_FUEL, PIECE_FUEL, SCAN_BYTES_PER_FUEL};
use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::{HEADER_BYTES, Regex, SLOT_BYTES, STRING_HEADER_BYTES, Value};

/// Fuel for scanning `s` once with `re`: `1 + bytes / 16 * scan_cost`,
/// where the scan cost (1 for most patterns) grows with the estimated size
/// of the pattern's automaton (see [`STATES_PER_COST`]), since a search may
/// have to step through every state for each byte.
///
/// [`STATES_PER_COST`]: super::STATES_PER_COST
pub fn scan_fuel(re: &Regex, s: &str) -> u64 {
    1 + (s.len() as u64 / SCAN_BYTES_PER_FUEL).saturating_mul(u64::from(re.scan_cost()))
}

/// Extra fuel for a search of `s` from byte `pos` after the first search
/// (which [`scan_fuel`] paid for): `(bytes read ahead) / 16 * scan_cost`.
/// The bytes read ahead are the rest of the haystack when the regex
/// [`Regex::rescans`] (its searches may read far past the match they
/// return, so iterating over matches can read the haystack once per
/// match); otherwise at most [`Regex::lookahead`], the longest stretch its
/// bounded parts can read before failing (`a{1,1000}b|a` reads 1,000 bytes
/// for each one-byte match). Small patterns (a lookahead under 16 bytes)
/// pay nothing extra.
pub fn rescan_fuel(re: &Regex, s: &str, pos: usize) -> u64 {
    if pos == 0 {
        return 0;
    }
    let rest = s.len().saturating_sub(pos) as u64;
    let ahead = if re.rescans() {
        rest
    } else {
        rest.min(re.lookahead())
    };
    (ahead / SCAN_BYTES_PER_FUEL).saturating_mul(u64::from(re.scan_cost()))
}

/// Fuel for resolving the capture groups of a match `len` bytes long:
/// [`CAPTURE_SEARCH_FUEL`] plus, per byte of the match, the larger of
/// `CAPTURE_FUEL_PER_BYTE * scan_cost` and the regex's NFA rate
/// ([`Engine::nfa_fuel_per_byte`], one per NFA state): the groups are read
/// by an NFA simulation (the backtracker or the PikeVM), which may step
/// through every state for each byte.
///
/// [`Engine::nfa_fuel_per_byte`]: super::Engine::nfa_fuel_per_byte
pub fn capture_fuel(re: &Regex, len: usize) -> u64 {
    let per_byte = CAPTURE_FUEL_PER_BYTE
        .saturating_mul(u64::from(re.scan_cost()))
        .max(re.compiled().nfa_fuel_per_byte());
    CAPTURE_SEARCH_FUEL.saturating_add((len as u64).saturating_mul(per_byte))
}

/// The next match of `re` in `s` at or after byte `at`, with its groups
/// resolved into `locs`: the match is found first (by the search the
/// caller paid for), then [`capture_fuel`] is charged for its length, and
/// only then does the capture engine run over it (anchored at the match's
/// start, assertions still seeing the whole haystack).
///
/// # Errors
/// The fuel error, before the capture engine runs.
pub(super) fn captures_at(
    rt: &mut dyn Runtime,
    re: &Regex,
    s: &str,
    at: usize,
    locs: &mut Locations,
) -> Result<Option<(usize, usize)>, Error> {
    let compiled = re.compiled();
    let Some(m) = compiled.find_at(rt, s, at)? else {
        return Ok(None);
    };
    rt.fuel(capture_fuel(re, m.1 - m.0))?;
    compiled.captures(s, m, locs);
    Ok(Some(m))
}

/// Charges [`scan_fuel`] for scanning `s` with `re`.
///
/// # Errors
/// The fuel error when the budget is spent.
pub fn charge_scan(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<(), Error> {
    rt.fuel(scan_fuel(re, s))
}

/// The first (leftmost) match of `re` in `s`, if any. Charges the lazy
/// DFA's states built and any NFA simulation (see [`super::Engine`]), not
/// the scan: the caller charges [`scan_fuel`] (or use [`find_value`]).
///
/// # Errors
/// The fuel error.
pub fn first_match<'a>(
    rt: &mut dyn Runtime,
    re: &Regex,
    s: &'a str,
) -> Result<Option<&'a str>, Error> {
    Ok(re
        .compiled()
        .find_at(rt, s, 0)?
        .and_then(|(a, b)| s.get(a..b)))
}

/// Whether `re` matches anywhere in `s`, charging [`scan_fuel`].
///
/// # Errors
/// The fuel error.
pub fn is_match(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<bool, Error> {
    charge_scan(rt, re, s)?;
    re.compiled().is_match(rt, s)
}

/// The first match of `re` in `s` as a value: the matched string, or `null`.
/// Charges [`scan_fuel`] and the match's bytes of memory.
///
/// # Errors
/// Fuel or memory errors.
pub fn find_value(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, re, s)?;
    match first_match(rt, re, s)? {
        Some(m) => {
            rt.alloc(m.len() as u64)?;
            Ok(Value::from(m))
        }
        None => Ok(Value::Null),
    }
}

/// The byte offset of the character after the one at `i`, or `None` at the end.
pub(super) fn next_char(s: &str, i: usize) -> Option<usize> {
    s.get(i..)?.chars().next().map(|c| i + c.len_utf8())
}

/// Matches as JavaScript's global regexes find them (`matchAll`, `replace`):
/// search from the end of the previous match, and after an empty match one
/// character further on. Unlike the crate's `find_iter`, an empty match
/// right after a non-empty one is reported (`a*` in `"baaa"` gives `""`,
/// `"aaa"`, `""`).
struct JsMatches<'s> {
    s: &'s str,
    pos: Option<usize>,
}

impl JsMatches<'_> {
    /// The next match, charging what the search charges (not the scan).
    fn next(&mut self, rt: &mut dyn Runtime, re: &Regex) -> Result<Option<(usize, usize)>, Error> {
        let Some(at) = self.pos else {
            return Ok(None);
        };
        let m = re.compiled().find_at(rt, self.s, at)?;
        self.pos = match m {
            Some((a, b)) if a == b => next_char(self.s, b),
            Some((_, b)) => Some(b),
            None => None,
        };
        Ok(m)
    }
}

fn js_matches(s: &str) -> JsMatches<'_> {
    JsMatches { s, pos: Some(0) }
}

/// All non-overlapping matches of `re` in `s`, left to right, as
/// JavaScript's `matchAll` finds them (an empty match right after a
/// non-empty one is reported: `a*` in `"baaa"` gives `""`, `"aaa"`, `""`).
/// Charges what the searches charge beyond the scan (see
/// [`first_match`]); metered callers use [`match_all_values`], which
/// charges the scans too.
///
/// # Errors
/// The fuel error.
pub fn all_matches<'a>(
    rt: &mut dyn Runtime,
    re: &Regex,
    s: &'a str,
) -> Result<Vec<&'a str>, Error> {
    let mut it = js_matches(s);
    let mut out = Vec::new();
    while let Some((a, b)) = it.next(rt, re)? {
        out.extend(s.get(a..b));
    }
    Ok(out)
}

/// All non-overlapping matches of `re` in `s` as an array value of strings.
/// Charges [`scan_fuel`], [`rescan_fuel`] for every later search,
/// [`PIECE_FUEL`] per match plus its bytes / 16, and memory for the array header, each
/// slot and each string before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn match_all_values(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, re, s)?;
    rt.alloc(HEADER_BYTES)?;
    let mut items = Vec::new();
    let mut it = js_matches(s);
    loop {
        if let Some(pos) = it.pos {
            rt.fuel(rescan_fuel(re, s, pos))?;
        }
        let Some((a, b)) = it.next(rt, re)? else {
            break;
        };
        let m = s.get(a..b).unwrap_or_default();
        let len = m.len() as u64;
        rt.fuel(PIECE_FUEL + len / SCAN_BYTES_PER_FUEL)?;
        rt.alloc(SLOT_BYTES + STRING_HEADER_BYTES + len)?;
        items.push(Value::from(m));
    }
    Ok(Value::array(items))
}

/// Splits `s` around the matches of `re`, as JavaScript's
/// `String.prototype.split(regex)` does: `"a1b2c3"` split by `\d+` is
/// `["a", "b", "c", ""]`; an empty match never splits at the start or the
/// end, nor right where the previous piece ended (`"abc"` split by `x*` is
/// `["a", "b", "c"]`); the captured groups of each separator are inserted
/// after the piece before it (`null` for a group that did not participate);
/// `""` gives `[]` when the regex matches the empty string, else `[""]`.
///
/// Charges [`scan_fuel`], [`rescan_fuel`] for every later search,
/// [`PIECE_FUEL`] per separator, [`capture_fuel`] per separator when the
/// regex has groups, memory for the array header, each slot and each string
/// before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn split(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Vec<Value>, Error> {
    charge_scan(rt, re, s)?;
    rt.alloc(HEADER_BYTES)?;
    let compiled = re.compiled();
    if s.is_empty() {
        if compiled.is_match(rt, s)? {
            return Ok(Vec::new());
        }
        rt.alloc(SLOT_BYTES)?;
        return Ok(vec![Value::from("")]);
    }
    let mut out = Vec::new();
    fn push(rt: &mut dyn Runtime, out: &mut Vec<Value>, v: Option<&str>) -> Result<(), Error> {
        let len = v.map_or(0, |t| STRING_HEADER_BYTES + t.len() as u64);
        rt.alloc(SLOT_BYTES + len)?;
        out.push(v.map_or(Value::Null, Value::from));
        Ok(())
    }
    let mut locs = compiled.locations();
    let groups = locs.len() > 1;
    let mut p = 0; // end of the last separator
    let mut q = 0; // where to search next
    while q < s.len() {
        rt.fuel(rescan_fuel(re, s, q))?;
        let found = if groups {
            captures_at(rt, re, s, q, &mut locs)?
        } else {
            compiled.find_at(rt, s, q)?
        };
        let Some((start, end)) = found else {
            break;
        };
        if start >= s.len() {
            break;
        }
        if end == p {
            // An empty match where the last piece ended: try one character on.
            match next_char(s, start) {
                Some(n) => q = n,
                None => break,
            }
            continue;
        }
        rt.fuel(PIECE_FUEL)?;
        push(rt, &mut out, s.get(p..start))?;
        for g in 1..locs.len() {
            push(rt, &mut out, locs.get(g).and_then(|(a, b)| s.get(a..b)))?;
        }
        p = end;
        q = p;
    }
    push(rt, &mut out, s.get(p..))?;
    Ok(out)
}
