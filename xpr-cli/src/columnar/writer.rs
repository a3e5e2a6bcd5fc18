//! Writing results in input order: NDJSON lines, or a Parquet or Arrow
//! IPC file of one `value` column (with `--filter`, the kept rows).

use std::io::{BufWriter, Stdout, Write as _};
use std::time::Instant;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Schema, SchemaRef};
use xpr::Error;

use super::{Done, Exit, Outcome, SHOWN_ERRORS};
use crate::json_out;

/// Where results go.
pub(super) enum Sink {
    Ndjson(BufWriter<Stdout>),
    /// Made with the first batch's schema.
    Parquet(Option<parquet::arrow::ArrowWriter<BufWriter<Stdout>>>),
    Arrow(Option<arrow_ipc::writer::FileWriter<BufWriter<Stdout>>>),
}

/// Writes results in order and keeps the counts.
pub(super) struct Writer {
    pub(super) sink: Sink,
    /// `--filter`: whole rows are written, not one `value` column.
    pub(super) filter_rows: bool,
    /// The output file's schema and whether its `value` column is JSON
    /// text, once the first batch fixed them.
    pub(super) schema: Option<(SchemaRef, bool)>,
    pub(super) records: u64,
    pub(super) outputs: u64,
    pub(super) errors: u64,
    pub(super) shown: usize,
    /// The note that further errors are only counted was printed.
    pub(super) noted: bool,
    pub(super) started: Instant,
    /// `-q` (1): no per-row warnings; `-qq` (2): no summary line either.
    pub(super) quiet: u8,
}

fn arrow_exit(e: impl std::fmt::Display) -> Exit {
    Exit::usage(format_args!("cannot write the output: {e}"))
}

impl Writer {
    pub(super) fn take(&mut self, o: Outcome) -> Result<(), Exit> {
        self.records += o.records;
        self.outputs += o.outputs;
        self.errors += o.errors;
        for text in &o.reported {
            if self.shown < SHOWN_ERRORS && self.quiet == 0 {
                eprint!("{text}");
                self.shown += 1;
            }
        }
        if !self.noted && self.errors > self.shown as u64 && self.quiet == 0 {
            self.noted = true;
            eprintln!("warning: further row errors are counted, not shown");
        }
        match o.done {
            Done::Text(bytes) => {
                if let Sink::Ndjson(out) = &mut self.sink {
                    out.write_all(&bytes).map_err(Exit::from_stdout)?;
                }
            }
            Done::Batch { batch, json_text } => self.write_batch(batch, json_text)?,
        }
        if let Some(fatal) = o.fatal {
            self.flush()?;
            return Err(fatal);
        }
        Ok(())
    }

    /// Writes `batch` to the Parquet or Arrow file, whose schema the first
    /// batch sets: a later batch of all-null results takes its type, any
    /// other change of type is an error.
    pub(super) fn write_batch(&mut self, batch: RecordBatch, json_text: bool) -> Result<(), Exit> {
        let batch = match &self.schema {
            None => {
                self.schema = Some((batch.schema(), json_text));
                batch
            }
            Some((schema, _)) if *schema == batch.schema() && self.same_text(json_text) => batch,
            Some((schema, _)) if !self.filter_rows && all_null(batch.column(0)) => {
                let nulls =
                    arrow_array::new_null_array(schema.field(0).data_type(), batch.num_rows());
                RecordBatch::try_new(schema.clone(), vec![nulls]).map_err(arrow_exit)?
            }
            Some((schema, _)) => {
                return Err(Exit::expression(format!(
                    "error: results change type from one batch to the next ({} then {}), which one \
                     output column cannot hold\n  = hint: make the result's type the same on every \
                     row (e.g. string(...)), or use --output ndjson\n",
                    describe(schema, self.schema.as_ref().is_some_and(|s| s.1)),
                    describe(&batch.schema(), json_text),
                )));
            }
        };
        let schema = batch.schema();
        match &mut self.sink {
            Sink::Ndjson(_) => {}
            Sink::Parquet(w) => {
                if w.is_none() {
                    let props = parquet::file::properties::WriterProperties::builder()
                        .set_compression(parquet::basic::Compression::SNAPPY)
                        .build();
                    let out = BufWriter::with_capacity(1 << 20, std::io::stdout());
                    *w = Some(
                        parquet::arrow::ArrowWriter::try_new(out, schema, Some(props))
                            .map_err(arrow_exit)?,
                    );
                }
                if let Some(w) = w {
                    w.write(&batch).map_err(arrow_exit)?;
                }
            }
            Sink::Arrow(w) => {
                if w.is_none() {
                    let out = BufWriter::with_capacity(1 << 20, std::io::stdout());
                    *w = Some(
                        arrow_ipc::writer::FileWriter::try_new(out, &schema).map_err(arrow_exit)?,
                    );
                }
                if let Some(w) = w {
                    w.write(&batch).map_err(arrow_exit)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn same_text(&self, json_text: bool) -> bool {
        self.schema.as_ref().is_none_or(|s| s.1 == json_text)
    }

    /// Ends the output (a Parquet or Arrow file gets its footer; with no
    /// batch at all, a file of `empty`'s schema and no rows).
    pub(super) fn flush(&mut self) -> Result<(), Exit> {
        match &mut self.sink {
            Sink::Ndjson(out) => out.flush().map_err(Exit::from_stdout),
            Sink::Parquet(w) => match w.take() {
                Some(w) => w.close().map(drop).map_err(arrow_exit),
                None => Ok(()),
            },
            Sink::Arrow(w) => match w.take() {
                Some(mut w) => w.finish().map_err(arrow_exit),
                None => Ok(()),
            },
        }
    }

    /// Ends the output: a Parquet or Arrow file with no batch at all gets
    /// `empty` as its schema.
    pub(super) fn finish(mut self, empty: SchemaRef) -> Result<(), Exit> {
        if self.schema.is_none() && !matches!(self.sink, Sink::Ndjson(_)) {
            self.write_batch(RecordBatch::new_empty(empty), false)?;
        }
        self.flush()?;
        if self.quiet < 2 {
            let plural =
                |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            eprintln!(
                "xpr: {} in, {} out, {}, {:.2} s",
                plural(self.records, "record", "records"),
                self.outputs,
                plural(self.errors, "error", "errors"),
                self.started.elapsed().as_secs_f64(),
            );
        }
        Ok(())
    }
}

/// Whether every cell of `column` is null.
fn all_null(column: &ArrayRef) -> bool {
    column.data_type() == &DataType::Null || column.null_count() == column.len()
}

/// A schema's single column's type, for the error on a change of type.
fn describe(schema: &Schema, json_text: bool) -> String {
    match schema.fields().first() {
        Some(f) if json_text => format!("{} as JSON text", f.data_type()),
        Some(f) => f.data_type().to_string(),
        None => "no column".into(),
    }
}

/// The NDJSON lines of `values` (`json_text`: `Utf8` cells are JSON text).
pub(super) fn ndjson(values: &ArrayRef, json_text: bool) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(values.len() * 16);
    match values.data_type() {
        DataType::Boolean => {
            for v in values.as_boolean() {
                out.extend_from_slice(match v {
                    Some(true) => b"true\n",
                    Some(false) => b"false\n",
                    None => b"null\n",
                });
            }
        }
        DataType::Float64 => {
            for v in values.as_primitive::<arrow_array::types::Float64Type>() {
                match v {
                    Some(n) => json_out::write_number(&mut out, n),
                    None => out.extend_from_slice(b"null"),
                }
                out.push(b'\n');
            }
        }
        DataType::Utf8 => {
            let strings = values.as_string::<i32>();
            // No byte of the batch's strings needs escaping: each is
            // written as it is, between quotes (the text `write_str` gives).
            let plain = !json_text && !needs_escape(strings.value_data());
            for v in strings {
                match v {
                    Some(text) if json_text => out.extend_from_slice(text.as_bytes()),
                    Some(s) if plain => {
                        out.push(b'"');
                        out.extend_from_slice(s.as_bytes());
                        out.push(b'"');
                    }
                    Some(s) => json_out::write_str(&mut out, s),
                    None => out.extend_from_slice(b"null"),
                }
                out.push(b'\n');
            }
        }
        _ => {
            for row in 0..values.len() {
                json_out::write_value(&mut out, &xpr_arrow::cell_value(values.as_ref(), row)?);
                out.push(b'\n');
            }
        }
    }
    Ok(out)
}

/// Whether any byte of `bytes` is one JSON escapes in a string (`"`,
/// `\`, a control character), 64 bytes at a time.
fn needs_escape(bytes: &[u8]) -> bool {
    bytes.chunks(64).any(|c| {
        c.iter().fold(false, |any, &b| {
            any | (b == b'"') | (b == b'\\') | (b < 0x20)
        })
    })
}
