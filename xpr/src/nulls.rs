//! Naming the null operand of an operator's type error: the VM, which
//! never sees the source, hints `give it a default, (x ?? 0)`; the program
//! keeps the spans of its binary operators and the source, so that the
//! hint can show the operand as written: `(properties.felt ?? 0) > 10`.

use std::sync::Arc;

use xpr_syntax::ast::{Element, Expr, ExprKind, Pattern, Property, UnaryOp};
use xpr_vm::program::store::{Reader, Writer};
use xpr_vm::{Error, ErrorKind, Span, foreign};

/// The longest expression, in characters, a hint quotes whole; a longer
/// one (or one over several lines) is quoted as its null operand with its
/// default alone, and a null operand that long itself is not quoted: the
/// VM's hint, `(x ?? 0)`, stays.
const MAX_QUOTED: usize = 80;

/// Whether `text` fits in a one-line hint: at most [`MAX_QUOTED`]
/// characters and no line break.
fn quotable(text: &str) -> bool {
    !text.contains(['\n', '\r']) && text.chars().nth(MAX_QUOTED).is_none()
}

/// An operator of the source: its span and its operands' (for `-x` and a
/// call of one argument, `round(x)`, the one operand is the left), each
/// with whether it binds tighter than `??`.
#[derive(Debug, Clone, Copy)]
struct Site {
    whole: Span,
    lhs: (Span, bool),
    rhs: Option<(Span, bool)>,
    /// The operands stand alone (a call's argument): `x ?? 0` needs no
    /// parentheses around it.
    bare: bool,
}

/// The binary operators of a program's source, and the source.
#[derive(Debug, Clone)]
pub(crate) struct NullSites {
    source: Arc<str>,
    sites: Arc<[Site]>,
}

impl NullSites {
    /// The binary operators of `ast`, parsed from `source`.
    pub(crate) fn new(source: &str, ast: &Expr) -> Self {
        let mut sites = Vec::new();
        collect(ast, &mut sites);
        NullSites {
            source: source.into(),
            sites: sites.into(),
        }
    }

    /// `error` with its null-operand hint naming the operand, when it is an
    /// operator's type error about a null operand raised at one of the
    /// sites; otherwise `error` unchanged.
    #[cold]
    pub(crate) fn name_operand(&self, error: Error) -> Error {
        if error.kind() != ErrorKind::Type {
            return error;
        }
        let Some(nulls) = error.hint().and_then(foreign::null_operands) else {
            return error;
        };
        let Some(site) = error
            .span()
            .and_then(|at| self.sites.iter().find(|s| s.whole == at))
        else {
            return error;
        };
        match self.hint(site, nulls) {
            Some(hint) => error.with_hint(hint),
            None => error,
        }
    }

    /// The hint for `site` whose operands `nulls` names.
    fn hint(&self, site: &Site, nulls: foreign::NullOperands) -> Option<String> {
        let text = |s: Span| slice(&self.source, s);
        let with_default = |(s, simple): (Span, bool)| {
            let t = text(s)?;
            let d = nulls.default;
            Some(match (simple || parenthesized(t), site.bare) {
                (true, true) => format!("{t} ?? {d}"),
                (true, false) => format!("({t} ?? {d})"),
                (false, true) => format!("({t}) ?? {d}"),
                (false, false) => format!("(({t}) ?? {d})"),
            })
        };
        // The null operands, in source order.
        let null: Vec<(Span, bool)> = [
            nulls.left.then_some(site.lhs),
            site.rhs.filter(|_| nulls.right),
        ]
        .into_iter()
        .flatten()
        .collect();
        let names = null
            .iter()
            .map(|(s, _)| text(*s).filter(|t| quotable(t)).map(|t| format!("`{t}`")))
            .collect::<Option<Vec<_>>>()?;
        let named = match names.as_slice() {
            [one] => format!("{one} is null"),
            [a, b] => format!("{a} and {b} are null"),
            _ => return None,
        };
        let whole = text(site.whole)?;
        let fixed = if quotable(whole) {
            // The whole operation as written, each null operand with its
            // default.
            let mut fixed = String::new();
            let mut at = site.whole.start;
            for operand in &null {
                fixed.push_str(text(Span::new(at, operand.0.start))?);
                fixed.push_str(&with_default(*operand)?);
                at = operand.0.end;
            }
            fixed.push_str(text(Span::new(at, site.whole.end))?);
            fixed
        } else {
            with_default(*null.first()?)?
        };
        let them = if null.len() == 2 {
            "give them defaults"
        } else {
            "give it a default"
        };
        Some(format!("{named}: {them}, `{fixed}`"))
    }
}

/// The text of `span` (character offsets) in `source`.
fn slice(source: &str, span: Span) -> Option<&str> {
    let byte = |c: u32| {
        source
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(source.len()))
            .nth(c as usize)
    };
    let (start, end) = (byte(span.start)?, byte(span.end)?);
    source.get(start..end)
}

/// Whether `text` is one parenthesized group, `(a ? b : c)` (not `(a) +
/// (b)`); text with quotes is not read, and counts as not.
fn parenthesized(text: &str) -> bool {
    if !text.starts_with('(') || text.contains(['"', '\'', '`']) {
        return false;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1 == text.len();
                }
            }
            _ => {}
        }
    }
    false
}

fn span(s: xpr_syntax::Span) -> Span {
    Span::new(s.start, s.end)
}

/// Whether `e` binds tighter than `??`, so that `e ?? 0` needs no
/// parentheses around `e`.
fn simple(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_)
            | ExprKind::Member { .. }
            | ExprKind::Index { .. }
            | ExprKind::Call { .. }
            | ExprKind::OptionalChain(_)
            | ExprKind::Null
            | ExprKind::Number(_)
            | ExprKind::String(_)
    )
}

/// Appends the binary operators of `e` and of its parts to `out`.
fn collect(e: &Expr, out: &mut Vec<Site>) {
    let elements = |xs: &[Element], out: &mut Vec<Site>| {
        for x in xs {
            match x {
                Element::Expr(e) | Element::Spread(e, _) => collect(e, out),
            }
        }
    };
    match &e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::String(_)
        | ExprKind::Regex { .. }
        | ExprKind::Ident(_) => {}
        ExprKind::Template { exprs, .. } => exprs.iter().for_each(|x| collect(x, out)),
        ExprKind::Array(xs) => elements(xs, out),
        ExprKind::Object(props) => {
            for p in props {
                match p {
                    Property::KeyValue { value, .. } => collect(value, out),
                    Property::Spread(v, _) => collect(v, out),
                }
            }
        }
        ExprKind::Member { object, .. } => collect(object, out),
        ExprKind::Index { object, index } => {
            collect(object, out);
            collect(index, out);
        }
        ExprKind::Call { callee, args, .. } => {
            // A built-in's one argument (`round(x)`): the error is at the call.
            if let (ExprKind::Ident(_), [Element::Expr(arg)]) = (&callee.kind, args.as_slice()) {
                out.push(Site {
                    whole: span(e.span),
                    lhs: (span(arg.span), simple(arg)),
                    rhs: None,
                    bare: true,
                });
            }
            collect(callee, out);
            elements(args, out);
        }
        ExprKind::OptionalChain(x) => collect(x, out),
        ExprKind::Unary { op, operand } => {
            if *op == UnaryOp::Neg {
                out.push(Site {
                    whole: span(e.span),
                    lhs: (span(operand.span), simple(operand)),
                    rhs: None,
                    bare: false,
                });
            }
            collect(operand, out);
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            out.push(Site {
                whole: span(e.span),
                lhs: (span(lhs.span), simple(lhs)),
                rhs: Some((span(rhs.span), simple(rhs))),
                bare: false,
            });
            collect(lhs, out);
            collect(rhs, out);
        }
        ExprKind::Logical { lhs, rhs, .. } | ExprKind::Pipe { lhs, rhs } => {
            collect(lhs, out);
            collect(rhs, out);
        }
        ExprKind::Conditional {
            test,
            then,
            otherwise,
        } => {
            collect(test, out);
            collect(then, out);
            collect(otherwise, out);
        }
        ExprKind::Arrow(arrow) => {
            arrow.params.iter().for_each(|p| pattern(p, out));
            collect(&arrow.body, out);
        }
        ExprKind::Let {
            target,
            value,
            body,
        } => {
            pattern(target, out);
            collect(value, out);
            collect(body, out);
        }
    }
}

/// Appends the binary operators of a pattern's defaults.
fn pattern(p: &Pattern, out: &mut Vec<Site>) {
    match p {
        Pattern::Ident(_) => {}
        Pattern::Object(o) => {
            for entry in &o.entries {
                pattern(&entry.target, out);
                if let Some(d) = &entry.default {
                    collect(d, out);
                }
            }
        }
        Pattern::Array(a) => {
            for element in &a.elements {
                pattern(&element.target, out);
                if let Some(d) = &element.default {
                    collect(d, out);
                }
            }
        }
    }
}

/// Stored programs ([`crate::Program::to_bytes`]): the source and the
/// operator sites, as they are (a span out of the source names nothing:
/// [`slice`] gives `None` and the VM's hint stays).
impl NullSites {
    /// The source text.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// Appends the source and the sites.
    pub(crate) fn write(&self, w: &mut Writer) {
        w.str(&self.source);
        w.len(self.sites.len());
        for s in self.sites.iter() {
            w.span(s.whole);
            w.span(s.lhs.0);
            w.bool(s.lhs.1);
            match s.rhs {
                Some((span, simple)) => {
                    w.u8(1);
                    w.span(span);
                    w.bool(simple);
                }
                None => w.u8(0),
            }
            w.bool(s.bare);
        }
    }

    /// Reads what [`NullSites::write`] wrote.
    pub(crate) fn read(r: &mut Reader) -> Result<Self, Error> {
        let source: Arc<str> = r.str()?.into();
        let n = r.count()?;
        let mut sites = Vec::with_capacity(n);
        for _ in 0..n {
            let whole = r.span()?;
            let lhs = (r.span()?, r.bool()?);
            let rhs = if r.bool()? {
                Some((r.span()?, r.bool()?))
            } else {
                None
            };
            let bare = r.bool()?;
            sites.push(Site {
                whole,
                lhs,
                rhs,
                bare,
            });
        }
        Ok(NullSites {
            source,
            sites: sites.into(),
        })
    }
}
