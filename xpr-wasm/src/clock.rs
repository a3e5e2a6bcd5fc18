//! The host's clocks. `wasm32-unknown-unknown` has no clock of its own
//! (`std::time::Instant::now` panics there), so the engine gets its time
//! from JavaScript: `performance.now()` for the time limits (a monotonic
//! wall clock; there is no CPU clock, so the VM counts wall time against
//! the CPU timeout) and `Date.now()` for `now()`. Elsewhere (the crate's
//! native tests) the engine keeps the system's clocks.

#[cfg(target_arch = "wasm32")]
mod host {
    use std::sync::Arc;
    use std::time::Duration;

    use wasm_bindgen::prelude::*;
    use xpr::{Clock, Stopwatch};

    #[wasm_bindgen]
    extern "C" {
        /// `performance.now()`: milliseconds since the page or process
        /// started, monotonic.
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        fn performance_now() -> f64;

        /// `Date.now()`: milliseconds since the Unix epoch.
        #[wasm_bindgen(js_namespace = Date, js_name = now)]
        fn date_now() -> f64;
    }

    /// The VM's time-limit clock read from `performance.now()`.
    #[derive(Debug)]
    struct HostStopwatch;

    impl Stopwatch for HostStopwatch {
        fn wall(&self) -> Option<Duration> {
            let ms = performance_now();
            ms.is_finite()
                .then(|| Duration::from_secs_f64(ms.max(0.0) / 1000.0))
        }

        fn thread_cpu(&self) -> Option<Duration> {
            None
        }
    }

    /// The engine with the host's clocks.
    pub(crate) fn with_host_clocks(engine: xpr::Engine) -> xpr::Engine {
        engine
            .with_stopwatch(Arc::new(HostStopwatch))
            .with_clock(Clock::Custom(Arc::new(date_now)))
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use host::with_host_clocks;

/// The engine as it is: the system's clocks.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn with_host_clocks(engine: xpr::Engine) -> xpr::Engine {
    engine
}
