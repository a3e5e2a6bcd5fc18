//! Regexes (spec "Regex Functions (v0.3)" and "Regex Literals (v0.4)"):
//! compiling patterns with RE2 semantics, the global functions `matches`,
//! `match`, `matchAll`, `replacePattern`, the regex method `test`, and the
//! helpers the string methods `match`, `replace` and `split` use for their
//! regex overloads. Replacement templates (`$1`, `$&`, `` $` ``, ...) are
//! expanded by the submodule `replacement`, as JavaScript expands them.
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
//! match found by `matchAll`, `replacePattern`/`replace` and `split` costs one
//! more, plus `bytes / 16` of the text it produces (a replacement also one
//! per piece of its template, see `replacement`), and each search after
//! the first costs [`rescan_fuel`] (nothing, except for patterns whose
//! searches may read far past their match). Memory is charged (through
//! [`Runtime::alloc`]) before each result string or array is built: a
//! string's byte length, an array's header plus one slot per element.

use std::sync::Arc;

use self::replacement::Template;
use super::{FunctionDef, MethodDef};
use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{HEADER_BYTES, Regex, SLOT_BYTES, STRING_HEADER_BYTES, Value};

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

mod replacement;
mod size;

pub use size::DEFAULT_PROGRAM_REGEX_BYTES;

/// Global functions of this module: `matches`, `match`, `matchAll`,
/// `replacePattern`.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "matches",
        arity: Arity::Exact(2),
        call: fn_matches,
    },
    FunctionDef {
        name: "match",
        arity: Arity::Exact(2),
        call: fn_match,
    },
    FunctionDef {
        name: "matchAll",
        arity: Arity::Exact(2),
        call: fn_match_all,
    },
    FunctionDef {
        name: "replacePattern",
        arity: Arity::Exact(3),
        call: fn_replace_pattern,
    },
];

/// Methods of regex values: `test`.
pub(crate) const METHODS: &[MethodDef] = &[MethodDef {
    name: "test",
    arity: Arity::Exact(1),
    call: method_test,
}];

// ---------------------------------------------------------------- compiling

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
    /// Built already (only when the size probe failed but the crate did not).
    built: Option<::regex::Regex>,
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
    let mut built = None;
    let bytes = match size::measure(&translated.pattern, probe_flags, allowance) {
        Ok(bytes) => bytes,
        Err(size::Refused::Allowance) => return Err(Refusal::OverAllowance),
        Err(size::Refused::TooBig) => return Err(Refusal::Invalid(too_big())),
        Err(size::Refused::Other) => {
            // A syntax error: the crate's build says it in its words (and
            // fails as fast). Should the crate accept what the probe did
            // not, the regex counts the most any regex may.
            let re = build_crate_regex(&translated.pattern, flags).map_err(Refusal::Invalid)?;
            let most = (SIZE_LIMIT as u64)
                .saturating_mul(size::NFA_FACTOR)
                .saturating_add(size::ONEPASS_LIMIT)
                .saturating_add(pattern.len() as u64);
            if most > allowance {
                return Err(Refusal::OverAllowance);
            }
            built = Some(re);
            most
        }
    };
    Ok(Prepared {
        pattern: pattern.to_string(),
        flags: flags.to_string(),
        translated,
        bytes,
        built,
    })
}

/// The `regex` crate's build of a translated pattern, within the limits.
fn build_crate_regex(translated: &str, flags: &str) -> Result<::regex::Regex, Error> {
    ::regex::RegexBuilder::new(translated)
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| invalid(crate_error_detail(&e)))
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
            built,
        } = self;
        let compiled = match built {
            Some(re) => re,
            None => build_crate_regex(&translated.pattern, &flags)?,
        };
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
/// charge. A pattern that fails to translate costs the first two terms.
pub fn compile_fuel(pattern: &str) -> u64 {
    let size = translate(pattern).map_or(0, |t| t.size);
    64u64
        .saturating_add((pattern.len() as u64).saturating_mul(32))
        .saturating_add(size.saturating_mul(16))
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

/// ASCII classes of RE2, as class *contents* (no brackets).
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = r"\t\n\x0C\r\x20";

/// The body of the ASCII class for a Perl class letter, if it is one.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    match c {
        'd' => Some((DIGIT, false)),
        'D' => Some((DIGIT, true)),
        'w' => Some((WORD, false)),
        'W' => Some((WORD, true)),
        's' => Some((SPACE, false)),
        'S' => Some((SPACE, true)),
        _ => None,
    }
}

/// Pushes one character as a literal the crate reads as itself.
fn push_literal(out: &mut String, c: char) {
    if ::regex::escape(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8() {
        out.push('\\');
    }
    out.push(c);
}

/// Reads an octal escape whose first digit is at `cs[i]` (RE2: `\0` takes up
/// to two more octal digits; `\1`..`\7` need at least one more, else they are
/// backreferences). Returns the character and the digits consumed.
fn octal(cs: &[char], i: usize) -> Result<(char, usize), String> {
    let first = cs.get(i).copied().unwrap_or('0');
    let is_octal = |c: Option<&char>| c.is_some_and(|c| ('0'..='7').contains(c));
    if first != '0' && !is_octal(cs.get(i + 1)) {
        return Err(format!("backreferences are not supported (\\{first})"));
    }
    let mut value = 0u32;
    let mut n = 0;
    while n < 3 && is_octal(cs.get(i + n)) {
        value = value * 8 + cs.get(i + n).and_then(|c| c.to_digit(8)).unwrap_or(0);
        n += 1;
    }
    // At most 0o777 = 511: always a valid scalar value.
    let c = char::from_u32(value).ok_or_else(|| "invalid octal escape".to_string())?;
    Ok((c, n))
}

/// Copies a braced escape tail `{...}` starting at `cs[i] == '{'`; returns
/// the characters consumed.
fn copy_braced(cs: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    let mut j = i;
    loop {
        match cs.get(j) {
            Some('}') => {
                out.push('}');
                return Ok(j + 1 - i);
            }
            Some(&c) => {
                out.push(c);
                j += 1;
            }
            None => return Err("unclosed '{' in escape".to_string()),
        }
    }
}

/// Translates an escape that is not special to classes, at `cs[i] == '\\'`,
/// into `out`. Returns the characters consumed. `in_class` selects the
/// class-content form of Perl classes.
fn translate_escape(
    cs: &[char],
    i: usize,
    out: &mut String,
    in_class: bool,
) -> Result<usize, String> {
    let Some(&c) = cs.get(i + 1) else {
        return Err("trailing backslash at end of pattern".to_string());
    };
    if let Some((body, negated)) = perl_class(c) {
        match (in_class, negated) {
            (true, false) => out.push_str(body),
            _ => {
                out.push_str(if negated { "[^" } else { "[" });
                out.push_str(body);
                out.push(']');
            }
        }
        return Ok(2);
    }
    match c {
        'b' | 'B' if !in_class => {
            out.push_str(if c == 'b' { r"(?-u:\b)" } else { r"(?-u:\B)" });
            Ok(2)
        }
        'p' | 'P' | 'x' => {
            out.push('\\');
            out.push(c);
            if cs.get(i + 2) == Some(&'{') {
                Ok(2 + copy_braced(cs, i + 2, out)?)
            } else if let (true, Some(&name)) = (c != 'x', cs.get(i + 2)) {
                // `\pL`: the one-letter class name belongs to the escape, so
                // that a repetition after it (`\pL{29}`) applies to the class.
                out.push(name);
                Ok(3)
            } else {
                Ok(2)
            }
        }
        '0'..='7' => {
            let (ch, n) = octal(cs, i + 1)?;
            push_literal(out, ch);
            Ok(1 + n)
        }
        '8' | '9' => Err(format!("invalid escape sequence \\{c}")),
        '<' | '>' => {
            out.push(c);
            Ok(2)
        }
        'Q' | 'E' if in_class => Err(format!(
            "invalid escape sequence \\{c} in a character class"
        )),
        _ => {
            out.push('\\');
            out.push(c);
            Ok(2)
        }
    }
}

/// Translates a character class starting at `cs[i] == '['`. Returns the
/// characters consumed.
fn translate_class(cs: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    out.push('[');
    let mut j = i + 1;
    if cs.get(j) == Some(&'^') {
        out.push('^');
        j += 1;
    }
    if cs.get(j) == Some(&']') {
        out.push_str(r"\]");
        j += 1;
    }
    loop {
        let Some(&c) = cs.get(j) else {
            return Err("missing closing ] of a character class".to_string());
        };
        let next = cs.get(j + 1).copied();
        match c {
            ']' => {
                out.push(']');
                return Ok(j + 1 - i);
            }
            '[' if next == Some(':') => {
                // A POSIX class `[:name:]` (or `[:^name:]`), else a literal `[`.
                let close = (j + 2..cs.len().saturating_sub(1))
                    .find(|&k| cs.get(k) == Some(&':') && cs.get(k + 1) == Some(&']'));
                match close {
                    Some(k) => {
                        cs.iter()
                            .skip(j)
                            .take(k + 2 - j)
                            .for_each(|&ch| out.push(ch));
                        j = k + 2;
                    }
                    None => {
                        out.push_str(r"\[");
                        j += 1;
                    }
                }
            }
            '[' => {
                out.push_str(r"\[");
                j += 1;
            }
            '\\' => j += translate_escape(cs, j, out, true)?,
            '&' | '~' | '-' if next == Some(c) => {
                return Err(format!("class set operator '{c}{c}' is not supported"));
            }
            _ => {
                out.push(c);
                j += 1;
            }
        }
    }
}

/// Parses `{n}`, `{n,}` or `{n,m}` at `cs[i] == '{'`: `(min, max, consumed)`,
/// or `None` when the text is not a repetition (then `{` is a literal).
fn parse_repeat(cs: &[char], i: usize) -> Option<(u64, Option<u64>, usize)> {
    let digits = |mut j: usize| -> (Option<u64>, usize) {
        let start = j;
        let mut v: u64 = 0;
        while let Some(d) = cs.get(j).and_then(|c| c.to_digit(10)) {
            v = v.saturating_mul(10).saturating_add(u64::from(d));
            j += 1;
        }
        ((j > start).then_some(v), j)
    };
    let (min, j) = digits(i + 1);
    let min = min?;
    match cs.get(j) {
        Some('}') => Some((min, Some(min), j + 1 - i)),
        Some(',') => {
            let (max, k) = digits(j + 1);
            (cs.get(k) == Some(&'}')).then_some((min, max, k + 1 - i))
        }
        _ => None,
    }
}

/// Estimated automaton states of one atom, for [`Translated::size`].
const LITERAL_SIZE: u64 = 1;
/// A class, or a negated ASCII class (which matches multi-byte characters).
const CLASS_SIZE: u64 = 4;
/// A negated class or `.`: any character, several UTF-8 states.
const ANY_SIZE: u64 = 8;
/// A Unicode property class such as `\pL`.
const UNICODE_CLASS_SIZE: u64 = 256;

/// A pattern translated for the `regex` crate, with a size estimate.
#[derive(Debug)]
struct Translated {
    /// The pattern in the crate's syntax.
    pattern: String,
    /// Estimated automaton states: atoms weighted by kind, counted
    /// repetitions expanded (`a{500}` is 500).
    size: u64,
    /// Whether a search may read far past the match it returns: some
    /// unbounded loop followed by more pattern (which may fail late) sits in
    /// a construct with a lower-priority fallback: a branch before another
    /// (`\w*b|a`) or a group under a non-exact quantifier (`a(\w*b)?`).
    rescans: bool,
    /// Characters matched by class-like atoms after other pattern, counted
    /// repetitions expanded: from [`EXPLOSIVE_COUNT`] on they may blow the
    /// lazy DFA up, leaving the search to an NFA simulation whose cost per
    /// byte grows with them.
    explodes: u64,
    /// A start anchor (`^`, `\A`) follows other pattern in its branch, or
    /// pattern follows an end anchor (`$`, `\z`).
    mid_anchor: bool,
}

/// One open group (or the whole pattern) during translation.
#[derive(Clone, Copy, Default)]
struct Frame {
    /// The largest product of counted repetitions inside it.
    product: u64,
    /// Estimated states inside it.
    size: u64,
    /// The current branch has an unbounded loop followed by more pattern.
    loop_then_more: bool,
    /// The current branch has an unbounded loop not yet followed by more.
    open_loop: bool,
    /// `loop_then_more` of an earlier branch.
    any_loop_then_more: bool,
    /// `open_loop` of an earlier branch.
    any_open_loop: bool,
    /// Atoms (and groups) in the current branch so far.
    branch_atoms: u32,
    /// An end anchor (`$`, `\z`) came earlier in the current branch.
    after_end: bool,
    /// A `|` was seen: the group is an alternation (`(?:a|b)` is class-like).
    alternation: bool,
}

impl Frame {
    fn new() -> Self {
        Frame {
            product: 1,
            ..Frame::default()
        }
    }

    /// Something that must match comes next in the current branch.
    fn more(&mut self) {
        self.branch_atoms = self.branch_atoms.saturating_add(1);
        if self.open_loop {
            self.loop_then_more = true;
            self.open_loop = false;
        }
    }
}

/// The last complete atom (a repetition operator may follow).
#[derive(Clone, Copy)]
struct Atom {
    product: u64,
    size: u64,
    /// A group containing an unbounded loop followed by more pattern.
    loop_then_more: bool,
    /// Matches more than one character: a class, `.`, a Perl or Unicode
    /// class, or a group of at least a class's size.
    wide: bool,
}

const fn atom(size: u64) -> Option<Atom> {
    Some(Atom {
        product: 1,
        size,
        loop_then_more: false,
        wide: size >= CLASS_SIZE,
    })
}

/// Translates an RE2 pattern into the `regex` crate's syntax (see the module
/// documentation), or explains why RE2 rejects it.
fn translate(pattern: &str) -> Result<Translated, String> {
    let cs: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut frames = vec![Frame::new()];
    let mut last_atom: Option<Atom> = None;
    let mut last_repeat = false;
    let mut rescans = false;
    let mut explodes = 0u64;
    let mut mid_anchor = false;
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        let mut new_atom = None;
        // A start anchor after something that consumes text (`[a-c]^`,
        // `\s\A`): the crate then scans at 5-12 ns per byte.
        if (c == '^' || (c == '\\' && next == Some('A')))
            && (frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms > 0))
        {
            mid_anchor = true;
        }
        match c {
            '\\' if next == Some('Q') => {
                i += 2;
                while let Some(&q) = cs.get(i) {
                    if q == '\\' && cs.get(i + 1) == Some(&'E') {
                        i += 2;
                        break;
                    }
                    push_literal(&mut out, q);
                    i += 1;
                    if let Some(f) = frames.last_mut() {
                        f.size = f.size.saturating_add(LITERAL_SIZE);
                        f.more();
                    }
                    last_atom = atom(LITERAL_SIZE);
                }
                last_repeat = false;
            }
            '\\' => {
                i += translate_escape(&cs, i, &mut out, false)?;
                new_atom = atom(match next {
                    Some('p' | 'P') => UNICODE_CLASS_SIZE,
                    Some('D' | 'W' | 'S') => ANY_SIZE,
                    _ => LITERAL_SIZE,
                })
                .map(|a| Atom {
                    wide: a.wide || matches!(next, Some('d' | 'w' | 's')),
                    ..a
                });
            }
            '[' => {
                let n = translate_class(&cs, i, &mut out)?;
                let body = cs.get(i..i + n).unwrap_or(&[]);
                let unicode = body
                    .windows(2)
                    .filter(|w| matches!(w, ['\\', 'p' | 'P']))
                    .count();
                let base = if next == Some('^') {
                    ANY_SIZE
                } else {
                    CLASS_SIZE
                };
                new_atom =
                    atom(base.saturating_add(UNICODE_CLASS_SIZE.saturating_mul(unicode as u64)));
                i += n;
            }
            '(' => {
                let (n, opens) = translate_group_open(&cs, i, &mut out)?;
                if opens {
                    if let Some(f) = frames.last_mut() {
                        f.more();
                    }
                    let after_end = frames.last().is_some_and(|f| f.after_end);
                    frames.push(Frame {
                        after_end,
                        ..Frame::new()
                    });
                }
                i += n;
                last_atom = None;
                last_repeat = false;
            }
            ')' => {
                if frames.len() < 2 {
                    return Err("unopened group: unmatched ')'".to_string());
                }
                let inner = frames.pop().unwrap_or_default();
                let inner_ltm = inner.any_loop_then_more || inner.loop_then_more;
                if let Some(top) = frames.last_mut() {
                    top.product = top.product.max(inner.product);
                    top.size = top.size.saturating_add(inner.size);
                    top.loop_then_more |= inner_ltm;
                    // A loop ending the group is followed by what follows it.
                    top.open_loop |= inner.any_open_loop || inner.open_loop;
                }
                last_atom = Some(Atom {
                    product: inner.product,
                    size: inner.size,
                    loop_then_more: inner_ltm,
                    wide: inner.size >= CLASS_SIZE || inner.alternation,
                });
                out.push(')');
                i += 1;
                last_repeat = false;
            }
            '|' => {
                if let Some(f) = frames.last_mut() {
                    // A branch with a lower-priority branch after it.
                    rescans |= f.loop_then_more;
                    f.any_loop_then_more |= f.loop_then_more;
                    f.any_open_loop |= f.open_loop;
                    f.loop_then_more = false;
                    f.open_loop = false;
                    f.branch_atoms = 0;
                    f.after_end = false;
                    f.alternation = true;
                }
                out.push('|');
                i += 1;
                last_atom = None;
                last_repeat = false;
            }
            '*' | '+' | '?' => {
                if last_repeat {
                    return Err(format!("bad repetition operator: stacked '{c}'"));
                }
                // Every operator here leaves a fallback (fewer iterations).
                rescans |= last_atom.is_some_and(|a| a.loop_then_more);
                if c != '?'
                    && let Some(f) = frames.last_mut()
                {
                    f.open_loop = true;
                }
                out.push(c);
                i += 1;
                if cs.get(i) == Some(&'?') {
                    out.push('?');
                    i += 1;
                }
                last_repeat = true;
            }
            '{' => match parse_repeat(&cs, i) {
                Some((min, max, n)) => {
                    if last_repeat {
                        return Err("bad repetition operator: stacked '{'".to_string());
                    }
                    let top = max.unwrap_or(min);
                    if min > u64::from(MAX_REPEAT)
                        || top > u64::from(MAX_REPEAT)
                        || max.is_some_and(|m| m < min)
                    {
                        return Err(format!(
                            "bad repetition operator: counts must satisfy min <= max <= {MAX_REPEAT}"
                        ));
                    }
                    let last = last_atom.unwrap_or(Atom {
                        product: 1,
                        size: 0,
                        loop_then_more: false,
                        wide: false,
                    });
                    let product = last.product.saturating_mul(top.max(1));
                    if product > u64::from(MAX_REPEAT) {
                        return Err(format!(
                            "bad repetition operator: nested repetition counts exceed {MAX_REPEAT}"
                        ));
                    }
                    rescans |= last.loop_then_more && max != Some(min);
                    // A long counted run of a class after something else
                    // (`a[ab]{25}c`, `a\w{30}c`): the lazy DFA must track
                    // every recent start, its cache overflows, and the
                    // search falls back to simulating the NFA, state by
                    // state (hundreds of ns per byte).
                    let preceded =
                        frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms >= 2);
                    if preceded && last.wide {
                        // The atom itself was counted once already.
                        explodes = explodes.saturating_add(product.saturating_sub(last.product));
                    }
                    if let Some(f) = frames.last_mut() {
                        f.product = f.product.max(product);
                        // The atom is already counted once; add the other copies.
                        f.size = f
                            .size
                            .saturating_add(last.size.saturating_mul(top.max(1) - 1));
                        if max.is_none() {
                            f.open_loop = true;
                        }
                    }
                    cs.iter().skip(i).take(n).for_each(|&ch| out.push(ch));
                    i += n;
                    if cs.get(i) == Some(&'?') {
                        out.push('?');
                        i += 1;
                    }
                    last_repeat = true;
                }
                None => {
                    out.push_str(r"\{");
                    i += 1;
                    new_atom = atom(LITERAL_SIZE);
                }
            },
            '}' => {
                out.push_str(r"\}");
                i += 1;
                new_atom = atom(LITERAL_SIZE);
            }
            '.' => {
                out.push('.');
                i += 1;
                new_atom = atom(ANY_SIZE);
            }
            _ => {
                out.push(c);
                i += 1;
                new_atom = atom(LITERAL_SIZE);
            }
        }
        if let Some(a) = new_atom {
            if let Some(f) = frames.last_mut() {
                f.size = f.size.saturating_add(a.size);
                f.more();
            }
            // Pattern after an end anchor (`\s?$a`) is scanned slowly too.
            let end_anchor = c == '$' || (c == '\\' && next == Some('z'));
            if let Some(f) = frames.last_mut() {
                if f.after_end && !end_anchor {
                    mid_anchor = true;
                }
                f.after_end |= end_anchor;
            }
            // Written-out runs count as counted ones (`a[ab][ab]...[ab]c`).
            let preceded = frames.len() > 1 || frames.last().is_some_and(|f| f.branch_atoms >= 2);
            if preceded && a.wide {
                explodes = explodes.saturating_add(1);
            }
            last_atom = Some(a);
            last_repeat = false;
        }
    }
    let size = frames
        .iter()
        .fold(0u64, |acc, f| acc.saturating_add(f.size));
    Ok(Translated {
        pattern: out,
        size,
        rescans,
        explodes,
        mid_anchor,
    })
}

/// Translates a group opener at `cs[i] == '('`.
/// Returns the characters consumed and whether a group opens (not for a
/// flags-only `(?i)`).
fn translate_group_open(cs: &[char], i: usize, out: &mut String) -> Result<(usize, bool), String> {
    if cs.get(i + 1) != Some(&'?') {
        out.push('(');
        return Ok((1, true));
    }
    let copy_name = |start: usize, out: &mut String| -> Result<usize, String> {
        // Copies from `start` through the closing '>'.
        let end = (start..cs.len())
            .find(|&k| cs.get(k) == Some(&'>'))
            .ok_or_else(|| "unclosed group name".to_string())?;
        cs.iter()
            .skip(start)
            .take(end + 1 - start)
            .for_each(|&ch| out.push(ch));
        Ok(end + 1 - i)
    };
    match cs.get(i + 2) {
        Some('=') | Some('!') => Err("lookahead is not supported".to_string()),
        Some('>') => Err("atomic groups are not supported".to_string()),
        Some('<') if matches!(cs.get(i + 3), Some('=') | Some('!')) => {
            Err("lookbehind is not supported".to_string())
        }
        Some('<') => Ok((copy_name(i, out)?, true)),
        Some('P') if cs.get(i + 3) == Some(&'<') => Ok((copy_name(i, out)?, true)),
        Some('P') => Err("invalid or unsupported Perl syntax (?P".to_string()),
        _ => {
            // Flags: `(?flags)` or `(?flags:`.
            let mut j = i + 2;
            loop {
                match cs.get(j) {
                    Some('i' | 'm' | 's' | 'U' | '-') => j += 1,
                    Some(')') => {
                        cs.iter()
                            .skip(i)
                            .take(j + 1 - i)
                            .for_each(|&ch| out.push(ch));
                        return Ok((j + 1 - i, false));
                    }
                    Some(':') => {
                        cs.iter()
                            .skip(i)
                            .take(j + 1 - i)
                            .for_each(|&ch| out.push(ch));
                        return Ok((j + 1 - i, true));
                    }
                    Some(&other) => {
                        return Err(format!("invalid or unsupported Perl flag '{other}'"));
                    }
                    None => return Err("missing closing ) of a group".to_string()),
                }
            }
        }
    }
}

// ------------------------------------------------------- matching helpers

/// Fuel for scanning `s` once with `re`: `1 + bytes / 16 * scan_cost`,
/// where the scan cost (1 for most patterns) grows with the estimated size
/// of the pattern's automaton (see [`STATES_PER_COST`]), since a search may
/// have to step through every state for each byte.
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

/// Charges [`scan_fuel`] for scanning `s` with `re`.
///
/// # Errors
/// The fuel error when the budget is spent.
pub fn charge_scan(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<(), Error> {
    rt.fuel(scan_fuel(re, s))
}

/// The first (leftmost) match of `re` in `s`, if any. Charges nothing: the
/// caller charges [`scan_fuel`] (or use [`find_value`]).
pub fn first_match<'a>(re: &Regex, s: &'a str) -> Option<&'a str> {
    re.compiled().find(s).map(|m| m.as_str())
}

/// Whether `re` matches anywhere in `s`, charging [`scan_fuel`].
///
/// # Errors
/// The fuel error.
pub fn is_match(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<bool, Error> {
    charge_scan(rt, re, s)?;
    Ok(re.compiled().is_match(s))
}

/// The first match of `re` in `s` as a value: the matched string, or `null`.
/// Charges [`scan_fuel`] and the match's bytes of memory.
///
/// # Errors
/// Fuel or memory errors.
pub fn find_value(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, re, s)?;
    match first_match(re, s) {
        Some(m) => {
            rt.alloc(m.len() as u64)?;
            Ok(Value::from(m))
        }
        None => Ok(Value::Null),
    }
}

/// The byte offset of the character after the one at `i`, or `None` at the end.
fn next_char(s: &str, i: usize) -> Option<usize> {
    s.get(i..)?.chars().next().map(|c| i + c.len_utf8())
}

/// Matches as JavaScript's global regexes find them (`matchAll`, `replace`):
/// search from the end of the previous match, and after an empty match one
/// character further on. Unlike the crate's `find_iter`, an empty match
/// right after a non-empty one is reported (`a*` in `"baaa"` gives `""`,
/// `"aaa"`, `""`).
struct JsMatches<'r, 's> {
    re: &'r ::regex::Regex,
    s: &'s str,
    pos: Option<usize>,
}

impl<'s> Iterator for JsMatches<'_, 's> {
    type Item = ::regex::Match<'s>;

    fn next(&mut self) -> Option<Self::Item> {
        let m = self.re.find_at(self.s, self.pos?);
        self.pos = match m {
            Some(m) if m.is_empty() => next_char(self.s, m.end()),
            Some(m) => Some(m.end()),
            None => None,
        };
        m
    }
}

fn js_matches<'r, 's>(re: &'r Regex, s: &'s str) -> JsMatches<'r, 's> {
    JsMatches {
        re: re.compiled(),
        s,
        pos: Some(0),
    }
}

/// All non-overlapping matches of `re` in `s`, left to right, as
/// JavaScript's `matchAll` finds them (an empty match right after a
/// non-empty one is reported: `a*` in `"baaa"` gives `""`, `"aaa"`, `""`).
/// Charges nothing: at most `s.len() + 1` matches, but for a regex that
/// [`Regex::rescans`] the time can grow with the square of `s.len()`;
/// metered callers use [`match_all_values`].
pub fn all_matches<'a>(re: &Regex, s: &'a str) -> Vec<&'a str> {
    js_matches(re, s).map(|m| m.as_str()).collect()
}

/// All non-overlapping matches of `re` in `s` as an array value of strings.
/// Charges [`scan_fuel`], [`rescan_fuel`] for every later search, one fuel
/// per match plus its bytes / 16, and memory for the array header, each
/// slot and each string before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn match_all_values(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, re, s)?;
    rt.alloc(HEADER_BYTES)?;
    let mut items = Vec::new();
    let mut it = js_matches(re, s);
    loop {
        if let Some(pos) = it.pos {
            rt.fuel(rescan_fuel(re, s, pos))?;
        }
        let Some(m) = it.next() else { break };
        let len = m.len() as u64;
        rt.fuel(1 + len / SCAN_BYTES_PER_FUEL)?;
        rt.alloc(SLOT_BYTES + STRING_HEADER_BYTES + len)?;
        items.push(Value::from(m.as_str()));
    }
    Ok(Value::array(items))
}

/// Appends `piece` to `out`, charging its bytes of memory and `bytes / 16`
/// fuel first.
fn append(rt: &mut dyn Runtime, out: &mut String, piece: &str) -> Result<(), Error> {
    if piece.is_empty() {
        return Ok(());
    }
    let len = piece.len() as u64;
    rt.fuel(len / SCAN_BYTES_PER_FUEL)?;
    rt.alloc(len)?;
    out.push_str(piece);
    Ok(())
}

/// Replaces every non-overlapping match of `re` in `s` by `replacement`,
/// expanded by JavaScript's rules (see the `replacement` submodule: `$n`, `$nn`,
/// `$<name>`, `$&`, `` $` ``, `$'`, `$$`).
///
/// Charges [`scan_fuel`], `replacement bytes / 16` for reading the
/// template, [`rescan_fuel`] for every later search, one fuel per match
/// plus the expansion's fuel, and, for every piece of the result, its bytes
/// of memory (before appending) and bytes / 16 fuel.
///
/// # Errors
/// Fuel or memory errors.
pub fn replace_all(
    rt: &mut dyn Runtime,
    re: &Regex,
    s: &str,
    replacement: &str,
) -> Result<String, Error> {
    charge_scan(rt, re, s)?;
    rt.fuel(replacement.len() as u64 / SCAN_BYTES_PER_FUEL)?;
    let compiled = re.compiled();
    let template = Template::parse(replacement, compiled);
    let needs_groups = template.needs_groups();
    let mut out = String::new();
    let mut last = 0;
    let mut locs = compiled.capture_locations();
    let mut pos = Some(0);
    while let Some(at) = pos {
        rt.fuel(rescan_fuel(re, s, at))?;
        let found = if needs_groups {
            compiled.captures_read_at(&mut locs, s, at)
        } else {
            compiled.find_at(s, at)
        };
        let Some(m) = found else { break };
        rt.fuel(1)?;
        append(rt, &mut out, s.get(last..m.start()).unwrap_or(""))?;
        template.expand(rt, &mut out, s, (m.start(), m.end()), &locs)?;
        last = m.end();
        pos = if m.is_empty() {
            next_char(s, m.end())
        } else {
            Some(m.end())
        };
    }
    append(rt, &mut out, s.get(last..).unwrap_or(""))?;
    Ok(out)
}

/// Splits `s` around the matches of `re`, as JavaScript's
/// `String.prototype.split(regex)` does: `"a1b2c3"` split by `\d+` is
/// `["a", "b", "c", ""]`; an empty match never splits at the start or the
/// end, nor right where the previous piece ended (`"abc"` split by `x*` is
/// `["a", "b", "c"]`); the captured groups of each separator are inserted
/// after the piece before it (`null` for a group that did not participate);
/// `""` gives `[]` when the regex matches the empty string, else `[""]`.
///
/// Charges [`scan_fuel`], [`rescan_fuel`] for every later search, one fuel
/// per separator, memory for the array header, each slot and each string
/// before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn split(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Vec<Value>, Error> {
    charge_scan(rt, re, s)?;
    rt.alloc(HEADER_BYTES)?;
    let compiled = re.compiled();
    if s.is_empty() {
        if compiled.is_match(s) {
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
    let mut locs = compiled.capture_locations();
    let mut p = 0; // end of the last separator
    let mut q = 0; // where to search next
    while q < s.len() {
        rt.fuel(rescan_fuel(re, s, q))?;
        let Some(m) = compiled.captures_read_at(&mut locs, s, q) else {
            break;
        };
        if m.start() >= s.len() {
            break;
        }
        if m.end() == p {
            // An empty match where the last piece ended: try one character on.
            match next_char(s, m.start()) {
                Some(n) => q = n,
                None => break,
            }
            continue;
        }
        rt.fuel(1)?;
        push(rt, &mut out, s.get(p..m.start()))?;
        for g in 1..locs.len() {
            push(rt, &mut out, locs.get(g).and_then(|(a, b)| s.get(a..b)))?;
        }
        p = m.end();
        q = p;
    }
    push(rt, &mut out, s.get(p..))?;
    Ok(out)
}

// ------------------------------------------------------------ built-ins

/// The subject string (first argument) of `name`, or
/// `Type error: NAME expects string as first argument, got T` (the Python
/// reference's words `NAME expects string`, then which argument and its type).
fn subject<'v>(name: &str, v: &'v Value) -> Result<&'v str, Error> {
    v.as_str().ok_or_else(|| {
        Error::type_error(format_args!(
            "{name} expects string as first argument, got {}",
            v.type_name()
        ))
    })
}

/// The pattern argument: a string (compiled with no flags through the
/// runtime's regex cache) or a regex value (used as is, with its flags).
/// Anything else is `Type error: NAME pattern must be string or regex, got T`
/// (the reference's `NAME pattern must be string`, which takes strings only).
fn pattern_arg(rt: &mut dyn Runtime, name: &str, v: &Value) -> Result<Arc<Regex>, Error> {
    match v {
        Value::String(p) => rt.regex(p, ""),
        Value::Regex(r) => Ok(Arc::clone(r)),
        other => Err(Error::type_error(format_args!(
            "{name} pattern must be string or regex, got {}",
            other.type_name()
        ))),
    }
}

fn fn_matches(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("matches"));
    };
    let s = subject("matches", s)?;
    let re = pattern_arg(rt, "matches", p)?;
    is_match(rt, &re, s).map(Value::Bool)
}

fn fn_match(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("match"));
    };
    let s = subject("match", s)?;
    let re = pattern_arg(rt, "match", p)?;
    find_value(rt, &re, s)
}

fn fn_match_all(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else {
        return Err(arity_bug("matchAll"));
    };
    let s = subject("matchAll", s)?;
    let re = pattern_arg(rt, "matchAll", p)?;
    match_all_values(rt, &re, s)
}

fn fn_replace_pattern(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p, r] = args else {
        return Err(arity_bug("replacePattern"));
    };
    let s = subject("replacePattern", s)?;
    let bad_replacement = || {
        Error::type_error(format_args!(
            "replacePattern replacement must be string, got {}",
            r.type_name()
        ))
    };
    // Argument types first, then the pattern's syntax (as the reference
    // checks them): a bad replacement is reported before an invalid pattern.
    if r.as_str().is_none() && matches!(p, Value::String(_) | Value::Regex(_)) {
        return Err(bad_replacement());
    }
    let re = pattern_arg(rt, "replacePattern", p)?;
    let r = r.as_str().ok_or_else(bad_replacement)?;
    replace_all(rt, &re, s, r).map(Value::from)
}

fn method_test(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let Value::Regex(re) = receiver else {
        return Err(super::no_such_method("test", receiver));
    };
    let [s] = args else {
        return Err(arity_bug("test"));
    };
    let s = s.as_str().ok_or_else(|| {
        Error::type_error(format_args!(
            "test expects string argument, got {}",
            s.type_name()
        ))
    })?;
    is_match(rt, re, s).map(Value::Bool)
}

/// Unreachable in practice: the registry checks arity before the call.
#[cold]
fn arity_bug(name: &str) -> Error {
    Error::new(
        ErrorKind::Arity,
        format!("Wrong number of arguments for '{name}'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;

    fn re(p: &str) -> Regex {
        re_flags(p, "")
    }

    fn re_flags(p: &str, f: &str) -> Regex {
        match compile(p, f) {
            Ok(r) => r,
            Err(e) => panic!("{p}: {e}"),
        }
    }

    fn rejected(p: &str) -> String {
        match compile(p, "") {
            Ok(_) => panic!("{p} should be rejected"),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Regex, "{p}");
                assert!(
                    e.message().contains("invalid regex"),
                    "{p}: {}",
                    e.message()
                );
                e.message().to_string()
            }
        }
    }

    fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
        let mut rt = TestRuntime::default();
        let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
        crate::stdlib::call_function(&mut rt, id, args)
    }

    fn s(v: &str) -> Value {
        Value::from(v)
    }

    fn strs(items: &[&str]) -> Value {
        Value::array(items.iter().map(|&x| Value::from(x)).collect())
    }

    fn rx(p: &str) -> Value {
        Value::Regex(Arc::new(re(p)))
    }

    fn type_err(r: Result<Value, Error>) {
        match r {
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Type);
                assert!(e.message().starts_with("Type error: "), "{}", e.message());
            }
            Ok(v) => panic!("expected a type error, got {v:?}"),
        }
    }

    fn replace(p: &str, hay: &str, rep: &str) -> String {
        let mut rt = TestRuntime::default();
        match replace_all(&mut rt, &re(p), hay, rep) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        }
    }

    fn split_strs(p: &str, hay: &str) -> Vec<Value> {
        let mut rt = TestRuntime::default();
        match split(&mut rt, &re(p), hay) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn ascii_perl_classes_like_re2() {
        // Arabic-Indic digits, fullwidth digits, accented letters, NBSP.
        assert!(!re(r"\d").compiled().is_match("٣"));
        assert!(!re(r"\d").compiled().is_match("３"));
        assert!(re(r"\d").compiled().is_match("3"));
        assert!(re(r"\D").compiled().is_match("٣"));
        assert!(!re(r"^\w$").compiled().is_match("é"));
        assert!(re(r"^\W$").compiled().is_match("é"));
        assert!(re(r"^\w+$").compiled().is_match("Az_09"));
        assert!(!re(r"\s").compiled().is_match("\u{a0}"));
        assert!(
            !re(r"\s").compiled().is_match("\u{0b}"),
            "RE2's \\s excludes \\v"
        );
        assert!(re(r"^\s+$").compiled().is_match(" \t\n\r\u{0c}"));
        assert!(re(r"^\S$").compiled().is_match("\u{2003}"));
    }

    #[test]
    fn ascii_perl_classes_inside_classes() {
        assert!(!re(r"[\d]").compiled().is_match("٣"));
        assert!(re(r"^[\dx]+$").compiled().is_match("1x2"));
        assert!(!re(r"[\w-]").compiled().is_match("é"));
        assert!(re(r"^[\w-]+$").compiled().is_match("a-b_c"));
        assert!(re(r"^[\D]$").compiled().is_match("é"));
        assert!(!re(r"^[^\d]$").compiled().is_match("5"));
        assert!(re(r"^[^\D]$").compiled().is_match("5"));
        assert!(!re(r"^[^\D]$").compiled().is_match("a"));
        assert!(re(r"^[\s,]+$").compiled().is_match(" ,\t"));
        assert!(re(r"^[^\S]$").compiled().is_match(" "));
        assert!(re(r"^[\W]$").compiled().is_match("é"));
    }

    #[test]
    fn escaped_backslash_is_not_a_class() {
        // `\\d` is a literal backslash then `d`.
        assert!(re(r"^\\d$").compiled().is_match(r"\d"));
        assert!(!re(r"^\\d$").compiled().is_match("5"));
        assert!(re(r"^[\\d]+$").compiled().is_match(r"d\d"));
    }

    #[test]
    fn word_boundary_is_ascii() {
        // RE2: é is not a word character, so there is a boundary before it.
        assert_eq!(first_match(&re(r"\b\w+\b"), "éabc"), Some("abc"));
        assert!(re(r"a\b").compiled().is_match("aé"));
        assert!(re(r"\Ba").compiled().is_match("ba"));
        assert!(!re(r"\Ba").compiled().is_match(" a"));
        assert!(re(r"é\B").compiled().is_match("é!"));
    }

    #[test]
    fn class_set_operators_rejected() {
        assert!(rejected("[a&&b]").contains("&&"));
        assert!(rejected("[a-z--m]").contains("--"));
        assert!(rejected("[a~~b]").contains("~~"));
        // Single characters and escaped ones are fine.
        assert!(re(r"^[&~-]+$").compiled().is_match("&~-"));
        assert!(re(r"^[\&\&]$").compiled().is_match("&"));
        // Outside classes they are literal text.
        assert!(re("a&&b--c~~").compiled().is_match("a&&b--c~~"));
    }

    #[test]
    fn bracket_inside_class_is_literal() {
        assert!(re(r"^[[]$").compiled().is_match("["));
        assert!(re(r"^[a[b]+$").compiled().is_match("a[b"));
        assert!(re(r"^[]a]+$").compiled().is_match("]a"));
        assert!(re(r"^[^]a]$").compiled().is_match("b"));
        assert!(re(r"^[[:alpha:]]+$").compiled().is_match("abc"));
        assert!(!re(r"^[[:alpha:]]+$").compiled().is_match("a1"));
        assert!(re(r"^[[:^digit:]]$").compiled().is_match("x"));
    }

    #[test]
    fn invalid_patterns_rejected() {
        rejected("[invalid");
        rejected("[bad");
        rejected("(abc");
        rejected("abc)");
        rejected("*a");
        rejected(r"abc\");
        rejected(r"(a)\1");
        rejected(r"\8");
        rejected("(?=a)");
        rejected("(?!a)");
        rejected("(?<=a)b");
        rejected("(?<!a)b");
        rejected("(?x)a b");
        rejected("(?u)a");
        rejected("(?P=n)");
        rejected("a**");
        rejected("a+*");
        rejected("a{2}{3}");
        rejected("a{2}*");
        rejected("a{1001}");
        rejected("a{5,3}");
        rejected("[z-a]");
        rejected(r"\pX{");
        rejected(r"[\Q]\E]");
        assert!(rejected("(?=a)").contains("lookahead"));
        assert!(rejected("(?>a)").contains("atomic groups are not supported"));
    }

    #[test]
    fn huge_repetitions_rejected_fast() {
        assert!(rejected("a{1000}{1000}").contains("repetition"));
        assert!(rejected("(a{100}){100}").contains("1000"));
        assert!(rejected("((a{10}){10}){11}").contains("1000"));
        // Exactly 1000 is allowed by RE2.
        assert!(re("(?:a{10}){100}").compiled().is_match(&"a".repeat(1000)));
        assert!(re("(a{0}){1000}").compiled().is_match(""));
        // Over the compiled-size limit: each \pL is hundreds of ranges.
        assert!(rejected(r"\pL{1000}").contains("size limit"));
        assert!(rejected(r"(\pL{50}|\w{50}){20}").contains("invalid regex"));
        // Nesting limit.
        let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
        rejected(&deep);
    }

    #[test]
    fn re2_literal_rules() {
        // `{` not starting a repetition is a literal.
        assert!(re("^a{$").compiled().is_match("a{"));
        assert!(re("^a{,5}$").compiled().is_match("a{,5}"));
        assert!(re("^{x}$").compiled().is_match("{x}"));
        assert!(re("^a{2,}$").compiled().is_match("aaa"));
        assert!(re("^a{2,3}?$").compiled().is_match("aa"));
        // \Q...\E quotes; an unterminated \Q runs to the end.
        assert!(re(r"^\Qa.b*\E+$").compiled().is_match("a.b**"));
        assert!(re(r"^\Q(x)").compiled().is_match("(x)"));
        // Octal escapes.
        assert!(re(r"^\101\0$").compiled().is_match("A\0"));
        assert!(re(r"^\12$").compiled().is_match("\n"));
        // \< and \> are the characters in RE2.
        assert!(re(r"^\<a\>$").compiled().is_match("<a>"));
        // Named groups, flags, lazy operators.
        assert!(
            re(r"(?P<y>\d{4})-(?<m>\d\d)")
                .compiled()
                .is_match("2024-01")
        );
        assert!(re(r"(?i)abc").compiled().is_match("ABC"));
        assert!(re(r"(?i:a)b").compiled().is_match("Ab"));
        assert!(!re(r"(?i:a)b").compiled().is_match("AB"));
        assert!(re(r"(?s-i:a.)").compiled().is_match("a\n"));
        assert_eq!(first_match(&re(r"(?U)a+"), "aaa"), Some("a"));
        assert_eq!(first_match(&re(r"a+?"), "aaa"), Some("a"));
        assert!(re(r"\x41\x{42}\p{Greek}\PL").compiled().is_match("ABα1"));
        // `\u` with four hex digits (not RE2, but JavaScript and Python).
        assert!(re(r"^\u0041$").compiled().is_match("A"));
    }

    #[test]
    fn flags() {
        assert!(re_flags("hello", "i").compiled().is_match("HeLLo"));
        assert!(!re("hello").compiled().is_match("HeLLo"));
        assert!(re_flags("^b$", "m").compiled().is_match("a\nb\nc"));
        assert!(!re("^b$").compiled().is_match("a\nb\nc"));
        assert!(re_flags("a.b", "s").compiled().is_match("a\nb"));
        assert!(!re("a.b").compiled().is_match("a\nb"));
        let r = re_flags(r"\d", "im");
        assert_eq!((r.pattern(), r.flags()), (r"\d", "im"));
        match compile("a", "g") {
            Err(e) => assert!(e.message().contains("invalid regex flags")),
            Ok(_) => panic!("flag g accepted"),
        }
        // (?i) folds \w's letters as RE2 does, and keeps it ASCII-only.
        assert!(re(r"(?i)^\w$").compiled().is_match("Q"));
        assert!(!re(r"(?i)^\w$").compiled().is_match("É"));
    }

    #[test]
    fn no_catastrophic_backtracking() {
        let hay = format!("{}!", "a".repeat(5000));
        assert!(!re("^(a|a)*$").compiled().is_match(&hay));
        assert!(!re("^(a+)+$").compiled().is_match(&hay));
    }

    #[test]
    fn replace_all_matches_like_js() {
        assert_eq!(replace("o", "hello world", "0"), "hell0 w0rld");
        assert_eq!(
            replace(r"(\d{4})-(\d{2})-(\d{2})", "2024-01-15", "$3/$2/$1"),
            "15/01/2024"
        );
        assert_eq!(replace("a*", "baaa", "X"), "XbXX");
        assert_eq!(replace("", "ab", "-"), "-a-b-");
        assert_eq!(replace("", "é😀", "-"), "-é-😀-");
        assert_eq!(replace("x", "", "y"), "");
        assert_eq!(replace("", "", "y"), "y");
    }

    #[test]
    fn split_like_js() {
        let v = |xs: &[&str]| xs.iter().map(|&x| Value::from(x)).collect::<Vec<_>>();
        assert_eq!(split_strs(r"\d+", "a1b2c3"), v(&["a", "b", "c", ""]));
        assert_eq!(split_strs("l", "hello"), v(&["he", "", "o"]));
        assert_eq!(split_strs("x*", "abc"), v(&["a", "b", "c"]));
        assert_eq!(split_strs("", "aé😀"), v(&["a", "é", "😀"]));
        assert_eq!(split_strs(",", ""), v(&[""]));
        assert_eq!(split_strs("x*", ""), v(&[]));
        assert_eq!(split_strs(",", "a,b,"), v(&["a", "b", ""]));
        assert_eq!(split_strs(",", ",a"), v(&["", "a"]));
        assert_eq!(split_strs(r"\s*", "a b"), v(&["a", "b"]));
        // Captured groups are inserted; a group that did not take part is null.
        let got = split_strs(r"(\d)|(-)", "a1b-c");
        assert_eq!(
            got,
            vec![
                s("a"),
                s("1"),
                Value::Null,
                s("b"),
                Value::Null,
                s("-"),
                s("c")
            ]
        );
    }

    #[test]
    fn match_all_like_js() {
        let mut rt = TestRuntime::default();
        let got = match_all_values(&mut rt, &re("a*"), "baaa").ok();
        assert_eq!(got, Some(strs(&["", "aaa", ""])));
        assert_eq!(all_matches(&re(r"\d+"), "a1b22"), vec!["1", "22"]);
        assert_eq!(all_matches(&re(""), "é"), vec!["", ""]);
    }

    #[test]
    fn global_functions() {
        assert_eq!(
            call("matches", &[s("hello 42"), s(r"\d+")]).ok(),
            Some(Value::Bool(true))
        );
        assert_eq!(
            call("matches", &[s("hello"), s(r"\d+")]).ok(),
            Some(Value::Bool(false))
        );
        assert_eq!(
            call("matches", &[s("Hello"), s("(?i)hello")]).ok(),
            Some(Value::Bool(true))
        );
        assert_eq!(
            call("matches", &[s("Hello"), rx("hello")]).ok(),
            Some(Value::Bool(false))
        );
        let ci = Value::Regex(Arc::new(re_flags("hello", "i")));
        assert_eq!(
            call("matches", &[s("Hello"), ci]).ok(),
            Some(Value::Bool(true))
        );
        assert_eq!(
            call("match", &[s("order-123"), s(r"\d+")]).ok(),
            Some(s("123"))
        );
        assert_eq!(
            call("match", &[s("none"), s(r"\d+")]).ok(),
            Some(Value::Null)
        );
        assert_eq!(call("match", &[s("x٣5"), rx(r"\d")]).ok(), Some(s("5")));
        assert_eq!(
            call("matchAll", &[s("a1b2c3"), s(r"\d+")]).ok(),
            Some(strs(&["1", "2", "3"]))
        );
        assert_eq!(call("matchAll", &[s(""), s(r"\d+")]).ok(), Some(strs(&[])));
        assert_eq!(
            call(
                "replacePattern",
                &[s("2024-01-15"), s(r"(\d+)-(\d+)-(\d+)"), s("$3/$2/$1")]
            )
            .ok(),
            Some(s("15/01/2024"))
        );
        assert_eq!(
            call("replacePattern", &[s("abc"), rx("."), s("X")]).ok(),
            Some(s("XXX"))
        );
    }

    #[test]
    fn global_function_errors() {
        type_err(call("matches", &[Value::from(42.0), s(r"\d+")]));
        type_err(call("match", &[Value::Null, s("x")]));
        type_err(call("matchAll", &[Value::from(true), s("x")]));
        type_err(call("replacePattern", &[Value::from(42.0), s("x"), s("y")]));
        type_err(call("matches", &[s("a"), Value::from(1.0)]));
        type_err(call("match", &[s("a"), Value::Null]));
        type_err(call("replacePattern", &[s("a"), s("a"), Value::from(1.0)]));
        // The Python reference's words, then the argument's type.
        let message = |name: &str, args: &[Value]| match call(name, args) {
            Err(e) => e.message().to_string(),
            Ok(v) => panic!("{name}: {v:?}"),
        };
        for f in ["matches", "match", "matchAll"] {
            assert_eq!(
                message(f, &[Value::Null, s("x")]),
                format!("Type error: {f} expects string as first argument, got null")
            );
            assert_eq!(
                message(f, &[s("x"), Value::from(true)]),
                format!("Type error: {f} pattern must be string or regex, got boolean")
            );
        }
        assert_eq!(
            message("replacePattern", &[Value::from(1.0), s("x"), s("y")]),
            "Type error: replacePattern expects string as first argument, got number"
        );
        assert_eq!(
            message("replacePattern", &[s("x"), Value::array(vec![]), s("y")]),
            "Type error: replacePattern pattern must be string or regex, got array"
        );
        assert_eq!(
            message("replacePattern", &[s("x"), s("y"), Value::Null]),
            "Type error: replacePattern replacement must be string, got null"
        );
        // Argument types are checked before the pattern is compiled.
        assert_eq!(
            message("replacePattern", &[s("x"), s("[bad"), Value::from(1.0)]),
            "Type error: replacePattern replacement must be string, got number"
        );
        assert_eq!(
            message(
                "replacePattern",
                &[s("x"), Value::from(1.0), Value::from(1.0)]
            ),
            "Type error: replacePattern pattern must be string or regex, got number"
        );
        for f in ["matches", "match", "matchAll"] {
            match call(f, &[s("test"), s("[invalid")]) {
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::Regex);
                    assert!(
                        e.message().starts_with("invalid regex pattern: "),
                        "{}",
                        e.message()
                    );
                    assert!(!e.message().contains('\n'));
                }
                Ok(v) => panic!("{f}: {v:?}"),
            }
        }
        match call("matches", &[s("a")]) {
            Err(e) => assert_eq!(
                e.message(),
                "Wrong number of arguments for 'matches': expected 2, got 1"
            ),
            Ok(v) => panic!("{v:?}"),
        }
        match call("replacePattern", &[s("a"), s("a")]) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Arity),
            Ok(v) => panic!("{v:?}"),
        }
    }

    #[test]
    fn test_method() {
        let mut rt = TestRuntime::default();
        let id = crate::stdlib::method_id("test").unwrap_or(u16::MAX);
        let r = rx(r"\d+");
        let mut t = |arg: Value| crate::stdlib::call_method(&mut rt, id, &r, &[arg]);
        assert_eq!(t(s("abc123")).ok(), Some(Value::Bool(true)));
        assert_eq!(t(s("abc")).ok(), Some(Value::Bool(false)));
        assert_eq!(t(s("")).ok(), Some(Value::Bool(false)));
        type_err(t(Value::from(42.0)));
        type_err(t(Value::Null));
        match t(Value::from(42.0)) {
            Err(e) => assert_eq!(
                e.message(),
                "Type error: test expects string argument, got number"
            ),
            Ok(v) => panic!("{v:?}"),
        }
        // `test` on a string is no method of strings.
        let mut rt = TestRuntime::default();
        match crate::stdlib::call_method(&mut rt, id, &s("x"), &[s("x")]) {
            Err(e) => assert!(e.message().contains("cannot call method 'test' on string")),
            Ok(v) => panic!("{v:?}"),
        }
        // A method regexes lack: the reference's words, with a hint.
        let upper = crate::stdlib::method_id("upper").unwrap_or(u16::MAX);
        match crate::stdlib::call_method(&mut rt, upper, &rx("a"), &[]) {
            Err(e) => assert_eq!(e.message(), "Type error: regex has no method 'upper'"),
            Ok(v) => panic!("{v:?}"),
        }
        assert_eq!(
            crate::stdlib::no_such_method("tset", &rx("a")).message(),
            "Type error: regex has no method 'tset' (did you mean 'test'?)"
        );
    }

    #[test]
    fn fuel_scales_with_haystack() {
        let hay = "a".repeat(16_000);
        let mut rt = TestRuntime::default();
        assert!(is_match(&mut rt, &re("b"), &hay).is_ok());
        assert_eq!(rt.fuel_used, 1 + 1000);
        let mut small = TestRuntime::default();
        assert!(is_match(&mut small, &re("b"), "aaaa").is_ok());
        assert_eq!(small.fuel_used, 1);
        // A tight budget stops the scan.
        let mut tight = TestRuntime {
            fuel_limit: Some(100),
            ..TestRuntime::default()
        };
        match match_all_values(&mut tight, &re("a"), &hay) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Fuel),
            Ok(_) => panic!("fuel not charged"),
        }
    }

    #[test]
    fn rescanning_patterns_detected() {
        for p in [
            r"\w*b|a",
            r"a.*b|a",
            r"(\w+)@(\w+)\.com|x",
            r"a(?:\w*b)?",
            r"a(?:\w*b)*",
            r"a(?:\w*b)+",
            r"a(?:\w*b){0,3}",
            r"(?:a\w*)b|c",
            r"(?:\w*b|a)c",
            r"a(?:x|\w{2,}b)?",
        ] {
            assert!(re(p).rescans(), "{p}");
        }
        for p in [
            r"\d+",
            r"\d+(\.\d+)?",
            r"https?://\S+",
            r"\s*,\s*",
            r"<.*?>",
            r"a|\w*b",
            r"a\w*|b",
            r"^(a|a)*$",
            r"(\d+)-(\d+)",
            r"(?:\w*b){2}",
            r"[a-z]+@[a-z]+\.[a-z]{2,}",
        ] {
            assert!(!re(p).rescans(), "{p}");
        }
    }

    #[test]
    fn rescanning_is_charged_per_search() {
        let hay = "a".repeat(1_600);
        let r = re(r"\w*b|a");
        // 1,600 matches, each search paying for the rest of the haystack.
        let mut rt = TestRuntime::default();
        let got = match_all_values(&mut rt, &r, &hay).ok();
        assert_eq!(
            got.as_ref().and_then(|v| v.as_array()).map(|a| a.len()),
            Some(1_600)
        );
        let rest: u64 = (1..1_600u64).map(|p| (1_600 - p) / 16).sum();
        assert_eq!(rt.fuel_used, scan_fuel(&r, &hay) + rest + 1_600);
        // The same matches without the risky branch cost linear fuel.
        let mut plain = TestRuntime::default();
        assert!(match_all_values(&mut plain, &re("a"), &hay).is_ok());
        assert_eq!(plain.fuel_used, 1 + 100 + 1_600);
        // Under a budget, a long haystack stops with a fuel error.
        let long = "a".repeat(200_000);
        for f in [0, 1, 2] {
            let mut tight = TestRuntime {
                fuel_limit: Some(1_000_000),
                ..TestRuntime::default()
            };
            let result = match f {
                0 => match_all_values(&mut tight, &r, &long).map(|_| ()),
                1 => replace_all(&mut tight, &r, &long, "x").map(|_| ()),
                _ => split(&mut tight, &re(r"\w*b|a"), &long).map(|_| ()),
            };
            match result {
                Err(e) => assert_eq!(e.kind(), ErrorKind::Fuel),
                Ok(()) => panic!("case {f}: quadratic work charged linear fuel"),
            }
        }
    }

    #[test]
    fn scan_cost_grows_with_pattern_size() {
        assert_eq!(re(r"\d+").scan_cost(), 1);
        assert_eq!(
            re(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$").scan_cost(),
            1
        );
        // 500 copies of a class after a literal, a pattern whose lazy DFA
        // blows up: 48 + 8 * 500.
        let big = re("a[ab]{500}b");
        assert_eq!(big.scan_cost(), 4048);
        // A long counted class first in the pattern runs as a DFA.
        assert!(re(r"\d{16}").scan_cost() < 48);
        assert!(re(r"a\w{30}c").scan_cost() >= 48);
        assert!(re("x(?:[ab]{25})").scan_cost() >= 48);
        assert!(re("a[ab]{11}c").scan_cost() < 48);
        // A start anchor after other pattern is scanned slowly.
        assert!(re("[a-c1]^").scan_cost() >= 8);
        assert!(re(r"\s\A").scan_cost() >= 8);
        assert_eq!(re("^[a-c1]").scan_cost(), 1);
        assert_eq!(re("x|^a").scan_cost(), 1);
        assert!(re(r"\s?$a").scan_cost() >= 8);
        assert!(re(r"$(?:a)").scan_cost() >= 8);
        assert_eq!(re(r"a$").scan_cost(), 1);
        assert_eq!(re(r"a$|b").scan_cost(), 1);
        assert!(re(&format!("a{}c", "[ab]".repeat(30))).scan_cost() >= 48);
        assert!(re("a(?:[ab]{6}){5}c").scan_cost() >= 48);
        assert!(re(r"\d(?:a|b){15}").scan_cost() >= 48);
        assert!(re(r"\d(?:ab){15}").scan_cost() < 48);
        assert!(re(r"\d{4}-\d{2}-\d{2}").scan_cost() < 48);
        assert!(re(r"\d|\w|\s|\D|\W|\S|\d|\w|\s|\D|\W|\S|\d").scan_cost() < 48);
        let hay = "ab".repeat(8_000);
        let mut rt = TestRuntime::default();
        assert!(is_match(&mut rt, &big, &hay).is_ok());
        assert_eq!(rt.fuel_used, 1 + 1000 * u64::from(big.scan_cost()));
        // Nested counted repetitions multiply; Unicode classes weigh more.
        assert!(re("(?:ab{10}){10}").scan_cost() > re("(?:ab{10})").scan_cost());
        assert!(re(r"\pL{10}").scan_cost() > re("a{10}").scan_cost());
        assert!(re("[^a]{100}").scan_cost() > re("[a]{100}").scan_cost());
    }

    #[test]
    fn memory_charged_before_building() {
        let hay = "ab".repeat(1000);
        let mut rt = TestRuntime::default();
        let got = match_all_values(&mut rt, &re("ab"), &hay).ok();
        assert_eq!(
            got.as_ref().and_then(|v| v.as_array()).map(|a| a.len()),
            Some(1000)
        );
        assert_eq!(
            rt.bytes_used,
            HEADER_BYTES + 1000 * (SLOT_BYTES + STRING_HEADER_BYTES + 2)
        );
        let mut limited = TestRuntime {
            memory_limit: Some(1000),
            ..TestRuntime::default()
        };
        match replace_all(&mut limited, &re("a"), &hay, "xxxxxxxx") {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
            Ok(_) => panic!("memory not charged"),
        }
        let mut limited = TestRuntime {
            memory_limit: Some(1000),
            ..TestRuntime::default()
        };
        match split(&mut limited, &re(""), &hay) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
            Ok(_) => panic!("memory not charged"),
        }
        let mut rt = TestRuntime::default();
        assert_eq!(find_value(&mut rt, &re("b+"), "abbb").ok(), Some(s("bbb")));
        assert_eq!(rt.bytes_used, 3);
    }
}
