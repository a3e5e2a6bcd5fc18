//! An `arbitrary`-driven generator of well-formed XPR ASTs, printed to
//! source with `xpr_syntax::print`, so the fuzzer reaches the compiler and
//! the VM instead of stopping at parse errors.
//!
//! Besides random trees over every kind of node, it builds two families of
//! targeted subtrees: regex patterns (literals with flags, pattern strings,
//! patterns built at run time) passed to every regex built-in
//! ([`regex`]), and large-string workloads: strings of millions of
//! characters, arrays of long strings, and the built-ins whose work grows
//! with their length ([`big`]).

mod big;
mod build;
mod regex;

use arbitrary::{Result, Unstructured};
use xpr_syntax::ast::{
    ArrayPattern, ArrayPatternElement, Arrow, BinaryOp, Element, Expr, ExprKind, LogicalOp, Name,
    ObjectPattern, ObjectPatternEntry, Pattern, Property, Span, UnaryOp,
};

use build::{e, name};

/// Names the context defines, plus some it does not and a restricted one.
const FIELDS: &[&str] = &[
    "n", "x", "s", "b", "z", "xs", "ss", "o", "items", "t", "missing", "PI", "big", "huge", "bigu",
    "lines", "bigs", "fmt",
];
/// Names generated bindings use.
const LOCALS: &[&str] = &["a", "c", "d", "e", "f", "g"];
/// Property names: some present in the context, some methods.
const PROPS: &[&str] = &["a", "b", "c", "name", "price", "length"];
/// Restricted property names: any use is a compile or access error, so
/// they come rarely (an error there ends the whole expression early).
const RESTRICTED: &[&str] = &["__proto__", "constructor", "prototype"];

/// Global functions.
const FUNCTIONS: &[&str] = &[
    "round",
    "floor",
    "abs",
    "min",
    "max",
    "sqrt",
    "log",
    "pow",
    "type",
    "int",
    "float",
    "string",
    "bool",
    "range",
    "fromEntries",
    "isNumber",
    "formatDate",
    "parseDate",
    "dateAdd",
    "dateDiff",
    "year",
    "matches",
    "match",
    "matchAll",
    "replacePattern",
    "random",
    "now",
];
/// Methods of every receiver type.
const METHODS: &[&str] = &[
    "map",
    "filter",
    "reduce",
    "find",
    "some",
    "every",
    "flatMap",
    "sort",
    "reverse",
    "includes",
    "indexOf",
    "slice",
    "join",
    "concat",
    "flat",
    "unique",
    "zip",
    "chunk",
    "groupBy",
    "sortBy",
    "take",
    "drop",
    "count",
    "sum",
    "avg",
    "compact",
    "partition",
    "keyBy",
    "min",
    "max",
    "first",
    "last",
    "keys",
    "values",
    "entries",
    "has",
    "len",
    "upper",
    "lower",
    "trim",
    "split",
    "replace",
    "repeat",
    "padStart",
    "charAt",
    "startsWith",
    "contains",
    "match",
    "test",
    "endsWith",
    "trimStart",
    "padEnd",
];
const STRINGS: &[&str] = &[
    "",
    "a",
    "b,c",
    "héllo",
    "😀x",
    "%Y",
    "yyyy-MM-dd",
    "days",
    "\\d+",
    "$1-$&",
    "2024-01-31",
    "$&$1$`",
    "(?i)\\pL{24}",
    "yyyy-MM-dd HH:mm:ss.SSS",
];
const REGEXES: &[(&str, &str)] = &[
    ("\\d+", ""),
    ("a|b", "i"),
    ("(\\w)(\\w)", "m"),
    ("^.*$", "s"),
    ("[/]", ""),
];

fn prop(u: &mut Unstructured) -> Result<&'static str> {
    if one_in(u, 64)? {
        pick(u, RESTRICTED)
    } else {
        pick(u, PROPS)
    }
}

/// True one time in `n`, and false when the input is used up: rare
/// branches (invalid or costly pieces, restricted names) stay rare
/// instead of becoming the default of every short input.
fn one_in(u: &mut Unstructured, n: u32) -> Result<bool> {
    Ok(u.int_in_range(1..=n)? == n)
}

fn pick<'a>(u: &mut Unstructured, xs: &'a [&'a str]) -> Result<&'a str> {
    Ok(*u.choose(xs)?)
}

/// Generates one expression and prints it.
///
/// # Errors
/// When the input bytes run out before anything is generated.
pub fn expression(u: &mut Unstructured) -> Result<String> {
    // A third of the expressions are a targeted subtree at the top, so
    // that they run instead of failing first on a random operand.
    let expr = match u.int_in_range(0..=5)? {
        4 => regex::call_expr(u, 4)?,
        5 => big::workload(u, 4)?,
        _ => expr(u, 6)?,
    };
    Ok(xpr_syntax::print(&expr))
}

fn number(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0..=6)? {
        0 => 0.0,
        1 => f64::from(u.int_in_range(-3i32..=100)?).abs(),
        2 => 0.5,
        3 => 1e9,
        4 => 2.0_f64.powi(53) + 2.0,
        5 => 1e-7,
        _ => f64::from(u.int_in_range(0u16..=2000)?),
    })
}

fn leaf(u: &mut Unstructured) -> Result<Expr> {
    Ok(match u.int_in_range(0..=7)? {
        0 => e(ExprKind::Null),
        1 => e(ExprKind::Bool(u.arbitrary()?)),
        2 | 3 => e(ExprKind::Number(number(u)?)),
        4 => e(ExprKind::String(pick(u, STRINGS)?.to_string())),
        5 => {
            if u.arbitrary()? {
                regex::literal(u)?
            } else {
                let (p, f) = *u.choose(REGEXES)?;
                e(ExprKind::Regex {
                    pattern: p.to_string(),
                    flags: f.to_string(),
                })
            }
        }
        6 => e(ExprKind::Ident(pick(u, LOCALS)?.to_string())),
        _ => e(ExprKind::Ident(pick(u, FIELDS)?.to_string())),
    })
}

fn boxed(u: &mut Unstructured, depth: u32) -> Result<Box<Expr>> {
    Ok(Box::new(expr(u, depth)?))
}

fn elements(u: &mut Unstructured, depth: u32) -> Result<Vec<Element>> {
    let n = u.int_in_range(0..=3)?;
    (0..n)
        .map(|_| {
            let x = expr(u, depth)?;
            Ok(if one_in(u, 5)? {
                Element::Spread(x, Span::default())
            } else {
                Element::Expr(x)
            })
        })
        .collect()
}

fn pattern(u: &mut Unstructured, depth: u32, used: &mut Vec<String>) -> Result<Pattern> {
    let fresh = |u: &mut Unstructured, used: &mut Vec<String>| -> Result<Name> {
        let candidates: Vec<&str> = LOCALS
            .iter()
            .copied()
            .filter(|l| !used.iter().any(|x| x == l))
            .collect();
        let n = if candidates.is_empty() {
            "h"
        } else {
            *u.choose(&candidates)?
        };
        used.push(n.to_string());
        Ok(name(n))
    };
    if depth == 0 || u.ratio(2, 3)? {
        return Ok(Pattern::Ident(fresh(u, used)?));
    }
    if u.arbitrary()? {
        let mut entries = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            let key = name(prop(u)?);
            let target = Pattern::Ident(fresh(u, used)?);
            let default = if one_in(u, 3)? { Some(leaf(u)?) } else { None };
            entries.push(ObjectPatternEntry {
                key,
                target,
                default,
                shorthand: false,
            });
        }
        let rest = if one_in(u, 4)? {
            Some(fresh(u, used)?)
        } else {
            None
        };
        Ok(Pattern::Object(ObjectPattern {
            entries,
            rest,
            span: Span::default(),
        }))
    } else {
        let mut elements = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            let target = pattern(u, depth - 1, used)?;
            let default = if one_in(u, 3)? { Some(leaf(u)?) } else { None };
            elements.push(ArrayPatternElement { target, default });
        }
        let rest = if one_in(u, 4)? {
            Some(fresh(u, used)?)
        } else {
            None
        };
        Ok(Pattern::Array(ArrayPattern {
            elements,
            rest,
            span: Span::default(),
        }))
    }
}

fn arrow(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    let mut used = Vec::new();
    let params = (0..u.int_in_range(0..=2)?)
        .map(|_| pattern(u, 1, &mut used))
        .collect::<Result<Vec<_>>>()?;
    let rest = if one_in(u, 6)? { Some(name("r")) } else { None };
    let body = expr(u, depth)?;
    Ok(e(ExprKind::Arrow(Box::new(Arrow { params, rest, body }))))
}

fn expr(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    if depth == 0 || u.is_empty() {
        return leaf(u);
    }
    let d = depth - 1;
    Ok(match u.int_in_range(0..=20)? {
        0 => leaf(u)?,
        1 => e(ExprKind::Array(elements(u, d)?)),
        2 => {
            let mut props = Vec::new();
            for _ in 0..u.int_in_range(0..=2)? {
                if one_in(u, 4)? {
                    props.push(Property::Spread(expr(u, d)?, Span::default()));
                } else {
                    props.push(Property::KeyValue {
                        key: name(prop(u)?),
                        value: expr(u, d)?,
                    });
                }
            }
            e(ExprKind::Object(props))
        }
        3 => {
            let optional = one_in(u, 3)?;
            let member = e(ExprKind::Member {
                object: boxed(u, d)?,
                property: name(prop(u)?),
                optional,
            });
            if optional {
                e(ExprKind::OptionalChain(Box::new(member)))
            } else {
                member
            }
        }
        4 => e(ExprKind::Index {
            object: boxed(u, d)?,
            index: boxed(u, d)?,
        }),
        5 | 6 => {
            let callee = e(ExprKind::Member {
                object: boxed(u, d)?,
                property: name(pick(u, METHODS)?),
                optional: false,
            });
            let mut args = elements(u, d)?;
            if u.arbitrary()? {
                args.insert(0, Element::Expr(arrow(u, d)?));
            }
            e(ExprKind::Call {
                callee: Box::new(callee),
                args,
                optional: false,
            })
        }
        7 => {
            let callee = e(ExprKind::Ident(pick(u, FUNCTIONS)?.to_string()));
            e(ExprKind::Call {
                callee: Box::new(callee),
                args: elements(u, d)?,
                optional: false,
            })
        }
        8 => {
            let optional = one_in(u, 4)?;
            let call = e(ExprKind::Call {
                callee: boxed(u, d)?,
                args: elements(u, d)?,
                optional,
            });
            if optional {
                e(ExprKind::OptionalChain(Box::new(call)))
            } else {
                call
            }
        }
        9 => {
            let op = *u.choose(&[UnaryOp::Not, UnaryOp::Neg])?;
            e(ExprKind::Unary {
                op,
                operand: boxed(u, d)?,
            })
        }
        10 | 11 => {
            let op = *u.choose(&[
                BinaryOp::Add,
                BinaryOp::Sub,
                BinaryOp::Mul,
                BinaryOp::Div,
                BinaryOp::Rem,
                BinaryOp::Pow,
                BinaryOp::Eq,
                BinaryOp::Ne,
                BinaryOp::Lt,
                BinaryOp::Le,
                BinaryOp::Gt,
                BinaryOp::Ge,
            ])?;
            e(ExprKind::Binary {
                op,
                lhs: boxed(u, d)?,
                rhs: boxed(u, d)?,
            })
        }
        12 => {
            let op = *u.choose(&[LogicalOp::And, LogicalOp::Or, LogicalOp::Nullish])?;
            e(ExprKind::Logical {
                op,
                lhs: boxed(u, d)?,
                rhs: boxed(u, d)?,
            })
        }
        13 => e(ExprKind::Conditional {
            test: boxed(u, d)?,
            then: boxed(u, d)?,
            otherwise: boxed(u, d)?,
        }),
        14 => arrow(u, d)?,
        15 => e(ExprKind::Pipe {
            lhs: boxed(u, d)?,
            rhs: boxed(u, d)?,
        }),
        16 => {
            let mut used = Vec::new();
            let target = pattern(u, 2, &mut used)?;
            e(ExprKind::Let {
                target,
                value: boxed(u, d)?,
                body: boxed(u, d)?,
            })
        }
        17 => regex::call_expr(u, d)?,
        18 => big::workload(u, d)?,
        19 => big::long_string(u, d)?,
        _ => {
            let n = u.int_in_range(0..=2)?;
            let exprs = (0..n).map(|_| expr(u, d)).collect::<Result<Vec<_>>>()?;
            let quasis = (0..=n)
                .map(|_| Ok(pick(u, STRINGS)?.to_string()))
                .collect::<Result<Vec<_>>>()?;
            e(ExprKind::Template { quasis, exprs })
        }
    })
}

/// `count` expressions generated from pseudo-random bytes (a fixed
/// sequence for each `seed`): for looking at the generator's output and
/// for tests.
pub fn samples(seed: u64, count: usize) -> Vec<String> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                // SplitMix64.
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (z ^ (z >> 31)) as u8
            })
            .collect();
        if let Ok(src) = expression(&mut Unstructured::new(&bytes)) {
            out.push(src);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the generator prints parses back, so the run target reaches
    /// the compiler and the VM (a regex literal that does not lex, say,
    /// would leave them untested).
    #[test]
    fn generated_expressions_parse() {
        let opts = xpr_syntax::ParseOptions {
            max_length: None,
            max_depth: None,
        };
        for src in samples(7, 3000) {
            if let Err(err) = xpr_syntax::parse_with(&src, &opts) {
                panic!("generated expression does not parse: {src:?}: {err:?}");
            }
        }
    }

    /// Every regex pattern the generator makes lexes back as the same
    /// literal.
    #[test]
    fn regex_literals_lex_as_generated() {
        for seed in 0..2000u64 {
            let bytes: Vec<u8> = (0..256u64)
                .map(|i| (seed.wrapping_mul(31).wrapping_add(i * 131) % 251) as u8)
                .collect();
            let mut u = Unstructured::new(&bytes);
            let Ok(expr) = regex::literal(&mut u) else {
                continue;
            };
            let src = xpr_syntax::print(&expr);
            let parsed = xpr_syntax::parse(&src).map(|a| a.kind);
            match (&expr.kind, parsed) {
                (
                    ExprKind::Regex { pattern, flags },
                    Ok(ExprKind::Regex {
                        pattern: p,
                        flags: f,
                    }),
                ) => assert_eq!((pattern, flags), (&p, &f), "{src}"),
                (_, other) => panic!("{src} parsed as {other:?}"),
            }
        }
    }

    /// The three families of targeted subtrees all occur.
    #[test]
    fn samples_reach_regex_builtins_and_long_strings() {
        let all = samples(3, 2000).join("\n");
        for needle in [
            "matchAll(",
            "replacePattern(",
            ".test(",
            ".split(/",
            ".repeat(1000000)",
            ".sortBy(",
            ".unique()",
            "formatDate(",
            "\"$&\"",
            "\\pL",
            "big",
        ] {
            assert!(all.contains(needle), "no sample contains {needle:?}");
        }
    }
}
