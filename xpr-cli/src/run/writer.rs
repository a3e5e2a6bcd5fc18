//! The output side of `xpr run`: writes chunks' outcomes in order (the
//! results on stdout, the audit lines in the log), reports per-record
//! errors, keeps the counts of the summary line.

use std::io::{BufWriter, IsTerminal as _, Stdout, Write as _};
use std::time::Instant;

use xpr::render_error;

use super::super::Exit;
use super::super::audit::{self, AuditLog};
use super::{Failure, Located, Outcome, SHOWN_ERRORS};

/// The output side: writes outcomes in order, reports, keeps counts.
pub(super) struct Writer<'a> {
    pub(super) out: BufWriter<Stdout>,
    pub(super) expr: &'a str,
    pub(super) records: u64,
    pub(super) outputs: u64,
    pub(super) errors: u64,
    pub(super) big_ints: u64,
    pub(super) shown: usize,
    pub(super) noted: bool,
    pub(super) progress: Option<indicatif::ProgressBar>,
    pub(super) started: Instant,
    /// `-q` (1): no per-record warnings; `-qq` (2): no summary line either.
    pub(super) quiet: u8,
    /// `--audit`: the log, the expression's hash, and the totals of the
    /// summary line.
    pub(super) audit: Option<(AuditLog, String)>,
    pub(super) totals: audit::Totals,
    /// `--output csv|tsv`: the table the rows go to.
    pub(super) table: Option<super::table::Table>,
    /// For a row the table refuses.
    pub(super) on_error: super::OnError,
    /// `--total-fuel`: the budget the records drew from.
    pub(super) budget: Option<xpr::Budget>,
}

impl Writer<'_> {
    /// Writes `o` and reports its errors; gives back its output and audit
    /// buffers (for later chunks).
    pub(super) fn take(&mut self, mut o: Outcome) -> Result<[Vec<u8>; 2], Exit> {
        if let Some(fatal) = self.rows(&mut o) {
            o.fatal = Some(fatal);
        }
        self.write_raw(&o.out)?;
        if let Some((log, _)) = &mut self.audit {
            log.write_flushed(&o.audit)?;
            self.totals.fuel = self.totals.fuel.saturating_add(o.fuel);
            self.totals.memory = self.totals.memory.max(o.memory);
            self.totals.cpu_ns = self.totals.cpu_ns.saturating_add(o.cpu_ns);
        }
        self.records += o.records;
        self.outputs += o.outputs;
        self.errors += o.errors;
        self.big_ints += o.big_ints;
        if let Some(p) = &self.progress {
            p.inc(o.records);
        }
        for located in &o.reported {
            if self.shown < SHOWN_ERRORS && self.quiet == 0 {
                let text = self.describe("warning", located);
                self.eprint(&text);
                self.shown += 1;
            }
        }
        if !self.noted && self.errors > self.shown as u64 && self.quiet == 0 {
            self.noted = true;
            self.eprint("warning: further record errors are counted, not shown\n");
        }
        if let Some(fatal) = &o.fatal {
            self.out.flush().map_err(Exit::from_stdout)?;
            self.close_audit(matches!(
                fatal.failure,
                Failure::Eval(_) | Failure::Input(_)
            ))?;
            if let Some(p) = &self.progress {
                p.finish_and_clear();
            }
            let code = match fatal.failure {
                Failure::Input(_) | Failure::Unended(_) => 2,
                Failure::Eval(_) => 1,
            };
            let mut message = self.describe("error", fatal);
            if matches!(fatal.failure, Failure::Unended(_)) {
                // The records before it were all dealt with: count them.
                message.push_str(&self.summary());
            } else if let Some(b) = &self.budget {
                // No summary, but how much of the total the run used.
                message.push_str(&total_fuel_line(&b.report()));
            }
            return Err(Exit {
                code,
                message: Some(message),
            });
        }
        Ok([o.out, o.audit])
    }

    /// Writes a table's rows into `o.out` (empty in table mode); a row the
    /// table refuses is a record error: the one that stops the run
    /// (returned, with the rows before it written), or reported and
    /// counted.
    fn rows(&mut self, o: &mut Outcome) -> Option<Located> {
        let table = self.table.as_mut()?;
        let source = o.source.clone().unwrap_or_else(|| "".into());
        let mut refused = false;
        for (line, v) in std::mem::take(&mut o.rows) {
            let Err(message) = table.row(&mut o.out, &v) else {
                continue;
            };
            let located = Located {
                source: source.clone(),
                line,
                failure: Failure::Eval(xpr::Error::type_error(message)),
            };
            o.outputs -= 1;
            if self.on_error == super::OnError::Fail {
                // Not counted as written; the fatal error is shown by `take`.
                return Some(located);
            }
            o.errors += 1;
            o.reported.push(located);
            refused = true;
        }
        if refused {
            // Shown in input order among the chunk's other record errors
            // (found before, by the workers).
            o.reported.sort_by_key(|l| l.line);
        }
        None
    }

    /// Writes the audit log's summary line and flushes it; `failed`: one
    /// more record failed than `errors` counts (the one that stops the run).
    pub(super) fn close_audit(&mut self, failed: bool) -> Result<(), Exit> {
        let Some((log, hash)) = &mut self.audit else {
            return Ok(());
        };
        let totals = audit::Totals {
            records: self.records,
            outputs: self.outputs,
            errors: self.errors + u64::from(failed),
            ..self.totals
        };
        let mut line = Vec::new();
        audit::summary_line(
            &mut line,
            hash,
            &totals,
            self.started.elapsed().as_secs_f64(),
        );
        log.write(&line)?;
        log.flush()?;
        // Written once.
        self.audit = None;
        Ok(())
    }

    /// Appends audit lines of a chunk whose turn has come.
    pub(super) fn write_audit(&mut self, bytes: &[u8]) -> Result<(), Exit> {
        match &mut self.audit {
            Some((log, _)) => log.write(bytes),
            None => Ok(()),
        }
    }

    /// Writes output bytes, flushed (per chunk, or per spill of a large
    /// one: a slow input stream gets its results promptly).
    pub(super) fn write_raw(&mut self, bytes: &[u8]) -> Result<(), Exit> {
        // Whatever the buffer holds goes first; the bytes then go to
        // standard output as they are (a chunk's output is whole lines),
        // not copied into the buffer only to be flushed from it at once.
        self.out
            .flush()
            .and_then(|()| self.out.get_mut().write_all(bytes))
            .and_then(|()| self.out.get_mut().flush())
            .map_err(Exit::from_stdout)
    }

    /// `LEVEL: SOURCE:LINE: MESSAGE`, and for expression errors the caret block.
    pub(super) fn describe(&self, level: &str, l: &Located) -> String {
        match &l.failure {
            Failure::Input(message) | Failure::Unended(message) => {
                format!("{level}: {}:{}: {message}\n", l.source, l.line)
            }
            Failure::Eval(e) => {
                let rendered = render_error(e, self.expr);
                let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
                format!("{level}: {}:{}: {body}", l.source, l.line)
            }
        }
    }

    pub(super) fn eprint(&self, text: &str) {
        let write = || {
            let mut err = std::io::stderr().lock();
            // A closed stderr leaves nothing to report to.
            let _ = err.write_all(text.as_bytes());
        };
        match &self.progress {
            Some(p) => p.suspend(write),
            None => write(),
        }
    }

    /// The summary line (empty with `-qq`).
    pub(super) fn summary(&self) -> String {
        if self.quiet >= 2 {
            return String::new();
        }
        let mut line = summary_line(
            self.records,
            &self.outputs.to_string(),
            self.errors,
            self.started.elapsed().as_secs_f64(),
            self.big_ints,
        );
        if let Some(b) = &self.budget {
            line.push_str(&total_fuel_line(&b.report()));
        }
        line
    }

    pub(super) fn finish(mut self) -> Result<(), Exit> {
        self.out.flush().map_err(Exit::from_stdout)?;
        self.close_audit(false)?;
        if let Some(p) = &self.progress {
            p.finish_and_clear();
        }
        let summary = self.summary();
        if !summary.is_empty() {
            self.eprint(&summary);
        }
        Ok(())
    }
}

/// The summary line of a run, `xpr: 1 record in, OUT out, 2 errors, 0.01
/// s, 0 integers beyond 2^53`, each count with its noun in the singular or
/// plural as it needs (`OUT` is given whole: `3`, `1 group`).
pub(super) fn summary_line(
    records: u64,
    out: &str,
    errors: u64,
    seconds: f64,
    big_ints: u64,
) -> String {
    format!(
        "xpr: {} in, {out} out, {}, {seconds:.2} s, {} beyond 2^53\n",
        plural(records, "record", "records"),
        plural(errors, "error", "errors"),
        plural(big_ints, "integer", "integers"),
    )
}

/// The line after the summary with `--total-fuel`: `xpr: total fuel 1200
/// of 5000 used` (`, spent` when a record found it spent).
pub(crate) fn total_fuel_line(report: &xpr::BudgetReport) -> String {
    let total = report.fuel_total.unwrap_or(u64::MAX);
    let spent = if report.exhausted { ", spent" } else { "" };
    format!(
        "xpr: total fuel {} of {total} used{spent}\n",
        report.fuel_used
    )
}

/// `n` and its noun: `1 record`, `0 records`.
pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(super) fn progress_bar(quiet: bool) -> Option<indicatif::ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} {human_pos} records  {rate} records/s  {elapsed}",
    ) {
        let rate = |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            // Nothing to do if the terminal write fails.
            let _ = write!(w, "{}", indicatif::HumanCount(state.per_sec() as u64));
        };
        bar.set_style(style.with_key("rate", rate));
    }
    Some(bar)
}

/// Ends the process with `exit` (output already flushed by the writer),
/// without waiting for the reader and workers.
pub(super) fn finish_now(writer: &mut Writer<'_>, exit: Exit) -> ! {
    if let Some(p) = &writer.progress {
        p.finish_and_clear();
    }
    // The log says how far the run went; nothing more can be done if it
    // cannot be written either.
    let _ = writer.close_audit(false);
    if let Some(message) = &exit.message {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(message.as_bytes());
        let _ = err.flush();
    }
    std::process::exit(i32::from(exit.code))
}
