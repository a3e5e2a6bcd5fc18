//! Calls in the walk: a closure analysed at its call site with the
//! abstract values of its arguments (recursion is unbounded), a named
//! call, a method (an own closure field, else the built-in of that name),
//! a host function by its declared fuel.

use super::abs::{Abs, Fun};
use super::poly::Poly;
use super::walk::{Args, Item, MAX_NESTING, R, Walk};
use crate::error::Span;
use crate::function::Function;
use crate::program::Otherwise;
use crate::value::Value;

impl Walk<'_> {
    /// Calls `f` (every closure it may be) with `args`: the fuel of the
    /// call's instructions (not of the calling instruction) and the result.
    pub fn call(&mut self, f: &Abs, args: &Args, span: Span) -> R<(Poly, Abs)> {
        if let Some(why) = &f.unknown {
            return Err(self.unbounded(format!("calls a value of unknown cost: {why}"), span));
        }
        if let Some(p) = f.paths.first() {
            return Err(self.unbounded(
                format!("calls the context's value '{p}', whose cost is not known"),
                span,
            ));
        }
        let mut cost = Poly::zero();
        let mut result = Abs::default();
        for fun in &f.funs {
            let (c, r) = self.proto(fun, args, span)?;
            cost = cost.max(&c);
            result = result.join(&r);
        }
        if f.funs.is_empty() || f.shape.is_some() {
            // Not a function: the type error ends the run.
            result = result.join(&Abs::scalar());
        }
        Ok((cost, result))
    }

    /// Analyses prototype `fun.proto` called with `args`.
    pub fn proto(&mut self, fun: &Fun, args: &Args, span: Span) -> R<(Poly, Abs)> {
        if self.active.len() >= MAX_NESTING {
            return Err(self.unbounded("calls nested too deeply to analyse", span));
        }
        if self.active.contains(&fun.proto) {
            return Err(self.unbounded(
                "a closure may call itself (recursion has no static bound)",
                span,
            ));
        }
        let program = self.program;
        let Some(proto) = program.protos().get(fun.proto as usize) else {
            return Err(self.unbounded("no such prototype", span));
        };
        // Locals: the parameters, the rest array, the other slots (null).
        let params = proto.params as usize;
        let mut slots: Vec<Abs> = vec![Abs::scalar(); proto.slots as usize];
        let mut fixed = 0usize;
        let mut spread: Option<(Poly, Abs)> = None;
        let mut extra_len = Poly::zero();
        let mut extra = Abs::default();
        for item in &args.items {
            match item {
                Item::One(a) if spread.is_none() && fixed < params => {
                    if let Some(s) = slots.get_mut(fixed) {
                        *s = a.clone();
                    }
                    fixed += 1;
                }
                Item::One(a) => {
                    extra_len.add_assign(&Poly::num(1));
                    extra = extra.join(a);
                }
                Item::Many { len, elem } | Item::Pairs { len, val: elem, .. } => {
                    let (l, e) = spread.take().unwrap_or_default();
                    spread = Some((l.add(len), e.join(elem)));
                    extra_len.add_assign(len);
                    extra = extra.join(elem);
                }
            }
        }
        if spread.is_some() {
            for s in slots.iter_mut().take(params).skip(fixed) {
                *s = s.join(&extra);
            }
        }
        if proto.rest {
            let rest =
                Abs::array(extra_len, extra).map_err(|w| self.unbounded(w.to_string(), span))?;
            if let Some(s) = slots.get_mut(params) {
                *s = rest;
            }
        }
        self.active.push(fun.proto);
        let r = self.body(fun, slots);
        self.active.pop();
        r
    }

    /// A call of host function `index`: its declared fuel per call when it
    /// does not meter its own work, else unbounded. Its result's size is
    /// not known.
    pub(super) fn host(&self, index: u16, span: Span) -> R<(Poly, Abs)> {
        let Some(h) = self.program.parts().host_functions.get(index as usize) else {
            return Err(self.unbounded("no such host function", span));
        };
        if h.meters {
            return Err(self.unbounded(
                format!(
                    "calls the host function '{}', which meters its own fuel",
                    h.name
                ),
                span,
            ));
        }
        let result = Abs::unknown(format!("the size of what '{}' returns", h.name));
        Ok((Poly::num(h.fuel_per_call), result))
    }

    pub(super) fn call_name(&self, call: u16) -> String {
        let parts = self.program.parts();
        parts
            .calls
            .get(call as usize)
            .and_then(|c| parts.globals.get(c.global as usize))
            .map_or_else(|| "?".to_string(), |g| g.name.to_string())
    }

    /// A call by a name that is no built-in: a pipe's method, else the
    /// context's function (of unknown cost).
    pub(super) fn named_call(
        &mut self,
        call: u16,
        mut args: Vec<Item>,
        span: Span,
    ) -> R<(Poly, Abs)> {
        let parts = self.program.parts();
        match parts.calls.get(call as usize).map(|c| &c.otherwise) {
            Some(Otherwise::Method(m)) if !args.is_empty() => {
                let recv = args.remove(0).one();
                let m = *m;
                let (c, r) = self.method(m, recv, args, span)?;
                Ok((c, r))
            }
            Some(Otherwise::Function(Value::Function(f))) => match &**f {
                Function::Builtin(id) => {
                    let name = crate::stdlib::function_name(*id);
                    self.builtin(name, false, &args, span)
                }
                _ => Err(self.unbounded(
                    format!("calls the host function '{}'", self.call_name(call)),
                    span,
                )),
            },
            _ => Err(self.unbounded(
                format!(
                    "calls '{}', a function the context would supply",
                    self.call_name(call)
                ),
                span,
            )),
        }
    }

    /// `recv.m(args)`: an own closure field of a built object, else the
    /// built-in method `m` of whatever type the receiver may have.
    pub(super) fn method(
        &mut self,
        m: u16,
        recv: Abs,
        args: Vec<Item>,
        span: Span,
    ) -> R<(Poly, Abs)> {
        let Some(mref) = self.program.methods().get(m as usize).cloned() else {
            return Err(self.unbounded("no such method", span));
        };
        let mut cost = Poly::zero();
        let mut result = Abs::default();
        let own = recv.field(&mref.name);
        if !own.funs.is_empty() {
            let (c, r) = self.call(
                &Abs {
                    funs: own.funs.clone(),
                    ..Abs::default()
                },
                &Args {
                    items: args.clone(),
                },
                span,
            )?;
            cost = c;
            result = r;
        }
        if mref.id.is_some() {
            let mut all = vec![Item::One(recv)];
            all.extend(args);
            let (c, r) = self.builtin(&mref.name, true, &all, span)?;
            cost = cost.max(&c);
            result = result.join(&r);
        } else {
            result = result.join(&Abs::scalar());
        }
        Ok((cost, result))
    }
}
