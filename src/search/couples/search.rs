//! The df-pn over couples `L + *k` (Nagai; with the 1+ε trick of
//! Pawlewicz and Lew): a couple wins when some child loses, a child being a
//! smaller heap or a move in the land (a sum folded to a heap, a couple, or
//! a sum to settle). Proof and disproof numbers of couples in progress are
//! kept in a bounded table by `land << 32 | heap`; what is proved is kept
//! with the land.

use super::sums::Lite;
use super::{Couples, KidList, Kids, Lands, Pick, INF, NONE};
use crate::search::RESULTS_PER_NODE;
use std::cell::Cell;
use std::rc::Rc;

impl<L: Lands> Couples<'_, L> {
    /// Whether `land + *k` wins, proving it if need be.
    pub fn couple_wins(&mut self, l: u32, k: u32) -> Option<bool> {
        if let Some(w) = self.known(l, k) {
            return Some(w);
        }
        self.pins.push(l);
        self.mid(l, k, INF - 1, INF - 1);
        self.pins.pop();
        self.known(l, k)
    }

    /// What is proved of `land + *k`: whether it wins.
    pub fn known(&self, l: u32, k: u32) -> Option<bool> {
        let info = &self.lands[l as usize];
        match info.nimber {
            Some(n) => Some(n != k),
            None => info.wins(k).then_some(true),
        }
    }

    /// The children of land number `l` (`None` if the search's limits
    /// stopped their making), their lands' numbers looked up: those
    /// interned since the list was made are found.
    pub fn children(&mut self, l: u32) -> Option<Kids<L::Land>> {
        if let Some(k) = self.kids.get(&l) {
            let k = k.clone();
            for (land, id) in k.lands.iter().zip(k.ids.iter()) {
                if id.get() == NONE {
                    id.set(self.look_up(land));
                }
            }
            return Some(k);
        }
        let mut found = std::mem::take(&mut self.found);
        let mut ends = Vec::new();
        found.clear();
        let (limits, nodes) = (&mut self.limits, self.nodes);
        let mut made = 0;
        let done = self.game.children_until(
            &self.lands[l as usize].land,
            &mut found,
            &mut ends,
            &mut |results, bytes| {
                made = results;
                limits.generation_stops(nodes, results, bytes)
            },
        );
        if !done {
            found.clear();
            self.found = found;
            return None;
        }
        // Work past a node's worth counts against the node budget.
        self.nodes += made / RESULTS_PER_NODE;
        let eager = self.game.intern_children();
        let ids: Box<[Cell<u32>]> = found
            .iter()
            .map(|land| {
                Cell::new(match eager {
                    true => self.id(land),
                    false => self.look_up(land),
                })
            })
            .collect();
        let kids = Rc::new(KidList {
            lands: found.drain(..).collect(),
            ids,
            ends: ends.into_boxed_slice(),
        });
        self.found = found;
        self.kids.insert(l, kids.clone(), kids.bytes());
        Some(kids)
    }

    /// The land's number if it is interned ([`NONE`] if not), marked used.
    fn look_up(&mut self, land: &L::Land) -> u32 {
        match self.ids.get(&self.lands, land) {
            Some(i) => {
                self.lands[i as usize].used = self.clock;
                i
            }
            None => NONE,
        }
    }

    /// Interns child `c`'s lands (the search goes into it): their numbers,
    /// kept in the list, which the frame holding it pins.
    fn intern_child(&mut self, kids: &KidList<L::Land>, c: usize) {
        for (land, id) in kids.child(c).iter().zip(kids.child_ids(c)) {
            if id.get() == NONE {
                id.set(self.id(land));
            }
        }
    }

    /// When watched: records the level (`land + *k`, which chose child
    /// `mine`) on the computing branch, and returns the child a steering
    /// request asks for instead, with its numbers.
    fn steered(&mut self, l: u32, k: u32, mine: usize) -> Option<(usize, u32, u32)> {
        let w = self.watch.as_mut()?;
        let depth = (self.depth as usize).saturating_sub(1);
        super::steer(
            w,
            depth,
            u64::from(l) << 32 | u64::from(k),
            &self.seen,
            mine,
        )
    }

    /// When watched and due, publishes the computing branch.
    fn publish(&mut self) {
        let Some(w) = self.watch.as_mut() else {
            return;
        };
        if !w.due() {
            return;
        }
        // Deeper levels left from a line the search has come back up from.
        w.up_to(self.depth as usize);
        let (game, lands, frames) = (&self.game, &self.lands, &self.frames);
        w.publish(
            self.nodes,
            |_, id, _| {
                let (l, k) = ((id >> 32) as usize, id as u32);
                lands
                    .get(l)
                    .map_or_else(String::new, |i| game.text(&i.land, k))
            },
            |_, id, i| {
                // Children as `expand` numbers them: the smaller heaps
                // first, then the land's moves (each with the heap).
                let (l, k) = ((id >> 32) as u32, id as u32);
                let land = &lands.get(l as usize)?.land;
                if i < k as usize {
                    return Some(game.text(land, i as u32));
                }
                let (_, kids) = frames.iter().rev().find(|(fl, _)| *fl == l)?;
                let parts: Vec<&L::Land> = kids.child(i - k as usize).iter().collect();
                Some(game.sum_text(&parts, k))
            },
        );
    }

    /// The numbers of `land + *k` for its parent: proved, in progress, or
    /// new.
    fn numbers(&self, l: u32, k: u32) -> (u32, u32) {
        match self.known(l, k) {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            None => self
                .tt
                .get(&(u64::from(l) << 32 | u64::from(k)))
                .copied()
                .unwrap_or_else(|| self.fresh(l)),
        }
    }

    /// The numbers of a couple never expanded: one child to prove a win
    /// (a move to a loss), and as many as the land is large to prove a
    /// loss (every move must be shown to win), as df-pn+'s initial numbers
    /// do with a move count ([`Lands::fresh_dn`]; the default, `1 + size`,
    /// is Cram's: on 5×8 it takes 860,516 couples down to 556,512, 5×7:
    /// 312,695 to 213,970, and did better there than half or twice the
    /// size, or adding the heap).
    fn fresh(&self, l: u32) -> (u32, u32) {
        (1, self.game.fresh_dn(self.lands[l as usize].size))
    }

    fn store(&mut self, l: u32, k: u32, pn: u32, dn: u32) {
        if self.tt.len() >= self.tt_cap {
            // Full: what is in progress is forgotten (what is proved is
            // kept apart), and the search rebuilds the numbers it needs.
            self.tt.clear();
        }
        self.tt.insert(u64::from(l) << 32 | u64::from(k), (pn, dn));
    }

    fn record(&mut self, l: u32, k: u32, wins: bool) {
        self.tt.remove(&(u64::from(l) << 32 | u64::from(k)));
        let info = &mut self.lands[l as usize];
        if wins {
            info.set_win(k);
        } else {
            info.nimber = Some(k);
        }
    }

    /// Multiple-iterative deepening at `land + *k` under thresholds: returns
    /// when the couple is proved or its numbers reach a threshold (or the
    /// search stops).
    fn mid(&mut self, l: u32, k: u32, th_pn: u32, th_dn: u32) {
        if self.known(l, k).is_some() {
            return;
        }
        if !self.limits.may_expand(self.nodes) || self.over_budget() {
            return;
        }
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 {
            if self.limits.check() {
                let s = self.stats();
                if let Some(f) = self.progress.as_mut() {
                    f(&s);
                }
            }
            if let Some(snap) = self.snapshots.as_mut() {
                snap.when_due(|save| save(&mut self.lands.iter().filter(|i| i.live)));
            }
            self.publish();
        }
        self.clock = self.clock.saturating_add(1);
        self.lands[l as usize].used = self.clock;
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let Some(kids) = self.children(l) else {
            // Stopped while making them.
            self.depth -= 1;
            return;
        };
        self.frames.push((l, kids.clone()));
        // Here every number the search holds is in a frame or pinned. The
        // margin leaves room for the lands of the next children found,
        // so that the list never grows past its capacity.
        if self.ids.len() + self.margin() >= self.lands_cap {
            self.evict();
        }
        self.expand(l, k, th_pn, th_dn, &kids);
        self.frames.pop();
        self.depth -= 1;
    }

    /// The body of [`Couples::mid`]: the children's numbers, the best
    /// child searched, until proved or past a threshold.
    fn expand(&mut self, l: u32, k: u32, th_pn: u32, th_dn: u32, kids: &KidList<L::Land>) {
        // Each child: a smaller heap (couple l, j) or a move in the land.
        let n = k as usize + kids.len();
        loop {
            if self.limits.stop().is_some() {
                // Stopped below: up at once, without a pass over the
                // children's numbers at every level.
                return;
            }
            let mut pick = Pick::new();
            let watched = self.watch.is_some();
            self.seen.clear();
            for c in 0..n {
                let (pn, dn) = if c < k as usize {
                    self.numbers(l, c as u32)
                } else {
                    match self.fold_lite(kids, c - k as usize, k) {
                        Lite::Heap(0) => (INF, 0),
                        Lite::Heap(_) => (0, INF),
                        Lite::Couple(l2, k2) => self.numbers(l2, k2),
                        Lite::Fresh(size) => (1, self.game.fresh_dn(size)),
                        Lite::Sum(numbers) => numbers,
                    }
                };
                if dn == 0 {
                    // A child that loses: this couple wins.
                    self.record(l, k, true);
                    return;
                }
                if watched {
                    self.seen.push((pn, dn));
                }
                pick.add(c, pn, dn);
            }
            if pick.all_win() {
                // Every child wins: this couple loses.
                self.record(l, k, false);
                return;
            }
            let (pn, dn) = pick.numbers();
            if self.depth == 1 {
                self.root = (pn, dn);
            }
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() || self.over_budget() {
                self.store(l, k, pn, dn);
                return;
            }
            let steered = pick.best().and_then(|mine| self.steered(l, k, mine));
            let (c, c_th_pn, c_th_dn) = pick.child(th_pn, th_dn, self.epsilon, steered);
            if c < k as usize {
                self.mid(l, c as u32, c_th_pn, c_th_dn);
            } else {
                self.intern_child(kids, c - k as usize);
                match self.fold_lite(kids, c - k as usize, k) {
                    Lite::Couple(l2, k2) => self.mid(l2, k2, c_th_pn, c_th_dn),
                    Lite::Sum(_) => {
                        // Settle it to one land, within a budget.
                        let ids: Vec<u32> = kids
                            .child_ids(c - k as usize)
                            .iter()
                            .map(Cell::get)
                            .collect();
                        if self.settle_in_search(&ids, k).is_none()
                            && (self.limits.stop().is_some() || self.over_budget())
                        {
                            self.store(l, k, pn, dn);
                            return;
                        }
                        // Settled, or its numbers now carry the effort
                        // spent: choose again.
                    }
                    // A land interned since the list was fetched, whose
                    // nimber is known (it looked fresh): choose again.
                    Lite::Heap(_) => {}
                    Lite::Fresh(_) => unreachable!("its lands were interned"),
                }
            }
        }
    }
}
