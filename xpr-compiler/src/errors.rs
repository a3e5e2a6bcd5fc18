//! Compile errors, at a span of the source, and the conversion of spans.

use xpr_syntax::ast;
use xpr_vm::{Error, ErrorKind, Span};

use crate::CompileEnv;

pub(crate) fn span(s: ast::Span) -> Span {
    Span::new(s.start, s.end)
}

#[cold]
pub(crate) fn error_at(kind: ErrorKind, message: String, at: ast::Span) -> Error {
    Error::new(kind, message).at(span(at))
}

#[cold]
pub(crate) fn restricted(name: &str, at: ast::Span) -> Error {
    error_at(
        ErrorKind::Access,
        format!("Access denied: '{name}' is a restricted property"),
        at,
    )
}

/// `Regex size limit exceeded: ...` at a regex literal that would take the
/// program's regex literals past [`CompileEnv::max_regex_bytes`].
#[cold]
pub(crate) fn regex_budget(env: &CompileEnv, at: ast::Span) -> Error {
    let limit = env.max_regex_bytes.unwrap_or(u64::MAX);
    error_at(
        ErrorKind::Regex,
        format!(
            "Regex size limit exceeded: the regex literals of the expression compile to more than {limit} bytes"
        ),
        at,
    )
}

pub(crate) fn too_many(at: ast::Span) -> Error {
    error_at(
        ErrorKind::Length,
        "Expression too large to compile".into(),
        at,
    )
}
