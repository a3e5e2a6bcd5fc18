//! The `xpr` command-line tool: evaluate XPR expressions once (`eval`), over
//! streams of JSON records (`run`), in bulk for harnesses (`batch`), or only
//! check and list them (`check`, `disasm`), store them compiled
//! (`compile`, then `--program`), or describe the language (`card`). See
//! `docs/cli.md`.
//!
//! This file: argument parsing (clap, derive), the shared limits flags, exit
//! statuses, and dispatch to one module per subcommand.
//!
//! Exit statuses (every subcommand):
//! - 0: success (also when stdout is closed early, as by `| head`);
//! - 1: an expression error (parse, compile or evaluation), or `check`
//!   finding one;
//! - 2: a usage or input error: bad flags, a missing or unreadable file,
//!   invalid JSON or UTF-8 in the input.

mod audit;
mod batch;
mod card;
mod check;
#[cfg(feature = "columnar")]
mod columnar;
#[cfg(not(feature = "columnar"))]
#[path = "columnar_off.rs"]
mod columnar;
mod cost;
mod eval;
mod explain;
mod input;
mod json_deep;
mod json_in;
mod json_out;
mod json_scan;
mod run;
mod sample;
mod source;
mod stored;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use eval::ContextArgs;
use xpr_args::LimitArgs;

/// Why the tool stops early: the exit status and what to print on stderr.
#[derive(Debug)]
pub struct Exit {
    /// The process exit status.
    pub code: u8,
    /// Printed on stderr as is (already formatted, newline included), if any.
    pub message: Option<String>,
}

impl Exit {
    /// Status 2 with `xpr: MESSAGE`.
    pub fn usage(message: impl std::fmt::Display) -> Self {
        Exit {
            code: 2,
            message: Some(format!("xpr: {message}\n")),
        }
    }

    /// Status 1 with an already rendered diagnostic.
    pub fn expression(rendered: String) -> Self {
        Exit {
            code: 1,
            message: Some(rendered),
        }
    }

    /// Status 0, nothing printed: the reader of stdout went away.
    pub fn broken_pipe() -> Self {
        Exit {
            code: 0,
            message: None,
        }
    }

    /// Maps a write error on stdout: a broken pipe ends quietly, anything
    /// else is an I/O error (status 2).
    pub fn from_stdout(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Exit::broken_pipe()
        } else {
            Exit::usage(format_args!(
                "cannot write to standard output: {}",
                input::io_text(&e)
            ))
        }
    }
}

/// `xpr`: run XPR expressions over JSON data, inside fuel, memory and time budgets.
#[derive(Debug, Parser)]
#[command(
    name = "xpr",
    version,
    about = "XPR: a sandboxed, fuel-metered expression language for data pipelines",
    long_about = None,
    max_term_width = 100,
    after_help = "Examples:\n  \
        xpr eval 'price * qty' --context '{\"price\": 2.5, \"qty\": 4}'\n  \
        xpr run 'total > 500 && status == \"paid\"' --filter samples/orders.ndjson\n  \
        xpr run '{id: id, city: shipping?.address?.city}' samples/orders.ndjson\n  \
        xpr run --group-by status --agg 'n: count(), revenue: sum(total)' samples/orders.ndjson\n  \
        xpr check 'totl > 100' --sample samples/orders.ndjson\n\n\
        Exit status: 0 success, 1 expression error, 2 usage or input error. See docs/cli.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate one expression and print its result as JSON.
    Eval(EvalArgs),
    /// Evaluate one expression per record of NDJSON (or JSON array) input.
    Run(RunArgs),
    /// Evaluate JSON lines {"expression": ..., "context": ...} from stdin.
    Batch(BatchArgs),
    /// Parse and compile only: report errors, free variables and functions.
    Check(CheckArgs),
    /// Print the bytecode listing of a compiled expression.
    Disasm(DisasmArgs),
    /// Compile an expression to a stored program file, for `run --program`
    /// and `eval --program` (no parsing or compiling when it is run).
    Compile(stored::CompileArgs),
    /// Evaluate one expression and show why its result is what it is.
    Explain(explain::ExplainArgs),
    /// Print the language card: XPR in brief, for an LLM's system prompt.
    Card(card::CardArgs),
}

/// `eval` flags.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The expression (none with `--program`).
    #[arg(
        required_unless_present = "program",
        default_value = "",
        hide_default_value = true
    )]
    pub expr: String,
    /// Run the stored program FILE (`xpr compile -o FILE`) instead of an expression.
    #[arg(long, value_name = "FILE")]
    pub program: Option<PathBuf>,
    /// The context (`--context`, `--context-file`, `--max-context-bytes`).
    #[command(flatten)]
    pub input: ContextArgs,
    /// Indent the output.
    #[arg(long)]
    pub pretty: bool,
    /// What expressions may use and must yield (`--allow`, `--deny`, `--expect`).
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The output schema and the audit log (`--output-schema`, `--audit`).
    #[command(flatten)]
    pub output: OutputArgs,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What `eval`, `run` and `batch` do with results besides writing them:
/// check them against an output schema, log them.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// A JSON Schema every result must conform to; one that does not is an
    /// error of kind `schema` naming the JSON pointer of the failing part.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,
    /// Append one JSON line per evaluation to FILE (expression hash, fields
    /// read, result or error, fuel, memory, CPU time); `run` writes a
    /// program and a summary line, and one per record with `--audit-records`.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
}

impl OutputArgs {
    /// The output schema, compiled, if one was given.
    ///
    /// # Errors
    /// Status 2: the file cannot be read, is longer than 16 MiB, or is not
    /// a valid JSON Schema (`xpr: FILE: invalid output schema ...`).
    pub fn schema(&self) -> Result<Option<xpr_schema::OutputSchema>, Exit> {
        let Some(path) = &self.output_schema else {
            return Ok(None);
        };
        let bytes = read_path(path, 16 << 20, "--output-schema")?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Exit::usage(format_args!("{}: invalid UTF-8", path.display())))?;
        xpr_schema::OutputSchema::from_text(&text)
            .map(Some)
            .map_err(|e| Exit::usage(format_args!("{}: {}", path.display(), e.message())))
    }

    /// The audit log, opened for appending, if one was asked for.
    ///
    /// # Errors
    /// Status 2 when it cannot be opened.
    pub fn audit(&self) -> Result<Option<audit::AuditLog>, Exit> {
        self.audit.as_deref().map(audit::AuditLog::open).transpose()
    }
}

/// How the records of `run` are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// One JSON value per line (blank lines are ignored).
    Ndjson,
    /// One JSON array of records (or a single JSON value).
    Json,
    /// Parquet files (snappy or uncompressed), read a record batch at a
    /// time through the columnar path (cargo feature `columnar`).
    Parquet,
    /// Arrow IPC files or streams, as Parquet (cargo feature `columnar`).
    Arrow,
}

impl InputFormat {
    /// The flag value naming it.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Ndjson => "ndjson",
            InputFormat::Json => "json",
            InputFormat::Parquet => "parquet",
            InputFormat::Arrow => "arrow",
        }
    }
}

/// What `run` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One JSON value per line.
    Ndjson,
    /// A Parquet file (snappy), on standard output (cargo feature `columnar`).
    Parquet,
    /// An Arrow IPC file, on standard output (cargo feature `columnar`).
    Arrow,
    /// CSV (RFC 4180 quoting): object results, one row each, the header
    /// from the first result's fields.
    Csv,
    /// Tab-separated values, as CSV, with `\t`, `\n`, `\r`, `\\` escapes.
    Tsv,
}

impl OutputFormat {
    /// The flag value naming it.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Ndjson => "ndjson",
            OutputFormat::Parquet => "parquet",
            OutputFormat::Arrow => "arrow",
            OutputFormat::Csv => "csv",
            OutputFormat::Tsv => "tsv",
        }
    }
}

/// What `run` does with a record whose evaluation (or parsing) fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnError {
    /// Stop at the first failing record, naming its line (exit 1, or 2 for bad input).
    Fail,
    /// Count the record as an error, report it on stderr, write nothing.
    Skip,
    /// Count the record as an error and write `null` in its place (with
    /// `--filter`: treat it as not kept).
    Null,
}

/// `run` flags.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The expression, evaluated once per record with the record's fields
    /// as variables (with `--slurp`, once over `records`; none with `--agg`,
    /// where every argument is an input file).
    #[arg(
        value_name = "EXPR",
        required_unless_present_any = ["agg", "program"],
        default_value = "",
        hide_default_value = true
    )]
    pub expr: String,
    /// Run the stored program FILE (`xpr compile -o FILE`) instead of an
    /// expression: every positional argument is then an input file.
    #[arg(long, value_name = "FILE", conflicts_with = "agg")]
    pub program: Option<PathBuf>,
    /// Input files; `-` or none for stdin.
    pub files: Vec<PathBuf>,
    /// The input layout.
    #[arg(long, value_enum, default_value_t = InputFormat::Ndjson)]
    pub input: InputFormat,
    /// What to write: `csv` or `tsv`, object results as rows (the header
    /// from the first); with `parquet` or `arrow`, one column `value` of
    /// the results (`--filter`: the kept rows), needing `--input parquet|arrow`.
    #[arg(long = "output", value_name = "FORMAT", value_enum, default_value_t = OutputFormat::Ndjson)]
    pub output_format: OutputFormat,
    /// Write string results as their text, without quotes or escapes
    /// (other results as JSON).
    #[arg(long, short = 'r')]
    pub raw: bool,
    /// Aggregate the records: a list `NAME: AGGREGATE(EXPR), ...` of
    /// count, sum, avg, min, max, first, last, countDistinct, collect (one
    /// object per group; every positional argument is then an input file).
    #[arg(long, value_name = "LIST")]
    pub agg: Option<String>,
    /// With `--agg`: the group key, a list `NAME: EXPR, ...` or fields
    /// (`origin, destination`); without it, all records are one group.
    #[arg(long, value_name = "LIST", requires = "agg")]
    pub group_by: Option<String>,
    /// With `--agg`: the most groups a run may have.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, requires = "agg")]
    pub max_groups: usize,
    /// With `--agg`: the most bytes the groups may hold together (keys,
    /// and the values of collect, countDistinct, first and last).
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 30, requires = "agg")]
    pub max_group_bytes: u64,
    /// Evaluate the expression once, over all records as one array named
    /// `records` (held within `--max-memory`).
    #[arg(long, conflicts_with_all = ["agg", "filter", "as_name"])]
    pub slurp: bool,
    /// Also bind the whole record to NAME (the record is then converted in full).
    #[arg(long = "as", value_name = "NAME")]
    pub as_name: Option<String>,
    /// Write each record for which the expression is truthy, byte for byte.
    #[arg(long)]
    pub filter: bool,
    /// What to do with a record that fails.
    #[arg(long, value_enum, default_value_t = OnError::Fail)]
    pub on_error: OnError,
    /// Worker threads (default: all cores; one for a Parquet --filter judged as it is read). Output order is input order whatever N.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Make an integer beyond 2^53 (which a number cannot hold exactly) an input error.
    #[arg(long)]
    pub strict_numbers: bool,
    /// Longest record accepted, in bytes; a longer one is an input error.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_record_bytes: usize,
    /// `-q`: no progress bar and no per-record warnings (the summary line
    /// still counts the errors); `-qq`: no summary line either.
    #[arg(long, short = 'q', action = clap::ArgAction::Count)]
    pub quiet: u8,
    /// What expressions may use and must yield (`--allow`, `--deny`, `--expect`).
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The output schema and the audit log (`--output-schema`, `--audit`).
    #[command(flatten)]
    pub output: OutputArgs,
    /// With `--audit`: also one line per record (by default only a program
    /// and a summary line).
    #[arg(long, requires = "audit")]
    pub audit_records: bool,
    /// Fuel all records may use together, one budget every `--jobs`
    /// worker draws from (on top of `--fuel` per record): once it is spent,
    /// each record left fails with `Fuel budget exhausted: shared budget
    /// spent` (under `--on-error`); the summary says how much was used.
    #[arg(long, value_name = "N", conflicts_with_all = ["agg", "slurp"])]
    pub total_fuel: Option<u64>,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `batch` flags.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Compiled programs kept, by expression text (least recently used goes first).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub cache: usize,
    /// Bytes the cached programs may hold together (bytecode, constants
    /// and compiled regex literals, estimated); a program bigger than this
    /// is compiled for its line and not kept.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub cache_bytes: u64,
    /// Longest input line accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    pub max_record_bytes: usize,
    /// Fuel all lines may use together (on top of `--fuel` per line): once
    /// it is spent, each line left is answered with `Fuel budget exhausted:
    /// shared budget spent`; a last line on stderr says how much was used.
    #[arg(long, value_name = "N")]
    pub total_fuel: Option<u64>,
    /// What expressions may use and must yield (`--allow`, `--deny`, `--expect`).
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The output schema and the audit log (`--output-schema`, `--audit`).
    #[command(flatten)]
    pub output: OutputArgs,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `check` flags.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The expression.
    pub expr: String,
    /// Print a machine-readable JSON report instead of text (`error` and every error in `errors`, each with its `hint`).
    #[arg(long)]
    pub json: bool,
    /// The known record fields, comma-separated: free variables not among them are reported.
    #[arg(
        long,
        value_name = "A,B,C",
        value_delimiter = ',',
        conflicts_with = "sample"
    )]
    pub fields: Option<Vec<String>>,
    /// Take the known fields from the first 100 records of FILE (NDJSON or JSON), nested fields (`a.b`) included.
    #[arg(long, value_name = "FILE")]
    pub sample: Option<PathBuf>,
    /// Exit with status 1 when there are warnings (unknown fields, other languages' names and methods, likely mistakes).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Print a static upper bound of the fuel a run uses, as a formula of the context's sizes (`12 + 9·len(items)`), or why there is none.
    #[arg(long)]
    pub cost: bool,
    /// With --cost: a size the formula names, `len(items)=1000` (a bare `items=1000` is `len(items)`); prints the bound's value. Repeatable.
    #[arg(long, value_name = "NAME=N", requires = "cost")]
    pub sizes: Vec<String>,
    /// With --cost: a context (a JSON object) whose sizes the bound is evaluated at (with --sample: the largest over its records).
    #[arg(long, value_name = "JSON", requires = "cost")]
    pub context: Option<String>,
    /// What expressions may use and must yield (`--allow`, `--deny`, `--expect`).
    #[command(flatten)]
    pub guard: GuardArgs,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `disasm` flags.
#[derive(Debug, Args)]
pub struct DisasmArgs {
    /// The expression.
    pub expr: String,
    /// The budgets every subcommand takes (`--fuel`, `--max-memory`, ...).
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The functions and methods expressions may use (`eval`, `run`,
/// `batch`, `check`) or the card describes (`card`).
#[derive(Debug, Clone, Args)]
pub struct CapabilityArgs {
    /// Allow only these functions and methods (built-in or not),
    /// comma-separated: using any other is an expression error.
    #[arg(long, value_name = "NAME,NAME", value_delimiter = ',')]
    pub allow: Option<Vec<String>>,
    /// Deny these functions and methods, comma-separated (`--deny
    /// now,random` for reproducible runs).
    #[arg(long, value_name = "NAME,NAME", value_delimiter = ',')]
    pub deny: Vec<String>,
}

impl CapabilityArgs {
    /// `engine` with the allowed and denied functions and methods.
    pub fn apply(&self, engine: xpr::Engine) -> xpr::Engine {
        let engine = match &self.allow {
            Some(allow) => engine.allow_only(names(allow)),
            None => engine,
        };
        engine.deny(names(&self.deny))
    }
}

/// The guardrails of `eval`, `run`, `batch` and `check`: the functions
/// and methods expressions may use, and the type their result must have.
#[derive(Debug, Clone, Args)]
pub struct GuardArgs {
    /// `--allow`, `--deny`.
    #[command(flatten)]
    pub capabilities: CapabilityArgs,
    /// The type every result must have: boolean, number, string, array,
    /// object or null. Checked before the first record when the
    /// expression's form shows its type, else on each result.
    #[arg(long, value_name = "TYPE", value_parser = parse_type)]
    pub expect: Option<xpr::ValueType>,
    /// The stored program `--program` names, read and loaded once
    /// before the subcommand runs: [`GuardArgs::compile`] loads it
    /// instead of compiling.
    #[arg(skip)]
    pub stored: Option<std::sync::Arc<[u8]>>,
}

fn parse_type(s: &str) -> Result<xpr::ValueType, String> {
    s.parse()
}

/// The names of a comma-separated list, trimmed, without empty ones.
fn names(list: &[String]) -> impl Iterator<Item = &str> {
    list.iter().map(|n| n.trim()).filter(|n| !n.is_empty())
}

impl GuardArgs {
    /// `engine` with the allowed and denied functions and methods.
    pub fn apply(&self, engine: xpr::Engine) -> xpr::Engine {
        self.capabilities.apply(engine)
    }

    /// Compiles `source` with `engine`, for results of the `--expect` type.
    ///
    /// # Errors
    /// Any compile error, a result type known to differ from `--expect`.
    pub fn compile(&self, engine: &xpr::Engine, source: &str) -> Result<xpr::Program, xpr::Error> {
        if let Some(bytes) = &self.stored {
            let program = engine.load(bytes)?;
            return match self.expect {
                Some(t) => program.expecting(t),
                None => Ok(program),
            };
        }
        match self.expect {
            Some(t) => engine.compile_expecting(source, t),
            None => engine.compile(source),
        }
    }
}

/// Parses the command line, runs the subcommand, prints any final message
/// and returns the exit status.
fn main() -> ExitCode {
    let mut cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors to stderr, status 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            if let Err(io) = e.print()
                && io.kind() != std::io::ErrorKind::BrokenPipe
            {
                return ExitCode::from(2);
            }
            return ExitCode::from(code);
        }
    };
    if let Err(exit) = stored::prepare(&mut cli.command) {
        return finish(Err(exit));
    }
    let result = match cli.command {
        Command::Eval(a) => eval::eval(&a),
        // -r writes lines of text; a table or a columnar file has its own
        // way of writing strings.
        Command::Run(a) if a.raw && a.output_format != OutputFormat::Ndjson => {
            Err(Exit::usage(format_args!(
                "-r/--raw writes strings as lines of text: it does not go with --output {}",
                a.output_format.name()
            )))
        }
        Command::Run(a) if a.agg.is_some() => {
            // No EXPR with --agg: the first positional argument is a file.
            let files: Vec<PathBuf> = (!a.expr.is_empty())
                .then(|| PathBuf::from(&a.expr))
                .into_iter()
                .chain(a.files.iter().cloned())
                .collect();
            run::agg::run(&a, a.agg.as_deref().unwrap_or_default(), &files)
        }
        Command::Run(a) if a.slurp => run::slurp::run(&a),
        Command::Run(a)
            if matches!(a.input, InputFormat::Parquet | InputFormat::Arrow)
                || matches!(a.output_format, OutputFormat::Parquet | OutputFormat::Arrow) =>
        {
            if a.total_fuel.is_some() {
                Err(Exit::usage(format_args!(
                    "--total-fuel works with NDJSON or JSON input, not with Parquet or Arrow input or output"
                )))
            } else {
                columnar::run(&a)
            }
        }
        Command::Run(a) => run::run(&a),
        Command::Batch(a) => batch::batch(&a),
        Command::Check(a) => check::check(&a),
        Command::Disasm(a) => eval::disasm(&a),
        Command::Compile(a) => stored::compile(&a),
        Command::Explain(a) => explain::explain(&a),
        Command::Card(a) => card::card(&a),
    };
    finish(result)
}

/// Prints the final message, if any, and gives the exit status.
fn finish(result: Result<(), Exit>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(exit) => {
            if let Some(message) = &exit.message {
                let mut stderr = std::io::stderr().lock();
                // Nothing more can be done if stderr itself is gone.
                let _ = stderr.write_all(message.as_bytes());
                let _ = stderr.flush();
            }
            ExitCode::from(exit.code)
        }
    }
}

/// Reads a whole file (`-` for stdin) as bytes, mapping errors to status 2.
/// At most `max` bytes are read: a longer input is an error naming `flag`
/// (the flag that raises the limit), so an endless input (`/dev/zero`)
/// ends at once.
pub fn read_path(path: &std::path::Path, max: usize, flag: &str) -> Result<Vec<u8>, Exit> {
    use std::io::Read as _;
    let (reader, name): (Box<dyn std::io::Read>, String) = if path.as_os_str() == "-" {
        (
            Box::new(std::io::stdin().lock()),
            "standard input".to_string(),
        )
    } else {
        let file = std::fs::File::open(path).map_err(|e| {
            Exit::usage(format_args!(
                "cannot read {}: {}",
                path.display(),
                input::io_text(&e)
            ))
        })?;
        (Box::new(file), path.display().to_string())
    };
    let mut buf = Vec::new();
    // One byte beyond the limit tells a longer input from one of exactly `max`.
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(|e| Exit::usage(format_args!("cannot read {name}: {}", input::io_text(&e))))?;
    if buf.len() > max {
        return Err(Exit::usage(format_args!(
            "{}: longer than {max} bytes ({flag})",
            path.display()
        )));
    }
    Ok(buf)
}

/// Warns on stderr, one line each, about the functions `program` calls by
/// a name that is no function: the spec makes `Unknown function` an
/// evaluation error, so the program runs, and fails only where such a
/// call is reached.
pub fn warn_unknown_functions(program: &xpr::Program) {
    use std::io::Write as _;
    let unknown = program.unknown_functions();
    if unknown.is_empty() {
        return;
    }
    let mut text = String::new();
    for u in unknown {
        text.push_str(&format!(
            "warning: {} (evaluations that reach this call fail)\n",
            u.error
        ));
    }
    // A closed stderr leaves nothing to warn.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
