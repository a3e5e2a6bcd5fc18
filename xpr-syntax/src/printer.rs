//! The printer: an AST back to canonical source text.
//!
//! Canonical form: one space around binary operators, `? :`, `|>` and `=>`,
//! `, ` between list items, strings in double quotes, no trailing commas,
//! and parentheses exactly where the grammar needs them (precedence,
//! associativity, an arrow or `let` that is not the rightmost operand, a
//! parenthesised optional chain). For every tree the parser produces,
//! `parse(print(t))` is `t` with spans erased.
//!
//! The printer recurses once per AST level; trees from the parser are at
//! most [`crate::DEPTH_CEILING`] deep.

use std::fmt::Write;

use crate::ast::{BinaryOp, Element, Expr, ExprKind, LogicalOp, Name, Pattern, Property, UnaryOp};

/// Prints `expr` as canonical XPR source (see the module docs).
///
/// Numbers print in the shortest form that reads back as the same value
/// (`0.1`, `1e21`, `1.5e-7`). Trees the parser cannot produce print as
/// best they can and need not round-trip: a negative or non-finite
/// `Number` (`-1`, `NaN`), an optional member or call outside an
/// `OptionalChain`.
pub fn print(expr: &Expr) -> String {
    let mut out = String::new();
    expr_to(&mut out, expr, 0, true);
    out
}

// Precedence levels, lowest first (spec "Operator Precedence").
const PIPE: u8 = 1;
const TERNARY: u8 = 2;
const UNARY: u8 = 11;
const POSTFIX: u8 = 12;
const PRIMARY: u8 = 13;

fn logical_prec(op: LogicalOp) -> (u8, &'static str) {
    match op {
        LogicalOp::Nullish => (3, "??"),
        LogicalOp::Or => (4, "||"),
        LogicalOp::And => (5, "&&"),
    }
}

fn binary_prec(op: BinaryOp) -> (u8, &'static str) {
    match op {
        BinaryOp::Eq => (6, "=="),
        BinaryOp::Ne => (6, "!="),
        BinaryOp::Lt => (7, "<"),
        BinaryOp::Le => (7, "<="),
        BinaryOp::Gt => (7, ">"),
        BinaryOp::Ge => (7, ">="),
        BinaryOp::Add => (8, "+"),
        BinaryOp::Sub => (8, "-"),
        BinaryOp::Mul => (9, "*"),
        BinaryOp::Div => (9, "/"),
        BinaryOp::Rem => (9, "%"),
        BinaryOp::Pow => (10, "**"),
    }
}

/// The precedence of an expression's outermost operator; tails (arrow,
/// `let`) are 0.
fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Arrow(_) | ExprKind::Let { .. } => 0,
        ExprKind::Pipe { .. } => PIPE,
        ExprKind::Conditional { .. } => TERNARY,
        ExprKind::Logical { op, .. } => logical_prec(*op).0,
        ExprKind::Binary { op, .. } => binary_prec(*op).0,
        ExprKind::Unary { .. } => UNARY,
        ExprKind::Member { .. }
        | ExprKind::Index { .. }
        | ExprKind::Call { .. }
        | ExprKind::OptionalChain(_) => POSTFIX,
        _ => PRIMARY,
    }
}

/// Prints `e` where an expression of precedence at least `min` is needed;
/// `tail_ok` says whether an arrow or `let` may stand here unparenthesised
/// (nothing follows it in the enclosing expression).
fn expr_to(out: &mut String, e: &Expr, min: u8, tail_ok: bool) {
    let p = prec(e);
    let paren = if p == 0 { !tail_ok } else { p < min };
    if paren {
        out.push('(');
        bare(out, e, true);
        out.push(')');
    } else {
        bare(out, e, tail_ok);
    }
}

/// The object of a postfix operation: an `OptionalChain` must keep its
/// parentheses, or the chain would extend over the new operation.
fn postfix_object(out: &mut String, e: &Expr) {
    if matches!(e.kind, ExprKind::OptionalChain(_)) {
        out.push('(');
        bare(out, e, true);
        out.push(')');
    } else {
        expr_to(out, e, POSTFIX, false);
    }
}

fn bare(out: &mut String, e: &Expr, tail_ok: bool) {
    match &e.kind {
        ExprKind::Null => out.push_str("null"),
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Number(n) => number(out, *n),
        ExprKind::String(s) => string(out, s),
        ExprKind::Template { quasis, exprs } => {
            out.push('`');
            for (i, q) in quasis.iter().enumerate() {
                template_text(out, q);
                if let Some(x) = exprs.get(i) {
                    out.push_str("${");
                    expr_to(out, x, 0, true);
                    out.push('}');
                }
            }
            out.push('`');
        }
        ExprKind::Regex { pattern, flags } => {
            let _ = write!(out, "/{pattern}/{flags}");
        }
        ExprKind::Array(els) => {
            out.push('[');
            elements(out, els);
            out.push(']');
        }
        ExprKind::Object(props) => {
            out.push('{');
            for (i, p) in props.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match p {
                    Property::KeyValue { key, value } => {
                        key_to(out, key);
                        out.push_str(": ");
                        expr_to(out, value, 0, true);
                    }
                    Property::Spread(x, _) => {
                        out.push_str("...");
                        expr_to(out, x, 0, true);
                    }
                }
            }
            out.push('}');
        }
        ExprKind::Ident(n) => out.push_str(n),
        ExprKind::Member {
            object,
            property,
            optional,
        } => {
            postfix_object(out, object);
            out.push_str(if *optional { "?." } else { "." });
            out.push_str(&property.name);
        }
        ExprKind::Index { object, index } => {
            postfix_object(out, object);
            out.push('[');
            expr_to(out, index, 0, true);
            out.push(']');
        }
        ExprKind::Call {
            callee,
            args,
            optional,
        } => {
            postfix_object(out, callee);
            out.push_str(if *optional { "?.(" } else { "(" });
            elements(out, args);
            out.push(')');
        }
        ExprKind::OptionalChain(inner) => bare(out, inner, false),
        ExprKind::Unary { op, operand } => {
            out.push(match op {
                UnaryOp::Not => '!',
                UnaryOp::Neg => '-',
            });
            expr_to(out, operand, UNARY, tail_ok);
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (p, text) = binary_prec(*op);
            let (lmin, rmin) = if *op == BinaryOp::Pow {
                (UNARY, p)
            } else {
                (p, p + 1)
            };
            expr_to(out, lhs, lmin, false);
            let _ = write!(out, " {text} ");
            expr_to(out, rhs, rmin, tail_ok);
        }
        ExprKind::Logical { op, lhs, rhs } => {
            let (p, text) = logical_prec(*op);
            expr_to(out, lhs, p, false);
            let _ = write!(out, " {text} ");
            expr_to(out, rhs, p + 1, tail_ok);
        }
        ExprKind::Conditional {
            test,
            then,
            otherwise,
        } => {
            expr_to(out, test, TERNARY + 1, false);
            out.push_str(" ? ");
            expr_to(out, then, 0, true);
            out.push_str(" : ");
            expr_to(out, otherwise, TERNARY, tail_ok);
        }
        ExprKind::Pipe { lhs, rhs } => {
            expr_to(out, lhs, PIPE, false);
            out.push_str(" |> ");
            expr_to(out, rhs, TERNARY, tail_ok);
        }
        ExprKind::Arrow(a) => {
            match (a.params.as_slice(), &a.rest) {
                ([Pattern::Ident(n)], None) => out.push_str(&n.name),
                (params, rest) => {
                    out.push('(');
                    for (i, p) in params.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        pattern(out, p);
                    }
                    if let Some(r) = rest {
                        if !params.is_empty() {
                            out.push_str(", ");
                        }
                        out.push_str("...");
                        out.push_str(&r.name);
                    }
                    out.push(')');
                }
            }
            out.push_str(" => ");
            expr_to(out, &a.body, 0, true);
        }
        ExprKind::Let {
            target,
            value,
            body,
        } => {
            out.push_str("let ");
            pattern(out, target);
            out.push_str(" = ");
            expr_to(out, value, 0, true);
            out.push_str("; ");
            expr_to(out, body, 0, true);
        }
    }
}

fn elements(out: &mut String, els: &[Element]) {
    for (i, el) in els.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match el {
            Element::Expr(x) => expr_to(out, x, 0, true),
            Element::Spread(x, _) => {
                out.push_str("...");
                expr_to(out, x, 0, true);
            }
        }
    }
}

fn is_plain_ident(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(s, "true" | "false" | "null" | "let")
}

/// An object key or pattern key: bare when it is an identifier, else quoted.
fn key_to(out: &mut String, key: &Name) {
    if is_plain_ident(&key.name) {
        out.push_str(&key.name);
    } else {
        string(out, &key.name);
    }
}

fn pattern(out: &mut String, p: &Pattern) {
    match p {
        Pattern::Ident(n) => out.push_str(&n.name),
        Pattern::Object(o) => {
            out.push('{');
            let mut first = true;
            for e in &o.entries {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                let short = e.shorthand
                    && matches!(&e.target, Pattern::Ident(n) if n.name == e.key.name)
                    && is_plain_ident(&e.key.name);
                if short {
                    out.push_str(&e.key.name);
                } else {
                    key_to(out, &e.key);
                    out.push_str(": ");
                    pattern(out, &e.target);
                }
                if let Some(d) = &e.default {
                    out.push_str(" = ");
                    expr_to(out, d, 0, true);
                }
            }
            if let Some(r) = &o.rest {
                if !first {
                    out.push_str(", ");
                }
                out.push_str("...");
                out.push_str(&r.name);
            }
            out.push('}');
        }
        Pattern::Array(a) => {
            out.push('[');
            let mut first = true;
            for e in &a.elements {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                pattern(out, &e.target);
                if let Some(d) = &e.default {
                    out.push_str(" = ");
                    expr_to(out, d, 0, true);
                }
            }
            if let Some(r) = &a.rest {
                if !first {
                    out.push_str(", ");
                }
                out.push_str("...");
                out.push_str(&r.name);
            }
            out.push(']');
        }
    }
}

/// The shortest decimal text that reads back as `n`, in the lexer's number
/// syntax (no leading sign, exponent without `+`).
fn number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push_str(if n.is_nan() { "NaN" } else { "Infinity" });
        return;
    }
    let a = n.abs();
    if n.is_sign_negative() && a != 0.0 {
        out.push('-');
    }
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let _ = write!(out, "{a:e}");
    } else {
        let _ = write!(out, "{a}");
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn template_text(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '`' => out.push_str("\\`"),
            '\\' => out.push_str("\\\\"),
            '$' => out.push_str("\\$"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
}
