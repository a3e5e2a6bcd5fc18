//! A run's budgets: fuel handed out in chunks (whose refill checks the
//! cancellation flag and the time limits), memory, call depth and value
//! depth.

use std::sync::Arc;

use super::errors::{cancelled, out_of_fuel};
use super::runtime::Rng;
use super::{Vm, timer};
use crate::compare;
use crate::error::{Error, ErrorKind};
use crate::limits::CancelHandle;
use crate::stdlib;
use crate::stopwatch::{Stopwatch, SystemStopwatch};

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
            return Err(out_of_fuel());
        }
        b.fuel_left -= need;
        self.refill()
    }

    /// Called when the chunk is spent: checks interrupts, hands out the next chunk.
    #[cold]
    pub(super) fn refill(&mut self) -> Result<(), Error> {
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
