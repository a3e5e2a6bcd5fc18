//! `xpr run`: one expression over a stream of records.
//!
//! Pipeline: the input is cut into chunks of records ([`super::input`]);
//! `--jobs` workers (the calling thread one of them) each take the next
//! chunk, reading it themselves under a lock ([`super::source`]), then
//! parse and evaluate it (reading only the fields the program uses,
//! unless `--as` needs the whole record); whichever worker completes the
//! next chunk due writes it (and any completed after it), so results keep
//! the input's order with no reader or writer thread to wake. At most
//! `4 x jobs` chunks (and never more than 64) are between read and
//! written, so memory stays flat whatever the input's length. With one job
//! everything happens on the main thread, without locks.

use std::collections::BTreeMap;
use std::io::BufWriter;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use xpr::{Budget, Context, Error, Output, Program, Value, Vm, render_error};
use xpr_schema::OutputSchema;

use super::audit;
use super::input::{self, Chunk, Problem, Record};
use super::json_in::{self, Conv, JsonError, Wanted};
use super::json_out::{self, Out};
use super::source::{Shared, StopOnDrop};

pub(crate) mod agg;
mod agg_spec;
mod aggregate;
mod exact_sum;
pub(crate) mod failure;
mod fields;
pub(crate) mod slurp;
mod table;
mod writer;

use super::{Exit, InputFormat, OnError, OutputFormat, RunArgs};
use failure::{json_failure, with_field_hint};
use fields::{Fields, Whole};
pub(crate) use writer::total_fuel_line;
use writer::{Writer, finish_now, progress_bar};

/// How many per-record errors are printed before the rest are only counted.
const SHOWN_ERRORS: usize = 20;

/// At most this many chunks (of about 256 KiB each) are between the reader
/// and the output, whatever `--jobs` says: memory stays bounded.
const MAX_IN_FLIGHT: usize = 64;

/// ...and at most about this many bytes of their input (a chunk can hold
/// one record of up to `--max-record-bytes`).
const MAX_IN_FLIGHT_BYTES: usize = 64 << 20;

/// A chunk's output is held until its turn only up to this many bytes;
/// beyond, the worker waits for its turn and writes as it goes.
const SPILL_BYTES: usize = 4 << 20;

/// The length of a record's audit line, about, for a filter (a line of
/// `--audit-records`: `{"record":N,"result":false,"fuel":F,...}`).
const RECORD_LINE_BYTES: usize = 72;

/// Output buffers kept for reuse beyond this many are freed (no more
/// chunks than this are in flight).
const MAX_SPARE_OUTPUTS: usize = MAX_IN_FLIGHT;

/// What every worker needs, shared read-only.
struct Job<'a> {
    /// The program (for the first worker) and how to compile it again
    /// (for each other one: see [`Code`]).
    program: Program,
    recompile: &'a (dyn Fn() -> Option<Program> + Sync),
    as_name: Option<&'a str>,
    filter: bool,
    on_error: OnError,
    strict: bool,
    format: InputFormat,
    max_record: usize,
    /// The value-depth limit, for the JSON read.
    max_depth: u32,
    /// Output buffers of written chunks, for the next chunks (a fresh
    /// buffer per chunk costs page faults, or an mmap when large): those
    /// of the output and of the audit lines apart, so that neither grows
    /// again in every chunk after swapping with the other (a filter's
    /// output is small, its audit lines are not).
    spare: [Mutex<Vec<Vec<u8>>>; 2],
    /// `--output-schema`: every result is checked against it.
    schema: Option<OutputSchema>,
    /// `--audit`: the expression's hash (the log itself is the writer's).
    audit: Option<String>,
    /// `--audit-records`: a line per record.
    audit_records: bool,
    /// `-r/--raw`: string results as their text.
    raw: bool,
    /// `--output csv|tsv`: results are kept as values for the writer,
    /// which alone knows the table's header.
    table: bool,
    /// Results are written as they come, an object literal's straight
    /// from its fields (no schema, table, per-record audit or filter,
    /// which keep the value).
    direct: bool,
}

/// A program and the fields it reads.
///
/// Each worker has its own, compiled for it: a program's constants (an
/// object literal's keys, say) are reference-counted as they are pushed
/// and dropped, and two workers counting on the same shared strings made
/// their cores take turns at those counters' cache lines: `--jobs 2` used
/// a fifth more CPU time than `--jobs 1` for the same instructions.
struct Code {
    program: Program,
    wanted: Wanted,
}

impl Code {
    fn new(program: Program) -> Self {
        Code {
            // A called name too: a field of that name is what a call of a
            // name that is no function calls (`none?.(1)` is null for a
            // null field).
            wanted: Wanted::new(program.context_names()),
            program,
        }
    }
}

/// A worker's reusable state.
struct Worker {
    /// Its own copy of the program (see [`Code`]).
    code: Code,
    conv: Conv,
    fields: Vec<Option<Value>>,
    vm: Vm,
    /// Times records for their audit lines (`--audit-records` only: the
    /// first clock made calibrates the counter).
    clock: Option<audit::RecordClock>,
    /// The last record ran the program (`vm` holds its fuel and memory).
    ran: bool,
    /// The text of the object result's keys, written once escaped.
    key_texts: json_out::KeyTexts,
}

/// Where bytes written before their chunk's turn go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// Standard output.
    Out,
    /// The audit log.
    Audit,
}

/// Why one record failed.
#[derive(Debug)]
enum Failure {
    /// Bad input: invalid JSON or UTF-8, too long, unreadable (status 2 when fatal).
    Input(String),
    /// The expression failed on this record (status 1 when fatal).
    Eval(Error),
    /// The input ended inside a record reported too long: the run ends
    /// (status 2) whatever `--on-error` says, after the summary.
    Unended(String),
}

/// A failure with where it happened.
#[derive(Debug)]
struct Located {
    source: Arc<str>,
    line: u64,
    failure: Failure,
}

/// The result of one chunk, written in chunk order.
#[derive(Debug, Default)]
struct Outcome {
    out: Vec<u8>,
    /// The chunk's audit lines (`--audit-records`; a buffer kept from an
    /// earlier chunk, as `out`).
    audit: Vec<u8>,
    /// Fuel used, largest memory charged, and CPU time of the chunk (with `--audit`).
    fuel: u64,
    memory: u64,
    cpu_ns: u64,
    /// Bytes of the chunk's input (for the bound on chunks in flight).
    input_bytes: usize,
    records: u64,
    outputs: u64,
    errors: u64,
    big_ints: u64,
    /// Per-record errors that did not stop the run (the first few of the chunk).
    reported: Vec<Located>,
    /// The error that stops the run (`--on-error fail`).
    fatal: Option<Located>,
    /// `--output csv|tsv`: the object results, with their lines.
    rows: Vec<(u64, Value)>,
    /// The chunk's input, for the rows' messages.
    source: Option<Arc<str>>,
}

impl Job<'_> {
    /// Evaluates every record of `chunk`. Output beyond [`SPILL_BYTES`]
    /// goes to `spill` (which writes it once the chunk's turn has come)
    /// instead of growing the buffer; so do audit lines.
    fn process(
        &self,
        chunk: &Chunk,
        w: &mut Worker,
        spill: &mut dyn FnMut(Stream, &[u8]),
    ) -> Outcome {
        let mut o = Outcome {
            out: self.output_buffer(Stream::Out),
            input_bytes: chunk.data.len(),
            source: self.table.then(|| chunk.source.clone()),
            ..Outcome::default()
        };
        let cpu_before = self.audit.as_ref().and_then(|_| audit::thread_cpu());
        if self.audit_records {
            o.audit = self.output_buffer(Stream::Audit);
            // About a line's length per record, at once rather than grown.
            o.audit
                .reserve((chunk.records.len() * RECORD_LINE_BYTES).min(SPILL_BYTES));
            if let Some(clock) = &mut w.clock {
                clock.restart();
            }
        }
        // UTF-8 checked once for the whole chunk (records are cut at ASCII
        // bytes, so each is then text too); per record only when it fails.
        let text = std::str::from_utf8(&chunk.data).ok();
        let big_before = w.conv.big_ints;
        // The audit lines, numbered from the chunk's first record.
        let mut lines = audit::RecordLines::new(chunk.first_record);
        for r in &chunk.records {
            if o.out.len() >= SPILL_BYTES {
                spill(Stream::Out, &o.out);
                o.out.clear();
            }
            if o.audit.len() >= SPILL_BYTES {
                spill(Stream::Audit, &o.audit);
                o.audit.clear();
            }
            if matches!(r.problem, Some(Problem::Unended)) {
                // Not a record: the one reported too long never ended.
                o.fatal = Some(Located {
                    source: chunk.source.clone(),
                    line: r.line,
                    failure: Failure::Unended(format!(
                        "the input ended inside this record, longer than {} bytes (--max-record-bytes)",
                        self.max_record
                    )),
                });
                break;
            }
            o.records += 1;
            w.ran = false;
            let result = if self.direct {
                self.evaluate_direct(chunk, r, text, w, &mut o, spill)
            } else {
                self.evaluate(chunk, r, text, w).map(Some)
            };
            if self.audit.is_some() && w.ran {
                o.fuel += w.vm.fuel_used();
                o.memory = o.memory.max(w.vm.peak_memory());
            }
            // Where this record's result text starts in `o.out`, while it
            // was not handed on (the audit line copies it from there).
            let written = match &result {
                Ok(None) => None,
                Ok(Some(v)) if self.table => {
                    // A null result is no row.
                    if !matches!(v, Value::Null) {
                        o.rows.push((r.line, v.clone()));
                        o.outputs += 1;
                    }
                    None
                }
                Ok(Some(v)) => self.write_result(&mut o, chunk.bytes(r), v, spill),
                Err(_) => None,
            };
            let result = if self.audit_records {
                // Never direct: the value is there.
                let result = result.map(|v| v.unwrap_or(Value::Null));
                self.audit_line(&mut o, w, &mut lines, &result, written, spill);
                lines.next();
                result.map(Some)
            } else {
                result
            };
            let Err(failure) = result else {
                continue;
            };
            // Only errors that will be shown get a hint.
            let shown = self.on_error == OnError::Fail || o.reported.len() < SHOWN_ERRORS;
            let failure = if shown {
                with_field_hint(failure, chunk.bytes(r))
            } else {
                failure
            };
            let located = Located {
                source: chunk.source.clone(),
                line: r.line,
                failure,
            };
            match self.on_error {
                OnError::Fail => {
                    o.fatal = Some(located);
                    break;
                }
                OnError::Skip | OnError::Null => {
                    o.errors += 1;
                    if o.reported.len() < SHOWN_ERRORS {
                        o.reported.push(located);
                    }
                    // In a table, a null is no row.
                    if self.on_error == OnError::Null && !self.filter && !self.table {
                        o.out.extend_from_slice(b"null\n");
                        o.outputs += 1;
                    }
                }
            }
        }
        o.big_ints = w.conv.big_ints - big_before;
        if let (Some(before), Some(after)) =
            (cpu_before, cpu_before.and_then(|_| audit::thread_cpu()))
        {
            o.cpu_ns = audit::nanos(after.saturating_sub(before));
        }
        // The last record's values are not kept while the worker waits.
        w.fields.clear();
        o
    }

    /// Writes a record's result `v` to `o.out` (with `--filter`, the
    /// record's `bytes` if `v` is truthy). Returns where the result's text
    /// starts in `o.out` if it is all there (not handed on in pieces).
    fn write_result(
        &self,
        o: &mut Outcome,
        bytes: &[u8],
        v: &Value,
        spill: &mut dyn FnMut(Stream, &[u8]),
    ) -> Option<usize> {
        if self.filter {
            if v.truthy() {
                o.out.extend_from_slice(bytes);
                o.out.push(b'\n');
                o.outputs += 1;
            }
            return None;
        }
        if self.raw
            && let Value::String(s) = v
        {
            if o.out.len() + s.len() > SPILL_BYTES {
                spill(Stream::Out, &o.out);
                o.out.clear();
                spill(Stream::Out, s.as_bytes());
            } else {
                o.out.extend_from_slice(s.as_bytes());
            }
            o.out.push(b'\n');
            o.outputs += 1;
            return None;
        }
        let start = o.out.len();
        let mut spilled = false;
        // Handed on as it is written: one value's text (escaped, up to six
        // times its size) is never held whole.
        let mut hand_on = |bytes: &[u8]| {
            spilled = true;
            spill(Stream::Out, bytes);
            Ok(())
        };
        let mut out = Out::new(&mut o.out, SPILL_BYTES, &mut hand_on);
        // Handing on cannot fail here (`spill` ends the process on a write
        // error).
        let _ = json_out::write_streamed(&mut out, v, None);
        o.out.push(b'\n');
        o.outputs += 1;
        (!spilled).then_some(start)
    }

    /// Appends the record's audit line to `o.audit` (see
    /// [`audit::RecordLines`]). Its result's text is copied from `o.out`
    /// from `written` on when it is all there, else written again (handed
    /// on through `spill` as it grows).
    fn audit_line(
        &self,
        o: &mut Outcome,
        w: &mut Worker,
        lines: &mut audit::RecordLines,
        result: &Result<Value, Failure>,
        written: Option<usize>,
        spill: &mut dyn FnMut(Stream, &[u8]),
    ) {
        // The record ends here: what follows is the line itself, timed
        // with the next record.
        let ns = w.clock.as_mut().map_or(0, audit::RecordClock::lap);
        let (fuel, memory) = if w.ran {
            (w.vm.fuel_used(), w.vm.peak_memory())
        } else {
            (0, 0)
        };
        // A filter's predicate (a boolean, mostly): the line in one copy.
        if let Ok(v) = result
            && lines.short(&mut o.audit, v, fuel, memory, ns)
        {
            return;
        }
        lines.head(&mut o.audit);
        match result {
            Ok(v) if audit::short_result(&mut o.audit, v) => {}
            Ok(v) => match written.and_then(|start| o.out.get(start..)) {
                Some(text) => {
                    o.audit.extend_from_slice(b"\"result\":");
                    // Without the newline after it.
                    o.audit
                        .extend_from_slice(text.strip_suffix(b"\n").unwrap_or(text));
                }
                None => {
                    let mut hand_on = |bytes: &[u8]| {
                        spill(Stream::Audit, bytes);
                        Ok(())
                    };
                    let mut out = Out::new(&mut o.audit, SPILL_BYTES, &mut hand_on);
                    // Cannot fail: `spill` ends the process on a write error.
                    let _ = audit::result(&mut out, v);
                }
            },
            Err(Failure::Eval(e)) => audit::Failed::from(e).write_key(&mut o.audit),
            Err(Failure::Input(message) | Failure::Unended(message)) => audit::Failed {
                kind: "input",
                message,
                position: None,
            }
            .write_key(&mut o.audit),
        }
        lines.tail(&mut o.audit, fuel, memory, ns);
    }

    /// An empty buffer for `stream`, kept from an earlier chunk if there is one.
    fn output_buffer(&self, stream: Stream) -> Vec<u8> {
        self.spare[stream as usize]
            .lock()
            .ok()
            .and_then(|mut spare| spare.pop())
            .unwrap_or_default()
    }

    /// Keeps a written chunk's output buffer for a later chunk (unless it
    /// grew large: memory is then given back).
    fn give_output(&self, stream: Stream, mut out: Vec<u8>) {
        out.clear();
        if out.capacity() > 2 * SPILL_BYTES {
            return;
        }
        if let Ok(mut spare) = self.spare[stream as usize].lock()
            && spare.len() < MAX_SPARE_OUTPUTS
        {
            spare.push(out);
        }
    }

    /// As [`Job::evaluate`], writing the result to `o.out` (an object
    /// literal straight from its fields): `Ok(None)` once written, the
    /// value where [`Job::write_result`] writes it (`--as`, `-r`).
    fn evaluate_direct(
        &self,
        chunk: &Chunk,
        r: &Record,
        text: Option<&str>,
        w: &mut Worker,
        o: &mut Outcome,
        spill: &mut dyn FnMut(Stream, &[u8]),
    ) -> Result<Option<Value>, Failure> {
        if self.as_name.is_some() {
            return self.evaluate(chunk, r, text, w).map(Some);
        }
        // A sound record in a chunk of text, at once; else as `evaluate`.
        let record = match (&r.problem, text.and_then(|t| t.get(r.start..r.end))) {
            (None, Some(record)) => record,
            _ => self.record_text(chunk, r, text)?,
        };
        json_in::parse_fields(record, &w.code.wanted, &mut w.fields, &mut w.conv)
            .map_err(|e| self.json_failure(&e))?;
        let context = Fields::new(&w.code.wanted, &w.fields);
        w.ran = true;
        let fields = match w.code.program.run_fields_in(&mut w.vm, &context) {
            Ok(Output::Fields(f)) => f,
            Ok(Output::Value(v)) => return Ok(Some(v)),
            Err(e) => return Err(Failure::Eval(e)),
        };
        let mut hand_on = |bytes: &[u8]| {
            spill(Stream::Out, bytes);
            Ok(())
        };
        let mut out = Out::new(&mut o.out, SPILL_BYTES, &mut hand_on);
        // Handing on cannot fail here (`spill` ends the process on a write
        // error).
        let _ = json_out::write_members(&mut out, fields.iter(), &mut w.key_texts);
        o.out.push(b'\n');
        o.outputs += 1;
        Ok(None)
    }

    /// Record `r`'s text (`text` is the whole chunk's data when it is
    /// valid UTF-8), or what is wrong with it.
    fn record_text<'c>(
        &self,
        chunk: &'c Chunk,
        r: &Record,
        text: Option<&'c str>,
    ) -> Result<&'c str, Failure> {
        match &r.problem {
            None => {}
            Some(Problem::TooLong) => {
                return Err(Failure::Input(format!(
                    "record longer than {} bytes (--max-record-bytes)",
                    self.max_record
                )));
            }
            Some(Problem::Broken(message)) => return Err(Failure::Input(message.clone())),
            // Handled by `process`.
            Some(Problem::Unended) => return Err(Failure::Input(String::new())),
        }
        match text.and_then(|t| t.get(r.start..r.end)) {
            Some(record) => Ok(record),
            None => std::str::from_utf8(chunk.bytes(r)).map_err(|e| {
                Failure::Input(format!(
                    "invalid UTF-8 at byte {} of the record",
                    e.valid_up_to() + 1
                ))
            }),
        }
    }

    /// Evaluates the program on record `r`; `text` is the whole chunk's
    /// data when it is valid UTF-8.
    fn evaluate(
        &self,
        chunk: &Chunk,
        r: &Record,
        text: Option<&str>,
        w: &mut Worker,
    ) -> Result<Value, Failure> {
        let record = self.record_text(chunk, r, text)?;
        let value = match self.as_name {
            Some(name) => {
                let record =
                    json_in::parse_value(record, &mut w.conv).map_err(|e| self.json_failure(&e))?;
                // Without --seed, each record's random() gets its own seed
                // from the worker's VM (drawn only if random() is called).
                self.run(&Whole { name, record }, w)
            }
            None => {
                json_in::parse_fields(record, &w.code.wanted, &mut w.fields, &mut w.conv)
                    .map_err(|e| self.json_failure(&e))?;
                let Worker {
                    code,
                    fields,
                    vm,
                    ran,
                    ..
                } = w;
                let context = Fields::new(&code.wanted, fields);
                run_fields(&code.program, &context, vm, ran)
            }
        }
        .map_err(Failure::Eval)?;
        if let Some(schema) = &self.schema {
            schema.check(&value).map_err(Failure::Eval)?;
        }
        if self.table && !matches!(value, Value::Object(_) | Value::Null) {
            return Err(Failure::Eval(Error::type_error(table::not_an_object(
                &value,
            ))));
        }
        Ok(value)
    }

    /// Runs the worker's program on its VM (see [`run_fields`]).
    fn run(&self, context: &dyn Context, w: &mut Worker) -> Result<Value, Error> {
        run_fields(&w.code.program, context, &mut w.vm, &mut w.ran)
    }

    fn json_failure(&self, e: &JsonError) -> Failure {
        json_failure(self.format, e)
    }
}

/// Runs `program` on `vm` and sets `ran`.
#[inline]
fn run_fields(
    program: &Program,
    context: &dyn Context,
    vm: &mut Vm,
    ran: &mut bool,
) -> Result<Value, Error> {
    *ran = true;
    program.run_in(vm, context)
}

/// Runs `xpr run`.
pub fn run(args: &RunArgs) -> Result<(), Exit> {
    let started = Instant::now();
    let table = table::Table::new(args.output_format);
    if table.is_some() && args.filter {
        return Err(Exit::usage(format_args!(
            "--filter writes the records as they are: --output {} writes results as rows, \
             such as 'delay > 60 ? {{origin: origin, delay: delay}} : null' (a null result is no row)",
            args.output_format.name()
        )));
    }
    let schema = args.output.schema()?;
    let schema_off = schema.is_none();
    let mut log = args.output.audit()?;
    let engine = args.guard.apply(args.limits.engine());
    let compiled = args.guard.compile(&engine, &args.expr);
    let hash = match &mut log {
        Some(log) => Some(log.program("run", &args.expr, &compiled)?),
        None => None,
    };
    let program = compiled.map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    super::warn_unknown_functions(&program);
    // `--total-fuel`: every worker's copy of the program draws from it.
    let budget = args.total_fuel.map(|n| Budget::new(Some(n), None));
    let attach = |p: Program| match &budget {
        Some(b) => p.with_budget(b),
        None => p,
    };
    let program = attach(program);
    let inputs = input::open(&args.files)?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    // The same source compiles to the same program (it did once).
    let recompile = || args.guard.compile(&engine, &args.expr).ok().map(attach);
    let job = Job {
        program,
        recompile: &recompile,
        as_name: args.as_name.as_deref(),
        filter: args.filter,
        on_error: args.on_error,
        strict: args.strict_numbers,
        format: args.input,
        max_record: args.max_record_bytes,
        max_depth: args.limits.value_depth(),
        spare: Default::default(),
        schema,
        audit: hash.clone(),
        audit_records: args.audit_records,
        raw: args.raw,
        table: table.is_some(),
        direct: schema_off && table.is_none() && !args.audit_records && !args.filter,
    };
    let mut writer = Writer {
        out: BufWriter::with_capacity(128 << 10, std::io::stdout()),
        expr: &args.expr,
        records: 0,
        outputs: 0,
        errors: 0,
        big_ints: 0,
        shown: 0,
        noted: false,
        progress: progress_bar(args.quiet > 0),
        started,
        quiet: args.quiet,
        audit: log.zip(hash),
        totals: audit::Totals::default(),
        table,
        on_error: args.on_error,
        budget: budget.clone(),
    };
    let result = if jobs <= 1 {
        run_inline(&job, inputs, &mut writer)
    } else {
        run_parallel(&job, inputs, jobs, &mut writer)
    };
    if let Err(exit) = result {
        if let Some(p) = &writer.progress {
            p.finish_and_clear();
        }
        return Err(exit);
    }
    writer.finish()
}

/// A worker: with its own copy of the program if `fresh` (see [`Code`]).
fn new_worker(job: &Job<'_>, fresh: bool) -> Worker {
    let program = fresh
        .then(job.recompile)
        .flatten()
        .unwrap_or_else(|| job.program.clone());
    Worker {
        code: Code::new(program),
        conv: Conv::new(job.strict, job.max_depth),
        fields: Vec::new(),
        vm: Vm::new(),
        clock: job.audit_records.then(audit::RecordClock::new),
        ran: false,
        key_texts: json_out::KeyTexts::default(),
    }
}

fn run_inline(
    job: &Job<'_>,
    inputs: Vec<input::Input>,
    writer: &mut Writer<'_>,
) -> Result<(), Exit> {
    let mut worker = new_worker(job, false);
    let mut failure = None;
    let pool = input::ChunkPool::default();
    input::read_all(inputs, job.format, job.max_record, &pool, &mut |chunk| {
        // One job: every chunk's turn has come.
        let outcome = job.process(&chunk, &mut worker, &mut |stream, bytes| {
            let written = match stream {
                Stream::Out => writer.write_raw(bytes),
                Stream::Audit => writer.write_audit(bytes),
            };
            if let Err(exit) = written {
                finish_now(writer, exit);
            }
        });
        pool.give(chunk);
        match writer.take(outcome) {
            Ok([out, audit]) => {
                job.give_output(Stream::Out, out);
                job.give_output(Stream::Audit, audit);
                true
            }
            Err(exit) => {
                failure = Some(exit);
                false
            }
        }
    });
    failure.map_or(Ok(()), Err)
}

fn run_parallel(
    job: &Job<'_>,
    inputs: Vec<input::Input>,
    jobs: usize,
    writer: &mut Writer<'_>,
) -> Result<(), Exit> {
    let pool = &input::ChunkPool::default();
    let reader = input::Reader::new(inputs, job.format, job.max_record, pool);
    let shared = &Shared::new(reader, (jobs * 4).min(MAX_IN_FLIGHT), MAX_IN_FLIGHT_BYTES);
    // Whichever worker completes the next chunk due writes it, and any
    // completed ones after it: no writer thread to wake for every chunk.
    let ordered = Mutex::new(Ordered {
        writer,
        pending: BTreeMap::new(),
        next: 0,
    });
    // Signalled when `next` moves on (a worker with a large output waits
    // for its chunk's turn).
    let turn = &Condvar::new();
    let ordered = &ordered;
    let work = |fresh: bool| {
        // Leaving other than at the end of the input (a panic) stops the
        // input, so the other workers do not wait for room.
        let mut leaving = StopOnDrop::new(shared);
        let mut worker = new_worker(job, fresh);
        while let Some(chunk) = shared.next() {
            let index = chunk.index;
            // Output beyond the spill size is written once this chunk's
            // turn has come (the chunk due next is always being worked on
            // or done, so the wait ends).
            let outcome = job.process(&chunk, &mut worker, &mut |stream, bytes| {
                let Ok(mut o) = ordered.lock() else {
                    return;
                };
                while o.next != index {
                    o = match turn.wait(o) {
                        Ok(o) => o,
                        Err(_) => return,
                    };
                }
                let written = match stream {
                    Stream::Out => o.writer.write_raw(bytes),
                    Stream::Audit => o.writer.write_audit(bytes),
                };
                if let Err(exit) = written {
                    finish_now(o.writer, exit);
                }
            });
            pool.give(chunk);
            let written = {
                // A poisoned lock means another worker panicked: stop too.
                let Ok(mut ordered) = ordered.lock() else {
                    return;
                };
                let o = &mut *ordered;
                o.pending.insert(index, outcome);
                let mut written = Vec::new();
                while let Some(outcome) = o.pending.remove(&o.next) {
                    written.push(outcome.input_bytes);
                    match o.writer.take(outcome) {
                        Ok([out, audit]) => {
                            job.give_output(Stream::Out, out);
                            job.give_output(Stream::Audit, audit);
                        }
                        // Stop now: another worker may be blocked reading a slow stdin.
                        Err(exit) => finish_now(o.writer, exit),
                    }
                    o.next += 1;
                }
                if !written.is_empty() {
                    turn.notify_all();
                }
                written
            };
            for bytes in written {
                shared.written(bytes);
            }
        }
        leaving.disarm();
    };
    std::thread::scope(|scope| {
        // The calling thread is one of the workers. More workers than
        // chunks in flight would wait for ever; a thread the system refuses
        // means fewer workers, not a failure.
        for _ in 1..jobs.min(MAX_IN_FLIGHT) {
            if std::thread::Builder::new()
                .spawn_scoped(scope, move || work(true))
                .is_err()
            {
                break;
            }
        }
        work(false);
    });
    Ok(())
}

/// Chunks' outcomes waiting for their turn to be written.
struct Ordered<'w, 'a> {
    writer: &'w mut Writer<'a>,
    pending: BTreeMap<u64, Outcome>,
    /// Index of the next chunk to write.
    next: u64,
}
