//! Kept rows (`--filter`) as NDJSON objects of their columns, written
//! column cell by column cell: numbers, booleans and strings straight
//! from their arrays, anything else through its XPR value
//! ([`xpr_arrow::cell_value`]). The text is the same as
//! [`xpr_arrow::row_value`]'s written by `json_out`.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use xpr::Error;

use super::super::json_out;

/// Appends every row of `batch` to `out`, one JSON object a line.
///
/// # Errors
/// A column of a type XPR does not read (kind `Type`, naming it), as
/// [`xpr_arrow::row_value`].
pub(super) fn write(out: &mut Vec<u8>, batch: &RecordBatch) -> Result<(), Error> {
    if batch.num_rows() == 0 {
        return Ok(());
    }
    // Refused types are refused for the batch, as row_value does per row.
    xpr_arrow::row_value(batch, 0)?;
    let keys: Vec<Vec<u8>> = batch
        .schema_ref()
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut k = Vec::new();
            if i > 0 {
                k.push(b',');
            }
            json_out::write_str(&mut k, f.name());
            k.push(b':');
            k
        })
        .collect();
    let columns: Vec<Column<'_>> = batch
        .columns()
        .iter()
        .map(|c| Column::of(c.as_ref()))
        .collect();
    for row in 0..batch.num_rows() {
        out.push(b'{');
        for (key, column) in keys.iter().zip(&columns) {
            out.extend_from_slice(key);
            column.cell(out, row)?;
        }
        out.extend_from_slice(b"}\n");
    }
    Ok(())
}

/// A column written cell by cell, its common types resolved once a batch.
struct Column<'a> {
    array: &'a dyn Array,
    nulls: Option<&'a arrow_buffer::NullBuffer>,
    typed: Typed<'a>,
}

enum Typed<'a> {
    Int64(&'a [i64]),
    Float64(&'a [f64]),
    Utf8(&'a StringArray),
    /// A `Dictionary(Int32, Utf8)` without null strings: keys, strings.
    Dict(&'a [i32], &'a StringArray),
    /// Anything else, through [`cell`].
    Other,
}

impl<'a> Column<'a> {
    fn of(array: &'a dyn Array) -> Self {
        let typed = match array.data_type() {
            DataType::Int64 => Typed::Int64(array.as_primitive::<Int64Type>().values()),
            DataType::Float64 => Typed::Float64(array.as_primitive::<Float64Type>().values()),
            DataType::Utf8 => Typed::Utf8(array.as_string::<i32>()),
            DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => {
                let d = array.as_dictionary::<Int32Type>();
                if d.values().null_count() == 0 {
                    Typed::Dict(d.keys().values(), d.values().as_string::<i32>())
                } else {
                    Typed::Other
                }
            }
            _ => Typed::Other,
        };
        Column {
            array,
            nulls: array.nulls(),
            typed,
        }
    }

    /// Appends cell `row` as JSON.
    #[inline]
    fn cell(&self, out: &mut Vec<u8>, row: usize) -> Result<(), Error> {
        if matches!(self.typed, Typed::Other) {
            return cell(out, self.array, row);
        }
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            out.extend_from_slice(b"null");
            return Ok(());
        }
        match &self.typed {
            // Integers become doubles, as when the program reads them.
            Typed::Int64(v) => match v[row] {
                // Exact as a double, and written as one would be.
                n if n.unsigned_abs() < 1_000_000_000_000_000 => json_out::write_int(out, n),
                n => json_out::write_number(out, n as f64),
            },
            Typed::Float64(v) => json_out::write_number(out, v[row]),
            Typed::Utf8(s) => json_out::write_str(out, s.value(row)),
            Typed::Dict(keys, values) => match usize::try_from(keys[row]) {
                Ok(k) if k < values.len() => json_out::write_str(out, values.value(k)),
                _ => return cell(out, self.array, row),
            },
            Typed::Other => return cell(out, self.array, row),
        }
        Ok(())
    }
}

/// Appends cell `row` of `a` as JSON.
fn cell(out: &mut Vec<u8>, a: &dyn Array, row: usize) -> Result<(), Error> {
    if a.is_null(row) {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    // Integers become doubles, as when the program reads them.
    let number = |out: &mut Vec<u8>, n: f64| {
        if n.is_finite() {
            json_out::write_number(out, n);
        } else {
            out.extend_from_slice(b"null");
        }
    };
    match a.data_type() {
        DataType::Boolean => {
            out.extend_from_slice(if a.as_boolean().value(row) {
                b"true"
            } else {
                b"false"
            });
        }
        DataType::Int8 => number(out, a.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => number(out, a.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => number(out, a.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => number(out, a.as_primitive::<Int64Type>().value(row) as f64),
        DataType::UInt8 => number(out, a.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => number(out, a.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => number(out, a.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => number(out, a.as_primitive::<UInt64Type>().value(row) as f64),
        DataType::Float32 => number(out, a.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => number(out, a.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => json_out::write_str(out, a.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => json_out::write_str(out, a.as_string::<i64>().value(row)),
        DataType::Utf8View => json_out::write_str(out, a.as_string_view().value(row)),
        _ => json_out::write_value(out, &xpr_arrow::cell_value(a, row)?),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch};

    use super::{json_out, write};

    #[test]
    fn integer_cells_are_written_as_their_doubles_are() {
        let values = [
            0,
            -5,
            999_999_999_999_999,
            -999_999_999_999_999,
            1_000_000_000_000_000,
            9_007_199_254_740_993,
            i64::MAX,
            i64::MIN,
        ];
        let column: ArrayRef = Arc::new(Int64Array::from(values.to_vec()));
        let batch = RecordBatch::try_from_iter([("n", column)]).unwrap();
        let mut out = Vec::new();
        write(&mut out, &batch).unwrap();
        let mut want = Vec::new();
        for v in values {
            want.extend_from_slice(b"{\"n\":");
            json_out::write_number(&mut want, v as f64);
            want.extend_from_slice(b"}\n");
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}
