//! The two tools, without any transport: their definitions (input and
//! output JSON Schemas), their arguments, and what a call returns.
//!
//! - `evaluate {expression, context?}`: compiles and runs the expression
//!   with the context's fields as variables; the result is
//!   `{"value": RESULT}` (structured content) and RESULT's JSON text
//!   (content), or an error result whose content is one diagnostic
//!   (see [`crate::diagnostic`]).
//! - `check {expression, fields?, sample?}`: parses and compiles only,
//!   as `xpr check --json`: `{valid: true, free_variables, functions,
//!   warnings}` or `{valid: false, error: DIAGNOSTIC}`.
//!
//! Arguments carry no limits: an argument other than these is refused.

use std::sync::Arc;

use serde_json::{Map, Value as Json, json};
use xpr::{Engine, Value, Vm};

use crate::{diagnostic, hooks, warnings};

/// A JSON object, as tool arguments and schemas are.
pub type JsonObject = Map<String, Json>;

/// What a tool call gives back.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A result: the structured content and the text content.
    Done {
        /// The structured content (always a JSON object).
        structured: Json,
        /// The text an LLM reads.
        text: String,
    },
    /// An error result: one diagnostic.
    Failed(Json),
}

impl Outcome {
    fn report(structured: Json) -> Self {
        let text = structured.to_string();
        Outcome::Done { structured, text }
    }
}

/// The arguments of `evaluate`.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluate {
    /// The expression.
    pub expression: String,
    /// The variables (an empty object when none were given).
    pub context: JsonObject,
}

/// The arguments of `check`.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The expression.
    pub expression: String,
    /// The record fields the expression may read, from `fields` or the
    /// keys of `sample`; `None` when neither was given.
    pub known: Option<Vec<String>>,
}

/// A parsed tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `evaluate`.
    Evaluate(Evaluate),
    /// `check`.
    Check(Check),
}

/// The name of the `evaluate` tool.
pub const EVALUATE: &str = "evaluate";
/// The name of the `check` tool.
pub const CHECK: &str = "check";

fn object(value: Json) -> Arc<JsonObject> {
    match value {
        Json::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The schema of a diagnostic (see [`crate::diagnostic`]).
fn diagnostic_schema() -> Json {
    let nullable = |t: &str| json!({"type": [t, "null"]});
    json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string"},
            "message": {"type": "string"},
            "text": {"type": "string"},
            "position": nullable("integer"),
            "span": {
                "type": ["object", "null"],
                "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
                "required": ["start", "end"]
            },
            "expected": {"type": "array", "items": {"type": "string"}},
            "hint": nullable("string")
        },
        "required": ["kind", "message", "text", "position", "span", "expected", "hint"]
    })
}

/// The expression argument's schema, shared by both tools.
fn expression_schema() -> Json {
    json!({
        "type": "string",
        "description": "An XPR expression, e.g. `items.filter(x => x.price > 50).map(x => x.name)`."
    })
}

/// The input schema of `evaluate`.
pub fn evaluate_input_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "expression": expression_schema(),
            "context": {
                "type": "object",
                "description": "The variables: a JSON object whose fields the expression reads by name."
            }
        },
        "required": ["expression"],
        "additionalProperties": false
    })
}

/// The output schema of `evaluate` (the structured content of a result).
pub fn evaluate_output_schema() -> Json {
    json!({
        "type": "object",
        "properties": {"value": {"description": "The expression's value, as JSON."}},
        "required": ["value"]
    })
}

/// The input schema of `check`.
pub fn check_input_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "expression": expression_schema(),
            "fields": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The record fields the expression may read: other free variables are warned about."
            },
            "sample": {
                "type": "object",
                "description": "A sample record: its top-level keys are the known fields (instead of `fields`)."
            }
        },
        "required": ["expression"],
        "additionalProperties": false
    })
}

/// The output schema of `check`.
pub fn check_output_schema() -> Json {
    let names = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "properties": {
            "valid": {"type": "boolean"},
            "free_variables": names,
            "functions": names,
            "warnings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"enum": ["unknown_field", "unknown_method"]},
                        "name": {"type": "string"},
                        "message": {"type": "string"},
                        "suggestion": {"type": ["string", "null"]}
                    },
                    "required": ["kind", "name", "message", "suggestion"]
                }
            },
            "error": diagnostic_schema()
        },
        "required": ["valid"]
    })
}

/// The tools, as `tools/list` gives them.
pub fn definitions() -> Vec<rmcp::model::Tool> {
    use rmcp::model::{Tool, ToolAnnotations};
    let annotations = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .open_world(false);
    vec![
        Tool::new(
            EVALUATE,
            "Evaluate an XPR expression against a context object (its fields are the variables) \
             and return the value as JSON, under the server's fuel, memory and time limits. \
             On failure the result is an error whose content is a diagnostic: kind, message, \
             span (character offsets), expected tokens and a hint.",
            object(evaluate_input_schema()),
        )
        .with_raw_output_schema(object(evaluate_output_schema()))
        .with_annotations(annotations.clone()),
        Tool::new(
            CHECK,
            "Parse and compile an XPR expression without running it: whether it is valid (with \
             a diagnostic if not), its free variables, the functions it calls, and warnings for \
             names that are not among the given fields (or the keys of a sample record) and \
             for method names that look like typos.",
            object(check_input_schema()),
        )
        .with_raw_output_schema(object(check_output_schema()))
        .with_annotations(annotations),
    ]
}

/// Reads the arguments of tool `name`. `Ok(None)`: no such tool; `Err`:
/// the diagnostic (kind `arguments`) of arguments the tool cannot use.
pub fn parse(name: &str, arguments: Option<&JsonObject>) -> Result<Option<Call>, Json> {
    let empty = JsonObject::new();
    let args = arguments.unwrap_or(&empty);
    let allowed: &[&str] = match name {
        EVALUATE => &["expression", "context"],
        CHECK => &["expression", "fields", "sample"],
        _ => return Ok(None),
    };
    if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(diagnostic::of_arguments(&format!(
            "unknown argument '{extra}': {name} takes {} (limits are fixed when the server starts)",
            allowed.join(", ")
        )));
    }
    let expression = match args.get("expression") {
        Some(Json::String(s)) => s.clone(),
        Some(other) => {
            return Err(diagnostic::of_arguments(&format!(
                "'expression' must be a string, not {}",
                json_type(other)
            )));
        }
        None => return Err(diagnostic::of_arguments("'expression' is required")),
    };
    let object_arg = |key: &str| match args.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(map)) => Ok(Some(map)),
        Some(other) => Err(diagnostic::of_arguments(&format!(
            "'{key}' must be a JSON object, not {}",
            json_type(other)
        ))),
    };
    if name == EVALUATE {
        let context = object_arg("context")?.cloned().unwrap_or_default();
        return Ok(Some(Call::Evaluate(Evaluate {
            expression,
            context,
        })));
    }
    let fields = match args.get("fields") {
        None | Some(Json::Null) => None,
        Some(Json::Array(items)) => Some(
            items
                .iter()
                .map(|f| match f {
                    Json::String(s) => Ok(s.trim().to_string()),
                    other => Err(diagnostic::of_arguments(&format!(
                        "'fields' must list strings, not {}",
                        json_type(other)
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(diagnostic::of_arguments(&format!(
                "'fields' must be an array of strings, not {}",
                json_type(other)
            )));
        }
    };
    let sample = object_arg("sample")?;
    let known = match (fields, sample) {
        (Some(_), Some(_)) => {
            return Err(diagnostic::of_arguments(
                "give 'fields' or 'sample', not both",
            ));
        }
        (Some(fields), None) => Some(fields),
        (None, Some(sample)) => Some(sample.keys().cloned().collect()),
        (None, None) => None,
    };
    Ok(Some(Call::Check(Check { expression, known })))
}

/// The JSON type name of `v`, for messages.
fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// Runs a parsed call on this thread, on a VM of its own.
pub fn run(engine: &Engine, call: &Call) -> Outcome {
    match call {
        Call::Evaluate(e) => evaluate(engine, e),
        Call::Check(c) => check(engine, c),
    }
}

/// `evaluate`: compile, run on a fresh VM, convert the value to JSON.
pub fn evaluate(engine: &Engine, args: &Evaluate) -> Outcome {
    let source = args.expression.as_str();
    let failed = |e: &xpr::Error| Outcome::Failed(diagnostic::of_error(engine, source, e));
    let program = match engine.compile(source) {
        Ok(p) => p,
        Err(e) => return failed(&e),
    };
    if let Err(e) = hooks::allow(&program) {
        return failed(&e);
    }
    // A VM of the call's own: nothing a hostile run grew is kept.
    let mut vm = Vm::new();
    let value = match program.run_in(&mut vm, &args.context) {
        Ok(v) => v,
        Err(e) => return failed(&e),
    };
    drop(vm);
    let (json, text) = match to_json(&value) {
        Ok(pair) => pair,
        Err(e) => return failed(&e),
    };
    if let Err(diagnostic) = hooks::check_output(&json) {
        return Outcome::Failed(diagnostic);
    }
    Outcome::Done {
        structured: json!({ "value": json }),
        text,
    }
}

/// The value as JSON, and its JSON text with JavaScript's number spelling
/// (as `xpr eval` prints it). A regex or a function has no JSON form.
fn to_json(value: &Value) -> Result<(Json, String), xpr::Error> {
    Ok((value.to_json()?, xpr::to_json_string(value)?))
}

/// `check`: as `xpr check --json`. A call of a function that does not
/// exist makes the expression invalid (the library would raise it only
/// where the call is reached; a JSON record cannot supply a function).
pub fn check(engine: &Engine, args: &Check) -> Outcome {
    let source = args.expression.as_str();
    let invalid =
        |e: &xpr::Error| json!({"valid": false, "error": diagnostic::of_error(engine, source, e)});
    let program = match engine.compile(source) {
        Ok(p) => p,
        Err(e) => return Outcome::report(invalid(&e)),
    };
    if let Err(e) = hooks::allow(&program) {
        return Outcome::report(invalid(&e));
    }
    if let Some(first) = program.unknown_functions().first() {
        return Outcome::report(invalid(&first.error));
    }
    let free: Vec<&str> = program.free_variables().iter().map(|k| &**k).collect();
    Outcome::report(json!({
        "valid": true,
        "free_variables": free,
        "functions": program.functions(),
        "warnings": warnings::of_program(&program, args.known.as_deref()),
    }))
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
