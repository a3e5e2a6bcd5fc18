//! Reading Arrow values as XPR values: one cell at a time, in place (the
//! row path), and a record batch's row as a [`Context`].
//!
//! | Arrow | XPR |
//! |---|---|
//! | null (any type), `Null` | `null` |
//! | `Boolean` | boolean |
//! | `Int8`..`Int64`, `UInt8`..`UInt64`, `Float32`, `Float64` | number (an integer beyond 2^53 rounds to the nearest double; NaN and infinities read as `null`, XPR has no such numbers) |
//! | `Utf8`, `LargeUtf8`, `Utf8View` | string |
//! | `Dictionary` of any of these | its value |
//! | `Struct` | object of its fields, in schema order |
//! | `List`, `LargeList`, `FixedSizeList` | array |
//! | `Map` | object; keys as strings (a key that is not a string is written as its JSON text) |
//!
//! Any other type (dates, timestamps, decimals, binary) is refused when the
//! program reads the column: [`unsupported`].

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use xpr::{Context, Error, ErrorKind, Field, Map, Value};

/// The error for a column whose Arrow type XPR does not read.
pub(crate) fn unsupported(name: &str, dt: &DataType) -> Error {
    Error::new(
        ErrorKind::Type,
        format!("Type error: column '{name}' has Arrow type {dt}, which XPR cannot read"),
    )
    .with_hint("cast it to a number, string, boolean, list, struct or map column first")
}

/// Whether XPR reads values of Arrow type `dt` (and of all its children).
pub(crate) fn readable(dt: &DataType) -> bool {
    use DataType as D;
    match dt {
        D::Null
        | D::Boolean
        | D::Int8
        | D::Int16
        | D::Int32
        | D::Int64
        | D::UInt8
        | D::UInt16
        | D::UInt32
        | D::UInt64
        | D::Float32
        | D::Float64
        | D::Utf8
        | D::LargeUtf8
        | D::Utf8View => true,
        D::Dictionary(_, v) => readable(v),
        D::Struct(fields) => fields.iter().all(|f| readable(f.data_type())),
        D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) => readable(f.data_type()),
        D::Map(f, _) => readable(f.data_type()),
        _ => false,
    }
}

/// A finite number, or null (XPR has no NaN or infinity).
#[inline]
pub(crate) fn number(n: f64) -> Value {
    if n.is_finite() {
        Value::Number(n)
    } else {
        Value::Null
    }
}

/// The XPR value of `array[i]`. `array`'s type must be [`readable`]
/// (anything else reads as null).
pub(crate) fn value_at(array: &dyn Array, i: usize) -> Value {
    use DataType as D;
    if array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        D::Boolean => Value::Bool(array.as_boolean().value(i)),
        D::Int8 => Value::Number(array.as_primitive::<Int8Type>().value(i).into()),
        D::Int16 => Value::Number(array.as_primitive::<Int16Type>().value(i).into()),
        D::Int32 => Value::Number(array.as_primitive::<Int32Type>().value(i).into()),
        D::Int64 => Value::Number(array.as_primitive::<Int64Type>().value(i) as f64),
        D::UInt8 => Value::Number(array.as_primitive::<UInt8Type>().value(i).into()),
        D::UInt16 => Value::Number(array.as_primitive::<UInt16Type>().value(i).into()),
        D::UInt32 => Value::Number(array.as_primitive::<UInt32Type>().value(i).into()),
        D::UInt64 => Value::Number(array.as_primitive::<UInt64Type>().value(i) as f64),
        D::Float32 => number(array.as_primitive::<Float32Type>().value(i).into()),
        D::Float64 => number(array.as_primitive::<Float64Type>().value(i)),
        D::Utf8 | D::LargeUtf8 | D::Utf8View => Value::from(str_at(array, i).unwrap_or_default()),
        D::Dictionary(..) => {
            let Some(dict) = array.as_any_dictionary_opt() else {
                return Value::Null;
            };
            match key_at(dict.keys(), i) {
                Some(k) if k < dict.values().len() => value_at(dict.values().as_ref(), k),
                _ => Value::Null,
            }
        }
        D::Struct(fields) => {
            let s = array.as_struct();
            let mut map = Map::default();
            for (f, column) in fields.iter().zip(s.columns()) {
                map.insert(f.name().as_str().into(), value_at(column.as_ref(), i));
            }
            Value::object(map)
        }
        D::List(_) => list(array.as_list::<i32>().value(i)),
        D::LargeList(_) => list(array.as_list::<i64>().value(i)),
        D::FixedSizeList(..) => list(array.as_fixed_size_list().value(i)),
        D::Map(..) => {
            let entries = array.as_map().value(i);
            let mut map = Map::default();
            for j in 0..entries.len() {
                let key = match value_at(entries.column(0).as_ref(), j) {
                    Value::String(s) => s,
                    other => xpr::to_json_string(&other).unwrap_or_default().into(),
                };
                map.insert(key, value_at(entries.column(1).as_ref(), j));
            }
            Value::object(map)
        }
        _ => Value::Null,
    }
}

fn list(items: ArrayRef) -> Value {
    Value::array(
        (0..items.len())
            .map(|j| value_at(items.as_ref(), j))
            .collect(),
    )
}

/// The text of a string array's cell `i` (none when null or not a string array).
#[inline]
pub(crate) fn str_at(array: &dyn Array, i: usize) -> Option<&str> {
    if array.is_null(i) {
        return None;
    }
    match array.data_type() {
        DataType::Utf8 => Some(array.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Some(array.as_string::<i64>().value(i)),
        DataType::Utf8View => Some(array.as_string_view().value(i)),
        _ => None,
    }
}

/// A dictionary key as an index.
fn key_at(keys: &dyn Array, i: usize) -> Option<usize> {
    match value_at(keys, i) {
        Value::Number(n) if n >= 0.0 => Some(n as usize),
        _ => None,
    }
}

/// The batch's columns the program reads, by name: top-level columns
/// only (a nested field is read through its struct).
pub(crate) struct Columns<'a> {
    /// `(name, column)` for each context name of the program that the
    /// batch has.
    pub(crate) named: Vec<(&'a str, &'a ArrayRef)>,
}

impl<'a> Columns<'a> {
    /// The columns of `batch` named by `names`.
    ///
    /// # Errors
    /// [`unsupported`] for a named column XPR cannot read.
    pub(crate) fn new(batch: &'a RecordBatch, names: &[xpr::Key]) -> Result<Self, Error> {
        let schema = batch.schema_ref();
        let mut named = Vec::with_capacity(names.len());
        for name in names {
            if let Some((i, field)) = schema.column_with_name(name) {
                if !readable(field.data_type()) {
                    return Err(unsupported(name, field.data_type()));
                }
                named.push((field.name().as_str(), batch.column(i)));
            }
        }
        Ok(Columns { named })
    }

    /// The column named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a ArrayRef> {
        self.named.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }
}

/// Row `row` of a batch, read in place: a string cell is lent as text, any
/// other cell is converted when the program reads it.
pub(crate) struct Row<'c, 'a> {
    pub(crate) columns: &'c Columns<'a>,
    pub(crate) row: usize,
}

impl Context for Row<'_, '_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.columns
            .get(name)
            .map(|c| value_at(c.as_ref(), self.row))
    }

    #[inline]
    fn lookup(&self, name: &str, _hash: u64) -> Option<Field<'_>> {
        let column = self.columns.get(name)?;
        match str_at(column.as_ref(), self.row) {
            Some(s) => Some(Field::Str(s)),
            None => Some(Field::Owned(value_at(column.as_ref(), self.row))),
        }
    }
}
