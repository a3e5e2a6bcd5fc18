//! The `xpr` command-line tool.
fn main() {}
