//! The compiled [`Program`] an [`Engine`] hands out: running it (on the
//! thread's VM or one the caller keeps, with per-run overrides and shared
//! budgets) and what it tells about itself.

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use xpr_vm::{
    Budget, CancelHandle, Clock, Context, Error, Key, RunOptions, Span, Value, Vm,
    program::UnknownFunction, vm::Output,
};

use super::{Limits, Randomness};
use crate::expect::{self, ValueType};
use crate::nulls::NullSites;

/// Per-run overrides of the engine's settings.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    /// Limits for this run instead of the engine's (the compile-time
    /// limits, `max_length`, `max_depth` and `max_regex_bytes`, are ignored).
    pub limits: Option<Limits>,
    /// A handle another thread may use to cancel this run.
    pub cancel: Option<CancelHandle>,
    /// A budget this run draws its fuel and time from, shared with other
    /// runs (instead of the program's, [`Program::with_budget`]).
    pub budget: Option<Budget>,
    /// The seed for `random()` in this run.
    pub seed: Option<u64>,
    /// The instant `now()` returns in this run, in epoch milliseconds.
    pub now_ms: Option<f64>,
}

/// A compiled expression: immutable, `Send + Sync`, cheap to clone, and
/// runnable from many threads at once. `Display` is the bytecode listing.
#[derive(Clone)]
pub struct Program {
    pub(super) program: xpr_vm::Program,
    /// The type every result has, when known from the expression's form.
    pub(super) result_type: Option<ValueType>,
    /// The type results must have ([`Program::expecting`]).
    pub(super) expected: Option<ValueType>,
    /// Whether each result's type is checked against `expected` (only
    /// when `result_type` does not settle it).
    pub(super) check_result: bool,
    /// Whether the program was loaded ([`Engine::load`]): its result type
    /// is then the file's word, not the compiler's, so results are checked
    /// whatever it says.
    pub(super) loaded: bool,
    /// The whole expression, where a result of the wrong type is reported.
    pub(super) root: Span,
    /// The binary operators of the source, to name a null operand in a
    /// type error's hint.
    pub(super) nulls: NullSites,
    /// The engine's limits when it compiled the program ([`Program::limits`]).
    pub(super) limits: Arc<Limits>,
    /// The engine's settings, built once: a run without overrides passes
    /// them to the VM as they are (no per-run copying or seeding).
    pub(super) config: Arc<RunOptions>,
    /// The shared budget every run draws from ([`Program::with_budget`]).
    pub(crate) budget: Option<Budget>,
    /// The source and the engine's settings, for [`Program::explain`].
    pub(crate) origin: Option<Arc<crate::explain::Origin>>,
}

thread_local! {
    static VM: RefCell<Vm> = RefCell::new(Vm::new());
}

impl Program {
    /// The engine's settings with `config`'s overrides.
    fn options(&self, config: &RunConfig) -> RunOptions {
        let d = &*self.config;
        RunOptions {
            limits: config
                .limits
                .as_ref()
                .map_or_else(|| d.limits.clone(), Limits::vm),
            clock: match config.now_ms {
                Some(ms) => Clock::Fixed(ms),
                None => d.clock.clone(),
            },
            random: config.seed.map_or(d.random, Randomness::Seeded),
            cancel: config.cancel.clone(),
            stopwatch: d.stopwatch.clone(),
        }
    }

    /// Runs against `context` on this thread's reusable VM.
    ///
    /// # Errors
    /// Any run-time error: type errors, unknown names, budgets.
    pub fn run(&self, context: &dyn Context) -> Result<Value, Error> {
        let options = &*self.config;
        let result = VM.with(|vm| match vm.try_borrow_mut() {
            Ok(mut vm) => self.exec(&mut vm, context, options, None),
            // Re-entered from a host function on this thread: use a fresh VM.
            Err(_) => self.exec(&mut Vm::new(), context, options, None),
        });
        self.checked(result)
    }

    /// One run on `vm`, drawing from `budget` or the program's budget, if any.
    #[inline]
    fn exec(
        &self,
        vm: &mut Vm,
        context: &dyn Context,
        options: &RunOptions,
        budget: Option<&Budget>,
    ) -> Result<Value, Error> {
        match budget.or(self.budget.as_ref()) {
            None => vm.run(&self.program, context, options),
            Some(b) => vm.run_budgeted(&self.program, context, options, b),
        }
    }

    /// Runs with per-run overrides (limits, cancellation, seed, clock).
    ///
    /// # Errors
    /// As [`Program::run`].
    pub fn run_with(&self, context: &dyn Context, config: &RunConfig) -> Result<Value, Error> {
        let options = self.options(config);
        let budget = config.budget.as_ref();
        let result = VM.with(|vm| match vm.try_borrow_mut() {
            Ok(mut vm) => self.exec(&mut vm, context, &options, budget),
            Err(_) => self.exec(&mut Vm::new(), context, &options, budget),
        });
        self.checked(result)
    }

    /// Runs on a VM the caller keeps (the zero-allocation path for hot loops).
    ///
    /// # Errors
    /// As [`Program::run`].
    pub fn run_in(&self, vm: &mut Vm, context: &dyn Context) -> Result<Value, Error> {
        self.checked(self.exec(vm, context, &self.config, None))
    }

    /// Runs on a VM the caller keeps, with per-run overrides (as
    /// [`Program::run_with`]): for hosts that run many records under a
    /// budget of their own (a columnar batch handing each row what is left
    /// of the batch's fuel).
    ///
    /// ```
    /// use xpr::{Engine, ErrorKind, Limits, RunConfig, Vm};
    /// let program = Engine::new().compile("range(100).sum()")?;
    /// assert_eq!(program.limits().fuel, Limits::default().fuel);
    /// let mut vm = Vm::new();
    /// let tight = Limits { fuel: Some(50), ..program.limits().clone() };
    /// let config = RunConfig { limits: Some(tight), ..RunConfig::default() };
    /// let e = program.run_in_with(&mut vm, &(), &config).unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::Fuel);
    /// assert_eq!(program.run_in(&mut vm, &())?, xpr::Value::Number(4950.0));
    /// # Ok::<(), xpr::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Program::run`].
    pub fn run_in_with(
        &self,
        vm: &mut Vm,
        context: &dyn Context,
        config: &RunConfig,
    ) -> Result<Value, Error> {
        let options = self.options(config);
        self.checked(self.exec(vm, context, &options, config.budget.as_ref()))
    }

    /// Runs on a VM the caller keeps, as [`Program::run_in`], handing over
    /// an object literal result as its fields ([`Output::Fields`]) rather
    /// than building it, for hosts that convert the result at once (the
    /// Python package's dicts, JSON output). Fuel, memory and errors are
    /// those of [`Program::run_in`].
    ///
    /// ```
    /// use xpr::{Engine, Output, Vm};
    /// let program = Engine::new().compile(r#"{route: a + "-" + b, n: 2}"#)?;
    /// let mut vm = Vm::new();
    /// let ctx = serde_json::json!({"a": "LHR", "b": "JFK"});
    /// match program.run_fields_in(&mut vm, &ctx)? {
    ///     Output::Fields(f) => {
    ///         let keys: Vec<&str> = f.iter().map(|(k, _)| &**k).collect();
    ///         assert_eq!(keys, ["route", "n"]);
    ///     }
    ///     Output::Value(v) => panic!("built {v:?}"),
    /// }
    /// # Ok::<(), xpr::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Program::run`].
    pub fn run_fields_in<'vm>(
        &self,
        vm: &'vm mut Vm,
        context: &dyn Context,
    ) -> Result<Output<'vm>, Error> {
        let output = match &self.budget {
            None => vm.run_fields(&self.program, context, &self.config),
            Some(b) => vm.run_fields_budgeted(&self.program, context, &self.config, b),
        };
        match output {
            Ok(Output::Value(v)) => self.checked(Ok(v)).map(Output::Value),
            Ok(Output::Fields(f)) => match (self.check_result, self.expected) {
                (true, Some(want)) if want != ValueType::Object => {
                    Err(expect::mismatch(want, ValueType::Object, self.root, false))
                }
                _ => Ok(Output::Fields(f)),
            },
            Err(e) => self.checked(Err(e)).map(Output::Value),
        }
    }

    /// The limits of the engine that compiled the program: those each run
    /// is held to unless [`RunConfig::limits`] overrides them.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A result of the wrong type, when results are checked, as an error.
    #[inline]
    fn checked(&self, result: Result<Value, Error>) -> Result<Value, Error> {
        if self.check_result
            && let (Some(want), Ok(v)) = (self.expected, &result)
            && ValueType::of(v) != want
        {
            return Err(expect::mismatch(want, ValueType::of(v), self.root, false));
        }
        result.map_err(|e| self.nulls.name_operand(e))
    }

    /// The program for results of type `expected`: refused now when the
    /// expression's form shows it never yields that type
    /// ([`Program::result_type`]); otherwise every run whose result has
    /// another type fails with `Type error: expected boolean, but the
    /// result is a string` (kind [`ErrorKind::Type`], at the whole
    /// expression, with a hint), checked on each result only when the
    /// form does not settle it.
    ///
    /// # Errors
    /// `Type error: expected boolean, but this expression yields a
    /// number` (with a hint such as `write a comparison such as 'x > 0'`)
    /// when [`Program::result_type`] is known and is not `expected`.
    pub fn expecting(mut self, expected: ValueType) -> Result<Program, Error> {
        match self.result_type {
            Some(t) if t != expected => Err(expect::mismatch(expected, t, self.root, true)),
            known => {
                self.expected = Some(expected);
                self.check_result = known.is_none() || self.loaded;
                Ok(self)
            }
        }
    }

    /// The type every result of the program has, when the expression's
    /// form shows it: a literal, a template, a comparison, `!`,
    /// arithmetic, `&&`/`||`/`??`/`?:` whose operands have one type, a
    /// `let` body, or a call of a built-in function or method that always
    /// returns one type (`isNumber`, `round`, `upper`, `filter`, ...).
    /// `None` when it depends on the data (`total`, `xs.first()`).
    ///
    /// A call of a built-in's name is taken for the built-in: a function
    /// the context supplies under that name, which the run would call
    /// instead, is not foreseen (a JSON record holds no function).
    pub fn result_type(&self) -> Option<ValueType> {
        self.result_type
    }

    /// The source text the program was compiled from (also for a program
    /// [`Engine::load`] loaded: stored programs keep it, for error hints
    /// and listings).
    pub fn source(&self) -> &str {
        self.nulls.source()
    }

    /// The type results must have, set by [`Program::expecting`].
    pub fn expected_type(&self) -> Option<ValueType> {
        self.expected
    }

    /// Runs against a JSON record (its top-level fields are the variables),
    /// converting only the fields the program reads.
    ///
    /// # Errors
    /// As [`Program::run`]; a record that is not a JSON object has no fields.
    pub fn run_json(&self, record: &serde_json::Value) -> Result<Value, Error> {
        match record {
            serde_json::Value::Object(map) => self.run(map),
            _ => self.run(&()),
        }
    }

    /// The context fields the program reads as values (its free variables).
    pub fn free_variables(&self) -> &[Key] {
        self.program.free_variables()
    }

    /// Every name the program may look up in the context: its free
    /// variables and the global names it calls. A call looks its name up
    /// in the context first (a function value named `max` is called by
    /// `max(a, b)` instead of the built-in; a value that is no function
    /// never hides a function, but is what a call of a name that is no
    /// function calls), so a host that hands over only some fields of a
    /// record should hand over these.
    pub fn context_names(&self) -> &[Key] {
        self.program.context_names()
    }

    /// The context paths the program may read: each a context name and the
    /// fields read from it in a chain (`properties.mag` is
    /// `["properties", "mag"]`), none a prefix of another. A host that
    /// converts only part of a record hands over, for each path, the value
    /// at its end inside objects holding only the fields on the paths (a
    /// value on the way that is no object, whole): the result is the same
    /// as with the whole record. See [`xpr_vm::Program::read_paths`].
    ///
    /// ```
    /// let program = xpr::Engine::new().compile("properties.mag > 5 && id != null")?;
    /// let paths: Vec<String> = program.read_paths().iter().map(|p| p.join(".")).collect();
    /// assert_eq!(paths, ["properties.mag", "id"]);
    /// # Ok::<(), xpr::Error>(())
    /// ```
    pub fn read_paths(&self) -> Vec<Vec<Key>> {
        self.program.read_paths()
    }

    /// The built-in and host functions the program calls by name.
    pub fn functions(&self) -> Vec<&str> {
        self.program.functions()
    }

    /// The functions the program calls by a name that is neither a local,
    /// a built-in nor a host function, each with the error its call raises
    /// when reached (did-you-mean hint included, at the first call's
    /// position). The spec counts `Unknown function` among evaluation
    /// errors, so such a program compiles and runs: a call in a branch
    /// that is not taken is no error, and a context may supply a function
    /// of that name. Report these before running to catch typos early.
    ///
    /// ```
    /// let program = xpr::Engine::new().compile("vip ? bonus(total) : 0")?;
    /// let unknown = program.unknown_functions();
    /// assert_eq!(&*unknown[0].name, "bonus");
    /// assert_eq!(unknown[0].error.to_string(), "Unknown function 'bonus' at position 6");
    /// let record = serde_json::json!({"vip": false, "total": 10});
    /// assert_eq!(program.run_json(&record)?, xpr::Value::Number(0.0));
    /// # Ok::<(), xpr::Error>(())
    /// ```
    pub fn unknown_functions(&self) -> &[UnknownFunction] {
        self.program.unknown_functions()
    }

    /// An estimate of the heap bytes the program holds (bytecode,
    /// constants, names, its regex literals' compiled size, and its source,
    /// kept for [`Program::explain`]): what a host that caches many
    /// programs should bound (`xpr batch` does).
    pub fn heap_bytes(&self) -> u64 {
        let source = self.origin.as_ref().map_or(0, |o| o.source.len() as u64);
        self.program.heap_bytes() + source
    }

    /// A static upper bound of the fuel a run uses, as a function of the
    /// sizes of the context's values (see [`xpr_vm::program::cost`]). A
    /// loaded program ([`Engine::load`](super::Engine::load)) whose bytecode
    /// is not what its stored source compiles to has none: the analysis
    /// follows compiled code, and a stored body can hold any code the
    /// loader's checks accept.
    pub fn cost_bound(&self) -> crate::CostBound {
        if !self.is_its_source_compiled() {
            return crate::CostBound::Unbounded {
                reason: "the stored code is not what its source compiles to".into(),
                span: self.root,
            };
        }
        self.program.cost_bound()
    }

    /// The underlying bytecode program.
    pub fn bytecode(&self) -> &xpr_vm::Program {
        &self.program
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.program, f)
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program").finish_non_exhaustive()
    }
}
