//! The record lines of `run --audit-records`: `{"record":N,"result":R,
//! "fuel":F,"memory_bytes":M,"cpu_ns":T}`, built with as little work per
//! record as can be (see docs/decisions.md, "What per-record lines still
//! cost").

use xpr::Value;

use super::super::json_out;

/// The record lines of one chunk, built by copies of a fixed size into a
/// line kept here, then appended to the chunk's log buffer with one more:
/// a line costs about a hundred instructions and one capacity check of
/// the buffer. What two lines in a row usually share is kept as text: the
/// record number (incremented as text: usually one digit changes) and the
/// `fuel` and `memory_bytes` part (formatted again only when it changes).
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
    /// The line being built.
    line: [u8; LINE],
}

/// Room for `{"record":N,` (31 bytes at most).
const HEAD: usize = 32;
/// Room for `,"fuel":F,"memory_bytes":M,"cpu_ns":` (74 bytes at most).
const USAGE: usize = 80;
/// Room for the longest line with a short result (141 bytes: a 20-digit
/// record number, `"result":false`, three 20-digit integers) and for the
/// copies of a fixed size that build it.
const LINE: usize = 160;

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
            line: [0; LINE],
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
        self.line[..HEAD].copy_from_slice(&self.head);
        let mut at = self.head_len;
        self.line[at..at + 16].copy_from_slice(text);
        at += len;
        let end = self.put_tail(at, fuel, memory, ns);
        self.emit(out, end);
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
        let end = self.put_tail(0, fuel, memory, ns);
        self.emit(out, end);
    }

    /// Appends `self.line[..end]`: all of it copied (a copy of a fixed
    /// size), then cut to `end`.
    #[inline]
    fn emit(&self, out: &mut Vec<u8>, end: usize) {
        let at = out.len();
        out.extend_from_slice(&self.line);
        out.truncate(at + end);
    }

    /// Builds the tail in `self.line` from `at` on: where it ends.
    #[inline]
    fn put_tail(&mut self, at: usize, fuel: u64, memory: u64, ns: u64) -> usize {
        if self.usage_of != Some((fuel, memory)) {
            self.usage_of = Some((fuel, memory));
            self.usage_len = usage_text(&mut self.usage, fuel, memory);
        }
        self.line[at..at + USAGE].copy_from_slice(&self.usage);
        let at = at + self.usage_len;
        let (digits, len) = Digits::of(ns);
        self.line[at..at + 20].copy_from_slice(digits.block());
        let at = at + len;
        self.line[at..at + 2].copy_from_slice(b"}\n");
        at + 2
    }
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

/// The decimal digits of an integer in a block of 40 bytes, from `start`
/// on, so that 20 bytes from there can be copied at once (a copy of a
/// fixed size) whatever the number of digits.
struct Digits {
    block: [u8; 40],
    start: usize,
}

impl Digits {
    /// `n`'s digits and their count, written from the last, two at a time.
    #[inline]
    fn of(mut n: u64) -> (Digits, usize) {
        let mut block = [0u8; 40];
        let mut at = 20;
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            at -= 2;
            block[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            let pair = n as usize * 2;
            at -= 2;
            block[at..at + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        } else {
            at -= 1;
            block[at] = b'0' + n as u8;
        }
        (Digits { block, start: at }, 20 - at)
    }

    /// 20 bytes from the first digit on.
    #[inline]
    fn block(&self) -> &[u8] {
        &self.block[self.start..self.start + 20]
    }
}

/// "00", "01", ... "99".
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

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
    fn integers_of_every_length_are_written_in_decimal() {
        let mut n = 0u64;
        let mut numbers = vec![u64::MAX, 10, 99, 100, 101, 12_345];
        for _ in 0..20 {
            numbers.extend([n, n.saturating_add(1)]);
            n = n.saturating_mul(10).saturating_add(9);
        }
        for n in numbers {
            let (digits, len) = Digits::of(n);
            assert_eq!(&digits.block()[..len], n.to_string().as_bytes());
        }
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
        // The longest line fits.
        let max = u64::MAX;
        let mut lines = RecordLines::new(max);
        assert!(lines.short(&mut out, &Value::Bool(false), max, max, max));
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!(
                "{{\"record\":12,\"result\":false,\"fuel\":6,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":13,\"result\":true,\"fuel\":6,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":14,\"result\":null,\"fuel\":4,\"memory_bytes\":0,\"cpu_ns\":310}}\n\
                 {{\"record\":15,\"result\":2.5,\"fuel\":7,\"memory_bytes\":48,\"cpu_ns\":1200}}\n\
                 {{\"record\":{max},\"result\":false,\"fuel\":{max},\"memory_bytes\":{max},\"cpu_ns\":{max}}}\n"
            )
        );
    }
}
