//! The fuel of each built-in function and method, as a bound over the
//! abstract values of its arguments (the rules of the stdlib modules'
//! docs: one unit per element visited, text fuel `1 + bytes / 16`, one
//! unit per sort comparison, what comparing and hashing reads), and what
//! it returns. A callback's bound (plus the unit `Runtime::call`
//! charges) is multiplied by the number of times it may be called.

use super::abs::{Abs, NUMBER_TEXT, Shape};
use super::poly::{Measure, Path, Poly, Seg, Var};
use super::walk::{Args, Item, R, Walk};
use crate::error::Span;
use crate::stdlib::array::RANGE_MAX;

/// Fuel of a split piece and of a replaced occurrence (`string::search`).
const PIECE_FUEL: u64 = 3;
const OCCURRENCE_FUEL: u64 = 1;

/// Passes of a merge sort of an array this long: `ceil(log2(len))`, a
/// variable for a context array, else at most 64.
fn log_of(len: &Poly) -> Poly {
    if let Some(n) = len.as_constant() {
        return Poly::num(u64::from(n.max(1).next_power_of_two().trailing_zeros()));
    }
    if let [v] = len.vars()[..]
        && v.measure == Measure::Len
        && *len == Poly::var(v.clone())
    {
        return Poly::var(Var {
            measure: Measure::Log,
            path: v.path.clone(),
        });
    }
    Poly::num(64)
}

/// The arguments, spreads counted as one argument like their elements.
fn flat(args: &[Item]) -> Vec<Abs> {
    args.iter()
        .map(|i| match i {
            Item::One(a) => a.clone(),
            Item::Many { elem, .. } => elem.clone(),
            Item::Pairs { val, .. } => val.clone(),
        })
        .collect()
}

/// How many arguments there may be.
fn count(args: &[Item]) -> Poly {
    args.iter().fold(Poly::zero(), |n, i| match i {
        Item::One(_) => n.add(&Poly::num(1)),
        Item::Many { len, .. } | Item::Pairs { len, .. } => n.add(len),
    })
}

fn text_fuel(bytes: &Poly) -> Poly {
    Poly::num(1).add(&bytes.per_sixteen())
}

impl Walk<'_> {
    /// A callback called once with `args`: the unit of the call, the
    /// callback's fuel, and its result.
    fn callback(&mut self, f: &Abs, args: Vec<Abs>, span: Span) -> R<(Poly, Abs)> {
        let (c, r) = self.call(f, &Args::of(args), span)?;
        Ok((c.add(&Poly::num(1)), r))
    }

    fn array_of(&self, len: Poly, elem: Abs, span: Span) -> R<Abs> {
        Abs::array(len, elem).map_err(|w| self.unbounded(w.to_string(), span))
    }

    /// Built-in `name` (a method when `method`, `args[0]` its receiver):
    /// its fuel beyond the calling instruction's unit, and its result.
    pub(super) fn builtin(
        &mut self,
        name: &str,
        method: bool,
        args: &[Item],
        span: Span,
    ) -> R<(Poly, Abs)> {
        let all = flat(args);
        let arg = |i: usize| all.get(i).cloned().unwrap_or_else(Abs::scalar);
        if !method {
            if let Some(found) = self.regex_builtin(name, false, &all, span)? {
                return Ok(found);
            }
            return self.function(name, args, &all, span);
        }
        let recv = arg(0);
        let a1 = arg(1);
        let mut cost = Poly::zero();
        let mut result = Abs::default();
        let mut any = false;
        let mut merge = |c: Poly, r: Abs| {
            cost = cost.max(&c);
            result = result.join(&r);
        };
        // The receiver may be a string, an array or an object: every kind
        // with a method of that name is bounded, and the largest taken.
        if let Some((c, r)) = self.array_method(name, &recv, &all, span)? {
            merge(c, r);
            any = true;
        }
        if let Some((c, r)) = self.string_method(name, &recv, &a1, &all, span)? {
            merge(c, r);
            any = true;
        }
        if let Some((c, r)) = self.object_method(name, &recv, &a1, span)? {
            merge(c, r);
            any = true;
        }
        if let Some((c, r)) = self.regex_builtin(name, true, &all, span)? {
            merge(c, r);
            any = true;
        }
        if !any {
            return Err(self.unbounded(format!("no cost model for the method '{name}'"), span));
        }
        Ok((cost, result))
    }

    fn function(&mut self, name: &str, args: &[Item], all: &[Abs], span: Span) -> R<(Poly, Abs)> {
        let arg = |i: usize| all.get(i).cloned().unwrap_or_else(Abs::scalar);
        let b = |w: &Walk<'_>, i: usize| w.bound(arg(i).bytes(), span);
        let number = Abs::scalar;
        Ok(match name {
            "round" | "floor" | "ceil" | "abs" | "sqrt" | "log" | "pow" | "random" | "sign"
            | "trunc" | "bool" | "isNumber" | "isString" | "isArray" | "isNull" | "isObject"
            | "isRegex" | "now" | "year" | "month" | "day" | "dayOfWeek" | "hour" | "minute"
            | "second" | "millisecond" | "dateAdd" | "dateDiff" => (Poly::num(1), number()),
            // A type's name, a string of at most 8 bytes ("function"),
            // not a number: its text is not known (fuzz finding: used as
            // a regex pattern, `match(s, type(null))` compiles "null" at
            // run time, 20,000 fuel, against a bound of 6).
            "type" => (Poly::num(1), Abs::text(Poly::num(8))),
            "min" | "max" => (Poly::num(1).add(&count(args)), number()),
            "int" | "float" => (Poly::num(1).add(&text_fuel(&b(self, 0)?)), number()),
            "string" => {
                let d = self.bound(arg(0).display(), span)?;
                (Poly::num(1).add(&text_fuel(&d)), Abs::text(d))
            }
            "parseDate" => {
                let c = text_fuel(&b(self, 0)?).add(&Poly::num(1)).add(&b(self, 1)?);
                (c, number())
            }
            "formatDate" => {
                let f = b(self, 1)?;
                let out = Poly::num(32).add(&f.scale(10));
                (Poly::num(1).add(&f).add(&out.per_sixteen()), Abs::text(out))
            }
            "range" => {
                let known = all
                    .iter()
                    .take(2)
                    .map(Abs::num)
                    .try_fold(0.0f64, |acc, n| n.map(|n| acc + n.ceil() + 1.0));
                let len = match known {
                    Some(k) if k < RANGE_MAX as f64 => k as u64,
                    _ => RANGE_MAX,
                };
                let top = known.unwrap_or(f64::MAX);
                let len = Poly::num(len);
                (len.clone(), self.array_of(len, Abs::number(top), span)?)
            }
            "fromEntries" => {
                let pairs = arg(0);
                let n = self.bound(pairs.len(), span)?;
                let key = pairs.elem().elem();
                let d = self.bound(key.display(), span)?;
                let per = Poly::num(3).add(&d.per_sixteen().scale(2));
                let size = self.bound(pairs.size(), span)?;
                let obj = Abs::of_shape(Shape {
                    len: n.clone(),
                    display: size.scale(NUMBER_TEXT).scale(6),
                    size,
                    rest: Some(Box::new(key.join(&pairs.elem().elem()))),
                    ..Shape::default()
                });
                (n.mul(&per), obj)
            }
            _ => {
                return Err(self.unbounded(
                    format!("'{name}': a built-in without a static cost model"),
                    span,
                ));
            }
        })
    }

    /// The array method `name`, if arrays have one.
    fn array_method(
        &mut self,
        name: &str,
        recv: &Abs,
        all: &[Abs],
        span: Span,
    ) -> R<Option<(Poly, Abs)>> {
        let arg = |i: usize| all.get(i).cloned().unwrap_or_else(Abs::scalar);
        let n = match recv.len() {
            Ok(n) => n,
            // A receiver of unknown size: only a problem for a method
            // arrays have.
            Err(why) if is_array_method(name) => return Err(self.unbounded(why.to_string(), span)),
            Err(_) => return Ok(None),
        };
        let elem = recv.elem();
        let same = |w: &Walk<'_>| w.array_of(n.clone(), elem.clone(), span);
        let f = arg(1);
        Ok(Some(match name {
            "map" => {
                let (c, r) = self.callback(&f, vec![elem.clone()], span)?;
                (
                    n.mul(&c.add(&Poly::num(1))),
                    self.array_of(n.clone(), r, span)?,
                )
            }
            "filter" | "count" | "partition" => {
                let (c, _) = self.callback(&f, vec![elem.clone()], span)?;
                let r = match name {
                    "filter" => same(self)?,
                    "count" => Abs::scalar(),
                    _ => self.array_of(Poly::num(2), same(self)?, span)?,
                };
                (n.mul(&c.add(&Poly::num(1))), r)
            }
            "find" | "some" | "every" => {
                let (c, _) = self.callback(&f, vec![elem.clone()], span)?;
                let r = if name == "find" {
                    elem.clone()
                } else {
                    Abs::scalar()
                };
                (n.mul(&c.add(&Poly::num(1))), r)
            }
            "reduce" => {
                let init = if all.len() > 2 { arg(2) } else { elem.clone() };
                let (c, acc) = self.reduce(&f, init, &elem, &n, span)?;
                (n.mul(&c.add(&Poly::num(1))), acc)
            }
            "flatMap" => {
                let (c, r) = self.callback(&f, vec![elem.clone()], span)?;
                let inner = self.bound(r.len(), span)?.add(&Poly::num(1));
                let len = n.mul(&inner);
                let out = self.array_of(len, r.elem().join(&r), span)?;
                (n.mul(&c.add(&inner)).add(&n), out)
            }
            "groupBy" | "keyBy" => {
                let (c, k) = self.callback(&f, vec![elem.clone()], span)?;
                let d = self.bound(k.display(), span)?;
                let key = Poly::num(2).add(&d.per_sixteen().scale(2));
                let sort = n.mul(&log_of(&n)).mul(&Poly::num(1).add(&d.per_sixteen()));
                let value = if name == "groupBy" {
                    same(self)?
                } else {
                    elem.clone()
                };
                let size = d
                    .add(&self.bound(value.size(), span)?)
                    .add(&Poly::num(2))
                    .mul(&n);
                let obj = Abs::of_shape(Shape {
                    len: n.clone(),
                    display: size.scale(NUMBER_TEXT).scale(6),
                    size: size.add(&Poly::num(1)),
                    rest: Some(Box::new(value)),
                    ..Shape::default()
                });
                (
                    n.mul(&c.add(&key).add(&Poly::num(1))).add(&sort).add(&n),
                    obj,
                )
            }
            "sort" => {
                let per = if all.len() > 1 && f.text_const().is_none() && !f.funs.is_empty() {
                    let (c, _) = self.callback(&f, vec![elem.clone(), elem.clone()], span)?;
                    c.add(&Poly::num(1))
                } else if all.len() > 1 && foreign(&f) {
                    return Err(self.unbounded("sort's comparator is not known", span));
                } else {
                    Poly::num(1).add(&self.bound(elem.bytes(), span)?.per_sixteen())
                };
                (n.add(&n.mul(&log_of(&n)).mul(&per)), same(self)?)
            }
            "sortBy" => {
                let (c, k) = self.callback(&f, vec![elem.clone()], span)?;
                let per = Poly::num(1).add(&self.bound(k.bytes(), span)?.per_sixteen());
                let sort = n.mul(&log_of(&n)).mul(&per);
                (n.mul(&c.add(&Poly::num(1))).add(&sort), same(self)?)
            }
            "reverse" | "reversed" | "slice" | "take" | "drop" | "compact" => {
                (n.scale(2).add(&Poly::num(1)), same(self)?)
            }
            "unique" => {
                let hash = self.bound(elem.bytes(), span)?.per_sixteen();
                (
                    n.mul(&hash.add(&Poly::num(2))).add(&Poly::num(1)),
                    same(self)?,
                )
            }
            "first" | "last" => (Poly::num(1), elem.clone()),
            "includes" | "indexOf" => {
                let x = arg(1);
                let work = match (elem.size(), x.size()) {
                    (Ok(a), Ok(b)) if b.vars().len() <= a.vars().len() => b,
                    (Ok(a), _) => a,
                    (_, Ok(b)) => b,
                    (Err(why), Err(_)) => return Err(self.unbounded(why.to_string(), span)),
                };
                (
                    n.mul(&work.add(&Poly::num(1))).add(&Poly::num(1)),
                    Abs::scalar(),
                )
            }
            "concat" => {
                let o = arg(1);
                let m = self.bound(o.len(), span)?;
                let len = n.add(&m);
                (len.clone(), self.array_of(len, elem.join(&o.elem()), span)?)
            }
            "flat" => {
                let inner = self.bound(elem.len(), span)?.add(&Poly::num(1));
                let len = n.mul(&inner);
                (
                    n.add(&len),
                    self.array_of(len, elem.elem().join(&elem), span)?,
                )
            }
            "zip" => {
                let o = arg(1);
                let pair = self.array_of(Poly::num(2), elem.join(&o.elem()), span)?;
                (n.clone(), self.array_of(n.clone(), pair, span)?)
            }
            "chunk" => {
                let part = same(self)?;
                (
                    n.scale(2).add(&Poly::num(1)),
                    self.array_of(n.clone(), part, span)?,
                )
            }
            "join" => {
                let sep = self.bound(arg(1).bytes(), span)?;
                let d = self.bound(elem.display(), span)?;
                let per = text_fuel(&sep).add(&text_fuel(&d)).add(&Poly::num(1));
                let out = n.mul(&d.add(&sep));
                (n.mul(&per), Abs::text(out))
            }
            "sum" | "avg" | "min" | "max" => (n.add(&Poly::num(1)), Abs::scalar()),
            _ => return Ok(None),
        }))
    }

    /// `reduce`'s callback: the cost of one call and the accumulator's
    /// bound. An accumulator that stops growing after a few rounds is
    /// bounded by their join; one that grows by at most what the first
    /// round added (`δ`) is bounded by induction: the callback is analysed
    /// with an accumulator of `init + k·δ` for a symbolic `k`, and must
    /// give at most `init + (k + 1)·δ`; then `k` is the array's length.
    fn reduce(&mut self, f: &Abs, init: Abs, elem: &Abs, n: &Poly, span: Span) -> R<(Poly, Abs)> {
        let mut acc = init.clone();
        for _ in 0..2 {
            let (c, r) = self.callback(f, vec![acc.clone(), elem.clone()], span)?;
            let next = acc.join(&r);
            if covers(&acc, &next) {
                return Ok((c, next));
            }
            acc = next;
        }
        // The growth of each measure over the first two rounds.
        let (_, first) = self.callback(f, vec![init.clone(), elem.clone()], span)?;
        let (_, second) = self.callback(f, vec![first.clone(), elem.clone()], span)?;
        let k = Var {
            measure: Measure::Len,
            path: Path(vec![Seg::Field("#rounds".into())]),
        };
        let measures = |a: &Abs| -> R<[Poly; 4]> {
            Ok([
                self.bound(a.len(), span)?,
                self.bound(a.bytes(), span)?,
                self.bound(a.size(), span)?,
                self.bound(a.display(), span)?,
            ])
        };
        let (m0, m1, m2) = (measures(&init)?, measures(&first)?, measures(&second)?);
        let delta: Vec<Poly> = (0..4)
            .map(|i| m1[i].excess(&m0[i]).max(&m2[i].excess(&m1[i])))
            .collect();
        // Without the shapes of the rounds: their measures are in δ.
        let others = init.join(&Abs {
            shape: None,
            ..first.join(&second)
        });
        let elems = init.elem().join(&first.elem()).join(&second.elem());
        let fields = init
            .any_field()
            .join(&first.any_field())
            .join(&second.any_field());
        let string = init.may_be_string() || first.may_be_string();
        let grow = |times: &Poly| -> Abs {
            let m = |i: usize| m0[i].add(&delta[i].mul(times));
            let shape = Shape {
                len: m(0),
                bytes: m(1),
                size: m(2),
                display: m(3),
                string,
                elem: Some(Box::new(elems.clone())),
                rest: Some(Box::new(fields.clone())),
                ..Shape::default()
            };
            others.join(&Abs::of_shape(shape))
        };
        let rounds = Poly::var(k.clone());
        let at_k = grow(&rounds);
        let (c, r) = self.callback(f, vec![at_k, elem.clone()], span)?;
        let next = grow(&rounds.add(&Poly::num(1)));
        if covers(&next, &r) && !c.too_large() {
            return Ok((c.substitute(&k, n), grow(n)));
        }
        // Growing faster: an accumulator the callback builds is bounded by
        // the run's memory; one it passes on is among the values above.
        let built = Abs::within_memory(string, elems.clone(), fields.clone());
        let acc = others.join(&built);
        let (c, r) = self.callback(f, vec![acc.clone(), elem.clone()], span)?;
        let foreign = r.unknown.is_some()
            || !r.paths.iter().all(|p| acc.paths.contains(p))
            || !r
                .funs
                .iter()
                .all(|g| acc.funs.iter().any(|h| h.proto == g.proto))
            || !covers(&acc.elem(), &r.elem());
        if foreign {
            return Err(self.unbounded(
                "reduce's accumulator grows faster than by a fixed amount per element",
                span,
            ));
        }
        Ok((c, acc))
    }

    /// The string method `name`, if strings have one.
    fn string_method(
        &mut self,
        name: &str,
        recv: &Abs,
        a1: &Abs,
        all: &[Abs],
        span: Span,
    ) -> R<Option<(Poly, Abs)>> {
        if !is_string_method(name) {
            return Ok(None);
        }
        let s = self.bound(recv.bytes(), span)?;
        let x = self.bound(a1.bytes(), span)?;
        let read = text_fuel(&s.add(&x));
        Ok(Some(match name {
            "len" => (read, Abs::scalar()),
            "upper" | "uppercase" | "lower" | "lowercase" => {
                (text_fuel(&s.scale(4)), Abs::text(s.scale(3)))
            }
            "trim" | "trimStart" | "trimEnd" | "slice" => (read, Abs::text(s)),
            "charAt" => (read, Abs::text(Poly::num(4))),
            "startsWith" | "endsWith" | "contains" | "indexOf" | "includes" => {
                (read, Abs::scalar())
            }
            "split" => {
                let pieces = s.add(&Poly::num(1));
                let out = self.array_of(pieces.clone(), Abs::text(s.clone()), span)?;
                (read.add(&pieces.scale(PIECE_FUEL)), out)
            }
            "replace" => {
                let new = self.bound(all.get(2).map_or(Ok(Poly::zero()), Abs::bytes), span)?;
                let times = s.add(&Poly::num(1));
                let out = s.add(&times.mul(&new));
                let c = read
                    .add(&times.scale(OCCURRENCE_FUEL))
                    .add(&text_fuel(&out));
                (c, Abs::text(out))
            }
            "repeat" | "padStart" | "padEnd" => {
                // A count known only at run time: the text is bounded by
                // the memory it is charged before it is built.
                let out = match a1.num() {
                    None => Poly::var(Var::memory()),
                    Some(k) => {
                        let k = k.ceil().clamp(0.0, 1e12) as u64;
                        if name == "repeat" {
                            s.scale(k)
                        } else {
                            s.add(&Poly::num(k.saturating_mul(4)))
                        }
                    }
                };
                let c = Poly::num(2).add(&text_fuel(&s)).add(&text_fuel(&out));
                (c, Abs::text(out))
            }
            _ => return Ok(None),
        }))
    }

    /// The object method `name`, if objects have one.
    fn object_method(
        &mut self,
        name: &str,
        recv: &Abs,
        a1: &Abs,
        span: Span,
    ) -> R<Option<(Poly, Abs)>> {
        if !matches!(name, "keys" | "values" | "entries" | "has") {
            return Ok(None);
        }
        if name == "has" {
            let k = self.bound(a1.bytes(), span)?;
            return Ok(Some((Poly::num(1).add(&k.per_sixteen()), Abs::scalar())));
        }
        let n = self.bound(recv.len(), span)?;
        let size = self.bound(recv.size(), span)?;
        let sort = log_of(&n).mul(&n.add(&size.per_sixteen()));
        let key = Abs::text(size.clone());
        let value = recv.any_field();
        let out = match name {
            "keys" => self.array_of(n.clone(), key, span)?,
            "values" => self.array_of(n.clone(), value, span)?,
            _ => {
                let pair = self.array_of(Poly::num(2), key.join(&value), span)?;
                self.array_of(n.clone(), pair, span)?
            }
        };
        Ok(Some((n.add(&sort).add(&Poly::num(1)), out)))
    }
}

fn foreign(f: &Abs) -> bool {
    !f.paths.is_empty() || f.unknown.is_some()
}

fn is_array_method(name: &str) -> bool {
    matches!(
        name,
        "map"
            | "filter"
            | "reduce"
            | "find"
            | "some"
            | "every"
            | "flatMap"
            | "sort"
            | "reverse"
            | "reversed"
            | "includes"
            | "indexOf"
            | "slice"
            | "join"
            | "concat"
            | "flat"
            | "unique"
            | "zip"
            | "chunk"
            | "groupBy"
            | "sortBy"
            | "take"
            | "drop"
            | "count"
            | "sum"
            | "avg"
            | "compact"
            | "partition"
            | "keyBy"
            | "min"
            | "max"
            | "first"
            | "last"
    )
}

fn is_string_method(name: &str) -> bool {
    matches!(
        name,
        "len"
            | "upper"
            | "uppercase"
            | "lower"
            | "lowercase"
            | "trim"
            | "trimStart"
            | "trimEnd"
            | "startsWith"
            | "endsWith"
            | "contains"
            | "split"
            | "replace"
            | "slice"
            | "indexOf"
            | "includes"
            | "repeat"
            | "charAt"
            | "padStart"
            | "padEnd"
    )
}

/// Whether every measure of `b` is bounded by `a`'s (the same polynomial
/// or smaller, term by term), so that a callback given `a` covers `b`.
fn covers(a: &Abs, b: &Abs) -> bool {
    let le = |x: Result<Poly, _>, y: Result<Poly, _>| match (x, y) {
        (Ok(x), Ok(y)) => x.max(&y) == x,
        _ => false,
    };
    b.paths.iter().all(|p| a.paths.contains(p))
        && b.funs
            .iter()
            .all(|f| a.funs.iter().any(|g| g.proto == f.proto))
        && b.unknown.is_none() == a.unknown.is_none()
        && le(a.len(), b.len())
        && le(a.bytes(), b.bytes())
        && le(a.size(), b.size())
        && le(a.display(), b.display())
        && (b.shape.as_deref().and_then(|s| s.elem.as_deref()).is_none()
            || covers(&a.elem(), &b.elem()))
}
