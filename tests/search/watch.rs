//! The computing branch (`search::watch`): a watched search publishes its
//! line, and whatever the user steers (here a watch that steers itself at
//! random, and a viewer thread that asks levels for children at random) the
//! values and nimbers are those of the unsteered search: Sprouts normal
//! (couples) and misère, Cram by couples and by df-pn at 1 and 2 threads.

use retrograde::search::engine::{Answer, Engine};
use retrograde::search::games::AnySearch;
use retrograde::search::run::{run, Quiet, SearchOptions};
use retrograde::search::watch::{Choice, Colour, Steer, Watch};
use std::time::Duration;

/// Every answer of a run (the position, and with `moves` each child).
fn answers(spec: &str, o: &SearchOptions) -> Vec<(String, Answer)> {
    let game = AnySearch::parse(spec).unwrap();
    let r = run(&game, o, &Quiet).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert!(r.proven, "{spec}: not proven");
    r.results
        .into_iter()
        .map(|s| (s.position, s.answer))
        .map(|(p, a)| match a {
            // The move shown may differ (several win); the value may not.
            Answer::Value { bounds, .. } => (
                p,
                Answer::Value {
                    bounds,
                    best_move: None,
                },
            ),
            a => (p, a),
        })
        .collect()
}

struct Case {
    spec: &'static str,
    position: Option<&'static str>,
    nimber: bool,
    engine: Engine,
    threads: usize,
    moves: bool,
}

fn case(spec: &'static str, nimber: bool) -> Case {
    Case {
        spec,
        position: None,
        nimber,
        engine: Engine::Auto,
        threads: 1,
        moves: false,
    }
}

fn options(c: &Case, watch: Option<Watch>) -> SearchOptions {
    SearchOptions {
        position: c.position.map(String::from),
        nimber: c.nimber,
        memory: Some(64 << 20),
        engine: c.engine,
        threads: c.threads,
        moves: c.moves,
        watch,
        ..SearchOptions::default()
    }
}

/// The same answers unsteered and steered at random (several seeds, often
/// and rarely), and the steered run's branch was published.
fn same_whatever_the_steering(c: &Case) {
    let plain = answers(c.spec, &options(c, None));
    for (seed, one_in) in [(1, 1), (2, 3), (3, 10), (0x5eed, 2)] {
        let watch = Watch::scrambled(seed, one_in);
        let steered = answers(c.spec, &options(c, Some(watch.clone())));
        assert_eq!(
            steered, plain,
            "{} {:?} nimber {} threads {}: steered (seed {seed}, 1 in {one_in})",
            c.spec, c.position, c.nimber, c.threads
        );
        // Published every 1,024 nodes: a small search may publish nothing.
        let b = watch.branch();
        for l in &b.levels {
            assert!(l.unknown <= l.children, "{l:?}");
            assert!(l.current.is_none_or(|i| i < l.children), "{l:?}");
            assert!(!l.position.is_empty(), "{l:?}");
        }
    }
}

#[test]
fn sprouts_normal_values_and_nimbers_do_not_depend_on_the_steering() {
    // Seven spots steered at every level took minutes: 5 and 6 keep the
    // sums and settled nimbers the steering must not disturb.
    for spec in ["sprouts:5", "sprouts:6"] {
        same_whatever_the_steering(&case(spec, false));
        same_whatever_the_steering(&case(spec, true));
    }
    // Every child of 6 spots, nimbers: many couples, sums settled.
    same_whatever_the_steering(&Case {
        moves: true,
        ..case("sprouts:6", true)
    });
}

#[test]
fn sprouts_misere_values_do_not_depend_on_the_steering() {
    for spec in ["sprouts:4:misere", "sprouts:5:misere", "sprouts:6:misere"] {
        same_whatever_the_steering(&case(spec, false));
    }
    same_whatever_the_steering(&Case {
        moves: true,
        ..case("sprouts:5:misere", false)
    });
}

#[test]
fn cram_values_and_nimbers_do_not_depend_on_the_steering() {
    for spec in ["cram:3x4", "cram:4x4", "cram:3x5"] {
        for nimber in [false, true] {
            same_whatever_the_steering(&Case {
                engine: Engine::Couples,
                ..case(spec, nimber)
            });
        }
        for threads in [1, 2] {
            same_whatever_the_steering(&Case {
                engine: Engine::Dfpn,
                threads,
                ..case(spec, false)
            });
            same_whatever_the_steering(&Case {
                engine: Engine::Dfpn,
                threads,
                ..case(String::leak(format!("{spec}:misere")), false)
            });
        }
    }
    same_whatever_the_steering(&Case {
        engine: Engine::Dfpn,
        threads: 2,
        moves: true,
        ..case("cram:4x4", false)
    });
}

/// A viewer thread reads the published branch and asks levels for
/// children (and next children) at random while the search runs, as a
/// person at the terminal would, only faster.
fn steered_by_a_viewer(c: &Case) {
    let plain = answers(c.spec, &options(c, None));
    let watch = Watch::with_period(Duration::ZERO);
    let viewer = watch.clone();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop = done.clone();
    let asked = std::thread::spawn(move || {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut asked = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let b = viewer.branch();
            if !b.levels.is_empty() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let l = &b.levels[rng as usize % b.levels.len()];
                let choice = match rng >> 40 & 3 {
                    0 => Choice::Next,
                    1 => Choice::Release,
                    _ => Choice::Child((rng >> 20) as usize % l.children.max(1)),
                };
                viewer.steer(Steer {
                    depth: l.depth,
                    id: l.id,
                    choice,
                });
                asked += 1;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        asked
    });
    let steered = answers(c.spec, &options(c, Some(watch.clone())));
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let asked = asked.join().unwrap();
    assert_eq!(
        steered, plain,
        "{} steered by a viewer ({asked} requests)",
        c.spec
    );
}

#[test]
fn a_viewer_steering_at_random_changes_no_value() {
    steered_by_a_viewer(&case("sprouts:8", true));
    steered_by_a_viewer(&case("sprouts:7:misere", false));
    steered_by_a_viewer(&Case {
        engine: Engine::Couples,
        ..case("cram:4x5", true)
    });
    steered_by_a_viewer(&Case {
        engine: Engine::Dfpn,
        threads: 2,
        ..case("cram:4x5", false)
    });
}

/// The branch of a watched search: the root is the position searched, in
/// the game's notation, and each level's counts are consistent.
#[test]
fn the_branch_shows_the_line_from_the_root() {
    let watch = Watch::with_period(Duration::ZERO);
    let c = case("sprouts:7:misere", false);
    answers(c.spec, &options(&c, Some(watch.clone())));
    let b = watch.branch();
    assert!(b.published > 0 && b.nodes > 0);
    assert_eq!(b.levels[0].position, "0*7");
    assert_eq!(b.levels[0].depth, 0);
    for (d, l) in b.levels.iter().enumerate() {
        assert_eq!(l.depth, d);
        assert!(l.unknown <= l.children);
    }
}

#[test]
fn glop_colours() {
    let names: Vec<Option<&str>> = (0..12).map(|n| Colour::of(n).map(Colour::name)).collect();
    assert_eq!(
        names,
        [
            None,
            Some("red"),
            Some("orange"),
            Some("yellow"),
            Some("yellow"),
            Some("green"),
            Some("green"),
            Some("green"),
            Some("green"),
            Some("green"),
            Some("green"),
            None
        ]
    );
}

/// With no terminal (a pipe, CI) `--watch` is refused in one line, before
/// any search.
#[test]
fn watch_needs_a_terminal() {
    let o = crate::common::run(&["search", "sprouts:5", "--watch"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--watch draws on a terminal"), "{err}");
    assert!(o.stdout.is_empty());
}
