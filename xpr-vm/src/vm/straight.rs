//! The straight-line tier: a main program that only reads context names
//! and their fields, computes on numbers and compares scalars, joined by
//! forward jumps (`&&`, `||`, `!`, `?:`), is run here first, on a small
//! typed stack of borrowed scalars, without the dispatch loop's frames,
//! value stack or reference counts.
//!
//! It runs the program's own bytecode, one instruction at a time in the
//! same order, so the fuel it charges is the dispatch loop's to the unit
//! (one per instruction, nothing else: it gives up on any comparison that
//! would charge work). It gives up, leaving the run to the dispatch loop
//! from the start, whenever anything would differ from the plain case: an
//! operand of another type, a result that is not finite, text the context
//! builds, a value too deep, more instructions than the fuel countdown
//! holds before its next refill (so no time, cancellation or budget check
//! is skipped). Nothing it did then needs undoing: it charged nothing, and
//! a value the context built for it is kept for the run, as the dispatch
//! loop would keep it.
//!
//! Whether a program qualifies is decided once, when it is validated
//! ([`qualifies`]).

use super::NULL;
use super::Vm;
use super::budget::CHUNK;
use super::operators::{Compared, compare_const, compare_text};
use crate::context::{Context, Field};
use crate::limits::Limits;
use crate::program::{Cmp, Op, Program};
use crate::value::{Value, bytes_eq, map_get_hinted};

/// The most instructions a qualifying main program has: at most one fuel
/// countdown's worth, so that a run that fits the countdown at its start
/// never reaches a refill.
const MAX_CODE: usize = CHUNK as usize;

/// The deepest stack the tier keeps.
const DEPTH: usize = 8;
const _: () = assert!(DEPTH.is_power_of_two());

/// Whether `code`, a main prototype with `slots` locals, is straight-line
/// code the tier runs: only the instructions below, every jump forward,
/// and a stack that never holds more than [`DEPTH`] values nor is read
/// below its bottom on any path (checked here, once, so the loop indexes
/// its stack without checks).
pub(crate) fn qualifies(code: &[Op], slots: u16) -> bool {
    if slots != 0 || code.len() > MAX_CODE {
        return false;
    }
    // The stack depth before each instruction, from the paths reaching it
    // (all from before it: every jump is forward); `None`: unreached.
    let mut depth: Vec<Option<usize>> = vec![None; code.len() + 1];
    depth[0] = Some(0);
    for (at, op) in code.iter().enumerate() {
        let Some(d) = depth[at] else { continue };
        // (values read, values left, jump target and the depth there)
        let (needs, after, jump) = match *op {
            Op::Const(_) | Op::Null | Op::True | Op::False | Op::Int(_) | Op::LoadGlobal(_) => {
                (0, d + 1, None)
            }
            Op::GetField(_) | Op::Neg | Op::Not | Op::CompareConst { .. } => (1, d, None),
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Eq
            | Op::Ne
            | Op::Lt
            | Op::Le
            | Op::Gt
            | Op::Ge => (2, d.wrapping_sub(1), None),
            Op::Return => {
                if d < 1 {
                    return false;
                }
                continue;
            }
            Op::Jump(t) => (0, usize::MAX, Some((t, d))),
            Op::JumpIfFalse(t) => (1, d.wrapping_sub(1), Some((t, d.wrapping_sub(1)))),
            Op::JumpIfFalseOrPop(t) | Op::JumpIfTrueOrPop(t) | Op::JumpIfNotNullOrPop(t) => {
                (1, d.wrapping_sub(1), Some((t, d)))
            }
            Op::JumpIfNull(t) => (1, d, Some((t, d))),
            _ => return false,
        };
        if d < needs {
            return false;
        }
        if let Some((t, there)) = jump
            && (t as usize <= at || !reach(&mut depth, t as usize, there))
        {
            return false;
        }
        // `usize::MAX`: an unconditional jump, nothing falls through.
        if after != usize::MAX && !reach(&mut depth, at + 1, after) {
            return false;
        }
    }
    true
}

/// Records a path reaching instruction `to` with `d` values on the stack:
/// false when another path reaches it with a different depth, or `d` is
/// beyond the stack.
fn reach(depth: &mut [Option<usize>], to: usize, d: usize) -> bool {
    match depth.get_mut(to) {
        Some(slot @ None) if d <= DEPTH => {
            *slot = Some(d);
            true
        }
        Some(Some(e)) => *e == d,
        _ => false,
    }
}

/// A value on the tier's stack: a scalar, or a value the context or the
/// program lends (a string, or a container whose field is read next).
#[derive(Clone, Copy)]
enum S<'a> {
    Null,
    Bool(bool),
    Num(f64),
    Lent(&'a Value),
}

impl<'a> S<'a> {
    #[inline]
    fn of(v: &'a Value) -> S<'a> {
        match v {
            Value::Null => S::Null,
            Value::Bool(b) => S::Bool(*b),
            Value::Number(n) => S::Num(*n),
            _ => S::Lent(v),
        }
    }

    /// [`Value::truthy`] of the value.
    #[inline]
    fn truthy(self) -> bool {
        match self {
            S::Null => false,
            S::Bool(b) => b,
            S::Num(n) => n != 0.0,
            S::Lent(v) => v.truthy(),
        }
    }

    fn into_value(self) -> Value {
        match self {
            S::Null => Value::Null,
            S::Bool(b) => Value::Bool(b),
            S::Num(n) => Value::Number(n),
            S::Lent(v) => v.clone(),
        }
    }
}

impl Vm {
    /// Runs the main program of `program` (which [`qualifies`]) in the
    /// straight-line tier: its result, its fuel charged; `None` when the
    /// tier gives up (nothing charged: the dispatch loop runs it). A
    /// context that answers paths is the caller's to keep out: the tier
    /// reads fields step by step.
    // Out of line: inlined into `Vm::run`, its loop state was kept in
    // memory rather than registers.
    #[inline(never)]
    pub(super) fn straight(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        limits: &Limits,
    ) -> Option<Value> {
        let parts = program.parts();
        let code = &parts.protos.first()?.code[..];
        // The fuel countdown of the run's start (see `Vm::reset_counters`).
        let countdown = limits.fuel.unwrap_or(u64::MAX).min(CHUNK);
        if code.len() as u64 > countdown {
            return None;
        }
        let (hashes, key_hashes) = (program.global_hashes(), program.key_hashes());
        if self.hints.len() < parts.globals.len() {
            self.hints.resize(parts.globals.len(), 0);
        }
        let value_depth = limits.value_depth;
        let map = ctx.as_map();
        let mut stack = [S::Null; DEPTH];
        let mut sp = 0usize;
        let mut ip = 0usize;
        let mut ran = 0u64;
        // `qualifies` proved the depth stays within 0..=DEPTH and is never
        // read below the bottom: the masks only spare the bounds checks.
        const MASK: usize = DEPTH - 1;
        macro_rules! push {
            ($v:expr) => {{
                stack[sp & MASK] = $v;
                sp += 1;
            }};
        }
        macro_rules! pop {
            () => {{
                sp -= 1;
                stack[sp & MASK]
            }};
        }
        macro_rules! top {
            () => {
                &mut stack[sp.wrapping_sub(1) & MASK]
            };
        }
        loop {
            let op = *code.get(ip)?;
            ip += 1;
            ran += 1;
            match op {
                Op::Const(c) => push!(S::of(parts.constants.get(c as usize)?)),
                Op::Null => push!(S::Null),
                Op::True => push!(S::Bool(true)),
                Op::False => push!(S::Bool(false)),
                Op::Int(n) => push!(S::Num(f64::from(n))),
                Op::LoadGlobal(g) => {
                    let global = parts.globals.get(g as usize)?;
                    let hint = self.hints.get_mut(g as usize)?;
                    let hash = *hashes.get(g as usize)?;
                    let field = match map {
                        Some(m) => map_get_hinted(m, &global.name, hash, hint).map(Field::Borrowed),
                        None => ctx.lookup_hinted(&global.name, hash, hint),
                    };
                    let s = match field {
                        Some(Field::Borrowed(v)) => {
                            if v.depth() > value_depth {
                                return None;
                            }
                            S::of(v)
                        }
                        Some(Field::Owned(Value::Null)) => S::Null,
                        Some(Field::Owned(Value::Bool(b))) => S::Bool(b),
                        Some(Field::Owned(Value::Number(n))) => S::Num(n),
                        Some(Field::Owned(v)) => {
                            // Built for the run: kept, so the dispatch loop
                            // does not build it again (it checks the depth
                            // of what it builds, not of what it finds kept:
                            // a value too deep is left for it to refuse).
                            if v.depth() <= value_depth {
                                let _ = self.keep_global(program, g, v);
                            }
                            return None;
                        }
                        Some(Field::Str(text)) => {
                            // Compared in place by the dispatch loop when a
                            // comparison with a constant follows; built into
                            // a value otherwise. Only the first is done here.
                            let Some(&Op::CompareConst { cmp, constant }) = code.get(ip) else {
                                return None;
                            };
                            let k = parts.constants.get(constant as usize)?;
                            ip += 1;
                            ran += 1;
                            S::Bool(compare_lent_text(text, cmp, k)?)
                        }
                        None => S::of(global.fallback.as_ref()?),
                    };
                    // The operator or comparison that takes the value at
                    // once (`x + name`, `name > 5`) is done here, the value
                    // never pushed; each instruction counted in turn.
                    match (code.get(ip), s) {
                        (
                            Some(&(o @ Op::Add | o @ Op::Sub | o @ Op::Mul | o @ Op::Div)),
                            S::Num(y),
                        ) => {
                            let top = top!();
                            let S::Num(x) = *top else { return None };
                            *top = S::Num(arith(o, x, y)?);
                            ip += 1;
                            ran += 1;
                        }
                        (Some(&Op::CompareConst { cmp, constant }), _) => {
                            let k = parts.constants.get(constant as usize)?;
                            ip += 1;
                            ran += 1;
                            push!(S::Bool(compare(s, cmp, k)?));
                        }
                        _ => push!(s),
                    }
                }
                Op::GetField(k) => {
                    let top = top!();
                    *top = match *top {
                        S::Lent(Value::Object(o)) => {
                            let key = parts.keys.get(k as usize)?;
                            match o.get_hashed(key, *key_hashes.get(k as usize)?) {
                                Some(v) => S::of(v),
                                None => S::Null,
                            }
                        }
                        // An error, raised by the dispatch loop.
                        S::Null => return None,
                        _ => S::Null,
                    };
                }
                Op::Add | Op::Sub | Op::Mul | Op::Div => {
                    let (S::Num(y), S::Num(x)) = (pop!(), *top!()) else {
                        return None;
                    };
                    *top!() = S::Num(arith(op, x, y)?);
                }
                Op::Neg => {
                    let top = top!();
                    let S::Num(x) = *top else { return None };
                    *top = S::Num(-x);
                }
                Op::Not => {
                    let top = top!();
                    *top = S::Bool(!top.truthy());
                }
                Op::Eq | Op::Ne => {
                    let y = pop!();
                    let top = top!();
                    let same = match (*top, y) {
                        (S::Num(a), S::Num(b)) => a == b,
                        (S::Bool(a), S::Bool(b)) => a == b,
                        (S::Null, S::Null) => true,
                        _ => return None,
                    };
                    *top = S::Bool(same == matches!(op, Op::Eq));
                }
                Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                    let y = pop!();
                    let top = top!();
                    let (S::Num(a), S::Num(b)) = (*top, y) else {
                        return None;
                    };
                    *top = S::Bool(match op {
                        Op::Lt => a < b,
                        Op::Le => a <= b,
                        Op::Gt => a > b,
                        _ => a >= b,
                    });
                }
                Op::CompareConst { cmp, constant } => {
                    let k = parts.constants.get(constant as usize)?;
                    let top = top!();
                    *top = S::Bool(compare(*top, cmp, k)?);
                }
                Op::Jump(t) => ip = t as usize,
                Op::JumpIfFalse(t) => {
                    if !pop!().truthy() {
                        ip = t as usize;
                    }
                }
                Op::JumpIfFalseOrPop(t) => {
                    if top!().truthy() {
                        sp -= 1;
                    } else {
                        ip = t as usize;
                    }
                }
                Op::JumpIfTrueOrPop(t) => {
                    if top!().truthy() {
                        ip = t as usize;
                    } else {
                        sp -= 1;
                    }
                }
                Op::JumpIfNotNullOrPop(t) => {
                    if matches!(top!(), S::Null) {
                        sp -= 1;
                    } else {
                        ip = t as usize;
                    }
                }
                Op::JumpIfNull(t) => {
                    if matches!(top!(), S::Null) {
                        ip = t as usize;
                    }
                }
                Op::Return => {
                    let result = pop!().into_value();
                    self.reset_counters(limits);
                    self.budget.tick -= ran;
                    return Some(result);
                }
                _ => return None,
            }
        }
    }
}

/// `x <op> y` for two numbers, `None` for a result that is not finite (an
/// error or a null the dispatch loop gives).
#[inline]
fn arith(op: Op, x: f64, y: f64) -> Option<f64> {
    let r = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        _ => x / y,
    };
    r.is_finite().then_some(r)
}

/// `a <cmp> k` for [`Op::CompareConst`], `None` when the dispatch loop
/// must do it (an error, or work to charge).
#[inline]
fn compare(a: S<'_>, cmp: Cmp, k: &Value) -> Option<bool> {
    match (a, k) {
        // Two numbers (never NaN: a number value is finite).
        (S::Num(a), Value::Number(b)) => Some(match cmp {
            Cmp::Eq => a == *b,
            Cmp::Ne => a != *b,
            Cmp::Lt => a < *b,
            Cmp::Le => a <= *b,
            Cmp::Gt => a > *b,
            Cmp::Ge => a >= *b,
        }),
        (S::Num(_), _) => None,
        (S::Lent(v), _) => settled(compare_const(v, cmp, k)),
        (S::Null, _) => settled(compare_const(&NULL, cmp, k)),
        (S::Bool(b), _) => settled(compare_const(&Value::Bool(b), cmp, k)),
    }
}

/// `text <cmp> k` for text the context lends, `None` when the dispatch
/// loop must do it. Out of line: the common reads of the tier's loop keep
/// their registers.
#[inline(never)]
fn compare_lent_text(text: &str, cmp: Cmp, k: &Value) -> Option<bool> {
    match (cmp, k) {
        // `==` / `!=` with a short string: decided at once, with no work
        // beyond the unit.
        (Cmp::Eq | Cmp::Ne, Value::String(y))
            if (y.len() as u64) < crate::compare::BYTES_PER_UNIT =>
        {
            let eq = text.len() == y.len() && {
                crate::compare::touch(y.len());
                bytes_eq(text.as_bytes(), y.as_bytes())
            };
            Some(eq == matches!(cmp, Cmp::Eq))
        }
        _ => settled(compare_text(text, cmp, k)),
    }
}

/// The result of a comparison with a constant that took no work beyond its
/// fuel unit; `None` (give up) for an error or any work to charge.
#[inline]
fn settled(compared: Result<Compared, crate::error::Error>) -> Option<bool> {
    match compared {
        Ok(Compared::Done(r, 0)) => Some(r),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_code_whose_stack_is_proven_within_bounds_qualifies() {
        use Op::*;
        // `n > 1 && m` and `(a + b) * c`.
        assert!(qualifies(
            &[
                LoadGlobal(0),
                Int(1),
                Gt,
                JumpIfFalseOrPop(5),
                LoadGlobal(1),
                Return
            ],
            0
        ));
        assert!(qualifies(
            &[
                LoadGlobal(0),
                LoadGlobal(1),
                Add,
                LoadGlobal(2),
                Mul,
                Return
            ],
            0
        ));
        // Reads below the bottom of the stack; returns nothing.
        assert!(!qualifies(&[Add, Return], 0));
        assert!(!qualifies(&[LoadGlobal(0), Add, Return], 0));
        assert!(!qualifies(&[Return], 0));
        // Two paths meeting with different depths.
        assert!(!qualifies(
            &[True, JumpIfFalse(3), Int(1), Int(2), Return],
            0
        ));
        // A backward jump, locals, an instruction of the dispatch loop only.
        assert!(!qualifies(&[True, Jump(0), Return], 0));
        assert!(!qualifies(&[True, Return], 1));
        assert!(!qualifies(&[Array(0), Return], 0));
        // Eight values at once fit; nine do not.
        let mut eight = vec![Int(1); DEPTH];
        eight.extend(std::iter::repeat_n(Add, DEPTH - 1));
        eight.push(Return);
        assert!(qualifies(&eight, 0));
        let mut nine = vec![Int(1); DEPTH + 1];
        nine.extend(std::iter::repeat_n(Add, DEPTH));
        nine.push(Return);
        assert!(!qualifies(&nine, 0));
    }
}
