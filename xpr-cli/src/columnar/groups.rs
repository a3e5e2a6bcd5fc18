//! Parquet files read a row group at a time.
//!
//! A group is decoded by [`Fast`] when it can be (the common flat types
//! and encodings, NDJSON out), else by parquet's arrow reader.
//!
//! `--filter`, late: when the predicate reads only some of the file's
//! columns, those are decoded first and the predicate evaluated on them
//! (batch by batch, every row within the per-run limits as on the plain
//! path: by [`Fast`] as it reads, or through parquet's `RowFilter`); the
//! other columns are then decoded for the kept rows only. A filter that keeps few rows of a wide file
//! decodes little more than its predicate's columns. Output and errors
//! are the plain path's: the kept rows in order, each failing row counted
//! and the first ones reported with its row number, `--on-error fail`
//! stopping at the first failing row after the rows kept before its
//! batch. The predicate's verdicts over a group (records, errors, the
//! error that stops the run) are handed on after that group's kept rows.

use std::fs::File;
use std::sync::{Arc, Mutex};

use arrow_array::{BooleanArray, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::file::metadata::ParquetMetaData;
use xpr::{Error, Program};
use xpr_arrow::BatchOptions;

use super::decode::{Fast, Judge};
use super::{SHOWN_ERRORS, keep_mask};

/// A row group's batches.
pub(super) type Batches = Box<dyn RecordBatchReader + Send>;

/// What the predicate gave over one row group, besides its kept rows.
#[derive(Debug, Default)]
pub(super) struct Verdicts {
    /// Rows the predicate saw.
    pub records: u64,
    /// Rows whose predicate failed (not kept).
    pub errors: u64,
    /// The first few failing rows (from 0, within the file) and errors.
    pub shown: Vec<(u64, Error)>,
    /// The error that stops the run: a row's under `--on-error fail`
    /// (with its row from 0 within the file), or a batch-wide one.
    pub fatal: Option<(Option<u64>, Error)>,
}

/// A Parquet file's row groups, read one by one.
pub(super) struct Groups {
    /// The file's name, for errors.
    pub source: Arc<str>,
    file: File,
    meta: ArrowReaderMetadata,
    /// The next row group to read, and the file's row (from 0) it starts at.
    group: usize,
    first_row: u64,
    /// The root columns read.
    columns: Vec<usize>,
    /// `--filter`, late: the root columns the predicate reads (some of
    /// the file's, not all), the program and its options.
    predicate: Option<(Vec<usize>, Program, BatchOptions)>,
    batch_rows: usize,
    /// Whether a row group may be read by [`Fast`] (string columns then
    /// come as dictionaries), and whether the group being read is read
    /// late.
    fast: bool,
    late: bool,
    /// Late: the predicate's verdicts over the group being read, complete
    /// once its reader is done.
    verdicts: Option<Arc<Mutex<Verdicts>>>,
}

impl Groups {
    /// The row groups of `file`, reading its root `columns`; with
    /// `predicate` (`--filter`: every column read), late when the
    /// predicate reads some of the columns but not all of them; by
    /// [`Fast`] where it can (`fast`: the rows' types are not written out).
    pub(super) fn new(
        source: Arc<str>,
        file: File,
        meta: ArrowReaderMetadata,
        columns: Vec<usize>,
        predicate: Option<(Vec<usize>, &Program, &BatchOptions)>,
        batch_rows: usize,
        fast: bool,
    ) -> Groups {
        let all = meta.schema().fields().len();
        let predicate = predicate
            .filter(|(reads, _, _)| !reads.is_empty() && reads.len() < all)
            .map(|(reads, program, options)| (reads, program.clone(), options.clone()));
        Groups {
            source,
            file,
            meta,
            group: 0,
            first_row: 0,
            columns,
            predicate,
            batch_rows,
            fast,
            late: false,
            verdicts: None,
        }
    }

    /// Whether the row group being read was filtered as it was read.
    pub(super) fn late(&self) -> bool {
        self.late
    }

    /// Late, once the group's reader is done: the predicate's verdicts
    /// over it (once).
    pub(super) fn take_verdicts(&mut self) -> Option<Verdicts> {
        let v = self.verdicts.take()?;
        let mut v = v.lock().unwrap_or_else(|p| p.into_inner());
        Some(std::mem::take(&mut *v))
    }

    /// The schema of the rows read under `--filter` (every column).
    pub(super) fn schema(&self) -> Arc<Schema> {
        self.meta.schema().clone()
    }

    /// The next row group's reader (of the kept rows, late) and the
    /// file's row (from 0) its first row is; `None` after the last group.
    /// Late, the predicate's verdicts over the group are ready for
    /// [`Groups::take_verdicts`] once the reader is done.
    ///
    /// # Errors
    /// An unreadable file (the text of parquet's error).
    pub(super) fn next_group(&mut self) -> Result<Option<(Batches, u64)>, String> {
        let groups = self.meta.metadata().row_groups();
        let Some(group) = groups.get(self.group) else {
            return Ok(None);
        };
        let first_row = self.first_row;
        self.group += 1;
        self.first_row += u64::try_from(group.num_rows()).unwrap_or(0);
        let verdicts = Arc::new(Mutex::new(Verdicts::default()));
        self.late = self.predicate.is_some();
        self.verdicts = self.late.then(|| verdicts.clone());
        if self.fast {
            let late = self.predicate.as_ref().map(|(reads, program, options)| {
                let mut judge = judge(
                    program.clone(),
                    options.clone(),
                    first_row,
                    verdicts.clone(),
                );
                let verdicts = verdicts.clone();
                let judge: Judge = Box::new(move |batch| {
                    let keep = judge(batch).ok()?;
                    let fatal = verdicts
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .fatal
                        .is_some();
                    (!fatal).then_some(keep)
                });
                (reads.clone(), judge)
            });
            let fast = Fast::new(
                &self.file,
                &self.meta,
                self.group - 1,
                &self.columns,
                self.batch_rows,
                late,
            );
            if let Some(fast) = fast {
                return Ok(Some((Box::new(fast?), first_row)));
            }
        }
        let file = self.file.try_clone().map_err(|e| e.to_string())?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, self.meta.clone())
            .with_batch_size(self.batch_rows)
            .with_row_groups(vec![self.group - 1]);
        let mask = ProjectionMask::roots(builder.parquet_schema(), self.columns.clone());
        let builder = builder.with_projection(mask);
        let Some((reads, program, options)) = &self.predicate else {
            let reader = builder.build().map_err(|e| e.to_string())?;
            return Ok(Some((Box::new(reader), first_row)));
        };
        let mask = ProjectionMask::roots(builder.parquet_schema(), reads.clone());
        let judge = judge(program.clone(), options.clone(), first_row, verdicts);
        let predicate = ArrowPredicateFn::new(mask, judge);
        // The predicate runs over the whole group here.
        let reader = builder
            .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Some((Box::new(reader), first_row)))
    }
}

/// Checks that every column chunk `meta` lists lies within the file,
/// `file_len` bytes long: parquet's reader panics on a negative offset
/// and sizes its reads by these numbers.
///
/// # Errors
/// The first chunk out of place, named by row group and column.
pub(super) fn check_chunks(meta: &ParquetMetaData, file_len: u64) -> Result<(), String> {
    for (g, group) in meta.row_groups().iter().enumerate() {
        for chunk in group.columns() {
            let start = chunk
                .dictionary_page_offset()
                .unwrap_or(chunk.data_page_offset());
            let end = u64::try_from(start)
                .ok()
                .zip(u64::try_from(chunk.compressed_size()).ok())
                .and_then(|(s, n)| s.checked_add(n));
            if end.is_none_or(|e| e > file_len) {
                return Err(format!(
                    "damaged file: row group {g}'s column chunk {} lies outside the file \
                     ({file_len} bytes)",
                    chunk.column_path()
                ));
            }
        }
    }
    Ok(())
}

/// The predicate over a row group starting at the file's row `first_row`
/// (from 0): each batch evaluated as on the plain path, its verdicts
/// recorded; after a fatal error no further row is kept.
fn judge(
    program: Program,
    options: BatchOptions,
    first_row: u64,
    verdicts: Arc<Mutex<Verdicts>>,
) -> impl FnMut(RecordBatch) -> Result<BooleanArray, ArrowError> + Send + 'static {
    let mut row = first_row;
    move |batch: RecordBatch| {
        let rows = batch.num_rows();
        let start = row;
        row += rows as u64;
        let mut v = verdicts.lock().unwrap_or_else(|p| p.into_inner());
        let none = || BooleanArray::from(vec![false; rows]);
        if v.fatal.is_some() {
            return Ok(none());
        }
        v.records += rows as u64;
        match xpr_arrow::evaluate_batch_report(&program, &batch, &options) {
            Ok(e) => {
                v.errors += e.errors.len() as u64;
                let room = SHOWN_ERRORS.saturating_sub(v.shown.len());
                v.shown.extend(
                    e.errors
                        .into_iter()
                        .take(room)
                        .map(|(r, error)| (start + r as u64, error)),
                );
                Ok(keep_mask(&e.values))
            }
            Err(e) => {
                v.fatal = Some((e.row.map(|r| start + r as u64), e.error));
                Ok(none())
            }
        }
    }
}
