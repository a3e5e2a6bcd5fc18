//! Math built-ins (spec "Math Functions", "Math Functions (v0.5)",
//! "Math Constants (v0.5)"): `round`, `floor`, `ceil`, `abs`, `min`, `max`,
//! `sqrt`, `log`, `pow`, `random`, `sign`, `trunc`, and the constants `PI`
//! and `E`.
//!
//! Every argument must be a number (`Type error: F expects number, got T`
//! otherwise; `min`/`max`: `F expects a number, got T`); no function ever
//! returns NaN or an infinity: an operation whose result would be one is an
//! [`ErrorKind::Arithmetic`] error. Each call costs 1 fuel, `min`/`max` 1
//! more per argument.

use super::FunctionDef;
use crate::error::{Error, ErrorKind};
use crate::format::number_to_string;
use crate::function::Arity;
use crate::runtime::Runtime;
use crate::value::Value;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        name: "round",
        arity: Arity::Exact(1),
        call: round,
        sig: "(n) -> number",
        doc: "nearest integer (2.5 -> 3)",
    },
    FunctionDef {
        name: "floor",
        arity: Arity::Exact(1),
        call: floor,
        sig: "(n) -> number",
        doc: "round down",
    },
    FunctionDef {
        name: "ceil",
        arity: Arity::Exact(1),
        call: ceil,
        sig: "(n) -> number",
        doc: "round up",
    },
    FunctionDef {
        name: "abs",
        arity: Arity::Exact(1),
        call: abs,
        sig: "(n) -> number",
        doc: "absolute value",
    },
    FunctionDef {
        name: "min",
        arity: Arity::AtLeast(2),
        call: min,
        sig: "(n1, n2, ...more) -> number",
        doc: "smallest number given (of an array: a.min())",
    },
    FunctionDef {
        name: "max",
        arity: Arity::AtLeast(2),
        call: max,
        sig: "(n1, n2, ...more) -> number",
        doc: "largest number given (of an array: a.max())",
    },
    FunctionDef {
        name: "sqrt",
        arity: Arity::Exact(1),
        call: sqrt,
        sig: "(n) -> number",
        doc: "square root",
    },
    FunctionDef {
        name: "log",
        arity: Arity::Exact(1),
        call: log,
        sig: "(n) -> number",
        doc: "natural logarithm",
    },
    FunctionDef {
        name: "pow",
        arity: Arity::Exact(2),
        call: pow,
        sig: "(n, p) -> number",
        doc: "n to the power p, as n ** p",
    },
    FunctionDef {
        name: "random",
        arity: Arity::Exact(0),
        call: random,
        sig: "() -> number",
        doc: "pseudo-random number in [0, 1)",
    },
    FunctionDef {
        name: "sign",
        arity: Arity::Exact(1),
        call: sign,
        sig: "(n) -> number",
        doc: "-1, 0 or 1",
    },
    FunctionDef {
        name: "trunc",
        arity: Arity::Exact(1),
        call: trunc,
        sig: "(n) -> number",
        doc: "integer part (toward zero)",
    },
];

/// The value of a math constant (spec "Math Constants (v0.5)"): `PI`
/// (3.141592653589793) or `E` (2.718281828459045); `None` for any other
/// name. The compiler resolves a bare `PI`/`E` that is not a local or a
/// context field to this value.
pub fn constant(name: &str) -> Option<f64> {
    match name {
        "PI" => Some(std::f64::consts::PI),
        "E" => Some(std::f64::consts::E),
        _ => None,
    }
}

/// The number argument of built-in `name`, or `Type error: NAME expects
/// number, got T` (the reference runtimes' words, then the
/// type; for null, a hint to give it a default).
pub(crate) fn number_arg(name: &str, v: &Value) -> Result<f64, Error> {
    v.as_number().ok_or_else(|| {
        let e = Error::type_error(format_args!("{name} expects number, got {}", v.type_name()));
        match v {
            Value::Null => e.with_hint(crate::foreign::NULL_ARGUMENT),
            _ => e,
        }
    })
}

/// The only argument of a one-argument function (the registry checked the arity).
fn only<'a>(name: &str, args: &'a [Value]) -> Result<&'a Value, Error> {
    match args {
        [v] => Ok(v),
        _ => Err(arity_bug(name)),
    }
}

/// Unreachable in practice: the registry checks arity before the call.
#[cold]
fn arity_bug(name: &str) -> Error {
    Error::new(
        ErrorKind::Arity,
        format!("Wrong number of arguments for '{name}'"),
    )
}

/// A one-number function: checks the argument, charges 1 fuel, applies `f`.
fn unary(
    rt: &mut dyn Runtime,
    name: &str,
    args: &[Value],
    f: fn(f64) -> f64,
) -> Result<Value, Error> {
    let n = number_arg(name, only(name, args)?)?;
    rt.fuel(1)?;
    Ok(Value::Number(f(n)))
}

/// JavaScript's `Math.round`: the nearest integer, ties toward +infinity
/// (`round(2.5)` is 3, `round(-2.5)` is -2). `x - floor(x)` is exact for
/// every double, so `0.49999999999999994` rounds to 0, not 1.
pub fn js_round(x: f64) -> f64 {
    let f = x.floor();
    if x - f >= 0.5 { f + 1.0 } else { f }
}

fn round(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "round", args, js_round)
}

fn floor(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "floor", args, f64::floor)
}

fn ceil(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "ceil", args, f64::ceil)
}

fn abs(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "abs", args, f64::abs)
}

fn trunc(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "trunc", args, f64::trunc)
}

/// -1, 0 or 1 (`sign(-0)` is 0).
fn sign(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    unary(rt, "sign", args, |n| {
        if n > 0.0 {
            1.0
        } else if n < 0.0 {
            -1.0
        } else {
            0.0
        }
    })
}

/// `min`/`max` over two or more numbers (the registry checks the count,
/// spread arguments included); 1 fuel plus 1 per argument.
///
/// # Errors
/// `Type error: NAME expects numbers, got T` (the reference's words).
fn extremum(
    rt: &mut dyn Runtime,
    name: &str,
    args: &[Value],
    pick_new: fn(f64, f64) -> bool,
) -> Result<Value, Error> {
    rt.fuel(1 + args.len() as u64)?;
    let mut best: Option<f64> = None;
    for v in args {
        let n = v.as_number().ok_or_else(|| {
            Error::type_error(format_args!(
                "{name} expects numbers, got {}",
                v.type_name()
            ))
        })?;
        best = Some(match best {
            Some(b) if !pick_new(n, b) => b,
            _ => n,
        });
    }
    best.map(Value::Number).ok_or_else(|| arity_bug(name))
}

fn min(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    extremum(rt, "min", args, |n, best| n < best)
}

fn max(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    extremum(rt, "max", args, |n, best| n > best)
}

fn sqrt(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let n = number_arg("sqrt", only("sqrt", args)?)?;
    rt.fuel(1)?;
    if n < 0.0 {
        return Err(Error::new(
            ErrorKind::Arithmetic,
            format!(
                "cannot compute sqrt of negative number, got {}",
                number_to_string(n)
            ),
        ));
    }
    Ok(Value::Number(n.sqrt()))
}

fn log(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let n = number_arg("log", only("log", args)?)?;
    rt.fuel(1)?;
    if n <= 0.0 {
        return Err(Error::new(
            ErrorKind::Arithmetic,
            format!(
                "cannot compute log of non-positive number, got {}",
                number_to_string(n)
            ),
        ));
    }
    Ok(Value::Number(n.ln()))
}

fn pow(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    let [x, y] = args else {
        return Err(arity_bug("pow"));
    };
    let x = number_arg("pow", x)?;
    let y = number_arg("pow", y)?;
    rt.fuel(1)?;
    let r = x.powf(y);
    if r.is_finite() {
        Ok(Value::Number(r))
    } else {
        Err(Error::new(
            ErrorKind::Arithmetic,
            format!(
                "pow({}, {}) is not a finite number",
                number_to_string(x),
                number_to_string(y)
            ),
        ))
    }
}

fn random(rt: &mut dyn Runtime, args: &[Value]) -> Result<Value, Error> {
    if !args.is_empty() {
        return Err(arity_bug("random"));
    }
    rt.fuel(1)?;
    rt.random().map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stdlib::testing::TestRuntime;
    use crate::stdlib::{call_function, function_id};

    fn call(name: &str, args: &[Value]) -> Result<Value, Error> {
        let mut rt = TestRuntime::default();
        let id = function_id(name).unwrap_or_else(|| panic!("no function {name}"));
        call_function(&mut rt, id, args)
    }

    fn num(name: &str, args: &[f64]) -> f64 {
        let args: Vec<Value> = args.iter().map(|&n| Value::Number(n)).collect();
        match call(name, &args) {
            Ok(Value::Number(n)) => n,
            other => panic!("{name}{args:?} gave {other:?}"),
        }
    }

    fn err(name: &str, args: &[Value]) -> Error {
        match call(name, args) {
            Err(e) => e,
            Ok(v) => panic!("{name}{args:?} gave {v:?}"),
        }
    }

    #[test]
    fn round_is_javascript_math_round() {
        let cases = [
            (3.7, 4.0),
            (3.2, 3.0),
            (0.5, 1.0),
            (1.5, 2.0),
            (2.5, 3.0),
            (-2.5, -2.0),
            (-0.5, 0.0),
            (-0.6, -1.0),
            (-3.7, -4.0),
            (0.49999999999999994, 0.0),
            (4503599627370497.0, 4503599627370497.0),
            (1e300, 1e300),
            (-1e300, -1e300),
        ];
        for (x, want) in cases {
            assert_eq!(num("round", &[x]), want, "round({x})");
        }
    }

    #[test]
    fn floor_ceil_trunc_abs_sign() {
        assert_eq!(num("floor", &[3.7]), 3.0);
        assert_eq!(num("floor", &[-3.2]), -4.0);
        assert_eq!(num("ceil", &[3.2]), 4.0);
        assert_eq!(num("ceil", &[-3.7]), -3.0);
        assert_eq!(num("trunc", &[4.7]), 4.0);
        assert_eq!(num("trunc", &[-4.7]), -4.0);
        assert_eq!(num("abs", &[-5.0]), 5.0);
        assert_eq!(num("abs", &[2.5]), 2.5);
        assert_eq!(num("sign", &[-5.0]), -1.0);
        assert_eq!(num("sign", &[0.0]), 0.0);
        assert_eq!(num("sign", &[-0.0]), 0.0);
        assert_eq!(num("sign", &[1e-300]), 1.0);
    }

    #[test]
    fn min_and_max_are_variadic() {
        assert_eq!(num("min", &[3.0, 1.0, 2.0]), 1.0);
        assert_eq!(num("max", &[3.0, 1.0, 2.0]), 3.0);
        assert_eq!(num("max", &[-1.0, -2.0]), -1.0);
        assert_eq!(num("min", &[2.0, 2.0]), 2.0);
        for (name, args) in [("max", vec![]), ("max", vec![-1.0]), ("min", vec![5.0])] {
            let args: Vec<Value> = args.into_iter().map(Value::Number).collect();
            let e = err(name, &args);
            assert_eq!(e.kind(), ErrorKind::Arity);
            // The spec's words, then (one argument) the hint for an array.
            let words = match e.hint() {
                Some(h) => e.message().replace(&format!(" ({h})"), ""),
                None => e.message().to_owned(),
            };
            assert_eq!(
                words,
                format!(
                    "Wrong number of arguments for '{name}': expected at least 2, got {}",
                    args.len()
                )
            );
        }
        let e = err("min", &[Value::Number(1.0), Value::from("2")]);
        assert_eq!(e.kind(), ErrorKind::Type);
        assert_eq!(e.message(), "Type error: min expects numbers, got string");
    }

    #[test]
    fn sqrt_log_pow() {
        assert_eq!(num("sqrt", &[9.0]), 3.0);
        assert_eq!(num("sqrt", &[2.0]), std::f64::consts::SQRT_2);
        assert_eq!(num("sqrt", &[0.0]), 0.0);
        let e = err("sqrt", &[Value::Number(-1.0)]);
        assert_eq!(e.kind(), ErrorKind::Arithmetic);
        assert_eq!(
            e.message(),
            "cannot compute sqrt of negative number, got -1"
        );
        assert_eq!(num("log", &[1.0]), 0.0);
        assert_eq!(num("log", &[std::f64::consts::E]), 1.0);
        for (x, shown) in [(0.0, "0"), (-0.0, "0"), (-1.5, "-1.5")] {
            let e = err("log", &[Value::Number(x)]);
            assert_eq!(e.kind(), ErrorKind::Arithmetic);
            assert_eq!(
                e.message(),
                format!("cannot compute log of non-positive number, got {shown}")
            );
        }
        assert_eq!(num("pow", &[2.0, 10.0]), 1024.0);
        assert_eq!(num("pow", &[2.0, -1.0]), 0.5);
        assert_eq!(num("pow", &[2.0, 0.0]), 1.0);
        assert_eq!(num("pow", &[0.0, 0.0]), 1.0);
        for (x, y) in [(2.0, 2000.0), (0.0, -1.0), (-8.0, 0.5)] {
            let e = err("pow", &[Value::Number(x), Value::Number(y)]);
            assert_eq!(e.kind(), ErrorKind::Arithmetic);
            assert!(e.message().contains("not a finite number"), "{e}");
        }
        assert!(
            err("pow", &[Value::Number(2.0), Value::Null])
                .message()
                .contains("pow expects number, got null")
        );
    }

    #[test]
    fn type_errors_name_the_function() {
        for name in [
            "round", "floor", "ceil", "abs", "sqrt", "log", "sign", "trunc",
        ] {
            for bad in [
                Value::from("x"),
                Value::Null,
                Value::Bool(true),
                Value::array(vec![]),
            ] {
                let e = err(name, std::slice::from_ref(&bad));
                assert_eq!(e.kind(), ErrorKind::Type);
                let words = format!("Type error: {name} expects number, got {}", bad.type_name());
                match e.hint() {
                    // A null argument: how to give it a default.
                    Some(h) => {
                        assert!(matches!(bad, Value::Null), "{e}");
                        assert_eq!(h, crate::foreign::NULL_ARGUMENT);
                        assert_eq!(e.message(), format!("{words} ({h})"));
                    }
                    None => assert_eq!(e.message(), words),
                }
            }
        }
    }

    #[test]
    fn arity_is_checked() {
        assert_eq!(err("round", &[]).kind(), ErrorKind::Arity);
        assert!(
            err("abs", &[Value::Number(1.0), Value::Number(2.0)])
                .message()
                .contains("expected 1, got 2")
        );
        assert!(
            err("random", &[Value::Number(1.0)])
                .message()
                .contains("expected 0, got 1")
        );
        assert!(
            err("pow", &[Value::Number(1.0)])
                .message()
                .contains("expected 2, got 1")
        );
    }

    #[test]
    fn random_draws_from_the_runtime() {
        let mut rt = TestRuntime::default();
        let id = function_id("random").unwrap();
        let mut seen = Vec::new();
        for _ in 0..100 {
            match call_function(&mut rt, id, &[]) {
                Ok(Value::Number(n)) => {
                    assert!((0.0..1.0).contains(&n));
                    seen.push(n);
                }
                other => panic!("{other:?}"),
            }
        }
        seen.dedup();
        assert!(seen.len() > 90);
        let mut again = TestRuntime::default();
        assert_eq!(
            call_function(&mut again, id, &[]).unwrap(),
            Value::Number(seen[0])
        );
    }

    #[test]
    #[allow(clippy::approx_constant)] // the spec's digits, written out on purpose
    fn constants() {
        assert_eq!(constant("PI"), Some(3.141592653589793));
        assert_eq!(constant("E"), Some(2.718281828459045));
        assert_eq!(constant("pi"), None);
    }

    #[test]
    fn fuel_is_charged() {
        let mut rt = TestRuntime::default();
        let id = function_id("max").unwrap();
        call_function(&mut rt, id, &vec![Value::Number(1.0); 50]).unwrap();
        assert_eq!(rt.fuel_used, 51);
        let mut rt = TestRuntime {
            fuel_limit: Some(0),
            ..TestRuntime::default()
        };
        assert_eq!(
            call_function(&mut rt, function_id("abs").unwrap(), &[Value::Number(1.0)])
                .unwrap_err()
                .kind(),
            ErrorKind::Fuel
        );
    }
}
