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

#[cold]
fn type_error(verb: &str, a: &Value, b: &Value) -> Error {
    Error::type_error(format_args!(
        "cannot {verb} {} and {}",
        a.type_name(),
        b.type_name()
    ))
}

#[cold]
fn division_by_zero() -> Error {
    Error::new(ErrorKind::Arithmetic, "Division by zero")
}

/// `a + b`: numbers add, strings concatenate, anything else is a type error.
///
/// # Errors
/// `Type error: cannot add T and U`; a non-finite sum.
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
        _ => Err(type_error("add", a, b)),
    }
}

/// Applies a numeric binary operator.
fn numeric(
    a: &Value,
    b: &Value,
    verb: &str,
    f: impl FnOnce(f64, f64) -> Result<Value, Error>,
) -> Result<Value, Error> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => f(*x, *y),
        _ => Err(type_error(verb, a, b)),
    }
}

/// `a - b`.
///
/// # Errors
/// A type error unless both are numbers; a non-finite result.
#[inline]
pub fn sub(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "subtract", |x, y| finite(x - y, "-"))
}

/// `a * b`.
///
/// # Errors
/// A type error unless both are numbers; a non-finite result.
#[inline]
pub fn mul(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "multiply", |x, y| finite(x * y, "*"))
}

/// `a / b`.
///
/// # Errors
/// `Division by zero`; a type error unless both are numbers; a non-finite result.
#[inline]
pub fn div(a: &Value, b: &Value) -> Result<Value, Error> {
    numeric(a, b, "divide", |x, y| {
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
    numeric(a, b, "take the remainder of", |x, y| {
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
    numeric(a, b, "raise", |x, y| finite(x.powf(y), "**"))
}

#[cold]
fn compare_error(a: &Value, b: &Value) -> Error {
    if let (Value::Regex(_), Value::Regex(_)) = (a, b) {
        // The spec's words (section "Regex Literals", error cases).
        return Error::type_error("cannot compare regex values");
    }
    Error::type_error(format_args!(
        "cannot compare {} and {}",
        a.type_name(),
        b.type_name()
    ))
}

/// Orders two numbers or two strings (by code point).
///
/// # Errors
/// `Type error: cannot compare T and U` for any other pair
/// (`cannot compare regex values` for two regexes).
#[inline]
pub fn compare(a: &Value, b: &Value) -> Result<std::cmp::Ordering, Error> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.partial_cmp(y).ok_or_else(|| compare_error(a, b)),
        (Value::String(x), Value::String(y)) => Ok(x.as_bytes().cmp(y.as_bytes())),
        _ => Err(compare_error(a, b)),
    }
}

/// The work, in fuel units, of [`compare`] beyond its first unit: two
/// distinct strings are compared byte by byte, `bytes / 16` of the shorter.
#[inline]
pub fn compare_work(a: &Value, b: &Value) -> u64 {
    match (a, b) {
        (Value::String(x), Value::String(y)) if !std::sync::Arc::ptr_eq(x, y) => {
            x.len().min(y.len()) as u64 / 16
        }
        _ => 0,
    }
}

/// `-v`.
///
/// # Errors
/// `Type error: cannot negate T` unless `v` is a number.
#[inline]
pub fn neg(v: &Value) -> Result<Value, Error> {
    match v {
        Value::Number(n) => Ok(Value::Number(-n)),
        _ => Err(Error::type_error(format_args!(
            "cannot negate {}",
            v.type_name()
        ))),
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
        Op::Lt => compare(a, b).map(|o| Value::Bool(o == Less)),
        Op::Le => compare(a, b).map(|o| Value::Bool(o != Greater)),
        Op::Gt => compare(a, b).map(|o| Value::Bool(o == Greater)),
        Op::Ge => compare(a, b).map(|o| Value::Bool(o != Less)),
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
            compare(&n(1.0), &"a".into())
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
            compare(&re(), &re()).unwrap_err().message(),
            "Type error: cannot compare regex values"
        );
        assert_eq!(
            compare(&re(), &n(1.0)).unwrap_err().message(),
            "Type error: cannot compare regex and number"
        );
        assert_eq!(
            compare(&"B".into(), &"a".into()).unwrap(),
            std::cmp::Ordering::Less
        );
        assert_eq!(
            apply(Op::Not, &Value::Null, &Value::Null).unwrap(),
            Value::Bool(true)
        );
    }
}
