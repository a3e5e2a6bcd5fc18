//! Random ASTs of the shapes the parser produces (spans left at zero), for
//! the round-trip properties in `roundtrip.rs`. Drawn from a seeded
//! [`Rng`], so every run checks the same trees and a failure names its
//! case.

use std::collections::HashSet;

use xpr_syntax::Span;
use xpr_syntax::ast::{
    ArrayPattern, ArrayPatternElement, Arrow, BinaryOp, Element, Expr, ExprKind, LogicalOp, Name,
    ObjectPattern, ObjectPatternEntry, Pattern, Property, UnaryOp,
};
use xpr_testkit::Rng;

/// How deep [`expr`] nests expressions (a leaf at depth 0).
pub const EXPR_DEPTH: usize = 5;
/// How deep a pattern nests object and array patterns.
const PATTERN_DEPTH: usize = 2;
/// The chance that a node above depth 0 is a leaf all the same.
const LEAF_CHANCE: f64 = 0.25;

fn mk(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn nm(s: String) -> Name {
    Name {
        name: s,
        span: Span::default(),
    }
}

/// `Some(x)` with probability 0.3.
fn sometimes<T>(r: &mut Rng, x: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    r.chance(0.3).then(|| x(r))
}

/// `n` in `lens` values from `x`.
fn several<T>(
    r: &mut Rng,
    lens: std::ops::Range<usize>,
    mut x: impl FnMut(&mut Rng) -> T,
) -> Vec<T> {
    let n = r.range(lens);
    (0..n).map(|_| x(r)).collect()
}

const IDENT_START: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's',
    't', 'u', 'v', 'w', 'x', 'y', 'z', '_',
];
const IDENT_REST: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's',
    't', 'u', 'v', 'w', 'x', 'y', 'z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '_',
];
/// The characters of string literals: letters, quotes, escapes, control
/// characters, template punctuation and characters beyond ASCII.
const TEXT_CHARS: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's',
    't', 'u', 'v', 'w', 'x', 'y', 'z', ' ', '"', '\'', '\\', '\n', '\t', '\r', '$', '`', '{', '}',
    'é', '😀', '\0',
];
const KEYWORDS: &[&str] = &["true", "false", "null", "let"];

/// An identifier of 1 to 5 characters, never a keyword.
pub fn ident(r: &mut Rng) -> String {
    loop {
        let mut s = String::from(*r.pick(IDENT_START));
        s.push_str(&r.text(IDENT_REST, 0..5));
        if !KEYWORDS.contains(&s.as_str()) {
            return s;
        }
    }
}

/// A member name: an identifier, or (one time in five) a keyword.
fn member_name(r: &mut Rng) -> String {
    match r.weighted(&[4, 1]) {
        0 => ident(r),
        _ => r.pick(KEYWORDS).to_string(),
    }
}

/// A string of up to 6 characters.
fn text(r: &mut Rng) -> String {
    r.text(TEXT_CHARS, 0..7)
}

/// A non-negative number: an integer, a fraction, any finite bit pattern
/// (subnormals and huge exponents included), or a value at a printing edge.
fn number(r: &mut Rng) -> f64 {
    match r.below(4) {
        0 => r.below(100_000) as f64,
        1 => r.unit() * 1e6,
        2 => loop {
            let n = f64::from_bits(r.next_u64() >> 1);
            if n.is_finite() {
                break n;
            }
        },
        _ => *r.pick(&[0.1, 1e21, 1e-7, 2.5e-3, 1e300, 5e-324]),
    }
}

fn regex(r: &mut Rng) -> ExprKind {
    let pattern = r.pick(&["a", r"\d+", "[/]", r"\/x", "a[b/]c", "(x|y)*", r"\\"]);
    let flags = ['i', 'm', 's'].into_iter().filter(|_| r.coin()).collect();
    ExprKind::Regex {
        pattern: pattern.to_string(),
        flags,
    }
}

/// A literal or a name (names twice as likely as each other kind).
fn leaf(r: &mut Rng) -> Expr {
    match r.weighted(&[1, 1, 1, 1, 2, 1, 1]) {
        0 => mk(ExprKind::Null),
        1 => mk(ExprKind::Bool(r.coin())),
        2 => mk(ExprKind::Number(number(r))),
        3 => mk(ExprKind::String(text(r))),
        4 => mk(ExprKind::Ident(ident(r))),
        5 => mk(regex(r)),
        _ => mk(ExprKind::Template {
            quasis: vec![text(r)],
            exprs: vec![],
        }),
    }
}

fn element(r: &mut Rng, depth: usize) -> Element {
    let spread = r.coin();
    let x = expr(r, depth);
    if spread {
        Element::Spread(x, Span::default())
    } else {
        Element::Expr(x)
    }
}

const BINARY_OPS: &[BinaryOp] = &[
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
];

/// A binding pattern; its defaults are expressions of depth `depth`.
fn pattern(r: &mut Rng, depth: usize, nesting: usize) -> Pattern {
    if nesting == 0 || r.coin() {
        return Pattern::Ident(nm(ident(r)));
    }
    if r.coin() {
        let entries = several(r, 0..3, |r| {
            let default = sometimes(r, |r| expr(r, depth));
            if r.coin() {
                let id = ident(r);
                ObjectPatternEntry {
                    key: nm(id.clone()),
                    target: Pattern::Ident(nm(id)),
                    default,
                    shorthand: true,
                }
            } else {
                let key = if r.coin() { ident(r) } else { text(r) };
                ObjectPatternEntry {
                    key: nm(key),
                    target: pattern(r, depth, nesting - 1),
                    default,
                    shorthand: false,
                }
            }
        });
        Pattern::Object(ObjectPattern {
            entries,
            rest: sometimes(r, ident).map(nm),
            span: Span::default(),
        })
    } else {
        let elements = several(r, 0..3, |r| ArrayPatternElement {
            target: pattern(r, depth, nesting - 1),
            default: sometimes(r, |r| expr(r, depth)),
        });
        Pattern::Array(ArrayPattern {
            elements,
            rest: sometimes(r, ident).map(nm),
            span: Span::default(),
        })
    }
}

/// Renames repeated bindings so a pattern list binds each name once.
pub fn uniquify(p: &mut Pattern, seen: &mut HashSet<String>) {
    fn fresh(n: &mut Name, seen: &mut HashSet<String>) -> bool {
        let mut renamed = false;
        while !seen.insert(n.name.clone()) {
            n.name.push('1');
            renamed = true;
        }
        renamed
    }
    match p {
        Pattern::Ident(n) => {
            fresh(n, seen);
        }
        Pattern::Object(o) => {
            for e in &mut o.entries {
                if e.shorthand {
                    if let Pattern::Ident(n) = &mut e.target
                        && fresh(n, seen)
                    {
                        e.shorthand = false;
                    }
                } else {
                    uniquify(&mut e.target, seen);
                }
            }
            if let Some(r) = &mut o.rest {
                fresh(r, seen);
            }
        }
        Pattern::Array(a) => {
            for e in &mut a.elements {
                uniquify(&mut e.target, seen);
            }
            if let Some(r) = &mut a.rest {
                fresh(r, seen);
            }
        }
    }
}

/// A postfix operation of an optional chain.
#[derive(Debug, Clone)]
enum Op {
    Member(String, bool),
    Index(Expr),
    Call(Vec<Element>, bool),
}

fn apply(object: Expr, op: Op) -> Expr {
    let object = Box::new(object);
    mk(match op {
        Op::Member(n, optional) => ExprKind::Member {
            object,
            property: nm(n),
            optional,
        },
        Op::Index(i) => ExprKind::Index {
            object,
            index: Box::new(i),
        },
        Op::Call(args, optional) => ExprKind::Call {
            callee: object,
            args,
            optional,
        },
    })
}

fn op(r: &mut Rng, depth: usize) -> Op {
    match r.below(3) {
        0 => Op::Member(member_name(r), r.coin()),
        1 => Op::Index(expr(r, depth)),
        _ => Op::Call(several(r, 0..3, |r| element(r, depth)), r.coin()),
    }
}

/// An optional chain: a base, then 1 to 3 postfix operations, the first
/// optional.
fn chain(r: &mut Rng, depth: usize) -> Expr {
    let base = expr(r, depth);
    let mut ops = several(r, 1..4, |r| op(r, depth));
    let first_optional = match ops.first_mut() {
        Some(Op::Member(_, o)) | Some(Op::Call(_, o)) => {
            *o = true;
            true
        }
        _ => false,
    };
    if !first_optional {
        ops.insert(0, Op::Member("q".into(), true));
    }
    let inner = ops.into_iter().fold(base, apply);
    mk(ExprKind::OptionalChain(Box::new(inner)))
}

/// An expression nested at most `depth` deep.
pub fn expr(r: &mut Rng, depth: usize) -> Expr {
    if depth == 0 || r.chance(LEAF_CHANCE) {
        return leaf(r);
    }
    let d = depth - 1;
    let b = |x: Expr| Box::new(x);
    // Weights: unary 2, binary 8, logical 3, conditional 2, pipe 2, then 1 each.
    match r.weighted(&[2, 8, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]) {
        0 => {
            let op = *r.pick(&[UnaryOp::Not, UnaryOp::Neg]);
            mk(ExprKind::Unary {
                op,
                operand: b(expr(r, d)),
            })
        }
        1 => mk(ExprKind::Binary {
            op: *r.pick(BINARY_OPS),
            lhs: b(expr(r, d)),
            rhs: b(expr(r, d)),
        }),
        2 => mk(ExprKind::Logical {
            op: *r.pick(&[LogicalOp::And, LogicalOp::Or, LogicalOp::Nullish]),
            lhs: b(expr(r, d)),
            rhs: b(expr(r, d)),
        }),
        3 => mk(ExprKind::Conditional {
            test: b(expr(r, d)),
            then: b(expr(r, d)),
            otherwise: b(expr(r, d)),
        }),
        4 => mk(ExprKind::Pipe {
            lhs: b(expr(r, d)),
            rhs: b(expr(r, d)),
        }),
        5 => mk(ExprKind::Array(several(r, 0..4, |r| element(r, d)))),
        6 => mk(ExprKind::Object(several(r, 0..4, |r| {
            if r.coin() {
                let key = match r.below(3) {
                    0 => ident(r),
                    1 => member_name(r),
                    _ => text(r),
                };
                Property::KeyValue {
                    key: nm(key),
                    value: expr(r, d),
                }
            } else {
                Property::Spread(expr(r, d), Span::default())
            }
        }))),
        7 => mk(ExprKind::Member {
            object: b(expr(r, d)),
            property: nm(member_name(r)),
            optional: false,
        }),
        8 => mk(ExprKind::Index {
            object: b(expr(r, d)),
            index: b(expr(r, d)),
        }),
        9 => mk(ExprKind::Call {
            callee: b(expr(r, d)),
            args: several(r, 0..3, |r| element(r, d)),
            optional: false,
        }),
        10 => chain(r, d),
        11 => {
            let parts = several(r, 1..3, |r| (text(r), expr(r, d)));
            let (mut quasis, exprs): (Vec<String>, Vec<Expr>) = parts.into_iter().unzip();
            quasis.push(text(r));
            mk(ExprKind::Template { quasis, exprs })
        }
        12 => {
            let mut params = several(r, 0..3, |r| pattern(r, d, PATTERN_DEPTH));
            let mut seen = HashSet::new();
            params.iter_mut().for_each(|p| uniquify(p, &mut seen));
            let mut rest = sometimes(r, ident).map(nm);
            if let Some(r) = &mut rest {
                while !seen.insert(r.name.clone()) {
                    r.name.push('2');
                }
            }
            let body = expr(r, d);
            mk(ExprKind::Arrow(Box::new(Arrow { params, rest, body })))
        }
        _ => {
            let mut target = pattern(r, d, PATTERN_DEPTH);
            uniquify(&mut target, &mut HashSet::new());
            mk(ExprKind::Let {
                target,
                value: b(expr(r, d)),
                body: b(expr(r, d)),
            })
        }
    }
}
