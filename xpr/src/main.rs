//! The `xpr` command-line tool: evaluate XPR expressions once (`eval`), over
//! streams of JSON records (`run`), in bulk for harnesses (`batch`), or only
//! check and list them (`check`, `disasm`). See `docs/cli.md`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
