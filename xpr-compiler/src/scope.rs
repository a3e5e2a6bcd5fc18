//! Scopes and name resolution: the functions being compiled, their local
//! slots and the values their closures capture.

use xpr_syntax::ast;
use xpr_vm::program::{Capture, Proto};
use xpr_vm::{Error, Op};

use smallvec::SmallVec;

use crate::errors::{span, too_many};
use crate::{Compiler, HashMap};

/// A function being compiled.
pub(crate) struct FnState {
    proto_index: u32,
    pub(crate) proto: Proto,
    /// Visible locals.
    pub(crate) scope: Scope,
    pub(crate) next_slot: u16,
    /// Names captured from enclosing functions, by capture index.
    captures: HashMap<String, u16>,
}

/// The visible locals of a function, innermost last, found by name in
/// constant time (a function may bind tens of thousands of names when a
/// host raises the length limit: a linear search made compiling quadratic).
#[derive(Default)]
pub(crate) struct Scope {
    /// Bindings in order, for [`Scope::truncate`].
    order: Vec<String>,
    /// Each name's slots, innermost (shadowing) last.
    slots: HashMap<String, SmallVec<[u16; 4]>>,
}

impl Scope {
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }

    fn push(&mut self, name: &str, slot: u16) {
        self.order.push(name.to_string());
        match self.slots.get_mut(name) {
            Some(slots) => slots.push(slot),
            None => {
                self.slots
                    .insert(name.to_string(), SmallVec::from_elem(slot, 1));
            }
        }
    }

    /// The innermost binding of `name`.
    fn find(&self, name: &str) -> Option<u16> {
        self.slots.get(name)?.last().copied()
    }

    /// Forgets the bindings made after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.order.len() > len {
            let Some(name) = self.order.pop() else { break };
            if let Some(slots) = self.slots.get_mut(&name) {
                slots.pop();
                if slots.is_empty() {
                    self.slots.remove(&name);
                }
            }
        }
    }
}

impl FnState {
    pub(crate) fn new(proto_index: u32, at: ast::Span) -> Self {
        // About one instruction per four characters of source: sized once
        // instead of grown (and copied) three or four times.
        let guess = (at.end.saturating_sub(at.start) as usize / 4 + 4).min(1024);
        FnState {
            proto_index,
            proto: Proto {
                span: span(at),
                code: Vec::with_capacity(guess),
                spans: Vec::with_capacity(guess),
                ..Proto::default()
            },
            scope: Scope::default(),
            next_slot: 0,
            captures: HashMap::default(),
        }
    }
}

/// Where a name lives.
#[derive(Clone, Copy)]
pub(crate) enum Var {
    Local(u16),
    Capture(u16),
}

impl Compiler<'_> {
    pub(crate) fn func(&mut self) -> &mut FnState {
        // `funcs` holds the main function from the start of `compile` to
        // its end, so it is never empty here (not reachable from input).
        let last = self.funcs.len() - 1;
        &mut self.funcs[last]
    }

    pub(crate) fn resolve(&mut self, name: &str) -> Option<Var> {
        let top = self.funcs.len().checked_sub(1)?;
        self.resolve_in(top, name)
    }

    fn resolve_in(&mut self, f: usize, name: &str) -> Option<Var> {
        let state = self.funcs.get(f)?;
        if let Some(slot) = state.scope.find(name) {
            return Some(Var::Local(slot));
        }
        if let Some(&i) = state.captures.get(name) {
            return Some(Var::Capture(i));
        }
        if f == 0 {
            return None;
        }
        let outer = self.resolve_in(f - 1, name)?;
        let state = self.funcs.get_mut(f)?;
        let i = u16::try_from(state.proto.captures.len()).ok()?;
        state.proto.captures.push(match outer {
            Var::Local(s) => Capture::Local(s),
            Var::Capture(c) => Capture::Capture(c),
        });
        state.captures.insert(name.to_string(), i);
        Some(Var::Capture(i))
    }

    pub(crate) fn new_local(&mut self, name: &str, at: ast::Span) -> Result<u16, Error> {
        let f = self.func();
        let slot = f.next_slot;
        f.next_slot = slot.checked_add(1).ok_or_else(|| too_many(at))?;
        f.proto.slots = f.proto.slots.max(f.next_slot);
        f.scope.push(name, slot);
        Ok(slot)
    }

    pub(crate) fn load_var(&mut self, v: Var, at: ast::Span) {
        match v {
            Var::Local(s) => self.emit(Op::LoadLocal(s), at),
            Var::Capture(c) => self.emit(Op::LoadCapture(c), at),
        };
    }

    pub(crate) fn finish(&mut self, state: FnState) {
        if let Some(p) = self.parts.protos.get_mut(state.proto_index as usize) {
            *p = state.proto;
        }
    }
}
