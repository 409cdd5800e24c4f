//! Bit tricks the games' indices share: Gosper's next combination, and
//! inserting a bit.

/// The next larger integer with as many set bits (Gosper's hack): subsets
/// of one size in increasing numeric order, which is colex order. 0 stays 0.
/// The caller keeps `x` below the top bit, so `x` plus its lowest bit does
/// not overflow.
#[inline(always)]
pub(crate) fn next_combination(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    // For x = 0, c has 64 trailing zeros: the shift wraps, on nothing.
    ((r ^ x) >> 2).wrapping_shr(c.trailing_zeros()) | r
}

/// Inserts a zero bit at position `i` of `x`, shifting the bits above it up.
#[inline(always)]
pub(crate) fn insert_zero(x: u32, i: u32) -> u32 {
    let low = (1u32 << i) - 1;
    (x & low) | ((x & !low) << 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_combination_walks_subsets_in_colex_order() {
        let mut x = 0b0111u64;
        let mut seen = vec![x];
        while x < 0b111_0000 {
            x = next_combination(x);
            seen.push(x);
        }
        let want: Vec<u64> = (0u64..=0b111_0000)
            .filter(|v| v.count_ones() == 3)
            .collect();
        assert_eq!(seen, want);
        assert_eq!(next_combination(0), 0);
        assert_eq!(next_combination(1 << 62), 1 << 63);
    }

    #[test]
    fn insert_zero_shifts_the_high_bits() {
        assert_eq!(insert_zero(0b1011, 2), 0b10011);
        assert_eq!(insert_zero(0b1, 0), 0b10);
    }
}
