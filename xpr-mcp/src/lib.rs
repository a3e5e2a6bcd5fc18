//! `xpr-mcp`: XPR as a [Model Context Protocol](https://modelcontextprotocol.io)
//! server over stdio, built on the `rmcp` SDK, for agents that write
//! expressions and need them checked and evaluated safely.
//!
//! Two tools (schemas in `src/tools.rs`, and in the crate's README):
//! - `evaluate {expression, context?}`: the value, as structured content
//!   `{"value": ...}` and as JSON text; or an error result whose content is
//!   one diagnostic (`kind`, `message`, `span` in characters, `expected`
//!   tokens where a parse failed, `hint`; see `src/diagnostic.rs`);
//! - `check {expression, fields?, sample?}`: as `xpr check --json`:
//!   validity, free variables, functions called, and warnings for names
//!   that are not among the known fields or look like method typos.
//!
//! The limits (fuel, memory, CPU time, expression length and depth, value
//! depth, regex size) are set by flags when the server starts, with the
//! `xpr` command line's names and defaults ([`LimitArgs`]); tool arguments
//! carry none, so a client cannot raise them. Each call runs on a worker
//! thread with a VM of its own (`src/worker.rs`): a hostile expression ends in an
//! error result (`fuel`, `memory`, `timeout`, `depth`, ...) and the server
//! goes on serving. The server reads and writes nothing but its standard
//! input and output (diagnostics of its own go to standard error).
//!
//! `src/hooks.rs` holds the places where the allowlist, the output schema and
//! the language card will plug in.
//!
//! ```no_run
//! use rmcp::ServiceExt as _;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let engine = xpr::Engine::new(); // default limits
//! let server = xpr_mcp::Server::new(engine, 2);
//! server.serve(rmcp::transport::stdio()).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```

mod diagnostic;
mod hooks;
mod limits;
mod server;
mod tools;
mod warnings;
mod worker;

pub use limits::LimitArgs;
pub use server::Server;
