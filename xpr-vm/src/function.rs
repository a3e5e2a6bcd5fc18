//! Function values: closures, built-ins and host functions, and arity.

use std::fmt;
use std::sync::Arc;

use crate::program::Program;
use crate::value::Value;

/// How many arguments a function takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exact(u8),
    /// From `min` to `max`, inclusive.
    Range(u8, u8),
    /// At least this many.
    AtLeast(u8),
}

impl Arity {
    /// Whether `n` arguments are acceptable.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exact(k) => n == k as usize,
            Arity::Range(lo, hi) => (lo as usize..=hi as usize).contains(&n),
            Arity::AtLeast(lo) => n >= lo as usize,
        }
    }
}

impl fmt::Display for Arity {
    /// `2`, `1 to 3`, `at least 1`: the `expected ...` part of the arity error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exact(k) => write!(f, "{k}"),
            Arity::Range(lo, hi) => write!(f, "{lo} to {hi}"),
            Arity::AtLeast(lo) => write!(f, "at least {lo}"),
        }
    }
}

/// A function value.
pub enum Function {
    /// An arrow function with the values it captured.
    Closure(Closure),
    /// A built-in global function, by id (see [`crate::stdlib::function_id`]).
    Builtin(u16),
    /// A function the embedder registered.
    Host(Arc<HostFunction>),
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Function::Closure(c) => write!(f, "<closure {}>", c.proto),
            Function::Builtin(i) => write!(f, "<builtin {i}>"),
            Function::Host(h) => write!(f, "<host {}>", h.name),
        }
    }
}

/// An arrow function value: which prototype in which program, and the
/// captured values (bindings are immutable, so capture by value is exact).
#[derive(Debug)]
pub struct Closure {
    /// The program holding the code (cheap to clone).
    pub program: Program,
    /// Index of the function prototype within the program.
    pub proto: u32,
    /// Captured values, in the order the prototype lists its upvalues.
    pub captures: Box<[Value]>,
}

impl Drop for Closure {
    fn drop(&mut self) {
        crate::value::drop_captures(&mut self.captures);
    }
}

/// Fuel a host function reports for its own work, beyond the per-call default.
#[derive(Debug, Default)]
pub struct Meter {
    charged: u64,
}

impl Meter {
    /// Adds `units` of fuel to what this call costs. Charged when the call
    /// returns: a host function cannot be interrupted while it runs.
    pub fn charge(&mut self, units: u64) {
        self.charged = self.charged.saturating_add(units);
    }

    /// Fuel charged so far in this call.
    pub fn charged(&self) -> u64 {
        self.charged
    }
}

/// The error a host function returns; the VM reports it as an
/// [`crate::ErrorKind::Host`] error at the call's position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HostError(pub String);

impl HostError {
    /// A host error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        HostError(message.into())
    }
}

/// The callable behind a host function.
pub type HostCallback = dyn Fn(&mut Meter, &[Value]) -> Result<Value, HostError> + Send + Sync;

/// A function registered by the embedder.
pub struct HostFunction {
    /// The name expressions call it by.
    pub name: String,
    /// Accepted argument counts, checked before the call.
    pub arity: Arity,
    /// Fuel charged for every call, before any [`Meter::charge`].
    pub fuel_per_call: u64,
    /// Whether the function may charge fuel through its [`Meter`]: then
    /// its fuel per call is not known before it runs, and a program that
    /// calls it has no static cost bound (`Program::cost_bound`).
    pub meters: bool,
    /// The function itself.
    pub callback: Arc<HostCallback>,
}

impl fmt::Debug for HostFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostFunction")
            .field("name", &self.name)
            .field("arity", &self.arity)
            .finish_non_exhaustive()
    }
}
