//! XPR: a sandboxed expression language for data pipelines, rule engines
//! and agents. Compile an expression once, run it against many records.
//!
//! ```
//! use xpr::{Engine, Value};
//!
//! let engine = Engine::new();
//! let program = engine.compile("items.filter(x => x.price > 50).map(x => x.name)")?;
//! let record: serde_json::Value = serde_json::json!({
//!     "items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}]
//! });
//! let result = program.run_json(&record)?;
//! assert_eq!(result, Value::from(vec![Value::from("desk")]));
//! # Ok::<(), xpr::Error>(())
//! ```
//!
//! # Untrusted input
//!
//! An expression can do nothing but compute a value from its context: there
//! is no I/O, no import, no access to the host. Whatever the expression and
//! whatever the data, a run ends with a value or an [`Error`], never a panic,
//! a stack overflow or a hang, within these budgets ([`Limits`]):
//! - **length** of the source (characters) and **AST depth**, checked while parsing;
//! - **fuel**: one unit per instruction plus each built-in's proportional cost;
//! - **memory**: bytes of strings, arrays and objects a run creates, checked
//!   before allocating, counting shared structure at its logical size;
//! - **call depth** and **value nesting depth**;
//! - a **timeout** on the CPU time the run uses (so it does not depend on
//!   the machine's load), a wall-clock **ceiling** several times larger,
//!   and a [`CancelHandle`] another thread can trigger.
//!
//! A host function cannot be interrupted while it runs: the CPU time it
//! uses counts, and the time limits and cancellation take effect when it
//! returns.

/// The bytecode [`Program::bytecode`] returns, for hosts that analyse a
/// compiled program (`xpr-arrow` compiles the common subset of XPR into
/// vector operations from it): its instructions, prototypes and the names
/// of the built-ins they call. Not a stable interface: it follows the VM.
pub mod bytecode {
    pub use xpr_vm::program::{Cmp, MethodRef, Op, Proto};
    pub use xpr_vm::stdlib::function_name;
}

mod budget;
mod card;
mod check;
mod diagnostic;
mod engine;
mod expect;
pub mod explain;
mod explain_render;
mod lint;
mod nulls;

pub use card::{Card, CardEntry, CardExample, CardMistake, card, card_with};
pub use check::{CheckReport, Warning};
pub use diagnostic::{Diagnostic, Severity, render_error};
pub use engine::{
    Engine, Limits, Program, Randomness, RunConfig, STORED_FORMAT_VERSION, STORED_MAGIC,
    SyntaxError, WallCeiling,
};
pub use expect::ValueType;
pub use explain::Explanation;
pub use lint::Lint;
pub use xpr_vm::bind;
pub use xpr_vm::foreign;
pub use xpr_vm::format::to_json_string;
pub use xpr_vm::program::UnknownFunction;
pub use xpr_vm::program::cost::{self, CostBound, Sizes};
pub use xpr_vm::vm::{Fields, Output};
pub use xpr_vm::{
    Arity, Budget, BudgetReport, CancelHandle, Capabilities, Clock, Context, Error, ErrorKind,
    Field, HostError, Key, Map, Meter, Span, Stopwatch, SystemStopwatch, ToValue, Value, Vm,
};

/// `#[derive(Context)]` (feature `derive`): a host struct as a program's
/// context, read field by field by name, nothing converted up front; see
/// [`ToValue`] for the field types and the crate `xpr-derive` for the
/// attributes (`rename`, `rename_all`, `skip`, and serde's).
#[cfg(feature = "derive")]
pub use xpr_derive::Context;
