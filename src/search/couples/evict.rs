//! Keeping the lands within their share of `--memory`: when they fill it,
//! the engine keeps half, first those the search is in (its path and their
//! children, which it holds by number), then those whose nimber it proved,
//! then those with proved wins, then those a table answers, then the rest,
//! each class most recently used first. A land forgotten is met again as a
//! new land and its couples proved again: only time is lost, never a value.

use super::{Couples, LandInfo, Lands, EVICT_MARGIN, NONE};
use std::cell::Cell;

impl<L: Lands> Couples<'_, L> {
    /// Lands short of the cap at which to evict.
    pub(super) fn margin(&self) -> usize {
        EVICT_MARGIN.min(self.lands_cap / 4)
    }

    /// Evicts, if full, from outside a search (no number is held then).
    pub(super) fn evict_outside(&mut self) {
        if self.frames.is_empty()
            && self.pins.is_empty()
            && self.ids.len() + self.margin() >= self.lands_cap
        {
            self.evict();
        }
    }

    /// Past the lands' share: keeps about half, by class then by last use,
    /// and every land the search holds; forgets the rest with their
    /// couples in progress and the children kept that name them. Called
    /// only where every number the search holds is in `pins` or `frames`.
    pub(super) fn evict(&mut self) {
        let mut pinned = vec![false; self.lands.len()];
        for &i in &self.pins {
            pinned[i as usize] = true;
        }
        for (l, kids) in &self.frames {
            pinned[*l as usize] = true;
            for i in kids.ids.iter().map(Cell::get).filter(|&i| i != NONE) {
                pinned[i as usize] = true;
            }
        }
        // The threshold by a histogram of (class, age bucket): no copy of
        // the lands is sorted.
        let oldest = self
            .lands
            .iter()
            .filter(|i| i.live)
            .map(|i| i.used)
            .min()
            .unwrap_or(0);
        let span = u64::from(self.clock - oldest) + 1;
        const AGES: u64 = 1024;
        let bucket = |info: &LandInfo<L::Land>| -> usize {
            let age = u64::from(info.used - oldest) * AGES / span;
            (u64::from(info.class()) * AGES + age) as usize
        };
        let mut hist = vec![0usize; 4 * AGES as usize];
        for (i, info) in self.lands.iter().enumerate() {
            if info.live && !pinned[i] {
                hist[bucket(info)] += 1;
            }
        }
        // Keep the best buckets up to half the cap (pinned lands on top).
        let held = pinned.iter().filter(|&&p| p).count();
        let budget = (self.lands_cap / 2).saturating_sub(held);
        let mut kept = 0usize;
        let mut cut = hist.len();
        while cut > 0 && kept + hist[cut - 1] <= budget {
            cut -= 1;
            kept += hist[cut];
        }
        self.ids.clear();
        for (i, info) in self.lands.iter_mut().enumerate() {
            if !info.live || pinned[i] || bucket(info) >= cut {
                continue;
            } else {
                info.live = false;
                info.nimber = None;
                info.wins = 0;
                info.more_wins = None;
                self.free.push(i as u32);
                self.evicted += 1;
            }
        }
        for i in 0..self.lands.len() {
            if self.lands[i].live {
                self.ids.insert(&self.lands, i as u32);
            }
        }
        let lands = &self.lands;
        self.tt.retain(|&key, _| lands[(key >> 32) as usize].live);
        // Children kept are kept by their land's number, and name their
        // lands by number: those of a land forgotten go, the others forget
        // the numbers of lands forgotten (the lists the frames hold name
        // only pinned lands).
        self.kids.retain(
            |&l, kids| {
                for id in kids.ids.iter() {
                    if id.get() != NONE && !lands[id.get() as usize].live {
                        id.set(NONE);
                    }
                }
                lands[l as usize].live
            },
            |kids| kids.bytes(),
        );
    }
}
