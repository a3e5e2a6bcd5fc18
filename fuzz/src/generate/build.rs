//! Small constructors of AST nodes (all at the default span: the printer
//! ignores spans), so the workload generators read like the source they
//! print.

use xpr_syntax::ast::{Arrow, BinaryOp, Element, Expr, ExprKind, Name, Pattern, Span, UnaryOp};

/// A node of `kind` at the default span.
pub fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

/// A name at the default span.
pub fn name(s: &str) -> Name {
    Name {
        name: s.to_string(),
        span: Span::default(),
    }
}

/// A number literal; a negative one prints as a unary minus.
pub fn num(n: f64) -> Expr {
    if n < 0.0 {
        e(ExprKind::Unary {
            op: UnaryOp::Neg,
            operand: Box::new(e(ExprKind::Number(-n))),
        })
    } else {
        e(ExprKind::Number(n))
    }
}

/// A string literal.
pub fn string(s: &str) -> Expr {
    e(ExprKind::String(s.to_string()))
}

/// A regex literal `/pattern/flags`.
pub fn regex(pattern: &str, flags: &str) -> Expr {
    e(ExprKind::Regex {
        pattern: pattern.to_string(),
        flags: flags.to_string(),
    })
}

/// A name reference.
pub fn ident(s: &str) -> Expr {
    e(ExprKind::Ident(s.to_string()))
}

/// `f(args...)` for a global function `f`.
pub fn call(f: &str, args: Vec<Expr>) -> Expr {
    e(ExprKind::Call {
        callee: Box::new(ident(f)),
        args: args.into_iter().map(Element::Expr).collect(),
        optional: false,
    })
}

/// `object.m(args...)`.
pub fn method(object: Expr, m: &str, args: Vec<Expr>) -> Expr {
    let callee = e(ExprKind::Member {
        object: Box::new(object),
        property: name(m),
        optional: false,
    });
    e(ExprKind::Call {
        callee: Box::new(callee),
        args: args.into_iter().map(Element::Expr).collect(),
        optional: false,
    })
}

/// `object.p`.
pub fn member(object: Expr, p: &str) -> Expr {
    e(ExprKind::Member {
        object: Box::new(object),
        property: name(p),
        optional: false,
    })
}

/// `(params...) => body` with plain identifier parameters.
pub fn lambda(params: &[&str], body: Expr) -> Expr {
    e(ExprKind::Arrow(Box::new(Arrow {
        params: params.iter().map(|p| Pattern::Ident(name(p))).collect(),
        rest: None,
        body,
    })))
}

/// `lhs op rhs`.
pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    e(ExprKind::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    })
}

/// `let name = value; body`.
pub fn let_in(n: &str, value: Expr, body: Expr) -> Expr {
    e(ExprKind::Let {
        target: Pattern::Ident(name(n)),
        value: Box::new(value),
        body: Box::new(body),
    })
}
