//! Parquet files read a row group at a time: the group's column chunks
//! that are read at all are fetched whole, one read each (contiguous ones
//! together), and decoded from memory ([`Chunks`]), rather than a seek
//! and two reads for every page; a group whose chunks exceed
//! [`GROUP_BYTES`] is read page by page from the file.
//!
//! `--filter`, late: when the predicate reads only some of the file's
//! columns, those are decoded first and the predicate evaluated on them
//! (parquet's `RowFilter`, batch by batch, every row within the per-run
//! limits as on the plain path); the other columns are then decoded for
//! the kept rows only. A filter that keeps few rows of a wide file
//! decodes little more than its predicate's columns. Output and errors
//! are the plain path's: the kept rows in order, each failing row counted
//! and the first ones reported with its row number, `--on-error fail`
//! stopping at the first failing row after the rows kept before its
//! batch. The predicate's verdicts over a group (records, errors, the
//! error that stops the run) are handed on after that group's kept rows.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::{Arc, Mutex};

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::{ArrowError, Schema};
use bytes::{Buf as _, Bytes};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderMetadata, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};
use xpr::{Error, Program};
use xpr_arrow::BatchOptions;

use super::{SHOWN_ERRORS, keep_mask};

/// A row group's chunks are read whole up to this many bytes (compressed,
/// of the columns read); past it, page by page.
pub const GROUP_BYTES: u64 = 64 << 20;

/// Chunks fewer than this many bytes apart are read in one.
const GAP_BYTES: u64 = 64 << 10;

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
    file: Arc<File>,
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
}

impl Groups {
    /// The row groups of `file`, reading its root `columns`; with
    /// `predicate` (`--filter`: every column read), late when the
    /// predicate reads some of the columns but not all of them.
    pub(super) fn new(
        source: Arc<str>,
        file: File,
        meta: ArrowReaderMetadata,
        columns: Vec<usize>,
        predicate: Option<(Vec<usize>, &Program, &BatchOptions)>,
        batch_rows: usize,
    ) -> Groups {
        let all = meta.schema().fields().len();
        let predicate = predicate
            .filter(|(reads, _, _)| !reads.is_empty() && reads.len() < all)
            .map(|(reads, program, options)| (reads, program.clone(), options.clone()));
        Groups {
            source,
            file: Arc::new(file),
            meta,
            group: 0,
            first_row: 0,
            columns,
            predicate,
            batch_rows,
        }
    }

    /// Whether the predicate is evaluated as the rows are read.
    pub(super) fn late(&self) -> bool {
        self.predicate.is_some()
    }

    /// The schema of the rows read under `--filter` (every column).
    pub(super) fn schema(&self) -> Arc<Schema> {
        self.meta.schema().clone()
    }

    /// The next row group's reader (of the kept rows, late), the file's
    /// row (from 0) its first row is, and, late, the predicate's verdicts
    /// over the group (complete once the reader is built: the predicate
    /// runs over the whole group first); `None` after the last group.
    ///
    /// # Errors
    /// An unreadable file (the text of parquet's error).
    pub(super) fn next_group(
        &mut self,
    ) -> Result<Option<(ParquetRecordBatchReader, u64, Option<Verdicts>)>, String> {
        let groups = self.meta.metadata().row_groups();
        let Some(group) = groups.get(self.group) else {
            return Ok(None);
        };
        let first_row = self.first_row;
        self.group += 1;
        self.first_row += u64::try_from(group.num_rows()).unwrap_or(0);
        let chunks = Chunks::read(&self.file, group, &self.columns).map_err(|e| e.to_string())?;
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(chunks, self.meta.clone())
            .with_batch_size(self.batch_rows)
            .with_row_groups(vec![self.group - 1]);
        let mask = ProjectionMask::roots(builder.parquet_schema(), self.columns.clone());
        let builder = builder.with_projection(mask);
        let Some((reads, program, options)) = &self.predicate else {
            let reader = builder.build().map_err(|e| e.to_string())?;
            return Ok(Some((reader, first_row, None)));
        };
        let verdicts = Arc::new(Mutex::new(Verdicts::default()));
        let mask = ProjectionMask::roots(builder.parquet_schema(), reads.clone());
        let judge = judge(
            program.clone(),
            options.clone(),
            first_row,
            verdicts.clone(),
        );
        let predicate = ArrowPredicateFn::new(mask, judge);
        let reader = builder
            .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
            .build()
            .map_err(|e| e.to_string())?;
        let verdicts = std::mem::take(&mut *verdicts.lock().unwrap_or_else(|p| p.into_inner()));
        Ok(Some((reader, first_row, Some(verdicts))))
    }
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

/// A row group's column chunks held in memory (each with the file offset
/// it starts at), as the parquet reader's input; reads outside them go
/// to the file.
struct Chunks {
    file: Arc<File>,
    len: u64,
    held: Vec<(u64, Bytes)>,
}

impl Chunks {
    /// Reads the chunks of `columns` (root indices) of `group`: none
    /// when they are past [`GROUP_BYTES`] or their offsets make no sense
    /// (the reader then reports the file's fault).
    fn read(
        file: &Arc<File>,
        group: &parquet::file::metadata::RowGroupMetaData,
        columns: &[usize],
    ) -> std::io::Result<Chunks> {
        let len = file.metadata()?.len();
        let mut chunks = Chunks {
            file: file.clone(),
            len,
            held: Vec::new(),
        };
        let schema = group.schema_descr();
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for (i, c) in group.columns().iter().enumerate() {
            if !columns.contains(&schema.get_column_root_idx(i)) {
                continue;
            }
            let start = c.dictionary_page_offset().unwrap_or(c.data_page_offset());
            let (Ok(start), Ok(size)) = (u64::try_from(start), u64::try_from(c.compressed_size()))
            else {
                return Ok(chunks);
            };
            match start.checked_add(size) {
                Some(end) if end <= len => ranges.push((start, end)),
                _ => return Ok(chunks),
            }
        }
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (start, end) in ranges {
            match merged.last_mut() {
                Some(last) if start <= last.1.saturating_add(GAP_BYTES) => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        if merged.iter().map(|(s, e)| e - s).sum::<u64>() > GROUP_BYTES {
            return Ok(chunks);
        }
        let mut f: &File = file;
        for (start, end) in merged {
            let mut buf = vec![0; usize::try_from(end - start).unwrap_or(0)];
            f.seek(SeekFrom::Start(start))?;
            f.read_exact(&mut buf)?;
            chunks.held.push((start, Bytes::from(buf)));
        }
        Ok(chunks)
    }

    /// `length` bytes (to the end of its chunk when `None`) from the file's
    /// offset `start`, when a held chunk has them.
    fn held(&self, start: u64, length: Option<usize>) -> Option<Bytes> {
        self.held.iter().find_map(|(at, bytes)| {
            let from = usize::try_from(start.checked_sub(*at)?).ok()?;
            let to = match length {
                Some(n) => from.checked_add(n)?,
                None => bytes.len(),
            };
            (from <= to && to <= bytes.len()).then(|| bytes.slice(from..to))
        })
    }
}

impl Length for Chunks {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for Chunks {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        if let Some(bytes) = self.held(start, None) {
            return Ok(bytes.reader());
        }
        // A page header outside the chunks: read what is left of the file,
        // up to 64 KiB (headers are small).
        let rest = usize::try_from(self.len.saturating_sub(start).min(GAP_BYTES)).unwrap_or(0);
        Ok(self.get_bytes(start, rest)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        match self.held(start, Some(length)) {
            Some(bytes) => Ok(bytes),
            None => self.file.as_ref().get_bytes(start, length),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held chunks answer reads inside them; reads outside (or running
    /// past a chunk's end) go to the file, with the same bytes.
    #[test]
    fn chunks_answer_from_memory_or_the_file() {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let path = std::env::temp_dir().join(format!("xpr-chunks-{}", std::process::id()));
        std::fs::write(&path, &data).expect("write");
        let file = Arc::new(File::open(&path).expect("open"));
        let chunks = Chunks {
            file,
            len: 10_000,
            held: vec![
                (100, Bytes::copy_from_slice(&data[100..200])),
                (5_000, Bytes::copy_from_slice(&data[5_000..6_000])),
            ],
        };
        for (start, n) in [
            (100, 100),
            (150, 10),
            (5_999, 1),
            (199, 2),
            (0, 50),
            (9_990, 10),
        ] {
            let got = chunks.get_bytes(start, n).expect("bytes");
            let from = usize::try_from(start).expect("offset");
            assert_eq!(&got[..], &data[from..from + n], "{start} {n}");
        }
        assert!(chunks.held(199, Some(2)).is_none());
        let mut rest = Vec::new();
        chunks
            .get_read(5_990)
            .expect("read")
            .read_to_end(&mut rest)
            .expect("read");
        assert_eq!(rest, &data[5_990..6_000]);
        let mut rest = Vec::new();
        chunks
            .get_read(9_000)
            .expect("read")
            .read_to_end(&mut rest)
            .expect("read");
        assert_eq!(rest, &data[9_000..]);
        assert!(chunks.get_bytes(9_990, 20).is_err());
        std::fs::remove_file(&path).ok();
    }
}
