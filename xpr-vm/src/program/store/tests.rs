//! Parts that [`Program::new`] may accept but no compiler emits are refused
//! when read; well-formed ones read back as written.

use super::*;
use crate::function::Arity;
use crate::program::Cmp;

fn proto(code: Vec<Op>) -> Proto {
    Proto {
        spans: vec![Span::default(); code.len()],
        code,
        ..Proto::default()
    }
}

fn env_with<'a>(hosts: &'a [Arc<HostFunction>], caps: &'a Capabilities) -> LoadEnv<'a> {
    LoadEnv {
        host_functions: hosts,
        capabilities: caps,
        max_regex_bytes: None,
        source_bytes: 1000,
    }
}

fn load(p: &ProgramParts, env: &LoadEnv) -> Result<Program, Error> {
    let mut w = Writer::default();
    write(p, &mut w);
    Program::read_parts(&mut Reader::new(&w.bytes), env)
}

fn refused(p: ProgramParts, why: &str) {
    let caps = Capabilities::all();
    let e = load(&p, &env_with(&[], &caps)).unwrap_err();
    assert!(e.message().contains(why), "{e}");
}

#[test]
fn a_well_formed_program_reads_back() {
    let p = ProgramParts {
        protos: vec![proto(vec![
            Op::Const(0),
            Op::CompareConst {
                cmp: Cmp::Lt,
                constant: 1,
            },
            Op::Return,
        ])],
        constants: vec![Value::from(1.5), Value::from("x")],
        ..ProgramParts::default()
    };
    let caps = Capabilities::all();
    let loaded = load(&p, &env_with(&[], &caps)).unwrap();
    assert_eq!(loaded.protos()[0].code, p.protos[0].code);
    assert_eq!(loaded.constants(), &p.constants[..]);
}

#[test]
fn what_no_compiler_emits_is_refused() {
    // A jump back: a loop.
    refused(
        ProgramParts {
            protos: vec![proto(vec![Op::Null, Op::Jump(0), Op::Return])],
            ..ProgramParts::default()
        },
        "not forward",
    );
    // A jump to itself.
    refused(
        ProgramParts {
            protos: vec![proto(vec![Op::Jump(0), Op::Return])],
            ..ProgramParts::default()
        },
        "not forward",
    );
    // More local slots than stores: frames the budget does not see.
    refused(
        ProgramParts {
            protos: vec![Proto {
                slots: 60_000,
                ..proto(vec![Op::Null, Op::Return])
            }],
            ..ProgramParts::default()
        },
        "more slots",
    );
    // A name read but not listed among the free variables.
    refused(
        ProgramParts {
            protos: vec![proto(vec![Op::LoadGlobal(0), Op::Return])],
            globals: vec![Global {
                name: Key::from("total"),
                fallback: None,
                read: false,
            }],
            ..ProgramParts::default()
        },
        "not listed as read",
    );
    // A built-in called but not listed among the functions called.
    refused(
        ProgramParts {
            protos: vec![proto(vec![
                Op::CallBuiltin {
                    id: 0,
                    argc: 0,
                    global: 0,
                },
                Op::Return,
            ])],
            globals: vec![Global {
                name: Key::from("now"),
                fallback: None,
                read: false,
            }],
            ..ProgramParts::default()
        },
        "not listed",
    );
    // A capture the closure does not have.
    refused(
        ProgramParts {
            protos: vec![proto(vec![Op::LoadCapture(0), Op::Return])],
            ..ProgramParts::default()
        },
        "capture out of range",
    );
    // A closure capturing a slot its creator lacks.
    refused(
        ProgramParts {
            protos: vec![
                proto(vec![Op::Closure(1), Op::Return]),
                Proto {
                    captures: vec![Capture::Local(3)],
                    ..proto(vec![Op::LoadCapture(0), Op::Return])
                },
            ],
            ..ProgramParts::default()
        },
        "captures what its creator lacks",
    );
    // A comparison with an array constant.
    refused(
        ProgramParts {
            protos: vec![proto(vec![
                Op::Null,
                Op::CompareConst {
                    cmp: Cmp::Eq,
                    constant: 0,
                },
                Op::Return,
            ])],
            constants: vec![Value::array(vec![Value::Null])],
            ..ProgramParts::default()
        },
        "no scalar",
    );
    // An operand out of range: Program::new's own check.
    refused(
        ProgramParts {
            protos: vec![proto(vec![Op::Const(7), Op::Return])],
            ..ProgramParts::default()
        },
        "out of range",
    );
    // A built-in call through a global that names no built-in.
    refused(
        ProgramParts {
            protos: vec![proto(vec![
                Op::CallBuiltin {
                    id: 0,
                    argc: 0,
                    global: 0,
                },
                Op::Return,
            ])],
            globals: vec![Global {
                name: Key::from("nothing"),
                fallback: None,
                read: false,
            }],
            ..ProgramParts::default()
        },
        "not a built-in",
    );
}

fn host(name: &str) -> Arc<HostFunction> {
    Arc::new(HostFunction {
        name: name.into(),
        arity: Arity::Exact(0),
        fuel_per_call: 1,
        meters: false,
        callback: Arc::new(|_, _| Ok(Value::Null)),
    })
}

fn host_call(global: &str) -> ProgramParts {
    ProgramParts {
        protos: vec![proto(vec![
            Op::CallHost {
                index: 0,
                argc: 0,
                global: 0,
            },
            Op::Return,
        ])],
        globals: vec![Global {
            name: Key::from(global),
            fallback: None,
            read: false,
        }],
        host_functions: vec![host("vat")],
        functions: vec!["vat".into()],
        ..ProgramParts::default()
    }
}

#[test]
fn host_functions_are_found_by_name_and_allowed() {
    let caps = Capabilities::all();
    let hosts = [host("vat")];
    let loaded = load(&host_call("vat"), &env_with(&hosts, &caps)).unwrap();
    assert_eq!(loaded.functions(), ["vat"]);
    let e = load(&host_call("vat"), &env_with(&[], &caps)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Host);
    assert!(e.message().contains("host function 'vat'"), "{e}");
    let e = load(&host_call("tax"), &env_with(&hosts, &caps)).unwrap_err();
    assert!(e.message().contains("another name"), "{e}");
    let denied = Capabilities::all().deny(["vat"]);
    let e = load(&host_call("vat"), &env_with(&hosts, &denied)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Access);
}

#[test]
fn code_and_names_out_of_proportion_to_the_source_are_refused() {
    let caps = Capabilities::all();
    // 1,000 bytes of source: 2,064 instructions at most.
    let many = ProgramParts {
        protos: vec![proto(
            std::iter::repeat_n(Op::Null, 2100)
                .chain([Op::Return])
                .collect(),
        )],
        ..ProgramParts::default()
    };
    let e = load(&many, &env_with(&[], &caps)).unwrap_err();
    assert!(
        e.message()
            .contains("2101 instructions for a source of 1000 bytes"),
        "{e}"
    );
    // A 1,000-byte key read by 10 instructions: 10,000 bytes of names.
    let mut code = vec![Op::Null];
    code.extend(std::iter::repeat_n(Op::GetField(0), 10));
    code.push(Op::Return);
    let long = ProgramParts {
        protos: vec![proto(code)],
        keys: vec![Key::from("k".repeat(1000).as_str())],
        ..ProgramParts::default()
    };
    let e = load(&long, &env_with(&[], &caps)).unwrap_err();
    assert!(e.message().contains("10000 bytes of names"), "{e}");
}

#[test]
fn captures_count_toward_the_names_an_instruction_uses() {
    let caps = Capabilities::all();
    // 200 closures of a prototype capturing 30 slots: 6,000 > 4,064.
    let mut code = vec![Op::Null, Op::StoreLocal(0)];
    code.extend(std::iter::repeat_n(Op::Closure(1), 200));
    code.push(Op::Return);
    let p = ProgramParts {
        protos: vec![
            Proto {
                slots: 1,
                ..proto(code)
            },
            Proto {
                captures: vec![Capture::Local(0); 30],
                ..proto(vec![Op::Null, Op::Return])
            },
        ],
        ..ProgramParts::default()
    };
    let e = load(&p, &env_with(&[], &caps)).unwrap_err();
    assert!(e.message().contains("6000 bytes of names"), "{e}");
}

#[test]
fn an_unknown_function_raises_only_the_compilers_error() {
    let caps = Capabilities::all();
    let with = |error: Error| ProgramParts {
        protos: vec![proto(vec![Op::CallGlobal { call: 0, argc: 0 }, Op::Return])],
        globals: vec![Global {
            name: Key::from("bonus"),
            fallback: None,
            read: false,
        }],
        calls: vec![NamedCall {
            global: 0,
            otherwise: Otherwise::Unknown(error),
        }],
        ..ProgramParts::default()
    };
    let ok = Error::new(ErrorKind::Reference, "Unknown function 'bonus'")
        .with_hint("did you mean 'bonuses'?");
    let loaded = load(&with(ok), &env_with(&[], &caps)).unwrap();
    assert_eq!(loaded.parts().calls.len(), 1);
    for bad in [
        Error::new(ErrorKind::Timeout, "Unknown function 'bonus'"),
        Error::new(ErrorKind::Reference, "Expression timeout exceeded"),
    ] {
        let e = load(&with(bad), &env_with(&[], &caps)).unwrap_err();
        assert!(
            e.message().contains("not `Unknown function 'bonus'`"),
            "{e}"
        );
    }
}
