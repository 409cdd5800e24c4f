//! How Sprouts is searched ([`Engines`]): by its own engines — couples for
//! normal play, df-pn over whole positions for misère — on one thread,
//! with no tables (Sprouts has none); its moves are the positions they
//! lead to, so `--moves` lists its children (Glop's Children tab). Its
//! proof databases hold values, also of a nimber search.

use super::misere::Misere;
use super::normal::{Folded, Normal};
use super::proof;
use super::SproutsSearch;
use crate::error::{Error, ProofFault, Result};
use crate::games::sprouts::Position;
use crate::search::engine::{Answer, Engine as EngineName, Options, SearchOptions, Stats};
use crate::search::leaves::Leaves;
use crate::search::proofdb::{CheckReport, Fact, Kind, Merged, Records};
use crate::search::prover::{Engines, Proved, Prover, Purpose, Setup};
use crate::search::{Bounds, Stop};
use crate::value::Value;
use std::path::PathBuf;

impl Engines for SproutsSearch {
    /// `--engine` and `--threads` are refused unless they name what
    /// Sprouts uses, and tables (Sprouts has none).
    fn refuse(&self, request: &SearchOptions) -> Result<()> {
        if let Some(path) = request.tablebases.first() {
            return Err(Error::LeafTable {
                path: path.clone(),
                reason: "Sprouts has no tables: its positions are searched".into(),
            });
        }
        let own = if self.misere() {
            EngineName::Dfpn
        } else {
            EngineName::Couples
        };
        if request.engine != EngineName::Auto && request.engine != own {
            return Err(Error::SearchOption {
                option: "--engine",
                given: request.engine.name().into(),
                rule: format!(
                    "Sprouts is searched by its own engine ({} for {} play)",
                    own.name(),
                    if self.misere() { "misère" } else { "normal" }
                ),
            });
        }
        if request.threads > 1 {
            return Err(Error::SearchOption {
                option: "--threads",
                given: request.threads.to_string(),
                rule: "Sprouts' engines search on one thread".into(),
            });
        }
        if request.exact {
            return Err(Error::SearchOption {
                option: "--exact",
                given: String::new(),
                rule: "Sprouts' engines prove values only: no distance to the end".into(),
            });
        }
        if request.moves && request.openings.is_some() {
            return Err(Error::SearchOption {
                option: "--moves",
                given: String::new(),
                rule: "lists one position's children: it does not go with --openings".into(),
            });
        }
        Ok(())
    }

    fn kind(&self, _request: &SearchOptions) -> Kind {
        Kind::Values
    }

    /// Normal play's entries are couples, one land and a heap: a position
    /// of one land is one (so a search over ranks saves its tree's proven
    /// root, and the check names its value), a sum of lands is not.
    fn saves_position(&self, _request: &SearchOptions, p: &Position) -> bool {
        self.misere() || p.lands().len() == 1
    }

    fn leaves(&self, _: &SearchOptions, _: &[PathBuf], _: Kind) -> Result<Option<Leaves<Self>>> {
        Ok(None)
    }

    fn successors(
        &self,
        p: &Position,
        stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Option<Vec<Position>> {
        p.children_until(stop)
    }

    /// A Sprouts move is written as the position it leads to.
    fn move_list(
        &self,
        p: &Position,
        stop: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Option<Vec<(String, Position)>> {
        p.children_until(stop)
            .map(|kids| kids.into_iter().map(|c| (c.to_string(), c)).collect())
    }

    fn prover<'a>(&'a self, setup: Setup<'a, Self>) -> Result<Box<dyn Prover<Self> + 'a>> {
        if let Purpose::Check { path, .. } = setup.purpose {
            if setup.kind != Kind::Values {
                return Err(Error::ProofDatabase {
                    path: path.to_path_buf(),
                    fault: ProofFault::OtherKind {
                        found: setup.kind.name(),
                        expected: Kind::Values.name(),
                    },
                });
            }
        }
        let progress = setup.progress;
        let sized;
        let o: &Options = match setup.request.memory {
            None if !self.misere() => {
                sized = Options {
                    memory: normal_memory(self.game().spots()).min(setup.options.memory),
                    ..setup.options.clone()
                };
                &sized
            }
            _ => setup.options,
        };
        let own = if self.misere() {
            let mut m = Misere::new(o).with_progress(progress);
            if let Some((every, mut save)) = setup.snapshots {
                m = m.with_snapshots(every, move |proved| {
                    save(Proved::Records(proof::misere_settled(proved).collect()))
                });
            }
            Own::Misere(m)
        } else {
            let mut n = Normal::new(o).with_progress(progress);
            if let Some((every, mut save)) = setup.snapshots {
                n = n.with_snapshots(every, move |lands| {
                    save(Proved::Records(proof::normal_settled(lands).collect()))
                });
            }
            Own::Normal(n)
        };
        Ok(Box::new(SproutsProver {
            g: self,
            own,
            nimber: setup.request.nimber,
        }))
    }
}

/// Normal play's budget when `--memory` is not given, sized to the start
/// of `spots` spots: 10 MiB up to 18 spots, twice as much for every two
/// more. What the couples engine keeps is proofs and lists of children,
/// both cheap to make again for small games; side by side with SPOTS'
/// df-pn (docs/SPROUTS-MEMORY.md) this keeps 8 to 18 spots within its
/// peak at 0.21–0.52× its CPU, where 1 GiB took up to 9× its memory for a
/// quarter less CPU. (20 MiB from 17 spots on took 1.03× and 1.19× its
/// peak on 17 and 18 for no less CPU.)
fn normal_memory(spots: u32) -> u64 {
    let doublings = spots.saturating_sub(17) / 2;
    (10u64 << 20) << doublings.min(10)
}

/// Either engine.
enum Own<'a> {
    Normal(Normal<'a>),
    Misere(Misere<'a>),
}

/// Sprouts' engine, with what the run asks of it.
struct SproutsProver<'a> {
    g: &'a SproutsSearch,
    own: Own<'a>,
    /// Nimbers asked for (normal play).
    nimber: bool,
}

impl SproutsProver<'_> {
    /// Whether the mover wins `p`, proving it if need be.
    fn wins(&mut self, p: &Position) -> Option<bool> {
        match &mut self.own {
            Own::Normal(e) => e.wins(p),
            Own::Misere(e) => e.wins(p),
        }
    }

    /// Whether the mover wins `p`, if already proved (no search).
    fn knows(&mut self, p: &Position) -> Option<bool> {
        match &mut self.own {
            Own::Normal(e) => {
                let ids: Vec<u32> = p.lands().iter().map(|l| e.id(l)).collect();
                match e.fold(&ids, p.heap()) {
                    Folded::Heap(x) => Some(x != 0),
                    Folded::Couple(l, k) => e.known(l, k),
                    Folded::Sum(..) => None,
                }
            }
            Own::Misere(e) => e.known(p),
        }
    }

    /// The answer for root `p`: its nimber when asked (normal play), else
    /// 1 for a win and 0 for a loss; `None` once the search is stopped. A
    /// search that returns unproven with no limit reached has seen its
    /// root's numbers reach their threshold (sums saturate below infinity:
    /// a heap of 4·10⁹ did it before heaps were bounded): it is searched
    /// again until proved or stopped, so that an unproven result always
    /// says what stopped it.
    fn answer_of(&mut self, p: &Position) -> Option<u32> {
        loop {
            let found = match (self.nimber, &mut self.own) {
                (true, Own::Normal(n)) => n.nimber(p),
                _ => self.wins(p).map(u32::from),
            };
            if found.is_some() || self.stop_reason().is_some() {
                return found;
            }
        }
    }
}

impl Prover<SproutsSearch> for SproutsProver<'_> {
    fn engine(&self) -> Option<EngineName> {
        None
    }

    fn prove(&mut self, p: &Position) -> Answer {
        let found = self.answer_of(p);
        if self.nimber && matches!(self.own, Own::Normal(_)) {
            return Answer::Nimber(found);
        }
        let bounds = match found {
            Some(1) => Bounds::exact(Value::Win),
            Some(_) => Bounds::exact(Value::Lose),
            None => Bounds::UNKNOWN,
        };
        // A winning move: a child proved lost for its mover.
        let best_move = if bounds.value() == Some(Value::Win) {
            p.children()
                .into_iter()
                .find(|c| self.knows(c) == Some(false))
                .map(|c| c.to_string())
        } else {
            None
        };
        Answer::Value { bounds, best_move }
    }

    fn stats(&self) -> Stats {
        match &self.own {
            Own::Normal(e) => e.stats(),
            Own::Misere(e) => e.stats(),
        }
    }

    fn stop_reason(&self) -> Option<Stop> {
        match &self.own {
            Own::Normal(e) => e.stop_reason(),
            Own::Misere(e) => e.stop_reason(),
        }
    }

    fn renew(&mut self, nodes: Option<u64>, time: Option<std::time::Duration>) -> bool {
        match &mut self.own {
            Own::Normal(e) => e.renew(nodes, time),
            Own::Misere(e) => e.renew(nodes, time),
        }
        true
    }

    /// A win or a loss another rank proved: the misère engine keeps the
    /// position, the normal one its couple (see
    /// [`crate::search::couples::Couples::learn`]).
    fn learn(&mut self, _: u128, p: &Position, bounds: Bounds) {
        let Some(v) = bounds.value() else { return };
        let wins = v == Value::Win;
        match &mut self.own {
            Own::Normal(e) => e.learn(p.lands(), p.heap(), wins),
            Own::Misere(e) => e.add(p.clone(), wins),
        }
    }

    fn load(
        &mut self,
        db: &Merged<SproutsSearch>,
        trust: bool,
        stop: &dyn Fn() -> bool,
    ) -> Result<CheckReport> {
        let g = self.g;
        match (&mut self.own, trust) {
            (Own::Normal(n), true) => Ok(proof::trust_normal(db, n)),
            (Own::Misere(m), true) => Ok(proof::trust_misere(db, m)),
            (Own::Normal(n), false) => proof::verify_normal(g, db, n, stop),
            (Own::Misere(m), false) => proof::verify_misere(g, db, m, stop),
        }
    }

    /// The entries the engine does not know once a stopped load is over.
    fn carried(
        &mut self,
        db: &Merged<SproutsSearch>,
        report: &CheckReport,
    ) -> Records<SproutsSearch> {
        if report.unchecked == 0 {
            return Vec::new();
        }
        db.records()
            .iter()
            .filter(|r| self.knows(&r.pos).is_none())
            .cloned()
            .collect()
    }

    fn known(&mut self, p: &Position) -> Option<Fact> {
        self.knows(p)
            .map(|w| Fact::Value(Bounds::exact(if w { Value::Win } else { Value::Lose })))
    }

    /// Stopped: everything settled, for the next run to resume from
    /// (`--load`), as Glop's saved databases are. Else the proof of every
    /// root proved (its children's too, with `--moves`): what checks the
    /// result, and nothing more.
    fn proved(self: Box<Self>, proven: &[Position], stopped: bool) -> Proved<SproutsSearch> {
        Proved::Records(match (&self.own, stopped) {
            (Own::Normal(n), true) => proof::normal_settled(n.lands()).collect(),
            (Own::Misere(m), true) => proof::misere_settled(m.proved()).collect(),
            (Own::Normal(n), false) => proof::normal_records(n, proven),
            (Own::Misere(m), false) => proof::misere_records(m, proven),
        })
    }
}
