//! The unary and binary operators (spec "Operators", "Type Coercion",
//! "Division by Zero"; decisions: no NaN or infinity, JavaScript `%`).
//!
//! Public so that the compiler folds constants with exactly the VM's rules.

use crate::error::{Error, ErrorKind};
use crate::program::Op;
use crate::value::Value;

#[cold]
fn non_finite(symbol: &str) -> Error {
    Error::new(
        ErrorKind::Arithmetic,
        format!("Arithmetic error: result of '{symbol}' is not a finite number"),
    )
}

#[inline]
fn finite(n: f64, symbol: &str) -> Result<Value, Error> {
    if n.is_finite() {
        Ok(Value::Number(n))
    } else {
        Err(non_finite(symbol))
    }
}

/// The type error of a binary operator applied to operands of the wrong
/// types. The spec's words come first where it gives them (`cannot add T
/// and U`, `cannot multiply T and U`, `cannot compare T and U`, `cannot
/// compare regex values`); the reference runtimes' words for the same fault
/// follow (`operator '*' requires numbers`, `cannot use operator '+' with
/// regex`); where the spec is silent the reference's words lead, with the
/// operand types after them (`operator '-' requires numbers, got string and
/// number`).
///
/// A hint follows when another language would have accepted the operands
/// (`"n = " + 5`, `"ab" * 3`; see [`crate::foreign::operand_hint`]).
#[cold]
fn operand_error(symbol: &str, a: &Value, b: &Value) -> Error {
    let (ta, tb) = (a.type_name(), b.type_name());
    let e = operand_words(symbol, a, b);
    match crate::foreign::operand_hint(symbol, ta, tb) {
        Some(hint) => e.with_hint(hint),
        None => e,
    }
}

/// The words of [`operand_error`], without the hint.
fn operand_words(symbol: &str, a: &Value, b: &Value) -> Error {
    let (ta, tb) = (a.type_name(), b.type_name());
    let regex = matches!(a, Value::Regex(_)) || matches!(b, Value::Regex(_));
    let spec = match symbol {
        "+" => Some(format!("cannot add {ta} and {tb}")),
        "*" => Some(format!("cannot multiply {ta} and {tb}")),
        "<" | "<=" | ">" | ">=" if ta == "regex" && tb == "regex" => {
            Some("cannot compare regex values".to_owned())
        }
        "<" | "<=" | ">" | ">=" => Some(format!("cannot compare {ta} and {tb}")),
        _ => None,
    };
    let reference = if regex {
        Some(format!("cannot use operator '{symbol}' with regex"))
    } else if matches!(symbol, "-" | "*" | "/" | "%" | "**") {
        Some(format!("operator '{symbol}' requires numbers"))
    } else {
        None
    };
    match (spec, reference) {
        (Some(s), Some(r)) => Error::type_error(format_args!("{s} ({r})")),
        (Some(s), None) => Error::type_error(s),
        (None, Some(r)) => Error::type_error(format_args!("{r}, got {ta} and {tb}")),
        (None, None) => Error::type_error(format_args!(
            "operator '{symbol}' cannot be applied to {ta} and {tb}"
        )),
    }
}

#[cold]
fn division_by_zero() -> Error {
    Error::new(ErrorKind::Arithmetic, "Division by zero")
}

/// `a + b`: numbers add, strings concatenate, anything else is a type error.
///
/// # Errors
/// `Type error: cannot add T and U` (with a regex: `... (cannot use operator
/// '+' with regex)`); a non-finite sum.
#[inline]
pub fn add(a: &Value, b: &Value) -> Result<Value, Error> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => finite(x + y, "+"),
        (Value::String(x), Value::String(y)) => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Ok(Value::String(s.into()))
        }
        _ => Err(operand_error("+", a, b)),
    }
}

/// Applies a numeric binary operator (`symbol` names it in errors).
fn numeric(
    a: &Value,
    b: &Value,
    symbol: &str,
    f: impl FnOnce(f64, f64) -> Result<Value, Error>,
) -> Result<Value, Error> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => f(*x, *y),
        _ => Err(operand_error(symbol, a, b)),
    }
}

/// `a - b`.
///
/// # Errors
/// A type error unless both are numbers; a non-finite result.
#[inline]
pub fn sub(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "-", |x, y| finite(x - y, "-"))
}

/// `a * b`.
///
/// # Errors
/// A type error unless both are numbers; a non-finite result.
#[inline]
pub fn mul(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "*", |x, y| finite(x * y, "*"))
}

/// `a / b`.
///
/// # Errors
/// `Division by zero`; a type error unless both are numbers; a non-finite result.
#[inline]
pub fn div(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "/", |x, y| {
        if y == 0.0 {
            Err(division_by_zero())
        } else {
            finite(x / y, "/")
        }
    })
}

/// `a % b`: JavaScript's remainder (the sign of the dividend).
///
/// # Errors
/// `Division by zero in remainder`; a type error unless both are numbers.
#[inline]
pub fn rem(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "%", |x, y| {
        if y == 0.0 {
            Err(Error::new(
                ErrorKind::Arithmetic,
                "Division by zero in remainder",
            ))
        } else {
            finite(x % y, "%")
        }
    })
}

/// `a ** b`.
///
/// # Errors
/// A type error unless both are numbers; a non-finite or NaN result
/// (`2 ** 2000`, `(-8) ** 0.5`, `0 ** -1`).
#[inline]
pub fn pow(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "**", |x, y| finite(x.powf(y), "**"))
}

/// Orders two numbers or two strings (by code point) for the comparison
/// operator `symbol` (`<`, `<=`, `>`, `>=`: named in errors).
///
/// # Errors
/// `Type error: cannot compare T and U` for any other pair (`cannot compare
/// regex values (cannot use operator '<' with regex)` when a regex is one).
#[inline]
pub fn compare(symbol: &str, a: &Value, b: &Value) -> Result<std::cmp::Ordering, Error> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.partial_cmp(y).ok_or_else(|| operand_error(symbol, a, b))
        }
        // The same string is not read (its work is not charged either:
        // see `compare::order_work`).
        (Value::String(x), Value::String(y)) => Ok(crate::compare::text_order(x, y)),
        _ => Err(operand_error(symbol, a, b)),
    }
}

/// `-v`.
///
/// # Errors
/// `Type error: unary minus requires number, got T` unless `v` is a number
/// (the reference runtimes' words; the spec gives none).
#[inline]
pub fn neg(v: &Value) -> Result<Value, Error> {
    match v {
        Value::Number(n) => Ok(Value::Number(-n)),
        _ => Err(neg_error(v)),
    }
}

/// The error of [`neg`], with a hint for a null operand.
#[cold]
fn neg_error(v: &Value) -> Error {
    let e = Error::type_error(format_args!(
        "unary minus requires number, got {}",
        v.type_name()
    ));
    match v {
        Value::Null => e.with_hint(crate::foreign::NULL_NEGATED),
        _ => e,
    }
}

/// Applies the unary or binary operator `op` (one of [`Op::Add`] ..
/// [`Op::Ge`], [`Op::Not`], [`Op::Neg`]) to constant operands: what the
/// compiler folds. `b` is ignored for unary operators.
///
/// # Errors
/// Whatever the operator raises, or a type error for any other opcode.
pub fn apply(op: Op, a: &Value, b: &Value) -> Result<Value, Error> {
    use std::cmp::Ordering::{Greater, Less};
    match op {
        Op::Add => add(a, b),
        Op::Sub => sub(a, b),
        Op::Mul => mul(a, b),
        Op::Div => div(a, b),
        Op::Rem => rem(a, b),
        Op::Pow => pow(a, b),
        Op::Eq => Ok(Value::Bool(a == b)),
        Op::Ne => Ok(Value::Bool(a != b)),
        Op::Lt => compare("<", a, b).map(|o| Value::Bool(o == Less)),
        Op::Le => compare("<=", a, b).map(|o| Value::Bool(o != Greater)),
        Op::Gt => compare(">", a, b).map(|o| Value::Bool(o == Greater)),
        Op::Ge => compare(">=", a, b).map(|o| Value::Bool(o != Less)),
        Op::Not => Ok(Value::Bool(!a.truthy())),
        Op::Neg => neg(a),
        _ => Err(Error::type_error(format_args!("{op:?} is not an operator"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(x: f64) -> Value {
        Value::Number(x)
    }

    #[test]
    fn arithmetic_rules() {
        assert_eq!(rem(&n(-7.0), &n(3.0)).unwrap(), n(-1.0));
        assert_eq!(rem(&n(7.0), &n(-3.0)).unwrap(), n(1.0));
        assert!(
            rem(&n(5.0), &n(0.0))
                .unwrap_err()
                .message()
                .contains("by zero")
        );
        assert_eq!(
            div(&n(1.0), &n(0.0)).unwrap_err().message(),
            "Division by zero"
        );
        let e = pow(&n(2.0), &n(2000.0)).unwrap_err();
        assert!(e.message().contains("**") && e.kind() == ErrorKind::Arithmetic);
        assert!(pow(&n(-8.0), &n(0.5)).is_err());
        assert_eq!(add(&"a".into(), &"b".into()).unwrap(), Value::from("ab"));
        assert!(
            add(&"5".into(), &n(1.0))
                .unwrap_err()
                .message()
                .starts_with("Type error: cannot add string and number")
        );
        assert!(
            compare("<", &n(1.0), &"a".into())
                .unwrap_err()
                .message()
                .contains("cannot compare")
        );
        let re = || {
            Value::Regex(std::sync::Arc::new(
                crate::stdlib::regex::compile("a", "").unwrap(),
            ))
        };
        assert_eq!(
            compare("<", &re(), &re()).unwrap_err().message(),
            "Type error: cannot compare regex values (cannot use operator '<' with regex)"
        );
        assert_eq!(
            compare(">=", &re(), &n(1.0)).unwrap_err().message(),
            "Type error: cannot compare regex and number (cannot use operator '>=' with regex)"
        );
        assert_eq!(
            compare("<", &"B".into(), &"a".into()).unwrap(),
            std::cmp::Ordering::Less
        );
        assert_eq!(
            apply(Op::Not, &Value::Null, &Value::Null).unwrap(),
            Value::Bool(true)
        );
    }

    fn regex() -> Value {
        Value::Regex(std::sync::Arc::new(
            crate::stdlib::regex::compile("x", "").unwrap(),
        ))
    }

    /// The error's words, without its hint (tested apart).
    fn message(r: Result<Value, Error>) -> String {
        let e = r.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Type, "{e}");
        match e.hint() {
            Some(h) => e.message().replace(&format!(" ({h})"), ""),
            None => e.message().to_owned(),
        }
    }

    #[test]
    fn operand_errors_name_what_xpr_writes() {
        let e = add(&Value::from("n = "), &n(5.0)).unwrap_err();
        assert!(e.hint().is_some_and(|h| h.contains("`string(x)`")), "{e}");
        let e = mul(&Value::from("ab"), &n(3.0)).unwrap_err();
        assert!(e.hint().is_some_and(|h| h.contains("`s.repeat(n)`")), "{e}");
        let e = add(&regex(), &regex()).unwrap_err();
        assert_eq!(e.hint(), None);
    }

    #[test]
    fn operand_errors_use_the_spec_words_then_the_references() {
        let t = Value::Bool(true);
        let s = Value::from("5");
        // The spec's words where it gives them ("Type Coercion").
        assert_eq!(
            message(add(&s, &n(1.0))),
            "Type error: cannot add string and number"
        );
        assert_eq!(
            message(mul(&t, &n(2.0))),
            "Type error: cannot multiply boolean and number (operator '*' requires numbers)"
        );
        // Where the spec is silent, the reference runtimes' words.
        type Binary = fn(&Value, &Value) -> Result<Value, Error>;
        let cases: [(Binary, &str); 4] = [(sub, "-"), (div, "/"), (rem, "%"), (pow, "**")];
        for (f, symbol) in cases {
            assert_eq!(
                message(f(&s, &Value::Null)),
                format!("Type error: operator '{symbol}' requires numbers, got string and null")
            );
        }
        // A regex operand: the reference's own words for it.
        assert_eq!(
            message(add(&regex(), &"s".into())),
            "Type error: cannot add regex and string (cannot use operator '+' with regex)"
        );
        assert_eq!(
            message(sub(&n(1.0), &regex())),
            "Type error: cannot use operator '-' with regex, got number and regex"
        );
        assert_eq!(
            message(apply(Op::Lt, &regex(), &regex())),
            "Type error: cannot compare regex values (cannot use operator '<' with regex)"
        );
        assert_eq!(
            message(apply(Op::Ge, &regex(), &n(1.0))),
            "Type error: cannot compare regex and number (cannot use operator '>=' with regex)"
        );
        assert_eq!(
            message(apply(Op::Le, &Value::Null, &n(1.0))),
            "Type error: cannot compare null and number"
        );
        // Unary minus: the reference's words, then the type.
        for (v, name) in [(Value::Null, "null"), (t, "boolean"), (s, "string")] {
            assert_eq!(
                message(neg(&v)),
                format!("Type error: unary minus requires number, got {name}")
            );
        }
        assert!(neg(&Value::Null).is_err_and(|e| e.hint() == Some(crate::foreign::NULL_NEGATED)));
        // `!` never fails; `==` between kinds is false.
        assert_eq!(
            apply(Op::Not, &regex(), &Value::Null).unwrap(),
            Value::Bool(false)
        );
        assert_eq!(
            apply(Op::Eq, &regex(), &"x".into()).unwrap(),
            Value::Bool(false)
        );
    }
}
