//! `Engine` (limits, host functions, clock, randomness) and the compiled
//! `Program` it hands out.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use xpr_syntax::{ParseError, ParseErrorKind, ParseOptions};

use crate::lint::Lint;
use crate::nulls::NullSites;
use xpr_vm::{
    Arity, Budget, CancelHandle, Capabilities, Clock, Context, Error, ErrorKind, HostError,
    HostFunction, Key, Meter, RunOptions, Span, Stopwatch, Value, Vm, program::UnknownFunction,
    vm::Output,
};

use crate::expect::{self, ValueType};

mod store;
pub use store::{STORED_FORMAT_VERSION, STORED_MAGIC};

/// Every budget of a compile and a run. `None` means unlimited.
///
/// Defaults: the spec's limits (10,000 characters, AST depth 50, timeout
/// 100 ms of CPU time), a wall-clock ceiling of 1 s, 8 MiB of compiled
/// regex literals per program, and the VM's fuel, memory and depth
/// defaults (see [`xpr_vm::Limits`]), which stop runaway expressions
/// before the clock does.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Fuel units per run: one per instruction plus built-ins' proportional costs.
    pub fuel: Option<u64>,
    /// Bytes of strings, arrays and objects a run may create.
    pub memory: Option<u64>,
    /// Maximum nesting of function calls, counting calls from built-ins.
    pub call_depth: u32,
    /// Maximum nesting of arrays and objects built or read.
    pub value_depth: u32,
    /// CPU time the evaluating thread may use per run, host functions
    /// included (the spec's timeout; default 100 ms): it does not depend on
    /// the machine's load. `Expression timeout exceeded`.
    pub timeout: Option<Duration>,
    /// Wall-clock time per run: the ceiling that stops a run whose host
    /// function blocks, checked when the call returns. Default
    /// [`WallCeiling::Auto`]: ten times the timeout (1 s), none when the
    /// timeout is off. `Expression timeout exceeded: wall-clock ceiling of
    /// N ms`.
    pub wall_timeout: WallCeiling,
    /// Maximum source length, in characters.
    pub max_length: Option<usize>,
    /// Maximum AST depth (the root is depth 1; parentheses add none).
    pub max_depth: Option<u32>,
    /// Compiled bytes all regex literals of one program may have together,
    /// checked while compiling, before each literal is compiled (see
    /// [`xpr_vm::Regex::compiled_bytes`]; identical literals count once).
    /// Default 8 MiB. Exceeded: [`ErrorKind::Regex`], `Regex size limit
    /// exceeded: ...`, at the literal.
    pub max_regex_bytes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        let vm = xpr_vm::Limits::default();
        let parse = ParseOptions::default();
        Limits {
            fuel: vm.fuel,
            memory: vm.memory,
            call_depth: vm.call_depth,
            value_depth: vm.value_depth,
            timeout: vm.timeout,
            wall_timeout: vm.wall_timeout,
            max_length: parse.max_length,
            max_depth: parse.max_depth,
            max_regex_bytes: Some(xpr_vm::stdlib::regex::DEFAULT_PROGRAM_REGEX_BYTES),
        }
    }
}

impl Limits {
    /// The wall-clock ceiling in force: [`Limits::wall_timeout`] resolved
    /// against [`Limits::timeout`].
    pub fn wall_ceiling(&self) -> Option<Duration> {
        self.wall_timeout.resolve(self.timeout)
    }

    fn vm(&self) -> xpr_vm::Limits {
        xpr_vm::Limits {
            fuel: self.fuel,
            memory: self.memory,
            call_depth: self.call_depth,
            value_depth: self.value_depth,
            timeout: self.timeout,
            wall_timeout: self.wall_timeout,
        }
    }

    fn parse(&self) -> ParseOptions {
        ParseOptions {
            max_length: self.max_length,
            max_depth: self.max_depth,
        }
    }
}

pub use xpr_vm::{Randomness, WallCeiling};

/// Compiles expressions with a fixed set of limits, host functions, clock
/// and randomness. Cheap to clone; share one per configuration.
#[derive(Clone)]
pub struct Engine {
    limits: Limits,
    host: Vec<Arc<HostFunction>>,
    /// Signatures and meanings of host functions, by name ([`Engine::describe`]).
    host_docs: BTreeMap<String, (String, String)>,
    clock: Clock,
    randomness: Randomness,
    stopwatch: Option<Arc<dyn Stopwatch>>,
    capabilities: Capabilities,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("limits", &self.limits)
            .field("host", &self.host)
            .field("randomness", &self.randomness)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// The engine's settings without the host functions' documentation
    /// (what compiling and running need), for [`Program::explain`].
    pub(crate) fn for_explain(&self) -> Engine {
        Engine {
            limits: self.limits.clone(),
            host: self.host.clone(),
            host_docs: BTreeMap::new(),
            clock: self.clock.clone(),
            randomness: self.randomness,
            stopwatch: self.stopwatch.clone(),
            capabilities: self.capabilities.clone(),
        }
    }

    /// An engine with default limits, the system clock and entropy-seeded randomness.
    pub fn new() -> Self {
        Engine {
            limits: Limits::default(),
            host: Vec::new(),
            host_docs: BTreeMap::new(),
            clock: Clock::System,
            randomness: Randomness::Entropy,
            stopwatch: None,
            capabilities: Capabilities::all(),
        }
    }

    /// Allows expressions only the named functions and methods (built-in,
    /// host, or supplied by the context), replacing any earlier allowlist;
    /// names denied stay denied. Using any other is a compile error, kind
    /// [`ErrorKind::Access`], naming the name used and listing the allowed
    /// ones. See [`Capabilities`].
    ///
    /// ```
    /// let engine = xpr::Engine::new().allow_only(["filter", "round"]);
    /// assert!(engine.compile("items.filter(x => round(x.price) > 5)").is_ok());
    /// let e = engine.compile("items.map(x => x.price)").unwrap_err();
    /// assert_eq!(e.kind(), xpr::ErrorKind::Access);
    /// assert_eq!(
    ///     e.to_string(),
    ///     "Access denied: method 'map' is not allowed (allowed: filter, round) at position 6"
    /// );
    /// ```
    pub fn allow_only<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.capabilities = self.capabilities.allow_only(names);
        self
    }

    /// Denies expressions the named functions and methods (for
    /// reproducible runs: `now` and `random`), besides any denied before.
    /// Using one is a compile error, as for [`Engine::allow_only`].
    pub fn deny<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.capabilities = self.capabilities.deny(names);
        self
    }

    /// Replaces the allowed and denied functions and methods.
    pub fn with_capabilities(mut self, capabilities: Capabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The allowed and denied functions and methods.
    pub fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    /// Whether expressions compiled by this engine may use the function or
    /// method `name` (for tools that describe the language to a user or an
    /// LLM: offer only what is allowed).
    pub fn is_allowed(&self, name: &str) -> bool {
        self.capabilities.allows(name)
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the limits.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Replaces the clock `now()` reads (once per run).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Replaces the clocks the time limits read (the thread's CPU time and
    /// the wall clock): for a target without the operating system's, such
    /// as WebAssembly in a browser, or a test that moves time by hand.
    pub fn with_stopwatch(mut self, stopwatch: Arc<dyn Stopwatch>) -> Self {
        self.stopwatch = Some(stopwatch);
        self
    }

    /// Seeds `random()` (`Some`), or disables it (`None`).
    pub fn with_seed(mut self, seed: Option<u64>) -> Self {
        self.randomness = seed.map_or(Randomness::Disabled, Randomness::Seeded);
        self
    }

    /// Sets where `random()` draws from.
    pub fn with_randomness(mut self, randomness: Randomness) -> Self {
        self.randomness = randomness;
        self
    }

    /// Registers a host function callable from expressions as `name(...)`
    /// (and `x |> name(...)`), after locals, context variables and
    /// built-ins. Each call costs one fuel unit; a panic inside `f` is
    /// caught and reported as a host error.
    ///
    /// # Errors
    /// When `name` is not an identifier, is a built-in (a host function
    /// cannot shadow one), or is already registered.
    pub fn register<F>(&mut self, name: &str, arity: Arity, f: F) -> Result<&mut Self, Error>
    where
        F: Fn(&[Value]) -> Result<Value, HostError> + Send + Sync + 'static,
    {
        self.register_host(name, arity, false, move |_, args| f(args))
    }

    /// Like [`Engine::register`], for a function that charges fuel for its own
    /// work through the [`Meter`] (charged when it returns).
    ///
    /// # Errors
    /// As [`Engine::register`].
    pub fn register_metered<F>(
        &mut self,
        name: &str,
        arity: Arity,
        f: F,
    ) -> Result<&mut Self, Error>
    where
        F: Fn(&mut Meter, &[Value]) -> Result<Value, HostError> + Send + Sync + 'static,
    {
        self.register_host(name, arity, true, f)
    }

    /// [`Engine::register_metered`]; `meters` false for a function whose
    /// meter is never charged ([`Engine::register`]), whose fuel per call
    /// is then known before it runs.
    fn register_host<F>(
        &mut self,
        name: &str,
        arity: Arity,
        meters: bool,
        f: F,
    ) -> Result<&mut Self, Error>
    where
        F: Fn(&mut Meter, &[Value]) -> Result<Value, HostError> + Send + Sync + 'static,
    {
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let reject = |why: &str| {
            Err(Error::new(
                ErrorKind::Host,
                format!("cannot register '{name}': {why}"),
            ))
        };
        if !valid || name == "let" || name == "true" || name == "false" || name == "null" {
            return reject("not an identifier");
        }
        if xpr_vm::stdlib::function_id(name).is_some() || matches!(name, "PI" | "E") {
            return reject("a built-in has that name");
        }
        if self.host.iter().any(|h| h.name == name) {
            return reject("already registered");
        }
        let owned = name.to_string();
        let callback = move |meter: &mut Meter, args: &[Value]| {
            catch_unwind(AssertUnwindSafe(|| f(meter, args))).unwrap_or_else(|_| {
                Err(HostError::new(format!("host function '{owned}' panicked")))
            })
        };
        self.host.push(Arc::new(HostFunction {
            name: name.to_string(),
            arity,
            fuel_per_call: 1,
            meters,
            callback: Arc::new(callback),
        }));
        Ok(self)
    }

    /// Describes host function `name` for the language card ([`crate::card`]):
    /// `sig` its parameters and result as the card writes a built-in's
    /// (`"(amount, rate?) -> number"`: `?` an optional parameter, `...` the
    /// rest), `doc` what it does in one line. Without a description the card
    /// shows the arity alone (`vat(arg1) -> any: host function`).
    ///
    /// # Errors
    /// When no host function `name` is registered, when `sig` is malformed
    /// or admits other argument counts than the registered arity, or when
    /// `doc` is empty or spans lines.
    pub fn describe(&mut self, name: &str, sig: &str, doc: &str) -> Result<&mut Self, Error> {
        let reject = |why: String| {
            Err(Error::new(
                ErrorKind::Host,
                format!("cannot describe '{name}': {why}"),
            ))
        };
        let Some(arity) = self.host.iter().find(|h| h.name == name).map(|h| h.arity) else {
            return reject("no host function has that name".into());
        };
        match xpr_vm::stdlib::catalog::sig_arity(sig) {
            Some(a) if a == arity => {}
            Some(a) => return reject(format!("'{sig}' takes {a} arguments, registered {arity}")),
            None => {
                return reject(format!(
                    "'{sig}' is not a signature such as '(a, b?) -> number'"
                ));
            }
        }
        if doc.trim().is_empty() || doc.contains('\n') {
            return reject("the description must be one non-empty line".into());
        }
        self.host_docs
            .insert(name.to_string(), (sig.to_string(), doc.to_string()));
        Ok(self)
    }

    /// The registered host functions, each with its [`Engine::describe`]
    /// signature and meaning if any, in registration order.
    pub(crate) fn host_entries(
        &self,
    ) -> impl Iterator<Item = (&HostFunction, Option<&(String, String)>)> {
        self.host
            .iter()
            .map(|h| (&**h, self.host_docs.get(&h.name)))
    }

    /// Parses and compiles `source` once.
    ///
    /// # Errors
    /// Parse errors (kind [`ErrorKind::Parse`], [`ErrorKind::Length`],
    /// [`ErrorKind::Depth`]) and compile errors (for example an invalid regex
    /// literal). A call of an unknown function is not one: it fails when
    /// reached, and [`Program::unknown_functions`] reports it ahead.
    pub fn compile(&self, source: &str) -> Result<Program, Error> {
        let ast = xpr_syntax::parse_with(source, &self.limits.parse()).map_err(parse_error)?;
        let env = xpr_compiler::CompileEnv {
            host_functions: self.host.clone(),
            max_regex_bytes: self.limits.max_regex_bytes,
            capabilities: self.capabilities.clone(),
        };
        let program = xpr_compiler::compile(&ast, &env)?;
        Ok(Program {
            program,
            nulls: NullSites::new(source, &ast),
            result_type: expect::static_type(&ast),
            expected: None,
            check_result: false,
            loaded: false,
            root: Span::new(ast.span.start, ast.span.end),
            limits: Arc::new(self.limits.clone()),
            config: Arc::new(RunOptions {
                limits: self.limits.vm(),
                clock: self.clock.clone(),
                random: self.randomness,
                cancel: None,
                stopwatch: self.stopwatch.clone(),
            }),
            budget: None,
            origin: crate::explain::origin(self, source),
        })
    }

    /// Compiles `source` for results of type `expected` (a rule or a
    /// filter: [`ValueType::Boolean`]): as [`Engine::compile`], then
    /// [`Program::expecting`].
    ///
    /// # Errors
    /// Any compile error; `Type error: expected boolean, but this
    /// expression yields a number` (kind [`ErrorKind::Type`], at the whole
    /// expression, with a hint) when the expression's form shows it
    /// never yields the expected type.
    ///
    /// ```
    /// use xpr::{Engine, ValueType};
    /// let e = Engine::new().compile_expecting("total * 2", ValueType::Boolean).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "Type error: expected boolean, but this expression yields a number \
    ///      (write a comparison such as 'x > 0') at position 0"
    /// );
    /// ```
    pub fn compile_expecting(&self, source: &str, expected: ValueType) -> Result<Program, Error> {
        self.compile(source)?.expecting(expected)
    }

    /// The parse options of the engine's limits.
    pub(crate) fn parse_options(&self) -> ParseOptions {
        self.limits.parse()
    }

    /// Compiles and runs `source` once against `context`.
    ///
    /// # Errors
    /// Any compile or run error.
    pub fn eval(&self, source: &str, context: &dyn Context) -> Result<Value, Error> {
        self.compile(source)?.run(context)
    }

    /// The tokens the parser expected where `source` fails to parse, for
    /// tools that repair expressions; empty when it parses.
    pub fn expected_tokens(&self, source: &str) -> Vec<String> {
        match xpr_syntax::parse_with(source, &self.limits.parse()) {
            Ok(_) => Vec::new(),
            Err(e) => e.expected,
        }
    }

    /// Every syntax error of `source` one pass can tell apart, in source
    /// order (at most [`xpr_syntax::MAX_ERRORS`]); empty when it parses.
    /// The first is the error [`Engine::compile`] returns; the others are
    /// further mistakes, found by reading each construct of another
    /// language met before them as the XPR it stands for (`a and b or c`:
    /// the errors at `and` and at `or`, each with its hint), so that one
    /// repair can fix them all.
    pub fn parse_errors(&self, source: &str) -> Vec<SyntaxError> {
        xpr_syntax::parse_errors(source, &self.limits.parse())
            .into_iter()
            .map(|e| SyntaxError {
                expected: e.expected.clone(),
                error: parse_error(e),
            })
            .collect()
    }

    /// Static findings about `source`, in source order: errors certain to
    /// be raised when the part is reached (a method the receiver's type,
    /// known from the source, does not have: `"abc".toUpperCase()`), and
    /// warnings about likely mistakes that evaluate without an error
    /// (`s.lower` for `s.lower()`; `mm` for the month in a date format). Each names
    /// XPR's spelling in its hint. The program still compiles and runs as
    /// the spec says: these are for `xpr check` and tools that repair
    /// expressions.
    ///
    /// # Errors
    /// The first syntax error, when `source` does not parse.
    pub fn lint(&self, source: &str) -> Result<Vec<Lint>, Error> {
        let ast = xpr_syntax::parse_with(source, &self.limits.parse()).map_err(parse_error)?;
        Ok(crate::lint::lint(&ast))
    }
}

/// One syntax error of [`Engine::parse_errors`].
#[derive(Debug, Clone)]
pub struct SyntaxError {
    /// The error (kind [`ErrorKind::Parse`], or a length or depth limit),
    /// its span and hint.
    pub error: Error,
    /// The tokens the parser would have accepted there, when known
    /// (`")"`, `"identifier"`); empty otherwise.
    pub expected: Vec<String>,
}

fn parse_error(e: ParseError) -> Error {
    let kind = match e.kind {
        ParseErrorKind::Syntax => ErrorKind::Parse,
        ParseErrorKind::Length => ErrorKind::Length,
        ParseErrorKind::Depth => ErrorKind::Depth,
    };
    let error = Error::new(kind, e.message);
    let error = match e.hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    };
    error.at(Span::new(e.span.start, e.span.end))
}

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
    program: xpr_vm::Program,
    /// The type every result has, when known from the expression's form.
    result_type: Option<ValueType>,
    /// The type results must have ([`Program::expecting`]).
    expected: Option<ValueType>,
    /// Whether each result's type is checked against `expected` (only
    /// when `result_type` does not settle it).
    check_result: bool,
    /// Whether the program was loaded ([`Engine::load`]): its result type
    /// is then the file's word, not the compiler's, so results are checked
    /// whatever it says.
    loaded: bool,
    /// The whole expression, where a result of the wrong type is reported.
    root: Span,
    /// The binary operators of the source, to name a null operand in a
    /// type error's hint.
    nulls: NullSites,
    /// The engine's limits when it compiled the program ([`Program::limits`]).
    limits: Arc<Limits>,
    /// The engine's settings, built once: a run without overrides passes
    /// them to the VM as they are (no per-run copying or seeding).
    config: Arc<RunOptions>,
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
    /// sizes of the context's values (see [`xpr_vm::program::cost`]).
    pub fn cost_bound(&self) -> crate::CostBound {
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
