//! Plain-encoded values and column chunk dictionaries for
//! [`super::decode`]: fixed-width numbers and length-prefixed strings read
//! from a page's bytes, dictionary indices checked and turned into keys or
//! values, and a nullable column's values spread over its rows.

use std::sync::Arc;

use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, DictionaryArray, PrimitiveArray, StringArray,
};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;

use super::hybrid::Corrupt;

/// A column chunk's dictionary: a primitive array of the column's type, a
/// string array, or strings left in their page ([`StrPage`]).
pub(super) enum Dict {
    None,
    Fixed(ArrayRef),
    Str(ArrayRef),
    Page(StrPage),
}

/// A dictionary page's plain strings left where they are, for a column
/// whose kept rows are few (read late, under `--filter`): each kept row's
/// entry is copied out ([`StrPage::copy`]) rather than the whole
/// dictionary decoded. On the flights filter (issue 16, W1) the `date`
/// column's dictionary is 20,000 strings, 400 KB, for 5,560 kept rows:
/// decoding it cost about 100 page faults, each about 2 microseconds here.
pub(super) struct StrPage {
    page: Bytes,
    /// Where each entry's 4-byte length starts, then where the last entry
    /// ends.
    starts: Vec<u32>,
}

impl StrPage {
    /// The `count` plain strings at the start of `page`, each checked to
    /// lie within it (their text is checked to be UTF-8 once copied out).
    pub(super) fn new(page: Bytes, count: usize) -> Result<StrPage, Corrupt> {
        let too_long = || "a dictionary page over 4 GiB".to_string();
        u32::try_from(page.len()).map_err(|_| too_long())?;
        let mut starts = Vec::with_capacity(count.min(page.len() / 4) + 1);
        let mut pos = 0usize;
        for _ in 0..count {
            let len = page
                .get(pos..pos + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                .ok_or("plain strings cut short")?;
            starts.push(pos as u32);
            pos = (pos + 4)
                .checked_add(len)
                .filter(|&end| end <= page.len())
                .ok_or("plain strings cut short")?;
        }
        starts.push(pos as u32);
        Ok(StrPage { page, starts })
    }

    /// How many entries the page holds.
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The whole dictionary as a string array.
    pub(super) fn decode(&self) -> Result<ArrayRef, Corrupt> {
        let (mut data, mut ends) = (Vec::with_capacity(self.page.len()), vec![0]);
        plain_strings(&self.page, &mut 0, self.len(), &mut data, &mut ends)?;
        Ok(Arc::new(strings(data, ends)?))
    }

    /// Appends entry `i`'s text to `data`.
    pub(super) fn copy(&self, i: usize, data: &mut Vec<u8>) -> Result<(), Corrupt> {
        let (Some(&start), Some(&end)) = (self.starts.get(i), self.starts.get(i + 1)) else {
            return Err(format!(
                "a dictionary index beyond its {} entries",
                self.len()
            ));
        };
        data.extend_from_slice(&self.page[start as usize + 4..end as usize]);
        Ok(())
    }
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
    // (`push_keys` for the indices of a dictionary page; for a string
    // column, `append_strings` also numbers a plain page's strings after
    // the dictionary's, in the one array of both that `finish_strings`
    // makes).
    unsafe { DictionaryArray::new_unchecked(keys, values) }
}

/// The dictionary array of `keys`, each already checked to be within
/// `values` (a null row's key is any such), with the validity `valid`.
pub(super) fn keyed(
    keys: Vec<i32>,
    valid: Option<BooleanBufferBuilder>,
    values: ArrayRef,
) -> Result<ArrayRef, Corrupt> {
    let keys = PrimitiveArray::<Int32Type>::try_new(ScalarBuffer::from(keys), nulls(valid))
        .map_err(|e| e.to_string())?;
    Ok(Arc::new(dictionary(keys, values)))
}

/// The null buffer of a nullable column's validity, if a row is null.
pub(super) fn nulls(valid: Option<BooleanBufferBuilder>) -> Option<NullBuffer> {
    valid
        .map(|mut v| NullBuffer::new(v.finish()))
        .filter(|n| n.null_count() > 0)
}

/// A fixed-width plain value.
pub(super) trait Fixed: arrow_buffer::ArrowNativeType + Default {
    type Arrow: ArrowPrimitiveType<Native = Self>;
    const WIDTH: usize;
    fn from_le(b: &[u8]) -> Self;

    /// The entries of a dictionary of this type (else none).
    fn dict(d: &Dict) -> &[Self] {
        match d {
            Dict::Fixed(a) => a
                .as_any()
                .downcast_ref::<PrimitiveArray<Self::Arrow>>()
                .map_or(&[], |a| a.values().as_ref()),
            _ => &[],
        }
    }

    /// The dictionary of the `count` plain values at the start of `buf`.
    fn dictionary(buf: &[u8], count: usize) -> Result<Dict, Corrupt> {
        let values = plain::<Self>(buf, count)?;
        let array = PrimitiveArray::<Self::Arrow>::new(ScalarBuffer::from(values), None);
        Ok(Dict::Fixed(Arc::new(array)))
    }
}

macro_rules! fixed {
    ($t:ty, $arrow:ty, $width:literal) => {
        impl Fixed for $t {
            type Arrow = $arrow;
            const WIDTH: usize = $width;
            #[inline]
            fn from_le(b: &[u8]) -> Self {
                let mut a = [0u8; $width];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    };
}
fixed!(i32, Int32Type, 4);
fixed!(i64, Int64Type, 8);
fixed!(f32, Float32Type, 4);
fixed!(f64, Float64Type, 8);

/// The `count` plain values at the start of `buf`.
pub(super) fn plain<T: Fixed>(buf: &[u8], count: usize) -> Result<Vec<T>, Corrupt> {
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
pub(super) fn plain_strings(
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
pub(super) fn strings(data: Vec<u8>, ends: Vec<i32>) -> Result<StringArray, Corrupt> {
    StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(ends)),
        Buffer::from_vec(data),
        None,
    )
    .map_err(|e| e.to_string())
}

/// Spreads the `present` values at `vals[start..]` over the `rows` rows
/// from `start`, by the validity bits from `start` (nulls get defaults).
pub(super) fn spread<T: Copy + Default>(
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
pub(super) fn gather<T: Copy + Default>(
    dict: &[T],
    indices: &[u32],
    out: &mut Vec<T>,
) -> Result<(), Corrupt> {
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
pub(super) fn push_keys(
    keys: &mut Vec<i32>,
    indices: &[u32],
    entries: usize,
) -> Result<(), Corrupt> {
    // Checked as they are copied, in one pass (on an error, the keys
    // already appended are dropped with the batch).
    let limit = u32::try_from(entries).unwrap_or(u32::MAX);
    let mut beyond = false;
    keys.extend(indices.iter().map(|&i| {
        beyond |= i >= limit;
        i as i32
    }));
    if beyond {
        return Err(format!("a dictionary index beyond its {entries} entries"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use bytes::Bytes;

    use super::StrPage;

    /// `texts` as a plain-encoded page (a 4-byte length before each).
    fn page(texts: &[&str]) -> Bytes {
        let mut b = Vec::new();
        for t in texts {
            b.extend_from_slice(&(t.len() as u32).to_le_bytes());
            b.extend_from_slice(t.as_bytes());
        }
        Bytes::from(b)
    }

    #[test]
    fn keys_are_checked_against_the_dictionary_as_they_are_copied() {
        let mut keys = vec![7];
        super::push_keys(&mut keys, &[0, 4, 2], 5).expect("within");
        assert_eq!(keys, [7, 0, 4, 2]);
        for (bad, entries) in [(&[0, 5, 1][..], 5), (&[u32::MAX][..], 5), (&[0][..], 0)] {
            let e = super::push_keys(&mut Vec::new(), bad, entries).unwrap_err();
            assert!(e.contains(&format!("beyond its {entries} entries")), "{e}");
        }
    }

    #[test]
    fn a_page_left_whole_gives_each_entry_as_decoding_would() {
        let texts = ["", "née", "b", "", "longer text"];
        let p = StrPage::new(page(&texts), texts.len()).expect("page");
        assert_eq!(p.len(), texts.len());
        let all = p.decode().expect("decode");
        for (i, t) in texts.iter().enumerate().rev() {
            let mut data = Vec::new();
            p.copy(i, &mut data).expect("copy");
            assert_eq!(data, t.as_bytes(), "entry {i}");
            assert_eq!(all.as_string::<i32>().value(i), *t);
        }
        let mut data = Vec::new();
        assert!(p.copy(texts.len(), &mut data).is_err());
        // Fewer strings than the count, or a length past the end.
        assert!(StrPage::new(page(&texts), texts.len() + 1).is_err());
        let cut = page(&texts).slice(..page(&texts).len() - 1);
        assert!(StrPage::new(cut, texts.len()).is_err());
        // A count far beyond the page reserves no more than the page allows.
        assert!(StrPage::new(page(&["a"]), usize::MAX).is_err());
    }
}
