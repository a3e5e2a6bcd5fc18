//! Run-time (and, through the facade, all) errors: `{ kind, message, span }`.

use std::fmt;

/// A half-open range of **character** offsets into the expression source.
///
/// The VM never sees the source: the compiler records one `Span` per
/// instruction and the VM attaches it to errors raised there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First character, 0-indexed.
    pub start: u32,
    /// One past the last character.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` (character offsets).
    pub const fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }
}

/// What went wrong, for programs that branch on errors. The message carries
/// the human-readable detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The source is not XPR: `1 +`, `let x; x`, `"\q"`.
    Parse,
    /// An operation on the wrong type: `"5" + 1`, `42.map(x => x)`.
    Type,
    /// An unknown name: `nope`, `nope(1)`.
    Reference,
    /// A call with the wrong number of arguments: `abs(1, 2)`.
    Arity,
    /// Division by zero or a non-finite result: `1 / 0`, `2 ** 2000`, `sqrt(-1)`.
    Arithmetic,
    /// A restricted property name: `o.__proto__`, `o["constructor"]`; or
    /// a function or method the engine's [`crate::Capabilities`] do not
    /// allow (`Access denied: function 'now' is not allowed`).
    Access,
    /// A value that is the right type but not acceptable: `range(0, 5, 0)`,
    /// `[].avg()`, `[...null]`, `fromEntries([1])`, `let [a] = {}; a`.
    Value,
    /// An invalid regex pattern or one over the size limits.
    Regex,
    /// An invalid date string, format, unit, or a date out of range.
    Date,
    /// A host function failed or panicked.
    Host,
    /// The fuel budget is spent.
    Fuel,
    /// The memory budget would be exceeded.
    Memory,
    /// Call depth, value nesting depth or AST depth exceeded.
    Depth,
    /// The source is longer than the length limit.
    Length,
    /// The CPU-time timeout was spent, or the wall-clock ceiling passed.
    Timeout,
    /// The host cancelled the run.
    Cancelled,
    /// The result does not conform to the output schema the host set
    /// (`xpr-schema`; `--output-schema` on the command line), or that
    /// schema is itself invalid. The message names the JSON pointer of the
    /// failing part.
    Schema,
}

impl ErrorKind {
    /// A stable lower-case name: `"parse"`, `"type"`, `"fuel"`, ...
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Parse => "parse",
            ErrorKind::Type => "type",
            ErrorKind::Reference => "reference",
            ErrorKind::Arity => "arity",
            ErrorKind::Arithmetic => "arithmetic",
            ErrorKind::Access => "access",
            ErrorKind::Value => "value",
            ErrorKind::Regex => "regex",
            ErrorKind::Date => "date",
            ErrorKind::Host => "host",
            ErrorKind::Fuel => "fuel",
            ErrorKind::Memory => "memory",
            ErrorKind::Depth => "depth",
            ErrorKind::Length => "length",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Schema => "schema",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    kind: ErrorKind,
    message: String,
    span: Option<Span>,
    hint: Option<Box<str>>,
}

/// An XPR error. `Display` is the spec's text: `MESSAGE at position N`
/// (N a 0-indexed character offset) once a position is attached.
///
/// Boxed so that `Result<Value, Error>` stays small on the hot path.
/// `Debug` shows the kind and the spec's text (what `fn main() -> Result<_, Error>`
/// prints), not the internals.
#[derive(Clone, PartialEq)]
pub struct Error(Box<Inner>);

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} error: {self}", self.0.kind.name())
    }
}

impl Error {
    /// An error without a position yet; the VM attaches the position of the
    /// instruction that raised it (see [`Error::or_at`]).
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            span: None,
            hint: None,
        }))
    }

    /// `Type error: {detail}` of kind [`ErrorKind::Type`].
    #[cold]
    pub fn type_error(detail: impl fmt::Display) -> Self {
        Error::new(ErrorKind::Type, format!("Type error: {detail}"))
    }

    /// Sets the span, replacing any.
    pub fn at(mut self, span: Span) -> Self {
        self.0.span = Some(span);
        self
    }

    /// Sets the span unless one is already set (errors raised inside a
    /// callback keep their own, innermost position).
    pub fn or_at(mut self, span: Span) -> Self {
        if self.0.span.is_none() {
            self.0.span = Some(span);
        }
        self
    }

    /// Attaches a hint: what to write instead, for a person or an LLM
    /// repairing the expression (`write .upper()`, `XPR writes && for
    /// and`). The message gains it as ` (HINT)`, so every place that shows
    /// the message shows the hint; [`Error::hint`] gives it alone for
    /// structured output. A second hint replaces the first in both.
    #[cold]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        let hint: Box<str> = hint.into().into_boxed_str();
        if let Some(old) = self.0.hint.take() {
            let suffix = format!(" ({old})");
            if let Some(base) = self.0.message.strip_suffix(&suffix) {
                self.0.message.truncate(base.len());
            }
        }
        self.0.message = format!("{} ({hint})", self.0.message);
        self.0.hint = Some(hint);
        self
    }

    /// The hint attached with [`Error::with_hint`], without the message.
    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// The kind.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The message without the ` at position N` suffix.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The source range, in characters, when known.
    pub fn span(&self) -> Option<Span> {
        self.0.span
    }

    /// The spec's `position`: the start of the span, in characters.
    pub fn position(&self) -> Option<u32> {
        self.0.span.map(|s| s.start)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.span {
            Some(span) => write!(f, "{} at position {}", self.0.message, span.start),
            None => f.write_str(&self.0.message),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_appends_position() {
        let e = Error::new(ErrorKind::Arithmetic, "Division by zero").at(Span::new(2, 3));
        assert_eq!(e.to_string(), "Division by zero at position 2");
        let e = e.or_at(Span::new(9, 9));
        assert_eq!(e.position(), Some(2));
    }

    #[test]
    fn debug_shows_kind_and_text() {
        let e = Error::new(ErrorKind::Reference, "Unknown function 'f'").at(Span::new(0, 1));
        assert_eq!(
            format!("{e:?}"),
            "reference error: Unknown function 'f' at position 0"
        );
    }

    #[test]
    fn a_hint_is_in_the_message_and_apart() {
        let e = Error::new(ErrorKind::Parse, "Unexpected token 'and'")
            .with_hint("XPR writes && for and")
            .at(Span::new(2, 5));
        assert_eq!(
            e.to_string(),
            "Unexpected token 'and' (XPR writes && for and) at position 2"
        );
        assert_eq!(e.hint(), Some("XPR writes && for and"));
        let e = e.with_hint("write &&");
        assert_eq!(e.message(), "Unexpected token 'and' (write &&)");
        assert_eq!(e.hint(), Some("write &&"));
        assert_eq!(Error::new(ErrorKind::Type, "x").hint(), None);
    }

    #[test]
    fn result_stays_small() {
        assert!(size_of::<Error>() == size_of::<usize>());
    }
}
