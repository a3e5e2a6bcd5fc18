//! What comparing, ordering and hashing values costs, and structural
//! equality metered as it goes (issue 11: every comparison charged in
//! proportion to what it touches).
//!
//! Fuel units, with [`BYTES_PER_UNIT`] = 16 (the text rate of
//! [`crate::format::text_fuel`]), on top of the unit of the operation or
//! element that asks for the comparison:
//! - **ordering** two strings (`<`, `sort`, `sortBy` keys, object keys):
//!   `min(len) / 16`; nothing when both are the same string (one `Arc`),
//!   which is then not read at all;
//! - **equality** of two strings: `len / 16` when they have the same length
//!   and are distinct; nothing otherwise (strings of different lengths are
//!   unequal without reading them);
//! - **structural equality** of arrays and objects: one unit per element or
//!   field visited, `key bytes / 16` per field looked up in the other
//!   object, and the strings met as above; values both sides share cost
//!   nothing, and the walk stops at the first difference. A key of 16 bytes
//!   or more is first checked against the other object's longest key (found
//!   once per pair of objects, `fields / 16` units), and one longer than all
//!   of them is not hashed at all: the walk never does more than either
//!   side's weight, which is what the static cost bound charges for `==`
//!   and `includes` (a 64 KiB key compared with `{"a": 1}` once cost 4,103
//!   units against a bound of 11);
//! - **hashing** a key (`unique`, object keys, key lookups): `len / 16`,
//!   which also covers comparing it with the key it finds.
//!
//! Every charge is made *before* the bytes are read: comparing two 200 MB
//! strings fails with the fuel error, or stops at a cancellation or the
//! deadline (checked by the runtime's refill), without reading them. Small
//! charges are gathered into batches of [`BATCH`] units, so charging stays
//! off the hot paths while the work done past an exhausted budget stays
//! below one batch.
//!
//! Measured with `xpr-bench/examples/work_per_fuel.rs`, these rates leave
//! comparisons and hashing well below the CPU time per fuel unit of ordinary
//! instructions.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::Error;
use crate::value::{Key, Map, Value, bytes_eq};

/// Bytes of text compared or hashed per fuel unit.
pub const BYTES_PER_UNIT: u64 = crate::format::BYTES_PER_FUEL;

/// Fuel units gathered before they are charged (see the module doc).
pub const BATCH: u64 = 256;

/// Whether `a` and `b` are the same text in memory (one shared string).
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b)
}

/// The work of ordering `a` and `b` by [`text_order`], beyond one unit.
#[inline]
pub fn text_order_work(a: &str, b: &str) -> u64 {
    if same_text(a, b) {
        0
    } else {
        a.len().min(b.len()) as u64 / BYTES_PER_UNIT
    }
}

/// Orders two strings by code point (UTF-8 byte order); the same string
/// is equal to itself without being read.
#[inline]
pub fn text_order(a: &str, b: &str) -> Ordering {
    if same_text(a, b) {
        return Ordering::Equal;
    }
    touch(a.len().min(b.len()));
    a.as_bytes().cmp(b.as_bytes())
}

/// The work of deciding `a == b` for two strings, beyond one unit.
#[inline]
pub fn text_eq_work(a: &str, b: &str) -> u64 {
    if a.len() != b.len() || same_text(a, b) {
        0
    } else {
        a.len() as u64 / BYTES_PER_UNIT
    }
}

/// The work of ordering two values beyond one unit: [`text_order_work`]
/// for two strings, nothing for any other pair (numbers, booleans, or a
/// pair the ordering refuses).
#[inline]
pub fn order_work(a: &Value, b: &Value) -> u64 {
    match (a, b) {
        (Value::String(x), Value::String(y)) => text_order_work(x, y),
        _ => 0,
    }
}

/// The work of hashing a key of `len` bytes (and comparing it with the key
/// a lookup finds).
#[inline]
pub fn hash_work(len: usize) -> u64 {
    len as u64 / BYTES_PER_UNIT
}

/// Records, in tests, that `bytes` bytes are about to be compared or
/// hashed: the count behind the tests that work stays in proportion to
/// fuel. Compiled to nothing outside tests.
#[inline(always)]
pub(crate) fn touch(bytes: usize) {
    #[cfg(test)]
    touched::add(bytes);
    #[cfg(not(test))]
    let _ = bytes;
}

/// The count of bytes compared or hashed on this thread (tests only).
#[cfg(test)]
pub(crate) mod touched {
    use std::cell::Cell;

    thread_local! {
        static BYTES: Cell<u64> = const { Cell::new(0) };
    }

    /// Adds `bytes` to this thread's count.
    pub(crate) fn add(bytes: usize) {
        BYTES.with(|c| c.set(c.get().saturating_add(bytes as u64)));
    }

    /// This thread's count, reset to zero.
    pub(crate) fn take() -> u64 {
        BYTES.with(|c| c.replace(0))
    }
}

/// Gathers fuel units and hands them to `charge` in batches.
struct Meter<F> {
    pending: u64,
    charge: F,
}

impl<F: FnMut(u64) -> Result<(), Error>> Meter<F> {
    /// Adds `units`, charging the batch once it is full (before the work
    /// the units stand for is done).
    #[inline]
    fn add(&mut self, units: u64) -> Result<(), Error> {
        self.pending = self.pending.saturating_add(units);
        if self.pending >= BATCH {
            (self.charge)(std::mem::take(&mut self.pending))?;
        }
        Ok(())
    }

    /// Charges what remains.
    #[inline]
    fn flush(&mut self) -> Result<(), Error> {
        match std::mem::take(&mut self.pending) {
            0 => Ok(()),
            units => (self.charge)(units),
        }
    }
}

impl Value {
    /// `self == other` (structural, see the `PartialEq` impl), charging its
    /// work to `charge` as it goes (see the module doc): the units of a
    /// string pair are charged before the pair is read, in batches of
    /// [`BATCH`]. `charge` may fail (the fuel error, a cancellation): the
    /// comparison stops there with that error.
    ///
    /// # Errors
    /// The first error of `charge`.
    pub fn eq_metered<F>(&self, other: &Value, charge: F) -> Result<bool, Error>
    where
        F: FnMut(u64) -> Result<(), Error>,
    {
        let mut meter = Meter { pending: 0, charge };
        let eq = equal(self, other, &mut meter)?;
        meter.flush()?;
        Ok(eq)
    }
}

/// Structural equality without charging (what `==` on values in Rust does).
pub(crate) fn equal_unmetered(a: &Value, b: &Value) -> bool {
    let mut meter = Meter {
        pending: 0,
        charge: |_| Ok(()),
    };
    equal(a, b, &mut meter).unwrap_or(false)
}

/// What [`step`] found comparing two values.
enum Step<'a> {
    /// Equal without looking inside (scalars, shared values).
    Equal,
    /// Not equal.
    Unequal,
    /// Equal so far: the elements or fields of two containers remain.
    Descend(Pending<'a>),
}

/// The children of two containers still to compare.
enum Pending<'a> {
    Items(std::iter::Zip<std::slice::Iter<'a, Value>, std::slice::Iter<'a, Value>>),
    Fields(Fields<'a>),
}

/// The fields of one object still to look up in another.
struct Fields<'a> {
    mine: indexmap::map::Iter<'a, Key, Value>,
    other: &'a Map,
    /// The byte length of `other`'s longest key, once a long key asked.
    longest: Option<usize>,
}

impl<'a> Fields<'a> {
    /// The next field and its value in `other` (`None` inside when `other`
    /// has no such key), charging the lookup before it is made.
    fn next<F>(
        &mut self,
        meter: &mut Meter<F>,
    ) -> Result<Option<(&'a Value, Option<&'a Value>)>, Error>
    where
        F: FnMut(u64) -> Result<(), Error>,
    {
        let Some((k, v)) = self.mine.next() else {
            return Ok(None);
        };
        meter.add(1)?;
        let hash = hash_work(k.len());
        if hash > 0 {
            let longest = match self.longest {
                Some(n) => n,
                None => {
                    meter.add(self.other.len() as u64 / BYTES_PER_UNIT)?;
                    let n = self.other.keys().map(|k| k.len()).max().unwrap_or(0);
                    *self.longest.insert(n)
                }
            };
            if k.len() > longest {
                return Ok(Some((v, None)));
            }
            // Looking the key up in the other object hashes it.
            meter.add(hash)?;
        }
        touch(k.len());
        Ok(Some((v, self.other.get(k))))
    }
}

/// Compares `a` and `b` one level deep, charging the work of that level
/// before doing it.
#[inline]
fn step<'a, F>(a: &'a Value, b: &'a Value, meter: &mut Meter<F>) -> Result<Step<'a>, Error>
where
    F: FnMut(u64) -> Result<(), Error>,
{
    let eq = match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => a == b,
        (Value::String(a), Value::String(b)) => {
            if Arc::ptr_eq(a, b) {
                return Ok(Step::Equal);
            }
            if a.len() != b.len() {
                return Ok(Step::Unequal);
            }
            meter.add(a.len() as u64 / BYTES_PER_UNIT)?;
            touch(a.len());
            bytes_eq(a.as_bytes(), b.as_bytes())
        }
        (Value::Array(a), Value::Array(b)) => {
            if Arc::ptr_eq(a, b) {
                return Ok(Step::Equal);
            }
            if a.len() != b.len() {
                return Ok(Step::Unequal);
            }
            return Ok(Step::Descend(Pending::Items(
                a.items().iter().zip(b.items()),
            )));
        }
        (Value::Object(a), Value::Object(b)) => {
            if Arc::ptr_eq(a, b) {
                return Ok(Step::Equal);
            }
            if a.len() != b.len() {
                return Ok(Step::Unequal);
            }
            return Ok(Step::Descend(Pending::Fields(Fields {
                mine: a.map().iter(),
                other: b.map(),
                longest: None,
            })));
        }
        (Value::Regex(a), Value::Regex(b)) => {
            // Patterns are at most 32 KiB: compared whatever their length.
            meter.add(a.pattern().len().min(b.pattern().len()) as u64 / BYTES_PER_UNIT)?;
            a.pattern() == b.pattern() && a.flags() == b.flags()
        }
        (Value::Function(a), Value::Function(b)) => Arc::ptr_eq(a, b),
        _ => false,
    };
    Ok(if eq { Step::Equal } else { Step::Unequal })
}

/// Structural equality, charging its work to `meter` as it goes.
///
/// Walks nested arrays and objects with an explicit stack, never by
/// recursion, so values of any depth (a host may raise the value-depth
/// budget) cannot overflow the thread's stack.
fn equal<F>(a: &Value, b: &Value, meter: &mut Meter<F>) -> Result<bool, Error>
where
    F: FnMut(u64) -> Result<(), Error>,
{
    let mut stack: smallvec::SmallVec<[Pending<'_>; 8]> = smallvec::SmallVec::new();
    match step(a, b, meter)? {
        Step::Equal => return Ok(true),
        Step::Unequal => return Ok(false),
        Step::Descend(p) => stack.push(p),
    }
    while let Some(top) = stack.last_mut() {
        let next = match top {
            Pending::Items(pairs) => match pairs.next() {
                Some((x, y)) => {
                    meter.add(1)?;
                    Some((x, Some(y)))
                }
                None => None,
            },
            Pending::Fields(fields) => fields.next(meter)?,
        };
        match next {
            None => {
                stack.pop();
            }
            Some((_, None)) => return Ok(false),
            Some((x, Some(y))) => match step(x, y, meter)? {
                Step::Equal => {}
                Step::Unequal => return Ok(false),
                Step::Descend(p) => stack.push(p),
            },
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn fuel_error() -> Error {
        Error::new(ErrorKind::Fuel, "Fuel budget exhausted: out of fuel")
    }

    /// `a == b` under a budget of `limit` units: the result and the units charged.
    fn metered(a: &Value, b: &Value, limit: u64) -> (Result<bool, Error>, u64) {
        let mut used = 0u64;
        let r = a.eq_metered(b, |units| {
            used = used.saturating_add(units);
            if used > limit {
                Err(fuel_error())
            } else {
                Ok(())
            }
        });
        (r, used)
    }

    #[test]
    fn a_long_string_pair_is_charged_before_it_is_read() {
        let a = Value::from("x".repeat(1 << 20));
        let b = Value::from("x".repeat(1 << 20));
        touched::take();
        let (r, used) = metered(&a, &b, 1000);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Fuel);
        assert_eq!(used, (1 << 20) / BYTES_PER_UNIT);
        assert_eq!(touched::take(), 0, "nothing read past the budget");
        let (r, used) = metered(&a, &b, u64::MAX);
        assert!(r.unwrap());
        assert_eq!(used, (1 << 20) / BYTES_PER_UNIT);
        assert_eq!(touched::take(), 1 << 20);
    }

    #[test]
    fn structural_equality_costs_what_it_visits() {
        let strings = |tail: &str| {
            Value::array(
                (0..100)
                    .map(|i| Value::from(format!("{}{i}{tail}", "k".repeat(1000))))
                    .collect(),
            )
        };
        let (a, b) = (strings(""), strings(""));
        touched::take();
        let (r, used) = metered(&a, &b, u64::MAX);
        assert!(r.unwrap());
        let read = touched::take();
        assert!(read >= 100 * 1000, "{read}");
        // One unit per element and one per 16 bytes read, nothing hidden.
        assert!(
            used >= 100 + read / BYTES_PER_UNIT - 100,
            "{used} for {read}"
        );
        // Unequal at the first element: the walk stops there.
        let c = strings("!");
        let (r, used) = metered(&a, &c, u64::MAX);
        assert!(!r.unwrap());
        assert!(used < 100, "{used}");
        // Shared values cost nothing whatever their size.
        let (r, used) = metered(&a, &a.clone(), u64::MAX);
        assert!(r.unwrap());
        assert_eq!(used, 0);
        // Under a small budget, the walk stops within a batch of it.
        let (r, used) = metered(&a, &b, 500);
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Fuel);
        assert!(used <= 500 + BATCH + 1000 / BYTES_PER_UNIT, "{used}");
        assert!(touched::take() <= (500 + BATCH) * BYTES_PER_UNIT + 1000);
    }

    #[test]
    fn objects_are_charged_for_their_keys() {
        let key = "k".repeat(4096);
        let object = |v: f64| {
            let mut m = Map::default();
            m.insert(Key::from(key.as_str()), Value::from(v));
            Value::object(m)
        };
        let (r, used) = metered(&object(1.0), &object(1.0), u64::MAX);
        assert!(r.unwrap());
        assert_eq!(used, 1 + 4096 / BYTES_PER_UNIT);
    }

    #[test]
    fn a_key_longer_than_every_key_of_the_other_object_is_not_hashed() {
        let object = |keys: &[String]| {
            let m: Map = keys
                .iter()
                .map(|k| (Key::from(k.as_str()), Value::from(1.0)))
                .collect();
            Value::object(m)
        };
        let long = object(&["k".repeat(1 << 20), "a".into()]);
        let short = object(&["a".into(), "b".repeat(20)]);
        for (a, b) in [(&long, &short), (&short, &long)] {
            touched::take();
            let (r, used) = metered(a, b, u64::MAX);
            assert!(!r.unwrap());
            assert!(used <= 4, "used {used}");
            assert!(touched::take() <= 64, "the long key was read");
        }
    }

    #[test]
    fn text_order_reads_nothing_of_a_shared_string() {
        let s: Key = Key::from("x".repeat(10_000));
        let t: Key = Key::from("x".repeat(10_000));
        touched::take();
        assert_eq!(text_order(&s, &s.clone()), Ordering::Equal);
        assert_eq!(text_order_work(&s, &s.clone()), 0);
        assert_eq!(touched::take(), 0);
        assert_eq!(text_order(&s, &t), Ordering::Equal);
        assert_eq!(text_order_work(&s, &t), 10_000 / BYTES_PER_UNIT);
        assert_eq!(touched::take(), 10_000);
        assert_eq!(text_eq_work(&s, &t[1..]), 0);
    }
}
