//! Golden files: a test's text output compared with a file checked in
//! beside the tests, so a change in it shows up in review.
//!
//! A file is a header between two `---` lines (`source:` the test file,
//! `expression:` what was rendered; for the reader only) and then the
//! expected text. The comparison ignores trailing whitespace at the end and
//! reads CR LF as LF. The files keep the layout insta wrote (the tool these
//! tests used before), so the checked-in snapshots did not change.
//!
//! To accept new output, run the tests with `XPR_BLESS=1`: a differing or
//! missing file is (re)written, keeping its header, and the test passes.

use std::path::Path;

/// The environment variable that makes [`assert_golden`] write the files.
pub const BLESS: &str = "XPR_BLESS";

/// Asserts that `actual` is the text of the golden file `dir/name.snap`,
/// or with `XPR_BLESS=1` writes it there (a new file's header names the
/// caller's source file).
///
/// # Panics
///
/// When the file is missing or its text differs (showing the first
/// differing line), unless blessing; when the file cannot be read or
/// written.
#[track_caller]
pub fn assert_golden(dir: &Path, name: &str, actual: &str) {
    let bless = std::env::var_os(BLESS).is_some_and(|v| v == "1");
    let source = std::panic::Location::caller().file();
    check(dir, name, source, actual, bless);
}

/// [`assert_golden`] with blessing on or off.
#[track_caller]
fn check(dir: &Path, name: &str, source: &str, actual: &str, bless: bool) {
    let path = dir.join(format!("{name}.snap"));
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{}: {e}", path.display()),
    };
    let (header, expected) = match &old {
        Some(text) => split(text).unwrap_or_else(|| panic!("{}: no `---` header", path.display())),
        None => (format!("---\nsource: {source}\n---\n"), String::new()),
    };
    if old.is_some() && normalize(&expected) == normalize(actual) {
        return;
    }
    if bless {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let text = format!("{header}{}\n", actual.trim_end());
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    if old.is_none() {
        panic!(
            "{}: no golden file; the output was:\n{actual}\n(rerun with {BLESS}=1 to write it)",
            path.display()
        );
    }
    panic!(
        "{}: the output differs from the golden file{}\n--- output:\n{actual}\n\
         (rerun with {BLESS}=1 to accept it)",
        path.display(),
        first_difference(&normalize(&expected), &normalize(actual)),
    );
}

/// The header (both `---` lines included) and the text after it.
fn split(file: &str) -> Option<(String, String)> {
    let rest = file
        .strip_prefix("---\n")
        .or_else(|| file.strip_prefix("---\r\n"))?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        at += line.len();
        if line.trim_end() == "---" {
            let header_len = file.len() - rest.len() + at;
            return Some((
                file[..header_len].to_string(),
                file[header_len..].to_string(),
            ));
        }
    }
    None
}

/// The text as compared: CR LF read as LF, trailing whitespace dropped.
fn normalize(text: &str) -> String {
    text.replace("\r\n", "\n").trim_end().to_string()
}

/// Where two texts first differ, as ` at line N: expected ... found ...`.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut e = expected.lines();
    let mut a = actual.lines();
    for n in 1.. {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                return format!(
                    " at line {n}:\n  expected: {}\n  found:    {}",
                    x.unwrap_or("(end)"),
                    y.unwrap_or("(end)")
                );
            }
        }
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::{check, first_difference, normalize, split};

    #[test]
    fn the_header_is_split_off() {
        let (h, body) = split("---\nsource: a.rs\nexpression: x\n---\n  1\n\n2\n").unwrap();
        assert_eq!(h, "---\nsource: a.rs\nexpression: x\n---\n");
        assert_eq!(body, "  1\n\n2\n");
        assert!(split("no header").is_none());
        assert!(split("---\nsource: a.rs\n").is_none());
    }

    #[test]
    fn trailing_whitespace_and_cr_lf_do_not_count_leading_space_does() {
        assert_eq!(normalize("a\r\nb\n\n"), normalize("a\nb"));
        assert_ne!(normalize("  a"), normalize("a"));
    }

    #[test]
    fn the_first_differing_line_is_named() {
        assert_eq!(
            first_difference("a\nb\nc", "a\nx"),
            " at line 2:\n  expected: b\n  found:    x"
        );
        assert_eq!(
            first_difference("a", "a\nx"),
            " at line 2:\n  expected: (end)\n  found:    x"
        );
    }

    #[test]
    fn a_matching_file_passes_a_differing_one_fails_blessing_rewrites() {
        let dir = std::env::temp_dir().join(format!("xpr-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = "---\nsource: t.rs\nexpression: x\n---\nline 1\nline 2\n";
        std::fs::write(dir.join("t.snap"), file).unwrap();
        check(&dir, "t", "t.rs", "line 1\nline 2", false);
        let failed = std::panic::catch_unwind(|| check(&dir, "t", "t.rs", "line 1", false));
        assert!(failed.is_err());
        let missing = std::panic::catch_unwind(|| check(&dir, "new", "t.rs", "x", false));
        assert!(missing.is_err());
        check(&dir, "t", "t.rs", "line 1\n", true);
        let blessed = std::fs::read_to_string(dir.join("t.snap")).unwrap();
        assert_eq!(blessed, "---\nsource: t.rs\nexpression: x\n---\nline 1\n");
        check(&dir, "new", "t.rs", "x", true);
        let new = std::fs::read_to_string(dir.join("new.snap")).unwrap();
        assert_eq!(new, "---\nsource: t.rs\n---\nx\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
