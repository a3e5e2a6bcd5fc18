//! Stored programs (`Program::to_bytes`, `Engine::load`): corrupted,
//! truncated, resealed and foreign bytes are refused with an error, never
//! a panic; host functions and capabilities are the loading engine's.

use serde_json::json;
use xpr::{Arity, Engine, ErrorKind, Limits, Value, ValueType};

/// Programs that use most of what a stored program holds: closures and
/// captures, destructuring, spreads, a regex literal, templates, methods,
/// pipes, optional calls, unknown functions with hints, `PI`.
const SOURCES: [&str; 6] = [
    "items.filter(x => x.price > 50).map(x => x.name)",
    "let {a, ...rest} = o; let [h, ...t] = [1, ...xs]; {a: a, rest: rest, h: h, t: t, n: `${a}-${PI}`}",
    "s.matches(/^[a-z]+\\d*$/i) ? s.upper() : fitler(s)",
    "xs |> sum() + (f?.(1) ?? 0) + max(...xs)",
    "(k => xs.map(x => x * k))(o.a ?? 2).reduce((a, b) => a + b, 0)",
    "price * 1.2 > 10 && !(name == 'x') || vat(price) > 3",
];

/// An engine with the host function `vat` (one argument).
fn engine() -> Engine {
    let mut e = Engine::new();
    e.register("vat", Arity::Exact(1), |a| {
        Ok(Value::from(a[0].as_number().unwrap_or(0.0) * 0.2))
    })
    .unwrap();
    e
}

fn context() -> serde_json::Value {
    json!({
        "items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}],
        "o": {"a": 3, "b": 4}, "xs": [1, 2, 3], "s": "abc7", "price": 12, "name": "y"
    })
}

/// CRC-32 (IEEE), written here again so that a test can reseal a body.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn reseal(bytes: &mut [u8]) {
    let crc = crc32(&bytes[14..]);
    bytes[10..14].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn stored_programs_give_what_compiled_ones_give() {
    let engine = engine();
    let ctx = context();
    for src in SOURCES {
        let compiled = engine.compile(src).unwrap();
        let bytes = compiled.to_bytes();
        assert_eq!(&bytes[..4], b"XPRC");
        assert_eq!(
            u16::from_le_bytes([bytes[4], bytes[5]]),
            xpr::STORED_FORMAT_VERSION
        );
        let loaded = engine.load(&bytes).unwrap();
        assert_eq!(loaded.to_string(), compiled.to_string(), "{src}");
        let show = |r: Result<Value, xpr::Error>| r.map_err(|e| e.to_string());
        assert_eq!(
            show(loaded.run_json(&ctx)),
            show(compiled.run_json(&ctx)),
            "{src}"
        );
        // Stored again, the same bytes.
        assert_eq!(loaded.to_bytes(), bytes, "{src}");
    }
}

#[test]
fn every_flipped_byte_and_every_truncation_is_refused() {
    let engine = engine();
    for src in SOURCES {
        let bytes = engine.compile(src).unwrap().to_bytes();
        for at in 0..bytes.len() {
            for mask in [0x01, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= mask;
                let e = engine.load(&bad).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::Value, "{src} byte {at}: {e}");
                assert!(e.message().starts_with("invalid stored program: "), "{e}");
            }
        }
        for len in 0..bytes.len() {
            let e = engine.load(&bytes[..len]).unwrap_err();
            assert!(e.message().starts_with("invalid stored program: "), "{e}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            engine
                .load(&longer)
                .unwrap_err()
                .message()
                .contains("trailing")
        );
    }
}

#[test]
fn a_resealed_body_is_validated_and_never_misbehaves() {
    // Every byte of the body changed, the checksum made to match again:
    // refused, or a program that runs within small budgets.
    let engine = engine().with_limits(Limits {
        fuel: Some(20_000),
        memory: Some(1 << 20),
        ..Limits::default()
    });
    let ctx = context();
    let (mut refused, mut ran) = (0, 0);
    for src in SOURCES {
        let bytes = engine.compile(src).unwrap().to_bytes();
        for at in 14..bytes.len() {
            for mask in [0x01, 0x02, 0x10, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= mask;
                reseal(&mut bad);
                match engine.load(&bad) {
                    Err(_) => refused += 1,
                    Ok(p) => {
                        let _ = p.run_json(&ctx);
                        ran += 1;
                    }
                }
            }
        }
    }
    assert!(refused > ran, "{refused} refused, {ran} ran");
}

#[test]
fn another_format_version_is_refused_naming_both() {
    let mut bytes = engine().compile("1 + 2").unwrap().to_bytes();
    bytes[4..6].copy_from_slice(&7u16.to_le_bytes());
    let e = engine().load(&bytes).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "invalid stored program: format version 7, but this build of xpr reads version {} (compile the expression again)",
            xpr::STORED_FORMAT_VERSION
        )
    );
    // Six bytes are enough to name the version.
    let e = engine().load(b"XPRC\x02\x00").unwrap_err();
    assert!(e.message().contains("format version 2, but"), "{e}");
    let e = engine().load(b"{\"not\": \"a program\"}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid stored program: not a stored XPR program (no XPRC header)"
    );
}

#[test]
fn host_functions_come_from_the_loading_engine() {
    let bytes = engine().compile("vat(price) + 1").unwrap().to_bytes();
    let e = Engine::new().load(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Host);
    assert_eq!(
        e.to_string(),
        "the stored program calls host function 'vat', which this engine does not register"
    );
    // Another engine's `vat` is the one called.
    let mut other = Engine::new();
    other
        .register("vat", Arity::Exact(1), |_| Ok(Value::from(100.0)))
        .unwrap();
    let loaded = other.load(&bytes).unwrap();
    assert_eq!(
        loaded.run_json(&json!({"price": 10})).unwrap(),
        Value::from(101.0)
    );
}

#[test]
fn capabilities_are_the_loading_engines() {
    let bytes = engine()
        .compile("name.upper() + string(now())")
        .unwrap()
        .to_bytes();
    for denied in ["upper", "now"] {
        let strict = engine().deny([denied]);
        let e = strict.load(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Access, "{e}");
        let compiled = strict.compile("name.upper() + string(now())").unwrap_err();
        assert_eq!(e.message(), compiled.message());
    }
    // A name read as a value is no function where it is not allowed, as
    // when compiled.
    let bytes = engine().compile("type(now)").unwrap().to_bytes();
    let loaded = engine().deny(["now"]).load(&bytes).unwrap();
    let e = loaded.run_json(&json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Reference, "{e}");
}

#[test]
fn limits_and_expected_type_after_loading() {
    let bytes = engine()
        .compile_expecting("o.a", ValueType::Boolean)
        .unwrap()
        .to_bytes();
    let loaded = engine().load(&bytes).unwrap();
    assert_eq!(loaded.expected_type(), Some(ValueType::Boolean));
    let e = loaded.run_json(&context()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type, "{e}");
    // The loading engine's limits apply, not the storing one's.
    let bytes = engine().compile("xs.map(x => x + 1)").unwrap().to_bytes();
    let tight = engine().with_limits(Limits {
        fuel: Some(5),
        ..Limits::default()
    });
    let e = tight
        .load(&bytes)
        .unwrap()
        .run_json(&context())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Fuel, "{e}");
    // The null operand's hint names it as written.
    let bytes = engine().compile("o.c > 10").unwrap().to_bytes();
    let e = engine()
        .load(&bytes)
        .unwrap()
        .run_json(&context())
        .unwrap_err();
    assert!(e.to_string().contains("`(o.c ?? 0) > 10`"), "{e}");
}

#[test]
fn the_source_length_limit_and_code_in_proportion() {
    // The densest code a source compiles to loads.
    let item = format!("{}a", "!".repeat(40));
    let dense = format!("[{}]", vec![item; 200].join(","));
    let bytes = engine().compile(&dense).unwrap().to_bytes();
    assert!(engine().load(&bytes).is_ok());
    let src = "[1, 2, 3].map(x => x * 2)";
    let bytes = engine().compile(src).unwrap().to_bytes();
    let short = engine().with_limits(Limits {
        max_length: Some(10),
        ..Limits::default()
    });
    let e = short.load(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Length, "{e}");
    // The same code with a one-byte source: 2 instructions a byte + 64 is
    // the most a stored program may have. A body is
    // built by hand: the source's length byte and text replaced.
    let big = engine()
        .compile(&format!("[{}]", vec!["x"; 100].join(",")))
        .unwrap()
        .to_bytes();
    let body = &big[14..];
    // Body: result type, expected type, root span (two LEB128s), then the
    // source: its length (LEB128) and its text.
    let leb = |at: &mut usize| {
        let (mut n, mut shift) = (0usize, 0);
        loop {
            let b = body[*at];
            *at += 1;
            n |= usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return n;
            }
        }
    };
    let mut at = 2;
    leb(&mut at);
    leb(&mut at);
    let start = at;
    let len = leb(&mut at);
    let mut short_body = body[..start].to_vec();
    short_body.push(1);
    short_body.push(b'x');
    short_body.extend_from_slice(&body[at + len..]);
    let mut sealed = big[..14].to_vec();
    sealed[6..10].copy_from_slice(&(short_body.len() as u32).to_le_bytes());
    sealed.extend_from_slice(&short_body);
    reseal(&mut sealed);
    let e = engine().load(&sealed).unwrap_err();
    assert!(
        e.message().contains("instructions for a source of 1 bytes"),
        "{e}"
    );
}

#[test]
fn a_loaded_programs_results_are_checked_whatever_its_stored_type_says() {
    // `1 > 0` is a boolean by its form; the stored type byte changed to
    // "number" and the program expecting numbers: a compiled program's
    // type would let every result pass unchecked, a loaded one's is not
    // trusted.
    let mut bytes = engine().compile("1 > 0").unwrap().to_bytes();
    let number = ValueType::ALL
        .iter()
        .position(|&t| t == ValueType::Number)
        .unwrap();
    bytes[14] = number as u8 + 1;
    reseal(&mut bytes);
    let loaded = engine().load(&bytes).unwrap();
    assert_eq!(loaded.result_type(), Some(ValueType::Number));
    let expecting = loaded.expecting(ValueType::Number).unwrap();
    let e = expecting.run_json(&json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Type, "{e}");
}

#[test]
fn a_loaded_program_explains_its_result_as_the_compiled_one_does() {
    let engine = engine();
    let ctx = context();
    let ctx = ctx.as_object().expect("an object");
    let mut with_steps = 0;
    for src in SOURCES {
        let compiled = engine.compile(src).expect("compiles");
        let loaded = engine.load(&compiled.to_bytes()).expect("loads");
        let (a, b) = (compiled.explain(ctx), loaded.explain(ctx));
        assert_eq!(a.to_string(), b.to_string(), "{src}");
        with_steps += usize::from(b.to_string().lines().count() > 1);
    }
    // More than results alone: the steps come from the stored source.
    assert!(with_steps >= 2, "{with_steps} explanations with steps");
}

#[test]
fn a_loaded_program_has_a_cost_bound_only_when_its_code_is_its_sources() {
    // Unaltered: the compiled program's bound. Altered and resealed (any
    // body the loader accepts): a bound only if the code is still what the
    // source compiles to, else none, with the reason. The `load` fuzz
    // target found altered bodies that ran over the bound of the code
    // they held (a call reading below its mark: 25 fuel against 23).
    let engine = engine();
    let (mut altered, mut unbounded) = (0, 0);
    for src in SOURCES.iter().chain(&["[max(...[1, 2]), max(1, ...[5])]"]) {
        let compiled = engine.compile(src).unwrap();
        let bytes = compiled.to_bytes();
        let loaded = engine.load(&bytes).expect("loads");
        assert_eq!(loaded.cost_bound(), compiled.cost_bound(), "{src}");
        for at in 14..bytes.len() {
            for mask in [0x01, 0x02, 0x10] {
                let mut bad = bytes.clone();
                bad[at] ^= mask;
                reseal(&mut bad);
                let Ok(p) = engine.load(&bad) else { continue };
                if p.bytecode().to_string() == compiled.bytecode().to_string() {
                    continue;
                }
                altered += 1;
                match p.cost_bound() {
                    xpr::CostBound::Unbounded { reason, .. } => {
                        unbounded +=
                            usize::from(reason.contains("not what its source compiles to"));
                    }
                    b => panic!("{src}: altered code has the bound {b}"),
                }
            }
        }
    }
    assert!(
        altered > 0 && unbounded == altered,
        "{unbounded} of {altered}"
    );
}
