//! Loading a stored program against compiling its source, for the README's
//! "Stored programs" figures: three expressions, each compiled and loaded
//! 20,000 times a round, the best of 5 rounds, one line each.
//!
//! `cargo run --release -p xpr --example stored_timing`

use std::hint::black_box;
use std::time::Instant;

const SOURCES: [(&str, &str); 3] = [
    ("rule", r#"total > 500 && status == "paid""#),
    (
        "pipeline",
        "items.filter(x => x.price > 50 && x.tags.includes('sale')).map(x => ({name: x.name, \
         net: round(x.price * (1 - (discount ?? 0)), 2)})).sortBy(x => -x.net).take(10)",
    ),
    (
        "regex",
        r#"email.matches(/^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i) && phone.matches(/^[0-9 +()-]{10,}$/)"#,
    ),
];

fn main() -> Result<(), xpr::Error> {
    let engine = xpr::Engine::new();
    let n = 20_000u32;
    for (name, src) in SOURCES {
        let bytes = engine.compile(src)?.to_bytes();
        let (mut compile, mut load) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..n {
                black_box(engine.compile(black_box(src))?);
            }
            compile = compile.min(t.elapsed().as_secs_f64() / f64::from(n));
            let t = Instant::now();
            for _ in 0..n {
                black_box(engine.load(black_box(&bytes))?);
            }
            load = load.min(t.elapsed().as_secs_f64() / f64::from(n));
        }
        println!(
            "{name}: {} characters, {} bytes stored, compile {:.1} us, load {:.1} us ({:.1}x)",
            src.chars().count(),
            bytes.len(),
            compile * 1e6,
            load * 1e6,
            compile / load
        );
    }
    Ok(())
}
