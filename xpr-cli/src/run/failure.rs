//! What a record's failure says: invalid JSON in the words of its input
//! format, and a missing field's likely intended name.

use super::json_in::JsonError;
use super::{Failure, InputFormat};

/// The failure of a record that is not valid JSON (or whose content is
/// refused), as read in `format`.
pub(super) fn json_failure(format: InputFormat, e: &JsonError) -> Failure {
    let message = e.message();
    Failure::Input(if e.is_data() {
        // Our own errors (strict numbers, depth): the message says it all.
        message.to_string()
    } else if format == InputFormat::Ndjson {
        format!("invalid JSON: {message} at column {}", e.column())
    } else if message == "trailing characters" {
        // One document, then more: records one per line, most likely.
        format!(
            "invalid JSON: {message} (one JSON value per line is NDJSON: leave out --input json)"
        )
    } else {
        format!("invalid JSON: {message}")
    })
}

/// `Unknown identifier 'x'` with the nearest top-level field of the record
/// when `x` looks like a typo of it (`totl` -> `total`); the record is read
/// again in full for this, so only for an error that is shown.
pub(super) fn with_field_hint(failure: Failure, record: &[u8]) -> Failure {
    let Failure::Eval(e) = &failure else {
        return failure;
    };
    let Some(name) = e
        .message()
        .strip_prefix("Unknown identifier '")
        .and_then(|m| m.strip_suffix('\''))
    else {
        return failure;
    };
    if e.hint().is_some() {
        // Another language's name (`None`): its hint stands.
        return failure;
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(record) else {
        return failure;
    };
    // The first fields only: a record of 100,000 keys must not make each
    // shown error slow.
    match xpr_vm::suggest::closest(name, fields.keys().take(1_000)) {
        Some(near) => Failure::Eval(e.clone().with_hint(format!("did you mean '{near}'?"))),
        None => failure,
    }
}
