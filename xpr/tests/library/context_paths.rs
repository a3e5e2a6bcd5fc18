//! Chains of field reads on a context name (`properties.mag`) answered at
//! once by `Context::lookup_path`: the same results, fuel, errors and
//! error positions as reading the name and taking the fields in turn.

use std::cell::{Cell, RefCell};

use xpr::{Context, Engine, Error, Field, Limits, Map, RunConfig, Value, Vm};

static NULL: Value = Value::Null;

/// How a [`Walker`] hands over the value it found.
#[derive(Clone, Copy, Debug)]
enum Answer {
    Borrowed,
    Owned,
    /// Strings as text ([`Field::Str`]), anything else borrowed.
    Text,
}

/// A context over a map that answers paths by walking it as the contract
/// asks (`None` whenever a step could fail) and records the paths asked.
struct Walker {
    map: Map,
    answer: Answer,
    asked: RefCell<Vec<String>>,
    /// What `answers_paths` says, and how often it was asked.
    answers: bool,
    told: Cell<u32>,
}

impl Context for Walker {
    fn get(&self, name: &str) -> Option<Value> {
        self.map.get(name).cloned()
    }

    fn lookup(&self, name: &str, hash: u64) -> Option<Field<'_>> {
        Context::lookup(&self.map, name, hash)
    }

    fn answers_paths(&self) -> bool {
        self.told.set(self.told.get() + 1);
        self.answers
    }

    fn lookup_path(&self, name: &str, _hash: u64, steps: &[(&str, u64)]) -> Option<Field<'_>> {
        let mut asked = vec![name];
        asked.extend(steps.iter().map(|s| s.0));
        self.asked.borrow_mut().push(asked.join("."));
        let mut v = self.map.get(name)?;
        for (i, (key, _)) in steps.iter().enumerate() {
            let Value::Object(o) = v else { return None };
            v = match o.get(key) {
                Some(next) => next,
                None if i + 1 == steps.len() => &NULL,
                None => return None,
            };
        }
        Some(match (self.answer, v) {
            (Answer::Owned, v) => Field::Owned(v.clone()),
            (Answer::Text, Value::String(s)) => Field::Str(s),
            (_, v) => Field::Borrowed(v),
        })
    }
}

fn record() -> Map {
    let json = serde_json::json!({
        "properties": {"mag": 5.5, "place": "Alaska", "tags": ["a", "b"],
                       "deep": {"er": {"still": {"x": 1}}}},
        "n": 3,
        "s": "text",
        "z": null,
        "c1": {"c2": {"c3": {"c4": {"c5": {"c6": {"c7": {"c8": {"c9": {"c10": 10}}}}}}}}},
    });
    match xpr::Value::from_json(&json).unwrap() {
        Value::Object(o) => o.map().clone(),
        _ => unreachable!(),
    }
}

/// An error's kind, message and span.
type Failure = (String, String, Option<xpr::Span>);

/// The result or the error of one run, and the fuel used.
fn outcome(
    program: &xpr::Program,
    ctx: &dyn Context,
    fuel: Option<u64>,
) -> (Result<Value, Failure>, u64) {
    let mut vm = Vm::new();
    let config = RunConfig {
        limits: Some(Limits {
            fuel,
            ..program.limits().clone()
        }),
        ..RunConfig::default()
    };
    let r = program
        .run_in_with(&mut vm, ctx, &config)
        .map_err(|e: Error| {
            (
                e.kind().name().to_string(),
                e.message().to_string(),
                e.span(),
            )
        });
    (r, vm.fuel_used())
}

const SOURCES: &[&str] = &[
    "properties.mag > 5",
    "properties.mag * 2",
    "properties.place + '!'",
    "properties.place.upper()",
    "properties.tags.length",
    "properties.tags[1]",
    "properties.missing",
    "properties.missing.deeper",
    "properties.mag.deeper",
    "properties.mag.deeper.still",
    "properties.deep.er.still.x + properties.deep.er.still.x",
    "properties?.mag",
    "properties.deep.er",
    "properties.deep.er == {still: {x: 1}}",
    "c1.c2.c3.c4.c5.c6.c7.c8.c9.c10",
    "c1.c2.c3.c4.c5.c6.c7.c8.c9.nope",
    "z.field",
    "n.field",
    "s.field",
    "unknown.field",
    "[properties.mag, properties.place, n]",
    "{p: properties.place}.p.length",
    "let p = properties; p.mag + properties.mag",
];

#[test]
fn answered_paths_run_as_step_by_step_reads() {
    let engine = Engine::new();
    let map = record();
    for answer in [Answer::Borrowed, Answer::Owned, Answer::Text] {
        let walker = Walker {
            map: map.clone(),
            answer,
            asked: RefCell::new(Vec::new()),
            answers: true,
            told: Cell::new(0),
        };
        for source in SOURCES {
            let program = engine.compile(source).unwrap();
            let (plain, used) = outcome(&program, &map, None);
            let (walked, walked_used) = outcome(&program, &walker, None);
            assert_eq!(walked, plain, "{source} ({answer:?})");
            assert_eq!(walked_used, used, "fuel of {source} ({answer:?})");
            // Out of fuel at every point of the run: the same error at the
            // same instruction.
            for fuel in 0..=used {
                let (plain, _) = outcome(&program, &map, Some(fuel));
                let (walked, _) = outcome(&program, &walker, Some(fuel));
                assert_eq!(walked, plain, "{source} with fuel {fuel} ({answer:?})");
            }
        }
    }
}

#[test]
fn the_context_is_asked_for_whole_chains_of_constant_fields() {
    let engine = Engine::new();
    let walker = Walker {
        map: record(),
        answer: Answer::Borrowed,
        asked: RefCell::new(Vec::new()),
        answers: true,
        told: Cell::new(0),
    };
    let asked = |source: &str| {
        walker.asked.borrow_mut().clear();
        engine.compile(source).unwrap().run(&walker).unwrap();
        walker.asked.borrow().clone()
    };
    assert_eq!(asked("properties.mag > 5"), ["properties.mag"]);
    assert_eq!(
        asked("properties.deep.er.still.x"),
        ["properties.deep.er.still.x"]
    );
    // Optional chains, computed keys, lengths and plain names are read
    // step by step.
    assert!(asked("properties?.mag").is_empty());
    assert!(asked("properties['mag']").is_empty());
    assert!(asked("n + 1").is_empty());
    assert_eq!(asked("properties.tags.length"), ["properties.tags"]);
    // Eight fields at most: the rest of the chain is read from the answer.
    assert_eq!(
        asked("c1.c2.c3.c4.c5.c6.c7.c8.c9.c10"),
        ["c1.c2.c3.c4.c5.c6.c7.c8.c9"]
    );
}

#[test]
fn an_answer_deeper_than_the_value_depth_limit_fails_as_its_root_would() {
    let engine = Engine::new().with_limits(Limits {
        value_depth: 2,
        ..Limits::default()
    });
    // `properties.deep` is 3 deep, `properties` 4.
    let program = engine.compile("properties.deep").unwrap();
    let map = record();
    let walker = Walker {
        map: map.clone(),
        answer: Answer::Borrowed,
        asked: RefCell::new(Vec::new()),
        answers: true,
        told: Cell::new(0),
    };
    let (plain, _) = outcome(&program, &map, None);
    let (walked, _) = outcome(&program, &walker, None);
    assert_eq!(plain.as_ref().unwrap_err().0, "depth");
    assert_eq!(walked, plain);
}

#[test]
fn a_context_that_does_not_answer_is_asked_once_per_run_and_never_for_paths() {
    let engine = Engine::new();
    for answers in [false, true] {
        let walker = Walker {
            map: record(),
            answer: Answer::Borrowed,
            asked: RefCell::new(Vec::new()),
            answers,
            told: Cell::new(0),
        };
        let program = engine
            .compile("properties.mag > 5 && properties.place == 'Alaska' && n == 3")
            .unwrap();
        for run in 1..=2 {
            assert_eq!(program.run(&walker).unwrap(), Value::Bool(true));
            assert_eq!(walker.told.get(), run, "answers {answers}: once per run");
        }
        let paths = walker.asked.borrow().len();
        assert_eq!(paths, if answers { 4 } else { 0 }, "answers {answers}");
        // A run with no chain does not ask at all.
        walker.told.set(0);
        engine.compile("n + 1").unwrap().run(&walker).unwrap();
        assert_eq!(walker.told.get(), 0);
    }
}
