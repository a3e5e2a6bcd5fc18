//! One pass for a chain of comparisons: `&&` and `||` over comparisons of
//! null-free double columns with numbers (`delay > 60 && distance >
//! 1000`), evaluated block by block while each block is in cache, without
//! a vector per operation. Every row reaches the same operations as row by
//! row (a right operand counts only the rows its left lets through), so
//! the fuel is exact; it is charged once the pass (linear in the batch,
//! creating nothing but the result) has counted it, before any further
//! operation.

use xpr::bytecode::Cmp;

use super::compile::{Expr, Node};
use super::eval::column_vs_number;

/// A chain: comparisons joined by `&&` and `||`.
enum Tree<'p> {
    Leaf(&'p [f64], Cmp, f64),
    And(Box<Tree<'p>>, Box<Tree<'p>>),
    Or(Box<Tree<'p>>, Box<Tree<'p>>),
}

/// The chain `node` is, if it is one (with at least one `&&` or `||`).
fn tree(node: &Node) -> Option<Tree<'_>> {
    match &node.expr {
        Expr::And(l, r) => Some(Tree::And(Box::new(tree(l)?), Box::new(tree(r)?))),
        Expr::Or(l, r) => Some(Tree::Or(Box::new(tree(l)?), Box::new(tree(r)?))),
        Expr::Bin(super::compile::Bin::Cmp(cmp), l, r) => {
            let (x, c) = column_vs_number(l, r)?;
            Some(Tree::Leaf(x, *cmp, c))
        }
        _ => None,
    }
}

const BLOCK: usize = 1024;

/// Evaluates `t` on the rows of a block that `reach` lets through, into
/// `out`; adds the fuel of those rows to `fuel`. `false` when a value is
/// NaN or infinite (the general path then fails its row).
fn block(t: &Tree<'_>, at: usize, reach: &[bool], out: &mut [bool], fuel: &mut u64) -> bool {
    let reached = || reach.iter().map(|b| u64::from(*b)).sum::<u64>();
    match t {
        Tree::Leaf(x, cmp, c) => {
            let xs = &x[at..at + out.len()];
            if !super::eval::all_finite_slice(xs) {
                return false;
            }
            // The column read and the comparison.
            *fuel += 2 * reached();
            let c = *c;
            macro_rules! by {
                ($op:tt) => {
                    for (o, v) in out.iter_mut().zip(xs) {
                        *o = *v $op c;
                    }
                };
            }
            match cmp {
                Cmp::Lt => by!(<),
                Cmp::Le => by!(<=),
                Cmp::Gt => by!(>),
                Cmp::Ge => by!(>=),
                Cmp::Eq => by!(==),
                Cmp::Ne => by!(!=),
            }
            true
        }
        Tree::And(l, r) | Tree::Or(l, r) => {
            let and = matches!(t, Tree::And(..));
            let mut left = [false; BLOCK];
            let left = &mut left[..out.len()];
            if !block(l, at, reach, left, fuel) {
                return false;
            }
            // The jump.
            *fuel += reached();
            let mut through = [false; BLOCK];
            let through = &mut through[..out.len()];
            for ((t, r), l) in through.iter_mut().zip(reach).zip(left.iter()) {
                *t = *r & (*l == and);
            }
            if !block(r, at, through, out, fuel) {
                return false;
            }
            for (o, l) in out.iter_mut().zip(left.iter()) {
                *o = if and { *l & *o } else { *l | *o };
            }
            true
        }
    }
}

/// The values of the chain `node` on all `rows` rows and its fuel, if
/// `node` is such a chain and every value it reads is finite.
pub(crate) fn chain(node: &Node, rows: usize) -> Option<(Vec<bool>, u64)> {
    let t = tree(node)?;
    let mut out = vec![false; rows];
    let mut fuel = 0u64;
    let all = [true; BLOCK];
    for (k, os) in out.chunks_mut(BLOCK).enumerate() {
        let n = os.len();
        if !block(&t, k * BLOCK, &all[..n], os, &mut fuel) {
            return None;
        }
    }
    Some((out, fuel))
}
