//! A cache bounded by the bytes of what it holds, emptied whole when full,
//! and what an engine needs to count its bytes honestly: the bytes the
//! allocator takes for a request ([`chunk`]) and hash maps made once at
//! their full size that never grow ([`sized_map`]).

use super::hash::FastBuild;
use std::collections::HashMap;
use std::hash::Hash;
use std::mem::size_of;

/// Bytes glibc's malloc takes for a request of `n` bytes: the request and
/// its 8-byte header rounded up to 16, at least 32; nothing for `n == 0`
/// (an empty box allocates nothing). Counting `4 * len` for a box of `len`
/// numbers undercounts a short one by half or more.
pub(crate) fn chunk(n: usize) -> u64 {
    if n == 0 {
        0
    } else {
        ((n + 8 + 15) & !15).max(32) as u64
    }
}

/// Bytes of a hash map's table of `buckets` buckets of `(K, V)`: each
/// bucket's slot and control byte, and a group of control bytes more.
pub(crate) fn table_bytes<K, V>(buckets: usize) -> u64 {
    (buckets * (size_of::<(K, V)>() + 1) + 16) as u64
}

/// A map of `(K, V)` made at once at the size that holds the most entries
/// within `bytes`, each entry taking `other` bytes besides its bucket (at
/// least 16 buckets); with its capacity and its table's bytes. Kept to
/// what [`may_insert`] allows, it never grows: a map left to grow by
/// doubling holds both tables while it moves its entries (1.5 times the
/// new one), and keeps the large one after a clear.
pub(crate) fn sized_map<K, V>(bytes: u64, other: u64) -> (HashMap<K, V, FastBuild>, usize, u64) {
    // Entries a table of `b` buckets lets the share hold: those its
    // buckets take (7/8 of them) or those the bytes left hold, the fewer.
    let entries = |b: usize| {
        let left = bytes.saturating_sub(table_bytes::<K, V>(b));
        ((b / 8 * 7) as u64).min(left / other.max(1))
    };
    let mut buckets: usize = 16;
    while table_bytes::<K, V>(buckets * 2) <= bytes && entries(buckets * 2) > entries(buckets) {
        buckets *= 2;
    }
    let map = HashMap::with_capacity_and_hasher(buckets / 8 * 7, FastBuild::default());
    debug_assert_eq!(map.capacity(), buckets / 8 * 7);
    (map, buckets / 8 * 7, table_bytes::<K, V>(buckets))
}

/// Whether one more entry can go into `map`, made by [`sized_map`] with
/// capacity `full`, without the map allocating. The standard map
/// (hashbrown) counts the free slots an insert may still take
/// (`capacity() - len()`: a removal leaves a tombstone that a later insert
/// may reuse but that frees no slot); when none is left it rehashes in
/// place, allocating nothing, if the entries are at most half its
/// capacity, and otherwise doubles. `insert` reserves its slot before it
/// looks for the key, so ask before every insert, even of a key the map
/// holds (the entry API reserves only for a key it does not hold).
pub(crate) fn may_insert<K, V>(map: &HashMap<K, V, FastBuild>, full: usize) -> bool {
    map.len() < map.capacity() || map.len() < full / 2
}

/// After removals from `map`, made by [`sized_map`] with capacity `full`:
/// if their tombstones hold most of its free slots, moves the entries out
/// and back in, which frees them all without a new table (the map keeps
/// its table when drained). The entries are held apart meanwhile: a
/// caller counts `size_of::<(K, V)>()` per entry it may keep (at most
/// half of `full`, the more when fewer are kept).
pub(crate) fn compact<K: Hash + Eq, V>(map: &mut HashMap<K, V, FastBuild>, full: usize) {
    let free = map.capacity() - map.len();
    if free >= (full - map.len()) / 2 {
        return;
    }
    let kept: Vec<(K, V)> = map.drain().collect();
    map.extend(kept);
}

/// Values kept by key while their bytes (as the caller counts them) stay
/// within a budget: the insert that would pass it first empties the cache.
/// For values cheap to compute again (a land's children, which both
/// Sprouts engines keep): forgetting everything at once needs no record of
/// use, and a value the search still works with it holds by `Rc`, not
/// through the cache.
pub(crate) struct BoundedCache<K, V> {
    map: HashMap<K, V, FastBuild>,
    bytes: usize,
    cap: usize,
    /// Whether the map's own table counts against `cap` (the caller's
    /// bytes then leave it out): a table grown for many small values stays
    /// allocated after a clear, beside the larger values that fill it again.
    table: bool,
}

impl<K: Hash + Eq, V> BoundedCache<K, V> {
    /// An empty cache that holds at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> BoundedCache<K, V> {
        BoundedCache {
            map: HashMap::default(),
            bytes: 0,
            cap,
            table: false,
        }
    }

    /// An empty cache that holds at most `cap` bytes, its map's table
    /// counted in them (the bytes given with each value leave it out): the
    /// table as it is, or, when an insert may grow it, the table and its
    /// double, which the map holds at once while it moves its entries.
    pub(crate) fn counting_table(cap: usize) -> BoundedCache<K, V> {
        BoundedCache {
            table: true,
            ..BoundedCache::new(cap)
        }
    }

    /// Bytes the map's table takes (with the double it may grow into when
    /// `grow`), if counted.
    fn table_bytes(&self, grow: bool) -> usize {
        if !self.table {
            return 0;
        }
        let cap = self.map.capacity();
        if cap == 0 && !grow {
            return 0;
        }
        let buckets = if cap < 7 { cap + 1 } else { cap / 7 * 8 };
        let now = table_bytes::<K, V>(buckets) as usize;
        if grow && self.map.len() == cap {
            now + table_bytes::<K, V>((buckets * 2).max(4)) as usize
        } else {
            now
        }
    }

    /// Bytes held, as counted, with the map's table if counted.
    pub(crate) fn held(&self) -> usize {
        self.bytes + self.table_bytes(false)
    }

    /// Forgets everything (the table stays, counted if it is).
    pub(crate) fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }

    /// The value kept for `key`, if any.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.map.get(key)
    }

    /// Keeps `value`, which takes `bytes`, for `key` (a key not kept yet),
    /// emptying the cache first if it would not fit.
    pub(crate) fn insert(&mut self, key: K, value: V, bytes: usize) {
        if self.bytes + bytes + self.table_bytes(true) > self.cap {
            self.map.clear();
            self.bytes = 0;
        }
        self.bytes += bytes;
        self.map.insert(key, value);
    }

    /// The entries kept.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.map.iter()
    }

    /// Keeps only the entries `keep` accepts; `bytes` tells again what
    /// each one kept takes.
    pub(crate) fn retain(
        &mut self,
        mut keep: impl FnMut(&K, &V) -> bool,
        bytes: impl Fn(&V) -> usize,
    ) {
        self.map.retain(|k, v| keep(k, v));
        self.bytes = self.map.values().map(bytes).sum();
    }

    /// Bytes held, as counted.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::{compact, may_insert, sized_map, BoundedCache};

    #[test]
    fn a_sized_map_kept_to_may_insert_never_grows() {
        // Inserts and removals at random, thinned out by half whenever
        // may_insert refuses: the capacity (entries plus free slots) never
        // passes what the map was made with, as it would once the map
        // doubled.
        let (mut m, full, bytes) = sized_map::<u64, u64>(64 << 10, 0);
        // 4,096 buckets of 17 bytes would pass 64 KiB: 2,048 it is.
        assert_eq!(bytes, (2048 * 17 + 16) as u64);
        assert_eq!(full, 1792);
        let mut x: u64 = 1;
        let mut thinned = 0u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = x % 20_000;
            if x.is_multiple_of(3) {
                m.remove(&k);
                continue;
            }
            // Asked before every insert, a key already held included: the
            // map reserves a slot before it looks for the key.
            while !may_insert(&m, full) {
                m.retain(|j, _| j % 2 == thinned % 2);
                thinned += 1;
                // Compacted, every slot not held is free again.
                compact(&mut m, full);
                assert_eq!(m.capacity(), full);
            }
            m.insert(k, x);
            assert!(m.capacity() <= full, "grew: {} > {full}", m.capacity());
        }
        assert!(thinned > 10, "{thinned}");
    }

    #[test]
    fn empties_when_the_next_value_would_not_fit() {
        let mut c: BoundedCache<u32, &str> = BoundedCache::new(100);
        c.insert(1, "a", 40);
        c.insert(2, "b", 40);
        assert_eq!((c.len(), c.bytes()), (2, 80));
        assert_eq!(c.get(&1), Some(&"a"));
        // 80 + 40 > 100: the two kept go, the third stays alone.
        c.insert(3, "c", 40);
        assert_eq!((c.len(), c.bytes()), (1, 40));
        assert_eq!(c.get(&1), None);
        assert_eq!(c.get(&3), Some(&"c"));
        // Exactly full is still within the budget.
        c.insert(4, "d", 60);
        assert_eq!((c.len(), c.bytes()), (2, 100));
    }

    #[test]
    fn retain_counts_the_bytes_again() {
        let mut c: BoundedCache<u32, usize> = BoundedCache::new(1000);
        for k in 0..10 {
            c.insert(k, k as usize * 10, k as usize * 10);
        }
        c.retain(|&k, _| k % 2 == 0, |&v| v);
        assert_eq!(c.len(), 5);
        assert_eq!(c.bytes(), 200);
        assert_eq!(c.get(&3), None);
        assert_eq!(c.get(&4), Some(&40));
    }
}
