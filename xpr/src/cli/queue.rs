//! The bounded queue of chunks between `xpr run`'s reader thread and its
//! workers.
//!
//! A mutex and two condition variables, not channels: a thread with
//! nothing to do sleeps at once instead of spinning first (the standard
//! channels spin before they block, which on a 2-core machine took CPU
//! time from the workers), and each side is woken only when the other is
//! actually waiting. The bound counts chunks from being read until they
//! are written, so memory stays flat however far the reader could get
//! ahead; the reader, once stopped by the bound, is woken when half of it
//! is free again and then reads in a burst.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::input::Chunk;

/// Chunks read and not yet written, at most `capacity` of them.
pub struct Queue {
    state: Mutex<State>,
    /// Signalled when a chunk is queued, the input ends or the workers stop.
    filled: Condvar,
    /// Signalled when half the bound is free again, or the workers stop.
    room: Condvar,
    capacity: usize,
}

struct State {
    /// Read, not yet taken by a worker.
    chunks: VecDeque<Chunk>,
    /// Read, not yet written.
    in_flight: usize,
    /// The reader has no more chunks.
    ended: bool,
    /// The workers take no more chunks (one stopped early).
    stopped: bool,
    /// Workers asleep in [`Queue::pop`].
    idle_workers: usize,
    /// The reader is asleep in [`Queue::push`].
    reader_waiting: bool,
}

impl Queue {
    /// A queue holding at most `capacity` (>= 2) chunks from read to written.
    pub fn new(capacity: usize) -> Self {
        Queue {
            state: Mutex::new(State {
                chunks: VecDeque::with_capacity(capacity),
                in_flight: 0,
                ended: false,
                stopped: false,
                idle_workers: 0,
                reader_waiting: false,
            }),
            filled: Condvar::new(),
            room: Condvar::new(),
            capacity: capacity.max(2),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means a worker panicked while holding it; the
        // state is still consistent (every update is a single step), and
        // the panic reaches the caller when the thread scope ends.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reader: queues `chunk`, first waiting while the bound is reached.
    /// `false` when the workers have stopped (the reader should too).
    pub fn push(&self, chunk: Chunk) -> bool {
        let mut s = self.lock();
        while s.in_flight >= self.capacity && !s.stopped {
            s.reader_waiting = true;
            s = self.room.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.reader_waiting = false;
        if s.stopped {
            return false;
        }
        s.in_flight += 1;
        s.chunks.push_back(chunk);
        let wake = s.idle_workers > 0;
        drop(s);
        if wake {
            self.filled.notify_one();
        }
        true
    }

    /// Reader: no more chunks will come.
    pub fn end(&self) {
        self.lock().ended = true;
        self.filled.notify_all();
    }

    /// Worker: the next chunk, waiting for one; `None` once the input has
    /// ended and every chunk was taken, or the workers stopped.
    pub fn pop(&self) -> Option<Chunk> {
        let mut s = self.lock();
        loop {
            if s.stopped {
                return None;
            }
            if let Some(c) = s.chunks.pop_front() {
                return Some(c);
            }
            if s.ended {
                return None;
            }
            s.idle_workers += 1;
            s = self.filled.wait(s).unwrap_or_else(|e| e.into_inner());
            s.idle_workers -= 1;
        }
    }

    /// Worker: one chunk was written, its place in the bound is free.
    pub fn written(&self) {
        let mut s = self.lock();
        s.in_flight = s.in_flight.saturating_sub(1);
        let wake = s.reader_waiting && s.in_flight <= self.capacity / 2;
        drop(s);
        if wake {
            self.room.notify_one();
        }
    }

    /// Worker: no more chunks are taken (a worker is leaving early); wakes
    /// everyone so that nobody waits for it.
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.filled.notify_all();
        self.room.notify_all();
    }
}

/// Calls [`Queue::stop`] when dropped, unless disarmed: a worker holds one
/// so that leaving by a panic does not leave the reader waiting for room.
pub struct StopOnDrop<'q> {
    queue: &'q Queue,
    armed: bool,
}

impl<'q> StopOnDrop<'q> {
    /// Armed: dropping it stops `queue`.
    pub fn new(queue: &'q Queue) -> Self {
        StopOnDrop { queue, armed: true }
    }

    /// The worker finished normally: dropping no longer stops the queue.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.queue.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn chunk(index: u64) -> Chunk {
        Chunk {
            index,
            source: Arc::from("t"),
            data: Vec::new(),
            records: Vec::new(),
        }
    }

    #[test]
    fn delivers_in_order_within_the_bound_and_ends() {
        let q = Queue::new(4);
        let taken = std::thread::scope(|s| {
            s.spawn(|| {
                for i in 0..100 {
                    assert!(q.push(chunk(i)));
                }
                q.end();
            });
            let mut taken = Vec::new();
            while let Some(c) = q.pop() {
                // Never more than the bound between read and written.
                assert!(q.lock().in_flight <= 4);
                taken.push(c.index);
                q.written();
            }
            taken
        });
        assert_eq!(taken, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn a_stopped_queue_releases_a_blocked_reader() {
        let q = Queue::new(2);
        std::thread::scope(|s| {
            let reader = s.spawn(|| (0..10).take_while(|&i| q.push(chunk(i))).count());
            // Take one chunk and leave without writing it, as a panicking
            // worker would: the reader must not wait forever.
            let first = q.pop().map(|c| c.index);
            assert_eq!(first, Some(0));
            drop(StopOnDrop::new(&q));
            let pushed = reader.join().unwrap_or(usize::MAX);
            assert!(pushed < 10, "the reader stopped early ({pushed} pushed)");
        });
        assert!(q.pop().is_none());
    }
}
