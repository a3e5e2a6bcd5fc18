//! Stored programs: [`Program::to_bytes`] and [`Engine::load`].
//!
//! The stored form is a 14-byte header, then the body:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | magic `XPRC` |
//! | 2 | format version, little-endian ([`STORED_FORMAT_VERSION`]) |
//! | 4 | length of the body in bytes, little-endian |
//! | 4 | CRC-32 (IEEE) of the body, little-endian |
//! | rest | the body |
//!
//! The body holds the program's result and expected types, the span of the
//! whole expression, the source and its operator sites (for the hints that
//! name a null operand), then the bytecode's parts
//! ([`xpr_vm::Program::write_parts`]). Integers are LEB128, text is
//! length-prefixed UTF-8. Limits, clock and randomness are not stored: a
//! loaded program runs under the loading engine's.

use std::sync::Arc;

use xpr_vm::program::store::{LoadEnv, Reader, Writer, corrupt};
use xpr_vm::{Error, ErrorKind};

use super::{Engine, Program};
use crate::expect::ValueType;
use crate::nulls::NullSites;

/// The magic bytes a stored program starts with.
pub const STORED_MAGIC: [u8; 4] = *b"XPRC";

/// The format version this build writes and reads. It changes whenever
/// the stored form or the meaning of the bytecode changes; a program
/// stored with another version is refused (compile it again).
pub const STORED_FORMAT_VERSION: u16 = 1;

const HEADER: usize = 14;

/// The CRC-32 of `bytes` (IEEE 802.3, reflected, as zlib and PNG use),
/// bit by bit over a 16-entry table: stored programs are small and read
/// once, so a larger table buys nothing worth a dependency.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 16] = {
        let mut t = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 4 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut crc = !0u32;
    for &b in bytes {
        crc = TABLE[((crc ^ u32::from(b)) & 0xf) as usize] ^ (crc >> 4);
        crc = TABLE[((crc ^ (u32::from(b) >> 4)) & 0xf) as usize] ^ (crc >> 4);
    }
    !crc
}

fn write_type(w: &mut Writer, t: Option<ValueType>) {
    w.u8(t
        .and_then(|t| ValueType::ALL.iter().position(|&a| a == t))
        .map_or(0, |i| i as u8 + 1));
}

fn read_type(r: &mut Reader) -> Result<Option<ValueType>, Error> {
    match r.u8()? {
        0 => Ok(None),
        i => ValueType::ALL
            .get(i as usize - 1)
            .copied()
            .map(Some)
            .ok_or_else(|| corrupt(format_args!("unknown type {i}"))),
    }
}

/// Refuses a stored program whose source is longer than the engine's
/// `max_length` (kind [`ErrorKind::Length`], as compiling it would be).
fn check_length(source: &str, max: Option<usize>) -> Result<(), Error> {
    let chars = source.chars().count();
    match max {
        Some(max) if chars > max => Err(Error::new(
            ErrorKind::Length,
            format!(
                "the stored program's source has {chars} characters, over this engine's limit of {max}"
            ),
        )),
        _ => Ok(()),
    }
}

impl Program {
    /// The program in its stored form, for [`Engine::load`]: a versioned,
    /// checksummed byte string (layout in the `xpr` crate's
    /// `engine/store.rs`; README, "Stored programs"). It holds the
    /// bytecode, the source (for error hints) and the expected result type;
    /// host functions by name; not the limits, clock or randomness, which
    /// come from the loading engine.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        write_type(&mut w, self.result_type);
        write_type(&mut w, self.expected);
        w.span(self.root);
        self.nulls.write(&mut w);
        self.program.write_parts(&mut w);
        let body = w.bytes;
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(&STORED_MAGIC);
        out.extend_from_slice(&STORED_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }
}

impl Program {
    /// Whether this program's bytecode is what its source compiles to under
    /// the engine that made or loaded it: always so for a compiled
    /// program; for a loaded one, only when its body was not altered (the
    /// loader validates a body, it does not prove it is a compiler's).
    pub(crate) fn is_its_source_compiled(&self) -> bool {
        if !self.loaded {
            return true;
        }
        let Some(origin) = &self.origin else {
            return false;
        };
        let Ok(compiled) = origin.engine.compile(&origin.source) else {
            return false;
        };
        let bytes = |p: &xpr_vm::Program| {
            let mut w = Writer::default();
            p.write_parts(&mut w);
            w.bytes
        };
        bytes(&compiled.program) == bytes(&self.program)
    }
}

impl Engine {
    /// Loads a program [`Program::to_bytes`] stored, without parsing or
    /// compiling: the bytecode is read, every operand validated, host
    /// functions found by name among this engine's, regex literals compiled
    /// again within this engine's regex budget, and the functions and
    /// methods the program calls checked against this engine's
    /// capabilities (as compiling does). The program runs under this
    /// engine's limits, clock and randomness. Its stored result type is
    /// reported by [`Program::result_type`] but not trusted: with an
    /// expected type ([`Program::expecting`]), every result is checked.
    ///
    /// # Errors
    /// All of kind [`ErrorKind::Value`] unless said otherwise:
    /// - `invalid stored program: not a stored XPR program (no XPRC
    ///   header)`;
    /// - `invalid stored program: format version 2, but this build of xpr
    ///   reads version 1 (compile the expression again)`;
    /// - `invalid stored program: truncated ...` or `... trailing bytes`
    ///   when the length does not match the header's;
    /// - `invalid stored program: checksum mismatch (the file is
    ///   corrupted)`;
    /// - `invalid stored program: ...` or `invalid program: ...` for a body
    ///   whose checksum holds but whose content is malformed or fails
    ///   validation;
    /// - kind [`ErrorKind::Host`]: `the stored program calls host function
    ///   'f', which this engine does not register`;
    /// - kind [`ErrorKind::Access`]: the denial compiling would give for a
    ///   function or method this engine does not allow;
    /// - kind [`ErrorKind::Regex`]: a regex literal over this engine's
    ///   `max_regex_bytes`;
    /// - kind [`ErrorKind::Length`]: a source longer than this engine's
    ///   `max_length`; `invalid stored program: N instructions for a source
    ///   of M bytes` (more than 2 a byte, + 64) or `... its instructions use
    ///   N bytes of names for a source of M bytes` (more than 4 a byte, +
    ///   64) for code out of proportion to its source.
    ///
    /// ```
    /// use xpr::{Engine, Value};
    /// let engine = Engine::new();
    /// let bytes = engine.compile("price * qty > 100")?.to_bytes();
    /// // Later, elsewhere: no parsing, no compiling.
    /// let program = engine.load(&bytes)?;
    /// let record = serde_json::json!({"price": 30, "qty": 4});
    /// assert_eq!(program.run_json(&record)?, Value::from(true));
    /// let e = engine.load(&bytes[..bytes.len() - 1]).unwrap_err();
    /// assert!(e.message().starts_with("invalid stored program: truncated"));
    /// # Ok::<(), xpr::Error>(())
    /// ```
    pub fn load(&self, bytes: &[u8]) -> Result<Program, Error> {
        if bytes.len() < STORED_MAGIC.len() || bytes[..STORED_MAGIC.len()] != STORED_MAGIC {
            return Err(corrupt("not a stored XPR program (no XPRC header)"));
        }
        if bytes.len() < 6 {
            return Err(corrupt("truncated header"));
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != STORED_FORMAT_VERSION {
            return Err(corrupt(format_args!(
                "format version {version}, but this build of xpr reads version {STORED_FORMAT_VERSION} (compile the expression again)"
            )));
        }
        if bytes.len() < HEADER {
            return Err(corrupt("truncated header"));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let body = &bytes[HEADER..];
        let len = word(6) as usize;
        if body.len() < len {
            return Err(corrupt(format_args!(
                "truncated: the body should have {len} bytes, it has {}",
                body.len()
            )));
        }
        if body.len() > len {
            return Err(corrupt(format_args!(
                "{} trailing bytes after the body",
                body.len() - len
            )));
        }
        if crc32(body) != word(10) {
            return Err(corrupt("checksum mismatch (the file is corrupted)"));
        }
        let mut r = Reader::new(body);
        let result_type = read_type(&mut r)?;
        let expected = read_type(&mut r)?;
        let root = r.span()?;
        let nulls = NullSites::read(&mut r)?;
        check_length(nulls.source(), self.limits.max_length)?;
        let env = LoadEnv {
            host_functions: &self.host,
            capabilities: &self.capabilities,
            max_regex_bytes: self.limits.max_regex_bytes,
            source_bytes: nulls.source().len(),
        };
        let program = xpr_vm::Program::read_parts(&mut r, &env)?;
        // The stored source, so a loaded program explains as a compiled one.
        let origin = crate::explain::origin(self, nulls.source());
        let loaded = Program {
            program,
            budget: None,
            origin,
            nulls,
            result_type,
            expected: None,
            check_result: false,
            loaded: true,
            root,
            limits: Arc::new(self.limits.clone()),
            config: Arc::new(self.run_options()),
        };
        match expected {
            Some(t) => loaded.expecting(t).map_err(|_| {
                Error::new(
                    ErrorKind::Value,
                    "invalid stored program: the expected type contradicts the result type",
                )
            }),
            None => Ok(loaded),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }
}
