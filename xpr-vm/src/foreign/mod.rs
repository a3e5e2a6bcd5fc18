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

//!
//! The table is in `table.rs`; argument counts, operand types and date
//! format tokens of other languages in `operations.rs`.

mod operations;
mod table;

pub use operations::{
    NULL_ARGUMENT, NULL_NEGATED, NullOperands, arity_hint, date_format_fix, date_format_hint,
    null_operands, operand_hint,
};
pub use table::TABLE;

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
    let near =
        suggest::closest(name, candidates).or_else(|| contained(name, methods.iter().copied()))?;
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

#[cfg(test)]
mod tests;
