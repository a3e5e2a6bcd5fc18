//! What a record's failure says: invalid JSON in the words of its input
//! format, and a missing field's likely intended name.

use super::json_in::JsonError;
use super::{Failure, InputFormat};
use xpr::Error;

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
    if unknown_name(e).is_none() {
        return failure;
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_slice(record) else {
        return failure;
    };
    match with_name_hint(e, fields.keys().map(String::as_str)) {
        Some(hinted) => Failure::Eval(hinted),
        None => failure,
    }
}

/// The name of an `Unknown identifier 'x'` error that has no hint yet
/// (another language's name, such as `None`, has one that stands).
fn unknown_name(e: &Error) -> Option<&str> {
    if e.hint().is_some() {
        return None;
    }
    e.message()
        .strip_prefix("Unknown identifier '")
        .and_then(|m| m.strip_suffix('\''))
}

/// `e`, an `Unknown identifier 'x'` error without a hint, with `did you
/// mean 'n'?` for the name `n` among `names` (a record's fields, a file's
/// columns) that `x` looks like a typo of; `None` for any other error or
/// no such name. Looks at the first 1,000 names only: a record of 100,000
/// keys must not make each shown error slow.
pub(crate) fn with_name_hint<'n>(e: &Error, names: impl Iterator<Item = &'n str>) -> Option<Error> {
    let name = unknown_name(e)?;
    let near = xpr_vm::suggest::closest(name, names.take(1_000))?;
    Some(e.clone().with_hint(format!("did you mean '{near}'?")))
}
