//! The static cost bound holds (issue 20, part 1): over every conformance
//! expression with its context (the project's cases, and the official
//! suite and the extra cases of `../shared` when present) and over
//! generated expressions and contexts, the fuel a run uses never exceeds
//! the bound evaluated at the context's sizes. Prints how tight the bound
//! is (the median of measured / bound) and how many expressions have no
//! bound.

use xpr::{CostBound, Engine, Value, Vm};
use xpr_testkit::Rng;

/// What the cases gave: ratios of the bounded ones, the count unbounded,
/// the violations (which fail the test).
#[derive(Default)]
struct Tally {
    ratios: Vec<f64>,
    /// The ratios of the expressions that call a regex built-in (by their
    /// text: a call of `match`, `test`, ..., a regex literal argument).
    regex_ratios: Vec<f64>,
    unbounded: usize,
    reasons: std::collections::BTreeMap<String, usize>,
    violations: Vec<String>,
    /// Runs that gave a result (not an error).
    succeeded: usize,
}

impl Tally {
    fn check(&mut self, engine: &Engine, src: &str, context: &serde_json::Value) {
        let Ok(program) = engine.compile(src) else {
            return;
        };
        let Ok(ctx @ Value::Object(_)) = Value::from_json(context) else {
            return;
        };
        let bound = program.cost_bound();
        let mut vm = Vm::new();
        if program.run_in(&mut vm, &ctx).is_ok() {
            self.succeeded += 1;
        }
        let used = vm.fuel_used();
        match &bound {
            CostBound::Unbounded { reason, .. } => {
                self.unbounded += 1;
                let short: String = reason.chars().take(60).collect();
                *self.reasons.entry(short).or_default() += 1;
            }
            CostBound::Bounded(_) => match bound.evaluate(&bound.sizes_of(&ctx)) {
                Some(at) if used <= at => {
                    let ratio = used as f64 / at.max(1) as f64;
                    self.ratios.push(ratio);
                    if calls_regex(src) {
                        self.regex_ratios.push(ratio);
                    }
                }
                at => self.violations.push(format!(
                    "{src}\n  context {context}\n  used {used} > bound {at:?} = {bound}"
                )),
            },
        }
    }

    fn median(&mut self) -> f64 {
        median_of(&mut self.ratios)
    }

    fn report(&mut self, what: &str) {
        let median = self.median();
        println!(
            "cost bound, {what}: {} bounded (median measured/bound {median:.3}), {} unbounded, {} runs gave a result",
            self.ratios.len(),
            self.unbounded,
            self.succeeded
        );
        let regex = median_of(&mut self.regex_ratios);
        println!(
            "  of which {} call a regex built-in (median measured/bound {regex:.2e})",
            self.regex_ratios.len()
        );
        for (reason, n) in &self.reasons {
            println!("  unbounded {n:>4}: {reason}");
        }
        assert!(
            self.violations.is_empty(),
            "{} runs used more fuel than their bound:\n{}",
            self.violations.len(),
            self.violations.join("\n")
        );
    }
}

fn median_of(ratios: &mut [f64]) -> f64 {
    ratios.sort_by(f64::total_cmp);
    ratios.get(ratios.len() / 2).copied().unwrap_or(0.0)
}

/// Whether `src` may call a regex built-in (a heuristic, for the report).
fn calls_regex(src: &str) -> bool {
    ["match", "test(", "replacePattern", "(/", ", /"]
        .iter()
        .any(|w| src.contains(w))
}

#[test]
fn bound_holds_on_every_conformance_case() {
    let mut suites = Vec::new();
    for dir in conformance::default_dirs() {
        suites.extend(conformance::load_dir(&dir).expect("suites load"));
    }
    let engine = conformance::engine();
    let mut tally = Tally::default();
    for case in suites.iter().flat_map(|s| &s.tests).filter(|c| !c.skip) {
        let context = case
            .context
            .clone()
            .unwrap_or_else(|| serde_json::json!({}));
        tally.check(&engine, &case.expression, &context);
    }
    assert!(tally.ratios.len() > 100, "too few cases bounded");
    tally.report("conformance cases");
}

#[test]
fn bound_holds_on_generated_expressions() {
    let engine = conformance::engine();
    let mut tally = Tally::default();
    let mut rng = Rng::new(0xc057_b0d5);
    for _ in 0..2_500 {
        let mut g = Gen {
            rng: &mut rng,
            vars: Vec::new(),
        };
        let src = g.any(4);
        let context = g.context();
        tally.check(&engine, &src, &context);
    }
    assert!(
        tally.ratios.len() >= 2_000,
        "too few generated cases bounded"
    );
    tally.report("generated expressions");
}

/// A generator of expressions over the context of [`Gen::context`]:
/// `items` (objects with `price`, `name`, `tags`), `nums`, `words`,
/// `name`, `n`, `flag`, `obj` and `wide` (one key, often long).
struct Gen<'r> {
    rng: &'r mut Rng,
    /// The item parameters of the enclosing callbacks.
    vars: Vec<String>,
}

const WORDS: [&str; 6] = ["a", "bc", "x,y", "hello", "", "Ünï"];

impl Gen<'_> {
    fn word(&mut self) -> String {
        let w = *self.rng.pick(&WORDS);
        let long = "z".repeat(self.rng.below(40));
        if self.rng.chance(0.2) {
            format!("{w}{long}")
        } else {
            w.to_string()
        }
    }

    fn context(&mut self) -> serde_json::Value {
        let n_items = if self.rng.chance(0.1) {
            self.rng.below(300)
        } else {
            self.rng.below(12)
        };
        let items: Vec<serde_json::Value> = (0..n_items)
            .map(|_| {
                let tags: Vec<String> = (0..self.rng.below(5)).map(|_| self.word()).collect();
                serde_json::json!({
                    "price": self.rng.below(200) as f64 / 2.0,
                    "name": self.word(),
                    "tags": tags,
                })
            })
            .collect();
        let nums: Vec<f64> = (0..self.rng.below(15))
            .map(|_| self.rng.below(100) as f64 - 20.0)
            .collect();
        let words: Vec<String> = (0..self.rng.below(8)).map(|_| self.word()).collect();
        serde_json::json!({
            "items": items,
            "nums": nums,
            "words": words,
            "name": self.word(),
            "n": self.rng.below(20),
            "flag": self.rng.coin(),
            "obj": {"a": self.rng.below(9), "b": self.word(), "c": [1, 2, 3]},
            "wide": {self.word().repeat(200): 1},
        })
    }

    fn item(&mut self) -> Option<String> {
        if self.vars.is_empty() {
            None
        } else {
            let i = self.rng.below(self.vars.len());
            Some(self.vars[i].clone())
        }
    }

    /// A callback over items: `x => body(x)`.
    fn lambda(&mut self, body: fn(&mut Self, u32) -> String, d: u32) -> String {
        let v = format!("x{}", self.vars.len());
        self.vars.push(v.clone());
        let b = body(self, d);
        self.vars.pop();
        format!("{v} => {b}")
    }

    fn any(&mut self, d: u32) -> String {
        match self.rng.below(6) {
            0 => self.num(d),
            1 => self.text(d),
            2 => self.boolean(d),
            3 => self.items(d),
            4 => self.list(d),
            _ => self.object(d),
        }
    }

    fn num(&mut self, d: u32) -> String {
        let leaf = d == 0 || self.rng.chance(0.3);
        if leaf {
            return match self.rng.below(5) {
                0 => self.rng.below(10).to_string(),
                1 => "n".into(),
                2 => "items.length".into(),
                3 => "obj.a".into(),
                _ => match self.item() {
                    Some(x) => format!("{x}.price"),
                    None => "nums.length".into(),
                },
            };
        }
        let d = d - 1;
        match self.rng.below(21) {
            0 => format!("({} + {})", self.num(d), self.num(d)),
            1 => format!("({} * {})", self.num(d), self.num(d)),
            2 => format!("{}.length", self.text(d)),
            3 => format!("{}.sum()", self.list(d)),
            4 => format!(
                "{}.filter({}).length",
                self.items(d),
                self.lambda(Self::boolean, d)
            ),
            5 => format!("{}.reduce((a, b) => a + b, 0)", self.list(d)),
            6 => format!("max({}, {})", self.num(d), self.num(d)),
            7 => format!("({} ? {} : {})", self.boolean(d), self.num(d), self.num(d)),
            8 => format!("{}.count({})", self.items(d), self.lambda(Self::boolean, d)),
            9 => format!("{}.indexOf({})", self.list(d), self.num(d)),
            10 => format!("({}[0] ?? 0)", self.list(d)),
            11 => format!("{}.length", self.strings(d)),
            12 => format!("round({} / 3)", self.num(d)),
            13 => format!("({} % 7)", self.num(d)),
            14 => format!("({}.find(v => v > {}) ?? 0)", self.list(d), self.num(d)),
            15 => format!("{}.indexOf({})", self.strings(d), self.text(d)),
            16 => format!("int(\"1{}\")", self.rng.below(99)),
            17 => format!("year({} * 86400000)", self.num(d)),
            18 => format!(
                "{}.keyBy({}).keys().length",
                self.items(d),
                self.lambda(Self::text, d)
            ),
            19 => format!("(let y = {}; y * y)", self.num(d)),
            _ => format!("(obj[{}] ?? 0)", self.text(d)),
        }
    }

    fn text(&mut self, d: u32) -> String {
        let leaf = d == 0 || self.rng.chance(0.3);
        if leaf {
            return match self.rng.below(4) {
                0 => format!("{:?}", self.word()),
                1 => "name".into(),
                2 => "obj.b".into(),
                _ => match self.item() {
                    Some(x) => format!("{x}.name"),
                    None => "name".into(),
                },
            };
        }
        let d = d - 1;
        match self.rng.below(28) {
            0 => format!("({} + {})", self.text(d), self.text(d)),
            1 => format!(
                "`{}-${{{}}}-${{{}}}`",
                self.word(),
                self.num(d),
                self.text(d)
            ),
            2 => format!("{}.upper()", self.text(d)),
            3 => format!("{}.trim()", self.text(d)),
            4 => format!("{}.join(\",\")", self.strings(d)),
            5 => format!("string({})", self.any(d)),
            6 => format!("{}.slice(0, 3)", self.text(d)),
            7 => format!("{}.replace(\"a\", \"bb\")", self.text(d)),
            8 => format!("({}[0] ?? \"\")", self.strings(d)),
            9 => format!("{}.padStart(8, \"*\")", self.text(d)),
            10 => format!("{}.repeat(2)", self.text(d)),
            11 => format!("{}.lower()", self.text(d)),
            12 => format!("`${{{}}}`", self.any(d)),
            13 => format!("{}.split(\"\").join(\"\")", self.text(d)),
            14 => format!("formatDate({} * 1000, \"YYYY-MM-DD HH:mm\")", self.num(d)),
            15 => format!("{}.charAt(1)", self.text(d)),
            16 => format!("({}[1] ?? \"\")", self.text(d)),
            17 => format!(
                "{}.sort((a, b) => a.length - b.length).join()",
                self.strings(d)
            ),
            18 => format!("{}.map(v => string(v)).join(\",\")", self.list(d)),
            19 => format!("(let y = {}; y + y)", self.text(d)),
            20 => format!("{}.padEnd(6, \"-\")", self.text(d)),
            // The regex built-ins (their bound is loose: see `cost::regex`).
            21 => format!("replacePattern({}, \"[a-c]+\", \"<$&>\")", self.text(d)),
            22 => format!("{}.replace(/(\\w)(\\w)?/, \"$2$1$`\")", self.text(d)),
            23 => format!("(match({}, \"[a-z]{{2,}}\") ?? \"\")", self.text(d)),
            24 => format!("matchAll({}, /\\w*/).join(\"|\")", self.text(d)),
            25 => format!("{}.split(/(,)\\s*/).join(\";\")", self.text(d)),
            26 => format!("string(/a[ab]{{16}}c/.test({}))", self.text(d)),
            _ => format!("{{a: {}}}.a", self.text(d)),
        }
    }

    fn boolean(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(0.2) {
            return match self.rng.below(3) {
                0 => "flag".into(),
                1 => "true".into(),
                _ => format!("{} > {}", self.num(0), self.num(0)),
            };
        }
        let d = d - 1;
        match self.rng.below(17) {
            0 => format!("{} > {}", self.num(d), self.num(d)),
            1 => format!("{} == {}", self.text(d), self.text(d)),
            2 => format!("({} && {})", self.boolean(d), self.boolean(d)),
            3 => format!("!({})", self.boolean(d)),
            4 => format!("{}.some({})", self.items(d), self.lambda(Self::boolean, d)),
            5 => format!("{}.includes({})", self.strings(d), self.text(d)),
            6 => format!("{}.startsWith({})", self.text(d), self.text(d)),
            7 => format!("({} || {})", self.boolean(d), self.boolean(d)),
            8 => format!("{} == {}", self.any(d), self.any(d)),
            9 => format!("obj.has({})", self.text(d)),
            10 => format!("{}.every({})", self.items(d), self.lambda(Self::boolean, d)),
            11 => format!("{}.contains({})", self.text(d), self.text(d)),
            12 => format!("{}.endsWith({})", self.text(d), self.text(d)),
            13 => format!("{} != {}", self.object(d), self.object(d)),
            14 => format!("{} < {}", self.text(d), self.text(d)),
            15 => format!("[{}].includes({})", self.object(d), self.object(d)),
            _ => match self.item() {
                Some(x) => format!("{x}?.name == null"),
                None => "obj?.b == null".into(),
            },
        }
    }

    fn items(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(0.3) {
            return "items".into();
        }
        let d = d - 1;
        match self.rng.below(6) {
            0 => format!(
                "{}.filter({})",
                self.items(d),
                self.lambda(Self::boolean, d)
            ),
            1 => format!("{}.sortBy({})", self.items(d), self.lambda(Self::num, d)),
            2 => format!("{}.slice(0, 2)", self.items(d)),
            3 => format!("{}.reverse()", self.items(d)),
            4 => format!("[...{}, ...{}]", self.items(d), self.items(d)),
            5 => format!("{}.unique()", self.items(d)),
            6 => format!("{}.map(x => ({{...x, price: x.price * 2}}))", self.items(d)),
            7 => format!(
                "{}.partition({})[0]",
                self.items(d),
                self.lambda(Self::boolean, d)
            ),
            8 => format!("{}.sort((a, b) => a.price - b.price)", self.items(d)),
            _ => format!("{}.take(3)", self.items(d)),
        }
    }

    fn list(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(0.3) {
            return "nums".into();
        }
        let d = d - 1;
        match self.rng.below(17) {
            0 => format!("{}.map({})", self.items(d), self.lambda(Self::num, d)),
            1 => format!("range(0, {})", self.rng.below(12)),
            2 => format!("{}.filter(v => v > {})", self.list(d), self.num(d)),
            3 => format!("{}.sort()", self.list(d)),
            4 => format!("[{}, {}]", self.num(d), self.num(d)),
            5 => format!("[...{}, {}]", self.list(d), self.num(d)),
            6 => format!("{}.map(v => v * 2)", self.list(d)),
            7 => format!("{}.map(x => x.tags.length)", self.items(d)),
            8 => format!("{}.unique()", self.list(d)),
            9 => format!("{}.drop(1)", self.list(d)),
            10 => format!("[{}, {}].flat()", self.list(d), self.list(d)),
            11 => format!("{}.concat({})", self.list(d), self.list(d)),
            12 => format!("{}.sort((a, b) => b - a)", self.list(d)),
            13 => format!("{}.map(({{price}}) => price)", self.items(d)),
            14 => format!("{}.chunk(2).map(c => c.length)", self.list(d)),
            15 => format!("{}.zip({}).map(p => p[0])", self.list(d), self.strings(d)),
            _ => "obj.c".into(),
        }
    }

    fn strings(&mut self, d: u32) -> String {
        if d == 0 || self.rng.chance(0.3) {
            return "words".into();
        }
        let d = d - 1;
        match self.rng.below(7) {
            0 => format!("{}.map({})", self.items(d), self.lambda(Self::text, d)),
            1 => format!("{}.split(\",\")", self.text(d)),
            2 => format!("{}.unique()", self.strings(d)),
            3 => format!("{}.flatMap(x => x.tags)", self.items(d)),
            4 => "obj.keys()".into(),
            5 => format!("{}.sort()", self.strings(d)),
            _ => match self.item() {
                Some(x) => format!("{x}.tags"),
                None => "words".into(),
            },
        }
    }

    fn object(&mut self, d: u32) -> String {
        let d = d.saturating_sub(1);
        match self.rng.below(9) {
            0 => format!("{{a: {}, b: {}}}", self.num(d), self.text(d)),
            // One key: comparing `wide` (a long key) with another object
            // must not hash it (the bound charges the lighter side).
            7 => "wide".into(),
            8 => format!("{{a: {}}}", self.num(d)),
            1 => format!("{}.groupBy({})", self.items(d), self.lambda(Self::text, d)),
            2 => format!("{{...obj, d: {}}}", self.num(d)),
            3 => "obj.entries()".into(),
            4 => "fromEntries(obj.entries())".into(),
            5 => format!("{}.keyBy({})", self.items(d), self.lambda(Self::text, d)),
            _ => "obj.values()".into(),
        }
    }
}
