//! XPR values to JSON text, appended to a byte buffer.
//!
//! Numbers are written as JavaScript's `JSON.stringify` writes them (ryu-js:
//! `100`, not `100.0`; `1e+21`), strings with the minimal JSON escapes and
//! non-ASCII text left as UTF-8, object keys in insertion order. A value with
//! no JSON form is written as a tagged object, never as plain data:
//! `{"$xpr":"regex","repr":"/a/i"}`, `{"$xpr":"function","repr":"upper"}`.

use xpr::Value;
use xpr_vm::function::Function;

/// Appends `v` as compact JSON.
pub fn write_value(out: &mut Vec<u8>, v: &Value) {
    write_indented(out, v, None, 0);
}

/// Appends `v` as JSON indented by two spaces per level.
pub fn write_pretty(out: &mut Vec<u8>, v: &Value) {
    write_indented(out, v, Some(2), 0);
}

fn newline(out: &mut Vec<u8>, indent: Option<usize>, level: usize) {
    if let Some(step) = indent {
        out.push(b'\n');
        out.resize(out.len() + step * level, b' ');
    }
}

// Recursion is bounded by the value's nesting depth, which the value depth
// budget (for computed values) or serde_json's recursion limit of 128 (for
// parsed input) bounds.
fn write_indented(out: &mut Vec<u8>, v: &Value, indent: Option<usize>, level: usize) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(out, *n),
        Value::String(s) => write_str(out, s),
        Value::Array(a) => {
            if a.is_empty() {
                out.extend_from_slice(b"[]");
                return;
            }
            out.push(b'[');
            for (i, item) in a.items().iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, indent, level + 1);
                write_indented(out, item, indent, level + 1);
            }
            newline(out, indent, level);
            out.push(b']');
        }
        Value::Object(o) => {
            if o.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            out.push(b'{');
            for (i, (k, item)) in o.map().iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, indent, level + 1);
                write_str(out, k);
                out.push(b':');
                if indent.is_some() {
                    out.push(b' ');
                }
                write_indented(out, item, indent, level + 1);
            }
            newline(out, indent, level);
            out.push(b'}');
        }
        Value::Regex(r) => write_tagged(out, "regex", &format!("/{}/{}", r.pattern(), r.flags())),
        Value::Function(f) => {
            let repr = match &**f {
                Function::Closure(_) => "<closure>".to_string(),
                Function::Builtin(id) => xpr_vm::stdlib::function_name(*id).to_string(),
                Function::Host(h) => h.name.clone(),
            };
            write_tagged(out, "function", &repr);
        }
    }
}

fn write_tagged(out: &mut Vec<u8>, tag: &str, repr: &str) {
    out.extend_from_slice(b"{\"$xpr\":");
    write_str(out, tag);
    out.extend_from_slice(b",\"repr\":");
    write_str(out, repr);
    out.push(b'}');
}

/// Appends a number as JavaScript writes it; a non-finite one (which no
/// value should hold) as `null`, as `JSON.stringify` does.
pub fn write_number(out: &mut Vec<u8>, n: f64) {
    if !n.is_finite() {
        out.extend_from_slice(b"null");
    } else if n == 0.0 {
        out.push(b'0');
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        // Integers: the common case, without the float formatter.
        let buf = itoa_buf(n as i64);
        out.extend_from_slice(buf.digits());
    } else {
        let mut buf = ryu_js::Buffer::new();
        out.extend_from_slice(buf.format_finite(n).as_bytes());
    }
}

/// A small stack buffer holding an integer's decimal digits.
struct Digits {
    buf: [u8; 24],
    start: usize,
}

impl Digits {
    fn digits(&self) -> &[u8] {
        self.buf.get(self.start..).unwrap_or(&[])
    }
}

// The indexing below stays in bounds: an i64 has at most 19 digits and a
// sign, and the buffer holds 24 bytes.
fn itoa_buf(n: i64) -> Digits {
    let mut buf = [0u8; 24];
    let mut i = buf.len();
    let negative = n < 0;
    let mut m = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    if negative {
        i -= 1;
        buf[i] = b'-';
    }
    Digits { buf, start: i }
}

/// Appends a JSON string literal: `"`, `\`, and control characters escaped.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(bytes.get(start..i).unwrap_or(&[]));
        if escape.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or(&[]));
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpr::Map;

    fn json(v: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, v);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn numbers_as_javascript_writes_them() {
        let cases = [
            (100.0, "100"),
            (-0.0, "0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-7.0, "-7"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (9007199254740993.0, "9007199254740992"),
            (f64::NAN, "null"),
        ];
        for (n, want) in cases {
            assert_eq!(json(&Value::Number(n)), want, "{n}");
        }
    }

    #[test]
    fn strings_are_escaped_minimally() {
        let v = Value::from("a\"b\\c\nd\u{1}é😀");
        assert_eq!(json(&v), r#""a\"b\\c\nd\u0001é😀""#);
        // The output parses back to the same text.
        let back: Result<String, _> = serde_json::from_str(&json(&v));
        assert_eq!(back.ok().as_deref(), v.as_str());
    }

    #[test]
    fn nested_structures_keep_key_order() {
        let mut m = Map::default();
        m.insert(
            "z".into(),
            Value::array(vec![Value::Null, Value::Bool(true)]),
        );
        m.insert("a".into(), Value::object(Map::default()));
        m.insert("m".into(), Value::array(vec![]));
        let v = Value::object(m);
        assert_eq!(json(&v), r#"{"z":[null,true],"a":{},"m":[]}"#);
        let mut pretty = Vec::new();
        write_pretty(&mut pretty, &v);
        assert_eq!(
            String::from_utf8_lossy(&pretty),
            "{\n  \"z\": [\n    null,\n    true\n  ],\n  \"a\": {},\n  \"m\": []\n}"
        );
    }
}
