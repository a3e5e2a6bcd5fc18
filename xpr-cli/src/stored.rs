//! Stored programs on the command line: `xpr compile EXPR -o FILE` writes
//! one ([`xpr::Program::to_bytes`]); `--program FILE` on `eval` and `run`
//! loads one ([`xpr::Engine::load`]) in place of an expression.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use xpr::render_error;
use xpr_args::LimitArgs;

use crate::{Command, Exit, GuardArgs};

/// The longest stored program file read.
const MAX_PROGRAM_BYTES: usize = 64 << 20;

/// `compile` flags.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The expression.
    pub expr: String,
    /// Where to write the stored program (`-` for standard output).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// What the expression may use and must yield (`--allow`, `--deny`,
    /// `--expect`): checked now, and again by the engine that loads it.
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The budgets every subcommand takes (`--max-length`, ...; the run
    /// budgets are the loading command's).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `xpr compile`: the stored program in `--output`.
pub fn compile(args: &CompileArgs) -> Result<(), Exit> {
    let engine = args.guard.apply(args.limits.engine());
    let program = args
        .guard
        .compile(&engine, &args.expr)
        .map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    crate::warn_unknown_functions(&program);
    let bytes = program.to_bytes();
    let written = if args.output.as_os_str() == "-" {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes).and_then(|()| out.flush())
    } else {
        std::fs::write(&args.output, &bytes)
    };
    written.map_err(|e| {
        Exit::usage(format_args!(
            "cannot write {}: {}",
            args.output.display(),
            crate::input::io_text(&e)
        ))
    })
}

/// For `eval` and `run` with `--program FILE`: reads and loads the file
/// once (a file that is no valid stored program is an input error, status
/// 2; one this engine cannot run, for a host function or capability, an
/// expression error, status 1), keeps its bytes for
/// [`GuardArgs::compile`], and puts its source text where the expression
/// would be (for error messages and the audit log). For `run`, an
/// expression argument is then the first input file; for `eval`, an
/// expression with `--program` is a usage error.
pub fn prepare(command: &mut Command) -> Result<(), Exit> {
    match command {
        Command::Eval(a) => {
            let Some(path) = a.program.clone() else {
                return Ok(());
            };
            if !a.expr.is_empty() {
                return Err(Exit::usage(
                    "give an expression or --program FILE, not both",
                ));
            }
            a.expr = load(&path, &mut a.guard, &a.limits)?;
        }
        Command::Run(a) => {
            let Some(path) = a.program.clone() else {
                return Ok(());
            };
            if !a.expr.is_empty() {
                let first = PathBuf::from(std::mem::take(&mut a.expr));
                a.files.insert(0, first);
            }
            a.expr = load(&path, &mut a.guard, &a.limits)?;
        }
        _ => {}
    }
    Ok(())
}

/// Loads the stored program `path` with the engine the flags describe;
/// its source text.
fn load(path: &Path, guard: &mut GuardArgs, limits: &LimitArgs) -> Result<String, Exit> {
    let bytes: Arc<[u8]> = crate::read_path(path, MAX_PROGRAM_BYTES, "--program")?.into();
    let engine = guard.apply(limits.engine());
    guard.stored = Some(bytes.clone());
    match guard.compile(&engine, "") {
        Ok(program) => Ok(program.source().to_string()),
        Err(e) if e.message().starts_with("invalid stored program") => Err(Exit::usage(
            format_args!("{}: {}", path.display(), e.message()),
        )),
        // The source is in the file, which this engine cannot load: the
        // error alone.
        Err(e) => Err(Exit::expression(format!("error: {e}\n"))),
    }
}
