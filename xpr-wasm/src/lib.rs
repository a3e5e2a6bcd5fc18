//! XPR for JavaScript: the engine of the npm package (`xpr-wasm/js/`),
//! compiled to WebAssembly with wasm-bindgen.
//!
//! Everything crosses the boundary as text: contexts and results as JSON,
//! limits as a JSON object, errors and diagnostics as JSON objects (see
//! [`error_json`]). The package's JavaScript (`js/index.js`) turns these
//! into JavaScript values and `XprError`s, and documents the API
//! (`js/index.d.ts`). Spans are in characters (Unicode scalar values), as
//! in every XPR runtime, not UTF-16 code units.
//!
//! Time: see [`clock`]. Randomness: each run takes the seed the caller
//! passes (the package draws one from `crypto.getRandomValues` unless the
//! caller fixes it), since this target has no entropy of its own.

#![forbid(unsafe_code)]

mod clock;
mod limits;

use serde_json::{Value as Json, json};
use wasm_bindgen::prelude::*;
use xpr::{Diagnostic, Engine, Error, RunConfig, Value, Vm};

/// The engine for `limits` (JSON text, see [`limits`]) with the host's
/// clocks.
fn engine(limits: &str) -> Result<Engine, String> {
    let limits = limits::parse(limits).map_err(|m| {
        json!({"kind": "input", "message": m, "text": m, "span": null, "hint": null}).to_string()
    })?;
    Ok(clock::with_host_clocks(Engine::new().with_limits(limits)))
}

/// An error as the JSON object the package turns into an `XprError`:
/// `kind` (`"parse"`, `"type"`, `"fuel"`, `"memory"`, `"timeout"`,
/// `"cancelled"`, ...), `message` (without the position), `text` (the
/// spec's full message, `... at position N`), `position`, `span`
/// (`{start, end}` in characters, or null), `expected` (tokens, for a
/// parse error), `hint` (or null).
pub fn error_json(error: &Error, source: &str) -> String {
    Diagnostic::from_error(error, source).to_json().to_string()
}

/// A compiled expression and the VM it runs on (kept between runs, so
/// its stack and caches are reused).
#[wasm_bindgen]
pub struct Program {
    program: xpr::Program,
    source: String,
    vm: Vm,
}

impl Program {
    /// Runs against `context` (JSON text of an object; empty: no
    /// variables) with the random seed `seed`, returning the result as
    /// JSON text, or the error as [`error_json`].
    pub fn run_json(&mut self, context: &str, seed: u64) -> Result<String, String> {
        let value = self.run(context, seed)?;
        xpr::to_json_string(&value).map_err(|e| error_json(&e, &self.source))
    }

    /// [`Program::run_json`] with the result as an XPR value.
    pub fn run(&mut self, context: &str, seed: u64) -> Result<Value, String> {
        let input = |m: String| {
            json!({"kind": "input", "message": m, "text": m, "span": null, "hint": null})
                .to_string()
        };
        // Read straight into an XPR value (depth-bounded), no JSON tree
        // in between.
        let context = if context.trim().is_empty() {
            Value::object(Default::default())
        } else {
            serde_json::from_str::<Value>(context)
                .map_err(|e| input(format!("context is not JSON: {e}")))?
        };
        let Value::Object(context) = context else {
            return Err(input(format!(
                "the context must be an object, not {}",
                context.type_name()
            )));
        };
        let config = RunConfig {
            seed: Some(seed),
            ..RunConfig::default()
        };
        self.program
            .run_in_with(&mut self.vm, &*context, &config)
            .map_err(|e| error_json(&e, &self.source))
    }
}

#[wasm_bindgen]
impl Program {
    /// Runs against `context` (JSON text of an object, or empty) with the
    /// seed `seed_hi << 32 | seed_lo`. Returns null, a boolean or a number
    /// as itself, anything else (strings included) as its JSON text: no
    /// text to decode for a rule's or a formula's result. Throws a string:
    /// the error as a JSON object ([`error_json`]).
    pub fn evaluate(
        &mut self,
        context: &str,
        seed_hi: u32,
        seed_lo: u32,
    ) -> Result<JsValue, JsValue> {
        let seed = (u64::from(seed_hi) << 32) | u64::from(seed_lo);
        let value = self.run(context, seed).map_err(|e| JsValue::from_str(&e))?;
        Ok(match value {
            Value::Null => JsValue::NULL,
            Value::Bool(b) => JsValue::from_bool(b),
            Value::Number(n) => JsValue::from_f64(n),
            other => JsValue::from_str(
                &xpr::to_json_string(&other)
                    .map_err(|e| JsValue::from_str(&error_json(&e, &self.source)))?,
            ),
        })
    }

    /// Fuel units the last run used.
    #[wasm_bindgen(js_name = fuelUsed)]
    pub fn fuel_used(&self) -> f64 {
        self.vm.fuel_used() as f64
    }

    /// Bytes the last run charged to the memory budget.
    #[wasm_bindgen(js_name = memoryUsed)]
    pub fn memory_used(&self) -> f64 {
        self.vm.peak_memory() as f64
    }

    /// The bytecode listing, one instruction a line.
    pub fn disassemble(&self) -> String {
        self.program.to_string()
    }

    /// The expression's source text.
    #[wasm_bindgen(getter)]
    pub fn source(&self) -> String {
        self.source.clone()
    }

    /// Every name the expression may look up in the context (its free
    /// variables and the names it calls), as a JSON array: a context
    /// holding only these gives the same results
    /// ([`xpr::Program::context_names`]).
    #[wasm_bindgen(js_name = contextNames)]
    pub fn context_names(&self) -> String {
        let names: Vec<&str> = self.program.context_names().iter().map(|k| &**k).collect();
        json!(names).to_string()
    }

    /// The context fields the expression reads, as a JSON array of names.
    #[wasm_bindgen(js_name = freeVariables)]
    pub fn free_variables(&self) -> String {
        let names: Vec<&str> = self.program.free_variables().iter().map(|k| &**k).collect();
        json!(names).to_string()
    }
}

/// Compiles `source` under `limits` (JSON text, see [`limits`]).
///
/// # Errors
/// The error as [`error_json`] text.
pub fn compile_program(source: &str, limits: &str) -> Result<Program, String> {
    let engine = engine(limits)?;
    let program = engine.compile(source).map_err(|e| error_json(&e, source))?;
    Ok(Program {
        program,
        source: source.to_string(),
        vm: Vm::new(),
    })
}

/// Compiles `source` under `limits` (JSON text). Throws a string: the
/// error as a JSON object ([`error_json`]).
#[wasm_bindgen]
pub fn compile(source: &str, limits: &str) -> Result<Program, JsValue> {
    compile_program(source, limits).map_err(|e| JsValue::from_str(&e))
}

/// Every syntax error of `source` one pass tells apart, as a JSON array of
/// diagnostics (each as [`error_json`], with `expected` tokens); `[]` when
/// it parses.
#[wasm_bindgen]
pub fn parse(source: &str, limits: &str) -> Result<String, JsValue> {
    let engine = engine(limits).map_err(|e| JsValue::from_str(&e))?;
    Ok(parse_report(&engine, source))
}

fn parse_report(engine: &Engine, source: &str) -> String {
    let all: Vec<Json> = engine
        .parse_errors(source)
        .into_iter()
        .map(|s| {
            let mut d = Diagnostic::from_error(&s.error, source);
            d.expected = s.expected;
            d.to_json()
        })
        .collect();
    Json::Array(all).to_string()
}

/// The report of `xpr check` as JSON text: `valid`, `error`, `errors`,
/// `warnings` (with `name` and `suggestion`), `free_variables`,
/// `functions`. `fields` (JSON array of names, or empty) warns of
/// variables outside it.
#[wasm_bindgen]
pub fn check(source: &str, limits: &str, fields: &str) -> Result<String, JsValue> {
    let engine = engine(limits).map_err(|e| JsValue::from_str(&e))?;
    check_report(&engine, source, fields).map_err(|e| JsValue::from_str(&e))
}

fn check_report(engine: &Engine, source: &str, fields: &str) -> Result<String, String> {
    let fields: Option<Vec<String>> = if fields.trim().is_empty() {
        None
    } else {
        Some(serde_json::from_str(fields).map_err(|e| {
            let m = format!("fields must be an array of names: {e}");
            json!({"kind": "input", "message": m, "text": m, "span": null, "hint": null})
                .to_string()
        })?)
    };
    Ok(engine
        .check(source, fields.as_deref(), None)
        .to_json()
        .to_string())
}

/// The language card (`xpr card`): XPR in brief, the built-in functions
/// and methods with their signatures, examples and common mistakes.
#[wasm_bindgen]
pub fn card() -> String {
    xpr::card(&Engine::new())
}

#[cfg(test)]
mod tests;
