//! Probe throughput on the Isolation 4x4 tablebase, solved once into a
//! temporary file and opened the way users open it (a read-only memory map).
//!
//! * `probe_index`: one cell read per random index (1M per iteration).
//! * `probe`: `Tablebase::probe` on random pre-decoded positions: encode + read.
//! * `probe_text_moves`: `probe_text(Some(start), true)`, a full `--moves`
//!   query: parse, probe, generate and probe every move, rank, format.
//!
//! Run with `cargo bench --bench probe`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retrograde::games::Isolation;
use retrograde::solve::{solve_to_file, NoProgress};
use retrograde::{Game, Tablebase};
use std::hint::black_box;
use std::time::Duration;

const PROBES: usize = 1 << 20;

/// xorshift64: deterministic pseudo-random numbers without a dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

fn probe(c: &mut Criterion) {
    let game = Isolation::new(4, 4).expect("valid board");
    let dir = tempfile::tempdir().expect("cannot create a temporary directory");
    let path = dir.path().join("isolation-4x4.rtb");
    solve_to_file(&game, &path, &NoProgress).expect("solve");
    let tb = Tablebase::open(&path).expect("open");

    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let size = game.size();
    let indices: Vec<u64> = (0..PROBES).map(|_| rng.next() % size).collect();
    let positions: Vec<_> = indices
        .iter()
        .map(|&i| game.decode(i).expect("every index is a position"))
        .collect();
    let start = game.format_position(&game.start());

    let mut group = c.benchmark_group("probe");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(PROBES as u64));
    group.bench_function("probe_index", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &i in &indices {
                let o = tb.probe_index(black_box(i)).expect("in range");
                sum += o.and_then(|o| o.remoteness).unwrap_or(0) as u64;
            }
            sum
        })
    });
    // By position: checked once with `bind`, then encode + one read each.
    let bound = tb.bind(&game).expect("the table's own game");
    group.bench_function("probe_bound", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for p in &positions {
                let o = bound.probe(black_box(p)).expect("legal");
                sum += o.remoteness.unwrap_or(0) as u64;
            }
            sum
        })
    });
    // `Tablebase::probe` checks the game (its spec) on every call.
    group.bench_function("probe_checked", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for p in &positions {
                let o = tb.probe(&game, black_box(p)).expect("legal");
                sum += o.remoteness.unwrap_or(0) as u64;
            }
            sum
        })
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("probe_text_moves", |b| {
        b.iter(|| tb.probe_text(Some(black_box(&start)), true).expect("probe"))
    });
    group.finish();
}

criterion_group!(benches, probe);
criterion_main!(benches);
