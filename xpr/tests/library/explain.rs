//! `Program::explain` (issue 20, part 2): the deciding clause and both
//! sides of its comparison, short-circuits, errors, predicates' counts,
//! `let` scopes, budgets; the text and JSON forms against golden files.

use serde_json::{Value as Json, json};
use xpr::explain::{Items, Outcome, Role, Step};
use xpr::{Engine, ErrorKind, Explanation, Limits, Value};

fn explain(source: &str, context: Json) -> Explanation {
    let program = Engine::new().compile(source).expect("compiles");
    program.explain(context.as_object().expect("an object"))
}

fn value(step: &Step) -> &Value {
    match &step.outcome {
        Outcome::Value(v) => v,
        other => panic!("{}: {other:?}", step.text),
    }
}

/// The child of `step` whose text is `text`.
fn child<'s>(step: &'s Step, text: &str) -> &'s Step {
    step.children
        .iter()
        .find(|c| c.text == text)
        .unwrap_or_else(|| panic!("no step {text:?} under {:?}", step.text))
}

#[test]
fn a_false_rule_names_the_failing_clause_and_both_sides() {
    let e = explain(
        r#"amount <= limit && country == "FR" && !blocked"#,
        json!({"amount": 120, "limit": 500, "country": "DE", "blocked": false}),
    );
    assert_eq!(e.result, Ok(Value::Bool(false)));
    let root = &e.root;
    assert_eq!(root.role, Role::Whole);
    assert_eq!(root.children.len(), 3, "the chain's three clauses");
    let first = child(root, "amount <= limit");
    assert_eq!(
        (first.role, value(first)),
        (Role::Clause, &Value::Bool(true))
    );
    let failing = child(root, r#"country == "FR""#);
    assert_eq!(failing.role, Role::Decides);
    assert_eq!(value(failing), &Value::Bool(false));
    // The literal side is its own text; the other side's value is shown.
    assert_eq!(value(child(failing, "country")), &Value::from("DE"));
    assert_eq!(value(child(first, "amount")), &Value::Number(120.0));
    assert_eq!(value(child(first, "limit")), &Value::Number(500.0));
    let last = child(root, "!blocked");
    assert!(matches!(last.outcome, Outcome::NotEvaluated));
    assert!(last.children.is_empty());
}

#[test]
fn a_clause_not_evaluated_raises_no_error() {
    // `missing.deep` would fail; `||` never reaches it.
    let e = explain(
        "vip || missing.deep > 1",
        json!({"vip": true, "missing": null}),
    );
    assert_eq!(e.result, Ok(Value::Bool(true)));
    assert_eq!(child(&e.root, "vip").role, Role::Decides);
    let skipped = child(&e.root, "missing.deep > 1");
    assert!(matches!(skipped.outcome, Outcome::NotEvaluated));
    // Nor does a branch not taken.
    let e = explain(r#"n > 0 ? "pos" : n.x.y"#, json!({"n": 3}));
    assert_eq!(e.result, Ok(Value::from("pos")));
    assert_eq!(child(&e.root, "n > 0").role, Role::Condition);
    assert!(matches!(
        child(&e.root, "n.x.y").outcome,
        Outcome::NotEvaluated
    ));
    assert_eq!(value(child(&e.root, r#""pos""#)), &Value::from("pos"));
    // `??` decides at the first non-null value.
    let e = explain("a ?? b ?? c.d", json!({"a": null, "b": 0}));
    assert_eq!(child(&e.root, "b").role, Role::Decides);
    assert!(matches!(
        child(&e.root, "c.d").outcome,
        Outcome::NotEvaluated
    ));
}

/// Every step whose outcome is an error, in order.
fn failing(step: &Step, out: &mut Vec<(String, xpr::Error)>) {
    if let Outcome::Error(e) = &step.outcome {
        out.push((step.text.clone(), e.clone()));
    }
    for c in &step.children {
        failing(c, out);
    }
}

#[test]
fn an_error_is_shown_where_it_happens_at_its_position() {
    let source = "let t = total * 2; t > 10 && b.c.d == 2";
    let e = explain(source, json!({"total": 8, "b": null}));
    let err = e.result.clone().unwrap_err();
    let mut errors = Vec::new();
    failing(&e.root, &mut errors);
    let texts: Vec<&str> = errors.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        texts,
        [source, "t > 10 && b.c.d == 2", "b.c.d == 2", "b.c.d"],
        "the error, from the whole down to where it happens"
    );
    for (text, e) in &errors {
        assert_eq!(e.kind(), err.kind(), "{text}");
        assert_eq!(e.span(), err.span(), "{text}: the same position");
    }
    // The binding is evaluated, and the body's steps see it.
    let binding = child(&e.root, "t = total * 2");
    assert_eq!(
        (binding.role, value(binding)),
        (Role::Binding, &Value::Number(16.0))
    );
    let body = child(&e.root, "t > 10 && b.c.d == 2");
    assert_eq!(body.role, Role::Body);
    assert_eq!(
        value(child(child(body, "t > 10"), "t")),
        &Value::Number(16.0)
    );
}

#[test]
fn predicates_count_the_items_that_pass() {
    let items = json!({"items": [{"p": 60}, {"p": 10}, {"p": 70}, {"p": 5}]});
    for (source, passed) in [
        ("items.filter(i => i.p > 50).length > 1", 2),
        ("items.some(i => i.p > 65)", 1),
        ("items.every(i => i.p > 1)", 4),
        ("items.find(i => i.p < 20)?.p == 10", 2),
        ("items.count(i => i.p >= 10) == 3", 3),
    ] {
        let e = explain(source, items.clone());
        assert!(e.result.is_ok(), "{source}: {:?}", e.result);
        let mut found = None;
        let mut stack = vec![&e.root];
        while let Some(s) = stack.pop() {
            found = found.or(s.items);
            stack.extend(&s.children);
        }
        assert_eq!(found, Some(Items { passed, of: 4 }), "{source}");
    }
    // A predicate the method never reaches on some item, failing there:
    // the count is left out, the explanation stands.
    let e = explain("xs.some(x => x.a > 0)", json!({"xs": [{"a": 1}, null]}));
    assert_eq!(e.result, Ok(Value::Bool(true)));
    assert_eq!(e.root.items, None);
}

#[test]
fn sub_expressions_run_within_the_programs_budgets() {
    let engine = Engine::new().with_limits(Limits {
        fuel: Some(5_000),
        ..Limits::default()
    });
    let program = engine
        .compile("range(10).length > 5 || range(4000).map(x => x).length > 1")
        .expect("compiles");
    let e = program.explain(&());
    assert_eq!(e.result, Ok(Value::Bool(true)));
    let program = engine
        .compile("range(10).length > 50 || range(4000).map(x => x).length > 1")
        .expect("compiles");
    let e = program.explain(&());
    assert_eq!(e.result.clone().unwrap_err().kind(), ErrorKind::Fuel);
    let heavy = child(&e.root, "range(4000).map(x => x).length > 1");
    match &heavy.outcome {
        Outcome::Error(err) => assert_eq!(err.kind(), ErrorKind::Fuel),
        other => panic!("{other:?}"),
    }
}

/// The cases of the golden files: a source and its context.
const CASES: &[(&str, &str)] = &[
    (
        r#"age >= 18 && country == "FR""#,
        r#"{"age": 20, "country": "DE"}"#,
    ),
    (
        "vip || (total > 100 && items.filter(i => i.price > 50).length >= 2)",
        r#"{"vip": false, "total": 150, "items": [{"price": 60}, {"price": 10}, {"price": 70}]}"#,
    ),
    (
        r#"let t = total * 1.2; t > limit ? "high" : b.c"#,
        r#"{"total": 10, "limit": 100, "b": null}"#,
    ),
    (
        "items.some(i => i.price > 65) && !items?.every(i => i.price > 5)",
        r#"{"items": [{"price": 60}, {"price": 10}, {"price": 70}]}"#,
    ),
    (
        "(score ?? 0) * weight >= threshold",
        r#"{"score": null, "weight": 2, "threshold": 1}"#,
    ),
];

#[test]
fn text_and_json_forms_match_the_golden_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut text = String::new();
    let mut lines = String::new();
    for (source, context) in CASES {
        let context: Json = serde_json::from_str(context).expect("JSON");
        let e = explain(source, context.clone());
        text.push_str(&format!("# {source}\n# {context}\n{e}\n"));
        lines.push_str(&format!("{}\n", e.to_json()));
    }
    xpr_testkit::assert_golden(&dir, "explain__text", &text);
    xpr_testkit::assert_golden(&dir, "explain__json", &lines);
}
