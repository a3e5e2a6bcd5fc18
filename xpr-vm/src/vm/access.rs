//! Property access: names that may not be read, a field of an object on
//! the stack, and `obj[idx]`.

use super::errors::{null_index, restricted};
use super::{Exec, NULL, or_null};
use crate::error::{Error, ErrorKind};
use crate::value::{Key, Value};

/// Whether `name` may not be read by name (spec "Blocked Property Names").
#[inline]
pub fn is_restricted(name: &str) -> bool {
    matches!(name, "__proto__" | "constructor" | "prototype")
}

/// Field `key` (hashed `hash`) of the object at `stack[at]`, or null.
#[inline(always)]
pub(super) fn field_at<'s>(stack: &'s [Value], at: usize, key: &str, hash: u64) -> &'s Value {
    match stack.get(at) {
        Some(Value::Object(o)) => o.get_hashed(key, hash).unwrap_or(&NULL),
        _ => &NULL,
    }
}

impl Exec<'_> {
    pub(super) fn index(&mut self, obj: &Value, idx: &Value) -> Result<Value, Error> {
        if let Value::String(k) = idx
            && is_restricted(k)
        {
            return Err(restricted(k));
        }
        match (obj, idx) {
            (Value::Array(a), Value::Number(n)) => {
                let len = a.len() as f64;
                let mut i = n.trunc();
                if i < 0.0 {
                    i += len;
                }
                if i >= 0.0 && i < len {
                    Ok(or_null(a.items().get(i as usize).cloned()))
                } else {
                    Ok(Value::Null)
                }
            }
            (Value::Object(o), Value::String(k)) => {
                if is_restricted(k) {
                    return Err(restricted(k));
                }
                // Looking the key up hashes all of it.
                self.vm
                    .fuel(k.len() as u64 / crate::format::BYTES_PER_FUEL)?;
                Ok(or_null(o.get(k).cloned()))
            }
            (Value::Object(o), Value::Number(n)) => {
                let mut buf = ryu_js::Buffer::new();
                Ok(or_null(o.get(buf.format(*n)).cloned()))
            }
            (Value::String(s), Value::Number(n)) => {
                if *n < 0.0 {
                    return Err(Error::new(
                        ErrorKind::Type,
                        "Cannot use a negative index on a string (negative indexing applies to arrays only)",
                    ));
                }
                let i = n.trunc();
                if i >= s.len() as f64 {
                    return Ok(Value::Null);
                }
                // Finding character i walks the text up to it: charged per byte read.
                let found = s.char_indices().nth(i as usize);
                let read = found.map_or(s.len(), |(at, _)| at);
                self.vm.fuel(read as u64 / crate::format::BYTES_PER_FUEL)?;
                match found.map(|(_, c)| c) {
                    Some(c) => {
                        self.vm.alloc(c.len_utf8() as u64)?;
                        let mut b = [0u8; 4];
                        Ok(Value::String(Key::from(&*c.encode_utf8(&mut b))))
                    }
                    None => Ok(Value::Null),
                }
            }
            (Value::Null, _) => Err(null_index(idx)),
            // A string key names a property, as after a dot: `length` of an
            // array or a string, else nothing (`[1]["0"]`, `(5)["x"]`).
            (_, Value::String(k)) => match obj {
                Value::Array(a) if &**k == "length" => Ok(Value::Number(a.len() as f64)),
                Value::String(s) if &**k == "length" => {
                    // Counting the characters reads all of the text.
                    self.vm
                        .fuel(s.len() as u64 / crate::format::BYTES_PER_FUEL)?;
                    Ok(Value::Number(s.chars().count() as f64))
                }
                _ => Ok(Value::Null),
            },
            (_, Value::Number(_)) => Err(Error::new(
                ErrorKind::Type,
                format!(
                    "Cannot index non-array with number (got {})",
                    obj.type_name()
                ),
            )),
            _ => Err(Error::new(
                ErrorKind::Type,
                format!("Cannot index {} with {}", obj.type_name(), idx.type_name()),
            )),
        }
    }
}
