//! The work one check can do per node of a result, bounded when the
//! schema is compiled (see the crate docs, "What is accepted, and what it
//! costs").
//!
//! A unit ("step") is one keyword of one subschema applied at one node of
//! the result; a keyword whose value is data (`enum`, `const`, `required`,
//! ...) counts one step per JSON value in it. For a subschema `s`,
//! `m(s)` is what evaluating `s` at one node costs *at that node*: its own
//! steps plus, with multiplicity, the `m` of every subschema it applies in
//! place (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
//! `dependentSchemas`, schema-valued `dependencies`, `$dynamicRef`,
//! `$recursiveRef`); memoised, so a chain of 40 `anyOf`s of two `$ref`s
//! to the level below costs 2^40 and is refused in 40 additions.
//!
//! Applicators that move to a child of the node (`properties`, `items`,
//! `additionalProperties`, ...) cost nothing at the node, but a child may
//! be entered by several of them at once (an `allOf` of two `items`), and
//! that multiplies down the levels of the result. So the analysis follows
//! the levels too: `P_d(s)` bounds the steps at one node `d` levels below a
//! node where `s` is evaluated, per key of the child (`properties` gives
//! each named key its own subschema), for `d` up to [`RESULT_DEPTH`].
//! The bound a check obeys is `max_d P_d(root)` steps per node of the
//! result.
//!
//! Everything here is iterative: no recursion on the native stack.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::{Draft, Registry, Uri};
use serde_json::{Map, Value};

/// The most steps (one keyword of one subschema applied at one node of
/// the result) a check of an accepted schema takes at one node of a
/// result: about 60 ms in a release build on the costliest kind of schema.
/// A schema that could take more is refused by
/// [`OutputSchema::from_json`](crate::OutputSchema::from_json).
pub const CHECK_STEPS_PER_NODE: u64 = 100_000;

/// Levels of the result below its root followed: what `xpr` converts to
/// JSON is nested at most 1,000 levels (deeper results are refused before
/// they are checked).
const RESULT_DEPTH: usize = 1000;

/// Keys a per-key bound keeps apart; past this, the largest stands for
/// them all (never less than the truth).
const KEYS: usize = 64;

/// The base URI `jsonschema` gives a schema without `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// Why a schema is refused: a message for `invalid output schema: ...`.
pub(crate) type Refusal = String;

type Id = usize;

/// How a subschema applies another at the same node of the result.
enum Edge {
    /// Applied `n` times per evaluation.
    One(Id, u64),
    /// One of these, chosen when the check runs (`$dynamicRef`).
    Choice(Vec<Id>),
}

/// How a keyword applies a subschema.
#[derive(Clone, Copy)]
enum Role<'a> {
    /// At the same node.
    InPlace,
    /// At the property of this name.
    Named(&'a str),
    /// At the properties no `properties` of the same subschema names.
    OtherKeys,
    /// At any property (or to its name: `propertyNames`).
    AllKeys,
    /// At the item of this index.
    Indexed(u32),
    /// At the items past the indexed ones.
    RestItems,
    /// At any item.
    AllItems,
    /// Not applied (`$defs`): only a target for references.
    Container,
}

/// Keywords that are never applied: annotations, identifiers and
/// containers (the containers' subschemas are still found as targets).
const INERT: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// A subschema found in a keyword: the keyword, how it applies it, the
/// pointer segments from the keyword's schema, and the subschema.
type Child<'a> = (&'a str, Role<'a>, String, &'a Value);

/// The subschemas an object schema holds, and how each is applied.
/// Keywords of every draft are read (one its draft ignores is counted
/// anyway: never less than the truth).
fn children<'a>(obj: &'a Map<String, Value>, out: &mut Vec<Child<'a>>) {
    out.clear();
    for (key, v) in obj {
        let k = key.as_str();
        let mut one = |role, seg: String, v| out.push((k, role, seg, v));
        match (k, v) {
            ("not" | "if" | "then" | "else", _) => one(Role::InPlace, escape(k), v),
            ("allOf" | "anyOf" | "oneOf", Value::Array(a)) => {
                for (i, s) in a.iter().enumerate() {
                    one(Role::InPlace, format!("{k}/{i}"), s);
                }
            }
            ("dependentSchemas" | "dependencies", Value::Object(m)) => {
                for (name, s) in m {
                    if s.is_object() || s.is_boolean() {
                        one(Role::InPlace, format!("{k}/{}", escape(name)), s);
                    }
                }
            }
            ("properties", Value::Object(m)) => {
                for (name, s) in m {
                    one(Role::Named(name), format!("{k}/{}", escape(name)), s);
                }
            }
            ("patternProperties", Value::Object(m)) => {
                for (name, s) in m {
                    one(Role::AllKeys, format!("{k}/{}", escape(name)), s);
                }
            }
            ("additionalProperties", _) => one(Role::OtherKeys, escape(k), v),
            ("unevaluatedProperties" | "propertyNames", _) => one(Role::AllKeys, escape(k), v),
            ("prefixItems" | "items", Value::Array(a)) => {
                for (i, s) in a.iter().enumerate() {
                    let at = u32::try_from(i).unwrap_or(u32::MAX);
                    one(Role::Indexed(at), format!("{k}/{i}"), s);
                }
            }
            ("items" | "additionalItems", _) => one(Role::RestItems, escape(k), v),
            ("contains" | "unevaluatedItems", _) => one(Role::AllItems, escape(k), v),
            ("$defs" | "definitions", Value::Object(m)) => {
                for (name, s) in m {
                    one(Role::Container, format!("{k}/{}", escape(name)), s);
                }
            }
            _ => {}
        }
    }
}

/// A JSON pointer segment.
fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// JSON values in `v` (iterative).
fn size(v: &Value) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    n
}

/// Where a subschema applies others.
#[derive(Default)]
struct Applies {
    /// At the same node (`$ref`s included).
    inplace: Vec<Edge>,
    /// `unevaluatedProperties` or `unevaluatedItems`: finding what the
    /// in-place subschemas evaluated runs them again at the node, once per
    /// level of in-place nesting below (counted at the node only: what
    /// they apply below is memoised by `jsonschema`, and measured linear
    /// in the result's depth).
    unevaluated: bool,
    /// `properties`: (interned name, subschema).
    named: Vec<(u32, Id)>,
    other_keys: Vec<Id>,
    all_keys: Vec<Id>,
    indexed: Vec<(u32, Id)>,
    rest_items: Vec<Id>,
    all_items: Vec<Id>,
}

/// The schema document, indexed.
struct Graph<'a> {
    values: Vec<&'a Value>,
    /// Where each subschema is: its parent and the pointer segments from it.
    parents: Vec<Option<(Id, String)>>,
    bases: Vec<Arc<Uri<String>>>,
    weights: Vec<u64>,
    applies: Vec<Applies>,
}

impl Graph<'_> {
    /// Where subschema `id` is, for a message: its JSON pointer.
    fn at(&self, mut id: Id) -> String {
        let mut segments = Vec::new();
        while let Some((parent, seg)) = &self.parents[id] {
            segments.push(seg.as_str());
            id = *parent;
        }
        if segments.is_empty() {
            return "the root".to_string();
        }
        segments.iter().rev().map(|s| format!("/{s}")).collect()
    }
}

/// Bounds the steps one check of `schema` takes per node of the result,
/// `schema` having compiled with `jsonschema` (so its references resolve
/// inside the document).
///
/// # Errors
/// Why the schema is refused: more than [`CHECK_STEPS_PER_NODE`] steps, an
/// in-place reference cycle, or a reference this analysis cannot resolve.
pub(crate) fn check_cost(schema: &Value) -> Result<u64, Refusal> {
    let draft = Draft::default().detect(schema);
    let id_key = if draft == Draft::Draft4 { "id" } else { "$id" };
    let root_base = match schema.get(id_key).and_then(Value::as_str) {
        Some(id) if !id.starts_with('#') => jsonschema::uri::from_str(id.trim_end_matches('#')),
        _ => jsonschema::uri::from_str(DEFAULT_BASE),
    }
    .map_err(|e| e.to_string())?;
    let registry = Registry::new()
        .draft(draft)
        .add(root_base.as_str(), schema)
        .and_then(|b| b.prepare())
        .map_err(|e| e.to_string())?;
    let graph = build(schema, id_key, Arc::new(root_base), &registry)?;
    let order = in_place_order(&graph)?;
    bound(&graph, &order)
}

/// Finds every subschema (an iterative walk), its base URI, its own
/// steps, and what it applies where, references resolved with
/// `registry` (as `jsonschema` resolves them).
fn build<'a>(
    schema: &'a Value,
    id_key: &str,
    root: Arc<Uri<String>>,
    registry: &Registry<'_>,
) -> Result<Graph<'a>, Refusal> {
    let mut g = Graph {
        values: Vec::new(),
        parents: Vec::new(),
        bases: Vec::new(),
        weights: Vec::new(),
        applies: Vec::new(),
    };
    let mut by_address: HashMap<*const Value, Id> = HashMap::new();
    let mut dynamic_anchors: HashMap<&'a str, Vec<Id>> = HashMap::new();
    let mut recursive_anchors: Vec<Id> = Vec::new();
    let mut pending = vec![(schema, None, root)];
    let mut kids = Vec::new();
    while let Some((value, parent, mut base)) = pending.pop() {
        let id = g.values.len();
        by_address.insert(std::ptr::from_ref(value), id);
        let mut weight = 1u64;
        if let Value::Object(obj) = value {
            match obj.get(id_key).and_then(Value::as_str) {
                Some(own) if !own.starts_with('#') => {
                    // An empty fragment (`.../root.json#`, drafts 4 to 7)
                    // names the same resource, as the registry has it.
                    let own = own.trim_end_matches('#');
                    if let Ok(uri) = jsonschema::uri::resolve_against(&base.borrow(), own) {
                        base = Arc::new(uri);
                    }
                }
                _ => {}
            }
            if let Some(name) = obj.get("$dynamicAnchor").and_then(Value::as_str) {
                dynamic_anchors.entry(name).or_default().push(id);
            }
            if obj.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                recursive_anchors.push(id);
            }
            children(obj, &mut kids);
            for (key, v) in obj {
                if INERT.contains(&key.as_str()) {
                    continue;
                }
                let held = kids.iter().filter(|c| c.0 == key).count() as u64;
                weight = weight.saturating_add(if held > 0 { held } else { size(v) });
            }
            for (_, _, seg, v) in kids.drain(..).rev() {
                pending.push((v, Some((id, seg)), base.clone()));
            }
        }
        g.values.push(value);
        g.parents.push(parent);
        g.bases.push(base);
        g.weights.push(weight);
    }
    let mut names: HashMap<&'a str, u32> = HashMap::new();
    for id in 0..g.values.len() {
        let mut a = Applies::default();
        if let Value::Object(obj) = g.values[id] {
            children(obj, &mut kids);
            for (_, role, _, v) in kids.drain(..) {
                let c = by_address[&std::ptr::from_ref(v)];
                match role {
                    Role::InPlace => a.inplace.push(Edge::One(c, 1)),
                    Role::Named(k) => {
                        let next = u32::try_from(names.len()).unwrap_or(u32::MAX);
                        a.named.push((*names.entry(k).or_insert(next), c));
                    }
                    Role::OtherKeys => a.other_keys.push(c),
                    Role::AllKeys => a.all_keys.push(c),
                    Role::Indexed(i) => a.indexed.push((i, c)),
                    Role::RestItems => a.rest_items.push(c),
                    Role::AllItems => a.all_items.push(c),
                    Role::Container => {}
                }
            }
            a.unevaluated =
                obj.contains_key("unevaluatedProperties") || obj.contains_key("unevaluatedItems");
            let resolver = registry.resolver((*g.bases[id]).clone());
            let target = |reference: &str| {
                let resolved = resolver.lookup(reference).ok()?;
                by_address
                    .get(&std::ptr::from_ref(resolved.contents()))
                    .copied()
            };
            let unresolved = |kw: &str, r: &str| {
                format!(
                    "the {kw} {r:?} at {} is not resolved by the cost analysis, so the work of a check cannot be bounded",
                    g.at(id)
                )
            };
            if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                // `jsonschema` ignores an empty reference.
                if !r.is_empty() {
                    a.inplace.push(Edge::One(
                        target(r).ok_or_else(|| unresolved("$ref", r))?,
                        1,
                    ));
                }
            }
            if let Some(r) = obj.get("$dynamicRef").and_then(Value::as_str) {
                // Any subschema with the anchor's name may be the one the
                // dynamic scope picks; or the static target.
                let mut all: Vec<Id> = target(r).into_iter().collect();
                if let Some((_, name)) = r.rsplit_once('#') {
                    all.extend(dynamic_anchors.get(name).into_iter().flatten());
                }
                if all.is_empty() {
                    return Err(unresolved("$dynamicRef", r));
                }
                a.inplace.push(Edge::Choice(all));
            }
            if let Some(r) = obj.get("$recursiveRef").and_then(Value::as_str) {
                let mut all: Vec<Id> = target(r).into_iter().collect();
                all.extend(&recursive_anchors);
                if all.is_empty() {
                    return Err(unresolved("$recursiveRef", r));
                }
                a.inplace.push(Edge::Choice(all));
            }
        }
        g.applies.push(a);
    }
    Ok(g)
}

/// The subschemas reachable from the root, each after every subschema it
/// applies in place (an iterative depth-first search).
///
/// # Errors
/// A subschema that applies itself in place, through references or
/// applicators: `jsonschema` compiles it, and when a check reaches it again
/// at the same node it takes it for valid, so that part of the schema
/// would check nothing.
fn in_place_order(g: &Graph<'_>) -> Result<Vec<Id>, Refusal> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = g.values.len();
    let mut state = vec![NEW; n];
    let mut order = Vec::with_capacity(n);
    let flat: Vec<Vec<Id>> = g.applies.iter().map(in_place_targets).collect();
    let mut roots = vec![0];
    while let Some(root) = roots.pop() {
        if state[root] != NEW {
            continue;
        }
        // (subschema, next of its in-place targets to visit)
        let mut stack: Vec<(Id, usize)> = vec![(root, 0)];
        state[root] = OPEN;
        while let Some((s, next)) = stack.last_mut() {
            let s = *s;
            if let Some(&c) = flat[s].get(*next) {
                *next += 1;
                match state[c] {
                    NEW => {
                        state[c] = OPEN;
                        stack.push((c, 0));
                    }
                    OPEN => {
                        return Err(format!(
                            "the subschema at {} applies itself at the same node of the result (a reference cycle that never moves into the result), which `jsonschema` would take for valid",
                            g.at(c)
                        ));
                    }
                    _ => {}
                }
                continue;
            }
            stack.pop();
            state[s] = DONE;
            order.push(s);
            let a = &g.applies[s];
            let named = a.named.iter().chain(&a.indexed).map(|(_, c)| *c);
            let rest = a.other_keys.iter().chain(&a.all_keys);
            let rest = rest.chain(&a.rest_items).chain(&a.all_items).copied();
            roots.extend(named.chain(rest).filter(|&c| state[c] == NEW));
        }
    }
    Ok(order)
}

/// Every subschema `a` applies in place, choices included.
fn in_place_targets(a: &Applies) -> Vec<Id> {
    let mut out = Vec::new();
    for e in &a.inplace {
        match e {
            Edge::One(c, _) => out.push(*c),
            Edge::Choice(cs) => out.extend(cs),
        }
    }
    out
}

/// Steps per key of a child: `rest` for every key not in `keys` (sorted
/// by key).
#[derive(Clone, Default)]
struct KeyMap {
    rest: u64,
    keys: Vec<(u32, u64)>,
}

impl KeyMap {
    /// The largest, over every key.
    fn top(&self) -> u64 {
        self.keys.iter().map(|k| k.1).fold(self.rest, u64::max)
    }

    fn is_zero(&self) -> bool {
        self.rest == 0 && self.keys.iter().all(|k| k.1 == 0)
    }

    /// Per key, `f(self, other)`.
    fn merge(&mut self, other: &KeyMap, f: impl Fn(u64, u64) -> u64) {
        let mut keys = Vec::with_capacity(self.keys.len() + other.keys.len());
        let (mut i, mut j) = (0, 0);
        while i < self.keys.len() || j < other.keys.len() {
            let a = self.keys.get(i).copied();
            let b = other.keys.get(j).copied();
            let entry = match (a, b) {
                (Some(a), Some(b)) if a.0 == b.0 => {
                    i += 1;
                    j += 1;
                    (a.0, f(a.1, b.1))
                }
                (Some(a), Some(b)) if a.0 < b.0 => {
                    i += 1;
                    (a.0, f(a.1, other.rest))
                }
                (Some(a), None) => {
                    i += 1;
                    (a.0, f(a.1, other.rest))
                }
                (_, Some(b)) => {
                    j += 1;
                    (b.0, f(self.rest, b.1))
                }
                (None, None) => break,
            };
            keys.push(entry);
        }
        self.rest = f(self.rest, other.rest);
        self.keys = keys;
        if self.keys.len() > KEYS {
            // Never less than the truth: every key gets the largest.
            self.rest = self.top();
            self.keys.clear();
        }
    }

    /// `self + n × other`, per key.
    fn add(&mut self, other: &KeyMap, n: u64) {
        if n != 0 && !other.is_zero() {
            self.merge(other, |a, b| a.saturating_add(b.saturating_mul(n)));
        }
    }

    /// Adds `v` to every key.
    fn add_all(&mut self, v: u64) {
        self.rest = self.rest.saturating_add(v);
        for k in &mut self.keys {
            k.1 = k.1.saturating_add(v);
        }
    }

    /// `named` for their keys, `rest` for the others, `all` added to
    /// every key; each subschema costing `p[id]`.
    fn local(named: &[(u32, Id)], rest: &[Id], all: &[Id], p: &[u64]) -> KeyMap {
        let sum = |ids: &[Id]| ids.iter().fold(0u64, |t, &c| t.saturating_add(p[c]));
        let mut keys: Vec<(u32, u64)> = named.iter().map(|&(k, c)| (k, p[c])).collect();
        keys.sort_unstable_by_key(|k| k.0);
        keys.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 = a.1.saturating_add(b.1);
            }
            same
        });
        let mut map = KeyMap {
            rest: sum(rest),
            keys,
        };
        if map.keys.len() > KEYS {
            map.rest = map.top();
            map.keys.clear();
        }
        map.add_all(sum(all));
        map
    }
}

/// `max_d P_d(root)` (see the module docs), for `d` up to
/// [`RESULT_DEPTH`] or until the `P_d` repeat.
///
/// # Errors
/// Over [`CHECK_STEPS_PER_NODE`].
fn bound(g: &Graph<'_>, order: &[Id]) -> Result<u64, Refusal> {
    let n = g.values.len();
    let over = |steps: u64, depth: usize| {
        let at = if depth == 0 {
            "the root of a result".to_string()
        } else {
            format!("a node {depth} levels down a result")
        };
        Err(format!(
            "checking {at} could take {steps} steps or more (a step: one keyword applied at one node), over the limit of {CHECK_STEPS_PER_NODE} per node: references and in-place applicators (allOf, anyOf, oneOf, not, if/then/else, ...) multiply the subschemas applied at the same node"
        ))
    };
    // In-place height, the factor of `unevaluated*`, and P_0 = m.
    let mut height = vec![0u64; n];
    let mut factor = vec![1u64; n];
    let mut m = vec![0u64; n];
    for &s in order {
        let a = &g.applies[s];
        let mut h = 0;
        let mut steps = g.weights[s];
        let mut below = Vec::with_capacity(a.inplace.len());
        for e in &a.inplace {
            let (hs, ms) = match e {
                Edge::One(c, k) => (height[*c], m[*c].saturating_mul(*k)),
                Edge::Choice(cs) => cs
                    .iter()
                    .fold((0, 0), |(h, v), &c| (h.max(height[c]), v.max(m[c]))),
            };
            h = h.max(hs + 1);
            below.push(ms);
        }
        height[s] = h;
        factor[s] = if a.unevaluated { h + 1 } else { 1 };
        for ms in below {
            steps = steps.saturating_add(ms.saturating_mul(factor[s]));
        }
        m[s] = steps;
    }
    let mut best = m[0];
    if best > CHECK_STEPS_PER_NODE {
        return over(best, 0);
    }
    let mut prev = m;
    let mut obj = vec![KeyMap::default(); n];
    let mut arr = vec![KeyMap::default(); n];
    // Brent's cycle detection: the P_d repeat once one equals a snapshot.
    let mut snapshot = prev.clone();
    let (mut power, mut since) = (1usize, 0usize);
    for depth in 1..=RESULT_DEPTH {
        let mut cur = vec![0u64; n];
        for &s in order {
            let a = &g.applies[s];
            let mut o = KeyMap::local(&a.named, &a.other_keys, &a.all_keys, &prev);
            let mut r = KeyMap::local(&a.indexed, &a.rest_items, &a.all_items, &prev);
            for e in &a.inplace {
                match e {
                    Edge::One(c, k) => {
                        o.add(&obj[*c], *k);
                        r.add(&arr[*c], *k);
                    }
                    Edge::Choice(cs) => {
                        let (mut co, mut cr) = (KeyMap::default(), KeyMap::default());
                        for &c in cs {
                            co.merge(&obj[c], u64::max);
                            cr.merge(&arr[c], u64::max);
                        }
                        o.add(&co, 1);
                        r.add(&cr, 1);
                    }
                }
            }
            cur[s] = o.top().max(r.top());
            obj[s] = o;
            arr[s] = r;
        }
        best = best.max(cur[0]);
        if best > CHECK_STEPS_PER_NODE {
            return over(best, depth);
        }
        if cur.iter().all(|&v| v == 0) || cur == snapshot {
            break;
        }
        since += 1;
        if since == power {
            snapshot.clone_from(&cur);
            power *= 2;
            since = 0;
        }
        prev = cur;
    }
    Ok(best)
}
