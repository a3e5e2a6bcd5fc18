//! Constant folding: unary and binary operators on scalar literals, with
//! exactly the VM's rules ([`ops::apply`]); an error found while folding
//! is left for run time.

use xpr_syntax::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use xpr_vm::vm::ops;
use xpr_vm::{Op, Value};

fn is_scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
    )
}

/// The value of a tree of scalar literals and operators, if it folds.
pub(crate) fn fold(e: &Expr, depth: u32) -> Option<Value> {
    if depth > 64 {
        return None;
    }
    match &e.kind {
        ExprKind::Null => Some(Value::Null),
        ExprKind::Bool(b) => Some(Value::Bool(*b)),
        ExprKind::Number(n) => Some(Value::Number(*n)),
        ExprKind::String(s) => Some(Value::from(s.as_str())),
        ExprKind::Unary { op, operand } => {
            let v = fold(operand, depth + 1)?;
            let op = match op {
                UnaryOp::Not => Op::Not,
                UnaryOp::Neg => Op::Neg,
            };
            ops::apply(op, &v, &Value::Null).ok().filter(is_scalar)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let a = fold(lhs, depth + 1)?;
            let b = fold(rhs, depth + 1)?;
            ops::apply(binary_op(*op), &a, &b).ok().filter(is_scalar)
        }
        _ => None,
    }
}

pub(crate) fn binary_op(op: BinaryOp) -> Op {
    match op {
        BinaryOp::Add => Op::Add,
        BinaryOp::Sub => Op::Sub,
        BinaryOp::Mul => Op::Mul,
        BinaryOp::Div => Op::Div,
        BinaryOp::Rem => Op::Rem,
        BinaryOp::Pow => Op::Pow,
        BinaryOp::Eq => Op::Eq,
        BinaryOp::Ne => Op::Ne,
        BinaryOp::Lt => Op::Lt,
        BinaryOp::Le => Op::Le,
        BinaryOp::Gt => Op::Gt,
        BinaryOp::Ge => Op::Ge,
    }
}
