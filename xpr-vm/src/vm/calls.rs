//! Calls of global names: the context is asked first (the spec's
//! resolution order: context always wins), then the function the compiler
//! found, else `Unknown function` (an evaluation error, raised only when the
//! call is reached).
//!
//! A call of a built-in or host function (`Op::CallBuiltin`, `Op::CallHost`)
//! asks the context by the name's precomputed hash; the names it lacks (the
//! usual case) are remembered in the VM's per-run bitset `absent`, so later
//! calls in the same run cost a bit test.

use super::{Exec, Flow, internal};
use crate::context::Field;
use crate::error::{Error, ErrorKind};
use crate::function::Function;
use crate::program::{Otherwise, Program};
use crate::value::Value;

/// Calling the context's variable `name`, which is no function. `shadows`
/// names the kind of function of that name the variable hides, if any.
#[cold]
fn not_callable_name(name: &str, v: &Value, shadows: Option<&str>) -> Error {
    let hint = match shadows {
        Some(kind) => format!(" (the context variable '{name}' shadows the {kind} function)"),
        None => String::new(),
    };
    Error::type_error(format_args!(
        "Cannot call non-function '{name}': {} is not callable{hint}",
        v.type_name()
    ))
}

#[cold]
fn unknown_function(message: &str) -> Error {
    Error::new(ErrorKind::Reference, message)
}

impl Exec<'_> {
    /// The context's variable named as global `g`, which the program calls:
    /// `None` when the context has none (the usual case, and then the
    /// function of that name is called). A name found missing is
    /// remembered for the rest of the run (main program only), so a call
    /// in a loop asks the context once.
    #[inline]
    pub(super) fn shadow(&mut self, program: &Program, g: u16) -> Result<Option<Value>, Error> {
        let main = program.ptr_eq(self.main);
        if main
            && let Some(word) = self.vm.absent.get(usize::from(g) / 64)
            && word & (1 << (g % 64)) != 0
        {
            return Ok(None);
        }
        self.lookup_callee(program, g, main)
    }

    /// [`Exec::shadow`] when the answer is not remembered: one context
    /// lookup by the name's precomputed hash.
    #[inline(never)]
    fn lookup_callee(
        &mut self,
        program: &Program,
        g: u16,
        main: bool,
    ) -> Result<Option<Value>, Error> {
        let g = usize::from(g);
        let (Some(global), Some(&hash)) = (
            program.parts().globals.get(g),
            program.global_hashes().get(g),
        ) else {
            return Err(internal("no global"));
        };
        if main && let Some(Some(v)) = self.vm.globals.get(g) {
            return Ok(Some(v.clone()));
        }
        Ok(match self.ctx.lookup(&global.name, hash) {
            Some(Field::Borrowed(v)) => Some(v.clone()),
            Some(Field::Owned(v)) => Some(v),
            Some(Field::Str(s)) => Some(Value::from(s)),
            None => {
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
                None
            }
        })
    }

    /// Calls `f`, the context's variable named as global `g`, with the
    /// arguments from stack position `pos` up (a name the program calls:
    /// the context wins over the `shadows` function of that name).
    pub(super) fn call_shadowing(
        &mut self,
        program: &Program,
        g: u16,
        f: Value,
        pos: usize,
        shadows: Option<&str>,
    ) -> Result<Flow, Error> {
        if !matches!(f, Value::Function(_)) {
            let name = program
                .parts()
                .globals
                .get(usize::from(g))
                .map_or("?", |g| &*g.name);
            return Err(not_callable_name(name, &f, shadows));
        }
        let pos = pos.min(self.vm.stack.len());
        self.vm.stack.insert(pos, f);
        self.call_at(pos)
    }

    /// [`Op::CallGlobal`]: the context's variable, else a pipe target's
    /// method, else `Unknown function`.
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
        if let Some(f) = self.shadow(program, g)? {
            return self.call_shadowing(program, g, f, pos, None);
        }
        match &c.otherwise {
            Otherwise::Method(m) => self.call_method(program, *m, pos),
            Otherwise::Unknown(message) => Err(unknown_function(message)),
            Otherwise::Function(_) => Err(internal("a function's call is CallBuiltin")),
        }
    }

    /// [`Op::LoadCallee`]: the callee of `name?.(...)`.
    pub(super) fn load_callee(&mut self, program: &Program, call: u16) -> Result<Value, Error> {
        let Some(c) = program.parts().calls.get(usize::from(call)) else {
            return Err(internal("no call"));
        };
        let g = u16::try_from(c.global).map_err(|_| internal("global out of range"))?;
        match (self.shadow(program, g)?, &c.otherwise) {
            (Some(f @ (Value::Null | Value::Function(_))), _) => Ok(f),
            (Some(other), otherwise) => {
                let name = program
                    .parts()
                    .globals
                    .get(usize::from(g))
                    .map_or("?", |g| &*g.name);
                let shadows = match otherwise {
                    Otherwise::Function(Value::Function(f)) => match **f {
                        Function::Host(_) => Some("host"),
                        _ => Some("built-in"),
                    },
                    _ => None,
                };
                Err(not_callable_name(name, &other, shadows))
            }
            (None, Otherwise::Function(f)) => Ok(f.clone()),
            (None, Otherwise::Unknown(message)) => Err(unknown_function(message)),
            (None, Otherwise::Method(_)) => Err(internal("an optional call has no method")),
        }
    }
}
