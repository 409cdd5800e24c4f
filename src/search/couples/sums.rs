//! Sums of lands: the nimbers known folded in ([`Couples::fold`]), equal
//! lands cancelled in pairs, and a sum of several lands of unknown nimber
//! settled to one couple by computing the nimbers of all its lands but the
//! largest (Glop's choice: small lands' nimbers are cheap and met again and
//! again). Until then its numbers are those of the couple it will become
//! plus, for each nimber to compute, a fresh couple's and the work already
//! spent on it; and each of those nimber searches runs within a budget
//! (twice the work spent on it before, at least 4,096 couples): one that
//! runs out is put off, its work now in the sum's numbers, and the search
//! turns to other children and comes back with twice the budget. Settled
//! unbounded, one nimber of a 20-spot game's land held `sprouts:20` for two
//! hours with its root's numbers unchanged; bounded, it is proved in about
//! a minute.

use super::{Couples, Folded, KidList, Lands, EFFORT_SCALE, INF, NONE};

/// A child in the search's loop: [`Folded`], with a sum not yet settled
/// reduced to the numbers it starts with.
pub(super) enum Lite {
    Heap(u32),
    Couple(u32, u32),
    /// One land of unknown nimber, not interned (of this size): a couple
    /// never expanded.
    Fresh(u32),
    Sum((u32, u32)),
}

impl<L: Lands> Couples<'_, L> {
    /// Whether the player to move wins the sum of `lands` and a heap of
    /// `heap` (`None` if stopped first).
    pub fn wins_sum(&mut self, lands: &[L::Land], heap: u32) -> Option<bool> {
        let ids: Vec<u32> = lands.iter().map(|l| self.id(l)).collect();
        self.sum_wins(&ids, heap)
    }

    /// The nimber of the sum of `lands` and a heap of `heap` (`None` if
    /// stopped first).
    pub fn nimber_sum(&mut self, lands: &[L::Land], heap: u32) -> Option<u32> {
        let mut n = heap;
        for land in lands {
            let i = self.id(land);
            n ^= self.land_nimber(i)?;
        }
        Some(n)
    }

    /// Whether the sum of lands `ids` and a heap of `k` wins.
    pub fn sum_wins(&mut self, ids: &[u32], k: u32) -> Option<bool> {
        match self.settle(ids, k)? {
            Folded::Heap(x) => Some(x != 0),
            Folded::Couple(l, x) => self.couple_wins(l, x),
            Folded::Sum(..) => unreachable!("settle leaves at most one land"),
        }
    }

    /// The nimber of land number `i`: the heap beside which it loses.
    pub fn land_nimber(&mut self, i: u32) -> Option<u32> {
        self.pins.push(i);
        let n = self.land_nimber_pinned(i);
        self.pins.pop();
        n
    }

    fn land_nimber_pinned(&mut self, i: u32) -> Option<u32> {
        let mut k = 0;
        loop {
            if let Some(n) = self.lands[i as usize].nimber {
                return Some(n);
            }
            if !self.couple_wins(i, k)? {
                return Some(k);
            }
            k += 1;
        }
    }

    /// The lands `ids` and heap `k` with every known nimber folded in, and
    /// equal lands of unknown nimber cancelled in pairs (`G + G` is a loss
    /// for the mover, who is answered by the same move in the other copy,
    /// so the pair adds nimber 0 to any sum).
    pub fn fold(&self, ids: &[u32], k: u32) -> Folded {
        let mut x = k;
        let mut left: Vec<u32> = Vec::new();
        for &i in ids {
            match self.lands[i as usize].nimber {
                Some(n) => x ^= n,
                None => left.push(i),
            }
        }
        left.sort_unstable();
        let mut kept = 0;
        let mut j = 0;
        while j < left.len() {
            if j + 1 < left.len() && left[j] == left[j + 1] {
                j += 2;
            } else {
                left[kept] = left[j];
                kept += 1;
                j += 1;
            }
        }
        left.truncate(kept);
        match left.len() {
            0 => Folded::Heap(x),
            1 => Folded::Couple(left[0], x),
            _ => Folded::Sum(left, x),
        }
    }

    /// [`Couples::fold`] of child `c` of `kids`, for the search's loop,
    /// with no allocation: a sum of several lands of unknown nimber comes
    /// back as the numbers it starts with ([`Couples::sum_numbers`]). A land
    /// not interned has no nimber known; equal lands cancel in pairs,
    /// interned or not.
    pub(super) fn fold_lite(&mut self, kids: &KidList<L::Land>, c: usize, k: u32) -> Lite {
        let (lands, ids) = (kids.child(c), kids.child_ids(c));
        let mut x = k;
        let mut left = std::mem::take(&mut self.unknown);
        left.clear();
        for (j, id) in ids.iter().enumerate() {
            let i = id.get();
            if i != NONE {
                if let Some(v) = self.lands[i as usize].nimber {
                    x ^= v;
                    continue;
                }
            }
            let same = |&a: &usize| {
                let h = ids[a].get();
                match i != NONE && h != NONE {
                    true => h == i,
                    false => lands[a] == lands[j],
                }
            };
            match left.iter().position(same) {
                // A pair cancels.
                Some(at) => {
                    left.swap_remove(at);
                }
                None => left.push(j),
            }
        }
        let lite = match left[..] {
            [] => Lite::Heap(x),
            [j] => match ids[j].get() {
                NONE => Lite::Fresh(self.game.size(&lands[j])),
                i => Lite::Couple(i, x),
            },
            _ => Lite::Sum(self.sum_numbers(left.iter().map(|&j| match ids[j].get() {
                NONE => (self.game.size(&lands[j]), 0),
                i => {
                    let info = &self.lands[i as usize];
                    (info.size, info.effort)
                }
            }))),
        };
        self.unknown = left;
        lite
    }

    /// The numbers of a sum not yet settled, whose lands of unknown
    /// nimber are `unknown`: settling it proves the nimber of each but the
    /// largest, so each of those adds what a couple of its own would start
    /// with to both numbers, and the couple left is one of the largest.
    /// Were a sum as cheap as one move (1, 1), a couple with one would look
    /// a move from proved, and the search would settle every sum first.
    /// Each land is given by its size and the effort spent on its nimber
    /// (none for a land not interned).
    fn sum_numbers(&self, unknown: impl Iterator<Item = (u32, u32)> + Clone) -> (u32, u32) {
        let big = unknown.clone().map(|(size, _)| size).max().unwrap_or(0);
        let all: u32 = unknown
            .clone()
            .map(|(size, _)| self.game.fresh_dn(size))
            .sum();
        let big_dn = self.game.fresh_dn(big);
        let effort: u32 = unknown
            .map(|(_, effort)| effort / EFFORT_SCALE)
            .fold(0u32, |a, b| a.saturating_add(b));
        let cost = (all - big_dn).saturating_add(effort).min(INF / 4);
        (1 + cost, big_dn + cost)
    }

    /// The sum folded, then settled to at most one land: the nimbers of
    /// all its lands of unknown nimber but the largest are computed.
    fn settle(&mut self, ids: &[u32], k: u32) -> Option<Folded> {
        self.settle_within(ids, k, false)
    }

    /// [`Couples::settle`] from inside the search, each nimber within a
    /// budget of couples: twice what the land's earlier attempts took (at
    /// least a minimum), so that a hard nimber of a small land never holds
    /// the search unbounded, and all attempts together cost at most about
    /// twice the last. A nimber not found adds the couples spent to the
    /// land's `effort`, which the sum's numbers then carry
    /// ([`Couples::sum_numbers`]): the search turns to other children and
    /// comes back with a budget twice as large. `None` when a budget or
    /// the search's limits ran out.
    pub(super) fn settle_in_search(&mut self, ids: &[u32], k: u32) -> Option<Folded> {
        self.settle_within(ids, k, true)
    }

    /// [`Couples::settle`], each nimber within a budget if `budgeted`.
    fn settle_within(&mut self, ids: &[u32], k: u32, budgeted: bool) -> Option<Folded> {
        match self.fold(ids, k) {
            Folded::Sum(mut left, mut x) => {
                left.sort_by_key(|&i| (self.lands[i as usize].size, i));
                let big = left.pop().expect("two lands");
                // The lands are held across searches: pinned.
                let pins = self.pins.len();
                self.pins.push(big);
                self.pins.extend_from_slice(&left);
                let mut settled = Some(());
                for i in left {
                    let outer = self.budget_end;
                    if budgeted {
                        let effort = u64::from(self.lands[i as usize].effort);
                        self.budget_end = outer.min(self.nodes + (2 * effort).max(self.settle_min));
                    }
                    let before = self.nodes;
                    let n = self.land_nimber(i);
                    self.budget_end = outer;
                    match n {
                        Some(n) => x ^= n,
                        None => {
                            if budgeted {
                                // Pinned, so still this land.
                                let spent = u32::try_from(self.nodes - before).unwrap_or(u32::MAX);
                                let info = &mut self.lands[i as usize];
                                info.effort = info.effort.saturating_add(spent);
                                self.settles_cut += 1;
                            }
                            settled = None;
                            break;
                        }
                    }
                }
                self.pins.truncate(pins);
                settled?;
                Some(self.fold(&[big], x))
            }
            f => Some(f),
        }
    }

    /// Whether the innermost budget of [`Couples::settle_in_search`] is
    /// spent.
    pub(super) fn over_budget(&self) -> bool {
        self.nodes >= self.budget_end
    }
}
