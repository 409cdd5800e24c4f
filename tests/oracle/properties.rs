//! Property tests: Isolation's index, notation and move generation on random
//! boards and positions, and the cell codec.

use proptest::prelude::*;
use retrograde::games::{Isolation, IsolationPosition};
use retrograde::{CellCodec, Game, Outcome, TableKind, Value};

/// A board: R, C in 2..=6 with R·C ≤ 30 (5×6 and 6×5 the largest).
fn board() -> impl Strategy<Value = Isolation> {
    (2u32..=6, 2u32..=6)
        .prop_filter("at most 30 squares", |(r, c)| r * c <= 30)
        .prop_map(|(r, c)| Isolation::new(r, c).unwrap())
}

/// A random removed mask: sparse, even or dense.
fn mask() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (any::<u32>(), any::<u32>()).prop_map(|(x, y)| x & y),
        (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(x, y, z)| x & y & z),
        (any::<u32>(), any::<u32>()).prop_map(|(x, y)| x | y),
        Just(0u32),
    ]
}

/// A board and a legal position on it: two distinct piece squares and a
/// removed mask that contains neither.
fn board_and_position() -> impl Strategy<Value = (Isolation, IsolationPosition)> {
    board().prop_flat_map(|g| {
        let n = g.rows() * g.cols();
        (Just(g), 0..n, 0..n - 1, mask()).prop_map(move |(g, a, b, m)| {
            let b = if b >= a { b + 1 } else { b };
            let removed = m & ((1u32 << n) - 1) & !(1 << a) & !(1 << b);
            (
                g,
                IsolationPosition {
                    pieces: [a as u8, b as u8],
                    removed,
                },
            )
        })
    })
}

/// A board and an index in its range.
fn board_and_index() -> impl Strategy<Value = (Isolation, u64)> {
    board().prop_flat_map(|g| {
        let size = g.size();
        (Just(g), 0..size)
    })
}

fn squares(g: &Isolation) -> u32 {
    g.rows() * g.cols()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encode_decode_round_trip((g, p) in board_and_position()) {
        let i = g.encode(&p);
        prop_assert!(i < g.size(), "index {} >= size {}", i, g.size());
        prop_assert_eq!(g.decode(i), Some(p));
    }

    #[test]
    fn every_index_below_size_decodes((g, i) in board_and_index()) {
        let p = g.decode(i);
        prop_assert!(p.is_some(), "index {} of {} decodes to nothing", i, g.spec());
        let p = p.unwrap();
        let n = squares(&g);
        prop_assert!(u32::from(p.pieces[0]) < n && u32::from(p.pieces[1]) < n);
        prop_assert_ne!(p.pieces[0], p.pieces[1]);
        prop_assert_eq!(p.removed >> n, 0);
        prop_assert_eq!(p.removed & (1 << p.pieces[0] | 1 << p.pieces[1]), 0);
        prop_assert_eq!(g.encode(&p), i);
    }

    #[test]
    fn decode_is_none_from_size_on(g in board(), extra in 0u64..1000) {
        prop_assert_eq!(g.decode(g.size()), None);
        prop_assert_eq!(g.decode(g.size() + extra), None);
        prop_assert_eq!(g.decode(u64::MAX - extra), None);
    }

    #[test]
    fn notation_round_trips((g, p) in board_and_position()) {
        let s = g.format_position(&p);
        let n = squares(&g) as usize;
        prop_assert_eq!(s.len(), n + g.rows() as usize - 1);
        prop_assert_eq!(g.parse_position(&s), Ok(p), "{}", s);
    }

    #[test]
    fn child_indices_match_moves((g, p) in board_and_position()) {
        let mut fast = Vec::new();
        g.for_each_child_index(&p, |c| fast.push(c));
        let moves = g.moves(&p);
        let mut slow: Vec<u64> = moves.iter().map(|(_, c)| g.encode(c)).collect();
        fast.sort_unstable();
        slow.sort_unstable();
        prop_assert_eq!(&fast, &slow, "{}", g.format_position(&p));
        let mut distinct = slow.clone();
        distinct.dedup();
        prop_assert_eq!(distinct.len(), slow.len(), "repeated child");
        prop_assert_eq!(g.move_count(&p), slow.len() as u64);
        prop_assert_eq!(g.primitive(&p).is_some(), moves.is_empty());
        if moves.is_empty() {
            prop_assert_eq!(g.primitive(&p), Some(Value::Lose));
        }
        let tier = g.tier(&p);
        prop_assert!(tier < g.tier_count());
        for &c in &fast {
            prop_assert!(c < g.size());
            let child = g.decode(c).unwrap();
            prop_assert_eq!(g.tier(&child) + 1, tier, "child {}", g.format_position(&child));
        }
    }

    #[test]
    fn moves_follow_the_rules((g, p) in board_and_position()) {
        let n = squares(&g);
        let cols = g.cols() as i32;
        let mover = (p.removed.count_ones() % 2) as usize;
        prop_assert_eq!(g.player_to_move(&p), Some(mover as u8));
        let from = i32::from(p.pieces[mover]);
        let other = i32::from(p.pieces[1 - mover]);
        // Completeness: every king step onto a present square not holding the
        // other piece, times every square left free after it.
        let rows = g.rows() as i32;
        let mut steps = 0u64;
        for dr in -1..=1 {
            for dc in -1..=1 {
                let (r, c) = (from / cols + dr, from % cols + dc);
                let to = r * cols + c;
                if (dr, dc) != (0, 0)
                    && (0..rows).contains(&r)
                    && (0..cols).contains(&c)
                    && p.removed & (1 << to) == 0
                    && to != other
                {
                    steps += 1;
                }
            }
        }
        let free = u64::from(n - 2 - p.removed.count_ones());
        prop_assert_eq!(g.moves(&p).len() as u64, steps * free);
        for (m, c) in g.moves(&p) {
            let to = i32::from(m.to);
            // A king step onto a present square the other piece is not on.
            prop_assert!((to / cols - from / cols).abs() <= 1 && (to % cols - from % cols).abs() <= 1);
            prop_assert_ne!(to, from);
            prop_assert_eq!(p.removed & (1 << m.to), 0);
            prop_assert_ne!(m.to, p.pieces[1 - mover]);
            // The removal: a present square no piece stands on afterwards.
            prop_assert!(u32::from(m.remove) < n);
            prop_assert_eq!(p.removed & (1 << m.remove), 0);
            prop_assert_ne!(m.remove, m.to);
            prop_assert_ne!(m.remove, p.pieces[1 - mover]);
            let mut pieces = p.pieces;
            pieces[mover] = m.to;
            prop_assert_eq!(c, IsolationPosition { pieces, removed: p.removed | 1 << m.remove });
            prop_assert_eq!(g.format_move(&m), format!("{}x{}", m.to, m.remove));
        }
    }

    #[test]
    fn cell_codec_round_trips(
        width in prop_oneof![Just(1u8), Just(2u8), Just(4u8)],
        v in prop_oneof![Just(Value::Win), Just(Value::Lose), Just(Value::Tie)],
        r in any::<u32>(),
    ) {
        let c = CellCodec::new(width);
        prop_assert_eq!(c.width(), width);
        let max = c.max_remoteness();
        prop_assert_eq!(u64::from(max), (1u64 << (8 * u32::from(width) - 2)) - 1);
        let r_fit = r % (max + 1);
        let cell = c.encode(v, r_fit);
        prop_assert!(cell.is_some());
        let cell = cell.unwrap();
        prop_assert!(cell != 0);
        prop_assert!(u64::from(cell) < 1u64 << (8 * u32::from(width)), "cell overflows its width");
        prop_assert_eq!(c.decode(cell), Some(Outcome { value: v, remoteness: Some(r_fit) }));
        prop_assert_eq!(c.encode_outcome(Outcome { value: v, remoteness: Some(r_fit) }), Some(cell));
        prop_assert_eq!(c.remoteness(cell), r_fit);
        if r > max {
            prop_assert_eq!(c.encode(v, r), None);
        }
    }

    #[test]
    fn cell_codec_decodes_any_cell_consistently(
        width in prop_oneof![Just(1u8), Just(2u8), Just(4u8)],
        raw in any::<u32>(),
    ) {
        let c = CellCodec::new(width);
        let cell = if width == 4 { raw } else { raw & ((1u32 << (8 * u32::from(width))) - 1) };
        match c.decode(cell) {
            // Only "nothing here" and impossible code-00 cells decode to None.
            None => prop_assert!(cell != 1 && c.code(cell) == 0),
            Some(o) => prop_assert_eq!(c.encode_outcome(o), Some(cell)),
        }
    }
}

proptest! {
    #[test]
    fn nimber_codec_round_trips(
        width in prop_oneof![Just(1u8), Just(2u8), Just(4u8)],
        k in any::<u32>(),
    ) {
        let c = CellCodec::nimbers(width);
        prop_assert_eq!(c.kind(), TableKind::Nimber);
        prop_assert_eq!(c.width(), width);
        let max = c.max_nimber();
        prop_assert_eq!(u64::from(max), (1u64 << (8 * u32::from(width))) - 2);
        let k_fit = k % max;
        let cell = c.encode_nimber(k_fit).unwrap();
        prop_assert!(cell != 0);
        prop_assert!(u64::from(cell) < 1u64 << (8 * u32::from(width)));
        prop_assert_eq!(c.nimber(cell), Some(k_fit));
        let value = if k_fit == 0 { Value::Lose } else { Value::Win };
        prop_assert_eq!(c.decode(cell), Some(Outcome { value, remoteness: None }));
        prop_assert_eq!(c.encode_nimber(max).map(|x| c.nimber(x)), Some(Some(max)));
        if k > max {
            prop_assert_eq!(c.encode_nimber(k), None);
        }
        // A value codec never reads a nimber.
        prop_assert_eq!(CellCodec::new(width).nimber(cell), None);
    }
}

#[test]
fn draw_and_empty_cells() {
    for width in [1u8, 2, 4] {
        let c = CellCodec::new(width);
        assert_eq!(c.decode(0), None);
        assert_eq!(c.decode(1), Some(Outcome::DRAW));
        assert_eq!(c.encode_outcome(Outcome::DRAW), Some(1));
        assert_eq!(CellCodec::nimbers(width).nimber(0), None);
        assert_eq!(CellCodec::nimbers(width).decode(0), None);
    }
}

/// Exhaustively on the small boards: every index decodes and re-encodes, and
/// the tier enumeration covers every index exactly once.
#[test]
fn small_boards_exhaustive() {
    for (r, c) in [
        (2, 2),
        (2, 3),
        (3, 2),
        (2, 4),
        (3, 3),
        (2, 5),
        (2, 6),
        (3, 4),
        (4, 3),
    ] {
        let g = Isolation::new(r, c).unwrap();
        let size = g.size();
        let mut seen = vec![0u8; size as usize];
        for i in 0..size {
            let p = g.decode(i).expect("decodes");
            assert_eq!(g.encode(&p), i, "{}", g.spec());
        }
        assert_eq!(g.decode(size), None);
        for t in 0..g.tier_count() {
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(g.encode(p), i);
                    assert_eq!(g.tier(p), t);
                    seen[i as usize] += 1;
                });
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "{}: tier cover", g.spec());
    }
}
