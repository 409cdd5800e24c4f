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
    /// The surface inside the region (a [`surface`] code; 0 the plane's
    /// disc).
    pub surface: u8,
}

/// The surface a region holds, as a one-byte code: 0 none (a region of
/// the plane or sphere), `g` for g handles (orientable), `CROSS + c` for
/// c cross-caps (non-orientable; handles beside cross-caps count as two
/// cross-caps each, as the classification of surfaces says).
pub(crate) mod surface {
    /// The code of one cross-cap less than the first non-orientable code.
    pub(crate) const CROSS: u8 = 128;
    /// The most handles or cross-caps a code holds (a spec's genus is
    /// bounded by it).
    pub(crate) const MAX: u32 = 64;

    /// g handles.
    pub(crate) fn handles(g: u32) -> u8 {
        g as u8
    }

    /// c cross-caps (c >= 1).
    pub(crate) fn caps(c: u32) -> u8 {
        CROSS + c as u8
    }

    /// Whether a code is valid.
    pub(crate) fn valid(s: u8) -> bool {
        u32::from(s) <= MAX || (s > CROSS && u32::from(s - CROSS) <= MAX)
    }

    pub(crate) fn orientable(s: u8) -> bool {
        s < CROSS
    }

    /// Euler genus: 2g, or c.
    pub(crate) fn euler(s: u8) -> u32 {
        if s < CROSS {
            2 * u32::from(s)
        } else {
            u32::from(s - CROSS)
        }
    }

    /// The surfaces of Euler genus `e`: c = e cross-caps (if e >= 1),
    /// and e/2 handles (if e is even).
    fn of_euler(e: u32) -> impl Iterator<Item = u8> {
        let caps = (e >= 1).then(|| caps(e));
        let handles = e.is_multiple_of(2).then(|| handles(e / 2));
        caps.into_iter().chain(handles)
    }

    /// The code of Glop's topology number: 0 the plane, g > 0 g handles,
    /// -c c cross-caps.
    pub(crate) fn of_genus(g: i32) -> u8 {
        if g >= 0 {
            handles(g.unsigned_abs())
        } else {
            caps(g.unsigned_abs())
        }
    }

    /// Glop's topology number of a code.
    pub(crate) fn genus(s: u8) -> i32 {
        if s < CROSS {
            i32::from(s)
        } else {
            -i32::from(s - CROSS)
        }
    }

    /// The two surfaces a separating curve leaves, one per side: their
    /// Euler genera add up to the region's, and both sides are orientable
    /// exactly when the region is.
    pub(crate) fn splits(s: u8) -> Vec<(u8, u8)> {
        if s < CROSS {
            return (0..=s).map(|a| (a, s - a)).collect();
        }
        let e = euler(s);
        let mut out = Vec::new();
        for e1 in 0..=e {
            for a in of_euler(e1) {
                for b in of_euler(e - e1) {
                    if !(orientable(a) && orientable(b)) {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    /// The surfaces a non-separating two-sided curve (through a handle)
    /// leaves: Euler genus two less (none if the region has less).
    pub(crate) fn through_handle(s: u8) -> Vec<u8> {
        if s < CROSS {
            return if s >= 1 { vec![s - 1] } else { Vec::new() };
        }
        let e = euler(s);
        if e < 2 {
            return Vec::new();
        }
        // A non-orientable region of Euler genus e - 2 >= 1, or an
        // orientable one when e is even (a Klein bottle's tube cut).
        of_euler(e - 2).collect()
    }

    /// The surfaces a one-sided curve (through a cross-cap) leaves: Euler
    /// genus one less; none for an orientable region.
    pub(crate) fn through_cap(s: u8) -> Vec<u8> {
        if s <= CROSS {
            return Vec::new();
        }
        of_euler(euler(s) - 1).collect()
    }
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
