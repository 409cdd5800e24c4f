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
//! known, then by the lives of their largest land (fewest first). An
//! optional hint (a guess of a land's nimber, e.g. from the library) only
//! puts the child it predicts lost first: every value is still settled by
//! the search above on the oracle's own moves (a child is counted lost
//! only when the oracle has found every one of its children won), so a
//! wrong hint costs time, never a wrong value.
//!
//! Misère play (`MisereSearch`) does not add over lands: whole positions
//! are searched, memoised on the position's key, with the same cutoff and
//! order (a hint guessing a whole position's misère outcome).

use super::{Raw, Split};
use std::collections::HashMap;

/// A guess of a value from a drawing (a land's nimber, or a position's
/// misère outcome): only orders the children.
pub(super) type Hint<T> = Box<dyn FnMut(&Raw) -> Option<T>>;

/// Land keys by the tidied drawing's raw bytes: one drawing is met again
/// and again (the lands a move leaves untouched, the same child by
/// several moves), and its least encoding is the costly part. A raw
/// drawing determines its land key, so this changes no value.
#[derive(Default)]
pub(super) struct KeyCache {
    keys: HashMap<Box<[u8]>, Box<[u8]>>,
}

impl KeyCache {
    /// Emptied past this many drawings, to bound memory.
    const MOST: usize = 1 << 19;

    fn land_key(&mut self, l: &Raw) -> Box<[u8]> {
        let raw = l.key();
        if let Some(k) = self.keys.get(&raw) {
            return k.clone();
        }
        if self.keys.len() >= KeyCache::MOST {
            self.keys.clear();
        }
        let k = l.land_key();
        self.keys.insert(raw, k.clone());
        k
    }

    /// [`Split::of`], with the cache.
    pub(super) fn split(&mut self, p: &Raw) -> Split {
        let mut lands: Vec<(Box<[u8]>, Raw)> = p
            .lands()
            .into_iter()
            .map(|l| (self.land_key(&l), l))
            .collect();
        lands.sort_by(|a, b| a.0.cmp(&b.0));
        Split { lands }
    }

    /// The children of a drawing, one per position (by key), each with
    /// its drawing.
    fn children(&mut self, p: &Raw) -> Vec<(Split, Raw)> {
        let mut raws: HashMap<Box<[u8]>, ()> = HashMap::new();
        let mut seen: HashMap<Box<[u8]>, ()> = HashMap::new();
        let mut out = Vec::new();
        for c in p.children() {
            // The same drawing by another move: the same position.
            if raws.insert(c.key(), ()).is_some() {
                continue;
            }
            let s = self.split(&c);
            if seen.insert(s.key(), ()).is_none() {
                out.push((s, c));
            }
        }
        out
    }
}

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

impl Kid {
    /// The land searched as a couple (none when the child has no land).
    fn main(&self) -> Option<&(Box<[u8]>, Raw)> {
        self.lands.get(self.main)
    }
}

/// The normal-play outcome search by couples, memoised on land keys.
#[derive(Default)]
pub(super) struct Couples {
    known: HashMap<Box<[u8]>, Known>,
    /// Couples searched (calls that were not answered by the memo).
    pub(super) nodes: u64,
    cache: KeyCache,
    /// The guess of a land's nimber, when given.
    hint: Option<Hint<u8>>,
    guessed: HashMap<Box<[u8]>, Option<u8>>,
}

impl Couples {
    pub(super) fn with(hint: Option<Hint<u8>>) -> Couples {
        Couples {
            hint,
            ..Couples::default()
        }
    }

    /// Lands with something known.
    pub(super) fn lands(&self) -> usize {
        self.known.len()
    }

    /// The children of a land, deduplicated (one per position), cheapest
    /// first.
    fn kids(&mut self, l: &Raw) -> Vec<Kid> {
        let mut kids = Vec::new();
        for (s, _) in self.cache.children(l) {
            let lives: Vec<u32> = s.lands.iter().map(|(_, r)| r.lives()).collect();
            let main = (0..lives.len()).max_by_key(|&i| lives[i]).unwrap_or(0);
            kids.push(Kid {
                cost: (lives.get(main).copied().unwrap_or(0), lives.iter().sum()),
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
        let kids = self.kids(l);
        let mut k = 0;
        loop {
            if !self.wins_by(key, l, &kids, k) {
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
        let kids = self.kids(l);
        self.wins_by(key, l, &kids, k)
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
    fn wins_by(&mut self, key: &[u8], l: &Raw, kids: &[Kid], k: u8) -> bool {
        if let Some(w) = self.lookup(key, k) {
            return w;
        }
        self.nodes += 1;
        // A child already known lost settles it at once.
        let mut win = kids.iter().any(|c| self.kid_lost_known(c, k) == Some(true));
        if !win {
            let order = self.order(kids, k);
            for &i in &order {
                let c = &kids[i];
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
        // A move in the heap: to `L + *j`, lost when `nimber(L) == j`
        // (the guessed nimber first).
        if !win && k > 0 {
            let mut js: Vec<u8> = (0..k).collect();
            if let Some(n) = self.guess_land(key, l) {
                if n < k {
                    js.retain(|&j| j != n);
                    js.insert(0, n);
                }
            }
            for j in js {
                if !self.wins_by(key, l, kids, j) {
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

impl Couples {
    /// The order in which to try the children of a land against `*k`:
    /// cheapest first, and with a hint, the first child it predicts lost
    /// (its main land's guessed nimber equal to the heap left) before
    /// them. The heap is exact: the other lands' nimbers are the
    /// oracle's, computed first (they are the smaller lands).
    fn order(&mut self, kids: &[Kid], k: u8) -> Vec<usize> {
        let mut order: Vec<usize> = (0..kids.len()).collect();
        if self.hint.is_none() {
            return order;
        }
        for (i, c) in kids.iter().enumerate() {
            let mut h = k;
            for (j, (ck, cl)) in c.lands.iter().enumerate() {
                if j != c.main {
                    h ^= self.nimber(ck, cl);
                }
            }
            let predicted = match c.main() {
                None => h == 0,
                Some((ck, cl)) => self.guess_land(ck, cl) == Some(h),
            };
            if predicted {
                order.remove(i);
                order.insert(0, i);
                break;
            }
        }
        order
    }

    /// The hint's nimber of a land, asked once per key.
    fn guess_land(&mut self, key: &[u8], l: &Raw) -> Option<u8> {
        if let Some(&g) = self.guessed.get(key) {
            return g;
        }
        let g = self.hint.as_mut().and_then(|h| h(l));
        self.guessed.insert(key.into(), g);
        g
    }
}

/// The misère outcome of whole positions, with cutoffs.
#[derive(Default)]
pub(super) struct MisereSearch {
    wins: HashMap<Box<[u8]>, bool>,
    pub(super) nodes: u64,
    cache: KeyCache,
    /// The guess of whether a position's mover wins misère.
    hint: Option<Hint<bool>>,
}

impl MisereSearch {
    pub(super) fn with(hint: Option<Hint<bool>>) -> MisereSearch {
        MisereSearch {
            hint,
            ..MisereSearch::default()
        }
    }

    /// Positions whose outcome is known.
    pub(super) fn known(&self) -> usize {
        self.wins.len()
    }

    /// Whether the mover wins the drawing `p` (its position `s`) under
    /// misère play: no move left, or a move to a position whose mover
    /// loses.
    pub(super) fn wins(&mut self, s: &Split, p: &Raw) -> bool {
        let key = s.key();
        if let Some(&w) = self.wins.get(&key) {
            return w;
        }
        self.nodes += 1;
        let mut kids: Vec<(Box<[u8]>, Split, Raw)> = self
            .cache
            .children(p)
            .into_iter()
            .map(|(s, r)| (s.key(), s, r))
            .collect();
        let mut w = kids.is_empty()
            || kids
                .iter()
                .any(|(k, _, _)| self.wins.get(k) == Some(&false));
        if !w {
            // Cheapest first (fewest lives), the hint's first predicted
            // loss before them.
            kids.sort_by_key(|(_, _, r)| r.lives());
            if self.hint.is_some() {
                if let Some(i) = kids.iter().position(|(k, _, r)| {
                    !self.wins.contains_key(k)
                        && self.hint.as_mut().and_then(|h| h(r)) == Some(false)
                }) {
                    let c = kids.remove(i);
                    kids.insert(0, c);
                }
            }
            for (_, s, r) in &kids {
                if !self.wins(s, r) {
                    w = true;
                    break;
                }
            }
        }
        self.wins.insert(key, w);
        w
    }
}
