//! Emitting instructions: each with its span in the prototype's position
//! table, jumps patched to their targets, constants as immediate operands
//! or from the pool.

use xpr_syntax::ast;
use xpr_vm::{Error, Op, Value};

use crate::Compiler;
use crate::errors::span;

impl Compiler<'_> {
    pub(crate) fn emit(&mut self, op: Op, at: ast::Span) -> usize {
        let p = &mut self.func().proto;
        p.code.push(op);
        p.spans.push(span(at));
        p.code.len() - 1
    }

    fn here(&mut self) -> u32 {
        u32::try_from(self.func().proto.code.len()).unwrap_or(u32::MAX)
    }

    /// Points the jump at `at` to the next instruction.
    pub(crate) fn patch(&mut self, at: usize) {
        let target = self.here();
        if let Some(op) = self.func().proto.code.get_mut(at) {
            *op = match *op {
                Op::Jump(_) => Op::Jump(target),
                Op::JumpIfFalse(_) => Op::JumpIfFalse(target),
                Op::JumpIfFalseOrPop(_) => Op::JumpIfFalseOrPop(target),
                Op::JumpIfTrueOrPop(_) => Op::JumpIfTrueOrPop(target),
                Op::JumpIfNotNullOrPop(_) => Op::JumpIfNotNullOrPop(target),
                Op::JumpIfNull(_) => Op::JumpIfNull(target),
                other => other,
            };
        }
    }

    pub(crate) fn constant(&mut self, v: Value, at: ast::Span) -> Result<(), Error> {
        match v {
            Value::Null => {
                self.emit(Op::Null, at);
            }
            Value::Bool(true) => {
                self.emit(Op::True, at);
            }
            Value::Bool(false) => {
                self.emit(Op::False, at);
            }
            Value::Number(n)
                if n.fract() == 0.0
                    && n.abs() <= f64::from(i32::MAX)
                    && !(n == 0.0 && n.is_sign_negative()) =>
            {
                self.emit(Op::Int(n as i32), at);
            }
            other => {
                let idx = self.pooled(other, at)?;
                self.emit(Op::Const(idx), at);
            }
        }
        Ok(())
    }
}
