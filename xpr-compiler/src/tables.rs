//! The program's tables, each entry made once and shared: the constant
//! pool (numbers, strings, compiled regex literals within the program's
//! regex budget), property names, method names, host functions, the
//! functions called, and the globals with their value-position fallback.

use std::sync::Arc;

use xpr_syntax::ast;
use xpr_vm::function::Function;
use xpr_vm::program::{Global, MethodRef};
use xpr_vm::stdlib;
use xpr_vm::{Error, Key, Value};

use crate::Compiler;
use crate::errors::{regex_budget, span, too_many};

/// What a pooled constant is found by.
#[derive(Hash, PartialEq, Eq)]
pub(crate) enum ConstKey {
    Number(u64),
    /// The constant's own string, shared.
    String(Key),
    /// A regex literal's pattern and flags.
    Regex(String, String),
}

/// Before a table's first entry: room for eight, so that a small program's
/// table is allocated once rather than grown (and rehashed) at its fourth.
fn reserve_first<K: std::hash::Hash + Eq, V>(table: &mut crate::HashMap<K, V>) {
    if table.is_empty() {
        table.reserve(8);
    }
}

impl Compiler<'_> {
    /// The constant pool index of `v` (numbers and strings shared).
    pub(crate) fn pooled(&mut self, v: Value, at: ast::Span) -> Result<u32, Error> {
        let key = match &v {
            Value::Number(n) => Some(ConstKey::Number(n.to_bits())),
            Value::String(s) => Some(ConstKey::String(s.clone())),
            _ => None,
        };
        if let Some(&i) = key.as_ref().and_then(|k| self.consts.get(k)) {
            return Ok(i);
        }
        let i = u32::try_from(self.parts.constants.len()).map_err(|_| too_many(at))?;
        self.parts.constants.push(v);
        if let Some(k) = key {
            reserve_first(&mut self.consts);
            self.consts.insert(k, i);
        }
        Ok(i)
    }

    /// The constant pool index of the regex literal `/pattern/flags`,
    /// compiled once per program however often it appears, and only
    /// if its compiled size fits what the program's regex literals may
    /// still take (measured before compiling).
    pub(crate) fn regex(
        &mut self,
        pattern: &str,
        flags: &str,
        at: ast::Span,
    ) -> Result<u32, Error> {
        let key = ConstKey::Regex(pattern.to_string(), flags.to_string());
        if let Some(&i) = self.consts.get(&key) {
            return Ok(i);
        }
        let prepared = match stdlib::regex::prepare(pattern, flags, self.regex_left) {
            Ok(p) => p,
            Err(stdlib::regex::Refusal::Invalid(e)) => return Err(e.or_at(span(at))),
            Err(stdlib::regex::Refusal::OverAllowance) => {
                return Err(regex_budget(self.env, at));
            }
        };
        self.regex_left = self.regex_left.saturating_sub(prepared.compiled_bytes());
        let r = prepared.build().map_err(|e| e.or_at(span(at)))?;
        let i = u32::try_from(self.parts.constants.len()).map_err(|_| too_many(at))?;
        self.parts.constants.push(Value::Regex(Arc::new(r)));
        self.consts.insert(key, i);
        Ok(i)
    }

    pub(crate) fn key(&mut self, name: &str, at: ast::Span) -> Result<u32, Error> {
        if let Some(&i) = self.keys.get(name) {
            return Ok(i);
        }
        let i = u32::try_from(self.parts.keys.len()).map_err(|_| too_many(at))?;
        let name = Key::from(name);
        self.parts.keys.push(name.clone());
        reserve_first(&mut self.keys);
        self.keys.insert(name, i);
        Ok(i)
    }

    /// The index of method name `name` (used at `at`).
    ///
    /// # Errors
    /// The capabilities' denial when the method is not allowed.
    pub(crate) fn method(&mut self, name: &str, at: ast::Span) -> Result<u16, Error> {
        if let Some(&i) = self.methods.get(name) {
            return Ok(i);
        }
        if !self.env.capabilities.allows(name) {
            return Err(self.env.capabilities.denial("method", name, span(at)));
        }
        let i = u16::try_from(self.parts.methods.len()).map_err(|_| too_many(at))?;
        let id = stdlib::method_id(name);
        let name = Key::from(name);
        self.parts.methods.push(MethodRef {
            name: name.clone(),
            id,
        });
        self.methods.insert(name, i);
        Ok(i)
    }

    pub(crate) fn host(&mut self, name: &str, at: ast::Span) -> Result<Option<u16>, Error> {
        if let Some(&i) = self.hosts.get(name) {
            return Ok(Some(i));
        }
        let Some(h) = self.env.host_functions.iter().find(|h| h.name == name) else {
            return Ok(None);
        };
        let i = u16::try_from(self.parts.host_functions.len()).map_err(|_| too_many(at))?;
        self.parts.host_functions.push(h.clone());
        self.hosts.insert(Key::from(name), i);
        Ok(Some(i))
    }

    pub(crate) fn called(&mut self, name: &str) {
        if !self.parts.functions.iter().any(|f| f == name) {
            self.parts.functions.push(name.to_string());
        }
    }

    /// The index of global `name`, read in value position (`read`) or only
    /// called.
    pub(crate) fn global(&mut self, name: &str, read: bool, at: ast::Span) -> Result<u32, Error> {
        if let Some(&i) = self.globals.get(name) {
            if read && let Some(g) = self.parts.globals.get_mut(i as usize) {
                g.read = true;
            }
            return Ok(i);
        }
        let fallback = match name {
            "PI" => Some(Value::Number(std::f64::consts::PI)),
            "E" => Some(Value::Number(std::f64::consts::E)),
            // A function not allowed is not offered, not even as a value.
            _ if !self.env.capabilities.allows(name) => None,
            _ => match stdlib::function_id(name) {
                Some(id) => Some(Value::Function(Arc::new(Function::Builtin(id)))),
                None => self
                    .env
                    .host_functions
                    .iter()
                    .find(|h| h.name == name)
                    .map(|h| Value::Function(Arc::new(Function::Host(h.clone())))),
            },
        };
        let i = u32::try_from(self.parts.globals.len()).map_err(|_| too_many(at))?;
        let name = Key::from(name);
        self.parts.globals.push(Global {
            name: name.clone(),
            fallback,
            read,
        });
        reserve_first(&mut self.globals);
        self.globals.insert(name, i);
        Ok(i)
    }
}
