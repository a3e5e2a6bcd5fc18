//! Bytecode: the immutable, shareable output of the compiler.
//! (Placeholder: the instruction set and `Program` land with the compiler/VM issue.)

use std::sync::Arc;

/// A compiled program: instructions, constant pool, position table.
#[derive(Clone, Debug, Default)]
pub struct Program {
    inner: Arc<()>,
}

impl Program {
    #[allow(dead_code)]
    fn placeholder(&self) -> &Arc<()> {
        &self.inner
    }
}
