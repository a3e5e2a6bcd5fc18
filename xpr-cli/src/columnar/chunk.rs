//! A Parquet file's bytes for parquet's page reader, read with `pread`
//! into memory used again page after page.
//!
//! parquet's reader over a `File` opens a fresh handle, seeks and reads
//! for every page twice (its header through an 8 KiB buffer, then its
//! body into a new allocation): on the flights filter (issue 16, W1)
//! about a thousand system calls for 105 pages, and new memory for every
//! page, each 4 KiB of it a page fault. Here a header is one `pread` of
//! [`HEAD`] bytes (the file read on only for a longer header), a body one
//! `pread` into the buffer of the page before when nothing holds it any
//! longer ([`Spare`]).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};

use bytes::{Buf, Bytes, BytesMut};
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};

/// The bytes read for a page header at once (longer headers, with large
/// statistics, read on).
const HEAD: usize = 256;

/// A buffer handed out as [`Bytes`] and used again once nothing holds
/// any part of it.
#[derive(Default)]
pub(super) struct Spare(Bytes);

impl Spare {
    /// A buffer of `len` bytes: the one handed out last when nothing else
    /// holds it (its old bytes left in place, for the caller to
    /// overwrite), else new zeros.
    pub(super) fn take(&mut self, len: usize) -> BytesMut {
        match std::mem::take(&mut self.0).try_into_mut() {
            Ok(mut b) if b.capacity() >= len => {
                if b.len() >= len {
                    b.truncate(len);
                } else {
                    b.resize(len, 0);
                }
                b
            }
            _ => BytesMut::zeroed(len),
        }
    }

    /// `b` handed out, and kept to be used again.
    pub(super) fn hand_out(&mut self, b: BytesMut) -> Bytes {
        self.0 = b.freeze();
        self.0.clone()
    }
}

/// A Parquet file (`file_len` bytes) read for one column chunk's pages.
pub(super) struct Chunk {
    file: Arc<File>,
    file_len: u64,
    /// The memory for page bodies: shared by the columns whose bodies
    /// are decompressed as soon as read (Snappy), else the column's own.
    spare: Arc<Mutex<Spare>>,
}

impl Chunk {
    pub(super) fn new(file: Arc<File>, file_len: u64, spare: Arc<Mutex<Spare>>) -> Chunk {
        Chunk {
            file,
            file_len,
            spare,
        }
    }

    /// The checked end of `length` bytes from `start`.
    fn check(&self, start: u64, length: usize) -> Result<()> {
        match start.checked_add(length as u64) {
            Some(end) if end <= self.file_len => Ok(()),
            _ => Err(ParquetError::EOF(format!(
                "expected {length} bytes at byte {start}, beyond the file's end"
            ))),
        }
    }
}

impl Length for Chunk {
    fn len(&self) -> u64 {
        self.file_len
    }
}

impl ChunkReader for Chunk {
    type T = std::io::Chain<bytes::buf::Reader<Bytes>, Rest>;

    /// The bytes from `start`: [`HEAD`] of them read at once (fewer at
    /// the file's end), then the file read on.
    fn get_read(&self, start: u64) -> Result<Self::T> {
        let n = self.file_len.saturating_sub(start).min(HEAD as u64) as usize;
        self.check(start, n)?;
        let mut head = vec![0u8; n];
        self.file.read_exact_at(&mut head, start)?;
        let rest = Rest {
            file: self.file.clone(),
            at: start + n as u64,
        };
        Ok(Bytes::from(head).reader().chain(rest))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.check(start, length)?;
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        let mut buf = spare.take(length);
        self.file.read_exact_at(&mut buf, start)?;
        Ok(spare.hand_out(buf))
    }
}

/// The file read on from byte `at` (a page header longer than [`HEAD`]).
pub(super) struct Rest {
    file: Arc<File>,
    at: u64,
}

impl Read for Rest {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columnar::temp_path::TempPath;

    /// A file of `n` bytes, byte i being `i % 251`.
    fn file(n: usize) -> (TempPath, Chunk, Vec<u8>) {
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let path = TempPath::new();
        std::fs::write(&path.0, &data).expect("write");
        let file = File::open(&path.0).expect("open");
        (
            path,
            Chunk::new(Arc::new(file), n as u64, Arc::default()),
            data,
        )
    }

    #[test]
    fn bytes_and_reads_agree_with_the_file() {
        let n = 5000;
        let (_path, chunk, data) = file(n);
        // Shorter and longer than the last, and one held while the next
        // is read (its buffer then not used again).
        let held = chunk.get_bytes(100, 300).unwrap();
        for (start, length) in [(0, 10), (5, 1000), (n - 10, 10), (7, 2000), (1, 1)] {
            let got = chunk.get_bytes(start as u64, length).unwrap();
            assert_eq!(&got[..], &data[start..start + length], "bytes at {start}");
        }
        assert_eq!(&held[..], &data[100..400]);
        // A read carries on past its first HEAD bytes.
        let mut read = chunk.get_read(10).unwrap();
        let mut got = vec![0u8; 2 * HEAD];
        read.read_exact(&mut got).unwrap();
        assert_eq!(got, &data[10..10 + 2 * HEAD]);
        // And ends at the file's end.
        let mut rest = Vec::new();
        chunk
            .get_read(n as u64 - 3)
            .unwrap()
            .read_to_end(&mut rest)
            .unwrap();
        assert_eq!(rest, &data[n - 3..]);
    }

    #[test]
    fn a_range_beyond_the_file_is_an_error() {
        let (_path, chunk, _) = file(100);
        assert!(chunk.get_bytes(90, 11).is_err());
        assert!(chunk.get_bytes(u64::MAX - 1, 5).is_err());
        assert!(chunk.get_read(101).is_err());
        assert_eq!(chunk.get_bytes(90, 10).unwrap().len(), 10);
    }

    #[test]
    fn a_spare_is_used_again_only_when_nothing_holds_it() {
        let mut spare = Spare::default();
        let held = spare.hand_out(BytesMut::from(&b"abcdef"[..]));
        assert_eq!(&spare.take(4)[..], &[0; 4], "held: new zeros");
        drop(held);
        let second = spare.hand_out(BytesMut::from(&b"ghijkl"[..]));
        let at = second.as_ptr();
        drop(second);
        let b = spare.take(3);
        assert_eq!((b.as_ptr(), &b[..]), (at, &b"ghi"[..]));
    }
}
