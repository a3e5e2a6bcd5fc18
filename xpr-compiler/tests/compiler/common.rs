//! One-line helpers: parse, compile and run an expression.
#![allow(dead_code)]

use xpr_vm::{Error, Limits, RunOptions, Value, Vm};

/// Parses and compiles `src`; a parse error becomes an [`Error`] of kind parse.
pub fn compile(src: &str) -> Result<xpr_vm::Program, Error> {
    let ast = xpr_syntax::parse(src).map_err(|e| {
        Error::new(xpr_vm::ErrorKind::Parse, e.message)
            .at(xpr_vm::Span::new(e.span.start, e.span.end))
    })?;
    xpr_compiler::compile(&ast, &xpr_compiler::CompileEnv::default())
}

/// Options without time limits (no result depends on the machine's speed)
/// and with a fixed seed.
pub fn opts() -> RunOptions {
    RunOptions {
        limits: Limits {
            timeout: None,
            ..Limits::default()
        },
        random: xpr_vm::Randomness::Seeded(7),
        ..RunOptions::default()
    }
}

/// Runs `src` against the JSON context `ctx`.
pub fn eval_in(src: &str, ctx: serde_json::Value) -> Result<Value, Error> {
    let program = compile(src)?;
    let mut vm = Vm::new();
    vm.run(&program, &ctx, &opts())
}

/// Runs `src` with an empty context.
pub fn eval(src: &str) -> Result<Value, Error> {
    eval_in(src, serde_json::json!({}))
}

fn json(v: serde_json::Value) -> Value {
    Value::from_json(&v).expect("test value")
}

/// Asserts `src` evaluates to `expected` (as JSON).
#[track_caller]
pub fn yields(src: &str, expected: serde_json::Value) {
    yields_in(src, serde_json::json!({}), expected);
}

/// Asserts `src` evaluates to `expected` in context `ctx`.
#[track_caller]
pub fn yields_in(src: &str, ctx: serde_json::Value, expected: serde_json::Value) {
    match eval_in(src, ctx) {
        Ok(v) => assert_eq!(v, json(expected), "{src}"),
        Err(e) => panic!("{src}: unexpected error {e}"),
    }
}

/// Asserts `src` fails with a message containing `needle`; returns the error.
#[track_caller]
pub fn fails(src: &str, needle: &str) -> Error {
    fails_in(src, serde_json::json!({}), needle)
}

/// Asserts `src` fails in `ctx` with a message containing `needle`.
#[track_caller]
pub fn fails_in(src: &str, ctx: serde_json::Value, needle: &str) -> Error {
    match eval_in(src, ctx) {
        Ok(v) => panic!("{src}: expected an error containing {needle:?}, got {v:?}"),
        Err(e) => {
            assert!(
                e.to_string().contains(needle),
                "{src}: {e} does not contain {needle:?}"
            );
            e
        }
    }
}

/// Asserts that `text` is the golden file `tests/snapshots/NAME.snap`
/// (regenerate with `XPR_BLESS=1`; see `xpr_testkit::golden`).
#[track_caller]
pub fn assert_golden(name: &str, text: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    xpr_testkit::assert_golden(&dir, name, text);
}
