//! The oracle's normal-play outcome search by couples: whether the mover
//! wins a land `L` plus a nim heap `*k`, with cutoffs, on the oracle's own
//! moves and land keys (nothing of `src/games/sprouts`).
//!
//! Why it is the same value as the mex of every land's nimber (the oracle
//! by lands): a position is a sum of independent lands, so `L + *k` is
//! lost exactly when `nimber(L) == k` (Sprague–Grundy). Its moves are a
//! move in `L` (to a position `L'`, itself a sum of lands `L1 + … + Lm`)
//! or a move in the heap (to `L + *j`, j < k). The mover wins exactly when
//! one of those leaves a lost position: `L' + *k` is lost when
//! `nimber(L2) ^ … ^ nimber(Lm) ^ k == nimber(L1)`, that is when
//! `L1 + *(k ^ nimber(L2) ^ …)` is lost; `L + *j` is lost when
//! `nimber(L) == j`. So one lost child settles a win and the rest need not
//! be searched; a loss needs every child won. The nimbers of all but the
//! largest land of a child are computed exactly (the least k for which
//! `Li + *k` is lost), the largest one only searched as a couple. Each
//! land keeps what is known of it by its key: its nimber once found (a
//! couple lost), and the heaps for which it is won.
//!
//! Children are tried cheapest first: those already settled by what is
//! known, then by the lives of their largest land (fewest first).

use super::{Raw, Split};
use std::collections::HashMap;

/// What is known of one land.
#[derive(Default, Clone, Copy)]
struct Known {
    /// Its nimber, once a couple `L + *k` has been found lost.
    nimber: Option<u8>,
    /// Bit k: `L + *k` is won.
    wins: u64,
}

/// One child of a land: its lands (key and drawing, sorted by key).
struct Kid {
    lands: Vec<(Box<[u8]>, Raw)>,
    /// The index of the land searched as a couple (the others' nimbers
    /// are computed exactly): the one with the most lives.
    main: usize,
    /// Cost order: lives of the main land, then of all lands.
    cost: (u32, u32),
}

/// The normal-play outcome search by couples, memoised on land keys.
#[derive(Default)]
pub(super) struct Couples {
    known: HashMap<Box<[u8]>, Known>,
    /// Couples searched (calls that were not answered by the memo).
    pub(super) nodes: u64,
}

impl Couples {
    /// Lands with something known.
    pub(super) fn lands(&self) -> usize {
        self.known.len()
    }

    /// The children of a land, deduplicated (one per position), cheapest
    /// first.
    fn kids(l: &Raw) -> Vec<Kid> {
        let mut seen: HashMap<Box<[u8]>, ()> = HashMap::new();
        let mut kids = Vec::new();
        for c in l.children() {
            let s = Split::of(&c);
            if seen.insert(s.key(), ()).is_some() {
                continue;
            }
            let lives: Vec<u32> = s.lands.iter().map(|(_, r)| r.lives()).collect();
            let main = (0..lives.len()).max_by_key(|&i| lives[i]).unwrap_or(0);
            kids.push(Kid {
                cost: (
                    lives.get(main).copied().unwrap_or(0),
                    lives.iter().sum(),
                ),
                main,
                lands: s.lands,
            });
        }
        kids.sort_by_key(|k| k.cost);
        kids
    }

    /// The normal-play nimber of a position: its lands' nimbers added.
    pub(super) fn nimber_of(&mut self, p: &Split) -> u8 {
        p.lands.iter().fold(0, |a, (k, l)| a ^ self.nimber(k, l))
    }

    /// Whether the mover wins position `p` plus `*k` under normal play:
    /// all lands but the one with the most lives by their nimbers, that
    /// one as a couple.
    pub(super) fn wins_with(&mut self, p: &Split, k: u8) -> bool {
        if p.lands.is_empty() {
            return k != 0;
        }
        let main = (0..p.lands.len())
            .max_by_key(|&i| p.lands[i].1.lives())
            .unwrap_or(0);
        let mut h = k;
        for (i, (key, l)) in p.lands.iter().enumerate() {
            if i != main {
                h ^= self.nimber(key, l);
            }
        }
        let (key, l) = &p.lands[main];
        self.wins(key, l, h)
    }

    /// The exact nimber of a land: the least k for which `L + *k` is lost.
    pub(super) fn nimber(&mut self, key: &[u8], l: &Raw) -> u8 {
        if let Some(n) = self.known.get(key).and_then(|x| x.nimber) {
            return n;
        }
        let kids = Couples::kids(l);
        let mut k = 0;
        loop {
            if !self.wins_by(key, &kids, k) {
                return k;
            }
            k += 1;
            assert!(k < 64, "nimber past the bit set");
        }
    }

    /// Whether the mover wins `L + *k`, `L` the land of key `key`.
    pub(super) fn wins(&mut self, key: &[u8], l: &Raw, k: u8) -> bool {
        if let Some(w) = self.lookup(key, k) {
            return w;
        }
        let kids = Couples::kids(l);
        self.wins_by(key, &kids, k)
    }

    /// What is known of `L + *k`.
    fn lookup(&self, key: &[u8], k: u8) -> Option<bool> {
        let x = self.known.get(key)?;
        match x.nimber {
            Some(n) => Some(n != k),
            None => (x.wins >> k & 1 == 1).then_some(true),
        }
    }

    /// Whether the couple `kid + *k` is lost for its mover, when known
    /// without searching.
    fn kid_lost_known(&self, kid: &Kid, k: u8) -> Option<bool> {
        let mut h = k;
        for (i, (key, _)) in kid.lands.iter().enumerate() {
            if i != kid.main {
                h ^= self.known.get(key)?.nimber?;
            }
        }
        match kid.lands.get(kid.main) {
            None => Some(h == 0),
            Some((key, _)) => self.lookup(key, h).map(|w| !w),
        }
    }

    /// [`Couples::wins`] with the land's children already listed.
    fn wins_by(&mut self, key: &[u8], kids: &[Kid], k: u8) -> bool {
        if let Some(w) = self.lookup(key, k) {
            return w;
        }
        self.nodes += 1;
        // A child already known lost settles it at once.
        let mut win = kids.iter().any(|c| self.kid_lost_known(c, k) == Some(true));
        if !win {
            for c in kids {
                if self.kid_lost_known(c, k) == Some(false) {
                    continue;
                }
                let mut h = k;
                for (i, (ck, cl)) in c.lands.iter().enumerate() {
                    if i != c.main {
                        h ^= self.nimber(ck, cl);
                    }
                }
                let lost = match c.lands.get(c.main) {
                    None => h == 0,
                    Some((ck, cl)) => !self.wins(ck, cl, h),
                };
                if lost {
                    win = true;
                    break;
                }
            }
        }
        // A move in the heap: to `L + *j`, lost when `nimber(L) == j`.
        if !win {
            for j in 0..k {
                if !self.wins_by(key, kids, j) {
                    win = true;
                    break;
                }
            }
        }
        let e = self.known.entry(key.into()).or_default();
        if win {
            e.wins |= 1 << k;
        } else {
            e.nimber = Some(k);
        }
        win
    }
}
