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
    /// Parse and compile errors, the calls of unknown functions (a JSON
    /// record can never supply a function, so such a call can only fail),
    /// a function or method the engine does not allow, a result of the
    /// wrong type.
    pub errors: Vec<Diagnostic>,
    /// Free variables that are not among the known fields, and method
    /// names no type has but close to one that does (`items.filtr(...)`).
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
    /// Kind `unknown_field` or `unknown_method`, the hint `did you mean
    /// 'X'?` when there is a suggestion, the span of the name's first use
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
    /// limits, allowlist and the expected result type, if given), reports
    /// each call of an unknown function as an error, and warns about free
    /// variables not among `fields` (when given) and method names that no
    /// type has but that are close to a built-in method's.
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
                    errors: vec![self.diagnose(&e, source)],
                    warnings: Vec::new(),
                    free_variables: None,
                    functions: None,
                };
            }
        };
        let errors: Vec<Diagnostic> = program
            .unknown_functions()
            .iter()
            .map(|u| self.diagnose(&u.error, source))
            .collect();
        let free: Vec<String> = program
            .free_variables()
            .iter()
            .map(|k| k.to_string())
            .collect();
        let mut warnings = Vec::new();
        if errors.is_empty() {
            if let Some(fields) = fields {
                for name in free.iter().filter(|v| !fields.contains(v)) {
                    let near = xpr_vm::suggest::closest(name, fields.iter().map(String::as_str));
                    let span = first_use(&program, Use::Global(name));
                    warnings.push(warning(
                        "unknown_field",
                        "a field of the records",
                        name,
                        near,
                        span,
                    ));
                }
            }
            // A method name no type has is only right for an object's own
            // function field (`o.double(4)`): warned about only when it is
            // near a built-in method, as a typo (`items.filtr(...)`).
            for m in program
                .bytecode()
                .methods()
                .iter()
                .filter(|m| m.id.is_none())
            {
                if let Some(near) =
                    xpr_vm::suggest::closest(&m.name, xpr_vm::stdlib::method_names())
                {
                    let span = first_use(&program, Use::Method(&m.name));
                    warnings.push(warning(
                        "unknown_method",
                        "a built-in method",
                        &m.name,
                        Some(near),
                        span,
                    ));
                }
            }
        }
        CheckReport {
            errors,
            warnings,
            free_variables: Some(free),
            functions: Some(program.functions().iter().map(|f| f.to_string()).collect()),
        }
    }

    /// The [`Diagnostic`] of `error` in `source`, its expected tokens
    /// found under the engine's parse limits.
    pub fn diagnose(&self, error: &xpr_vm::Error, source: &str) -> Diagnostic {
        Diagnostic::with_options(error, source, &self.parse_options())
    }
}

/// `'NAME' is not WHAT (did you mean 'NEAR'?)`, a warning.
fn warning(kind: &str, what: &str, name: &str, near: Option<&str>, span: Option<Span>) -> Warning {
    let mut d = Diagnostic::new(kind, format!("'{name}' is not {what}"), Severity::Warning);
    if let Some(near) = near {
        let hint = format!("did you mean '{near}'?");
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
