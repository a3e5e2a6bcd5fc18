//! Built-in math functions.

use super::FunctionDef;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
