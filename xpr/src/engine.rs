//! `Engine` (limits, host functions, clock, randomness) and the compiled
//! `Program` it hands out.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use xpr_syntax::{ParseError, ParseErrorKind, ParseOptions};

use crate::lint::Lint;
use crate::nulls::NullSites;
use xpr_vm::{
    Arity, Capabilities, Clock, Context, Error, ErrorKind, HostError, HostFunction, Meter,
    RunOptions, Span, Stopwatch, Value,
};

use crate::expect::{self, ValueType};

mod program;
mod store;
pub use program::{Program, RunConfig};
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
    /// The engine's settings as the VM takes them, built once per program.
    pub(crate) fn run_options(&self) -> RunOptions {
        RunOptions {
            limits: self.limits.vm(),
            clock: self.clock.clone(),
            random: self.randomness,
            cancel: None,
            stopwatch: self.stopwatch.clone(),
        }
    }

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
            config: Arc::new(self.run_options()),
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
