//! What a built-in may ask of the VM running it: calling functions,
//! charging fuel and memory, the clock, the random generator, regexes.

use std::sync::Arc;

use crate::error::Error;
use crate::value::{Regex, Value};

/// The services the VM offers to built-in functions and methods.
///
/// Every built-in must charge fuel in proportion to the work it does
/// ([`Runtime::fuel`]) and call [`Runtime::alloc`] *before* building a
/// string, array or object, with the logical byte size it is about to create.
pub trait Runtime {
    /// Calls a function value (closure, built-in or host) with `args`.
    /// Counts toward the call-depth budget; errors keep their own position.
    fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error>;

    /// Charges `units` of fuel; fails with a fuel error when the budget is spent.
    fn fuel(&mut self, units: u64) -> Result<(), Error>;

    /// Charges `bytes` of memory before they are allocated; fails with
    /// `Memory limit exceeded` when the budget would be exceeded.
    fn alloc(&mut self, bytes: u64) -> Result<(), Error>;

    /// Fails with a depth error when a value of nesting `depth` may not be built.
    fn check_depth(&self, depth: u32) -> Result<(), Error>;

    /// The run's instant in epoch milliseconds (read once per run), or an
    /// error when the clock is disabled.
    fn now(&mut self) -> Result<f64, Error>;

    /// A number in `[0, 1)` from the run's seeded generator, or an error when
    /// randomness is disabled.
    fn random(&mut self) -> Result<f64, Error>;

    /// The compiled regex for a pattern and flags given as strings at run
    /// time, through a bounded cache.
    fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error>;
}
