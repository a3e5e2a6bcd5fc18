//! JSON in and out: conversions between [`Value`] and `serde_json::Value`,
//! serde `Serialize` / `Deserialize` for [`Value`], and the
//! [`Context`](crate::Context) implementation for `serde_json` maps.
//!
//! Host data is untrusted (issue: sandbox, "hostile host data"):
//! - every conversion is bounded by [`MAX_DEPTH`] levels of nesting and
//!   fails with a [`ErrorKind::Depth`] error past it, never by overflowing
//!   the stack (`serde_json::from_str` has its own limit of 128 levels,
//!   which fails first when parsing text);
//! - a number outside the range of an f64 (`1e400`, which `serde_json`
//!   itself already rejects when parsing text) is an
//!   [`ErrorKind::Value`] error, never an infinity;
//! - duplicate keys in JSON text: the last value wins, at the position of
//!   the first (as `JSON.parse`).
//!
//! Going out, integral numbers of magnitude up to 2^53 become JSON integers
//! (`100`, not `100.0`), the others JSON floats; a regex or a function has no
//! JSON form (a [`ErrorKind::Type`] error). For JSON *text* with JavaScript
//! number spelling everywhere, use [`crate::format::to_json_string`].

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, SerializeMap, SerializeSeq};

use crate::context::{Context, Field};
use crate::error::{Error, ErrorKind};
use crate::value::{Key, Map, Value, bytes_eq};

/// The deepest nesting of arrays and objects a conversion accepts: the VM's
/// default value-depth budget. `[]` is 1 level, `[[]]` is 2.
pub const MAX_DEPTH: u32 = 1000;

/// Integral numbers up to this magnitude are written as JSON integers.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

fn depth_error() -> Error {
    Error::new(
        ErrorKind::Depth,
        format!("Value depth limit exceeded: JSON nested deeper than {MAX_DEPTH} levels"),
    )
}

fn range_error(text: impl fmt::Display) -> Error {
    Error::new(ErrorKind::Value, format!("Number out of range: {text}"))
}

impl Value {
    /// Converts a `serde_json::Value` into an XPR value: null, booleans,
    /// numbers (as f64), strings, arrays and objects (keys in the map's
    /// order, which is insertion order with `preserve_order`).
    ///
    /// # Errors
    /// [`ErrorKind::Depth`] when nested deeper than [`MAX_DEPTH`] levels;
    /// [`ErrorKind::Value`] `Number out of range` for a number that is not
    /// a finite f64 (possible only with serde_json's `arbitrary_precision`).
    pub fn from_json(json: &serde_json::Value) -> Result<Value, Error> {
        match json {
            // A scalar needs none of the containers' machinery.
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => from_json_iter(json),
            scalar => scalar_from_json(scalar),
        }
    }

    /// Converts this value to a `serde_json::Value` (see [`to_json`]).
    ///
    /// # Errors
    /// As [`to_json`].
    pub fn to_json(&self) -> Result<serde_json::Value, Error> {
        to_json(self)
    }
}

/// One array or object being converted, in the explicit stack of
/// [`from_json_iter`]: the children left, what was built so far, and (for an
/// object) the key of the child being converted.
enum FromFrame<'a> {
    Array(std::slice::Iter<'a, serde_json::Value>, Vec<Value>),
    Object(serde_json::map::Iter<'a>, Map, Option<Key>),
}

/// Converts without recursion (an explicit stack), so the depth limit, not
/// the thread's stack, bounds what is accepted.
fn from_json_iter(json: &serde_json::Value) -> Result<Value, Error> {
    let mut stack: Vec<FromFrame<'_>> = Vec::new();
    let mut pending = Some(json);
    loop {
        let mut done = match pending.take() {
            Some(serde_json::Value::Array(items)) => {
                if stack.len() >= MAX_DEPTH as usize {
                    return Err(depth_error());
                }
                stack.push(FromFrame::Array(
                    items.iter(),
                    Vec::with_capacity(items.len()),
                ));
                None
            }
            Some(serde_json::Value::Object(fields)) => {
                if stack.len() >= MAX_DEPTH as usize {
                    return Err(depth_error());
                }
                let map = Map::with_capacity_and_hasher(fields.len(), Default::default());
                stack.push(FromFrame::Object(fields.iter(), map, None));
                None
            }
            Some(scalar) => Some(scalar_from_json(scalar)?),
            None => None,
        };
        // Hand the finished value to its parent, then find the next child to
        // convert, closing every container that has none left.
        loop {
            let Some(top) = stack.last_mut() else {
                return done.ok_or_else(|| Error::new(ErrorKind::Value, "empty JSON conversion"));
            };
            let next = match top {
                FromFrame::Array(items, out) => {
                    out.extend(done.take());
                    items.next()
                }
                FromFrame::Object(fields, out, key) => {
                    if let (Some(k), Some(v)) = (key.take(), done.take()) {
                        out.insert(k, v);
                    }
                    fields.next().map(|(k, v)| {
                        *key = Some(Key::from(k.as_str()));
                        v
                    })
                }
            };
            if let Some(child) = next {
                pending = Some(child);
                break;
            }
            done = match stack.pop() {
                Some(FromFrame::Array(_, out)) => Some(Value::array(out)),
                Some(FromFrame::Object(_, out, _)) => Some(Value::object(out)),
                None => None,
            };
        }
    }
}

fn scalar_from_json(json: &serde_json::Value) -> Result<Value, Error> {
    Ok(match json {
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(number_from_json(n)?),
        serde_json::Value::String(s) => Value::String(Key::from(s.as_str())),
        _ => Value::Null,
    })
}

fn number_from_json(n: &serde_json::Number) -> Result<f64, Error> {
    match n.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(range_error(n)),
    }
}

/// A JSON number for `n`: an integer when `n` is integral and at most 2^53
/// in magnitude (`-0` becomes `0`), otherwise a float.
fn number_to_json(n: f64) -> Result<serde_json::Number, Error> {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        // Exact: integral and within the range where every integer is an f64.
        return Ok(serde_json::Number::from(n as i64));
    }
    serde_json::Number::from_f64(n).ok_or_else(|| range_error(n))
}

/// Converts an XPR value to a `serde_json::Value`.
///
/// # Errors
/// [`ErrorKind::Type`] `Type error: cannot convert regex to JSON` (or
/// `function`) when `v` is or contains one; [`ErrorKind::Depth`] when `v` is
/// nested deeper than [`MAX_DEPTH`] (checked once, in O(1), from the depth
/// the value carries); [`ErrorKind::Value`] for a non-finite number (which
/// XPR values never hold).
pub fn to_json(v: &Value) -> Result<serde_json::Value, Error> {
    if v.depth() > MAX_DEPTH {
        return Err(depth_error());
    }
    to_json_unchecked(v)
}

/// One array or object being converted, in the explicit stack of
/// [`to_json_unchecked`].
enum ToFrame<'a> {
    Array(std::slice::Iter<'a, Value>, Vec<serde_json::Value>),
    Object(
        indexmap::map::Iter<'a, Key, Value>,
        serde_json::Map<String, serde_json::Value>,
        Option<String>,
    ),
}

/// Converts without recursion (an explicit stack).
fn to_json_unchecked(v: &Value) -> Result<serde_json::Value, Error> {
    let mut stack: Vec<ToFrame<'_>> = Vec::new();
    let mut pending = Some(v);
    loop {
        let mut done = match pending.take() {
            Some(Value::Array(a)) => {
                stack.push(ToFrame::Array(
                    a.items().iter(),
                    Vec::with_capacity(a.len()),
                ));
                None
            }
            Some(Value::Object(o)) => {
                stack.push(ToFrame::Object(
                    o.map().iter(),
                    serde_json::Map::with_capacity(o.len()),
                    None,
                ));
                None
            }
            Some(scalar) => Some(scalar_to_json(scalar)?),
            None => None,
        };
        loop {
            let Some(top) = stack.last_mut() else {
                return done.ok_or_else(|| Error::new(ErrorKind::Value, "empty JSON conversion"));
            };
            let next = match top {
                ToFrame::Array(items, out) => {
                    out.extend(done.take());
                    items.next()
                }
                ToFrame::Object(fields, out, key) => {
                    if let (Some(k), Some(v)) = (key.take(), done.take()) {
                        out.insert(k, v);
                    }
                    fields.next().map(|(k, v)| {
                        *key = Some(k.to_string());
                        v
                    })
                }
            };
            if let Some(child) = next {
                pending = Some(child);
                break;
            }
            done = match stack.pop() {
                Some(ToFrame::Array(_, out)) => Some(serde_json::Value::Array(out)),
                Some(ToFrame::Object(_, out, _)) => Some(serde_json::Value::Object(out)),
                None => None,
            };
        }
    }
}

fn scalar_to_json(v: &Value) -> Result<serde_json::Value, Error> {
    Ok(match v {
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::Value::Number(number_to_json(*n)?),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Regex(_) => return Err(Error::type_error("cannot convert regex to JSON")),
        Value::Function(_) => return Err(Error::type_error("cannot convert function to JSON")),
        _ => serde_json::Value::Null,
    })
}

impl TryFrom<&serde_json::Value> for Value {
    type Error = Error;

    /// Same as [`Value::from_json`].
    fn try_from(json: &serde_json::Value) -> Result<Self, Error> {
        Value::from_json(json)
    }
}

impl TryFrom<&Value> for serde_json::Value {
    type Error = Error;

    /// Same as [`to_json`].
    fn try_from(v: &Value) -> Result<Self, Error> {
        to_json(v)
    }
}

// ----------------------------------------------------------------- Serialize

/// Serializes as JSON data would be: null, bool, numbers (integral numbers
/// up to 2^53 in magnitude as `i64`, others as `f64`), strings, sequences,
/// maps in insertion order.
///
/// # Errors
/// A serializer error (`S::Error::custom`) for a regex, a function, or a
/// value nested deeper than [`MAX_DEPTH`].
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.depth() > MAX_DEPTH {
            return Err(ser::Error::custom(depth_error().message()));
        }
        Unchecked(self).serialize(serializer)
    }
}

/// A value whose depth was checked at the top.
struct Unchecked<'a>(&'a Value);

impl serde::Serialize for Unchecked<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
                    serializer.serialize_i64(*n as i64)
                } else {
                    serializer.serialize_f64(*n)
                }
            }
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for item in a.items() {
                    seq.serialize_element(&Unchecked(item))?;
                }
                seq.end()
            }
            Value::Object(o) => {
                let mut map = serializer.serialize_map(Some(o.len()))?;
                for (k, v) in o.map() {
                    map.serialize_entry(&**k, &Unchecked(v))?;
                }
                map.end()
            }
            Value::Regex(_) => Err(ser::Error::custom(
                "Type error: cannot convert regex to JSON",
            )),
            Value::Function(_) => Err(ser::Error::custom(
                "Type error: cannot convert function to JSON",
            )),
        }
    }
}

// --------------------------------------------------------------- Deserialize

/// Builds values straight from the deserializer's events (no intermediate
/// tree): `serde_json::from_str::<Value>(text)` parses JSON text into an XPR
/// value in one pass.
///
/// # Errors
/// The deserializer's error for malformed input; `Number out of range` for
/// a non-finite float; a depth error past [`MAX_DEPTH`] levels (serde_json's
/// own limit of 128 applies first unless disabled).
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Seed { depth: 0 }.deserialize(deserializer)
    }
}

/// Deserializes one value enclosed by `depth` arrays and objects.
#[derive(Clone, Copy)]
struct Seed {
    depth: u32,
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Seed {
    fn nested<E: de::Error>(self) -> Result<Seed, E> {
        if self.depth >= MAX_DEPTH {
            Err(E::custom(depth_error().message()))
        } else {
            Ok(Seed {
                depth: self.depth + 1,
            })
        }
    }
}

impl<'de> Visitor<'de> for Seed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        if n.is_finite() {
            Ok(Value::Number(n))
        } else {
            Err(E::custom(range_error(n).message()))
        }
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(Key::from(s)))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(Key::from(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        // Cap the pre-allocation: the size hint comes from the input.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut map = Map::with_capacity_and_hasher(
            access.size_hint().unwrap_or(0).min(4096),
            Default::default(),
        );
        while let Some(key) = access.next_key_seed(KeySeed)? {
            let value = access.next_value_seed(inner)?;
            map.insert(key, value);
        }
        Ok(Value::object(map))
    }
}

/// Deserializes an object key straight into a [`Key`].
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
        Ok(Arc::from(s))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Key, E> {
        Ok(Arc::from(s))
    }

    /// Formats whose keys may be scalars (YAML `1: x`): the key is the
    /// scalar's display text, as `fromEntries` makes it.
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Key, E> {
        Ok(Arc::from(if b { "true" } else { "false" }))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Key, E> {
        Ok(Arc::from(crate::format::number_to_string(n as f64)))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Key, E> {
        Ok(Arc::from(crate::format::number_to_string(n as f64)))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Key, E> {
        Ok(Arc::from(crate::format::number_to_string(n)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
        Ok(Arc::from("null"))
    }
}

// ------------------------------------------------------------------ Context

/// A JSON object record as a context: looking up a name converts only that
/// field (and what it contains), never the whole record.
///
/// A field that cannot be converted (nested deeper than [`MAX_DEPTH`], or a
/// non-finite number under `arbitrary_precision`) reads as absent: the trait
/// has no error channel. Hosts that need the error convert with
/// [`Value::from_json`] first.
impl Context for serde_json::Map<String, serde_json::Value> {
    fn get(&self, name: &str) -> Option<Value> {
        serde_json::Map::get(self, name).and_then(|v| Value::from_json(v).ok())
    }

    /// Strings are lent as text ([`Field::Str`]): comparing a field with a
    /// constant converts nothing. A record of up to 16 fields is searched
    /// in order, comparing keys, which is cheaper than hashing the name.
    fn lookup(&self, name: &str, _: u64) -> Option<Field<'_>> {
        let v = if self.len() <= 16 {
            self.iter()
                .find(|(k, _)| bytes_eq(k.as_bytes(), name.as_bytes()))
                .map(|(_, v)| v)
        } else {
            serde_json::Map::get(self, name)
        }?;
        match v {
            serde_json::Value::String(s) => Some(Field::Str(s)),
            other => Value::from_json(other).ok().map(Field::Owned),
        }
    }
}

/// A JSON value as a context: an object's fields (see the map
/// implementation); any other JSON value has none.
impl Context for serde_json::Value {
    fn get(&self, name: &str) -> Option<Value> {
        match self {
            serde_json::Value::Object(map) => Context::get(map, name),
            _ => None,
        }
    }

    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        match self {
            serde_json::Value::Object(map) => map.lookup(name, hash),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
