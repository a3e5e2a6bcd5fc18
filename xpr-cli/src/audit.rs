//! `--audit FILE`: an append-only log of what was evaluated, one JSON
//! object a line (issue 14, item 6). See docs/cli.md, "Output schema and
//! audit log".
//!
//! Lines with `kind`, `time` (UTC, RFC 3339, to the millisecond) and
//! `hash` (the SHA-256 of the expression's text, in hex):
//! - `program`, once per compiled program, before its evaluations: the
//!   `command`, the `expression`'s text, and the context `fields` it reads
//!   (its free variables), or the compile `error`;
//! - `evaluation` (`eval`, `batch`): the `result` (as the output writes
//!   it) or the `error` (`kind`, `message`, `position`), the `fuel` used,
//!   the bytes charged to the memory budget (`memory_bytes`, the
//!   evaluation's peak) and `cpu_ns`; `line` in `batch`;
//! - `summary` (`run` only), at the end: records, outputs, errors, total
//!   fuel, the largest `memory_bytes`, the workers' CPU time.
//!
//! And `run --audit-records`' record lines, after their program line,
//! holding only what varies from record to record (so that a line costs
//! little beside the cheapest expressions): `record` (its number, from 1
//! across all inputs), `result` or `error`, `fuel`, `memory_bytes` and
//! `cpu_ns` (see [`RecordClock`]).

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::Path;
use std::time::{Instant, SystemTime};

mod clock;
mod record;

pub use clock::{RecordClock, nanos, start, stop, thread_cpu};
pub use record::{RecordLines, short_result};

use sha2::{Digest as _, Sha256};
use xpr::{Error, Key, Value, Vm};

use super::Exit;
use super::json_out::{self, Out, write_str};

/// The log file, opened for appending; written through a buffer that is
/// flushed when the command ends (and by `run`, once per chunk).
pub struct AuditLog {
    out: BufWriter<File>,
    name: String,
}

impl AuditLog {
    /// Opens (creating it if need be) `path` for appending.
    ///
    /// # Errors
    /// Status 2, `xpr: cannot open the audit log PATH: REASON`.
    pub fn open(path: &Path) -> Result<AuditLog, Exit> {
        let name = path.display().to_string();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                Exit::usage(format_args!(
                    "cannot open the audit log {name}: {}",
                    super::input::io_text(&e)
                ))
            })?;
        Ok(AuditLog {
            out: BufWriter::with_capacity(256 << 10, file),
            name,
        })
    }

    /// Appends `bytes` (whole lines).
    ///
    /// # Errors
    /// Status 2, `xpr: cannot write to the audit log PATH: REASON`: an
    /// evaluation that cannot be logged is not done silently.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), Exit> {
        self.out.write_all(bytes).map_err(|e| self.failed(&e))
    }

    /// Appends a chunk's lines: straight to the file, after what is
    /// buffered (not copied through the buffer), and flushed.
    ///
    /// # Errors
    /// As [`AuditLog::write`].
    pub fn write_flushed(&mut self, bytes: &[u8]) -> Result<(), Exit> {
        self.out
            .flush()
            .and_then(|()| self.out.get_mut().write_all(bytes))
            .map_err(|e| self.failed(&e))
    }

    /// Writes out what is buffered.
    ///
    /// # Errors
    /// As [`AuditLog::write`].
    pub fn flush(&mut self) -> Result<(), Exit> {
        self.out.flush().map_err(|e| self.failed(&e))
    }

    /// For `eval` and `run`, whose one program is compiled before anything
    /// runs: the expression's hash, after writing its `program` line
    /// (with the compile error if `compiled` failed) and flushing it.
    ///
    /// # Errors
    /// As [`AuditLog::write`].
    pub fn program(
        &mut self,
        command: &str,
        expr: &str,
        compiled: &Result<xpr::Program, xpr::Error>,
    ) -> Result<String, Exit> {
        let hash = hash(expr);
        let mut line = Vec::new();
        let compiled = compiled.as_ref().map_err(Failed::from);
        program_line(&mut line, command, &hash, expr, compiled);
        self.write(&line)?;
        self.flush()?;
        Ok(hash)
    }

    /// Appends a whole `evaluation` line (for `eval` and `batch`): the
    /// result's text is handed on as it is written, never held whole.
    ///
    /// # Errors
    /// As [`AuditLog::write`].
    pub fn evaluation(
        &mut self,
        hash: Option<&str>,
        origin: Origin,
        at: Instant,
        result: Result<&Value, Failed<'_>>,
        usage: Usage,
    ) -> Result<(), Exit> {
        let mut line = Vec::new();
        evaluation_head(&mut line, &mut Stamp::new(), at, hash, origin);
        let mut failed = None;
        let mut spill = |bytes: &[u8]| {
            self.out.write_all(bytes).inspect_err(|e| {
                failed = Some(Exit::usage(format_args!(
                    "cannot write to the audit log {}: {}",
                    self.name,
                    super::input::io_text(e)
                )));
            })
        };
        let mut out = Out::new(&mut line, json_out::STREAM_BYTES, &mut spill);
        let written = match result {
            Ok(value) => self::result(&mut out, value),
            Err(failed) => {
                out.buf.extend_from_slice(b"\"error\":");
                failed.write(out.buf);
                Ok(())
            }
        }
        .and_then(|()| {
            evaluation_tail(out.buf, usage);
            out.hand_on()
        });
        match (written, failed) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(exit)) => Err(exit),
            (Err(e), None) => Err(self.failed(&e)),
        }
    }

    fn failed(&self, e: &std::io::Error) -> Exit {
        Exit::usage(format_args!(
            "cannot write to the audit log {}: {}",
            self.name,
            super::input::io_text(e)
        ))
    }
}

/// The SHA-256 of `source`, in lower-case hex: what `sha256sum` prints for
/// the expression's text (without a trailing newline).
pub fn hash(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    let mut hex = String::with_capacity(64);
    for b in digest.iter() {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 15)]));
    }
    hex
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `{"kind":"KIND","time":"...","hash":"HASH"` (no closing brace).
fn open_line(out: &mut Vec<u8>, kind: &str, time: &mut Stamp, at: Instant, hash: Option<&str>) {
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\",\"time\":\"");
    time.write(out, at);
    out.push(b'"');
    if let Some(hash) = hash {
        out.extend_from_slice(b",\"hash\":\"");
        out.extend_from_slice(hash.as_bytes());
        out.push(b'"');
    }
}

/// Appends the `program` line of `expr` as `command` compiled it:
/// `fields` on success, `error` when it did not compile.
pub fn program_line(
    out: &mut Vec<u8>,
    command: &str,
    hash: &str,
    expr: &str,
    compiled: Result<&xpr::Program, Failed<'_>>,
) {
    open_line(
        out,
        "program",
        &mut Stamp::new(),
        Instant::now(),
        Some(hash),
    );
    out.extend_from_slice(b",\"command\":");
    write_str(out, command);
    out.extend_from_slice(b",\"expression\":");
    write_str(out, expr);
    match compiled {
        Ok(program) => {
            out.extend_from_slice(b",\"fields\":");
            names(out, program.free_variables());
        }
        Err(failed) => {
            out.extend_from_slice(b",\"error\":");
            failed.write(out);
        }
    }
    out.extend_from_slice(b"}\n");
}

fn names(out: &mut Vec<u8>, names: &[Key]) {
    out.push(b'[');
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, name);
    }
    out.push(b']');
}

/// An error as the log writes it: `{"kind":KIND,"message":MESSAGE,
/// "position":N}` (`position` null when unknown; `message` without the `
/// at position N` suffix).
#[derive(Debug, Clone, Copy)]
pub struct Failed<'a> {
    /// The error's kind name (`type`, `schema`, ...; `input` for input that
    /// could not be read).
    pub kind: &'a str,
    /// The message.
    pub message: &'a str,
    /// Where, in characters.
    pub position: Option<u32>,
}

impl<'a> From<&'a Error> for Failed<'a> {
    fn from(e: &'a Error) -> Self {
        Failed {
            kind: e.kind().name(),
            message: e.message(),
            position: e.position(),
        }
    }
}

impl Failed<'_> {
    /// Appends the object.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"kind\":");
        write_str(out, self.kind);
        out.extend_from_slice(b",\"message\":");
        write_str(out, self.message);
        out.extend_from_slice(b",\"position\":");
        match self.position {
            Some(p) => integer(out, u64::from(p)),
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }

    /// Appends `"error":` and the object.
    pub fn write_key(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"\"error\":");
        self.write(out);
    }
}

/// Where an evaluation line says it came from.
#[derive(Debug, Clone, Copy)]
pub enum Origin {
    /// `eval`: nothing more.
    Single,
    /// `batch`: the request's line.
    Line(u64),
}

/// What one evaluation used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Fuel units.
    pub fuel: u64,
    /// Bytes charged to the memory budget (the evaluation's peak: the
    /// counter never goes down within an evaluation).
    pub memory: u64,
    /// CPU time in nanoseconds (see [`start`]).
    pub cpu_ns: u64,
}

impl Usage {
    /// What `vm`'s last run used, with `cpu_ns` measured around it.
    pub fn of(vm: &Vm, cpu_ns: u64) -> Usage {
        Usage {
            fuel: vm.fuel_used(),
            memory: vm.peak_memory(),
            cpu_ns,
        }
    }
}

/// Appends the start of an `evaluation` line, up to the result or error:
/// `{"kind":"evaluation","time":...,"hash":...,"line":N,`.
fn evaluation_head(
    out: &mut Vec<u8>,
    time: &mut Stamp,
    at: Instant,
    hash: Option<&str>,
    origin: Origin,
) {
    open_line(out, "evaluation", time, at, hash);
    match origin {
        Origin::Single => {}
        Origin::Line(n) => {
            out.extend_from_slice(b",\"line\":");
            integer(out, n);
        }
    }
    out.push(b',');
}

/// Appends `"result":` and `v`, handing the text on through `out` as it
/// goes (a large result is never held whole).
///
/// # Errors
/// Whatever handing the text on returns.
pub fn result(out: &mut Out<'_>, v: &Value) -> std::io::Result<()> {
    out.buf.extend_from_slice(b"\"result\":");
    json_out::write_streamed(out, v, None)
}

/// Appends the end of an `evaluation` line: `,"fuel":...}` and the newline.
pub fn evaluation_tail(out: &mut Vec<u8>, usage: Usage) {
    out.extend_from_slice(b",\"fuel\":");
    integer(out, usage.fuel);
    out.extend_from_slice(b",\"memory_bytes\":");
    integer(out, usage.memory);
    out.extend_from_slice(b",\"cpu_ns\":");
    integer(out, usage.cpu_ns);
    out.extend_from_slice(b"}\n");
}

/// Appends `n` in decimal.
#[inline]
fn integer(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
    } else {
        out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }
}

/// The totals of a `run`, for its `summary` line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Totals {
    /// Records read.
    pub records: u64,
    /// Results written.
    pub outputs: u64,
    /// Records that failed (kept going under `--on-error skip|null`, or
    /// the one that stopped the run).
    pub errors: u64,
    /// Fuel used by all evaluations.
    pub fuel: u64,
    /// The largest `memory_bytes` of one evaluation.
    pub memory: u64,
    /// CPU time of the workers on the records (reading, evaluating,
    /// writing), in nanoseconds.
    pub cpu_ns: u64,
}

/// Appends `run`'s `summary` line.
pub fn summary_line(out: &mut Vec<u8>, hash: &str, t: &Totals, seconds: f64) {
    open_line(
        out,
        "summary",
        &mut Stamp::new(),
        Instant::now(),
        Some(hash),
    );
    for (name, n) in [
        ("records", t.records),
        ("outputs", t.outputs),
        ("errors", t.errors),
        ("fuel", t.fuel),
        ("memory_bytes", t.memory),
        ("cpu_ns", t.cpu_ns),
    ] {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        integer(out, n);
    }
    out.extend_from_slice(b",\"seconds\":");
    json_out::write_number(out, (seconds * 1000.0).round() / 1000.0);
    out.extend_from_slice(b"}\n");
}

/// Timestamps: the system clock read once, then a monotonic clock (read
/// anyway around each evaluation) added to it, so that a line's time costs
/// no clock reading of its own; the text of the current second is kept.
#[derive(Debug, Clone)]
pub struct Stamp {
    /// Microseconds since the Unix epoch at `origin`.
    epoch_us: u64,
    origin: Instant,
    /// The second whose text `second_text` holds.
    second: u64,
    /// `YYYY-MM-DDTHH:MM:SS` of `second`.
    second_text: [u8; 19],
}

impl Stamp {
    /// Anchored to the system clock now.
    pub fn new() -> Stamp {
        let origin = Instant::now();
        let epoch_us = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        Stamp {
            epoch_us,
            origin,
            second: u64::MAX,
            second_text: [b'0'; 19],
        }
    }

    /// Appends the time of `at` (a reading taken after this stamp's
    /// origin): `2026-12-01T09:30:00.123Z`.
    pub fn write(&mut self, out: &mut Vec<u8>, at: Instant) {
        let since = at.saturating_duration_since(self.origin);
        let us = self
            .epoch_us
            .saturating_add(u64::try_from(since.as_micros()).unwrap_or(u64::MAX));
        let second = us / 1_000_000;
        if second != self.second {
            self.second = second;
            self.second_text = civil_text(second);
        }
        out.extend_from_slice(&self.second_text);
        let ms = (us / 1000 % 1000) as u16;
        out.extend_from_slice(&[
            b'.',
            b'0' + (ms / 100) as u8,
            b'0' + (ms / 10 % 10) as u8,
            b'0' + (ms % 10) as u8,
            b'Z',
        ]);
    }
}

impl Default for Stamp {
    fn default() -> Self {
        Stamp::new()
    }
}

/// `YYYY-MM-DDTHH:MM:SS` (UTC) of `secs` since the Unix epoch.
fn civil_text(secs: u64) -> [u8; 19] {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem / 60 % 60, rem % 60);
    let mut t = [0u8; 19];
    let two = |t: &mut [u8], at: usize, n: u64| {
        t[at] = b'0' + (n / 10 % 10) as u8;
        t[at + 1] = b'0' + (n % 10) as u8;
    };
    two(&mut t, 0, y / 100);
    two(&mut t, 2, y % 100);
    t[4] = b'-';
    two(&mut t, 5, m);
    t[7] = b'-';
    two(&mut t, 8, d);
    t[10] = b'T';
    two(&mut t, 11, hh);
    t[13] = b':';
    two(&mut t, 14, mm);
    t[16] = b':';
    two(&mut t, 17, ss);
    t
}

/// The proleptic Gregorian date (year, month, day) `days` after
/// 1970-01-01: counted in 400-year eras of 146,097 days, each starting on
/// 1 March so that the leap day ends its year.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Days since 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months counted from March.
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn civil_dates_match_known_days() {
        assert_eq!(&civil_text(0), b"1970-01-01T00:00:00");
        assert_eq!(&civil_text(951_782_400), b"2000-02-29T00:00:00");
        assert_eq!(&civil_text(1_709_251_199), b"2024-02-29T23:59:59");
        assert_eq!(&civil_text(1_798_761_600), b"2027-01-01T00:00:00");
        assert_eq!(&civil_text(4_107_542_400), b"2100-03-01T00:00:00");
        // Every day of 1970..2200 follows the one before.
        let mut last = civil_from_days(0);
        for d in 1..(230 * 366) {
            let (y, m, day) = civil_from_days(d);
            let next_day = (y, m, day) == (last.0, last.1, last.2 + 1);
            let next_month =
                day == 1 && ((y, m) == (last.0, last.1 + 1) || (y, m) == (last.0 + 1, 1));
            assert!(next_day || next_month, "{last:?} -> {:?}", (y, m, day));
            last = (y, m, day);
        }
    }

    #[test]
    fn stamps_have_milliseconds_and_follow_the_monotonic_clock() {
        let mut s = Stamp::new();
        s.epoch_us = 1_709_251_199_998_765;
        let mut out = Vec::new();
        s.write(&mut out, s.origin);
        out.push(b' ');
        s.write(&mut out, s.origin + Duration::from_micros(1_300));
        assert_eq!(
            String::from_utf8_lossy(&out),
            "2024-02-29T23:59:59.998Z 2024-03-01T00:00:00.000Z"
        );
    }

    #[test]
    fn the_hash_is_sha256_hex() {
        assert_eq!(
            hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn integers_are_written_in_decimal() {
        let mut out = b"x".to_vec();
        for n in [0, 7, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            integer(&mut out, n);
            out.push(b' ');
        }
        assert_eq!(
            String::from_utf8_lossy(&out),
            "x0 7 10 99 100 12345 4294967295 18446744073709551615 "
        );
    }
}
