//! The XPR virtual machine: values, bytecode, the fuel-metered stack VM,
//! budgets, and the standard library. It knows nothing of syntax: programs
//! come from `xpr-compiler` (or are built by hand in tests).

pub mod context;
pub mod error;
pub mod function;
pub mod program;
pub mod runtime;
pub mod stdlib;
pub mod value;

pub use context::Context;
pub use error::{Error, ErrorKind, Span};
pub use function::{Arity, Function, HostError, HostFunction, Meter};
pub use program::Program;
pub use runtime::Runtime;
pub use value::{Array, Key, Map, Object, Regex, Value};
