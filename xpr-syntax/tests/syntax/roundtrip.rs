//! The printer round-trip property: for randomly generated ASTs `t` (of
//! the shapes the parser produces), `parse(print(t))` is `t` with spans
//! erased; and for parsed sources `s`, `parse(print(parse(s))) == parse(s)`.
//! The random inputs come from a seeded generator (`ast_gen.rs`): the same
//! cases on every run, each failure named by its case number.

use xpr_syntax::ast::{BinaryOp, Element, Expr, ExprKind, Name, Pattern, Property};
use xpr_syntax::{ParseOptions, Span, parse, parse_with, print};
use xpr_testkit::Rng;

use crate::ast_gen::{EXPR_DEPTH, expr};

// ------------------------------------------------------------ span erasure

fn erase_name(n: &mut Name) {
    n.span = Span::default();
}

fn erase_pattern(p: &mut Pattern) {
    match p {
        Pattern::Ident(n) => erase_name(n),
        Pattern::Object(o) => {
            o.span = Span::default();
            for e in &mut o.entries {
                erase_name(&mut e.key);
                erase_pattern(&mut e.target);
                if let Some(d) = &mut e.default {
                    erase(d);
                }
            }
            if let Some(r) = &mut o.rest {
                erase_name(r);
            }
        }
        Pattern::Array(a) => {
            a.span = Span::default();
            for e in &mut a.elements {
                erase_pattern(&mut e.target);
                if let Some(d) = &mut e.default {
                    erase(d);
                }
            }
            if let Some(r) = &mut a.rest {
                erase_name(r);
            }
        }
    }
}

fn erase_elements(els: &mut [Element]) {
    for el in els {
        match el {
            Element::Expr(x) => erase(x),
            Element::Spread(x, s) => {
                *s = Span::default();
                erase(x);
            }
        }
    }
}

fn erase(e: &mut Expr) {
    e.span = Span::default();
    match &mut e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::String(_)
        | ExprKind::Regex { .. }
        | ExprKind::Ident(_) => {}
        ExprKind::Template { exprs, .. } => exprs.iter_mut().for_each(erase),
        ExprKind::Array(els) => erase_elements(els),
        ExprKind::Object(props) => {
            for p in props {
                match p {
                    Property::KeyValue { key, value } => {
                        erase_name(key);
                        erase(value);
                    }
                    Property::Spread(x, s) => {
                        *s = Span::default();
                        erase(x);
                    }
                }
            }
        }
        ExprKind::Member {
            object, property, ..
        } => {
            erase(object);
            erase_name(property);
        }
        ExprKind::Index { object, index } => {
            erase(object);
            erase(index);
        }
        ExprKind::Call { callee, args, .. } => {
            erase(callee);
            erase_elements(args);
        }
        ExprKind::OptionalChain(x) => erase(x),
        ExprKind::Unary { operand, .. } => erase(operand),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Pipe { lhs, rhs } => {
            erase(lhs);
            erase(rhs);
        }
        ExprKind::Conditional {
            test,
            then,
            otherwise,
        } => {
            erase(test);
            erase(then);
            erase(otherwise);
        }
        ExprKind::Arrow(a) => {
            a.params.iter_mut().for_each(erase_pattern);
            if let Some(r) = &mut a.rest {
                erase_name(r);
            }
            erase(&mut a.body);
        }
        ExprKind::Let {
            target,
            value,
            body,
        } => {
            erase_pattern(target);
            erase(value);
            erase(body);
        }
    }
}

fn roomy() -> ParseOptions {
    ParseOptions {
        max_length: None,
        max_depth: Some(200),
    }
}

/// Runs `check` on `cases` inputs drawn from a generator seeded with
/// `seed`; `check` gets the case number for its messages.
fn for_cases(seed: u64, cases: usize, mut check: impl FnMut(&mut Rng, usize)) {
    let mut r = Rng::new(seed);
    for case in 0..cases {
        check(&mut r, case);
    }
}

/// `parse(print(tree))` is `tree`, spans aside.
#[track_caller]
fn parses_back(tree: &Expr, case: usize) {
    let text = print(tree);
    let mut back =
        parse_with(&text, &roomy()).unwrap_or_else(|e| panic!("case {case}: {text}\n{e}"));
    erase(&mut back);
    let mut want = tree.clone();
    erase(&mut want);
    assert_eq!(back, want, "case {case}, printed: {text}");
}

/// Printing what `print(tree)` parses to gives the same text.
#[track_caller]
fn prints_the_same(tree: &Expr, case: usize) {
    let once = print(tree);
    let parsed = parse_with(&once, &roomy()).unwrap_or_else(|e| panic!("case {case}: {once}\n{e}"));
    assert_eq!(print(&parsed), once, "case {case}");
}

#[test]
fn printed_trees_parse_back() {
    for_cases(1, 2000, |r, case| parses_back(&expr(r, EXPR_DEPTH), case));
}

#[test]
fn printing_is_a_fixpoint() {
    for_cases(2, 2000, |r, case| {
        prints_the_same(&expr(r, EXPR_DEPTH), case)
    });
}

#[test]
fn trees_that_once_failed_to_round_trip() {
    // Found by the property tests: `**` is right-associative, so a left
    // operand that is itself a power needs parentheses; `let` is a keyword
    // but a member name after a dot.
    fn e(kind: ExprKind) -> Box<Expr> {
        Box::new(Expr {
            kind,
            span: Span::default(),
        })
    }
    let binary = |op, lhs, rhs| ExprKind::Binary { op, lhs, rhs };
    let pow = binary(
        BinaryOp::Pow,
        e(binary(BinaryOp::Pow, e(ExprKind::Null), e(ExprKind::Null))),
        e(ExprKind::Null),
    );
    let member = ExprKind::Member {
        object: e(ExprKind::Null),
        property: Name {
            name: "let".into(),
            span: Span::default(),
        },
        optional: false,
    };
    let div = binary(BinaryOp::Div, e(member), e(ExprKind::Null));
    for (case, tree) in [pow, div].into_iter().enumerate() {
        let tree = e(tree);
        parses_back(&tree, case);
        prints_the_same(&tree, case);
    }
}

#[test]
fn parsed_sources_round_trip() {
    let sources = [
        "items.filter(x => x.price > 50).map(x => x.name)",
        "let {a, b: [c, d = 1], ...r} = o; a + c ?? d",
        "(a?.b).c + a?.b.c",
        "x => x + 1 |> string",
        "(x => x) |> f",
        "-(2 ** 2) + (-2) ** 2",
        "(a ? b : c) ? d : e",
        "a ?? (b || c)",
        "(a |> f) ? b : c",
        "f((x, y) => x, ...rest,)",
        "`a${`b${c}`}\\${d}`",
        "(let x = 1; x) + 1",
        "/[/]/.test(s) / 2",
        "{\"a b\": 1, c: [1, 2,], ...d}",
        "1e21 + 0.1 + 1e-7",
        "(a ** b) ** c",
        "a - (b - c)",
        "(a ?? b) ?? c",
        "a ?? (b ?? c)",
        "`a\r\nb\rc${x}\r\n\\r`",
    ];
    for s in sources {
        let mut first = parse(s).expect(s);
        let mut again = parse(&print(&first)).expect(s);
        erase(&mut first);
        erase(&mut again);
        assert_eq!(first, again, "{s} printed as {}", print(&first));
    }
}

#[test]
fn raw_carriage_returns_in_templates_print_as_line_feeds() {
    // The raw CR LF and CR are read as LF and printed as LF; the escape
    // `\r` (a CR in the value) is printed as the escape.
    let tree = parse("`a\r\nb\rc${x}\\r`").expect("parses");
    let text = print(&tree);
    assert_eq!(text, "`a\nb\nc${x}\\r`");
    assert_eq!(print(&parse(&text).expect("parses")), text);
}

/// Fragments of XPR text; random sequences of them reach most grammar
/// states, valid or not.
const FRAGMENTS: &[&str] = &[
    "a",
    "b",
    "x",
    "1",
    "2.5",
    "1e3",
    "\"s\"",
    "'t'",
    "true",
    "null",
    "let",
    " ",
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "!",
    "??",
    "?.",
    "?",
    ":",
    "|>",
    "=>",
    "...",
    "=",
    ",",
    ";",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "`",
    "${",
    "/a/",
    "/[/]/i",
    "`t${",
    "}`",
    "x => ",
    "(a, b) => ",
    "let x = 1; ",
    "let {a} = o; ",
    "f(",
    "😀",
    "\\",
    "@",
    "\r\n",
    "\r",
];

/// Parses `src` (or fails cleanly: a positioned error with a message); what
/// parses prints back to the same tree.
#[track_caller]
fn parses_or_fails_cleanly(src: &str, options: &ParseOptions, case: usize) {
    match parse_with(src, options) {
        Ok(mut tree) => {
            let text = print(&tree);
            let mut back = parse_with(&text, &roomy())
                .unwrap_or_else(|e| panic!("case {case}: {src} printed as {text}: {e}"));
            erase(&mut tree);
            erase(&mut back);
            assert_eq!(back, tree, "case {case}: {src} printed as {text}");
        }
        Err(e) => {
            assert!(
                e.span.start as usize <= src.chars().count(),
                "case {case}: {src}: {e}"
            );
            assert!(!e.message.is_empty(), "case {case}: {src}");
        }
    }
}

/// Any text parses or fails with a positioned error, never panics; what
/// parses prints back to the same tree.
#[test]
fn token_soup_parses_or_fails_cleanly() {
    for_cases(3, 4000, |r, case| {
        let len = r.below(24);
        let src: String = (0..len).map(|_| *r.pick(FRAGMENTS)).collect();
        parses_or_fails_cleanly(&src, &ParseOptions::default(), case);
    });
}

/// Near-valid text: a printed tree with a few characters replaced by a
/// fragment. Parses or fails cleanly; what parses round-trips.
#[test]
fn mutated_sources_parse_or_fail_cleanly() {
    for_cases(4, 3000, |r, case| {
        let chars: Vec<char> = print(&expr(r, EXPR_DEPTH)).chars().collect();
        let i = r.below(chars.len() + 1);
        let cut = r.below(3);
        let mut src: String = chars.iter().take(i).collect();
        src.push_str(r.pick::<&str>(FRAGMENTS));
        src.extend(chars.iter().skip(i + cut));
        parses_or_fails_cleanly(&src, &roomy(), case);
    });
}
