//! Static findings about an expression that parses: what is certain to
//! fail when reached (a method the receiver's type does not have, where
//! that type is known from the source: `"abc".toUpperCase()`; a constant
//! date format with letters that are no token, `formatDate(t,
//! "YYYY-MM-DD")`), and likely mistakes that evaluate without an error,
//! each a habit of another language: `origin.lower` reads a property where
//! `origin.lower()` was meant; `yyyy-mm-dd` has minutes for a month; SQL's
//! `first || ' ' || last` is a logical or; Python's `type(x) == int` is
//! never true; JavaScript's `xs.map((x, i) => ...)` gets no index. Each
//! carries a hint naming XPR's spelling (the table of `xpr_vm::foreign`
//! where it has the row).
//!
//! Types are known for literals, templates, operators, the results of
//! built-in functions and methods (`s.trim()` is a string whatever `s`:
//! only strings have `trim`, and values from JSON hold no functions), and
//! names bound by `let` to such values; a context field, a parameter or
//! anything else is unknown, and nothing is said about a method called on
//! it here (the VM says it when the call fails, with the same hint).

use xpr_syntax::ast::{BinaryOp, Element, Expr, ExprKind, LogicalOp, Pattern, UnaryOp};
use xpr_vm::{Error, Span, Value, foreign, stdlib};

use crate::diagnostic::Severity;

/// One finding of [`crate::Engine::lint`].
#[derive(Debug, Clone)]
pub struct Lint {
    /// [`Severity::Error`]: evaluating fails whenever this part is
    /// reached; [`Severity::Warning`]: a likely mistake, which evaluates,
    /// probably not to what was meant.
    pub severity: Severity,
    /// What was found: `method_of_type` (an error: a method the receiver's
    /// known type lacks), `method_as_property` (a built-in method read as a
    /// property, without a call), `date_format` (an error: a constant
    /// format with letters that are no token, as `YYYY`; a warning: `mm`,
    /// minutes, in a format without hours), `dead_operand` (the right operand of
    /// `||` after a truthy literal, as SQL's `'a' || 'b'` concatenation),
    /// `type_name` (`type(x) == int`: `type` returns a string),
    /// `callback_arity` (`xs.map((x, i) => ...)`: callbacks get the element
    /// alone), `property_typo` (`s.lenght`: a property close to `length`,
    /// which reads null on a string or an array and a field on an object).
    pub kind: &'static str,
    /// The method or function name concerned.
    pub name: String,
    /// The message (hint included, see [`Error::hint`]) and span: for an
    /// error, the error evaluation raises there.
    pub error: Error,
}

/// The findings for `ast`, in source order.
pub(crate) fn lint(ast: &Expr) -> Vec<Lint> {
    let mut l = Linter {
        scope: Vec::new(),
        out: Vec::new(),
    };
    l.expr(ast);
    l.out.sort_by_key(|f| f.error.span().map_or(0, |s| s.start));
    l.out
}

/// The static type of a value, as `type()` names it.
type Ty = Option<&'static str>;

struct Linter {
    /// Names in scope (innermost last) with their known type.
    scope: Vec<(String, Ty)>,
    out: Vec<Lint>,
}

/// A value of the type, for the error evaluation would raise.
fn sample(ty: &str) -> Option<Value> {
    Some(match ty {
        "string" => Value::from(""),
        "array" => Value::array(Vec::new()),
        "number" => Value::Number(0.0),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => return None,
    })
}

/// What built-in method `m` returns on a `ty` receiver, when always one type.
fn method_result(ty: &str, m: &str) -> Ty {
    match (ty, m) {
        ("string", "len" | "indexOf") => Some("number"),
        (
            "string",
            "upper" | "lower" | "trim" | "trimStart" | "trimEnd" | "slice" | "replace" | "repeat"
            | "charAt" | "padStart" | "padEnd",
        ) => Some("string"),
        ("string", "startsWith" | "endsWith" | "contains") => Some("boolean"),
        ("string", "split") => Some("array"),
        (
            "array",
            "map" | "filter" | "flatMap" | "sort" | "reverse" | "slice" | "concat" | "flat"
            | "unique" | "zip" | "chunk" | "sortBy" | "take" | "drop" | "compact" | "partition",
        ) => Some("array"),
        ("array", "join") => Some("string"),
        ("array", "includes" | "some" | "every") => Some("boolean"),
        ("array", "indexOf" | "count" | "sum" | "avg") => Some("number"),
        ("array", "groupBy" | "keyBy") => Some("object"),
        ("object", "keys" | "values" | "entries") => Some("array"),
        ("object", "has") => Some("boolean"),
        _ => None,
    }
}

/// What built-in function `f` returns, when always one type.
fn function_result(f: &str) -> Ty {
    match f {
        "string" | "type" | "formatDate" | "replacePattern" => Some("string"),
        "int" | "float" | "round" | "floor" | "ceil" | "abs" | "trunc" | "sign" | "sqrt"
        | "log" | "pow" | "random" | "now" | "parseDate" | "year" | "month" | "day" | "hour"
        | "minute" | "second" | "millisecond" | "dayOfWeek" | "dateAdd" | "dateDiff" | "min"
        | "max" => Some("number"),
        "bool" | "isNumber" | "isString" | "isArray" | "isNull" | "isObject" | "isRegex"
        | "matches" => Some("boolean"),
        "range" | "matchAll" => Some("array"),
        "fromEntries" => Some("object"),
        _ => None,
    }
}

/// Built-in methods without arguments whose names are unlikely to be data
/// fields: reading one as a property (`s.lower`) is a forgotten call.
const CALL_ONLY: &[&str] = &[
    "len",
    "upper",
    "lower",
    "trim",
    "trimStart",
    "trimEnd",
    "reverse",
    "flat",
    "unique",
    "compact",
];

impl Linter {
    fn lookup(&self, name: &str) -> Option<Ty> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| *t)
    }

    fn bind(&mut self, p: &Pattern, ty: Ty) {
        match p {
            Pattern::Ident(n) => self.scope.push((n.name.clone(), ty)),
            Pattern::Object(o) => {
                for e in &o.entries {
                    if let Some(d) = &e.default {
                        self.expr(d);
                    }
                    self.bind(&e.target, None);
                }
                if let Some(r) = &o.rest {
                    self.scope.push((r.name.clone(), Some("object")));
                }
            }
            Pattern::Array(a) => {
                for e in &a.elements {
                    if let Some(d) = &e.default {
                        self.expr(d);
                    }
                    self.bind(&e.target, None);
                }
                if let Some(r) = &a.rest {
                    self.scope.push((r.name.clone(), Some("array")));
                }
            }
        }
    }

    fn elements(&mut self, es: &[Element]) {
        for e in es {
            match e {
                Element::Expr(x) | Element::Spread(x, _) => {
                    self.expr(x);
                }
            }
        }
    }

    fn push(&mut self, severity: Severity, kind: &'static str, name: &str, error: Error) {
        self.out.push(Lint {
            severity,
            kind,
            name: name.to_string(),
            error,
        });
    }

    /// Walks `e`, recording findings; returns its static type.
    fn expr(&mut self, e: &Expr) -> Ty {
        match &e.kind {
            ExprKind::Null => Some("null"),
            ExprKind::Bool(_) => Some("boolean"),
            ExprKind::Number(_) => Some("number"),
            ExprKind::String(_) => Some("string"),
            ExprKind::Template { exprs, .. } => {
                for x in exprs {
                    self.expr(x);
                }
                Some("string")
            }
            ExprKind::Regex { .. } => Some("regex"),
            ExprKind::Array(es) => {
                self.elements(es);
                Some("array")
            }
            ExprKind::Object(ps) => {
                for p in ps {
                    match p {
                        xpr_syntax::ast::Property::KeyValue { value, .. } => {
                            self.expr(value);
                        }
                        xpr_syntax::ast::Property::Spread(x, _) => {
                            self.expr(x);
                        }
                    }
                }
                Some("object")
            }
            ExprKind::Ident(n) => self.lookup(n).flatten(),
            ExprKind::Member {
                object, property, ..
            } => {
                let ty = self.expr(object);
                let name = property.name.as_str();
                if name == "length" {
                    return matches!(ty, Some("string" | "array")).then_some("number");
                }
                // `s.lenght` reads a missing property: null, no error
                // (`lengths`, `lengthKm`: more likely a field's name).
                if !matches!(ty, Some("object"))
                    && !name.starts_with("length")
                    && xpr_vm::suggest::closest(name, ["length"]).is_some()
                {
                    let e = Error::new(
                        xpr_vm::ErrorKind::Reference,
                        format!(
                            "'.{name}' is not a property of a string or an array \
                             (on an object it reads a field, null when missing)"
                        ),
                    )
                    .with_hint("did you mean '.length'?")
                    .at(span(property.span));
                    self.push(Severity::Warning, "property_typo", name, e);
                    return None;
                }
                let known_string_or_array = matches!(ty, Some("string" | "array"));
                if (CALL_ONLY.contains(&name)
                    || known_string_or_array && stdlib::method_id(name).is_some())
                    && !matches!(ty, Some("object"))
                {
                    let e = Error::new(
                        xpr_vm::ErrorKind::Type,
                        format!("'.{name}' reads a property, not the method"),
                    )
                    .with_hint(format!("call it: `.{name}()`"))
                    .at(span(property.span));
                    self.push(Severity::Warning, "method_as_property", name, e);
                }
                None
            }
            ExprKind::Index { object, index } => {
                self.expr(object);
                self.expr(index);
                None
            }
            ExprKind::Call { callee, args, .. } => self.call(callee, args),
            ExprKind::OptionalChain(x) => {
                self.expr(x);
                None
            }
            ExprKind::Unary { op, operand } => {
                self.expr(operand);
                Some(match op {
                    UnaryOp::Not => "boolean",
                    UnaryOp::Neg => "number",
                })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.expr(lhs);
                let b = self.expr(rhs);
                if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
                    self.type_comparison(lhs, rhs);
                    self.type_comparison(rhs, lhs);
                }
                match op {
                    BinaryOp::Add if a == Some("string") || b == Some("string") => Some("string"),
                    BinaryOp::Add => {
                        (a == Some("number") && b == Some("number")).then_some("number")
                    }
                    BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Rem
                    | BinaryOp::Pow => Some("number"),
                    _ => Some("boolean"),
                }
            }
            ExprKind::Logical { op, lhs, rhs } => {
                self.expr(lhs);
                self.expr(rhs);
                let truthy_end = match &lhs.kind {
                    ExprKind::Logical {
                        op: LogicalOp::Or,
                        rhs: inner,
                        ..
                    } => truthy_literal(inner),
                    _ => truthy_literal(lhs),
                };
                if *op == LogicalOp::Or && truthy_end {
                    let e = Error::new(
                        xpr_vm::ErrorKind::Type,
                        "the right operand of `||` is never evaluated: the left one is always true",
                    )
                    .with_hint("`||` is logical or; XPR joins strings with `+` or a template literal, `${a} ${b}`")
                    .at(span(rhs.span));
                    self.push(Severity::Warning, "dead_operand", "||", e);
                }
                None
            }
            ExprKind::Conditional {
                test,
                then,
                otherwise,
            } => {
                self.expr(test);
                let a = self.expr(then);
                let b = self.expr(otherwise);
                if a == b { a } else { None }
            }
            ExprKind::Arrow(a) => {
                let mark = self.scope.len();
                for p in &a.params {
                    self.bind(p, None);
                }
                if let Some(r) = &a.rest {
                    self.scope.push((r.name.clone(), Some("array")));
                }
                self.expr(&a.body);
                self.scope.truncate(mark);
                Some("function")
            }
            ExprKind::Pipe { lhs, rhs } => {
                self.expr(lhs);
                match &rhs.kind {
                    ExprKind::Call { args, .. } => self.elements(args),
                    _ => {
                        self.expr(rhs);
                    }
                }
                None
            }
            ExprKind::Let {
                target,
                value,
                body,
            } => {
                let ty = self.expr(value);
                let mark = self.scope.len();
                self.bind(target, ty);
                let t = self.expr(body);
                self.scope.truncate(mark);
                t
            }
        }
    }

    fn call(&mut self, callee: &Expr, args: &[Element]) -> Ty {
        match &callee.kind {
            ExprKind::Member {
                object,
                property,
                optional: false,
            } => {
                let ty = self.expr(object);
                self.elements(args);
                let name = property.name.as_str();
                self.callback_arity(name, args);
                let Some(t) = ty else {
                    // A call that succeeds has a receiver of a type with
                    // that method: the result's type when they agree
                    // (`s.trim()` is a string).
                    let mut results = ["string", "array", "object", "regex"]
                        .into_iter()
                        .filter(|t| stdlib::type_has_method(t, name))
                        .map(|t| method_result(t, name));
                    let first = results.next().flatten();
                    return if results.all(|r| r == first) {
                        first
                    } else {
                        None
                    };
                };
                if stdlib::type_has_method(t, name) {
                    return method_result(t, name);
                }
                if let Some(v) = sample(t) {
                    let e = stdlib::no_such_method(name, &v).at(span(property.span));
                    self.push(Severity::Error, "method_of_type", name, e);
                }
                None
            }
            ExprKind::Ident(f) if self.lookup(f).is_none() => {
                self.elements(args);
                if matches!(f.as_str(), "formatDate" | "parseDate")
                    && let Some(Element::Expr(fmt)) = args.get(1)
                    && let ExprKind::String(text) = &fmt.kind
                {
                    if let Err(e) = stdlib::date::check_format(text) {
                        // Raised whenever the call is reached.
                        self.push(Severity::Error, "date_format", f, e.at(span(fmt.span)));
                    } else if let Some(hint) = foreign::date_format_hint(text) {
                        // Valid tokens, likely meant otherwise: `yyyy-mm-dd`.
                        let e = Error::new(
                            xpr_vm::ErrorKind::Date,
                            format!(
                                "{f} format \"{}\" has `mm` (minutes) where a month is likely meant",
                                short(text)
                            ),
                        )
                        .with_hint(hint)
                        .at(span(fmt.span));
                        self.push(Severity::Warning, "date_format", f, e);
                    }
                }
                stdlib::function_id(f).and_then(|_| function_result(f))
            }
            _ => {
                self.expr(callee);
                self.elements(args);
                None
            }
        }
    }
}

impl Linter {
    /// `type(x) == int`: `type` compared with a name rather than the
    /// string it returns.
    fn type_comparison(&mut self, call: &Expr, other: &Expr) {
        let ExprKind::Call { callee, .. } = &call.kind else {
            return;
        };
        let (ExprKind::Ident(f), ExprKind::Ident(name)) = (&callee.kind, &other.kind) else {
            return;
        };
        if f != "type" || self.lookup(f).is_some() || self.lookup(name).is_some() {
            return;
        }
        let Some(ty) = python_type(name) else {
            return;
        };
        let e = Error::new(
            xpr_vm::ErrorKind::Type,
            format!("`type(...)` returns a string, never equal to `{name}`"),
        )
        .with_hint(format!(
            "compare with the type's name: `type(x) == \"{ty}\"`"
        ))
        .at(span(other.span));
        self.push(Severity::Warning, "type_name", name, e);
    }

    /// `xs.map((x, i) => ...)`: a callback declaring more parameters than
    /// the method passes it.
    fn callback_arity(&mut self, method: &str, args: &[Element]) {
        if !ONE_ARGUMENT_CALLBACK.contains(&method) {
            return;
        }
        let Some(Element::Expr(Expr {
            kind: ExprKind::Arrow(arrow),
            span: at,
        })) = args.first()
        else {
            return;
        };
        if arrow.params.len() < 2 {
            return;
        }
        let e = Error::new(
            xpr_vm::ErrorKind::Arity,
            format!("`{method}` passes its callback one argument, the element; the others are null"),
        )
        .with_hint("for indices, pair the elements with them: `xs.zip(range(xs.length)).map(([x, i]) => ...)`")
        .at(span(*at));
        self.push(Severity::Warning, "callback_arity", method, e);
    }
}

/// Array methods whose callback gets one argument, the element.
const ONE_ARGUMENT_CALLBACK: &[&str] = &[
    "map",
    "filter",
    "find",
    "some",
    "every",
    "flatMap",
    "count",
    "sortBy",
    "groupBy",
    "keyBy",
    "partition",
];

/// The XPR type name of another language's type name (`int`, `str`,
/// `list`, `dict`, `NoneType`, ...).
fn python_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "int" | "float" | "number" | "Number" => "number",
        "str" | "string" | "String" => "string",
        "bool" | "boolean" | "Boolean" => "boolean",
        "list" | "tuple" | "array" | "Array" => "array",
        "dict" | "object" | "Object" => "object",
        "None" | "NoneType" | "null" => "null",
        _ => return None,
    })
}

/// Whether `e` is a literal that is always truthy: a non-empty string or
/// template text, a non-zero number, `true`, an array or object literal.
fn truthy_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::String(s) => !s.is_empty(),
        ExprKind::Template { quasis, .. } => quasis.iter().any(|q| !q.is_empty()),
        ExprKind::Number(n) => *n != 0.0,
        ExprKind::Bool(b) => *b,
        ExprKind::Array(_) | ExprKind::Object(_) => true,
        _ => false,
    }
}

fn span(s: xpr_syntax::Span) -> Span {
    Span::new(s.start, s.end)
}

/// At most 40 characters of `text`.
fn short(text: &str) -> String {
    let mut s: String = text.chars().take(40).collect();
    if text.chars().nth(40).is_some() {
        s.push_str("...");
    }
    s
}
