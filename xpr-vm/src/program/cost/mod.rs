//! A static upper bound of the fuel a program can use (issue 20, part 1).
//!
//! XPR has no loops: a program's instructions run at most once per call of
//! the function they belong to, jumps only go forward, and the work of a
//! built-in is charged in proportion to the sizes of its inputs. So the
//! fuel of a run is bounded by a polynomial in the sizes of the context's
//! values ([`CostBound`]), found by walking the bytecode once per call
//! site (`walk`): every path through the forward jumps (the larger cost
//! taken), each instruction's unit and the work the VM charges beside it,
//! each built-in by its rule (`builtins`), and each callback's bound
//! multiplied by the number of times its built-in may call it. The sizes
//! of the values a program builds are followed where they can be (`map`
//! keeps the length, `filter` bounds it, `range` with constant arguments,
//! concatenation adds bytes).
//!
//! Where a size cannot be followed but the value is one the run builds
//! (and so charges to its memory budget before building it), the run's
//! memory limit bounds it: the variable `memory` (`repeat` with a count
//! known only at run time, a `reduce` accumulator that grows faster than
//! by a fixed amount per element).
//!
//! The regex built-ins are bounded by what the VM charges them (`regex`):
//! soundly but loosely, since the lazy DFA's cache growth is bounded only
//! by what the cache can hold, about 50 million fuel a search.
//!
//! There is no bound when a closure may call itself (through a value it is
//! given: a Y combinator), when the program calls a function from the
//! context or a host function (whose fuel it does not know), when a
//! regex built-in is given a pattern not known statically (read from the
//! context or built at run time), or when the size of a value the run did
//! not build cannot be followed (what a host function returns):
//! [`CostBound::Unbounded`] says why and where.
//!
//! The bound assumes that the context holds data (JSON values), not
//! functions: a context function named like a built-in is called instead
//! of it, at a cost the bound cannot know.

mod abs;
mod builtins;
mod calls;
mod poly;
mod regex;
mod sizes;
mod walk;

use std::fmt;

pub use poly::{Measure, Path, Poly, Seg, Var};
pub use sizes::Sizes;

use super::Program;
use crate::error::Span;
use crate::value::Value;

/// An upper bound of the fuel a run of a program uses, in the VM's units
/// (those of `Limits::fuel` and `Vm::fuel_used`), as a function of the
/// sizes of the context's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostBound {
    /// At most this polynomial of size variables ([`Var`]: `len(items)`,
    /// `bytes(user.name)`, `size(config)`, `text(x)`, `log(items)`; for a
    /// path through an array, `items[].tags`, the largest over its
    /// elements; `memory`, the run's memory limit in bytes, where only it
    /// bounds a value the program builds).
    Bounded(Poly),
    /// No static bound.
    Unbounded {
        /// Why (`a closure may call itself ...`).
        reason: String,
        /// The instruction that makes it so (a call, usually).
        span: Span,
    },
}

impl CostBound {
    /// Whether there is a bound.
    pub fn is_bounded(&self) -> bool {
        matches!(self, CostBound::Bounded(_))
    }

    /// The size variables the bound depends on, in order.
    pub fn variables(&self) -> Vec<Var> {
        match self {
            CostBound::Bounded(p) => p.vars().into_iter().cloned().collect(),
            CostBound::Unbounded { .. } => Vec::new(),
        }
    }

    /// The bound at `sizes`, rounded up: `None` when unbounded or when a
    /// variable has no size (`log(p)` follows from `len(p)`).
    pub fn evaluate(&self, sizes: &Sizes) -> Option<u64> {
        match self {
            CostBound::Bounded(p) => p.evaluate(|v| sizes.get(v)),
            CostBound::Unbounded { .. } => None,
        }
    }

    /// The sizes of the variables the bound names, measured in `context`
    /// (the top-level object of names a run reads): the largest over
    /// every value a path reaches, 0 for a path that reaches none. The
    /// variable `memory`, when the bound names it, is the default memory
    /// limit ([`crate::limits::DEFAULT_MEMORY`]); set it to the run's
    /// (`Sizes::set("memory", n)`) when that differs.
    pub fn sizes_of(&self, context: &Value) -> Sizes {
        let vars = self.variables();
        let mut sizes = Sizes::measure(&vars.iter().collect::<Vec<_>>(), context);
        if vars.contains(&Var::memory()) {
            sizes.set("memory", crate::limits::DEFAULT_MEMORY);
        }
        sizes
    }
}

impl fmt::Display for CostBound {
    /// The formula (`12 + 9·len(items)`), or `unbounded: <reason>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostBound::Bounded(p) => write!(f, "{p}"),
            CostBound::Unbounded { reason, .. } => write!(f, "unbounded: {reason}"),
        }
    }
}

impl Program {
    /// A static upper bound of the fuel a run of this program uses (see
    /// the module doc of `program::cost`): no run with a context whose
    /// sizes are `s` uses more than `bound.evaluate(&s)` fuel, whatever
    /// its fuel limit.
    pub fn cost_bound(&self) -> CostBound {
        let main = abs::Fun {
            proto: 0,
            captures: Vec::new(),
        };
        let mut walk = walk::Walk::new(self);
        match walk.proto(&main, &walk::Args::default(), Span::default()) {
            Ok((cost, _)) if cost.too_large() => CostBound::Unbounded {
                reason: "the bound is too large to compute".into(),
                span: Span::default(),
            },
            Ok((cost, _)) => CostBound::Bounded(cost),
            Err(u) => CostBound::Unbounded {
                reason: u.reason,
                span: u.span,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CostBound;
    use crate::error::Span;
    use crate::program::{MethodRef, Op, Program, ProgramParts, Proto};
    use crate::value::Value;

    fn program(code: Vec<Op>, constants: Vec<Value>) -> Program {
        let parts = ProgramParts {
            protos: vec![Proto {
                spans: vec![Span::default(); code.len()],
                code,
                ..Proto::default()
            }],
            constants,
            methods: vec![MethodRef {
                name: "values".into(),
                id: crate::stdlib::method_id("values"),
            }],
            ..ProgramParts::default()
        };
        Program::new(parts).expect("valid operands")
    }

    /// Code no compiler emits (a stored program's body may hold it): a
    /// method call that takes more values than the stack has, paths that
    /// meet with different heights, an object key that is not a string. No bound: the analysis cannot follow
    /// what the VM does with it (found by the `load` fuzz target, where a
    /// call of `values` with one argument too many used 13 fuel against a
    /// bound of 12).
    #[test]
    fn code_no_compiler_emits_has_no_bound() {
        let object = Value::from_json(&serde_json::json!({"x": 1})).expect("converts");
        let call = |argc| {
            program(
                vec![Op::Const(0), Op::CallMethod { method: 0, argc }, Op::Return],
                vec![object.clone()],
            )
            .cost_bound()
        };
        assert!(call(0).is_bounded());
        assert!(matches!(
            call(1),
            CostBound::Unbounded { reason, .. } if reason.contains("below its stack")
        ));
        // `true ? 1 : (1, 2)`: the paths meet with one and two values.
        let uneven = program(
            vec![
                Op::True,
                Op::JumpIfFalse(4),
                Op::Int(1),
                Op::Jump(6),
                Op::Int(1),
                Op::Int(2),
                Op::Return,
            ],
            Vec::new(),
        );
        assert!(!uneven.cost_bound().is_bounded());
        // An object literal whose key is not a string constant (the VM
        // skips it; found by the same target: 54 fuel against 52).
        let object = |key: Op| {
            program(
                vec![key, Op::Int(2), Op::Object(1), Op::Return],
                vec![Value::from("a")],
            )
            .cost_bound()
        };
        assert!(object(Op::Const(0)).is_bounded());
        assert!(matches!(
            object(Op::Int(1)),
            CostBound::Unbounded { reason, .. } if reason.contains("not a string constant")
        ));
    }
}
