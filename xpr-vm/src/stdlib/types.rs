//! Type built-ins (spec "Type Functions" and "Type Predicates (v0.5)"):
//! `type`, `int`, `float`, `string`, `bool`, and the predicates `isNumber`,
//! `isString`, `isArray`, `isNull`, `isObject`, `isRegex`.
//!
//! Conversions are explicit and strict (spec "Type Coercion"):
//! - `int(v)` / `float(v)`: a number as is (`int` truncates toward zero); a
//!   string holding a decimal number (optional sign, digits with an optional
//!   fraction, optional exponent, surrounding whitespace ignored: `" 42 "`,
//!   `"-3.7"`, `"1e3"`, `".5"`) parsed and, for `int`, truncated.
//!   Everything else is a type error (`cannot convert T to int`): `""`,
//!   `"abc"`, `"NaN"`, `"Infinity"`, hex `"0x10"`, a number out of range
//!   (`"1e400"`), booleans, `null`, arrays, objects, regexes and functions.
//! - `string(v)`: the display form of [`crate::format`].
//! - `bool(v)`: truthiness (spec "Truthiness").
//!
//! Fuel: 1 per call; `string` also `1 + bytes / 16` for the text it builds,
//! and `int`/`float` of a string `1 + bytes / 16` for the text parsed.

use super::FunctionDef;
use crate::error::{Error, ErrorKind};
use crate::format::{display_metered, text_fuel};
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "type",
        arity: Arity::Exact(1),
        call: type_of,
        sig: "(v) -> string",
        doc: "\"number\", \"string\", \"boolean\", \"null\", \"array\", \"object\", \"regex\" or \"function\"",
    },
    FunctionDef {
        name: "int",
        arity: Arity::Exact(1),
        call: int,
        sig: "(v) -> number",
        doc: "number or numeric string to an integer (truncates)",
    },
    FunctionDef {
        name: "float",
        arity: Arity::Exact(1),
        call: float,
        sig: "(v) -> number",
        doc: "number or numeric string to a number",
    },
    FunctionDef {
        name: "string",
        arity: Arity::Exact(1),
        call: string,
        sig: "(v) -> string",
        doc: "text form (arrays and objects as JSON)",
    },
    FunctionDef {
        name: "bool",
        arity: Arity::Exact(1),
        call: bool_of,
        sig: "(v) -> boolean",
        doc: "truthiness",
    },
    FunctionDef {
        name: "isNumber",
        arity: Arity::Exact(1),
        call: is_number,
        sig: "(v) -> boolean",
        doc: "whether v is a number",
    },
    FunctionDef {
        name: "isString",
        arity: Arity::Exact(1),
        call: is_string,
        sig: "(v) -> boolean",
        doc: "whether v is a string",
    },
    FunctionDef {
        name: "isArray",
        arity: Arity::Exact(1),
        call: is_array,
        sig: "(v) -> boolean",
        doc: "whether v is an array",
    },
    FunctionDef {
        name: "isNull",
        arity: Arity::Exact(1),
        call: is_null,
        sig: "(v) -> boolean",
        doc: "whether v is null",
    },
    FunctionDef {
        name: "isObject",
        arity: Arity::Exact(1),
        call: is_object,
        sig: "(v) -> boolean",
        doc: "whether v is an object (not an array)",
    },
    FunctionDef {
        name: "isRegex",
        arity: Arity::Exact(1),
        call: is_regex,
        sig: "(v) -> boolean",
        doc: "whether v is a regex",
    },
];

/// The only argument (the registry checked the arity); charges 1 fuel.
fn only<'a>(rt: &mut dyn Runtime, name: &str, args: &'a [Value]) -> Result<&'a Value, Error> {
    match args {
        [v] => {
            rt.fuel(1)?;
            Ok(v)
        }
        _ => Err(Error::new(
            ErrorKind::Arity,
            format!("Wrong number of arguments for '{name}'"),
        )),
    }
}

fn type_of(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let v = only(rt, "type", args)?;
    Ok(Value::from(v.type_name()))
}

fn bool_of(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let v = only(rt, "bool", args)?;
    Ok(Value::Bool(v.truthy()))
}

fn string(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let v = only(rt, "string", args)?;
    if let Value::String(_) = v {
        // Already a string: the same value, nothing new is built.
        return Ok(v.clone());
    }
    let mut out = String::new();
    display_metered(rt, v, &mut out)?;
    Ok(Value::from(out))
}

fn int(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let v = only(rt, "int", args)?;
    to_number(rt, "int", v).map(|n| Value::Number(n.trunc()))
}

fn float(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let v = only(rt, "float", args)?;
    to_number(rt, "float", v).map(Value::Number)
}

/// The number `int`/`float` convert `v` to, before truncation. Only numbers
/// and decimal text convert: a boolean is not a number (spec "Type
/// Coercion": no implicit coercion, and the reference runtimes refuse it).
///
/// # Errors
/// `Type error: cannot convert T to NAME` (the reference runtimes' words;
/// a boolean adds how to write the conversion), `Type error: cannot
/// convert "TEXT" to NAME` for text that is not a decimal number.
fn to_number(rt: &mut dyn Runtime, name: &str, v: &Value) -> Result<f64, Error> {
    match v {
        Value::Number(n) => Ok(*n),
        Value::String(s) => {
            rt.fuel(text_fuel(s.len()))?;
            parse_number(s).ok_or_else(|| {
                Error::type_error(format_args!(
                    "cannot convert {} to {name}",
                    quote_excerpt(s)
                ))
            })
        }
        Value::Bool(_) => Err(Error::type_error(format_args!(
            "cannot convert boolean to {name} (write b ? 1 : 0)"
        ))),
        other => Err(Error::type_error(format_args!(
            "cannot convert {} to {name}",
            other.type_name()
        ))),
    }
}

/// Parses a decimal number literal, JavaScript whitespace around it
/// ignored: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
/// `None` for anything else and for a value out of f64 range.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim_matches(super::string::is_js_whitespace);
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut digits = i - int_start;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    // The text is now a valid Rust float literal; it cannot be NaN or "inf".
    let n: f64 = t.parse().ok()?;
    n.is_finite().then_some(n)
}

/// `s` quoted for an error message, cut after 40 characters.
pub(crate) fn quote_excerpt(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((cut, _)) => format!("{:?}...", s.get(..cut).unwrap_or_default()),
        None => format!("{s:?}"),
    }
}

fn predicate(
    rt: &mut dyn Runtime,
    name: &str,
    args: &[Value],
    test: fn(&Value) -> bool,
) -> Result<Value, Error> {
    only(rt, name, args).map(|v| Value::Bool(test(v)))
}

fn is_number(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isNumber", args, |v| matches!(v, Value::Number(_)))
}

fn is_string(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isString", args, |v| matches!(v, Value::String(_)))
}

fn is_array(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isArray", args, |v| matches!(v, Value::Array(_)))
}

fn is_null(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isNull", args, |v| matches!(v, Value::Null))
}

fn is_object(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isObject", args, |v| matches!(v, Value::Object(_)))
}

fn is_regex(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    predicate(rt, "isRegex", args, |v| matches!(v, Value::Regex(_)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::stdlib::testing::TestRuntime;
    use crate::stdlib::{call_function, function_id};
    use crate::value::Map;

    fn call_with(rt: &mut TestRuntime, name: &str, arg: Value) -> Result<Value, Error> {
        let id = function_id(name).unwrap_or_else(|| panic!("no function {name}"));
        call_function(rt, id, &[arg])
    }

    fn call(name: &str, arg: Value) -> Result<Value, Error> {
        call_with(&mut TestRuntime::default(), name, arg)
    }

    fn ok(name: &str, arg: Value) -> Value {
        call(name, arg.clone()).unwrap_or_else(|e| panic!("{name}({arg:?}): {e}"))
    }

    fn err(name: &str, arg: Value) -> Error {
        match call(name, arg.clone()) {
            Err(e) => e,
            Ok(v) => panic!("{name}({arg:?}) gave {v:?}"),
        }
    }

    fn regex() -> Value {
        Value::Regex(Arc::new(
            crate::stdlib::regex::compile(r"\d+", "i").unwrap(),
        ))
    }

    fn function() -> Value {
        Value::Function(Arc::new(crate::function::Function::Builtin(0)))
    }

    fn object() -> Value {
        let mut m = Map::default();
        m.insert("a".into(), Value::Number(1.0));
        Value::object(m)
    }

    fn all_kinds() -> Vec<Value> {
        vec![
            Value::Null,
            Value::Bool(false),
            Value::Number(0.0),
            Value::from(""),
            Value::array(vec![]),
            object(),
            function(),
            regex(),
        ]
    }

    #[test]
    fn type_names_every_kind() {
        let names: Vec<Value> = all_kinds().into_iter().map(|v| ok("type", v)).collect();
        let want = [
            "null", "boolean", "number", "string", "array", "object", "function", "regex",
        ];
        assert_eq!(
            names,
            want.iter().map(|s| Value::from(*s)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn bool_is_truthiness() {
        let truthy: Vec<bool> = all_kinds()
            .into_iter()
            .map(|v| ok("bool", v) == Value::Bool(true))
            .collect();
        assert_eq!(truthy, [false, false, false, false, true, true, true, true]);
        assert_eq!(ok("bool", Value::from("0")), Value::Bool(true));
        assert_eq!(ok("bool", Value::Number(-0.5)), Value::Bool(true));
    }

    #[test]
    fn predicates_test_exactly_one_kind() {
        let table = [
            ("isNull", 0),
            ("isNumber", 2),
            ("isString", 3),
            ("isArray", 4),
            ("isObject", 5),
            ("isRegex", 7),
        ];
        for (name, index) in table {
            for (i, v) in all_kinds().into_iter().enumerate() {
                assert_eq!(ok(name, v), Value::Bool(i == index), "{name} of kind #{i}");
            }
        }
        assert!(function_id("isBoolean").is_none() && function_id("isFunction").is_none());
    }

    #[test]
    fn int_truncates_and_parses() {
        let cases: &[(Value, f64)] = &[
            (Value::Number(3.7), 3.0),
            (Value::Number(-3.7), -3.0),
            (Value::Number(1e300), 1e300),
            (Value::from("42"), 42.0),
            (Value::from(" 42\n"), 42.0),
            (Value::from("-3.7"), -3.0),
            (Value::from("+8"), 8.0),
            (Value::from("1e3"), 1000.0),
            (Value::from("2.5E-1"), 0.0),
            (Value::from(".9"), 0.0),
            (Value::from("7."), 7.0),
            (Value::from("\u{a0}5\u{feff}"), 5.0),
        ];
        for (arg, want) in cases {
            assert_eq!(ok("int", arg.clone()), Value::Number(*want), "int({arg:?})");
        }
    }

    #[test]
    fn float_parses_decimal_text() {
        let cases: &[(&str, f64)] = &[
            ("2.75", 2.75),
            ("-0.5", -0.5),
            ("1e21", 1e21),
            ("0.1", 0.1),
            ("  6.02e23 ", 6.02e23),
            ("00012", 12.0),
            ("1.7976931348623157e308", f64::MAX),
        ];
        for (s, want) in cases {
            assert_eq!(
                ok("float", Value::from(*s)),
                Value::Number(*want),
                "float({s:?})"
            );
        }
        assert_eq!(ok("float", Value::Number(2.5)), Value::Number(2.5));
    }

    #[test]
    fn int_and_float_reject_non_numbers() {
        let bad_text = [
            "",
            "  ",
            "abc",
            "42abc",
            "NaN",
            "nan",
            "Infinity",
            "-Infinity",
            "inf",
            "0x10",
            "1_000",
            "1,5",
            "--1",
            "+",
            ".",
            "e5",
            "1e",
            "1e+",
            "1e400",
            "-1e400",
            "١٢",
        ];
        for name in ["int", "float"] {
            for s in bad_text {
                let e = err(name, Value::from(s));
                assert_eq!(e.kind(), ErrorKind::Type, "{name}({s:?})");
                assert_eq!(
                    e.message(),
                    format!("Type error: cannot convert {s:?} to {name}"),
                );
            }
            for v in [
                Value::Null,
                Value::array(vec![]),
                object(),
                regex(),
                function(),
            ] {
                let e = err(name, v.clone());
                assert_eq!(e.kind(), ErrorKind::Type);
                assert_eq!(
                    e.message(),
                    format!("Type error: cannot convert {} to {name}", v.type_name())
                );
            }
            for b in [true, false] {
                let e = err(name, Value::Bool(b));
                assert_eq!(e.kind(), ErrorKind::Type);
                assert_eq!(
                    e.message(),
                    format!("Type error: cannot convert boolean to {name} (write b ? 1 : 0)")
                );
            }
        }
        let long = "x".repeat(1000);
        let e = err("int", Value::from(long.as_str()));
        assert!(e.message().len() < 100, "{e}");
    }

    #[test]
    fn string_uses_the_display_form() {
        let cases: Vec<(Value, &str)> = vec![
            (Value::Number(42.0), "42"),
            (Value::Number(0.1 + 0.2), "0.30000000000000004"),
            (Value::Number(1e21), "1e+21"),
            (Value::Number(-0.0), "0"),
            (Value::Null, "null"),
            (Value::Bool(true), "true"),
            (Value::from("héllo"), "héllo"),
            (
                Value::array(vec![Value::Number(1.0), Value::from("a")]),
                r#"[1,"a"]"#,
            ),
            (object(), r#"{"a":1}"#),
            (regex(), r"/\d+/i"),
        ];
        for (v, want) in cases {
            assert_eq!(ok("string", v.clone()), Value::from(want), "string({v:?})");
        }
        let e = err("string", function());
        assert_eq!(e.kind(), ErrorKind::Type);
        assert!(e.message().contains("function"));
    }

    #[test]
    fn string_charges_memory_and_fuel_for_what_it_builds() {
        let big = Value::array(vec![Value::Number(123456.0); 1000]);
        let mut rt = TestRuntime::default();
        let s = call_with(&mut rt, "string", big.clone()).unwrap();
        let len = s.as_str().unwrap().len() as u64;
        assert_eq!(len, 7 * 1000 + 1);
        assert_eq!(rt.bytes_used, len);
        assert!(rt.fuel_used >= len / 16);
        let mut rt = TestRuntime {
            memory_limit: Some(1000),
            ..TestRuntime::default()
        };
        assert_eq!(
            call_with(&mut rt, "string", big).unwrap_err().kind(),
            ErrorKind::Memory
        );
        // A string argument is returned as is, with nothing allocated.
        let mut rt = TestRuntime::default();
        call_with(&mut rt, "string", Value::from("x".repeat(100).as_str())).unwrap();
        assert_eq!(rt.bytes_used, 0);
    }

    #[test]
    fn parse_number_boundaries() {
        assert_eq!(parse_number("5e-324"), Some(5e-324));
        assert_eq!(parse_number("1e-400"), Some(0.0));
        assert_eq!(parse_number("-0"), Some(-0.0));
        assert_eq!(parse_number("1.5e+2"), Some(150.0));
        assert_eq!(parse_number("+.5"), Some(0.5));
        assert_eq!(parse_number("1 2"), None);
    }
}
