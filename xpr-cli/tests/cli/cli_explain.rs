//! `xpr explain` (issue 20, part 2): the text and JSON forms, the status
//! of an expression that fails, bad input.

use crate::common;

use common::{assert_stderr_has, code, run, stderr, stdout};
use serde_json::Value as Json;

#[test]
fn explain_prints_the_deciding_steps_as_text() {
    let o = run(&[
        "explain",
        r#"age >= 18 && country == "FR""#,
        "--context",
        r#"{"age": 20, "country": "DE"}"#,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        concat!(
            "age >= 18 && country == \"FR\" -> false\n",
            "  age >= 18 -> true\n",
            "    age -> 20\n",
            "  country == \"FR\" -> false  [decides]\n",
            "    country -> \"DE\"\n",
        )
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn explain_json_is_one_object() {
    let o = run(&[
        "explain",
        "--json",
        "a > 1 || b.c",
        "-c",
        r#"{"a": 2, "b": null}"#,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let j: Json = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(j["result"], Json::Bool(true));
    let steps = &j["explanation"]["children"];
    assert_eq!(steps[0]["role"], "decides");
    assert_eq!(steps[0]["children"][0]["value"], 2);
    assert_eq!(steps[1]["evaluated"], false);
    assert!(steps[1].get("value").is_none());
}

#[test]
fn explain_of_a_failing_expression_shows_where_and_exits_1() {
    let o = run(&[
        "explain",
        "x > 1 && y.z > 2",
        "-c",
        r#"{"x": 5, "y": null}"#,
    ]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(
        out.contains("  y.z > 2 -> error: ") && out.contains("    y.z -> error: "),
        "{out}"
    );
    // The error on stderr too, with its caret.
    assert_stderr_has(&o, "at position 11");
    assert_stderr_has(&o, "^");
    // One that does not compile: nothing to explain.
    let o = run(&["explain", "x >"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert_stderr_has(&o, "Unexpected end of expression");
    // A context that is not an object.
    let o = run(&["explain", "x", "-c", "[1]"]);
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, "the context must be a JSON object");
}
