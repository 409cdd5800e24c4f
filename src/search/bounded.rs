//! A cache bounded by the bytes of what it holds, emptied whole when full.

use super::couples::FastBuild;
use std::collections::HashMap;
use std::hash::Hash;

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
}

impl<K: Hash + Eq, V> BoundedCache<K, V> {
    /// An empty cache that holds at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> BoundedCache<K, V> {
        BoundedCache {
            map: HashMap::default(),
            bytes: 0,
            cap,
        }
    }

    /// The value kept for `key`, if any.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.map.get(key)
    }

    /// Keeps `value`, which takes `bytes`, for `key` (a key not kept yet),
    /// emptying the cache first if it would not fit.
    pub(crate) fn insert(&mut self, key: K, value: V, bytes: usize) {
        if self.bytes + bytes > self.cap {
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
    use super::BoundedCache;

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
