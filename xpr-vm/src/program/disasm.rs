//! The disassembly of a program ([`Program`]'s `Display`), and the short
//! form of constants it shows.

use std::fmt::{self, Write as _};

use super::{Capture, Op, Otherwise, Program};
use crate::value::Value;

/// A short readable form of a constant for listings.
pub(crate) fn show_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(ryu_js::Buffer::new().format(*n)),
        Value::String(s) => {
            let _ = write!(out, "{:?}", &**s);
        }
        Value::Array(a) => {
            out.push('[');
            for (i, item) in a.items().iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                show_value(item, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            for (i, (k, item)) in o.map().iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{:?}: ", &**k);
                show_value(item, out);
            }
            out.push('}');
        }
        Value::Function(f) => match &**f {
            crate::function::Function::Builtin(id) => {
                let _ = write!(out, "<builtin {}>", crate::stdlib::function_name(*id));
            }
            other => {
                let _ = write!(out, "{other:?}");
            }
        },
        Value::Regex(r) => {
            let _ = write!(out, "/{}/{}", r.pattern(), r.flags());
        }
    }
}

impl Program {
    /// A named call for listings: the name and what it means without a
    /// context variable of that name.
    fn call_text(&self, call: u16) -> String {
        let p = &self.inner.parts;
        let Some(c) = p.calls.get(call as usize) else {
            return "?".into();
        };
        let name = p.globals.get(c.global as usize).map_or("?", |g| &*g.name);
        match &c.otherwise {
            Otherwise::Function(f) => {
                let mut s = format!("{name} (else ");
                show_value(f, &mut s);
                s.push(')');
                s
            }
            Otherwise::Method(m) => {
                let m = p.methods.get(*m as usize).map_or("?", |m| &*m.name);
                format!("{name} (else method {m})")
            }
            Otherwise::Unknown(_) => format!("{name} (else unknown)"),
        }
    }

    fn operands(&self, op: &Op) -> String {
        let p = &self.inner.parts;
        let mut s = String::new();
        match *op {
            Op::Const(c) => {
                let _ = write!(s, "{c}  ");
                if let Some(v) = p.constants.get(c as usize) {
                    show_value(v, &mut s);
                }
            }
            Op::CompareConst { cmp, constant } => {
                let _ = write!(s, "{}  {constant}  ", cmp.symbol());
                if let Some(v) = p.constants.get(constant as usize) {
                    show_value(v, &mut s);
                }
            }
            Op::GetLocalField { slot, key } => {
                let name = p.keys.get(key as usize).map_or("?", |k| &**k);
                let _ = write!(s, "{slot}  {key}  {name:?}");
            }
            Op::Int(n) => {
                let _ = write!(s, "{n}");
            }
            Op::LoadLocal(n) | Op::StoreLocal(n) | Op::LoadCapture(n) | Op::Mark(n) => {
                let _ = write!(s, "{n}");
            }
            Op::LoadGlobal(g) => {
                if let Some(gl) = p.globals.get(g as usize) {
                    let _ = write!(s, "{g}  {}", gl.name);
                    if let Some(fb) = &gl.fallback {
                        s.push_str(" (else ");
                        show_value(fb, &mut s);
                        s.push(')');
                    }
                }
            }
            Op::GetField(k) | Op::GetLength(k) | Op::PatternField(k) => {
                let name = p.keys.get(k as usize).map_or("?", |k| &**k);
                let _ = write!(s, "{k}  {name:?}");
            }
            Op::Jump(t)
            | Op::JumpIfFalse(t)
            | Op::JumpIfFalseOrPop(t)
            | Op::JumpIfTrueOrPop(t)
            | Op::JumpIfNotNullOrPop(t)
            | Op::JumpIfNull(t) => {
                let _ = write!(s, "-> {t:04}");
            }
            Op::Array(n)
            | Op::Object(n)
            | Op::Template(n)
            | Op::PatternIndex(n)
            | Op::ArrayRest(n) => {
                let _ = write!(s, "{n}");
            }
            Op::CallValue(n) => {
                let _ = write!(s, "{n}");
            }
            Op::CallBuiltin { id, argc, .. } => {
                let _ = write!(s, "{}  argc {argc}", crate::stdlib::function_name(id));
            }
            Op::CallBuiltinMark { id, .. } => {
                s.push_str(crate::stdlib::function_name(id));
            }
            Op::CallGlobal { call, argc } => {
                let _ = write!(s, "{}  argc {argc}", self.call_text(call));
            }
            Op::CallGlobalMark(call) | Op::LoadCallee(call) => {
                s.push_str(&self.call_text(call));
            }
            Op::CallHost { index, argc, .. } => {
                let name = p
                    .host_functions
                    .get(index as usize)
                    .map_or("?", |h| h.name.as_str());
                let _ = write!(s, "{name}  argc {argc}");
            }
            Op::CallHostMark { index, .. } => {
                s.push_str(
                    p.host_functions
                        .get(index as usize)
                        .map_or("?", |h| h.name.as_str()),
                );
            }
            Op::CallMethod { method, argc } => {
                let name = p.methods.get(method as usize).map_or("?", |m| &*m.name);
                let _ = write!(s, "{name}  argc {argc}");
            }
            Op::CallMethodMark(method) => {
                s.push_str(p.methods.get(method as usize).map_or("?", |m| &*m.name));
            }
            Op::Closure(f) => {
                let _ = write!(s, "fn{f}");
            }
            Op::ObjectRest(k) => {
                let keys = p.key_sets.get(k as usize).map(|ks| {
                    ks.iter()
                        .map(|k| format!("{:?}", &**k))
                        .collect::<Vec<_>>()
                        .join(", ")
                });
                let _ = write!(s, "without [{}]", keys.unwrap_or_default());
            }
            _ => {}
        }
        s
    }
}

fn op_name(op: &Op) -> String {
    let dbg = format!("{op:?}");
    let end = dbg.find(['(', ' ', '{']).unwrap_or(dbg.len());
    // `end` is `find`'s byte offset of an ASCII character, or the length.
    dbg[..end].to_string()
}

/// The disassembly: each prototype with its parameters and captures, then
/// one line per instruction: offset, opcode, operands (with the constant,
/// name or target they denote) and source span `@start..end` in characters.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, proto) in self.inner.parts.protos.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let name = if i == 0 {
                "main".to_string()
            } else {
                format!("fn{i}")
            };
            write!(f, "{name}: params {}", proto.params)?;
            if proto.rest {
                write!(f, " + rest")?;
            }
            write!(f, ", slots {}", proto.slots)?;
            if !proto.captures.is_empty() {
                let caps: Vec<String> = proto
                    .captures
                    .iter()
                    .map(|c| match c {
                        Capture::Local(s) => format!("local {s}"),
                        Capture::Capture(s) => format!("capture {s}"),
                    })
                    .collect();
                write!(f, ", captures [{}]", caps.join(", "))?;
            }
            writeln!(f)?;
            for (off, op) in proto.code.iter().enumerate() {
                let span = proto.spans.get(off).copied().unwrap_or_default();
                let line = format!("  {off:04}  {:<20}{}", op_name(op), self.operands(op));
                writeln!(f, "{:<54}  @{}..{}", line.trim_end(), span.start, span.end)?;
            }
        }
        Ok(())
    }
}
