//! A game with no table in the explorer (Sprouts): each position's value and
//! its children's come from the search (`retrograde search SPEC POSITION
//! --moves`, the library's [`run`] with `moves`), under a budget of time
//! and nodes per request, so that a request never runs unbounded. What the
//! budget did not reach is `"unknown"`.
//!
//! The budget's time counts from when a search worker takes the request
//! (the wait in the queue is not the search's) to the answer made, listing
//! the children included; the search looks at the time before every node.
//! An answer is at most [`MAX_REPLY`] bytes: a position whose children
//! would take more (hundreds of lands) is refused with
//! 422 before any child is made, and searched on the command line.
//!
//! The position is read and its children written by the game's own
//! notation (through the search's [`SearchGame`]), never a second one.

use super::Reply;
use retrograde::search::games::AnySearch;
use retrograde::search::run::{self, Answer, Quiet, SearchOptions, Searched};
use retrograde::search::{Cancel, SearchGame, Stop};
use retrograde::{Error, Value};
use serde_json::{json, Value as Json};
use std::time::{Duration, Instant};

/// The largest answer: 1 MiB. A position's answer lists each child twice
/// (its move and its position, the same text), so a position of 2,400
/// characters with 1,400 children (170 lands) would take 6.8 MB.
pub const MAX_REPLY: usize = 1 << 20;

/// Bytes a child takes in the answer besides its text (twice): the
/// members' names and values.
const MOVE_BYTES: usize = 160;

/// Memory each request's search may take: the explorer answers many
/// requests at once on a machine doing other work.
const MEMORY: u64 = 256 << 20;

/// A request's budget.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Seconds of search per request.
    pub time: Duration,
    /// Nodes per request (`None`: only the time bounds it).
    pub nodes: Option<u64>,
}

/// One searched game being served.
pub struct SearchSource {
    game: AnySearch,
    budget: Budget,
    /// Whether the game is impartial: its positions get nimbers.
    impartial: bool,
}

impl SearchSource {
    /// The game of `spec`, if the search lists its children (`--moves`):
    /// refused with the search's own message otherwise. Returns the source
    /// and its start position's text.
    pub fn open(spec: &str, budget: Budget) -> anyhow::Result<(SearchSource, String)> {
        let game = AnySearch::parse(spec)?;
        let impartial = retrograde::with_search!(&game, g => g.impartial());
        let source = SearchSource {
            game,
            budget,
            impartial,
        };
        // One node of the start: refuses a game whose search does not list
        // children, and gives the start's spelling.
        let report = run::run(&source.game, &source.options(None, Some(1)), &Quiet)
            .map_err(|e| anyhow::anyhow!("--search {}: {e}", Error::quote(spec)))?;
        let start = report
            .results
            .first()
            .map(|r| r.position.clone())
            .unwrap_or_default();
        Ok((source, start))
    }

    /// The game's spec, as the search spells it.
    pub fn spec(&self) -> String {
        retrograde::with_search!(&self.game, g => g.spec())
    }

    /// Whether the game is impartial.
    pub fn impartial(&self) -> bool {
        self.impartial
    }

    /// The budget, as `/api/tables/{id}` tells it.
    pub fn budget_json(&self) -> Json {
        json!({
            "seconds": self.budget.time.as_secs_f64(),
            "nodes": self.budget.nodes,
        })
    }

    fn options(&self, position: Option<&str>, nodes: Option<u64>) -> SearchOptions {
        SearchOptions {
            position: position.map(str::to_string),
            nimber: self.impartial,
            memory: Some(MEMORY),
            node_limit: nodes,
            time_limit: Some(self.budget.time),
            threads: 1,
            moves: true,
            ..SearchOptions::default()
        }
    }

    /// The bytes the children of `text` would take in an answer, at most
    /// (equal children are listed once), from each land's children: no
    /// child position is made. `None` if the position does not parse (the
    /// search says why).
    fn children_bytes(&self, text: Option<&str>) -> Option<(usize, usize)> {
        let AnySearch::Sprouts(g) = &self.game else {
            return Some((0, 0));
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
        Some((count, bytes))
    }

    /// A position's value and children, as a table's position answer: the
    /// same members, with `"unknown"` where the budget ran out, and
    /// `search` saying what the search did.
    /// Stopped early when `cancel` is (the client left).
    pub fn position(&self, id: &str, text: Option<&str>, cancel: &Cancel) -> Reply {
        let started = Instant::now();
        if let Some((count, bytes)) = self.children_bytes(text) {
            if bytes > MAX_REPLY {
                return Reply::error(
                    422,
                    format!(
                        "the position has {} children or more, which take more than the {} KiB an answer may: search it with `retrograde search {} POSITION --moves`",
                        count,
                        MAX_REPLY >> 10,
                        self.spec()
                    ),
                );
            }
        }
        // Every child, searched or not: the game's moves (the results stop
        // where the budget did). Listed first, to know what the listing
        // costs: the search lists them again, and once more to name a
        // winning move, so the search's time is the budget less twice
        // that (a few hundred lands take a few tenths of a second).
        let listing = Instant::now();
        let all: Vec<String> = retrograde::with_search!(&self.game, g => {
            let p = match text {
                Some(t) => g.parse_position(t).ok(),
                None => Some(g.start()),
            };
            p.map_or_else(Vec::new, |p| {
                g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect()
            })
        });
        let listing = listing.elapsed();
        let mut options = self.options(text, self.budget.nodes);
        // What is left of the budget (at least a moment: a search with no
        // time is refused as an option).
        options.time_limit = Some(
            self.budget
                .time
                .saturating_sub(started.elapsed() + listing)
                .max(Duration::from_millis(1)),
        );
        options.cancel = cancel.clone();
        let report = match run::run(&self.game, &options, &Quiet) {
            Ok(r) => r,
            Err(e @ Error::BadPosition { .. }) => return Reply::error(400, e),
            Err(e) => return Reply::error(500, format!("search {id}: {e}")),
        };
        let Some((root, children)) = report.results.split_first() else {
            return Reply::error(500, format!("search {id}: nothing was searched"));
        };
        let mut moves: Vec<Json> = all
            .iter()
            .map(|m| {
                let child = children.iter().find(|c| c.mv.as_deref() == Some(m));
                // The child's value is for its mover: the move's is its
                // opposite.
                let value = child.and_then(Searched::value).map(|v| match v {
                    Value::Win => Value::Lose,
                    Value::Lose => Value::Win,
                    v => v,
                });
                json!({
                    "move": m,
                    "position": m,
                    "value": value.map_or("unknown", Value::name),
                    "remoteness": null,
                    "nimber": child.and_then(nimber),
                    "best": false,
                    "steps": [],
                })
            })
            .collect();
        // Best first: wins, then what is unknown, then losses. Only a proved
        // win is best, or every move when all are proved losses.
        let rank = |m: &Json| match m["value"].as_str() {
            Some("win") => 0,
            Some("unknown") => 1,
            _ => 2,
        };
        moves.sort_by_key(rank);
        let best = moves.first().map_or(2, rank);
        if best != 1 {
            for m in &mut moves {
                m["best"] = json!(rank(m) == best);
            }
        }
        let value = root.value();
        let reply = Reply::json(
            200,
            &json!({
                "position": root.position,
                "index": null,
                "to_move": null,
                "value": value.map_or("unknown", Value::name),
                "remoteness": null,
                "nimber": nimber(root),
                "primitive": all.is_empty(),
                "table": id,
                "moves": moves,
                "board": null,
                "search": {
                    "proven": report.proven,
                    "stopped": report.stopped.map(Stop::name),
                    "nodes": report.stats.nodes,
                    "seconds": report.elapsed.as_secs_f64(),
                },
            }),
        );
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

fn nimber(s: &Searched) -> Option<u32> {
    match s.answer {
        Answer::Nimber(n) => n,
        Answer::Value { .. } => None,
    }
}
