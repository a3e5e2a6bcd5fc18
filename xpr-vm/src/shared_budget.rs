//! A budget several runs draw from (issue 20, part 3): the fuel, the time
//! and the memory high-water mark of a batch, a request or an agent's turn,
//! shared by runs on any number of threads.
//!
//! A run attached to a [`Budget`] ([`crate::Vm::run_budgeted`]) draws its
//! fuel from it in the chunks the VM hands out anyway (1,024 units, at the
//! refill where the time limits and the cancellation flag are checked),
//! and gives back, when it ends, the part of its last chunk it did not use.
//! So the budget's fuel used is always the sum of the fuel its runs used,
//! to the unit, and it never hands out more than it has: runs on several
//! threads at once hold at most a chunk each that they have not used yet,
//! and when the budget is spent the run that asks for more fails with
//! [`ErrorKind::Fuel`], `Fuel budget exhausted: shared budget spent`.
//!
//! Time is a deadline for all runs together, counted on the wall clock
//! from the budget's creation: each run's wall-clock ceiling is at most
//! what is left (`Expression timeout exceeded: shared time budget spent`
//! when it runs out in a run, or when a run starts with none left). A run's
//! clocks start only after some fuel (see [`crate::Limits::timeout`]), so
//! a short run may end a little past the deadline; the next one fails at
//! once.
//!
//! Memory stays a per-run limit ([`crate::Limits::memory`]); the budget
//! records the largest amount any of its runs charged.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::stopwatch::{Stopwatch, SystemStopwatch};

/// The message of the error a run gets when the budget's fuel is spent.
pub const FUEL_SPENT: &str = "Fuel budget exhausted: shared budget spent";

/// The message of the error a run gets when the budget's time is spent.
pub const TIME_SPENT: &str = "Expression timeout exceeded: shared time budget spent";

/// Fuel, time and a memory record shared by several runs, on any threads
/// (`Send + Sync`; clones are handles to the same budget).
///
/// ```
/// use xpr_vm::{Budget, Program, RunOptions, Vm};
/// let budget = Budget::new(Some(5_000), None);
/// let mut vm = Vm::new();
/// let opts = RunOptions::default();
/// let mut used = 0;
/// for _ in 0..3 {
///     vm.run_budgeted(&Program::default(), &(), &opts, &budget)?;
///     used += vm.fuel_used();
/// }
/// let report = budget.report();
/// assert_eq!(report.runs, 3);
/// assert_eq!(report.fuel_used, used);
/// assert!(!report.exhausted);
/// # Ok::<(), xpr_vm::Error>(())
/// ```
#[derive(Clone)]
pub struct Budget(Arc<Inner>);

struct Inner {
    /// Fuel the runs may use together (`None`: unlimited).
    fuel: Option<u64>,
    /// Fuel drawn and not given back.
    used: AtomicU64,
    /// The largest memory charge of any run, in bytes.
    peak_memory: AtomicU64,
    runs: AtomicU64,
    /// A run failed because the budget was spent.
    exhausted: AtomicBool,
    /// Wall-clock time the runs may take together, from `start`.
    time: Option<Duration>,
    stopwatch: Arc<dyn Stopwatch>,
    /// The wall reading at the budget's creation (`None`: no wall clock,
    /// so no deadline is enforced).
    start: Option<Duration>,
}

/// What a [`Budget`] reports ([`Budget::report`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetReport {
    /// Fuel units its runs used together.
    pub fuel_used: u64,
    /// The fuel it had (`None`: unlimited).
    pub fuel_total: Option<u64>,
    /// The largest number of bytes any one run charged to its memory budget.
    pub peak_memory: u64,
    /// Runs that drew from it (those refused at the start included).
    pub runs: u64,
    /// Wall-clock time since it was created (`None` without a wall clock).
    pub time_used: Option<Duration>,
    /// The time it had (`None`: no deadline).
    pub time_total: Option<Duration>,
    /// Whether a run failed because its fuel or its time was spent.
    pub exhausted: bool,
}

impl fmt::Display for BudgetReport {
    /// `fuel 1234/5000, peak memory 96 B, 3 runs, 1.2 ms` (`, exhausted`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fuel {}", self.fuel_used)?;
        if let Some(total) = self.fuel_total {
            write!(f, "/{total}")?;
        }
        write!(
            f,
            ", peak memory {} B, {} runs",
            self.peak_memory, self.runs
        )?;
        if let Some(t) = self.time_used {
            write!(f, ", {:.1} ms", t.as_secs_f64() * 1e3)?;
            if let Some(total) = self.time_total {
                write!(f, "/{} ms", total.as_millis())?;
            }
        }
        if self.exhausted {
            f.write_str(", exhausted")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Budget").field(&self.report()).finish()
    }
}

impl Budget {
    /// A budget of `fuel` units (`None`: unlimited) and `time` of wall-clock
    /// time from now (`None`: no deadline), on the system's clock.
    pub fn new(fuel: Option<u64>, time: Option<Duration>) -> Self {
        Budget::with_stopwatch(fuel, time, Arc::new(SystemStopwatch))
    }

    /// As [`Budget::new`], the deadline read on `stopwatch`'s wall clock
    /// (without one, the deadline is not enforced).
    pub fn with_stopwatch(
        fuel: Option<u64>,
        time: Option<Duration>,
        stopwatch: Arc<dyn Stopwatch>,
    ) -> Self {
        let start = stopwatch.wall();
        Budget(Arc::new(Inner {
            fuel,
            used: AtomicU64::new(0),
            peak_memory: AtomicU64::new(0),
            runs: AtomicU64::new(0),
            exhausted: AtomicBool::new(false),
            time,
            stopwatch,
            start,
        }))
    }

    /// Fuel left (`None`: unlimited).
    pub fn fuel_left(&self) -> Option<u64> {
        let used = self.0.used.load(Ordering::Acquire);
        self.0.fuel.map(|total| total.saturating_sub(used))
    }

    /// Time left before the deadline (`None`: no deadline, or no wall
    /// clock to enforce it).
    pub fn time_left(&self) -> Option<Duration> {
        let elapsed = self.elapsed()?;
        self.0.time.map(|t| t.saturating_sub(elapsed))
    }

    /// Wall-clock time since the budget was created.
    fn elapsed(&self) -> Option<Duration> {
        let (start, now) = (self.0.start?, self.0.stopwatch.wall()?);
        Some(now.saturating_sub(start))
    }

    /// What the runs used so far.
    pub fn report(&self) -> BudgetReport {
        let i = &*self.0;
        BudgetReport {
            fuel_used: i.used.load(Ordering::Acquire),
            fuel_total: i.fuel,
            peak_memory: i.peak_memory.load(Ordering::Acquire),
            runs: i.runs.load(Ordering::Acquire),
            time_used: self.elapsed(),
            time_total: i.time,
            exhausted: i.exhausted.load(Ordering::Acquire),
        }
    }

    /// Whether `self` and `other` are handles to the same budget.
    pub fn same(&self, other: &Budget) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Draws up to `want` units: what it could (0 when spent).
    pub(crate) fn draw(&self, want: u64) -> u64 {
        let Some(total) = self.0.fuel else {
            self.0.used.fetch_add(want, Ordering::AcqRel);
            return want;
        };
        let mut got = 0;
        // Never past `total`, whatever other threads draw meanwhile.
        let _ = self
            .0
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                got = want.min(total.saturating_sub(used));
                (got > 0).then(|| used + got)
            });
        got
    }

    /// Draws exactly `want` units, or nothing (`false`) when fewer are left.
    pub(crate) fn draw_all(&self, want: u64) -> bool {
        let Some(total) = self.0.fuel else {
            self.0.used.fetch_add(want, Ordering::AcqRel);
            return true;
        };
        self.0
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                (total.saturating_sub(used) >= want).then(|| used + want)
            })
            .is_ok()
    }

    /// Gives back `units` drawn and not used.
    pub(crate) fn give_back(&self, units: u64) {
        if units > 0 {
            self.0.used.fetch_sub(units, Ordering::AcqRel);
        }
    }

    /// Records the end of a run that charged `memory` bytes (and whether
    /// it failed because the budget was spent).
    pub(crate) fn record(&self, memory: u64, spent: bool) {
        self.0.runs.fetch_add(1, Ordering::AcqRel);
        self.0.peak_memory.fetch_max(memory, Ordering::AcqRel);
        if spent {
            self.0.exhausted.store(true, Ordering::Release);
        }
    }
}

/// The error of a run that finds the budget's fuel spent.
#[cold]
pub(crate) fn fuel_spent() -> Error {
    Error::new(ErrorKind::Fuel, FUEL_SPENT)
}

/// The error of a run that finds the budget's time spent.
#[cold]
pub(crate) fn time_spent() -> Error {
    Error::new(ErrorKind::Timeout, TIME_SPENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_never_pass_the_total_and_give_backs_return() {
        let b = Budget::new(Some(2500), None);
        assert_eq!(b.draw(1024), 1024);
        assert_eq!(b.draw(1024), 1024);
        assert_eq!(b.draw(1024), 452);
        assert_eq!(b.draw(1024), 0);
        assert!(!b.draw_all(1));
        b.give_back(100);
        assert_eq!(b.fuel_left(), Some(100));
        assert!(!b.draw_all(101));
        assert!(b.draw_all(100));
        assert_eq!(b.report().fuel_used, 2500);
        let u = Budget::new(None, None);
        assert_eq!(u.draw(u64::MAX / 2), u64::MAX / 2);
        assert_eq!(u.fuel_left(), None);
    }

    #[test]
    fn the_report_reads_as_a_line() {
        let b = Budget::new(Some(10), None);
        b.draw(7);
        b.record(96, false);
        b.record(40, true);
        let r = b.report();
        assert_eq!((r.fuel_used, r.peak_memory, r.runs), (7, 96, 2));
        let text = r.to_string();
        assert!(
            text.starts_with("fuel 7/10, peak memory 96 B, 2 runs"),
            "{text}"
        );
        assert!(text.ends_with(", exhausted"), "{text}");
    }
}
