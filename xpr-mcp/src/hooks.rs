//! Where the guardrails of issue 14 plug into the server, one function
//! each, so that adding one touches one place. None is built yet: each
//! function lets everything through until the library grows the feature.
//!
//! - [`allow`]: the capability allowlist (functions and methods a program
//!   may call), checked after every compile, by both tools;
//! - [`check_output`]: the output JSON Schema (an `output_schema` tool
//!   argument and/or one fixed at start, validated with the `jsonschema`
//!   crate), checked on every value `evaluate` returns;
//! - [`language_card`]: the language card, served as an MCP resource
//!   (the server advertises resources only when there is a card).

use serde_json::Value as Json;

/// Whether `program` uses only what the server allows: `Err` with the
/// error to report (its diagnostic says what is allowed). Today: always
/// allowed.
pub fn allow(program: &xpr::Program) -> Result<(), xpr::Error> {
    let _ = program;
    Ok(())
}

/// Whether the result `value` (as JSON) has the expected shape: `Err` with
/// the diagnostic to return (kind `schema`, the JSON pointer of the failing
/// part). Today: every value passes.
pub fn check_output(value: &Json) -> Result<(), Json> {
    let _ = value;
    Ok(())
}

/// The language card for an LLM's system prompt, and the resource URI it
/// is served at. Today: none (and no resources capability).
pub fn language_card() -> Option<(&'static str, String)> {
    None
}
