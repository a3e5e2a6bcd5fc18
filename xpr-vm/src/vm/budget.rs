//! A run's budgets: fuel handed out in chunks (whose refill checks the
//! cancellation flag and the time limits), memory, call depth and value
//! depth; and a run's draw on a budget shared with other runs
//! ([`crate::Budget`]), taken at the same refills.

use std::sync::Arc;

use super::errors::{cancelled, out_of_fuel};
use super::run::Output;
use super::runtime::Rng;
use super::{Vm, timer};
use crate::compare;
use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::limits::{CancelHandle, RunOptions, WallCeiling};
use crate::program::Program;
use crate::shared_budget::{self, Budget as Shared};
use crate::stdlib;
use crate::stopwatch::{Stopwatch, SystemStopwatch};
use crate::value::Value;

/// Instructions between two checks of the time limits and the cancellation flag.
pub(super) const CHUNK: u64 = 1024;

/// Per-run budget state.
#[derive(Debug, Default)]
pub(super) struct Budget {
    /// Fuel not yet handed to `tick`.
    pub(super) fuel_left: u64,
    /// Fuel remaining in the current chunk.
    pub(super) tick: u64,
    /// Fuel at the start of the run (`u64::MAX` when unlimited).
    pub(super) fuel_start: u64,
    pub(super) memory_used: u64,
    pub(super) memory_limit: Option<u64>,
    pub(super) depth: u32,
    pub(super) call_depth: u32,
    pub(super) value_depth: u32,
    pub(super) timer: timer::Timer,
    /// The clocks of `timer`, when not the system's.
    pub(super) stopwatch: Option<Arc<dyn Stopwatch>>,
    pub(super) cancel: Option<CancelHandle>,
    pub(super) now: Option<f64>,
    pub(super) rng: Rng,
    /// The shared budget this run draws from ([`Vm::run_budgeted`]).
    pub(super) shared: Option<Draw>,
}

/// A run's draw on a shared budget.
#[derive(Debug)]
pub(super) struct Draw {
    budget: Shared,
    /// Fuel drawn by this run so far (its first chunk included).
    drawn: u64,
    /// The run's fuel was lowered to what the budget had left: running
    /// out of it is the budget's being spent.
    capped: bool,
}

impl Budget {
    /// The error of a run whose fuel is out: the shared budget's, when
    /// that is what limited it.
    #[cold]
    fn out_of_fuel(&self) -> Error {
        match &self.shared {
            Some(d) if d.capped => shared_budget::fuel_spent(),
            _ => out_of_fuel(),
        }
    }
}

impl Vm {
    /// Charges one instruction's fuel unit exactly as the dispatch loop
    /// does (refilling the chunk, and so checking interrupts, when it is
    /// spent).
    #[inline]
    pub(super) fn step(&mut self) -> Result<(), Error> {
        if self.budget.tick == 0 {
            self.refill()?;
        }
        self.budget.tick -= 1;
        Ok(())
    }

    pub(super) fn fuel(&mut self, units: u64) -> Result<(), Error> {
        let b = &mut self.budget;
        if units < b.tick {
            b.tick -= units;
            return Ok(());
        }
        let need = units - b.tick;
        b.tick = 0;
        if need > b.fuel_left {
            b.fuel_left = 0;
            return Err(b.out_of_fuel());
        }
        if let Some(d) = &mut b.shared {
            if !d.budget.draw_all(need) {
                return Err(shared_budget::fuel_spent());
            }
            d.drawn += need;
        }
        b.fuel_left -= need;
        self.refill()
    }

    /// Called when the chunk is spent: checks interrupts, hands out the next chunk.
    #[cold]
    pub(super) fn refill(&mut self) -> Result<(), Error> {
        self.check_interrupts(false)?;
        let b = &mut self.budget;
        let mut take = b.fuel_left.min(CHUNK);
        if take == 0 {
            return Err(b.out_of_fuel());
        }
        if let Some(d) = &mut b.shared {
            take = d.budget.draw(take);
            if take == 0 {
                return Err(shared_budget::fuel_spent());
            }
            d.drawn += take;
        }
        b.fuel_left -= take;
        b.tick = take;
        Ok(())
    }

    /// Runs `program` as [`Vm::run`] does, drawing its fuel from `budget`
    /// and within its time (see [`crate::shared_budget`]): the run's fuel
    /// limit and wall-clock ceiling are at most what the budget has left.
    /// After the run, [`Vm::fuel_used`] is the fuel it took from the budget
    /// (what it did not use is given back) and its memory is recorded.
    ///
    /// A run without a budget pays nothing for this: the draws happen at
    /// the refills of fuel chunks, out of the dispatch loop's hot path.
    ///
    /// # Errors
    /// As [`Vm::run`], and [`ErrorKind::Fuel`], `Fuel budget exhausted:
    /// shared budget spent` or [`ErrorKind::Timeout`], `Expression timeout
    /// exceeded: shared time budget spent`, when the budget runs out (at
    /// the start, without running, or during the run).
    pub fn run_budgeted(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
        budget: &Shared,
    ) -> Result<Value, Error> {
        let mut lowered: Option<RunOptions> = None;
        // Whether the run's wall-clock ceiling is the budget's deadline.
        let mut deadline = false;
        if let Some(left) = budget.time_left() {
            if left.is_zero() {
                return self.refuse(budget, shared_budget::time_spent());
            }
            if opts.limits.wall_ceiling().is_none_or(|own| own > left) {
                let o = lowered.get_or_insert_with(|| opts.clone());
                o.limits.wall_timeout = WallCeiling::After(left);
                deadline = true;
            }
        }
        // The first chunk, which the run's set-up hands out without a
        // refill (and all the straight-line tier may use).
        let own = opts.limits.fuel.unwrap_or(u64::MAX);
        let first = own.min(CHUNK);
        let got = budget.draw(first);
        let capped = got < first;
        if capped {
            if got == 0 {
                return self.refuse(budget, shared_budget::fuel_spent());
            }
            lowered.get_or_insert_with(|| opts.clone()).limits.fuel = Some(got);
        }
        self.budget.shared = Some(Draw {
            budget: budget.clone(),
            drawn: got,
            capped,
        });
        let result = self.run(program, ctx, lowered.as_ref().unwrap_or(opts));
        let drawn = self.budget.shared.take().map_or(got, |d| d.drawn);
        // What the run used of its draws (a run stopped by its own fuel
        // limit counts what it drew, not the whole limit); the rest goes back.
        let used = self.fuel_used().min(drawn);
        let b = &mut self.budget;
        b.fuel_left = b.fuel_start - used;
        b.tick = 0;
        budget.give_back(drawn - used);
        let result = result.map_err(|e| {
            if !(deadline && e.message().contains("wall-clock ceiling")) {
                return e;
            }
            // The ceiling lowered to the deadline was reached.
            {
                let spent = shared_budget::time_spent();
                match e.span() {
                    Some(span) => spent.at(span),
                    None => spent,
                }
            }
        });
        let spent = result.as_ref().is_err_and(|e| {
            matches!(
                e.message(),
                shared_budget::FUEL_SPENT | shared_budget::TIME_SPENT
            )
        });
        budget.record(self.peak_memory(), spent);
        result
    }

    /// Runs `program` as [`Vm::run_budgeted`] does, handing over an object
    /// literal result as its fields, as [`Vm::run_fields`] does.
    ///
    /// # Errors
    /// As [`Vm::run_budgeted`].
    pub fn run_fields_budgeted(
        &mut self,
        program: &Program,
        ctx: &dyn Context,
        opts: &RunOptions,
        budget: &Shared,
    ) -> Result<Output<'_>, Error> {
        self.want_fields = true;
        let result = self.run_budgeted(program, ctx, opts, budget);
        self.output(result)
    }

    /// A run refused at its start because `budget` is spent: nothing ran.
    #[cold]
    fn refuse(&mut self, budget: &Shared, e: Error) -> Result<Value, Error> {
        let b = &mut self.budget;
        b.fuel_start = 0;
        b.fuel_left = 0;
        b.tick = 0;
        b.memory_used = 0;
        budget.record(0, true);
        Err(e)
    }

    /// The cancellation flag, then the time limits ([`timer`]), which start
    /// at a `host` call or once the run has used some fuel.
    pub(super) fn check_interrupts(&mut self, host: bool) -> Result<(), Error> {
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

    pub(super) fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
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

    pub(super) fn check_depth(&self, depth: u32) -> Result<(), Error> {
        if depth > self.budget.value_depth {
            Err(Error::new(ErrorKind::Depth, "Value depth limit exceeded"))
        } else {
            Ok(())
        }
    }

    /// Fuel for copying `bytes` bytes of text into a new string (a
    /// concatenation, a template), beyond the instruction's own unit:
    /// `bytes / 16`, nothing for the short strings of the hot paths.
    #[inline]
    pub(super) fn copy_fuel(&mut self, bytes: usize) -> Result<(), Error> {
        let work = bytes as u64 / compare::BYTES_PER_UNIT;
        if work > 0 { self.fuel(work) } else { Ok(()) }
    }

    /// The depth check and the fuel of `upper()` / `lower()` on ASCII text
    /// of `len` bytes (see `string::change_case_owned`).
    #[inline]
    pub(super) fn case_change_cost(&mut self, len: usize) -> Result<(), Error> {
        self.enter()?;
        self.leave();
        self.fuel(stdlib::string::ascii_case_fuel(len))
    }

    pub(super) fn enter(&mut self) -> Result<(), Error> {
        let b = &mut self.budget;
        if b.depth >= b.call_depth {
            return Err(Error::new(ErrorKind::Depth, "Call depth limit exceeded"));
        }
        b.depth += 1;
        Ok(())
    }

    #[inline]
    pub(super) fn leave(&mut self) {
        self.budget.depth = self.budget.depth.saturating_sub(1);
    }
}
