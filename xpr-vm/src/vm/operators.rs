//! The dispatch loop's operators beyond its inline fast paths (the
//! operators' rules are in `ops.rs`): arithmetic's general path, `==` and
//! `!=` charged as they walk, and comparisons with a constant
//! ([`Op::CompareConst`], alone or fused with the read before it), their
//! work charged after them when small, else before.
//!
//! [`Op::CompareConst`]: crate::program::Op::CompareConst

use std::sync::Arc;

use super::errors::value_too_deep;
use super::{Exec, Vm, ops};
use crate::compare;
use crate::error::Error;
use crate::program::Cmp;
use crate::value::{Key, Value, bytes_eq};

/// What [`compare_const`] and [`compare_text`] did.
pub(super) enum Compared {
    /// Compared: the result, and the work beyond one fuel unit it took
    /// (at most [`CHARGE_AFTER`] units, charged after the comparison).
    Done(bool, u64),
    /// Not compared: the comparison would take this much work, to be
    /// charged before it is made by [`compare_const_charged`] or
    /// [`compare_text_charged`].
    ChargeFirst(u64),
}

/// The most work (fuel units beyond one: 1 KiB of text) a comparison with
/// a constant does before it is charged. Larger comparisons are charged
/// first, so that a comparison past the budget, a cancellation or the
/// deadline never reads its operands (issue 11); the common short ones
/// are compared at once, with no second step.
const CHARGE_AFTER: u64 = 64;

/// The result of ordering `o` for comparison `cmp` (`<`, `<=`, `>`, `>=`).
#[inline(always)]
fn ordered(cmp: Cmp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Greater, Less};
    match cmp {
        Cmp::Lt => o == Less,
        Cmp::Le => o != Greater,
        Cmp::Gt => o == Greater,
        _ => o != Less,
    }
}

/// The symbol of an ordering comparison, for its errors.
fn symbol(cmp: Cmp) -> &'static str {
    match cmp {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        _ => ">=",
    }
}

/// `a <cmp> k` for [`Op::CompareConst`] when its work is small, with the
/// work beyond one fuel unit (as `==` and the ordering operators charge
/// it; see [`crate::compare`]); else the work, to be charged before
/// [`compare_const_charged`] compares.
///
/// [`Op::CompareConst`]: crate::program::Op::CompareConst
// Inlined into the dispatch loop in optimised builds only: in a debug
// build, four inlined copies of its locals outgrew the dispatch frame
// `NATIVE_CALL_CEILING` is calibrated for.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(super) fn compare_const(a: &Value, cmp: Cmp, k: &Value) -> Result<Compared, Error> {
    match cmp {
        Cmp::Eq | Cmp::Ne => {
            let (eq, work) = match (a, k) {
                (Value::Number(x), Value::Number(y)) => (x == y, 0),
                (Value::String(x), Value::String(y)) => {
                    if Arc::ptr_eq(x, y) {
                        (true, 0)
                    } else if x.len() != y.len() {
                        (false, 0)
                    } else {
                        let work = x.len() as u64 / compare::BYTES_PER_UNIT;
                        if work > CHARGE_AFTER {
                            return Ok(Compared::ChargeFirst(work));
                        }
                        compare::touch(x.len());
                        (bytes_eq(x.as_bytes(), y.as_bytes()), work)
                    }
                }
                _ => return Ok(compare_other(a, cmp, k)),
            };
            Ok(Compared::Done(eq == (cmp == Cmp::Eq), work))
        }
        _ => {
            // Two numbers (never NaN): the commonest ordering, at once.
            if let (Value::Number(x), Value::Number(y)) = (a, k) {
                let r = match cmp {
                    Cmp::Lt => x < y,
                    Cmp::Le => x <= y,
                    Cmp::Gt => x > y,
                    _ => x >= y,
                };
                return Ok(Compared::Done(r, 0));
            }
            let work = compare::order_work(a, k);
            if work > CHARGE_AFTER {
                return Ok(Compared::ChargeFirst(work));
            }
            let o = ops::compare(symbol(cmp), a, k)?;
            Ok(Compared::Done(ordered(cmp, o), work))
        }
    }
}

/// `a == k` (or `!=`) for [`compare_const`] beyond two numbers or two
/// strings: a scalar on one side is decided without descending; two
/// containers (a constant is a scalar in compiled programs, so only a
/// hand-built one) are charged first for all they may visit.
#[inline(never)]
fn compare_other(a: &Value, cmp: Cmp, k: &Value) -> Compared {
    if let (Value::Array(_) | Value::Object(_), Value::Array(_) | Value::Object(_)) = (a, k) {
        let bound = a.logical_size().min(k.logical_size()) / compare::BYTES_PER_UNIT;
        return Compared::ChargeFirst(bound);
    }
    Compared::Done((a == k) == (cmp == Cmp::Eq), 0)
}

/// `a <cmp> k` once the work [`compare_const`] asked for is charged.
#[cold]
#[inline(never)]
pub(super) fn compare_const_charged(a: &Value, cmp: Cmp, k: &Value) -> Result<bool, Error> {
    match cmp {
        Cmp::Eq | Cmp::Ne => {
            let eq = match (a, k) {
                (Value::String(x), Value::String(y)) => {
                    compare::touch(x.len());
                    bytes_eq(x.as_bytes(), y.as_bytes())
                }
                _ => a == k,
            };
            Ok(eq == (cmp == Cmp::Eq))
        }
        _ => Ok(ordered(cmp, ops::compare(symbol(cmp), a, k)?)),
    }
}

/// [`compare_const`] for a string the context lends as text.
#[inline]
pub(super) fn compare_text(s: &str, cmp: Cmp, k: &Value) -> Result<Compared, Error> {
    let Value::String(y) = k else {
        // A type mismatch: equality is false, ordering an error naming
        // the types. The text itself is not needed (nor copied).
        return compare_const(&Value::String(Key::from("")), cmp, k);
    };
    let work = match cmp {
        Cmp::Eq | Cmp::Ne => compare::text_eq_work(s, y),
        _ => compare::text_order_work(s, y),
    };
    if work > CHARGE_AFTER {
        return Ok(Compared::ChargeFirst(work));
    }
    compare_text_charged(s, cmp, y).map(|r| Compared::Done(r, work))
}

/// `s <cmp> y` for text lent by the context and a string constant, its
/// work charged (or small enough to be charged after).
#[inline]
pub(super) fn compare_text_charged(s: &str, cmp: Cmp, y: &str) -> Result<bool, Error> {
    match cmp {
        Cmp::Eq | Cmp::Ne => {
            let eq = s.len() == y.len() && {
                compare::touch(s.len());
                bytes_eq(s.as_bytes(), y.as_bytes())
            };
            Ok(eq == (cmp == Cmp::Eq))
        }
        _ => Ok(ordered(cmp, compare::text_order(s, y))),
    }
}

impl Exec<'_> {
    /// `==` (`eq`) or `!=` on the top two values, charged as the walk
    /// goes, before each large piece is read (see [`crate::compare`]).
    // Kept out of the dispatch frame in debug builds (see `global`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub(super) fn equality(&mut self, eq: bool) -> Result<(), Error> {
        let b = self.vm.pop();
        let a = self.vm.pop();
        if a.depth().min(b.depth()) > self.vm.budget.value_depth {
            return Err(value_too_deep());
        }
        let same = match (&a, &b) {
            (Value::Number(x), Value::Number(y)) => x == y,
            _ => a.eq_metered(&b, |units| self.vm.fuel(units))?,
        };
        self.vm.stack.push(Value::Bool(same == eq));
        Ok(())
    }

    /// The result of a comparison with a constant (see [`Compared`]): its
    /// work charged after it when small, else charged first and the
    /// comparison then made by `again`.
    // Kept out of the dispatch frame in debug builds (see `global`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    pub(super) fn settle(
        &mut self,
        compared: Compared,
        again: impl FnOnce(&Vm) -> Result<bool, Error>,
    ) -> Result<bool, Error> {
        match compared {
            Compared::Done(r, work) => {
                if work > 0 {
                    self.vm.fuel(work)?;
                }
                Ok(r)
            }
            Compared::ChargeFirst(work) => {
                self.vm.fuel(work)?;
                again(self.vm)
            }
        }
    }

    #[inline]
    pub(super) fn arith(
        &mut self,
        f: fn(&Value, &Value) -> Result<Value, Error>,
    ) -> Result<(), Error> {
        let b = self.vm.pop();
        let a = self.vm.top();
        *a = f(a, &b)?;
        Ok(())
    }
}
