//! XPR v0.5 syntax: lexer and LALRPOP grammar producing an [`ast::Expr`].

pub mod ast;
