//! Large-string workloads: strings of up to millions of characters (from
//! `repeat`, concatenation in callbacks, the context), arrays of long
//! strings, and the built-ins whose work grows with string length
//! (comparison, sorting, deduplication, grouping, search, date formats).
//! The run target's budgets stop most of them early; what is checked is
//! that they stop with a budget error and within the budgets.

use arbitrary::{Result, Unstructured};
use xpr_syntax::ast::{BinaryOp, Element, Expr, ExprKind, LogicalOp};

use super::build::{binary, call, e, ident, lambda, let_in, member, method, num, string};
use super::{expr, one_in, pick, regex};

/// `repeat` counts: small, around the fuel and memory budgets, far over
/// them, and invalid ones.
const REPEATS: &[f64] = &[
    0.0,
    1.0,
    2.0,
    15.0,
    16.0,
    17.0,
    100.0,
    1000.0,
    4096.0,
    65536.0,
    100_000.0,
    1_000_000.0,
    2_000_000.0,
    4_194_304.0,
    5_000_000.0,
    10_000_000.0,
    2_147_483_648.0,
    1e12,
    1.5,
    -1.0,
];
/// Array lengths.
const LENGTHS: &[f64] = &[
    0.0, 1.0, 2.0, 3.0, 10.0, 100.0, 1000.0, 3000.0, 10_000.0, 100_000.0,
];
/// Pieces a long string is repeated or built from.
const PIECES: &[&str] = &[
    "x", "ab", "é", "😀", "\u{0}", "a\n", "yyyy", "$&", " ", "\"\\",
];
/// Date formats and texts (formats made long by repetition).
const FORMATS: &[&str] = &[
    "yyyy",
    "yyyy-MM-dd",
    "yyyy-MM-dd HH:mm:ss.SSS",
    "x",
    "SSS",
    "'yyyy'",
    "dd/MM/yyyy ",
];
/// Names of the context's long values.
const LONG_FIELDS: &[&str] = &["big", "huge", "bigu", "lines", "fmt"];

fn count(u: &mut Unstructured) -> Result<Expr> {
    Ok(num(*u.choose(REPEATS)?))
}

fn length(u: &mut Unstructured) -> Result<Expr> {
    Ok(num(*u.choose(LENGTHS)?))
}

/// A possibly very long string.
pub fn long_string(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    let d = depth.saturating_sub(1);
    Ok(match u.int_in_range(0..=9)? {
        0 | 1 => method(string(pick(u, PIECES)?), "repeat", vec![count(u)?]),
        2 => ident(pick(u, LONG_FIELDS)?),
        3 if depth > 0 => binary(BinaryOp::Add, long_string(u, d)?, long_string(u, d)?),
        4 => {
            // Concatenation in a callback: quadratic copying unless charged.
            let piece = match u.int_in_range(0..=3)? {
                0 => call("string", vec![ident("i")]),
                1 => string(pick(u, PIECES)?),
                2 => ident("acc"),
                _ => e(ExprKind::Template {
                    quasis: vec![String::new(), ",".to_string()],
                    exprs: vec![ident("i")],
                }),
            };
            let init = if u.arbitrary()? {
                string("")
            } else {
                method(string(pick(u, PIECES)?), "repeat", vec![count(u)?])
            };
            method(
                call("range", vec![length(u)?]),
                "reduce",
                vec![
                    lambda(&["acc", "i"], binary(BinaryOp::Add, ident("acc"), piece)),
                    init,
                ],
            )
        }
        5 => method(
            method(
                call("range", vec![length(u)?]),
                "map",
                vec![lambda(
                    &["i"],
                    method(string(pick(u, PIECES)?), "repeat", vec![ident("i")]),
                )],
            ),
            "join",
            vec![string(pick(u, PIECES)?)],
        ),
        6 => method(
            string(pick(u, PIECES)?),
            pick(u, &["padStart", "padEnd"])?,
            vec![count(u)?, string(pick(u, PIECES)?)],
        ),
        7 => call("string", vec![call("range", vec![length(u)?])]),
        8 if depth > 0 => {
            let s = long_string(u, d)?;
            match u.int_in_range(0..=4)? {
                0 => method(s, "upper", vec![]),
                1 => method(s, "replace", vec![string("x"), string(pick(u, PIECES)?)]),
                2 => method(
                    method(s, "split", vec![string("")]),
                    "join",
                    vec![string("")],
                ),
                3 => method(s, "slice", vec![num(1.0)]),
                _ => e(ExprKind::Template {
                    quasis: vec![String::new(), String::new(), String::new()],
                    exprs: vec![s.clone(), s],
                }),
            }
        }
        _ => method(string(pick(u, PIECES)?), "repeat", vec![count(u)?]),
    })
}

/// An array of (mostly) long strings, equal or differing at either end.
pub fn long_array(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    let d = depth.saturating_sub(1);
    let rem = |u: &mut Unstructured| -> Result<Expr> {
        Ok(call(
            "string",
            vec![binary(
                BinaryOp::Rem,
                ident("i"),
                num(*u.choose(&[1.0, 2.0, 7.0, 1000.0])?),
            )],
        ))
    };
    Ok(match u.int_in_range(0..=6)? {
        0 => method(
            call("range", vec![length(u)?]),
            "map",
            vec![lambda(&["i"], long_string(u, d)?)],
        ),
        1 => {
            let body = binary(BinaryOp::Add, ident("h"), rem(u)?);
            let_in(
                "h",
                long_string(u, d)?,
                method(
                    call("range", vec![length(u)?]),
                    "map",
                    vec![lambda(&["i"], body)],
                ),
            )
        }
        2 => {
            let body = binary(BinaryOp::Add, rem(u)?, ident("h"));
            let_in(
                "h",
                long_string(u, d)?,
                method(
                    call("range", vec![length(u)?]),
                    "map",
                    vec![lambda(&["i"], body)],
                ),
            )
        }
        3 => {
            let s = long_string(u, d)?;
            let_in(
                "h",
                s,
                e(ExprKind::Array(vec![
                    Element::Expr(ident("h")),
                    Element::Expr(binary(BinaryOp::Add, ident("h"), string("a"))),
                    Element::Expr(binary(BinaryOp::Add, string("a"), ident("h"))),
                    Element::Expr(ident("h")),
                ])),
            )
        }
        4 => ident("bigs"),
        5 => method(
            long_string(u, d)?,
            "split",
            vec![string(pick(u, &["\n", "", "x", "a", ","])?)],
        ),
        _ => method(
            call("range", vec![length(u)?]),
            "map",
            vec![lambda(&["i"], call("string", vec![ident("i")]))],
        ),
    })
}

/// A date workload: formats and texts of any length.
fn date_work(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    let format = |u: &mut Unstructured| -> Result<Expr> {
        Ok(match u.int_in_range(0..=3)? {
            0 => string(pick(u, FORMATS)?),
            1 => ident("fmt"),
            2 => long_string(u, depth)?,
            _ => method(string(pick(u, FORMATS)?), "repeat", vec![count(u)?]),
        })
    };
    let date = num(*u.choose(&[0.0, 1_705_320_000_000.0, -62_198_755_200_000.0, 8.64e15])?);
    Ok(match u.int_in_range(0..=3)? {
        0 => call("formatDate", vec![date, format(u)?]),
        1 => {
            let f = format(u)?;
            let_in(
                "h",
                f,
                call(
                    "parseDate",
                    vec![call("formatDate", vec![date, ident("h")]), ident("h")],
                ),
            )
        }
        2 => call("parseDate", vec![long_string(u, depth)?, format(u)?]),
        _ => call("parseDate", vec![long_string(u, depth)?]),
    })
}

/// A built-in whose work grows with the length of the strings it touches,
/// applied to long strings or arrays of them.
pub fn workload(u: &mut Unstructured, depth: u32) -> Result<Expr> {
    let d = depth.saturating_sub(1);
    if one_in(u, 6)? {
        return date_work(u, d);
    }
    if one_in(u, 3)? {
        // One long string against another (often equal, or equal but at
        // the end) or a needle.
        let s = long_string(u, d)?;
        let other = match u.int_in_range(0..=3)? {
            0 => ident("g"),
            1 => binary(BinaryOp::Add, ident("g"), string("a")),
            2 => string(pick(u, PIECES)?),
            _ => long_string(u, d)?,
        };
        let body = match u.int_in_range(0..=13)? {
            0 => binary(*u.choose(&[BinaryOp::Eq, BinaryOp::Ne])?, ident("g"), other),
            1 => binary(
                *u.choose(&[BinaryOp::Lt, BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge])?,
                ident("g"),
                other,
            ),
            2 => method(
                ident("g"),
                pick(u, &["contains", "startsWith", "endsWith", "indexOf"])?,
                vec![other],
            ),
            3 => method(ident("g"), "split", vec![other]),
            4 => method(ident("g"), "replace", vec![other, string(pick(u, PIECES)?)]),
            5 => method(
                ident("g"),
                pick(u, &["len", "upper", "lower", "trim", "trimStart"])?,
                vec![],
            ),
            6 => call(
                pick(u, &["int", "float", "bool", "string", "type", "parseDate"])?,
                vec![ident("g")],
            ),
            7 => method(
                ident("g"),
                pick(u, &["charAt", "slice", "padStart", "repeat"])?,
                vec![count(u)?],
            ),
            8 => e(ExprKind::Index {
                object: Box::new(ident("o")),
                index: Box::new(ident("g")),
            }),
            9 => call(
                "fromEntries",
                vec![e(ExprKind::Array(vec![Element::Expr(e(ExprKind::Array(
                    vec![Element::Expr(ident("g")), Element::Expr(num(1.0))],
                )))]))],
            ),
            10 => e(ExprKind::Logical {
                op: LogicalOp::And,
                lhs: Box::new(ident("g")),
                rhs: Box::new(other),
            }),
            11 => regex::call_expr(u, d)?,
            12 => e(ExprKind::Template {
                quasis: vec![String::new(), String::new(), String::new()],
                exprs: vec![ident("g"), other],
            }),
            _ => method(ident("g"), "match", vec![regex::literal(u)?]),
        };
        return Ok(let_in("g", s, body));
    }
    let a = long_array(u, d)?;
    let needle = match u.int_in_range(0..=3)? {
        0 => member(ident("g"), "length"),
        1 => e(ExprKind::Index {
            object: Box::new(ident("g")),
            index: Box::new(num(0.0)),
        }),
        2 => long_string(u, d)?,
        _ => expr(u, d)?,
    };
    let cmp = lambda(
        &["p", "q"],
        e(ExprKind::Conditional {
            test: Box::new(binary(BinaryOp::Lt, ident("p"), ident("q"))),
            then: Box::new(num(-1.0)),
            otherwise: Box::new(e(ExprKind::Conditional {
                test: Box::new(binary(BinaryOp::Gt, ident("p"), ident("q"))),
                then: Box::new(num(1.0)),
                otherwise: Box::new(num(0.0)),
            })),
        }),
    );
    let identity = || lambda(&["x"], ident("x"));
    let body = match u.int_in_range(0..=19)? {
        0 => method(ident("g"), "sort", vec![]),
        1 => method(ident("g"), "sort", vec![cmp]),
        2 => method(ident("g"), "sortBy", vec![identity()]),
        3 => method(ident("g"), "unique", vec![]),
        4 => method(ident("g"), "groupBy", vec![identity()]),
        5 => method(ident("g"), "keyBy", vec![identity()]),
        6 => method(ident("g"), pick(u, &["includes", "indexOf"])?, vec![needle]),
        7 => method(
            ident("g"),
            "count",
            vec![lambda(&["x"], binary(BinaryOp::Eq, ident("x"), needle))],
        ),
        8 => binary(
            *u.choose(&[BinaryOp::Eq, BinaryOp::Ne])?,
            ident("g"),
            method(ident("g"), "map", vec![identity()]),
        ),
        9 => method(ident("g"), "join", vec![string(pick(u, PIECES)?)]),
        10 => call("string", vec![ident("g")]),
        11 => call(
            "fromEntries",
            vec![method(
                ident("g"),
                "map",
                vec![lambda(
                    &["x"],
                    e(ExprKind::Array(vec![
                        Element::Expr(ident("x")),
                        Element::Expr(num(1.0)),
                    ])),
                )],
            )],
        ),
        12 => method(
            ident("g"),
            "partition",
            vec![lambda(&["x"], binary(BinaryOp::Lt, ident("x"), needle))],
        ),
        13 => method(
            ident("g"),
            pick(
                u,
                &["min", "max", "reverse", "compact", "flat", "first", "last"],
            )?,
            vec![],
        ),
        14 => method(ident("g"), pick(u, &["concat", "zip"])?, vec![ident("g")]),
        15 => method(
            ident("g"),
            "map",
            vec![lambda(
                &["x"],
                method(ident("x"), pick(u, &["len", "upper", "trim"])?, vec![]),
            )],
        ),
        16 => method(
            method(ident("g"), "unique", vec![]),
            "sortBy",
            vec![lambda(&["x"], method(ident("x"), "len", vec![]))],
        ),
        17 => method(
            ident("g"),
            "filter",
            vec![lambda(&["x"], method(ident("x"), "contains", vec![needle]))],
        ),
        18 => method(
            method(
                ident("g"),
                "groupBy",
                vec![lambda(
                    &["x"],
                    method(ident("x"), "slice", vec![num(0.0), num(1.0)]),
                )],
            ),
            "keys",
            vec![],
        ),
        _ => method(
            ident("g"),
            "reduce",
            vec![
                lambda(
                    &["acc", "x"],
                    binary(BinaryOp::Add, ident("acc"), ident("x")),
                ),
                string(""),
            ],
        ),
    };
    Ok(let_in("g", a, body))
}
