//! The fuel-metered stack VM (issue: compiler and VM; issue: sandbox).
//!
//! A [`Vm`] keeps its value stack, call frames and a small regex cache
//! between runs, so running a small predicate again allocates nothing.
//! One run executes prototype 0 of a [`Program`] against a [`Context`]:
//!
//! - every instruction costs one fuel unit, taken from a countdown that is
//!   refilled every 1,024 instructions; the refill is where the time limits
//!   (`timer.rs`) and the cancellation flag are checked (and around every
//!   host call);
//! - arrow functions run in frames on the same value stack (locals are
//!   slots above the callee), so closure-to-closure recursion uses no host
//!   stack; calls made by built-ins (`map`, `sort`, ...) re-enter the
//!   dispatch loop and count toward the same call-depth budget;
//! - strings, arrays and objects are charged to the memory budget, at their
//!   logical size, before they are built; their nesting depth is checked.

mod calls;
pub mod ops;
mod regex_cache;
mod timer;

pub use regex_cache::{COMPILED_BYTES_PER_FUEL, REGEX_CACHE, REGEX_CACHE_BYTES};

use std::sync::Arc;

use smallvec::SmallVec;

use self::calls::Hides;
use crate::compare;
use crate::context::{Context, Field};
use crate::error::{Error, ErrorKind, Span};
use crate::function::{Closure, Function, HostFunction, Meter};
use crate::limits::{CancelHandle, Clock, Limits, Randomness, RunOptions};
use crate::program::{Capture, Cmp, Op, Program, Proto};
use crate::runtime::Runtime;
use crate::stdlib;
use crate::stopwatch::{Stopwatch, SystemStopwatch};
use crate::value::{Array, HEADER_BYTES, Key, Map, Object, Regex, SLOT_BYTES, Value, bytes_eq};

/// Instructions between two checks of the time limits and the cancellation flag.
const CHUNK: u64 = 1024;

/// How deep callbacks called by built-ins (`map`, `sort`, `reduce`, ...)
/// may nest, whatever [`Limits::call_depth`] says. Closure-to-closure calls
/// push VM frames, but a callback re-enters the interpreter on the native
/// stack; 100 such levels (what the default call depth of 200 allows, a
/// built-in and a closure per level) fit a 2 MiB thread in a debug build.
pub const NATIVE_CALL_CEILING: u32 = 100;

type Args = SmallVec<[Value; 8]>;

static NULL: Value = Value::Null;

/// Who runs in a frame.
#[derive(Debug)]
enum Callee {
    /// The expression itself (not counted as a call).
    Main,
    /// A closure lent by the caller of [`Exec::execute`], which keeps it
    /// alive for the whole call (a callback from a built-in): the frame
    /// holds no reference count.
    Lent,
    /// A closure called from bytecode, kept alive by the frame.
    Held(Arc<Function>),
}

/// A call frame: which function runs, where, and where its locals start.
#[derive(Debug)]
struct Frame {
    /// The running function.
    callee: Callee,
    /// Prototype index within the closure's (or the main) program.
    proto: u32,
    /// The next instruction, saved while a callee runs.
    ip: u32,
    /// Stack index of local slot 0; the callee sits just below (the main
    /// frame has no callee: its base is 0).
    base: u32,
}

/// Per-run budget state.
#[derive(Debug, Default)]
struct Budget {
    /// Fuel not yet handed to `tick`.
    fuel_left: u64,
    /// Fuel remaining in the current chunk.
    tick: u64,
    /// Fuel at the start of the run (`u64::MAX` when unlimited).
    fuel_start: u64,
    memory_used: u64,
    memory_limit: Option<u64>,
    depth: u32,
    call_depth: u32,
    value_depth: u32,
    timer: timer::Timer,
    /// The clocks of `timer`, when not the system's.
    stopwatch: Option<Arc<dyn Stopwatch>>,
    cancel: Option<CancelHandle>,
    now: Option<f64>,
    rng: Rng,
}

/// The state of `random()` in one run.
#[derive(Debug, Default, Clone, Copy)]
enum Rng {
    /// `random()` is an error.
    #[default]
    Off,
    /// Not yet seeded: the first call takes a seed from the VM's entropy stream.
    Entropy,
    /// SplitMix64 state.
    On(u64),
}

/// A reusable virtual machine: the stack, frames and caches of runs.
///
/// ```
/// use xpr_vm::{Vm, RunOptions, Program};
/// let mut vm = Vm::new();
/// let value = vm.run(&Program::default(), &(), &RunOptions::default()).unwrap();
/// assert_eq!(value, xpr_vm::Value::Null);
/// ```
#[derive(Default)]
pub struct Vm {
    stack: Vec<Value>,
    frames: Vec<Frame>,
    marks: Vec<usize>,
    budget: Budget,
    clock: Clock,
    /// The context variables the main program has read in this run, by
    /// global index: the context is read once per variable and run, however
    /// often the expression names it (a `serde_json` context converts the
    /// field on every read).
    globals: Vec<Option<Value>>,
    /// The names the main program calls under which the context was found
    /// to have no function in this run, one bit per global: a call of a
    /// built-in asks the context once per name and run, not once per call.
    absent: Vec<u64>,
    /// A built context value not kept in `globals` (read by a closure from
    /// another program), parked until the instruction reading it is done.
    scratch: Option<Value>,
    /// Reused buffer of string concatenation.
    text: String,
    /// Regexes compiled from run-time patterns ([`Runtime::regex`]).
    regexes: regex_cache::RegexCache,
    /// SplitMix64 stream of per-run seeds for [`Randomness::Entropy`],
    /// seeded from the operating system on first use.
    entropy: Option<u64>,
}

impl std::fmt::Debug for Vm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vm")
            .field("fuel_used", &self.fuel_used())
            .field("peak_memory", &self.peak_memory())
            .finish_non_exhaustive()
    }
}

impl Vm {
    /// A VM with empty stacks.
    pub fn new() -> Self {
        Vm::default()
    }

    /// Runs `program` against `ctx` within `opts`' budgets.
    ///
    /// # Errors
    /// Any run-time error (type, reference, arithmetic, access, ...) at the
    /// position of the instruction that raised it, or a budget error:
    /// [`ErrorKind::Fuel`] (`Fuel budget exhausted: out of fuel`), [`ErrorKind::Memory`]
    /// (`Memory limit exceeded`), [`ErrorKind::Depth`] (`Call depth limit
    /// exceeded`, `Value depth limit exceeded`), [`ErrorKind::Timeout`]
    /// (`Expression timeout exceeded`), [`ErrorKind::Cancelled`]
    /// (`Evaluation cancelled`).
    pub fn run(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
    ) -> Result<Value, Error> {
        self.reset(&opts.limits, opts);
        if let Some(c) = &opts.cancel
            && c.is_cancelled()
        {
            return Err(cancelled());
        }
        let Some(main) = program.protos().first() else {
            return Ok(Value::Null);
        };
        // Filled lazily, by contexts that build the values they return.
        self.globals.clear();
        self.absent.clear();
        // The main frame has no callee below its locals.
        if main.slots > 0 {
            self.stack.resize(main.slots as usize, Value::Null);
        }
        self.frames.push(Frame {
            callee: Callee::Main,
            proto: 0,
            ip: 0,
            base: 0,
        });
        let mut exec = Exec {
            vm: self,
            ctx,
            main: program,
            native: 0,
        };
        let result = exec.execute(0, program, &[]);
        // Keep the capacity, drop the values (they may hold large data).
        self.globals.clear();
        self.scratch = None;
        self.stack.clear();
        self.frames.clear();
        self.marks.clear();
        result
    }

    fn reset(&mut self, limits: &Limits, opts: &RunOptions) {
        self.stack.clear();
        self.frames.clear();
        self.marks.clear();
        let fuel = limits.fuel.unwrap_or(u64::MAX);
        let first = fuel.min(CHUNK);
        self.budget = Budget {
            fuel_left: fuel - first,
            tick: first,
            fuel_start: fuel,
            memory_used: 0,
            memory_limit: limits.memory,
            depth: 0,
            call_depth: limits.call_depth,
            value_depth: limits.value_depth,
            timer: timer::Timer::new(limits.timeout, limits.wall_ceiling()),
            stopwatch: opts.stopwatch.clone(),
            cancel: opts.cancel.clone(),
            now: None,
            rng: match opts.random {
                Randomness::Entropy => Rng::Entropy,
                Randomness::Seeded(s) => Rng::On(s ^ 0x9E37_79B9_7F4A_7C15),
                Randomness::Disabled => Rng::Off,
            },
        };
        self.clock = opts.clock.clone();
    }

    /// Fuel units the last (or current) run used.
    pub fn fuel_used(&self) -> u64 {
        let b = &self.budget;
        b.fuel_start
            .saturating_sub(b.fuel_left)
            .saturating_sub(b.tick)
    }

    /// Bytes charged to the memory budget by the last run (the counter
    /// only grows during a run, so this is also its peak).
    pub fn peak_memory(&self) -> u64 {
        self.budget.memory_used
    }

    /// The value a [`Found`] for global `g` designates.
    #[inline]
    fn found<'v>(&'v self, found: Found<'v>, g: u32) -> &'v Value {
        match found {
            Found::Borrowed(v) => v,
            Found::Cached => self
                .globals
                .get(g as usize)
                .and_then(Option::as_ref)
                .unwrap_or(&NULL),
            Found::Scratch => self.scratch.as_ref().unwrap_or(&NULL),
            // Compared as text, or built into a value, by the caller.
            Found::Text(_) => &NULL,
        }
    }

    #[inline]
    fn pop(&mut self) -> Value {
        self.stack.pop().unwrap_or(Value::Null)
    }

    #[inline]
    fn top(&mut self) -> &mut Value {
        if self.stack.is_empty() {
            self.stack.push(Value::Null);
        }
        // Not empty: ensured just above.
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    #[inline]
    fn peek(&self) -> &Value {
        self.stack.last().unwrap_or(&NULL)
    }

    /// Takes the top `n` values off the stack.
    fn take(&mut self, n: usize) -> Args {
        let start = self.stack.len().saturating_sub(n);
        match n {
            // The common short cases without the draining machinery.
            0 => Args::new(),
            1 => self.stack.pop().into_iter().collect(),
            _ => self.stack.drain(start..).collect(),
        }
    }

    /// Charges one instruction's fuel unit exactly as the dispatch loop
    /// does (refilling the chunk, and so checking interrupts, when it is
    /// spent).
    #[inline]
    fn step(&mut self) -> Result<(), Error> {
        if self.budget.tick == 0 {
            self.refill()?;
        }
        self.budget.tick -= 1;
        Ok(())
    }

    fn fuel(&mut self, units: u64) -> Result<(), Error> {
        let b = &mut self.budget;
        if units < b.tick {
            b.tick -= units;
            return Ok(());
        }
        let need = units - b.tick;
        b.tick = 0;
        if need > b.fuel_left {
            b.fuel_left = 0;
            return Err(out_of_fuel());
        }
        b.fuel_left -= need;
        self.refill()
    }

    /// Called when the chunk is spent: checks interrupts, hands out the next chunk.
    #[cold]
    fn refill(&mut self) -> Result<(), Error> {
        self.check_interrupts(false)?;
        let b = &mut self.budget;
        let take = b.fuel_left.min(CHUNK);
        if take == 0 {
            return Err(out_of_fuel());
        }
        b.fuel_left -= take;
        b.tick = take;
        Ok(())
    }

    /// The cancellation flag, then the time limits ([`timer`]), which start
    /// at a `host` call or once the run has used some fuel.
    fn check_interrupts(&mut self, host: bool) -> Result<(), Error> {
        let used = self.fuel_used();
        let b = &mut self.budget;
        if let Some(c) = &b.cancel
            && c.is_cancelled()
        {
            return Err(cancelled());
        }
        if !b.timer.due(used, host) {
            return Ok(());
        }
        match &b.stopwatch {
            Some(clock) => b.timer.check(&**clock),
            None => b.timer.check(&SystemStopwatch),
        }
    }

    fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
        let b = &mut self.budget;
        let next = b.memory_used.saturating_add(bytes);
        if let Some(limit) = b.memory_limit
            && next > limit
        {
            return Err(Error::new(ErrorKind::Memory, "Memory limit exceeded"));
        }
        b.memory_used = next;
        Ok(())
    }

    fn check_depth(&self, depth: u32) -> Result<(), Error> {
        if depth > self.budget.value_depth {
            Err(Error::new(ErrorKind::Depth, "Value depth limit exceeded"))
        } else {
            Ok(())
        }
    }

    /// `text.upper()` / `text.lower()` with the receiver on top of the
    /// stack, when it is an ASCII string held by nothing else (typically
    /// one just built by a concatenation): changed where it lies, with the
    /// depth check and the fuel of the call it stands for (the same as
    /// `string::change_case_owned`, so the same fuel and no memory charge).
    /// `Ok(false)`, the stack untouched, when the receiver is not such a
    /// string: the ordinary call then runs.
    #[inline]
    fn change_case_top(&mut self, to_upper: bool) -> Result<bool, Error> {
        let Some(top @ Value::String(_)) = self.stack.last_mut() else {
            return Ok(false);
        };
        let Value::String(mut s) = std::mem::replace(top, Value::Null) else {
            return Ok(false);
        };
        let len = match Arc::get_mut(&mut s) {
            Some(t) if stdlib::string::ascii_only(t) => t.len(),
            _ => {
                *top = Value::String(s);
                return Ok(false);
            }
        };
        self.case_change_cost(len)?;
        if let Some(t) = Arc::get_mut(&mut s) {
            stdlib::string::set_ascii_case(t, to_upper);
        }
        if let Some(top) = self.stack.last_mut() {
            *top = Value::String(s);
        }
        Ok(true)
    }

    /// Fuel for copying `bytes` bytes of text into a new string (a
    /// concatenation, a template), beyond the instruction's own unit:
    /// `bytes / 16`, nothing for the short strings of the hot paths.
    #[inline]
    fn copy_fuel(&mut self, bytes: usize) -> Result<(), Error> {
        let work = bytes as u64 / compare::BYTES_PER_UNIT;
        if work > 0 { self.fuel(work) } else { Ok(()) }
    }

    /// The depth check and the fuel of `upper()` / `lower()` on ASCII text
    /// of `len` bytes (see `string::change_case_owned`).
    #[inline]
    fn case_change_cost(&mut self, len: usize) -> Result<(), Error> {
        self.enter()?;
        self.leave();
        self.fuel(stdlib::string::ascii_case_fuel(len))
    }

    fn enter(&mut self) -> Result<(), Error> {
        let b = &mut self.budget;
        if b.depth >= b.call_depth {
            return Err(Error::new(ErrorKind::Depth, "Call depth limit exceeded"));
        }
        b.depth += 1;
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.budget.depth = self.budget.depth.saturating_sub(1);
    }
}

#[cold]
fn out_of_fuel() -> Error {
    Error::new(ErrorKind::Fuel, "Fuel budget exhausted: out of fuel")
}

#[cold]
fn cancelled() -> Error {
    Error::new(ErrorKind::Cancelled, "Evaluation cancelled")
}

#[cold]
fn internal(what: &str) -> Error {
    Error::new(ErrorKind::Value, format!("internal error: {what}"))
}

#[cold]
fn restricted(name: &str) -> Error {
    Error::new(
        ErrorKind::Access,
        format!("Access denied: '{name}' is a restricted property"),
    )
}

/// Whether `name` may not be read by name (spec "Blocked Property Names").
#[inline]
pub fn is_restricted(name: &str) -> bool {
    matches!(name, "__proto__" | "constructor" | "prototype")
}

/// Logical size and depth of an array about to be built from `items`.
fn measure_array(items: &[Value]) -> (u64, u32) {
    let mut size = HEADER_BYTES;
    let mut depth = 0;
    for v in items {
        size = size.saturating_add(SLOT_BYTES + v.logical_size());
        depth = depth.max(v.depth());
    }
    (size, depth.saturating_add(1))
}

/// Logical size, depth and key bytes of an object about to be built from
/// key/value pairs.
fn measure_pairs(pairs: &[Value]) -> (u64, u32, u64) {
    let mut size = HEADER_BYTES;
    let mut depth = 0;
    let mut keys = 0u64;
    for pair in pairs.chunks(2) {
        if let [k, v] = pair {
            let key = k.logical_size();
            keys = keys.saturating_add(key);
            size = size.saturating_add(SLOT_BYTES + key + v.logical_size());
            depth = depth.max(v.depth());
        }
    }
    (size, depth.saturating_add(1), keys)
}

/// Where the value of a global read lies (see `Exec::global`).
#[derive(Clone, Copy)]
enum Found<'p> {
    /// In the context (lent) or in the program (a fallback).
    Borrowed(&'p Value),
    /// In the VM's per-run cache of built context values, at the global's index.
    Cached,
    /// In the VM's scratch slot.
    Scratch,
    /// Text in the context, not yet built into a value.
    Text(&'p str),
}

#[cold]
fn value_too_deep() -> Error {
    Error::new(ErrorKind::Depth, "Value depth limit exceeded")
}

/// Field `key` (hashed `hash`) of the object at `stack[at]`, or null.
#[inline(always)]
fn field_at<'s>(stack: &'s [Value], at: usize, key: &str, hash: u64) -> &'s Value {
    match stack.get(at) {
        Some(Value::Object(o)) => o.get_hashed(key, hash).unwrap_or(&NULL),
        _ => &NULL,
    }
}

/// What [`compare_const`] and [`compare_text`] did.
enum Compared {
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
// Inlined into the dispatch loop in optimised builds only: in a debug
// build, four inlined copies of its locals outgrew the dispatch frame
// `NATIVE_CALL_CEILING` is calibrated for.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
fn compare_const(a: &Value, cmp: Cmp, k: &Value) -> Result<Compared, Error> {
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
fn compare_const_charged(a: &Value, cmp: Cmp, k: &Value) -> Result<bool, Error> {
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
fn compare_text(s: &str, cmp: Cmp, k: &Value) -> Result<Compared, Error> {
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
fn compare_text_charged(s: &str, cmp: Cmp, y: &str) -> Result<bool, Error> {
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

/// `x + y` for two strings: built in the reused buffer `t`, then copied
/// into its shared string (one allocation, where building a `String` and
/// converting it takes two and a free).
fn concat(t: &mut String, x: &str, y: &str) -> Value {
    t.clear();
    t.push_str(x);
    t.push_str(y);
    Value::String(Arc::from(t.as_str()))
}

/// The shape of the commonest callbacks, `x => x.f` and
/// `x => x.f <cmp> constant` (one parameter, no other local), which
/// [`Exec::call_shape`] runs without pushing a frame.
#[derive(Clone, Copy)]
struct Shape {
    /// Index of `f` in the property names.
    key: u32,
    /// The comparison and its constant, if any.
    compare: Option<(Cmp, u32)>,
}

impl Shape {
    #[inline]
    fn of(c: &Closure) -> Option<Shape> {
        let proto = c.program.parts().protos.get(c.proto as usize)?;
        if proto.params != 1 || proto.slots != 1 || proto.rest {
            return None;
        }
        match proto.code.as_slice() {
            [Op::GetLocalField { slot: 0, key }, Op::Return] => Some(Shape {
                key: *key,
                compare: None,
            }),
            [
                Op::GetLocalField { slot: 0, key },
                Op::CompareConst { cmp, constant },
                Op::Return,
            ] => Some(Shape {
                key: *key,
                compare: Some((*cmp, *constant)),
            }),
            _ => None,
        }
    }
}

/// A right operand of a chain of string concatenations.
enum Piece<'k> {
    /// A string constant.
    Text(&'k str),
    /// A global, read when its turn comes.
    Global(u32),
}

/// What a call instruction did.
enum Flow {
    /// The result is on the stack.
    Done,
    /// A closure frame was pushed; continue in it.
    Entered,
}

/// One run in progress: the VM, the context and the main program.
struct Exec<'a> {
    vm: &'a mut Vm,
    ctx: &'a dyn Context,
    main: &'a Program,
    /// Nesting of callbacks run by built-ins (see [`NATIVE_CALL_CEILING`]).
    native: u32,
}

#[cold]
#[inline(never)]
fn locate(e: Error, proto: &Proto, at: usize) -> Error {
    let span = proto.spans.get(at).copied().unwrap_or(Span::default());
    e.or_at(span)
}

#[cold]
fn not_callable(v: &Value) -> Error {
    Error::type_error(format_args!(
        "Cannot call non-function: {} is not callable",
        v.type_name()
    ))
}

impl<'a> Exec<'a> {
    /// Runs frames until the frame count drops back to `stop`, returning the
    /// value the frame at `stop` returned. That frame runs code of `program`
    /// with `captures`, lent by the caller for the whole call; frames pushed
    /// above it hold their closures.
    fn execute(
        &mut self,
        stop: usize,
        program: &Program,
        captures: &[Value],
    ) -> Result<Value, Error> {
        let r = self.dispatch(stop, program, captures);
        if r.is_err() {
            self.vm.frames.truncate(stop);
        }
        r
    }

    fn dispatch(&mut self, stop: usize, entry: &Program, lent: &[Value]) -> Result<Value, Error> {
        let main = self.main;
        'outer: loop {
            let Some(frame) = self.vm.frames.last() else {
                return Err(internal("no frame"));
            };
            // The entry frame's code is lent; a frame above it holds its
            // closure, cloned here (one count) while it runs.
            let holder = match &frame.callee {
                Callee::Held(f) if self.vm.frames.len() > stop + 1 => Some(f.clone()),
                _ => None,
            };
            let (program, captures): (&Program, &[Value]) = match holder.as_deref() {
                Some(Function::Closure(c)) => (&c.program, &c.captures),
                _ if self.vm.frames.len() == stop + 1 => (entry, lent),
                _ => (main, &[]),
            };
            let parts = program.parts();
            let hashes = program.key_hashes();
            let Some(proto) = parts.protos.get(frame.proto as usize) else {
                return Err(internal("no prototype"));
            };
            let code = &proto.code[..];
            let base = frame.base as usize;
            let mut ip = frame.ip as usize;

            macro_rules! tri {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(e) => return Err(locate(e, proto, ip - 1)),
                    }
                };
            }
            // Charges the fuel unit of an instruction run as part of the
            // one before it (`ip` already past it).
            macro_rules! charge {
                () => {
                    if self.vm.budget.tick == 0 {
                        tri!(self.vm.refill());
                    }
                    self.vm.budget.tick -= 1;
                };
            }
            // Returns `result` from the running frame.
            macro_rules! ret {
                ($result:expr) => {{
                    let result: Value = $result;
                    let Some(frame) = self.vm.frames.pop() else {
                        return Err(internal("no frame to return from"));
                    };
                    // A held callee sits in the slot below the frame.
                    let bottom = match frame.callee {
                        Callee::Held(_) => (frame.base as usize).saturating_sub(1),
                        _ => frame.base as usize,
                    };
                    self.vm.stack.truncate(bottom);
                    if !matches!(frame.callee, Callee::Main) {
                        self.vm.leave();
                    }
                    if self.vm.frames.len() <= stop {
                        return Ok(result);
                    }
                    self.vm.stack.push(result);
                    continue 'outer;
                }};
            }
            // `a <op> b` on two numbers, in place; anything else (strings,
            // errors, non-finite results) through `$slow`.
            macro_rules! arith {
                ($op:tt, $slow:expr) => {{
                    let n = self.vm.stack.len();
                    let fast = match self.vm.stack.get(n.saturating_sub(2)..) {
                        Some([Value::Number(x), Value::Number(y)]) => Some(*x $op *y),
                        _ => None,
                    };
                    match fast {
                        Some(r) if r.is_finite() => {
                            self.vm.stack.pop();
                            if let Some(top) = self.vm.stack.last_mut() {
                                *top = Value::Number(r);
                            }
                        }
                        _ => $slow,
                    }
                }};
            }
            // `text + y` with `ip` past the `Add` (see `Exec::concat`):
            // the result replaces the text on top of the stack.
            macro_rules! append_chain {
                ($y:expr) => {{
                    let mut t = std::mem::take(&mut self.vm.text);
                    t.clear();
                    if let Value::String(x) = self.vm.peek() {
                        t.push_str(x);
                    }
                    let r = self.concat(program, code, &mut ip, t, $y);
                    *self.vm.top() = tri!(r);
                }};
            }
            // Pushes a comparison's result, or, when a conditional jump or
            // a return follows, takes it at once: `a == "x" && ...` then
            // pushes nothing unless the jump keeps the value.
            macro_rules! push_bool {
                ($r:expr) => {{
                    let r: bool = $r;
                    match code.get(ip) {
                        // Jumps, keeping the value, when it is `true`
                        // (`||`) or `false` (`&&`); else drops it.
                        Some(&(Op::JumpIfTrueOrPop(t) | Op::JumpIfFalseOrPop(t))) => {
                            let keep = matches!(code.get(ip), Some(Op::JumpIfTrueOrPop(_)));
                            ip += 1;
                            charge!();
                            if r == keep {
                                self.vm.stack.push(Value::Bool(r));
                                ip = t as usize;
                            }
                        }
                        Some(&Op::JumpIfFalse(t)) => {
                            ip += 1;
                            charge!();
                            if !r {
                                ip = t as usize;
                            }
                        }
                        Some(&Op::Return) => {
                            ip += 1;
                            charge!();
                            ret!(Value::Bool(r));
                        }
                        _ => self.vm.stack.push(Value::Bool(r)),
                    }
                }};
            }
            macro_rules! save_ip {
                () => {
                    if let Some(f) = self.vm.frames.last_mut() {
                        f.ip = ip as u32;
                    }
                };
            }

            loop {
                let Some(&op) = code.get(ip) else {
                    return Err(internal("fell off the code"));
                };
                ip += 1;
                if self.vm.budget.tick == 0 {
                    tri!(self.vm.refill());
                }
                self.vm.budget.tick -= 1;
                match op {
                    Op::Const(c) => {
                        let k = parts.constants.get(c as usize).unwrap_or(&NULL);
                        // `text + "constant"`: appended without pushing it.
                        if let (Some(Op::Add), Value::String(y), Value::String(_)) =
                            (code.get(ip), k, self.vm.peek())
                        {
                            ip += 1;
                            charge!();
                            append_chain!(y);
                        } else {
                            self.vm.stack.push(k.clone());
                        }
                    }
                    Op::Null => self.vm.stack.push(Value::Null),
                    Op::True => self.vm.stack.push(Value::Bool(true)),
                    Op::False => self.vm.stack.push(Value::Bool(false)),
                    Op::Int(n) => self.vm.stack.push(Value::Number(f64::from(n))),
                    Op::Pop => {
                        self.vm.stack.pop();
                    }
                    Op::Swap => {
                        let len = self.vm.stack.len();
                        if len >= 2 {
                            self.vm.stack.swap(len - 1, len - 2);
                        }
                    }
                    Op::LoadLocal(s) => {
                        let v = self
                            .vm
                            .stack
                            .get(base + s as usize)
                            .cloned()
                            .unwrap_or(Value::Null);
                        self.vm.stack.push(v);
                    }
                    Op::StoreLocal(s) => {
                        let v = self.vm.pop();
                        if let Some(slot) = self.vm.stack.get_mut(base + s as usize) {
                            *slot = v;
                        }
                    }
                    Op::LoadCapture(i) => {
                        let v = captures.get(i as usize).cloned().unwrap_or(Value::Null);
                        self.vm.stack.push(v);
                    }
                    Op::LoadGlobal(g) => {
                        let found = tri!(self.global(program, g));
                        // `name <cmp> constant`: compared where the value
                        // lies, without pushing (or reference-counting) it.
                        // Both instructions are charged, as if run in turn.
                        if let Some(&Op::CompareConst { cmp, constant }) = code.get(ip) {
                            ip += 1;
                            charge!();
                            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                            let compared = match found {
                                Found::Text(s) => tri!(compare_text(s, cmp, k)),
                                _ => tri!(compare_const(self.vm.found(found, g), cmp, k)),
                            };
                            let r = tri!(self.settle(compared, |vm| match (found, k) {
                                (Found::Text(s), Value::String(y)) => {
                                    compare_text_charged(s, cmp, y)
                                }
                                _ => compare_const_charged(vm.found(found, g), cmp, k),
                            }));
                            push_bool!(r);
                        } else {
                            // `name + "constant"` for a string `name`: the
                            // chain starts from its text, never pushed (or
                            // reference-counted).
                            if let (Some(&Op::Const(c)), Some(Op::Add)) =
                                (code.get(ip), code.get(ip + 1))
                                && let Some(Value::String(y)) = parts.constants.get(c as usize)
                                && let Some(x) = match found {
                                    Found::Text(s) => Some(s),
                                    Found::Borrowed(v) => v.as_str(),
                                    _ => None,
                                }
                            {
                                ip += 1;
                                charge!();
                                ip += 1;
                                charge!();
                                let mut t = std::mem::take(&mut self.vm.text);
                                t.clear();
                                t.push_str(x);
                                let r = self.concat(program, code, &mut ip, t, y);
                                self.vm.stack.push(tri!(r));
                                continue;
                            }
                            // `text + name`: appended without pushing it.
                            if let Some(Op::Add) = code.get(ip)
                                && let Value::String(_) = self.vm.peek()
                            {
                                let owned;
                                let y: Option<&str> = match found {
                                    Found::Text(s) => Some(s),
                                    Found::Borrowed(v) => v.as_str(),
                                    _ => {
                                        owned = self.vm.found(found, g).clone();
                                        owned.as_str()
                                    }
                                };
                                if let Some(y) = y {
                                    ip += 1;
                                    charge!();
                                    append_chain!(y);
                                    continue;
                                }
                            }
                            let v = match found {
                                Found::Text(s) => {
                                    let v = Value::String(s.into());
                                    let main = program.ptr_eq(self.main);
                                    self.keep(main, program, g, v.clone());
                                    v
                                }
                                _ => self.vm.found(found, g).clone(),
                            };
                            self.vm.stack.push(v);
                        }
                    }
                    Op::GetField(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let top = self.vm.top();
                        let v = match &*top {
                            Value::Object(o) => {
                                o.get_hashed(key, hash).cloned().unwrap_or(Value::Null)
                            }
                            Value::Null => tri!(Err(null_property(key))),
                            _ => Value::Null,
                        };
                        *top = v;
                    }
                    Op::GetLocalField { slot, key: k } => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let at = base + slot as usize;
                        let local = self.vm.stack.get(at).unwrap_or(&NULL);
                        if let Value::Null = local {
                            tri!(Err(null_property(key)));
                        }
                        // `x.f <cmp> constant`: compared in place, as
                        // `LoadGlobal` does.
                        if let Some(&Op::CompareConst { cmp, constant }) = code.get(ip) {
                            ip += 1;
                            charge!();
                            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                            let v = field_at(&self.vm.stack, at, key, hash);
                            let compared = tri!(compare_const(v, cmp, k));
                            let r = tri!(self.settle(compared, |vm| {
                                compare_const_charged(field_at(&vm.stack, at, key, hash), cmp, k)
                            }));
                            push_bool!(r);
                        } else {
                            let v = match local {
                                Value::Object(o) => {
                                    o.get_hashed(key, hash).cloned().unwrap_or(Value::Null)
                                }
                                _ => Value::Null,
                            };
                            self.vm.stack.push(v);
                        }
                    }
                    Op::GetLength(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        // Counting a string's characters reads all of it.
                        if let Value::String(s) = self.vm.peek() {
                            let work = s.len() as u64 / crate::format::BYTES_PER_FUEL;
                            tri!(self.vm.fuel(work));
                        }
                        let top = self.vm.top();
                        let v = match &*top {
                            Value::Array(a) => Value::Number(a.len() as f64),
                            Value::String(s) => Value::Number(s.chars().count() as f64),
                            Value::Object(o) => {
                                o.get_hashed(key, hash).cloned().unwrap_or(Value::Null)
                            }
                            Value::Null => tri!(Err(null_property(key))),
                            _ => Value::Null,
                        };
                        *top = v;
                    }
                    Op::Index => {
                        let idx = self.vm.pop();
                        let obj = self.vm.pop();
                        let v = tri!(self.index(&obj, &idx));
                        self.vm.stack.push(v);
                    }
                    Op::Add => arith!(+, {
                        let b = self.vm.pop();
                        let bytes = match (self.vm.peek(), &b) {
                            (Value::String(x), Value::String(y)) => Some(x.len() + y.len()),
                            _ => None,
                        };
                        if let Some(bytes) = bytes {
                            tri!(self.vm.alloc(bytes as u64));
                            tri!(self.vm.copy_fuel(bytes));
                            let mut t = std::mem::take(&mut self.vm.text);
                            let v = match (self.vm.peek(), &b) {
                                (Value::String(x), Value::String(y)) => concat(&mut t, x, y),
                                _ => Value::Null,
                            };
                            // Keep a small buffer for the next one, not a large one.
                            if t.capacity() <= 4096 {
                                self.vm.text = t;
                            }
                            *self.vm.top() = v;
                        } else {
                            let a = self.vm.top();
                            *a = tri!(ops::add(a, &b));
                        }
                    }),
                    Op::Sub => arith!(-, tri!(self.arith(ops::sub))),
                    Op::Mul => arith!(*, tri!(self.arith(ops::mul))),
                    Op::Div => arith!(/, tri!(self.arith(ops::div))),
                    Op::Rem => self.arith(ops::rem).map_err(|e| locate(e, proto, ip - 1))?,
                    Op::Pow => self.arith(ops::pow).map_err(|e| locate(e, proto, ip - 1))?,
                    Op::Eq | Op::Ne => tri!(self.equality(op == Op::Eq)),
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        use std::cmp::Ordering::{Greater, Less};
                        let b = self.vm.pop();
                        // Charged before the strings are read.
                        let work = compare::order_work(self.vm.peek(), &b);
                        if work > 0 {
                            tri!(self.vm.fuel(work));
                        }
                        let symbol = match op {
                            Op::Lt => "<",
                            Op::Le => "<=",
                            Op::Gt => ">",
                            _ => ">=",
                        };
                        let a = self.vm.top();
                        let o = tri!(ops::compare(symbol, a, &b));
                        let r = match op {
                            Op::Lt => o == Less,
                            Op::Le => o != Greater,
                            Op::Gt => o == Greater,
                            _ => o != Less,
                        };
                        *a = Value::Bool(r);
                    }
                    Op::CompareConst { cmp, constant } => {
                        let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                        let compared = tri!(compare_const(self.vm.peek(), cmp, k));
                        let r =
                            tri!(self.settle(compared, |vm| {
                                compare_const_charged(vm.peek(), cmp, k)
                            }));
                        self.vm.stack.pop();
                        push_bool!(r);
                    }
                    Op::Not => {
                        let a = self.vm.top();
                        *a = Value::Bool(!a.truthy());
                    }
                    Op::Neg => {
                        let a = self.vm.top();
                        *a = tri!(ops::neg(a));
                    }
                    Op::Jump(t) => ip = t as usize,
                    Op::JumpIfFalse(t) => {
                        if !self.vm.pop().truthy() {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfFalseOrPop(t) => {
                        if self.vm.peek().truthy() {
                            self.vm.stack.pop();
                        } else {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfTrueOrPop(t) => {
                        if self.vm.peek().truthy() {
                            ip = t as usize;
                        } else {
                            self.vm.stack.pop();
                        }
                    }
                    Op::JumpIfNotNullOrPop(t) => {
                        if matches!(self.vm.peek(), Value::Null) {
                            self.vm.stack.pop();
                        } else {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfNull(t) => {
                        if matches!(self.vm.peek(), Value::Null) {
                            ip = t as usize;
                        }
                    }
                    Op::Array(n) => {
                        let start = self.vm.stack.len().saturating_sub(n as usize);
                        tri!(self.build_array(start));
                    }
                    Op::ArrayMark => {
                        let start = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        tri!(self.build_array(start));
                    }
                    Op::Object(n) => {
                        let start = self.vm.stack.len().saturating_sub(2 * n as usize);
                        tri!(self.build_object(start));
                    }
                    Op::ObjectMark => {
                        let start = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        tri!(self.build_object(start));
                    }
                    Op::Mark(n) => {
                        let at = self.vm.stack.len().saturating_sub(n as usize);
                        self.vm.marks.push(at);
                    }
                    Op::SpreadArray | Op::SpreadArgs => {
                        let v = self.vm.pop();
                        tri!(self.spread_array(v, op == Op::SpreadArgs));
                    }
                    Op::SpreadObject => {
                        let v = self.vm.pop();
                        tri!(self.spread_object(v));
                    }
                    Op::Template(n) => tri!(self.template(n as usize)),
                    Op::CallValue(argc) => {
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize + 1);
                        if let Flow::Entered = tri!(self.call_at(pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallValueMark => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered = tri!(self.call_at(mark.saturating_sub(1))) {
                            continue 'outer;
                        }
                    }
                    Op::CallBuiltin { id, argc, global } => {
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let pos = self.vm.stack.len().saturating_sub(argc as usize);
                            let r = self.call_shadowing(program, global, f, pos);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(argc as usize);
                        let v = tri!(self.call_builtin(id, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallBuiltinMark { id, global } => {
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let r = self.call_shadowing(program, global, f, mark);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(self.vm.stack.len().saturating_sub(mark));
                        let v = tri!(self.call_builtin(id, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallHost {
                        index,
                        argc,
                        global,
                    } => {
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let pos = self.vm.stack.len().saturating_sub(argc as usize);
                            let r = self.call_shadowing(program, global, f, pos);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(argc as usize);
                        let Some(h) = parts.host_functions.get(index as usize) else {
                            return Err(internal("no host function"));
                        };
                        let v = tri!(self.call_host(h, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallHostMark { index, global } => {
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let r = self.call_shadowing(program, global, f, mark);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(self.vm.stack.len().saturating_sub(mark));
                        let Some(h) = parts.host_functions.get(index as usize) else {
                            return Err(internal("no host function"));
                        };
                        let v = tri!(self.call_host(h, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallGlobal { call, argc } => {
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize);
                        if let Flow::Entered = tri!(self.call_global(program, call, pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallGlobalMark(call) => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered = tri!(self.call_global(program, call, mark)) {
                            continue 'outer;
                        }
                    }
                    Op::LoadCallee(call) => {
                        let f = tri!(self.load_callee(program, call));
                        self.vm.stack.push(f);
                    }
                    Op::CallMethod { method, argc } => {
                        if argc == 0
                            && let Some(to_upper) = parts
                                .methods
                                .get(method as usize)
                                .and_then(|m| stdlib::case_method(m.id))
                            && tri!(self.vm.change_case_top(to_upper))
                        {
                            continue;
                        }
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize + 1);
                        if let Flow::Entered = tri!(self.call_method(program, method, pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallMethodMark(method) => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered =
                            tri!(self.call_method(program, method, mark.saturating_sub(1)))
                        {
                            continue 'outer;
                        }
                    }
                    Op::Closure(f) => {
                        let v = tri!(self.closure(program, f, base, captures));
                        self.vm.stack.push(v);
                    }
                    Op::CheckObject => {
                        if let Value::Null = self.vm.peek() {
                            tri!(Err(Error::new(ErrorKind::Value, "cannot destructure null")));
                        }
                    }
                    Op::CheckArray => match self.vm.peek() {
                        Value::Array(_) => {}
                        Value::Null => {
                            tri!(Err(Error::new(ErrorKind::Value, "cannot destructure null")))
                        }
                        Value::String(_) => tri!(Err(Error::new(
                            ErrorKind::Value,
                            "cannot destructure string as array"
                        ))),
                        _ => tri!(Err(Error::new(
                            ErrorKind::Value,
                            "cannot destructure non-array as array"
                        ))),
                    },
                    Op::PatternField(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let v = match self.vm.peek() {
                            Value::Object(o) => {
                                o.get_hashed(key, hash).cloned().unwrap_or(Value::Null)
                            }
                            _ => Value::Null,
                        };
                        self.vm.stack.push(v);
                    }
                    Op::PatternIndex(i) => {
                        let v = match self.vm.peek() {
                            Value::Array(a) => {
                                a.items().get(i as usize).cloned().unwrap_or(Value::Null)
                            }
                            _ => Value::Null,
                        };
                        self.vm.stack.push(v);
                    }
                    Op::ObjectRest(k) => {
                        let keys = parts.key_sets.get(k as usize).map_or(&[][..], |v| &v[..]);
                        tri!(self.object_rest(keys));
                    }
                    Op::ArrayRest(from) => tri!(self.array_rest(from as usize)),
                    Op::Return => {
                        let result = self.vm.pop();
                        ret!(result);
                    }
                }
            }
        }
    }

    /// `==` (`eq`) or `!=` on the top two values, charged as the walk
    /// goes, before each large piece is read (see [`crate::compare`]).
    // Kept out of the dispatch frame in debug builds (see `global`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline(never))]
    fn equality(&mut self, eq: bool) -> Result<(), Error> {
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
    fn settle(
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
    fn arith(&mut self, f: fn(&Value, &Value) -> Result<Value, Error>) -> Result<(), Error> {
        let b = self.vm.pop();
        let a = self.vm.top();
        *a = f(a, &b)?;
        Ok(())
    }

    /// Resolves global `g` of `program`: the context's variable, else the
    /// global's fallback, else `Unknown identifier`.
    ///
    /// A context that lends its values is asked on every read (a lookup
    /// by precomputed hash, nothing copied). A value the context builds is
    /// kept in the VM for the rest of the run ([`Found::Cached`]): the
    /// context is asked once per variable and run, since building may be
    /// costly (a `serde_json` context converts the field). Only the main
    /// program's reads are kept; a closure from another program (handed in
    /// by the host) asks the context every time.
    // Always inlined into the dispatch loop in optimised builds (-9% of
    // the instructions of case a); only hinted in debug builds, whose
    // unoptimised dispatch frame would otherwise outgrow what
    // NATIVE_CALL_CEILING is calibrated for.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn global<'p>(&mut self, program: &'p Program, g: u32) -> Result<Found<'p>, Error>
    where
        'a: 'p,
    {
        let ctx: &'a dyn Context = self.ctx;
        let (Some(global), Some(&hash)) = (
            program.parts().globals.get(g as usize),
            program.global_hashes().get(g as usize),
        ) else {
            return Err(internal("no global"));
        };
        let main = program.ptr_eq(self.main);
        if main && let Some(Some(_)) = self.vm.globals.get(g as usize) {
            return Ok(Found::Cached);
        }
        match ctx.lookup(&global.name, hash) {
            Some(Field::Borrowed(v)) => {
                // Host data nested deeper than the value-depth budget is
                // refused when read, so no recursive operation (equality,
                // conversion to text) ever walks it.
                if v.depth() > self.vm.budget.value_depth {
                    return Err(value_too_deep());
                }
                Ok(Found::Borrowed(v))
            }
            // Scalars cost nothing to build again: not kept.
            Some(Field::Owned(v @ (Value::Null | Value::Bool(_) | Value::Number(_)))) => {
                self.vm.scratch = Some(v);
                Ok(Found::Scratch)
            }
            Some(Field::Owned(v)) => {
                if v.depth() > self.vm.budget.value_depth {
                    return Err(value_too_deep());
                }
                Ok(self.keep(main, program, g, v))
            }
            Some(Field::Str(s)) => Ok(Found::Text(s)),
            None => match &global.fallback {
                Some(v) => Ok(Found::Borrowed(v)),
                None => Err(unknown_identifier(&global.name)),
            },
        }
    }

    /// Keeps `v`, built by the context for global `g`, for the rest of the
    /// run (main program), or parks it in the scratch slot.
    fn keep(&mut self, main: bool, program: &Program, g: u32, v: Value) -> Found<'static> {
        let n = program.parts().globals.len();
        let cache = &mut self.vm.globals;
        if main && cache.len() < n {
            cache.resize(n, None);
        }
        match cache.get_mut(g as usize) {
            Some(slot) if main => {
                *slot = Some(v);
                Found::Cached
            }
            // Not kept: parked in the scratch slot, read at once.
            _ => {
                self.vm.scratch = Some(v);
                Found::Scratch
            }
        }
    }

    fn index(&mut self, obj: &Value, idx: &Value) -> Result<Value, Error> {
        if let Value::String(k) = idx
            && is_restricted(k)
        {
            return Err(restricted(k));
        }
        match (obj, idx) {
            (Value::Array(a), Value::Number(n)) => {
                let len = a.len() as f64;
                let mut i = n.trunc();
                if i < 0.0 {
                    i += len;
                }
                if i >= 0.0 && i < len {
                    Ok(a.items().get(i as usize).cloned().unwrap_or(Value::Null))
                } else {
                    Ok(Value::Null)
                }
            }
            (Value::Object(o), Value::String(k)) => {
                if is_restricted(k) {
                    return Err(restricted(k));
                }
                // Looking the key up hashes all of it.
                self.vm
                    .fuel(k.len() as u64 / crate::format::BYTES_PER_FUEL)?;
                Ok(o.get(k).cloned().unwrap_or(Value::Null))
            }
            (Value::Object(o), Value::Number(n)) => {
                let mut buf = ryu_js::Buffer::new();
                Ok(o.get(buf.format(*n)).cloned().unwrap_or(Value::Null))
            }
            (Value::String(s), Value::Number(n)) => {
                if *n < 0.0 {
                    return Err(Error::new(
                        ErrorKind::Type,
                        "Cannot use a negative index on a string (negative indexing applies to arrays only)",
                    ));
                }
                let i = n.trunc();
                if i >= s.len() as f64 {
                    return Ok(Value::Null);
                }
                // Finding character i walks the text up to it: charged per byte read.
                let found = s.char_indices().nth(i as usize);
                let read = found.map_or(s.len(), |(at, _)| at);
                self.vm.fuel(read as u64 / crate::format::BYTES_PER_FUEL)?;
                match found.map(|(_, c)| c) {
                    Some(c) => {
                        self.vm.alloc(c.len_utf8() as u64)?;
                        let mut b = [0u8; 4];
                        Ok(Value::String(Key::from(&*c.encode_utf8(&mut b))))
                    }
                    None => Ok(Value::Null),
                }
            }
            (Value::Null, _) => Err(null_index(idx)),
            // A string key names a property, as after a dot: `length` of an
            // array or a string, else nothing (`[1]["0"]`, `(5)["x"]`).
            (_, Value::String(k)) => match obj {
                Value::Array(a) if &**k == "length" => Ok(Value::Number(a.len() as f64)),
                Value::String(s) if &**k == "length" => {
                    // Counting the characters reads all of the text.
                    self.vm
                        .fuel(s.len() as u64 / crate::format::BYTES_PER_FUEL)?;
                    Ok(Value::Number(s.chars().count() as f64))
                }
                _ => Ok(Value::Null),
            },
            (_, Value::Number(_)) => Err(Error::new(
                ErrorKind::Type,
                format!(
                    "Cannot index non-array with number (got {})",
                    obj.type_name()
                ),
            )),
            _ => Err(Error::new(
                ErrorKind::Type,
                format!("Cannot index {} with {}", obj.type_name(), idx.type_name()),
            )),
        }
    }

    fn build_array(&mut self, start: usize) -> Result<(), Error> {
        let items = self.vm.stack.get(start..).unwrap_or(&[]);
        let (size, depth) = measure_array(items);
        self.vm.check_depth(depth)?;
        self.vm.alloc(size)?;
        let items = self.vm.stack.split_off(start.min(self.vm.stack.len()));
        self.vm
            .stack
            .push(Value::Array(Arc::new(Array::new(items))));
        Ok(())
    }

    fn build_object(&mut self, start: usize) -> Result<(), Error> {
        let start = start.min(self.vm.stack.len());
        let pairs = self.vm.stack.get(start..).unwrap_or(&[]);
        let (size, depth, key_bytes) = measure_pairs(pairs);
        let n = pairs.len() / 2;
        self.vm.check_depth(depth)?;
        self.vm.alloc(size)?;
        // Inserting hashes every key (spread objects bring long ones).
        let work = key_bytes / compare::BYTES_PER_UNIT;
        if work > 0 {
            self.vm.fuel(work)?;
        }
        let mut map = Map::with_capacity_and_hasher(n, Default::default());
        let mut it = self.vm.stack.drain(start..);
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            if let Value::String(k) = k {
                map.insert(k, v);
            }
        }
        drop(it);
        self.vm
            .stack
            .push(Value::Object(Arc::new(Object::new(map))));
        Ok(())
    }

    fn spread_array(&mut self, v: Value, args: bool) -> Result<(), Error> {
        match &v {
            Value::Array(a) => {
                self.vm.fuel(a.len() as u64)?;
                self.vm.alloc(SLOT_BYTES.saturating_mul(a.len() as u64))?;
                self.vm.stack.extend(a.items().iter().cloned());
                Ok(())
            }
            Value::Null => Err(Error::new(ErrorKind::Value, "Cannot spread null")),
            Value::String(_) if args => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread string into arguments",
            )),
            Value::String(_) => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread string into array",
            )),
            _ if args => Err(Error::new(ErrorKind::Value, "Cannot spread non-array")),
            _ => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread non-array into array",
            )),
        }
    }

    fn spread_object(&mut self, v: Value) -> Result<(), Error> {
        match &v {
            Value::Object(o) => {
                self.vm.fuel(o.len() as u64)?;
                self.vm
                    .alloc(2 * SLOT_BYTES.saturating_mul(o.len() as u64))?;
                for (k, v) in o.map() {
                    self.vm.stack.push(Value::String(k.clone()));
                    self.vm.stack.push(v.clone());
                }
                Ok(())
            }
            Value::Null => Err(Error::new(ErrorKind::Value, "Cannot spread null")),
            Value::Array(_) => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread array into object",
            )),
            _ => Err(Error::new(ErrorKind::Value, "Cannot spread non-object")),
        }
    }

    fn template(&mut self, n: usize) -> Result<(), Error> {
        let parts = self.vm.take(n);
        let mut texts: SmallVec<[Key; 8]> = SmallVec::new();
        for p in parts {
            match p {
                Value::String(s) => texts.push(s),
                other => match stringify(self, &other)? {
                    Value::String(s) => texts.push(s),
                    v => return Err(internal(&format!("string() returned {}", v.type_name()))),
                },
            }
        }
        let total: usize = texts.iter().map(|t| t.len()).sum();
        self.vm.alloc(total as u64)?;
        self.vm.copy_fuel(total)?;
        let mut s = String::with_capacity(total);
        for t in &texts {
            s.push_str(t);
        }
        self.vm.stack.push(Value::String(s.into()));
        Ok(())
    }

    fn object_rest(&mut self, keys: &[Key]) -> Result<(), Error> {
        let src = self.vm.peek().clone();
        let v = match &src {
            Value::Object(o) => {
                // A unit per field, and the hashing of its key (looked up
                // among the named keys, then inserted into the copy).
                let key_bytes: u64 = o.map().keys().map(|k| k.len() as u64).sum();
                self.vm
                    .fuel((o.len() as u64).saturating_add(key_bytes / compare::BYTES_PER_UNIT))?;
                // A pattern may name thousands of keys: look them up in a
                // set, not by a scan of the list per field.
                let set: Option<std::collections::HashSet<&str>> =
                    (keys.len() > 8).then(|| keys.iter().map(|k| &**k).collect());
                let kept = |k: &Key| match &set {
                    Some(set) => !set.contains(&**k),
                    None => !keys.contains(k),
                };
                // Charged before the copy is built (the size Object::new computes).
                let size =
                    o.map()
                        .iter()
                        .filter(|(k, _)| kept(k))
                        .fold(HEADER_BYTES, |acc, (k, v)| {
                            acc.saturating_add(SLOT_BYTES + k.len() as u64 + v.logical_size())
                        });
                self.vm.alloc(size)?;
                let map: Map = o
                    .map()
                    .iter()
                    .filter(|(k, _)| kept(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Value::Object(Arc::new(Object::new(map)))
            }
            _ => {
                self.vm.alloc(HEADER_BYTES)?;
                Value::object(Map::default())
            }
        };
        self.vm.stack.push(v);
        Ok(())
    }

    fn array_rest(&mut self, from: usize) -> Result<(), Error> {
        let src = self.vm.peek().clone();
        let part = match &src {
            Value::Array(a) => a.items().get(from..).unwrap_or(&[]),
            _ => &[],
        };
        // Charged before the copy is built.
        self.vm.fuel(part.len() as u64)?;
        let (size, _) = measure_array(part);
        self.vm.alloc(size)?;
        self.vm.stack.push(Value::array(part.to_vec()));
        Ok(())
    }

    fn closure(
        &mut self,
        program: &Program,
        f: u32,
        base: usize,
        captures: &[Value],
    ) -> Result<Value, Error> {
        let Some(proto) = program.parts().protos.get(f as usize) else {
            return Err(internal("no prototype"));
        };
        let values: Box<[Value]> = proto
            .captures
            .iter()
            .map(|c| match *c {
                Capture::Local(s) => self
                    .vm
                    .stack
                    .get(base + s as usize)
                    .cloned()
                    .unwrap_or(Value::Null),
                Capture::Capture(i) => captures.get(i as usize).cloned().unwrap_or(Value::Null),
            })
            .collect();
        self.vm
            .alloc(HEADER_BYTES + SLOT_BYTES * values.len() as u64)?;
        Ok(Value::Function(Arc::new(Function::Closure(Closure {
            program: program.clone(),
            proto: f,
            captures: values,
        }))))
    }

    /// Calls the function at stack position `pos` with the values above it.
    fn call_at(&mut self, pos: usize) -> Result<Flow, Error> {
        let callee = self.vm.stack.get(pos).cloned().unwrap_or(Value::Null);
        let Value::Function(func) = &callee else {
            return Err(not_callable(&callee));
        };
        match &**func {
            Function::Closure(_) => {
                self.enter_closure(func, pos + 1, true)?;
                Ok(Flow::Entered)
            }
            Function::Builtin(id) => {
                let args = self.vm.take(self.vm.stack.len().saturating_sub(pos + 1));
                self.vm.stack.truncate(pos);
                let v = self.call_builtin(*id, &args)?;
                self.vm.stack.push(v);
                Ok(Flow::Done)
            }
            Function::Host(h) => {
                let args = self.vm.take(self.vm.stack.len().saturating_sub(pos + 1));
                self.vm.stack.truncate(pos);
                let v = self.call_host(h, &args)?;
                self.vm.stack.push(v);
                Ok(Flow::Done)
            }
        }
    }

    /// Pushes a frame for closure `func` whose arguments start at
    /// stack[base]; the frame holds a count of `func` (whose callee slot is
    /// stack[base - 1]) unless the caller lends it (`hold` false: the caller
    /// runs the frame with [`Exec::execute`] and keeps `func` alive until
    /// it returns; no callee slot).
    fn enter_closure(
        &mut self,
        func: &Arc<Function>,
        base: usize,
        hold: bool,
    ) -> Result<(), Error> {
        let Function::Closure(c) = &**func else {
            return Err(internal("not a closure"));
        };
        let Some(proto) = c.program.parts().protos.get(c.proto as usize) else {
            return Err(internal("no prototype"));
        };
        if let Some(cancel) = &self.vm.budget.cancel
            && cancel.is_cancelled()
        {
            return Err(cancelled());
        }
        self.vm.enter()?;
        let params = proto.params as usize;
        let stack = &mut self.vm.stack;
        let argc = stack.len().saturating_sub(base);
        let mut rest = None;
        if argc > params {
            if proto.rest {
                rest = Some(stack.split_off(base + params));
            } else {
                stack.truncate(base + params);
            }
        }
        if argc < params {
            stack.resize(base + params, Value::Null);
        }
        if proto.rest {
            let items = rest.unwrap_or_default();
            let (size, depth) = measure_array(&items);
            self.vm.check_depth(depth)?;
            self.vm.alloc(size)?;
            self.vm
                .stack
                .push(Value::Array(Arc::new(Array::new(items))));
        }
        let slots = base + proto.slots as usize;
        if self.vm.stack.len() < slots {
            self.vm.stack.resize(slots, Value::Null);
        }
        let proto_index = c.proto;
        self.vm.frames.push(Frame {
            callee: if hold {
                Callee::Held(func.clone())
            } else {
                Callee::Lent
            },
            proto: proto_index,
            ip: 0,
            base: u32::try_from(base).map_err(|_| internal("stack too deep"))?,
        });
        Ok(())
    }

    /// Runs a callback of a [`Shape`] without a frame: what its
    /// instructions do, charged per instruction as the dispatch loop
    /// charges them, with the same errors at the same positions.
    fn call_shape(&mut self, c: &Closure, shape: Shape, x: Option<&Value>) -> Result<Value, Error> {
        let program = &c.program;
        let parts = program.parts();
        let Some(proto) = parts.protos.get(c.proto as usize) else {
            return Err(internal("no prototype"));
        };
        // As `enter_closure`: cancellation, then the call depth.
        if let Some(cancel) = &self.vm.budget.cancel
            && cancel.is_cancelled()
        {
            return Err(cancelled());
        }
        self.vm.enter()?;
        let at = |e: Error, i: usize| locate(e, proto, i);
        let r = (|| {
            let key = parts.keys.get(shape.key as usize).map_or("", |k| &**k);
            let hash = program
                .key_hashes()
                .get(shape.key as usize)
                .copied()
                .unwrap_or(0);
            self.vm.step().map_err(|e| at(e, 0))?;
            let v = match x.unwrap_or(&NULL) {
                Value::Object(o) => o.get_hashed(key, hash).unwrap_or(&NULL),
                Value::Null => return Err(at(null_property(key), 0)),
                _ => &NULL,
            };
            let Some((cmp, constant)) = shape.compare else {
                self.vm.step().map_err(|e| at(e, 1))?;
                return Ok(v.clone());
            };
            self.vm.step().map_err(|e| at(e, 1))?;
            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
            let r = match compare_const(v, cmp, k).map_err(|e| at(e, 1))? {
                Compared::Done(r, work) => {
                    if work > 0 {
                        self.vm.fuel(work).map_err(|e| at(e, 1))?;
                    }
                    r
                }
                Compared::ChargeFirst(work) => {
                    self.vm.fuel(work).map_err(|e| at(e, 1))?;
                    compare_const_charged(v, cmp, k).map_err(|e| at(e, 1))?
                }
            };
            self.vm.step().map_err(|e| at(e, 2))?;
            Ok(Value::Bool(r))
        })();
        self.vm.leave();
        r
    }

    fn call_builtin(&mut self, id: u16, args: &[Value]) -> Result<Value, Error> {
        self.vm.enter()?;
        let r = stdlib::call_function(self, id, args);
        self.vm.leave();
        r
    }

    fn call_host(&mut self, h: &HostFunction, args: &[Value]) -> Result<Value, Error> {
        stdlib::check_arity(&h.name, h.arity, args.len())?;
        self.vm.fuel(h.fuel_per_call)?;
        // Starts the clocks if no check has yet, so that a host function
        // blocking past the wall-clock ceiling, or using up the CPU budget,
        // is caught when it returns.
        self.vm.check_interrupts(true)?;
        self.vm.enter()?;
        let mut meter = Meter::default();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (h.callback)(&mut meter, args)
        }));
        self.vm.leave();
        // The host's own failure is reported first; budgets after.
        let v = match r {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => return Err(Error::new(ErrorKind::Host, e.0)),
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::Host,
                    format!("host function '{}' panicked", h.name),
                ));
            }
        };
        self.vm.fuel(meter.charged())?;
        self.vm.check_interrupts(true)?;
        Ok(v)
    }

    /// The string `t + y`, `t` in the VM's reused text buffer and `ip`
    /// past the `Add`, then any further `+ "constant"` or `+ name` of
    /// strings and a final `.upper()` / `.lower()` of ASCII text: appended
    /// in the buffer and built once. Each instruction is charged its fuel
    /// and each intermediate string its memory, as if run in turn; `ip`
    /// ends past the last instruction taken (on an error, just past the one
    /// that failed). A piece that is not a string (or an unknown name) ends
    /// the chain, left to the instructions themselves.
    ///
    /// Not inlined in debug builds, whose dispatch frame must stay small
    /// (see [`NATIVE_CALL_CEILING`]).
    #[cfg_attr(debug_assertions, inline(never))]
    fn concat(
        &mut self,
        program: &Program,
        code: &[Op],
        ip: &mut usize,
        mut t: String,
        y: &str,
    ) -> Result<Value, Error> {
        let parts = program.parts();
        self.vm.alloc((t.len() + y.len()) as u64)?;
        self.vm.copy_fuel(t.len() + y.len())?;
        t.push_str(y);
        loop {
            let piece = match (code.get(*ip), code.get(*ip + 1)) {
                (Some(&Op::Const(c)), Some(Op::Add)) => match parts.constants.get(c as usize) {
                    Some(Value::String(z)) => Piece::Text(z),
                    _ => break,
                },
                (Some(&Op::LoadGlobal(g)), Some(Op::Add)) => Piece::Global(g),
                _ => break,
            };
            let owned;
            let z: &str = match piece {
                Piece::Text(z) => z,
                Piece::Global(g) => {
                    let Ok(found) = self.global(program, g) else {
                        break;
                    };
                    let z = match found {
                        Found::Text(s) => Some(s),
                        Found::Borrowed(v) => v.as_str(),
                        _ => {
                            owned = self.vm.found(found, g).clone();
                            owned.as_str()
                        }
                    };
                    match z {
                        Some(z) => z,
                        None => break,
                    }
                }
            };
            for _ in 0..2 {
                *ip += 1;
                self.vm.step()?;
            }
            self.vm.alloc((t.len() + z.len()) as u64)?;
            self.vm.copy_fuel(t.len() + z.len())?;
            t.push_str(z);
        }
        if let Some(&Op::CallMethod { method, argc: 0 }) = code.get(*ip)
            && let Some(to_upper) = parts
                .methods
                .get(method as usize)
                .and_then(|m| stdlib::case_method(m.id))
            && stdlib::string::ascii_only(&t)
        {
            *ip += 1;
            self.vm.step()?;
            self.vm.case_change_cost(t.len())?;
            stdlib::string::set_ascii_case(&mut t, to_upper);
        }
        let v = Value::String(Arc::from(t.as_str()));
        // Keep a small buffer for the next one, not a large one.
        if t.capacity() <= 4096 {
            self.vm.text = t;
        }
        Ok(v)
    }

    /// A method call with the receiver at stack position `pos`.
    fn call_method(&mut self, program: &Program, method: u16, pos: usize) -> Result<Flow, Error> {
        let Some(m) = program.parts().methods.get(method as usize) else {
            return Err(internal("no method"));
        };
        let recv = self.vm.stack.get(pos).unwrap_or(&NULL);
        if let Value::Object(o) = recv
            && let Some(f @ Value::Function(_)) = o.get(&m.name)
        {
            let f = f.clone();
            if let Some(slot) = self.vm.stack.get_mut(pos) {
                *slot = f;
            }
            return self.call_at(pos);
        }
        // One registry lookup: the definition found is the one called.
        match m.id.and_then(|id| stdlib::method_def(id, recv)) {
            Some(def) => {
                let argc = self.vm.stack.len().saturating_sub(pos + 1);
                let r = if argc == 0 {
                    // No arguments (`s.upper()`): no argument list to build.
                    let recv = self.vm.pop();
                    self.vm.enter()?;
                    stdlib::call_method_def(self, def, recv, &[])
                } else {
                    let args = self.vm.take(argc);
                    let recv = self.vm.pop();
                    self.vm.enter()?;
                    stdlib::call_method_def(self, def, recv, &args)
                };
                self.vm.leave();
                self.vm.stack.push(r?);
                Ok(Flow::Done)
            }
            _ => Err(stdlib::no_such_method(&m.name, recv)),
        }
    }
}

/// The error for `null.key` (spec "Missing Property Access": "cannot
/// access .bar on null"), with the reference runtimes' words after it.
#[cold]
fn null_property(key: &str) -> Error {
    Error::type_error(format_args!("cannot access .{key} on null ({NULL_ACCESS})"))
}

/// The reference runtimes' words for any access on null.
const NULL_ACCESS: &str = "Cannot access property on null";

/// The error for `null[idx]`, as [`null_property`] with the index shown as
/// written: `[0]`, `["k"]` (a long key cut), `[true]`, or `[array]` for a
/// container, regex or function.
#[cold]
fn null_index(idx: &Value) -> Error {
    let shown = match idx {
        Value::Number(n) => crate::format::number_to_string(*n),
        Value::String(k) => stdlib::types::quote_excerpt(k),
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        other => other.type_name().to_owned(),
    };
    Error::type_error(format_args!(
        "cannot access [{shown}] on null ({NULL_ACCESS})"
    ))
}

#[cold]
fn unknown_identifier(name: &str) -> Error {
    Error::new(ErrorKind::Reference, format!("Unknown identifier '{name}'"))
}

/// The next number of a SplitMix64 stream.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An unpredictable seed: the standard library's per-process random keys
/// (from the operating system) hashed with the current time.
#[cold]
fn entropy_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// Converts a value to a string as the built-in `string()` does (templates).
fn stringify(rt: &mut dyn Runtime, v: &Value) -> Result<Value, Error> {
    static STRING: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    match STRING.get_or_init(|| stdlib::function_id("string")) {
        Some(id) => stdlib::call_function(rt, *id, std::slice::from_ref(v)),
        None => {
            let mut s = String::new();
            crate::program::show_value(v, &mut s);
            Ok(Value::String(s.into()))
        }
    }
}

impl Runtime for Exec<'_> {
    fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error> {
        self.vm.fuel(1)?;
        let Value::Function(func) = f else {
            return Err(not_callable(f));
        };
        match &**func {
            Function::Closure(c) => {
                if self.native >= NATIVE_CALL_CEILING {
                    return Err(Error::new(ErrorKind::Depth, "Call depth limit exceeded"));
                }
                if let Some(shape) = Shape::of(c) {
                    return self.call_shape(c, shape, args.first());
                }
                let (stack, frames, marks, depth) = (
                    self.vm.stack.len(),
                    self.vm.frames.len(),
                    self.vm.marks.len(),
                    self.vm.budget.depth,
                );
                // No callee slot: the frame runs the lent closure.
                match args {
                    [one] => self.vm.stack.push(one.clone()),
                    _ => self.vm.stack.extend(args.iter().cloned()),
                }
                self.native += 1;
                let r = self
                    .enter_closure(func, stack, false)
                    .and_then(|()| self.execute(frames, &c.program, &c.captures));
                self.native -= 1;
                if r.is_err() {
                    self.vm.stack.truncate(stack);
                    self.vm.frames.truncate(frames);
                    self.vm.marks.truncate(marks);
                    self.vm.budget.depth = depth;
                }
                r
            }
            Function::Builtin(id) => self.call_builtin(*id, args),
            Function::Host(h) => self.call_host(h, args),
        }
    }

    fn fuel(&mut self, units: u64) -> Result<(), Error> {
        self.vm.fuel(units)
    }

    fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
        self.vm.alloc(bytes)
    }

    fn check_depth(&self, depth: u32) -> Result<(), Error> {
        self.vm.check_depth(depth)
    }

    fn now(&mut self) -> Result<f64, Error> {
        if let Some(now) = self.vm.budget.now {
            return Ok(now);
        }
        let now = match &self.vm.clock {
            Clock::System => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_millis() as f64),
            Clock::Fixed(ms) => *ms,
            Clock::Custom(f) => f(),
            Clock::Disabled => {
                return Err(Error::new(
                    ErrorKind::Value,
                    "now() is disabled in this run",
                ));
            }
        };
        if !now.is_finite() {
            return Err(Error::new(
                ErrorKind::Value,
                "the clock returned a non-finite time",
            ));
        }
        self.vm.budget.now = Some(now);
        Ok(now)
    }

    fn random(&mut self) -> Result<f64, Error> {
        let state = match &mut self.vm.budget.rng {
            Rng::On(state) => state,
            Rng::Off => {
                return Err(Error::new(
                    ErrorKind::Value,
                    "random() is disabled in this run",
                ));
            }
            Rng::Entropy => {
                // This run's seed: the next number of the VM's stream, whose
                // own seed is read from the operating system once per VM.
                let stream = self.vm.entropy.get_or_insert_with(entropy_seed);
                let seed = splitmix64(stream);
                self.vm.budget.rng = Rng::On(seed);
                match &mut self.vm.budget.rng {
                    Rng::On(state) => state,
                    _ => return Err(internal("random state")),
                }
            }
        };
        let z = splitmix64(state);
        Ok((z >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error> {
        // Looking the pattern up compares its text with each cached one of
        // the same length: charged per byte, like any text a built-in reads.
        self.vm.fuel(self.vm.regexes.lookup_fuel(pattern))?;
        if let Some(r) = self.vm.regexes.get(pattern, flags) {
            return Ok(r);
        }
        // A miss: paid for before anything is compiled, then measured
        // within the memory the run has left, then charged for its
        // compiled size (fuel and memory) before the crate builds it.
        self.vm.fuel(stdlib::regex::compile_fuel(pattern))?;
        let b = &self.vm.budget;
        let left = b
            .memory_limit
            .map_or(u64::MAX, |limit| limit.saturating_sub(b.memory_used));
        let prepared = stdlib::regex::prepare(pattern, flags, left).map_err(|r| match r {
            stdlib::regex::Refusal::Invalid(e) => e,
            stdlib::regex::Refusal::OverAllowance => {
                Error::new(ErrorKind::Memory, "Memory limit exceeded")
            }
        })?;
        let bytes = prepared.compiled_bytes();
        self.vm.fuel(bytes / COMPILED_BYTES_PER_FUEL)?;
        self.vm.alloc(bytes)?;
        let r = Arc::new(prepared.build()?);
        self.vm.regexes.insert(pattern, flags, r.clone());
        Ok(r)
    }
}
