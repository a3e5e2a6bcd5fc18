//! Shared fixtures for the benchmarks (`benches/compare.rs`): the records of
//! each case, built the same way for every engine, and the hand-written Rust
//! baselines ("the limits") that every engine's result is checked against.
//!
//! Cases (issue 7):
//! - **a**: the predicate [`PREDICATE`] on one record ([`Booking`]);
//! - **b**: `items.filter(x => x.price > 50).map(x => x.name)` over 100 [`Item`]s;
//! - **c**: `(a + b) * c - d / e` on five numbers ([`Numbers`]);
//! - **d**: `(first + " " + last).upper()` ([`Person`]);
//! - **a_bind**: case a over [`BIND_RECORDS`] distinct `serde_json::Value` records;
//! - **compile**: compiling case a;
//! - **pipeline**: filter + sortBy + take + map over [`PIPELINE_RECORDS`] flights.

use std::path::PathBuf;

use serde_json::{Value as Json, json};

/// Case a, as XPR, CEL and rhai write it.
pub const PREDICATE: &str =
    r#"(Origin == "MOW" || Country == "RU") && (Value >= 100 || Adults == 1)"#;

/// Number of distinct records case a_bind cycles through.
pub const BIND_RECORDS: usize = 1024;

/// Number of records case b filters.
pub const ITEMS: usize = 100;

/// Number of flights in the one array case pipeline works on.
pub const PIPELINE_RECORDS: usize = 1000;

/// How many flights case pipeline keeps after sorting.
pub const PIPELINE_TAKE: usize = 10;

/// The record of case a, typed; with the `xpr` feature also a context
/// through `#[derive(xpr::Context)]`, by the names the expressions use.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "xpr", derive(xpr::Context), xpr(rename_all = "PascalCase"))]
pub struct Booking {
    /// Airport code, e.g. `"SVO"`.
    pub origin: String,
    /// Country code, e.g. `"RU"`.
    pub country: String,
    /// Price (an integer in every fixture).
    pub value: i64,
    /// Number of adults.
    pub adults: i64,
}

impl Booking {
    /// The record as JSON, with the field names the expressions use
    /// (`Origin`, `Country`, `Value`, `Adults`).
    pub fn to_json(&self) -> Json {
        json!({
            "Origin": self.origin,
            "Country": self.country,
            "Value": self.value,
            "Adults": self.adults,
        })
    }
}

/// Case a's record: `(false || true) && (false || true)`, so every one of
/// the four comparisons runs and the result is `true`.
pub fn booking() -> Booking {
    Booking {
        origin: "SVO".into(),
        country: "RU".into(),
        value: 50,
        adults: 1,
    }
}

/// A record of case a decided after two comparisons: `Origin == "MOW"`
/// and `Value >= 100` hold, so neither `||` reads its right-hand side.
pub fn booking_early_exit() -> Booking {
    Booking {
        origin: "MOW".into(),
        country: "FR".into(),
        value: 150,
        adults: 2,
    }
}

/// Case a by hand over the typed record: the lower limit.
pub fn predicate_typed(b: &Booking) -> bool {
    (b.origin == "MOW" || b.country == "RU") && (b.value >= 100 || b.adults == 1)
}

/// Case a by hand over a `serde_json::Value` record: the limit the floors
/// are stated against. A missing or mistyped field compares unequal.
pub fn predicate_json(v: &Json) -> bool {
    let str_is = |k: &str, s: &str| v.get(k).and_then(Json::as_str) == Some(s);
    let num = |k: &str| v.get(k).and_then(Json::as_f64);
    (str_is("Origin", "MOW") || str_is("Country", "RU"))
        && (num("Value").is_some_and(|x| x >= 100.0) || num("Adults") == Some(1.0))
}

/// A small deterministic pseudo-random sequence (xorshift64*), so every run
/// and every engine sees the same generated records.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A sequence from `seed` (0 is replaced by a fixed non-zero seed).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// `n` case-a records, distinct for `n` <= 1,024 (a mix of true and false results), as typed
/// records; [`Booking::to_json`] gives the JSON form case a_bind hands over.
pub fn bookings(n: usize) -> Vec<Booking> {
    const AIRPORTS: [&str; 6] = ["MOW", "SVO", "LED", "JFK", "CDG", "DME"];
    const COUNTRIES: [&str; 4] = ["RU", "US", "FR", "DE"];
    let mut rng = Rng::new(7);
    (0..n)
        .map(|i| {
            let pick = |rng: &mut Rng, list: &[&str]| {
                let at = usize::try_from(rng.below(list.len() as u64)).unwrap_or(0);
                list.get(at).copied().unwrap_or("").to_string()
            };
            Booking {
                origin: pick(&mut rng, &AIRPORTS),
                country: pick(&mut rng, &COUNTRIES),
                // Distinct records: the value is a permutation of the
                // index (389 is odd, so `i * 389 mod 1024` is one-to-one).
                value: i64::try_from(i * 389 % 1024).unwrap_or(0),
                adults: i64::try_from(rng.below(4)).unwrap_or(0),
            }
        })
        .collect()
}

/// One element of case b.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Its name, e.g. `"item-17"`.
    pub name: String,
    /// Its price, an integer in 0..100.
    pub price: i64,
}

/// Case b's `n` items; prices spread over 0..100, so about half pass.
pub fn items(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            name: format!("item-{i}"),
            price: i64::try_from(i * 37 % 100).unwrap_or(0),
        })
        .collect()
}

/// The items as a JSON array of `{name, price}` objects.
pub fn items_json(items: &[Item]) -> Json {
    Json::Array(
        items
            .iter()
            .map(|it| json!({"name": it.name, "price": it.price}))
            .collect(),
    )
}

/// Case b by hand over typed items: the names borrowed, nothing copied.
pub fn filter_map_typed(items: &[Item]) -> Vec<&str> {
    items
        .iter()
        .filter(|x| x.price > 50)
        .map(|x| x.name.as_str())
        .collect()
}

/// Case b by hand over a JSON array: the names cloned into a new array
/// (a `serde_json::Value` cannot share them).
pub fn filter_map_json(items: &Json) -> Vec<Json> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|x| {
                    x.get("price")
                        .and_then(Json::as_f64)
                        .is_some_and(|p| p > 50.0)
                })
                .filter_map(|x| x.get("name").cloned())
                .collect()
        })
        .unwrap_or_default()
}

/// The five numbers of case c.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Numbers {
    /// `a`
    pub a: f64,
    /// `b`
    pub b: f64,
    /// `c`
    pub c: f64,
    /// `d`
    pub d: f64,
    /// `e`
    pub e: f64,
}

impl Numbers {
    /// As a JSON object `{a, b, c, d, e}`.
    pub fn to_json(&self) -> Json {
        json!({"a": self.a, "b": self.b, "c": self.c, "d": self.d, "e": self.e})
    }
}

/// Case c's numbers: `(1.5 + 2.5) * 3 - 4 / 8 = 11.5`, exact in binary.
pub fn numbers() -> Numbers {
    Numbers {
        a: 1.5,
        b: 2.5,
        c: 3.0,
        d: 4.0,
        e: 8.0,
    }
}

/// Case c by hand, typed.
pub fn arith_typed(n: &Numbers) -> f64 {
    (n.a + n.b) * n.c - n.d / n.e
}

/// Case c by hand over JSON (a missing field reads as 0).
pub fn arith_json(v: &Json) -> f64 {
    let f = |k: &str| v.get(k).and_then(Json::as_f64).unwrap_or(0.0);
    (f("a") + f("b")) * f("c") - f("d") / f("e")
}

/// The record of case d.
#[derive(Debug, Clone, PartialEq)]
pub struct Person {
    /// Given name.
    pub first: String,
    /// Family name.
    pub last: String,
}

impl Person {
    /// As a JSON object `{first, last}`.
    pub fn to_json(&self) -> Json {
        json!({"first": self.first, "last": self.last})
    }
}

/// Case d's record.
pub fn person() -> Person {
    Person {
        first: "Ada".into(),
        last: "Lovelace".into(),
    }
}

/// Case d by hand, typed.
pub fn upper_typed(p: &Person) -> String {
    let mut s = String::with_capacity(p.first.len() + 1 + p.last.len());
    s.push_str(&p.first);
    s.push(' ');
    s.push_str(&p.last);
    s.to_uppercase()
}

/// Case d by hand over JSON (a missing field reads as empty).
pub fn upper_json(v: &Json) -> String {
    let f = |k: &str| v.get(k).and_then(Json::as_str).unwrap_or("");
    let (first, last) = (f("first"), f("last"));
    let mut s = String::with_capacity(first.len() + 1 + last.len());
    s.push_str(first);
    s.push(' ');
    s.push_str(last);
    s.to_uppercase()
}

/// One flight of the pipeline case (the fields of `flights-20k.ndjson`).
#[derive(Debug, Clone, PartialEq)]
pub struct Flight {
    /// `"YYYY/MM/DD HH:MM"`.
    pub date: String,
    /// Minutes late (may be negative).
    pub delay: i64,
    /// Miles.
    pub distance: i64,
    /// Airport code.
    pub origin: String,
    /// Airport code.
    pub destination: String,
}

impl Flight {
    /// From a JSON record; `None` when a field is missing or mistyped.
    pub fn from_json(v: &Json) -> Option<Flight> {
        let s = |k: &str| v.get(k).and_then(Json::as_str).map(str::to_string);
        let n = |k: &str| v.get(k).and_then(Json::as_i64);
        Some(Flight {
            date: s("date")?,
            delay: n("delay")?,
            distance: n("distance")?,
            origin: s("origin")?,
            destination: s("destination")?,
        })
    }

    /// As a JSON record.
    pub fn to_json(&self) -> Json {
        json!({
            "date": self.date,
            "delay": self.delay,
            "distance": self.distance,
            "origin": self.origin,
            "destination": self.destination,
        })
    }
}

/// `/work/shared/data`, found from this crate's manifest directory.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// Where criterion writes its results: `$CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else the workspace's `target/criterion`
/// (the order criterion itself uses, minus its `cargo metadata` call).
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/criterion")
}

/// Where the pipeline's flights come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlightSource {
    /// The first records of `flights-20k.ndjson`.
    File,
    /// Generated here (the file was absent or unreadable).
    Generated,
}

/// The first `n` flights of `flights-20k.ndjson` when it is present and has
/// that many valid records, else `n` generated ones.
pub fn flights(n: usize) -> (Vec<Flight>, FlightSource) {
    let path = data_dir().join("flights-20k.ndjson");
    if let Ok(text) = std::fs::read_to_string(path) {
        let read: Vec<Flight> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Json>(line).ok())
            .filter_map(|v| Flight::from_json(&v))
            .take(n)
            .collect();
        if read.len() == n {
            return (read, FlightSource::File);
        }
    }
    (generated_flights(n), FlightSource::Generated)
}

/// `n` generated flights with the file's shape.
pub fn generated_flights(n: usize) -> Vec<Flight> {
    const AIRPORTS: [&str; 8] = ["ATL", "DFW", "LAX", "ORD", "SFO", "JFK", "SEA", "DEN"];
    let mut rng = Rng::new(2001);
    let pick = |rng: &mut Rng| {
        let at = usize::try_from(rng.below(AIRPORTS.len() as u64)).unwrap_or(0);
        AIRPORTS.get(at).copied().unwrap_or("ATL").to_string()
    };
    (0..n)
        .map(|i| Flight {
            date: format!("2001/01/{:02} {:02}:{:02}", 1 + i % 28, i % 24, i % 60),
            delay: i64::try_from(rng.below(240)).unwrap_or(0) - 30,
            distance: i64::try_from(100 + rng.below(2500)).unwrap_or(0),
            origin: pick(&mut rng),
            destination: pick(&mut rng),
        })
        .collect()
}

/// The pipeline by hand, typed: flights more than an hour late over more
/// than 1,000 miles, the latest first (a stable sort), the first
/// [`PIPELINE_TAKE`], as `"ORIGIN-DESTINATION"`.
pub fn pipeline_typed(flights: &[Flight]) -> Vec<String> {
    let mut late: Vec<&Flight> = flights
        .iter()
        .filter(|f| f.delay > 60 && f.distance > 1000)
        .collect();
    late.sort_by_key(|f| std::cmp::Reverse(f.delay));
    late.iter()
        .take(PIPELINE_TAKE)
        .map(|f| {
            let mut s = String::with_capacity(f.origin.len() + 1 + f.destination.len());
            s.push_str(&f.origin);
            s.push('-');
            s.push_str(&f.destination);
            s
        })
        .collect()
}

/// The pipeline by hand over a JSON array of flights (a record missing a
/// field does not pass the filter).
pub fn pipeline_json(flights: &Json) -> Vec<Json> {
    let num = |f: &Json, k: &str| f.get(k).and_then(Json::as_f64);
    let text = |f: &Json, k: &str| f.get(k).and_then(Json::as_str).unwrap_or("").to_string();
    let Some(all) = flights.as_array() else {
        return Vec::new();
    };
    let mut late: Vec<(&Json, f64)> = all
        .iter()
        .filter_map(|f| match (num(f, "delay"), num(f, "distance")) {
            (Some(delay), Some(distance)) if delay > 60.0 && distance > 1000.0 => Some((f, delay)),
            _ => None,
        })
        .collect();
    late.sort_by(|x, y| y.1.total_cmp(&x.1));
    late.iter()
        .take(PIPELINE_TAKE)
        .map(|(f, _)| Json::String(text(f, "origin") + "-" + &text(f, "destination")))
        .collect()
}

/// A JSON value as an XPR value (numbers become doubles), for building
/// native XPR contexts before timing.
#[cfg(feature = "xpr")]
pub fn to_xpr(v: &Json) -> xpr::Value {
    match v {
        Json::Null => xpr::Value::Null,
        Json::Bool(b) => xpr::Value::Bool(*b),
        Json::Number(n) => xpr::Value::Number(n.as_f64().unwrap_or(0.0)),
        Json::String(s) => xpr::Value::from(s.as_str()),
        Json::Array(a) => xpr::Value::array(a.iter().map(to_xpr).collect()),
        Json::Object(o) => xpr::Value::object(to_xpr_map(o)),
    }
}

/// A JSON object as an XPR map: a native context.
#[cfg(feature = "xpr")]
pub fn to_xpr_map(o: &serde_json::Map<String, Json>) -> xpr::Map {
    o.iter()
        .map(|(k, v)| (xpr::Key::from(k.as_str()), to_xpr(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_and_json_baselines_agree() {
        let b = booking();
        assert!(predicate_typed(&b));
        assert_eq!(predicate_typed(&b), predicate_json(&b.to_json()));
        for b in bookings(BIND_RECORDS) {
            assert_eq!(predicate_typed(&b), predicate_json(&b.to_json()), "{b:?}");
        }
        let its = items(ITEMS);
        let typed = filter_map_typed(&its);
        let json: Vec<String> = filter_map_json(&items_json(&its))
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        assert_eq!(typed, json);
        assert!(!typed.is_empty() && typed.len() < ITEMS);
        let n = numbers();
        assert_eq!(arith_typed(&n), 11.5);
        assert_eq!(arith_json(&n.to_json()), 11.5);
        let p = person();
        assert_eq!(upper_typed(&p), "ADA LOVELACE");
        assert_eq!(upper_json(&p.to_json()), "ADA LOVELACE");
    }

    #[test]
    fn a_bind_records_are_distinct_and_mixed() {
        let all = bookings(BIND_RECORDS);
        let trues = all.iter().filter(|b| predicate_typed(b)).count();
        assert!(trues > 0 && trues < all.len(), "{trues}");
        let mut seen: Vec<String> = all.iter().map(|b| b.to_json().to_string()).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), BIND_RECORDS);
    }

    #[test]
    fn pipeline_baselines_agree_and_keep_enough() {
        for (flights, _) in [
            flights(PIPELINE_RECORDS),
            (generated_flights(500), FlightSource::Generated),
        ] {
            let typed = pipeline_typed(&flights);
            assert_eq!(typed.len(), PIPELINE_TAKE);
            let json = Json::Array(flights.iter().map(Flight::to_json).collect());
            let by_json: Vec<String> = pipeline_json(&json)
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            assert_eq!(typed, by_json);
        }
    }
}
