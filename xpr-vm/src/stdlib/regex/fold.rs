//! The work of case folding, bounded before a pattern is compiled (issue
//! 11, a fuzz finding).
//!
//! Under case-insensitive matching the `regex` crate's parser folds each
//! class code point by code point over every range that holds a cased
//! letter: `(?i)[\s\S]` or `(?i)\p{Any}` walks all 1.1 million code points
//! (20 to 50 ms in a release build) for a pattern of a few bytes, which the
//! compile charge (per pattern byte) did not see. [`fold_work`] counts the
//! code points of every class of a pattern that may be folded, from the
//! parser's syntax tree (cheap: no folding, no automaton), so that the
//! compiled size counts them ([`FOLD_BYTES_PER_CODE_POINT`]) before the
//! folding is done.

use regex_syntax::ast::{self, Ast};
use regex_syntax::hir::{Class, HirKind};

/// Compiled-size bytes counted per code point a class folds: the folding
/// takes 15 to 45 ns a code point (release build), a few fuel units, and
/// the compiled size is charged one fuel unit a byte at run time.
pub const FOLD_BYTES_PER_CODE_POINT: u64 = 2;

/// Code points (a negated class's ranges may include the surrogates).
const ALL_CODE_POINTS: u64 = 0x11_0000;

/// Code points the classes of `translated` (a pattern in the crate's
/// syntax) may fold, if the pattern is matched case-insensitively
/// anywhere (`case_insensitive`, or an inline `i` flag): the sum of each
/// class's size before negation (the parser folds, then negates). A
/// pattern the parser rejects counts 0 (it is not compiled).
pub(super) fn fold_work(translated: &str, case_insensitive: bool) -> u64 {
    let Ok(tree) = ast::parse::ParserBuilder::new()
        .nest_limit(super::NEST_LIMIT)
        .build()
        .parse(translated)
    else {
        return 0;
    };
    let mut folds = case_insensitive;
    let mut classes = Vec::new();
    let mut stack = vec![&tree];
    while let Some(node) = stack.pop() {
        match node {
            Ast::Flags(f) => folds |= sets_case_insensitive(&f.flags),
            Ast::Group(g) => {
                if let ast::GroupKind::NonCapturing(flags) = &g.kind {
                    folds |= sets_case_insensitive(flags);
                }
                stack.push(&g.ast);
            }
            Ast::Repetition(r) => stack.push(&r.ast),
            Ast::Concat(c) => stack.extend(c.asts.iter()),
            Ast::Alternation(a) => stack.extend(a.asts.iter()),
            Ast::ClassBracketed(c) => classes.push((c.span, c.negated)),
            Ast::ClassUnicode(c) => classes.push((c.span, c.negated)),
            Ast::ClassPerl(c) => classes.push((c.span, c.negated)),
            _ => {}
        }
    }
    if !folds {
        return 0;
    }
    classes
        .iter()
        .map(|(span, negated)| {
            let text = translated.get(span.start.offset..span.end.offset);
            let size = text.and_then(class_size).unwrap_or(ALL_CODE_POINTS);
            if *negated {
                ALL_CODE_POINTS.saturating_sub(size)
            } else {
                size
            }
        })
        .fold(0u64, u64::saturating_add)
}

/// Whether `flags` turn case-insensitive matching on.
fn sets_case_insensitive(flags: &ast::Flags) -> bool {
    let mut on = true;
    flags.items.iter().any(|item| match item.kind {
        ast::FlagsItemKind::Negation => {
            on = false;
            false
        }
        ast::FlagsItemKind::Flag(ast::Flag::CaseInsensitive) => on,
        _ => false,
    })
}

/// The code points of the class written `text` (translated alone, case
/// sensitively: no folding), or `None` if it does not translate alone.
fn class_size(text: &str) -> Option<u64> {
    let hir = regex_syntax::ParserBuilder::new()
        .nest_limit(super::NEST_LIMIT)
        .build()
        .parse(text)
        .ok()?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => Some(
            c.ranges()
                .iter()
                .map(|r| u64::from(r.end()) - u64::from(r.start()) + 1)
                .sum(),
        ),
        HirKind::Class(Class::Bytes(c)) => Some(c.ranges().len() as u64 * 256),
        _ => Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_classes_a_case_insensitive_pattern_folds() {
        // Nothing folds without case insensitivity.
        assert_eq!(fold_work(r"[\s\S]\p{Any}", false), 0);
        // The whole range, folded code point by code point.
        assert!(fold_work(r"[\s\S]", true) >= 1_000_000);
        assert!(fold_work(r"(?i:\p{Any}\p{Any}.a)", false) >= 2_000_000);
        assert!(fold_work(r"x(?i)\p{Any}", false) >= 1_000_000);
        // A negated class is folded before it is negated: `[^a]` folds one.
        assert_eq!(fold_work("[^a]", true), 1);
        assert_eq!(fold_work("[a-z]x", true), 26);
        assert!(fold_work(r"\pL", true) > 100_000);
        assert_eq!(fold_work("(?-i:[a-z])", false), 0);
        // Unparsable: counts nothing (it is refused later).
        assert_eq!(fold_work("(", true), 0);
    }
}
