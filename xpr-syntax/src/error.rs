//! Parse errors: what went wrong, where (character offsets), and what the
//! parser would have accepted instead (spec: "Error Model", "Limits").

use crate::ast::Span;

/// Which rule a [`ParseError`] broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// The text is not XPR v0.5: an unexpected token or character, an
    /// unterminated string, template or regex, a bad escape or number, a
    /// duplicate binding. Example: `1 +` ("Unexpected end of expression").
    Syntax,
    /// The source is longer than [`crate::ParseOptions::max_length`]
    /// characters. Example: 10,001 characters under the default limit.
    Length,
    /// The AST would be deeper than [`crate::ParseOptions::max_depth`].
    /// Example: a chain of 60 `1 + 1 + ...` terms under the default limit of 50.
    Depth,
}

/// A positioned parse error (spec "Error Model").
///
/// `Display` prints the spec's form, `"{message} at position {span.start}"`,
/// for example `Unexpected token '@' at position 6`, with the hint, when
/// there is one, in parentheses before the position:
/// `Unexpected token 'and' (XPR writes `&&` for `and`) at position 2`.
/// `message` itself carries neither. Positions are 0-indexed **character**
/// offsets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{} at position {}", .message, Hinted(.hint.as_deref()), .span.start)]
pub struct ParseError {
    /// Which rule was broken.
    pub kind: ParseErrorKind,
    /// The human-readable description, without the position suffix, e.g.
    /// `Unexpected token ')'`, `Unterminated string`,
    /// `Expected '=' after let binding name`, `duplicate binding 'a'`,
    /// `Expression depth limit exceeded`.
    pub message: String,
    /// The offending range, in characters; `start` is the reported position.
    pub span: Span,
    /// For syntax errors found by the grammar: the tokens the parser would
    /// have accepted at that point, as source text (`")"`, `","`) or a
    /// category (`identifier`, `number`, `string`, `template`, `regex`).
    /// Empty when not applicable.
    pub expected: Vec<String>,
    /// What to write instead, when the error is a construct of another
    /// language (`XPR writes `&&` for `and``, see [`crate::foreign`]) or
    /// another known slip (`{id}` for `{id: id}`); `None` otherwise.
    pub hint: Option<String>,
}

/// ` (HINT)`, or nothing.
struct Hinted<'a>(Option<&'a str>);

impl std::fmt::Display for Hinted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(h) => write!(f, " ({h})"),
            None => Ok(()),
        }
    }
}

impl ParseError {
    /// A syntax error with no expected-token list.
    pub(crate) fn syntax(message: impl Into<String>, span: Span) -> Self {
        ParseError {
            kind: ParseErrorKind::Syntax,
            message: message.into(),
            span,
            expected: Vec::new(),
            hint: None,
        }
    }

    /// The depth limit error at `span`.
    pub(crate) fn depth(span: Span) -> Self {
        ParseError {
            kind: ParseErrorKind::Depth,
            message: "Expression depth limit exceeded".to_string(),
            span,
            expected: Vec::new(),
            hint: None,
        }
    }

    /// The length limit error for a source of `len` characters over `limit`.
    pub(crate) fn length(len: usize, limit: usize) -> Self {
        let at = u32::try_from(limit).unwrap_or(u32::MAX);
        ParseError {
            kind: ParseErrorKind::Length,
            message: format!(
                "Expression length limit exceeded: {len} characters, the limit is {limit}"
            ),
            span: Span::new(at, at),
            expected: Vec::new(),
            hint: None,
        }
    }
}
