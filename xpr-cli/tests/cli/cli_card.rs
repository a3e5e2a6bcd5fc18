//! `xpr card`: the library's language card as text or JSON.

use crate::common;

use common::{code, run, stderr, stdout};

#[test]
fn card_prints_the_library_card() {
    let o = run(&["card"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text, xpr::card(&xpr::Engine::new()));
    assert!(text.starts_with("# XPR language card\n"));
    assert!(text.contains("\ns.upper() -> string: uppercase\n"));
    assert!(text.contains("\n## Examples"));
}

#[test]
fn card_json_is_the_structured_card() {
    let o = run(&["card", "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON object");
    assert_eq!(v, xpr::Card::new(&xpr::Engine::new()).to_json());
    let builtins = v["builtins"].as_array().unwrap();
    let upper = builtins.iter().find(|b| b["name"] == "upper").unwrap();
    assert_eq!(
        upper,
        &serde_json::json!({"name": "upper", "receiver": "string", "group": "strings",
                            "sig": "() -> string", "doc": "uppercase"})
    );
    for key in ["syntax", "parameters", "examples", "mistakes"] {
        assert!(!v[key].is_null(), "{key}");
    }
}

#[test]
fn card_takes_no_expression() {
    let o = run(&["card", "1 + 2"]);
    assert_eq!(code(&o), 2);
    assert!(stdout(&o).is_empty());
}
