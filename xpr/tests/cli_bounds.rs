//! The `xpr` binary's input and output stay within bounds (issue 11): a
//! context is read up to a limit, a line that never ends is reported, JSON
//! nesting is read up to the value-depth limit on every input route, and
//! output is streamed, so the process's peak memory (`VmHWM`) stays within
//! twice the memory budget however the output is escaped. Everything is
//! shown by counting (bytes, records, exit statuses), never by timing.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

fn xpr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xpr"))
}

/// Runs `xpr ARGS` with `stdin` fed from a thread (the child may stop
/// reading early).
fn run_with(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = xpr()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn xpr");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for xpr");
    feeder.join().expect("feeder thread");
    output
}

fn run(args: &[&str]) -> Output {
    run_with(args, b"")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// Asserts the exit status and that stderr contains `needle`.
#[track_caller]
fn assert_fails(o: &Output, status: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(code(o), status, "stdout: {}\nstderr: {err}", stdout(o));
    assert!(err.contains(needle), "{err}");
}

// ------------------------------------------------------------ the context

#[test]
fn a_context_is_read_up_to_its_limit() {
    // An endless context ends at the default limit (64 MiB), at once.
    let o = run(&["eval", "1", "--context-file", "/dev/zero"]);
    assert_fails(
        &o,
        2,
        "xpr: /dev/zero: longer than 67108864 bytes (--max-context-bytes)",
    );
    assert_eq!(stdout(&o), "");
    // From stdin, and from the command line: exactly the limit is accepted.
    let context = br#"{"a": 41}"#;
    let limit = context.len().to_string();
    let o = run_with(
        &["eval", "a + 1", "--context-file", "-", "--max-context-bytes", &limit],
        context,
    );
    assert_eq!((code(&o), stdout(&o).as_str()), (0, "42\n"), "{}", stderr(&o));
    let shorter = (context.len() - 1).to_string();
    let o = run_with(
        &["eval", "a", "--context-file", "-", "--max-context-bytes", &shorter],
        context,
    );
    assert_fails(&o, 2, "xpr: -: longer than 8 bytes (--max-context-bytes)");
    let text = std::str::from_utf8(context).unwrap_or_default();
    let o = run(&["eval", "a", "--context", text, "--max-context-bytes", &shorter]);
    assert_fails(&o, 2, "xpr: --context: longer than 8 bytes (--max-context-bytes)");
    let o = run(&["eval", "a", "--context", text, "--max-context-bytes", &limit]);
    assert_eq!(stdout(&o), "41\n", "{}", stderr(&o));
}
