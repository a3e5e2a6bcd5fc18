//! The compiled size of a regex: measured before the `regex` crate builds
//! it, so that compiling can be bounded as running is (issue 11).
//!
//! The crate's own limits ([`super::SIZE_LIMIT`] and
//! [`super::DFA_SIZE_LIMIT`]) bound one regex; nothing bounded how many a
//! program or a run compiles: 642 copies of `(?i)\pL{24}` (9,000 characters
//! of source) took 6 s of CPU and 784 MB before the first instruction ran.
//! Every compilation now goes through [`measure`] first: it builds the
//! forward Thompson NFA alone (a third to a quarter of the whole build),
//! limited to what the caller may still spend, and derives from it the
//! compiled size the regex will hold:
//!
//! - 4 times the forward NFA's heap bytes: the NFA itself and the reverse
//!   NFA the crate builds for its searches, which measures up to 3 times
//!   the forward one (`\p{Lu}` 3.0x, `.` 2.7x, `\pL` 2.1x, ASCII patterns
//!   less than 1x);
//! - for a pattern with capture groups, the one-pass DFA the crate may build
//!   for them: at most `states * stride * 8` bytes (NFA states times the
//!   byte-class alphabet rounded to a power of two), and never more than
//!   [`ONEPASS_LIMIT`] (the crate's own cap);
//! - [`FIXED_BYTES`] for the crate's fixed structures and the prefilter it
//!   builds from the pattern's literals (up to 15 KB for a short
//!   case-insensitive literal such as `(?i)abcdefghij`; the prefilter of a
//!   long alternation grows with its NFA, which counts 4 times);
//! - the pattern's bytes.
//!
//! Not counted: the lazy DFA cache each regex fills while searching (at
//! most [`super::DFA_SIZE_LIMIT`] per direction, grown only by scanning,
//! which fuel pays for) and the small prefilter of literal patterns.
//!
//! The measure is a bound in practice, not a proof: the crate's internals
//! may change. `size_tests` below pin it against the crate's own count.

use regex_automata::nfa::thompson::{self, NFA};
use regex_automata::util::syntax::parse_with;
use regex_syntax::hir::Hir;

use super::engine::{nfa_config, syntax_config};

/// The one-pass DFA size limit of the `regex` crate (its default, which
/// `RegexBuilder` does not change).
pub const ONEPASS_LIMIT: u64 = 1 << 20;

/// How many times its forward NFA's bytes a regex counts (itself and the
/// reverse NFA, see the module documentation).
pub const NFA_FACTOR: u64 = 4;

/// Bytes every regex counts beyond its automata (see the module
/// documentation).
pub const FIXED_BYTES: u64 = 16 << 10;

/// Default of the compiled size all regex literals of one program may
/// have together (`Limits::max_regex_bytes` of the `xpr` crate): 8 MiB,
/// room for any single regex the per-regex limits accept (at most
/// `4 * 1 MiB + 1 MiB` counted) and for dozens of ordinary ones (1 to 100 KB
/// each). Compiling that much takes at most about 80 ms (release build).
pub const DEFAULT_PROGRAM_REGEX_BYTES: u64 = 8 << 20;

/// Why [`measure`] refused a pattern.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The regex would count more than the allowance.
    Allowance,
    /// The forward NFA exceeds [`super::SIZE_LIMIT`] on its own.
    TooBig,
    /// The probe failed for another reason (a syntax error): the crate's
    /// build reports it in its own words.
    Other,
}

pub(crate) use super::engine::Flags;

/// The compiled size (see the module documentation) of `translated` (a
/// pattern in the crate's syntax) with `flags`, if it is at most
/// `allowance`, with the forward NFA measured (which the regex then uses).
/// The forward NFA is built with a size limit of
/// `min(SIZE_LIMIT, allowance / 4)`, so a pattern too big for the allowance
/// stops as soon as it passes it.
pub(crate) fn measure(
    translated: &str,
    flags: Flags,
    allowance: u64,
) -> Result<(u64, NFA, Hir), Refused> {
    let per_regex = super::SIZE_LIMIT as u64;
    let limit = per_regex.min(allowance / NFA_FACTOR);
    // Parsed once (the reverse NFA is built from the same tree), then the
    // forward NFA as the crate configures it (`regex` 1.x, meta engine).
    let hir = parse_with(translated, &syntax_config(flags)).map_err(|_| Refused::Other)?;
    let nfa = thompson::Compiler::new()
        .configure(nfa_config(usize::try_from(limit).unwrap_or(usize::MAX)))
        .build_from_hir(&hir)
        .map_err(|e| match e.size_limit() {
            Some(_) if limit < per_regex => Refused::Allowance,
            Some(_) => Refused::TooBig,
            None => Refused::Other,
        })?;
    let bytes = compiled_bytes(&nfa, translated.len());
    if bytes > allowance {
        return Err(Refused::Allowance);
    }
    Ok((bytes, nfa, hir))
}

/// The compiled size counted for a regex whose forward NFA is `nfa`.
fn compiled_bytes(nfa: &NFA, pattern_bytes: usize) -> u64 {
    let forward = nfa.memory_usage() as u64;
    let onepass = if nfa.group_info().explicit_slot_len() > 0 {
        let stride = nfa.byte_classes().alphabet_len().next_power_of_two() as u64;
        (nfa.states().len() as u64)
            .saturating_mul(stride)
            .saturating_mul(8)
            .min(ONEPASS_LIMIT)
    } else {
        0
    };
    forward
        .saturating_mul(NFA_FACTOR)
        .saturating_add(onepass)
        .saturating_add(FIXED_BYTES)
        .saturating_add(pattern_bytes as u64)
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use regex_automata::MatchKind;
    use regex_automata::meta;

    const PLAIN: Flags = Flags {
        case_insensitive: false,
        multi_line: false,
        dot_all: false,
    };

    /// What the crate's own engine holds for `p`, built as `regex` 1.x
    /// builds it.
    fn crate_bytes(p: &str) -> u64 {
        let config = meta::Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .utf8_empty(true)
            .nfa_size_limit(Some(super::super::SIZE_LIMIT))
            .hybrid_cache_capacity(super::super::DFA_SIZE_LIMIT);
        meta::Builder::new()
            .configure(config)
            .build(p)
            .map(|m| m.memory_usage() as u64)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn the_measure_bounds_what_the_crate_holds() {
        for p in [
            "x",
            "(?i)abc",
            r"(?i)\pL{24}",
            r"\pL",
            r"\p{Lu}{20}",
            ".{500}",
            "[^a]{100}",
            "a{1000}",
            r"(\pL+)@(\pL+)",
            "(.)(.)(.)(.)(.)(.)(.)(.)(.)",
            r"(?i)(\pL\pN)+",
            r"(\p{Greek}{50})",
            r"\p{Emoji}{20}",
            "([0-9A-Za-z_]+)@([0-9A-Za-z_]+)",
            "(?i)(hello|world|foo|bar|baz)+",
            "(?i)abcdefghij",
            "(?i)[kK]\u{17f}",
            "alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa",
        ] {
            let counted = measure(p, PLAIN, u64::MAX)
                .map(|(b, _, _)| b)
                .unwrap_or_else(|e| panic!("{p}: {e:?}"));
            let held = crate_bytes(p);
            assert!(counted >= held, "{p}: counted {counted}, held {held}");
            // Not wildly more either (beyond the fixed part and the NFA of
            // literal patterns, which the crate searches without it).
            assert!(
                counted <= 2 * FIXED_BYTES + held * 6,
                "{p}: counted {counted}, held {held}"
            );
        }
    }

    #[test]
    fn an_allowance_stops_the_probe() {
        let one = measure(r"(?i)\pL{24}", PLAIN, u64::MAX).map_or(0, |(b, _, _)| b);
        assert!(one > 1_000_000, "{one}");
        assert!(matches!(
            measure(r"(?i)\pL{24}", PLAIN, one - 1),
            Err(Refused::Allowance)
        ));
        // The NFA compiler needs more memory on the way than the NFA keeps:
        // a pattern is accepted with some room to spare.
        assert_eq!(
            measure(r"(?i)\pL{24}", PLAIN, one * 2)
                .ok()
                .map(|(b, _, _)| b),
            Some(one)
        );
        // Too small an allowance for any NFA.
        assert!(matches!(measure("x", PLAIN, 100), Err(Refused::Allowance)));
        // Over the per-regex limit whatever the allowance.
        assert!(matches!(
            measure(r"\pL{100}", PLAIN, u64::MAX),
            Err(Refused::TooBig)
        ));
        assert!(matches!(measure("(", PLAIN, u64::MAX), Err(Refused::Other)));
    }
}
