//! "Did you mean ...?": the known name closest to a misspelt one, for the
//! hints of [`crate::foreign`] (unknown functions and methods, consulted
//! after its table) and the CLI's field warnings. Hints are attached with
//! [`crate::Error::with_hint`].

/// Names longer than this (in characters) get no suggestion: the edit
/// distance costs time proportional to the product of the lengths, and a
/// name this long is not a typo.
const LONGEST: usize = 64;

/// The candidate closest to `name` by edit distance, if close enough to be
/// a typo: at most one edit per three characters of `name` (at least one).
/// Ties go to the earliest candidate. `None` when no candidate is that
/// close, or for a `name` longer than 64 characters.
pub fn closest<S: AsRef<str>>(name: &str, candidates: impl IntoIterator<Item = S>) -> Option<S> {
    let len = name.chars().count();
    if len > LONGEST {
        return None;
    }
    let limit = (len / 3).max(1);
    let mut best: Option<(usize, S)> = None;
    for c in candidates {
        if c.as_ref().chars().count() > LONGEST + limit {
            continue;
        }
        let d = edit_distance(name, c.as_ref());
        if d <= limit && best.as_ref().is_none_or(|(b, _)| d < *b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance in characters, counting an adjacent transposition
/// as one edit (`delya` -> `delay` is 1).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the dynamic programme: two back, previous, current;
    // each has b.len() + 1 cells, and every index below is at most b.len().
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca) {
                d = d.min(two_back[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_transpositions_once() {
        assert_eq!(edit_distance("delya", "delay"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("naïve", "naive"), 1);
    }

    #[test]
    fn closest_suggests_only_near_names() {
        let fields = ["delay", "distance", "origin"];
        assert_eq!(closest("delya", fields), Some("delay"));
        assert_eq!(closest("orgin", fields), Some("origin"));
        assert_eq!(closest("price", fields), None);
        assert_eq!(closest(&"x".repeat(10_000), fields), None);
    }
}
