//! The groups of `xpr run --agg` and their aggregates' running states:
//! filled record by record in each worker, merged at the end into one
//! answer that is the same for any `--jobs` (records carry their number
//! in the input, so `first`, `last` and `collect` follow input order
//! whichever worker saw them; sums are exact, see [`ExactSum`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use xpr::{Map, Value};

use super::agg_spec::{Agg, Kind};
use super::exact_sum::ExactSum;

/// Bytes counted for a group beyond its key and held values (its entry,
/// vectors and states), and for each held value or distinct key.
const GROUP_BYTES: u64 = 256;
const ENTRY_BYTES: u64 = 48;

/// Why the groups cannot go on.
#[derive(Debug, Clone)]
pub(super) enum Over {
    /// More groups than `--max-groups`.
    Groups(usize),
    /// Their state beyond `--max-group-bytes`.
    Bytes(u64),
    /// `countDistinct` or `collect` past its bound in one group.
    Bound {
        name: String,
        function: &'static str,
        bound: usize,
        key: Vec<Value>,
    },
    /// A sum beyond the largest number, at the end.
    Overflow { name: String, key: Vec<Value> },
}

/// The running state of one aggregate in one group.
#[derive(Debug, Clone)]
enum State {
    Count(u64),
    Sum(ExactSum, u64),
    Min(Option<f64>),
    Max(Option<f64>),
    /// The value and its record's number.
    First(Option<(u64, Value)>),
    Last(Option<(u64, Value)>),
    Distinct(HashSet<Box<[u8]>, foldhash::fast::RandomState>),
    Collect(Vec<(u64, Value)>),
}

impl State {
    fn new(kind: Kind) -> State {
        match kind {
            Kind::Count => State::Count(0),
            Kind::Sum | Kind::Avg => State::Sum(ExactSum::default(), 0),
            Kind::Min => State::Min(None),
            Kind::Max => State::Max(None),
            Kind::First => State::First(None),
            Kind::Last => State::Last(None),
            Kind::CountDistinct(_) => State::Distinct(HashSet::default()),
            Kind::Collect(_) => State::Collect(Vec::new()),
        }
    }
}

/// One group: its key's values, the number of its first record, and a
/// state per aggregate.
#[derive(Debug)]
pub(super) struct Group {
    first_record: u64,
    key: Vec<Value>,
    states: Vec<State>,
}

/// The groups one worker has seen (or all of them, merged).
pub(super) struct Groups<'a> {
    aggs: &'a [Agg],
    index: HashMap<Box<[u8]>, usize, foldhash::fast::RandomState>,
    list: Vec<Group>,
    max_groups: usize,
    max_bytes: u64,
    /// Bytes of every worker's groups together.
    bytes: &'a AtomicU64,
    /// A scratch buffer for keys' and values' encodings.
    scratch: Vec<u8>,
}

impl<'a> Groups<'a> {
    /// No groups yet; `bytes` is shared by every worker's groups.
    pub(super) fn new(
        aggs: &'a [Agg],
        max_groups: usize,
        max_bytes: u64,
        bytes: &'a AtomicU64,
    ) -> Self {
        Groups {
            aggs,
            index: HashMap::default(),
            list: Vec::new(),
            max_groups,
            max_bytes,
            bytes,
            scratch: Vec::new(),
        }
    }

    /// How many groups.
    pub(super) fn len(&self) -> usize {
        self.list.len()
    }

    fn charge(&self, n: u64) -> Result<(), Over> {
        let total = self.bytes.fetch_add(n, Ordering::Relaxed) + n;
        if total > self.max_bytes {
            return Err(Over::Bytes(self.max_bytes));
        }
        Ok(())
    }

    /// The group of `key` (its values checked to be keys by the caller),
    /// created for record `record` if new.
    fn group(&mut self, key: &[Value], record: u64) -> Result<usize, Over> {
        self.scratch.clear();
        for v in key {
            encode(&mut self.scratch, v);
        }
        if let Some(&i) = self.index.get(self.scratch.as_slice()) {
            return Ok(i);
        }
        if self.list.len() >= self.max_groups {
            return Err(Over::Groups(self.max_groups));
        }
        let size: u64 = key.iter().map(Value::logical_size).sum();
        self.charge(GROUP_BYTES + 2 * self.scratch.len() as u64 + size)?;
        self.index
            .insert(self.scratch.as_slice().into(), self.list.len());
        self.list.push(Group {
            first_record: record,
            key: key.to_vec(),
            states: self.aggs.iter().map(|a| State::new(a.kind)).collect(),
        });
        Ok(self.list.len() - 1)
    }

    /// Makes the group of the empty key (aggregation without
    /// `--group-by` over no records still has its one row).
    pub(super) fn add_empty(&mut self) -> Result<(), Over> {
        self.group(&[], 0).map(|_| ())
    }

    /// Adds record number `record`, whose key is `key` and whose
    /// aggregates' arguments are `args` (one per aggregate; `None` for
    /// `count()`), numbers already checked where needed.
    pub(super) fn add(
        &mut self,
        key: &[Value],
        args: &[Option<Value>],
        record: u64,
    ) -> Result<(), Over> {
        let g = self.group(key, record)?;
        for (i, (agg, arg)) in self.aggs.iter().zip(args).enumerate() {
            let group = &mut self.list[g];
            let scratch = &mut self.scratch;
            // Null (or no argument) counts only for count(), first, last
            // and collect.
            let keeps_null = matches!(agg.kind, Kind::First | Kind::Last | Kind::Collect(_));
            let held = match (&mut group.states[i], arg) {
                (State::Count(n), None) => {
                    *n += 1;
                    0
                }
                (_, None | Some(Value::Null)) if !keeps_null => 0,
                (State::Count(n), _) => {
                    *n += 1;
                    0
                }
                (State::Sum(s, n), v) => {
                    let v = v.as_ref().unwrap_or(&Value::Null);
                    let before = s.heap_bytes();
                    s.add(v.as_number().unwrap_or(0.0));
                    *n += 1;
                    s.heap_bytes() - before
                }
                (State::Min(m), v) => {
                    let v = v.as_ref().unwrap_or(&Value::Null);
                    let x = v.as_number().unwrap_or(0.0);
                    if m.is_none_or(|m| x < m) {
                        *m = Some(x);
                    }
                    0
                }
                (State::Max(m), v) => {
                    let v = v.as_ref().unwrap_or(&Value::Null);
                    let x = v.as_number().unwrap_or(0.0);
                    if m.is_none_or(|m| x > m) {
                        *m = Some(x);
                    }
                    0
                }
                (State::First(held), v) | (State::Last(held), v) => {
                    let first = matches!(agg.kind, Kind::First);
                    let replaces = held
                        .as_ref()
                        .is_none_or(|(r, _)| if first { record < *r } else { record > *r });
                    if replaces {
                        let v = v.clone().unwrap_or(Value::Null);
                        // The value it replaces is given back.
                        let before = held.as_ref().map_or(0, |(_, old)| old.logical_size());
                        let size = v.logical_size();
                        *held = Some((record, v));
                        if before > size {
                            self.bytes.fetch_sub(before - size, Ordering::Relaxed);
                        }
                        size.saturating_sub(before)
                    } else {
                        0
                    }
                }
                (State::Distinct(set), v) => {
                    let v = v.as_ref().unwrap_or(&Value::Null);
                    scratch.clear();
                    encode(scratch, v);
                    if set.contains(scratch.as_slice()) {
                        0
                    } else {
                        let bound = match agg.kind {
                            Kind::CountDistinct(b) => b,
                            _ => usize::MAX,
                        };
                        if set.len() >= bound {
                            return Err(over_bound(&group.key, agg, "countDistinct", bound));
                        }
                        set.insert(scratch.as_slice().into());
                        ENTRY_BYTES + scratch.len() as u64
                    }
                }
                (State::Collect(items), v) => {
                    let bound = match agg.kind {
                        Kind::Collect(b) => b,
                        _ => usize::MAX,
                    };
                    if items.len() >= bound {
                        return Err(over_bound(&group.key, agg, "collect", bound));
                    }
                    let v = v.clone().unwrap_or(Value::Null);
                    let size = ENTRY_BYTES + v.logical_size();
                    items.push((record, v));
                    size
                }
            };
            if held > 0 {
                self.charge(held)?;
            }
        }
        Ok(())
    }

    /// Adds another worker's groups to these.
    pub(super) fn merge(&mut self, other: Groups<'_>) -> Result<(), Over> {
        for theirs in other.list {
            self.scratch.clear();
            for v in &theirs.key {
                encode(&mut self.scratch, v);
            }
            let Some(&g) = self.index.get(self.scratch.as_slice()) else {
                if self.list.len() >= self.max_groups {
                    return Err(Over::Groups(self.max_groups));
                }
                self.index
                    .insert(self.scratch.as_slice().into(), self.list.len());
                self.list.push(theirs);
                continue;
            };
            let mine = &mut self.list[g];
            if theirs.first_record < mine.first_record {
                mine.first_record = theirs.first_record;
                mine.key = theirs.key;
            }
            for (i, (agg, state)) in self.aggs.iter().zip(theirs.states).enumerate() {
                let group = &mut self.list[g];
                match (&mut group.states[i], state) {
                    (State::Count(a), State::Count(b)) => *a += b,
                    (State::Sum(a, n), State::Sum(b, m)) => {
                        a.merge(&b);
                        *n += m;
                    }
                    (State::Min(a), State::Min(Some(b))) if a.is_none_or(|a| b < a) => {
                        *a = Some(b);
                    }
                    (State::Max(a), State::Max(Some(b))) if a.is_none_or(|a| b > a) => {
                        *a = Some(b);
                    }
                    (State::First(a), State::First(Some(b)))
                        if a.as_ref().is_none_or(|(r, _)| b.0 < *r) =>
                    {
                        *a = Some(b);
                    }
                    (State::Last(a), State::Last(Some(b)))
                        if a.as_ref().is_none_or(|(r, _)| b.0 > *r) =>
                    {
                        *a = Some(b);
                    }
                    (State::Distinct(a), State::Distinct(b)) => {
                        a.extend(b);
                        if let Kind::CountDistinct(bound) = agg.kind
                            && a.len() > bound
                        {
                            return Err(over_bound(&group.key, agg, "countDistinct", bound));
                        }
                    }
                    (State::Collect(a), State::Collect(b)) => {
                        a.extend(b);
                        if let Kind::Collect(bound) = agg.kind
                            && a.len() > bound
                        {
                            return Err(over_bound(&group.key, agg, "collect", bound));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The groups' output objects, in the order of their first records:
    /// the key fields `names`, then each aggregate's value.
    pub(super) fn finish(mut self, names: &[String]) -> Result<Vec<Value>, Over> {
        self.list.sort_by_key(|g| g.first_record);
        let mut rows = Vec::with_capacity(self.list.len());
        for g in self.list {
            let mut map = Map::default();
            for (name, v) in names.iter().zip(&g.key) {
                map.insert(Arc::from(name.as_str()), v.clone());
            }
            for (agg, state) in self.aggs.iter().zip(g.states) {
                let v = match state {
                    State::Count(n) => Value::Number(n as f64),
                    State::Sum(_, 0) => Value::Null,
                    State::Sum(s, n) => {
                        let Some(total) = s.value() else {
                            return Err(Over::Overflow {
                                name: agg.name.clone(),
                                key: g.key,
                            });
                        };
                        Value::Number(if agg.kind == Kind::Avg {
                            total / n as f64
                        } else {
                            total
                        })
                    }
                    State::Min(m) | State::Max(m) => m.map_or(Value::Null, Value::Number),
                    State::First(f) | State::Last(f) => f.map_or(Value::Null, |(_, v)| v),
                    State::Distinct(set) => Value::Number(set.len() as f64),
                    State::Collect(mut items) => {
                        items.sort_by_key(|(r, _)| *r);
                        Value::array(items.into_iter().map(|(_, v)| v).collect())
                    }
                };
                map.insert(Arc::from(agg.name.as_str()), v);
            }
            rows.push(Value::object(map));
        }
        Ok(rows)
    }
}

fn over_bound(key: &[Value], agg: &Agg, function: &'static str, bound: usize) -> Over {
    Over::Bound {
        name: agg.name.clone(),
        function,
        bound,
        key: key.to_vec(),
    }
}

/// Appends `v`'s encoding: equal values (XPR's `==`: `0` and `-0`, objects
/// whatever their keys' order) encode alike, different ones differently.
/// Functions encode by identity, regexes by pattern and flags (the caller
/// refuses both as keys at the top). Without recursion, so no nesting
/// (`--max-value-depth none`) can overflow the stack.
pub(super) fn encode(out: &mut Vec<u8>, v: &Value) {
    enum Work<'a> {
        Value(&'a Value),
        Key(&'a str),
    }
    let len = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u64).to_le_bytes());
    // A key is most often one string or number: no stack for it.
    let mut stack = Vec::new();
    let mut next = Some(Work::Value(v));
    while let Some(work) = next.take().or_else(|| stack.pop()) {
        let v = match work {
            Work::Key(k) => {
                len(out, k.len());
                out.extend_from_slice(k.as_bytes());
                continue;
            }
            Work::Value(v) => v,
        };
        match v {
            Value::Null => out.push(b'n'),
            Value::Bool(b) => out.push(if *b { b't' } else { b'f' }),
            Value::Number(n) => {
                out.push(b'#');
                let n = if *n == 0.0 { 0.0 } else { *n };
                out.extend_from_slice(&n.to_bits().to_le_bytes());
            }
            Value::String(s) => {
                out.push(b'"');
                len(out, s.len());
                out.extend_from_slice(s.as_bytes());
            }
            Value::Array(a) => {
                out.push(b'[');
                len(out, a.len());
                stack.extend(a.items().iter().rev().map(Work::Value));
            }
            Value::Object(o) => {
                out.push(b'{');
                len(out, o.len());
                let mut entries: Vec<_> = o.map().iter().collect();
                entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (k, item) in entries.into_iter().rev() {
                    stack.push(Work::Value(item));
                    stack.push(Work::Key(k));
                }
            }
            Value::Regex(r) => {
                out.push(b'/');
                len(out, r.pattern().len());
                out.extend_from_slice(r.pattern().as_bytes());
                out.extend_from_slice(r.flags().as_bytes());
            }
            Value::Function(f) => {
                out.push(b'(');
                out.extend_from_slice(&(Arc::as_ptr(f) as usize).to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::agg_spec::Spec;
    use super::*;

    fn values(json: serde_json::Value) -> Value {
        Value::from_json(&json).unwrap_or(Value::Null)
    }

    #[test]
    fn equal_values_encode_alike() {
        let enc = |v: &Value| {
            let mut out = Vec::new();
            encode(&mut out, v);
            out
        };
        assert_eq!(enc(&Value::Number(0.0)), enc(&Value::Number(-0.0)));
        assert_eq!(
            enc(&values(serde_json::json!({"a": 1, "b": [2]}))),
            enc(&values(serde_json::json!({"b": [2], "a": 1})))
        );
        assert_ne!(enc(&Value::from("1")), enc(&Value::Number(1.0)));
        assert_ne!(
            enc(&values(serde_json::json!(["ab", "c"]))),
            enc(&values(serde_json::json!(["a", "bc"])))
        );
    }

    #[test]
    fn merged_halves_equal_the_whole() {
        let spec = Spec::new(
            &xpr::Engine::new(),
            None,
            "n: count(), s: sum(x), a: avg(x), lo: min(x), f: first(x), l: last(x), d: countDistinct(x), c: collect(x)",
        )
        .unwrap_or_else(|e| panic!("{:?}", e.message));
        let bytes = AtomicU64::new(0);
        let xs = [3.5, 1.0, -2.0, 3.5, 0.1];
        let row = |g: Groups<'_>| g.finish(&[]).map_err(|e| format!("{e:?}"));
        // count() takes no argument; the seven others take x.
        let args_of = |x: f64| {
            let v = Some(Value::Number(x));
            [
                None,
                v.clone(),
                v.clone(),
                v.clone(),
                v.clone(),
                v.clone(),
                v.clone(),
                v,
            ]
        };
        let mut whole = Groups::new(&spec.aggs, 10, u64::MAX, &bytes);
        for (i, x) in xs.iter().enumerate() {
            let args = args_of(*x);
            whole
                .add(&[], &args, i as u64 + 1)
                .unwrap_or_else(|e| panic!("{e:?}"));
        }
        let whole = row(whole);
        for cut in 0..xs.len() {
            // The second half first: input order comes from the numbers.
            let mut a = Groups::new(&spec.aggs, 10, u64::MAX, &bytes);
            let mut b = Groups::new(&spec.aggs, 10, u64::MAX, &bytes);
            for (i, x) in xs.iter().enumerate() {
                let args = args_of(*x);
                let g = if i < cut { &mut a } else { &mut b };
                g.add(&[], &args, i as u64 + 1)
                    .unwrap_or_else(|e| panic!("{e:?}"));
            }
            b.merge(a).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(row(b), whole);
        }
        let whole = whole.unwrap_or_default();
        assert_eq!(
            xpr::to_json_string(&whole[0]).unwrap_or_default(),
            r#"{"n":5,"s":6.1,"a":1.22,"lo":-2,"f":3.5,"l":0.1,"d":4,"c":[3.5,1,-2,3.5,0.1]}"#
        );
    }
}
