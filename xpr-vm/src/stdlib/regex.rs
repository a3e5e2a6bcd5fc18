//! Regexes (spec "Regex Functions (v0.3)" and "Regex Literals (v0.4)"):
//! compiling patterns with RE2 semantics, the global functions `matches`,
//! `match`, `matchAll`, `replacePattern`, the regex method `test`, and the
//! helpers the string methods `match`, `replace` and `split` use for their
//! regex overloads.
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
//!   are rejected), and lookaround groups are rejected with a clear message.
//!
//! Compilation is bounded: compiled program size 1 MiB, lazy DFA cache 2 MiB,
//! nesting 64, so no pattern can make compiling or matching blow up.
//!
//! # Fuel and memory
//! A scan of a haystack costs `1 + bytes / 16` fuel ([`scan_fuel`]); every
//! match found by `matchAll`, `replacePattern`/`replace` and `split` costs one
//! more, plus `bytes / 16` of the text it produces. Memory is charged (through
//! [`Runtime::alloc`]) before each result string or array is built: a
//! string's byte length, an array's header plus one slot per element.

use std::sync::Arc;

use super::{FunctionDef, MethodDef};
use crate::error::{Error, ErrorKind};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::{HEADER_BYTES, Regex, SLOT_BYTES, Value};

/// Compiled program size limit, in bytes (`RegexBuilder::size_limit`).
pub const SIZE_LIMIT: usize = 1 << 20;
/// Lazy DFA cache limit, in bytes (`RegexBuilder::dfa_size_limit`).
pub const DFA_SIZE_LIMIT: usize = 2 << 20;
/// Nesting limit of groups and repetitions (`RegexBuilder::nest_limit`).
pub const NEST_LIMIT: u32 = 64;
/// RE2's limit on a counted repetition `{n,m}` and on the product of nested
/// counted repetitions.
pub const MAX_REPEAT: u32 = 1000;
/// Haystack bytes scanned per unit of fuel.
pub const SCAN_BYTES_PER_FUEL: u64 = 16;

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
/// `flags` as given (for `string()` and `==`).
///
/// Costs no fuel itself: callers charge for compiling (the VM's regex cache
/// does, per compiled pattern).
///
/// # Errors
/// `invalid regex pattern: DETAIL` ([`ErrorKind::Regex`]) for a pattern RE2
/// rejects, one over the limits, or a flag other than `i`, `m`, `s`
/// (`invalid regex flags ...`).
pub fn compile(pattern: &str, flags: &str) -> Result<Regex, Error> {
    if let Some(bad) = flags.chars().find(|c| !matches!(c, 'i' | 'm' | 's')) {
        return Err(Error::new(
            ErrorKind::Regex,
            format!("invalid regex flags: unsupported flag '{bad}' (supported: i, m, s)"),
        ));
    }
    let translated = translate(pattern).map_err(invalid)?;
    let compiled = ::regex::RegexBuilder::new(&translated)
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'))
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| invalid(crate_error_detail(&e)))?;
    Ok(Regex::new(pattern, flags, compiled))
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
fn translate_escape(cs: &[char], i: usize, out: &mut String, in_class: bool) -> Result<usize, String> {
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
        'Q' | 'E' if in_class => Err(format!("invalid escape sequence \\{c} in a character class")),
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
                        cs.iter().skip(j).take(k + 2 - j).for_each(|&ch| out.push(ch));
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

/// Translates an RE2 pattern into the `regex` crate's syntax (see the module
/// documentation), or explains why RE2 rejects it.
fn translate(pattern: &str) -> Result<String, String> {
    let cs: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    // Per open group: the largest product of counted repetitions inside it.
    let mut frames: Vec<u64> = vec![1];
    // The repetition product of the last atom, if the last item is an atom.
    let mut last_atom: Option<u64> = None;
    let mut last_repeat = false;
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
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
                    last_atom = Some(1);
                }
                last_repeat = false;
            }
            '\\' => {
                i += translate_escape(&cs, i, &mut out, false)?;
                last_atom = Some(1);
                last_repeat = false;
            }
            '[' => {
                i += translate_class(&cs, i, &mut out)?;
                last_atom = Some(1);
                last_repeat = false;
            }
            '(' => {
                i += translate_group_open(&cs, i, &mut out, &mut frames)?;
                last_atom = None;
                last_repeat = false;
            }
            ')' => {
                if frames.len() > 1 {
                    let inner = frames.pop().unwrap_or(1);
                    if let Some(top) = frames.last_mut() {
                        *top = (*top).max(inner);
                    }
                    last_atom = Some(inner);
                } else {
                    return Err("unopened group: unmatched ')'".to_string());
                }
                out.push(')');
                i += 1;
                last_repeat = false;
            }
            '|' => {
                out.push('|');
                i += 1;
                last_atom = None;
                last_repeat = false;
            }
            '*' | '+' | '?' => {
                if last_repeat {
                    return Err(format!("bad repetition operator: stacked '{c}'"));
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
                    let product = last_atom.unwrap_or(1).saturating_mul(top.max(1));
                    if product > u64::from(MAX_REPEAT) {
                        return Err(format!(
                            "bad repetition operator: nested repetition counts exceed {MAX_REPEAT}"
                        ));
                    }
                    if let Some(f) = frames.last_mut() {
                        *f = (*f).max(product);
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
                    last_atom = Some(1);
                    last_repeat = false;
                }
            },
            '}' => {
                out.push_str(r"\}");
                i += 1;
                last_atom = Some(1);
                last_repeat = false;
            }
            _ => {
                out.push(c);
                i += 1;
                last_atom = Some(1);
                last_repeat = false;
            }
        }
    }
    Ok(out)
}

/// Translates a group opener at `cs[i] == '('`, pushing a frame for a
/// capturing or non-capturing group (not for a flags-only `(?i)`).
/// Returns the characters consumed.
fn translate_group_open(cs: &[char], i: usize, out: &mut String, frames: &mut Vec<u64>) -> Result<usize, String> {
    if cs.get(i + 1) != Some(&'?') {
        out.push('(');
        frames.push(1);
        return Ok(1);
    }
    let copy_name = |start: usize, out: &mut String| -> Result<usize, String> {
        // Copies from `start` through the closing '>'.
        let end = (start..cs.len())
            .find(|&k| cs.get(k) == Some(&'>'))
            .ok_or_else(|| "unclosed group name".to_string())?;
        cs.iter().skip(start).take(end + 1 - start).for_each(|&ch| out.push(ch));
        Ok(end + 1 - i)
    };
    match cs.get(i + 2) {
        Some('=') | Some('!') => Err("lookahead is not supported".to_string()),
        Some('<') if matches!(cs.get(i + 3), Some('=') | Some('!')) => {
            Err("lookbehind is not supported".to_string())
        }
        Some('<') => {
            frames.push(1);
            copy_name(i, out)
        }
        Some('P') if cs.get(i + 3) == Some(&'<') => {
            frames.push(1);
            copy_name(i, out)
        }
        Some('P') => Err("invalid or unsupported Perl syntax (?P".to_string()),
        _ => {
            // Flags: `(?flags)` or `(?flags:`.
            let mut j = i + 2;
            loop {
                match cs.get(j) {
                    Some('i' | 'm' | 's' | 'U' | '-') => j += 1,
                    Some(')') => {
                        cs.iter().skip(i).take(j + 1 - i).for_each(|&ch| out.push(ch));
                        return Ok(j + 1 - i);
                    }
                    Some(':') => {
                        cs.iter().skip(i).take(j + 1 - i).for_each(|&ch| out.push(ch));
                        frames.push(1);
                        return Ok(j + 1 - i);
                    }
                    Some(&other) => return Err(format!("invalid or unsupported Perl flag '{other}'")),
                    None => return Err("missing closing ) of a group".to_string()),
                }
            }
        }
    }
}

// ------------------------------------------------------- matching helpers

/// Fuel for scanning `s` once: `1 + bytes / 16`.
pub fn scan_fuel(s: &str) -> u64 {
    1 + s.len() as u64 / SCAN_BYTES_PER_FUEL
}

/// Charges [`scan_fuel`] for `s`.
///
/// # Errors
/// The fuel error when the budget is spent.
pub fn charge_scan(rt: &mut dyn Runtime, s: &str) -> Result<(), Error> {
    rt.fuel(scan_fuel(s))
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
    charge_scan(rt, s)?;
    Ok(re.compiled().is_match(s))
}

/// The first match of `re` in `s` as a value: the matched string, or `null`.
/// Charges [`scan_fuel`] and the match's bytes of memory.
///
/// # Errors
/// Fuel or memory errors.
pub fn find_value(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, s)?;
    match first_match(re, s) {
        Some(m) => {
            rt.alloc(m.len() as u64)?;
            Ok(Value::from(m))
        }
        None => Ok(Value::Null),
    }
}

/// All non-overlapping matches of `re` in `s`, left to right (an empty match
/// right after a non-empty one is reported, as JavaScript's `matchAll` does).
/// Charges nothing: bounded by `s.len() + 1` matches; metered callers use
/// [`match_all_values`].
pub fn all_matches<'a>(re: &Regex, s: &'a str) -> Vec<&'a str> {
    re.compiled().find_iter(s).map(|m| m.as_str()).collect()
}

/// All non-overlapping matches of `re` in `s` as an array value of strings.
/// Charges [`scan_fuel`], one fuel per match plus its bytes / 16, and memory
/// for the array header, each slot and each string before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn match_all_values(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Value, Error> {
    charge_scan(rt, s)?;
    rt.alloc(HEADER_BYTES)?;
    let mut items = Vec::new();
    for m in re.compiled().find_iter(s) {
        let len = m.len() as u64;
        rt.fuel(1 + len / SCAN_BYTES_PER_FUEL)?;
        rt.alloc(SLOT_BYTES + len)?;
        items.push(Value::from(m.as_str()));
    }
    Ok(Value::array(items))
}

/// One piece of a parsed replacement template.
#[derive(Debug, Clone, PartialEq)]
enum Piece<'t> {
    Text(&'t str),
    Group(usize),
}

/// Parses a JavaScript-style replacement template for a regex with
/// `groups` capture groups: `$$` is `$`, `$&` the whole match (group 0),
/// `$n` and `$nn` a group that exists (two digits only when that group
/// exists, else one digit and a literal digit), anything else literal
/// (`$0`, `$<name>`, `${name}`, `` $` ``, `$'`, a lone `$`).
fn parse_template(t: &str, groups: usize) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let bytes = t.as_bytes();
    let mut lit_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'$') {
            i += 1;
            continue;
        }
        let d1 = bytes.get(i + 1).copied();
        let digit = |b: Option<u8>| b.filter(u8::is_ascii_digit).map(|b| usize::from(b - b'0'));
        let (piece, len) = match (d1, digit(d1)) {
            (Some(b'$'), _) => (Piece::Text("$"), 2),
            (Some(b'&'), _) => (Piece::Group(0), 2),
            (_, Some(a)) => match digit(bytes.get(i + 2).copied()) {
                Some(b) if (1..=groups).contains(&(a * 10 + b)) => (Piece::Group(a * 10 + b), 3),
                _ if (1..=groups).contains(&a) => (Piece::Group(a), 2),
                _ => {
                    i += 2;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        if let Some(text) = t.get(lit_start..i)
            && !text.is_empty()
        {
            pieces.push(Piece::Text(text));
        }
        pieces.push(piece);
        i += len;
        lit_start = i;
    }
    if let Some(text) = t.get(lit_start..)
        && !text.is_empty()
    {
        pieces.push(Piece::Text(text));
    }
    pieces
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
/// substituted JavaScript-style (see `parse_template`: `$n`, `$nn`, `$&`,
/// `$$`; anything else literal; a group that did not participate gives "").
///
/// Charges [`scan_fuel`], one fuel per match, and, for every piece of the
/// result, its bytes of memory (before appending) and bytes / 16 fuel.
///
/// # Errors
/// Fuel or memory errors.
pub fn replace_all(rt: &mut dyn Runtime, re: &Regex, s: &str, replacement: &str) -> Result<String, Error> {
    charge_scan(rt, s)?;
    let compiled = re.compiled();
    let groups = compiled.captures_len().saturating_sub(1);
    let template = parse_template(replacement, groups);
    let needs_groups = template.iter().any(|p| matches!(p, Piece::Group(n) if *n > 0));
    let mut out = String::new();
    let mut last = 0;
    if needs_groups {
        for caps in compiled.captures_iter(s) {
            let Some(whole) = caps.get(0) else { continue };
            rt.fuel(1)?;
            append(rt, &mut out, s.get(last..whole.start()).unwrap_or(""))?;
            for piece in &template {
                match piece {
                    Piece::Text(t) => append(rt, &mut out, t)?,
                    Piece::Group(n) => append(rt, &mut out, caps.get(*n).map_or("", |m| m.as_str()))?,
                }
            }
            last = whole.end();
        }
    } else {
        for m in compiled.find_iter(s) {
            rt.fuel(1)?;
            append(rt, &mut out, s.get(last..m.start()).unwrap_or(""))?;
            for piece in &template {
                match piece {
                    Piece::Text(t) => append(rt, &mut out, t)?,
                    Piece::Group(_) => append(rt, &mut out, m.as_str())?,
                }
            }
            last = m.end();
        }
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
/// Charges [`scan_fuel`], one fuel per separator, memory for the array
/// header, each slot and each string before it is built.
///
/// # Errors
/// Fuel or memory errors.
pub fn split(rt: &mut dyn Runtime, re: &Regex, s: &str) -> Result<Vec<Value>, Error> {
    charge_scan(rt, s)?;
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
        let len = v.map_or(0, str::len) as u64;
        rt.alloc(SLOT_BYTES + len)?;
        out.push(v.map_or(Value::Null, Value::from));
        Ok(())
    }
    let mut locs = compiled.capture_locations();
    let mut p = 0; // end of the last separator
    let mut q = 0; // where to search next
    while q < s.len() {
        let Some(m) = compiled.captures_read_at(&mut locs, s, q) else {
            break;
        };
        if m.start() >= s.len() {
            break;
        }
        if m.end() == p {
            // An empty match where the last piece ended: try one character on.
            q = m.start() + s.get(m.start()..).and_then(|t| t.chars().next()).map_or(1, char::len_utf8);
            continue;
        }
        rt.fuel(1)?;
        push(rt, &mut out, s.get(p..m.start()))?;
        for g in 1..locs.len() {
            push(rt, &mut out, locs.get(g).and_then(|(a, b)| s.get(a..b)))?;
        }
        p = m.end();
        q = if m.is_empty() {
            p + s.get(p..).and_then(|t| t.chars().next()).map_or(1, char::len_utf8)
        } else {
            p
        };
    }
    push(rt, &mut out, s.get(p..))?;
    Ok(out)
}

// ------------------------------------------------------------ built-ins

/// The string argument `what` of `name`, or a type error.
fn expect_str<'v>(name: &str, what: &str, v: &'v Value) -> Result<&'v str, Error> {
    v.as_str().ok_or_else(|| {
        Error::type_error(format_args!("{name} expects a string as {what}, got {}", v.type_name()))
    })
}

/// The pattern argument: a string (compiled with no flags through the
/// runtime's regex cache) or a regex value (used as is, with its flags).
fn pattern_arg(rt: &mut dyn Runtime, name: &str, v: &Value) -> Result<Arc<Regex>, Error> {
    match v {
        Value::String(p) => rt.regex(p, ""),
        Value::Regex(r) => Ok(Arc::clone(r)),
        other => Err(Error::type_error(format_args!(
            "{name} expects a string or regex as pattern, got {}",
            other.type_name()
        ))),
    }
}

fn fn_matches(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else { return Err(arity_bug("matches")) };
    let s = expect_str("matches", "first argument", s)?;
    let re = pattern_arg(rt, "matches", p)?;
    is_match(rt, &re, s).map(Value::Bool)
}

fn fn_match(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else { return Err(arity_bug("match")) };
    let s = expect_str("match", "first argument", s)?;
    let re = pattern_arg(rt, "match", p)?;
    find_value(rt, &re, s)
}

fn fn_match_all(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p] = args else { return Err(arity_bug("matchAll")) };
    let s = expect_str("matchAll", "first argument", s)?;
    let re = pattern_arg(rt, "matchAll", p)?;
    match_all_values(rt, &re, s)
}

fn fn_replace_pattern(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [s, p, r] = args else { return Err(arity_bug("replacePattern")) };
    let s = expect_str("replacePattern", "first argument", s)?;
    let re = pattern_arg(rt, "replacePattern", p)?;
    let r = expect_str("replacePattern", "replacement", r)?;
    replace_all(rt, &re, s, r).map(Value::from)
}

fn method_test(rt: &mut dyn Runtime, receiver: &Value, args: &[Value]) -> Result<Value, Error> {
    let Value::Regex(re) = receiver else {
        return Err(super::no_such_method("test", receiver));
    };
    let [s] = args else { return Err(arity_bug("test")) };
    let s = s.as_str().ok_or_else(|| {
        Error::type_error(format_args!("test expects a string argument, got {}", s.type_name()))
    })?;
    is_match(rt, re, s).map(Value::Bool)
}

/// Unreachable in practice: the registry checks arity before the call.
#[cold]
fn arity_bug(name: &str) -> Error {
    Error::new(ErrorKind::Arity, format!("Wrong number of arguments for '{name}'"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;

    fn re(p: &str) -> Regex {
        match compile(p, "") {
            Ok(r) => r,
            Err(e) => panic!("{p}: {e}"),
        }
    }

    #[test]
    fn compiles_basic() {
        assert!(re(r"\d+").compiled().is_match("a1"));
    }
}
