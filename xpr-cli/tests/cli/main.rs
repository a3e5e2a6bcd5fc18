//! The tests of the `xpr` binary (each runs it as a child process), one
//! module a topic, in one test binary: the dependency graph is linked once,
//! not once per file (README, "Test"). Add tests to a module here rather
//! than a new file in `tests/`.

mod cli;
mod cli_agg;
mod cli_bounds;
mod cli_budget;
mod cli_calls;
mod cli_card;
#[cfg(feature = "columnar")]
mod cli_columnar;
#[cfg(feature = "columnar")]
mod cli_columnar_damaged;
mod cli_cost;
mod cli_explain;
mod cli_guard;
mod cli_hints;
mod cli_output;
mod cli_run;
mod cli_schema_audit;
mod cli_stored;
mod common;
mod conformance_batch;
