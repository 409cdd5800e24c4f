//! The computing branch of a running search, and steering it (Glop's
//! "computing branch" and "zapping"): a [`Watch`] handed to a search
//! ([`super::engine::Options::watch`]) is where the engine publishes the
//! line it is computing, from the root down, a few times a second, and
//! where a viewer (the terminal's `--watch`, the explorer) asks a level to
//! compute another child next.
//!
//! A level is a position on the line with its children: how many, how many
//! are still unknown, and which one is being computed (the next level's
//! position). A request names a level by its depth and its position's
//! identity ([`Level::id`]), so that it applies to that position only,
//! never to another the line reaches later at that depth: the engine then
//! descends into the chosen child each time it passes through that
//! position, until the child is solved (then the engine's own choice
//! resumes). Only the *order* in which a proof-number search visits
//! children changes: a node is proved from its children's proofs whatever
//! the order, so the value never depends on the requests (tested: a search
//! steered at random gives the values of an unsteered one).
//!
//! Lock-light: the engine takes the branch's lock only to publish (at most
//! every [`PUBLISH_EVERY`], looked at every 1,024 nodes) and to read new
//! requests, which a counter tells it of with one relaxed load per choice;
//! with no watch the engines do none of it. With several threads the main
//! thread's line is shown and steered (the others follow their own).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often at most the engine publishes its line.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(150);

/// One level of the computing branch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// 0 for the root of the question being computed.
    pub depth: usize,
    /// The position, in the game's notation (Glop's for Sprouts and Cram;
    /// a couple of the engine of sums is a land and a Nim heap `+*k`).
    pub position: String,
    /// The identity of the position for the engine (a steering request
    /// names it back).
    pub id: u64,
    /// Its children.
    pub children: usize,
    /// Children whose value is not known yet.
    pub unknown: usize,
    /// The child being computed (an index of its children), if any.
    pub current: Option<usize>,
    /// The child was chosen by a request, not by the engine.
    pub steered: bool,
}

/// The computing branch as last published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Branch {
    /// The line, root first.
    pub levels: Vec<Level>,
    /// Nodes (couples, positions) expanded when it was published.
    pub nodes: u64,
    /// How many times the engine published (0: not yet).
    pub published: u64,
    /// The search has ended.
    pub finished: bool,
}

/// A level's choice asked by the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Compute this child next (an index of the level's children).
    Child(usize),
    /// Compute the next unknown child after the current one.
    Next,
    /// Back to the engine's own choice.
    Release,
}

/// A steering request: level `depth`, whose position is `id`, computes
/// `choice` next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steer {
    /// The level (0: the root).
    pub depth: usize,
    /// Its position's identity, as published ([`Level::id`]).
    pub id: u64,
    /// What it should compute next.
    pub choice: Choice,
}

#[derive(Default)]
struct Shared {
    branch: Mutex<Branch>,
    requests: Mutex<Vec<Steer>>,
    /// Requests made so far: the engine reads them when this moves.
    asked: AtomicU64,
    /// Publish at most this often (`None`: [`PUBLISH_EVERY`]).
    period: Option<Duration>,
    /// A seed and a rate: the engine steers itself at random (tests).
    scramble: Option<(u64, u32)>,
}

/// A search's computing branch, shared by the engine and its viewers
/// (clones are the same branch).
#[derive(Clone, Default)]
pub struct Watch(Arc<Shared>);

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl Watch {
    /// A branch nothing has published yet.
    pub fn new() -> Watch {
        Watch::default()
    }

    /// A branch published at most every `period` (tests watch with
    /// `Duration::ZERO`: at every look, every 1,024 nodes).
    pub fn with_period(period: Duration) -> Watch {
        Watch(Arc::new(Shared {
            period: Some(period),
            ..Shared::default()
        }))
    }

    /// A branch whose engine steers itself: at about one choice in
    /// `one_in`, a random unknown child of that level is asked for, as a
    /// user clicking at random would (seeded by `seed`). For the tests
    /// that show a value never depends on the user's choices.
    #[doc(hidden)]
    pub fn scrambled(seed: u64, one_in: u32) -> Watch {
        Watch(Arc::new(Shared {
            period: Some(Duration::ZERO),
            scramble: Some((seed, one_in.max(1))),
            ..Shared::default()
        }))
    }

    /// The branch as last published.
    pub fn branch(&self) -> Branch {
        self.0
            .branch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Asks level `depth` (position `id`) to compute `choice` next: taken
    /// the next time the engine chooses a child there.
    pub fn steer(&self, s: Steer) {
        self.0
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(s);
        self.0.asked.fetch_add(1, Ordering::Release);
    }

    /// Says the search has ended (the branch stays as it was).
    pub fn finish(&self) {
        self.0
            .branch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .finished = true;
    }

    fn publish(&self, levels: Vec<Level>, nodes: u64) {
        let mut b = self.0.branch.lock().unwrap_or_else(PoisonError::into_inner);
        b.levels = levels;
        b.nodes = nodes;
        b.published += 1;
    }
}

/// A level as the engine keeps it between two publications (no text).
#[derive(Clone, Copy, Debug)]
struct Raw {
    id: u64,
    children: u32,
    unknown: u32,
    current: u32,
    steered: bool,
}

/// The engine's side of a [`Watch`]: the line as it goes, the requests in
/// force, the clock of publications.
pub struct Watcher {
    watch: Watch,
    line: Vec<Raw>,
    /// Requests in force, by depth: the position and the child.
    steer: Vec<Option<(u64, Want)>>,
    asked: u64,
    last: Instant,
    period: Duration,
    /// The random state of a scrambled watch.
    rng: u64,
}

impl Watcher {
    /// The engine's side of `watch`.
    pub fn new(watch: Watch) -> Watcher {
        let period = watch.0.period.unwrap_or(PUBLISH_EVERY);
        let rng = watch.0.scramble.map_or(0, |(seed, _)| seed | 1);
        Watcher {
            watch,
            line: Vec::new(),
            steer: Vec::new(),
            asked: 0,
            // Published at the first chance.
            last: Instant::now()
                .checked_sub(period)
                .unwrap_or_else(Instant::now),
            period,
            rng,
        }
    }

    /// A scrambled watch's request at this level, now and then.
    fn scramble(&mut self, depth: usize, id: u64, children: usize, open: &impl Fn(usize) -> bool) {
        let Some((_, one_in)) = self.watch.0.scramble else {
            return;
        };
        // xorshift64
        let mut next = || {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            self.rng
        };
        if children == 0 || next() % u64::from(one_in) != 0 {
            return;
        }
        let start = (next() % children as u64) as usize;
        let want = match (0..children)
            .map(|i| (start + i) % children)
            .find(|&i| open(i))
        {
            Some(c) if next() % 2 == 0 => Want::Child(c),
            _ => Want::After(start),
        };
        if self.steer.len() <= depth {
            self.steer.resize(depth + 1, None);
        }
        self.steer[depth] = Some((id, want));
    }

    /// At level `depth` (position `id`, `children` children of which
    /// `unknown` are not solved), the engine chose child `mine`: returns the
    /// child to compute, a request's if one stands for this position and
    /// its child is not solved (`open(i)`: child `i` is unknown), else
    /// `mine`. Records the level on the line (the deeper levels are left
    /// until the engine goes down again).
    pub fn choose(
        &mut self,
        depth: usize,
        id: u64,
        children: usize,
        unknown: usize,
        mine: usize,
        open: impl Fn(usize) -> bool,
    ) -> usize {
        let asked = self.watch.0.asked.load(Ordering::Acquire);
        if asked != self.asked {
            self.asked = asked;
            self.take_requests();
        }
        self.line.truncate(depth);
        // Levels above never recorded (none in the engines): placeholders,
        // so that a level's place is its depth.
        self.line.resize(
            depth,
            Raw {
                id: 0,
                children: 0,
                unknown: 0,
                current: 0,
                steered: false,
            },
        );
        self.scramble(depth, id, children, &open);
        let mut chosen = mine;
        let mut steered = false;
        if let Some(Some((sid, want))) = self.steer.get(depth).copied() {
            if sid == id {
                let c = match want {
                    Want::Child(c) => c,
                    // The first unknown child after the one computed.
                    Want::After(from) => (1..=children)
                        .map(|i| (from + i) % children.max(1))
                        .find(|&i| open(i))
                        .unwrap_or(usize::MAX),
                };
                if c < children && open(c) {
                    chosen = c;
                    steered = true;
                    self.steer[depth] = Some((id, Want::Child(c)));
                } else {
                    // Solved (or gone): the engine's choice again.
                    self.steer[depth] = None;
                }
            }
        }
        self.line.push(Raw {
            id,
            children: children as u32,
            unknown: unknown as u32,
            current: chosen as u32,
            steered,
        });
        chosen
    }

    /// Leaves levels `depth` and below off the line (the engine came back
    /// up past them).
    pub fn up_to(&mut self, depth: usize) {
        self.line.truncate(depth);
    }

    /// Reads the requests made since the last look: a `Next` becomes the
    /// first unknown child after the level's current one (the line tells
    /// which is current; which are unknown is seen when it is taken).
    fn take_requests(&mut self) {
        let requests: Vec<Steer> = std::mem::take(
            &mut *self
                .watch
                .0
                .requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for s in requests {
            if self.steer.len() <= s.depth {
                self.steer.resize(s.depth + 1, None);
            }
            let current = self
                .line
                .get(s.depth)
                .filter(|r| r.id == s.id)
                .map(|r| r.current as usize);
            self.steer[s.depth] = match s.choice {
                Choice::Child(c) => Some((s.id, Want::Child(c))),
                Choice::Release => None,
                Choice::Next => current.map(|c| (s.id, Want::After(c))),
            };
        }
    }

    /// Whether a publication is due (the clock is read only here, which
    /// the engine calls every 1,024 nodes).
    pub fn due(&mut self) -> bool {
        let now = Instant::now();
        if now.duration_since(self.last) < self.period {
            return false;
        }
        self.last = now;
        true
    }

    /// Publishes the line, each level's position written by `text(depth,
    /// id, child)` where `child` is the child of the level above computed
    /// (none at the root).
    pub fn publish(
        &mut self,
        nodes: u64,
        mut text: impl FnMut(usize, u64, Option<usize>) -> String,
    ) {
        let levels = self
            .line
            .iter()
            .enumerate()
            .map(|(depth, r)| Level {
                depth,
                position: text(
                    depth,
                    r.id,
                    depth.checked_sub(1).map(|d| self.line[d].current as usize),
                ),
                id: r.id,
                children: r.children as usize,
                unknown: r.unknown as usize,
                current: Some(r.current as usize),
                steered: r.steered,
            })
            .collect();
        self.watch.publish(levels, nodes);
    }
}

/// A level's request in force.
#[derive(Clone, Copy, Debug)]
enum Want {
    Child(usize),
    /// The first unknown child after this one.
    After(usize),
}

/// Glop's colour of a level by its children still unknown: green 5–10,
/// yellow 3–4, orange 2, red 1 (none otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// 5 to 10 children left.
    Green,
    /// 3 or 4.
    Yellow,
    /// 2.
    Orange,
    /// 1: the position above probably loses.
    Red,
}

impl Colour {
    /// The colour of a level with `unknown` children left.
    pub fn of(unknown: usize) -> Option<Colour> {
        match unknown {
            1 => Some(Colour::Red),
            2 => Some(Colour::Orange),
            3..=4 => Some(Colour::Yellow),
            5..=10 => Some(Colour::Green),
            _ => None,
        }
    }

    /// Its name, as the explorer's styles and the JSON say it.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Green => "green",
            Colour::Yellow => "yellow",
            Colour::Orange => "orange",
            Colour::Red => "red",
        }
    }
}
