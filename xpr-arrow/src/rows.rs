//! The row path: the program run on each row in turn, on one kept VM,
//! each row reading its cells in place, under what is left of the batch's
//! budget.

use xpr::{Error, ErrorKind, Program, RunConfig, Value, Vm};

use crate::budget::{Meter, out_of_fuel, out_of_memory};
use crate::read::{Columns, Row};

/// Runs rows of one batch on a kept VM.
pub(crate) struct RowRunner<'p> {
    program: &'p Program,
    vm: Vm,
}

/// What running one row gave: its result, or an error that ends the
/// batch whatever the policy (the batch's budget is spent).
pub(crate) type RowOutcome = Result<Result<Value, Error>, Error>;

impl<'p> RowRunner<'p> {
    pub(crate) fn new(program: &'p Program) -> Self {
        RowRunner {
            program,
            vm: Vm::new(),
        }
    }

    /// Runs row `row`: within the program's per-run limits and what is
    /// left of the batch's, the row's use charged to `meter`.
    pub(crate) fn run(
        &mut self,
        columns: &Columns<'_>,
        row: usize,
        meter: &mut Meter,
    ) -> RowOutcome {
        let ctx = Row { columns, row };
        let per_run = self.program.limits();
        let (fuel_left, memory_left) = (meter.fuel_left(), meter.memory_left());
        // The batch's remainder is the tighter bound: hand the row that.
        let tight_fuel = matches!(fuel_left, Some(left) if per_run.fuel.is_none_or(|f| left < f));
        let tight_memory =
            matches!(memory_left, Some(left) if per_run.memory.is_none_or(|m| left < m));
        let result = if tight_fuel || tight_memory {
            let mut limits = per_run.clone();
            if tight_fuel {
                limits.fuel = fuel_left;
            }
            if tight_memory {
                limits.memory = memory_left;
            }
            let config = RunConfig {
                limits: Some(limits),
                ..RunConfig::default()
            };
            self.program.run_in_with(&mut self.vm, &ctx, &config)
        } else {
            self.program.run_in(&mut self.vm, &ctx)
        };
        meter.add(self.vm.fuel_used(), self.vm.peak_memory());
        match result {
            Err(e) if tight_fuel && e.kind() == ErrorKind::Fuel => {
                Err(out_of_fuel(meter.fuel_limit().unwrap_or(0)))
            }
            Err(e) if tight_memory && e.kind() == ErrorKind::Memory => {
                Err(out_of_memory(meter.memory_limit().unwrap_or(0)))
            }
            other => Ok(other),
        }
    }
}
