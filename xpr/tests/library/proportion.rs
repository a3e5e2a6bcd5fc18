//! Comparisons, hashing and the text built-ins cost in proportion to what
//! they read (issue 11, items 2 and 3), and a cancellation stops a long
//! built-in at its next charge. Work is asserted by counting fuel (a lower
//! bound proportional to the bytes the expression makes the runtime read,
//! or a small budget that must stop it), never by timing. The bytes read
//! per fuel unit are counted directly by the unit tests of
//! `xpr-vm/src/stdlib/proportion.rs` and `xpr-vm/src/compare.rs`.

use crate::common;

use common::on_small_stack;
use xpr::{CancelHandle, Context, Engine, ErrorKind, Key, Limits, Map, RunConfig, Value, Vm};

/// No fuel limit, no timeout, the default memory and depth budgets.
fn unmetered() -> Limits {
    Limits {
        fuel: None,
        timeout: None,
        ..Limits::default()
    }
}

/// The contexts a test runs against: `p` and `q`, strings of "x" of
/// `p` and `q` bytes, held as values (lent to the run) or as JSON (lent
/// as text, compared where it lies).
fn contexts(p: usize, q: usize) -> (Map, serde_json::Map<String, serde_json::Value>) {
    let mut values = Map::default();
    values.insert(Key::from("p"), Value::from("x".repeat(p)));
    values.insert(Key::from("q"), Value::from("x".repeat(q)));
    let mut json = serde_json::Map::new();
    json.insert("p".into(), "x".repeat(p).into());
    json.insert("q".into(), "x".repeat(q).into());
    (values, json)
}

/// Runs `src` under `limits` against both contexts of [`contexts`]; the
/// results and fuel used, values first.
fn run_both(
    src: String,
    p: usize,
    q: usize,
    limits: Limits,
) -> [(Result<Value, xpr::Error>, u64); 2] {
    on_small_stack(move || {
        let (values, json) = contexts(p, q);
        let engine = Engine::new().with_limits(limits);
        let program = engine.compile(&src).expect("compiles");
        let mut vm = Vm::new();
        let a = program.run_in(&mut vm, &values);
        let fa = vm.fuel_used();
        let b = program.run_in(&mut vm, &json);
        let fb = vm.fuel_used();
        [(a, fa), (b, fb)]
    })
}

/// Asserts `src` gives `want` against both contexts, using at least
/// `min_fuel` units.
#[track_caller]
fn assert_costs(src: &str, p: usize, q: usize, want: Value, min_fuel: u64) {
    for (r, fuel) in run_both(src.to_owned(), p, q, unmetered()) {
        assert_eq!(r.as_ref().ok(), Some(&want), "{src}: {r:?}");
        assert!(
            fuel >= min_fuel,
            "{src}: {fuel} fuel units, want >= {min_fuel}"
        );
    }
}

/// Asserts `src` gives `want` against both contexts, using less than
/// `max_fuel` units.
#[track_caller]
fn assert_cheap(src: &str, p: usize, q: usize, want: Value, max_fuel: u64) {
    for (r, fuel) in run_both(src.to_owned(), p, q, unmetered()) {
        assert_eq!(r.as_ref().ok(), Some(&want), "{src}: {r:?}");
        assert!(
            fuel < max_fuel,
            "{src}: {fuel} fuel units, want < {max_fuel}"
        );
    }
}

/// Asserts `src` fails with the fuel error under a budget of `fuel` units.
#[track_caller]
fn assert_out_of_fuel(src: &str, p: usize, q: usize, fuel: u64) {
    let limits = Limits {
        fuel: Some(fuel),
        timeout: None,
        ..Limits::default()
    };
    for (r, _) in run_both(src.to_owned(), p, q, limits) {
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::Fuel), "{src}");
    }
}

// ─── sorting ─────────────────────────────────────────────────────────────────

/// 100 distinct strings of 10,004 bytes in reverse order, from `q`.
const KEYS: &str = "let a = range(100).map(i => q + string(2000 - i));";

#[test]
fn sorting_long_strings_is_charged_per_byte() {
    // About 350 comparisons, each reading two 10,004-byte strings (625
    // units): charged one unit each before.
    for sort in [
        "a.sort().length",
        "a.sortBy(x => x).length",
        "fromEntries(a.map(k => [k, 1])).keys().length",
        "a.groupBy(x => x).keys().length",
        "a.keyBy(x => x).values().length",
    ] {
        let src = format!("{KEYS} {sort}");
        assert_costs(&src, 0, 10_000, Value::Number(100.0), 200_000);
        // Building the keys takes about 65,000 units: the sort cannot
        // finish within 150,000.
        assert_out_of_fuel(&src, 0, 10_000, 150_000);
    }
}

#[test]
fn sorting_by_one_shared_long_string_reads_nothing() {
    // The issue's `range(3000).sortBy(i => p)` with a 200 MB `p` ran 6 s
    // under the 100 ms default: every comparison read both keys in full.
    // The keys are one string, equal to itself without being read.
    assert_cheap(
        "range(3000).sortBy(i => p).length",
        2 << 20,
        0,
        Value::Number(3000.0),
        100_000,
    );
}

// ─── equality and ordering operators ─────────────────────────────────────────

#[test]
fn comparisons_with_long_constants_are_charged_and_exact() {
    // A comparison reading more than 1 KiB is charged before it is made;
    // every form of comparison with a constant gives the same results.
    let k = "x".repeat(2000);
    let other = format!("{}y", "x".repeat(1999));
    for (form, want_k, want_other) in [
        ("range(100).filter(_ => p == K).length", 100.0, 0.0),
        ("range(100).filter(_ => p != K).length", 0.0, 100.0),
        ("range(100).filter(_ => p < K).length", 0.0, 100.0),
        ("range(100).filter(_ => p >= K).length", 100.0, 0.0),
        (
            "range(100).map(_ => {f: p}).filter(x => x.f == K).length",
            100.0,
            0.0,
        ),
        (
            "range(100).map(_ => {f: p}).filter(x => x.f <= K).length",
            100.0,
            100.0,
        ),
        (
            "range(100).map(_ => {f: p}).map(x => x.f == K ? 1 : 0).sum()",
            100.0,
            0.0,
        ),
        ("range(100).filter(_ => (p + \"\") == K).length", 100.0, 0.0),
        ("range(100).filter(_ => (p + \"\") > K).length", 0.0, 0.0),
        (
            "let k = K; range(100).filter(_ => p == k).length",
            100.0,
            0.0,
        ),
    ] {
        for (constant, want) in [(&k, want_k), (&other, want_other)] {
            let src = form.replace('K', &format!("\"{constant}\""));
            assert_costs(&src, 2000, 0, Value::Number(want), 100 * 2000 / 16);
        }
    }
}

#[test]
fn comparing_long_strings_past_the_budget_fails_before_reading_them() {
    // 10 MB strings lent by the context: each comparison is charged 625,000
    // units before it reads them, so a 100,000-unit budget refuses the first.
    for src in [
        "let t = q; p == t",
        "let t = q; p < t",
        "[p] == [q]",
        "[p].includes(q)",
        "[p, q].sort().length",
    ] {
        assert_out_of_fuel(src, 10 << 20, 10 << 20, 100_000);
    }
}

#[test]
fn comparing_context_text_with_other_types_reads_nothing() {
    // Text lent by a JSON context and compared with a constant of another
    // type was copied into a string on every comparison (1,000 copies of
    // 1 MB for nothing); the answer needs only the types.
    assert_cheap(
        "range(1000).filter(_ => p == null).length",
        1 << 20,
        0,
        Value::Number(0.0),
        20_000,
    );
    assert_cheap(
        "range(1000).filter(_ => p != 1).length",
        1 << 20,
        0,
        Value::Number(1000.0),
        20_000,
    );
    for (r, _) in run_both("p < 1".into(), 1 << 20, 0, unmetered()) {
        let e = r.expect_err("type error");
        assert_eq!(e.kind(), ErrorKind::Type);
        assert!(
            e.to_string().contains("cannot compare string and number"),
            "{e}"
        );
    }
}

// ─── hashing ─────────────────────────────────────────────────────────────────

#[test]
fn unique_of_long_strings_is_charged_per_byte() {
    // The reproduction, scaled: each `unique()` hashes 3,200 copies
    // of a 10,000-byte string (32 MB) and was charged 3,201 units, 24 times
    // the work per unit of an ordinary run.
    let src = "let s = \"x\".repeat(10000); let a = range(3200).map(_ => s); \
               range(2).map(_ => a.unique().length).sum()";
    assert_costs(src, 0, 0, Value::Number(2.0), 2 * 3200 * 625);
    assert_out_of_fuel(src, 0, 0, 2_000_000);
}

#[test]
fn objects_built_from_long_keys_are_charged_per_key_byte() {
    // Spreading or destructuring an object inserts each key into a new
    // map, hashing all of it: 20 objects of 100 keys of 10,004 bytes.
    let keys = "let o = fromEntries(range(100).map(i => [q + string(1000 + i), i]));";
    for build in [
        "range(20).map(_ => ({...o})).length",
        "range(20).map(_ => o).map(({a, ...r}) => r).length",
    ] {
        let src = format!("{keys} {build}");
        assert_costs(&src, 0, 10_000, Value::Number(20.0), 20 * 100 * 625);
    }
}

// ─── copies ──────────────────────────────────────────────────────────────────

#[test]
fn concatenations_and_templates_are_charged_per_byte_copied() {
    // Each builds a 10,001-byte (or 10,002-byte) string: 625 units of
    // copying, charged as the memory is, as if each `+` ran in turn. They
    // were charged for memory only: 7 times the work per fuel unit of an
    // ordinary run.
    for src in [
        "range(1000).map(_ => q + \"!\").length",
        "range(1000).map(_ => `${q}!`).length",
        "let t = q + \"\"; range(1000).map(_ => t + \"!\").length",
        "range(500).map(_ => q + \"!\" + \"?\").length",
    ] {
        assert_costs(
            src,
            0,
            10_000,
            Value::Number(if src.contains("500") { 500.0 } else { 1000.0 }),
            600_000,
        );
    }
}

// ─── replace and split ───────────────────────────────────────────────────────

#[test]
fn replace_is_charged_per_occurrence() {
    // `replace("x", "")` over 100,000 occurrences produced nothing and was
    // charged for the 100,000 bytes scanned (6,251 units): 14 times the work
    // per unit of an ordinary run.
    assert_costs(
        "let s = \"x\".repeat(100000); range(3).map(_ => s.replace(\"x\", \"\").length).sum()",
        0,
        0,
        Value::Number(0.0),
        300_000,
    );
    assert_out_of_fuel(
        "let s = \"x\".repeat(100000); s.replace(\"x\", \"\").length",
        0,
        0,
        50_000,
    );
}

#[test]
fn split_is_charged_per_piece() {
    assert_costs(
        "\"x,\".repeat(100000).split(\",\").length",
        0,
        0,
        Value::Number(100_001.0),
        300_000,
    );
}

// ─── regexes ─────────────────────────────────────────────────────────────────

/// Compiles and runs `src` in a new VM (so its regexes start with empty
/// lazy DFA caches, as in a first run) under `fuel`: the result and the
/// fuel used.
fn run_cold(src: &'static str, fuel: Option<u64>) -> (Result<Value, xpr::Error>, u64) {
    on_small_stack(move || {
        let engine = Engine::new().with_limits(Limits {
            fuel,
            timeout: None,
            ..Limits::default()
        });
        let program = engine.compile(src).expect("compiles");
        let mut vm = Vm::new();
        let r = program.run_in(&mut vm, &Map::default());
        (r, vm.fuel_used())
    })
}

#[test]
fn regex_searches_pay_for_the_dfa_states_they_build() {
    // Fuzz finding (fuzz/seeds/regex-dfa-states.xpr): the first search of
    // `[\s\S]{1000}` over these 3,891 bytes builds 735 KB of lazy DFA
    // states, thousands of NFA states each (~6 ms), and paid 16,563 units.
    let (r, fuel) = run_cold(
        "let g = string(range(1000)); g.match(/[\\s\\S]{1000}/).length",
        None,
    );
    assert_eq!(r.ok(), Some(Value::Number(1000.0)));
    assert!(fuel > 1_000_000, "{fuel}");
    // Every search path pays, literal or run-time pattern: a small budget
    // stops each.
    for src in [
        "let g = string(range(1000)); g.match(/[\\s\\S]{1000}/).length",
        "/[\\s\\S]{1000}/.test(string(range(1000)))",
        "matchAll(string(range(1000)), /[\\s\\S]{1000}/).length",
        "string(range(1000)).replace(/[\\s\\S]{1000}/, \"\").length",
        "replacePattern(string(range(1000)), /([\\s\\S]{1000})/, \"$1\").length",
        "string(range(1000)).split(/([\\s\\S]{1000})/).length",
        "matches(string(range(1000)), \"[\\\\s\\\\S]{1000}\")",
    ] {
        let (r, _) = run_cold(src, Some(200_000));
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::Fuel), "{src}");
    }
}

// ─── cancellation inside a built-in ──────────────────────────────────────────

/// A context whose variable `stop` cancels the run that reads it (host
/// code running in the middle of the run), with `p`, a 100,000-byte string.
struct CancelOnRead {
    cancel: CancelHandle,
    p: Value,
}

impl Context for CancelOnRead {
    fn get(&self, name: &str) -> Option<Value> {
        match name {
            "stop" => {
                self.cancel.cancel();
                Some(Value::Bool(true))
            }
            "p" => Some(self.p.clone()),
            _ => None,
        }
    }
}

#[test]
fn a_cancellation_stops_a_sort_at_its_next_comparison() {
    // Built-ins see a cancellation through their fuel charges (every 1,024
    // units the runtime checks the flag and the deadline). A sort charges
    // each comparison of two long strings (6,251 units here) before making
    // it, so the first one after the cancellation stops the run. Before,
    // a comparison cost one unit: a sort made up to 1,024 comparisons
    // after a cancellation, each reading its strings in full. The budget
    // covers what runs before the sort and one comparison: a sort that
    // went on comparing would end with the fuel error instead.
    let prefix = "let keys = range(64).map(i => p + string(i));";
    let (kind, message) = on_small_stack(move || {
        let cancel = CancelHandle::new();
        let ctx = CancelOnRead {
            cancel: cancel.clone(),
            p: Value::from("x".repeat(100_000)),
        };
        let engine = Engine::new().with_limits(unmetered());
        // What runs before the sort (reading `stop` cancels, so a fresh
        // handle for each run).
        let mut vm = Vm::new();
        engine
            .compile(&format!("{prefix} [stop, keys.length]"))
            .expect("compiles")
            .run_in(&mut vm, &ctx)
            .expect("runs");
        let before = vm.fuel_used();
        cancel.reset();
        let config = RunConfig {
            limits: Some(Limits {
                fuel: Some(before + 64 + 6_251 + 2_048),
                timeout: None,
                ..Limits::default()
            }),
            cancel: Some(cancel.clone()),
            ..RunConfig::default()
        };
        let program = engine
            .compile(&format!("{prefix} [stop, keys.sort().length]"))
            .expect("compiles");
        let e = program.run_with(&ctx, &config).expect_err("cancelled");
        (e.kind(), e.to_string())
    });
    assert_eq!(kind, ErrorKind::Cancelled, "{message}");
    assert!(message.contains("Evaluation cancelled"), "{message}");
}

#[test]
fn a_cancellation_stops_an_equality_of_long_strings_before_it_reads_them() {
    // `p == t` with two distinct 10 MB strings is charged 655,360 units
    // before reading them: the charge runs the check that sees the
    // cancellation. The budget pays for building `t` (a 655,360-unit copy)
    // and that comparison, not for the two comparisons after it that a
    // missed cancellation would reach (the run would end out of fuel).
    let (kind, message) = on_small_stack(move || {
        let cancel = CancelHandle::new();
        let ctx = CancelOnRead {
            cancel: cancel.clone(),
            p: Value::from("x".repeat(10 << 20)),
        };
        let config = RunConfig {
            limits: Some(Limits {
                fuel: Some(2_000_000),
                timeout: None,
                ..Limits::default()
            }),
            cancel: Some(cancel),
            ..RunConfig::default()
        };
        let program = Engine::new()
            .compile("let t = p + \"\"; [stop, p == t, p < t, [p] == [t]]")
            .expect("compiles");
        let e = program.run_with(&ctx, &config).expect_err("cancelled");
        (e.kind(), e.to_string())
    });
    assert_eq!(kind, ErrorKind::Cancelled, "{message}");
    assert!(message.contains("Evaluation cancelled"), "{message}");
}
