//! `xpr eval` (one expression, one result) and `xpr disasm` (the bytecode listing).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use xpr::{Map, Value, Vm, render_error};

use super::audit;
use super::json_in::{self, Conv};
use super::json_out;
use super::{DisasmArgs, EvalArgs, Exit, read_path};

/// The context of `eval` and `explain`.
#[derive(Debug, clap::Args)]
pub struct ContextArgs {
    /// The context: a JSON object whose fields are the expression's variables.
    #[arg(
        long,
        short = 'c',
        value_name = "JSON",
        conflicts_with = "context_file"
    )]
    pub context: Option<String>,
    /// Read the context object from FILE (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub context_file: Option<PathBuf>,
    /// Longest context accepted, in bytes; a longer one is an input error.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_context_bytes: usize,
}

impl ContextArgs {
    /// Reads the context: `--context JSON` or `--context-file FILE`; an
    /// empty object when neither is given; values at most `depth` deep.
    pub fn read(&self, depth: u32) -> Result<Value, Exit> {
        read_context(
            self.context.as_deref(),
            self.context_file.as_deref(),
            self.max_context_bytes,
            depth,
        )
    }
}

/// Reads the context of `eval`.
fn context(args: &EvalArgs) -> Result<Value, Exit> {
    args.input.read(args.limits.value_depth())
}

/// Reads a context object: `text` (`--context`) or the file at `path`
/// (`--context-file`), at most `max` bytes, values at most `depth` deep;
/// an empty object when neither is given.
pub(crate) fn read_context(
    text: Option<&str>,
    path: Option<&std::path::Path>,
    max: usize,
    depth: u32,
) -> Result<Value, Exit> {
    let (bytes, what) = match (text, path) {
        (Some(text), _) => {
            if text.len() > max {
                return Err(Exit::usage(format_args!(
                    "--context: longer than {max} bytes (--max-context-bytes)"
                )));
            }
            (text.as_bytes().to_vec(), "--context".to_string())
        }
        (None, Some(path)) => (
            read_path(path, max, "--max-context-bytes")?,
            path.display().to_string(),
        ),
        (None, None) => return Ok(Value::object(Map::default())),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(Exit::usage(format_args!("{what}: invalid UTF-8")));
    };
    let mut conv = Conv::new(false, depth);
    let value = json_in::parse_value(text, &mut conv).map_err(|e| {
        if e.is_data() {
            return Exit::usage(format_args!("{what}: {}", e.message()));
        }
        Exit::usage(format_args!(
            "{what}: invalid JSON: {} at line {} column {}",
            e.message(),
            e.line(),
            e.column()
        ))
    })?;
    match value {
        Value::Object(_) => Ok(value),
        other => Err(Exit::usage(format_args!(
            "{what}: the context must be a JSON object, not {}",
            other.type_name()
        ))),
    }
}

/// Runs `xpr eval`: the result as JSON on stdout.
pub fn eval(args: &EvalArgs) -> Result<(), Exit> {
    let schema = args.output.schema()?;
    let mut log = args.output.audit()?;
    let context = context(args)?;
    let engine = args.guard.apply(args.limits.engine());
    let compiled = args.guard.compile(&engine, &args.expr);
    let hash = match &mut log {
        Some(log) => Some(log.program("eval", &args.expr, &compiled)?),
        None => None,
    };
    let program = compiled.map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    let mut vm = Vm::new();
    let (wall, started) = (Instant::now(), audit::start());
    let result = program.run_in(&mut vm, &context);
    let (at, cpu_ns) = audit::stop(started, wall);
    let result = match (&schema, result) {
        (Some(schema), Ok(value)) => schema.check(&value).map(|()| value),
        (_, result) => result,
    };
    if let (Some(log), Some(hash)) = (&mut log, &hash) {
        let usage = audit::Usage::of(&vm, cpu_ns);
        let origin = audit::Origin::Single;
        let result = result.as_ref().map_err(audit::Failed::from);
        log.evaluation(Some(hash), origin, at, result, usage)?;
        log.flush()?;
    }
    let value = result.map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    let indent = args.pretty.then_some(2);
    let mut stdout = std::io::stdout().lock();
    // Streamed: the text is never held whole (escaped, it can be six
    // times the size of the value the memory budget allowed).
    json_out::write_to(&mut stdout, json_out::STREAM_BYTES, |out| {
        json_out::write_streamed(out, &value, indent)?;
        out.buf.push(b'\n');
        Ok(())
    })
    .and_then(|()| stdout.flush())
    .map_err(Exit::from_stdout)?;
    // Only when the value stands: a call that was reached said it already.
    super::warn_unknown_functions(&program);
    Ok(())
}

/// Runs `xpr disasm`: the program's `Display` on stdout.
pub fn disasm(args: &DisasmArgs) -> Result<(), Exit> {
    let program = args
        .limits
        .engine()
        .compile(&args.expr)
        .map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    let mut text = program.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(Exit::from_stdout)
}
