//! Side-by-side criterion benchmarks (issue 7): xpr with fuel on and off,
//! hand-written Rust over a typed struct and over `serde_json::Value` (the
//! limits), and the peers cel (cel-rust), rhai and rune.
//!
//! Every engine compiles once and evaluates many times; every answer is
//! checked before timing. A cell whose engine errs or answers wrongly is not
//! measured (a line `case/engine: NOT MEASURED: ...` goes to stderr and the
//! cell's stale result, if any, is removed), so one unfinished engine never
//! stops the others. Benchmark ids are `case/engine`, read back by the
//! `compare` binary.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value as Json, json};
use xpr_bench::{
    BIND_RECORDS, FlightSource, ITEMS, PIPELINE_RECORDS, PREDICATE, arith_json, arith_typed,
    booking, booking_early_exit, bookings, criterion_dir, filter_map_json, filter_map_typed,
    flights, items, items_json, numbers, person, pipeline_json, pipeline_typed, predicate_json,
    predicate_typed, upper_json, upper_typed,
};

/// Case b in XPR (and, as written, in rhai's and rune's closure syntax below).
#[cfg(feature = "xpr")]
const FILTER_MAP: &str = "items.filter(x => x.price > 50).map(x => x.name)";
/// Case c (identical in XPR, CEL and rhai).
const ARITH: &str = "(a + b) * c - d / e";
/// Case d in XPR.
#[cfg(feature = "xpr")]
const UPPER: &str = r#"(first + " " + last).upper()"#;
/// Case pipeline in XPR.
#[cfg(feature = "xpr")]
const PIPELINE: &str = r#"flights.filter(f => f.delay > 60 && f.distance > 1000).sortBy(f => -f.delay).take(10).map(f => f.origin + "-" + f.destination)"#;

/// Records a cell as not measured: says why on stderr and removes the
/// cell's result of an earlier run, so `compare` shows "-" for it.
fn not_measured(case: &str, engine: &str, why: &str) {
    eprintln!("{case}/{engine}: NOT MEASURED: {why}");
    // Nothing to remove is the common case: ignore the error.
    let _ = std::fs::remove_dir_all(criterion_dir().join(case).join(engine));
}

/// Checks an engine's answer before timing it.
fn verified<T: PartialEq + Debug>(
    case: &str,
    engine: &str,
    got: Result<T, String>,
    want: &T,
) -> bool {
    match got {
        Ok(v) if &v == want => true,
        Ok(v) => {
            not_measured(
                case,
                engine,
                &format!("wrong answer {v:?}, expected {want:?}"),
            );
            false
        }
        Err(e) => {
            not_measured(case, engine, &e);
            false
        }
    }
}

/// Strings of a JSON array, for comparing list answers.
fn strings(v: &[Json]) -> Vec<String> {
    v.iter()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

#[cfg(feature = "xpr")]
mod xpr_side {
    //! xpr: one `Vm` kept across iterations (`Program::run_in`), fuel on
    //! (a budget large enough for every case) and off (`fuel: None`).

    use super::Json;

    /// The fuel budget of the "fuel on" programs: large enough for the
    /// pipeline over 1,000 flights, so metering is on but never runs out.
    pub const FUEL: u64 = 100_000_000;

    /// Engine ids and their engines: `xpr` (fuel on) and `xpr_nofuel`.
    pub fn engines() -> [(&'static str, xpr::Engine); 2] {
        let on = xpr::Limits {
            fuel: Some(FUEL),
            ..xpr::Limits::default()
        };
        let off = xpr::Limits {
            fuel: None,
            ..xpr::Limits::default()
        };
        [
            ("xpr", xpr::Engine::new().with_limits(on)),
            ("xpr_nofuel", xpr::Engine::new().with_limits(off)),
        ]
    }

    /// A native context (an `xpr::Map`) from a JSON object.
    pub fn context(record: &Json) -> xpr::Map {
        match record {
            Json::Object(o) => xpr_bench::to_xpr_map(o),
            _ => xpr::Map::default(),
        }
    }

    /// Compiles `src` and runs it once on `ctx`, for checking.
    pub fn check(
        engine: &xpr::Engine,
        src: &str,
        ctx: &dyn xpr::Context,
    ) -> Result<(xpr::Program, xpr::Value), String> {
        let program = engine.compile(src).map_err(|e| format!("compile: {e}"))?;
        let mut vm = xpr::Vm::new();
        let value = program
            .run_in(&mut vm, ctx)
            .map_err(|e| format!("run: {e}"))?;
        Ok((program, value))
    }
}

mod cel_side {
    //! cel-rust: `Env` + `Program` compiled once, variables bound into a
    //! `Context` (its scope).

    use super::{Arc, HashMap, Json};

    /// The standard environment, plus the strings and lists extensions
    /// (`upperAscii`, `sortBy`, `slice`).
    pub fn env() -> Arc<cel::Env> {
        let mut env = cel::Env::stdlib();
        // Registering each extension once on a fresh environment cannot clash.
        let _ = env.add_extension(cel::extensions::strings);
        let _ = env.add_extension(cel::extensions::lists);
        Arc::new(env)
    }

    /// A JSON value as a CEL value (integers stay `Int`).
    pub fn value(v: &Json) -> cel::Value {
        match v {
            Json::Null => cel::Value::Null,
            Json::Bool(b) => cel::Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => cel::Value::Int(i),
                None => cel::Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => cel::Value::String(Arc::new(s.clone())),
            Json::Array(a) => cel::Value::List(Arc::new(a.iter().map(value).collect())),
            Json::Object(o) => {
                let m: HashMap<String, cel::Value> =
                    o.iter().map(|(k, v)| (k.clone(), value(v))).collect();
                cel::Value::from(m)
            }
        }
    }

    /// Binds every top-level field of `record` into `ctx`.
    pub fn bind(ctx: &mut cel::Context<'_, '_>, record: &Json) {
        if let Json::Object(o) = record {
            for (k, v) in o {
                ctx.add_variable_from_value(k.as_str(), value(v));
            }
        }
    }

    /// A context holding `record`'s fields.
    pub fn context(env: &Arc<cel::Env>, record: &Json) -> cel::Context<'static, 'static> {
        let mut ctx = cel::Context::with_env(Arc::clone(env));
        bind(&mut ctx, record);
        ctx
    }

    /// Compiles `src`.
    pub fn compile(env: &cel::Env, src: &str) -> Result<cel::Program, String> {
        env.compile(src).map_err(|e| format!("compile: {e:?}"))
    }

    /// Runs once, for checking.
    pub fn run(program: &cel::Program, ctx: &cel::Context<'_, '_>) -> Result<cel::Value, String> {
        program.execute(ctx).map_err(|e| format!("run: {e:?}"))
    }

    /// Strings as a CEL list.
    pub fn list(items: &[String]) -> cel::Value {
        cel::Value::List(Arc::new(
            items
                .iter()
                .map(|s| cel::Value::String(Arc::new(s.clone())))
                .collect(),
        ))
    }
}

mod rhai_side {
    //! rhai: one `Engine`, an `AST` compiled once, variables pushed into a
    //! `Scope`.

    use super::Json;

    /// A JSON value as a rhai value (integers stay `INT`).
    pub fn value(v: &Json) -> rhai::Dynamic {
        match v {
            Json::Null => rhai::Dynamic::UNIT,
            Json::Bool(b) => rhai::Dynamic::from_bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => rhai::Dynamic::from_int(i),
                None => rhai::Dynamic::from_float(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => rhai::Dynamic::from(rhai::ImmutableString::from(s.as_str())),
            Json::Array(a) => rhai::Dynamic::from_array(a.iter().map(value).collect()),
            Json::Object(o) => rhai::Dynamic::from_map(
                o.iter()
                    .map(|(k, v)| (k.as_str().into(), value(v)))
                    .collect(),
            ),
        }
    }

    /// Pushes every top-level field of `record` into `scope`.
    pub fn bind(scope: &mut rhai::Scope<'_>, record: &Json) {
        if let Json::Object(o) = record {
            for (k, v) in o {
                scope.push_dynamic(k.as_str(), value(v));
            }
        }
    }

    /// A scope holding `record`'s fields.
    pub fn scope(record: &Json) -> rhai::Scope<'static> {
        let mut scope = rhai::Scope::new();
        bind(&mut scope, record);
        scope
    }

    /// Array answers as strings.
    pub fn strings(a: rhai::Array) -> Result<Vec<String>, String> {
        a.into_iter()
            .map(|d| d.into_string().map_err(|t| format!("not a string: {t}")))
            .collect()
    }
}

mod rune_side {
    //! rune: each case is a `pub fn main(...)` compiled once into a `Unit`;
    //! one `Vm` is kept and called with the record's fields as arguments
    //! (rune has no scope to bind into).

    use super::{Arc, HashMap, Json};

    /// The default modules and their runtime.
    pub fn context() -> Result<(rune::Context, Arc<rune::runtime::RuntimeContext>), String> {
        let context = rune::Context::with_default_modules().map_err(|e| format!("{e:?}"))?;
        let runtime = Arc::new(context.runtime().map_err(|e| format!("{e:?}"))?);
        Ok((context, runtime))
    }

    /// Compiles `src` into a unit.
    pub fn unit(context: &rune::Context, src: &str) -> Result<Arc<rune::Unit>, String> {
        let mut sources = rune::Sources::new();
        let source = rune::Source::memory(src).map_err(|e| format!("{e:?}"))?;
        sources.insert(source).map_err(|e| format!("{e:?}"))?;
        let mut diagnostics = rune::Diagnostics::new();
        let unit = rune::prepare(&mut sources)
            .with_context(context)
            .with_diagnostics(&mut diagnostics)
            .build();
        match unit {
            Ok(unit) => Ok(Arc::new(unit)),
            Err(e) => Err(format!("compile: {e:?}: {:?}", diagnostics.diagnostics())),
        }
    }

    /// A VM for `src` and the hash of its `main`.
    pub fn vm(
        context: &rune::Context,
        runtime: &Arc<rune::runtime::RuntimeContext>,
        src: &str,
    ) -> Result<(rune::Vm, rune::Hash), String> {
        let unit = unit(context, src)?;
        Ok((
            rune::Vm::new(Arc::clone(runtime), unit),
            rune::Hash::type_hash(["main"]),
        ))
    }

    /// A JSON value as a rune value (integers stay `i64`).
    pub fn value(v: &Json) -> Result<rune::Value, String> {
        let r = match v {
            Json::Null => rune::to_value(()),
            Json::Bool(b) => rune::to_value(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => rune::to_value(i),
                None => rune::to_value(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => rune::to_value(s.as_str()),
            Json::Array(a) => {
                let items = a.iter().map(value).collect::<Result<Vec<_>, _>>()?;
                rune::to_value(items)
            }
            Json::Object(o) => {
                let map = o
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), value(v)?)))
                    .collect::<Result<HashMap<String, rune::Value>, String>>()?;
                rune::to_value(map)
            }
        };
        r.map_err(|e| format!("{e:?}"))
    }

    /// Field `name` of `record` as a rune value (unit when absent).
    pub fn field(record: &Json, name: &str) -> Result<rune::Value, String> {
        value(record.get(name).unwrap_or(&Json::Null))
    }
}

/// The criterion settings of every group: short, so that the whole run
/// stays under about ten minutes on a shared 2-core machine.
#[path = "compare/shapes.rs"]
mod shapes;

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .without_plots()
}

/// Case a: the predicate on one record, bound once.
fn case_a(c: &mut Criterion) {
    predicate_on(c, "a", booking());
}

/// Case a_exit: case a on a record where the predicate is decided after two
/// of its four comparisons (`Origin == "MOW"`, `Value >= 100`): what is
/// left of a run is its fixed cost.
fn case_a_exit(c: &mut Criterion) {
    predicate_on(c, "a_exit", booking_early_exit());
}

/// Case a's predicate on one record, by every engine.
fn predicate_on(c: &mut Criterion, case: &'static str, typed: xpr_bench::Booking) {
    let record = typed.to_json();
    let want = predicate_typed(&typed);
    let mut g = c.benchmark_group(case);

    g.bench_function("typed_closure", |b| {
        b.iter(|| predicate_typed(black_box(&typed)))
    });
    if verified(case, "json_closure", Ok(predicate_json(&record)), &want) {
        g.bench_function("json_closure", |b| {
            b.iter(|| predicate_json(black_box(&record)))
        });
    }

    #[cfg(feature = "xpr")]
    for (id, engine) in xpr_side::engines() {
        let ctx = xpr_side::context(&record);
        match xpr_side::check(&engine, PREDICATE, &ctx) {
            Ok((program, got)) => {
                if verified(case, id, Ok(got), &xpr::Value::Bool(want)) {
                    let mut vm = xpr::Vm::new();
                    g.bench_function(id, |b| b.iter(|| program.run_in(&mut vm, black_box(&ctx))));
                    if id == "xpr" && case == "a" {
                        shapes::json_entry_points(&mut g, &program, &record, want);
                    }
                }
            }
            Err(e) => not_measured(case, id, &e),
        }
    }

    let env = cel_side::env();
    let ctx = cel_side::context(&env, &record);
    match cel_side::compile(&env, PREDICATE) {
        Ok(p) => {
            if verified(
                case,
                "cel",
                cel_side::run(&p, &ctx),
                &cel::Value::Bool(want),
            ) {
                g.bench_function("cel", |b| b.iter(|| p.execute(black_box(&ctx))));
            }
        }
        Err(e) => not_measured(case, "cel", &e),
    }

    let engine = rhai::Engine::new();
    let mut scope = rhai_side::scope(&record);
    match engine.compile_expression(PREDICATE) {
        Ok(ast) => {
            let got = engine
                .eval_ast_with_scope::<bool>(&mut scope, &ast)
                .map_err(|e| e.to_string());
            if verified(case, "rhai", got, &want) {
                g.bench_function("rhai", |b| {
                    b.iter(|| engine.eval_ast_with_scope::<bool>(black_box(&mut scope), &ast))
                });
            }
        }
        Err(e) => not_measured(case, "rhai", &e.to_string()),
    }

    let run = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        let (vm, main) = rune_side::vm(&context, &runtime, RUNE_PREDICATE)?;
        let [o, co, v, ad] =
            ["Origin", "Country", "Value", "Adults"].map(|k| rune_side::field(&record, k));
        Ok((vm, main, [o?, co?, v?, ad?]))
    };
    match run() {
        Ok((mut vm, main, [o, co, v, ad])) => {
            let got = vm
                .call(main, (o.clone(), co.clone(), v.clone(), ad.clone()))
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| rune::from_value::<bool>(v).map_err(|e| format!("{e:?}")));
            if verified(case, "rune", got, &want) {
                g.bench_function("rune", |b| {
                    b.iter(|| {
                        vm.call(
                            main,
                            black_box((o.clone(), co.clone(), v.clone(), ad.clone())),
                        )
                    })
                });
            }
        }
        Err(e) => not_measured(case, "rune", &e),
    }
    g.finish();
}

/// Case a in rune: the fields are `main`'s parameters (lower case: rune
/// reads capitalised names as type paths).
const RUNE_PREDICATE: &str = r#"pub fn main(origin, country, value, adults) { (origin == "MOW" || country == "RU") && (value >= 100 || adults == 1) }"#;

/// Case a_bind: case a over 1,024 distinct JSON records, iteration `i`
/// handing record `i % 1024` to the engine.
fn case_a_bind(c: &mut Criterion) {
    const CASE: &str = "a_bind";
    let typed = bookings(BIND_RECORDS);
    let records: Vec<Json> = typed.iter().map(|b| b.to_json()).collect();
    let want: Vec<bool> = typed.iter().map(predicate_typed).collect();
    let next = |i: &mut usize| {
        let at = *i % BIND_RECORDS;
        *i = i.wrapping_add(1);
        at
    };
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        let mut i = 0;
        b.iter(|| predicate_typed(black_box(&typed[next(&mut i)])))
    });
    let got: Vec<bool> = records.iter().map(predicate_json).collect();
    if verified(CASE, "json_closure", Ok(got), &want) {
        g.bench_function("json_closure", |b| {
            let mut i = 0;
            b.iter(|| predicate_json(black_box(&records[next(&mut i)])))
        });
    }

    #[cfg(feature = "xpr")]
    {
        let objects: Vec<&serde_json::Map<String, Json>> =
            records.iter().filter_map(Json::as_object).collect();
        for (id, engine) in xpr_side::engines() {
            let program = match engine.compile(PREDICATE) {
                Ok(p) => p,
                Err(e) => {
                    not_measured(CASE, id, &format!("compile: {e}"));
                    continue;
                }
            };
            let mut vm = xpr::Vm::new();
            let got = objects
                .iter()
                .map(|o| program.run_in(&mut vm, *o))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("run: {e}"));
            let want_x: Vec<xpr::Value> = want.iter().map(|b| xpr::Value::Bool(*b)).collect();
            if verified(CASE, id, got, &want_x) {
                g.bench_function(id, |b| {
                    let mut i = 0;
                    b.iter(|| program.run_in(&mut vm, black_box(objects[next(&mut i)])))
                });
            }
        }
    }

    let env = cel_side::env();
    cel_predicate_per_record(&mut g, CASE, &env, &records, &want, cel_side::bind);

    rhai_predicate_per_record(&mut g, CASE, &records, &want, rhai_side::bind);

    rune_predicate_per_record(&mut g, CASE, &records, &want, |r: &Json| {
        let f = |k: &str| rune_side::field(r, k);
        Ok((f("Origin")?, f("Country")?, f("Value")?, f("Adults")?))
    });
    g.finish();
}

/// Case a's predicate in cel over `records`, one per iteration in turn,
/// each bound into one kept context by `bind`: checked against `want`,
/// then measured.
fn cel_predicate_per_record<R>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &str,
    env: &Arc<cel::Env>,
    records: &[R],
    want: &[bool],
    bind: impl Fn(&mut cel::Context<'_, '_>, &R),
) {
    let p = match cel_side::compile(env, PREDICATE) {
        Ok(p) => p,
        Err(e) => return not_measured(case, "cel", &e),
    };
    let mut ctx = cel::Context::with_env(Arc::clone(env));
    let got = records
        .iter()
        .map(|r| {
            bind(&mut ctx, r);
            cel_side::run(&p, &ctx)
        })
        .collect::<Result<Vec<_>, _>>();
    let want_c: Vec<cel::Value> = want.iter().map(|b| cel::Value::Bool(*b)).collect();
    if verified(case, "cel", got, &want_c) {
        g.bench_function("cel", |b| {
            let mut i = 0usize;
            b.iter(|| {
                let at = i % records.len().max(1);
                i = i.wrapping_add(1);
                bind(&mut ctx, black_box(&records[at]));
                p.execute(&ctx)
            })
        });
    }
}

/// Case a's predicate in rhai over `records`, one per iteration in turn,
/// each pushed into one kept scope (emptied first) by `bind`: checked
/// against `want`, then measured.
fn rhai_predicate_per_record<R>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &str,
    records: &[R],
    want: &[bool],
    bind: impl Fn(&mut rhai::Scope<'_>, &R),
) {
    let engine = rhai::Engine::new();
    let ast = match engine.compile_expression(PREDICATE) {
        Ok(ast) => ast,
        Err(e) => return not_measured(case, "rhai", &e.to_string()),
    };
    let mut scope = rhai::Scope::new();
    let eval = |scope: &mut rhai::Scope<'_>, r: &R| {
        scope.rewind(0);
        bind(scope, r);
        engine.eval_ast_with_scope::<bool>(scope, &ast)
    };
    let got = records
        .iter()
        .map(|r| eval(&mut scope, r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string());
    if verified(case, "rhai", got, &want.to_vec()) {
        g.bench_function("rhai", |b| {
            let mut i = 0usize;
            b.iter(|| {
                let at = i % records.len().max(1);
                i = i.wrapping_add(1);
                eval(&mut scope, black_box(&records[at]))
            })
        });
    }
}

/// Case a's predicate in rune over `records`, one per iteration in turn
/// (record `i % len` at iteration `i`), each turned into `main`'s four
/// arguments by `args`: checked against `want`, then measured.
fn rune_predicate_per_record<R, A>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &str,
    records: &[R],
    want: &[bool],
    args: impl Fn(&R) -> Result<A, String>,
) where
    A: rune::runtime::Args + rune::runtime::GuardedArgs,
{
    let call = |vm: &mut rune::Vm, main: rune::Hash, r: &R| -> Result<bool, String> {
        let v = vm.call(main, args(r)?).map_err(|e| format!("{e:?}"))?;
        rune::from_value::<bool>(v).map_err(|e| format!("{e:?}"))
    };
    let setup = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        rune_side::vm(&context, &runtime, RUNE_PREDICATE)
    };
    match setup() {
        Ok((mut vm, main)) => {
            let got = records
                .iter()
                .map(|r| call(&mut vm, main, r))
                .collect::<Result<Vec<_>, _>>();
            if verified(case, "rune", got, &want.to_vec()) {
                g.bench_function("rune", |b| {
                    let mut i = 0usize;
                    b.iter(|| {
                        let at = i % records.len().max(1);
                        i = i.wrapping_add(1);
                        call(&mut vm, main, black_box(&records[at]))
                    })
                });
            }
        }
        Err(e) => not_measured(case, "rune", &e),
    }
}

/// Case b: filter + map over 100 `{name, price}` records.
fn case_b(c: &mut Criterion) {
    const CASE: &str = "b";
    let typed = items(ITEMS);
    let list = items_json(&typed);
    let record = json!({ "items": list });
    let want: Vec<String> = filter_map_typed(&typed)
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        b.iter(|| filter_map_typed(black_box(&typed)))
    });
    if verified(
        CASE,
        "json_closure",
        Ok(strings(&filter_map_json(&list))),
        &want,
    ) {
        g.bench_function("json_closure", |b| {
            b.iter(|| filter_map_json(black_box(&list)))
        });
    }

    #[cfg(feature = "xpr")]
    for (id, engine) in xpr_side::engines() {
        let ctx = xpr_side::context(&record);
        let want_x = xpr::Value::from(
            want.iter()
                .map(|s| xpr::Value::from(s.as_str()))
                .collect::<Vec<_>>(),
        );
        match xpr_side::check(&engine, FILTER_MAP, &ctx) {
            Ok((program, got)) => {
                if verified(CASE, id, Ok(got), &want_x) {
                    let mut vm = xpr::Vm::new();
                    g.bench_function(id, |b| b.iter(|| program.run_in(&mut vm, black_box(&ctx))));
                }
            }
            Err(e) => not_measured(CASE, id, &e),
        }
    }

    let env = cel_side::env();
    let ctx = cel_side::context(&env, &record);
    match cel_side::compile(&env, "items.filter(x, x.price > 50).map(x, x.name)") {
        Ok(p) => {
            if verified(CASE, "cel", cel_side::run(&p, &ctx), &cel_side::list(&want)) {
                g.bench_function("cel", |b| b.iter(|| p.execute(black_box(&ctx))));
            }
        }
        Err(e) => not_measured(CASE, "cel", &e),
    }

    let engine = rhai::Engine::new();
    let mut scope = rhai_side::scope(&record);
    match engine.compile("items.filter(|x| x.price > 50).map(|x| x.name)") {
        Ok(ast) => {
            let got = engine
                .eval_ast_with_scope::<rhai::Array>(&mut scope, &ast)
                .map_err(|e| e.to_string())
                .and_then(rhai_side::strings);
            if verified(CASE, "rhai", got, &want) {
                g.bench_function("rhai", |b| {
                    b.iter(|| {
                        engine.eval_ast_with_scope::<rhai::Array>(black_box(&mut scope), &ast)
                    })
                });
            }
        }
        Err(e) => not_measured(CASE, "rhai", &e.to_string()),
    }

    let setup = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        let (vm, main) = rune_side::vm(
            &context,
            &runtime,
            "pub fn main(items) { items.iter().filter(|x| x.price > 50).map(|x| x.name).collect::<Vec>() }",
        )?;
        Ok((vm, main, rune_side::value(&list)?))
    };
    match setup() {
        Ok((mut vm, main, arg)) => {
            let got = vm
                .call(main, (arg.clone(),))
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| rune::from_value::<Vec<String>>(v).map_err(|e| format!("{e:?}")));
            if verified(CASE, "rune", got, &want) {
                g.bench_function("rune", |b| {
                    b.iter(|| vm.call(main, black_box((arg.clone(),))))
                });
            }
        }
        Err(e) => not_measured(CASE, "rune", &e),
    }
    g.finish();
}

/// Case c: arithmetic on five numbers (doubles in every engine).
fn case_c(c: &mut Criterion) {
    const CASE: &str = "c";
    let typed = numbers();
    let record = typed.to_json();
    let want = arith_typed(&typed);
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        b.iter(|| arith_typed(black_box(&typed)))
    });
    if verified(CASE, "json_closure", Ok(arith_json(&record)), &want) {
        g.bench_function("json_closure", |b| {
            b.iter(|| arith_json(black_box(&record)))
        });
    }

    #[cfg(feature = "xpr")]
    for (id, engine) in xpr_side::engines() {
        let ctx = xpr_side::context(&record);
        match xpr_side::check(&engine, ARITH, &ctx) {
            Ok((program, got)) => {
                if verified(CASE, id, Ok(got), &xpr::Value::Number(want)) {
                    let mut vm = xpr::Vm::new();
                    g.bench_function(id, |b| b.iter(|| program.run_in(&mut vm, black_box(&ctx))));
                }
            }
            Err(e) => not_measured(CASE, id, &e),
        }
    }

    let env = cel_side::env();
    let ctx = cel_side::context(&env, &record);
    match cel_side::compile(&env, ARITH) {
        Ok(p) => {
            if verified(
                CASE,
                "cel",
                cel_side::run(&p, &ctx),
                &cel::Value::Float(want),
            ) {
                g.bench_function("cel", |b| b.iter(|| p.execute(black_box(&ctx))));
            }
        }
        Err(e) => not_measured(CASE, "cel", &e),
    }

    let engine = rhai::Engine::new();
    let mut scope = rhai_side::scope(&record);
    match engine.compile_expression(ARITH) {
        Ok(ast) => {
            let got = engine
                .eval_ast_with_scope::<f64>(&mut scope, &ast)
                .map_err(|e| e.to_string());
            if verified(CASE, "rhai", got, &want) {
                g.bench_function("rhai", |b| {
                    b.iter(|| engine.eval_ast_with_scope::<f64>(black_box(&mut scope), &ast))
                });
            }
        }
        Err(e) => not_measured(CASE, "rhai", &e.to_string()),
    }

    let setup = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        let (vm, main) = rune_side::vm(
            &context,
            &runtime,
            "pub fn main(a, b, c, d, e) { (a + b) * c - d / e }",
        )?;
        let f = |k: &str| rune_side::field(&record, k);
        Ok((vm, main, [f("a")?, f("b")?, f("c")?, f("d")?, f("e")?]))
    };
    match setup() {
        Ok((mut vm, main, [a, b_, c_, d, e])) => {
            let args = || (a.clone(), b_.clone(), c_.clone(), d.clone(), e.clone());
            let got = vm
                .call(main, args())
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| rune::from_value::<f64>(v).map_err(|e| format!("{e:?}")));
            if verified(CASE, "rune", got, &want) {
                g.bench_function("rune", |b| b.iter(|| vm.call(main, black_box(args()))));
            }
        }
        Err(e) => not_measured(CASE, "rune", &e),
    }
    shapes::number_only_peers(&mut g, &typed, want);
    g.finish();
}

/// Case d: string concatenation and upper-casing (each engine's closest
/// method: XPR `upper`, CEL `upperAscii`, rhai `to_upper`, rune
/// `to_uppercase`).
fn case_d(c: &mut Criterion) {
    const CASE: &str = "d";
    let typed = person();
    let record = typed.to_json();
    let want = upper_typed(&typed);
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        b.iter(|| upper_typed(black_box(&typed)))
    });
    if verified(CASE, "json_closure", Ok(upper_json(&record)), &want) {
        g.bench_function("json_closure", |b| {
            b.iter(|| upper_json(black_box(&record)))
        });
    }

    #[cfg(feature = "xpr")]
    for (id, engine) in xpr_side::engines() {
        let ctx = xpr_side::context(&record);
        match xpr_side::check(&engine, UPPER, &ctx) {
            Ok((program, got)) => {
                if verified(CASE, id, Ok(got), &xpr::Value::from(want.as_str())) {
                    let mut vm = xpr::Vm::new();
                    g.bench_function(id, |b| b.iter(|| program.run_in(&mut vm, black_box(&ctx))));
                }
            }
            Err(e) => not_measured(CASE, id, &e),
        }
    }

    let env = cel_side::env();
    let ctx = cel_side::context(&env, &record);
    match cel_side::compile(&env, r#"(first + " " + last).upperAscii()"#) {
        Ok(p) => {
            if verified(
                CASE,
                "cel",
                cel_side::run(&p, &ctx),
                &cel::Value::from(want.as_str()),
            ) {
                g.bench_function("cel", |b| b.iter(|| p.execute(black_box(&ctx))));
            }
        }
        Err(e) => not_measured(CASE, "cel", &e),
    }

    let engine = rhai::Engine::new();
    let mut scope = rhai_side::scope(&record);
    match engine.compile_expression(r#"(first + " " + last).to_upper()"#) {
        Ok(ast) => {
            let got = engine
                .eval_ast_with_scope::<rhai::ImmutableString>(&mut scope, &ast)
                .map(|s| s.to_string())
                .map_err(|e| e.to_string());
            if verified(CASE, "rhai", got, &want) {
                g.bench_function("rhai", |b| {
                    b.iter(|| {
                        engine.eval_ast_with_scope::<rhai::ImmutableString>(
                            black_box(&mut scope),
                            &ast,
                        )
                    })
                });
            }
        }
        Err(e) => not_measured(CASE, "rhai", &e.to_string()),
    }

    let setup = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        let (vm, main) = rune_side::vm(
            &context,
            &runtime,
            r#"pub fn main(first, last) { (first + " " + last).to_uppercase() }"#,
        )?;
        let f = |k: &str| rune_side::field(&record, k);
        Ok((vm, main, f("first")?, f("last")?))
    };
    match setup() {
        Ok((mut vm, main, first, last)) => {
            let got = vm
                .call(main, (first.clone(), last.clone()))
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| rune::from_value::<String>(v).map_err(|e| format!("{e:?}")));
            if verified(CASE, "rune", got, &want) {
                g.bench_function("rune", |b| {
                    b.iter(|| vm.call(main, black_box((first.clone(), last.clone()))))
                });
            }
        }
        Err(e) => not_measured(CASE, "rune", &e),
    }
    g.finish();
}

/// Case compile: compiling case a (rune: the whole `main` function).
fn case_compile(c: &mut Criterion) {
    const CASE: &str = "compile";
    let mut g = c.benchmark_group(CASE);

    #[cfg(feature = "xpr")]
    {
        let engine = xpr::Engine::new();
        match engine.compile(PREDICATE) {
            Ok(_) => {
                g.bench_function("xpr", |b| b.iter(|| engine.compile(black_box(PREDICATE))));
            }
            Err(e) => not_measured(CASE, "xpr", &format!("compile: {e}")),
        }
    }

    let env = cel_side::env();
    match cel_side::compile(&env, PREDICATE) {
        Ok(_) => {
            g.bench_function("cel", |b| b.iter(|| env.compile(black_box(PREDICATE))));
        }
        Err(e) => not_measured(CASE, "cel", &e),
    }

    let engine = rhai::Engine::new();
    match engine.compile_expression(PREDICATE) {
        Ok(_) => {
            g.bench_function("rhai", |b| {
                b.iter(|| engine.compile_expression(black_box(PREDICATE)))
            });
        }
        Err(e) => not_measured(CASE, "rhai", &e.to_string()),
    }

    match rune_side::context() {
        Ok((context, _)) => match rune_side::unit(&context, RUNE_PREDICATE) {
            Ok(_) => {
                g.bench_function("rune", |b| {
                    b.iter(|| rune_side::unit(&context, black_box(RUNE_PREDICATE)))
                });
            }
            Err(e) => not_measured(CASE, "rune", &e),
        },
        Err(e) => not_measured(CASE, "rune", &e),
    }
    g.finish();
}

/// Case pipeline: filter + sortBy (latest first, stable) + take 10 + map to
/// `"ORIGIN-DESTINATION"`, over one array of 1,000 flights.
fn case_pipeline(c: &mut Criterion) {
    const CASE: &str = "pipeline";
    let (typed, source) = flights(PIPELINE_RECORDS);
    if source == FlightSource::Generated {
        eprintln!("pipeline: flights-20k.ndjson not found; using generated flights");
    }
    let list = Json::Array(typed.iter().map(xpr_bench::Flight::to_json).collect());
    let record = json!({ "flights": list });
    let want = pipeline_typed(&typed);
    let mut g = c.benchmark_group(CASE);

    g.bench_function("typed_closure", |b| {
        b.iter(|| pipeline_typed(black_box(&typed)))
    });
    if verified(
        CASE,
        "json_closure",
        Ok(strings(&pipeline_json(&list))),
        &want,
    ) {
        g.bench_function("json_closure", |b| {
            b.iter(|| pipeline_json(black_box(&list)))
        });
    }

    #[cfg(feature = "xpr")]
    for (id, engine) in xpr_side::engines() {
        let ctx = xpr_side::context(&record);
        let want_x = xpr::Value::from(
            want.iter()
                .map(|s| xpr::Value::from(s.as_str()))
                .collect::<Vec<_>>(),
        );
        match xpr_side::check(&engine, PIPELINE, &ctx) {
            Ok((program, got)) => {
                if verified(CASE, id, Ok(got), &want_x) {
                    let mut vm = xpr::Vm::new();
                    g.bench_function(id, |b| b.iter(|| program.run_in(&mut vm, black_box(&ctx))));
                }
            }
            Err(e) => not_measured(CASE, id, &e),
        }
    }

    let env = cel_side::env();
    let ctx = cel_side::context(&env, &record);
    let src = r#"flights.filter(f, f.delay > 60 && f.distance > 1000).sortBy(f, -f.delay).slice(0, 10).map(f, f.origin + "-" + f.destination)"#;
    match cel_side::compile(&env, src) {
        Ok(p) => {
            if verified(CASE, "cel", cel_side::run(&p, &ctx), &cel_side::list(&want)) {
                g.bench_function("cel", |b| b.iter(|| p.execute(black_box(&ctx))));
            }
        }
        Err(e) => not_measured(CASE, "cel", &e),
    }

    let engine = rhai::Engine::new();
    let mut scope = rhai_side::scope(&record);
    let src = r#"
        let late = flights.filter(|f| f.delay > 60 && f.distance > 1000);
        late.sort(|a, b| b.delay - a.delay);
        late.extract(0, 10).map(|f| f.origin + "-" + f.destination)
    "#;
    match engine.compile(src) {
        Ok(ast) => {
            let got = engine
                .eval_ast_with_scope::<rhai::Array>(&mut scope, &ast)
                .map_err(|e| e.to_string())
                .and_then(rhai_side::strings);
            if verified(CASE, "rhai", got, &want) {
                g.bench_function("rhai", |b| {
                    b.iter(|| {
                        engine.eval_ast_with_scope::<rhai::Array>(black_box(&mut scope), &ast)
                    })
                });
            }
        }
        Err(e) => not_measured(CASE, "rhai", &e.to_string()),
    }

    let setup = || -> Result<_, String> {
        let (context, runtime) = rune_side::context()?;
        let (vm, main) = rune_side::vm(
            &context,
            &runtime,
            r#"
            use std::ops::cmp;
            pub fn main(flights) {
                let late = flights.iter().filter(|f| f.delay > 60 && f.distance > 1000).collect::<Vec>();
                late.sort_by(|a, b| cmp(b.delay, a.delay));
                late.iter().take(10).map(|f| f.origin + "-" + f.destination).collect::<Vec>()
            }
            "#,
        )?;
        Ok((vm, main, rune_side::value(&list)?))
    };
    match setup() {
        Ok((mut vm, main, arg)) => {
            let got = vm
                .call(main, (arg.clone(),))
                .map_err(|e| format!("{e:?}"))
                .and_then(|v| rune::from_value::<Vec<String>>(v).map_err(|e| format!("{e:?}")));
            if verified(CASE, "rune", got, &want) {
                g.bench_function("rune", |b| {
                    b.iter(|| vm.call(main, black_box((arg.clone(),))))
                });
            }
        }
        Err(e) => not_measured(CASE, "rune", &e),
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = case_a, case_a_exit, case_a_bind, shapes::case_a_typed, case_b, case_c, case_d, case_compile, case_pipeline
}
criterion_main!(benches);
