//! The lexer against the spec's "Tokenizer Disambiguation" table and its
//! other context-dependent rules.

use xpr_syntax::lexer::{Tok, tokenize};

fn toks(src: &str) -> Vec<Tok> {
    let lexed = tokenize(src, 50);
    assert!(lexed.error.is_none(), "{src}: {:?}", lexed.error);
    lexed.tokens.into_iter().map(|t| t.1).collect()
}

#[test]
fn slash_after_these_starts_a_regex() {
    let prefixes = [
        "", "x =", "x ==", "x !=", "(", "[", "{", "x,", "x;", "x ?", "x :", "x |>", "x =>", "x &&",
        "x ||", "x ??", "!", "x +", "x -", "x *", "x /", "x %", "x **", "x <", "x >", "x <=",
        "x >=", "...", "let",
    ];
    for p in prefixes {
        let src = format!("{p} /a b/i");
        let t = toks(&src);
        match t.last() {
            Some(Tok::Regex(r)) => {
                assert_eq!(
                    (r.pattern.as_str(), r.flags.as_str()),
                    ("a b", "i"),
                    "{src}"
                )
            }
            other => panic!("{src}: expected a regex, got {other:?}"),
        }
    }
}

#[test]
fn slash_after_these_divides() {
    let prefixes = [
        "(a)", "[a]", "{}", "x", "1", "'s'", "\"s\"", "true", "false", "null", "`t`", "`${a}b`",
        "/r/",
    ];
    for p in prefixes {
        let src = format!("{p} / 2");
        let t = toks(&src);
        let n = t.len();
        assert!(n >= 3, "{src}");
        assert_eq!(t.get(n - 2), Some(&Tok::Slash), "{src}: {t:?}");
        assert_eq!(t.get(n - 1), Some(&Tok::Number(2.0)), "{src}");
    }
}

#[test]
fn slash_inside_a_class_does_not_end_the_body() {
    let t = toks(r"/[/\]]x\/y/ms");
    assert_eq!(t.len(), 1);
    let Some(Tok::Regex(r)) = t.first() else {
        panic!("{t:?}");
    };
    assert_eq!(r.pattern, r"[/\]]x\/y");
    assert_eq!(r.flags, "ms");
}

#[test]
fn templates_nest_with_braces_strings_and_templates() {
    let t = toks(r#"`a${ {b: "}"}.b + `c${ `d` }` }e${f}g`"#);
    assert_eq!(t.first(), Some(&Tok::TemplateHead("a".into())));
    assert!(t.contains(&Tok::Str("}".into())));
    assert!(t.contains(&Tok::TemplateHead("c".into())));
    assert!(t.contains(&Tok::Template("d".into())));
    assert!(t.contains(&Tok::TemplateMiddle("e".into())));
    assert_eq!(t.last(), Some(&Tok::TemplateTail("g".into())));
}

#[test]
fn raw_carriage_returns_in_templates_become_line_feeds() {
    // A raw CR LF and a lone CR are one LF each, as in JavaScript; the
    // escape `\r` stays a CR, and quoted strings are not touched.
    assert_eq!(
        toks("`a\r\nb\rc\n\r\\r`"),
        vec![Tok::Template("a\nb\nc\n\n\r".into())]
    );
    let t = toks("`\r${x}\r\n${y}\r\n`");
    assert_eq!(t.first(), Some(&Tok::TemplateHead("\n".into())));
    assert!(t.contains(&Tok::TemplateMiddle("\n".into())));
    assert_eq!(t.last(), Some(&Tok::TemplateTail("\n".into())));
    // Spans still count the characters of the source, CRs included.
    let lexed = tokenize("`a\r\nb` + `\r\r\n`", 50);
    let spans: Vec<(u32, u32)> = lexed.tokens.iter().map(|t| (t.0, t.2)).collect();
    assert_eq!(spans, vec![(0, 6), (7, 8), (9, 14)]);
}

#[test]
fn arrow_parens_are_marked() {
    let t = toks("((a, b) => a)(1)");
    assert_eq!(
        t.iter().filter(|t| **t == Tok::ArrowParen).count(),
        1,
        "{t:?}"
    );
    assert_eq!(t.get(1), Some(&Tok::ArrowParen));
    // A call's parenthesis is never an arrow's, even when `=>` follows.
    let t = toks("f(x) => 1");
    assert!(!t.contains(&Tok::ArrowParen));
    let t = toks("a?.(x) => 1");
    assert!(!t.contains(&Tok::ArrowParen));
    let t = toks("(...r) => r");
    assert_eq!(t.first(), Some(&Tok::ArrowParen));
}

#[test]
fn numbers_and_operators() {
    assert_eq!(
        toks("42.map 1.5e-3 2E+2 0.25"),
        vec![
            Tok::Number(42.0),
            Tok::Dot,
            Tok::Ident("map".into()),
            Tok::Number(0.0015),
            Tok::Number(200.0),
            Tok::Number(0.25),
        ]
    );
    assert_eq!(
        toks("a ** b ?? c ?. d |> e => f ... g != h <= i >= j && k || l"),
        vec![
            Tok::Ident("a".into()),
            Tok::StarStar,
            Tok::Ident("b".into()),
            Tok::Nullish,
            Tok::Ident("c".into()),
            Tok::QuestionDot,
            Tok::Ident("d".into()),
            Tok::Pipe,
            Tok::Ident("e".into()),
            Tok::FatArrow,
            Tok::Ident("f".into()),
            Tok::Ellipsis,
            Tok::Ident("g".into()),
            Tok::NotEq,
            Tok::Ident("h".into()),
            Tok::Le,
            Tok::Ident("i".into()),
            Tok::Ge,
            Tok::Ident("j".into()),
            Tok::AndAnd,
            Tok::Ident("k".into()),
            Tok::OrOr,
            Tok::Ident("l".into()),
        ]
    );
}

#[test]
fn spans_are_character_offsets() {
    let lexed = tokenize("'😀é' + `ü${x}`", 50);
    let spans: Vec<(u32, u32)> = lexed.tokens.iter().map(|t| (t.0, t.2)).collect();
    assert_eq!(spans, vec![(0, 4), (5, 6), (7, 11), (11, 12), (12, 14)]);
}

/// Words and numbers read the same, at the same character offsets, whether
/// the source is ASCII (sliced from its bytes) or not (read from its
/// decoded characters).
#[test]
fn words_and_numbers_read_alike_in_ascii_and_other_sources() {
    for (src, shift) in [
        ("'e' + ab_1 + 2.5e1 + x.let", 0u32),
        ("'é' + ab_1 + 2.5e1 + x.let", 0),
        ("'日本' + ab_1 + 2.5e1 + x.let", 1),
    ] {
        let lexed = tokenize(src, 50);
        assert!(lexed.error.is_none(), "{src}: {:?}", lexed.error);
        let words: Vec<(u32, Tok, u32)> = lexed
            .tokens
            .into_iter()
            .filter(|t| matches!(t.1, Tok::Ident(_) | Tok::Number(_)))
            .collect();
        assert_eq!(
            words,
            vec![
                (6 + shift, Tok::Ident("ab_1".into()), 10 + shift),
                (13 + shift, Tok::Number(25.0), 18 + shift),
                (21 + shift, Tok::Ident("x".into()), 22 + shift),
                (23 + shift, Tok::Ident("let".into()), 26 + shift),
            ],
            "{src}"
        );
    }
    let e = tokenize("'é' + 1e400", 50).error.expect("out of range");
    assert_eq!(e.message, "Number out of range: 1e400");
    assert_eq!((e.span.start, e.span.end), (6, 11));
}
