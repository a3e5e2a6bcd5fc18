use std::time::Duration;

use rmcp::ServiceExt as _;
use serde_json::{Value as Json, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use xpr::{Engine, Limits};

use super::*;
use crate::{Guards, Server};

#[test]
fn a_scan_finds_depth_size_and_the_top_level_id() {
    let s = scan(br#"{"jsonrpc":"2.0","id":7,"params":{"id":"inner","a":[[["]\"["]]]}}"#);
    assert_eq!(s.depth, 5);
    assert_eq!(s.id, Some(RequestId::Number(7)));
    assert!(!s.notification);
    let s = scan(br#"{"params":{"id":1},"id":"a\"b"}"#);
    assert_eq!(s.id, Some(RequestId::String("a\"b".into())));
    let s = scan(br#"{"method":"notifications/x","params":{"id":1}}"#);
    assert_eq!((s.id, s.notification), (None, true));
    assert!(!scan(br#"{"id":{"a":1}}"#).notification);
    assert!(!scan(b"[1]").notification);
    // A million tiny values take far more parsed than as text.
    let many = format!("[{}0]", "0,".repeat(1_000_000));
    assert!(scan(many.as_bytes()).bytes > 30 * many.len());
}

/// A server on an in-memory pipe, with `memory` bytes of memory per call
/// and one job: what the client writes, and each line the server answers.
struct Session {
    to_server: tokio::io::DuplexStream,
    from_server: tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
}

impl Session {
    async fn start(memory: u64) -> Session {
        let limits = Limits {
            memory: Some(memory),
            ..Limits::default()
        };
        let server = Server::new(Engine::new().with_limits(limits), Guards::default(), 1);
        let (client_in, server_out) = tokio::io::duplex(1 << 16);
        let (server_in, client_out) = tokio::io::duplex(1 << 16);
        let transport = server.transport(BufReader::new(server_in), server_out);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        let mut s = Session {
            to_server: client_out,
            from_server: BufReader::new(client_in).lines(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}});
        s.send(init.to_string().as_bytes()).await;
        assert_eq!(s.answer().await["id"], 0);
        s.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        s
    }

    async fn send(&mut self, line: &[u8]) {
        self.to_server.write_all(line).await.expect("written");
        self.to_server.write_all(b"\n").await.expect("written");
    }

    /// The next answer; a test fails rather than wait for ever.
    async fn answer(&mut self) -> Json {
        let line = tokio::time::timeout(Duration::from_secs(20), self.from_server.next_line())
            .await
            .expect("an answer within 20 s")
            .expect("readable")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

fn call(id: u32, context: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"evaluate","arguments":{{"expression":"a.length","context":{{"a":{context}}}}}}}}}"#
    )
    .into_bytes()
}

#[test]
fn a_context_larger_parsed_than_the_memory_limit_is_refused_unparsed() {
    runtime().block_on(async {
        let mut s = Session::start(1 << 20).await;
        // 300,000 values in 600 kB of text: some 20 MB once parsed.
        let huge = format!("[{}0]", "0,".repeat(300_000));
        s.send(&call(1, &huge)).await;
        let a = s.answer().await;
        assert_eq!(a["id"], 1, "{a}");
        assert_eq!(a["error"]["code"], -32600, "{a}");
        let message = a["error"]["message"].as_str().expect("a message");
        assert!(
            message.contains("memory limit (1048576 bytes)"),
            "{message}"
        );
        // A context within the limit is evaluated as before.
        s.send(&call(2, &format!("[{}0]", "0,".repeat(1000)))).await;
        let a = s.answer().await;
        assert_eq!(a["result"]["structuredContent"]["value"], 1001, "{a}");
    });
}

#[test]
fn every_line_not_taken_is_answered_with_an_error() {
    runtime().block_on(async {
        let mut s = Session::start(64 << 20).await;
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        s.send(&call(1, &deep)).await;
        let a = s.answer().await;
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(1), json!(-32600))
        );
        assert!(
            a["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("128 levels"))
        );
        let cases: [(&[u8], Json, i64); 5] = [
            (b"not json", Json::Null, -32700),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":\"\xff\"}",
                Json::Null,
                -32700,
            ),
            (br#"{"jsonrpc":"2.0","id":3}"#, json!(3), -32600),
            (
                br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                Json::Null,
                -32600,
            ),
            (
                br#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#,
                Json::Null,
                -32600,
            ),
        ];
        for (line, id, code) in cases {
            s.send(line).await;
            let a = s.answer().await;
            assert_eq!(a.get("id").cloned().unwrap_or(Json::Null), id, "{a}");
            assert_eq!(a["error"]["code"], code, "{a}");
        }
        // A line longer than the transport takes: answered, and dropped
        // as it arrives.
        let mut long = br#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":""#.to_vec();
        long.resize(MAX_LINE + 10, b'x');
        long.extend_from_slice(br#""}}"#);
        s.send(&long).await;
        let a = s.answer().await;
        assert_eq!(a["error"]["code"], -32600, "{a}");
        // A notification that is not understood gets no answer; the
        // server goes on.
        s.send(br#"{"jsonrpc":"2.0","method":"notifications/nope","params":5}"#)
            .await;
        s.send(br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#).await;
        let a = s.answer().await;
        assert_eq!(
            (a["id"].clone(), a["result"].clone()),
            (json!(6), json!({}))
        );
    });
}

#[test]
fn requests_beyond_those_in_flight_wait_to_be_read() {
    runtime().block_on(async {
        let mut s = Session::start(64 << 20).await;
        // One job, two requests in flight: a third is not read until one
        // is answered, and then all are answered in turn.
        let slow = |id: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"evaluate","arguments":{{"expression":"range(300000).map(x => x * 2).length"}}}}}}"#
            )
        };
        for id in 1..=6 {
            s.send(slow(id).as_bytes()).await;
        }
        let mut ids = Vec::new();
        for _ in 1..=6 {
            let a = s.answer().await;
            assert!(a["result"].is_object(), "{a}");
            ids.push(a["id"].as_u64().expect("an id"));
        }
        ids.sort_unstable();
        assert_eq!(ids, [1, 2, 3, 4, 5, 6]);
        // The same id twice while the first is unanswered: the second
        // is refused, the first answered.
        s.send(slow(7).as_bytes()).await;
        s.send(slow(7).as_bytes()).await;
        let first = s.answer().await;
        let second = s.answer().await;
        let codes = [&first, &second].map(|a| a["error"]["code"].clone());
        assert!(codes.contains(&json!(-32600)), "{first} {second}");
        assert!(first["result"].is_object() || second["result"].is_object());
    });
}
