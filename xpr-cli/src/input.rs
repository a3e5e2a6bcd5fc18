//! Reading records from files or stdin into chunks, streaming: memory
//! holds a bounded number of chunks however long the input.
//!
//! NDJSON: one record per line (a trailing `\r` is dropped; blank lines are
//! not records but still count for line numbers). JSON: one array whose
//! elements are the records, split by a small scanner that keeps every
//! token's bytes but drops whitespace between tokens, so each record fits
//! on one output line unchanged; any other single value is one record.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::{Exit, InputFormat};

mod array;
use array::{Scanner, array_buffer, array_end};

/// A chunk is handed to a worker when it holds this many bytes...
const CHUNK_BYTES: usize = 256 << 10;
/// ...or this many records.
const CHUNK_RECORDS: usize = 2048;

/// Why a record cannot be parsed at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Longer than `--max-record-bytes`; its bytes were not kept. Handed
    /// over as soon as the limit is passed, not when (if ever) the record
    /// ends: the rest of it is then skipped without being held.
    TooLong,
    /// Not a record: the input ended inside the record just reported
    /// [`Problem::TooLong`], before its end of line (or, in a JSON array,
    /// before the end of the element): a stream without line breaks, such
    /// as `/dev/zero` cut short. The run ends.
    Unended,
    /// Broken input at this point (an I/O error or a malformed array);
    /// the rest of that input is not read.
    Broken(String),
}

/// One record: a byte range of its chunk's data and where it started.
#[derive(Debug, Clone)]
pub struct Record {
    /// First byte in [`Chunk::data`].
    pub start: usize,
    /// One past the last byte (line terminator excluded).
    pub end: usize,
    /// 1-based line number in its input where the record starts.
    pub line: u64,
    /// Set when the record is unusable.
    pub problem: Option<Problem>,
}

/// A batch of consecutive records from one input.
#[derive(Debug)]
pub struct Chunk {
    /// Position in the whole stream of chunks, from 0.
    pub index: u64,
    /// The number of the chunk's first record, counted from 1 across all
    /// inputs (the audit log's `record`).
    pub first_record: u64,
    /// The input's name for messages (`<stdin>` for standard input).
    pub source: Arc<str>,
    /// The records' bytes.
    pub data: Vec<u8>,
    /// The records, in input order.
    pub records: Vec<Record>,
}

impl Chunk {
    /// The bytes of `r`.
    pub fn bytes(&self, r: &Record) -> &[u8] {
        self.data.get(r.start..r.end).unwrap_or(&[])
    }
}

/// An opened input.
pub struct Input {
    name: Arc<str>,
    reader: Box<dyn Read + Send>,
}

/// Opens every input up front, so that a missing file is reported before
/// any output (status 2). No paths, or `-`, mean stdin.
pub fn open(paths: &[PathBuf]) -> Result<Vec<Input>, Exit> {
    if paths.is_empty() {
        return Ok(vec![stdin()]);
    }
    paths
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                return Ok(stdin());
            }
            let mut file = File::open(p).map_err(|e| {
                Exit::usage(format_args!("cannot open {}: {}", p.display(), io_text(&e)))
            })?;
            // A directory opens, but cannot be read: say so before any output.
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(Exit::usage(format_args!(
                    "cannot open {}: Is a directory",
                    p.display()
                )));
            }
            if let Some((kind, flag)) = binary_kind(&mut file) {
                return Err(Exit::usage(format_args!(
                    "{} is {kind} file, and this reads text (NDJSON or JSON): \
                     `xpr run --input {flag}` reads it",
                    p.display(),
                )));
            }
            Ok(Input {
                name: Arc::from(p.display().to_string()),
                reader: Box::new(file),
            })
        })
        .collect()
}

/// Whether a regular file is a Parquet file (`PAR1` at both ends), an
/// Arrow IPC file (`ARROW1` at both ends) or an Arrow IPC stream (a
/// `0xFFFFFFFF` continuation marker first, which no text starts with):
/// the kind and the `--input` value that reads it. Reads at most 12 bytes
/// and puts the file back at its start (a pipe or device is not read).
fn binary_kind(file: &mut File) -> Option<(&'static str, &'static str)> {
    use std::io::{Seek, SeekFrom};
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut ends = |from: SeekFrom| {
        let mut bytes = [0u8; 6];
        file.seek(from).ok()?;
        let n = file.read(&mut bytes).ok()?;
        Some((bytes, n))
    };
    let head = ends(SeekFrom::Start(0));
    let tail = ends(SeekFrom::End(-6));
    file.seek(SeekFrom::Start(0)).ok()?;
    let ((head, _), (tail, n)) = (head?, tail.unwrap_or(([0; 6], 0)));
    let tail = &tail[..n];
    if head.starts_with(b"PAR1") && tail.ends_with(b"PAR1") {
        Some(("a Parquet", "parquet"))
    } else if head.starts_with(b"ARROW1") && tail.ends_with(b"ARROW1")
        || head.starts_with(&[0xFF; 4])
    {
        Some(("an Arrow IPC", "arrow"))
    } else {
        None
    }
}

impl Input {
    /// Reads its first bytes, one at a time until `enough(bytes so far)`
    /// or `max` of them, and gives them with the input, which still yields
    /// every byte from the first (a pipe is read once).
    pub fn peek(mut self, max: usize, mut enough: impl FnMut(&[u8]) -> bool) -> (Input, Vec<u8>) {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while head.len() < max && !enough(&head) {
            match self.reader.read(&mut byte) {
                Ok(0) => break,
                Ok(_) => head.push(byte[0]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // The read after the head meets it again, and reports it.
                Err(_) => break,
            }
        }
        let reader = Box::new(io::Cursor::new(head.clone()).chain(self.reader));
        (
            Input {
                name: self.name,
                reader,
            },
            head,
        )
    }

    /// An input reading `bytes` (for tests).
    #[cfg(test)]
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input {
            name: Arc::from(name),
            reader: Box::new(io::Cursor::new(bytes)),
        }
    }
}

fn stdin() -> Input {
    Input {
        name: Arc::from("<stdin>"),
        reader: Box::new(io::stdin()),
    }
}

/// An I/O error's text without Rust's ` (os error N)` suffix.
pub fn io_text(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text.get(..i).unwrap_or(&text).to_string(),
        None => text,
    }
}

/// Spent chunks' buffers, given back by whoever processed them and taken
/// by the reader for the next chunks: reading then writes into memory
/// already mapped instead of page-faulting on a fresh 256 KiB buffer per
/// chunk (which cost more than cutting the chunk into records).
#[derive(Default)]
pub struct ChunkPool {
    spare: Mutex<Vec<(Vec<u8>, Vec<Record>)>>,
}

/// Buffers kept beyond this many are freed (the reader never has more
/// chunks in flight than a few per worker).
const POOL_LIMIT: usize = 64;

impl ChunkPool {
    /// Keeps `chunk`'s buffers (emptied) for a later chunk, unless they
    /// grew for a long record: that memory is given back.
    pub fn give(&self, chunk: Chunk) {
        let Chunk {
            mut data,
            mut records,
            ..
        } = chunk;
        if data.capacity() > 2 * CHUNK_BYTES || records.capacity() > 2 * CHUNK_RECORDS {
            return;
        }
        data.clear();
        records.clear();
        if let Ok(mut spare) = self.spare.lock()
            && spare.len() < POOL_LIMIT
        {
            spare.push((data, records));
        }
    }

    /// An empty chunk of `source` (numbered when handed over).
    fn chunk(&self, source: Arc<str>) -> Chunk {
        let kept = self.spare.lock().ok().and_then(|mut s| s.pop());
        let (data, records) =
            kept.unwrap_or_else(|| (Vec::with_capacity(CHUNK_BYTES + 4096), Vec::new()));
        Chunk {
            index: 0,
            first_record: 1,
            source,
            data,
            records,
        }
    }
}

/// Reads every input in order, handing chunks to `emit` until it returns
/// `false` or the inputs end (a [`Reader`] pulled to the end); each chunk's
/// buffers come from `pool` when it has some. Read errors and malformed
/// arrays become a final record with a [`Problem`] in the chunk of that
/// input.
pub fn read_all(
    inputs: Vec<Input>,
    format: InputFormat,
    max_record: usize,
    pool: &ChunkPool,
    emit: &mut dyn FnMut(Chunk) -> bool,
) {
    let mut reader = Reader::new(inputs, format, max_record, pool);
    while let Some(chunk) = reader.next_chunk() {
        if !emit(chunk) {
            return;
        }
    }
}

/// The inputs, read in order and cut into chunks that are pulled one at a
/// time with [`Reader::next_chunk`], so that whichever worker needs the
/// next chunk can read it itself (the bytes are then already in its
/// core's cache when it parses them).
pub struct Reader<'p> {
    inputs: std::vec::IntoIter<Input>,
    current: Option<Current>,
    format: InputFormat,
    max_record: usize,
    sink: Sink<'p>,
}

/// The input being read.
struct Current {
    reader: BufReader<Box<dyn Read + Send>>,
    parse: Parse,
}

/// How the current input is cut into records.
enum Parse {
    /// NDJSON, at this line number, with the line begun before a pause.
    Ndjson { line: u64, partial: Option<Line> },
    /// A JSON array (or a single document), scanned byte by byte.
    Array(Scanner),
}

/// What one reading step found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// More may follow.
    More,
    /// The input ended.
    Ended,
    /// The input is broken here (already recorded); the rest is not read.
    Broken,
}

impl<'p> Reader<'p> {
    /// A reader of `inputs`, in order, taking chunk buffers from `pool`.
    pub fn new(
        inputs: Vec<Input>,
        format: InputFormat,
        max_record: usize,
        pool: &'p ChunkPool,
    ) -> Self {
        Reader {
            inputs: inputs.into_iter(),
            current: None,
            format,
            max_record,
            sink: Sink {
                chunk: pool.chunk(Arc::from("")),
                pool,
                next_index: 0,
                records: 0,
                ready: VecDeque::new(),
            },
        }
    }

    /// The next chunk (numbered from 0 across all inputs), or `None` when
    /// every input has been read. A chunk is handed out when full, at the
    /// end of an input, or when the input has no more data ready (so a
    /// slow stream, `tail -f`, gets its results without waiting).
    pub fn next_chunk(&mut self) -> Option<Chunk> {
        loop {
            if let Some(chunk) = self.sink.ready.pop_front() {
                return Some(chunk);
            }
            let Some(cur) = &mut self.current else {
                let input = self.inputs.next()?;
                self.sink.chunk.source = input.name;
                self.current = Some(Current {
                    reader: BufReader::with_capacity(256 << 10, input.reader),
                    parse: match self.format {
                        InputFormat::Ndjson => Parse::Ndjson {
                            line: 1,
                            partial: None,
                        },
                        // Parquet and Arrow are read by `columnar`, never here.
                        InputFormat::Json | InputFormat::Parquet | InputFormat::Arrow => {
                            Parse::Array(Scanner::new())
                        }
                    },
                });
                continue;
            };
            let sink = &mut self.sink;
            let step = match &mut cur.parse {
                Parse::Ndjson { line, partial } => {
                    ndjson_line(&mut cur.reader, line, partial, self.max_record, sink)
                }
                Parse::Array(s) => array_buffer(&mut cur.reader, s, self.max_record, sink),
            };
            if step != Step::More {
                if let (Step::Ended, Parse::Array(s)) = (step, &mut cur.parse) {
                    array_end(s, sink);
                }
                sink.end_of_input();
                self.current = None;
            }
        }
    }
}

/// The chunk being filled, and the full ones not yet handed out.
struct Sink<'p> {
    chunk: Chunk,
    pool: &'p ChunkPool,
    next_index: u64,
    /// Records pushed so far (a [`Problem::Unended`] is no record).
    records: u64,
    ready: VecDeque<Chunk>,
}

impl Sink<'_> {
    /// Records the record just appended to the data; hands the chunk over when full.
    fn push(&mut self, record: Record) {
        if !matches!(record.problem, Some(Problem::Unended)) {
            self.records += 1;
        }
        self.chunk.records.push(record);
        if self.chunk.data.len() >= CHUNK_BYTES || self.chunk.records.len() >= CHUNK_RECORDS {
            self.hand_over();
        }
    }

    fn broken(&mut self, line: u64, message: String) {
        let at = self.chunk.data.len();
        self.push(Record {
            start: at,
            end: at,
            line,
            problem: Some(Problem::Broken(message)),
        });
    }

    fn hand_over(&mut self) {
        let end = self.chunk.data.len();
        self.hand_over_keeping(end);
    }

    /// Hands over the chunk's records; its bytes from `from` on (a record
    /// not yet complete) move to the next chunk. Returns where they start
    /// there.
    fn hand_over_keeping(&mut self, from: usize) -> usize {
        let mut next = self.pool.chunk(self.chunk.source.clone());
        next.first_record = self.records + 1;
        next.data
            .extend_from_slice(self.chunk.data.get(from..).unwrap_or(&[]));
        let mut full = std::mem::replace(&mut self.chunk, next);
        full.data.truncate(from);
        full.index = self.next_index;
        self.next_index += 1;
        self.ready.push_back(full);
        0
    }

    /// Hands over the records so far, if any (a record that must be
    /// reported now, not when the chunk is full).
    fn flush(&mut self) {
        if !self.chunk.records.is_empty() {
            self.hand_over();
        }
    }

    /// Hands over what is left of an input (a chunk holds one input's records).
    fn end_of_input(&mut self) {
        if self.chunk.records.is_empty() {
            self.chunk.data.clear();
        } else {
            self.hand_over();
        }
    }
}

/// The UTF-8 byte order mark, skipped at the start of an input.
const BOM: &[u8] = b"\xEF\xBB\xBF";

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// A line being read by [`read_line`]: where it starts in the buffer,
/// whether it is already too long (its bytes are then dropped), whether
/// any byte of it was read. Kept across [`LineRead::Paused`] and
/// [`LineRead::TooLong`].
#[derive(Debug, Clone, Copy)]
pub struct Line {
    /// Offset of the line's first byte in the buffer.
    pub start: usize,
    too_long: bool,
    any: bool,
    /// Every byte read so far is whitespace (known even when the bytes of
    /// a too-long line are not kept).
    pub blank: bool,
    /// [`LineRead::TooLong`] was returned for this line.
    pub reported: bool,
}

impl Line {
    /// A line that will start at `start` in the buffer.
    pub fn new(start: usize) -> Line {
        Line {
            start,
            too_long: false,
            any: false,
            blank: true,
            reported: false,
        }
    }
}

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy)]
pub enum LineRead {
    /// The input ended before any byte of a new line.
    End,
    /// A whole line, read into the buffer from `line.start`: its content
    /// (without a leading byte order mark on a first line, and without its
    /// `\n` or `\r\n`) is `start..end`. `too_long` when the content is
    /// longer than the limit; none of it is kept then (`start == end`).
    /// `terminated` when it ended with a `\n` (not at the end of input).
    Whole {
        start: usize,
        end: usize,
        too_long: bool,
        terminated: bool,
    },
    /// The line, not blank, has just passed the limit and has not ended:
    /// returned once per line, so that the caller can report it at once
    /// (a line may never end). Reading on with the same `line` skips the
    /// rest of it, holding none of it, up to its `Whole` (with
    /// `too_long`; [`Line::reported`] is then set).
    TooLong,
    /// The reader's buffer is spent and the caller asked to be told
    /// before a read that may block; the line so far is in the buffer.
    Paused,
}

/// Reads one line into `buf`, continuing `line` (start a new one with
/// `Line::new(buf.len())`); `first` says it is the input's first line,
/// which may open with a UTF-8 byte order mark (not part of the content).
/// At most `max` bytes of content (plus the mark and `\r\n`) are held
/// while reading, so a line that never ends cannot exhaust memory, and
/// one that passes the limit is told at once ([`LineRead::TooLong`]). With
/// `pause`, returns [`LineRead::Paused`] instead of reading when the
/// reader has nothing buffered (so the caller can hand over finished
/// records first).
///
/// # Errors
/// A read error (the line's bytes are dropped).
pub fn read_line<R: Read>(
    r: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    line: &mut Line,
    max: usize,
    first: bool,
    pause: bool,
) -> io::Result<LineRead> {
    let mark = if first { BOM.len() } else { 0 };
    let held = max.saturating_add(mark + 2);
    let mut terminated = false;
    loop {
        if pause && r.buffer().is_empty() {
            return Ok(LineRead::Paused);
        }
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                buf.truncate(line.start);
                return Err(e);
            }
        };
        if available.is_empty() {
            if !line.any {
                return Ok(LineRead::End);
            }
            break;
        }
        line.any = true;
        let (take, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if line.blank {
            let taken = available.get(..take).unwrap_or(&[]);
            line.blank = taken.iter().all(|&c| is_ws(c));
        }
        if !line.too_long {
            if buf.len() - line.start + take > held {
                line.too_long = true;
                buf.truncate(line.start);
            } else {
                buf.extend_from_slice(available.get(..take).unwrap_or(&[]));
            }
        }
        r.consume(take);
        if done {
            terminated = true;
            break;
        }
        if line.too_long && !line.blank && !line.reported {
            line.reported = true;
            return Ok(LineRead::TooLong);
        }
    }
    // The limit is on the content.
    let mut start = line.start;
    if first && buf.get(start..start + BOM.len()) == Some(BOM) {
        start += BOM.len();
    }
    let mut end = buf.len();
    if end > start && buf.get(end - 1) == Some(&b'\n') {
        end -= 1;
    }
    if end > start && buf.get(end - 1) == Some(&b'\r') {
        end -= 1;
    }
    if line.too_long || end - start > max {
        line.too_long = true;
        buf.truncate(line.start);
        (start, end) = (line.start, line.start);
    }
    Ok(LineRead::Whole {
        start,
        end,
        too_long: line.too_long,
        terminated,
    })
}

#[cfg(test)]
thread_local! {
    /// Tests set it to read NDJSON line by line only (no [`buffered_lines`]).
    static ONE_LINE_AT_A_TIME: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether [`buffered_lines`] is off (only in tests, which compare both ways).
#[inline]
fn one_line_at_a_time() -> bool {
    #[cfg(test)]
    return ONE_LINE_AT_A_TIME.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// The whole lines already in the reader's buffer, taken at once: cut at
/// the line ends found by one `memchr` iterator and copied into the chunk
/// in one piece, where [`ndjson_line`] takes a call to [`read_line`], a
/// search and a copy per line. The chunk's bytes and records, the line
/// numbers and the hand-overs are those of reading line by line (a chunk
/// full after a line is handed over there: the lines are copied in when
/// the chunk is full or the piece is taken, so none is moved). It stops
/// before a line it does not take (blank, or longer than the limit), left
/// to [`ndjson_line`], as is any line not yet ended in the buffer and an
/// input's first line (which may open with a byte order mark). Returns
/// whether it took a line.
fn buffered_lines<R: Read>(
    reader: &mut BufReader<R>,
    number: &mut u64,
    max_record: usize,
    sink: &mut Sink<'_>,
) -> bool {
    let available = reader.buffer();
    let Some(last) = memchr::memrchr(b'\n', available) else {
        return false;
    };
    let piece = available.get(..=last).unwrap_or(&[]);
    // The piece's bytes from `copied` on are not in the chunk yet; they
    // will start at `base` there (copied once a chunk is full, or at the end).
    let (mut copied, mut base) = (0, sink.chunk.data.len());
    // The start of the next line in the piece.
    let mut next = 0;
    for nl in memchr::memchr_iter(b'\n', piece) {
        let mut end = nl;
        if end > next && piece.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        let content = piece.get(next..end).unwrap_or(&[]);
        if content.len() > max_record || content.iter().all(|&c| is_ws(c)) {
            break;
        }
        sink.chunk.records.push(Record {
            start: base + next - copied,
            end: base + end - copied,
            line: *number,
            problem: None,
        });
        sink.records += 1;
        *number += 1;
        next = nl + 1;
        if base + next - copied >= CHUNK_BYTES || sink.chunk.records.len() >= CHUNK_RECORDS {
            let lines = piece.get(copied..next).unwrap_or(&[]);
            sink.chunk.data.extend_from_slice(lines);
            sink.hand_over();
            (copied, base) = (next, sink.chunk.data.len());
        }
    }
    let lines = piece.get(copied..next).unwrap_or(&[]);
    sink.chunk.data.extend_from_slice(lines);
    reader.consume(next);
    next > 0
}

/// Reads one line of NDJSON into the sink: a record, or nothing for a
/// blank line. `line` is the line's number; `partial` the line begun
/// before a pause. Pauses (returning [`Step::More`]) before a read that
/// may block while finished records wait, after handing them over, so a
/// slow stream (`tail -f`) gets every complete record's result at once.
/// A record longer than the limit is handed over as soon as it passes it
/// (the rest of its line is then skipped); if the input ends before that
/// line does, a [`Problem::Unended`] follows it.
fn ndjson_line<R: Read>(
    reader: &mut BufReader<R>,
    number: &mut u64,
    partial: &mut Option<Line>,
    max_record: usize,
    sink: &mut Sink<'_>,
) -> Step {
    if partial.is_none()
        && *number > 1
        && !one_line_at_a_time()
        && buffered_lines(reader, number, max_record, sink)
    {
        return Step::More;
    }
    let mut line = partial
        .take()
        .unwrap_or_else(|| Line::new(sink.chunk.data.len()));
    let pause = !sink.chunk.records.is_empty();
    let first = *number == 1;
    let data = &mut sink.chunk.data;
    let (start, end, too_long) = match read_line(reader, data, &mut line, max_record, first, pause)
    {
        Ok(LineRead::End) => return Step::Ended,
        Ok(LineRead::Whole {
            start,
            end,
            too_long,
            terminated,
        }) => {
            if line.reported {
                // Handed over when it passed the limit.
                if !terminated {
                    let at = sink.chunk.data.len();
                    sink.push(Record {
                        start: at,
                        end: at,
                        line: *number,
                        problem: Some(Problem::Unended),
                    });
                }
                *number += 1;
                return Step::More;
            }
            (start, end, too_long)
        }
        Ok(LineRead::TooLong) => {
            sink.chunk.data.truncate(line.start);
            let at = line.start;
            sink.push(Record {
                start: at,
                end: at,
                line: *number,
                problem: Some(Problem::TooLong),
            });
            sink.flush();
            line.start = sink.chunk.data.len();
            *partial = Some(line);
            return Step::More;
        }
        Ok(LineRead::Paused) => {
            line.start = sink.hand_over_keeping(line.start);
            *partial = Some(line);
            return Step::More;
        }
        Err(e) => {
            sink.broken(*number, format!("cannot read: {}", io_text(&e)));
            return Step::Broken;
        }
    };
    let here = *number;
    *number += 1;
    // A blank line is no record, however long.
    let blank = if too_long {
        line.blank
    } else {
        let content = sink.chunk.data.get(start..end).unwrap_or(&[]);
        content.iter().all(|&c| is_ws(c))
    };
    if blank {
        sink.chunk.data.truncate(line.start);
        return Step::More;
    }
    sink.push(Record {
        start,
        end,
        line: here,
        problem: too_long.then_some(Problem::TooLong),
    });
    Step::More
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
