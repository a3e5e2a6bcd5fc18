//! Finding the constructs of [`TOKEN_HINTS`](super::TOKEN_HINTS) in a
//! token stream lexed in foreign mode, and replacing each by the XPR
//! tokens it stands for, so that the parse can go on to the next mistake.

use super::Construct;
use crate::ast::Span;
use crate::lexer::{Found, Lexed, Spanned, Tok};

/// A construct recognised in a token stream.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub(crate) construct: Construct,
    /// Where the parser fails on it: the token it rejects.
    pub(crate) at: Span,
    /// The whole construct, `at` included.
    pub(crate) extent: Span,
    /// The name the hint names (`delay` for `.delay`), if any.
    pub(crate) name: String,
    /// No replacement: what follows is not looked at.
    pub(crate) stop: bool,
}

impl Finding {
    /// The hint for this finding.
    pub(crate) fn hint(&self) -> String {
        self.construct.hint(&self.name)
    }

    /// Whether an error at `pos` is this construct's.
    pub(crate) fn explains(&self, pos: u32) -> bool {
        self.extent.start <= pos && pos < self.extent.end.max(self.extent.start + 1)
    }
}

/// The constructs found in `lexed` (lexed in foreign mode), in source
/// order, and the token stream with each replaced by the XPR tokens meant.
pub(crate) fn scan(lexed: &Lexed) -> (Vec<Finding>, Vec<Spanned>) {
    let mut s = Scanner {
        orig: &lexed.tokens,
        toks: lexed.tokens.iter().cloned().map(Some).collect(),
        findings: Vec::new(),
        let_targets: 0,
        depth: 0,
        let_depths: Vec::new(),
        param_depths: Vec::new(),
        frames: Vec::new(),
        closed_keyword: None,
        pending_if: 0,
        pending_between: false,
        closers: closers(&lexed.tokens),
        stopped: false,
    };
    for f in &lexed.found {
        let mut finding = lexical(f);
        if f.construct == Construct::Dollar {
            // The name after the `$`.
            let i = lexed.tokens.partition_point(|t| t.0 < f.end);
            if let Some((_, Tok::Ident(name), _)) = lexed.tokens.get(i) {
                finding.name.clone_from(name);
            }
        }
        s.findings.push(finding);
    }
    s.run();
    let mut findings = s.findings;
    findings.sort_by_key(|f| f.at.start);
    (findings, s.toks.into_iter().flatten().collect())
}

fn lexical(f: &Found) -> Finding {
    let span = Span::new(f.start, f.end);
    Finding {
        construct: f.construct,
        at: span,
        extent: span,
        name: String::new(),
        stop: false,
    }
}

/// Words that name a construct where an operand was expected, followed by
/// an operand (`not x`, `lambda x: ...`, `new Date()`).
fn prefix_word(lower: &str) -> Option<Construct> {
    Some(match lower {
        "not" => Construct::Not,
        "lambda" => Construct::Lambda,
        "function" | "def" => Construct::Function,
        "return" => Construct::Return,
        "new" => Construct::New,
        "typeof" => Construct::TypeOf,
        "const" | "var" => Construct::Declaration,
        "case" => Construct::Case,
        "if" => Construct::Conditional,
        _ => return None,
    })
}

/// Whether a token begins an operand but cannot follow one (so after an
/// operand it is where the parser fails): `(` and `[` can follow one.
fn starts_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Ident(_)
            | Tok::Number(_)
            | Tok::Str(_)
            | Tok::Template(_)
            | Tok::TemplateHead(_)
            | Tok::Regex(_)
            | Tok::True
            | Tok::False
            | Tok::Null
            | Tok::Let
            | Tok::LBrace
            | Tok::Bang
    )
}

fn word(t: &Tok) -> Option<String> {
    match t {
        Tok::Ident(w) => Some(w.to_ascii_lowercase()),
        _ => None,
    }
}

/// Whether `w` is an f-string prefix (`f`, `rf`, `Fr`, ...).
fn fstring_prefix(w: &str) -> bool {
    (1..=2).contains(&w.len())
        && w.chars().any(|c| c.eq_ignore_ascii_case(&'f'))
        && w.chars().all(|c| matches!(c, 'f' | 'F' | 'r' | 'R'))
}

/// An open bracket, as the scan sees it.
#[derive(Debug, Clone, Copy, Default)]
struct Frame {
    /// `(` of `function (...)` or `if (...)`: the construct.
    keyword: Option<Construct>,
    /// `(` of a call: its arguments.
    call: bool,
    /// `[` of an index.
    index: bool,
    /// `?` in it still waiting for their `:`.
    questions: u32,
}

struct Scanner<'a> {
    orig: &'a [Spanned],
    toks: Vec<Option<Spanned>>,
    findings: Vec<Finding>,
    /// Open `let` targets (their `=` is not a comparison).
    let_targets: usize,
    depth: usize,
    let_depths: Vec<usize>,
    /// Bracket depths of open arrow parameter lists (defaults use `=`).
    param_depths: Vec<usize>,
    /// Open brackets, innermost last.
    frames: Vec<Frame>,
    /// The index of a `)` closing `function (...)` or `if (...)`.
    closed_keyword: Option<(usize, Construct)>,
    /// `if` replaced by `?` whose `else` is still to come.
    pending_if: usize,
    /// `BETWEEN` replaced by `>=` whose `AND` is still to come.
    pending_between: bool,
    /// For each opening bracket, the index of the bracket closing it.
    closers: Vec<Option<usize>>,
    /// A construct without replacement was found: the scan is over.
    stopped: bool,
}

/// For each opening bracket of `tokens`, the index of the one closing it
/// (whatever its kind).
fn closers(tokens: &[Spanned]) -> Vec<Option<usize>> {
    let mut out = vec![None; tokens.len()];
    let mut open = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.1 {
            Tok::LParen | Tok::ArrowParen | Tok::LBracket | Tok::LBrace | Tok::TemplateHead(_) => {
                open.push(i);
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::TemplateTail(_) => {
                if let Some(o) = open.pop()
                    && let Some(slot) = out.get_mut(o)
                {
                    *slot = Some(i);
                }
            }
            _ => {}
        }
    }
    out
}

impl Scanner<'_> {
    fn tok(&self, i: usize) -> Option<&Tok> {
        self.orig.get(i).map(|t| &t.1)
    }

    fn span(&self, i: usize) -> Span {
        self.orig
            .get(i)
            .map_or(Span::new(0, 0), |t| Span::new(t.0, t.2))
    }

    /// Whether token `i` ends right where token `i + 1` starts.
    fn adjacent(&self, i: usize) -> bool {
        match (self.orig.get(i), self.orig.get(i + 1)) {
            (Some(a), Some(b)) => a.2 == b.0,
            _ => false,
        }
    }

    /// Whether token `i` follows an operand, as repaired so far (`and`
    /// replaced by `&&` no longer ends one).
    fn after_operand(&self, i: usize) -> bool {
        self.toks
            .get(..i)
            .and_then(|before| before.iter().rev().flatten().next())
            .is_some_and(|t| t.1.ends_operand())
    }

    /// Whether token `i` follows a `.` or `?.`.
    fn after_dot(&self, i: usize) -> bool {
        i > 0 && matches!(self.tok(i - 1), Some(Tok::Dot | Tok::QuestionDot))
    }

    fn set(&mut self, i: usize, tok: Tok) {
        if let Some(Some(t)) = self.toks.get_mut(i) {
            t.1 = tok;
        }
    }

    fn drop_tok(&mut self, i: usize) {
        if let Some(t) = self.toks.get_mut(i) {
            *t = None;
        }
    }

    fn found(&mut self, construct: Construct, at: usize, from: usize, stop: bool) {
        self.stopped |= stop;
        let at_span = self.span(at);
        let from_span = self.span(from);
        self.findings.push(Finding {
            construct,
            at: at_span,
            extent: Span::new(from_span.start.min(at_span.start), at_span.end),
            name: String::new(),
            stop,
        });
    }

    /// `(` right after `in` becomes `[` and its `)` `]`: `x IN (1, 2)`.
    fn tuple_to_array(&mut self, open: usize) {
        if self.tok(open) != Some(&Tok::LParen) {
            return;
        }
        if let Some(&Some(close)) = self.closers.get(open)
            && self.tok(close) == Some(&Tok::RParen)
        {
            self.set(open, Tok::LBracket);
            self.set(close, Tok::RBracket);
        }
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.orig.len() {
            let last = self.inspect(i);
            for j in i..=last.min(self.orig.len() - 1) {
                if let Some(Some((_, tok, _))) = self.toks.get(j) {
                    let tok = tok.clone();
                    self.track(j, &tok);
                }
            }
            if self.stopped {
                return;
            }
            i = last + 1;
        }
    }

    /// Looks at token `i` (the tokens before it tracked); returns the last
    /// index it consumed.
    fn inspect(&mut self, i: usize) -> usize {
        let Some(tok) = self.tok(i).cloned() else {
            return i;
        };
        let after_operand = self.after_operand(i);
        // `function (x) {` / `if (c) a`: the token after the `)`.
        if let Some((close, construct)) = self.closed_keyword.take()
            && close + 1 == i
            && starts_operand(&tok)
        {
            self.found(construct, i, i, true);
            return i;
        }
        if after_operand {
            if let Some(w) = word(&tok)
                && let Some(last) = self.operator_word(i, &w)
            {
                return last;
            }
            if starts_operand(&tok) {
                self.prefix_before(i, &tok);
                return i;
            }
        }
        match tok {
            Tok::EqEq | Tok::NotEq if self.tok(i + 1) == Some(&Tok::Assign) && self.adjacent(i) => {
                let construct = if tok == Tok::EqEq {
                    Construct::StrictEq
                } else {
                    Construct::StrictNe
                };
                self.drop_tok(i + 1);
                self.found(construct, i + 1, i, false);
                i + 1
            }
            Tok::Lt if self.tok(i + 1) == Some(&Tok::Gt) && self.adjacent(i) => {
                self.set(i, Tok::NotEq);
                self.drop_tok(i + 1);
                self.found(Construct::SqlNe, i + 1, i, false);
                i + 1
            }
            Tok::Assign
                if after_operand
                    && self.let_targets == 0
                    && self.param_depths.is_empty()
                    && self.frames.last().is_some_and(|f| f.call)
                    && i >= 2
                    && matches!(self.tok(i - 1), Some(Tok::Ident(_)))
                    && matches!(self.tok(i - 2), Some(Tok::LParen | Tok::Comma)) =>
            {
                // `round(x, ndigits=2)`: the value alone goes on.
                self.drop_tok(i - 1);
                self.drop_tok(i);
                self.found(Construct::KeywordArgument, i, i - 1, false);
                i
            }
            Tok::Colon
                if after_operand
                    && self.tok(i + 1) == Some(&Tok::Colon)
                    && self.adjacent(i)
                    && !self.frames.last().is_some_and(|f| f.index) =>
            {
                self.found(Construct::PgCast, i, i, true);
                i + 1
            }
            Tok::Colon
                if self
                    .frames
                    .last()
                    .is_some_and(|f| f.index && f.questions == 0) =>
            {
                self.found(Construct::SliceSyntax, i, i, true);
                i
            }
            Tok::Assign
                if after_operand && self.let_targets == 0 && self.param_depths.is_empty() =>
            {
                self.set(i, Tok::EqEq);
                self.found(Construct::Assign, i, i, false);
                i
            }
            // Not `a..b`: a doubled dot is no jq field.
            Tok::Dot if !after_operand && !self.after_dot(i) => {
                match self.tok(i + 1) {
                    Some(Tok::Ident(name)) if self.adjacent(i) => {
                        let name = name.clone();
                        self.drop_tok(i);
                        self.found(Construct::LeadingDot, i, i, false);
                        if let Some(f) = self.findings.last_mut() {
                            f.name = name;
                        }
                    }
                    // `.5`: a number, not jq.
                    Some(Tok::Number(_)) => {}
                    _ => self.found(Construct::JqInput, i, i, true),
                }
                i
            }
            _ => i,
        }
    }

    /// Token `i` is the word `w` (lower-cased) where an operator belongs:
    /// the last index consumed when it is an operator of another language.
    fn operator_word(&mut self, i: usize, w: &str) -> Option<usize> {
        let next = self.tok(i + 1).and_then(word);
        let (construct, stop) = match w {
            "and" if self.pending_between => {
                // The `AND` of `BETWEEN a AND b`, reported with it.
                self.pending_between = false;
                self.set(i, Tok::AndAnd);
                return Some(i);
            }
            "and" => {
                self.set(i, Tok::AndAnd);
                (Construct::And, false)
            }
            "or" => {
                self.set(i, Tok::OrOr);
                (Construct::Or, false)
            }
            "not" if matches!(next.as_deref(), Some("in" | "like" | "ilike")) => {
                self.set(i, Tok::NotEq);
                self.drop_tok(i + 1);
                let construct = if next.as_deref() == Some("in") {
                    self.tuple_to_array(i + 2);
                    Construct::NotIn
                } else {
                    Construct::Like
                };
                self.found(construct, i, i, false);
                return Some(i + 1);
            }
            "in" => {
                self.set(i, Tok::EqEq);
                self.tuple_to_array(i + 1);
                (Construct::In, false)
            }
            "is" => {
                if next.as_deref() == Some("not") {
                    self.set(i, Tok::NotEq);
                    self.drop_tok(i + 1);
                    self.found(Construct::Is, i, i, false);
                    return Some(i + 1);
                }
                self.set(i, Tok::EqEq);
                (Construct::Is, false)
            }
            "if" => {
                self.set(i, Tok::Question);
                self.pending_if += 1;
                (Construct::Conditional, false)
            }
            "else" if self.pending_if > 0 => {
                // The `else` of a conditional already reported.
                self.pending_if -= 1;
                self.set(i, Tok::Colon);
                return Some(i);
            }
            "else" | "elif" => (Construct::Conditional, true),
            "like" | "ilike" => {
                self.set(i, Tok::EqEq);
                (Construct::Like, false)
            }
            "between" => {
                self.set(i, Tok::Ge);
                self.pending_between = true;
                (Construct::Between, false)
            }
            "when" | "then" | "end" => (Construct::Case, true),
            "as" => (Construct::As, true),
            "for" => (Construct::Comprehension, true),
            "where" => (Construct::Where, true),
            "instanceof" => (Construct::InstanceOf, true),
            "from" => (Construct::From, true),
            _ => return None,
        };
        self.found(construct, i, i, stop);
        Some(i)
    }

    /// Token `i` begins an operand right after another: the one before may
    /// be a prefix word of another language (`not x`, `lambda x`,
    /// `new Date`) or an f-string's prefix.
    fn prefix_before(&mut self, i: usize, tok: &Tok) {
        let prev = i - 1;
        let operand_position = prev == 0 || !self.after_operand(prev);
        let property = prev > 0 && matches!(self.tok(prev - 1), Some(Tok::Dot | Tok::QuestionDot));
        if !operand_position || property {
            return;
        }
        if let (Tok::Str(_), Some(Tok::Str(_))) = (tok, self.tok(prev))
            && self.adjacent(prev)
        {
            // `'it''s'`: the second part is dropped.
            self.drop_tok(i);
            self.found(Construct::DoubledQuote, i, prev, false);
            return;
        }
        let Some(w) = self.tok(prev).and_then(word) else {
            return;
        };
        if let Some(construct) = prefix_word(&w) {
            match construct {
                Construct::Not => self.set(prev, Tok::Bang),
                Construct::Declaration => {
                    self.set(prev, Tok::Let);
                    self.let_targets += 1;
                    self.let_depths.push(self.depth);
                }
                _ => {}
            }
            let stop = !matches!(construct, Construct::Not | Construct::Declaration);
            self.found(construct, i, prev, stop);
        } else if let Tok::Str(_) = tok
            && fstring_prefix(&w)
            && self.adjacent(prev)
        {
            self.drop_tok(prev);
            self.found(Construct::FString, i, prev, false);
        }
    }

    /// Keeps the bracket depth, the open `let` targets and arrow
    /// parameter lists, and which `(` follow `function` or `if`.
    fn track(&mut self, i: usize, tok: &Tok) {
        match tok {
            Tok::Let => {
                self.let_targets += 1;
                self.let_depths.push(self.depth);
            }
            Tok::Assign if self.let_depths.last() == Some(&self.depth) => {
                self.let_depths.pop();
                self.let_targets = self.let_targets.saturating_sub(1);
            }
            Tok::ArrowParen => {
                self.depth += 1;
                self.param_depths.push(self.depth);
                self.frames.push(Frame::default());
            }
            Tok::LParen => {
                self.depth += 1;
                let keyword = (i > 0 && !self.after_operand(i - 1))
                    .then(|| self.tok(i - 1).and_then(word))
                    .flatten()
                    .and_then(|w| match w.as_str() {
                        "function" => Some(Construct::Function),
                        "if" => Some(Construct::Conditional),
                        _ => None,
                    });
                self.frames.push(Frame {
                    keyword,
                    call: self.after_operand(i),
                    ..Frame::default()
                });
            }
            Tok::RParen => {
                if self.param_depths.last() == Some(&self.depth) {
                    self.param_depths.pop();
                }
                self.depth = self.depth.saturating_sub(1);
                if let Some(Frame {
                    keyword: Some(construct),
                    ..
                }) = self.frames.pop()
                {
                    self.closed_keyword = Some((i, construct));
                }
            }
            Tok::LBracket | Tok::LBrace | Tok::TemplateHead(_) => {
                self.depth += 1;
                self.frames.push(Frame {
                    index: *tok == Tok::LBracket && self.after_operand(i),
                    ..Frame::default()
                });
            }
            Tok::RBracket | Tok::RBrace | Tok::TemplateTail(_) => {
                self.depth = self.depth.saturating_sub(1);
                self.frames.pop();
            }
            Tok::Question => {
                if let Some(f) = self.frames.last_mut() {
                    f.questions += 1;
                }
            }
            Tok::Colon => {
                if let Some(f) = self.frames.last_mut() {
                    f.questions = f.questions.saturating_sub(1);
                }
            }
            _ => {}
        }
    }
}
