//! `xpr check`: parse and compile only; report the error with a caret (or
//! as JSON), list the free variables and functions, and warn about free
//! variables that are not fields of the records (`--fields`, `--sample`).
//! A call of an unknown function is reported as an error: the library runs
//! such a program (the spec makes it an evaluation error, raised only where
//! the call is reached), but a JSON record can never supply a function.

use std::io::Write as _;
use std::path::Path;

use xpr::{Engine, Error, ErrorKind, Value, render_error};

use super::input::{self, Problem};
use super::json_in::{self, Conv, JsonError};
use super::json_out::write_str;
use super::{CheckArgs, Exit, InputFormat};

/// A free variable that is not a known field, or a method name that no
/// type has but is close to one that does.
struct Unknown {
    kind: UnknownKind,
    name: String,
    suggestion: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum UnknownKind {
    Field,
    Method,
}

/// Runs `xpr check`.
pub fn check(args: &CheckArgs) -> Result<(), Exit> {
    let engine = args.limits.engine();
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
    let program = match engine.compile(&args.expr) {
        Ok(p) => p,
        Err(e) => {
            if args.json {
                print(&error_json(&engine, &args.expr, &e))?;
                return Err(Exit {
                    code: 1,
                    message: None,
                });
            }
            return Err(Exit::expression(render_error(&e, &args.expr)));
        }
    };
    let unknown_functions = program.unknown_functions();
    if let Some(first) = unknown_functions.first() {
        if args.json {
            print(&error_json(&engine, &args.expr, &first.error))?;
            return Err(Exit {
                code: 1,
                message: None,
            });
        }
        let rendered = unknown_functions
            .iter()
            .map(|u| render_error(&u.error, &args.expr))
            .collect();
        return Err(Exit::expression(rendered));
    }
    let free: Vec<&str> = program.free_variables().iter().map(|k| &**k).collect();
    let functions = program.functions();
    let unknown: Vec<Unknown> = match &known {
        Some(fields) => free
            .iter()
            .filter(|v| !fields.iter().any(|f| f == *v))
            .map(|v| Unknown {
                kind: UnknownKind::Field,
                name: v.to_string(),
                suggestion: xpr_vm::suggest::closest(v, fields.iter().map(String::as_str))
                    .map(str::to_string),
            })
            .collect(),
        None => Vec::new(),
    };
    // A method name no type has is only right for an object's own function
    // field (`o.double(4)`): warned about only when it is near a built-in
    // method, as a typo (`items.filtr(...)`).
    let typos = program
        .bytecode()
        .methods()
        .iter()
        .filter(|m| m.id.is_none())
        .filter_map(|m| {
            let near = xpr_vm::suggest::closest(&m.name, xpr_vm::stdlib::method_names())?;
            Some(Unknown {
                kind: UnknownKind::Method,
                name: m.name.to_string(),
                suggestion: Some(near.to_string()),
            })
        });
    let unknown: Vec<Unknown> = unknown.into_iter().chain(typos).collect();
    if args.json {
        let mut out = Vec::new();
        out.extend_from_slice(b"{\"valid\":true,\"free_variables\":");
        list(&mut out, &free);
        out.extend_from_slice(b",\"functions\":");
        list(&mut out, &functions);
        out.extend_from_slice(b",\"warnings\":[");
        for (i, u) in unknown.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(match u.kind {
                UnknownKind::Field => b"{\"kind\":\"unknown_field\",\"name\":",
                UnknownKind::Method => b"{\"kind\":\"unknown_method\",\"name\":",
            });
            write_str(&mut out, &u.name);
            out.extend_from_slice(b",\"message\":");
            write_str(&mut out, &warning_text(u));
            out.extend_from_slice(b",\"suggestion\":");
            match &u.suggestion {
                Some(s) => write_str(&mut out, s),
                None => out.extend_from_slice(b"null"),
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"]}\n");
        print(&out)?;
    } else {
        // Denied warnings are errors: no `ok` then (as `rustc -D warnings`).
        let denied = args.deny_warnings && !unknown.is_empty();
        let mut text = String::from(if denied { "" } else { "ok\n" });
        text.push_str(&format!("free variables: {}\n", join_or_none(&free)));
        text.push_str(&format!("functions: {}\n", join_or_none(&functions)));
        print(text.as_bytes())?;
        let level = if denied { "error" } else { "warning" };
        let mut err = std::io::stderr().lock();
        for u in &unknown {
            // Nothing more can be done if stderr is closed.
            let _ = writeln!(err, "{level}: {}", warning_text(u));
        }
        if denied {
            let _ = writeln!(err, "error: warnings denied (--deny-warnings)");
        }
    }
    if args.deny_warnings && !unknown.is_empty() {
        return Err(Exit {
            code: 1,
            message: None,
        });
    }
    Ok(())
}

fn warning_text(u: &Unknown) -> String {
    let what = match u.kind {
        UnknownKind::Field => "a field of the records",
        UnknownKind::Method => "a built-in method",
    };
    match &u.suggestion {
        Some(s) => format!("'{}' is not {what} (did you mean '{s}'?)", u.name),
        None => format!("'{}' is not {what}", u.name),
    }
}

fn join_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}

fn list(out: &mut Vec<u8>, items: &[&str]) {
    out.push(b'[');
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, s);
    }
    out.push(b']');
}

fn print(bytes: &[u8]) -> Result<(), Exit> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(Exit::from_stdout)
}

/// The machine-readable diagnostic of a failed compile.
fn error_json(engine: &Engine, source: &str, e: &Error) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"valid\":false,\"error\":{\"kind\":");
    write_str(&mut out, e.kind().name());
    out.extend_from_slice(b",\"message\":");
    write_str(&mut out, e.message());
    out.extend_from_slice(b",\"text\":");
    write_str(&mut out, &e.to_string());
    match e.span() {
        Some(span) => out.extend_from_slice(
            format!(
                ",\"position\":{},\"span\":{{\"start\":{},\"end\":{}}}",
                span.start, span.start, span.end
            )
            .as_bytes(),
        ),
        None => out.extend_from_slice(b",\"position\":null,\"span\":null"),
    }
    out.extend_from_slice(b",\"expected\":");
    let expected = if e.kind() == ErrorKind::Parse {
        engine.expected_tokens(source)
    } else {
        Vec::new()
    };
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    list(&mut out, &expected);
    out.extend_from_slice(b"}}\n");
    out
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
