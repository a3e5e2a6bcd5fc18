//! Unit tests of the string methods, called through the registry.

use std::sync::Arc;

use super::pad::push_repeated;
use super::*;
use crate::stdlib::testing::TestRuntime;
use crate::stdlib::{call_method, method_id};
use crate::value::{HEADER_BYTES, SLOT_BYTES, STRING_HEADER_BYTES};

fn call_with(rt: &mut TestRuntime, recv: &str, name: &str, args: &[Value]) -> Result<Value, Error> {
    let id = method_id(name).unwrap_or_else(|| panic!("no method {name}"));
    call_method(rt, id, &Value::from(recv), args)
}

fn call(recv: &str, name: &str, args: &[Value]) -> Result<Value, Error> {
    call_with(&mut TestRuntime::default(), recv, name, args)
}

fn ok(recv: &str, name: &str, args: &[Value]) -> Value {
    call(recv, name, args).unwrap_or_else(|e| panic!("{recv:?}.{name}({args:?}): {e}"))
}

fn err(recv: &str, name: &str, args: &[Value]) -> Error {
    match call(recv, name, args) {
        Err(e) => e,
        Ok(v) => panic!("{recv:?}.{name}({args:?}) gave {v:?}"),
    }
}

fn s(x: &str) -> Value {
    Value::from(x)
}

fn n(x: f64) -> Value {
    Value::Number(x)
}

fn strs(xs: &[&str]) -> Value {
    Value::array(xs.iter().map(|x| Value::from(*x)).collect())
}

fn re(p: &str, f: &str) -> Value {
    Value::Regex(Arc::new(crate::stdlib::regex::compile(p, f).unwrap()))
}

#[test]
fn len_counts_characters() {
    assert_eq!(ok("hello", "len", &[]), n(5.0));
    assert_eq!(ok("", "len", &[]), n(0.0));
    assert_eq!(ok("😀", "len", &[]), n(1.0));
    assert_eq!(ok("café", "len", &[]), n(4.0));
    assert_eq!(ok("日本語", "len", &[]), n(3.0));
    // e + combining acute accent: two code points.
    assert_eq!(ok("e\u{301}", "len", &[]), n(2.0));
    assert!(
        err("x", "len", &[n(1.0)])
            .message()
            .contains("expected 0, got 1")
    );
}

#[test]
fn upper_and_lower_map_full_unicode() {
    assert_eq!(ok("hello", "upper", &[]), s("HELLO"));
    for t in [
        "",
        "abc",
        "abcdefgh",
        "abcdefghijklmnopq",
        "abcdefgé",
        "abcdefghé",
        "éabcdefghij",
    ] {
        assert_eq!(super::ascii_only(t), t.is_ascii(), "{t}");
    }
    assert_eq!(ok("HeLLo 1!", "lower", &[]), s("hello 1!"));
    assert_eq!(ok("straße", "upper", &[]), s("STRASSE"));
    assert_eq!(ok("ÉCOLE Ça", "lower", &[]), s("école ça"));
    assert_eq!(ok("ΟΔΟΣ", "lower", &[]), s("οδος"));
    assert_eq!(ok("ΟΔΟΣ", "lower", &[]), s("οδος"));
    assert_eq!(ok("ǆ", "upper", &[]), s("Ǆ"));
    assert_eq!(ok("日本😀", "upper", &[]), s("日本😀"));
    assert_eq!(ok("ﬃ", "upper", &[]), s("FFI"));
}

#[test]
fn final_sigma_lowercases_like_javascript() {
    assert_eq!(
        ok("ΟΔΟΣ", "lower", &[]).as_str().map(|x| x.ends_with('ς')),
        Some(true)
    );
}

#[test]
fn case_mapping_charges_the_exact_result_length() {
    let mut rt = TestRuntime::default();
    call_with(&mut rt, "straße", "upper", &[]).unwrap();
    assert_eq!(rt.bytes_used, "STRASSE".len() as u64);
    let mut rt = TestRuntime::default();
    call_with(&mut rt, "ABC", "lower", &[]).unwrap();
    assert_eq!(rt.bytes_used, 3);
}

#[test]
fn owned_case_mapping_reuses_only_an_unshared_ascii_string() {
    let id = super::super::method_id("upper").unwrap();
    // Unshared: changed in place, same fuel, no memory charged.
    let mut rt = TestRuntime::default();
    let owned: Arc<str> = Arc::from("ab c");
    let ptr = Arc::as_ptr(&owned).cast::<u8>();
    let r = super::super::call_method_owned(&mut rt, id, Value::String(owned), &[]).unwrap();
    assert_eq!(r, s("AB C"));
    assert_eq!(r.as_str().map(|t| t.as_ptr()), Some(ptr));
    assert_eq!(rt.bytes_used, 0);
    let mut plain = TestRuntime::default();
    call_with(&mut plain, "ab c", "upper", &[]).unwrap();
    assert_eq!(rt.fuel_used, plain.fuel_used);
    // Shared: the other holder keeps its text.
    let mut rt = TestRuntime::default();
    let shared: Arc<str> = Arc::from("xy");
    let r =
        super::super::call_method_owned(&mut rt, id, Value::String(shared.clone()), &[]).unwrap();
    assert_eq!(r, s("XY"));
    assert_eq!(&*shared, "xy");
    assert_eq!(rt.bytes_used, 2);
    // Non-ASCII goes the full Unicode way; a number is a type error.
    let mut rt = TestRuntime::default();
    let r = super::super::call_method_owned(&mut rt, id, s("straße"), &[]).unwrap();
    assert_eq!(r, s("STRASSE"));
    assert!(
        super::super::call_method_owned(&mut rt, id, n(1.0), &[])
            .unwrap_err()
            .message()
            .contains("cannot call method 'upper' on number")
    );
    let lower = super::super::method_id("lower").unwrap();
    let r = super::super::call_method_owned(&mut rt, lower, s("QR"), &[]).unwrap();
    assert_eq!(r, s("qr"));
}

#[test]
fn trim_family_uses_javascript_whitespace() {
    assert_eq!(ok("  hello  ", "trim", &[]), s("hello"));
    assert_eq!(
        ok(
            "\t\n\u{b}\u{c}\r x \u{a0}\u{feff}\u{2028}\u{3000}",
            "trim",
            &[]
        ),
        s("x")
    );
    assert_eq!(ok("\u{85}x\u{85}", "trim", &[]), s("\u{85}x\u{85}"));
    assert_eq!(ok("  hello  ", "trimStart", &[]), s("hello  "));
    assert_eq!(ok("  hello  ", "trimEnd", &[]), s("  hello"));
    assert_eq!(ok("   ", "trimStart", &[]), s(""));
    assert_eq!(ok("   ", "trimEnd", &[]), s(""));
    assert_eq!(ok(" 日本 ", "trim", &[]), s("日本"));
    let mut rt = TestRuntime::default();
    call_with(&mut rt, "already", "trim", &[]).unwrap();
    assert_eq!(rt.bytes_used, 0, "an unchanged string is not copied");
}

#[test]
fn starts_ends_contains() {
    assert_eq!(
        ok("hello world", "startsWith", &[s("hello")]),
        Value::Bool(true)
    );
    assert_eq!(
        ok("hello world", "startsWith", &[s("world")]),
        Value::Bool(false)
    );
    assert_eq!(
        ok("hello world", "endsWith", &[s("world")]),
        Value::Bool(true)
    );
    assert_eq!(ok("hello", "endsWith", &[s("")]), Value::Bool(true));
    assert_eq!(
        ok("hello world", "contains", &[s("lo wo")]),
        Value::Bool(true)
    );
    assert_eq!(ok("hello", "contains", &[s("xyz")]), Value::Bool(false));
    assert_eq!(ok("😀é", "startsWith", &[s("😀")]), Value::Bool(true));
    assert_eq!(ok("", "contains", &[s("")]), Value::Bool(true));
    for name in ["startsWith", "endsWith", "contains"] {
        let e = err("x", name, &[n(1.0)]);
        assert_eq!(e.kind(), ErrorKind::Type);
        assert_eq!(
            e.message(),
            format!("Type error: {name} expects string argument, got number")
        );
        assert_eq!(err("x", name, &[re("x", "")]).kind(), ErrorKind::Type);
    }
}

#[test]
fn index_of_counts_characters() {
    assert_eq!(ok("hello", "indexOf", &[s("ll")]), n(2.0));
    assert_eq!(ok("hello", "indexOf", &[s("xyz")]), n(-1.0));
    assert_eq!(ok("hello", "indexOf", &[s("")]), n(0.0));
    assert_eq!(ok("😀abc", "indexOf", &[s("a")]), n(1.0));
    assert_eq!(ok("日本語テキスト", "indexOf", &[s("テ")]), n(3.0));
    assert_eq!(ok("aXbX", "indexOf", &[s("X")]), n(1.0));
    assert_eq!(err("x", "indexOf", &[Value::Null]).kind(), ErrorKind::Type);
}

#[test]
fn split_by_string() {
    assert_eq!(ok("a,b,c", "split", &[s(",")]), strs(&["a", "b", "c"]));
    assert_eq!(ok("a,,b,", "split", &[s(",")]), strs(&["a", "", "b", ""]));
    assert_eq!(ok("abc", "split", &[s(",")]), strs(&["abc"]));
    assert_eq!(ok("", "split", &[s(",")]), strs(&[""]));
    assert_eq!(ok("", "split", &[s("")]), strs(&[]));
    assert_eq!(ok("h😀é", "split", &[s("")]), strs(&["h", "😀", "é"]));
    assert_eq!(ok("a::b::c", "split", &[s("::")]), strs(&["a", "b", "c"]));
    assert_eq!(ok("日本,語", "split", &[s(",")]), strs(&["日本", "語"]));
    let e = err("a", "split", &[n(1.0)]);
    assert_eq!(
        e.message(),
        "Type error: split expects string or regex argument, got number"
    );
}

#[test]
fn split_by_regex_follows_javascript() {
    assert_eq!(
        ok("a1b2c3", "split", &[re(r"\d+", "")]),
        strs(&["a", "b", "c", ""])
    );
    assert_eq!(ok("hello", "split", &[re("l", "")]), strs(&["he", "", "o"]));
    assert_eq!(ok("abc", "split", &[re("x*", "")]), strs(&["a", "b", "c"]));
    assert_eq!(
        ok("a, b ,c", "split", &[re(r"\s*,\s*", "")]),
        strs(&["a", "b", "c"])
    );
    assert_eq!(ok("", "split", &[re("x", "")]), strs(&[""]));
    assert_eq!(ok("", "split", &[re("x*", "")]), strs(&[]));
    assert_eq!(
        ok("aXbxc", "split", &[re("x", "i")]),
        strs(&["a", "b", "c"])
    );
}

#[test]
fn split_charges_each_piece() {
    let mut rt = TestRuntime::default();
    call_with(&mut rt, "ab,c", "split", &[s(",")]).unwrap();
    assert_eq!(
        rt.bytes_used,
        HEADER_BYTES + 2 * (SLOT_BYTES + STRING_HEADER_BYTES) + 3
    );
    let mut rt = TestRuntime {
        memory_limit: Some(1000),
        ..TestRuntime::default()
    };
    let long = "x".repeat(10_000);
    assert_eq!(
        call_with(&mut rt, &long, "split", &[s("")])
            .unwrap_err()
            .kind(),
        ErrorKind::Memory
    );
}

#[test]
fn replace_with_string_is_literal_and_global() {
    assert_eq!(ok("hello", "replace", &[s("l"), s("r")]), s("herro"));
    assert_eq!(ok("abc", "replace", &[s("b"), s("[$&]")]), s("a[$&]c"));
    assert_eq!(ok("abc", "replace", &[s("x"), s("y")]), s("abc"));
    assert_eq!(ok("aaa", "replace", &[s("aa"), s("b")]), s("ba"));
    assert_eq!(ok("abc", "replace", &[s(""), s("-")]), s("-a-b-c-"));
    assert_eq!(ok("😀😀", "replace", &[s("😀"), s("é")]), s("éé"));
    assert_eq!(ok("a.b.c", "replace", &[s("."), s("")]), s("abc"));
    assert_eq!(ok("$1", "replace", &[s("$1"), s("$$")]), s("$$"));
    let e = err("a", "replace", &[s("a"), n(1.0)]);
    assert_eq!(
        e.message(),
        "Type error: replace replacement must be string, got number"
    );
    let e = err("a", "replace", &[n(1.0), s("b")]);
    assert_eq!(
        e.message(),
        "Type error: replace expects string or regex as first argument, got number"
    );
}

#[test]
fn replace_charges_the_exact_result() {
    let mut rt = TestRuntime::default();
    let v = call_with(&mut rt, "a-b-c", "replace", &[s("-"), s("==")]).unwrap();
    assert_eq!(rt.bytes_used, v.as_str().unwrap().len() as u64);
    let mut rt = TestRuntime {
        memory_limit: Some(10_000),
        ..TestRuntime::default()
    };
    let long = "x".repeat(1000);
    let big = "y".repeat(100);
    let e = call_with(&mut rt, &long, "replace", &[s("x"), s(&big)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
}

#[test]
fn replace_with_regex_substitutes_like_javascript() {
    assert_eq!(
        ok("hello world", "replace", &[re("o", ""), s("0")]),
        s("hell0 w0rld")
    );
    assert_eq!(
        ok("Hello hello HELLO", "replace", &[re("hello", "i"), s("hi")]),
        s("hi hi hi")
    );
    assert_eq!(
        ok(
            "2024-01-15",
            "replace",
            &[re(r"(\d{4})-(\d{2})-(\d{2})", ""), s("$3/$2/$1")]
        ),
        s("15/01/2024")
    );
    assert_eq!(
        ok("abc", "replace", &[re("b", ""), s("[$&][$$][$1]")]),
        s("a[b][$][$1]c")
    );
    assert_eq!(ok("", "replace", &[re(r"\d+", ""), s("X")]), s(""));
    let e = err("hello", "replace", &[re("l", ""), n(42.0)]);
    assert_eq!(e.kind(), ErrorKind::Type);
}

#[test]
fn match_returns_first_match_or_null() {
    assert_eq!(ok("order-123", "match", &[re(r"\d+", "")]), s("123"));
    assert_eq!(ok("no digits", "match", &[re(r"\d+", "")]), Value::Null);
    assert_eq!(ok("Hello World", "match", &[re("hello", "i")]), s("Hello"));
    assert_eq!(ok("abc 456 def 789", "match", &[re(r"\d+", "")]), s("456"));
    assert_eq!(ok("x😀y", "match", &[re(".y", "")]), s("😀y"));
    // A pattern string is refused (the global match(s, pattern) takes one).
    let e = err("order-123", "match", &[s(r"\d+")]);
    assert_eq!(e.kind(), ErrorKind::Type);
    assert!(
        e.message()
            .starts_with("Type error: match expects regex argument, got string ("),
        "{e}"
    );
    let e = err("a", "match", &[n(1.0)]);
    assert_eq!(
        e.message(),
        "Type error: match expects regex argument, got number"
    );
}

#[test]
fn slice_follows_javascript_on_characters() {
    let cases: &[(&str, f64, Option<f64>, &str)] = &[
        ("hello", 1.0, Some(3.0), "el"),
        ("hello", 1.0, None, "ello"),
        ("hello", -3.0, None, "llo"),
        ("hello", -3.0, Some(-1.0), "ll"),
        ("hello", 0.0, Some(-10.0), ""),
        ("hello", -10.0, Some(2.0), "he"),
        ("hello", 3.0, Some(1.0), ""),
        ("hello", 10.0, None, ""),
        ("hello", 1.7, Some(3.9), "el"),
        ("hello", -1.7, None, "o"),
        ("hello", 0.0, Some(1e300), "hello"),
        ("hello", -1e300, None, "hello"),
        ("😀x", 0.0, Some(1.0), "😀"),
        ("a😀", -1.0, None, "😀"),
        ("日本語テキスト", 2.0, Some(4.0), "語テ"),
        ("café!", 3.0, Some(4.0), "é"),
        ("", 0.0, None, ""),
    ];
    for &(recv, start, end, want) in cases {
        let mut args = vec![n(start)];
        args.extend(end.map(n));
        assert_eq!(
            ok(recv, "slice", &args),
            s(want),
            "{recv:?}.slice({start}, {end:?})"
        );
    }
    assert_eq!(
        err("abc", "slice", &[s("1")]).message(),
        "Type error: slice expects number argument as start, got string"
    );
    assert_eq!(
        err("abc", "slice", &[n(0.0), Value::Null]).message(),
        "Type error: slice expects number argument as end, got null"
    );
    assert_eq!(err("abc", "slice", &[]).kind(), ErrorKind::Arity);
}

#[test]
fn char_at_counts_characters() {
    assert_eq!(ok("hello", "charAt", &[n(1.0)]), s("e"));
    assert_eq!(ok("hello", "charAt", &[n(0.0)]), s("h"));
    assert_eq!(ok("hello", "charAt", &[n(99.0)]), s(""));
    assert_eq!(ok("hello", "charAt", &[n(-1.0)]), s(""));
    assert_eq!(ok("hello", "charAt", &[n(1.9)]), s("e"));
    assert_eq!(ok("hello", "charAt", &[n(-0.5)]), s("h"));
    assert_eq!(ok("😀é日", "charAt", &[n(1.0)]), s("é"));
    assert_eq!(ok("😀é日", "charAt", &[n(2.0)]), s("日"));
    assert_eq!(ok("😀é日", "charAt", &[n(3.0)]), s(""));
    assert_eq!(ok("x", "charAt", &[n(1e300)]), s(""));
    assert_eq!(err("x", "charAt", &[s("0")]).kind(), ErrorKind::Type);
}

#[test]
fn repeat_checks_its_count() {
    assert_eq!(ok("ab", "repeat", &[n(3.0)]), s("ababab"));
    assert_eq!(ok("ab", "repeat", &[n(0.0)]), s(""));
    assert_eq!(ok("ab", "repeat", &[n(1.0)]), s("ab"));
    assert_eq!(ok("😀", "repeat", &[n(2.0)]), s("😀😀"));
    assert_eq!(ok("", "repeat", &[n(1e300)]), s(""));
    for (bad, shown) in [(-1.0, "-1"), (1.5, "1.5"), (-0.5, "-0.5")] {
        let e = err("ab", "repeat", &[n(bad)]);
        assert_eq!(e.kind(), ErrorKind::Value);
        assert_eq!(
            e.message(),
            format!("repeat expects non-negative integer, got {shown}")
        );
    }
    for (bad, name) in [(s("3"), "string"), (Value::Bool(true), "boolean")] {
        assert_eq!(
            err("ab", "repeat", &[bad]).message(),
            format!("Type error: repeat expects non-negative integer, got {name}")
        );
    }
}

#[test]
fn repeat_charges_memory_before_building() {
    let mut rt = TestRuntime {
        memory_limit: Some(1 << 20),
        ..TestRuntime::default()
    };
    let e = call_with(&mut rt, "x", "repeat", &[n(1e12)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
    assert_eq!(
        rt.fuel_used, 0,
        "memory is charged before fuel and before any work"
    );
    let e = call_with(&mut TestRuntime::default(), "xy", "repeat", &[n(1e300)]).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Memory,
        "no String can be that long even without a limit"
    );
    let mut rt = TestRuntime::default();
    call_with(&mut rt, "abc", "repeat", &[n(1000.0)]).unwrap();
    assert_eq!(rt.bytes_used, 3000);
    assert!(rt.fuel_used >= 3000 / 16);
}

#[test]
fn huge_results_fail_cleanly_without_a_memory_limit() {
    // No limit configured: the allocator's refusal is a memory error.
    let e = call("xy", "repeat", &[n(1e15)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
    let e = call("x", "padEnd", &[n(1e15), s("é")]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
}

#[test]
fn repetition_by_doubling_matches_std_repeat() {
    for (unit, times) in [("ab", 1000usize), ("é😀", 37), ("x", 1), ("日本語", 2)] {
        let want = unit.repeat(times);
        assert_eq!(ok(unit, "repeat", &[n(times as f64)]), s(&want));
        let mut buf = b"<".to_vec();
        push_repeated(&mut buf, unit.as_bytes(), times);
        assert_eq!(buf, format!("<{want}").into_bytes());
    }
    let padded = ok("z", "padStart", &[n(1001.0), s("é")]);
    assert_eq!(padded, s(&format!("{}z", "é".repeat(1000))));
}

#[test]
fn padding_uses_one_pad_character() {
    assert_eq!(ok("5", "padStart", &[n(3.0), s("0")]), s("005"));
    assert_eq!(ok("5", "padEnd", &[n(3.0), s(".")]), s("5.."));
    assert_eq!(ok("5", "padStart", &[n(3.0)]), s("  5"));
    assert_eq!(ok("5", "padEnd", &[n(3.0)]), s("5  "));
    assert_eq!(ok("hello", "padStart", &[n(3.0)]), s("hello"));
    assert_eq!(ok("hello", "padEnd", &[n(-3.0)]), s("hello"));
    // Only the first character of a longer string pads; an empty one
    // pads with the default space.
    assert_eq!(ok("abc", "padStart", &[n(10.0), s("123")]), s("1111111abc"));
    assert_eq!(ok("abc", "padEnd", &[n(6.0), s("12345")]), s("abc111"));
    assert_eq!(ok("abc", "padStart", &[n(6.0), s("")]), s("   abc"));
    assert_eq!(ok("abc", "padEnd", &[n(5.0), s("")]), s("abc  "));
    assert_eq!(ok("é", "padStart", &[n(3.0), s("😀")]), s("😀😀é"));
    assert_eq!(ok("日本", "padEnd", &[n(5.0), s("語x")]), s("日本語語語"));
    assert_eq!(ok("ab", "padStart", &[n(4.9), s("-")]), s("--ab"));
    assert_eq!(
        err("a", "padStart", &[s("3")]).message(),
        "Type error: padStart expects number argument, got string"
    );
    assert_eq!(
        err("a", "padEnd", &[Value::Bool(true)]).message(),
        "Type error: padEnd expects number argument, got boolean"
    );
    assert_eq!(
        err("a", "padEnd", &[n(3.0), n(0.0)]).message(),
        "Type error: padEnd pad character must be string, got number"
    );
    assert_eq!(
        err("a", "padStart", &[n(3.0), Value::Null]).message(),
        "Type error: padStart pad character must be string, got null"
    );
    assert_eq!(err("a", "padEnd", &[]).kind(), ErrorKind::Arity);
}

#[test]
fn padding_charges_memory_first() {
    let mut rt = TestRuntime {
        memory_limit: Some(1 << 20),
        ..TestRuntime::default()
    };
    let e = call_with(&mut rt, "x", "padStart", &[n(1e12), s("ab")]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Memory);
    let mut rt = TestRuntime::default();
    let v = call_with(&mut rt, "é", "padEnd", &[n(4.0), s("😀")]).unwrap();
    assert_eq!(rt.bytes_used, v.as_str().unwrap().len() as u64);
}

#[test]
fn methods_charge_fuel_in_proportion_to_length() {
    let long = "a".repeat(16_000);
    for (name, args) in [
        ("len", vec![]),
        ("upper", vec![]),
        ("trim", vec![]),
        ("contains", vec![s("b")]),
        ("indexOf", vec![s("b")]),
        ("slice", vec![n(1.0)]),
        ("split", vec![s("b")]),
        ("replace", vec![s("a"), s("b")]),
        ("charAt", vec![n(5.0)]),
        ("padEnd", vec![n(16_001.0)]),
    ] {
        let mut rt = TestRuntime::default();
        call_with(&mut rt, &long, name, &args).unwrap();
        assert!(rt.fuel_used >= 1000, "{name} charged {}", rt.fuel_used);
        let mut rt = TestRuntime {
            fuel_limit: Some(100),
            ..TestRuntime::default()
        };
        assert_eq!(
            call_with(&mut rt, &long, name, &args).unwrap_err().kind(),
            ErrorKind::Fuel,
            "{name}"
        );
    }
}

#[test]
fn methods_exist_only_on_strings() {
    let id = method_id("upper").unwrap();
    let e = call_method(&mut TestRuntime::default(), id, &n(42.0), &[]).unwrap_err();
    assert_eq!(
        e.message(),
        "Type error: cannot call method 'upper' on number"
    );
    let e = call_method(&mut TestRuntime::default(), id, &Value::Null, &[]).unwrap_err();
    assert!(e.message().contains("null"));
}

#[test]
fn js_whitespace_differs_from_rust_in_two_places() {
    assert!(is_js_whitespace('\u{feff}') && !'\u{feff}'.is_whitespace());
    assert!(!is_js_whitespace('\u{85}') && '\u{85}'.is_whitespace());
    assert!(is_js_whitespace('\u{2029}') && is_js_whitespace('\u{202f}'));
    assert!(!is_js_whitespace('\u{200b}'));
}
