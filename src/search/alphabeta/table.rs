//! The alpha-beta engine's transposition tables, shared by its threads.
//!
//! Every entry is a proof: bounds on a position's value that a finished
//! search established (an aborted search stores nothing), so whichever
//! thread wrote an entry, and whenever, any thread may use it.
//!
//! - [`Compact`]: keys that fit in one word (the gravity boards' raw keys).
//!   An entry is one `u64`, written and read whole by one atomic access, so
//!   no lock and no torn entry. The key is mixed by a bijection of 64-bit
//!   words ([`mix`]): the low bits of the mixed key choose the bucket, and
//!   the entry keeps the rest, so the bucket and the entry together give
//!   back the whole key (no false match is possible, as with Pons' table
//!   indexed modulo a prime), and a larger table is filled from a smaller
//!   one without the keys.
//! - [`Locked`]: any key type, each bucket behind its own lock (the generic
//!   engine's table: its node costs a move list and a key, far more than a
//!   lock).
//!
//! Both replace, when a bucket is full, the entry whose subtree took the
//! least work (Tromp's and Breuker's scheme; work kept as a logarithm).

use crate::search::{Bounds, Key};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Entries per bucket.
pub(crate) const WAYS: usize = 4;

/// Bits of a compact entry below the key's check bits: lo (2), hi (2), the
/// move hint (5), the work (6).
const DATA_BITS: u32 = 15;

/// The smallest compact table: 2^15 buckets (1 MiB), so that the check
/// bits (64 minus the bucket bits) and the data fit in a word.
pub(crate) const MIN_BUCKET_BITS: u32 = DATA_BITS;

/// "No move" in an entry's 5-bit move field.
pub(crate) const NO_MOVE: u8 = 31;

const C1: u64 = 0xbf58_476d_1ce4_e5b9;
const C2: u64 = 0x94d0_49bb_1331_11eb;

/// The inverse of an odd number modulo 2^64 (Newton's iteration).
const fn inverse(c: u64) -> u64 {
    let mut x = c;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(x)));
        i += 1;
    }
    x
}

const I1: u64 = inverse(C1);
const I2: u64 = inverse(C2);

/// splitmix64's finaliser: a bijection of 64-bit words that spreads
/// neighbouring keys.
#[inline(always)]
pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(C1);
    x ^= x >> 27;
    x = x.wrapping_mul(C2);
    x ^ (x >> 31)
}

/// The inverse of [`mix`].
pub(crate) fn unmix(mut x: u64) -> u64 {
    x ^= x >> 31 ^ x >> 62;
    x = x.wrapping_mul(I2);
    x ^= x >> 27 ^ x >> 54;
    x = x.wrapping_mul(I1);
    x ^ (x >> 30) ^ (x >> 60)
}

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Info {
    pub bounds: Bounds,
    /// The move that proved the last lower bound (an index the search
    /// gives), or [`NO_MOVE`].
    pub mv: u8,
    /// ⌈log2⌉ of the nodes its subtree took, at most 63.
    pub work: u8,
}

impl Info {
    #[inline(always)]
    fn pack(self) -> u64 {
        (self.bounds.lo + 2) as u64
            | ((self.bounds.hi + 2) as u64) << 2
            | u64::from(self.mv.min(NO_MOVE)) << 4
            | u64::from(self.work.min(63)) << 9
    }

    #[inline(always)]
    fn unpack(w: u64) -> Info {
        Info {
            bounds: Bounds {
                lo: (w & 3) as i8 - 2,
                hi: (w >> 2 & 3) as i8 - 2,
            },
            mv: (w >> 4 & 31) as u8,
            work: (w >> 9 & 63) as u8,
        }
    }

    /// Both pieces of knowledge (the newer move hint, the larger work).
    #[inline(always)]
    fn merge(self, newer: Info) -> Info {
        Info {
            bounds: self.bounds.meet(newer.bounds),
            mv: if newer.mv == NO_MOVE {
                self.mv
            } else {
                newer.mv
            },
            work: self.work.max(newer.work),
        }
    }
}

/// ⌈log2(n + 1)⌉, the work of a subtree of `n` nodes.
#[inline(always)]
pub(crate) fn work_of(n: u64) -> u8 {
    (64 - n.leading_zeros()) as u8
}

/// A table of one-word entries for keys of one word.
pub(crate) struct Compact {
    slots: Words,
    bucket_bits: u32,
}

impl Compact {
    /// The largest table of at most `bytes` (at least the smallest).
    pub(crate) fn new(bytes: u64) -> Compact {
        let buckets = (bytes / (8 * WAYS as u64)).max(1 << MIN_BUCKET_BITS);
        let bucket_bits = 63 - buckets.leading_zeros();
        Compact::with_bits(bucket_bits)
    }

    fn with_bits(bucket_bits: u32) -> Compact {
        let n = (1usize << bucket_bits) * WAYS;
        Compact {
            slots: Words::zeroed(n),
            bucket_bits,
        }
    }

    /// Entries the table holds.
    pub(crate) fn capacity(&self) -> u64 {
        self.slots.len() as u64
    }

    /// Bytes of the table.
    pub(crate) fn bytes(&self) -> u64 {
        self.slots.len() as u64 * 8
    }

    #[inline(always)]
    fn split(&self, key: u64) -> (usize, u64) {
        let h = mix(key);
        let b = (h & ((1u64 << self.bucket_bits) - 1)) as usize * WAYS;
        (b, h >> self.bucket_bits)
    }

    /// What the table holds for `key`.
    #[inline(always)]
    pub(crate) fn get(&self, key: u64) -> Option<Info> {
        let (b, check) = self.split(key);
        for slot in &self.slots[b..b + WAYS] {
            let w = slot.load(Ordering::Relaxed);
            if w != 0 && w >> DATA_BITS == check {
                return Some(Info::unpack(w));
            }
        }
        None
    }

    /// Asks the processor for `key`'s bucket ahead of a [`Compact::get`].
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let (b, _) = self.split(key);
            let p: *const AtomicU64 = &self.slots[b];
            // SAFETY: a prefetch is a hint that never faults, and `p`
            // points into the table anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Records `info` for `key`, met with what the entry already holds;
    /// returns whether an empty slot was taken.
    #[inline]
    pub(crate) fn put(&self, key: u64, info: Info) -> bool {
        let (b, check) = self.split(key);
        self.put_split(b, check, info)
    }

    #[inline]
    fn put_split(&self, b: usize, check: u64, info: Info) -> bool {
        let ways = &self.slots[b..b + WAYS];
        let mut victim = 0;
        let mut least = u64::MAX;
        for (i, slot) in ways.iter().enumerate() {
            let w = slot.load(Ordering::Relaxed);
            if w == 0 {
                if least != 0 {
                    victim = i;
                    least = 0;
                }
                continue;
            }
            if w >> DATA_BITS == check {
                let merged = Info::unpack(w).merge(info);
                slot.store(check << DATA_BITS | merged.pack(), Ordering::Relaxed);
                return false;
            }
            let work = w >> 9 & 63;
            if work + 1 < least {
                least = work + 1;
                victim = i;
            }
        }
        ways[victim].store(check << DATA_BITS | info.pack(), Ordering::Relaxed);
        least == 0
    }

    /// Doubles the table in place, its entries kept; returns how many it
    /// holds.
    ///
    /// The map grows (`mremap`: the old pages stay, the new half is fresh
    /// zero pages) and the entries of bucket `b` stay in `b` or move to `b`
    /// plus the old number of buckets, which only `b` feeds: so runs of
    /// buckets are rehashed on every core at once with no copy of the
    /// table, and the peak is the new table alone. (Building a second
    /// table and copying into it took 1.5 times the final table's memory,
    /// and one thread copying was 5% of a one-thread search's time on
    /// `connect:7x6 653`, the search's threads waiting.)
    pub(crate) fn double(&mut self) -> u64 {
        use rayon::prelude::*;
        let old = self.bucket_bits;
        let buckets = 1usize << old;
        self.slots.grow(2 * buckets * WAYS);
        self.bucket_bits = old + 1;
        let (low, high) = self.slots.split_at(buckets * WAYS);
        const RUN: usize = 1 << 12;
        low.par_chunks(RUN * WAYS)
            .zip(high.par_chunks(RUN * WAYS))
            .enumerate()
            .map(|(run, (low, high))| {
                let mut used = 0;
                for (i, (a, b)) in low.chunks(WAYS).zip(high.chunks(WAYS)).enumerate() {
                    let bucket = (run * RUN + i) as u64;
                    let mut held = [0u64; WAYS];
                    for (h, slot) in held.iter_mut().zip(a) {
                        *h = slot.swap(0, Ordering::Relaxed);
                    }
                    // Refilled in the order they were: the same entries,
                    // split by the key's next bit.
                    let (mut na, mut nb) = (0, 0);
                    for w in held.into_iter().filter(|&w| w != 0) {
                        let h = (w >> DATA_BITS) << old | bucket;
                        let entry = (h >> (old + 1)) << DATA_BITS | (w & ((1 << DATA_BITS) - 1));
                        if h >> old & 1 == 0 {
                            a[na].store(entry, Ordering::Relaxed);
                            na += 1;
                        } else {
                            b[nb].store(entry, Ordering::Relaxed);
                            nb += 1;
                        }
                        used += 1;
                    }
                }
                used
            })
            .sum()
    }

    /// Every entry's key and bounds.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u64, Bounds)> + '_ {
        self.slots.iter().enumerate().filter_map(move |(i, slot)| {
            let w = slot.load(Ordering::Relaxed);
            (w != 0).then(|| {
                let bucket = (i / WAYS) as u64;
                let h = (w >> DATA_BITS) << self.bucket_bits | bucket;
                (unmix(h), Info::unpack(w).bounds)
            })
        })
    }
}

/// A table of one-word entries for keys of two words: the key's low word
/// (64 bits) and its high part (at most 48 bits), for positions that do not
/// fit one word (the 4×4×4 gravity cube: 64 cells).
///
/// An entry is two words, so a bucket (one cache line: a sequence word and
/// three entries) is read and written under a **sequence lock**: a writer
/// makes the sequence odd, writes, and makes it even again; a reader that
/// saw it change (or odd) takes the read as a miss. So no reader ever
/// takes half of one entry with half of another, whatever the timing, and
/// a key is kept whole (no hash stands for it): no false match. A writer
/// that finds the bucket busy drops its entry, which costs only a
/// re-search (every entry is a proof, and a missing one is no answer).
pub(crate) struct Wide {
    slots: Words,
    bucket_bits: u32,
}

/// Words of a [`Wide`] bucket: the sequence, three entries, one spare.
const WIDE_WORDS: usize = 8;
/// Entries of a [`Wide`] bucket.
const WIDE_WAYS: usize = 3;

impl Wide {
    /// The largest table of at most `bytes` (at least 1 MiB).
    pub(crate) fn new(bytes: u64) -> Wide {
        let buckets = (bytes / (8 * WIDE_WORDS as u64)).max(1 << 14);
        Wide::with_bits(63 - buckets.leading_zeros())
    }

    fn with_bits(bucket_bits: u32) -> Wide {
        Wide {
            slots: Words::zeroed((1usize << bucket_bits) * WIDE_WORDS),
            bucket_bits,
        }
    }

    /// Entries the table holds.
    pub(crate) fn capacity(&self) -> u64 {
        (1u64 << self.bucket_bits) * WIDE_WAYS as u64
    }

    /// Bytes of the table.
    pub(crate) fn bytes(&self) -> u64 {
        self.slots.len() as u64 * 8
    }

    #[inline(always)]
    fn hash(key: u128) -> u64 {
        mix(key as u64 ^ mix((key >> 64) as u64))
    }

    #[inline(always)]
    fn bucket(&self, key: u128) -> &[AtomicU64] {
        let h = Self::hash(key);
        let b = (h & ((1u64 << self.bucket_bits) - 1)) as usize * WIDE_WORDS;
        &self.slots[b..b + WIDE_WORDS]
    }

    /// What the table holds for `key` (its high part below 2^48).
    #[inline(always)]
    pub(crate) fn get(&self, key: u128) -> Option<Info> {
        let s = self.bucket(key);
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        let seq = s[0].load(Ordering::Acquire);
        if seq & 1 != 0 {
            return None;
        }
        let mut found = None;
        for e in s[1..1 + 2 * WIDE_WAYS].chunks_exact(2) {
            let b = e[1].load(Ordering::Relaxed);
            if b != 0 && b >> 16 == hi && e[0].load(Ordering::Relaxed) == lo {
                found = Some(Info::unpack(b));
                break;
            }
        }
        // The words read before the sequence is read again (Boehm's
        // sequence-lock reader).
        std::sync::atomic::fence(Ordering::Acquire);
        if s[0].load(Ordering::Relaxed) != seq {
            return None;
        }
        found
    }

    /// Asks the processor for `key`'s bucket ahead of a [`Wide::get`].
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u128) {
        #[cfg(target_arch = "x86_64")]
        {
            let p: *const AtomicU64 = &self.bucket(key)[0];
            // SAFETY: a prefetch is a hint that never faults, and `p`
            // points into the table anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Records `info` for `key`, met with what the entry already holds;
    /// returns whether an empty slot was taken.
    #[inline]
    pub(crate) fn put(&self, key: u128, info: Info) -> bool {
        let s = self.bucket(key);
        let seq = s[0].load(Ordering::Relaxed);
        if seq & 1 != 0
            || s[0]
                .compare_exchange(seq, seq + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        std::sync::atomic::fence(Ordering::Release);
        let taken = Self::put_locked(s, key, info);
        s[0].store(seq + 2, Ordering::Release);
        taken
    }

    /// [`Wide::put`] in a bucket this thread holds.
    #[inline]
    fn put_locked(s: &[AtomicU64], key: u128, info: Info) -> bool {
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        debug_assert!(hi >> 48 == 0);
        let mut victim = 0;
        let mut least = u64::MAX;
        for (i, e) in s[1..1 + 2 * WIDE_WAYS].chunks_exact(2).enumerate() {
            let b = e[1].load(Ordering::Relaxed);
            if b == 0 {
                if least != 0 {
                    victim = i;
                    least = 0;
                }
                continue;
            }
            if b >> 16 == hi && e[0].load(Ordering::Relaxed) == lo {
                let merged = Info::unpack(b).merge(info);
                e[1].store(hi << 16 | 1 << 15 | merged.pack(), Ordering::Relaxed);
                return false;
            }
            let work = b >> 9 & 63;
            if work + 1 < least {
                least = work + 1;
                victim = i;
            }
        }
        s[1 + 2 * victim].store(lo, Ordering::Relaxed);
        s[2 + 2 * victim].store(hi << 16 | 1 << 15 | info.pack(), Ordering::Relaxed);
        least == 0
    }

    /// Doubles the table in place, its entries kept (between searches: no
    /// thread reads it); returns how many it holds. As [`Compact::double`]:
    /// the map grows, and bucket `b`'s entries stay or move to `b` plus
    /// the old number of buckets (the key's next hash bit), runs of
    /// buckets on every core at once. (A new table filled from the old one
    /// was a third of a one-thread search's time on a 28-stone cube
    /// position: every doubling's pages zeroed again, and copied.)
    pub(crate) fn double(&mut self) -> u64 {
        use rayon::prelude::*;
        let old = self.bucket_bits;
        let buckets = 1usize << old;
        self.slots.grow(2 * buckets * WIDE_WORDS);
        self.bucket_bits = old + 1;
        let (low, high) = self.slots.split_at(buckets * WIDE_WORDS);
        const RUN: usize = 1 << 12;
        low.par_chunks(RUN * WIDE_WORDS)
            .zip(high.par_chunks(RUN * WIDE_WORDS))
            .map(|(low, high)| {
                let mut used = 0;
                for (a, b) in low
                    .chunks_exact(WIDE_WORDS)
                    .zip(high.chunks_exact(WIDE_WORDS))
                {
                    let mut held = [(0u64, 0u64); WIDE_WAYS];
                    for (h, e) in held.iter_mut().zip(a[1..].chunks_exact(2)) {
                        *h = (
                            e[0].swap(0, Ordering::Relaxed),
                            e[1].swap(0, Ordering::Relaxed),
                        );
                    }
                    let (mut na, mut nb) = (0, 0);
                    for (lo, w) in held.into_iter().filter(|&(_, w)| w != 0) {
                        let key = u128::from(w >> 16) << 64 | u128::from(lo);
                        let (s, n) = if Self::hash(key) >> old & 1 == 0 {
                            (a, &mut na)
                        } else {
                            (b, &mut nb)
                        };
                        s[1 + 2 * *n].store(lo, Ordering::Relaxed);
                        s[2 + 2 * *n].store(w, Ordering::Relaxed);
                        *n += 1;
                        used += 1;
                    }
                }
                used
            })
            .sum()
    }

    fn infos(&self) -> impl Iterator<Item = (u128, Info)> + '_ {
        self.slots
            .chunks_exact(WIDE_WORDS)
            .flat_map(|s| s[1..1 + 2 * WIDE_WAYS].chunks_exact(2))
            .filter_map(|e| {
                let b = e[1].load(Ordering::Relaxed);
                (b != 0).then(|| {
                    let lo = e[0].load(Ordering::Relaxed);
                    (u128::from(b >> 16) << 64 | u128::from(lo), Info::unpack(b))
                })
            })
    }

    /// Every entry's key and bounds.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u128, Bounds)> + '_ {
        self.infos().map(|(k, i)| (k, i.bounds))
    }
}

/// `n` zero words in their own anonymous map: fresh pages from the
/// kernel, so the table costs memory only where entries are written, and
/// on Linux in huge pages where the kernel gives them (`MADV_HUGEPAGE`): a
/// probe lands anywhere in the table, and with 4 KiB pages nearly every one
/// also missed the TLB.
struct Words {
    map: memmap2::MmapMut,
    n: usize,
}

impl Words {
    fn zeroed(n: usize) -> Words {
        let bytes = n.checked_mul(8).expect("table size").max(1);
        let map = match memmap2::MmapOptions::new().len(bytes).map_anon() {
            Ok(map) => map,
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(bytes, 8).expect("table size"),
            ),
        };
        #[cfg(target_os = "linux")]
        {
            // Only advice: without huge pages the table works the same.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Words { map, n }
    }

    /// Grows to `n` words, the new ones zero.
    fn grow(&mut self, n: usize) {
        #[cfg(target_os = "linux")]
        {
            let bytes = n.checked_mul(8).expect("table size");
            // SAFETY: no reference into the map outlives this `&mut self`
            // (every slice of it borrows `self`), so the map may move.
            let grown = unsafe {
                self.map
                    .remap(bytes, memmap2::RemapOptions::new().may_move(true))
            };
            if grown.is_ok() {
                let _ = self.map.advise(memmap2::Advice::HugePage);
                self.n = n;
                return;
            }
        }
        // No way to grow the map: a new one, the words copied.
        let mut bigger = Words::zeroed(n);
        bigger.map[..self.n * 8].copy_from_slice(&self.map[..self.n * 8]);
        *self = bigger;
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: the map is page-aligned, at least `8 n` bytes, zeroed by
        // the kernel (zero is a valid `AtomicU64`) and lives as long as
        // `self`; shared, it is only ever reached through this slice of
        // atomics (its bytes are read directly only in `grow`, under
        // `&mut self`).
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU64>(), self.n) }
    }
}

/// One entry of a [`Locked`] table.
#[derive(Clone, Copy)]
struct Slot<K> {
    key: K,
    info: Info,
    used: bool,
}

/// A table of any key type, a lock per bucket.
pub(crate) struct Locked<K: Key> {
    buckets: Vec<Mutex<[Slot<K>; WAYS]>>,
    mask: usize,
}

impl<K: Key> Locked<K> {
    /// Bytes one bucket takes.
    fn bucket_bytes() -> u64 {
        std::mem::size_of::<Mutex<[Slot<K>; WAYS]>>() as u64
    }

    /// The largest table of at most `bytes` (at least 16 buckets).
    pub(crate) fn new(bytes: u64) -> Locked<K> {
        let want = (bytes / Self::bucket_bytes()).max(16);
        Locked::with_buckets(1 << (63 - want.leading_zeros()))
    }

    fn with_buckets(n: usize) -> Locked<K> {
        let empty = Slot {
            key: K::read(&vec![0; K::BYTES]),
            info: Info {
                bounds: Bounds::UNKNOWN,
                mv: NO_MOVE,
                work: 0,
            },
            used: false,
        };
        Locked {
            buckets: (0..n).map(|_| Mutex::new([empty; WAYS])).collect(),
            mask: n - 1,
        }
    }

    /// Entries the table holds.
    pub(crate) fn capacity(&self) -> u64 {
        (self.buckets.len() * WAYS) as u64
    }

    /// Bytes of the table.
    pub(crate) fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * Self::bucket_bytes()
    }

    fn bucket(&self, key: &K) -> &Mutex<[Slot<K>; WAYS]> {
        &self.buckets[key.hash64() as usize & self.mask]
    }

    /// What the table holds for `key`.
    pub(crate) fn get(&self, key: &K) -> Option<Info> {
        let b = lock(self.bucket(key));
        b.iter().find(|s| s.used && s.key == *key).map(|s| s.info)
    }

    /// Records `info` for `key`, met with what the entry already holds;
    /// returns whether an empty slot was taken.
    pub(crate) fn put(&self, key: &K, info: Info) -> bool {
        let mut b = lock(self.bucket(key));
        put_in(&mut b, key, info)
    }

    /// A table twice the size holding this one's entries, and how many.
    pub(crate) fn doubled(&self) -> (Locked<K>, u64) {
        let bigger = Locked::with_buckets(self.buckets.len() * 2);
        let mut used = 0;
        for b in &self.buckets {
            for s in lock(b).iter().filter(|s| s.used) {
                if bigger.put(&s.key, s.info) {
                    used += 1;
                }
            }
        }
        (bigger, used)
    }

    /// Every entry's key and bounds.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (K, Bounds)> + '_ {
        self.buckets.iter().flat_map(|b| {
            lock(b)
                .iter()
                .filter(|s| s.used)
                .map(|s| (s.key, s.info.bounds))
                .collect::<Vec<_>>()
        })
    }
}

fn put_in<K: Key>(ways: &mut [Slot<K>; WAYS], key: &K, info: Info) -> bool {
    if let Some(s) = ways.iter_mut().find(|s| s.used && s.key == *key) {
        s.info = s.info.merge(info);
        return false;
    }
    let (i, fresh) = match ways.iter().position(|s| !s.used) {
        Some(i) => (i, true),
        None => {
            let i = (0..WAYS)
                .min_by_key(|&i| ways[i].info.work)
                .expect("a bucket has ways");
            (i, false)
        }
    };
    ways[i] = Slot {
        key: *key,
        info,
        used: true,
    };
    fresh
}

/// A lock, taken even if a thread panicked while holding it (the entries
/// are plain values, each written whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_is_a_bijection_with_its_inverse() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..10_000 {
            assert_eq!(unmix(mix(x)), x);
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
        }
        assert_eq!(unmix(mix(0)), 0);
        assert_eq!(unmix(mix(u64::MAX)), u64::MAX);
    }

    #[test]
    fn wide_entries_keep_their_keys_through_growth_and_threads() {
        let mut t = Wide::new(1 << 20);
        let info = |lo, hi, work| Info {
            bounds: Bounds { lo, hi },
            mv: 3,
            work,
        };
        // Keys differing only in their high part are different keys.
        let keys: Vec<u128> = (0..30_000u128)
            .map(|i| ((i % 7) << 64) | ((i / 7) * 0x9e37_79b9 + 17))
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, info(-1, (i % 3) as i8 - 1, (i % 60) as u8));
        }
        t.put(keys[0], info(-1, -1, 0));
        t.put(keys[0], info(-1, 1, 0));
        assert_eq!(t.get(keys[0]).unwrap().bounds, Bounds { lo: -1, hi: -1 });
        let before: Vec<(u128, Info)> = t.entries().map(|(k, _)| (k, t.get(k).unwrap())).collect();
        assert!(before.len() > 20_000);
        for round in 0..2 {
            let used = t.double();
            assert_eq!(t.capacity(), (1 << (15 + round)) * WIDE_WAYS as u64);
            assert_eq!(used as usize, before.len());
            assert_eq!(t.entries().count(), before.len());
            for &(k, info) in &before {
                assert_eq!(t.get(k), Some(info));
            }
            assert!(keys.iter().all(|&k| t.get(k + (8 << 64)).is_none()));
        }
        // Threads writing and reading one small table at once: a read
        // finds nothing or what was written for that very key.
        let t = Wide::new(1 << 20);
        std::thread::scope(|s| {
            for id in 0..4u64 {
                let t = &t;
                s.spawn(move || {
                    for i in 0..200_000u64 {
                        let k = (u128::from(i % 50_000) << 64) | u128::from(i % 50_000 * 3);
                        // The bound written is a function of the key.
                        let hi = (i % 50_000 % 3) as i8 - 1;
                        if (i + id) % 2 == 0 {
                            t.put(k, info(-1, hi, (i % 60) as u8));
                        } else if let Some(got) = t.get(k) {
                            assert_eq!(got.bounds, Bounds { lo: -1, hi });
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn compact_entries_keep_their_keys_through_growth() {
        let mut t = Compact::new(1 << 20);
        assert_eq!(t.capacity(), (1 << MIN_BUCKET_BITS) * WAYS as u64);
        let info = |lo, hi, work| Info {
            bounds: Bounds { lo, hi },
            mv: 3,
            work,
        };
        let keys: Vec<u64> = (0..50_000u64).map(|i| i * 0x9e37_79b9 + 17).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(k, info(-1, (i % 3) as i8 - 1, (i % 60) as u8));
        }
        // Merging: a second bound on one key meets the first.
        t.put(keys[0], info(-1, -1, 0));
        t.put(keys[0], info(-1, 1, 0));
        assert_eq!(t.get(keys[0]).unwrap().bounds, Bounds { lo: -1, hi: -1 });
        let before: Vec<(u64, Info)> = t.entries().map(|(k, _)| (k, t.get(k).unwrap())).collect();
        assert!(before.len() > 40_000);
        for &(k, _) in &before {
            assert!(keys.contains(&k));
        }
        // Twice in place: every entry found again, whole, and nothing else.
        for round in 1..=2 {
            let used = t.double();
            assert_eq!(t.capacity(), (1 << (MIN_BUCKET_BITS + round)) * WAYS as u64);
            assert_eq!(used as usize, before.len());
            assert_eq!(t.entries().count(), before.len());
            for &(k, info) in &before {
                assert_eq!(t.get(k), Some(info));
            }
            // A key never stored is never found.
            assert!(keys
                .iter()
                .all(|&k| t.get(k + 1).is_none() || keys.contains(&(k + 1))));
        }
        // The grown table takes new entries as any other.
        t.put(1, info(0, 0, 5));
        assert_eq!(t.get(1).unwrap().bounds, Bounds { lo: 0, hi: 0 });
    }

    #[test]
    fn locked_entries_merge_and_grow() {
        let t: Locked<[u64; 2]> = Locked::new(4096);
        let info = |lo, hi| Info {
            bounds: Bounds { lo, hi },
            mv: NO_MOVE,
            work: 1,
        };
        for i in 0..100u64 {
            t.put(&[i, i * 7], info(0, 1));
        }
        t.put(&[5, 35], info(-1, 0));
        let (big, _) = t.doubled();
        assert_eq!(
            big.get(&[5, 35]).map(|i| i.bounds),
            t.get(&[5, 35]).map(|i| i.bounds)
        );
        if let Some(i) = big.get(&[5, 35]) {
            assert_eq!(i.bounds, Bounds { lo: 0, hi: 0 });
        }
        assert!(big.capacity() == 2 * t.capacity());
    }
}
