//! The `sum` aggregate of `xpr run --agg`: an exact sum of doubles, so
//! that the answer does not depend on the order of the values nor on how
//! they were split between workers (`--jobs`), rounded once at the end.
//!
//! Integers whose running total stays within 2^53 are summed as plain
//! doubles (every step is exact, so any order gives the same bits); the
//! first value that is not such an integer moves the sum to a fixed-point
//! accumulator that holds any sum of doubles exactly: 68 limbs of 32 bits
//! (kept in `i64`s, carries propagated lazily) covering 2^-1074 to beyond
//! 2^1024. The result is the exact total rounded to the nearest double
//! (ties to even), or an overflow error when that is beyond the largest
//! double.

/// Bits per limb.
const LIMB_BITS: u32 = 32;
/// Limbs: bits 0 .. 2176 of the total scaled by 2^1074 (a double's
/// lowest bit is 2^-1074; its highest, 2^1023, is bit 2097; the rest is
/// headroom for carries of up to 2^64 additions).
const LIMBS: usize = 68;
/// Additions between carry propagations: each adds less than 2^32 in
/// magnitude to a limb, which then stays far inside an `i64`.
const NORMALIZE_EVERY: u32 = 1 << 28;
/// Integers below this magnitude are exact doubles, and so are their sums.
const EXACT_INT: f64 = 9_007_199_254_740_992.0;

/// A sum of doubles that is exact until it is read.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExactSum {
    /// The sum while every value and the total were integers within 2^53.
    small: f64,
    /// The exact accumulator once they were not.
    big: Option<Box<Accumulator>>,
}

impl ExactSum {
    /// Adds `x` (finite).
    #[inline]
    pub(crate) fn add(&mut self, x: f64) {
        if self.big.is_none() {
            let t = self.small + x;
            if x.fract() == 0.0 && x.abs() <= EXACT_INT && t.abs() < EXACT_INT {
                self.small = t;
                return;
            }
            let mut big = Box::new(Accumulator::default());
            big.add(self.small);
            self.small = 0.0;
            self.big = Some(big);
        }
        if let Some(big) = &mut self.big {
            big.add(x);
        }
    }

    /// Adds the values `other` holds.
    pub(crate) fn merge(&mut self, other: &ExactSum) {
        match &other.big {
            None => self.add(other.small),
            Some(b) => {
                let mine = self.big.get_or_insert_with(|| {
                    let mut a = Box::new(Accumulator::default());
                    a.add(self.small);
                    a
                });
                self.small = 0.0;
                mine.merge(b);
            }
        }
    }

    /// The total rounded to the nearest double; `None` when it is beyond
    /// the largest double.
    pub(crate) fn value(&self) -> Option<f64> {
        match &self.big {
            None => Some(self.small),
            Some(b) => b.value(),
        }
    }

    /// Bytes this sum holds beyond its own size.
    pub(crate) fn heap_bytes(&self) -> u64 {
        if self.big.is_some() {
            size_of::<Accumulator>() as u64
        } else {
            0
        }
    }
}

/// The fixed-point total: `sum(limbs[i] * 2^(32 i)) * 2^-1074`.
#[derive(Debug, Clone)]
struct Accumulator {
    limbs: [i64; LIMBS],
    /// Additions since the last carry propagation.
    pending: u32,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            limbs: [0; LIMBS],
            pending: 0,
        }
    }
}

impl Accumulator {
    fn add(&mut self, x: f64) {
        if x == 0.0 {
            return;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        // x = mantissa * 2^(shift - 1074), shift >= 0.
        let (mantissa, shift) = if exponent == 0 {
            (fraction, 0)
        } else {
            (fraction | (1 << 52), exponent - 1)
        };
        let index = (shift / LIMB_BITS) as usize;
        let wide = u128::from(mantissa) << (shift % LIMB_BITS);
        let negative = x < 0.0;
        for k in 0..3 {
            let piece = ((wide >> (LIMB_BITS * k as u32)) & 0xffff_ffff) as i64;
            if let Some(limb) = self.limbs.get_mut(index + k) {
                *limb += if negative { -piece } else { piece };
            }
        }
        self.pending += 1;
        if self.pending >= NORMALIZE_EVERY {
            self.normalize();
        }
    }

    fn merge(&mut self, other: &Accumulator) {
        self.normalize();
        let mut other = other.clone();
        other.normalize();
        for (a, b) in self.limbs.iter_mut().zip(other.limbs) {
            *a += b;
        }
        self.normalize();
    }

    /// Propagates carries: every limb but the last in `0 .. 2^32`, the
    /// last holding the sign.
    fn normalize(&mut self) {
        let mut carry = 0i64;
        for limb in &mut self.limbs[..LIMBS - 1] {
            let v = *limb + carry;
            carry = v >> LIMB_BITS;
            *limb = v & 0xffff_ffff;
        }
        self.limbs[LIMBS - 1] += carry;
        self.pending = 0;
    }

    fn value(&self) -> Option<f64> {
        let mut a = self.clone();
        a.normalize();
        let negative = a.limbs[LIMBS - 1] < 0;
        if negative {
            for limb in &mut a.limbs {
                *limb = -*limb;
            }
            a.normalize();
        }
        let Some(top) = a.limbs.iter().rposition(|&l| l != 0) else {
            return Some(0.0);
        };
        // The four limbs from `top` down, as one 128-bit integer whose
        // lowest bit is bit `base` of the total; below them, only whether
        // any bit is set matters (the sticky bit).
        let limb = |i: isize| {
            usize::try_from(i)
                .ok()
                .and_then(|i| a.limbs.get(i))
                .map_or(0, |&l| l as u128)
        };
        let top = top as isize;
        let mut wide = 0u128;
        for i in (top - 3..=top).rev() {
            wide = (wide << LIMB_BITS) | limb(i);
        }
        let below = usize::try_from(top - 3).unwrap_or(0);
        let mut sticky = a.limbs[..below].iter().any(|&l| l != 0);
        let lz = wide.leading_zeros();
        let wide = wide << lz;
        let mut m = (wide >> 64) as u64;
        sticky |= (wide as u64) != 0;
        if sticky {
            // 11 bits below the 53 kept: the lowest one only breaks ties.
            m |= 1;
        }
        // m * 2^(base + 64 - lz) * 2^-1074, base = 32 (top - 3).
        let exponent = 32 * (top as i32 - 3) + 64 - lz as i32 - 1074;
        let magnitude = scale(m as f64, exponent);
        magnitude
            .is_finite()
            .then_some(if negative { -magnitude } else { magnitude })
    }
}

/// `x * 2^e`, exact whenever the result is a double (steps keep every
/// intermediate normal for the `x` of [`Accumulator::value`], at least 1).
fn scale(mut x: f64, mut e: i32) -> f64 {
    let pow = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    while e > 1023 {
        x *= pow(1023);
        e -= 1023;
    }
    while e < -1022 {
        x *= pow(-1022);
        e += 1022;
    }
    x * pow(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(xs: &[f64]) -> Option<f64> {
        let mut s = ExactSum::default();
        for &x in xs {
            s.add(x);
        }
        s.value()
    }

    #[test]
    fn integers_stay_plain_and_exact() {
        assert_eq!(sum(&[1.0, 2.0, -5.0]), Some(-2.0));
        assert_eq!(sum(&[]), Some(0.0));
        let mut s = ExactSum::default();
        s.add(3.0);
        assert!(s.big.is_none());
    }

    #[test]
    fn fractions_are_rounded_once() {
        // The left fold gives 0.6000000000000001.
        assert_eq!(sum(&[0.1, 0.2, 0.3]), Some(0.6));
        assert_eq!(sum(&[1e100, 1.0, -1e100]), Some(1.0));
        assert_eq!(sum(&[0.5, -0.5]), Some(0.0));
        assert_eq!(sum(&[-0.25, -0.5]), Some(-0.75));
        assert_eq!(sum(&[f64::MAX, f64::MAX, -f64::MAX]), Some(f64::MAX));
        assert_eq!(sum(&[f64::MAX, f64::MAX]), None);
        assert_eq!(sum(&[-f64::MAX, -f64::MAX]), None);
        let tiny = f64::from_bits(1);
        assert_eq!(sum(&[tiny, tiny, tiny]), Some(f64::from_bits(3)));
        assert_eq!(sum(&[1.0, tiny]), Some(1.0));
        assert_eq!(
            sum(&[9_007_199_254_740_992.0, 1.0]),
            Some(9_007_199_254_740_992.0)
        );
        // 2^53 + 1 + 1: exact total 2^53 + 2.
        assert_eq!(
            sum(&[9_007_199_254_740_992.0, 1.0, 1.0]),
            Some(9_007_199_254_740_994.0)
        );
    }

    #[test]
    fn any_order_and_split_gives_the_same_bits() {
        let mut rng = xpr_seed(7);
        let xs: Vec<f64> = (0..2000)
            .map(|i| {
                let r = rng();
                let scale = [1e-3, 1.0, 1e6, 1e300, 1e-300][i % 5];
                (r as f64 / u64::MAX as f64 - 0.5) * scale
            })
            .collect();
        let whole = sum(&xs);
        let mut rev = xs.clone();
        rev.reverse();
        assert_eq!(sum(&rev), whole);
        for cut in [1, 7, 999, 1999] {
            let mut a = ExactSum::default();
            let mut b = ExactSum::default();
            for &x in &xs[..cut] {
                a.add(x);
            }
            for &x in &xs[cut..] {
                b.add(x);
            }
            b.merge(&a);
            assert_eq!(b.value(), whole);
        }
    }

    /// A small xorshift generator.
    fn xpr_seed(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }
}
