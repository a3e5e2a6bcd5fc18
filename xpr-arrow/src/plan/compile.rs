//! From bytecode to a vector plan: the main prototype's instructions read
//! back into an expression tree (the stack effect of each instruction, the
//! forward jumps of `&&`, `||`, `??` and `?:`), then typed against the
//! batch's columns. Anything outside the subset gives no plan, and the
//! batch runs on the row path.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use xpr::bytecode::{Cmp, Op, function_name};
use xpr::{Program, Value};

use crate::read::Columns;

/// The static kind of a node's values (a node of kind `Bool`, `Num` or
/// `Str` may also be null on some rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Num,
    Str,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Cmp(Cmp),
}

/// A built-in function or method of the subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    Upper,
    Lower,
    Trim,
    Len,
    StartsWith,
    Contains,
    Round,
    Floor,
    Abs,
}

/// One node of the expression tree, with its kind.
#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) kind: Kind,
    pub(crate) expr: Expr,
}

/// What a node computes. Each charges its instructions' fuel per row it
/// is evaluated on (see `eval.rs`).
#[derive(Debug)]
pub(crate) enum Expr {
    /// A column (through struct columns: `parents` are the structs above
    /// it, a null one fails the row), read by `1 + parents.len()`
    /// instructions.
    Column {
        leaf: ArrayRef,
        parents: Vec<ArrayRef>,
    },
    /// A constant; `units` instructions (0 when folded into a comparison).
    Const {
        value: Value,
        units: u64,
    },
    Bin(Bin, Box<Node>, Box<Node>),
    Not(Box<Node>),
    Neg(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Coalesce(Box<Node>, Box<Node>),
    Cond(Box<Node>, Box<Node>, Box<Node>),
    Template(Vec<Node>),
    /// A method (receiver first) or function of the subset.
    Call(Call, Vec<Node>),
}

/// An untyped tree, as read from the bytecode.
enum Raw {
    Global(u32),
    Field(Box<Raw>, u32),
    Const(Value, u64),
    Bin(Bin, Box<Raw>, Box<Raw>),
    Not(Box<Raw>),
    Neg(Box<Raw>),
    And(Box<Raw>, Box<Raw>),
    Or(Box<Raw>, Box<Raw>),
    Coalesce(Box<Raw>, Box<Raw>),
    Cond(Box<Raw>, Box<Raw>, Box<Raw>),
    Template(Vec<Raw>),
    Call(Call, Vec<Raw>),
}

/// The plan of `program` over `columns`, if it lies in the subset.
pub(crate) fn compile(program: &Program, columns: &Columns<'_>) -> Option<Node> {
    let bc = program.bytecode();
    let main = bc.protos().first()?;
    if main.slots > 0 || main.code.last() != Some(&Op::Return) {
        return None;
    }
    let mut stack = Vec::new();
    let end = main.code.len() - 1;
    read(program, &main.code, 0, end, &mut stack, 0)?;
    if stack.len() != 1 {
        return None;
    }
    let raw = stack.pop()?;
    typed(program, columns, raw)
}

/// Nesting of jumps read (bounded by the AST depth anyway).
const MAX_NESTING: u32 = 256;

/// Reads `code[start..end]` onto `stack`.
fn read(
    program: &Program,
    code: &[Op],
    start: usize,
    end: usize,
    stack: &mut Vec<Raw>,
    nesting: u32,
) -> Option<()> {
    if nesting > MAX_NESTING {
        return None;
    }
    let bc = program.bytecode();
    let mut pc = start;
    while pc < end {
        let op = code[pc];
        pc += 1;
        let bin = |b: Bin, stack: &mut Vec<Raw>| -> Option<()> {
            let r = stack.pop()?;
            let l = stack.pop()?;
            stack.push(Raw::Bin(b, Box::new(l), Box::new(r)));
            Some(())
        };
        match op {
            Op::Const(i) => {
                let v = bc.constants().get(i as usize)?.clone();
                if !matches!(
                    v,
                    Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
                ) {
                    return None;
                }
                stack.push(Raw::Const(v, 1));
            }
            Op::Null => stack.push(Raw::Const(Value::Null, 1)),
            Op::True => stack.push(Raw::Const(Value::Bool(true), 1)),
            Op::False => stack.push(Raw::Const(Value::Bool(false), 1)),
            Op::Int(n) => stack.push(Raw::Const(Value::Number(n.into()), 1)),
            Op::LoadGlobal(g) => stack.push(Raw::Global(g)),
            Op::GetField(k) => {
                let obj = stack.pop()?;
                stack.push(Raw::Field(Box::new(obj), k));
            }
            Op::GetLength(_) => {
                // `s.length` of a string; an object's `length` field is not
                // in the subset (typing refuses it).
                let s = stack.pop()?;
                stack.push(Raw::Call(Call::Len, vec![s]));
            }
            Op::Add => bin(Bin::Add, stack)?,
            Op::Sub => bin(Bin::Sub, stack)?,
            Op::Mul => bin(Bin::Mul, stack)?,
            Op::Div => bin(Bin::Div, stack)?,
            Op::Rem => bin(Bin::Rem, stack)?,
            Op::Pow => bin(Bin::Pow, stack)?,
            Op::Eq => bin(Bin::Cmp(Cmp::Eq), stack)?,
            Op::Ne => bin(Bin::Cmp(Cmp::Ne), stack)?,
            Op::Lt => bin(Bin::Cmp(Cmp::Lt), stack)?,
            Op::Le => bin(Bin::Cmp(Cmp::Le), stack)?,
            Op::Gt => bin(Bin::Cmp(Cmp::Gt), stack)?,
            Op::Ge => bin(Bin::Cmp(Cmp::Ge), stack)?,
            Op::CompareConst { cmp, constant } => {
                let v = bc.constants().get(constant as usize)?.clone();
                if !matches!(
                    v,
                    Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
                ) {
                    return None;
                }
                let l = stack.pop()?;
                stack.push(Raw::Bin(
                    Bin::Cmp(cmp),
                    Box::new(l),
                    Box::new(Raw::Const(v, 0)),
                ));
            }
            Op::Not => {
                let v = stack.pop()?;
                stack.push(Raw::Not(Box::new(v)));
            }
            Op::Neg => {
                let v = stack.pop()?;
                stack.push(Raw::Neg(Box::new(v)));
            }
            Op::JumpIfFalseOrPop(t) | Op::JumpIfTrueOrPop(t) | Op::JumpIfNotNullOrPop(t) => {
                let t = t as usize;
                if t < pc || t > end {
                    return None;
                }
                let l = stack.pop()?;
                let depth = stack.len();
                read(program, code, pc, t, stack, nesting + 1)?;
                if stack.len() != depth + 1 {
                    return None;
                }
                let r = Box::new(stack.pop()?);
                let l = Box::new(l);
                stack.push(match op {
                    Op::JumpIfFalseOrPop(_) => Raw::And(l, r),
                    Op::JumpIfTrueOrPop(_) => Raw::Or(l, r),
                    _ => Raw::Coalesce(l, r),
                });
                pc = t;
            }
            Op::JumpIfFalse(t) => {
                let t = t as usize;
                if t <= pc || t > end {
                    return None;
                }
                let Op::Jump(e) = code[t - 1] else {
                    return None;
                };
                let e = e as usize;
                if e < t || e > end {
                    return None;
                }
                let c = stack.pop()?;
                let depth = stack.len();
                read(program, code, pc, t - 1, stack, nesting + 1)?;
                read(program, code, t, e, stack, nesting + 1)?;
                if stack.len() != depth + 2 {
                    return None;
                }
                let no = stack.pop()?;
                let yes = stack.pop()?;
                stack.push(Raw::Cond(Box::new(c), Box::new(yes), Box::new(no)));
                pc = e;
            }
            Op::Template(n) => {
                let at = stack.len().checked_sub(n as usize)?;
                let parts = stack.split_off(at);
                stack.push(Raw::Template(parts));
            }
            Op::CallMethod { method, argc } => {
                let name = &*bc.methods().get(method as usize)?.name;
                let call = match (name, argc) {
                    ("upper", 0) => Call::Upper,
                    ("lower", 0) => Call::Lower,
                    ("trim", 0) => Call::Trim,
                    ("len", 0) => Call::Len,
                    ("startsWith", 1) => Call::StartsWith,
                    ("contains", 1) => Call::Contains,
                    _ => return None,
                };
                let at = stack.len().checked_sub(argc as usize + 1)?;
                let args = stack.split_off(at);
                stack.push(Raw::Call(call, args));
            }
            Op::CallBuiltin { id, argc: 1, .. } => {
                let call = match function_name(id) {
                    "round" => Call::Round,
                    "floor" => Call::Floor,
                    "abs" => Call::Abs,
                    _ => return None,
                };
                let arg = stack.pop()?;
                stack.push(Raw::Call(call, vec![arg]));
            }
            _ => return None,
        }
    }
    Some(())
}

/// The leaf column a chain of field reads names, with the structs above it.
fn column(
    program: &Program,
    columns: &Columns<'_>,
    raw: &Raw,
    parents: &mut Vec<ArrayRef>,
) -> Option<ArrayRef> {
    match raw {
        Raw::Global(g) => {
            let name = program.context_names().get(*g as usize)?;
            columns.get(name).cloned()
        }
        Raw::Field(obj, k) => {
            let parent = column(program, columns, obj, parents)?;
            let key = program.bytecode().keys().get(*k as usize)?;
            let s = parent.as_struct_opt()?;
            let child = s.column_by_name(key)?.clone();
            parents.push(parent);
            Some(child)
        }
        _ => None,
    }
}

/// The kind of a leaf column's values, if the subset reads it.
fn column_kind(dt: &DataType) -> Option<Kind> {
    use DataType as D;
    Some(match dt {
        D::Null => Kind::Null,
        D::Boolean => Kind::Bool,
        D::Int8
        | D::Int16
        | D::Int32
        | D::Int64
        | D::UInt8
        | D::UInt16
        | D::UInt32
        | D::UInt64
        | D::Float32
        | D::Float64 => Kind::Num,
        D::Utf8 | D::LargeUtf8 | D::Utf8View => Kind::Str,
        D::Dictionary(k, v) if super::vals::dictionary_of_strings(k, v) => Kind::Str,
        D::Dictionary(k, v) if super::vals::dictionary_of_numbers(k, v) => Kind::Num,
        _ => return None,
    })
}

/// The kind of a constant.
fn const_kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Number(_) => Kind::Num,
        Value::String(_) => Kind::Str,
        _ => Kind::Null,
    }
}

/// The kind of a value that is one of two nodes' values: one kind, or a
/// kind and null. Two kinds: not in the subset.
fn join(a: Kind, b: Kind) -> Option<Kind> {
    match (a, b) {
        (Kind::Null, k) | (k, Kind::Null) => Some(k),
        (a, b) if a == b => Some(a),
        _ => None,
    }
}

fn node(kind: Kind, expr: Expr) -> Option<Node> {
    Some(Node { kind, expr })
}

/// Types `raw` against the batch's columns.
fn typed(program: &Program, columns: &Columns<'_>, raw: Raw) -> Option<Node> {
    let t = |r: Box<Raw>| typed(program, columns, *r).map(Box::new);
    match raw {
        r @ (Raw::Global(_) | Raw::Field(..)) => {
            let mut parents = Vec::new();
            let leaf = column(program, columns, &r, &mut parents)?;
            let kind = column_kind(leaf.data_type())?;
            node(kind, Expr::Column { leaf, parents })
        }
        Raw::Const(value, units) => node(const_kind(&value), Expr::Const { value, units }),
        Raw::Bin(b, l, r) => {
            let (l, r) = (t(l)?, t(r)?);
            let kind = match b {
                Bin::Cmp(_) => Kind::Bool,
                // `+` of two strings concatenates; any other pair of
                // kinds fails on every row it reaches (the row path then
                // reports the error).
                Bin::Add if l.kind == Kind::Str && r.kind == Kind::Str => Kind::Str,
                _ => Kind::Num,
            };
            node(kind, Expr::Bin(b, l, r))
        }
        Raw::Not(v) => node(Kind::Bool, Expr::Not(t(v)?)),
        Raw::Neg(v) => node(Kind::Num, Expr::Neg(t(v)?)),
        Raw::And(l, r) => {
            let (l, r) = (t(l)?, t(r)?);
            node(join(l.kind, r.kind)?, Expr::And(l, r))
        }
        Raw::Or(l, r) => {
            let (l, r) = (t(l)?, t(r)?);
            node(join(l.kind, r.kind)?, Expr::Or(l, r))
        }
        Raw::Coalesce(l, r) => {
            let (l, r) = (t(l)?, t(r)?);
            node(join(l.kind, r.kind)?, Expr::Coalesce(l, r))
        }
        Raw::Cond(c, y, n) => {
            let (c, y, n) = (t(c)?, t(y)?, t(n)?);
            node(join(y.kind, n.kind)?, Expr::Cond(c, y, n))
        }
        Raw::Template(parts) => {
            let parts = parts
                .into_iter()
                .map(|p| typed(program, columns, p))
                .collect::<Option<Vec<_>>>()?;
            node(Kind::Str, Expr::Template(parts))
        }
        Raw::Call(call, args) => {
            let args = args
                .into_iter()
                .map(|p| typed(program, columns, p))
                .collect::<Option<Vec<_>>>()?;
            let kind = match call {
                Call::Upper | Call::Lower | Call::Trim => Kind::Str,
                Call::StartsWith | Call::Contains => Kind::Bool,
                Call::Len | Call::Round | Call::Floor | Call::Abs => Kind::Num,
            };
            node(kind, Expr::Call(call, args))
        }
    }
}
