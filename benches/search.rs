//! Search speed: whole proofs from the start of small games, so a change to
//! the engine, the transposition table or a board representation shows in
//! nodes per second and in nodes needed.
//!
//! * `dfpn/connect:5x4`, `dfpn/mnk:4x4x4`, `dfpn/qango6`: df-pn from the
//!   empty board with a 64 MiB table (ties take two proofs).
//! * `nimber/cram:4x6`: the nimber by component sums.
//!
//! Run with `cargo bench --bench search`; whole targets (minutes to hours)
//! are in `tools/search-targets.sh`.

use criterion::{criterion_group, criterion_main, Criterion};
use retrograde::internal::search::Dfpn;
use retrograde::search::dfpn::Options;
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
        b.iter(|| with_search!(&game, g => black_box(NimberSearch::new(g, 64 << 20).nimber(&g.start()))))
    });
    group.finish();
}

criterion_group!(benches, dfpn, nimber);
criterion_main!(benches);
