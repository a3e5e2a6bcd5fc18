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
use crate::program::{Cmp, Op, Program, ProgramParts};
use crate::value::{Key, Value, bytes_eq, key_hash, map_get_hinted};

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
fn qualifies(code: &[Op], slots: u16) -> bool {
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

/// A qualifying main program in the tier's own form, decoded once when the
/// program is validated: operands resolved (numeric constants inline, jump
/// targets as positions in this form), and the pairs the tier does in one
/// step fused (a context read with the arithmetic or comparison with a
/// constant that takes it at once), so a run decodes nothing twice.
#[derive(Debug)]
pub(crate) struct Code {
    ops: Box<[T]>,
    /// Each global's name and `key_hash`, by global index.
    names: Box<[(Key, u64)]>,
    /// Instructions of the bytecode: the fuel a run can use at most.
    len: usize,
}

impl Code {
    /// Bytes this form holds on the heap (see `Program::heap_bytes`).
    pub(crate) fn heap_bytes(&self) -> u64 {
        let names: usize = self
            .names
            .iter()
            .map(|(k, _)| size_of::<(Key, u64)>() + 16 + k.len())
            .sum();
        (self.ops.len() * size_of::<T>() + names) as u64
    }
}

/// One step of [`Code`]; each stands for one bytecode instruction, the
/// fused ones (`Load*` with a second operand) for two.
#[derive(Debug, Clone, Copy)]
enum T {
    Null,
    Bool(bool),
    Num(f64),
    /// A constant other than a number, null or a boolean.
    Const(u32),
    Load(u32),
    /// `x <op> name`, the value never pushed: one variant per operator,
    /// so one dispatch decides both.
    LoadAdd(u32),
    LoadSub(u32),
    LoadMul(u32),
    LoadDiv(u32),
    LoadCmp(u32, Cmp, u32),
    LoadCmpNum(u32, Cmp, f64),
    /// `name == "text"` (true) or `!=` (false), the constant shorter than
    /// a fuel unit's bytes (compared in its unit).
    LoadEqStr(u32, bool, u32),
    Field(u32),
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    Not,
    /// `==` (true) or `!=` (false).
    Eq(bool),
    Order(Cmp),
    Cmp(Cmp, u32),
    CmpNum(Cmp, f64),
    Jump(J),
    JumpIfFalse(J),
    JumpIfFalseOrPop(J),
    JumpIfTrueOrPop(J),
    JumpIfNotNullOrPop(J),
    JumpIfNull(J),
    /// Returns; the operand is the bytecode offset of the `Return`.
    Return(u32),
}

/// A forward jump: where it lands in the tier's form, and how many
/// bytecode instructions it skips when taken. Every jump is forward, so a
/// run executes each instruction up to its `Return` once, but for those
/// its taken jumps skip: its fuel is the `Return`'s offset plus one, less
/// the instructions skipped (no count per instruction).
#[derive(Debug, Clone, Copy)]
struct J {
    to: u32,
    skip: u32,
}

/// The fused `LoadGlobal` + operator `op`, or the operator alone.
fn arith_of(op: Op, load: Option<u32>) -> Option<T> {
    Some(match (op, load) {
        (Op::Add, Some(g)) => T::LoadAdd(g),
        (Op::Sub, Some(g)) => T::LoadSub(g),
        (Op::Mul, Some(g)) => T::LoadMul(g),
        (Op::Div, Some(g)) => T::LoadDiv(g),
        (Op::Add, None) => T::Add,
        (Op::Sub, None) => T::Sub,
        (Op::Mul, None) => T::Mul,
        (Op::Div, None) => T::Div,
        _ => return None,
    })
}

/// The tier's form of `parts`' main program, when it [`qualifies`].
pub(crate) fn compile(parts: &ProgramParts) -> Option<Code> {
    let main = parts.protos.first()?;
    let code = &main.code[..];
    if !qualifies(code, main.slots) {
        return None;
    }
    let mut target = vec![false; code.len()];
    for op in code {
        if let Op::Jump(t)
        | Op::JumpIfFalse(t)
        | Op::JumpIfFalseOrPop(t)
        | Op::JumpIfTrueOrPop(t)
        | Op::JumpIfNotNullOrPop(t)
        | Op::JumpIfNull(t) = *op
        {
            *target.get_mut(t as usize)? = true;
        }
    }
    let constant = |c: u32| parts.constants.get(c as usize);
    // Where each bytecode instruction starts in the tier's form (the
    // second of a fused pair is never a jump target).
    let mut at = vec![u32::MAX; code.len()];
    let mut ops = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        at[i] = u32::try_from(ops.len()).ok()?;
        let next = code.get(i + 1).filter(|_| !target[i + 1]).copied();
        let (t, width) = match (code[i], next) {
            (Op::LoadGlobal(g), Some(o)) if arith_of(o, Some(g)).is_some() => {
                (arith_of(o, Some(g))?, 2)
            }
            (Op::LoadGlobal(g), Some(Op::CompareConst { cmp, constant: c })) => {
                match constant(c)? {
                    Value::Number(n) => (T::LoadCmpNum(g, cmp, *n), 2),
                    Value::String(y)
                        if matches!(cmp, Cmp::Eq | Cmp::Ne)
                            && (y.len() as u64) < crate::compare::BYTES_PER_UNIT =>
                    {
                        (T::LoadEqStr(g, cmp == Cmp::Eq, c), 2)
                    }
                    _ => (T::LoadCmp(g, cmp, c), 2),
                }
            }
            (Op::LoadGlobal(g), _) => (T::Load(g), 1),
            (Op::Const(c), _) => (
                match constant(c)? {
                    Value::Null => T::Null,
                    Value::Bool(b) => T::Bool(*b),
                    Value::Number(n) => T::Num(*n),
                    _ => T::Const(c),
                },
                1,
            ),
            (Op::Null, _) => (T::Null, 1),
            (Op::True, _) => (T::Bool(true), 1),
            (Op::False, _) => (T::Bool(false), 1),
            (Op::Int(n), _) => (T::Num(f64::from(n)), 1),
            (Op::GetField(k), _) => (T::Field(k), 1),
            (Op::Neg, _) => (T::Neg, 1),
            (Op::Not, _) => (T::Not, 1),
            (Op::Eq, _) => (T::Eq(true), 1),
            (Op::Ne, _) => (T::Eq(false), 1),
            (Op::Lt, _) => (T::Order(Cmp::Lt), 1),
            (Op::Le, _) => (T::Order(Cmp::Le), 1),
            (Op::Gt, _) => (T::Order(Cmp::Gt), 1),
            (Op::Ge, _) => (T::Order(Cmp::Ge), 1),
            (Op::CompareConst { cmp, constant: c }, _) => match constant(c)? {
                Value::Number(n) => (T::CmpNum(cmp, *n), 1),
                _ => (T::Cmp(cmp, c), 1),
            },
            (
                op @ (Op::Jump(t)
                | Op::JumpIfFalse(t)
                | Op::JumpIfFalseOrPop(t)
                | Op::JumpIfTrueOrPop(t)
                | Op::JumpIfNotNullOrPop(t)
                | Op::JumpIfNull(t)),
                _,
            ) => {
                let j = J {
                    to: t,
                    skip: t.checked_sub(i as u32 + 1)?,
                };
                let t = match op {
                    Op::Jump(_) => T::Jump(j),
                    Op::JumpIfFalse(_) => T::JumpIfFalse(j),
                    Op::JumpIfFalseOrPop(_) => T::JumpIfFalseOrPop(j),
                    Op::JumpIfTrueOrPop(_) => T::JumpIfTrueOrPop(j),
                    Op::JumpIfNotNullOrPop(_) => T::JumpIfNotNullOrPop(j),
                    _ => T::JumpIfNull(j),
                };
                (t, 1)
            }
            (Op::Return, _) => (T::Return(i as u32), 1),
            (op, _) => (arith_of(op, None)?, 1),
        };
        ops.push(t);
        i += width;
    }
    // Jump targets, as positions in the tier's form.
    for t in &mut ops {
        if let T::Jump(j)
        | T::JumpIfFalse(j)
        | T::JumpIfFalseOrPop(j)
        | T::JumpIfTrueOrPop(j)
        | T::JumpIfNotNullOrPop(j)
        | T::JumpIfNull(j) = t
        {
            j.to = *at.get(j.to as usize).filter(|&&p| p != u32::MAX)?;
        }
    }
    Some(Code {
        ops: ops.into_boxed_slice(),
        names: parts
            .globals
            .iter()
            .map(|g| (g.name.clone(), key_hash(&g.name)))
            .collect(),
        len: code.len(),
    })
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

    #[inline]
    fn into_value(self) -> Value {
        match self {
            S::Null => Value::Null,
            S::Bool(b) => Value::Bool(b),
            S::Num(n) => Value::Number(n),
            S::Lent(v) => v.clone(),
        }
    }
}

/// What a context read gives the tier: a value on its stack, or text the
/// context lends for a comparison that follows at once.
enum Read<'a> {
    Value(S<'a>),
    Text(&'a str),
}

impl Vm {
    /// Runs `code`, the tier's form of `program`'s main program, in the
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
        code: &Code,
        ctx: &dyn Context,
        limits: &Limits,
    ) -> Option<Value> {
        // The fuel countdown of the run's start (see `Vm::reset_counters`).
        let countdown = limits.fuel.unwrap_or(u64::MAX).min(CHUNK);
        if code.len as u64 > countdown {
            return None;
        }
        let parts = program.parts();
        let key_hashes = program.key_hashes();
        if self.hints.len() < code.names.len() {
            self.hints.resize(code.names.len(), 0);
        }
        let value_depth = limits.value_depth;
        let map = ctx.as_map();
        let ops = &code.ops[..];
        let mut stack = [S::Null; DEPTH];
        let mut sp = 0usize;
        let mut ip = 0usize;
        // Bytecode instructions the taken jumps skipped (see `J`).
        let mut skipped = 0u64;
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
        macro_rules! jump {
            ($j:expr) => {{
                ip = $j.to as usize;
                skipped += u64::from($j.skip);
            }};
        }
        macro_rules! top {
            () => {
                &mut stack[sp.wrapping_sub(1) & MASK]
            };
        }
        // A context read: what the context holds under global `g`.
        macro_rules! fetch {
            ($g:expr) => {{
                let g = $g as usize;
                let (name, hash) = code.names.get(g)?;
                let hint = self.hints.get_mut(g)?;
                match map {
                    Some(m) => map_get_hinted(m, name, *hash, hint).map(Field::Borrowed),
                    None => ctx.lookup_hinted(name, *hash, hint),
                }
            }};
        }
        // What the tier makes of a field `fetch!` gave: a value, or text
        // lent for a comparison.
        macro_rules! read {
            ($g:expr, $field:expr) => {{
                match $field {
                    Some(Field::Borrowed(v)) => Read::Value(match S::of(v) {
                        S::Lent(v) if v.depth() > value_depth => return None,
                        s => s,
                    }),
                    other => self.read_other(program, $g, other, value_depth)?,
                }
            }};
        }
        // `x <op> name`: the value never pushed. The result must be finite
        // (else an error or a null the dispatch loop gives).
        macro_rules! load_arith {
            ($g:expr, $f:expr) => {{
                let y = match fetch!($g) {
                    Some(Field::Borrowed(Value::Number(y))) => *y,
                    Some(Field::Owned(Value::Number(y))) => y,
                    field => match read!($g, field) {
                        Read::Value(S::Num(y)) => y,
                        _ => return None,
                    },
                };
                let top = top!();
                let S::Num(x) = *top else { return None };
                *top = S::Num(finite($f(x, y))?);
            }};
        }
        macro_rules! arith {
            ($f:expr) => {{
                let (S::Num(y), S::Num(x)) = (pop!(), *top!()) else {
                    return None;
                };
                *top!() = S::Num(finite($f(x, y))?);
            }};
        }
        loop {
            let op = *ops.get(ip)?;
            ip += 1;
            match op {
                T::Null => push!(S::Null),
                T::Bool(b) => push!(S::Bool(b)),
                T::Num(n) => push!(S::Num(n)),
                T::Const(c) => push!(S::of(parts.constants.get(c as usize)?)),
                T::Load(g) => match read!(g, fetch!(g)) {
                    Read::Value(s) => push!(s),
                    Read::Text(_) => return None,
                },
                T::LoadAdd(g) => load_arith!(g, |x, y| x + y),
                T::LoadSub(g) => load_arith!(g, |x, y| x - y),
                T::LoadMul(g) => load_arith!(g, |x, y| x * y),
                T::LoadDiv(g) => load_arith!(g, |x, y| x / y),
                T::LoadCmpNum(g, cmp, k) => {
                    let r = match fetch!(g) {
                        Some(Field::Borrowed(Value::Number(a))) => compare_numbers(*a, cmp, k),
                        Some(Field::Owned(Value::Number(a))) => compare_numbers(a, cmp, k),
                        field => match read!(g, field) {
                            Read::Value(S::Num(a)) => compare_numbers(a, cmp, k),
                            Read::Value(s) => compare(s, cmp, &Value::Number(k))?,
                            Read::Text(text) => compare_lent_text(text, cmp, &Value::Number(k))?,
                        },
                    };
                    push!(S::Bool(r));
                }
                T::LoadCmp(g, cmp, c) => {
                    let k = parts.constants.get(c as usize)?;
                    let r = match read!(g, fetch!(g)) {
                        Read::Value(s) => compare(s, cmp, k)?,
                        Read::Text(text) => compare_lent_text(text, cmp, k)?,
                    };
                    push!(S::Bool(r));
                }
                T::LoadEqStr(g, eq, c) => {
                    let k = parts.constants.get(c as usize)?;
                    let Value::String(y) = k else { return None };
                    let r = match fetch!(g) {
                        Some(Field::Borrowed(Value::String(x))) => text_eq(x, y) == eq,
                        Some(Field::Str(x)) => text_eq(x, y) == eq,
                        field => match read!(g, field) {
                            Read::Text(x) => text_eq(x, y) == eq,
                            Read::Value(s) => compare(s, eq_cmp(eq), k)?,
                        },
                    };
                    push!(S::Bool(r));
                }
                T::Field(k) => {
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
                T::Add => arith!(|x, y| x + y),
                T::Sub => arith!(|x, y| x - y),
                T::Mul => arith!(|x, y| x * y),
                T::Div => arith!(|x, y| x / y),
                T::Neg => {
                    let top = top!();
                    let S::Num(x) = *top else { return None };
                    *top = S::Num(-x);
                }
                T::Not => {
                    let top = top!();
                    *top = S::Bool(!top.truthy());
                }
                T::Eq(eq) => {
                    let y = pop!();
                    let top = top!();
                    let same = match (*top, y) {
                        (S::Num(a), S::Num(b)) => a == b,
                        (S::Bool(a), S::Bool(b)) => a == b,
                        (S::Null, S::Null) => true,
                        _ => return None,
                    };
                    *top = S::Bool(same == eq);
                }
                T::Order(cmp) => {
                    let y = pop!();
                    let top = top!();
                    let (S::Num(a), S::Num(b)) = (*top, y) else {
                        return None;
                    };
                    *top = S::Bool(compare_numbers(a, cmp, b));
                }
                T::CmpNum(cmp, k) => {
                    let top = top!();
                    *top = S::Bool(match *top {
                        S::Num(a) => compare_numbers(a, cmp, k),
                        s => compare(s, cmp, &Value::Number(k))?,
                    });
                }
                T::Cmp(cmp, c) => {
                    let k = parts.constants.get(c as usize)?;
                    let top = top!();
                    *top = S::Bool(compare(*top, cmp, k)?);
                }
                T::Jump(j) => jump!(j),
                T::JumpIfFalse(j) => {
                    if !pop!().truthy() {
                        jump!(j);
                    }
                }
                T::JumpIfFalseOrPop(j) => {
                    if top!().truthy() {
                        sp -= 1;
                    } else {
                        jump!(j);
                    }
                }
                T::JumpIfTrueOrPop(j) => {
                    if top!().truthy() {
                        jump!(j);
                    } else {
                        sp -= 1;
                    }
                }
                T::JumpIfNotNullOrPop(j) => {
                    if matches!(top!(), S::Null) {
                        sp -= 1;
                    } else {
                        jump!(j);
                    }
                }
                T::JumpIfNull(j) => {
                    if matches!(top!(), S::Null) {
                        jump!(j);
                    }
                }
                T::Return(at) => {
                    let result = pop!().into_value();
                    // All a run here leaves for `fuel_used` and
                    // `peak_memory`; the dispatch loop sets the rest.
                    let fuel = limits.fuel.unwrap_or(u64::MAX);
                    let b = &mut self.budget;
                    b.fuel_start = fuel;
                    b.fuel_left = fuel - countdown;
                    b.tick = countdown - (u64::from(at) + 1 - skipped);
                    b.memory_used = 0;
                    return Some(result);
                }
            }
        }
    }

    /// A context read other than a value the context lends: a value built
    /// for the run, text lent, or the name's fallback when absent. Out of
    /// line: the tier's loop keeps its registers for the common reads.
    #[inline(never)]
    fn read_other<'a>(
        &mut self,
        program: &'a Program,
        g: u32,
        field: Option<Field<'a>>,
        value_depth: u32,
    ) -> Option<Read<'a>> {
        Some(match field {
            Some(Field::Borrowed(v)) => Read::Value(match S::of(v) {
                S::Lent(v) if v.depth() > value_depth => return None,
                s => s,
            }),
            Some(Field::Owned(Value::Null)) => Read::Value(S::Null),
            Some(Field::Owned(Value::Bool(b))) => Read::Value(S::Bool(b)),
            Some(Field::Owned(Value::Number(n))) => Read::Value(S::Num(n)),
            Some(Field::Owned(v)) => {
                // Built for the run: kept, so the dispatch loop does not
                // build it again (it checks the depth of what it builds,
                // not of what it finds kept: a value too deep is left for
                // it to refuse).
                if v.depth() <= value_depth {
                    let _ = self.keep_global(program, g, v);
                }
                return None;
            }
            // Compared in place by the dispatch loop when a comparison
            // with a constant follows; built into a value otherwise. Only
            // the first is done here.
            Some(Field::Str(text)) => Read::Text(text),
            None => Read::Value(S::of(
                program.parts().globals.get(g as usize)?.fallback.as_ref()?,
            )),
        })
    }
}

/// A result of arithmetic, `None` when not finite (an error or a null the
/// dispatch loop gives).
#[inline]
fn finite(r: f64) -> Option<f64> {
    r.is_finite().then_some(r)
}

/// `a <cmp> k` for [`Op::CompareConst`], `None` when the dispatch loop
/// must do it (an error, or work to charge).
#[inline]
fn compare(a: S<'_>, cmp: Cmp, k: &Value) -> Option<bool> {
    match (a, k) {
        (S::Num(a), Value::Number(b)) => Some(compare_numbers(a, cmp, *b)),
        (S::Num(_), _) => None,
        (S::Lent(v), _) => settled(compare_const(v, cmp, k)),
        (S::Null, _) => settled(compare_const(&NULL, cmp, k)),
        (S::Bool(b), _) => settled(compare_const(&Value::Bool(b), cmp, k)),
    }
}

/// `x == y` for a text and a string constant shorter than a fuel unit's
/// bytes: no work beyond the comparison's unit.
#[inline]
fn text_eq(x: &str, y: &str) -> bool {
    x.len() == y.len() && {
        crate::compare::touch(y.len());
        bytes_eq(x.as_bytes(), y.as_bytes())
    }
}

fn eq_cmp(eq: bool) -> Cmp {
    if eq { Cmp::Eq } else { Cmp::Ne }
}

/// `a <cmp> b` for two numbers (never NaN: a number value is finite).
#[inline]
fn compare_numbers(a: f64, cmp: Cmp, b: f64) -> bool {
    match cmp {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
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
