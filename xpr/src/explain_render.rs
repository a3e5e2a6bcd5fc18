//! An [`Explanation`] as text (its `Display`) and as JSON
//! ([`Explanation::to_json`]).

use std::fmt;

use serde_json::{Map as JsonMap, Value as Json, json};
use xpr_vm::format::to_json_string;
use xpr_vm::{Error, Value};

use crate::explain::{Explanation, Outcome, Role, Step};

/// Values longer than this many characters are cut in the text form.
const SHOWN_CHARS: usize = 60;

impl fmt::Display for Explanation {
    /// One line a step, indented two spaces a level: `TEXT -> VALUE`,
    /// `TEXT -> error: MESSAGE at position N` or `TEXT (not evaluated)`,
    /// then `[decides]`, `[condition]`, `[binding]`, `[2 of 5 items pass]`.
    ///
    /// ```text
    /// age >= 18 && country == "FR" -> false
    ///   age >= 18 -> true
    ///     age -> 20
    ///   country == "FR" -> false  [decides]
    ///     country -> "DE"
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_step(f, &self.root, 0)
    }
}

fn write_step(f: &mut fmt::Formatter<'_>, step: &Step, level: usize) -> fmt::Result {
    write!(
        f,
        "{:width$}{}",
        "",
        one_line(&step.text),
        width = 2 * level
    )?;
    match &step.outcome {
        Outcome::Value(v) => write!(f, " -> {}", shown(v))?,
        Outcome::Error(e) => write!(f, " -> error: {e}")?,
        Outcome::NotEvaluated => f.write_str(" (not evaluated)")?,
    }
    let mut notes = Vec::new();
    if let Some(role) = match step.role {
        Role::Decides => Some("decides"),
        Role::Condition => Some("condition"),
        Role::Binding => Some("binding"),
        _ => None,
    } {
        notes.push(role.to_string());
    }
    if let Some(items) = step.items {
        let noun = if items.of == 1 { "item" } else { "items" };
        let verb = if items.passed == 1 { "passes" } else { "pass" };
        notes.push(format!("{} of {} {noun} {verb}", items.passed, items.of));
    }
    if !notes.is_empty() {
        write!(f, "  [{}]", notes.join(", "))?;
    }
    f.write_str("\n")?;
    for child in &step.children {
        write_step(f, child, level + 1)?;
    }
    Ok(())
}

/// The source text on one line, runs of white space made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A value as JSON text, cut to [`SHOWN_CHARS`] characters.
fn shown(v: &Value) -> String {
    let text = to_json_string(v).unwrap_or_else(|_| format!("<{}>", v.type_name()));
    if text.chars().count() <= SHOWN_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{cut}...")
}

impl Explanation {
    /// The explanation as JSON: `{"result": VALUE}` or `{"error": ERROR}`,
    /// and `"explanation"`, the root step. A step is `{"text", "span":
    /// {"start", "end"}, "role", "evaluated"}`, then `"value"` or
    /// `"error"` (`{"kind", "message", "position"}`), `"passed"` and
    /// `"of"` for a predicate's items, and `"children"` when it has any.
    /// A value JSON cannot hold (a function, a regex) is given as a
    /// string naming its type.
    pub fn to_json(&self) -> Json {
        let mut top = JsonMap::new();
        match &self.result {
            Ok(v) => top.insert("result".into(), value_json(v)),
            Err(e) => top.insert("error".into(), error_json(e)),
        };
        top.insert("explanation".into(), step_json(&self.root));
        Json::Object(top)
    }
}

fn step_json(step: &Step) -> Json {
    let mut o = JsonMap::new();
    o.insert("text".into(), Json::from(step.text.as_str()));
    o.insert(
        "span".into(),
        json!({"start": step.span.start, "end": step.span.end}),
    );
    o.insert("role".into(), Json::from(step.role.name()));
    o.insert(
        "evaluated".into(),
        Json::from(!matches!(step.outcome, Outcome::NotEvaluated)),
    );
    match &step.outcome {
        Outcome::Value(v) => {
            o.insert("value".into(), value_json(v));
        }
        Outcome::Error(e) => {
            o.insert("error".into(), error_json(e));
        }
        Outcome::NotEvaluated => {}
    }
    if let Some(items) = step.items {
        o.insert("passed".into(), Json::from(items.passed));
        o.insert("of".into(), Json::from(items.of));
    }
    if !step.children.is_empty() {
        o.insert(
            "children".into(),
            Json::Array(step.children.iter().map(step_json).collect()),
        );
    }
    Json::Object(o)
}

fn value_json(v: &Value) -> Json {
    to_json_string(v)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| Json::from(format!("<{}>", v.type_name())))
}

fn error_json(e: &Error) -> Json {
    json!({
        "kind": e.kind().name(),
        "message": e.message(),
        "position": e.position(),
    })
}
