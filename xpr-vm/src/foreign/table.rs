//! The rows of [`TABLE`]: names, functions and methods of other languages
//! and XPR's spelling of each, one row per spelling and site.

use super::{Hint, Site};

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

#[rustfmt::skip]
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
