//! How a program reads the host's data: the context trait.

use crate::value::{Map, Object, Value, map_get_hashed, map_get_hinted};

/// A context variable found by [`Context::lookup`].
#[derive(Debug)]
pub enum Field<'a> {
    /// A value the context holds, lent for the run: reading it copies
    /// nothing, and comparing it with a constant does not even
    /// reference-count it.
    Borrowed(&'a Value),
    /// A value built for this read (converted from the host's own data).
    /// The VM keeps an array, object or string for the rest of the run, so
    /// each such variable is built at most once per run however often the
    /// expression reads it.
    Owned(Value),
    /// A string the context holds as text: compared with a constant where
    /// it lies; built into a [`Value`] (once per run) only when the
    /// expression needs it as a value.
    Str(&'a str),
}

/// Read-only access to the variables an expression sees by name.
///
/// Implemented for XPR maps and objects and for `serde_json` maps, so that
/// handing a record to a program never converts the whole record: only the
/// fields the program reads are looked up (and converted).
///
/// [`Context::get`] is all an implementation needs; a context that holds
/// [`Value`]s also implements [`Context::lookup`] to lend them instead.
pub trait Context {
    /// The value of top-level variable `name`, if the context has it.
    fn get(&self, name: &str) -> Option<Value>;

    /// The value of top-level variable `name`, if the context has it,
    /// borrowed when the context holds it as a [`Value`]. `hash` is
    /// [`crate::value::key_hash`]`(name)`, computed once per program, for
    /// contexts kept in a [`Map`]: they can look the name up without hashing it.
    ///
    /// The default calls [`Context::get`] and returns [`Field::Owned`].
    #[inline]
    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        let _ = hash;
        self.get(name).map(Field::Owned)
    }

    /// As [`Context::lookup`], for a context whose variables have positions
    /// (a [`Map`] keeps its keys in order): `hint` is where the same program
    /// found `name` in the context of its last run, to be tried first and
    /// set to where `name` is found now. Records of one layout then find
    /// each variable with one key comparison instead of a search.
    ///
    /// The answer must be [`Context::lookup`]'s, whatever `hint` holds (a
    /// hint is only ever a guess: the VM starts from 0 and may hand one
    /// over from another program). The default ignores it.
    #[inline]
    fn lookup_hinted(&self, name: &str, hash: u64, hint: &mut u32) -> Option<Field<'_>> {
        let _ = hint;
        self.lookup(name, hash)
    }

    /// The context as a [`Map`], when it is one (a map, an object, or a
    /// value holding an object): asked once per run by a VM that then
    /// reads the variables itself, with no call per read. The answer must
    /// give what [`Context::lookup`] gives for every name. The default
    /// answers `None`.
    #[inline]
    fn as_map(&self) -> Option<&Map> {
        None
    }

    /// The value at the end of the path `name.f1.f2...` (`steps`: each
    /// field's name and its [`crate::value::key_hash`]), read without
    /// building the values on the way, for a context that can: a chain of
    /// constant field reads on a context name (`properties.mag`, not
    /// `properties?.mag` nor `properties["mag"]`) asks this first.
    ///
    /// An answer must be what reading `name` with [`Context::lookup`] and
    /// then taking each field in turn would give, with nothing that read
    /// could fail on: `name` present and no deeper than the value-depth
    /// limit, and each value before the last step an object holding the
    /// next field (the last field may be absent: answer null). Whenever
    /// that is not so, or the context cannot tell cheaply, answer `None`:
    /// the VM then reads step by step, charging the same fuel and raising
    /// the same errors at the same positions as for an answer (one unit
    /// for the name and one per field either way).
    ///
    /// A value built for the answer ([`Field::Owned`], [`Field::Str`]) is
    /// not kept for the run as a top-level one is: each read of the path
    /// asks again. The default answers `None`.
    ///
    /// A context that answers also says so in [`Context::answers_paths`].
    #[inline]
    fn lookup_path(&self, name: &str, hash: u64, steps: &[(&str, u64)]) -> Option<Field<'_>> {
        let _ = (name, hash, steps);
        None
    }

    /// Whether [`Context::lookup_path`] may answer: asked at most once per
    /// run, at the first chain of field reads, so that a context that never
    /// answers (the default, `false`) costs a chain nothing.
    #[inline]
    fn answers_paths(&self) -> bool {
        false
    }
}

impl Context for () {
    fn get(&self, _: &str) -> Option<Value> {
        None
    }

    #[inline]
    fn lookup(&self, _: &str, _: u64) -> Option<Field<'_>> {
        None
    }
}

impl Context for Map {
    fn get(&self, name: &str) -> Option<Value> {
        Map::get(self, name).cloned()
    }

    #[inline]
    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        map_get_hashed(self, name, hash).map(Field::Borrowed)
    }

    #[inline]
    fn lookup_hinted(&self, name: &str, hash: u64, hint: &mut u32) -> Option<Field<'_>> {
        map_get_hinted(self, name, hash, hint).map(Field::Borrowed)
    }

    #[inline]
    fn as_map(&self) -> Option<&Map> {
        Some(self)
    }
}

impl Context for Object {
    fn get(&self, name: &str) -> Option<Value> {
        Object::get(self, name).cloned()
    }

    #[inline]
    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        self.get_hashed(name, hash).map(Field::Borrowed)
    }

    #[inline]
    fn lookup_hinted(&self, name: &str, hash: u64, hint: &mut u32) -> Option<Field<'_>> {
        self.get_hinted(name, hash, hint).map(Field::Borrowed)
    }

    #[inline]
    fn as_map(&self) -> Option<&Map> {
        Some(self.map())
    }
}

/// A `Value` context: an object's fields; any other value has none.
impl Context for Value {
    fn get(&self, name: &str) -> Option<Value> {
        match self {
            Value::Object(o) => o.get(name).cloned(),
            _ => None,
        }
    }

    #[inline]
    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        match self {
            Value::Object(o) => o.get_hashed(name, hash).map(Field::Borrowed),
            _ => None,
        }
    }

    #[inline]
    fn lookup_hinted(&self, name: &str, hash: u64, hint: &mut u32) -> Option<Field<'_>> {
        match self {
            Value::Object(o) => o.get_hinted(name, hash, hint).map(Field::Borrowed),
            _ => None,
        }
    }

    #[inline]
    fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Object(o) => Some(o.map()),
            _ => None,
        }
    }
}

impl<C: Context + ?Sized> Context for &C {
    fn get(&self, name: &str) -> Option<Value> {
        (**self).get(name)
    }

    #[inline]
    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        (**self).lookup(name, hash)
    }

    #[inline]
    fn lookup_hinted(&self, name: &str, hash: u64, hint: &mut u32) -> Option<Field<'_>> {
        (**self).lookup_hinted(name, hash, hint)
    }

    #[inline]
    fn as_map(&self) -> Option<&Map> {
        (**self).as_map()
    }

    #[inline]
    fn lookup_path(&self, name: &str, hash: u64, steps: &[(&str, u64)]) -> Option<Field<'_>> {
        (**self).lookup_path(name, hash, steps)
    }

    #[inline]
    fn answers_paths(&self) -> bool {
        (**self).answers_paths()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::key_hash;

    #[test]
    fn lookup_lends_what_get_copies() {
        let mut map = Map::default();
        map.insert("price".into(), Value::Number(2.5));
        map.insert("name".into(), Value::from("pen"));
        for name in ["price", "name", "missing"] {
            let got = match map.lookup(name, key_hash(name)) {
                Some(Field::Borrowed(v)) => Some(v.clone()),
                Some(other) => panic!("a map lends its values: {other:?}"),
                None => None,
            };
            assert_eq!(got, Context::get(&map, name), "{name}");
            let obj = Value::object(map.clone());
            let via_value = obj.lookup(name, key_hash(name)).map(|f| match f {
                Field::Borrowed(v) => v.clone(),
                Field::Owned(v) => v,
                Field::Str(s) => Value::from(s),
            });
            assert_eq!(via_value, got, "{name}");
        }
        // A context implementing only `get` is read through it.
        struct Only;
        impl Context for Only {
            fn get(&self, name: &str) -> Option<Value> {
                (name == "x").then(|| Value::Number(1.0))
            }
        }
        assert!(matches!(Only.lookup("x", 0), Some(Field::Owned(Value::Number(n))) if n == 1.0));
        assert!(Only.lookup("y", 0).is_none());
    }

    #[test]
    fn json_records_lend_text_and_convert_the_rest() {
        let small = serde_json::json!({"s": "text", "n": 2, "a": [1], "z": null});
        let mut big = serde_json::Map::new();
        for i in 0..40 {
            big.insert(format!("k{i}"), serde_json::json!(i));
        }
        big.insert("s".into(), serde_json::json!("text"));
        let big = serde_json::Value::Object(big);
        for record in [&small, &big] {
            assert!(matches!(record.lookup("s", 0), Some(Field::Str("text"))));
            assert!(record.lookup("missing", 0).is_none());
        }
        match small.lookup("n", 0) {
            Some(Field::Owned(v)) => assert_eq!(v, Value::Number(2.0)),
            other => panic!("{other:?}"),
        }
        match small.lookup("a", 0) {
            Some(Field::Owned(v)) => assert_eq!(v, Value::array(vec![Value::Number(1.0)])),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            small.lookup("z", 0),
            Some(Field::Owned(Value::Null))
        ));
        assert!(matches!(big.lookup("k39", 0), Some(Field::Owned(Value::Number(n))) if n == 39.0));
    }

    #[test]
    fn short_key_comparison_agrees_with_slices() {
        use crate::value::bytes_eq;
        for n in 0..=20usize {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            assert!(bytes_eq(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!bytes_eq(&a, &b), "length {n}, differs at {at}");
            }
            assert!(!bytes_eq(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }
}
