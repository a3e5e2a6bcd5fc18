//! Abstract values: what the analysis knows of a value on the VM's stack.
//!
//! An [`Abs`] stands for every value an instruction may see there: values
//! of the context (by path, measured by size variables), values the
//! program builds (a [`Shape`]: bounds of their length, bytes and weight,
//! and of their elements and fields), closures of the program, and values
//! of unknown size (with the reason). Joining two is their union.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::poly::{Measure, Path, Poly, Seg, Var};
use super::regex::Facts;
use crate::value::{Key, Value};

/// A closure the program may make: its prototype and what it captured.
#[derive(Debug, Clone)]
pub(super) struct Fun {
    pub proto: u32,
    pub captures: Vec<Abs>,
}

/// Bounds of values the program builds.
#[derive(Debug, Clone, Default)]
pub(super) struct Shape {
    /// Length (elements, characters or fields).
    pub len: Poly,
    /// String bytes.
    pub bytes: Poly,
    /// Weight (see [`Measure::Size`]).
    pub size: Poly,
    /// Display length (see [`Measure::Text`]).
    pub display: Poly,
    /// Whether it may be a regex.
    pub regex: bool,
    /// What searching with it costs, the largest over the regexes it may
    /// be (`None` when `regex` is false, or when a regex may be one whose
    /// cost is not known).
    pub re: Option<Facts>,
    /// Whether it may be a string.
    pub string: bool,
    /// The largest magnitude of a number it may be, when known.
    pub num: Option<f64>,
    /// The text, when it is one known string.
    pub text: Option<Arc<str>>,
    /// Any element (arrays).
    pub elem: Option<Box<Abs>>,
    /// Fields by name (objects).
    pub fields: BTreeMap<Key, Abs>,
    /// Fields of names not known statically (spreads).
    pub rest: Option<Box<Abs>>,
}

/// What the analysis knows of a value (see the module doc).
#[derive(Debug, Clone, Default)]
pub(super) struct Abs {
    /// Context values it may be.
    pub paths: Vec<Path>,
    /// Built values it may be.
    pub shape: Option<Box<Shape>>,
    /// Closures it may be.
    pub funs: Vec<Fun>,
    /// Why it may be a value of unknown size.
    pub unknown: Option<Arc<str>>,
}

fn join_opt(a: &Option<Box<Abs>>, b: &Option<Box<Abs>>) -> Option<Box<Abs>> {
    match (a, b) {
        (Some(x), Some(y)) => Some(Box::new(x.join(y))),
        (Some(x), None) | (None, Some(x)) => Some(x.clone()),
        (None, None) => None,
    }
}

impl Shape {
    fn join(&self, o: &Shape) -> Shape {
        let mut fields = self.fields.clone();
        for (k, v) in &o.fields {
            let j = match fields.get(k) {
                Some(x) => x.join(v),
                None => v.join(&Abs::scalar()),
            };
            fields.insert(k.clone(), j);
        }
        for (k, v) in fields.iter_mut() {
            if !o.fields.contains_key(k) {
                *v = v.join(&Abs::scalar());
            }
        }
        Shape {
            len: self.len.max(&o.len),
            bytes: self.bytes.max(&o.bytes),
            size: self.size.max(&o.size),
            display: self.display.max(&o.display),
            regex: self.regex || o.regex,
            re: match (self.regex, o.regex) {
                (true, true) => self.re.as_ref().zip(o.re.as_ref()).map(|(a, b)| a.join(b)),
                (true, false) => self.re.clone(),
                (false, true) => o.re.clone(),
                (false, false) => None,
            },
            string: self.string || o.string,
            num: match (self.num, o.num) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
            text: match (&self.text, &o.text) {
                (Some(a), Some(b)) if a == b => Some(a.clone()),
                _ => None,
            },
            elem: join_opt(&self.elem, &o.elem),
            fields,
            rest: join_opt(&self.rest, &o.rest),
        }
    }
}

impl Abs {
    /// A scalar: null, a boolean, a number of unknown magnitude.
    pub fn scalar() -> Abs {
        Abs::of_shape(Shape {
            size: Poly::num(1),
            display: Poly::num(NUMBER_TEXT),
            ..Shape::default()
        })
    }

    /// A number of magnitude at most `n`.
    pub fn number(n: f64) -> Abs {
        Abs::of_shape(Shape {
            size: Poly::num(1),
            display: Poly::num(NUMBER_TEXT),
            num: Some(n.abs()),
            ..Shape::default()
        })
    }

    /// A built value of this shape.
    pub fn of_shape(shape: Shape) -> Abs {
        Abs {
            shape: Some(Box::new(shape)),
            ..Abs::default()
        }
    }

    /// The context value at `path`.
    pub fn path(path: Path) -> Abs {
        Abs {
            paths: vec![path],
            ..Abs::default()
        }
    }

    /// A value of unknown size, for `why`.
    pub fn unknown(why: impl Into<Arc<str>>) -> Abs {
        Abs {
            unknown: Some(why.into()),
            ..Abs::default()
        }
    }

    /// A string of at most `bytes` bytes.
    pub fn text(bytes: Poly) -> Abs {
        Abs::of_shape(Shape {
            len: bytes.clone(),
            size: bytes.add(&Poly::num(1)),
            display: bytes.clone(),
            string: true,
            bytes,
            ..Shape::default()
        })
    }

    /// An array of at most `len` elements like `elem`.
    pub fn array(len: Poly, elem: Abs) -> Result<Abs, Arc<str>> {
        let size = len.mul(&elem.size()?.add(&Poly::num(1))).add(&Poly::num(1));
        let display = len.mul(&nested_display(&elem)?).add(&Poly::num(2));
        Ok(Abs::of_shape(Shape {
            len,
            size,
            display,
            elem: Some(Box::new(elem)),
            ..Shape::default()
        }))
    }

    /// A value the run builds, bounded only by its memory limit `m`
    /// (bytes): every measure at most `m` (its display at most 24 bytes
    /// per unit of weight), with elements like `elem` and fields like
    /// `field`.
    pub fn within_memory(string: bool, elem: Abs, field: Abs) -> Abs {
        let m = Poly::var(Var::memory());
        // A string's weight is one more than its bytes.
        let weight = m.add(&Poly::num(1));
        Abs::of_shape(Shape {
            len: m.clone(),
            bytes: m,
            display: weight.scale(NUMBER_TEXT),
            size: weight,
            string,
            elem: Some(Box::new(elem)),
            rest: Some(Box::new(field)),
            ..Shape::default()
        })
    }

    /// The abstract value of a constant.
    pub fn constant(v: &Value) -> Abs {
        match v {
            Value::Number(n) => Abs::number(*n),
            Value::String(s) => {
                let mut a = Abs::text(Poly::num(s.len() as u64));
                if let Some(sh) = a.shape.as_deref_mut() {
                    sh.len = Poly::num(s.chars().count() as u64);
                    sh.text = Some(s.clone());
                }
                a
            }
            Value::Array(a) => {
                let elem = a
                    .items()
                    .iter()
                    .map(Abs::constant)
                    .reduce(|x, y| x.join(&y))
                    .unwrap_or_default();
                Abs::of_shape(Shape {
                    len: Poly::num(a.len() as u64),
                    size: Poly::num(weight(v)),
                    display: Poly::num(weight(v).saturating_mul(NUMBER_TEXT)),
                    elem: Some(Box::new(elem)),
                    ..Shape::default()
                })
            }
            Value::Object(o) => Abs::of_shape(Shape {
                len: Poly::num(o.len() as u64),
                size: Poly::num(weight(v)),
                display: Poly::num(weight(v).saturating_mul(NUMBER_TEXT)),
                fields: o
                    .map()
                    .iter()
                    .map(|(k, v)| (k.clone(), Abs::constant(v)))
                    .collect(),
                ..Shape::default()
            }),
            Value::Regex(r) => {
                let mut a = Abs::text(Poly::num(r.pattern().len() as u64 + 8));
                if let Some(sh) = a.shape.as_deref_mut() {
                    sh.regex = true;
                    sh.string = false;
                    sh.re = Some(Facts::of(r));
                }
                a
            }
            _ => Abs::scalar(),
        }
    }

    /// The union of both.
    pub fn join(&self, o: &Abs) -> Abs {
        let mut paths = self.paths.clone();
        for p in &o.paths {
            if !paths.contains(p) {
                paths.push(p.clone());
            }
        }
        let mut funs = self.funs.clone();
        for f in &o.funs {
            if let Some(g) = funs.iter_mut().find(|g| g.proto == f.proto) {
                g.captures = g
                    .captures
                    .iter()
                    .zip(&f.captures)
                    .map(|(a, b)| a.join(b))
                    .collect();
            } else {
                funs.push(f.clone());
            }
        }
        Abs {
            paths,
            shape: match (&self.shape, &o.shape) {
                (Some(a), Some(b)) => Some(Box::new(a.join(b))),
                (Some(a), None) | (None, Some(a)) => Some(a.clone()),
                (None, None) => None,
            },
            funs,
            unknown: self.unknown.clone().or_else(|| o.unknown.clone()),
        }
    }

    fn measure(&self, m: Measure, built: impl Fn(&Shape) -> &Poly) -> Result<Poly, Arc<str>> {
        if let Some(why) = &self.unknown {
            return Err(why.clone());
        }
        let mut p = self
            .shape
            .as_deref()
            .map(&built)
            .cloned()
            .unwrap_or_default();
        for path in &self.paths {
            p = p.max(&Poly::var(Var {
                measure: m,
                path: path.clone(),
            }));
        }
        if m == Measure::Size && !self.funs.is_empty() {
            p = p.max(&Poly::num(1));
        }
        Ok(p)
    }

    /// A bound of its length (elements, characters, fields).
    pub fn len(&self) -> Result<Poly, Arc<str>> {
        self.measure(Measure::Len, |s| &s.len)
    }

    /// A bound of its string bytes.
    pub fn bytes(&self) -> Result<Poly, Arc<str>> {
        self.measure(Measure::Bytes, |s| &s.bytes)
    }

    /// A bound of its weight.
    pub fn size(&self) -> Result<Poly, Arc<str>> {
        self.measure(Measure::Size, |s| &s.size)
    }

    /// A bound of the length of its display form.
    pub fn display(&self) -> Result<Poly, Arc<str>> {
        let d = self.measure(Measure::Text, |s| &s.display)?;
        Ok(if self.funs.is_empty() {
            d
        } else {
            d.max(&Poly::num(64))
        })
    }

    /// Whether it may be a string.
    pub fn may_be_string(&self) -> bool {
        !self.paths.is_empty()
            || self.unknown.is_some()
            || self.shape.as_deref().is_some_and(|s| s.string)
    }

    /// The largest magnitude of a number it may be, when known.
    pub fn num(&self) -> Option<f64> {
        if !self.paths.is_empty() || self.unknown.is_some() {
            return None;
        }
        self.shape.as_deref().map_or(Some(0.0), |s| s.num)
    }

    /// The text, when it is one known string.
    pub fn text_const(&self) -> Option<&Arc<str>> {
        if !self.paths.is_empty() || self.unknown.is_some() || !self.funs.is_empty() {
            return None;
        }
        self.shape.as_deref()?.text.as_ref()
    }

    /// Any element (of an array; a character of a string).
    pub fn elem(&self) -> Abs {
        let mut out = Abs {
            paths: self.paths.iter().map(|p| p.then(Seg::Elem)).collect(),
            unknown: self.unknown.clone(),
            ..Abs::default()
        };
        if let Some(s) = self.shape.as_deref() {
            if let Some(e) = &s.elem {
                out = out.join(e);
            }
            if !s.bytes.is_zero() {
                out = out.join(&Abs::text(Poly::num(4)));
            }
        }
        out.join(&Abs::scalar())
    }

    /// The field `key` (null when absent).
    pub fn field(&self, key: &Key) -> Abs {
        let mut out = Abs {
            paths: self
                .paths
                .iter()
                .map(|p| p.then(Seg::Field(key.clone())))
                .collect(),
            unknown: self.unknown.clone(),
            ..Abs::default()
        };
        if let Some(s) = self.shape.as_deref() {
            if let Some(v) = s.fields.get(key) {
                out = out.join(v);
            }
            if let Some(r) = &s.rest {
                out = out.join(r);
            }
        }
        out.join(&Abs::scalar())
    }

    /// Any field (a key known only at run time).
    pub fn any_field(&self) -> Abs {
        let mut out = Abs {
            paths: self.paths.iter().map(|p| p.then(Seg::AnyField)).collect(),
            unknown: self.unknown.clone(),
            ..Abs::default()
        };
        if let Some(s) = self.shape.as_deref() {
            for v in s.fields.values() {
                out = out.join(v);
            }
            if let Some(r) = &s.rest {
                out = out.join(r);
            }
        }
        out.join(&Abs::scalar())
    }

    /// An element or a field: what indexing it may give.
    pub fn member(&self) -> Abs {
        self.elem().join(&self.any_field())
    }
}

/// The most bytes a number's display form takes
/// (`-1.7976931348623157e+308`), which also bounds `null`, `true`, `false`.
pub const NUMBER_TEXT: u64 = 24;

/// A bound of the display length of `elem` inside an array or object's
/// display form (quoted and escaped: at most 6 bytes per byte, plus quotes),
/// plus a separator.
pub fn nested_display(elem: &Abs) -> Result<Poly, Arc<str>> {
    Ok(elem.display()?.scale(6).add(&Poly::num(3)))
}

/// The weight of a value (see [`Measure::Size`]).
pub fn weight(v: &Value) -> u64 {
    match v {
        Value::String(s) => 1 + s.len() as u64,
        Value::Array(a) => a
            .items()
            .iter()
            .fold(1u64, |acc, e| acc.saturating_add(1 + weight(e))),
        Value::Object(o) => o.map().iter().fold(1u64, |acc, (k, e)| {
            acc.saturating_add(1 + k.len() as u64 + weight(e))
        }),
        Value::Regex(r) => 1 + r.pattern().len() as u64,
        _ => 1,
    }
}
