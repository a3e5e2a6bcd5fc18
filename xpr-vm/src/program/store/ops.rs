//! Instructions in the stored form: a tag byte, then the operands as
//! LEB128 integers. A built-in call stores no function id: the id is found
//! again from the called name (its global), so that a program stored by one
//! build calls the same function in a build whose ids differ.

use super::bytes::{Reader, Writer, corrupt};
use crate::error::Error;
use crate::program::{Cmp, Global, Op};
use crate::stdlib;

const CMPS: [Cmp; 6] = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

/// The operator-free instructions, by tag (tags 0..SIMPLE.len()).
const SIMPLE: [Op; 29] = [
    Op::Null,
    Op::True,
    Op::False,
    Op::Pop,
    Op::Swap,
    Op::Index,
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Div,
    Op::Rem,
    Op::Pow,
    Op::Eq,
    Op::Ne,
    Op::Lt,
    Op::Le,
    Op::Gt,
    Op::Ge,
    Op::Not,
    Op::Neg,
    Op::ArrayMark,
    Op::ObjectMark,
    Op::SpreadArray,
    Op::SpreadObject,
    Op::SpreadArgs,
    Op::CallValueMark,
    Op::CheckObject,
    Op::CheckArray,
    Op::Return,
];
/// The tag of the first instruction with operands: tags from the end of
/// [`SIMPLE`] up to it are free for new simple instructions.
const FIRST: u8 = 32;

/// Writes one instruction.
pub(super) fn write_op(w: &mut Writer, op: Op) {
    let u = |w: &mut Writer, n: u32| w.uint(u64::from(n));
    let h = |w: &mut Writer, n: u16| w.uint(u64::from(n));
    match op {
        Op::Const(c) => (w.u8(FIRST), u(w, c)).1,
        Op::Int(n) => (w.u8(FIRST + 1), w.int(i64::from(n))).1,
        Op::LoadLocal(s) => (w.u8(FIRST + 2), h(w, s)).1,
        Op::StoreLocal(s) => (w.u8(FIRST + 3), h(w, s)).1,
        Op::LoadCapture(s) => (w.u8(FIRST + 4), h(w, s)).1,
        Op::LoadGlobal(g) => (w.u8(FIRST + 5), u(w, g)).1,
        Op::GetField(k) => (w.u8(FIRST + 6), u(w, k)).1,
        Op::GetLocalField { slot, key } => {
            w.u8(FIRST + 7);
            h(w, slot);
            u(w, key);
        }
        Op::GetLength(k) => (w.u8(FIRST + 8), u(w, k)).1,
        Op::CompareConst { cmp, constant } => {
            w.u8(FIRST + 9);
            w.u8(CMPS.iter().position(|&c| c == cmp).unwrap_or(0) as u8);
            u(w, constant);
        }
        Op::Jump(t) => (w.u8(FIRST + 10), u(w, t)).1,
        Op::JumpIfFalse(t) => (w.u8(FIRST + 11), u(w, t)).1,
        Op::JumpIfFalseOrPop(t) => (w.u8(FIRST + 12), u(w, t)).1,
        Op::JumpIfTrueOrPop(t) => (w.u8(FIRST + 13), u(w, t)).1,
        Op::JumpIfNotNullOrPop(t) => (w.u8(FIRST + 14), u(w, t)).1,
        Op::JumpIfNull(t) => (w.u8(FIRST + 15), u(w, t)).1,
        Op::Array(n) => (w.u8(FIRST + 16), u(w, n)).1,
        Op::Object(n) => (w.u8(FIRST + 17), u(w, n)).1,
        Op::Mark(n) => (w.u8(FIRST + 18), h(w, n)).1,
        Op::Template(n) => (w.u8(FIRST + 19), u(w, n)).1,
        Op::CallValue(n) => (w.u8(FIRST + 20), h(w, n)).1,
        Op::CallBuiltin { argc, global, .. } => {
            w.u8(FIRST + 21);
            h(w, argc);
            h(w, global);
        }
        Op::CallBuiltinMark { global, .. } => (w.u8(FIRST + 22), h(w, global)).1,
        Op::CallHost {
            index,
            argc,
            global,
        } => {
            w.u8(FIRST + 23);
            h(w, index);
            h(w, argc);
            h(w, global);
        }
        Op::CallHostMark { index, global } => {
            w.u8(FIRST + 24);
            h(w, index);
            h(w, global);
        }
        Op::CallGlobal { call, argc } => {
            w.u8(FIRST + 25);
            h(w, call);
            h(w, argc);
        }
        Op::CallGlobalMark(c) => (w.u8(FIRST + 26), h(w, c)).1,
        Op::LoadCallee(c) => (w.u8(FIRST + 27), h(w, c)).1,
        Op::CallMethod { method, argc } => {
            w.u8(FIRST + 28);
            h(w, method);
            h(w, argc);
        }
        Op::CallMethodMark(m) => (w.u8(FIRST + 29), h(w, m)).1,
        Op::Closure(f) => (w.u8(FIRST + 30), u(w, f)).1,
        Op::PatternField(k) => (w.u8(FIRST + 31), u(w, k)).1,
        Op::PatternIndex(i) => (w.u8(FIRST + 32), u(w, i)).1,
        Op::ObjectRest(k) => (w.u8(FIRST + 33), u(w, k)).1,
        Op::ArrayRest(i) => (w.u8(FIRST + 34), u(w, i)).1,
        // Listed, not `_`: a new instruction fails to compile here until
        // it has a tag.
        Op::Null
        | Op::True
        | Op::False
        | Op::Pop
        | Op::Swap
        | Op::Index
        | Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Div
        | Op::Rem
        | Op::Pow
        | Op::Eq
        | Op::Ne
        | Op::Lt
        | Op::Le
        | Op::Gt
        | Op::Ge
        | Op::Not
        | Op::Neg
        | Op::ArrayMark
        | Op::ObjectMark
        | Op::SpreadArray
        | Op::SpreadObject
        | Op::SpreadArgs
        | Op::CallValueMark
        | Op::CheckObject
        | Op::CheckArray
        | Op::Return => {
            let tag = SIMPLE.iter().position(|&s| s == op).unwrap_or(usize::MAX);
            w.u8(u8::try_from(tag).unwrap_or(u8::MAX));
        }
    }
}

/// The built-in id of the function global `g` names.
fn builtin(globals: &[Global], g: u16) -> Result<u16, Error> {
    let name = globals
        .get(g as usize)
        .ok_or_else(|| corrupt("operand out of range"))?;
    stdlib::function_id(&name.name)
        .ok_or_else(|| corrupt(format_args!("'{}' is not a built-in function", &*name.name)))
}

/// Reads one instruction; `globals` name the built-ins called.
pub(super) fn read_op(r: &mut Reader, globals: &[Global]) -> Result<Op, Error> {
    let tag = r.u8()?;
    if let Some(&op) = SIMPLE.get(tag as usize) {
        return Ok(op);
    }
    let op = match tag.checked_sub(FIRST) {
        Some(0) => Op::Const(r.small()?),
        Some(1) => Op::Int(i32::try_from(r.int()?).map_err(|_| corrupt("integer out of range"))?),
        Some(2) => Op::LoadLocal(r.small()?),
        Some(3) => Op::StoreLocal(r.small()?),
        Some(4) => Op::LoadCapture(r.small()?),
        Some(5) => Op::LoadGlobal(r.small()?),
        Some(6) => Op::GetField(r.small()?),
        Some(7) => Op::GetLocalField {
            slot: r.small()?,
            key: r.small()?,
        },
        Some(8) => Op::GetLength(r.small()?),
        Some(9) => Op::CompareConst {
            cmp: *CMPS
                .get(r.u8()? as usize)
                .ok_or_else(|| corrupt("bad comparison"))?,
            constant: r.small()?,
        },
        Some(10) => Op::Jump(r.small()?),
        Some(11) => Op::JumpIfFalse(r.small()?),
        Some(12) => Op::JumpIfFalseOrPop(r.small()?),
        Some(13) => Op::JumpIfTrueOrPop(r.small()?),
        Some(14) => Op::JumpIfNotNullOrPop(r.small()?),
        Some(15) => Op::JumpIfNull(r.small()?),
        Some(16) => Op::Array(r.small()?),
        Some(17) => Op::Object(r.small()?),
        Some(18) => Op::Mark(r.small()?),
        Some(19) => Op::Template(r.small()?),
        Some(20) => Op::CallValue(r.small()?),
        Some(21) => {
            let argc = r.small()?;
            let global = r.small()?;
            Op::CallBuiltin {
                id: builtin(globals, global)?,
                argc,
                global,
            }
        }
        Some(22) => {
            let global = r.small()?;
            Op::CallBuiltinMark {
                id: builtin(globals, global)?,
                global,
            }
        }
        Some(23) => Op::CallHost {
            index: r.small()?,
            argc: r.small()?,
            global: r.small()?,
        },
        Some(24) => Op::CallHostMark {
            index: r.small()?,
            global: r.small()?,
        },
        Some(25) => Op::CallGlobal {
            call: r.small()?,
            argc: r.small()?,
        },
        Some(26) => Op::CallGlobalMark(r.small()?),
        Some(27) => Op::LoadCallee(r.small()?),
        Some(28) => Op::CallMethod {
            method: r.small()?,
            argc: r.small()?,
        },
        Some(29) => Op::CallMethodMark(r.small()?),
        Some(30) => Op::Closure(r.small()?),
        Some(31) => Op::PatternField(r.small()?),
        Some(32) => Op::PatternIndex(r.small()?),
        Some(33) => Op::ObjectRest(r.small()?),
        Some(34) => Op::ArrayRest(r.small()?),
        _ => return Err(corrupt(format_args!("unknown instruction {tag}"))),
    };
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Key;

    #[test]
    fn every_instruction_reads_back_as_written() {
        let globals = [Global {
            name: Key::from("max"),
            fallback: None,
            read: false,
        }];
        let id = stdlib::function_id("max").unwrap_or_default();
        let mut ops = SIMPLE.to_vec();
        ops.extend([
            Op::Const(70_000),
            Op::Int(-5),
            Op::Int(i32::MIN),
            Op::LoadLocal(3),
            Op::StoreLocal(4),
            Op::LoadCapture(5),
            Op::LoadGlobal(0),
            Op::GetField(6),
            Op::GetLocalField { slot: 1, key: 2 },
            Op::GetLength(7),
            Op::CompareConst {
                cmp: Cmp::Ge,
                constant: 8,
            },
            Op::Jump(9),
            Op::JumpIfFalse(10),
            Op::JumpIfFalseOrPop(11),
            Op::JumpIfTrueOrPop(12),
            Op::JumpIfNotNullOrPop(13),
            Op::JumpIfNull(14),
            Op::Array(15),
            Op::Object(16),
            Op::Mark(17),
            Op::Template(18),
            Op::CallValue(19),
            Op::CallBuiltin {
                id,
                argc: 2,
                global: 0,
            },
            Op::CallBuiltinMark { id, global: 0 },
            Op::CallHost {
                index: 1,
                argc: 2,
                global: 0,
            },
            Op::CallHostMark {
                index: 1,
                global: 0,
            },
            Op::CallGlobal { call: 3, argc: 1 },
            Op::CallGlobalMark(4),
            Op::LoadCallee(5),
            Op::CallMethod { method: 6, argc: 0 },
            Op::CallMethodMark(7),
            Op::Closure(8),
            Op::PatternField(9),
            Op::PatternIndex(10),
            Op::ObjectRest(11),
            Op::ArrayRest(12),
        ]);
        let mut w = Writer::default();
        for &op in &ops {
            write_op(&mut w, op);
        }
        let mut r = Reader::new(&w.bytes);
        for &op in &ops {
            assert_eq!(read_op(&mut r, &globals).ok(), Some(op));
        }
        assert_eq!(r.remaining(), 0);
        for tag in [29u8, 30, 31, 67, 255] {
            assert!(
                read_op(&mut Reader::new(&[tag]), &globals).is_err(),
                "{tag}"
            );
        }
    }
}
