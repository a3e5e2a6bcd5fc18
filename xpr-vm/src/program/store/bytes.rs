//! The primitives of the stored form: unsigned LEB128 integers, zigzag
//! signed ones, little-endian doubles, length-prefixed UTF-8 text. The
//! reader never panics and never allocates more than the bytes left can
//! fill.

use crate::error::{Error, ErrorKind, Span};

/// The error of a stored program that cannot be read or is not valid:
/// kind [`ErrorKind::Value`], `invalid stored program: DETAIL`.
pub fn corrupt(detail: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Value,
        format!("invalid stored program: {detail}"),
    )
}

/// Appends the primitives of the stored form to a byte buffer.
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// One byte.
    pub fn u8(&mut self, b: u8) {
        self.bytes.push(b);
    }

    /// An unsigned integer, LEB128 (7 bits a byte, low first).
    pub fn uint(&mut self, mut n: u64) {
        loop {
            let low = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.bytes.push(low);
                return;
            }
            self.bytes.push(low | 0x80);
        }
    }

    /// A signed integer, zigzag then LEB128.
    pub fn int(&mut self, n: i64) {
        self.uint(((n << 1) ^ (n >> 63)) as u64);
    }

    /// A length or count.
    pub fn len(&mut self, n: usize) {
        self.uint(n as u64);
    }

    /// `false` as 0, `true` as 1.
    pub fn bool(&mut self, b: bool) {
        self.u8(u8::from(b));
    }

    /// A double, its 8 bytes little-endian.
    pub fn f64(&mut self, x: f64) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }

    /// Text: its length in bytes, then its UTF-8 bytes.
    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// A span: start and end character offsets.
    pub fn span(&mut self, s: Span) {
        self.uint(u64::from(s.start));
        self.uint(u64::from(s.end));
    }
}

/// Reads the primitives [`Writer`] writes, refusing anything malformed
/// with [`corrupt`].
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    /// One byte.
    ///
    /// # Errors
    /// At the end of the bytes.
    pub fn u8(&mut self) -> Result<u8, Error> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| corrupt("unexpected end of data"))?;
        self.at += 1;
        Ok(b)
    }

    /// `n` bytes.
    ///
    /// # Errors
    /// When fewer are left.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| corrupt("unexpected end of data"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// An unsigned LEB128 integer.
    ///
    /// # Errors
    /// At the end of the bytes, or when it does not fit 64 bits.
    pub fn uint(&mut self) -> Result<u64, Error> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            n |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(corrupt("integer too large"))
    }

    /// A zigzag signed integer.
    ///
    /// # Errors
    /// As [`Reader::uint`].
    pub fn int(&mut self) -> Result<i64, Error> {
        let z = self.uint()?;
        Ok(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    /// An unsigned integer that must fit `T`.
    ///
    /// # Errors
    /// As [`Reader::uint`], or when it is out of `T`'s range.
    pub fn small<T: TryFrom<u64>>(&mut self) -> Result<T, Error> {
        T::try_from(self.uint()?).map_err(|_| corrupt("operand out of range"))
    }

    /// A count of items each at least one byte long: never more than the
    /// bytes left, so that no count makes a reader allocate beyond them.
    ///
    /// # Errors
    /// As [`Reader::uint`], or when it exceeds the bytes left.
    pub fn count(&mut self) -> Result<usize, Error> {
        let n = self.uint()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.remaining())
            .ok_or_else(|| corrupt("count exceeds the data"))
    }

    /// 0 or 1.
    ///
    /// # Errors
    /// Any other byte.
    pub fn bool(&mut self) -> Result<bool, Error> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(corrupt(format_args!("bad boolean {b}"))),
        }
    }

    /// A double.
    ///
    /// # Errors
    /// At the end of the bytes.
    pub fn f64(&mut self) -> Result<f64, Error> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// Text.
    ///
    /// # Errors
    /// At the end of the bytes, or when it is not UTF-8.
    pub fn str(&mut self) -> Result<&'a str, Error> {
        let n = self.count()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| corrupt("text is not UTF-8"))
    }

    /// A span.
    ///
    /// # Errors
    /// As [`Reader::uint`], or an offset over `u32`.
    pub fn span(&mut self) -> Result<Span, Error> {
        let start = self.small()?;
        let end = self.small()?;
        Ok(Span { start, end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip_and_overlong_ones_are_refused() {
        let mut w = Writer::default();
        for n in [0, 1, 127, 128, 300, u64::MAX] {
            w.uint(n);
        }
        for n in [0, -1, 1, i64::MIN, i64::MAX] {
            w.int(n);
        }
        let mut r = Reader::new(&w.bytes);
        for n in [0, 1, 127, 128, 300, u64::MAX] {
            assert_eq!(r.uint().unwrap(), n);
        }
        for n in [0, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(r.int().unwrap(), n);
        }
        assert_eq!(r.remaining(), 0);
        assert!(Reader::new(&[0xff; 11]).uint().is_err());
        assert!(
            Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
                .uint()
                .is_err()
        );
        assert!(Reader::new(&[5, b'a']).str().is_err());
        assert!(Reader::new(&[2]).bool().is_err());
    }
}
