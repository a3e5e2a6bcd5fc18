//! Typed host data as context values: how a field of a host struct reaches
//! a program, one field at a time and only when the program reads it.
//!
//! [`ToValue`] is what `#[derive(xpr::Context)]` (crate `xpr-derive`) calls
//! for each field a program reads. It is implemented for Rust's scalars,
//! strings, sequences, string-keyed maps, `Option`, smart pointers, XPR's
//! own [`Value`] and `serde_json::Value`, and by the derive for the struct
//! itself, so structs nest.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use std::hash::BuildHasher;

use crate::context::{Context, Field};
use crate::value::{Map, Value};

/// Levels of nesting a host value may have when it is converted: the same
/// bound as for JSON ([`crate::json::MAX_DEPTH`]). A deeper value reads as
/// absent, as a JSON field that cannot be converted does.
pub const MAX_DEPTH: u32 = crate::json::MAX_DEPTH;

/// A host value a program can read.
///
/// Conversions follow JSON's (spec section "Types"): numbers become XPR
/// numbers (an integer beyond 2^53 is rounded to the nearest double, as
/// JavaScript reads it from JSON; NaN and the infinities become null, as
/// `JSON.stringify` writes them); `None` is null; sequences are arrays;
/// string-keyed maps are objects (a `HashMap`'s keys in code-point order,
/// so the order does not depend on its hasher; a `BTreeMap`'s in its own).
pub trait ToValue {
    /// This value as an XPR value, with at most `depth` levels of arrays and
    /// objects (a scalar needs none). `None` when it is nested deeper.
    fn to_value(&self, depth: u32) -> Option<Value>;

    /// This value as a context variable read by name: lent where it can be
    /// ([`Field::Str`] for strings, [`Field::Borrowed`] for a held
    /// [`Value`]), otherwise converted with [`MAX_DEPTH`] levels.
    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        self.to_value(MAX_DEPTH).map(Field::Owned)
    }
}

impl ToValue for bool {
    #[inline]
    fn to_value(&self, _: u32) -> Option<Value> {
        Some(Value::Bool(*self))
    }
}

/// A double as an XPR number: NaN and the infinities are null.
#[inline]
fn number(n: f64) -> Value {
    if n.is_finite() {
        Value::Number(n)
    } else {
        Value::Null
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl ToValue for $t {
            #[inline]
            fn to_value(&self, _: u32) -> Option<Value> {
                Some(number(*self as f64))
            }
        }
    )*};
}

numbers!(
    f64, f32, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl ToValue for str {
    #[inline]
    fn to_value(&self, _: u32) -> Option<Value> {
        Some(Value::from(self))
    }

    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        Some(Field::Str(self))
    }
}

impl ToValue for String {
    #[inline]
    fn to_value(&self, depth: u32) -> Option<Value> {
        self.as_str().to_value(depth)
    }

    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        Some(Field::Str(self))
    }
}

impl ToValue for char {
    fn to_value(&self, _: u32) -> Option<Value> {
        Some(Value::from(self.encode_utf8(&mut [0; 4]) as &str))
    }
}

impl ToValue for Value {
    #[inline]
    fn to_value(&self, _: u32) -> Option<Value> {
        Some(self.clone())
    }

    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        Some(Field::Borrowed(self))
    }
}

impl ToValue for serde_json::Value {
    fn to_value(&self, _: u32) -> Option<Value> {
        Value::from_json(self).ok()
    }

    fn to_field(&self) -> Option<Field<'_>> {
        match self {
            serde_json::Value::String(s) => Some(Field::Str(s)),
            other => other.to_value(MAX_DEPTH).map(Field::Owned),
        }
    }
}

impl<T: ToValue> ToValue for Option<T> {
    #[inline]
    fn to_value(&self, depth: u32) -> Option<Value> {
        match self {
            Some(v) => v.to_value(depth),
            None => Some(Value::Null),
        }
    }

    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        match self {
            Some(v) => v.to_field(),
            None => Some(Field::Owned(Value::Null)),
        }
    }
}

/// Pointers and borrows read as what they point to.
macro_rules! pointers {
    ($($ty:ty),*) => {$(
        impl<T: ToValue + ?Sized> ToValue for $ty {
            #[inline]
            fn to_value(&self, depth: u32) -> Option<Value> {
                (**self).to_value(depth)
            }

            #[inline]
            fn to_field(&self) -> Option<Field<'_>> {
                (**self).to_field()
            }
        }
    )*};
}

pointers!(Box<T>, Arc<T>, Rc<T>, &T);

impl<T: ToValue + ToOwned + ?Sized> ToValue for Cow<'_, T> {
    #[inline]
    fn to_value(&self, depth: u32) -> Option<Value> {
        (**self).to_value(depth)
    }

    #[inline]
    fn to_field(&self) -> Option<Field<'_>> {
        (**self).to_field()
    }
}

/// The items of a sequence as an array, one level down.
fn array<'a, T: ToValue + 'a>(items: impl Iterator<Item = &'a T>, depth: u32) -> Option<Value> {
    let depth = depth.checked_sub(1)?;
    let items = items
        .map(|item| item.to_value(depth))
        .collect::<Option<Vec<Value>>>()?;
    Some(Value::array(items))
}

impl<T: ToValue> ToValue for [T] {
    fn to_value(&self, depth: u32) -> Option<Value> {
        array(self.iter(), depth)
    }
}

impl<T: ToValue, const N: usize> ToValue for [T; N] {
    fn to_value(&self, depth: u32) -> Option<Value> {
        array(self.iter(), depth)
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(&self, depth: u32) -> Option<Value> {
        array(self.iter(), depth)
    }
}

impl<T: ToValue> ToValue for VecDeque<T> {
    fn to_value(&self, depth: u32) -> Option<Value> {
        array(self.iter(), depth)
    }
}

/// Entries as an object, one level down, in the order given.
fn object<'a, K, V>(entries: impl Iterator<Item = (&'a K, &'a V)>, depth: u32) -> Option<Value>
where
    K: AsRef<str> + ?Sized + 'a,
    V: ToValue + 'a,
{
    let depth = depth.checked_sub(1)?;
    let mut map = Map::default();
    for (k, v) in entries {
        map.insert(k.as_ref().into(), v.to_value(depth)?);
    }
    Some(Value::object(map))
}

impl<K: AsRef<str>, V: ToValue> ToValue for BTreeMap<K, V> {
    fn to_value(&self, depth: u32) -> Option<Value> {
        object(self.iter(), depth)
    }
}

impl<K: AsRef<str>, V: ToValue, S> ToValue for HashMap<K, V, S> {
    fn to_value(&self, depth: u32) -> Option<Value> {
        let mut entries: Vec<(&K, &V)> = self.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        object(entries.into_iter(), depth)
    }
}

/// A string-keyed map of host values as a context: a variable is the entry
/// of that name, converted when read.
impl<V: ToValue, S: BuildHasher> Context for HashMap<String, V, S> {
    fn get(&self, name: &str) -> Option<Value> {
        HashMap::get(self, name)?.to_value(MAX_DEPTH)
    }

    #[inline]
    fn lookup(&self, name: &str, _: u64) -> Option<Field<'_>> {
        HashMap::get(self, name)?.to_field()
    }
}

/// As the `HashMap` context.
impl<V: ToValue> Context for BTreeMap<String, V> {
    fn get(&self, name: &str) -> Option<Value> {
        BTreeMap::get(self, name)?.to_value(MAX_DEPTH)
    }

    #[inline]
    fn lookup(&self, name: &str, _: u64) -> Option<Field<'_>> {
        BTreeMap::get(self, name)?.to_field()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value<T: ToValue + ?Sized>(v: &T) -> Option<Value> {
        v.to_value(MAX_DEPTH)
    }

    #[test]
    fn scalars_convert_as_json_reads_them() {
        assert_eq!(value(&true), Some(Value::Bool(true)));
        assert_eq!(value(&3_i64), Some(Value::Number(3.0)));
        assert_eq!(value(&u64::MAX), Some(Value::Number(u64::MAX as f64)));
        assert_eq!(value(&-0.5_f32), Some(Value::Number(-0.5)));
        for n in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(value(&n), Some(Value::Null), "{n}");
        }
        assert_eq!(value(&'é'), Some(Value::from("é")));
        assert_eq!(value(&None::<i32>), Some(Value::Null));
        assert_eq!(value(&Some("x")), Some(Value::from("x")));
    }

    #[test]
    fn strings_and_values_are_lent() {
        let s = String::from("text");
        assert!(matches!(s.to_field(), Some(Field::Str("text"))));
        assert!(matches!(Some(&s).to_field(), Some(Field::Str("text"))));
        let v = Value::from("held");
        assert!(matches!(v.to_field(), Some(Field::Borrowed(b)) if std::ptr::eq(b, &v)));
        let j = serde_json::json!("json");
        assert!(matches!(j.to_field(), Some(Field::Str("json"))));
        assert!(matches!(3_u8.to_field(), Some(Field::Owned(Value::Number(n))) if n == 3.0));
    }

    #[test]
    fn collections_nest_and_maps_have_a_fixed_order() {
        let v = vec![vec![1, 2], vec![]];
        let want = Value::array(vec![
            Value::array(vec![Value::Number(1.0), Value::Number(2.0)]),
            Value::array(vec![]),
        ]);
        assert_eq!(value(&v), Some(want));
        let mut h = HashMap::new();
        for k in ["b", "a", "é", "c"] {
            h.insert(k.to_string(), k.len());
        }
        let keys: Vec<String> = match value(&h) {
            Some(Value::Object(o)) => o.map().keys().map(|k| k.to_string()).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(keys, ["a", "b", "c", "é"]);
        let b: BTreeMap<&str, Option<bool>> = [("y", None), ("x", Some(true))].into();
        let mut m = Map::default();
        m.insert("x".into(), Value::Bool(true));
        m.insert("y".into(), Value::Null);
        assert_eq!(value(&b), Some(Value::object(m)));
    }

    #[test]
    fn string_keyed_maps_are_contexts() {
        let h: HashMap<String, Option<String>> =
            [("a".into(), Some("x".into())), ("b".into(), None)].into();
        assert!(matches!(h.lookup("a", 0), Some(Field::Str("x"))));
        assert_eq!(Context::get(&h, "b"), Some(Value::Null));
        assert!(h.lookup("c", 0).is_none());
        let b: BTreeMap<String, Vec<u8>> = [("v".into(), vec![1])].into();
        assert_eq!(
            Context::get(&b, "v"),
            Some(Value::array(vec![Value::Number(1.0)]))
        );
        assert!(Context::get(&b, "w").is_none());
    }

    #[test]
    fn nesting_past_the_depth_reads_as_absent() {
        // A host type can nest without bound (a tree): the conversion stops
        // at the depth, without recursing further.
        struct Node(Vec<Node>);
        impl ToValue for Node {
            fn to_value(&self, depth: u32) -> Option<Value> {
                array(self.0.iter(), depth)
            }
        }
        let mut deep = Node(vec![]);
        for _ in 0..MAX_DEPTH {
            deep = Node(vec![deep]);
        }
        assert_eq!(deep.to_value(MAX_DEPTH), None);
        assert!(deep.to_field().is_none());
        let shallow = Node(vec![Node(vec![])]);
        let json = |v: Option<Value>| v.map(|v| crate::format::to_json_string(&v).unwrap());
        assert_eq!(json(shallow.to_value(2)), Some("[[]]".into()));
        assert_eq!(shallow.to_value(1), None);
        assert_eq!(json(value(&[[0u8; 0]; 2])), Some("[[],[]]".into()));
    }
}
