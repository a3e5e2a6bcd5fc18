//! Parquet's common case decoded here rather than by parquet's arrow
//! reader: flat columns of 32- and 64-bit integers, floats and doubles and
//! UTF-8 strings, required or nullable, in plain or dictionary-encoded data
//! pages (version 1 or 2). parquet's page reader still parses the page
//! headers, over the file as [`super::chunk`] reads it; Snappy pages are
//! decompressed in [`super::pages`] (other codecs by parquet); the values
//! and levels are decoded here, and a
//! string column comes out as a `Dictionary(Int32, Utf8)` array sharing
//! the column chunk's dictionary, so a string is never copied per row.
//!
//! Why: on the flights filter (issue 16, W1) parquet's reader spent about
//! 60 of the run's 78 million instructions decoding five columns (about
//! 25 instructions a value, largely zeroing and per-call overhead). Here a
//! dictionary-encoded value costs a few.
//!
//! [`Fast::new`] answers `None` for any file it does not handle (nested
//! columns, other types or encodings, as the column chunks' metadata
//! lists them); the caller then uses parquet's reader. A page that breaks
//! its own metadata's promise, or any corrupt data, is an error naming the
//! column, never a panic.

use std::fs::File;
use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch, RecordBatchReader, StringArray,
};
use arrow_buffer::{BooleanBufferBuilder, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ArrowReaderMetadata;
use parquet::basic::{Compression, Encoding, Type as Physical};
use parquet::file::serialized_reader::SerializedPageReader;

use super::chunk::{Chunk, Spare};
use super::hybrid::Corrupt;
use super::pages::{Encoded, Met, Pages};
use super::values::{
    Dict, Fixed, StrPage, gather, keyed, nulls, plain_strings, push_keys, spread, strings,
};

/// A column's values as decoded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    I32,
    I64,
    F32,
    F64,
    Str,
}

/// `--filter`'s predicate over a batch of its columns: the rows to keep,
/// or `None` when no further row of the group is to be kept.
pub(super) type Judge = Box<dyn FnMut(RecordBatch) -> Option<BooleanArray> + Send>;

impl Ty {
    /// The bytes of a plain value (strings: not fixed, 0).
    fn width(self) -> usize {
        match self {
            Ty::I32 => i32::WIDTH,
            Ty::I64 => i64::WIDTH,
            Ty::F32 => f32::WIDTH,
            Ty::F64 => f64::WIDTH,
            Ty::Str => 0,
        }
    }
}

/// A row group's columns decoded batch by batch.
pub(super) struct Fast {
    schema: SchemaRef,
    columns: Vec<Column>,
    /// Late: the positions in `columns` of the predicate's, their schema,
    /// and the predicate; the other columns are decoded for kept rows only.
    late: Option<(Vec<usize>, SchemaRef, Judge)>,
    /// Rows of the group not yet handed out.
    left: usize,
    batch_rows: usize,
}

impl Fast {
    /// Row group `group` of `file`, its root columns `columns` read
    /// `batch_rows` rows at a time; with `late` (the root columns a
    /// predicate reads, all among `columns`, and the predicate), only the
    /// rows it keeps. `None` when a column is not one this module decodes
    /// (see the module documentation).
    ///
    /// # Errors
    /// The file cannot be read again.
    pub(super) fn new(
        file: &File,
        meta: &ArrowReaderMetadata,
        group: usize,
        columns: &[usize],
        batch_rows: usize,
        late: Option<(Vec<usize>, Judge)>,
    ) -> Option<Result<Fast, String>> {
        let parquet = meta.metadata().file_metadata().schema_descr();
        let arrow = meta.schema();
        // Flat files only: root column i is leaf column i.
        if parquet.num_columns() != arrow.fields().len()
            || (0..parquet.num_columns()).any(|i| parquet.column(i).path().parts().len() != 1)
        {
            return None;
        }
        let chunks = meta.metadata().row_groups().get(group)?;
        let mut plan = Vec::with_capacity(columns.len());
        for &i in columns {
            let (leaf, field) = (parquet.column(i), arrow.field(i));
            let ty = match (leaf.physical_type(), field.data_type()) {
                (Physical::INT32, DataType::Int32) => Ty::I32,
                (Physical::INT64, DataType::Int64) => Ty::I64,
                (Physical::FLOAT, DataType::Float32) => Ty::F32,
                (Physical::DOUBLE, DataType::Float64) => Ty::F64,
                (
                    Physical::BYTE_ARRAY,
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View,
                ) => Ty::Str,
                _ => return None,
            };
            let chunk = chunks.column(i);
            let known = chunk.encodings().all(|e| {
                matches!(
                    e,
                    Encoding::PLAIN
                        | Encoding::PLAIN_DICTIONARY
                        | Encoding::RLE_DICTIONARY
                        | Encoding::RLE
                )
            });
            if leaf.max_rep_level() != 0 || leaf.max_def_level() > 1 || !known {
                return None;
            }
            let data_type = match ty {
                Ty::Str => {
                    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
                }
                _ => field.data_type().clone(),
            };
            let field = Field::new(field.name(), data_type, field.is_nullable())
                .with_metadata(field.metadata().clone());
            plan.push((i, ty, leaf.max_def_level() == 1, field));
        }
        let late = match late {
            None => None,
            Some((reads, judge)) => {
                let at: Option<Vec<usize>> = reads
                    .iter()
                    .map(|r| columns.iter().position(|c| c == r))
                    .collect();
                let at = at?;
                let fields: Vec<Field> = at.iter().map(|&p| plan[p].3.clone()).collect();
                Some((at, Arc::new(Schema::new(fields)), judge))
            }
        };
        let rows = usize::try_from(chunks.num_rows()).unwrap_or(0);
        let make = || -> Result<Fast, String> {
            let file = Arc::new(file.try_clone().map_err(|e| e.to_string())?);
            let file_len = file.metadata().map_err(|e| e.to_string())?.len();
            let raw_bodies = Arc::new(Mutex::new(Spare::default()));
            let mut fields = Vec::with_capacity(plan.len());
            let mut decoders = Vec::with_capacity(plan.len());
            for (p, (i, ty, optional, field)) in plan.into_iter().enumerate() {
                // Snappy pages are decompressed here, into memory used
                // again page after page (parquet's reader takes new
                // memory, zeroed, for each): parquet hands them on raw,
                // their bodies all read into the same memory.
                let meta = chunks.column(i);
                let snappy = meta.compression() == Compression::SNAPPY;
                let bodies = if snappy {
                    raw_bodies.clone()
                } else {
                    Arc::default()
                };
                let chunk = Chunk::new(file.clone(), file_len, bodies);
                let raw;
                let meta = if snappy {
                    raw = meta
                        .clone()
                        .into_builder()
                        .set_compression(Compression::UNCOMPRESSED)
                        .build()
                        .map_err(|e| e.to_string())?;
                    &raw
                } else {
                    meta
                };
                let pages = SerializedPageReader::new(Arc::new(chunk), meta, rows, None)
                    .map_err(|e| e.to_string())?;
                // Late, a column the predicate does not read gives its
                // kept rows only.
                let few = late.as_ref().is_some_and(|(at, _, _)| !at.contains(&p));
                decoders.push(Column {
                    name: field.name().clone(),
                    ty,
                    few,
                    copied: 0,
                    pages: Pages {
                        reader: Box::new(pages),
                        optional,
                        left: 0,
                        levels: None,
                        values: Encoded::Plain(Bytes::new(), 0),
                        snappy: snappy.then(|| (snap::raw::Decoder::new(), Spare::default())),
                    },
                    dict: Dict::None,
                    indices: Vec::new(),
                });
                fields.push(field);
            }
            Ok(Fast {
                schema: Arc::new(Schema::new(fields)),
                columns: decoders,
                late,
                left: rows,
                batch_rows: batch_rows.max(1),
            })
        };
        Some(make())
    }
}

impl Iterator for Fast {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let n = self.left.min(self.batch_rows);
        self.left -= n;
        let batch = self.batch(n);
        if batch.is_err() {
            // Nothing after an error.
            self.left = 0;
        }
        batch.transpose()
    }
}

impl Fast {
    /// The next `n` rows (late: those kept); `None` when, late, no
    /// further row of the group is kept.
    fn batch(&mut self, n: usize) -> Result<Option<RecordBatch>, ArrowError> {
        let corrupt = |c: &Column| {
            let name = c.name.clone();
            move |e: Corrupt| ArrowError::ParquetError(format!("column {name}: corrupt data: {e}"))
        };
        let Some((reads, schema, judge)) = &mut self.late else {
            let mut arrays = Vec::with_capacity(self.columns.len());
            for c in &mut self.columns {
                arrays.push(c.read(n).map_err(corrupt(c))?);
            }
            let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(n));
            let batch = RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options)?;
            return Ok(Some(batch));
        };
        let mut seen = Vec::with_capacity(reads.len());
        for &p in reads.iter() {
            let c = &mut self.columns[p];
            seen.push(c.read_coded(n).map_err(corrupt(c))?);
        }
        // Numbers come as dictionaries or as values, batch by batch.
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .zip(&seen)
            .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
            .collect();
        let Some(keep) = judge(RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            seen.clone(),
        )?) else {
            self.left = 0;
            return Ok(None);
        };
        // A null verdict keeps nothing.
        let keep = match keep.nulls() {
            Some(nulls) => keep.values() & nulls.inner(),
            None => keep.values().clone(),
        };
        let kept = keep.count_set_bits();
        let mask = BooleanArray::new(keep.clone(), None);
        let mut arrays = Vec::with_capacity(self.columns.len());
        for (p, c) in self.columns.iter_mut().enumerate() {
            arrays.push(match reads.iter().position(|&r| r == p) {
                Some(i) => {
                    let kept = arrow_select::filter::filter(&seen[i], &mask)?;
                    match kept.as_any_dictionary_opt() {
                        // A column of numbers read as keys: its values.
                        Some(d) if c.ty != Ty::Str => {
                            arrow_select::take::take(d.values(), d.keys(), None)?
                        }
                        _ => kept,
                    }
                }
                None => c.read_selected(n, Some(&keep)).map_err(corrupt(c))?,
            });
        }
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(kept));
        let batch = RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options)?;
        Ok(Some(batch))
    }
}

impl RecordBatchReader for Fast {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// One column of the row group.
struct Column {
    name: String,
    ty: Ty,
    /// Whether few of the rows are read (the kept rows of a late filter):
    /// then a string dictionary stays in its page ([`StrPage`]) until as
    /// many strings were copied out of it as it holds (`copied`).
    few: bool,
    copied: usize,
    pages: Pages,
    dict: Dict,
    /// Reused for dictionary indices.
    indices: Vec<u32>,
}

/// What [`Column::runs`] hands on.
enum Step<'i> {
    /// The next rows, to append as they come.
    Rows(usize),
    /// The dictionary indices of kept rows, each with a value.
    Indices(&'i [u32]),
}

/// Rows read from a column before they become an array: values (a
/// null's is the default) and, for a nullable column, validity.
struct FixedOut<T>(Vec<T>, Option<BooleanBufferBuilder>);

/// A string column's rows read: keys into the dictionary then into the
/// strings of plain pages (`data` cut at `ends`, which start with 0).
struct StrOut {
    keys: Vec<i32>,
    valid: Option<BooleanBufferBuilder>,
    data: Vec<u8>,
    ends: Vec<i32>,
}

/// Appends to `out` the rows of dictionary `indices` (each with a value):
/// their keys into `dict`, or for a dictionary left in its page, their
/// strings copied out, keyed in order.
fn put_indices(dict: &Dict, indices: &[u32], out: &mut StrOut) -> Result<(), Corrupt> {
    let Dict::Page(page) = dict else {
        let entries = match dict {
            Dict::Str(d) => d.len(),
            _ => 0,
        };
        return push_keys(&mut out.keys, indices, entries);
    };
    for &i in indices {
        page.copy(i as usize, &mut out.data)?;
        let end = i32::try_from(out.data.len()).map_err(|_| "strings beyond 2 GiB in one batch")?;
        out.ends.push(end);
        out.keys
            .push(i32::try_from(out.ends.len() - 2).unwrap_or(i32::MAX));
    }
    Ok(())
}

impl Column {
    /// The next `n` rows.
    fn read(&mut self, n: usize) -> Result<ArrayRef, Corrupt> {
        self.read_selected(n, None)
    }

    /// The next `n` rows as [`Column::read`] gives them, but for a
    /// column of numbers in dictionary-encoded data pages: then as a
    /// `Dictionary(Int32, _)` array of keys into the chunk's dictionary, no
    /// value copied (a predicate compares each entry once, then looks rows
    /// up by key). The rows may span pages: they share the chunk's one
    /// dictionary. Should a plain page (a dictionary that overflowed) or
    /// another dictionary come part way, the batch is values throughout.
    fn read_coded(&mut self, n: usize) -> Result<ArrayRef, Corrupt> {
        while n > 0 && self.pages.left == 0 {
            self.next_page()?;
        }
        let (Dict::Fixed(values), Encoded::Dict(_)) = (&self.dict, &self.pages.values) else {
            return self.read(n);
        };
        let values = values.clone();
        let mut valid = self.pages.optional.then(|| BooleanBufferBuilder::new(n));
        let mut keys = Vec::with_capacity(n);
        let mut need = n;
        while need > 0 {
            if self.pages.left == 0 {
                self.next_page()?;
                continue;
            }
            let same = matches!(&self.dict, Dict::Fixed(d) if Arc::ptr_eq(d, &values));
            if !same || !matches!(self.pages.values, Encoded::Dict(_)) {
                break;
            }
            let m = need.min(self.pages.left);
            let present = self.pages.levels(m, valid.as_mut())?;
            let start = keys.len();
            self.push_page_keys(present, &mut keys)?;
            if let (true, Some(valid)) = (present < m, valid.as_ref()) {
                spread(&mut keys, start, m, valid);
            }
            self.pages.left -= m;
            need -= m;
        }
        let coded = keyed(keys, valid, values)?;
        if need == 0 {
            return Ok(coded);
        }
        let rest = self.read(need)?;
        let coded = coded.as_any_dictionary();
        let coded = arrow_select::take::take(coded.values(), coded.keys(), None);
        arrow_select::concat::concat(&[coded.map_err(|e| e.to_string())?.as_ref(), rest.as_ref()])
            .map_err(|e| e.to_string())
    }

    /// Appends the keys of the current dictionary page's next `present`
    /// values to `keys`, each checked against the chunk's dictionary.
    fn push_page_keys(&mut self, present: usize, keys: &mut Vec<i32>) -> Result<(), Corrupt> {
        let entries = self.dict_entries();
        let Encoded::Dict(h) = &mut self.pages.values else {
            return Err("keys asked of a plain page".into());
        };
        self.indices.clear();
        h.read(present, &mut self.indices)?;
        push_keys(keys, &self.indices, entries)
    }

    /// The next `n` rows, only those set in `keep` (of length `n`) when given.
    fn read_selected(
        &mut self,
        n: usize,
        keep: Option<&arrow_buffer::BooleanBuffer>,
    ) -> Result<ArrayRef, Corrupt> {
        let kept = keep.map_or(n, arrow_buffer::BooleanBuffer::count_set_bits);
        let optional = self.pages.optional;
        match self.ty {
            Ty::I32 => self.selected::<i32>(n, kept, keep),
            Ty::I64 => self.selected::<i64>(n, kept, keep),
            Ty::F32 => self.selected::<f32>(n, kept, keep),
            Ty::F64 => self.selected::<f64>(n, kept, keep),
            Ty::Str => {
                if let Dict::Page(page) = &self.dict {
                    // Copying out has cost what decoding the whole
                    // dictionary would: keys from now on.
                    if self.copied > page.len() {
                        self.dict = Dict::Str(page.decode()?);
                    }
                    self.copied += kept;
                }
                let mut out = StrOut {
                    keys: Vec::with_capacity(kept),
                    valid: optional.then(|| BooleanBufferBuilder::new(kept)),
                    data: Vec::new(),
                    ends: vec![0],
                };
                self.runs(n, keep, |c, step| match step {
                    Step::Rows(m) => c.append_strings(m, &mut out),
                    Step::Indices(indices) => {
                        put_indices(&c.dict, indices, &mut out)?;
                        if let Some(valid) = &mut out.valid {
                            valid.append_n(indices.len(), true);
                        }
                        Ok(())
                    }
                })?;
                self.finish_strings(out)
            }
        }
    }

    fn selected<T: Fixed>(
        &mut self,
        n: usize,
        kept: usize,
        keep: Option<&arrow_buffer::BooleanBuffer>,
    ) -> Result<ArrayRef, Corrupt> {
        let valid = self.pages.optional.then(|| BooleanBufferBuilder::new(kept));
        let mut out = FixedOut(Vec::with_capacity(kept), valid);
        self.runs(n, keep, |c, step| match step {
            Step::Rows(m) => c.append_fixed::<T>(m, &mut out),
            Step::Indices(indices) => {
                gather(T::dict(&c.dict), indices, &mut out.0)?;
                if let Some(valid) = &mut out.1 {
                    valid.append_n(indices.len(), true);
                }
                Ok(())
            }
        })?;
        let FixedOut(vals, valid) = out;
        let array = PrimitiveArray::<T::Arrow>::try_new(ScalarBuffer::from(vals), nulls(valid))
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(array))
    }

    /// Over the next `n` rows, only those set in `keep` when given (the
    /// others passed over): `put` of `Step::Rows` for rows to append as
    /// they come, or of `Step::Indices` for the dictionary indices of kept
    /// rows that all have a value (picked out of a dictionary page one by
    /// one: late filters keep few rows).
    fn runs(
        &mut self,
        n: usize,
        keep: Option<&arrow_buffer::BooleanBuffer>,
        mut put: impl FnMut(&mut Column, Step<'_>) -> Result<(), Corrupt>,
    ) -> Result<(), Corrupt> {
        let Some(keep) = keep else {
            return put(self, Step::Rows(n));
        };
        let kept: Vec<usize> = keep.set_indices().collect();
        let (mut at, mut i) = (0, 0);
        while at < n {
            if self.pages.left == 0 {
                self.next_page()?;
                continue;
            }
            let end = at + (n - at).min(self.pages.left);
            let j = i + kept[i..].partition_point(|&p| p < end);
            if self.pick(end - at, kept[i..j].iter().map(|p| p - at))? {
                let indices = std::mem::take(&mut self.indices);
                let done = put(self, Step::Indices(&indices));
                self.indices = indices;
                done?;
            } else {
                for &p in &kept[i..j] {
                    self.skip(p - at)?;
                    put(self, Step::Rows(1))?;
                    at = p + 1;
                }
                self.skip(end - at)?;
            }
            at = end;
            i = j;
        }
        Ok(())
    }

    /// For the next `m` rows, all in the current data page: when it is
    /// dictionary-encoded and each of the rows has a value, the indices
    /// of those at `positions` (ascending, below `m`) into
    /// [`Column::indices`], the rows passed over; else `false`, nothing
    /// read.
    fn pick(&mut self, m: usize, positions: impl Iterator<Item = usize>) -> Result<bool, Corrupt> {
        let Encoded::Dict(values) = &mut self.pages.values else {
            return Ok(false);
        };
        if let Some(levels) = &mut self.pages.levels
            && !levels.all_ones(m)?
        {
            return Ok(false);
        }
        self.indices.clear();
        let mut at = 0;
        for p in positions {
            values.skip_then_read(p - at, &mut self.indices)?;
            at = p + 1;
        }
        values.skip(m - at)?;
        if let Some(levels) = &mut self.pages.levels {
            levels.skip(m)?;
        }
        self.pages.left -= m;
        Ok(true)
    }

    /// Moves to the next data page, taking in a dictionary page met on
    /// the way.
    fn next_page(&mut self) -> Result<(), Corrupt> {
        if let Met::Dictionary(buf, count) = self.pages.next_page()? {
            self.dict = match self.ty {
                Ty::I32 => i32::dictionary(&buf, count)?,
                Ty::I64 => i64::dictionary(&buf, count)?,
                Ty::F32 => f32::dictionary(&buf, count)?,
                Ty::F64 => f64::dictionary(&buf, count)?,
                Ty::Str if self.few => {
                    self.copied = 0;
                    Dict::Page(StrPage::new(buf, count)?)
                }
                Ty::Str => {
                    let (mut data, mut ends) = (Vec::new(), vec![0]);
                    plain_strings(&buf, &mut 0, count, &mut data, &mut ends)?;
                    Dict::Str(Arc::new(strings(data, ends)?))
                }
            };
        }
        Ok(())
    }

    /// Passes over the next `n` rows.
    fn skip(&mut self, mut n: usize) -> Result<(), Corrupt> {
        while n > 0 {
            if self.pages.left == 0 {
                self.next_page()?;
                continue;
            }
            let m = n.min(self.pages.left);
            let present = match &mut self.pages.levels {
                Some(levels) => levels.read_levels(m, None)?,
                None => m,
            };
            match (&mut self.pages.values, self.ty) {
                (Encoded::Dict(h), _) => h.skip(present)?,
                (Encoded::Plain(buf, pos), Ty::Str) => {
                    for _ in 0..present {
                        let len = buf
                            .get(*pos..*pos + 4)
                            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                            .ok_or("plain strings cut short")?;
                        *pos = pos.saturating_add(4 + len);
                    }
                }
                (Encoded::Plain(_, pos), ty) => {
                    *pos = pos.saturating_add(present * ty.width());
                }
            }
            self.pages.left -= m;
            n -= m;
        }
        Ok(())
    }

    /// Over the next `n` rows, page by page: each run of `m` rows within
    /// one data page has its levels read (validity appended to `valid`,
    /// for a nullable column) and is handed to `take` with how many of the
    /// rows have a value, `m`, and the validity so far.
    fn page_runs(
        &mut self,
        n: usize,
        mut valid: Option<&mut BooleanBufferBuilder>,
        mut take: impl FnMut(
            &mut Column,
            usize,
            usize,
            Option<&BooleanBufferBuilder>,
        ) -> Result<(), Corrupt>,
    ) -> Result<(), Corrupt> {
        let mut need = n;
        while need > 0 {
            if self.pages.left == 0 {
                self.next_page()?;
                continue;
            }
            let m = need.min(self.pages.left);
            let present = self.pages.levels(m, valid.as_deref_mut())?;
            take(self, present, m, valid.as_deref())?;
            self.pages.left -= m;
            need -= m;
        }
        Ok(())
    }

    /// Appends the next `n` rows to `out`.
    fn append_fixed<T: Fixed>(&mut self, n: usize, out: &mut FixedOut<T>) -> Result<(), Corrupt> {
        let FixedOut(vals, valid) = out;
        self.page_runs(n, valid.as_mut(), |c, present, m, valid| {
            let start = vals.len();
            match &mut c.pages.values {
                Encoded::Plain(buf, pos) => {
                    let bytes = present * T::WIDTH;
                    let raw = buf
                        .get(*pos..*pos + bytes)
                        .ok_or("plain values cut short")?;
                    vals.extend(raw.chunks_exact(T::WIDTH).map(T::from_le));
                    *pos += bytes;
                }
                Encoded::Dict(h) => {
                    c.indices.clear();
                    h.read(present, &mut c.indices)?;
                    gather(T::dict(&c.dict), &c.indices, vals)?;
                }
            }
            if let (true, Some(valid)) = (present < m, valid) {
                spread(vals, start, m, valid);
            }
            Ok(())
        })
    }

    /// Appends the next `n` rows to `out`.
    fn append_strings(&mut self, n: usize, out: &mut StrOut) -> Result<(), Corrupt> {
        let mut valid = out.valid.take();
        let done = self.page_runs(n, valid.as_mut(), |c, present, m, valid| {
            let start = out.keys.len();
            let entries = c.dict_entries();
            match &mut c.pages.values {
                Encoded::Plain(buf, pos) => {
                    let first = entries + out.ends.len() - 1;
                    plain_strings(buf, pos, present, &mut out.data, &mut out.ends)?;
                    let last = entries + out.ends.len() - 1;
                    let keys = (first..last).map(|k| i32::try_from(k).unwrap_or(i32::MAX));
                    out.keys.extend(keys);
                }
                Encoded::Dict(h) => {
                    c.indices.clear();
                    h.read(present, &mut c.indices)?;
                    put_indices(&c.dict, &c.indices, out)?;
                }
            }
            if let (true, Some(valid)) = (present < m, valid) {
                spread(&mut out.keys, start, m, valid);
            }
            Ok(())
        });
        out.valid = valid;
        done
    }

    /// How many entries the column chunk's dictionary holds.
    fn dict_entries(&self) -> usize {
        match &self.dict {
            Dict::Str(d) | Dict::Fixed(d) => d.len(),
            // Keys number the strings copied out.
            Dict::None | Dict::Page(_) => 0,
        }
    }

    /// The dictionary array of the rows in `out`.
    fn finish_strings(&self, out: StrOut) -> Result<ArrayRef, Corrupt> {
        let StrOut {
            keys,
            valid,
            data,
            ends,
        } = out;
        let values: ArrayRef = match (&self.dict, ends.len()) {
            (Dict::Str(d), 1) => d.clone(),
            (Dict::None | Dict::Page(_), _) => Arc::new(strings(data, ends)?),
            (Dict::Str(d), _) => {
                // Plain pages after dictionary ones: one array of both.
                let d = d
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or("a dictionary")?;
                let base = d.value_offsets();
                let (first, last) = (base[0], base[base.len() - 1]);
                let mut all = d.value_data()[first as usize..last as usize].to_vec();
                let mut cuts: Vec<i32> = base.iter().map(|o| o - first).collect();
                let shift = last - first;
                cuts.extend(ends[1..].iter().map(|e| e + shift));
                all.extend_from_slice(&data);
                Arc::new(strings(all, cuts)?)
            }
            _ => return Err("a dictionary of another type".into()),
        };
        keyed(keys, valid, values)
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
