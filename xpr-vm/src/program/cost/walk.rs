//! The walk over a prototype's bytecode: every path through its forward
//! jumps, one abstract stack per instruction, the fuel of each instruction
//! as the VM charges it (one unit, plus the work of comparisons, copies,
//! spreads and calls); calls are in `calls`, built-ins in `builtins`.

use std::sync::Arc;

use super::abs::{Abs, Fun, Shape};
use super::poly::{Path, Poly, Seg};
use crate::error::Span;
use crate::program::{Capture, Op, Program};
use crate::value::Value;

/// Most instructions the analysis visits (over all call sites) before it
/// gives up with an unbounded result.
const MAX_STEPS: u64 = 200_000;

/// Most calls the analysis follows inside one another.
pub(super) const MAX_NESTING: usize = 48;

/// Why a bound cannot be given, and which instruction makes it so.
#[derive(Debug, Clone)]
pub(super) struct Unbounded {
    pub reason: String,
    pub span: Span,
}

pub(super) type R<T> = Result<T, Unbounded>;

/// An entry of the abstract stack: one value, or the values a spread
/// pushed between a mark and the instruction that consumes it.
#[derive(Debug, Clone)]
pub(super) enum Item {
    One(Abs),
    /// At most `len` values like `elem` (array spread).
    Many {
        len: Poly,
        elem: Abs,
    },
    /// At most `len` key/value pairs (object spread).
    Pairs {
        len: Poly,
        key_bytes: Poly,
        val: Abs,
    },
}

impl Item {
    fn join(&self, o: &Item) -> Item {
        match (self, o) {
            (Item::One(a), Item::One(b)) => Item::One(a.join(b)),
            (Item::Many { len: l, elem: e }, Item::Many { len: m, elem: f }) => Item::Many {
                len: l.max(m),
                elem: e.join(f),
            },
            (
                Item::Pairs {
                    len: l,
                    key_bytes: k,
                    val: v,
                },
                Item::Pairs {
                    len: m,
                    key_bytes: j,
                    val: w,
                },
            ) => Item::Pairs {
                len: l.max(m),
                key_bytes: k.max(j),
                val: v.join(w),
            },
            // Stacks of one program point always agree; kept total.
            (a, _) => a.clone(),
        }
    }

    pub(super) fn one(&self) -> Abs {
        match self {
            Item::One(a) => a.clone(),
            Item::Many { elem, .. } => elem.clone(),
            Item::Pairs { val, .. } => val.clone(),
        }
    }
}

/// Why an object literal with a key no compiler emits has no bound.
const NOT_A_KEY: &str = "an object key that is not a string constant, as no compiled program has";

/// The state before an instruction.
#[derive(Debug, Clone)]
struct State {
    stack: Vec<Item>,
    marks: Vec<usize>,
    /// Whether an instruction read below the bottom of the stack or of its
    /// marks, or paths met with different heights: code no compiler
    /// emits (a stored program's body can be anything the loader
    /// accepts), whose runs the analysis cannot follow.
    malformed: bool,
    /// Fuel used to get here (a bound over every path).
    cost: Poly,
}

impl State {
    fn join(&mut self, o: &State) {
        self.malformed |=
            o.malformed || self.stack.len() != o.stack.len() || self.marks.len() != o.marks.len();
        let n = self.stack.len().min(o.stack.len());
        self.stack.truncate(n);
        for (a, b) in self.stack.iter_mut().zip(&o.stack) {
            *a = a.join(b);
        }
        if o.marks.len() < self.marks.len() {
            self.marks.truncate(o.marks.len());
        }
        self.cost = self.cost.max(&o.cost);
    }

    /// Where the values the innermost call being built may take start:
    /// compiled code never takes a value from below its mark.
    fn floor(&self) -> usize {
        self.marks.last().copied().unwrap_or(0)
    }

    fn pop(&mut self) -> Abs {
        self.malformed |= self.stack.len() <= self.floor();
        self.stack
            .pop()
            .map(|i| i.one())
            .unwrap_or_else(Abs::scalar)
    }

    /// Where the top `n` items start.
    fn below(&mut self, n: usize) -> usize {
        self.malformed |= n > self.stack.len().saturating_sub(self.floor());
        self.stack.len().saturating_sub(n)
    }

    /// Where the items since the last mark start.
    fn mark(&mut self) -> usize {
        match self.marks.pop() {
            Some(at) if at <= self.stack.len() => at,
            _ => {
                self.malformed = true;
                self.stack.len()
            }
        }
    }

    fn push(&mut self, a: Abs) {
        self.stack.push(Item::One(a));
    }

    fn top(&mut self) -> Abs {
        self.malformed |= self.stack.len() <= self.floor();
        self.stack.last().map(Item::one).unwrap_or_else(Abs::scalar)
    }

    /// The items from `at` to the top, removed.
    fn take_from(&mut self, at: usize) -> Vec<Item> {
        self.stack.split_off(at.min(self.stack.len()))
    }

    fn charge(&mut self, p: &Poly) {
        self.cost.add_assign(p);
    }
}

/// A function's arguments as a call site passes them.
#[derive(Debug, Clone, Default)]
pub(super) struct Args {
    pub items: Vec<Item>,
}

impl Args {
    pub fn of(values: Vec<Abs>) -> Args {
        Args {
            items: values.into_iter().map(Item::One).collect(),
        }
    }
}

/// The analysis of one program.
pub(super) struct Walk<'p> {
    pub program: &'p Program,
    /// Prototypes being analysed, innermost last (a call of one of them
    /// is recursion).
    pub(super) active: Vec<u32>,
    steps: u64,
    /// Pattern strings compiled for their cost, by text.
    pub(super) patterns: std::collections::HashMap<Arc<str>, super::regex::Pattern>,
}

impl<'p> Walk<'p> {
    pub fn new(program: &'p Program) -> Walk<'p> {
        Walk {
            program,
            active: Vec::new(),
            steps: 0,
            patterns: std::collections::HashMap::new(),
        }
    }

    pub fn unbounded(&self, reason: impl Into<String>, span: Span) -> Unbounded {
        Unbounded {
            reason: reason.into(),
            span,
        }
    }

    /// A bound from a measure, or unbounded for the reason it has none.
    pub fn bound(&self, m: Result<Poly, Arc<str>>, span: Span) -> R<Poly> {
        m.map_err(|why| self.unbounded(why.to_string(), span))
    }

    pub(super) fn body(&mut self, fun: &Fun, slots: Vec<Abs>) -> R<(Poly, Abs)> {
        let program = self.program;
        let Some(proto) = program.protos().get(fun.proto as usize) else {
            return Err(self.unbounded("no such prototype", Span::default()));
        };
        let code = &proto.code;
        let mut states: Vec<Option<State>> = vec![None; code.len()];
        if let Some(s) = states.first_mut() {
            *s = Some(State {
                stack: slots.into_iter().map(Item::One).collect(),
                marks: Vec::new(),
                malformed: false,
                cost: Poly::zero(),
            });
        }
        let mut total: Option<Poly> = None;
        let mut result = Abs::default();
        for (ip, &op) in code.iter().enumerate() {
            let Some(mut st) = states.get_mut(ip).and_then(Option::take) else {
                continue;
            };
            self.steps += 1;
            let span = proto.spans.get(ip).copied().unwrap_or_default();
            if self.steps > MAX_STEPS || st.cost.too_large() {
                return Err(self.unbounded("the program is too large to analyse", span));
            }
            st.charge(&Poly::num(1));
            let mut next = Some(ip + 1);
            let mut jump: Option<(usize, State)> = None;
            match op {
                Op::Return => {
                    result = result.join(&st.pop());
                    total = Some(total.map_or(st.cost.clone(), |t| t.max(&st.cost)));
                    next = None;
                }
                Op::Jump(t) => {
                    next = None;
                    jump = Some((t as usize, st.clone()));
                }
                Op::JumpIfFalse(t) => {
                    st.pop();
                    jump = Some((t as usize, st.clone()));
                }
                Op::JumpIfFalseOrPop(t)
                | Op::JumpIfTrueOrPop(t)
                | Op::JumpIfNotNullOrPop(t)
                | Op::JumpIfNull(t) => {
                    jump = Some((t as usize, st.clone()));
                    if !matches!(op, Op::JumpIfNull(_)) {
                        st.pop();
                    }
                }
                _ => self.step(op, &mut st, fun, span)?,
            }
            if st.malformed {
                return Err(self.unbounded(
                    "the code reads below its stack, as no compiled program does",
                    span,
                ));
            }
            for (target, state) in jump.into_iter().chain(next.map(|n| (n, st))) {
                if target <= ip {
                    return Err(self.unbounded("a backward jump", span));
                }
                if let Some(slot) = states.get_mut(target) {
                    match slot {
                        Some(s) => s.join(&state),
                        None => *slot = Some(state),
                    }
                }
            }
        }
        Ok((total.unwrap_or_default(), result))
    }

    /// Every instruction but the jumps and `Return`: its fuel beyond the
    /// unit already charged, and its effect on the stack.
    fn step(&mut self, op: Op, st: &mut State, fun: &Fun, span: Span) -> R<()> {
        let program = self.program;
        let konst = |c: u32| {
            program
                .constants()
                .get(c as usize)
                .cloned()
                .unwrap_or(Value::Null)
        };
        let key = |k: u32| {
            program
                .keys()
                .get(k as usize)
                .cloned()
                .unwrap_or_else(|| "".into())
        };
        match op {
            Op::Const(c) => st.push(Abs::constant(&konst(c))),
            Op::Null | Op::True | Op::False => st.push(Abs::scalar()),
            Op::Int(n) => st.push(Abs::number(f64::from(n))),
            Op::Pop => {
                st.pop();
            }
            Op::Swap => {
                let n = st.stack.len();
                if n >= 2 {
                    st.stack.swap(n - 1, n - 2);
                }
            }
            Op::LoadLocal(s) => {
                let v = st
                    .stack
                    .get(s as usize)
                    .map(Item::one)
                    .unwrap_or_else(Abs::scalar);
                st.push(v);
            }
            Op::StoreLocal(s) => {
                let v = st.pop();
                if let Some(slot) = st.stack.get_mut(s as usize) {
                    *slot = Item::One(v);
                }
            }
            Op::LoadCapture(i) => {
                let v = fun
                    .captures
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_else(Abs::scalar);
                st.push(v);
            }
            Op::LoadGlobal(g) => {
                let global = program.parts().globals.get(g as usize);
                let mut v = Abs::default();
                if let Some(global) = global {
                    v = Abs::path(Path(vec![Seg::Field(global.name.clone())]));
                    match &global.fallback {
                        Some(Value::Function(_)) => {
                            v = v.join(&Abs::unknown(format!(
                                "the function '{}' used as a value",
                                global.name
                            )));
                        }
                        Some(k) => v = v.join(&Abs::constant(k)),
                        None => {}
                    }
                }
                st.push(v);
            }
            Op::GetField(k) => {
                let v = st.pop().field(&key(k));
                st.push(v);
            }
            Op::GetLocalField { slot, key: k } => {
                let local = st
                    .stack
                    .get(slot as usize)
                    .map(Item::one)
                    .unwrap_or_else(Abs::scalar);
                st.push(local.field(&key(k)));
            }
            Op::GetLength(k) => {
                let v = st.pop();
                st.charge(&self.bound(v.bytes(), span)?.per_sixteen());
                st.push(v.field(&key(k)).join(&Abs::scalar()));
            }
            Op::Index => {
                let idx = st.pop();
                let obj = st.pop();
                // Hashing a string key, or walking a string to a character.
                let work = self
                    .bound(idx.bytes(), span)?
                    .add(&self.bound(obj.bytes(), span)?);
                st.charge(&work.per_sixteen());
                let v = match idx.text_const() {
                    Some(k) => obj.field(k).join(&obj.elem()),
                    None => obj.member(),
                };
                st.push(v);
            }
            Op::Add => {
                let b = st.pop();
                let a = st.pop();
                let num = match (a.num(), b.num()) {
                    (Some(x), Some(y)) => Abs::number(x + y),
                    _ => Abs::scalar(),
                };
                // Two strings are joined (their bytes copied); anything
                // else adds numbers or fails.
                if a.may_be_string() && b.may_be_string() {
                    let bytes = self
                        .bound(a.bytes(), span)?
                        .add(&self.bound(b.bytes(), span)?);
                    st.charge(&bytes.per_sixteen());
                    st.push(Abs::text(bytes).join(&num));
                } else {
                    st.push(num);
                }
            }
            Op::Sub | Op::Mul => {
                let b = st.pop();
                let a = st.pop();
                let v = match (a.num(), b.num()) {
                    (Some(x), Some(y)) if op == Op::Sub => Abs::number(x + y),
                    (Some(x), Some(y)) => Abs::number(x * y),
                    _ => Abs::scalar(),
                };
                st.push(v);
            }
            Op::Div | Op::Rem | Op::Pow => {
                st.pop();
                st.pop();
                st.push(Abs::scalar());
            }
            Op::Neg => {
                let a = st.pop();
                st.push(a.num().map_or_else(Abs::scalar, Abs::number));
            }
            Op::Not => {
                st.pop();
                st.push(Abs::scalar());
            }
            Op::Eq | Op::Ne => {
                let b = st.pop();
                let a = st.pop();
                // The walk stops at the smaller side: either weight bounds it.
                let work = match (a.size(), b.size()) {
                    (Ok(x), Ok(y)) if y.vars().len() < x.vars().len() => y,
                    (Ok(x), _) => x,
                    (_, Ok(y)) => y,
                    (Err(why), Err(_)) => return Err(self.unbounded(why.to_string(), span)),
                };
                st.charge(&work);
                st.push(Abs::scalar());
            }
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let b = st.pop();
                let a = st.pop();
                let work = match (a.bytes(), b.bytes()) {
                    (Ok(x), Ok(y)) if y.vars().len() < x.vars().len() => y,
                    (Ok(x), _) => x,
                    (_, Ok(y)) => y,
                    (Err(why), Err(_)) => return Err(self.unbounded(why.to_string(), span)),
                };
                st.charge(&work.per_sixteen());
                st.push(Abs::scalar());
            }
            Op::CompareConst { constant, .. } => {
                st.pop();
                let k = konst(constant);
                // Two strings: at most the constant's bytes / 16; a
                // container constant (only in hand-built programs): its
                // logical size / 16; a scalar: nothing.
                let bytes = match &k {
                    Value::String(s) => s.len() as u64,
                    Value::Array(_) | Value::Object(_) => k.logical_size(),
                    _ => 0,
                };
                st.charge(&Poly::sixteenths(bytes));
                st.push(Abs::scalar());
            }
            Op::Array(n) => {
                let at = st.below(n as usize);
                let items = st.take_from(at);
                st.push(self.array(items, span)?);
            }
            Op::ArrayMark => {
                let at = st.mark();
                let items = st.take_from(at);
                st.push(self.array(items, span)?);
            }
            Op::Object(n) => {
                let at = st.below(2 * n as usize);
                let items = st.take_from(at);
                let (v, work) = self.object(items, span)?;
                st.charge(&work);
                st.push(v);
            }
            Op::ObjectMark => {
                let at = st.mark();
                let items = st.take_from(at);
                let (v, work) = self.object(items, span)?;
                st.charge(&work);
                st.push(v);
            }
            Op::Mark(n) => {
                let at = st.below(n as usize);
                st.marks.push(at);
            }
            Op::SpreadArray | Op::SpreadArgs => {
                let v = st.pop();
                let len = self.bound(v.len(), span)?;
                st.charge(&len);
                st.stack.push(Item::Many {
                    len,
                    elem: v.elem(),
                });
            }
            Op::SpreadObject => {
                let v = st.pop();
                let len = self.bound(v.len(), span)?;
                st.charge(&len);
                st.stack.push(Item::Pairs {
                    len,
                    key_bytes: self.bound(v.size(), span)?,
                    val: v.any_field(),
                });
            }
            Op::Template(n) => {
                let at = st.below(n as usize);
                let parts = st.take_from(at);
                let mut total = Poly::zero();
                for p in &parts {
                    // A string is taken as it is; anything else through
                    // `string()`, which charges the text it makes.
                    let p = p.one();
                    let bytes = self.bound(p.display(), span)?;
                    st.charge(&Poly::num(2).add(&bytes.per_sixteen()));
                    total.add_assign(&bytes);
                }
                st.charge(&total.per_sixteen());
                st.push(Abs::text(total));
            }
            Op::CallValue(argc) => {
                let at = st.below(argc as usize);
                let args = Args {
                    items: st.take_from(at),
                };
                let f = st.pop();
                let (c, r) = self.call(&f, &args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallValueMark => {
                let at = st.mark();
                let args = Args {
                    items: st.take_from(at),
                };
                let f = st.pop();
                let (c, r) = self.call(&f, &args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallBuiltin { id, argc, .. } => {
                let at = st.below(argc as usize);
                let args = st.take_from(at);
                let name = crate::stdlib::function_name(id);
                let (c, r) = self.builtin(name, false, &args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallBuiltinMark { id, .. } => {
                let at = st.mark();
                let args = st.take_from(at);
                let name = crate::stdlib::function_name(id);
                let (c, r) = self.builtin(name, false, &args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallHost { index, argc, .. } => {
                let at = st.below(argc as usize);
                st.take_from(at);
                let (c, r) = self.host(index, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallHostMark { index, .. } => {
                let at = st.mark();
                st.take_from(at);
                let (c, r) = self.host(index, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallGlobal { call, argc } => {
                let at = st.below(argc as usize);
                let args = st.take_from(at);
                let (c, r) = self.named_call(call, args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallGlobalMark(call) => {
                let at = st.mark();
                let args = st.take_from(at);
                let (c, r) = self.named_call(call, args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::LoadCallee(call) => {
                let name = self.call_name(call);
                st.push(Abs::unknown(format!("calls '{name}' from the context")));
            }
            Op::CallMethod { method, argc } => {
                let at = st.below(argc as usize);
                let args = st.take_from(at);
                let recv = st.pop();
                let (c, r) = self.method(method, recv, args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::CallMethodMark(method) => {
                let at = st.mark();
                let args = st.take_from(at);
                let recv = st.pop();
                let (c, r) = self.method(method, recv, args, span)?;
                st.charge(&c);
                st.push(r);
            }
            Op::Closure(f) => {
                let captures = program
                    .protos()
                    .get(f as usize)
                    .map(|p| {
                        p.captures
                            .iter()
                            .map(|c| match *c {
                                Capture::Local(s) => st
                                    .stack
                                    .get(s as usize)
                                    .map(Item::one)
                                    .unwrap_or_else(Abs::scalar),
                                Capture::Capture(i) => fun
                                    .captures
                                    .get(i as usize)
                                    .cloned()
                                    .unwrap_or_else(Abs::scalar),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                st.push(Abs {
                    funs: vec![Fun { proto: f, captures }],
                    ..Abs::default()
                });
            }
            Op::CheckObject | Op::CheckArray => {}
            Op::PatternField(k) => {
                let v = st.top().field(&key(k));
                st.push(v);
            }
            Op::PatternIndex(_) => {
                let v = st.top().elem();
                st.push(v);
            }
            Op::ObjectRest(_) => {
                let src = st.top();
                let len = self.bound(src.len(), span)?;
                st.charge(&len.add(&self.bound(src.size(), span)?.per_sixteen()));
                let size = self.bound(src.size(), span)?;
                st.push(Abs::of_shape(Shape {
                    len,
                    display: size.scale(super::abs::NUMBER_TEXT),
                    size,
                    rest: Some(Box::new(src.any_field())),
                    ..Shape::default()
                }));
            }
            Op::ArrayRest(_) => {
                let src = st.top();
                let len = self.bound(src.len(), span)?;
                st.charge(&len);
                let elem = src.elem();
                st.push(Abs::array(len, elem).map_err(|w| self.unbounded(w.to_string(), span))?);
            }
            // Handled by the caller.
            Op::Return
            | Op::Jump(_)
            | Op::JumpIfFalse(_)
            | Op::JumpIfFalseOrPop(_)
            | Op::JumpIfTrueOrPop(_)
            | Op::JumpIfNotNullOrPop(_)
            | Op::JumpIfNull(_) => {}
        }
        Ok(())
    }

    /// An array of `items`.
    fn array(&self, items: Vec<Item>, span: Span) -> R<Abs> {
        let mut len = Poly::zero();
        let mut elem = Abs::default();
        for it in &items {
            match it {
                Item::One(a) => {
                    len.add_assign(&Poly::num(1));
                    elem = elem.join(a);
                }
                Item::Many { len: l, elem: e } | Item::Pairs { len: l, val: e, .. } => {
                    len.add_assign(l);
                    elem = elem.join(e);
                }
            }
        }
        Abs::array(len, elem).map_err(|w| self.unbounded(w.to_string(), span))
    }

    /// An object of the key/value pairs in `items`, and the fuel of
    /// hashing its keys.
    fn object(&self, items: Vec<Item>, span: Span) -> R<(Abs, Poly)> {
        let mut shape = Shape {
            size: Poly::num(1),
            ..Shape::default()
        };
        let mut key_bytes = Poly::zero();
        let mut it = items.into_iter();
        while let Some(item) = it.next() {
            match item {
                Item::Pairs {
                    len,
                    key_bytes: kb,
                    val,
                } => {
                    // `kb` is the source object's weight: its keys and
                    // values together.
                    shape.len.add_assign(&len);
                    key_bytes.add_assign(&kb);
                    shape.size.add_assign(&kb);
                    let rest = shape.rest.take().map_or(val.clone(), |r| r.join(&val));
                    shape.rest = Some(Box::new(rest));
                }
                // A compiled literal's keys are string constants; a stored
                // body can put any value there, which the VM skips and the
                // shape below would not follow.
                Item::Many { .. } => return Err(self.unbounded(NOT_A_KEY, span)),
                Item::One(k) => {
                    if k.text_const().is_none() {
                        return Err(self.unbounded(NOT_A_KEY, span));
                    }
                    let v = it.next().map(|i| i.one()).unwrap_or_else(Abs::scalar);
                    let kb = self.bound(k.bytes(), span)?;
                    shape.len.add_assign(&Poly::num(1));
                    key_bytes.add_assign(&kb);
                    shape.size.add_assign(&kb.add(&Poly::num(1)));
                    shape.size.add_assign(&self.bound(v.size(), span)?);
                    match k.text_const() {
                        Some(name) => {
                            shape.fields.insert(name.clone(), v);
                        }
                        None => {
                            let rest = shape.rest.take().map_or(v.clone(), |r| r.join(&v));
                            shape.rest = Some(Box::new(rest));
                        }
                    }
                }
            }
        }
        shape.display = shape.size.scale(super::abs::NUMBER_TEXT);
        Ok((Abs::of_shape(shape), key_bytes.per_sixteen()))
    }
}
