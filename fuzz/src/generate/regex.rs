//! Regex patterns (as literals and as strings, some built at run time) and
//! calls of every regex built-in with them.
//!
//! Patterns are generated as text from pieces that are each valid inside a
//! regex literal (no newline, no `/` outside a class, no trailing `\`), so
//! the printed literal lexes back as generated; some pieces are invalid
//! regex on purpose (JavaScript-only syntax, bad ranges, counts over the
//! limits) to reach the compile errors.

use arbitrary::{Result, Unstructured};
use xpr_syntax::ast::{BinaryOp, Expr};

use super::build::{binary, call, ident, lambda, let_in, member, method, num, regex, string};
use super::{big, expr, one_in, pick};

/// Single characters and escapes.
const ATOMS: &[&str] = &[
    "a",
    "b",
    "x",
    "é",
    "😀",
    "\\.",
    "\\/",
    "-",
    "0",
    "\\n",
    "\\t",
    " ",
    ",",
    "\\$",
    "\\\\",
    "\\u00e9",
    "\\x{1F600}",
    "\\0",
];
/// Classes, anchors and other zero- or one-character matchers.
const CLASSES: &[&str] = &[
    ".",
    "^",
    "$",
    "\\d",
    "\\w",
    "\\s",
    "\\D",
    "\\W",
    "\\S",
    "\\b",
    "\\B",
    "\\A",
    "\\z",
    "\\pL",
    "\\PL",
    "\\p{Lu}",
    "\\p{Greek}",
    "\\p{Han}",
    "\\pN",
    "\\p{Any}",
    "[a-z]",
    "[^0-9]",
    "[/]",
    "[^/]",
    "[\\d\\s]",
    "[^\\w]",
    "[é-ü]",
    "[\\pL\\d]",
    "[[:alpha:]]",
    "[^\\n]",
    "[\\p{Greek}\\p{Han}]",
    "[ab]",
];
/// Syntax the engine rejects (JavaScript-only, RE2-unsupported, wrong),
/// used in one pattern out of ten.
const INVALID: &[&str] = &[
    "\\cA",
    "\\k<n1>",
    "\\1",
    "\\p{Nope}",
    "[x-a]",
    "[a-c&&b]",
    "[]",
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?x)",
    "(",
    ")",
    "*",
    "a**",
    "{2}",
    "(?P<n1>a)(?P<n1>b)",
];
/// Group openings (closed by `)`).
const OPEN: &[&str] = &[
    "(", "(", "(?:", "(?:", "(?<n1>", "(?P<n2>", "(?i:", "(?s:", "(?m:", "(?-i:", "(?U:",
];
/// Inline flags, at the start of a group or the pattern.
const INLINE: &[&str] = &["(?i)", "(?s)", "(?m)", "(?U)", "(?is)", "(?-s)"];
/// Repetition counts: small ones, large ones up to the limit (1000 for a
/// count, also as a product of nested counts; 1 MiB of compiled
/// program), and, in one pattern out of ten, over it.
const COUNTS: &[u32] = &[
    0, 1, 2, 3, 7, 0, 1, 2, 24, 30, 100, 200, 255, 500, 999, 1000,
];
const OVER_COUNTS: &[u32] = &[1001, 5000, 65535, 4_294_967_295];
/// Whole patterns that compile but are costly to compile or to scan
/// with (the scan-cost estimate's cases), or near the size limits.
const HARD: &[&str] = &[
    "(?i)\\pL{24}",
    "\\pL{24}",
    "a\\w{30}c",
    "a.{30}c",
    "a[ab]{500}b",
    "\\w*a\\w{200}c",
    "\\w*b|a",
    "a^",
    "[a-c1]^",
    "\\s\\A",
    "((a{10}){10}){10}",
    "(?:a|b|c|d|e)*x",
    "(x+x+)+y",
    "(?i)[\\p{Greek}\\p{Cyrillic}]{100}",
    "(\\w+\\s?)*$",
    "[\\s\\S]{1000}",
    "(?s).{1000}",
    "$",
];
/// Whole patterns the engine rejects, for the pattern out of ten that
/// may be invalid.
const HARD_INVALID: &[&str] = &[
    "(a{100}){100}",
    "(\\pL{50}|\\pN{50}){20}",
    "(?i)[\\p{Greek}\\p{Cyrillic}]{1000}",
    "(?i)\\pL{1000}",
    "a{2,1}",
    "",
];
/// Replacement templates: every `$` form, existing and missing groups.
const REPLACEMENTS: &[&str] = &[
    "", "-", "$1", "$2", "$&", "$$", "$`", "$'", "$<n1>", "$<nope>", "$10", "$01", "$0", "$",
    "a$2b$", "[$1|$&]", "$$1", "$<n1", "😀$'",
];
/// Subjects for the patterns.
const SUBJECTS: &[&str] = &[
    "",
    "aaa",
    "a1b22c333",
    "héllo wörld 😀",
    "line one\nline two\r\n",
    "$1 & $2",
    "2024-01-31",
    "ΑΒΓ абв 漢字",
    "a,b,,c,",
];

/// A pattern text, `depth` levels of nesting at most. One pattern out of
/// ten may contain invalid syntax or counts over the limits.
pub fn pattern(u: &mut Unstructured, depth: u32) -> Result<String> {
    let bad = one_in(u, 10)?;
    let mut out = String::new();
    if one_in(u, 8)? {
        out.push_str(pick(u, INLINE)?);
    }
    if one_in(u, 6)? {
        out.push_str(pick(u, if bad { HARD_INVALID } else { HARD })?);
    } else {
        node(u, depth, bad, &mut out)?;
    }
    if out.is_empty() {
        out.push('a');
    }
    Ok(out)
}

fn node(u: &mut Unstructured, depth: u32, bad: bool, out: &mut String) -> Result<()> {
    let choice = if depth == 0 {
        u.int_in_range(0..=1)?
    } else {
        u.int_in_range(0..=6)?
    };
    match choice {
        0 => out.push_str(pick(u, ATOMS)?),
        1 if bad && one_in(u, 3)? => out.push_str(pick(u, INVALID)?),
        1 => out.push_str(pick(u, CLASSES)?),
        2 => {
            out.push_str(pick(u, OPEN)?);
            node(u, depth - 1, bad, out)?;
            out.push(')');
        }
        3 | 4 => {
            for _ in 0..u.int_in_range(2..=4)? {
                node(u, depth - 1, bad, out)?;
            }
        }
        5 => {
            node(u, depth - 1, bad, out)?;
            out.push('|');
            node(u, depth - 1, bad, out)?;
        }
        _ => {
            // Repetition of a group, so the quantifier applies to all of it.
            out.push_str("(?:");
            node(u, depth - 1, bad, out)?;
            out.push(')');
            quantifier(u, bad, out)?;
        }
    }
    Ok(())
}

fn quantifier(u: &mut Unstructured, bad: bool, out: &mut String) -> Result<()> {
    let n = |u: &mut Unstructured| -> Result<u32> {
        Ok(if bad && one_in(u, 2)? {
            *u.choose(OVER_COUNTS)?
        } else {
            *u.choose(COUNTS)?
        })
    };
    let q = match u.int_in_range(0..=9)? {
        0 | 1 => "*".to_string(),
        2 | 3 => "+".to_string(),
        4 => "?".to_string(),
        5 | 6 => format!("{{{}}}", n(u)?),
        7 => format!("{{{},}}", n(u)?),
        8 => {
            let (a, b) = (n(u)?, n(u)?);
            let (a, b) = if bad { (a, b) } else { (a.min(b), a.max(b)) };
            format!("{{{a},{b}}}")
        }
        _ => format!("{{,{}}}", n(u)?),
    };
    out.push_str(&q);
    if one_in(u, 4)? {
        out.push('?');
    }
    Ok(())
}

/// A subset of `ims`, in that order.
pub fn flags(u: &mut Unstructured) -> Result<String> {
    let mut f = String::new();
    for c in ['i', 'm', 's'] {
        if one_in(u, 3)? {
            f.push(c);
        }
    }
    Ok(f)
}

/// A regex literal with a generated pattern and flags.
pub fn literal(u: &mut Unstructured) -> Result<Expr> {
    let p = pattern(u, 3)?;
    Ok(regex(&p, &flags(u)?))
}

/// A regex value: mostly a literal, sometimes any expression.
fn regex_value(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    if depth > 0 && one_in(u, 6)? {
        expr(u, depth - 1)
    } else {
        literal(u)
    }
}

/// A pattern string built at run time: concatenation, a repeated piece,
/// a count spliced in.
fn runtime_pattern(u: &mut Unstructured) -> Result<Expr> {
    let p = pattern(u, 2)?;
    Ok(match u.int_in_range(0..=3)? {
        0 => string(&p),
        1 => method(
            string(&p),
            "repeat",
            vec![num(f64::from(*u.choose(COUNTS)?))],
        ),
        2 => binary(
            BinaryOp::Add,
            binary(
                BinaryOp::Add,
                string(&format!("(?:{p}){{")),
                num(f64::from(*u.choose(COUNTS)?)),
            ),
            string("}"),
        ),
        _ => binary(BinaryOp::Add, string(&p), string(pick(u, ATOMS)?)),
    })
}

/// The pattern argument of a global regex function: a regex or a string.
fn pattern_arg(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    match u.int_in_range(0..=3)? {
        0 | 1 => regex_value(u, depth),
        2 => runtime_pattern(u),
        _ => Ok(string(&pattern(u, 2)?)),
    }
}

/// The subject string.
fn subject(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    Ok(match u.int_in_range(0..=5)? {
        0 if depth > 0 => expr(u, depth - 1)?,
        1 | 2 => string(pick(u, SUBJECTS)?),
        3 => ident(pick(u, &["s", "big", "huge", "bigu", "lines"])?),
        _ => big::long_string(u, depth.saturating_sub(1))?,
    })
}

/// A replacement template.
fn replacement(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    Ok(match u.int_in_range(0..=5)? {
        0 if depth > 0 => expr(u, depth - 1)?,
        1 => method(
            string(pick(u, REPLACEMENTS)?),
            "repeat",
            vec![num(f64::from(*u.choose(COUNTS)?))],
        ),
        _ => string(pick(u, REPLACEMENTS)?),
    })
}

/// A call of one of the regex built-ins (global functions, string methods
/// taking a regex, the regex method), or a regex used as a value.
pub fn call_expr(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    Ok(match u.int_in_range(0..=11)? {
        0 => call("matches", vec![subject(u, depth)?, pattern_arg(u, depth)?]),
        1 => call("match", vec![subject(u, depth)?, pattern_arg(u, depth)?]),
        2 => {
            let all = call("matchAll", vec![subject(u, depth)?, pattern_arg(u, depth)?]);
            if u.arbitrary()? {
                member(all, "length")
            } else {
                all
            }
        }
        3 => call(
            "replacePattern",
            vec![
                subject(u, depth)?,
                pattern_arg(u, depth)?,
                replacement(u, depth)?,
            ],
        ),
        4 => method(
            subject(u, depth)?,
            "replace",
            vec![pattern_arg(u, depth)?, replacement(u, depth)?],
        ),
        5 => method(subject(u, depth)?, "split", vec![pattern_arg(u, depth)?]),
        6 => method(regex_value(u, depth)?, "test", vec![subject(u, depth)?]),
        7 => method(subject(u, depth)?, "match", vec![regex_value(u, depth)?]),
        8 => {
            // Patterns built inside a callback: one compile per element
            // (through the VM's pattern cache).
            let p = pattern(u, 2)?;
            let built = binary(
                BinaryOp::Add,
                binary(BinaryOp::Add, string(&format!("(?:{p}){{")), ident("i")),
                string("}"),
            );
            let f = pick(u, &["matches", "match", "matchAll"])?;
            let body = call(f, vec![subject(u, 0)?, built]);
            method(
                call("range", vec![num(f64::from(*u.choose(COUNTS)?))]),
                "map",
                vec![lambda(&["i"], body)],
            )
        }
        9 => {
            // Regex values compared, deduplicated, printed.
            let r = regex_value(u, depth)?;
            let op = *u.choose(&[0, 1, 2, 3])?;
            let_in(
                "g",
                r,
                match op {
                    0 => binary(BinaryOp::Eq, ident("g"), literal(u)?),
                    1 => method(
                        e_array(vec![ident("g"), ident("g"), literal(u)?]),
                        "unique",
                        vec![],
                    ),
                    2 => call("string", vec![ident("g")]),
                    _ => call("type", vec![ident("g")]),
                },
            )
        }
        10 => {
            // Many literals in one program: each compiled with the program.
            let n = u.int_in_range(1..=8)?;
            let items = (0..n).map(|_| literal(u)).collect::<Result<Vec<_>>>()?;
            member(e_array(items), "length")
        }
        _ => {
            // The same pattern over every element of an array of strings.
            let f = pick(u, &["matches", "match", "replacePattern"])?;
            let mut args = vec![ident("x"), pattern_arg(u, depth)?];
            if f == "replacePattern" {
                args.push(replacement(u, depth)?);
            }
            method(
                big::long_array(u, depth.saturating_sub(1))?,
                "map",
                vec![lambda(&["x"], call(f, args))],
            )
        }
    })
}

fn e_array(items: Vec<Expr>) -> Expr {
    super::build::e(xpr_syntax::ast::ExprKind::Array(
        items
            .into_iter()
            .map(xpr_syntax::ast::Element::Expr)
            .collect(),
    ))
}
