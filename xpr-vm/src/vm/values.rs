//! Values built by instructions: arrays, objects, spreads, templates and
//! the rests of destructuring patterns, each measured and charged (size,
//! depth, fuel) before it is built.

use std::sync::Arc;

use smallvec::SmallVec;

use super::Exec;
use super::errors::internal;
use crate::compare;
use crate::error::{Error, ErrorKind};
use crate::runtime::Runtime;
use crate::stdlib;
use crate::value::{Array, HEADER_BYTES, Key, Map, Object, SLOT_BYTES, Value};

/// Logical size and depth of an array about to be built from `items`.
pub(super) fn measure_array(items: &[Value]) -> (u64, u32) {
    let mut size = HEADER_BYTES;
    let mut depth = 0;
    for v in items {
        size = size.saturating_add(SLOT_BYTES + v.logical_size());
        depth = depth.max(v.depth());
    }
    (size, depth.saturating_add(1))
}

/// Logical size, depth and key bytes of an object about to be built from
/// key/value pairs.
fn measure_pairs(pairs: &[Value]) -> (u64, u32, u64) {
    let mut size = HEADER_BYTES;
    let mut depth = 0;
    let mut keys = 0u64;
    for pair in pairs.chunks(2) {
        if let [k, v] = pair {
            let key = k.logical_size();
            keys = keys.saturating_add(key);
            size = size.saturating_add(SLOT_BYTES + key + v.logical_size());
            depth = depth.max(v.depth());
        }
    }
    (size, depth.saturating_add(1), keys)
}

/// The most fields an object literal result is handed over as fields
/// rather than built ([`Exec::object_as_fields`]): its keys are compared
/// pairwise.
const MAX_FIELDS: usize = 16;

impl Exec<'_> {
    pub(super) fn build_array(&mut self, start: usize) -> Result<(), Error> {
        let items = self.vm.stack.get(start..).unwrap_or(&[]);
        let (size, depth) = measure_array(items);
        self.vm.check_depth(depth)?;
        self.vm.alloc(size)?;
        let items = self.vm.stack.split_off(start.min(self.vm.stack.len()));
        self.vm
            .stack
            .push(Value::Array(Arc::new(Array::new(items))));
        Ok(())
    }

    /// Measures and charges the object about to be built from the
    /// key/value pairs at `start..` of the stack (depth, memory, and fuel
    /// for hashing the keys): its field count, logical size and depth.
    fn charge_object(&mut self, start: usize) -> Result<(usize, u64, u32), Error> {
        let pairs = self.vm.stack.get(start..).unwrap_or(&[]);
        let (size, depth, key_bytes) = measure_pairs(pairs);
        let n = pairs.len() / 2;
        self.vm.check_depth(depth)?;
        self.vm.alloc(size)?;
        // Inserting hashes every key (spread objects bring long ones).
        let work = key_bytes / compare::BYTES_PER_UNIT;
        if work > 0 {
            self.vm.fuel(work)?;
        }
        Ok((n, size, depth))
    }

    pub(super) fn build_object(&mut self, start: usize) -> Result<(), Error> {
        let start = start.min(self.vm.stack.len());
        let (n, size, depth) = self.charge_object(start)?;
        let mut map = Map::with_capacity_and_hasher(n, Default::default());
        // Values taken by index, not as a drained iterator's pairs of
        // `Option<Value>`: building those options stalled each move on a
        // store-to-load forward (a tenth of a small object's cost).
        let stack = &mut self.vm.stack;
        let mut i = start;
        while i + 1 < stack.len() {
            let k = std::mem::replace(&mut stack[i], Value::Null);
            let v = std::mem::replace(&mut stack[i + 1], Value::Null);
            if let Value::String(k) = k {
                map.insert(k, v);
            }
            i += 2;
        }
        stack.truncate(start);
        // Measured above, unless a repeated key replaced a value.
        let object = if map.len() == n {
            Object::measured(map, size, depth)
        } else {
            Object::new(map)
        };
        stack.push(Value::Object(Arc::new(object)));
        Ok(())
    }

    /// The main program's result object literal, in a run of
    /// [`Vm::run_fields`](super::Vm::run_fields): charged exactly as
    /// [`Exec::build_object`] charges it, then its pairs moved to the VM's
    /// `fields` and null left in its place, so that the host reads the
    /// fields without the object being built. `Ok(false)`, nothing done,
    /// unless it has 1 to [`MAX_FIELDS`] keys, all distinct.
    #[inline(never)]
    pub(super) fn object_as_fields(&mut self, start: usize) -> Result<bool, Error> {
        let start = start.min(self.vm.stack.len());
        let pairs = self.vm.stack.get(start..).unwrap_or(&[]);
        let n = pairs.len() / 2;
        if n == 0 || n > MAX_FIELDS {
            return Ok(false);
        }
        // One pass: every key a string, none equal to one before it
        // (compared as the same shared string first: a literal's keys are
        // constants, so distinct keys are distinct strings, differing in
        // length or bytes at once), and the object measured as
        // `measure_pairs` measures it. Nothing is charged unless every key
        // passes.
        let (mut size, mut depth, mut key_bytes) = (HEADER_BYTES, 0, 0u64);
        for i in 0..n {
            let (Some(Value::String(k)), Some(v)) = (pairs.get(2 * i), pairs.get(2 * i + 1)) else {
                return Ok(false);
            };
            for j in 0..i {
                if let Some(Value::String(other)) = pairs.get(2 * j)
                    && (Arc::ptr_eq(k, other) || **k == **other)
                {
                    return Ok(false);
                }
            }
            let key = k.len() as u64;
            key_bytes = key_bytes.saturating_add(key);
            size = size.saturating_add(SLOT_BYTES + key + v.logical_size());
            depth = depth.max(v.depth());
        }
        // Charged as `charge_object` charges.
        self.vm.check_depth(depth.saturating_add(1))?;
        self.vm.alloc(size)?;
        let work = key_bytes / compare::BYTES_PER_UNIT;
        if work > 0 {
            self.vm.fuel(work)?;
        }
        let vm = &mut *self.vm;
        // Empty already after `Vm::run`'s start (tested: no call).
        if !vm.fields.is_empty() {
            vm.fields.clear();
        }
        if start == 0 {
            // The whole stack (the usual case: a main program without
            // locals): the two vectors trade places, nothing moved.
            std::mem::swap(&mut vm.fields, &mut vm.stack);
        } else {
            vm.fields.reserve(2 * n);
            for v in &mut vm.stack[start..] {
                vm.fields.push(std::mem::replace(v, Value::Null));
            }
            vm.stack.truncate(start);
        }
        vm.stack.push(Value::Null);
        Ok(true)
    }

    pub(super) fn spread_array(&mut self, v: Value, args: bool) -> Result<(), Error> {
        match &v {
            Value::Array(a) => {
                self.vm.fuel(a.len() as u64)?;
                self.vm.alloc(SLOT_BYTES.saturating_mul(a.len() as u64))?;
                self.vm.stack.extend(a.items().iter().cloned());
                Ok(())
            }
            Value::Null => Err(Error::new(ErrorKind::Value, "Cannot spread null")),
            Value::String(_) if args => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread string into arguments",
            )),
            Value::String(_) => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread string into array",
            )),
            _ if args => Err(Error::new(ErrorKind::Value, "Cannot spread non-array")),
            _ => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread non-array into array",
            )),
        }
    }

    pub(super) fn spread_object(&mut self, v: Value) -> Result<(), Error> {
        match &v {
            Value::Object(o) => {
                self.vm.fuel(o.len() as u64)?;
                self.vm
                    .alloc(2 * SLOT_BYTES.saturating_mul(o.len() as u64))?;
                for (k, v) in o.map() {
                    self.vm.stack.push(Value::String(k.clone()));
                    self.vm.stack.push(v.clone());
                }
                Ok(())
            }
            Value::Null => Err(Error::new(ErrorKind::Value, "Cannot spread null")),
            Value::Array(_) => Err(Error::new(
                ErrorKind::Value,
                "Cannot spread array into object",
            )),
            _ => Err(Error::new(ErrorKind::Value, "Cannot spread non-object")),
        }
    }

    pub(super) fn template(&mut self, n: usize) -> Result<(), Error> {
        let parts = self.vm.take(n);
        let mut texts: SmallVec<[Key; 8]> = SmallVec::new();
        for p in parts {
            match p {
                Value::String(s) => texts.push(s),
                other => match stringify(self, &other)? {
                    Value::String(s) => texts.push(s),
                    v => return Err(internal(&format!("string() returned {}", v.type_name()))),
                },
            }
        }
        let total: usize = texts.iter().map(|t| t.len()).sum();
        self.vm.alloc(total as u64)?;
        self.vm.copy_fuel(total)?;
        let mut s = String::with_capacity(total);
        for t in &texts {
            s.push_str(t);
        }
        self.vm.stack.push(Value::String(s.into()));
        Ok(())
    }

    pub(super) fn object_rest(&mut self, keys: &[Key]) -> Result<(), Error> {
        let src = self.vm.peek().clone();
        let v = match &src {
            Value::Object(o) => {
                // A unit per field, and the hashing of its key (looked up
                // among the named keys, then inserted into the copy).
                let key_bytes: u64 = o.map().keys().map(|k| k.len() as u64).sum();
                self.vm
                    .fuel((o.len() as u64).saturating_add(key_bytes / compare::BYTES_PER_UNIT))?;
                // A pattern may name thousands of keys: look them up in a
                // set, not by a scan of the list per field.
                let set: Option<std::collections::HashSet<&str>> =
                    (keys.len() > 8).then(|| keys.iter().map(|k| &**k).collect());
                let kept = |k: &Key| match &set {
                    Some(set) => !set.contains(&**k),
                    None => !keys.contains(k),
                };
                // Charged before the copy is built (the size Object::new computes).
                let size =
                    o.map()
                        .iter()
                        .filter(|(k, _)| kept(k))
                        .fold(HEADER_BYTES, |acc, (k, v)| {
                            acc.saturating_add(SLOT_BYTES + k.len() as u64 + v.logical_size())
                        });
                self.vm.alloc(size)?;
                let map: Map = o
                    .map()
                    .iter()
                    .filter(|(k, _)| kept(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                Value::Object(Arc::new(Object::new(map)))
            }
            _ => {
                self.vm.alloc(HEADER_BYTES)?;
                Value::object(Map::default())
            }
        };
        self.vm.stack.push(v);
        Ok(())
    }

    pub(super) fn array_rest(&mut self, from: usize) -> Result<(), Error> {
        let src = self.vm.peek().clone();
        let part = match &src {
            Value::Array(a) => a.items().get(from..).unwrap_or(&[]),
            _ => &[],
        };
        // Charged before the copy is built.
        self.vm.fuel(part.len() as u64)?;
        let (size, _) = measure_array(part);
        self.vm.alloc(size)?;
        self.vm.stack.push(Value::array(part.to_vec()));
        Ok(())
    }
}

/// Converts a value to a string as the built-in `string()` does (templates).
fn stringify(rt: &mut dyn Runtime, v: &Value) -> Result<Value, Error> {
    static STRING: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    match STRING.get_or_init(|| stdlib::function_id("string")) {
        Some(id) => stdlib::call_function(rt, *id, std::slice::from_ref(v)),
        None => {
            let mut s = String::new();
            crate::program::show_value(v, &mut s);
            Ok(Value::String(s.into()))
        }
    }
}
