//! The table's lookups.

use super::operations::{
    CALL_IT, CONVERT, NULL_BOTH, NULL_LEFT, NULL_RIGHT, NULL_RIGHT_TEXT, REPEAT,
};
use super::*;

#[test]
fn every_row_is_unique_per_site() {
    for (i, a) in TABLE.iter().enumerate() {
        for b in TABLE.iter().skip(i + 1) {
            assert!(
                !(a.name == b.name && a.site == b.site),
                "two rows for {} at {:?}",
                a.name,
                a.site
            );
        }
    }
}

#[test]
fn no_row_shadows_a_built_in() {
    for h in TABLE {
        match h.site {
            Site::Function => assert!(stdlib::function_id(h.name).is_none(), "{}", h.name),
            Site::Method(Some(t)) => {
                assert!(!stdlib::type_has_method(t, h.name), "{}", h.name);
            }
            Site::Method(None) => assert!(stdlib::method_id(h.name).is_none(), "{}", h.name),
            Site::Name => {}
        }
    }
}

#[test]
fn names_of_other_languages() {
    assert_eq!(name_hint("None").as_deref(), Some("XPR writes `null`"));
    assert!(name_hint("math").is_some_and(|h| h.contains("global")));
    assert!(name_hint("NONE").is_some_and(|h| h.contains("`null`")));
    // A field name in lower case is no other language's object.
    assert_eq!(name_hint("date"), None);
    assert_eq!(
        name_hint("TRUE").as_deref(),
        Some("XPR writes `true`, in lower case")
    );
    assert_eq!(name_hint("total"), None);
}

#[test]
fn functions_of_other_languages() {
    let none: &[&str] = &[];
    let hint = |n| function_hint(n, none, false).unwrap_or_default();
    assert!(hint("str").contains("`string(x)`"));
    assert!(hint("parseFloat").contains("`float(x)`"));
    assert!(hint("COALESCE").contains("??"));
    assert!(hint("NVL").contains("??"));
    assert_eq!(
        hint("upper"),
        "'upper' is a method: write x.upper(...) or x |> upper(...)"
    );
    assert_eq!(
        hint("TRIM"),
        "'trim' is a method: write x.trim(...) or x |> trim(...)"
    );
    assert_eq!(hint("CEIL"), "did you mean 'ceil'?");
    assert_eq!(hint("dateadd"), "did you mean 'dateAdd'?");
    assert!(hint("parseInteger").contains("`int(text)`"));
    assert_eq!(function_hint("bonus", none, false), None);
    assert_eq!(hint("formatDateTime"), "did you mean 'formatDate'?");
    assert_eq!(
        function_hint("ciel", &["ceil"], true).as_deref(),
        Some("did you mean 'ceil'?")
    );
    assert_eq!(
        function_hint("flter", none, true).as_deref(),
        Some("did you mean 'filter'?")
    );
}

#[test]
fn methods_of_other_languages() {
    let hint = |n, t| method_hint(n, t).unwrap_or_default();
    assert_eq!(hint("toLowerCase", Some("string")), "write `.lower()`");
    assert!(hint("includes", Some("string")).contains("`.contains(part)`"));
    assert!(hint("contains", Some("array")).contains("`.includes(x)`"));
    assert_eq!(method_hint("includes", Some("array")), None);
    assert!(hint("length", Some("array")).contains("without parentheses"));
    assert!(hint("lenhgt", Some("string")).contains("`s.len()`"));
    assert_eq!(hint("fitler", Some("array")), "did you mean 'filter'?");
    assert_eq!(hint("sortby", Some("array")), "did you mean 'sortBy'?");
    assert_eq!(hint("uppercase", Some("string")), "did you mean 'upper'?");
    assert_eq!(
        hint("startsWithIgnoreCase", None),
        "did you mean 'startsWith'?"
    );
    assert!(hint("floor", Some("number")).contains("floor(x)"));
    assert_eq!(hint("getMonth", Some("string")), "");
    assert!(hint("getMonth", Some("number")).contains("month(ms)"));
    assert!(hint("getMonth", None).contains("month(ms)"));
    assert_eq!(
        method_hint("tset", Some("regex")).as_deref(),
        Some("did you mean 'test'?")
    );
    assert_eq!(method_hint("fitler", Some("null")), None);
}

#[test]
fn date_tokens_of_other_conventions() {
    assert_eq!(
        date_format_hint("DD.MM.YYYY").as_deref(),
        Some("XPR's date tokens are `yyyy MM dd HH mm ss SSS EEE EEEE`: write \"dd.MM.yyyy\"")
    );
    // XPR's own tokens are kept; single letters, moment's weekday names,
    // two-digit years and the twelve-hour clock are rewritten.
    assert_eq!(date_format_fix("yyyy-MM-dd EEE"), None);
    assert_eq!(
        date_format_fix("d/M/yy h:mm dddd ddd").as_deref(),
        Some("dd/MM/yyyy HH:mm EEEE EEE")
    );
    assert_eq!(
        date_format_fix("%a %A %y").as_deref(),
        Some("EEE EEEE yyyy")
    );
    assert_eq!(date_format_fix(&"Y".repeat(201)), None);
    assert!(date_format_hint("%d/%m/%Y %H:%M").is_some_and(|h| h.contains("\"dd/MM/yyyy HH:mm\"")));
    assert_eq!(date_format_hint("yyyy-MM-dd HH:mm"), None);
    assert!(date_format_hint("yyyy-mm-dd").is_some_and(|h| h.contains("\"yyyy-MM-dd\"")));
    assert_eq!(date_format_hint("HH:mm"), None);
}

#[test]
fn null_hints_read_back_which_operand_was_null() {
    let left = null_operands(operand_hint(">", "null", "number").unwrap_or(""));
    assert_eq!(
        left.map(|n| (n.left, n.right, n.default)),
        Some((true, false, "0"))
    );
    let right = null_operands(operand_hint("<", "string", "null").unwrap_or(""));
    assert_eq!(
        right.map(|n| (n.left, n.right, n.default)),
        Some((false, true, "\"\""))
    );
    let both = null_operands(operand_hint("%", "null", "null").unwrap_or(""));
    assert_eq!(both.map(|n| (n.left, n.right)), Some((true, true)));
    assert_eq!(null_operands(CONVERT), None);
}

#[test]
fn arities_and_operands_of_other_languages() {
    use crate::Arity;
    assert!(arity_hint("round", Arity::Exact(1), 2).is_some_and(|h| h.contains("* 100")));
    assert!(arity_hint("max", Arity::AtLeast(2), 1).is_some_and(|h| h.contains("xs.max()")));
    assert_eq!(arity_hint("max", Arity::Exact(0), 1), None);
    assert_eq!(arity_hint("round", Arity::Exact(1), 3), None);
    assert_eq!(operand_hint("+", "string", "number"), Some(CONVERT));
    assert_eq!(operand_hint("*", "string", "number"), Some(REPEAT));
    assert_eq!(operand_hint("-", "function", "number"), Some(CALL_IT));
    assert_eq!(
        operand_hint("+", "array", "number"),
        Some("XPR adds an element with `[...xs, x]`")
    );
    assert_eq!(operand_hint("<", "null", "number"), Some(NULL_LEFT));
    assert_eq!(operand_hint("*", "number", "null"), Some(NULL_RIGHT));
    assert_eq!(operand_hint("-", "null", "null"), Some(NULL_BOTH));
    assert_eq!(operand_hint("+", "string", "null"), Some(NULL_RIGHT_TEXT));
    assert_eq!(operand_hint("-", "regex", "regex"), None);
}
