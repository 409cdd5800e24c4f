//! `retrograde search sprouts:...`: the run of [`crate::search::run`] with
//! Sprouts' own engines. The options mean what they mean for every game
//! (memory, limits, openings, proof databases), and `moves` lists the
//! position's children with their values (Glop's Children tab). Tables do
//! not apply: Sprouts has none.

use super::misere::Misere;
use super::normal::{self, Folded, Normal};
use super::proof;
use super::SproutsSearch;
use crate::error::{Error, Result};
use crate::games::sprouts::Position;
use crate::search::proofdb::{self, Fact, Kind, Record};
use crate::search::run::{
    carry_while_loading, prepare, save, save_snapshot, save_target, too_many_openings,
    with_carried, Answer, CheckOutcome, Counters, Engine as SearchEngine, Loaded, Notice, Observer,
    SearchOptions, SearchReport, Searched, MAX_OPENINGS,
};
use crate::search::{Bounds, Limits, SearchGame, Stop};
use crate::value::Value;
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// Either engine.
enum Engine<'a> {
    Normal(Normal<'a>),
    Misere(Misere<'a>),
}

impl Engine<'_> {
    fn stats(&self) -> crate::search::dfpn::Stats {
        match self {
            Engine::Normal(e) => e.stats(),
            Engine::Misere(e) => e.stats(),
        }
    }

    fn stop_reason(&self) -> Option<Stop> {
        match self {
            Engine::Normal(e) => e.stop_reason(),
            Engine::Misere(e) => e.stop_reason(),
        }
    }

    /// Whether the mover wins `p`, proving it if need be.
    fn wins(&mut self, p: &Position) -> Option<bool> {
        match self {
            Engine::Normal(e) => e.wins(p),
            Engine::Misere(e) => e.wins(p),
        }
    }

    /// Whether the mover wins `p`, if already proved (no search).
    fn known(&mut self, p: &Position) -> Option<bool> {
        match self {
            Engine::Normal(e) => {
                let ids: Vec<u32> = p.lands().iter().map(|l| e.id(l)).collect();
                match e.fold(&ids, p.heap()) {
                    Folded::Heap(x) => Some(x != 0),
                    Folded::Couple(l, k) => e.known(l, k),
                    Folded::Sum(..) => None,
                }
            }
            Engine::Misere(e) => e.known(p),
        }
    }
}

/// The engine for `g` with the run's limits.
fn engine<'a>(
    g: &SproutsSearch,
    o: &crate::search::dfpn::Options,
    observer: &'a dyn Observer,
) -> Engine<'a> {
    let opts = normal::Options::from(o);
    if g.misere() {
        Engine::Misere(Misere::new(&opts).with_progress(move |s| observer.values(s)))
    } else {
        Engine::Normal(Normal::new(&opts).with_progress(move |s| observer.values(s)))
    }
}

/// Runs a search of Sprouts as `options` say (see [`crate::search::run::run`]).
pub fn run(
    g: &SproutsSearch,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<SearchReport> {
    no_tables(options)?;
    own_engines(g, options)?;
    if options.moves && options.openings.is_some() {
        return Err(Error::SearchOption {
            option: "--moves",
            given: String::new(),
            rule: "lists one position's children: it does not go with --openings".into(),
        });
    }
    let begun = Instant::now();
    let (root, mut o) = prepare(g, options)?;
    // The periodic saves and the last one share the target.
    let target = RefCell::new(save_target(options, observer)?);
    observer.started();
    let mut roots = vec![root.clone()];
    // The positions listed are made within the run's limits: one position
    // can have very many children.
    let mut limits = Limits::new(o.memory, o.node_limit, o.time_limit, o.cancel.clone());
    let listed = if options.moves {
        root.children_until(&mut |r, b| limits.generation_stops(0, r, b))
            .map(|kids| roots.extend(kids))
    } else if let Some(k) = options.openings {
        openings(&root, k, &mut limits)?.map(|r| roots = r)
    } else {
        Some(())
    };
    if listed.is_none() {
        return Ok(SearchReport {
            engine: None,
            game: g.spec(),
            kind: Kind::Values,
            openings: true,
            results: Vec::new(),
            proven: false,
            stopped: Some(limits.stop().unwrap_or(Stop::Requested)),
            counters: Counters::Values(Default::default()),
            elapsed: Default::default(),
            memory: o.memory,
            loaded: None,
            saved: None,
        });
    }
    // The time limit bounds the run, the listing of the children or
    // openings included (thousands of positions of hundreds of lands take
    // a good part of a second): what is left of it bounds the search.
    o.time_limit = o.time_limit.map(|t| {
        t.saturating_sub(begun.elapsed())
            .max(std::time::Duration::from_nanos(1))
    });
    // Entries loaded but not re-proved (the load was stopped first): carried
    // into every save as they were read, so that a run stopped while loading
    // loses nothing it was given (the next load re-proves them).
    let carried: RefCell<Vec<Record<Position, u128>>> = RefCell::new(Vec::new());
    let mut e = engine(g, &o, observer);
    if let (Some(every), true) = (options.save_every, target.borrow().is_some()) {
        let (target, carried) = (&target, &carried);
        let snap = move |records: &mut dyn Iterator<Item = Record<Position, u128>>| {
            if let Some(t) = target.borrow_mut().as_mut() {
                let mut records: Vec<_> = records.collect();
                with_carried(g, &mut records, &carried.borrow(), Record::with_fact);
                save_snapshot(g, t, Kind::Values, records.into_iter(), observer);
            }
        };
        e = match e {
            Engine::Normal(n) => Engine::Normal(
                n.with_snapshots(every, move |lands| snap(&mut proof::normal_settled(lands))),
            ),
            Engine::Misere(m) => Engine::Misere(m.with_snapshots(every, move |proved| {
                snap(&mut proof::misere_settled(proved))
            })),
        };
    }
    let loaded = load(g, options, &o, &mut e, observer, &carried)?;
    let started = Instant::now();
    let mut results = Vec::new();
    for p in &roots {
        let t = Instant::now();
        let before = e.stats().nodes;
        let found = answer_of(&mut e, p, options.nimber);
        let answer = match &e {
            Engine::Normal(_) if options.nimber => Answer::Nimber(found),
            _ => {
                let bounds = match found {
                    Some(1) => Bounds::exact(Value::Win),
                    Some(_) => Bounds::exact(Value::Lose),
                    None => Bounds::UNKNOWN,
                };
                let best_move = if bounds.value() == Some(Value::Win) {
                    p.children()
                        .into_iter()
                        .find(|c| e.known(c) == Some(false))
                        .map(|c| c.to_string())
                } else {
                    None
                };
                Answer::Value { bounds, best_move }
            }
        };
        results.push(Searched {
            position: p.to_string(),
            answer,
            nodes: e.stats().nodes - before,
            elapsed: t.elapsed(),
        });
        if e.stop_reason().is_some() {
            break;
        }
    }
    let elapsed = started.elapsed();
    let proven = results.len() == roots.len() && results.iter().all(|r| r.value().is_some());
    let mut report = SearchReport {
        engine: None,
        game: g.spec(),
        kind: Kind::Values,
        openings: options.openings.is_some() || options.moves,
        results,
        proven,
        stopped: e.stop_reason().filter(|_| !proven),
        counters: Counters::Values(e.stats()),
        elapsed,
        memory: o.memory,
        loaded,
        saved: None,
    };
    observer.proven(&report);
    let target = target.borrow_mut().take();
    report.saved = target.map(|t| {
        let records = if report.stopped.is_some() {
            // Stopped: everything settled, for the next run to resume
            // from (`--load`), as Glop's saved databases are.
            match &e {
                Engine::Normal(n) => proof::normal_settled(n.lands()).collect(),
                Engine::Misere(m) => proof::misere_settled(m.proved()).collect(),
            }
        } else {
            // The proof of every root proved (its children's too, with
            // --moves): what checks the result, and nothing more.
            let proved: Vec<Position> = roots
                .iter()
                .zip(&report.results)
                .filter(|(_, r)| r.value().is_some())
                .map(|(p, _)| p.clone())
                .collect();
            match &e {
                Engine::Normal(n) => proof::normal_records(n, &proved),
                Engine::Misere(m) => proof::misere_records(m, &proved),
            }
        };
        let mut records = records;
        if report.stopped.is_some() {
            with_carried(g, &mut records, &carried.borrow(), Record::with_fact);
        }
        save(g, t, Kind::Values, records.into_iter(), observer)
    });
    Ok(report)
}

/// The answer for root `p`: its nimber with `nimber`, else 1 for a win
/// and 0 for a loss; `None` once the search is stopped. A search that
/// returns unproven with no limit reached has seen its root's numbers
/// reach their threshold (sums saturate below infinity: a heap of 4·10⁹
/// did it before heaps were bounded): it is searched again until proved or
/// stopped, so that an unproven result always says what stopped it.
fn answer_of(e: &mut Engine, p: &Position, nimber: bool) -> Option<u32> {
    loop {
        let found = match (nimber, &mut *e) {
            (true, Engine::Normal(n)) => n.nimber(p),
            _ => e.wins(p).map(u32::from),
        };
        if found.is_some() || e.stop_reason().is_some() {
            return found;
        }
    }
}

/// The distinct positions `plies` moves from `root` (those over kept as
/// they are), made within `limits` (`None` once they stop it), at most
/// [`MAX_OPENINGS`].
fn openings(root: &Position, plies: u32, limits: &mut Limits) -> Result<Option<Vec<Position>>> {
    let mut level = vec![root.clone()];
    for ply in 1..=plies {
        // Once every position is over, later plies change nothing.
        if level.iter().all(Position::is_over) {
            break;
        }
        let mut seen = HashSet::new();
        let mut next = Vec::new();
        for p in &level {
            let kids = if p.is_over() {
                vec![p.clone()]
            } else {
                match p.children_until(&mut |r, b| limits.generation_stops(0, r, b)) {
                    Some(kids) => kids,
                    None => return Ok(None),
                }
            };
            for c in kids {
                if seen.insert(c.clone()) {
                    next.push(c);
                }
            }
            if next.len() > MAX_OPENINGS {
                return Err(too_many_openings(plies, ply));
            }
        }
        level = next;
    }
    Ok(Some(level))
}

/// `--engine` and `--threads` are refused unless they name what Sprouts
/// uses: its own engines (couples for normal play, df-pn over whole
/// positions for misère), on one thread.
fn own_engines(g: &SproutsSearch, options: &SearchOptions) -> Result<()> {
    let own = if g.misere() {
        SearchEngine::Dfpn
    } else {
        SearchEngine::Couples
    };
    if options.engine != SearchEngine::Auto && options.engine != own {
        return Err(Error::SearchOption {
            option: "--engine",
            given: options.engine.name().into(),
            rule: format!(
                "Sprouts is searched by its own engine ({} for {} play)",
                own.name(),
                if g.misere() { "misère" } else { "normal" }
            ),
        });
    }
    if options.threads > 1 {
        return Err(Error::SearchOption {
            option: "--threads",
            given: options.threads.to_string(),
            rule: "Sprouts' engines search on one thread".into(),
        });
    }
    Ok(())
}

/// `--tablebase` is refused: Sprouts has no table.
fn no_tables(options: &SearchOptions) -> Result<()> {
    match options.tablebases.first() {
        Some(path) => Err(Error::LeafTable {
            path: path.clone(),
            reason: "Sprouts has no tables: its positions are searched".into(),
        }),
        None => Ok(()),
    }
}

/// `load`: reads, merges and re-proves (or trusts) the databases.
fn load(
    g: &SproutsSearch,
    options: &SearchOptions,
    o: &crate::search::dfpn::Options,
    e: &mut Engine,
    observer: &dyn Observer,
    carried: &RefCell<Vec<Record<Position, u128>>>,
) -> Result<Option<Loaded>> {
    if options.load.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let (_, db) = proofdb::read(g, &options.load, Some(Kind::Values), o.memory)?;
    let deadline = o.time_limit.map(|t| started + t);
    let cancel = o.cancel.clone();
    let stop = move || cancel.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d);
    carry_while_loading(options, &db, carried);
    let report = match (&mut *e, options.trust_load) {
        (Engine::Normal(n), true) => proof::trust_normal(&db, n),
        (Engine::Misere(m), true) => proof::trust_misere(&db, m),
        (Engine::Normal(n), false) => proof::verify_normal(g, &db, n, &stop)?,
        (Engine::Misere(m), false) => proof::verify_misere(g, &db, m, &stop)?,
    };
    *carried.borrow_mut() = db
        .records()
        .iter()
        .filter(|r| report.unchecked > 0 && e.known(&r.pos).is_none())
        .cloned()
        .collect();
    if report.trusted > 0 {
        observer.notice(&Notice::Trusted(report.trusted));
    }
    Ok(Some(Loaded {
        report,
        elapsed: started.elapsed(),
    }))
}

/// Re-proves every entry of `database` and says what it gives the
/// position (see [`crate::search::run::check`]).
pub fn check(
    g: &SproutsSearch,
    database: &Path,
    options: &SearchOptions,
    observer: &dyn Observer,
) -> Result<CheckOutcome> {
    no_tables(options)?;
    own_engines(g, options)?;
    if !options.load.is_empty() || options.save.is_some() || options.openings.is_some() {
        return Err(Error::SearchOption {
            option: "--check",
            given: Error::quote_path(database),
            rule: "re-proves one database: it does not load, save or list openings".into(),
        });
    }
    let (root, o) = prepare(g, options)?;
    observer.started();
    let (kind, db) = proofdb::read(
        g,
        std::slice::from_ref(&database.to_path_buf()),
        None,
        o.memory,
    )?;
    if kind != Kind::Values {
        return Err(Error::ProofDatabase {
            path: database.to_path_buf(),
            fault: crate::error::ProofFault::OtherKind {
                found: kind.name(),
                expected: Kind::Values.name(),
            },
        });
    }
    let started = Instant::now();
    let mut e = engine(g, &o, observer);
    let cancel = o.cancel.clone();
    let stop = move || cancel.is_cancelled();
    let report = match &mut e {
        Engine::Normal(n) => proof::verify_normal(g, &db, n, &stop)?,
        Engine::Misere(m) => proof::verify_misere(g, &db, m, &stop)?,
    };
    let stopped = (report.unchecked > 0).then(|| e.stop_reason().unwrap_or(Stop::Requested));
    // The position's entry, or what the entries re-proved give it.
    let entry = db.fact(&g.key(&root)).or_else(|| {
        e.known(&root)
            .map(|w| Fact::Value(Bounds::exact(if w { Value::Win } else { Value::Lose })))
    });
    Ok(CheckOutcome {
        game: g.spec(),
        position: root.to_string(),
        kind,
        report,
        entries: db.len() as u64,
        entry,
        stopped,
        deepest: e.stats().deepest,
        memory: o.memory,
        elapsed: started.elapsed(),
    })
}
