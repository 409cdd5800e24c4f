//! The best one-element extension of every k-subset, in slices.
//!
//! A compound game whose unit's intermediates are the k-subsets of `m` bits
//! in colex order, each completed by adding one bit, with the completions
//! the (k+1)-subsets of the same bits in colex order
//! ([`crate::Game::unit_extensions`]: Isolation's removals), needs for every
//! k-subset B the best of its completions B ∪ {j}, j ∉ B. Reading them per
//! subset costs an index computation and a dependent read per completion
//! (about 50 instructions each on Isolation 4×4). But colex order splits
//! along the top bit t = m − 1: the k-subsets without t come first
//! (C(m−1, k) of them), then those with t; likewise the (k+1)-subsets. So
//!
//! * B without t, completed by t: B ∪ {t} sits C(m−1, k+1) places after B's
//!   own rank among the (k+1)-subsets: one elementwise maximum of two
//!   contiguous slices, which the compiler vectorises (16 or 32 bytes an
//!   instruction);
//! * B without t, completed below t: the same problem on m − 1 bits;
//! * B with t: B ∖ {t} and its completions (all with t) are the same problem
//!   on m − 1 bits and k − 1, in the upper parts of both slices.
//!
//! Each (subset, completion) pair is compared exactly once, as before, but
//! in runs; the small problems at the recursion's leaves (k ≤ 1, k ≥ m − 1)
//! take a direct loop.

/// C(n, k), for n ≤ 63.
pub(crate) fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u64, |c, i| c * u64::from(n - i) / u64::from(i + 1))
}

/// For every k-subset B of `m` bits, `dst[colex(B)]` becomes the largest of
/// itself and `src[colex(B ∪ {j})]` over the bits j < m not in B. `dst` holds
/// C(m, k) entries and `src` C(m, k + 1) (empty for k = m: no subset has a
/// completion, and `dst` is left as it is).
pub(crate) fn max_over_extensions(m: u32, k: u32, dst: &mut [u8], src: &[u8]) {
    debug_assert_eq!(dst.len() as u64, binomial(m, k));
    debug_assert_eq!(src.len() as u64, binomial(m, k + 1));
    extend(m as usize, k as usize, dst, src);
}

/// `a[i] = max(a[i], b[i])` over two slices of one length: the vectorised
/// step.
#[inline(always)]
fn max_into(a: &mut [u8], b: &[u8]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}

fn extend(m: usize, k: usize, dst: &mut [u8], src: &[u8]) {
    if k >= m {
        return;
    }
    if k == 0 {
        // The empty set: every singleton completes it.
        dst[0] = dst[0].max(src.iter().copied().max().unwrap_or(0));
        return;
    }
    if k + 1 == m {
        // One completion, the full set, for every subset.
        let s = src[0];
        dst.iter_mut().for_each(|d| *d = (*d).max(s));
        return;
    }
    if k == 1 {
        // Singletons {a}, pairs {a < b} at rank C(b, 2) + a: the pairs with
        // top b complete {0}..{b−1} (a slice) and {b} (their maximum).
        let mut at = 0;
        for b in 1..m {
            let run = &src[at..at + b];
            max_into(&mut dst[..b], run);
            dst[b] = dst[b].max(run.iter().copied().max().unwrap_or(0));
            at += b;
        }
        return;
    }
    // C(m−1, k) subsets without the top bit; C(m−1, k+1) completions without.
    let low = dst.len() * (m - k) / m;
    let below = src.len() * (m - k - 1) / m;
    let (without, with) = dst.split_at_mut(low);
    max_into(without, &src[below..below + low]);
    extend(m - 1, k, without, &src[..below]);
    extend(m - 1, k - 1, with, &src[below..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn colex(mut board: u64) -> usize {
        let (mut rank, mut i) = (0, 0);
        while board != 0 {
            let s = board.trailing_zeros();
            board &= board - 1;
            i += 1;
            rank += binomial(s, i) as usize;
        }
        rank
    }

    /// The k-subsets of m bits in increasing numeric order: colex order.
    fn subsets(m: u32, k: u32) -> Vec<u64> {
        (0u64..1 << m).filter(|x| x.count_ones() == k).collect()
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(28, 14), 40_116_600);
        assert_eq!(binomial(5, 0), 1);
        assert_eq!(binomial(5, 6), 0);
        assert_eq!(binomial(18, 9), 48_620);
    }

    /// Against the definition, every m ≤ 11 and k, on pseudo-random bytes
    /// and a non-zero starting `dst`.
    #[test]
    fn slices_agree_with_each_subsets_completions() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        };
        for m in 0..=11u32 {
            for k in 0..=m {
                let src: Vec<u8> = (0..binomial(m, k + 1)).map(|_| rand()).collect();
                let start: Vec<u8> = (0..binomial(m, k)).map(|_| rand() / 4).collect();
                let mut want = start.clone();
                for (i, &b) in subsets(m, k).iter().enumerate() {
                    assert_eq!(colex(b), i);
                    for j in (0..m).filter(|&j| b & 1 << j == 0) {
                        want[i] = want[i].max(src[colex(b | 1 << j)]);
                    }
                }
                let mut got = start;
                max_over_extensions(m, k, &mut got, &src);
                assert_eq!(got, want, "m {m} k {k}");
            }
        }
    }
}
