//! A seeded random generator (SplitMix64) for property tests: the same seed
//! gives the same sequence on every run and every platform, so a failing
//! case is named by its seed and case number and comes back when rerun.

/// A SplitMix64 generator: 64 bits of state, one addition and a few
/// multiplications per number. Not for cryptography; for test inputs.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must be above 0.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        // The slight bias of the remainder (n is small) does not matter here.
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `range` (`start..end`, `end` above `start`).
    pub fn range(&mut self, range: std::ops::Range<usize>) -> usize {
        range.start + self.below(range.end - range.start)
    }

    /// True or false, evenly.
    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// True with probability `p` (0.0 to 1.0).
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A float in `[0, 1)`, from 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One element of `items` (not empty), each as likely.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index into `weights` (not all 0), each chosen in proportion to
    /// its weight.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut at = self.below(total as usize) as u32;
        for (i, w) in weights.iter().enumerate() {
            if at < *w {
                return i;
            }
            at -= w;
        }
        unreachable!("at is below the total")
    }

    /// A text of `len` characters (`len` drawn from `lens`), each picked from
    /// `chars`.
    pub fn text(&mut self, chars: &[char], lens: std::ops::Range<usize>) -> String {
        let len = self.range(lens);
        (0..len).map(|_| *self.pick(chars)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_same_seed_gives_the_same_numbers() {
        let a: Vec<u64> = {
            let mut r = Rng::new(42);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let mut r = Rng::new(42);
        assert_eq!(a, (0..5).map(|_| r.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::new(43).next_u64(), a[0]);
    }

    #[test]
    fn draws_stay_in_range_and_reach_every_value() {
        let mut r = Rng::new(1);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[r.below(6)] += 1;
            let x = r.range(3..5);
            assert!((3..5).contains(&x));
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }

    #[test]
    fn weights_are_followed() {
        let mut r = Rng::new(2);
        let mut seen = [0u32; 3];
        for _ in 0..9000 {
            seen[r.weighted(&[1, 0, 2])] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[0] > 2500 && seen[0] < 3500, "{seen:?}");
    }

    #[test]
    fn texts_use_the_given_characters_and_lengths() {
        let mut r = Rng::new(3);
        for _ in 0..100 {
            let t = r.text(&['a', 'é'], 0..4);
            assert!(t.chars().count() < 4);
            assert!(t.chars().all(|c| c == 'a' || c == 'é'));
        }
    }
}
