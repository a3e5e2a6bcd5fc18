//! Stand-ins for the unit tests of the array built-ins (tests only): a
//! runtime that calls host functions, host functions standing in for arrow
//! functions, and shorthands that call a method or `range` through the
//! registry.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use crate::error::{Error, ErrorKind};
use crate::function::{Arity, Function, HostError, HostFunction, Meter};
use crate::runtime::Runtime;
use crate::stdlib::testing::TestRuntime;
use crate::stdlib::{call_function, call_method, function_id, method_id};
use crate::value::{Regex, Value};

/// A [`TestRuntime`] that can also call host functions, which stand in
/// for arrow functions here (closures need the VM and the compiler).
#[derive(Default)]
pub(super) struct Rt {
    pub(super) inner: TestRuntime,
}

impl Rt {
    pub(super) fn limited(fuel: Option<u64>, memory: Option<u64>) -> Self {
        Rt {
            inner: TestRuntime {
                fuel_limit: fuel,
                memory_limit: memory,
                ..TestRuntime::default()
            },
        }
    }
}

impl Runtime for Rt {
    fn call(&mut self, f: &Value, args: &[Value]) -> Result<Value, Error> {
        if let Value::Function(func) = f
            && let Function::Host(h) = &**func
        {
            self.inner.fuel(1)?;
            let mut meter = Meter::default();
            let out = (h.callback)(&mut meter, args).map_err(|e| Error::new(ErrorKind::Host, e.0));
            self.inner.fuel(meter.charged())?;
            return out;
        }
        self.inner.call(f, args)
    }
    fn fuel(&mut self, units: u64) -> Result<(), Error> {
        self.inner.fuel(units)
    }
    fn alloc(&mut self, bytes: u64) -> Result<(), Error> {
        self.inner.alloc(bytes)
    }
    fn check_depth(&self, depth: u32) -> Result<(), Error> {
        self.inner.check_depth(depth)
    }
    fn now(&mut self) -> Result<f64, Error> {
        self.inner.now()
    }
    fn random(&mut self) -> Result<f64, Error> {
        self.inner.random()
    }
    fn regex(&mut self, pattern: &str, flags: &str) -> Result<Arc<Regex>, Error> {
        self.inner.regex(pattern, flags)
    }
}

/// A function value running `f` (a stand-in for an arrow function).
pub(super) fn lam(f: impl Fn(&[Value]) -> Result<Value, String> + Send + Sync + 'static) -> Value {
    Value::Function(Arc::new(Function::Host(Arc::new(HostFunction {
        name: "lambda".into(),
        arity: Arity::AtLeast(0),
        fuel_per_call: 0,
        meters: true,
        callback: Arc::new(move |_: &mut Meter, args: &[Value]| f(args).map_err(HostError)),
    }))))
}

pub(super) fn num(v: &Value) -> f64 {
    v.as_number().unwrap_or(f64::NAN)
}

pub(super) fn arg0(args: &[Value]) -> Value {
    args.first().cloned().unwrap_or(Value::Null)
}

/// A function value running `f` (as [`lam`]) and the count of its calls.
pub(super) fn counted(
    f: impl Fn(&[Value]) -> Result<Value, String> + Send + Sync + 'static,
) -> (Value, Arc<AtomicU64>) {
    let calls = Arc::new(AtomicU64::new(0));
    let c = calls.clone();
    let func = lam(move |a| {
        c.fetch_add(1, AtomicOrdering::SeqCst);
        f(a)
    });
    (func, calls)
}

/// `x => x`
pub(super) fn identity() -> Value {
    lam(|a| Ok(arg0(a)))
}

/// `x => x * k`
pub(super) fn times(k: f64) -> Value {
    lam(move |a| Ok(Value::Number(num(&arg0(a)) * k)))
}

/// `x => x > k`
pub(super) fn above(k: f64) -> Value {
    lam(move |a| Ok(Value::Bool(num(&arg0(a)) > k)))
}

/// `x => x.field`
pub(super) fn field(name: &'static str) -> Value {
    lam(move |a| {
        Ok(arg0(a)
            .as_object()
            .and_then(|o| o.get(name).cloned())
            .unwrap_or(Value::Null))
    })
}

/// `(a, b) => a - b`
pub(super) fn ascending() -> Value {
    lam(|a| Ok(Value::Number(num(&a[0]) - num(&a[1]))))
}

pub(super) fn j(v: serde_json::Value) -> Value {
    Value::from_json(&v).unwrap()
}

pub(super) fn call(rt: &mut Rt, recv: &Value, name: &str, args: &[Value]) -> Result<Value, Error> {
    let id = method_id(name).unwrap_or_else(|| panic!("no method {name}"));
    call_method(rt, id, recv, args)
}

pub(super) fn ok(recv: serde_json::Value, name: &str, args: &[Value]) -> Value {
    let mut rt = Rt::default();
    call(&mut rt, &j(recv), name, args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub(super) fn err(recv: serde_json::Value, name: &str, args: &[Value]) -> Error {
    let mut rt = Rt::default();
    match call(&mut rt, &j(recv), name, args) {
        Ok(v) => panic!("{name} should fail, got {v:?}"),
        Err(e) => e,
    }
}

/// `range(...args)` on `rt`.
pub(super) fn range_in(rt: &mut Rt, args: &[f64]) -> Result<Value, Error> {
    let args: Vec<Value> = args.iter().map(|&n| Value::Number(n)).collect();
    call_function(rt, function_id("range").unwrap(), &args)
}

pub(super) fn range_of(args: &[f64]) -> Result<Value, Error> {
    range_in(&mut Rt::default(), args)
}

/// The string field `name` of each object of the array `v`.
pub(super) fn field_strs<'a>(v: &'a Value, name: &str) -> Vec<&'a str> {
    v.as_array()
        .unwrap()
        .items()
        .iter()
        .map(|o| o.as_object().unwrap().get(name).unwrap().as_str().unwrap())
        .collect()
}

/// The keys of the object `v`, in order.
pub(super) fn key_strs(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().map().keys().map(|k| &**k).collect()
}

pub(super) fn deep(levels: u32) -> Value {
    let mut v = Value::Null;
    for _ in 0..levels {
        v = Value::array(vec![v]);
    }
    v
}
