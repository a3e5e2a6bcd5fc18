//! Why a result is what it is (issue 20, part 2): [`Program::explain`]
//! walks the expression's syntax tree and evaluates the sub-expressions
//! that decided the result, each as a program of its own against the same
//! context, under the program's limits and one budget for them all. The
//! program's normal runs pay nothing for it: nothing is recorded while
//! they run.
//!
//! What is shown: for `&&`, `||` and `??`, each clause in order up to the
//! one that decides (the rest marked not evaluated, so an error they would
//! raise is not raised); for `?:`, the condition and the branch taken; for
//! a comparison, arithmetic and `!`, the operands; for `filter`, `some`,
//! `every`, `find` and `count` with a function, how many items pass of
//! how many; for `let`, the bound value and the body. Inside a function
//! (`x => ...`) nothing more is shown: its parameters have no value outside
//! a call. Literals are not shown. Sub-expressions under a `let` are
//! evaluated with its bindings; `random()` and `now()` draw again.

use std::sync::Arc;

use xpr_syntax::ast::{self, Element, Expr, ExprKind, LogicalOp};
use xpr_vm::{Budget, Capabilities, Context, Error, Span, Value};

use crate::{Engine, Program, RunConfig};

/// What [`Program::explain`] needs of the compile: the source and the
/// engine's settings (host functions, capabilities, limits, clock).
pub(crate) struct Origin {
    pub(crate) engine: Engine,
    pub(crate) source: Box<str>,
}

/// The sub-expressions' runs together may use this many times the
/// program's fuel limit and wall-clock ceiling.
pub const EXPLAIN_FACTOR: u32 = 8;

/// The explanation of one run ([`Program::explain`]).
#[derive(Debug, Clone)]
pub struct Explanation {
    /// The run's result, as [`Program::run`] gives it.
    pub result: Result<Value, Error>,
    /// The whole expression, its deciding sub-expressions below it.
    pub root: Step,
}

/// One sub-expression of an [`Explanation`].
#[derive(Debug, Clone)]
pub struct Step {
    /// Its source text.
    pub text: String,
    /// Where it stands in the expression (character offsets).
    pub span: Span,
    /// Its value, its error, or that it was not evaluated.
    pub outcome: Outcome,
    /// What part it plays in its parent.
    pub role: Role,
    /// For `filter`, `some`, `every`, `find` and `count` with a function:
    /// how many items pass it, of how many.
    pub items: Option<Items>,
    /// The sub-expressions that decided its value.
    pub children: Vec<Step>,
}

/// What a [`Step`] evaluated to.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Its value.
    Value(Value),
    /// Its error (positions are in the whole expression).
    Error(Error),
    /// Not evaluated: a clause after the one that decided, a branch not
    /// taken, an operand after one that failed.
    NotEvaluated,
}

/// The part a [`Step`] plays in its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The whole expression.
    Whole,
    /// A clause of `&&`, `||` or `??` that did not decide.
    Clause,
    /// The clause of `&&`, `||` or `??` whose value is the result.
    Decides,
    /// The condition of `?:`.
    Condition,
    /// A branch of `?:`.
    Branch,
    /// An operand of a comparison, of arithmetic or of `!`.
    Operand,
    /// The value a `let` binds.
    Binding,
    /// The body of a `let`.
    Body,
}

/// How many items passed a predicate, of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Items {
    /// Items for which the function returned a truthy value.
    pub passed: u64,
    /// Items in all.
    pub of: u64,
}

impl Role {
    /// Its name in the JSON form (`decides`, `condition`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Role::Whole => "whole",
            Role::Clause => "clause",
            Role::Decides => "decides",
            Role::Condition => "condition",
            Role::Branch => "branch",
            Role::Operand => "operand",
            Role::Binding => "binding",
            Role::Body => "body",
        }
    }
}

impl Program {
    /// Runs the program against `context` and explains its result: the
    /// value of each sub-expression that decided it (see
    /// [`crate::explain`]). Off the fast path: the normal run is the
    /// one [`Program::run`] does, then the deciding sub-expressions are
    /// evaluated as programs of their own, each under the program's
    /// limits, all together within [`EXPLAIN_FACTOR`] times its fuel and
    /// wall-clock ceiling (a step beyond that shows the budget's error).
    /// A program without its source (none so far) explains only its result.
    ///
    /// ```
    /// let program = xpr::Engine::new().compile(r#"age >= 18 && country == "FR""#)?;
    /// let context = serde_json::json!({"age": 20, "country": "DE"});
    /// let explanation = program.explain(context.as_object().unwrap());
    /// assert_eq!(explanation.to_string(), "\
    /// age >= 18 && country == \"FR\" -> false
    ///   age >= 18 -> true
    ///     age -> 20
    ///   country == \"FR\" -> false  [decides]
    ///     country -> \"DE\"
    /// ");
    /// # Ok::<(), xpr::Error>(())
    /// ```
    pub fn explain(&self, context: &dyn Context) -> Explanation {
        let result = self.run(context);
        let whole = Outcome::of(result.clone());
        let Some(origin) = &self.origin else {
            let root = Step::leaf(String::new(), Span::default(), whole, Role::Whole);
            return Explanation { result, root };
        };
        let limits = self.limits();
        let budget = Budget::new(
            limits.fuel.map(|f| f.saturating_mul(EXPLAIN_FACTOR.into())),
            limits
                .wall_ceiling()
                .map(|w| w.saturating_mul(EXPLAIN_FACTOR)),
        );
        let walker = Walker::new(origin, context, budget);
        let root = match xpr_syntax::parse_with(
            &origin.source,
            &xpr_syntax::ParseOptions {
                max_length: limits.max_length,
                max_depth: limits.max_depth,
            },
        ) {
            Ok(ast) => walker.step(&ast, &[], whole, Role::Whole),
            // It compiled, so it parses; nothing more to show otherwise.
            Err(_) => Step::leaf(
                origin.source.to_string(),
                Span::default(),
                whole,
                Role::Whole,
            ),
        };
        Explanation { result, root }
    }
}

impl Outcome {
    fn of(result: Result<Value, Error>) -> Self {
        match result {
            Ok(v) => Outcome::Value(v),
            Err(e) => Outcome::Error(e),
        }
    }

    /// The value, when there is one.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Outcome::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl Step {
    fn leaf(text: String, span: Span, outcome: Outcome, role: Role) -> Self {
        Step {
            text,
            span,
            outcome,
            role,
            items: None,
            children: Vec::new(),
        }
    }
}

/// A piece of the source a sub-expression's program is made of: `let`
/// prefixes, then the sub-expression (start and length in characters).
type Piece = (u32, u32);

/// Evaluates sub-expressions of one source against one context.
struct Walker<'a> {
    origin: &'a Origin,
    context: &'a dyn Context,
    config: RunConfig,
    /// The byte offset of each character of the source, and of its end.
    bytes: Vec<usize>,
    /// The engine, every function allowed: for the programs counting the
    /// items that pass a predicate (`map` may be denied to the expression).
    counting: Engine,
}

impl<'a> Walker<'a> {
    fn new(origin: &'a Origin, context: &'a dyn Context, budget: Budget) -> Self {
        let src = &*origin.source;
        let bytes = src
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(src.len()))
            .collect();
        Walker {
            origin,
            context,
            config: RunConfig {
                budget: Some(budget),
                ..RunConfig::default()
            },
            bytes,
            counting: origin.engine.clone().with_capabilities(Capabilities::all()),
        }
    }

    /// The source text of `span`.
    fn text(&self, span: Span) -> &str {
        let at = |c: u32| self.bytes.get(c as usize).copied().unwrap_or(0);
        self.origin
            .source
            .get(at(span.start)..at(span.end))
            .unwrap_or("")
    }

    /// The program text of `pieces`, and the character offset of each piece in it.
    fn assemble(&self, pieces: &[Piece]) -> (String, Vec<u32>) {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(pieces.len());
        let mut at = 0;
        for &(start, len) in pieces {
            starts.push(at);
            text.push_str(self.text(Span::new(start, start + len)));
            at += len;
        }
        (text, starts)
    }

    /// Evaluates `e` under the `let` prefixes `scope`.
    fn eval(&self, scope: &[Piece], e: &Expr) -> Outcome {
        let mut pieces = scope.to_vec();
        pieces.push((e.span.start, e.span.end - e.span.start));
        let (text, starts) = self.assemble(&pieces);
        let result = self
            .origin
            .engine
            .compile(&text)
            .and_then(|p| p.run_with(self.context, &self.config));
        // Positions back into the whole expression.
        Outcome::of(result.map_err(|e| match e.span() {
            Some(span) => {
                let i = starts
                    .partition_point(|&s| s <= span.start)
                    .saturating_sub(1);
                let (orig, _) = pieces[i];
                let shift = |c: u32| c - starts[i] + orig;
                let end = span.end.max(span.start);
                e.at(Span::new(shift(span.start), shift(end)))
            }
            None => e,
        }))
    }

    /// `e` as a step whose outcome is known, with the sub-expressions that
    /// decided it below.
    fn step(&self, e: &Expr, scope: &[Piece], outcome: Outcome, role: Role) -> Step {
        let span = vm_span(e.span);
        let mut step = Step::leaf(self.text(span).to_string(), span, outcome, role);
        if matches!(step.outcome, Outcome::NotEvaluated) {
            return step;
        }
        match &e.kind {
            ExprKind::Logical { op, .. } => step.children = self.clauses(e, *op, scope),
            ExprKind::Conditional {
                test,
                then,
                otherwise,
            } => {
                let cond = self.eval(scope, test);
                let taken = cond.value().map(Value::truthy);
                step.children
                    .push(self.step(test, scope, cond, Role::Condition));
                for (branch, when) in [(then, true), (otherwise, false)] {
                    let outcome = if taken == Some(when) {
                        self.eval(scope, branch)
                    } else {
                        Outcome::NotEvaluated
                    };
                    step.children
                        .push(self.step(branch, scope, outcome, Role::Branch));
                }
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                step.children = self.operands(&[lhs, rhs], scope);
            }
            ExprKind::Unary { operand, .. } => step.children = self.operands(&[operand], scope),
            ExprKind::Let {
                target,
                value,
                body,
            } => {
                let bound = self.eval(scope, value);
                let mut binding = self.step(value, scope, bound, Role::Binding);
                binding.text = format!(
                    "{} = {}",
                    self.text(vm_span(target.span())),
                    self.text(vm_span(value.span))
                );
                step.children.push(binding);
                let mut inner = scope.to_vec();
                inner.push((e.span.start, body.span.start - e.span.start));
                let body_outcome = step.outcome.clone();
                step.children
                    .push(self.step(body, &inner, body_outcome, Role::Body));
            }
            ExprKind::Call { callee, args, .. } => {
                step.items = self.items(scope, callee, args);
                if let ExprKind::Member { object, .. } = &callee.kind {
                    step.children = self.receiver(object, scope);
                }
            }
            ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => {
                step.children = self.receiver(object, scope);
            }
            ExprKind::OptionalChain(inner) => {
                let outcome = step.outcome.clone();
                let inner = self.step(inner, scope, outcome, role);
                (step.children, step.items) = (inner.children, inner.items);
            }
            _ => {}
        }
        step
    }

    /// The receiver of a method call or property read, as a step when a
    /// counted call (`xs.filter(f)`) is in it: `xs.filter(f).length`.
    fn receiver(&self, object: &Expr, scope: &[Piece]) -> Vec<Step> {
        if !has_counted(object) {
            return Vec::new();
        }
        let outcome = self.eval(scope, object);
        vec![self.step(object, scope, outcome, Role::Operand)]
    }

    /// The clauses of a chain of `op` (`a && b && c`), evaluated in order
    /// until one decides.
    fn clauses(&self, e: &Expr, op: LogicalOp, scope: &[Piece]) -> Vec<Step> {
        let mut chain = Vec::new();
        flatten(e, op, &mut chain);
        let mut steps = Vec::with_capacity(chain.len());
        let mut done = false;
        let last = chain.len().saturating_sub(1);
        for (i, clause) in chain.into_iter().enumerate() {
            if done {
                steps.push(self.step(clause, scope, Outcome::NotEvaluated, Role::Clause));
                continue;
            }
            let outcome = self.eval(scope, clause);
            let decides = match &outcome {
                Outcome::Value(v) => {
                    i == last
                        || match op {
                            LogicalOp::And => !v.truthy(),
                            LogicalOp::Or => v.truthy(),
                            LogicalOp::Nullish => !matches!(v, Value::Null),
                        }
                }
                // The error is the result.
                _ => true,
            };
            done = decides;
            let role = if decides { Role::Decides } else { Role::Clause };
            steps.push(self.step(clause, scope, outcome, role));
        }
        steps
    }

    /// Operands evaluated left to right (literals are not shown); after
    /// one that fails, the rest are not evaluated.
    fn operands(&self, operands: &[&Expr], scope: &[Piece]) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut failed = false;
        for e in operands {
            if is_literal(e) {
                continue;
            }
            let outcome = if failed {
                Outcome::NotEvaluated
            } else {
                self.eval(scope, e)
            };
            failed |= matches!(outcome, Outcome::Error(_));
            steps.push(self.step(e, scope, outcome, Role::Operand));
        }
        steps
    }

    /// For `xs.filter(f)` (`some`, `every`, `find`, `count`): how many items
    /// of `xs` pass `f`, counted by a program of their own.
    fn items(&self, scope: &[Piece], callee: &Expr, args: &[Element]) -> Option<Items> {
        let ExprKind::Member {
            object, property, ..
        } = &callee.kind
        else {
            return None;
        };
        let f = counted(&property.name, args)?;
        let mut text = self.assemble(scope).0;
        let items = self.text(vm_span(object.span));
        let test = self.text(vm_span(f.span));
        text.push_str(&format!(
            "let __items = ({items}); let __test = ({test}); \
             [__items.map(x => __test(x) ? 1 : 0).sum(), __items.length]"
        ));
        let value = self
            .counting
            .compile(&text)
            .and_then(|p| p.run_with(self.context, &self.config))
            .ok()?;
        let Value::Array(pair) = value else {
            return None;
        };
        match pair.items() {
            [Value::Number(passed), Value::Number(of)] => Some(Items {
                passed: *passed as u64,
                of: *of as u64,
            }),
            _ => None,
        }
    }
}

/// The function of a call of method `name` with `args` whose items are
/// counted: `filter`, `some`, `every`, `find` or `count` with one argument.
fn counted<'e>(name: &str, args: &'e [Element]) -> Option<&'e Expr> {
    match args {
        [Element::Expr(f)] if matches!(name, "filter" | "some" | "every" | "find" | "count") => {
            Some(f)
        }
        _ => None,
    }
}

/// Whether `e` is or reads from a counted call (see [`counted`]).
fn has_counted(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Member {
                object, property, ..
            } => counted(&property.name, args).is_some() || has_counted(object),
            _ => false,
        },
        ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => has_counted(object),
        ExprKind::OptionalChain(inner) => has_counted(inner),
        _ => false,
    }
}

/// The clauses of a chain of one logical operator, in order.
fn flatten<'e>(e: &'e Expr, op: LogicalOp, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Logical { op: o, lhs, rhs } if *o == op => {
            flatten(lhs, op, out);
            flatten(rhs, op, out);
        }
        _ => out.push(e),
    }
}

fn vm_span(s: ast::Span) -> Span {
    Span::new(s.start, s.end)
}

fn is_literal(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::String(_)
            | ExprKind::Regex { .. }
    )
}

/// Keeps the explanation's engine settings for a compiled program.
pub(crate) fn origin(engine: &Engine, source: &str) -> Option<Arc<Origin>> {
    Some(Arc::new(Origin {
        engine: engine.for_explain(),
        source: source.into(),
    }))
}
