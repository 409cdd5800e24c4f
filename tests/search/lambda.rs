//! λ-df-pn (`SearchGame::focus`: the attacker's λ-moves searched first,
//! widened to every move once they are refuted) and weak disproof numbers
//! (`SearchGame::weak_sums`) against values that use neither: the tables,
//! the plain negamax reference, and df-pn without them, at one and two
//! threads; and a proof database made with them checked without threats.

use crate::common;
use crate::shared::{check_as, save_proven, Rng};
use retrograde::internal::search::{Dfpn, Occupy, OccupyPos, TableLeaves, ValueLeaves};
use retrograde::search::engine::{DfpnOptions, Options};
use retrograde::search::games::AnySearch;
use retrograde::search::{reference, SearchGame};
use retrograde::Value;

/// The game with threat knowledge on every board (the small ones have none
/// by default, and are where the tables check), λ-moves and weak sums as
/// asked.
fn occupy(spec: &str, lambda: bool, weak: bool) -> Occupy<1> {
    let mut g = crate::threats::occupy(spec);
    g.set_lambda(lambda);
    g.set_weak(weak);
    g
}

#[test]
fn lambda_moves_by_default_from_26_squares() {
    for (spec, on) in [
        ("mnk:4x5x4", false),
        ("mnk:5x5x4", false),
        ("mnk:6x5x4", true),
        ("pattern:games/qango6.txt", true),
        ("pattern:games/qubic.txt", true),
        ("connect:4x4:misere", false),
    ] {
        let g = match AnySearch::parse(spec) {
            Ok(AnySearch::Mnk(g) | AnySearch::Pattern(g) | AnySearch::Connect(g)) => g,
            _ => panic!("{spec}"),
        };
        assert_eq!(g.lambda(), on, "{spec}");
    }
}

/// The three searches checked against a reference: λ-moves, λ-moves with
/// weak sums, weak sums alone.
const FORMS: [(bool, bool); 3] = [(true, false), (true, true), (false, true)];

fn options(threads: usize) -> Options {
    Options {
        memory: 16 << 20,
        threads,
        dfpn: DfpnOptions {
            warm_up: 0,
            ..DfpnOptions::default()
        },
        ..Options::default()
    }
}

/// The positions of `games` random games of `g` (quiet moves preferred)
/// with at least `from` pieces, not over, each with its moves.
fn positions(
    g: &Occupy<1>,
    games: usize,
    seed: u64,
    from: u32,
) -> Vec<(OccupyPos<1>, Vec<(u16, OccupyPos<1>)>)> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut p = g.start();
        while g.terminal(&p).is_none() {
            let moves = g.moves(&p);
            if (p.stones[0][0] | p.stones[1][0]).count_ones() >= from {
                out.push((p, moves.clone()));
            }
            // A quiet move when there is one (neither player left with a
            // four), so that later positions are not all forced.
            let quiet: Vec<&OccupyPos<1>> = moves
                .iter()
                .map(|m| &m.1)
                .filter(|c| {
                    g.terminal(c).is_none()
                        && g.decided(c).is_none()
                        && !g.wins_now(c)
                        && !g.moves(c).iter().any(|(_, d)| g.wins_now(d))
                })
                .collect();
            p = if quiet.is_empty() {
                moves[rng.below(moves.len())].1
            } else {
                *quiet[rng.below(quiet.len())]
            };
        }
    }
    out
}

/// At how many of `ps` the mover's λ-moves narrow the search.
fn narrowed(g: &Occupy<1>, ps: &[(OccupyPos<1>, Vec<(u16, OccupyPos<1>)>)]) -> usize {
    ps.iter()
        .filter(|(p, moves)| {
            let mut m = moves.clone();
            let n = g.focus(p, &mut m);
            // The focus reorders the moves, never changes them.
            let mut a: Vec<u16> = m.iter().map(|x| x.0).collect();
            let mut b: Vec<u16> = moves.iter().map(|x| x.0).collect();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{}", g.format_position(p));
            n < moves.len()
        })
        .count()
}

/// Every form's value, at 1 and 2 threads, is `value`'s on every position
/// (read back from text, so the search starts cold), and its best move
/// keeps it.
fn forms_agree(
    spec: &str,
    ps: &[(OccupyPos<1>, Vec<(u16, OccupyPos<1>)>)],
    value: &mut dyn FnMut(&OccupyPos<1>) -> Value,
) {
    let want: Vec<Value> = ps.iter().map(|(p, _)| value(p)).collect();
    for (lambda, weak) in FORMS {
        let g = occupy(spec, lambda, weak);
        for threads in [1, 2] {
            let mut search = Dfpn::new(&g, options(threads));
            for ((p, moves), &v) in ps.iter().zip(&want) {
                let text = g.format_position(p);
                let shown = format!("{spec} {text} λ {lambda} weak {weak} threads {threads}");
                let r = search.prove(&g.parse_position(&text).unwrap());
                assert_eq!(r.value, Some(v), "{shown}");
                if let Some(m) = r.best_move {
                    let child = moves.iter().find(|(x, _)| *x == m).expect("legal").1;
                    assert_eq!(value(&child).flip(), v, "{shown} {m}");
                }
            }
        }
    }
}

#[test]
fn lambda_and_weak_values_agree_with_tables() {
    let dir = tempfile::tempdir().unwrap();
    let mut narrow = 0;
    for (spec, games, from) in [
        ("pattern:games/tictactoe.txt", 20, 0),
        ("mnk:3x3x3", 20, 0),
        ("mnk:4x4x4", 3, 5),
        ("pattern:games/qango4.txt", 3, 3),
        ("pattern:games/cube.txt", 20, 0),
    ] {
        let file = dir.path().join("t.rtb");
        common::solve(spec, &file, &[]);
        let leaves = TableLeaves::open(&[&file]).unwrap();
        let g = occupy(spec, true, false);
        let ps = positions(&g, games, 0x1a4bda, from);
        narrow += narrowed(&g, &ps);
        forms_agree(spec, &ps, &mut |p| {
            leaves.value(&g, p).expect("the table holds it")
        });
        std::fs::remove_file(&file).unwrap();
    }
    // The λ-moves must have narrowed some searches for the check to mean it.
    println!("{narrow} narrowed");
    assert!(narrow > 20, "{narrow}");
}

#[test]
fn lambda_and_weak_values_agree_with_negamax() {
    // 5x5 four in a row late in the game: the table rules' negamax.
    let spec = "mnk:5x5x4";
    let g = occupy(spec, true, false);
    let t = crate::shared::table(spec);
    let ps = positions(&g, 8, 0x5eed, 15);
    let n = narrowed(&g, &ps);
    println!("{spec}: {n} of {} narrowed", ps.len());
    assert!(n > 0, "{n}");
    forms_agree(spec, &ps, &mut |p| {
        let tp = t.parse_position(&g.format_position(p)).unwrap();
        reference::value(&t, &tp)
    });
}

#[test]
fn lambda_and_weak_values_agree_with_plain_dfpn() {
    // Boards past the tables: df-pn with no threats, no λ-moves, plain
    // sums (itself checked against negamax and the tables elsewhere).
    for (spec, games, from) in [
        ("pattern:games/qubic.txt", 3, 26),
        ("pattern:games/qango6.txt", 3, 12),
        ("mnk:6x5x4", 3, 14),
    ] {
        let g = occupy(spec, true, false);
        let mut plain = occupy(spec, false, false);
        plain.set_threat_budget(0);
        let mut search = Dfpn::new(&plain, options(1));
        let ps = positions(&g, games, 0xd1ff, from);
        let n = narrowed(&g, &ps);
        println!("{spec}: {n} of {} narrowed", ps.len());
        assert!(n > 0, "{spec}");
        forms_agree(spec, &ps, &mut |p| {
            let text = g.format_position(p);
            search
                .prove(&plain.parse_position(&text).unwrap())
                .value
                .expect("proven")
        });
    }
}

/// A proof database saved from a search with λ-moves and threats holds
/// positions whose children neither was needed for: the check by df-pn
/// with neither searches those children again, and passes.
#[test]
fn a_database_proven_with_lambda_passes_a_check_without_threats() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "pattern:games/qubic.txt";
    let g = occupy(spec, true, false);
    let mut plain = occupy(spec, false, false);
    plain.set_threat_budget(0);
    // Won positions of random games whose proof expands some nodes.
    let mut tried = 0;
    let mut checked = 0;
    let mut searched = 0;
    for (p, _) in positions(&g, 12, 0xdb, 14) {
        if checked == 2 || tried == 200 {
            break;
        }
        if g.decided(&p).is_some() || g.wins_now(&p) {
            continue;
        }
        tried += 1;
        let mut search = Dfpn::new(&g, options(2));
        let r = search.prove(&p);
        if r.value.is_none() || !(20..=2000).contains(&r.stats.nodes) {
            continue;
        }
        let path = dir.path().join("t.proof");
        let saved = save_proven(&g, &search, &path);
        let report = check_as(&plain, &path, options(1))
            .unwrap_or_else(|e| panic!("{}: {e}", g.format_position(&p)));
        assert_eq!(report.checked, saved);
        println!(
            "{} {:?}: {} nodes, {} entries, {} children searched",
            g.format_position(&p),
            r.value,
            r.stats.nodes,
            report.checked,
            report.searched
        );
        searched += report.searched;
        checked += 1;
    }
    assert_eq!(checked, 2, "{tried} tried");
    assert!(searched > 0);
}

/// Nodes to the proof of a few boards, each form against plain df-pn
/// with threats (one thread, at most `limit` nodes each; unproven counted
/// at the limit). A measurement, not a check: run with `cargo test
/// --release -p retrograde-cli --test search lambda_nodes_measured --
/// --ignored --nocapture` (`NODES`, `POSITIONS`: the limit and the number
/// of random Qubic positions, 200,000 and 14 by default).
#[test]
#[ignore]
fn lambda_nodes_measured() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let limit = env("NODES", 200_000);
    let count = env("POSITIONS", 14);
    let mut rng = Rng(0x9b1c);
    let mut qubic = Vec::new();
    let g = occupy("pattern:games/qubic.txt", false, false);
    for i in 0..count {
        let mut p = g.start();
        for _ in 0..(6 + 2 * (i % 2)) {
            let moves = g.moves(&p);
            p = moves[rng.below(moves.len())].1;
        }
        if g.terminal(&p).is_none() {
            qubic.push(g.format_position(&p));
        }
    }
    let boards: Vec<(&str, Vec<String>)> = vec![
        ("pattern:games/qubic.txt", qubic),
        ("pattern:games/qango6.txt", vec![String::new()]),
        ("mnk:6x5x4", vec![String::new()]),
        ("mnk:5x6x4", vec![String::new()]),
        ("mnk:4x5x4", vec![String::new()]),
        ("mnk:5x5x4", vec![String::new()]),
    ];
    for (spec, ps) in &boards {
        for (lambda, weak) in [(false, false), (true, false), (false, true), (true, true)] {
            let g = occupy(spec, lambda, weak);
            let t = std::time::Instant::now();
            let (mut proven, mut nodes) = (0, 0);
            for text in ps {
                let p = if text.is_empty() {
                    g.start()
                } else {
                    g.parse_position(text).unwrap()
                };
                let r = Dfpn::new(
                    &g,
                    Options {
                        memory: 256 << 20,
                        node_limit: Some(limit),
                        ..Options::default()
                    },
                )
                .prove(&p);
                proven += usize::from(r.value.is_some());
                nodes += r.stats.nodes;
            }
            println!(
                "{spec}: λ {lambda} weak {weak}: proven {proven} of {}, nodes {nodes}, {:.1} s",
                ps.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}

/// Patashnik's dictionary as a measuring stick (never part of a proof):
/// for the empty board and the twelve two-stone positions it holds, where
/// its move ranks in our move order and among our λ-moves (by the child's
/// key: symmetric moves count as one), and the nodes to prove the position
/// with and without λ-moves. Needs the dictionary of github kogorman/qubic
/// (`qubic.dictionary`, its cell k our square k): run with
/// `QUBIC_DICTIONARY=/tmp/qubic/qubic.dictionary cargo test --release -p
/// retrograde-cli --test search dictionary_ranks -- --ignored --nocapture`.
#[test]
#[ignore]
fn dictionary_ranks() {
    let Ok(path) = std::env::var("QUBIC_DICTIONARY") else {
        println!("QUBIC_DICTIONARY not set");
        return;
    };
    let limit: u64 = std::env::var("NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let text = std::fs::read_to_string(path).unwrap();
    let spec = "pattern:games/qubic.txt";
    let g = occupy(spec, true, false);
    let mut lines: Vec<(String, usize)> = Vec::new();
    let mut started = false;
    for line in text.lines() {
        if line.starts_with("-----") {
            started = true;
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(a), b) = (parts.next(), parts.next()) else {
            continue;
        };
        if !started {
            continue;
        }
        // The first entry is the empty board: " 0".
        let (pos, mv) = match b {
            Some(b) => (a, b),
            None => ("", a),
        };
        let mut cells = ['.'; 64];
        let (mut at, mut num) = (0usize, String::new());
        for ch in pos.chars() {
            if ch.is_ascii_digit() {
                num.push(ch);
                continue;
            }
            at += num.parse::<usize>().unwrap_or(0);
            num.clear();
            cells[at] = ch;
            at += 1;
        }
        let stones = cells.iter().filter(|&&c| c != '.').count();
        if stones > 2 {
            continue;
        }
        let rows: Vec<String> = cells.chunks(4).map(|r| r.iter().collect()).collect();
        lines.push((rows.join("/"), mv.parse().unwrap()));
    }
    assert_eq!(
        lines.len(),
        13,
        "the empty board and 12 two-stone positions"
    );
    println!("| position | dictionary move | rank in our order | λ-moves | its rank among them | nodes, λ | nodes, no λ |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (text, mv) in &lines {
        let p = g.parse_position(text).unwrap();
        let mut moves = g.moves(&p);
        let n = g.focus(&p, &mut moves);
        let target = moves.iter().find(|(m, _)| *m as usize == *mv).unwrap().1;
        let tk = g.key(&target);
        // Ranks among distinct children (by key), in the order df-pn
        // meets them: the move order, and the focus's first part.
        let rank_in = |ms: &[(u16, OccupyPos<1>)]| -> (Option<usize>, usize) {
            let mut seen = Vec::new();
            let mut rank = None;
            for (_, c) in ms {
                let k = g.key(c);
                if !seen.contains(&k) {
                    seen.push(k);
                    if k == tk && rank.is_none() {
                        rank = Some(seen.len());
                    }
                }
            }
            (rank, seen.len())
        };
        let (order_rank, distinct) = rank_in(&g.moves(&p));
        let (lambda_rank, lambda_n) = if n < moves.len() {
            rank_in(&moves[..n])
        } else {
            (None, 0)
        };
        let mut nodes = Vec::new();
        for lambda in [true, false] {
            let h = occupy(spec, lambda, false);
            let r = Dfpn::new(
                &h,
                Options {
                    memory: 256 << 20,
                    node_limit: Some(limit),
                    ..Options::default()
                },
            )
            .prove(&h.parse_position(text).unwrap());
            nodes.push(match r.value {
                Some(v) => format!("{} ({v:?})", r.stats.nodes),
                None => format!("> {limit} (pn {}, dn {})", r.stats.root_pn, r.stats.root_dn),
            });
        }
        println!(
            "| `{text}` | {mv} | {} of {distinct} | {lambda_n} | {} | {} | {} |",
            order_rank.map_or("-".into(), |r| r.to_string()),
            lambda_rank.map_or("-".into(), |r| r.to_string()),
            nodes[0],
            nodes[1]
        );
    }
}
