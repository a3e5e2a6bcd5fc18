//! Expressions: literals, names, member and index access, operators,
//! logical and conditional jumps, optional chains, templates, array and
//! object literals, and `let`; calls and pipes are in `calls.rs`, arrows
//! in `arrow.rs`, patterns in `pattern.rs`.

use xpr_syntax::ast::{self, Element, Expr, ExprKind, LogicalOp, Property, UnaryOp};
use xpr_vm::vm::is_restricted;
use xpr_vm::{Error, ErrorKind, Op, Value};

use crate::errors::{error_at, restricted, too_many};
use crate::fold::{binary_op, fold};
use crate::{Compiler, HashSet, MAX_NESTING};

pub(crate) fn has_spread(elements: &[Element]) -> bool {
    elements.iter().any(|e| matches!(e, Element::Spread(..)))
}

impl Compiler<'_> {
    /// Compiles `e` as a whole expression (not part of an enclosing optional chain).
    pub(crate) fn expr(&mut self, e: &Expr) -> Result<(), Error> {
        let saved = self.chain.take();
        let r = self.nested(e);
        self.chain = saved;
        r
    }

    /// Compiles `e` as the object or callee of a postfix chain (keeping the
    /// enclosing optional chain).
    pub(crate) fn spine(&mut self, e: &Expr) -> Result<(), Error> {
        self.nested(e)
    }

    fn nested(&mut self, e: &Expr) -> Result<(), Error> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            self.nesting -= 1;
            return Err(error_at(
                ErrorKind::Depth,
                "Expression depth limit exceeded".into(),
                e.span,
            ));
        }
        let optional = matches!(
            e.kind,
            ExprKind::Member { optional: true, .. } | ExprKind::Call { optional: true, .. }
        );
        let r = if optional && self.chain.is_none() {
            // A `?.` the parser did not wrap: the chain ends here.
            self.optional_chain(e)
        } else {
            self.lower(e)
        };
        self.nesting -= 1;
        r
    }

    fn optional_chain(&mut self, inner: &Expr) -> Result<(), Error> {
        let saved = self.chain.replace(Vec::new());
        let r = self.lower(inner);
        let jumps = std::mem::replace(&mut self.chain, saved).unwrap_or_default();
        r?;
        for j in jumps {
            self.patch(j);
        }
        Ok(())
    }

    pub(crate) fn optional_jump(&mut self, at: ast::Span) {
        let j = self.emit(Op::JumpIfNull(0), at);
        match &mut self.chain {
            Some(jumps) => jumps.push(j),
            None => self.chain = Some(vec![j]),
        }
    }

    fn lower(&mut self, e: &Expr) -> Result<(), Error> {
        let at = e.span;
        match &e.kind {
            ExprKind::Null => self.constant(Value::Null, at)?,
            ExprKind::Bool(b) => self.constant(Value::Bool(*b), at)?,
            ExprKind::Number(n) => self.constant(Value::Number(*n), at)?,
            ExprKind::String(s) => self.constant(Value::from(s.as_str()), at)?,
            ExprKind::Template { quasis, exprs } => self.template(quasis, exprs, at)?,
            ExprKind::Regex { pattern, flags } => {
                let i = self.regex(pattern, flags, at)?;
                self.emit(Op::Const(i), at);
            }
            ExprKind::Array(elements) => {
                if has_spread(elements) {
                    self.emit(Op::Mark(0), at);
                    self.elements(elements, Op::SpreadArray)?;
                    self.emit(Op::ArrayMark, at);
                } else {
                    self.elements(elements, Op::SpreadArray)?;
                    let n = u32::try_from(elements.len()).map_err(|_| too_many(at))?;
                    self.emit(Op::Array(n), at);
                }
            }
            ExprKind::Object(props) => self.object(props, at)?,
            ExprKind::Ident(name) => match self.resolve(name) {
                Some(v) => self.load_var(v, at),
                None => {
                    let g = self.global(name, true, at)?;
                    self.emit(Op::LoadGlobal(g), at);
                }
            },
            ExprKind::Member {
                object,
                property,
                optional,
            } => {
                if is_restricted(&property.name) {
                    return Err(restricted(&property.name, property.span));
                }
                let field_span = ast::Span::new(property.span.start, at.end);
                if self.local_field(object, property, *optional, field_span)? {
                    return Ok(());
                }
                self.spine(object)?;
                if *optional {
                    self.optional_jump(at);
                }
                let k = self.key(&property.name, property.span)?;
                if property.name == "length" {
                    self.emit(Op::GetLength(k), field_span);
                } else {
                    self.emit(Op::GetField(k), field_span);
                }
            }
            ExprKind::Index { object, index } => {
                self.spine(object)?;
                self.expr(index)?;
                self.emit(Op::Index, at);
            }
            ExprKind::Call {
                callee,
                args,
                optional,
            } => self.call(callee, args, *optional, at)?,
            ExprKind::OptionalChain(inner) => self.optional_chain(inner)?,
            ExprKind::Unary { op, operand } => {
                if let Some(v) = fold(e, 0) {
                    self.constant(v, at)?;
                } else {
                    self.expr(operand)?;
                    self.emit(
                        match op {
                            UnaryOp::Not => Op::Not,
                            UnaryOp::Neg => Op::Neg,
                        },
                        at,
                    );
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if let Some(v) = fold(e, 0) {
                    self.constant(v, at)?;
                } else if !self.compare_const(*op, lhs, rhs, at)? {
                    self.expr(lhs)?;
                    self.expr(rhs)?;
                    self.emit(binary_op(*op), at);
                }
            }
            ExprKind::Logical { op, lhs, rhs } => {
                self.expr(lhs)?;
                let j = self.emit(
                    match op {
                        LogicalOp::And => Op::JumpIfFalseOrPop(0),
                        LogicalOp::Or => Op::JumpIfTrueOrPop(0),
                        LogicalOp::Nullish => Op::JumpIfNotNullOrPop(0),
                    },
                    at,
                );
                self.expr(rhs)?;
                self.patch(j);
            }
            ExprKind::Conditional {
                test,
                then,
                otherwise,
            } => {
                self.expr(test)?;
                let to_else = self.emit(Op::JumpIfFalse(0), at);
                self.expr(then)?;
                let to_end = self.emit(Op::Jump(0), at);
                self.patch(to_else);
                self.expr(otherwise)?;
                self.patch(to_end);
            }
            ExprKind::Arrow(arrow) => self.arrow(arrow, at)?,
            ExprKind::Pipe { lhs, rhs } => self.pipe(lhs, rhs, at)?,
            ExprKind::Let {
                target,
                value,
                body,
            } => {
                self.expr(value)?;
                let (scope, next) = {
                    let f = self.func();
                    (f.scope.len(), f.next_slot)
                };
                let mut names = HashSet::default();
                self.bind(target, &mut names)?;
                self.expr(body)?;
                let f = self.func();
                f.scope.truncate(scope);
                f.next_slot = next;
            }
        }
        Ok(())
    }

    fn template(&mut self, quasis: &[String], exprs: &[Expr], at: ast::Span) -> Result<(), Error> {
        let mut n = 0u32;
        for (i, q) in quasis.iter().enumerate() {
            if !q.is_empty() {
                self.constant(Value::from(q.as_str()), at)?;
                n += 1;
            }
            if let Some(e) = exprs.get(i) {
                self.expr(e)?;
                n += 1;
            }
        }
        match n {
            0 => self.constant(Value::from(""), at)?,
            1 if exprs.is_empty() => {}
            _ => {
                self.emit(Op::Template(n), at);
            }
        }
        Ok(())
    }

    /// Array elements or arguments, spreads through `spread`.
    pub(crate) fn elements(&mut self, elements: &[Element], spread: Op) -> Result<(), Error> {
        for el in elements {
            match el {
                Element::Expr(e) => self.expr(e)?,
                Element::Spread(e, at) => {
                    self.expr(e)?;
                    self.emit(spread, *at);
                }
            }
        }
        Ok(())
    }

    fn object(&mut self, props: &[Property], at: ast::Span) -> Result<(), Error> {
        let spread = props.iter().any(|p| matches!(p, Property::Spread(..)));
        if spread {
            self.emit(Op::Mark(0), at);
        }
        for p in props {
            match p {
                Property::KeyValue { key, value } => {
                    if is_restricted(&key.name) {
                        return Err(restricted(&key.name, key.span));
                    }
                    self.constant(Value::from(key.name.as_str()), key.span)?;
                    self.expr(value)?;
                }
                Property::Spread(e, sp) => {
                    self.expr(e)?;
                    self.emit(Op::SpreadObject, *sp);
                }
            }
        }
        if spread {
            self.emit(Op::ObjectMark, at);
        } else {
            let n = u32::try_from(props.len()).map_err(|_| too_many(at))?;
            self.emit(Op::Object(n), at);
        }
        Ok(())
    }
}
