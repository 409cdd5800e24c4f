//! The bitboard placement games (`Occupy`) against the table games' own
//! rules, position by position, and their symmetry keys.

use retrograde::games::AnyGame;
use retrograde::internal::search::TableRules;
use retrograde::internal::search::{Occupy, OccupyPos};
use retrograde::search::games::AnySearch;
use retrograde::search::{reference, SearchGame};
use retrograde::Value;
use std::collections::HashMap;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The spec's `Occupy<1>` representation (gravity boards list the column
/// bitboards first).
fn occupy1(spec: &str) -> Occupy<1> {
    let all = AnySearch::parse_all(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    for g in all {
        if let AnySearch::Mnk(g)
        | AnySearch::Pattern(g)
        | AnySearch::Connect(g)
        | AnySearch::Sogo(g) = g
        {
            return g;
        }
    }
    panic!("{spec}: not an Occupy<1>")
}

fn table(spec: &str) -> TableRules<AnyGame> {
    match AnySearch::parse_table_rules(spec) {
        Ok(AnySearch::Table(t)) => t,
        Ok(_) => panic!("{spec}: not table rules"),
        Err(e) => panic!("{spec}: {e}"),
    }
}

/// Every legal move as (move, child position), sorted, in notation.
fn move_set<G: SearchGame>(g: &G, p: &G::Pos) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = g
        .moves(p)
        .iter()
        .map(|(m, c)| (g.format_move(m), g.format_position(c)))
        .collect();
    v.sort();
    v
}

/// Random games from the start: the table rules and the bitboards agree on
/// spec, notation, terminal values, moves and children, and (from
/// `min_stones` pieces on) the negamax value; symmetric images share a key,
/// and positions sharing a key have one value; a position the search calls
/// decided has that value by the table's rules. Returns positions compared
/// and positions decided.
fn agree(spec: &str, games: usize, min_stones: u32, seed: u64) -> (usize, usize) {
    let g = occupy1(spec);
    let t = table(spec);
    assert_eq!(g.spec(), t.spec(), "{spec}");
    let mut rng = XorShift(seed);
    let mut values: HashMap<[u64; 2], (Value, String)> = HashMap::new();
    let mut compared = 0;
    let mut decided = 0;
    for _ in 0..games {
        let mut p = g.start();
        loop {
            let text = g.format_position(&p);
            let tp = t
                .parse_position(&text)
                .unwrap_or_else(|e| panic!("{spec} {text}: {e}"));
            assert_eq!(t.format_position(&tp), text);
            assert_eq!(g.parse_position(&text).unwrap(), p, "{spec} {text}");
            assert_eq!(g.terminal(&p), t.terminal(&tp), "{spec} {text}");
            let stones = text.chars().filter(|c| matches!(c, 'x' | 'o')).count() as u32;
            let key = g.key(&p);
            for s in 0..g.symmetries().len() {
                assert_eq!(g.key(&g.image(&p, s)), key, "{spec} {text} symmetry {s}");
            }
            if stones >= min_stones {
                let v = reference::value(&g, &p);
                assert_eq!(v, reference::value(&t, &tp), "{spec} {text}");
                if let Some((w, other)) = values.insert(key, (v, text.clone())) {
                    assert_eq!(w, v, "{spec}: {text} and {other} share a key");
                    let image = (0..g.symmetries().len())
                        .any(|s| g.format_position(&g.image(&p, s)) == other);
                    assert!(image, "{spec}: {text} and {other} share a key, not images");
                }
            }
            compared += 1;
            if g.terminal(&p).is_some() {
                assert!(g.moves(&p).is_empty());
                break;
            }
            // A position the search calls decided (no pattern left to
            // complete) has that value by the table's own rules.
            if let Some(v) = g.decided(&p) {
                assert_eq!(reference::value(&t, &tp), v, "{spec} {text}: decided");
                decided += 1;
            }
            assert_eq!(move_set(&g, &p), move_set(&t, &tp), "{spec} {text}");
            let moves = g.moves(&p);
            let wins = moves
                .iter()
                .any(|(_, c)| g.terminal(c) == Some(Value::Lose));
            if !spec.contains("misere") {
                assert_eq!(g.wins_now(&p), wins, "{spec} {text}");
                // Winning moves come first.
                if wins {
                    assert_eq!(g.terminal(&moves[0].1), Some(Value::Lose), "{spec} {text}");
                }
            }
            p = moves[rng.below(moves.len())].1;
        }
    }
    (compared, decided)
}

#[test]
fn tictactoe_and_small_mnk_agree_with_tables() {
    let (n, dead) = agree("tictactoe", 200, 0, 1);
    assert!(dead > 0, "no dead position met");
    assert!(n > 1000);
    assert!(agree("mnk:4x3x3", 100, 2, 2).0 > 800);
    assert!(agree("mnk:4x4x3", 60, 5, 3).0 > 400);
}

#[test]
fn connect_agrees_with_tables() {
    let (n, dead) = agree("connect:4x4", 60, 5, 4);
    assert!(dead > 0, "no dead position met");
    assert!(n > 500);
    assert!(agree("connect:5x4", 40, 8, 5).0 > 400);
    let (n, dead) = agree("connect:4x4:misere", 60, 5, 6);
    assert!(dead > 0, "no dead position met");
    assert!(n > 500);
}

#[test]
fn sogo_agrees_with_tables() {
    assert!(agree("sogo:2", 100, 0, 7).0 >= 400);
    assert!(agree("sogo:3", 60, 12, 8).0 > 400);
}

#[test]
fn pattern_files_agree_with_tables() {
    let (n, dead) = agree("pattern:games/cube.txt", 100, 0, 9);
    assert!(dead > 0, "no dead position met");
    assert!(n > 400);
    assert!(agree("pattern:games/qango4.txt", 60, 6, 10).0 > 400);
    assert!(agree("pattern:games/tictactoe.txt", 40, 0, 11).0 > 200);
}

#[test]
fn gravity_lines_are_the_tables_lines() {
    use retrograde::games::connect::Connect;
    use retrograde::games::sogo::Sogo;
    let mine = |spec: &str| {
        let mut v: Vec<u64> = occupy1(spec).patterns().iter().map(|p| p[0]).collect();
        v.sort_unstable();
        v
    };
    for size in ["4x4", "5x4", "7x4", "5x4x3"] {
        let mut theirs = Connect::from_params(size).unwrap().board().lines().to_vec();
        theirs.sort_unstable();
        assert_eq!(mine(&format!("connect:{size}")), theirs, "{size}");
    }
    for n in 1..=3 {
        let mut theirs = Sogo::new(n, false).unwrap().board().lines().to_vec();
        theirs.sort_unstable();
        assert_eq!(mine(&format!("sogo:{n}")), theirs, "sogo:{n}");
    }
    // ((N+2)³ − N³)/2 lines: 76 for the 4×4×4 cube; Connect-Four 7×6 has 69.
    assert_eq!(occupy1("sogo:4").patterns().len(), 76);
    assert_eq!(occupy1("connect:7x6").patterns().len(), 69);
    assert_eq!(occupy1("connect:7x6").symmetries().len(), 2);
    assert_eq!(occupy1("sogo:4").symmetries().len(), 8);
}

/// Random positions of a game: every symmetric image has the same key, and
/// the key differs from those of a few non-image positions.
fn keys_fold_images<const W: usize>(g: &Occupy<W>, seed: u64) -> usize
where
    Occupy<W>: SearchGame<Pos = OccupyPos<W>>,
{
    let mut rng = XorShift(seed);
    let mut seen: HashMap<<Occupy<W> as SearchGame>::Key, String> = HashMap::new();
    let mut n = 0;
    for _ in 0..20 {
        let mut p = g.start();
        while g.terminal(&p).is_none() {
            let key = g.key(&p);
            let text = g.format_position(&p);
            assert_eq!(g.parse_position(&text).unwrap(), p);
            for s in 0..g.symmetries().len() {
                assert_eq!(g.key(&g.image(&p, s)), key, "{text} symmetry {s}");
            }
            if let Some(other) = seen.insert(key, text.clone()) {
                let image =
                    (0..g.symmetries().len()).any(|s| g.format_position(&g.image(&p, s)) == other);
                assert!(image, "{text} and {other} share a key");
            }
            n += 1;
            let moves = g.moves(&p);
            p = moves[rng.below(moves.len())].1;
        }
    }
    n
}

#[test]
fn qubic_and_qango6_files() {
    let qubic = occupy1("pattern:games/qubic.txt");
    assert_eq!(qubic.patterns().len(), 76);
    // The cube's 48 rotations and reflections keep the lines: the group
    // its positions are keyed by (tests/search/groups.rs compares it with
    // the 192 the lines have, the Sogo page's group).
    assert_eq!(qubic.symmetries().len(), 48);
    // Each maps every line onto a line, so a position and its images have
    // one value (keys_fold_images below checks that they share a key, and
    // that positions sharing a key are images).
    let lines: std::collections::HashSet<u64> = qubic.patterns().iter().map(|p| p[0]).collect();
    for g in qubic.symmetries() {
        for p in qubic.patterns() {
            let image = g
                .iter()
                .enumerate()
                .filter(|&(s, _)| p[0] >> s & 1 != 0)
                .fold(0u64, |m, (_, &t)| m | 1 << t);
            assert!(lines.contains(&image), "{g:?}");
        }
    }
    assert!(keys_fold_images(&qubic, 12) > 100);
    let qango = occupy1("pattern:games/qango6.txt");
    // 32 fives, 25 squares, 12 colour triples; the 8 L-shaped triples each
    // lie inside a 2x2 square, which is dropped (owning it means owning
    // the triple first), as GABOR's remove_useless_wsn does.
    assert_eq!(qango.patterns().len(), 61);
    assert!(keys_fold_images(&qango, 13) > 100);
    // The canonical spec reads back as the same game.
    let again = occupy1(&qango.spec());
    assert_eq!(again.spec(), qango.spec());
    assert_eq!(again.symmetries().len(), qango.symmetries().len());
}

#[test]
fn big_boards() {
    let g = match AnySearch::parse("mnk:15x15x5").unwrap() {
        AnySearch::MnkWide(g) => g,
        _ => panic!("15x15 needs four words"),
    };
    assert_eq!(g.spec(), "mnk:15x15x5");
    assert_eq!(g.moves(&g.start()).len(), 225);
    // 11·15 rows + 11·15 columns + 2·11·11 diagonals.
    assert_eq!(g.patterns().len(), 2 * 165 + 2 * 121);
    assert_eq!(g.symmetries().len(), 8);
    assert!(keys_fold_images(&g, 14) > 100);
    let c = occupy1("connect:7x6");
    assert_eq!(c.spec(), "connect:7x6x4");
    assert!(keys_fold_images(&c, 15) > 100);
    // Centre column first on the empty board.
    assert_eq!(c.format_move(&c.moves(&c.start())[0].0), "4");
    let p = c.parse_position("4453").unwrap();
    assert_eq!(
        c.format_position(&p),
        "......./......./......./......./...o.../..oxx.."
    );
    let s = occupy1("sogo:4");
    assert_eq!(s.spec(), "sogo:4");
    let p = s.parse_position("a1b2b2").unwrap();
    assert_eq!(s.parse_position(&s.format_position(&p)).unwrap(), p);
    assert!(keys_fold_images(&s, 16) > 100);
    // x threatens a row: the win is found and played first, and o's only
    // non-losing reply is the block.
    let p = c.parse_position("112233").unwrap();
    assert!(c.wins_now(&p));
    assert_eq!(c.format_move(&c.moves(&p)[0].0), "4");
    let p = c.parse_position("11223").unwrap();
    assert_eq!(c.format_move(&c.moves(&p)[0].0), "4");
    // Impossible boards are refused: a piece above a hole, the mover
    // owning a line, wrong piece counts.
    for bad in [
        "......./......./......./......./...x.../.......",
        "......./......./......./......./o....../xxxxooo",
        "......./......./......./......./......./xxx....",
        "12345678",
    ] {
        assert!(c.parse_position(bad).is_err(), "{bad}");
    }
    // x just completed a row: legal, and over.
    let won = c
        .parse_position("......./......./......./......./......./xxxxooo")
        .unwrap();
    assert_eq!(c.terminal(&won), Some(Value::Lose));
    let t = occupy1("tictactoe");
    assert!(t.parse_position("xxx/oo./...").is_ok());
    assert!(t.parse_position("xxx/ooo/...").is_err());
    assert!(t.parse_position("xxx/oo./o..").is_err());
    assert!(t.parse_position("ooo/xx./x..").is_ok());
    // The search reads mnk specs with the table's parser: any side, up to
    // 256 squares.
    assert!(AnySearch::parse("mnk:17x3x3").is_ok());
    let e = AnySearch::parse("mnk:17x16x5").err().unwrap().to_string();
    assert!(e.contains("272 squares; at most 256"), "{e}");
    assert!(AnySearch::parse("connect:9x8").is_err());
    assert!(AnySearch::parse("sogo:5").is_err());
}

/// Throughput of move generation and keys on random walks (run with
/// `--ignored --nocapture`; prints positions per second).
#[test]
#[ignore]
fn speed() {
    fn walk<const W: usize>(g: &Occupy<W>, name: &str)
    where
        Occupy<W>: SearchGame<Pos = OccupyPos<W>>,
    {
        let mut rng = XorShift(99);
        let (mut nodes, mut hash) = (0u64, 0u64);
        let start = std::time::Instant::now();
        while start.elapsed().as_secs_f64() < 2.0 {
            let mut p = g.start();
            while g.terminal(&p).is_none() {
                let moves = g.moves(&p);
                for (_, c) in &moves {
                    let k = g.key(c);
                    hash = hash.wrapping_add(retrograde::search::Key::hash64(&k) | 1);
                    nodes += 1;
                }
                p = moves[rng.below(moves.len())].1;
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name}: {:.2} M children (moves + key) per second",
            nodes as f64 / secs / 1e6
        );
        assert!(hash > 0);
    }
    walk(&occupy1("connect:7x6"), "connect:7x6");
    walk(&occupy1("sogo:4"), "sogo:4");
    walk(&occupy1("pattern:games/qango6.txt"), "qango6");
    walk(&occupy1("pattern:games/qubic.txt"), "qubic");
    if let AnySearch::MnkWide(g) = AnySearch::parse("mnk:15x15x5").unwrap() {
        walk(&g, "mnk:15x15x5");
    }
}
