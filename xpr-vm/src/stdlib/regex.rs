//! Built-ins for regex values.

use super::{FunctionDef, MethodDef};

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];

/// Methods of this module's receiver type.
pub(crate) const METHODS: &[MethodDef] = &[];

/// Compiles a pattern with flags (subset of `ims`) into a regex value,
/// RE2 semantics, within the size and nesting limits.
///
/// # Errors
/// `invalid regex pattern ...` ([`crate::ErrorKind::Regex`]).
pub fn compile(pattern: &str, flags: &str) -> Result<crate::value::Regex, crate::error::Error> {
    let mut builder = ::regex::RegexBuilder::new(pattern);
    builder
        .case_insensitive(flags.contains('i'))
        .multi_line(flags.contains('m'))
        .dot_matches_new_line(flags.contains('s'));
    let compiled = builder.build().map_err(|e| {
        crate::error::Error::new(crate::error::ErrorKind::Regex, format!("invalid regex pattern: {e}"))
    })?;
    Ok(crate::value::Regex::new(pattern, flags, compiled))
}
