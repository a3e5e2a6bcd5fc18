//! Length and depth limits (spec "Limits"), bounded work on hostile input,
//! and character-offset error positions.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use xpr_syntax::{DEPTH_CEILING, ParseErrorKind, ParseOptions, lexer, parse, parse_with, print};

const TWO_MB: usize = 2 * 1024 * 1024;

/// Runs `f` on a 2 MiB thread; a generous watchdog turns a hang into a
/// failure (no time is asserted).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let handle = thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            f();
            let _ = tx.send(());
        })
        .expect("spawn test thread");
    match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(()) => handle.join().expect("test thread"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("watchdog: parse did not finish"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = handle.join() {
                std::panic::resume_unwind(p);
            }
        }
    }
}

fn big() -> ParseOptions {
    ParseOptions {
        max_length: Some(TWO_MB),
        max_depth: Some(50),
    }
}

fn depth_of(src: &str) -> Result<(), ParseErrorKind> {
    parse(src).map(|_| ()).map_err(|e| e.kind)
}

/// A huge nesting fails with the depth error, after lexing at most
/// `max_depth + 1` repetitions of `unit` (bounded work), on a 2 MiB stack.
fn hostile(unit: &'static str, count: usize) {
    on_small_stack(move || {
        let src = unit.repeat(count);
        let err = parse_with(&src, &big()).expect_err("must fail");
        assert_eq!(err.kind, ParseErrorKind::Depth, "{err}");
        assert!(err.to_string().contains("Expression depth limit exceeded"));
        let per_unit = lexer::tokenize(unit, 50).tokens.len().max(1);
        let lexed = lexer::tokenize(&src, 50);
        assert!(
            lexed.tokens.len() <= 51 * per_unit,
            "lexed {} tokens",
            lexed.tokens.len()
        );
        assert_eq!(lexed.error.map(|e| e.kind), Some(ParseErrorKind::Depth));
    });
}

#[test]
fn hundred_thousand_parens() {
    hostile("(", 100_000);
}

#[test]
fn hundred_thousand_brackets() {
    hostile("[", 100_000);
}

#[test]
fn a_megabyte_of_minus() {
    hostile("-", 1 << 20);
}

#[test]
fn alternating_prefix_and_parens() {
    hostile("-(", 500_000);
}

#[test]
fn a_megabyte_of_braces_and_holes() {
    hostile("{a:", 300_000);
    hostile("`${", 300_000);
    hostile("f(", 500_000);
}

#[test]
fn long_flat_inputs_do_linear_work() {
    on_small_stack(|| {
        // Left-associative chains are reduced as they are read; the depth
        // error comes from the 51st node. 100,000 nodes: any recursion per
        // node (at least a few dozen bytes of stack each) would overflow
        // the 2 MiB stack.
        let src = "1 + ".repeat(100_000) + "1";
        let err = parse_with(&src, &big()).expect_err("too deep");
        assert_eq!(err.kind, ParseErrorKind::Depth);
        // Right-associative chains and long flat lists.
        let src = "2 ** ".repeat(100_000) + "2";
        assert_eq!(
            parse_with(&src, &big()).unwrap_err().kind,
            ParseErrorKind::Depth
        );
        let src = format!("[{}1]", "1, ".repeat(125_000));
        let ast = parse_with(&src, &big()).expect("a long flat array is fine");
        let lexed = lexer::tokenize(&src, 50);
        assert!(lexed.tokens.len() <= src.chars().count());
        drop(ast);
    });
}

#[test]
fn tokens_never_outnumber_characters() {
    for src in [
        "`${a}`",
        "``",
        "a?.b?.(c)",
        "[...x]",
        "/a/i.test(\"q\")",
        "let {a = 1, ...r} = o; a",
        "x=>x",
        "(a,b)=>a**b",
    ] {
        let lexed = lexer::tokenize(src, 50);
        assert!(lexed.error.is_none(), "{src}");
        assert!(lexed.tokens.len() <= src.chars().count(), "{src}");
    }
}

#[test]
fn depth_exactly_fifty_and_fifty_one() {
    let ok = Ok(());
    let deep = Err(ParseErrorKind::Depth);
    // Unary chain: n operators over a leaf is depth n + 1.
    assert_eq!(depth_of(&format!("{}1", "-".repeat(49))), ok);
    assert_eq!(depth_of(&format!("{}1", "-".repeat(50))), deep);
    assert_eq!(depth_of(&format!("{}1", "!".repeat(50))), deep);
    // Left-associative chain: n terms is depth n.
    let chain = |n: usize| vec!["1"; n].join(" + ");
    assert_eq!(depth_of(&chain(50)), ok);
    assert_eq!(depth_of(&chain(51)), deep);
    assert_eq!(depth_of(&chain(60)), deep);
    // Right-associative chains.
    assert_eq!(depth_of(&vec!["2"; 50].join(" ** ")), ok);
    assert_eq!(depth_of(&vec!["2"; 51].join(" ** ")), deep);
    assert_eq!(depth_of(&vec!["a"; 50].join(" |> ")), ok);
    assert_eq!(depth_of(&vec!["a"; 51].join(" |> ")), deep);
    // Nested arrays: n brackets around a leaf is depth n + 1.
    let arr = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(depth_of(&arr(49)), ok);
    assert_eq!(depth_of(&arr(50)), deep);
    // Nested calls f(f(...f(1))): n calls is depth n + 1.
    let calls = |n: usize| format!("{}1{}", "f(".repeat(n), ")".repeat(n));
    assert_eq!(depth_of(&calls(49)), ok);
    assert_eq!(depth_of(&calls(50)), deep);
    // Member chains: a leaf plus n members.
    let members = |n: usize| format!("a{}", ".b".repeat(n));
    assert_eq!(depth_of(&members(49)), ok);
    assert_eq!(depth_of(&members(50)), deep);
    // The optional chain wrapper adds none.
    let opt = |n: usize| format!("a{}", "?.b".repeat(n));
    assert_eq!(depth_of(&opt(49)), ok);
    assert_eq!(depth_of(&opt(50)), deep);
    // let chains: n lets over a leaf body.
    let lets = |n: usize| format!("{}a", "let a = 1; ".repeat(n));
    assert_eq!(depth_of(&lets(49)), ok);
    assert_eq!(depth_of(&lets(50)), deep);
    // Nested patterns: let(1) > k arrays > ident.
    let pats = |k: usize| format!("let {}a{} = x; a", "[".repeat(k), "]".repeat(k));
    assert_eq!(depth_of(&pats(48)), ok);
    assert_eq!(depth_of(&pats(49)), deep);
    // Templates nested in holes: n templates around a leaf.
    let tpl = |n: usize| format!("{}1{}", "`${".repeat(n), "}`".repeat(n));
    assert_eq!(depth_of(&tpl(49)), ok);
    assert_eq!(depth_of(&tpl(50)), deep);
}

#[test]
fn parentheses_add_no_depth() {
    // A depth-50 unary chain with a group around every operand.
    let src = format!("{}1{}", "-(".repeat(49), ")".repeat(49));
    assert_eq!(depth_of(&src), Ok(()));
    let src = format!("{}1{}", "-(".repeat(50), ")".repeat(50));
    assert_eq!(depth_of(&src), Err(ParseErrorKind::Depth));
    // Grouping parentheses: nesting up to the limit is accepted whatever
    // the AST depth; deeper bracket nesting is reported as a depth error.
    let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    assert!(parse(&parens(50)).is_ok());
    assert_eq!(
        parse(&parens(51)).map(|_| ()).map_err(|e| e.kind),
        Err(ParseErrorKind::Depth)
    );
    // A chain of 50 with parentheses around it still parses.
    assert!(parse(&format!("(({}))", vec!["1"; 50].join(" + "))).is_ok());
}

#[test]
fn configurable_depth() {
    let opts = |d: Option<u32>| ParseOptions {
        max_length: None,
        max_depth: d,
    };
    assert!(parse_with("1 + 2 + 3", &opts(Some(3))).is_ok());
    assert_eq!(
        parse_with("1 + 2 + 3 + 4", &opts(Some(3)))
            .unwrap_err()
            .kind,
        ParseErrorKind::Depth
    );
    assert_eq!(
        parse_with("1", &opts(Some(0))).unwrap_err().kind,
        ParseErrorKind::Depth
    );
    // None means the ceiling; the deepest accepted tree prints and drops
    // on a 2 MiB stack.
    on_small_stack(move || {
        let n = DEPTH_CEILING as usize;
        let ok = format!("{}1", "-".repeat(n - 1));
        let ast = parse_with(&ok, &opts(None)).expect("at the ceiling");
        assert_eq!(print(&ast), ok);
        drop(ast);
        let arr = format!("{}1{}", "[".repeat(n - 1), "]".repeat(n - 1));
        let ast = parse_with(&arr, &opts(None)).expect("at the ceiling");
        assert_eq!(print(&ast), arr);
        drop(ast);
        let too_deep = format!("{}1", "-".repeat(n));
        assert_eq!(
            parse_with(&too_deep, &opts(Some(u32::MAX)))
                .unwrap_err()
                .kind,
            ParseErrorKind::Depth
        );
    });
}

#[test]
fn length_limit_counts_characters() {
    let at_limit = format!("\"{}\"", "😀".repeat(9_998));
    assert!(parse(&at_limit).is_ok(), "10,000 characters (39,994 bytes)");
    let over = format!("\"{}\"", "😀".repeat(9_999));
    let err = parse(&over).unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::Length);
    assert!(
        err.message.contains("Expression length limit exceeded"),
        "{err}"
    );
    assert_eq!(err.span.start, 10_000);
    let unlimited = ParseOptions {
        max_length: None,
        max_depth: Some(50),
    };
    assert!(parse_with(&over, &unlimited).is_ok());
    let tight = ParseOptions {
        max_length: Some(3),
        max_depth: Some(50),
    };
    assert!(parse_with("1+2", &tight).is_ok());
    assert_eq!(
        parse_with("1 + 2", &tight).unwrap_err().kind,
        ParseErrorKind::Length
    );
}

#[test]
fn error_positions_are_character_offsets() {
    let cases: &[(&str, u32, &str)] = &[
        ("\"😀\" + @", 6, "Unexpected token '@'"),
        ("'日本語' + )", 8, "Unexpected token ')'"),
        ("[\"é\", \"\\q\"]", 7, "Invalid escape sequence '\\q'"),
        ("\"😀😀\" + \"abc", 7, "Unterminated string"),
        ("`😀${1 +}`", 7, "Unexpected token '}`'"),
        ("'😀' ** 1e400", 7, "Number out of range"),
        ("\"ß\" + /a/g", 9, "Invalid regex flag 'g'"),
        ("let {😀} = 1; 2", 5, "Unexpected token '😀'"),
        ("(\"€\" + 1", 0, "Unmatched '('"),
        ("\"€€\" +", 6, "Unexpected end of expression"),
        ("let {a, b: [c, a]} = o; a", 15, "duplicate binding 'a'"),
        // A raw CR LF in a template reads as one LF but spans two characters.
        ("`a\r\nb\r` + @", 10, "Unexpected token '@'"),
        ("`\r\n${1 +}`", 8, "Unexpected token '}`'"),
    ];
    for &(src, pos, msg) in cases {
        let err = parse(src).expect_err(src);
        assert_eq!(err.span.start, pos, "{src}: {err}");
        assert!(err.message.contains(msg), "{src}: {err}");
        assert!(!err.message.contains("at position"), "{src}: {err}");
        assert_eq!(
            err.to_string(),
            format!("{} at position {pos}", err.message)
        );
    }
}

/// A node of a binary operator is built (and its depth checked) when the
/// operator after its right operand is read, as a rule per precedence tier
/// builds it: a chain too deep by then fails with the depth error even when
/// the very next token is wrong too. An operator of the same or lower
/// precedence completes the chain's nodes; a higher one completes none.
#[test]
fn an_operator_chain_is_too_deep_at_the_operator_that_completes_it() {
    let first = |src: &str| parse(src).map(|_| ()).map_err(|e| (e.kind, e.span.start));
    let depth = Err((ParseErrorKind::Depth, 0));
    for (op, tail, completes) in [
        (" + ", " + )", true),
        (" + ", " - @", true),
        (" + ", " ?? *", true),
        (" + ", " * )", false),
        (" * ", " + )", true),
        (" * ", " ** )", false),
        (" && ", " || )", true),
        (" && ", " + )", false),
        (" ?? ", " ?? ,", true),
        (" ?? ", " == )", false),
    ] {
        let chain = |n: usize| vec!["a"; n].join(op);
        // 51 terms: the 50th operator's node is depth 51.
        let src = format!("{}{tail}", chain(51));
        if completes {
            assert_eq!(first(&src), depth, "{src}");
        } else {
            assert_eq!(
                first(&src).map_err(|e| e.0),
                Err(ParseErrorKind::Syntax),
                "{src}"
            );
        }
        // 50 terms are depth 50: the next token's error is the first.
        let src = format!("{}{tail}", chain(50));
        assert_eq!(
            first(&src).map_err(|e| e.0),
            Err(ParseErrorKind::Syntax),
            "{src}"
        );
    }
    // A right-associative chain is built from the right when it ends: its
    // first node too deep is the one of the second `**` (at 5).
    let src = format!("{} + )", vec!["2"; 52].join(" ** "));
    assert_eq!(first(&src), Err((ParseErrorKind::Depth, 5)), "{src}");
}
