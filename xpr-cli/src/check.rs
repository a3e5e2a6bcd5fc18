//! `xpr check`: parse and compile only; report the errors with a caret (or
//! as JSON: `error`, the first, and `errors`, all), list the free variables
//! and functions, and warn about free variables that are not fields of the
//! records (`--fields`, `--sample`), other languages' names and methods, and
//! the library's static findings ([`xpr::Engine::lint`]). A call of an
//! unknown function, and a method the receiver's known type lacks, are
//! reported as errors: the library runs such a program (the spec makes them
//! evaluation errors, raised only where the call is reached), but a JSON
//! record can never make them succeed. Every syntax error one pass tells
//! apart is reported ([`xpr::Engine::parse_errors`]).

use std::io::Write as _;
use std::path::Path;

use xpr::{Error, ErrorKind, Severity, Value, render_error};

use super::input::{self, Problem};
use super::json_in::{self, Conv, JsonError};
use super::json_out::write_str;
use super::{CheckArgs, Exit, InputFormat};

/// A free variable that is not a known field or is a name of another
/// language (`None`, `Math`), a method name that no type has but that is
/// close to one that does or is another language's (`toUpperCase`), or a
/// likely mistake the static lint found (`s.lower`, a `YYYY` date format).
struct Unknown {
    kind: UnknownKind,
    name: String,
    suggestion: Option<String>,
    /// What to write instead, when known.
    hint: Option<String>,
    /// The whole message, when not built from the parts above.
    message: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum UnknownKind {
    Field,
    Method,
    /// A free variable that is a name of another language.
    Foreign,
    /// A finding of the static lint (its kind named).
    Lint(&'static str),
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
            // Every syntax error one pass tells apart (the first is `e`).
            let mut errors: Vec<(Error, Vec<String>)> = if e.kind() == ErrorKind::Parse {
                engine
                    .parse_errors(&args.expr)
                    .into_iter()
                    .map(|s| (s.error, s.expected))
                    .collect()
            } else {
                Vec::new()
            };
            if errors
                .first()
                .is_none_or(|(first, _)| first.to_string() != e.to_string())
            {
                errors = vec![(e, Vec::new())];
            }
            return fail(args, &errors);
        }
    };
    // Calls of unknown functions, and methods the receiver's known type
    // lacks: each fails when reached, and a JSON record cannot change that.
    let lints = engine.lint(&args.expr).unwrap_or_default();
    let mut errors: Vec<(Error, Vec<String>)> = program
        .unknown_functions()
        .iter()
        .map(|u| (u.error.clone(), Vec::new()))
        .chain(
            lints
                .iter()
                .filter(|l| l.severity == Severity::Error)
                .map(|l| (l.error.clone(), Vec::new())),
        )
        .collect();
    if !errors.is_empty() {
        errors.sort_by_key(|(e, _)| e.span().map_or(0, |s| s.start));
        return fail(args, &errors);
    }
    let free: Vec<&str> = program.free_variables().iter().map(|k| &**k).collect();
    let functions = program.functions();
    let is_field = |v: &str| known.as_ref().is_some_and(|f| f.iter().any(|f| f == v));
    let mut unknown: Vec<Unknown> = Vec::new();
    for v in &free {
        if is_field(v) {
            continue;
        }
        if let Some(hint) = xpr_vm::foreign::name_hint(v) {
            unknown.push(Unknown {
                kind: UnknownKind::Foreign,
                name: v.to_string(),
                suggestion: None,
                hint: Some(hint),
                message: None,
            });
        } else if let Some(fields) = &known {
            unknown.push(Unknown {
                kind: UnknownKind::Field,
                name: v.to_string(),
                suggestion: xpr_vm::suggest::closest(v, fields.iter().map(String::as_str))
                    .map(str::to_string),
                hint: None,
                message: None,
            });
        }
    }
    // A method name no type has is only right for an object's own function
    // field (`o.double(4)`): warned about only when it is another
    // language's (`s.toUpperCase()`) or near a built-in method, as a typo
    // (`items.filtr(...)`).
    for m in program
        .bytecode()
        .methods()
        .iter()
        .filter(|m| m.id.is_none())
    {
        let Some(hint) = xpr_vm::foreign::method_hint(&m.name, None) else {
            continue;
        };
        // A typo's near name is also the `suggestion`.
        let near = hint
            .strip_prefix("did you mean '")
            .and_then(|h| h.strip_suffix("'?"))
            .map(str::to_string);
        unknown.push(Unknown {
            kind: UnknownKind::Method,
            name: m.name.to_string(),
            suggestion: near,
            hint: Some(hint),
            message: None,
        });
    }
    for l in lints.iter().filter(|l| l.severity == Severity::Warning) {
        unknown.push(Unknown {
            kind: UnknownKind::Lint(l.kind),
            name: l.name.clone(),
            suggestion: None,
            hint: l.error.hint().map(str::to_string),
            message: Some(format!(
                "{} at position {}",
                l.error.message(),
                l.error.span().map_or(0, |s| s.start)
            )),
        });
    }
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
            out.extend_from_slice(b"{\"kind\":");
            write_str(
                &mut out,
                match u.kind {
                    UnknownKind::Field => "unknown_field",
                    UnknownKind::Method => "unknown_method",
                    UnknownKind::Foreign => "foreign_name",
                    UnknownKind::Lint(kind) => kind,
                },
            );
            out.extend_from_slice(b",\"name\":");
            write_str(&mut out, &u.name);
            out.extend_from_slice(b",\"message\":");
            write_str(&mut out, &warning_text(u));
            out.extend_from_slice(b",\"suggestion\":");
            optional_str(&mut out, u.suggestion.as_deref());
            out.extend_from_slice(b",\"hint\":");
            optional_str(&mut out, u.hint.as_deref());
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

/// Reports `errors` (at least one), status 1: each rendered under the
/// source, or as JSON, the first as `error` and all of them as `errors`.
fn fail(args: &CheckArgs, errors: &[(Error, Vec<String>)]) -> Result<(), Exit> {
    if args.json {
        print(&errors_json(errors))?;
        return Err(Exit {
            code: 1,
            message: None,
        });
    }
    let rendered = errors
        .iter()
        .map(|(e, _)| render_error(e, &args.expr))
        .collect();
    Err(Exit::expression(rendered))
}

fn warning_text(u: &Unknown) -> String {
    if let Some(m) = &u.message {
        return m.clone();
    }
    let what = match u.kind {
        UnknownKind::Field => "a field of the records",
        UnknownKind::Method => "a built-in method",
        UnknownKind::Foreign | UnknownKind::Lint(_) => "an XPR name",
    };
    match (&u.hint, &u.suggestion) {
        (Some(h), _) => format!("'{}' is not {what} ({h})", u.name),
        (None, Some(s)) => format!("'{}' is not {what} (did you mean '{s}'?)", u.name),
        (None, None) => format!("'{}' is not {what}", u.name),
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

/// The machine-readable diagnostics of a failed check: `error`, the first,
/// and `errors`, all of them (the first included), each with `kind`,
/// `message`, `text`, `position`, `span`, `expected` and `hint`.
fn errors_json(errors: &[(Error, Vec<String>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"valid\":false,\"error\":");
    if let Some((e, expected)) = errors.first() {
        error_json(&mut out, e, expected);
    } else {
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(b",\"errors\":[");
    for (i, (e, expected)) in errors.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        error_json(&mut out, e, expected);
    }
    out.extend_from_slice(b"]}\n");
    out
}

/// One diagnostic object.
fn error_json(out: &mut Vec<u8>, e: &Error, expected: &[String]) {
    out.extend_from_slice(b"{\"kind\":");
    write_str(out, e.kind().name());
    out.extend_from_slice(b",\"message\":");
    write_str(out, e.message());
    out.extend_from_slice(b",\"text\":");
    write_str(out, &e.to_string());
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
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    list(out, &expected);
    out.extend_from_slice(b",\"hint\":");
    optional_str(out, e.hint());
    out.push(b'}');
}

fn optional_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
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
