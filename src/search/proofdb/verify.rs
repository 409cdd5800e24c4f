//! Re-proving what was loaded before a search uses it: a CRC only says
//! the bytes are the ones written, not that what was written is true.
//! [`verify_values`] re-proves each value entry from its children,
//! [`verify_nimbers`] each nimber as the mex of its moves', both visiting
//! entries children first ([`children_first`]); `trust_values` and
//! `trust_nimbers` hand them over unchecked (`search --trust-load`).

use super::{describe, Fact, Kind, Merged};
use crate::search::{Bounds, SearchGame};

/// The result of re-proving a database's entries.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Entries re-proven from their children (those a search may use).
    pub checked: u64,
    /// Children not settled by an entry or the rules, proven by a new search
    /// (values), or components searched (nimbers).
    pub searched: u64,
    /// Entries not re-proven because the run was stopped (a limit, Ctrl-C)
    /// first: unused.
    pub unchecked: u64,
    /// Entries used without being re-proven (`trust_values`,
    /// `trust_nimbers`).
    pub trusted: u64,
    /// Which entries were left unchecked (their indices in the merged
    /// database, [`Merged::records`]): a run carries them into its saves as
    /// they were read ([`Merged::carried`]), so that a run stopped while
    /// re-proving its load loses nothing it was given.
    pub left: Vec<u32>,
}

/// The indices of the entries `done` does not mark.
fn left_of(done: &[bool]) -> Vec<u32> {
    (0..done.len() as u32)
        .filter(|&i| !done[i as usize])
        .collect()
}

/// What loading and re-proving a value database needs of an engine: one
/// question answered about a position, and the entries that hold handed
/// over. df-pn ([`crate::search::dfpn::Dfpn`]) and alpha-beta
/// ([`crate::search::alphabeta::AlphaBeta`]) both serve.
pub trait Decider<G: SearchGame> {
    /// Is the value of `p` for its mover at least `k` (1 win, 0 tie)?
    /// `None` if the engine was stopped first.
    fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool>;
    /// Bounds the engine may use from now on.
    fn add_known(&mut self, key: G::Key, bounds: Bounds);
}

impl<G: SearchGame> Decider<G> for crate::search::dfpn::Dfpn<'_, G> {
    fn decide(&mut self, p: &G::Pos, k: i8) -> Option<bool> {
        crate::search::dfpn::Dfpn::decide(self, p, k)
    }
    fn add_known(&mut self, key: G::Key, bounds: Bounds) {
        crate::search::dfpn::Dfpn::add_known(self, key, bounds)
    }
}

/// Hands every entry to `search` as it is, without re-proving it: for a
/// caller who vouches for the files (`search --trust-load`). A wrong or
/// forged entry then gives wrong answers.
pub(crate) fn trust_values<G: SearchGame>(
    db: &Merged<G>,
    search: &mut impl Decider<G>,
) -> CheckReport {
    for r in &db.records {
        if let Fact::Value(b) = r.fact {
            search.add_known(r.key, b);
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// [`trust_values`] for nimbers.
pub(crate) fn trust_nimbers<G: SearchGame>(
    db: &Merged<G>,
    search: &mut crate::search::nimber::NimberSearch<'_, G>,
) -> CheckReport {
    for r in &db.records {
        if let Fact::Nimber(n) = r.fact {
            search.add_known(r.key, n, r.pos.clone());
        }
    }
    CheckReport {
        trusted: db.len() as u64,
        ..CheckReport::default()
    }
}

/// Re-proves every value entry from its children (Glop's "check
/// computation") and hands each one that holds to `search`, which may use
/// it from then on: a win has a losing child, a loss only winning children,
/// and so on for each bound. A child's value comes from the rules (game
/// over, an immediate win), from what the game knows without search
/// ([`SearchGame::decided`]: a dead board's tie, a win by continuous
/// threats), from an entry already re-proven, or from a new
/// search by `search`, which knows only re-proven entries. Entries are
/// visited children first, so a child's entry is re-proven before its
/// parent needs it and no search repeats what the file holds. Nothing is
/// assumed about the others, so whatever stops the pass (`stop`, a limit of
/// `search`) leaves only re-proven entries in use ([`CheckReport::unchecked`]
/// counts the rest).
///
/// An entry that does not hold refuses the whole database: the error names
/// the position, the files and what fails.
// A search's re-proving of what it loads (`run`), and the tests'
// (through `crate::internal`).
#[doc(hidden)]
pub fn verify_values<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    search: &mut impl Decider<G>,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut done = vec![false; db.len()];
    children_first(game, db, false, |node, proven| {
        if stop() {
            return Ok(false);
        }
        let (i, moves) = (node.at, &node.moves);
        let r = &db.records[i];
        let Fact::Value(b) = r.fact else {
            return Err(db.other_kind(i, Kind::Nimbers, Kind::Values));
        };
        let refuted = |why: String| db.refuted(game, i, describe(r.fact), why);
        if let Some(v) = game.terminal(&r.pos) {
            let s = crate::search::score(v);
            if s < b.lo || s > b.hi {
                return Err(refuted(format!("the game is over with {v}")));
            }
        } else {
            // What the rules or a re-proven entry say of each child.
            let settled: Vec<Option<Bounds>> = moves
                .iter()
                .zip(&node.keys)
                .map(|((_, c), key)| {
                    if let Some(v) = game.terminal(c) {
                        Some(Bounds::exact(v))
                    } else if game.wins_now(c) {
                        Some(Bounds { lo: 1, hi: 1 })
                    } else if let Some(v) = game.decided(c) {
                        // What the game knows without search (a dead
                        // board's tie, a win by threats), as the search
                        // that saved the entry knew it: that child is the
                        // proof's, and searching the others first could
                        // take as long as a new proof.
                        Some(Bounds::exact(v))
                    } else {
                        match proven(key) {
                            Some(Fact::Value(b)) => Some(b),
                            _ => None,
                        }
                    }
                })
                .collect();
            // Does child `j` answer "at least k" with yes?
            let mut at_least = |j: usize, k: i8, report: &mut CheckReport| -> Option<bool> {
                if let Some(kb) = settled[j] {
                    if kb.lo >= k {
                        return Some(true);
                    }
                    if kb.hi < k {
                        return Some(false);
                    }
                }
                report.searched += 1;
                search.decide(&moves[j].1, k)
            };
            // "At least lo": some child answers no to "at least 1 − lo".
            // The children whose answer is known are tried first: searching
            // a child that is not the proof's could take as long as a new
            // proof.
            if b.lo > -1 {
                let k = 1 - b.lo;
                let mut found = settled.iter().any(|s| s.is_some_and(|kb| kb.hi < k));
                if !found {
                    for j in 0..moves.len() {
                        match at_least(j, k, &mut report) {
                            Some(false) => {
                                found = true;
                                break;
                            }
                            Some(true) => {}
                            None => return Ok(false),
                        }
                    }
                }
                if !found {
                    return Err(refuted("no move achieves it".into()));
                }
            }
            // "At most hi": every child answers yes to "at least −hi".
            if b.hi < 1 {
                for (j, (m, _)) in moves.iter().enumerate() {
                    match at_least(j, -b.hi, &mut report) {
                        Some(true) => {}
                        Some(false) => {
                            return Err(refuted(format!(
                                "move {} does better",
                                game.format_move(m)
                            )))
                        }
                        None => return Ok(false),
                    }
                }
            }
        }
        search.add_known(r.key, b);
        done[i] = true;
        report.checked += 1;
        Ok(true)
    })?;
    report.unchecked = db.len() as u64 - report.checked;
    if report.unchecked > 0 {
        report.left = left_of(&done);
    }
    Ok(report)
}

/// Re-proves every nimber entry as the mex of its children's nimbers, each
/// child the nim-sum of its components, each component's nimber from an
/// entry already re-proven or computed by `search` (which knows only
/// re-proven entries), and hands each entry that holds to `search`.
/// Components' entries are visited first. Stopping and refusal as in
/// [`verify_values`].
#[doc(hidden)]
pub fn verify_nimbers<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    search: &mut crate::search::nimber::NimberSearch<'_, G>,
    stop: &dyn Fn() -> bool,
) -> crate::Result<CheckReport> {
    let mut report = CheckReport::default();
    let mut done = vec![false; db.len()];
    let before = search.stats().nodes;
    children_first(game, db, true, |node, proven| {
        if stop() {
            return Ok(false);
        }
        let i = node.at;
        let r = &db.records[i];
        let Fact::Nimber(n) = r.fact else {
            return Err(db.other_kind(i, Kind::Values, Kind::Nimbers));
        };
        let mut seen = Vec::with_capacity(node.parts.len());
        for parts in &node.parts {
            let mut sum = 0;
            for (key, part) in parts {
                sum ^= if game.terminal(part).is_some() {
                    0
                } else if let Some(Fact::Nimber(m)) = proven(key) {
                    m
                } else {
                    match search.nimber(part) {
                        Some(m) => m,
                        None => return Ok(false),
                    }
                };
            }
            seen.push(sum);
        }
        let mex = crate::solve::mex(&mut seen);
        if mex != n {
            return Err(db.refuted(
                game,
                i,
                format!("nimber {n}"),
                format!("its moves give {mex}"),
            ));
        }
        search.add_known(r.key, n, r.pos.clone());
        done[i] = true;
        report.checked += 1;
        Ok(true)
    })?;
    report.searched = search.stats().nodes - before;
    report.unchecked = db.len() as u64 - report.checked;
    if report.unchecked > 0 {
        report.left = left_of(&done);
    }
    Ok(report)
}

/// A record on the walk of [`children_first`]: its moves and, computed once
/// (a key costs a pass over the game's symmetries), what its children are.
struct Node<G: SearchGame> {
    /// The record's index.
    at: usize,
    /// Its moves (none if the game is over).
    moves: Vec<(G::Move, G::Pos)>,
    /// Values: each child's key.
    keys: Vec<G::Key>,
    /// Nimbers: each child's components, with their keys.
    parts: Vec<Vec<(G::Key, G::Pos)>>,
    /// The records among those children (or components).
    below: Vec<u32>,
    next: usize,
}

/// Visits every record of `db` after the records of its children (for
/// nimbers: of its children's components) that are in `db` too, by a
/// depth-first walk on an explicit stack (a long game does not deepen the
/// call stack). `visit` gets the record's [`Node`] and what the records
/// visited so far say of a key (`None` for one not yet visited); it returns
/// whether to go on. Returns whether every record was visited.
fn children_first<G: SearchGame>(
    game: &G,
    db: &Merged<G>,
    nimbers: bool,
    mut visit: impl FnMut(&Node<G>, &dyn Fn(&G::Key) -> Option<Fact>) -> crate::Result<bool>,
) -> crate::Result<bool> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let node = |at: usize| {
        let pos = &db.records[at].pos;
        let moves = if game.terminal(pos).is_some() {
            Vec::new()
        } else {
            game.moves(pos)
        };
        let mut n = Node {
            at,
            moves: Vec::new(),
            keys: Vec::new(),
            parts: Vec::new(),
            below: Vec::new(),
            next: 0,
        };
        for (_, c) in &moves {
            if nimbers {
                let parts: Vec<_> = game
                    .components(c)
                    .into_iter()
                    .map(|p| (game.key(&p), p))
                    .collect();
                n.below
                    .extend(parts.iter().filter_map(|(k, _)| db.index.get(k)));
                n.parts.push(parts);
            } else {
                let key = game.key(c);
                n.below.extend(db.index.get(&key));
                n.keys.push(key);
            }
        }
        n.moves = moves;
        n
    };
    let mut state = vec![NEW; db.records.len()];
    let mut stack = Vec::new();
    for root in 0..db.records.len() {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push(node(root));
        while let Some(top) = stack.last_mut() {
            if let Some(&j) = top.below.get(top.next) {
                top.next += 1;
                if state[j as usize] == NEW {
                    state[j as usize] = OPEN;
                    stack.push(node(j as usize));
                }
                continue;
            }
            let n = stack.pop().expect("a node on the stack");
            let proven = |k: &G::Key| -> Option<Fact> {
                let &j = db.index.get(k)?;
                (state[j as usize] == DONE).then(|| db.records[j as usize].fact)
            };
            if !visit(&n, &proven)? {
                return Ok(false);
            }
            state[n.at] = DONE;
        }
    }
    Ok(true)
}
