//! Formatting shared by several commands: numbers and sizes, one-line
//! position descriptions, the header's counts, and their JSON forms.

use retrograde::format::Header;
use retrograde::search::engine::Counted;
use retrograde::search::run::{Answer, CheckOutcome, SearchReport, Searched};
use retrograde::search::{value_of, Stop};
use retrograde::{Outcome, PositionInfo, TableKind, Value};
use serde_json::{json, Value as Json};
use std::path::Path;

use super::color::paint;

pub use retrograde::internal::text::{human_bytes, thousands};

/// `"nothing"` where a file has no answer for a position.
pub fn show(o: Option<Outcome>) -> String {
    o.map_or("nothing".to_string(), |o| o.to_string())
}

pub fn outcome_json(o: Outcome) -> (Json, Json) {
    (json!(o.value.name()), json!(o.remoteness))
}

/// One line about a position, for `probe`, `line`, `play` and `solve`'s
/// last line. A game with players names the one to move
/// (`POS: player 0 to move, win in 11`); an impartial game has no side to
/// name, so the sentence is about whoever moves
/// (`POS: the player to move wins in 571`), and a nimber table, which holds
/// no remoteness, leads with the nimber (`POS: nimber 2, the player to move
/// wins`).
pub fn describe(p: &PositionInfo) -> String {
    let over = if p.primitive { " (game over)" } else { "" };
    match (p.to_move, p.nimber) {
        (Some(m), nimber) => format!(
            "{}: player {m} to move, {}{}{over}",
            p.position,
            paint(p.outcome.value, &p.outcome.to_string()),
            nimber.map_or(String::new(), |k| format!(" (nimber {k})"))
        ),
        (None, None) => format!(
            "{}: the player to move {}{over}",
            p.position,
            paint(p.outcome.value, &as_verb(p.outcome))
        ),
        (None, Some(k)) => format!(
            "{}: nimber {k}, the player to move {}{over}",
            p.position,
            paint(p.outcome.value, &as_verb(p.outcome))
        ),
    }
}

/// A move's result for the player making it (`probe --moves`, `play`'s
/// hints and moves): `win in 10` is a win 10 moves after this one; a move
/// that ends the game is `win by this move` (the position it leads to is
/// "lose in 0", which flipped would read "win in 0").
pub fn move_result(o: Outcome) -> String {
    match o.remoteness {
        Some(0) => format!("{} by this move", o.value),
        _ => o.to_string(),
    }
}

/// An outcome as what the player to move does: `wins in 5`, `loses`.
fn as_verb(o: Outcome) -> String {
    let verb = match o.value {
        Value::Win => "wins",
        Value::Lose => "loses",
        Value::Tie => "ties",
        Value::Draw => "draws",
    };
    match o.remoteness {
        Some(r) => format!("{verb} in {r}"),
        None => verb.to_string(),
    }
}

pub fn position_json(p: &PositionInfo) -> Json {
    let (value, remoteness) = outcome_json(p.outcome);
    json!({
        "position": p.position,
        "index": p.index,
        "to_move": p.to_move,
        "value": value,
        "remoteness": remoteness,
        "nimber": p.nimber,
        "primitive": p.primitive,
    })
}

pub fn print_counts(h: &Header) {
    let s = &h.summary;
    for v in Value::ALL {
        let c = s.counts[v.ordinal()];
        let max = match v {
            Value::Draw => String::new(),
            _ if c == 0 || h.kind() == TableKind::Nimber => String::new(),
            _ => format!(" (largest remoteness {})", s.max_remoteness[v.ordinal()]),
        };
        println!("  {:<13} {:>16}{}", v.name(), thousands(c), max);
    }
    if s.non_positions > 0 {
        println!(
            "  {:<13} {:>16}",
            "non-positions",
            thousands(s.non_positions)
        );
    }
}

pub fn header_json(h: &Header, path: &Path) -> Json {
    let s = &h.summary;
    json!({
        "file": path.display().to_string(),
        "game": h.spec,
        "format_version": h.version,
        "index_scheme": h.index_scheme,
        "folded": h.flags & retrograde::format::FLAG_FOLDED != 0,
        "cell_width": h.cell_width,
        "table": h.kind().name(),
        "entries": h.entries,
        "data_offset": h.data_offset,
        "file_size": h.file_len(),
        "data_crc32": format!("{:08x}", h.data_crc),
        "generator": h.generator,
        "counts": {
            "win": s.counts[0], "lose": s.counts[1], "tie": s.counts[2], "draw": s.counts[3],
            "non_positions": s.non_positions,
        },
        "max_remoteness": {
            "win": s.max_remoteness[0], "lose": s.max_remoteness[1], "tie": s.max_remoteness[2],
        },
        "max_nimber": (h.kind() == TableKind::Nimber).then_some(s.max_nimber),
    })
}

/// The report as JSON, with what was loaded and the save's outcome; with
/// `--moves`, the position's fields and its children as `moves`.
pub fn search_json(r: &SearchReport, moves: bool) -> Json {
    let seconds = r.elapsed.as_secs_f64();
    let mut out = json!({ "game": r.game });
    let s = &r.stats;
    merge(
        &mut out,
        match s.counted {
            Counted::ProofNumbers | Counted::AlphaBeta => json!({
                "nodes": s.nodes,
                "seconds": seconds,
                "nodes_per_second": s.nodes as f64 / r.node_seconds().max(1e-9),
                "table_entries": s.tt_capacity,
                "table_used": s.tt_used,
                "table_bytes": s.tt_bytes,
                "threads": s.threads,
                "leaf_hits": s.leaf_hits,
                "engine": r.engine.map(|e| e.name()),
                "score_table": s.score_table.map(|t| json!({
                    "entries": t.capacity,
                    "used": t.used,
                    "bytes": t.bytes,
                })),
            }),
            Counted::Components => json!({
                "components": s.nodes,
                "memo": s.tt_used,
                "leaf_hits": s.leaf_hits,
                "seconds": seconds,
            }),
        },
    );
    out["proven"] = json!(r.proven);
    out["stopped"] = json!(r.stopped.map(Stop::name));
    out["deepest"] = json!(s.deepest);
    if let (true, Some((root, children))) = (moves, r.moves()) {
        merge(&mut out, searched_json(root));
        out["to_move"] = json!(root.to_move);
        out["remoteness"] = json!(root.remoteness);
        out["score"] = json!(root.score);
        let top = children
            .first()
            .filter(|m| m.value().is_some())
            .map(|m| m.for_mover());
        out["moves"] = children
            .iter()
            .map(|m| move_json(m, top.is_some_and(|t| rank_eq(t, m.for_mover()))))
            .collect();
    } else if r.openings {
        out["openings"] = r
            .results
            .iter()
            .map(|s| {
                let mut p = searched_json(s);
                // Each opening's value is for its own player to move.
                p["to_move"] = json!(s.to_move);
                let counted = match s.answer {
                    Answer::Value { .. } => "nodes",
                    Answer::Nimber(_) => "components",
                };
                p[counted] = json!(s.nodes);
                p["seconds"] = json!(s.elapsed.as_secs_f64());
                p
            })
            .collect();
    } else if let Some(s) = r.results.first() {
        // The one position's fields beside the counters, which give its
        // nodes and time.
        merge(&mut out, searched_json(s));
    }
    out["loaded"] = json!(r
        .loaded
        .as_ref()
        .map_or(0, |l| l.report.checked + l.report.trusted));
    if let Some(l) = &r.loaded {
        out["loaded_unchecked"] = json!(l.report.unchecked);
        out["loaded_trusted"] = json!(l.report.trusted);
        out["load_seconds"] = json!(l.elapsed.as_secs_f64());
    }
    let saved = r.saved.as_ref();
    out["saved"] = json!(saved.and_then(|s| s.as_ref().ok()).map(|s| s.entries));
    if let Some(Err(e)) = saved {
        out["save_error"] = json!(e.to_string());
    }
    out
}

/// What was proven of one position.
fn searched_json(s: &Searched) -> Json {
    match &s.answer {
        Answer::Value { bounds, best_move } => json!({
            "position": s.position,
            "value": bounds.value().map(|v| v.name()),
            "bounds": {
                "at_least": value_of(bounds.lo).name(),
                "at_most": value_of(bounds.hi).name(),
            },
            "best_move": best_move,
        }),
        Answer::Nimber(n) => json!({
            "position": s.position,
            "nimber": n,
            "value": s.value().map(|v| v.name()),
        }),
    }
}

/// Whether two proven moves rank alike for their mover (both best).
fn rank_eq(a: Option<Outcome>, b: Option<Outcome>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.child_rank() == b.child_rank(),
        _ => false,
    }
}

/// One listed move as `probe --moves --json` gives it: its value and
/// remoteness for the player who makes it (the position it leads to:
/// its nimber), its score for the mover where the engine gives one
/// (Connect-Four), whether it is as good as the best, and its search.
fn move_json(m: &Searched, best: bool) -> Json {
    let mover = m.for_mover();
    let mut j = json!({
        "move": m.mv,
        "position": m.position,
        "value": mover.map(|o| o.value.name()),
        "remoteness": mover.and(m.remoteness),
        "score": m.mover_score(),
        "best": best,
        "nodes": m.nodes,
        "seconds": m.elapsed.as_secs_f64(),
    });
    match &m.answer {
        Answer::Nimber(n) => j["nimber"] = json!(n),
        Answer::Value { bounds, .. } => {
            let b = bounds.flip();
            j["bounds"] = json!({
                "at_least": value_of(b.lo).name(),
                "at_most": value_of(b.hi).name(),
            });
        }
    }
    j
}

/// `--check --json`: what the database holds for the position.
pub fn check_json(c: &CheckOutcome) -> Json {
    json!({
        "game": c.game,
        "position": c.position,
        "checked": c.report.checked,
        "searched": c.report.searched,
        "entry": c.entry_text(),
        "seconds": c.elapsed.as_secs_f64(),
    })
}

/// Adds the fields of the object `more` to the object `out`.
fn merge(out: &mut Json, more: Json) {
    if let (Some(out), Json::Object(more)) = (out.as_object_mut(), more) {
        out.extend(more);
    }
}

#[cfg(test)]
mod tests {
    use super::{describe, human_bytes, move_result};
    use retrograde::{Outcome, PositionInfo, Value};

    fn info(
        to_move: Option<u8>,
        value: Value,
        remoteness: Option<u32>,
        nimber: Option<u32>,
    ) -> PositionInfo {
        PositionInfo {
            position: "P".into(),
            index: 0,
            to_move,
            outcome: Outcome { value, remoteness },
            nimber,
            primitive: remoteness == Some(0),
            moves: Vec::new(),
        }
    }

    /// An impartial game has no player to name: the line says what whoever
    /// moves gets ("to move, win in 571" read as if "to move" were a side).
    #[test]
    fn a_position_is_described_in_words_true_of_its_game() {
        assert_eq!(
            describe(&info(Some(0), Value::Win, Some(11), None)),
            "P: player 0 to move, win in 11"
        );
        assert_eq!(
            describe(&info(Some(1), Value::Lose, Some(0), None)),
            "P: player 1 to move, lose in 0 (game over)"
        );
        assert_eq!(
            describe(&info(Some(0), Value::Draw, None, None)),
            "P: player 0 to move, draw"
        );
        assert_eq!(
            describe(&info(None, Value::Win, Some(571), None)),
            "P: the player to move wins in 571"
        );
        assert_eq!(
            describe(&info(None, Value::Lose, Some(0), None)),
            "P: the player to move loses in 0 (game over)"
        );
        assert_eq!(
            describe(&info(None, Value::Tie, Some(3), None)),
            "P: the player to move ties in 3"
        );
        assert_eq!(
            describe(&info(None, Value::Win, None, Some(2))),
            "P: nimber 2, the player to move wins"
        );
        assert_eq!(
            describe(&info(None, Value::Lose, None, Some(0))),
            "P: nimber 0, the player to move loses"
        );
    }

    /// A move that ends the game reads as what it does, never "win in 0".
    #[test]
    fn a_move_that_ends_the_game_says_so() {
        let o = |value, remoteness| Outcome { value, remoteness };
        assert_eq!(move_result(o(Value::Win, Some(0))), "win by this move");
        assert_eq!(move_result(o(Value::Lose, Some(0))), "lose by this move");
        assert_eq!(move_result(o(Value::Tie, Some(0))), "tie by this move");
        assert_eq!(move_result(o(Value::Win, Some(1))), "win in 1");
        assert_eq!(move_result(o(Value::Draw, None)), "draw");
    }

    #[test]
    fn sizes_are_printed_in_a_unit_that_shows_them() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1023), "1023 bytes");
        assert_eq!(human_bytes(10_142), "9.90 KiB");
        assert_eq!(human_bytes(2 << 20), "2.00 MiB");
        assert_eq!(human_bytes(5_033_164_800 + 4096), "4.69 GiB");
        assert_eq!(human_bytes(3 << 40), "3.00 TiB");
    }
}
