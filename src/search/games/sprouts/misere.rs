//! Misère Sprouts: whole positions, by df-pn.
//!
//! Under misère play the lands of a position do not add (a land's nimber
//! says nothing of a sum's misère outcome), so a position is proved whole:
//! it wins when some child loses, and a position with no move wins (who
//! cannot move wins). Every position proved is kept by its exact canonical
//! form; proof and disproof numbers of positions in progress are kept in a
//! bounded table by their 128-bit key (a clash there only misleads the
//! search's choice of line, never a result: results are read from the
//! exact memo). Positions are met in canonical form, lands sorted, so a
//! sum reached by moves in any order is one position.

use super::key_of;
use super::normal::{Options, INF};
use crate::games::sprouts::Position;
use crate::search::dfpn::Stats;
use crate::search::{Limits, ProgressFn, Stop};
use std::collections::HashMap;

/// The misère engine.
pub struct Misere<'a> {
    /// Positions proved: whether the player to move wins.
    proved: HashMap<Position, bool>,
    tt: HashMap<u128, (u32, u32)>,
    tt_cap: usize,
    epsilon: f64,
    limits: Limits,
    nodes: u64,
    depth: u64,
    deepest: u64,
    progress: Option<ProgressFn<'a, Stats>>,
}

impl<'a> Misere<'a> {
    /// An engine with `options`' memory and limits.
    pub fn new(options: &Options) -> Misere<'a> {
        Misere {
            proved: HashMap::new(),
            tt: HashMap::new(),
            tt_cap: (options.memory / 2 / 48).max(1 << 12) as usize,
            epsilon: options.epsilon,
            limits: Limits::new(
                options.memory,
                options.node_limit,
                options.time_limit,
                options.cancel.clone(),
            ),
            nodes: 0,
            depth: 0,
            deepest: 0,
            progress: None,
        }
    }

    /// Calls `f` about once a second with the counters.
    pub fn with_progress(mut self, f: impl FnMut(&Stats) + 'a) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// The counters, as a df-pn search's.
    pub fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes,
            leaf_hits: 0,
            tt_used: self.tt.len() as u64,
            tt_capacity: self.tt_cap as u64,
            // The map's entries at about the bytes each its cap assumes.
            tt_bytes: self.tt.len() as u64 * 48,
            tt_max: self.tt_cap as u64,
            tt_max_bytes: self.tt_cap as u64 * 48,
            threads: 1,
            root_pn: 0,
            root_dn: 0,
            target: 1,
            elapsed: self.limits.elapsed(),
            deepest: self.deepest,
        }
    }

    /// Why the engine stopped, if it has.
    pub fn stop_reason(&self) -> Option<Stop> {
        self.limits.stop()
    }

    /// Every position proved, with whether its mover wins.
    pub fn proved(&self) -> &HashMap<Position, bool> {
        &self.proved
    }

    /// Records a proved position (from a database).
    pub fn add(&mut self, p: Position, wins: bool) {
        self.proved.insert(p, wins);
    }

    /// What is proved of `p`: whether its mover wins (a position with no
    /// move is won by its mover).
    pub fn known(&self, p: &Position) -> Option<bool> {
        if p.is_over() {
            return Some(true);
        }
        self.proved.get(p).copied()
    }

    /// Whether the player to move wins `p` (`None` if stopped first).
    pub fn wins(&mut self, p: &Position) -> Option<bool> {
        if let Some(w) = self.known(p) {
            return Some(w);
        }
        self.mid(p, INF - 1, INF - 1);
        self.known(p)
    }

    fn numbers(&self, p: &Position) -> (u32, u32) {
        match self.known(p) {
            Some(true) => (0, INF),
            Some(false) => (INF, 0),
            None => self.tt.get(&key_of(p)).copied().unwrap_or((1, 1)),
        }
    }

    fn mid(&mut self, p: &Position, th_pn: u32, th_dn: u32) {
        if self.known(p).is_some() || !self.limits.may_expand(self.nodes) {
            return;
        }
        self.nodes += 1;
        if self.nodes & 0x3ff == 0 && self.limits.check() {
            let s = self.stats();
            if let Some(f) = self.progress.as_mut() {
                f(&s);
            }
        }
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let kids = p.children();
        loop {
            let mut sum: u64 = 0;
            let mut best: Option<(usize, u32, u32)> = None;
            let mut dn2 = INF;
            for (c, kid) in kids.iter().enumerate() {
                let (pn, dn) = self.numbers(kid);
                if dn == 0 {
                    self.proved.insert(p.clone(), true);
                    self.tt.remove(&key_of(p));
                    self.depth -= 1;
                    return;
                }
                sum = sum.saturating_add(u64::from(pn));
                match best {
                    Some((_, bpn, bdn)) if (dn, pn) >= (bdn, bpn) => dn2 = dn2.min(dn),
                    _ => {
                        if let Some((_, _, bdn)) = best {
                            dn2 = dn2.min(bdn);
                        }
                        best = Some((c, pn, dn));
                    }
                }
            }
            if sum == 0 {
                self.proved.insert(p.clone(), false);
                self.tt.remove(&key_of(p));
                self.depth -= 1;
                return;
            }
            let (c, cpn, cdn) = best.expect("a position not over has moves");
            let (pn, dn) = (cdn, sum.min(u64::from(INF - 1)) as u32);
            if pn >= th_pn || dn >= th_dn || self.limits.stop().is_some() {
                if self.tt.len() >= self.tt_cap {
                    self.tt.clear();
                }
                self.tt.insert(key_of(p), (pn, dn));
                self.depth -= 1;
                return;
            }
            let c_th_pn =
                (u64::from(th_dn) - u64::from(dn) + u64::from(cpn)).min(u64::from(INF - 1)) as u32;
            let widened = (f64::from(dn2) * (1.0 + self.epsilon)).ceil() as u64 + 1;
            let c_th_dn = widened.min(u64::from(th_pn)).min(u64::from(INF - 1)) as u32;
            self.mid(&kids[c], c_th_pn, c_th_dn);
        }
    }
}
