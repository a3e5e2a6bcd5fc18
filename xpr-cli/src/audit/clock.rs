//! The audit log's clocks: the thread's CPU clock around an `eval` or
//! `batch` evaluation, and [`RecordClock`], one reading per record of
//! `run --audit-records`.

use std::time::{Duration, Instant};

/// A record whose time is at least this (wall time) has the thread's CPU
/// clock read when it ends, so that the record after it is timed by that
/// clock (see [`RecordClock`]).
const CPU_CLOCK_FROM: Duration = Duration::from_micros(20);

/// [`CPU_CLOCK_FROM`] in nanoseconds.
const CPU_CLOCK_FROM_NS: u64 = CPU_CLOCK_FROM.as_micros() as u64 * 1000;

/// The thread's CPU clock before an `eval` or `batch` evaluation (a
/// system call, cheap beside one request's parsing and writing).
#[derive(Debug, Clone, Copy)]
pub struct Started {
    cpu: Option<Duration>,
}

/// Readings before an evaluation (`eval`, `batch`).
#[inline]
pub fn start() -> Started {
    Started { cpu: thread_cpu() }
}

/// Readings after it: now (for the line's time) and the CPU time in
/// nanoseconds (the wall time since `started` where the system has no
/// thread CPU clock: it bounds the CPU time).
pub fn stop(started: Started, wall_started: Instant) -> (Instant, u64) {
    let wall = Instant::now();
    let used = match (started.cpu, started.cpu.and_then(|_| thread_cpu())) {
        (Some(before), Some(after)) => after.saturating_sub(before),
        _ => wall.saturating_duration_since(wall_started),
    };
    (wall, nanos(used))
}

/// `d` in whole nanoseconds (saturating).
#[inline]
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// CPU time of the calling thread, when the system has that clock.
pub fn thread_cpu() -> Option<Duration> {
    use xpr::Stopwatch as _;
    xpr::SystemStopwatch.thread_cpu()
}

/// Times the records of `run --audit-records` with one clock reading per
/// record: a record's time is the interval from the reading that ended
/// the record before on this worker (or the start of the chunk) to its
/// own, taken after its result was written. So it is the whole of the
/// worker's work on the record, reading its fields, evaluating, checking
/// the schema, writing the result and the previous record's audit line,
/// and nothing is left out between records.
///
/// The clock is the `quanta` crate's: on x86_64 with an invariant
/// time-stamp counter (constant rate in every power state; the
/// `constant_tsc nonstop_tsc` of Linux) and on aarch64, the processor's
/// counter (`rdtsc`, about 15 ns here against 40 for `Instant::now`),
/// turned into nanoseconds by a factor calibrated against the monotonic
/// clock once per process (under 1 ms of CPU, at the first clock made);
/// elsewhere the monotonic clock itself. A counter that reads behind the
/// last reading (a thread moved to a core whose counter lags) gives that
/// record 0 ns.
///
/// That is wall time, which bounds the CPU time (a thread cannot use more
/// CPU than the time that passes) and equals it unless the thread waited
/// for a core meanwhile. After a record of [`CPU_CLOCK_FROM`] or more the
/// thread's CPU clock (a system call, about 0.5 µs, more than a small
/// record costs) is read too, and the record after it, if it takes as
/// long, is timed by that clock: CPU time proper, for every record of a
/// run of long ones but the first.
#[derive(Debug, Clone)]
pub struct RecordClock {
    clock: quanta::Clock,
    /// The raw reading that ended the last record.
    last: u64,
    /// The thread's CPU time at `last`, if read then.
    cpu: Option<Duration>,
}

impl RecordClock {
    /// A clock timing from now (the first in the process calibrates the
    /// counter).
    pub fn new() -> RecordClock {
        let clock = quanta::Clock::new();
        RecordClock {
            last: clock.raw(),
            clock,
            cpu: None,
        }
    }

    /// Starts a chunk: the next record is timed from now (not from the
    /// last record of the chunk before, with the wait for this one between).
    pub fn restart(&mut self) {
        self.last = self.clock.raw();
        if self.cpu.is_some() {
            self.cpu = thread_cpu();
        }
    }

    /// Ends a record: its time in nanoseconds.
    #[inline]
    pub fn lap(&mut self) -> u64 {
        let now = self.clock.raw();
        let wall = self.clock.delta_as_nanos(self.last, now);
        self.last = now;
        if wall < CPU_CLOCK_FROM_NS {
            self.cpu = None;
            return wall;
        }
        self.long_lap(wall)
    }

    /// A record of [`CPU_CLOCK_FROM`] or more: its CPU time if the CPU
    /// clock was read when it started, else `wall`.
    #[cold]
    fn long_lap(&mut self, wall: u64) -> u64 {
        let cpu = thread_cpu();
        let used = match (self.cpu, cpu) {
            (Some(before), Some(after)) => nanos(after.saturating_sub(before)),
            _ => wall,
        };
        self.cpu = cpu;
        used
    }
}

impl Default for RecordClock {
    fn default() -> Self {
        RecordClock::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(d: Duration) {
        let t = Instant::now();
        while t.elapsed() < d {}
    }

    #[test]
    fn records_are_timed_from_one_reading_to_the_next() {
        let mut clock = RecordClock::new();
        // A short record: wall time, and no CPU reading for the next. A
        // busy machine may preempt the thread between two readings, making
        // any one lap long: some lap of a thousand back to back is short.
        let short_lap = |clock: &mut RecordClock| {
            (0..1000).any(|_| {
                let ns = clock.lap();
                ns < CPU_CLOCK_FROM_NS && clock.cpu.is_none()
            })
        };
        assert!(short_lap(&mut clock));
        // A long one: its wall time (nothing read before it), then the
        // CPU clock is read for the next.
        spin(CPU_CLOCK_FROM * 3);
        let ns = clock.lap();
        assert!(ns >= 60_000, "{ns}");
        assert_eq!(clock.cpu.is_some(), thread_cpu().is_some());
        // Another long one is timed by the CPU clock: at least the spin
        // (the thread's CPU time while it spins).
        spin(CPU_CLOCK_FROM * 3);
        let before = clock.cpu;
        let ns = clock.lap();
        assert!(ns > 0);
        if let (Some(a), Some(b)) = (before, clock.cpu) {
            assert_eq!(ns, nanos(b - a));
        }
        // A short one after: wall time again, and the CPU reading dropped.
        assert!(short_lap(&mut clock));
    }

    #[test]
    fn laps_agree_with_the_monotonic_clock() {
        // Laps of 2 ms by the monotonic clock: the record clock's agree
        // within 10 % (the counter's calibrated factor), in some of ten
        // tries (a preempted thread stretches one of the two clocks'
        // readings apart).
        let mut clock = RecordClock::new();
        let agree = (0..10).any(|_| {
            // Not a CPU-clock lap: no CPU reading at the start.
            clock.cpu = None;
            clock.restart();
            let t = Instant::now();
            spin(Duration::from_millis(2));
            let wall = nanos(t.elapsed());
            let ns = clock.lap();
            ns.abs_diff(wall) * 10 < wall
        });
        assert!(agree);
    }
}
