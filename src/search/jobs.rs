//! Job-level proof-number search: a proof-number tree near the root whose
//! leaves are proved as jobs by the game's own engine (df-pn, alpha-beta,
//! couples), each within a budget of nodes or time — the shape of Wu et
//! al.'s job-level proof-number search and of SPOTS' PNS-PDFPN. This
//! module holds what does not depend on how jobs travel: the master's tree
//! ([`Master`]), the runner of one job ([`JobRunner`]) and [`search_alone`],
//! which runs every job in this process (what `search --mpi` does with one
//! rank); `super::ranks` (feature `mpi`) hands the jobs to MPI ranks.
//!
//! The tree's nodes hold [`Bounds`] on their value for the player to move,
//! from the rules (a game-over position), from a job, or backed up from
//! their children by negamax (`lo = max(-child.hi)`, `hi = max(-child.lo)`),
//! so the root's value is exactly what the jobs proved: it never depends
//! on the order the jobs came back in, so not on the number of ranks. The
//! proof and disproof numbers only choose which leaf is proved next. As df-pn
//! does with ties, the master asks one question at a time of the root: "is
//! its value at least `t`?", first `t = 1` (a win), then, once disproved,
//! `t = 0` (not a loss). A node asked "at least `t`?" holds when some child
//! fails "at least `1 - t`?", so a node's proof number is the least of its
//! children's disproof numbers and its disproof number their sum.
//!
//! A job whose budget ran out before it decided the question is not
//! wasted: each rank proves all its jobs with one engine ([`JobRunner`]),
//! whose table keeps what the job learnt. The master sends such a job back
//! to the same engine with its budget doubled while no other worker waits
//! for one, else expands that leaf one ply (the game's own moves) and its
//! children become leaves (the master remembers every job's answer by the
//! position's key, so a transposition of a failed job is expanded too).
//! Each node keeps its numbers, updated along the path of an answer or an
//! expansion, so a job is chosen by walking one path.

use super::engine::{Answer, Notice, Options, SearchOptions, Stats};
use super::leaves::Leaves;
use super::proofdb::{self, Fact, Kind, Record, Records};
use super::prover::{Engines, Proved, Prover, Purpose, Setup};
use super::{Bounds, SearchGame};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What each job may spend: nodes of the engine, or time, or both (the
/// first reached ends it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobBudget {
    /// Nodes one job may expand.
    pub nodes: Option<u64>,
    /// Time one job may take.
    pub time: Option<Duration>,
}

impl JobBudget {
    /// Nodes per job when neither is given: a df-pn job of 100,000 nodes
    /// takes about a tenth of a second to a second, long beside a message
    /// (microseconds) and short beside a search worth spreading.
    pub const DEFAULT_NODES: u64 = 100_000;
}

/// A job's answer: bounds on the value of its position for its player to
/// move (`Bounds::UNKNOWN` when the budget ran out first), the best move
/// the engine named, and the nodes it expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobAnswer {
    /// What the job proved.
    pub bounds: Bounds,
    /// The engine's best move, when it proved a win or a tie.
    pub best_move: Option<String>,
    /// Nodes the engine expanded.
    pub nodes: u64,
    /// When undecided: the engine's own proof and disproof numbers of its
    /// root and the question they are of ("at least this?"), where the
    /// engine keeps such numbers (df-pn, couples): the master takes them as
    /// the leaf's, so that its choice of leaves is the engine's.
    pub numbers: Option<(u32, u32, i8)>,
}

/// What the jobs of one rank share, and its engine borrows: the engine's
/// options (the job's budget as its limits) and the tables given as
/// leaves.
pub struct JobKit<G: Engines> {
    engine: Options,
    leaves: Option<Leaves<G>>,
    nodes: Option<u64>,
    time: Option<Duration>,
}

impl<G: Engines> JobKit<G> {
    /// The kit for `request` (checked as a search checks it), whose jobs
    /// each spend at most `budget`.
    pub fn new(g: &G, request: &SearchOptions, budget: JobBudget) -> Result<JobKit<G>> {
        g.refuse(request)?;
        let (_, mut engine) = super::run::prepare(g, request)?;
        let nodes = match (budget.nodes, budget.time) {
            (None, None) => Some(JobBudget::DEFAULT_NODES),
            (n, _) => n,
        };
        engine.node_limit = nodes;
        engine.time_limit = budget.time;
        let leaves = g.leaves(request, &request.tablebases, Kind::Values)?;
        Ok(JobKit {
            engine,
            leaves,
            nodes,
            time: budget.time,
        })
    }

    /// The kit whose engines stop at once when `cancel` is cancelled
    /// (their job then answers with what it proved so far): for a job
    /// still running once the root is proven, which nothing needs.
    pub fn cancelled_by(mut self, cancel: super::Cancel) -> Self {
        self.engine.cancel = cancel;
        self
    }
}

fn quiet_progress(_: &Stats) {}
fn quiet_notice(_: &Notice) {}

/// Proves jobs one after another with the game's own engine, on the
/// threads, memory and tables of the request. One engine proves them all,
/// each job within a budget of its own ([`Prover::renew`]), so that what
/// a job left undecided learnt (its table: proof numbers, settled
/// subtrees, Sprouts' land nimbers) is where the next one starts; the
/// master's next jobs are mostly the children of an undecided one. An
/// engine that cannot renew its budget is made anew for each job.
pub struct JobRunner<'a, G: Engines> {
    g: &'a G,
    request: &'a SearchOptions,
    kit: &'a JobKit<G>,
    /// The engine kept from job to job.
    prover: Option<Box<dyn Prover<G> + 'a>>,
    /// A new engine for every job (the tests' reference).
    fresh: bool,
    /// Keep what the jobs proved, for the save.
    keep: bool,
    /// With a save: the positions the kept engine proved.
    proven: Vec<G::Pos>,
    /// With a save: what each dropped engine proved.
    parts: Vec<(PathBuf, Records<G>)>,
    /// Bounds learnt before the engine was made, for it.
    pending: Vec<Learnt<G>>,
    /// Jobs run.
    pub jobs: u64,
    /// Nodes their engines expanded.
    pub nodes: u64,
}

impl<'a, G: Engines> JobRunner<'a, G> {
    /// A runner of `kit`'s jobs for `request` (the request `kit` was made
    /// for); `keep`: keep the proven entries.
    pub fn new(
        g: &'a G,
        request: &'a SearchOptions,
        kit: &'a JobKit<G>,
        keep: bool,
    ) -> JobRunner<'a, G> {
        JobRunner {
            g,
            request,
            kit,
            prover: None,
            fresh: false,
            keep,
            proven: Vec::new(),
            parts: Vec::new(),
            pending: Vec::new(),
            jobs: 0,
            nodes: 0,
        }
    }

    /// A new engine for every job, nothing carried from one to the next.
    pub fn fresh_engines(mut self) -> Self {
        self.fresh = true;
        self
    }

    fn engine(&self) -> Result<Box<dyn Prover<G> + 'a>> {
        self.g.prover(Setup {
            request: self.request,
            options: &self.kit.engine,
            kind: Kind::Values,
            leaves: self.kit.leaves.as_ref(),
            progress: &quiet_progress,
            notice: &quiet_notice,
            snapshots: None,
            purpose: Purpose::Search,
        })
    }

    /// Takes bounds the master learnt from other jobs (the other ranks'
    /// proofs): the kept engine uses them as settled from now on.
    pub fn learn(&mut self, facts: &[Learnt<G>]) {
        if let Some(e) = self.prover.as_mut() {
            for (key, pos, bounds) in facts {
                e.learn(*key, pos, *bounds);
            }
        } else {
            self.pending.extend(facts.iter().cloned());
        }
    }

    /// Proves `p` within the budget times `2^scale`.
    pub fn run(&mut self, p: &G::Pos, scale: u32) -> Result<JobAnswer> {
        let times = 1u32 << scale.min(MAX_SCALE);
        let nodes = self.kit.nodes.map(|n| n.saturating_mul(u64::from(times)));
        let time = self.kit.time.map(|t| t.saturating_mul(times));
        let kept = match self.prover.take() {
            Some(mut e) if !self.fresh => match e.renew(nodes, time) {
                true => Some(e),
                false => {
                    self.drop_engine(e, &[], true);
                    None
                }
            },
            Some(e) => {
                self.drop_engine(e, &[], true);
                None
            }
            None => None,
        };
        let mut prover = match kept {
            Some(e) => e,
            None => {
                let mut e = self.engine()?;
                if scale > 0 {
                    e.renew(nodes, time);
                }
                e
            }
        };
        for (key, pos, bounds) in self.pending.drain(..) {
            prover.learn(key, &pos, bounds);
        }
        let before = prover.stats().nodes;
        let answer = prover.prove(p);
        let stats = prover.stats();
        let nodes = stats.nodes - before;
        let (bounds, best_move) = match answer {
            Answer::Value { bounds, best_move } => (bounds, best_move),
            Answer::Nimber(_) => (Bounds::UNKNOWN, None),
        };
        let proven = bounds != Bounds::UNKNOWN;
        // Numbers of a search that ran: a kept engine's counters may be a
        // previous root's when this one was settled at once.
        let numbers =
            (bounds.value().is_none() && nodes > 0 && stats.root_pn > 0 && stats.root_dn > 0)
                .then_some((stats.root_pn, stats.root_dn, stats.target));
        if self.fresh {
            let roots = if proven { std::slice::from_ref(p) } else { &[] };
            self.drop_engine(prover, roots, !proven);
        } else {
            if self.keep && proven {
                self.proven.push(p.clone());
            }
            self.prover = Some(prover);
        }
        self.jobs += 1;
        self.nodes += nodes;
        Ok(JobAnswer {
            bounds,
            best_move,
            nodes,
            numbers,
        })
    }

    /// Drops an engine, keeping what it proved when saving: the proofs of
    /// `roots`, or with `stopped` everything it settled.
    fn drop_engine(&mut self, e: Box<dyn Prover<G> + 'a>, roots: &[G::Pos], stopped: bool) {
        if self.keep {
            let proved = e.proved(roots, stopped);
            self.parts.push((
                PathBuf::from(format!("engine {}", self.parts.len())),
                records(self.g, proved),
            ));
        }
    }

    /// Every entry the jobs proved, merged key by key (two jobs' bounds on
    /// one position are met), as one proof database's bytes; `None` when
    /// not keeping them.
    pub fn database(mut self) -> Result<Option<Vec<u8>>> {
        if !self.keep {
            return Ok(None);
        }
        if let Some(e) = self.prover.take() {
            let proven = std::mem::take(&mut self.proven);
            self.drop_engine(e, &proven, false);
        }
        let mut records = proofdb::merge(self.g, self.parts)?.into_records();
        let mut bytes = Vec::new();
        proofdb::write(self.g, &mut bytes, Kind::Values, &mut records)?;
        Ok(Some(bytes))
    }
}

/// What an engine proved as records, the impossible bounds (a bug, never
/// a fact) and the keys the game cannot name left out, as a save does.
fn records<G: SearchGame>(g: &G, proved: Proved<G>) -> Records<G> {
    let holds = |f: &Fact| !matches!(f, Fact::Value(b) if b.lo > b.hi);
    match proved {
        Proved::Records(mut r) => {
            r.retain(|r| holds(&r.fact));
            r
        }
        Proved::Keys(facts) => facts
            .into_iter()
            .filter(|(_, f)| holds(f))
            .filter_map(|(key, fact)| g.position_of_key(&key).map(|pos| Record { key, fact, pos }))
            .collect(),
    }
}

/// The most a job's budget is doubled (see [`Master::next_job`]).
pub const MAX_SCALE: u32 = 4;

/// Proof and disproof numbers past any real count: decided.
const INFINITE: u64 = u64::MAX / 4;

/// Where a node stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Not expanded, no job on it.
    Leaf,
    /// A job is proving it.
    Sent,
    /// Its children are in the tree.
    Expanded,
}

/// One node of the master's tree.
struct Node<G: SearchGame> {
    pos: G::Pos,
    key: G::Key,
    /// The move from the parent, in the game's notation.
    mv: String,
    bounds: Bounds,
    state: State,
    children: Vec<usize>,
    /// The parent's index (the root: itself).
    parent: usize,
    /// An odd number of plies below the root: its question is the
    /// root's mirrored.
    odd: bool,
    /// Proof and disproof numbers of the node's question, and whether a
    /// leaf no job is proving lies below: kept up to date from the
    /// children, so that choosing a job walks one path, not the tree.
    pn: u64,
    dn: u64,
    free: bool,
    /// Jobs on the node that came back undecided.
    fails: u32,
    /// The worker its last job ran on.
    ran_on: usize,
    /// Its numbers while a leaf: (1, 1) until a job on it comes back
    /// undecided, then the engine's own (or, from an engine without
    /// numbers, the nodes spent on it): the tree then chooses leaves as
    /// the engines would.
    est: (u64, u64),
    /// Nodes the jobs on it have spent.
    spent: u64,
    /// Expanded, and its own job still runs on the worker that proved its
    /// earlier ones (that engine goes on where it stopped while the others
    /// prove its children).
    busy: bool,
    /// Busy, and the other workers help below its engine's child (see
    /// [`Master::shadow`]) rather than beside it: set when its numbers
    /// say a proof is nearer than a disproof, so that the engine is
    /// taken to be proving it through that one child.
    into: bool,
}

/// The master's proof-number tree.
pub struct Master<'a, G: Engines> {
    g: &'a G,
    nodes: Vec<Node<G>>,
    /// Every job's answer by its position's key (a transposition gets it
    /// at once; a failed one is expanded, not sent again).
    answers: HashMap<G::Key, Bounds>,
    /// The question asked of the root: is its value at least this?
    target: i8,
    /// The best move a job named for the root, when the root's own job
    /// proved it.
    root_move: Option<String>,
    /// Jobs handed out.
    pub jobs: u64,
    /// Jobs that came back without deciding their position.
    pub unknown: u64,
    /// Leaves expanded.
    pub expanded: u64,
    /// The most nodes one job expanded.
    pub largest_job: u64,
    /// Jobs whose answer came after the root was proven: those still
    /// running then, which the end stops (or which ended on their own just
    /// before their stop came).
    pub stopped: u64,
    /// Workers the jobs are shared among.
    workers: usize,
    /// Each worker's last job, while it is undecided.
    last: Vec<Option<usize>>,
    /// Bounds the tree learnt (from jobs and from backing up), in order,
    /// as the node and its bounds then, and how far each worker has been
    /// told of them.
    facts: Vec<(usize, Bounds)>,
    told: Vec<usize>,
}

/// Nodes of an engine without numbers that count as one proof-number
/// unit of a leaf (see `Node::est`): a job of the default budget makes its
/// leaf look about a hundred times as hard as one never tried.
const NODES_PER_UNIT: u64 = 1024;

/// What [`Master::select`] found: a leaf to send, or a busy node's
/// engine's child to expand first (its engine is on it).
enum Pick {
    Send(usize),
    Expand(usize),
}

/// A position the tree settled or bounded (a job's proof, or bounds
/// backed up from its children), told to the workers' engines: its key,
/// the position (an engine that keys positions its own way, as Sprouts'
/// does by lands, takes it from there) and the bounds.
pub type Learnt<G> = (<G as SearchGame>::Key, <G as SearchGame>::Pos, Bounds);

/// A job the master hands out: its number (the tree's node), position,
/// and the budget's scale (the budget times `2^scale`).
pub type Job<'m, P> = (usize, &'m P, u32);

impl<'a, G: Engines> Master<'a, G> {
    /// A tree of the root alone.
    pub fn new(g: &'a G, root: G::Pos) -> Master<'a, G> {
        let mut m = Master {
            g,
            nodes: Vec::new(),
            answers: HashMap::new(),
            target: 1,
            root_move: None,
            jobs: 0,
            unknown: 0,
            expanded: 0,
            largest_job: 0,
            stopped: 0,
            workers: 1,
            last: vec![None],
            facts: Vec::new(),
            told: vec![0],
        };
        m.add(root, String::new(), 0);
        m
    }

    /// The tree for `workers` workers (numbered from 0): with more than one,
    /// a worker whose job came back undecided goes on with it (its budget
    /// doubled) while it stays on the most-proving path, and the leaf is
    /// expanded at once so that the others prove its children.
    pub fn with_workers(mut self, workers: usize) -> Self {
        self.workers = workers.max(1);
        self.last = vec![None; self.workers];
        self.told = vec![0; self.workers];
        self
    }

    /// What the tree learnt since `worker` was last told: the bounds of its
    /// nodes that jobs and backing up proved, for the worker's engine.
    pub fn news(&mut self, worker: usize) -> Vec<Learnt<G>> {
        let from = self.told[worker];
        self.told[worker] = self.facts.len();
        self.facts[from..]
            .iter()
            .map(|&(i, b)| (self.nodes[i].key, self.nodes[i].pos.clone(), b))
            .collect()
    }

    /// A new leaf below `parent` (the root: below itself).
    fn add(&mut self, pos: G::Pos, mv: String, parent: usize) -> usize {
        let bounds = match self.g.terminal(&pos).or_else(|| self.g.decided(&pos)) {
            Some(v) => Bounds::exact(v),
            None => Bounds::UNKNOWN,
        };
        let key = self.g.key(&pos);
        let odd = match self.nodes.get(parent) {
            Some(p) => !p.odd,
            None => false,
        };
        let bounds = match self.answers.get(&key) {
            Some(b) => bounds.meet(*b),
            None => bounds,
        };
        let i = self.nodes.len();
        self.nodes.push(Node {
            pos,
            key,
            mv,
            bounds,
            state: State::Leaf,
            children: Vec::new(),
            parent: if i == 0 { 0 } else { parent },
            odd,
            pn: 1,
            dn: 1,
            free: true,
            fails: 0,
            ran_on: usize::MAX,
            est: (1, 1),
            spent: 0,
            busy: false,
            into: false,
        });
        self.renumber(i);
        i
    }

    /// What is known of the root's value.
    pub fn root(&self) -> Bounds {
        self.nodes[0].bounds
    }

    /// Whether the root's value is proven.
    pub fn done(&self) -> bool {
        self.root().value().is_some()
    }

    /// Nodes in the tree.
    pub fn tree_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The best move at the root: a child proven lost for its mover (a
    /// win), else one proven a tie (a tie), else the root's job's.
    pub fn best_move(&self) -> Option<String> {
        let root = &self.nodes[0];
        let want = -root.bounds.value().map(super::score)?;
        if want == 1 {
            return None;
        }
        root.children
            .iter()
            .map(|&c| &self.nodes[c])
            .find(|c| c.bounds.value().map(super::score) == Some(want))
            .map(|c| c.mv.clone())
            .or_else(|| self.root_move.clone())
    }

    /// The next job for `worker`: the most-proving leaf no job is proving.
    /// A leaf whose position a job already failed on is expanded (its
    /// children become leaves) — unless `worker` proved its last job and
    /// no other worker waits (`alone`): then the same job goes back to
    /// the same engine with its budget doubled, up to [`MAX_SCALE`]
    /// times, since that engine goes on from where it stopped (its table
    /// kept), where expanding would have several engines start afresh
    /// below it. `None` when the root is proven or every leaf that
    /// matters is being proved (then wait for an answer).
    pub fn next_job(&mut self, worker: usize, alone: bool) -> Option<Job<'_, G::Pos>> {
        loop {
            if self.done() {
                return None;
            }
            let (pn, dn) = (self.nodes[0].pn, self.nodes[0].dn);
            if pn == 0 || dn == 0 {
                // The question is decided: the next one, or the value.
                if self.target == 1 && dn == 0 {
                    self.target = 0;
                    // Every node's question changes: renumbered leaves
                    // first (a child's index is past its parent's).
                    for i in (0..self.nodes.len()).rev() {
                        self.renumber(i);
                    }
                    continue;
                }
                return None;
            }
            if let Some(x) = self.goes_on(worker) {
                if self.nodes[x].state == State::Leaf && self.workers > 1 {
                    self.expand(x);
                }
                let n = &mut self.nodes[x];
                match n.state {
                    State::Leaf => n.state = State::Sent,
                    _ => n.busy = true,
                }
                n.ran_on = worker;
                let scale = n.fails.min(MAX_SCALE);
                self.update(x);
                self.jobs += 1;
                return Some((x, &self.nodes[x].pos, scale));
            }
            let leaf = match self.select()? {
                Pick::Send(leaf) => leaf,
                Pick::Expand(s) => {
                    self.expand(s);
                    continue;
                }
            };
            let n = &self.nodes[leaf];
            let scale = match self.answers.contains_key(&n.key) {
                false => 0,
                true if alone && n.ran_on == worker && n.fails <= MAX_SCALE => n.fails,
                true => {
                    // A job on this position came back undecided: look deeper.
                    self.expand(leaf);
                    continue;
                }
            };
            let n = &mut self.nodes[leaf];
            n.state = State::Sent;
            n.ran_on = worker;
            self.update(leaf);
            self.jobs += 1;
            return Some((leaf, &self.nodes[leaf].pos, scale));
        }
    }

    /// The node `worker`'s last job was on, when it goes on with it: while
    /// it is undecided and free of other jobs. Each engine thus proves its
    /// node to the end as one search would (the root's engine is the one
    /// engine's search, cut in jobs), learning from the others' proofs on
    /// the way, while the other workers take the children it is not on;
    /// sending it elsewhere would lose the work in its table.
    fn goes_on(&mut self, worker: usize) -> Option<usize> {
        let x = self.last.get(worker).copied().flatten()?;
        let n = &self.nodes[x];
        // It and every node above it still open: else no proof needs it.
        let mut open = true;
        let mut i = x;
        loop {
            open &= self.nodes[i].pn != 0 && self.nodes[i].dn != 0;
            if i == 0 || !open {
                break;
            }
            i = self.nodes[i].parent;
        }
        if !open || n.busy || n.state == State::Sent || n.ran_on != worker {
            self.last[worker] = None;
            return None;
        }
        Some(x)
    }

    /// Takes the answer of job `id`: also after the root is proven (a job
    /// stopped at the end answers with what it proved until then, bounds
    /// that are true, however partial).
    pub fn answer(&mut self, id: usize, answer: &JobAnswer) -> Result<()> {
        let late = self.done();
        let node = self
            .nodes
            .get_mut(id)
            .filter(|n| n.state == State::Sent || n.busy);
        let Some(node) = node else {
            return Err(Error::GameInvariant(format!(
                "an answer to job {id}, which no rank was given"
            )));
        };
        let met = node.bounds.meet(answer.bounds);
        if met.lo > met.hi {
            return Err(Error::GameInvariant(format!(
                "the job on {} proved {:?}, against what was known ({:?})",
                self.g.format_position(&node.pos),
                answer.bounds,
                node.bounds
            )));
        }
        let learnt = met != node.bounds;
        node.bounds = met;
        if node.state == State::Sent {
            node.state = State::Leaf;
        }
        node.busy = false;
        node.spent += answer.nodes;
        let worker = node.ran_on;
        let key = node.key;
        if learnt {
            self.facts.push((id, met));
        }
        let e = self.answers.entry(key).or_insert(Bounds::UNKNOWN);
        *e = e.meet(answer.bounds);
        // A stopped job on the root names no move: keep the one known.
        if id == 0 && answer.best_move.is_some() {
            self.root_move = answer.best_move.clone();
        }
        self.stopped += u64::from(late);
        if answer.bounds.value().is_none() {
            // A stopped job is counted as stopped, not as a budget run out.
            self.unknown += u64::from(!late);
            let n = &mut self.nodes[id];
            n.fails += 1;
            n.est = match answer.numbers {
                // Without ties the engine's question is the node's; with
                // ties the other question's numbers are near enough for
                // choosing leaves (the value never depends on them).
                Some((pn, dn, _)) => (
                    u64::from(pn).clamp(1, INFINITE - 1),
                    u64::from(dn).clamp(1, INFINITE - 1),
                ),
                None => {
                    let e = 1 + n.spent / NODES_PER_UNIT;
                    (e, e)
                }
            };
            if let Some(l) = self.last.get_mut(worker) {
                *l = Some(id);
            }
        }
        self.largest_job = self.largest_job.max(answer.nodes);
        self.update(id);
        Ok(())
    }

    /// Expands leaf `i`: its children (one per distinct position) enter
    /// the tree.
    fn expand(&mut self, i: usize) {
        let mut never = |_: u64, _: u64| false;
        let kids = self
            .g
            .move_list(&self.nodes[i].pos, &mut never)
            .unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        let mut children = Vec::new();
        for (mv, c) in kids {
            if seen.insert(self.g.key(&c)) {
                children.push(self.add(c, mv, i));
            }
        }
        self.nodes[i].children = children;
        self.nodes[i].state = State::Expanded;
        self.expanded += 1;
        self.update(i);
    }

    /// The question of node `i`: is its value at least this?
    fn question(&self, i: usize) -> i8 {
        match self.nodes[i].odd {
            false => self.target,
            true => 1 - self.target,
        }
    }

    /// Node `i`'s bounds (backed up from its children by negamax, met
    /// with what it knew) and numbers from its children's; whether they
    /// changed.
    fn renumber(&mut self, i: usize) -> bool {
        let n = &self.nodes[i];
        let mut bounds = n.bounds;
        if n.state == State::Expanded && bounds.value().is_none() && !n.children.is_empty() {
            // A node with no children is over: `terminal` said so when added.
            let mut b = Bounds { lo: -1, hi: -1 };
            for (k, &c) in n.children.iter().enumerate() {
                let c = self.nodes[c].bounds;
                b.lo = b.lo.max(-c.hi);
                b.hi = if k > 0 { b.hi.max(-c.lo) } else { -c.lo };
            }
            let met = bounds.meet(b);
            if met.lo <= met.hi {
                bounds = met;
            }
        }
        let t = self.question(i);
        let (pn, dn, free, into) = if bounds.lo >= t {
            (0, INFINITE, false, false)
        } else if bounds.hi < t {
            (INFINITE, 0, false, false)
        } else {
            match n.state {
                State::Leaf => (n.est.0, n.est.1, true, false),
                State::Sent => (n.est.0, n.est.1, false, false),
                State::Expanded => {
                    let (mut pn, mut dn, mut free) = (INFINITE, 0u64, false);
                    let shadow = self.shadow(i);
                    // A node nearer its proof is proved by one child, the
                    // one its engine is in (the engines' move order is best
                    // first), and that child's disproof needs every one of
                    // its children: work there is never wasted if the
                    // engine is right. Nearer its disproof, every child is
                    // needed and the engine's own is the one left to it.
                    // (The numbers of the last renumbering: `select` reads
                    // the same `into` as `free` was made with.)
                    let into = shadow.is_some() && n.pn <= n.dn;
                    for &c in &n.children {
                        let taken = Some(c) == shadow;
                        let c = &self.nodes[c];
                        pn = pn.min(c.dn);
                        dn = dn.saturating_add(c.pn).min(INFINITE);
                        free |= c.free && (!taken || into);
                    }
                    (pn, dn, free, into)
                }
            }
        };
        let n = &mut self.nodes[i];
        if n.bounds != bounds {
            self.facts.push((i, bounds));
        }
        let changed = (n.bounds, n.pn, n.dn, n.free) != (bounds, pn, dn, free);
        (n.bounds, n.pn, n.dn, n.free, n.into) = (bounds, pn, dn, free, into);
        changed
    }

    /// Node `i` changed: renumbers it and its ancestors, up to the first
    /// that stays as it was.
    fn update(&mut self, mut i: usize) {
        // A parent reads only its children's bounds and numbers.
        while self.renumber(i) && i != 0 {
            i = self.nodes[i].parent;
        }
    }

    /// The child a busy node's own engine is taken to be proving: its first
    /// open one in the game's move order (the engines' own order, best
    /// first, as the younger-brothers-wait rule has it), which the other
    /// workers leave to it.
    fn shadow(&self, i: usize) -> Option<usize> {
        let n = &self.nodes[i];
        if !n.busy {
            return None;
        }
        n.children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].pn != 0 && self.nodes[c].dn != 0)
    }

    /// The most-proving leaf no job is proving: from the root, at each node
    /// the child whose disproof proves it soonest among those with such a
    /// leaf below. Below a busy node helped from within (`Node::into`), the
    /// way goes through its engine's child, which is expanded rather than
    /// sent (its engine is on it), and there takes the last child in move
    /// order with a free leaf below: the engine takes them first to last,
    /// so the helpers start where it arrives last.
    fn select(&self) -> Option<Pick> {
        let mut i = 0usize;
        let mut from_last = false;
        loop {
            let n = &self.nodes[i];
            if !n.free {
                return None;
            }
            match n.state {
                State::Leaf if from_last => return Some(Pick::Expand(i)),
                State::Leaf => return Some(Pick::Send(i)),
                State::Sent => return None,
                State::Expanded => {}
            }
            if from_last {
                from_last = false;
                i = *n.children.iter().rev().find(|&&c| self.nodes[c].free)?;
                continue;
            }
            let shadow = self.shadow(i);
            if let Some(s) = shadow.filter(|&s| n.into && self.nodes[s].free) {
                from_last = true;
                i = s;
                continue;
            }
            let mut best: Option<(u64, usize)> = None;
            for &c in &n.children {
                let c_node = &self.nodes[c];
                if c_node.free && Some(c) != shadow && best.is_none_or(|(d, _)| c_node.dn < d) {
                    best = Some((c_node.dn, c));
                }
            }
            i = best?.1;
        }
    }

    /// The tree's nodes whose value is proven, as proof-database records.
    pub fn records(&self) -> Records<G> {
        self.nodes
            .iter()
            .filter(|n| n.bounds.value().is_some())
            .map(|n| Record {
                key: n.key,
                fact: Fact::Value(n.bounds),
                pos: n.pos.clone(),
            })
            .collect()
    }
}

/// What a search spread over jobs did.
#[derive(Clone, Debug)]
pub struct JobsReport {
    /// The game's canonical spec.
    pub game: String,
    /// The position, in the game's notation.
    pub position: String,
    /// What was proven of its value.
    pub bounds: Bounds,
    /// A move that achieves it.
    pub best_move: Option<String>,
    /// Ranks that proved jobs (1: the master alone).
    pub ranks: usize,
    /// Jobs proved.
    pub jobs: u64,
    /// Jobs whose budget ran out first.
    pub unknown: u64,
    /// Jobs still running when the root was proven, stopped there.
    pub stopped: u64,
    /// Leaves the master expanded.
    pub expanded: u64,
    /// Nodes of the master's tree.
    pub tree_nodes: usize,
    /// Nodes the jobs' engines expanded, in all.
    pub nodes: u64,
    /// The most nodes one job expanded.
    pub largest_job: u64,
    /// How long it took.
    pub elapsed: Duration,
    /// The save's outcome, when one was asked for.
    pub saved: Option<super::engine::Saved>,
}

impl std::fmt::Display for JobsReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::units::thousands;
        writeln!(f, "game        {}", self.game)?;
        writeln!(f, "position    {}", self.position)?;
        writeln!(f, "value       {}", self.bounds.describe())?;
        if let Some(m) = &self.best_move {
            writeln!(f, "best move   {m}")?;
        }
        let secs = self.elapsed.as_secs_f64();
        // Only with jobs running when the root was proven (never with one
        // rank): those the end stopped.
        let stopped = match self.stopped {
            0 => String::new(),
            n => format!("{} stopped at the end, ", thousands(n)),
        };
        writeln!(
            f,
            "jobs        {} on {} rank{} ({} undecided within the budget, {stopped}{} leaves expanded, tree of {} nodes)",
            thousands(self.jobs),
            self.ranks,
            if self.ranks == 1 { "" } else { "s" },
            thousands(self.unknown),
            thousands(self.expanded),
            thousands(self.tree_nodes as u64)
        )?;
        writeln!(
            f,
            "nodes       {} in {secs:.2} s ({}/s; the largest job {})",
            thousands(self.nodes),
            thousands((self.nodes as f64 / secs.max(1e-9)) as u64),
            thousands(self.largest_job)
        )?;
        if let Some(s) = &self.saved {
            writeln!(
                f,
                "saved       {} entries to {} ({})",
                thousands(s.entries as u64),
                Error::quote_path(&s.path),
                crate::units::human_bytes(s.bytes)
            )?;
        }
        Ok(())
    }
}

/// The options a search spread over jobs refuses: what lists or loads
/// more than one position, nimbers, and the things one engine's run does
/// (periodic saves, watching, distances).
pub fn refuse(request: &SearchOptions) -> Result<()> {
    let refuse = |option: &'static str, rule: &str| {
        Err(Error::SearchOption {
            option,
            given: String::new(),
            rule: format!("{rule}; leave it out with --mpi"),
        })
    };
    if request.nimber {
        return refuse("--nimber", "a search over ranks proves values");
    }
    if request.openings.is_some() || request.moves {
        return refuse(
            if request.moves {
                "--moves"
            } else {
                "--openings"
            },
            "a search over ranks proves one position",
        );
    }
    if request.exact {
        return refuse("--exact", "a search over ranks gives no distances");
    }
    if !request.load.is_empty() {
        return refuse("--load", "a search over ranks starts from nothing");
    }
    if request.save_every.is_some() {
        return refuse("--save-every", "a search over ranks saves at its end");
    }
    if request.watch.is_some() {
        return refuse("--watch", "a search over ranks has no one branch to show");
    }
    Ok(())
}

/// The position of `request` (the start without one).
pub fn root<G: SearchGame>(g: &G, request: &SearchOptions) -> Result<G::Pos> {
    match &request.position {
        Some(s) => g.parse_position(s).map_err(|reason| Error::BadPosition {
            input: s.clone(),
            reason,
        }),
        None => Ok(g.start()),
    }
}

/// The save: `request.save` checked and locked (its temporary file made)
/// now, released until the end, so a job killed on the way leaves nothing.
pub fn check_save(request: &SearchOptions) -> Result<()> {
    if let Some(path) = &request.save {
        drop(proofdb::SaveTarget::prepare(path, &save_inputs(request))?);
    }
    Ok(())
}

fn save_inputs(request: &SearchOptions) -> Vec<PathBuf> {
    let mut inputs = request.inputs.clone();
    inputs.extend(request.tablebases.iter().cloned());
    inputs
}

/// Saves the master's proven nodes and the ranks' databases (`parts`, each
/// one proof database's bytes) as ONE database at `request.save`: the
/// parts read back through the database reader (CRC, keys checked) and
/// merged key by key with the tree's nodes as `proofdb merge` merges files.
pub fn save<G: Engines>(
    g: &G,
    request: &SearchOptions,
    tree: Records<G>,
    parts: &[Vec<u8>],
) -> Result<Option<super::engine::Saved>> {
    let Some(path) = &request.save else {
        return Ok(None);
    };
    let target = proofdb::SaveTarget::prepare(path, &save_inputs(request))?;
    let mut files = Vec::new();
    for bytes in parts {
        let tmp = crate::format::TempFile::create_beside(path)?;
        std::io::Write::write_all(&mut tmp.file(), bytes)
            .map_err(|e| Error::io("cannot write a rank's proof database", e))?;
        files.push(tmp);
    }
    let paths: Vec<PathBuf> = files.iter().map(|t| t.path().to_path_buf()).collect();
    let mut all = vec![(PathBuf::from("the master's tree"), tree)];
    if !paths.is_empty() {
        let (_, merged) = proofdb::read(g, &paths, Some(Kind::Values), 0)?;
        all.push((PathBuf::from("the ranks' jobs"), merged.into_records()));
    }
    drop(files);
    let mut records = proofdb::merge(g, all)?.into_records();
    let bytes = target.save(g, Kind::Values, &mut records)?;
    Ok(Some(super::engine::Saved {
        path: path.clone(),
        entries: records.len(),
        bytes,
    }))
}

/// The search spread over jobs, every job run in this process: what `search
/// --mpi` does with one rank, and the reference the ranks are tested
/// against.
pub fn search_alone<G: Engines>(
    g: &G,
    request: &SearchOptions,
    budget: JobBudget,
) -> Result<JobsReport> {
    refuse(request)?;
    let started = Instant::now();
    let root = root(g, request)?;
    let kit = JobKit::new(g, request, budget)?;
    let mut runner = JobRunner::new(g, request, &kit, request.save.is_some());
    check_save(request)?;
    let mut master = Master::new(g, root.clone());
    while let Some((id, p, scale)) = master.next_job(0, true) {
        let p = p.clone();
        let a = runner.run(&p, scale)?;
        master.answer(id, &a)?;
    }
    unproven(&master)?;
    let nodes = runner.nodes;
    let parts: Vec<Vec<u8>> = runner.database()?.into_iter().collect();
    let saved = save(g, request, tree_records(g, request, &master), &parts)?;
    Ok(report(g, &master, &root, 1, nodes, started, saved))
}

/// The master's proven nodes for the save, those the game's databases
/// can hold as entries ([`Engines::saves_position`]).
pub fn tree_records<G: Engines>(
    g: &G,
    request: &SearchOptions,
    master: &Master<'_, G>,
) -> Records<G> {
    let mut records = master.records();
    records.retain(|r| g.saves_position(request, &r.pos));
    records
}

/// The root unproven once no job is left: a bug, never a value.
pub fn unproven<G: Engines>(master: &Master<'_, G>) -> Result<()> {
    match master.done() {
        true => Ok(()),
        false => Err(Error::GameInvariant(format!(
            "the search over jobs ran out of leaves with the root at {:?}",
            master.root()
        ))),
    }
}

/// The report of a finished tree.
pub fn report<G: Engines>(
    g: &G,
    master: &Master<'_, G>,
    root: &G::Pos,
    ranks: usize,
    nodes: u64,
    started: Instant,
    saved: Option<super::engine::Saved>,
) -> JobsReport {
    JobsReport {
        game: g.spec(),
        position: g.format_position(root),
        bounds: master.root(),
        best_move: master.best_move(),
        ranks,
        jobs: master.jobs,
        unknown: master.unknown,
        stopped: master.stopped,
        expanded: master.expanded,
        tree_nodes: master.tree_nodes(),
        nodes,
        largest_job: master.largest_job,
        elapsed: started.elapsed(),
        saved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::games::AnySearch;
    use crate::Value;

    /// The value one search in one process proves: what every search
    /// over jobs must give.
    /// A search of one thread in 16 MiB with `engine`: the tests' jobs.
    fn small_request(engine: crate::search::engine::Engine) -> SearchOptions {
        SearchOptions {
            memory: Some(16 << 20),
            threads: 1,
            engine,
            ..SearchOptions::default()
        }
    }

    fn one_search(game: &AnySearch, request: &SearchOptions) -> Option<Value> {
        crate::search::run::run(game, request, &crate::search::run::Quiet)
            .unwrap()
            .results[0]
            .value()
    }

    /// The value of a search spread over jobs of a few nodes each (so the
    /// master's tree does the work) against one search, on games with and
    /// without ties.
    fn agrees(spec: &str, position: Option<&str>, nodes: u64) {
        let game = AnySearch::parse(spec).unwrap();
        let request = SearchOptions {
            position: position.map(str::to_string),
            memory: Some(16 << 20),
            threads: 1,
            ..SearchOptions::default()
        };
        let one = one_search(&game, &request);
        let budget = JobBudget {
            nodes: Some(nodes),
            time: None,
        };
        let jobs = crate::with_search!(&game, g => search_alone(g, &request, budget)).unwrap();
        assert_eq!(jobs.bounds.value(), one, "{spec} {position:?}");
        assert!(jobs.jobs > 1, "{spec}: the tree did nothing");
    }

    /// Positions near `g`'s start: the start, its children and some of
    /// their children (at most `most`).
    fn near_start<G: SearchGame>(g: &G, most: usize) -> Vec<G::Pos> {
        let mut out = vec![g.start()];
        let mut i = 0;
        while i < out.len() && out.len() < most {
            if g.terminal(&out[i]).is_none() {
                for (_, c) in g.moves(&out[i]) {
                    if out.len() < most {
                        out.push(c);
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// One engine proving job after job, each within a budget of `nodes`
    /// (an undecided job sent again to the same engine, as the master
    /// does, until decided), gives every position the value a fresh engine
    /// with no budget gives; returns the undecided answers (renewals).
    fn kept_engine_agrees<G: Engines>(g: &G, request: &SearchOptions, nodes: u64) -> u64 {
        let small = JobBudget {
            nodes: Some(nodes),
            time: None,
        };
        let kit = JobKit::new(g, request, small).unwrap();
        let mut kept = JobRunner::new(g, request, &kit, false);
        let unbounded = JobBudget {
            nodes: Some(1 << 40),
            time: None,
        };
        let big = JobKit::new(g, request, unbounded).unwrap();
        let mut fresh = JobRunner::new(g, request, &big, false).fresh_engines();
        let mut undecided = 0;
        for p in near_start(g, 14) {
            let want = fresh.run(&p, 0).unwrap().bounds;
            assert!(want.value().is_some(), "{}: {p:?} unproven", g.spec());
            let mut tries = 0;
            let got = loop {
                // Doubled after a few tries, as the master does: a budget
                // too small for one node's own work never gets on.
                let scale = (tries / 4).min(MAX_SCALE);
                tries += 1;
                assert!(tries < 200, "{}: {p:?} never decided", g.spec());
                let a = kept.run(&p, scale).unwrap();
                let most = (nodes << scale) + 1;
                assert!(a.nodes <= most, "{}: a job of {}", g.spec(), a.nodes);
                if a.bounds.value().is_some() {
                    break a.bounds;
                }
                // Partly proven (a win ruled out, a tie not yet) or not.
                undecided += 1;
            };
            assert_eq!(got.value(), want.value(), "{} {p:?}", g.spec());
        }
        undecided
    }

    /// Every family, each engine: df-pn, alpha-beta (gravity and generic),
    /// couples (Sprouts, Cram), misère Sprouts' df-pn.
    #[test]
    fn a_kept_engine_proves_successive_jobs_as_fresh_engines_do() {
        use crate::search::engine::Engine;
        let cases: &[(&str, Engine, u64)] = &[
            ("connect:4x4", Engine::Auto, 60),
            ("connect:4x4", Engine::Dfpn, 40),
            ("tictactoe", Engine::Auto, 20),
            ("tictactoe", Engine::AlphaBeta, 30),
            ("isolation:3x4", Engine::Auto, 30),
            ("mnk:3x4x3", Engine::Dfpn, 20),
            ("sprouts:6", Engine::Auto, 30),
            ("sprouts:5:misere", Engine::Auto, 30),
            ("cram:3x4", Engine::Auto, 20),
            ("cram:3x4", Engine::Couples, 20),
        ];
        for &(spec, engine, nodes) in cases {
            let game = AnySearch::parse(spec).unwrap();
            let request = small_request(engine);
            let renewed = crate::with_search!(&game, g => kept_engine_agrees(g, &request, nodes));
            assert!(renewed > 0, "{spec} {engine:?}: no job ran out of budget");
        }
    }

    /// A value another rank proved, told to an engine through
    /// [`JobRunner::learn`], is used as settled: the position then takes no
    /// search: Sprouts' and Cram's couples keep it by lands, misère Sprouts
    /// by position. (Df-pn keeps it by key, but searches a tie's children
    /// for its move.)
    #[test]
    // `with_search!` makes the body for every game's position, some `Copy`.
    #[allow(clippy::clone_on_copy)]
    fn a_learnt_value_is_not_searched_again() {
        use crate::search::engine::Engine;
        let cases: &[(&str, Engine)] = &[
            ("sprouts:9", Engine::Auto),
            ("sprouts:7", Engine::Auto),
            ("sprouts:6:misere", Engine::Auto),
            ("cram:3x4", Engine::Couples),
        ];
        for &(spec, engine) in cases {
            let game = AnySearch::parse(spec).unwrap();
            let request = small_request(engine);
            crate::with_search!(&game, g => {
                let budget = JobBudget { nodes: None, time: None };
                let kit = JobKit::new(g, &request, budget).unwrap();
                let root = g.start();
                let proved = JobRunner::new(g, &request, &kit, false).run(&root, 0).unwrap();
                assert!(proved.bounds.value().is_some() && proved.nodes > 0, "{spec}");
                let mut told = JobRunner::new(g, &request, &kit, false);
                told.learn(&[(g.key(&root), root.clone(), proved.bounds)]);
                let again = told.run(&root, 0).unwrap();
                assert_eq!(again.bounds, proved.bounds, "{spec}");
                assert_eq!(again.nodes, 0, "{spec}: searched what it was told");
            });
        }
    }

    /// Each call's budget is its own: a kept engine spends at most the
    /// budget (times the scale) on every job, and a job after a stopped
    /// one searches again (its nodes are not zero); a time budget ends
    /// each job near it.
    #[test]
    fn each_job_keeps_to_its_own_budget() {
        let game = AnySearch::parse("connect:5x4").unwrap();
        for engine in [
            crate::search::engine::Engine::Dfpn,
            crate::search::engine::Engine::AlphaBeta,
        ] {
            let request = small_request(engine);
            crate::with_search!(&game, g => {
                let budget = JobBudget { nodes: Some(500), time: None };
                let kit = JobKit::new(g, &request, budget).unwrap();
                let mut runner = JobRunner::new(g, &request, &kit, false);
                let root = g.start();
                for scale in [0, 0, 1, 2, 0] {
                    let a = runner.run(&root, scale).unwrap();
                    let most = 500u64 << scale;
                    assert_eq!(a.bounds.value(), None, "{engine:?}");
                    // Alpha-beta's threads take nodes in chunks, handing
                    // back what they did not spend: never past the budget.
                    assert!(a.nodes <= most && a.nodes > most / 2, "{engine:?} {scale}: {}", a.nodes);
                }
                let budget = JobBudget { nodes: None, time: Some(Duration::from_millis(30)) };
                let kit = JobKit::new(g, &request, budget).unwrap();
                let mut runner = JobRunner::new(g, &request, &kit, false);
                for _ in 0..3 {
                    let t = Instant::now();
                    let a = runner.run(&root, 0).unwrap();
                    assert!(a.nodes > 0, "{engine:?}");
                    if a.bounds.value().is_none() {
                        assert!(t.elapsed() < Duration::from_secs(2), "{engine:?}: {:?}", t.elapsed());
                    }
                }
            });
        }
    }

    /// Two workers in one process, answers taken oldest first, each
    /// worker told the tree's news with its jobs (the path `search --mpi`
    /// takes with K ≥ 2: a worker kept on its node, the younger children to
    /// the other): the value is the one search's.
    #[test]
    // `with_search!` makes the body for every game's position, some `Copy`.
    #[allow(clippy::clone_on_copy)]
    fn two_workers_prove_the_one_search_values() {
        for (spec, nodes) in [("connect:4x4", 40), ("tictactoe", 20), ("connect:5x4", 300)] {
            let game = AnySearch::parse(spec).unwrap();
            let request = SearchOptions {
                memory: Some(16 << 20),
                threads: 1,
                ..SearchOptions::default()
            };
            let one = one_search(&game, &request);
            crate::with_search!(&game, g => {
                let budget = JobBudget { nodes: Some(nodes), time: None };
                let kit = JobKit::new(g, &request, budget).unwrap();
                let mut runners = [
                    JobRunner::new(g, &request, &kit, false),
                    JobRunner::new(g, &request, &kit, false),
                ];
                let mut master = Master::new(g, g.start()).with_workers(2);
                let mut running: std::collections::VecDeque<(usize, usize, JobAnswer)> =
                    Default::default();
                let mut idle = vec![1usize, 0];
                loop {
                    while let Some(&w) = idle.last() {
                        let Some((id, p, scale)) = master.next_job(w, idle.len() == 1) else {
                            break;
                        };
                        let p = p.clone();
                        let news = master.news(w);
                        runners[w].learn(&news);
                        running.push_back((w, id, runners[w].run(&p, scale).unwrap()));
                        idle.pop();
                    }
                    let Some((w, id, a)) = running.pop_front() else { break };
                    master.answer(id, &a).unwrap();
                    idle.push(w);
                }
                assert_eq!(master.root().value(), one, "{spec}");
                assert!(master.jobs > 2, "{spec}: the tree did nothing");
            });
        }
    }

    /// With two workers and the root's job undecided, the root's engine
    /// goes on with it and the other worker is sent below the root's first
    /// child (the one that engine searches first), to that child's last
    /// child in move order, not to the root's second child.
    #[test]
    #[allow(clippy::clone_on_copy)]
    fn the_other_worker_helps_below_the_busy_engines_child() {
        let game = AnySearch::parse("connect:4x4").unwrap();
        crate::with_search!(&game, g => {
            let root = g.start();
            let mut master = Master::new(g, root.clone()).with_workers(2);
            let (id, p, scale) = master.next_job(1, false).unwrap();
            assert_eq!((id, scale, g.key(p)), (0, 0, g.key(&root)));
            let undecided = JobAnswer {
                bounds: Bounds::UNKNOWN,
                best_move: None,
                nodes: 10,
                numbers: None,
            };
            master.answer(0, &undecided).unwrap();
            // The same engine goes on with the root, now expanded.
            let (id, _, scale) = master.next_job(1, false).unwrap();
            assert_eq!((id, scale), (0, 1));
            // The children as the master makes them: one per position.
            let children = |p| {
                let mut seen = std::collections::HashSet::new();
                let mut never = |_: u64, _: u64| false;
                let mut out = g.move_list(p, &mut never).unwrap();
                out.retain(|(_, c)| seen.insert(g.key(c)));
                out.into_iter().map(|(_, c)| c).collect::<Vec<_>>()
            };
            let below = children(&children(&root)[0]);
            assert!(below.len() > 2);
            let (_, p, scale) = master.next_job(0, true).unwrap();
            assert_eq!(scale, 0);
            assert_eq!(g.key(p), g.key(below.last().unwrap()));
            // And the next helper's job is the one before it.
            let (_, p, _) = master.next_job(0, true).unwrap();
            assert_eq!(g.key(p), g.key(&below[below.len() - 2]));
        });
    }

    /// A job still running when the root is proven answers after the end
    /// (`search --mpi` stops it and takes what it proved): the answer is
    /// taken without error, counted as stopped and not as undecided, and
    /// changes neither the value nor the best move.
    #[test]
    #[allow(clippy::clone_on_copy)]
    fn a_job_stopped_after_the_root_is_proven_answers_harmlessly() {
        let game = AnySearch::parse("connect:4x4").unwrap();
        crate::with_search!(&game, g => {
            let mut master = Master::new(g, g.start()).with_workers(2);
            let undecided = JobAnswer {
                bounds: Bounds::UNKNOWN,
                best_move: None,
                nodes: 10,
                numbers: None,
            };
            let (id, _, _) = master.next_job(1, false).unwrap();
            master.answer(id, &undecided).unwrap();
            // Worker 1 goes on with the root, worker 0 takes a leaf below.
            let (root, _, _) = master.next_job(1, false).unwrap();
            let (leaf, _, _) = master.next_job(0, true).unwrap();
            assert_ne!(root, leaf);
            let tie = JobAnswer {
                bounds: Bounds { lo: 0, hi: 0 },
                best_move: Some("2".into()),
                nodes: 10,
                numbers: None,
            };
            master.answer(root, &tie).unwrap();
            assert!(master.done());
            let unknown = master.unknown;
            master.answer(leaf, &undecided).unwrap();
            assert_eq!((master.stopped, master.unknown), (1, unknown));
            assert_eq!(master.root(), Bounds { lo: 0, hi: 0 });
            assert_eq!(master.best_move().as_deref(), Some("2"));
            assert!(master.next_job(0, true).is_none());
        });
    }

    #[test]
    fn jobs_of_few_nodes_prove_the_one_search_values() {
        agrees("connect:4x4", None, 50);
        agrees("tictactoe", None, 20);
        agrees("connect:4x4", Some("..../..../x.../o..."), 30);
    }
}
