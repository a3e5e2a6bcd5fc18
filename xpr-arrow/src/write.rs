//! Writing XPR results as one Arrow array (docs/decisions.md, "Arrow
//! results"):
//!
//! - the type comes from the program's static result type when its form
//!   settles it ([`xpr::Program::result_type`]): boolean -> `Boolean`,
//!   number -> `Float64`, string -> `Utf8`, null -> `Null`;
//! - otherwise from the values: all booleans (or null) -> `Boolean`, all
//!   numbers -> `Float64`, all strings -> `Utf8`, all null -> `Null`;
//! - arrays, objects and a mix of types -> `Utf8` holding each value's JSON
//!   text (in a mix, strings too are JSON text, quoted, so that `"1"` and
//!   `1` stay apart; `null` stays a null cell).

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, StringBuilder};
use arrow_array::{ArrayRef, NullArray};
use arrow_schema::DataType;
use xpr::{Error, Value, ValueType};

/// The Arrow type of results of static type `t`, when one type fits every
/// value of it.
pub(crate) fn static_type(t: Option<ValueType>) -> Option<DataType> {
    match t? {
        ValueType::Boolean => Some(DataType::Boolean),
        ValueType::Number => Some(DataType::Float64),
        ValueType::String | ValueType::Array | ValueType::Object => Some(DataType::Utf8),
        ValueType::Null => Some(DataType::Null),
        ValueType::Regex | ValueType::Function => None,
    }
}

/// The shape of results of static type `t`, when one type fits every
/// value of it (arrays and objects: JSON text).
pub(crate) fn static_shape(t: Option<ValueType>) -> Option<Shape> {
    let dt = static_type(t)?;
    Some(Shape {
        dt,
        json_strings: matches!(t, Some(ValueType::Array | ValueType::Object)),
    })
}

/// How results are written: the Arrow type, and for `Utf8`, whether
/// every cell is JSON text (strings quoted too: a mix of types, or only
/// arrays and objects).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shape {
    pub(crate) dt: DataType,
    pub(crate) json_strings: bool,
}

impl Shape {
    pub(crate) fn plain(dt: DataType) -> Shape {
        Shape {
            dt,
            json_strings: false,
        }
    }
}

/// The shape that holds all of `values`.
pub(crate) fn infer<'v>(values: impl Iterator<Item = &'v Value>) -> Shape {
    let mut found: Option<u8> = None;
    for v in values {
        let t = match v {
            Value::Null => continue,
            Value::Bool(_) => 0,
            Value::Number(_) => 1,
            Value::String(_) => 2,
            _ => 3,
        };
        match found {
            None => found = Some(t),
            Some(f) if f == t => {}
            Some(_) => {
                return Shape {
                    dt: DataType::Utf8,
                    json_strings: true,
                };
            }
        }
    }
    match found {
        None => Shape::plain(DataType::Null),
        Some(0) => Shape::plain(DataType::Boolean),
        Some(1) => Shape::plain(DataType::Float64),
        Some(2) => Shape::plain(DataType::Utf8),
        Some(_) => Shape {
            dt: DataType::Utf8,
            json_strings: true,
        },
    }
}

/// One value's cell in a text column: the string itself (unless
/// `json_strings`), else its JSON text.
///
/// # Errors
/// A value with no JSON form (a function, a regex).
fn text(v: &Value, json_strings: bool) -> Result<Option<String>, Error> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) if !json_strings => Ok(Some(s.to_string())),
        other => xpr::to_json_string(other).map(Some),
    }
}

/// Builds the array of `values` (one per output row; `None` is a null
/// cell) in `shape`. A value of another kind than `dt` is written as
/// its JSON text when `dt` is `Utf8`; into any other type it is reported
/// by index so that the caller can widen the type ([`infer`]).
///
/// # Errors
/// `Err(Ok(i))`: value `i` does not fit `dt`; `Err(Err(e))`: value `i`
/// has no JSON form.
pub(crate) fn build(
    values: &[Option<Value>],
    shape: &Shape,
) -> Result<ArrayRef, Result<usize, (usize, Error)>> {
    let n = values.len();
    Ok(match &shape.dt {
        DataType::Boolean => {
            let mut b = BooleanBuilder::with_capacity(n);
            for (i, v) in values.iter().enumerate() {
                match v {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Bool(x)) => b.append_value(*x),
                    Some(_) => return Err(Ok(i)),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Float64 => {
            let mut b = Float64Builder::with_capacity(n);
            for (i, v) in values.iter().enumerate() {
                match v {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Number(x)) => b.append_value(*x),
                    Some(_) => return Err(Ok(i)),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Null => {
            if let Some(i) = values
                .iter()
                .position(|v| matches!(v, Some(v) if !matches!(v, Value::Null)))
            {
                return Err(Ok(i));
            }
            Arc::new(NullArray::new(n))
        }
        _ => {
            let mut b = StringBuilder::with_capacity(n, n * 8);
            for (i, v) in values.iter().enumerate() {
                match v.as_ref().map(|v| text(v, shape.json_strings)).transpose() {
                    Ok(Some(Some(s))) => b.append_value(s),
                    Ok(_) => b.append_null(),
                    Err(e) => return Err(Err((i, e))),
                }
            }
            Arc::new(b.finish())
        }
    })
}
