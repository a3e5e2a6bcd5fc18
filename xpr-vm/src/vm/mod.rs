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
//!
//! A main program that is straight-line code over scalars (reads of
//! context names and their fields, arithmetic, comparisons, `&&`, `||`,
//! `!`, `?:`, `??`) is first run by a smaller loop over a typed stack of
//! borrowed scalars (`straight.rs`), to the same result, fuel and memory;
//! it hands anything else to the dispatch loop.
//!
//! The dispatch loop is one function (`dispatch.rs`); what it calls out
//! to lies beside it: setting a run up (`run.rs`), fuel, memory and depth
//! (`budget.rs`), context names (`globals.rs`), property access
//! (`access.rs`), operators (`operators.rs`), string concatenation
//! (`text.rs`), values built by instructions (`values.rs`), closures
//! (`closures.rs`), calls (`calls.rs`), what built-ins reach of a run
//! (`runtime.rs`) and the errors raised (`errors.rs`).

mod access;
mod budget;
mod calls;
mod closures;
mod dispatch;
mod errors;
mod globals;
mod operators;
pub mod ops;
mod regex_cache;
mod run;
pub use run::{Fields, Output};
mod straight;
pub(crate) use straight::{Code as StraightCode, compile as straight_code};
mod runtime;
mod text;
mod timer;
mod values;

pub use access::is_restricted;
pub use regex_cache::{COMPILED_BYTES_PER_FUEL, REGEX_CACHE, REGEX_CACHE_BYTES};

use std::sync::Arc;

use smallvec::SmallVec;

use self::budget::Budget;
use crate::context::Context;
use crate::function::Function;
use crate::limits::Clock;
use crate::program::Program;
use crate::value::Value;

/// How deep callbacks called by built-ins (`map`, `sort`, `reduce`, ...)
/// may nest, whatever [`Limits::call_depth`] says. Closure-to-closure calls
/// push VM frames, but a callback re-enters the interpreter on the native
/// stack; 100 such levels (what the default call depth of 200 allows, a
/// built-in and a closure per level) fit a 2 MiB thread in a debug build.
/// A run a host function starts on the same thread continues the count
/// (`NATIVE_OUTER`): nested runs share the ceiling.
///
/// [`Limits::call_depth`]: crate::Limits::call_depth
pub const NATIVE_CALL_CEILING: u32 = 100;

/// Native levels a host function call counts for a run it starts on its
/// thread (see [`NATIVE_OUTER`]): the host's own frames and the nested
/// run's set-up lie between. Two: a Python callable evaluating a program
/// that calls it again takes ~24 KiB of stack a level in a debug build,
/// so 50 levels fit a 2 MiB thread.
const HOST_CALL_LEVELS: u32 = 2;

thread_local! {
    /// The native nesting ([`NATIVE_CALL_CEILING`]) at which a run started
    /// on this thread begins: zero, or inside a host function the calling
    /// run's count plus [`HOST_CALL_LEVELS`]. A host function may run a
    /// program (a Python callable evaluating one); runs nested so share one
    /// ceiling instead of each taking up to a full one of native stack.
    static NATIVE_OUTER: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

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
    /// Where each global of the last main program was found in its
    /// context, by global index ([`Context::lookup_hinted`]): kept from run
    /// to run, since records of one layout hold each name at the same
    /// position. Only ever a guess (another program may have set it).
    hints: Vec<u32>,
    /// Whether the straight-line tier is off (see [`Vm::set_straight_line`]).
    no_straight: bool,
    /// Whether the last run was done by the straight-line tier.
    was_straight: bool,
    /// The names the main program calls under which the context was found
    /// to have no function in this run, one bit per global: a call of a
    /// built-in asks the context once per name and run, not once per call.
    absent: Vec<u64>,
    /// A built context value not kept in `globals` (read by a closure from
    /// another program), parked until the instruction reading it is done.
    scratch: Option<Value>,
    /// Reused buffer of string concatenation.
    text: String,
    /// Regexes compiled from run-time patterns
    /// ([`Runtime::regex`](crate::Runtime::regex)).
    regexes: regex_cache::RegexCache,
    /// Whether the run was started by [`Vm::run_fields`]: a result that is
    /// an object literal is then left as its key/value pairs in `fields`.
    want_fields: bool,
    /// The key/value pairs of the last [`Vm::run_fields`] result, when it
    /// was handed over as [`Output::Fields`](run::Output::Fields).
    fields: Vec<Value>,
    /// SplitMix64 stream of per-run seeds for
    /// [`Randomness::Entropy`](crate::Randomness::Entropy), seeded from the
    /// operating system on first use.
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

/// `v`, else null: `v.unwrap_or(Value::Null)` without making a null first,
/// which was dropped (through a call) whenever `v` held a value.
#[inline]
fn or_null(v: Option<Value>) -> Value {
    let Some(v) = v else {
        return Value::Null;
    };
    v
}

impl Vm {
    #[inline]
    fn pop(&mut self) -> Value {
        or_null(self.stack.pop())
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
    /// [`Context::answers_paths`], once asked (at the run's first chain of
    /// field reads).
    paths: Option<bool>,
}
