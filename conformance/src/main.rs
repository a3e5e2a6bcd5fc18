//! `conformance [DIR...]`: runs every `*.yaml` suite in the given
//! directories (default: the project's `conformance/cases/` plus the official
//! suite and extra cases from `../shared` when present), prints failures, a
//! per-suite table and `N passed, M failed, K skipped`. Exits 1 on any failure
//! not in `conformance/known-failures.txt`, or when a listed case passes.
//!
//! `conformance --seeds OUTDIR [DIR...]` instead writes every case's
//! expression to a file in OUTDIR: the fuzzers' seed corpus;
//! `conformance --stored-seeds OUTDIR [DIR...]` writes every compiling
//! case as a stored program (the `load` fuzz target's seeds).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let mut flag = |name: &str| match args.iter().position(|a| a.as_os_str() == name) {
        Some(i) if i + 1 < args.len() => {
            let dir = args.remove(i + 1);
            args.remove(i);
            Some(dir)
        }
        _ => None,
    };
    let seeds = flag("--seeds");
    let stored = flag("--stored-seeds");
    if args
        .iter()
        .any(|a| a.as_os_str() == "--help" || a.as_os_str() == "-h")
    {
        println!(
            "usage: conformance [DIR...]\n       conformance --seeds OUTDIR [DIR...]\n       \
             conformance --stored-seeds OUTDIR [DIR...]\n\n\
             Runs every *.yaml suite in DIR (default: conformance/cases plus the official\n\
             suite and extra cases from ../shared when present). Exit 1 on a failure not\n\
             listed in conformance/known-failures.txt."
        );
        return ExitCode::SUCCESS;
    }
    let dirs = if args.is_empty() {
        let dirs = conformance::default_dirs();
        if dirs.len() == 1 {
            eprintln!(
                "note: {} not found: running the project's own cases only",
                conformance::shared_dir().display()
            );
        }
        dirs
    } else {
        args
    };
    let mut suites = Vec::new();
    for dir in &dirs {
        match conformance::load_dir(dir) {
            Ok(mut s) => suites.append(&mut s),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(dir) = seeds {
        return match conformance::write_seeds(&suites, &dir) {
            Ok(n) => {
                println!("wrote {n} seed expressions to {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", dir.display());
                ExitCode::from(2)
            }
        };
    }
    if let Some(dir) = stored {
        return match conformance::write_stored_seeds(&suites, &dir) {
            Ok(n) => {
                println!("wrote {n} stored programs to {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", dir.display());
                ExitCode::from(2)
            }
        };
    }
    let results = conformance::run_suites(&conformance::engine(), &suites);
    print!("{}", conformance::report(&results));
    let known_text =
        std::fs::read_to_string(conformance::known_failures_path()).unwrap_or_default();
    let known = conformance::known_failures(&known_text);
    let (new_failures, fixed) = conformance::unexpected(&results, &known);
    for (suite, name) in &fixed {
        println!("listed as a known failure but did not fail: {suite} / {name}");
    }
    if !known.is_empty() {
        println!("{} known failures listed", known.len());
    }
    if new_failures.is_empty() && fixed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
