use super::*;
use crate::game::Game;

const TTT: &str = "# tic-tac-toe\nname ttt\nrows 3 3 3\n0 1 2\n3 4 5\n6 7 8\n0 3 6\n1,4,7\n2 5 8 # col\n0 4 8\n2 4 6\n";

fn ttt() -> PatternGame {
    PatternGame::from_text(TTT, "ttt.txt").unwrap()
}

/// A small irregular board: 7 squares, patterns of sizes 1 to 3 that
/// overlap, one redundant (a superset).
fn odd() -> PatternGame {
    PatternGame::from_text(
        "name odd\nsquares 7\nrows 3 4\n0 1\n1 2 3\n2 4 6\n5 6\n0 1 5\n3 5\n",
        "odd",
    )
    .unwrap()
}

#[test]
fn sizes_follow_the_formula() {
    let size = |n: u32| PatternBoard::new(n, &[1], &[]).unwrap().size();
    assert_eq!(size(9), 6_046);
    assert_eq!(size(16), 10_165_779);
    assert_eq!(size(20), 741_365_049);
    assert_eq!(size(1), 2);
}

#[test]
fn ownership_table_matches_the_patterns() {
    for g in [ttt(), odd()] {
        let b = g.board();
        for m in 0..1u32 << b.squares() {
            let direct = b.patterns().iter().any(|&p| p & !m == 0);
            assert_eq!(b.owns(m), direct, "mask {m:b}");
        }
    }
}

#[test]
fn supersets_and_repeats_are_dropped() {
    let g = odd();
    assert_eq!(
        g.board().pattern_lists("."),
        ["0.1", "1.2.3", "2.4.6", "3.5", "5.6"]
    );
    assert_eq!(
        g.spec(),
        "pattern:odd:squares=7:rows=3.4:lines=0.1,1.2.3,2.4.6,3.5,5.6"
    );
}

#[test]
fn index_round_trips_and_units_cover_every_index_once() {
    for g in [ttt(), odd()] {
        let mut seen = vec![0u8; g.size() as usize];
        for t in 0..g.tier_count() {
            for u in 0..g.tier_units(t) {
                g.for_each_in_unit(t, u, |i, p| {
                    assert_eq!(g.encode(p), i);
                    assert_eq!(g.decode(i), Some(*p));
                    assert_eq!(g.tier(p), t);
                    seen[i as usize] += 1;
                });
            }
        }
        for (i, &c) in seen.iter().enumerate() {
            assert!(c <= 1);
            assert_eq!(c == 1, g.decode(i as u64).is_some(), "index {i}");
        }
        assert_eq!(g.decode(g.size()), None);
    }
}

#[test]
fn folded_index_round_trips_children_agree_and_units_cover_it_once() {
    // 4x4 with rows, columns and 2x2 squares: 8 symmetries, and big
    // enough that tiers span several units (units start mid-slot).
    let mut lines = Vec::new();
    for i in 0..4 {
        lines.push(0xf << (4 * i));
        lines.push(0x1111 << i);
    }
    for r in 0..3 {
        for c in 0..3 {
            lines.push(0x33 << (4 * r + c));
        }
    }
    let plain = PatternBoard::new(16, &lines, &[4, 4, 4, 4]).unwrap();
    let b = plain.folded().unwrap();
    assert_eq!(b.symmetries(), 8);
    assert!(
        b.size() * 7 < plain.size(),
        "{} of {}",
        b.size(),
        plain.size()
    );
    assert!(b.tier_units(8) > 1);
    let mut seen = vec![0u8; b.size() as usize];
    for t in 0..b.tier_count() {
        for u in 0..b.tier_units(t) {
            b.for_each_in_unit(t, u, |i, p| {
                assert_eq!(b.encode(p), i);
                assert_eq!(b.decode(i), Some(*p));
                assert_eq!(b.tier(p), t);
                seen[i as usize] += 1;
                if b.primitive(p).is_none() {
                    let mut fast = Vec::new();
                    b.for_each_child_index(p, |c| fast.push(c));
                    let slow: Vec<u64> = b.moves(p).iter().map(|(_, c)| b.encode(c)).collect();
                    assert_eq!(fast, slow);
                }
            });
        }
    }
    for (i, &c) in seen.iter().enumerate() {
        assert!(c <= 1);
        assert_eq!(c == 1, b.decode(i as u64).is_some(), "index {i}");
    }
    // Every plain position lands on a folded index holding an image of
    // it under one of the symmetries.
    let sym = BoardSymmetries::grid(4, 4);
    for i in (0..plain.size()).step_by(7) {
        let Some(p) = plain.decode(i) else { continue };
        let q = b.decode(b.encode(&p)).unwrap();
        assert!(
            (0..8).any(|g| sym.mask(g, p.x) == q.x && sym.mask(g, p.o) == q.o),
            "{p:?} -> {q:?}"
        );
    }
    assert_eq!(b.unfolded(), plain);
    assert_ne!(b, plain);
}

#[test]
fn units_split_big_tiers() {
    // 16 squares: tiers are larger than a unit, so units start mid-tier.
    let b = PatternBoard::new(16, &[0xf, 0xf0, 0x1111], &[4, 4, 4, 4]).unwrap();
    let tier = 8; // 8 pieces
    assert!(b.tier_units(tier) > 1);
    let mut last = None;
    let mut count = 0u64;
    let mut illegal = 0u64;
    for u in 0..b.tier_units(tier) {
        b.for_each_in_unit(tier, u, |i, p| {
            assert!(last < Some(i));
            last = Some(i);
            assert_eq!(b.encode(p), i);
            count += 1;
        });
    }
    let lo = b.offsets[8];
    let hi = b.offsets[9];
    for i in lo..hi {
        if b.decode(i).is_none() {
            illegal += 1;
        }
    }
    assert_eq!(count + illegal, hi - lo);
}

#[test]
fn child_indices_agree_with_moves() {
    for g in [ttt(), odd()] {
        for i in 0..g.size() {
            let Some(p) = g.decode(i) else { continue };
            if g.primitive(&p).is_some() {
                assert!(g.moves(&p).is_empty());
                continue;
            }
            let mut fast = Vec::new();
            g.for_each_child_index(&p, |c| fast.push(c));
            let slow: Vec<u64> = g.moves(&p).iter().map(|(_, c)| g.encode(c)).collect();
            assert_eq!(fast, slow, "{}", g.format_position(&p));
            assert_eq!(g.move_count(&p), slow.len() as u64);
            for c in fast {
                let child = g.decode(c).expect("a child is a position");
                assert_eq!(g.tier(&child) + 1, g.tier(&p));
            }
        }
    }
}

#[test]
fn primitive_values() {
    let g = ttt();
    let p = g.parse_position("xxx/oo./...").unwrap();
    assert_eq!(g.primitive(&p), Some(Value::Lose));
    let p = g.parse_position("xox/xoo/oxx").unwrap();
    assert_eq!(g.primitive(&p), Some(Value::Tie));
    let p = g.parse_position("xox/xoo/ox.").unwrap();
    assert_eq!(g.primitive(&p), None);
}

#[test]
fn notation_round_trips_and_refuses_bad_input() {
    let g = ttt();
    let p = g.parse_position("x.o/.x./...").unwrap();
    assert_eq!(p, g.parse_position("X.O.X....").unwrap());
    assert_eq!(g.format_position(&p), "x.o/.x./...");
    assert_eq!(g.player_to_move(&p), Some(1));
    for bad in [
        "",
        "x.o/.x.",
        "x.o/.x./..",
        "x.o/.x./....",
        "x.o.x...",
        "x.o/.x./..z",
        "xx./.../...",
        "o../.../...",
        "xxx/oo./..o",
        "xxx/ooo/x..",
        "ooo/xx./xx.",
        "x.o/.x./..é",
        "////",
    ] {
        let e = g.parse_position(bad).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
    assert_eq!(g.format_move(&4), "4");
}

#[test]
fn file_errors_name_the_line() {
    let cases = [
        ("name t\nsquares 4\n0 1\n0 5\n", "f line 4: square 5 is off"),
        (
            "name t\nsquares 4\n0 1 1\n",
            "f line 3: square 1 appears twice",
        ),
        (
            "name t\nsquares 4\n\n0 a\n",
            "f line 4: 'a' is not a square",
        ),
        (
            "name t\nsquares 4\nfoo 1\n",
            "f line 3: unknown keyword 'foo'",
        ),
        (
            "name t\nname u\nsquares 4\n0\n",
            "f line 2: 'name' is given twice",
        ),
        ("name t:u\nsquares 4\n0\n", "f line 1: name 't:u'"),
        (
            "name t\nsquares 26\n0\n",
            "f line 2: a board has 1 to 25 squares, not 26",
        ),
        (
            "name t\nsquares 5\nrows 2 2\n0\n",
            "f line 2: squares 5 disagrees",
        ),
        ("squares 4\n0 1\n", "f: no 'name' line"),
        ("name t\n0 1\n", "f: neither 'squares' nor 'rows'"),
        ("name t\nsquares 3\n", "f: no patterns"),
    ];
    for (text, want) in cases {
        let e = PatternGame::from_text(text, "f").unwrap_err();
        assert!(e.starts_with(want), "{e} (wanted {want})");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn specs_round_trip_through_the_registry() {
    for g in [ttt(), odd()] {
        let spec = g.spec();
        let again = crate::games::AnyGame::parse(&spec).unwrap();
        assert_eq!(again.spec(), spec);
        assert_eq!(again, crate::games::AnyGame::Pattern(g.clone()), "{spec}");
    }
    // The name and the CRC-32 of the canonical spec: files named alike
    // with other patterns get other stems.
    assert_eq!(ttt().file_stem(), "pattern-ttt-59110830");
    assert_eq!(
        ttt().file_stem(),
        format!(
            "pattern-ttt-{:08x}",
            crc32fast::hash(ttt().spec().as_bytes())
        )
    );
    assert_eq!(
        ttt().folded().unwrap().file_stem(),
        "pattern-ttt-59110830-folded"
    );
    for bad in [
        "",
        "t:squares=3",
        "t:squares=3:lines=",
        "t:squares=3:lines=0.3",
        "t:squares=3:lines=0.0",
        "t:squares=x:lines=0",
        "t:squares=30:lines=0",
        "t:rows=2.x:lines=0",
        "t:squares=3:rows=1.1:lines=0",
        "t!:squares=3:lines=0",
        "t:squares=3:squares=3:lines=0",
        "/nonexistent/file.txt",
        "/",
        "t:rows=4294967295.2:lines=0",
        "t:rows=4294967295.4294967295.2:lines=0",
    ] {
        let e = PatternGame::from_params(bad).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
    let g = PatternGame::from_params("t:rows=2.1:lines=0.1,2").unwrap();
    assert_eq!(g.spec(), "pattern:t:squares=3:rows=2.1:lines=0.1,2");
}
