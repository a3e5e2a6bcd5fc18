//! `xpr check`: parse and compile only ([`xpr::Engine::check`]); report the
//! errors with a caret (or as JSON), list the free variables and functions,
//! and warn about free variables that are not fields of the records
//! (`--fields`, `--sample`). A call of an unknown function is reported as
//! an error: the library runs such a program (the spec makes it an
//! evaluation error, raised only where the call is reached), but a JSON
//! record can never supply a function.

use std::io::Write as _;

use xpr::{CheckReport, Severity};

use super::cost::CostReport;
use super::sample;
use super::{CheckArgs, Exit};

/// The `--context` object of `check --cost`.
fn context_value(text: &str, depth: u32) -> Result<xpr::Value, Exit> {
    let mut conv = super::json_in::Conv::new(false, depth);
    match super::json_in::parse_value(text, &mut conv) {
        Ok(v @ xpr::Value::Object(_)) => Ok(v),
        Ok(other) => Err(Exit::usage(format_args!(
            "--context: expected a JSON object, got {}",
            other.type_name()
        ))),
        Err(e) => Err(Exit::usage(format_args!("--context: {}", e.message()))),
    }
}

/// Runs `xpr check`: the library's [`xpr::CheckReport`], as text or JSON.
/// Its validity alone decides the exit status (and `valid`).
pub fn check(args: &CheckArgs) -> Result<(), Exit> {
    let engine = args.guard.apply(args.limits.engine());
    let samples = match &args.sample {
        Some(path) => sample::sample_records(path, args.limits.value_depth())?,
        None => Vec::new(),
    };
    let known = match (&args.fields, &args.sample) {
        (Some(fields), _) => Some(
            fields
                .iter()
                .map(|f| f.trim().to_string())
                .collect::<Vec<_>>(),
        ),
        (None, Some(_)) => Some(sample::fields(&samples)),
        (None, None) => None,
    };
    let mut report = engine.check(&args.expr, known.as_deref(), args.guard.expect);
    if !samples.is_empty()
        && report.errors.is_empty()
        && let Ok(program) = engine.compile(&args.expr)
    {
        let paths: Vec<Vec<String>> = program
            .read_paths()
            .iter()
            .map(|p| p.iter().map(|k| k.to_string()).collect())
            .collect();
        report
            .warnings
            .extend(sample::path_warnings(&paths, &samples, &args.expr));
    }
    if args.deny_warnings {
        report.deny_warnings();
    }
    let valid = report.is_valid();
    let cost = match engine.compile(&args.expr) {
        Ok(program) if args.cost => {
            let mut contexts = samples;
            if let Some(text) = &args.context {
                contexts = vec![context_value(text, args.limits.value_depth())?];
            }
            let memory = args.limits.limits().memory;
            Some(CostReport::new(&program, &contexts, &args.sizes, memory)?)
        }
        _ => None,
    };
    if args.json {
        let mut json = report.to_json();
        if let (Some(c), Some(o)) = (&cost, json.as_object_mut()) {
            o.insert("cost".into(), c.json());
        }
        let mut out = json.to_string().into_bytes();
        out.push(b'\n');
        print(&out)?;
    } else {
        print_text(&report, &args.expr)?;
        if let Some(c) = &cost {
            print(c.text().as_bytes())?;
        }
    }
    if valid {
        Ok(())
    } else {
        Err(Exit {
            code: 1,
            message: None,
        })
    }
}

/// The text report: `ok` (when valid), the free variables and functions
/// on stdout; each error with its caret and each warning on stderr
/// (denied warnings as `error:`).
fn print_text(report: &CheckReport, source: &str) -> Result<(), Exit> {
    let mut err = String::new();
    for d in &report.errors {
        err.push_str(&d.render(source));
    }
    if let (Some(free), Some(functions)) = (&report.free_variables, &report.functions) {
        let mut text = String::from(if report.is_valid() { "ok\n" } else { "" });
        if report.errors.is_empty() {
            text.push_str(&format!("free variables: {}\n", join_or_none(free)));
            text.push_str(&format!("functions: {}\n", join_or_none(functions)));
        }
        print(text.as_bytes())?;
    }
    let denied = report
        .warnings
        .iter()
        .any(|w| w.diagnostic.severity == Severity::Error);
    for w in &report.warnings {
        err.push_str(&format!(
            "{}: {}\n",
            w.diagnostic.severity.name(),
            w.diagnostic.message
        ));
    }
    if denied {
        err.push_str("error: warnings denied (--deny-warnings)\n");
    }
    let mut stderr = std::io::stderr().lock();
    // Nothing more can be done if stderr is closed.
    let _ = stderr.write_all(err.as_bytes());
    Ok(())
}

fn join_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}

fn print(bytes: &[u8]) -> Result<(), Exit> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(Exit::from_stdout)
}
