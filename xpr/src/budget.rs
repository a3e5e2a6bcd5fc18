//! A budget several runs share (issue 20, part 3): see [`Budget`].

use crate::Program;
use xpr_vm::Budget;

impl Program {
    /// This program drawing every run's fuel and time from `budget`, shared
    /// with the other programs and threads that draw from it (a batch, a
    /// request, an agent's turn); the program's own limits still hold per
    /// run. The runs on a thread's VM ([`Program::run`]), on a caller's
    /// ([`Program::run_in`]) and with overrides all draw from it
    /// ([`crate::RunConfig::budget`] names another for one run). The
    /// straight-line tier still runs small rules: a run draws its first
    /// chunk of fuel before it starts, and gives back what it did not use.
    ///
    /// ```
    /// use xpr::{Budget, Engine, ErrorKind};
    /// let budget = Budget::new(Some(3_000), None);
    /// let program = Engine::new().compile("range(500).sum()")?.with_budget(&budget);
    /// let mut results = Vec::new();
    /// for _ in 0..4 {
    ///     results.push(program.run(&()));
    /// }
    /// let e = results.pop().unwrap().unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::Fuel);
    /// assert_eq!(e.message(), "Fuel budget exhausted: shared budget spent");
    /// let report = budget.report();
    /// assert_eq!((report.runs, report.fuel_used, report.exhausted), (4, 3_000, true));
    /// # Ok::<(), xpr::Error>(())
    /// ```
    pub fn with_budget(&self, budget: &Budget) -> Program {
        let mut p = self.clone();
        p.budget = Some(budget.clone());
        p
    }

    /// The budget the program's runs draw from, if any.
    pub fn budget(&self) -> Option<&Budget> {
        self.budget.as_ref()
    }
}
