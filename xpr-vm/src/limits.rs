//! Budgets and per-run options: fuel, memory, call and value depth, the
//! CPU-time timeout and its wall-clock ceiling, cancellation, the clock
//! `now()` reads and the seed of `random()` (issue: sandbox guarantees).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::stopwatch::Stopwatch;

/// The budgets of one run. `None` means unlimited.
///
/// The defaults are chosen so that fuel and memory, not the clock, stop a
/// runaway expression in a release build: ten million fuel units take a few
/// tens of milliseconds there, well inside the spec's 100 ms timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Fuel units: one per instruction, plus what built-ins charge in
    /// proportion to their work (per element, per character, per callback).
    /// Default `Some(10_000_000)`. Exhausted: [`crate::ErrorKind::Fuel`],
    /// `Fuel budget exhausted: out of fuel`.
    pub fuel: Option<u64>,
    /// Bytes of strings, arrays and objects a run may build, counted
    /// logically (see [`crate::value`]) and charged before allocating.
    /// Default `Some(64 MiB)`. Exceeded: [`crate::ErrorKind::Memory`],
    /// `Memory limit exceeded`.
    pub memory: Option<u64>,
    /// Nesting of calls (closures, built-ins, host functions, callbacks
    /// from built-ins such as `map`). Default 200. Callbacks run by
    /// built-ins nest at most [`crate::vm::NATIVE_CALL_CEILING`] (100) deep
    /// whatever this says, since each level uses the native stack. Exceeded:
    /// [`crate::ErrorKind::Depth`], `Call depth limit exceeded`.
    pub call_depth: u32,
    /// Nesting of arrays and objects built or compared. Default 1,000.
    /// Exceeded: [`crate::ErrorKind::Depth`], `Value depth limit exceeded`.
    pub value_depth: u32,
    /// CPU time the evaluating thread may use per run (the spec's timeout),
    /// host functions included: what the expression consumes, whatever the
    /// machine's load. Checked every 1,024 fuel units and around host
    /// calls, once the clocks have started: at the first host call, or
    /// after 16,384 fuel units (a shorter run reads no clock; the CPU clock
    /// itself is read only when the wall clock says the budget could be
    /// spent, see [`crate::stopwatch`]). Default `Some(100 ms)` (the
    /// spec's). Spent: [`crate::ErrorKind::Timeout`], `Expression timeout
    /// exceeded`.
    pub timeout: Option<Duration>,
    /// Wall-clock time per run, however little CPU it uses: the ceiling
    /// that still stops a run whose host function blocks (checked when the
    /// call returns: a host function cannot be interrupted) or a thread the
    /// machine starves. Checked and started as [`Limits::timeout`].
    /// Default [`WallCeiling::Auto`]: ten times the timeout (1 s for the
    /// default 100 ms, so a run using its whole CPU budget still finishes
    /// with a tenth of a core), and no ceiling when the timeout is off, so
    /// that `timeout: None` switches every time limit off. Expired:
    /// [`crate::ErrorKind::Timeout`],
    /// `Expression timeout exceeded: wall-clock ceiling of 1000 ms`.
    pub wall_timeout: WallCeiling,
}

/// The wall-clock ceiling of a run ([`Limits::wall_timeout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WallCeiling {
    /// [`WALL_FACTOR`] times the CPU timeout; no ceiling when the timeout
    /// is off. The default.
    #[default]
    Auto,
    /// No wall-clock ceiling, whatever the timeout.
    Off,
    /// This much wall-clock time, whatever the timeout.
    After(Duration),
}

impl WallCeiling {
    /// The ceiling in force with the CPU timeout `timeout`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use xpr_vm::limits::WallCeiling;
    /// let ms = Duration::from_millis;
    /// assert_eq!(WallCeiling::Auto.resolve(Some(ms(100))), Some(ms(1000)));
    /// assert_eq!(WallCeiling::Auto.resolve(None), None);
    /// assert_eq!(WallCeiling::Off.resolve(Some(ms(100))), None);
    /// assert_eq!(WallCeiling::After(ms(5)).resolve(None), Some(ms(5)));
    /// ```
    pub fn resolve(self, timeout: Option<Duration>) -> Option<Duration> {
        match self {
            WallCeiling::Auto => timeout.map(|t| t.saturating_mul(WALL_FACTOR)),
            WallCeiling::Off => None,
            WallCeiling::After(d) => Some(d),
        }
    }
}

/// Default fuel per run.
pub const DEFAULT_FUEL: u64 = 10_000_000;
/// Default memory per run, in bytes.
pub const DEFAULT_MEMORY: u64 = 64 << 20;
/// Default call depth.
pub const DEFAULT_CALL_DEPTH: u32 = 200;
/// Default value nesting depth.
pub const DEFAULT_VALUE_DEPTH: u32 = 1000;
/// Default timeout: the spec's 100 ms, of CPU time.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(100);
/// The wall-clock ceiling, as a multiple of the CPU timeout.
pub const WALL_FACTOR: u32 = 10;
/// Default wall-clock ceiling: [`WALL_FACTOR`] times [`DEFAULT_TIMEOUT`].
pub const DEFAULT_WALL_TIMEOUT: Duration = Duration::from_millis(1000);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: Some(DEFAULT_FUEL),
            memory: Some(DEFAULT_MEMORY),
            call_depth: DEFAULT_CALL_DEPTH,
            value_depth: DEFAULT_VALUE_DEPTH,
            timeout: Some(DEFAULT_TIMEOUT),
            wall_timeout: WallCeiling::Auto,
        }
    }
}

impl Limits {
    /// No fuel, memory or time limit; the default depth limits (which
    /// protect the host's stack and so are always on).
    pub fn unlimited() -> Self {
        Limits {
            fuel: None,
            memory: None,
            timeout: None,
            ..Limits::default()
        }
    }

    /// The wall-clock ceiling in force: [`Limits::wall_timeout`] resolved
    /// against [`Limits::timeout`].
    pub fn wall_ceiling(&self) -> Option<Duration> {
        self.wall_timeout.resolve(self.timeout)
    }
}

impl Clock {
    /// Whether `self` and `other` read the same time: the same variant,
    /// the same fixed instant (bit for bit) or the same function.
    pub(crate) fn same(&self, other: &Clock) -> bool {
        match (self, other) {
            (Clock::System, Clock::System) | (Clock::Disabled, Clock::Disabled) => true,
            (Clock::Fixed(a), Clock::Fixed(b)) => a.to_bits() == b.to_bits(),
            (Clock::Custom(a), Clock::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// What `now()` returns (read at most once per run).
#[derive(Clone, Default)]
pub enum Clock {
    /// The system clock, in epoch milliseconds.
    #[default]
    System,
    /// A fixed instant, in epoch milliseconds.
    Fixed(f64),
    /// A function returning epoch milliseconds.
    Custom(Arc<dyn Fn() -> f64 + Send + Sync>),
    /// `now()` is an error.
    Disabled,
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clock::System => f.write_str("System"),
            Clock::Fixed(ms) => write!(f, "Fixed({ms})"),
            Clock::Custom(_) => f.write_str("Custom(..)"),
            Clock::Disabled => f.write_str("Disabled"),
        }
    }
}

/// A flag another thread can raise to stop a run: the VM checks it every
/// 1,024 instructions and at host calls, and fails with
/// [`crate::ErrorKind::Cancelled`], `Evaluation cancelled`.
#[derive(Debug, Clone, Default)]
pub struct CancelHandle(Arc<AtomicBool>);

impl CancelHandle {
    /// A handle not yet cancelled.
    pub fn new() -> Self {
        CancelHandle::default()
    }

    /// Whether both are the same handle (cancelling one cancels the other).
    pub(crate) fn same(&self, other: &CancelHandle) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Requests cancellation of every run using this handle (from any thread).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Clears the flag so the handle can be reused.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// Where `random()` draws from (spec "random()": a number in `[0, 1)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Randomness {
    /// A fresh, unpredictable seed for every run that calls `random()`.
    /// Drawn lazily: a run that never calls `random()` costs nothing, and the
    /// operating system's entropy is read once per [`crate::Vm`], which then
    /// hands each run its own seed from a SplitMix64 stream.
    Entropy,
    /// The same seed for every run: reproducible replays and golden tests.
    Seeded(u64),
    /// `random()` is an error (`random() is disabled in this run`).
    #[default]
    Disabled,
}

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// The budgets.
    pub limits: Limits,
    /// What `now()` reads.
    pub clock: Clock,
    /// Where `random()` draws from; disabled by default.
    pub random: Randomness,
    /// Cancellation from another thread.
    pub cancel: Option<CancelHandle>,
    /// Where the time limits read the clocks; `None` is
    /// [`crate::stopwatch::SystemStopwatch`]. A target without the
    /// operating system's clocks (WebAssembly in a browser) supplies its own.
    pub stopwatch: Option<Arc<dyn Stopwatch>>,
}

impl RunOptions {
    /// Options with these limits, the system clock, no randomness and no cancellation.
    pub fn with_limits(limits: Limits) -> Self {
        RunOptions {
            limits,
            ..RunOptions::default()
        }
    }
}
