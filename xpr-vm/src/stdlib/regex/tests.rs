//! Unit tests of the regex module: RE2 translation, flags, matching,
//! replacing and splitting like JavaScript, the built-ins, fuel and memory.

use std::sync::Arc;

use super::*;
use crate::error::{Error, ErrorKind};
use crate::stdlib::testing::TestRuntime;
use crate::value::{HEADER_BYTES, Regex, SLOT_BYTES, STRING_HEADER_BYTES, Value};

/// Whether `self` matches `s` (no fuel limit).
trait Probe {
    fn probe(&self, s: &str) -> bool;
}

impl Probe for Regex {
    fn probe(&self, s: &str) -> bool {
        is_match(&mut TestRuntime::default(), self, s).unwrap_or_else(|e| panic!("{e}"))
    }
}

fn first<'a>(re: &Regex, s: &'a str) -> Option<&'a str> {
    first_match(&mut TestRuntime::default(), re, s).unwrap_or_else(|e| panic!("{e}"))
}

fn every<'a>(re: &Regex, s: &'a str) -> Vec<&'a str> {
    all_matches(&mut TestRuntime::default(), re, s).unwrap_or_else(|e| panic!("{e}"))
}

/// `re` after one search of `hay` (its lazy DFA then holds the states
/// that search needs).
fn warm(re: Regex, hay: &str) -> Regex {
    assert!(is_match(&mut TestRuntime::default(), &re, hay).is_ok());
    re
}

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
    assert!(!re(r"\d").probe("٣"));
    assert!(!re(r"\d").probe("３"));
    assert!(re(r"\d").probe("3"));
    assert!(re(r"\D").probe("٣"));
    assert!(!re(r"^\w$").probe("é"));
    assert!(re(r"^\W$").probe("é"));
    assert!(re(r"^\w+$").probe("Az_09"));
    assert!(!re(r"\s").probe("\u{a0}"));
    assert!(!re(r"\s").probe("\u{0b}"), "RE2's \\s excludes \\v");
    assert!(re(r"^\s+$").probe(" \t\n\r\u{0c}"));
    assert!(re(r"^\S$").probe("\u{2003}"));
}

#[test]
fn ascii_perl_classes_inside_classes() {
    assert!(!re(r"[\d]").probe("٣"));
    assert!(re(r"^[\dx]+$").probe("1x2"));
    assert!(!re(r"[\w-]").probe("é"));
    assert!(re(r"^[\w-]+$").probe("a-b_c"));
    assert!(re(r"^[\D]$").probe("é"));
    assert!(!re(r"^[^\d]$").probe("5"));
    assert!(re(r"^[^\D]$").probe("5"));
    assert!(!re(r"^[^\D]$").probe("a"));
    assert!(re(r"^[\s,]+$").probe(" ,\t"));
    assert!(re(r"^[^\S]$").probe(" "));
    assert!(re(r"^[\W]$").probe("é"));
}

#[test]
fn escaped_backslash_is_not_a_class() {
    // `\\d` is a literal backslash then `d`.
    assert!(re(r"^\\d$").probe(r"\d"));
    assert!(!re(r"^\\d$").probe("5"));
    assert!(re(r"^[\\d]+$").probe(r"d\d"));
}

#[test]
fn word_boundary_is_ascii() {
    // RE2: é is not a word character, so there is a boundary before it.
    assert_eq!(first(&re(r"\b\w+\b"), "éabc"), Some("abc"));
    assert!(re(r"a\b").probe("aé"));
    assert!(re(r"\Ba").probe("ba"));
    assert!(!re(r"\Ba").probe(" a"));
    assert!(re(r"é\B").probe("é!"));
}

#[test]
fn class_set_operators_rejected() {
    assert!(rejected("[a&&b]").contains("&&"));
    assert!(rejected("[a-z--m]").contains("--"));
    assert!(rejected("[a~~b]").contains("~~"));
    // Single characters and escaped ones are fine.
    assert!(re(r"^[&~-]+$").probe("&~-"));
    assert!(re(r"^[\&\&]$").probe("&"));
    // Outside classes they are literal text.
    assert!(re("a&&b--c~~").probe("a&&b--c~~"));
}

#[test]
fn bracket_inside_class_is_literal() {
    assert!(re(r"^[[]$").probe("["));
    assert!(re(r"^[a[b]+$").probe("a[b"));
    assert!(re(r"^[]a]+$").probe("]a"));
    assert!(re(r"^[^]a]$").probe("b"));
    assert!(re(r"^[[:alpha:]]+$").probe("abc"));
    assert!(!re(r"^[[:alpha:]]+$").probe("a1"));
    assert!(re(r"^[[:^digit:]]$").probe("x"));
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
    assert!(re("(?:a{10}){100}").probe(&"a".repeat(1000)));
    assert!(re("(a{0}){1000}").probe(""));
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
    assert!(re("^a{$").probe("a{"));
    assert!(re("^a{,5}$").probe("a{,5}"));
    assert!(re("^{x}$").probe("{x}"));
    assert!(re("^a{2,}$").probe("aaa"));
    assert!(re("^a{2,3}?$").probe("aa"));
    // \Q...\E quotes; an unterminated \Q runs to the end.
    assert!(re(r"^\Qa.b*\E+$").probe("a.b**"));
    assert!(re(r"^\Q(x)").probe("(x)"));
    // Octal escapes.
    assert!(re(r"^\101\0$").probe("A\0"));
    assert!(re(r"^\12$").probe("\n"));
    // \< and \> are the characters in RE2.
    assert!(re(r"^\<a\>$").probe("<a>"));
    // Named groups, flags, lazy operators.
    assert!(re(r"(?P<y>\d{4})-(?<m>\d\d)").probe("2024-01"));
    assert!(re(r"(?i)abc").probe("ABC"));
    assert!(re(r"(?i:a)b").probe("Ab"));
    assert!(!re(r"(?i:a)b").probe("AB"));
    assert!(re(r"(?s-i:a.)").probe("a\n"));
    assert_eq!(first(&re(r"(?U)a+"), "aaa"), Some("a"));
    assert_eq!(first(&re(r"a+?"), "aaa"), Some("a"));
    assert!(re(r"\x41\x{42}\p{Greek}\PL").probe("ABα1"));
    // `\u` with four hex digits (not RE2, but JavaScript and Python).
    assert!(re(r"^\u0041$").probe("A"));
}

#[test]
fn flags() {
    assert!(re_flags("hello", "i").probe("HeLLo"));
    assert!(!re("hello").probe("HeLLo"));
    assert!(re_flags("^b$", "m").probe("a\nb\nc"));
    assert!(!re("^b$").probe("a\nb\nc"));
    assert!(re_flags("a.b", "s").probe("a\nb"));
    assert!(!re("a.b").probe("a\nb"));
    let r = re_flags(r"\d", "im");
    assert_eq!((r.pattern(), r.flags()), (r"\d", "im"));
    match compile("a", "g") {
        Err(e) => assert!(e.message().contains("invalid regex flags")),
        Ok(_) => panic!("flag g accepted"),
    }
    // (?i) folds \w's letters as RE2 does, and keeps it ASCII-only.
    assert!(re(r"(?i)^\w$").probe("Q"));
    assert!(!re(r"(?i)^\w$").probe("É"));
}

#[test]
fn no_catastrophic_backtracking() {
    let hay = format!("{}!", "a".repeat(5000));
    assert!(!re("^(a|a)*$").probe(&hay));
    assert!(!re("^(a+)+$").probe(&hay));
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
    assert_eq!(every(&re(r"\d+"), "a1b22"), vec!["1", "22"]);
    assert_eq!(every(&re(""), "é"), vec!["", ""]);
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
    // Once its lazy DFA holds the states it needs, a search costs the scan.
    let b = warm(re("b"), &hay);
    let mut rt = TestRuntime::default();
    assert!(is_match(&mut rt, &b, &hay).is_ok());
    assert_eq!(rt.fuel_used, 1 + 1000);
    let mut small = TestRuntime::default();
    assert!(is_match(&mut small, &b, "aaaa").is_ok());
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
    assert!(split(&mut TestRuntime::default(), &r, &hay).is_ok());
    let mut rt = TestRuntime::default();
    let got = split(&mut rt, &r, &hay).ok();
    assert_eq!(got.as_ref().map(Vec::len), Some(3));
    let capture = capture_fuel(&r, 10_000);
    assert!(capture >= 30_000, "{capture}");
    // One search finds the match, which ends the text; its groups are read.
    assert_eq!(
        rt.fuel_used,
        scan_fuel(&r, &hay) + SEARCH_FUEL + capture + PIECE_FUEL
    );
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
    let comma = warm(re(","), &"x,".repeat(100));
    let mut rt = TestRuntime::default();
    let got = split(&mut rt, &comma, &"x,".repeat(100)).ok();
    assert_eq!(got.as_ref().map(Vec::len), Some(101));
    assert!(rt.fuel_used < 100 * CAPTURE_SEARCH_FUEL);
}

#[test]
fn rescanning_is_charged_per_search() {
    let hay = "a".repeat(1_600);
    let r = re(r"\w*b|a");
    assert!(match_all_values(&mut TestRuntime::default(), &r, &hay).is_ok());
    // 1,600 matches, each search paying for the rest of the haystack.
    let mut rt = TestRuntime::default();
    let got = match_all_values(&mut rt, &r, &hay).ok();
    assert_eq!(
        got.as_ref().and_then(|v| v.as_array()).map(|a| a.len()),
        Some(1_600)
    );
    let rest: u64 = (1..1_600u64).map(|p| (1_600 - p) / 16).sum();
    // 1,601 searches: one per match and a last one that finds none.
    assert_eq!(
        rt.fuel_used,
        scan_fuel(&r, &hay) + rest + 1_600 * PIECE_FUEL + 1_601 * SEARCH_FUEL
    );
    // The same matches without the risky branch cost linear fuel.
    let a = re("a");
    assert!(match_all_values(&mut TestRuntime::default(), &a, &hay).is_ok());
    let mut plain = TestRuntime::default();
    assert!(match_all_values(&mut plain, &a, &hay).is_ok());
    assert_eq!(
        plain.fuel_used,
        1 + 100 + 1_600 * PIECE_FUEL + 1_601 * SEARCH_FUEL
    );
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
    let big = warm(big, &hay);
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

#[test]
fn case_folding_is_counted_before_it_is_done() {
    // Fuzz finding: `(?i:\p{Any}\p{Any}.a)` (22 bytes) makes the parser
    // fold 2.2 million code points, about 50 ms, for 33,068 fuel units.
    let any = r"(?i:\p{Any}\p{Any}.a)";
    assert!(compile_fuel(any) >= 4_000_000, "{}", compile_fuel(any));
    assert!(compile_fuel(r"\p{Any}\p{Any}.a") < 10_000);
    let counted = prepare(r"[\s\S]", "i", u64::MAX).map(|p| p.compiled_bytes());
    assert!(
        counted.as_ref().is_ok_and(|&b| b >= 2_000_000),
        "{counted:?}"
    );
    // A small allowance refuses it before anything is folded.
    assert!(matches!(
        prepare(r"[\s\S]", "i", 1_000_000),
        Err(Refusal::OverAllowance)
    ));
    // Case-sensitive, or negated (folded before negation): cheap.
    assert!(prepare(r"[\s\S]", "", u64::MAX).is_ok_and(|p| p.compiled_bytes() < 100_000));
    assert!(prepare(r"[^a]", "i", u64::MAX).is_ok_and(|p| p.compiled_bytes() < 100_000));
    // A pattern over the length limit is neither parsed nor translated
    // (fuzz findings: a 1 MiB pattern's syntax tree took hundreds of MB,
    // and translating `(` a million times 40 MB): it costs its reading.
    let states = |p: &str| super::translate::translate(p).map_or(0, |t| t.size);
    for long in [format!("(?i){}", "[a]".repeat(20_000)), "(".repeat(40_000)] {
        assert_eq!(compile_fuel(&long), 64 + 32 * long.len() as u64);
    }
    // Under the limit, each class folds two code points: 4 more each.
    let short = format!("(?i){}", "[ab]".repeat(2_000));
    assert_eq!(
        compile_fuel(&short),
        64 + 32 * short.len() as u64 + 16 * states(&short) + 4 * 2_000
    );
}
