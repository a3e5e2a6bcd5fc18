//! Compiling a pattern: [`compile`] (checks, translates, measures and builds
//! it at once), and its two steps [`prepare`] (the pattern checked,
//! translated and measured) and [`Prepared::build`] (the `regex` crate's
//! build), with what a run-time compilation costs ([`compile_fuel`]).

use super::engine::{BuildError, Engine};
use super::fold::{FOLD_BYTES_PER_CODE_POINT, fold_work};
use super::translate::{Translated, translate};
use super::{
    DFA_SIZE_LIMIT, EXPLOSIVE_COUNT, MAX_PATTERN_BYTES, NEST_LIMIT, SIZE_LIMIT, STATES_PER_COST,
    size,
};
use crate::error::{Error, ErrorKind};
use crate::value::Regex;

fn invalid(detail: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Regex, format!("invalid regex pattern: {detail}"))
}

/// Compiles a pattern with flags (a subset of `ims`: case-insensitive,
/// multi-line, dot matches newline) into a regex value with RE2 semantics
/// (see the module documentation), within [`SIZE_LIMIT`],
/// [`DFA_SIZE_LIMIT`] and [`NEST_LIMIT`]. The value keeps `pattern` and
/// `flags` as given (for `string()` and `==`), and its compiled size
/// ([`Regex::compiled_bytes`], see [`prepare`]).
///
/// Costs no fuel itself and has no allowance beyond the per-regex limits:
/// callers that compile many patterns use [`prepare`] (the compiler, with
/// a per-program allowance; the VM's regex cache, charging fuel and
/// memory).
///
/// # Errors
/// `invalid regex pattern: DETAIL` ([`ErrorKind::Regex`]) for a pattern RE2
/// rejects, one over the limits (including [`MAX_PATTERN_BYTES`]), or a flag other than `i`, `m`, `s`
/// (`invalid regex flags ...`).
pub fn compile(pattern: &str, flags: &str) -> Result<Regex, Error> {
    match prepare(pattern, flags, u64::MAX) {
        Ok(prepared) => prepared.build(),
        Err(Refusal::Invalid(e)) => Err(e),
        // Unreachable with an unlimited allowance; kept total.
        Err(Refusal::OverAllowance) => Err(too_big()),
    }
}

/// Why [`prepare`] refused a pattern.
#[derive(Debug)]
pub enum Refusal {
    /// The pattern is invalid or over the per-regex limits:
    /// `invalid regex pattern: ...` ([`ErrorKind::Regex`]).
    Invalid(Error),
    /// Its compiled size would exceed the allowance: the caller says what
    /// that means (a program's regex size limit, a run's memory budget).
    OverAllowance,
}

/// A pattern checked, translated and measured, not yet compiled: what
/// compiling it will cost is known ([`Prepared::compiled_bytes`]) before
/// the `regex` crate spends it ([`Prepared::build`]).
#[derive(Debug)]
pub struct Prepared {
    pattern: String,
    flags: String,
    translated: Translated,
    bytes: u64,
    /// The parsed pattern and the forward NFA, built while measuring.
    hir: regex_syntax::hir::Hir,
    nfa: regex_automata::nfa::thompson::NFA,
}

fn too_big() -> Error {
    invalid(format_args!(
        "the compiled pattern exceeds the size limit of {SIZE_LIMIT} bytes"
    ))
}

/// Checks and translates `pattern` with `flags` (as [`compile`] does) and
/// measures its compiled size (see `size`: four times its forward NFA's
/// heap bytes, plus a bound of its one-pass DFA when it has groups, plus
/// its length), refusing it as soon as the size passes `allowance`: the
/// forward NFA is built under a size limit of `allowance / 4`, so the
/// work done for a refused pattern is in proportion to the allowance,
/// and nothing else is compiled. Costs about a third of the whole
/// compilation.
///
/// # Errors
/// [`Refusal::Invalid`] as [`compile`]'s errors; [`Refusal::OverAllowance`]
/// when the compiled size would exceed `allowance`.
pub fn prepare(pattern: &str, flags: &str, allowance: u64) -> Result<Prepared, Refusal> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Refusal::Invalid(invalid(format_args!(
            "the pattern is longer than {MAX_PATTERN_BYTES} bytes"
        ))));
    }
    if let Some(bad) = flags.chars().find(|c| !matches!(c, 'i' | 'm' | 's')) {
        return Err(Refusal::Invalid(Error::new(
            ErrorKind::Regex,
            format!("invalid regex flags: unsupported flag '{bad}' (supported: i, m, s)"),
        )));
    }
    let translated = translate(pattern)
        .map_err(invalid)
        .map_err(Refusal::Invalid)?;
    let probe_flags = size::Flags {
        case_insensitive: flags.contains('i'),
        multi_line: flags.contains('m'),
        dot_all: flags.contains('s'),
    };
    // Case folding is done while parsing: bounded first (see `fold`).
    let folded = fold_work(&translated.pattern, probe_flags.case_insensitive)
        .saturating_mul(FOLD_BYTES_PER_CODE_POINT);
    if folded > allowance {
        return Err(Refusal::OverAllowance);
    }
    let measured = size::measure(&translated.pattern, probe_flags, allowance - folded);
    let (bytes, nfa, hir) = match measured {
        Ok((bytes, nfa, hir)) => (bytes.saturating_add(folded), nfa, hir),
        Err(size::Refused::Allowance) => return Err(Refusal::OverAllowance),
        Err(size::Refused::TooBig) => return Err(Refusal::Invalid(too_big())),
        Err(size::Refused::Other) => {
            // A syntax error: the `regex` crate's parser says it in its
            // words (and fails as fast).
            let e = crate_syntax_error(&translated.pattern, flags)
                .unwrap_or_else(|| invalid("pattern rejected"));
            return Err(Refusal::Invalid(e));
        }
    };
    Ok(Prepared {
        pattern: pattern.to_string(),
        flags: flags.to_string(),
        translated,
        bytes,
        hir,
        nfa,
    })
}

/// The `regex` crate's words for why it rejects a translated pattern
/// (`None` if it accepts it).
fn crate_syntax_error(translated: &str, flags: &str) -> Option<Error> {
    ::regex::RegexBuilder::new(translated)
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .err()
        .map(|e| invalid(crate_error_detail(&e)))
}

impl Prepared {
    /// The compiled size the regex will count, in bytes (see [`prepare`]).
    pub fn compiled_bytes(&self) -> u64 {
        self.bytes
    }

    /// Compiles the pattern (the expensive part).
    ///
    /// # Errors
    /// `invalid regex pattern: ...` ([`ErrorKind::Regex`]) when the crate
    /// rejects it (its reverse automaton over [`SIZE_LIMIT`], say).
    pub fn build(self) -> Result<Regex, Error> {
        let Prepared {
            pattern,
            flags,
            translated,
            bytes,
            hir,
            nfa,
        } = self;
        let compiled = Engine::build(&hir, nfa).map_err(|e| match e {
            BuildError::TooBig => too_big(),
            BuildError::Other(detail) => invalid(detail),
        })?;
        let mut cost = 1 + translated.size / STATES_PER_COST;
        if translated.mid_anchor {
            // Measured (release): 5-12 ns per byte for `a^`, `[a-c1]^`, `\s\A`
            // over 200 KB, against about 1 ns for ordinary patterns.
            cost = cost.max(8);
        }
        if translated.explodes >= EXPLOSIVE_COUNT {
            // Measured (release): 190-400 ns per byte for `a\w{30}c`,
            // `a.{30}c`, `a[ab]{100}c` over 1 MB, 1.3 us for `\w*a\w{200}c`.
            let states = (translated.size / 3).max(translated.explodes.saturating_mul(8));
            cost = cost.max(48u64.saturating_add(states));
        }
        Ok(Regex::new(pattern, flags, compiled)
            .with_scan_cost(u32::try_from(cost).unwrap_or(u32::MAX))
            .with_rescans(translated.rescans)
            // Every atom of the expanded pattern matches at most 4 bytes.
            .with_lookahead(translated.size.saturating_mul(4))
            .with_compiled_bytes(bytes))
    }
}

/// Fuel for reading, translating and measuring `pattern` at run time (a
/// miss of the VM's regex cache), charged before anything is done:
/// `64 + 32 * bytes + 16 * size`, `size` being the estimated automaton
/// states (see [`STATES_PER_COST`]). Building the regex is charged next,
/// once its compiled size is known ([`Prepared::compiled_bytes`], one fuel
/// per byte, see `vm::COMPILED_BYTES_PER_FUEL`). Measured in a release
/// build, the probe stops within about 10 ms for any pattern (at its 1 MiB
/// size limit, `\pL{100}`), within about 60 ns per fuel unit of this
/// charge. A pattern that fails to translate, or is longer than
/// [`MAX_PATTERN_BYTES`], costs the first two terms.
pub fn compile_fuel(pattern: &str) -> u64 {
    let read = 64u64.saturating_add((pattern.len() as u64).saturating_mul(32));
    // A pattern over the length limit is refused unread (see `prepare`):
    // neither translated nor parsed, since its translation alone took 40
    // bytes of heap a pattern byte (fuzz finding: `"(".repeat(1000000)`
    // grew the heap by 40 MB uncharged) and its syntax tree 100 to 300.
    if pattern.len() > MAX_PATTERN_BYTES {
        return read;
    }
    let (size, folded) = translate(pattern).map_or((0, 0), |t| {
        let folded = fold_work(&t.pattern, false).saturating_mul(FOLD_BYTES_PER_CODE_POINT);
        (t.size, folded)
    });
    read.saturating_add(size.saturating_mul(16))
        .saturating_add(folded)
}

/// The one-line reason of a `regex` crate error (its syntax errors are
/// multi-line, quoting the *translated* pattern, which would confuse).
fn crate_error_detail(e: &::regex::Error) -> String {
    match e {
        ::regex::Error::Syntax(text) => text
            .lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("error: "))
            .unwrap_or("syntax error")
            .to_string(),
        ::regex::Error::CompiledTooBig(limit) => {
            format!("the compiled pattern exceeds the size limit of {limit} bytes")
        }
        _ => "pattern rejected".to_string(),
    }
}
