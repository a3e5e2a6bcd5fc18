//! An object literal `{k1: e1, k2: e2}` over a batch, by its parts: each
//! property's expression is compiled as a program of its own and
//! evaluated over the batch (columnar when xpr-arrow's plan takes it),
//! then the rows' objects are written from the parts' columns. The
//! object as a whole has no vector form (the plan builds no objects), so
//! without this it runs row by row on the VM.
//!
//! The parts stand for the whole only when the result is the same: no
//! spread, no two properties of one key, no part failing on any row of
//! the batch, and the parts' fuel and memory over the whole batch within
//! one run's limits (less a margin for the object itself), so that no
//! row could have spent its per-run budget. Otherwise the batch is
//! evaluated whole ([`Parts::evaluate`] returns `None`).

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use xpr::{Engine, Program};
use xpr_arrow::BatchOptions;
use xpr_syntax::ast::{ExprKind, Property};

use super::super::json_out;

/// Fuel units and bytes kept back, per key, for building the object.
const MARGIN_PER_KEY: u64 = 256;

/// The properties of an object literal, each a program.
pub(super) struct Parts {
    /// Each key's JSON text with its colon (`"route":`).
    keys: Vec<Vec<u8>>,
    programs: Vec<Program>,
}

impl Parts {
    /// The parts of `expr` when it is an object literal of distinct plain
    /// keys (compiled with `engine`: the guard's `--allow`/`--deny` hold,
    /// `--expect` is for the whole).
    pub(super) fn of(engine: &Engine, expr: &str) -> Option<Parts> {
        let ast = xpr_syntax::parse(expr).ok()?;
        let ExprKind::Object(props) = &ast.kind else {
            return None;
        };
        let chars: Vec<(usize, char)> = expr.char_indices().collect();
        let byte = |c: u32| chars.get(c as usize).map_or(expr.len(), |(b, _)| *b);
        let mut parts = Parts {
            keys: Vec::new(),
            programs: Vec::new(),
        };
        let mut names: Vec<&str> = Vec::new();
        for p in props {
            let Property::KeyValue { key, value } = p else {
                return None;
            };
            if names.contains(&key.name.as_str()) {
                return None;
            }
            names.push(&key.name);
            let text = expr.get(byte(value.span.start)..byte(value.span.end))?;
            parts.programs.push(engine.compile(text).ok()?);
            let mut k = Vec::new();
            json_out::write_str(&mut k, &key.name);
            k.push(b':');
            parts.keys.push(k);
        }
        (!parts.programs.is_empty()).then_some(parts)
    }

    /// The objects of every row of `batch` as JSON text (`lines`: NDJSON,
    /// one object a line; else a `Utf8` column), or `None` when the parts
    /// cannot stand for the whole here (see the module's doc).
    pub(super) fn evaluate(
        &self,
        whole: &Program,
        batch: &RecordBatch,
        options: &BatchOptions,
        lines: bool,
    ) -> Option<Objects> {
        let options = BatchOptions {
            on_error: xpr_arrow::OnError::Fail,
            ..options.clone()
        };
        let limits = whole.limits();
        let margin = MARGIN_PER_KEY * self.keys.len() as u64;
        let (mut fuel, mut memory) = (margin, margin);
        let mut columns = Vec::with_capacity(self.programs.len());
        for program in &self.programs {
            let e = xpr_arrow::evaluate_batch_report(program, batch, &options).ok()?;
            fuel += e.fuel_used;
            memory += e.memory_used;
            if limits.fuel.is_some_and(|f| fuel > f) || limits.memory.is_some_and(|m| memory > m) {
                return None;
            }
            columns.push((e.values, e.json_text));
        }
        let rows = batch.num_rows();
        let cells: Vec<Cells<'_>> = columns
            .iter()
            .map(|(values, json_text)| Cells::of(values, *json_text))
            .collect::<Option<_>>()?;
        let object = |text: &mut Vec<u8>, row: usize| {
            text.push(b'{');
            for (i, (cells, key)) in cells.iter().zip(&self.keys).enumerate() {
                if i > 0 {
                    text.push(b',');
                }
                text.extend_from_slice(key);
                cells.write(text, row);
            }
            text.push(b'}');
        };
        if lines {
            let mut text = Vec::with_capacity(rows * 32);
            for row in 0..rows {
                object(&mut text, row);
                text.push(b'\n');
            }
            return Some(Objects::Lines(text));
        }
        let mut out = StringBuilder::with_capacity(rows, rows * 32);
        let mut text = Vec::with_capacity(256);
        for row in 0..rows {
            text.clear();
            object(&mut text, row);
            out.append_value(std::str::from_utf8(&text).ok()?);
        }
        Some(Objects::Column(Arc::new(out.finish())))
    }
}

/// The objects of a batch's rows.
pub(super) enum Objects {
    /// NDJSON: one object a line.
    Lines(Vec<u8>),
    /// A `Utf8` column of each object's JSON text.
    Column(ArrayRef),
}

/// Appends cell `row` of `values` as JSON (`json_text`: a `Utf8` cell is
/// JSON text already).
/// A part's values, resolved once a batch to the types the plan gives.
struct Cells<'a> {
    nulls: Option<&'a arrow_buffer::NullBuffer>,
    typed: Typed<'a>,
}

enum Typed<'a> {
    Bool(&'a arrow_array::BooleanArray),
    Number(&'a [f64]),
    /// Strings, and whether they are JSON text already.
    Text(&'a arrow_array::StringArray, bool),
}

impl<'a> Cells<'a> {
    /// `None` for a type the plan does not give (the batch is then
    /// evaluated whole).
    fn of(values: &'a ArrayRef, json_text: bool) -> Option<Self> {
        let typed = match values.data_type() {
            DataType::Boolean => Typed::Bool(values.as_boolean()),
            DataType::Float64 => Typed::Number(
                values
                    .as_primitive::<arrow_array::types::Float64Type>()
                    .values(),
            ),
            DataType::Utf8 => Typed::Text(values.as_string::<i32>(), json_text),
            _ => return None,
        };
        Some(Cells {
            nulls: values.nulls(),
            typed,
        })
    }

    #[inline]
    fn write(&self, out: &mut Vec<u8>, row: usize) {
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            out.extend_from_slice(b"null");
            return;
        }
        match &self.typed {
            Typed::Bool(b) => out.extend_from_slice(if b.value(row) { b"true" } else { b"false" }),
            Typed::Number(v) => json_out::write_number(out, v[row]),
            Typed::Text(s, true) => out.extend_from_slice(s.value(row).as_bytes()),
            Typed::Text(s, false) => json_out::write_str(out, s.value(row)),
        }
    }
}
