//! The XPR v0.5 lexer: source text to tokens with character-offset spans.
//!
//! Hand-written because three parts of XPR's lexical grammar depend on
//! context (spec "Syntax", "Regex Literals", "Tokenizer Disambiguation"):
//!
//! - `/` starts a regex literal or is the division operator depending on the
//!   previous token (the spec's table; see [`Tok::ends_operand`]);
//! - template literals contain `${ }` holes holding any expression, so the
//!   `}` closing a hole is told apart from an object's `}` with a stack of
//!   open brackets;
//! - a `(` that starts an arrow function's parameter list is emitted as
//!   [`Tok::ArrowParen`]: when its matching `)` is followed by `=>`. The
//!   check is O(1) per token (the `(`'s index is kept on the bracket stack),
//!   so lexing is linear.
//!
//! The lexer also bounds nesting before any tree is built, so a megabyte of
//! `(`, `[` or `-` stops after at most `max_depth + 1` tokens: it keeps a
//! lower bound of the number of AST nodes enclosing the current point (one
//! per open bracket other than a grouping `(`, one per consecutive prefix
//! `-` / `!`) and reports a depth error when it exceeds `max_depth`; more
//! than `max_depth` open brackets of any kind, grouping parentheses
//! included, is a depth error as well. Every token consumes at least one
//! character, so the token count never exceeds the character count.

use crate::ast::Span;
use crate::error::ParseError;
use crate::foreign::Construct;

/// Whether `c` separates tokens: JavaScript's `WhiteSpace` and
/// `LineTerminator` (the spec is silent; the reference runtimes' lexers
/// skip Unicode spaces too), so a no-break space, a byte order mark or
/// U+2028 pasted into an expression is not a syntax error. That is Rust's
/// [`char::is_whitespace`] plus U+FEFF, minus U+0085, as for `trim`.
fn is_space(c: char) -> bool {
    c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace())
}

/// A regex literal's parts, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RegexLit {
    /// The body between the slashes, undecoded.
    pub pattern: String,
    /// The flags, a subset of `ims` in source order.
    pub flags: String,
}

/// One token of XPR v0.5.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// `42`, `3.14`, `1e10`: always finite.
    Number(f64),
    /// `"text"` or `'text'`, escapes decoded.
    Str(String),
    /// `[a-zA-Z_][a-zA-Z0-9_]*`, not a keyword.
    Ident(String),
    /// `/body/flags` (boxed: rare, and twice the size of the other tokens).
    Regex(Box<RegexLit>),
    /// `` `text` `` with no hole, text decoded.
    Template(String),
    /// `` `text${ ``: the start of a template with holes.
    TemplateHead(String),
    /// `}text${`: text between two holes.
    TemplateMiddle(String),
    /// `` }text` ``: the end of a template with holes.
    TemplateTail(String),
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
    /// `let`
    Let,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `**`
    StarStar,
    /// `/` (division)
    Slash,
    /// `%`
    Percent,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
    /// `!`
    Bang,
    /// `??`
    Nullish,
    /// `?.`
    QuestionDot,
    /// `?`
    Question,
    /// `:`
    Colon,
    /// `|>`
    Pipe,
    /// `=>`
    FatArrow,
    /// `...`
    Ellipsis,
    /// `=`
    Assign,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `.`
    Dot,
    /// `(` opening a group or an argument list.
    LParen,
    /// `(` opening an arrow function's parameter list (its `)` is followed by `=>`).
    ArrowParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
}

impl Tok {
    /// Whether a `/` after this token is division (the token ends an
    /// operand) rather than the start of a regex literal. Exactly the
    /// spec's "Tokenizer Disambiguation" table: `)`, `]`, `}`, identifiers,
    /// numbers, strings, booleans, `null`, a template's end and a regex end
    /// an operand; every other token, and the start of input, does not.
    pub fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::RParen
                | Tok::RBracket
                | Tok::RBrace
                | Tok::Ident(_)
                | Tok::Number(_)
                | Tok::Str(_)
                | Tok::True
                | Tok::False
                | Tok::Null
                | Tok::Template(_)
                | Tok::TemplateTail(_)
                | Tok::Regex(_)
        )
    }
}

/// A token with its span: `(start, token, end)` in characters, the shape
/// LALRPOP's external-lexer interface expects.
pub type Spanned = (u32, Tok, u32);

/// Which bracket a stack frame stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    Bracket,
    Brace,
    Hole,
}

impl Open {
    fn text(self) -> &'static str {
        match self {
            Open::Paren => "(",
            Open::Bracket => "[",
            Open::Brace => "{",
            Open::Hole => "${",
        }
    }
}

/// An open bracket.
#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: Open,
    /// Character offset of the bracket.
    pos: u32,
    /// Index of its token, for a `(` that may start arrow parameters.
    arrow_candidate: Option<usize>,
    /// A lower bound of the number of AST nodes enclosing the content.
    level: u32,
}

/// The result of lexing a whole source.
#[derive(Debug, Clone)]
pub struct Lexed {
    /// The tokens before the first lexical error (or all of them).
    pub tokens: Vec<Spanned>,
    /// The first lexical error, reported once the parser reaches it.
    pub error: Option<ParseError>,
    /// Brackets still open at the end (kind text and character offset),
    /// innermost last: used to report `Unmatched '('`.
    pub unclosed: Vec<(&'static str, u32)>,
    /// The source length in characters.
    pub len: u32,
    /// Constructs of other languages met while lexing in foreign mode
    /// (see [`crate::foreign`]); empty otherwise.
    pub(crate) found: Vec<Found>,
}

/// A construct of another language the lexer replaced by the XPR token
/// meant, or dropped (in foreign mode only): `construct`, spelt at
/// characters `start..end`.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) construct: Construct,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Splits `src` into tokens (spec "Syntax", "EBNF Grammar").
///
/// Stops at the first lexical error (kept in [`Lexed::error`]) or when the
/// nesting bound is exceeded (a depth error, see the module docs);
/// `max_depth` is the AST depth limit. Never produces more tokens than `src`
/// has characters. The caller has checked that `src` has at most
/// `u32::MAX` characters.
pub fn tokenize(src: &str, max_depth: u32) -> Lexed {
    tokenize_mode(src, max_depth, false)
}

/// [`tokenize`], but in foreign mode the characters that are no XPR token
/// yet spell a construct of another language (`|`, `&`, `^`, `$name`,
/// `a // b`) become the XPR token meant, each recorded in [`Lexed::found`],
/// so that the parser can go on and find the expression's other errors.
pub(crate) fn tokenize_mode(src: &str, max_depth: u32, foreign: bool) -> Lexed {
    // Nearly every source is ASCII: its characters are its bytes, decoded
    // without UTF-8 work, and its words are sliced from it directly.
    let ascii = src.is_ascii();
    let chars = if ascii {
        src.bytes().map(char::from).collect()
    } else {
        let mut chars = Vec::with_capacity(src.len());
        chars.extend(src.chars());
        chars
    };
    let mut lx = Lexer {
        foreign,
        found: Vec::new(),
        chars,
        ascii: ascii.then_some(src),
        i: 0,
        // Sized once: a token takes three characters or more in most sources.
        tokens: Vec::with_capacity(src.len() / 3 + 4),
        stack: Vec::new(),
        run: 0,
        arrow_check: None,
        max_depth,
    };
    let error = lx.run().err();
    let len = u32::try_from(lx.chars.len()).unwrap_or(u32::MAX);
    let unclosed = lx.stack.iter().map(|f| (f.kind.text(), f.pos)).collect();
    Lexed {
        tokens: lx.tokens,
        error,
        unclosed,
        len,
        found: lx.found,
    }
}

struct Lexer<'a> {
    chars: Vec<char>,
    /// The source when it is ASCII (character offsets are byte offsets).
    ascii: Option<&'a str>,
    /// Current character offset.
    i: usize,
    tokens: Vec<Spanned>,
    stack: Vec<Frame>,
    /// Consecutive prefix operators in the current frame.
    run: u32,
    /// The arrow-candidate `(` whose `)` was the last token.
    arrow_check: Option<usize>,
    max_depth: u32,
    /// Foreign mode (see [`tokenize_mode`]).
    foreign: bool,
    found: Vec<Found>,
}

fn pos(i: usize) -> u32 {
    // The caller guarantees at most u32::MAX characters.
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Lexer<'_> {
    /// The source text of characters `start..end`.
    fn text(&self, start: usize, end: usize) -> String {
        match self.ascii.and_then(|s| s.get(start..end)) {
            Some(t) => t.to_owned(),
            None => self.chars.get(start..end).unwrap_or(&[]).iter().collect(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn err(&self, msg: impl Into<String>, start: usize, end: usize) -> ParseError {
        ParseError::syntax(msg, Span::new(pos(start), pos(end)))
    }

    fn prev_ends_operand(&self) -> bool {
        self.tokens.last().is_some_and(|t| t.1.ends_operand())
    }

    /// The lower bound of enclosing AST nodes at the current point.
    fn level(&self) -> u32 {
        self.stack
            .last()
            .map_or(0, |f| f.level)
            .saturating_add(self.run)
    }

    /// Emits a token, updating the arrow check and the prefix run.
    fn push(&mut self, start: usize, tok: Tok) {
        if let Some(idx) = self.arrow_check.take()
            && tok == Tok::FatArrow
            && let Some(t) = self.tokens.get_mut(idx)
        {
            t.1 = Tok::ArrowParen;
        }
        self.run = 0;
        self.tokens.push((pos(start), tok, pos(self.i)));
    }

    /// Emits `tok` for a foreign construct spelt from `start` to here.
    fn replaced(&mut self, start: usize, construct: Construct, tok: Tok) {
        self.found.push(Found {
            construct,
            start: pos(start),
            end: pos(self.i),
        });
        self.push(start, tok);
    }

    /// Emits an opening bracket and pushes its frame. A `(` in operand
    /// position (a group or arrow parameters) adds no AST level; every other
    /// bracket encloses its content in a node (call, index, array, object,
    /// template). More open brackets than `max_depth` is a depth error too.
    fn open(&mut self, start: usize, kind: Open, tok: Tok) -> Result<(), ParseError> {
        let arrow_candidate = (kind == Open::Paren
            && !self.prev_ends_operand()
            && !matches!(self.tokens.last(), Some((_, Tok::QuestionDot, _))))
        .then_some(self.tokens.len());
        let level = if arrow_candidate.is_some() {
            self.level()
        } else {
            self.level().saturating_add(1)
        };
        let nesting = u32::try_from(self.stack.len()).unwrap_or(u32::MAX);
        if level > self.max_depth || nesting >= self.max_depth {
            return Err(ParseError::depth(Span::new(pos(start), pos(self.i))));
        }
        self.push(start, tok);
        self.stack.push(Frame {
            kind,
            pos: pos(start),
            arrow_candidate,
            level,
        });
        Ok(())
    }

    /// Emits a closing bracket. Returns `false` when it does not match the
    /// innermost open bracket: lexing stops there, as the parser is bound to
    /// reject that token.
    fn close(&mut self, start: usize, kind: Open, tok: Tok) -> bool {
        let matched = self.stack.last().is_some_and(|f| f.kind == kind);
        self.push(start, tok);
        if !matched {
            return false;
        }
        if let Some(f) = self.stack.pop() {
            self.arrow_check = f.arrow_candidate;
        }
        true
    }

    /// Emits a prefix or infix `-` / `!`, counting prefix runs toward depth.
    fn maybe_prefix(&mut self, start: usize, tok: Tok) -> Result<(), ParseError> {
        let prefix = !self.prev_ends_operand();
        let run = self.run;
        self.push(start, tok);
        if prefix {
            self.run = run.saturating_add(1);
            if self.level() > self.max_depth {
                return Err(ParseError::depth(Span::new(pos(start), pos(self.i))));
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.peek() {
            let start = self.i;
            match c {
                ' ' | '\t' | '\n' | '\r' => self.i += 1,
                c if is_space(c) => self.i += 1,
                '0'..='9' => {
                    let n = self.number()?;
                    self.push(start, Tok::Number(n));
                }
                '"' | '\'' => {
                    let s = self.string(c)?;
                    self.push(start, Tok::Str(s));
                }
                '`' => {
                    self.i += 1;
                    self.template(start, true)?;
                }
                c if is_ident_start(c) => {
                    while self.peek().is_some_and(is_ident_char) {
                        self.i += 1;
                    }
                    let word = self.text(start, self.i);
                    // After `.` / `?.` a word is a property name, even a
                    // keyword (`x.let / 2` divides).
                    let after_dot = matches!(
                        self.tokens.last(),
                        Some((_, Tok::Dot | Tok::QuestionDot, _))
                    );
                    let tok = match word.as_str() {
                        _ if after_dot => Tok::Ident(word),
                        "true" => Tok::True,
                        "false" => Tok::False,
                        "null" => Tok::Null,
                        "let" => Tok::Let,
                        _ => Tok::Ident(word),
                    };
                    self.push(start, tok);
                }
                '/' if self.foreign && self.prev_ends_operand() && self.peek_at(1) == Some('/') => {
                    // Python's floor division or jq's alternative operator.
                    self.i += 2;
                    self.replaced(start, Construct::DoubleSlash, Tok::Nullish);
                }
                '|' | '&' | '^'
                    if self.foreign
                        && !matches!(
                            (c, self.peek_at(1)),
                            ('|', Some('|' | '>')) | ('&', Some('&'))
                        ) =>
                {
                    self.i += 1;
                    let (construct, tok) = match c {
                        '|' => (Construct::Bar, Tok::Pipe),
                        '&' => (Construct::Ampersand, Tok::AndAnd),
                        _ => (Construct::Caret, Tok::StarStar),
                    };
                    self.replaced(start, construct, tok);
                }
                '$' if self.foreign && self.peek_at(1).is_some_and(is_ident_start) => {
                    // A jq or shell variable: the name without its `$`.
                    self.i += 1;
                    self.found.push(Found {
                        construct: Construct::Dollar,
                        start: pos(start),
                        end: pos(self.i),
                    });
                }
                '/' if !self.prev_ends_operand() => {
                    let r = self.regex()?;
                    self.push(start, Tok::Regex(Box::new(r)));
                }
                '(' => {
                    self.i += 1;
                    self.open(start, Open::Paren, Tok::LParen)?;
                }
                '[' => {
                    self.i += 1;
                    self.open(start, Open::Bracket, Tok::LBracket)?;
                }
                '{' => {
                    self.i += 1;
                    self.open(start, Open::Brace, Tok::LBrace)?;
                }
                ')' => {
                    self.i += 1;
                    if !self.close(start, Open::Paren, Tok::RParen) {
                        return Ok(());
                    }
                }
                ']' => {
                    self.i += 1;
                    if !self.close(start, Open::Bracket, Tok::RBracket) {
                        return Ok(());
                    }
                }
                '}' => {
                    if self.stack.last().is_some_and(|f| f.kind == Open::Hole) {
                        self.stack.pop();
                        self.i += 1;
                        self.template(start, false)?;
                    } else {
                        self.i += 1;
                        if !self.close(start, Open::Brace, Tok::RBrace) {
                            return Ok(());
                        }
                    }
                }
                '-' => {
                    self.i += 1;
                    self.maybe_prefix(start, Tok::Minus)?;
                }
                '!' => {
                    self.i += 1;
                    if self.peek() == Some('=') {
                        self.i += 1;
                        self.push(start, Tok::NotEq);
                    } else {
                        self.maybe_prefix(start, Tok::Bang)?;
                    }
                }
                _ => {
                    let tok = self.punct(c)?;
                    self.push(start, tok);
                }
            }
        }
        Ok(())
    }

    /// Operators and punctuators other than brackets, `-` and `!`.
    fn punct(&mut self, c: char) -> Result<Tok, ParseError> {
        let start = self.i;
        let next = self.peek_at(1);
        let (tok, len) = match (c, next) {
            ('+', _) => (Tok::Plus, 1),
            ('*', Some('*')) => (Tok::StarStar, 2),
            ('*', _) => (Tok::Star, 1),
            ('/', _) => (Tok::Slash, 1),
            ('%', _) => (Tok::Percent, 1),
            ('=', Some('=')) => (Tok::EqEq, 2),
            ('=', Some('>')) => (Tok::FatArrow, 2),
            ('=', _) => (Tok::Assign, 1),
            ('<', Some('=')) => (Tok::Le, 2),
            ('<', _) => (Tok::Lt, 1),
            ('>', Some('=')) => (Tok::Ge, 2),
            ('>', _) => (Tok::Gt, 1),
            ('&', Some('&')) => (Tok::AndAnd, 2),
            ('|', Some('|')) => (Tok::OrOr, 2),
            ('|', Some('>')) => (Tok::Pipe, 2),
            ('?', Some('?')) => (Tok::Nullish, 2),
            ('?', Some('.')) => (Tok::QuestionDot, 2),
            ('?', _) => (Tok::Question, 1),
            (':', _) => (Tok::Colon, 1),
            (',', _) => (Tok::Comma, 1),
            (';', _) => (Tok::Semi, 1),
            ('.', Some('.')) if self.peek_at(2) == Some('.') => (Tok::Ellipsis, 3),
            ('.', _) => (Tok::Dot, 1),
            _ => {
                return Err(self.err(format!("Unexpected token '{c}'"), start, start + 1));
            }
        };
        self.i += len;
        Ok(tok)
    }

    /// `[0-9]+ ("." [0-9]+)? ([eE] [+-]? [0-9]+)?`; a `.` not followed by a
    /// digit is left for member access (`42.map(...)`).
    fn number(&mut self) -> Result<f64, ParseError> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let e = self.i;
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err(
                    "Invalid number: missing exponent digits",
                    start,
                    self.i.max(e + 1),
                ));
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
        }
        let parsed = match self.ascii.and_then(|s| s.get(start..self.i)) {
            Some(t) => t.parse::<f64>(),
            None => self.text(start, self.i).parse::<f64>(),
        };
        match parsed {
            Ok(n) if n.is_finite() => Ok(n),
            _ => {
                let text = self.text(start, self.i);
                Err(self.err(format!("Number out of range: {text}"), start, self.i))
            }
        }
    }

    /// Decodes one of the seven string escapes (plus, in templates, `` ` ``,
    /// `$` and `{`) after a backslash at `bs`.
    fn escape(&mut self, bs: usize, template: bool) -> Result<char, ParseError> {
        let c = self.peek();
        let out = match c {
            Some('n') => '\n',
            Some('t') => '\t',
            Some('r') => '\r',
            Some('0') => '\0',
            Some('\\') => '\\',
            Some('"') => '"',
            Some('\'') => '\'',
            Some('`' | '$' | '{') if template => c.unwrap_or('$'),
            Some('(') if self.foreign => {
                // jq's `\(expr)` interpolation, kept as text.
                self.found.push(Found {
                    construct: Construct::JqInterpolation,
                    start: pos(bs),
                    end: pos(self.i + 1),
                });
                '('
            }
            Some(other) => {
                return Err(self.err(
                    format!("Invalid escape sequence '\\{other}'"),
                    bs,
                    self.i + 1,
                ));
            }
            None => return Err(self.err("Invalid escape sequence '\\'", bs, self.i)),
        };
        self.i += 1;
        Ok(out)
    }

    /// A quoted string; the other quote kind may appear unescaped, a raw
    /// newline is an error (`Unterminated string`).
    fn string(&mut self, quote: char) -> Result<String, ParseError> {
        let start = self.i;
        self.i += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => {
                    return Err(self.err("Unterminated string", start, start + 1));
                }
                Some(c) if c == quote => {
                    self.i += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    let bs = self.i;
                    self.i += 1;
                    out.push(self.escape(bs, false)?);
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// Template text after `` ` `` (`first`) or after the `}` closing a
    /// hole, up to the closing backtick or the next `${`; emits the token.
    fn template(&mut self, start: usize, first: bool) -> Result<(), ParseError> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    // Report at the opening backtick of this template.
                    let at = if first {
                        start
                    } else {
                        self.template_start(start)
                    };
                    return Err(self.err("Unterminated template literal", at, at + 1));
                }
                Some('`') => {
                    self.i += 1;
                    let tok = if first {
                        Tok::Template(out)
                    } else {
                        Tok::TemplateTail(out)
                    };
                    self.push(start, tok);
                    return Ok(());
                }
                Some('$') if self.peek_at(1) == Some('{') => {
                    self.i += 2;
                    let tok = if first {
                        Tok::TemplateHead(out)
                    } else {
                        Tok::TemplateMiddle(out)
                    };
                    return self.open(start, Open::Hole, tok);
                }
                Some('\\') => {
                    let bs = self.i;
                    self.i += 1;
                    out.push(self.escape(bs, true)?);
                }
                Some('\r') => {
                    // A raw CR LF or lone CR is a line feed, as in JavaScript
                    // templates (the escape `\r` above stays a CR).
                    out.push('\n');
                    self.i += 1;
                    if self.peek() == Some('\n') {
                        self.i += 1;
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// The offset of the backtick opening the template whose hole closed at
    /// `brace`: the start of the innermost unmatched template head.
    fn template_start(&self, brace: usize) -> usize {
        let mut open = 0usize;
        for (s, t, _) in self.tokens.iter().rev() {
            match t {
                Tok::TemplateTail(_) => open += 1,
                Tok::TemplateHead(_) if open == 0 => return *s as usize,
                Tok::TemplateHead(_) => open -= 1,
                _ => {}
            }
        }
        brace
    }

    /// `/body/flags`: `\` escapes the next character, `/` inside `[...]`
    /// does not end the body, a newline or the end of input is
    /// `Unterminated regex`, flags are `i`, `m`, `s`, each at most once.
    fn regex(&mut self) -> Result<RegexLit, ParseError> {
        let start = self.i;
        self.i += 1;
        let mut pattern = String::new();
        let mut class = false;
        loop {
            match self.peek() {
                None | Some('\n') => {
                    return Err(self.err("Unterminated regex literal", start, start + 1));
                }
                Some('/') if !class => {
                    self.i += 1;
                    break;
                }
                Some('\\') => {
                    pattern.push('\\');
                    self.i += 1;
                    match self.peek() {
                        None | Some('\n') => {
                            return Err(self.err("Unterminated regex literal", start, start + 1));
                        }
                        Some(c) => {
                            pattern.push(c);
                            self.i += 1;
                        }
                    }
                }
                Some(c) => {
                    if c == '[' {
                        class = true;
                    } else if c == ']' {
                        class = false;
                    }
                    pattern.push(c);
                    self.i += 1;
                }
            }
        }
        if pattern.is_empty() {
            return Err(self.err("Empty regex literal", start, self.i));
        }
        let mut flags = String::new();
        while let Some(c) = self.peek().filter(|&c| is_ident_char(c)) {
            if !matches!(c, 'i' | 'm' | 's') {
                return Err(self.err(format!("Invalid regex flag '{c}'"), self.i, self.i + 1));
            }
            if flags.contains(c) {
                return Err(self.err(format!("Duplicate regex flag '{c}'"), self.i, self.i + 1));
            }
            flags.push(c);
            self.i += 1;
        }
        Ok(RegexLit { pattern, flags })
    }
}
