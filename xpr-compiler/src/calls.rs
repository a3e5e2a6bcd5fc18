//! Calls: `f(...)`, `f?.(...)`, `o.m(...)`, any value called, and pipes.
//!
//! A name that is not a local is looked up in the context first when the
//! call runs. The compiler picks what the name means otherwise: a built-in
//! or host function, called by one instruction that also names the global
//! to look up ([`Op::CallBuiltin`], [`Op::CallHost`]); for a pipe target, a
//! method of the piped value; else nothing, and the call fails with
//! `Unknown function 'f'` when reached ([`Op::CallGlobal`]), an evaluation
//! error as the spec says. Such names are listed in the program's unknown
//! functions. Only a function in the context takes the place of a function
//! or method of its name (a record's field `type` leaves `type(x)` alone);
//! for a name that is no function, the context's value is what is called.

use xpr_syntax::ast::{self, Element, Expr, ExprKind};
use xpr_vm::program::{NamedCall, Otherwise, UnknownFunction};
use xpr_vm::stdlib;
use xpr_vm::vm::is_restricted;
use xpr_vm::{Error, ErrorKind, Key, Op, Value};

use crate::errors::{restricted, span, too_many};
use crate::expr::has_spread;
use crate::scope::Var;
use crate::{CompileEnv, Compiler};

/// The error `Unknown function 'f'` (without a position), with the hint
/// of [`xpr_vm::foreign::function_hint`]: XPR's spelling of another
/// language's function (`parseInt(s)` is `int(s)`); for a call, the method
/// of that name when there is one (`upper(s)` is written `s.upper()`);
/// else the nearest built-in or host function (or, after a pipe, method)
/// when `f` looks like a typo of it.
#[cold]
pub(crate) fn unknown_function(name: &str, env: &CompileEnv, pipe: bool) -> Error {
    let hosts: Vec<&str> = env.host_functions.iter().map(|h| h.name.as_str()).collect();
    let error = Error::new(ErrorKind::Reference, format!("Unknown function '{name}'"));
    match xpr_vm::foreign::function_hint(name, &hosts, pipe) {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}

/// How a name in call position resolves (after the context, for a global
/// name: the `global` index names it for the context lookup).
pub(crate) enum Callee {
    Var(Var),
    Builtin {
        id: u16,
        global: u16,
    },
    Host {
        index: u16,
        global: u16,
    },
    /// No function of that name: the context's variable, else unknown.
    Global(u16),
}

/// How a named call is written, which decides its [`Otherwise`].
#[derive(Hash, PartialEq, Eq, Clone, Copy)]
pub(crate) enum CallKind {
    /// `f(...)` of a name that is no function.
    Plain,
    /// `x |> f(...)` of a name that is no function.
    Pipe,
    /// `f?.(...)`: the callee is loaded before the arguments.
    Optional,
}

impl Compiler<'_> {
    /// How `name` in call position resolves: a local; else (after the
    /// context, at run time) a built-in, a host function, or nothing.
    ///
    /// # Errors
    /// The capabilities' denial when a name that is not a local is not
    /// allowed (whatever it names: a built-in, a host function, a method
    /// through a pipe, a context function, nothing).
    fn callee(&mut self, name: &str, at: ast::Span) -> Result<Callee, Error> {
        if let Some(v) = self.resolve(name) {
            return Ok(Callee::Var(v));
        }
        if !self.env.capabilities.allows(name) {
            let what = if stdlib::function_id(name).is_none()
                && !self.env.host_functions.iter().any(|h| h.name == name)
                && stdlib::method_id(name).is_some()
            {
                "method"
            } else {
                "function"
            };
            return Err(self.env.capabilities.denial(what, name, span(at)));
        }
        let global = self.global(name, false, at)?;
        let global = u16::try_from(global).map_err(|_| too_many(at))?;
        if let Some(id) = stdlib::function_id(name) {
            self.called(name);
            return Ok(Callee::Builtin { id, global });
        }
        if let Some(index) = self.host(name, at)? {
            self.called(name);
            return Ok(Callee::Host { index, global });
        }
        Ok(Callee::Global(global))
    }

    /// The named call of global `global` (`name`) written as `kind`;
    /// `otherwise` is what it means without a context function of that
    /// name. A name that means nothing is recorded among the program's
    /// unknown functions, with the error of its first call (`at`).
    fn named_call(
        &mut self,
        name: &str,
        global: u16,
        kind: CallKind,
        otherwise: Otherwise,
        at: ast::Span,
    ) -> Result<u16, Error> {
        let name = Key::from(name);
        if let Some(&i) = self.calls.get(&(name.clone(), kind)) {
            return Ok(i);
        }
        if let Otherwise::Unknown(error) = &otherwise
            && self.unknown.insert(name.clone())
        {
            self.parts.unknown_functions.push(UnknownFunction {
                name: name.clone(),
                error: error.clone().at(span(at)),
            });
        }
        let i = u16::try_from(self.parts.calls.len()).map_err(|_| too_many(at))?;
        self.parts.calls.push(NamedCall {
            global: u32::from(global),
            otherwise,
        });
        self.calls.insert((name, kind), i);
        Ok(i)
    }

    /// What a global name called as `f?.(...)` means without a context
    /// function of that name: its built-in or host function (the global's
    /// value-position fallback), or nothing (`PI` is no function).
    fn optional_otherwise(&self, name: &str, global: u16) -> Otherwise {
        match self
            .parts
            .globals
            .get(usize::from(global))
            .and_then(|g| g.fallback.clone())
        {
            Some(f @ Value::Function(_)) => Otherwise::Function(f),
            _ => Otherwise::Unknown(unknown_function(name, self.env, false)),
        }
    }

    fn argc(args: &[Element], extra: usize, at: ast::Span) -> Result<u16, Error> {
        u16::try_from(args.len() + extra).map_err(|_| too_many(at))
    }

    /// A call of built-in or host function `f` with `args`, after
    /// `piped` values already on the stack (1 for a pipe's left side).
    fn function_call(
        &mut self,
        f: Callee,
        args: &[Element],
        spread: bool,
        piped: u16,
        at: ast::Span,
    ) -> Result<(), Error> {
        if spread {
            self.emit(Op::Mark(piped), at);
        }
        self.elements(args, Op::SpreadArgs)?;
        let argc = if spread {
            0
        } else {
            Self::argc(args, usize::from(piped), at)?
        };
        let op = match (f, spread) {
            (Callee::Builtin { id, global }, true) => Op::CallBuiltinMark { id, global },
            (Callee::Builtin { id, global }, false) => Op::CallBuiltin { id, argc, global },
            (Callee::Host { index, global }, true) => Op::CallHostMark { index, global },
            (Callee::Host { index, global }, false) => Op::CallHost {
                index,
                argc,
                global,
            },
            _ => {
                return Err(Error::new(
                    ErrorKind::Parse,
                    "internal: not a function callee",
                ));
            }
        };
        self.emit(op, at);
        Ok(())
    }

    pub(crate) fn call(
        &mut self,
        callee: &Expr,
        args: &[Element],
        optional: bool,
        at: ast::Span,
    ) -> Result<(), Error> {
        let spread = has_spread(args);
        match &callee.kind {
            ExprKind::Ident(name) => match self.callee(name, callee.span)? {
                Callee::Var(v) => {
                    self.load_var(v, callee.span);
                    if optional {
                        self.optional_jump(at);
                    }
                    self.call_value(args, spread, at)?;
                }
                // `f?.(...)` of a global name: the callee is resolved (and
                // may be null) before the arguments are evaluated.
                Callee::Builtin { global, .. }
                | Callee::Host { global, .. }
                | Callee::Global(global)
                    if optional =>
                {
                    let otherwise = self.optional_otherwise(name, global);
                    let call =
                        self.named_call(name, global, CallKind::Optional, otherwise, callee.span)?;
                    self.emit(Op::LoadCallee(call), callee.span);
                    self.optional_jump(at);
                    self.call_value(args, spread, at)?;
                }
                f @ (Callee::Builtin { .. } | Callee::Host { .. }) => {
                    self.function_call(f, args, spread, 0, at)?;
                }
                Callee::Global(global) => {
                    let otherwise = Otherwise::Unknown(unknown_function(name, self.env, false));
                    let call =
                        self.named_call(name, global, CallKind::Plain, otherwise, callee.span)?;
                    if spread {
                        self.emit(Op::Mark(0), at);
                        self.elements(args, Op::SpreadArgs)?;
                        self.emit(Op::CallGlobalMark(call), at);
                    } else {
                        self.elements(args, Op::SpreadArgs)?;
                        let argc = Self::argc(args, 0, at)?;
                        self.emit(Op::CallGlobal { call, argc }, at);
                    }
                }
            },
            ExprKind::Member {
                object,
                property,
                optional: member_optional,
            } if !optional => {
                if is_restricted(&property.name) {
                    return Err(restricted(&property.name, property.span));
                }
                self.spine(object)?;
                if *member_optional {
                    self.optional_jump(callee.span);
                }
                let method = self.method(&property.name, property.span)?;
                // Errors of the call point at the method name, not the receiver.
                let call_span = ast::Span::new(property.span.start, at.end);
                if spread {
                    self.emit(Op::Mark(0), at);
                    self.elements(args, Op::SpreadArgs)?;
                    self.emit(Op::CallMethodMark(method), call_span);
                } else {
                    self.elements(args, Op::SpreadArgs)?;
                    let argc = Self::argc(args, 0, at)?;
                    self.emit(Op::CallMethod { method, argc }, call_span);
                }
            }
            _ => {
                self.spine(callee)?;
                if optional {
                    self.optional_jump(at);
                }
                self.call_value(args, spread, at)?;
            }
        }
        Ok(())
    }

    /// With the callee on the stack: the arguments and the call.
    fn call_value(&mut self, args: &[Element], spread: bool, at: ast::Span) -> Result<(), Error> {
        if spread {
            self.emit(Op::Mark(0), at);
            self.elements(args, Op::SpreadArgs)?;
            self.emit(Op::CallValueMark, at);
        } else {
            self.elements(args, Op::SpreadArgs)?;
            let argc = Self::argc(args, 0, at)?;
            self.emit(Op::CallValue(argc), at);
        }
        Ok(())
    }

    /// `lhs |> rhs`: `lhs` is evaluated first and becomes the first argument.
    pub(crate) fn pipe(&mut self, lhs: &Expr, rhs: &Expr, at: ast::Span) -> Result<(), Error> {
        let (target, args, target_span): (Option<&Expr>, &[Element], ast::Span) = match &rhs.kind {
            ExprKind::Call { callee, args, .. } => (Some(callee), args, callee.span),
            _ => (None, &[], rhs.span),
        };
        let is_call = target.is_some();
        let spread = has_spread(args);
        let name_expr = target.unwrap_or(rhs);
        self.expr(lhs)?;
        if let ExprKind::Ident(name) = &name_expr.kind {
            if is_restricted(name) && self.resolve(name).is_none() {
                return Err(restricted(name, target_span));
            }
            match self.callee(name, target_span)? {
                Callee::Var(v) => {
                    self.load_var(v, target_span);
                    self.emit(Op::Swap, at);
                    self.piped_value_call(args, spread, at)?;
                }
                f @ (Callee::Builtin { .. } | Callee::Host { .. }) => {
                    self.function_call(f, args, spread, 1, at)?;
                }
                Callee::Global(global) => {
                    // `x |> m(args)` is the method call `x.m(args)` when
                    // `m` is a method (and the context has no `m`).
                    let otherwise = if stdlib::method_id(name).is_some() {
                        Otherwise::Method(self.method(name, target_span)?)
                    } else {
                        Otherwise::Unknown(unknown_function(name, self.env, true))
                    };
                    // An unknown function is reported at its name; a
                    // method's errors at the pipe, as a built-in's are.
                    let call_span = match otherwise {
                        Otherwise::Unknown(_) => ast::Span::new(target_span.start, at.end),
                        _ => at,
                    };
                    let call =
                        self.named_call(name, global, CallKind::Pipe, otherwise, target_span)?;
                    if spread {
                        self.emit(Op::Mark(1), at);
                        self.elements(args, Op::SpreadArgs)?;
                        self.emit(Op::CallGlobalMark(call), call_span);
                    } else {
                        self.elements(args, Op::SpreadArgs)?;
                        let argc = Self::argc(args, 1, at)?;
                        self.emit(Op::CallGlobal { call, argc }, call_span);
                    }
                }
            }
            return Ok(());
        }
        match (&name_expr.kind, is_call) {
            (
                ExprKind::Member {
                    object,
                    property,
                    optional: false,
                },
                true,
            ) => {
                // `x |> o.m(args)` is `o.m(x, args)`.
                if is_restricted(&property.name) {
                    return Err(restricted(&property.name, property.span));
                }
                self.expr(object)?;
                self.emit(Op::Swap, at);
                let method = self.method(&property.name, property.span)?;
                if spread {
                    self.emit(Op::Mark(1), at);
                    self.elements(args, Op::SpreadArgs)?;
                    self.emit(Op::CallMethodMark(method), at);
                } else {
                    self.elements(args, Op::SpreadArgs)?;
                    let argc = Self::argc(args, 1, at)?;
                    self.emit(Op::CallMethod { method, argc }, at);
                }
            }
            _ => {
                // Any other target: its value is called with `x` first.
                self.expr(name_expr)?;
                self.emit(Op::Swap, at);
                self.piped_value_call(args, spread, at)?;
            }
        }
        Ok(())
    }

    /// With `callee, x` on the stack: the remaining arguments and the call.
    fn piped_value_call(
        &mut self,
        args: &[Element],
        spread: bool,
        at: ast::Span,
    ) -> Result<(), Error> {
        if spread {
            self.emit(Op::Mark(1), at);
            self.elements(args, Op::SpreadArgs)?;
            self.emit(Op::CallValueMark, at);
        } else {
            self.elements(args, Op::SpreadArgs)?;
            let argc = Self::argc(args, 1, at)?;
            self.emit(Op::CallValue(argc), at);
        }
        Ok(())
    }
}
