//! Syntax of other languages: each parse error at such a construct keeps
//! the spec's words and position and carries a hint naming XPR's spelling;
//! `parse_errors` reports the independent mistakes of one expression
//! together, and nothing after a construct it cannot replace.

use xpr_syntax::foreign::{Construct, TOKEN_HINTS};
use xpr_syntax::{ParseError, ParseOptions, parse, parse_errors};

fn first(src: &str) -> ParseError {
    match parse(src) {
        Ok(_) => panic!("{src}: parsed"),
        Err(e) => e,
    }
}

fn all(src: &str) -> Vec<String> {
    parse_errors(src, &ParseOptions::default())
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// `(source, message and position as the spec words them, a word of the hint)`.
const CASES: &[(&str, &str, &str)] = &[
    (
        "ok or fallback",
        "Unexpected token 'or' at position 3",
        "`||`",
    ),
    (
        "price > 3 AND qty < 2",
        "Unexpected token 'AND' at position 10",
        "`&&`",
    ),
    (
        "!ready && not done",
        "Unexpected token 'done' at position 14",
        "`!`",
    ),
    (
        "code in allowed",
        "Unexpected token 'in' at position 5",
        "`list.includes(x)`",
    ),
    (
        "tier NOT IN ('gold', 'silver')",
        "Unexpected token 'NOT' at position 5",
        "`!list.includes(x)`",
    ),
    (
        "email is None",
        "Unexpected token 'is' at position 6",
        "`x == null`",
    ),
    (
        "email IS NOT NULL",
        "Unexpected token 'IS' at position 6",
        "`x != null`",
    ),
    (
        "qty * 2 if big else qty",
        "Unexpected token 'if' at position 8",
        "`cond ? a : b`",
    ),
    (
        "CASE status WHEN 'x' THEN 1 END",
        "Unexpected token 'status' at position 5",
        "ternary",
    ),
    (
        "CASE WHEN paid THEN 1 END",
        "Unexpected token 'WHEN' at position 5",
        "`c ? a : b`",
    ),
    (
        "sku LIKE 'KB-%'",
        "Unexpected token 'LIKE' at position 4",
        "`s.startsWith(p)`",
    ),
    (
        "qty BETWEEN 2 AND 9",
        "Unexpected token 'BETWEEN' at position 4",
        "`x >= a && x <= b`",
    ),
    (
        "CAST(total AS INT)",
        "Unexpected token 'AS' at position 11",
        "`int(x)`",
    ),
    (
        "[p.sku for p in items]",
        "Unexpected token 'for' at position 7",
        "`xs.map(x => f(x))`",
    ),
    (
        "items instanceof Array",
        "Unexpected token 'instanceof' at position 6",
        "`isArray(x)`",
    ),
    (
        "items.map(lambda i: i.qty)",
        "Unexpected token 'i' at position 17",
        "`x => expr`",
    ),
    (
        "items.some(function (i) { return i.qty > 1 })",
        "Unexpected token '{' at position 24",
        "`x => expr`",
    ),
    (
        "items.map(i => { return i.qty })",
        "Unexpected token 'i' at position 24",
        "one expression",
    ),
    (
        "new Map()",
        "Unexpected token 'Map' at position 4",
        "`now()`",
    ),
    (
        "typeof total == 'number'",
        "Unexpected token 'total' at position 7",
        "`type(x)`",
    ),
    (
        "var n = 2; n * 3",
        "Unexpected token 'n' at position 4",
        "`let name = value; body`",
    ),
    ("total === 0", "Unexpected token '=' at position 8", "`==`"),
    (
        "status !== 'paid'",
        "Unexpected token '=' at position 9",
        "`!=`",
    ),
    (
        "status <> 'paid'",
        "Unexpected token '>' at position 8",
        "`!=`",
    ),
    (
        "currency = 'EUR'",
        "Unexpected token '=' at position 9",
        "`==`",
    ),
    (
        "F'{id}: {status}'",
        "Unexpected token ''{id}: {status}'' at position 1",
        "template literal",
    ),
    (
        ".customer.name",
        "Unexpected token '.' at position 0",
        "write `customer`",
    ),
    (".", "Unexpected token '.' at position 0", "whole input"),
    (
        "items | length",
        "Unexpected token '|' at position 6",
        "`|>`",
    ),
    (
        "paid & shipped",
        "Unexpected token '&' at position 5",
        "`&&`",
    ),
    ("qty ^ 2", "Unexpected token '^' at position 4", "`a ** b`"),
    (
        "$limit > 3",
        "Unexpected token '$' at position 0",
        "write `limit`",
    ),
    (
        "total // 7",
        "Unterminated regex literal at position 7",
        "`floor(a / b)`",
    ),
    (
        "coupon // 'none'",
        "Unterminated regex literal at position 8",
        "`a ?? b`",
    ),
];

#[test]
fn constructs_of_other_languages_get_their_hint() {
    for &(src, spec, word) in CASES {
        let e = first(src);
        let hint = e.hint.clone().unwrap_or_default();
        assert!(hint.contains(word), "{src}: hint {hint:?} lacks {word:?}");
        assert_eq!(
            format!("{} at position {}", e.message, e.span.start),
            spec,
            "{src}"
        );
        assert_eq!(
            e.to_string(),
            format!("{} ({hint}) at position {}", e.message, e.span.start)
        );
        let errors = parse_errors(src, &ParseOptions::default());
        assert_eq!(
            errors.first(),
            Some(&e),
            "{src}: parse_errors starts elsewhere"
        );
    }
}

#[test]
fn the_expected_tokens_are_kept() {
    let e = first("a and b");
    assert!(e.expected.iter().any(|t| t == "&&"), "{:?}", e.expected);
}

#[test]
fn every_construct_has_one_row() {
    for (i, a) in TOKEN_HINTS.iter().enumerate() {
        assert!(
            TOKEN_HINTS
                .iter()
                .skip(i + 1)
                .all(|b| b.construct != a.construct),
            "{:?} twice",
            a.construct
        );
        assert!(a.hint.starts_with("XPR "), "{:?}", a.construct);
    }
    assert!(Construct::Bar.row().is_some());
}

#[test]
fn independent_mistakes_are_reported_together() {
    assert_eq!(
        all("paid and total > 9 or vip"),
        [
            "Unexpected token 'and' (XPR writes `&&` for `and`) at position 5",
            "Unexpected token 'or' (XPR writes `||` for `or`) at position 19",
        ]
    );
    let errors = all("status = 'x' AND total === 1 | round()");
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[0].contains("position 7") && errors[0].contains("`==`"));
    assert!(errors[1].contains("'AND'") && errors[1].contains("`&&`"));
    assert!(errors[2].contains("position 25") && errors[2].contains("`==`"));
    assert!(errors[3].contains("'|'") && errors[3].contains("`|>`"));
    // A plain error after the replaced constructs is reported too.
    let errors = all("a or b +");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[1], "Unexpected end of expression at position 8");
    // The first error is the spec's even when it is no foreign construct.
    let errors = all("(a b) and c");
    assert_eq!(errors[0], "Unexpected token 'b' at position 3");
    assert!(errors[1].contains("'and'"), "{errors:?}");
}

#[test]
fn nothing_is_reported_after_a_construct_without_replacement() {
    let errors = all("x or CASE WHEN a THEN b ELSE c END or d");
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[1].contains("'WHEN'"), "{errors:?}");
}

#[test]
fn xpr_that_looks_foreign_is_left_alone() {
    for src in [
        "let x = 1; x == 1",
        "let {a = 1, b} = o; a + b",
        "([a = 1]) => a",
        "o.and || o.in",
        "{in: 1, if: 2}.in",
        "x.not",
        "a ? b : c",
        "a |> f()",
        "`${a}`",
        "f(\"x\")",
    ] {
        assert!(parse(src).is_ok(), "{src}");
    }
    // Near misses that are no foreign construct get no hint.
    for src in ["a..b", ".5 + 1", "(a = 1) => a", "x.not y", "1 2"] {
        assert_eq!(first(src).hint, None, "{src}");
    }
}

#[test]
fn many_mistakes_stay_linear_and_bounded() {
    let src = "a and ".repeat(1_500) + "b";
    let errors = parse_errors(&src, &ParseOptions::default());
    assert_eq!(errors.len(), xpr_syntax::MAX_ERRORS);
    let src = "x in (".repeat(40) + "y";
    assert!(!parse_errors(&src, &ParseOptions::default()).is_empty());
}

#[test]
fn more_habits_of_the_same_languages() {
    for (src, word) in [
        ("max(a, default=0)", "keyword arguments"),
        ("tags[0:2]", "`xs.slice(1, 3)`"),
        ("name[-3:]", "`xs.slice(1, 3)`"),
        ("'don''t'", "backslash"),
        ("qty::text", "`string(x)`"),
        ("EXTRACT(MONTH FROM created)", "`year(d)`"),
        ("\"total: \\(.total)\"", "template literal"),
        ("if .paid then 1 else 0 end", "`c ? a : b`"),
        ("if paid: 1", "`cond ? a : b`"),
    ] {
        let hint = first(src).hint.unwrap_or_default();
        assert!(hint.contains(word), "{src}: {hint:?}");
    }
    // A conditional inside an index is no slice.
    assert!(parse("tags[paid ? 0 : 1]").is_ok());
}

/// Pieces of XPR and of the other languages, to glue at random.
const PIECES: &[&str] = &[
    "a", "b", "1", "'s'", "\"t\"", "`x${a}y`", "and", "or", "not", "in", "is", "if", "else",
    "CASE", "WHEN", "THEN", "END", "LIKE", "BETWEEN", "AS", "for", "lambda", "function", "return",
    "new", "typeof", "const", "=", "==", "===", "!==", "<>", "<", ">", "|", "||", "&", "&&", "^",
    "$", "//", "/", ".", "..", "::", ":", "?", "(", ")", "[", "]", "{", "}", ",", ";", "=>", "let",
    "f", "'it''s'", "\\(", "null", "None", "x.y", "g(", " ",
];

/// Any glue of these pieces: no panic, the first error is the parse's own,
/// the rest come after it in order, at most MAX_ERRORS.
#[test]
fn any_mix_gives_ordered_errors_starting_with_the_parse_error() {
    let mut r = xpr_testkit::Rng::new(5);
    for case in 0..3000 {
        let mut src = String::new();
        for _ in 0..r.below(24) {
            src.push_str(r.pick::<&str>(PIECES));
            if r.coin() {
                src.push(' ');
            }
        }
        let errors = parse_errors(&src, &ParseOptions::default());
        match parse(&src) {
            Ok(_) => assert!(errors.is_empty(), "case {case}: {src}"),
            Err(e) => {
                assert_eq!(errors.first(), Some(&e), "case {case}: {src}");
                assert!(errors.len() <= xpr_syntax::MAX_ERRORS, "case {case}: {src}");
                for w in errors.windows(2) {
                    assert!(
                        w[0].span.start <= w[1].span.start,
                        "case {case}: {src}: {errors:?}"
                    );
                }
            }
        }
    }
}
