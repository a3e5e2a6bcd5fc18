//! Other languages' argument counts, operand types and date format
//! tokens: what a built-in or operator is given where XPR expects
//! otherwise, and XPR's spelling.

/// Argument counts other languages give a built-in: `(name, count, hint)`.
#[rustfmt::skip]
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

/// A row of [`OPERANDS`]: operators, left and right operand types (as
/// `type()` names them; an empty list matches any), and the hint.
struct Operand {
    ops: &'static [&'static str],
    left: &'static [&'static str],
    right: &'static [&'static str],
    hint: &'static str,
}

const fn operand(
    ops: &'static [&'static str],
    left: &'static [&'static str],
    right: &'static [&'static str],
    hint: &'static str,
) -> Operand {
    Operand {
        ops,
        left,
        right,
        hint,
    }
}

/// Operand types other languages convert implicitly, or operators they
/// give other meanings; the first row that matches gives the hint.
#[rustfmt::skip]
static OPERANDS: &[Operand] = &[
    operand(&[], &["function"], &[], CALL_IT),
    operand(&[], &[], &["function"], CALL_IT),
    operand(&["+"], &["string"], &["number", "boolean"], CONVERT),
    operand(&["+"], &["number", "boolean"], &["string"], CONVERT),
    operand(&["*"], &["string"], &["number"], REPEAT),
    operand(&["*"], &["number"], &["string"], REPEAT),
    operand(&["+"], &["array"], &["array"], "XPR joins arrays with `xs.concat(ys)` or `[...xs, ...ys]`"),
    operand(&["+"], &["array"], &[], "XPR adds an element with `[...xs, x]`"),
    operand(&["+"], &["object"], &["object"], "XPR merges objects with `{...a, ...b}`"),
    operand(&["+", "<", "<=", ">", ">="], &["null"], &["string"], NULL_LEFT_TEXT),
    operand(&["+", "<", "<=", ">", ">="], &["string"], &["null"], NULL_RIGHT_TEXT),
    operand(&[], &["null"], &["null"], NULL_BOTH),
    operand(&[], &["null"], &[], NULL_LEFT),
    operand(&[], &[], &["null"], NULL_RIGHT),
    operand(&["-"], &["string"], &["string"], "XPR has no string subtraction; for dates, `dateDiff(parseDate(a), parseDate(b), \"days\")`"),
    operand(&[], &["string"], &["number"], "XPR does not convert implicitly: `float(s)` reads a number from a string"),
    operand(&[], &["number"], &["string"], "XPR does not convert implicitly: `float(s)` reads a number from a string"),
    operand(&[], &["boolean"], &["number"], "XPR does not convert booleans: write `b ? 1 : 0`"),
    operand(&[], &["number"], &["boolean"], "XPR does not convert booleans: write `b ? 1 : 0`"),
];

pub(super) const CALL_IT: &str =
    "a function is a value until it is called: add the parentheses, as in `now()`";
pub(super) const CONVERT: &str = "XPR does not convert implicitly: write `string(x)`, or a template literal between backticks, `${n} items`";
pub(super) const REPEAT: &str =
    "XPR repeats a string with `s.repeat(n)`; `float(s)` reads a number from one";
pub(super) const NULL_LEFT: &str = "the left operand is null: give it a default, `(x ?? 0)`";
pub(super) const NULL_RIGHT: &str = "the right operand is null: give it a default, `(x ?? 0)`";
/// The hint of a numeric built-in (`round`, `sqrt`, `pow`, ...) given a
/// null argument.
pub const NULL_ARGUMENT: &str = "the argument is null: give it a default, `(x ?? 0)`";
/// The hint of `-x` for a null `x`.
pub const NULL_NEGATED: &str = "the operand is null: give it a default, `-(x ?? 0)`";
pub(super) const NULL_BOTH: &str = "both operands are null: give them defaults, `(x ?? 0)`";
pub(super) const NULL_LEFT_TEXT: &str =
    "the left operand is null: give it a default, `(x ?? \"\")`";
pub(super) const NULL_RIGHT_TEXT: &str =
    "the right operand is null: give it a default, `(x ?? \"\")`";

/// Which operands of a binary operator were null, and the default to give
/// them, as read back from the hint [`operand_hint`] gave: for a host that
/// knows the source and can name the operand (`(properties.felt ?? 0) > 10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NullOperands {
    /// The left operand was null.
    pub left: bool,
    /// The right operand was null.
    pub right: bool,
    /// The default to write after `??`: `0`, or `""` beside a string.
    pub default: &'static str,
}

/// The null operands an operator's type error was about, when its hint is
/// one of [`operand_hint`]'s null hints, [`NULL_NEGATED`] or
/// [`NULL_ARGUMENT`] (the one operand of `-x`, the argument, counts as the
/// left); `None` for any other hint.
pub fn null_operands(hint: &str) -> Option<NullOperands> {
    let (left, right, default) = match hint {
        NULL_LEFT | NULL_NEGATED | NULL_ARGUMENT => (true, false, "0"),
        NULL_RIGHT => (false, true, "0"),
        NULL_BOTH => (true, true, "0"),
        NULL_LEFT_TEXT => (true, false, "\"\""),
        NULL_RIGHT_TEXT => (false, true, "\"\""),
        _ => return None,
    };
    Some(NullOperands {
        left,
        right,
        default,
    })
}

/// The hint for binary operator `symbol` applied to operands of types `a`
/// and `b` (as `type()` names them), which it does not accept: what
/// another language would have done implicitly (`"n = " + 5`,
/// `"ab" * 3`, `[1] + [2]`), or `None`.
pub fn operand_hint(symbol: &str, a: &str, b: &str) -> Option<&'static str> {
    let matches = |list: &[&str], x: &str| list.is_empty() || list.contains(&x);
    OPERANDS
        .iter()
        .find(|o| matches(o.ops, symbol) && matches(o.left, a) && matches(o.right, b))
        .map(|o| o.hint)
}

/// Date format tokens of other conventions and XPR's (ICU) token, tried
/// in order at each position (XPR's own tokens first, so that `yyyy` is
/// not read as two `yy`).
static DATE_TOKENS: &[(&str, &str)] = &[
    ("yyyy", "yyyy"),
    ("EEEE", "EEEE"),
    ("EEE", "EEE"),
    ("SSS", "SSS"),
    ("YYYY", "yyyy"),
    ("YY", "yyyy"),
    ("yy", "yyyy"),
    ("%Y", "yyyy"),
    ("%y", "yyyy"),
    ("%m", "MM"),
    ("%d", "dd"),
    ("%H", "HH"),
    ("%M", "mm"),
    ("%S", "ss"),
    ("%a", "EEE"),
    ("%A", "EEEE"),
    ("dddd", "EEEE"),
    ("ddd", "EEE"),
    ("dd", "dd"),
    ("DD", "dd"),
    ("D", "dd"),
    ("d", "dd"),
    ("MMMM", "MM"),
    ("MMM", "MM"),
    ("MM", "MM"),
    ("M", "MM"),
    ("HH", "HH"),
    ("hh", "HH"),
    ("H", "HH"),
    ("h", "HH"),
    ("mi", "mm"),
    ("ss", "ss"),
];

/// A `formatDate` / `parseDate` format written with another convention's
/// tokens (moment.js `YYYY-MM-DD`, `ddd`; strftime `%Y-%m-%d`; SQL `mi`;
/// single letters `d/M/yy`) rewritten with XPR's tokens, or `None` when
/// nothing is rewritten (or the format is longer than 200 bytes).
pub fn date_format_fix(format: &str) -> Option<String> {
    if format.len() > 200 {
        return None;
    }
    let mut fixed = String::new();
    let mut rest = format;
    let mut changed = false;
    // `mm` is minutes; without an hour, `yyyy-mm-dd` means months.
    let month = !format.contains(['H', 'h']) && !format.contains("MM");
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
                changed |= theirs != ours;
                continue 'outer;
            }
        }
        fixed.push(c);
        rest = &rest[c.len_utf8()..];
    }
    changed.then_some(fixed)
}

/// The hint for a `formatDate` / `parseDate` format written with another
/// convention's tokens: the format with XPR's tokens ([`date_format_fix`]).
/// `None` when the format has none of them.
pub fn date_format_hint(format: &str) -> Option<String> {
    date_format_fix(format).map(|fixed| {
        format!("XPR's date tokens are `yyyy MM dd HH mm ss SSS EEE EEEE`: write \"{fixed}\"")
    })
}
