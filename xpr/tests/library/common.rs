//! What the library's tests share: running a check on a thread with a
//! small stack, as an embedder's worker thread might have.

/// Runs `f` on a thread with a 2 MiB stack and returns its result.
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no stack overflow")
}
