//! Running a program: the VM set up for a run (its budgets reset, the
//! main frame pushed), the run, the stacks cleared after it; and what the
//! VM reports of the last run.

use std::sync::Arc;

use super::budget::CHUNK;
use super::errors::cancelled;
use super::runtime::Rng;
use super::{Callee, Exec, Frame, NATIVE_CALL_CEILING, NATIVE_OUTER, Vm};
use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::limits::{Limits, Randomness, RunOptions};
use crate::program::Program;
use crate::value::{Key, Map, Object, Value};

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
    ///
    /// [`ErrorKind::Fuel`]: crate::ErrorKind::Fuel
    /// [`ErrorKind::Memory`]: crate::ErrorKind::Memory
    /// [`ErrorKind::Depth`]: crate::ErrorKind::Depth
    /// [`ErrorKind::Timeout`]: crate::ErrorKind::Timeout
    /// [`ErrorKind::Cancelled`]: crate::ErrorKind::Cancelled
    pub fn run(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
    ) -> Result<Value, Error> {
        // A result handed over as fields lives until the next run. (Both
        // are usually empty: tested first, so no drop is called.)
        if !self.fields.is_empty() {
            self.fields.clear();
        }
        // Filled lazily, by contexts that build the values they return.
        if !self.globals.is_empty() {
            self.globals.clear();
        }
        // A chain of field reads on a name is asked of a context that
        // answers paths as a whole (asked once per run), in the dispatch
        // loop only.
        let mut paths = None;
        if let Some(code) = program.straight_code()
            && !self.no_straight
            && opts.cancel.as_ref().is_none_or(|c| !c.is_cancelled())
        {
            if program.reads_fields_of_globals() {
                paths = Some(ctx.answers_paths());
            }
            if paths != Some(true)
                && let Some(value) = self.straight(program, code, ctx, &opts.limits)
            {
                self.was_straight = true;
                return Ok(value);
            }
        }
        self.was_straight = false;
        self.run_loop(program, ctx, opts, paths)
    }

    /// [`Vm::run`] in the dispatch loop: out of line, so that a run in the
    /// straight-line tier sets up no more than it uses.
    #[inline(never)]
    fn run_loop(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
        paths: Option<bool>,
    ) -> Result<Value, Error> {
        self.reset(&opts.limits, opts);
        if let Some(c) = &opts.cancel
            && c.is_cancelled()
        {
            return Err(cancelled());
        }
        // Started by a host function of a run on this thread: it continues
        // that run's native count, up to the same ceiling.
        let native = NATIVE_OUTER.get();
        if native > NATIVE_CALL_CEILING {
            return Err(Error::new(ErrorKind::Depth, "Call depth limit exceeded"));
        }
        let Some(main) = program.protos().first() else {
            return Ok(Value::Null);
        };
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
            native,
            paths,
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

    /// Runs `program` as [`Vm::run`] does, but when its result is an
    /// object literal of the main program (`{route: a + b, late: d > 60}`,
    /// 1 to 16 distinct keys, no spread) hands over its fields instead of
    /// the object: [`Output::Fields`], borrowed from the VM until its next
    /// run. The run is otherwise the same, to the fuel unit and byte of
    /// memory charged (the object is charged as if built); a host that
    /// converts the result at once (to a Python dict, to JSON text) so
    /// skips building and dropping a map per record.
    ///
    /// # Errors
    /// As [`Vm::run`].
    pub fn run_fields(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
    ) -> Result<Output<'_>, Error> {
        self.want_fields = true;
        let result = self.run(program, ctx, opts);
        self.output(result)
    }

    /// The [`Output`] of a run made with `want_fields` set (which it clears).
    pub(super) fn output(&mut self, result: Result<Value, Error>) -> Result<Output<'_>, Error> {
        self.want_fields = false;
        let value = result?;
        if self.fields.is_empty() {
            return Ok(Output::Value(value));
        }
        // The run's value is the null left in the literal's place: matched,
        // so that nothing is dropped through a call.
        if !matches!(value, Value::Null) {
            drop(value);
        }
        Ok(Output::Fields(Fields(&self.fields)))
    }

    /// Sets the budgets up for a run: the counters are set afresh, the
    /// limits copied; the options' shared handles (cancellation, clocks) are
    /// cloned only when they differ from the last run's, so a VM run again
    /// with the same options touches no reference count.
    fn reset(&mut self, limits: &Limits, opts: &RunOptions) {
        self.stack.clear();
        self.frames.clear();
        self.marks.clear();
        self.reset_counters(limits);
        let b = &mut self.budget;
        b.timer.reset(limits.timeout, limits.wall_timeout);
        b.now = None;
        b.rng = match opts.random {
            Randomness::Disabled => Rng::Off,
            Randomness::Entropy => Rng::Entropy,
            Randomness::Seeded(s) => Rng::On(s ^ 0x9E37_79B9_7F4A_7C15),
        };
        let same_stopwatch = match (&b.stopwatch, &opts.stopwatch) {
            (None, None) => true,
            (Some(a), Some(o)) => Arc::ptr_eq(a, o),
            _ => false,
        };
        if !same_stopwatch {
            b.stopwatch = opts.stopwatch.clone();
        }
        let same_cancel = match (&b.cancel, &opts.cancel) {
            (None, None) => true,
            (Some(a), Some(o)) => a.same(o),
            _ => false,
        };
        if !same_cancel {
            b.cancel = opts.cancel.clone();
        }
        if !self.clock.same(&opts.clock) {
            self.clock = opts.clock.clone();
        }
    }

    /// Sets the budgets' counters and limits afresh for a run.
    fn reset_counters(&mut self, limits: &Limits) {
        let fuel = limits.fuel.unwrap_or(u64::MAX);
        let first = fuel.min(CHUNK);
        let b = &mut self.budget;
        b.fuel_left = fuel - first;
        b.tick = first;
        b.fuel_start = fuel;
        b.memory_used = 0;
        b.memory_limit = limits.memory;
        b.depth = 0;
        b.call_depth = limits.call_depth;
        b.value_depth = limits.value_depth;
    }

    /// Turns the straight-line tier on (the default) or off, for tests
    /// that compare it with the dispatch loop: results, errors, fuel and
    /// memory are the same either way.
    #[doc(hidden)]
    pub fn set_straight_line(&mut self, on: bool) {
        self.no_straight = !on;
    }

    /// Whether the last run was done by the straight-line tier.
    #[doc(hidden)]
    pub fn ran_straight_line(&self) -> bool {
        self.was_straight
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
}

/// The result of [`Vm::run_fields`].
#[derive(Debug)]
pub enum Output<'vm> {
    /// The result as [`Vm::run`] returns it.
    Value(Value),
    /// The result is an object with these fields (see [`Vm::run_fields`]).
    Fields(Fields<'vm>),
}

impl Output<'_> {
    /// The result as a value (the object built when it came as fields).
    pub fn into_value(self) -> Value {
        match self {
            Output::Value(v) => v,
            Output::Fields(f) => f.to_value(),
        }
    }
}

/// The fields of an object result, in the order the literal wrote them,
/// keys distinct (see [`Vm::run_fields`]).
#[derive(Debug, Clone, Copy)]
pub struct Fields<'vm>(&'vm [Value]);

impl<'vm> Fields<'vm> {
    /// The number of fields (at least 1).
    pub fn len(&self) -> usize {
        self.0.len() / 2
    }

    /// Always false: a result with no fields comes as a value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fields as (key, value) pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'vm Key, &'vm Value)> + 'vm {
        // Every key is a string (see `object_as_fields`).
        self.0.chunks_exact(2).filter_map(|pair| match pair {
            [Value::String(k), v] => Some((k, v)),
            _ => None,
        })
    }

    /// The object these fields make.
    pub fn to_value(&self) -> Value {
        let mut map = Map::with_capacity_and_hasher(self.len(), Default::default());
        for (k, v) in self.iter() {
            map.insert(k.clone(), v.clone());
        }
        Value::Object(Arc::new(Object::new(map)))
    }
}
