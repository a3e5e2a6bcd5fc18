//! What a program is made of: prototypes with their code and position
//! tables, and the tables their instructions index.

use std::sync::Arc;

use super::{Capture, Op};
use crate::error::{Error, Span};
use crate::function::HostFunction;
use crate::value::{Key, Value};

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
///
/// [`Program::unknown_functions`]: super::Program::unknown_functions
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
///
/// [`Program`]: super::Program
/// [`Program::new`]: super::Program::new
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
