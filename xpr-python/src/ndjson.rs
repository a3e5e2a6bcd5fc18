//! NDJSON bytes to records, straight from the bytes: serde_json reads each
//! line, and only the fields on the program's read paths are built into
//! values (the rest is only checked to be JSON), as `xpr run` does.
//!
//! Lines are split at `\n`; a `\r` before it is dropped; blank lines are
//! skipped. A line that is not JSON is an error naming its line number. A
//! line that is not an object has no fields. Numbers become doubles.
//! serde_json reads up to 127 levels of nesting in the parts built.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use xpr::{Key, Map, Value};

use crate::convert::{Layout, Node, Shape, Slot, Values};

/// The lines of `data` with their 1-based numbers: `(number, start, end)`
/// byte ranges, the line ending left out, blank lines skipped.
pub(crate) fn lines(data: &[u8]) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut start = 0;
    let mut number = 0;
    std::iter::from_fn(move || {
        while start < data.len() {
            number += 1;
            let end = data[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(data.len(), |i| start + i);
            let line_start = start;
            start = end + 1;
            let mut stop = end;
            if stop > line_start && data[stop - 1] == b'\r' {
                stop -= 1;
            }
            if data[line_start..stop].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some((number, line_start, stop));
        }
        None
    })
}

/// The slots of the JSON record `line` in `layout` into `values` (cleared
/// first): each root read converted as far as it is read (its leaves'
/// slots unused; absent roots [`Slot::Absent`]).
///
/// # Errors
/// The line is not JSON, or nests deeper than `max_depth` in the parts
/// read: the message.
pub(crate) fn record(
    line: &[u8],
    layout: &Layout,
    max_depth: u32,
    values: &mut Values<'static>,
) -> Result<(), String> {
    values.clear();
    values.resize_with(layout.width, || Slot::Absent);
    let mut de = serde_json::Deserializer::from_slice(line);
    de.deserialize_any(Top {
        roots: &layout.roots,
        values,
        max_depth,
    })
    .and_then(|()| de.end())
    .map_err(|e| e.to_string())
}

/// The record's top level.
struct Top<'a> {
    roots: &'a [Node],
    values: &'a mut [Slot<'static>],
    max_depth: u32,
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(at) = map.next_key_seed(Find(self.roots))? {
            match at {
                Some(i) => {
                    let v = map.next_value_seed(Shaped {
                        shape: &self.roots[i].shape,
                        depth: 1,
                        max_depth: self.max_depth,
                    })?;
                    self.values[i] = Slot::Value(v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// An object key: the index of the node it names, if any.
struct Find<'a>(&'a [Node]);

impl<'de> DeserializeSeed<'de> for Find<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Find<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|n| *n.key == *s))
    }
}

/// A value, read as far as its shape says.
#[derive(Clone, Copy)]
struct Shaped<'a> {
    shape: &'a Shape,
    /// The nesting level an array or object read here has.
    depth: u32,
    max_depth: u32,
}

impl Shaped<'_> {
    fn below<'b>(&self, shape: &'b Shape) -> Shaped<'b> {
        Shaped {
            shape,
            depth: self.depth + 1,
            max_depth: self.max_depth,
        }
    }

    fn check<E: de::Error>(&self) -> Result<(), E> {
        if self.depth > self.max_depth {
            return Err(E::custom(format!(
                "Value depth limit exceeded: input nested deeper than {} levels",
                self.max_depth
            )));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Shaped<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Shaped<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::Number(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(Key::from(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.check()?;
        let whole = self.below(&Shape::Whole);
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(whole)? {
            items.push(v);
        }
        Ok(Value::array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.check()?;
        let mut out = Map::default();
        match self.shape {
            Shape::Whole => {
                while let Some(k) = map.next_key::<KeyText>()? {
                    let v = map.next_value_seed(self.below(&Shape::Whole))?;
                    out.insert(k.0, v);
                }
            }
            Shape::Fields(fields) => {
                while let Some(at) = map.next_key_seed(Find(fields))? {
                    match at {
                        Some(i) => {
                            let node = &fields[i];
                            let v = map.next_value_seed(self.below(&node.shape))?;
                            out.insert(node.key.clone(), v);
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
            }
        }
        Ok(Value::object(out))
    }
}

/// An object key as a [`Key`].
struct KeyText(Key);

impl<'de> de::Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeyText, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_str<E>(self, s: &str) -> Result<KeyText, E> {
                Ok(KeyText(Key::from(s)))
            }
        }
        d.deserialize_str(V)
    }
}
