//! The vector kernels a plan's operations run on: columns read as values,
//! comparisons, arithmetic with its finiteness checked block by block,
//! equality, ordering, and the blending of `&&`, `||`, `??` and `?:`.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use xpr::Value;
use xpr::bytecode::Cmp;

use super::compile::{Expr, Kind, Node};
use super::vals::{Nulls, Nums, StrBuf, Strs, Vals};

/// A null-free column read directly (under no struct) and the constant
/// of `column <cmp> number` (a `CompareConst`).
pub(super) fn column_vs_constant<'p>(l: &'p Node, r: &Node) -> Option<(&'p ArrayRef, f64)> {
    let (
        Expr::Column { leaf, parents },
        Expr::Const {
            value: Value::Number(c),
            units: 0,
        },
    ) = (&l.expr, &r.expr)
    else {
        return None;
    };
    // Logical: a dictionary's null values count, not only its null keys.
    (parents.is_empty() && leaf.logical_null_count() == 0).then_some((leaf, *c))
}

/// As [`column_vs_constant`], of a `Float64` column: its values.
pub(super) fn column_vs_number<'p>(l: &'p Node, r: &Node) -> Option<(&'p [f64], f64)> {
    let (leaf, c) = column_vs_constant(l, r)?;
    Some((leaf.as_primitive_opt::<Float64Type>()?.values(), c))
}

/// `x[i] <cmp> c` for every row, block by block with each block's
/// finiteness checked while it is in cache; `None` if some value is NaN or
/// infinite (it reads as null: the general path fails those rows).
pub(super) fn compare_finite(x: &[f64], cmp: Cmp, c: f64) -> Option<Vec<bool>> {
    const BLOCK: usize = 2048;
    let mut out = vec![false; x.len()];
    for (xs, os) in x.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        if !all_finite_slice(xs) {
            return None;
        }
        macro_rules! by {
            ($op:tt) => {
                for (o, v) in os.iter_mut().zip(xs) {
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
    }
    Some(out)
}

/// A column's values (its type was checked when the plan was typed).
pub(super) fn column(a: &ArrayRef) -> Vals<'_> {
    // Logical: a dictionary's null values count, not only its null keys.
    let nulls: Nulls = a
        .logical_nulls()
        .filter(|n| n.null_count() > 0)
        .map(|n| n.iter().map(|valid| !valid).collect());
    let num = |v: Vec<f64>| {
        // NaN and infinities read as null.
        let nulls = if all_finite_slice(&v) {
            nulls.clone()
        } else {
            Some(
                (0..v.len())
                    .map(|i| !v[i].is_finite() || a.is_null(i))
                    .collect(),
            )
        };
        Vals::Num(Nums::Owned(v), nulls)
    };
    match a.data_type() {
        DataType::Boolean => {
            let b = a.as_boolean();
            Vals::Bool(b.values().iter().collect(), nulls)
        }
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().values();
            if all_finite_slice(v) {
                Vals::Num(Nums::Borrowed(v), nulls)
            } else {
                num(v.to_vec())
            }
        }
        DataType::Dictionary(k, v) if super::vals::dictionary_of_numbers(k, v) => {
            // Each entry converted once, then looked up by key (a null
            // key's cell is 0, and null).
            let d = a.as_dictionary::<Int32Type>();
            let entries = numbers(d.values().as_ref()).unwrap_or_default();
            num(d
                .keys()
                .values()
                .iter()
                .map(|&k| {
                    usize::try_from(k)
                        .ok()
                        .and_then(|k| entries.get(k))
                        .copied()
                        .unwrap_or(0.0)
                })
                .collect())
        }
        _ => match numbers(a.as_ref()) {
            Some(v) => num(v),
            None => match Strs::of(a.as_ref()) {
                Some(s) => Vals::Str(s, nulls),
                None => Vals::Null,
            },
        },
    }
}

/// The values of a numeric column other than `Float64` as doubles (a null
/// cell's as the column holds it); `None` for other types.
pub(super) fn numbers(a: &dyn Array) -> Option<Vec<f64>> {
    macro_rules! as_f64 {
        ($t:ty) => {
            a.as_primitive::<$t>()
                .values()
                .iter()
                .map(|x| *x as f64)
                .collect()
        };
    }
    Some(match a.data_type() {
        DataType::Float64 => a.as_primitive::<Float64Type>().values().to_vec(),
        DataType::Float32 => as_f64!(Float32Type),
        DataType::Int8 => as_f64!(Int8Type),
        DataType::Int16 => as_f64!(Int16Type),
        DataType::Int32 => as_f64!(Int32Type),
        DataType::Int64 => as_f64!(Int64Type),
        DataType::UInt8 => as_f64!(UInt8Type),
        DataType::UInt16 => as_f64!(UInt16Type),
        DataType::UInt32 => as_f64!(UInt32Type),
        DataType::UInt64 => as_f64!(UInt64Type),
        _ => return None,
    })
}

// `x - x` on purpose: NaN for NaN and the infinities.
#[allow(clippy::eq_op)]
fn all_finite_slice(v: &[f64]) -> bool {
    // `x - x` is 0 for a finite `x`, NaN for NaN and the infinities; eight
    // independent sums vectorise.
    let mut acc = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x - x;
        }
    }
    acc.iter().all(|a| *a == 0.0) && rest.iter().all(|x| x.is_finite())
}

pub(super) fn map_num(x: &Nums<'_>, rows: usize, f: impl Fn(f64) -> f64) -> Nums<'static> {
    match x.slice() {
        Some(v) => Nums::Owned(v.iter().map(|a| f(*a)).collect()),
        None => Nums::Owned(vec![f(x.get(0)); rows]),
    }
}

/// `f(x[i], y[i])` for every row, and whether every result is finite
/// (checked block by block while the block is in cache).
pub(super) fn zip_num<'p>(
    x: Nums<'p>,
    y: Nums<'p>,
    rows: usize,
    f: impl Fn(f64, f64) -> f64,
) -> (Nums<'p>, bool) {
    const BLOCK: usize = 2048;
    let mut finite = true;
    // Into an operand's own vector when one is computed (no allocation,
    // no fresh pages to fault in), else a new one.
    let (mut out, other, first) = match (x, y) {
        (Nums::Owned(v), y) => (v, y, true),
        (x, Nums::Owned(v)) => (v, x, false),
        (x, y) => {
            let mut out: Vec<f64> = Vec::with_capacity(rows);
            let mut at = 0;
            while at < rows {
                let len = BLOCK.min(rows - at);
                match (x.slice(), y.slice()) {
                    (Some(a), Some(b)) => out.extend(
                        a[at..at + len]
                            .iter()
                            .zip(&b[at..at + len])
                            .map(|(a, b)| f(*a, *b)),
                    ),
                    (Some(a), None) => {
                        let b = y.get(0);
                        out.extend(a[at..at + len].iter().map(|a| f(*a, b)));
                    }
                    (None, Some(b)) => {
                        let a = x.get(0);
                        out.extend(b[at..at + len].iter().map(|b| f(a, *b)));
                    }
                    (None, None) => out.extend(std::iter::repeat_n(f(x.get(0), y.get(0)), len)),
                }
                finite &= all_finite_slice(&out[at..]);
                at += len;
            }
            return (Nums::Owned(out), finite);
        }
    };
    // `f(out, other)` if `out` was the left operand, else `f(other, out)`.
    let g = |a: f64, b: f64| if first { f(a, b) } else { f(b, a) };
    for (k, block) in out.chunks_mut(BLOCK).enumerate() {
        let at = k * BLOCK;
        match other.slice() {
            Some(b) => {
                for (a, b) in block.iter_mut().zip(&b[at..]) {
                    *a = g(*a, *b);
                }
            }
            None => {
                let b = other.get(0);
                for a in block.iter_mut() {
                    *a = g(*a, b);
                }
            }
        }
        finite &= all_finite_slice(block);
    }
    (Nums::Owned(out), finite)
}

pub(super) fn cmp_holds(cmp: Cmp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Greater, Less};
    match cmp {
        Cmp::Lt => o == Less,
        Cmp::Le => o != Greater,
        Cmp::Gt => o == Greater,
        Cmp::Ge => o != Less,
        Cmp::Eq => o.is_eq(),
        Cmp::Ne => o.is_ne(),
    }
}

pub(super) fn order_nums(cmp: Cmp, x: &Nums<'_>, y: &Nums<'_>, rows: usize) -> Vec<bool> {
    macro_rules! by {
        ($op:tt) => {
            match (x.slice(), y.slice()) {
                (Some(a), Some(b)) => a.iter().zip(b).map(|(a, b)| *a $op *b).collect(),
                (Some(a), None) => {
                    let b = y.get(0);
                    a.iter().map(|a| *a $op b).collect()
                }
                (None, Some(b)) => {
                    let a = x.get(0);
                    b.iter().map(|b| a $op *b).collect()
                }
                (None, None) => vec![x.get(0) $op y.get(0); rows],
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
}

/// Structural equality of two nodes' values, row by row (null equals null
/// only; values of different kinds are unequal).
pub(super) fn equal(l: &Vals<'_>, r: &Vals<'_>, rows: usize) -> Vec<bool> {
    let both = |i: usize, same: &dyn Fn(usize) -> bool| match (l.null(i), r.null(i)) {
        (true, true) => true,
        (false, false) => same(i),
        _ => false,
    };
    match (l, r) {
        (Vals::Num(x, None), Vals::Num(y, None)) => order_nums(Cmp::Eq, x, y, rows),
        (Vals::Num(x, _), Vals::Num(y, _)) => (0..rows)
            .map(|i| both(i, &|i| x.get(i) == y.get(i)))
            .collect(),
        (Vals::Str(x, _), Vals::Str(y, _)) => (0..rows)
            .map(|i| both(i, &|i| x.get(i) == y.get(i)))
            .collect(),
        (Vals::Bool(x, _), Vals::Bool(y, _)) => {
            (0..rows).map(|i| both(i, &|i| x[i] == y[i])).collect()
        }
        _ => (0..rows).map(|i| both(i, &|_| false)).collect(),
    }
}

/// Row by row, `r` where `right` holds, else `l`: the values of `&&`,
/// `||`, `??` and `?:`, of kind `kind`.
pub(super) fn blend<'p>(
    kind: Kind,
    right: &[bool],
    l: Vals<'p>,
    r: Vals<'p>,
    rows: usize,
) -> Vals<'p> {
    let pick = |i: usize| if right[i] { &r } else { &l };
    let no_nulls = |v: &Vals<'_>| {
        matches!(
            v,
            Vals::Bool(_, None) | Vals::Num(_, None) | Vals::Str(_, None)
        )
    };
    let nulls = if no_nulls(&l) && no_nulls(&r) {
        None
    } else {
        let nulls: Vec<bool> = (0..rows).map(|i| pick(i).null(i)).collect();
        nulls.iter().any(|b| *b).then_some(nulls)
    };
    match kind {
        Kind::Null => Vals::Null,
        Kind::Bool => {
            let get = |v: &Vals<'_>, i: usize| matches!(v, Vals::Bool(b, _) if b[i]);
            let v = match (&l, &r) {
                (Vals::Bool(a, _), Vals::Bool(b, _)) => a
                    .iter()
                    .zip(b)
                    .zip(right)
                    .map(|((a, b), r)| (*r & *b) | (!*r & *a))
                    .collect(),
                _ => (0..rows).map(|i| get(pick(i), i)).collect(),
            };
            Vals::Bool(v, nulls)
        }
        Kind::Num => {
            let get = |v: &Vals<'_>, i: usize| match v {
                Vals::Num(x, _) => x.get(i),
                _ => 0.0,
            };
            Vals::Num(
                Nums::Owned((0..rows).map(|i| get(pick(i), i)).collect()),
                nulls,
            )
        }
        Kind::Str => {
            let mut out = StrBuf::default();
            for i in 0..rows {
                if let Vals::Str(s, _) = pick(i) {
                    out.data.push_str(s.get(i));
                }
                out.end_row();
            }
            Vals::Str(Strs::Owned(out), nulls)
        }
    }
}
