//! The `limits` object of `compile` (JSON text from the JavaScript side)
//! as [`xpr::Limits`].
//!
//! Keys (all optional; an absent key keeps the default, `null` means
//! unlimited): `fuel` (units), `memory` (bytes), `callDepth`,
//! `valueDepth`, `timeoutMs` (CPU time, measured here as wall time: see
//! `crate::clock`), `wallTimeoutMs` (`null`: none; absent: ten times the
//! timeout), `maxLength` (characters), `maxDepth` (AST levels),
//! `maxRegexBytes`. Depths cannot be unlimited: `null` there is an error.

use std::time::Duration;

use serde_json::{Map, Value as Json};
use xpr::{Limits, WallCeiling};

/// The limits `json` describes, or a message naming the key at fault.
pub(crate) fn parse(json: &str) -> Result<Limits, String> {
    let mut limits = Limits::default();
    if json.trim().is_empty() {
        return Ok(limits);
    }
    let map: Map<String, Json> = match serde_json::from_str(json) {
        Ok(Json::Object(m)) => m,
        Ok(Json::Null) => return Ok(limits),
        Ok(_) => return Err("limits must be an object".into()),
        Err(e) => return Err(format!("limits are not JSON: {e}")),
    };
    for (key, value) in &map {
        match key.as_str() {
            "fuel" => limits.fuel = optional(key, value)?,
            "memory" => limits.memory = optional(key, value)?,
            "callDepth" => limits.call_depth = depth(key, value)?,
            "valueDepth" => limits.value_depth = depth(key, value)?,
            "timeoutMs" => limits.timeout = optional(key, value)?.map(Duration::from_millis),
            "wallTimeoutMs" => {
                limits.wall_timeout = match optional(key, value)? {
                    Some(ms) => WallCeiling::After(Duration::from_millis(ms)),
                    None => WallCeiling::Off,
                }
            }
            "maxLength" => {
                limits.max_length = optional(key, value)?.map(|n| n.min(usize::MAX as u64) as usize)
            }
            "maxDepth" => {
                limits.max_depth = optional(key, value)?.map(|n| n.min(u64::from(u32::MAX)) as u32)
            }
            "maxRegexBytes" => limits.max_regex_bytes = optional(key, value)?,
            _ => return Err(format!("unknown limit '{key}'")),
        }
    }
    Ok(limits)
}

/// A non-negative whole number, or `None` for `null`.
fn optional(key: &str, value: &Json) -> Result<Option<u64>, String> {
    if value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 2f64.powi(53) => Ok(Some(n as u64)),
        _ => Err(format!(
            "limit '{key}' must be a non-negative whole number or null"
        )),
    }
}

fn depth(key: &str, value: &Json) -> Result<u32, String> {
    match optional(key, value)? {
        Some(n) if n <= u64::from(u32::MAX) => Ok(n as u32),
        _ => Err(format!("limit '{key}' must be a whole number up to 2^32-1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_keys_keep_the_defaults_and_null_lifts_a_limit() {
        assert_eq!(parse("").unwrap(), Limits::default());
        assert_eq!(parse("{}").unwrap(), Limits::default());
        let l = parse(r#"{"fuel": 500, "memory": null, "timeoutMs": 20, "wallTimeoutMs": null}"#)
            .unwrap();
        assert_eq!(l.fuel, Some(500));
        assert_eq!(l.memory, None);
        assert_eq!(l.timeout, Some(Duration::from_millis(20)));
        assert_eq!(l.wall_timeout, WallCeiling::Off);
        assert_eq!(l.call_depth, Limits::default().call_depth);
    }

    #[test]
    fn bad_limits_are_named() {
        for (json, word) in [
            (r#"{"fuel": -1}"#, "'fuel'"),
            (r#"{"fuel": 1.5}"#, "'fuel'"),
            (r#"{"fuel": "9"}"#, "'fuel'"),
            (r#"{"callDepth": null}"#, "'callDepth'"),
            (r#"{"gas": 1}"#, "'gas'"),
            ("[1]", "object"),
            ("{", "JSON"),
        ] {
            let e = parse(json).unwrap_err();
            assert!(e.contains(word), "{json}: {e}");
        }
    }
}
