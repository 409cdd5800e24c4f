//! Conformance checks for game authors: walk every index of a small
//! instance of a [`Game`] and check that the index, the tiers, the moves and
//! (for loopy games) the parents agree with each other, as the solver
//! assumes but cannot check at full speed (GamesmanOne's test worker plays
//! the same part). Always compiled, and generic, so it costs a program
//! nothing it does not call; a cargo feature for it made `cargo test`
//! build the library twice.
//!
//! Each check panics with the game's spec and the offending index, as a
//! test assertion does, and returns what it counted. They allocate a byte
//! per index and visit every index, so use small instances.
//!
//! ```
//! use retrograde::games::Subtraction;
//! use retrograde::testing;
//!
//! let game = Subtraction::new(30, &[1, 3, 4], false)?;
//! assert_eq!(testing::check_game(&game), 31); // 31 legal positions
//! # Ok::<(), retrograde::Error>(())
//! ```

use crate::game::Game;

/// The checks of what the solver relies on: [`check_enumeration`]
/// (unordered), [`check_moves`] and, for a loopy game,
/// [`check_parents`]. Returns the number of legal positions.
pub fn check_game<G: Game>(g: &G) -> u64 {
    let legal = check_enumeration(g, false);
    check_moves(g);
    if !g.acyclic() {
        check_parents(g);
    }
    legal
}

/// [`check_enumeration`], and that units past the end of a tier and
/// tiers past the last are empty: calls the solver never makes, but
/// which a robust enumeration answers with nothing (the built-in games
/// do). Returns the legal indices.
pub fn check_units<G: Game>(g: &G, ordered: bool) -> u64 {
    let legal = check_enumeration(g, ordered);
    let spec = g.spec();
    g.for_each_in_unit(0, g.tier_units(0), |i, _| {
        panic!("{spec}: unit past the end of tier 0 yields index {i}")
    });
    g.for_each_in_unit(g.tier_count(), 0, |i, _| {
        panic!("{spec}: tier past the last yields index {i}")
    });
    legal
}

/// Walks every work unit of every tier and checks that the units
/// enumerate each legal index exactly once (and nothing else), that each
/// index round-trips through `decode` and `encode` and lies in its tier,
/// and, when `ordered`, that a tier's indices come in increasing order.
/// Returns the legal indices.
pub fn check_enumeration<G: Game>(g: &G, ordered: bool) -> u64 {
    let spec = g.spec();
    let mut seen = vec![0u8; g.size() as usize];
    for t in 0..g.tier_count() {
        let mut last = None;
        for u in 0..g.tier_units(t) {
            g.for_each_in_unit(t, u, |i, p| {
                assert!(
                    i < g.size(),
                    "{spec}: unit {u} of tier {t} yields index {i}, out of range"
                );
                assert_eq!(
                    g.encode(p),
                    i,
                    "{spec}: encode of the position unit {u} of tier {t} yields at {i}"
                );
                assert_eq!(g.decode(i).as_ref(), Some(p), "{spec}: decode({i})");
                assert_eq!(g.tier(p), t, "{spec}: tier of index {i}");
                if let Some(r) = g.tier_range(t) {
                    assert!(
                        r.contains(&i),
                        "{spec}: index {i} outside tier {t}'s range {r:?}"
                    );
                }
                assert!(
                    !ordered || last < Some(i),
                    "{spec}: index {i} out of increasing order in tier {t}"
                );
                last = Some(i);
                seen[i as usize] = seen[i as usize].saturating_add(1);
            });
        }
    }
    let mut legal = 0;
    for (i, &n) in seen.iter().enumerate() {
        let d = g.decode(i as u64);
        assert_eq!(
            n,
            u8::from(d.is_some()),
            "{spec}: index {i} is enumerated {n} times, but decode says {}",
            if d.is_some() {
                "legal"
            } else {
                "not a position"
            }
        );
        legal += u64::from(n);
    }
    assert_eq!(g.decode(g.size()), None, "{spec}: decode past the end");
    check_tier_ranges(g);
    legal
}

/// When the game declares [`Game::tier_range`]s: every tier has one, and
/// they tile `0..size` without overlap.
fn check_tier_ranges<G: Game>(g: &G) {
    let spec = g.spec();
    let ranges: Vec<_> = (0..g.tier_count()).map(|t| g.tier_range(t)).collect();
    if ranges.iter().all(Option::is_none) {
        return;
    }
    let mut ranges: Vec<_> = ranges
        .into_iter()
        .enumerate()
        .map(|(t, r)| r.unwrap_or_else(|| panic!("{spec}: tier {t} has no range")))
        .collect();
    ranges.sort_by_key(|r| r.start);
    let mut next = 0;
    for r in ranges {
        assert_eq!(
            r.start, next,
            "{spec}: tier ranges leave a gap or overlap at {next}"
        );
        assert!(r.end >= r.start, "{spec}: tier range {r:?} runs backwards");
        next = r.end;
    }
    assert_eq!(
        next,
        g.size(),
        "{spec}: tier ranges end at {next}, not at the size"
    );
}

/// Checks the moves of every legal position: a position that is not
/// game over has a move; every child's index is in range and decodes to
/// a position with the same index (its canonical image, for a folded
/// game); [`Game::for_each_child_index`] yields exactly the indices of
/// [`Game::moves`] (as a multiset), and [`Game::move_count`] their
/// number; in an acyclic game every child lies in a lower tier (the
/// tier just below, when the game declares [`Game::tier_range`]s). Returns
/// the moves counted.
pub fn check_moves<G: Game>(g: &G) -> u64 {
    let spec = g.spec();
    let mut total = 0;
    for i in 0..g.size() {
        let Some(p) = g.decode(i) else { continue };
        if g.primitive(&p).is_some() {
            continue;
        }
        let moves = g.moves(&p);
        assert!(
            !moves.is_empty(),
            "{spec}: index {i} is not game over but has no move"
        );
        let mut from_moves = Vec::with_capacity(moves.len());
        for (m, c) in &moves {
            let ci = g.encode(c);
            assert!(
                ci < g.size(),
                "{spec}: move {m:?} from index {i} leads to index {ci}, out of range"
            );
            let back = g.decode(ci);
            assert!(
                back.as_ref().is_some_and(|b| g.encode(b) == ci),
                "{spec}: move {m:?} from index {i} leads to index {ci}, which does not decode to a position of that index"
            );
            if g.acyclic() {
                assert!(
                    g.tier(c) < g.tier(&p),
                    "{spec}: move {m:?} from index {i} (tier {}) leads to tier {}, not below",
                    g.tier(&p),
                    g.tier(c)
                );
            }
            if g.tier_range(g.tier(&p)).is_some() {
                assert_eq!(
                    g.tier(c) + 1,
                    g.tier(&p),
                    "{spec}: move {m:?} from index {i} skips a tier, though the game declares tier ranges"
                );
            }
            from_moves.push(ci);
        }
        let mut yielded = Vec::with_capacity(moves.len());
        g.for_each_child_index(&p, |ci| yielded.push(ci));
        from_moves.sort_unstable();
        yielded.sort_unstable();
        assert_eq!(
            yielded, from_moves,
            "{spec}: for_each_child_index and moves disagree at index {i}"
        );
        assert_eq!(
            g.move_count(&p),
            moves.len() as u64,
            "{spec}: move_count at index {i}"
        );
        total += moves.len() as u64;
    }
    total
}

/// Checks a game's board view ([`View`](crate::games::View)) at every
/// legal position: the same cells (places and names) at every position,
/// only their states changing; pieces for both players or none; the
/// view's moves exactly the legal moves in order (none at a game's
/// end); each move's steps distinct cells of the board, the cells it
/// changes or exits, and no two moves clicked alike (as sets, where the
/// steps may come in any order). A number (take-away) board has no
/// cells and no steps. Returns the moves checked.
pub fn check_view<G: crate::games::View>(g: &G) -> u64 {
    use crate::games::board::{CellState, Layout};
    let spec = g.spec();
    let first = g.board_view(&g.start());
    let place = |v: &crate::games::BoardView| -> Vec<(u32, i32, i32, String)> {
        v.cells
            .iter()
            .map(|c| (c.layer, c.row, c.col, c.label.clone()))
            .collect()
    };
    let places = place(&first);
    let mut total = 0;
    for i in 0..g.size() {
        let Some(p) = g.decode(i) else { continue };
        let view = g.board_view(&p);
        let at = format!("{spec}: index {i} ({})", g.format_position(&p));
        assert_eq!(place(&view), places, "{at}: the cells moved");
        assert!(
            matches!(view.pieces.len(), 0 | 2),
            "{at}: pieces for {} players",
            view.pieces.len()
        );
        for c in &view.cells {
            if let CellState::Piece(k) | CellState::Exit(k) = c.state {
                assert!(k < 2, "{at}: a cell of player {k}");
            }
            if let CellState::Piece(k) = c.state {
                assert!(
                    usize::from(k) < view.pieces.len(),
                    "{at}: a piece of player {k}, who has no piece"
                );
            }
        }
        let legal: Vec<(G::Move, G::Position)> = if g.primitive(&p).is_some() {
            Vec::new()
        } else {
            g.moves(&p)
        };
        let names: Vec<String> = legal.iter().map(|(m, _)| g.format_move(m)).collect();
        let listed: Vec<String> = view.moves.iter().map(|m| m.mv.clone()).collect();
        assert_eq!(listed, names, "{at}: the view's moves");
        let number = matches!(view.layout, Layout::Number(_));
        assert!(
            !number || view.cells.is_empty(),
            "{at}: a number with cells"
        );
        let mut seen = std::collections::HashSet::new();
        for (m, (_, child)) in view.moves.iter().zip(&legal) {
            let what = format!("{at}, move {}", m.mv);
            total += 1;
            if number {
                assert!(m.steps.is_empty(), "{what}: steps on a number");
                continue;
            }
            assert!(!m.steps.is_empty(), "{what}: no step");
            let after = g.board_view(child);
            for (k, &s) in m.steps.iter().enumerate() {
                assert!(s < view.cells.len(), "{what}: step {s} is not a cell");
                assert!(!m.steps[..k].contains(&s), "{what}: cell {s} clicked twice");
                assert!(
                    matches!(view.cells[s].state, CellState::Exit(_))
                        || view.cells[s].state != after.cells[s].state,
                    "{what}: step {s} is a cell the move does not change"
                );
            }
            let mut key = m.steps.clone();
            if view.steps_any_order {
                key.sort_unstable();
            }
            assert!(seen.insert(key), "{what}: clicked as another move is");
        }
    }
    total
}

/// Checks a loopy game's parents against its children: for every legal
/// position `p` and child index `c`, [`Game::for_each_parent_index`] of
/// `c` yields `p` exactly as many times as `p` yields `c`, and every
/// parent yielded is a legal position that is not game over. Returns the
/// parent links counted.
pub fn check_parents<G: Game>(g: &G) -> u64 {
    let spec = g.spec();
    let mut total = 0;
    for i in 0..g.size() {
        let Some(p) = g.decode(i) else { continue };
        let mut parents = Vec::new();
        g.for_each_parent_index(&p, |pi| parents.push(pi));
        parents.sort_unstable();
        for pi in &parents {
            let parent = g.decode(*pi);
            let parent = parent
                .unwrap_or_else(|| panic!("{spec}: parent {pi} of index {i} is not a position"));
            assert!(
                g.primitive(&parent).is_none(),
                "{spec}: parent {pi} of index {i} is game over"
            );
        }
        let mut j = 0;
        while j < parents.len() {
            let pi = parents[j];
            let yielded = parents[j..].iter().take_while(|&&x| x == pi).count();
            let parent = g.decode(pi).unwrap_or_else(|| unreachable!());
            let mut moves_to = 0;
            g.for_each_child_index(&parent, |c| moves_to += usize::from(c == i));
            assert_eq!(yielded, moves_to, "{spec}: index {pi} is yielded {yielded} times as a parent of index {i}, but has {moves_to} moves to it");
            j += yielded;
        }
        if g.primitive(&p).is_none() {
            let mut children = Vec::new();
            g.for_each_child_index(&p, |c| children.push(c));
            for c in children {
                let child = g
                    .decode(c)
                    .unwrap_or_else(|| panic!("{spec}: child {c} of index {i} is not a position"));
                let mut back = 0;
                g.for_each_parent_index(&child, |pi| back += usize::from(pi == i));
                assert!(
                    back > 0,
                    "{spec}: index {i} moves to index {c}, which does not name it as a parent"
                );
            }
        }
        total += parents.len() as u64;
    }
    total
}
