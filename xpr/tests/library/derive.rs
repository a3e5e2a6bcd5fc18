//! `#[derive(Context)]` (crate `xpr-derive`, the `derive` feature's
//! `xpr::Context` derive): host structs read by programs, checked against
//! the same data handed over as JSON.

use std::collections::BTreeMap;

use serde::Serialize;
use xpr::{Engine, Value};

#[derive(xpr_derive::Context, Serialize, Clone)]
struct Item {
    name: String,
    price: f64,
    tags: Vec<&'static str>,
}

#[derive(xpr_derive::Context, Serialize, Clone)]
struct Order {
    id: u64,
    customer: Customer,
    items: Vec<Item>,
    discount: Option<f64>,
    paid: bool,
    notes: BTreeMap<String, i32>,
}

#[derive(xpr_derive::Context, Serialize, Clone)]
struct Customer {
    name: String,
    country: &'static str,
}

fn order() -> Order {
    Order {
        id: 7,
        customer: Customer {
            name: "Ada".into(),
            country: "UK",
        },
        items: vec![
            Item {
                name: "pen".into(),
                price: 3.5,
                tags: vec!["office"],
            },
            Item {
                name: "desk".into(),
                price: 120.0,
                tags: vec![],
            },
        ],
        discount: None,
        paid: true,
        notes: [("b".to_string(), 2), ("a".to_string(), 1)].into(),
    }
}

fn run(source: &str, context: &dyn xpr::Context) -> Result<Value, xpr::Error> {
    Engine::new().compile(source).expect(source).run(context)
}

/// Every expression gives the same value (or the same error) whether the
/// order is handed over as the struct or as its JSON.
#[test]
fn the_struct_reads_as_its_json_does() {
    let typed = order();
    let json = serde_json::to_value(&typed).expect("json");
    for source in [
        "id",
        "customer.name",
        "customer.country == \"UK\" && paid",
        "items.filter(x => x.price > 50).map(x => x.name)",
        "items.map(x => x.tags.length)",
        "discount ?? 0",
        "discount.x",
        "notes",
        "keys(customer)",
        "items[0]",
        "`${customer.name} owes ${items.map(x => x.price).sum()}`",
        "missing",
        "customer.missing",
    ] {
        let a = run(source, &typed);
        let b = run(source, &json);
        assert_eq!(
            a.as_ref().map_err(|e| e.to_string()),
            b.as_ref().map_err(|e| e.to_string()),
            "{source}"
        );
    }
    assert_eq!(
        run("items.filter(x => x.price > 50).map(x => x.name)", &typed).unwrap(),
        Value::from(vec![Value::from("desk")])
    );
}

#[derive(xpr_derive::Context)]
#[xpr(rename_all = "camelCase")]
struct Renamed {
    delay_minutes: f64,
    #[xpr(rename = "km")]
    distance: u32,
    #[xpr(skip)]
    #[allow(dead_code)]
    secret: String,
    r#type: &'static str,
}

#[test]
fn names_follow_the_attributes() {
    let r = Renamed {
        delay_minutes: 75.0,
        distance: 1200,
        secret: "hidden".into(),
        r#type: "A320",
    };
    assert_eq!(
        run("delayMinutes > 60 && km > 1000 && type == \"A320\"", &r).unwrap(),
        Value::Bool(true)
    );
    for hidden in ["secret", "delay_minutes", "distance"] {
        let e = run(hidden, &r).expect_err(hidden);
        assert_eq!(
            e.to_string(),
            run(hidden, &()).unwrap_err().to_string(),
            "{hidden}"
        );
    }
}

#[test]
fn every_rename_all_rule_spells_as_serde_does() {
    macro_rules! case {
        ($rule:literal, $want:literal) => {{
            #[derive(xpr_derive::Context, Serialize)]
            #[xpr(rename_all = $rule)]
            #[serde(rename_all = $rule)]
            struct S {
                first_field_x: i32,
            }
            let s = S { first_field_x: 1 };
            let json = serde_json::to_value(&s).unwrap();
            assert!(json.get($want).is_some(), "serde: {json}");
            assert_eq!(run($want, &s).unwrap(), Value::Number(1.0), $rule);
        }};
    }
    case!("lowercase", "first_field_x");
    case!("UPPERCASE", "FIRST_FIELD_X");
    case!("PascalCase", "FirstFieldX");
    case!("camelCase", "firstFieldX");
    case!("snake_case", "first_field_x");
    case!("SCREAMING_SNAKE_CASE", "FIRST_FIELD_X");
    // kebab-case names are not identifiers: `Kebab` below reads them
    // with brackets.
}

#[derive(xpr_derive::Context, Serialize)]
#[serde(rename_all = "kebab-case")]
struct Kebab {
    first_field: i32,
    #[serde(rename(serialize = "ser", deserialize = "de"))]
    second: i32,
    #[serde(skip_serializing)]
    #[allow(dead_code)]
    third: i32,
    #[serde(default, rename = "fourth-one")]
    fourth: i32,
}

#[derive(xpr_derive::Context)]
struct Outer {
    k: Kebab,
}

#[test]
fn serde_attributes_are_honoured_when_no_xpr_attribute_speaks() {
    let o = Outer {
        k: Kebab {
            first_field: 1,
            second: 2,
            third: 3,
            fourth: 4,
        },
    };
    let json = serde_json::to_value(&o.k).unwrap();
    assert_eq!(
        run("k", &o).unwrap(),
        Value::from_json(&json).unwrap(),
        "{json}"
    );
    assert_eq!(
        run(
            "[k[\"first-field\"], k.ser, k[\"fourth-one\"], k.third]",
            &o
        )
        .unwrap(),
        Value::from(vec![
            Value::Number(1.0),
            Value::Number(2.0),
            Value::Number(4.0),
            Value::Null
        ])
    );
}

#[derive(xpr_derive::Context)]
struct Generic<T> {
    value: T,
    label: std::borrow::Cow<'static, str>,
}

#[test]
fn generic_structs_and_non_finite_numbers() {
    let g = Generic {
        value: vec![1.5_f32, f32::NAN],
        label: "x".into(),
    };
    assert_eq!(
        run("[value, label]", &g).unwrap(),
        Value::from(vec![
            Value::from(vec![Value::Number(1.5), Value::Null]),
            Value::from("x")
        ])
    );
}

#[test]
fn a_struct_is_a_context_for_every_entry_point() {
    let typed = order();
    let program = Engine::new().compile("customer.name").unwrap();
    let mut vm = xpr::Vm::new();
    assert_eq!(program.run_in(&mut vm, &typed).unwrap(), Value::from("Ada"));
    assert_eq!(xpr::Context::get(&typed, "id"), Some(Value::Number(7.0)));
    assert_eq!(xpr::Context::get(&typed, "nope"), None);
}

#[derive(xpr_derive::Context, Serialize)]
struct Audit {
    user: &'static str,
    at: u32,
}

#[derive(xpr_derive::Context, Serialize)]
struct Event {
    kind: &'static str,
    #[serde(flatten)]
    audit: Audit,
    #[xpr(flatten)]
    #[serde(flatten)]
    more: BTreeMap<String, i32>,
}

#[test]
fn flattened_fields_are_read_as_the_struct_s_own() {
    let e = Event {
        kind: "login",
        audit: Audit { user: "ada", at: 9 },
        more: BTreeMap::new(),
    };
    let json = serde_json::to_value(&e).unwrap();
    for source in [
        "user",
        "at",
        "kind",
        "[kind, user, at]",
        "keys(audit ?? {})",
    ] {
        assert_eq!(
            run(source, &e).map_err(|e| e.to_string()),
            run(source, &json).map_err(|e| e.to_string()),
            "{source}"
        );
    }
}

/// The example of `xpr-derive`'s documentation.
#[test]
fn the_documented_example_runs() {
    #[derive(xpr_derive::Context)]
    #[xpr(rename_all = "camelCase")]
    struct Flight {
        #[allow(dead_code)]
        origin: String,
        delay_minutes: f64,
        #[xpr(rename = "km")]
        distance: u32,
        #[xpr(skip)]
        #[allow(dead_code)]
        internal_id: u64,
    }
    let flight = Flight {
        origin: "SVO".into(),
        delay_minutes: 75.0,
        distance: 1200,
        internal_id: 9,
    };
    let rule = Engine::new()
        .compile("delayMinutes > 60 && km > 1000")
        .unwrap();
    assert_eq!(rule.run(&flight).unwrap(), Value::Bool(true));
}
