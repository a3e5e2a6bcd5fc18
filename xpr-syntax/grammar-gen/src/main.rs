//! Regenerates `xpr-syntax/src/grammar_generated.rs` from
//! `xpr-syntax/src/grammar.lalrpop` (run it after changing the grammar):
//!
//! ```sh
//! cargo run --manifest-path xpr-syntax/grammar-gen/Cargo.toml
//! ```
//!
//! The parser is committed so that building and testing xpr never compiles
//! LALRPOP. Its first line records an FNV-1a hash of the grammar it was
//! made from; a test in xpr-syntax (`generated_parser_matches_the_grammar`)
//! fails when the grammar has changed since.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod fnv;

use fnv::fnv1a64;

fn main() -> ExitCode {
    let src: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let grammar = src.join("grammar.lalrpop");
    let out = src.join("grammar.rs");
    let target = src.join("grammar_generated.rs");
    let text = match std::fs::read(&grammar) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", grammar.display());
            return ExitCode::FAILURE;
        }
    };
    let result = lalrpop::Configuration::new()
        .force_build(true)
        .process_file(&grammar);
    if let Err(e) = result {
        eprintln!("grammar generation failed: {e}");
        return ExitCode::FAILURE;
    }
    let generated = match std::fs::read_to_string(&out) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("cannot read the generated {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
    };
    let _ = std::fs::remove_file(&out);
    let header = format!(
        "// grammar.lalrpop fnv1a64: {:016x} (regenerate: cargo run --manifest-path xpr-syntax/grammar-gen/Cargo.toml)\n",
        fnv1a64(&text)
    );
    if let Err(e) = std::fs::write(&target, header + &generated) {
        eprintln!("cannot write {}: {e}", target.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", target.display());
    ExitCode::SUCCESS
}
