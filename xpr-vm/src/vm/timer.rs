//! The two time limits of one run (issue 11): the CPU time the evaluating
//! thread consumes (the spec's timeout) and a wall-clock ceiling.
//!
//! The clocks start at the first check after the run has used
//! [`START_FUEL`] fuel units, or at its first host call, whichever comes
//! first: a short run reads no clock at all (the benchmarks' cases never
//! do), and what runs before the start is at most that much fuel's work.
//! From then on every check (each refill of 1,024 fuel units, and around
//! host calls) reads the wall clock, a few tens of nanoseconds. The
//! thread's CPU clock is a system call costing ten times more, so it is
//! read at the start and then only when it could matter: a thread cannot
//! use more CPU time than the wall time that passes, so until the wall
//! clock has run as long as the CPU budget left, that budget cannot be
//! spent. On an idle machine the CPU clock is read twice in a run that uses
//! its whole budget; a thread getting a quarter of a core reads it a few
//! dozen times.

use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::limits::WallCeiling;
use crate::stopwatch::Stopwatch;

/// Fuel a run may use before its clocks start (sixteen refills).
pub(super) const START_FUEL: u64 = 16 * 1024;

/// Time-limit state of one run.
#[derive(Debug, Default)]
pub(super) struct Timer {
    /// CPU budget.
    cpu: Option<Duration>,
    /// The wall-clock ceiling as configured: resolved against `cpu` into
    /// `wall` when the clocks start (the multiplication costs a run that
    /// never starts them nothing).
    ceiling: WallCeiling,
    /// Wall-clock ceiling, once the clocks have started.
    wall: Option<Duration>,
    /// The wall reading at the start.
    start: Option<Duration>,
    /// The CPU reading at the start.
    base: Option<Duration>,
    /// Wall time since `start` before which the CPU budget cannot be spent.
    next_cpu: Duration,
}

impl Timer {
    /// The state at the start of a run with these limits.
    pub(super) fn new(cpu: Option<Duration>, ceiling: WallCeiling) -> Self {
        Timer {
            cpu,
            ceiling,
            wall: None,
            start: None,
            base: None,
            next_cpu: Duration::ZERO,
        }
    }

    /// Back to the state at the start of a run with these limits (as
    /// [`Timer::new`]).
    #[inline]
    pub(super) fn reset(&mut self, cpu: Option<Duration>, ceiling: WallCeiling) {
        *self = Timer::new(cpu, ceiling);
    }

    /// Whether a check now should read the clocks: a limit is set and the
    /// clocks have started or should (`fuel_used` reached [`START_FUEL`],
    /// or `host`: a host call is about to run or has just returned).
    #[inline]
    pub(super) fn due(&self, fuel_used: u64, host: bool) -> bool {
        // A ceiling resolves to none when set to follow an absent timeout.
        (self.cpu.is_some() || matches!(self.ceiling, WallCeiling::After(_)))
            && (self.start.is_some() || host || fuel_used >= START_FUEL)
    }

    /// Checks both limits against `clock` (starting it at the first call).
    ///
    /// # Errors
    /// [`ErrorKind::Timeout`]: `Expression timeout exceeded` for the CPU
    /// budget, `Expression timeout exceeded: wall-clock ceiling of N ms`
    /// for the ceiling.
    pub(super) fn check<S: Stopwatch + ?Sized>(&mut self, clock: &S) -> Result<(), Error> {
        let Some(now) = clock.wall() else {
            return self.check_cpu_only(clock);
        };
        let start = match self.start {
            Some(start) => start,
            None => {
                self.start = Some(now);
                self.wall = self.ceiling.resolve(self.cpu);
                if let Some(cpu) = self.cpu {
                    self.base = clock.thread_cpu();
                    self.next_cpu = cpu;
                }
                now
            }
        };
        let elapsed = now.saturating_sub(start);
        if let Some(wall) = self.wall
            && elapsed >= wall
        {
            // Both spent: the CPU budget, the spec's timeout, is the cause.
            return Err(match self.cpu {
                Some(cpu) if self.cpu_used(clock, elapsed) >= cpu => cpu_exceeded(),
                _ => wall_exceeded(wall),
            });
        }
        let Some(cpu) = self.cpu else {
            return Ok(());
        };
        if elapsed < self.next_cpu {
            return Ok(());
        }
        let used = self.cpu_used(clock, elapsed);
        if used >= cpu {
            return Err(cpu_exceeded());
        }
        self.next_cpu = elapsed.saturating_add(cpu - used);
        Ok(())
    }

    /// CPU time used since the start, `elapsed` wall time after it.
    fn cpu_used<S: Stopwatch + ?Sized>(&self, clock: &S, elapsed: Duration) -> Duration {
        match (self.base, clock.thread_cpu()) {
            (Some(base), Some(reading)) => reading.saturating_sub(base),
            // No CPU clock: wall time stands for it (never less).
            _ => elapsed,
        }
    }

    /// Without a wall clock: the CPU clock at every check, no ceiling.
    fn check_cpu_only<S: Stopwatch + ?Sized>(&mut self, clock: &S) -> Result<(), Error> {
        let (Some(cpu), Some(reading)) = (self.cpu, clock.thread_cpu()) else {
            return Ok(());
        };
        let base = *self.base.get_or_insert(reading);
        if reading.saturating_sub(base) >= cpu {
            return Err(cpu_exceeded());
        }
        Ok(())
    }
}

fn cpu_exceeded() -> Error {
    Error::new(ErrorKind::Timeout, "Expression timeout exceeded")
}

fn wall_exceeded(wall: Duration) -> Error {
    let ms = wall.as_nanos() as f64 / 1e6;
    Error::new(
        ErrorKind::Timeout,
        format!("Expression timeout exceeded: wall-clock ceiling of {ms} ms"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Clocks moved by hand, counting how often each is read.
    #[derive(Debug, Default)]
    struct Fake {
        wall_ns: AtomicU64,
        cpu_ns: AtomicU64,
        no_wall: bool,
        no_cpu: bool,
        wall_reads: AtomicU64,
        cpu_reads: AtomicU64,
    }

    impl Fake {
        /// `wall` and `cpu` microseconds pass.
        fn pass(&self, wall: u64, cpu: u64) {
            self.wall_ns.fetch_add(wall * 1000, Ordering::Relaxed);
            self.cpu_ns.fetch_add(cpu * 1000, Ordering::Relaxed);
        }
        fn cpu_reads(&self) -> u64 {
            self.cpu_reads.load(Ordering::Relaxed)
        }
    }

    impl Stopwatch for Fake {
        fn wall(&self) -> Option<Duration> {
            self.wall_reads.fetch_add(1, Ordering::Relaxed);
            (!self.no_wall).then(|| Duration::from_nanos(self.wall_ns.load(Ordering::Relaxed)))
        }
        fn thread_cpu(&self) -> Option<Duration> {
            self.cpu_reads.fetch_add(1, Ordering::Relaxed);
            (!self.no_cpu).then(|| Duration::from_nanos(self.cpu_ns.load(Ordering::Relaxed)))
        }
    }

    /// A timer with ceiling `wall` (none: no ceiling).
    fn timer(cpu: Option<Duration>, wall: Option<Duration>) -> Timer {
        Timer::new(cpu, wall.map_or(WallCeiling::Off, WallCeiling::After))
    }

    /// The ceiling that follows the timeout is resolved when the clocks
    /// start: ten times the CPU budget, none without one.
    #[test]
    fn a_ceiling_following_the_timeout_is_resolved_at_the_start() {
        assert!(!Timer::new(None, WallCeiling::Auto).due(u64::MAX, true));
        let clock = Fake {
            no_cpu: true,
            ..Fake::default()
        };
        let mut t = Timer::new(ms(100), WallCeiling::Auto);
        assert!(t.due(START_FUEL, false));
        assert!(t.check(&clock).is_ok());
        clock.pass(999_000, 0);
        // No CPU clock: wall time stands for CPU time, so the CPU budget is
        // the one spent; the ceiling is what `wall` says.
        assert_eq!(t.wall, ms(1000));
        let e = t.check(&clock).unwrap_err();
        assert_eq!(e.message(), "Expression timeout exceeded");
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    /// Checks every `step` microseconds of wall time, the thread getting
    /// `share` of them as CPU time, until an error; the error and the wall
    /// time elapsed (in microseconds).
    fn run_until_error(t: &mut Timer, clock: &Fake, step: u64, share: f64) -> (Error, u64) {
        let mut elapsed = 0;
        loop {
            if let Err(e) = t.check(clock) {
                return (e, elapsed);
            }
            clock.pass(step, (step as f64 * share) as u64);
            elapsed += step;
            assert!(elapsed < 100_000_000, "no limit reached");
        }
    }

    #[test]
    fn the_clocks_start_after_some_fuel_or_at_a_host_call() {
        assert!(!timer(None, None).due(u64::MAX, true));
        let mut t = timer(ms(100), None);
        assert!(!t.due(START_FUEL - 1, false));
        assert!(t.due(START_FUEL, false));
        assert!(t.due(0, true));
        assert!(timer(None, ms(1000)).due(0, true));
        let clock = Fake::default();
        t.check(&clock).unwrap();
        assert!(t.due(0, false), "started");
        assert_eq!(clock.cpu_reads(), 1);
        assert_eq!(clock.wall_reads.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn an_idle_machine_reads_the_cpu_clock_twice() {
        let clock = Fake::default();
        let mut t = timer(ms(100), ms(1000));
        let (e, wall) = run_until_error(&mut t, &clock, 5, 1.0);
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(e.message(), "Expression timeout exceeded");
        assert_eq!(wall, 100_000);
        assert_eq!(clock.cpu_reads(), 2);
        assert_eq!(clock.wall_reads.load(Ordering::Relaxed), 20_001);
    }

    #[test]
    fn the_cpu_budget_is_spent_by_cpu_time_not_wall_time() {
        // A thread getting a quarter of a core: 100 ms of CPU take 400 ms
        // of wall time, inside the 1 s ceiling.
        let clock = Fake::default();
        let mut t = timer(ms(100), ms(1000));
        let (e, wall) = run_until_error(&mut t, &clock, 20, 0.25);
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(e.message(), "Expression timeout exceeded");
        let cpu = clock.cpu_ns.load(Ordering::Relaxed) / 1000;
        assert!((100_000..=100_005).contains(&cpu), "{cpu} us of CPU");
        assert!(wall >= 400_000, "{wall} us of wall time");
        // Each reading moves the next one by the budget left, which shrinks
        // by a quarter per reading: a few dozen readings, not one per check.
        assert!(clock.cpu_reads() < 60, "{} CPU reads", clock.cpu_reads());
    }

    #[test]
    fn the_wall_ceiling_stops_a_starved_or_blocked_run() {
        // A thread getting 5 % of a core reaches the 1 s ceiling first.
        let clock = Fake::default();
        let mut t = timer(ms(100), ms(1000));
        let (e, wall) = run_until_error(&mut t, &clock, 100, 0.05);
        assert_eq!(e.kind(), ErrorKind::Timeout);
        assert_eq!(
            e.message(),
            "Expression timeout exceeded: wall-clock ceiling of 1000 ms"
        );
        assert_eq!(wall, 1_000_000);
        // A call blocking 2 s between two checks, no CPU used.
        let mut t = timer(ms(100), ms(1000));
        t.check(&clock).unwrap();
        clock.pass(2_000_000, 0);
        let e = t.check(&clock).unwrap_err();
        assert!(e.message().contains("wall-clock ceiling"), "{e}");
        // A fractional ceiling prints as such.
        let mut t = timer(None, Some(Duration::from_micros(2500)));
        t.check(&clock).unwrap();
        clock.pass(3_000, 0);
        let e = t.check(&clock).unwrap_err();
        assert_eq!(
            e.message(),
            "Expression timeout exceeded: wall-clock ceiling of 2.5 ms"
        );
    }

    #[test]
    fn when_both_are_spent_the_cpu_budget_is_named() {
        let clock = Fake::default();
        let mut t = timer(ms(10), ms(10));
        let (e, wall) = run_until_error(&mut t, &clock, 1_000, 1.0);
        assert_eq!(e.message(), "Expression timeout exceeded");
        assert_eq!(wall, 10_000);
        // The CPU budget not spent: the ceiling is named.
        let mut t = timer(ms(10), ms(10));
        let (e, _) = run_until_error(&mut t, &clock, 1_000, 0.5);
        assert!(e.message().contains("wall-clock ceiling of 10 ms"), "{e}");
    }

    #[test]
    fn blocking_is_not_charged_to_the_cpu_budget() {
        // The start, then 500 ms blocked in a host call, then 99 ms of CPU.
        let clock = Fake::default();
        let mut t = timer(ms(100), ms(1000));
        t.check(&clock).unwrap();
        clock.pass(500_000, 0);
        t.check(&clock).unwrap();
        clock.pass(99_000, 99_000);
        t.check(&clock).unwrap();
        clock.pass(1_000, 1_000);
        let e = t.check(&clock).unwrap_err();
        assert_eq!(e.message(), "Expression timeout exceeded");
    }

    #[test]
    fn without_a_cpu_clock_wall_time_stands_for_it() {
        let clock = Fake {
            no_cpu: true,
            ..Fake::default()
        };
        let mut t = timer(ms(100), ms(1000));
        let (e, wall) = run_until_error(&mut t, &clock, 50, 0.1);
        assert_eq!(e.message(), "Expression timeout exceeded");
        assert_eq!(wall, 100_000);
    }

    #[test]
    fn without_a_wall_clock_the_cpu_clock_is_read_at_every_check() {
        let clock = Fake {
            no_wall: true,
            ..Fake::default()
        };
        let mut t = timer(ms(10), ms(1));
        let (e, _) = run_until_error(&mut t, &clock, 100, 0.5);
        assert_eq!(e.message(), "Expression timeout exceeded");
        assert_eq!(clock.cpu_reads(), 201);
        // Neither clock: nothing is enforced.
        let clock = Fake {
            no_wall: true,
            no_cpu: true,
            ..Fake::default()
        };
        let mut t = timer(ms(10), ms(1));
        clock.pass(1_000_000, 1_000_000);
        t.check(&clock).unwrap();
        clock.pass(1_000_000, 1_000_000);
        t.check(&clock).unwrap();
    }

    #[test]
    fn a_zero_budget_fails_at_the_first_check() {
        let clock = Fake::default();
        assert!(timer(ms(0), None).check(&clock).is_err());
        assert!(timer(None, ms(0)).check(&clock).is_err());
    }
}
