//! Regex replacements (`replacePattern`, and the string method `replace`
//! with a regex pattern): [`replace_all`], which replaces every match, and
//! its replacement templates, expanded by JavaScript's rules (ECMAScript's
//! GetSubstitution). In a template, `$` starts a reference:
//!
//! - `$$` is one `$`;
//! - `$&` is the match, `` $` `` the input before the match and `$'` the
//!   input after it (always the whole input, never the result built so far);
//! - `$n` and `$nn` (`n` a digit) are capture group `n` or `nn`. Two digits
//!   name a group only when that group exists, else the reference is one
//!   digit followed by a literal digit (`$10` with one group is group 1 then
//!   `0`). `$0`, `$00` and a reference to a group that does not exist stay
//!   literal;
//! - `$<name>` is the named group `name` when the regex has named groups:
//!   the name runs to the next `>` in the template, a name that is not one
//!   of the regex's gives `""`, and `$<` with no `>` after it stays
//!   literal. When the regex has no named groups, `$<` is always literal
//!   (`$<x>` stays `$<x>`);
//! - a `$` before anything else (`${x}`, `$a`, a final `$`) is literal.
//!
//! A group that did not take part in the match gives `""`. Offsets are the
//! `regex` crate's match offsets, which always fall between characters, so
//! the text before and after a match is cut at characters (never inside a
//! UTF-8 sequence, nor between the halves of a UTF-16 surrogate pair as
//! JavaScript may).
//!
//! # Fuel and memory
//! [`replace_all`] charges `bytes / 16` for parsing a template. Each expansion
//! costs [`PIECE_FUEL`] per piece of the parsed template (a run of literal
//! text or one reference) plus `bytes / 16` of the text it produces, and
//! that text's bytes of memory are charged (through [`Runtime::alloc`])
//! before anything is appended. The per-piece price matters for templates
//! of many references that produce little (`"$&".repeat(5000)` over the
//! empty matches of `""`): measured in a release build, a piece costs
//! 10-20 ns per match whatever it produces.

use std::collections::HashMap;

use super::SCAN_BYTES_PER_FUEL;
use super::engine::{Engine, Locations};
use super::matching::{captures_at, charge_scan, next_char, rescan_fuel};
use crate::error::Error;
use crate::runtime::Runtime;
use crate::value::Regex;

/// Fuel per piece of a template, per match.
pub const PIECE_FUEL: u64 = 1;

/// One piece of a parsed template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'t> {
    /// Literal text.
    Text(&'t str),
    /// `$&`: the match.
    Match,
    /// `` $` ``: the input before the match.
    Before,
    /// `$'`: the input after the match.
    After,
    /// `$n`, `$nn`, `$<name>`: a capture group that exists (1 or more).
    Group(usize),
}

/// A replacement template parsed for one regex.
#[derive(Debug)]
pub(super) struct Template<'t> {
    pieces: Vec<Piece<'t>>,
}

/// The digit at `b`, if it is one.
fn digit(b: Option<&u8>) -> Option<usize> {
    b.filter(|b| b.is_ascii_digit())
        .map(|&b| usize::from(b - b'0'))
}

/// The group a numbered reference whose first digit is at `t[at]` names,
/// with the digits it takes, or `None` when it names no group (then `$`
/// and the first digit are literal).
fn numbered(t: &[u8], at: usize, groups: usize) -> Option<(usize, usize)> {
    let first = digit(t.get(at))?;
    if let Some(second) = digit(t.get(at + 1)) {
        let n = first * 10 + second;
        if (1..=groups).contains(&n) {
            return Some((n, 2));
        }
    }
    (1..=groups).contains(&first).then_some((first, 1))
}

/// Finds the first `>` at or after `from`, remembering the last answer so
/// that a template full of `$<` without `>` is scanned once, not once per
/// `$<` (the positions asked about only grow).
struct CloseFinder {
    found: Option<Option<usize>>,
}

impl CloseFinder {
    fn find(&mut self, t: &[u8], from: usize) -> Option<usize> {
        match self.found {
            Some(None) => return None,
            Some(Some(p)) if p >= from => return Some(p),
            _ => {}
        }
        let found = t
            .get(from..)
            .and_then(|rest| rest.iter().position(|&b| b == b'>'))
            .map(|p| p + from);
        self.found = Some(found);
        found
    }
}

impl<'t> Template<'t> {
    /// Parses `template` for `re` (its group count and group names decide
    /// what `$nn` and `$<name>` mean). Linear in the template's length and
    /// the regex's group count; the caller charges for it.
    pub(super) fn parse(template: &'t str, re: &Engine) -> Self {
        let t = template.as_bytes();
        let groups = re.group_len().saturating_sub(1);
        let has_names = re.group_names().any(|n| n.is_some());
        let mut names: Option<HashMap<&str, usize>> = None;
        let mut close = CloseFinder { found: None };
        let mut pieces = Vec::new();
        let mut literal = 0; // start of the literal text not yet pushed
        let mut i = 0;
        while i < t.len() {
            if t.get(i) != Some(&b'$') {
                i += 1;
                continue;
            }
            // `Some(piece)` and the bytes it takes; `None` for a reference
            // that gives nothing (a name the regex does not have).
            let (piece, len) = match t.get(i + 1) {
                Some(b'$') => (Some(Piece::Text("$")), 2),
                Some(b'&') => (Some(Piece::Match), 2),
                Some(b'`') => (Some(Piece::Before), 2),
                Some(b'\'') => (Some(Piece::After), 2),
                Some(b'0'..=b'9') => match numbered(t, i + 1, groups) {
                    Some((n, digits)) => (Some(Piece::Group(n)), 1 + digits),
                    None => {
                        i += 2;
                        continue;
                    }
                },
                Some(b'<') if has_names => match close.find(t, i + 2) {
                    Some(end) => {
                        let name = template.get(i + 2..end).unwrap_or_default();
                        let names = names.get_or_insert_with(|| {
                            re.group_names()
                                .enumerate()
                                .filter_map(|(k, n)| n.map(|n| (n, k)))
                                .collect()
                        });
                        (names.get(name).map(|&k| Piece::Group(k)), end + 1 - i)
                    }
                    None => {
                        i += 2;
                        continue;
                    }
                },
                Some(b'<') => {
                    i += 2;
                    continue;
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            if let Some(text) = template.get(literal..i)
                && !text.is_empty()
            {
                pieces.push(Piece::Text(text));
            }
            pieces.extend(piece);
            i += len;
            literal = i;
        }
        if let Some(text) = template.get(literal..)
            && !text.is_empty()
        {
            pieces.push(Piece::Text(text));
        }
        Template { pieces }
    }

    /// Whether expanding needs the capture groups' offsets (a `$n` or a
    /// `$<name>` that names a group), not only the match's.
    pub(super) fn needs_groups(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Group(_)))
    }

    /// The text of `piece` for the match `hay[start..end]` whose groups are
    /// in `locs` (read only for [`Piece::Group`]).
    fn text<'h>(
        piece: &Piece<'t>,
        hay: &'h str,
        start: usize,
        end: usize,
        locs: &Locations,
    ) -> &'h str
    where
        't: 'h,
    {
        match *piece {
            Piece::Text(t) => t,
            Piece::Match => hay.get(start..end).unwrap_or_default(),
            Piece::Before => hay.get(..start).unwrap_or_default(),
            Piece::After => hay.get(end..).unwrap_or_default(),
            Piece::Group(n) => locs
                .get(n)
                .and_then(|(a, b)| hay.get(a..b))
                .unwrap_or_default(),
        }
    }

    /// Appends the expansion for the match `hay[start..end]` to `out`. When
    /// [`Template::needs_groups`], `locs` must hold that match's groups.
    /// Charges [`PIECE_FUEL`] per piece, then `bytes / 16` fuel and the bytes of
    /// memory of the text produced, before appending it.
    ///
    /// # Errors
    /// Fuel or memory errors.
    pub(super) fn expand(
        &self,
        rt: &mut dyn Runtime,
        out: &mut String,
        hay: &str,
        (start, end): (usize, usize),
        locs: &Locations,
    ) -> Result<(), Error> {
        rt.fuel((self.pieces.len() as u64).saturating_mul(PIECE_FUEL))?;
        let len = self.pieces.iter().fold(0u64, |sum, p| {
            sum.saturating_add(Self::text(p, hay, start, end, locs).len() as u64)
        });
        rt.fuel(len / SCAN_BYTES_PER_FUEL)?;
        rt.alloc(len)?;
        for p in &self.pieces {
            out.push_str(Self::text(p, hay, start, end, locs));
        }
        Ok(())
    }
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
/// plus the expansion's fuel ([`capture_fuel`] too when the template
/// names groups), and, for every piece of the result, its bytes
/// of memory (before appending) and bytes / 16 fuel.
///
/// # Errors
/// Fuel or memory errors.
///
/// [`scan_fuel`]: super::scan_fuel
/// [`capture_fuel`]: super::capture_fuel
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
    let mut locs = compiled.locations();
    let mut pos = Some(0);
    while let Some(at) = pos {
        rt.fuel(rescan_fuel(re, s, at))?;
        let found = if needs_groups {
            captures_at(rt, re, s, at, &mut locs)?
        } else {
            compiled.find_at(rt, s, at)?
        };
        let Some((start, end)) = found else { break };
        rt.fuel(1)?;
        append(rt, &mut out, s.get(last..start).unwrap_or(""))?;
        template.expand(rt, &mut out, s, (start, end), &locs)?;
        last = end;
        pos = if start == end {
            next_char(s, end)
        } else {
            Some(end)
        };
    }
    append(rt, &mut out, s.get(last..).unwrap_or(""))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::compile;
    use super::*;
    use crate::error::ErrorKind;
    use crate::stdlib::testing::TestRuntime;

    fn replace(p: &str, hay: &str, rep: &str) -> String {
        let re = match compile(p, "") {
            Ok(r) => r,
            Err(e) => panic!("{p}: {e}"),
        };
        let mut rt = TestRuntime::default();
        match replace_all(&mut rt, &re, hay, rep) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        }
    }

    fn pieces<'t>(template: &'t str, p: &str) -> Vec<Piece<'t>> {
        let re = compile(p, "").unwrap_or_else(|e| panic!("{e}"));
        Template::parse(template, re.compiled()).pieces
    }

    #[test]
    fn numbered_references() {
        assert_eq!(replace(r"(\w)(\w)", "ab", "$2$1"), "ba");
        assert_eq!(
            replace(r"(\w)", "ab", "$1a"),
            "aaba",
            "$1a is group 1 then 'a'"
        );
        assert_eq!(replace("(a)", "adf", "$1s"), "asdf");
        assert_eq!(replace(r"(b)", "abc", "[$10]"), "a[b0]c", "$10, one group");
        assert_eq!(replace(r"(b)", "abc", "[$01]"), "a[b]c");
        assert_eq!(replace(r"(b)", "abc", "[$010]"), "a[b0]c");
        assert_eq!(replace(r"b", "abc", "[$1]"), "a[$1]c", "no such group");
        assert_eq!(replace(r"b", "abc", "[$10]"), "a[$10]c");
        assert_eq!(replace(r"b", "abc", "[$0]"), "a[$0]c");
        assert_eq!(replace(r"(b)", "abc", "[$00]"), "a[$00]c");
        assert_eq!(replace(r"(b)", "abc", "[$0$1]"), "a[$0b]c");
        // `$05` with three groups: 5 is no group, nor is 0.
        assert_eq!(replace(r"(b)()()", "abc", "[$05]"), "a[$05]c");
        assert_eq!(replace(r"(b)", "abc", "[$2]"), "a[$2]c");
        let twelve = "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)";
        assert_eq!(replace(twelve, "abcdefghijkl", "$12$11$10$9"), "lkji");
        assert_eq!(replace(twelve, "abcdefghijkl", "$13"), "a3");
        assert_eq!(replace(twelve, "abcdefghijkl", "$012"), "a2");
        let hundred = "()".repeat(99) + "(x)";
        assert_eq!(replace(&hundred, "x", "[$99][$100]"), "[][0]");
        // A group that did not participate gives "".
        assert_eq!(replace(r"(x)?b", "abc", "[$1]"), "a[]c");
        // Named groups are numbered too.
        assert_eq!(replace(r"(?P<n>b)(c)", "abc", "$2$1"), "acb");
    }

    #[test]
    fn match_before_after_and_dollar() {
        assert_eq!(replace(r"b", "abc", "[$$]"), "a[$]c");
        assert_eq!(replace(r"b", "abc", "[$$1]"), "a[$1]c");
        assert_eq!(replace(r"b", "abc", "[$$$&]"), "a[$b]c");
        assert_eq!(replace(r"b", "abc", "[$&$&]"), "a[bb]c");
        assert_eq!(replace(r"b", "abc", "[$`|$']"), "a[a|c]c");
        assert_eq!(
            replace("é", "Ninguém!", "[$&|$`|$']"),
            "Ningu[é|Ningu|m!]m!"
        );
        assert_eq!(replace("😀", "a😀b😀c", "<$`>"), "a<a>b<a😀b>c");
        assert_eq!(replace("😀", "a😀b😀c", "<$'>"), "a<b😀c>b<c>c");
        // Before and after come from the input, not from the result so far.
        assert_eq!(replace("x", "axbxc", "$`"), "aabaxbc");
        // Empty matches: before and after split the input at each position.
        assert_eq!(replace("", "ab", "[$`|$']"), "[|ab]a[a|b]b[ab|]");
        assert_eq!(replace("", "", "[$`|$'|$&]"), "[||]");
        assert_eq!(replace("$", "ab", "$'"), "ab");
        assert_eq!(replace("^", "ab", "$'"), "abab");
        // A lone `$`, `${...}` and `$` before another character stay.
        assert_eq!(replace(r"b", "abc", "$"), "a$c");
        assert_eq!(replace(r"b", "abc", "x$"), "ax$c");
        assert_eq!(replace(r"(b)", "abc", "${1}$a$-$ $é"), "a${1}$a$-$ $éc");
        assert_eq!(replace(r"b", "abc", "é$&é"), "aébéc");
        assert_eq!(replace(r"b", "abc", "$$$"), "a$$c");
    }

    #[test]
    fn named_references() {
        let p = r"(?P<y>\d{4})-(?<m>\d\d)";
        assert_eq!(replace(p, "2024-01", "$<m>/$<y>"), "01/2024");
        // A name the regex does not have gives "".
        assert_eq!(replace(p, "2024-01", "[$<d>]"), "[]");
        assert_eq!(replace(p, "2024-01", "[$<>]"), "[]");
        // No `>` after `$<`: literal.
        assert_eq!(replace(p, "2024-01", "[$<m"), "[$<m");
        // The name runs to the first `>`, whatever is between.
        assert_eq!(replace(p, "2024-01", "[$<m$1>]"), "[]");
        assert_eq!(replace(p, "2024-01", "$<m>$<m"), "01$<m");
        // A named group that did not participate gives "".
        assert_eq!(replace(r"(?<a>x)?b", "abc", "[$<a>]"), "a[]c");
        // Without named groups, `$<` is literal and the rest is read on.
        assert_eq!(replace(r"(b)", "abc", "[$<n>]"), "a[$<n>]c");
        assert_eq!(replace(r"b", "abc", "[$<$&>]"), "a[$<b>]c");
        // `${name}` and `$name` are not references.
        assert_eq!(replace(p, "2024-01", "${m}$m"), "${m}$m");
    }

    #[test]
    fn parsing_merges_literal_text() {
        use Piece::*;
        assert_eq!(pieces("abc", "(b)"), vec![Text("abc")]);
        assert_eq!(
            pieces("x$1y$&$`$'$9", "(b)"),
            vec![
                Text("x"),
                Group(1),
                Text("y"),
                Match,
                Before,
                After,
                Text("$9")
            ]
        );
        assert_eq!(pieces("$<a>", "(?<a>b)"), vec![Group(1)]);
        assert_eq!(pieces("[$<b>]", "(?<a>b)"), vec![Text("["), Text("]")]);
        let re = compile("(b)(?<n>c)", "").unwrap_or_else(|e| panic!("{e}"));
        let re = re.compiled();
        assert!(!Template::parse("$&$`$'$$$3$<x>", re).needs_groups());
        assert!(Template::parse("$1", re).needs_groups());
        assert!(Template::parse("$<n>", re).needs_groups());
    }

    #[test]
    fn many_open_names_parse_in_linear_time() {
        // 200,000 `$<` with no `>`: one scan for `>`, not one per `$<`.
        let template = "$<".repeat(200_000);
        assert_eq!(pieces(&template, "(?<a>b)"), vec![Piece::Text(&template)]);
    }

    #[test]
    fn fuel_and_memory_follow_the_text_produced() {
        let re = compile("b", "").unwrap_or_else(|e| panic!("{e}"));
        let hay = format!("{}b{}", "a".repeat(1600), "c".repeat(1600));
        // `$'$``: 3,200 bytes for the one match, charged before appending.
        let mut rt = TestRuntime::default();
        let got = replace_all(&mut rt, &re, &hay, "$'$`").ok();
        assert_eq!(got.map(|s| s.len()), Some(6_400));
        assert_eq!(rt.bytes_used, 6_400);
        assert!(rt.fuel_used >= 3_200 / 16 + 3_200 / 16);
        let mut limited = TestRuntime {
            memory_limit: Some(5_000),
            ..TestRuntime::default()
        };
        match replace_all(&mut limited, &re, &hay, "$'$`") {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
            Ok(_) => panic!("memory not charged"),
        }
        // An empty regex over 10,000 bytes with `$``: the output grows with
        // the square of the input; the memory budget stops it.
        let empty = compile("", "").unwrap_or_else(|e| panic!("{e}"));
        let mut limited = TestRuntime {
            memory_limit: Some(1 << 20),
            ..TestRuntime::default()
        };
        match replace_all(&mut limited, &empty, &"a".repeat(10_000), "$`") {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
            Ok(_) => panic!("memory not charged"),
        }
        // Many pieces producing nothing still cost fuel per match: 101
        // empty matches, 1,600 pieces each.
        let template = "$&".repeat(1_600);
        let mut rt = TestRuntime::default();
        assert!(replace_all(&mut rt, &empty, &"a".repeat(100), &template).is_ok());
        assert!(rt.fuel_used >= 101 * 1_600, "{}", rt.fuel_used);
        let mut tight = TestRuntime {
            fuel_limit: Some(1_000_000),
            ..TestRuntime::default()
        };
        match replace_all(&mut tight, &empty, &"a".repeat(100_000), &template) {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Fuel),
            Ok(_) => panic!("pieces not charged"),
        }
    }
}
