//! The matching engine of a compiled regex, built from `regex-automata`
//! (the engine under the `regex` crate) so that every search is charged
//! for the engine that actually runs it (issue 11).
//!
//! The `regex` crate searches with a lazy DFA and, when the DFA gives up
//! (its cache of states fills up and is used inefficiently), silently
//! falls back to an NFA simulation (PikeVM or bounded backtracker) that
//! steps through up to every NFA state for each byte; building the DFA's
//! states is also hidden, and for a pattern such as `[\s\S]{1000}` costs
//! thousands of steps a byte until the cache is warm. A charge computed
//! from the pattern alone cannot follow either. Here the same engines are
//! composed by hand, configured as the crate configures them (leftmost-first
//! matching, UTF-8 haystacks, empty matches never split a character), so
//! results are the crate's, and each search reports what it did:
//!
//! - the lazy DFA ([`hybrid`]) runs first. The bytes of DFA states it
//!   built (its cache's growth) are charged after it returns, at
//!   [`CACHE_BYTES_FUEL`] fuel a byte; it may build at most one cache's
//!   worth ([`super::DFA_SIZE_LIMIT`] a direction) in one search: the first
//!   time its cache would have to be cleared, it gives up;
//! - when it gives up (or quits: a Unicode word boundary on non-ASCII
//!   text), the NFA simulation runs instead, charged before it runs at
//!   [`Engine::nfa_fuel_per_byte`] fuel per byte it may read: one per NFA
//!   state, since the PikeVM may step through every state for each byte;
//! - capture groups are resolved by the bounded backtracker (or the PikeVM
//!   for long matches) over the match alone, charged the same per-byte
//!   rate before they run (see `matching::capture_fuel`).
//!
//! What is not charged beforehand is bounded: the states one search builds
//! (at most [`super::DFA_SIZE_LIMIT`] per direction) are charged just
//! after, so a run can overshoot its fuel by one search's state building.

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::Arc;

use regex_automata::nfa::thompson::backtrack::{self, BoundedBacktracker};
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::nfa::thompson::{self, NFA, WhichCaptures};
use regex_automata::util::pool::Pool;
use regex_automata::util::primitives::NonMaxUsize;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind, PatternID, hybrid};
use regex_syntax::hir::Hir;

use crate::error::Error;
use crate::runtime::Runtime;

/// Fuel per byte of lazy DFA states built during a search (the growth of
/// its cache). Measured in a release build on a loaded machine: 15 to 40
/// ns a byte of state, whether the states hold thousands of NFA states
/// (`[\s\S]{1000}`, 1.4 MB of states over 12 KB of text in 50 ms) or a
/// few (`[a-q][^u-z]{13}x`), about one to two fuel units.
pub const CACHE_BYTES_FUEL: u64 = 2;

/// NFA states per fuel unit per byte an NFA simulation reads: measured in
/// a release build, the PikeVM takes up to about 12 ns per state per byte
/// when every state is active (`[0-9A-Za-z_]{300}[0-9]`), about one fuel
/// unit.
pub const NFA_STATES_PER_FUEL: u64 = 1;

/// Fuel per search for a match ([`Engine::find_at`]), charged before it:
/// its fixed cost (taking a cache, starting the lazy DFA forwards, then
/// backwards from the match's end to find its start), 30 to 50 ns in a
/// release build, which matters when a long text has many short matches.
pub const SEARCH_FUEL: u64 = 2;

/// The caches one search needs (the engines themselves are shared).
#[derive(Debug)]
struct Cache {
    hybrid: Option<hybrid::regex::Cache>,
    /// The lazy DFA cache's size when last emptied, in bytes (emptying
    /// it keeps the memory of some of its parts).
    hybrid_empty: usize,
    pikevm: pikevm::Cache,
    backtrack: backtrack::Cache,
}

/// The engines of a regex, shared with its pool of caches.
#[derive(Debug)]
struct Engines {
    nfa: NFA,
    hybrid: Option<hybrid::regex::Regex>,
    pikevm: PikeVM,
    backtrack: BoundedBacktracker,
}

impl Engines {
    fn new_cache(&self) -> Cache {
        let hybrid = self.hybrid.as_ref().map(|h| h.create_cache());
        Cache {
            hybrid_empty: hybrid.as_ref().map_or(0, |c| c.memory_usage()),
            hybrid,
            pikevm: self.pikevm.create_cache(),
            backtrack: self.backtrack.create_cache(),
        }
    }
}

/// What makes a new cache for the pool.
type CacheFn = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// A compiled regex: its NFA and the engines built from it.
pub struct Engine {
    engines: Arc<Engines>,
    /// Caches not in use, taken by a search and given back after it (the
    /// thread that made the pool takes its own without locking).
    caches: Pool<Cache, CacheFn>,
    /// The regex's scan cost (see `Regex::scan_cost`), charged again when
    /// a search is retried.
    scan_cost: u64,
}

/// The flags a pattern is compiled with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flags {
    pub case_insensitive: bool,
    pub multi_line: bool,
    pub dot_all: bool,
}

/// The syntax configuration of a pattern in the crate's syntax, as the
/// `regex` crate sets it.
pub(crate) fn syntax_config(flags: Flags) -> syntax::Config {
    syntax::Config::new()
        .case_insensitive(flags.case_insensitive)
        .multi_line(flags.multi_line)
        .dot_matches_new_line(flags.dot_all)
        .nest_limit(super::NEST_LIMIT)
        .utf8(true)
}

/// The forward NFA configuration, as the `regex` crate sets it, with a
/// size limit of `limit` bytes.
pub(crate) fn nfa_config(limit: usize) -> thompson::Config {
    thompson::Config::new()
        .utf8(true)
        .shrink(false)
        .which_captures(WhichCaptures::All)
        .nfa_size_limit(Some(limit))
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("engines", &self.engines)
            .field("scan_cost", &self.scan_cost)
            .finish_non_exhaustive()
    }
}

/// Why [`Engine::build`] failed.
#[derive(Debug)]
pub(crate) enum BuildError {
    /// An automaton exceeds [`super::SIZE_LIMIT`].
    TooBig,
    /// Anything else (the NFA should not have been built).
    Other(String),
}

impl Engine {
    /// Builds the engines from `nfa` (a forward NFA built with
    /// [`nfa_config`] from `hir`, parsed with [`syntax_config`]): the reverse
    /// NFA the lazy DFA needs to find where matches start, the lazy DFA
    /// (none when even a few of its states would not fit its cache: then
    /// every search is an NFA simulation), the PikeVM and the backtracker.
    pub(crate) fn build(hir: &Hir, nfa: NFA) -> Result<Engine, BuildError> {
        Self::build_with_cache(hir, nfa, super::DFA_SIZE_LIMIT)
    }

    /// [`Engine::build`] with a lazy DFA cache of `capacity` bytes a
    /// direction.
    fn build_with_cache(hir: &Hir, nfa: NFA, capacity: usize) -> Result<Engine, BuildError> {
        let limit = super::SIZE_LIMIT;
        let rev = thompson::Compiler::new()
            .configure(
                nfa_config(limit)
                    .which_captures(WhichCaptures::None)
                    .reverse(true),
            )
            .build_from_hir(hir)
            .map_err(|e| match e.size_limit() {
                Some(_) => BuildError::TooBig,
                None => BuildError::Other(e.to_string()),
            })?;
        let dfa = hybrid::dfa::Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .starts_for_each_pattern(true)
            .unicode_word_boundary(true)
            .cache_capacity(capacity)
            .skip_cache_capacity_check(false)
            // Give up the first time the cache would be cleared: one
            // search builds at most one cache's worth of states.
            .minimum_cache_clear_count(Some(0))
            .minimum_bytes_per_state(None);
        let fwd = hybrid::dfa::Builder::new()
            .configure(dfa.clone())
            .build_from_nfa(nfa.clone());
        let bwd = hybrid::dfa::Builder::new()
            .configure(dfa.match_kind(MatchKind::All))
            .build_from_nfa(rev);
        let hybrid = match (fwd, bwd) {
            (Ok(f), Ok(r)) => Some(hybrid::regex::Builder::new().build_from_dfas(f, r)),
            _ => None,
        };
        let pikevm = pikevm::Builder::new()
            .configure(pikevm::Config::new().match_kind(MatchKind::LeftmostFirst))
            .build_from_nfa(nfa.clone())
            .map_err(|e| BuildError::Other(e.to_string()))?;
        let backtrack = backtrack::Builder::new()
            .build_from_nfa(nfa.clone())
            .map_err(|e| BuildError::Other(e.to_string()))?;
        let engines = Arc::new(Engines {
            nfa,
            hybrid,
            pikevm,
            backtrack,
        });
        let shared = Arc::clone(&engines);
        let make: CacheFn = Box::new(move || shared.new_cache());
        Ok(Engine {
            engines,
            caches: Pool::new(make),
            scan_cost: 1,
        })
    }

    /// Sets the fuel per 16 bytes scanned charged again when a search is
    /// retried (the regex's scan cost).
    pub(crate) fn set_scan_cost(&mut self, cost: u64) {
        self.scan_cost = cost.max(1);
    }

    /// The number of capture groups, the whole match (group 0) included.
    pub fn group_len(&self) -> usize {
        self.engines.nfa.group_info().group_len(PatternID::ZERO)
    }

    /// The name of each group, in order (`None` for unnamed groups and
    /// group 0).
    pub fn group_names(&self) -> impl Iterator<Item = Option<&str>> {
        self.engines.nfa.group_info().pattern_names(PatternID::ZERO)
    }

    /// The number of states of the NFA.
    pub fn nfa_states(&self) -> usize {
        self.engines.nfa.states().len()
    }

    /// Fuel per haystack byte an NFA simulation (the PikeVM or the
    /// backtracker) may read: one per [`NFA_STATES_PER_FUEL`] NFA states.
    pub fn nfa_fuel_per_byte(&self) -> u64 {
        (self.nfa_states() as u64 / NFA_STATES_PER_FUEL).max(1)
    }

    fn with_cache<T>(&self, f: impl FnOnce(&mut Cache) -> T) -> T {
        let mut cache = self.caches.get();
        f(&mut cache)
    }

    /// Runs the lazy DFA over `input` (`earliest`: whether any match will
    /// do), charging the states it built; `Ok(None)` when it gave up or
    /// there is none. On giving up, a cache that held states of earlier
    /// searches is emptied and the search tried once more, so that each
    /// search may fill a whole cache.
    fn dfa_search(
        &self,
        rt: &mut dyn Runtime,
        cache: &mut Cache,
        input: &Input<'_>,
    ) -> Result<Option<Option<(usize, usize)>>, Error> {
        let (Some(h), Some(hc)) = (self.engines.hybrid.as_ref(), cache.hybrid.as_mut()) else {
            return Ok(None);
        };
        for attempt in 0..2 {
            let before = hc.memory_usage();
            let found = if input.get_earliest() {
                let (fwd, _) = hc.as_parts_mut();
                h.forward()
                    .try_search_fwd(fwd, input)
                    .map(|m| m.map(|m| (m.offset(), m.offset())))
            } else {
                h.try_search(hc, input)
                    .map(|m| m.map(|m| (m.start(), m.end())))
            };
            let grown = hc.memory_usage().saturating_sub(before) as u64;
            let held_states = before > cache.hybrid_empty;
            if found.is_err() {
                // Start the next search from an empty cache.
                hc.reset(h);
                cache.hybrid_empty = hc.memory_usage();
            }
            rt.fuel(grown.saturating_mul(CACHE_BYTES_FUEL))?;
            match found {
                Ok(m) => return Ok(Some(m)),
                Err(_) if attempt == 0 && held_states => {
                    // The scan is read again.
                    let len = (input.end() - input.start()) as u64;
                    rt.fuel(1 + (len / super::SCAN_BYTES_PER_FUEL).saturating_mul(self.scan_cost))?;
                }
                Err(_) => break,
            }
        }
        Ok(None)
    }

    /// Runs the NFA simulation over `input`, filling `slots` (which holds
    /// two slots per group wanted, group 0's first), after charging
    /// [`Engine::nfa_fuel_per_byte`] per byte of the span.
    fn nfa_search(
        &self,
        rt: &mut dyn Runtime,
        cache: &mut Cache,
        input: &Input<'_>,
        slots: &mut [Option<NonMaxUsize>],
    ) -> Result<bool, Error> {
        let len = (input.end() - input.start()) as u64;
        rt.fuel(
            len.saturating_add(1)
                .saturating_mul(self.nfa_fuel_per_byte()),
        )?;
        let fits = len < self.engines.backtrack.max_haystack_len() as u64
            && !(input.get_earliest() && len > 128);
        if fits
            && let Ok(found) =
                self.engines
                    .backtrack
                    .try_search_slots(&mut cache.backtrack, input, slots)
        {
            return Ok(found.is_some());
        }
        Ok(self
            .engines
            .pikevm
            .search_slots(&mut cache.pikevm, input, slots)
            .is_some())
    }

    /// Whether the regex matches `hay` (the caller charged the scan).
    ///
    /// # Errors
    /// The fuel error (states built, or an NFA simulation).
    pub fn is_match(&self, rt: &mut dyn Runtime, hay: &str) -> Result<bool, Error> {
        let input = Input::new(hay).earliest(true);
        self.with_cache(|cache| {
            if let Some(found) = self.dfa_search(rt, cache, &input)? {
                return Ok(found.is_some());
            }
            self.nfa_search(rt, cache, &input, &mut [])
        })
    }

    /// The leftmost-first match in `hay` starting at or after byte `at`
    /// (assertions still see the whole haystack), as byte offsets. The
    /// caller charged the scan; this charges [`SEARCH_FUEL`] first.
    ///
    /// # Errors
    /// The fuel error (states built, or an NFA simulation).
    pub fn find_at(
        &self,
        rt: &mut dyn Runtime,
        hay: &str,
        at: usize,
    ) -> Result<Option<(usize, usize)>, Error> {
        if at > hay.len() {
            return Ok(None);
        }
        rt.fuel(SEARCH_FUEL)?;
        let input = Input::new(hay).range(at..);
        self.with_cache(|cache| {
            if let Some(found) = self.dfa_search(rt, cache, &input)? {
                return Ok(found);
            }
            let mut slots = [None, None];
            self.nfa_search(rt, cache, &input, &mut slots)?;
            Ok(match slots {
                [Some(s), Some(e)] => Some((s.get(), e.get())),
                _ => None,
            })
        })
    }

    /// The capture groups of the match `hay[start..end]` (found by
    /// [`Engine::find_at`]), read by an NFA simulation over the match
    /// alone, into `locs`. The caller charged it (`capture_fuel`).
    pub fn captures(&self, hay: &str, (start, end): (usize, usize), locs: &mut Locations) {
        let input = Input::new(hay).span(start..end).anchored(Anchored::Yes);
        locs.slots.iter_mut().for_each(|s| *s = None);
        self.with_cache(|cache| {
            let len = end - start;
            if len < self.engines.backtrack.max_haystack_len()
                && self
                    .engines
                    .backtrack
                    .try_search_slots(&mut cache.backtrack, &input, &mut locs.slots)
                    .is_ok()
            {
                return;
            }
            self.engines
                .pikevm
                .search_slots(&mut cache.pikevm, &input, &mut locs.slots);
        });
    }

    /// Room for the groups of a match (see [`Engine::captures`]).
    pub fn locations(&self) -> Locations {
        Locations {
            slots: vec![None; self.engines.nfa.group_info().slot_len()],
        }
    }
}

/// The offsets of the capture groups of one match.
#[derive(Debug, Clone)]
pub struct Locations {
    slots: Vec<Option<NonMaxUsize>>,
}

impl Locations {
    /// The number of groups, group 0 (the match) included.
    pub fn len(&self) -> usize {
        self.slots.len() / 2
    }

    /// Whether there is no group at all (never: group 0 is the match).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The byte offsets of group `i`, if it took part in the match.
    pub fn get(&self, i: usize) -> Option<(usize, usize)> {
        let s = self.slots.get(2 * i)?.as_ref()?;
        let e = self.slots.get(2 * i + 1)?.as_ref()?;
        Some((s.get(), e.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::stdlib::testing::TestRuntime;

    const PLAIN: Flags = Flags {
        case_insensitive: false,
        multi_line: false,
        dot_all: false,
    };

    fn engine(p: &str, capacity: usize) -> Engine {
        let hir = regex_automata::util::syntax::parse_with(p, &syntax_config(PLAIN))
            .unwrap_or_else(|e| panic!("{p}: {e}"));
        let nfa = thompson::Compiler::new()
            .configure(nfa_config(super::super::SIZE_LIMIT))
            .build_from_hir(&hir)
            .unwrap_or_else(|e| panic!("{p}: {e}"));
        Engine::build_with_cache(&hir, nfa, capacity).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The smallest cache (within 64 bytes) the lazy DFA of `p` accepts.
    fn small_engine(p: &str) -> Engine {
        let (mut no, mut yes) = (0, 1 << 10);
        while engine(p, yes).engines.hybrid.is_none() {
            (no, yes) = (yes, yes * 2);
        }
        while yes - no > 64 {
            let mid = (no + yes) / 2;
            if engine(p, mid).engines.hybrid.is_some() {
                yes = mid;
            } else {
                no = mid;
            }
        }
        engine(p, yes)
    }

    /// `"[0,1,2,...]"` as `string(range(n))` prints it.
    fn numbers(n: usize) -> String {
        let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        format!("[{}]", items.join(","))
    }

    #[test]
    fn states_built_are_charged_after_the_search() {
        // The fuzz reproducer: each byte of the first search builds a DFA
        // state of up to thousands of NFA states.
        let p = r"[\s\S]{1000}";
        let hay = numbers(1000);
        let e = engine(p, super::super::DFA_SIZE_LIMIT);
        let mut cold = TestRuntime::default();
        assert_eq!(e.find_at(&mut cold, &hay, 0).ok(), Some(Some((0, 1000))));
        assert!(cold.fuel_used > 500_000, "{}", cold.fuel_used);
        // The states are kept: the same search again builds none.
        let mut warm = TestRuntime::default();
        assert_eq!(e.find_at(&mut warm, &hay, 0).ok(), Some(Some((0, 1000))));
        assert_eq!(warm.fuel_used, SEARCH_FUEL);
        // A small budget stops a first search.
        let e = engine(p, super::super::DFA_SIZE_LIMIT);
        let mut tight = TestRuntime {
            fuel_limit: Some(100_000),
            ..TestRuntime::default()
        };
        let got = e.is_match(&mut tight, &hay);
        assert_eq!(got.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    }

    #[test]
    fn a_dfa_that_gives_up_is_replaced_by_the_nfa_charged_first() {
        let p = r"[\s\S]{1000}z";
        let hay = numbers(1000);
        let full = engine(p, super::super::DFA_SIZE_LIMIT);
        let small = small_engine(p);
        let per_byte = small.nfa_fuel_per_byte();
        assert!(per_byte >= 8_000, "{per_byte}");
        for at in [0, 7] {
            let mut rt = TestRuntime::default();
            let got = small.find_at(&mut rt, &hay, at).ok();
            assert_eq!(
                got,
                full.find_at(&mut TestRuntime::default(), &hay, at).ok()
            );
            // The NFA read the rest of the haystack, charged per state.
            let rest = (hay.len() - at) as u64;
            assert!(rt.fuel_used >= rest * per_byte, "{at}: {}", rt.fuel_used);
        }
        let with_z = format!("{hay}z");
        let mut rt = TestRuntime::default();
        let got = small.find_at(&mut rt, &with_z, 0).ok().flatten();
        assert_eq!(got, Some((with_z.len() - 1001, with_z.len())));
        let mut rt = TestRuntime::default();
        assert_eq!(small.is_match(&mut rt, &with_z).ok(), Some(true));
        assert!(rt.fuel_used >= with_z.len() as u64 * per_byte);
        // Under a budget that does not cover the NFA, the fuel error comes
        // before it runs.
        let mut tight = TestRuntime {
            fuel_limit: Some(hay.len() as u64 * per_byte / 2),
            ..TestRuntime::default()
        };
        let got = small.find_at(&mut tight, &hay, 0);
        assert_eq!(got.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    }

    #[test]
    fn groups_match_those_of_the_regex_crate() {
        for (p, hay) in [
            (r"(a+)(b)?", "xaab aa"),
            (r"(?P<y>\d{4})-(\d\d)", "on 2024-01-15"),
            (r"(x)|(y)", "zzy"),
            (r"()", "é"),
        ] {
            let e = engine(p, super::super::DFA_SIZE_LIMIT);
            let crate_re = ::regex::Regex::new(p).unwrap_or_else(|e| panic!("{e}"));
            let mut rt = TestRuntime::default();
            let m = e.find_at(&mut rt, hay, 0).ok().flatten();
            let caps = crate_re.captures(hay);
            assert_eq!(
                m,
                caps.as_ref()
                    .and_then(|c| c.get(0))
                    .map(|g| (g.start(), g.end()))
            );
            let Some(m) = m else { continue };
            let mut locs = e.locations();
            e.captures(hay, m, &mut locs);
            assert_eq!(locs.len(), crate_re.captures_len());
            for i in 0..locs.len() {
                let want = caps
                    .as_ref()
                    .and_then(|c| c.get(i))
                    .map(|g| (g.start(), g.end()));
                assert_eq!(locs.get(i), want, "{p} group {i}");
            }
        }
    }
}
