//! Alpha-beta's node rate on Connect-Four 7×6, one thread: positions from
//! Pascal Pons' published test sets (Begin-Medium and Begin-Hard, 0.2 to 2
//! million nodes each), each proven from a fresh 64 MiB table. Criterion's
//! throughput is in nodes (positions visited), so its "elem/s" is the node
//! rate. A second group proves the same positions at two threads with the
//! same throughput figure (the one-thread node count): an effective rate,
//! whose ratio to the first is the speedup of the second thread.
//!
//! Run with `cargo bench --bench alphabeta`; for instructions per node run
//! one position under callgrind:
//!
//! ```text
//! valgrind --tool=callgrind target/release/retrograde search connect:7x6 \
//!     32751571231557 --threads 1 -q --json
//! ```
//!
//! (the total instructions over the `nodes` the JSON reports).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retrograde::search::alphabeta::AlphaBeta;
use retrograde::search::engine::Options;
use retrograde::search::games::AnySearch;
use retrograde::search::SearchGame;
use retrograde::with_search;
use std::hint::black_box;
use std::time::Duration;

/// Moves from the empty board (1-based columns), as Pons' sets write them.
const POSITIONS: [&str; 5] = [
    "32751571231557",
    "3246313",
    "272243241154",
    "313514736",
    "1754147346",
];

fn options(threads: usize) -> Options {
    Options {
        memory: 64 << 20,
        threads,
        ..Options::default()
    }
}

fn node_rate(c: &mut Criterion) {
    let game = AnySearch::parse("connect:7x6").unwrap();
    for threads in [1, 2] {
        let mut group = c.benchmark_group(format!("alphabeta/threads={threads}"));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(30));
        with_search!(&game, g => {
            let roots: Vec<_> = POSITIONS.iter().map(|m| g.parse_position(m).unwrap()).collect();
            // One thread visits the same nodes every time: the throughput.
            let nodes: u64 = roots
                .iter()
                .map(|p| AlphaBeta::new(g, options(1)).prove(p).stats.nodes)
                .sum();
            group.throughput(Throughput::Elements(nodes));
            group.bench_function("connect:7x6 pons positions", |b| {
                b.iter(|| {
                    for p in &roots {
                        let proof = AlphaBeta::new(g, options(threads)).prove(p);
                        black_box(proof.value.expect("proven"));
                    }
                })
            });
        });
        group.finish();
    }
}

criterion_group!(benches, node_rate);
criterion_main!(benches);
