//! Lowers an XPR AST to a bytecode [`xpr_vm::Program`] (issue: compiler and VM).
//!
//! Everything that can be decided before seeing data is decided here, once:
//!
//! - `let` bindings, arrow parameters and destructured names become numbered
//!   local slots; arrow functions capture the values they use by value
//!   (bindings are immutable, so this is exact);
//! - names that are not locals are looked up in the context first, at run
//!   time (the spec's resolution order). In value position `x` reads the
//!   context field `x`, else the constant `PI`/`E`, else the built-in or
//!   host function `x` as a value, else fails with `Unknown identifier 'x'`
//!   ([`xpr_vm::Op::LoadGlobal`] carries the fallback). In call position
//!   `f(...)` calls a local function, else the context's function `f`,
//!   else the built-in, else the host function (a context value that is no
//!   function hides neither), else the context's value `f` (a type error
//!   unless callable), else fails when reached with `Unknown function 'f'`
//!   (an evaluation error in the spec: a call in a branch never taken is no
//!   error). The call instructions carry the function found at compile
//!   time, and the VM asks the context once per run for a name under which
//!   it has no function ([`xpr_vm::Op::CallBuiltin`]); [`xpr_vm::Program::unknown_functions`]
//!   lists the names that are no function, for tools to report before running;
//! - `&&`, `||`, `??`, `?:` and `?.` become jumps; an optional chain jumps
//!   to its end with null;
//! - pipes, spreads, templates and destructuring become instructions;
//! - unary and binary operators on scalar literals are folded when the
//!   result is a scalar; an error found while folding is left for run time.
//!
//! ```
//! # use xpr_syntax::ast::{Expr, ExprKind, BinaryOp, Span};
//! let one = Expr { kind: ExprKind::Number(1.0), span: Span::new(0, 1) };
//! let two = Expr { kind: ExprKind::Number(2.0), span: Span::new(4, 5) };
//! let sum = Expr {
//!     kind: ExprKind::Binary { op: BinaryOp::Add, lhs: Box::new(one), rhs: Box::new(two) },
//!     span: Span::new(0, 5),
//! };
//! let program = xpr_compiler::compile(&sum, &xpr_compiler::CompileEnv::default()).unwrap();
//! let mut vm = xpr_vm::Vm::new();
//! let v = vm.run(&program, &(), &xpr_vm::RunOptions::default()).unwrap();
//! assert_eq!(v, xpr_vm::Value::Number(3.0));
//! ```

mod arrow;
mod calls;
mod emit;
mod errors;
mod expr;
mod fold;
mod fusion;
mod pattern;
mod scope;
mod tables;

use std::sync::Arc;

use xpr_syntax::ast::Expr;
use xpr_vm::program::{ProgramParts, Proto};
use xpr_vm::stdlib;
use xpr_vm::{Capabilities, Error, HostFunction, Key, Op, Program};

use calls::CallKind;
use scope::FnState;
use tables::ConstKey;

/// What the compiler knows about the embedding: the host functions
/// expressions may call by name (after locals, context variables and
/// built-ins), and the compile-time budget of regex literals.
#[derive(Debug, Clone)]
pub struct CompileEnv {
    /// Host functions, looked up by [`HostFunction::name`].
    pub host_functions: Vec<Arc<HostFunction>>,
    /// Compiled bytes all regex literals of the program may have together
    /// (see [`xpr_vm::Regex::compiled_bytes`]), `None` for no limit beyond
    /// each regex's own. Default
    /// [`stdlib::regex::DEFAULT_PROGRAM_REGEX_BYTES`] (8 MiB).
    pub max_regex_bytes: Option<u64>,
    /// The functions and methods expressions may use (default: all). The
    /// first call of any other name that is not a local, and the first
    /// method call of any other name, is an error
    /// ([`Capabilities::denial`], kind [`xpr_vm::ErrorKind::Access`]); a built-in
    /// or host function's name that is not allowed, read as a value, is
    /// only a context name (no function stands behind it).
    pub capabilities: Capabilities,
}

impl Default for CompileEnv {
    fn default() -> Self {
        CompileEnv {
            host_functions: Vec::new(),
            max_regex_bytes: Some(stdlib::regex::DEFAULT_PROGRAM_REGEX_BYTES),
            capabilities: Capabilities::all(),
        }
    }
}

/// Nesting of expressions the compiler accepts (the parser's own AST depth
/// limit, 50 by default, is far lower); deeper input fails with a depth
/// error instead of exhausting the stack. An arrow function and a pattern
/// default count two levels each (their frames take about twice the stack),
/// so the deepest accepted input of any form compiles within about 1.5 MiB
/// of stack in a debug build (a 2 MiB thread).
pub const MAX_NESTING: u32 = 400;

/// Compiles an expression's AST into a program.
///
/// A call of a name that is neither a local, a built-in nor a host function
/// compiles (it fails with `Unknown function 'f'` when reached, unless the
/// context supplies a function of that name); the program lists such names
/// in [`Program::unknown_functions`].
///
/// # Errors
/// `Access denied:
/// '__proto__' is a restricted property` ([`ErrorKind::Access`]) for a
/// restricted name after a dot, as an object-literal key or in a
/// destructuring pattern; `duplicate binding 'a'` ([`ErrorKind::Parse`]);
/// `invalid regex pattern ...` ([`ErrorKind::Regex`]) for a bad regex
/// literal; `Regex size limit exceeded: ...` ([`ErrorKind::Regex`]) at the
/// first regex literal that would take the program's regex literals past
/// [`CompileEnv::max_regex_bytes`] (literals are measured in source order
/// and refused before they are compiled; identical literals are compiled
/// once and count once); a depth error past [`MAX_NESTING`].
///
/// [`ErrorKind::Access`]: xpr_vm::ErrorKind::Access
/// [`ErrorKind::Parse`]: xpr_vm::ErrorKind::Parse
/// [`ErrorKind::Regex`]: xpr_vm::ErrorKind::Regex
pub fn compile(expr: &Expr, env: &CompileEnv) -> Result<Program, Error> {
    let mut c = Compiler {
        env,
        parts: ProgramParts::default(),
        funcs: Vec::new(),
        consts: HashMap::default(),
        globals: HashMap::default(),
        calls: HashMap::default(),
        unknown: HashSet::default(),
        keys: HashMap::default(),
        methods: HashMap::default(),
        hosts: HashMap::default(),
        chain: None,
        nesting: 0,
        regex_left: env.max_regex_bytes.unwrap_or(u64::MAX),
    };
    c.parts.protos.push(Proto::default());
    c.funcs.push(FnState::new(0, expr.span));
    c.expr(expr)?;
    c.emit(Op::Return, expr.span);
    let main = c.funcs.pop().unwrap_or_else(|| FnState::new(0, expr.span));
    c.finish(main);
    Program::new(c.parts)
}

/// The compiler's hash maps: foldhash (a fast hash; a random seed per map,
/// as names come from untrusted source) instead of the standard SipHash,
/// which took a sixth of compiling a small expression.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// The compiler's hash sets (see [`HashMap`]).
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The state of one compilation: the program's parts as they are built,
/// the functions being compiled (innermost last), and the indexes that
/// share the program's tables.
struct Compiler<'e> {
    env: &'e CompileEnv,
    parts: ProgramParts,
    funcs: Vec<FnState>,
    consts: HashMap<ConstKey, u32>,
    /// The tables below are keyed by the name the program's parts hold
    /// (a shared [`Key`], found by `&str`), so no name is copied for them.
    globals: HashMap<Key, u32>,
    /// Named calls by name and kind (pipe target or not, optional or not).
    calls: HashMap<(Key, CallKind), u16>,
    /// Names already in `parts.unknown_functions`.
    unknown: HashSet<Key>,
    keys: HashMap<Key, u32>,
    methods: HashMap<Key, u16>,
    hosts: HashMap<Key, u16>,
    /// Jumps of `?.` in the optional chain being compiled, patched to its end.
    chain: Option<Vec<usize>>,
    nesting: u32,
    /// Compiled bytes regex literals may still take ([`CompileEnv::max_regex_bytes`]).
    regex_left: u64,
}
