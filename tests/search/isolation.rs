//! Isolation for the search (`isolation:RxC` on up to 64 squares) against
//! the table game's rules, position by position, and its symmetry keys.

use crate::shared::{table, Rng};
use retrograde::internal::search::{IsolationSearch, IsolationSearchPos};
use retrograde::search::games::AnySearch;
use retrograde::search::reference;
use retrograde::search::SearchGame;
use retrograde::Value;
use std::collections::{BTreeSet, HashMap};

fn isolation(spec: &str) -> IsolationSearch {
    match AnySearch::parse(spec).unwrap() {
        AnySearch::Isolation(g) => g,
        _ => panic!("{spec} is not searched as Isolation"),
    }
}

/// Positions of random playouts from the start, with their depth.
fn samples(
    g: &IsolationSearch,
    rng: &mut Rng,
    playouts: usize,
) -> Vec<(usize, IsolationSearchPos)> {
    let mut out = Vec::new();
    for _ in 0..playouts {
        let mut p = g.start();
        for depth in 0.. {
            out.push((depth, p));
            let moves = g.moves(&p);
            if moves.is_empty() {
                break;
            }
            p = moves[rng.below(moves.len())].1;
        }
    }
    out
}

#[test]
fn positions_moves_and_values_match_the_table_rules() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // (spec, playouts, least depth for a value: the reference searches
    // from scratch for each position)
    for (spec, playouts, deep) in [
        ("isolation:3x3", 30, 0),
        ("isolation:3x4", 30, 2),
        ("isolation:4x4", 12, 6),
        ("isolation:3x4:a=0,b=11:misere", 20, 2),
        ("isolation:2x5:misere", 20, 0),
    ] {
        let g = isolation(spec);
        let t = table(spec);
        assert_eq!(g.spec(), t.spec());
        assert!(!g.ties() && !g.impartial());
        assert_eq!(g.format_position(&g.start()), t.format_position(&t.start()));
        let mut outcomes = [0; 2];
        for (depth, p) in samples(&g, &mut rng, playouts) {
            let text = g.format_position(&p);
            let tp = t.parse_position(&text).unwrap();
            assert_eq!(t.format_position(&tp), text);
            assert_eq!(g.parse_position(&text), Ok(p));
            assert_eq!(g.terminal(&p), t.terminal(&tp), "{spec} {text}");
            let ours: BTreeSet<(String, String)> = g
                .moves(&p)
                .iter()
                .map(|(m, c)| (g.format_move(m), g.format_position(c)))
                .collect();
            let theirs: BTreeSet<(String, String)> = t
                .moves(&tp)
                .iter()
                .map(|(m, c)| (m.clone(), t.format_position(c)))
                .collect();
            assert_eq!(ours, theirs, "{spec} {text}");
            assert_eq!(ours.len(), g.moves(&p).len());
            if depth >= deep {
                let v = reference::value(&g, &p);
                assert_eq!(v, reference::value(&t, &tp), "{spec} {text}");
                outcomes[usize::from(v == Value::Win)] += 1;
                if g.wins_now(&p) {
                    assert_eq!(v, Value::Win, "{spec} {text}: wins_now");
                }
            }
        }
        assert!(outcomes[0] > 0 && outcomes[1] > 0, "{spec}: {outcomes:?}");
    }
}

/// The images of a position under the board's symmetries, by coordinates:
/// an independent statement of what the key folds.
fn images(rows: u32, cols: u32, text: &str) -> Vec<String> {
    let grid: Vec<Vec<char>> = text.split('/').map(|r| r.chars().collect()).collect();
    let (r, c) = (rows as usize, cols as usize);
    type Map = Box<dyn Fn(usize, usize) -> (usize, usize)>;
    let mut maps: Vec<Map> = vec![
        Box::new(|y, x| (y, x)),
        Box::new(move |y, x| (r - 1 - y, x)),
        Box::new(move |y, x| (y, c - 1 - x)),
        Box::new(move |y, x| (r - 1 - y, c - 1 - x)),
    ];
    if r == c {
        maps.push(Box::new(|y, x| (x, y)));
        maps.push(Box::new(move |y, x| (r - 1 - x, r - 1 - y)));
        maps.push(Box::new(move |y, x| (x, r - 1 - y)));
        maps.push(Box::new(move |y, x| (r - 1 - x, y)));
    }
    maps.iter()
        .map(|m| {
            let mut out = vec![vec!['?'; c]; r];
            for (y, row) in grid.iter().enumerate() {
                for (x, &ch) in row.iter().enumerate() {
                    let (yy, xx) = m(y, x);
                    out[yy][xx] = ch;
                }
            }
            out.iter()
                .map(|row| row.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect()
}

#[test]
fn keys_fold_exactly_the_board_symmetries() {
    let mut rng = Rng(99);
    for (spec, rows, cols) in [
        ("isolation:4x4", 4, 4),
        ("isolation:3x5", 3, 5),
        ("isolation:8x8", 8, 8),
        ("isolation:4x16", 4, 16),
    ] {
        let g = isolation(spec);
        assert_eq!(g.symmetries(), if rows == cols { 8 } else { 4 });
        let mut by_key: HashMap<u128, String> = HashMap::new();
        let mut distinct = 0;
        for (_, p) in samples(&g, &mut rng, 20) {
            let text = g.format_position(&p);
            let canon = images(rows, cols, &text).into_iter().min().unwrap();
            for image in images(rows, cols, &text) {
                let q = g.parse_position(&image).unwrap();
                assert_eq!(g.key(&q), g.key(&p), "{spec} {text} / {image}");
            }
            match by_key.get(&g.key(&p)) {
                Some(c) => assert_eq!(c, &canon, "{spec}: one key, two positions"),
                None => {
                    by_key.insert(g.key(&p), canon);
                    distinct += 1;
                }
            }
        }
        assert!(distinct > 100, "{spec}: {distinct}");
    }
    // Which piece is which is kept: swapping the pieces changes the key.
    let g = isolation("isolation:3x3");
    let p = g.parse_position("01./.../...").unwrap();
    let q = g.parse_position("10./.../...").unwrap();
    assert_ne!(g.key(&p), g.key(&q));
}

#[test]
fn specs_and_notation() {
    let g = isolation("isolation:6x6");
    assert_eq!(g.spec(), "isolation:6x6:a=2,b=33");
    assert_eq!(
        g.format_position(&g.start()),
        "..0.../....../....../....../....../...1.."
    );
    assert_eq!(g.moves(&g.start()).len(), 5 * 34);
    let h = isolation("isolation:8x8:a=0,b=63:misere");
    assert_eq!(h.spec(), "isolation:8x8:a=0,b=63:misere");
    assert_eq!(h.moves(&h.start()).len(), 3 * 62);
    assert_eq!(h.terminal(&h.start()), None);
    // A cornered piece: a loss in normal play, a win in misère.
    let three = "0x....../xx....../......../......../......../......../......../.......1";
    let p = h.parse_position(three).unwrap();
    assert_eq!(h.terminal(&p), None, "player 1 moves after 3 removals");
    let four = "0x....../xx....../......../......../......../......../......../......x1";
    assert_eq!(
        h.terminal(&h.parse_position(four).unwrap()),
        Some(Value::Win)
    );
    let p = g
        .parse_position("0x..../xx..../....../....../....../...1.x")
        .unwrap();
    assert_eq!(g.terminal(&p), Some(Value::Lose));
    for bad in [
        "isolation:9x8",
        "isolation:1x5",
        "isolation:4x4:a=3,b=3",
        "isolation:4x4:a=16",
        "isolation:4x4:c=1",
    ] {
        let e = AnySearch::parse(bad).err().unwrap().to_string();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    assert_eq!(
        AnySearch::parse("isolation:5x5:b=0,a=24")
            .map(|g| retrograde::with_search!(&g, s => s.spec()))
            .ok(),
        Some("isolation:5x5:a=24,b=0".to_string())
    );
}

/// Timing of df-pn on Isolation boards past the tables (and 4×4 against
/// the reference): `cargo test --release --test search
/// isolation::dfpn_past_the_tables -- --ignored --nocapture`, boards in
/// `ISOLATION_BOARDS`, seconds per board in `ISOLATION_SECONDS`.
#[test]
#[ignore]
fn dfpn_past_the_tables() {
    use retrograde::search::dfpn::prove;
    use retrograde::search::engine::Options;
    use std::time::Duration;
    let g = isolation("isolation:4x4");
    let proof = prove(&g, &g.start(), Options::default());
    assert_eq!(proof.value, Some(reference::value(&g, &g.start())));
    let seconds: u64 = std::env::var("ISOLATION_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let boards = std::env::var("ISOLATION_BOARDS")
        .unwrap_or("isolation:4x4 isolation:4x5 isolation:5x5".into());
    for spec in boards.split(' ') {
        let g = isolation(spec);
        let options = Options {
            time_limit: Some(Duration::from_secs(seconds)),
            ..Options::default()
        };
        let p = prove(&g, &g.start(), options);
        let s = &p.stats;
        eprintln!(
            "{spec}: {:?} in {:.2?}, {} nodes ({:.0} nodes/s), table {}/{}",
            p.value,
            s.elapsed,
            s.nodes,
            s.nodes as f64 / s.elapsed.as_secs_f64(),
            s.tt_used,
            s.tt_capacity
        );
    }
}

/// Whether the mover wins, memoised by key across calls.
fn wins(g: &IsolationSearch, p: &IsolationSearchPos, memo: &mut HashMap<u128, bool>) -> bool {
    if let Some(v) = g.terminal(p) {
        return v == Value::Win;
    }
    if let Some(&w) = memo.get(&g.key(p)) {
        return w;
    }
    let w = g.moves(p).iter().any(|(_, c)| !wins(g, c, memo));
    memo.insert(g.key(p), w);
    w
}

#[test]
fn published_4x4_values() {
    // REFERENCE.md (Gao & Li's solver): the start is a win whose only
    // winning first move is 2x10; two example positions.
    let g = isolation("isolation:4x4");
    assert_eq!(g.format_position(&g.start()), ".0../..../..../..1.");
    let mut memo = HashMap::new();
    assert!(wins(&g, &g.start(), &mut memo));
    let winning: Vec<String> = g
        .moves(&g.start())
        .iter()
        .filter(|(_, c)| !wins(&g, c, &mut memo))
        .map(|(m, _)| g.format_move(m))
        .collect();
    assert_eq!(winning, ["2x10"]);
    let p = g.parse_position("0.../...x/.x../...1").unwrap();
    assert!(wins(&g, &p, &mut memo));
    let p = g.parse_position("0.../x.x./.1../....").unwrap();
    assert!(!wins(&g, &p, &mut memo));
}

#[test]
fn keys_turn_back_into_positions() {
    let mut rng = Rng(31337);
    for spec in [
        "isolation:3x4",
        "isolation:4x4",
        "isolation:6x6",
        "isolation:8x8:misere",
    ] {
        let g = isolation(spec);
        for (_, p) in samples(&g, &mut rng, 5) {
            let k = g.key(&p);
            let q = g.position_of_key(&k).unwrap();
            assert_eq!(g.key(&q), k);
            // The least image of p under the symmetries, so the same game.
            assert!((0..g.symmetries()).any(|s| g.transform(s, &p) == q));
            assert_eq!(g.terminal(&q), g.terminal(&p));
        }
    }
    let g = isolation("isolation:3x3");
    assert_eq!(
        g.position_of_key(&(5u128 << 64 | 5u128 << 72)),
        None,
        "one square, two pieces"
    );
    assert_eq!(
        g.position_of_key(&(1u128 << 9 | 1u128 << 72)),
        None,
        "off the board"
    );
}
