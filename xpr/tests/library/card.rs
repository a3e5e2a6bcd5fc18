//! The language card (`xpr::card`): every built-in is listed, every example
//! evaluates to what the card says, every correction is right where the
//! mistake is wrong, the card stays within its size, and the filter and
//! host functions shape it.

use xpr::{Arity, Card, Engine, Value};
use xpr_vm::stdlib::catalog;

/// The lines of section `## TITLE...` of the card.
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with(&format!("## {title}")));
    lines.next();
    lines
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.is_empty())
        .collect()
}

fn json(v: &Value) -> String {
    xpr::to_json_string(v).expect("JSON")
}

#[test]
fn every_example_evaluates_to_what_the_card_says() {
    let engine = Engine::new();
    let text = xpr::card(&engine);
    let examples = section(&text, "Examples");
    assert!(examples.len() >= 10, "{examples:?}");
    for line in examples {
        let (expr, said) = line.split_once(" ==> ").expect("expression ==> result");
        let got = engine
            .eval(expr, &())
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(json(&got), said, "{expr}");
    }
}

#[test]
fn every_registered_builtin_appears_with_its_meaning() {
    let text = xpr::card(&Engine::new());
    let lines: Vec<&str> = text.lines().collect();
    let var = |r: &str| match r {
        "string" => "s",
        "array" => "a",
        "object" => "o",
        "regex" => "re",
        other => panic!("no card variable for {other}"),
    };
    let all = catalog::builtins();
    for b in &all {
        let call = match b.receiver {
            Some(r) => format!("{}.{}(", var(r), b.name),
            None => format!("{}(", b.name),
        };
        let doc = format!(": {}", b.doc);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&call) && l.ends_with(&doc)),
            "{call}...{doc} is not on the card"
        );
    }
    // And the registry the VM dispatches through has no name the card lacks.
    for name in xpr_vm::stdlib::function_names() {
        assert!(text.contains(&format!("\n{name}(")), "{name}");
    }
    for name in xpr_vm::stdlib::method_names() {
        assert!(text.contains(&format!(".{name}(")), "{name}");
    }
    // One line a built-in, under the seven groups.
    let listed = lines.iter().filter(|l| l.contains(") -> ")).count();
    assert_eq!(listed, all.len());
    for group in [
        "Strings", "Arrays", "Objects", "Numbers", "Dates", "Regex", "Types",
    ] {
        assert!(text.contains(&format!("\n### {group}")), "{group}");
    }
}

/// The card's size estimate: the larger of characters / 4 and words x 1.3.
fn estimated_tokens(text: &str) -> usize {
    let by_chars = text.chars().count().div_ceil(4);
    let by_words = (text.split_whitespace().count() * 13).div_ceil(10);
    by_chars.max(by_words)
}

#[test]
fn the_card_fits_in_2500_tokens() {
    let text = xpr::card(&Engine::new());
    let tokens = estimated_tokens(&text);
    eprintln!(
        "language card: {} characters, {} words, about {tokens} tokens",
        text.chars().count(),
        text.split_whitespace().count()
    );
    // About 8,800 characters and 1,470 words: some 2,200 tokens.
    assert!(tokens <= 2500, "{tokens} tokens, {} characters", text.len());
    assert!(text.is_ascii());
}

#[test]
fn every_correction_is_xpr_and_every_mistake_is_not() {
    let engine = Engine::new();
    let context: serde_json::Value = serde_json::json!({
        "a": 1, "b": 2, "c": true, "x": 1.237, "y": 2, "s": "Ab", "t": "42",
        "list": [1, 2], "i": 0, "j": 1,
    });
    let card = Card::new(&engine);
    assert!(card.mistakes.len() >= 8);
    for m in &card.mistakes {
        assert_eq!(m.right.len(), m.wrong.len(), "{m:?}");
        for (right, wrong) in m.right.iter().zip(m.wrong) {
            let good = engine
                .compile(right)
                .and_then(|p| p.run_json(&context))
                .unwrap_or_else(|e| panic!("{right}: {e}"));
            let bad = engine.compile(wrong).and_then(|p| p.run_json(&context));
            assert!(
                bad.as_ref().is_ok_and(|v| *v != good) || bad.is_err(),
                "{wrong} does what {right} does"
            );
        }
    }
    let text = card.to_string();
    let listed = section(&text, "Write XPR");
    assert_eq!(listed.len(), card.mistakes.len());
    assert!(listed.contains(&"- a && b, a || b, !a (not a and b, a or b, not a)"));
}

#[test]
fn a_filter_leaves_out_functions_and_the_examples_that_call_them() {
    let engine = Engine::new();
    let full = Card::new(&engine);
    let card = Card::with_filter(&engine, |e| !matches!(e.name.as_str(), "sortBy" | "upper"));
    let text = card.to_string();
    assert!(!text.contains(".sortBy("));
    assert!(!text.contains("upper()"), "{text}");
    assert!(text.contains("s.lower() -> string: lowercase"));
    assert_eq!(card.entries.len(), full.entries.len() - 2);
    // The examples and corrections calling them are gone, the others kept.
    assert_eq!(card.examples.len(), full.examples.len() - 2);
    assert_eq!(card.mistakes.len(), full.mistakes.len() - 1);
    assert!(text.contains("[1, 2, 3, 4].reduce((acc, x) => acc + x, 0) ==> 10"));
    // A method filtered by receiver: string `slice` goes, array `slice` stays.
    let card = Card::with_filter(&engine, |e| {
        !(e.name == "slice" && e.receiver == Some("string"))
    });
    let text = card.to_string();
    assert!(!text.contains("s.slice("));
    assert!(text.contains("a.slice(start, end?) -> array"));
    // A group left empty has no heading.
    let text = xpr::card_with(&engine, |e| e.group != "dates");
    assert!(!text.contains("### Dates"));
    assert!(!text.contains("formatDate("));
}

#[test]
fn host_functions_are_listed_with_their_description_or_arity() {
    let mut engine = Engine::new();
    engine
        .register("vat", Arity::Exact(1), |args| Ok(args[0].clone()))
        .unwrap();
    engine
        .register("tier", Arity::Range(1, 2), |_| Ok(Value::Null))
        .unwrap();
    engine
        .describe("vat", "(n) -> number", "VAT due on the amount n")
        .unwrap();
    let text = xpr::card(&engine);
    let host = section(&text, "Built-ins")
        .into_iter()
        .skip_while(|l| *l != "### Host functions")
        .collect::<Vec<_>>();
    assert_eq!(
        host,
        [
            "### Host functions",
            "vat(n) -> number: VAT due on the amount n",
            "tier(arg1, arg2?) -> any: host function",
        ]
    );
    // The allowlist seam sees host functions too.
    let text = xpr::card_with(&engine, |e| e.name != "tier");
    assert!(text.contains("vat(n)") && !text.contains("tier("));
}

#[test]
fn a_description_must_fit_the_registration() {
    let mut engine = Engine::new();
    engine
        .register("vat", Arity::Exact(1), |_| Ok(Value::Null))
        .unwrap();
    for (name, sig, doc, why) in [
        (
            "nope",
            "(n) -> number",
            "x",
            "no host function has that name",
        ),
        (
            "vat",
            "(n, m) -> number",
            "x",
            "takes 2 arguments, registered 1",
        ),
        ("vat", "n -> number", "x", "is not a signature"),
        ("vat", "(n) -> number", "", "one non-empty line"),
        ("vat", "(n) -> number", "a\nb", "one non-empty line"),
    ] {
        let e = engine.describe(name, sig, doc).unwrap_err();
        assert_eq!(e.kind(), xpr::ErrorKind::Host);
        assert!(e.message().contains(why), "{e}");
    }
    let card = Card::new(&engine);
    let vat = card.entries.iter().find(|e| e.name == "vat").unwrap();
    assert_eq!((vat.sig.as_str(), vat.group), ("(arg1) -> any", "host"));
}

#[test]
fn the_json_form_holds_the_same_card() {
    let engine = Engine::new();
    let card = Card::new(&engine);
    let v = card.to_json();
    let builtins = v["builtins"].as_array().unwrap();
    assert_eq!(builtins.len(), catalog::builtins().len());
    let slice = builtins
        .iter()
        .find(|b| b["name"] == "slice" && b["receiver"] == "string")
        .unwrap();
    assert_eq!(slice["group"], "strings");
    assert_eq!(slice["sig"], "(start, end?) -> string");
    let range = builtins.iter().find(|b| b["name"] == "range").unwrap();
    assert_eq!(range["receiver"], serde_json::Value::Null);
    assert_eq!(v["examples"].as_array().unwrap().len(), card.examples.len());
    assert_eq!(v["examples"][0]["result"], "[\"desk\"]");
    assert_eq!(v["syntax"].as_array().unwrap().len(), Card::syntax().len());
    assert!(v["mistakes"][0]["wrong"].is_array());
    assert!(
        v["parameters"]
            .as_str()
            .unwrap()
            .starts_with("Parameter names")
    );
}

#[test]
fn alternatives_repeat_the_name() {
    let text = xpr::card(&Engine::new());
    assert!(text.contains(
        "range(end) | range(start, end, step?) -> array: numbers from start (default 0) up to end, excluded"
    ));
}

#[test]
fn every_parameter_name_is_in_the_key() {
    let v = Card::new(&Engine::new()).to_json();
    let key = v["parameters"].as_str().unwrap();
    let words: Vec<&str> = key
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for b in catalog::builtins() {
        let (params, _) = b.sig.rsplit_once(" -> ").unwrap();
        for p in params.split([' ', ',', '(', ')', '|', '?', '.']) {
            assert!(
                p.is_empty() || words.contains(&p),
                "{}: parameter '{p}' is not in the key",
                b.name
            );
        }
    }
}

#[test]
fn the_syntax_lines_show_valid_xpr() {
    let engine = Engine::new();
    let text = xpr::card(&engine);
    let syntax = section(&text, "Syntax").join("\n");
    let context = serde_json::json!({
        "user": {"name": "Ada"}, "n": 1, "price": 2, "qty": 60, "a": [1, 2, 3],
        "o": {"k": 1, "id": 9, "tags": ["x", "y"]}, "cond": false, "b": "B",
    });
    // Each fragment is on the card, and evaluates to what the card says of it.
    for (fragment, value) in [
        ("42", "42"),
        ("-1.5", "-1.5"),
        ("1e3", "1000"),
        ("'text'", "\"text\""),
        ("{\"k\": 1, name: 2}", "{\"k\":1,\"name\":2}"),
        ("/ab+c/i", "\"/ab+c/i\""),
        ("`Hi ${user.name}, ${n + 1} new`", "\"Hi Ada, 2 new\""),
        ("cond ? a : b", "\"B\""),
        ("o[\"k\"]", "1"),
        ("a[-1]", "3"),
        ("o?.k", "1"),
        ("let t = price * qty; t > 100", "true"),
        (
            "let {id, tags: [first, ...more], note = \"none\"} = o; first",
            "\"x\"",
        ),
        ("[...a, 4]", "[1,2,3,4]"),
        ("{...o, k: 1}", "{\"k\":1,\"id\":9,\"tags\":[\"x\",\"y\"]}"),
    ] {
        assert!(syntax.contains(fragment), "{fragment} is not on the card");
        let got = engine
            .compile(fragment)
            .and_then(|p| p.run_json(&context))
            .unwrap_or_else(|e| panic!("{fragment}: {e}"));
        // A regex has no JSON form: its text stands for it.
        let shown = match &got {
            Value::Regex(_) => json(&engine.eval(&format!("string({fragment})"), &()).unwrap()),
            v => json(v),
        };
        assert_eq!(shown, value, "{fragment}");
    }
    // These need a function, so they are compiled only.
    for fragment in [
        "x => x * 2",
        "(acc, x) => acc + x",
        "({name}) => name",
        "(first, ...rest) => rest",
        "f?.(x)",
        "f(...args)",
        "x |> f(y)",
    ] {
        assert!(syntax.contains(fragment), "{fragment} is not on the card");
        engine
            .compile(fragment)
            .unwrap_or_else(|e| panic!("{fragment}: {e}"));
    }
    // What the card calls errors and null.
    for (fragment, error) in [("\"a\" + 1", "cannot add"), ("1 / 0", "Division by zero")] {
        let e = engine.eval(fragment, &()).unwrap_err();
        assert!(e.message().contains(error), "{fragment}: {e}");
    }
    let e = engine.eval("null ?? 5", &()).unwrap();
    assert_eq!(e, Value::Number(5.0));
}
