//! The dispatch loop: one function runs every instruction, its fast paths
//! inline (numbers, fields, comparisons with a constant, concatenation
//! chains, and a comparison taken by the jump after it); the slow paths
//! are calls to the modules beside it.

use super::access::field_at;
use super::calls::Hides;
use super::errors::{internal, locate, null_property};
use super::globals::Found;
use super::operators::{compare_const, compare_const_charged, compare_text, compare_text_charged};
use super::text::concat;
use super::{Callee, Exec, Flow, NULL, ops, or_null};
use crate::compare;
use crate::error::{Error, ErrorKind};
use crate::function::Function;
use crate::program::{Op, Program};
use crate::stdlib;
use crate::value::Value;

impl Exec<'_> {
    /// Runs frames until the frame count drops back to `stop`, returning the
    /// value the frame at `stop` returned. That frame runs code of `program`
    /// with `captures`, lent by the caller for the whole call; frames pushed
    /// above it hold their closures.
    pub(super) fn execute(
        &mut self,
        stop: usize,
        program: &Program,
        captures: &[Value],
    ) -> Result<Value, Error> {
        let r = self.dispatch(stop, program, captures);
        if r.is_err() {
            self.vm.frames.truncate(stop);
        }
        r
    }

    fn dispatch(&mut self, stop: usize, entry: &Program, lent: &[Value]) -> Result<Value, Error> {
        let main = self.main;
        'outer: loop {
            let Some(frame) = self.vm.frames.last() else {
                return Err(internal("no frame"));
            };
            // The entry frame's code is lent; a frame above it holds its
            // closure, cloned here (one count) while it runs.
            let holder = match &frame.callee {
                Callee::Held(f) if self.vm.frames.len() > stop + 1 => Some(f.clone()),
                _ => None,
            };
            let (program, captures): (&Program, &[Value]) = match holder.as_deref() {
                Some(Function::Closure(c)) => (&c.program, &c.captures),
                _ if self.vm.frames.len() == stop + 1 => (entry, lent),
                _ => (main, &[]),
            };
            let parts = program.parts();
            let hashes = program.key_hashes();
            let Some(proto) = parts.protos.get(frame.proto as usize) else {
                return Err(internal("no prototype"));
            };
            let code = &proto.code[..];
            let base = frame.base as usize;
            let mut ip = frame.ip as usize;

            macro_rules! tri {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(e) => return Err(locate(e, proto, ip - 1)),
                    }
                };
            }
            // Charges the fuel unit of an instruction run as part of the
            // one before it (`ip` already past it).
            macro_rules! charge {
                () => {
                    if self.vm.budget.tick == 0 {
                        tri!(self.vm.refill());
                    }
                    self.vm.budget.tick -= 1;
                };
            }
            // Returns `result` from the running frame.
            macro_rules! ret {
                ($result:expr) => {{
                    let result: Value = $result;
                    let Some(frame) = self.vm.frames.pop() else {
                        return Err(internal("no frame to return from"));
                    };
                    // A held callee sits in the slot below the frame.
                    let bottom = match frame.callee {
                        Callee::Held(_) => (frame.base as usize).saturating_sub(1),
                        _ => frame.base as usize,
                    };
                    if self.vm.stack.len() > bottom {
                        self.vm.stack.truncate(bottom);
                    }
                    if !matches!(frame.callee, Callee::Main) {
                        self.vm.leave();
                    }
                    if self.vm.frames.len() <= stop {
                        return Ok(result);
                    }
                    self.vm.stack.push(result);
                    continue 'outer;
                }};
            }
            // `a <op> b` on two numbers, in place; anything else (strings,
            // errors, non-finite results) through `$slow`.
            macro_rules! arith {
                ($op:tt, $slow:expr) => {{
                    let n = self.vm.stack.len();
                    // The result is written over the left number in place
                    // and the right one is forgotten (a number owns
                    // nothing): no value is dropped or moved.
                    let fast = match self.vm.stack.get_mut(n.saturating_sub(2)..) {
                        Some([Value::Number(x), Value::Number(y)]) => {
                            let r = *x $op *y;
                            let finite = r.is_finite();
                            if finite {
                                *x = r;
                            }
                            finite
                        }
                        _ => false,
                    };
                    if fast {
                        std::mem::forget(self.vm.stack.pop());
                    } else {
                        $slow
                    }
                }};
            }
            // `text + y` with `ip` past the `Add` (see `Exec::concat`):
            // the result replaces the text on top of the stack.
            macro_rules! append_chain {
                ($y:expr) => {{
                    let mut t = std::mem::take(&mut self.vm.text);
                    t.clear();
                    if let Value::String(x) = self.vm.peek() {
                        t.push_str(x);
                    }
                    let r = self.concat(program, code, &mut ip, t, $y);
                    *self.vm.top() = tri!(r);
                }};
            }
            // Pushes a comparison's result, or, when a conditional jump or
            // a return follows, takes it at once: `a == "x" && ...` then
            // pushes nothing unless the jump keeps the value.
            macro_rules! push_bool {
                ($r:expr) => {{
                    let r: bool = $r;
                    match code.get(ip) {
                        // Jumps, keeping the value, when it is `true`
                        // (`||`) or `false` (`&&`); else drops it.
                        Some(&(Op::JumpIfTrueOrPop(t) | Op::JumpIfFalseOrPop(t))) => {
                            let keep = matches!(code.get(ip), Some(Op::JumpIfTrueOrPop(_)));
                            ip += 1;
                            charge!();
                            if r == keep {
                                ip = t as usize;
                                // The kept value meets the next `&&` / `||`
                                // (or the return) at the target: taken there
                                // at once, each instruction charged in turn,
                                // the value pushed only if it stays.
                                loop {
                                    match code.get(ip) {
                                        Some(
                                            &(Op::JumpIfTrueOrPop(t) | Op::JumpIfFalseOrPop(t)),
                                        ) => {
                                            let keep = matches!(
                                                code.get(ip),
                                                Some(Op::JumpIfTrueOrPop(_))
                                            );
                                            ip += 1;
                                            charge!();
                                            if r != keep {
                                                break;
                                            }
                                            ip = t as usize;
                                        }
                                        Some(&Op::Return) => {
                                            ip += 1;
                                            charge!();
                                            ret!(Value::Bool(r));
                                        }
                                        _ => {
                                            self.vm.stack.push(Value::Bool(r));
                                            break;
                                        }
                                    }
                                }
                            }
                        }
                        Some(&Op::JumpIfFalse(t)) => {
                            ip += 1;
                            charge!();
                            if !r {
                                ip = t as usize;
                            }
                        }
                        Some(&Op::Return) => {
                            ip += 1;
                            charge!();
                            ret!(Value::Bool(r));
                        }
                        _ => self.vm.stack.push(Value::Bool(r)),
                    }
                }};
            }
            macro_rules! save_ip {
                () => {
                    if let Some(f) = self.vm.frames.last_mut() {
                        f.ip = ip as u32;
                    }
                };
            }

            loop {
                let Some(&op) = code.get(ip) else {
                    return Err(internal("fell off the code"));
                };
                ip += 1;
                if self.vm.budget.tick == 0 {
                    tri!(self.vm.refill());
                }
                self.vm.budget.tick -= 1;
                match op {
                    Op::Const(c) => {
                        let k = parts.constants.get(c as usize).unwrap_or(&NULL);
                        // `text + "constant"`: appended without pushing it.
                        if let (Some(Op::Add), Value::String(y), Value::String(_)) =
                            (code.get(ip), k, self.vm.peek())
                        {
                            ip += 1;
                            charge!();
                            append_chain!(y);
                        } else {
                            self.vm.stack.push(k.clone());
                        }
                    }
                    Op::Null => self.vm.stack.push(Value::Null),
                    Op::True => self.vm.stack.push(Value::Bool(true)),
                    Op::False => self.vm.stack.push(Value::Bool(false)),
                    Op::Int(n) => self.vm.stack.push(Value::Number(f64::from(n))),
                    Op::Pop => {
                        self.vm.stack.pop();
                    }
                    Op::Swap => {
                        let len = self.vm.stack.len();
                        if len >= 2 {
                            self.vm.stack.swap(len - 1, len - 2);
                        }
                    }
                    Op::LoadLocal(s) => {
                        let v = or_null(self.vm.stack.get(base + s as usize).cloned());
                        self.vm.stack.push(v);
                    }
                    Op::StoreLocal(s) => {
                        let v = self.vm.pop();
                        if let Some(slot) = self.vm.stack.get_mut(base + s as usize) {
                            *slot = v;
                        }
                    }
                    Op::LoadCapture(i) => {
                        let v = or_null(captures.get(i as usize).cloned());
                        self.vm.stack.push(v);
                    }
                    Op::LoadGlobal(g) => {
                        // `name.f1.f2...`: the context may answer the whole
                        // chain (`Context::lookup_path`), the values on the
                        // way never built; the fields' instructions are
                        // charged as if run in turn.
                        if let Some(&Op::GetField(_)) = code.get(ip)
                            && *self.paths.get_or_insert_with(|| self.ctx.answers_paths())
                            && let Some((v, n)) = tri!(self.path(program, code, ip, g))
                        {
                            for _ in 0..n {
                                ip += 1;
                                charge!();
                            }
                            self.vm.stack.push(v);
                            continue;
                        }
                        let found = tri!(self.global(program, g));
                        // `name <cmp> constant`: compared where the value
                        // lies, without pushing (or reference-counting) it.
                        // Both instructions are charged, as if run in turn.
                        if let Some(&Op::CompareConst { cmp, constant }) = code.get(ip) {
                            ip += 1;
                            charge!();
                            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                            let compared = match found {
                                Found::Text(s) => tri!(compare_text(s, cmp, k)),
                                _ => tri!(compare_const(self.vm.found(found, g), cmp, k)),
                            };
                            let r = tri!(self.settle(compared, |vm| match (found, k) {
                                (Found::Text(s), Value::String(y)) => {
                                    compare_text_charged(s, cmp, y)
                                }
                                _ => compare_const_charged(vm.found(found, g), cmp, k),
                            }));
                            push_bool!(r);
                        } else {
                            // `x <op> name` for two numbers (`a + b`,
                            // `(a + b) * c`): computed on `x` in place,
                            // `name` never pushed. The operator is charged
                            // as if run in turn; anything else (not two
                            // numbers, a result that is not finite) is left
                            // to the instructions one by one.
                            if let Some(&(o @ Op::Add | o @ Op::Sub | o @ Op::Mul | o @ Op::Div)) =
                                code.get(ip)
                                && let Value::Number(y) = *self.vm.found(found, g)
                                && let Some(Value::Number(x)) = self.vm.stack.last()
                            {
                                let r = match o {
                                    Op::Add => x + y,
                                    Op::Sub => x - y,
                                    Op::Mul => x * y,
                                    _ => x / y,
                                };
                                if r.is_finite() {
                                    ip += 1;
                                    charge!();
                                    if let Some(Value::Number(x)) = self.vm.stack.last_mut() {
                                        *x = r;
                                    }
                                    continue;
                                }
                            }
                            // `name.lower() + "constant"` (or `upper()`) for
                            // ASCII text `name`: the chain starts from the
                            // text changed in case, never built on its own
                            // (see `Exec::cased_chain`).
                            if let (
                                Some(&Op::CallMethod { method, argc: 0 }),
                                Some(&Op::Const(c)),
                                Some(Op::Add),
                            ) = (code.get(ip), code.get(ip + 1), code.get(ip + 2))
                                && let Some(to_upper) = parts
                                    .methods
                                    .get(method as usize)
                                    .and_then(|m| stdlib::case_method(m.id))
                                && let Some(Value::String(y)) = parts.constants.get(c as usize)
                                && let Some(x) = match found {
                                    Found::Text(s) => Some(s),
                                    Found::Borrowed(v) => v.as_str(),
                                    _ => None,
                                }
                                && stdlib::string::ascii_only(x)
                            {
                                let mut t = std::mem::take(&mut self.vm.text);
                                t.clear();
                                t.push_str(x);
                                let r = self.cased_chain(program, code, &mut ip, t, to_upper, y);
                                self.vm.stack.push(tri!(r));
                                continue;
                            }
                            // `name + "constant"` for a string `name`: the
                            // chain starts from its text, never pushed (or
                            // reference-counted).
                            if let (Some(&Op::Const(c)), Some(Op::Add)) =
                                (code.get(ip), code.get(ip + 1))
                                && let Some(Value::String(y)) = parts.constants.get(c as usize)
                                && let Some(x) = match found {
                                    Found::Text(s) => Some(s),
                                    Found::Borrowed(v) => v.as_str(),
                                    _ => None,
                                }
                            {
                                ip += 1;
                                charge!();
                                ip += 1;
                                charge!();
                                let mut t = std::mem::take(&mut self.vm.text);
                                t.clear();
                                t.push_str(x);
                                let r = self.concat(program, code, &mut ip, t, y);
                                self.vm.stack.push(tri!(r));
                                continue;
                            }
                            // `text + name`: appended without pushing it.
                            if let Some(Op::Add) = code.get(ip)
                                && let Value::String(_) = self.vm.peek()
                            {
                                let owned;
                                let y: Option<&str> = match found {
                                    Found::Text(s) => Some(s),
                                    Found::Borrowed(v) => v.as_str(),
                                    _ => {
                                        owned = self.vm.found(found, g).clone();
                                        owned.as_str()
                                    }
                                };
                                if let Some(y) = y {
                                    ip += 1;
                                    charge!();
                                    append_chain!(y);
                                    continue;
                                }
                            }
                            let v = match found {
                                Found::Text(s) => {
                                    let v = Value::String(s.into());
                                    let main = program.ptr_eq(self.main);
                                    self.keep(main, program, g, v.clone());
                                    v
                                }
                                _ => self.vm.found(found, g).clone(),
                            };
                            self.vm.stack.push(v);
                        }
                    }
                    Op::GetField(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let top = self.vm.top();
                        let v = match &*top {
                            Value::Object(o) => or_null(o.get_hashed(key, hash).cloned()),
                            Value::Null => tri!(Err(null_property(key))),
                            _ => Value::Null,
                        };
                        *top = v;
                    }
                    Op::GetLocalField { slot, key: k } => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let at = base + slot as usize;
                        let local = self.vm.stack.get(at).unwrap_or(&NULL);
                        if let Value::Null = local {
                            tri!(Err(null_property(key)));
                        }
                        // `x.f <cmp> constant`: compared in place, as
                        // `LoadGlobal` does.
                        if let Some(&Op::CompareConst { cmp, constant }) = code.get(ip) {
                            ip += 1;
                            charge!();
                            let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                            let v = field_at(&self.vm.stack, at, key, hash);
                            let compared = tri!(compare_const(v, cmp, k));
                            let r = tri!(self.settle(compared, |vm| {
                                compare_const_charged(field_at(&vm.stack, at, key, hash), cmp, k)
                            }));
                            push_bool!(r);
                        } else {
                            let v = match local {
                                Value::Object(o) => or_null(o.get_hashed(key, hash).cloned()),
                                _ => Value::Null,
                            };
                            self.vm.stack.push(v);
                        }
                    }
                    Op::GetLength(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        // Counting a string's characters reads all of it.
                        if let Value::String(s) = self.vm.peek() {
                            let work = s.len() as u64 / crate::format::BYTES_PER_FUEL;
                            tri!(self.vm.fuel(work));
                        }
                        let top = self.vm.top();
                        let v = match &*top {
                            Value::Array(a) => Value::Number(a.len() as f64),
                            Value::String(s) => Value::Number(s.chars().count() as f64),
                            Value::Object(o) => or_null(o.get_hashed(key, hash).cloned()),
                            Value::Null => tri!(Err(null_property(key))),
                            _ => Value::Null,
                        };
                        *top = v;
                    }
                    Op::Index => {
                        let idx = self.vm.pop();
                        let obj = self.vm.pop();
                        let v = tri!(self.index(&obj, &idx));
                        self.vm.stack.push(v);
                    }
                    Op::Add => arith!(+, {
                        let b = self.vm.pop();
                        let bytes = match (self.vm.peek(), &b) {
                            (Value::String(x), Value::String(y)) => Some(x.len() + y.len()),
                            _ => None,
                        };
                        if let Some(bytes) = bytes {
                            tri!(self.vm.alloc(bytes as u64));
                            tri!(self.vm.copy_fuel(bytes));
                            let mut t = std::mem::take(&mut self.vm.text);
                            let v = match (self.vm.peek(), &b) {
                                (Value::String(x), Value::String(y)) => concat(&mut t, x, y),
                                _ => Value::Null,
                            };
                            // Keep a small buffer for the next one, not a large one.
                            if t.capacity() <= 4096 {
                                self.vm.text = t;
                            }
                            *self.vm.top() = v;
                        } else {
                            let a = self.vm.top();
                            *a = tri!(ops::add(a, &b));
                        }
                    }),
                    Op::Sub => arith!(-, tri!(self.arith(ops::sub))),
                    Op::Mul => arith!(*, tri!(self.arith(ops::mul))),
                    Op::Div => arith!(/, tri!(self.arith(ops::div))),
                    Op::Rem => self.arith(ops::rem).map_err(|e| locate(e, proto, ip - 1))?,
                    Op::Pow => self.arith(ops::pow).map_err(|e| locate(e, proto, ip - 1))?,
                    Op::Eq | Op::Ne => tri!(self.equality(op == Op::Eq)),
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        use std::cmp::Ordering::{Greater, Less};
                        let b = self.vm.pop();
                        // Charged before the strings are read.
                        let work = compare::order_work(self.vm.peek(), &b);
                        if work > 0 {
                            tri!(self.vm.fuel(work));
                        }
                        let symbol = match op {
                            Op::Lt => "<",
                            Op::Le => "<=",
                            Op::Gt => ">",
                            _ => ">=",
                        };
                        let a = self.vm.top();
                        let o = tri!(ops::compare(symbol, a, &b));
                        let r = match op {
                            Op::Lt => o == Less,
                            Op::Le => o != Greater,
                            Op::Gt => o == Greater,
                            _ => o != Less,
                        };
                        *a = Value::Bool(r);
                    }
                    Op::CompareConst { cmp, constant } => {
                        let k = parts.constants.get(constant as usize).unwrap_or(&NULL);
                        let compared = tri!(compare_const(self.vm.peek(), cmp, k));
                        let r =
                            tri!(self.settle(compared, |vm| {
                                compare_const_charged(vm.peek(), cmp, k)
                            }));
                        self.vm.stack.pop();
                        push_bool!(r);
                    }
                    Op::Not => {
                        let a = self.vm.top();
                        *a = Value::Bool(!a.truthy());
                    }
                    Op::Neg => {
                        let a = self.vm.top();
                        *a = tri!(ops::neg(a));
                    }
                    Op::Jump(t) => ip = t as usize,
                    Op::JumpIfFalse(t) => {
                        if !self.vm.pop().truthy() {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfFalseOrPop(t) => {
                        if self.vm.peek().truthy() {
                            self.vm.stack.pop();
                        } else {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfTrueOrPop(t) => {
                        if self.vm.peek().truthy() {
                            ip = t as usize;
                        } else {
                            self.vm.stack.pop();
                        }
                    }
                    Op::JumpIfNotNullOrPop(t) => {
                        if matches!(self.vm.peek(), Value::Null) {
                            self.vm.stack.pop();
                        } else {
                            ip = t as usize;
                        }
                    }
                    Op::JumpIfNull(t) => {
                        if matches!(self.vm.peek(), Value::Null) {
                            ip = t as usize;
                        }
                    }
                    Op::Array(n) => {
                        let start = self.vm.stack.len().saturating_sub(n as usize);
                        tri!(self.build_array(start));
                    }
                    Op::ArrayMark => {
                        let start = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        tri!(self.build_array(start));
                    }
                    Op::Object(n) => {
                        let start = self.vm.stack.len().saturating_sub(2 * n as usize);
                        // The main program's result, for a host reading
                        // fields (`Vm::run_fields`): handed over unbuilt.
                        let handed = self.vm.want_fields
                            && self.vm.frames.len() == 1
                            && matches!(code.get(ip), Some(Op::Return))
                            && tri!(self.object_as_fields(start));
                        if !handed {
                            tri!(self.build_object(start));
                        }
                    }
                    Op::ObjectMark => {
                        let start = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        tri!(self.build_object(start));
                    }
                    Op::Mark(n) => {
                        let at = self.vm.stack.len().saturating_sub(n as usize);
                        self.vm.marks.push(at);
                    }
                    Op::SpreadArray | Op::SpreadArgs => {
                        let v = self.vm.pop();
                        tri!(self.spread_array(v, op == Op::SpreadArgs));
                    }
                    Op::SpreadObject => {
                        let v = self.vm.pop();
                        tri!(self.spread_object(v));
                    }
                    Op::Template(n) => tri!(self.template(n as usize)),
                    Op::CallValue(argc) => {
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize + 1);
                        if let Flow::Entered = tri!(self.call_at(pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallValueMark => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered = tri!(self.call_at(mark.saturating_sub(1))) {
                            continue 'outer;
                        }
                    }
                    Op::CallBuiltin { id, argc, global } => {
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let pos = self.vm.stack.len().saturating_sub(argc as usize);
                            let r = self.call_shadowing(program, global, f, pos);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(argc as usize);
                        let v = tri!(self.call_builtin(id, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallBuiltinMark { id, global } => {
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let r = self.call_shadowing(program, global, f, mark);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(self.vm.stack.len().saturating_sub(mark));
                        let v = tri!(self.call_builtin(id, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallHost {
                        index,
                        argc,
                        global,
                    } => {
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let pos = self.vm.stack.len().saturating_sub(argc as usize);
                            let r = self.call_shadowing(program, global, f, pos);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(argc as usize);
                        let Some(h) = parts.host_functions.get(index as usize) else {
                            return Err(internal("no host function"));
                        };
                        let v = tri!(self.call_host(h, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallHostMark { index, global } => {
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Some(f) = tri!(self.shadow(program, global, Hides::Function)) {
                            save_ip!();
                            let r = self.call_shadowing(program, global, f, mark);
                            if let Flow::Entered = tri!(r) {
                                continue 'outer;
                            }
                            continue;
                        }
                        let args = self.vm.take(self.vm.stack.len().saturating_sub(mark));
                        let Some(h) = parts.host_functions.get(index as usize) else {
                            return Err(internal("no host function"));
                        };
                        let v = tri!(self.call_host(h, &args));
                        self.vm.stack.push(v);
                    }
                    Op::CallGlobal { call, argc } => {
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize);
                        if let Flow::Entered = tri!(self.call_global(program, call, pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallGlobalMark(call) => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered = tri!(self.call_global(program, call, mark)) {
                            continue 'outer;
                        }
                    }
                    Op::LoadCallee(call) => {
                        let f = tri!(self.load_callee(program, call));
                        self.vm.stack.push(f);
                    }
                    Op::CallMethod { method, argc } => {
                        if argc == 0
                            && let Some(to_upper) = parts
                                .methods
                                .get(method as usize)
                                .and_then(|m| stdlib::case_method(m.id))
                            && tri!(self.vm.change_case_top(to_upper))
                        {
                            continue;
                        }
                        save_ip!();
                        let pos = self.vm.stack.len().saturating_sub(argc as usize + 1);
                        if let Flow::Entered = tri!(self.call_method(program, method, pos)) {
                            continue 'outer;
                        }
                    }
                    Op::CallMethodMark(method) => {
                        save_ip!();
                        let mark = self.vm.marks.pop().unwrap_or(self.vm.stack.len());
                        if let Flow::Entered =
                            tri!(self.call_method(program, method, mark.saturating_sub(1)))
                        {
                            continue 'outer;
                        }
                    }
                    Op::Closure(f) => {
                        let v = tri!(self.closure(program, f, base, captures));
                        self.vm.stack.push(v);
                    }
                    Op::CheckObject => {
                        if let Value::Null = self.vm.peek() {
                            tri!(Err(Error::new(ErrorKind::Value, "cannot destructure null")));
                        }
                    }
                    Op::CheckArray => match self.vm.peek() {
                        Value::Array(_) => {}
                        Value::Null => {
                            tri!(Err(Error::new(ErrorKind::Value, "cannot destructure null")))
                        }
                        Value::String(_) => tri!(Err(Error::new(
                            ErrorKind::Value,
                            "cannot destructure string as array"
                        ))),
                        _ => tri!(Err(Error::new(
                            ErrorKind::Value,
                            "cannot destructure non-array as array"
                        ))),
                    },
                    Op::PatternField(k) => {
                        let key = parts.keys.get(k as usize).map_or("", |k| &**k);
                        let hash = hashes.get(k as usize).copied().unwrap_or(0);
                        let v = match self.vm.peek() {
                            Value::Object(o) => or_null(o.get_hashed(key, hash).cloned()),
                            _ => Value::Null,
                        };
                        self.vm.stack.push(v);
                    }
                    Op::PatternIndex(i) => {
                        let v = match self.vm.peek() {
                            Value::Array(a) => or_null(a.items().get(i as usize).cloned()),
                            _ => Value::Null,
                        };
                        self.vm.stack.push(v);
                    }
                    Op::ObjectRest(k) => {
                        let keys = parts.key_sets.get(k as usize).map_or(&[][..], |v| &v[..]);
                        tri!(self.object_rest(keys));
                    }
                    Op::ArrayRest(from) => tri!(self.array_rest(from as usize)),
                    Op::Return => {
                        let result = self.vm.pop();
                        ret!(result);
                    }
                }
            }
        }
    }
}
