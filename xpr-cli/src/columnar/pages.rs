//! A Parquet column chunk's pages for [`super::decode`]: parquet's page
//! reader parses each page header and decompresses; here a data page is
//! cut into its definition levels and its values (plain, or dictionary
//! indices in the RLE / bit-packed hybrid), versions 1 and 2 alike.

use arrow_buffer::BooleanBufferBuilder;
use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};

use super::hybrid::{Corrupt, Hybrid};

/// A data page's values.
pub(super) enum Encoded {
    /// Plain: the bytes and the next value's offset.
    Plain(Bytes, usize),
    /// Indices into the column chunk's dictionary.
    Dict(Hybrid),
}

/// A column chunk's pages, one data page at a time.
pub(super) struct Pages {
    pub(super) reader: Box<dyn PageReader>,
    /// Whether the column has definition levels (0: null, 1: present).
    pub(super) optional: bool,
    /// Rows of the current data page not yet read.
    pub(super) left: usize,
    pub(super) levels: Option<Hybrid>,
    pub(super) values: Encoded,
}

/// What [`Pages::next_page`] met.
pub(super) enum Met {
    /// A dictionary page: its plain-encoded values and how many.
    Dictionary(Bytes, usize),
    /// A data page, now the current one.
    Data,
}

impl Pages {
    pub(super) fn next_page(&mut self) -> Result<Met, Corrupt> {
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
    pub(super) fn levels(
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
