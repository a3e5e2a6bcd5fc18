//! A chain of string `+` (`origin + "-" + destination`), with `upper()` or
//! `lower()` of a part (`origin.lower() + " -> " + ...`) or of the whole,
//! built in one pass into one buffer instead of a buffer per operation.
//!
//! Same values, failed rows and budget as the operations one at a time
//! (`Eval::binary`, `Eval::call`): each `+`, each case mapping is charged
//! as it would be, from the bytes its operands hold, before the pass; a
//! null operand or non-ASCII text under a case mapping fails its row. One
//! difference, upward only: a part's case mapping on a non-ASCII row (a
//! failed row, run again on the VM) counts that row's text in the `+`
//! above it, where one at a time it would count nothing.

use xpr::Error;

use super::compile::{Bin, Call, Expr, Kind, Node};
use super::eval::{Eval, Sel};
use super::vals::{StrBuf, Strs, Vals};

/// Whether `node` is a `+` of two strings.
pub(super) fn is_concat(node: &Node) -> bool {
    matches!(&node.expr, Expr::Bin(Bin::Add, l, r) if l.kind == Kind::Str && r.kind == Kind::Str)
}

/// `upper()` or `lower()` of one string, if `node` is one: the mapping
/// and its receiver.
fn case_of(node: &Node) -> Option<(Call, &Node)> {
    match &node.expr {
        Expr::Call(call @ (Call::Upper | Call::Lower), args)
            if args.len() == 1 && args[0].kind == Kind::Str =>
        {
            Some((*call, &args[0]))
        }
        _ => None,
    }
}

/// A chain's tree with its leaves evaluated.
enum Tree<'p> {
    /// A part's values, and the case mapping still to apply to them.
    Leaf(Vals<'p>, Option<Call>),
    Add(Box<Tree<'p>>, Box<Tree<'p>>),
}

impl Tree<'_> {
    /// Whether every leaf is strings.
    fn all_strings(&self) -> bool {
        match self {
            Tree::Leaf(v, _) => matches!(v, Vals::Str(..)),
            Tree::Add(l, r) => l.all_strings() && r.all_strings(),
        }
    }
}

/// One part of the result: its strings and its case mapping.
struct Part<'t, 'p> {
    strs: &'t Strs<'p>,
    case: Option<Call>,
}

impl Eval<'_> {
    /// The chain `node` (a `+` of two strings, [`is_concat`]), then `case`
    /// of the whole if given, on the rows of `sel`.
    pub(super) fn concat<'p>(
        &mut self,
        node: &'p Node,
        case: Option<Call>,
        sel: Sel<'_>,
    ) -> Result<Vals<'p>, Error> {
        let tree = self.leaves(node, sel)?;
        if !tree.all_strings() {
            // Some part is no string: the operations one at a time.
            let v = self.fold(tree, sel)?;
            return match case {
                Some(call) => self.call(call, vec![v], sel),
                None => Ok(v),
            };
        }
        // The budget, operation by operation, before the pass.
        let bytes = self.charge_tree(&tree, sel)?;
        if case.is_some() {
            self.charge_text(sel, 2, 3 * bytes, bytes)?;
        }
        let mut parts = Vec::new();
        flatten(&tree, &mut parts);
        let rows = self.rows;
        let mut out = StrBuf::with_capacity(rows, usize::try_from(bytes).unwrap_or(0));
        for i in 0..rows {
            if sel.has(i) {
                let row_start = out.data.len();
                let mut ascii = true;
                for p in &parts {
                    let t = p.strs.get(i);
                    let start = out.data.len();
                    out.data.push_str(t);
                    if let Some(call) = p.case {
                        ascii &= t.is_ascii();
                        map_case(call, &mut out.data[start..]);
                    }
                }
                if let Some(call) = case {
                    let row = &mut out.data[row_start..];
                    ascii &= row.is_ascii();
                    map_case(call, row);
                }
                // Other than ASCII: the VM's case mapping decides.
                if !ascii {
                    self.fail(i);
                }
            }
            out.end_row();
        }
        Ok(Vals::Str(Strs::Owned(out), None))
    }

    /// The chain's tree, its leaves evaluated in order; a leaf that is a
    /// case mapping of strings is left to the pass (its receiver
    /// evaluated), of anything else applied now.
    fn leaves<'p>(&mut self, node: &'p Node, sel: Sel<'_>) -> Result<Tree<'p>, Error> {
        if is_concat(node)
            && let Expr::Bin(_, l, r) = &node.expr
        {
            let l = self.leaves(l, sel)?;
            let r = self.leaves(r, sel)?;
            return Ok(Tree::Add(Box::new(l), Box::new(r)));
        }
        if let Some((call, recv)) = case_of(node) {
            let v = self.eval(recv, sel)?;
            if matches!(v, Vals::Str(..)) {
                return Ok(Tree::Leaf(v, Some(call)));
            }
            return Ok(Tree::Leaf(self.call(call, vec![v], sel)?, None));
        }
        Ok(Tree::Leaf(self.eval(node, sel)?, None))
    }

    /// The tree's values by the operations one at a time.
    fn fold<'p>(&mut self, tree: Tree<'p>, sel: Sel<'_>) -> Result<Vals<'p>, Error> {
        match tree {
            Tree::Leaf(v, None) => Ok(v),
            Tree::Leaf(v, Some(call)) => self.call(call, vec![v], sel),
            Tree::Add(l, r) => {
                let l = self.fold(*l, sel)?;
                let r = self.fold(*r, sel)?;
                self.binary(Bin::Add, l, r, sel)
            }
        }
    }

    /// Charges the tree's case mappings and `+`s as one at a time (every
    /// leaf strings), fails the rows a null operand fails, and returns the
    /// bytes of its text as an operand of what is above it.
    fn charge_tree(&mut self, tree: &Tree<'_>, sel: Sel<'_>) -> Result<u64, Error> {
        match tree {
            Tree::Leaf(Vals::Str(s, nulls), case) => {
                self.fail_nulls(sel, nulls);
                let bytes = self.text_bytes_strs(sel, &[s]);
                if case.is_none() {
                    return Ok(bytes);
                }
                self.charge_text(sel, 2, 3 * bytes, bytes)?;
                // The mapped text: as long as the receiver's.
                Ok(bytes)
            }
            Tree::Leaf(..) => Ok(0),
            Tree::Add(l, r) => {
                let bytes = self.charge_tree(l, sel)? + self.charge_tree(r, sel)?;
                self.charge_text(sel, 1, bytes, bytes)?;
                Ok(bytes)
            }
        }
    }
}

/// The tree's leaves in order.
fn flatten<'t, 'p>(tree: &'t Tree<'p>, parts: &mut Vec<Part<'t, 'p>>) {
    match tree {
        Tree::Leaf(Vals::Str(strs, _), case) => parts.push(Part { strs, case: *case }),
        Tree::Leaf(..) => {}
        Tree::Add(l, r) => {
            flatten(l, parts);
            flatten(r, parts);
        }
    }
}

fn map_case(call: Call, text: &mut str) {
    if call == Call::Upper {
        text.make_ascii_uppercase();
    } else {
        text.make_ascii_lowercase();
    }
}
