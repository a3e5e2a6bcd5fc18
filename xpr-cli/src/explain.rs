//! `xpr explain`: one expression evaluated against one context, with the
//! value of each sub-expression that decided the result
//! ([`xpr::Program::explain`]), as text or JSON.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use xpr_args::LimitArgs;

use super::eval::read_context;
use super::{Exit, GuardArgs};

/// `explain` flags.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The expression.
    pub expr: String,
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
    /// Print the explanation as one JSON object (`result` or `error`, and
    /// `explanation`, a tree of steps) instead of text.
    #[arg(long)]
    pub json: bool,
    /// What expressions may use and must yield (`--allow`, `--deny`, `--expect`).
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `xpr explain`: the explanation on stdout; status 1 when the
/// expression does not compile (nothing on stdout) or its result is an
/// error (explained on stdout, the error on stderr too).
pub fn explain(args: &ExplainArgs) -> Result<(), Exit> {
    let context = read_context(
        args.context.as_deref(),
        args.context_file.as_deref(),
        args.max_context_bytes,
        args.limits.value_depth(),
    )?;
    let engine = args.guard.apply(args.limits.engine());
    let program = args
        .guard
        .compile(&engine, &args.expr)
        .map_err(|e| Exit::expression(xpr::render_error(&e, &args.expr)))?;
    let explanation = program.explain(&context);
    let text = if args.json {
        let mut text = explanation.to_json().to_string();
        text.push('\n');
        text
    } else {
        explanation.to_string()
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(Exit::from_stdout)?;
    match &explanation.result {
        Ok(_) => Ok(()),
        Err(e) => Err(Exit::expression(xpr::render_error(e, &args.expr))),
    }
}
