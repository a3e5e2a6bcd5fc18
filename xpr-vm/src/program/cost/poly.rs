//! Size variables and the polynomials over them that cost bounds are.
//!
//! A [`Var`] names one measure ([`Measure`]) of the value at a context
//! path ([`Path`]): `len(items)`, `bytes(items[].name)`, `size(config)`.
//! A [`Poly`] is a sum of products of variables with non-negative
//! coefficients, kept in sixteenths of a fuel unit so that the VM's text
//! rate (`bytes / 16`) is exact. Every variable is non-negative, so the
//! coefficient-wise maximum of two polynomials bounds the larger of them at
//! every point: paths through a program join without a `max` term.

use std::collections::BTreeMap;
use std::fmt;

use crate::value::Key;

/// Sixteenths of a fuel unit per unit: coefficients are stored scaled.
pub(super) const SCALE: u64 = 16;

/// Most terms a polynomial keeps; a larger one makes the bound unbounded
/// (see `Poly::too_large`).
const MAX_TERMS: usize = 256;

/// One step of a [`Path`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Seg {
    /// The field of that name: `.name`.
    Field(Key),
    /// Any element of an array (or character of a string): `[]`.
    Elem,
    /// Any field of an object (a key known only at run time): `[*]`.
    AnyField,
}

/// A path from the context's top level: `items[].tags`, `user.name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Path(pub Vec<Seg>);

impl Path {
    /// The path one step further.
    pub(super) fn then(&self, seg: Seg) -> Path {
        let mut segs = self.0.clone();
        segs.push(seg);
        Path(segs)
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Field(k) if i == 0 => write!(f, "{k}")?,
                Seg::Field(k) => write!(f, ".{k}")?,
                Seg::Elem => f.write_str("[]")?,
                Seg::AnyField => f.write_str("[*]")?,
            }
        }
        Ok(())
    }
}

/// What is measured of the value at a path; the maximum over every value
/// a path with `[]` or `[*]` reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Measure {
    /// An array's element count, a string's character count, an object's
    /// field count; 0 for anything else.
    Len,
    /// A string's length in UTF-8 bytes; 0 for anything else.
    Bytes,
    /// The value's weight: 1 for each value in it, 1 more for each element
    /// or field, plus the bytes of each string and key (see
    /// `CostBound::sizes_of`).
    Size,
    /// The length in bytes of its display form (what `string()` and a
    /// template make of it).
    Text,
    /// `ceil(log2(len))`: the passes of a merge sort of it.
    Log,
    /// Not a measure of the context: the run's memory limit in bytes
    /// (`Limits::memory`), which bounds every value a run builds. Its
    /// variable is named `memory` (path `memory`).
    Memory,
}

/// A size variable: one measure of the value at one context path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var {
    /// What is measured.
    pub measure: Measure,
    /// Where.
    pub path: Path,
}

impl Var {
    /// The run's memory limit (see [`Measure::Memory`]).
    pub fn memory() -> Var {
        Var {
            measure: Measure::Memory,
            path: Path(vec![Seg::Field("memory".into())]),
        }
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = match self.measure {
            Measure::Len => "len",
            Measure::Bytes => "bytes",
            Measure::Size => "size",
            Measure::Text => "text",
            Measure::Log => "log",
            Measure::Memory => return f.write_str("memory"),
        };
        write!(f, "{m}({})", self.path)
    }
}

/// A product of variables (sorted, with repeats for powers); empty is 1.
type Mono = Vec<Var>;

/// A polynomial with non-negative coefficients in sixteenths of a unit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Poly {
    terms: BTreeMap<Mono, u64>,
    /// Set when a product would have had too many terms to compute: the
    /// polynomial is then no bound ([`Poly::too_large`]).
    huge: bool,
}

impl Poly {
    /// Zero.
    pub fn zero() -> Poly {
        Poly::default()
    }

    /// The constant `n` (whole units).
    pub fn num(n: u64) -> Poly {
        Poly::sixteenths(n.saturating_mul(SCALE))
    }

    /// The constant `n / 16`.
    pub(super) fn sixteenths(n: u64) -> Poly {
        let mut terms = BTreeMap::new();
        if n > 0 {
            terms.insert(Vec::new(), n);
        }
        Poly { terms, huge: false }
    }

    /// The variable `v` (coefficient 1).
    pub fn var(v: Var) -> Poly {
        let mut terms = BTreeMap::new();
        terms.insert(vec![v], SCALE);
        Poly { terms, huge: false }
    }

    /// Whether it is zero.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The constant term, in whole units rounded up, when there is no other.
    pub fn as_constant(&self) -> Option<u64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).map(|c| c.div_ceil(SCALE)),
            _ => None,
        }
    }

    /// Whether it has more terms than a bound keeps (or would have had).
    pub fn too_large(&self) -> bool {
        self.huge || self.terms.len() > MAX_TERMS
    }

    /// `self + other`.
    pub fn add(&self, other: &Poly) -> Poly {
        let mut out = self.clone();
        out.huge |= other.huge;
        for (m, c) in &other.terms {
            let e = out.terms.entry(m.clone()).or_insert(0);
            *e = e.saturating_add(*c);
        }
        out
    }

    /// `self += other`.
    pub(super) fn add_assign(&mut self, other: &Poly) {
        self.huge |= other.huge;
        for (m, c) in &other.terms {
            let e = self.terms.entry(m.clone()).or_insert(0);
            *e = e.saturating_add(*c);
        }
    }

    /// `self * other`.
    pub fn mul(&self, other: &Poly) -> Poly {
        let mut out = Poly::zero();
        if self.too_large()
            || other.too_large()
            || self.terms.len().saturating_mul(other.terms.len()) > MAX_TERMS * MAX_TERMS
        {
            out.huge = true;
            return out;
        }
        for (a, x) in &self.terms {
            for (b, y) in &other.terms {
                let mut m = a.clone();
                m.extend(b.iter().cloned());
                m.sort();
                // Coefficients are scaled: (x/16)(y/16) = (x*y/16)/16.
                let c = x.saturating_mul(*y).div_ceil(SCALE);
                let e = out.terms.entry(m).or_insert(0);
                *e = e.saturating_add(c);
            }
        }
        out
    }

    /// `self * n` for a whole number `n`.
    pub fn scale(&self, n: u64) -> Poly {
        Poly {
            terms: self
                .terms
                .iter()
                .filter(|_| n > 0)
                .map(|(m, c)| (m.clone(), c.saturating_mul(n)))
                .collect(),
            huge: self.huge,
        }
    }

    /// `self / 16`, rounded up per term.
    pub(super) fn per_sixteen(&self) -> Poly {
        Poly {
            terms: self
                .terms
                .iter()
                .map(|(m, c)| (m.clone(), c.div_ceil(SCALE)))
                .collect(),
            huge: self.huge,
        }
    }

    /// A bound of `max(self, other)`: the larger coefficient of each term.
    pub fn max(&self, other: &Poly) -> Poly {
        let mut out = self.clone();
        out.huge |= other.huge;
        for (m, c) in &other.terms {
            let e = out.terms.entry(m.clone()).or_insert(0);
            *e = (*e).max(*c);
        }
        out
    }

    /// The terms of `self` beyond those of `base` (0 where `base` has
    /// more): a bound of `self - base` where `self >= base` term by term.
    pub(super) fn excess(&self, base: &Poly) -> Poly {
        Poly {
            terms: self
                .terms
                .iter()
                .filter_map(|(m, c)| {
                    let d = c.saturating_sub(base.terms.get(m).copied().unwrap_or(0));
                    (d > 0).then(|| (m.clone(), d))
                })
                .collect(),
            huge: self.huge,
        }
    }

    /// `self` with `v` replaced by `by`.
    pub(super) fn substitute(&self, v: &Var, by: &Poly) -> Poly {
        let mut out = Poly {
            huge: self.huge,
            ..Poly::zero()
        };
        for (m, c) in &self.terms {
            let rest: Mono = m.iter().filter(|x| *x != v).cloned().collect();
            let mut t = Poly::zero();
            t.terms.insert(rest, *c);
            for _ in 0..(m.len() - t.terms.keys().next().map_or(0, Vec::len)) {
                t = t.mul(by);
            }
            out.add_assign(&t);
        }
        out
    }

    /// The variables it names, without repeats, in order.
    pub fn vars(&self) -> Vec<&Var> {
        let mut vars: Vec<&Var> = self.terms.keys().flatten().collect();
        vars.sort();
        vars.dedup();
        vars
    }

    /// Its value where `value` gives each variable (whole units, rounded
    /// up); `None` when a variable has no value.
    pub fn evaluate(&self, value: impl Fn(&Var) -> Option<u64>) -> Option<u64> {
        if self.huge {
            return None;
        }
        let mut sum: u128 = 0;
        for (m, c) in &self.terms {
            let mut t = u128::from(*c);
            for v in m {
                t = t.saturating_mul(u128::from(value(v)?));
            }
            sum = sum.saturating_add(t);
        }
        Some(u64::try_from(sum.div_ceil(u128::from(SCALE))).unwrap_or(u64::MAX))
    }
}

impl fmt::Display for Poly {
    /// `12 + 9·len(items) + bytes(name)/16`: the constant first, then the
    /// terms by degree; a coefficient that is not whole is a fraction of 16.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        let mut terms: Vec<(&Mono, &u64)> = self.terms.iter().collect();
        terms.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(b.0)));
        for (i, (m, c)) in terms.into_iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            let product = m
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("·");
            // The coefficient c/16 in lowest terms p/q.
            let g = gcd(*c, SCALE);
            let (p, q) = (c / g, SCALE / g);
            match (m.is_empty(), p, q) {
                // A constant is shown rounded up: the bound stays a bound.
                (true, _, _) => write!(f, "{}", c.div_ceil(SCALE))?,
                (false, 1, 1) => f.write_str(&product)?,
                (false, _, 1) => write!(f, "{p}·{product}")?,
                (false, 1, _) => write!(f, "{product}/{q}")?,
                (false, _, _) => write!(f, "{p}·{product}/{q}")?,
            }
        }
        Ok(())
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len(name: &str) -> Poly {
        Poly::var(Var {
            measure: Measure::Len,
            path: Path(vec![Seg::Field(name.into())]),
        })
    }

    #[test]
    fn arithmetic_and_display() {
        let p = Poly::num(12).add(&len("items").scale(9));
        assert_eq!(p.to_string(), "12 + 9·len(items)");
        let q = p.mul(&len("xs"));
        assert_eq!(q.to_string(), "12·len(xs) + 9·len(items)·len(xs)");
        assert_eq!(len("s").per_sixteen().to_string(), "len(s)/16");
        assert_eq!(len("s").scale(8).per_sixteen().to_string(), "len(s)/2");
        assert_eq!(len("s").scale(170).per_sixteen().to_string(), "85·len(s)/8");
        assert_eq!(Poly::sixteenths(3).to_string(), "1");
        assert_eq!(Poly::zero().to_string(), "0");
    }

    #[test]
    fn max_bounds_both_and_evaluate_rounds_up() {
        let a = Poly::num(5).add(&len("a"));
        let b = Poly::num(2).add(&len("b").scale(3));
        let m = a.max(&b);
        assert_eq!(m.to_string(), "5 + len(a) + 3·len(b)");
        let at = |v: &Var| Some(if v.path.to_string() == "a" { 4 } else { 1 });
        assert_eq!(m.excess(&a).to_string(), "3·len(b)");
        let k = Var {
            measure: Measure::Len,
            path: Path(vec![Seg::Field("k".into())]),
        };
        let sq = Poly::var(k.clone())
            .mul(&Poly::var(k.clone()))
            .add(&Poly::var(k.clone()));
        assert_eq!(
            sq.substitute(&k, &len("a").scale(2)).to_string(),
            "2·len(a) + 4·len(a)·len(a)"
        );
        assert_eq!(m.evaluate(at), Some(12));
        assert_eq!(len("a").per_sixteen().evaluate(at), Some(1));
        assert_eq!(len("a").evaluate(|_| None), None);
    }
}
