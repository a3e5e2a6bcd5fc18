//! Helpers for the fuzz targets: a generator of well-formed expressions and
//! a runner with small budgets that checks the guarantees a run must keep.

pub mod generate;

use std::sync::OnceLock;
use std::time::Duration;

/// The run target's fuel budget: small, so that an execution takes
/// about a millisecond and the fuzzer gets a thousand or more a second.
pub const FUEL: u64 = 200_000;
/// The run target's memory budget (logical bytes), likewise small; a
/// string of a few million characters still fits.
pub const MEMORY: u64 = 4 << 20;
/// How far the real heap may grow during one compile and run. The memory
/// budget counts logical bytes, so growth slack (strings and arrays grow
/// by doubling: up to 2x), indexes, compiled regexes and the compiler's
/// own structures come on top: measured peaks of ordinary runs are about
/// twice the bytes charged, plus about 1.3 MB per large compiled regex.
/// An uncounted structure several times the size of the data does not
/// fit: with the fuel budget a built-in touches at most about 3 MB, so an
/// uncounted copy of 8 bytes a character (issue 11's date formats) is
/// caught, and so are some sixteen or more large regex literals compiled
/// outside the budgets. See [`run_capped`].
pub const HEAP_ALLOWANCE: usize = 4 * MEMORY as usize + (4 << 20);

/// CPU time a run may take regardless of its fuel: work bounded by the
/// memory budget rather than fuel (copying or serializing a few MiB: up
/// to about 30 ms in the coverage-instrumented fuzz build), first-use
/// setup, noise.
pub const CPU_FIXED: Duration = Duration::from_millis(50);
/// CPU time a run may take per fuel unit: about 45 times what generated
/// expressions take on average in the instrumented fuzz build (44 ns a
/// unit; 12 ns in an ordinary release build), so only work far out of
/// proportion to its charge fails, on a busy machine too (the thread's
/// CPU time, not the wall clock). Run with `XPR_FUZZ_TRACE=1` to see each
/// run's CPU time and fuel.
pub const CPU_PER_FUEL: Duration = Duration::from_micros(2);

/// The allocator of the targets that run expressions: the system's, with
/// a count of the bytes in use and a cap that [`run_capped`] sets.
pub type Heap = cap::Cap<std::alloc::System>;

/// A [`Heap`] without a cap, for `#[global_allocator]`.
pub const fn heap() -> Heap {
    cap::Cap::new(std::alloc::System, usize::MAX)
}

/// [`run_small`] with `heap` (the global allocator) capped at
/// [`HEAP_ALLOWANCE`] bytes above what is in use before: memory a run
/// uses without charging it aborts the process (`memory allocation of N
/// bytes failed`), which the fuzzer reports as a crash. A panic lifts the
/// cap first, so that its message and backtrace can be written.
pub fn run_capped(heap: &'static Heap, src: &str) {
    capped(heap, || run_small(src));
}

/// Runs `f` with `heap` capped at [`HEAP_ALLOWANCE`] bytes above what is
/// in use before (see [`run_capped`]).
fn capped(heap: &'static Heap, f: impl FnOnce()) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = heap.set_limit(usize::MAX);
            previous(info);
        }));
    });
    // Built once, before the heap is measured.
    let _ = context();
    let _ = small_engine();
    let base = heap.allocated();
    let _ = heap.set_limit(base.saturating_add(HEAP_ALLOWANCE));
    f();
    let _ = heap.set_limit(usize::MAX);
}

/// Budgets small enough that every run ends in milliseconds.
pub fn small_engine() -> &'static xpr::Engine {
    static ENGINE: OnceLock<xpr::Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let limits = xpr::Limits {
            fuel: Some(FUEL),
            memory: Some(MEMORY),
            timeout: None,
            max_length: Some(20_000),
            ..xpr::Limits::default()
        };
        xpr::Engine::new().with_limits(limits).with_seed(Some(1))
    })
}

/// The context every generated expression runs against.
pub fn context() -> &'static xpr::Value {
    static CONTEXT: OnceLock<xpr::Value> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        let json = serde_json::json!({
            "n": 7,
            "x": -2.5,
            "s": "héllo wörld 😀",
            "b": true,
            "z": null,
            "xs": [3, 1, 2, 10, -4],
            "ss": ["b", "a", "c"],
            "o": {"a": 1, "b": {"c": [1, 2]}, "__proto__": 5},
            "items": [{"name": "pen", "price": 3}, {"name": "desk", "price": 120}],
            "t": 1705320000000u64,
            // Long strings: search, comparison, copies and date formats
            // over data the run did not build (and was not charged for).
            "big": "x".repeat(1 << 20),
            "huge": "x".repeat(3 << 20),
            "bigu": "é😀a".repeat(1 << 16),
            "lines": "line one\nfoo bar baz\r\n".repeat(1 << 14),
            "bigs": (0..8).map(|i| format!("{}{i}", "y".repeat(1 << 16))).collect::<Vec<_>>(),
            "fmt": "yyyy-MM-dd HH:mm:ss.SSS ".repeat(1 << 12)
        });
        xpr::Value::from_json(&json).unwrap_or(xpr::Value::Null)
    })
}

/// Compiles and runs `src` with small budgets and checks what must hold
/// whatever the expression: every error has a message and a position
/// inside the source, no timeout, cancellation or host error can
/// arise (there is no timeout, canceller or host function), the fuel
/// and memory used stay within the budgets, and the run's CPU time stays
/// within [`CPU_FIXED`] + [`CPU_PER_FUEL`] per fuel unit used (the
/// compile is not timed: regex literals are compiled there, outside the
/// fuel budget). Panics when one does not.
pub fn run_small(src: &str) {
    let engine = small_engine();
    let program = match engine.compile(src) {
        Ok(program) => program,
        Err(err) => {
            check_error(&err, src);
            return;
        }
    };
    check_run(&program, src, true);
}

/// `bytes` as a stored program: whole when it starts with `XPRC`, else a
/// body given a header with its length and checksum.
pub fn sealed(bytes: &[u8]) -> Vec<u8> {
    if bytes.starts_with(b"XPRC") {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bytes.len() + 14);
    out.extend_from_slice(b"XPRC");
    out.extend_from_slice(&xpr::STORED_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&crc32(bytes).to_le_bytes());
    out.extend_from_slice(bytes);
    out
}

/// CRC-32 (IEEE), as stored programs use it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

/// [`load_small`] under the heap cap of [`run_capped`].
pub fn load_capped(heap: &'static Heap, bytes: &[u8]) {
    capped(heap, || load_small(bytes));
}

/// Loads `bytes` ([`sealed`]) with the small engine and, when accepted,
/// runs the program with the checks of [`run_small`] (error positions
/// excepted: a stored program's positions are data). Loading must refuse
/// or accept, never panic.
pub fn load_small(bytes: &[u8]) {
    let Ok(program) = small_engine().load(&sealed(bytes)) else {
        return;
    };
    let src = program.source().to_string();
    check_run(&program, &src, false);
}

/// Runs `program` (compiled from or stored with `src`) against the
/// context and checks what [`run_small`] says; error positions only when
/// `spans`.
fn check_run(program: &xpr::Program, src: &str, spans: bool) {
    let engine = small_engine();
    let mut vm = xpr::Vm::new();
    let start = cpu_time::ThreadTime::try_now().ok();
    let result = program.run_in(&mut vm, context());
    let cpu = start.and_then(|t| t.try_elapsed().ok());
    if vm.ran_straight_line() {
        // The straight-line tier's answer is the dispatch loop's, to the
        // fuel unit and byte.
        let mut plain = xpr::Vm::new();
        plain.set_straight_line(false);
        let again = program.run_in(&mut plain, context());
        assert_eq!(
            format!("{result:?}"),
            format!("{again:?}"),
            "the straight-line tier differs from the dispatch loop on {src:?}"
        );
        assert_eq!(
            (vm.fuel_used(), vm.peak_memory()),
            (plain.fuel_used(), plain.peak_memory()),
            "the straight-line tier charges differently on {src:?}"
        );
    }
    if let Err(err) = result {
        if spans {
            check_error(&err, src);
        }
        assert!(
            !matches!(
                err.kind(),
                xpr::ErrorKind::Timeout | xpr::ErrorKind::Cancelled | xpr::ErrorKind::Host
            ),
            "impossible error kind {err:?} from {src:?}"
        );
    }
    let limits = engine.limits();
    assert!(
        vm.peak_memory() <= limits.memory.unwrap_or(u64::MAX),
        "memory budget exceeded ({} bytes) by {src:?}",
        vm.peak_memory()
    );
    assert!(
        vm.fuel_used() <= limits.fuel.unwrap_or(u64::MAX),
        "fuel budget exceeded ({} units) by {src:?}",
        vm.fuel_used()
    );
    // The static cost bound holds: the run used at most the bound at the
    // context's sizes (`memory` being this engine's budget).
    let bound = program.cost_bound();
    let mut sizes = bound.sizes_of(context());
    sizes.set("memory", MEMORY);
    if let Some(at) = bound.evaluate(&sizes) {
        assert!(
            vm.fuel_used() <= at,
            "fuel used ({}) above the static bound {at} = {bound} by {src:?}",
            vm.fuel_used()
        );
    }
    if let Some(cpu) = cpu {
        let fuel = u32::try_from(vm.fuel_used()).unwrap_or(u32::MAX);
        if trace() {
            eprintln!("xpr-fuzz: {} us {fuel} fuel {src:?}", cpu.as_micros());
        }
        let allowed = CPU_FIXED.saturating_add(CPU_PER_FUEL.saturating_mul(fuel));
        assert!(
            cpu <= allowed,
            "work out of proportion to fuel: {cpu:?} of CPU for {fuel} fuel units \
             (allowed {allowed:?}) by {src:?}"
        );
    }
}

/// Whether `XPR_FUZZ_TRACE` is set: then every run prints its CPU time
/// and fuel to stderr, for calibrating [`CPU_PER_FUEL`].
fn trace() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("XPR_FUZZ_TRACE").is_some())
}

/// An error has a message and a position inside the source (the end may
/// be one past the last character).
fn check_error(err: &xpr::Error, src: &str) {
    let Some(span) = err.span() else {
        panic!("error without a position: {err:?} from {src:?}");
    };
    let chars = src.chars().count();
    assert!(
        span.start <= span.end && (span.end as usize) <= chars,
        "error span {span:?} outside the source ({chars} characters): {err:?} from {src:?}"
    );
    assert!(
        !err.message().is_empty(),
        "error without a message: {err:?} from {src:?}"
    );
}
