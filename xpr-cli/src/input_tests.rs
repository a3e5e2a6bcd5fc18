//! Tests of [`super`]: cutting NDJSON and JSON arrays into records and
//! chunks, long and endless lines, slow inputs.

use super::*;

/// Each record's line and text (or problem).
type Split = Vec<(u64, Result<String, Problem>)>;

fn split(format: InputFormat, text: &str, max: usize) -> Split {
    let reader = io::Cursor::new(text.as_bytes().to_vec());
    split_reader(format, Box::new(reader), max).0
}

/// The records read from `reader`, and how many chunks held them.
fn split_reader(format: InputFormat, reader: Box<dyn Read + Send>, max: usize) -> (Split, usize) {
    let input = Input {
        name: Arc::from("t"),
        reader,
    };
    let mut out = Vec::new();
    let mut chunks = 0;
    read_all(
        vec![input],
        format,
        max,
        &ChunkPool::default(),
        &mut |chunk| {
            chunks += 1;
            for r in &chunk.records {
                let item = match &r.problem {
                    Some(p) => Err(p.clone()),
                    None => Ok(String::from_utf8_lossy(chunk.bytes(r)).into_owned()),
                };
                out.push((r.line, item));
            }
            true
        },
    );
    (out, chunks)
}

/// A reader that hands out at most 3 bytes per read, like a slow pipe.
struct Trickle(io::Cursor<Vec<u8>>);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(3);
        self.0.read(buf.get_mut(..n).unwrap_or(&mut []))
    }
}

fn split_trickle(format: InputFormat, text: &str) -> (Split, usize) {
    let reader = Trickle(io::Cursor::new(text.as_bytes().to_vec()));
    split_reader(format, Box::new(reader), 1000)
}

#[test]
fn slow_input_gives_the_same_records_in_smaller_chunks() {
    let ndjson = "{\"a\": 1}\n{\"b\": [1, 2, 3]}\n\n{\"c\": \"x y z\"}\n";
    let (got, chunks) = split_trickle(InputFormat::Ndjson, ndjson);
    assert_eq!(got, split(InputFormat::Ndjson, ndjson, 1000));
    assert_eq!(got.len(), 3);
    assert!(chunks >= 2, "{chunks} chunks");
    let array = "[ {\"a\": 1},\n {\"b\": [1, 2, 3], \"s\": \"] ,\"},\n 17 ]";
    let (got, _) = split_trickle(InputFormat::Json, array);
    assert_eq!(got, split(InputFormat::Json, array, 1000));
    assert_eq!(got.len(), 3);
    let single = "{\"a\":\n [1, 2]}";
    assert_eq!(
        split_trickle(InputFormat::Json, single).0,
        vec![ok(1, "{\"a\":[1,2]}")]
    );
}

fn ok(line: u64, s: &str) -> (u64, Result<String, Problem>) {
    (line, Ok(s.to_string()))
}

#[test]
fn ndjson_lines_blank_lines_and_crlf() {
    let got = split(
        InputFormat::Ndjson,
        "{\"a\":1}\r\n\n  \n{\"b\": 2}\n[3]",
        100,
    );
    assert_eq!(
        got,
        vec![ok(1, "{\"a\":1}"), ok(4, "{\"b\": 2}"), ok(5, "[3]")]
    );
    assert!(split(InputFormat::Ndjson, "", 100).is_empty());
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let got = split(InputFormat::Ndjson, "\u{feff}{\"a\":1}\n\u{feff}2\n", 100);
    // Only at the start of the input: the second one stays (and is invalid JSON).
    assert_eq!(got, vec![ok(1, "{\"a\":1}"), ok(2, "\u{feff}2")]);
    let got = split(InputFormat::Json, "\u{feff}[1, 2]", 100);
    assert_eq!(got, vec![ok(1, "1"), ok(1, "2")]);
}

/// The records read from `reader` up to the first with a problem (the
/// reader is not pulled further: it may be endless), as [`split`]
/// shows them.
fn records_to_problem(format: InputFormat, reader: Box<dyn Read + Send>, max: usize) -> Split {
    let input = Input {
        name: Arc::from("t"),
        reader,
    };
    let pool = ChunkPool::default();
    let mut reader = Reader::new(vec![input], format, max, &pool);
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk() {
        for r in &chunk.records {
            let Some(p) = &r.problem else {
                let text = String::from_utf8_lossy(chunk.bytes(r)).into_owned();
                out.push((r.line, Ok(text)));
                continue;
            };
            out.push((r.line, Err(p.clone())));
            return out;
        }
    }
    out
}

#[test]
fn a_line_that_never_ends_is_handed_over_once_past_the_limit() {
    // An endless input: the too-long record comes out (after the
    // records before it), rather than the reader reading for ever.
    let endless = io::Cursor::new(b"[1]\n".to_vec()).chain(io::repeat(0));
    let got = records_to_problem(InputFormat::Ndjson, Box::new(endless), 1000);
    assert_eq!(got, vec![ok(1, "[1]"), (2, Err(Problem::TooLong))]);
    // Inside a JSON array, and as a single JSON document.
    let endless = io::Cursor::new(b"[1, \"".to_vec()).chain(io::repeat(b'x'));
    let got = records_to_problem(InputFormat::Json, Box::new(endless), 1000);
    assert_eq!(got, vec![ok(1, "1"), (1, Err(Problem::TooLong))]);
    let got = records_to_problem(InputFormat::Json, Box::new(io::repeat(0)), 1000);
    assert_eq!(got, vec![(1, Err(Problem::TooLong))]);
    // Blank, it is no record: nothing is reported until a record comes.
    let blank = io::Cursor::new(b"[1]\n".to_vec())
        .chain(io::repeat(b' ').take(5000))
        .chain(io::Cursor::new(b"\n[2]\n".to_vec()));
    let got = split_reader(InputFormat::Ndjson, Box::new(blank), 1000).0;
    assert_eq!(got, vec![ok(1, "[1]"), ok(3, "[2]")]);
}

#[test]
fn a_too_long_line_is_skipped_to_its_end_and_an_unended_one_is_told() {
    let long = "x".repeat(5000);
    // Skipped to its end of line: the next records follow.
    let text = format!("[1]\n{long}\n[2]\n{long}");
    let got = split(InputFormat::Ndjson, &text, 1000);
    assert_eq!(
        got,
        vec![
            ok(1, "[1]"),
            (2, Err(Problem::TooLong)),
            ok(3, "[2]"),
            (4, Err(Problem::TooLong)),
            (4, Err(Problem::Unended)),
        ]
    );
    // Ended by the input just after its newline: nothing unended.
    let got = split(InputFormat::Ndjson, &format!("{long}\r\n"), 1000);
    assert_eq!(got, vec![(1, Err(Problem::TooLong))]);
    // A JSON array element: skipped to its end, or never ended.
    let text = format!("[1,\n\"{long}\",\n 2]");
    let got = split(InputFormat::Json, &text, 1000);
    assert_eq!(
        got,
        vec![ok(1, "1"), (2, Err(Problem::TooLong)), ok(3, "2")]
    );
    let got = split(InputFormat::Json, &format!("[1,\n\"{long}"), 1000);
    assert_eq!(
        got,
        vec![
            ok(1, "1"),
            (2, Err(Problem::TooLong)),
            (2, Err(Problem::Unended))
        ]
    );
    // A single document ends with the input.
    let got = split(InputFormat::Json, &format!("\"{long}\""), 1000);
    assert_eq!(got, vec![(1, Err(Problem::TooLong))]);
}

#[test]
fn ndjson_long_lines_are_flagged_not_kept() {
    let got = split(InputFormat::Ndjson, "[1]\n[1,2,3,4,5,6,7,8,9]\n[2]\n", 8);
    assert_eq!(
        got,
        vec![ok(1, "[1]"), (2, Err(Problem::TooLong)), ok(3, "[2]")]
    );
    // The limit is exact, on the content: not the terminator (`\n` or
    // `\r\n`, or none at the end) and not a leading byte order mark.
    let long = Err(Problem::TooLong);
    for (text, want) in [
        ("12345678\n", ok(1, "12345678")),
        ("12345678\r\n", ok(1, "12345678")),
        ("12345678", ok(1, "12345678")),
        ("\u{feff}12345678\n", ok(1, "12345678")),
        ("123456789\n", (1, long.clone())),
        ("123456789", (1, long.clone())),
        ("1234567890", (1, long.clone())),
        ("\u{feff}123456789\r\n", (1, long.clone())),
    ] {
        assert_eq!(split(InputFormat::Ndjson, text, 8), vec![want], "{text:?}");
    }
}

#[test]
fn blank_lines_are_no_records_however_long_and_a_cut_mark_is_an_error() {
    let got = split(InputFormat::Ndjson, "{\"a\":1}\n        \n{\"a\":2}\n", 7);
    assert_eq!(got, vec![ok(1, "{\"a\":1}"), ok(3, "{\"a\":2}")]);
    let bytes = |b: &[u8]| -> Box<dyn Read + Send> { Box::new(io::Cursor::new(b.to_vec())) };
    // Two bytes of a byte order mark, then an array: not UTF-8.
    let (got, _) = split_reader(InputFormat::Json, bytes(b"\xEF\xBB[1]"), 100);
    assert!(
        matches!(got.as_slice(), [(1, Err(Problem::Broken(m)))] if m.contains("invalid UTF-8")),
        "{got:?}"
    );
    // A mark after whitespace is not a mark: the document is then one
    // record, which JSON parsing rejects later.
    let (got, _) = split_reader(InputFormat::Json, bytes(b" \n\xEF\xBB\xBF[1]"), 100);
    assert_eq!(got, vec![ok(2, "\u{feff}[1]")]);
}

/// A reader handing out `pieces` one per read, counting the reads.
struct Pieces {
    pieces: std::collections::VecDeque<Vec<u8>>,
    reads: Arc<std::sync::atomic::AtomicUsize>,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let Some(piece) = self.pieces.pop_front() else {
            return Ok(0);
        };
        let n = piece.len().min(buf.len());
        buf.get_mut(..n)
            .unwrap_or(&mut [])
            .copy_from_slice(piece.get(..n).unwrap_or(&[]));
        if n < piece.len() {
            self.pieces
                .push_front(piece.get(n..).unwrap_or(&[]).to_vec());
        }
        Ok(n)
    }
}

/// The records of each chunk, and how many reads had been made when
/// each chunk was handed out.
fn chunks_and_reads(format: InputFormat, pieces: &[&str]) -> Vec<(Vec<String>, usize)> {
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let input = Input {
        name: Arc::from("t"),
        reader: Box::new(Pieces {
            pieces: pieces.iter().map(|p| p.as_bytes().to_vec()).collect(),
            reads: reads.clone(),
        }),
    };
    let pool = ChunkPool::default();
    let mut reader = Reader::new(vec![input], format, 1000, &pool);
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk() {
        let records = chunk
            .records
            .iter()
            .map(|r| String::from_utf8_lossy(chunk.bytes(r)).into_owned())
            .collect();
        out.push((records, reads.load(std::sync::atomic::Ordering::SeqCst)));
    }
    out
}

#[test]
fn finished_records_are_handed_out_before_a_read_that_may_block() {
    // A blank line, or the start of the next record, after a finished
    // one: the finished one comes out before the next read.
    let got = chunks_and_reads(InputFormat::Ndjson, &["{\"a\":1}\n\n", "{\"a\":2}\n"]);
    assert_eq!(got[0], (vec!["{\"a\":1}".to_string()], 1), "{got:?}");
    let got = chunks_and_reads(InputFormat::Ndjson, &["{\"a\":1}\n{\"a\":", "2}\n", "3\n"]);
    assert_eq!(got[0], (vec!["{\"a\":1}".to_string()], 1), "{got:?}");
    // The record begun before the pause is whole in the next chunk.
    assert_eq!(got[1].0, vec!["{\"a\":2}".to_string()], "{got:?}");
    let all: Vec<String> = got.into_iter().flat_map(|c| c.0).collect();
    assert_eq!(all, ["{\"a\":1}", "{\"a\":2}", "3"]);
    // The same inside a JSON array.
    let got = chunks_and_reads(InputFormat::Json, &["[{\"a\":1},{\"a\":", "2}]"]);
    assert_eq!(got[0], (vec!["{\"a\":1}".to_string()], 1), "{got:?}");
    let all: Vec<String> = got.into_iter().flat_map(|c| c.0).collect();
    assert_eq!(all, ["{\"a\":1}", "{\"a\":2}"]);
}

#[test]
fn array_elements_are_compacted_with_tokens_intact() {
    let text =
        "[\n  {\"a\": \"x, ]\\\" y\",\n   \"n\": 12345678901234567890},\n  [1, [2]] ,\n  3\n]\n";
    let got = split(InputFormat::Json, text, 1000);
    assert_eq!(
        got,
        vec![
            ok(2, "{\"a\":\"x, ]\\\" y\",\"n\":12345678901234567890}"),
            ok(4, "[1,[2]]"),
            ok(5, "3"),
        ]
    );
    assert!(split(InputFormat::Json, " [ ] ", 1000).is_empty());
    assert!(split(InputFormat::Json, "", 1000).is_empty());
}

#[test]
fn array_keeps_scalars_apart_and_reports_broken_structure() {
    assert_eq!(
        split(InputFormat::Json, "[1 2, true]", 1000),
        vec![ok(1, "1 2"), ok(1, "true")]
    );
    let got = split(InputFormat::Json, "[1,\n,2]", 1000);
    assert_eq!(got.len(), 2);
    assert!(matches!(&got[1], (2, Err(Problem::Broken(m))) if m.contains("missing element")));
    let got = split(InputFormat::Json, "[1,\n2", 1000);
    assert!(matches!(got.last(), Some((2, Err(Problem::Broken(m)))) if m.contains("missing ']'")));
    // A cut-off last number is not a record; a closed last element is.
    for cut in ["[1,23", "[1,tru", "[1,-2.5e"] {
        let got = split(InputFormat::Json, cut, 1000);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], ok(1, "1"));
        assert!(matches!(&got[1], (1, Err(Problem::Broken(_)))), "{got:?}");
    }
    let got = split(InputFormat::Json, "[1,{\"a\":2}", 1000);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[1], ok(1, "{\"a\":2}"));
    let got = split(InputFormat::Json, "[1] x", 1000);
    assert!(
        matches!(got.last(), Some((1, Err(Problem::Broken(m)))) if m.contains("after the closing"))
    );
}

#[test]
fn a_single_document_is_one_record() {
    let got = split(InputFormat::Json, "{\n\"a\": [1,\n2]\n}\n", 1000);
    assert_eq!(got, vec![ok(1, "{\"a\":[1,2]}")]);
}

#[test]
fn chunks_are_numbered_in_order() {
    let text: String = (0..5000).map(|i| format!("{{\"i\":{i}}}\n")).collect();
    let input = Input {
        name: Arc::from("t"),
        reader: Box::new(io::Cursor::new(text.into_bytes())),
    };
    let mut indexes = Vec::new();
    let mut total = 0;
    read_all(
        vec![input],
        InputFormat::Ndjson,
        100,
        &ChunkPool::default(),
        &mut |chunk| {
            indexes.push(chunk.index);
            total += chunk.records.len();
            true
        },
    );
    assert_eq!(total, 5000);
    assert_eq!(indexes, (0..indexes.len() as u64).collect::<Vec<_>>());
    assert!(indexes.len() >= 3);
}

/// Every chunk of `text` read as NDJSON from memory: its index, first
/// record, bytes and records (line, range, problem).
type Cut = (u64, u64, Vec<u8>, Vec<(u64, usize, usize, Option<Problem>)>);

fn cut(text: &[u8], max: usize, one_at_a_time: bool) -> Vec<Cut> {
    ONE_LINE_AT_A_TIME.with(|c| c.set(one_at_a_time));
    let input = Input {
        name: Arc::from("t"),
        reader: Box::new(io::Cursor::new(text.to_vec())),
    };
    let mut out = Vec::new();
    read_all(
        vec![input],
        InputFormat::Ndjson,
        max,
        &ChunkPool::default(),
        &mut |chunk| {
            let records = chunk
                .records
                .iter()
                .map(|r| (r.line, r.start, r.end, r.problem.clone()))
                .collect();
            out.push((chunk.index, chunk.first_record, chunk.data.clone(), records));
            true
        },
    );
    ONE_LINE_AT_A_TIME.with(|c| c.set(false));
    out
}

/// Whole lines taken from the reader's buffer at once give the chunks
/// (bytes, records, line numbers, hand-overs) of reading line by line:
/// over records of every length around the limit, blank and whitespace
/// lines, CRLF, a first line with a byte order mark, chunks full by
/// records and by bytes, and a last line without its line break.
#[test]
fn lines_taken_at_once_are_cut_as_line_by_line() {
    let mut rng = xpr_testkit::Rng::new(9);
    for round in 0..6 {
        let mut text = Vec::new();
        if round % 2 == 1 {
            text.extend_from_slice(BOM);
        }
        let lines = if round < 3 { 5000 } else { 800 };
        for i in 0..lines {
            match rng.below(12) {
                0 => text.extend_from_slice(b"\n"),
                1 => text.extend_from_slice(b"  \t\r\n"),
                2 => text.extend_from_slice(format!("{{\"i\":{i}}}\r\n").as_bytes()),
                3 => {
                    // Around the limit (100 bytes), or far beyond it.
                    let n = if rng.coin() {
                        95 + rng.below(10)
                    } else {
                        500 + rng.below(900)
                    };
                    text.extend_from_slice(format!("{{\"s\":\"{}\"}}\n", "x".repeat(n)).as_bytes());
                }
                _ => text.extend_from_slice(
                    format!("{{\"i\":{i},\"t\":\"{}\"}}\n", "y".repeat(rng.below(60))).as_bytes(),
                ),
            }
        }
        if round >= 3 {
            // Records of 20 kB: chunks full by bytes.
            for _ in 0..40 {
                text.extend_from_slice(
                    format!("{{\"big\":\"{}\"}}\n", "z".repeat(20_000)).as_bytes(),
                );
            }
        }
        if round % 3 == 2 {
            text.extend_from_slice(b"{\"last\":1}");
        }
        let max = if round >= 3 { 30_000 } else { 100 };
        let at_once = cut(&text, max, false);
        let by_line = cut(&text, max, true);
        assert!(at_once.len() > 2, "{} chunks", at_once.len());
        assert_eq!(at_once.len(), by_line.len(), "round {round}");
        for (a, b) in at_once.iter().zip(&by_line) {
            assert_eq!(a, b, "round {round}");
        }
    }
}
