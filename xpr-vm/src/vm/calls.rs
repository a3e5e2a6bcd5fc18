//! Calls: a function value at a stack position (a closure enters a frame,
//! a built-in or host function runs at once), built-in and host functions
//! (a host function metered, its panic caught), methods (a function in the
//! receiver's field first), and calls of global names.
//!
//! A global name called is looked up in the context first, then the
//! function the compiler found, else `Unknown function` (an evaluation
//! error, raised only when the call is reached).
//!
//! A context value hides a built-in or host function (or, for a pipe
//! target, the method) of its name only when it is itself a function: a
//! record's field `type`, `count` or `max` never turns `type(x)` into an
//! error. A name that is no function at all is the context's value, called
//! (and an error when it is not callable).
//!
//! A call of a built-in or host function (`Op::CallBuiltin`, `Op::CallHost`)
//! asks the context by the name's precomputed hash; the names under which
//! it has no function (the usual case) are remembered in the VM's per-run
//! bitset `absent`, so later calls in the same run cost a bit test.

use super::errors::{internal, not_callable};
use super::{Exec, Flow, HOST_CALL_LEVELS, NATIVE_OUTER, NULL, or_null};
use crate::context::Field;
use crate::error::{Error, ErrorKind};
use crate::function::{Function, HostFunction, Meter};
use crate::program::{Otherwise, Program};
use crate::stdlib;
use crate::value::Value;

/// Calling the context's variable `name`, which is no function (and no
/// function or method of that name exists).
#[cold]
fn not_callable_name(name: &str, v: &Value) -> Error {
    Error::type_error(format_args!(
        "Cannot call non-function '{name}': {} is not callable",
        v.type_name()
    ))
}

/// Which context values a call of a global name takes instead of what the
/// name means otherwise.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Hides {
    /// Only a function: the name is a built-in or host function, or a pipe
    /// target's method, called when the context's value is no function.
    Function,
    /// Any value: the name means nothing else (`Otherwise::Unknown`), so
    /// the context's value is called, or is the error.
    AnyValue,
}

impl Hides {
    /// What the context's value may hide for a call that otherwise means `otherwise`.
    fn of(otherwise: &Otherwise) -> Hides {
        match otherwise {
            Otherwise::Unknown(_) => Hides::AnyValue,
            Otherwise::Function(_) | Otherwise::Method(_) => Hides::Function,
        }
    }
}

impl Exec<'_> {
    /// Calls the function at stack position `pos` with the values above it.
    pub(super) fn call_at(&mut self, pos: usize) -> Result<Flow, Error> {
        let callee = or_null(self.vm.stack.get(pos).cloned());
        let Value::Function(func) = &callee else {
            return Err(not_callable(&callee));
        };
        match &**func {
            Function::Closure(_) => {
                self.enter_closure(func, pos + 1, true)?;
                Ok(Flow::Entered)
            }
            Function::Builtin(id) => {
                let args = self.vm.take(self.vm.stack.len().saturating_sub(pos + 1));
                self.vm.stack.truncate(pos);
                let v = self.call_builtin(*id, &args)?;
                self.vm.stack.push(v);
                Ok(Flow::Done)
            }
            Function::Host(h) => {
                let args = self.vm.take(self.vm.stack.len().saturating_sub(pos + 1));
                self.vm.stack.truncate(pos);
                let v = self.call_host(h, &args)?;
                self.vm.stack.push(v);
                Ok(Flow::Done)
            }
        }
    }

    pub(super) fn call_builtin(&mut self, id: u16, args: &[Value]) -> Result<Value, Error> {
        self.vm.enter()?;
        let r = stdlib::call_function(self, id, args);
        self.vm.leave();
        r
    }

    pub(super) fn call_host(&mut self, h: &HostFunction, args: &[Value]) -> Result<Value, Error> {
        stdlib::check_arity(&h.name, h.arity, args.len())?;
        self.vm.fuel(h.fuel_per_call)?;
        // Starts the clocks if no check has yet, so that a host function
        // blocking past the wall-clock ceiling, or using up the CPU budget,
        // is caught when it returns.
        self.vm.check_interrupts(true)?;
        self.vm.enter()?;
        let mut meter = Meter::default();
        // A run the host function starts continues this run's native count.
        let outer = NATIVE_OUTER.replace(self.native.saturating_add(HOST_CALL_LEVELS));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (h.callback)(&mut meter, args)
        }));
        NATIVE_OUTER.set(outer);
        self.vm.leave();
        // The host's own failure is reported first; budgets after.
        let v = match r {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => return Err(Error::new(ErrorKind::Host, e.0)),
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::Host,
                    format!("host function '{}' panicked", h.name),
                ));
            }
        };
        self.vm.fuel(meter.charged())?;
        self.vm.check_interrupts(true)?;
        Ok(v)
    }

    /// A method call with the receiver at stack position `pos`.
    pub(super) fn call_method(
        &mut self,
        program: &Program,
        method: u16,
        pos: usize,
    ) -> Result<Flow, Error> {
        let Some(m) = program.parts().methods.get(method as usize) else {
            return Err(internal("no method"));
        };
        let recv = self.vm.stack.get(pos).unwrap_or(&NULL);
        if let Value::Object(o) = recv
            && let Some(f @ Value::Function(_)) = o.get(&m.name)
        {
            let f = f.clone();
            if let Some(slot) = self.vm.stack.get_mut(pos) {
                *slot = f;
            }
            return self.call_at(pos);
        }
        // One registry lookup: the definition found is the one called.
        match m.id.and_then(|id| stdlib::method_def(id, recv)) {
            Some(def) => {
                let argc = self.vm.stack.len().saturating_sub(pos + 1);
                let r = if argc == 0 {
                    // No arguments (`s.upper()`): no argument list to build.
                    let recv = self.vm.pop();
                    self.vm.enter()?;
                    stdlib::call_method_def(self, def, recv, &[])
                } else {
                    let args = self.vm.take(argc);
                    let recv = self.vm.pop();
                    self.vm.enter()?;
                    stdlib::call_method_def(self, def, recv, &args)
                };
                self.vm.leave();
                self.vm.stack.push(r?);
                Ok(Flow::Done)
            }
            _ => Err(stdlib::no_such_method(&m.name, recv)),
        }
    }
}

impl Exec<'_> {
    /// The context's variable named as global `g`, which the program calls,
    /// when it takes the place of what the name means otherwise (`hides`):
    /// `None` when the context has no such value (the usual case, and then
    /// the function, method or `Unknown function` error of that name
    /// follows). A name under which the context has no function is
    /// remembered for the rest of the run (main program only), so a call
    /// of a built-in in a loop asks the context once.
    #[inline]
    pub(super) fn shadow(
        &mut self,
        program: &Program,
        g: u16,
        hides: Hides,
    ) -> Result<Option<Value>, Error> {
        let main = program.ptr_eq(self.main);
        if main
            && hides == Hides::Function
            && let Some(word) = self.vm.absent.get(usize::from(g) / 64)
            && word & (1 << (g % 64)) != 0
        {
            return Ok(None);
        }
        self.lookup_callee(program, g, main, hides)
    }

    /// [`Exec::shadow`] when the answer is not remembered: one context
    /// lookup by the name's precomputed hash.
    #[inline(never)]
    fn lookup_callee(
        &mut self,
        program: &Program,
        g: u16,
        main: bool,
        hides: Hides,
    ) -> Result<Option<Value>, Error> {
        let g = usize::from(g);
        let (Some(global), Some(&hash)) = (
            program.parts().globals.get(g),
            program.global_hashes().get(g),
        ) else {
            return Err(internal("no global"));
        };
        let found = if main && let Some(Some(v)) = self.vm.globals.get(g) {
            Some(v.clone())
        } else {
            match self.ctx.lookup(&global.name, hash) {
                Some(Field::Borrowed(v)) => Some(v.clone()),
                Some(Field::Owned(v)) => Some(v),
                Some(Field::Str(s)) => Some(Value::from(s)),
                None => None,
            }
        };
        if let Some(v @ Value::Function(_)) = found {
            return Ok(Some(v));
        }
        // No function under this name in this run's context: remembered
        // (the context cannot change during a run).
        if main {
            let absent = &mut self.vm.absent;
            let n = program.parts().globals.len().div_ceil(64);
            if absent.len() < n {
                absent.resize(n, 0);
            }
            if let Some(word) = absent.get_mut(g / 64) {
                *word |= 1 << (g % 64);
            }
        }
        Ok(match hides {
            Hides::AnyValue => found,
            Hides::Function => None,
        })
    }

    /// Calls `f`, the context's variable named as global `g`, with the
    /// arguments from stack position `pos` up (a name the program calls,
    /// found in the context by [`Exec::shadow`]).
    pub(super) fn call_shadowing(
        &mut self,
        program: &Program,
        g: u16,
        f: Value,
        pos: usize,
    ) -> Result<Flow, Error> {
        if !matches!(f, Value::Function(_)) {
            return Err(not_callable_name(global_name(program, g), &f));
        }
        let pos = pos.min(self.vm.stack.len());
        self.vm.stack.insert(pos, f);
        self.call_at(pos)
    }

    /// [`Op::CallGlobal`]: the context's variable (a function, for a pipe
    /// target that is a method), else a pipe target's method, else
    /// `Unknown function`.
    pub(super) fn call_global(
        &mut self,
        program: &Program,
        call: u16,
        pos: usize,
    ) -> Result<Flow, Error> {
        let Some(c) = program.parts().calls.get(usize::from(call)) else {
            return Err(internal("no call"));
        };
        let g = u16::try_from(c.global).map_err(|_| internal("global out of range"))?;
        if let Some(f) = self.shadow(program, g, Hides::of(&c.otherwise))? {
            return self.call_shadowing(program, g, f, pos);
        }
        match &c.otherwise {
            Otherwise::Method(m) => self.call_method(program, *m, pos),
            Otherwise::Unknown(error) => Err(error.clone()),
            Otherwise::Function(_) => Err(internal("a function's call is CallBuiltin")),
        }
    }

    /// [`Op::LoadCallee`]: the callee of `name?.(...)`.
    pub(super) fn load_callee(&mut self, program: &Program, call: u16) -> Result<Value, Error> {
        let Some(c) = program.parts().calls.get(usize::from(call)) else {
            return Err(internal("no call"));
        };
        let g = u16::try_from(c.global).map_err(|_| internal("global out of range"))?;
        match (
            self.shadow(program, g, Hides::of(&c.otherwise))?,
            &c.otherwise,
        ) {
            (Some(f @ (Value::Null | Value::Function(_))), _) => Ok(f),
            (Some(other), _) => Err(not_callable_name(global_name(program, g), &other)),
            (None, Otherwise::Function(f)) => Ok(f.clone()),
            (None, Otherwise::Unknown(error)) => Err(error.clone()),
            (None, Otherwise::Method(_)) => Err(internal("an optional call has no method")),
        }
    }
}

/// The name of global `g`, for an error message.
fn global_name(program: &Program, g: u16) -> &str {
    program
        .parts()
        .globals
        .get(usize::from(g))
        .map_or("?", |g| &g.name)
}
