//! The warnings of a check, as `xpr check --json` gives them: free
//! variables that are not among the known fields (`unknown_field`), and
//! method names no built-in has but close to one that does, as typos
//! (`unknown_method`: `items.filtr(...)`; a name far from every built-in
//! is left alone, since an object's own function field may have it).
//!
//! The `xpr` CLI computes these inside its `check` command, out of reach
//! of other crates; this module does the same from library calls and
//! belongs in the library (say `Program::warnings(known_fields)`) once it
//! has such a function.

use serde_json::{Value as Json, json};

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A free variable that is not a known field.
    Field,
    /// A method no built-in has, near one that does.
    Method,
}

/// One warning: `{kind, name, message, suggestion}`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Warning {
    kind: Kind,
    name: String,
    suggestion: Option<String>,
}

impl Warning {
    fn message(&self) -> String {
        let what = match self.kind {
            Kind::Field => "a field of the records",
            Kind::Method => "a built-in method",
        };
        match &self.suggestion {
            Some(s) => format!("'{}' is not {what} (did you mean '{s}'?)", self.name),
            None => format!("'{}' is not {what}", self.name),
        }
    }

    fn to_json(&self) -> Json {
        json!({
            "kind": match self.kind {
                Kind::Field => "unknown_field",
                Kind::Method => "unknown_method",
            },
            "name": self.name,
            "message": self.message(),
            "suggestion": self.suggestion,
        })
    }
}

/// The warnings of `program`, given the known fields of its records
/// (`None`: not known, so no field warnings), unknown fields first.
pub fn of_program(program: &xpr::Program, known: Option<&[String]>) -> Vec<Json> {
    let mut out = Vec::new();
    if let Some(fields) = known {
        for name in program.free_variables() {
            let name: &str = name;
            if fields.iter().any(|f| f == name) {
                continue;
            }
            out.push(Warning {
                kind: Kind::Field,
                name: name.to_string(),
                suggestion: xpr_vm::suggest::closest(name, fields.iter().map(String::as_str))
                    .map(str::to_string),
            });
        }
    }
    for method in program.bytecode().methods() {
        if method.id.is_some() {
            continue;
        }
        if let Some(near) = xpr_vm::suggest::closest(&method.name, xpr_vm::stdlib::method_names()) {
            out.push(Warning {
                kind: Kind::Method,
                name: method.name.to_string(),
                suggestion: Some(near.to_string()),
            });
        }
    }
    out.iter().map(Warning::to_json).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(source: &str, known: Option<&[&str]>) -> Vec<Json> {
        let program = xpr::Engine::new().compile(source).expect("compiles");
        let known: Option<Vec<String>> = known.map(|k| k.iter().map(|s| s.to_string()).collect());
        of_program(&program, known.as_deref())
    }

    #[test]
    fn a_free_variable_not_among_the_fields_is_warned_about_with_the_closest() {
        let w = warnings("totl > 100 && status == 'paid'", Some(&["total", "status"]));
        assert_eq!(
            w,
            vec![json!({
                "kind": "unknown_field",
                "name": "totl",
                "message": "'totl' is not a field of the records (did you mean 'total'?)",
                "suggestion": "total",
            })]
        );
        let w = warnings("zzz", Some(&["total"]));
        assert_eq!(w[0]["suggestion"], Json::Null);
        assert_eq!(w[0]["message"], "'zzz' is not a field of the records");
    }

    #[test]
    fn without_known_fields_there_are_no_field_warnings() {
        assert!(warnings("totl > 100", None).is_empty());
    }

    #[test]
    fn a_method_typo_is_warned_about_but_not_a_far_name() {
        let w = warnings("items.filtr(x => x > 1)", None);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0]["kind"], "unknown_method");
        assert_eq!(w[0]["suggestion"], "filter");
        assert!(warnings("o.double(4)", None).is_empty());
    }
}
