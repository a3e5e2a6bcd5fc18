//! AST goldens: each expression with its tree as a compact S-expression
//! (spans left out; see `spans` for those), in the golden files
//! `tests/snapshots/snapshots__<test>.snap`. Reviewed by eye; regenerate
//! with `XPR_BLESS=1 cargo test -p xpr-syntax --test syntax snapshots` and
//! read the diff.

use std::path::Path;

use xpr_syntax::ast::{BinaryOp, Element, Expr, ExprKind, LogicalOp, Pattern, Property, UnaryOp};
use xpr_syntax::{Span, parse};

/// Asserts that `text` is the golden file `tests/snapshots/snapshots__NAME.snap`.
#[track_caller]
fn assert_golden(name: &str, text: &str) {
    xpr_testkit::assert_golden(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"),
        &format!("snapshots__{name}"),
        text,
    );
}

fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Number(n) => n.to_string(),
        ExprKind::String(s) => format!("{s:?}"),
        ExprKind::Template { quasis, exprs } => {
            let mut parts = vec!["template".to_string()];
            for (i, q) in quasis.iter().enumerate() {
                parts.push(format!("{q:?}"));
                if let Some(x) = exprs.get(i) {
                    parts.push(sexp(x));
                }
            }
            format!("({})", parts.join(" "))
        }
        ExprKind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
        ExprKind::Array(els) => format!("(array{})", elements(els)),
        ExprKind::Object(props) => {
            let ps: Vec<String> = props
                .iter()
                .map(|p| match p {
                    Property::KeyValue { key, value } => {
                        format!(" ({:?} {})", key.name, sexp(value))
                    }
                    Property::Spread(x, _) => format!(" (... {})", sexp(x)),
                })
                .collect();
            format!("(object{})", ps.concat())
        }
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Member {
            object,
            property,
            optional,
        } => format!(
            "({} {} {})",
            if *optional { "?." } else { "." },
            sexp(object),
            property.name
        ),
        ExprKind::Index { object, index } => format!("(index {} {})", sexp(object), sexp(index)),
        ExprKind::Call {
            callee,
            args,
            optional,
        } => format!(
            "({} {}{})",
            if *optional { "?.call" } else { "call" },
            sexp(callee),
            elements(args)
        ),
        ExprKind::OptionalChain(x) => format!("(chain {})", sexp(x)),
        ExprKind::Unary { op, operand } => format!(
            "({} {})",
            match op {
                UnaryOp::Not => "!",
                UnaryOp::Neg => "neg",
            },
            sexp(operand)
        ),
        ExprKind::Binary { op, lhs, rhs } => {
            let o = match op {
                BinaryOp::Add => "+",
                BinaryOp::Sub => "-",
                BinaryOp::Mul => "*",
                BinaryOp::Div => "/",
                BinaryOp::Rem => "%",
                BinaryOp::Pow => "**",
                BinaryOp::Eq => "==",
                BinaryOp::Ne => "!=",
                BinaryOp::Lt => "<",
                BinaryOp::Le => "<=",
                BinaryOp::Gt => ">",
                BinaryOp::Ge => ">=",
            };
            format!("({o} {} {})", sexp(lhs), sexp(rhs))
        }
        ExprKind::Logical { op, lhs, rhs } => {
            let o = match op {
                LogicalOp::And => "&&",
                LogicalOp::Or => "||",
                LogicalOp::Nullish => "??",
            };
            format!("({o} {} {})", sexp(lhs), sexp(rhs))
        }
        ExprKind::Conditional {
            test,
            then,
            otherwise,
        } => format!("(? {} {} {})", sexp(test), sexp(then), sexp(otherwise)),
        ExprKind::Arrow(a) => {
            let mut ps: Vec<String> = a.params.iter().map(pattern).collect();
            if let Some(r) = &a.rest {
                ps.push(format!("...{}", r.name));
            }
            format!("(=> ({}) {})", ps.join(" "), sexp(&a.body))
        }
        ExprKind::Pipe { lhs, rhs } => format!("(|> {} {})", sexp(lhs), sexp(rhs)),
        ExprKind::Let {
            target,
            value,
            body,
        } => format!("(let {} {} {})", pattern(target), sexp(value), sexp(body)),
    }
}

fn elements(els: &[Element]) -> String {
    els.iter()
        .map(|e| match e {
            Element::Expr(x) => format!(" {}", sexp(x)),
            Element::Spread(x, _) => format!(" (... {})", sexp(x)),
        })
        .collect()
}

fn default(d: &Option<Expr>) -> String {
    d.as_ref()
        .map(|d| format!("={}", sexp(d)))
        .unwrap_or_default()
}

fn pattern(p: &Pattern) -> String {
    match p {
        Pattern::Ident(n) => n.name.clone(),
        Pattern::Object(o) => {
            let mut parts: Vec<String> = o
                .entries
                .iter()
                .map(|e| {
                    if e.shorthand {
                        format!("{}{}", e.key.name, default(&e.default))
                    } else {
                        format!(
                            "{:?}:{}{}",
                            e.key.name,
                            pattern(&e.target),
                            default(&e.default)
                        )
                    }
                })
                .collect();
            if let Some(r) = &o.rest {
                parts.push(format!("...{}", r.name));
            }
            format!("{{{}}}", parts.join(" "))
        }
        Pattern::Array(a) => {
            let mut parts: Vec<String> = a
                .elements
                .iter()
                .map(|e| format!("{}{}", pattern(&e.target), default(&e.default)))
                .collect();
            if let Some(r) = &a.rest {
                parts.push(format!("...{}", r.name));
            }
            format!("[{}]", parts.join(" "))
        }
    }
}

fn render(cases: &[&str]) -> String {
    let mut out = String::new();
    for src in cases {
        let tree = match parse(src) {
            Ok(e) => sexp(&e),
            Err(e) => format!("ERROR {e}"),
        };
        out.push_str(&format!("{src}\n    {tree}\n"));
    }
    out
}

#[test]
fn literals() {
    assert_golden(
        "literals",
        &render(&[
            "42",
            "3.14",
            "1e10",
            "2.5e-3",
            "0",
            "\"hello\"",
            "'world'",
            "\"it's\"",
            "'say \"hi\"'",
            r#""\n\t\\\'\"\r\0""#,
            "true",
            "false",
            "null",
            "[1, \"mixed\", true, null]",
            "[]",
            "[1, 2,]",
            "{\"key\": \"value\", other: 1, \"nested\": {\"deep\": true},}",
            "{}",
            "`plain string`",
            "`Hello ${name}, you have ${count} items`",
            "`a${`b${c}`}d`",
            "`${ {a: 1}.a }`",
            r"`\${not a hole} \` \{`",
            r"/\d+/",
            r"/[a/b]+/im",
            "x",
            "_under_score9",
        ]),
    );
}

#[test]
fn precedence() {
    assert_golden(
        "precedence",
        &render(&[
            "2 + 3 * 4",
            "(2 + 3) * 4",
            "2 ** 3 ** 2",
            "-2 ** 2",
            "2 ** -2",
            "-x.y",
            "!a && b",
            "a - b - c",
            "a / b % c * d",
            "a + b < c - d",
            "a < b == c > d",
            "a == b && c != d",
            "a && b || c && d",
            "a || b ?? c",
            "a ?? b ?? c",
            "a ? b : c ? d : e",
            "a ? b ? c : d : e",
            "a ?? b ? c : d",
            "1 + 2 |> string",
            "a |> f ? b : c",
            "a |> f |> g(1)",
            "x ? y |> f : z",
            "- - x",
            "!!x",
            "a <= b >= c",
        ]),
    );
}

#[test]
fn postfix_and_optional_chains() {
    assert_golden(
        "postfix_and_optional_chains",
        &render(&[
            "user.address.city",
            "users[0].name",
            "f(1, 2)",
            "f()",
            "f(a,)",
            "fn(...args)",
            "fn(a, ...rest, b)",
            "obj.method(...args)",
            "a?.b",
            "a?.b.c",
            "(a?.b).c",
            "a.b?.c.d",
            "a?.b?.c",
            "obj.fn?.(arg)",
            "a?.b()",
            "a?.b[0]",
            "(a?.b)?.c",
            "42.map(x => x)",
            "{\"a\": 1}.keys()",
            "a.true.null",
            "f(x)(y)[z]",
            "/a/i.test(s)",
            "`t`.length",
        ]),
    );
}

#[test]
fn arrows() {
    assert_golden(
        "arrows",
        &render(&[
            "x => x * 2",
            "(x, y) => x + y",
            "() => 1",
            "(x) => x",
            "(x,) => x",
            "({name}) => name",
            "([a, b]) => a + b",
            "(first, ...rest) => rest",
            "(...args) => args",
            "({a: {b}}, [c, [d]]) => b",
            "items.map(x => x.price * x.qty)",
            "items.reduce((sum, x) => sum + x, 0)",
            "items |> filter(x => x > 5)",
            "x => x + 1 |> string",
            "let f = x => x + 1 |> string; f(1)",
            "f(x => x, y => y)",
            "x => y => x + y",
            "x => a ? b : c",
            "a ? x => x : y => y",
            "1 + x => x",
            "-x => x",
            "x => let y = x; y",
            "(x => x)(1)",
        ]),
    );
}

#[test]
fn let_and_patterns() {
    assert_golden(
        "let_and_patterns",
        &render(&[
            "let x = 1; x + 1",
            "let x = 1; let y = x + 1; y",
            "x > 0 ? let a = x * 2; a : 0",
            "[let x = 1; x * 2, let y = 3; y]",
            "let {name, age} = user; name",
            "let {name: n, age: a} = user; n",
            "let {name = \"Anonymous\"} = {}; name",
            "let {a, ...rest} = o; rest",
            "let {address: {city}} = user; city",
            "let {\"first name\": f} = o; f",
            "let {a: b = 1} = o; b",
            "let {a: b, a: c} = o; b",
            "let [first, second] = arr; first",
            "let [head, ...tail] = arr; tail",
            "let [a = 0, b = 0] = arr; b",
            "let [[a, b], [c, d]] = m; c",
            "let {} = o; 1",
            "let [] = a; 1",
            "let {a,} = o; a",
            "1 + let x = 2; x",
        ]),
    );
}

#[test]
fn spread_and_collections() {
    assert_golden(
        "spread_and_collections",
        &render(&[
            "[...[1, 2], 3, 4]",
            "[...a, ...b]",
            "[...[]]",
            "{...{\"a\": 1}, \"b\": 2}",
            "{...defaults, ...overrides}",
            "{...{}}",
            "x |> fn(...rest)",
            "[0, ...items, 99]",
        ]),
    );
}

#[test]
fn regex_disambiguation() {
    assert_golden(
        "regex_disambiguation",
        &render(&[
            "a / b / c",
            "a / /b/",
            "/a/ / 2",
            "(a) / 2",
            "[a] / 2",
            "x.y / 2",
            "f(/a/, /b/m)",
            "true ? /a/ : /b/",
            "let r = /a/; r",
            "x => /a/.test(x)",
            "[/a/, /b/]",
            "{r: /x/}",
            "!/a/.test(s)",
            "s |> /a/.test",
            "`${/a/}`",
            "1 / 2",
            "\"s\" / 2",
            "null / 2",
            r"/\//",
            r"/[\]/]/",
            "x.let / 2",
            "x?.true / y.null / 2",
            "{let: 1}",
        ]),
    );
}

#[test]
fn errors() {
    assert_golden(
        "errors",
        &render(&[
            "",
            "1 +",
            "(1 + 2",
            "[1, 2",
            "{a: 1",
            "1 2",
            ")",
            "let x; x",
            "let x = 1;",
            "let = 1; 2",
            "let 123 = 1; 2",
            "let + 1",
            "let {a, a} = o; a",
            "let [a, [b, a]] = o; a",
            "(a, a) => a",
            "(a, ...b, c) => a",
            "let [...a, b] = o; a",
            "let {...a, b} = o; a",
            "(a = 1) => a",
            "{a}",
            "a?.[0]",
            "\"abc",
            "'a\nb'",
            r#""\u0041""#,
            r#""\x41""#,
            r#""\q""#,
            r"`\q`",
            "`abc",
            "`a${1`",
            "/abc",
            "//",
            "/a/g",
            "/a/ii",
            "1e400",
            "1e",
            "1e+",
            "@",
            "a & b",
            "a | b",
            "a..b",
            "(]",
            "`${}`",
            "(a + b) => 1",
            "f(x) => 1",
        ]),
    );
}

#[test]
fn spans() {
    let e = parse("a + (b * c)").unwrap();
    assert_eq!(e.span, Span::new(0, 11));
    let ExprKind::Binary { lhs, rhs, .. } = &e.kind else {
        panic!("binary expected");
    };
    assert_eq!(lhs.span, Span::new(0, 1));
    assert_eq!(
        rhs.span,
        Span::new(4, 11),
        "the group's span covers its parentheses"
    );
    let e = parse("\"😀\".len()").unwrap();
    assert_eq!(e.span, Span::new(0, 9));
    let ExprKind::Call { callee, .. } = &e.kind else {
        panic!("call expected");
    };
    let ExprKind::Member { property, .. } = &callee.kind else {
        panic!("member expected");
    };
    assert_eq!(property.span, Span::new(4, 7));
    let e = parse("[1, ...xs]").unwrap();
    let ExprKind::Array(els) = &e.kind else {
        panic!("array expected");
    };
    let Some(Element::Spread(x, s)) = els.get(1) else {
        panic!("spread expected");
    };
    assert_eq!((x.span, *s), (Span::new(7, 9), Span::new(4, 9)));
    let e = parse("let {a: b = 1} = o; b").unwrap();
    let ExprKind::Let { target, .. } = &e.kind else {
        panic!("let expected");
    };
    assert_eq!(target.span(), Span::new(4, 14));
    let e = parse("a?.b.c").unwrap();
    assert_eq!(e.span, Span::new(0, 6));
    let e = parse("`x${y}z`").unwrap();
    assert_eq!(e.span, Span::new(0, 8));
    let e = parse("x => x").unwrap();
    assert_eq!(e.span, Span::new(0, 6));
}

#[test]
fn errors_list_the_expected_tokens() {
    let e = parse("f(1").unwrap_err();
    assert_eq!(e.message, "Unmatched '('");
    assert!(e.expected.iter().any(|t| t == ")"), "{:?}", e.expected);
    assert!(e.expected.iter().any(|t| t == ","), "{:?}", e.expected);
    let e = parse("let x 1; x").unwrap_err();
    assert_eq!(e.expected, vec!["=".to_string()]);
    let e = parse("1 +").unwrap_err();
    for t in [
        "number",
        "identifier",
        "(",
        "[",
        "{",
        "-",
        "!",
        "let",
        "template",
        "regex",
    ] {
        assert!(
            e.expected.iter().any(|x| x == t),
            "{t} missing from {:?}",
            e.expected
        );
    }
    assert!(!e.expected.iter().any(|x| x == ")"), "{:?}", e.expected);
    assert!(parse("@").unwrap_err().expected.is_empty());
}
