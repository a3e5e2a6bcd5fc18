//! Tests of `json.rs`.

use super::*;
use serde_json::json;

#[test]
fn from_json_converts_every_kind_in_order() {
    let j = json!({"z": 1, "a": [true, null, 2.5, "é😀"], "m": {"k": -0.0}});
    let v = Value::from_json(&j).unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(
        o.map().keys().map(|k| &**k).collect::<Vec<_>>(),
        ["z", "a", "m"]
    );
    assert_eq!(o.get("z"), Some(&Value::Number(1.0)));
    let a = o.get("a").unwrap().as_array().unwrap();
    assert_eq!(a.items()[0], Value::Bool(true));
    assert_eq!(a.items()[1], Value::Null);
    assert_eq!(a.items()[2], Value::Number(2.5));
    assert_eq!(a.items()[3], Value::from("é😀"));
    assert_eq!(v.depth(), 2);
}

#[test]
fn round_trip_through_serde_json_value() {
    let j = json!({"b": [1, 2.5, -3, 9007199254740992u64], "a": {"s": "x", "n": null, "t": false}});
    let v = Value::from_json(&j).unwrap();
    let back = to_json(&v).unwrap();
    assert_eq!(back, j);
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(&j).unwrap()
    );
    let back: serde_json::Value = (&v).try_into().unwrap();
    assert_eq!(back, j);
}

#[test]
fn integral_numbers_leave_as_integers() {
    let v = Value::array(vec![
        Value::Number(100.0),
        Value::Number(-0.0),
        Value::Number(0.5),
        Value::Number(1e300),
    ]);
    assert_eq!(
        serde_json::to_string(&to_json(&v).unwrap()).unwrap(),
        "[100,0,0.5,1e+300]"
    );
    assert_eq!(serde_json::to_string(&v).unwrap(), "[100,0,0.5,1e+300]");
}

#[test]
fn regex_and_function_have_no_json_form() {
    let r = Value::Regex(Arc::new(crate::stdlib::regex::compile("a", "i").unwrap()));
    let e = to_json(&Value::array(vec![r.clone()])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type);
    assert!(e.message().contains("regex"));
    assert!(
        serde_json::to_string(&r)
            .unwrap_err()
            .to_string()
            .contains("regex")
    );
    let f = Value::Function(Arc::new(crate::function::Function::Builtin(0)));
    assert!(to_json(&f).unwrap_err().message().contains("function"));
    assert!(serde_json::to_string(&f).is_err());
}

#[test]
fn deserialize_builds_values_from_text() {
    let v: Value =
        serde_json::from_str(r#"{"b": [1, "two", null, true, {"c": 1.5e3}], "a": -7, "b": 9}"#)
            .unwrap();
    let o = v.as_object().unwrap();
    // Duplicate key: last value wins, first position kept (JSON.parse).
    assert_eq!(o.map().keys().map(|k| &**k).collect::<Vec<_>>(), ["b", "a"]);
    assert_eq!(o.get("b"), Some(&Value::Number(9.0)));
    assert_eq!(o.get("a"), Some(&Value::Number(-7.0)));
    let v: Value =
        serde_json::from_str(r#"[1, "two", null, true, {"c": 1.5e3}, 18446744073709551615]"#)
            .unwrap();
    let a = v.as_array().unwrap();
    assert_eq!(
        a.items()[4].as_object().unwrap().get("c"),
        Some(&Value::Number(1500.0))
    );
    assert_eq!(a.items()[5], Value::Number(18446744073709551615.0));
    assert_eq!(
        v,
        Value::from_json(
            &serde_json::from_str(r#"[1,"two",null,true,{"c":1500},18446744073709551615]"#)
                .unwrap()
        )
        .unwrap()
    );
}

#[test]
fn scalar_keys_of_other_formats_become_their_text() {
    use serde::de::value::{Error as DeError, MapDeserializer};
    let entries = vec![(1u64, "one"), (25u64, "twenty-five")];
    let de = MapDeserializer::<_, DeError>::new(entries.into_iter());
    let v = <Value as serde::Deserialize>::deserialize(de).unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(o.get("1"), Some(&Value::from("one")));
    assert_eq!(o.get("25"), Some(&Value::from("twenty-five")));
}

#[test]
fn deserialize_rejects_malformed_text() {
    assert!(serde_json::from_str::<Value>("[1,").is_err());
    assert!(serde_json::from_str::<Value>("{1: 2}").is_err());
    assert!(serde_json::from_str::<Value>("NaN").is_err());
}

#[test]
fn numbers_beyond_f64_are_an_error_not_infinity() {
    let e = serde_json::from_str::<Value>("1e400").unwrap_err();
    assert!(e.to_string().contains("number out of range"), "{e}");
    let e = serde_json::from_str::<Value>("[-1e400]").unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    assert!(serde_json::from_str::<serde_json::Value>("1e400").is_err());
    // A deserializer that hands over an infinite float directly.
    let e = Seed { depth: 0 }
        .visit_f64::<serde_json::Error>(f64::INFINITY)
        .unwrap_err();
    assert!(e.to_string().contains("Number out of range"), "{e}");
    assert!(number_to_json(f64::NAN).is_err());
}

#[test]
fn deeply_nested_text_is_an_error_not_a_crash() {
    let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let e = serde_json::from_str::<Value>(&text).unwrap_err();
    assert!(e.to_string().contains("recursion limit"), "{e}");
    let text = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    assert!(serde_json::from_str::<Value>(&text).is_err());
    // Within serde_json's limit it works.
    let text = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap().depth(), 100);
}

#[test]
fn own_depth_guard_applies_without_serde_json_limit() {
    // A `serde_json::Value` is itself a deserializer, with no recursion
    // limit: the guard of `Seed` is what stops it. Run on a thread with
    // room for serde's own recursion in debug builds.
    let results = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let ok = nested_json(MAX_DEPTH as usize);
            let a = <Value as serde::Deserialize>::deserialize(&ok).map(|v| v.depth());
            let deep = nested_json(MAX_DEPTH as usize + 1);
            let b = <Value as serde::Deserialize>::deserialize(&deep).map(|v| v.depth());
            (a.map_err(|e| e.to_string()), b.map_err(|e| e.to_string()))
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(results.0, Ok(MAX_DEPTH));
    assert!(results.1.unwrap_err().contains("depth limit"));
}

fn nested_json(depth: usize) -> serde_json::Value {
    // Built by hand: `json!` would deep-copy `j` at every level.
    let mut j = json!(1);
    for i in 0..depth {
        j = if i % 2 == 0 {
            serde_json::Value::Array(vec![j])
        } else {
            let mut m = serde_json::Map::new();
            m.insert("k".into(), j);
            serde_json::Value::Object(m)
        };
    }
    j
}

/// Takes a nested serde_json value apart level by level (its drop is recursive).
fn dismantle_json(mut j: serde_json::Value) {
    loop {
        j = match j {
            serde_json::Value::Array(mut a) => a.pop().unwrap_or_default(),
            serde_json::Value::Object(mut m) => m.remove("k").unwrap_or_default(),
            _ => break,
        };
    }
}

#[test]
fn from_json_guards_depth_of_built_trees() {
    let j = nested_json(MAX_DEPTH as usize);
    let v = Value::from_json(&j).unwrap();
    assert_eq!(v.depth(), MAX_DEPTH);
    assert!(to_json(&v).is_ok());
    dismantle_json(j);

    let j = nested_json(10_000);
    let e = Value::from_json(&j).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Depth);
    assert!(e.message().contains("depth limit exceeded"), "{e}");
    // The context reads the too-deep field as absent, without crashing.
    let mut record = serde_json::Map::new();
    record.insert("deep".into(), j);
    record.insert("x".into(), json!(3));
    assert_eq!(Context::get(&record, "deep"), None);
    assert_eq!(Context::get(&record, "x"), Some(Value::Number(3.0)));
    if let Some(j) = record.remove("deep") {
        dismantle_json(j);
    }
}

#[test]
fn to_json_guards_depth_of_values() {
    let mut v = Value::Null;
    for _ in 0..=MAX_DEPTH {
        v = Value::array(vec![v]);
    }
    assert_eq!(to_json(&v).unwrap_err().kind(), ErrorKind::Depth);
    assert!(
        serde_json::to_string(&v)
            .unwrap_err()
            .to_string()
            .contains("depth limit")
    );
}

#[test]
fn conversions_at_the_depth_limit_fit_a_small_stack() {
    // 2 MiB, as the VM's own depth tests; a debug build has large frames.
    let worked = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let j = nested_json(MAX_DEPTH as usize);
            let v = Value::from_json(&j).map_err(|e| e.to_string())?;
            let back = to_json(&v).map_err(|e| e.to_string())?;
            let same = back == j;
            let text = serde_json::to_string(&v).map_err(|e| e.to_string())?;
            dismantle_json(back);
            dismantle_json(j);
            Ok::<_, String>((same, text.len(), v.depth()))
        })
        .unwrap()
        .join()
        .unwrap();
    let (same, len, depth) = worked.unwrap();
    assert!(same);
    assert_eq!(depth, MAX_DEPTH);
    assert!(len > 2 * MAX_DEPTH as usize);
}

#[test]
fn context_converts_only_the_field_looked_up() {
    let record = json!({"name": "Ada", "tags": ["x"], "n": 2});
    let map = record.as_object().unwrap();
    assert_eq!(Context::get(map, "name"), Some(Value::from("Ada")));
    assert_eq!(
        Context::get(map, "tags"),
        Some(Value::array(vec![Value::from("x")]))
    );
    assert_eq!(Context::get(map, "missing"), None);
    assert_eq!(Context::get(&record, "n"), Some(Value::Number(2.0)));
    assert_eq!(Context::get(&json!([1]), "n"), None);
}

#[test]
fn strings_of_every_plane_survive() {
    let s = "a\u{0}é\u{7ff}\u{800}\u{ffff}\u{10000}😀\u{10ffff}";
    let v: Value = serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap();
    assert_eq!(v, Value::from(s));
    let v: Value = serde_json::from_str(r#""\ud83d\ude00 \u00e9""#).unwrap();
    assert_eq!(v, Value::from("😀 é"));
    assert!(serde_json::from_str::<Value>(r#""\ud800""#).is_err());
}
