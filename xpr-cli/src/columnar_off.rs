//! `xpr run --input parquet|arrow`, `--output parquet|arrow` in a build
//! without the cargo feature `columnar`: a clear error saying how to get
//! it (docs/decisions.md "Parquet and Arrow IPC in xpr run").

use super::{Exit, InputFormat, RunArgs};

/// Refuses the run (status 2), naming the feature and how to install it.
///
/// # Errors
/// Always.
pub fn run(args: &RunArgs) -> Result<(), Exit> {
    let flag = match args.input {
        InputFormat::Parquet | InputFormat::Arrow => format!("--input {}", args.input.name()),
        _ => format!("--output {}", args.output_format.name()),
    };
    Err(Exit::usage(format_args!(
        "{flag} needs an xpr built with the `columnar` feature: \
         cargo install --path xpr-cli --features columnar"
    )))
}
