//! An Arrow IPC file's declared lengths checked against its size before
//! arrow-ipc reads it.
//!
//! arrow-ipc allocates, and zeroes, as many bytes as a message or a
//! footer block says it has before reading them: one damaged length in a
//! 900-byte file made it take gigabytes (found by changing single bytes,
//! `tests/cli/cli_columnar_damaged.rs`). Every length is checked here first, so no
//! buffer arrow-ipc allocates for the file is larger than the file.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// The marker before a message's length (the stream format since 0.15).
const CONTINUATION: [u8; 4] = [0xff; 4];

/// Checks every length an Arrow IPC `file` (`is_file`: the file format,
/// else the stream format) declares: each footer block, or each message
/// and its body, lies within the file.
///
/// # Errors
/// A length reaching beyond the file's end, or the file cannot be read.
pub(super) fn check_lengths(file: &File, is_file: bool) -> Result<(), String> {
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if is_file {
        check_footer(file, len)
    } else {
        check_messages(file, 0, len)
    }
}

/// A damaged length: the error's text.
fn beyond(what: &str, at: u64, len: u64) -> String {
    format!("damaged file: {what} at byte {at} reaches beyond the file's end ({len} bytes)")
}

/// `n` bytes of `file` at `at`, when the file has them.
fn bytes_at(file: &File, at: u64, n: u64, len: u64) -> Option<Vec<u8>> {
    if at.checked_add(n)? > len {
        return None;
    }
    let mut buf = vec![0; usize::try_from(n).ok()?];
    file.read_exact_at(&mut buf, at).ok()?;
    Some(buf)
}

/// The file format: the footer and each block it lists (record batches
/// and dictionaries). A footer arrow-ipc cannot parse is left to it.
fn check_footer(file: &File, len: u64) -> Result<(), String> {
    let Some(tail) = len
        .checked_sub(10)
        .and_then(|at| bytes_at(file, at, 10, len))
    else {
        return Ok(());
    };
    let footer_len = i32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
    let Ok(footer_len) = u64::try_from(footer_len) else {
        return Ok(());
    };
    let Some(start) = (len - 10).checked_sub(footer_len) else {
        return Err(beyond("the footer", 0, len));
    };
    let footer =
        bytes_at(file, start, footer_len, len).ok_or_else(|| beyond("the footer", start, len))?;
    let Ok(footer) = arrow_ipc::root_as_footer(&footer) else {
        return Ok(());
    };
    let blocks = footer
        .recordBatches()
        .into_iter()
        .chain(footer.dictionaries());
    for block in blocks.flatten() {
        let at = u64::try_from(block.offset()).ok();
        let meta = u64::try_from(block.metaDataLength()).ok();
        let body = u64::try_from(block.bodyLength()).ok();
        let end = at
            .zip(meta)
            .zip(body)
            .and_then(|((a, m), b)| a.checked_add(m)?.checked_add(b));
        if end.is_none_or(|e| e > len) {
            return Err(beyond("a block", block.offset().max(0) as u64, len));
        }
    }
    Ok(())
}

/// The stream format from byte `at`: each message's metadata and body.
/// A message arrow-ipc cannot parse is left to it (it stops there).
fn check_messages(file: &File, mut at: u64, len: u64) -> Result<(), String> {
    while let Some(mut word) = bytes_at(file, at, 4, len) {
        at += 4;
        if word == CONTINUATION {
            word = bytes_at(file, at, 4, len).ok_or_else(|| beyond("a message", at, len))?;
            at += 4;
        }
        let meta_len = i32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let Ok(meta_len) = u64::try_from(meta_len) else {
            return Ok(());
        };
        if meta_len == 0 {
            return Ok(());
        }
        let meta = bytes_at(file, at, meta_len, len).ok_or_else(|| beyond("a message", at, len))?;
        let Ok(message) = arrow_ipc::root_as_message(&meta) else {
            return Ok(());
        };
        at += meta_len;
        let body = u64::try_from(message.bodyLength()).ok();
        match body.and_then(|b| at.checked_add(b)).filter(|&e| e <= len) {
            Some(end) => at = end,
            None => return Err(beyond("a message's body", at, len)),
        }
    }
    Ok(())
}
