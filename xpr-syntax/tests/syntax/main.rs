//! The integration tests of xpr-syntax, one module a topic, in one test
//! binary: the dependency graph is linked once, not once per file (README,
//! "Test"). Add tests to a module here rather than a new file in `tests/`.

mod ast_gen;
mod conformance;
mod foreign;
mod generated_parser;
mod lexer;
mod limits;
mod roundtrip;
mod snapshots;
