//! What built-ins reach of a run ([`Runtime`]): calls back into the VM,
//! the budgets, the clock, `random()` and the run-time regex cache.

use std::sync::Arc;

use super::closures::Shape;
use super::errors::{internal, not_callable};
use super::{COMPILED_BYTES_PER_FUEL, Exec, NATIVE_CALL_CEILING};
use crate::error::{Error, ErrorKind};
use crate::function::Function;
use crate::limits::Clock;
use crate::runtime::Runtime;
use crate::stdlib;
use crate::value::{Regex, Value};

/// The state of `random()` in one run.
#[derive(Debug, Default, Clone, Copy)]
pub(super) enum Rng {
    /// `random()` is an error.
    #[default]
    Off,
    /// Not yet seeded: the first call takes a seed from the VM's entropy stream.
    Entropy,
    /// SplitMix64 state.
    On(u64),
}

/// The next number of a SplitMix64 stream.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An unpredictable seed: the standard library's per-process random keys
/// (from the operating system) hashed with the current time. Where the
/// target has neither (`wasm32-unknown-unknown`: fixed keys, no clock) it
/// is predictable: embedders there pass a seed with each run (`xpr-wasm`
/// does, from the host's random source).
#[cold]
fn entropy_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(crate::stopwatch::system_time_ms().map(f64::to_bits))
}

impl Runtime for Exec<'_> {
    fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error> {
        self.vm.fuel(1)?;
        let Value::Function(func) = f else {
            return Err(not_callable(f));
        };
        match &**func {
            Function::Closure(c) => {
                if self.native >= NATIVE_CALL_CEILING {
                    return Err(Error::new(ErrorKind::Depth, "Call depth limit exceeded"));
                }
                if let Some(shape) = Shape::of(c) {
                    return self.call_shape(c, shape, args.first());
                }
                let (stack, frames, marks, depth) = (
                    self.vm.stack.len(),
                    self.vm.frames.len(),
                    self.vm.marks.len(),
                    self.vm.budget.depth,
                );
                // No callee slot: the frame runs the lent closure.
                match args {
                    [one] => self.vm.stack.push(one.clone()),
                    _ => self.vm.stack.extend(args.iter().cloned()),
                }
                self.native += 1;
                let r = self
                    .enter_closure(func, stack, false)
                    .and_then(|()| self.execute(frames, &c.program, &c.captures));
                self.native -= 1;
                if r.is_err() {
                    self.vm.stack.truncate(stack);
                    self.vm.frames.truncate(frames);
                    self.vm.marks.truncate(marks);
                    self.vm.budget.depth = depth;
                }
                r
            }
            Function::Builtin(id) => self.call_builtin(*id, args),
            Function::Host(h) => self.call_host(h, args),
        }
    }

    fn fuel(&mut self, units: u64) -> Result<(), Error> {
        self.vm.fuel(units)
    }

    fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
        self.vm.alloc(bytes)
    }

    fn check_depth(&self, depth: u32) -> Result<(), Error> {
        self.vm.check_depth(depth)
    }

    fn now(&mut self) -> Result<f64, Error> {
        if let Some(now) = self.vm.budget.now {
            return Ok(now);
        }
        let now = match &self.vm.clock {
            Clock::System => crate::stopwatch::system_time_ms().ok_or_else(|| {
                Error::new(ErrorKind::Value, "now() has no system clock on this target")
                    .with_hint("the embedder gives the engine a clock (Clock::Custom)")
            })?,
            Clock::Fixed(ms) => *ms,
            Clock::Custom(f) => f(),
            Clock::Disabled => {
                return Err(Error::new(
                    ErrorKind::Value,
                    "now() is disabled in this run",
                ));
            }
        };
        if !now.is_finite() {
            return Err(Error::new(
                ErrorKind::Value,
                "the clock returned a non-finite time",
            ));
        }
        self.vm.budget.now = Some(now);
        Ok(now)
    }

    fn random(&mut self) -> Result<f64, Error> {
        let state = match &mut self.vm.budget.rng {
            Rng::On(state) => state,
            Rng::Off => {
                return Err(Error::new(
                    ErrorKind::Value,
                    "random() is disabled in this run",
                ));
            }
            Rng::Entropy => {
                // This run's seed: the next number of the VM's stream, whose
                // own seed is read from the operating system once per VM.
                let stream = self.vm.entropy.get_or_insert_with(entropy_seed);
                let seed = splitmix64(stream);
                self.vm.budget.rng = Rng::On(seed);
                match &mut self.vm.budget.rng {
                    Rng::On(state) => state,
                    _ => return Err(internal("random state")),
                }
            }
        };
        let z = splitmix64(state);
        Ok((z >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error> {
        // Looking the pattern up compares its text with each cached one of
        // the same length: charged per byte, like any text a built-in reads.
        self.vm.fuel(self.vm.regexes.lookup_fuel(pattern))?;
        if let Some(r) = self.vm.regexes.get(pattern, flags) {
            return Ok(r);
        }
        // A miss: paid for before anything is compiled, then measured
        // within the memory the run has left, then charged for its
        // compiled size (fuel and memory) before the crate builds it.
        self.vm.fuel(stdlib::regex::compile_fuel(pattern))?;
        let b = &self.vm.budget;
        let left = b
            .memory_limit
            .map_or(u64::MAX, |limit| limit.saturating_sub(b.memory_used));
        let prepared = stdlib::regex::prepare(pattern, flags, left).map_err(|r| match r {
            stdlib::regex::Refusal::Invalid(e) => e,
            stdlib::regex::Refusal::OverAllowance => {
                Error::new(ErrorKind::Memory, "Memory limit exceeded")
            }
        })?;
        let bytes = prepared.compiled_bytes();
        self.vm.fuel(bytes / COMPILED_BYTES_PER_FUEL)?;
        self.vm.alloc(bytes)?;
        let r = Arc::new(prepared.build()?);
        self.vm.regexes.insert(pattern, flags, r.clone());
        Ok(r)
    }
}
