//! `xpr check --sample FILE`: the first records of FILE, the field names
//! they have, and the nested paths an expression reads
//! (`properties.magg`) that none of them has, each with the nearest path
//! they do have (`properties.mag`).

use std::collections::BTreeSet;
use std::path::Path;

use xpr::{Diagnostic, Severity, Value, Warning};

use super::input::{self, Problem};
use super::json_in::{self, Conv, JsonError};
use super::{Exit, InputFormat};

/// How many records `--sample` reads at most: a field missing from the
/// first record (a null left out) is found in a later one.
pub const SAMPLE_RECORDS: usize = 100;

/// The longest record `--sample` reads.
const SAMPLE_BYTES: usize = 64 << 20;

/// The first records of `path` (NDJSON, a JSON array of records, or one
/// record, either over several lines), at most [`SAMPLE_RECORDS`], parsed; a later record that is not valid JSON
/// is left out, a first one is an error.
pub fn sample_records(path: &Path, depth: u32) -> Result<Vec<Value>, Exit> {
    let texts = records(path)?;
    let mut conv = Conv::new(false, depth);
    let first = texts.first().map_or("", String::as_str);
    let values: Vec<Value> = match json_in::parse_value(first, &mut conv) {
        // A file holding one array on one line: its elements are the records.
        Ok(Value::Array(a)) => a.items().iter().take(SAMPLE_RECORDS).cloned().collect(),
        Ok(v) => {
            let rest = texts.get(1..).unwrap_or(&[]);
            let later = rest
                .iter()
                .filter_map(|t| json_in::parse_value(t, &mut conv).ok());
            std::iter::once(v).chain(later).collect()
        }
        Err(e) => return Err(sample_error(path, &e)),
    };
    match values.first() {
        Some(Value::Object(_)) => Ok(values),
        None => Err(Exit::usage(format_args!(
            "{}: no record to take fields from",
            path.display()
        ))),
        _ => Err(Exit::usage(format_args!(
            "{}: the first record is not a JSON object",
            path.display()
        ))),
    }
}

/// The top-level field names of the sample records, each once, in order
/// of first appearance.
pub fn fields(samples: &[Value]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for o in samples.iter().filter_map(Value::as_object) {
        for k in o.map().keys() {
            if seen.insert(k.to_string()) {
                out.push(k.to_string());
            }
        }
    }
    out
}

/// A warning for each path `paths` names (a context name and the fields
/// read from it in a chain) that no sample has, though some sample has an
/// object where its last existing part ends: `'properties.magg' is not a
/// field of the sample records (did you mean 'properties.mag'?)`. A path
/// through a value no sample holds as an object is not judged; its first
/// name is (as a top-level field, elsewhere).
pub fn path_warnings(paths: &[Vec<String>], samples: &[Value], source: &str) -> Vec<Warning> {
    let mut out = Vec::new();
    for path in paths.iter().filter(|p| p.len() > 1) {
        // The objects reached so far, across the samples.
        let mut level: Vec<&Value> = samples.iter().collect();
        for (depth, name) in path.iter().enumerate() {
            let objects: Vec<_> = level.iter().filter_map(|v| v.as_object()).collect();
            if objects.is_empty() {
                break;
            }
            let next: Vec<&Value> = objects.iter().filter_map(|o| o.get(name)).collect();
            if next.is_empty() {
                if depth > 0 {
                    out.push(missing(path, depth, &objects, source));
                }
                break;
            }
            level = next;
        }
    }
    out
}

/// The warning for `path`, whose part `depth` no object of `objects` has.
fn missing(
    path: &[String],
    depth: usize,
    objects: &[&std::sync::Arc<xpr_vm::Object>],
    source: &str,
) -> Warning {
    let shown = path.get(..=depth).unwrap_or(path).join(".");
    let parent = path.get(..depth).unwrap_or(&[]).join(".");
    let mut keys = BTreeSet::new();
    for o in objects {
        // The first keys of each object only: a record of 100,000 keys
        // must not make the check slow.
        keys.extend(o.map().keys().take(1_000).map(|k| k.to_string()));
    }
    let name = path.get(depth).map_or("", String::as_str);
    let near = xpr_vm::suggest::closest(name, keys.iter().map(String::as_str))
        .map(|n| format!("{parent}.{n}"));
    let mut d = Diagnostic::new(
        "unknown_field",
        format!("'{shown}' is not a field of the sample records"),
        Severity::Warning,
    );
    if let Some(n) = &near {
        let hint = format!("did you mean '{n}'?");
        d.message = format!("{} ({hint})", d.message);
        d.hint = Some(hint);
    }
    // The path as written (`properties.magg`), where the source has it.
    d.span = source.find(&shown).map(|byte| {
        let start = source.get(..byte).map_or(0, |s| s.chars().count()) as u32;
        xpr::Span::new(start, start + shown.chars().count() as u32)
    });
    d.text = match d.span {
        Some(s) => format!("{} at position {}", d.message, s.start),
        None => d.message.clone(),
    };
    Warning {
        diagnostic: d,
        name: shown,
        suggestion: near,
    }
}

fn sample_error(path: &Path, e: &JsonError) -> Exit {
    if e.is_data() {
        return Exit::usage(format_args!(
            "{}: the first record: {}",
            path.display(),
            e.message()
        ));
    }
    Exit::usage(format_args!(
        "{}: invalid JSON in the first record: {}",
        path.display(),
        e.message()
    ))
}

/// How many leading bytes (a BOM, white space) are read to tell one JSON
/// document from NDJSON; past them, NDJSON.
const SNIFF_BYTES: usize = 64 << 10;

/// Whether the text beginning `head` is one JSON document over several
/// lines (an array of records, `[`, or one pretty-printed record, `{` then
/// a line break) rather than NDJSON; `None` while `head` does not tell.
fn one_document(head: &[u8]) -> Option<bool> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let at = head.iter().position(|b| !b.is_ascii_whitespace())?;
    match head[at] {
        b'[' => Some(true),
        b'{' => {
            let after = &head[at + 1..];
            let next = after
                .iter()
                .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r'))?;
            Some(*next == b'\n')
        }
        // A BOM read in part.
        0xef | 0xbb if head.len() < 3 => None,
        _ => Some(false),
    }
}

/// The text of the first records of `path` (NDJSON, or one JSON
/// document over several lines, told apart by its first bytes), at most
/// [`SAMPLE_RECORDS`]: a problem in the first is an error, later ones are
/// left out.
fn records(path: &Path) -> Result<Vec<String>, Exit> {
    let inputs = input::open(std::slice::from_ref(&path.to_path_buf()))?;
    // Read once (a pipe cannot be read again): the format from the first
    // bytes.
    let mut format = InputFormat::Ndjson;
    let inputs: Vec<_> = inputs
        .into_iter()
        .map(|i| {
            let (i, head) = i.peek(SNIFF_BYTES, |h| one_document(h).is_some());
            if one_document(&head) == Some(true) {
                format = InputFormat::Json;
            }
            i
        })
        .collect();
    let mut texts = Vec::new();
    let mut failed: Option<String> = None;
    input::read_all(
        inputs,
        format,
        SAMPLE_BYTES,
        &input::ChunkPool::default(),
        &mut |chunk| {
            for r in &chunk.records {
                if texts.len() >= SAMPLE_RECORDS || failed.is_some() {
                    break;
                }
                let text = match &r.problem {
                    None => String::from_utf8(chunk.bytes(r).to_vec())
                        .map_err(|_| "invalid UTF-8".to_string()),
                    Some(Problem::TooLong | Problem::Unended) => Err(format!(
                        "the first record is longer than {SAMPLE_BYTES} bytes"
                    )),
                    Some(Problem::Broken(m)) => Err(m.clone()),
                };
                match text {
                    Ok(t) => texts.push(t),
                    Err(m) if texts.is_empty() => failed = Some(m),
                    Err(_) => {}
                }
            }
            texts.len() < SAMPLE_RECORDS && failed.is_none()
        },
    );
    match (failed, texts.is_empty()) {
        (Some(m), _) => Err(Exit::usage(format_args!("{}: {m}", path.display()))),
        (None, true) => Err(Exit::usage(format_args!(
            "{}: no record to take fields from",
            path.display()
        ))),
        (None, false) => Ok(texts),
    }
}

#[cfg(test)]
mod tests {
    use super::one_document;

    #[test]
    fn one_json_document_is_told_from_ndjson_by_its_first_bytes() {
        for (head, is) in [
            (&b"["[..], Some(true)),
            (b"  \n\t[", Some(true)),
            (b"\xef\xbb\xbf[", Some(true)),
            (b"{\n", Some(true)),
            (b"{ \r\n", Some(true)),
            (b"{\"a\"", Some(false)),
            (b"{ \"a\"", Some(false)),
            (b"5", Some(false)),
            (b"\"s\"", Some(false)),
            (b"", None),
            (b"  \n", None),
            (b"{", None),
            (b"{  ", None),
            (b"\xef", None),
            (b"\xef\xbb", None),
        ] {
            assert_eq!(
                one_document(head),
                is,
                "{:?}",
                String::from_utf8_lossy(head)
            );
        }
    }
}
