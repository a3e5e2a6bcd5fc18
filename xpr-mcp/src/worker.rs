//! Tool calls run off the protocol's thread: each on a blocking worker
//! thread, with a VM of its own, at most `jobs` at a time, behind
//! `catch_unwind` as the last line of defence (the library never panics
//! on any input; if it did, the call would end in an `internal` error
//! result and the server would keep serving).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use tokio::sync::Semaphore;
use xpr::Engine;

use crate::guards::Guards;
use crate::tools::{self, Call, Outcome, internal};

/// The engine every call compiles with, the guardrails every result
/// passes, and the permits that bound how many calls run at once.
#[derive(Debug)]
pub struct Workers {
    engine: Arc<Engine>,
    guards: Arc<Guards>,
    permits: Arc<Semaphore>,
}

impl Workers {
    /// Workers compiling with `engine` (its limits and allowlist) under
    /// `guards`, `jobs` calls at a time (at least one).
    pub fn new(engine: Engine, guards: Guards, jobs: usize) -> Self {
        Workers {
            engine: Arc::new(engine),
            guards: Arc::new(guards),
            permits: Arc::new(Semaphore::new(jobs.max(1))),
        }
    }

    /// The engine (its limits and allowlist are the server's).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The server's guardrails on results.
    pub fn guards(&self) -> &Guards {
        &self.guards
    }

    /// Runs `call` on a worker thread and waits for its outcome.
    pub async fn run(&self, call: Call) -> Outcome {
        let engine = Arc::clone(&self.engine);
        let guards = Arc::clone(&self.guards);
        self.guarded(move || tools::run(&engine, &guards, &call))
            .await
    }

    /// Runs `work` on a worker thread once a permit is free; a panic in
    /// `work` becomes an `internal` error outcome. The permit is held until
    /// `work` ends, even when the caller stops waiting (a cancelled request).
    pub async fn guarded<F>(&self, work: F) -> Outcome
    where
        F: FnOnce() -> Outcome + Send + 'static,
    {
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            // The semaphore is never closed.
            return Outcome::Failed(internal());
        };
        let joined = tokio::task::spawn_blocking(move || {
            let outcome = catch_unwind(AssertUnwindSafe(work));
            drop(permit);
            outcome
        })
        .await;
        match joined {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) | Err(_) => Outcome::Failed(internal()),
        }
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

    #[test]
    fn a_panic_is_an_internal_error_and_the_workers_go_on() {
        let workers = Workers::new(Engine::new(), Guards::default(), 1);
        runtime().block_on(async {
            let out = workers
                .guarded(|| panic!("a bug, deliberately, in a test"))
                .await;
            assert_eq!(out, Outcome::Failed(internal()));
            // The permit came back: the next call runs.
            let call = tools::parse(
                tools::EVALUATE,
                Some(&json_args(r#"{"expression": "1 + 1"}"#)),
            )
            .expect("arguments")
            .expect("a tool");
            let out = workers.run(call).await;
            assert!(matches!(out, Outcome::Done { ref text, .. } if text == "2"));
        });
    }

    fn json_args(text: &str) -> tools::JsonObject {
        serde_json::from_str(text).expect("an object")
    }
}
