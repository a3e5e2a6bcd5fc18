//! `xpr check --cost`: the program's static fuel bound
//! ([`xpr::Program::cost_bound`]) as a formula, and its value at the sizes
//! given (`--sizes len(items)=1000`, a bare `items=1000` meaning
//! `len(items)`), measured in a context (`--context`) or the largest over
//! the records of a sample (`--sample`); the variable `memory` is the
//! `--max-memory` budget.

use xpr::{CostBound, Program, Sizes, Value};

use super::Exit;

/// What `--cost` reports: the bound, and its value where sizes are known.
pub struct CostReport {
    bound: CostBound,
    sizes: Option<Sizes>,
    fuel: Option<u64>,
}

/// Parses one `--sizes` item: `NAME=N`.
fn parse_size(item: &str) -> Result<(&str, u64), Exit> {
    let (name, n) = item
        .rsplit_once('=')
        .ok_or_else(|| Exit::usage(format_args!("--sizes {item}: expected NAME=N")))?;
    let n = n
        .trim()
        .parse::<u64>()
        .map_err(|_| Exit::usage(format_args!("--sizes {item}: {n:?} is not a whole number")))?;
    Ok((name.trim(), n))
}

impl CostReport {
    /// The bound of `program` and its value at the sizes of `contexts`
    /// (the largest) overridden by `given`.
    pub fn new(
        program: &Program,
        contexts: &[Value],
        given: &[String],
        memory: Option<u64>,
    ) -> Result<Self, Exit> {
        let bound = program.cost_bound();
        // The run's memory limit (`--max-memory`), for the variable `memory`.
        let with_memory = |mut s: Sizes| {
            if let Some(m) = memory
                && bound.variables().iter().any(|v| v.to_string() == "memory")
            {
                s.set("memory", m);
            }
            s
        };
        let mut fuel = None;
        let mut sizes = None;
        for ctx in contexts {
            let s = with_memory(bound.sizes_of(ctx));
            if let Some(f) = bound.evaluate(&s)
                && fuel.is_none_or(|m| f > m)
            {
                fuel = Some(f);
                sizes = Some(s);
            }
        }
        if !given.is_empty() || (contexts.is_empty() && bound.variables().is_empty()) {
            let mut s = sizes.unwrap_or_else(|| with_memory(Sizes::new()));
            for item in given {
                let (name, n) = parse_size(item)?;
                s.set(name, n);
            }
            fuel = bound.evaluate(&s);
            sizes = Some(s);
        }
        Ok(CostReport { bound, sizes, fuel })
    }

    /// The variables the bound needs that the sizes lack.
    fn missing(&self) -> Vec<String> {
        let Some(sizes) = &self.sizes else {
            return Vec::new();
        };
        self.bound
            .variables()
            .iter()
            .filter(|v| sizes.get(v).is_none())
            .map(ToString::to_string)
            .collect()
    }

    /// The text lines: `cost: FORMULA`, then `fuel at sizes: N (sizes)`.
    pub fn text(&self) -> String {
        let mut out = match &self.bound {
            CostBound::Bounded(p) => format!("cost: {p}\n"),
            CostBound::Unbounded { reason, span } => format!(
                "cost: unbounded: {reason} (characters {}..{})\n",
                span.start, span.end
            ),
        };
        if let (Some(fuel), Some(sizes)) = (self.fuel, &self.sizes) {
            let shown: Vec<String> = sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!("fuel at most: {fuel}"));
            if !shown.is_empty() {
                out.push_str(&format!(" (at {})", shown.join(", ")));
            }
            out.push('\n');
        } else if self.bound.is_bounded() && self.sizes.is_some() {
            out.push_str(&format!(
                "fuel at most: unknown (no size for {})\n",
                self.missing().join(", ")
            ));
        }
        out
    }

    /// The JSON object: `bounded`, `bound` (the formula or null),
    /// `reason` and `span` (when unbounded), `variables`, and `sizes` and
    /// `fuel` when sizes are known.
    pub fn json(&self) -> serde_json::Value {
        let mut o = serde_json::Map::new();
        o.insert("bounded".into(), self.bound.is_bounded().into());
        match &self.bound {
            CostBound::Bounded(p) => {
                o.insert("bound".into(), p.to_string().into());
            }
            CostBound::Unbounded { reason, span } => {
                o.insert("bound".into(), serde_json::Value::Null);
                o.insert("reason".into(), reason.clone().into());
                o.insert("span".into(), serde_json::json!([span.start, span.end]));
            }
        }
        let vars: Vec<String> = self
            .bound
            .variables()
            .iter()
            .map(ToString::to_string)
            .collect();
        o.insert("variables".into(), vars.into());
        if let Some(sizes) = &self.sizes {
            let s: serde_json::Map<String, serde_json::Value> = sizes
                .iter()
                .map(|(k, v)| (k.to_string(), v.into()))
                .collect();
            o.insert("sizes".into(), s.into());
            o.insert(
                "fuel".into(),
                self.fuel.map_or(serde_json::Value::Null, Into::into),
            );
            let missing = self.missing();
            if !missing.is_empty() {
                o.insert("missing".into(), missing.into());
            }
        }
        o.into()
    }
}
