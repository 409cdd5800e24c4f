//! Cram for the search (`cram:RxC` on up to 64 squares) against the table
//! game's rules, position by position; its components and region keys;
//! published Grundy values; nimber tables as leaves.

use crate::shared::{table, Rng};
use retrograde::games::Cram;
use retrograde::internal::search::{CramNimberLeaves, CramSearch};
use retrograde::internal::search::{NimberLeaves, ValueLeaves};
use retrograde::internal::solve::mex;
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::reference;
use retrograde::search::SearchGame;
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::{TableKind, Value};
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

fn cram(spec: &str) -> CramSearch {
    match AnySearch::parse(spec).unwrap() {
        AnySearch::Cram(g) => g,
        _ => panic!("{spec} is not searched as Cram"),
    }
}

/// Positions met on random playouts from the empty board, and random masks
/// (every mask is a table position, reachable or not).
fn samples(g: &CramSearch, rng: &mut Rng, playouts: usize, masks: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for _ in 0..playouts {
        let mut p = g.start();
        loop {
            out.push(p);
            let moves = g.moves(&p);
            if moves.is_empty() {
                break;
            }
            p = moves[rng.below(moves.len())].1;
        }
    }
    let n = g.rows() * g.cols();
    for _ in 0..masks {
        out.push(rng.next() & rng.next() & ((1u64 << n) - 1));
    }
    out
}

/// The nimber as the sum of the components' nimbers, each the mex of its
/// children's sums, memoised by key: Glop's method, written out for the
/// tests (the engine is src/search/nimber.rs).
fn sum_nimber(
    g: &CramSearch,
    p: u64,
    leaves: Option<&CramNimberLeaves>,
    memo: &mut HashMap<u128, u32>,
) -> u32 {
    let mut n = 0;
    for c in g.components(&p) {
        let key = g.key(&c);
        let v = match memo.get(&key) {
            Some(&v) => v,
            None => {
                let v = match leaves.and_then(|l| l.nimber(g, &c)) {
                    Some(v) => v,
                    None => {
                        let mut seen: Vec<u32> = g
                            .moves(&c)
                            .into_iter()
                            .map(|(_, child)| sum_nimber(g, child, leaves, memo))
                            .collect();
                        mex(&mut seen)
                    }
                };
                memo.insert(key, v);
                v
            }
        };
        n ^= v;
    }
    n
}

#[test]
fn positions_moves_values_and_nimbers_match_the_table_rules() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for spec in [
        "cram:3x4",
        "cram:4x4",
        "cram:3x5",
        "cram:2x6",
        "cram:1x10",
        "cram:3x4:misere",
    ] {
        let g = cram(spec);
        let t = table(spec);
        assert_eq!(g.spec(), t.spec());
        assert_eq!(g.impartial(), t.impartial(), "{spec}");
        assert!(!g.ties());
        let positions = samples(&g, &mut rng, 12, 40);
        let mut wins = 0;
        for p in &positions {
            let text = g.format_position(p);
            let tp = t.parse_position(&text).unwrap();
            assert_eq!(t.format_position(&tp), text);
            assert_eq!(g.parse_position(&text), Ok(*p));
            let glop = g.format_glop(*p);
            assert_eq!(t.parse_position(&glop), Ok(tp), "{glop}");
            assert_eq!(g.parse_position(&glop), Ok(*p));
            assert_eq!(g.terminal(p), t.terminal(&tp), "{spec} {text}");
            let ours: BTreeSet<(String, String)> = g
                .moves(p)
                .iter()
                .map(|(m, c)| (g.format_move(m), g.format_position(c)))
                .collect();
            let theirs: BTreeSet<(String, String)> = t
                .moves(&tp)
                .iter()
                .map(|(m, c)| (m.clone(), t.format_position(c)))
                .collect();
            assert_eq!(ours, theirs, "{spec} {text}");
            let v = reference::value(&g, p);
            assert_eq!(v, reference::value(&t, &tp), "{spec} {text}");
            wins += usize::from(v == Value::Win);
            if g.wins_now(p) {
                assert_eq!(v, Value::Win, "{spec} {text}: wins_now");
            }
            if g.impartial() {
                let n = reference::nimber(&g, p);
                assert_eq!(n, reference::nimber(&t, &tp), "{spec} {text}");
                assert_eq!(n != 0, v == Value::Win, "{spec} {text}");
            }
        }
        // Both outcomes occur: the comparison is not of constants.
        assert!(wins > 0 && wins < positions.len(), "{spec}: {wins} wins");
    }
}

#[test]
fn components_sum_to_the_whole() {
    let mut rng = Rng(12345);
    for spec in ["cram:4x4", "cram:3x6", "cram:4x5", "cram:1x12", "cram:5x4"] {
        let g = cram(spec);
        let mut split = 0;
        for p in samples(&g, &mut rng, 10, 60) {
            let comps = g.components(&p);
            assert_eq!(comps.is_empty(), g.terminal(&p).is_some());
            let mut union = 0;
            for &c in &comps {
                // A component is a position of the same board holding only
                // the covered squares outside its region.
                assert_eq!(c & p, p);
                assert_eq!(!c & union & ((1u64 << (g.rows() * g.cols())) - 1), 0);
                union |= !c & ((1u64 << (g.rows() * g.cols())) - 1);
                assert_eq!(g.components(&c), vec![c]);
            }
            split += usize::from(comps.len() > 1);
            let sum = comps.iter().fold(0, |n, c| n ^ reference::nimber(&g, c));
            assert_eq!(
                sum,
                reference::nimber(&g, &p),
                "{spec} {}",
                g.format_position(&p)
            );
        }
        assert!(split > 10, "{spec}: only {split} positions split");
    }
}

/// The shape of the live squares (empty with an empty neighbour) up to
/// translation and the 8 symmetries of the plane, by coordinates: an
/// independent statement of what the region key folds.
fn shape(g: &CramSearch, p: u64) -> Vec<(i32, i32)> {
    let (r, c) = (g.rows() as i32, g.cols() as i32);
    let empty =
        |y: i32, x: i32| (0..r).contains(&y) && (0..c).contains(&x) && p >> (y * c + x) & 1 == 0;
    let cells: Vec<(i32, i32)> = (0..r * c)
        .map(|s| (s / c, s % c))
        .filter(|&(y, x)| {
            empty(y, x)
                && [(0, 1), (1, 0), (0, -1), (-1, 0)]
                    .iter()
                    .any(|(dy, dx)| empty(y + dy, x + dx))
        })
        .collect();
    type Map = fn((i32, i32)) -> (i32, i32);
    let maps: [Map; 8] = [
        |(y, x)| (y, x),
        |(y, x)| (-y, x),
        |(y, x)| (y, -x),
        |(y, x)| (-y, -x),
        |(y, x)| (x, y),
        |(y, x)| (-x, y),
        |(y, x)| (x, -y),
        |(y, x)| (-x, -y),
    ];
    maps.iter()
        .map(|m| {
            let mut v: Vec<(i32, i32)> = cells.iter().map(|&q| m(q)).collect();
            let y0 = v.iter().map(|q| q.0).min().unwrap_or(0);
            let x0 = v.iter().map(|q| q.1).min().unwrap_or(0);
            for q in v.iter_mut() {
                *q = (q.0 - y0, q.1 - x0);
            }
            v.sort_unstable();
            v
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn region_keys_fold_exactly_translation_and_symmetry() {
    // Every mask of these boards: equal keys exactly for equal shapes.
    for spec in ["cram:3x4", "cram:4x3", "cram:3x3", "cram:2x7"] {
        let g = cram(spec);
        let n = g.rows() * g.cols();
        let mut by_key: HashMap<u128, Vec<(i32, i32)>> = HashMap::new();
        let mut by_shape: HashMap<Vec<(i32, i32)>, u128> = HashMap::new();
        for p in 0..1u64 << n {
            let (k, s) = (g.key(&p), shape(&g, p));
            assert_eq!(k == 0, g.terminal(&p).is_some());
            assert_eq!(
                by_key.entry(k).or_insert_with(|| s.clone()),
                &s,
                "{spec} {p:#x}"
            );
            assert_eq!(*by_shape.entry(s).or_insert(k), k, "{spec} {p:#x}");
        }
        assert!(by_key.len() > 40, "{spec}: {} keys", by_key.len());
    }
    // Across boards: a region keeps its key wherever it lies, rotated or
    // not, on a board of any size (up to 64 squares).
    let small = cram("cram:2x3");
    let (big, tall) = (cram("cram:8x8"), cram("cram:16x4"));
    let region = small.parse_position(".../#..").unwrap();
    let on_big = big
        .parse_position("########/########/#####.##/####..##/####..##/########/########/########")
        .unwrap();
    let on_tall = tall
        .parse_position(&format!(
            "{}/##../#.../{}",
            ["####"; 6].join("/"),
            ["####"; 8].join("/")
        ))
        .unwrap();
    assert_eq!(big.key(&on_big), small.key(&region));
    assert_eq!(tall.key(&on_tall), small.key(&region));
    assert_ne!(
        small.key(&region),
        small.key(&small.parse_position(".#./...").unwrap())
    );
    // A 1x64 and an 8x8 board: the extremes of the bitboard.
    let line = cram("cram:1x64");
    assert_eq!(line.moves(&0).len(), 63);
    assert_eq!(big.moves(&0).len(), 112);
    assert_eq!(line.key(&0), cram("cram:64x1").key(&0));
}

#[test]
fn published_grundy_values() {
    // Dawson's Kayles (1×n Cram), REFERENCE.md / OEIS A002187, n = 1..20.
    let dawson = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
    let mut memo = HashMap::new();
    for (i, &want) in dawson.iter().enumerate() {
        let g = cram(&format!("cram:1x{}", i + 1));
        assert_eq!(sum_nimber(&g, 0, None, &mut memo), want, "1x{}", i + 1);
        if i < 12 {
            assert_eq!(reference::nimber(&g, &0), want, "1x{}", i + 1);
        }
    }
    // 2×n: 0 for even n, 1 for odd n. The memo is shared across boards:
    // region keys do not depend on the board.
    for n in 1..=9 {
        let g = cram(&format!("cram:2x{n}"));
        assert_eq!(sum_nimber(&g, 0, None, &mut memo), n % 2, "2x{n}");
    }
    // Both sides even: the second player wins (nimber 0); one side odd: the
    // first player wins.
    for (spec, zero) in [
        ("cram:4x4", true),
        ("cram:3x4", false),
        ("cram:4x5", false),
        ("cram:3x6", false),
    ] {
        let g = cram(spec);
        assert_eq!(sum_nimber(&g, 0, None, &mut memo) == 0, zero, "{spec}");
        assert_eq!(reference::value(&g, &0) == Value::Lose, zero, "{spec}");
    }
}

fn solve_nimbers(dir: &std::path::Path, r: u32, c: u32, misere: bool, kind: TableKind) -> PathBuf {
    let game = Cram::new(r, c, misere).unwrap();
    let path = dir.join(format!("cram-{r}x{c}-{misere}-{}.rtb", kind.name()));
    let options = SolveOptions {
        checkpoint_interval: None,
        ..SolveOptions::with_kind(kind)
    };
    solve_to_file(&game, &path, &options, &NoProgress).unwrap();
    path
}

#[test]
fn nimber_tables_answer_regions_in_any_placement() {
    let dir = tempfile::tempdir().unwrap();
    let t34 = solve_nimbers(dir.path(), 3, 4, false, TableKind::Nimber);
    let t15 = solve_nimbers(dir.path(), 1, 5, false, TableKind::Nimber);
    let leaves = CramNimberLeaves::open(&[t34.clone(), t15]).unwrap();
    assert_eq!(leaves.boards(), [(3, 4), (1, 5)]);
    let g = cram("cram:5x5");
    let mut rng = Rng(777);
    let (mut answered, mut unanswered) = (0, 0);
    let mut memo = HashMap::new();
    let mut leaf_memo = HashMap::new();
    for p in samples(&g, &mut rng, 30, 30) {
        for c in g.components(&p) {
            let want = reference::nimber(&g, &c);
            match leaves.nimber(&g, &c) {
                Some(n) => {
                    assert_eq!(n, want, "{}", g.format_position(&c));
                    // A second time, from the cache.
                    assert_eq!(leaves.nimber(&g, &c), Some(n));
                    answered += 1;
                }
                None => unanswered += 1,
            }
        }
        // The whole position: from the leaves and without them.
        let n = sum_nimber(&g, p, None, &mut memo);
        assert_eq!(sum_nimber(&g, p, Some(&leaves), &mut leaf_memo), n);
        match ValueLeaves::value(&leaves, &g, &p) {
            Some(v) => assert_eq!(v, if n != 0 { Value::Win } else { Value::Lose }),
            None => assert!(g
                .components(&p)
                .iter()
                .any(|c| leaves.nimber(&g, c).is_none())),
        }
    }
    assert!(
        answered > 100 && unanswered > 10,
        "{answered} answered, {unanswered} not"
    );
    // A region 4 tall and 3 wide fits the 3×4 table only transposed; a 1×5
    // strip only the 1×5 table; the whole 5×5 board none.
    let tall = g.parse_position("#...#/#...#/#...#/#...#/#####").unwrap();
    assert_eq!(leaves.nimber(&g, &tall), Some(reference::nimber(&g, &tall)));
    let strip = g.parse_position("#####/#####/...../#####/#####").unwrap();
    assert_eq!(
        leaves.nimber(&g, &strip),
        Some(reference::nimber(&g, &strip))
    );
    assert_eq!(leaves.nimber(&g, &0), None);
    // Misère Cram has no nimbers.
    assert_eq!(leaves.nimber(&cram("cram:5x5:misere"), &tall), None);

    // Refused: value tables, misère tables, other games, missing files.
    let values = solve_nimbers(dir.path(), 2, 3, false, TableKind::Value);
    let misere = solve_nimbers(dir.path(), 2, 3, true, TableKind::Value);
    let iso = dir.path().join("iso.rtb");
    let game = retrograde::games::Isolation::new(2, 3).unwrap();
    solve_to_file(
        &game,
        &iso,
        &SolveOptions {
            checkpoint_interval: None,
            ..Default::default()
        },
        &NoProgress,
    )
    .unwrap();
    for (path, word) in [
        (&values, "value table"),
        (&misere, "misère"),
        (&iso, "not of Cram"),
    ] {
        let e = CramNimberLeaves::open(&[t34.clone(), path.clone()])
            .err()
            .unwrap();
        assert!(
            matches!(&e, retrograde::Error::LeafTable { path: p, .. } if p == path),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains(word) && !e.contains('\n'), "{e}");
    }
    assert!(CramNimberLeaves::open(&[dir.path().join("none.rtb")]).is_err());
    assert!(CramNimberLeaves::open(&[t34]).is_ok());
}

#[test]
fn specs_and_notation() {
    let g = cram("cram:7x7");
    assert_eq!(g.spec(), "cram:7x7");
    assert_eq!(cram("cram:8x8:misere").spec(), "cram:8x8:misere");
    assert!(!cram("cram:8x8:misere").impartial());
    assert!(cram("cram:8x8").impartial());
    for bad in [
        "cram:9x8",
        "cram:0x5",
        "cram:1x65",
        "cram:5x5:sideways",
        "cram:5",
    ] {
        let e = AnySearch::parse(bad).err().unwrap();
        let e = e.to_string();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    // Upper case is the registry's to refuse, naming the spelling.
    assert!(AnySearch::parse("Cram:4x4").is_err());
    let p = g
        .parse_position("#....../......./......./......./......./......./......#")
        .unwrap();
    assert_eq!(p, 1 | 1 << 48);
    assert_eq!(g.parse_position(&g.format_glop(p)), Ok(p));
    assert!(g.parse_position("..../....").is_err());
    let m: Vec<String> = g.moves(&p).iter().map(|(m, _)| g.format_move(m)).collect();
    assert_eq!(m.len(), 2 * 7 * 6 - 4);
    assert!(m.contains(&"1-2".to_string()) && !m.contains(&"41-48".to_string()));
}

/// Timing of the nimber engine on boards past the tables, with and without
/// nimber-table leaves: `cargo test --release --test search
/// cram::nimbers_past_the_tables -- --ignored --nocapture`.
#[test]
#[ignore]
fn nimbers_past_the_tables() {
    use retrograde::search::nimber::NimberSearch;
    use std::time::Instant;
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let t45 = solve_nimbers(dir.path(), 4, 5, false, TableKind::Nimber);
    let t36 = solve_nimbers(dir.path(), 3, 6, false, TableKind::Nimber);
    eprintln!("tables 4x5, 3x6: {:.1?}", t.elapsed());
    let leaves = CramNimberLeaves::open(&[t45, t36]).unwrap();
    for spec in std::env::var("CRAM_BOARDS")
        .unwrap_or("cram:4x6 cram:5x5 cram:5x6".into())
        .split(' ')
    {
        let g = cram(spec);
        let t = Instant::now();
        let mut plain = NimberSearch::new(&g, &Options::with_memory(1 << 30));
        let n = plain.nimber(&0).unwrap();
        let s = plain.stats();
        eprintln!(
            "{spec}: nimber {n}, {:.2?}, {} nodes, {} memo (no leaves)",
            t.elapsed(),
            s.nodes,
            s.tt_used
        );
        let t = Instant::now();
        let mut with = NimberSearch::new(&g, &Options::with_memory(1 << 30)).with_leaves(&leaves);
        assert_eq!(with.nimber(&0), Some(n));
        let s = with.stats();
        eprintln!(
            "{spec}: nimber {n}, {:.2?}, {} nodes, {} leaf hits, {} memo (4x5, 3x6 leaves)",
            t.elapsed(),
            s.nodes,
            s.leaf_hits,
            s.tt_used
        );
    }
}

#[test]
fn keys_turn_back_into_positions() {
    let mut rng = Rng(4242);
    for spec in ["cram:3x4", "cram:4x5", "cram:2x9", "cram:8x8"] {
        let g = cram(spec);
        for p in samples(&g, &mut rng, 5, 20) {
            let k = g.key(&p);
            let q = g.position_of_key(&k).unwrap();
            assert_eq!(g.key(&q), k, "{spec} {}", g.format_position(&p));
            if g.rows() * g.cols() <= 20 {
                assert_eq!(reference::nimber(&g, &q), reference::nimber(&g, &p));
            }
        }
    }
    // A key from a board the region does not fit, and nonsense keys.
    let small = cram("cram:2x3");
    let long = cram("cram:1x9");
    assert_eq!(small.position_of_key(&long.key(&0)), None);
    assert_eq!(small.position_of_key(&(1u128 << 90)), None);
    assert_eq!(
        small.position_of_key(&(1u128 << 72 | 2u128 << 64 | 0b01)),
        None,
        "not least"
    );
    // The table answers through the leaves' generic interface, and not for
    // misère Cram.
    let dir = tempfile::tempdir().unwrap();
    let leaves =
        CramNimberLeaves::open(&[solve_nimbers(dir.path(), 2, 4, false, TableKind::Nimber)])
            .unwrap();
    let g = cram("cram:6x6");
    let p = g
        .parse_position("######/######/##..##/##..##/##..##/##..##")
        .unwrap();
    let generic: &dyn NimberLeaves<CramSearch> = &leaves;
    assert_eq!(generic.nimber(&g, &p), Some(reference::nimber(&g, &p)));
    assert_eq!(generic.nimber(&cram("cram:6x6:misere"), &p), None);
}

/// Lemoine and Viennot's couples over Cram's regions against the nimber
/// tables: every position of small boards (every mask, reachable or not),
/// a sample of 4×5's; nimbers and outcomes, with and without the tables
/// as leaves, one engine per board (so regions met before answer later
/// positions, as in a search).
#[test]
fn couples_agree_with_the_nimber_tables() {
    use retrograde::internal::search::{Couples, CramLands};
    use retrograde::search::engine::Options as CouplesOptions;
    let dir = tempfile::tempdir().unwrap();
    let t33 = solve_nimbers(dir.path(), 3, 3, false, TableKind::Nimber);
    let leaves = CramNimberLeaves::open(&[t33]).unwrap();
    let mut rng = Rng(0x5eed_c0de);
    for (r, c, every) in [
        (3, 4, true),
        (4, 4, true),
        (2, 7, true),
        (1, 13, true),
        (4, 5, false),
    ] {
        let path = solve_nimbers(dir.path(), r, c, false, TableKind::Nimber);
        let tb = retrograde::Tablebase::open(&path).unwrap();
        let g = cram(&format!("cram:{r}x{c}"));
        let n = r * c;
        let masks: Vec<u64> = match every {
            true => (0..1u64 << n).collect(),
            false => (0..4000).map(|_| rng.next() & ((1u64 << n) - 1)).collect(),
        };
        for with_leaves in [false, true] {
            let lands =
                CramLands::new(with_leaves.then_some(&leaves as &dyn NimberLeaves<CramSearch>));
            let mut e = Couples::with_lands(lands, &CouplesOptions::default());
            let mut wins = 0;
            for (i, &p) in masks.iter().enumerate() {
                let Some(want) = tb.nimber_index(p).unwrap() else {
                    continue;
                };
                let regions = CramLands::lands_of(&g, p);
                // Outcomes first (on alternate positions), before any
                // nimber of the position's regions is asked for.
                if i % 2 == 0 {
                    let w = e.wins_sum(&regions, 0).unwrap();
                    assert_eq!(w, want != 0, "{r}x{c} {}", g.format_position(&p));
                    wins += usize::from(w);
                }
                assert_eq!(
                    e.nimber_sum(&regions, 0),
                    Some(want),
                    "{r}x{c} {}",
                    g.format_position(&p)
                );
                // G + *k loses exactly when k is G's nimber.
                assert_eq!(e.wins_sum(&regions, want), Some(false));
                assert_eq!(e.wins_sum(&regions, want ^ 1), Some(true));
            }
            assert!(wins > 0, "{r}x{c}: the comparison is not of constants");
            assert_eq!(e.stats().leaf_hits > 0, with_leaves && r * c > 9);
        }
    }
}

/// The couples engine within a small memory: its lands fill their share
/// and half are forgotten again and again (the search's own lands kept),
/// and every answer still agrees with the tables; the lands it keeps stay
/// under the share while an unbounded engine keeps every land it met.
#[test]
fn couples_within_a_small_memory_agree_with_the_tables() {
    use retrograde::internal::search::{Couples, CramLands};
    use retrograde::search::engine::Options as CouplesOptions;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0xb0_07ed);
    for (r, c) in [(4, 4), (4, 5), (3, 7)] {
        let path = solve_nimbers(dir.path(), r, c, false, TableKind::Nimber);
        let tb = retrograde::Tablebase::open(&path).unwrap();
        let g = cram(&format!("cram:{r}x{c}"));
        let n = r * c;
        let mut masks: Vec<u64> = vec![0];
        masks.extend((0..600).map(|_| rng.next() & rng.next() & ((1u64 << n) - 1)));
        // 64 KiB: a share of 1,792 lands (4x5's empty board alone meets
        // tens of thousands).
        let small = CouplesOptions {
            memory: 1 << 16,
            ..CouplesOptions::default()
        };
        let mut e = Couples::with_lands(CramLands::new(None), &small);
        let mut big = Couples::with_lands(
            CramLands::new(None),
            &CouplesOptions {
                memory: 1 << 30,
                ..CouplesOptions::default()
            },
        );
        let mut most = 0;
        for (i, &p) in masks.iter().enumerate() {
            let Some(want) = tb.nimber_index(p).unwrap() else {
                continue;
            };
            let regions = CramLands::lands_of(&g, p);
            let shown = g.format_position(&p);
            if i % 2 == 0 {
                assert_eq!(e.wins_sum(&regions, 0), Some(want != 0), "{r}x{c} {shown}");
            }
            assert_eq!(e.nimber_sum(&regions, 0), Some(want), "{r}x{c} {shown}");
            assert_eq!(e.wins_sum(&regions, want), Some(false), "{r}x{c} {shown}");
            assert_eq!(
                e.wins_sum(&regions, want ^ 1),
                Some(true),
                "{r}x{c} {shown}"
            );
            assert_eq!(big.nimber_sum(&regions, 0), Some(want), "{r}x{c} {shown}");
            most = most.max(e.lands_known());
        }
        if (r, c) != (4, 4) {
            assert!(e.evicted() > 0, "{r}x{c}: nothing was forgotten");
            assert!(most < 4096, "{r}x{c}: {most} lands kept");
            assert!(
                big.lands_known() > 4 * most,
                "{r}x{c}: {} lands unbounded against {most}",
                big.lands_known()
            );
        }
    }
}

/// `search cram:RxC --engine couples`, nimbers and values, through the
/// library's run: the table's and the component search's answers, the
/// tables as leaves, a proof database saved and loaded.
#[test]
fn the_couples_engine_runs_as_the_search_does() {
    use retrograde::search::run::{run, Engine, Quiet, SearchOptions};
    let dir = tempfile::tempdir().unwrap();
    let t34 = solve_nimbers(dir.path(), 3, 4, false, TableKind::Nimber);
    let db = dir.path().join("regions.rdb");
    for spec in ["cram:4x5", "cram:5x5", "cram:3x7"] {
        let game = AnySearch::parse(spec).unwrap();
        let g = cram(spec);
        let mut plain =
            retrograde::search::nimber::NimberSearch::new(&g, &Options::with_memory(1 << 28));
        let want = plain.nimber(&0).unwrap();
        let base = SearchOptions {
            engine: Engine::Couples,
            memory: Some(1 << 28),
            ..SearchOptions::default()
        };
        let nimber = SearchOptions {
            nimber: true,
            ..base.clone()
        };
        let r = run(&game, &nimber, &Quiet).unwrap();
        assert_eq!(
            r.results[0].answer,
            retrograde::search::run::Answer::Nimber(Some(want)),
            "{spec}"
        );
        assert_eq!(r.engine, Some(Engine::Couples));
        let leaves = SearchOptions {
            tablebases: vec![t34.clone()],
            save: Some(db.clone()),
            ..nimber.clone()
        };
        let r = run(&game, &leaves, &Quiet).unwrap();
        assert_eq!(
            r.results[0].answer,
            retrograde::search::run::Answer::Nimber(Some(want)),
            "{spec}"
        );
        assert!(r.saved.as_ref().unwrap().as_ref().unwrap().entries > 0);
        // The saved regions, re-proved, answer the next run.
        let loaded = SearchOptions {
            load: vec![db.clone()],
            ..nimber.clone()
        };
        let r = run(&game, &loaded, &Quiet).unwrap();
        assert_eq!(
            r.results[0].answer,
            retrograde::search::run::Answer::Nimber(Some(want)),
            "{spec}"
        );
        assert!(r.loaded.as_ref().unwrap().report.checked > 0);
        // The run's counters include the couples the load searched
        // re-proving; the position itself took next to none.
        assert!(
            r.results[0].nodes < 5,
            "{spec}: {} nodes",
            r.results[0].nodes
        );
        let r = run(&game, &base, &Quiet).unwrap();
        assert_eq!(
            r.results[0].value(),
            Some(if want == 0 { Value::Lose } else { Value::Win }),
            "{spec}"
        );
        // A winning move leads to a loss: the reference says so.
        if let retrograde::search::run::Answer::Value {
            best_move: Some(m), ..
        } = &r.results[0].answer
        {
            let child = g
                .moves(&0)
                .into_iter()
                .find(|(mv, _)| &g.format_move(mv) == m)
                .unwrap()
                .1;
            assert_eq!(plain.nimber(&child), Some(0), "{spec} {m}");
        } else {
            assert_eq!(want, 0, "{spec}: a win with no winning move");
        }
    }
    // Misère Cram is not a sum.
    let misere = AnySearch::parse("cram:3x4:misere").unwrap();
    let o = SearchOptions {
        engine: Engine::Couples,
        ..SearchOptions::default()
    };
    assert!(run(&misere, &o, &Quiet)
        .unwrap_err()
        .to_string()
        .contains("misère"));
}

/// The mirror strategy (`Lands::zero` of Cram's regions) against exact
/// nimbers: every region of every position of small boards (and a sample
/// of 5×5's and 6×6's) that some involution of its bounding box maps onto
/// itself. The rule is written out again here by brute force (every
/// domino D of the region, and whether σ(D) meets it, for the half turn,
/// both reflections and, on a square box, both diagonals): the engine's
/// claim must be exactly "some σ maps the region onto itself and no
/// domino meets its image", and every region claimed must have nimber 0
/// by the plain nimber search. Symmetric regions of other nimbers are met
/// (under the half turn and under reflections alone), so a rule that
/// skipped the domino condition, or took any symmetry, would fail here.
#[test]
fn the_mirror_strategy_claims_only_regions_of_nimber_zero() {
    use retrograde::internal::search::{CramLands, Lands};
    use retrograde::search::nimber::NimberSearch;
    type Map = fn(i32, i32, i32, i32) -> (i32, i32);
    // Each with whether it is a symmetry of a square box only.
    let half_turn: [(Map, bool); 1] = [(|y, x, h, w| (h - 1 - y, w - 1 - x), false)];
    let reflections: [(Map, bool); 4] = [
        (|y, x, h, _| (h - 1 - y, x), false),
        (|y, x, _, w| (y, w - 1 - x), false),
        (|y, x, _, _| (x, y), true),
        (|y, x, h, _| (h - 1 - x, h - 1 - y), true),
    ];
    // (invariant under some involution, invariant with no domino meeting
    // its image) for the region `key`, by brute force.
    let oracle = |key: u128, maps: &[(Map, bool)]| -> (bool, bool) {
        let h = (key >> 72) as i32;
        let w = ((key >> 64) & 0xff) as i32;
        let has = |y: i32, x: i32| {
            (0..h).contains(&y) && (0..w).contains(&x) && (key >> (y * w + x)) & 1 == 1
        };
        let mut dominoes = Vec::new();
        for y in 0..h {
            for x in 0..w {
                for (dy, dx) in [(0, 1), (1, 0)] {
                    if has(y, x) && has(y + dy, x + dx) {
                        dominoes.push([(y, x), (y + dy, x + dx)]);
                    }
                }
            }
        }
        let (mut any, mut ok) = (false, false);
        for &(m, square_only) in maps {
            if square_only && h != w {
                continue;
            }
            let invariant = (0..h).all(|y| {
                (0..w).all(|x| {
                    let (y2, x2) = m(y, x, h, w);
                    !has(y, x) || has(y2, x2)
                })
            });
            if !invariant {
                continue;
            }
            any = true;
            let meets = dominoes.iter().any(|d| {
                let image = [m(d[0].0, d[0].1, h, w), m(d[1].0, d[1].1, h, w)];
                image.iter().any(|s| d.contains(s))
            });
            ok |= !meets;
        }
        (any, ok)
    };
    let lands = CramLands::new(None);
    let mut rng = Rng(0x0031_770c);
    let mut seen = std::collections::HashSet::new();
    let (mut claimed, mut turn_other, mut reflected_other) = (0, 0, 0);
    for (r, c, every) in [
        (2, 8, true),
        (3, 5, true),
        (3, 6, true),
        (4, 4, true),
        (4, 5, true),
        (5, 5, false),
        (6, 6, false),
    ] {
        let g = cram(&format!("cram:{r}x{c}"));
        let mut plain = NimberSearch::new(&g, &Options::with_memory(1 << 28));
        let n = r * c;
        let mut masks: Vec<u64> = match every {
            true => (0..1u64 << n).collect(),
            // Half the squares covered: regions of up to about 20 squares,
            // whose nimbers the plain search finds at once.
            false => (0..50_000)
                .map(|_| rng.next() & ((1u64 << n) - 1))
                .collect(),
        };
        if !every {
            // Symmetric positions, where symmetric regions are: under each
            // involution of the board, the covered squares chosen on one
            // square of each orbit (up to 2^14 choices, sampled past it).
            for &(m, square_only) in half_turn.iter().chain(&reflections) {
                if square_only && r != c {
                    continue;
                }
                let image = |s: u32| {
                    let (y, x) = m((s / c) as i32, (s % c) as i32, r as i32, c as i32);
                    y as u32 * c + x as u32
                };
                let reps: Vec<u32> = (0..n).filter(|&s| image(s) >= s).collect();
                let choices = 1u64 << reps.len();
                for i in 0..choices.min(1 << 14) {
                    let pick = if choices <= 1 << 14 { i } else { rng.next() };
                    let mut p = 0u64;
                    for (j, &s) in reps.iter().enumerate() {
                        if pick >> j & 1 == 1 {
                            p |= 1 << s | 1 << image(s);
                        }
                    }
                    masks.push(p);
                }
            }
        }
        for p in masks {
            for region in g.components(&p) {
                let key = g.key(&region);
                if !seen.insert(key) {
                    continue;
                }
                let claim = lands.zero(&key);
                let (turned, turn_ok) = oracle(key, &half_turn);
                let (reflected, reflect_ok) = oracle(key, &reflections);
                assert_eq!(
                    claim,
                    turn_ok || reflect_ok,
                    "{r}x{c} {}",
                    g.format_position(&region)
                );
                // The plain search is quick up to about 24 squares.
                if !(turned || reflected) || (key as u64).count_ones() > 24 {
                    continue;
                }
                let nimber = plain.nimber(&region).unwrap();
                if claim {
                    assert_eq!(nimber, 0, "{r}x{c} {}", g.format_position(&region));
                    claimed += 1;
                } else if nimber != 0 {
                    turn_other += usize::from(turned);
                    reflected_other += usize::from(reflected && !turned);
                }
            }
        }
    }
    // The rule has teeth: it claims many regions, and symmetric regions
    // it must not claim (other nimbers) are met under either kind.
    assert!(claimed > 1000, "{claimed} regions claimed");
    assert!(
        turn_other > 0 && reflected_other > 0,
        "{turn_other} {reflected_other}"
    );
}

/// `--check` with `--engine couples` re-proves a region database by
/// couples (region `R` of nimber n: `R + *j` wins for j < n, every move's
/// sum beside `*n` wins), every entry, and refuses an entry whose nimber is
/// one too high or one too low.
#[test]
fn the_couples_check_re_proves_region_nimbers_and_refuses_forged_ones() {
    use retrograde::search::proofdb::{self, Fact, Kind};
    use retrograde::search::run::{check, run, Engine, Quiet, SearchOptions};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("regions.proof");
    let game = AnySearch::parse("cram:5x5").unwrap();
    let g = cram("cram:5x5");
    let couples = SearchOptions {
        engine: Engine::Couples,
        nimber: true,
        memory: Some(1 << 28),
        ..SearchOptions::default()
    };
    let saving = SearchOptions {
        save: Some(db.clone()),
        ..couples.clone()
    };
    let r = run(&game, &saving, &Quiet).unwrap();
    let entries = r.saved.unwrap().unwrap().entries as u64;
    let want = retrograde::search::nimber::NimberSearch::new(&g, &Options::with_memory(1 << 28))
        .nimber(&0)
        .unwrap();
    let c = check(&game, &db, &couples, &Quiet).unwrap();
    assert_eq!(c.report.checked, entries);
    assert_eq!(c.report.unchecked, 0);
    assert_eq!(c.entry, Some(Fact::Nimber(want)));
    // One entry of nimber n > 0 said to be n + 1, then n - 1.
    let (_, records) = proofdb::load(&g, &db).unwrap();
    let at = records
        .iter()
        .position(|r| matches!(r.fact, Fact::Nimber(n) if n > 0))
        .expect("a region of nonzero nimber");
    let Fact::Nimber(n) = records[at].fact else {
        unreachable!()
    };
    for forged in [n + 1, n - 1] {
        let mut bad = records.clone();
        bad[at].fact = Fact::Nimber(forged);
        let path = dir.path().join(format!("forged{forged}.proof"));
        proofdb::save(&g, &path, Kind::Nimbers, &mut bad).unwrap();
        let err = check(&game, &path, &couples, &Quiet).unwrap_err();
        assert!(
            matches!(err, retrograde::Error::RefutedProof { .. }),
            "nimber {forged} for {n}: {err}"
        );
    }
}

/// `--check` with no `--engine` picks the faster sound check for a Cram
/// nimber database: couples for one the engine of couples saved (not
/// closed under moves: the plain component search had re-proved 18,564 of
/// `cram:5x8`'s 24,042 entries after 100 s, couples all of them in 1.8 s),
/// the plain search, which then searches nothing, for one the component
/// search saved.
#[test]
fn the_default_check_of_a_nimber_database_picks_the_faster_engine() {
    use retrograde::search::run::{check, run, Engine, Quiet, SearchOptions};
    let dir = tempfile::tempdir().unwrap();
    let game = AnySearch::parse("cram:5x8").unwrap();
    let (by_couples, by_plain) = (dir.path().join("c.proof"), dir.path().join("p.proof"));
    let base = SearchOptions {
        nimber: true,
        memory: Some(1 << 28),
        ..SearchOptions::default()
    };
    let saving = SearchOptions {
        save: Some(by_couples.clone()),
        engine: Engine::Couples,
        ..base.clone()
    };
    let entries = run(&game, &saving, &Quiet)
        .unwrap()
        .saved
        .unwrap()
        .unwrap()
        .entries as u64;
    // A budget the couples' check fits in many times over, and the plain
    // search's would not.
    let bounded = SearchOptions {
        node_limit: Some(2_000_000),
        ..base.clone()
    };
    let c = check(&game, &by_couples, &bounded, &Quiet).unwrap();
    assert_eq!((c.report.checked, c.report.unchecked), (entries, 0));
    assert!(c.report.searched > 0, "re-proved by couples");
    let small = AnySearch::parse("cram:4x5").unwrap();
    let saving = SearchOptions {
        save: Some(by_plain.clone()),
        ..base.clone()
    };
    let entries = run(&small, &saving, &Quiet)
        .unwrap()
        .saved
        .unwrap()
        .unwrap()
        .entries as u64;
    let c = check(&small, &by_plain, &base, &Quiet).unwrap();
    assert_eq!((c.report.checked, c.report.searched), (entries, 0));
}

/// The engine that asks regions within sets gives the tables' nimber on
/// every position of small boards and on random ones of 4×5 and 3×6, one
/// engine per board (its remembered regions answering later positions),
/// with room to remember everything and with almost none.
#[test]
fn sets_agree_with_the_nimber_tables() {
    use retrograde::internal::search::CramSets;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5e75_0001);
    for (r, c, every) in [
        (3, 4, true),
        (4, 4, true),
        (2, 7, true),
        (1, 13, true),
        (4, 5, false),
        (3, 6, false),
    ] {
        let path = solve_nimbers(dir.path(), r, c, false, TableKind::Nimber);
        let tb = retrograde::Tablebase::open(&path).unwrap();
        let g = cram(&format!("cram:{r}x{c}"));
        let n = r * c;
        let masks: Vec<u64> = match every {
            true => (0..1u64 << n).collect(),
            false => (0..6000).map(|_| rng.next() & ((1u64 << n) - 1)).collect(),
        };
        for memory in [1u64 << 26, 1] {
            let progress = |_: &retrograde::search::engine::Stats| {};
            let mut e = CramSets::new(&g, &Options::with_memory(memory), &progress);
            let mut nonzero = 0;
            for &p in &masks {
                let Some(want) = tb.nimber_index(p).unwrap() else {
                    continue;
                };
                assert_eq!(e.nimber(p), Some(want), "{r}x{c} {}", g.format_position(&p));
                nonzero += usize::from(want > 1);
            }
            assert!(
                nonzero > 0,
                "{r}x{c}: the comparison is not of 0 and 1 only"
            );
        }
    }
}

/// The regions the sets engine keys (tufts on one square but one dropped,
/// squares between tufts dropped, regions split at closed 2×2 blocks,
/// equal regions cancelled) sum to the position's nimber, each region's
/// nimber being the plain one of the region alone; and equal regions under
/// the board's symmetries get equal keys, distinct ones distinct keys.
#[test]
fn the_sets_engines_regions_sum_to_the_nimber() {
    use retrograde::internal::search::CramSets;
    let mut rng = Rng(0x5e75_0002);
    for spec in ["cram:5x5", "cram:4x6", "cram:6x6", "cram:5x7"] {
        let g = cram(spec);
        let progress = |_: &retrograde::search::engine::Stats| {};
        let e = CramSets::new(&g, &Options::with_memory(1 << 20), &progress);
        let mut memo = HashMap::new();
        let mut by_key: HashMap<u128, BTreeSet<Vec<(i32, i32)>>> = HashMap::new();
        let mut reduced = 0;
        let playouts = if g.rows() * g.cols() > 30 { 60 } else { 300 };
        for p in samples(&g, &mut rng, playouts, 300) {
            // Positions of many squares are left to the engine's tests.
            if (g.full() & !p).count_ones() > 24 {
                continue;
            }
            let want = sum_nimber(&g, p, None, &mut memo);
            let mut sum = 0;
            let parts = e.regions(p);
            for &(x, key) in &parts {
                assert_eq!(key, g.key(&(g.full() & !x)));
                sum ^= sum_nimber(&g, g.full() & !x, None, &mut memo);
                by_key
                    .entry(key)
                    .or_default()
                    .insert(shape(&g, g.full() & !x));
            }
            assert_eq!(sum, want, "{spec} {}", g.format_position(&p));
            let kept: u32 = parts.iter().map(|(x, _)| x.count_ones()).sum();
            reduced += usize::from(kept < g.live(p).count_ones());
        }
        assert!(reduced > 0, "{spec}: no position was reduced");
        for (key, shapes) in by_key {
            assert_eq!(
                shapes.len(),
                1,
                "{spec}: key {key:x} holds distinct regions"
            );
        }
    }
}

/// `--engine sets` as the search runs it: the plain search's nimber on
/// whole boards, and one-line refusals of what it does not do.
#[test]
fn the_sets_engine_runs_as_the_search_does() {
    use retrograde::search::run::{run, Answer, Engine, Quiet, SearchOptions};
    for spec in ["cram:4x5", "cram:5x5", "cram:3x7", "cram:4x6"] {
        let game = AnySearch::parse(spec).unwrap();
        let g = cram(spec);
        let mut plain =
            retrograde::search::nimber::NimberSearch::new(&g, &Options::with_memory(1 << 28));
        let want = plain.nimber(&0).unwrap();
        for threads in [1, 2] {
            let o = SearchOptions {
                engine: Engine::Sets,
                nimber: true,
                threads,
                ..SearchOptions::default()
            };
            let r = run(&game, &o, &Quiet).unwrap();
            assert_eq!(r.results[0].answer, Answer::Nimber(Some(want)), "{spec}");
            assert_eq!(r.engine, Some(Engine::Sets));
        }
    }
    let game = AnySearch::parse("cram:4x4").unwrap();
    let misere = AnySearch::parse("cram:4x4:misere").unwrap();
    let sets = SearchOptions {
        engine: Engine::Sets,
        nimber: true,
        ..SearchOptions::default()
    };
    for (game, o) in [
        (&misere, sets.clone()),
        (
            &game,
            SearchOptions {
                nimber: false,
                ..sets.clone()
            },
        ),
        (
            &game,
            SearchOptions {
                save: Some(PathBuf::from("x.rdb")),
                ..sets.clone()
            },
        ),
        (&AnySearch::parse("mnk:3x3x3").unwrap(), sets.clone()),
    ] {
        let Err(e) = run(game, &o, &Quiet) else {
            panic!("--engine sets should be refused");
        };
        assert!(e.to_string().contains("sets"), "{e}");
    }
}
