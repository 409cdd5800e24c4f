//! A game with no table in the explorer (Sprouts): each position's value and
//! its children's come from the search (`retrograde search SPEC POSITION
//! --moves`, the library's [`run`] with `moves`), under a budget of time
//! and nodes per request, so that a request never runs unbounded. What the
//! budget did not reach is `"unknown"`.
//!
//! The position is read and its children written by the game's own
//! notation (through the search's [`SearchGame`]), never a second one.

use super::Reply;
use retrograde::search::games::AnySearch;
use retrograde::search::run::{self, Answer, Quiet, SearchOptions, Searched};
use retrograde::search::{SearchGame, Stop};
use retrograde::{Error, Value};
use serde_json::{json, Value as Json};
use std::time::Duration;

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

    /// A position's value and children, as a table's position answer: the
    /// same members, with `"unknown"` where the budget ran out, and
    /// `search` saying what the search did.
    pub fn position(&self, id: &str, text: Option<&str>) -> Reply {
        let report = match run::run(&self.game, &self.options(text, self.budget.nodes), &Quiet) {
            Ok(r) => r,
            Err(e @ Error::BadPosition { .. }) => return Reply::error(400, e),
            Err(e) => return Reply::error(500, format!("search {id}: {e}")),
        };
        let Some((root, children)) = report.results.split_first() else {
            return Reply::error(500, format!("search {id}: nothing was searched"));
        };
        // Every child, searched or not: the game's moves from the position
        // the report spelled (the results stop where the budget did).
        let all: Vec<String> = retrograde::with_search!(&self.game, g => {
            match g.parse_position(&root.position) {
                Ok(p) => g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect(),
                Err(_) => Vec::new(),
            }
        });
        let mut moves: Vec<Json> = all
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let child = children.get(i).filter(|c| &c.position == m);
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
        Reply::json(
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
                    "nodes": report.counters.nodes(),
                    "seconds": report.elapsed.as_secs_f64(),
                },
            }),
        )
    }
}

fn nimber(s: &Searched) -> Option<u32> {
    match s.answer {
        Answer::Nimber(n) => n,
        Answer::Value { .. } => None,
    }
}
