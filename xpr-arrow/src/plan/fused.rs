//! One pass for a chain of comparisons: `&&` and `||` over comparisons of
//! null-free double or 64-bit integer columns with numbers (`delay > 60 &&
//! distance > 1000`), or of dictionary columns of numbers (each entry
//! compared once, then each row looked up by its key), evaluated block by
//! block while each block is in cache, as bitmaps (a bit a row, 64 rows a
//! word), without a vector per operation; a comparison that few of a
//! block's rows reach (the right of a selective `&&`) is made at those
//! rows alone.
//! Every row reaches the same operations as row by row (a right operand
//! counts only the rows its left lets through), so the fuel is exact; it
//! is charged once the pass (linear in the batch, creating nothing but the
//! result) has counted it, before any further operation.

use arrow_array::DictionaryArray;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use xpr::bytecode::Cmp;

use super::compile::{Expr, Node};
use super::kernels::{cmp_holds, column_vs_constant, numbers};

/// A null-free column a comparison reads.
enum Col<'p> {
    F64(&'p [f64]),
    /// Read as doubles (beyond 2^53 rounded, as row by row).
    I64(&'p [i64]),
    /// A dictionary column, the comparison already made for each of its
    /// entries: the keys, and a byte (0 or 1) an entry.
    Keys(&'p [i32], Table),
}

/// A byte an entry, in a table whose size is a power of two: a key masked
/// to it is within it without a check (and a valid key is unchanged).
enum Table {
    Small(Box<[u8; 256]>),
    Medium(Box<[u8; 4096]>),
    Large(Box<[u8; 65536]>),
}

impl Table {
    /// A table of at least `entries` bytes (at most 65,536), all 0.
    fn new(entries: usize) -> Option<Table> {
        fn zeros<const N: usize>() -> Box<[u8; N]> {
            vec![0u8; N]
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!())
        }
        Some(match entries {
            0..=256 => Table::Small(zeros()),
            257..=4096 => Table::Medium(zeros()),
            4097..=65536 => Table::Large(zeros()),
            _ => return None,
        })
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Table::Small(t) => &mut t[..],
            Table::Medium(t) => &mut t[..],
            Table::Large(t) => &mut t[..],
        }
    }

    /// Key `k`'s byte.
    #[inline]
    fn get(&self, k: i32) -> u8 {
        match self {
            Table::Small(t) => t[k as usize & 255],
            Table::Medium(t) => t[k as usize & 4095],
            Table::Large(t) => t[k as usize & 65535],
        }
    }

    /// Each key's byte, into `out`.
    fn look_up(&self, keys: &[i32], out: &mut [u8]) {
        fn by<const N: usize>(t: &[u8; N], keys: &[i32], out: &mut [u8]) {
            for (b, k) in out.iter_mut().zip(keys) {
                *b = t[*k as usize & (N - 1)];
            }
        }
        match self {
            Table::Small(t) => by(t, keys, out),
            Table::Medium(t) => by(t, keys, out),
            Table::Large(t) => by(t, keys, out),
        }
    }
}

/// A chain: comparisons joined by `&&` and `||`.
enum Tree<'p> {
    Leaf(Col<'p>, Cmp, f64),
    And(Box<Tree<'p>>, Box<Tree<'p>>),
    Or(Box<Tree<'p>>, Box<Tree<'p>>),
}

/// The chain `node` is, if it is one (with at least one `&&` or `||`),
/// over `rows` rows.
fn tree(node: &Node, rows: usize) -> Option<Tree<'_>> {
    match &node.expr {
        Expr::And(l, r) => Some(Tree::And(
            Box::new(tree(l, rows)?),
            Box::new(tree(r, rows)?),
        )),
        Expr::Or(l, r) => Some(Tree::Or(Box::new(tree(l, rows)?), Box::new(tree(r, rows)?))),
        Expr::Bin(super::compile::Bin::Cmp(cmp), l, r) => {
            let (leaf, c) = column_vs_constant(l, r)?;
            let col = if let Some(x) = leaf.as_primitive_opt::<Int64Type>() {
                Col::I64(x.values())
            } else if let Some(x) = leaf.as_primitive_opt::<Float64Type>() {
                Col::F64(x.values())
            } else {
                keys(leaf.as_dictionary_opt::<Int32Type>()?, *cmp, c, rows)?
            };
            Some(Tree::Leaf(col, *cmp, c))
        }
        _ => None,
    }
}

/// A dictionary column of numbers (null-free: every key valid) read
/// through its entries: each entry compared once. `None` (the general
/// path) when an entry is NaN or infinite, or when there are more entries
/// than rows (comparing them all would cost more than the rows do).
fn keys<'p>(d: &'p DictionaryArray<Int32Type>, cmp: Cmp, c: f64, rows: usize) -> Option<Col<'p>> {
    if d.values().len() > rows.max(BLOCK) {
        return None;
    }
    let values = d.values();
    let mut table = Table::new(values.len())?;
    let t = &mut table.bytes_mut()[..values.len()];
    let finite = if let Some(v) = values.as_primitive_opt::<Int64Type>() {
        compare_bytes(v.values(), cmp, c, t, |x| x as f64)
    } else if let Some(v) = values.as_primitive_opt::<Float64Type>() {
        compare_bytes(v.values(), cmp, c, t, |x| x)
    } else {
        compare_bytes(&numbers(values.as_ref())?, cmp, c, t, |x| x)
    };
    finite.then_some(Col::Keys(d.keys().values(), table))
}

/// Rows a block: a multiple of 64.
const BLOCK: usize = 1024;
const WORDS: usize = BLOCK / 64;

/// One bit a row of a block: row `64 * w + j` is bit `j` of word `w`.
type Bits = [u64; WORDS];

fn count(bits: &Bits) -> u64 {
    bits.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// `xs[i] <cmp> c` as bits (rows past `xs.len()` clear), and whether
/// every value is finite (`x - x` is 0 for a finite `x`, NaN for NaN and
/// the infinities; eight independent sums vectorise), in one pass.
fn compare(col: &Col<'_>, at: usize, n: usize, cmp: Cmp, c: f64, out: &mut Bits) -> bool {
    match col {
        Col::F64(x) => compare_as(&x[at..at + n], cmp, c, out, |v| v),
        // An integer is always finite.
        Col::I64(x) => compare_as(&x[at..at + n], cmp, c, out, |v| v as f64),
        // Every entry was checked finite.
        Col::Keys(keys, table) => {
            let mut bytes = [0u8; BLOCK];
            table.look_up(&keys[at..at + n], &mut bytes);
            to_bits(&bytes, out);
            true
        }
    }
}

/// A block whose rows reached are fewer than one in `SPARSE_KEYS` (a
/// dictionary column) or `SPARSE_VALUES` (doubles, integers) is compared
/// at those rows alone ([`compare_reached`]: about ten instructions a
/// reached row, against about five a row of the block for a dictionary
/// column and one or two for values, whose comparison vectorises).
const SPARSE_KEYS: u64 = 3;
const SPARSE_VALUES: u64 = 8;

/// As [`compare`], at the rows set in `reach` alone (of the block at row
/// `at`): the other bits clear, and only the values read checked finite.
fn compare_reached(
    col: &Col<'_>,
    at: usize,
    reach: &Bits,
    cmp: Cmp,
    c: f64,
    out: &mut Bits,
) -> bool {
    // A NaN reads false: it fails the block's pass anyway (`finite`).
    let test = |v: f64| v.partial_cmp(&c).is_some_and(|o| cmp_holds(cmp, o));
    let mut finite = true;
    for ((o, &r), w) in out.iter_mut().zip(reach).zip(0..) {
        let mut bits = 0u64;
        let mut left = r;
        while left != 0 {
            let j = left.trailing_zeros();
            left &= left - 1;
            let i = at + 64 * w + j as usize;
            let hit = match col {
                Col::F64(x) => {
                    finite &= x[i].is_finite();
                    test(x[i])
                }
                Col::I64(x) => test(x[i] as f64),
                Col::Keys(keys, table) => table.get(keys[i]) == 1,
            };
            bits |= u64::from(hit) << j;
        }
        *o = bits;
    }
    finite
}

fn compare_as<T: Copy>(xs: &[T], cmp: Cmp, c: f64, out: &mut Bits, f: impl Fn(T) -> f64) -> bool {
    // A byte a row first (that vectorises), then the bytes to bits.
    let mut bytes = [0u8; BLOCK];
    let finite = compare_bytes(xs, cmp, c, &mut bytes[..xs.len()], f);
    // Bytes past `xs.len()` are still 0.
    to_bits(&bytes, out);
    finite
}

/// `f(xs[i]) <cmp> c` as a byte (0 or 1) each into `bytes` (as long as
/// `xs`), and whether every value is finite (`x - x` is 0 for a finite
/// `x`, NaN for NaN and the infinities; eight independent sums vectorise).
fn compare_bytes<T: Copy>(
    xs: &[T],
    cmp: Cmp,
    c: f64,
    bytes: &mut [u8],
    f: impl Fn(T) -> f64,
) -> bool {
    let mut acc = [0.0f64; 8];
    macro_rules! by {
        ($op:tt) => {{
            for (b, e) in bytes.chunks_exact_mut(8).zip(xs.chunks_exact(8)) {
                for j in 0..8 {
                    let v = f(e[j]);
                    b[j] = u8::from(v $op c);
                    acc[j] += v - v;
                }
            }
            let full = xs.len() / 8 * 8;
            for (b, x) in bytes[full..].iter_mut().zip(&xs[full..]) {
                let v = f(*x);
                *b = u8::from(v $op c);
                acc[0] += v - v;
            }
        }};
    }
    match cmp {
        Cmp::Lt => by!(<),
        Cmp::Le => by!(<=),
        Cmp::Gt => by!(>),
        Cmp::Ge => by!(>=),
        Cmp::Eq => by!(==),
        Cmp::Ne => by!(!=),
    }
    acc.iter().all(|a| *a == 0.0)
}

/// A block's bytes (0 or 1 a row) as bits: eight bytes to eight bits with
/// one multiplication (byte `j` lands on bit `56 + j`).
fn to_bits(bytes: &[u8; BLOCK], out: &mut Bits) {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    for (w, b) in out.iter_mut().zip(bytes.chunks_exact(64)) {
        let mut bits = 0u64;
        for (k, e) in b.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(e.try_into().expect("eight bytes"));
            bits |= (x.wrapping_mul(GATHER) >> 56) << (8 * k);
        }
        *w = bits;
    }
}

/// Evaluates `t` on the `n` rows of the block at row `at` into `out`
/// (rows `reach` does not hold get any bit); adds the fuel of the rows
/// `reach` lets through to `fuel`. `false` when a value is NaN or
/// infinite (the general path then fails its row).
fn block(t: &Tree<'_>, at: usize, n: usize, reach: &Bits, out: &mut Bits, fuel: &mut u64) -> bool {
    match t {
        Tree::Leaf(x, cmp, c) => {
            // The column read and the comparison.
            let reached = count(reach);
            *fuel += 2 * reached;
            // Few rows reached (the right of a selective `&&`): those
            // alone, rather than the whole block.
            let sparse = match x {
                Col::Keys(..) => SPARSE_KEYS,
                Col::F64(_) | Col::I64(_) => SPARSE_VALUES,
            };
            if reached * sparse < n as u64 {
                compare_reached(x, at, reach, *cmp, *c, out)
            } else {
                compare(x, at, n, *cmp, *c, out)
            }
        }
        Tree::And(l, r) | Tree::Or(l, r) => {
            let and = matches!(t, Tree::And(..));
            let mut left = [0u64; WORDS];
            if !block(l, at, n, reach, &mut left, fuel) {
                return false;
            }
            // The jump.
            *fuel += count(reach);
            let mut through = [0u64; WORDS];
            for ((t, r), l) in through.iter_mut().zip(reach).zip(&left) {
                *t = *r & if and { *l } else { !*l };
            }
            if !block(r, at, n, &through, out, fuel) {
                return false;
            }
            for (o, l) in out.iter_mut().zip(&left) {
                *o = if and { *l & *o } else { *l | *o };
            }
            true
        }
    }
}

/// The values of the chain `node` on all `rows` rows, as bits (row `i` is
/// bit `i % 64` of word `i / 64`; bits past `rows` clear), and its fuel,
/// if `node` is such a chain and every value it reads is finite.
pub(crate) fn chain(node: &Node, rows: usize) -> Option<(Vec<u64>, u64)> {
    let t = tree(node, rows)?;
    let mut words = Vec::with_capacity(rows.div_ceil(64));
    let mut fuel = 0u64;
    for at in (0..rows).step_by(BLOCK) {
        let n = BLOCK.min(rows - at);
        let mut reach = [0u64; WORDS];
        for (w, word) in reach.iter_mut().enumerate() {
            let from = 64 * w;
            *word = match n.saturating_sub(from) {
                0 => 0,
                k if k >= 64 => u64::MAX,
                k => (1u64 << k) - 1,
            };
        }
        let mut out = [0u64; WORDS];
        if !block(&t, at, n, &reach, &mut out, &mut fuel) {
            return None;
        }
        // Rows past the batch: clear.
        for (o, r) in out.iter_mut().zip(&reach) {
            *o &= *r;
        }
        words.extend_from_slice(&out[..n.div_ceil(64)]);
    }
    Some((words, fuel))
}

/// Row `i` of `bits` (as [`chain`] gives them).
#[inline]
pub(crate) fn bit(bits: &[u64], i: usize) -> bool {
    (bits[i / 64] >> (i % 64)) & 1 == 1
}
