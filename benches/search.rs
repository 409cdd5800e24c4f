//! Search speed: whole proofs from the start of small games, so a change to
//! the engine, the transposition table or a board representation shows in
//! nodes per second and in nodes needed.
//!
//! * `dfpn/connect:5x4`, `dfpn/mnk:4x4x4`, `dfpn/qango6`: df-pn from the
//!   empty board with a 64 MiB table (ties take two proofs).
//! * `nimber/cram:4x6`: the nimber by component sums.
//! * `couples/cram:4x6`, `couples/cram:5x6`: the nimber by Lemoine and
//!   Viennot's couples (`--engine couples`), with 256 MiB; `couples/cram:5x6
//!   4 MiB` within 4 MiB, where the engine forgets lands again and again.
//! * `start-up/connect:6x4 34432156`: an easy middle-game position (a tie,
//!   about 18,000 nodes) with the default 1 GiB cap: the table's first
//!   allocation is part of the time (it used to be the whole 1 GiB).
//! * `threads/connect:6x4` at 1 and 2 threads: the speedup, on a machine
//!   with two free cores.
//!
//! Run with `cargo bench --bench search`; whole targets (minutes to hours)
//! are in `tools/search-targets.sh`.

use criterion::{criterion_group, criterion_main, Criterion};
use retrograde::internal::search::Dfpn;
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::nimber::NimberSearch;
use retrograde::search::SearchGame;
use retrograde::with_search;
use std::hint::black_box;
use std::time::Duration;

fn dfpn(c: &mut Criterion) {
    let mut group = c.benchmark_group("dfpn");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for spec in ["connect:5x4", "mnk:4x4x4", "pattern:games/qango6.txt"] {
        let game = AnySearch::parse(spec).unwrap();
        group.bench_function(spec, |b| {
            b.iter(|| {
                with_search!(&game, g => {
                    let proof = Dfpn::new(g, Options { memory: 64 << 20, ..Options::default() }).prove(&g.start());
                    black_box(proof.value.expect("proven"))
                })
            })
        });
    }
    group.finish();
}

fn nimber(c: &mut Criterion) {
    let mut group = c.benchmark_group("nimber");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let game = AnySearch::parse("cram:4x6").unwrap();
    group.bench_function("cram:4x6", |b| {
        b.iter(|| with_search!(&game, g => black_box(NimberSearch::new(g, &Options::with_memory(64 << 20)).nimber(&g.start()))))
    });
    group.finish();
}

fn couples(c: &mut Criterion) {
    use retrograde::internal::search::{Couples, CramLands, CramSearch};
    use retrograde::search::engine::Options as CouplesOptions;
    let mut group = c.benchmark_group("couples");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, r, c, memory) in [
        ("cram:4x6", 4, 6, 256 << 20),
        ("cram:5x6", 5, 6, 256 << 20),
        ("cram:5x6 4 MiB", 5, 6, 4 << 20),
    ] {
        let g = CramSearch::new(r, c, false).unwrap();
        let lands = CramLands::lands_of(&g, g.start());
        group.bench_function(name, |b| {
            b.iter(|| {
                let options = CouplesOptions {
                    memory,
                    ..CouplesOptions::default()
                };
                let mut e = Couples::with_lands(CramLands::new(None), &options);
                black_box(e.nimber_sum(&lands, 0).expect("proven"))
            })
        });
    }
    group.finish();
}

fn start_up(c: &mut Criterion) {
    let mut group = c.benchmark_group("start-up");
    group.sample_size(20);
    let game = AnySearch::parse("connect:6x4").unwrap();
    group.bench_function("connect:6x4 34432156", |b| {
        b.iter(|| {
            with_search!(&game, g => {
                let p = g.parse_position("34432156").unwrap();
                let options = Options { memory: 1 << 30, ..Options::default() };
                black_box(Dfpn::new(g, options).prove(&p).value.expect("proven"))
            })
        })
    });
    group.finish();
}

fn threads(c: &mut Criterion) {
    let mut group = c.benchmark_group("threads");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(30));
    let game = AnySearch::parse("connect:6x4").unwrap();
    for threads in [1, 2] {
        group.bench_function(format!("connect:6x4/{threads}"), |b| {
            b.iter(|| {
                with_search!(&game, g => {
                    let options = Options { memory: 256 << 20, threads, ..Options::default() };
                    black_box(Dfpn::new(g, options).prove(&g.start()).value.expect("proven"))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, dfpn, nimber, couples, start_up, threads);
criterion_main!(benches);
