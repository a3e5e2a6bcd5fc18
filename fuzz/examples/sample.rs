//! Prints expressions of the structured generator, one per line, from
//! pseudo-random input bytes: `cargo run --release --example sample
//! [COUNT] [SEED] [--run]`. With `--run`, also runs each one as the run
//! target does (with its checks) and prints its
//! outcome (value kind or error kind, fuel, memory, time), then a summary
//! by outcome.
//!
//! `cargo run --release --example sample -- FILE...` prints the expression
//! the run target generates from each file (a fuzz artifact or corpus
//! entry), for turning a failure into a plain reproducer.

use std::collections::BTreeMap;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<&String> = args
        .iter()
        .filter(|a| std::path::Path::new(a).is_file())
        .collect();
    if !files.is_empty() {
        for f in files {
            let bytes = std::fs::read(f).unwrap_or_default();
            let mut u = arbitrary::Unstructured::new(&bytes);
            match xpr_fuzz::generate::expression(&mut u) {
                Ok(src) => println!("{src}"),
                Err(e) => eprintln!("{f}: no expression ({e})"),
            }
        }
        return;
    }
    let run = args.iter().any(|a| a == "--run");
    let mut nums = args.iter().filter_map(|a| a.parse::<u64>().ok());
    let count = nums.next().unwrap_or(20) as usize;
    let seed = nums.next().unwrap_or(1);
    let mut tally: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for (i, src) in xpr_fuzz::generate::samples(seed, count).iter().enumerate() {
        if !run {
            println!("{i}: {src}");
            continue;
        }
        let engine = xpr_fuzz::small_engine();
        let start = Instant::now();
        let mut vm = xpr::Vm::new();
        let (outcome, message) = match engine.compile(src) {
            Err(e) => (format!("compile {}", e.kind().name()), e.to_string()),
            Ok(p) => match p.run_in(&mut vm, xpr_fuzz::context()) {
                Ok(v) => (format!("value {}", v.type_name()), String::new()),
                Err(e) => (format!("run {}", e.kind().name()), e.to_string()),
            },
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        // The run target's checks (they panic on a broken guarantee).
        xpr_fuzz::run_small(src);
        println!(
            "{i}: {outcome} fuel={} mem={} {ms:.2}ms: {}\n    {message}",
            vm.fuel_used(),
            vm.peak_memory(),
            src.chars().take(160).collect::<String>()
        );
        let t = tally.entry(outcome).or_default();
        t.0 += 1;
        t.1 = t.1.max(ms);
    }
    for (outcome, (n, max_ms)) in tally {
        println!("{n:6} {outcome} (slowest {max_ms:.1} ms)");
    }
}
