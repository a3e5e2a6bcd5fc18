//! The limits flags the xpr tools share (the `xpr` command line and the
//! `xpr-mcp` server): `--fuel`, `--max-memory`, `--timeout-ms`,
//! `--wall-timeout-ms`, `--max-depth`, `--max-length`, `--max-regex-bytes`,
//! `--max-value-depth`, `--seed`. Each absent flag keeps
//! [`xpr::Limits::default()`], and `none` lifts a limit. A crate of its own
//! so that the library stays free of clap and both tools read one
//! definition.

use std::time::Duration;

use clap::Args;
use xpr::WallCeiling;

/// A budget on the command line: a number, or `none` for unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// No limit.
    Unlimited,
    /// This many units.
    Units(u64),
}

/// Parses `N`, `none` or `unlimited`.
fn parse_budget(s: &str) -> Result<Budget, String> {
    if matches!(s, "none" | "unlimited") {
        return Ok(Budget::Unlimited);
    }
    s.parse::<u64>()
        .map(Budget::Units)
        .map_err(|_| format!("'{s}' is not a non-negative integer or 'none'"))
}

/// The limits every evaluation and check of the server runs under, fixed
/// when it starts. A client cannot change them: tool arguments carry no
/// limits.
#[derive(Debug, Clone, Default, Args)]
pub struct LimitArgs {
    /// Fuel per evaluation, in fuel units, or `none`.
    #[arg(long, value_name = "N", value_parser = parse_budget)]
    pub fuel: Option<Budget>,
    /// Bytes of strings, arrays and objects one evaluation may create, or `none`.
    #[arg(long, value_name = "BYTES", value_parser = parse_budget)]
    pub max_memory: Option<Budget>,
    /// CPU time per evaluation, in milliseconds, or `none` (also lifts
    /// the wall-clock ceiling, unless `--wall-timeout-ms` is given).
    #[arg(long, value_name = "MS", value_parser = parse_budget)]
    pub timeout_ms: Option<Budget>,
    /// Wall-clock time per evaluation, in milliseconds, or `none`
    /// (default: ten times the CPU timeout, 1000 ms).
    #[arg(long, value_name = "MS", value_parser = parse_budget)]
    pub wall_timeout_ms: Option<Budget>,
    /// Maximum AST depth of the expression, or `none`.
    #[arg(long, value_name = "N", value_parser = parse_budget)]
    pub max_depth: Option<Budget>,
    /// Maximum expression length, in characters, or `none`.
    #[arg(long, value_name = "N", value_parser = parse_budget)]
    pub max_length: Option<Budget>,
    /// Compiled bytes the expression's regex literals may take together,
    /// or `none` (each regex keeps its own limits).
    #[arg(long, value_name = "BYTES", value_parser = parse_budget)]
    pub max_regex_bytes: Option<Budget>,
    /// Deepest nesting of arrays and objects a value may have, built or
    /// read (JSON input included; `[]` is 1 level), or `none`.
    #[arg(long, value_name = "N", value_parser = parse_budget)]
    pub max_value_depth: Option<Budget>,
    /// Seed for `random()`, for reproducible runs (default: a fresh seed per evaluation).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// Applies one flag to one limit: absent keeps it, `none` lifts it.
fn apply<T>(slot: &mut Option<T>, flag: Option<Budget>, conv: impl Fn(u64) -> T) {
    match flag {
        None => {}
        Some(Budget::Unlimited) => *slot = None,
        Some(Budget::Units(n)) => *slot = Some(conv(n)),
    }
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl LimitArgs {
    /// The limits these flags describe.
    pub fn limits(&self) -> xpr::Limits {
        let mut limits = xpr::Limits::default();
        apply(&mut limits.fuel, self.fuel, |n| n);
        apply(&mut limits.memory, self.max_memory, |n| n);
        // The wall-clock ceiling follows the CPU timeout unless given itself.
        apply(&mut limits.timeout, self.timeout_ms, Duration::from_millis);
        match self.wall_timeout_ms {
            None => {}
            Some(Budget::Unlimited) => limits.wall_timeout = WallCeiling::Off,
            Some(Budget::Units(ms)) => {
                limits.wall_timeout = WallCeiling::After(Duration::from_millis(ms));
            }
        }
        apply(&mut limits.max_depth, self.max_depth, to_u32);
        apply(&mut limits.max_length, self.max_length, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        });
        apply(&mut limits.max_regex_bytes, self.max_regex_bytes, |n| n);
        limits.value_depth = self.value_depth();
        limits
    }

    /// The value-depth limit: `--max-value-depth`, or the library's
    /// default (`none` is the largest there is).
    pub fn value_depth(&self) -> u32 {
        match self.max_value_depth {
            None => xpr::Limits::default().value_depth,
            Some(Budget::Unlimited) => u32::MAX,
            Some(Budget::Units(n)) => to_u32(n),
        }
    }

    /// An engine with these limits (and `--seed`).
    pub fn engine(&self) -> xpr::Engine {
        let engine = xpr::Engine::new().with_limits(self.limits());
        match self.seed {
            Some(seed) => engine.with_seed(Some(seed)),
            None => engine,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn limits(flags: &[&str]) -> xpr::Limits {
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            limits: LimitArgs,
        }
        let args = std::iter::once("xpr").chain(flags.iter().copied());
        Flags::try_parse_from(args)
            .expect("flags parse")
            .limits
            .limits()
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn no_flags_are_the_library_defaults() {
        assert_eq!(limits(&[]), xpr::Limits::default());
    }

    #[test]
    fn each_flag_sets_its_limit_and_none_lifts_it() {
        let l = limits(&[
            "--fuel",
            "1000",
            "--max-memory",
            "4096",
            "--max-depth",
            "20",
            "--max-length",
            "300",
            "--max-regex-bytes",
            "none",
            "--max-value-depth",
            "8",
        ]);
        assert_eq!(l.fuel, Some(1000));
        assert_eq!(l.memory, Some(4096));
        assert_eq!(l.max_depth, Some(20));
        assert_eq!(l.max_length, Some(300));
        assert_eq!(l.max_regex_bytes, None);
        assert_eq!(l.value_depth, 8);
        assert_eq!(limits(&["--fuel", "none"]).fuel, None);
        assert_eq!(limits(&["--max-value-depth", "none"]).value_depth, u32::MAX);
    }

    #[test]
    fn the_wall_clock_ceiling_follows_the_timeout_unless_given() {
        let l = limits(&[]);
        assert_eq!((l.timeout, l.wall_ceiling()), (ms(100), ms(1000)));
        let l = limits(&["--timeout-ms", "50"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (ms(50), ms(500)));
        let l = limits(&["--timeout-ms", "5000"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (ms(5000), ms(50_000)));
        let l = limits(&["--wall-timeout-ms", "250"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (ms(100), ms(250)));
        let l = limits(&["--timeout-ms", "none"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (None, None));
        let l = limits(&["--timeout-ms", "none", "--wall-timeout-ms", "3000"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (None, ms(3000)));
        let l = limits(&["--wall-timeout-ms", "none", "--timeout-ms", "20"]);
        assert_eq!((l.timeout, l.wall_ceiling()), (ms(20), None));
    }

    #[test]
    fn a_bad_budget_is_refused() {
        assert_eq!(parse_budget("none"), Ok(Budget::Unlimited));
        assert_eq!(parse_budget("12"), Ok(Budget::Units(12)));
        assert!(parse_budget("-1").is_err());
        assert!(parse_budget("1e9").is_err());
    }
}
