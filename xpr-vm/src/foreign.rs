//! Names, functions and methods of other languages (Python, JavaScript,
//! SQL, jq) and how XPR writes each: `None` is `null`, `len(x)` is
//! `x.len()`, `parseInt(s)` is `int(s)`, `s.toUpperCase()` is `s.upper()`,
//! `Math.round(x)` is `round(x)`. One row of [`TABLE`] per mistake (per
//! spelling: JavaScript's `Math` and Python's `math` are two); the
//! compiler (unknown functions), the VM (unknown identifiers, methods a
//! value does not have) and `xpr check` consult it before the edit
//! distance of [`crate::suggest`].
//!
//! The operators and keywords of other languages (`and`, `===`, `IS NULL`,
//! `x if c else y`, jq's `.field`) are syntax errors: their rows are in
//! `xpr_syntax::foreign`, the other half of the table (each construct has
//! one row, in one of the two).
//!
//! Lookups return the hint alone (`write `.upper()``); callers attach it
//! with [`crate::Error::with_hint`], which shows it in parentheses after
//! the message.

use crate::stdlib;
use crate::suggest;

/// Where a name is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// Read as a variable: `None`, `Math` in `Math.round(x)`.
    Name,
    /// Called as a global function: `len(x)`, `parseInt(s)`.
    Function,
    /// Called as a method of a value whose type (as `type()` names it) is
    /// the one given, or of any value for `None`: `s.toUpperCase()`.
    Method(Option<&'static str>),
}

/// One row: a name as another language uses it, and XPR's spelling.
#[derive(Debug, Clone, Copy)]
pub struct Hint {
    /// The name (compared exactly; a name written with a capital letter
    /// also ignoring ASCII case, so `COALESCE` finds `coalesce`).
    pub name: &'static str,
    /// Where the name is used.
    pub site: Site,
    /// The languages that write it so.
    pub languages: &'static str,
    /// What XPR writes instead.
    pub hint: &'static str,
}

const fn name(name: &'static str, languages: &'static str, hint: &'static str) -> Hint {
    Hint {
        name,
        site: Site::Name,
        languages,
        hint,
    }
}

const fn function(name: &'static str, languages: &'static str, hint: &'static str) -> Hint {
    Hint {
        name,
        site: Site::Function,
        languages,
        hint,
    }
}

const fn method(
    name: &'static str,
    on: Option<&'static str>,
    languages: &'static str,
    hint: &'static str,
) -> Hint {
    Hint {
        name,
        site: Site::Method(on),
        languages,
        hint,
    }
}

const STRING: Option<&str> = Some("string");
const ARRAY: Option<&str> = Some("array");
const OBJECT: Option<&str> = Some("object");
const NUMBER: Option<&str> = Some("number");
const ANY: Option<&str> = None;

const MATH: &str = "XPR has no `Math` object: its math functions are global, `round(x)`, `floor(x)`, `ceil(x)`, `abs(x)`, `sqrt(x)`, `pow(x, y)`, `min(a, b)`, `max(a, b)`, `random()`, and the constants `PI`, `E`";
const NULL: &str = "XPR writes `null`";
const TO_STRING: &str = "XPR converts with `string(x)`";
const TO_FLOAT: &str = "XPR converts with `float(x)`, or `int(x)` to truncate";
const LENGTH: &str = "XPR writes `s.len()` for a string's length and `xs.length` for an array's";
const COALESCE: &str = "XPR writes `a ?? b`: `a` unless it is null, else `b`";
const SLICE: &str = "XPR writes `s.slice(start, end)`: character indices from 0, `end` excluded";
const FORMAT_DATE: &str = "XPR writes `formatDate(ms, \"yyyy-MM-dd HH:mm\")`: dates are numbers of milliseconds, tokens `yyyy MM dd HH mm ss SSS`";
const PARSE_DATE: &str = "XPR writes `parseDate(text)` for ISO 8601 text, `parseDate(text, \"dd/MM/yyyy\")` for other formats";
const NO_EFFECTS: &str = "XPR has no side effects: transform the elements with `xs.map(x => ...)`, select them with `xs.filter(x => ...)`";
const IMMUTABLE: &str =
    "XPR values cannot be changed: build a new array, `[...xs, x]` or `xs.concat([x])`";

/// The names, functions and methods of other languages, and XPR's spelling
/// of each.
pub static TABLE: &[Hint] = &[
    // ---- names read as variables
    name("None", "Python", NULL),
    name("nil", "Ruby, Lua, Go", NULL),
    name("undefined", "JavaScript", "XPR has no `undefined`: it writes `null`, which a missing property reads as"),
    name("NaN", "JavaScript, Python", "XPR numbers are finite: there is no `NaN`; a failed conversion is an error"),
    name("Infinity", "JavaScript", "XPR numbers are finite: there is no `Infinity`"),
    name("Math", "JavaScript", MATH),
    name("math", "Python", MATH),
    name("JSON", "JavaScript", "XPR has no `JSON` object: `string(v)` writes an array or object as JSON text; values read from JSON need no parsing"),
    name("Object", "JavaScript", "XPR has no `Object`: write `o.keys()`, `o.values()`, `o.entries()`, `fromEntries(pairs)`, `{...a, ...b}`"),
    name("Array", "JavaScript", "XPR has no `Array`: test with `isArray(x)`, build with `[...]` or `range(n)`"),
    name("Number", "JavaScript", "XPR has no `Number` object: convert with `float(x)` or `int(x)`, test with `isNumber(x)`"),
    name("String", "JavaScript", "XPR has no `String` object: convert with `string(x)`, test with `isString(x)`"),
    name("Date", "JavaScript", "XPR has no `Date` object: dates are numbers of milliseconds, from `now()` or `parseDate(text)`, read with `year(ms)`, `month(ms)`, ..., written with `formatDate(ms, format)`"),
    name("datetime", "Python", "XPR has no `datetime`: dates are numbers of milliseconds, from `now()` or `parseDate(text)`, read with `year(ms)`, `month(ms)`, ..., written with `formatDate(ms, format)`"),
    name("console", "JavaScript", "XPR has no console or other output: the value of the expression is its result"),
    name("this", "JavaScript", "XPR has no `this`: name the record's fields directly; `xpr run --as NAME` also binds the whole record to NAME"),
    name("self", "Python", "XPR has no `self`: name the record's fields directly; `xpr run --as NAME` also binds the whole record to NAME"),
    name("length", "jq", "XPR reads a length from its value: `xs.length` for an array, `s.len()` for a string"),
    name("str", "Python", "XPR's type names are strings: `type(x) == \"string\"`; convert with `string(x)`"),
    name("dict", "Python", "XPR's type names are strings: `type(x) == \"object\"`"),
    name("re", "Python", "XPR has regex literals, `/[0-9]+/i`, and `matches(s, re)`, `match(s, re)`, `matchAll(s, re)`, `replacePattern(s, re, new)`"),
    // ---- functions
    function("len", "Python", LENGTH),
    function("length", "SQL, jq", LENGTH),
    function("char_length", "SQL", LENGTH),
    function("str", "Python", TO_STRING),
    function("toString", "JavaScript", TO_STRING),
    function("tostring", "jq", TO_STRING),
    function("parseInt", "JavaScript", "XPR converts with `int(text)`"),
    function("parseFloat", "JavaScript", TO_FLOAT),
    function("Number", "JavaScript", TO_FLOAT),
    function("tonumber", "jq", TO_FLOAT),
    function("Boolean", "JavaScript", "XPR converts with `bool(x)`"),
    function("isinstance", "Python", "XPR tests types with `type(x) == \"string\"` or `isString(x)`, `isNumber(x)`, `isArray(x)`, `isObject(x)`"),
    function("typeof", "JavaScript", "XPR writes `type(x)`"),
    function("print", "Python", "XPR has no output: the value of the expression is its result"),
    function("sorted", "Python", "XPR writes `xs.sort()`, or `xs.sortBy(x => key)`"),
    function("reversed", "Python", "XPR writes `xs.reverse()`"),
    function("any", "Python", "XPR writes `xs.some(x => cond)`"),
    function("all", "Python", "XPR writes `xs.every(x => cond)`"),
    function("avg", "SQL", "XPR writes `xs.avg()`"),
    function("mean", "Python", "XPR writes `xs.avg()`"),
    function("coalesce", "SQL", COALESCE),
    function("ifnull", "SQL", COALESCE),
    function("nvl", "SQL", COALESCE),
    function("isnull", "SQL", COALESCE),
    function("concat", "SQL", "XPR joins strings with `+` or a template literal, `${a}${b}` between backticks; arrays with `xs.concat(ys)`"),
    function("substr", "SQL", SLICE),
    function("substring", "SQL", SLICE),
    function("not", "Python, SQL", "XPR writes `!` for not: `!(a > b)`"),
    function("if", "SQL, spreadsheets", "XPR writes `cond ? a : b`, the ternary operator"),
    function("iif", "SQL", "XPR writes `cond ? a : b`, the ternary operator"),
    function("select", "jq", "XPR writes jq's `select(cond)` as `xs.filter(x => cond)`"),
    function("test", "jq", "XPR writes `matches(text, regex)` or `/re/.test(text)`"),
    function("ascii_downcase", "jq", "XPR writes `s.lower()`"),
    function("ascii_upcase", "jq", "XPR writes `s.upper()`"),
    function("to_entries", "jq", "XPR writes `o.entries()`"),
    function("from_entries", "jq", "XPR writes `fromEntries(pairs)`"),
    function("strftime", "Python, SQL", FORMAT_DATE),
    function("date_format", "SQL", FORMAT_DATE),
    function("to_char", "SQL", FORMAT_DATE),
    function("strptime", "Python", PARSE_DATE),
    function("to_date", "SQL", PARSE_DATE),
    function("today", "SQL, spreadsheets", "XPR writes `now()`: the current instant in milliseconds"),
    function("isNaN", "JavaScript", "XPR numbers are never NaN: test a value with `isNumber(x)`; a failed `float(s)` is an error"),
    function("left", "SQL", "XPR writes `s.slice(0, n)`"),
    function("right", "SQL", "XPR writes `s.slice(-n)`"),
    function("instr", "SQL", "XPR writes `s.indexOf(part)`: from 0, -1 when absent"),
    function("strpos", "SQL", "XPR writes `s.indexOf(part)`: from 0, -1 when absent"),
    // ---- methods
    method("toUpperCase", ANY, "JavaScript", "write `.upper()`"),
    method("toLocaleUpperCase", ANY, "JavaScript", "write `.upper()`"),
    method("toLowerCase", ANY, "JavaScript", "write `.lower()`"),
    method("toLocaleLowerCase", ANY, "JavaScript", "write `.lower()`"),
    method("substring", ANY, "JavaScript", SLICE),
    method("substr", ANY, "JavaScript", SLICE),
    method("includes", STRING, "JavaScript", "for a string, write `.contains(part)`; `includes` is for arrays"),
    method("contains", ARRAY, "Java, C#", "for an array, write `.includes(x)`; `contains` is for strings"),
    method("length", ANY, "JavaScript", "`length` is a property, read without parentheses: `xs.length`, `s.length`; strings also have `s.len()`"),
    method("size", ANY, "Java, Ruby", "write `xs.length` for an array, `s.len()` for a string"),
    method("len", ARRAY, "Python", "for an array, write `xs.length`, a property, without parentheses"),
    method("toString", ANY, "JavaScript", TO_STRING),
    method("toFixed", ANY, "JavaScript", "XPR has no `toFixed`: round with `round(x * 100) / 100`, convert with `string(x)`"),
    method("strip", ANY, "Python", "write `.trim()`"),
    method("lstrip", ANY, "Python", "write `.trimStart()`"),
    method("trimLeft", ANY, "JavaScript", "write `.trimStart()`"),
    method("rstrip", ANY, "Python", "write `.trimEnd()`"),
    method("trimRight", ANY, "JavaScript", "write `.trimEnd()`"),
    method("find", STRING, "Python", "for a string, write `.indexOf(part)`, -1 when absent"),
    method("index", ANY, "Python", "write `.indexOf(x)`, -1 when absent"),
    method("join", STRING, "Python", "`join` is an array method: write `xs.join(sep)`"),
    method("format", STRING, "Python", "XPR interpolates with a template literal, `${expr}` between backticks"),
    method("replaceAll", ANY, "JavaScript", "write `.replace(old, new)`: it replaces every occurrence"),
    method("forEach", ANY, "JavaScript", NO_EFFECTS),
    method("each", ANY, "Ruby", NO_EFFECTS),
    method("append", ANY, "Python", IMMUTABLE),
    method("push", ANY, "JavaScript", IMMUTABLE),
    method("extend", ANY, "Python", "XPR values cannot be changed: write `xs.concat(ys)` or `[...xs, ...ys]`"),
    method("distinct", ANY, "SQL, Java", "write `.unique()`"),
    method("uniq", ANY, "Ruby", "write `.unique()`"),
    method("flatten", ANY, "Python, Ruby", "write `.flat()`"),
    method("average", ANY, "Java", "write `.avg()`"),
    method("mean", ANY, "Python", "write `.avg()`"),
    method("any", ANY, "Python, Ruby", "write `.some(x => cond)`"),
    method("all", ANY, "Python, Ruby", "write `.every(x => cond)`"),
    method("items", OBJECT, "Python", "write `.entries()`"),
    method("count", STRING, "Python", "XPR counts occurrences with `s.split(part).length - 1`"),
    method("isdigit", ANY, "Python", "XPR tests digits with `matches(s, /^[0-9]+$/)`"),
    method("isnumeric", ANY, "Python", "XPR tests digits with `matches(s, /^[0-9]+$/)`"),
    method("isalpha", ANY, "Python", "XPR tests letters with `matches(s, /^[a-zA-Z]+$/)`"),
    method("capitalize", ANY, "Python", "XPR writes `s.slice(0, 1).upper() + s.slice(1)`"),
    method("findIndex", ANY, "JavaScript", "XPR writes `xs.map(x => cond).indexOf(true)`"),
    method("at", ANY, "JavaScript", "XPR indexes from the end directly: `xs[-1]`"),
    method("has", ARRAY, "JavaScript", "for an array, write `.includes(x)`; `has` is for objects' keys"),
    method("get", OBJECT, "Python", "read `o.key` or `o[key]`, with a default `o[key] ?? d`"),
    method("hasOwnProperty", ANY, "JavaScript", "write `.has(key)`"),
    method("getFullYear", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `year(ms)`"),
    method("getMonth", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `month(ms)`, 1 to 12"),
    method("getDate", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `day(ms)`"),
    method("getHours", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `hour(ms)`"),
    method("getMinutes", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `minute(ms)`"),
    method("getSeconds", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `second(ms)`"),
    method("getTime", NUMBER, "JavaScript", "dates are numbers of milliseconds already"),
    method("toISOString", NUMBER, "JavaScript", "dates are numbers of milliseconds: write `formatDate(ms, \"yyyy-MM-ddTHH:mm:ss\")`"),
];

/// The row for `name` at `site`: the exact spelling; else, for a name
/// with a capital letter (SQL's `COALESCE`, `LOWER`), ignoring ASCII case.
/// A name in lower case matches only itself: `date` is a common field
/// name, not JavaScript's `Date`.
fn rows(name: &str, site: impl Fn(Site) -> bool + Copy) -> Option<&'static Hint> {
    TABLE
        .iter()
        .find(|h| site(h.site) && h.name == name)
        .or_else(|| {
            name.bytes().any(|b| b.is_ascii_uppercase()).then(|| {
                TABLE
                    .iter()
                    .find(|h| site(h.site) && h.name.eq_ignore_ascii_case(name))
            })?
        })
}

/// The hint for an unknown identifier (`None`, `Math`, `True`), or `None`.
pub fn name_hint(name: &str) -> Option<String> {
    if let Some(h) = rows(name, |s| s == Site::Name) {
        return Some(h.hint.to_string());
    }
    ["true", "false", "null"]
        .into_iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map(|k| format!("XPR writes `{k}`, in lower case"))
}

/// The hint for a call of `name`, which is no built-in or host function:
/// the table's row; else, for a plain call (not after `|>`), the method of
/// that name (`upper(s)` is `s.upper()`); else the built-in or host
/// function (or, after `|>`, method) it looks like a misspelling of
/// (`did you mean 'dateAdd'?`), ignoring case first.
pub fn function_hint<S: AsRef<str>>(name: &str, host: &[S], pipe: bool) -> Option<String> {
    if let Some(h) = rows(name, |s| s == Site::Function) {
        return Some(h.hint.to_string());
    }
    if !pipe {
        let method = stdlib::method_id(name)
            .map(stdlib::method_name)
            .or_else(|| stdlib::method_names().find(|m| m.eq_ignore_ascii_case(name)));
        if let Some(m) = method {
            return Some(format!(
                "'{m}' is a method: write x.{m}(...) or x |> {m}(...)"
            ));
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for n in stdlib::function_names() {
        names.push(n);
    }
    names.extend(host.iter().map(AsRef::as_ref));
    if pipe {
        for n in stdlib::method_names() {
            names.push(n);
        }
    }
    let near = names
        .iter()
        .find(|n| n.eq_ignore_ascii_case(name))
        .copied()
        .or_else(|| suggest::closest(name, names.iter().copied()))
        .or_else(|| contained(name, names.iter().copied()));
    if let Some(n) = near {
        return Some(format!("did you mean '{n}'?"));
    }
    // A misspelling of a row's name: that row's hint.
    let rows: Vec<&Hint> = TABLE.iter().filter(|h| h.site == Site::Function).collect();
    suggest::closest(name, rows.iter().map(|h| h.name))
        .and_then(|n| rows.iter().find(|h| h.name == n))
        .map(|h| h.hint.to_string())
}

/// The hint for calling method `name` on a value of type `receiver` (as
/// `type()` names it; `None` when the type is not known) that has no such
/// method: the table's row for that type (or any type); else the global
/// function of that name (`x.round()` is `round(x)`); else the method of
/// that type it looks like a misspelling of (ignoring case first), which
/// may be a row of the table (`lenght` is `length`, whose hint is given).
/// `None` when the type has that method.
pub fn method_hint(name: &str, receiver: Option<&str>) -> Option<String> {
    let applies = |s: Site| match s {
        Site::Method(None) => true,
        Site::Method(Some(t)) => receiver.is_none_or(|r| r == t),
        _ => false,
    };
    if receiver.is_some_and(|r| stdlib::type_has_method(r, name)) {
        return None;
    }
    let typed = |s: Site| matches!(s, Site::Method(Some(t)) if receiver == Some(t));
    if let Some(h) = rows(name, typed).or_else(|| rows(name, applies)) {
        return Some(h.hint.to_string());
    }
    if receiver == Some("null") {
        return None;
    }
    if let Some(f) = stdlib::function_names().find(|f| f.eq_ignore_ascii_case(name))
        && receiver.is_none_or(|r| !stdlib::type_has_method(r, f))
    {
        return Some(format!(
            "'{f}' is a function, not a method: write {f}(x) or x |> {f}()"
        ));
    }
    let methods: Vec<&str> = match receiver {
        Some(r) => stdlib::methods_of(r).collect(),
        None => stdlib::method_names().collect(),
    };
    if let Some(m) = methods.iter().find(|m| m.eq_ignore_ascii_case(name)) {
        return Some(format!("did you mean '{m}'?"));
    }
    let rows: Vec<&Hint> = TABLE.iter().filter(|h| applies(h.site)).collect();
    let candidates = methods.iter().copied().chain(rows.iter().map(|h| h.name));
    let near = suggest::closest(name, candidates)
        .or_else(|| contained(name, methods.iter().copied()))?;
    match rows.iter().find(|h| h.name == near) {
        Some(h) if !methods.contains(&near) => Some(h.hint.to_string()),
        _ => Some(format!("did you mean '{near}'?")),
    }
}

/// The longest of `names` (of 4 characters or more) that `name` contains,
/// ignoring ASCII case: another language's longer spelling of a built-in
/// (`uppercase` has `upper`, `formatDateTime` has `formatDate`).
fn contained<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    if name.len() > 64 {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    names
        .filter(|n| n.len() >= 4 && n.len() < name.len())
        .filter(|n| lower.contains(&n.to_ascii_lowercase()))
        .max_by_key(|n| n.len())
}

/// Argument counts other languages give a built-in: `(name, count, hint)`.
static ARITY: &[(&str, usize, &str)] = &[
    ("round", 2, "XPR's round takes no precision: `round(x * 100) / 100` rounds to 2 places"),
    ("min", 1, "for an array's smallest element write `xs.min()`, or `min(...xs)`"),
    ("max", 1, "for an array's largest element write `xs.max()`, or `max(...xs)`"),
    ("join", 0, "XPR's join needs its separator: `xs.join(\",\")`"),
    ("split", 0, "XPR's split needs its separator: `s.split(\" \")`, or a regex `s.split(/\\s+/)`"),
    ("split", 2, "XPR's split has no limit: `s.split(sep).take(n)`"),
    ("formatDate", 1, "XPR's formatDate needs its format: `formatDate(ms, \"yyyy-MM-dd\")`"),
    ("log", 2, "XPR's log is natural: `log(x) / log(base)`"),
];

/// The hint for calling built-in `name` (accepting `arity`) with `got`
/// arguments, where another language's version takes that many
/// (`round(x, 2)`, `max(xs)`), or `None`.
pub fn arity_hint(name: &str, arity: crate::Arity, got: usize) -> Option<&'static str> {
    // `min`/`max` as functions (two or more), not the array methods.
    if matches!(name, "min" | "max") && !arity.accepts(2) {
        return None;
    }
    ARITY
        .iter()
        .find(|(n, count, _)| *n == name && *count == got)
        .map(|(_, _, hint)| *hint)
}

/// Operand types other languages convert implicitly, or operators they
/// give other meanings: `(operators, left types, right types, hint)`; an
/// empty list matches any.
static OPERANDS: &[(&[&str], &[&str], &[&str], &str)] = &[
    (&[], &["function"], &[], CALL_IT),
    (&[], &[], &["function"], CALL_IT),
    (&["+"], &["string"], &["number", "boolean"], CONVERT),
    (&["+"], &["number", "boolean"], &["string"], CONVERT),
    (&["*"], &["string"], &["number"], REPEAT),
    (&["*"], &["number"], &["string"], REPEAT),
    (&["+"], &["array"], &["array"], "XPR joins arrays with `xs.concat(ys)` or `[...xs, ...ys]`"),
    (&["+"], &["array"], &[], "XPR adds an element with `[...xs, x]`"),
    (&["+"], &["object"], &["object"], "XPR merges objects with `{...a, ...b}`"),
    (&["+"], &["string", "null"], &["null", "string"], "a null operand: give it a default, `(x ?? \"\")`"),
    (&[], &["null"], &[], NULL_OPERAND),
    (&[], &[], &["null"], NULL_OPERAND),
    (&["-"], &["string"], &["string"], "XPR has no string subtraction; for dates, `dateDiff(parseDate(a), parseDate(b), \"days\")`"),
    (&[], &["string"], &["number"], "XPR does not convert implicitly: `float(s)` reads a number from a string"),
    (&[], &["number"], &["string"], "XPR does not convert implicitly: `float(s)` reads a number from a string"),
    (&[], &["boolean"], &["number"], "XPR does not convert booleans: write `b ? 1 : 0`"),
    (&[], &["number"], &["boolean"], "XPR does not convert booleans: write `b ? 1 : 0`"),
];

const CALL_IT: &str =
    "a function is a value until it is called: add the parentheses, as in `now()`";
const CONVERT: &str = "XPR does not convert implicitly: write `string(x)`, or a template literal between backticks, `${n} items`";
const REPEAT: &str =
    "XPR repeats a string with `s.repeat(n)`; `float(s)` reads a number from one";
const NULL_OPERAND: &str = "a null operand: give it a default, `(x ?? 0)`";

/// The hint for binary operator `symbol` applied to operands of types `a`
/// and `b` (as `type()` names them), which it does not accept: what
/// another language would have done implicitly (`"n = " + 5`,
/// `"ab" * 3`, `[1] + [2]`), or `None`.
pub fn operand_hint(symbol: &str, a: &str, b: &str) -> Option<&'static str> {
    let matches = |list: &[&str], x: &str| list.is_empty() || list.contains(&x);
    OPERANDS
        .iter()
        .find(|(ops, l, r, _)| matches(ops, symbol) && matches(l, a) && matches(r, b))
        .map(|(_, _, _, hint)| *hint)
}

/// Date format tokens of other conventions and XPR's (ICU) token.
static DATE_TOKENS: &[(&str, &str)] = &[
    ("YYYY", "yyyy"),
    ("YY", "yyyy"),
    ("DD", "dd"),
    ("%Y", "yyyy"),
    ("%m", "MM"),
    ("%d", "dd"),
    ("%H", "HH"),
    ("%M", "mm"),
    ("%S", "ss"),
    ("hh", "HH"),
    ("mi", "mm"),
];

/// The hint for a `formatDate` / `parseDate` format written with another
/// convention's tokens (moment.js `YYYY-MM-DD`, strftime `%Y-%m-%d`, SQL
/// `mi`), which XPR would copy as text: the format with XPR's tokens.
/// `None` when the format has none of them.
pub fn date_format_hint(format: &str) -> Option<String> {
    if format.len() > 200 {
        return None;
    }
    let mut fixed = String::new();
    let mut rest = format;
    let mut changed = false;
    // `mm` is minutes; without an hour, `yyyy-mm-dd` means months.
    let month = !format.contains("HH") && !format.contains("hh") && !format.contains("MM");
    'outer: while let Some(c) = rest.chars().next() {
        if month && let Some(after) = rest.strip_prefix("mm") {
            fixed.push_str("MM");
            rest = after;
            changed = true;
            continue;
        }
        for (theirs, ours) in DATE_TOKENS {
            if let Some(after) = rest.strip_prefix(theirs) {
                fixed.push_str(ours);
                rest = after;
                changed = true;
                continue 'outer;
            }
        }
        fixed.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then(|| {
        format!(
            "XPR's date tokens are `yyyy MM dd HH mm ss SSS` and other letters are copied as text: write \"{fixed}\""
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_unique_per_site() {
        for (i, a) in TABLE.iter().enumerate() {
            for b in TABLE.iter().skip(i + 1) {
                assert!(
                    !(a.name == b.name && a.site == b.site),
                    "two rows for {} at {:?}",
                    a.name,
                    a.site
                );
            }
        }
    }

    #[test]
    fn no_row_shadows_a_built_in() {
        for h in TABLE {
            match h.site {
                Site::Function => assert!(stdlib::function_id(h.name).is_none(), "{}", h.name),
                Site::Method(Some(t)) => {
                    assert!(!stdlib::type_has_method(t, h.name), "{}", h.name);
                }
                Site::Method(None) => assert!(stdlib::method_id(h.name).is_none(), "{}", h.name),
                Site::Name => {}
            }
        }
    }

    #[test]
    fn names_of_other_languages() {
        assert_eq!(name_hint("None").as_deref(), Some("XPR writes `null`"));
        assert!(name_hint("math").is_some_and(|h| h.contains("global")));
        assert!(name_hint("NONE").is_some_and(|h| h.contains("`null`")));
        // A field name in lower case is no other language's object.
        assert_eq!(name_hint("date"), None);
        assert_eq!(
            name_hint("TRUE").as_deref(),
            Some("XPR writes `true`, in lower case")
        );
        assert_eq!(name_hint("total"), None);
    }

    #[test]
    fn functions_of_other_languages() {
        let none: &[&str] = &[];
        let hint = |n| function_hint(n, none, false).unwrap_or_default();
        assert!(hint("str").contains("`string(x)`"));
        assert!(hint("parseFloat").contains("`float(x)`"));
        assert!(hint("COALESCE").contains("??"));
        assert!(hint("NVL").contains("??"));
        assert_eq!(
            hint("upper"),
            "'upper' is a method: write x.upper(...) or x |> upper(...)"
        );
        assert_eq!(
            hint("TRIM"),
            "'trim' is a method: write x.trim(...) or x |> trim(...)"
        );
        assert_eq!(hint("CEIL"), "did you mean 'ceil'?");
        assert_eq!(hint("dateadd"), "did you mean 'dateAdd'?");
        assert!(hint("parseInteger").contains("`int(text)`"));
        assert_eq!(function_hint("bonus", none, false), None);
        assert_eq!(hint("formatDateTime"), "did you mean 'formatDate'?");
        assert_eq!(
            function_hint("ciel", &["ceil"], true).as_deref(),
            Some("did you mean 'ceil'?")
        );
        assert_eq!(
            function_hint("flter", none, true).as_deref(),
            Some("did you mean 'filter'?")
        );
    }

    #[test]
    fn methods_of_other_languages() {
        let hint = |n, t| method_hint(n, t).unwrap_or_default();
        assert_eq!(hint("toLowerCase", Some("string")), "write `.lower()`");
        assert!(hint("includes", Some("string")).contains("`.contains(part)`"));
        assert!(hint("contains", Some("array")).contains("`.includes(x)`"));
        assert_eq!(method_hint("includes", Some("array")), None);
        assert!(hint("length", Some("array")).contains("without parentheses"));
        assert!(hint("lenhgt", Some("string")).contains("`s.len()`"));
        assert_eq!(hint("fitler", Some("array")), "did you mean 'filter'?");
        assert_eq!(hint("sortby", Some("array")), "did you mean 'sortBy'?");
        assert_eq!(hint("uppercase", Some("string")), "did you mean 'upper'?");
        assert_eq!(hint("startsWithIgnoreCase", None), "did you mean 'startsWith'?");
        assert!(hint("floor", Some("number")).contains("floor(x)"));
        assert_eq!(hint("getMonth", Some("string")), "");
        assert!(hint("getMonth", Some("number")).contains("month(ms)"));
        assert!(hint("getMonth", None).contains("month(ms)"));
        assert_eq!(method_hint("tset", Some("regex")).as_deref(), Some("did you mean 'test'?"));
        assert_eq!(method_hint("fitler", Some("null")), None);
    }

    #[test]
    fn date_tokens_of_other_conventions() {
        assert_eq!(
            date_format_hint("DD.MM.YYYY").as_deref(),
            Some(
                "XPR's date tokens are `yyyy MM dd HH mm ss SSS` and other letters are copied as text: write \"dd.MM.yyyy\""
            )
        );
        assert!(date_format_hint("%d/%m/%Y %H:%M").is_some_and(|h| h.contains("\"dd/MM/yyyy HH:mm\"")));
        assert_eq!(date_format_hint("yyyy-MM-dd HH:mm"), None);
        assert!(date_format_hint("yyyy-mm-dd").is_some_and(|h| h.contains("\"yyyy-MM-dd\"")));
        assert_eq!(date_format_hint("HH:mm"), None);
    }

    #[test]
    fn arities_and_operands_of_other_languages() {
        use crate::Arity;
        assert!(arity_hint("round", Arity::Exact(1), 2).is_some_and(|h| h.contains("* 100")));
        assert!(arity_hint("max", Arity::AtLeast(2), 1).is_some_and(|h| h.contains("xs.max()")));
        assert_eq!(arity_hint("max", Arity::Exact(0), 1), None);
        assert_eq!(arity_hint("round", Arity::Exact(1), 3), None);
        assert_eq!(operand_hint("+", "string", "number"), Some(CONVERT));
        assert_eq!(operand_hint("*", "string", "number"), Some(REPEAT));
        assert_eq!(operand_hint("-", "function", "number"), Some(CALL_IT));
        assert_eq!(operand_hint("+", "array", "number"), Some("XPR adds an element with `[...xs, x]`"));
        assert_eq!(operand_hint("<", "null", "number"), Some(NULL_OPERAND));
        assert_eq!(operand_hint("-", "regex", "regex"), None);
    }
}
