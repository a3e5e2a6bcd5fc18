//! The built-ins as a list, for documentation: every global function and
//! every method of each receiver type, with its topic, arity, signature and
//! one-line meaning, read from the registration tables themselves (the
//! `sig` and `doc` of [`FunctionDef`] and [`MethodDef`]). The language card
//! (`xpr::card`) is written from it, so it cannot drift from what runs.

use super::{FunctionDef, MethodDef};
use crate::function::Arity;

/// What a built-in is about: the groups of the language card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Topic {
    /// Methods of strings.
    Strings,
    /// Methods of arrays, and `range`.
    Arrays,
    /// Methods of objects, and `fromEntries`.
    Objects,
    /// Math functions.
    Numbers,
    /// Date functions (dates are epoch milliseconds).
    Dates,
    /// Regex functions and the regex method `test`.
    Regex,
    /// Type names, conversions and predicates.
    Types,
}

impl Topic {
    /// Every topic, in the card's order.
    pub const ALL: [Topic; 7] = [
        Topic::Strings,
        Topic::Arrays,
        Topic::Objects,
        Topic::Numbers,
        Topic::Dates,
        Topic::Regex,
        Topic::Types,
    ];

    /// The topic's name in lower case (`"strings"`, `"regex"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Topic::Strings => "strings",
            Topic::Arrays => "arrays",
            Topic::Objects => "objects",
            Topic::Numbers => "numbers",
            Topic::Dates => "dates",
            Topic::Regex => "regex",
            Topic::Types => "types",
        }
    }
}

/// One built-in function or method, as documentation sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// The name it is called by.
    pub name: &'static str,
    /// For a method, its receiver's type as `type()` names it (`"string"`,
    /// `"array"`, `"object"`, `"regex"`); `None` for a global function.
    pub receiver: Option<&'static str>,
    /// Its group.
    pub topic: Topic,
    /// Accepted argument counts (a method's receiver not counted).
    pub arity: Arity,
    /// Parameters and result: see [`FunctionDef::sig`].
    pub sig: &'static str,
    /// One-line meaning: see [`FunctionDef::doc`].
    pub doc: &'static str,
}

/// The global function tables, in the registry's order, with their topics.
const FUNCTION_TABLES: [(Topic, &[FunctionDef]); 7] = [
    (Topic::Numbers, super::math::FUNCTIONS),
    (Topic::Types, super::types::FUNCTIONS),
    (Topic::Strings, super::string::FUNCTIONS),
    (Topic::Arrays, super::array::FUNCTIONS),
    (Topic::Objects, super::object::FUNCTIONS),
    (Topic::Regex, super::regex::FUNCTIONS),
    (Topic::Dates, super::date::FUNCTIONS),
];

/// The method tables, in the registry's order: receiver type, topic, table.
const METHOD_TABLES: [(&str, Topic, &[MethodDef]); 4] = [
    ("string", Topic::Strings, super::string::METHODS),
    ("array", Topic::Arrays, super::array::METHODS),
    ("object", Topic::Objects, super::object::METHODS),
    ("regex", Topic::Regex, super::regex::METHODS),
];

/// Every built-in: the global functions in registration order, then the
/// methods of strings, arrays, objects and regexes, each type's in
/// registration order. A name two types share (`slice`) or that is both
/// a function and a method (`match`, `min`) appears once per definition.
pub fn builtins() -> Vec<Builtin> {
    let functions = FUNCTION_TABLES.iter().flat_map(|&(topic, table)| {
        table.iter().map(move |d| Builtin {
            name: d.name,
            receiver: None,
            topic,
            arity: d.arity,
            sig: d.sig,
            doc: d.doc,
        })
    });
    let methods = METHOD_TABLES.iter().flat_map(|&(receiver, topic, table)| {
        table.iter().map(move |d| Builtin {
            name: d.name,
            receiver: Some(receiver),
            topic,
            arity: d.arity,
            sig: d.sig,
            doc: d.doc,
        })
    });
    functions.chain(methods).collect()
}

/// The argument counts a signature such as `(end) | (start, end, step?) ->
/// array` admits, as an arity; `None` when it is malformed (no ` -> `, a
/// parameter list not in parentheses, an optional or rest parameter before
/// a required one, alternatives whose counts leave a gap).
pub fn sig_arity(sig: &str) -> Option<Arity> {
    let (params, result) = sig.rsplit_once(" -> ")?;
    if result.trim().is_empty() {
        return None;
    }
    let mut lo = usize::MAX;
    let mut hi = 0usize;
    let mut rest = false;
    let mut alternatives = Vec::new();
    for alt in params.split(" | ") {
        let inner = alt.strip_prefix('(')?.strip_suffix(')')?;
        let mut required = 0usize;
        let mut optional = 0usize;
        let mut has_rest = false;
        for p in inner.split(", ").filter(|p| !p.is_empty()) {
            if has_rest {
                return None; // the rest parameter comes last
            }
            if p.starts_with("...") {
                has_rest = true;
            } else if p.ends_with('?') {
                optional += 1;
            } else if optional > 0 {
                return None; // a required parameter after an optional one
            } else {
                required += 1;
            }
        }
        lo = lo.min(required);
        hi = hi.max(required + optional);
        rest |= has_rest;
        alternatives.push((required, required + optional));
    }
    // Every count from lo to hi is admitted by some alternative.
    if (lo..=hi).any(|n| !alternatives.iter().any(|&(a, b)| (a..=b).contains(&n))) {
        return None;
    }
    let lo = u8::try_from(lo).ok()?;
    let hi = u8::try_from(hi).ok()?;
    Some(if rest {
        Arity::AtLeast(lo)
    } else if lo == hi {
        Arity::Exact(lo)
    } else {
        Arity::Range(lo, hi)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::{function_names, has_method, method_id, method_names, registry};
    use crate::value::Value;

    #[test]
    fn the_catalog_lists_exactly_the_registry() {
        let all = builtins();
        let functions: Vec<_> = all
            .iter()
            .filter(|b| b.receiver.is_none())
            .map(|b| b.name)
            .collect();
        assert_eq!(functions, function_names().collect::<Vec<_>>());
        let samples = [
            ("string", Value::from("s")),
            ("array", Value::array(vec![])),
            ("object", Value::object(crate::value::Map::default())),
            (
                "regex",
                Value::Regex(std::sync::Arc::new(
                    crate::stdlib::regex::compile("a", "").unwrap(),
                )),
            ),
        ];
        // Each (method, receiver type) the registry dispatches is listed once.
        let mut dispatched = 0;
        for name in method_names() {
            let id = method_id(name).unwrap();
            for (receiver, sample) in &samples {
                if has_method(id, sample) {
                    dispatched += 1;
                    let listed = all
                        .iter()
                        .filter(|b| b.name == name && b.receiver == Some(*receiver))
                        .count();
                    assert_eq!(listed, 1, "{receiver}.{name}");
                }
            }
        }
        let methods = all.iter().filter(|b| b.receiver.is_some()).count();
        assert_eq!(methods, dispatched);
        assert_eq!(registry().functions.len(), functions.len());
    }

    #[test]
    fn every_signature_matches_its_arity() {
        for b in builtins() {
            let who = format!(
                "{}{}",
                b.receiver.map_or(String::new(), |r| format!("{r}.")),
                b.name
            );
            assert_eq!(sig_arity(b.sig), Some(b.arity), "{who}: {}", b.sig);
        }
    }

    #[test]
    fn every_doc_is_one_short_line() {
        for b in builtins() {
            for text in [b.sig, b.doc] {
                assert!(!text.trim().is_empty(), "{}: empty", b.name);
                assert!(!text.contains('\n'), "{}: {text}", b.name);
                assert!(text.chars().count() <= 80, "{}: too long: {text}", b.name);
            }
        }
    }

    #[test]
    fn signatures_are_read_as_arities() {
        assert_eq!(sig_arity("() -> number"), Some(Arity::Exact(0)));
        assert_eq!(sig_arity("(a, b?) -> x"), Some(Arity::Range(1, 2)));
        assert_eq!(sig_arity("(a, b, ...more) -> x"), Some(Arity::AtLeast(2)));
        assert_eq!(
            sig_arity("(end) | (start, end, step?) -> array"),
            Some(Arity::Range(1, 3))
        );
        assert_eq!(sig_arity("(a?, b) -> x"), None);
        assert_eq!(sig_arity("(...a, b) -> x"), None);
        assert_eq!(sig_arity("(a) | (a, b, c) -> x"), None);
        assert_eq!(sig_arity("(a)"), None);
        assert_eq!(sig_arity("a -> x"), None);
    }
}
