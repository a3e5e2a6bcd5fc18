//! Superinstructions: `x.f` of a local ([`Op::GetLocalField`], the local
//! not copied) and a comparison with a constant ([`Op::CompareConst`],
//! compared in place).

use xpr_syntax::ast::{self, BinaryOp, Expr, ExprKind};
use xpr_vm::program::Cmp;
use xpr_vm::{Error, Op};

use crate::Compiler;
use crate::fold::fold;
use crate::scope::Var;

fn comparison(op: BinaryOp) -> Option<Cmp> {
    Some(match op {
        BinaryOp::Eq => Cmp::Eq,
        BinaryOp::Ne => Cmp::Ne,
        BinaryOp::Lt => Cmp::Lt,
        BinaryOp::Le => Cmp::Le,
        BinaryOp::Gt => Cmp::Gt,
        BinaryOp::Ge => Cmp::Ge,
        _ => return None,
    })
}

impl Compiler<'_> {
    /// `x.f` of a local `x` (not optional, not `length`): one
    /// [`Op::GetLocalField`] at `field_span`. Whether it was emitted.
    pub(crate) fn local_field(
        &mut self,
        object: &Expr,
        property: &ast::Name,
        optional: bool,
        field_span: ast::Span,
    ) -> Result<bool, Error> {
        if let (ExprKind::Ident(name), false, false) =
            (&object.kind, optional, property.name == "length")
            && let Some(Var::Local(slot)) = self.resolve(name)
        {
            // Superinstruction: a local's field, the local not copied.
            let key = self.key(&property.name, property.span)?;
            self.emit(Op::GetLocalField { slot, key }, field_span);
            return Ok(true);
        }
        Ok(false)
    }

    /// `lhs <op> rhs` for a comparison `op` whose right side folds to a
    /// constant: `lhs`, then one [`Op::CompareConst`]. Whether it was emitted.
    pub(crate) fn compare_const(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        at: ast::Span,
    ) -> Result<bool, Error> {
        if let (Some(cmp), Some(k)) = (comparison(op), fold(rhs, 0)) {
            // Superinstruction: compare with a constant in place.
            self.expr(lhs)?;
            let constant = self.pooled(k, rhs.span)?;
            self.emit(Op::CompareConst { cmp, constant }, at);
            return Ok(true);
        }
        Ok(false)
    }
}
