//! Which built-in and host functions and methods an expression may use:
//! an allowlist, a denylist, or both. The compiler checks every function
//! and method name a program uses against it (method names are static in
//! XPR, so the check is complete) and refuses the program otherwise.

use std::collections::BTreeSet;

use crate::error::{Error, ErrorKind, Span};

/// The functions and methods expressions may use, by name: everything
/// (the default), only the names of an allowlist, and never the names of a
/// denylist. A name stands for the function and the method of that name
/// (`max` allows `max(a, b)` and `xs.max()`); host functions and the
/// functions a context supplies are named the same way. Locals (`let`
/// bindings and arrow parameters) are not capabilities: calling one is
/// always allowed.
///
/// ```
/// use xpr_vm::Capabilities;
/// let reproducible = Capabilities::all().deny(["now", "random"]);
/// assert!(reproducible.allows("round") && !reproducible.allows("now"));
/// let narrow = Capabilities::only(["filter", "map", "round"]);
/// assert!(narrow.allows("map") && !narrow.allows("sort"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `None`: every name not denied.
    allow: Option<BTreeSet<Box<str>>>,
    deny: BTreeSet<Box<str>>,
}

/// How many allowed names an error lists before `... and N more`.
const LISTED: usize = 40;

impl Capabilities {
    /// Every function and method (the default).
    pub fn all() -> Self {
        Capabilities::default()
    }

    /// Only the named functions and methods.
    pub fn only<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Capabilities::all().allow_only(names)
    }

    /// Replaces the allowlist: only the named functions and methods, less
    /// any denied.
    #[must_use]
    pub fn allow_only<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.allow = Some(names.into_iter().map(|n| n.as_ref().into()).collect());
        self
    }

    /// Adds the named functions and methods to the denylist.
    #[must_use]
    pub fn deny<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.deny
            .extend(names.into_iter().map(|n| Box::from(n.as_ref())));
        self
    }

    /// Whether expressions may use the function or method `name`.
    pub fn allows(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.contains(name)) && !self.deny.contains(name)
    }

    /// Whether every name is allowed (no allowlist, no denylist).
    pub fn allows_everything(&self) -> bool {
        self.allow.is_none() && self.deny.is_empty()
    }

    /// The allowlist less the denied names, in alphabetical order; `None`
    /// when there is no allowlist (every name not denied is allowed).
    pub fn allowed(&self) -> Option<Vec<&str>> {
        let allow = self.allow.as_ref()?;
        Some(
            allow
                .iter()
                .filter(|n| !self.deny.contains(*n))
                .map(|n| &**n)
                .collect(),
        )
    }

    /// The denied names, in alphabetical order.
    pub fn denied(&self) -> Vec<&str> {
        self.deny.iter().map(|n| &**n).collect()
    }

    /// The error for using `name`, which these capabilities do not allow,
    /// at `at`; `what` is `"function"` or `"method"`. Kind
    /// [`ErrorKind::Access`]: `Access denied: function 'now' is not
    /// allowed`, with the hint naming what is (`allowed: abs, round`, the
    /// first 40 names then `... and N more`; or `every function and method
    /// except now, random`), after the nearest allowed name when `name`
    /// looks like a typo of one.
    #[cold]
    pub fn denial(&self, what: &str, name: &str, at: Span) -> Error {
        let hint = match self.allowed() {
            Some(allowed) => {
                let near = crate::suggest::closest(name, allowed.iter().copied())
                    .map(|n| format!("did you mean '{n}'? "))
                    .unwrap_or_default();
                let list = if allowed.is_empty() {
                    "none".to_string()
                } else if allowed.len() > LISTED {
                    format!(
                        "{} ... and {} more",
                        allowed[..LISTED].join(", "),
                        allowed.len() - LISTED
                    )
                } else {
                    allowed.join(", ")
                };
                format!("{near}allowed: {list}")
            }
            None => format!(
                "every function and method except {}",
                self.denied().join(", ")
            ),
        };
        Error::new(
            ErrorKind::Access,
            format!("Access denied: {what} '{name}' is not allowed"),
        )
        .with_hint(hint)
        .at(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_and_deny_combine() {
        let c = Capabilities::only(["map", "now", "round"]).deny(["now"]);
        assert!(c.allows("map") && c.allows("round"));
        assert!(!c.allows("now") && !c.allows("filter"));
        assert_eq!(c.allowed(), Some(vec!["map", "round"]));
        assert_eq!(c.denied(), vec!["now"]);
        assert!(Capabilities::all().allows_everything());
        assert!(!c.allows_everything());
        assert_eq!(Capabilities::all().deny(["x"]).allowed(), None);
    }

    #[test]
    fn the_denial_names_the_use_and_what_is_allowed() {
        let c = Capabilities::only(["upper", "round"]);
        let e = c.denial("method", "uper", Span::new(2, 6));
        assert_eq!(e.kind(), ErrorKind::Access);
        assert_eq!(
            e.to_string(),
            "Access denied: method 'uper' is not allowed (did you mean 'upper'? allowed: round, upper) at position 2"
        );
        assert_eq!(
            e.hint(),
            Some("did you mean 'upper'? allowed: round, upper")
        );
        let e =
            Capabilities::all()
                .deny(["random", "now"])
                .denial("function", "now", Span::new(0, 3));
        assert_eq!(
            e.message(),
            "Access denied: function 'now' is not allowed (every function and method except now, random)"
        );
        let many = Capabilities::only((0..50).map(|i| format!("f{i:02}")));
        let e = many.denial("function", "g", Span::new(0, 1));
        assert!(e.message().ends_with("f39 ... and 10 more)"), "{e}");
        let none = Capabilities::only(Vec::<String>::new());
        let e = none.denial("function", "abs", Span::new(0, 3));
        assert!(e.message().ends_with("(allowed: none)"), "{e}");
    }
}
