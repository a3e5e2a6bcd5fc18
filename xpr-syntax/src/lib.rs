//! XPR v0.5 syntax: a lexer and a LALRPOP grammar turning source text into
//! an [`ast::Expr`], and a printer turning an AST back into source.
//!
//! ```
//! use xpr_syntax::{parse, print};
//!
//! let ast = parse("items.filter(x => x.price > 50) |> count()").unwrap();
//! assert_eq!(print(&ast), "items.filter(x => x.price > 50) |> count()");
//! assert_eq!(parse("1 +").unwrap_err().to_string(), "Unexpected end of expression at position 3");
//! ```
//!
//! # Untrusted input
//!
//! Any text may be parsed: every failure is a [`ParseError`] with a message
//! and a character position, never a panic. Work is bounded: the length
//! limit is checked before anything else (counting characters only when the
//! byte length exceeds it), lexing is linear and yields at most one token
//! per character, and the depth limit is enforced while lexing (bracket and
//! prefix-operator nesting) and while parsing (every node's depth is known
//! when it is built), so no tree deeper than the limit is ever built, and
//! the parser itself (LALRPOP's table-driven LR) never recurses.

pub mod ast;
mod error;
pub mod foreign;
pub mod lexer;
mod nodes;
mod printer;

/// The parser LALRPOP generates from `grammar.lalrpop`, committed as
/// `grammar_generated.rs` so that building xpr never compiles LALRPOP
/// (regenerate with `cargo run --manifest-path
/// xpr-syntax/grammar-gen/Cargo.toml`; a test checks it is up to date).
#[rustfmt::skip]
#[allow(
    clippy::all,
    clippy::pedantic,
    missing_docs,
    unused_parens,
    dead_code,
    clippy::extra_unused_lifetimes,
    clippy::needless_lifetimes,
    clippy::let_unit_value,
    clippy::just_underscores_and_digits
)]
mod grammar {
    include!("grammar_generated.rs");

    /// LALRPOP moves whole symbols on every shift and reduction (about a
    /// dozen unit reductions per operand), so a large node type makes
    /// parsing a string of copies: expressions travel boxed (see `nodes`).
    #[test]
    fn parser_symbols_stay_small() {
        assert!(std::mem::size_of::<__parse__Expr::__Symbol>() <= 40);
    }
}

use std::cell::Cell;

pub use ast::Span;
pub use error::{ParseError, ParseErrorKind};
pub use printer::print;

use lexer::{Lexed, Tok};

/// The greatest nesting depth the parser ever accepts, whatever
/// [`ParseOptions::max_depth`] says (including `None`). It keeps every
/// recursive walk of an AST (printing, compiling, dropping) within a small
/// stack.
pub const DEPTH_CEILING: u32 = 1_000;

/// Limits applied while parsing (spec "Limits").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// Maximum source length in **characters**; `None` means unlimited.
    /// Default `Some(10_000)`. Longer sources fail with
    /// [`ParseErrorKind::Length`] before any lexing.
    pub max_length: Option<usize>,
    /// Maximum AST depth: the root is depth 1, each nested node adds 1,
    /// parentheses and the `OptionalChain` wrapper add none. Default
    /// `Some(50)`; `None` means [`DEPTH_CEILING`], which also caps larger
    /// values. Deeper expressions fail with [`ParseErrorKind::Depth`]
    /// (`Expression depth limit exceeded`). Bracket nesting (`(`, `[`, `{`,
    /// `${`) deeper than the limit is reported the same way.
    pub max_depth: Option<u32>,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_length: Some(10_000),
            max_depth: Some(50),
        }
    }
}

/// Parses `src` with the default [`ParseOptions`] (10,000 characters,
/// depth 50).
///
/// # Errors
/// A [`ParseError`] for text that is not an XPR v0.5 expression or breaks a
/// limit; see [`parse_with`].
pub fn parse(src: &str) -> Result<ast::Expr, ParseError> {
    parse_with(src, &ParseOptions::default())
}

/// Parses `src` into an AST under `opts` (spec "EBNF Grammar", "Limits").
///
/// # Errors
/// - [`ParseErrorKind::Length`] when `src` has more than `max_length`
///   characters (position: the limit);
/// - [`ParseErrorKind::Depth`] when the AST or the bracket nesting is deeper
///   than `max_depth` (`Expression depth limit exceeded`);
/// - [`ParseErrorKind::Syntax`] otherwise, with the spec's messages:
///   `Unexpected token 'X'`, `Unexpected end of expression`,
///   `Unmatched '('`, `Unterminated string`,
///   `Expected '=' after let binding name`, `Expected expression after ';'`,
///   `duplicate binding 'a'`, `Invalid escape sequence '\q'`,
///   `Number out of range: 1e400`, ... Positions are character offsets.
pub fn parse_with(src: &str, opts: &ParseOptions) -> Result<ast::Expr, ParseError> {
    match parse_plain(src, opts) {
        Ok(e) => Ok(e),
        Err(first) => Err(Diagnosis::of(src, opts, first).first),
    }
}

/// The most syntax errors [`parse_errors`] reports.
pub const MAX_ERRORS: usize = 10;

/// Every syntax error of `src` that one pass can tell apart, in source
/// order, at most [`MAX_ERRORS`]; empty when `src` parses. The first is the
/// error [`parse_with`] returns. The others are what remains once each
/// construct of another language recognised before them is replaced by
/// the XPR it stands for (see [`foreign`]): `a and b or c` gives the
/// errors at `and` and at `or`, each with its hint. Recognised constructs
/// that cannot be replaced (`CASE WHEN ...`) end the list, as anything
/// after them might be an error only by accident.
pub fn parse_errors(src: &str, opts: &ParseOptions) -> Vec<ParseError> {
    match parse_plain(src, opts) {
        Ok(_) => Vec::new(),
        Err(first) => Diagnosis::of(src, opts, first).all(src, opts),
    }
}

fn max_depth(opts: &ParseOptions) -> u32 {
    opts.max_depth.unwrap_or(DEPTH_CEILING).min(DEPTH_CEILING)
}

/// The parse as the spec defines it, without hints.
fn parse_plain(src: &str, opts: &ParseOptions) -> Result<ast::Expr, ParseError> {
    let limit = opts.max_length.unwrap_or(usize::MAX);
    if src.len() > limit || src.len() > u32::MAX as usize {
        let chars = src.chars().count();
        if chars > limit {
            return Err(ParseError::length(chars, limit));
        }
        if chars > u32::MAX as usize {
            return Err(ParseError::length(chars, u32::MAX as usize));
        }
    }
    let mut lexed = lexer::tokenize(src, max_depth(opts));
    // The parser takes the tokens (no copy of their strings); a failed
    // parse lexes again for the context its error message needs.
    let tokens = std::mem::take(&mut lexed.tokens);
    let error = lexed.error.take();
    drop(lexed);
    parse_owned(tokens.into_iter(), error, opts)
        .map_err(|e| convert(e, src, &lexer::tokenize(src, max_depth(opts))))
}

/// Parses `tokens`, then the lexical error that ended them, if any.
fn parse_owned(
    tokens: impl Iterator<Item = lexer::Spanned>,
    error: Option<ParseError>,
    opts: &ParseOptions,
) -> Result<ast::Expr, lalrpop_util::ParseError<u32, Tok, ParseError>> {
    let next = Cell::new(0);
    let feed = Feed {
        tokens,
        error,
        next: &next,
    };
    grammar::ExprParser::new()
        .parse(max_depth(opts), &next, feed)
        .map(|n| *n.e)
}

/// The parser's input: the tokens, then the lexical error that ended them;
/// as each is read, `next` is set to its strength as a binary operator (0
/// for any other token and at the end), which the grammar's operator runs
/// read as the lookahead's (`nodes::Seq`).
struct Feed<'n, I> {
    tokens: I,
    error: Option<ParseError>,
    next: &'n Cell<u8>,
}

impl<I: Iterator<Item = lexer::Spanned>> Iterator for Feed<'_, I> {
    type Item = Result<lexer::Spanned, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.tokens.next() {
            Some(t) => {
                self.next.set(nodes::token_precedence(&t.1));
                Some(Ok(t))
            }
            None => {
                self.next.set(0);
                self.error.take().map(Err)
            }
        }
    }
}

fn parse_tokens(
    src: &str,
    lexed: &Lexed,
    tokens: impl Iterator<Item = lexer::Spanned>,
    opts: &ParseOptions,
) -> Result<ast::Expr, ParseError> {
    parse_owned(tokens, lexed.error.clone(), opts).map_err(|e| convert(e, src, lexed))
}

/// A failed parse with the constructs of other languages in the source.
struct Diagnosis {
    first: ParseError,
    findings: Vec<foreign::Finding>,
    lexed: Option<Lexed>,
    repaired: Vec<lexer::Spanned>,
}

impl Diagnosis {
    /// Scans `src` for constructs of other languages and gives `first`
    /// the hint of the one it is at. Limit errors get no hint.
    fn of(src: &str, opts: &ParseOptions, mut first: ParseError) -> Diagnosis {
        if first.kind != ParseErrorKind::Syntax {
            return Diagnosis {
                first,
                findings: Vec::new(),
                lexed: None,
                repaired: Vec::new(),
            };
        }
        let lexed = lexer::tokenize_mode(src, max_depth(opts), true);
        let (findings, repaired) = foreign::scan(&lexed);
        if let Some(f) = findings.iter().find(|f| f.explains(first.span.start)) {
            first.hint = Some(f.hint());
        }
        Diagnosis {
            first,
            findings,
            lexed: Some(lexed),
            repaired,
        }
    }

    /// The first error, then the constructs found after it and the error
    /// that remains once they are replaced, up to the first construct that
    /// cannot be.
    fn all(self, src: &str, opts: &ParseOptions) -> Vec<ParseError> {
        let Diagnosis {
            first,
            findings,
            lexed,
            repaired,
        } = self;
        let at = first.span.start;
        let mut out = vec![first];
        let Some(lexed) = lexed else {
            return out;
        };
        let end = findings
            .iter()
            .find(|f| f.stop)
            .map_or(u32::MAX, |f| f.at.start);
        for f in &findings {
            if out.len() >= MAX_ERRORS {
                break;
            }
            if f.at.start > at && f.at.start <= end {
                let mut e = ParseError::syntax(
                    format!(
                        "Unexpected token '{}'",
                        token_text(src, f.at.start, f.at.end)
                    ),
                    f.at,
                );
                e.hint = Some(f.hint());
                out.push(e);
            }
        }
        if let Err(e) = parse_tokens(src, &lexed, repaired.into_iter(), opts)
            && e.kind == ParseErrorKind::Syntax
            && e.span.start > at
            && e.span.start < end
            && !findings.iter().any(|f| f.explains(e.span.start))
        {
            out.push(e);
        }
        out.sort_by_key(|e| e.span.start);
        out.truncate(MAX_ERRORS);
        out
    }
}

/// The source text of a token for `Unexpected token '...'` (at most 30
/// characters).
fn token_text(src: &str, l: u32, r: u32) -> String {
    let len = (r.saturating_sub(l)) as usize;
    let mut s: String = src.chars().skip(l as usize).take(len.min(30)).collect();
    if len > 30 {
        s.push_str("...");
    }
    s
}

fn expected_list(expected: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in expected {
        let e = e.trim_matches('"').to_string();
        let e = match e.as_str() {
            "arrow (" => "(".to_string(),
            "template head" | "template middle" | "template tail" => "template".to_string(),
            _ => e,
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

fn closer(open: &str) -> &'static str {
    match open {
        "(" => ")",
        "[" => "]",
        "{" => "}",
        _ => "}",
    }
}

fn is_semi_before(lexed: &Lexed, at: u32) -> Option<u32> {
    let idx = lexed.tokens.partition_point(|t| t.0 < at);
    let prev = idx.checked_sub(1).and_then(|i| lexed.tokens.get(i))?;
    (prev.1 == Tok::Semi).then_some(prev.0)
}

fn convert(
    e: lalrpop_util::ParseError<u32, Tok, ParseError>,
    src: &str,
    lexed: &Lexed,
) -> ParseError {
    use lalrpop_util::ParseError as P;
    match e {
        P::User { error } => error,
        P::UnrecognizedEof { expected, .. } => {
            let expected = expected_list(expected);
            let end = lexed.len;
            let mut err = if let Some(semi) = is_semi_before(lexed, end.saturating_add(1)) {
                ParseError::syntax("Expected expression after ';'", Span::new(semi, semi + 1))
            } else if let Some(&(open, at)) = lexed.unclosed.last()
                && expected.iter().any(|x| x == closer(open))
            {
                ParseError::syntax(format!("Unmatched '{open}'"), Span::new(at, at + 1))
            } else {
                ParseError::syntax("Unexpected end of expression", Span::new(end, end))
            };
            err.expected = expected;
            err
        }
        P::UnrecognizedToken {
            token: (l, _, r),
            expected,
        } => {
            let expected = expected_list(expected);
            let mut err = if expected.len() == 1 && expected.first().is_some_and(|x| x == "=") {
                ParseError::syntax("Expected '=' after let binding name", Span::new(l, r))
            } else if let Some(semi) = is_semi_before(lexed, l) {
                ParseError::syntax("Expected expression after ';'", Span::new(semi, semi + 1))
            } else {
                let text = token_text(src, l, r);
                let mut err =
                    ParseError::syntax(format!("Unexpected token '{text}'"), Span::new(l, r));
                // `{id, status}`: JavaScript's shorthand property, which XPR
                // does not have (spec EBNF): say what to write instead.
                if expected.len() == 1
                    && expected.first().is_some_and(|x| x == ":")
                    && (text == "," || text == "}")
                {
                    err.hint = Some("an object property needs a value: write {name: name}".into());
                }
                err
            };
            err.expected = expected;
            err
        }
        P::ExtraToken { token: (l, _, r) } => ParseError::syntax(
            format!("Unexpected token '{}'", token_text(src, l, r)),
            Span::new(l, r),
        ),
        P::InvalidToken { location } => {
            ParseError::syntax("Unexpected token", Span::new(location, location + 1))
        }
    }
}
