//! Fuzz target: any text through the parser (and the printer round trip
//! for what parses). Must never panic or overflow the stack.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|src: &str| {
    let opts = xpr_syntax::ParseOptions {
        max_length: Some(20_000),
        max_depth: Some(50),
    };
    if let Ok(ast) = xpr_syntax::parse_with(src, &opts) {
        let printed = xpr_syntax::print(&ast);
        // The printer's output of a parsed tree must parse again (it may be
        // deeper by parentheses only, which add no depth).
        let again = xpr_syntax::parse_with(
            &printed,
            &xpr_syntax::ParseOptions {
                max_length: None,
                max_depth: Some(50),
            },
        );
        assert!(
            again.is_ok(),
            "printed form does not parse: {printed:?} from {src:?}: {again:?}"
        );
    }
});
