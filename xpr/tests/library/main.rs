//! The integration tests of the `xpr` library, one module a topic, in one
//! test binary: the dependency graph is linked once, not once per file
//! (README, "Test"). Add tests to a module here rather than a new file in
//! `tests/`.

mod budget;
mod card;
mod common;
mod compile_and_format_budgets;
mod context_paths;
mod cost;
mod derive;
mod explain;
mod fields;
mod guardrails;
mod hints;
mod hostile;
mod limits;
mod proportion;
mod stored;
mod straight;
