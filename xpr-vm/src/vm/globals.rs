//! Context names: a global read from the context (lent, built and kept
//! for the run, or lent as text), else its fallback, else `Unknown
//! identifier`; a chain of field reads on a global answered by the
//! context at once.

use super::errors::{internal, unknown_identifier, value_too_deep};
use super::{Exec, NULL, Vm};
use crate::context::{Context, Field};
use crate::error::Error;
use crate::program::{Op, Program};
use crate::value::Value;

/// The most fields of a chain one [`Context::lookup_path`] call covers
/// (the rest of a longer chain is read step by step).
pub(super) const PATH_STEPS: usize = 8;

/// Where the value of a global read lies (see `Exec::global`).
#[derive(Clone, Copy)]
pub(super) enum Found<'p> {
    /// In the context (lent) or in the program (a fallback).
    Borrowed(&'p Value),
    /// In the VM's per-run cache of built context values, at the global's index.
    Cached,
    /// In the VM's scratch slot.
    Scratch,
    /// Text in the context, not yet built into a value.
    Text(&'p str),
}

impl Vm {
    /// The value a [`Found`] for global `g` designates.
    #[inline]
    pub(super) fn found<'v>(&'v self, found: Found<'v>, g: u32) -> &'v Value {
        match found {
            Found::Borrowed(v) => v,
            Found::Cached => self
                .globals
                .get(g as usize)
                .and_then(Option::as_ref)
                .unwrap_or(&NULL),
            Found::Scratch => self.scratch.as_ref().unwrap_or(&NULL),
            // Compared as text, or built into a value, by the caller.
            Found::Text(_) => &NULL,
        }
    }
}

impl<'a> Exec<'a> {
    /// Resolves global `g` of `program`: the context's variable, else the
    /// global's fallback, else `Unknown identifier`.
    ///
    /// A context that lends its values is asked on every read (a lookup
    /// by precomputed hash, nothing copied). A value the context builds is
    /// kept in the VM for the rest of the run ([`Found::Cached`]): the
    /// context is asked once per variable and run, since building may be
    /// costly (a `serde_json` context converts the field). Only the main
    /// program's reads are kept; a closure from another program (handed in
    /// by the host) asks the context every time.
    // Always inlined into the dispatch loop in optimised builds (-9% of
    // the instructions of case a); only hinted in debug builds, whose
    // unoptimised dispatch frame would otherwise outgrow what
    // NATIVE_CALL_CEILING is calibrated for.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(super) fn global<'p>(&mut self, program: &'p Program, g: u32) -> Result<Found<'p>, Error>
    where
        'a: 'p,
    {
        let ctx: &'a dyn Context = self.ctx;
        let (Some(global), Some(&hash)) = (
            program.parts().globals.get(g as usize),
            program.global_hashes().get(g as usize),
        ) else {
            return Err(internal("no global"));
        };
        let main = program.ptr_eq(self.main);
        if main && let Some(Some(_)) = self.vm.globals.get(g as usize) {
            return Ok(Found::Cached);
        }
        let found = if main {
            if self.vm.hints.len() <= g as usize {
                self.vm.hints.resize(g as usize + 1, 0);
            }
            let hint = &mut self.vm.hints[g as usize];
            ctx.lookup_hinted(&global.name, hash, hint)
        } else {
            ctx.lookup(&global.name, hash)
        };
        match found {
            Some(Field::Borrowed(v)) => {
                // Host data nested deeper than the value-depth budget is
                // refused when read, so no recursive operation (equality,
                // conversion to text) ever walks it.
                if v.depth() > self.vm.budget.value_depth {
                    return Err(value_too_deep());
                }
                Ok(Found::Borrowed(v))
            }
            // Scalars cost nothing to build again: not kept.
            Some(Field::Owned(v @ (Value::Null | Value::Bool(_) | Value::Number(_)))) => {
                self.vm.scratch = Some(v);
                Ok(Found::Scratch)
            }
            Some(Field::Owned(v)) => {
                if v.depth() > self.vm.budget.value_depth {
                    return Err(value_too_deep());
                }
                Ok(self.keep(main, program, g, v))
            }
            Some(Field::Str(s)) => Ok(Found::Text(s)),
            None => match &global.fallback {
                Some(v) => Ok(Found::Borrowed(v)),
                None => Err(unknown_identifier(&global.name)),
            },
        }
    }

    /// A chain of constant field reads on global `g` (the
    /// [`Op::GetField`]s from `code[at]` on, at most [`PATH_STEPS`])
    /// answered at once by [`Context::lookup_path`]: the value at its end
    /// and the number of fields it covers. `None` (the context cannot
    /// answer, or the global is already kept for the run): the caller
    /// reads step by step.
    ///
    /// # Errors
    /// `Value depth limit exceeded` for an answer deeper than the limit
    /// (its root, read step by step, would be deeper still).
    #[inline(never)]
    pub(super) fn path(
        &mut self,
        program: &Program,
        code: &[Op],
        at: usize,
        g: u32,
    ) -> Result<Option<(Value, usize)>, Error> {
        let parts = program.parts();
        let (Some(global), Some(&hash)) = (
            parts.globals.get(g as usize),
            program.global_hashes().get(g as usize),
        ) else {
            return Ok(None);
        };
        if program.ptr_eq(self.main) && matches!(self.vm.globals.get(g as usize), Some(Some(_))) {
            return Ok(None);
        }
        let hashes = program.key_hashes();
        let mut steps: [(&str, u64); PATH_STEPS] = [("", 0); PATH_STEPS];
        let mut n = 0;
        for op in code.get(at..).unwrap_or_default().iter().take(PATH_STEPS) {
            let Op::GetField(k) = *op else { break };
            let (Some(key), Some(&h)) = (parts.keys.get(k as usize), hashes.get(k as usize)) else {
                return Ok(None);
            };
            steps[n] = (key, h);
            n += 1;
        }
        let ctx: &dyn Context = self.ctx;
        let v = match ctx.lookup_path(&global.name, hash, &steps[..n]) {
            None => return Ok(None),
            Some(Field::Borrowed(v)) => v.clone(),
            Some(Field::Owned(v)) => v,
            Some(Field::Str(s)) => Value::String(s.into()),
        };
        if v.depth() > self.vm.budget.value_depth {
            return Err(value_too_deep());
        }
        Ok(Some((v, n)))
    }

    /// Keeps `v`, built by the context for global `g`, for the rest of the
    /// run (main program), or parks it in the scratch slot.
    pub(super) fn keep(
        &mut self,
        main: bool,
        program: &Program,
        g: u32,
        v: Value,
    ) -> Found<'static> {
        match main {
            true => match self.vm.keep_global(program, g, v) {
                Ok(()) => Found::Cached,
                Err(v) => self.vm.park(v),
            },
            // Not kept: parked in the scratch slot, read at once.
            false => self.vm.park(v),
        }
    }
}

impl Vm {
    /// Keeps `v`, built by the context for global `g` of the main
    /// `program`, for the rest of the run; gives it back when `g` is no
    /// global of `program`.
    pub(super) fn keep_global(&mut self, program: &Program, g: u32, v: Value) -> Result<(), Value> {
        let n = program.parts().globals.len();
        if self.globals.len() < n {
            self.globals.resize(n, None);
        }
        match self.globals.get_mut(g as usize) {
            Some(slot) => {
                *slot = Some(v);
                Ok(())
            }
            None => Err(v),
        }
    }

    /// Parks `v` in the scratch slot, to be read at once.
    fn park(&mut self, v: Value) -> Found<'static> {
        self.scratch = Some(v);
        Found::Scratch
    }
}
