//! The batch's budget: fuel and memory for the batch as a whole
//! (docs/decisions.md, "Batch budgets").

use xpr::{Error, ErrorKind, Program};

use crate::{BatchOptions, Budget};

/// Fuel and memory charged to one batch, against its limits.
#[derive(Debug)]
pub(crate) struct Meter {
    fuel_limit: Option<u64>,
    memory_limit: Option<u64>,
    /// Fuel units charged so far.
    pub(crate) fuel: u64,
    /// Bytes charged so far.
    pub(crate) memory: u64,
}

/// The batch limit `budget` sets, given the per-run limit and the row count.
fn resolve(budget: Budget, per_run: Option<u64>, rows: usize) -> Option<u64> {
    match budget {
        Budget::Program => per_run,
        Budget::PerRow => per_run.map(|l| l.saturating_mul(rows.max(1) as u64)),
        Budget::Limit(n) => Some(n),
        Budget::Unlimited => None,
    }
}

impl Meter {
    pub(crate) fn new(program: &Program, options: &BatchOptions, rows: usize) -> Meter {
        let limits = program.limits();
        Meter {
            fuel_limit: resolve(options.fuel, limits.fuel, rows),
            memory_limit: resolve(options.memory, limits.memory, rows),
            fuel: 0,
            memory: 0,
        }
    }

    /// Fuel the batch has left (`None`: unlimited).
    pub(crate) fn fuel_left(&self) -> Option<u64> {
        self.fuel_limit.map(|l| l.saturating_sub(self.fuel))
    }

    /// Memory the batch has left (`None`: unlimited).
    pub(crate) fn memory_left(&self) -> Option<u64> {
        self.memory_limit.map(|l| l.saturating_sub(self.memory))
    }

    /// Charges `fuel` units and `memory` bytes, before the work they pay for.
    ///
    /// # Errors
    /// [`out_of_fuel`] or [`out_of_memory`] when the batch's limit would be
    /// passed; nothing is charged then.
    pub(crate) fn charge(&mut self, fuel: u64, memory: u64) -> Result<(), Error> {
        let f = self.fuel.saturating_add(fuel);
        if let Some(l) = self.fuel_limit
            && f > l
        {
            return Err(out_of_fuel(l));
        }
        let m = self.memory.saturating_add(memory);
        if let Some(l) = self.memory_limit
            && m > l
        {
            return Err(out_of_memory(l));
        }
        self.fuel = f;
        self.memory = m;
        Ok(())
    }

    /// Records what a row run used (within what [`Meter::fuel_left`] and
    /// [`Meter::memory_left`] allowed it).
    pub(crate) fn add(&mut self, fuel: u64, memory: u64) {
        self.fuel = self.fuel.saturating_add(fuel);
        self.memory = self.memory.saturating_add(memory);
    }

    /// The batch's fuel limit.
    pub(crate) fn fuel_limit(&self) -> Option<u64> {
        self.fuel_limit
    }

    /// The batch's memory limit.
    pub(crate) fn memory_limit(&self) -> Option<u64> {
        self.memory_limit
    }
}

/// The batch ran out of fuel: the VM's error, with a hint naming the
/// batch's limit.
pub(crate) fn out_of_fuel(limit: u64) -> Error {
    Error::new(ErrorKind::Fuel, "Fuel budget exhausted: out of fuel").with_hint(format!(
        "the batch as a whole may use {limit} fuel units: raise the fuel limit, \
         pass a larger batch budget, or split the batch"
    ))
}

/// The batch passed its memory limit.
pub(crate) fn out_of_memory(limit: u64) -> Error {
    Error::new(ErrorKind::Memory, "Memory limit exceeded").with_hint(format!(
        "the batch as a whole may create {limit} bytes: raise the memory limit, \
         pass a larger batch budget, or split the batch"
    ))
}
