//! A program's parts in a compact byte form, and back: the body of the
//! stored programs `xpr::Program::to_bytes` writes (the envelope, with its
//! magic bytes, format version and checksum, is the `xpr` crate's).
//!
//! Reading refuses whatever a compiled program could not be, beyond what
//! [`Program::new`] checks, so that no byte string makes a loaded program
//! panic, loop or misbehave when run: every jump goes forward (XPR has no
//! loops, so every instruction runs at most once per call), a name read
//! is listed as read (hosts supply only those fields), a function called
//! is listed among those called, an unknown function's error is the
//! compiler's (`Unknown function 'f'`, kind reference), a closure
//! captures only slots and captures its creator has, a prototype has no
//! more local slots than it stores to (a frame's slots are not charged to
//! the memory budget), a comparison with a constant compares a scalar, a
//! host call names the host function it calls, and every function and
//! method the program calls is allowed by the loading engine's
//! capabilities. Host functions are stored by name and found in the
//! loading engine; a name's meaning as a value (a built-in or host
//! function) is found again as the compiler finds it.

mod bytes;
mod ops;
mod values;

pub use bytes::{Reader, Writer, corrupt};

use std::sync::Arc;

use super::UnknownFunction;
use super::{Capture, Global, MethodRef, NamedCall, Op, Otherwise, Program, ProgramParts, Proto};
use crate::capabilities::Capabilities;
use crate::error::{Error, ErrorKind, Span};
use crate::function::{Function, HostFunction};
use crate::stdlib;
use crate::value::{Key, Value};

/// What a stored program is loaded against: the loading engine's host
/// functions, capabilities and regex budget.
#[derive(Debug, Clone, Copy)]
pub struct LoadEnv<'a> {
    /// The host functions a stored program may call, by name.
    pub host_functions: &'a [Arc<HostFunction>],
    /// The functions and methods it may use.
    pub capabilities: &'a Capabilities,
    /// Compiled bytes all its regex literals may take together.
    pub max_regex_bytes: Option<u64>,
    /// The length in bytes of the source stored with the program: its
    /// code and the names its instructions use must be in proportion (see
    /// [`Program::read_parts`]).
    pub source_bytes: usize,
}

impl LoadEnv<'_> {
    /// The host function `name`.
    ///
    /// # Errors
    /// [`ErrorKind::Host`] when the engine registers none of that name.
    pub fn host(&self, name: &str) -> Result<Arc<HostFunction>, Error> {
        self.host_functions
            .iter()
            .find(|h| h.name == name)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Host,
                    format!(
                        "the stored program calls host function '{name}', which this engine does not register"
                    ),
                )
            })
    }

    /// What `name` means as a value when the context lacks it, as the
    /// compiler decides it.
    fn fallback(&self, name: &str) -> Option<Value> {
        match name {
            "PI" => Some(Value::Number(std::f64::consts::PI)),
            "E" => Some(Value::Number(std::f64::consts::E)),
            _ if !self.capabilities.allows(name) => None,
            _ => match stdlib::function_id(name) {
                Some(id) => Some(Value::Function(Arc::new(Function::Builtin(id)))),
                None => self
                    .host_functions
                    .iter()
                    .find(|h| h.name == name)
                    .map(|h| Value::Function(Arc::new(Function::Host(h.clone())))),
            },
        }
    }
}

const CALL_FUNCTION: u8 = 0;
const CALL_METHOD: u8 = 1;
const CALL_UNKNOWN: u8 = 2;

impl Program {
    /// Appends the program's parts in the stored form to `w` (see the
    /// module documentation).
    pub fn write_parts(&self, w: &mut Writer) {
        write(self.parts(), w);
    }

    /// Reads the parts [`Program::write_parts`] wrote, resolves host
    /// functions and function values against `env`, and validates them
    /// ([`Program::new`] and the checks of the module documentation).
    ///
    /// # Errors
    /// `invalid stored program: ...` or `invalid program: ...` (kind
    /// [`ErrorKind::Value`]) for malformed or inconsistent parts; kind
    /// [`ErrorKind::Host`] for a host function `env` lacks; the
    /// capabilities' denial (kind [`ErrorKind::Access`]) for a function or
    /// method `env` does not allow; a regex error for a regex literal over
    /// the budget.
    pub fn read_parts(r: &mut Reader, env: &LoadEnv) -> Result<Program, Error> {
        let mut p = ProgramParts::default();
        for _ in 0..r.count()? {
            let name = r.str()?;
            let read = r.bool()?;
            p.globals.push(Global {
                name: Key::from(name),
                fallback: env.fallback(name),
                read,
            });
        }
        for _ in 0..r.count()? {
            p.keys.push(Key::from(r.str()?));
        }
        for _ in 0..r.count()? {
            let name = r.str()?;
            p.methods.push(MethodRef {
                name: Key::from(name),
                id: stdlib::method_id(name),
            });
        }
        for _ in 0..r.count()? {
            let mut set = Vec::new();
            for _ in 0..r.count()? {
                set.push(Key::from(r.str()?));
            }
            p.key_sets.push(set);
        }
        for _ in 0..r.count()? {
            p.host_functions.push(env.host(r.str()?)?);
        }
        for _ in 0..r.count()? {
            let name = r.str()?;
            // Against the engine's host functions, not the stored table
            // (as long as the file): no work quadratic in the file.
            if stdlib::function_id(name).is_none()
                && !env.host_functions.iter().any(|h| h.name == name)
            {
                return Err(corrupt(format_args!("'{name}' is not a function it calls")));
            }
            p.functions.push(name.to_string());
        }
        for _ in 0..r.count()? {
            let global: u32 = r.small()?;
            let otherwise = match r.u8()? {
                CALL_FUNCTION => {
                    let name = p
                        .globals
                        .get(global as usize)
                        .map(|g| g.name.clone())
                        .ok_or_else(|| corrupt("operand out of range"))?;
                    let f = match stdlib::function_id(&name) {
                        Some(id) => Function::Builtin(id),
                        None => Function::Host(env.host(&name)?),
                    };
                    Otherwise::Function(Value::Function(Arc::new(f)))
                }
                CALL_METHOD => Otherwise::Method(r.small()?),
                CALL_UNKNOWN => {
                    let name = p
                        .globals
                        .get(global as usize)
                        .map(|g| g.name.clone())
                        .ok_or_else(|| corrupt("operand out of range"))?;
                    Otherwise::Unknown(values::read_unknown(r, &name)?)
                }
                t => return Err(corrupt(format_args!("unknown call tag {t}"))),
            };
            p.calls.push(NamedCall { global, otherwise });
        }
        for _ in 0..r.count()? {
            let name = Key::from(r.str()?);
            let error = values::read_unknown(r, &name)?;
            p.unknown_functions.push(UnknownFunction { name, error });
        }
        let mut regex_left = env.max_regex_bytes.unwrap_or(u64::MAX);
        for _ in 0..r.count()? {
            p.constants
                .push(values::read_value(r, env, &mut regex_left, 0)?);
        }
        for _ in 0..r.count()? {
            let n = r.count()?;
            let mut code = Vec::with_capacity(n);
            for _ in 0..n {
                code.push(ops::read_op(r, &p.globals)?);
            }
            let mut spans = Vec::with_capacity(n);
            for _ in 0..n {
                spans.push(r.span()?);
            }
            let params = r.small()?;
            let rest = r.bool()?;
            let slots = r.small()?;
            let mut captures = Vec::new();
            for _ in 0..r.count()? {
                captures.push(match (r.u8()?, r.small()?) {
                    (0, s) => Capture::Local(s),
                    (1, s) => Capture::Capture(s),
                    _ => return Err(corrupt("bad capture")),
                });
            }
            let span = r.span()?;
            p.protos.push(Proto {
                code,
                spans,
                params,
                rest,
                slots,
                captures,
                span,
            });
        }
        if r.remaining() != 0 {
            return Err(corrupt("trailing bytes"));
        }
        check(&p, env)?;
        Program::new(p)
    }
}

/// Appends `p` in the stored form.
fn write(p: &ProgramParts, w: &mut Writer) {
    w.len(p.globals.len());
    for g in &p.globals {
        w.str(&g.name);
        w.bool(g.read);
    }
    w.len(p.keys.len());
    for k in &p.keys {
        w.str(k);
    }
    w.len(p.methods.len());
    for m in &p.methods {
        w.str(&m.name);
    }
    w.len(p.key_sets.len());
    for set in &p.key_sets {
        w.len(set.len());
        for k in set {
            w.str(k);
        }
    }
    w.len(p.host_functions.len());
    for h in &p.host_functions {
        w.str(&h.name);
    }
    w.len(p.functions.len());
    for f in &p.functions {
        w.str(f);
    }
    w.len(p.calls.len());
    for c in &p.calls {
        w.uint(u64::from(c.global));
        match &c.otherwise {
            Otherwise::Function(_) => w.u8(CALL_FUNCTION),
            Otherwise::Method(m) => {
                w.u8(CALL_METHOD);
                w.uint(u64::from(*m));
            }
            Otherwise::Unknown(e) => {
                w.u8(CALL_UNKNOWN);
                values::write_error(w, e);
            }
        }
    }
    w.len(p.unknown_functions.len());
    for u in &p.unknown_functions {
        w.str(&u.name);
        values::write_error(w, &u.error);
    }
    w.len(p.constants.len());
    for c in &p.constants {
        values::write_value(w, c);
    }
    w.len(p.protos.len());
    for proto in &p.protos {
        w.len(proto.code.len());
        for &op in &proto.code {
            ops::write_op(w, op);
        }
        for &s in &proto.spans {
            w.span(s);
        }
        w.uint(u64::from(proto.params));
        w.bool(proto.rest);
        w.uint(u64::from(proto.slots));
        w.len(proto.captures.len());
        for c in &proto.captures {
            match *c {
                Capture::Local(s) => (w.u8(0), w.uint(u64::from(s))).1,
                Capture::Capture(s) => (w.u8(1), w.uint(u64::from(s))).1,
            }
        }
        w.span(proto.span);
    }
}

/// The checks a stored program needs beyond [`Program::new`]'s (see the
/// module documentation); operands [`Program::new`] checks are read with
/// `get` here, since it runs after.
fn check(p: &ProgramParts, env: &LoadEnv) -> Result<(), Error> {
    let name_of = |g: usize| p.globals.get(g).map(|g| &*g.name);
    let deny = |what: &str, name: &str, at: Span| -> Result<(), Error> {
        if env.capabilities.allows(name) {
            Ok(())
        } else {
            Err(env.capabilities.denial(what, name, at))
        }
    };
    // The highest local slot and capture each prototype captures from its
    // creator, found once: a closure instruction is then checked at once,
    // however many it captures (no work quadratic in the file).
    let reach: Vec<(Option<u16>, Option<u16>)> = p
        .protos
        .iter()
        .map(|f| {
            let local = f.captures.iter().filter_map(|c| match *c {
                Capture::Local(s) => Some(s),
                Capture::Capture(_) => None,
            });
            let capture = f.captures.iter().filter_map(|c| match *c {
                Capture::Capture(s) => Some(s),
                Capture::Local(_) => None,
            });
            (local.max(), capture.max())
        })
        .collect();
    // The functions called, as a host reads them (`Program::functions`):
    // every built-in or host function an instruction calls is among them.
    let listed: std::collections::HashSet<&str> = p.functions.iter().map(String::as_str).collect();
    for (i, proto) in p.protos.iter().enumerate() {
        let bad = |at: usize, what: &str| corrupt(format_args!("proto {i}, offset {at}: {what}"));
        let stores = proto
            .code
            .iter()
            .filter(|op| matches!(op, Op::StoreLocal(_)))
            .count();
        if proto.slots as usize > proto.params as usize + usize::from(proto.rest) + stores {
            return Err(corrupt(format_args!("proto {i}: more slots than it uses")));
        }
        for (at, op) in proto.code.iter().enumerate() {
            let span = proto.spans.get(at).copied().unwrap_or_default();
            match *op {
                Op::Jump(t)
                | Op::JumpIfFalse(t)
                | Op::JumpIfFalseOrPop(t)
                | Op::JumpIfTrueOrPop(t)
                | Op::JumpIfNotNullOrPop(t)
                | Op::JumpIfNull(t)
                    if t as usize <= at =>
                {
                    return Err(bad(at, "a jump that is not forward"));
                }
                // The names read are the fields a host supplies (a
                // reader that parses only those): one read but not listed
                // would be missing from the context.
                Op::LoadGlobal(g) if p.globals.get(g as usize).is_some_and(|g| !g.read) => {
                    return Err(bad(at, "a name read that is not listed as read"));
                }
                Op::LoadCapture(c) if c as usize >= proto.captures.len() => {
                    return Err(bad(at, "capture out of range"));
                }
                Op::CompareConst { constant, .. } => {
                    if let Some(
                        Value::Array(_) | Value::Object(_) | Value::Function(_) | Value::Regex(_),
                    ) = p.constants.get(constant as usize)
                    {
                        return Err(bad(at, "a comparison with a constant that is no scalar"));
                    }
                }
                Op::Closure(f) => {
                    let Some(&(local, capture)) = reach.get(f as usize) else {
                        continue;
                    };
                    let ok = local.is_none_or(|s| s < proto.slots)
                        && capture.is_none_or(|c| (c as usize) < proto.captures.len());
                    if !ok {
                        return Err(bad(at, "a closure captures what its creator lacks"));
                    }
                }
                Op::CallBuiltin { global, .. } | Op::CallBuiltinMark { global, .. } => {
                    if let Some(name) = name_of(global as usize) {
                        deny("function", name, span)?;
                        if !listed.contains(name) {
                            return Err(bad(at, "a function called that is not listed"));
                        }
                    }
                }
                Op::CallHost { index, global, .. } | Op::CallHostMark { index, global } => {
                    let host = p.host_functions.get(index as usize).map(|h| &*h.name);
                    if host != name_of(global as usize) {
                        return Err(bad(at, "a host call under another name"));
                    }
                    if let Some(name) = host {
                        deny("function", name, span)?;
                        if !listed.contains(name) {
                            return Err(bad(at, "a function called that is not listed"));
                        }
                    }
                }
                Op::CallGlobal { call, .. } | Op::CallGlobalMark(call) | Op::LoadCallee(call) => {
                    if let Some(name) = p
                        .calls
                        .get(call as usize)
                        .and_then(|c| name_of(c.global as usize))
                    {
                        let what = if stdlib::function_id(name).is_none()
                            && !env.host_functions.iter().any(|h| h.name == name)
                            && stdlib::method_id(name).is_some()
                        {
                            "method"
                        } else {
                            "function"
                        };
                        deny(what, name, span)?;
                    }
                }
                Op::CallMethod { method, .. } | Op::CallMethodMark(method) => {
                    if let Some(m) = p.methods.get(method as usize) {
                        deny("method", &m.name, span)?;
                    }
                }
                _ => {}
            }
        }
    }
    proportion(p, env.source_bytes)?;
    // Entries no instruction uses are held to the same rules.
    for m in &p.methods {
        deny("method", &m.name, Span::default())?;
    }
    for f in &p.functions {
        deny("function", f, Span::default())?;
    }
    Ok(())
}

/// Instructions a stored program may have per byte of its source (plus
/// [`SLACK`]): a compiled program has at most about one (a run of `!`:
/// 1.09 for `!!!!!!!!!!a`; destructuring 0.82; the conformance cases at
/// most 0.31).
const OPS_PER_BYTE: usize = 2;

/// Bytes of names, keys and string constants the instructions may use
/// together (a closure's captures counting one each), per byte of source
/// (plus [`SLACK`]): a compiled instruction's
/// name is written in the source where it is used (a destructured key
/// counts twice, for its field read and its rest pattern's key set); the
/// conformance cases of 40 bytes or more have at most 0.95.
const NAME_BYTES_PER_BYTE: usize = 4;

const SLACK: usize = 64;

/// Refuses code out of proportion to the source stored with it. The VM
/// charges one fuel unit for an instruction whatever it does with the
/// name it uses (hashing a method name, comparing a field's key, building
/// the set of a rest pattern's keys) and does not charge its value stack
/// (one value an instruction at most) to the memory budget: a compiled
/// program keeps both in proportion to its source, since each instruction
/// comes from source text naming what it uses. A stored one must too, or
/// a table entry of a million bytes used by a million instructions would
/// be a million times the work charged.
fn proportion(p: &ProgramParts, source_bytes: usize) -> Result<(), Error> {
    let ops = p
        .protos
        .iter()
        .fold(0usize, |n, proto| n.saturating_add(proto.code.len()));
    if ops
        > source_bytes
            .saturating_mul(OPS_PER_BYTE)
            .saturating_add(SLACK)
    {
        return Err(corrupt(format_args!(
            "{ops} instructions for a source of {source_bytes} bytes"
        )));
    }
    let global = |g: usize| p.globals.get(g).map_or(0, |g| g.name.len());
    let key = |k: u32| p.keys.get(k as usize).map_or(0, |k| k.len());
    let constant = |c: u32| match p.constants.get(c as usize) {
        Some(Value::String(s)) => s.len(),
        _ => 0,
    };
    let mut names = 0usize;
    for op in p.protos.iter().flat_map(|proto| &proto.code) {
        let n = match *op {
            Op::Const(c) | Op::CompareConst { constant: c, .. } => constant(c),
            Op::LoadGlobal(g) => global(g as usize),
            Op::GetField(k) | Op::GetLength(k) | Op::PatternField(k) => key(k),
            Op::GetLocalField { key: k, .. } => key(k),
            Op::CallBuiltin { global: g, .. }
            | Op::CallBuiltinMark { global: g, .. }
            | Op::CallHost { global: g, .. }
            | Op::CallHostMark { global: g, .. } => global(g as usize),
            Op::CallGlobal { call, .. } | Op::CallGlobalMark(call) | Op::LoadCallee(call) => p
                .calls
                .get(call as usize)
                .map_or(0, |c| global(c.global as usize)),
            Op::CallMethod { method, .. } | Op::CallMethodMark(method) => {
                p.methods.get(method as usize).map_or(0, |m| m.name.len())
            }
            // A closure copies each capture when created.
            Op::Closure(f) => p.protos.get(f as usize).map_or(0, |f| f.captures.len()),
            Op::ObjectRest(k) => p
                .key_sets
                .get(k as usize)
                .map_or(0, |set| set.iter().map(|k| k.len().max(1)).sum()),
            _ => 0,
        };
        names = names.saturating_add(n);
    }
    if names
        > source_bytes
            .saturating_mul(NAME_BYTES_PER_BYTE)
            .saturating_add(SLACK)
    {
        return Err(corrupt(format_args!(
            "its instructions use {names} bytes of names for a source of {source_bytes} bytes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
