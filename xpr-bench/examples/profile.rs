//! A small driver for profilers (callgrind, perf): runs one benchmark case
//! of xpr N times on a kept `Vm`, exactly as `benches/compare.rs` does.
//!
//! ```text
//! cargo build --release -p xpr-bench --example profile
//! valgrind --tool=callgrind target/release/examples/profile a 100000 [nofuel]
//! ```
//!
//! Cases: `a`, `a_exit`, `a_bind`, `a_typed`, `b`, `c`, `d`, `compile`, `pipeline`;
//! `json_in` and `run_json` (case a's record as `serde_json` through
//! `run_in` and `run_json`); `json_closure` and `json_closure_exit` (the
//! hand-written `serde_json` closure of case a and a_exit, the reference
//! the issue's floors name). `XPR_PROFILE_EXPR=...` runs that expression
//! over the case's record instead of the case's own. Dividing the
//! instruction count of N runs minus that of 0 runs by N gives the cost of
//! one evaluation in instructions.

use std::hint::black_box;

use serde_json::Value as Json;
use xpr_bench::{
    BIND_RECORDS, PREDICATE, booking, booking_early_exit, bookings, flights, items, items_json,
    numbers, person,
};

const FILTER_MAP: &str = "items.filter(x => x.price > 50).map(x => x.name)";
const ARITH: &str = "(a + b) * c - d / e";
const UPPER: &str = r#"(first + " " + last).upper()"#;
const PIPELINE: &str = r#"flights.filter(f => f.delay > 60 && f.distance > 1000).sortBy(f => -f.delay).take(10).map(f => f.origin + "-" + f.destination)"#;

fn map(record: &Json) -> xpr::Map {
    match record {
        Json::Object(o) => xpr_bench::to_xpr_map(o),
        _ => xpr::Map::default(),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "a".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let fuel = if args.next().as_deref() == Some("nofuel") {
        None
    } else {
        Some(100_000_000)
    };
    let engine = xpr::Engine::new().with_limits(xpr::Limits {
        fuel,
        ..xpr::Limits::default()
    });
    let mut vm = xpr::Vm::new();
    let (src, record) = match case.as_str() {
        "json_closure" | "json_closure_exit" => {
            let record = if case == "json_closure" {
                booking().to_json()
            } else {
                booking_early_exit().to_json()
            };
            for _ in 0..n {
                black_box(xpr_bench::predicate_json(black_box(&record)));
            }
            return;
        }
        "a" | "a_bind" | "a_typed" | "compile" | "json_in" | "run_json" => {
            (PREDICATE, booking().to_json())
        }
        "a_exit" => (PREDICATE, booking_early_exit().to_json()),
        "b" => (
            FILTER_MAP,
            serde_json::json!({ "items": items_json(&items(100)) }),
        ),
        "c" => (ARITH, numbers().to_json()),
        "d" => (UPPER, person().to_json()),
        "pipeline" => {
            let (f, _) = flights(1000);
            let all: Vec<Json> = f.iter().map(|f| f.to_json()).collect();
            (PIPELINE, serde_json::json!({ "flights": all }))
        }
        other => {
            eprintln!("unknown case {other}");
            std::process::exit(2);
        }
    };
    // Another expression over the case's record, to isolate a cost.
    let own = std::env::var("XPR_PROFILE_EXPR").ok();
    let src = own.as_deref().unwrap_or(src);
    if case == "compile" {
        for _ in 0..n {
            black_box(engine.compile(black_box(src)).is_ok());
        }
        return;
    }
    let program = match engine.compile(src) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("compile: {e}");
            std::process::exit(1);
        }
    };
    if case == "a_bind" {
        let records: Vec<Json> = bookings(BIND_RECORDS).iter().map(|b| b.to_json()).collect();
        let objects: Vec<&serde_json::Map<String, Json>> =
            records.iter().filter_map(Json::as_object).collect();
        for i in 0..n {
            if let Some(o) = objects.get(i % objects.len().max(1)) {
                black_box(program.run_in(&mut vm, *o).is_ok());
            }
        }
        return;
    }
    if case == "json_in" || case == "run_json" {
        let Some(object) = record.as_object() else {
            return;
        };
        for _ in 0..n {
            if case == "json_in" {
                black_box(program.run_in(&mut vm, black_box(object)).is_ok());
            } else {
                black_box(program.run_json(black_box(&record)).is_ok());
            }
        }
        return;
    }
    if case == "a_typed" {
        let typed = bookings(BIND_RECORDS);
        for i in 0..n {
            black_box(program.run_in(&mut vm, &typed[i % typed.len()]).is_ok());
        }
        return;
    }
    let ctx = map(&record);
    match program.run_in(&mut vm, &ctx) {
        Ok(v) => eprintln!("{case}: {}", xpr::to_json_string(&v).unwrap_or_default()),
        Err(e) => eprintln!("{case}: error {e}"),
    }
    for _ in 1..n {
        black_box(program.run_in(&mut vm, black_box(&ctx)).is_ok());
    }
}
