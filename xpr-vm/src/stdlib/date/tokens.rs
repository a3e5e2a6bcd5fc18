//! The tokens of custom date formats (`yyyy MM dd HH mm ss SSS`, spec "ICU
//! Format Tokens"), and a format read as tokens and literal text, one item
//! at a time.

/// A format token (spec "ICU Format Tokens", a closed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
}

impl Token {
    /// Digits the token reads and writes (a year may also be expanded).
    pub(super) fn width(self) -> usize {
        match self {
            Token::Year => 4,
            Token::Milli => 3,
            _ => 2,
        }
    }
}

/// One item of a format: a token, or literal text (a run of characters
/// that holds no token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item<'f> {
    Token(Token),
    Literal(&'f str),
}

/// The items of a format, read one at a time: tokens (longest first at
/// each position) and the literal text between them; `yyyyy` is `yyyy`
/// then a literal `y`. Never collected into a list, so a format costs no
/// memory beyond itself, and literal text is handled a run at a time.
pub(super) struct Items<'f> {
    rest: &'f str,
}

pub(super) fn items(format: &str) -> Items<'_> {
    Items { rest: format }
}

/// The token starting `s`, with its length in bytes.
fn token_at(s: &[u8]) -> Option<(usize, Token)> {
    let starts = |t: &[u8]| s.starts_with(t);
    match s.first()? {
        b'y' if starts(b"yyyy") => Some((4, Token::Year)),
        b'S' if starts(b"SSS") => Some((3, Token::Milli)),
        b'M' if starts(b"MM") => Some((2, Token::Month)),
        b'd' if starts(b"dd") => Some((2, Token::Day)),
        b'H' if starts(b"HH") => Some((2, Token::Hour)),
        b'm' if starts(b"mm") => Some((2, Token::Minute)),
        b's' if starts(b"ss") => Some((2, Token::Second)),
        _ => None,
    }
}

impl<'f> Iterator for Items<'f> {
    type Item = Item<'f>;

    fn next(&mut self) -> Option<Item<'f>> {
        let rest = self.rest;
        let bytes = rest.as_bytes();
        if bytes.is_empty() {
            return None;
        }
        if let Some((len, t)) = token_at(bytes) {
            self.rest = rest.get(len..).unwrap_or("");
            return Some(Item::Token(t));
        }
        // Literal text up to the next token: every token starts with an
        // ASCII byte, so the cut is at a character boundary.
        let mut end = 1;
        while let Some(tail) = bytes.get(end..) {
            match tail
                .iter()
                .position(|b| matches!(b, b'y' | b'S' | b'M' | b'd' | b'H' | b'm' | b's'))
            {
                Some(i) if token_at(tail.get(i..).unwrap_or(&[])).is_some() => {
                    end += i;
                    break;
                }
                Some(i) => end += i + 1,
                None => {
                    end = bytes.len();
                    break;
                }
            }
        }
        let (literal, after) = rest.split_at_checked(end).unwrap_or((rest, ""));
        self.rest = after;
        Some(Item::Literal(literal))
    }
}
