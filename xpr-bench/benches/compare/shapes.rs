//! Shapes of issue 21 beyond the engines' own cases: typed binding
//! (`case_a_typed`), the JSON entry points beside `run_in` with a kept VM
//! (`json_entry_points`), and the number-only evaluators beside case c
//! (`number_only_peers`).
//!
//! Case a_typed: case a over 1,024 typed `Booking` structs, each engine
//! binding the four fields from the struct for every record, the way a host
//! with typed data calls it (issue 21's "binding host data").
//!
//! - `xpr`, `xpr_nofuel`: the struct itself is the context
//!   (`#[derive(xpr::Context)]`): fields are read by name when the program
//!   reads them, strings lent;
//! - `xpr_map`: an `xpr::Map` built from the struct for each record, as a
//!   host without the derive would bind it;
//! - cel, rhai, rune: their own values built from the struct's fields.

use std::sync::Arc;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion};
use std::hint::black_box;
use xpr_bench::{BIND_RECORDS, Booking, PREDICATE, bookings, predicate_typed};

use super::{cel_side, not_measured, verified};

/// The record index of iteration `i` (and the next one's).
fn next(i: &mut usize) -> usize {
    let at = *i % BIND_RECORDS;
    *i = i.wrapping_add(1);
    at
}

/// A booking as an `xpr::Map`, field by field.
#[cfg(feature = "xpr")]
fn to_map(b: &Booking) -> xpr::Map {
    let mut m = xpr::Map::default();
    m.insert("Origin".into(), xpr::Value::from(b.origin.as_str()));
    m.insert("Country".into(), xpr::Value::from(b.country.as_str()));
    m.insert("Value".into(), xpr::Value::Number(b.value as f64));
    m.insert("Adults".into(), xpr::Value::Number(b.adults as f64));
    m
}

pub fn case_a_typed(c: &mut Criterion) {
    const CASE: &str = "a_typed";
    let typed = bookings(BIND_RECORDS);
    let want: Vec<bool> = typed.iter().map(predicate_typed).collect();
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        let mut i = 0;
        b.iter(|| predicate_typed(black_box(&typed[next(&mut i)])))
    });

    #[cfg(feature = "xpr")]
    for (id, engine) in super::xpr_side::engines() {
        let want_x: Vec<xpr::Value> = want.iter().map(|b| xpr::Value::Bool(*b)).collect();
        let Ok(program) = engine.compile(PREDICATE) else {
            not_measured(CASE, id, "compile");
            continue;
        };
        let mut vm = xpr::Vm::new();
        let got = typed
            .iter()
            .map(|b| program.run_in(&mut vm, b))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string());
        if verified(CASE, id, got, &want_x) {
            g.bench_function(id, |b| {
                let mut i = 0;
                b.iter(|| program.run_in(&mut vm, black_box(&typed[next(&mut i)])))
            });
        }
        if id == "xpr" {
            let got = typed
                .iter()
                .map(|b| program.run_in(&mut vm, &to_map(b)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string());
            if verified(CASE, "xpr_map", got, &want_x) {
                g.bench_function("xpr_map", |b| {
                    let mut i = 0;
                    b.iter(|| {
                        let ctx = to_map(black_box(&typed[next(&mut i)]));
                        program.run_in(&mut vm, &ctx)
                    })
                });
            }
        }
    }

    let env = cel_side::env();
    let bind = |ctx: &mut cel::Context<'_, '_>, b: &Booking| {
        ctx.add_variable_from_value("Origin", cel::Value::String(Arc::new(b.origin.clone())));
        ctx.add_variable_from_value("Country", cel::Value::String(Arc::new(b.country.clone())));
        ctx.add_variable_from_value("Value", cel::Value::Int(b.value));
        ctx.add_variable_from_value("Adults", cel::Value::Int(b.adults));
    };
    super::cel_predicate_per_record(&mut g, CASE, &env, &typed, &want, bind);

    let bind = |scope: &mut rhai::Scope<'_>, b: &Booking| {
        scope.push("Origin", rhai::ImmutableString::from(b.origin.as_str()));
        scope.push("Country", rhai::ImmutableString::from(b.country.as_str()));
        scope.push("Value", b.value);
        scope.push("Adults", b.adults);
    };
    super::rhai_predicate_per_record(&mut g, CASE, &typed, &want, bind);

    super::rune_predicate_per_record(&mut g, CASE, &typed, &want, |b: &Booking| {
        let s = |s: &str| rune::to_value(s.to_string()).map_err(|e| format!("{e:?}"));
        Ok((s(&b.origin)?, s(&b.country)?, b.value, b.adults))
    });
    g.finish();
}

/// Case a's record as `serde_json`, through the entry points a host with
/// JSON would use: `run_in` with a kept VM and the `serde_json` map as the
/// context (`xpr_json_in`), and `run_json` (`xpr_run_json`: the VM is the
/// thread's own).
#[cfg(feature = "xpr")]
pub fn json_entry_points(
    g: &mut BenchmarkGroup<'_, WallTime>,
    program: &xpr::Program,
    record: &serde_json::Value,
    want: bool,
) {
    let Some(map) = record.as_object() else {
        return not_measured("a", "xpr_json_in", "the record is no object");
    };
    let mut vm = xpr::Vm::new();
    let want = xpr::Value::Bool(want);
    let got = program.run_in(&mut vm, map).map_err(|e| e.to_string());
    if verified("a", "xpr_json_in", got, &want) {
        g.bench_function("xpr_json_in", |b| {
            b.iter(|| program.run_in(&mut vm, black_box(map)))
        });
    }
    let got = program.run_json(record).map_err(|e| e.to_string());
    if verified("a", "xpr_run_json", got, &want) {
        g.bench_function("xpr_run_json", |b| {
            b.iter(|| program.run_json(black_box(record)))
        });
    }
}

/// exmex and fasteval on case c: they evaluate numbers only (no strings,
/// no collections, no budgets), which is why the floor lets them be up to
/// 1.5x faster than xpr. Both compile once; the variables are handed over
/// per evaluation (exmex: a slice in the order of its variable names;
/// fasteval: a callback naming them).
pub fn number_only_peers(g: &mut BenchmarkGroup<'_, WallTime>, n: &xpr_bench::Numbers, want: f64) {
    use exmex::Express;
    const CASE: &str = "c";
    const ARITH: &str = "(a + b) * c - d / e";
    // exmex reads `e` as Euler's number: its fifth variable is `v`.
    match exmex::FlatEx::<f64>::parse("(a + b) * c - d / v") {
        Ok(expr) => {
            // The values in the order of exmex's variable names.
            let vars: Vec<f64> = expr
                .var_names()
                .iter()
                .map(|name| match name.as_str() {
                    "a" => n.a,
                    "b" => n.b,
                    "c" => n.c,
                    "d" => n.d,
                    "v" => n.e,
                    _ => f64::NAN,
                })
                .collect();
            let got = expr.eval(&vars).map_err(|e| e.to_string());
            if verified(CASE, "exmex", got, &want) {
                g.bench_function("exmex", |b| b.iter(|| expr.eval(black_box(&vars))));
            }
        }
        Err(e) => not_measured(CASE, "exmex", &e.to_string()),
    }

    let mut slab = fasteval::Slab::new();
    let parsed = fasteval::Parser::new().parse(ARITH, &mut slab.ps).map(|e| {
        use fasteval::Compiler;
        e.from(&slab.ps).compile(&slab.ps, &mut slab.cs)
    });
    match parsed {
        Ok(compiled) => {
            use fasteval::Evaler;
            let mut names = |name: &str, _: Vec<f64>| -> Option<f64> {
                match name {
                    "a" => Some(n.a),
                    "b" => Some(n.b),
                    "c" => Some(n.c),
                    "d" => Some(n.d),
                    "e" => Some(n.e),
                    _ => None,
                }
            };
            let got = compiled.eval(&slab, &mut names).map_err(|e| e.to_string());
            if verified(CASE, "fasteval", got, &want) {
                g.bench_function("fasteval", |b| {
                    b.iter(|| compiled.eval(black_box(&slab), &mut names))
                });
            }
        }
        Err(e) => not_measured(CASE, "fasteval", &e.to_string()),
    }
}
