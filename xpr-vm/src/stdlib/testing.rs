//! A stand-in [`Runtime`] for the standard library's unit tests: unlimited
//! budgets that count what is charged, a fixed clock and a fixed random
//! sequence, and calls of built-in and host function values only (closures
//! need the VM; host functions stand in for them).

use std::sync::Arc;

use crate::error::{Error, ErrorKind};
use crate::function::Function;
use crate::runtime::Runtime;
use crate::value::{Regex, Value};

/// Counts fuel and memory; optionally fails past a limit.
#[derive(Debug, Default)]
pub(crate) struct TestRuntime {
    pub fuel_used: u64,
    pub bytes_used: u64,
    pub fuel_limit: Option<u64>,
    pub memory_limit: Option<u64>,
    pub now_ms: f64,
    pub random_state: u64,
}

impl Runtime for TestRuntime {
    fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error> {
        self.fuel(1)?;
        match f {
            Value::Function(func) => match &**func {
                Function::Builtin(id) => super::call_function(self, *id, args),
                Function::Host(h) => {
                    let mut meter = crate::function::Meter::default();
                    let out = (h.callback)(&mut meter, args)
                        .map_err(|e| Error::new(ErrorKind::Host, e.0));
                    self.fuel(meter.charged())?;
                    out
                }
                _ => Err(Error::new(
                    ErrorKind::Type,
                    "TestRuntime calls built-ins only",
                )),
            },
            other => Err(Error::type_error(format_args!(
                "Cannot call non-function: {} is not callable",
                other.type_name()
            ))),
        }
    }

    fn fuel(&mut self, units: u64) -> Result<(), Error> {
        self.fuel_used = self.fuel_used.saturating_add(units);
        match self.fuel_limit {
            Some(limit) if self.fuel_used > limit => {
                Err(Error::new(ErrorKind::Fuel, "Out of fuel"))
            }
            _ => Ok(()),
        }
    }

    fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
        let next = self.bytes_used.saturating_add(bytes);
        match self.memory_limit {
            Some(limit) if next > limit => {
                Err(Error::new(ErrorKind::Memory, "Memory limit exceeded"))
            }
            _ => {
                self.bytes_used = next;
                Ok(())
            }
        }
    }

    fn check_depth(&self, depth: u32) -> Result<(), Error> {
        if depth > 1000 {
            Err(Error::new(ErrorKind::Depth, "Value depth limit exceeded"))
        } else {
            Ok(())
        }
    }

    fn now(&mut self) -> Result<f64, Error> {
        Ok(self.now_ms)
    }

    fn random(&mut self) -> Result<f64, Error> {
        self.random_state = self
            .random_state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        Ok((self.random_state >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error> {
        super::regex::compile(pattern, flags).map(Arc::new)
    }
}
