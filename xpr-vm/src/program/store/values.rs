//! Constants and errors in the stored form. A regex literal is stored as
//! its pattern and flags and compiled again when loaded, within the loading
//! engine's regex budget; a function value is stored by name.

use std::sync::Arc;

use super::LoadEnv;
use super::bytes::{Reader, Writer, corrupt};
use crate::error::{Error, ErrorKind};
use crate::function::Function;
use crate::stdlib;
use crate::value::{Key, Map, Value};

/// The deepest nesting of arrays and objects a stored constant may have.
const MAX_NESTING: u32 = 64;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const ARRAY: u8 = 5;
const OBJECT: u8 = 6;
const REGEX: u8 = 7;
const BUILTIN: u8 = 8;
const HOST: u8 = 9;
/// A closure: never in a compiled program's tables; refused when loaded.
const UNSTORABLE: u8 = 10;

/// Writes a constant.
pub(super) fn write_value(w: &mut Writer, v: &Value) {
    match v {
        Value::Null => w.u8(NULL),
        Value::Bool(false) => w.u8(FALSE),
        Value::Bool(true) => w.u8(TRUE),
        Value::Number(n) => {
            w.u8(NUMBER);
            w.f64(*n);
        }
        Value::String(s) => {
            w.u8(STRING);
            w.str(s);
        }
        Value::Array(a) => {
            w.u8(ARRAY);
            w.len(a.len());
            for item in a.items() {
                write_value(w, item);
            }
        }
        Value::Object(o) => {
            w.u8(OBJECT);
            w.len(o.len());
            for (k, item) in o.map() {
                w.str(k);
                write_value(w, item);
            }
        }
        Value::Regex(r) => {
            w.u8(REGEX);
            w.str(r.pattern());
            w.str(r.flags());
        }
        Value::Function(f) => match &**f {
            Function::Builtin(id) => {
                w.u8(BUILTIN);
                w.str(stdlib::function_name(*id));
            }
            Function::Host(h) => {
                w.u8(HOST);
                w.str(&h.name);
            }
            Function::Closure(_) => w.u8(UNSTORABLE),
        },
    }
}

/// Reads a constant, compiling a regex literal within `regex_left` bytes
/// (lowered by what it takes).
pub(super) fn read_value(
    r: &mut Reader,
    env: &LoadEnv,
    regex_left: &mut u64,
    depth: u32,
) -> Result<Value, Error> {
    if depth > MAX_NESTING {
        return Err(corrupt("constant nested too deeply"));
    }
    Ok(match r.u8()? {
        NULL => Value::Null,
        FALSE => Value::Bool(false),
        TRUE => Value::Bool(true),
        NUMBER => {
            let n = r.f64()?;
            if !n.is_finite() {
                return Err(corrupt("a number that is not finite"));
            }
            Value::Number(n)
        }
        STRING => Value::string(r.str()?),
        ARRAY => {
            let n = r.count()?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(read_value(r, env, regex_left, depth + 1)?);
            }
            Value::array(items)
        }
        OBJECT => {
            let n = r.count()?;
            let mut map = Map::with_capacity_and_hasher(n, Default::default());
            for _ in 0..n {
                let k = Key::from(r.str()?);
                let v = read_value(r, env, regex_left, depth + 1)?;
                if map.insert(k, v).is_some() {
                    return Err(corrupt("an object constant repeats a key"));
                }
            }
            Value::object(map)
        }
        REGEX => {
            let pattern = r.str()?;
            let flags = r.str()?;
            Value::Regex(Arc::new(regex(pattern, flags, env, regex_left)?))
        }
        BUILTIN => {
            let name = r.str()?;
            let id = stdlib::function_id(name)
                .ok_or_else(|| corrupt(format_args!("no built-in function '{name}'")))?;
            Value::Function(Arc::new(Function::Builtin(id)))
        }
        HOST => Value::Function(Arc::new(Function::Host(env.host(r.str()?)?))),
        UNSTORABLE => return Err(corrupt("a closure constant cannot be stored")),
        t => return Err(corrupt(format_args!("unknown constant tag {t}"))),
    })
}

/// Compiles a regex literal again, as the compiler does: refused when
/// invalid, or when it would take more than `regex_left` bytes.
fn regex(
    pattern: &str,
    flags: &str,
    env: &LoadEnv,
    regex_left: &mut u64,
) -> Result<crate::Regex, Error> {
    let prepared = match stdlib::regex::prepare(pattern, flags, *regex_left) {
        Ok(p) => p,
        Err(stdlib::regex::Refusal::Invalid(e)) => return Err(e),
        Err(stdlib::regex::Refusal::OverAllowance) => {
            let limit = env.max_regex_bytes.unwrap_or(u64::MAX);
            return Err(Error::new(
                ErrorKind::Regex,
                format!(
                    "Regex size limit exceeded: the regex literals of the expression compile to more than {limit} bytes"
                ),
            ));
        }
    };
    *regex_left = regex_left.saturating_sub(prepared.compiled_bytes());
    prepared.build()
}

/// Writes an error: its kind by name, message, position and hint.
pub(super) fn write_error(w: &mut Writer, e: &Error) {
    w.str(e.kind().name());
    // The message carries the hint as ` (HINT)`, which `with_hint` adds
    // again when read: stored without it.
    let hint = e.hint().and_then(|h| {
        let base = e.message().strip_suffix(&format!(" ({h})"))?;
        Some((base, h))
    });
    w.str(hint.map_or(e.message(), |(base, _)| base));
    match e.span() {
        Some(s) => {
            w.u8(1);
            w.span(s);
        }
        None => w.u8(0),
    }
    match hint {
        Some((_, h)) => {
            w.u8(1);
            w.str(h);
        }
        None => w.u8(0),
    }
}

/// Reads the `Unknown function 'NAME'` error a call of `name` raises (as
/// the compiler makes it: kind [`ErrorKind::Reference`], that message, a
/// hint): anything else is refused, so that a stored program raises no
/// other error than a compiled one could (a timeout, a host error).
pub(super) fn read_unknown(r: &mut Reader, name: &str) -> Result<Error, Error> {
    let kind = r.str()?;
    let message = r.str()?;
    if kind != ErrorKind::Reference.name() || message != format!("Unknown function '{name}'") {
        return Err(corrupt(format_args!(
            "an unknown function's error that is not `Unknown function '{name}'`"
        )));
    }
    let mut e = Error::new(ErrorKind::Reference, message);
    if r.bool()? {
        e = e.at(r.span()?);
    }
    if r.bool()? {
        e = e.with_hint(r.str()?);
    }
    Ok(e)
}
