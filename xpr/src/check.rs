//! Checking an expression without running it ([`Engine::check`]): the
//! report `xpr check` prints and an agent's `check` tool returns. Every
//! problem is a [`Diagnostic`].

use xpr_vm::{Op, Span};

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::{Engine, Program};

/// What [`Engine::check`] found: the errors that make the expression
/// unusable, the warnings that do not, and (when it compiled) the context
/// fields it reads and the functions it calls.
///
/// The expression is valid exactly when no diagnostic has
/// [`Severity::Error`] ([`CheckReport::is_valid`]): a tool derives both its
/// `valid` field and its exit status from that one test.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// Parse and compile errors (every syntax error one pass tells apart),
    /// the calls of unknown functions (a JSON record can never supply a
    /// function, so such a call can only fail), the methods a receiver of
    /// a type known from the source lacks, a function or method the engine
    /// does not allow, a result of the wrong type; in source order.
    pub errors: Vec<Diagnostic>,
    /// Free variables that are not among the known fields or are other
    /// languages' names (`None`), method names no type has that are
    /// another language's or close to one a type has (`s.toUpperCase()`,
    /// `items.filtr(...)`), and the likely mistakes of [`Engine::lint`].
    /// Severity [`Severity::Warning`] unless [`CheckReport::deny_warnings`]
    /// made them errors.
    pub warnings: Vec<Warning>,
    /// The context fields the expression reads (its free variables), in
    /// order of first use; `None` when it did not compile.
    pub free_variables: Option<Vec<String>>,
    /// The built-in and host functions it calls; `None` when it did not compile.
    pub functions: Option<Vec<String>>,
}

/// A warning of a [`CheckReport`]: its diagnostic, the name it is about
/// and the nearest known name when the name looks like a typo of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Kind `unknown_field`, `unknown_method`, `foreign_name`, or a
    /// [`crate::Lint`]'s kind; the hint (`did you mean 'X'?` when there is
    /// a suggestion, else the table's); the span of the name's first use
    /// when the bytecode shows it.
    pub diagnostic: Diagnostic,
    /// The field or method name.
    pub name: String,
    /// The known name it is likely a typo of.
    pub suggestion: Option<String>,
}

impl CheckReport {
    /// Whether no diagnostic, error or denied warning, has severity error.
    pub fn is_valid(&self) -> bool {
        self.first_error().is_none()
    }

    /// The first error: of [`CheckReport::errors`], else the first denied warning.
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.errors
            .iter()
            .chain(self.warnings.iter().map(|w| &w.diagnostic))
            .find(|d| d.severity == Severity::Error)
    }

    /// Makes every warning an error (as `rustc -D warnings`): the
    /// expression is then valid only without warnings.
    pub fn deny_warnings(&mut self) {
        for w in &mut self.warnings {
            w.diagnostic.severity = Severity::Error;
        }
    }

    /// The JSON report: `{"valid": BOOL, "error": DIAGNOSTIC (only when
    /// not valid), "errors": [DIAGNOSTIC...], "warnings": [DIAGNOSTIC with
    /// "name" and "suggestion"...], "free_variables": [...], "functions":
    /// [...]}` (the last two only when the expression compiled). See
    /// [`Diagnostic::to_json`].
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Map, Value as Json};
        let mut out = Map::new();
        out.insert("valid".into(), Json::Bool(self.is_valid()));
        if let Some(first) = self.first_error() {
            out.insert("error".into(), first.to_json());
        }
        out.insert(
            "errors".into(),
            Json::Array(self.errors.iter().map(Diagnostic::to_json).collect()),
        );
        let warnings = self.warnings.iter().map(|w| {
            let mut j = w.diagnostic.to_json();
            if let Json::Object(m) = &mut j {
                m.insert("name".into(), Json::String(w.name.clone()));
                m.insert(
                    "suggestion".into(),
                    w.suggestion.clone().map_or(Json::Null, Json::String),
                );
            }
            j
        });
        out.insert("warnings".into(), Json::Array(warnings.collect()));
        if let Some(free) = &self.free_variables {
            out.insert("free_variables".into(), free.clone().into());
        }
        if let Some(functions) = &self.functions {
            out.insert("functions".into(), functions.clone().into());
        }
        Json::Object(out)
    }
}

impl Engine {
    /// Checks `source` without running it: compiles it (under the engine's
    /// limits, allowlist and the expected result type, if given) and
    /// reports:
    /// - as errors: every syntax error one pass tells apart
    ///   ([`Engine::parse_errors`]), or else each call of an unknown
    ///   function and each method the receiver's type, known from the
    ///   source, lacks ([`Engine::lint`]);
    /// - as warnings: free variables not among `fields` (when given),
    ///   other languages' names (`None`, `Math`; unless among `fields`),
    ///   method names no type has that are another language's or close to
    ///   a built-in method's, and the lint's likely mistakes.
    ///
    /// Each carries the hint of the table of `xpr_vm::foreign` where it
    /// has one.
    pub fn check(
        &self,
        source: &str,
        fields: Option<&[String]>,
        expect: Option<crate::ValueType>,
    ) -> CheckReport {
        let compiled = match expect {
            Some(t) => self.compile_expecting(source, t),
            None => self.compile(source),
        };
        let program = match compiled {
            Ok(p) => p,
            Err(e) => {
                return CheckReport {
                    errors: self.compile_errors(&e, source),
                    warnings: Vec::new(),
                    free_variables: None,
                    functions: None,
                };
            }
        };
        let lints = self.lint(source).unwrap_or_default();
        let mut errors: Vec<Diagnostic> = program
            .unknown_functions()
            .iter()
            .map(|u| self.diagnose(&u.error, source))
            .chain(
                lints
                    .iter()
                    .filter(|l| l.severity == Severity::Error)
                    .map(|l| Diagnostic::with_expected(&l.error, Vec::new())),
            )
            .collect();
        errors.sort_by_key(|d| d.position());
        let free: Vec<String> = program
            .free_variables()
            .iter()
            .map(|k| k.to_string())
            .collect();
        let mut warnings = Vec::new();
        if errors.is_empty() {
            for name in &free {
                if fields.is_some_and(|f| f.contains(name)) {
                    continue;
                }
                let span = first_use(&program, Use::Global(name));
                if let Some(hint) = xpr_vm::foreign::name_hint(name) {
                    warnings.push(warning(
                        "foreign_name",
                        "an XPR name",
                        name,
                        (None, Some(hint)),
                        span,
                    ));
                } else if let Some(fields) = fields {
                    let near = xpr_vm::suggest::closest(name, fields.iter().map(String::as_str));
                    warnings.push(warning(
                        "unknown_field",
                        "a field of the records",
                        name,
                        (near, None),
                        span,
                    ));
                }
            }
            // A method name no type has is only right for an object's own
            // function field (`o.double(4)`): warned about only when it is
            // another language's (`s.toUpperCase()`) or near a built-in
            // method, as a typo (`items.filtr(...)`).
            for m in program
                .bytecode()
                .methods()
                .iter()
                .filter(|m| m.id.is_none())
            {
                if let Some(hint) = xpr_vm::foreign::method_hint(&m.name, None) {
                    // A typo's near name is also the `suggestion`.
                    let near = hint
                        .strip_prefix("did you mean '")
                        .and_then(|h| h.strip_suffix("'?"))
                        .map(str::to_string);
                    let span = first_use(&program, Use::Method(&m.name));
                    warnings.push(warning(
                        "unknown_method",
                        "a built-in method",
                        &m.name,
                        (near.as_deref(), Some(hint.clone())),
                        span,
                    ));
                }
            }
            for l in lints.iter().filter(|l| l.severity == Severity::Warning) {
                let mut d = Diagnostic::with_expected(&l.error, Vec::new());
                d.kind = l.kind.to_string();
                d.severity = Severity::Warning;
                warnings.push(Warning {
                    diagnostic: d,
                    name: l.name.clone(),
                    suggestion: None,
                });
            }
        }
        CheckReport {
            errors,
            warnings,
            free_variables: Some(free),
            functions: Some(program.functions().iter().map(|f| f.to_string()).collect()),
        }
    }

    /// The diagnostics of a failed compile: for a syntax error, every
    /// syntax error of [`Engine::parse_errors`] (the first being `error`);
    /// else `error`'s.
    fn compile_errors(&self, error: &xpr_vm::Error, source: &str) -> Vec<Diagnostic> {
        if error.kind() == xpr_vm::ErrorKind::Parse {
            let all = self.parse_errors(source);
            if all
                .first()
                .is_some_and(|s| s.error.to_string() == error.to_string())
            {
                return all
                    .into_iter()
                    .map(|s| Diagnostic::with_expected(&s.error, s.expected))
                    .collect();
            }
        }
        vec![self.diagnose(error, source)]
    }

    /// The [`Diagnostic`] of `error` in `source`, its expected tokens
    /// found under the engine's parse limits.
    pub fn diagnose(&self, error: &xpr_vm::Error, source: &str) -> Diagnostic {
        Diagnostic::with_options(error, source, &self.parse_options())
    }
}

/// `'NAME' is not WHAT (HINT)`, a warning; the hint is `hint`, else `did
/// you mean 'NEAR'?` when there is a near name.
fn warning(
    kind: &str,
    what: &str,
    name: &str,
    (near, hint): (Option<&str>, Option<String>),
    span: Option<Span>,
) -> Warning {
    let mut d = Diagnostic::new(kind, format!("'{name}' is not {what}"), Severity::Warning);
    if let Some(hint) = hint.or_else(|| near.map(|n| format!("did you mean '{n}'?"))) {
        d.message = format!("{} ({hint})", d.message);
        d.hint = Some(hint);
    }
    d.span = span;
    d.text = match span {
        Some(s) => format!("{} at position {}", d.message, s.start),
        None => d.message.clone(),
    };
    Warning {
        diagnostic: d,
        name: name.to_string(),
        suggestion: near.map(str::to_string),
    }
}

/// A name whose first use [`first_use`] looks for.
enum Use<'a> {
    /// A context name read in value position.
    Global(&'a str),
    /// A method called by name after a dot.
    Method(&'a str),
}

/// The span of the first instruction (in bytecode order, prototype by
/// prototype) that reads the global or calls the method.
fn first_use(program: &Program, what: Use<'_>) -> Option<Span> {
    let bytecode = program.bytecode();
    let names = bytecode.context_names();
    let methods = bytecode.methods();
    bytecode.protos().iter().find_map(|proto| {
        proto.code.iter().zip(&proto.spans).find_map(|(op, span)| {
            let hit = match (op, &what) {
                (Op::LoadGlobal(g), Use::Global(name)) => {
                    names.get(*g as usize).is_some_and(|n| &**n == *name)
                }
                (Op::CallMethod { method, .. } | Op::CallMethodMark(method), Use::Method(name)) => {
                    methods
                        .get(usize::from(*method))
                        .is_some_and(|m| &*m.name == *name)
                }
                _ => false,
            };
            hit.then_some(*span)
        })
    })
}
