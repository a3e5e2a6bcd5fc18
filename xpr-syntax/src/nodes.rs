//! Builders used by the grammar's actions: every node is made here, with its
//! span and its AST depth, and the depth limit and duplicate bindings are
//! checked as soon as a node is built, so no tree deeper than the limit
//! ever exists (spec "Limits", "Destructuring").
//!
//! Every value here lives on LALRPOP's symbol stack, which moves whole
//! symbols on each shift and reduction (a dozen unit reductions per
//! operand: `Primary` up to `Pipe`), so the symbol is kept small: an
//! expression is carried boxed ([`Node`]), and the rare, large
//! constructs (patterns and their entries, object entries, arrow
//! parameters) are boxed as a whole. A node's box becomes its parent's
//! child box, so boxing costs no extra allocation for operands.

use std::collections::HashSet;

use crate::ast::{
    ArrayPattern, ArrayPatternElement, Arrow, BinaryOp, Element, Expr, ExprKind, LogicalOp, Name,
    ObjectPattern, ObjectPatternEntry, Pattern, Property, Span, UnaryOp,
};
use crate::error::ParseError;
use crate::lexer::Tok;

/// The error type of fallible grammar actions.
pub type Fail = lalrpop_util::ParseError<u32, Tok, ParseError>;
/// The result type of fallible grammar actions.
pub type Res<T> = Result<T, Fail>;

/// An expression with its AST depth (the root counts 1).
#[derive(Debug)]
pub struct Node {
    pub e: Box<Expr>,
    pub d: u32,
}

/// A pattern with its depth and the names it binds, in source order.
#[derive(Debug)]
pub struct Pat {
    pub p: Pattern,
    pub d: u32,
    pub names: Vec<Name>,
}

/// A binary operator of either kind.
#[derive(Debug, Clone, Copy)]
pub enum AnyOp {
    B(BinaryOp),
    L(LogicalOp),
}

/// An array element or an argument with its depth; `spread` is the span
/// of `...expr` for a spread element.
#[derive(Debug)]
pub struct Elem {
    pub e: Box<Expr>,
    pub d: u32,
    pub spread: Option<Span>,
}

impl Elem {
    fn element(self) -> Element {
        match self.spread {
            None => Element::Expr(*self.e),
            Some(s) => Element::Spread(*self.e, s),
        }
    }
}

/// An object literal entry with its depth.
#[derive(Debug)]
pub struct Prop {
    pub p: Property,
    pub d: u32,
}

/// An arrow parameter.
#[derive(Debug)]
pub enum Param {
    Pat(Box<Pat>),
    Rest(Box<Name>, u32),
}

/// An object pattern entry as parsed (boxed on the parser's stack).
#[derive(Debug)]
pub enum ObjE {
    Entry {
        key: Name,
        target: Box<Pat>,
        default: Option<Node>,
        shorthand: bool,
    },
    Rest(Name, u32),
}

/// An array pattern entry as parsed.
#[derive(Debug)]
pub enum ArrE {
    Entry(Box<Pat>, Option<Node>),
    Rest(Box<Name>, u32),
}

fn span(l: u32, r: u32) -> Span {
    Span::new(l, r)
}

fn user(e: ParseError) -> Fail {
    lalrpop_util::ParseError::User { error: e }
}

/// Checks `d` against `max` for a node at `s`.
fn check(d: u32, max: u32, s: Span) -> Res<u32> {
    if d > max {
        Err(user(ParseError::depth(s)))
    } else {
        Ok(d)
    }
}

fn node(kind: ExprKind, s: Span, child: u32, max: u32) -> Res<Node> {
    let d = check(child.saturating_add(1), max, s)?;
    Ok(Node {
        e: Box::new(Expr { kind, span: s }),
        d,
    })
}

/// A leaf expression (depth 1; the limit is at least 1 when parsing runs).
pub fn leaf(kind: ExprKind, l: u32, r: u32, max: u32) -> Res<Node> {
    node(kind, span(l, r), 0, max)
}

/// A name token.
pub fn name(s: String, l: u32, r: u32) -> Name {
    Name {
        name: s,
        span: span(l, r),
    }
}

/// `( e )`: the node keeps its depth, its span grows to cover the parentheses.
pub fn paren(mut n: Node, l: u32, r: u32) -> Node {
    n.e.span = span(l, r);
    n
}

/// `lhs op rhs` for either kind of binary operator.
pub fn bin(lhs: Node, op: AnyOp, rhs: Node, max: u32) -> Res<Node> {
    let s = lhs.e.span.to(rhs.e.span);
    let d = lhs.d.max(rhs.d);
    let (lhs, rhs) = (lhs.e, rhs.e);
    let kind = match op {
        AnyOp::B(op) => ExprKind::Binary { op, lhs, rhs },
        AnyOp::L(op) => ExprKind::Logical { op, lhs, rhs },
    };
    node(kind, s, d, max)
}

/// Binding strength of a binary operator (spec "Operator Precedence"):
/// `??` 1, `||` 2, `&&` 3, equality 4, comparison 5, additive 6,
/// multiplicative 7, `**` 8.
fn precedence(op: AnyOp) -> u8 {
    match op {
        AnyOp::L(LogicalOp::Nullish) => 1,
        AnyOp::L(LogicalOp::Or) => 2,
        AnyOp::L(LogicalOp::And) => 3,
        AnyOp::B(BinaryOp::Eq | BinaryOp::Ne) => 4,
        AnyOp::B(BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge) => 5,
        AnyOp::B(BinaryOp::Add | BinaryOp::Sub) => 6,
        AnyOp::B(BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem) => 7,
        AnyOp::B(BinaryOp::Pow) => 8,
    }
}

/// The binding strength of `tok` as a binary operator (see
/// [`precedence`]), 0 for any other token. After an operand, `-` is
/// always the binary minus.
pub fn token_precedence(tok: &Tok) -> u8 {
    match tok {
        Tok::Nullish => 1,
        Tok::OrOr => 2,
        Tok::AndAnd => 3,
        Tok::EqEq | Tok::NotEq => 4,
        Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge => 5,
        Tok::Plus | Tok::Minus => 6,
        Tok::Star | Tok::Slash | Tok::Percent => 7,
        Tok::StarStar => 8,
        _ => 0,
    }
}

/// Whether `left`, already waiting, takes the operand before an operator
/// of binding strength `next`: it binds tighter, or as tightly and the
/// operator is left-associative (every one but `**`, the only one of
/// strength 8).
fn binds_first(left: AnyOp, next: u8) -> bool {
    let l = precedence(left);
    next > 0 && (l > next || (l == next && next < 8))
}

/// Operands waiting for their right operand, each with its operator,
/// binding strength rising toward the end (empty for a single operand:
/// no allocation).
pub type Pending = Vec<(Node, AnyOp)>;

/// A run of binary operators over unary operands being parsed: the
/// operands still waiting and the last operand. A node is built when the
/// operator after its right operand is the parser's lookahead (or when the
/// run ends), as a left-recursive rule per precedence tier would build it:
/// the same nodes in the same order, so a too-deep node fails at the same
/// token, before any later error.
#[derive(Debug)]
pub struct Seq {
    pending: Pending,
    last: Node,
}

impl Seq {
    /// A run starting with `n`.
    pub fn new(n: Node) -> Seq {
        Seq {
            pending: Vec::new(),
            last: n,
        }
    }

    /// `pending` continued by the operand `n`, the lookahead an operator
    /// of binding strength `next` (0 for none): every waiting operator that
    /// takes `n` (or the node it is in) before that one gets its node.
    pub fn then(mut pending: Pending, mut n: Node, next: u8, max: u32) -> Res<Seq> {
        while let Some(&(_, left)) = pending.last()
            && binds_first(left, next)
        {
            let Some((lhs, left)) = pending.pop() else {
                break;
            };
            n = bin(lhs, left, n, max)?;
        }
        Ok(Seq { pending, last: n })
    }

    /// The operator `op` arrives (its nodes to the left were built when it
    /// was the lookahead): it waits with its left operand.
    pub fn op(self, op: AnyOp) -> Pending {
        let Seq { mut pending, last } = self;
        if pending.capacity() == 0 {
            pending.reserve_exact(4);
        }
        pending.push((last, op));
        pending
    }

    /// The run ends: the waiting operators get their nodes, innermost first.
    pub fn finish(self, max: u32) -> Res<Node> {
        let Seq {
            mut pending,
            mut last,
        } = self;
        while let Some((lhs, op)) = pending.pop() {
            last = bin(lhs, op, last, max)?;
        }
        Ok(last)
    }
}

/// `op operand` at `l`.
pub fn unary(op: UnaryOp, operand: Node, l: u32, max: u32) -> Res<Node> {
    let s = span(l, operand.e.span.end);
    node(
        ExprKind::Unary {
            op,
            operand: operand.e,
        },
        s,
        operand.d,
        max,
    )
}

/// `lhs |> rhs`.
pub fn pipe(lhs: Node, rhs: Node, max: u32) -> Res<Node> {
    let s = lhs.e.span.to(rhs.e.span);
    let d = lhs.d.max(rhs.d);
    node(
        ExprKind::Pipe {
            lhs: lhs.e,
            rhs: rhs.e,
        },
        s,
        d,
        max,
    )
}

/// `test ? then : otherwise`.
pub fn cond(test: Node, then: Node, otherwise: Node, max: u32) -> Res<Node> {
    let s = test.e.span.to(otherwise.e.span);
    let d = test.d.max(then.d).max(otherwise.d);
    node(
        ExprKind::Conditional {
            test: test.e,
            then: then.e,
            otherwise: otherwise.e,
        },
        s,
        d,
        max,
    )
}

/// `[elements]` from `l` to `r`.
pub fn array(els: Vec<Elem>, l: u32, r: u32, max: u32) -> Res<Node> {
    let d = els.iter().map(|e| e.d).max().unwrap_or(0);
    let els = els.into_iter().map(Elem::element).collect();
    node(ExprKind::Array(els), span(l, r), d, max)
}

/// An expression element / argument.
pub fn elem(n: Node) -> Elem {
    Elem {
        e: n.e,
        d: n.d,
        spread: None,
    }
}

/// `...expr` from `l` to `r`.
pub fn spread_elem(n: Node, l: u32, r: u32) -> Elem {
    Elem {
        e: n.e,
        d: n.d,
        spread: Some(span(l, r)),
    }
}

/// `{properties}` from `l` to `r`.
// The entries come boxed as the parser's symbols carry them (small symbols).
#[allow(clippy::vec_box)]
pub fn object(props: Vec<Box<Prop>>, l: u32, r: u32, max: u32) -> Res<Node> {
    let d = props.iter().map(|p| p.d).max().unwrap_or(0);
    let props = props.into_iter().map(|p| p.p).collect();
    node(ExprKind::Object(props), span(l, r), d, max)
}

/// `key: value`.
pub fn key_value(key: Name, value: Node) -> Box<Prop> {
    Box::new(Prop {
        d: value.d,
        p: Property::KeyValue {
            key,
            value: *value.e,
        },
    })
}

/// `...expr` in an object literal.
pub fn spread_prop(n: Node, l: u32, r: u32) -> Box<Prop> {
    Box::new(Prop {
        d: n.d,
        p: Property::Spread(*n.e, span(l, r)),
    })
}

/// A template literal from `l` to `r`.
pub fn template(quasis: Vec<String>, exprs: Vec<Node>, l: u32, r: u32, max: u32) -> Res<Node> {
    let d = exprs.iter().map(|e| e.d).max().unwrap_or(0);
    let exprs = exprs.into_iter().map(|e| *e.e).collect();
    node(ExprKind::Template { quasis, exprs }, span(l, r), d, max)
}

/// A postfix chain under construction: the expression so far and whether it
/// contains a `?.` (then [`Chain::finish`] wraps it in `OptionalChain`).
#[derive(Debug)]
pub struct Chain {
    n: Node,
    optional: bool,
}

impl Chain {
    /// A chain starting at a primary expression.
    pub fn new(n: Node) -> Chain {
        Chain { n, optional: false }
    }

    /// `.name` / `?.name` ending at `r`.
    pub fn member(self, property: Name, optional: bool, r: u32, max: u32) -> Res<Chain> {
        let d = self.n.d;
        let start = self.n.e.span.start;
        let opt = self.optional || optional;
        let kind = ExprKind::Member {
            object: self.n.e,
            property,
            optional,
        };
        let n = node(kind, span(start, r), d, max)?;
        Ok(Chain { n, optional: opt })
    }

    /// `[index]` ending at `r`.
    pub fn index(self, index: Node, r: u32, max: u32) -> Res<Chain> {
        let d = self.n.d.max(index.d);
        let start = self.n.e.span.start;
        let opt = self.optional;
        let kind = ExprKind::Index {
            object: self.n.e,
            index: index.e,
        };
        let n = node(kind, span(start, r), d, max)?;
        Ok(Chain { n, optional: opt })
    }

    /// `(args)` / `?.(args)` ending at `r`.
    pub fn call(self, args: Vec<Elem>, optional: bool, r: u32, max: u32) -> Res<Chain> {
        let d = args.iter().map(|a| a.d).max().unwrap_or(0).max(self.n.d);
        let start = self.n.e.span.start;
        let opt = self.optional || optional;
        let kind = ExprKind::Call {
            callee: self.n.e,
            args: args.into_iter().map(Elem::element).collect(),
            optional,
        };
        let n = node(kind, span(start, r), d, max)?;
        Ok(Chain { n, optional: opt })
    }

    /// The finished postfix expression; a chain with a `?.` is wrapped in
    /// `OptionalChain` (same span, no extra depth).
    pub fn finish(self) -> Node {
        if self.optional {
            let s = self.n.e.span;
            Node {
                e: Box::new(Expr {
                    kind: ExprKind::OptionalChain(self.n.e),
                    span: s,
                }),
                d: self.n.d,
            }
        } else {
            self.n
        }
    }
}

/// An identifier pattern.
pub fn pat_ident(n: Name) -> Box<Pat> {
    Box::new(Pat {
        p: Pattern::Ident(n.clone()),
        d: 1,
        names: vec![n],
    })
}

fn rest_last_error(what: &str, at: u32, r: u32) -> Fail {
    user(ParseError::syntax(
        format!("Rest element must be last in {what}"),
        span(at, r),
    ))
}

/// `{entries}` from `l` to `r`.
// The entries come boxed as the parser's symbols carry them (small symbols).
#[allow(clippy::vec_box)]
pub fn obj_pat(entries: Vec<Box<ObjE>>, l: u32, r: u32, max: u32) -> Res<Box<Pat>> {
    let s = span(l, r);
    let count = entries.len();
    let mut out = Vec::with_capacity(count);
    let mut rest = None;
    let mut names = Vec::new();
    let mut d = 0u32;
    for (i, e) in entries.into_iter().enumerate() {
        match *e {
            ObjE::Entry {
                key,
                mut target,
                default,
                shorthand,
            } => {
                d = d.max(target.d);
                names.append(&mut target.names);
                let default = default.map(|n| {
                    d = d.max(n.d);
                    *n.e
                });
                out.push(ObjectPatternEntry {
                    key,
                    target: target.p,
                    default,
                    shorthand,
                });
            }
            ObjE::Rest(n, at) => {
                if i + 1 != count {
                    return Err(rest_last_error("an object pattern", at, n.span.end));
                }
                names.push(n.clone());
                d = d.max(1);
                rest = Some(n);
            }
        }
    }
    let d = check(d.saturating_add(1), max, s)?;
    Ok(Box::new(Pat {
        p: Pattern::Object(ObjectPattern {
            entries: out,
            rest,
            span: s,
        }),
        d,
        names,
    }))
}

/// `[entries]` from `l` to `r`.
pub fn arr_pat(entries: Vec<ArrE>, l: u32, r: u32, max: u32) -> Res<Box<Pat>> {
    let s = span(l, r);
    let count = entries.len();
    let mut out = Vec::with_capacity(count);
    let mut rest = None;
    let mut names = Vec::new();
    let mut d = 0u32;
    for (i, e) in entries.into_iter().enumerate() {
        match e {
            ArrE::Entry(mut target, default) => {
                d = d.max(target.d);
                names.append(&mut target.names);
                let default = default.map(|n| {
                    d = d.max(n.d);
                    *n.e
                });
                out.push(ArrayPatternElement {
                    target: target.p,
                    default,
                });
            }
            ArrE::Rest(n, at) => {
                if i + 1 != count {
                    return Err(rest_last_error("an array pattern", at, n.span.end));
                }
                names.push((*n).clone());
                d = d.max(1);
                rest = Some(*n);
            }
        }
    }
    let d = check(d.saturating_add(1), max, s)?;
    Ok(Box::new(Pat {
        p: Pattern::Array(ArrayPattern {
            elements: out,
            rest,
            span: s,
        }),
        d,
        names,
    }))
}

/// Rejects a name bound twice (spec "Destructuring": `duplicate binding 'a'`),
/// reporting the second occurrence.
fn no_duplicates<'a>(names: impl Iterator<Item = &'a Name>) -> Res<()> {
    let mut seen = HashSet::new();
    for n in names {
        if !seen.insert(n.name.as_str()) {
            return Err(user(ParseError::syntax(
                format!("duplicate binding '{}'", n.name),
                n.span,
            )));
        }
    }
    Ok(())
}

/// `let target = value; body` from `l`.
pub fn let_(target: Pat, value: Node, body: Node, l: u32, max: u32) -> Res<Node> {
    no_duplicates(target.names.iter())?;
    let s = span(l, body.e.span.end);
    let d = target.d.max(value.d).max(body.d);
    node(
        ExprKind::Let {
            target: target.p,
            value: value.e,
            body: body.e,
        },
        s,
        d,
        max,
    )
}

/// An arrow function from `l` with the given parameters.
pub fn arrow(params: Vec<Param>, body: Node, l: u32, max: u32) -> Res<Node> {
    let count = params.len();
    let mut pats = Vec::with_capacity(count);
    let mut rest = None;
    let mut names = Vec::new();
    let mut d = body.d;
    for (i, p) in params.into_iter().enumerate() {
        match p {
            Param::Pat(mut p) => {
                d = d.max(p.d);
                names.append(&mut p.names);
                pats.push(p.p);
            }
            Param::Rest(n, at) => {
                if i + 1 != count {
                    return Err(user(ParseError::syntax(
                        "Rest parameter must be last",
                        span(at, n.span.end),
                    )));
                }
                names.push((*n).clone());
                d = d.max(1);
                rest = Some(*n);
            }
        }
    }
    no_duplicates(names.iter())?;
    let s = span(l, body.e.span.end);
    node(
        ExprKind::Arrow(Box::new(Arrow {
            params: pats,
            rest,
            body: *body.e,
        })),
        s,
        d,
        max,
    )
}
