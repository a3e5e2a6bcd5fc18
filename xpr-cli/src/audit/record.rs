//! The record lines of `run --audit-records`: `{"record":N,"result":R,
//! "fuel":F,"memory_bytes":M,"cpu_ns":T}`, built with as little work per
//! record as can be (see docs/decisions.md, "What per-record lines still
//! cost").

use xpr::Value;

use super::super::json_out;

/// The record lines of one chunk, written straight into the chunk's log
/// buffer by copies of a fixed size: the buffer is grown by a block of
/// zeros, the pieces are copied over it, and it is cut to the line's
/// length. What two lines in a row usually share is kept as text: the
/// record number (incremented as text: usually one digit changes) and the
/// `fuel` and `memory_bytes` part (formatted again only when it changes);
/// the time's digits are worked out in a register and stored at once.
/// Nothing is read back soon after it was written in pieces, which stalls
/// the processor (a store that does not forward to a wider load).
#[derive(Debug, Clone)]
pub struct RecordLines {
    /// The record number.
    record: u64,
    /// `{"record":N,`, then room for the copies of a fixed size.
    head: [u8; HEAD],
    head_len: usize,
    /// The fuel and memory that `usage` holds.
    usage_of: Option<(u64, u64)>,
    /// `,"fuel":F,"memory_bytes":M,"cpu_ns":`.
    usage: [u8; USAGE],
    usage_len: usize,
}

/// Room for `{"record":N,` (31 bytes at most).
const HEAD: usize = 32;
/// Room for `,"fuel":F,"memory_bytes":M,"cpu_ns":` (74 bytes at most).
const USAGE: usize = 80;
/// The block a line is built in: any line whose pieces' copies fit (all
/// but those with numbers of a dozen digits and more; those are appended
/// piece by piece).
const BLOCK: usize = 128;
/// Times below this many nanoseconds (0.1 s) have their digits worked
/// out in a register.
const SHORT_TIME: u64 = 100_000_000;

/// `"result":` and a short result, padded to a copy of a fixed size.
const TRUE: (&[u8; 16], usize) = (b"\"result\":true   ", 13);
const FALSE: (&[u8; 16], usize) = (b"\"result\":false  ", 14);
const NULL: (&[u8; 16], usize) = (b"\"result\":null   ", 13);

impl RecordLines {
    /// Lines numbered from `record`.
    pub fn new(record: u64) -> RecordLines {
        let mut lines = RecordLines {
            record,
            head: [0; HEAD],
            head_len: 0,
            usage_of: None,
            usage: [0; USAGE],
            usage_len: 0,
        };
        lines.number(record);
        lines
    }

    /// The head for `record`.
    fn number(&mut self, record: u64) {
        self.record = record;
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(record).as_bytes();
        let prefix = b"{\"record\":";
        self.head[..prefix.len()].copy_from_slice(prefix);
        let end = prefix.len() + digits.len();
        self.head[prefix.len()..end].copy_from_slice(digits);
        self.head[end] = b',';
        self.head_len = end + 1;
    }

    /// Moves on to the next record's number.
    #[inline]
    pub fn next(&mut self) {
        // The digits, between `{"record":` and the comma.
        let digits = &mut self.head[10..self.head_len - 1];
        for d in digits.iter_mut().rev() {
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                self.record += 1;
                return;
            }
        }
        // All nines: one digit more.
        self.number(self.record.saturating_add(1));
    }

    /// Appends the whole line of a record whose result is a boolean or
    /// null (a filter's predicate, mostly): true if it was one.
    #[inline]
    pub fn short(&mut self, out: &mut Vec<u8>, v: &Value, fuel: u64, memory: u64, ns: u64) -> bool {
        let (text, len) = match v {
            Value::Bool(true) => TRUE,
            Value::Bool(false) => FALSE,
            Value::Null => NULL,
            _ => return false,
        };
        self.usage(fuel, memory);
        let result_at = self.head_len;
        let usage_at = result_at + len;
        if ns >= SHORT_TIME || usage_at + self.usage_len + 10 > BLOCK {
            self.head(out);
            out.extend_from_slice(&text[..len]);
            self.tail_in_pieces(out, ns);
            return true;
        }
        let start = out.len();
        out.extend_from_slice(&[0; BLOCK]);
        let block = &mut out[start..start + BLOCK];
        block[..HEAD].copy_from_slice(&self.head);
        block[result_at..result_at + 16].copy_from_slice(text);
        block[usage_at..usage_at + USAGE].copy_from_slice(&self.usage);
        let end = time_text(block, usage_at + self.usage_len, ns);
        out.truncate(start + end);
        true
    }

    /// Appends the start of a line, up to its result or error:
    /// `{"record":N,`.
    #[inline]
    pub fn head(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head[..self.head_len]);
    }

    /// Appends the end of a line: `,"fuel":F,"memory_bytes":M,
    /// "cpu_ns":T}` and the newline.
    #[inline]
    pub fn tail(&mut self, out: &mut Vec<u8>, fuel: u64, memory: u64, ns: u64) {
        self.usage(fuel, memory);
        if ns >= SHORT_TIME {
            self.tail_in_pieces(out, ns);
            return;
        }
        let start = out.len();
        out.extend_from_slice(&[0; BLOCK]);
        let block = &mut out[start..start + BLOCK];
        block[..USAGE].copy_from_slice(&self.usage);
        let end = time_text(block, self.usage_len, ns);
        out.truncate(start + end);
    }

    /// The tail as pieces of their own length (any time).
    fn tail_in_pieces(&self, out: &mut Vec<u8>, ns: u64) {
        out.extend_from_slice(&self.usage[..self.usage_len]);
        out.extend_from_slice(itoa::Buffer::new().format(ns).as_bytes());
        out.extend_from_slice(b"}\n");
    }

    /// Makes `usage` the text of `fuel` and `memory`.
    #[inline]
    fn usage(&mut self, fuel: u64, memory: u64) {
        if self.usage_of != Some((fuel, memory)) {
            self.usage_of = Some((fuel, memory));
            self.usage_len = usage_text(&mut self.usage, fuel, memory);
        }
    }
}

/// Writes `ns` (below [`SHORT_TIME`]), `}` and the newline into `block`
/// at `at`: where they end. The digits are gathered in a register, the
/// first in its lowest byte, and stored with one write of 8 bytes.
#[inline]
fn time_text(block: &mut [u8], at: usize, mut ns: u64) -> usize {
    let mut text = 0u64;
    let mut len = 0;
    loop {
        text = (text << 8) | (u64::from(b'0') + ns % 10);
        len += 1;
        ns /= 10;
        if ns == 0 {
            break;
        }
    }
    block[at..at + 8].copy_from_slice(&text.to_le_bytes());
    block[at + len..at + len + 2].copy_from_slice(b"}\n");
    at + len + 2
}

/// Writes `,"fuel":F,"memory_bytes":M,"cpu_ns":` into `usage`: its length.
fn usage_text(usage: &mut [u8; USAGE], fuel: u64, memory: u64) -> usize {
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        usage[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    put(b",\"fuel\":");
    put(itoa::Buffer::new().format(fuel).as_bytes());
    put(b",\"memory_bytes\":");
    put(itoa::Buffer::new().format(memory).as_bytes());
    put(b",\"cpu_ns\":");
    at
}

/// Appends `"result":` and `v` when `v` is a scalar whose text is short
/// (a boolean, null, a number, as the output writes them): true if it did.
#[inline]
pub fn short_result(out: &mut Vec<u8>, v: &Value) -> bool {
    match v {
        Value::Bool(true) => out.extend_from_slice(b"\"result\":true"),
        Value::Bool(false) => out.extend_from_slice(b"\"result\":false"),
        Value::Null => out.extend_from_slice(b"\"result\":null"),
        Value::Number(n) => {
            out.extend_from_slice(b"\"result\":");
            json_out::write_number(out, *n);
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digits of the current record number.
    fn digits(lines: &RecordLines) -> &[u8] {
        &lines.head[10..lines.head_len - 1]
    }

    #[test]
    fn record_numbers_count_in_decimal_text() {
        for start in [0, 1, 8, 98, 999, 1_234_567, u64::MAX - 3] {
            let mut lines = RecordLines::new(start);
            for n in start..start.saturating_add(3) {
                assert_eq!(digits(&lines), n.to_string().as_bytes());
                assert_eq!(lines.record, n);
                lines.next();
            }
        }
        let mut lines = RecordLines::new(0);
        for n in 0..2_000u64 {
            assert_eq!(digits(&lines), n.to_string().as_bytes());
            lines.next();
        }
    }

    #[test]
    fn times_of_every_length_are_written_in_decimal() {
        let mut n = 0u64;
        let mut times = vec![10, 99, 100, 101, 12_345, SHORT_TIME - 1];
        for _ in 0..8 {
            times.extend([n, n + 1]);
            n = n * 10 + 9;
        }
        for ns in times {
            let mut block = [b'x'; BLOCK];
            let end = time_text(&mut block, 3, ns);
            assert_eq!(&block[3..end], format!("{ns}}}\n").as_bytes());
            assert_eq!(&block[..3], b"xxx");
        }
        // Longer times, and numbers of any length, piece by piece.
        let mut out = Vec::new();
        let mut lines = RecordLines::new(1);
        lines.tail(&mut out, 1, 2, SHORT_TIME);
        lines.tail(&mut out, 1, 2, u64::MAX);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!(
                ",\"fuel\":1,\"memory_bytes\":2,\"cpu_ns\":{SHORT_TIME}}}\n\
                 ,\"fuel\":1,\"memory_bytes\":2,\"cpu_ns\":{}}}\n",
                u64::MAX
            )
        );
    }

    #[test]
    fn record_lines_hold_what_varies() {
        let mut out = Vec::new();
        let mut lines = RecordLines::new(12);
        // Fuel and memory the same as the line before, and not.
        for (v, fuel, memory) in [
            (Value::Bool(false), 6, 0),
            (Value::Bool(true), 6, 0),
            (Value::Null, 4, 0),
        ] {
            assert!(lines.short(&mut out, &v, fuel, memory, 310));
            lines.next();
        }
        // A number: the head, the result appended after it, the tail.
        assert!(!lines.short(&mut out, &Value::Number(2.5), 7, 48, 1_200));
        lines.head(&mut out);
        assert!(short_result(&mut out, &Value::Number(2.5)));
        lines.tail(&mut out, 7, 48, 1_200);
        assert!(!short_result(&mut out, &Value::from("x")));
        // The longest lines, piece by piece; one just short of them.
        let max = u64::MAX;
        let mut lines = RecordLines::new(max);
        assert!(lines.short(&mut out, &Value::Bool(false), max, max, max));
        assert!(lines.short(&mut out, &Value::Bool(true), max, max, 5));
        let mut lines = RecordLines::new(10_u64.pow(15));
        assert!(lines.short(&mut out, &Value::Null, 10_u64.pow(13), 1, 99_999_999));
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!(
                "{{\"record\":12,\"result\":false,\"fuel\":6,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":13,\"result\":true,\"fuel\":6,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":14,\"result\":null,\"fuel\":4,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":15,\"result\":2.5,\"fuel\":7,\"memory_bytes\":48,\"cpu_ns\":1200}}\n\
                 {{\"record\":{max},\"result\":false,\"fuel\":{max},\"memory_bytes\":{max},\"cpu_ns\":{max}}}\n\
                 {{\"record\":{max},\"result\":true,\"fuel\":{max},\"memory_bytes\":{max},\"cpu_ns\":5}}\n\
                 {{\"record\":1000000000000000,\"result\":null,\"fuel\":10000000000000,\"memory_bytes\":1,\"cpu_ns\":99999999}}\n"
            )
        );
    }
}
