//! Where the VM reads time for its two time limits (issue 11: a time limit
//! that does not depend on load): the CPU time of the evaluating thread,
//! which bounds what an expression consumes, and a wall clock, which bounds
//! how long a run may last at all (a host function that blocks).
//!
//! [`SystemStopwatch`] reads the operating system's clocks. A target without
//! them (`wasm32-unknown-unknown`, where `std::time::Instant::now` panics)
//! gets no readings from it, so its time limits are not enforced, unless the
//! embedder supplies its own [`Stopwatch`] in [`crate::RunOptions`].
//!
//! The calendar clock (`now()` under [`crate::Clock::System`], and the
//! time mixed into the entropy of `random()`) is read here too, through
//! [`system_time_ms`], so that this module is the only place that knows
//! which targets have clocks: on `wasm32-unknown-unknown` the embedder
//! provides `now()` with [`crate::Clock::Custom`] (`xpr-wasm` gives
//! JavaScript's `Date.now()`) and a seed with each run.

use std::fmt;
use std::time::Duration;

/// A source of the two readings the time limits need. Both are measured
/// from a fixed origin of the implementation's choosing and must never go
/// backwards; `None` means the reading is not available.
///
/// The VM reads [`Stopwatch::wall`] at most once per check (every 1,024
/// fuel units and around host calls) and [`Stopwatch::thread_cpu`] far
/// more rarely: a thread cannot use more CPU time than wall time passes, so
/// the CPU clock is read only once the wall clock says the CPU budget could
/// be spent.
pub trait Stopwatch: Send + Sync + fmt::Debug {
    /// Wall-clock (monotonic) time.
    fn wall(&self) -> Option<Duration>;

    /// CPU time consumed by the calling thread. It must not advance faster
    /// than [`Stopwatch::wall`]: the VM relies on that to skip readings.
    fn thread_cpu(&self) -> Option<Duration>;
}

/// The operating system's clocks: `Instant` for wall time and the thread's
/// CPU clock (`CLOCK_THREAD_CPUTIME_ID` on Unix, `GetThreadTimes` on
/// Windows, through the `cpu-time` crate). On `wasm32-unknown-unknown` it
/// has neither reading; elsewhere without a thread CPU clock, the VM counts
/// wall time against the CPU budget (never less than the CPU time used).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemStopwatch;

impl Stopwatch for SystemStopwatch {
    #[inline]
    fn wall(&self) -> Option<Duration> {
        native::wall()
    }

    #[inline]
    fn thread_cpu(&self) -> Option<Duration> {
        native::thread_cpu()
    }
}

/// The system's calendar clock in milliseconds since the Unix epoch
/// (`SystemTime`), or `None` where the target has none
/// (`wasm32-unknown-unknown`) or the clock is set before 1970.
#[inline]
pub fn system_time_ms() -> Option<f64> {
    native::system_time_ms()
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
mod native {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    pub(super) fn system_time_ms() -> Option<f64> {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
        Some(since.as_millis() as f64)
    }

    /// The origin of wall readings: the first one taken in the process.
    static ORIGIN: OnceLock<Instant> = OnceLock::new();

    pub(super) fn wall() -> Option<Duration> {
        let now = Instant::now();
        Some(now.saturating_duration_since(*ORIGIN.get_or_init(|| now)))
    }

    #[cfg(any(unix, windows))]
    pub(super) fn thread_cpu() -> Option<Duration> {
        cpu_time::ThreadTime::try_now()
            .ok()
            .map(|t| t.as_duration())
    }

    #[cfg(not(any(unix, windows)))]
    pub(super) fn thread_cpu() -> Option<Duration> {
        None
    }
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod native {
    use std::time::Duration;

    pub(super) fn system_time_ms() -> Option<f64> {
        None
    }

    pub(super) fn wall() -> Option<Duration> {
        None
    }

    pub(super) fn thread_cpu() -> Option<Duration> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_readings_are_available_and_monotonic() {
        let s = SystemStopwatch;
        let (w0, c0) = (s.wall().unwrap(), s.thread_cpu().unwrap());
        // Burn a little CPU until the thread clock moves (no time asserted).
        let mut x = 0u64;
        while s.thread_cpu().unwrap() == c0 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(s.wall().unwrap() >= w0);
        assert!(s.thread_cpu().unwrap() > c0);
    }

    #[test]
    fn the_calendar_clock_reads_epoch_milliseconds() {
        // After 2020-01-01 and whole milliseconds (no time asserted).
        let ms = system_time_ms().unwrap();
        assert!(ms > 1_577_836_800_000.0);
        assert_eq!(ms.fract(), 0.0);
    }
}
