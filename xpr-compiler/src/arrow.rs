//! Arrow functions: a prototype of their own, parameters in the first
//! local slots (a destructured parameter bound from its slot), and the
//! closure that captures what the body uses.

use xpr_syntax::ast::{self, Pattern};
use xpr_vm::program::Proto;
use xpr_vm::{Error, Op};

use crate::errors::too_many;
use crate::pattern::check_duplicate;
use crate::scope::FnState;
use crate::{Compiler, HashSet};

impl Compiler<'_> {
    pub(crate) fn arrow(&mut self, arrow: &ast::Arrow, at: ast::Span) -> Result<(), Error> {
        let index = u32::try_from(self.parts.protos.len()).map_err(|_| too_many(at))?;
        self.parts.protos.push(Proto::default());
        self.funcs.push(FnState::new(index, at));
        // An arrow's own frames (`arrow`, `arrow_body`, then its body's)
        // take about twice the stack of an ordinary level: it counts twice
        // toward MAX_NESTING, so nested arrows fit a small stack too.
        self.nesting += 1;
        let r = self.arrow_body(arrow, at);
        self.nesting -= 1;
        let state = self.funcs.pop();
        r?;
        if let Some(state) = state {
            self.finish(state);
        }
        self.emit(Op::Closure(index), at);
        Ok(())
    }

    fn arrow_body(&mut self, arrow: &ast::Arrow, at: ast::Span) -> Result<(), Error> {
        let params = u16::try_from(arrow.params.len()).map_err(|_| too_many(at))?;
        let mut names: HashSet<String> = HashSet::default();
        // Parameter slots first: 0..params, then the rest parameter.
        for (i, p) in arrow.params.iter().enumerate() {
            let placeholder = match p {
                Pattern::Ident(n) => {
                    check_duplicate(&mut names, n)?;
                    n.name.clone()
                }
                // Never a valid identifier: holds the argument until destructured.
                _ => format!("#{i}"),
            };
            self.new_local(&placeholder, p.span())?;
        }
        if let Some(rest) = &arrow.rest {
            check_duplicate(&mut names, rest)?;
            self.new_local(&rest.name, rest.span)?;
        }
        {
            let f = self.func();
            f.proto.params = params;
            f.proto.rest = arrow.rest.is_some();
        }
        for (i, p) in arrow.params.iter().enumerate() {
            if !matches!(p, Pattern::Ident(_)) {
                self.emit(Op::LoadLocal(i as u16), p.span());
                self.bind(p, &mut names)?;
            }
        }
        self.expr(&arrow.body)?;
        self.emit(Op::Return, arrow.body.span);
        Ok(())
    }
}
