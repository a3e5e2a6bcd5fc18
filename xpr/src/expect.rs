//! The expected result type of an expression ([`crate::Engine::compile_expecting`],
//! `xpr --expect boolean`): the type an expression's result is known to
//! have from its form alone, and the error when it is not the one expected.

use std::fmt;
use std::str::FromStr;

use xpr_syntax::ast::{BinaryOp, Expr, ExprKind, Pattern, UnaryOp};
use xpr_vm::{Error, Span, Value};

/// The type of a value, as `type()` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// `null`
    Null,
    /// `true` / `false`
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
    /// A regex (no JSON form).
    Regex,
    /// A function (no JSON form).
    Function,
}

impl ValueType {
    /// Every type, in the order above.
    pub const ALL: [ValueType; 8] = [
        ValueType::Null,
        ValueType::Boolean,
        ValueType::Number,
        ValueType::String,
        ValueType::Array,
        ValueType::Object,
        ValueType::Regex,
        ValueType::Function,
    ];

    /// The name `type()` gives: `"null"`, `"boolean"`, `"number"`,
    /// `"string"`, `"array"`, `"object"`, `"regex"`, `"function"`.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Null => "null",
            ValueType::Boolean => "boolean",
            ValueType::Number => "number",
            ValueType::String => "string",
            ValueType::Array => "array",
            ValueType::Object => "object",
            ValueType::Regex => "regex",
            ValueType::Function => "function",
        }
    }

    /// The type of `value`.
    pub fn of(value: &Value) -> ValueType {
        match value {
            Value::Null => ValueType::Null,
            Value::Bool(_) => ValueType::Boolean,
            Value::Number(_) => ValueType::Number,
            Value::String(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::Object(_) => ValueType::Object,
            Value::Regex(_) => ValueType::Regex,
            Value::Function(_) => ValueType::Function,
        }
    }

    /// `a number`, `an array`, `null`.
    fn with_article(self) -> String {
        match self {
            ValueType::Null => "null".to_string(),
            ValueType::Array | ValueType::Object => format!("an {}", self.name()),
            _ => format!("a {}", self.name()),
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ValueType {
    type Err = String;

    /// A type's name as [`ValueType::name`] gives it; the error lists them.
    fn from_str(s: &str) -> Result<Self, String> {
        ValueType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = ValueType::ALL.iter().map(|t| t.name()).collect();
                format!("'{s}' is not a type: one of {}", names.join(", "))
            })
    }
}

/// The error for a result of type `got` where `expected` was wanted: `at`
/// is the whole expression; `statically` says whether the type is known
/// from the expression's form (before any run) or was found in a result.
#[cold]
pub(crate) fn mismatch(expected: ValueType, got: ValueType, at: Span, statically: bool) -> Error {
    let what = if statically {
        format!("this expression yields {}", got.with_article())
    } else {
        format!("the result is {}", got.with_article())
    };
    let e = Error::type_error(format_args!("expected {expected}, but {what}")).at(at);
    match hint(expected, got) {
        Some(h) => e.with_hint(h),
        None => e,
    }
}

/// What to write instead, for the common mismatches.
fn hint(expected: ValueType, got: ValueType) -> Option<&'static str> {
    use ValueType as T;
    Some(match (expected, got) {
        (T::Boolean, T::Number) => "write a comparison such as 'x > 0'",
        (T::Boolean, T::String) => "write a comparison such as 'status == \"paid\"'",
        (T::Boolean, T::Array) => {
            "write a test such as 'items.length > 0' or 'items.some(x => x.price > 10)'"
        }
        (T::Boolean, T::Object) => "test a field, such as 'order.paid == true'",
        (T::Boolean, T::Null) => "write a comparison such as 'x != null'",
        (T::Boolean, _) => "write a comparison or a test that yields true or false",
        (T::String, T::Number | T::Boolean | T::Null | T::Array | T::Object) => {
            "convert it with string(x), or write a template such as `${x}`"
        }
        (T::Number, T::String) => "convert it with float(s) or int(s)",
        (T::Number, T::Boolean) => "write b ? 1 : 0",
        (T::Number, T::Array) => "aggregate it, such as 'xs.sum()' or 'xs.length'",
        (T::Array, _) => "wrap it in brackets: [x]",
        (T::Object, _) => "build an object such as {value: x}",
        _ => return None,
    })
}

/// Deeper than this, the type of a subexpression counts as unknown (the
/// AST is bounded, but this walk need not follow it all the way down).
const MAX_WALK: u32 = 64;

/// The type every successful evaluation of `expr` yields, when its form
/// says so: literals, templates, comparisons, `!`, arithmetic, `&&`, `||`,
/// `??` and `?:` whose operands agree, `let` bodies, and calls of built-in
/// functions and methods that always return one type. `None` when unknown.
///
/// A name called that a `let` or an arrow parameter binds is not taken
/// for the built-in; a function in the context that has a built-in's name
/// (which the VM would call instead) is not foreseen.
pub(crate) fn static_type(expr: &Expr) -> Option<ValueType> {
    let mut bound = Vec::new();
    infer(expr, &mut bound, 0)
}

fn infer(e: &Expr, bound: &mut Vec<String>, depth: u32) -> Option<ValueType> {
    use ValueType as T;
    if depth > MAX_WALK {
        return None;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Null => Some(T::Null),
        ExprKind::Bool(_) => Some(T::Boolean),
        ExprKind::Number(_) => Some(T::Number),
        ExprKind::String(_) | ExprKind::Template { .. } => Some(T::String),
        ExprKind::Regex { .. } => Some(T::Regex),
        ExprKind::Array(_) => Some(T::Array),
        ExprKind::Object(_) => Some(T::Object),
        ExprKind::Arrow(_) => Some(T::Function),
        ExprKind::Unary { op, .. } => Some(match op {
            UnaryOp::Not => T::Boolean,
            UnaryOp::Neg => T::Number,
        }),
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => Some(T::Boolean),
            BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem | BinaryOp::Pow => {
                Some(T::Number)
            }
            // Numbers add, strings concatenate; nothing else does.
            BinaryOp::Add => match (infer(lhs, bound, d), infer(rhs, bound, d)) {
                (Some(T::String), _) | (_, Some(T::String)) => Some(T::String),
                (Some(T::Number), _) | (_, Some(T::Number)) => Some(T::Number),
                _ => None,
            },
        },
        // `a && b` is `a` or `b`, as `a || b` and `a ?? b` are.
        ExprKind::Logical { lhs, rhs, .. } => same(infer(lhs, bound, d), infer(rhs, bound, d)),
        ExprKind::Conditional {
            then, otherwise, ..
        } => same(infer(then, bound, d), infer(otherwise, bound, d)),
        ExprKind::Let { target, body, .. } => {
            let before = bound.len();
            bind(target, bound, 0);
            let t = infer(body, bound, d);
            bound.truncate(before);
            t
        }
        ExprKind::Call {
            callee,
            optional: false,
            ..
        } => match &callee.kind {
            ExprKind::Ident(name) if !bound.contains(name) => function_type(name),
            ExprKind::Member {
                property,
                optional: false,
                ..
            } => method_type(&property.name),
            _ => None,
        },
        // `x |> f(...)` and `x |> f`: the function `f`, else the method `f`.
        ExprKind::Pipe { rhs, .. } => {
            let name = match &rhs.kind {
                ExprKind::Ident(name) => name,
                ExprKind::Call {
                    callee,
                    optional: false,
                    ..
                } => match &callee.kind {
                    ExprKind::Ident(name) => name,
                    _ => return None,
                },
                _ => return None,
            };
            if bound.contains(name) {
                None
            } else if xpr_vm::stdlib::function_id(name).is_some() {
                function_type(name)
            } else {
                method_type(name)
            }
        }
        _ => None,
    }
}

fn same(a: Option<ValueType>, b: Option<ValueType>) -> Option<ValueType> {
    if a == b { a } else { None }
}

/// Adds the names `pattern` binds.
fn bind(pattern: &Pattern, bound: &mut Vec<String>, depth: u32) {
    if depth > MAX_WALK {
        return;
    }
    match pattern {
        Pattern::Ident(n) => bound.push(n.name.clone()),
        Pattern::Object(p) => {
            for entry in &p.entries {
                bind(&entry.target, bound, depth + 1);
            }
            bound.extend(p.rest.iter().map(|n| n.name.clone()));
        }
        Pattern::Array(p) => {
            for element in &p.elements {
                bind(&element.target, bound, depth + 1);
            }
            bound.extend(p.rest.iter().map(|n| n.name.clone()));
        }
    }
}

/// The type a built-in function always returns (when it returns).
fn function_type(name: &str) -> Option<ValueType> {
    use ValueType as T;
    Some(match name {
        "isNumber" | "isString" | "isArray" | "isNull" | "isObject" | "isRegex" | "bool"
        | "matches" => T::Boolean,
        "round" | "floor" | "ceil" | "abs" | "min" | "max" | "sqrt" | "log" | "pow" | "random"
        | "sign" | "trunc" | "int" | "float" | "now" | "parseDate" | "year" | "month" | "day"
        | "hour" | "minute" | "second" | "millisecond" | "dayOfWeek" | "dateAdd" | "dateDiff" => {
            T::Number
        }
        "type" | "string" | "formatDate" | "replacePattern" => T::String,
        "range" | "matchAll" => T::Array,
        "fromEntries" => T::Object,
        _ => return None,
    })
}

/// The type a built-in method of this name returns on every receiver
/// type that has it.
fn method_type(name: &str) -> Option<ValueType> {
    use ValueType as T;
    Some(match name {
        "startsWith" | "endsWith" | "contains" | "some" | "every" | "includes" | "has" | "test" => {
            T::Boolean
        }
        "len" | "indexOf" | "count" | "sum" | "avg" => T::Number,
        "upper" | "lower" | "trim" | "trimStart" | "trimEnd" | "repeat" | "charAt" | "padStart"
        | "padEnd" | "join" | "replace" => T::String,
        "split" | "map" | "filter" | "flatMap" | "sort" | "reverse" | "concat" | "flat"
        | "unique" | "zip" | "chunk" | "sortBy" | "take" | "drop" | "compact" | "partition"
        | "keys" | "values" | "entries" => T::Array,
        "groupBy" | "keyBy" => T::Object,
        _ => return None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// One call of each function and method of the tables above, with
    /// arguments it accepts.
    pub(crate) const SAMPLES: &[&str] = &[
        "isNumber(1)",
        "isString(1)",
        "isArray(1)",
        "isNull(1)",
        "isObject(1)",
        "isRegex(1)",
        "bool(0)",
        "matches(\"a\", \"a\")",
        "round(1.5)",
        "floor(1.5)",
        "ceil(1.5)",
        "abs(-1)",
        "min(1, 2)",
        "max(1, 2)",
        "sqrt(4)",
        "log(2)",
        "pow(2, 3)",
        "random()",
        "sign(-3)",
        "trunc(1.5)",
        "int(\"3\")",
        "float(\"3.5\")",
        "now()",
        "parseDate(\"2026-01-01\")",
        "year(0)",
        "month(0)",
        "day(0)",
        "hour(0)",
        "minute(0)",
        "second(0)",
        "millisecond(0)",
        "dayOfWeek(0)",
        "dateAdd(0, 1, \"days\")",
        "dateDiff(0, 1000, \"seconds\")",
        "type(1)",
        "string(1)",
        "formatDate(0, \"yyyy\")",
        "replacePattern(\"a\", /a/, \"b\")",
        "range(3)",
        "matchAll(\"b\", /a/)",
        "fromEntries([[\"a\", 1]])",
        "\"ab\".startsWith(\"a\")",
        "\"ab\".endsWith(\"a\")",
        "\"ab\".contains(\"a\")",
        "[1].some(x => x > 1)",
        "[1].every(x => x > 1)",
        "[1].includes(1)",
        "{a: 1}.has(\"a\")",
        "/a/.test(\"b\")",
        "\"ab\".len()",
        "\"ab\".indexOf(\"b\")",
        "[1].indexOf(1)",
        "[1].count(x => x > 0)",
        "[1].sum()",
        "[1].avg()",
        "\"a\".upper()",
        "\"a\".lower()",
        "\" a\".trim()",
        "\" a\".trimStart()",
        "\"a \".trimEnd()",
        "\"a\".repeat(2)",
        "\"a\".charAt(5)",
        "\"a\".padStart(3)",
        "\"a\".padEnd(3)",
        "[1, 2].join(\",\")",
        "\"a\".replace(\"a\", \"b\")",
        "\"a,b\".split(\",\")",
        "[1].map(x => x)",
        "[1].filter(x => x)",
        "[1].flatMap(x => [x])",
        "[2, 1].sort()",
        "[1].reverse()",
        "[1].concat([2])",
        "[[1]].flat()",
        "[1, 1].unique()",
        "[1].zip([2])",
        "[1, 2].chunk(1)",
        "[{a: 1}].sortBy(x => x.a)",
        "[1].take(1)",
        "[1].drop(1)",
        "[null].compact()",
        "[1].partition(x => x > 0)",
        "{a: 1}.keys()",
        "{a: 1}.values()",
        "{a: 1}.entries()",
        "[1].groupBy(x => x)",
        "[{a: \"k\"}].keyBy(x => x.a)",
        "1 |> string",
        "\"a\" |> upper()",
    ];

    fn parse(src: &str) -> Expr {
        xpr_syntax::parse(src).unwrap_or_else(|e| panic!("{src}: {e:?}"))
    }

    #[test]
    fn the_tables_name_what_the_built_ins_return() {
        let engine = crate::Engine::new();
        for src in SAMPLES {
            let value = engine
                .eval(src, &())
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            assert_eq!(
                static_type(&parse(src)),
                Some(ValueType::of(&value)),
                "{src}"
            );
        }
        // Every name of the tables has its sample.
        let called = |name: &str| {
            SAMPLES
                .iter()
                .any(|s| s.contains(&format!("{name}(")) || s.ends_with(&format!("|> {name}")))
        };
        for name in xpr_vm::stdlib::function_names().chain(xpr_vm::stdlib::method_names()) {
            if function_type(name).is_some() || method_type(name).is_some() {
                assert!(called(name), "no sample calls {name}");
            }
        }
    }

    #[test]
    fn forms_have_their_types_and_unknowns_stay_unknown() {
        use ValueType as T;
        let cases: &[(&str, Option<ValueType>)] = &[
            ("x > 0", Some(T::Boolean)),
            ("!x", Some(T::Boolean)),
            ("a == b && c < d", Some(T::Boolean)),
            ("a > 1 || b", None),
            ("a ?? 0", None),
            ("1 ?? 2", Some(T::Number)),
            ("x * 2", Some(T::Number)),
            ("-x", Some(T::Number)),
            ("x + 1", Some(T::Number)),
            ("\"a\" + x", Some(T::String)),
            ("x + y", None),
            ("`n=${n}`", Some(T::String)),
            ("ok ? \"yes\" : \"no\"", Some(T::String)),
            ("ok ? 1 : \"no\"", None),
            ("let y = 2; y * x", Some(T::Number)),
            ("let string = x => 1; string(2)", None),
            ("let {upper} = o; x |> upper", None),
            ("[1, 2]", Some(T::Array)),
            ("{a: 1}", Some(T::Object)),
            ("null", Some(T::Null)),
            ("/a/", Some(T::Regex)),
            ("x => x", Some(T::Function)),
            ("x", None),
            ("x.y", None),
            ("o?.upper()", None),
            ("xs.first()", None),
            ("s.slice(1)", None),
            ("f(x)", None),
        ];
        for (src, want) in cases {
            assert_eq!(static_type(&parse(src)), *want, "{src}");
        }
    }

    #[test]
    fn types_parse_from_their_names() {
        for t in ValueType::ALL {
            assert_eq!(t.name().parse::<ValueType>(), Ok(t));
        }
        let e = "bool".parse::<ValueType>().unwrap_err();
        assert!(e.contains("one of null, boolean, number"), "{e}");
    }
}
