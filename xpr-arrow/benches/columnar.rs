//! Criterion benchmarks of columnar evaluation (see README, "Columnar evaluation").

fn main() {}
