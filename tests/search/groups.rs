//! Keying a board by a group of symmetries of one's choosing
//! (`Occupy::set_symmetries`): Qubic by the cube's 48, its default, or by
//! the 192 its lines have (the cube's with the maps of the coordinates'
//! values). A subgroup folds fewer positions and must change no value:
//! checked against the full group's df-pn on random Qubic positions and
//! against the table on the 3×3×3 cube. The comparison of the two groups'
//! nodes to the proof, which chose the default, is
//! `groups_nodes_to_the_proof` (ignored: a minute).

use crate::common;
use crate::shared::Rng;
use retrograde::internal::search::{
    cube_perms, cube_value_perms, Dfpn, Occupy, TableLeaves, ValueLeaves,
};
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::SearchGame;

fn occupy(spec: &str) -> Occupy<1> {
    match AnySearch::parse(spec) {
        Ok(AnySearch::Pattern(g)) => g,
        _ => panic!("{spec}: not a pattern board of one word"),
    }
}

/// Qubic keyed by the cube's 48 symmetries (the default, set again here so
/// that the comparison holds whatever the default).
fn qubic48() -> Occupy<1> {
    let mut g = occupy("pattern:games/qubic.txt");
    assert_eq!(g.set_symmetries(&cube_perms(4)), 48);
    g
}

/// Qubic keyed by all 192 symmetries of its lines.
fn qubic192() -> Occupy<1> {
    let mut g = occupy("pattern:games/qubic.txt");
    let candidates = [cube_perms(4), cube_value_perms(4)].concat();
    assert_eq!(g.set_symmetries(&candidates), 192);
    g
}

/// A random position `pieces` moves from the start that is not over.
fn random(g: &Occupy<1>, rng: &mut Rng, pieces: usize) -> Option<String> {
    let mut p = g.start();
    for _ in 0..pieces {
        let moves = g.moves(&p);
        if moves.is_empty() {
            return None;
        }
        p = moves[rng.below(moves.len())].1;
        if g.terminal(&p).is_some() || g.decided(&p).is_some() {
            return None;
        }
    }
    Some(g.format_position(&p))
}

#[test]
fn the_cubes_48_key_qubic_images_alike() {
    let g = qubic48();
    let full = qubic192();
    let mut rng = Rng(0x48);
    let mut checked = 0;
    for _ in 0..30 {
        let pieces = 1 + rng.below(14);
        let Some(text) = random(&g, &mut rng, pieces) else {
            continue;
        };
        let p = g.parse_position(&text).unwrap();
        let key = g.key(&p);
        for s in 0..g.symmetries().len() {
            assert_eq!(g.key(&g.image(&p, s)), key, "{text} symmetry {s}");
        }
        // A child's key from its parent's images is the key from scratch.
        for (_, c) in g.moves(&p) {
            let again = g.parse_position(&g.format_position(&c)).unwrap();
            assert_eq!(g.key(&c), g.key(&again), "{text}");
        }
        // Positions the 48 fold together the 192 fold too.
        let q = full.parse_position(&text).unwrap();
        for s in 0..g.symmetries().len() {
            let image = g.format_position(&g.image(&p, s));
            assert_eq!(
                full.key(&full.parse_position(&image).unwrap()),
                full.key(&q)
            );
        }
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
}

#[test]
fn the_cubes_48_change_no_qubic_value() {
    let small = Options {
        memory: 32 << 20,
        node_limit: Some(20_000),
        ..Options::default()
    };
    let g48 = qubic48();
    let g192 = qubic192();
    let mut a = Dfpn::new(&g48, small.clone());
    let mut b = Dfpn::new(&g192, small);
    let mut rng = Rng(0x192);
    let mut proven = 0;
    for _ in 0..40 {
        let pieces = 8 + rng.below(8);
        let Some(text) = random(&g48, &mut rng, pieces) else {
            continue;
        };
        let x = a.prove(&g48.parse_position(&text).unwrap());
        let y = b.prove(&g192.parse_position(&text).unwrap());
        if let (Some(v), Some(w)) = (x.value, y.value) {
            assert_eq!(v, w, "{text}");
            proven += 1;
        }
    }
    // Random Qubic positions of 8 to 15 pieces are mostly beyond 20,000
    // nodes; those proven must agree.
    assert!(proven >= 2, "{proven}");
}

#[test]
fn a_subgroup_keeps_the_cubes_table_values() {
    // The 3×3×3 cube's group restricted to the identity alone (every
    // position its own key): the table's values.
    let dir = tempfile::tempdir().unwrap();
    let spec = "pattern:games/cube.txt";
    let file = dir.path().join("t.rtb");
    common::solve(spec, &file, &[]);
    let leaves = TableLeaves::open(&[&file]).unwrap();
    let g = occupy(spec);
    let mut lone = occupy(spec);
    assert_eq!(lone.set_symmetries(&cube_perms(3)[..1]), 1);
    let options = Options {
        memory: 16 << 20,
        ..Options::default()
    };
    let mut rng = Rng(0x27);
    let mut checked = 0;
    for game in [&g, &lone] {
        let mut dfpn = Dfpn::new(game, options.clone());
        for _ in 0..20 {
            let pieces = rng.below(8);
            let Some(text) = random(game, &mut rng, pieces) else {
                continue;
            };
            let p = game.parse_position(&text).unwrap();
            let want = leaves.value(game, &p).expect("the table holds it");
            assert_eq!(dfpn.prove(&p).value, Some(want), "{text}");
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked}");
}

/// The comparison behind the default group: nodes df-pn needs to prove
/// random Qubic positions (`pieces` random moves from the start, one
/// thread, at most 200,000 nodes each) keyed by the cube's 48 and by the
/// full 192. Prints both; checks only that proven values agree. Run with
/// `cargo test --release -p retrograde-cli --test search
/// groups_nodes_to_the_proof -- --ignored --nocapture`.
#[test]
#[ignore]
fn groups_nodes_to_the_proof() {
    let g48 = qubic48();
    let g192 = qubic192();
    let options = Options {
        memory: 256 << 20,
        node_limit: Some(200_000),
        ..Options::default()
    };
    let mut rng = Rng(0xc0be);
    let mut totals = [(0u64, 0u32); 2];
    let mut n = 0;
    while n < 14 {
        let Some(text) = random(&g48, &mut rng, if n % 2 == 0 { 6 } else { 8 }) else {
            continue;
        };
        n += 1;
        let mut row = Vec::new();
        let mut values = Vec::new();
        for (i, g) in [&g48, &g192].into_iter().enumerate() {
            let mut dfpn = Dfpn::new(g, options.clone());
            let proof = dfpn.prove(&g.parse_position(&text).unwrap());
            let nodes = proof.stats.nodes;
            totals[i].0 += nodes;
            totals[i].1 += u32::from(proof.value.is_some());
            row.push(format!("{nodes:>7} {:?}", proof.value));
            values.push(proof.value);
        }
        if let [Some(v), Some(w)] = values[..] {
            assert_eq!(v, w, "{text}");
        }
        println!("{text}  48: {}  192: {}", row[0], row[1]);
    }
    println!(
        "48: {} proven, {} nodes; 192: {} proven, {} nodes",
        totals[0].1, totals[0].0, totals[1].1, totals[1].0
    );
}
