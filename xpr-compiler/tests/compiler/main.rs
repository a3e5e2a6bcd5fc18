//! The integration tests of xpr-compiler (compiled programs run on the
//! VM), one module a topic, in one test binary: the dependency graph is
//! linked once, not once per file (README, "Test"). Add tests to a module
//! here rather than a new file in `tests/`; `tests/alloc.rs` is apart
//! because its global allocator counts every allocation of its process.

mod calls;
mod common;
mod disasm;
mod eval;
mod fuel;
mod fused;
mod limits;
mod sharing;
