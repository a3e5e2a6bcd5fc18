//! `xpr batch`: many expressions, one JSON line each, for rule engines and
//! test harnesses.
//!
//! Input (stdin), one object per line: `{"expression": "...", "context": {...}}`
//! (`context` optional; other keys ignored). Output (stdout), one line per
//! input line, in order, flushed per line: `{"ok": VALUE}` or
//! `{"error": TEXT, ...DIAGNOSTIC}`: the error's full text (` at position N`
//! included), then the fields of its [`xpr::Diagnostic`] (`kind`,
//! `message`, `text`, `position`, `span`, `expected`, `hint`, `severity`);
//! KIND is an [`xpr::ErrorKind`] name or `"input"` for a line that is not a
//! valid request. A bad line never ends the stream.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufWriter, Write as _};
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use xpr::{Diagnostic, Engine, Key, Program, Severity, Value, ValueType};

use super::input::{Line, LineRead, io_text, read_line};
use super::json_deep::{self, Top};
use super::json_in::{self, Conv, JsonError, ValueSeed, Wanted};
use super::json_out::{self, Out};
use super::{BatchArgs, Exit};

/// Compiled programs (and compile errors) by expression text, bounded in
/// entries and in bytes (each entry counts its text and
/// [`Program::heap_bytes`], compiled regex literals included); the least
/// recently used entry is dropped first.
struct Cache {
    entries: HashMap<Box<str>, CacheEntry>,
    capacity: usize,
    max_bytes: u64,
    bytes: u64,
    clock: u64,
    /// The type results must have (`--expect`).
    expect: Option<ValueType>,
}

/// A compiled program, or the diagnostic of its compile error.
type Compiled = Result<Program, Arc<Diagnostic>>;

struct CacheEntry {
    result: Compiled,
    bytes: u64,
    used: u64,
}

/// Bytes an entry counts beyond its text and program: the map's slot and
/// the entry's own fields.
const ENTRY_BYTES: u64 = 128;

impl Cache {
    fn new(capacity: usize, max_bytes: u64) -> Self {
        Cache {
            entries: HashMap::new(),
            capacity,
            max_bytes,
            bytes: 0,
            clock: 0,
            expect: None,
        }
    }

    /// Compiles for results of type `expect`.
    fn expecting(mut self, expect: Option<ValueType>) -> Self {
        self.expect = expect;
        self
    }

    /// The compiled form of `source`, compiling it on a miss. With a zero
    /// capacity nothing is kept, nor is an entry bigger than the byte bound.
    fn get(&mut self, engine: &Engine, source: &str) -> Compiled {
        self.clock += 1;
        if let Some(entry) = self.entries.get_mut(source) {
            entry.used = self.clock;
            return entry.result.clone();
        }
        let compiled = match self.expect {
            Some(t) => engine.compile_expecting(source, t),
            None => engine.compile(source),
        };
        let result = compiled.map_err(|e| Arc::new(engine.diagnose(&e, source)));
        let held = match &result {
            Ok(program) => program.heap_bytes(),
            Err(d) => {
                let expected: usize = d.expected.iter().map(|t| t.len() + 24).sum();
                (d.message.len() * 2 + expected + 256) as u64
            }
        };
        let bytes = ENTRY_BYTES
            .saturating_add(source.len() as u64)
            .saturating_add(held);
        if self.capacity == 0 || bytes > self.max_bytes {
            return result;
        }
        while !self.entries.is_empty()
            && (self.entries.len() >= self.capacity
                || self.bytes.saturating_add(bytes) > self.max_bytes)
        {
            // O(entries), on misses only: small next to a compile.
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone());
            let Some(key) = oldest else { break };
            if let Some(old) = self.entries.remove(&key) {
                self.bytes = self.bytes.saturating_sub(old.bytes);
            }
        }
        self.bytes = self.bytes.saturating_add(bytes);
        self.entries.insert(
            source.into(),
            CacheEntry {
                result: result.clone(),
                bytes,
                used: self.clock,
            },
        );
        result
    }
}

/// One request line.
struct Request {
    expression: String,
    context: Option<Value>,
}

struct RequestSeed<'a>(&'a mut Conv);

impl<'de> DeserializeSeed<'de> for RequestSeed<'_> {
    type Value = Request;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Request, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RequestSeed<'_> {
    type Value = Request;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object {\"expression\": ..., \"context\": ...}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Request, A::Error> {
        let mut expression = None;
        let mut context = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "expression" => expression = Some(map.next_value::<String>()?),
                "context" => context = Some(map.next_value_seed(ValueSeed(&mut *self.0))?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let expression = expression.ok_or_else(|| de::Error::missing_field("expression"))?;
        Ok(Request {
            expression,
            context,
        })
    }
}

/// Reads one request line; its context may nest up to `conv.max_depth`
/// levels (the context object is level 1).
fn request(text: &str, conv: &mut Conv) -> Result<Request, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    match RequestSeed(&mut *conv)
        .deserialize(&mut de)
        .and_then(|r| de.end().map(|()| r))
    {
        Ok(r) => {
            if let Some(context) = &r.context {
                conv.check_depth(context.depth(), 0)?;
            }
            Ok(r)
        }
        Err(e) if json_in::too_deep_for_serde(&e) => {
            // Deeper than serde_json reads: again, without recursion.
            let wanted = Wanted::new(&[Key::from("expression"), Key::from("context")]);
            let mut fields = [None, None];
            let top = Top::Fields {
                wanted: &wanted,
                out: &mut fields,
                level: 0,
            };
            json_deep::parse(text, conv, top)?;
            let [expression, context] = fields;
            let data = |message: String| JsonError::new(message, 0, 0, true);
            let expression = match expression {
                Some(Value::String(s)) => s.to_string(),
                Some(other) => {
                    return Err(data(format!(
                        "invalid type: {}, expected a string",
                        other.type_name()
                    )));
                }
                None => return Err(data("missing field `expression`".to_string())),
            };
            Ok(Request {
                expression,
                context,
            })
        }
        Err(e) => Err(e.into()),
    }
}

/// The answer to a line that is not a valid request: a diagnostic of kind `input`.
fn input_error(out: &mut Vec<u8>, message: &str) {
    error_line(out, &Diagnostic::new("input", message, Severity::Error));
}

/// `{"error": TEXT, ...}` with the diagnostic's fields.
fn error_line(out: &mut Vec<u8>, d: &Diagnostic) {
    let mut line = serde_json::Map::new();
    line.insert("error".into(), d.text.clone().into());
    if let serde_json::Value::Object(fields) = d.to_json() {
        line.extend(fields);
    }
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &line);
}

/// Answers one input line (without its terminator) into `out`, handing
/// the text on as it goes (a value's text is never held whole).
///
/// # Errors
/// Whatever handing the text on returns (stdout is closed).
fn answer(
    line_no: u64,
    line: &[u8],
    engine: &Engine,
    cache: &mut Cache,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let result = evaluate(line_no, line, engine, cache, out.buf);
    match result {
        Some(Ok(v)) => {
            out.buf.extend_from_slice(b"{\"ok\":");
            json_out::write_streamed(out, &v, None)?;
            out.buf.push(b'}');
        }
        Some(Err(d)) => error_line(out.buf, &d),
        // An input error, written already.
        None => {}
    }
    Ok(())
}

/// The outcome of one line's request; `None` when the line is not a
/// valid request (its answer is then written to `out`).
fn evaluate(
    line_no: u64,
    line: &[u8],
    engine: &Engine,
    cache: &mut Cache,
    out: &mut Vec<u8>,
) -> Option<Result<Value, Arc<Diagnostic>>> {
    let max_depth = engine.limits().value_depth;
    let Ok(text) = std::str::from_utf8(line) else {
        input_error(out, &format!("line {line_no}: invalid UTF-8"));
        return None;
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        input_error(
            out,
            &format!("line {line_no}: empty line, expected a JSON object"),
        );
        return None;
    }
    let mut conv = Conv::new(false, max_depth);
    let request = match request(text, &mut conv) {
        Ok(r) => r,
        Err(e) => {
            let message = e.message();
            let text = if e.is_data() {
                format!("line {line_no}: {message}")
            } else {
                format!(
                    "line {line_no}: invalid JSON: {message} at column {}",
                    e.column()
                )
            };
            input_error(out, &text);
            return None;
        }
    };
    let context = match request.context {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v),
        Some(other) => {
            input_error(
                out,
                &format!(
                    "line {line_no}: the context must be a JSON object, not {}",
                    other.type_name()
                ),
            );
            return None;
        }
    };
    let program = match cache.get(engine, &request.expression) {
        Ok(p) => p,
        Err(d) => return Some(Err(d)),
    };
    let result = match &context {
        Some(c) => program.run(c),
        None => program.run(&()),
    };
    Some(result.map_err(|e| Arc::new(engine.diagnose(&e, &request.expression))))
}

/// Runs `xpr batch`.
pub fn batch(args: &BatchArgs) -> Result<(), Exit> {
    let engine = args.guard.apply(args.limits.engine());
    let mut cache = Cache::new(args.cache, args.cache_bytes).expecting(args.guard.expect);
    let mut stdin = std::io::BufReader::with_capacity(64 << 10, std::io::stdin().lock());
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    let mut response = Vec::new();
    let mut line_no = 0u64;
    let max = args.max_record_bytes;
    let too_long =
        |line_no| format!("line {line_no}: longer than {max} bytes (--max-record-bytes)");
    // The line being read; a line reported too long is read on (skipped)
    // to its end.
    let mut read = Line::new(0);
    loop {
        line.clear();
        response.clear();
        if !read.reported {
            line_no += 1;
            read = Line::new(0);
        }
        // A UTF-8 byte order mark opening the input is not part of the
        // request (as `xpr run` reads it).
        let first = line_no == 1;
        let mut spill = |bytes: &[u8]| stdout.write_all(bytes);
        let mut out = Out::new(&mut response, json_out::STREAM_BYTES, &mut spill);
        match read_line(&mut stdin, &mut line, &mut read, max, first, false) {
            Ok(LineRead::End) => break,
            // Not asked to pause.
            Ok(LineRead::Paused) => break,
            // Answered as soon as it passes the limit: it may never end.
            Ok(LineRead::TooLong) => input_error(out.buf, &too_long(line_no)),
            Ok(LineRead::Whole {
                terminated: false, ..
            }) if read.reported => {
                return Err(Exit::usage(format_args!(
                    "line {line_no}: standard input ended inside this line, longer than {max} bytes (--max-record-bytes)"
                )));
            }
            Ok(LineRead::Whole { .. }) if read.reported => {
                // Answered already; the next line follows.
                read.reported = false;
                continue;
            }
            Ok(LineRead::Whole { too_long: true, .. }) => {
                input_error(out.buf, &too_long(line_no));
            }
            Ok(LineRead::Whole { start, end, .. }) => {
                let text = line.get(start..end).unwrap_or(&[]);
                answer(line_no, text, &engine, &mut cache, &mut out).map_err(Exit::from_stdout)?;
            }
            Err(e) => {
                return Err(Exit::usage(format_args!(
                    "cannot read standard input: {}",
                    io_text(&e)
                )));
            }
        }
        out.buf.push(b'\n');
        out.hand_on().map_err(Exit::from_stdout)?;
        stdout.flush().map_err(Exit::from_stdout)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keeps_at_most_capacity_and_drops_the_least_recent() {
        let engine = Engine::new();
        let mut cache = Cache::new(2, 1 << 20);
        for src in ["1", "2", "1", "3"] {
            let _ = cache.get(&engine, src);
        }
        assert_eq!(cache.entries.len(), 2);
        assert!(cache.entries.contains_key("1"));
        assert!(cache.entries.contains_key("3"));
        assert!(!cache.entries.contains_key("2"));
        let mut none = Cache::new(0, 1 << 20);
        let _ = none.get(&engine, "1");
        assert!(none.entries.is_empty());
    }

    /// `[/R0/, /R1/, ...]`: `n` distinct regex literals of about 1.5 MB
    /// of compiled size each (issue 11: four such requests held 3 GB in
    /// the cache).
    fn heavy(tag: usize, n: usize) -> String {
        let literals: Vec<String> = (0..n)
            .map(|i| format!("/(?i)\\pL{{24}}{tag}_{i}/"))
            .collect();
        format!("[{}].length", literals.join(","))
    }

    #[test]
    fn cache_is_bounded_in_bytes_compiled_regexes_included() {
        let engine = Engine::new();
        let mut cache = Cache::new(1024, 4 << 20);
        let one = engine
            .compile(&heavy(0, 1))
            .map(|p| p.heap_bytes())
            .unwrap_or(0);
        assert!(one > 1_000_000, "{one}");
        for tag in 0..6 {
            assert!(cache.get(&engine, &heavy(tag, 1)).is_ok());
            assert!(cache.bytes <= 4 << 20, "{}", cache.bytes);
        }
        // Two such programs fit in 4 MiB, not three.
        assert_eq!(cache.entries.len(), 2);
        assert!(cache.entries.contains_key(heavy(5, 1).as_str()));
        let counted: u64 = cache.entries.values().map(|e| e.bytes).sum();
        assert_eq!(counted, cache.bytes);
        // A program bigger than the whole bound is compiled, not kept.
        let mut small = Cache::new(1024, one / 2);
        assert!(small.get(&engine, &heavy(0, 1)).is_ok());
        assert!(small.entries.is_empty());
        assert_eq!(small.bytes, 0);
        // Many small programs: bounded by the entry count as before.
        let mut many = Cache::new(3, 1 << 30);
        for i in 0..10 {
            let _ = many.get(&engine, &format!("{i} + 1"));
        }
        assert_eq!(many.entries.len(), 3);
    }

    fn answer_text(line: &str) -> String {
        let engine = Engine::new();
        let mut cache = Cache::new(4, 1 << 20);
        let mut text = Vec::new();
        let result = json_out::write_to(&mut text, 16, |out| {
            answer(7, line.as_bytes(), &engine, &mut cache, out)
        });
        assert!(result.is_ok());
        String::from_utf8_lossy(&text).into_owned()
    }

    #[test]
    fn bad_requests_are_input_errors_with_the_line() {
        let got = answer_text("{\"context\": {}}");
        assert!(
            got.starts_with("{\"error\":\"line 7: missing field `expression`\""),
            "{got}"
        );
        assert!(
            got.ends_with(
                ",\"kind\":\"input\",\"message\":\"line 7: missing field `expression`\",\
                 \"text\":\"line 7: missing field `expression`\",\"position\":null,\"span\":null,\
                 \"expected\":[],\"hint\":null,\"severity\":\"error\"}"
            ),
            "{got}"
        );
        let got = answer_text("{\"expression\": \"1\"");
        assert!(got.contains("line 7: invalid JSON"), "{got}");
        let got = answer_text("{\"expression\": \"1\", \"context\": [1]}");
        assert!(
            got.contains("the context must be a JSON object, not array"),
            "{got}"
        );
        let got = answer_text("   ");
        assert!(got.contains("empty line"), "{got}");
    }
}
