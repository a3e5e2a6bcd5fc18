//! Unit tests of the regex module: RE2 translation, flags, matching,
//! replacing and splitting like JavaScript, the built-ins, fuel and memory.

use std::sync::Arc;

use super::*;
use crate::error::{Error, ErrorKind};
use crate::stdlib::testing::TestRuntime;
use crate::value::{HEADER_BYTES, Regex, SLOT_BYTES, STRING_HEADER_BYTES, Value};

fn re(p: &str) -> Regex {
    re_flags(p, "")
}

fn re_flags(p: &str, f: &str) -> Regex {
    match compile(p, f) {
        Ok(r) => r,
        Err(e) => panic!("{p}: {e}"),
    }
}

fn rejected(p: &str) -> String {
    match compile(p, "") {
        Ok(_) => panic!("{p} should be rejected"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Regex, "{p}");
            assert!(
                e.message().contains("invalid regex"),
                "{p}: {}",
                e.message()
            );
            e.message().to_string()
        }
    }
}

fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
    let mut rt = TestRuntime::default();
    let id = crate::stdlib::function_id(name).unwrap_or(u16::MAX);
    crate::stdlib::call_function(&mut rt, id, args)
}

fn s(v: &str) -> Value {
    Value::from(v)
}

fn strs(items: &[&str]) -> Value {
    Value::array(items.iter().map(|&x| Value::from(x)).collect())
}

fn rx(p: &str) -> Value {
    Value::Regex(Arc::new(re(p)))
}

fn type_err(r: Result<Value, Error>) {
    match r {
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Type);
            assert!(e.message().starts_with("Type error: "), "{}", e.message());
        }
        Ok(v) => panic!("expected a type error, got {v:?}"),
    }
}

fn replace(p: &str, hay: &str, rep: &str) -> String {
    let mut rt = TestRuntime::default();
    match replace_all(&mut rt, &re(p), hay, rep) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    }
}

fn split_strs(p: &str, hay: &str) -> Vec<Value> {
    let mut rt = TestRuntime::default();
    match split(&mut rt, &re(p), hay) {
        Ok(x) => x,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn ascii_perl_classes_like_re2() {
    // Arabic-Indic digits, fullwidth digits, accented letters, NBSP.
    assert!(!re(r"\d").compiled().is_match("٣"));
    assert!(!re(r"\d").compiled().is_match("３"));
    assert!(re(r"\d").compiled().is_match("3"));
    assert!(re(r"\D").compiled().is_match("٣"));
    assert!(!re(r"^\w$").compiled().is_match("é"));
    assert!(re(r"^\W$").compiled().is_match("é"));
    assert!(re(r"^\w+$").compiled().is_match("Az_09"));
    assert!(!re(r"\s").compiled().is_match("\u{a0}"));
    assert!(
        !re(r"\s").compiled().is_match("\u{0b}"),
        "RE2's \\s excludes \\v"
    );
    assert!(re(r"^\s+$").compiled().is_match(" \t\n\r\u{0c}"));
    assert!(re(r"^\S$").compiled().is_match("\u{2003}"));
}

#[test]
fn ascii_perl_classes_inside_classes() {
    assert!(!re(r"[\d]").compiled().is_match("٣"));
    assert!(re(r"^[\dx]+$").compiled().is_match("1x2"));
    assert!(!re(r"[\w-]").compiled().is_match("é"));
    assert!(re(r"^[\w-]+$").compiled().is_match("a-b_c"));
    assert!(re(r"^[\D]$").compiled().is_match("é"));
    assert!(!re(r"^[^\d]$").compiled().is_match("5"));
    assert!(re(r"^[^\D]$").compiled().is_match("5"));
    assert!(!re(r"^[^\D]$").compiled().is_match("a"));
    assert!(re(r"^[\s,]+$").compiled().is_match(" ,\t"));
    assert!(re(r"^[^\S]$").compiled().is_match(" "));
    assert!(re(r"^[\W]$").compiled().is_match("é"));
}

#[test]
fn escaped_backslash_is_not_a_class() {
    // `\\d` is a literal backslash then `d`.
    assert!(re(r"^\\d$").compiled().is_match(r"\d"));
    assert!(!re(r"^\\d$").compiled().is_match("5"));
    assert!(re(r"^[\\d]+$").compiled().is_match(r"d\d"));
}

#[test]
fn word_boundary_is_ascii() {
    // RE2: é is not a word character, so there is a boundary before it.
    assert_eq!(first_match(&re(r"\b\w+\b"), "éabc"), Some("abc"));
    assert!(re(r"a\b").compiled().is_match("aé"));
    assert!(re(r"\Ba").compiled().is_match("ba"));
    assert!(!re(r"\Ba").compiled().is_match(" a"));
    assert!(re(r"é\B").compiled().is_match("é!"));
}

#[test]
fn class_set_operators_rejected() {
    assert!(rejected("[a&&b]").contains("&&"));
    assert!(rejected("[a-z--m]").contains("--"));
    assert!(rejected("[a~~b]").contains("~~"));
    // Single characters and escaped ones are fine.
    assert!(re(r"^[&~-]+$").compiled().is_match("&~-"));
    assert!(re(r"^[\&\&]$").compiled().is_match("&"));
    // Outside classes they are literal text.
    assert!(re("a&&b--c~~").compiled().is_match("a&&b--c~~"));
}

#[test]
fn bracket_inside_class_is_literal() {
    assert!(re(r"^[[]$").compiled().is_match("["));
    assert!(re(r"^[a[b]+$").compiled().is_match("a[b"));
    assert!(re(r"^[]a]+$").compiled().is_match("]a"));
    assert!(re(r"^[^]a]$").compiled().is_match("b"));
    assert!(re(r"^[[:alpha:]]+$").compiled().is_match("abc"));
    assert!(!re(r"^[[:alpha:]]+$").compiled().is_match("a1"));
    assert!(re(r"^[[:^digit:]]$").compiled().is_match("x"));
}

#[test]
fn invalid_patterns_rejected() {
    rejected("[invalid");
    rejected("[bad");
    rejected("(abc");
    rejected("abc)");
    rejected("*a");
    rejected(r"abc\");
    rejected(r"(a)\1");
    rejected(r"\8");
    rejected("(?=a)");
    rejected("(?!a)");
    rejected("(?<=a)b");
    rejected("(?<!a)b");
    rejected("(?x)a b");
    rejected("(?u)a");
    rejected("(?P=n)");
    rejected("a**");
    rejected("a+*");
    rejected("a{2}{3}");
    rejected("a{2}*");
    rejected("a{1001}");
    rejected("a{5,3}");
    rejected("[z-a]");
    rejected(r"\pX{");
    rejected(r"[\Q]\E]");
    assert!(rejected("(?=a)").contains("lookahead"));
    assert!(rejected("(?>a)").contains("atomic groups are not supported"));
}

#[test]
fn huge_repetitions_rejected_fast() {
    assert!(rejected("a{1000}{1000}").contains("repetition"));
    assert!(rejected("(a{100}){100}").contains("1000"));
    assert!(rejected("((a{10}){10}){11}").contains("1000"));
    // Exactly 1000 is allowed by RE2.
    assert!(re("(?:a{10}){100}").compiled().is_match(&"a".repeat(1000)));
    assert!(re("(a{0}){1000}").compiled().is_match(""));
    // Over the compiled-size limit: each \pL is hundreds of ranges.
    assert!(rejected(r"\pL{1000}").contains("size limit"));
    assert!(rejected(r"(\pL{50}|\w{50}){20}").contains("invalid regex"));
    // Nesting limit.
    let deep = format!("{}a{}", "(".repeat(200), ")".repeat(200));
    rejected(&deep);
}

#[test]
fn re2_literal_rules() {
    // `{` not starting a repetition is a literal.
    assert!(re("^a{$").compiled().is_match("a{"));
    assert!(re("^a{,5}$").compiled().is_match("a{,5}"));
    assert!(re("^{x}$").compiled().is_match("{x}"));
    assert!(re("^a{2,}$").compiled().is_match("aaa"));
    assert!(re("^a{2,3}?$").compiled().is_match("aa"));
    // \Q...\E quotes; an unterminated \Q runs to the end.
    assert!(re(r"^\Qa.b*\E+$").compiled().is_match("a.b**"));
    assert!(re(r"^\Q(x)").compiled().is_match("(x)"));
    // Octal escapes.
    assert!(re(r"^\101\0$").compiled().is_match("A\0"));
    assert!(re(r"^\12$").compiled().is_match("\n"));
    // \< and \> are the characters in RE2.
    assert!(re(r"^\<a\>$").compiled().is_match("<a>"));
    // Named groups, flags, lazy operators.
    assert!(
        re(r"(?P<y>\d{4})-(?<m>\d\d)")
            .compiled()
            .is_match("2024-01")
    );
    assert!(re(r"(?i)abc").compiled().is_match("ABC"));
    assert!(re(r"(?i:a)b").compiled().is_match("Ab"));
    assert!(!re(r"(?i:a)b").compiled().is_match("AB"));
    assert!(re(r"(?s-i:a.)").compiled().is_match("a\n"));
    assert_eq!(first_match(&re(r"(?U)a+"), "aaa"), Some("a"));
    assert_eq!(first_match(&re(r"a+?"), "aaa"), Some("a"));
    assert!(re(r"\x41\x{42}\p{Greek}\PL").compiled().is_match("ABα1"));
    // `\u` with four hex digits (not RE2, but JavaScript and Python).
    assert!(re(r"^\u0041$").compiled().is_match("A"));
}

#[test]
fn flags() {
    assert!(re_flags("hello", "i").compiled().is_match("HeLLo"));
    assert!(!re("hello").compiled().is_match("HeLLo"));
    assert!(re_flags("^b$", "m").compiled().is_match("a\nb\nc"));
    assert!(!re("^b$").compiled().is_match("a\nb\nc"));
    assert!(re_flags("a.b", "s").compiled().is_match("a\nb"));
    assert!(!re("a.b").compiled().is_match("a\nb"));
    let r = re_flags(r"\d", "im");
    assert_eq!((r.pattern(), r.flags()), (r"\d", "im"));
    match compile("a", "g") {
        Err(e) => assert!(e.message().contains("invalid regex flags")),
        Ok(_) => panic!("flag g accepted"),
    }
    // (?i) folds \w's letters as RE2 does, and keeps it ASCII-only.
    assert!(re(r"(?i)^\w$").compiled().is_match("Q"));
    assert!(!re(r"(?i)^\w$").compiled().is_match("É"));
}

#[test]
fn no_catastrophic_backtracking() {
    let hay = format!("{}!", "a".repeat(5000));
    assert!(!re("^(a|a)*$").compiled().is_match(&hay));
    assert!(!re("^(a+)+$").compiled().is_match(&hay));
}

#[test]
fn replace_all_matches_like_js() {
    assert_eq!(replace("o", "hello world", "0"), "hell0 w0rld");
    assert_eq!(
        replace(r"(\d{4})-(\d{2})-(\d{2})", "2024-01-15", "$3/$2/$1"),
        "15/01/2024"
    );
    assert_eq!(replace("a*", "baaa", "X"), "XbXX");
    assert_eq!(replace("", "ab", "-"), "-a-b-");
    assert_eq!(replace("", "é😀", "-"), "-é-😀-");
    assert_eq!(replace("x", "", "y"), "");
    assert_eq!(replace("", "", "y"), "y");
}

#[test]
fn split_like_js() {
    let v = |xs: &[&str]| xs.iter().map(|&x| Value::from(x)).collect::<Vec<_>>();
    assert_eq!(split_strs(r"\d+", "a1b2c3"), v(&["a", "b", "c", ""]));
    assert_eq!(split_strs("l", "hello"), v(&["he", "", "o"]));
    assert_eq!(split_strs("x*", "abc"), v(&["a", "b", "c"]));
    assert_eq!(split_strs("", "aé😀"), v(&["a", "é", "😀"]));
    assert_eq!(split_strs(",", ""), v(&[""]));
    assert_eq!(split_strs("x*", ""), v(&[]));
    assert_eq!(split_strs(",", "a,b,"), v(&["a", "b", ""]));
    assert_eq!(split_strs(",", ",a"), v(&["", "a"]));
    assert_eq!(split_strs(r"\s*", "a b"), v(&["a", "b"]));
    // Captured groups are inserted; a group that did not take part is null.
    let got = split_strs(r"(\d)|(-)", "a1b-c");
    assert_eq!(
        got,
        vec![
            s("a"),
            s("1"),
            Value::Null,
            s("b"),
            Value::Null,
            s("-"),
            s("c")
        ]
    );
}

#[test]
fn match_all_like_js() {
    let mut rt = TestRuntime::default();
    let got = match_all_values(&mut rt, &re("a*"), "baaa").ok();
    assert_eq!(got, Some(strs(&["", "aaa", ""])));
    assert_eq!(all_matches(&re(r"\d+"), "a1b22"), vec!["1", "22"]);
    assert_eq!(all_matches(&re(""), "é"), vec!["", ""]);
}

#[test]
fn global_functions() {
    assert_eq!(
        call("matches", &[s("hello 42"), s(r"\d+")]).ok(),
        Some(Value::Bool(true))
    );
    assert_eq!(
        call("matches", &[s("hello"), s(r"\d+")]).ok(),
        Some(Value::Bool(false))
    );
    assert_eq!(
        call("matches", &[s("Hello"), s("(?i)hello")]).ok(),
        Some(Value::Bool(true))
    );
    assert_eq!(
        call("matches", &[s("Hello"), rx("hello")]).ok(),
        Some(Value::Bool(false))
    );
    let ci = Value::Regex(Arc::new(re_flags("hello", "i")));
    assert_eq!(
        call("matches", &[s("Hello"), ci]).ok(),
        Some(Value::Bool(true))
    );
    assert_eq!(
        call("match", &[s("order-123"), s(r"\d+")]).ok(),
        Some(s("123"))
    );
    assert_eq!(
        call("match", &[s("none"), s(r"\d+")]).ok(),
        Some(Value::Null)
    );
    assert_eq!(call("match", &[s("x٣5"), rx(r"\d")]).ok(), Some(s("5")));
    assert_eq!(
        call("matchAll", &[s("a1b2c3"), s(r"\d+")]).ok(),
        Some(strs(&["1", "2", "3"]))
    );
    assert_eq!(call("matchAll", &[s(""), s(r"\d+")]).ok(), Some(strs(&[])));
    assert_eq!(
        call(
            "replacePattern",
            &[s("2024-01-15"), s(r"(\d+)-(\d+)-(\d+)"), s("$3/$2/$1")]
        )
        .ok(),
        Some(s("15/01/2024"))
    );
    assert_eq!(
        call("replacePattern", &[s("abc"), rx("."), s("X")]).ok(),
        Some(s("XXX"))
    );
}

#[test]
fn global_function_errors() {
    type_err(call("matches", &[Value::from(42.0), s(r"\d+")]));
    type_err(call("match", &[Value::Null, s("x")]));
    type_err(call("matchAll", &[Value::from(true), s("x")]));
    type_err(call("replacePattern", &[Value::from(42.0), s("x"), s("y")]));
    type_err(call("matches", &[s("a"), Value::from(1.0)]));
    type_err(call("match", &[s("a"), Value::Null]));
    type_err(call("replacePattern", &[s("a"), s("a"), Value::from(1.0)]));
    // The Python reference's words, then the argument's type.
    let message = |name: &str, args: &[Value]| match call(name, args) {
        Err(e) => e.message().to_string(),
        Ok(v) => panic!("{name}: {v:?}"),
    };
    for f in ["matches", "match", "matchAll"] {
        assert_eq!(
            message(f, &[Value::Null, s("x")]),
            format!("Type error: {f} expects string as first argument, got null")
        );
        assert_eq!(
            message(f, &[s("x"), Value::from(true)]),
            format!("Type error: {f} pattern must be string or regex, got boolean")
        );
    }
    assert_eq!(
        message("replacePattern", &[Value::from(1.0), s("x"), s("y")]),
        "Type error: replacePattern expects string as first argument, got number"
    );
    assert_eq!(
        message("replacePattern", &[s("x"), Value::array(vec![]), s("y")]),
        "Type error: replacePattern pattern must be string or regex, got array"
    );
    assert_eq!(
        message("replacePattern", &[s("x"), s("y"), Value::Null]),
        "Type error: replacePattern replacement must be string, got null"
    );
    // Argument types are checked before the pattern is compiled.
    assert_eq!(
        message("replacePattern", &[s("x"), s("[bad"), Value::from(1.0)]),
        "Type error: replacePattern replacement must be string, got number"
    );
    assert_eq!(
        message(
            "replacePattern",
            &[s("x"), Value::from(1.0), Value::from(1.0)]
        ),
        "Type error: replacePattern pattern must be string or regex, got number"
    );
    for f in ["matches", "match", "matchAll"] {
        match call(f, &[s("test"), s("[invalid")]) {
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Regex);
                assert!(
                    e.message().starts_with("invalid regex pattern: "),
                    "{}",
                    e.message()
                );
                assert!(!e.message().contains('\n'));
            }
            Ok(v) => panic!("{f}: {v:?}"),
        }
    }
    match call("matches", &[s("a")]) {
        Err(e) => assert_eq!(
            e.message(),
            "Wrong number of arguments for 'matches': expected 2, got 1"
        ),
        Ok(v) => panic!("{v:?}"),
    }
    match call("replacePattern", &[s("a"), s("a")]) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Arity),
        Ok(v) => panic!("{v:?}"),
    }
}

#[test]
fn test_method() {
    let mut rt = TestRuntime::default();
    let id = crate::stdlib::method_id("test").unwrap_or(u16::MAX);
    let r = rx(r"\d+");
    let mut t = |arg: Value| crate::stdlib::call_method(&mut rt, id, &r, &[arg]);
    assert_eq!(t(s("abc123")).ok(), Some(Value::Bool(true)));
    assert_eq!(t(s("abc")).ok(), Some(Value::Bool(false)));
    assert_eq!(t(s("")).ok(), Some(Value::Bool(false)));
    type_err(t(Value::from(42.0)));
    type_err(t(Value::Null));
    match t(Value::from(42.0)) {
        Err(e) => assert_eq!(
            e.message(),
            "Type error: test expects string argument, got number"
        ),
        Ok(v) => panic!("{v:?}"),
    }
    // `test` on a string is no method of strings.
    let mut rt = TestRuntime::default();
    match crate::stdlib::call_method(&mut rt, id, &s("x"), &[s("x")]) {
        Err(e) => assert!(e.message().contains("cannot call method 'test' on string")),
        Ok(v) => panic!("{v:?}"),
    }
    // A method regexes lack: the reference's words, with a hint.
    let upper = crate::stdlib::method_id("upper").unwrap_or(u16::MAX);
    match crate::stdlib::call_method(&mut rt, upper, &rx("a"), &[]) {
        Err(e) => assert_eq!(e.message(), "Type error: regex has no method 'upper'"),
        Ok(v) => panic!("{v:?}"),
    }
    assert_eq!(
        crate::stdlib::no_such_method("tset", &rx("a")).message(),
        "Type error: regex has no method 'tset' (did you mean 'test'?)"
    );
}

#[test]
fn fuel_scales_with_haystack() {
    let hay = "a".repeat(16_000);
    let mut rt = TestRuntime::default();
    assert!(is_match(&mut rt, &re("b"), &hay).is_ok());
    assert_eq!(rt.fuel_used, 1 + 1000);
    let mut small = TestRuntime::default();
    assert!(is_match(&mut small, &re("b"), "aaaa").is_ok());
    assert_eq!(small.fuel_used, 1);
    // A tight budget stops the scan.
    let mut tight = TestRuntime {
        fuel_limit: Some(100),
        ..TestRuntime::default()
    };
    match match_all_values(&mut tight, &re("a"), &hay) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Fuel),
        Ok(_) => panic!("fuel not charged"),
    }
}

#[test]
fn rescanning_patterns_detected() {
    for p in [
        r"\w*b|a",
        r"a.*b|a",
        r"(\w+)@(\w+)\.com|x",
        r"a(?:\w*b)?",
        r"a(?:\w*b)*",
        r"a(?:\w*b)+",
        r"a(?:\w*b){0,3}",
        r"(?:a\w*)b|c",
        r"(?:\w*b|a)c",
        r"a(?:x|\w{2,}b)?",
    ] {
        assert!(re(p).rescans(), "{p}");
    }
    for p in [
        r"\d+",
        r"\d+(\.\d+)?",
        r"https?://\S+",
        r"\s*,\s*",
        r"<.*?>",
        r"a|\w*b",
        r"a\w*|b",
        r"^(a|a)*$",
        r"(\d+)-(\d+)",
        r"(?:\w*b){2}",
        r"[a-z]+@[a-z]+\.[a-z]{2,}",
    ] {
        assert!(!re(p).rescans(), "{p}");
    }
}

#[test]
fn capture_groups_are_charged_per_byte_of_the_match_before_they_are_read() {
    // A capture group over a long match: the capture engine reads the
    // match once more, far slower per byte than the search (fuzz
    // finding: `huge.split(/(x+)*$/)` did ~80x the work per fuel unit).
    let hay = "x".repeat(10_000);
    let r = re(r"(x+)*$");
    let mut rt = TestRuntime::default();
    let got = split(&mut rt, &r, &hay).ok();
    assert_eq!(got.as_ref().map(Vec::len), Some(3));
    let capture = capture_fuel(&r, 10_000);
    assert!(capture >= 30_000, "{capture}");
    assert_eq!(rt.fuel_used, scan_fuel(&r, &hay) + capture + PIECE_FUEL);
    // The same through a replacement naming the group; a template
    // without groups pays for no capture.
    let mut rt = TestRuntime::default();
    assert!(replace_all(&mut rt, &r, &hay, "<$1>").is_ok());
    assert!(rt.fuel_used >= capture, "{}", rt.fuel_used);
    let mut plain = TestRuntime::default();
    assert!(replace_all(&mut plain, &r, &hay, "-").is_ok());
    assert!(plain.fuel_used < 1_000, "{}", plain.fuel_used);
    // Under a budget that covers the search but not the groups, the
    // fuel error comes before the capture engine runs.
    for f in [0, 1] {
        let mut tight = TestRuntime {
            fuel_limit: Some(scan_fuel(&r, &hay) + 100),
            ..TestRuntime::default()
        };
        let result = match f {
            0 => split(&mut tight, &r, &hay).map(|_| ()),
            _ => replace_all(&mut tight, &r, &hay, "$1").map(|_| ()),
        };
        assert_eq!(result.err().map(|e| e.kind()), Some(ErrorKind::Fuel));
    }
    // Many short separators with a group: each pays a capture search.
    let mut rt = TestRuntime::default();
    let got = split(&mut rt, &re("(,)"), &"x,".repeat(100)).ok();
    assert_eq!(got.as_ref().map(Vec::len), Some(201));
    assert!(rt.fuel_used >= 100 * (CAPTURE_SEARCH_FUEL + PIECE_FUEL));
    // Without groups, a split searches without the capture engine.
    let mut rt = TestRuntime::default();
    let got = split(&mut rt, &re(","), &"x,".repeat(100)).ok();
    assert_eq!(got.as_ref().map(Vec::len), Some(101));
    assert!(rt.fuel_used < 100 * CAPTURE_SEARCH_FUEL);
}

#[test]
fn rescanning_is_charged_per_search() {
    let hay = "a".repeat(1_600);
    let r = re(r"\w*b|a");
    // 1,600 matches, each search paying for the rest of the haystack.
    let mut rt = TestRuntime::default();
    let got = match_all_values(&mut rt, &r, &hay).ok();
    assert_eq!(
        got.as_ref().and_then(|v| v.as_array()).map(|a| a.len()),
        Some(1_600)
    );
    let rest: u64 = (1..1_600u64).map(|p| (1_600 - p) / 16).sum();
    assert_eq!(
        rt.fuel_used,
        scan_fuel(&r, &hay) + rest + 1_600 * PIECE_FUEL
    );
    // The same matches without the risky branch cost linear fuel.
    let mut plain = TestRuntime::default();
    assert!(match_all_values(&mut plain, &re("a"), &hay).is_ok());
    assert_eq!(plain.fuel_used, 1 + 100 + 1_600 * PIECE_FUEL);
    // Under a budget, a long haystack stops with a fuel error.
    let long = "a".repeat(200_000);
    for f in [0, 1, 2] {
        let mut tight = TestRuntime {
            fuel_limit: Some(1_000_000),
            ..TestRuntime::default()
        };
        let result = match f {
            0 => match_all_values(&mut tight, &r, &long).map(|_| ()),
            1 => replace_all(&mut tight, &r, &long, "x").map(|_| ()),
            _ => split(&mut tight, &re(r"\w*b|a"), &long).map(|_| ()),
        };
        match result {
            Err(e) => assert_eq!(e.kind(), ErrorKind::Fuel),
            Ok(()) => panic!("case {f}: quadratic work charged linear fuel"),
        }
    }
}

#[test]
fn scan_cost_grows_with_pattern_size() {
    assert_eq!(re(r"\d+").scan_cost(), 1);
    assert_eq!(
        re(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$").scan_cost(),
        1
    );
    // 500 copies of a class after a literal, a pattern whose lazy DFA
    // blows up: 48 + 8 * 500.
    let big = re("a[ab]{500}b");
    assert_eq!(big.scan_cost(), 4048);
    // A long counted class first in the pattern runs as a DFA.
    assert!(re(r"\d{16}").scan_cost() < 48);
    assert!(re(r"a\w{30}c").scan_cost() >= 48);
    assert!(re("x(?:[ab]{25})").scan_cost() >= 48);
    assert!(re("a[ab]{11}c").scan_cost() < 48);
    // A start anchor after other pattern is scanned slowly.
    assert!(re("[a-c1]^").scan_cost() >= 8);
    assert!(re(r"\s\A").scan_cost() >= 8);
    assert_eq!(re("^[a-c1]").scan_cost(), 1);
    assert_eq!(re("x|^a").scan_cost(), 1);
    assert!(re(r"\s?$a").scan_cost() >= 8);
    assert!(re(r"$(?:a)").scan_cost() >= 8);
    assert_eq!(re(r"a$").scan_cost(), 1);
    assert_eq!(re(r"a$|b").scan_cost(), 1);
    assert!(re(&format!("a{}c", "[ab]".repeat(30))).scan_cost() >= 48);
    assert!(re("a(?:[ab]{6}){5}c").scan_cost() >= 48);
    assert!(re(r"\d(?:a|b){15}").scan_cost() >= 48);
    assert!(re(r"\d(?:ab){15}").scan_cost() < 48);
    assert!(re(r"\d{4}-\d{2}-\d{2}").scan_cost() < 48);
    assert!(re(r"\d|\w|\s|\D|\W|\S|\d|\w|\s|\D|\W|\S|\d").scan_cost() < 48);
    let hay = "ab".repeat(8_000);
    let mut rt = TestRuntime::default();
    assert!(is_match(&mut rt, &big, &hay).is_ok());
    assert_eq!(rt.fuel_used, 1 + 1000 * u64::from(big.scan_cost()));
    // Nested counted repetitions multiply; Unicode classes weigh more.
    assert!(re("(?:ab{10}){10}").scan_cost() > re("(?:ab{10})").scan_cost());
    assert!(re(r"\pL{10}").scan_cost() > re("a{10}").scan_cost());
    assert!(re("[^a]{100}").scan_cost() > re("[a]{100}").scan_cost());
}

#[test]
fn memory_charged_before_building() {
    let hay = "ab".repeat(1000);
    let mut rt = TestRuntime::default();
    let got = match_all_values(&mut rt, &re("ab"), &hay).ok();
    assert_eq!(
        got.as_ref().and_then(|v| v.as_array()).map(|a| a.len()),
        Some(1000)
    );
    assert_eq!(
        rt.bytes_used,
        HEADER_BYTES + 1000 * (SLOT_BYTES + STRING_HEADER_BYTES + 2)
    );
    let mut limited = TestRuntime {
        memory_limit: Some(1000),
        ..TestRuntime::default()
    };
    match replace_all(&mut limited, &re("a"), &hay, "xxxxxxxx") {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
        Ok(_) => panic!("memory not charged"),
    }
    let mut limited = TestRuntime {
        memory_limit: Some(1000),
        ..TestRuntime::default()
    };
    match split(&mut limited, &re(""), &hay) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::Memory),
        Ok(_) => panic!("memory not charged"),
    }
    let mut rt = TestRuntime::default();
    assert_eq!(find_value(&mut rt, &re("b+"), "abbb").ok(), Some(s("bbb")));
    assert_eq!(rt.bytes_used, 3);
}
