//! Work per fuel unit (issue 11): runs expressions with no fuel, memory or
//! time limit, and prints the CPU time each took per fuel unit it was
//! charged, against the median of a few ordinary runs. A built-in whose
//! ratio is far above 1 does work out of proportion to its fuel.
//!
//! ```text
//! cargo run --release -p xpr-bench --example work_per_fuel [FILTER]
//! ```
//!
//! CPU time is the evaluating thread's (`/proc/thread-self/schedstat`,
//! Linux), the best of a few runs; on a busy machine the ratios still move
//! by some tens of percent. The tests assert proportion by counting, never
//! with this.

use std::hint::black_box;

use xpr::{Context, Engine, Key, Limits, Map, Value, Vm};

/// The nanoseconds this thread has run on a CPU (0 where unknown).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Ordinary runs: their median time per fuel unit is the yardstick.
const ORDINARY: &[&str] = &[
    "range(100000).map(x => x * 2 + 1).filter(x => x % 3 == 0).length",
    "range(50000).map(i => {a: i, b: \"k\" + (i % 7)}).filter(o => o.b == \"k3\" || o.a > 100).map(o => o.a).sum()",
    "range(30000).reduce((acc, x) => acc + (x % 5 == 0 ? 1 : 0), 0)",
    "range(20000).map(i => string(i)).filter(s => s.startsWith(\"1\")).length",
];

/// The cases measured: name and expression. The context holds `p`, a
/// 1,000,000-byte string, and `q`, 10,000 bytes: as values, or as JSON
/// (lent as text) for the cases named `json: ...`.
const CASES: &[(&str, &str)] = &[
    // Item 2: comparisons.
    ("sortBy same long key", "range(300).sortBy(i => p).length"),
    (
        "sortBy distinct long keys",
        "let a = range(300).map(i => q + string(2000 - i)); range(100).map(_ => a.sortBy(x => x).length).length",
    ),
    (
        "sort long strings",
        "let a = range(300).map(i => q + string(2000 - i)); range(100).map(_ => a.sort().length).length",
    ),
    (
        "sort comparator long strings",
        "let a = range(300).map(i => q + string(2000 - i)); range(100).map(_ => a.sort((x, y) => x < y ? -1 : 1).length).length",
    ),
    (
        "== long strings (distinct)",
        "let t = p + \"\"; range(100).filter(_ => p == t).length",
    ),
    (
        "== arrays of long strings",
        "let a = range(100).map(i => q + string(i)); let b = range(100).map(i => q + string(i)); range(100).filter(_ => a == b).length",
    ),
    (
        "< long strings",
        "let t = p + \"\"; range(100).filter(_ => p < t).length",
    ),
    (
        "includes long strings",
        "let a = range(300).map(i => q + string(i)); let n = q + \"x\"; range(100).filter(_ => a.includes(n)).length",
    ),
    (
        "indexOf arrays",
        "let a = range(300).map(i => [q, i]); range(100).map(_ => a.indexOf([q, 299])).length",
    ),
    (
        "groupBy long keys",
        "let a = range(3000).map(i => q + string(i % 50)); range(10).map(_ => a.groupBy(x => x)).length",
    ),
    (
        "keyBy long keys",
        "let a = range(3000).map(i => q + string(i % 50)); range(10).map(_ => a.keyBy(x => x)).length",
    ),
    (
        "keys() long common prefix",
        "let o = fromEntries(range(2000).map(i => [q + string(i), i])); range(200).map(_ => o.keys().length).length",
    ),
    (
        "fromEntries long keys",
        "let e = range(3000).map(i => [q + string(i % 50), i]); range(10).map(_ => fromEntries(e)).length",
    ),
    (
        "object spread long keys",
        "let o = fromEntries(range(100).map(i => [q + string(i), i])); range(300).map(i => {...o, n: i}).length",
    ),
    (
        "has long key",
        "let o = fromEntries([[q, 1]]); let k = q + \"\"; range(10000).filter(_ => o.has(k)).length",
    ),
    (
        "index by long key",
        "let o = fromEntries([[q, 1]]); let k = q + \"\"; range(10000).filter(_ => o[k]).length",
    ),
    (
        "json: == text vs null",
        "range(1000).filter(_ => p == null).length",
    ),
    (
        "json: == text vs text",
        "range(1000).filter(_ => p == \"x\").length",
    ),
    // Item 3: unique and replace.
    (
        "unique shared long strings",
        "let s = \"x\".repeat(10000); let a = range(3200).map(_ => s); range(30).map(_ => a.unique().length).length",
    ),
    (
        "unique distinct long strings",
        "let a = range(3200).map(i => q + string(i % 100)); range(30).map(_ => a.unique().length).length",
    ),
    (
        "unique numbers",
        "let a = range(100000).map(i => i % 1000); range(10).map(_ => a.unique().length).length",
    ),
    (
        "replace many matches",
        "let s = \"x\".repeat(100000); range(30).map(_ => s.replace(\"x\", \"\").length).length",
    ),
    (
        "replace many matches, long replacement",
        "let s = \"x\".repeat(10000); range(30).map(_ => s.replace(\"x\", \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\").length).length",
    ),
    (
        "replace empty pattern",
        "let s = \"x\".repeat(100000); range(30).map(_ => s.replace(\"\", \"\").length).length",
    ),
    (
        "replace regex many matches",
        "let s = \"x\".repeat(100000); range(30).map(_ => s.replace(/x/, \"\").length).length",
    ),
    (
        "split many pieces",
        "let s = \"x,\".repeat(50000); range(30).map(_ => s.split(\",\").length).length",
    ),
    (
        "split regex many pieces",
        "let s = \"x,\".repeat(50000); range(30).map(_ => s.split(/,/).length).length",
    ),
    (
        "matchAll many matches",
        "let s = \"x,\".repeat(50000); range(30).map(_ => matchAll(s, /x/).length).length",
    ),
    // Capture groups over long matches (fuzz finding): the capture engine
    // reads the match again, slower per byte than the search.
    (
        "split capture long match",
        "let s = \"x\".repeat(1000000); range(3).map(_ => s.split(/(x+)*$/).length).length",
    ),
    (
        "split capture many groups",
        "let s = \"xy\".repeat(50000); range(10).map(_ => s.split(/((x)|(y)|(z))+$/).length).length",
    ),
    (
        "split capture short matches",
        "let s = \"x,\".repeat(50000); range(30).map(_ => s.split(/(,)/).length).length",
    ),
    (
        "replace capture long match",
        "let s = \"x\".repeat(100000); range(10).map(_ => s.replace(/(x+)*$/, \"$1\").length).length",
    ),
    (
        "replace capture many groups",
        "let s = \"xy\".repeat(50000); range(10).map(_ => s.replace(/((x)|(y)|(z))+$/, \"$2\").length).length",
    ),
    // Regexes whose lazy DFA builds large states (fuzz finding): `cold:`
    // cases compile and run in a new VM each time, so the DFA starts
    // empty, as in a first run. Patterns built at run time are compiled
    // during the run (and charged for it).
    (
        "cold: reproducer [\\s\\S]{1000}",
        "let g = string(range(1000)); g.match(/[\\s\\S]{1000}/)",
    ),
    (
        "warm: reproducer [\\s\\S]{1000}",
        "let g = string(range(1000)); range(20).map(_ => g.match(/[\\s\\S]{1000}/)).length",
    ),
    (
        "cold: counted class, long haystack",
        "let g = string(range(100000)); g.match(/[\\s\\S]{1000}y/)",
    ),
    (
        "cold: counted class test",
        "let g = string(range(30000)); /a[\\s\\S]{500}b/.test(g)",
    ),
    (
        "cold: counted class matchAll",
        "let g = string(range(3000)); matchAll(g, /[\\s\\S]{300}/).length",
    ),
    (
        "cold: counted class replace",
        "let g = string(range(3000)); g.replace(/[\\s\\S]{300}/, \"-\").length",
    ),
    (
        "cold: counted class split groups",
        "let g = string(range(3000)); g.split(/([\\s\\S]{300})/).length",
    ),
    (
        "cold: counted word class",
        "let g = string(range(30000)); matches(g, /[0-9,]{300}x/)",
    ),
    (
        "cold: unicode class counted",
        "let g = \"日本語éa\".repeat(20000); matches(g, /(?i)\\pL{24}\\d/)",
    ),
    (
        "cold: many literals (run time)",
        "let pat = range(2000).map(i => \"w\" + string(i * 7919)).join(\"|\"); matchAll(string(range(20000)), pat).length",
    ),
    (
        "cold: counted alternation (run time)",
        "let pat = \"(?:\" + range(300).map(i => \"[0-9,]{\" + string(i % 40 + 1) + \"}x\" + string(i)).join(\"|\") + \")\"; matches(string(range(20000)), pat)",
    ),
    (
        "cold: case-folded full classes (run time)",
        "matchAll(\"a,b,,c,\", \"(?i:\\\\p{Any}\\\\p{Any}.a)\").length",
    ),
    (
        "cold: ordinary search",
        "matchAll(string(range(20000)), /[0-9]+9,/).length",
    ),
    (
        "ordinary search",
        "let g = string(range(20000)); range(30).map(_ => matchAll(g, /[0-9]+9,/).length).length",
    ),
    (
        "split short record",
        "range(20000).map(i => \"ab,cd,ef,\" + string(i)).map(s => s.split(\",\").length).length",
    ),
    ("concat long", "range(3000).map(_ => q + \"!\").length"),
    ("template long", "range(3000).map(_ => `${q}!`).length"),
    (
        "join long",
        "let a = range(100).map(_ => q); range(30).map(_ => a.join(\",\").length).length",
    ),
    (
        "contains long",
        "let s = \"x\".repeat(100000); range(300).filter(_ => s.contains(\"y\")).length",
    ),
];

/// Fuel used and the best CPU time of `runs` runs of `src`.
///
/// The thread's CPU clock advances in scheduler ticks, so each measurement
/// repeats the run until at least 100 ms of CPU time have passed. A `cold`
/// case compiles the program again (untimed) and runs it in a new VM each
/// time, so that its regexes start with empty caches, as in a first run.
fn measure(
    engine: &Engine,
    ctx: &dyn Context,
    src: &str,
    runs: usize,
    cold: bool,
) -> Result<(u64, u64), String> {
    let mut program = engine.compile(src).map_err(|e| e.to_string())?;
    let mut vm = Vm::new();
    let mut best = u64::MAX;
    let mut fuel = 0;
    for _ in 0..runs {
        let mut n = 0u64;
        let mut spent = 0;
        while spent < 100_000_000 {
            if cold {
                program = engine.compile(src).map_err(|e| e.to_string())?;
                vm = Vm::new();
            }
            let start = thread_cpu_ns();
            let r = program.run_in(&mut vm, ctx);
            spent += thread_cpu_ns().saturating_sub(start);
            black_box(r.map_err(|e| e.to_string())?);
            n += 1;
        }
        fuel = vm.fuel_used();
        best = best.min(spent / n);
    }
    Ok((fuel, best))
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let engine = Engine::new().with_limits(Limits {
        fuel: None,
        memory: None,
        timeout: None,
        ..Limits::default()
    });
    let mut ctx = Map::default();
    ctx.insert(Key::from("p"), Value::from("x".repeat(1_000_000)));
    ctx.insert(Key::from("q"), Value::from("x".repeat(10_000)));
    // The same through serde_json: strings are lent as text.
    let mut json = serde_json::Map::new();
    json.insert("p".into(), "x".repeat(1_000_000).into());
    json.insert("q".into(), "x".repeat(10_000).into());

    let mut ordinary: Vec<f64> = ORDINARY
        .iter()
        .filter_map(|src| {
            let (fuel, ns) = measure(&engine, &ctx, src, 5, false).ok()?;
            Some(ns as f64 / fuel.max(1) as f64)
        })
        .collect();
    ordinary.sort_by(f64::total_cmp);
    let yardstick = ordinary.get(ordinary.len() / 2).copied().unwrap_or(1.0);
    println!("ordinary runs: {yardstick:.2} ns per fuel unit (median of {ordinary:.2?})");
    println!(
        "{:<36} {:>12} {:>10} {:>9} {:>7}",
        "case", "fuel", "cpu ms", "ns/fuel", "ratio"
    );
    for (name, src) in CASES.iter().filter(|(n, _)| n.contains(filter.as_str())) {
        let ctx: &dyn Context = if name.starts_with("json:") {
            &json
        } else {
            &ctx
        };
        match measure(&engine, ctx, src, 3, name.starts_with("cold:")) {
            Ok((fuel, ns)) => {
                let per = ns as f64 / fuel.max(1) as f64;
                println!(
                    "{name:<36} {fuel:>12} {:>10.2} {per:>9.2} {:>7.2}",
                    ns as f64 / 1e6,
                    per / yardstick
                );
            }
            Err(e) => println!("{name:<36} error: {e}"),
        }
    }
}
