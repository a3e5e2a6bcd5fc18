//! Tests of `json_in.rs`.

use super::*;

fn num(v: &Value) -> f64 {
    v.as_number().unwrap_or(f64::NAN)
}

#[test]
fn converts_every_json_type() {
    let mut conv = Conv::default();
    let v = parse_value(
        r#"{"a": [1, -2.5, "x\n", true, null], "b": {"c": {}}}"#,
        &mut conv,
    );
    let v = v.map_err(|e| e.message().to_string());
    let Ok(Value::Object(o)) = v else {
        panic!("not an object: {v:?}")
    };
    let Some(Value::Array(a)) = o.get("a") else {
        panic!("a is not an array")
    };
    assert_eq!(a.len(), 5);
    assert_eq!(num(&a.items()[1]), -2.5);
    assert_eq!(a.items()[2].as_str(), Some("x\n"));
    assert!(matches!(a.items()[4], Value::Null));
    assert!(matches!(o.get("b"), Some(Value::Object(_))));
    assert_eq!(conv.big_ints, 0);
}

#[test]
fn counts_or_rejects_integers_beyond_2_53() {
    let mut conv = Conv::default();
    let text =
        r#"[9007199254740992, 9007199254740993, -9007199254740993, 123456789012345678901234, 1.5]"#;
    assert!(parse_value(text, &mut conv).is_ok());
    assert_eq!(conv.big_ints, 3);
    let mut strict = Conv::new(true, 1000);
    let err = parse_value(r#"{"id": 9007199254740993}"#, &mut strict);
    let msg = err.map(|_| ()).map_err(|e| e.message().to_string());
    assert!(
        matches!(&msg, Err(m) if m.contains("9007199254740993 is beyond 2^53")),
        "{msg:?}"
    );
}

/// Names are found by position whatever their length (none, long,
/// beyond 63 bytes) and whether few (scanned) or many (indexed);
/// other keys, of the same lengths or not, are not.
#[test]
fn wanted_names_are_found_by_position() {
    let long = "k".repeat(63);
    let longer = "k".repeat(200);
    let base = ["", "a", "delay", &long, &longer];
    let many: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
    for names in [
        base.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
        base.iter().map(|n| n.to_string()).chain(many).collect(),
    ] {
        let keys: Vec<Key> = names.iter().map(|n| Key::from(n.as_str())).collect();
        let wanted = Wanted::new(&keys);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(wanted.find(n), Some(i), "{n}");
        }
        let others = [
            "b",
            "delax",
            "dela",
            &"k".repeat(64),
            &"k".repeat(199),
            "f99",
        ];
        for n in others {
            assert_eq!(wanted.find(n), None, "{n}");
        }
    }
    assert_eq!(Wanted::new(&[]).find(""), None);
}

#[test]
fn reads_only_wanted_fields() {
    let wanted = Wanted::new(&[Key::from("b"), Key::from("zz")]);
    let mut out = Vec::new();
    let mut conv = Conv::default();
    let text = r#"{"a": {"deep": [1, 2, 99999999999999999999]}, "b": "yes", "c": 3}"#;
    assert!(parse_fields(text, &wanted, &mut out, &mut conv).is_ok());
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].as_ref().and_then(Value::as_str), Some("yes"));
    assert!(out[1].is_none());
    // The skipped big integer was never converted.
    assert_eq!(conv.big_ints, 0);
    // Skipped parts are still validated, and trailing text is rejected.
    assert!(parse_fields(r#"{"a": [1,, 2], "b": 1}"#, &wanted, &mut out, &mut conv).is_err());
    assert!(parse_fields(r#"{"b": 1} x"#, &wanted, &mut out, &mut conv).is_err());
    // Non-objects have no fields.
    assert!(parse_fields("[1, 2]", &wanted, &mut out, &mut conv).is_ok());
    assert!(out.iter().all(Option::is_none));
}

#[test]
fn repeated_keys_share_one_string_within_bounds() {
    let mut conv = Conv::default();
    let a = parse_value(r#"{"name": 1}"#, &mut conv);
    let b = parse_value(r#"[{"name": 2}]"#, &mut conv);
    let key = |v: &Value| v.as_object().and_then(|o| o.map().keys().next().cloned());
    let ka = a.ok().as_ref().and_then(key);
    let kb = b
        .ok()
        .as_ref()
        .and_then(|v| v.as_array().and_then(|x| x.items().first().and_then(key)));
    assert!(
        matches!((&ka, &kb), (Some(x), Some(y)) if Key::ptr_eq(x, y)),
        "{ka:?} {kb:?}"
    );
    for i in 0..INTERNED_KEYS + 10 {
        let _ = parse_value(&format!("{{\"k{i}\": 0}}"), &mut conv);
    }
    assert_eq!(conv.keys.len(), INTERNED_KEYS);
}

#[test]
fn many_wanted_fields_use_the_index() {
    let names: Vec<Key> = (0..20).map(|i| Key::from(format!("f{i}"))).collect();
    let wanted = Wanted::new(&names);
    let mut out = Vec::new();
    let mut conv = Conv::default();
    assert!(
        parse_fields(
            r#"{"f17": 1, "g": 2, "f3": 4}"#,
            &wanted,
            &mut out,
            &mut conv
        )
        .is_ok()
    );
    assert_eq!(out[17].as_ref().map(num), Some(1.0));
    assert_eq!(out[3].as_ref().map(num), Some(4.0));
    assert_eq!(out.iter().filter(|v| v.is_some()).count(), 2);
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn serde_json_reads_to_its_depth_then_the_deep_reader_takes_over() {
    // SERDE_DEPTH is where serde_json stops: pinned here.
    let read = |text: &str| {
        let mut de = serde_json::Deserializer::from_str(text);
        ValueSeed(&mut Conv::default())
            .deserialize(&mut de)
            .map(|v| v.depth())
    };
    assert_eq!(read(&nested(SERDE_DEPTH as usize)).ok(), Some(SERDE_DEPTH));
    let e = read(&nested(SERDE_DEPTH as usize + 1)).err();
    assert!(e.as_ref().is_some_and(too_deep_for_serde), "{e:?}");
    // Past it, the same value, counted once.
    let mut conv = Conv::default();
    let text = format!("[9007199254740993, {}]", nested(500));
    let v = parse_value(&text, &mut conv);
    assert_eq!(v.map(|v| v.depth()).ok(), Some(501));
    assert_eq!(conv.big_ints, 1);
    let wanted = Wanted::new(&[Key::from("a"), Key::from("id")]);
    let mut out = Vec::new();
    let text = format!("{{\"id\": 9007199254740993, \"a\": {}}}", nested(998));
    assert!(parse_fields(&text, &wanted, &mut out, &mut conv).is_ok());
    assert_eq!(out[0].as_ref().map(Value::depth), Some(998));
    assert_eq!(conv.big_ints, 2);
    // Below serde_json's depth, a lower limit holds too.
    let mut shallow = Conv::new(false, 3);
    assert!(parse_value(&nested(3), &mut shallow).is_ok());
    let e = parse_value(&nested(4), &mut shallow).err();
    assert!(e.is_some_and(|e| e.is_data() && e.message().contains("deeper than 3 levels")));
    let text = "{\"a\": [[1]], \"id\": 1}";
    assert!(parse_fields(text, &wanted, &mut out, &mut shallow).is_ok());
    let text = "{\"a\": [[[1]]], \"id\": 1}";
    assert!(parse_fields(text, &wanted, &mut out, &mut shallow).is_err());
}

#[test]
fn errors_carry_the_message_apart_from_the_position() {
    let mut conv = Conv::default();
    let e = parse_value("{\"a\": }", &mut conv).err();
    assert_eq!(e.as_ref().map(JsonError::message), Some("expected value"));
    assert_eq!(e.as_ref().map(JsonError::column), Some(7));
}
