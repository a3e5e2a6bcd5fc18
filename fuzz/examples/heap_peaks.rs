//! Ranks expressions by how far the real heap grows while they compile and
//! run as the eval target runs them, against [`xpr_fuzz::HEAP_ALLOWANCE`]:
//! `cargo run --release --example heap_peaks -- DIR_OR_FILE... [--top N]`.
//! Each file is one expression (a corpus entry or a reproducer). Prints the
//! N largest peaks (default 20) with the memory the run was charged, so
//! that memory a built-in uses without charging it shows up before it
//! crosses the cap.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, with the bytes in use and their peak.
struct Peak {
    now: AtomicUsize,
    peak: AtomicUsize,
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are
// only bookkeeping.
unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is passed on to `System`.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) };
        self.now.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.now.fetch_sub(layout.size(), Ordering::Relaxed);
            self.grow(new_size);
        }
        p
    }
}

impl Peak {
    fn grow(&self, n: usize) {
        let now = self.now.fetch_add(n, Ordering::Relaxed) + n;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }
}

#[global_allocator]
static HEAP: Peak = Peak {
    now: AtomicUsize::new(0),
    peak: AtomicUsize::new(0),
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let top = args
        .iter()
        .position(|a| a == "--top")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(20usize);
    let mut files = Vec::new();
    for a in &args {
        let path = std::path::Path::new(a);
        if path.is_dir() {
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                files.push(entry.path());
            }
        } else if path.is_file() {
            files.push(path.to_path_buf());
        }
    }
    let _ = xpr_fuzz::context();
    let engine = xpr_fuzz::small_engine();
    let mut rows = Vec::new();
    for file in &files {
        let Ok(src) = std::fs::read_to_string(file) else {
            continue;
        };
        let base = HEAP.now.load(Ordering::Relaxed);
        HEAP.peak.store(base, Ordering::Relaxed);
        let mut vm = xpr::Vm::new();
        let charged = match engine.compile(&src) {
            Ok(program) => {
                let _ = program.run_in(&mut vm, xpr_fuzz::context());
                vm.peak_memory()
            }
            Err(_) => 0,
        };
        drop(vm);
        let grew = HEAP.peak.load(Ordering::Relaxed).saturating_sub(base);
        rows.push((grew, charged, file.display().to_string(), src));
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    println!(
        "{} expressions; allowance {} bytes",
        rows.len(),
        xpr_fuzz::HEAP_ALLOWANCE
    );
    for (grew, charged, file, src) in rows.iter().take(top) {
        let shown: String = src.chars().take(200).collect();
        println!("{grew:>10} heap {charged:>9} charged  {file}\n    {shown:?}");
    }
}
