//! Syntax that other languages have and XPR does not: Python's `and` and
//! `x if c else y`, JavaScript's `===` and `function`, SQL's `IS NULL` and
//! `CASE WHEN`, jq's `.field` and `|`. Each is a row of [`TOKEN_HINTS`]:
//! how the other language writes it, and the hint naming XPR's spelling,
//! which a parse error at that construct carries
//! (`Unexpected token 'and' (XPR writes `&&` for `and`)`).
//!
//! This is the token half of the runtime's table of foreign constructs;
//! names, functions and methods (`None`, `len(x)`, `.toUpperCase()`) are
//! the other half, `xpr_vm::foreign`, consulted by the compiler and the VM.
//! Each construct has one row in one of the two.
//!
//! The same scan lets the parser report several errors in one pass: each
//! construct it recognises is replaced by the XPR tokens it stands for
//! (`and` by `&&`, `x in (1, 2)` by `x == [1, 2]`, which parses), so the
//! parse can go on and reach the next mistake. A construct with no such
//! replacement (`CASE WHEN`, `function (x) {...}`) stops the collection
//! there: what follows it would only be reported by accident.

//!
//! The table is here; the scan that finds the constructs in a token
//! stream and replaces them is in `scan.rs`.

mod scan;

pub(crate) use scan::{Finding, scan};

/// A construct of another language that is not XPR syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Construct {
    /// `a and b` (Python, SQL).
    And,
    /// `a or b`.
    Or,
    /// `not x` (Python, SQL).
    Not,
    /// `x in list` (Python, SQL `IN (...)`).
    In,
    /// `x not in list` (Python, SQL `NOT IN`).
    NotIn,
    /// `x IS NULL`, `x is None`, `x IS NOT NULL`.
    Is,
    /// `a if cond else b`, `elif` (Python), `if (c) a else b`.
    Conditional,
    /// `CASE WHEN c THEN a ELSE b END` (SQL).
    Case,
    /// `name LIKE 'a%'` (SQL).
    Like,
    /// `x BETWEEN a AND b` (SQL).
    Between,
    /// `CAST(x AS INT)`, `expr AS name` (SQL).
    As,
    /// `[f(x) for x in xs]` (Python).
    Comprehension,
    /// `... WHERE cond` (SQL).
    Where,
    /// `x instanceof Array` (JavaScript).
    InstanceOf,
    /// `lambda x: ...` (Python).
    Lambda,
    /// `function (x) { return ... }` (JavaScript), `def f(x)` (Python).
    Function,
    /// `return x` (JavaScript, Python).
    Return,
    /// `new Date()` (JavaScript).
    New,
    /// `typeof x` (JavaScript).
    TypeOf,
    /// `const x = ...`, `var x = ...` (JavaScript).
    Declaration,
    /// `===` (JavaScript).
    StrictEq,
    /// `!==` (JavaScript).
    StrictNe,
    /// `<>` (SQL).
    SqlNe,
    /// `a = b` comparing (SQL).
    Assign,
    /// `f"{a}-{b}"` (Python).
    FString,
    /// `.field` (jq).
    LeadingDot,
    /// `.` alone, `.[]` (jq's input).
    JqInput,
    /// `a | f` (jq, shell).
    Bar,
    /// `a & b` (bitwise and, or a mistyped `&&`).
    Ampersand,
    /// `a ^ b` (a power in SQL and spreadsheets; bitwise xor elsewhere).
    Caret,
    /// `$name` (jq, shell).
    Dollar,
    /// `a // b` (Python floor division, jq's alternative).
    DoubleSlash,
    /// `f(x, key=value)` (Python).
    KeywordArgument,
    /// `xs[1:3]`, `s[:2]` (Python).
    SliceSyntax,
    /// `'it''s'` (SQL).
    DoubledQuote,
    /// `x::int` (PostgreSQL).
    PgCast,
    /// `EXTRACT(YEAR FROM d)`, `SELECT ... FROM t` (SQL).
    From,
    /// `"\(.name)"` (jq).
    JqInterpolation,
}

/// One row of the table: a construct, how other languages write it, and
/// what XPR writes instead.
#[derive(Debug, Clone, Copy)]
pub struct TokenHint {
    /// The construct.
    pub construct: Construct,
    /// How other languages write it (for documentation).
    pub written: &'static str,
    /// The languages that write it so.
    pub languages: &'static str,
    /// The hint, naming XPR's spelling; `{name}` stands for the name
    /// written (the field of `.delay`, the variable of `$x`).
    pub hint: &'static str,
}

/// The token constructs of other languages and XPR's spelling of each.
#[rustfmt::skip]
pub static TOKEN_HINTS: &[TokenHint] = &[
    row(
        Construct::And,
        "a and b",
        "Python, SQL",
        "XPR writes `&&` for `and`",
    ),
    row(
        Construct::Or,
        "a or b",
        "Python, SQL",
        "XPR writes `||` for `or`",
    ),
    row(
        Construct::Not,
        "not x",
        "Python, SQL",
        "XPR writes `!` for `not`: `!x`, `!(a && b)`",
    ),
    row(
        Construct::In,
        "x in list, x IN (a, b)",
        "Python, SQL",
        "XPR has no `in` operator: write `list.includes(x)` or `[a, b].includes(x)`; for a string `text.contains(part)`, for an object `obj.has(key)`",
    ),
    row(
        Construct::NotIn,
        "x not in list",
        "Python, SQL",
        "XPR has no `not in`: write `!list.includes(x)`, for a string `!text.contains(part)`",
    ),
    row(
        Construct::Is,
        "x IS NULL, x is None, x IS NOT NULL",
        "SQL, Python",
        "XPR compares with `==` and `!=`: write `x == null` for `x IS NULL` or `x is None`, `x != null` for `IS NOT NULL`",
    ),
    row(
        Construct::Conditional,
        "a if cond else b",
        "Python",
        "XPR writes a conditional with the ternary operator: `cond ? a : b`, chained `c1 ? a : c2 ? b : d`",
    ),
    row(
        Construct::Case,
        "CASE WHEN c THEN a ELSE b END, if c then a else b end",
        "SQL, jq",
        "XPR writes a conditional with the ternary operator: `c ? a : b`, more cases `c1 ? a : c2 ? b : d`, for `CASE WHEN c THEN a ELSE b END` or `if c then a else b end`",
    ),
    row(
        Construct::Like,
        "name LIKE 'a%'",
        "SQL",
        "XPR has no `LIKE`: write `s.startsWith(p)`, `s.endsWith(p)`, `s.contains(p)`, or `matches(s, regex)`",
    ),
    row(
        Construct::Between,
        "x BETWEEN a AND b",
        "SQL",
        "XPR writes `x >= a && x <= b` for `x BETWEEN a AND b`",
    ),
    row(
        Construct::As,
        "CAST(x AS INT), expr AS name",
        "SQL",
        "XPR has no `AS`: convert with `int(x)`, `float(x)`, `string(x)` or `bool(x)`; name a value with an object key, `{name: expr}`",
    ),
    row(
        Construct::Comprehension,
        "[f(x) for x in xs if c]",
        "Python",
        "XPR has no comprehensions: write `xs.map(x => f(x))`, and `xs.filter(x => c)` for an `if` clause",
    ),
    row(
        Construct::Where,
        "... WHERE cond",
        "SQL",
        "XPR selects elements with `xs.filter(x => cond)`",
    ),
    row(
        Construct::InstanceOf,
        "x instanceof Array",
        "JavaScript",
        "XPR tests types with `type(x) == \"array\"` or `isArray(x)`, `isString(x)`, `isNumber(x)`, `isObject(x)`",
    ),
    row(
        Construct::Lambda,
        "lambda x: expr",
        "Python",
        "XPR writes a function as an arrow: `x => expr`, `(a, b) => expr`",
    ),
    row(
        Construct::Function,
        "function (x) { return expr }, def f(x)",
        "JavaScript, Python",
        "XPR writes a function as an arrow: `x => expr`, `(a, b) => expr`; its body is one expression, without braces or `return`",
    ),
    row(
        Construct::Return,
        "return expr",
        "JavaScript, Python",
        "XPR has no `return` or statement blocks: an arrow's body is one expression, `x => x.price * 2`",
    ),
    row(
        Construct::New,
        "new Date()",
        "JavaScript",
        "XPR has no `new` or classes: a date is a number of milliseconds, from `now()` or `parseDate(text)`; arrays are written `[...]`, objects `{...}`",
    ),
    row(
        Construct::TypeOf,
        "typeof x",
        "JavaScript",
        "XPR writes `type(x)` for `typeof x`; it returns \"number\", \"string\", \"boolean\", \"null\", \"array\" or \"object\"",
    ),
    row(
        Construct::Declaration,
        "const x = 1, var x = 1",
        "JavaScript",
        "XPR binds a name with `let name = value; body`",
    ),
    row(
        Construct::StrictEq,
        "a === b",
        "JavaScript",
        "XPR writes `==` for `===`: `==` never converts types",
    ),
    row(
        Construct::StrictNe,
        "a !== b",
        "JavaScript",
        "XPR writes `!=` for `!==`: `!=` never converts types",
    ),
    row(
        Construct::SqlNe,
        "a <> b",
        "SQL",
        "XPR writes `!=` for `<>`",
    ),
    row(
        Construct::Assign,
        "a = b",
        "SQL",
        "XPR compares with `==`; a single `=` only binds a name, in `let name = value; body`",
    ),
    row(
        Construct::FString,
        "f\"{a}-{b}\"",
        "Python",
        "XPR interpolates in a template literal, between backticks, with `${...}` around each expression: `${a}-${b}`",
    ),
    row(
        Construct::LeadingDot,
        ".field",
        "jq",
        "XPR names a field without the leading `.`: write `{name}`",
    ),
    row(
        Construct::JqInput,
        ". (the input), .[]",
        "jq",
        "XPR has no `.` for the whole input: name its fields; `xpr run --as NAME` also binds the whole record to NAME",
    ),
    row(
        Construct::Bar,
        "x | f",
        "jq, shell",
        "XPR pipes with `|>`: `x |> f(a)` is `f(x, a)`; a method is called as `x.m(a)` or `x |> m(a)`",
    ),
    row(
        Construct::Ampersand,
        "a & b",
        "Python, JavaScript, SQL",
        "XPR writes `&&` for and; it has no bitwise operators",
    ),
    row(
        Construct::Caret,
        "a ^ b",
        "SQL, spreadsheets",
        "XPR writes a power as `a ** b` or `pow(a, b)`; it has no bitwise operators",
    ),
    row(
        Construct::Dollar,
        "$name",
        "jq, shell",
        "XPR names have no `$`: write `{name}`, in a template literal `${{{name}}}`",
    ),
    row(
        Construct::DoubleSlash,
        "a // b",
        "Python, jq",
        "XPR has no `//`: write `floor(a / b)` for Python's floor division, `a ?? b` for jq's alternative, `b` when `a` is null",
    ),
    row(
        Construct::KeywordArgument,
        "f(x, key=value)",
        "Python",
        "XPR has no keyword arguments: pass the values in order; sort by a key with `xs.sortBy(x => key)`",
    ),
    row(
        Construct::SliceSyntax,
        "xs[1:3], s[:2]",
        "Python",
        "XPR slices with a method: `xs.slice(1, 3)`, `s.slice(0, 2)`, `xs.slice(-2)`; reverse with `xs.reverse()`",
    ),
    row(
        Construct::DoubledQuote,
        "'it''s'",
        "SQL",
        "XPR escapes a quote in a string with a backslash, 'it\\'s', or encloses it in the other quotes, \"it's\"",
    ),
    row(
        Construct::PgCast,
        "x::int",
        "PostgreSQL",
        "XPR converts with `int(x)`, `float(x)`, `string(x)` or `bool(x)`",
    ),
    row(
        Construct::From,
        "EXTRACT(YEAR FROM d), SELECT ... FROM t",
        "SQL",
        "XPR has no `FROM`: name the record's fields directly; `EXTRACT(YEAR FROM d)` is `year(d)`, `month(d)`, ...",
    ),
    row(
        Construct::JqInterpolation,
        "\"\\(.name)\"",
        "jq",
        "XPR interpolates in a template literal, between backticks, with `${...}` around each expression, not `\\(...)`",
    ),
];

const fn row(
    construct: Construct,
    written: &'static str,
    languages: &'static str,
    hint: &'static str,
) -> TokenHint {
    TokenHint {
        construct,
        written,
        languages,
        hint,
    }
}

impl Construct {
    /// The row of [`TOKEN_HINTS`] for this construct.
    pub fn row(self) -> Option<&'static TokenHint> {
        TOKEN_HINTS.iter().find(|r| r.construct == self)
    }

    /// The hint, with `{name}` replaced by `name` (a field, a variable)
    /// and `{{` by `{`.
    pub fn hint(self, name: &str) -> String {
        let text = self.row().map_or("", |r| r.hint);
        text.replace("{{", "\u{0}")
            .replace("{name}", name)
            .replace('\u{0}', "{")
            .replace("}}", "}")
    }
}
