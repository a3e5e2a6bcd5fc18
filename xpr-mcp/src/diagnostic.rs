//! The diagnostic object both tools return for a failed expression: the
//! fields of `xpr check --json`'s `error` (same names, same meanings) and
//! the hint as its own field.
//!
//! ```json
//! {"kind": "parse", "message": "Unexpected end of expression",
//!  "text": "Unexpected end of expression at position 3", "position": 3,
//!  "span": {"start": 3, "end": 3}, "expected": ["(", "[", "identifier", ...],
//!  "hint": null}
//! ```
//!
//! - `kind`: the error kind's stable name (`parse`, `type`, `reference`,
//!   `fuel`, `memory`, `timeout`, `depth`, `length`, ...), or `arguments`
//!   for tool arguments the server cannot use (no expression, a context
//!   that is not an object), or `internal` for a call that stopped
//!   unexpectedly (a bug; the server keeps serving);
//! - `message`: the message without the position; `text`: the spec's
//!   text, `MESSAGE at position N` once a position is known;
//! - `position` and `span` (`start`, `end`): character offsets into the
//!   expression, `null` when unknown;
//! - `expected`: the tokens the parser expected where a parse failed,
//!   empty for any other kind;
//! - `hint`: what to write instead, when the message carries one, else `null`.

use serde_json::{Value as Json, json};
use xpr::{Engine, Error, ErrorKind};

/// The diagnostic of `error`, raised by `source` compiled or run by `engine`.
pub fn of_error(engine: &Engine, source: &str, error: &Error) -> Json {
    let expected = if error.kind() == ErrorKind::Parse {
        engine.expected_tokens(source)
    } else {
        Vec::new()
    };
    let span = error
        .span()
        .map(|s| json!({"start": s.start, "end": s.end}));
    json!({
        "kind": error.kind().name(),
        "message": error.message(),
        "text": error.to_string(),
        "position": error.position(),
        "span": span,
        "expected": expected,
        "hint": hint(error),
    })
}

/// The diagnostic of tool arguments the server cannot use: kind `arguments`.
pub fn of_arguments(message: &str) -> Json {
    json!({
        "kind": "arguments",
        "message": message,
        "text": message,
        "position": null,
        "span": null,
        "expected": [],
        "hint": null,
    })
}

/// The diagnostic of a call the server could not finish (a bug: a panic
/// caught on the worker): kind `internal`. The server keeps serving.
pub fn internal() -> Json {
    let message = "internal error: the call stopped unexpectedly; the server keeps serving";
    json!({
        "kind": "internal",
        "message": message,
        "text": message,
        "position": null,
        "span": null,
        "expected": [],
        "hint": null,
    })
}

/// The error's hint: [`Error::hint`], or else the message's closing
/// parenthesis when that says what to write (`... (did you mean
/// 'filter'?)`, `... (an object property needs a value: write {name:
/// name})`), for the errors whose producers write the hint into the
/// message without [`Error::with_hint`] (all of them, when this was
/// written). Once every producer attaches its hint, this is `error.hint()`.
fn hint(error: &Error) -> Option<&str> {
    error.hint().or_else(|| hint_in_message(error.message()))
}

/// The closing suggestion of a message, if it has one.
fn hint_in_message(message: &str) -> Option<&str> {
    let inner = message.strip_suffix(')')?;
    let (_, inner) = inner.rsplit_once(" (")?;
    (inner.starts_with("did you mean ") || inner.contains("write ")).then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_has_its_span_and_the_expected_tokens() {
        let engine = Engine::new();
        let source = "1 +";
        let e = engine.compile(source).expect_err("does not parse");
        let d = of_error(&engine, source, &e);
        assert_eq!(d["kind"], "parse");
        assert_eq!(d["message"], e.message());
        assert_eq!(d["text"], e.to_string());
        assert_eq!(d["position"], 3);
        assert_eq!(d["span"], json!({"start": 3, "end": 3}));
        let expected = d["expected"].as_array().expect("a list");
        assert!(!expected.is_empty());
        assert_eq!(
            expected.len(),
            engine.expected_tokens(source).len(),
            "the library's list, whole"
        );
        assert_eq!(d["hint"], Json::Null);
    }

    #[test]
    fn a_run_error_expects_no_tokens() {
        let engine = Engine::new();
        let e = engine.eval("1 / 0", &()).expect_err("fails");
        let d = of_error(&engine, "1 / 0", &e);
        assert_eq!(d["kind"], "arithmetic");
        assert_eq!(d["expected"], json!([]));
        assert!(d["span"].is_object());
    }

    #[test]
    fn a_did_you_mean_becomes_the_hint() {
        let engine = Engine::new();
        let source = "[1, 2].filtr(x => x > 1)";
        let e = engine.eval(source, &()).expect_err("no such method");
        let d = of_error(&engine, source, &e);
        assert_eq!(d["hint"], "did you mean 'filter'?");
        assert!(d["message"].as_str().is_some_and(|m| m.contains("filtr")));
    }

    #[test]
    fn the_librarys_hint_comes_first() {
        let e = Error::new(ErrorKind::Parse, "Unexpected token 'and'")
            .with_hint("XPR writes && for and");
        let d = of_error(&Engine::new(), "a and b", &e);
        assert_eq!(d["hint"], "XPR writes && for and");
        assert_eq!(
            d["message"],
            "Unexpected token 'and' (XPR writes && for and)"
        );
    }

    #[test]
    fn only_a_closing_suggestion_is_a_hint() {
        assert_eq!(
            hint_in_message("Unknown function 'lenght' (did you mean 'length'?)"),
            Some("did you mean 'length'?")
        );
        assert_eq!(
            hint_in_message(
                "Unexpected token '}' (an object property needs a value: write {name: name})"
            ),
            Some("an object property needs a value: write {name: name}")
        );
        assert_eq!(hint_in_message("Type error: cannot add (a) and (b)"), None);
        assert_eq!(hint_in_message("Fuel limit exceeded"), None);
    }

    #[test]
    fn bad_arguments_have_the_same_fields() {
        let d = of_arguments("'expression' must be a string");
        let a = of_error(
            &Engine::new(),
            "1 +",
            &Engine::new().compile("1 +").expect_err("bad"),
        );
        let keys = |v: &Json| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(&d), keys(&a));
        assert_eq!(d["kind"], "arguments");
    }
}
