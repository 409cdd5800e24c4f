//! Symmetries of a rectangular board, for games that fold them into their
//! index: the 8 of a square (rotations and reflections) or the 4 of a
//! rectangle (the reflections and the half turn). Squares are numbered
//! row·C + col; a set of squares is a bit mask of up to 32 squares.

/// The symmetry group of an R×C board, with lookup tables that map a whole
/// mask in four table reads.
#[derive(Clone, Debug)]
pub struct BoardSymmetries {
    /// `perms[g][s]`: the image of square `s` under symmetry `g`.
    perms: Vec<Vec<u8>>,
    /// `luts[g][k][b]`: the image of byte `b` of a mask at byte position `k`.
    luts: Vec<[[u32; 256]; 4]>,
}

/// The symmetries of an R×C board as square permutations (`perms[g][s]`
/// the image of square `s = row·C + col`): the 8 of a square, the 4 of a
/// rectangle; element 0 is the identity. A permutation that repeats (the
/// reflections of a one-row board coincide) is kept once, so orbits count
/// symmetries, not names. One definition for the tables' folding and the
/// searches' keys, which take boards of up to 256 squares.
pub fn grid_perms(rows: u32, cols: u32) -> Vec<Vec<u16>> {
    let (r, c) = (rows as i32, cols as i32);
    type Map = fn(i32, i32, i32, i32) -> (i32, i32);
    let mut maps: Vec<Map> = vec![
        |y, x, _, _| (y, x),
        |y, x, r, _| (r - 1 - y, x),
        |y, x, _, c| (y, c - 1 - x),
        |y, x, r, c| (r - 1 - y, c - 1 - x),
    ];
    if rows == cols {
        maps.extend_from_slice(&[
            (|y, x, _, _| (x, y)) as Map,
            |y, x, r, _| (r - 1 - x, r - 1 - y),
            |y, x, r, _| (x, r - 1 - y),
            |y, x, r, _| (r - 1 - x, y),
        ]);
    }
    let mut distinct: Vec<Vec<u16>> = Vec::new();
    for m in maps {
        let p: Vec<u16> = (0..r * c)
            .map(|s| {
                let (y, x) = m(s / c, s % c, r, c);
                (y * c + x) as u16
            })
            .collect();
        if !distinct.contains(&p) {
            distinct.push(p);
        }
    }
    distinct
}

/// The 48 symmetries of an m×m×m cube (rotations and reflections) as
/// permutations of its squares `(a·m + b)·m + c`; element 0 is the
/// identity. Candidates for a pattern board of m³ squares (Qubic).
#[cfg(feature = "solve")]
pub fn cube_perms(m: usize) -> Vec<Vec<u16>> {
    let axes = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut out = Vec::new();
    for ax in axes {
        for flips in 0..8 {
            let p: Vec<u16> = (0..m * m * m)
                .map(|s| {
                    let v = [s / (m * m), s / m % m, s % m];
                    let mut w = [0; 3];
                    for i in 0..3 {
                        w[i] = v[ax[i]];
                        if flips >> i & 1 != 0 {
                            w[i] = m - 1 - w[i];
                        }
                    }
                    ((w[0] * m + w[1]) * m + w[2]) as u16
                })
                .collect();
            out.push(p);
        }
    }
    out
}

/// The permutations among `perms` that map the pattern set onto itself,
/// closed under composition (so that a minimum over images is a canonical
/// form), identity first; at most `cap` of them. `patterns` are square
/// lists of a board of `n` squares.
#[cfg(feature = "solve")]
pub fn symmetry_group(
    perms: &[Vec<u16>],
    patterns: &[Vec<u16>],
    n: usize,
    cap: usize,
) -> Vec<Vec<u16>> {
    let mut sorted: Vec<Vec<u16>> = patterns.to_vec();
    sorted.sort();
    let keeps = |p: &Vec<u16>| {
        let mut image: Vec<Vec<u16>> = sorted
            .iter()
            .map(|pat| {
                let mut q: Vec<u16> = pat.iter().map(|&s| p[s as usize]).collect();
                q.sort_unstable();
                q
            })
            .collect();
        image.sort();
        image == sorted
    };
    let identity: Vec<u16> = (0..n as u16).collect();
    let mut group = vec![identity];
    let gens: Vec<&Vec<u16>> = perms.iter().filter(|p| keeps(p)).collect();
    let mut i = 0;
    while i < group.len() && group.len() < cap {
        for g in &gens {
            let c: Vec<u16> = group[i].iter().map(|&s| g[s as usize]).collect();
            if !group.contains(&c) {
                group.push(c);
            }
        }
        i += 1;
    }
    group
}

impl BoardSymmetries {
    /// The symmetries of an R×C board; element 0 is the identity.
    pub fn grid(rows: u32, cols: u32) -> BoardSymmetries {
        let perms = grid_perms(rows, cols)
            .into_iter()
            .map(|p| p.into_iter().map(|s| s as u8).collect())
            .collect();
        BoardSymmetries::from_perms(perms)
    }

    /// The symmetries given as square permutations (`perms[g][s]` the image
    /// of square `s`; element 0 the identity; at most 32 squares).
    pub fn from_perms(perms: Vec<Vec<u8>>) -> BoardSymmetries {
        let luts = perms
            .iter()
            .map(|p| {
                let mut t = [[0u32; 256]; 4];
                for (k, table) in t.iter_mut().enumerate() {
                    for (b, out) in table.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let s = k * 8 + bit;
                            if b & (1 << bit) != 0 && s < p.len() {
                                *out |= 1 << p[s];
                            }
                        }
                    }
                }
                t
            })
            .collect();
        BoardSymmetries { perms, luts }
    }

    /// Number of symmetries.
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Always false: the identity is a symmetry.
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// Only the symmetries for which `keep(perm)` holds (the identity, element
    /// 0, always stays first). Keeping the elements that preserve some
    /// structure gives a subgroup, so orbits stay well defined.
    pub fn filter(&self, mut keep: impl FnMut(&[u8]) -> bool) -> BoardSymmetries {
        let perms = self
            .perms
            .iter()
            .enumerate()
            .filter(|(g, p)| *g == 0 || keep(p))
            .map(|(_, p)| p.clone())
            .collect();
        BoardSymmetries::from_perms(perms)
    }

    /// The image of square `s` under symmetry `g`.
    #[inline]
    pub fn square(&self, g: usize, s: u32) -> u32 {
        u32::from(self.perms[g][s as usize])
    }

    /// The image of a set of squares under symmetry `g`.
    #[inline]
    pub fn mask(&self, g: usize, m: u32) -> u32 {
        let t = &self.luts[g];
        t[0][(m & 0xff) as usize]
            | t[1][((m >> 8) & 0xff) as usize]
            | t[2][((m >> 16) & 0xff) as usize]
            | t[3][(m >> 24) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_permutations_that_map_masks_bit_by_bit() {
        for (r, c, count) in [
            (3, 3, 8),
            (4, 5, 4),
            (5, 5, 8),
            (2, 6, 4),
            (1, 7, 2),
            (1, 1, 1),
        ] {
            let s = BoardSymmetries::grid(r, c);
            assert_eq!(s.len(), count);
            let n = r * c;
            for g in 0..s.len() {
                let mut seen = vec![false; n as usize];
                for q in 0..n {
                    seen[s.square(g, q) as usize] = true;
                }
                assert!(seen.iter().all(|&x| x), "{r}x{c} g{g}");
                let m = 0x0155_5aa5 & ((1u32 << n) - 1);
                let by_bits = (0..n)
                    .filter(|q| m & (1 << q) != 0)
                    .fold(0, |acc, q| acc | 1 << s.square(g, q));
                assert_eq!(s.mask(g, m), by_bits);
            }
            for q in 0..n {
                assert_eq!(s.square(0, q), q);
            }
        }
    }
}
