//! Bytecode: the immutable, shareable output of the compiler.
//!
//! A [`Program`] is a set of function prototypes ([`Proto`]; prototype 0 is
//! the expression itself, the others are its arrow functions), each with a
//! flat instruction array of [`Op`]s and a parallel position table (one
//! [`Span`] per instruction, read only on the error path), plus the tables
//! the instructions index: the constant pool, the context names read, the
//! property names, the method names, the key sets of object rest patterns
//! and the host functions captured at compile time.
//!
//! Programs are built by `xpr-compiler` (or by hand in tests) through
//! [`Program::new`], which validates every operand once, so the VM never
//! meets an index out of range.

pub mod cost;
mod disasm;
mod op;
mod parts;
mod paths;
pub mod store;

pub use cost::{CostBound, Sizes};
pub(crate) use disasm::show_value;
pub use op::{Capture, Cmp, Op};
pub use parts::{Global, MethodRef, NamedCall, Otherwise, ProgramParts, Proto, UnknownFunction};

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Span};
use crate::value::{Key, Value, key_hash};
use crate::vm::StraightCode;

/// A compiled program: immutable, `Send + Sync`, cheap to clone (one `Arc`).
#[derive(Clone, Debug)]
pub struct Program {
    inner: Arc<Inner>,
}

/// A program's parts and what is derived from them once, when validated.
#[derive(Debug)]
struct Inner {
    parts: ProgramParts,
    /// The names of the globals read in value position (the free variables).
    free: Vec<Key>,
    /// The names of all globals: read or called.
    names: Vec<Key>,
    /// `key_hash` of each global's name: context lookups hash nothing.
    global_hashes: Vec<u64>,
    /// `key_hash` of each property name: field reads hash nothing.
    key_hashes: Vec<u64>,
    /// [`Program::heap_bytes`].
    heap_bytes: u64,
    /// The main prototype in the straight-line tier's form, when it is
    /// straight-line code over scalars (see `vm/straight.rs`).
    straight: Option<StraightCode>,
    /// Whether the main prototype reads a field of a context name
    /// (`LoadGlobal` then `GetField`).
    global_fields: bool,
}

impl Inner {
    fn new(parts: ProgramParts) -> Self {
        let straight = crate::vm::straight_code(&parts);
        Inner {
            free: parts
                .globals
                .iter()
                .filter(|g| g.read)
                .map(|g| g.name.clone())
                .collect(),
            names: parts.globals.iter().map(|g| g.name.clone()).collect(),
            global_hashes: parts.globals.iter().map(|g| key_hash(&g.name)).collect(),
            key_hashes: parts.keys.iter().map(|k| key_hash(k)).collect(),
            heap_bytes: heap_bytes(&parts)
                .saturating_add(straight.as_ref().map_or(0, StraightCode::heap_bytes)),
            straight,
            global_fields: parts.protos.first().is_some_and(|p| {
                p.code
                    .windows(2)
                    .any(|w| matches!(w, [Op::LoadGlobal(_), Op::GetField(_)]))
            }),
            parts,
        }
    }
}

/// An estimate of the heap a program's parts hold (see
/// [`Program::heap_bytes`]).
fn heap_bytes(parts: &ProgramParts) -> u64 {
    use std::mem::size_of;
    let name = |k: &str| (size_of::<Key>() + 16 + k.len()) as u64;
    let sum = |it: &mut dyn Iterator<Item = u64>| it.fold(0u64, u64::saturating_add);
    let protos = sum(&mut parts.protos.iter().map(|p| {
        let per_op = (size_of::<Op>() + size_of::<Span>()) as u64;
        (size_of::<Proto>() as u64)
            .saturating_add((p.code.len() as u64).saturating_mul(per_op))
            .saturating_add((p.captures.len() * size_of::<Capture>()) as u64)
    }));
    let constants = sum(&mut parts.constants.iter().map(|v| {
        let compiled = match v {
            Value::Regex(r) => r.compiled_bytes(),
            _ => 0,
        };
        (size_of::<Value>() as u64)
            .saturating_add(v.logical_size())
            .saturating_add(compiled)
    }));
    let globals = sum(&mut parts.globals.iter().map(|g| name(&g.name) + 16));
    let keys = sum(&mut parts.keys.iter().map(|k| name(k) + 8));
    let methods = sum(&mut parts.methods.iter().map(|m| name(&m.name) + 8));
    let key_sets = sum(&mut parts
        .key_sets
        .iter()
        .map(|set| sum(&mut set.iter().map(|k| name(k))) + 24));
    let functions = sum(&mut parts.functions.iter().map(|f| name(f)));
    let calls = (parts.calls.len() * size_of::<NamedCall>()) as u64;
    let unknown = sum(&mut parts
        .unknown_functions
        .iter()
        .map(|u| name(&u.name) + 64 + u.error.message().len() as u64));
    let hosts = (parts.host_functions.len() * size_of::<usize>()) as u64;
    [
        size_of::<Inner>() as u64,
        protos,
        constants,
        // Names again: the free and all names, and their hashes.
        globals.saturating_mul(2),
        keys,
        methods,
        key_sets,
        functions,
        calls,
        unknown,
        hosts,
    ]
    .into_iter()
    .fold(0, u64::saturating_add)
}

impl Default for Program {
    /// The program of the expression `null`.
    fn default() -> Self {
        let parts = ProgramParts {
            protos: vec![Proto {
                code: vec![Op::Null, Op::Return],
                spans: vec![Span::default(); 2],
                ..Proto::default()
            }],
            ..ProgramParts::default()
        };
        Program::new(parts).unwrap_or_else(|_| unreachable_program())
    }
}

#[cold]
fn unreachable_program() -> Program {
    // Only reachable if validation rejected the two-instruction program
    // above, which it cannot; kept total instead of panicking.
    Program {
        inner: Arc::new(Inner::new(ProgramParts::default())),
    }
}

fn invalid(detail: String) -> Error {
    Error::new(ErrorKind::Value, format!("invalid program: {detail}"))
}

impl Program {
    /// Validates `parts` and wraps them.
    ///
    /// # Errors
    /// An [`ErrorKind::Value`] error `invalid program: ...` when an operand
    /// is out of range, a jump leaves its prototype, a position table does
    /// not match its code, or a prototype does not end with [`Op::Return`].
    pub fn new(parts: ProgramParts) -> Result<Program, Error> {
        if parts.protos.is_empty() {
            return Err(invalid("no prototype".into()));
        }
        for (p, proto) in parts.protos.iter().enumerate() {
            if proto.code.len() != proto.spans.len() {
                return Err(invalid(format!("proto {p}: position table length")));
            }
            if proto.code.last() != Some(&Op::Return) {
                return Err(invalid(format!("proto {p}: does not end with Return")));
            }
            if proto.code.len() >= u32::MAX as usize {
                return Err(invalid(format!("proto {p}: too long")));
            }
            let slots = proto.slots as usize;
            if (proto.params as usize) + usize::from(proto.rest) > slots {
                return Err(invalid(format!("proto {p}: parameters exceed slots")));
            }
            let len = proto.code.len();
            for (i, op) in proto.code.iter().enumerate() {
                let bad = |what: &str| Err(invalid(format!("proto {p}, offset {i}: {what}")));
                let ok = match *op {
                    Op::Const(c) | Op::CompareConst { constant: c, .. } => {
                        (c as usize) < parts.constants.len()
                    }
                    Op::LoadLocal(s) | Op::StoreLocal(s) => (s as usize) < slots,
                    Op::GetLocalField { slot, key } => {
                        (slot as usize) < slots && (key as usize) < parts.keys.len()
                    }
                    Op::LoadGlobal(g) => (g as usize) < parts.globals.len(),
                    Op::GetField(k) | Op::GetLength(k) | Op::PatternField(k) => {
                        (k as usize) < parts.keys.len()
                    }
                    Op::Jump(t)
                    | Op::JumpIfFalse(t)
                    | Op::JumpIfFalseOrPop(t)
                    | Op::JumpIfTrueOrPop(t)
                    | Op::JumpIfNotNullOrPop(t)
                    | Op::JumpIfNull(t) => (t as usize) < len,
                    Op::CallBuiltin { global, .. } | Op::CallBuiltinMark { global, .. } => {
                        (global as usize) < parts.globals.len()
                    }
                    Op::CallHost { index, global, .. } | Op::CallHostMark { index, global } => {
                        (index as usize) < parts.host_functions.len()
                            && (global as usize) < parts.globals.len()
                    }
                    Op::CallGlobal { call, .. }
                    | Op::CallGlobalMark(call)
                    | Op::LoadCallee(call) => (call as usize) < parts.calls.len(),
                    Op::CallMethod { method, .. } | Op::CallMethodMark(method) => {
                        (method as usize) < parts.methods.len()
                    }
                    Op::Closure(f) => (f as usize) < parts.protos.len() && f != 0,
                    Op::ObjectRest(k) => (k as usize) < parts.key_sets.len(),
                    _ => true,
                };
                if !ok {
                    return bad(&format!("operand out of range in {op:?}"));
                }
            }
        }
        for (i, call) in parts.calls.iter().enumerate() {
            let method = match call.otherwise {
                Otherwise::Method(m) => (m as usize) < parts.methods.len(),
                _ => true,
            };
            if (call.global as usize) >= parts.globals.len() || !method {
                return Err(invalid(format!("call {i}: operand out of range")));
            }
        }
        Ok(Program {
            inner: Arc::new(Inner::new(parts)),
        })
    }

    /// The parts, for the VM.
    #[inline]
    pub(crate) fn parts(&self) -> &ProgramParts {
        &self.inner.parts
    }

    /// `key_hash` of each global's name, by global index.
    #[inline]
    pub(crate) fn global_hashes(&self) -> &[u64] {
        &self.inner.global_hashes
    }

    /// `key_hash` of each property name, by key index.
    #[inline]
    pub(crate) fn key_hashes(&self) -> &[u64] {
        &self.inner.key_hashes
    }

    /// The main prototype in the straight-line tier's form, when it is
    /// straight-line code over scalars.
    #[inline]
    pub(crate) fn straight_code(&self) -> Option<&StraightCode> {
        self.inner.straight.as_ref()
    }

    /// Whether the main prototype reads a field of a context name.
    #[inline]
    pub(crate) fn reads_fields_of_globals(&self) -> bool {
        self.inner.global_fields
    }

    /// Whether two handles share the same program.
    pub fn ptr_eq(&self, other: &Program) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The context fields the program may read as values (its free
    /// variables), in order of first use. A name it calls is looked up in
    /// the context too (a function of that name wins over the built-in;
    /// any value is called for a name that is no function):
    /// [`Program::context_names`] lists both.
    pub fn free_variables(&self) -> &[Key] {
        &self.inner.free
    }

    /// Every name the program may look up in the context, in order of
    /// first use: its free variables and the global names it calls
    /// (`max` in `max(a, b)`, since a function `max` in the context would
    /// be called instead of the built-in, and `score` in `score(1)`, whose
    /// context value is called whatever it is).
    pub fn context_names(&self) -> &[Key] {
        &self.inner.names
    }

    /// The names of the built-in and host functions the program calls, in
    /// order of first use.
    pub fn functions(&self) -> Vec<&str> {
        self.inner
            .parts
            .functions
            .iter()
            .map(String::as_str)
            .collect()
    }

    /// The functions the program calls by a name that is neither a local,
    /// a built-in nor a host function, in order of first use. Compiling
    /// succeeds (the spec lists `Unknown function` among evaluation errors,
    /// so a call that is never reached is no error), but a call that is
    /// reached fails with the error given here unless the context holds a
    /// function of that name: a tool can report them before running.
    pub fn unknown_functions(&self) -> &[UnknownFunction] {
        &self.inner.parts.unknown_functions
    }

    /// The prototypes (0 is the expression).
    pub fn protos(&self) -> &[Proto] {
        &self.inner.parts.protos
    }

    /// The constant pool.
    pub fn constants(&self) -> &[Value] {
        &self.inner.parts.constants
    }

    /// The property names [`Op::GetField`], [`Op::GetLocalField`],
    /// [`Op::GetLength`] and [`Op::PatternField`] index.
    pub fn keys(&self) -> &[Key] {
        &self.inner.parts.keys
    }

    /// An estimate of the heap bytes the program holds: its code and
    /// position tables, its constants (a regex literal by
    /// [`crate::Regex::compiled_bytes`]), its names and error texts. For
    /// hosts that keep many programs (`xpr batch`'s cache bounds itself by
    /// it).
    pub fn heap_bytes(&self) -> u64 {
        self.inner.heap_bytes
    }

    /// The compiled bytes of the program's regex literals together
    /// ([`crate::Regex::compiled_bytes`] of each; an identical literal is
    /// compiled once).
    pub fn regex_bytes(&self) -> u64 {
        self.inner
            .parts
            .constants
            .iter()
            .filter_map(|v| match v {
                Value::Regex(r) => Some(r.compiled_bytes()),
                _ => None,
            })
            .fold(0, u64::saturating_add)
    }

    /// The method names the program calls (`x.m(...)`, `x |> m(...)`),
    /// each with its built-in id when some type has such a method.
    pub fn methods(&self) -> &[MethodRef] {
        &self.inner.parts.methods
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_is_send_sync_and_op_small() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Program>();
        assert_send_sync::<Value>();
        assert!(size_of::<Op>() <= 8);
    }

    #[test]
    fn validation_rejects_bad_operands() {
        let parts = ProgramParts {
            protos: vec![Proto {
                code: vec![Op::Const(3), Op::Return],
                spans: vec![Span::default(); 2],
                ..Proto::default()
            }],
            ..ProgramParts::default()
        };
        let err = Program::new(parts).unwrap_err();
        assert!(err.message().contains("out of range"), "{err}");
        let parts = ProgramParts {
            protos: vec![Proto {
                code: vec![Op::Null],
                spans: vec![Span::default()],
                ..Proto::default()
            }],
            ..ProgramParts::default()
        };
        assert!(Program::new(parts).is_err());
    }
}
