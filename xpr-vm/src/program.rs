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

use std::fmt::{self, Write as _};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Span};
use crate::function::HostFunction;
use crate::value::{Key, Value, key_hash};

/// One instruction. Operands are indices into the program's tables, local
/// slot numbers or absolute jump targets (instruction offsets within the
/// same prototype). Each variant documents its stack effect as
/// `before => after` (top of stack on the right).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=> constants[i]`
    Const(u32),
    /// `=> null`
    Null,
    /// `=> true`
    True,
    /// `=> false`
    False,
    /// `=> n` (a small integer as a number)
    Int(i32),
    /// `v =>`
    Pop,
    /// `a, b => b, a`
    Swap,
    /// `=> locals[slot]`
    LoadLocal(u16),
    /// `v =>` and `locals[slot] = v`
    StoreLocal(u16),
    /// `=> captures[i]` of the running closure
    LoadCapture(u16),
    /// `=> context[globals[i].name]`, else `globals[i].fallback`, else the
    /// error `Unknown identifier 'x'`. The fallback (a constant `PI`/`E` or a
    /// function value) is the part of value-position name resolution that
    /// can only be decided at run time: the context is consulted first.
    LoadGlobal(u32),
    /// `obj => obj.keys[i]`: an object's field or null; error on null;
    /// null for any other value.
    GetField(u32),
    /// `=> locals[slot].keys[key]`: [`Op::LoadLocal`] then [`Op::GetField`]
    /// in one instruction, without reference-counting the local.
    GetLocalField {
        /// The local slot holding the object.
        slot: u16,
        /// Index into the property names.
        key: u32,
    },
    /// `obj => obj.length`: the length of an array, the length in characters
    /// of a string, the field `keys[i]` (`"length"`) of an object.
    GetLength(u32),
    /// `obj, index => obj[index]` (arrays by number, negative from the end;
    /// objects by string key; strings by character index).
    Index,
    /// `a, b => a + b` (numbers or strings)
    Add,
    /// `a, b => a - b`
    Sub,
    /// `a, b => a * b`
    Mul,
    /// `a, b => a / b`
    Div,
    /// `a, b => a % b` (JavaScript remainder)
    Rem,
    /// `a, b => a ** b`
    Pow,
    /// `a, b => a == b` (structural)
    Eq,
    /// `a, b => a != b`
    Ne,
    /// `a, b => a < b`
    Lt,
    /// `a, b => a <= b`
    Le,
    /// `a, b => a > b`
    Gt,
    /// `a, b => a >= b`
    Ge,
    /// `a => a <cmp> constants[i]`: a comparison with a constant right
    /// operand, without pushing (and reference-counting) the constant.
    CompareConst {
        /// Which comparison.
        cmp: Cmp,
        /// Index into the constant pool (a scalar).
        constant: u32,
    },
    /// `v => !v` (truthiness)
    Not,
    /// `v => -v` (numbers only)
    Neg,
    /// `=>`, continue at the target.
    Jump(u32),
    /// `v =>`, jump when `v` is falsy.
    JumpIfFalse(u32),
    /// `v => v` and jump when `v` is falsy, else `v =>` (`&&`).
    JumpIfFalseOrPop(u32),
    /// `v => v` and jump when `v` is truthy, else `v =>` (`||`).
    JumpIfTrueOrPop(u32),
    /// `v => v` and jump when `v` is not null, else `v =>` (`??`, defaults).
    JumpIfNotNullOrPop(u32),
    /// `v => v`, jump when `v` is null (`?.`: the target ends the chain).
    JumpIfNull(u32),
    /// `v1 .. vn => [v1, .., vn]`
    Array(u32),
    /// `k1, v1 .. kn, vn => {k1: v1, ..}` (keys are strings)
    Object(u32),
    /// Records a mark `n` values below the top of the stack (for spreads).
    Mark(u16),
    /// `(mark) v1 .. vn => [v1, .., vn]`, consuming the last mark.
    ArrayMark,
    /// `(mark) k1, v1 .. => {k1: v1, ..}`, consuming the last mark.
    ObjectMark,
    /// `arr => arr[0], .., arr[n-1]` (array literal spread)
    SpreadArray,
    /// `obj => k1, v1, ..` (object literal spread)
    SpreadObject,
    /// `arr => arr[0], .., arr[n-1]` (argument spread)
    SpreadArgs,
    /// `s1 .. sn => s1 + .. + sn`, non-strings converted as `string()` does.
    Template(u32),
    /// `f, a1 .. an => f(a1, .., an)` for any function value.
    CallValue(u16),
    /// `f, (mark) a1 .. => f(a1, ..)`, consuming the last mark.
    CallValueMark,
    /// `a1 .. an => builtin(a1, .., an)`, unless the context has a
    /// function named `globals[global]` (the built-in's name): then that
    /// function is called. A context value that is no function does not
    /// hide the built-in.
    CallBuiltin {
        /// Built-in function id (`stdlib::function_id`).
        id: u16,
        /// Argument count.
        argc: u16,
        /// Index into the globals: the name looked up in the context.
        global: u16,
    },
    /// `(mark) a1 .. => builtin(a1, ..)`, consuming the last mark; the
    /// context is consulted first as for [`Op::CallBuiltin`].
    CallBuiltinMark {
        /// Built-in function id.
        id: u16,
        /// Index into the globals.
        global: u16,
    },
    /// `a1 .. an => host(a1, .., an)`, unless the context has a function
    /// named `globals[global]` (as [`Op::CallBuiltin`]).
    CallHost {
        /// Index into the program's host functions.
        index: u16,
        /// Argument count.
        argc: u16,
        /// Index into the globals.
        global: u16,
    },
    /// `(mark) a1 .. => host(a1, ..)`, consuming the last mark.
    CallHostMark {
        /// Index into the program's host functions.
        index: u16,
        /// Index into the globals.
        global: u16,
    },
    /// `a1 .. an => name(a1, .., an)` for a name that is neither a local, a
    /// built-in nor a host function (`calls[call]`): for a pipe target that
    /// is a method, the context's function of that name, else the method
    /// called on `a1`; for any other name, the context's value of that name
    /// (a type error when it is no function), else the error `Unknown
    /// function 'name'`.
    CallGlobal {
        /// Index into the program's named calls.
        call: u16,
        /// Argument count (a pipe's piped value included).
        argc: u16,
    },
    /// `(mark) a1 .. => name(a1, ..)`, consuming the last mark.
    CallGlobalMark(u16),
    /// `=> f`: the callee of an optional call `name?.(...)` (`calls[i]`):
    /// for a built-in or host function's name, the context's function of
    /// that name, else that function; for any other name, the context's
    /// value (a type error when it is neither null nor a function), else
    /// the error `Unknown function 'name'`.
    LoadCallee(u16),
    /// `recv, a1 .. an => recv.m(a1, .., an)`: an own function-valued field
    /// `m` of an object receiver, else the built-in method of the receiver's
    /// type, else a type error.
    CallMethod {
        /// Index into the program's method names.
        method: u16,
        /// Argument count.
        argc: u16,
    },
    /// `recv, (mark) a1 .. => recv.m(a1, ..)`, consuming the last mark.
    CallMethodMark(u16),
    /// `=> closure` of prototype `i`, capturing per its capture list.
    Closure(u32),
    /// `v => v`; error unless `v` may be destructured by an object pattern.
    CheckObject,
    /// `v => v`; error unless `v` is an array.
    CheckArray,
    /// `src => src, src.keys[i]` (null when absent or not an object).
    PatternField(u32),
    /// `arr => arr, arr[i]` (null when out of range).
    PatternIndex(u32),
    /// `src => src, {fields of src not in key_sets[i]}`
    ObjectRest(u32),
    /// `arr => arr, arr[i..]`
    ArrayRest(u32),
    /// `v =>` and return `v` from the running function.
    Return,
}

const _: () = assert!(size_of::<Op>() <= 8);

/// The comparison of [`Op::CompareConst`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Cmp {
    /// The operator's source text.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

/// Where a closure's captured value comes from, in the enclosing function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// The enclosing function's local slot.
    Local(u16),
    /// The enclosing function's own capture.
    Capture(u16),
}

/// A function prototype: the code of the expression (prototype 0) or of one
/// arrow function.
#[derive(Debug, Clone, Default)]
pub struct Proto {
    /// Instructions; the last one is [`Op::Return`].
    pub code: Vec<Op>,
    /// One span per instruction (character offsets), for errors.
    pub spans: Vec<Span>,
    /// Declared parameters (not counting the rest parameter); they occupy
    /// local slots `0..params`. Missing arguments are null, extra ones dropped.
    pub params: u16,
    /// Whether a rest parameter collects the extra arguments into slot `params`.
    pub rest: bool,
    /// Local slots in all (parameters, rest, `let` and destructured names).
    pub slots: u16,
    /// What the closure captures when created, in order.
    pub captures: Vec<Capture>,
    /// Where the arrow function stands in the source.
    pub span: Span,
}

/// A name the program looks up in the context: read in value position
/// ([`Op::LoadGlobal`]) or called ([`Op::CallBuiltin`], [`Op::CallGlobal`],
/// ...), with what it means in value position when the context lacks it
/// (resolution order: context, `PI`/`E`, built-in and host functions as
/// values, else `Unknown identifier`).
#[derive(Debug, Clone)]
pub struct Global {
    /// The name.
    pub name: Key,
    /// The value when the context has no such field.
    pub fallback: Option<Value>,
    /// Whether the program reads the name in value position (a free
    /// variable); false for a name it only calls.
    pub read: bool,
}

/// A call of a global name that is not a built-in or host function, or an
/// optional call of any global name ([`Op::CallGlobal`], [`Op::LoadCallee`]).
#[derive(Debug, Clone)]
pub struct NamedCall {
    /// Index into the globals: the name, looked up in the context first.
    pub global: u32,
    /// What the name means when the context has no function of that name
    /// (for [`Otherwise::Unknown`]: no value at all).
    pub otherwise: Otherwise,
}

/// The meaning of a called name the context has no function for: a
/// function or method is called whatever value the context holds under
/// that name; for `Unknown`, the context's value is called when it has one.
#[derive(Debug, Clone)]
pub enum Otherwise {
    /// The built-in or host function of that name, as a value.
    Function(Value),
    /// A pipe target `x |> m(...)`: the method `methods[i]` of the piped value.
    Method(u16),
    /// Nothing: the message of the `Unknown function 'f'` error (with its hint).
    Unknown(Box<str>),
}

/// A function the program calls by a name that is neither a local, a
/// built-in nor a host function: calling it fails with
/// `Unknown function 'f'` unless the context supplies a function of that
/// name. Reported before running by [`Program::unknown_functions`].
#[derive(Debug, Clone)]
pub struct UnknownFunction {
    /// The name.
    pub name: Key,
    /// The error a call raises when reached (its did-you-mean hint
    /// included), at the position of the first call in the source.
    pub error: Error,
}

/// A method name used in a call, with its built-in method id if any type has it.
#[derive(Debug, Clone)]
pub struct MethodRef {
    /// The name after the dot.
    pub name: Key,
    /// `stdlib::method_id(name)`.
    pub id: Option<u16>,
}

/// Everything a [`Program`] is made of; [`Program::new`] validates it.
#[derive(Debug, Clone, Default)]
pub struct ProgramParts {
    /// Prototype 0 is the expression; the others are arrow functions.
    pub protos: Vec<Proto>,
    /// The constant pool.
    pub constants: Vec<Value>,
    /// Context names read ([`Op::LoadGlobal`]).
    pub globals: Vec<Global>,
    /// Property names ([`Op::GetField`], [`Op::PatternField`]).
    pub keys: Vec<Key>,
    /// Method names ([`Op::CallMethod`]).
    pub methods: Vec<MethodRef>,
    /// Key sets excluded by object rest patterns ([`Op::ObjectRest`]).
    pub key_sets: Vec<Vec<Key>>,
    /// Host functions ([`Op::CallHost`]), captured at compile time.
    pub host_functions: Vec<Arc<HostFunction>>,
    /// Names of the built-in and host functions called, without repeats.
    pub functions: Vec<String>,
    /// Calls of global names that are not built-in or host functions, and
    /// optional calls of global names ([`Op::CallGlobal`], [`Op::LoadCallee`]).
    pub calls: Vec<NamedCall>,
    /// The names called that are no function, in order of first use.
    pub unknown_functions: Vec<UnknownFunction>,
}

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
}

impl Inner {
    fn new(parts: ProgramParts) -> Self {
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
            heap_bytes: heap_bytes(&parts),
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
