//! A test's scratch file.

use std::sync::atomic::{AtomicU64, Ordering};

/// A path under the system's temporary directory, unique to the process
/// and the call, its file removed on drop.
pub(super) struct TempPath(pub(super) std::path::PathBuf);

impl TempPath {
    pub(super) fn new() -> TempPath {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let name = format!("xpr-columnar-{}-{n}", std::process::id());
        TempPath(std::env::temp_dir().join(name))
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
