//! `xpr-mcp`: XPR as a [Model Context Protocol](https://modelcontextprotocol.io)
//! server over stdio, built on the `rmcp` SDK, for agents that write
//! expressions and need them checked and evaluated safely.
//!
//! Two tools (schemas in `src/tools.rs`, and in the crate's README) and
//! one resource:
//! - `evaluate {expression, context?, output_schema?}`: the value, as
//!   structured content `{"value": ...}` and as JSON text; or an error
//!   result whose content is one [`xpr::Diagnostic`] as JSON (`kind`,
//!   `message`, `span` in characters, `expected` tokens where a parse
//!   failed, `hint`);
//! - `check {expression, fields?, sample?}`: [`xpr::Engine::check`]'s
//!   report, exactly as `xpr check --json` prints it: validity, every
//!   error, the warnings, free variables and functions called;
//! - the language card ([`xpr::card`], listing only what the server
//!   allows) at [`CARD_URI`], for an LLM's system prompt.
//!
//! The limits (fuel, memory, CPU time, expression length and depth, value
//! depth, regex size), the allowlist (`--allow`, `--deny`), the expected
//! result type (`--expect`) and an output schema (`--output-schema`) are
//! set by flags when the server starts, with the `xpr` command line's
//! names and defaults ([`LimitArgs`], [`GuardArgs`]); tool arguments carry
//! no limits, so a client cannot raise them (a client's `output_schema`
//! only adds a check). Each call runs on a worker thread with a VM of its
//! own (`src/worker.rs`): a hostile expression ends in an error result
//! (`fuel`, `memory`, `timeout`, `depth`, ...) and the server goes on
//! serving. Every incoming message is held to the limits before it is
//! parsed, and answered with a JSON-RPC error if it cannot be taken
//! ([`Gate`]). Once started, the server reads and writes nothing but its
//! standard input and output (diagnostics of its own go to standard
//! error); the schema file is read before it serves.
//!
//! ```no_run
//! use rmcp::ServiceExt as _;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let engine = xpr::Engine::new(); // default limits
//! let server = xpr_mcp::Server::new(engine, xpr_mcp::Guards::default(), 2);
//! let (stdin, stdout) = rmcp::transport::stdio();
//! let transport = server.transport(tokio::io::BufReader::new(stdin), stdout);
//! server.serve(transport).await?.waiting().await?;
//! # Ok(())
//! # }
//! ```

mod gate;
mod guards;
mod server;
mod tools;
mod worker;

pub use gate::{Gate, MAX_LINE, MAX_NESTING};
pub use guards::{GuardArgs, Guards};
pub use server::{CARD_URI, Server};
pub use xpr_args::LimitArgs;
