//! Parquet's common case decoded here rather than by parquet's arrow
//! reader: flat columns of 32- and 64-bit integers, floats and doubles and
//! UTF-8 strings, required or nullable, in plain or dictionary-encoded data
//! pages (version 1 or 2). parquet's page reader still parses the page
//! headers and decompresses; the values and levels are decoded here, and a
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
use std::sync::Arc;

use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, DictionaryArray, PrimitiveArray,
    RecordBatch, RecordBatchReader, StringArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ArrowReaderMetadata;
use parquet::basic::{Encoding, Type as Physical};
use parquet::column::page::{Page, PageReader};
use parquet::file::serialized_reader::SerializedPageReader;

use super::hybrid::{Corrupt, Hybrid};

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
            let mut fields = Vec::with_capacity(plan.len());
            let mut decoders = Vec::with_capacity(plan.len());
            for (i, ty, optional, field) in plan {
                let pages = SerializedPageReader::new(file.clone(), chunks.column(i), rows, None)
                    .map_err(|e| e.to_string())?;
                decoders.push(Column {
                    name: field.name().clone(),
                    ty,
                    pages: Pages {
                        reader: Box::new(pages),
                        optional,
                        left: 0,
                        levels: None,
                        values: Encoded::Plain(Bytes::new(), 0),
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
            seen.push(c.read(n).map_err(corrupt(c))?);
        }
        let Some(keep) = judge(RecordBatch::try_new(schema.clone(), seen.clone())?) else {
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
                Some(i) => arrow_select::filter::filter(&seen[i], &mask)?,
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

/// A data page's values.
enum Encoded {
    /// Plain: the bytes and the next value's offset.
    Plain(Bytes, usize),
    /// Indices into the column chunk's dictionary.
    Dict(Hybrid),
}

/// A column chunk's pages, one data page at a time.
struct Pages {
    reader: Box<dyn PageReader>,
    /// Whether the column has definition levels (0: null, 1: present).
    optional: bool,
    /// Rows of the current data page not yet read.
    left: usize,
    levels: Option<Hybrid>,
    values: Encoded,
}

/// What [`Pages::next_page`] met.
enum Met {
    /// A dictionary page: its plain-encoded values and how many.
    Dictionary(Bytes, usize),
    /// A data page, now the current one.
    Data,
}

impl Pages {
    fn next_page(&mut self) -> Result<Met, Corrupt> {
        let page = self
            .reader
            .get_next_page()
            .map_err(|e| e.to_string())?
            .ok_or("the column chunk ends before its row group's last row")?;
        let (buf, rows, encoding, levels) = match page {
            Page::DictionaryPage {
                buf,
                num_values,
                encoding,
                ..
            } => {
                if !matches!(encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
                    return Err(format!("a dictionary page in {encoding} encoding"));
                }
                return Ok(Met::Dictionary(buf, num_values as usize));
            }
            Page::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                ..
            } => {
                if !self.optional {
                    (buf, num_values, encoding, None)
                } else if def_level_encoding != Encoding::RLE {
                    return Err(format!(
                        "definition levels in {def_level_encoding} encoding"
                    ));
                } else {
                    let len = buf
                        .get(..4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                        .ok_or("a page shorter than its levels")?;
                    let end = len.checked_add(4).filter(|&e| e <= buf.len());
                    let end = end.ok_or("a page shorter than its levels")?;
                    (
                        buf.slice(end..),
                        num_values,
                        encoding,
                        Some(buf.slice(4..end)),
                    )
                }
            }
            Page::DataPageV2 {
                buf,
                num_values,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                let (rep, def) = (rep_levels_byte_len as usize, def_levels_byte_len as usize);
                let end = rep.checked_add(def).filter(|&e| e <= buf.len());
                let end = end.ok_or("a page shorter than its levels")?;
                if rep != 0 {
                    return Err("repetition levels in a flat column".into());
                }
                let levels = self.optional.then(|| buf.slice(rep..end));
                (buf.slice(end..), num_values, encoding, levels)
            }
        };
        self.levels = levels.map(|l| Hybrid::new(l, 1)).transpose()?;
        self.values = match encoding {
            Encoding::PLAIN => Encoded::Plain(buf, 0),
            Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
                let width = *buf.first().ok_or("a page without its bit width")?;
                Encoded::Dict(Hybrid::new(buf.slice(1..), u32::from(width))?)
            }
            other => return Err(format!("a data page in {other} encoding")),
        };
        self.left = rows as usize;
        Ok(Met::Data)
    }

    /// The next `m` rows' levels (at most [`Pages::left`]): their validity
    /// appended to `valid` (nullable columns); answers how many have a value.
    fn levels(
        &mut self,
        m: usize,
        valid: Option<&mut BooleanBufferBuilder>,
    ) -> Result<usize, Corrupt> {
        match (&mut self.levels, valid) {
            (Some(levels), Some(valid)) => levels.read_levels(m, Some(valid)),
            _ => Ok(m),
        }
    }
}

/// A column chunk's dictionary.
enum Dict {
    None,
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Str(ArrayRef),
}

/// One column of the row group.
struct Column {
    name: String,
    ty: Ty,
    pages: Pages,
    dict: Dict,
    /// Reused for dictionary indices.
    indices: Vec<u32>,
}

/// The dictionary array of `keys` into `values`, every key already
/// checked to be within `values`.
///
/// `DictionaryArray::try_new` checks each key again, in a loop that cost
/// about 15 instructions a key: a quarter of the flights filter's whole
/// run (callgrind: 18 of 71 million instructions, issue 16's W1).
#[allow(unsafe_code)]
fn dictionary(keys: PrimitiveArray<Int32Type>, values: ArrayRef) -> DictionaryArray<Int32Type> {
    debug_assert!(
        keys.iter()
            .flatten()
            .all(|k| usize::try_from(k).is_ok_and(|k| k < values.len()))
    );
    // SAFETY: `try_new` would succeed: the keys are `Int32` and every one
    // was checked against the dictionary's length before it was stored
    // (`read_strings`: the indices of a dictionary page, the positions of
    // a plain page's strings after the dictionary's).
    unsafe { DictionaryArray::new_unchecked(keys, values) }
}

/// A fixed-width plain value.
trait Fixed: arrow_buffer::ArrowNativeType + Default {
    type Arrow: ArrowPrimitiveType<Native = Self>;
    const WIDTH: usize;
    fn from_le(b: &[u8]) -> Self;
    fn dict(d: &Dict) -> &[Self];
}

macro_rules! fixed {
    ($t:ty, $arrow:ty, $width:literal, $variant:ident) => {
        impl Fixed for $t {
            type Arrow = $arrow;
            const WIDTH: usize = $width;
            #[inline]
            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; $width];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
            fn dict(d: &Dict) -> &[Self] {
                match d {
                    Dict::$variant(v) => v,
                    _ => &[],
                }
            }
        }
    };
}
fixed!(i32, Int32Type, 4, I32);
fixed!(i64, Int64Type, 8, I64);
fixed!(f32, Float32Type, 4, F32);
fixed!(f64, Float64Type, 8, F64);

/// The `count` plain values at the start of `buf`.
fn plain<T: Fixed>(buf: &[u8], count: usize) -> Result<Vec<T>, Corrupt> {
    let bytes = count
        .checked_mul(T::WIDTH)
        .filter(|&b| b <= buf.len())
        .ok_or("plain values cut short")?;
    Ok(buf[..bytes]
        .chunks_exact(T::WIDTH)
        .map(T::from_le)
        .collect())
}

/// Appends `count` plain strings from `buf` at `*pos` to `data`/`ends`.
fn plain_strings(
    buf: &[u8],
    pos: &mut usize,
    count: usize,
    data: &mut Vec<u8>,
    ends: &mut Vec<i32>,
) -> Result<(), Corrupt> {
    for _ in 0..count {
        let len = buf
            .get(*pos..*pos + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("plain strings cut short")?;
        let text = buf
            .get(*pos + 4..(*pos + 4).saturating_add(len))
            .ok_or("plain strings cut short")?;
        data.extend_from_slice(text);
        *pos += 4 + len;
        ends.push(i32::try_from(data.len()).map_err(|_| "strings beyond 2 GiB in one batch")?);
    }
    Ok(())
}

/// A string array of `data` cut at `ends` (which start with 0); its text
/// is checked to be UTF-8 at every cut.
fn strings(data: Vec<u8>, ends: Vec<i32>) -> Result<StringArray, Corrupt> {
    StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(ends)),
        Buffer::from_vec(data),
        None,
    )
    .map_err(|e| e.to_string())
}

/// Spreads the `present` values at `vals[start..]` over the `rows` rows
/// from `start`, by the validity bits from `start` (nulls get defaults).
fn spread<T: Copy + Default>(
    vals: &mut Vec<T>,
    start: usize,
    rows: usize,
    valid: &BooleanBufferBuilder,
) {
    let present = vals.len() - start;
    vals.resize(start + rows, T::default());
    let mut from = start + present;
    for row in (start..start + rows).rev() {
        if valid.get_bit(row) {
            from -= 1;
            vals[row] = vals[from];
        } else {
            vals[row] = T::default();
        }
    }
}

/// Appends `dict[i]` for each index.
fn gather<T: Copy + Default>(dict: &[T], indices: &[u32], out: &mut Vec<T>) -> Result<(), Corrupt> {
    let mut beyond = false;
    out.extend(indices.iter().map(|&i| match dict.get(i as usize) {
        Some(v) => *v,
        None => {
            beyond = true;
            T::default()
        }
    }));
    if beyond {
        return Err(format!(
            "a dictionary index beyond its {} entries",
            dict.len()
        ));
    }
    Ok(())
}

/// Appends dictionary `indices` as keys, each checked to be below
/// `entries` (a string array's length, so below 2^31).
fn push_keys(keys: &mut Vec<i32>, indices: &[u32], entries: usize) -> Result<(), Corrupt> {
    check_indices(indices, entries)?;
    keys.extend(indices.iter().map(|&i| i as i32));
    Ok(())
}

/// Checks every index is below `entries` (a loop that vectorises).
fn check_indices(indices: &[u32], entries: usize) -> Result<(), Corrupt> {
    match indices.iter().copied().max() {
        Some(max) if max as usize >= entries => {
            Err(format!("a dictionary index beyond its {entries} entries"))
        }
        _ => Ok(()),
    }
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

impl Column {
    /// The next `n` rows.
    fn read(&mut self, n: usize) -> Result<ArrayRef, Corrupt> {
        self.read_selected(n, None)
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
                let mut out = StrOut {
                    keys: Vec::with_capacity(kept),
                    valid: optional.then(|| BooleanBufferBuilder::new(kept)),
                    data: Vec::new(),
                    ends: vec![0],
                };
                self.runs(n, keep, |c, step| match step {
                    Step::Rows(m) => c.append_strings(m, &mut out),
                    Step::Indices(indices) => {
                        push_keys(&mut out.keys, indices, c.dict_entries())?;
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
        let nulls = valid
            .map(|mut v| NullBuffer::new(v.finish()))
            .filter(|n| n.null_count() > 0);
        let array = PrimitiveArray::<T::Arrow>::try_new(ScalarBuffer::from(vals), nulls)
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
            values.skip(p - at)?;
            values.read(1, &mut self.indices)?;
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
                Ty::I32 => Dict::I32(plain(&buf, count)?),
                Ty::I64 => Dict::I64(plain(&buf, count)?),
                Ty::F32 => Dict::F32(plain(&buf, count)?),
                Ty::F64 => Dict::F64(plain(&buf, count)?),
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
        let StrOut {
            keys,
            valid,
            data,
            ends,
        } = out;
        self.page_runs(n, valid.as_mut(), |c, present, m, valid| {
            let start = keys.len();
            let entries = c.dict_entries();
            match &mut c.pages.values {
                Encoded::Plain(buf, pos) => {
                    let first = entries + ends.len() - 1;
                    plain_strings(buf, pos, present, data, ends)?;
                    let last = entries + ends.len() - 1;
                    keys.extend((first..last).map(|k| i32::try_from(k).unwrap_or(i32::MAX)));
                }
                Encoded::Dict(h) => {
                    c.indices.clear();
                    h.read(present, &mut c.indices)?;
                    push_keys(keys, &c.indices, entries)?;
                }
            }
            if let (true, Some(valid)) = (present < m, valid) {
                spread(keys, start, m, valid);
            }
            Ok(())
        })
    }

    /// How many strings the column chunk's dictionary holds.
    fn dict_entries(&self) -> usize {
        match &self.dict {
            Dict::Str(d) => d.len(),
            _ => 0,
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
            (Dict::None, _) => Arc::new(strings(data, ends)?),
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
        let nulls = valid
            .map(|mut v| NullBuffer::new(v.finish()))
            .filter(|n| n.null_count() > 0);
        let keys = PrimitiveArray::<Int32Type>::try_new(ScalarBuffer::from(keys), nulls)
            .map_err(|e| e.to_string())?;
        Ok(Arc::new(dictionary(keys, values)))
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
