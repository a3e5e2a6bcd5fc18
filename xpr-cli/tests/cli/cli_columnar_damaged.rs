//! Damaged Parquet and Arrow IPC files: every byte of small files changed
//! in turn, each damaged file read by `xpr run` under a 1 GiB address
//! space limit. Whatever the damage, xpr reads the file or stops with an
//! error: never a panic, an abort (a failed allocation), or a hang.
//!
//! Before the fix (docs/decisions.md, "Damaged columnar files"), single
//! changed bytes made parquet panic on a negative column chunk offset,
//! arrow-ipc and arrow-buffer panic on a malformed schema or buffer, and
//! arrow-ipc allocate gigabytes for one damaged length.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, WriterVersion};

use crate::common::temp_file;

/// Twenty rows: `a` with nulls, `s` a few repeated strings, `f` floats.
fn rows() -> RecordBatch {
    let a: Int64Array = (0..20).map(|i| (i % 7 != 0).then_some(i)).collect();
    let s: StringArray = (0..20).map(|i| Some(format!("x{}", i % 3))).collect();
    let f: Float64Array = (0..20).map(|i| Some(f64::from(i) / 3.0)).collect();
    let columns: Vec<(&str, ArrayRef)> =
        vec![("a", Arc::new(a)), ("s", Arc::new(s)), ("f", Arc::new(f))];
    RecordBatch::try_from_iter(columns).expect("batch")
}

fn parquet(props: WriterProperties) -> Vec<u8> {
    let batch = rows();
    let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).expect("writer");
    w.write(&batch).expect("write");
    w.into_inner().expect("close")
}

fn ipc(stream: bool) -> Vec<u8> {
    let batch = rows();
    if stream {
        let mut w =
            arrow_ipc::writer::StreamWriter::try_new(Vec::new(), &batch.schema()).expect("stream");
        w.write(&batch).expect("write");
        w.finish().expect("finish");
        return w.into_inner().expect("bytes");
    }
    let mut w = arrow_ipc::writer::FileWriter::try_new(Vec::new(), &batch.schema()).expect("ipc");
    w.write(&batch).expect("write");
    w.finish().expect("finish");
    w.into_inner().expect("bytes")
}

/// How one damaged file's run ended, when it ended badly.
fn misread(path: &str, input: &str, args: &[&str]) -> Option<String> {
    // The limit makes an allocation of gigabytes fail (an abort) rather
    // than succeed lazily.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_xpr"))
        .args(["run", "-q", "--input", input])
        .args(args)
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A hang, not a slow machine: each run reads a file of about a
    // kilobyte.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Some("still running after 120 s".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr");
    let ok = matches!(status.code(), Some(0..=2)) && !stderr.contains("panicked");
    (!ok).then(|| {
        format!(
            "{status}: {}",
            stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
        )
    })
}

/// Reads `clean` with every byte changed in turn (an even one to 0xff,
/// which makes a varint's number negative or huge; an odd one to its
/// value plus one), alternately filtering and projecting; answers the
/// runs that ended badly.
fn damage_each_byte(name: &str, input: &str, clean: &[u8]) -> Vec<String> {
    let tasks: Vec<(usize, u8)> = (0..clean.len())
        .map(|i| (i, [0xff, clean[i].wrapping_add(1)][i % 2]))
        .filter(|&(i, v)| clean[i] != v)
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let bad = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for worker in 0..2 {
            let (tasks, next, bad) = (&tasks, &next, &bad);
            s.spawn(move || {
                loop {
                    let t = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(i, v)) = tasks.get(t) else { break };
                    let mut bytes = clean.to_vec();
                    bytes[i] = v;
                    let path = temp_file(&format!("damaged-{name}-{worker}"), &bytes);
                    let args: &[&str] = if t % 4 < 2 {
                        &["--filter", "a > 3 && s != 'x1'"]
                    } else {
                        &["[a, s, f]"]
                    };
                    if let Some(how) = misread(&path, input, args) {
                        bad.lock()
                            .unwrap()
                            .push(format!("{name} byte {i} = {v:#04x} {args:?}: {how}"));
                    }
                }
            });
        }
    });
    let mut bad = bad.into_inner().unwrap();
    bad.sort();
    bad
}

#[test]
fn damaged_parquet_files_are_read_or_refused() {
    let plain = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .build();
    let v2 = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .build();
    read_or_refused(&[
        ("v1", "parquet", parquet(plain)),
        ("v2", "parquet", parquet(v2)),
    ]);
}

#[test]
fn damaged_arrow_files_are_read_or_refused() {
    read_or_refused(&[
        ("file", "arrow", ipc(false)),
        ("stream", "arrow", ipc(true)),
    ]);
}

/// Damages each byte of each file (name, `--input` format, bytes) in
/// turn; fails listing every run that ended badly.
fn read_or_refused(files: &[(&str, &str, Vec<u8>)]) {
    let bad: Vec<String> = files
        .iter()
        .flat_map(|(name, input, bytes)| damage_each_byte(name, input, bytes))
        .collect();
    assert!(
        bad.is_empty(),
        "{} bad runs:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The writer's files read back whole, so the damage is to real data.
#[test]
fn the_undamaged_files_read_back() {
    for (name, input, bytes) in [
        (
            "v1",
            "parquet",
            parquet(WriterProperties::builder().build()),
        ),
        ("file", "arrow", ipc(false)),
        ("stream", "arrow", ipc(true)),
    ] {
        let path = temp_file(&format!("whole-{name}"), &bytes);
        let out = Command::new(env!("CARGO_BIN_EXE_xpr"))
            .args(["run", "--input", input, "--filter", "(a ?? 0) > 3", &path])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let kept = String::from_utf8(out.stdout).expect("utf-8");
        assert_eq!(kept.lines().count(), 14, "{name}: {kept}");
    }
}
