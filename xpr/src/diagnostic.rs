//! Rendering an error under its source: `error: MESSAGE`, the expression,
//! and a caret under the error position.

use crate::Error;

/// Renders `error` for a terminal: the first line `error: MESSAGE` (the
/// message includes ` at position N`), then the source line holding the
/// position and a caret (`^`, or `^~~~` over the span) beneath it.
///
/// Positions are character offsets; the caret is placed by counting
/// characters, so it lines up under non-ASCII text too (for characters of
/// single display width).
pub fn render_error(error: &Error, source: &str) -> String {
    let mut out = format!("error: {error}\n");
    let Some(span) = error.span() else {
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
