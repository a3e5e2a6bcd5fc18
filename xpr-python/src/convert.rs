//! Python objects to XPR values and back, read in place.
//!
//! A record is never converted whole: [`Shape`] trees, built once per
//! program from [`xpr::Program::read_paths`], say which fields are read
//! (`properties.mag` reads one field of `properties`); only those are
//! looked up in the `dict` (by interned keys) and converted. When every
//! value on the way to a root's leaves is a dict, only the leaves are
//! converted ([`Slot::Leaves`]): the VM asks for `properties.mag` whole
//! ([`xpr::Context::lookup_path`]) and the `properties` object is never
//! built, unless the program reads it otherwise.
//!
//! Python to XPR: `None`, `bool`, `int`, `float`, `str`, `dict` (string
//! keys), `list` and `tuple` (and their subclasses). An `int` becomes a
//! double (rounded beyond 2^53, as JSON numbers are, by its value alone:
//! no Python code runs, a subclass's `__float__` included; an
//! `OverflowError` beyond the doubles); NaN and infinities, which XPR
//! never holds, are a `ValueError`; other types a `TypeError`; nesting
//! deeper than the value-depth limit an `XprDepthError`.
//!
//! XPR to Python, as `json.loads` reads the JSON the `xpr` tool writes: a
//! number with no fractional part below 1e21 in magnitude is an `int`
//! (`-0` is `0`), any other a `float`; arrays are lists, objects dicts.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use smallvec::SmallVec;
use xpr::{Context, Field, Key, Map, Value};

/// What a record holds in one slot of a program's layout ([`Layout`]).
#[derive(Debug)]
pub(crate) enum Slot<'a> {
    /// The field is absent.
    Absent,
    /// A root's value (only its read fields, when it is read in part), or
    /// a leaf's value whole.
    Value(Value),
    /// A Python `str` (exactly), lent as text for one `evaluate`: a string
    /// the program only compares or concatenates is never copied.
    Text(&'a str),
    /// A root read in part whose values on the way to its leaves are all
    /// dicts: only its leaves were converted, into their own slots; the
    /// object is built from them if the VM asks for it.
    Leaves,
}

/// A record's slots: the roots' first, by position, then the leaves'.
/// Inline for up to eight (no allocation for a typical rule).
pub(crate) type Values<'a> = SmallVec<[Slot<'a>; 8]>;

/// The `str` values of a record kept for [`Slot::Text`]: each slot and
/// its string (a reference held for the run).
pub(crate) type Texts<'py> = SmallVec<[(usize, Bound<'py, PyString>); 4]>;

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
    /// The record slot of a root, or of a leaf (a field read whole)
    /// below a root read in part; unused for the fields on the way.
    pub slot: usize,
}

/// The top-level fields a program reads ([`Node`] trees) and the number
/// of slots a record of it has.
pub(crate) struct Layout {
    /// The roots, whose slots are their positions.
    pub roots: Vec<Node>,
    /// Slots a record has: the roots', then the leaves'.
    pub width: usize,
}

impl Layout {
    /// The layout of the read paths `paths`.
    pub fn new(py: Python<'_>, paths: &[Vec<Key>]) -> Layout {
        let mut roots = tree(py, paths);
        let mut width = roots.len();
        for (i, root) in roots.iter_mut().enumerate() {
            root.slot = i;
            if let Shape::Fields(children) = &mut root.shape {
                number_leaves(children, &mut width);
            }
        }
        Layout { roots, width }
    }
}

/// Gives the leaves below `nodes` the next slots, in depth-first order.
fn number_leaves(nodes: &mut [Node], next: &mut usize) {
    for node in nodes {
        match &mut node.shape {
            Shape::Whole => {
                node.slot = *next;
                *next += 1;
            }
            Shape::Fields(children) => number_leaves(children, next),
        }
    }
}

/// The top-level fields a program reads, as a tree of [`Node`]s built from
/// its read paths.
fn tree(py: Python<'_>, paths: &[Vec<Key>]) -> Vec<Node> {
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
                        slot: 0,
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

/// Where [`Reader::record_into`] puts a record's slots.
pub(crate) trait Push<'a> {
    /// Appends `n` [`Slot::Absent`]s.
    fn push_absent(&mut self, n: usize);
    /// All slots.
    fn slots(&mut self) -> &mut [Slot<'a>];
}

impl<'a> Push<'a> for Values<'a> {
    #[inline]
    fn push_absent(&mut self, n: usize) {
        for _ in 0..n {
            self.push(Slot::Absent);
        }
    }

    #[inline]
    fn slots(&mut self) -> &mut [Slot<'a>] {
        self
    }
}

impl<'a> Push<'a> for Vec<Slot<'a>> {
    #[inline]
    fn push_absent(&mut self, n: usize) {
        for _ in 0..n {
            self.push(Slot::Absent);
        }
    }

    #[inline]
    fn slots(&mut self) -> &mut [Slot<'a>] {
        self
    }
}

/// The record an evaluation reads: the slots of one record in the
/// program's [`Layout`].
pub(crate) struct Record<'a> {
    /// The program's roots.
    pub roots: &'a [Node],
    /// The record's slots.
    pub slots: &'a [Slot<'a>],
}

static NULL: Value = Value::Null;

/// Whether `node` is the field `name`: the VM passes the program's own
/// key, whose pointer usually matches.
#[inline]
fn named(node: &Node, name: &str) -> bool {
    std::ptr::eq(node.key.as_ptr(), name.as_ptr()) || *node.key == *name
}

impl Record<'_> {
    fn root(&self, name: &str) -> Option<&Node> {
        self.roots.iter().find(|n| named(n, name))
    }

    fn slot(&self, node: &Node) -> &Slot<'_> {
        self.slots.get(node.slot).unwrap_or(&Slot::Absent)
    }

    /// The object of a [`Slot::Leaves`] root below `node`, as
    /// [`Reader::shaped`] would have built it.
    fn build(&self, node: &Node) -> Value {
        let Shape::Fields(children) = &node.shape else {
            return match self.slot(node) {
                Slot::Value(v) => v.clone(),
                Slot::Text(s) => Value::from(*s),
                _ => Value::Null,
            };
        };
        let mut map = Map::default();
        map.reserve(children.len());
        for child in children {
            match (&child.shape, self.slot(child)) {
                (Shape::Whole, Slot::Value(v)) => {
                    map.insert(child.key.clone(), v.clone());
                }
                (Shape::Whole, Slot::Text(s)) => {
                    map.insert(child.key.clone(), Value::from(*s));
                }
                (Shape::Whole, _) => {}
                (Shape::Fields(_), _) => {
                    map.insert(child.key.clone(), self.build(child));
                }
            }
        }
        Value::object(map)
    }
}

impl Context for Record<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        match self.lookup(name, 0)? {
            Field::Borrowed(v) => Some(v.clone()),
            Field::Owned(v) => Some(v),
            Field::Str(s) => Some(Value::from(s)),
        }
    }

    #[inline]
    fn lookup(&self, name: &str, _hash: u64) -> Option<Field<'_>> {
        let root = self.root(name)?;
        match self.slot(root) {
            Slot::Absent => None,
            Slot::Value(v) => Some(Field::Borrowed(v)),
            Slot::Text(s) => Some(Field::Str(s)),
            Slot::Leaves => Some(Field::Owned(self.build(root))),
        }
    }

    /// A path to one of the leaves of a [`Slot::Leaves`] root: its value
    /// (null when absent), every value on the way being a dict.
    #[inline]
    fn answers_paths(&self) -> bool {
        true
    }

    #[inline]
    fn lookup_path(&self, name: &str, _hash: u64, steps: &[(&str, u64)]) -> Option<Field<'_>> {
        let root = self.root(name)?;
        if !matches!(self.slot(root), Slot::Leaves) {
            return None;
        }
        let mut node = root;
        for (key, _) in steps {
            let Shape::Fields(children) = &node.shape else {
                return None;
            };
            node = children.iter().find(|n| named(n, key))?;
        }
        match (&node.shape, self.slot(node)) {
            (Shape::Whole, Slot::Value(v)) => Some(Field::Borrowed(v)),
            (Shape::Whole, Slot::Text(s)) => Some(Field::Str(s)),
            (Shape::Whole, _) => Some(Field::Borrowed(&NULL)),
            (Shape::Fields(_), _) => None,
        }
    }
}

/// Reads records from Python objects under a value-depth limit.
#[derive(Clone, Copy)]
pub(crate) struct Reader {
    /// The deepest nesting of lists and dicts converted (`[]` is 1).
    pub max_depth: u32,
}

impl Reader {
    /// Appends the slots of `record` (a `dict`; `None` has no fields) in
    /// `layout` to `out`. With `texts`, a `str` read whole is left for the
    /// caller to lend ([`Slot::Text`]): its slot (absent until then) and
    /// the string are pushed to `texts`.
    pub fn record_into<'a, 'py>(
        &self,
        record: &Bound<'py, PyAny>,
        layout: &Layout,
        out: &mut impl Push<'a>,
        mut texts: Option<&mut Texts<'py>>,
    ) -> PyResult<()> {
        let base = out.slots().len();
        out.push_absent(layout.width);
        if record.is_none() {
            return Ok(());
        }
        let dict = record.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a context must be a dict, not {}",
                type_name(record)
            ))
        })?;
        let slots = &mut out.slots()[base..];
        for node in &layout.roots {
            let Some(v) = dict.get_item(node.py_key.bind(record.py()))? else {
                continue;
            };
            match &node.shape {
                Shape::Fields(children) => {
                    slots[node.slot] = match v.cast::<PyDict>() {
                        Ok(d) if self.leaves(d, children, 1, slots, &mut texts)? => Slot::Leaves,
                        _ => Slot::Value(self.shaped(&v, &node.shape, 1)?),
                    }
                }
                Shape::Whole => self.leaf(v, 1, slots, node.slot, &mut texts)?,
            }
        }
        Ok(())
    }

    /// The leaves below `fields` of `dict` (nested `depth` deep) into
    /// their slots, converting as [`Reader::shaped`] does, in the same
    /// order: whether every value on the way to them is a dict (if not,
    /// the caller converts the root with `shaped`).
    fn leaves<'py>(
        &self,
        dict: &Bound<'py, PyDict>,
        fields: &[Node],
        depth: u32,
        slots: &mut [Slot<'_>],
        texts: &mut Option<&mut Texts<'py>>,
    ) -> PyResult<bool> {
        self.check_depth(depth)?;
        for node in fields {
            let v = dict.get_item(node.py_key.bind(dict.py()))?;
            match (&node.shape, v) {
                (Shape::Whole, Some(v)) => self.leaf(v, depth + 1, slots, node.slot, texts)?,
                (Shape::Whole, None) => slots[node.slot] = Slot::Absent,
                (Shape::Fields(children), Some(v)) => match v.cast::<PyDict>() {
                    Ok(d) => {
                        if !self.leaves(d, children, depth + 1, slots, texts)? {
                            return Ok(false);
                        }
                    }
                    Err(_) => return Ok(false),
                },
                (Shape::Fields(_), None) => return Ok(false),
            }
        }
        Ok(true)
    }

    /// A value read whole, into `slots[slot]`: ints and floats converted
    /// here and written in place (a value returned through memory cost a
    /// stalled store-to-load forward per field), a `str` left to `texts`
    /// when given (checked to be UTF-8 now, as `whole` would), anything
    /// else by [`Reader::whole`]. The slot is [`Slot::Absent`] before.
    #[inline(always)]
    fn leaf<'py>(
        &self,
        v: Bound<'py, PyAny>,
        depth: u32,
        slots: &mut [Slot<'_>],
        slot: usize,
        texts: &mut Option<&mut Texts<'py>>,
    ) -> PyResult<()> {
        let Some(dst) = slots.get_mut(slot) else {
            return Ok(());
        };
        if let Ok(i) = v.cast_exact::<PyInt>()
            && let Ok(n) = i.extract::<i64>()
        {
            *dst = Slot::Value(Value::Number(n as f64));
        } else if let Ok(f) = v.cast_exact::<PyFloat>()
            && f.value().is_finite()
        {
            *dst = Slot::Value(Value::Number(f.value()));
        } else if let Some(texts) = texts
            && let Ok(s) = v.cast_exact::<PyString>()
        {
            s.to_str()?;
            texts.push((slot, s.clone()));
        } else {
            *dst = Slot::Value(self.whole(&v, depth)?);
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

/// An `int` (or a subclass's) as a double, from its value alone.
///
/// No Python code runs: beyond 64 bits the value is rounded by
/// `int.__float__` itself, never by a subclass's `__float__`, which could
/// change the dict being read (its iterator would panic) and would make a
/// subclass's value depend on its magnitude.
fn int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    match i.extract::<i64>() {
        Ok(n) => Ok(Value::Number(n as f64)),
        // Beyond 64 bits: int.__float__(i), an OverflowError beyond the doubles.
        Err(_) => {
            let py = i.py();
            let to_float = py
                .get_type::<PyInt>()
                .getattr(pyo3::intern!(py, "__float__"))?;
            number(to_float.call1((i,))?.cast_into::<PyFloat>()?.value())
        }
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
        Value::Object(o) => dict(py, o.map().iter())?,
        Value::Function(_) | Value::Regex(_) => {
            let e = xpr::Error::type_error(format!(
                "cannot convert {} to a Python value",
                value.type_name()
            ));
            return Err(crate::errors::to_py(py, &e, ""));
        }
    })
}

/// The fields of an object result ([`xpr::Output::Fields`]) as a dict.
///
/// # Errors
/// As [`to_py`].
pub(crate) fn fields_to_py<'py>(
    py: Python<'py>,
    fields: xpr::Fields<'_>,
) -> Result<Bound<'py, PyAny>, PyErr> {
    dict(py, fields.iter())
}

/// A dict of `pairs`, in order.
fn dict<'py, 'v>(
    py: Python<'py>,
    pairs: impl Iterator<Item = (&'v Key, &'v Value)>,
) -> Result<Bound<'py, PyAny>, PyErr> {
    let dict = PyDict::new(py);
    for (k, v) in pairs {
        dict.set_item(key(py, k), to_py(py, v)?)?;
    }
    Ok(dict.into_any())
}
