//! Built-ins for date values.

use super::FunctionDef;

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];



