//! Adversarial regression tests: each case is a fault found by attacking the
//! runtime (a built-in or an instruction doing work out of proportion to the
//! fuel it charged, memory escaping the budget, a stack overflow), kept so
//! it never comes back. Fuel is asserted as a lower bound proportional to
//! the work the expression asks for (never wall-clock time); everything
//! runs on a 2 MiB thread.

use crate::common;

use common::on_small_stack;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use xpr::{Engine, Limits, Value, Vm};

/// Runs `src` against `ctx` with no fuel limit and no timeout (default
/// memory and depth budgets); returns the result and the fuel it used.
fn run_metered(src: &'static str, ctx: serde_json::Value) -> (Result<Value, xpr::Error>, u64) {
    on_small_stack(move || {
        let limits = Limits {
            fuel: None,
            timeout: None,
            ..Limits::default()
        };
        let engine = Engine::new().with_limits(limits).with_seed(Some(1));
        let program = engine.compile(src).expect("compiles");
        let map = match ctx {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let mut vm = Vm::new();
        let r = program.run_in(&mut vm, &map);
        (r, vm.fuel_used())
    })
}

/// Asserts that `src` succeeds and used at least `min_fuel` fuel units.
fn assert_costs(src: &'static str, ctx: serde_json::Value, min_fuel: u64) {
    let (r, fuel) = run_metered(src, ctx);
    if let Err(e) = r {
        panic!("{src}: {e}");
    }
    assert!(
        fuel >= min_fuel,
        "{src}: used {fuel} fuel units for work worth at least {min_fuel}"
    );
}

/// Asserts `src` (with an empty context) gives `want` using less than
/// `max_fuel` fuel units: work that must stay cheap.
#[track_caller]
fn assert_cheap(src: &'static str, want: Value, max_fuel: u64) {
    let (r, fuel) = run_metered(src, serde_json::json!({}));
    assert_eq!(r.ok(), Some(want), "{src}");
    assert!(fuel < max_fuel, "{src}: used {fuel}");
}

// ─── comparisons cost in proportion to what they compare ────────────────────

#[test]
fn equality_of_long_strings_is_charged_per_byte() {
    // 100 comparisons of two distinct 100,000-byte strings: 100 * 100000 / 16.
    assert_costs(
        "let s = \"x\".repeat(100000); let t = \"x\".repeat(100000); \
         range(100).filter(_ => s == t).length",
        serde_json::json!({}),
        600_000,
    );
    assert_costs(
        "let s = \"x\".repeat(100000); let t = \"x\".repeat(100000); \
         range(100).filter(_ => s != t).length",
        serde_json::json!({}),
        600_000,
    );
}

#[test]
fn ordering_of_long_strings_is_charged_per_byte() {
    assert_costs(
        "let s = \"x\".repeat(100000); let t = \"x\".repeat(100000); \
         range(100).filter(_ => s < t || s >= t).length",
        serde_json::json!({}),
        600_000,
    );
}

#[test]
fn equality_of_large_arrays_is_charged_per_element() {
    assert_costs(
        "let a = range(10000); let b = range(10000); \
         range(100).filter(_ => a == b).length",
        serde_json::json!({}),
        1_000_000,
    );
    assert_costs(
        "let a = range(10000).map(i => {k: i}); let b = range(10000).map(i => {k: i}); \
         range(100).filter(_ => a == b).length",
        serde_json::json!({}),
        1_000_000,
    );
}

#[test]
fn comparing_the_same_value_stays_cheap() {
    // Identical values compare by identity: no per-element charge.
    assert_cheap(
        "let a = range(100000); range(100).filter(_ => a == a).length",
        Value::Number(100.0),
        200_000,
    );
}

// ─── string length, string index and object index by a long key ────────────

#[test]
fn length_of_a_long_string_is_charged_per_byte() {
    // `.length` counts characters: 100 reads of 200,000 bytes.
    assert_costs(
        "let s = \"é\".repeat(100000); range(100).map(_ => s.length).length",
        serde_json::json!({}),
        1_200_000,
    );
}

#[test]
fn indexing_far_into_a_string_is_charged_per_byte() {
    // `s[i]` walks i characters: 100 reads 50,000 characters (100,000 bytes) in.
    assert_costs(
        "let s = \"é\".repeat(100000); range(100).map(i => s[i + 50000]).length",
        serde_json::json!({}),
        600_000,
    );
}

#[test]
fn looking_up_a_long_key_is_charged_per_byte() {
    // Hashing the key reads all of it: 100 lookups of a 100,000-byte key.
    for src in [
        "let k = \"x\".repeat(100000); let o = {a: 1, b: 2}; range(100).filter(_ => o[k]).length",
        "let k = \"x\".repeat(100000); let o = {a: 1, b: 2}; range(100).filter(_ => o.has(k)).length",
        "let k = \"x\".repeat(100000); range(100).groupBy(_ => k).keys().length",
        "let k = \"x\".repeat(100000); range(100).keyBy(_ => k).keys().length",
    ] {
        assert_costs(src, serde_json::json!({}), 600_000);
    }
}

// ─── the context is read once per variable and run ───────────────────────────

/// A context that counts how often it is asked for `items`, and for
/// other names (the called `range`: a context variable would win over it).
struct Counting {
    items: Value,
    reads: std::sync::atomic::AtomicU64,
    others: std::sync::atomic::AtomicU64,
}

impl xpr::Context for Counting {
    fn get(&self, name: &str) -> Option<Value> {
        let counter = if name == "items" {
            &self.reads
        } else {
            &self.others
        };
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (name == "items").then(|| self.items.clone())
    }
}

#[test]
fn context_variables_are_read_once_per_run() {
    // A serde_json context converts a field on every read: reading a
    // 100,000-element field in a 10,000-step loop took 16 s of conversions
    // for 60,000 fuel units. Each variable is now read once per run.
    on_small_stack(|| {
        let ctx = Counting {
            items: Value::array((0..1000).map(|i| Value::Number(f64::from(i))).collect()),
            reads: Default::default(),
            others: Default::default(),
        };
        let engine = Engine::new().with_limits(Limits {
            timeout: None,
            ..Limits::default()
        });
        let program = engine
            .compile("range(1000).map(i => items[i] + items.length).sum()")
            .expect("compiles");
        let v = program.run(&ctx).expect("runs");
        assert_eq!(v, Value::Number(499_500.0 + 1_000_000.0));
        assert_eq!(ctx.reads.load(std::sync::atomic::Ordering::Relaxed), 1);
        // A second run reads it again (nothing is kept between runs).
        program.run(&ctx).expect("runs");
        assert_eq!(ctx.reads.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!(ctx.others.load(std::sync::atomic::Ordering::Relaxed), 2);
    });
}

// ─── built-ins reading an argument they did not pay for ──────────────────────

#[test]
fn a_long_padding_string_is_read_only_to_its_first_character() {
    // padStart pads with one character: 100 calls with a 200,000-byte fill
    // read 2 bytes of it each, so they cost about what building it costs.
    assert_cheap(
        "let f = \"é\".repeat(100000); range(100).map(_ => \"x\".padStart(2, f)).join(\"\")",
        Value::from("éx".repeat(100)),
        20_000,
    );
    assert_cheap(
        "let f = \"é\".repeat(100000); range(100).map(_ => \"x\".padEnd(2, f)).join(\"\")",
        Value::from("xé".repeat(100)),
        20_000,
    );
}

#[test]
fn a_long_dynamic_pattern_is_charged_on_every_use() {
    // The regex cache compares the pattern text on every call: 400 calls
    // with a 30,002-byte pattern (a class, so it compiles small).
    assert_costs(
        "let p = \"[\" + \"a\".repeat(30000) + \"]\"; range(400).filter(_ => matches(\"b\", p)).length",
        serde_json::json!({}),
        600_000,
    );
}

// ─── regex compilation stays within memory ───────────────────────────────────

#[test]
fn an_overlong_dynamic_pattern_is_rejected_before_compiling() {
    // The regex crate's parser allocates 100-300 bytes per pattern byte: a
    // 1 MB class pattern reached 315 MB of resident memory while the budget
    // counted 3 MB. Patterns longer than 32 KiB are refused up front.
    let (r, _) = run_metered(
        "let p = \"[\" + \"a\".repeat(100000) + \"]\"; matches(\"b\", p)",
        serde_json::json!({}),
    );
    let e = r.expect_err("an overlong pattern is an error");
    assert_eq!(e.kind(), xpr::ErrorKind::Regex);
    assert!(e.to_string().contains("invalid regex pattern"), "{e}");
    assert!(e.to_string().contains("longer than"), "{e}");
    // At the limit, a pattern still compiles.
    let (r, _) = run_metered(
        "let p = \"[\" + \"a\".repeat(32766) + \"]\"; matches(\"a\", p)",
        serde_json::json!({}),
    );
    assert_eq!(r.ok(), Some(Value::Bool(true)));
}

// ─── deep sources compile on a small stack ───────────────────────────────────

#[test]
fn the_deepest_accepted_sources_compile_on_a_2_mib_stack() {
    // With no AST depth limit (`max_depth: None`, the parser's ceiling),
    // 400 nested arrows overflowed a 2 MiB stack in the compiler (about
    // 5.4 KB of stack per arrow in a debug build, against 3.4 KB for most
    // nodes). Every nesting form, at every depth, must compile or fail with
    // a depth error.
    type Form = fn(usize) -> String;
    let forms: [(&str, Form); 10] = [
        ("arrow", |n| format!("{}x", "x => ".repeat(n))),
        ("arrow with parentheses", |n| {
            format!("{}x", "(x) => ".repeat(n))
        }),
        ("pattern default", |n| {
            format!("{}1{}", "let [a = ".repeat(n), "] = []; a".repeat(n))
        }),
        ("object", |n| {
            format!("{}1{}", "{a: ".repeat(n), "}".repeat(n))
        }),
        ("template", |n| {
            format!("{}1{}", "`${".repeat(n), "}`".repeat(n))
        }),
        ("let value", |n| {
            format!("{}1{}", "let a = ".repeat(n), "; a".repeat(n))
        }),
        ("ternary", |n| {
            format!("{}1{}", "a ? ".repeat(n), " : 2".repeat(n))
        }),
        ("array", |n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ("spread", |n| {
            format!("{}[]{}", "[...".repeat(n), "]".repeat(n))
        }),
        ("negation", |n| format!("{}1", "-".repeat(n))),
    ];
    for (name, form) in forms {
        for n in [100, 200, 300, 390, 400, 500, 999] {
            let src = form(n);
            let outcome = on_small_stack(move || {
                let engine = Engine::new().with_limits(Limits {
                    max_depth: None,
                    max_length: None,
                    ..Limits::default()
                });
                engine.compile(&src).map(|_| ()).map_err(|e| e.kind())
            });
            assert!(
                matches!(outcome, Ok(()) | Err(xpr::ErrorKind::Depth)),
                "{name} x{n}: {outcome:?}"
            );
        }
    }
}

// ─── regex searches that read ahead of their match ───────────────────────────

#[test]
fn bounded_lookahead_of_a_failing_branch_is_charged_per_search() {
    // Each search of `a{1,1000}b|a` over "aaa..." reads up to 1,000 bytes
    // trying the first branch before matching one `a` with the second:
    // 10,000 searches read 10 MB. It cost 20,000 fuel (5e6 characters
    // took 10 s within the default budget); now every later search pays for
    // the bytes it may read ahead, bounded by the pattern's longest match.
    for src in [
        "replacePattern(\"a\".repeat(10000), \"a{1,1000}b|a\", \"\").len()",
        "\"a\".repeat(10000).replace(/\\w{1,1000}b|a/, \"\").len()",
    ] {
        assert_costs(src, serde_json::json!({}), 600_000);
    }
    // An ordinary pattern over the same text stays linear.
    assert_cheap(
        "replacePattern(\"a\".repeat(10000), \"\\\\d{4}|a\", \"\").len()",
        Value::Number(0.0),
        150_000,
    );
}
// ─── native recursion is bounded whatever the configured call depth ─────────

#[test]
fn recursion_through_builtins_stops_before_the_stack_whatever_the_call_depth() {
    // Closure-to-closure calls use VM frames, but a callback called by a
    // built-in (map, sort, reduce...) re-enters the interpreter natively. A
    // host raising `call_depth` to 100,000 let `map` recursion overflow a
    // 2 MiB stack; the native nesting now has its own fixed ceiling.
    let (kind, depth_ok) = on_small_stack(|| {
        let engine = Engine::new().with_limits(Limits {
            call_depth: 100_000,
            fuel: None,
            timeout: None,
            ..Limits::default()
        });
        let src = "let Y = f => (x => f(v => x(x)(v)))(x => f(v => x(x)(v))); \
                   let g = Y(self => n => n == 0 ? 0 : [n].map(m => self(m - 1))[0]); g(5000)";
        let kind = engine.eval(src, &()).map_err(|e| e.kind());
        // Deep closure-to-closure recursion still uses the configured depth.
        let deep = "let Y = f => (x => f(v => x(x)(v)))(x => f(v => x(x)(v))); \
                    let g = Y(self => n => n == 0 ? 0 : self(n - 1)); g(20000)";
        let depth_ok = engine.eval(deep, &()).ok();
        (kind, depth_ok)
    });
    assert_eq!(kind, Err(xpr::ErrorKind::Depth));
    assert_eq!(depth_ok, Some(Value::Number(0.0)));
}

#[test]
fn runs_nested_in_host_functions_share_the_native_ceiling() {
    // A host function may run a program on its own thread (a Python
    // callable evaluating one): each nested run started its native count
    // at zero, so a host function re-entering without end (Python's
    // recursion limit is 1,000) nested runs until the stack overflowed. A
    // nested run now continues its caller's count.
    for src in ["again()", "[1].map(x => again())[0]"] {
        let (kind, reached) = nested_without_end(src);
        assert_eq!(kind, Err(xpr::ErrorKind::Host), "{src}");
        // A host call counts two native levels: the 51st call's run is
        // refused as it starts.
        assert!(reached <= 51, "{src}: {reached} host calls");
    }
}

/// Runs `src`, whose host function `again` runs `src` again, on a 2 MiB
/// thread: the outcome and how many times `again` was called.
fn nested_without_end(src: &'static str) -> (Result<Value, xpr::ErrorKind>, usize) {
    on_small_stack(move || {
        let slot: Arc<OnceLock<xpr::Program>> = Arc::new(OnceLock::new());
        let depth = Arc::new(AtomicUsize::new(0));
        let mut engine = Engine::new();
        let (inner, levels) = (slot.clone(), depth.clone());
        engine
            .register("again", xpr::Arity::Exact(0), move |_| {
                levels.fetch_add(1, Ordering::Relaxed);
                let program = inner.get().expect("compiled");
                program
                    .run(&())
                    .map_err(|e| xpr::HostError::new(e.message().to_string()))
            })
            .expect("registers");
        let _ = slot.set(engine.compile(src).expect("compiles"));
        let kind = slot.get().expect("set").run(&()).map_err(|e| e.kind());
        (kind, depth.load(Ordering::Relaxed))
    })
}

// ─── object rest with a large pattern ────────────────────────────────────────

#[test]
fn object_rest_with_many_named_keys_is_exact() {
    // The rest of a pattern naming 1,500 keys searched the key list once per
    // field (2.4 s of comparisons within the default fuel); it now uses a
    // set. The result must be unchanged.
    let names: Vec<String> = (0..1500).map(|i| format!("k{i}")).collect();
    let src = format!(
        "let o = fromEntries(range(1502).map(i => [\"k\" + string(i), i])); \
         let {{{}, ...r}} = o; [r, k0, k1499]",
        names.join(", ")
    );
    let src: &'static str = Box::leak(src.into_boxed_str());
    let (r, _) = run_metered(src, serde_json::json!({}));
    let v = r.expect("runs");
    let expected = serde_json::json!([{"k1500": 1500, "k1501": 1501}, 0, 1499]);
    assert_eq!(v, Value::from_json(&expected).expect("json"));
}

// ─── compiling a dynamic regex pays for the automaton it builds ─────────────

#[test]
fn compiling_dynamic_patterns_is_charged_for_the_automaton() {
    // A cache miss cost the pattern's bytes in fuel, while compiling takes
    // about 2 us for any pattern, 170 us per `\pL` and 5 us per `(?:a?)`:
    // distinct `\pL` patterns ran 50 us per fuel unit (minutes within the
    // default budget), a million tiny patterns 1.3 s.
    assert_costs(
        "range(1000).map(i => matches(\"b\", string(i))).length",
        serde_json::json!({}),
        64_000,
    );
    assert_costs(
        "range(5).map(i => matches(\"b\", \"\\\\pL\".repeat(10) + string(i))).length",
        serde_json::json!({}),
        150_000,
    );
    assert_costs(
        "range(5).map(i => matches(\"b\", \"(?:a?)\".repeat(1000) + string(i))).length",
        serde_json::json!({}),
        875_000,
    );
    // A pattern rejected for its compiled size works up to the limit first
    // (about 8 ms) and then paid nothing past its text: 6 us per fuel unit.
    let (r, fuel) = run_metered(
        "range(5).map(i => matches(\"b\", \"\\\\pL{29}\" + string(i)))",
        serde_json::json!({}),
    );
    assert!(r.is_err(), "{r:?}");
    assert!(fuel >= 100_000, "used {fuel}");
}

// ─── many small strings count their headers ──────────────────────────────────

#[test]
fn pieces_of_split_and_match_all_count_their_string_headers() {
    // Each piece is its own allocation (a 16-byte `Arc` header before the
    // text); counting only slot and text let a million one-character pieces
    // reach three times the budget in resident memory.
    for src in [
        "\"x\".repeat(100000).split(\"\").length",
        "matchAll(\"x\".repeat(100000), \"x\").length",
        "\"x,\".repeat(100000).split(/,/).length",
    ] {
        let memory = on_small_stack(move || {
            let engine = Engine::new().with_limits(Limits {
                timeout: None,
                ..Limits::default()
            });
            let mut vm = Vm::new();
            let r = engine.compile(src).and_then(|p| p.run_in(&mut vm, &()));
            assert!(r.is_ok(), "{src}: {r:?}");
            vm.peak_memory()
        });
        assert!(memory >= 100_000 * 41, "{src}: counted {memory} bytes");
    }
}

// ─── patterns whose lazy DFA blows up ────────────────────────────────────────

#[test]
fn patterns_that_defeat_the_lazy_dfa_pay_per_byte_like_an_nfa() {
    // `a\w{30}c` over "abab...": the DFA must remember every `a` of the last
    // 30 characters, its cache overflows and the search simulates the NFA
    // at ~200 ns per byte, while it was charged 1/16 fuel per byte (a 1 MB
    // scan: 190 ms for 62,000 fuel units; `\w*a\w{200}c` 1.3 s per MB).
    for p in ["a\\\\w{30}c", "a[ab]{100}c", "a.{30}c"] {
        let src: &'static str = Box::leak(
            format!("let t = \"ab\".repeat(50000); matches(t, \"{p}\")").into_boxed_str(),
        );
        // 100,000 bytes at no less than 3 fuel units per byte.
        assert_costs(src, serde_json::json!({}), 300_000);
    }
    // A counted class that starts the pattern stays a DFA and cheap.
    assert_cheap(
        "let t = \"ab\".repeat(50000); matches(t, \"\\\\d{16}\")",
        Value::Bool(false),
        50_000,
    );
}

#[test]
fn a_start_anchor_after_other_pattern_pays_for_the_slow_scan() {
    // `[a-c1]^` can only fail after the first character, yet the crate scans
    // the whole haystack at ~9 ns per byte, charged 1/16 fuel per byte:
    // 2,000 scans of 200 KB took 1.4 s within the default fuel.
    assert_costs(
        "let t = \"ab \".repeat(33334); range(10).map(_ => matches(t, \"[a-c1]^\")).length",
        serde_json::json!({}),
        450_000,
    );
    // The same for pattern after an end anchor (`\s?$a`: 6 ns per byte).
    assert_costs(
        "let t = \"ab \".repeat(33334); range(10).map(_ => matches(t, \"\\\\s?$a\")).length",
        serde_json::json!({}),
        450_000,
    );
}
