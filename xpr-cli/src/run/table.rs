//! `xpr run --output csv|tsv` and `-r/--raw`: results as table rows or
//! as plain text.
//!
//! A table's header is the keys of the first result, in their order;
//! every later result is written in that column order. A field missing
//! from a later result is an empty cell; a key the header lacks makes
//! that result an error (handled by `--on-error`), so no value is
//! dropped silently. Cells: strings as they are, numbers as JavaScript
//! writes them, `true`/`false`, null as an empty cell, arrays and objects
//! as JSON text; a null result is no row. CSV quotes a cell holding a comma, a quote, a line
//! break, or nothing at all (`""`: the empty string, told apart from
//! null), doubling its quotes (RFC 4180; lines end with `\n`). TSV has no
//! quoting: a tab, line break or backslash in a cell is written `\t`,
//! `\n`, `\r`, `\\`.

use xpr::{Key, Value};

use super::super::{OutputFormat, json_out};

/// A table being written.
#[derive(Debug)]
pub(crate) struct Table {
    /// `b','` or `b'\t'`.
    sep: u8,
    header: Option<Vec<Key>>,
}

impl Table {
    /// The table `format` asks for, if it is one.
    pub(crate) fn new(format: OutputFormat) -> Option<Table> {
        let sep = match format {
            OutputFormat::Csv => b',',
            OutputFormat::Tsv => b'\t',
            _ => return None,
        };
        Some(Table { sep, header: None })
    }

    /// Appends the header line of columns `names`, unless a header was
    /// written: for a table whose columns are known before any row
    /// (`--agg`), so that no rows is still a table.
    pub(crate) fn header(&mut self, out: &mut Vec<u8>, names: &[&str]) {
        if self.header.is_some() {
            return;
        }
        for (i, k) in names.iter().enumerate() {
            if i > 0 {
                out.push(self.sep);
            }
            text_cell(self.sep, out, k);
        }
        out.push(b'\n');
        self.header = Some(names.iter().map(|&k| Key::from(k)).collect());
    }

    /// Appends `v`'s row (after the header line, for the first one).
    ///
    /// # Errors
    /// The message for a result that is not an object, or has a key the
    /// header lacks; nothing is written then.
    pub(crate) fn row(&mut self, out: &mut Vec<u8>, v: &Value) -> Result<(), String> {
        let Some(object) = v.as_object() else {
            return Err(not_an_object(v));
        };
        let sep = self.sep;
        let header = match &mut self.header {
            Some(h) => h,
            None => {
                let keys: Vec<Key> = object.map().keys().cloned().collect();
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(sep);
                    }
                    text_cell(sep, out, k);
                }
                out.push(b'\n');
                self.header.insert(keys)
            }
        };
        let found = header.iter().filter(|k| object.get(k).is_some()).count();
        if found < object.len() {
            let extra = object
                .map()
                .keys()
                .find(|k| !header.contains(k))
                .map_or("?", |k| &**k);
            let names: Vec<&str> = header.iter().map(|k| &**k).collect();
            return Err(format!(
                "the result's field '{extra}' is not a column of the table (the columns are \
                 the first result's fields: {})",
                names.join(", ")
            ));
        }
        for (i, k) in header.iter().enumerate() {
            if i > 0 {
                out.push(sep);
            }
            if let Some(v) = object.get(k) {
                cell(sep, out, v);
            }
        }
        out.push(b'\n');
        Ok(())
    }
}

/// Appends the cell of `v`.
fn cell(sep: u8, out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => {}
        Value::String(s) => text_cell(sep, out, s),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => json_out::write_number(out, *n),
        _ => {
            let mut text = Vec::new();
            json_out::write_value(&mut text, v);
            text_cell(sep, out, &String::from_utf8_lossy(&text));
        }
    }
}

/// Appends text as a cell, quoted (CSV) or escaped (TSV) as needed.
fn text_cell(sep: u8, out: &mut Vec<u8>, s: &str) {
    if sep == b'\t' {
        for b in s.bytes() {
            match b {
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\\' => out.extend_from_slice(b"\\\\"),
                _ => out.push(b),
            }
        }
        return;
    }
    let quote = s.is_empty() || s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
    if !quote {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    for b in s.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// The error of a result that is no object in a table.
pub(crate) fn not_an_object(v: &Value) -> String {
    format!(
        "--output csv and tsv write objects, one row each, but the result is {} {} \
         (write an object, such as {{name: name, total: total}})",
        if v.type_name().starts_with(['a', 'o']) {
            "an"
        } else {
            "a"
        },
        v.type_name()
    )
}

/// Appends `v` as `-r/--raw` writes it: a string's text as it is (no
/// quotes, no escapes), anything else as JSON; then a newline.
pub(crate) fn write_raw(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::String(s) => out.extend_from_slice(s.as_bytes()),
        _ => json_out::write_value(out, v),
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(format: OutputFormat, rows: &[serde_json::Value]) -> (String, Vec<String>) {
        let mut t = Table::new(format).unwrap_or_else(|| panic!("a table"));
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for r in rows {
            let v = Value::from_json(r).unwrap_or(Value::Null);
            if let Err(e) = t.row(&mut out, &v) {
                errors.push(e);
            }
        }
        (String::from_utf8(out).unwrap_or_default(), errors)
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        let (text, errors) = table(
            OutputFormat::Csv,
            &[
                serde_json::json!({"b": "x,y", "a": "say \"hi\"", "c": null, "d": ""}),
                serde_json::json!({"a": "line\nbreak", "b": 1.5, "c": [1, "2"], "d": true}),
                serde_json::json!({"d": {"k": 1}}),
            ],
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            text,
            "b,a,c,d\n\"x,y\",\"say \"\"hi\"\"\",,\"\"\n1.5,\"line\nbreak\",\"[1,\"\"2\"\"]\",true\n,,,\"{\"\"k\"\":1}\"\n"
        );
    }

    #[test]
    fn tsv_escapes_and_extra_keys_fail() {
        let (text, errors) = table(
            OutputFormat::Tsv,
            &[
                serde_json::json!({"a": "t\tab\\n", "b": 2}),
                serde_json::json!({"a": 1, "z": 2}),
                serde_json::json!(3),
            ],
        );
        assert_eq!(text, "a\tb\nt\\tab\\\\n\t2\n");
        assert_eq!(errors.len(), 2);
        assert!(
            errors[0].contains("field 'z' is not a column"),
            "{}",
            errors[0]
        );
        assert!(
            errors[1].contains("the result is a number"),
            "{}",
            errors[1]
        );
    }

    #[test]
    fn raw_strings_lose_their_quotes_only() {
        let mut out = Vec::new();
        write_raw(&mut out, &Value::from("a \"b\"\tc"));
        write_raw(&mut out, &Value::Number(2.0));
        write_raw(
            &mut out,
            &Value::from_json(&serde_json::json!(["x"])).unwrap_or(Value::Null),
        );
        assert_eq!(String::from_utf8_lossy(&out), "a \"b\"\tc\n2\n[\"x\"]\n");
    }
}
