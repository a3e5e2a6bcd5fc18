//! `--total-fuel` (issue 20, part 3): one fuel budget for all the records
//! of `xpr run` (across `--jobs` workers) and all the lines of `xpr batch`.

use crate::common;

use common::{assert_stderr_has, code, lines, run_with, stderr};

const SPENT: &str = "Fuel budget exhausted: shared budget spent";

/// `{"n": 1}` ... `{"n": count}`, one a line.
fn numbered(count: u64) -> Vec<u8> {
    (1..=count)
        .map(|n| format!("{{\"n\": {n}}}\n"))
        .collect::<String>()
        .into_bytes()
}

/// The fuel the summary's second line says was used, and its total.
fn total_fuel(o: &std::process::Output) -> (u64, u64) {
    let err = stderr(o);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("xpr: total fuel "))
        .unwrap_or_else(|| panic!("no total fuel line: {err}"));
    let mut words = line.split(' ');
    let used = words.next().and_then(|w| w.parse().ok()).expect("used");
    let total = words.nth(1).and_then(|w| w.parse().ok()).expect("total");
    (used, total)
}

const SUM: &str = "range(n * 10).map(x => x + 1).sum()";

#[test]
fn run_records_fail_once_the_total_is_spent() {
    for jobs in ["1", "2"] {
        let o = run_with(
            &[
                "run",
                SUM,
                "--total-fuel",
                "8000",
                "--on-error",
                "null",
                "-j",
                jobs,
            ],
            &numbered(20),
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let out = lines(&o);
        let ok = out.iter().take_while(|l| *l != "null").count();
        assert_eq!(ok, 13, "{out:?}");
        assert!(out[ok..].iter().all(|l| l == "null"), "{out:?}");
        assert_eq!(out.len(), 20);
        assert_stderr_has(&o, &format!("<stdin>:14: {SPENT}"));
        assert_stderr_has(&o, "20 records in, 20 out, 7 errors");
        assert_stderr_has(&o, "xpr: total fuel 8000 of 8000 used, spent\n");
    }
    // `--on-error fail`: the first record refused stops the run.
    let o = run_with(&["run", SUM, "--total-fuel", "8000"], &numbered(20));
    assert_eq!(code(&o), 1);
    assert_eq!(lines(&o).len(), 13);
    assert_stderr_has(&o, SPENT);
    assert_stderr_has(&o, "xpr: total fuel 8000 of 8000 used, spent");
}

#[test]
fn run_jobs_draw_from_one_budget_to_the_unit() {
    // Enough records for several chunks, so that both workers run.
    let input: Vec<u8> = "{\"n\": 3}\n".repeat(40_000).into_bytes();
    let plenty = u64::MAX.to_string();
    let alone = run_with(&["run", SUM, "--total-fuel", &plenty, "-j", "1"], &input);
    assert_eq!(code(&alone), 0, "{}", stderr(&alone));
    let (used, _) = total_fuel(&alone);
    assert_eq!(used % 40_000, 0, "every record costs the same");
    // What the records need, and a chunk more per worker held at the end:
    // nothing fails, and the same fuel is used.
    let enough = (used + 2 * 1024).to_string();
    let two = run_with(&["run", SUM, "--total-fuel", &enough, "-j", "2"], &input);
    assert_eq!(code(&two), 0, "{}", stderr(&two));
    assert_eq!(lines(&two), lines(&alone));
    assert_eq!(total_fuel(&two), (used, used + 2048));
    // Half of it: about half the records fail, and no more than the total
    // is used.
    let half = used / 2;
    let o = run_with(
        &[
            "run",
            SUM,
            "--total-fuel",
            &half.to_string(),
            "-j",
            "2",
            "--on-error",
            "null",
            "-q",
        ],
        &input,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let ok = lines(&o).iter().filter(|l| *l != "null").count() as u64;
    let (spent, total) = total_fuel(&o);
    assert_eq!(total, half);
    assert!(
        spent <= half && spent >= ok * (used / 40_000),
        "{spent} of {half}, {ok} ok"
    );
    assert!((19_000..=20_001).contains(&ok), "{ok} records ran");
    assert_stderr_has(&o, ", spent");
}

#[test]
fn batch_lines_draw_from_one_budget() {
    let input = concat!(
        "{\"expression\": \"range(50).map(x => x).length\"}\n",
        "{\"expression\": \"1 + 1\"}\n",
        "{\"expression\": \"range(900).map(x => x).length\"}\n",
        "{\"expression\": \"2\"}\n",
    );
    let o = run_with(&["batch", "--total-fuel", "1500"], input.as_bytes());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = lines(&o);
    assert_eq!(out[0], r#"{"ok":50}"#);
    assert_eq!(out[1], r#"{"ok":2}"#);
    assert!(
        out[2].contains(&format!(r#""message":"{SPENT}","#)),
        "{}",
        out[2]
    );
    assert!(out[2].contains(r#""kind":"fuel""#), "{}", out[2]);
    // A run too small for a refill still runs on what is left.
    assert_eq!(out[3], r#"{"ok":2}"#);
    let (used, total) = total_fuel(&o);
    assert_eq!(total, 1500);
    assert!(used <= 1500, "{used}");
    assert_stderr_has(&o, ", spent\n");
    // Without the flag, no line on stderr.
    let o = run_with(&["batch"], input.as_bytes());
    assert_eq!(stderr(&o), "");
}

#[test]
fn total_fuel_is_refused_where_it_does_not_apply() {
    let o = run_with(&["run", "n", "--slurp", "--total-fuel", "10"], b"");
    assert_eq!(code(&o), 2);
    assert_stderr_has(&o, "--total-fuel");
}
