//! The flags `--group-by` and `--agg` of `xpr run`, parsed with XPR's own
//! parser: `--agg 'total: sum(distance), n: count()'` is read as the
//! object literal `{total: sum(distance), n: count()}`, each property a
//! call of an aggregate's name; `--group-by 'origin, dest: destination'`
//! as an object literal, or (for bare expressions) as an array literal
//! whose elements name themselves (`origin`, `properties.net` -> `net`).
//! Each key and each aggregate's argument is then compiled on its own, as
//! a program with the run's engine (limits, `--allow`, `--deny`).

use xpr::{Engine, Program, render_error};
use xpr_syntax::ast::{Element, Expr, ExprKind, Property};

use super::super::Exit;

/// Distinct values `countDistinct` keeps per group unless told otherwise.
pub(super) const DISTINCT_BOUND: usize = 10_000;
/// Values `collect` keeps per group unless told otherwise.
pub(super) const COLLECT_BOUND: usize = 1_000;

/// The aggregate functions, in the order the help lists them.
pub(super) const NAMES: [&str; 9] = [
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "first",
    "last",
    "countDistinct",
    "collect",
];

/// What an aggregate computes over a group's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `count()`: records; `count(x)`: records where `x` is not null.
    Count,
    /// `sum(x)`: exact sum of the numbers, rounded once; null when none.
    Sum,
    /// `avg(x)`: `sum / count` of the numbers; null when none.
    Avg,
    /// `min(x)`, `max(x)`: of the numbers; null when none.
    Min,
    /// See [`Kind::Min`].
    Max,
    /// `first(x)`, `last(x)`: the value of the group's first (last)
    /// record in input order, null included.
    First,
    /// See [`Kind::First`].
    Last,
    /// `countDistinct(x, bound?)`: distinct non-null values (by `==`).
    CountDistinct(usize),
    /// `collect(x, bound?)`: every value, null included, in input order.
    Collect(usize),
}

/// One expression of the run, compiled: a key of `--group-by` or the
/// argument of an aggregate.
pub(super) struct Part {
    /// The output field it is for (a key's, or an aggregate's).
    pub(super) name: String,
    /// Its text, for error carets.
    pub(super) source: String,
    pub(super) program: Program,
    /// The field it reads, when it is nothing but a field's name (read
    /// without running the program when the record has it).
    pub(super) field: Option<String>,
}

/// One aggregate of `--agg`.
pub(super) struct Agg {
    /// The output field.
    pub(super) name: String,
    pub(super) kind: Kind,
    /// Its argument's index among the run's parts; `None` for `count()`.
    pub(super) arg: Option<usize>,
}

/// What `--group-by` and `--agg` ask for.
pub(super) struct Spec {
    /// The key fields' names, with their parts `0 .. keys.len()`.
    pub(super) keys: Vec<String>,
    pub(super) aggs: Vec<Agg>,
    /// Keys' expressions first, then the aggregates' arguments.
    pub(super) parts: Vec<Part>,
}

impl Spec {
    /// Parses and compiles both flags.
    ///
    /// # Errors
    /// Status 2 for a list that does not parse or names no aggregate
    /// properly; status 1 for a part that does not compile.
    pub(super) fn new(engine: &Engine, group_by: Option<&str>, agg: &str) -> Result<Spec, Exit> {
        let mut spec = Spec {
            keys: Vec::new(),
            aggs: Vec::new(),
            parts: Vec::new(),
        };
        if let Some(text) = group_by {
            for (name, source) in key_items(text, true)? {
                spec.add_part(engine, &name, source)?;
                spec.keys.push(name);
            }
        }
        let wrapped = format!("{{{agg}}}");
        let ast = xpr_syntax::parse(&wrapped).map_err(|e| {
            Exit::usage(format_args!(
                "--agg: {} (expected a list such as 'total: sum(distance), n: count()')",
                shifted(&e.to_string(), agg)
            ))
        })?;
        let ExprKind::Object(props) = &ast.kind else {
            return Err(Exit::usage(
                "--agg: expected a list such as 'total: sum(distance), n: count()'",
            ));
        };
        for p in props {
            let Property::KeyValue { key, value } = p else {
                return Err(Exit::usage("--agg: a spread (...) is not an aggregate"));
            };
            let (kind, arg) = aggregate(&key.name, value, &wrapped)?;
            let arg = match arg {
                Some(source) => Some(spec.add_part(engine, &key.name, source)?),
                None => None,
            };
            spec.aggs.push(Agg {
                name: key.name.clone(),
                kind,
                arg,
            });
        }
        if spec.aggs.is_empty() {
            return Err(Exit::usage(
                "--agg: no aggregate (write a list such as 'total: sum(distance), n: count()')",
            ));
        }
        // Each output field once; a second one says which flags name it.
        let flags = (spec.keys.iter().map(|k| (k, "--group-by")))
            .chain(spec.aggs.iter().map(|a| (&a.name, "--agg")));
        let mut names: Vec<(&str, &str)> = Vec::new();
        for (name, flag) in flags {
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == name.as_str()) {
                let place = if *first == flag {
                    format!("twice in {flag}")
                } else {
                    format!("in {first} and in {flag}")
                };
                return Err(Exit::usage(format_args!(
                    "the output field '{name}' is named {place} (give one another name: 'NAME: EXPR')"
                )));
            }
            names.push((name, flag));
        }
        Ok(spec)
    }

    /// Compiles `source` as the next part, for the output field `name`.
    fn add_part(&mut self, engine: &Engine, name: &str, source: String) -> Result<usize, Exit> {
        let program = engine.compile(&source).map_err(|e| {
            let rendered = render_error(&e, &source);
            let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            Exit::expression(format!("error: {name}: {body}"))
        })?;
        let field = match xpr_syntax::parse(&source).map(|e| e.kind) {
            Ok(ExprKind::Ident(n))
                if program
                    .context_names()
                    .iter()
                    .map(|k| &**k)
                    .eq([n.as_str()]) =>
            {
                Some(n)
            }
            _ => None,
        };
        self.parts.push(Part {
            name: name.to_string(),
            source,
            program,
            field,
        });
        Ok(self.parts.len() - 1)
    }
}

/// A parse error's text in `text` (which was parsed inside a wrapping
/// `{}` or `[]`): positions taken back by the one character the opening
/// bracket added, and the closing one read as the end of the list.
fn shifted(message: &str, text: &str) -> String {
    let Some((head, n)) = message.rsplit_once(" at position ") else {
        return message.to_string();
    };
    let Ok(n) = n.parse::<usize>() else {
        return message.to_string();
    };
    let end = text.chars().count();
    if n > end && head.starts_with("Unexpected token") {
        return format!("Unexpected end of the list at position {end}");
    }
    format!("{head} at position {}", n.saturating_sub(1))
}

/// The text of `e` in `source` (spans are in characters).
fn text_of(source: &str, e: &Expr) -> String {
    source
        .chars()
        .skip(e.span.start as usize)
        .take(e.span.end.saturating_sub(e.span.start) as usize)
        .collect()
}

/// The named key expressions of `--group-by TEXT`; `split`: a list that
/// parses neither as an object nor as an array literal may be tried item
/// by item (once: not within an item).
fn key_items(text: &str, split: bool) -> Result<Vec<(String, String)>, Exit> {
    let object = format!("{{{text}}}");
    let parsed = xpr_syntax::parse(&object);
    if let Ok(ast) = &parsed
        && let ExprKind::Object(props) = &ast.kind
    {
        return props
            .iter()
            .map(|p| match p {
                Property::KeyValue { key, value } => {
                    Ok((key.name.clone(), text_of(&object, value)))
                }
                Property::Spread(..) => Err(Exit::usage("--group-by: a spread (...) is no key")),
            })
            .collect();
    }
    let array = format!("[{text}]");
    let pieces = if split { split_list(text) } else { Vec::new() };
    if pieces.len() > 1 && xpr_syntax::parse(&array).is_err() {
        // A list that names some keys and not others: each item alone.
        let items: Option<Vec<_>> = pieces
            .into_iter()
            .map(|item| key_items(item, false).ok().filter(|v| v.len() == 1))
            .collect();
        if let Some(items) = items {
            return Ok(items.into_iter().flatten().collect());
        }
    }
    let ast = xpr_syntax::parse(&array).map_err(|e| {
        // Read as `NAME: EXPR, ...` or as a list of fields, whichever got
        // further (`k: 1 +` fails at its end, not at the colon).
        let e = match parsed {
            Err(o) if o.span.start > e.span.start => o,
            _ => e,
        };
        Exit::usage(format_args!(
            "--group-by: {} (expected expressions, each `NAME: EXPR` or a field such as `origin`)",
            shifted(&e.to_string(), text)
        ))
    })?;
    let ExprKind::Array(items) = &ast.kind else {
        return Err(Exit::usage("--group-by: expected a list of expressions"));
    };
    items
        .iter()
        .map(|item| {
            let Element::Expr(e) = item else {
                return Err(Exit::usage("--group-by: a spread (...) is no key"));
            };
            let source = text_of(&array, e);
            match own_name(e) {
                Some(name) => Ok((name, source)),
                None => Err(Exit::usage(format_args!(
                    "--group-by: give the key '{source}' a name: 'NAME: {source}'"
                ))),
            }
        })
        .collect()
}

/// The items of a comma-separated list: split at the commas outside
/// brackets and string or template literals (each item is then parsed,
/// so a wrong split only fails).
fn split_list(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0i32, None, false, 0);
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// The name a key expression gives itself: a field's (`origin`), or the
/// last property of a path (`properties.net` -> `net`).
fn own_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(name) => Some(name.clone()),
        ExprKind::Member { property, .. } => Some(property.name.clone()),
        ExprKind::OptionalChain(inner) => own_name(inner),
        _ => None,
    }
}

/// The aggregate of the property `name: value` (a call of an aggregate's
/// name) and its argument's text.
fn aggregate(name: &str, value: &Expr, source: &str) -> Result<(Kind, Option<String>), Exit> {
    let ExprKind::Call {
        callee,
        args,
        optional: false,
    } = &value.kind
    else {
        return Err(Exit::usage(format_args!(
            "--agg: '{name}' must be an aggregate's call, such as sum(distance): one of {}",
            NAMES.join(", ")
        )));
    };
    let ExprKind::Ident(function) = &callee.kind else {
        return Err(Exit::usage(format_args!(
            "--agg: '{name}' must call an aggregate by its name: one of {}",
            NAMES.join(", ")
        )));
    };
    let mut exprs = Vec::new();
    for a in args {
        match a {
            Element::Expr(e) => exprs.push(e),
            Element::Spread(..) => {
                return Err(Exit::usage(format_args!(
                    "--agg: {function}() takes no spread (...)"
                )));
            }
        }
    }
    let arity = |lo: usize, hi: usize, form: &str| {
        if (lo..=hi).contains(&exprs.len()) {
            Ok(())
        } else {
            Err(Exit::usage(format_args!("--agg: '{name}': write {form}")))
        }
    };
    let bound = |default: usize| -> Result<usize, Exit> {
        let Some(e) = exprs.get(1) else {
            return Ok(default);
        };
        match e.kind {
            ExprKind::Number(n) if n >= 1.0 && n.fract() == 0.0 && n <= 1e9 => Ok(n as usize),
            _ => Err(Exit::usage(format_args!(
                "--agg: '{name}': {function}'s bound must be a whole number from 1 to 1000000000, \
                 written as a number"
            ))),
        }
    };
    let kind = match function.as_str() {
        "count" => {
            arity(
                0,
                1,
                "count() for records, count(x) for records where x is not null",
            )?;
            Kind::Count
        }
        "sum" | "avg" | "min" | "max" | "first" | "last" => {
            arity(1, 1, &format!("{function}(EXPR)"))?;
            match function.as_str() {
                "sum" => Kind::Sum,
                "avg" => Kind::Avg,
                "min" => Kind::Min,
                "max" => Kind::Max,
                "first" => Kind::First,
                _ => Kind::Last,
            }
        }
        "countDistinct" => {
            arity(1, 2, "countDistinct(EXPR) or countDistinct(EXPR, BOUND)")?;
            Kind::CountDistinct(bound(DISTINCT_BOUND)?)
        }
        "collect" => {
            arity(1, 2, "collect(EXPR) or collect(EXPR, BOUND)")?;
            Kind::Collect(bound(COLLECT_BOUND)?)
        }
        other => {
            let hint = xpr_vm::suggest::closest(other, NAMES.iter().copied())
                .map(|n| format!(" (did you mean '{n}'?)"))
                .unwrap_or_default();
            return Err(Exit::usage(format_args!(
                "--agg: '{other}' is no aggregate{hint}: one of {}",
                NAMES.join(", ")
            )));
        }
    };
    Ok((kind, exprs.first().map(|e| text_of(source, e))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(group_by: Option<&str>, agg: &str) -> Result<Spec, String> {
        Spec::new(&Engine::new(), group_by, agg).map_err(|e| e.message.unwrap_or_default())
    }

    #[test]
    fn lists_parse_into_named_parts() {
        let s = spec(
            Some("origin, properties?.net"),
            "total: sum(distance * 2), n: count(), d: countDistinct(x, 5), \"all\": collect(y)",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.keys, ["origin", "net"]);
        let sources: Vec<&str> = s.parts.iter().map(|p| p.source.as_str()).collect();
        assert_eq!(
            sources,
            ["origin", "properties?.net", "distance * 2", "x", "y"]
        );
        let kinds: Vec<Kind> = s.aggs.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::Sum,
                Kind::Count,
                Kind::CountDistinct(5),
                Kind::Collect(COLLECT_BOUND)
            ]
        );
        assert_eq!(s.aggs[1].arg, None);
        let named = spec(Some("o: origin, late: delay > 15"), "n: count()")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(named.keys, ["o", "late"]);
    }

    #[test]
    fn mistakes_are_named() {
        let e = |g: Option<&str>, a: &str| spec(g, a).err().unwrap_or_default();
        assert!(
            e(None, "t: summ(x)").contains("did you mean 'sum'"),
            "{}",
            e(None, "t: summ(x)")
        );
        assert!(e(None, "t: sum(x, 2)").contains("write sum(EXPR)"));
        assert!(e(None, "t: x + 1").contains("must be an aggregate's call"));
        assert!(e(None, "t: collect(x, y)").contains("bound must be a whole number"));
        assert!(e(None, "t: sum(").contains("--agg: "));
        assert!(e(Some("delay > 15"), "n: count()").contains("give the key 'delay > 15' a name"));
        assert!(e(Some("n"), "n: count()").contains("'n' is named in --group-by and in --agg"));
        assert!(e(Some("a.x, b.x"), "n: count()").contains("'x' is named twice in --group-by"));
        assert!(
            e(None, "n: count(), n: sum(x)")
                .contains("'n' is named twice in --agg (give one another name: 'NAME: EXPR')")
        );
        assert!(e(None, "").contains("no aggregate"));
        // What parses in no way is an error, not a search (it recursed
        // for ever once).
        assert!(
            e(Some("delay >"), "n: count()")
                .contains("--group-by: Unexpected end of the list at position 7")
        );
        assert!(e(None, "t: sum(x").contains("--agg: Unexpected end of the list at position 8"));
        assert!(e(Some("a, b >, c"), "n: count()").contains("--group-by: Unexpected"));
        // A named key that does not parse: the error at its end.
        assert!(
            e(Some("k: 1 +"), "n: count()")
                .contains("--group-by: Unexpected end of the list at position 6"),
            "{}",
            e(Some("k: 1 +"), "n: count()")
        );
        assert!(e(Some("k: (a"), "n: count()").contains("at position 5"));
        assert!(e(Some(&"{".repeat(100_000)), "n: count()").contains("length limit"));
    }
}
