//! The server's own stdio transport: it reads each incoming line and
//! holds it to the server's limits *before* it is parsed, then parses it,
//! and answers every message it cannot take with a JSON-RPC error (rmcp's
//! own transport drops such lines without an answer, leaving the client
//! waiting):
//!
//! - a line longer than [`MAX_LINE`] bytes: dropped unread (its id
//!   cannot be read), answered with `Invalid Request` and no id;
//! - JSON nested deeper than [`MAX_NESTING`] levels (`serde_json`'s own
//!   limit): `Invalid Request`, with the request's id;
//! - a message whose parsed form would take more than the memory limit
//!   (`--max-memory`; [`estimate`]): `Invalid Request`, with the id, so
//!   that a context of millions of tiny values cannot make the server
//!   hold gigabytes (parsed JSON takes up to some 30 times its text);
//! - a line that is not JSON: `Parse error`, no id (JSON-RPC 2.0 §5.1);
//!   JSON that is not a message: `Invalid Request`, with the id if it
//!   has one (a notification, without an id, gets no answer);
//! - a request whose id is that of a request still being answered:
//!   `Invalid Request`.
//!
//! It also bounds the requests being answered at once (read and not yet
//! answered, waiting their turn or running): once there are
//! [`Gate::new`]'s `in_flight` of them, it reads nothing more until one
//! is answered (or cancelled by the client), so a client that sends
//! requests faster than they are answered, or never reads the answers,
//! makes the server wait, not grow.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncWrite};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The longest line read, in bytes (rmcp's default); a longer one is
/// dropped as it arrives, never buffered whole.
pub const MAX_LINE: usize = 16 << 20;

/// The deepest nesting of arrays and objects in a message, the envelope
/// included (`serde_json`'s recursion limit).
pub const MAX_NESTING: usize = 128;

/// Bytes counted per JSON value in [`estimate`]: a `serde_json::Value`
/// slot, twice over (an array's storage grows by doubling; an object's
/// entry holds a key and a value).
const PER_VALUE: usize = 2 * size_of::<serde_json::Value>();

/// What a scan of a line found, without parsing it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    /// The deepest nesting of arrays and objects.
    pub depth: usize,
    /// An upper estimate, in bytes, of the memory its parsed form takes
    /// ([`estimate`]).
    pub bytes: usize,
    /// The top-level `id`, when it is an integer or a string.
    pub id: Option<RequestId>,
    /// Whether the line is an object without a top-level `id` (a
    /// notification, never answered).
    pub notification: bool,
}

/// Scans a line of JSON text in one pass, without recursion: its nesting
/// depth, an upper estimate of the bytes its parsed form takes (the text's
/// length plus [`PER_VALUE`] per value: every value but the first follows
/// a `[`, `{`, `,` or `:`), and its top-level `id`. Text that is not JSON
/// scans to something; the parser then refuses it.
pub fn scan(line: &[u8]) -> Scan {
    let (mut depth, mut deepest, mut values) = (0usize, 0usize, 1usize);
    // Where the value of the top-level key "id" starts, once its ':' is seen.
    let (mut id_key, mut id_at, mut has_id) = (false, None, false);
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'"' => {
                let start = i;
                i = string_end(line, i + 1);
                if depth == 1 {
                    id_key = &line[start..i] == b"\"id\"";
                }
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                values += 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' => values += 1,
            b':' => {
                values += 1;
                if depth == 1 && id_key {
                    id_at = Some(i + 1);
                    has_id = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Scan {
        depth: deepest,
        bytes: line.len().saturating_add(values.saturating_mul(PER_VALUE)),
        id: id_at.and_then(|at| id_of(&line[at..])),
        notification: line.trim_ascii_start().starts_with(b"{") && !has_id,
    }
}

/// Where the string whose text starts at `i` (after its quote) ends: the
/// index after its closing quote, or the line's end.
fn string_end(line: &[u8], mut i: usize) -> usize {
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    line.len()
}

/// The request id at the start of `rest` (after an `"id":`): an integer or
/// a string, else none.
fn id_of(rest: &[u8]) -> Option<RequestId> {
    let rest = rest.trim_ascii_start();
    let end = match rest.first()? {
        b'"' => string_end(rest, 1),
        b'-' | b'0'..=b'9' => rest
            .iter()
            .position(|b| !matches!(b, b'-' | b'0'..=b'9'))
            .unwrap_or(rest.len()),
        _ => return None,
    };
    serde_json::from_slice(&rest[..end]).ok()
}

/// The requests being answered, each holding one of the permits that
/// bound how many there are.
type Pending = Arc<Mutex<HashMap<RequestId, OwnedSemaphorePermit>>>;

/// The server side of the stdio transport, holding each message to the
/// limits before parsing it (see the module's documentation).
pub struct Gate<R, W: AsyncWrite> {
    read: R,
    /// The line being read (kept across a cancelled read).
    line: Vec<u8>,
    /// Dropping the rest of a line longer than [`MAX_LINE`].
    discarding: bool,
    /// The largest estimated parsed size of a message, in bytes.
    max_bytes: usize,
    permits: Arc<Semaphore>,
    /// The permit for the next request, taken before its line is read.
    permit: Option<OwnedSemaphorePermit>,
    pending: Pending,
    /// rmcp's transport, used for writing only.
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, W>,
}

/// What became of one line.
enum Admit {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    Answer(ErrorData, Option<RequestId>),
    Nothing,
}

impl<R, W> Gate<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages from `read` and writing to `write`,
    /// refusing a message whose parsed form would take more than
    /// `max_bytes` bytes (`None`: no bound but the line's length), with at
    /// most `in_flight` requests (at least one) being answered at once.
    pub fn new(read: R, write: W, max_bytes: Option<usize>, in_flight: usize) -> Self {
        Gate {
            read,
            line: Vec::new(),
            discarding: false,
            max_bytes: max_bytes.unwrap_or(usize::MAX),
            permits: Arc::new(Semaphore::new(in_flight.max(1))),
            permit: None,
            pending: Arc::default(),
            write: AsyncRwTransport::new_server(tokio::io::empty(), write),
        }
    }

    /// Reads one line into `self.line`; `Some(false)`: the line was too
    /// long and was dropped; `None`: the input ended or failed. Safe to
    /// cancel: a partial line stays in `self.line`.
    async fn read_line(&mut self) -> Option<bool> {
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |n| n + 1);
            let mut outcome = None;
            if self.discarding {
                self.discarding = newline.is_none();
            } else if self.line.len() + take > MAX_LINE {
                self.line.clear();
                self.discarding = newline.is_none();
                outcome = Some(false);
            } else {
                self.line.extend_from_slice(&available[..take]);
                outcome = newline.map(|_| true);
            }
            self.read.consume(take);
            if outcome.is_some() {
                return outcome;
            }
        }
    }

    /// Holds a whole line to the limits, then parses it.
    fn admit(&mut self) -> Admit {
        let line = std::mem::take(&mut self.line);
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        if text.trim_ascii().is_empty() {
            return Admit::Nothing;
        }
        let scan = scan(text);
        if scan.depth > MAX_NESTING {
            let m = format!("message nested deeper than {MAX_NESTING} levels");
            return Admit::Answer(ErrorData::invalid_request(m, None), scan.id);
        }
        if scan.bytes > self.max_bytes {
            let m = format!(
                "message too large: parsed, it would take about {} bytes, more than the \
                 server's memory limit ({} bytes)",
                scan.bytes, self.max_bytes
            );
            return Admit::Answer(ErrorData::invalid_request(m, None), scan.id);
        }
        let message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
            Ok(m) => m,
            Err(e) if e.is_syntax() || e.is_eof() => {
                let m = format!("not JSON: {e}");
                return Admit::Answer(ErrorData::parse_error(m, None), None);
            }
            // A notification is never answered.
            Err(_) if scan.notification => return Admit::Nothing,
            Err(e) => {
                let m = format!("not a JSON-RPC message: {e}");
                return Admit::Answer(ErrorData::invalid_request(m, None), scan.id);
            }
        };
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        match &message {
            JsonRpcMessage::Request(r) if pending.contains_key(&r.id) => {
                let m = format!("request id {} is already in use", r.id);
                return Admit::Answer(ErrorData::invalid_request(m, None), Some(r.id.clone()));
            }
            JsonRpcMessage::Request(r) => {
                if let Some(permit) = self.permit.take() {
                    pending.insert(r.id.clone(), permit);
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    // rmcp sends no answer to a cancelled request.
                    pending.remove(id);
                }
            }
            _ => {}
        }
        Admit::Message(Box::new(message))
    }
}

impl<R, W> Transport<RoleServer> for Gate<R, W>
where
    R: AsyncBufRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(r.id.clone()),
            JsonRpcMessage::Error(e) => e.id.clone(),
            _ => None,
        };
        let pending = Arc::clone(&self.pending);
        let sent = Transport::<RoleServer>::send(&mut self.write, item);
        async move {
            let outcome = sent.await;
            // Written (or failed): the request's permit comes back.
            if let Some(id) = answered {
                pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id);
            }
            outcome
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.permit.is_none() {
                self.permit = Some(Arc::clone(&self.permits).acquire_owned().await.ok()?);
            }
            let whole = self.read_line().await?;
            let admitted = if whole {
                self.admit()
            } else {
                let m = format!("message longer than {MAX_LINE} bytes");
                Admit::Answer(ErrorData::invalid_request(m, None), None)
            };
            match admitted {
                Admit::Message(m) => return Some(*m),
                Admit::Nothing => {}
                Admit::Answer(error, id) => {
                    // Not through `send`: the id may be that of a request
                    // still being answered, whose permit stays taken.
                    let answer = JsonRpcMessage::error(error, id);
                    tokio::spawn(Transport::<RoleServer>::send(&mut self.write, answer));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Transport::<RoleServer>::close(&mut self.write).await
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
