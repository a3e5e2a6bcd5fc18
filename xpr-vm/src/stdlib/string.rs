//! Built-ins for string values.

use super::{FunctionDef, MethodDef};

/// Global functions of this module.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];

/// Methods of this module's receiver type.
pub(crate) const METHODS: &[MethodDef] = &[];
