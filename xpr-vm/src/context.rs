//! How a program reads the host's data: the context trait.

use crate::value::{Map, Object, Value};

/// Read-only access to the variables an expression sees by name.
///
/// Implemented for XPR maps and objects and for `serde_json` maps, so that
/// handing a record to a program never converts the whole record: only the
/// fields the program reads are looked up (and converted).
pub trait Context {
    /// The value of top-level variable `name`, if the context has it.
    fn get(&self, name: &str) -> Option<Value>;
}

impl Context for () {
    fn get(&self, _: &str) -> Option<Value> {
        None
    }
}

impl Context for Map {
    fn get(&self, name: &str) -> Option<Value> {
        Map::get(self, name).cloned()
    }
}

impl Context for Object {
    fn get(&self, name: &str) -> Option<Value> {
        Object::get(self, name).cloned()
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
}

impl<C: Context + ?Sized> Context for &C {
    fn get(&self, name: &str) -> Option<Value> {
        (**self).get(name)
    }
}
