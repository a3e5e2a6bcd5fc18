//! Prints one table of the benchmarks' results: nanoseconds per evaluation
//! for every engine and case, the ratio of xpr to the `serde_json::Value`
//! closure, how many times slower the best peer is, xpr's fuel on/off
//! ratio, and a check of each floor of issues 7 and 21.
//!
//! Usage: `compare [--mean] [CRITERION_DIR ...]` (default: the workspace's
//! `target/criterion`, or `$CRITERION_HOME`, or `$CARGO_TARGET_DIR/criterion`).
//! Reads `CRITERION_DIR/<case>/<engine>/new/estimates.json` and takes the
//! median point estimate (the mean with `--mean`). Given several
//! directories (one per run, e.g. `CRITERION_HOME=target/criterion-run2`),
//! each cell is the median over the runs. Missing cells print `-`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

/// Cases in the order the table lists them; others found follow, sorted.
const CASES: [&str; 9] = [
    "a", "a_exit", "a_bind", "a_typed", "b", "c", "d", "compile", "pipeline",
];
/// Engines in column order; others found follow, sorted.
const ENGINES: [&str; 12] = [
    "xpr",
    "xpr_nofuel",
    "xpr_map",
    "xpr_json_in",
    "xpr_run_json",
    "typed_closure",
    "json_closure",
    "cel",
    "rhai",
    "rune",
    "exmex",
    "fasteval",
];
/// The peers, among the engines.
const PEERS: [&str; 3] = ["cel", "rhai", "rune"];

/// Nanoseconds per evaluation, by case then engine.
type Table = BTreeMap<String, BTreeMap<String, f64>>;

fn main() -> ExitCode {
    let mut statistic = "median";
    let mut dirs = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--mean" => statistic = "mean",
            "--median" => statistic = "median",
            "-h" | "--help" => {
                println!("usage: compare [--mean|--median] [CRITERION_DIR ...]");
                println!(
                    "several directories (one per run): each cell is the median over the runs"
                );
                return ExitCode::SUCCESS;
            }
            _ => dirs.push(PathBuf::from(arg)),
        }
    }
    if dirs.is_empty() {
        dirs.push(xpr_bench::criterion_dir());
    }
    let mut runs = Vec::new();
    let mut newest: Option<SystemTime> = None;
    for dir in &dirs {
        match read(dir, statistic) {
            Ok((table, when)) if !table.is_empty() => {
                runs.push(table);
                newest = newest.max(when);
            }
            Ok(_) => eprintln!(
                "compare: no results under {}; run `cargo bench -p xpr-bench --features peers --bench compare` first",
                dir.display()
            ),
            Err(e) => eprintln!("compare: cannot read {}: {e}", dir.display()),
        }
    }
    if runs.len() != dirs.len() {
        return ExitCode::FAILURE;
    }
    let table = merge(&runs);
    print!("{}", render(&table, statistic, runs.len(), newest));
    ExitCode::SUCCESS
}

/// Each cell's median over the runs that measured it (the mean of the
/// two middle values for an even count).
fn merge(runs: &[Table]) -> Table {
    let mut all: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for run in runs {
        for (case, row) in run {
            for (engine, ns) in row {
                all.entry(case.clone())
                    .or_default()
                    .entry(engine.clone())
                    .or_default()
                    .push(*ns);
            }
        }
    }
    all.into_iter()
        .map(|(case, row)| {
            let row = row
                .into_iter()
                .filter_map(|(engine, mut xs)| {
                    xs.sort_by(f64::total_cmp);
                    let mid = xs.len() / 2;
                    let median = if xs.len() % 2 == 1 {
                        xs.get(mid).copied()
                    } else {
                        match (mid.checked_sub(1).and_then(|i| xs.get(i)), xs.get(mid)) {
                            (Some(a), Some(b)) => Some((a + b) / 2.0),
                            _ => None,
                        }
                    };
                    median.map(|m| (engine, m))
                })
                .collect();
            (case, row)
        })
        .collect()
}

/// Reads every `case/engine/new/estimates.json` under `dir`; also returns
/// the modification time of the newest one.
fn read(dir: &Path, statistic: &str) -> std::io::Result<(Table, Option<SystemTime>)> {
    let mut table = Table::new();
    let mut newest: Option<SystemTime> = None;
    for case in std::fs::read_dir(dir)? {
        let case = case?;
        if !case.file_type()?.is_dir() {
            continue;
        }
        let Ok(engines) = std::fs::read_dir(case.path()) else {
            continue;
        };
        for engine in engines.flatten() {
            let path = engine.path().join("new").join("estimates.json");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
                eprintln!("compare: {} is not JSON; skipped", path.display());
                continue;
            };
            let Some(ns) = json
                .get(statistic)
                .and_then(|s| s.get("point_estimate"))
                .and_then(serde_json::Value::as_f64)
            else {
                eprintln!("compare: {} has no {statistic}; skipped", path.display());
                continue;
            };
            if let Ok(modified) = std::fs::metadata(&path).and_then(|m| m.modified()) {
                newest = Some(newest.map_or(modified, |n| n.max(modified)));
            }
            table
                .entry(case.file_name().to_string_lossy().into_owned())
                .or_default()
                .insert(engine.file_name().to_string_lossy().into_owned(), ns);
        }
    }
    Ok((table, newest))
}

/// `known` in their order, then the other names of `found`, sorted.
fn ordered<'a>(known: &[&'a str], found: impl Iterator<Item = &'a String>) -> Vec<&'a str> {
    let mut out: Vec<&str> = known.to_vec();
    let mut extra: Vec<&str> = found
        .map(String::as_str)
        .filter(|n| !known.contains(n))
        .collect();
    extra.sort_unstable();
    extra.dedup();
    out.extend(extra);
    out
}

/// Nanoseconds, to three significant figures or whole numbers.
fn ns(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2}")
    } else if x < 100.0 {
        format!("{x:.1}")
    } else {
        // Group thousands: 1234567 -> 1,234,567.
        let digits = format!("{x:.0}");
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
}

/// A ratio such as `1.23x`, or `-` when either side is missing.
fn ratio(top: Option<f64>, bottom: Option<f64>) -> String {
    match (top, bottom) {
        (Some(t), Some(b)) if b > 0.0 => format!("{:.2}x", t / b),
        _ => "-".into(),
    }
}

/// The whole report: the table, then the floors.
fn render(table: &Table, statistic: &str, runs: usize, newest: Option<SystemTime>) -> String {
    let cases = ordered(&CASES, table.keys());
    let engines = ordered(&ENGINES, table.values().flat_map(|row| row.keys()));
    let cell = |case: &str, engine: &str| table.get(case).and_then(|r| r.get(engine)).copied();
    let best_peer = |case: &str| {
        PEERS
            .iter()
            .filter_map(|p| cell(case, p).map(|t| (*p, t)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
    };

    let mut out = String::new();
    let when = newest.map_or_else(|| "unknown".into(), utc);
    let _ = writeln!(
        out,
        "ns per evaluation ({statistic} of criterion's samples{}); results of {when}; {}",
        if runs > 1 {
            format!(", median of {runs} runs")
        } else {
            String::new()
        },
        machine()
    );
    let _ = writeln!(out);
    let mut header: Vec<String> = vec!["case".into()];
    header.extend(engines.iter().map(|e| e.to_string()));
    header.extend(
        ["xpr/json", "best peer", "peer/xpr", "fuel on/off"]
            .iter()
            .map(|s| s.to_string()),
    );
    let mut rows = vec![header];
    for case in cases.iter().copied().filter(|c| table.contains_key(*c)) {
        let mut row = vec![case.to_string()];
        row.extend(engines.iter().map(|e| cell(case, e).map_or("-".into(), ns)));
        row.push(ratio(cell(case, "xpr"), cell(case, "json_closure")));
        let peer = best_peer(case);
        row.push(peer.map_or("-".into(), |(name, _)| name.to_string()));
        row.push(ratio(peer.map(|p| p.1), cell(case, "xpr")));
        row.push(ratio(cell(case, "xpr"), cell(case, "xpr_nofuel")));
        rows.push(row);
    }
    out.push_str(&markdown(&rows));

    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "xpr/json: xpr (fuel on) / serde_json::Value closure; peer/xpr: the fastest peer / xpr;"
    );
    let _ = writeln!(out, "fuel on/off: xpr / xpr_nofuel.");
    let _ = writeln!(out);
    let _ = writeln!(out, "Floors (issues 7 and 21):");
    for line in floors(&cell) {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// One check of a floor: `PASS`, `FAIL` or `-` (not measured).
fn check(name: &str, value: Option<f64>, limit: f64, at_most: bool, unit: &str) -> String {
    match value {
        None => format!("-     {name}: not measured"),
        Some(v) => {
            let ok = if at_most { v <= limit } else { v >= limit };
            let op = if at_most { "<=" } else { ">=" };
            format!(
                "{}  {name}: {v:.2}{unit} (floor {op} {limit}{unit})",
                if ok { "PASS" } else { "FAIL" }
            )
        }
    }
}

/// Every floor of issues 7 and 21 that the table can check.
fn floors(cell: &dyn Fn(&str, &str) -> Option<f64>) -> Vec<String> {
    let div = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let slowest_ratio_floor = |case: &str| {
        // Every peer >= 5x slower: the fastest peer decides.
        let fastest = PEERS
            .iter()
            .filter_map(|p| cell(case, p))
            .min_by(f64::total_cmp);
        div(fastest, cell(case, "xpr"))
    };
    let mut lines = vec![
        check(
            "a: xpr / json closure",
            div(cell("a", "xpr"), cell("a", "json_closure")),
            1.5,
            true,
            "x",
        ),
        check(
            "a: fastest peer / xpr",
            slowest_ratio_floor("a"),
            5.0,
            false,
            "x",
        ),
        check(
            "b: xpr / json closure",
            div(cell("b", "xpr"), cell("b", "json_closure")),
            3.0,
            true,
            "x",
        ),
        check(
            "b: fastest peer / xpr",
            slowest_ratio_floor("b"),
            5.0,
            false,
            "x",
        ),
    ];
    for case in ["c", "d"] {
        lines.push(check(
            &format!("{case}: xpr / json closure"),
            div(cell(case, "xpr"), cell(case, "json_closure")),
            2.0,
            true,
            "x",
        ));
    }
    // Issue 21: the fixed cost per run, and typed binding.
    lines.push(check(
        "a_exit: xpr / json closure (decided after two comparisons)",
        div(cell("a_exit", "xpr"), cell("a_exit", "json_closure")),
        1.2,
        true,
        "x",
    ));
    lines.push(check(
        "a_typed: xpr through the derive / xpr case a",
        div(cell("a_typed", "xpr"), cell("a", "xpr")),
        1.2,
        true,
        "x",
    ));
    lines.push(check(
        "a: run_json / run_in with a kept VM, both on the serde_json record",
        div(cell("a", "xpr_run_json"), cell("a", "xpr_json_in")),
        1.2,
        true,
        "x",
    ));
    let number_only = ["exmex", "fasteval"]
        .iter()
        .filter_map(|p| cell("c", p))
        .min_by(f64::total_cmp);
    lines.push(check(
        "c: xpr / fastest number-only evaluator (exmex, fasteval)",
        div(cell("c", "xpr"), number_only),
        1.5,
        true,
        "x",
    ));
    for case in ["a_exit", "a_typed"] {
        lines.push(check(
            &format!("{case}: fastest peer / xpr"),
            slowest_ratio_floor(case),
            2.0,
            false,
            "x",
        ));
    }
    lines.push(check(
        "a_bind: xpr per record / xpr case a",
        div(cell("a_bind", "xpr"), cell("a", "xpr")),
        1.5,
        true,
        "x",
    ));
    for case in CASES.iter().filter(|c| **c != "compile") {
        // "<= 10 % apart": either way round.
        let on_off = div(cell(case, "xpr"), cell(case, "xpr_nofuel"));
        lines.push(check(
            &format!("{case}: fuel on/off apart (larger / smaller)"),
            on_off.map(|r| if r < 1.0 { 1.0 / r } else { r }),
            1.10,
            true,
            "x",
        ));
    }
    lines.push(check(
        "compile of case a",
        cell("compile", "xpr").map(|ns| ns / 1000.0),
        10.0,
        true,
        " us",
    ));
    lines
}

/// Rows as a Markdown table with aligned columns (first column left,
/// the others right).
fn markdown(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
                .max(3)
        })
        .collect();
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            let s = row.get(i).map_or("", String::as_str);
            if i == 0 {
                let _ = write!(out, " {s:<w$} |");
            } else {
                let _ = write!(out, " {s:>w$} |");
            }
        }
        out.push('\n');
        if n == 0 {
            out.push('|');
            for (i, w) in widths.iter().enumerate() {
                let dashes = "-".repeat(*w);
                if i == 0 {
                    let _ = write!(out, " {dashes} |");
                } else {
                    let _ = write!(out, " {}: |", &dashes[1..]);
                }
            }
            out.push('\n');
        }
    }
    out
}

/// A time as `YYYY-MM-DD HH:MM UTC`.
fn utc(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The CPU model and logical CPU count, from `/proc/cpuinfo` when readable.
fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, usize::from);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!("{model}, {cpus} CPUs")
}
