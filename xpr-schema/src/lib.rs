//! Output schemas for XPR results (issue 14, item 5): a JSON Schema that
//! every result of a run must conform to, the guardrail an agent pipeline
//! puts between a machine-written expression and whatever consumes its
//! output.
//!
//! ```
//! use xpr::{Engine, ErrorKind};
//! use xpr_schema::OutputSchema;
//!
//! let schema = OutputSchema::from_json(&serde_json::json!({
//!     "type": "array",
//!     "items": {"type": "object", "required": ["price"],
//!               "properties": {"price": {"type": "number"}}}
//! }))?;
//! let program = Engine::new().compile("items.map(i => {price: i.price})")?;
//!
//! let good = program.run_json(&serde_json::json!({"items": [{"price": 3}]}))?;
//! schema.check(&good)?;
//!
//! let bad = program.run_json(&serde_json::json!({"items": [{"price": "x"}]}))?;
//! let e = schema.check(&bad).unwrap_err();
//! assert_eq!(e.kind(), ErrorKind::Schema);
//! assert_eq!(
//!     e.message(),
//!     r#"result does not match the output schema at /0/price: "x" is not of type "number""#
//! );
//! # Ok::<(), xpr::Error>(())
//! ```
//!
//! # What is accepted, and what it costs
//!
//! The schema is compiled once, by [`OutputSchema::from_json`], with the
//! `jsonschema` crate (drafts 4 to 2020-12, the draft named by `$schema`,
//! 2020-12 when none is). Nothing outside the schema document is ever read:
//! a `$ref` to another document (`https:`, `file:`, ...) is an error when
//! the schema is compiled, not a fetch. `pattern` and `patternProperties`
//! are ECMA 262 regexes, as JSON Schema has them, run on the `regex`
//! crate's linear-time engine: look-around and backreferences (which only a
//! backtracking engine runs) make a schema invalid, and so does a pattern
//! that compiles to more than [`PATTERN_SIZE_LIMIT`] bytes, so a schema
//! written by an LLM cannot make a check backtrack for ever. `format` is an
//! annotation, not checked, as drafts 2019-09 and 2020-12 say (drafts 4 to
//! 7 check it).
//!
//! A check runs after the VM has returned: it is outside the run's fuel and
//! time budgets and charges nothing, so its cost is bounded when the schema
//! is compiled. A *step* is one keyword of one subschema applied at one
//! node of the result (a keyword holding data, `enum`, `const`,
//! `required`, counts one step per JSON value in it; `pattern` runs in
//! time linear in the string it matches). A schema is refused unless a
//! check takes at most [`CHECK_STEPS_PER_NODE`] (100,000) steps at any one
//! node of any result, so a check takes at most 100,000 steps times the
//! number of nodes of the result (which the memory budget bounds; the
//! result is converted to JSON data once, as much memory again, then
//! validated). 100,000 steps are about 60 ms in a release build, measured
//! on the worst kind of schema (`$ref`s under `anyOf`s); an `anyOf` of
//! 1,000 small object alternatives takes 7,001.
//!
//! The steps at a node count, with multiplicity, every subschema applied
//! there in place: through `$ref`, `$dynamicRef`, `$recursiveRef`,
//! `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` (both branches
//! counted), `dependentSchemas`, and an `unevaluatedProperties` or
//! `unevaluatedItems` (which runs the in-place subschemas again, counted
//! once more per level of in-place nesting). So a chain of `$defs`, each an
//! `anyOf` of two `$ref`s to the one below, is refused: 40 levels would be
//! 2^40 steps. Applicators that move to a child of the node
//! (`properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `items`, `prefixItems`, `additionalItems`, `contains`)
//! count at the child, where the subschemas several of them apply to one
//! child add up: an `allOf` of two `items` referring back to it doubles at
//! every level of an array, and is refused. Each named property and each
//! tuple index is counted apart (a tree schema with `left` and `right`
//! passes), up to 64 names per subschema, past which the largest counts
//! for all. `$dynamicRef` and `$recursiveRef` count the costliest of the
//! subschemas they may reach. The bound is computed for results nested up
//! to 1,000 levels, the most [`OutputSchema::check`] accepts.
//!
//! A subschema that applies itself at the same node (`{"$ref": "#"}`, two
//! `$defs` referring to each other through `allOf`) is an invalid schema:
//! `jsonschema` would take it for valid when the check meets it again, so
//! that part of the schema would check nothing. References are resolved as
//! `jsonschema` resolves them (JSON pointers, `$anchor`, `$id`-relative
//! URIs within the document); one that the analysis cannot resolve makes
//! the schema invalid rather than uncounted. The analysis takes time
//! linear in the schema's size per level of result followed (it stops
//! when the levels repeat) and does not recurse on the native stack.
//!
//! A result is checked as the JSON it is written as: numbers as JavaScript
//! writes them (an integral number is an `integer`: `100`, not `100.0`).
//! A regex or a function has no JSON form: a result holding one never
//! conforms.

#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::fmt;
use std::io;

use jsonschema::{PatternOptions, ValidationError, Validator};
use xpr::{Error, ErrorKind, Value};

mod cost;

pub use cost::CHECK_STEPS_PER_NODE;

/// The largest compiled size, in bytes, of one `pattern` (or
/// `patternProperties` key) of a schema; a bigger one makes the schema
/// invalid.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The lazy DFA cache of one such pattern, in bytes (past it the engine
/// falls back to a slower, still linear, search).
pub const PATTERN_DFA_SIZE_LIMIT: usize = 2 << 20;

/// At most this many bytes of the failing part's JSON text are quoted in a
/// message (a long text is cut, ending in `...`).
const QUOTE_BYTES: usize = 60;

/// Results nested deeper than this are validated on a thread of their
/// own with a stack sized for them (validation recurses on the native
/// stack, one level of the result at a time).
const SHALLOW: u32 = 32;

/// Native stack reserved per level of a deep result (what a debug build
/// needs, with room; only the pages touched are used).
const STACK_PER_LEVEL: usize = 64 << 10;

/// A compiled output schema: immutable, `Send + Sync`, shared by every
/// thread that checks results.
pub struct OutputSchema {
    validator: Validator,
}

impl fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSchema").finish_non_exhaustive()
    }
}

impl OutputSchema {
    /// Compiles `schema`, a JSON Schema document.
    ///
    /// # Errors
    /// [`ErrorKind::Schema`], `invalid output schema: REASON` or
    /// `invalid output schema at POINTER: REASON` (POINTER is where in the
    /// schema): the schema does not conform to its draft's meta-schema
    /// (`{"type": "numbr"}`), refers to another document (`{"$ref":
    /// "https://..."}`: nothing is fetched), or has a `pattern` the
    /// linear-time engine does not accept or that compiles to more than
    /// [`PATTERN_SIZE_LIMIT`] bytes. `invalid output schema: checking
    /// ... could take N steps or more ..., over the limit of 100000 per
    /// node: ...`: a check could take more than [`CHECK_STEPS_PER_NODE`]
    /// steps at one node of a result (see the crate docs). `invalid output
    /// schema: the subschema at POINTER applies itself at the same node
    /// ...`: a reference cycle that never moves into the result.
    pub fn from_json(schema: &serde_json::Value) -> Result<Self, Error> {
        let patterns = PatternOptions::regex()
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_DFA_SIZE_LIMIT);
        let validator = jsonschema::options()
            .offline()
            .with_pattern_options(patterns)
            .build(schema)
            .map_err(|e| invalid_schema(&e))?;
        cost::check_cost(schema).map_err(|reason| {
            Error::new(
                ErrorKind::Schema,
                format!("invalid output schema: {reason}"),
            )
        })?;
        Ok(OutputSchema { validator })
    }

    /// Compiles a schema given as JSON text.
    ///
    /// # Errors
    /// [`ErrorKind::Schema`]: `invalid output schema: not JSON: REASON at
    /// line L column C`, or any error of [`OutputSchema::from_json`].
    pub fn from_text(text: &str) -> Result<Self, Error> {
        let schema: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            Error::new(
                ErrorKind::Schema,
                format!("invalid output schema: not JSON: {e}"),
            )
        })?;
        OutputSchema::from_json(&schema)
    }

    /// Checks that `result` conforms to the schema.
    ///
    /// # Errors
    /// [`ErrorKind::Schema`], for the first part of the result found not
    /// to conform: `result does not match the output schema at POINTER:
    /// REASON`, POINTER being the JSON pointer of that part (`/items/0/price`;
    /// left out, with its `at`, when the whole result fails) and REASON the
    /// validator's (`"x" is not of type "number"`, with the failing value's
    /// JSON text cut to 60 bytes). A regex or a function in the result:
    /// `... at POINTER: a regex has no JSON form`. A result nested deeper
    /// than JSON data may be (1,000 levels) cannot be checked and is that
    /// error too.
    pub fn check(&self, result: &Value) -> Result<(), Error> {
        if let Some((pointer, what)) = first_without_json_form(result) {
            return Err(mismatch(&pointer, &format!("a {what} has no JSON form")));
        }
        let json = result.to_json().map_err(|e| {
            Error::new(
                ErrorKind::Schema,
                format!(
                    "result cannot be checked against the output schema: {}",
                    e.message()
                ),
            )
        })?;
        if result.depth() <= SHALLOW {
            return self.check_json(&json);
        }
        let outcome = self.check_deep(&json, result.depth());
        dismantle(json);
        outcome
    }

    /// Checks JSON data against the schema (what [`OutputSchema::check`]
    /// does once it has converted the result). Validation recurses on the
    /// native stack, one level of `json` at a time: for data nested more
    /// than a few dozen levels, [`OutputSchema::check`] is safer.
    ///
    /// # Errors
    /// As [`OutputSchema::check`].
    pub fn check_json(&self, json: &serde_json::Value) -> Result<(), Error> {
        match self.validator.validate(json) {
            Ok(()) => Ok(()),
            Err(e) => Err(mismatch(e.instance_path().as_str(), &reason(&e))),
        }
    }

    /// [`OutputSchema::check_json`] on a thread whose stack fits `depth`
    /// levels; if no such thread can be started, the check fails rather
    /// than risk the caller's stack.
    fn check_deep(&self, json: &serde_json::Value, depth: u32) -> Result<(), Error> {
        let stack = (depth as usize)
            .saturating_mul(STACK_PER_LEVEL)
            .saturating_add(1 << 20);
        let refused = || {
            Error::new(
                ErrorKind::Schema,
                format!(
                    "result cannot be checked against the output schema: no thread with a stack for {depth} levels of nesting"
                ),
            )
        };
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("xpr-schema".into())
                .stack_size(stack)
                .spawn_scoped(scope, || self.check_json(json))
                .map_err(|_| refused())?
                .join()
                .unwrap_or_else(|_| Err(refused()))
        })
    }
}

/// `result does not match the output schema at POINTER: REASON`.
fn mismatch(pointer: &str, reason: &str) -> Error {
    let message = if pointer.is_empty() {
        format!("result does not match the output schema: {reason}")
    } else {
        format!("result does not match the output schema at {pointer}: {reason}")
    };
    Error::new(ErrorKind::Schema, message)
}

/// `invalid output schema[ at POINTER]: REASON`.
fn invalid_schema(e: &ValidationError<'_>) -> Error {
    let pointer = e.instance_path().as_str();
    let reason = reason(e);
    let message = if pointer.is_empty() {
        format!("invalid output schema: {reason}")
    } else {
        format!("invalid output schema at {pointer}: {reason}")
    };
    Error::new(ErrorKind::Schema, message)
}

/// The validator's reason, with the failing value's JSON text cut to
/// [`QUOTE_BYTES`].
fn reason(e: &ValidationError<'_>) -> String {
    e.masked_with(quote(e.instance())).to_string()
}

/// The JSON text of `v`, cut to [`QUOTE_BYTES`] (at a character boundary,
/// then `...`); only that much is ever written.
fn quote(v: &serde_json::Value) -> String {
    let mut w = Bounded {
        text: Vec::with_capacity(QUOTE_BYTES + 4),
        cut: false,
    };
    // Fails only when the bound is reached: what was written is kept.
    let _ = serde_json::to_writer(&mut w, v);
    let mut text = String::from_utf8_lossy(&w.text).into_owned();
    if w.cut {
        let mut end = QUOTE_BYTES.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// Keeps the first [`QUOTE_BYTES`] bytes written, then refuses more.
struct Bounded {
    text: Vec<u8>,
    cut: bool,
}

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = (QUOTE_BYTES + 1).saturating_sub(self.text.len());
        if room == 0 {
            self.cut = true;
            return Err(io::Error::other("long enough"));
        }
        let n = buf.len().min(room);
        self.text.extend_from_slice(&buf[..n]);
        if self.text.len() > QUOTE_BYTES {
            self.cut = true;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The JSON pointer of the first regex or function in `v` (depth first,
/// in order), and which it is. Without recursion: an explicit stack.
fn first_without_json_form(v: &Value) -> Option<(String, &'static str)> {
    /// An array or object being visited, and the path segment of the
    /// child being visited.
    enum Frame<'a> {
        Array(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
        Object(Box<dyn Iterator<Item = (&'a xpr::Key, &'a Value)> + 'a>),
    }
    fn open(v: &Value) -> Option<Frame<'_>> {
        match v {
            Value::Array(a) => Some(Frame::Array(a.items().iter().enumerate())),
            Value::Object(o) => Some(Frame::Object(Box::new(o.map().iter()))),
            _ => None,
        }
    }
    fn what(v: &Value) -> Option<&'static str> {
        match v {
            Value::Regex(_) => Some("regex"),
            Value::Function(_) => Some("function"),
            _ => None,
        }
    }
    if let Some(w) = what(v) {
        return Some((String::new(), w));
    }
    let mut stack: Vec<(Frame<'_>, Cow<'_, str>)> = Vec::new();
    if let Some(frame) = open(v) {
        stack.push((frame, Cow::Borrowed("")));
    }
    while let Some((frame, segment)) = stack.last_mut() {
        let next = match frame {
            Frame::Array(items) => items.next().map(|(i, v)| (Cow::Owned(i.to_string()), v)),
            Frame::Object(fields) => fields.next().map(|(k, v)| (Cow::Borrowed(&**k), v)),
        };
        let Some((key, child)) = next else {
            stack.pop();
            continue;
        };
        *segment = key;
        if let Some(w) = what(child) {
            let mut pointer = String::new();
            for (_, segment) in &stack {
                pointer.push('/');
                pointer.push_str(&segment.replace('~', "~0").replace('/', "~1"));
            }
            return Some((pointer, w));
        }
        if let Some(frame) = open(child) {
            stack.push((frame, Cow::Borrowed("")));
        }
    }
    None
}

/// Drops `json` level by level (its own drop recurses once per level).
fn dismantle(json: serde_json::Value) {
    let mut pending = vec![json];
    while let Some(v) = pending.pop() {
        match v {
            serde_json::Value::Array(items) => pending.extend(items),
            serde_json::Value::Object(fields) => pending.extend(fields.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
