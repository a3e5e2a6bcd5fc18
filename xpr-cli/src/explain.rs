//! `xpr explain`: one expression evaluated against one context, with the
//! value of each sub-expression that decided the result
//! ([`xpr::Program::explain`]), as text or JSON.

use std::io::Write as _;

use clap::Args;
use xpr_args::LimitArgs;

use super::eval::ContextArgs;
use super::{Exit, GuardArgs};

/// `explain` flags.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The expression.
    pub expr: String,
    /// The context (`--context`, `--context-file`, `--max-context-bytes`).
    #[command(flatten)]
    pub input: ContextArgs,
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
    let context = args.input.read(args.limits.value_depth())?;
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
