//! The JSON array reader: splits one array into its elements, each a
//! record, without parsing them (see the parent module's doc).

use std::io::{self, BufRead, BufReader, Read};

use super::{BOM, Problem, Record, Sink, Step, io_text, is_ws};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first token.
    Start,
    /// After `[` (`first`) or after a `,` between elements.
    BeforeElement { first: bool },
    /// Inside an element of the array.
    Element,
    /// After the closing `]`: only whitespace may follow.
    AfterArray,
    /// The document is not an array: all of it is one record.
    Single,
}

/// Splits a JSON array into records without parsing them; see the module doc.
pub(super) struct Scanner {
    state: State,
    depth: u32,
    in_string: bool,
    escape: bool,
    line: u64,
    /// The current record: start offset in the chunk, line, too long.
    start: usize,
    record_line: u64,
    too_long: bool,
    /// The record, too long, was handed over already.
    reported: bool,
    /// Whitespace was dropped since the last byte kept.
    gap: bool,
    last: u8,
    /// The last byte read was a newline.
    ended_line: bool,
    /// Bytes of a leading byte order mark seen so far.
    bom: usize,
    /// A byte other than the mark's was seen (a mark may only open the input).
    seen: bool,
}

fn scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
}

impl Scanner {
    pub(super) fn new() -> Self {
        Scanner {
            state: State::Start,
            depth: 0,
            in_string: false,
            escape: false,
            line: 1,
            start: 0,
            record_line: 1,
            too_long: false,
            reported: false,
            gap: false,
            last: 0,
            ended_line: false,
            bom: 0,
            seen: false,
        }
    }

    fn begin(&mut self, data: &[u8]) {
        self.start = data.len();
        self.record_line = self.line;
        self.too_long = false;
        self.reported = false;
        self.gap = false;
        self.last = 0;
        self.depth = 0;
        self.in_string = false;
        self.escape = false;
    }

    fn keep(&mut self, data: &mut Vec<u8>, b: u8, max: usize) {
        if self.too_long {
            return;
        }
        if data.len() - self.start >= max {
            self.too_long = true;
            data.truncate(self.start);
            return;
        }
        // Keep two scalar tokens apart (`[1 2]` must stay invalid).
        if self.gap && scalar_byte(self.last) && scalar_byte(b) {
            data.push(b' ');
        }
        self.gap = false;
        self.last = b;
        data.push(b);
    }

    /// Feeds one byte of an element (or of a single document). Returns
    /// `Some(b)` for a `,` or `]` that ends the element at depth 0.
    fn element_byte(
        &mut self,
        data: &mut Vec<u8>,
        b: u8,
        max: usize,
        in_array: bool,
    ) -> Option<u8> {
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            self.keep(data, b, max);
            return None;
        }
        match b {
            _ if is_ws(b) => self.gap = true,
            b'"' => {
                self.in_string = true;
                self.keep(data, b, max);
            }
            b'[' | b'{' => {
                self.depth = self.depth.saturating_add(1);
                self.keep(data, b, max);
            }
            b',' | b']' if in_array && self.depth == 0 => return Some(b),
            b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                self.keep(data, b, max);
            }
            _ => self.keep(data, b, max),
        }
        None
    }

    fn record(&self, data: &[u8]) -> Record {
        Record {
            start: self.start,
            end: if self.too_long {
                self.start
            } else {
                data.len()
            },
            line: self.record_line,
            problem: self.too_long.then_some(Problem::TooLong),
        }
    }
}

/// Scans what the reader has buffered of a JSON array (refilling it once).
pub(super) fn array_buffer<R: Read>(
    reader: &mut BufReader<R>,
    s: &mut Scanner,
    max_record: usize,
    sink: &mut Sink<'_>,
) -> Step {
    // Before a read that may block, hand over the finished records (an
    // element begun stays with the next chunk), as `ndjson_line` does.
    if reader.buffer().is_empty() && !sink.chunk.records.is_empty() {
        let begun = matches!(s.state, State::Element | State::Single);
        if begun {
            s.start = sink.hand_over_keeping(s.start);
        } else {
            sink.hand_over();
        }
        return Step::More;
    }
    let available = match reader.fill_buf() {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => return Step::More,
        Err(e) => {
            let message = format!("cannot read: {}", io_text(&e));
            sink.chunk.data.truncate(s.start);
            sink.broken(s.line, message);
            return Step::Broken;
        }
    };
    if available.is_empty() {
        return Step::Ended;
    }
    let n = available.len();
    for &b in available {
        let data = &mut sink.chunk.data;
        match s.state {
            State::Start => {
                if !s.seen && s.bom < BOM.len() && BOM.get(s.bom) == Some(&b) {
                    // Part of a UTF-8 byte order mark opening the input.
                    s.bom += 1;
                } else if s.bom > 0 && s.bom < BOM.len() {
                    // A byte order mark cut short is not UTF-8.
                    let line = s.line;
                    sink.broken(line, "invalid UTF-8 at the start of the input".into());
                    return Step::Broken;
                } else if b == b'[' {
                    s.seen = true;
                    s.state = State::BeforeElement { first: true };
                } else {
                    // A mark may only open the input.
                    s.seen = true;
                    if !is_ws(b) {
                        s.state = State::Single;
                        s.begin(data);
                        s.element_byte(data, b, max_record, false);
                    }
                }
            }
            State::BeforeElement { first } => {
                if b == b']' && first {
                    s.state = State::AfterArray;
                } else if b == b']' || b == b',' {
                    let line = s.line;
                    sink.broken(line, "invalid JSON array: missing element".into());
                    return Step::Broken;
                } else if !is_ws(b) {
                    s.state = State::Element;
                    s.begin(data);
                    s.element_byte(data, b, max_record, true);
                }
            }
            State::Element => {
                if let Some(end) = s.element_byte(data, b, max_record, true) {
                    let record = s.record(data);
                    s.state = if end == b']' {
                        State::AfterArray
                    } else {
                        State::BeforeElement { first: false }
                    };
                    if !s.reported {
                        sink.push(record);
                    }
                }
            }
            State::AfterArray => {
                if !is_ws(b) {
                    let line = s.line;
                    sink.broken(
                        line,
                        "invalid JSON: characters after the closing ']'".into(),
                    );
                    return Step::Broken;
                }
            }
            State::Single => {
                s.element_byte(data, b, max_record, false);
            }
        }
        if s.too_long && !s.reported {
            // Reported as soon as it passes the limit (it may never end);
            // the rest of it is skipped without being held.
            s.reported = true;
            let record = s.record(&sink.chunk.data);
            sink.push(record);
            sink.flush();
            s.start = sink.chunk.data.len();
        }
        s.ended_line = b == b'\n';
        if s.ended_line {
            s.line += 1;
        }
    }
    reader.consume(n);
    Step::More
}

/// The end of a JSON array input: a last record, or what is missing.
pub(super) fn array_end(s: &mut Scanner, sink: &mut Sink<'_>) {
    match s.state {
        State::Start | State::AfterArray => {}
        State::Single => {
            if !s.reported {
                let record = s.record(&sink.chunk.data);
                sink.push(record);
            }
        }
        State::Element if s.reported => {
            // Inside an element reported too long: it never ended.
            let at = sink.chunk.data.len();
            sink.push(Record {
                start: at,
                end: at,
                line: s.record_line,
                problem: Some(Problem::Unended),
            });
        }
        State::BeforeElement { .. } | State::Element => {
            // A last element that is surely complete (it ends with its own
            // `}`, `]` or `"`) before the missing `]` is still a record; a
            // number or word may have been cut off (`[1,23` of `[1,234]`).
            let closed = matches!(s.last, b'}' | b']' | b'"');
            if s.state == State::Element && s.depth == 0 && !s.in_string && closed {
                let record = s.record(&sink.chunk.data);
                sink.push(record);
            } else {
                sink.chunk.data.truncate(s.start);
            }
            // The last line of the input, not the empty one after its final newline.
            let line = if s.ended_line { s.line - 1 } else { s.line };
            sink.broken(
                line,
                "invalid JSON array: unexpected end of input (missing ']')".into(),
            );
        }
    }
}
