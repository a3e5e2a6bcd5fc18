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

use arrow_array::Array;
use xpr::bytecode::Cmp;
use xpr::{Error, Value};

use super::compile::{Bin, Call, Expr, Node};
use super::kernels::{
    blend, cmp_holds, column, column_vs_number, compare_finite, equal, map_num, order_nums, zip_num,
};
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

/// `sel` narrowed to the rows where `mask` holds.
fn within(sel: Sel<'_>, mask: &[bool]) -> Vec<bool> {
    match sel.mask {
        None => mask.to_vec(),
        Some(s) => s.iter().zip(mask).map(|(a, b)| *a && *b).collect(),
    }
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
