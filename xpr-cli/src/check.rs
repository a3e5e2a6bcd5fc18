//! `xpr check`: parse and compile only ([`xpr::Engine::check`]); report the
//! errors with a caret (or as JSON), list the free variables and functions,
//! and warn about free variables that are not fields of the records
//! (`--fields`, `--sample`). A call of an unknown function is reported as
//! an error: the library runs such a program (the spec makes it an
//! evaluation error, raised only where the call is reached), but a JSON
//! record can never supply a function.

use std::io::Write as _;
use std::path::Path;

use xpr::{CheckReport, Severity, Value};

use super::input::{self, Problem};
use super::json_in::{self, Conv, JsonError};
use super::{CheckArgs, Exit, InputFormat};

/// Runs `xpr check`: the library's [`xpr::CheckReport`], as text or JSON.
/// Its validity alone decides the exit status (and `valid`).
pub fn check(args: &CheckArgs) -> Result<(), Exit> {
    let engine = args.guard.apply(args.limits.engine());
    let known = match (&args.fields, &args.sample) {
        (Some(fields), _) => Some(
            fields
                .iter()
                .map(|f| f.trim().to_string())
                .collect::<Vec<_>>(),
        ),
        (None, Some(path)) => Some(sample_fields(path, args.limits.value_depth())?),
        (None, None) => None,
    };
    let mut report = engine.check(&args.expr, known.as_deref(), args.guard.expect);
    if args.deny_warnings {
        report.deny_warnings();
    }
    let valid = report.is_valid();
    if args.json {
        let mut out = report.to_json().to_string().into_bytes();
        out.push(b'\n');
        print(&out)?;
    } else {
        print_text(&report, &args.expr)?;
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

/// The top-level field names of the first record of `path` (NDJSON, or a
/// JSON array of records).
fn sample_fields(path: &Path, depth: u32) -> Result<Vec<String>, Exit> {
    let first = first_record(path, InputFormat::Ndjson)?;
    let mut conv = Conv::new(false, depth);
    let value = match json_in::parse_value(&first, &mut conv) {
        Ok(v) => v,
        Err(_) if first.starts_with('[') => {
            let element = first_record(path, InputFormat::Json)?;
            json_in::parse_value(&element, &mut conv).map_err(|e| sample_error(path, &e))?
        }
        Err(e) => return Err(sample_error(path, &e)),
    };
    let object = match &value {
        Value::Array(a) => a.items().first().and_then(Value::as_object).cloned(),
        Value::Object(o) => Some(o.clone()),
        _ => None,
    };
    match object {
        Some(o) => Ok(o.map().keys().map(|k| k.to_string()).collect()),
        None => Err(Exit::usage(format_args!(
            "{}: the first record is not a JSON object",
            path.display()
        ))),
    }
}

fn sample_error(path: &Path, e: &JsonError) -> Exit {
    if e.is_data() {
        return Exit::usage(format_args!(
            "{}: the first record: {}",
            path.display(),
            e.message()
        ));
    }
    Exit::usage(format_args!(
        "{}: invalid JSON in the first record: {}",
        path.display(),
        e.message()
    ))
}

/// The longest first record `--sample` reads.
const SAMPLE_BYTES: usize = 64 << 20;

fn first_record(path: &Path, format: InputFormat) -> Result<String, Exit> {
    let inputs = input::open(std::slice::from_ref(&path.to_path_buf()))?;
    let mut first: Option<Result<String, String>> = None;
    input::read_all(
        inputs,
        format,
        SAMPLE_BYTES,
        &input::ChunkPool::default(),
        &mut |chunk| {
            if let Some(r) = chunk.records.first() {
                first = Some(match &r.problem {
                    None => String::from_utf8(chunk.bytes(r).to_vec())
                        .map_err(|_| "invalid UTF-8".to_string()),
                    Some(Problem::TooLong | Problem::Unended) => Err(format!(
                        "the first record is longer than {SAMPLE_BYTES} bytes"
                    )),
                    Some(Problem::Broken(m)) => Err(m.clone()),
                });
            }
            false
        },
    );
    match first {
        Some(Ok(bytes)) => Ok(bytes),
        Some(Err(m)) => Err(Exit::usage(format_args!("{}: {m}", path.display()))),
        None => Err(Exit::usage(format_args!(
            "{}: no record to take fields from",
            path.display()
        ))),
    }
}
