use super::*;
use crate::games::symmetry::BoardSymmetries;

#[test]
fn default_start_squares_match_the_reference() {
    let g = Isolation::new(4, 4).unwrap();
    assert_eq!(g.format_position(&g.start()), ".0../..../..../..1.");
    let g = Isolation::new(5, 5).unwrap();
    assert_eq!(g.start_squares(), [2, 22]);
    let g = Isolation::new(4, 5).unwrap();
    assert_eq!(g.start_squares(), [2, 17]);
}

#[test]
fn sizes_match_the_tight_index() {
    assert_eq!(Isolation::new(5, 5).unwrap().size(), 5_033_164_800);
    assert_eq!(Isolation::new(4, 4).unwrap().size(), 16 * 15 * (1 << 14));
}

#[test]
fn reference_example_hash_board_bits() {
    // `0.../...x/.x../...1`: squares 7 and 9 removed.
    let g = Isolation::new(4, 4).unwrap();
    let p = g.parse_position("0.../...x/.x../...1").unwrap();
    assert_eq!(p.removed, (1 << 7) | (1 << 9));
    assert_eq!(g.player_to_move(&p), Some(0));
    assert_eq!(g.decode(g.encode(&p)), Some(p));
}

#[test]
fn child_indices_agree_with_moves() {
    let g = Isolation::new(3, 4).unwrap();
    for i in (0..g.size()).step_by(7) {
        let p = g.decode(i).unwrap();
        let mut fast = Vec::new();
        g.for_each_child_index(&p, |c| fast.push(c));
        let mut slow: Vec<u64> = g.moves(&p).iter().map(|(_, c)| g.encode(c)).collect();
        fast.sort_unstable();
        slow.sort_unstable();
        assert_eq!(fast, slow, "position {}", g.format_position(&p));
        assert_eq!(g.move_count(&p), slow.len() as u64);
    }
}

#[test]
fn units_cover_every_index_once() {
    let g = Isolation::new(3, 3).unwrap();
    let mut seen = vec![0u8; g.size() as usize];
    for t in 0..g.tier_count() {
        for u in 0..g.tier_units(t) {
            g.for_each_in_unit(t, u, |i, p| {
                assert_eq!(g.encode(p), i);
                assert_eq!(g.tier(p), t);
                seen[i as usize] += 1;
            });
        }
    }
    assert!(seen.iter().all(|&c| c == 1));
}

#[test]
fn conformance_plain_folded_and_misere() {
    use crate::testing::{check_moves, check_units};
    for spec in ["3x3", "3x4", "4x3", "4x4", "3x3:misere", "3x4:misere"] {
        let plain = Isolation::from_params(spec).unwrap();
        let folded = plain.folded().unwrap();
        assert_eq!((plain.index_scheme(), folded.index_scheme()), (3, 4));
        for g in [&plain, &folded] {
            // Every index is a legal position in both schemes.
            assert_eq!(check_units(g, true), g.size(), "{}", g.spec());
            assert!(check_moves(g) > 0, "{}", g.spec());
        }
    }
}

#[test]
fn tier_ranges_run_down_the_index() {
    let g = Isolation::new(3, 4).unwrap();
    // Tier 10 (nothing removed): 12·11 pairs of one board each.
    assert_eq!(g.tier_range(10), Some(0..132));
    assert_eq!(g.tier_range(9), Some(132..132 * 11));
    assert_eq!(g.tier_range(0), Some(g.size() - 132..g.size()));
    assert_eq!(g.tier_range(11), None);
    let f = g.folded().unwrap();
    assert_eq!(f.tier_range(10), Some(0..f.blocks()));
}

/// The solver's compound path needs a position's intermediates in its
/// own group's units: checked for every position of every tier.
#[test]
fn intermediates_stay_in_their_group() {
    for (r, c) in [(3, 3), (3, 4), (4, 4)] {
        for g in [
            Isolation::new(r, c).unwrap(),
            Isolation::new(r, c).unwrap().folded().unwrap(),
        ] {
            let m = g.board_bits();
            for t in 0..g.tier_count() {
                let k = (m - t) as usize;
                let within = u64::from(BINOM[m as usize][k]);
                let start = g.tier_range(t).unwrap().start;
                let mut group_of = vec![u64::MAX; g.blocks() as usize];
                for group in 0..g.tier_groups(t) {
                    for u in g.group_units(t, group) {
                        assert_eq!(group_of[u as usize], u64::MAX, "unit {u} twice");
                        group_of[u as usize] = group;
                    }
                }
                assert!(group_of.iter().all(|&x| x != u64::MAX), "{}", g.spec());
                let mut checked = 0;
                for u in 0..g.tier_units(t) {
                    g.for_each_in_unit(t, u, |_, p| {
                        g.for_each_intermediate(p, |i| {
                            assert!(g.tier_range(t).unwrap().contains(&i));
                            let unit = (i - start) / within;
                            assert_eq!(group_of[unit as usize], group_of[u as usize]);
                            checked += 1;
                        });
                    });
                }
                assert!(checked > 0 || t == 0, "{} tier {t}", g.spec());
            }
            if g.is_folded() {
                // 3 orbits of squares on 3x3 (corner, edge, centre), 3 on
                // 4x4 (corner, edge, centre), 4 on 3x4.
                let want = match (r, c) {
                    (3, 4) => 4,
                    _ => 3,
                };
                assert_eq!(g.tier_groups(0), want, "{}", g.spec());
            }
        }
    }
}

/// The unit walks the solver uses (completions, intermediates, runs)
/// against the position-by-position definitions, index by index and in
/// the same order: every unit of small boards, plain, folded and misère,
/// the step tables (up to 7 columns) and ranking from scratch (2×8), and
/// some units of every tier of 5×5 and 5×6.
#[test]
fn unit_walks_agree_with_positions() {
    let check = |g: &Isolation, t: u32, u: u64| {
        let mut want = Vec::new();
        g.for_each_in_unit(t, u, |i, p| {
            let mut c = Vec::new();
            g.for_each_completion(i, p, |x| c.push(x));
            want.push((i, c));
        });
        let mut got = Vec::new();
        g.for_each_unit_completions(t, u, |i, c| got.push((i, c.to_vec())));
        assert_eq!(got, want, "{} tier {t} unit {u}", g.spec());
        // The same completions from the subset lattice's description.
        let e = g.unit_extensions(t, u).unwrap();
        let mut lattice = Vec::new();
        let mut i = e.first;
        walk_boards(e.removed, e.bits, |b| {
            let kids = (0..e.bits).filter(|&j| b & 1 << j == 0);
            let kids = kids.map(|j| e.completions + u64::from(colex(b | 1 << j)));
            lattice.push((i, kids.collect::<Vec<_>>()));
            i += 1;
        });
        assert_eq!(lattice, want, "{} tier {t} unit {u}", g.spec());
        let mut want = Vec::new();
        crate::game::unit_intermediates_by_position(g, t, u, |i, v, c| {
            want.push((i, v, c.to_vec()))
        });
        let mut got = Vec::new();
        g.for_each_unit_intermediates(t, u, |i, v, c| got.push((i, v, c.to_vec())));
        assert_eq!(got, want, "{} tier {t} unit {u}", g.spec());
        let run = g.unit_range(t, u).unwrap();
        assert_eq!(
            want.iter().map(|w| w.0).collect::<Vec<_>>(),
            run.collect::<Vec<_>>()
        );
        want.len()
    };
    for spec in [
        "3x3",
        "3x4",
        "4x3",
        "4x4",
        "3x3:misere",
        "2x8",
        "2x3:a=0,b=5",
    ] {
        let plain = Isolation::from_params(spec).unwrap();
        for g in [plain.clone(), plain.folded().unwrap()] {
            let mut n = 0;
            for t in 0..g.tier_count() {
                for u in 0..g.tier_units(t) {
                    n += check(&g, t, u);
                }
            }
            assert_eq!(n as u64, g.size(), "{}", g.spec());
        }
    }
    for (r, c) in [(5, 5), (5, 6), (6, 5), (4, 7)] {
        let g = Isolation::new(r, c).unwrap();
        // The extreme tiers whole, the middle ones by a few units.
        for t in 0..g.tier_count() {
            let k = g.board_bits() - t;
            let units: Vec<u64> = if BINOM[g.board_bits() as usize][k as usize] <= 30 {
                (0..g.tier_units(t)).collect()
            } else {
                vec![0, 7, g.tier_units(t) / 2, g.tier_units(t) - 1]
            };
            if BINOM[g.board_bits() as usize][k as usize] > 200_000 {
                continue;
            }
            for u in units {
                check(&g, t, u);
            }
        }
    }
}

/// 30 squares: random positions of 5x6 and 6x5, plain and folded, round
/// trip through the index and their children agree with the moves.
#[test]
fn thirty_square_boards_round_trip() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (r, c) in [(5, 6), (6, 5)] {
        let plain = Isolation::new(r, c).unwrap();
        let folded = plain.folded().unwrap();
        assert_eq!(plain.size(), (30 * 29) << 28);
        let sym = BoardSymmetries::grid(r, c);
        for _ in 0..3000 {
            let p0 = (rand() % 30) as u32;
            let p1 = (p0 + 1 + (rand() % 29) as u32) % 30;
            // Sparse and dense boards both: keep each square with odds
            // drawn per position.
            let density = rand() % 64;
            let mut removed = 0u32;
            for s in (0..30).filter(|&s| s != p0 && s != p1) {
                if rand() % 64 < density {
                    removed |= 1 << s;
                }
            }
            let p = IsolationPosition {
                pieces: [p0 as u8, p1 as u8],
                removed,
            };
            for g in [&plain, &folded] {
                let i = g.encode(&p);
                assert!(i < g.size());
                assert!(g.tier_range(g.tier(&p)).unwrap().contains(&i));
                let back = g.decode(i).unwrap();
                assert_eq!(g.encode(&back), i);
                if g.is_folded() {
                    let image = |h: usize| IsolationPosition {
                        pieces: [sym.square(h, p0) as u8, sym.square(h, p1) as u8],
                        removed: sym.mask(h, removed),
                    };
                    assert!((0..sym.len()).any(|h| image(h) == back));
                } else {
                    assert_eq!(back, p);
                }
                if g.primitive(&p).is_some() {
                    continue;
                }
                let mut fast = Vec::new();
                g.for_each_child_index(&p, |c| fast.push(c));
                let mut slow: Vec<u64> = g.moves(&p).iter().map(|(_, c)| g.encode(c)).collect();
                fast.sort_unstable();
                slow.sort_unstable();
                assert_eq!(fast, slow, "{} {}", g.spec(), g.format_position(&p));
            }
        }
    }
}

#[test]
fn colex_ranks_and_unranks() {
    let mut board = 0b111u64;
    let mut rank = 0;
    while board < 1 << 28 {
        assert_eq!(colex(board as u32), rank);
        assert_eq!(uncolex(rank, 3, 28), board as u32);
        board = next_combination(board);
        rank += 1;
    }
    assert_eq!(rank, BINOM[28][3]);
    assert_eq!(BINOM[28][14], 40_116_600);
    // The byte tables agree with the definition on boards of every size.
    let mut x = 0x9E37_79B9u32;
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let board = x & ((1 << 28) - 1) & (x.rotate_left(7) | x.rotate_left(19));
        assert_eq!(colex(board), colex_walk(board), "{board:#x}");
    }
    assert_eq!(colex((1 << 28) - 1), colex_walk((1 << 28) - 1));
}

#[test]
fn bad_params_are_refused() {
    assert!(Isolation::from_params("1x5").is_err());
    assert!(Isolation::from_params("6x6").is_err());
    assert!(Isolation::from_params("5x6").is_ok());
    assert!(Isolation::from_params("6x5").is_ok());
    assert!(Isolation::from_params("4x4:a=3,b=3").is_err());
    assert!(Isolation::from_params("4x4:a=16").is_err());
    assert!(Isolation::from_params("4x4:c=1").is_err());
    assert!(Isolation::from_params("4x4:sideways").is_err());
    let m = Isolation::from_params("4x4:misere").unwrap();
    assert_eq!(m.spec(), "isolation:4x4:a=1,b=14:misere");
    assert_eq!(Isolation::from_params("4x4:a=1,b=14:misere").unwrap(), m);
    assert_eq!(m.file_stem(), "isolation-4x4-misere");
    let p = m.parse_position("0x../xx.x/..../...1").unwrap();
    assert_eq!(m.primitive(&p), Some(Value::Win));
    let g = Isolation::from_params("4x4:a=1,b=14").unwrap();
    assert_eq!(g.spec(), "isolation:4x4:a=1,b=14");
    assert_eq!(g.file_stem(), "isolation-4x4");
    let g = Isolation::from_params("4x4:a=0").unwrap();
    assert_eq!(g.file_stem(), "isolation-4x4-a0-b14");
}
