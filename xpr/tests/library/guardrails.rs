//! The guardrails of issue 14 in the library: one diagnostic shape
//! (`Diagnostic`, `Engine::diagnose`, `Engine::check`), the allowlist of
//! functions and methods (`Engine::allow_only`, `Engine::deny`) and the
//! expected result type (`Engine::compile_expecting`, `Program::expecting`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use xpr::{
    Arity, Capabilities, Diagnostic, Engine, ErrorKind, Limits, Severity, Span, Value, ValueType,
};

// ------------------------------------------------------------ diagnostics

#[test]
fn a_parse_error_s_diagnostic_has_every_field() {
    let engine = Engine::new();
    let source = "\"é\" + ";
    let e = engine.compile(source).unwrap_err();
    let d = engine.diagnose(&e, source);
    assert_eq!(d.kind, "parse");
    assert_eq!(d.message, "Unexpected end of expression");
    assert_eq!(d.text, "Unexpected end of expression at position 6");
    // Characters, not bytes.
    assert_eq!(d.span, Some(Span::new(6, 6)));
    assert_eq!(d.position(), Some(6));
    assert!(d.expected.iter().any(|t| t == "identifier"), "{d:?}");
    assert_eq!(d.hint, None);
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(Diagnostic::from_error(&e, source), d);
    let j = d.to_json();
    let keys: Vec<&str> = j
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "kind", "message", "text", "position", "span", "expected", "hint", "severity"
        ]
    );
    assert_eq!(j["span"], json!({"start": 6, "end": 6}));
    assert_eq!(j["hint"], json!(null));
    assert_eq!(j["severity"], "error");
}

#[test]
fn a_run_time_error_s_diagnostic_keeps_its_hint_apart_and_has_no_expected_tokens() {
    let engine = Engine::new();
    let source = "x > 0";
    let e = engine
        .compile_expecting("x * 2", ValueType::Boolean)
        .unwrap_err();
    let d = engine.diagnose(&e, "x * 2");
    assert_eq!(
        d.hint.as_deref(),
        Some("write a comparison such as 'x > 0'")
    );
    assert!(d.message.ends_with(" (write a comparison such as 'x > 0')"));
    assert!(d.expected.is_empty());
    let e = engine
        .compile(source)
        .and_then(|p| p.run_json(&json!({"x": "a"})))
        .unwrap_err();
    let d = engine.diagnose(&e, source);
    assert_eq!(d.kind, "type");
    assert_eq!(d.to_json()["position"], 0);
    assert!(d.expected.is_empty());
}

#[test]
fn the_engine_s_limits_decide_the_expected_tokens() {
    // Longer than the default length limit: the engine allows it.
    let source = format!("\"{}\" +", "a".repeat(12_000));
    let engine = Engine::new().with_limits(Limits {
        max_length: None,
        ..Limits::default()
    });
    let e = engine.compile(&source).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert!(!engine.diagnose(&e, &source).expected.is_empty());
    // The default limits refuse it for its length: no tokens to expect.
    let e = Engine::new().compile(&source).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Length);
    assert!(Engine::new().diagnose(&e, &source).expected.is_empty());
}

#[test]
fn a_warning_renders_with_its_level() {
    let mut d = Diagnostic::new("unknown_field", "'totl' is not a field", Severity::Warning);
    d.span = Some(Span::new(0, 4));
    d.text = "'totl' is not a field at position 0".into();
    assert_eq!(
        d.render("totl > 1"),
        "warning: 'totl' is not a field at position 0\n  totl > 1\n  ^~~~\n"
    );
    assert_eq!(d.to_json()["severity"], "warning");
}

#[test]
fn the_check_report_is_valid_exactly_when_it_has_no_error() {
    let engine = Engine::new();
    let fields = vec!["total".to_string(), "items".to_string()];
    let r = engine.check("total > 1", Some(&fields), None);
    assert!(r.is_valid());
    assert_eq!(r.to_json()["valid"], true);
    assert!(r.to_json().get("error").is_none());
    assert_eq!(r.free_variables, Some(vec!["total".to_string()]));

    let mut r = engine.check("totl > 1 && items.filtr(x => x)", Some(&fields), None);
    assert!(r.is_valid(), "warnings only");
    assert_eq!(r.warnings.len(), 2);
    let w = &r.warnings[0];
    assert_eq!(
        (w.name.as_str(), w.suggestion.as_deref()),
        ("totl", Some("total"))
    );
    assert_eq!(w.diagnostic.hint.as_deref(), Some("did you mean 'total'?"));
    assert_eq!(w.diagnostic.span, Some(Span::new(0, 4)));
    assert_eq!(r.warnings[1].diagnostic.kind, "unknown_method");
    assert_eq!(r.warnings[1].diagnostic.position(), Some(18));
    r.deny_warnings();
    assert!(!r.is_valid());
    let j = r.to_json();
    assert_eq!(j["valid"], false);
    assert_eq!(j["error"]["kind"], "unknown_field");
    assert_eq!(j["error"]["severity"], "error");
    assert_eq!(j["warnings"][0]["suggestion"], "total");

    let r = engine.check("bonus(1) + dateadd(2)", None, None);
    assert!(!r.is_valid());
    assert_eq!(r.errors.len(), 2, "every unknown function");
    assert_eq!(r.to_json()["error"]["position"], 0);

    let r = engine.check("1 +", None, None);
    assert_eq!(r.free_variables, None);
    assert!(
        !r.to_json()["error"]["expected"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let r = engine.check("a * 2", None, Some(ValueType::Boolean));
    assert!(!r.is_valid());
    assert_eq!(r.errors[0].kind, "type");
}

// ------------------------------------------------------------ allowlist

#[test]
fn only_allowed_functions_and_methods_compile() {
    let engine = Engine::new().allow_only(["filter", "map", "round"]);
    let program = engine
        .compile("items.filter(x => x > 1).map(x => round(x))")
        .unwrap();
    let v = program.run_json(&json!({"items": [1, 2.4]})).unwrap();
    assert_eq!(v, Value::from(vec![Value::Number(2.0)]));

    let e = engine.compile("items.sort().map(x => abs(x))").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Access);
    assert_eq!(
        e.to_string(),
        "Access denied: method 'sort' is not allowed (allowed: filter, map, round) at position 6"
    );
    assert_eq!(e.hint(), Some("allowed: filter, map, round"));
    let e = engine.compile("abs(x)").unwrap_err();
    assert_eq!(
        e.message(),
        "Access denied: function 'abs' is not allowed (allowed: filter, map, round)"
    );
    // A typo of an allowed name is named.
    let e = engine.compile("items.fitler(x => x)").unwrap_err();
    assert_eq!(
        e.hint(),
        Some("did you mean 'filter'? allowed: filter, map, round")
    );
}

#[test]
fn every_way_of_calling_a_name_is_checked() {
    let engine = Engine::new().allow_only(["upper"]);
    for (source, position) in [
        ("s |> lower", 5),
        ("s |> lower()", 5),
        ("lower?.(s)", 0),
        ("o?.lower()", 3),
        ("[s].map(x => x.lower())", 4),
        ("s.upper().lower()", 10),
        ("bonus(1)", 0),
        ("`${s.lower()}`", 5),
    ] {
        let e = engine.compile(source).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Access, "{source}");
        assert_eq!(e.position(), Some(position), "{source}: {e}");
    }
    // Locals are not capabilities; a built-in's name in value position is
    // a field (or an unknown identifier), never the built-in.
    let ok = engine
        .compile("let lower = x => x.upper(); lower(s)")
        .unwrap();
    assert_eq!(ok.run_json(&json!({"s": "a"})).unwrap(), Value::from("A"));
    let field = engine.compile("type == \"x\" && [1].length > 0").unwrap();
    assert_eq!(
        field.run_json(&json!({"type": "x"})).unwrap(),
        Value::Bool(true)
    );
    let e = engine.compile("[1, -2].map(abs)");
    assert_eq!(
        e.unwrap_err().kind(),
        ErrorKind::Access,
        "map is not allowed"
    );
    let value = Engine::new()
        .allow_only(["map"])
        .compile("[1, -2].map(abs)")
        .unwrap()
        .run(&())
        .unwrap_err();
    assert_eq!(value.to_string(), "Unknown identifier 'abs' at position 12");
}

#[test]
fn denied_names_fail_and_the_rest_stay_allowed() {
    let engine = Engine::new().deny(["now", "random"]);
    assert!(engine.compile("round(x * 100) / 100").is_ok());
    let e = engine.compile("x + random()").unwrap_err();
    assert_eq!(
        e.to_string(),
        "Access denied: function 'random' is not allowed \
         (every function and method except now, random) at position 4"
    );
    assert!(!engine.is_allowed("now") && engine.is_allowed("round"));
    assert!(Engine::new().is_allowed("now"));
    let both = Engine::new().allow_only(["now", "abs"]).deny(["now"]);
    assert_eq!(both.capabilities().allowed(), Some(vec!["abs"]));
    assert!(
        both.compile("now()")
            .unwrap_err()
            .message()
            .ends_with("(allowed: abs)")
    );
    let same = Engine::new().with_capabilities(Capabilities::only(["abs"]));
    assert!(same.compile("abs(-1)").is_ok() && same.compile("now()").is_err());
}

#[test]
fn host_functions_are_capabilities_too() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let mut engine = Engine::new();
    engine
        .register("score", Arity::Exact(1), move |args| {
            counter.fetch_add(1, Ordering::Relaxed);
            Ok(args[0].clone())
        })
        .unwrap();
    let narrow = engine.clone().allow_only(["round"]);
    let e = narrow.compile("score(1)").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Access);
    assert!(e.message().starts_with("Access denied: function 'score'"));
    let listed = engine.clone().allow_only(["round", "score"]);
    assert_eq!(
        listed.eval("round(score(1.4))", &()).unwrap(),
        Value::Number(1.0)
    );
    let denied = engine.deny(["score"]);
    assert_eq!(
        denied.compile("score(2)").unwrap_err().kind(),
        ErrorKind::Access
    );
    assert_eq!(calls.load(Ordering::Relaxed), 1);
}

#[test]
fn the_card_describes_only_what_the_engine_allows() {
    let narrow = Engine::new().allow_only(["filter", "map", "upper"]);
    let card = xpr::Card::new(&narrow);
    let mut names: Vec<&str> = card.entries.iter().map(|e| e.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["filter", "map", "upper"]);
    let text = xpr::card(&Engine::new().deny(["now", "random"]));
    assert!(!text.contains("now()") && !text.contains("random()"));
    assert!(text.contains("s.upper() -> string"));
    let filtered = xpr::card_with(&narrow, |e| e.name != "map");
    assert!(filtered.contains("a.filter(fn)") && !filtered.contains("a.map(fn)"));
}

// ------------------------------------------------------------ expected type

#[test]
fn a_result_type_known_from_the_form_is_refused_before_any_run() {
    let engine = Engine::new();
    for (source, got) in [
        ("total * 2", "a number"),
        ("`${a}`", "a string"),
        ("items.map(x => x.id)", "an array"),
        ("{a: 1}", "an object"),
        ("ok ? \"yes\" : \"no\"", "a string"),
        ("null", "null"),
    ] {
        let e = engine
            .compile_expecting(source, ValueType::Boolean)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type, "{source}");
        assert!(
            e.message().starts_with(&format!(
                "Type error: expected boolean, but this expression yields {got}"
            )),
            "{source}: {e}"
        );
        assert!(e.hint().is_some(), "{source}");
        assert_eq!(e.position(), Some(0));
    }
    let e = engine
        .compile_expecting("x > 1", ValueType::Number)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "Type error: expected number, but this expression yields a boolean (write b ? 1 : 0)"
    );
    let e = engine
        .compile_expecting("total", ValueType::Number)
        .and_then(|p| p.expecting(ValueType::String));
    assert!(e.is_ok(), "unknown: checked on each result");
}

#[test]
fn a_result_type_known_only_from_the_data_is_checked_on_each_result() {
    let engine = Engine::new();
    let program = engine
        .compile_expecting("flag", ValueType::Boolean)
        .unwrap();
    assert_eq!(program.result_type(), None);
    assert_eq!(program.expected_type(), Some(ValueType::Boolean));
    assert_eq!(
        program.run_json(&json!({"flag": true})).unwrap(),
        Value::Bool(true)
    );
    let e = program.run_json(&json!({"flag": "yes"})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    assert_eq!(
        e.to_string(),
        "Type error: expected boolean, but the result is a string \
         (write a comparison such as 'status == \"paid\"') at position 0"
    );
    let e = program
        .run_with(
            &serde_json::Map::from_iter([("flag".to_string(), json!(1))]),
            &xpr::RunConfig::default(),
        )
        .unwrap_err();
    assert!(e.message().contains("the result is a number"), "{e}");
    let mut vm = xpr::Vm::new();
    let e = program
        .run_in(
            &mut vm,
            &serde_json::Map::from_iter([("flag".to_string(), json!([1]))]),
        )
        .unwrap_err();
    assert!(e.message().contains("the result is an array"), "{e}");
    // Errors of the run itself pass through.
    let e = program.run_json(&json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Reference);
}

#[test]
fn a_matching_type_is_accepted_and_not_checked_again() {
    let engine = Engine::new();
    let program = engine
        .compile_expecting("total > 100 && status == \"paid\"", ValueType::Boolean)
        .unwrap();
    assert_eq!(program.result_type(), Some(ValueType::Boolean));
    assert_eq!(
        program
            .run_json(&json!({"total": 120, "status": "paid"}))
            .unwrap(),
        Value::Bool(true)
    );
    let names = engine
        .compile_expecting("items.map(x => x.name)", ValueType::Array)
        .unwrap();
    assert_eq!(
        names.run_json(&json!({"items": []})).unwrap(),
        Value::from(Vec::<Value>::new())
    );
    assert_eq!(
        engine.compile("a ?? b").unwrap().result_type(),
        None,
        "the operands decide"
    );
}

// ------------------------------------------------------------ read paths

/// `record` with only the fields on `paths`: the value at a path's end
/// whole, objects on the way holding only the fields on paths, any other
/// value on the way whole.
fn project(record: &serde_json::Value, paths: &[&[Arc<str>]]) -> serde_json::Value {
    let serde_json::Value::Object(map) = record else {
        return record.clone();
    };
    if paths.iter().any(|p| p.is_empty()) {
        return record.clone();
    }
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        let below: Vec<&[Arc<str>]> = paths
            .iter()
            .filter(|p| &*p[0] == key.as_str())
            .map(|p| &p[1..])
            .collect();
        if !below.is_empty() {
            out.insert(key.clone(), project(value, &below));
        }
    }
    serde_json::Value::Object(out)
}

#[test]
fn a_record_projected_on_the_read_paths_gives_the_same_result() {
    let record = json!({
        "properties": {"mag": 5.5, "place": "Alaska", "length": 3, "tags": ["a", "b"], "n": null},
        "geometry": {"coordinates": [1, 2, 10], "type": "Point"},
        "id": "ak1", "s": "text", "big": {"deep": {"er": {"x": 1, "y": 2}}},
    });
    let cases = [
        ("properties.mag > 5", vec!["properties.mag"]),
        (
            "properties.mag > 5 && properties.place == 'Alaska'",
            vec!["properties.mag", "properties.place"],
        ),
        ("properties?.mag ?? 0", vec!["properties.mag"]),
        ("geometry.coordinates[2] < 20", vec!["geometry.coordinates"]),
        (
            "properties.length + s.length + properties.tags.length",
            vec!["properties.length", "s.length", "properties.tags.length"],
        ),
        ("keys(properties)", vec!["properties", "keys"]),
        ("let p = properties; p.mag", vec!["properties"]),
        ("properties['mag'] + properties.mag", vec!["properties"]),
        ("{...geometry, id: id}", vec!["geometry", "id"]),
        (
            "big.deep.er.x + big.deep.er.y",
            vec!["big.deep.er.x", "big.deep.er.y"],
        ),
        ("big.deep.er.x + size(big.deep)", vec!["big.deep", "size"]),
        ("properties.n.x", vec!["properties.n.x"]),
        ("missing.a.b ?? id", vec!["missing.a.b", "id"]),
        (
            "[1, 2].map(x => x + properties.mag)",
            vec!["properties.mag"],
        ),
        (
            "id.length > 2 && s.upper() == 'TEXT'",
            vec!["id.length", "s"],
        ),
        ("max(properties.mag, 1)", vec!["properties.mag", "max"]),
    ];
    let engine = Engine::new();
    for (source, want) in cases {
        let program = engine.compile(source).unwrap();
        let paths = program.read_paths();
        let shown: Vec<String> = paths.iter().map(|p| p.join(".")).collect();
        assert_eq!(shown, want, "{source}");
        let borrowed: Vec<&[Arc<str>]> = paths.iter().map(Vec::as_slice).collect();
        let projected = project(&record, &borrowed);
        let whole = program.run_json(&record).map_err(|e| e.to_string());
        let part = program.run_json(&projected).map_err(|e| e.to_string());
        assert_eq!(whole, part, "{source}: projected to {projected}");
    }
}
