//! The guardrails fixed when the server starts, besides the limits: which
//! functions and methods expressions may use (`--allow`, `--deny`), the
//! type every result must have (`--expect`), and a JSON Schema every
//! result must conform to (`--output-schema`). The flags have the `xpr`
//! command line's names and meanings. A client cannot change them: it can
//! only add a schema of its own to one `evaluate` call, which the result
//! must pass as well as the server's.

use std::path::PathBuf;

use clap::Args;
use xpr::{Engine, ValueType};
use xpr_schema::OutputSchema;

/// The largest output schema file read, in bytes (as `xpr`'s).
const SCHEMA_FILE_BYTES: u64 = 16 << 20;

/// What the server's expressions may use and must yield, as flags.
#[derive(Debug, Clone, Default, Args)]
pub struct GuardArgs {
    /// Allow only these functions and methods (built-in or not),
    /// comma-separated: using any other is an error of kind `access`.
    #[arg(long, value_name = "NAME,NAME", value_delimiter = ',')]
    pub allow: Option<Vec<String>>,
    /// Deny these functions and methods, comma-separated (`--deny
    /// now,random` for reproducible results).
    #[arg(long, value_name = "NAME,NAME", value_delimiter = ',')]
    pub deny: Vec<String>,
    /// The type every result must have: boolean, number, string, array,
    /// object or null. Checked when the expression compiles if its form
    /// shows its type, else on the result.
    #[arg(long, value_name = "TYPE", value_parser = parse_type)]
    pub expect: Option<ValueType>,
    /// A JSON Schema every result of `evaluate` must conform to; one that
    /// does not is an error of kind `schema` naming the JSON pointer of the
    /// failing part. Read once, when the server starts.
    #[arg(long, value_name = "FILE")]
    pub output_schema: Option<PathBuf>,
}

fn parse_type(s: &str) -> Result<ValueType, String> {
    s.parse()
}

/// The names of a comma-separated list, trimmed, without empty ones.
fn names(list: &[String]) -> impl Iterator<Item = &str> {
    list.iter().map(|n| n.trim()).filter(|n| !n.is_empty())
}

impl GuardArgs {
    /// `engine` with the allowed and denied functions and methods.
    pub fn apply(&self, engine: Engine) -> Engine {
        let engine = match &self.allow {
            Some(allow) => engine.allow_only(names(allow)),
            None => engine,
        };
        engine.deny(names(&self.deny))
    }

    /// The expected type and the output schema, read and compiled.
    ///
    /// # Errors
    /// `FILE: REASON`: the schema file cannot be read, is larger than
    /// 16 MiB, is not UTF-8 or is not a valid JSON Schema (`invalid output
    /// schema ...`).
    pub fn guards(&self) -> Result<Guards, String> {
        let output_schema = match &self.output_schema {
            None => None,
            Some(path) => Some(read_schema(path)?),
        };
        Ok(Guards {
            expect: self.expect,
            output_schema,
        })
    }
}

/// Reads and compiles the schema file at `path`.
fn read_schema(path: &std::path::Path) -> Result<OutputSchema, String> {
    use std::io::Read as _;
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let mut bytes = Vec::new();
    file.take(SCHEMA_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    if bytes.len() as u64 > SCHEMA_FILE_BYTES {
        return Err(format!("{name}: larger than 16 MiB"));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{name}: invalid UTF-8"))?;
    OutputSchema::from_text(&text).map_err(|e| format!("{name}: {}", e.message()))
}

/// The result guardrails of a server (the allowlist is the engine's).
#[derive(Debug, Default)]
pub struct Guards {
    /// The type every result must have.
    pub expect: Option<ValueType>,
    /// The schema every result of `evaluate` must conform to.
    pub output_schema: Option<OutputSchema>,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn flags(args: &[&str]) -> Result<GuardArgs, clap::Error> {
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            guard: GuardArgs,
        }
        let args = std::iter::once("xpr-mcp").chain(args.iter().copied());
        Flags::try_parse_from(args).map(|f| f.guard)
    }

    fn temp(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("xpr-mcp-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("a temporary file");
        path
    }

    #[test]
    fn allow_and_deny_build_the_engines_allowlist() {
        let g = flags(&["--allow", "filter, round,", "--deny", "round"]).expect("flags");
        let engine = g.apply(Engine::new());
        assert!(engine.is_allowed("filter"));
        assert!(!engine.is_allowed("round"), "denied stays denied");
        assert!(!engine.is_allowed("map"));
        let e = engine
            .compile("items.map(x => x)")
            .expect_err("not allowed");
        assert_eq!(e.kind(), xpr::ErrorKind::Access);
        let engine = flags(&["--deny", "now,random"])
            .expect("flags")
            .apply(Engine::new());
        assert!(engine.is_allowed("map") && !engine.is_allowed("now"));
    }

    #[test]
    fn expect_takes_a_type_name() {
        let g = flags(&["--expect", "boolean"]).expect("flags");
        assert_eq!(g.guards().expect("guards").expect, Some(ValueType::Boolean));
        assert!(flags(&["--expect", "bool"]).is_err());
    }

    #[test]
    fn the_output_schema_is_read_and_compiled_at_start() {
        let good = temp("good.json", r#"{"type": "number"}"#);
        let g = flags(&["--output-schema", good.to_str().expect("a path")]).expect("flags");
        let schema = g.guards().expect("guards").output_schema.expect("a schema");
        assert!(schema.check_json(&serde_json::json!(1)).is_ok());
        assert!(schema.check_json(&serde_json::json!("x")).is_err());

        let bad = temp("bad.json", r#"{"type": "numbr"}"#);
        let g = flags(&["--output-schema", bad.to_str().expect("a path")]).expect("flags");
        let e = g.guards().expect_err("invalid");
        assert!(e.contains("bad.json: invalid output schema"), "{e}");

        let g = flags(&["--output-schema", "/nonexistent/schema.json"]).expect("flags");
        assert!(g.guards().expect_err("missing").contains("cannot read"));
        let _ = std::fs::remove_file(good);
        let _ = std::fs::remove_file(bad);
    }
}
