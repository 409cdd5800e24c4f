//! The engines against the plain negamax reference and against tables,
//! position by position, on the registered games' own rules
//! (`AnySearch::parse_table_rules`), so that any fault is the engine's.

use crate::common;
use retrograde::internal::search::{verify_values, Dfpn, TableLeaves, ValueLeaves};
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::nimber::NimberSearch;
use retrograde::search::proofdb::{self, Fact, Kind, Record};
use retrograde::search::{reference, SearchGame};
use retrograde::{with_search, Value};

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// Positions met on random games from the start: `games` games, every
/// position of each (the start included once).
pub fn playout_positions<G: SearchGame>(g: &G, games: usize, seed: u64) -> Vec<G::Pos> {
    let mut rng = Rng(seed | 1);
    let mut out = vec![g.start()];
    for _ in 0..games {
        let mut p = g.start();
        while g.terminal(&p).is_none() {
            let moves = g.moves(&p);
            if moves.is_empty() {
                break;
            }
            p = moves[rng.below(moves.len())].1.clone();
            out.push(p.clone());
        }
    }
    out
}

/// A table small enough to thrash: replacement must keep proofs sound.
fn tiny() -> Options {
    Options {
        memory: 64 << 10,
        ..Options::default()
    }
}

/// A table of a few MiB, shared by the positions of one game (so proofs
/// also meet entries other proofs left), and every fifth position proven
/// again with a fresh tiny table.
fn small() -> Options {
    Options {
        memory: 4 << 20,
        ..Options::default()
    }
}

fn dfpn_matches_negamax<G: SearchGame>(g: &G, games: usize) -> usize {
    let mut checked = 0;
    let mut shared = Dfpn::new(g, small());
    for (i, p) in playout_positions(g, games, 0x5eed).into_iter().enumerate() {
        let expect = reference::value(g, &p);
        if i % 5 == 0 {
            let proof = Dfpn::new(g, tiny()).prove(&p);
            assert_eq!(
                proof.value,
                Some(expect),
                "{}: {} (tiny table)",
                g.spec(),
                g.format_position(&p)
            );
        }
        let proof = shared.prove(&p);
        assert_eq!(
            proof.value,
            Some(expect),
            "{}: {}",
            g.spec(),
            g.format_position(&p)
        );
        if let Some(m) = proof.best_move {
            // The move achieves the value: the child is worth its negation.
            let child = g
                .moves(&p)
                .into_iter()
                .find(|(mv, _)| g.format_move(mv) == g.format_move(&m))
                .expect("the best move is a legal move")
                .1;
            assert_eq!(
                reference::value(g, &child),
                expect.flip(),
                "{}: best move",
                g.spec()
            );
        } else {
            assert!(expect == Value::Lose || g.terminal(&p).is_some());
        }
        checked += 1;
    }
    checked
}

#[test]
fn dfpn_agrees_with_negamax_on_every_family() {
    for (spec, games) in [
        ("tictactoe", 40),
        ("mnk:3x4x3", 20),
        ("connect:4x4", 8),
        ("connect:4x4:misere", 8),
        ("sogo:2", 20),
        ("subtraction:40:1,3,4", 5),
        ("digits:60", 5),
        ("cram:3x4", 20),
        ("isolation:3x3", 20),
        ("isolation:3x3:misere", 10),
    ] {
        let g = AnySearch::parse_table_rules(spec).unwrap();
        let n = with_search!(&g, g => {
            dfpn_matches_negamax(g, games)
        });
        assert!(n > games, "{spec}: {n} positions");
    }
}

#[test]
fn dfpn_agrees_with_tables_on_random_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, games) in [
        ("connect:5x4", 30),
        ("isolation:3x4", 30),
        ("mnk:4x4x3", 30),
        ("cram:4x4", 30),
    ] {
        let file = dir.path().join(format!("{}.rtb", spec.replace(':', "-")));
        common::solve(spec, &file, &[]);
        let leaves = TableLeaves::open(&[&file]).unwrap();
        let g = AnySearch::parse_table_rules(spec).unwrap();
        with_search!(&g, g => {
            let mut checked = 0;
            let mut shared = Dfpn::new(g, small());
            for p in playout_positions(g, games, 0xab) {
                let table = leaves.value(g, &p).expect("the table holds every legal position");
                let proof = shared.prove(&p);
                assert_eq!(proof.value, Some(table), "{spec}: {}", g.format_position(&p));
                checked += 1;
            }
            assert!(checked > games);
            // With the table as leaves the root is answered without search.
            let proof = Dfpn::new(g, small()).with_leaves(&leaves).prove(&g.start());
            assert_eq!(proof.value, leaves.value(g, &g.start()));
            assert!(proof.stats.leaf_hits >= 1);
        });
    }
}

#[test]
fn nimbers_agree_with_the_reference_and_the_published_values() {
    let g = AnySearch::parse_table_rules("cram:3x4").unwrap();
    with_search!(&g, g => {
        for p in playout_positions(g, 10, 7) {
            let n = NimberSearch::new(g, &Options::with_memory(1 << 20)).nimber(&p).unwrap();
            assert_eq!(n, reference::nimber(g, &p), "{}", g.format_position(&p));
        }
    });
    // Dawson's Kayles is 1×n Cram (REFERENCE.md), n = 1..20.
    let published = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
    for (n, &expect) in (1..=20).zip(&published) {
        let g = AnySearch::parse_table_rules(&format!("cram:1x{n}")).unwrap();
        let got = with_search!(&g, g => NimberSearch::new(g, &Options::with_memory(1 << 20)).nimber(&g.start()).unwrap());
        assert_eq!(got, expect, "1x{n}");
    }
}

#[test]
fn a_stopped_search_says_so_and_proves_nothing_false() {
    let g = AnySearch::parse_table_rules("connect:5x4").unwrap();
    with_search!(&g, g => {
        let options = Options { node_limit: Some(2000), ..tiny() };
        let proof = Dfpn::new(g, options).prove(&g.start());
        assert!(proof.stopped);
        assert_eq!(proof.value, None);
        assert!(proof.stats.nodes < 10_000);
    });
}

#[test]
fn a_proof_database_round_trips_and_rechecks() {
    let dir = tempfile::tempdir().unwrap();
    let g = AnySearch::parse_table_rules("connect:4x4").unwrap();
    with_search!(&g, g => {
        let mut search = Dfpn::new(g, Options::default());
        let proof = search.prove(&g.start());
        assert_eq!(proof.value, Some(Value::Tie));
        // Keys of the table rules are indices: positions come back by index.
        let mut records: Vec<_> = search
            .proven()
            .map(|(key, b)| Record { key, fact: Fact::Value(b), pos: g.position_of_key(&key).unwrap() })
            .collect();
        assert!(records.len() > 100);
        let path = dir.path().join("c44.proof");
        proofdb::save(g, &path, Kind::Values, &mut records).unwrap();
        let (kind, loaded) = proofdb::load(g, &path).unwrap();
        assert_eq!(kind, Kind::Values);
        assert_eq!(loaded.len(), records.len());
        let mut fresh = Dfpn::new(g, Options::default());
        let db = proofdb::merge(g, vec![(path.clone(), loaded.clone())]).unwrap();
        let report = verify_values(g, &db, &mut fresh, &|| false).unwrap();
        assert_eq!(report.checked, records.len() as u64);
        assert_eq!(report.unchecked, 0);

        // A false entry is caught: claim the start (a tie) is a win.
        let start = g.start();
        let mut bad = loaded.clone();
        let r = bad.iter_mut().find(|r| r.key == g.key(&start)).expect("the root is saved");
        r.fact = Fact::Value(retrograde::search::Bounds { lo: 1, hi: 1 });
        let mut fresh = Dfpn::new(g, Options::default());
        let db = proofdb::merge(g, vec![(path.clone(), bad)]).unwrap();
        assert!(verify_values(g, &db, &mut fresh, &|| false).is_err());
        // A stop leaves the entries not yet re-proven unused, and says so.
        let mut fresh = Dfpn::new(g, Options::default());
        let db = proofdb::merge(g, vec![(path.clone(), loaded.clone())]).unwrap();
        let report = verify_values(g, &db, &mut fresh, &|| true).unwrap();
        assert_eq!((report.checked, report.unchecked), (0, records.len() as u64));

        // A flipped byte is refused before any entry is used.
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let err = proofdb::load(g, &path).unwrap_err();
        assert!(
            matches!(
                &err,
                retrograde::Error::ProofDatabase {
                    fault: retrograde::ProofFault::Checksum { stored, computed },
                    ..
                } if stored != computed
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("checksum"), "{err}");
    });
}

/// What a search saves names each key once, with the bounds of its table
/// entry met with what was loaded, whether or not the key is in the table.
#[test]
fn proven_names_each_key_once_loaded_or_found() {
    use std::collections::HashMap;
    let g = AnySearch::parse("connect:5x4").unwrap();
    with_search!(&g, g => {
        let small = Options { memory: 1 << 20, ..Options::default() };
        let mut first = Dfpn::new(g, small.clone());
        assert_eq!(first.prove(&g.start()).value, Some(Value::Tie));
        let found: Vec<_> = first.proven().collect();
        let map: HashMap<_, _> = found.iter().copied().collect();
        assert_eq!(map.len(), found.len(), "a key given twice");
        // Loaded into a search that proves something else: every loaded key
        // comes back once, with bounds at least as tight as loaded.
        let mut second = Dfpn::new(g, small);
        for (k, b) in &found {
            second.add_known(*k, *b);
        }
        let (_, child) = g.moves(&g.start()).swap_remove(0);
        second.prove(&child);
        let again: Vec<_> = second.proven().collect();
        let again_map: HashMap<_, _> = again.iter().copied().collect();
        assert_eq!(again_map.len(), again.len(), "a key given twice after loading");
        for (k, b) in &map {
            let now = again_map.get(k).expect("a loaded key is kept");
            assert!(now.lo >= b.lo && now.hi <= b.hi, "{b:?} loosened to {now:?}");
        }
    });
}

/// The database's bytes as docs say (src/search/proofdb.rs's layout),
/// written here independently of the streaming writer: whatever order the
/// records come in, the file is this.
#[test]
fn a_proof_database_is_the_documented_layout_in_key_order() {
    use retrograde::search::Key;
    let dir = tempfile::tempdir().unwrap();
    let g = AnySearch::parse("connect:5x4").unwrap();
    with_search!(&g, g => {
        let mut search = Dfpn::new(g, Options { memory: 16 << 20, ..Options::default() });
        assert_eq!(search.prove(&g.start()).value, Some(Value::Tie));
        let records: Vec<_> = search
            .proven()
            .map(|(key, b)| Record { key, fact: Fact::Value(b), pos: g.position_of_key(&key).unwrap() })
            .collect();
        assert!(records.len() > 1000);

        let mut sorted: Vec<_> = records
            .iter()
            .map(|r| {
                let mut k = Vec::new();
                r.key.write(&mut k);
                (k, r)
            })
            .collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let mut want = b"RTBPROOF".to_vec();
        want.extend_from_slice(&1u16.to_le_bytes());
        want.push(0);
        want.extend_from_slice(&(sorted[0].0.len() as u16).to_le_bytes());
        let spec = g.spec();
        want.extend_from_slice(&(spec.len() as u16).to_le_bytes());
        want.extend_from_slice(spec.as_bytes());
        want.extend_from_slice(&(records.len() as u64).to_le_bytes());
        for (k, r) in &sorted {
            want.extend_from_slice(k);
            let Fact::Value(b) = r.fact else { unreachable!() };
            want.extend_from_slice(&[b.lo as u8, b.hi as u8]);
            let p = g.format_position(&r.pos);
            want.extend_from_slice(&(p.len() as u16).to_le_bytes());
            want.extend_from_slice(p.as_bytes());
        }
        let crc = crc32fast::hash(&want);
        want.extend_from_slice(&crc.to_le_bytes());

        for (name, mut recs) in [
            ("as found", records.clone()),
            ("reversed", records.iter().rev().cloned().collect::<Vec<_>>()),
        ] {
            let path = dir.path().join(format!("{name}.proof"));
            let len = proofdb::save(g, &path, Kind::Values, &mut recs).unwrap();
            let got = std::fs::read(&path).unwrap();
            assert_eq!(len, got.len() as u64, "{name}");
            assert!(got == want, "{name}: {} bytes, want {}", got.len(), want.len());
        }
        // Nothing is left beside the database.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    });
}

#[test]
fn position_of_key_names_a_position_with_that_key() {
    for spec in [
        "tictactoe",
        "connect:7x6",
        "sogo:4",
        "pattern:games/qubic.txt",
        "pattern:games/qango6.txt",
        "mnk:15x15x5",
        "cram:5x7",
        "cram:4x9",
        "isolation:6x6",
        "isolation:4x5",
    ] {
        let g = AnySearch::parse(spec).unwrap();
        with_search!(&g, g => {
            for p in playout_positions(g, 5, 99) {
                let key = g.key(&p);
                let back = g.position_of_key(&key).unwrap_or_else(|| panic!("{spec}: no position for {key:?}"));
                assert_eq!(g.key(&back), key, "{spec}: {}", g.format_position(&p));
                assert_eq!(g.terminal(&back), g.terminal(&p), "{spec}");
            }
        });
    }
}

/// Published values proven by search on the fast representations
/// (REFERENCE.md): Tromp's Connect-Four table, the m,n,k results, Qango 6×6
/// per GABOR. The long ones (README "Beyond the table") are `#[ignore]`d.
#[test]
fn search_proves_published_values() {
    for (spec, expect) in [
        ("connect:4x4", Value::Tie),
        ("connect:5x4", Value::Tie),
        ("connect:6x4", Value::Lose),
        ("connect:4x5", Value::Tie),
        ("mnk:4x4x4", Value::Tie),
        ("mnk:5x5x3", Value::Win),
        ("mnk:4x5x3", Value::Win),
        ("pattern:games/qango6.txt", Value::Win),
    ] {
        let g = AnySearch::parse(spec).unwrap();
        assert!(
            !matches!(g, AnySearch::Table(_)),
            "{spec}: the fast representation"
        );
        let got = with_search!(&g, g => Dfpn::new(g, Options { memory: 64 << 20, ..Options::default() }).prove(&g.start()).value);
        assert_eq!(got, Some(expect), "{spec}");
    }
}

/// Minutes each on 2 cores: `cargo test --release --test search -- --ignored published_long`.
#[test]
#[ignore]
fn search_proves_published_values_long() {
    for (spec, expect) in [
        ("connect:7x4", Value::Tie),
        ("mnk:5x5x4", Value::Tie),
        ("connect:5x5", Value::Tie),
    ] {
        let g = AnySearch::parse(spec).unwrap();
        let got = with_search!(&g, g => Dfpn::new(g, Options { memory: 1 << 30, ..Options::default() }).prove(&g.start()).value);
        assert_eq!(got, Some(expect), "{spec}");
    }
}
