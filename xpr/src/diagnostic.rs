//! Rendering an error under its source: `error: MESSAGE`, the expression,
//! and a caret under the error position.

use crate::{Error, ErrorKind, Span};

/// Renders `error` for a terminal: the first line `error: MESSAGE` (the
/// message includes ` at position N`), then the source line holding the
/// position and a caret (`^`, or `^~~~` over the span) beneath it.
///
/// Positions are character offsets; the caret is placed by counting
/// characters, so it lines up under non-ASCII text too (for characters of
/// single display width).
pub fn render_error(error: &Error, source: &str) -> String {
    render("error", &error.to_string(), error.span(), source)
}

/// `LEVEL: TEXT`, then the source line holding `span`'s start with a caret
/// under the span.
fn render(level: &str, text: &str, span: Option<Span>, source: &str) -> String {
    let mut out = format!("{level}: {text}\n");
    let Some(span) = span else {
        return out;
    };
    let start = span.start as usize;
    // Find the line holding `start`, counting in characters.
    let mut line_start = 0usize;
    let mut offset = 0usize;
    let mut line = "";
    for l in source.split('\n') {
        let len = l.chars().count();
        line = l;
        if start <= offset + len {
            line_start = offset;
            break;
        }
        offset += len + 1;
        line_start = offset;
    }
    let col = start.saturating_sub(line_start);
    let width = (span.end.saturating_sub(span.start) as usize)
        .clamp(1, line.chars().count().saturating_sub(col).max(1));
    out.push_str("  ");
    out.push_str(line);
    out.push_str("\n  ");
    out.extend(std::iter::repeat_n(' ', col));
    out.push('^');
    out.extend(std::iter::repeat_n('~', width - 1));
    out.push('\n');
    out
}

/// How serious a [`Diagnostic`] is: an error stops the expression from
/// being used (`valid` is false), a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The expression cannot be used as it is.
    Error,
    /// Worth a look (a free variable that is not a known field, a method
    /// name close to a built-in's), but the expression can run.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem with an expression, in the one shape every tool gives it
/// (`xpr check --json`, `xpr batch`, the MCP server): for a person, and for
/// an LLM that repairs the expression and tries again.
///
/// JSON ([`Diagnostic::to_json`]), keys in this order:
/// `{"kind", "message", "text", "position", "span": {"start", "end"},
/// "expected": [...], "hint", "severity"}`; `position` and `span` are
/// `null` when unknown, `hint` is `null` when there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    /// An [`ErrorKind`] name (`"parse"`, `"type"`, `"access"`, ...), or a
    /// tool's own kind (`"unknown_field"`, `"unknown_method"`, `"input"`).
    pub kind: String,
    /// The message without ` at position N`, the hint included as
    /// ` (HINT)` (as [`Error::message`]).
    pub message: String,
    /// The full text: the message, then ` at position N` when the position
    /// is known (the error's `Display`, the spec's text).
    pub text: String,
    /// Where, in characters (start inclusive, end exclusive), when known.
    pub span: Option<Span>,
    /// For a parse error, the tokens the parser would have accepted where
    /// it failed (`["number", "identifier", "(", ...]`); empty otherwise.
    pub expected: Vec<String>,
    /// What to write instead, on its own (also at the end of `message`).
    pub hint: Option<String>,
    /// Error or warning.
    pub severity: Severity,
}

impl Diagnostic {
    /// A diagnostic of `kind` with `message` (its `text` too), no span, no
    /// expected tokens, no hint: for problems that are not an [`Error`],
    /// such as a tool's warnings or an input line that is no request.
    pub fn new(kind: impl Into<String>, message: impl Into<String>, severity: Severity) -> Self {
        let message = message.into();
        Diagnostic {
            kind: kind.into(),
            text: message.clone(),
            message,
            span: None,
            expected: Vec::new(),
            hint: None,
            severity,
        }
    }

    /// The diagnostic of `error` in `source` (the expression it is about),
    /// severity error. For a parse error the source is parsed again for
    /// the expected tokens, under the default AST depth limit and no length
    /// limit; [`crate::Engine::diagnose`] parses under the engine's limits,
    /// as its compile did.
    pub fn from_error(error: &Error, source: &str) -> Self {
        let options = xpr_syntax::ParseOptions {
            max_length: None,
            ..xpr_syntax::ParseOptions::default()
        };
        Diagnostic::with_options(error, source, &options)
    }

    /// [`Diagnostic::from_error`] with the parse options of the compile.
    pub(crate) fn with_options(
        error: &Error,
        source: &str,
        options: &xpr_syntax::ParseOptions,
    ) -> Self {
        let expected = if error.kind() == ErrorKind::Parse {
            match xpr_syntax::parse_with(source, options) {
                Ok(_) => Vec::new(),
                Err(e) => e.expected,
            }
        } else {
            Vec::new()
        };
        Diagnostic::with_expected(error, expected)
    }

    /// The diagnostic of `error` with the `expected` tokens already known
    /// (a later error of [`crate::Engine::parse_errors`]), severity error.
    pub(crate) fn with_expected(error: &Error, expected: Vec<String>) -> Self {
        Diagnostic {
            kind: error.kind().name().to_string(),
            message: error.message().to_string(),
            text: error.to_string(),
            span: error.span(),
            expected,
            hint: error.hint().map(str::to_string),
            severity: Severity::Error,
        }
    }

    /// Renders the diagnostic for a terminal as [`render_error`] renders
    /// an error: `error: TEXT` (or `warning: TEXT`), then the source line
    /// and a caret under the span, when there is one.
    pub fn render(&self, source: &str) -> String {
        render(self.severity.name(), &self.text, self.span, source)
    }

    /// The start of the span: the spec's `position`.
    pub fn position(&self) -> Option<u32> {
        self.span.map(|s| s.start)
    }

    /// The JSON object (see the type's documentation for its keys).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Value as Json, json};
        let span = match self.span {
            Some(s) => json!({"start": s.start, "end": s.end}),
            None => Json::Null,
        };
        json!({
            "kind": self.kind,
            "message": self.message,
            "text": self.text,
            "position": self.position(),
            "span": span,
            "expected": self.expected,
            "hint": self.hint,
            "severity": self.severity.name(),
        })
    }
}
