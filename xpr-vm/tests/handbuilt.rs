//! The VM runs programs built by hand, without the compiler.

use xpr_vm::program::{Capture, ProgramParts, Proto};
use xpr_vm::{ErrorKind, Op, Program, RunOptions, Span, Value, Vm};

fn proto(code: Vec<Op>) -> Proto {
    let spans = (0..code.len() as u32)
        .map(|i| Span::new(i, i + 1))
        .collect();
    Proto {
        code,
        spans,
        ..Proto::default()
    }
}

fn run(parts: ProgramParts) -> Result<Value, xpr_vm::Error> {
    let program = Program::new(parts)?;
    Vm::new().run(&program, &(), &RunOptions::default())
}

#[test]
fn arithmetic_and_jumps() {
    // 1 < 2 ? 10 : 20
    let parts = ProgramParts {
        protos: vec![proto(vec![
            Op::Int(1),
            Op::Int(2),
            Op::Lt,
            Op::JumpIfFalse(6),
            Op::Int(10),
            Op::Jump(7),
            Op::Int(20),
            Op::Return,
        ])],
        ..ProgramParts::default()
    };
    assert_eq!(run(parts).unwrap(), Value::Number(10.0));
}

#[test]
fn closures_capture_locals_by_value() {
    // let a = 5; (x => x + a)(1)
    let mut inner = proto(vec![
        Op::LoadLocal(0),
        Op::LoadCapture(0),
        Op::Add,
        Op::Return,
    ]);
    inner.params = 1;
    inner.slots = 1;
    inner.captures = vec![Capture::Local(0)];
    let mut main = proto(vec![
        Op::Int(5),
        Op::StoreLocal(0),
        Op::Closure(1),
        Op::Int(1),
        Op::CallValue(1),
        Op::Return,
    ]);
    main.slots = 1;
    let parts = ProgramParts {
        protos: vec![main, inner],
        ..ProgramParts::default()
    };
    assert_eq!(run(parts).unwrap(), Value::Number(6.0));
}

#[test]
fn errors_carry_the_instruction_span() {
    let parts = ProgramParts {
        protos: vec![proto(vec![Op::Int(1), Op::Int(0), Op::Div, Op::Return])],
        ..ProgramParts::default()
    };
    let e = run(parts).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Arithmetic);
    assert_eq!(e.to_string(), "Division by zero at position 2");
}

#[test]
fn invalid_programs_are_rejected_once() {
    let parts = ProgramParts {
        protos: vec![proto(vec![Op::Jump(9), Op::Return])],
        ..ProgramParts::default()
    };
    assert!(Program::new(parts).is_err());
    let parts = ProgramParts {
        protos: vec![proto(vec![Op::LoadLocal(0), Op::Return])],
        ..ProgramParts::default()
    };
    assert!(Program::new(parts).is_err());
}
