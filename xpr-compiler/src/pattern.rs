//! Destructuring patterns (`let {a, b: [c, ...d]} = ...`, arrow
//! parameters): checks, extractions with defaults, rests, and the local
//! slots each name binds.

use xpr_syntax::ast::{self, Expr, Pattern};
use xpr_vm::vm::is_restricted;
use xpr_vm::{Error, ErrorKind, Key, Op};

use crate::errors::{error_at, restricted, too_many};
use crate::{Compiler, HashSet};

impl Compiler<'_> {
    /// Binds the value on top of the stack to `target`, consuming it.
    pub(crate) fn bind(
        &mut self,
        target: &Pattern,
        names: &mut HashSet<String>,
    ) -> Result<(), Error> {
        match target {
            Pattern::Ident(n) => {
                check_duplicate(names, n)?;
                let slot = self.new_local(&n.name, n.span)?;
                self.emit(Op::StoreLocal(slot), n.span);
            }
            Pattern::Object(p) => {
                self.emit(Op::CheckObject, p.span);
                for entry in &p.entries {
                    if is_restricted(&entry.key.name) {
                        return Err(restricted(&entry.key.name, entry.key.span));
                    }
                    let k = self.key(&entry.key.name, entry.key.span)?;
                    self.emit(Op::PatternField(k), entry.key.span);
                    self.default(entry.default.as_ref(), entry.key.span)?;
                    self.bind(&entry.target, names)?;
                }
                if let Some(rest) = &p.rest {
                    let keys: Vec<Key> = p
                        .entries
                        .iter()
                        .map(|e| Key::from(e.key.name.as_str()))
                        .collect();
                    let set =
                        u32::try_from(self.parts.key_sets.len()).map_err(|_| too_many(p.span))?;
                    self.parts.key_sets.push(keys);
                    self.emit(Op::ObjectRest(set), rest.span);
                    self.bind(&Pattern::Ident(rest.clone()), names)?;
                }
                self.emit(Op::Pop, p.span);
            }
            Pattern::Array(p) => {
                self.emit(Op::CheckArray, p.span);
                for (i, el) in p.elements.iter().enumerate() {
                    let i = u32::try_from(i).map_err(|_| too_many(p.span))?;
                    self.emit(Op::PatternIndex(i), el.target.span());
                    self.default(el.default.as_ref(), el.target.span())?;
                    self.bind(&el.target, names)?;
                }
                if let Some(rest) = &p.rest {
                    let from = u32::try_from(p.elements.len()).map_err(|_| too_many(p.span))?;
                    self.emit(Op::ArrayRest(from), rest.span);
                    self.bind(&Pattern::Ident(rest.clone()), names)?;
                }
                self.emit(Op::Pop, p.span);
            }
        }
        Ok(())
    }

    /// With an extracted value on top: replaces a null by the default.
    fn default(&mut self, default: Option<&Expr>, at: ast::Span) -> Result<(), Error> {
        if let Some(d) = default {
            let j = self.emit(Op::JumpIfNotNullOrPop(0), at);
            // Reached through `bind` frames: counts twice toward MAX_NESTING
            // (see `arrow`).
            self.nesting += 1;
            let r = self.expr(d);
            self.nesting -= 1;
            r?;
            self.patch(j);
        }
        Ok(())
    }
}

/// Records `n` among the names one binding introduces; a name twice is an
/// error (`duplicate binding 'a'`).
pub(crate) fn check_duplicate(names: &mut HashSet<String>, n: &ast::Name) -> Result<(), Error> {
    if !names.insert(n.name.clone()) {
        return Err(error_at(
            ErrorKind::Parse,
            format!("duplicate binding '{}'", n.name),
            n.span,
        ));
    }
    Ok(())
}
