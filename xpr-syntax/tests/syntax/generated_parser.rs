//! The committed parser (`src/grammar_generated.rs`) was generated from
//! the grammar as it is now: its first line records an FNV-1a hash of
//! `src/grammar.lalrpop`, written by `xpr-syntax/grammar-gen`.

#[path = "../../grammar-gen/src/fnv.rs"]
mod fnv;

use fnv::fnv1a64;

#[test]
fn generated_parser_matches_the_grammar() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let grammar = std::fs::read(dir.join("grammar.lalrpop")).expect("grammar");
    let generated = std::fs::read_to_string(dir.join("grammar_generated.rs")).expect("parser");
    let first = generated.lines().next().unwrap_or_default();
    let want = format!("// grammar.lalrpop fnv1a64: {:016x} ", fnv1a64(&grammar));
    assert!(
        first.starts_with(&want),
        "src/grammar_generated.rs is stale (its first line is {first:?}, the grammar's hash \
         line would start {want:?}): regenerate it with \
         `cargo run --manifest-path xpr-syntax/grammar-gen/Cargo.toml`"
    );
}
