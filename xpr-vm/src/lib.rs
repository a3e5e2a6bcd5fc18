//! The XPR virtual machine: values, bytecode, the fuel-metered stack VM,
//! budgets, and the standard library. It knows nothing of syntax: programs
//! come from `xpr-compiler` (or are built by hand in tests).

pub mod bind;
pub mod capabilities;
pub mod compare;
pub mod context;
pub mod error;
pub mod foreign;
pub mod format;
pub mod function;
pub mod json;
pub mod limits;
pub mod program;
pub mod runtime;
pub mod shared_budget;
pub mod stdlib;
pub mod stopwatch;
pub mod suggest;
pub mod value;
pub mod vm;

pub use bind::ToValue;
pub use capabilities::Capabilities;
pub use context::{Context, Field};
pub use error::{Error, ErrorKind, Span};
pub use function::{Arity, Function, HostError, HostFunction, Meter};
pub use limits::{CancelHandle, Clock, Limits, Randomness, RunOptions, WallCeiling};
pub use program::{Op, Program};
pub use runtime::Runtime;
pub use shared_budget::{Budget, BudgetReport};
pub use stopwatch::{Stopwatch, SystemStopwatch};
pub use value::{Array, Key, Map, Object, Regex, Value};
pub use vm::Vm;
