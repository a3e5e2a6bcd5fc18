//! Parquet's RLE / bit-packed hybrid encoding, decoded: the definition
//! levels and dictionary indices of [`super::decode`]'s pages.
//!
//! The data is a sequence of runs, each behind a ULEB128 header: an even
//! header `2k` is `k` copies of one value stored in the fewest whole bytes
//! that hold `width` bits; an odd header `2g + 1` is `8g` values packed
//! `width` bits each, least significant bit first. A last packed run may
//! be cut short by the end of the data: only its whole values count.

use bytes::Bytes;

/// A decoding error: the data is not the encoding it claims to be.
pub(super) type Corrupt = String;

/// A run being read.
#[derive(Debug, Clone, Copy)]
enum Run {
    /// `left` more copies of `value`.
    Repeat { value: u32, left: usize },
    /// `left` more packed values, the next one at bit `bit` of the data;
    /// the run's values start at bit `base` (groups of 8 from there).
    Packed {
        base: usize,
        bit: usize,
        left: usize,
    },
}

/// A reader of one hybrid-encoded stream of `width`-bit values.
#[derive(Debug)]
pub(super) struct Hybrid {
    data: Bytes,
    /// The next run header's byte.
    pos: usize,
    width: u32,
    run: Run,
}

impl Hybrid {
    /// A reader of `data` holding values of `width` bits (at most 32).
    ///
    /// # Errors
    /// A width beyond 32 bits.
    pub(super) fn new(data: Bytes, width: u32) -> Result<Hybrid, Corrupt> {
        if width > 32 {
            return Err(format!("a bit width of {width} (at most 32)"));
        }
        Ok(Hybrid {
            data,
            pos: 0,
            width,
            run: Run::Repeat { value: 0, left: 0 },
        })
    }

    /// Starts the next run.
    fn next_run(&mut self) -> Result<(), Corrupt> {
        let mut header: u64 = 0;
        let mut shift = 0;
        loop {
            let byte = *self
                .data
                .get(self.pos)
                .ok_or("the values end before the page does")?;
            self.pos += 1;
            header |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 35 {
                return Err("a run header longer than 5 bytes".into());
            }
        }
        let count = usize::try_from(header >> 1).map_err(|_| "a run too long")?;
        if header & 1 == 0 {
            let bytes = self.width.div_ceil(8) as usize;
            let raw = self
                .data
                .get(self.pos..self.pos + bytes)
                .ok_or("a repeated run cut short")?;
            self.pos += bytes;
            let value = raw.iter().rev().fold(0u32, |v, &b| (v << 8) | u32::from(b));
            if self.width < 32 && value >> self.width != 0 {
                return Err(format!("a repeated value wider than {} bits", self.width));
            }
            self.run = Run::Repeat { value, left: count };
        } else {
            let values = count.checked_mul(8).ok_or("a run too long")?;
            let bytes = count.saturating_mul(self.width as usize);
            let room = self.data.len() - self.pos;
            let left = if bytes <= room || self.width == 0 {
                values
            } else {
                room * 8 / self.width as usize
            };
            self.run = Run::Packed {
                base: self.pos * 8,
                bit: self.pos * 8,
                left,
            };
            self.pos += bytes.min(room);
        }
        Ok(())
    }

    /// Appends the next `n` values to `out`.
    ///
    /// # Errors
    /// The data ends before `n` values.
    pub(super) fn read(&mut self, mut n: usize, out: &mut Vec<u32>) -> Result<(), Corrupt> {
        out.reserve(n);
        while n > 0 {
            match &mut self.run {
                Run::Repeat { left: 0, .. } | Run::Packed { left: 0, .. } => self.next_run()?,
                Run::Repeat { value, left } => {
                    let k = n.min(*left);
                    out.extend(std::iter::repeat_n(*value, k));
                    *left -= k;
                    n -= k;
                }
                Run::Packed { base, bit, left } => {
                    let k = n.min(*left);
                    let start = *bit;
                    let width = self.width as usize;
                    *bit += k * width;
                    *left -= k;
                    n -= k;
                    if width == 0 {
                        out.extend(std::iter::repeat_n(0, k));
                        continue;
                    }
                    if k < 16 {
                        unpack(&self.data, start, self.width, k, out);
                        continue;
                    }
                    // One by one up to a group's start, then whole groups
                    // of 8 (`width` bytes each), then the rest.
                    let index = (start - *base) / width;
                    let head = ((8 - index % 8) % 8).min(k);
                    unpack(&self.data, start, self.width, head, out);
                    let groups = (k - head) / 8;
                    let from = (start + head * width) / 8;
                    let bytes = &self.data[from..from + groups * width];
                    let at = out.len();
                    out.resize(at + groups * 8, 0);
                    unpack_groups(bytes, self.width, &mut out[at..]);
                    let tail = k - head - groups * 8;
                    let tail_bit = start + (head + groups * 8) * width;
                    unpack(&self.data, tail_bit, self.width, tail, out);
                }
            }
        }
        Ok(())
    }

    /// Passes over the next `n` values, then appends the one after them
    /// to `out`: what a late filter does for each kept row, in one step
    /// when the run under way holds both.
    ///
    /// # Errors
    /// The data ends before that value.
    pub(super) fn skip_then_read(&mut self, n: usize, out: &mut Vec<u32>) -> Result<(), Corrupt> {
        match &mut self.run {
            Run::Repeat { value, left } if *left > n => {
                *left -= n + 1;
                out.push(*value);
                Ok(())
            }
            Run::Packed { bit, left, .. } if *left > n => {
                let at = *bit + n * self.width as usize;
                *bit = at + self.width as usize;
                *left -= n + 1;
                out.push(value_at(&self.data, at, self.width));
                Ok(())
            }
            _ => {
                self.skip(n)?;
                self.read(1, out)
            }
        }
    }

    /// Whether each of the next `n` values is 1 (definition levels: all
    /// present), in the run under way.
    ///
    /// # Errors
    /// The data ends where a run should start.
    pub(super) fn all_ones(&mut self, n: usize) -> Result<bool, Corrupt> {
        if matches!(
            self.run,
            Run::Repeat { left: 0, .. } | Run::Packed { left: 0, .. }
        ) {
            self.next_run()?;
        }
        Ok(matches!(self.run, Run::Repeat { value: 1, left } if left >= n))
    }

    /// Passes over the next `n` values.
    ///
    /// # Errors
    /// The data ends before `n` values.
    pub(super) fn skip(&mut self, mut n: usize) -> Result<(), Corrupt> {
        while n > 0 {
            match &mut self.run {
                Run::Repeat { left: 0, .. } | Run::Packed { left: 0, .. } => self.next_run()?,
                Run::Repeat { left, .. } => {
                    let k = n.min(*left);
                    *left -= k;
                    n -= k;
                }
                Run::Packed { bit, left, .. } => {
                    let k = n.min(*left);
                    *bit += k * self.width as usize;
                    *left -= k;
                    n -= k;
                }
            }
        }
        Ok(())
    }

    /// Reads the next `n` definition levels of a column whose only levels
    /// are 0 (null) and 1 (present), appending one validity bit each to
    /// `valid` when given; answers how many are present.
    ///
    /// # Errors
    /// The data ends early, or a level other than 0 and 1.
    pub(super) fn read_levels(
        &mut self,
        mut n: usize,
        mut valid: Option<&mut arrow_buffer::BooleanBufferBuilder>,
    ) -> Result<usize, Corrupt> {
        let mut present = 0;
        let mut scratch = Vec::new();
        while n > 0 {
            match self.run {
                Run::Repeat { left: 0, .. } | Run::Packed { left: 0, .. } => self.next_run()?,
                Run::Repeat { value, left } => {
                    if value > 1 {
                        return Err(format!("a definition level of {value} (at most 1)"));
                    }
                    let k = n.min(left);
                    if let Some(valid) = valid.as_mut() {
                        valid.append_n(k, value == 1);
                    }
                    present += if value == 1 { k } else { 0 };
                    self.run = Run::Repeat {
                        value,
                        left: left - k,
                    };
                    n -= k;
                }
                Run::Packed { left, .. } => {
                    let k = n.min(left);
                    scratch.clear();
                    self.read(k, &mut scratch)?;
                    if let Some(level) = scratch.iter().find(|&&l| l > 1) {
                        return Err(format!("a definition level of {level} (at most 1)"));
                    }
                    if let Some(valid) = valid.as_mut() {
                        for &level in &scratch {
                            valid.append(level == 1);
                        }
                    }
                    present += scratch.iter().filter(|&&l| l == 1).count();
                    n -= k;
                }
            }
        }
        Ok(present)
    }
}

/// Unpacks `bytes`, whole groups of 8 values of `width` bits (1 to 32),
/// into `out` (8 per group): with the width a constant, each value is
/// one 8-byte load, a shift and a mask. The loads read straight from
/// `bytes` while 8 bytes follow; the last groups are copied out first.
/// (Copying every group to the stack and loading from there, as this
/// once did, stalls each load on the copy's stores: 3.5 times slower.)
fn unpack_groups(bytes: &[u8], width: u32, out: &mut [u32]) {
    /// One group: `src` holds at least `W + 7` bytes.
    #[inline(always)]
    fn group<const W: usize>(src: &[u8], dst: &mut [u32]) {
        let mask = if W == 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << W) - 1
        };
        for (i, d) in dst.iter_mut().enumerate() {
            let bit = i * W;
            let w: [u8; 8] = src[bit / 8..bit / 8 + 8].try_into().expect("8 bytes");
            *d = ((u64::from_le_bytes(w) >> (bit % 8)) & mask) as u32;
        }
    }
    fn by<const W: usize>(bytes: &[u8], out: &mut [u32]) {
        let groups = (bytes.len() / W).min(out.len() / 8);
        // A group's last load ends before its byte `W + 7`.
        let direct = (bytes.len().saturating_sub(8) / W).min(groups);
        for (g, dst) in out[..direct * 8].chunks_exact_mut(8).enumerate() {
            group::<W>(&bytes[g * W..g * W + W + 7], dst);
        }
        for g in direct..groups {
            let mut buf = [0u8; 40];
            buf[..W].copy_from_slice(&bytes[g * W..g * W + W]);
            group::<W>(&buf, &mut out[g * 8..g * 8 + 8]);
        }
    }
    macro_rules! widths {
        ($($w:literal)*) => {
            match width {
                $($w => by::<$w>(bytes, out),)*
                _ => {}
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// The value of `width` bits (at most 32) at bit `bit` of `data` (bits
/// past its end read as zeros).
#[inline]
fn value_at(data: &[u8], bit: usize, width: u32) -> u32 {
    let mut w = [0u8; 8];
    let bytes = data.get(bit / 8..).unwrap_or_default();
    let n = bytes.len().min(8);
    w[..n].copy_from_slice(&bytes[..n]);
    let mask = (1u64 << width) - 1;
    ((u64::from_le_bytes(w) >> (bit % 8)) & mask) as u32
}

/// Appends the `k` values of `width` bits packed from bit `start` of
/// `data` (all within it).
#[inline]
fn unpack(data: &[u8], start: usize, width: u32, k: usize, out: &mut Vec<u32>) {
    if width == 0 {
        out.extend(std::iter::repeat_n(0, k));
        return;
    }
    let mask = if width == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << width) - 1
    };
    let width = width as usize;
    // The value at `bit` from the eight bytes there (zeros past the end).
    let value = |bit: usize, bytes: &[u8]| {
        let mut w = [0u8; 8];
        w[..bytes.len()].copy_from_slice(bytes);
        ((u64::from_le_bytes(w) >> (bit % 8)) & mask) as u32
    };
    // Values whose eight bytes lie within the data (a fixed-size copy),
    // then the rest.
    let whole = (data.len().saturating_sub(7) * 8)
        .saturating_sub(start)
        .div_ceil(width)
        .min(k);
    out.extend((0..whole).map(|j| {
        let bit = start + j * width;
        value(bit, &data[bit / 8..bit / 8 + 8])
    }));
    out.extend((whole..k).map(|j| {
        let bit = start + j * width;
        value(bit, data.get(bit / 8..).unwrap_or_default())
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest value of `width` bits.
    fn mask(width: u32) -> u32 {
        ((1u64 << width) - 1) as u32
    }

    /// Packs `values` of `width` bits, least significant bit first.
    fn pack(values: &[u32], width: u32) -> Vec<u8> {
        let mut out = vec![0u8; (values.len() * width as usize).div_ceil(8)];
        for (i, &v) in values.iter().enumerate() {
            for b in 0..width as usize {
                if v >> b & 1 == 1 {
                    let bit = i * width as usize + b;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    fn uleb(mut n: u64, out: &mut Vec<u8>) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    /// Encodes `runs` (repeat: `(value, count, false)`; packed: the values
    /// given as `count` groups of 8 from `value` upward, `true`).
    fn encode(width: u32, runs: &[(u32, usize, bool)]) -> (Vec<u8>, Vec<u32>) {
        let (mut data, mut want) = (Vec::new(), Vec::new());
        let mask = mask(width);
        for &(value, count, packed) in runs {
            if packed {
                uleb((count as u64) << 1 | 1, &mut data);
                let values: Vec<u32> = (0..count * 8)
                    .map(|j| value.wrapping_add((j as u32).wrapping_mul(2_654_435_761)) & mask)
                    .collect();
                data.extend(pack(&values, width));
                want.extend(values);
            } else {
                uleb((count as u64) << 1, &mut data);
                data.extend(&value.to_le_bytes()[..width.div_ceil(8) as usize]);
                want.extend(std::iter::repeat_n(value & mask, count));
            }
        }
        (data, want)
    }

    #[test]
    fn runs_of_every_width_read_in_any_steps() {
        for width in 0..=32 {
            let mask = mask(width);
            let (data, want) = encode(
                width,
                &[
                    (mask, 3, false),
                    (7, 2, true),
                    (0, 1, false),
                    (5, 130, true),
                    (mask / 2, 600, false),
                    // A packed run at the very end of the data.
                    (9, 40, true),
                ],
            );
            for step in [1, 3, 8, 17, 1000, 5000] {
                let mut h = Hybrid::new(Bytes::from(data.clone()), width).unwrap();
                let mut got = Vec::new();
                while got.len() < want.len() {
                    let n = step.min(want.len() - got.len());
                    h.read(n, &mut got).unwrap();
                }
                assert_eq!(got, want, "width {width}, steps of {step}");
                assert!(
                    h.read(1, &mut got).is_err(),
                    "width {width}: reads past the end"
                );
            }
        }
    }

    #[test]
    fn skipping_then_reading_one_picks_the_values_read_gives() {
        for width in [0, 1, 3, 8, 11, 17, 31, 32] {
            let mask = mask(width);
            let (data, want) = encode(
                width,
                &[
                    (mask, 5, false),
                    (3, 3, true),
                    (1, 40, false),
                    (9, 20, true),
                ],
            );
            for gap in [0, 1, 2, 6, 9, 23, 40] {
                let mut h = Hybrid::new(Bytes::from(data.clone()), width).unwrap();
                let (mut got, mut at, mut picked) = (Vec::new(), 0, Vec::new());
                while at + gap < want.len() {
                    h.skip_then_read(gap, &mut got).unwrap();
                    picked.push(want[at + gap]);
                    at += gap + 1;
                }
                assert_eq!(got, picked, "width {width}, gaps of {gap}");
                assert!(h.skip_then_read(want.len() - at, &mut got).is_err());
            }
        }
    }

    #[test]
    fn a_packed_run_cut_short_yields_only_whole_values() {
        let (mut data, want) = encode(5, &[(1, 2, true)]);
        data.truncate(data.len() - 2); // 16 values of 5 bits, 2 bytes gone
        let whole = (data.len() - 1) * 8 / 5;
        let mut h = Hybrid::new(Bytes::from(data), 5).unwrap();
        let mut got = Vec::new();
        h.read(whole, &mut got).unwrap();
        assert_eq!(got, want[..whole]);
        assert!(h.read(1, &mut got).is_err());
    }

    #[test]
    fn bad_streams_are_errors_not_panics() {
        assert!(Hybrid::new(Bytes::new(), 33).is_err());
        // A header that never ends; a repeated value too wide; nothing.
        for (data, width) in [
            (vec![0xff; 9], 3),
            (vec![2, 0x09], 3),
            (vec![], 3),
            (vec![2], 9),
        ] {
            let mut h = Hybrid::new(Bytes::from(data), width).unwrap();
            assert!(h.read(1, &mut Vec::new()).is_err());
        }
    }

    #[test]
    fn levels_count_the_present_and_refuse_deeper_ones() {
        let (data, want) = encode(
            1,
            &[(1, 10, false), (0, 3, true), (0, 4, false), (1, 1, true)],
        );
        let mut h = Hybrid::new(Bytes::from(data), 1).unwrap();
        let mut valid = arrow_buffer::BooleanBufferBuilder::new(0);
        let mut present = 0;
        for step in [5, 7, 11, 100] {
            let n = step.min(want.len() - valid.len());
            present += h.read_levels(n, Some(&mut valid)).unwrap();
        }
        let bits: Vec<u32> = (0..valid.len())
            .map(|i| u32::from(valid.get_bit(i)))
            .collect();
        assert_eq!(bits, want);
        assert_eq!(present, want.iter().filter(|&&l| l == 1).count());
        let (data, _) = encode(2, &[(2, 1, false)]);
        let mut h = Hybrid::new(Bytes::from(data), 2).unwrap();
        assert!(h.read_levels(1, Some(&mut valid)).is_err());
    }
}
