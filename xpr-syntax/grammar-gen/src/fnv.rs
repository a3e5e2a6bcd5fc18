//! The grammar's fingerprint, shared by the generator and xpr-syntax's
//! `generated_parser` test (which includes this file by path).

/// FNV-1a, 64 bits (not cryptographic: it only detects a forgotten
/// regeneration).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
