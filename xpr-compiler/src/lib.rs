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

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use xpr_syntax::ast::{
    self, BinaryOp, Element, Expr, ExprKind, LogicalOp, Pattern, Property, UnaryOp,
};
use xpr_vm::function::Function;
use xpr_vm::program::{Capture, Cmp, Global, MethodRef, ProgramParts, Proto};
use xpr_vm::stdlib;
use xpr_vm::vm::{is_restricted, ops};
use xpr_vm::{Error, ErrorKind, HostFunction, Key, Op, Program, Span, Value};

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
}

impl Default for CompileEnv {
    fn default() -> Self {
        CompileEnv {
            host_functions: Vec::new(),
            max_regex_bytes: Some(stdlib::regex::DEFAULT_PROGRAM_REGEX_BYTES),
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
pub fn compile(expr: &Expr, env: &CompileEnv) -> Result<Program, Error> {
    let mut c = Compiler {
        env,
        parts: ProgramParts::default(),
        funcs: Vec::new(),
        consts: HashMap::new(),
        globals: HashMap::new(),
        calls: HashMap::new(),
        unknown: HashSet::new(),
        keys: HashMap::new(),
        methods: HashMap::new(),
        hosts: HashMap::new(),
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

mod calls;
use calls::CallKind;

fn span(s: ast::Span) -> Span {
    Span::new(s.start, s.end)
}

#[cold]
fn error_at(kind: ErrorKind, message: String, at: ast::Span) -> Error {
    Error::new(kind, message).at(span(at))
}

#[cold]
fn restricted(name: &str, at: ast::Span) -> Error {
    error_at(
        ErrorKind::Access,
        format!("Access denied: '{name}' is a restricted property"),
        at,
    )
}

/// `Regex size limit exceeded: ...` at a regex literal that would take the
/// program's regex literals past [`CompileEnv::max_regex_bytes`].
#[cold]
fn regex_budget(env: &CompileEnv, at: ast::Span) -> Error {
    let limit = env.max_regex_bytes.unwrap_or(u64::MAX);
    error_at(
        ErrorKind::Regex,
        format!(
            "Regex size limit exceeded: the regex literals of the expression compile to more than {limit} bytes"
        ),
        at,
    )
}

fn too_many(at: ast::Span) -> Error {
    error_at(
        ErrorKind::Length,
        "Expression too large to compile".into(),
        at,
    )
}

/// A function being compiled.
struct FnState {
    proto_index: u32,
    proto: Proto,
    /// Visible locals.
    scope: Scope,
    next_slot: u16,
    /// Names captured from enclosing functions, by capture index.
    captures: HashMap<String, u16>,
}

/// The visible locals of a function, innermost last, found by name in
/// constant time (a function may bind tens of thousands of names when a
/// host raises the length limit: a linear search made compiling quadratic).
#[derive(Default)]
struct Scope {
    /// Bindings in order, for [`Scope::truncate`].
    order: Vec<String>,
    /// Each name's slots, innermost (shadowing) last.
    slots: HashMap<String, Vec<u16>>,
}

impl Scope {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn push(&mut self, name: &str, slot: u16) {
        self.order.push(name.to_string());
        self.slots.entry(name.to_string()).or_default().push(slot);
    }

    /// The innermost binding of `name`.
    fn find(&self, name: &str) -> Option<u16> {
        self.slots.get(name)?.last().copied()
    }

    /// Forgets the bindings made after the first `len`.
    fn truncate(&mut self, len: usize) {
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
    fn new(proto_index: u32, at: ast::Span) -> Self {
        FnState {
            proto_index,
            proto: Proto {
                span: span(at),
                ..Proto::default()
            },
            scope: Scope::default(),
            next_slot: 0,
            captures: HashMap::new(),
        }
    }
}

/// Where a name lives.
#[derive(Clone, Copy)]
enum Var {
    Local(u16),
    Capture(u16),
}

#[derive(Hash, PartialEq, Eq)]
enum ConstKey {
    Number(u64),
    String(String),
    /// A regex literal's pattern and flags.
    Regex(String, String),
}

struct Compiler<'e> {
    env: &'e CompileEnv,
    parts: ProgramParts,
    funcs: Vec<FnState>,
    consts: HashMap<ConstKey, u32>,
    globals: HashMap<String, u32>,
    /// Named calls by name and kind (pipe target or not, optional or not).
    calls: HashMap<(String, CallKind), u16>,
    /// Names already in `parts.unknown_functions`.
    unknown: HashSet<String>,
    keys: HashMap<String, u32>,
    methods: HashMap<String, u16>,
    hosts: HashMap<String, u16>,
    /// Jumps of `?.` in the optional chain being compiled, patched to its end.
    chain: Option<Vec<usize>>,
    nesting: u32,
    /// Compiled bytes regex literals may still take ([`CompileEnv::max_regex_bytes`]).
    regex_left: u64,
}

fn is_scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
    )
}

/// The value of a tree of scalar literals and operators, if it folds.
fn fold(e: &Expr, depth: u32) -> Option<Value> {
    if depth > 64 {
        return None;
    }
    match &e.kind {
        ExprKind::Null => Some(Value::Null),
        ExprKind::Bool(b) => Some(Value::Bool(*b)),
        ExprKind::Number(n) => Some(Value::Number(*n)),
        ExprKind::String(s) => Some(Value::from(s.as_str())),
        ExprKind::Unary { op, operand } => {
            let v = fold(operand, depth + 1)?;
            let op = match op {
                UnaryOp::Not => Op::Not,
                UnaryOp::Neg => Op::Neg,
            };
            ops::apply(op, &v, &Value::Null).ok().filter(is_scalar)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let a = fold(lhs, depth + 1)?;
            let b = fold(rhs, depth + 1)?;
            ops::apply(binary_op(*op), &a, &b).ok().filter(is_scalar)
        }
        _ => None,
    }
}

fn comparison(op: BinaryOp) -> Option<Cmp> {
    Some(match op {
        BinaryOp::Eq => Cmp::Eq,
        BinaryOp::Ne => Cmp::Ne,
        BinaryOp::Lt => Cmp::Lt,
        BinaryOp::Le => Cmp::Le,
        BinaryOp::Gt => Cmp::Gt,
        BinaryOp::Ge => Cmp::Ge,
        _ => return None,
    })
}

fn binary_op(op: BinaryOp) -> Op {
    match op {
        BinaryOp::Add => Op::Add,
        BinaryOp::Sub => Op::Sub,
        BinaryOp::Mul => Op::Mul,
        BinaryOp::Div => Op::Div,
        BinaryOp::Rem => Op::Rem,
        BinaryOp::Pow => Op::Pow,
        BinaryOp::Eq => Op::Eq,
        BinaryOp::Ne => Op::Ne,
        BinaryOp::Lt => Op::Lt,
        BinaryOp::Le => Op::Le,
        BinaryOp::Gt => Op::Gt,
        BinaryOp::Ge => Op::Ge,
    }
}

fn has_spread(elements: &[Element]) -> bool {
    elements.iter().any(|e| matches!(e, Element::Spread(..)))
}

impl Compiler<'_> {
    // ----------------------------------------------------------- emitting

    fn func(&mut self) -> &mut FnState {
        // `funcs` holds the main function from the start of `compile` to
        // its end, so it is never empty here (not reachable from input).
        let last = self.funcs.len() - 1;
        &mut self.funcs[last]
    }

    fn emit(&mut self, op: Op, at: ast::Span) -> usize {
        let p = &mut self.func().proto;
        p.code.push(op);
        p.spans.push(span(at));
        p.code.len() - 1
    }

    fn here(&mut self) -> u32 {
        u32::try_from(self.func().proto.code.len()).unwrap_or(u32::MAX)
    }

    /// Points the jump at `at` to the next instruction.
    fn patch(&mut self, at: usize) {
        let target = self.here();
        if let Some(op) = self.func().proto.code.get_mut(at) {
            *op = match *op {
                Op::Jump(_) => Op::Jump(target),
                Op::JumpIfFalse(_) => Op::JumpIfFalse(target),
                Op::JumpIfFalseOrPop(_) => Op::JumpIfFalseOrPop(target),
                Op::JumpIfTrueOrPop(_) => Op::JumpIfTrueOrPop(target),
                Op::JumpIfNotNullOrPop(_) => Op::JumpIfNotNullOrPop(target),
                Op::JumpIfNull(_) => Op::JumpIfNull(target),
                other => other,
            };
        }
    }

    fn constant(&mut self, v: Value, at: ast::Span) -> Result<(), Error> {
        match v {
            Value::Null => {
                self.emit(Op::Null, at);
            }
            Value::Bool(true) => {
                self.emit(Op::True, at);
            }
            Value::Bool(false) => {
                self.emit(Op::False, at);
            }
            Value::Number(n)
                if n.fract() == 0.0
                    && n.abs() <= f64::from(i32::MAX)
                    && !(n == 0.0 && n.is_sign_negative()) =>
            {
                self.emit(Op::Int(n as i32), at);
            }
            other => {
                let idx = self.pooled(other, at)?;
                self.emit(Op::Const(idx), at);
            }
        }
        Ok(())
    }

    /// The constant pool index of `v` (numbers and strings shared).
    fn pooled(&mut self, v: Value, at: ast::Span) -> Result<u32, Error> {
        let key = match &v {
            Value::Number(n) => Some(ConstKey::Number(n.to_bits())),
            Value::String(s) => Some(ConstKey::String(s.to_string())),
            _ => None,
        };
        if let Some(&i) = key.as_ref().and_then(|k| self.consts.get(k)) {
            return Ok(i);
        }
        let i = u32::try_from(self.parts.constants.len()).map_err(|_| too_many(at))?;
        self.parts.constants.push(v);
        if let Some(k) = key {
            self.consts.insert(k, i);
        }
        Ok(i)
    }

    /// The constant pool index of the regex literal `/pattern/flags`,
    /// compiled once per program however often it appears, and only
    /// if its compiled size fits what the program's regex literals may
    /// still take (measured before compiling).
    fn regex(&mut self, pattern: &str, flags: &str, at: ast::Span) -> Result<u32, Error> {
        let key = ConstKey::Regex(pattern.to_string(), flags.to_string());
        if let Some(&i) = self.consts.get(&key) {
            return Ok(i);
        }
        let prepared = match stdlib::regex::prepare(pattern, flags, self.regex_left) {
            Ok(p) => p,
            Err(stdlib::regex::Refusal::Invalid(e)) => return Err(e.or_at(span(at))),
            Err(stdlib::regex::Refusal::OverAllowance) => {
                return Err(regex_budget(self.env, at));
            }
        };
        self.regex_left = self.regex_left.saturating_sub(prepared.compiled_bytes());
        let r = prepared.build().map_err(|e| e.or_at(span(at)))?;
        let i = u32::try_from(self.parts.constants.len()).map_err(|_| too_many(at))?;
        self.parts.constants.push(Value::Regex(Arc::new(r)));
        self.consts.insert(key, i);
        Ok(i)
    }

    fn key(&mut self, name: &str, at: ast::Span) -> Result<u32, Error> {
        if let Some(&i) = self.keys.get(name) {
            return Ok(i);
        }
        let i = u32::try_from(self.parts.keys.len()).map_err(|_| too_many(at))?;
        self.parts.keys.push(Key::from(name));
        self.keys.insert(name.to_string(), i);
        Ok(i)
    }

    fn method(&mut self, name: &str, at: ast::Span) -> Result<u16, Error> {
        if let Some(&i) = self.methods.get(name) {
            return Ok(i);
        }
        let i = u16::try_from(self.parts.methods.len()).map_err(|_| too_many(at))?;
        self.parts.methods.push(MethodRef {
            name: Key::from(name),
            id: stdlib::method_id(name),
        });
        self.methods.insert(name.to_string(), i);
        Ok(i)
    }

    fn host(&mut self, name: &str, at: ast::Span) -> Result<Option<u16>, Error> {
        if let Some(&i) = self.hosts.get(name) {
            return Ok(Some(i));
        }
        let Some(h) = self.env.host_functions.iter().find(|h| h.name == name) else {
            return Ok(None);
        };
        let i = u16::try_from(self.parts.host_functions.len()).map_err(|_| too_many(at))?;
        self.parts.host_functions.push(h.clone());
        self.hosts.insert(name.to_string(), i);
        Ok(Some(i))
    }

    fn called(&mut self, name: &str) {
        if !self.parts.functions.iter().any(|f| f == name) {
            self.parts.functions.push(name.to_string());
        }
    }

    /// The index of global `name`, read in value position (`read`) or only
    /// called.
    fn global(&mut self, name: &str, read: bool, at: ast::Span) -> Result<u32, Error> {
        if let Some(&i) = self.globals.get(name) {
            if read && let Some(g) = self.parts.globals.get_mut(i as usize) {
                g.read = true;
            }
            return Ok(i);
        }
        let fallback = match name {
            "PI" => Some(Value::Number(std::f64::consts::PI)),
            "E" => Some(Value::Number(std::f64::consts::E)),
            _ => match stdlib::function_id(name) {
                Some(id) => Some(Value::Function(Arc::new(Function::Builtin(id)))),
                None => self
                    .env
                    .host_functions
                    .iter()
                    .find(|h| h.name == name)
                    .map(|h| Value::Function(Arc::new(Function::Host(h.clone())))),
            },
        };
        let i = u32::try_from(self.parts.globals.len()).map_err(|_| too_many(at))?;
        self.parts.globals.push(Global {
            name: Key::from(name),
            fallback,
            read,
        });
        self.globals.insert(name.to_string(), i);
        Ok(i)
    }

    // ----------------------------------------------------------- scopes

    fn resolve(&mut self, name: &str) -> Option<Var> {
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

    fn new_local(&mut self, name: &str, at: ast::Span) -> Result<u16, Error> {
        let f = self.func();
        let slot = f.next_slot;
        f.next_slot = slot.checked_add(1).ok_or_else(|| too_many(at))?;
        f.proto.slots = f.proto.slots.max(f.next_slot);
        f.scope.push(name, slot);
        Ok(slot)
    }

    fn load_var(&mut self, v: Var, at: ast::Span) {
        match v {
            Var::Local(s) => self.emit(Op::LoadLocal(s), at),
            Var::Capture(c) => self.emit(Op::LoadCapture(c), at),
        };
    }

    fn finish(&mut self, state: FnState) {
        if let Some(p) = self.parts.protos.get_mut(state.proto_index as usize) {
            *p = state.proto;
        }
    }

    // ----------------------------------------------------------- expressions

    /// Compiles `e` as a whole expression (not part of an enclosing optional chain).
    fn expr(&mut self, e: &Expr) -> Result<(), Error> {
        let saved = self.chain.take();
        let r = self.nested(e);
        self.chain = saved;
        r
    }

    /// Compiles `e` as the object or callee of a postfix chain (keeping the
    /// enclosing optional chain).
    fn spine(&mut self, e: &Expr) -> Result<(), Error> {
        self.nested(e)
    }

    fn nested(&mut self, e: &Expr) -> Result<(), Error> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            self.nesting -= 1;
            return Err(error_at(
                ErrorKind::Depth,
                "Expression depth limit exceeded".into(),
                e.span,
            ));
        }
        let optional = matches!(
            e.kind,
            ExprKind::Member { optional: true, .. } | ExprKind::Call { optional: true, .. }
        );
        let r = if optional && self.chain.is_none() {
            // A `?.` the parser did not wrap: the chain ends here.
            self.optional_chain(e)
        } else {
            self.lower(e)
        };
        self.nesting -= 1;
        r
    }

    fn optional_chain(&mut self, inner: &Expr) -> Result<(), Error> {
        let saved = self.chain.replace(Vec::new());
        let r = self.lower(inner);
        let jumps = std::mem::replace(&mut self.chain, saved).unwrap_or_default();
        r?;
        for j in jumps {
            self.patch(j);
        }
        Ok(())
    }

    fn optional_jump(&mut self, at: ast::Span) {
        let j = self.emit(Op::JumpIfNull(0), at);
        match &mut self.chain {
            Some(jumps) => jumps.push(j),
            None => self.chain = Some(vec![j]),
        }
    }

    fn lower(&mut self, e: &Expr) -> Result<(), Error> {
        let at = e.span;
        match &e.kind {
            ExprKind::Null => self.constant(Value::Null, at)?,
            ExprKind::Bool(b) => self.constant(Value::Bool(*b), at)?,
            ExprKind::Number(n) => self.constant(Value::Number(*n), at)?,
            ExprKind::String(s) => self.constant(Value::from(s.as_str()), at)?,
            ExprKind::Template { quasis, exprs } => self.template(quasis, exprs, at)?,
            ExprKind::Regex { pattern, flags } => {
                let i = self.regex(pattern, flags, at)?;
                self.emit(Op::Const(i), at);
            }
            ExprKind::Array(elements) => {
                if has_spread(elements) {
                    self.emit(Op::Mark(0), at);
                    self.elements(elements, Op::SpreadArray)?;
                    self.emit(Op::ArrayMark, at);
                } else {
                    self.elements(elements, Op::SpreadArray)?;
                    let n = u32::try_from(elements.len()).map_err(|_| too_many(at))?;
                    self.emit(Op::Array(n), at);
                }
            }
            ExprKind::Object(props) => self.object(props, at)?,
            ExprKind::Ident(name) => match self.resolve(name) {
                Some(v) => self.load_var(v, at),
                None => {
                    let g = self.global(name, true, at)?;
                    self.emit(Op::LoadGlobal(g), at);
                }
            },
            ExprKind::Member {
                object,
                property,
                optional,
            } => {
                if is_restricted(&property.name) {
                    return Err(restricted(&property.name, property.span));
                }
                let field_span = ast::Span::new(property.span.start, at.end);
                if let (ExprKind::Ident(name), false, false) =
                    (&object.kind, *optional, property.name == "length")
                    && let Some(Var::Local(slot)) = self.resolve(name)
                {
                    // Superinstruction: a local's field, the local not copied.
                    let key = self.key(&property.name, property.span)?;
                    self.emit(Op::GetLocalField { slot, key }, field_span);
                    return Ok(());
                }
                self.spine(object)?;
                if *optional {
                    self.optional_jump(at);
                }
                let k = self.key(&property.name, property.span)?;
                if property.name == "length" {
                    self.emit(Op::GetLength(k), field_span);
                } else {
                    self.emit(Op::GetField(k), field_span);
                }
            }
            ExprKind::Index { object, index } => {
                self.spine(object)?;
                self.expr(index)?;
                self.emit(Op::Index, at);
            }
            ExprKind::Call {
                callee,
                args,
                optional,
            } => self.call(callee, args, *optional, at)?,
            ExprKind::OptionalChain(inner) => self.optional_chain(inner)?,
            ExprKind::Unary { op, operand } => {
                if let Some(v) = fold(e, 0) {
                    self.constant(v, at)?;
                } else {
                    self.expr(operand)?;
                    self.emit(
                        match op {
                            UnaryOp::Not => Op::Not,
                            UnaryOp::Neg => Op::Neg,
                        },
                        at,
                    );
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if let Some(v) = fold(e, 0) {
                    self.constant(v, at)?;
                } else if let (Some(cmp), Some(k)) = (comparison(*op), fold(rhs, 0)) {
                    // Superinstruction: compare with a constant in place.
                    self.expr(lhs)?;
                    let constant = self.pooled(k, rhs.span)?;
                    self.emit(Op::CompareConst { cmp, constant }, at);
                } else {
                    self.expr(lhs)?;
                    self.expr(rhs)?;
                    self.emit(binary_op(*op), at);
                }
            }
            ExprKind::Logical { op, lhs, rhs } => {
                self.expr(lhs)?;
                let j = self.emit(
                    match op {
                        LogicalOp::And => Op::JumpIfFalseOrPop(0),
                        LogicalOp::Or => Op::JumpIfTrueOrPop(0),
                        LogicalOp::Nullish => Op::JumpIfNotNullOrPop(0),
                    },
                    at,
                );
                self.expr(rhs)?;
                self.patch(j);
            }
            ExprKind::Conditional {
                test,
                then,
                otherwise,
            } => {
                self.expr(test)?;
                let to_else = self.emit(Op::JumpIfFalse(0), at);
                self.expr(then)?;
                let to_end = self.emit(Op::Jump(0), at);
                self.patch(to_else);
                self.expr(otherwise)?;
                self.patch(to_end);
            }
            ExprKind::Arrow(arrow) => self.arrow(arrow, at)?,
            ExprKind::Pipe { lhs, rhs } => self.pipe(lhs, rhs, at)?,
            ExprKind::Let {
                target,
                value,
                body,
            } => {
                self.expr(value)?;
                let (scope, next) = {
                    let f = self.func();
                    (f.scope.len(), f.next_slot)
                };
                let mut names = HashSet::new();
                self.bind(target, &mut names)?;
                self.expr(body)?;
                let f = self.func();
                f.scope.truncate(scope);
                f.next_slot = next;
            }
        }
        Ok(())
    }

    fn template(&mut self, quasis: &[String], exprs: &[Expr], at: ast::Span) -> Result<(), Error> {
        let mut n = 0u32;
        for (i, q) in quasis.iter().enumerate() {
            if !q.is_empty() {
                self.constant(Value::from(q.as_str()), at)?;
                n += 1;
            }
            if let Some(e) = exprs.get(i) {
                self.expr(e)?;
                n += 1;
            }
        }
        match n {
            0 => self.constant(Value::from(""), at)?,
            1 if exprs.is_empty() => {}
            _ => {
                self.emit(Op::Template(n), at);
            }
        }
        Ok(())
    }

    /// Array elements or arguments, spreads through `spread`.
    fn elements(&mut self, elements: &[Element], spread: Op) -> Result<(), Error> {
        for el in elements {
            match el {
                Element::Expr(e) => self.expr(e)?,
                Element::Spread(e, at) => {
                    self.expr(e)?;
                    self.emit(spread, *at);
                }
            }
        }
        Ok(())
    }

    fn object(&mut self, props: &[Property], at: ast::Span) -> Result<(), Error> {
        let spread = props.iter().any(|p| matches!(p, Property::Spread(..)));
        if spread {
            self.emit(Op::Mark(0), at);
        }
        for p in props {
            match p {
                Property::KeyValue { key, value } => {
                    if is_restricted(&key.name) {
                        return Err(restricted(&key.name, key.span));
                    }
                    self.constant(Value::from(key.name.as_str()), key.span)?;
                    self.expr(value)?;
                }
                Property::Spread(e, sp) => {
                    self.expr(e)?;
                    self.emit(Op::SpreadObject, *sp);
                }
            }
        }
        if spread {
            self.emit(Op::ObjectMark, at);
        } else {
            let n = u32::try_from(props.len()).map_err(|_| too_many(at))?;
            self.emit(Op::Object(n), at);
        }
        Ok(())
    }

    fn arrow(&mut self, arrow: &ast::Arrow, at: ast::Span) -> Result<(), Error> {
        let index = u32::try_from(self.parts.protos.len()).map_err(|_| too_many(at))?;
        self.parts.protos.push(Proto::default());
        self.funcs.push(FnState::new(index, at));
        // An arrow's own frames (`arrow`, `arrow_body`, then its body's)
        // take about twice the stack of an ordinary level: it counts twice
        // toward MAX_NESTING, so nested arrows fit a small stack too.
        self.nesting += 1;
        let r = self.arrow_body(arrow, at);
        self.nesting -= 1;
        let state = self.funcs.pop();
        r?;
        if let Some(state) = state {
            self.finish(state);
        }
        self.emit(Op::Closure(index), at);
        Ok(())
    }

    fn arrow_body(&mut self, arrow: &ast::Arrow, at: ast::Span) -> Result<(), Error> {
        let params = u16::try_from(arrow.params.len()).map_err(|_| too_many(at))?;
        let mut names: HashSet<String> = HashSet::new();
        // Parameter slots first: 0..params, then the rest parameter.
        for (i, p) in arrow.params.iter().enumerate() {
            let placeholder = match p {
                Pattern::Ident(n) => {
                    check_duplicate(&mut names, n)?;
                    n.name.clone()
                }
                // Never a valid identifier: holds the argument until destructured.
                _ => format!("#{i}"),
            };
            self.new_local(&placeholder, p.span())?;
        }
        if let Some(rest) = &arrow.rest {
            check_duplicate(&mut names, rest)?;
            self.new_local(&rest.name, rest.span)?;
        }
        {
            let f = self.func();
            f.proto.params = params;
            f.proto.rest = arrow.rest.is_some();
        }
        for (i, p) in arrow.params.iter().enumerate() {
            if !matches!(p, Pattern::Ident(_)) {
                self.emit(Op::LoadLocal(i as u16), p.span());
                self.bind(p, &mut names)?;
            }
        }
        self.expr(&arrow.body)?;
        self.emit(Op::Return, arrow.body.span);
        Ok(())
    }

    /// Binds the value on top of the stack to `target`, consuming it.
    fn bind(&mut self, target: &Pattern, names: &mut HashSet<String>) -> Result<(), Error> {
        match target {
            Pattern::Ident(n) => {
                check_duplicate(names, n)?;
                let slot = self.new_local(&n.name, n.span)?;
                self.emit(Op::StoreLocal(slot), n.span);
            }
            Pattern::Object(p) => {
                self.emit(Op::CheckObject, p.span);
                for entry in &p.entries {
                    if is_restricted(&entry.key.name) {
                        return Err(restricted(&entry.key.name, entry.key.span));
                    }
                    let k = self.key(&entry.key.name, entry.key.span)?;
                    self.emit(Op::PatternField(k), entry.key.span);
                    self.default(entry.default.as_ref(), entry.key.span)?;
                    self.bind(&entry.target, names)?;
                }
                if let Some(rest) = &p.rest {
                    let keys: Vec<Key> = p
                        .entries
                        .iter()
                        .map(|e| Key::from(e.key.name.as_str()))
                        .collect();
                    let set =
                        u32::try_from(self.parts.key_sets.len()).map_err(|_| too_many(p.span))?;
                    self.parts.key_sets.push(keys);
                    self.emit(Op::ObjectRest(set), rest.span);
                    self.bind(&Pattern::Ident(rest.clone()), names)?;
                }
                self.emit(Op::Pop, p.span);
            }
            Pattern::Array(p) => {
                self.emit(Op::CheckArray, p.span);
                for (i, el) in p.elements.iter().enumerate() {
                    let i = u32::try_from(i).map_err(|_| too_many(p.span))?;
                    self.emit(Op::PatternIndex(i), el.target.span());
                    self.default(el.default.as_ref(), el.target.span())?;
                    self.bind(&el.target, names)?;
                }
                if let Some(rest) = &p.rest {
                    let from = u32::try_from(p.elements.len()).map_err(|_| too_many(p.span))?;
                    self.emit(Op::ArrayRest(from), rest.span);
                    self.bind(&Pattern::Ident(rest.clone()), names)?;
                }
                self.emit(Op::Pop, p.span);
            }
        }
        Ok(())
    }

    /// With an extracted value on top: replaces a null by the default.
    fn default(&mut self, default: Option<&Expr>, at: ast::Span) -> Result<(), Error> {
        if let Some(d) = default {
            let j = self.emit(Op::JumpIfNotNullOrPop(0), at);
            // Reached through `bind` frames: counts twice toward MAX_NESTING
            // (see `arrow`).
            self.nesting += 1;
            let r = self.expr(d);
            self.nesting -= 1;
            r?;
            self.patch(j);
        }
        Ok(())
    }
}

/// Records `n` among the names one binding introduces; a name twice is an
/// error (`duplicate binding 'a'`).
fn check_duplicate(names: &mut HashSet<String>, n: &ast::Name) -> Result<(), Error> {
    if !names.insert(n.name.clone()) {
        return Err(error_at(
            ErrorKind::Parse,
            format!("duplicate binding '{}'", n.name),
            n.span,
        ));
    }
    Ok(())
}
