//! The `xpr-mcp` binary: parses the limits and guardrail flags (and reads
//! the output schema, if any), then serves MCP over standard input and
//! output until the client closes them.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use rmcp::ServiceExt as _;
use xpr_mcp::{GuardArgs, LimitArgs, Server};

/// `xpr-mcp`: an MCP server (stdio) with the tools `evaluate` and `check`
/// for XPR expressions and the language card as a resource, under limits,
/// allowlist, expected type and output schema fixed here.
#[derive(Debug, Parser)]
#[command(
    name = "xpr-mcp",
    version,
    about,
    long_about = None,
    max_term_width = 100,
    after_help = "Speaks MCP on standard input and output; start it from an MCP client \
        (an agent's configuration: command \"xpr-mcp\", args such as [\"--fuel\", \"1000000\"]). \
        See xpr-mcp/README.md."
)]
struct Cli {
    /// Tool calls evaluated at once (default: the number of cores); more wait their turn.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    #[command(flatten)]
    guard: GuardArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// Stack of each worker thread: the library bounds its own recursion
/// (AST depth, call depth, value depth) well within it.
const WORKER_STACK: usize = 8 << 20;

/// Blocking threads beyond the workers: standard input and output are
/// read and written on blocking threads too.
const STDIO_THREADS: usize = 4;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Before serving: an unusable schema is the operator's mistake.
    let guards = match cli.guard.guards() {
        Ok(g) => g,
        Err(message) => {
            eprintln!("xpr-mcp: {message}");
            return ExitCode::from(2);
        }
    };
    let jobs = cli.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_stack_size(WORKER_STACK)
        .max_blocking_threads(jobs + STDIO_THREADS)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("xpr-mcp: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    let server = Server::new(cli.guard.apply(cli.limits.engine()), guards, jobs);
    let outcome = runtime.block_on(async {
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = server.transport(tokio::io::BufReader::new(stdin), stdout);
        let running = server.serve(transport).await?;
        running.waiting().await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    });
    // A read of standard input cannot be cancelled: do not wait for it.
    runtime.shutdown_timeout(Duration::from_secs(1));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xpr-mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
