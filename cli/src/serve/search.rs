//! A game with no table in the explorer (`serve --search SPEC`): each
//! position's value and its moves' come from the search (the library's
//! [`run`]), under a budget of time and nodes per request, so that a
//! request never runs unbounded. What the budget did not reach is
//! `"unknown"`, and may be left computing: a job per position, on a thread
//! of its own, proves its unsettled moves one after another while the page
//! asks again; a job nobody asks about for a while ([`Keep::abandoned`])
//! is stopped: its page was closed.
//!
//! What any search proved is remembered ([`Known`], bounded in bytes): a
//! later request, from anyone, answers from it at once, and `--save` writes
//! it as a proof database (the search's format, `search --load` reads it);
//! `--load` starts from one, re-proved entry by entry (`search --check`)
//! unless `--trust-load`.
//!
//! The budget's time counts from when a search worker takes the request
//! (the wait in the queue is not the search's) to the answer made, listing
//! the moves included; the search looks at the time before every node.
//! An answer is at most [`MAX_REPLY`] bytes: a position whose children
//! would take more (hundreds of Sprouts lands) is refused with 422 before
//! any child is made, and searched on the command line.
//!
//! The position is read, its moves written and its board drawn by the
//! game's own description (its notation through the search's
//! [`SearchGame`], its board through [`AnyGame::parse_for_view`]), never a
//! second one: nothing here names a game but the Sprouts size check.

use super::{board, Reply};
use retrograde::games::{AnyGame, BoardView};
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Fact, Kind, Record};
use retrograde::search::run::{self, Answer, Quiet, SearchOptions, Searched};
use retrograde::search::watch::{Choice, Colour, Steer};
use retrograde::search::{Bounds, Cancel, SearchGame, Stop};
use retrograde::{Error, Value};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The largest answer: 1 MiB. A position's answer lists each child twice
/// (its move and its position, the same text), so a position of 2,400
/// characters with 1,400 children (170 lands) would take 6.8 MB.
pub const MAX_REPLY: usize = 1 << 20;

/// Bytes a child takes in the answer besides its text (twice): the
/// members' names and values.
const MOVE_BYTES: usize = 160;

/// Memory each search may take, a request's or a job's: the explorer
/// answers many requests at once on a machine doing other work.
pub const MEMORY: u64 = 256 << 20;

/// The most bytes of positions remembered (each counted as its text and
/// [`ENTRY_BYTES`]): past it, new facts are answered but not kept.
pub const KNOWN_BYTES: usize = 64 << 20;

/// What one remembered position takes besides its text: the map's slot,
/// the string's header, the fact.
const ENTRY_BYTES: usize = 64;

/// How often the keeper looks at the jobs (abandoned ones) and the save.
const KEEPER_EVERY: Duration = Duration::from_millis(500);

/// A request's budget.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Seconds of search per request.
    pub time: Duration,
    /// Nodes per request (`None`: only the time bounds it).
    pub nodes: Option<u64>,
}

/// What bounds the jobs, and where what is proven is kept.
#[derive(Clone, Debug)]
pub struct Keep {
    /// Jobs running at once (0: none; a request answers what its budget
    /// proved, as before jobs).
    pub jobs: usize,
    /// Each job's time, at most.
    pub job_time: Duration,
    /// Threads of each job: each settles another move (by its score where
    /// the engine has scores) until none is left.
    pub job_threads: usize,
    /// A job no request has asked about for this long is stopped.
    pub abandoned: Duration,
    /// Proof databases to start from.
    pub load: Vec<PathBuf>,
    /// Take them without re-proving them.
    pub trust_load: bool,
    /// Where to save what is proven: on shutdown and every `save_every`.
    pub save: Option<PathBuf>,
    pub save_every: Duration,
}

impl Default for Keep {
    fn default() -> Keep {
        Keep {
            jobs: 2,
            job_time: Duration::from_secs(600),
            job_threads: 1,
            abandoned: Duration::from_secs(30),
            load: Vec::new(),
            trust_load: false,
            save: None,
            save_every: Duration::from_secs(300),
        }
    }
}

/// What is known of positions, by their search key (the bytes a proof
/// database stores: symmetric positions share one) with a position's text:
/// for the player to move, bounds on the value or the nimber. Only what a
/// search proved (or a checked database held) is here.
#[derive(Default)]
struct Known {
    facts: HashMap<Vec<u8>, Entry>,
    bytes: usize,
    /// Facts learned since the last save.
    dirty: bool,
}

/// One remembered position.
#[derive(Clone)]
struct Entry {
    text: String,
    fact: Fact,
    /// Connect-Four's score (Pons') for the player to move, where the
    /// engine gave it.
    score: Option<i32>,
    /// Plies to the end under perfect play (the tables' remoteness), where
    /// the engine gave it (alpha-beta's scores imply it).
    remoteness: Option<u32>,
    /// Whether every move of the position is known too: a request for it
    /// is answered with no search.
    settled: bool,
}

impl Known {
    fn get(&self, key: &[u8]) -> Option<Fact> {
        self.facts.get(key).map(|e| e.fact)
    }

    fn score(&self, key: &[u8]) -> Option<i32> {
        self.facts.get(key).and_then(|e| e.score)
    }

    fn remoteness(&self, key: &[u8]) -> Option<u32> {
        self.facts.get(key).and_then(|e| e.remoteness)
    }

    /// Adds what `fact` says of the position `text` (key `key`) to what was
    /// known (bounds meet), with its score and remoteness where known.
    fn learn(
        &mut self,
        key: &[u8],
        text: &str,
        fact: Fact,
        score: Option<i32>,
        remoteness: Option<u32>,
    ) {
        let unknown = Fact::Value(Bounds::UNKNOWN);
        if fact == unknown {
            return;
        }
        match self.facts.get_mut(key) {
            Some(e) => {
                if e.score.is_none() && score.is_some() {
                    e.score = score;
                }
                if e.remoteness.is_none() && remoteness.is_some() {
                    e.remoteness = remoteness;
                }
                let f = &mut e.fact;
                let new = match (*f, fact) {
                    (Fact::Value(a), Fact::Value(b)) => {
                        let m = a.meet(b);
                        // Never expected (both were proven); the newer
                        // proof is kept rather than an empty range.
                        Fact::Value(if m.lo > m.hi { b } else { m })
                    }
                    (_, new) => new,
                };
                if new != *f {
                    *f = new;
                    self.dirty = true;
                }
            }
            None => {
                let cost = key.len() + text.len() + ENTRY_BYTES;
                if self.bytes + cost > KNOWN_BYTES {
                    return;
                }
                self.bytes += cost;
                self.facts.insert(
                    key.to_vec(),
                    Entry {
                        text: text.to_string(),
                        fact,
                        score,
                        remoteness,
                        settled: false,
                    },
                );
                self.dirty = true;
            }
        }
    }
}

/// A position left computing.
struct Job {
    cancel: Cancel,
    /// The computing branch of its search, shown and steered by the page.
    branch: retrograde::search::watch::Watch,
    started: Instant,
    /// When a request last asked about it (ms from `started`).
    touched: AtomicU64,
    /// Nodes searched so far (the finished searches' and, as they report,
    /// the running ones').
    nodes: AtomicU64,
    /// Nodes of the job's finished searches.
    done_nodes: AtomicU64,
    done: AtomicBool,
}

impl Job {
    fn touch(&self) {
        let ms = self.started.elapsed().as_millis() as u64;
        self.touched.fetch_max(ms, Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        self.started
            .elapsed()
            .saturating_sub(Duration::from_millis(self.touched.load(Ordering::Relaxed)))
    }

    fn json(&self, position: &str) -> Json {
        json!({
            "position": position,
            "seconds": self.started.elapsed().as_secs_f64(),
            "nodes": self.nodes.load(Ordering::Relaxed),
            "idle": self.idle().as_secs_f64(),
        })
    }
}

/// One searched game being served.
pub struct SearchSource {
    shared: Arc<Shared>,
}

struct Shared {
    game: AnySearch,
    /// The game as drawn, where it has a board.
    view: Option<AnyGame>,
    budget: Budget,
    keep: Keep,
    /// Whether the game is impartial: its positions get nimbers.
    impartial: bool,
    /// Whether the search proves a position's children with it (`moves`):
    /// one search then answers a request; else each move is searched on
    /// its own.
    lists_moves: bool,
    known: Mutex<Known>,
    jobs: Mutex<HashMap<String, Arc<Job>>>,
}

/// A position read: its text and key, and each move.
struct Listed {
    position: String,
    key: Vec<u8>,
    moves: Vec<Move>,
    terminal: Option<Value>,
}

/// A move: its name, its child's text and key, and the child's value if
/// the game is over there.
struct Move {
    name: String,
    child: String,
    key: Vec<u8>,
    terminal: Option<Value>,
}

impl SearchSource {
    /// The game of `spec`: refused with the search's own message if its
    /// search cannot prove it. Returns the source and its start position's
    /// text. A database to load is read (and re-proved unless trusted)
    /// first.
    pub fn open(spec: &str, budget: Budget, keep: Keep) -> anyhow::Result<(SearchSource, String)> {
        let game = AnySearch::parse(spec)?;
        let impartial = retrograde::with_search!(&game, g => g.impartial());
        let canonical = retrograde::with_search!(&game, g => g.spec());
        let view = AnyGame::parse_for_view(&canonical).ok();
        let mut shared = Shared {
            game,
            view,
            budget,
            keep,
            impartial,
            lists_moves: false,
            known: Mutex::new(Known::default()),
            jobs: Mutex::new(HashMap::new()),
        };
        // One node of the start: refuses a game the search cannot take,
        // and tells whether it lists children.
        let quote = Error::quote(spec);
        let one = |moves: bool| {
            let mut o = shared.options(None, Some(1), moves);
            o.time_limit = Some(Duration::from_secs(60));
            run::run(&shared.game, &o, &Quiet)
        };
        let report = match one(true) {
            Ok(r) => {
                shared.lists_moves = true;
                r
            }
            Err(_) => one(false).map_err(|e| anyhow::anyhow!("--search {quote}: {e}"))?,
        };
        let start = report
            .results
            .first()
            .map(|r| r.position.clone())
            .unwrap_or_default();
        for path in &shared.keep.load.clone() {
            shared
                .load(path)
                .map_err(|e| anyhow::anyhow!("--search {quote} --load: {e}"))?;
        }
        shared.known.lock().unwrap().dirty = false;
        let shared = Arc::new(shared);
        let weak = Arc::downgrade(&shared);
        std::thread::Builder::new()
            .name("search-keeper".into())
            .spawn(move || keeper(weak))?;
        Ok((SearchSource { shared }, start))
    }

    /// The game's spec, as the search spells it.
    pub fn spec(&self) -> String {
        retrograde::with_search!(&self.shared.game, g => g.spec())
    }

    /// Whether the game is impartial.
    pub fn impartial(&self) -> bool {
        self.shared.impartial
    }

    /// The names the game gives its pieces, from its board.
    pub fn players(&self, start: &str) -> Json {
        match self.shared.view.as_ref().map(|g| g.view(start)) {
            Some(Ok(v)) if !self.shared.impartial => json!(v.players()),
            _ => Json::Null,
        }
    }

    /// The budget and the jobs' bounds, as `/api/tables/{id}` tells them.
    pub fn budget_json(&self) -> Json {
        let s = &self.shared;
        json!({
            "seconds": s.budget.time.as_secs_f64(),
            "nodes": s.budget.nodes,
            "jobs": s.keep.jobs,
            "job_seconds": s.keep.job_time.as_secs_f64(),
            "job_threads": s.keep.job_threads,
            "abandoned_seconds": s.keep.abandoned.as_secs_f64(),
        })
    }

    /// The jobs running: `/api/tables/{id}/jobs`.
    pub fn jobs_json(&self) -> Json {
        let jobs = self.shared.jobs.lock().unwrap();
        let mut list: Vec<(&String, &Arc<Job>)> = jobs.iter().collect();
        list.sort_by_key(|(_, j)| j.started);
        json!({
            "jobs": list.iter().map(|(p, j)| j.json(p)).collect::<Vec<_>>(),
            "most": self.shared.keep.jobs,
            "known": self.shared.known.lock().unwrap().facts.len(),
        })
    }

    /// Stops the job of position `text`: `/api/tables/{id}/stop?p=TEXT`.
    pub fn stop(&self, text: Option<&str>) -> Reply {
        let position = match self.shared.list(text) {
            Ok(l) => l.position,
            Err(e) => return Reply::error(400, e),
        };
        let job = self.shared.jobs.lock().unwrap().get(&position).cloned();
        if let Some(j) = &job {
            j.cancel.cancel();
        }
        Reply::json(
            200,
            &json!({ "position": position, "stopped": job.is_some() }),
        )
    }

    /// The computing branch of the job of position `text`:
    /// `/api/tables/{id}/branch?p=TEXT` (`running` false and no levels when
    /// no job computes it).
    pub fn branch(&self, text: Option<&str>) -> Reply {
        let position = match self.shared.list(text) {
            Ok(l) => l.position,
            Err(e) => return Reply::error(400, e),
        };
        let job = self.shared.jobs.lock().unwrap().get(&position).cloned();
        let Some(j) = job else {
            return Reply::json(
                200,
                &json!({ "position": position, "running": false, "levels": [] }),
            );
        };
        j.touch();
        let b = j.branch.branch();
        let levels: Vec<Json> = b
            .levels
            .iter()
            .map(|l| {
                json!({
                    "depth": l.depth,
                    "position": l.position,
                    // Decimal text: a JSON number loses 64-bit integers.
                    "id": l.id.to_string(),
                    "children": l.children,
                    "unknown": l.unknown,
                    "current": l.current,
                    "steered": l.steered,
                    "colour": Colour::of(l.unknown).map(Colour::name),
                })
            })
            .collect();
        Reply::json(
            200,
            &json!({
                "position": position,
                "running": !j.done.load(Ordering::Acquire),
                "nodes": b.nodes,
                "published": b.published,
                "levels": levels,
            }),
        )
    }

    /// Asks a level of a job's computing branch to compute a child next:
    /// `POST /api/tables/{id}/steer?p=TEXT&depth=D&level=ID&child=N` (N from
    /// 0), or `&next` (the next unknown child) or `&release` (the engine's
    /// own choice) instead of `child`. The values never depend on it.
    pub fn steer(&self, query: &str) -> Reply {
        let (mut p, mut depth, mut id, mut choice) = (None, None, None, None);
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            let number = || v.parse::<u64>().ok();
            match &*k {
                "p" => p = Some(v.to_string()),
                "depth" => depth = number(),
                "level" => id = number(),
                "child" => choice = number().map(|c| Choice::Child(c as usize)),
                "next" => choice = Some(Choice::Next),
                "release" => choice = Some(Choice::Release),
                _ => return Reply::error(400, format!("unknown parameter {}", Error::quote(&k))),
            }
        }
        let (Some(depth), Some(id), Some(choice)) = (depth, id, choice) else {
            return Reply::error(
                400,
                "steer takes depth=D, level=ID (a level's id) and child=N, next or release",
            );
        };
        let position = match self.shared.list(p.as_deref()) {
            Ok(l) => l.position,
            Err(e) => return Reply::error(400, e),
        };
        let job = self.shared.jobs.lock().unwrap().get(&position).cloned();
        if let Some(j) = &job {
            j.touch();
            j.branch.steer(Steer {
                depth: depth as usize,
                id,
                choice,
            });
        }
        Reply::json(
            200,
            &json!({ "position": position, "steered": job.is_some() }),
        )
    }

    /// Saves what is known to the `--save` file, if one was given: the
    /// entries written.
    pub fn save(&self) -> Option<anyhow::Result<usize>> {
        let path = self.shared.keep.save.clone()?;
        Some(self.shared.save(&path))
    }

    /// Stops every job (the server is shutting down).
    pub fn stop_all(&self) {
        for j in self.shared.jobs.lock().unwrap().values() {
            j.cancel.cancel();
        }
    }

    /// Whether position `text` can be answered at once, from what is known
    /// or while its job runs: then no search worker is needed. The answer,
    /// if so.
    pub fn known(&self, id: &str, text: Option<&str>) -> Option<Reply> {
        let s = &self.shared;
        // The position alone first (its moves may be hundreds of large
        // positions): listed only if it is settled or computing.
        let (position, key) = s.read(text)?;
        let computing = s.jobs.lock().unwrap().contains_key(&position);
        let settled = s
            .known
            .lock()
            .unwrap()
            .facts
            .get(&key)
            .is_some_and(|e| e.settled);
        if !computing && !settled {
            return None;
        }
        if s.too_many_children(text).is_some() {
            return None;
        }
        let listed = s.list(text).ok()?;
        let job = s.jobs.lock().unwrap().get(&listed.position).cloned();
        if let Some(j) = &job {
            j.touch();
        }
        let (answer, settled) = s.answer(id, &listed, None, job.as_deref());
        (settled || job.is_some()).then_some(answer)
    }

    /// A position's value and moves, as a table's position answer: the
    /// same members, with `"unknown"` where nothing proved it yet, and
    /// `search` saying what the search did and whether it goes on.
    /// Stopped early when `cancel` is (the client left).
    pub fn position(&self, id: &str, text: Option<&str>, cancel: &Cancel) -> Reply {
        let s = &self.shared;
        let started = Instant::now();
        if let Some(reply) = s.too_many_children(text) {
            return reply;
        }
        let listing = Instant::now();
        let listed = match s.list(text) {
            Ok(l) => l,
            Err(e) => return Reply::error(400, e),
        };
        let (_, settled) = s.answer(id, &listed, None, None);
        // Listing the moves and answering take about as long each: the
        // search has what is left of the budget after both.
        let listing = listing.elapsed();
        let mut done = Done::default();
        if !settled {
            let time = s.budget.time.saturating_sub(started.elapsed() + listing);
            done = match s.search(&listed, time, s.budget.nodes, MEMORY, cancel, None) {
                Ok(d) => d,
                Err(e) => return Reply::error(500, format!("search {id}: {e}")),
            };
        }
        let job = if s.unsettled(&listed).is_empty() || cancel.is_cancelled() {
            None
        } else {
            Shared::start_job(&self.shared, &listed)
        };
        done.seconds = started.elapsed().as_secs_f64();
        let (reply, _) = s.answer(id, &listed, Some(&done), job.as_deref());
        if reply.body.len() > MAX_REPLY {
            // Not expected (the children were counted first): the bound
            // holds anyway.
            return Reply::error(
                500,
                format!(
                    "search {id}: the answer would take {} bytes, more than {MAX_REPLY}",
                    reply.body.len()
                ),
            );
        }
        reply
    }
}

/// What a request's search did.
#[derive(Default)]
struct Done {
    nodes: u64,
    seconds: f64,
    stopped: Option<Stop>,
}

impl Shared {
    fn options(&self, position: Option<&str>, nodes: Option<u64>, moves: bool) -> SearchOptions {
        SearchOptions {
            position: position.map(str::to_string),
            nimber: self.impartial,
            memory: Some(MEMORY),
            node_limit: nodes,
            time_limit: Some(self.budget.time),
            threads: 1,
            moves,
            ..SearchOptions::default()
        }
    }

    /// The 422 of a Sprouts position whose children would take more than an
    /// answer may, counted from each land's children: no child position is
    /// made. (The one game whose moves can be that many.)
    fn too_many_children(&self, text: Option<&str>) -> Option<Reply> {
        let AnySearch::Sprouts(g) = &self.game else {
            return None;
        };
        let p = match text {
            Some(t) => g.parse_position(t).ok()?,
            None => g.start(),
        };
        let whole = g.format_position(&p).len();
        let each = |len: usize| 2 * len + MOVE_BYTES;
        // Smaller heaps: the same lands.
        let heaps = p.heap() as usize;
        let mut bytes = heaps.saturating_mul(each(whole));
        let mut count = heaps;
        let lands = p.lands();
        for (i, land) in lands.iter().enumerate() {
            if i > 0 && lands[i - 1] == *land {
                continue;
            }
            if bytes > MAX_REPLY {
                break;
            }
            let own = land.to_string().len();
            for child in land.children() {
                let len: usize = child.iter().map(|l| l.to_string().len() + 1).sum();
                bytes = bytes.saturating_add(each(whole - own + len));
                count += 1;
            }
        }
        (bytes > MAX_REPLY).then(|| {
            Reply::error(
                422,
                format!(
                    "the position has {} children or more, which take more than the {} KiB an answer may: search it with `retrograde search {} POSITION --moves`",
                    count,
                    MAX_REPLY >> 10,
                    retrograde::with_search!(&self.game, g => g.spec())
                ),
            )
        })
    }

    /// The position `text` (the start if `None`) read: its text and key.
    fn read(&self, text: Option<&str>) -> Option<(String, Vec<u8>)> {
        retrograde::with_search!(&self.game, g => {
            let p = match text {
                Some(t) => g.parse_position(t).ok()?,
                None => g.start(),
            };
            Some((g.format_position(&p), key_bytes(g, &p)))
        })
    }

    /// The position `text` (the start if `None`) read, and its moves listed.
    fn list(&self, text: Option<&str>) -> Result<Listed, Error> {
        retrograde::with_search!(&self.game, g => {
            let p = match text {
                Some(t) => g.parse_position(t).map_err(|reason| Error::BadPosition {
                    input: t.to_string(),
                    reason,
                })?,
                None => g.start(),
            };
            let terminal = g.terminal(&p);
            let moves = if terminal.is_some() {
                Vec::new()
            } else {
                g.moves(&p)
                    .iter()
                    .map(|(m, c)| Move {
                        name: g.format_move(m),
                        child: g.format_position(c),
                        key: key_bytes(g, c),
                        terminal: g.terminal(c),
                    })
                    .collect()
            };
            Ok(Listed { position: g.format_position(&p), key: key_bytes(g, &p), moves, terminal })
        })
    }

    /// The search key of the position `text`, as a proof database stores
    /// it.
    fn key_of(&self, text: &str) -> Option<Vec<u8>> {
        retrograde::with_search!(&self.game, g => {
            let p = g.parse_position(text).ok()?;
            Some(key_bytes(g, &p))
        })
    }

    /// A child's fact: known, or the game's end.
    fn child_fact(&self, known: &Known, m: &Move) -> Option<Fact> {
        known.get(&m.key).or_else(|| {
            m.terminal.map(|v| {
                if self.impartial {
                    Fact::Nimber(0)
                } else {
                    Fact::Value(Bounds::exact(v))
                }
            })
        })
    }

    /// The moves whose value is not known yet, in the game's order: (index,
    /// child's text).
    fn unsettled(&self, listed: &Listed) -> Vec<(usize, String)> {
        let known = self.known.lock().unwrap();
        listed
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| !matches!(self.child_fact(&known, m), Some(f) if settled(f)))
            .map(|(i, m)| (i, m.child.clone()))
            .collect()
    }

    /// Searches `listed` within `time` and `nodes`: one search of the
    /// position and its children where the search lists them, else each
    /// unsettled child on its own, in the game's order. What is proven is
    /// learned. A job (`job`) counts its nodes as it goes.
    fn search(
        &self,
        listed: &Listed,
        time: Duration,
        nodes: Option<u64>,
        memory: u64,
        cancel: &Cancel,
        job: Option<&Job>,
    ) -> retrograde::Result<Done> {
        let deadline = Instant::now() + time;
        let mut done = Done::default();
        let left = |done: &Done| nodes.map(|n| n.saturating_sub(done.nodes));
        let run_one = |position: &str, moves: bool, done: &mut Done| {
            let mut o = self.options(Some(position), left(done), moves);
            o.memory = Some(memory);
            // A job settles each move by its score where the engine has
            // scores: the distance the page shows comes with the value.
            o.scored = job.is_some();
            // At least a moment: a search with no time is refused.
            o.time_limit = Some(
                deadline
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_millis(1)),
            );
            o.cancel = cancel.clone();
            o.watch = job.map(|j| j.branch.clone());
            let report = match job {
                Some(job) => run::run(
                    &self.game,
                    &o,
                    &Watch {
                        job,
                        base: job.done_nodes.load(Ordering::Relaxed),
                    },
                )?,
                None => run::run(&self.game, &o, &Quiet)?,
            };
            done.nodes += report.stats.nodes;
            if let Some(j) = job {
                j.done_nodes
                    .fetch_add(report.stats.nodes, Ordering::Relaxed);
                j.nodes
                    .fetch_max(j.done_nodes.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            done.stopped = report.stopped;
            let learned: Vec<(Vec<u8>, &Searched, Fact)> = report
                .results
                .iter()
                .filter_map(|r| Some((self.key_of(&r.position)?, r, fact(r)?)))
                .collect();
            let mut known = self.known.lock().unwrap();
            for (key, r, f) in learned {
                known.learn(&key, &r.position, f, r.score, r.remoteness);
            }
            Ok::<_, Error>(())
        };
        if self.lists_moves && job.is_none() {
            run_one(&listed.position, true, &mut done)?;
            return Ok(done);
        }
        // The unsettled moves, in the game's order, taken one at a time by
        // each of the job's threads (a request's search: one thread). A
        // move whose position shares its key with an earlier one's (its
        // mirror image) is settled with it: not searched twice.
        let mut keys = std::collections::HashSet::new();
        let queue = Mutex::new(
            self.unsettled(listed)
                .into_iter()
                .filter(|&(i, _)| keys.insert(listed.moves[i].key.clone()))
                .map(|(_, c)| c)
                .collect::<std::collections::VecDeque<_>>(),
        );
        let threads = job.map_or(1, |_| self.keep.job_threads.max(1));
        let shared = Mutex::new((done, None::<Error>));
        let work = || loop {
            let mut mine = {
                let s = shared.lock().unwrap();
                let d = &s.0;
                if s.1.is_some()
                    || d.stopped.is_some()
                    || cancel.is_cancelled()
                    || Instant::now() >= deadline
                    || left(d) == Some(0)
                {
                    return;
                }
                Done {
                    nodes: d.nodes,
                    ..Done::default()
                }
            };
            let Some(child) = queue.lock().unwrap().pop_front() else {
                return;
            };
            let before = mine.nodes;
            let r = run_one(&child, false, &mut mine);
            let mut s = shared.lock().unwrap();
            s.0.nodes += mine.nodes - before;
            s.0.stopped = s.0.stopped.or(mine.stopped);
            if let Err(e) = r {
                s.1.get_or_insert(e);
            }
        };
        if threads == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(work);
                }
            });
        }
        let (done, error) = shared.into_inner().unwrap();
        match error {
            Some(e) => Err(e),
            None => Ok(done),
        }
    }

    /// Leaves `listed` computing, if no job does yet and the cap leaves
    /// room: its job, if one runs.
    fn start_job(this: &Arc<Shared>, listed: &Listed) -> Option<Arc<Job>> {
        let mut jobs = this.jobs.lock().unwrap();
        if let Some(j) = jobs.get(&listed.position) {
            j.touch();
            return Some(j.clone());
        }
        if jobs.len() >= this.keep.jobs {
            return None;
        }
        let job = Arc::new(Job {
            cancel: Cancel::new(),
            branch: retrograde::search::watch::Watch::new(),
            started: Instant::now(),
            touched: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            done_nodes: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        let position = listed.position.clone();
        let (shared, mine) = (this.clone(), job.clone());
        let spawned = std::thread::Builder::new()
            .name("search-job".into())
            .spawn(move || {
                if let Ok(listed) = shared.list(Some(&position)) {
                    let time = shared.keep.job_time;
                    if let Err(e) =
                        shared.search(&listed, time, None, MEMORY, &mine.cancel, Some(&mine))
                    {
                        eprintln!("retrograde: search job {position}: {e}");
                    }
                }
                mine.done.store(true, Ordering::Release);
                shared.jobs.lock().unwrap().remove(&position);
            });
        if spawned.is_err() {
            return None;
        }
        jobs.insert(listed.position.clone(), job.clone());
        Some(job)
    }

    /// The answer for `listed` from what is known, and whether every move
    /// is settled. `done`: what this request's search did; `job`: the job
    /// left computing it.
    fn answer(
        &self,
        id: &str,
        listed: &Listed,
        done: Option<&Done>,
        job: Option<&Job>,
    ) -> (Reply, bool) {
        let mut known = self.known.lock().unwrap();
        let board: Option<BoardView> = self
            .view
            .as_ref()
            .and_then(|g| g.view(&listed.position).ok());
        let mut moves: Vec<(Option<Fact>, Json)> = listed
            .moves
            .iter()
            .map(|mv| {
                let (m, c) = (&mv.name, &mv.child);
                let child = self.child_fact(&known, mv);
                // The child's fact is for its mover: the move's value is
                // the opposite.
                let value = child.and_then(|f| match f {
                    Fact::Value(b) => b.flip().value(),
                    Fact::Nimber(n) => Some(if n == 0 { Value::Win } else { Value::Lose }),
                });
                let nimber = match child {
                    Some(Fact::Nimber(n)) => Some(n),
                    _ => None,
                };
                // The child's score is its mover's: the move's, the opposite.
                let score = known.score(&mv.key).map(|s| -s);
                // The child's distance to the end is the move's, as the
                // tables count it ("win in 0": the move ends the game);
                // only where a search gave it, never guessed.
                let remoteness = value.and(known.remoteness(&mv.key));
                let j = json!({
                    "move": m,
                    "position": c,
                    "value": value.map_or("unknown", Value::name),
                    "remoteness": remoteness,
                    "nimber": nimber,
                    "score": score,
                    "best": false,
                    "steps": board.as_ref().map_or(&[][..], |b| b.steps(m)),
                });
                (child, j)
            })
            .collect();
        let settled_all = moves.iter().all(|(f, _)| f.is_some_and(settled));
        // The position: what is known of it, met with what its moves say.
        let mut fact = known.get(&listed.key);
        if let Some(v) = listed.terminal {
            fact = Some(if self.impartial {
                Fact::Nimber(0)
            } else {
                Fact::Value(Bounds::exact(v))
            });
        } else if settled_all {
            let nimbers: Option<Vec<u32>> = moves
                .iter()
                .map(|(f, _)| match f {
                    Some(Fact::Nimber(n)) => Some(*n),
                    _ => None,
                })
                .collect();
            fact = Some(match nimbers {
                // The mex of the children's nimbers.
                Some(mut seen) if self.impartial => {
                    seen.sort_unstable();
                    seen.dedup();
                    let mex = seen
                        .iter()
                        .enumerate()
                        .take_while(|(i, &n)| *i as u32 == n)
                        .count();
                    Fact::Nimber(mex as u32)
                }
                // The best of the moves (also where some children's values
                // are known without their nimbers: a loaded database of
                // values).
                _ => {
                    let best = moves
                        .iter()
                        .filter_map(|(f, _)| f.map(|f| -bounds(f).lo))
                        .max()
                        .unwrap_or(-1);
                    Fact::Value(Bounds { lo: best, hi: best })
                }
            });
            // Kept: a later visitor is answered from it at once.
            if let Some(f) = fact {
                known.learn(&listed.key, &listed.position, f, None, None);
                if let Some(e) = known.facts.get_mut(&listed.key) {
                    e.settled = true;
                }
            }
        } else if fact.is_none() && moves.iter().any(|(_, m)| m["value"] == "win") {
            // A win, whose nimber (impartial) is not known yet.
            fact = Some(Fact::Value(Bounds::exact(Value::Win)));
        }
        let value = match fact {
            Some(Fact::Value(b)) => b.value(),
            Some(Fact::Nimber(n)) => Some(if n == 0 { Value::Lose } else { Value::Win }),
            None => None,
        };
        let nimber = match fact {
            Some(Fact::Nimber(n)) => Some(n),
            _ => None,
        };
        // Best first: wins, then what is unknown, then ties, then losses.
        // Only a proved move is best, and only when nothing unknown could
        // be better.
        let rank = |m: &Json| match m["value"].as_str() {
            Some("win") => 0,
            Some("unknown") => 1,
            Some("tie") | Some("draw") => 2,
            _ => 3,
        };
        // Among equals, the higher score (a sooner win, a later loss), then
        // the tables' order of distances: the sooner win or tie, the later
        // loss.
        let distance = |m: &Json| {
            let r = m["remoteness"].as_i64().unwrap_or(0);
            if rank(m) == 3 {
                -r
            } else {
                r
            }
        };
        let order = |m: &Json| (rank(m), -m["score"].as_i64().unwrap_or(0), distance(m));
        moves.sort_by_key(|(_, m)| order(m));
        let best = moves.first().map_or(3, |(_, m)| rank(m));
        let top = moves.first().map(|(_, m)| order(m));
        if best != 1 {
            for (_, m) in &mut moves {
                // As good as the best: its value, score and distance.
                m["best"] = json!(Some(order(m)) == top);
            }
        }
        // The position's distance: what a search gave, else one more than
        // its best move's once every move's is known (a move of unknown
        // distance might be a sooner win).
        let remoteness = match (value, listed.terminal) {
            (None, _) => None,
            (Some(_), Some(_)) => Some(0),
            (Some(_), None) => known.remoteness(&listed.key).or_else(|| {
                let all = settled_all && moves.iter().all(|(_, m)| m["remoteness"].is_u64());
                all.then(|| moves.first())
                    .flatten()
                    .and_then(|(_, m)| m["remoteness"].as_u64())
                    .map(|r| r as u32 + 1)
            }),
        };
        let score = known.score(&listed.key).or_else(|| {
            let all = settled_all && moves.iter().all(|(_, m)| m["score"].is_i64());
            all.then(|| moves.first())
                .flatten()
                .and_then(|(_, m)| m["score"].as_i64())
                .map(|s| s as i32)
        });
        let proven = value.is_some() && settled_all;
        let body = json!({
            "position": listed.position,
            "index": null,
            "to_move": null,
            "value": value.map_or("unknown", Value::name),
            "remoteness": remoteness,
            "nimber": nimber,
            "score": score,
            "primitive": listed.terminal.is_some(),
            "table": id,
            "moves": moves.into_iter().map(|(_, m)| m).collect::<Vec<_>>(),
            "board": board.as_ref().map_or(Json::Null, board::to_json),
            "search": {
                "proven": proven,
                "stopped": done.and_then(|d| d.stopped).filter(|_| !proven).map(Stop::name),
                "nodes": done.map_or(0, |d| d.nodes),
                "seconds": done.map_or(0.0, |d| d.seconds),
                "job": job.filter(|j| !j.done.load(Ordering::Acquire)).map(|j| j.json(&listed.position)),
            },
        });
        (Reply::json(200, &body), proven || settled_all)
    }

    /// What the game's proof databases hold: its engine says (normal-play
    /// Sprouts keeps values, its nimbers' signs; Cram keeps nimbers).
    fn kind(&self) -> Kind {
        let options = self.options(None, None, false);
        retrograde::with_search!(&self.game, g => retrograde::search::prover::Engines::kind(g, &options))
    }

    /// Re-proves (unless trusted) and reads the database at `path` into
    /// what is known.
    fn load(&self, path: &Path) -> anyhow::Result<()> {
        if !self.keep.trust_load {
            let mut o = self.options(None, None, false);
            o.time_limit = None;
            o.memory = None;
            let outcome = run::check(&self.game, path, &o, &Quiet)?;
            if outcome.stopped.is_some() {
                anyhow::bail!(
                    "{}: the re-proving of its entries stopped",
                    Error::quote_path(path)
                );
            }
        }
        retrograde::with_search!(&self.game, g => {
            let (kind, records) = proofdb::load(g, path)?;
            let want = self.kind();
            if kind != want {
                anyhow::bail!(
                    "{} holds {}, and this game is served with {}",
                    Error::quote_path(path),
                    kind.name(),
                    want.name()
                );
            }
            let mut known = self.known.lock().unwrap();
            for r in &records {
                let mut key = Vec::new();
                retrograde::search::Key::write(&r.key, &mut key);
                known.learn(&key, &g.format_position(&r.pos), r.fact, None, None);
            }
        });
        Ok(())
    }

    /// Writes what is known to `path` as a proof database (the search's
    /// save: a temporary file renamed over the last); the entries written.
    fn save(&self, path: &Path) -> anyhow::Result<usize> {
        let facts: Vec<(String, Fact)> = {
            let mut known = self.known.lock().unwrap();
            known.dirty = false;
            known
                .facts
                .values()
                .map(|e| (e.text.clone(), e.fact))
                .collect()
        };
        let kind = self.kind();
        retrograde::with_search!(&self.game, g => {
            let mut records: Vec<_> = facts
                .iter()
                .filter_map(|(t, f)| {
                    // A nimber is kept as its value where the database
                    // holds values; a value without its nimber is not kept
                    // where it holds nimbers.
                    let fact = match (kind, *f) {
                        (Kind::Values, f) => Fact::Value(bounds(f)),
                        (Kind::Nimbers, f @ Fact::Nimber(_)) => f,
                        (Kind::Nimbers, Fact::Value(_)) => return None,
                    };
                    let pos = g.parse_position(t).ok()?;
                    Some(Record { key: g.key(&pos), fact, pos })
                })
                .collect();
            let n = records.len();
            proofdb::save(g, path, kind, &mut records)?;
            Ok(n)
        })
    }
}

/// A job's counters as its searches run (about once a second).
struct Watch<'a> {
    job: &'a Job,
    /// Nodes of the job's searches before this one.
    base: u64,
}

impl run::Observer for Watch<'_> {
    fn progress(&self, stats: &retrograde::search::engine::Stats) {
        // Searches running side by side each report theirs: the count
        // shown only grows.
        self.job
            .nodes
            .fetch_max(self.base + stats.nodes, Ordering::Relaxed);
    }
}

/// A position's search key, as a proof database stores it.
fn key_bytes<G: SearchGame>(g: &G, p: &G::Pos) -> Vec<u8> {
    let mut k = Vec::new();
    retrograde::search::Key::write(&g.key(p), &mut k);
    k
}

/// A searched position's fact, if it proved anything.
fn fact(s: &Searched) -> Option<Fact> {
    match s.answer {
        Answer::Nimber(n) => n.map(Fact::Nimber),
        Answer::Value { bounds, .. } => (bounds != Bounds::UNKNOWN).then_some(Fact::Value(bounds)),
    }
}

/// A fact as bounds on the value for the player to move (a nimber: 0
/// loses, any other wins).
fn bounds(f: Fact) -> Bounds {
    match f {
        Fact::Value(b) => b,
        Fact::Nimber(0) => Bounds::exact(Value::Lose),
        Fact::Nimber(_) => Bounds::exact(Value::Win),
    }
}

/// Whether a fact settles a move's value.
fn settled(f: Fact) -> bool {
    match f {
        Fact::Value(b) => b.value().is_some(),
        Fact::Nimber(_) => true,
    }
}

/// Stops the jobs nobody asks about, and saves now and then, while the
/// game is served.
fn keeper(shared: Weak<Shared>) {
    let mut saved = Instant::now();
    loop {
        std::thread::sleep(KEEPER_EVERY);
        let Some(s) = shared.upgrade() else { return };
        for j in s.jobs.lock().unwrap().values() {
            if j.idle() >= s.keep.abandoned {
                j.cancel.cancel();
            }
        }
        if let Some(path) = &s.keep.save {
            if saved.elapsed() >= s.keep.save_every && s.known.lock().unwrap().dirty {
                saved = Instant::now();
                if let Err(e) = s.save(path) {
                    eprintln!("retrograde: warning: cannot save {}: {e}", path.display());
                }
            }
        }
    }
}
