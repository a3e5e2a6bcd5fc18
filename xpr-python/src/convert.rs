//! Python objects to XPR values and back, read in place.
//!
//! A record is never converted whole: [`Shape`] trees, built once per
//! program from [`xpr::Program::read_paths`], say which fields are read
//! (`properties.mag` reads one field of `properties`); only those are
//! looked up in the `dict` (by interned keys) and converted.
//!
//! Python to XPR: `None`, `bool`, `int`, `float`, `str`, `dict` (string
//! keys), `list` and `tuple` (and their subclasses). An `int` becomes a
//! double (rounded beyond 2^53, as JSON numbers are); NaN and infinities,
//! which XPR never holds, are a `ValueError`; other types a `TypeError`;
//! nesting deeper than the value-depth limit an `XprDepthError`.
//!
//! XPR to Python, as `json.loads` reads the JSON the `xpr` tool writes: a
//! number with no fractional part below 1e21 in magnitude is an `int`
//! (`-0` is `0`), any other a `float`; arrays are lists, objects dicts.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use smallvec::SmallVec;
use xpr::{Context, Field, Key, Map, Value};

/// The values of a record's top-level fields, by root: inline for up to
/// eight (no allocation for a typical rule).
pub(crate) type Values = SmallVec<[Option<Value>; 8]>;

/// What of a value is read.
pub(crate) enum Shape {
    /// All of it.
    Whole,
    /// Only these fields, when it is an object (any other value whole).
    Fields(Vec<Node>),
}

/// A field read, and what of its value.
pub(crate) struct Node {
    /// The field's name.
    pub key: Key,
    /// The same name as a Python string, interned: dict lookups reuse its hash.
    pub py_key: Py<PyString>,
    /// What of the field's value is read.
    pub shape: Shape,
}

/// The top-level fields a program reads, as a tree of [`Node`]s built from
/// its read paths.
pub(crate) fn tree(py: Python<'_>, paths: &[Vec<Key>]) -> Vec<Node> {
    let mut roots: Vec<Node> = Vec::new();
    for path in paths {
        let mut level = &mut roots;
        for (i, key) in path.iter().enumerate() {
            let last = i + 1 == path.len();
            let at = match level.iter().position(|n| n.key == *key) {
                Some(at) => at,
                None => {
                    level.push(Node {
                        key: key.clone(),
                        py_key: PyString::intern(py, key).unbind(),
                        shape: if last {
                            Shape::Whole
                        } else {
                            Shape::Fields(Vec::new())
                        },
                    });
                    level.len() - 1
                }
            };
            let node = &mut level[at];
            if last {
                node.shape = Shape::Whole;
                break;
            }
            match &mut node.shape {
                // Read paths are never prefixes of one another.
                Shape::Whole => break,
                Shape::Fields(children) => level = children,
            }
        }
    }
    roots
}

/// Where [`Reader::record_into`] puts values.
pub(crate) trait Push {
    /// Appends `v`.
    fn push(&mut self, v: Option<Value>);
}

impl Push for Values {
    #[inline]
    fn push(&mut self, v: Option<Value>) {
        SmallVec::push(self, v);
    }
}

impl Push for Vec<Option<Value>> {
    #[inline]
    fn push(&mut self, v: Option<Value>) {
        Vec::push(self, v);
    }
}

/// The record an evaluation reads: the values of the top-level fields the
/// program reads, by position in the roots of its tree (`None`: absent).
pub(crate) struct Record<'a> {
    /// The top-level names, as the program holds them.
    pub names: &'a [Key],
    /// Their values in this record.
    pub values: &'a [Option<Value>],
}

impl Record<'_> {
    fn find(&self, name: &str) -> Option<&Value> {
        // The VM passes the program's own name: the pointer usually matches.
        let at = self
            .names
            .iter()
            .position(|k| std::ptr::eq(k.as_ptr(), name.as_ptr()) || **k == *name)?;
        self.values.get(at)?.as_ref()
    }
}

impl Context for Record<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.find(name).cloned()
    }

    #[inline]
    fn lookup(&self, name: &str, _hash: u64) -> Option<Field<'_>> {
        self.find(name).map(Field::Borrowed)
    }
}

/// Reads records from Python objects under a value-depth limit.
#[derive(Clone, Copy)]
pub(crate) struct Reader {
    /// The deepest nesting of lists and dicts converted (`[]` is 1).
    pub max_depth: u32,
}

impl Reader {
    /// Appends the values of `roots` in `record` (a `dict`; `None` has no
    /// fields) to `out`: `None` for a field the record lacks.
    pub fn record_into(
        &self,
        record: &Bound<'_, PyAny>,
        roots: &[Node],
        out: &mut impl Push,
    ) -> PyResult<()> {
        if record.is_none() {
            for _ in roots {
                out.push(None);
            }
            return Ok(());
        }
        let dict = record.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a context must be a dict, not {}",
                type_name(record)
            ))
        })?;
        for node in roots {
            let value = match dict.get_item(node.py_key.bind(record.py()))? {
                Some(v) => Some(self.shaped(&v, &node.shape, 1)?),
                None => None,
            };
            out.push(value);
        }
        Ok(())
    }

    /// `obj` as far as `shape` reads it; `depth` is the nesting level an
    /// array or object made from it has.
    fn shaped(&self, obj: &Bound<'_, PyAny>, shape: &Shape, depth: u32) -> PyResult<Value> {
        let (Shape::Fields(fields), Ok(dict)) = (shape, obj.cast::<PyDict>()) else {
            return self.whole(obj, depth);
        };
        self.check_depth(depth)?;
        let mut map = Map::default();
        map.reserve(fields.len());
        for node in fields {
            if let Some(v) = dict.get_item(node.py_key.bind(obj.py()))? {
                map.insert(node.key.clone(), self.shaped(&v, &node.shape, depth + 1)?);
            }
        }
        Ok(Value::object(map))
    }

    fn check_depth(&self, depth: u32) -> PyResult<()> {
        if depth > self.max_depth {
            let e = xpr::Error::new(
                xpr::ErrorKind::Depth,
                format!(
                    "Value depth limit exceeded: input nested deeper than {} levels",
                    self.max_depth
                ),
            );
            return Err(Python::attach(|py| crate::errors::to_py(py, &e, "")));
        }
        Ok(())
    }

    /// All of `obj`.
    pub fn whole(&self, obj: &Bound<'_, PyAny>, depth: u32) -> PyResult<Value> {
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return Ok(Value::String(Key::from(s.to_str()?)));
        }
        if let Ok(f) = obj.cast_exact::<PyFloat>() {
            return number(f.value());
        }
        if let Ok(b) = obj.cast_exact::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.cast_exact::<PyInt>() {
            return int(i);
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            self.check_depth(depth)?;
            let mut map = Map::default();
            map.reserve(d.len());
            for (k, v) in d.iter() {
                let Ok(k) = k.cast::<PyString>() else {
                    return Err(PyTypeError::new_err(format!(
                        "dict keys must be str, not {}",
                        type_name(&k)
                    )));
                };
                map.insert(Key::from(k.to_str()?), self.whole(&v, depth + 1)?);
            }
            return Ok(Value::object(map));
        }
        if let Ok(l) = obj.cast::<PyList>() {
            self.check_depth(depth)?;
            let items = l
                .iter()
                .map(|v| self.whole(&v, depth + 1))
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Value::array(items));
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            self.check_depth(depth)?;
            let items = t
                .iter()
                .map(|v| self.whole(&v, depth + 1))
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Value::array(items));
        }
        // Subclasses of the scalar types (bool cannot be subclassed).
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Value::String(Key::from(s.to_str()?)));
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return int(i);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return number(f.value());
        }
        Err(PyTypeError::new_err(format!(
            "{} has no XPR value (use None, bool, int, float, str, list, tuple or dict)",
            type_name(obj)
        )))
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "this object".into(), |n| format!("'{n}'"))
}

fn number(n: f64) -> PyResult<Value> {
    if n.is_finite() {
        Ok(Value::Number(n))
    } else {
        Err(PyValueError::new_err(format!(
            "{n} has no XPR value: numbers are finite (spec: Number Representation)"
        )))
    }
}

fn int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    match i.extract::<i64>() {
        Ok(n) => Ok(Value::Number(n as f64)),
        // Beyond 64 bits: float(i), an OverflowError beyond the doubles.
        Err(_) => number(i.extract::<f64>()?),
    }
}

/// Python strings of the object keys met lately, by the key's address: a
/// result object's keys are usually the program's own (constants), shared
/// from one result to the next; their Python strings then keep their
/// hash, which a dict insertion needs.
const KEY_CACHE: usize = 64;

thread_local! {
    static KEYS: std::cell::RefCell<Vec<(Key, Py<PyString>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `k` as a Python string, from [`KEYS`] when it is there.
fn key<'py>(py: Python<'py>, k: &Key) -> Bound<'py, PyString> {
    KEYS.with(|cache| {
        let Ok(mut cache) = cache.try_borrow_mut() else {
            return PyString::new(py, k);
        };
        if let Some((_, s)) = cache.iter().find(|(c, _)| std::sync::Arc::ptr_eq(c, k)) {
            return s.bind(py).clone();
        }
        let s = PyString::new(py, k);
        if cache.len() == KEY_CACHE {
            cache.remove(0);
        }
        cache.push((k.clone(), s.clone().unbind()));
        s
    })
}

/// 1e21: from here on the `xpr` tool writes numbers in exponent form,
/// which `json.loads` reads as `float`.
const EXPONENT_FORM: f64 = 1e21;

/// `value` as a Python object.
///
/// # Errors
/// A function or a regex, which have no Python form: `XprTypeError`.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> Result<Bound<'py, PyAny>, PyErr> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            let n = *n;
            if n.fract() == 0.0 && n.abs() < EXPONENT_FORM {
                if n.abs() < 9.0e18 {
                    (n as i64).into_pyobject(py)?.into_any()
                } else {
                    (n as i128).into_pyobject(py)?.into_any()
                }
            } else {
                PyFloat::new(py, n).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .items()
                .iter()
                .map(|v| to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (k, v) in o.map() {
                dict.set_item(key(py, k), to_py(py, v)?)?;
            }
            dict.into_any()
        }
        Value::Function(_) | Value::Regex(_) => {
            let e = xpr::Error::type_error(format!(
                "cannot convert {} to a Python value",
                value.type_name()
            ));
            return Err(crate::errors::to_py(py, &e, ""));
        }
    })
}
