//! An `arbitrary`-driven generator of well-formed XPR ASTs, printed to
//! source with `xpr_syntax::print`, so the fuzzer reaches the compiler and
//! the VM instead of stopping at parse errors.

use arbitrary::{Result, Unstructured};
use xpr_syntax::ast::{
    ArrayPattern, ArrayPatternElement, Arrow, BinaryOp, Element, Expr, ExprKind, LogicalOp, Name,
    ObjectPattern, ObjectPatternEntry, Pattern, Property, Span, UnaryOp,
};

/// Names the context defines, plus some it does not and a restricted one.
const FIELDS: &[&str] = &[
    "n", "x", "s", "b", "z", "xs", "ss", "o", "items", "t", "missing", "PI",
];
/// Names generated bindings use.
const LOCALS: &[&str] = &["a", "c", "d", "e", "f", "g"];
/// Property names: some present in the context, some methods, some restricted.
const PROPS: &[&str] = &[
    "a",
    "b",
    "c",
    "name",
    "price",
    "length",
    "__proto__",
    "constructor",
];
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
];
const REGEXES: &[(&str, &str)] = &[
    ("\\d+", ""),
    ("a|b", "i"),
    ("(\\w)(\\w)", "m"),
    ("^.*$", "s"),
    ("[/]", ""),
];

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn name(s: &str) -> Name {
    Name {
        name: s.to_string(),
        span: Span::default(),
    }
}

fn pick<'a>(u: &mut Unstructured, xs: &'a [&'a str]) -> Result<&'a str> {
    Ok(*u.choose(xs)?)
}

/// Generates one expression and prints it.
///
/// # Errors
/// When the input bytes run out before anything is generated.
pub fn expression(u: &mut Unstructured) -> Result<String> {
    let expr = expr(u, 6)?;
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
            let (p, f) = *u.choose(REGEXES)?;
            e(ExprKind::Regex {
                pattern: p.to_string(),
                flags: f.to_string(),
            })
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
            Ok(if u.ratio(1, 5)? {
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
            let key = name(pick(u, PROPS)?);
            let target = Pattern::Ident(fresh(u, used)?);
            let default = if u.ratio(1, 3)? { Some(leaf(u)?) } else { None };
            entries.push(ObjectPatternEntry {
                key,
                target,
                default,
                shorthand: false,
            });
        }
        let rest = if u.ratio(1, 4)? {
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
            let default = if u.ratio(1, 3)? { Some(leaf(u)?) } else { None };
            elements.push(ArrayPatternElement { target, default });
        }
        let rest = if u.ratio(1, 4)? {
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
    let rest = if u.ratio(1, 6)? {
        Some(name("r"))
    } else {
        None
    };
    let body = expr(u, depth)?;
    Ok(e(ExprKind::Arrow(Box::new(Arrow { params, rest, body }))))
}

fn expr(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    if depth == 0 || u.is_empty() {
        return leaf(u);
    }
    let d = depth - 1;
    Ok(match u.int_in_range(0..=17)? {
        0 => leaf(u)?,
        1 => e(ExprKind::Array(elements(u, d)?)),
        2 => {
            let mut props = Vec::new();
            for _ in 0..u.int_in_range(0..=2)? {
                if u.ratio(1, 4)? {
                    props.push(Property::Spread(expr(u, d)?, Span::default()));
                } else {
                    props.push(Property::KeyValue {
                        key: name(pick(u, PROPS)?),
                        value: expr(u, d)?,
                    });
                }
            }
            e(ExprKind::Object(props))
        }
        3 => {
            let optional = u.ratio(1, 3)?;
            let member = e(ExprKind::Member {
                object: boxed(u, d)?,
                property: name(pick(u, PROPS)?),
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
            let optional = u.ratio(1, 4)?;
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
