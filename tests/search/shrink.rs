//! Shrunk proof databases (`proofdb shrink`, Glop's check databases): the
//! check re-proves each one with no search and gives the position the
//! value the search proved; normal play keeps losses only (and the root's
//! win), and the sizes reached (docs/CHECKING.md, beside Glop's 43 and 113
//! positions for 6 and 11 spots) do not grow back; no entry of a shrunk
//! database can be taken away (the check then needs a search and
//! `proofdb check` refuses it).

use crate::common::run;
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Fact, Kind};
use retrograde::search::run::{check, run as search, CheckOutcome, Quiet, SearchOptions};
use retrograde::search::SearchGame;
use std::path::Path;

/// The sizes `proofdb shrink` reaches for `sprouts:6` and `sprouts:11`
/// from the proof the search saves (docs/CHECKING.md); they follow the
/// search's order, which decides the proof.
const SIX: usize = 56;
const ELEVEN: usize = 115;

fn opts() -> SearchOptions {
    SearchOptions {
        memory: Some(64 << 20),
        ..SearchOptions::default()
    }
}

/// Searches `spec` (with `--nimber` if asked), saves, shrinks; returns the
/// value or nimber proven, the entries saved and the entries kept.
fn saved_and_shrunk(spec: &str, nimber: bool, dir: &Path) -> (Fact, usize, usize) {
    let g = AnySearch::parse(spec).unwrap();
    let full = dir.join(format!("{spec}.proof"));
    let small = dir.join(format!("{spec}.small"));
    let report = search(
        &g,
        &SearchOptions {
            save: Some(full.clone()),
            nimber,
            ..opts()
        },
        &Quiet,
    )
    .unwrap();
    let proven = check(&g, &full, &SearchOptions { nimber, ..opts() }, &Quiet)
        .unwrap()
        .entry
        .unwrap();
    let saved = report.saved.unwrap().unwrap().entries;
    let r = retrograde::with_search!(&g, g => {
        proofdb::shrink_file(g, &full, &small, &g.start())
    })
    .unwrap();
    assert!(r.entries <= saved, "{spec}: {} > {saved}", r.entries);
    (proven, saved, r.entries)
}

/// The check of `db` allowed no search: one node stops it.
fn strict(spec: &str, db: &Path, nimber: bool) -> CheckOutcome {
    let g = AnySearch::parse(spec).unwrap();
    let o = SearchOptions {
        node_limit: Some(1),
        nimber,
        ..opts()
    };
    check(&g, db, &o, &Quiet).unwrap()
}

/// Whether the check re-proves `db` with no search and settles the start.
fn proves_alone(spec: &str, db: &Path, nimber: bool) -> Option<Fact> {
    let c = strict(spec, db, nimber);
    (c.stopped.is_none() && c.report.searched == 0)
        .then_some(c.entry)
        .flatten()
}

#[test]
fn shrunk_sprouts_databases_check_without_search_and_keep_the_value() {
    let dir = tempfile::tempdir().unwrap();
    for spec in [
        "sprouts:2",
        "sprouts:3",
        "sprouts:4",
        "sprouts:5",
        "sprouts:6",
        "sprouts:7",
        "sprouts:8",
        "sprouts:11",
        "sprouts:3:misere",
        "sprouts:4:misere",
        "sprouts:5:misere",
        "sprouts:6:misere",
    ] {
        let (proven, _, kept) = saved_and_shrunk(spec, false, dir.path());
        let small = dir.path().join(format!("{spec}.small"));
        if !spec.ends_with("misere") {
            // Normal play: the first player wins with 3, 4 or 5 spots
            // modulo 6 (proven far beyond these).
            let n: u32 = spec["sprouts:".len()..].parse().unwrap();
            let wins = matches!(n % 6, 3..=5);
            assert_eq!(
                proven,
                Fact::Value(retrograde::search::Bounds::exact(if wins {
                    retrograde::Value::Win
                } else {
                    retrograde::Value::Lose
                })),
                "{spec}"
            );
            // Losses only, but the root's win.
            let g = AnySearch::parse(spec).unwrap();
            let wins_kept = retrograde::with_search!(&g, g => {
                let (_, db) = proofdb::read(g, std::slice::from_ref(&small), None, 0).unwrap();
                db.records()
                    .iter()
                    .filter(|r| matches!(r.fact, Fact::Value(b) if b.lo > 0))
                    .count()
            });
            assert_eq!(wins_kept, usize::from(wins), "{spec}");
        }
        // The proof saved closes by itself too (a sum's couple is the land
        // the engine left unknown, not always its largest).
        let full = dir.path().join(format!("{spec}.proof"));
        assert_eq!(proves_alone(spec, &full, false), Some(proven), "{spec}");
        let c = strict(spec, &small, false);
        assert!(c.stopped.is_none(), "{spec}: the check needed a search");
        assert_eq!(c.report.searched, 0, "{spec}");
        assert_eq!(c.report.checked, kept as u64, "{spec}");
        assert_eq!(c.entry, Some(proven), "{spec}");
        // The unchanged check, searches allowed, says the same.
        let g = AnySearch::parse(spec).unwrap();
        let full = check(&g, &small, &opts(), &Quiet).unwrap();
        assert_eq!(full.entry, Some(proven), "{spec}");
        assert_eq!(full.report.searched, 0, "{spec}");
    }
}

/// The sizes reached for 6 and 11 spots do not grow back (Glop's
/// check databases hold 43 and 113 positions for 6 and 11 spots:
/// docs/CHECKING.md).
#[test]
fn shrunk_databases_keep_their_size_for_6_and_11_spots() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, reached) in [("sprouts:6", SIX), ("sprouts:11", ELEVEN)] {
        let (proven, saved, kept) = saved_and_shrunk(spec, false, dir.path());
        assert!(kept <= reached, "{spec}: {kept} entries (saved {saved})");
        let small = dir.path().join(format!("{spec}.small"));
        assert_eq!(proves_alone(spec, &small, false), Some(proven), "{spec}");
    }
}

/// Every entry of a shrunk database is needed: taken away, the check needs
/// a search (and `proofdb check` refuses the file), though the value,
/// searched for, stays the same. Every entry for 6 spots and misère 5, every
/// fifth for 11 (each cut is a save and a check).
#[test]
fn an_entry_taken_from_a_shrunk_database_makes_its_check_fail() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, step) in [("sprouts:6", 1), ("sprouts:11", 5), ("sprouts:5:misere", 1)] {
        let (proven, _, kept) = saved_and_shrunk(spec, false, dir.path());
        let g = AnySearch::parse(spec).unwrap();
        let small = dir.path().join(format!("{spec}.small"));
        let records = retrograde::with_search!(&g, g => {
            let (_, db) = proofdb::read(g, std::slice::from_ref(&small), None, 0).unwrap();
            let records = db.into_records();
            assert_eq!(records.len(), kept);
            for i in (0..records.len()).step_by(step) {
                let mut less = records.clone();
                less.remove(i);
                let cut = dir.path().join(format!("{spec}.cut{i}"));
                proofdb::save(g, &cut, Kind::Values, &mut less).unwrap();
                assert_eq!(
                    proves_alone(spec, &cut, false),
                    None,
                    "{spec}: proven without entry {}",
                    g.format_position(&records[i].pos)
                );
                // Allowed to search, the check still finds the value (a
                // few: each searches).
                if i % 32 == 0 {
                    let c = check(&AnySearch::parse(spec).unwrap(), &cut, &opts(), &Quiet).unwrap();
                    assert!(c.report.searched > 0 || c.entry.is_none(), "{spec}");
                    assert!(c.entry.is_none_or(|f| f == proven), "{spec}");
                }
            }
            records.len()
        });
        assert!(records > 0);
        // The command says so in one line.
        let cut = dir.path().join(format!("{spec}.cut0"));
        let o = run(&["proofdb", "check", cut.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("does not prove"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A nimber database (Cram) leaves no choice: it shrinks to the closure of
/// the position's components, which still checks with no search.
#[test]
fn nimber_databases_shrink_to_what_the_position_needs() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["cram:3x4", "cram:4x4"] {
        let (proven, saved, kept) = saved_and_shrunk(spec, true, dir.path());
        let small = dir.path().join(format!("{spec}.small"));
        assert_eq!(proves_alone(spec, &small, true), Some(proven), "{spec}");
        assert!(kept <= saved);
    }
}

#[test]
fn the_commands_shrink_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("six.proof");
    let small = dir.path().join("six.small");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let o = run(&["search", "sprouts:6", "--save", &s(&full), "-q"]);
    assert!(o.status.success());
    let o = run(&["proofdb", "shrink", &s(&full), "-o", &s(&small), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["game"], "sprouts:6");
    let kept = j["entries"].as_u64().unwrap();
    assert!(kept <= SIX as u64, "{j}");
    let o = run(&["proofdb", "check", &s(&small), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["entry"], "lose");
    assert_eq!(j["searched"], 0);
    assert_eq!(j["checked"], kept);
    // The output may not be the input; a game with no shrinking says so.
    let o = run(&["proofdb", "shrink", &s(&full), "-o", &s(&full)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

/// `sprouts:13`'s saved proof closes, and shrinks (its saver once kept,
/// for a sum, the couple of its largest land where the engine had left a
/// smaller one unknown, and the check then needed a search). About four
/// minutes (the shrink's richer pool and local search take most):
/// `cargo test --release -p retrograde-cli --test search thirteen --
/// --ignored`.
#[test]
#[ignore]
fn thirteen_spots_save_shrink_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "sprouts:13";
    let (proven, _, _) = saved_and_shrunk(spec, false, dir.path());
    let full = dir.path().join(format!("{spec}.proof"));
    let small = dir.path().join(format!("{spec}.small"));
    assert_eq!(proves_alone(spec, &full, false), Some(proven));
    assert_eq!(proves_alone(spec, &small, false), Some(proven));
}
