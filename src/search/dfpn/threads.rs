//! Several threads on one question, as in Kaneko's parallel df-pn (AAAI
//! 2010): each runs the whole df-pn from the root on the one shared table,
//! and they spread over the tree by **virtual proof numbers**. Each node
//! counts the threads working below it (a small hashed array of counters,
//! raised when a thread expands the node and lowered when it leaves); a
//! thread choosing a child sees the δ of a child that `b` other threads
//! are in as δ·(1 + b), the work it expects them to add, so it takes the
//! next child unless the busy one is still far better. A thread also
//! re-reads its children's entries each time it comes back to a node, so
//! what the others proved meanwhile is used at once.
//!
//! Kaneko's scheme was chosen over Pawlewicz and Hayward's scalable df-pn
//! (SPDFPN), which keeps a tree of jobs at the root and hands its
//! most-proving leaves to the threads under a work budget: it needs a
//! second search structure and a scheduler above the table, while this one
//! is the serial search plus a counter per node, with nothing that can go
//! wrong when the table replaces entries.
//!
//! Here: starting the threads of one question ([`Dfpn`]'s `crew_search`)
//! and what they share besides the table ([`Crew`]: the node budget, the
//! stop, the counters per node).

use super::worker::Worker;
use super::{Dfpn, BIG};
use crate::search::engine::Stats;
use crate::search::tt::Shared;
use crate::search::{Key, Limits, SearchGame, Stop};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// Nodes a thread takes at a time from a shared node budget: enough that
/// the threads rarely meet on the counter, and the budget stays exact (a
/// thread expands all it took unless the search ends first, when it gives
/// the rest back).
pub(super) const NODE_CHUNK: u64 = 256;

/// Counters of threads per node, hashed: a collision only makes one node
/// look busier than it is.
const BUSY_SLOTS: usize = 1 << 16;

impl<G: SearchGame> Dfpn<'_, G> {
    /// One question at the root searched by all the threads on the shared
    /// table, until one of them answers it or the search stops.
    pub(super) fn crew_search(&mut self, root: &G::Pos, key: G::Key, k: i8) -> (u32, u32) {
        let threads = self.options.threads;
        let busy = self
            .busy
            .get_or_insert_with(|| (0..BUSY_SLOTS).map(|_| AtomicU32::new(0)).collect());
        let crew = Crew {
            left: AtomicU64::new(self.limits.nodes_left(self.stats.nodes)),
            out_of_nodes: AtomicBool::new(false),
            expanded: AtomicU64::new(0),
            base_nodes: self.stats.nodes,
            stop: AtomicU8::new(0),
            done: AtomicBool::new(false),
            grow: AtomicBool::new(false),
            busy,
        };
        // A helper's line may take its share of the path's budget; one that
        // gets deeper leaves the search to the others (the main thread's
        // line alone may stop the search for depth, as without threads).
        let share = self.limits.path_budget() / threads as u64;
        let helper_limits: Vec<Limits> = (1..threads).map(|_| self.limits.helper(share)).collect();
        let (game, known, leaves, epsilon) = (
            self.game,
            &self.known,
            self.leaves,
            self.options.dfpn.epsilon,
        );
        let table = &self.table;
        let (limits, spare) = (&mut self.limits, &mut self.spare);
        let (progress, snapshots) = (self.progress.as_deref_mut(), self.snapshots.as_mut());
        let watch = self.watcher.as_mut();
        let crew = &crew;
        let (main, helpers) = std::thread::scope(|s| {
            let handles: Vec<_> = helper_limits
                .into_iter()
                .map(|mut limits| {
                    s.spawn(move || {
                        let mut stats = Stats::default();
                        let mut spare = Vec::new();
                        let mut w = Worker {
                            game,
                            known,
                            leaves,
                            epsilon,
                            tt: Shared::new(table, &crew.grow),
                            limits: &mut limits,
                            stats: &mut stats,
                            spare: &mut spare,
                            crew: Some(crew),
                            allowance: 0,
                            main: false,
                            yield_at: None,
                            yielded: false,
                            progress: None,
                            snapshots: None,
                            watch: None,
                            publish_due: false,
                        };
                        let r = w.crew_loop(root, key, k);
                        crew.give_back(w.allowance);
                        drop(w);
                        (r, stats)
                    })
                })
                .collect();
            // The main thread's counters are its own, but its progress
            // reports name the question and the threads as the search's do.
            let mut stats = Stats {
                target: k,
                threads,
                ..Stats::default()
            };
            let mut w = Worker {
                game,
                known,
                leaves,
                epsilon,
                tt: Shared::new(table, &crew.grow),
                limits,
                stats: &mut stats,
                spare,
                crew: Some(crew),
                allowance: 0,
                main: true,
                yield_at: None,
                yielded: false,
                progress,
                snapshots,
                watch,
                publish_due: false,
            };
            let r = w.crew_loop(root, key, k);
            crew.give_back(w.allowance);
            drop(w);
            let helpers: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect();
            ((r, stats), helpers)
        });
        let mut r = main.0;
        for (hr, st) in std::iter::once(main).chain(helpers) {
            self.stats.nodes += st.nodes;
            self.stats.leaf_hits += st.leaf_hits;
            self.stats.deepest = self.stats.deepest.max(st.deepest);
            if hr.0 == 0 || hr.1 == 0 {
                r = hr;
            }
        }
        if let Some(why) = crew.stopped() {
            self.limits.set_stop(why);
        }
        if crew.out_of_nodes.load(Ordering::Relaxed) {
            self.limits.set_stop(Stop::Nodes);
        }
        r
    }
}

/// What the threads of one question share besides the table.
pub(super) struct Crew<'b> {
    /// Nodes they may still take from the budget (`u64::MAX`: no budget).
    left: AtomicU64,
    /// A thread found the budget spent.
    pub(super) out_of_nodes: AtomicBool,
    /// Nodes expanded, added by each thread every 1,024 (progress only).
    pub(super) expanded: AtomicU64,
    /// Nodes the search had expanded before the threads started.
    pub(super) base_nodes: u64,
    /// Why every thread stops ([`stop_code`]; 0 while none).
    stop: AtomicU8,
    /// The question is answered.
    pub(super) done: AtomicBool,
    /// A thread asks for the table to be doubled.
    grow: AtomicBool,
    /// Threads in each node, by [`busy_slot`].
    busy: &'b [AtomicU32],
}

impl Crew<'_> {
    #[inline]
    pub(super) fn halted(&self) -> bool {
        self.done.load(Ordering::Relaxed) || self.stop.load(Ordering::Relaxed) != 0
    }

    /// Stops every thread for `why` (the first reason stays).
    pub(super) fn halt(&self, why: Stop) {
        let _ = self
            .stop
            .compare_exchange(0, stop_code(why), Ordering::Relaxed, Ordering::Relaxed);
    }

    fn stopped(&self) -> Option<Stop> {
        match self.stop.load(Ordering::Relaxed) {
            1 => Some(Stop::Time),
            2 => Some(Stop::Requested),
            3 => Some(Stop::Depth),
            4 => Some(Stop::Memory),
            _ => None,
        }
    }

    /// Up to `want` nodes from the budget (all of them if there is none).
    pub(super) fn take(&self, want: u64) -> u64 {
        let mut left = self.left.load(Ordering::Relaxed);
        loop {
            if left == u64::MAX {
                return want;
            }
            let n = want.min(left);
            if n == 0 {
                return 0;
            }
            match self.left.compare_exchange_weak(
                left,
                left - n,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return n,
                Err(now) => left = now,
            }
        }
    }

    /// Returns nodes taken and not expanded.
    fn give_back(&self, n: u64) {
        if n > 0 && self.left.load(Ordering::Relaxed) != u64::MAX {
            self.left.fetch_add(n, Ordering::Relaxed);
        }
    }

    #[inline]
    pub(super) fn enter<K: Key>(&self, key: &K) {
        self.busy[busy_slot(key)].fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    pub(super) fn leave<K: Key>(&self, key: &K) {
        self.busy[busy_slot(key)].fetch_sub(1, Ordering::Relaxed);
    }

    /// The δ a thread choosing a child sees: δ·(1 + b) for a child `b`
    /// other threads are in (Kaneko's virtual proof numbers), a proof's
    /// numbers unchanged.
    #[inline]
    pub(super) fn virtual_delta<K: Key>(&self, key: &K, delta: u32) -> u32 {
        let b = self.busy[busy_slot(key)].load(Ordering::Relaxed);
        if b == 0 || delta == 0 || delta >= BIG {
            delta
        } else {
            (u64::from(delta) * (1 + u64::from(b))).min(u64::from(BIG)) as u32
        }
    }
}

/// The slot of a node's thread counter: bits of its hash the table's bucket
/// index does not use first.
#[inline]
fn busy_slot<K: Key>(key: &K) -> usize {
    (key.hash64() >> 48) as usize & (BUSY_SLOTS - 1)
}

fn stop_code(why: Stop) -> u8 {
    match why {
        Stop::Time => 1,
        Stop::Requested => 2,
        Stop::Depth => 3,
        Stop::Memory => 4,
        // Each thread runs out of nodes on its own.
        Stop::Nodes => 0,
    }
}
