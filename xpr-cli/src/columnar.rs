//! `xpr run --input parquet|arrow` and `--output parquet|arrow` (cargo
//! feature `columnar`, docs/decisions.md "Parquet and Arrow IPC in xpr
//! run"): record batches through xpr-arrow's columnar path.
//!
//! Pipeline: the files are read one record batch ([`BATCH_ROWS`] rows) at a
//! time, only the columns the program reads unless `--filter` writes whole
//! rows; `--jobs` workers (the calling thread one of them) each take the
//! next batch under a lock, evaluate it ([`xpr_arrow::evaluate_batch_report`]
//! or [`xpr_arrow::filter_batch`], every row within the per-run limits) and
//! hand the result on; whichever worker completes the batch due writes it
//! and any completed after it, so output keeps input order. At most
//! `jobs + 1` batches are between read and written: memory stays near
//! that many batches whatever the file's length. Parquet is read a row
//! group at a time; `--filter` over Parquet evaluates its predicate as
//! the rows are read and decodes the other columns for the kept rows
//! only ([`groups`]).
//!
//! Output: `ndjson` (default) writes one JSON value per row (with
//! `--filter`, the kept row as an object of its columns); `parquet` and
//! `arrow` (an Arrow IPC file) write one column `value` of the results
//! (arrays and objects as JSON text), or with `--filter` the kept rows with
//! all their columns.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use xpr::{Error, Program, render_error};
use xpr_arrow::{BatchOptions, Budget, Evaluation};

use super::{Exit, InputFormat, OnError, OutputFormat, RunArgs};

mod chunk;
mod decode;
mod groups;
mod guard;
mod hybrid;
mod ipc;
mod object;
mod pages;
mod rows;
#[cfg(test)]
mod temp_path;
mod values;
mod writer;

use writer::{Sink, Writer, ndjson};

/// Rows per record batch read from Parquet (the columnar path works on
/// this many rows at a time), at most...
pub const BATCH_ROWS: usize = 8 * 1024;

/// ...and about this many bytes of decoded rows at most (fewer rows per
/// batch when rows are wide), from the file's metadata.
pub const BATCH_BYTES: usize = 4 << 20;

/// How many per-row errors are printed before the rest are only counted.
pub(crate) const SHOWN_ERRORS: usize = 20;

/// Batches read and not yet written: one per job, and one more.
const IN_FLIGHT_EXTRA: u64 = 1;

/// A batch to evaluate, with where it came from.
struct Taken {
    seq: u64,
    source: Arc<str>,
    /// The row number (from 1, within its file) of the batch's first row.
    first_row: u64,
    batch: RecordBatch,
    work: Work,
    /// Every column of its file (the batch holds only those read), for
    /// `did you mean` on an unknown name.
    columns: SchemaRef,
}

/// What is to be done with a batch.
enum Work {
    /// Evaluate the program on every row.
    Evaluate,
    /// `--filter` over Parquet, late: the rows were kept by the predicate
    /// while they were read ([`groups`]); write them all.
    Kept,
    /// The predicate's verdicts over a row group whose kept rows came
    /// before (the batch has no rows).
    Verdicts(groups::Verdicts),
}

/// A batch's result, written in batch order.
enum Done {
    /// NDJSON text.
    Text(Vec<u8>),
    /// Rows for the Parquet or Arrow writer (`json_text`: a `Utf8`
    /// `value` column holding JSON text).
    Batch { batch: RecordBatch, json_text: bool },
}

/// What one batch gave.
struct Outcome {
    done: Done,
    records: u64,
    outputs: u64,
    errors: u64,
    /// The first few per-row errors, already described.
    reported: Vec<String>,
    /// The error that stops the run (`--on-error fail`, or a batch-wide one).
    fatal: Option<Exit>,
}

/// The files, read batch by batch.
struct Reader {
    files: std::vec::IntoIter<PathBuf>,
    format: InputFormat,
    /// The top-level column names to read; `None`: all.
    columns: Option<Vec<String>>,
    /// `--filter` over Parquet: the predicate, evaluated as the rows are
    /// read when it reads only some of the columns ([`groups`]).
    predicate: Option<(Program, BatchOptions)>,
    /// The batches being read: their file, and how many rows of it came
    /// before the next batch.
    current: Option<(Arc<str>, Box<dyn RecordBatchReader + Send>, u64)>,
    /// The current Parquet file's row groups (which hold the predicate's
    /// verdicts over the group being read, late, handed on after its
    /// kept rows).
    groups: Option<groups::Groups>,
    seq: u64,
    /// The file being read, for errors.
    source: Option<Arc<str>>,
    /// All its columns (for `did you mean` on an unknown name).
    file_columns: SchemaRef,
    /// Whether string columns may be read as dictionaries (their type is
    /// not written out: NDJSON output).
    dictionaries: bool,
}

impl Reader {
    /// The next batch, or none at the end of the last file.
    ///
    /// # Errors
    /// A file cannot be read (status 2): after that, no further batch.
    fn next(&mut self) -> Result<Option<Taken>, Exit> {
        let next = guard::decoding(|| self.read_next()).unwrap_or_else(|e| {
            let source = self.source.clone().unwrap_or_default();
            Err(read_error(&source, &e))
        });
        if next.is_err() {
            self.files = Vec::new().into_iter();
            (self.current, self.groups) = (None, None);
        }
        next
    }

    fn read_next(&mut self) -> Result<Option<Taken>, Exit> {
        loop {
            if let Some((source, batches, rows)) = &mut self.current {
                match batches.next() {
                    Some(Ok(batch)) if batch.num_rows() == 0 => continue,
                    Some(Ok(batch)) => {
                        let first_row = *rows + 1;
                        *rows += batch.num_rows() as u64;
                        let source = source.clone();
                        let work = if self.groups.as_ref().is_some_and(groups::Groups::late) {
                            Work::Kept
                        } else {
                            Work::Evaluate
                        };
                        return Ok(Some(self.taken(source, first_row, batch, work)));
                    }
                    Some(Err(e)) => return Err(read_error(source, &e.to_string())),
                    None => {
                        let source = source.clone();
                        self.current = None;
                        let group = self.groups.as_mut();
                        if let Some((g, verdicts)) =
                            group.and_then(|g| Some((g.schema(), g.take_verdicts()?)))
                        {
                            let empty = RecordBatch::new_empty(g);
                            let work = Work::Verdicts(verdicts);
                            return Ok(Some(self.taken(source, 1, empty, work)));
                        }
                    }
                }
            }
            if let Some(g) = &mut self.groups {
                let source = g.source.clone();
                match g.next_group().map_err(|e| read_error(&source, &e))? {
                    Some((reader, first_row)) => {
                        self.current = Some((source, reader, first_row));
                        continue;
                    }
                    None => self.groups = None,
                }
            }
            let Some(path) = self.files.next() else {
                return Ok(None);
            };
            let source: Arc<str> = path.display().to_string().into();
            self.source = Some(source.clone());
            let (opened, columns) = open(
                &path,
                &source,
                self.format,
                self.columns.as_deref(),
                self.predicate.as_ref(),
                self.dictionaries,
            )
            .map_err(|e| read_error(&source, &e))?;
            self.file_columns = columns;
            match opened {
                Opened::Batches(batches) => self.current = Some((source, batches, 0)),
                Opened::Groups(g) => self.groups = Some(*g),
            }
        }
    }

    /// The next batch to hand out.
    fn taken(&mut self, source: Arc<str>, first_row: u64, batch: RecordBatch, work: Work) -> Taken {
        self.seq += 1;
        Taken {
            seq: self.seq - 1,
            source,
            first_row,
            batch,
            work,
            columns: self.file_columns.clone(),
        }
    }
}
/// An unreadable file: status 2, naming a compression this build lacks.
fn read_error(source: &str, message: &str) -> Exit {
    if let Some(codec) = message
        .split("Disabled feature at compile time: ")
        .nth(1)
        .map(|c| c.split_whitespace().next().unwrap_or(c))
    {
        let codec = match codec {
            "flate2" => "gzip",
            c => c,
        };
        return Exit::usage(format_args!(
            "{source}: compressed with {codec}, which this build of xpr does not read \
             (Parquet: snappy or uncompressed); rewrite the file with snappy compression"
        ));
    }
    Exit::usage(format_args!("{source}: {message}"))
}

/// An opened file.
enum Opened {
    Batches(Box<dyn RecordBatchReader + Send>),
    /// Parquet, read a row group at a time.
    Groups(Box<groups::Groups>),
}

/// The indices of `schema`'s columns named in `names` (all when `None`).
fn wanted(schema: &Schema, names: Option<&[String]>) -> Vec<usize> {
    let Some(names) = names else {
        return (0..schema.fields().len()).collect();
    };
    (0..schema.fields().len())
        .filter(|&i| names.iter().any(|n| n == schema.field(i).name()))
        .collect()
}

/// Opens one file's batches, reading only `columns` (when given) of it;
/// a Parquet file a row group at a time, late ([`groups`]) when
/// `predicate` is given and reads only some of its columns; with all the
/// file's columns.
fn open(
    path: &Path,
    source: &Arc<str>,
    format: InputFormat,
    columns: Option<&[String]>,
    predicate: Option<&(Program, BatchOptions)>,
    dictionaries: bool,
) -> Result<(Opened, SchemaRef), String> {
    let file = File::open(path).map_err(|e| super::input::io_text(&e))?;
    match format {
        InputFormat::Parquet => {
            let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default())
                .map_err(|e| e.to_string())?;
            let file_len = file.metadata().map_err(|e| e.to_string())?.len();
            groups::check_chunks(meta.metadata(), file_len)?;
            let rows = usize::try_from(meta.metadata().file_metadata().num_rows()).unwrap_or(0);
            let bytes: i64 = meta
                .metadata()
                .row_groups()
                .iter()
                .map(|g| g.total_byte_size())
                .sum();
            let row_bytes = usize::try_from(bytes).unwrap_or(0) / rows.max(1);
            let batch_rows = (BATCH_BYTES / row_bytes.max(1)).clamp(64, BATCH_ROWS);
            let predicate = predicate.map(|(program, options)| {
                let names: Vec<String> = program
                    .context_names()
                    .iter()
                    .map(|k| k.to_string())
                    .collect();
                (wanted(meta.schema(), Some(&names)), program, options)
            });
            let columns = wanted(meta.schema(), columns);
            let all = meta.schema().clone();
            let groups = Opened::Groups(Box::new(groups::Groups::new(
                source.clone(),
                file,
                meta,
                columns,
                predicate,
                batch_rows,
                dictionaries,
            )));
            Ok((groups, all))
        }
        _ => {
            // An Arrow IPC file starts with `ARROW1`; anything else is read
            // as an IPC stream.
            let mut file = BufReader::new(file);
            let mut magic = [0u8; 6];
            let is_file = file.read_exact(&mut magic).is_ok() && &magic == b"ARROW1";
            let file = file.into_inner();
            let mut file = file;
            std::io::Seek::rewind(&mut file).map_err(|e| super::input::io_text(&e))?;
            ipc::check_lengths(&file, is_file)?;
            if is_file {
                let probe = arrow_ipc::reader::FileReader::try_new(
                    file.try_clone().map_err(|e| e.to_string())?,
                    None,
                )
                .map_err(|e| e.to_string())?;
                let (all, projection) = (probe.schema(), wanted(&probe.schema(), columns));
                drop(probe);
                let reader = arrow_ipc::reader::FileReader::try_new(file, Some(projection))
                    .map_err(|e| e.to_string())?;
                Ok((Opened::Batches(Box::new(reader)), all))
            } else {
                let probe = arrow_ipc::reader::StreamReader::try_new(
                    BufReader::new(file.try_clone().map_err(|e| e.to_string())?),
                    None,
                )
                .map_err(|e| e.to_string())?;
                let (all, projection) = (probe.schema(), wanted(&probe.schema(), columns));
                drop(probe);
                std::io::Seek::rewind(&mut file).map_err(|e| super::input::io_text(&e))?;
                let reader = arrow_ipc::reader::StreamReader::try_new(
                    BufReader::new(file),
                    Some(projection),
                )
                .map_err(|e| e.to_string())?;
                Ok((Opened::Batches(Box::new(reader)), all))
            }
        }
    }
}

/// What every worker needs, shared read-only.
struct Job<'a> {
    program: Program,
    expr: &'a str,
    filter: bool,
    output: OutputFormat,
    options: BatchOptions,
    /// An object literal's properties, evaluated each on its own.
    parts: Option<object::Parts>,
}

impl Job<'_> {
    /// Evaluates one batch.
    fn process(&self, t: Taken) -> Outcome {
        let rows = t.batch.num_rows() as u64;
        let mut o = Outcome {
            done: Done::Text(Vec::new()),
            records: rows,
            outputs: 0,
            errors: 0,
            reported: Vec::new(),
            fatal: None,
        };
        match &t.work {
            Work::Evaluate => {}
            Work::Kept => {
                // Counted with the group's verdicts.
                o.records = 0;
                if let Err(e) = self.write_kept(t.batch.clone(), &mut o) {
                    o.fatal = Some(Exit::usage(format_args!("{}: {e}", t.source)));
                }
                return o;
            }
            Work::Verdicts(v) => {
                o.records = v.records;
                o.errors = v.errors;
                for (row, error) in &v.shown {
                    o.reported
                        .push(self.describe_row("warning", &t, *row + 1, error));
                }
                o.fatal = v
                    .fatal
                    .as_ref()
                    .map(|(row, error)| self.fatal(&t, row.map(|r| r + 1), error));
                return o;
            }
        }
        let t = &t;
        let lines = self.output == OutputFormat::Ndjson;
        let by_parts = self
            .parts
            .as_ref()
            .and_then(|p| p.evaluate(&self.program, &t.batch, &self.options, lines));
        let evaluation = match by_parts {
            Some(object::Objects::Lines(text)) => {
                o.outputs = rows;
                o.done = Done::Text(text);
                return o;
            }
            Some(object::Objects::Column(values)) => Ok(Evaluation {
                values,
                errors: Vec::new(),
                fuel_used: 0,
                memory_used: 0,
                rows_on_vm: 0,
                json_text: true,
            }),
            None => xpr_arrow::evaluate_batch_report(&self.program, &t.batch, &self.options),
        };
        let evaluation = match evaluation {
            Ok(e) => e,
            Err(e) => {
                let row = e.row.map(|r| t.first_row + r as u64);
                o.fatal = Some(self.fatal(t, row, &e.error));
                return o;
            }
        };
        o.errors = evaluation.errors.len() as u64;
        for (row, error) in evaluation.errors.iter().take(SHOWN_ERRORS) {
            o.reported.push(self.describe("warning", t, *row, error));
        }
        let result = if self.filter {
            self.keep(t, &evaluation, &mut o)
        } else {
            self.results(&evaluation, &mut o)
        };
        if let Err(e) = result {
            // A column no row could be written from: the input's fault.
            o.fatal = Some(Exit::usage(format_args!("{}: {e}", t.source)));
        }
        o
    }

    /// `--filter`: the rows whose result is truthy.
    fn keep(&self, t: &Taken, e: &Evaluation, o: &mut Outcome) -> Result<(), Error> {
        let keep = keep_mask(&e.values);
        let kept = arrow_select::filter::filter_record_batch(&t.batch, &keep)
            .map_err(Error::type_error)?;
        self.write_kept(kept, o)
    }

    /// Writes the rows `--filter` kept.
    fn write_kept(&self, kept: RecordBatch, o: &mut Outcome) -> Result<(), Error> {
        o.outputs = kept.num_rows() as u64;
        o.done = match self.output {
            OutputFormat::Ndjson => {
                let mut out = Vec::with_capacity(kept.num_rows() * 64);
                rows::write(&mut out, &kept)?;
                Done::Text(out)
            }
            _ => Done::Batch {
                batch: kept,
                json_text: false,
            },
        };
        Ok(())
    }

    /// The results, one per row (fewer with `--on-error skip`).
    fn results(&self, e: &Evaluation, o: &mut Outcome) -> Result<(), Error> {
        let values = &e.values;
        o.outputs = values.len() as u64;
        o.done = match self.output {
            OutputFormat::Ndjson => Done::Text(ndjson(values, e.json_text)?),
            _ => {
                let field = Field::new("value", values.data_type().clone(), true);
                let batch =
                    RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![values.clone()])
                        .map_err(Error::type_error)?;
                Done::Batch {
                    batch,
                    json_text: e.json_text,
                }
            }
        };
        Ok(())
    }

    /// `LEVEL: FILE: row N: message` for row `row` of batch `t`.
    fn describe(&self, level: &str, t: &Taken, row: usize, error: &Error) -> String {
        self.describe_row(level, t, t.first_row + row as u64, error)
    }

    /// `LEVEL: FILE: row N: message` (N from 1 within the file) for a row
    /// of batch `t`; an unknown name that looks like a typo of one of its
    /// columns gets `did you mean` (as a record's field does in NDJSON).
    fn describe_row(&self, level: &str, t: &Taken, row: u64, error: &Error) -> String {
        let names = t.columns.fields().iter().map(|f| f.name().as_str());
        let hinted = crate::run::failure::with_name_hint(error, names);
        let rendered = render_error(hinted.as_ref().unwrap_or(error), self.expr);
        let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
        format!("{level}: {}: row {row}: {body}", t.source)
    }

    /// The error that stops the run: a row's (N from 1 within the file),
    /// status 1, or the batch's as a whole (a column XPR cannot read),
    /// status 2.
    fn fatal(&self, t: &Taken, row: Option<u64>, error: &Error) -> Exit {
        let (text, code) = match row {
            Some(row) => (self.describe_row("error", t, row, error), 1),
            None => (format!("xpr: {}: {error}\n", t.source), 2),
        };
        Exit {
            code,
            message: Some(text),
        }
    }
}

/// Which rows `--filter` keeps: those whose value is truthy (a failed
/// row's null cell is not kept). No nulls in the mask.
pub(crate) fn keep_mask(values: &ArrayRef) -> arrow_array::BooleanArray {
    match values.data_type() {
        DataType::Boolean => {
            let b = values.as_boolean();
            let bits = match b.nulls() {
                Some(nulls) => b.values() & nulls.inner(),
                None => b.values().clone(),
            };
            arrow_array::BooleanArray::new(bits, None)
        }
        _ => (0..values.len())
            .map(|i| {
                Some(
                    values.is_valid(i)
                        && xpr_arrow::cell_value(values.as_ref(), i).is_ok_and(|v| v.truthy()),
                )
            })
            .collect(),
    }
}

/// The reader and the batches taken but not yet written.
struct Shared {
    reader: Reader,
    /// The next batch due to be written.
    next: u64,
    /// Batches completed before their turn.
    waiting: BTreeMap<u64, Outcome>,
    writer: Writer,
    /// Set when the run stops (a fatal error, or the end of the input).
    stop: Option<Exit>,
    ended: bool,
}

/// Runs `xpr run` over Parquet or Arrow IPC files.
///
/// # Errors
/// Status 2 for flags this path does not take, an unreadable file or
/// column, an unwritable output; status 1 for an expression error (or a
/// row's with `--on-error fail`).
pub fn run(args: &RunArgs) -> Result<(), Exit> {
    let started = Instant::now();
    let format = args.input;
    if !matches!(format, InputFormat::Parquet | InputFormat::Arrow) {
        return Err(Exit::usage(format_args!(
            "--output {} needs --input parquet or --input arrow (NDJSON in, Parquet out is not supported yet)",
            args.output_format.name()
        )));
    }
    for (given, flag) in [
        (
            matches!(args.output_format, OutputFormat::Csv | OutputFormat::Tsv),
            "--output csv|tsv",
        ),
        (args.raw, "-r/--raw"),
        (args.as_name.is_some(), "--as"),
        (args.output.audit.is_some(), "--audit"),
        (args.output.output_schema.is_some(), "--output-schema"),
        (args.strict_numbers, "--strict-numbers"),
    ] {
        if given {
            return Err(Exit::usage(format_args!(
                "{flag} is not supported with --input {} yet",
                format.name()
            )));
        }
    }
    if args.files.is_empty() || args.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(Exit::usage(format_args!(
            "--input {} reads files, not standard input: name the file",
            format.name()
        )));
    }
    let engine = args.guard.apply(args.limits.engine());
    let program = args
        .guard
        .compile(&engine, &args.expr)
        .map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    super::warn_unknown_functions(&program);
    // Whole rows are written by `--filter` into Parquet or Arrow and as
    // NDJSON objects: every column then; else only those the program reads.
    let columns = (!args.filter).then(|| {
        program
            .context_names()
            .iter()
            .map(|k| k.to_string())
            .collect()
    });
    let parts = if args.filter {
        None
    } else {
        object::Parts::of(&engine, &args.expr)
    };
    let job = Job {
        parts,
        expr: &args.expr,
        filter: args.filter,
        output: args.output_format,
        options: BatchOptions {
            // With --filter a failed row is a null cell, not kept: the
            // results stay aligned with the rows.
            on_error: match args.on_error {
                OnError::Fail => xpr_arrow::OnError::Fail,
                OnError::Skip if !args.filter => xpr_arrow::OnError::Skip,
                OnError::Skip | OnError::Null => xpr_arrow::OnError::Null,
            },
            // Every row within the per-run limits, as `xpr run` on NDJSON.
            fuel: Budget::PerRow,
            memory: Budget::PerRow,
            row_by_row: false,
        },
        program,
    };
    let sink = match args.output_format {
        // Tables are refused above.
        OutputFormat::Ndjson | OutputFormat::Csv | OutputFormat::Tsv => {
            Sink::Ndjson(BufWriter::with_capacity(128 << 10, std::io::stdout()))
        }
        OutputFormat::Parquet => Sink::Parquet(None),
        OutputFormat::Arrow => Sink::Arrow(None),
    };
    let mut reader = Reader {
        files: args.files.clone().into_iter(),
        format,
        columns,
        predicate: (args.filter && format == InputFormat::Parquet)
            .then(|| (job.program.clone(), job.options.clone())),
        current: None,
        groups: None,
        seq: 0,
        source: None,
        file_columns: Arc::new(Schema::empty()),
        dictionaries: args.output_format == OutputFormat::Ndjson,
    };
    // The first file's schema, for an output with no batch at all.
    let first = reader.next()?;
    // A predicate judged as the rows are read (late) leaves a worker
    // little but writing, and the reading is one at a time: by default
    // one worker then, which takes less CPU time and no more wall time
    // (docs/decisions.md, "Parquet pages decoded by xpr").
    let jobs = match args.jobs {
        Some(j) => usize::from(j),
        None if reader.groups.as_ref().is_some_and(groups::Groups::late) => 1,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let empty = match (&first, args.filter) {
        (Some(t), true) => t.batch.schema(),
        _ => Arc::new(Schema::new(vec![Field::new("value", DataType::Null, true)])),
    };
    let shared = Mutex::new(Shared {
        reader,
        next: 0,
        waiting: BTreeMap::new(),
        writer: Writer {
            sink,
            filter_rows: args.filter,
            schema: None,
            records: 0,
            outputs: 0,
            errors: 0,
            shown: 0,
            noted: false,
            started,
            quiet: args.quiet,
        },
        stop: None,
        ended: first.is_none(),
    });
    let first = Mutex::new(first);
    let turn = Condvar::new();
    let limit = jobs as u64 + IN_FLIGHT_EXTRA;
    let work = || worker(&job, &shared, &first, &turn, limit);
    std::thread::scope(|s| {
        for _ in 1..jobs {
            s.spawn(work);
        }
        work();
    });
    let shared = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(exit) = shared.stop {
        return Err(exit);
    }
    shared.writer.finish(empty)
}

/// One worker: takes the next batch, evaluates it, writes what is due.
fn worker(
    job: &Job<'_>,
    shared: &Mutex<Shared>,
    first: &Mutex<Option<Taken>>,
    turn: &Condvar,
    limit: u64,
) {
    let lock = || shared.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let taken = {
            let mut s = lock();
            loop {
                if s.stop.is_some() {
                    return;
                }
                if let Some(t) = first.lock().ok().and_then(|mut f| f.take()) {
                    break t;
                }
                if s.ended {
                    return;
                }
                if s.reader.seq - s.next < limit {
                    match s.reader.next() {
                        Ok(Some(t)) => break t,
                        Ok(None) => {
                            s.ended = true;
                            turn.notify_all();
                            return;
                        }
                        Err(exit) => {
                            s.stop = Some(exit);
                            turn.notify_all();
                            return;
                        }
                    }
                }
                s = turn.wait(s).unwrap_or_else(|p| p.into_inner());
            }
        };
        let seq = taken.seq;
        let outcome = job.process(taken);
        let mut s = lock();
        s.waiting.insert(seq, outcome);
        loop {
            let due = s.next;
            let Some(o) = s.waiting.remove(&due) else {
                break;
            };
            s.next += 1;
            if s.stop.is_some() {
                break;
            }
            if let Err(exit) = s.writer.take(o) {
                s.stop = Some(exit);
            }
        }
        turn.notify_all();
    }
}
