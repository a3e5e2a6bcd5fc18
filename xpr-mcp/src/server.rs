//! The MCP side: an `rmcp` [`ServerHandler`] that lists the tools, hands
//! each call to the workers and turns the outcome into a tool result.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourcesCapability,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio::io::{AsyncBufRead, AsyncWrite};
use xpr::Engine;

use crate::gate::Gate;
use crate::guards::Guards;
use crate::tools::{self, JsonObject, Outcome};
use crate::worker::Workers;

/// The URI of the language card resource.
pub const CARD_URI: &str = "xpr://language-card";

/// The XPR MCP server: two tools, `evaluate` and `check`, and the
/// language card as a resource, under limits and guardrails fixed when it
/// is made. Cheap to clone (clones share the workers).
#[derive(Debug, Clone)]
pub struct Server {
    workers: Arc<Workers>,
    card: Arc<str>,
    jobs: usize,
}

/// Requests read and not yet answered, per job: one running, one waiting.
const IN_FLIGHT_PER_JOB: usize = 2;

impl Server {
    /// A server compiling with `engine` (whose limits and allowlist every
    /// call runs under), its results held to `guards`, running at most
    /// `jobs` calls at once. The language card lists what `engine` allows.
    pub fn new(engine: Engine, guards: Guards, jobs: usize) -> Self {
        let card = xpr::card(&engine).into();
        Server {
            workers: Arc::new(Workers::new(engine, guards, jobs)),
            card,
            jobs: jobs.max(1),
        }
    }

    /// The transport to serve on, reading messages from `read` and
    /// writing to `write` (standard input and output): a [`Gate`] that
    /// refuses, with a JSON-RPC error, a message nested deeper than
    /// [`crate::MAX_NESTING`] levels, longer than [`crate::MAX_LINE`]
    /// bytes or whose parsed form would take more than the server's memory
    /// limit (bytes), and reads nothing more while two requests per job
    /// are being answered.
    pub fn transport<R, W>(&self, read: R, write: W) -> Gate<R, W>
    where
        R: AsyncBufRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let memory = self.workers.engine().limits().memory;
        let memory = memory.map(|m| usize::try_from(m).unwrap_or(usize::MAX));
        Gate::new(read, write, memory, self.jobs * IN_FLIGHT_PER_JOB)
    }

    /// Calls tool `name` with `arguments`, as `tools/call` does. `None`:
    /// there is no such tool.
    pub async fn call(&self, name: &str, arguments: Option<&JsonObject>) -> Option<CallToolResult> {
        let outcome = match tools::parse(name, arguments) {
            Ok(Some(call)) => self.workers.run(call).await,
            Ok(None) => return None,
            Err(diagnostic) => Outcome::Failed(diagnostic),
        };
        Some(result(outcome))
    }

    /// What the server tells a client about itself and its limits.
    fn instructions(&self) -> String {
        let l = self.workers.engine().limits();
        let or_none = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        let mut text = format!(
            "XPR is a small, sandboxed expression language over JSON data \
             (`items.filter(x => x.price > 50).map(x => x.name)`); the resource {CARD_URI} \
             describes it (syntax, every function allowed, examples). Call `check` to validate \
             an expression and see the fields it reads, `evaluate` to compute it against a \
             context object. A failure returns a diagnostic with the span, expected tokens \
             and a hint: fix the expression and call again. Limits per call (fixed by the \
             server): fuel {}, memory {} bytes, CPU time {} ms, expression length {}.",
            or_none(l.fuel.map(|n| n.to_string())),
            or_none(l.memory.map(|n| n.to_string())),
            or_none(l.timeout.map(|t| t.as_millis().to_string())),
            or_none(l.max_length.map(|n| n.to_string())),
        );
        let guards = self.workers.guards();
        if let Some(t) = guards.expect {
            text.push_str(&format!(" Every result must be of type {t}."));
        }
        if guards.output_schema.is_some() {
            text.push_str(
                " Every result of `evaluate` must conform to the server's output schema.",
            );
        }
        text
    }
}

/// The tool result of an outcome: structured content and its text, or an
/// error result whose content is the diagnostic's JSON text.
fn result(outcome: Outcome) -> CallToolResult {
    match outcome {
        Outcome::Done { structured, text } => {
            let mut result = CallToolResult::structured(structured);
            result.content = vec![ContentBlock::text(text)];
            result
        }
        Outcome::Failed(diagnostic) => {
            CallToolResult::error(vec![ContentBlock::text(diagnostic.to_string())])
        }
    }
}

/// The language card resource (its text is [`Server`]'s `card`).
fn card_resource() -> Resource {
    Resource::new(CARD_URI, "xpr-language-card")
        .with_title("XPR language card")
        .with_description(
            "A compact description of XPR for an LLM's system prompt: syntax, every function \
             and method the server allows with its signature, worked examples.",
        )
        .with_mime_type("text/markdown")
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        capabilities.resources = Some(ResourcesCapability::default());
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("xpr-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::definitions().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A cancelled call stops waiting for a worker and lets go of its
        // arguments (a run already started ends under its budgets).
        let call = tokio::select! {
            result = self.call(&request.name, request.arguments.as_ref()) => result,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("cancelled", None));
            }
        };
        match call {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::invalid_params(
                format!(
                    "no tool '{}': the tools are '{}' and '{}'",
                    request.name,
                    tools::EVALUATE,
                    tools::CHECK
                ),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![card_resource()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != CARD_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource '{}': the one resource is '{CARD_URI}'",
                    request.uri
                ),
                None,
            ));
        }
        let contents =
            ResourceContents::text(self.card.to_string(), CARD_URI).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    }

    fn args(text: &str) -> JsonObject {
        serde_json::from_str(text).expect("an object")
    }

    fn text_of(result: &CallToolResult) -> String {
        result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone())
            .expect("one text content")
    }

    #[test]
    fn a_value_is_structured_content_and_text() {
        let server = Server::new(Engine::new(), Guards::default(), 2);
        let result = runtime()
            .block_on(server.call(
                "evaluate",
                Some(&args(r#"{"expression": "[1.5, 2] .map(x => x * 2)"}"#)),
            ))
            .expect("a tool");
        assert_eq!(result.is_error, Some(false));
        assert_eq!(
            result.structured_content,
            Some(serde_json::json!({"value": [3, 4]}))
        );
        assert_eq!(text_of(&result), "[3,4]");
    }

    #[test]
    fn a_failure_is_an_error_result_holding_one_diagnostic() {
        let server = Server::new(Engine::new(), Guards::default(), 1);
        let result = runtime()
            .block_on(server.call("evaluate", Some(&args(r#"{"expression": "1 +"}"#))))
            .expect("a tool");
        assert_eq!(result.is_error, Some(true));
        assert_eq!(result.structured_content, None);
        assert_eq!(result.content.len(), 1);
        let d: serde_json::Value = serde_json::from_str(&text_of(&result)).expect("JSON");
        assert_eq!(d["kind"], "parse");
        assert_eq!(d["span"]["start"], 3);
    }

    #[test]
    fn an_unknown_tool_is_none() {
        let server = Server::new(Engine::new(), Guards::default(), 1);
        assert!(runtime().block_on(server.call("run", None)).is_none());
    }

    #[test]
    fn the_info_names_the_limits_and_offers_the_card() {
        let limits = xpr::Limits {
            fuel: Some(1234),
            ..Default::default()
        };
        let server = Server::new(Engine::new().with_limits(limits), Guards::default(), 1);
        let info = server.get_info();
        assert!(info.capabilities.tools.is_some());
        assert!(info.capabilities.resources.is_some());
        assert!(
            info.instructions
                .as_ref()
                .is_some_and(|i| i.contains(CARD_URI))
        );
        assert!(info.instructions.is_some_and(|i| i.contains("fuel 1234")));
        assert_eq!(info.server_info.name, "xpr-mcp");
    }

    #[test]
    fn the_card_lists_only_what_the_server_allows() {
        let all = Server::new(Engine::new(), Guards::default(), 1);
        assert!(all.card.contains("s.upper() -> string: uppercase"));
        assert!(all.card.contains("now()"));
        let denied = Server::new(Engine::new().deny(["now", "upper"]), Guards::default(), 1);
        assert!(!denied.card.contains("now()"));
        assert!(!denied.card.contains("s.upper()"));
        assert!(denied.card.contains("s.lower()"));
        assert_eq!(card_resource().uri, CARD_URI);
    }

    #[test]
    fn the_info_names_the_expected_type_and_the_schema() {
        let guards = Guards {
            expect: Some(xpr::ValueType::Boolean),
            output_schema: Some(
                xpr_schema::OutputSchema::from_json(&serde_json::json!({"type": "boolean"}))
                    .expect("a schema"),
            ),
        };
        let info = Server::new(Engine::new(), guards, 1).get_info();
        let text = info.instructions.expect("instructions");
        assert!(
            text.contains("Every result must be of type boolean."),
            "{text}"
        );
        assert!(text.contains("output schema"), "{text}");
    }

    #[test]
    fn every_listed_tool_is_found_by_name() {
        let server = Server::new(Engine::new(), Guards::default(), 1);
        for tool in tools::definitions() {
            assert_eq!(server.get_tool(&tool.name), Some(tool));
        }
        assert_eq!(server.get_tool("nope"), None);
    }
}
