//! df-pn's transposition table: 4-entry buckets that grow with the work,
//! shared by the search's threads.
//!
//! **Growing.** A search used to allocate and touch its whole `--memory`
//! (1 GiB by default) before its first node: 2.5–3.5 s and 1.05 GB for a
//! position proven in 18,000 nodes. The table now starts at
//! [`INITIAL_BYTES`] and doubles whenever half its entries are in use,
//! until the next doubling would pass `--memory`; from then on it replaces
//! entries as before. Doubling is in place: the bucket vector is extended
//! (for a large table the allocator moves its pages with `mremap` rather
//! than copying them, so the old and the new table never both take
//! memory) and each old bucket `b` hands the entries whose hash now points
//! past the old size to bucket `b + old size`, the only other place they
//! can go. A search's memory therefore follows its table's use — between
//! a quarter and a half of it holds entries — and the peak is never more
//! than the cap. (Reserving the whole cap as untouched address space was
//! the other way: an entry's bucket is a hash, so a search that stores as
//! many positions as the table has pages touches most pages, and an easy
//! 100,000-node search would have taken a third of the cap.)
//!
//! **Sharing.** A thread reads or writes an entry whole, never half of
//! another's (keys are up to 64 bytes, too wide for one atomic word): each
//! bucket is read and written under a lock, one of [`STRIPES`] spin locks
//! chosen by the bucket's index (lock striping), so the buckets keep the
//! size of their entries — 128 bytes for a 64-square game, two cache lines
//! — and the table its power-of-two size within the memory given (a mutex
//! in each bucket made it 136 bytes, and a 4 GiB table 2.3 GiB). A search
//! of one thread holds the table exclusively ([`Exclusive`]) and reaches
//! the buckets through `&mut`, with no lock at all; threads searching
//! together ([`Shared`]) take the bucket's stripe lock, one atomic
//! compare-and-swap when no other thread holds it — almost always. The table is behind an
//! [`RwLock`]: the threads hold it for reading while they search and give
//! it up when one of them asks for a doubling, which takes it for writing.

use super::{Bounds, Key};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, TryLockError};

/// Entries per bucket.
pub(crate) const WAYS: usize = 4;

/// The table a search starts with (or its `--memory`, if less): 1 MiB,
/// enough for searches of a few tens of thousands of nodes without a
/// doubling, small enough that starting one costs nothing to speak of.
pub const INITIAL_BYTES: u64 = 1 << 20;

/// Locks guarding the buckets of a shared table, bucket `b` by lock
/// `b mod STRIPES`: two threads wait for each other only when they touch
/// buckets of one stripe at the same moment, one time in a thousand or so.
pub const STRIPES: usize = 1 << 10;

/// One stripe's lock: a flag on a cache line of its own (so threads taking
/// neighbouring stripes do not pass one line back and forth). A spin lock
/// rather than a [`std::sync::Mutex`]: it is held for the few nanoseconds of one
/// bucket's read or write, and releasing it is a plain store where a
/// mutex's release is a second atomic exchange (a mutex made the shared
/// table's lookups half of a thread's time).
#[repr(align(64))]
struct Stripe(AtomicBool);

/// A stripe held; released when dropped.
struct Held<'s>(&'s AtomicBool);

impl Stripe {
    #[inline]
    fn lock(&self) -> Held<'_> {
        let mut spins = 0u32;
        while self
            .0
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // Wait reading, not writing; a holder that lost its core (more
            // threads than cores) gets it back sooner if we yield.
            while self.0.load(Ordering::Relaxed) {
                spins += 1;
                if spins < 100 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        Held(&self.0)
    }
}

impl Drop for Held<'_> {
    #[inline]
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// One position's entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<K> {
    pub key: K,
    pub phi: u32,
    pub delta: u32,
    /// Nodes spent below this entry (saturating): the replacement priority.
    pub work: u32,
    pub bounds: Bounds,
    /// The question `phi` and `delta` belong to (−1: none yet).
    pub k: i8,
    pub used: bool,
}

impl<K: Key> Entry<K> {
    fn empty() -> Entry<K> {
        Entry {
            key: K::read(&vec![0; K::BYTES]),
            phi: 1,
            delta: 1,
            work: 0,
            bounds: Bounds::UNKNOWN,
            k: -1,
            used: false,
        }
    }
}

type Ways<K> = [Entry<K>; WAYS];
type Bucket<K> = UnsafeCell<Ways<K>>;

/// The entry of `key` in a bucket.
#[inline]
fn find<K: Key>(ways: &Ways<K>, key: &K) -> Option<Entry<K>> {
    ways.iter().find(|e| e.used && e.key == *key).copied()
}

/// The entry of `key` in a bucket, making room for it if absent: a new
/// entry replaces the one whose subtree took the least work
/// (SmallTreeReplacement, Breuker et al.), so big proved subtrees survive.
/// Also says whether a free way was taken (the table holds one more entry).
#[inline]
fn slot<'b, K: Key>(ways: &'b mut Ways<K>, key: &K, empty: &Entry<K>) -> (&'b mut Entry<K>, bool) {
    if let Some(i) = ways.iter().position(|e| e.used && e.key == *key) {
        return (&mut ways[i], false);
    }
    let i = ways
        .iter()
        .enumerate()
        .min_by_key(|(_, e)| if e.used { u64::from(e.work) + 1 } else { 0 })
        .map(|(i, _)| i)
        .expect("a bucket has ways");
    let fresh = !ways[i].used;
    ways[i] = Entry {
        key: *key,
        used: true,
        ..*empty
    };
    (&mut ways[i], fresh)
}

/// The table: a power of two of buckets, at most `max_buckets`.
pub(crate) struct Table<K: Key> {
    buckets: Vec<Bucket<K>>,
    /// The stripe locks ([`STRIPES`]).
    locks: Box<[Stripe]>,
    mask: usize,
    max_buckets: usize,
    /// Entries in use (in a shared table, up to a few hundred per thread
    /// behind: each thread adds its count now and then).
    used: AtomicU64,
    empty: Entry<K>,
}

// SAFETY: the buckets' cells are shared between threads only through
// `Table::locked`, which holds the bucket's stripe lock for the whole
// access (see there); everything else in the table is `Sync` already.
unsafe impl<K: Key> Sync for Table<K> {}

impl<K: Key> Table<K> {
    /// A table that may grow to `bytes` (the largest power of two of
    /// buckets that fits, at least 16 buckets).
    pub(crate) fn new(bytes: u64) -> Table<K> {
        let per = std::mem::size_of::<Bucket<K>>() as u64;
        let max = power_of_two_within(bytes / per);
        let start = power_of_two_within(INITIAL_BYTES / per).min(max);
        let empty = Entry::empty();
        let mut buckets = Vec::with_capacity(start);
        buckets.resize_with(start, || UnsafeCell::new([empty; WAYS]));
        Table {
            buckets,
            locks: (0..STRIPES)
                .map(|_| Stripe(AtomicBool::new(false)))
                .collect(),
            mask: start - 1,
            max_buckets: max,
            used: AtomicU64::new(0),
            empty,
        }
    }

    #[inline]
    fn index(&self, key: &K) -> usize {
        key.hash64() as usize & self.mask
    }

    /// Entries it holds now.
    pub(crate) fn capacity(&self) -> u64 {
        (self.buckets.len() * WAYS) as u64
    }

    /// Entries it may grow to.
    pub(crate) fn max_capacity(&self) -> u64 {
        (self.max_buckets * WAYS) as u64
    }

    /// Bytes it takes now.
    pub(crate) fn bytes(&self) -> u64 {
        (self.buckets.len() * std::mem::size_of::<Bucket<K>>()) as u64
    }

    /// Bytes it may grow to: the largest power of two of buckets within the
    /// memory given.
    pub(crate) fn max_bytes(&self) -> u64 {
        (self.max_buckets * std::mem::size_of::<Bucket<K>>()) as u64
    }

    /// Entries in use.
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether half its entries are in use and it may still double.
    pub(crate) fn wants_growth(&self) -> bool {
        self.buckets.len() < self.max_buckets && self.used() * 2 >= self.capacity()
    }

    /// Doubles the table in place (see the module doc).
    pub(crate) fn grow(&mut self) {
        let old = self.buckets.len();
        let empty = self.empty;
        // Exact: a doubling never asks for more than the cap allows.
        self.buckets.reserve_exact(old);
        self.buckets
            .resize_with(2 * old, || UnsafeCell::new([empty; WAYS]));
        let mask = 2 * old - 1;
        let (low, high) = self.buckets.split_at_mut(old);
        for (b, (from, to)) in low.iter_mut().zip(high.iter_mut()).enumerate() {
            let (from, to) = (from.get_mut(), to.get_mut());
            let mut j = 0;
            for e in from.iter_mut() {
                if e.used && e.key.hash64() as usize & mask != b {
                    to[j] = *e;
                    j += 1;
                    *e = empty;
                }
            }
        }
        self.mask = mask;
    }

    /// Runs `f` on bucket `i` under its stripe lock.
    #[inline]
    fn locked<R>(&self, i: usize, f: impl FnOnce(&mut Ways<K>) -> R) -> R {
        let _held = self.locks[i % STRIPES].lock();
        // SAFETY: bucket `i` is reached only (a) through `&mut Table`, which
        // cannot exist while this `&self` does, or (b) here, under the lock
        // of its stripe, which this thread holds until `f` returns: no
        // other reference to the bucket exists meanwhile, and the lock's
        // acquire and release order one holder's writes before the next
        // holder's reads.
        f(unsafe { &mut *self.buckets[i].get() })
    }

    /// Every entry in use, copied out bucket by bucket (locking each: the
    /// other threads may go on searching).
    pub(crate) fn entries(&self) -> impl Iterator<Item = Entry<K>> + '_ {
        (0..self.buckets.len()).flat_map(|i| {
            let ways = self.locked(i, |w| *w);
            ways.into_iter().filter(|e| e.used)
        })
    }

    /// The entry of `key`, locking its bucket.
    pub(crate) fn get(&self, key: &K) -> Option<Entry<K>> {
        self.locked(self.index(key), |w| find(w, key))
    }

    /// Starts loading the bucket of `key` into the cache (a hint only).
    #[inline]
    fn prefetch(&self, key: &K) {
        #[cfg(target_arch = "x86_64")]
        {
            let p: *const Bucket<K> = &self.buckets[self.index(key)];
            // SAFETY: a prefetch is a hint that never faults, and `p`
            // points into `buckets` anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }
}

/// The largest power of two no greater than `n`, and at least 16.
fn power_of_two_within(n: u64) -> usize {
    let n = n.max(16);
    1usize << (63 - n.leading_zeros())
}

/// How a search thread reaches the table: alone ([`Exclusive`]) or with
/// others ([`Shared`]).
pub(crate) trait Access<K: Key> {
    /// The entry of `key`, if the table holds it.
    fn get(&mut self, key: &K) -> Option<Entry<K>>;
    /// Changes the entry of `key` with `f`, making room for it if absent.
    fn update(&mut self, key: &K, f: impl FnOnce(&mut Entry<K>));
    /// Starts loading the bucket of `key` into the cache.
    fn prefetch(&self, key: &K);
    /// The table, for reading every entry.
    fn table(&self) -> &Table<K>;
    /// Between two nodes: gives the table up while another thread doubles
    /// it, if one asked. Nothing for a thread alone, which doubles it on
    /// the spot.
    fn maintain(&mut self) {}
    /// Gives the table up for a while (the thread is about to do something
    /// long, such as writing a proof database) ...
    fn pause(&mut self) {}
    /// ... and takes it back.
    fn resume(&mut self) {}
}

/// The table of a search of one thread, held exclusively: no locks.
pub(crate) struct Exclusive<'t, K: Key>(pub &'t mut Table<K>);

impl<K: Key> Access<K> for Exclusive<'_, K> {
    #[inline]
    fn get(&mut self, key: &K) -> Option<Entry<K>> {
        let i = self.0.index(key);
        find(self.0.buckets[i].get_mut(), key)
    }

    #[inline]
    fn update(&mut self, key: &K, f: impl FnOnce(&mut Entry<K>)) {
        let t = &mut *self.0;
        let i = t.index(key);
        let (e, fresh) = slot(t.buckets[i].get_mut(), key, &t.empty);
        f(e);
        if fresh {
            *t.used.get_mut() += 1;
            if t.wants_growth() {
                t.grow();
            }
        }
    }

    #[inline]
    fn prefetch(&self, key: &K) {
        self.0.prefetch(key);
    }

    fn table(&self) -> &Table<K> {
        self.0
    }
}

/// New entries a thread counts before adding them to the table's count:
/// one shared counter written on every new entry would bounce between the
/// cores.
const COUNT_BATCH: u64 = 64;

/// The table of threads searching together: each bucket locked while it is
/// read or written, the table held for reading between doublings.
pub(crate) struct Shared<'t, K: Key> {
    lock: &'t RwLock<Table<K>>,
    guard: Option<RwLockReadGuard<'t, Table<K>>>,
    /// Set by a thread that found the table half full: every thread gives
    /// the table up at its next node, and one doubles it.
    grow: &'t AtomicBool,
    /// New entries not yet added to the table's count.
    pending: u64,
}

impl<'t, K: Key> Shared<'t, K> {
    pub(crate) fn new(lock: &'t RwLock<Table<K>>, grow: &'t AtomicBool) -> Shared<'t, K> {
        Shared {
            lock,
            guard: Some(lock.read().unwrap_or_else(PoisonError::into_inner)),
            grow,
            pending: 0,
        }
    }

    #[inline]
    fn t(&self) -> &Table<K> {
        self.guard
            .as_ref()
            .expect("the table is held between nodes")
    }

    /// Adds the new entries counted to the table's count, and asks for a
    /// doubling if it is due.
    pub(crate) fn flush(&mut self) {
        if self.pending == 0 {
            return;
        }
        let t = self.t();
        t.used.fetch_add(self.pending, Ordering::Relaxed);
        if t.wants_growth() {
            self.grow.store(true, Ordering::Relaxed);
        }
        self.pending = 0;
    }
}

impl<K: Key> Access<K> for Shared<'_, K> {
    #[inline]
    fn get(&mut self, key: &K) -> Option<Entry<K>> {
        self.t().get(key)
    }

    #[inline]
    fn update(&mut self, key: &K, f: impl FnOnce(&mut Entry<K>)) {
        let t = self.t();
        let fresh = t.locked(t.index(key), |ways| {
            let (e, fresh) = slot(ways, key, &t.empty);
            f(e);
            fresh
        });
        if fresh {
            self.pending += 1;
            if self.pending >= COUNT_BATCH {
                self.flush();
            }
        }
    }

    #[inline]
    fn prefetch(&self, key: &K) {
        self.t().prefetch(key);
    }

    fn table(&self) -> &Table<K> {
        self.t()
    }

    #[inline]
    fn maintain(&mut self) {
        if !self.grow.load(Ordering::Relaxed) {
            return;
        }
        self.flush();
        self.guard = None;
        // Every thread that saw the request comes here; the first one in
        // doubles the table, the others find it done. Never a blocking
        // `write()`: a thread that doubled the table and read-locked it
        // again at once can beat a waiting writer to the lock (the lock's
        // wake-up lets a reader in first), and then, the request cleared,
        // it never gives the lock up while the writer sleeps — a thread
        // stalled for the rest of the search. So a waiting thread polls,
        // and stops waiting once the request is gone.
        loop {
            let write = match self.lock.try_write() {
                Ok(t) => Some(t),
                Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            };
            if let Some(mut t) = write {
                if t.wants_growth() {
                    t.grow();
                }
                self.grow.store(t.wants_growth(), Ordering::Relaxed);
                break;
            }
            if !self.grow.load(Ordering::Relaxed) {
                break;
            }
            std::thread::yield_now();
        }
        self.guard = Some(self.lock.read().unwrap_or_else(PoisonError::into_inner));
    }

    fn pause(&mut self) {
        self.flush();
        self.guard = None;
    }

    fn resume(&mut self) {
        self.guard = Some(self.lock.read().unwrap_or_else(PoisonError::into_inner));
    }
}

impl<K: Key> Drop for Shared<'_, K> {
    fn drop(&mut self) {
        if self.guard.is_some() {
            self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(t: &mut Table<u64>, keys: std::ops::Range<u64>) {
        for key in keys {
            Exclusive(&mut *t).update(&key, |e| {
                e.phi = key as u32;
                e.delta = !key as u32;
            });
        }
    }

    #[test]
    fn doubling_keeps_every_entry() {
        let mut t: Table<u64> = Table::new(64 << 20);
        let mut next = 0;
        for _ in 0..3 {
            // A quarter full: no doubling yet.
            let n = t.capacity() / 4;
            fill(&mut t, next..next + n);
            next += n;
            let before: Vec<Entry<u64>> = t.entries().collect();
            assert_eq!(before.len() as u64, t.used());
            let cap = t.capacity();
            t.grow();
            assert_eq!(t.capacity(), 2 * cap);
            assert_eq!(t.entries().count(), before.len());
            for e in before {
                let f = t.get(&e.key).expect("every entry kept");
                assert_eq!((f.phi, f.delta), (e.phi, e.delta));
            }
        }
    }

    #[test]
    fn it_grows_with_its_use_up_to_the_cap() {
        let mut t: Table<u64> = Table::new(3 << 20);
        let start = t.capacity();
        assert!(t.bytes() <= INITIAL_BYTES);
        fill(&mut t, 0..start / 4);
        assert_eq!(t.capacity(), start, "a quarter full: not yet");
        fill(&mut t, 0..start);
        assert!(t.capacity() >= 2 * start, "doubled once half full");
        let cap = t.max_capacity();
        fill(&mut t, 0..8 * cap);
        assert_eq!(t.capacity(), cap);
        assert!(t.bytes() <= 3 << 20);
        // Full: new entries replace old ones, the count stays at capacity.
        assert_eq!(t.used(), cap);
        assert_eq!(t.entries().count() as u64, cap);
    }

    /// A thread waiting to double the table stops waiting once another
    /// has done it, even while that other holds the table again: the
    /// waiter once blocked on the write lock for as long as the other
    /// searched on (a two-thread df-pn whose main thread never reported).
    #[test]
    fn a_thread_waiting_to_grow_stops_when_another_has_grown() {
        let lock = RwLock::new(Table::<u64>::new(64 << 20));
        let grow = AtomicBool::new(true);
        // The other thread, the table doubled, holds it for reading again.
        let other = Shared::new(&lock, &grow);
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            let (lock, grow) = (&lock, &grow);
            s.spawn(move || {
                let mut waiter = Shared::new(lock, grow);
                waiter.maintain();
                done.send(()).unwrap();
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            // The doubling done elsewhere: the request is cleared.
            grow.store(false, Ordering::Relaxed);
            let answered = finished.recv_timeout(std::time::Duration::from_secs(10));
            // Let the waiter go in any case, so that a failure fails rather than hangs.
            drop(other);
            assert!(
                answered.is_ok(),
                "the waiter still waits for the write lock"
            );
        });
    }

    #[test]
    fn threads_share_and_grow_one_table() {
        let lock = RwLock::new(Table::<u64>::new(256 << 20));
        let start = lock.read().unwrap().capacity();
        let grow = AtomicBool::new(false);
        let per = 50_000u64;
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (lock, grow) = (&lock, &grow);
                s.spawn(move || {
                    let mut a = Shared::new(lock, grow);
                    for i in 0..per {
                        a.maintain();
                        let key = t * per + i;
                        a.update(&key, |e| {
                            e.phi = key as u32;
                            e.delta = !key as u32;
                        });
                    }
                });
            }
        });
        let t = lock.into_inner().unwrap();
        assert!(
            t.capacity() >= 4 * start,
            "grew: {start} -> {}",
            t.capacity()
        );
        // Each way counted once, and each entry whole (never half of
        // another thread's write).
        let entries: Vec<_> = t.entries().collect();
        assert_eq!(entries.len() as u64, t.used());
        for e in &entries {
            assert_eq!((e.phi, e.delta), (e.key as u32, !e.key as u32));
        }
        // A bucket overflows now and then before a doubling (at half full,
        // a bucket in twenty has more than its four ways' worth): nearly
        // all kept.
        assert!(
            entries.len() as u64 >= 4 * per * 9 / 10,
            "{}",
            entries.len()
        );
    }
}
