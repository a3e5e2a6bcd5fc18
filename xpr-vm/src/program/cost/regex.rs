//! The fuel of the regex built-ins (`matches`, `match`, `matchAll`,
//! `replacePattern`, the regex method `test`, the string methods `match`,
//! `replace` and `split` with a regex), from what the VM charges (see
//! `stdlib::regex`), as a bound over the haystack's bytes `S`:
//!
//! - a scan, `1 + c·S/16` (`c` the regex's scan cost);
//! - a search (`find_at`, `is_match`), at most `2 + 2·G + 1 + c·S/16 +
//!   (S + 1)·q`: its fixed fuel, two attempts of the lazy DFA each charged
//!   for the cache bytes it grew, the retry's scan, and an NFA simulation
//!   over the rest of the haystack at `q` fuel a byte (one per NFA state).
//!   `G` ([`DFA_GROWTH_FUEL`]) is what one attempt can grow the cache by:
//!   the lazy DFA adds a state only when it fits in its capacity
//!   ([`DFA_SIZE_LIMIT`] a direction) and gives up otherwise, so its
//!   memory is at most that capacity plus the scratch space its last state
//!   computation took (a stack of NFA state ids and one state's encoding,
//!   each at most about twice the NFA's size, itself at most
//!   [`SIZE_LIMIT`]; four times that is taken). A big
//!   constant (about 50 million fuel a search): nothing smaller is proved,
//!   since a cold cache builds states for every byte it reads and a warm
//!   one builds none;
//! - every search after the first, `c·A/16` more, `A` the regex's
//!   lookahead when known, else `S`;
//! - matches and searches: positions only move forwards, so there are at
//!   most `S + 1` matches and `S + 2` searches (`split`: `2·S + 2`, since
//!   an empty match where the last piece ended moves on one character
//!   without a piece), and the matches, disjoint, hold at most `S` bytes;
//! - capture groups read (a `split` by a regex with groups, a template
//!   naming a group), 14 per search plus `max(3·c, q)` per byte of match.
//!
//! A pattern must be known: a regex literal (its scan cost, NFA size,
//! lookahead and groups are those compiled into the program), or a string
//! literal (compiled here as the VM compiles it, charged the cache
//! lookup, [`compile_fuel`] and one unit per compiled byte on every call:
//! a cache hit costs less). A pattern built at run time has no bound.

use std::sync::Arc;

use super::abs::Abs;
use super::poly::Poly;
use super::walk::{R, Walk};
use crate::error::Span;
use crate::format::BYTES_PER_FUEL;
use crate::stdlib::regex::{
    CACHE_BYTES_FUEL, CAPTURE_FUEL_PER_BYTE, CAPTURE_SEARCH_FUEL, DFA_SIZE_LIMIT,
    PIECE_FUEL as REGEX_PIECE_FUEL, SEARCH_FUEL, SIZE_LIMIT, compile_fuel, prepare,
};
use crate::value::Regex;
use crate::vm::{COMPILED_BYTES_PER_FUEL, REGEX_CACHE};

/// Bytes one lazy DFA attempt can grow its cache by, both directions: the
/// capacity of each plus scratch space bounded by four times the largest
/// NFA (see the module doc).
pub(super) const DFA_GROWTH_BYTES: u64 = 2 * (DFA_SIZE_LIMIT as u64 + 4 * SIZE_LIMIT as u64);

/// Fuel of one lazy DFA attempt's cache growth at most.
pub(super) const DFA_GROWTH_FUEL: u64 = DFA_GROWTH_BYTES * CACHE_BYTES_FUEL;

/// Fuel per piece of a replacement template, per match, and per match
/// replaced (`stdlib::regex::replacement`'s `PIECE_FUEL` and the unit
/// `replace_all` charges per match).
const TEMPLATE_PIECE_FUEL: u64 = 1;
const MATCH_FUEL: u64 = 1;

/// What the cost of searching with a regex depends on (the largest over
/// the regexes a value may be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Facts {
    /// Fuel per 16 bytes scanned (`Regex::scan_cost`).
    pub scan_cost: u64,
    /// Fuel per byte of an NFA simulation (`Engine::nfa_fuel_per_byte`).
    pub nfa: u64,
    /// Bytes a later search may read ahead; `None` when it may read the
    /// rest of the haystack (`Regex::rescans`).
    pub lookahead: Option<u64>,
    /// Capture groups beyond the match.
    pub groups: u64,
}

impl Facts {
    /// The facts of a compiled regex.
    pub fn of(re: &Regex) -> Facts {
        let e = re.compiled();
        Facts {
            scan_cost: u64::from(re.scan_cost()),
            nfa: e.nfa_fuel_per_byte(),
            lookahead: (!re.rescans()).then(|| re.lookahead()),
            groups: e.group_len().saturating_sub(1) as u64,
        }
    }

    /// Facts bounding both.
    pub fn join(&self, o: &Facts) -> Facts {
        Facts {
            scan_cost: self.scan_cost.max(o.scan_cost),
            nfa: self.nfa.max(o.nfa),
            lookahead: self.lookahead.zip(o.lookahead).map(|(a, b)| a.max(b)),
            groups: self.groups.max(o.groups),
        }
    }

    /// A scan of `s` bytes: `1 + c·s/16`.
    fn scan(&self, s: &Poly) -> Poly {
        Poly::num(1).add(&s.scale(self.scan_cost).per_sixteen())
    }

    /// One search over at most `s` bytes (see the module doc).
    fn search(&self, s: &Poly) -> Poly {
        Poly::num(SEARCH_FUEL + 2 * DFA_GROWTH_FUEL)
            .add(&self.scan(s))
            .add(&s.add(&Poly::num(1)).scale(self.nfa))
    }

    /// A search after the first: what it reads ahead, then the search.
    fn later_search(&self, s: &Poly) -> Poly {
        let ahead = match self.lookahead {
            Some(a) => Poly::num(a),
            None => s.clone(),
        };
        ahead
            .scale(self.scan_cost)
            .per_sixteen()
            .add(&self.search(s))
    }

    /// Capture fuel per byte of match.
    fn capture_per_byte(&self) -> u64 {
        CAPTURE_FUEL_PER_BYTE
            .saturating_mul(self.scan_cost)
            .max(self.nfa)
    }
}

/// A pattern argument: its facts and the fuel of obtaining the regex.
#[derive(Debug, Clone)]
pub(super) struct Pattern {
    facts: Facts,
    compile: u64,
}

impl Pattern {
    fn join(&self, o: &Pattern) -> Pattern {
        Pattern {
            facts: self.facts.join(&o.facts),
            compile: self.compile.max(o.compile),
        }
    }

    /// A pattern string compiled at run time: the cache lookup (compared
    /// with each cached pattern of its length), then a miss: reading and
    /// measuring it, then one unit per compiled byte. An invalid pattern
    /// stops the run after the first two.
    fn literal(text: &str) -> Pattern {
        let lookup = (REGEX_CACHE as u64).saturating_mul(text.len() as u64 / BYTES_PER_FUEL);
        let read = lookup.saturating_add(compile_fuel(text));
        let Ok(prepared) = prepare(text, "", u64::MAX) else {
            return Pattern {
                facts: Facts::minimal(),
                compile: read,
            };
        };
        let bytes = prepared.compiled_bytes();
        let compile = read.saturating_add(bytes / COMPILED_BYTES_PER_FUEL);
        match prepared.build() {
            Ok(re) => Pattern {
                facts: Facts::of(&re),
                compile,
            },
            Err(_) => Pattern {
                facts: Facts::minimal(),
                compile,
            },
        }
    }
}

impl Facts {
    /// The smallest facts (for a pattern that stops the run).
    fn minimal() -> Facts {
        Facts {
            scan_cost: 1,
            nfa: 1,
            lookahead: Some(0),
            groups: 0,
        }
    }
}

/// What a replacement template may do per match.
struct Template {
    /// Bytes of the template.
    bytes: Poly,
    /// Pieces at most.
    pieces: Poly,
    /// References to the match or a group (`$&`, `$1`, `$<n>`) at most:
    /// each adds at most the match's bytes.
    inner: Poly,
    /// References to the text around the match (`` $` ``, `$'`) at most:
    /// each adds at most the haystack's bytes.
    around: Poly,
    /// Whether it may name a group.
    groups: bool,
}

impl Template {
    fn of(r: &Abs, bytes: Poly) -> Template {
        match r.text_const() {
            Some(t) => {
                let dollars = t.matches('$').count() as u64;
                let around = (t.matches("$`").count() + t.matches("$'").count()) as u64;
                Template {
                    pieces: Poly::num(2 * dollars + 1),
                    inner: Poly::num(dollars),
                    around: Poly::num(around),
                    groups: t.contains('$'),
                    bytes,
                }
            }
            None => Template {
                pieces: bytes.add(&Poly::num(1)),
                inner: bytes.clone(),
                around: bytes.clone(),
                groups: true,
                bytes,
            },
        }
    }
}

impl Walk<'_> {
    /// The regexes `p` may be (and the pattern strings, when `strings`),
    /// joined; `None` when it may be neither (a type error).
    fn pattern(&mut self, p: &Abs, strings: bool, span: Span) -> R<Option<Pattern>> {
        if let Some(why) = &p.unknown {
            return Err(self.unbounded(format!("a regex pattern of unknown cost: {why}"), span));
        }
        if strings && !p.paths.is_empty() {
            return Err(self.unbounded(
                "a regex pattern read from the context: its compiled size is not known",
                span,
            ));
        }
        let mut out: Option<Pattern> = None;
        let Some(sh) = p.shape.as_deref() else {
            return Ok(None);
        };
        if sh.regex {
            let Some(f) = &sh.re else {
                return Err(self.unbounded("a regex of unknown cost", span));
            };
            out = Some(Pattern {
                facts: f.clone(),
                compile: 0,
            });
        }
        if strings && sh.string {
            let Some(text) = sh.text.clone() else {
                return Err(self.unbounded(
                    "a regex pattern built at run time: its compiled size is not known",
                    span,
                ));
            };
            let q = self.literal_pattern(&text);
            out = Some(match out {
                Some(o) => o.join(&q),
                None => q,
            });
        }
        Ok(out)
    }

    fn literal_pattern(&mut self, text: &Arc<str>) -> Pattern {
        if let Some(p) = self.patterns.get(text) {
            return p.clone();
        }
        let p = Pattern::literal(text);
        self.patterns.insert(text.clone(), p.clone());
        p
    }

    /// The regex built-in `name` (`method`: a method call, `args[0]` its
    /// receiver), when `args` may make it one: its fuel beyond the calling
    /// instruction's unit and its result.
    pub(super) fn regex_builtin(
        &mut self,
        name: &str,
        method: bool,
        args: &[Abs],
        span: Span,
    ) -> R<Option<(Poly, Abs)>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or_else(Abs::scalar);
        // (haystack, pattern, pattern strings compiled?, template)
        let (hay, pat, strings) = match (name, method) {
            ("matches" | "match" | "matchAll" | "replacePattern", false) => (arg(0), arg(1), true),
            ("test", true) => (arg(1), arg(0), false),
            ("match" | "split" | "replace", true) => (arg(0), arg(1), false),
            _ => return Ok(None),
        };
        let Some(p) = self.pattern(&pat, strings, span)? else {
            // Not a pattern: a type error (or the string method of that
            // name), before anything is charged.
            return Ok(Some((Poly::zero(), Abs::scalar())));
        };
        let s = self.bound(hay.bytes(), span)?;
        let f = &p.facts;
        let compile = Poly::num(p.compile);
        let searches = s.add(&Poly::num(2));
        let matches = s.add(&Poly::num(1));
        let text = || Abs::text(s.clone());
        let (cost, result) = match name {
            "matches" | "test" => (f.scan(&s).add(&f.search(&s)), Abs::scalar()),
            "match" => (f.scan(&s).add(&f.search(&s)), text()),
            "matchAll" => {
                let c = f
                    .scan(&s)
                    .add(&searches.mul(&f.later_search(&s)))
                    .add(&matches.scale(REGEX_PIECE_FUEL))
                    .add(&s.per_sixteen());
                (c, self.regex_array(matches.clone(), text(), span)?)
            }
            "split" => {
                let searches = s.scale(2).add(&Poly::num(2));
                let mut per = f.later_search(&s);
                let mut c = f.scan(&s).add(&matches.scale(REGEX_PIECE_FUEL));
                if f.groups > 0 {
                    per = per.add(&Poly::num(CAPTURE_SEARCH_FUEL));
                    c = c.add(&s.scale(f.capture_per_byte()));
                }
                let c = c.add(&searches.mul(&per));
                let items = matches.scale(f.groups.saturating_add(1));
                (c, self.regex_array(items, text(), span)?)
            }
            _ => {
                // replacePattern, replace: the template is the third value.
                let r = arg(2);
                let t = Template::of(&r, self.bound(r.bytes(), span)?);
                let groups = t.groups && f.groups > 0;
                let mut per = f.later_search(&s);
                let mut c = f.scan(&s).add(&t.bytes.per_sixteen());
                if groups {
                    per = per.add(&Poly::num(CAPTURE_SEARCH_FUEL));
                    c = c.add(&s.scale(f.capture_per_byte()));
                }
                // Per match: its unit and each piece's; the text produced
                // (literal text and references) and copied between.
                let produced = matches
                    .mul(&t.bytes)
                    .add(&t.inner.mul(&s))
                    .add(&t.around.mul(&s).mul(&matches));
                let c = c
                    .add(&searches.mul(&per))
                    .add(
                        &matches
                            .mul(&Poly::num(MATCH_FUEL).add(&t.pieces.scale(TEMPLATE_PIECE_FUEL))),
                    )
                    .add(&produced.per_sixteen())
                    .add(&s.per_sixteen());
                (c, Abs::text(s.add(&produced)))
            }
        };
        let cost = if strings { cost.add(&compile) } else { cost };
        Ok(Some((cost, result)))
    }

    fn regex_array(&self, len: Poly, elem: Abs, span: Span) -> R<Abs> {
        Abs::array(len, elem).map_err(|w| self.unbounded(w.to_string(), span))
    }
}
