//! The input as `xpr run`'s workers share it: each worker reads the next
//! chunk itself, under a lock, then parses and evaluates it.
//!
//! No reader thread: on a machine with as many workers as cores a reader
//! thread has to take turns with them, and each time the scheduler set it
//! aside the workers ran dry; and the bytes a worker reads itself are in
//! its core's cache when it parses them. The lock is held only while one
//! chunk is read. Chunks are bounded from being read until they are
//! written, so memory stays flat even when one worker is slow and the
//! others run ahead.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::input::{Chunk, Reader};

/// The shared input and the bound on chunks in flight.
pub struct Shared<'p> {
    state: Mutex<State<'p>>,
    /// Signalled when a chunk is written while a worker waits for room,
    /// or when the workers stop.
    room: Condvar,
    /// Chunks read and not yet written.
    in_flight: AtomicUsize,
    /// Their input bytes.
    in_flight_bytes: AtomicUsize,
    byte_capacity: usize,
    /// A worker waits in [`Shared::next`] for room.
    waiting: AtomicBool,
    capacity: usize,
}

struct State<'p> {
    reader: Reader<'p>,
    /// The workers take no more chunks (one left early).
    stopped: bool,
}

impl<'p> Shared<'p> {
    /// `reader` shared, with at most `capacity` (at least 1) chunks read
    /// and not yet written, and no new chunk read while those hold
    /// `byte_capacity` bytes of input or more (one chunk always may be).
    pub fn new(reader: Reader<'p>, capacity: usize, byte_capacity: usize) -> Self {
        Shared {
            state: Mutex::new(State {
                reader,
                stopped: false,
            }),
            room: Condvar::new(),
            in_flight: AtomicUsize::new(0),
            in_flight_bytes: AtomicUsize::new(0),
            byte_capacity,
            waiting: AtomicBool::new(false),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<'p>> {
        // A poisoned lock means a worker panicked while reading; the panic
        // reaches the caller when the thread scope ends, and the others
        // stop (see `StopOnDrop`).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next chunk, read by the calling worker, first waiting while
    /// the bound is reached; `None` at the end of the input or once the
    /// workers have stopped.
    pub fn next(&self) -> Option<Chunk> {
        let mut s = self.lock();
        loop {
            if s.stopped {
                return None;
            }
            // `waiting` is set before `in_flight` is read again, and
            // `written` lowers `in_flight` before it reads `waiting` (both
            // sequentially consistent): one of them sees the other's write,
            // so no wake-up is lost.
            if self.has_room() {
                break;
            }
            self.waiting.store(true, Ordering::SeqCst);
            if self.has_room() {
                break;
            }
            s = self.room.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        self.waiting.store(false, Ordering::SeqCst);
        let chunk = s.reader.next_chunk()?;
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.in_flight_bytes
            .fetch_add(chunk.data.len(), Ordering::SeqCst);
        Some(chunk)
    }

    /// Whether another chunk may be read: fewer than `capacity` in flight,
    /// and under `byte_capacity` bytes (or none at all in flight).
    fn has_room(&self) -> bool {
        let n = self.in_flight.load(Ordering::SeqCst);
        n == 0
            || (n < self.capacity
                && self.in_flight_bytes.load(Ordering::SeqCst) < self.byte_capacity)
    }

    /// A chunk of `bytes` input bytes was written: its place in the bound
    /// is free. Takes the lock only when a worker waits for room (never
    /// while another reads).
    pub fn written(&self, bytes: usize) {
        self.in_flight_bytes.fetch_sub(bytes, Ordering::SeqCst);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) {
            // Taking the lock orders this after the waiter's check: it is
            // either asleep in `wait` (and woken) or has not checked yet.
            drop(self.lock());
            self.room.notify_all();
        }
    }

    /// No more chunks are handed out (a worker is leaving early); wakes
    /// the waiting ones.
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.room.notify_all();
    }
}

/// Calls [`Shared::stop`] when dropped, unless disarmed: a worker holds
/// one so that leaving by a panic does not leave the others waiting for
/// room that will never come.
pub struct StopOnDrop<'s, 'p> {
    shared: &'s Shared<'p>,
    armed: bool,
}

impl<'s, 'p> StopOnDrop<'s, 'p> {
    /// Armed: dropping it stops `shared`.
    pub fn new(shared: &'s Shared<'p>) -> Self {
        StopOnDrop {
            shared,
            armed: true,
        }
    }

    /// The worker finished normally: dropping no longer stops anything.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for StopOnDrop<'_, '_> {
    fn drop(&mut self) {
        if self.armed {
            self.shared.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::InputFormat;
    use super::super::input::{ChunkPool, Input};
    use super::*;

    fn reader(lines: usize, pool: &ChunkPool) -> Reader<'_> {
        // Enough lines for several chunks.
        let text: String = (0..lines).map(|i| format!("{{\"i\":{i}}}\n")).collect();
        let input = Input::from_bytes("t", text.into_bytes());
        Reader::new(vec![input], InputFormat::Ndjson, 100, pool)
    }

    #[test]
    fn workers_get_every_chunk_once_within_the_bound() {
        let pool = ChunkPool::default();
        let shared = Shared::new(reader(20_000, &pool), 3, usize::MAX);
        let taken = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    while let Some(c) = shared.next() {
                        assert!(shared.in_flight.load(Ordering::SeqCst) <= 3);
                        if let Ok(mut t) = taken.lock() {
                            t.push((c.index, c.records.len()));
                        }
                        shared.written(c.data.len());
                    }
                });
            }
        });
        let mut taken = taken.into_inner().unwrap_or_default();
        taken.sort_unstable();
        let indexes: Vec<u64> = taken.iter().map(|t| t.0).collect();
        assert_eq!(indexes, (0..taken.len() as u64).collect::<Vec<_>>());
        assert!(taken.len() >= 3, "{} chunks", taken.len());
        assert_eq!(taken.iter().map(|t| t.1).sum::<usize>(), 20_000);
    }

    #[test]
    fn the_byte_bound_holds_but_one_chunk_always_may_be_read() {
        let pool = ChunkPool::default();
        // Every chunk is larger than the byte bound: one at a time.
        let shared = Shared::new(reader(20_000, &pool), 8, 10);
        let mut n = 0;
        while let Some(c) = shared.next() {
            assert_eq!(shared.in_flight.load(Ordering::SeqCst), 1);
            assert!(!shared.has_room());
            shared.written(c.data.len());
            assert!(shared.has_room());
            n += 1;
        }
        assert!(n >= 3, "{n} chunks");
    }

    #[test]
    fn a_stopped_input_releases_a_waiting_worker() {
        let pool = ChunkPool::default();
        let shared = Shared::new(reader(20_000, &pool), 1, usize::MAX);
        // One chunk taken and never written, as by a worker that panics.
        let first = shared.next().map(|c| c.index);
        assert_eq!(first, Some(0));
        std::thread::scope(|s| {
            let waiter = s.spawn(|| shared.next().map(|c| c.index));
            // The waiter cannot get a chunk (the bound is reached) until
            // the leaving worker's guard stops the input.
            drop(StopOnDrop::new(&shared));
            assert_eq!(waiter.join().ok(), Some(None));
        });
    }
}
