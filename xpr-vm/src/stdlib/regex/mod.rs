//! Regexes (spec "Regex Functions (v0.3)" and "Regex Literals (v0.4)"):
//! compiling patterns with RE2 semantics, the global functions `matches`,
//! `match`, `matchAll`, `replacePattern`, the regex method `test`, and the
//! helpers the string methods `match`, `replace` and `split` use for their
//! regex overloads. Replacement templates (`$1`, `$&`, `` $` ``, ...) are
//! expanded by the submodule `replacement`, as JavaScript expands them.
//!
//! This module holds the limits and the registration; the work is done in
//! submodules: `compiling` (checking, measuring and building a pattern),
//! `translate` (RE2 syntax to the crate's), `size` (the compiled size
//! before the build), `matching` (scans, matches, `split`), `replacement`
//! (`replace_all` and its templates), `engine` (the compiled matcher and
//! what each search costs) and `builtins` (the functions and the method
//! registered here).
//!
//! # RE2 semantics on the `regex` crate
//! The `regex` crate is RE2-like (linear time, no lookaround or
//! backreferences) but differs in details. [`compile`] translates a pattern
//! written for RE2 into the crate's syntax first, so that it means what RE2
//! means, or is rejected as RE2 rejects it:
//! - `\d \w \s \b` and their negations are ASCII (`[0-9]`, `[0-9A-Za-z_]`,
//!   `[\t\n\f\r ]`, an ASCII word boundary), outside and inside classes;
//! - inside a class, `[` is a literal (the crate would open a nested class)
//!   and the crate's set operators `&&`, `--`, `~~` are rejected;
//! - a `{` that does not start a valid `{n}`, `{n,}`, `{n,m}` is a literal;
//!   counts above 1000, nested counted repetitions whose product exceeds
//!   1000, and stacked repetition operators (`a**`, `a{2}{3}`) are rejected;
//! - `\Q...\E` quotes literal text; `\0`, `\012` are octal escapes; `\1`
//!   (a backreference) is rejected; `\<` and `\>` are the literal characters;
//! - inline flags are limited to RE2's `i m s U` (the crate's `x`, `u`, `R`
//!   are rejected), and lookaround and atomic groups are rejected with a
//!   clear message.
//!
//! Matching is done by `engine` (the `regex` crate's engines from
//! `regex-automata`, composed so that each search says what it did: lazy
//! DFA states built, or a fallback to an NFA simulation), with the crate's
//! results.
//!
//! Compilation is bounded: compiled program size 1 MiB, lazy DFA cache 2 MiB,
//! nesting 64, so no pattern can make compiling or matching blow up. What
//! many patterns compile together is bounded too: [`prepare`] measures a
//! pattern's compiled size (submodule `size`) before the crate builds it,
//! so that the compiler can hold a program's regex literals to an
//! allowance (8 MiB by default) and the VM can charge run-time patterns
//! for what they compile (its cache, `vm::regex_cache`, is bounded in
//! compiled bytes).
//!
//! # Fuel and memory
//! A scan of a haystack costs `1 + bytes / 16 * scan_cost` fuel
//! ([`scan_fuel`]), where the regex's scan cost is 1 for patterns of up to
//! 63 estimated automaton states and grows by one per 64 more; every
//! match found by `replacePattern`/`replace` costs one more, every piece
//! `matchAll` and `split` produce [`PIECE_FUEL`], plus `bytes / 16` of the
//! text produced (a replacement also one per piece of its template, see
//! `replacement`); a match whose capture groups are read (`split` by a
//! regex with groups, a replacement template naming groups) costs
//! [`capture_fuel`], several units per byte of the match (one per NFA
//! state at least), charged before the capture engine runs; each search
//! after the first costs [`rescan_fuel`] (nothing, except for patterns
//! whose searches may read far past their match); each search for a match
//! [`SEARCH_FUEL`]; the lazy DFA states a search builds
//! [`CACHE_BYTES_FUEL`] per byte, after it; and a search the lazy DFA gives
//! up on, one unit per NFA state per byte ([`NFA_STATES_PER_FUEL`]) before
//! the NFA simulation runs (see [`Engine`]). Memory is charged (through
//! [`Runtime::alloc`]) before each result string or array is built: a
//! string's byte length, an array's header plus one slot per element.
//!
//! [`Runtime::alloc`]: crate::runtime::Runtime::alloc

use self::builtins::{fn_match, fn_match_all, fn_matches, fn_replace_pattern, method_test};
use super::{FunctionDef, MethodDef};
use crate::function::Arity;

/// Compiled program size limit, in bytes (`RegexBuilder::size_limit`).
pub const SIZE_LIMIT: usize = 1 << 20;
/// Lazy DFA cache limit, in bytes (`RegexBuilder::dfa_size_limit`).
pub const DFA_SIZE_LIMIT: usize = 2 << 20;
/// Nesting limit of groups and repetitions (`RegexBuilder::nest_limit`).
pub const NEST_LIMIT: u32 = 64;
/// RE2's limit on a counted repetition `{n,m}` and on the product of nested
/// counted repetitions.
pub const MAX_REPEAT: u32 = 1000;
/// Haystack bytes scanned per unit of fuel (times the regex's scan cost).
pub const SCAN_BYTES_PER_FUEL: u64 = 16;
/// Fuel per piece a regex `split` or `matchAll` produces: each is a string
/// allocated on its own, as for `split` by a string.
pub const PIECE_FUEL: u64 = 3;
/// Fuel per search that resolves capture groups (`split` by a regex with
/// groups, `replace` with a template naming groups): the crate finds the
/// match, then runs its capture engine over it, several times the cost of
/// a plain search.
pub const CAPTURE_SEARCH_FUEL: u64 = 14;
/// Fuel per byte of a match whose groups are resolved, times the regex's
/// scan cost: the capture engine steps through the pattern's states for
/// each byte of the match (about 50 times the search's cost per byte).
pub const CAPTURE_FUEL_PER_BYTE: u64 = 3;
/// Estimated automaton states per unit of a regex's scan cost: a pattern
/// of up to 63 estimated states scans 16 bytes per fuel, `a[ab]{500}b`
/// (about 2,000) 16 bytes per 32 fuel.
pub const STATES_PER_COST: u64 = 64;

/// The longest pattern, in bytes, [`compile`] accepts. The `regex` crate's
/// parser needs 100 to 300 bytes of memory per pattern byte (a 1 MB class
/// `[aaa...]` reached 315 MB, uncounted by the memory budget); 32 KiB keeps
/// one compilation within about 10 MB. Literal patterns are bounded by the
/// source length anyway; this bounds patterns built at run time.
pub const MAX_PATTERN_BYTES: usize = 32 << 10;

/// How many characters matched by class-like atoms (a class, `.`, `\d`,
/// `\w`, `\s`, a group of at least a class's size) after other pattern, in
/// one pattern, may make the regex's lazy DFA blow up: `a[ab]{11}c` runs as
/// a DFA, `a[ab]{16}c` falls back to an NFA simulation (so does the same
/// run written out, or split as `(?:[ab]{6}){5}`). Such patterns pay `48 + max(size / 3, 8 * n)` fuel per
/// 16 bytes scanned (`n` the characters such repetitions match; 3 to 100
/// fuel per byte) instead of `1 + size / 64`.
pub const EXPLOSIVE_COUNT: u64 = 12;

mod builtins;
mod compiling;
mod engine;
mod fold;
mod matching;
mod replacement;
mod size;
#[cfg(test)]
mod tests;
mod translate;

pub use compiling::{Prepared, Refusal, compile, compile_fuel, prepare};
pub use engine::{CACHE_BYTES_FUEL, Engine, Locations, NFA_STATES_PER_FUEL, SEARCH_FUEL};
pub use fold::FOLD_BYTES_PER_CODE_POINT;
pub use matching::{
    all_matches, capture_fuel, charge_scan, find_value, first_match, is_match, match_all_values,
    rescan_fuel, scan_fuel, split,
};
pub use replacement::replace_all;
pub use size::DEFAULT_PROGRAM_REGEX_BYTES;

/// Global functions of this module: `matches`, `match`, `matchAll`,
/// `replacePattern`.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "matches",
        arity: Arity::Exact(2),
        call: fn_matches,
        sig: "(s, pattern) -> boolean",
        doc: "whether pattern matches somewhere in s",
    },
    FunctionDef {
        name: "match",
        arity: Arity::Exact(2),
        call: fn_match,
        sig: "(s, pattern) -> string|null",
        doc: "first match in s, or null",
    },
    FunctionDef {
        name: "matchAll",
        arity: Arity::Exact(2),
        call: fn_match_all,
        sig: "(s, pattern) -> array",
        doc: "every match in s",
    },
    FunctionDef {
        name: "replacePattern",
        arity: Arity::Exact(3),
        call: fn_replace_pattern,
        sig: "(s, pattern, replacement) -> string",
        doc: "every match replaced ($1 inserts group 1)",
    },
];

/// Methods of regex values: `test`.
pub(crate) const METHODS: &[MethodDef] = &[MethodDef {
    name: "test",
    arity: Arity::Exact(1),
    call: method_test,
    sig: "(s) -> boolean",
    doc: "whether the regex matches somewhere in s",
}];
