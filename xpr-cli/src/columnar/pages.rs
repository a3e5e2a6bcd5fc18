//! A Parquet column chunk's pages for [`super::decode`]: parquet's page
//! reader parses each page header and decompresses; here a data page is
//! cut into its definition levels and its values (plain, or dictionary
//! indices in the RLE / bit-packed hybrid), versions 1 and 2 alike.

use arrow_buffer::BooleanBufferBuilder;
use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::{Page, PageReader};

use super::chunk::Spare;
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
    /// For a Snappy-compressed chunk whose pages `reader` hands on as
    /// they are stored: the codec, and the memory of the page before.
    pub(super) snappy: Option<(snap::raw::Decoder, Spare)>,
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
        // The page before is done with: its memory may serve again.
        self.levels = None;
        self.values = Encoded::Plain(Bytes::new(), 0);
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
                // Kept with the column: memory of its own.
                let buf = self.decompressed(buf, 0, true)?;
                return Ok(Met::Dictionary(buf, num_values as usize));
            }
            Page::DataPage {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                ..
            } => {
                let buf = self.decompressed(buf, 0, false)?;
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
                is_compressed,
                ..
            } => {
                let (rep, def) = (rep_levels_byte_len as usize, def_levels_byte_len as usize);
                let end = rep.checked_add(def).filter(|&e| e <= buf.len());
                let end = end.ok_or("a page shorter than its levels")?;
                // Version 2 stores the levels uncompressed, before the
                // values, and may leave the values uncompressed too.
                let buf = if is_compressed {
                    self.decompressed(buf, end, false)?
                } else {
                    buf
                };
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

    /// `page` as decoded from: for a Snappy chunk, its bytes from `from`
    /// on decompressed, into the page before's memory or (`kept`, a
    /// dictionary held with the column) memory of its own; else as it is.
    fn decompressed(&mut self, page: Bytes, from: usize, kept: bool) -> Result<Bytes, Corrupt> {
        match &mut self.snappy {
            Some((codec, _)) if kept => unsnap(codec, from, &page, &mut Spare::default()),
            Some((codec, spare)) => unsnap(codec, from, &page, spare),
            None => Ok(page),
        }
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

/// `page` with its bytes from `from` on Snappy-decompressed, into the
/// memory `spare` holds when it can (the first `from` bytes copied as
/// they are).
///
/// # Errors
/// The bytes are not Snappy, or declare more than they can hold: no
/// Snappy element yields more than 22 bytes a byte (a copy of 64 bytes
/// takes 3), so a larger length is refused before its memory is taken.
fn unsnap(
    codec: &mut snap::raw::Decoder,
    from: usize,
    page: &Bytes,
    spare: &mut Spare,
) -> Result<Bytes, Corrupt> {
    let (head, data) = page.split_at(from);
    // Nothing compressed (a page of nulls may store no values at all).
    if data.is_empty() {
        return Ok(page.clone());
    }
    let snappy = |e: snap::Error| format!("a Snappy page: {e}");
    let len = snap::raw::decompress_len(data).map_err(snappy)?;
    if len > data.len().saturating_mul(22) {
        return Err(format!(
            "a Snappy page of {} bytes declares {len} bytes decompressed",
            data.len()
        ));
    }
    let mut out = spare.take(from + len);
    out[..from].copy_from_slice(head);
    codec.decompress(data, &mut out[from..]).map_err(snappy)?;
    Ok(spare.hand_out(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snappy_page_decompresses_after_its_stored_levels_into_memory_used_again() {
        let text: Vec<u8> = b"abc".repeat(500);
        let mut page = b"levels".to_vec();
        page.extend(snap::raw::Encoder::new().compress_vec(&text).unwrap());
        let page = Bytes::from(page);
        let (mut codec, mut spare) = (snap::raw::Decoder::new(), Spare::default());
        let first = unsnap(&mut codec, 6, &page, &mut spare).unwrap();
        assert_eq!((&first[..6], &first[6..]), (&b"levels"[..], &text[..]));
        let at = first.as_ptr();
        drop(first);
        let again = unsnap(&mut codec, 6, &page, &mut spare).unwrap();
        assert_eq!(again.as_ptr(), at, "the first page's memory, used again");
        assert_eq!(&again[6..], &text[..]);
    }

    #[test]
    fn a_snappy_length_beyond_its_bytes_is_refused_and_no_bytes_decompress_to_none() {
        // A length of 1,000,000 (a varint) before 4 bytes.
        let page = Bytes::from_static(&[0xc0, 0x84, 0x3d, 0, 0, 0, 0]);
        let err = unsnap(
            &mut snap::raw::Decoder::new(),
            0,
            &page,
            &mut Spare::default(),
        );
        assert!(err.unwrap_err().contains("declares 1000000 bytes"));
        // No values at all: the levels as they are.
        let page = Bytes::from_static(b"levels");
        let levels = unsnap(
            &mut snap::raw::Decoder::new(),
            6,
            &page,
            &mut Spare::default(),
        );
        assert_eq!(&levels.unwrap()[..], b"levels");
        // Not Snappy at all.
        let page = Bytes::from_static(&[0xff; 12]);
        assert!(
            unsnap(
                &mut snap::raw::Decoder::new(),
                0,
                &page,
                &mut Spare::default()
            )
            .is_err()
        );
    }
}
