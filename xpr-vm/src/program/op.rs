//! The instruction set: [`Op`], the comparison of [`Op::CompareConst`]
//! and where a closure's captures come from.

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
