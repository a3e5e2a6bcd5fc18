//! Strings built by instructions in place: `x + y` in the VM's reused
//! buffer, a chain of concatenations built once, and `upper()` /
//! `lower()` of ASCII text changed where it lies.

use std::sync::Arc;

use super::globals::Found;
use super::{Exec, Vm};
use crate::error::Error;
use crate::program::{Op, Program};
use crate::stdlib;
use crate::value::Value;

/// `x + y` for two strings: built in the reused buffer `t`, then copied
/// into its shared string (one allocation, where building a `String` and
/// converting it takes two and a free).
pub(super) fn concat(t: &mut String, x: &str, y: &str) -> Value {
    t.clear();
    t.push_str(x);
    t.push_str(y);
    Value::String(Arc::from(t.as_str()))
}

/// A right operand of a chain of string concatenations.
enum Piece<'k> {
    /// A string constant.
    Text(&'k str),
    /// A global, read when its turn comes.
    Global(u32),
    /// A global's `upper()` (`true`) or `lower()`, appended changed when
    /// its text is ASCII (never built on its own).
    Cased(u32, bool),
}

impl Vm {
    /// `text.upper()` / `text.lower()` with the receiver on top of the
    /// stack, when it is an ASCII string held by nothing else (typically
    /// one just built by a concatenation): changed where it lies, with the
    /// depth check and the fuel of the call it stands for (the same as
    /// `string::change_case_owned`, so the same fuel and no memory charge).
    /// `Ok(false)`, the stack untouched, when the receiver is not such a
    /// string: the ordinary call then runs.
    #[inline]
    pub(super) fn change_case_top(&mut self, to_upper: bool) -> Result<bool, Error> {
        let Some(top @ Value::String(_)) = self.stack.last_mut() else {
            return Ok(false);
        };
        let Value::String(mut s) = std::mem::replace(top, Value::Null) else {
            return Ok(false);
        };
        let len = match Arc::get_mut(&mut s) {
            Some(t) if stdlib::string::ascii_only(t) => t.len(),
            _ => {
                *top = Value::String(s);
                return Ok(false);
            }
        };
        self.case_change_cost(len)?;
        if let Some(t) = Arc::get_mut(&mut s) {
            stdlib::string::set_ascii_case(t, to_upper);
        }
        if let Some(top) = self.stack.last_mut() {
            *top = Value::String(s);
        }
        Ok(true)
    }
}

impl Exec<'_> {
    /// `name.lower() + y` (or `upper()`), `y` a string constant, with `t`
    /// the ASCII text of `name` in the VM's reused text buffer and `ip` on
    /// the call (past the load, already charged): the call is charged as
    /// the ordinary call of a string held elsewhere (its step, the call's
    /// depth, the case change's fuel, its new string's memory: as a `Cased`
    /// piece of [`Exec::concat`]), then the constant's and the `+`'s steps,
    /// and the chain goes on from the text changed in place. `ip` ends as
    /// [`Exec::concat`] leaves it.
    #[cfg_attr(debug_assertions, inline(never))]
    pub(super) fn cased_chain(
        &mut self,
        program: &Program,
        code: &[Op],
        ip: &mut usize,
        mut t: String,
        to_upper: bool,
        y: &str,
    ) -> Result<Value, Error> {
        *ip += 1;
        self.vm.step()?;
        self.vm.enter()?;
        self.vm.fuel(stdlib::string::ascii_case_fuel(t.len()))?;
        self.vm.alloc(t.len() as u64)?;
        self.vm.leave();
        stdlib::string::set_ascii_case(&mut t, to_upper);
        for _ in 0..2 {
            *ip += 1;
            self.vm.step()?;
        }
        self.concat(program, code, ip, t, y)
    }

    /// The string `t + y`, `t` in the VM's reused text buffer and `ip`
    /// past the `Add`, then any further `+ "constant"`, `+ name` or
    /// `+ name.lower()` / `+ name.upper()` (ASCII text) of strings and a
    /// final `.upper()` / `.lower()` of ASCII text: appended
    /// in the buffer and built once. Each instruction is charged its fuel
    /// and each intermediate string its memory, as if run in turn; `ip`
    /// ends past the last instruction taken (on an error, just past the one
    /// that failed). A piece that is not a string (or an unknown name) ends
    /// the chain, left to the instructions themselves.
    ///
    /// Not inlined in debug builds, whose dispatch frame must stay small
    /// (see [`NATIVE_CALL_CEILING`](super::NATIVE_CALL_CEILING)).
    #[cfg_attr(debug_assertions, inline(never))]
    pub(super) fn concat(
        &mut self,
        program: &Program,
        code: &[Op],
        ip: &mut usize,
        mut t: String,
        y: &str,
    ) -> Result<Value, Error> {
        let parts = program.parts();
        self.vm.alloc((t.len() + y.len()) as u64)?;
        self.vm.copy_fuel(t.len() + y.len())?;
        t.push_str(y);
        loop {
            let piece = match (code.get(*ip), code.get(*ip + 1)) {
                (Some(&Op::Const(c)), Some(Op::Add)) => match parts.constants.get(c as usize) {
                    Some(Value::String(z)) => Piece::Text(z),
                    _ => break,
                },
                (Some(&Op::LoadGlobal(g)), Some(Op::Add)) => Piece::Global(g),
                (Some(&Op::LoadGlobal(g)), Some(&Op::CallMethod { method, argc: 0 })) => {
                    match parts
                        .methods
                        .get(method as usize)
                        .and_then(|m| stdlib::case_method(m.id))
                    {
                        Some(to_upper) if matches!(code.get(*ip + 2), Some(Op::Add)) => {
                            Piece::Cased(g, to_upper)
                        }
                        _ => break,
                    }
                }
                _ => break,
            };
            let owned;
            let z: &str = match piece {
                Piece::Text(z) => z,
                Piece::Global(g) | Piece::Cased(g, _) => {
                    let Ok(found) = self.global(program, g) else {
                        break;
                    };
                    let z = match found {
                        Found::Text(s) => Some(s),
                        Found::Borrowed(v) => v.as_str(),
                        _ => {
                            owned = self.vm.found(found, g).clone();
                            owned.as_str()
                        }
                    };
                    match z {
                        Some(z) => z,
                        None => break,
                    }
                }
            };
            if let Piece::Cased(_, to_upper) = piece {
                // Only ASCII text: other text's case mapping may change
                // its length, left to the ordinary call.
                if !stdlib::string::ascii_only(z) {
                    break;
                }
                // The load and the call, charged as the ordinary call of
                // a string held elsewhere (the context's, or the one kept
                // for the run): the call's depth, the case change's fuel
                // and its new string's memory.
                for _ in 0..2 {
                    *ip += 1;
                    self.vm.step()?;
                }
                self.vm.enter()?;
                self.vm.fuel(stdlib::string::ascii_case_fuel(z.len()))?;
                self.vm.alloc(z.len() as u64)?;
                self.vm.leave();
                // Then the `+`.
                *ip += 1;
                self.vm.step()?;
                self.vm.alloc((t.len() + z.len()) as u64)?;
                self.vm.copy_fuel(t.len() + z.len())?;
                let at = t.len();
                t.push_str(z);
                if let Some(added) = t.get_mut(at..) {
                    stdlib::string::set_ascii_case(added, to_upper);
                }
                continue;
            }
            for _ in 0..2 {
                *ip += 1;
                self.vm.step()?;
            }
            self.vm.alloc((t.len() + z.len()) as u64)?;
            self.vm.copy_fuel(t.len() + z.len())?;
            t.push_str(z);
        }
        if let Some(&Op::CallMethod { method, argc: 0 }) = code.get(*ip)
            && let Some(to_upper) = parts
                .methods
                .get(method as usize)
                .and_then(|m| stdlib::case_method(m.id))
            && stdlib::string::ascii_only(&t)
        {
            *ip += 1;
            self.vm.step()?;
            self.vm.case_change_cost(t.len())?;
            stdlib::string::set_ascii_case(&mut t, to_upper);
        }
        let v = Value::String(Arc::from(t.as_str()));
        // Keep a small buffer for the next one, not a large one.
        if t.capacity() <= 4096 {
            self.vm.text = t;
        }
        Ok(v)
    }
}
