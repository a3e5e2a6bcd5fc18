//! What the tests of the `xpr` binary share: running it with arguments and
//! stdin, reading its stdout, stderr and exit status, asserting on them,
//! the sample orders and temporary input files.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The `xpr` binary of this package, as a command to add arguments to.
pub fn xpr() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xpr"))
}

/// Starts `xpr ARGS` with stdin, stdout and stderr piped.
pub fn spawn(args: &[&str]) -> Child {
    xpr()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn xpr")
}

/// Runs `xpr ARGS` with `stdin` fed from a thread (so large inputs cannot deadlock).
pub fn run_with(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The child may stop reading early (that is what some tests check).
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for xpr");
    feeder.join().expect("feeder thread");
    output
}

/// Runs `xpr ARGS` with an empty stdin.
pub fn run(args: &[&str]) -> Output {
    run_with(args, b"")
}

/// What the command wrote on stdout.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

/// What the command wrote on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command's exit status.
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// The lines of stdout.
pub fn lines(o: &Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

/// Asserts that the command's stderr contains `needle`, showing it if not.
#[track_caller]
pub fn assert_stderr_has(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(err.contains(needle), "{err}");
}

/// Asserts the exit status and that stderr contains `needle`.
#[track_caller]
pub fn assert_fails(o: &Output, status: i32, needle: &str) {
    let err = stderr(o);
    assert_eq!(code(o), status, "stdout: {}\nstderr: {err}", stdout(o));
    assert!(err.contains(needle), "{err}");
}

/// A file under the system temp directory, unique to this call (the
/// tests of every module run at once in one process): `NAME` prefixed with
/// a number.
pub fn temp_file(name: &str, contents: &[u8]) -> String {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("xpr-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{n}-{name}"));
    std::fs::write(&path, contents).expect("write temp file");
    path.display().to_string()
}

/// The repository's `samples/` folder.
pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
}

/// The path of `samples/orders.ndjson`: 50 orders, one JSON object a line.
pub fn orders() -> String {
    samples().join("orders.ndjson").display().to_string()
}

/// The line `xpr batch` answers a line that is no valid request with: a
/// diagnostic of kind `input`, its text also under `error`.
pub fn batch_input_error(message: &str) -> String {
    let m = serde_json::to_string(message).expect("a string");
    format!(
        "{{\"error\":{m},\"kind\":\"input\",\"message\":{m},\"text\":{m},\"position\":null,\
         \"span\":null,\"expected\":[],\"hint\":null,\"severity\":\"error\"}}"
    )
}

/// A data file of `../shared/data` beside the checkout; `None` (with a
/// message) when it is absent, a panic under `XPR_REQUIRE_SHARED=1`.
pub fn shared(name: &str) -> Option<std::path::PathBuf> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(name);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("XPR_REQUIRE_SHARED").is_ok_and(|v| v == "1") {
        panic!("{} is missing and XPR_REQUIRE_SHARED=1", path.display());
    }
    eprintln!("skipping: {} not found", path.display());
    None
}
