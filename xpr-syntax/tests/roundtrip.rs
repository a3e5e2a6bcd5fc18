//! The printer round-trip property: for randomly generated ASTs `t` (of
//! the shapes the parser produces), `parse(print(t))` is `t` with spans
//! erased; and for parsed sources `s`, `parse(print(parse(s))) == parse(s)`.

use std::collections::HashSet;

use proptest::prelude::*;
use xpr_syntax::ast::{
    ArrayPattern, ArrayPatternElement, Arrow, BinaryOp, Element, Expr, ExprKind, LogicalOp, Name,
    ObjectPattern, ObjectPatternEntry, Pattern, Property, UnaryOp,
};
use xpr_syntax::{ParseOptions, Span, parse, parse_with, print};

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

// ------------------------------------------------------------ generators

fn mk(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn nm(s: String) -> Name {
    Name {
        name: s,
        span: Span::default(),
    }
}

fn ident() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,4}".prop_filter("keyword", |s| {
        !matches!(s.as_str(), "true" | "false" | "null" | "let")
    })
}

fn member_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => ident(),
        1 => prop::sample::select(vec!["true", "false", "null", "let"]).prop_map(String::from),
    ]
}

fn text() -> impl Strategy<Value = String> {
    "[a-z \"'\\\\\n\t\r$`{}é😀\u{0}]{0,6}"
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        (0u32..100_000).prop_map(f64::from),
        (0.0f64..1e6),
        prop::num::f64::POSITIVE.prop_filter("finite", |n| n.is_finite()),
        prop::sample::select(vec![0.1, 1e21, 1e-7, 2.5e-3, 1e300, 5e-324]),
    ]
}

fn regex() -> impl Strategy<Value = ExprKind> {
    (
        prop::sample::select(vec!["a", r"\d+", "[/]", r"\/x", "a[b/]c", "(x|y)*", r"\\"]),
        prop::sample::subsequence(vec!['i', 'm', 's'], 0..=3),
    )
        .prop_map(|(p, f)| ExprKind::Regex {
            pattern: p.to_string(),
            flags: f.into_iter().collect(),
        })
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        Just(mk(ExprKind::Null)),
        any::<bool>().prop_map(|b| mk(ExprKind::Bool(b))),
        number().prop_map(|n| mk(ExprKind::Number(n))),
        text().prop_map(|s| mk(ExprKind::String(s))),
        ident().prop_map(|s| mk(ExprKind::Ident(s))),
        ident().prop_map(|s| mk(ExprKind::Ident(s))),
        regex().prop_map(mk),
        text().prop_map(|s| mk(ExprKind::Template {
            quasis: vec![s],
            exprs: vec![]
        })),
    ]
}

fn element(inner: BoxedStrategy<Expr>) -> BoxedStrategy<Element> {
    (any::<bool>(), inner)
        .prop_map(|(spread, x)| {
            if spread {
                Element::Spread(x, Span::default())
            } else {
                Element::Expr(x)
            }
        })
        .boxed()
}

fn binary_op() -> impl Strategy<Value = BinaryOp> {
    prop::sample::select(vec![
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Pow,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
    ])
}

fn pattern(inner: BoxedStrategy<Expr>) -> BoxedStrategy<Pattern> {
    let leaf = ident().prop_map(|s| Pattern::Ident(nm(s)));
    leaf.prop_recursive(2, 8, 3, move |p| {
        let entry = (
            any::<bool>(),
            prop_oneof![ident(), text()],
            ident(),
            p.clone(),
            prop::option::weighted(0.3, inner.clone()),
        )
            .prop_map(|(short, key, id, target, default)| {
                if short {
                    ObjectPatternEntry {
                        key: nm(id.clone()),
                        target: Pattern::Ident(nm(id)),
                        default,
                        shorthand: true,
                    }
                } else {
                    ObjectPatternEntry {
                        key: nm(key),
                        target,
                        default,
                        shorthand: false,
                    }
                }
            });
        let obj = (
            prop::collection::vec(entry, 0..3),
            prop::option::weighted(0.3, ident()),
        )
            .prop_map(|(entries, rest)| {
                Pattern::Object(ObjectPattern {
                    entries,
                    rest: rest.map(nm),
                    span: Span::default(),
                })
            });
        let el = (p, prop::option::weighted(0.3, inner.clone()))
            .prop_map(|(target, default)| ArrayPatternElement { target, default });
        let arr = (
            prop::collection::vec(el, 0..3),
            prop::option::weighted(0.3, ident()),
        )
            .prop_map(|(elements, rest)| {
                Pattern::Array(ArrayPattern {
                    elements,
                    rest: rest.map(nm),
                    span: Span::default(),
                })
            });
        prop_oneof![obj, arr]
    })
    .boxed()
}

/// Renames repeated bindings so a pattern list binds each name once.
fn uniquify(p: &mut Pattern, seen: &mut HashSet<String>) {
    fn fresh(n: &mut Name, seen: &mut HashSet<String>) -> bool {
        let mut renamed = false;
        while !seen.insert(n.name.clone()) {
            n.name.push('1');
            renamed = true;
        }
        renamed
    }
    match p {
        Pattern::Ident(n) => {
            fresh(n, seen);
        }
        Pattern::Object(o) => {
            for e in &mut o.entries {
                if e.shorthand {
                    if let Pattern::Ident(n) = &mut e.target
                        && fresh(n, seen)
                    {
                        e.shorthand = false;
                    }
                } else {
                    uniquify(&mut e.target, seen);
                }
            }
            if let Some(r) = &mut o.rest {
                fresh(r, seen);
            }
        }
        Pattern::Array(a) => {
            for e in &mut a.elements {
                uniquify(&mut e.target, seen);
            }
            if let Some(r) = &mut a.rest {
                fresh(r, seen);
            }
        }
    }
}

/// A postfix operation of an optional chain.
#[derive(Debug, Clone)]
enum Op {
    Member(String, bool),
    Index(Expr),
    Call(Vec<Element>, bool),
}

fn apply(object: Expr, op: Op) -> Expr {
    let object = Box::new(object);
    mk(match op {
        Op::Member(n, optional) => ExprKind::Member {
            object,
            property: nm(n),
            optional,
        },
        Op::Index(i) => ExprKind::Index {
            object,
            index: Box::new(i),
        },
        Op::Call(args, optional) => ExprKind::Call {
            callee: object,
            args,
            optional,
        },
    })
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        let b = |x: Expr| Box::new(x);
        let args = prop::collection::vec(element(inner.clone()), 0..3);
        let op = prop_oneof![
            (member_name(), any::<bool>()).prop_map(|(n, o)| Op::Member(n, o)),
            inner.clone().prop_map(Op::Index),
            (args.clone(), any::<bool>()).prop_map(|(a, o)| Op::Call(a, o)),
        ];
        let chain = (inner.clone(), prop::collection::vec(op, 1..4)).prop_map(|(base, mut ops)| {
            let first_optional = match ops.first_mut() {
                Some(Op::Member(_, o)) | Some(Op::Call(_, o)) => {
                    *o = true;
                    true
                }
                _ => false,
            };
            if !first_optional {
                ops.insert(0, Op::Member("q".into(), true));
            }
            let inner = ops.into_iter().fold(base, apply);
            mk(ExprKind::OptionalChain(Box::new(inner)))
        });
        let params = (
            prop::collection::vec(pattern(inner.clone()), 0..3),
            prop::option::weighted(0.3, ident()),
        );
        prop_oneof![
            2 => (
                prop::sample::select(vec![UnaryOp::Not, UnaryOp::Neg]),
                inner.clone()
            )
                .prop_map(move |(op, x)| mk(ExprKind::Unary { op, operand: b(x) })),
            8 => (binary_op(), inner.clone(), inner.clone()).prop_map(move |(op, l, r)| mk(
                ExprKind::Binary {
                    op,
                    lhs: b(l),
                    rhs: b(r)
                }
            )),
            3 => (
                prop::sample::select(vec![LogicalOp::And, LogicalOp::Or, LogicalOp::Nullish]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(move |(op, l, r)| mk(ExprKind::Logical {
                    op,
                    lhs: b(l),
                    rhs: b(r)
                })),
            2 => (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(t, a, c)| mk(
                ExprKind::Conditional {
                    test: b(t),
                    then: b(a),
                    otherwise: b(c)
                }
            )),
            2 => (inner.clone(), inner.clone()).prop_map(move |(l, r)| mk(ExprKind::Pipe {
                lhs: b(l),
                rhs: b(r)
            })),
            1 => prop::collection::vec(element(inner.clone()), 0..4)
                .prop_map(|e| mk(ExprKind::Array(e))),
            1 => prop::collection::vec(
                prop_oneof![
                    (prop_oneof![ident(), member_name(), text()], inner.clone()).prop_map(
                        |(k, v)| Property::KeyValue {
                            key: nm(k),
                            value: v
                        }
                    ),
                    inner
                        .clone()
                        .prop_map(|x| Property::Spread(x, Span::default())),
                ],
                0..4
            )
            .prop_map(|p| mk(ExprKind::Object(p))),
            1 => (inner.clone(), member_name()).prop_map(move |(o, n)| mk(ExprKind::Member {
                object: b(o),
                property: nm(n),
                optional: false
            })),
            1 => (inner.clone(), inner.clone()).prop_map(move |(o, i)| mk(ExprKind::Index {
                object: b(o),
                index: b(i)
            })),
            1 => (inner.clone(), args).prop_map(move |(c, a)| mk(ExprKind::Call {
                callee: b(c),
                args: a,
                optional: false
            })),
            1 => chain,
            1 => (prop::collection::vec((text(), inner.clone()), 1..3), text()).prop_map(
                |(parts, last)| {
                    let (mut quasis, exprs): (Vec<String>, Vec<Expr>) = parts.into_iter().unzip();
                    quasis.push(last);
                    mk(ExprKind::Template { quasis, exprs })
                }
            ),
            1 => (params, inner.clone()).prop_map(|((mut params, rest), body)| {
                let mut seen = HashSet::new();
                params.iter_mut().for_each(|p| uniquify(p, &mut seen));
                let mut rest = rest.map(nm);
                if let Some(r) = &mut rest {
                    while !seen.insert(r.name.clone()) {
                        r.name.push('2');
                    }
                }
                mk(ExprKind::Arrow(Box::new(Arrow { params, rest, body })))
            }),
            1 => (pattern(inner.clone()), inner.clone(), inner.clone()).prop_map(
                move |(mut target, v, body)| {
                    uniquify(&mut target, &mut HashSet::new());
                    mk(ExprKind::Let {
                        target,
                        value: b(v),
                        body: b(body),
                    })
                }
            ),
        ]
    })
}

fn roomy() -> ParseOptions {
    ParseOptions {
        max_length: None,
        max_depth: Some(200),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printed_trees_parse_back(tree in expr()) {
        let text = print(&tree);
        let mut back = parse_with(&text, &roomy())
            .map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        erase(&mut back);
        let mut want = tree;
        erase(&mut want);
        prop_assert_eq!(back, want, "printed: {}", text);
    }

    #[test]
    fn printing_is_a_fixpoint(tree in expr()) {
        let once = print(&tree);
        let parsed = parse_with(&once, &roomy())
            .map_err(|e| TestCaseError::fail(format!("{once}\n{e}")))?;
        prop_assert_eq!(print(&parsed), once);
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Any text parses or fails with a positioned error, never panics; what
    /// parses prints back to the same tree.
    #[test]
    fn token_soup_parses_or_fails_cleanly(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..24)) {
        let src = parts.concat();
        match parse(&src) {
            Ok(mut tree) => {
                let text = print(&tree);
                let mut back = parse_with(&text, &roomy())
                    .map_err(|e| TestCaseError::fail(format!("{src} printed as {text}: {e}")))?;
                erase(&mut tree);
                erase(&mut back);
                prop_assert_eq!(back, tree, "{} printed as {}", src, text);
            }
            Err(e) => {
                prop_assert!(e.span.start as usize <= src.chars().count(), "{}: {}", src, e);
                prop_assert!(!e.message.is_empty());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Near-valid text: a printed tree with a few characters replaced by a
    /// fragment. Parses or fails cleanly; what parses round-trips.
    #[test]
    fn mutated_sources_parse_or_fail_cleanly(
        tree in expr(),
        at in any::<prop::sample::Index>(),
        cut in 0usize..3,
        frag in prop::sample::select(FRAGMENTS),
    ) {
        let chars: Vec<char> = print(&tree).chars().collect();
        let i = at.index(chars.len() + 1);
        let mut src: String = chars.iter().take(i).collect();
        src.push_str(frag);
        src.extend(chars.iter().skip(i + cut));
        match parse_with(&src, &roomy()) {
            Ok(mut tree) => {
                let text = print(&tree);
                let mut back = parse_with(&text, &roomy())
                    .map_err(|e| TestCaseError::fail(format!("{src} printed as {text}: {e}")))?;
                erase(&mut tree);
                erase(&mut back);
                prop_assert_eq!(back, tree, "{} printed as {}", src, text);
            }
            Err(e) => {
                prop_assert!(e.span.start as usize <= src.chars().count(), "{}: {}", src, e);
                prop_assert!(!e.message.is_empty());
            }
        }
    }
}
