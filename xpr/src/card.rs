//! The language card: a compact description of XPR for an LLM's system
//! prompt (the syntax in a few lines, every built-in with its signature and
//! meaning, worked examples, the mistakes writers of other languages make).
//!
//! The built-ins are read from the registry ([`xpr_vm::stdlib::catalog`])
//! and from the engine's host functions, so the card lists exactly what an
//! expression can call; the syntax, examples and mistakes are this module's
//! text, and tests evaluate every example and every correction.

use std::fmt;

use xpr_vm::Arity;
use xpr_vm::stdlib::catalog::{self, Topic};

use crate::Engine;

/// The card's opening: what an XPR program is.
const INTRO: &str = "# XPR language card
An XPR program is one expression, evaluated against a JSON object (the context) \
whose top-level fields are its variables; its result is a JSON value. There are \
no statements, loops, assignment, comments, I/O or imports.";

/// The syntax, one line a construct.
const SYNTAX: &[&str] = &[
    "Literals: 42, -1.5, 1e3 (numbers are doubles); \"text\" or 'text'; true, false, null; \
     [1, \"a\"]; {\"k\": 1, name: 2}; regex /ab+c/i",
    "Template: `Hi ${user.name}, ${n + 1} new`",
    "Operators: + - * / % ** (+ also joins two strings; nothing converts implicitly: \
     \"a\" + 1 is an error); == != < > <= >= (strict; arrays and objects by content); \
     && || ! (short-circuit); a ?? b (b when a is null); cond ? a : b",
    "Access: o.k, o[\"k\"], a[0], a[-1] (last); a missing key or index is null; \
     o?.k and f?.(x) are null when o or f is null",
    "Functions: x => x * 2, (acc, x) => acc + x, ({name}) => name, (first, ...rest) => rest; \
     the body is one expression",
    "let: let t = price * qty; t > 100 (immutable; the expression after ; is the result)",
    "Destructuring: let {id, tags: [first, ...more], note = \"none\"} = o; first",
    "Spread: [...a, 4], {...o, k: 1}, f(...args)",
    "Pipe (lowest precedence): x |> f(y) is f(x, y), or the method x.f(y)",
    "Falsy: false, null, 0, \"\"; all else is truthy. Division by zero is an error. \
     A method call needs its parentheses.",
];

/// What a parameter's name tells about its type, in every signature.
const PARAMETERS: &str = "Parameter names give types: n n1 n2 p i start end step size width \
amount: number; date from to: a date (number, UTC epoch ms); s sub sep old new text format \
unit key fill replacement: string; pattern: string or regex; re: regex; fn cmp: function; \
v init: any; other pairs: array. name? is optional, ...more is any number more.";

/// A worked example: an expression and its result, as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardExample {
    /// The expression (it needs no context).
    pub expression: &'static str,
    /// What it evaluates to, as compact JSON (`xpr::to_json_string`).
    pub result: &'static str,
}

const EXAMPLES: &[CardExample] = &[
    CardExample {
        expression: "[{\"name\": \"pen\", \"price\": 3}, {\"name\": \"desk\", \"price\": 120}]\
                     .filter(x => x.price > 50).map(x => x.name)",
        result: "[\"desk\"]",
    },
    CardExample {
        expression: "let qty = 3; let price = 2.5; qty * price > 5 ? \"big\" : \"small\"",
        result: "\"big\"",
    },
    CardExample {
        expression: "`${\"ada\".upper()} has ${[1, 2, 3].length} items`",
        result: "\"ADA has 3 items\"",
    },
    CardExample {
        expression: "{\"user\": null}.user?.address?.city ?? \"unknown\"",
        result: "\"unknown\"",
    },
    CardExample {
        expression: "[3, 1, 2] |> sortBy(x => -x) |> take(2)",
        result: "[3,2]",
    },
    CardExample {
        expression: "[1, 2, 3, 4].reduce((acc, x) => acc + x, 0)",
        result: "10",
    },
    CardExample {
        expression: "{\"b\": 2, \"a\": 1}.entries().map(([k, v]) => k + \"=\" + string(v)).join(\"&\")",
        result: "\"a=1&b=2\"",
    },
    CardExample {
        expression: "let {id, tags: [first, ...rest]} = {\"id\": 7, \"tags\": [\"a\", \"b\", \"c\"]}; \
                     [id, first, rest]",
        result: "[7,\"a\",[\"b\",\"c\"]]",
    },
    CardExample {
        expression: "floor(7 / 2) + 7 % 2 + int(\"10\")",
        result: "14",
    },
    CardExample {
        expression: "\"2024-01-15\".replace(/(\\d+)-(\\d+)-(\\d+)/, \"$3/$2/$1\")",
        result: "\"15/01/2024\"",
    },
    CardExample {
        expression: "/^order-\\d+$/.test(\"order-123\")",
        result: "true",
    },
    CardExample {
        expression: "formatDate(dateAdd(parseDate(\"2024-01-31\"), 1, \"months\"), \"yyyy-MM-dd\")",
        result: "\"2024-03-02\"",
    },
];

/// A construct of another language and its XPR form, pairwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardMistake {
    /// The XPR forms.
    pub right: &'static [&'static str],
    /// What writers of JavaScript, Python or SQL write instead, one per
    /// entry of `right`.
    pub wrong: &'static [&'static str],
}

const MISTAKES: &[CardMistake] = &[
    CardMistake {
        right: &["a && b", "a || b", "!a"],
        wrong: &["a and b", "a or b", "not a"],
    },
    CardMistake {
        right: &["a == b", "x == null"],
        wrong: &["a === b", "x IS NULL"],
    },
    CardMistake {
        right: &["c ? x : y"],
        wrong: &["x if c else y"],
    },
    CardMistake {
        right: &["list.includes(x)"],
        wrong: &["x in list"],
    },
    CardMistake {
        right: &["floor(a / b)"],
        wrong: &["a // b"],
    },
    CardMistake {
        right: &["null", "true"],
        wrong: &["None", "True"],
    },
    CardMistake {
        right: &["`${a}-${b}`", "string(b)", "int(t)"],
        wrong: &["f\"{a}-{b}\"", "str(b)", "parseInt(t)"],
    },
    CardMistake {
        right: &["s.upper()", "s.len()", "s.contains(t)", "s.slice(i, j)"],
        wrong: &[
            "s.toUpperCase()",
            "len(s)",
            "s.includes(t)",
            "s.substring(i, j)",
        ],
    },
    CardMistake {
        right: &["round(x)", "round(x * 100) / 100"],
        wrong: &["Math.round(x)", "x.toFixed(2)"],
    },
    CardMistake {
        right: &["list.map(x => x * 2)"],
        wrong: &["list.map(lambda x: x * 2)"],
    },
    CardMistake {
        right: &["s.lower() == \"ab\""],
        wrong: &["s.lower == \"ab\""],
    },
];

/// One built-in or host function as the card lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardEntry {
    /// The name it is called by.
    pub name: String,
    /// For a method, its receiver's type (`"string"`, `"array"`,
    /// `"object"`, `"regex"`); `None` for a global function.
    pub receiver: Option<&'static str>,
    /// Its group: a topic's name (`"strings"`, `"arrays"`, `"objects"`,
    /// `"numbers"`, `"dates"`, `"regex"`, `"types"`), or `"host"` for a
    /// function the engine registered.
    pub group: &'static str,
    /// Parameters and result after the name: `(start, end?) -> string`.
    pub sig: String,
    /// What it does, in one line.
    pub doc: String,
}

impl CardEntry {
    /// The call as the card writes it, `s.slice(start, end?) -> string`
    /// (each alternative of a signature gets the name).
    pub fn call(&self) -> String {
        let prefix = match self.receiver {
            Some(r) => format!("{}.{}", receiver_variable(r), self.name),
            None => self.name.clone(),
        };
        let (params, result) = self.sig.rsplit_once(" -> ").unwrap_or((&self.sig, "any"));
        let alternatives: Vec<String> = params
            .split(" | ")
            .map(|alt| format!("{prefix}{alt}"))
            .collect();
        format!("{} -> {result}", alternatives.join(" | "))
    }
}

/// The variable the card calls a receiver of this type by.
fn receiver_variable(receiver: &str) -> &'static str {
    match receiver {
        "string" => "s",
        "array" => "a",
        "object" => "o",
        "regex" => "re",
        _ => "v",
    }
}

/// The heading of a group.
fn heading(group: &str) -> &'static str {
    match group {
        "strings" => "Strings (methods of a string s)",
        "arrays" => "Arrays (methods of an array a; a.length is its size; fn gets one element)",
        "objects" => "Objects (methods of an object o)",
        "numbers" => "Numbers (also the constants PI and E)",
        "dates" => {
            "Dates (a date is a number of milliseconds since 1970, UTC; units: years, months, \
             days, hours, minutes, seconds, milliseconds)"
        }
        "regex" => "Regex (literals /pattern/flags with RE2 syntax, flags i m s)",
        "types" => "Types",
        _ => "Host functions",
    }
}

/// The language card of an engine: what [`card`] prints, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// Every built-in and host function listed, grouped (strings, arrays,
    /// objects, numbers, dates, regex, types, host), each group in
    /// registration order.
    pub entries: Vec<CardEntry>,
    /// The worked examples kept (those calling only listed functions).
    pub examples: Vec<CardExample>,
    /// The corrections kept (those whose XPR forms call only listed
    /// functions).
    pub mistakes: Vec<CardMistake>,
}

impl Card {
    /// The card of every built-in and host function the engine allows
    /// ([`Engine::allow_only`], [`Engine::deny`]).
    pub fn new(engine: &Engine) -> Card {
        Card::with_filter(engine, |_| true)
    }

    /// The card of the functions the engine allows ([`Engine::is_allowed`])
    /// and `allowed` accepts: the others are not listed, and the examples
    /// and corrections that call one of them are left out.
    pub fn with_filter(engine: &Engine, allowed: impl Fn(&CardEntry) -> bool) -> Card {
        let mut all: Vec<CardEntry> = Vec::new();
        for topic in Topic::ALL {
            for b in catalog::builtins().into_iter().filter(|b| b.topic == topic) {
                all.push(CardEntry {
                    name: b.name.to_string(),
                    receiver: b.receiver,
                    group: topic.name(),
                    sig: b.sig.to_string(),
                    doc: b.doc.to_string(),
                });
            }
        }
        for (h, described) in engine.host_entries() {
            let (sig, doc) = match described {
                Some((sig, doc)) => (sig.clone(), doc.clone()),
                None => (arity_sig(h.arity), "host function".to_string()),
            };
            all.push(CardEntry {
                name: h.name.clone(),
                receiver: None,
                group: "host",
                sig,
                doc,
            });
        }
        let (entries, denied): (Vec<_>, Vec<_>) = all
            .into_iter()
            .partition(|e| engine.is_allowed(&e.name) && allowed(e));
        let usable = |text: &str| {
            calls(text).iter().all(|(name, method)| {
                !denied
                    .iter()
                    .any(|e| e.name == *name && (!*method || e.receiver.is_some()))
            })
        };
        Card {
            examples: EXAMPLES
                .iter()
                .filter(|x| usable(x.expression))
                .copied()
                .collect(),
            mistakes: MISTAKES
                .iter()
                .filter(|m| m.right.iter().all(|r| usable(r)))
                .copied()
                .collect(),
            entries,
        }
    }

    /// The syntax lines (the same for every engine).
    pub fn syntax() -> &'static [&'static str] {
        SYNTAX
    }

    /// The card as structured JSON: `{"syntax": [line, ...], "parameters":
    /// text, "builtins": [{"name", "receiver", "group", "sig", "doc"}, ...],
    /// "examples": [{"expression", "result"}, ...], "mistakes": [{"right":
    /// [...], "wrong": [...]}, ...]}` (`receiver` null for a global
    /// function; `result` the example's result as JSON text).
    pub fn to_json(&self) -> serde_json::Value {
        let builtins: Vec<_> = self
            .entries
            .iter()
            .map(|e| {
                serde_json::json!({
                    "name": e.name, "receiver": e.receiver, "group": e.group,
                    "sig": e.sig, "doc": e.doc,
                })
            })
            .collect();
        let examples: Vec<_> = self
            .examples
            .iter()
            .map(|x| serde_json::json!({"expression": x.expression, "result": x.result}))
            .collect();
        let mistakes: Vec<_> = self
            .mistakes
            .iter()
            .map(|m| serde_json::json!({"right": m.right, "wrong": m.wrong}))
            .collect();
        serde_json::json!({
            "syntax": SYNTAX,
            "parameters": PARAMETERS,
            "builtins": builtins,
            "examples": examples,
            "mistakes": mistakes,
        })
    }
}

impl fmt::Display for Card {
    /// The card as text, in Markdown: see [`card`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{INTRO}\n\n## Syntax")?;
        for line in SYNTAX {
            writeln!(f, "- {line}")?;
        }
        writeln!(f, "\n## Built-ins\n{PARAMETERS}")?;
        let mut group = "";
        for e in &self.entries {
            if e.group != group {
                group = e.group;
                writeln!(f, "### {}", heading(group))?;
            }
            writeln!(f, "{}: {}", e.call(), e.doc)?;
        }
        if !self.examples.is_empty() {
            writeln!(f, "\n## Examples (expression ==> result as JSON)")?;
            for x in &self.examples {
                writeln!(f, "{} ==> {}", x.expression, x.result)?;
            }
        }
        if !self.mistakes.is_empty() {
            writeln!(f, "\n## Write XPR, not JavaScript, Python or SQL")?;
            for m in &self.mistakes {
                writeln!(f, "- {} (not {})", m.right.join(", "), m.wrong.join(", "))?;
            }
        }
        Ok(())
    }
}

/// The card of `engine` as text for a system prompt: every built-in and
/// host function with its signature and meaning, the syntax, examples and
/// corrections; about 8,800 characters (some 2,200 tokens) with no host
/// function. The same as `Card::new(engine).to_string()`.
///
/// ```
/// let text = xpr::card(&xpr::Engine::new());
/// assert!(text.contains("s.upper() -> string: uppercase"));
/// ```
pub fn card(engine: &Engine) -> String {
    Card::new(engine).to_string()
}

/// [`card`] listing only the functions `allowed` accepts (see
/// [`Card::with_filter`]).
pub fn card_with(engine: &Engine, allowed: impl Fn(&CardEntry) -> bool) -> String {
    Card::with_filter(engine, allowed).to_string()
}

/// The signature of a host function described by its arity alone:
/// `(arg1, arg2?) -> any`.
fn arity_sig(arity: Arity) -> String {
    let (required, optional, rest) = match arity {
        Arity::Exact(n) => (n, 0, false),
        Arity::Range(lo, hi) => (lo, hi.saturating_sub(lo), false),
        Arity::AtLeast(n) => (n, 0, true),
    };
    let mut params: Vec<String> = (1..=u32::from(required))
        .map(|i| format!("arg{i}"))
        .collect();
    params.extend((1..=u32::from(optional)).map(|i| format!("arg{}?", u32::from(required) + i)));
    if rest {
        params.push("...more".to_string());
    }
    format!("({}) -> any", params.join(", "))
}

/// The names `text` calls: `(name, true)` for a method (`.name(`),
/// `(name, false)` for a call by name (`name(`, or `|> name`, which may be
/// either). Text inside string literals is skipped.
fn calls(text: &str) -> Vec<(String, bool)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' {
                i += 1;
            } else if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            let mut before = chars[..start]
                .iter()
                .rev()
                .skip_while(|c| c.is_whitespace());
            let (last, second) = (before.next(), before.next());
            let is_method = last == Some(&'.');
            let piped = last == Some(&'>') && second == Some(&'|');
            if chars.get(i) == Some(&'(') || piped {
                out.push((name, is_method));
            }
            continue;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_finds_methods_functions_and_pipe_targets() {
        let found = calls("a.map(x => f(x)) |> take(2) |> round \"upper(\" y.z");
        let want = [
            ("map", true),
            ("f", false),
            ("take", false),
            ("round", false),
        ];
        let want: Vec<(String, bool)> = want.iter().map(|&(n, m)| (n.to_string(), m)).collect();
        assert_eq!(found, want);
    }

    #[test]
    fn host_signatures_from_arity() {
        assert_eq!(arity_sig(Arity::Exact(0)), "() -> any");
        assert_eq!(arity_sig(Arity::Range(1, 2)), "(arg1, arg2?) -> any");
        assert_eq!(arity_sig(Arity::AtLeast(1)), "(arg1, ...more) -> any");
    }
}
