//! Closures: made with their captures, entered in a frame on the value
//! stack, and the commonest callbacks run without a frame.

use std::sync::Arc;

use super::errors::{cancelled, internal, locate, null_property};
use super::operators::{Compared, compare_const, compare_const_charged};
use super::values::measure_array;
use super::{Callee, Exec, Frame, NULL, or_null};
use crate::error::Error;
use crate::function::{Closure, Function};
use crate::program::{Capture, Cmp, Op, Program};
use crate::value::{Array, HEADER_BYTES, SLOT_BYTES, Value};

/// The shape of the commonest callbacks, `x => x.f` and
/// `x => x.f <cmp> constant` (one parameter, no other local), which
/// [`Exec::call_shape`] runs without pushing a frame.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    /// Index of `f` in the property names.
    key: u32,
    /// The comparison and its constant, if any.
    compare: Option<(Cmp, u32)>,
}

impl Shape {
    #[inline]
    pub(super) fn of(c: &Closure) -> Option<Shape> {
        let proto = c.program.parts().protos.get(c.proto as usize)?;
        if proto.params != 1 || proto.slots != 1 || proto.rest {
            return None;
        }
        match proto.code.as_slice() {
            [Op::GetLocalField { slot: 0, key }, Op::Return] => Some(Shape {
                key: *key,
                compare: None,
            }),
            [
                Op::GetLocalField { slot: 0, key },
                Op::CompareConst { cmp, constant },
                Op::Return,
            ] => Some(Shape {
                key: *key,
                compare: Some((*cmp, *constant)),
            }),
            _ => None,
        }
    }
}

impl Exec<'_> {
    pub(super) fn closure(
        &mut self,
        program: &Program,
        f: u32,
        base: usize,
        captures: &[Value],
    ) -> Result<Value, Error> {
        let Some(proto) = program.parts().protos.get(f as usize) else {
            return Err(internal("no prototype"));
        };
        let values: Box<[Value]> = proto
            .captures
            .iter()
            .map(|c| match *c {
                Capture::Local(s) => or_null(self.vm.stack.get(base + s as usize).cloned()),
                Capture::Capture(i) => or_null(captures.get(i as usize).cloned()),
            })
            .collect();
        self.vm
            .alloc(HEADER_BYTES + SLOT_BYTES * values.len() as u64)?;
        Ok(Value::Function(Arc::new(Function::Closure(Closure {
            program: program.clone(),
            proto: f,
            captures: values,
        }))))
    }

    /// Pushes a frame for closure `func` whose arguments start at
    /// stack[base]; the frame holds a count of `func` (whose callee slot is
    /// stack[base - 1]) unless the caller lends it (`hold` false: the caller
    /// runs the frame with [`Exec::execute`] and keeps `func` alive until
    /// it returns; no callee slot).
    pub(super) fn enter_closure(
        &mut self,
        func: &Arc<Function>,
        base: usize,
        hold: bool,
    ) -> Result<(), Error> {
        let Function::Closure(c) = &**func else {
            return Err(internal("not a closure"));
        };
        let Some(proto) = c.program.parts().protos.get(c.proto as usize) else {
            return Err(internal("no prototype"));
        };
        if let Some(cancel) = &self.vm.budget.cancel
            && cancel.is_cancelled()
        {
            return Err(cancelled());
        }
        self.vm.enter()?;
        let params = proto.params as usize;
        let stack = &mut self.vm.stack;
        let argc = stack.len().saturating_sub(base);
        let mut rest = None;
        if argc > params {
            if proto.rest {
                rest = Some(stack.split_off(base + params));
            } else {
                stack.truncate(base + params);
            }
        }
        if argc < params {
            stack.resize(base + params, Value::Null);
        }
        if proto.rest {
            let items = rest.unwrap_or_default();
            let (size, depth) = measure_array(&items);
            self.vm.check_depth(depth)?;
            self.vm.alloc(size)?;
            self.vm
                .stack
                .push(Value::Array(Arc::new(Array::new(items))));
        }
        let slots = base + proto.slots as usize;
        if self.vm.stack.len() < slots {
            self.vm.stack.resize(slots, Value::Null);
        }
        let proto_index = c.proto;
        self.vm.frames.push(Frame {
            callee: if hold {
                Callee::Held(func.clone())
            } else {
                Callee::Lent
            },
            proto: proto_index,
            ip: 0,
            base: u32::try_from(base).map_err(|_| internal("stack too deep"))?,
        });
        Ok(())
    }

    /// Runs a callback of a [`Shape`] without a frame: what its
    /// instructions do, charged per instruction as the dispatch loop
    /// charges them, with the same errors at the same positions.
    pub(super) fn call_shape(
        &mut self,
        c: &Closure,
        shape: Shape,
        x: Option<&Value>,
    ) -> Result<Value, Error> {
        let program = &c.program;
        let parts = program.parts();
        let Some(proto) = parts.protos.get(c.proto as usize) else {
            return Err(internal("no prototype"));
        };
        // As `enter_closure`: cancellation, then the call depth.
        if let Some(cancel) = &self.vm.budget.cancel
            && cancel.is_cancelled()
        {
            return Err(cancelled());
        }
        self.vm.enter()?;
        let at = |e: Error, i: usize| locate(e, proto, i);
        let r = (|| {
            let key = parts.keys.get(shape.key as usize).map_or("", |k| &**k);
            let hash = program
                .key_hashes()
                .get(shape.key as usize)
                .copied()
                .unwrap_or(0);
            self.vm.step().map_err(|e| at(e, 0))?;
            let v = match x.unwrap_or(&NULL) {
                Value::Object(o) => o.get_hashed(key, hash).unwrap_or(&NULL),
                Value::Null => return Err(at(null_property(key), 0)),
                _ => &NULL,
            };
            let Some((cmp, constant)) = shape.compare else {
                self.vm.step().map_err(|e| at(e, 1))?;
                return Ok(v.clone());
            };
            self.vm.step().map_err(|e| at(e, 1))?;
            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
            let r = match compare_const(v, cmp, k).map_err(|e| at(e, 1))? {
                Compared::Done(r, work) => {
                    if work > 0 {
                        self.vm.fuel(work).map_err(|e| at(e, 1))?;
                    }
                    r
                }
                Compared::ChargeFirst(work) => {
                    self.vm.fuel(work).map_err(|e| at(e, 1))?;
                    compare_const_charged(v, cmp, k).map_err(|e| at(e, 1))?
                }
            };
            self.vm.step().map_err(|e| at(e, 2))?;
            Ok(Value::Bool(r))
        })();
        self.vm.leave();
        r
    }
}
