//! The columnar path: a plan of vector operations compiled from the
//! program's bytecode for the common subset (docs/decisions.md, "Columnar
//! plan"), evaluated over the whole batch; the rows it marks failed are
//! run again on the VM, which gives their exact error.
//!
//! The subset: reads of boolean, number and string columns (through
//! struct columns); literals; `+ - * / % **`; `== != < <= > >=` (constant
//! operands included); `!`, unary `-`; `&&`, `||`, `??`, `?:` whose
//! operands have one kind (or null); templates; the methods `upper`,
//! `lower`, `trim`, `len` (and `.length`), `startsWith`, `contains` on
//! strings; the functions `round`, `floor`, `abs`.

mod compile;
mod concat;
mod eval;
mod fused;
mod kernels;
mod vals;

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, BooleanArray, Float64Array, NullArray};
use arrow_buffer::{BooleanBuffer, NullBuffer, ScalarBuffer};
use xpr::Error;

use crate::budget::Meter;
use compile::Node;
use eval::{Eval, Sel};
use vals::{Nums, Vals};

pub(crate) use compile::compile;

/// The plan's values for every row, and which rows failed.
pub(crate) struct Outcome {
    /// One cell per row (a failed row's cell is null).
    pub(crate) array: ArrayRef,
    /// Rows on which an operation would raise an error, in order.
    pub(crate) failed: Vec<usize>,
}

/// Evaluates `plan` on all `rows` rows, charging `meter`.
///
/// # Errors
/// The batch's budget spent.
pub(crate) fn run(plan: &Node, rows: usize, meter: &mut Meter) -> Result<Outcome, Error> {
    if let Some((bits, fuel)) = fused::chain(plan, rows) {
        meter.charge(fuel, 0)?;
        // `Return`.
        meter.charge(rows as u64, 0)?;
        let bits = BooleanBuffer::new(bits.into(), 0, rows);
        return Ok(Outcome {
            array: Arc::new(BooleanArray::new(bits, None)),
            failed: Vec::new(),
        });
    }
    let mut ev = Eval {
        rows,
        failed: Vec::new(),
        meter,
    };
    let vals = ev.eval(plan, Sel::all(rows))?;
    // `Return`.
    ev.charge(Sel::all(rows), 1)?;
    let failed_mask = std::mem::take(&mut ev.failed);
    let failed: Vec<usize> = (0..failed_mask.len()).filter(|i| failed_mask[*i]).collect();
    let no_nulls = matches!(
        &vals,
        Vals::Bool(_, None) | Vals::Num(_, None) | Vals::Str(_, None)
    );
    let valid = |null: &dyn Fn(usize) -> bool| -> Option<NullBuffer> {
        if no_nulls && failed.is_empty() {
            return None;
        }
        let v: Vec<bool> = (0..rows)
            .map(|i| !null(i) && !failed_mask.get(i).is_some_and(|f| *f))
            .collect();
        v.iter().any(|b| !*b).then(|| NullBuffer::from(v))
    };
    let nulls = valid(&|i| vals.null(i));
    let array: ArrayRef = match vals {
        Vals::Null => Arc::new(NullArray::new(rows)),
        Vals::Bool(v, _) => Arc::new(BooleanArray::new(
            BooleanBuffer::collect_bool(rows, |i| v[i]),
            nulls,
        )),
        Vals::Num(x, _) => {
            let values: Vec<f64> = match x {
                Nums::Scalar(c) => vec![c; rows],
                Nums::Owned(v) => v,
                Nums::Borrowed(v) => v.to_vec(),
            };
            Arc::new(Float64Array::new(ScalarBuffer::from(values), nulls))
        }
        Vals::Str(s, _) => {
            let mut b = StringBuilder::with_capacity(rows, rows * 8);
            for i in 0..rows {
                if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
                    b.append_null();
                } else {
                    b.append_value(s.get(i));
                }
            }
            Arc::new(b.finish())
        }
    };
    Ok(Outcome { array, failed })
}
