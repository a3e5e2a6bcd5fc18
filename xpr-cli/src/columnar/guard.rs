//! The boundary where a file's bytes reach parquet's and arrow-ipc's
//! decoders: a panic in them becomes an error naming the file.
//!
//! Both libraries assert on some damaged inputs rather than returning an
//! error: parquet 59's `ColumnChunkMetaData::byte_range` on a negative
//! offset (now checked first, [`super::groups::check_chunks`]), arrow-ipc's
//! schema conversion on a malformed `ARROW:schema` entry, arrow-buffer's on
//! a buffer shorter than its type needs (all found by changing single
//! bytes of small files, `tests/cli/cli_columnar_damaged.rs`). xpr cannot
//! check every such promise before handing the bytes on, so the whole read
//! is run under
//! [`std::panic::catch_unwind`]; the panic's message is not printed (the
//! hook stays quiet on a thread while it decodes) and the run stops with
//! status 2, as for any unreadable file.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`decoding`].
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read`, which hands a file's bytes to parquet or arrow-ipc.
///
/// # Errors
/// `read` panicked: the text says the file is damaged, with the panic's
/// message.
pub(super) fn decoding<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = DECODING.replace(true);
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    DECODING.set(outer);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an unknown fault".into());
        format!("damaged file: its decoder stopped on: {message}")
    })
}

#[cfg(test)]
mod tests {
    use super::decoding;

    #[test]
    fn a_panic_inside_is_an_error_and_the_value_passes_through() {
        assert_eq!(decoding(|| 7), Ok(7));
        let e = decoding(|| -> u8 { panic!("offset {} negative", -1) }).unwrap_err();
        assert!(
            e.contains("damaged file") && e.contains("offset -1 negative"),
            "{e}"
        );
        let e = decoding(|| -> u8 { std::panic::panic_any(3u8) }).unwrap_err();
        assert!(e.contains("unknown fault"), "{e}");
        // Nested: the outer call still catches after the inner returns.
        let e = decoding(|| -> u8 {
            let _ = decoding(|| 1);
            panic!("after")
        });
        assert!(e.unwrap_err().contains("after"));
    }
}
