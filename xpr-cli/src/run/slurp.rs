//! `xpr run --slurp EXPR [FILE ...]`: every record read into one array,
//! `records`, and the expression evaluated once over it
//! (`xpr run --slurp 'records.length'`), for what `--agg` does not cover.
//!
//! The records are held whole, so they are bounded by the memory budget
//! (`--max-memory`, counted as the VM counts values it builds); the
//! evaluation then has its budgets as any other.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Instant;

use xpr::{Map, Value, render_error};

use super::input::{self, Problem};
use super::json_in::{self, Conv};
use super::json_out;
use super::table::{self, Table};
use super::{Exit, Failure, InputFormat, OnError, OutputFormat, RunArgs, SHOWN_ERRORS};

/// Runs `xpr run --slurp`.
///
/// # Errors
/// Status 2 for flags this mode does not take, unreadable or invalid
/// input (with `--on-error fail`); status 1 for an expression error, the
/// records beyond `--max-memory`, or a result a table cannot hold.
pub(crate) fn run(args: &RunArgs) -> Result<(), Exit> {
    let started = Instant::now();
    for (given, flag) in [
        (args.output.audit.is_some(), "--audit"),
        (
            matches!(args.input, InputFormat::Parquet | InputFormat::Arrow),
            "--input parquet|arrow",
        ),
        (
            matches!(
                args.output_format,
                OutputFormat::Parquet | OutputFormat::Arrow
            ),
            "--output parquet|arrow",
        ),
    ] {
        if given {
            return Err(Exit::usage(format_args!(
                "{flag} is not supported with --slurp yet"
            )));
        }
    }
    let schema = args.output.schema()?;
    let engine = args.guard.apply(args.limits.engine());
    let program = args
        .guard
        .compile(&engine, &args.expr)
        .map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    super::super::warn_unknown_functions(&program);
    let budget = program.limits().memory.unwrap_or(u64::MAX);
    let inputs = input::open(&args.files)?;
    let mut conv = Conv::new(args.strict_numbers, args.limits.value_depth());
    let mut records = Vec::new();
    let (mut count, mut errors, mut bytes) = (0u64, 0u64, 0u64);
    let mut warnings = String::new();
    let mut stop: Option<Exit> = None;
    let pool = input::ChunkPool::default();
    input::read_all(
        inputs,
        args.input,
        args.max_record_bytes,
        &pool,
        &mut |chunk| {
            let text = std::str::from_utf8(&chunk.data).ok();
            for r in &chunk.records {
                let at = |m: &str| format!("{}:{}: {m}\n", chunk.source, r.line);
                let parsed = match &r.problem {
                    Some(Problem::Unended) => {
                        stop = Some(Exit::usage(at(&format!(
                            "the input ended inside this record, longer than {} bytes (--max-record-bytes)",
                            args.max_record_bytes
                        ))));
                        return false;
                    }
                    Some(Problem::TooLong) => Err(format!(
                        "record longer than {} bytes (--max-record-bytes)",
                        args.max_record_bytes
                    )),
                    Some(Problem::Broken(m)) => Err(m.clone()),
                    None => match text.and_then(|t| t.get(r.start..r.end)) {
                        Some(t) => Ok(t),
                        None => std::str::from_utf8(chunk.bytes(r)).map_err(|e| {
                            format!(
                                "invalid UTF-8 at byte {} of the record",
                                e.valid_up_to() + 1
                            )
                        }),
                    }
                    .and_then(|t| {
                        json_in::parse_value(t, &mut conv).map_err(|e| {
                            match super::json_failure(args.input, &e) {
                                Failure::Input(m) | Failure::Unended(m) => m,
                                Failure::Eval(e) => e.to_string(),
                            }
                        })
                    }),
                };
                count += 1;
                let value = match parsed {
                    Ok(v) => v,
                    Err(m) => {
                        if args.on_error == OnError::Fail {
                            stop = Some(Exit {
                                code: 2,
                                message: Some(format!("error: {}", at(&m))),
                            });
                            return false;
                        }
                        errors += 1;
                        if errors <= SHOWN_ERRORS as u64 {
                            warnings.push_str(&format!("warning: {}", at(&m)));
                        }
                        if args.on_error == OnError::Skip {
                            continue;
                        }
                        Value::Null
                    }
                };
                bytes = bytes.saturating_add(xpr_vm::value::SLOT_BYTES + value.logical_size());
                if bytes > budget {
                    stop = Some(Exit::expression(format!(
                        "error: Memory limit exceeded: the records take more than {budget} bytes \
                     (--slurp holds them all within --max-memory; --agg aggregates in flat memory)\n"
                    )));
                    return false;
                }
                records.push(value);
            }
            pool.give(chunk);
            true
        },
    );
    if errors > SHOWN_ERRORS as u64 {
        warnings.push_str("warning: further record errors are counted, not shown\n");
    }
    // -q: the summary's error count stands for them.
    if args.quiet == 0 {
        eprint(&warnings);
    }
    if let Some(exit) = stop {
        return Err(exit);
    }
    let mut context = Map::default();
    context.insert(Arc::from("records"), Value::array(records));
    let result = program
        .run(&context)
        .and_then(|v| match &schema {
            Some(s) => s.check(&v).map(|()| v),
            None => Ok(v),
        })
        .map_err(|e| Exit::expression(render_error(&e, &args.expr)))?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = match Table::new(args.output_format) {
        Some(mut t) => {
            // An array of objects is a table of rows; an object, one row.
            let rows = match &result {
                Value::Array(a) => a.items().to_vec(),
                v => vec![v.clone()],
            };
            let mut buf = Vec::new();
            for (i, row) in rows.iter().enumerate() {
                t.row(&mut buf, row)
                    .map_err(|m| Exit::expression(format!("error: element {}: {m}\n", i + 1)))?;
            }
            out.write_all(&buf)
        }
        None if args.raw && matches!(result, Value::String(_)) => {
            let mut buf = Vec::new();
            table::write_raw(&mut buf, &result);
            out.write_all(&buf)
        }
        None => json_out::write_to(&mut out, json_out::STREAM_BYTES, |o| {
            json_out::write_streamed(o, &result, None)?;
            o.buf.push(b'\n');
            Ok(())
        }),
    };
    written
        .and_then(|()| out.flush())
        .map_err(Exit::from_stdout)?;
    if args.quiet < 2 {
        eprint(&super::writer::summary_line(
            count,
            "1",
            errors,
            started.elapsed().as_secs_f64(),
            conv.big_ints,
        ));
    }
    Ok(())
}

fn eprint(text: &str) {
    if !text.is_empty() {
        // A closed stderr leaves nothing to report to.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}
