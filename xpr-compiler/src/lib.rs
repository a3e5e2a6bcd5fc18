//! Lowers an XPR AST to a bytecode [`xpr_vm::Program`].
