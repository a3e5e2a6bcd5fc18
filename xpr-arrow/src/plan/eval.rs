//! Evaluating a plan a vector operation at a time.
//!
//! Each node is evaluated on a selection of rows: all of them at the top,
//! the rows that reach it below `&&`, `||`, `??` and `?:` (so the right
//! operand's errors are raised only for rows whose left operand lets them
//! through, as row by row). A row on which an operation would raise an
//! error (a null operand, a type mismatch, a non-finite result, non-ASCII
//! text for `upper`/`lower`) is marked failed; the caller runs the failed
//! rows on the VM, which gives their exact error (or value).
//!
//! Budget: before each operation, the fuel its rows cost one by one is
//! charged for the rows it is evaluated on (one unit per instruction, the
//! built-ins' text costs at twice their rate or more), and the memory of
//! the strings it creates; a row run again on the VM is charged again in
//! full. So a batch is charged at least what its rows cost one by one.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use xpr::bytecode::Cmp;
use xpr::{Error, Value};

use super::compile::{Bin, Call, Expr, Kind, Node};
use super::vals::{Nulls, Nums, StrBuf, Strs, Vals};
use crate::budget::Meter;

/// The rows an operation is evaluated on (`mask` `None`: all), and how many.
#[derive(Clone, Copy)]
pub(crate) struct Sel<'s> {
    mask: Option<&'s [bool]>,
    count: u64,
}

impl<'s> Sel<'s> {
    /// All `rows` rows.
    pub(crate) fn all(rows: usize) -> Self {
        Sel {
            mask: None,
            count: rows as u64,
        }
    }

    /// The rows where `mask` holds.
    fn of(mask: &'s [bool]) -> Self {
        Sel {
            mask: Some(mask),
            count: mask.iter().map(|b| u64::from(*b)).sum(),
        }
    }

    fn is_all(&self) -> bool {
        self.mask.is_none()
    }

    /// Whether row `i` is selected.
    #[inline]
    pub(super) fn has(&self, i: usize) -> bool {
        selected(*self, i)
    }
}

#[inline]
fn selected(sel: Sel<'_>, i: usize) -> bool {
    sel.mask.is_none_or(|s| s[i])
}

/// Bytes of text per fuel unit charged by the plan: half the VM's 16, so
/// that the plan never charges less than a row costs run alone.
const BYTES_PER_UNIT: u64 = 8;

/// The state of one plan evaluation.
pub(crate) struct Eval<'m> {
    pub(crate) rows: usize,
    /// Rows on which some operation would raise an error: empty until
    /// one does, then one flag a row.
    pub(crate) failed: Vec<bool>,
    pub(crate) meter: &'m mut Meter,
}

impl Eval<'_> {
    fn count(&self, sel: Sel<'_>) -> u64 {
        sel.count
    }

    /// Charges `units` fuel per selected row.
    pub(crate) fn charge(&mut self, sel: Sel<'_>, units: u64) -> Result<(), Error> {
        if units == 0 {
            return Ok(());
        }
        let n = self.count(sel);
        self.meter.charge(n.saturating_mul(units), 0)
    }

    /// Charges `units` per selected row plus `bytes / BYTES_PER_UNIT` of
    /// text, and `memory` bytes.
    pub(super) fn charge_text(
        &mut self,
        sel: Sel<'_>,
        units: u64,
        bytes: u64,
        memory: u64,
    ) -> Result<(), Error> {
        let n = self.count(sel);
        let fuel = n
            .saturating_mul(units)
            .saturating_add(bytes / BYTES_PER_UNIT);
        self.meter.charge(fuel, memory)
    }

    /// Marks row `i` failed.
    pub(super) fn fail(&mut self, i: usize) {
        if self.failed.is_empty() {
            self.failed = vec![false; self.rows];
        }
        self.failed[i] = true;
    }

    fn fail_where(&mut self, sel: Sel<'_>, f: impl Fn(usize) -> bool) {
        for i in 0..self.rows {
            if selected(sel, i) && f(i) {
                self.fail(i);
            }
        }
    }

    pub(super) fn fail_nulls(&mut self, sel: Sel<'_>, nulls: &Nulls) {
        if let Some(n) = nulls {
            self.fail_where(sel, |i| n[i]);
        }
    }

    /// Evaluates `node` on the rows of `sel`.
    pub(crate) fn eval<'p>(&mut self, node: &'p Node, sel: Sel<'_>) -> Result<Vals<'p>, Error> {
        let rows = self.rows;
        match &node.expr {
            Expr::Column { leaf, parents } => {
                self.charge(sel, 1 + parents.len() as u64)?;
                for p in parents {
                    if p.null_count() > 0 {
                        self.fail_where(sel, |i| p.is_null(i));
                    }
                }
                Ok(column(leaf))
            }
            Expr::Const { value, units } => {
                self.charge(sel, *units)?;
                Ok(match value {
                    Value::Bool(b) => Vals::Bool(vec![*b; rows], None),
                    Value::Number(x) => Vals::Num(Nums::Scalar(*x), None),
                    Value::String(s) => Vals::Str(Strs::Scalar(s), None),
                    _ => Vals::Null,
                })
            }
            Expr::Bin(Bin::Add, ..) if super::concat::is_concat(node) => {
                self.concat(node, None, sel)
            }
            Expr::Call(call @ (Call::Upper | Call::Lower), args)
                if args.len() == 1 && super::concat::is_concat(&args[0]) =>
            {
                self.concat(&args[0], Some(*call), sel)
            }
            Expr::Bin(b, l, r) => {
                // A null-free double column against a number: read once,
                // its finiteness checked on the way (else the general path).
                if let Bin::Cmp(cmp) = b
                    && let Some((x, c)) = column_vs_number(l, r)
                {
                    self.charge(sel, 2)?;
                    if let Some(out) = compare_finite(x, *cmp, c) {
                        return Ok(Vals::Bool(out, None));
                    }
                }
                let l = self.eval(l, sel)?;
                let r = self.eval(r, sel)?;
                self.binary(*b, l, r, sel)
            }
            Expr::Not(v) => {
                let v = self.eval(v, sel)?;
                self.charge(sel, 1)?;
                let t = v.truthiness(rows);
                Ok(Vals::Bool(t.into_iter().map(|b| !b).collect(), None))
            }
            Expr::Neg(v) => {
                let v = self.eval(v, sel)?;
                self.charge(sel, 1)?;
                match v {
                    Vals::Num(x, nulls) => {
                        self.fail_nulls(sel, &nulls);
                        Ok(Vals::Num(map_num(&x, rows, |a| -a), None))
                    }
                    _ => {
                        self.fail_where(sel, |_| true);
                        Ok(Vals::Null)
                    }
                }
            }
            Expr::And(l, r) | Expr::Or(l, r) | Expr::Coalesce(l, r) => {
                if sel.is_all()
                    && let Some((bits, fuel)) = super::fused::chain(node, rows)
                {
                    self.meter.charge(fuel, 0)?;
                    let out = (0..rows).map(|i| super::fused::bit(&bits, i)).collect();
                    return Ok(Vals::Bool(out, None));
                }
                let lv = self.eval(l, sel)?;
                self.charge(sel, 1)?;
                let right: Vec<bool> = match &node.expr {
                    Expr::And(..) => lv.truthiness(rows),
                    Expr::Or(..) => lv.truthiness(rows).into_iter().map(|t| !t).collect(),
                    _ => (0..rows).map(|i| lv.null(i)).collect(),
                };
                let sel_r = within(sel, &right);
                let rv = self.eval(r, Sel::of(&sel_r))?;
                Ok(blend(node.kind, &right, lv, rv, rows))
            }
            Expr::Cond(c, yes, no) => {
                let cv = self.eval(c, sel)?;
                self.charge(sel, 1)?;
                let t = cv.truthiness(rows);
                let sel_y = within(sel, &t);
                let not_t: Vec<bool> = t.iter().map(|b| !b).collect();
                let sel_n = within(sel, &not_t);
                let sel_y = Sel::of(&sel_y);
                let yv = self.eval(yes, sel_y)?;
                // The jump over the other branch.
                self.charge(sel_y, 1)?;
                let nv = self.eval(no, Sel::of(&sel_n))?;
                Ok(blend(node.kind, &not_t, yv, nv, rows))
            }
            Expr::Template(parts) => {
                let mut vals = Vec::with_capacity(parts.len());
                for p in parts {
                    vals.push(self.eval(p, sel)?);
                }
                self.template(&vals, sel)
            }
            Expr::Call(call, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a, sel)?);
                }
                self.call(*call, vals, sel)
            }
        }
    }

    pub(super) fn binary<'p>(
        &mut self,
        b: Bin,
        l: Vals<'p>,
        r: Vals<'p>,
        sel: Sel<'_>,
    ) -> Result<Vals<'p>, Error> {
        let rows = self.rows;
        match b {
            Bin::Cmp(cmp @ (Cmp::Eq | Cmp::Ne)) => {
                let bytes = self.text_bytes(sel, &[&l, &r]);
                self.charge_text(sel, 1, bytes, 0)?;
                let eq = equal(&l, &r, rows);
                Ok(Vals::Bool(
                    if cmp == Cmp::Eq {
                        eq
                    } else {
                        eq.into_iter().map(|b| !b).collect()
                    },
                    None,
                ))
            }
            Bin::Cmp(cmp) => {
                let bytes = self.text_bytes(sel, &[&l, &r]);
                self.charge_text(sel, 1, bytes, 0)?;
                let out = match (&l, &r) {
                    (Vals::Num(x, xn), Vals::Num(y, yn)) => {
                        self.fail_nulls(sel, xn);
                        self.fail_nulls(sel, yn);
                        order_nums(cmp, x, y, rows)
                    }
                    (Vals::Str(x, xn), Vals::Str(y, yn)) => {
                        self.fail_nulls(sel, xn);
                        self.fail_nulls(sel, yn);
                        (0..rows)
                            .map(|i| cmp_holds(cmp, x.get(i).cmp(y.get(i))))
                            .collect()
                    }
                    _ => {
                        self.fail_where(sel, |_| true);
                        vec![false; rows]
                    }
                };
                Ok(Vals::Bool(out, None))
            }
            Bin::Add if matches!((&l, &r), (Vals::Str(..), Vals::Str(..))) => {
                let (Vals::Str(x, xn), Vals::Str(y, yn)) = (l, r) else {
                    return Ok(Vals::Null);
                };
                self.fail_nulls(sel, &xn);
                self.fail_nulls(sel, &yn);
                let bytes = self.text_bytes_strs(sel, &[&x, &y]);
                self.charge_text(sel, 1, bytes, bytes)?;
                let mut out = StrBuf::with_capacity(rows, bytes as usize);
                for i in 0..rows {
                    if selected(sel, i) {
                        out.data.push_str(x.get(i));
                        out.data.push_str(y.get(i));
                    }
                    out.end_row();
                }
                Ok(Vals::Str(Strs::Owned(out), None))
            }
            _ => {
                self.charge(sel, 1)?;
                let (Vals::Num(x, xn), Vals::Num(y, yn)) = (l, r) else {
                    self.fail_where(sel, |_| true);
                    return Ok(Vals::Null);
                };
                self.fail_nulls(sel, &xn);
                self.fail_nulls(sel, &yn);
                let (out, finite) = match b {
                    Bin::Add => zip_num(x, y, rows, |a, b| a + b),
                    Bin::Sub => zip_num(x, y, rows, |a, b| a - b),
                    Bin::Mul => zip_num(x, y, rows, |a, b| a * b),
                    Bin::Div => zip_num(x, y, rows, |a, b| a / b),
                    Bin::Rem => zip_num(x, y, rows, |a, b| a % b),
                    _ => zip_num(x, y, rows, f64::powf),
                };
                // Division by zero, overflow, NaN: the row's error.
                if !finite {
                    self.fail_where(sel, |i| !out.get(i).is_finite());
                }
                Ok(Vals::Num(out, None))
            }
        }
    }

    /// Text bytes the selected rows' string operands hold.
    fn text_bytes(&self, sel: Sel<'_>, vals: &[&Vals<'_>]) -> u64 {
        let strs: Vec<&Strs<'_>> = vals
            .iter()
            .filter_map(|v| match v {
                Vals::Str(s, _) => Some(s),
                _ => None,
            })
            .collect();
        self.text_bytes_strs(sel, &strs)
    }

    pub(super) fn text_bytes_strs(&self, sel: Sel<'_>, strs: &[&Strs<'_>]) -> u64 {
        let mut total = 0u64;
        for s in strs {
            total += match s {
                Strs::Scalar(t) => self.count(sel) * t.len() as u64,
                // A slice's rows only (its buffer may hold more).
                Strs::Utf8(a) if sel.is_all() => {
                    let o = a.value_offsets();
                    (o[o.len() - 1] - o[0]) as u64
                }
                Strs::Dict(keys, nulls, values) if sel.is_all() => {
                    let o = values.value_offsets();
                    let len = |k: i32| {
                        let k = usize::try_from(k).unwrap_or(usize::MAX);
                        match (o.get(k), o.get(k.wrapping_add(1))) {
                            (Some(a), Some(b)) => (b - a) as u64,
                            _ => 0,
                        }
                    };
                    match nulls {
                        None => keys.iter().map(|&k| len(k)).sum(),
                        Some(n) => keys
                            .iter()
                            .zip(n.iter())
                            .map(|(&k, valid)| if valid { len(k) } else { 0 })
                            .sum(),
                    }
                }
                _ => (0..self.rows)
                    .filter(|i| selected(sel, *i))
                    .map(|i| s.get(i).len() as u64)
                    .sum(),
            };
        }
        total
    }

    fn template<'p>(&mut self, parts: &[Vals<'p>], sel: Sel<'_>) -> Result<Vals<'p>, Error> {
        let rows = self.rows;
        // Numbers take at most 24 bytes of text, `false` and `null` 5.
        let mut bytes = 0u64;
        for p in parts {
            bytes += match p {
                Vals::Str(s, _) => self.text_bytes_strs(sel, &[s]),
                Vals::Num(..) => 24 * self.count(sel),
                _ => 5 * self.count(sel),
            };
        }
        // The instruction, and `string()` of each part that is no string.
        let units = 1 + 2 * parts.len() as u64;
        self.charge_text(sel, units, bytes, 0)?;
        let mut out = StrBuf::with_capacity(rows, bytes as usize);
        let mut number = String::new();
        for i in 0..rows {
            if selected(sel, i) {
                for p in parts {
                    if p.null(i) {
                        out.data.push_str("null");
                        continue;
                    }
                    match p {
                        Vals::Str(s, _) => out.data.push_str(s.get(i)),
                        Vals::Num(x, _) => {
                            number.clear();
                            write_number(x.get(i), &mut number);
                            out.data.push_str(&number);
                        }
                        Vals::Bool(b, _) => out.data.push_str(if b[i] { "true" } else { "false" }),
                        Vals::Null => out.data.push_str("null"),
                    }
                }
            }
            out.end_row();
        }
        // The text and the parts converted to text, as the VM charges them.
        self.meter.charge(0, 2 * out.data.len() as u64)?;
        Ok(Vals::Str(Strs::Owned(out), None))
    }

    pub(super) fn call<'p>(
        &mut self,
        call: Call,
        args: Vec<Vals<'p>>,
        sel: Sel<'_>,
    ) -> Result<Vals<'p>, Error> {
        let rows = self.rows;
        let mut args = args.into_iter();
        let recv = args.next().unwrap_or(Vals::Null);
        let arg = args.next();
        if matches!(call, Call::Round | Call::Floor | Call::Abs) {
            self.charge(sel, 2)?;
            let Vals::Num(x, nulls) = recv else {
                self.fail_where(sel, |_| true);
                return Ok(Vals::Null);
            };
            self.fail_nulls(sel, &nulls);
            let f: fn(f64) -> f64 = match call {
                Call::Round => js_round,
                Call::Floor => f64::floor,
                _ => f64::abs,
            };
            return Ok(Vals::Num(map_num(&x, rows, f), None));
        }
        let Vals::Str(s, nulls) = recv else {
            self.charge(sel, 1)?;
            self.fail_where(sel, |_| true);
            return Ok(Vals::Null);
        };
        self.fail_nulls(sel, &nulls);
        let bytes = self.text_bytes_strs(sel, &[&s]);
        match call {
            Call::Len => {
                self.charge_text(sel, 2, bytes, 0)?;
                let v = (0..rows)
                    .map(|i| {
                        if selected(sel, i) {
                            s.get(i).chars().count() as f64
                        } else {
                            0.0
                        }
                    })
                    .collect();
                Ok(Vals::Num(Nums::Owned(v), None))
            }
            Call::StartsWith | Call::Contains => {
                let Some(Vals::Str(a, anulls)) = arg else {
                    self.charge(sel, 1)?;
                    self.fail_where(sel, |_| true);
                    return Ok(Vals::Null);
                };
                self.fail_nulls(sel, &anulls);
                let abytes = self.text_bytes_strs(sel, &[&a]);
                self.charge_text(sel, 2, 2 * (bytes + abytes), 0)?;
                let v = (0..rows)
                    .map(|i| {
                        selected(sel, i)
                            && if call == Call::StartsWith {
                                s.get(i).starts_with(a.get(i))
                            } else {
                                s.get(i).contains(a.get(i))
                            }
                    })
                    .collect();
                Ok(Vals::Bool(v, None))
            }
            _ => {
                // upper, lower, trim: read twice, written once.
                self.charge_text(sel, 2, 3 * bytes, bytes)?;
                let mut out = StrBuf::with_capacity(rows, bytes as usize);
                for i in 0..rows {
                    if selected(sel, i) {
                        let t = s.get(i);
                        match call {
                            Call::Trim => out.data.push_str(t.trim_matches(is_js_whitespace)),
                            // Other than ASCII: the VM's case mapping decides.
                            _ if !t.is_ascii() => self.fail(i),
                            _ => {
                                let start = out.data.len();
                                out.data.push_str(t);
                                if call == Call::Upper {
                                    out.data[start..].make_ascii_uppercase();
                                } else {
                                    out.data[start..].make_ascii_lowercase();
                                }
                            }
                        }
                    }
                    out.end_row();
                }
                Ok(Vals::Str(Strs::Owned(out), None))
            }
        }
    }
}

/// JavaScript's whitespace (what `trim` removes): Unicode's, less U+0085,
/// plus U+FEFF.
fn is_js_whitespace(c: char) -> bool {
    match c {
        '\u{feff}' => true,
        '\u{85}' => false,
        c => c.is_whitespace(),
    }
}

/// JavaScript's `Math.round` (ties toward +infinity), as `round`.
fn js_round(x: f64) -> f64 {
    let f = x.floor();
    if x - f >= 0.5 { f + 1.0 } else { f }
}

/// A number's text as `string()` writes it (integers without a fraction).
fn write_number(x: f64, out: &mut String) {
    use std::fmt::Write;
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let _ = write!(out, "{}", x as i64);
    } else {
        out.push_str(&xpr::to_json_string(&Value::Number(x)).unwrap_or_default());
    }
}

/// A null-free column read directly (under no struct) and the constant
/// of `column <cmp> number` (a `CompareConst`).
pub(super) fn column_vs_constant<'p>(l: &'p Node, r: &Node) -> Option<(&'p ArrayRef, f64)> {
    let (
        Expr::Column { leaf, parents },
        Expr::Const {
            value: Value::Number(c),
            units: 0,
        },
    ) = (&l.expr, &r.expr)
    else {
        return None;
    };
    // Logical: a dictionary's null values count, not only its null keys.
    (parents.is_empty() && leaf.logical_null_count() == 0).then_some((leaf, *c))
}

/// As [`column_vs_constant`], of a `Float64` column: its values.
pub(super) fn column_vs_number<'p>(l: &'p Node, r: &Node) -> Option<(&'p [f64], f64)> {
    let (leaf, c) = column_vs_constant(l, r)?;
    Some((leaf.as_primitive_opt::<Float64Type>()?.values(), c))
}

/// `x[i] <cmp> c` for every row, block by block with each block's
/// finiteness checked while it is in cache; `None` if some value is NaN or
/// infinite (it reads as null: the general path fails those rows).
fn compare_finite(x: &[f64], cmp: Cmp, c: f64) -> Option<Vec<bool>> {
    const BLOCK: usize = 2048;
    let mut out = vec![false; x.len()];
    for (xs, os) in x.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        if !all_finite_slice(xs) {
            return None;
        }
        macro_rules! by {
            ($op:tt) => {
                for (o, v) in os.iter_mut().zip(xs) {
                    *o = *v $op c;
                }
            };
        }
        match cmp {
            Cmp::Lt => by!(<),
            Cmp::Le => by!(<=),
            Cmp::Gt => by!(>),
            Cmp::Ge => by!(>=),
            Cmp::Eq => by!(==),
            Cmp::Ne => by!(!=),
        }
    }
    Some(out)
}

/// `sel` narrowed to the rows where `mask` holds.
fn within(sel: Sel<'_>, mask: &[bool]) -> Vec<bool> {
    match sel.mask {
        None => mask.to_vec(),
        Some(s) => s.iter().zip(mask).map(|(a, b)| *a && *b).collect(),
    }
}

/// A column's values (its type was checked when the plan was typed).
fn column(a: &ArrayRef) -> Vals<'_> {
    // Logical: a dictionary's null values count, not only its null keys.
    let nulls: Nulls = a
        .logical_nulls()
        .filter(|n| n.null_count() > 0)
        .map(|n| n.iter().map(|valid| !valid).collect());
    let num = |v: Vec<f64>| {
        // NaN and infinities read as null.
        let nulls = if all_finite_slice(&v) {
            nulls.clone()
        } else {
            Some(
                (0..v.len())
                    .map(|i| !v[i].is_finite() || a.is_null(i))
                    .collect(),
            )
        };
        Vals::Num(Nums::Owned(v), nulls)
    };
    match a.data_type() {
        DataType::Boolean => {
            let b = a.as_boolean();
            Vals::Bool(b.values().iter().collect(), nulls)
        }
        DataType::Float64 => {
            let v = a.as_primitive::<Float64Type>().values();
            if all_finite_slice(v) {
                Vals::Num(Nums::Borrowed(v), nulls)
            } else {
                num(v.to_vec())
            }
        }
        DataType::Dictionary(k, v) if super::vals::dictionary_of_numbers(k, v) => {
            // Each entry converted once, then looked up by key (a null
            // key's cell is 0, and null).
            let d = a.as_dictionary::<Int32Type>();
            let entries = numbers(d.values().as_ref()).unwrap_or_default();
            num(d
                .keys()
                .values()
                .iter()
                .map(|&k| {
                    usize::try_from(k)
                        .ok()
                        .and_then(|k| entries.get(k))
                        .copied()
                        .unwrap_or(0.0)
                })
                .collect())
        }
        _ => match numbers(a.as_ref()) {
            Some(v) => num(v),
            None => match Strs::of(a.as_ref()) {
                Some(s) => Vals::Str(s, nulls),
                None => Vals::Null,
            },
        },
    }
}

/// The values of a numeric column other than `Float64` as doubles (a null
/// cell's as the column holds it); `None` for other types.
pub(super) fn numbers(a: &dyn Array) -> Option<Vec<f64>> {
    macro_rules! as_f64 {
        ($t:ty) => {
            a.as_primitive::<$t>()
                .values()
                .iter()
                .map(|x| *x as f64)
                .collect()
        };
    }
    Some(match a.data_type() {
        DataType::Float64 => a.as_primitive::<Float64Type>().values().to_vec(),
        DataType::Float32 => as_f64!(Float32Type),
        DataType::Int8 => as_f64!(Int8Type),
        DataType::Int16 => as_f64!(Int16Type),
        DataType::Int32 => as_f64!(Int32Type),
        DataType::Int64 => as_f64!(Int64Type),
        DataType::UInt8 => as_f64!(UInt8Type),
        DataType::UInt16 => as_f64!(UInt16Type),
        DataType::UInt32 => as_f64!(UInt32Type),
        DataType::UInt64 => as_f64!(UInt64Type),
        _ => return None,
    })
}

// `x - x` on purpose: NaN for NaN and the infinities.
#[allow(clippy::eq_op)]
pub(super) fn all_finite_slice(v: &[f64]) -> bool {
    // `x - x` is 0 for a finite `x`, NaN for NaN and the infinities; eight
    // independent sums vectorise.
    let mut acc = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x - x;
        }
    }
    acc.iter().all(|a| *a == 0.0) && rest.iter().all(|x| x.is_finite())
}

fn map_num(x: &Nums<'_>, rows: usize, f: impl Fn(f64) -> f64) -> Nums<'static> {
    match x.slice() {
        Some(v) => Nums::Owned(v.iter().map(|a| f(*a)).collect()),
        None => Nums::Owned(vec![f(x.get(0)); rows]),
    }
}

/// `f(x[i], y[i])` for every row, and whether every result is finite
/// (checked block by block while the block is in cache).
fn zip_num<'p>(
    x: Nums<'p>,
    y: Nums<'p>,
    rows: usize,
    f: impl Fn(f64, f64) -> f64,
) -> (Nums<'p>, bool) {
    const BLOCK: usize = 2048;
    let mut finite = true;
    // Into an operand's own vector when one is computed (no allocation,
    // no fresh pages to fault in), else a new one.
    let (mut out, other, first) = match (x, y) {
        (Nums::Owned(v), y) => (v, y, true),
        (x, Nums::Owned(v)) => (v, x, false),
        (x, y) => {
            let mut out: Vec<f64> = Vec::with_capacity(rows);
            let mut at = 0;
            while at < rows {
                let len = BLOCK.min(rows - at);
                match (x.slice(), y.slice()) {
                    (Some(a), Some(b)) => out.extend(
                        a[at..at + len]
                            .iter()
                            .zip(&b[at..at + len])
                            .map(|(a, b)| f(*a, *b)),
                    ),
                    (Some(a), None) => {
                        let b = y.get(0);
                        out.extend(a[at..at + len].iter().map(|a| f(*a, b)));
                    }
                    (None, Some(b)) => {
                        let a = x.get(0);
                        out.extend(b[at..at + len].iter().map(|b| f(a, *b)));
                    }
                    (None, None) => out.extend(std::iter::repeat_n(f(x.get(0), y.get(0)), len)),
                }
                finite &= all_finite_slice(&out[at..]);
                at += len;
            }
            return (Nums::Owned(out), finite);
        }
    };
    // `f(out, other)` if `out` was the left operand, else `f(other, out)`.
    let g = |a: f64, b: f64| if first { f(a, b) } else { f(b, a) };
    for (k, block) in out.chunks_mut(BLOCK).enumerate() {
        let at = k * BLOCK;
        match other.slice() {
            Some(b) => {
                for (a, b) in block.iter_mut().zip(&b[at..]) {
                    *a = g(*a, *b);
                }
            }
            None => {
                let b = other.get(0);
                for a in block.iter_mut() {
                    *a = g(*a, b);
                }
            }
        }
        finite &= all_finite_slice(block);
    }
    (Nums::Owned(out), finite)
}

fn cmp_holds(cmp: Cmp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Greater, Less};
    match cmp {
        Cmp::Lt => o == Less,
        Cmp::Le => o != Greater,
        Cmp::Gt => o == Greater,
        Cmp::Ge => o != Less,
        Cmp::Eq => o.is_eq(),
        Cmp::Ne => o.is_ne(),
    }
}

fn order_nums(cmp: Cmp, x: &Nums<'_>, y: &Nums<'_>, rows: usize) -> Vec<bool> {
    macro_rules! by {
        ($op:tt) => {
            match (x.slice(), y.slice()) {
                (Some(a), Some(b)) => a.iter().zip(b).map(|(a, b)| *a $op *b).collect(),
                (Some(a), None) => {
                    let b = y.get(0);
                    a.iter().map(|a| *a $op b).collect()
                }
                (None, Some(b)) => {
                    let a = x.get(0);
                    b.iter().map(|b| a $op *b).collect()
                }
                (None, None) => vec![x.get(0) $op y.get(0); rows],
            }
        };
    }
    match cmp {
        Cmp::Lt => by!(<),
        Cmp::Le => by!(<=),
        Cmp::Gt => by!(>),
        Cmp::Ge => by!(>=),
        Cmp::Eq => by!(==),
        Cmp::Ne => by!(!=),
    }
}

/// Structural equality of two nodes' values, row by row (null equals null
/// only; values of different kinds are unequal).
fn equal(l: &Vals<'_>, r: &Vals<'_>, rows: usize) -> Vec<bool> {
    let both = |i: usize, same: &dyn Fn(usize) -> bool| match (l.null(i), r.null(i)) {
        (true, true) => true,
        (false, false) => same(i),
        _ => false,
    };
    match (l, r) {
        (Vals::Num(x, None), Vals::Num(y, None)) => order_nums(Cmp::Eq, x, y, rows),
        (Vals::Num(x, _), Vals::Num(y, _)) => (0..rows)
            .map(|i| both(i, &|i| x.get(i) == y.get(i)))
            .collect(),
        (Vals::Str(x, _), Vals::Str(y, _)) => (0..rows)
            .map(|i| both(i, &|i| x.get(i) == y.get(i)))
            .collect(),
        (Vals::Bool(x, _), Vals::Bool(y, _)) => {
            (0..rows).map(|i| both(i, &|i| x[i] == y[i])).collect()
        }
        _ => (0..rows).map(|i| both(i, &|_| false)).collect(),
    }
}

/// Row by row, `r` where `right` holds, else `l`: the values of `&&`,
/// `||`, `??` and `?:`, of kind `kind`.
fn blend<'p>(kind: Kind, right: &[bool], l: Vals<'p>, r: Vals<'p>, rows: usize) -> Vals<'p> {
    let pick = |i: usize| if right[i] { &r } else { &l };
    let no_nulls = |v: &Vals<'_>| {
        matches!(
            v,
            Vals::Bool(_, None) | Vals::Num(_, None) | Vals::Str(_, None)
        )
    };
    let nulls = if no_nulls(&l) && no_nulls(&r) {
        None
    } else {
        let nulls: Vec<bool> = (0..rows).map(|i| pick(i).null(i)).collect();
        nulls.iter().any(|b| *b).then_some(nulls)
    };
    match kind {
        Kind::Null => Vals::Null,
        Kind::Bool => {
            let get = |v: &Vals<'_>, i: usize| matches!(v, Vals::Bool(b, _) if b[i]);
            let v = match (&l, &r) {
                (Vals::Bool(a, _), Vals::Bool(b, _)) => a
                    .iter()
                    .zip(b)
                    .zip(right)
                    .map(|((a, b), r)| (*r & *b) | (!*r & *a))
                    .collect(),
                _ => (0..rows).map(|i| get(pick(i), i)).collect(),
            };
            Vals::Bool(v, nulls)
        }
        Kind::Num => {
            let get = |v: &Vals<'_>, i: usize| match v {
                Vals::Num(x, _) => x.get(i),
                _ => 0.0,
            };
            Vals::Num(
                Nums::Owned((0..rows).map(|i| get(pick(i), i)).collect()),
                nulls,
            )
        }
        Kind::Str => {
            let mut out = StrBuf::default();
            for i in 0..rows {
                if let Vals::Str(s, _) = pick(i) {
                    out.data.push_str(s.get(i));
                }
                out.end_row();
            }
            Vals::Str(Strs::Owned(out), nulls)
        }
    }
}
