//! Sprouts in the search: Glop's worked example (seed 000), published
//! outcomes, the children view, proof databases (save, load, check, merge,
//! forged entries refused), the command's answers and refusals, and the
//! notation fuzzed.
//!
//! Published values: normal play, the first player wins the n-spot game
//! exactly when n mod 6 is 3, 4 or 5 (Applegate, Jacobson and Sleator's
//! conjecture, 1991; every n to 32 and many to 47 by Glop, Lemoine and
//! Viennot, "Computer analysis of Sprouts with nimbers", Games of No Chance
//! 4, 2015; to 62 and beyond by SPOTS, Čížek, Balko and Schmid, 2025).
//! Misère play: OEIS A164950 (Lemoine and Viennot, arXiv:0908.4407, and
//! SproutsWiki), for n = 1..20: 1 0 0 0 1 1 0 0 0 1 1 1 0 0 0 1 1 1 0 0
//! (1: the first player wins).

use crate::common::run;
use proptest::prelude::*;
use retrograde::games::sprouts::Position;
use retrograde::internal::search::sprouts::{Misere, Normal, SproutsSearch};
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::proofdb::{self, Fact, Kind, Record};
use retrograde::search::run::{check, run as search, Quiet, SearchOptions};
use retrograde::search::{Bounds, SearchGame};
use retrograde::{Error, Value};

/// OEIS A164950: whether the first player wins misère Sprouts from n spots.
const MISERE_WINS: [u8; 20] = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0];

fn normal_wins(n: u32) -> bool {
    matches!(n % 6, 3..=5)
}

fn p(s: &str) -> Position {
    Position::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn options() -> Options {
    Options {
        memory: 256 << 20,
        ..Options::default()
    }
}

fn sprouts(spec: &str) -> SproutsSearch {
    match AnySearch::parse(spec).unwrap() {
        AnySearch::Sprouts(g) => g,
        _ => panic!("{spec} is not searched as Sprouts"),
    }
}

/// Glop's help walks through the 12-spot game: from `0*12`, the move to
/// `0*8.AB|0*3.AB`; then `0*4.A|0*4.A+0*3`, of nimber 0; after the reply
/// `0*4.A|0*4.A+0*2.AB|AB`, the move to `0*4.A|0*4.A+0.1a2a`, of nimber 0.
/// Every position is printed as Glop prints it.
#[test]
fn glop_worked_example() {
    let line = [
        "0*12",
        "0*8.AB|0*3.AB",
        "0*4.A|0*4.A+0*3",
        "0*4.A|0*4.A+0*2.AB|AB",
        "0*4.A|0*4.A+0.1a2a",
    ];
    for w in line.windows(2) {
        let kids: Vec<String> = p(w[0]).children().iter().map(|c| c.to_string()).collect();
        assert!(
            kids.iter().any(|c| c == w[1]),
            "{} is not a child of {}",
            w[1],
            w[0]
        );
    }
    let mut e = Normal::new(&options());
    assert_eq!(e.nimber(&p("0*4.A|0*4.A+0*3")), Some(0));
    assert_eq!(e.nimber(&p("0*4.A|0*4.A+0.1a2a")), Some(0));
    // So the first is a winning move from its parent, and the second a
    // winning reply.
    assert_eq!(e.wins(&p("0*8.AB|0*3.AB")), Some(true));
    assert_eq!(e.wins(&p("0*4.A|0*4.A+0*2.AB|AB")), Some(true));
}

#[test]
fn normal_play_outcomes_from_1_to_11_spots_are_the_published_ones() {
    let mut e = Normal::new(&options());
    for n in 1..=11 {
        assert_eq!(
            e.wins(&Position::spots(n)),
            Some(normal_wins(n)),
            "{n} spots"
        );
    }
}

/// A nimber search that settles a sum inside the search runs within a
/// budget and is put off when it runs out: with the least budget one
/// couple, every such search is cut again and again (its budget doubling
/// each time), and every outcome and nimber is still the one found with
/// the default budget.
#[test]
fn nimber_searches_cut_short_and_resumed_give_the_same_values() {
    let mut cut = Normal::new(&options()).with_settle_min(1);
    let mut plain = Normal::new(&options());
    for n in 1..=11 {
        assert_eq!(
            cut.wins(&Position::spots(n)),
            Some(normal_wins(n)),
            "{n} spots"
        );
    }
    assert!(cut.settles_cut() > 0, "no nimber search was cut");
    for s in [
        "0*4.A|0*4.A+0*3",
        "0*8.AB|0*3.AB",
        "0*3.AB|0*2.AB+0*3",
        "0*6",
    ] {
        assert_eq!(cut.nimber(&p(s)), plain.nimber(&p(s)), "{s}");
    }
}

#[test]
fn misere_outcomes_from_1_to_7_spots_are_oeis_a164950() {
    let mut e = Misere::new(&options());
    for n in 1..=7u32 {
        assert_eq!(
            e.wins(&Position::spots(n)),
            Some(MISERE_WINS[n as usize - 1] == 1),
            "{n} spots"
        );
    }
}

/// Normal play from 12 to 14 spots (about 50 s of CPU in all; run with
/// `cargo test --release -p retrograde-cli --test search sprouts -- --ignored`;
/// tools/sprouts-targets.sh measures each n).
#[test]
#[ignore = "minutes: 12 to 14 spots"]
fn normal_play_outcomes_from_12_to_14_spots_are_the_published_ones() {
    for n in 12..=14 {
        let mut e = Normal::new(&Options {
            memory: 1 << 30,
            ..Options::default()
        });
        assert_eq!(
            e.wins(&Position::spots(n)),
            Some(normal_wins(n)),
            "{n} spots"
        );
    }
}

/// Misère play from 8 spots (about 40 s of CPU; run as the test above).
#[test]
#[ignore = "a minute: misère from 8 spots"]
fn misere_outcome_of_8_spots_is_oeis_a164950() {
    let mut e = Misere::new(&Options {
        memory: 1 << 30,
        ..Options::default()
    });
    assert_eq!(e.wins(&Position::spots(8)), Some(MISERE_WINS[7] == 1));
}

/// Within 4 MiB the misère engine, counting everything it keeps as the
/// allocator takes it, forgets proved positions and lands and still
/// proves the published outcomes, never holding more than the memory; with
/// room it keeps more on 8 spots, so the small search did forget.
#[test]
fn misere_within_a_small_memory_forgets_and_proves_the_same_outcomes() {
    let mut small = Misere::new(&Options {
        memory: 4 << 20,
        ..Options::default()
    });
    let (mut most, mut lands) = (0, 0);
    for n in 1..=8u32 {
        assert_eq!(
            small.wins(&Position::spots(n)),
            Some(MISERE_WINS[n as usize - 1] == 1),
            "{n} spots"
        );
        assert!(
            small.bytes_held() <= small.memory(),
            "{} bytes",
            small.bytes_held()
        );
        most = most.max(small.proved_count());
        lands = lands.max(small.lands_known());
    }
    // The lands too: forgotten when they fill their share (no proved
    // position or position on the line holding them).
    assert!(small.lands_evicted() > 0);
    let mut roomy = Misere::new(&options());
    assert_eq!(roomy.wins(&Position::spots(8)), Some(MISERE_WINS[7] == 1));
    assert!(
        roomy.proved_count() > most,
        "{} against {most}",
        roomy.proved_count()
    );
    assert_eq!(roomy.lands_evicted(), 0);
    assert!(
        roomy.lands_known() > lands,
        "{} lands with room, {lands} at most in 4 MiB",
        roomy.lands_known()
    );
}

/// Runs the command under `/usr/bin/time` and returns its standard output
/// and its peak resident memory in KiB (`None` where there is no
/// `/usr/bin/time`). Not `wait4` on the command itself: a child started
/// from this process counts this process's resident memory at its start
/// in its peak (Linux keeps the high-water mark across `exec`), and the
/// tests running beside each other make that tens of MiB.
fn run_with_peak(args: &[&str]) -> (String, Option<u64>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let peak = dir.path().join("peak");
    let time = std::path::Path::new("/usr/bin/time");
    let out = if time.exists() {
        std::process::Command::new(time)
            .arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&peak)
            .arg(env!("CARGO_BIN_EXE_retrograde"))
            .args(args)
            .output()
    } else {
        std::process::Command::new(env!("CARGO_BIN_EXE_retrograde"))
            .args(args)
            .output()
    }
    .expect("the command runs");
    let kib = std::fs::read_to_string(&peak)
        .ok()
        .and_then(|s| s.lines().last()?.trim().parse().ok());
    (String::from_utf8(out.stdout).expect("utf-8 output"), kib)
}

/// The fixed overhead `--memory` does not count, in KiB: the program, its
/// stack and the allocator's slack (a run with nothing to keep peaks at
/// about 8 MiB).
const OVERHEAD_KIB: u64 = 16 << 10;

/// Misère Sprouts stays within `--memory` plus the fixed overhead: a
/// position of 2,000 lands under `--memory 1M` stops for memory (before,
/// its line's lists of children were not counted: 126 MB within 10 s),
/// and `sprouts:7:misere` proves its published outcome within 2 MiB.
#[test]
fn misere_peak_memory_stays_within_the_cap() {
    let many = vec!["0*2"; 2000].join("+");
    let (out, kib) = run_with_peak(&[
        "search",
        "sprouts:5:misere",
        &many,
        "--memory",
        "1M",
        "--time",
        "3",
        "--json",
        "-q",
    ]);
    assert!(out.contains(r#""proven":false"#), "{out}");
    assert!(out.contains(r#""stopped":"memory""#), "{out}");
    assert!(
        kib.is_none_or(|k| k <= (1 << 10) + OVERHEAD_KIB),
        "{kib:?} KiB"
    );
    let (out, kib) = run_with_peak(&[
        "search",
        "sprouts:7:misere",
        "--memory",
        "2M",
        "--json",
        "-q",
    ]);
    assert!(out.contains(r#""value":"lose""#), "{out}");
    assert!(
        kib.is_none_or(|k| k <= (2 << 10) + OVERHEAD_KIB),
        "{kib:?} KiB"
    );
}

/// The nimbers of the first n-spot games (Lemoine and Viennot give the
/// outcomes; a nimber is 0 exactly when the game is lost).
#[test]
fn nimbers_agree_with_outcomes() {
    let mut e = Normal::new(&options());
    for n in 1..=8 {
        let k = e.nimber(&Position::spots(n)).unwrap();
        assert_eq!(k != 0, normal_wins(n), "{n} spots: nimber {k}");
    }
}

fn opts(memory: u64) -> SearchOptions {
    SearchOptions {
        memory: Some(memory),
        ..SearchOptions::default()
    }
}

#[test]
fn proof_databases_save_check_load_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let g = AnySearch::parse("sprouts:6").unwrap();
    let db = dir.path().join("six.proof");
    let report = search(
        &g,
        &SearchOptions {
            save: Some(db.clone()),
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    assert_eq!(report.results[0].value(), Some(Value::Lose));
    let saved = report.saved.unwrap().unwrap();
    assert!(saved.entries > 0);
    // The check re-proves every entry from its children, and gives the
    // start its value.
    let c = check(&g, &db, &opts(64 << 20), &Quiet).unwrap();
    assert_eq!(c.report.checked, saved.entries as u64);
    assert_eq!(c.report.unchecked, 0);
    assert_eq!(c.entry, Some(Fact::Value(Bounds::exact(Value::Lose))));
    // Loaded, the database proves the start with no search.
    let again = search(
        &g,
        &SearchOptions {
            load: vec![db.clone()],
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    assert_eq!(again.results[0].value(), Some(Value::Lose));
    assert_eq!(again.results[0].nodes, 0);
    // A database of a position of the game (a child) merges with it.
    let child = dir.path().join("child.proof");
    search(
        &g,
        &SearchOptions {
            position: Some("0*4.AB|AB".into()),
            save: Some(child.clone()),
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    let both = search(
        &g,
        &SearchOptions {
            load: vec![db.clone(), child.clone()],
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    assert_eq!(both.results[0].value(), Some(Value::Lose));
    assert_eq!(both.loaded.unwrap().report.unchecked, 0);
}

#[test]
fn a_forged_entry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = sprouts("sprouts:4");
    // 0*4 wins (nimber 1): an entry saying it loses is refuted.
    let start = g.start();
    let path = dir.path().join("forged.proof");
    proofdb::save(
        &g,
        &path,
        Kind::Values,
        &mut [Record {
            key: g.key(&start),
            fact: Fact::Value(Bounds::exact(Value::Lose)),
            pos: start,
        }],
    )
    .unwrap();
    let err = check(
        &AnySearch::parse("sprouts:4").unwrap(),
        &path,
        &opts(16 << 20),
        &Quiet,
    )
    .unwrap_err();
    assert!(matches!(err, Error::RefutedProof { .. }), "{err}");
    // Two databases that disagree are refused when merged.
    let right = dir.path().join("right.proof");
    search(
        &AnySearch::parse("sprouts:4").unwrap(),
        &SearchOptions {
            save: Some(right.clone()),
            ..opts(16 << 20)
        },
        &Quiet,
    )
    .unwrap();
    let err = search(
        &AnySearch::parse("sprouts:4").unwrap(),
        &SearchOptions {
            load: vec![right, path],
            ..opts(16 << 20)
        },
        &Quiet,
    )
    .unwrap_err();
    assert!(matches!(err, Error::ContradictingProofs { .. }), "{err}");
}

#[test]
fn misere_databases_save_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let g = AnySearch::parse("sprouts:5:misere").unwrap();
    let db = dir.path().join("five.proof");
    let report = search(
        &g,
        &SearchOptions {
            save: Some(db.clone()),
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    assert_eq!(report.results[0].value(), Some(Value::Win));
    let c = check(&g, &db, &opts(64 << 20), &Quiet).unwrap();
    assert_eq!(c.report.unchecked, 0);
    assert_eq!(c.entry, Some(Fact::Value(Bounds::exact(Value::Win))));
}

/// A search stopped before its proof saves every couple (normal play) or
/// position (misère) it settled, not only the proofs of its roots, as
/// Glop's databases keep what a computation reached: `--check` re-proves
/// each entry from its children, and a run that loads the file resumes and
/// proves the published value.
#[test]
fn a_stopped_search_saves_what_it_settled_and_a_resumed_one_finishes() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, nodes, value) in [
        ("sprouts:11", 3_000, Value::Win),
        ("sprouts:7:misere", 3_000, Value::Lose),
    ] {
        let g = AnySearch::parse(spec).unwrap();
        let db = dir.path().join("stopped.proof");
        let stopped = search(
            &g,
            &SearchOptions {
                save: Some(db.clone()),
                node_limit: Some(nodes),
                ..opts(64 << 20)
            },
            &Quiet,
        )
        .unwrap();
        assert_eq!(stopped.results[0].value(), None, "{spec}: stopped");
        let saved = stopped.saved.unwrap().unwrap();
        assert!(saved.entries > 100, "{spec}: {} entries", saved.entries);
        let c = check(&g, &db, &opts(64 << 20), &Quiet).unwrap();
        assert_eq!(c.report.checked, saved.entries as u64, "{spec}");
        assert_eq!(c.report.unchecked, 0, "{spec}");
        let resumed = search(
            &g,
            &SearchOptions {
                load: vec![db.clone()],
                ..opts(64 << 20)
            },
            &Quiet,
        )
        .unwrap();
        assert_eq!(resumed.results[0].value(), Some(value), "{spec}");
        assert_eq!(
            resumed.loaded.unwrap().report.checked,
            saved.entries as u64,
            "{spec}"
        );
        std::fs::remove_file(&db).unwrap();
    }
}

/// A run stopped while re-proving what it loaded keeps the entries it had
/// not reached in its save, as they were read: nothing it was given is lost,
/// and the next load re-proves them.
#[test]
fn a_run_stopped_while_loading_keeps_what_it_had_not_re_proved() {
    let dir = tempfile::tempdir().unwrap();
    let g = AnySearch::parse("sprouts:11").unwrap();
    let game = sprouts("sprouts:11");
    let first = dir.path().join("first.proof");
    search(
        &g,
        &SearchOptions {
            save: Some(first.clone()),
            node_limit: Some(3_000),
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    // Thinned, so that re-proving it needs searches (the check shows the
    // wins a loss needs by a child, and would re-prove all of it).
    let first = {
        let (_, mut records) = proofdb::load(&game, &first).unwrap();
        let mut i = 0;
        records.retain(|_| {
            i += 1;
            i % 3 != 0
        });
        let thin = dir.path().join("thin.proof");
        proofdb::save(&game, &thin, Kind::Values, &mut records).unwrap();
        thin
    };
    let second = dir.path().join("second.proof");
    let r = search(
        &g,
        &SearchOptions {
            load: vec![first.clone()],
            save: Some(second.clone()),
            node_limit: Some(20),
            ..opts(64 << 20)
        },
        &Quiet,
    )
    .unwrap();
    assert!(
        r.loaded.unwrap().report.unchecked > 0,
        "the load was stopped"
    );
    let keys = |p: &std::path::Path| -> std::collections::HashSet<u128> {
        proofdb::load(&game, p)
            .unwrap()
            .1
            .iter()
            .map(|r| r.key)
            .collect()
    };
    let b = keys(&second);
    // A win left out is one whose land's nimber the run found (saved in
    // its place: it says more).
    let lands_known: std::collections::HashSet<_> = proofdb::load(&game, &second)
        .unwrap()
        .1
        .iter()
        .filter(|r| matches!(r.fact, Fact::Value(v) if v.hi < 0))
        .map(|r| r.pos.lands().to_vec())
        .collect();
    let (_, given) = proofdb::load(&game, &first).unwrap();
    let a: std::collections::HashSet<u128> = given
        .iter()
        .filter(|r| {
            !(matches!(r.fact, Fact::Value(v) if v.lo > 0) && lands_known.contains(r.pos.lands()))
        })
        .map(|r| r.key)
        .collect();
    assert!(
        a.is_subset(&b),
        "{} of {} kept",
        a.intersection(&b).count(),
        a.len()
    );
    let c = check(&g, &second, &opts(64 << 20), &Quiet).unwrap();
    assert_eq!(c.report.checked, b.len() as u64);
}

fn stdout_of(args: &[&str]) -> String {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{args:?}: {err}");
    String::from_utf8(o.stdout).unwrap()
}

fn refused(args: &[&str], needle: &str) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
}

#[test]
fn the_command_searches_sprouts_and_lists_children() {
    let out = stdout_of(&["search", "sprouts:3", "-q"]);
    assert!(out.contains("value       win"), "{out}");
    // Glop's Children tab: every child (the move) with its value for the
    // mover, winning moves first.
    let out = stdout_of(&["search", "sprouts:3", "--moves", "-q"]);
    let kids = p("0*3").children();
    assert!(
        out.contains(&format!(
            "moves       {}, each one's value for the player to move\n",
            kids.len()
        )),
        "{out}"
    );
    for k in &kids {
        assert!(out.contains(&format!("  {k} ")), "{k} missing: {out}");
    }
    let first = out.lines().skip_while(|l| !l.starts_with("  move")).nth(1);
    let words: Vec<&str> = first.unwrap().split_whitespace().collect();
    assert_eq!(words[1..], ["win", "best"], "{out}");
    let j: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "search",
        "sprouts:3",
        "--moves",
        "--nimber",
        "--json",
    ]))
    .unwrap();
    assert_eq!(j["position"], "0*3");
    assert_eq!(j["nimber"], 1);
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), kids.len());
    assert_eq!(moves[0]["nimber"], 0, "{j}");
    assert_eq!(moves[0]["value"], "win", "{j}");
    assert_eq!(moves[0]["move"], moves[0]["position"], "{j}");
    // Games lists it, marked search only.
    let out = stdout_of(&["games"]);
    assert!(
        out.lines().any(|l| l.starts_with("sprouts  (search only")),
        "{out}"
    );
}

#[test]
fn the_command_refuses_what_sprouts_is_not() {
    refused(&["solve", "sprouts:5"], "search-only game");
    refused(&["search", "sprouts:0"], "number of spots");
    refused(&["search", "sprouts:81"], "number of spots");
    refused(&["search", "sprouts:5:misere", "--nimber"], "impartial");
    refused(&["search", "sprouts:5", "0*3.A"], "upper-case letter 'A'");
    refused(&["search", "sprouts:5", "0*3.a1"], "lower-case letter 'a'");
    refused(&["search", "sprouts:5", "01"], "a boundary of its own");
    refused(&["search", "sprouts:5", "0..0"], "empty");
    refused(&["search", "sprouts:5", "0*x"], "0*x");
    refused(&["search", "sprouts:5", "0+*"], "heap");
    refused(&["search", "sprouts:5", "1#"], "unexpected");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any text: a position or a one-line refusal, never a panic; a
    /// position read back from its own text is itself.
    #[test]
    fn any_text_reads_as_a_position_or_is_refused(s in "[0-2a-cA-C*.|+'x]{0,24}") {
        match Position::parse(&s) {
            Ok(q) => prop_assert_eq!(Position::parse(&q.to_string()), Ok(q)),
            Err(e) => prop_assert!(!e.contains('\n') && !e.is_empty()),
        }
    }

    /// Positions reached by random play from up to 7 spots print and read
    /// back as themselves, and each child of one is a child of its text.
    #[test]
    fn random_lines_print_and_read_back(n in 1u32..8, seed in any::<u64>()) {
        let mut q = Position::spots(n);
        let mut x = seed | 1;
        while !q.is_over() {
            let again = Position::parse(&q.to_string()).unwrap();
            prop_assert_eq!(&again, &q);
            let kids = q.children();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            q = kids[(x % kids.len() as u64) as usize].clone();
        }
    }
}

/// A heap of any size is one line's refusal, before any child is made (a
/// heap of 4·10⁹ made 4·10⁹ children: an allocation abort). No search
/// needs more than `*255`: a land's nimber is below 256.
#[test]
fn a_heap_past_255_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("x.db");
    let save = save.to_str().unwrap();
    for args in [
        &["search", "sprouts:5", "*4294967295"][..],
        &["search", "sprouts:5:misere", "*4294967295"],
        &["search", "sprouts:5", "*4294967295", "--moves"],
        &["search", "sprouts:5", "*4294967295", "--openings", "1"],
        &["search", "sprouts:5", "*4294967295", "--nimber", "--moves"],
        &["search", "sprouts:5", "1+*4000000000", "--save", save],
        &[
            "search",
            "sprouts:5",
            "0+*4294967294",
            "--time",
            "1",
            "--json",
        ],
        &["search", "sprouts:5", "*256"],
    ] {
        refused(args, "a heap is at most *255");
    }
    assert!(!dir.path().join("x.db").exists());
    // *255 is a heap like any other: a win, by taking it all.
    let j: serde_json::Value =
        serde_json::from_str(&stdout_of(&["search", "sprouts:5", "0+*255", "--json"])).unwrap();
    assert_eq!(j["value"], "win", "{j}");
    assert_eq!(j["best_move"], "0", "{j}");
}

/// A proof database whose CRC holds, of one misère entry `*4000000000`
/// (74 bytes, written by hand as the format says), is refused by `--load`
/// and `--check` in one line: it aborted both.
#[test]
fn a_database_holding_a_huge_heap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = b"sprouts:5:misere";
    let pos = b"*4000000000";
    let mut b = Vec::new();
    b.extend_from_slice(b"RTBPROOF");
    b.extend_from_slice(&1u16.to_le_bytes());
    b.push(0); // values
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(&(spec.len() as u16).to_le_bytes());
    b.extend_from_slice(spec);
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&[0x5a; 16]);
    b.extend_from_slice(&[1, 1]); // a win
    b.extend_from_slice(&(pos.len() as u16).to_le_bytes());
    b.extend_from_slice(pos);
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    assert_eq!(b.len(), 74);
    let path = dir.path().join("heap.proof");
    std::fs::write(&path, &b).unwrap();
    let path = path.to_str().unwrap();
    refused(
        &["search", "sprouts:5:misere", "--load", path],
        "at most *255",
    );
    refused(
        &["search", "sprouts:5:misere", "--check", path],
        "at most *255",
    );
}

/// One region of 20 boundaries of 20 shapes (`1.12.122...`): a move that
/// cuts the region shares the other 19 out 2^19 ways, all different
/// children. Making them honours every limit and a stop request: the
/// search ends within its budget with the limit named.
fn twenty_shapes() -> String {
    (0..20)
        .map(|k| format!("1{}", "2".repeat(k)))
        .collect::<Vec<_>>()
        .join(".")
}

/// `retrograde search ARGS --json`, stopped unproven (status 3) within
/// `secs`: its JSON.
fn stopped_within(args: &[&str], secs: f64) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    let t = std::time::Instant::now();
    let o = run(&all);
    let took = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
    assert!(took < secs, "{args:?} took {took:.2} s");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["proven"], false, "{j}");
    j
}

#[test]
fn one_region_of_many_shapes_is_searched_within_the_limits() {
    let r = twenty_shapes();
    for spec in ["sprouts:5", "sprouts:5:misere"] {
        let j = stopped_within(&["search", spec, &r, "--time", "0.5"], 2.0);
        assert_eq!(j["stopped"], "time", "{spec}: {j}");
        let j = stopped_within(&["search", spec, &r, "--nodes", "1"], 2.0);
        assert_eq!(j["stopped"], "nodes", "{spec}: {j}");
        assert_eq!(j["nodes"], 1, "{spec}: {j}");
    }
    // A list of children past the path's memory (64 MiB at least).
    let j = stopped_within(&["search", "sprouts:5", &r, "--memory", "1M"], 30.0);
    assert_eq!(j["stopped"], "depth", "{j}");
    // Listing the children or the openings is within the limits too.
    for extra in [
        &["--moves"][..],
        &["--openings", "1"],
        &["--nimber", "--moves"],
    ] {
        let mut args = vec!["search", "sprouts:5", &r, "--time", "0.5"];
        args.extend_from_slice(extra);
        let t = std::time::Instant::now();
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert!(
            t.elapsed().as_secs_f64() < 2.0,
            "{args:?}: {:?}",
            t.elapsed()
        );
        assert!(err.contains("stopped by --time while listing"), "{err}");
    }
}

/// 40 boundaries of one shape (`1a2a.1b2b...`, 227 characters): shared out
/// every way, one move made 2^39 children before removing the copies; by
/// shape, 40. The search expands node after node within its time.
#[test]
fn forty_boundaries_of_one_shape_are_expanded_at_once() {
    let r: Vec<String> = (0..40u8)
        .map(|i| {
            let l = format!(
                "{}{}",
                (b'a' + i % 26) as char,
                "'".repeat(usize::from(i / 26))
            );
            format!("1{l}2{l}")
        })
        .collect();
    let r = r.join(".");
    assert_eq!(r.len(), 227);
    let j = stopped_within(&["search", "sprouts:5", &r, "--time", "3"], 6.0);
    assert_eq!(j["stopped"], "time", "{j}");
    // About 0.3 s a node on an idle machine; a loaded CI machine may
    // manage few, so the bound that matters is the time above (the old
    // expansion never ended), and one node at least was made.
    assert!(j["nodes"].as_u64().unwrap() >= 1, "{j}");
}

/// The first SIGTERM or SIGINT stops a search inside the making of one
/// node's children, within a second: it took a second signal.
#[test]
fn the_first_signal_stops_a_costly_expansion_at_once() {
    use std::process::Stdio;
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let child = crate::common::bin()
            .args(["search", "sprouts:5", &twenty_shapes(), "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1000));
        // SAFETY: a signal to our own child process.
        unsafe { libc::kill(child.id() as i32, sig) };
        let t = std::time::Instant::now();
        let o = child.wait_with_output().unwrap();
        assert!(t.elapsed().as_secs_f64() < 1.5, "{sig}: {:?}", t.elapsed());
        assert_eq!(o.status.code(), Some(3), "{sig}");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["stopped"], "signal", "{j}");
    }
}

/// `--engine` and `--threads` name what Sprouts uses or are refused: they
/// were ignored.
#[test]
fn engines_and_threads_sprouts_cannot_use_are_refused() {
    refused(
        &["search", "sprouts:5", "--engine", "dfpn"],
        "--engine dfpn: Sprouts is searched by its own engine (couples for normal play)",
    );
    refused(
        &["search", "sprouts:5", "--engine", "alphabeta"],
        "--engine alphabeta",
    );
    refused(
        &["search", "sprouts:5:misere", "--engine", "couples"],
        "dfpn for misère play",
    );
    refused(
        &["search", "sprouts:5", "--threads", "1000"],
        "--threads 1000",
    );
    refused(&["search", "sprouts:5", "--threads", "2"], "one thread");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    std::fs::write(&db, b"").unwrap();
    refused(
        &[
            "search",
            "sprouts:5",
            "--check",
            db.to_str().unwrap(),
            "--engine",
            "dfpn",
        ],
        "--engine dfpn",
    );
    for ok in [
        &["search", "sprouts:5", "--engine", "couples", "-q"][..],
        &["search", "sprouts:5:misere", "--engine", "dfpn", "-q"],
        &["search", "sprouts:5", "--threads", "1", "-q"],
    ] {
        assert!(stdout_of(ok).contains("value"), "{ok:?}");
    }
    // A letter's count in words.
    refused(&["search", "sprouts:5", "0*3.a1"], "'a' is written once:");
    refused(&["search", "sprouts:5", "1aaa"], "'a' is written 3 times:");
}

/// A database entry of one region of 20 shapes is re-proved within the
/// limits too: making its children honours `--time` in `--check` and
/// `--load`.
#[test]
fn a_database_entry_with_many_children_is_checked_within_the_limits() {
    let dir = tempfile::tempdir().unwrap();
    for spec in ["sprouts:5", "sprouts:5:misere"] {
        let g = sprouts(spec);
        let pos = p(&twenty_shapes());
        let path = dir.path().join("shapes.proof");
        proofdb::save(
            &g,
            &path,
            Kind::Values,
            &mut [Record {
                key: g.key(&pos),
                fact: Fact::Value(Bounds::exact(Value::Win)),
                pos,
            }],
        )
        .unwrap();
        let path = path.to_str().unwrap();
        for mode in ["--check", "--load"] {
            let t = std::time::Instant::now();
            let o = run(&["search", spec, mode, path, "--time", "0.5"]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(3), "{spec} {mode}: {err}");
            assert!(
                t.elapsed().as_secs_f64() < 2.0,
                "{spec} {mode}: {:?}",
                t.elapsed()
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
}
