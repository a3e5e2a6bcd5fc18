//! `xpr run --agg LIST [--group-by LIST] [FILE ...]`: grouped, streaming
//! aggregation (docs/cli.md "Aggregation"; choices in docs/decisions.md).
//!
//! The `--jobs` workers each take the next chunk of records (as `xpr run`
//! does), evaluate the keys and the aggregates' arguments for every
//! record, and fill their own groups ([`Groups`]); at the end the workers'
//! groups are merged, in a way that does not depend on which worker saw
//! which record, and written one object per group in the order of each
//! group's first record. Memory holds the groups (at most `--max-groups`,
//! their state at most `--max-group-bytes`) and the chunks in flight.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use xpr::{Value, Vm, render_error};

use super::agg_spec::{Kind, Spec};
use super::aggregate::{Groups, Over};
use super::input::{self, Chunk, Problem};
use super::json_in::{self, Conv, Wanted};
use super::table::Table;
use super::{Exit, InputFormat, OnError, OutputFormat, RunArgs};
use super::{Failure, Fields, MAX_IN_FLIGHT, MAX_IN_FLIGHT_BYTES, SHOWN_ERRORS, Whole};
use crate::source::{Shared, StopOnDrop};

/// A record's failure, with where it happened.
struct Failed {
    /// The record's number in the input, from 1.
    record: u64,
    source: Arc<str>,
    line: u64,
    /// The part that failed (for the caret), if an expression did.
    part: Option<usize>,
    failure: Failure,
}

/// What one worker saw.
struct Seen<'a> {
    groups: Groups<'a>,
    records: u64,
    errors: u64,
    big_ints: u64,
    /// The first few per-record errors that did not stop the run.
    reported: Vec<Failed>,
    /// The first error that stops the run (`--on-error fail`, bad input
    /// that cannot be skipped).
    fatal: Option<Failed>,
    /// A bound passed.
    over: Option<Over>,
}

/// What every worker shares, read-only.
struct Job<'a> {
    spec: &'a Spec,
    wanted: Wanted,
    as_name: Option<&'a str>,
    on_error: OnError,
    strict: bool,
    format: InputFormat,
    max_record: usize,
    max_depth: u32,
    /// Per part, the index among the wanted fields of the one field it
    /// is (without `--as`): its value is taken as it is, no program run.
    direct: Vec<Option<usize>>,
}

/// Runs `xpr run --agg`; `files` are the inputs (every positional
/// argument: there is no EXPR).
///
/// # Errors
/// Status 2 for flags this mode does not take, a list that does not
/// parse, unreadable input; status 1 for an expression error (or a
/// record's, with `--on-error fail`) or a bound passed.
pub(crate) fn run(args: &RunArgs, agg: &str, files: &[PathBuf]) -> Result<(), Exit> {
    let started = Instant::now();
    for (given, flag) in [
        (args.filter, "--filter"),
        (args.output.audit.is_some(), "--audit"),
        (args.output.output_schema.is_some(), "--output-schema"),
        (args.guard.expect.is_some(), "--expect"),
        (args.slurp, "--slurp"),
        (
            matches!(args.input, InputFormat::Parquet | InputFormat::Arrow),
            "--input parquet|arrow",
        ),
        (
            matches!(
                args.output_format,
                OutputFormat::Parquet | OutputFormat::Arrow
            ),
            "--output parquet|arrow",
        ),
    ] {
        if given {
            return Err(Exit::usage(format_args!(
                "{flag} is not supported with --agg yet"
            )));
        }
    }
    let engine = args.guard.apply(args.limits.engine());
    let spec = Spec::new(&engine, args.group_by.as_deref(), agg)?;
    let mut names: Vec<xpr::Key> = Vec::new();
    for part in &spec.parts {
        super::super::warn_unknown_functions(&part.program);
        for k in part.program.context_names() {
            if !names.iter().any(|n| n == k) {
                names.push(k.clone());
            }
        }
    }
    let inputs = input::open(files)?;
    let jobs = args
        .jobs
        .map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        )
        .min(MAX_IN_FLIGHT);
    let wanted = Wanted::new(&names);
    let direct = spec
        .parts
        .iter()
        .map(|p| {
            p.field
                .as_deref()
                .filter(|_| args.as_name.is_none())
                .and_then(|f| wanted.find(f))
        })
        .collect();
    let job = Job {
        spec: &spec,
        direct,
        wanted,
        as_name: args.as_name.as_deref(),
        on_error: args.on_error,
        strict: args.strict_numbers,
        format: args.input,
        max_record: args.max_record_bytes,
        max_depth: args.limits.value_depth(),
    };
    let bytes = AtomicU64::new(0);
    let pool = &input::ChunkPool::default();
    let reader = input::Reader::new(inputs, args.input, args.max_record_bytes, pool);
    let shared = &Shared::new(reader, (jobs * 4).min(MAX_IN_FLIGHT), MAX_IN_FLIGHT_BYTES);
    let seen = Mutex::new(Vec::new());
    let work = || {
        let mut leaving = StopOnDrop::new(shared);
        let mut s = Seen {
            groups: Groups::new(&spec.aggs, args.max_groups, args.max_group_bytes, &bytes),
            records: 0,
            errors: 0,
            big_ints: 0,
            reported: Vec::new(),
            fatal: None,
            over: None,
        };
        let mut vm = Vm::new();
        let mut conv = Conv::new(job.strict, job.max_depth);
        let mut fields = Vec::new();
        while let Some(chunk) = shared.next() {
            let stop = job.chunk(&chunk, &mut s, &mut vm, &mut conv, &mut fields);
            let n = chunk.data.len();
            pool.give(chunk);
            shared.written(n);
            if stop {
                shared.stop();
                break;
            }
        }
        s.big_ints = conv.big_ints;
        leaving.disarm();
        if let Ok(mut all) = seen.lock() {
            all.push(s);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs {
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_err()
            {
                break;
            }
        }
        work();
    });
    let seen = seen.into_inner().unwrap_or_default();
    finish(args, &spec, seen, started)
}

impl Job<'_> {
    /// Adds the records of `chunk` to `s`; true when the run must stop.
    fn chunk(
        &self,
        chunk: &Chunk,
        s: &mut Seen<'_>,
        vm: &mut Vm,
        conv: &mut Conv,
        fields: &mut Vec<Option<Value>>,
    ) -> bool {
        let text = std::str::from_utf8(&chunk.data).ok();
        let mut values: Vec<Value> = Vec::with_capacity(self.spec.parts.len());
        let mut args: Vec<Option<Value>> = Vec::with_capacity(self.spec.aggs.len());
        for (i, r) in chunk.records.iter().enumerate() {
            let record = chunk.first_record + i as u64;
            let problem = |part, failure| Failed {
                record,
                source: chunk.source.clone(),
                line: r.line,
                part,
                failure,
            };
            if matches!(r.problem, Some(Problem::Unended)) {
                s.fatal = Some(problem(
                    None,
                    Failure::Unended(format!(
                        "the input ended inside this record, longer than {} bytes (--max-record-bytes)",
                        self.max_record
                    )),
                ));
                return true;
            }
            s.records += 1;
            values.clear();
            // The failures of this record: (part, failure).
            let mut failed: Option<(Option<usize>, Failure)> = None;
            if let Err(f) = self.evaluate(chunk, r, text, vm, conv, fields, &mut values) {
                failed = Some(f);
            }
            if let Some((part, failure)) = failed {
                // Only errors that will be shown get a hint (`totl`: did
                // you mean `total`?).
                let shown = self.on_error == OnError::Fail || s.reported.len() < SHOWN_ERRORS;
                let failure = if shown {
                    super::with_field_hint(failure, chunk.bytes(r))
                } else {
                    failure
                };
                let whole = matches!(failure, Failure::Input(_)) || self.on_error == OnError::Skip;
                match self.on_error {
                    OnError::Fail => {
                        s.fatal = Some(problem(part, failure));
                        return true;
                    }
                    OnError::Skip | OnError::Null => {
                        s.errors += 1;
                        if s.reported.len() < SHOWN_ERRORS {
                            s.reported.push(problem(part, failure));
                        }
                        if whole {
                            continue;
                        }
                    }
                }
            }
            let keys = self.spec.keys.len();
            args.clear();
            args.extend(
                self.spec
                    .aggs
                    .iter()
                    .map(|a| a.arg.map(|p| values.get(p).cloned().unwrap_or(Value::Null))),
            );
            if let Err(over) = s
                .groups
                .add(&values[..keys.min(values.len())], &args, record)
            {
                s.over = Some(over);
                return true;
            }
        }
        false
    }

    /// Evaluates every part on record `r` into `values` (a failed part's
    /// value is null with `--on-error null`: the record's first failure is
    /// returned after all parts ran).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &self,
        chunk: &Chunk,
        r: &input::Record,
        text: Option<&str>,
        vm: &mut Vm,
        conv: &mut Conv,
        fields: &mut Vec<Option<Value>>,
        values: &mut Vec<Value>,
    ) -> Result<(), (Option<usize>, Failure)> {
        let input = |f| (None, f);
        match &r.problem {
            None | Some(Problem::Unended) => {}
            Some(Problem::TooLong) => {
                return Err(input(Failure::Input(format!(
                    "record longer than {} bytes (--max-record-bytes)",
                    self.max_record
                ))));
            }
            Some(Problem::Broken(message)) => return Err(input(Failure::Input(message.clone()))),
        }
        let record = match text.and_then(|t| t.get(r.start..r.end)) {
            Some(record) => record,
            None => std::str::from_utf8(chunk.bytes(r)).map_err(|e| {
                input(Failure::Input(format!(
                    "invalid UTF-8 at byte {} of the record",
                    e.valid_up_to() + 1
                )))
            })?,
        };
        let whole;
        let parsed;
        let context: &dyn xpr::Context = match self.as_name {
            Some(name) => {
                let record = json_in::parse_value(record, conv)
                    .map_err(|e| input(super::json_failure(self.format, &e)))?;
                whole = Whole { name, record };
                &whole
            }
            None => {
                json_in::parse_fields(record, &self.wanted, fields, conv)
                    .map_err(|e| input(super::json_failure(self.format, &e)))?;
                parsed = Fields::new(&self.wanted, fields);
                &parsed
            }
        };
        let mut first = None;
        for (i, part) in self.spec.parts.iter().enumerate() {
            // A field the record has is its value; one it lacks is left to
            // the program, for its error.
            let field = self.direct[i]
                .and_then(|f| fields.get(f))
                .and_then(Option::as_ref);
            let result = match field {
                Some(v) => Ok(v.clone()),
                None => part.program.run_in(vm, context),
            }
            .and_then(|v| self.check(i, v));
            match result {
                Ok(v) => values.push(v),
                Err(e) => {
                    values.push(Value::Null);
                    if first.is_none() {
                        first = Some((Some(i), Failure::Eval(e)));
                    }
                    if self.on_error != OnError::Null {
                        break;
                    }
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Refuses a key that is a function or regex, and a non-number (other
    /// than null) for `sum`, `avg`, `min` and `max`.
    fn check(&self, part: usize, v: Value) -> Result<Value, xpr::Error> {
        if part < self.spec.keys.len() {
            if matches!(v, Value::Function(_) | Value::Regex(_)) {
                return Err(xpr::Error::type_error(format_args!(
                    "a group key cannot be a {}",
                    v.type_name()
                )));
            }
            return Ok(v);
        }
        if matches!(v, Value::Number(_) | Value::Null) {
            return Ok(v);
        }
        for a in &self.spec.aggs {
            if a.arg == Some(part)
                && let Some(name) = match a.kind {
                    Kind::Sum => Some("sum"),
                    Kind::Avg => Some("avg"),
                    Kind::Min => Some("min"),
                    Kind::Max => Some("max"),
                    _ => None,
                }
            {
                let source = &self.spec.parts[part].source;
                return Err(xpr::Error::type_error(format_args!(
                    "{name}() takes numbers (or null, which it skips), got {}",
                    v.type_name()
                ))
                .with_hint("convert it with number(x), or give null for values to leave out")
                .at(xpr::Span {
                    start: 0,
                    end: source.chars().count() as u32,
                }));
            }
        }
        Ok(v)
    }
}

/// Merges the workers' groups and writes them, or the error that stops
/// the run.
fn finish(args: &RunArgs, spec: &Spec, seen: Vec<Seen<'_>>, started: Instant) -> Result<(), Exit> {
    let (mut records, mut errors, mut big_ints) = (0, 0, 0);
    let mut reported = Vec::new();
    let mut fatal: Option<Failed> = None;
    let mut over = None;
    let mut merged: Option<Groups<'_>> = None;
    for s in seen {
        records += s.records;
        errors += s.errors;
        big_ints += s.big_ints;
        reported.extend(s.reported);
        if let Some(f) = s.fatal
            && fatal.as_ref().is_none_or(|g| f.record < g.record)
        {
            fatal = Some(f);
        }
        over = over.or(s.over);
        match &mut merged {
            None => merged = Some(s.groups),
            Some(m) => {
                if let Err(o) = m.merge(s.groups) {
                    over = over.or(Some(o));
                }
            }
        }
    }
    reported.sort_by_key(|p| p.record);
    let cut = fatal.as_ref().map_or(u64::MAX, |f| f.record);
    let mut text = String::new();
    let mut shown = 0;
    for p in reported
        .iter()
        .filter(|p| p.record < cut)
        .take(SHOWN_ERRORS)
    {
        text.push_str(&describe("warning", p, spec));
        shown += 1;
    }
    if errors > shown {
        text.push_str("warning: further record errors are counted, not shown\n");
    }
    // -q: the summary's error count stands for them.
    if args.quiet == 0 {
        eprint(&text);
    }
    if let Some(f) = fatal {
        let code = if matches!(f.failure, Failure::Eval(_)) {
            1
        } else {
            2
        };
        return Err(Exit {
            code,
            message: Some(describe("error", &f, spec)),
        });
    }
    let bound = |o: Over| Exit::expression(over_text(&o, spec, args));
    if let Some(o) = over {
        return Err(bound(o));
    }
    let Some(mut groups) = merged else {
        return Ok(());
    };
    if spec.keys.is_empty() && groups.len() == 0 {
        // Without --group-by, one row even for no records (count 0).
        groups.add_empty().map_err(bound)?;
    }
    let rows = groups.finish(&spec.keys).map_err(bound)?;
    let mut out = std::io::BufWriter::with_capacity(128 << 10, std::io::stdout());
    let mut table = Table::new(args.output_format);
    let mut buf = Vec::new();
    if let Some(t) = &mut table {
        // The columns are known: no groups is a header alone.
        let names: Vec<&str> = (spec.keys.iter().map(String::as_str))
            .chain(spec.aggs.iter().map(|a| a.name.as_str()))
            .collect();
        t.header(&mut buf, &names);
    }
    for row in &rows {
        match &mut table {
            Some(t) => {
                // Every row has the same fields, in the same order.
                let _ = t.row(&mut buf, row);
            }
            None => {
                super::json_out::write_value(&mut buf, row);
                buf.push(b'\n');
            }
        }
        out.write_all(&buf).map_err(Exit::from_stdout)?;
        buf.clear();
    }
    out.write_all(&buf).map_err(Exit::from_stdout)?;
    out.flush().map_err(Exit::from_stdout)?;
    if args.quiet < 2 {
        eprint(&super::writer::summary_line(
            records,
            &super::writer::plural(rows.len() as u64, "group", "groups"),
            errors,
            started.elapsed().as_secs_f64(),
            big_ints,
        ));
    }
    Ok(())
}

/// The message of a bound passed.
fn over_text(o: &Over, spec: &Spec, args: &RunArgs) -> String {
    let key = |k: &[Value]| {
        let mut map = xpr::Map::default();
        for (name, v) in spec.keys.iter().zip(k) {
            map.insert(Arc::from(name.as_str()), v.clone());
        }
        let mut text = Vec::new();
        super::json_out::write_value(&mut text, &Value::object(map));
        String::from_utf8_lossy(&text).into_owned()
    };
    match o {
        Over::Groups(n) => format!(
            "error: more than {n} groups (--max-groups {}): raise the limit, or group by fewer values\n",
            args.max_groups
        ),
        Over::Bytes(n) => format!(
            "error: the groups' state takes more than {n} bytes (--max-group-bytes): raise the limit, \
             or keep less per group (collect, countDistinct, first, last hold values)\n"
        ),
        Over::Bound {
            name,
            function,
            bound,
            key: k,
        } => format!(
            "error: {name}: {function}() holds more than {bound} values in the group {} \
             (give a larger bound as its second argument: {function}(EXPR, {}))\n",
            key(k),
            bound.saturating_mul(10)
        ),
        Over::Overflow { name, key: k } => format!(
            "error: {name}: Number overflow in sum(): the total of the group {} is beyond the largest number\n",
            key(k)
        ),
    }
}

/// `LEVEL: SOURCE:LINE: MESSAGE`; for an expression's error, the output
/// field it is for and the caret under its text.
fn describe(level: &str, p: &Failed, spec: &Spec) -> String {
    match (&p.failure, p.part.and_then(|i| spec.parts.get(i))) {
        (Failure::Eval(e), Some(part)) => {
            let rendered = render_error(e, &part.source);
            let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
            format!("{level}: {}:{}: {}: {body}", p.source, p.line, part.name)
        }
        (Failure::Eval(e), None) => format!("{level}: {}:{}: {e}\n", p.source, p.line),
        (Failure::Input(m) | Failure::Unended(m), _) => {
            format!("{level}: {}:{}: {m}\n", p.source, p.line)
        }
    }
}

fn eprint(text: &str) {
    if !text.is_empty() {
        // A closed stderr leaves nothing to report to.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}
