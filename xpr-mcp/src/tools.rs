//! The two tools, without any transport: their definitions (input and
//! output JSON Schemas), their arguments, and what a call returns.
//!
//! - `evaluate {expression, context?, output_schema?}`: compiles (under
//!   the server's allowlist and expected type) and runs the expression
//!   with the context's fields as variables, then checks the result
//!   against the server's output schema and the call's; the result is
//!   `{"value": RESULT}` (structured content) and RESULT's JSON text
//!   (content), or an error result whose content is one diagnostic
//!   ([`xpr::Diagnostic::to_json`]).
//! - `check {expression, fields?, sample?}`: parses and compiles only:
//!   [`xpr::Engine::check`]'s report, as `xpr check --json` prints it.
//!
//! Arguments carry no limits: an argument other than these is refused.

use std::sync::Arc;

use serde_json::{Map, Value as Json, json};
use xpr::{Diagnostic, Engine, Severity, Value, Vm};
use xpr_schema::OutputSchema;

use crate::guards::Guards;

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
    /// The client's output schema (a JSON Schema: an object or a
    /// boolean), compiled on the worker; the result must pass it as well
    /// as the server's.
    pub output_schema: Option<Json>,
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

/// The diagnostic of tool arguments the server cannot use: kind `arguments`.
pub fn of_arguments(message: &str) -> Json {
    Diagnostic::new("arguments", message, Severity::Error).to_json()
}

/// The diagnostic of a call the server could not finish (a bug: a panic
/// caught on the worker): kind `internal`. The server keeps serving.
pub fn internal() -> Json {
    let message = "internal error: the call stopped unexpectedly; the server keeps serving";
    Diagnostic::new("internal", message, Severity::Error).to_json()
}

/// The schema of a diagnostic ([`Diagnostic::to_json`]).
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
            "hint": nullable("string"),
            "severity": {"enum": ["error", "warning"]}
        },
        "required": ["kind", "message", "text", "position", "span", "expected", "hint", "severity"]
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
            },
            "output_schema": {
                "type": ["object", "boolean"],
                "description": "A JSON Schema the result must conform to (besides the server's, if it has one); a result that does not is an error of kind `schema` naming the JSON pointer of the failing part."
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

/// The output schema of `check` ([`xpr::CheckReport::to_json`]).
pub fn check_output_schema() -> Json {
    let names = json!({"type": "array", "items": {"type": "string"}});
    let mut warning = diagnostic_schema();
    warning["properties"]["name"] = json!({"type": "string"});
    warning["properties"]["suggestion"] = json!({"type": ["string", "null"]});
    if let Some(required) = warning["required"].as_array_mut() {
        required.extend([json!("name"), json!("suggestion")]);
    }
    json!({
        "type": "object",
        "properties": {
            "valid": {"type": "boolean"},
            "error": diagnostic_schema(),
            "errors": {"type": "array", "items": diagnostic_schema()},
            "warnings": {"type": "array", "items": warning},
            "free_variables": names,
            "functions": names
        },
        "required": ["valid", "errors", "warnings"]
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
             and return the value as JSON, under the server's fuel, memory and time limits, \
             allowlist, expected type and output schema (`output_schema` adds a JSON Schema the \
             result must also pass). On failure the result is an error whose content is a \
             diagnostic: kind, message, span (character offsets), expected tokens and a hint.",
            object(evaluate_input_schema()),
        )
        .with_raw_output_schema(object(evaluate_output_schema()))
        .with_annotations(annotations.clone()),
        Tool::new(
            CHECK,
            "Parse and compile an XPR expression without running it, as `xpr check --json`: \
             whether it is valid, every error (all syntax errors at once, unknown functions, \
             methods a value lacks, functions the server does not allow, a result of the wrong \
             type) as a diagnostic with span and hint, warnings (names not among the given \
             fields or the keys of a sample record, other languages' names, likely mistakes), \
             its free variables and the functions it calls.",
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
        EVALUATE => &["expression", "context", "output_schema"],
        CHECK => &["expression", "fields", "sample"],
        _ => return Ok(None),
    };
    if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(of_arguments(&format!(
            "unknown argument '{extra}': {name} takes {} (limits are fixed when the server starts)",
            allowed.join(", ")
        )));
    }
    let expression = match args.get("expression") {
        Some(Json::String(s)) => s.clone(),
        Some(other) => {
            return Err(of_arguments(&format!(
                "'expression' must be a string, not {}",
                json_type(other)
            )));
        }
        None => return Err(of_arguments("'expression' is required")),
    };
    let object_arg = |key: &str| match args.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(map)) => Ok(Some(map)),
        Some(other) => Err(of_arguments(&format!(
            "'{key}' must be a JSON object, not {}",
            json_type(other)
        ))),
    };
    if name == EVALUATE {
        let context = object_arg("context")?.cloned().unwrap_or_default();
        let output_schema = match args.get("output_schema") {
            None | Some(Json::Null) => None,
            Some(schema @ (Json::Object(_) | Json::Bool(_))) => Some(schema.clone()),
            Some(other) => {
                return Err(of_arguments(&format!(
                    "'output_schema' must be a JSON Schema (an object or a boolean), not {}",
                    json_type(other)
                )));
            }
        };
        return Ok(Some(Call::Evaluate(Evaluate {
            expression,
            context,
            output_schema,
        })));
    }
    let fields = match args.get("fields") {
        None | Some(Json::Null) => None,
        Some(Json::Array(items)) => Some(
            items
                .iter()
                .map(|f| match f {
                    Json::String(s) => Ok(s.trim().to_string()),
                    other => Err(of_arguments(&format!(
                        "'fields' must list strings, not {}",
                        json_type(other)
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(of_arguments(&format!(
                "'fields' must be an array of strings, not {}",
                json_type(other)
            )));
        }
    };
    let sample = object_arg("sample")?;
    let known = match (fields, sample) {
        (Some(_), Some(_)) => {
            return Err(of_arguments("give 'fields' or 'sample', not both"));
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

/// Runs a parsed call on this thread, on a VM of its own, under the
/// server's guardrails.
pub fn run(engine: &Engine, guards: &Guards, call: &Call) -> Outcome {
    match call {
        Call::Evaluate(e) => evaluate(engine, guards, e),
        Call::Check(c) => check(engine, guards, c),
    }
}

/// `evaluate`: compile (for the expected type, if any), run on a fresh
/// VM, check the result against the server's schema and the call's,
/// convert it to JSON.
pub fn evaluate(engine: &Engine, guards: &Guards, args: &Evaluate) -> Outcome {
    let source = args.expression.as_str();
    let failed = |e: &xpr::Error| Outcome::Failed(engine.diagnose(e, source).to_json());
    // The client's schema is compiled first: a schema that cannot be used
    // is the call's mistake, whatever the expression.
    let client_schema = match &args.output_schema {
        None => None,
        Some(schema) => match OutputSchema::from_json(schema) {
            Ok(s) => Some(s),
            Err(e) => {
                return Outcome::Failed(of_arguments(&format!("'output_schema': {}", e.message())));
            }
        },
    };
    let compiled = match guards.expect {
        Some(t) => engine.compile_expecting(source, t),
        None => engine.compile(source),
    };
    let program = match compiled {
        Ok(p) => p,
        Err(e) => return failed(&e),
    };
    // A VM of the call's own: nothing a hostile run grew is kept.
    let mut vm = Vm::new();
    let value = match program.run_in(&mut vm, &args.context) {
        Ok(v) => v,
        Err(e) => return failed(&e),
    };
    drop(vm);
    for schema in guards.output_schema.iter().chain(&client_schema) {
        if let Err(e) = schema.check(&value) {
            return failed(&e);
        }
    }
    match to_json(&value) {
        Ok((json, text)) => Outcome::Done {
            structured: json!({ "value": json }),
            text,
        },
        Err(e) => failed(&e),
    }
}

/// The value as JSON, and its JSON text with JavaScript's number spelling
/// (as `xpr eval` prints it). A regex or a function has no JSON form.
fn to_json(value: &Value) -> Result<(Json, String), xpr::Error> {
    Ok((value.to_json()?, xpr::to_json_string(value)?))
}

/// `check`: [`Engine::check`] under the server's allowlist and expected
/// type, reported as `xpr check --json` prints it.
pub fn check(engine: &Engine, guards: &Guards, args: &Check) -> Outcome {
    let report = engine.check(&args.expression, args.known.as_deref(), guards.expect);
    Outcome::report(report.to_json())
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
