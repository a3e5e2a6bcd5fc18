//! The values of one plan node over a batch: a vector per kind, a
//! constant kept as one scalar, nulls as a separate mask. Positions of
//! rows the node was not evaluated on hold any value.

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, StringArray, StringViewArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

/// Numbers: a column's own buffer, a computed vector, or one constant.
pub(crate) enum Nums<'a> {
    Borrowed(&'a [f64]),
    Owned(Vec<f64>),
    Scalar(f64),
}

impl Nums<'_> {
    #[inline]
    pub(crate) fn get(&self, i: usize) -> f64 {
        match self {
            Nums::Borrowed(v) => v[i],
            Nums::Owned(v) => v[i],
            Nums::Scalar(x) => *x,
        }
    }

    /// The values as a slice, when not a scalar.
    pub(crate) fn slice(&self) -> Option<&[f64]> {
        match self {
            Nums::Borrowed(v) => Some(v),
            Nums::Owned(v) => Some(v),
            Nums::Scalar(_) => None,
        }
    }
}

/// Computed strings, end to end in one buffer.
#[derive(Default)]
pub(crate) struct StrBuf {
    pub(crate) data: String,
    /// Where row `i`'s text ends in `data` (it starts where row `i - 1`'s ends).
    pub(crate) ends: Vec<usize>,
}

impl StrBuf {
    pub(crate) fn with_capacity(rows: usize, bytes: usize) -> Self {
        StrBuf {
            data: String::with_capacity(bytes),
            ends: Vec::with_capacity(rows),
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }

    /// Ends the current row's text.
    #[inline]
    pub(crate) fn end_row(&mut self) {
        self.ends.push(self.data.len());
    }
}

/// Strings: a string column, computed strings, or one constant.
pub(crate) enum Strs<'a> {
    Utf8(&'a StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    View(&'a StringViewArray),
    /// A `Dictionary(Int32, Utf8)` column: its keys, which are null, and
    /// its strings.
    Dict(&'a [i32], Option<&'a NullBuffer>, &'a StringArray),
    Owned(StrBuf),
    Scalar(&'a str),
}

impl<'a> Strs<'a> {
    /// The strings of a string column.
    pub(crate) fn of(array: &'a dyn Array) -> Option<Self> {
        Some(match array.data_type() {
            DataType::Utf8 => Strs::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Strs::LargeUtf8(array.as_string::<i64>()),
            DataType::Utf8View => Strs::View(array.as_string_view()),
            DataType::Dictionary(k, v) if dictionary_of_strings(k, v) => {
                let d = array.as_dictionary::<Int32Type>();
                Strs::Dict(
                    d.keys().values(),
                    d.keys().nulls(),
                    d.values().as_string::<i32>(),
                )
            }
            _ => return None,
        })
    }

    /// Row `i`'s text (of a null cell: whatever the column holds, often empty).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &str {
        match self {
            Strs::Utf8(a) => a.value(i),
            Strs::LargeUtf8(a) => a.value(i),
            Strs::View(a) => a.value(i),
            // A null key may hold anything: its cell is empty, as a
            // string column's null cell usually is.
            Strs::Dict(keys, nulls, values) => match usize::try_from(keys[i]) {
                Ok(k) if k < values.len() && !nulls.is_some_and(|n| n.is_null(i)) => {
                    values.value(k)
                }
                _ => "",
            },
            Strs::Owned(b) => b.get(i),
            Strs::Scalar(s) => s,
        }
    }
}

/// Whether a dictionary's key and value types are those [`Strs`] reads.
pub(crate) fn dictionary_of_strings(key: &DataType, value: &DataType) -> bool {
    *key == DataType::Int32 && *value == DataType::Utf8
}

/// Whether a dictionary's key and value types are those the plan reads
/// as numbers: `Int32` keys into integers or floats of any width.
pub(crate) fn dictionary_of_numbers(key: &DataType, value: &DataType) -> bool {
    *key == DataType::Int32
        && (value.is_integer() || value.is_floating())
        && *value != DataType::Float16
}

/// Which rows are null (`None`: none).
pub(crate) type Nulls = Option<Vec<bool>>;

#[inline]
pub(crate) fn is_null(nulls: &Nulls, i: usize) -> bool {
    nulls.as_ref().is_some_and(|n| n[i])
}

/// A node's values.
pub(crate) enum Vals<'a> {
    /// Every row null.
    Null,
    Bool(Vec<bool>, Nulls),
    Num(Nums<'a>, Nulls),
    Str(Strs<'a>, Nulls),
}

impl Vals<'_> {
    /// Whether row `i` is null.
    #[inline]
    pub(crate) fn null(&self, i: usize) -> bool {
        match self {
            Vals::Null => true,
            Vals::Bool(_, n) | Vals::Num(_, n) | Vals::Str(_, n) => is_null(n, i),
        }
    }

    /// Row `i`'s truthiness (null, false, 0 and "" are falsy).
    #[inline]
    pub(crate) fn truthy(&self, i: usize) -> bool {
        match self {
            Vals::Null => false,
            Vals::Bool(v, n) => v[i] && !is_null(n, i),
            Vals::Num(v, n) => v.get(i) != 0.0 && !is_null(n, i),
            Vals::Str(v, n) => !v.get(i).is_empty() && !is_null(n, i),
        }
    }

    /// Every row's truthiness.
    pub(crate) fn truthiness(&self, rows: usize) -> Vec<bool> {
        match self {
            Vals::Bool(v, None) => v.clone(),
            Vals::Num(Nums::Borrowed(v), None) => v.iter().map(|x| *x != 0.0).collect(),
            _ => (0..rows).map(|i| self.truthy(i)).collect(),
        }
    }
}
