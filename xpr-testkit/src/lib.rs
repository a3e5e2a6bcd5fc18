//! What the workspace's tests share, with no dependencies of its own:
//!
//! - [`golden`]: compares a text with a file checked in beside the tests
//!   (a snapshot) and, with `XPR_BLESS=1`, rewrites the file instead;
//! - [`Rng`]: a small seeded random generator for property tests, so the
//!   same inputs come back on every run and every machine.

pub mod golden;
mod rng;

pub use golden::assert_golden;
pub use rng::Rng;
