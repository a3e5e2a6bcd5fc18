//! Helpers for the fuzz targets: a generator of well-formed expressions and
//! a runner with small budgets.

pub mod generate;

use std::sync::OnceLock;

/// Budgets small enough that every run ends in milliseconds.
pub fn small_engine() -> &'static xpr::Engine {
    static ENGINE: OnceLock<xpr::Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let limits = xpr::Limits {
            fuel: Some(200_000),
            memory: Some(4 << 20),
            timeout: None,
            max_length: Some(20_000),
            ..xpr::Limits::default()
        };
        xpr::Engine::new().with_limits(limits).with_seed(Some(1))
    })
}

/// The context every generated expression runs against.
pub fn context() -> &'static xpr::Value {
    static CONTEXT: OnceLock<xpr::Value> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        let json = serde_json::json!({
            "n": 7,
            "x": -2.5,
            "s": "héllo wörld 😀",
            "b": true,
            "z": null,
            "xs": [3, 1, 2, 10, -4],
            "ss": ["b", "a", "c"],
            "o": {"a": 1, "b": {"c": [1, 2]}, "__proto__": 5},
            "items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}],
            "t": 1705320000000u64,
            // Long strings: search, comparison, copies and date formats
            // over data the run did not build (and was not charged for).
            "big": "x".repeat(1 << 20),
            "bigu": "é😀a".repeat(1 << 16),
            "lines": "line one\nfoo bar baz\r\n".repeat(1 << 14),
            "bigs": (0..8).map(|i| format!("{}{i}", "y".repeat(1 << 16))).collect::<Vec<_>>(),
            "fmt": "yyyy-MM-dd HH:mm:ss.SSS ".repeat(1 << 12)
        });
        xpr::Value::from_json(&json).unwrap_or(xpr::Value::Null)
    })
}

/// Compiles and runs `src` with small budgets; panics only on a broken
/// guarantee (memory counted beyond the budget).
pub fn run_small(src: &str) {
    let engine = small_engine();
    let Ok(program) = engine.compile(src) else {
        return;
    };
    let mut vm = xpr::Vm::new();
    let _ = program.run_in(&mut vm, context());
    let limit = engine.limits().memory.unwrap_or(u64::MAX);
    assert!(
        vm.peak_memory() <= limit,
        "memory budget exceeded by {src:?}"
    );
}
