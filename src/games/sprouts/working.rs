//! The working form of a land, shared by the moves ([`super::rules`]) and
//! the canonical form ([`super::canon`]): each region its `0` boundaries
//! and its other boundaries as token sequences, and the census of where
//! each letter is written.

/// A token of the working form: [`T_ONE`], [`T_TWO`], or a letter id
/// (from 3: a canonical land's letters keep their byte, new spots take
/// ids from `rules::FRESH`).
pub(crate) type Tok = u16;
/// A spot with 2 lives.
pub(crate) const T_ONE: Tok = 1;
/// A spot with one life met once, of no identity.
pub(crate) const T_TWO: Tok = 2;
/// Past every id a land can hold: the size of the letter census.
pub(crate) const IDS: usize = 512;

/// A region of the working form.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WRegion {
    /// Boundaries that are one spot with no curve (`0`).
    pub zeros: u32,
    /// The other boundaries.
    pub bounds: Vec<Vec<Tok>>,
}

/// The first letter id.
pub(crate) const LETTER: Tok = 3;

/// Where the letters of a land are written: per id, how often and in which
/// regions (the first two). A land has few letters: a slot per id points
/// into a short list, so a census costs a small clear, not a table's.
pub(crate) struct Census {
    slot: [u8; IDS],
    letters: Vec<(u8, u16, u16)>,
}

impl Census {
    pub(crate) fn of(regions: &[WRegion]) -> Census {
        let mut c = Census {
            slot: [0; IDS],
            letters: Vec::new(),
        };
        for (r, reg) in regions.iter().enumerate() {
            for b in &reg.bounds {
                for &t in b {
                    if t >= LETTER {
                        let t = t as usize;
                        if c.slot[t] == 0 {
                            c.letters.push((0, r as u16, r as u16));
                            // Letters are at most a land's lives (< 256).
                            c.slot[t] = c.letters.len().min(255) as u8;
                        }
                        let e = &mut c.letters[usize::from(c.slot[t]) - 1];
                        if e.0 >= 1 {
                            e.2 = r as u16;
                        }
                        e.0 = e.0.saturating_add(1);
                    }
                }
            }
        }
        c
    }

    fn entry(&self, t: Tok) -> (u8, u16, u16) {
        match self.slot.get(t as usize) {
            Some(&s) if s > 0 => self.letters[usize::from(s) - 1],
            _ => (0, 0, 0),
        }
    }

    /// The regions of letter `t` (the first and the second it is in).
    pub(crate) fn regions(&self, t: Tok) -> (usize, usize) {
        let (_, a, b) = self.entry(t);
        (usize::from(a), usize::from(b))
    }

    /// Whether letter `t` is written twice in one region (lower case).
    pub(crate) fn lower(&self, t: Tok) -> bool {
        let (n, a, b) = self.entry(t);
        n == 2 && a == b
    }

    /// Whether letter `t` is written once in each of two regions (upper
    /// case).
    pub(crate) fn upper(&self, t: Tok) -> bool {
        let (n, a, b) = self.entry(t);
        n == 2 && a != b
    }

    /// Twice the lives of region `reg` (a letter written twice in it has
    /// one life in all).
    pub(crate) fn half_lives(&self, reg: &WRegion) -> u32 {
        let mut h = 6 * reg.zeros;
        for b in &reg.bounds {
            for &t in b {
                h += match t {
                    T_ONE => 4,
                    T_TWO => 2,
                    _ if self.lower(t) => 1,
                    _ => 2,
                };
            }
        }
        h
    }
}
