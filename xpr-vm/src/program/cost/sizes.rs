//! Measuring a context: the value of each size variable ([`Var`]) in a
//! context value, for evaluating a bound at it.

use std::collections::BTreeMap;

use super::poly::{Measure, Path, Seg, Var};
use crate::value::Value;

/// Values of size variables, by the variable's name as a bound prints it
/// (`len(items)`, `bytes(user.name)`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sizes {
    values: BTreeMap<String, u64>,
}

impl Sizes {
    /// No sizes.
    pub fn new() -> Sizes {
        Sizes::default()
    }

    /// Sets variable `name` (`len(items)`; a bare path `items` means
    /// `len(items)`; `memory` is the run's memory limit in bytes) to
    /// `value`.
    pub fn set(&mut self, name: &str, value: u64) -> &mut Sizes {
        let name = name.trim();
        let name = if name.contains('(') || name == "memory" {
            name.to_string()
        } else {
            format!("len({name})")
        };
        self.values.insert(name, value);
        self
    }

    /// The value of `v`: as set; for `log(p)` not set, `ceil(log2(len(p)))`.
    pub fn get(&self, v: &Var) -> Option<u64> {
        if let Some(n) = self.values.get(&v.to_string()) {
            return Some(*n);
        }
        if v.measure == Measure::Log {
            let len = Var {
                measure: Measure::Len,
                path: v.path.clone(),
            };
            return self.values.get(&len.to_string()).map(|&n| ceil_log2(n));
        }
        None
    }

    /// Every size set, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.values.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// Measures each of `vars` in `context`.
    pub(super) fn measure(vars: &[&Var], context: &Value) -> Sizes {
        let mut sizes = Sizes::new();
        for v in vars {
            if v.measure == Measure::Memory {
                continue;
            }
            let n = reach(&v.path, context)
                .iter()
                .map(|x| measure(v.measure, x))
                .max()
                .unwrap_or(0);
            sizes.values.insert(v.to_string(), n);
        }
        sizes
    }
}

/// `ceil(log2(n))`, 0 for `n <= 1`.
pub(super) fn ceil_log2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        u64::from(64 - (n - 1).leading_zeros())
    }
}

/// A stand-in for any character of a string: four bytes.
fn any_char() -> Value {
    Value::from("\u{10000}")
}

/// Every value `path` reaches from the context.
fn reach(path: &Path, context: &Value) -> Vec<Value> {
    let mut now = vec![context.clone()];
    for seg in &path.0 {
        let mut next = Vec::new();
        for v in &now {
            match (seg, v) {
                (Seg::Field(k), Value::Object(o)) => {
                    if let Some(x) = o.get(k) {
                        next.push(x.clone());
                    }
                }
                (Seg::Elem, Value::Array(a)) => next.extend(a.items().iter().cloned()),
                (Seg::Elem, Value::String(s)) if !s.is_empty() => next.push(any_char()),
                (Seg::AnyField, Value::Object(o)) => next.extend(o.map().values().cloned()),
                (Seg::AnyField, Value::Array(a)) => next.extend(a.items().iter().cloned()),
                _ => {}
            }
        }
        now = next;
    }
    now
}

fn measure(m: Measure, v: &Value) -> u64 {
    match m {
        Measure::Len => match v {
            Value::Array(a) => a.len() as u64,
            Value::String(s) => s.chars().count() as u64,
            Value::Object(o) => o.len() as u64,
            _ => 0,
        },
        Measure::Bytes => match v {
            Value::String(s) => s.len() as u64,
            Value::Regex(r) => r.pattern().len() as u64 + 8,
            _ => 0,
        },
        Measure::Size => weight(v),
        Measure::Text => crate::format::display_len(v).unwrap_or(u64::MAX),
        Measure::Log => ceil_log2(measure(Measure::Len, v)),
        Measure::Memory => 0,
    }
}

/// The weight of a value (see [`Measure::Size`]), without recursion.
pub fn weight(v: &Value) -> u64 {
    let mut total = 0u64;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        total = total.saturating_add(match v {
            Value::String(s) => 1 + s.len() as u64,
            Value::Regex(r) => 1 + r.pattern().len() as u64,
            Value::Array(a) => {
                todo.extend(a.items());
                1 + a.len() as u64
            }
            Value::Object(o) => {
                let keys: u64 = o.map().keys().map(|k| k.len() as u64 + 1).sum();
                todo.extend(o.map().values());
                keys.saturating_add(1)
            }
            _ => 1,
        });
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_and_weight() {
        assert_eq!(
            [0, 1, 2, 3, 4, 5, 1024, 1025].map(ceil_log2),
            [0, 0, 1, 2, 2, 3, 10, 11]
        );
        let v = Value::from_json(&serde_json::json!({"a": [1, "xy"], "b": null})).unwrap();
        // 1 + (1 + 1 + [1 + (1 + 1) + (1 + 3)]) + (1 + 1 + 1)
        assert_eq!(weight(&v), 13);
    }
}
