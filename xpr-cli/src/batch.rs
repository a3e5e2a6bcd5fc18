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
use std::time::Instant;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use xpr::{Budget, Diagnostic, Engine, Key, Program, RunConfig, Severity, Value, ValueType, Vm};
use xpr_schema::OutputSchema;

use super::audit::{self, AuditLog};
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
    #[cfg(test)]
    fn get(&mut self, engine: &Engine, source: &str) -> Compiled {
        self.lookup(engine, source).0
    }

    /// [`Cache::get`], and whether `source` was compiled for this call
    /// (not found in the cache).
    fn lookup(&mut self, engine: &Engine, source: &str) -> (Compiled, bool) {
        self.clock += 1;
        if let Some(entry) = self.entries.get_mut(source) {
            entry.used = self.clock;
            return (entry.result.clone(), false);
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
            return (result, true);
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
        (result, true)
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

/// What answering a request needs besides the request: the engine, the
/// compiled programs, the VM, and the output schema and audit log.
struct Batcher {
    engine: Engine,
    /// `--total-fuel`: the budget every line draws from.
    config: Option<RunConfig>,
    cache: Cache,
    vm: Vm,
    schema: Option<OutputSchema>,
    log: Option<AuditLog>,
}

/// How a request was answered, for the audit log.
struct Answered {
    /// The expression's hash (with an audit log).
    hash: Option<String>,
    /// Whether the program ran (its fuel and memory are the VM's).
    ran: bool,
    /// When the evaluation ended, and its CPU time in nanoseconds.
    at: Instant,
    cpu_ns: u64,
}

impl Batcher {
    fn new(engine: Engine, cache: Cache) -> Self {
        Batcher {
            engine,
            config: None,
            cache,
            vm: Vm::new(),
            schema: None,
            log: None,
        }
    }

    /// Answers one input line (without its terminator) into `out`, handing
    /// the text on as it goes (a value's text is never held whole), and
    /// logs it.
    ///
    /// # Errors
    /// Whatever handing the text on returns (stdout is closed), or the
    /// audit log cannot be written.
    fn answer(&mut self, line_no: u64, line: &[u8], out: &mut Out<'_>) -> Result<(), Exit> {
        let mut answered = Answered {
            hash: None,
            ran: false,
            at: Instant::now(),
            cpu_ns: 0,
        };
        let result = match request_of(line_no, line, self.engine.limits().value_depth) {
            Ok(request) => self.evaluate(&request, &mut answered)?,
            Err(message) => {
                return self.refuse(line_no, &message, out.buf);
            }
        };
        match &result {
            Ok(v) => {
                out.buf.extend_from_slice(b"{\"ok\":");
                json_out::write_streamed(out, v, None).map_err(Exit::from_stdout)?;
                out.buf.push(b'}');
            }
            Err(d) => error_line(out.buf, d),
        }
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        let usage = if answered.ran {
            audit::Usage::of(&self.vm, answered.cpu_ns)
        } else {
            audit::Usage::default()
        };
        let result = match &result {
            Ok(v) => Ok(v),
            Err(d) => Err(audit::Failed {
                kind: &d.kind,
                message: &d.message,
                position: d.position(),
            }),
        };
        let origin = audit::Origin::Line(line_no);
        log.evaluation(answered.hash.as_deref(), origin, answered.at, result, usage)
    }

    /// Answers a line that is no valid request with an error of kind
    /// `input`, and logs it.
    ///
    /// # Errors
    /// The audit log cannot be written.
    fn refuse(&mut self, line_no: u64, message: &str, out: &mut Vec<u8>) -> Result<(), Exit> {
        input_error(out, message);
        let Some(log) = &mut self.log else {
            return Ok(());
        };
        let failed = audit::Failed {
            kind: "input",
            message,
            position: None,
        };
        let origin = audit::Origin::Line(line_no);
        log.evaluation(
            None,
            origin,
            Instant::now(),
            Err(failed),
            audit::Usage::default(),
        )
    }

    /// The outcome of a request: its value, checked against the output
    /// schema, or the diagnostic of its error.
    ///
    /// # Errors
    /// The audit log cannot be written (its program line).
    fn evaluate(
        &mut self,
        request: &Request,
        answered: &mut Answered,
    ) -> Result<Result<Value, Arc<Diagnostic>>, Exit> {
        let expr = &request.expression;
        let (compiled, fresh) = self.cache.lookup(&self.engine, expr);
        if let Some(log) = &mut self.log {
            let hash = audit::hash(expr);
            if fresh {
                let mut text = Vec::new();
                let compiled = compiled.as_ref().map_err(|d| audit::Failed {
                    kind: &d.kind,
                    message: &d.message,
                    position: d.position(),
                });
                audit::program_line(&mut text, "batch", &hash, expr, compiled);
                log.write(&text)?;
            }
            answered.hash = Some(hash);
        }
        let program = match compiled {
            Ok(program) => program,
            Err(d) => return Ok(Err(d)),
        };
        let started = self.log.is_some().then(|| (Instant::now(), audit::start()));
        let context: &dyn xpr::Context = match &request.context {
            Some(c) => c,
            None => &(),
        };
        let result = match &self.config {
            None => program.run_in(&mut self.vm, context),
            Some(config) => program.run_in_with(&mut self.vm, context, config),
        };
        answered.ran = true;
        if let Some((wall, started)) = started {
            (answered.at, answered.cpu_ns) = audit::stop(started, wall);
        }
        let result = match (&self.schema, result) {
            (Some(schema), Ok(value)) => schema.check(&value).map(|()| value),
            (_, result) => result,
        };
        Ok(result.map_err(|e| Arc::new(self.engine.diagnose(&e, expr))))
    }
}

/// Reads one line's request; `Err` is the text of its `input` error.
fn request_of(line_no: u64, line: &[u8], max_depth: u32) -> Result<Request, String> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Err(format!("line {line_no}: invalid UTF-8"));
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err(format!(
            "line {line_no}: empty line, expected a JSON object"
        ));
    }
    let mut conv = Conv::new(false, max_depth);
    let mut request = request(text, &mut conv).map_err(|e| {
        let message = e.message();
        if e.is_data() {
            format!("line {line_no}: {message}")
        } else {
            format!(
                "line {line_no}: invalid JSON: {message} at column {}",
                e.column()
            )
        }
    })?;
    request.context = match request.context {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v),
        Some(other) => {
            return Err(format!(
                "line {line_no}: the context must be a JSON object, not {}",
                other.type_name()
            ));
        }
    };
    Ok(request)
}

/// Runs `xpr batch`.
pub fn batch(args: &BatchArgs) -> Result<(), Exit> {
    let mut batcher = Batcher::new(
        args.guard.apply(args.limits.engine()),
        Cache::new(args.cache, args.cache_bytes).expecting(args.guard.expect),
    );
    batcher.schema = args.output.schema()?;
    batcher.config = args.total_fuel.map(|n| RunConfig {
        budget: Some(Budget::new(Some(n), None)),
        ..RunConfig::default()
    });
    batcher.log = args.output.audit()?;
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
            Ok(LineRead::TooLong) => batcher.refuse(line_no, &too_long(line_no), out.buf)?,
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
                batcher.refuse(line_no, &too_long(line_no), out.buf)?;
            }
            Ok(LineRead::Whole { start, end, .. }) => {
                let text = line.get(start..end).unwrap_or(&[]);
                batcher.answer(line_no, text, &mut out)?;
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
        if let Some(log) = &mut batcher.log {
            log.flush()?;
        }
    }
    if let Some(budget) = batcher.config.as_ref().and_then(|c| c.budget.as_ref()) {
        let line = super::run::total_fuel_line(&budget.report());
        // A closed stderr leaves nothing to report to.
        let _ = std::io::stderr().write_all(line.as_bytes());
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
        let mut batcher = Batcher::new(Engine::new(), Cache::new(4, 1 << 20));
        let mut text = Vec::new();
        let result = json_out::write_to(&mut text, 16, |out| {
            batcher
                .answer(7, line.as_bytes(), out)
                .map_err(|_| std::io::Error::other("answer failed"))
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
