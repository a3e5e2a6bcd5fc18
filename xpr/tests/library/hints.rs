//! The library's messages that name the XPR form: every error keeps the
//! spec's words and carries the hint apart (`Error::hint`);
//! `Engine::parse_errors` gives the independent syntax errors of one
//! expression, `Engine::lint` the static findings.

use xpr::{Engine, ErrorKind, Severity};

#[test]
fn compile_errors_carry_the_hint_apart() {
    let engine = Engine::new();
    let e = engine
        .compile("total > 9 OR vip")
        .expect_err("does not parse");
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert_eq!(e.hint(), Some("XPR writes `||` for `or`"));
    assert_eq!(
        e.to_string(),
        "Unexpected token 'OR' (XPR writes `||` for `or`) at position 10"
    );
    let program = engine.compile("parseInt(qty)").expect("compiles");
    let unknown = &program.unknown_functions()[0].error;
    assert_eq!(unknown.hint(), Some("XPR converts with `int(text)`"));
    let e = engine
        .eval("Array.isArray(tags)", &serde_json::json!({"tags": []}))
        .expect_err("no Array");
    assert!(e.hint().is_some_and(|h| h.contains("`isArray(x)`")), "{e}");
}

#[test]
fn parse_errors_lists_each_mistake_with_its_expected_tokens() {
    let engine = Engine::new();
    let errors = engine.parse_errors("a === 1 or b");
    assert_eq!(errors.len(), 2);
    let first = engine.compile("a === 1 or b").expect_err("does not parse");
    assert_eq!(errors[0].error.to_string(), first.to_string());
    assert_eq!(errors[0].expected, engine.expected_tokens("a === 1 or b"));
    assert_eq!(errors[1].error.hint(), Some("XPR writes `||` for `or`"));
    assert!(engine.parse_errors("a == 1 || b").is_empty());
}

#[test]
fn lint_tells_certain_errors_from_likely_mistakes() {
    let engine = Engine::new();
    let lints = engine.lint("[1, 2].push(3) || name.lower").expect("parses");
    assert_eq!(lints.len(), 2, "{lints:?}");
    assert_eq!(lints[0].severity, Severity::Error);
    assert_eq!(lints[0].kind, "method_of_type");
    assert_eq!(
        lints[0].error.message(),
        "Type error: cannot call method 'push' on array (XPR values cannot be changed: build a new array, `[...xs, x]` or `xs.concat([x])`)"
    );
    assert_eq!(lints[1].severity, Severity::Warning);
    assert_eq!(lints[1].kind, "method_as_property");
    // The program still compiles and fails only where the call is reached.
    let program = engine.compile("false && [1].push(2)").expect("compiles");
    assert_eq!(program.run(&()).expect("runs"), xpr::Value::Bool(false));
    assert!(engine.lint("a +").is_err());
}

/// `x.lenght` evaluates to null without an error (a missing property), so
/// only the lint can tell: a warning with `.length` in its hint, unless
/// the receiver is an object literal or the name extends `length` (a
/// field such as `lengths`).
#[test]
fn a_typo_of_length_is_a_warning_naming_length() {
    let engine = Engine::new();
    for src in [
        "[1, 2].lenght",
        "name.lengh + 1",
        "s.trim().lentgh > 3",
        "xs.legnth",
    ] {
        let lints = engine.lint(src).expect("parses");
        assert_eq!(lints.len(), 1, "{src}: {lints:?}");
        assert_eq!(lints[0].kind, "property_typo", "{src}");
        assert_eq!(lints[0].severity, Severity::Warning);
        assert_eq!(lints[0].error.hint(), Some("did you mean '.length'?"));
    }
    for src in [
        "xs.length",
        "{lenght: 1}.lenght",
        "route.lengths",
        "s.lengthKm",
        "p.width",
    ] {
        assert!(engine.lint(src).expect("parses").is_empty(), "{src}");
    }
    // It still evaluates as the spec says: a missing property is null.
    let v = engine.eval("s.lenght", &serde_json::json!({"s": "abc"}));
    assert_eq!(v.expect("runs"), xpr::Value::Null);
}

/// A null operand's hint quotes the operand as written only when it fits
/// on one line: one written over several lines quotes the operand alone,
/// and one longer than a line keeps the VM's `(x ?? 0)`.
#[test]
fn null_operand_hints_stay_on_one_line() {
    let engine = Engine::new();
    let hint = |src: &str, ctx: serde_json::Value| {
        let e = engine.eval(src, &ctx).expect_err("a null operand");
        assert_eq!(e.kind(), ErrorKind::Type, "{e}");
        e.hint().expect("a hint").to_string()
    };
    let ctx = serde_json::json!({"v": null, "o": {"a": null}});
    // The operation over two lines: the operand alone.
    assert_eq!(
        hint("v\n  + 1", ctx.clone()),
        "`v` is null: give it a default, `(v ?? 0)`"
    );
    // The operand itself over two lines, or CR alone: not quoted.
    for src in ["o\n.a + 1", "o\r.a + 1", "1 - o\r\n.a"] {
        let h = hint(src, ctx.clone());
        assert!(!h.contains(['\n', '\r']), "{src:?}: {h}");
        assert!(h.contains("(x ?? 0)"), "{src:?}: {h}");
    }
    // An operand of 81 characters: not quoted; of 80, quoted once.
    let long = format!("v.{}", "b".repeat(79));
    let h = hint(&format!("{long} * 2"), serde_json::json!({"v": {}}));
    assert!(!h.contains(&long) && h.contains("(x ?? 0)"), "{h}");
    let fits = format!("v.{}", "b".repeat(78));
    assert_eq!(fits.chars().count(), 80);
    let h = hint(&format!("{fits} * 2"), serde_json::json!({"v": {}}));
    assert_eq!(
        h,
        format!("`{fits}` is null: give it a default, `({fits} ?? 0)`")
    );
    // Multi-byte characters count as one each.
    let wide = format!("o[\"{}\"]", "ü".repeat(75));
    assert_eq!(wide.chars().count(), 80);
    let h = hint(&format!("{wide} + 1"), serde_json::json!({"o": {}}));
    assert!(h.starts_with(&format!("`{wide}` is null")), "{h}");
}
