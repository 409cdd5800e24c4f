//! Probe throughput on the Isolation 4x4 tablebase, solved once into a
//! temporary file and opened each way a user can open it: a read-only
//! memory map (`Tablebase::open_mmap`), the bytes in memory (`Vec<u8>`), and
//! positioned reads (`Tablebase::open`, the default: one `pread` per probe,
//! which survives the file being truncated). The file is in the page cache.
//!
//! * `probe_index*`: one cell read per random index (1M per iteration; 64K
//!   for positioned reads, which cost a system call each).
//! * `probe_bound*`: `Bound::probe` on random pre-decoded positions: encode + read.
//! * `probe_checked`: `Tablebase::probe`, which checks the game on every call.
//! * `probe_text_moves`: `probe_text(Some(start), true)`, a full `--moves`
//!   query: parse, probe, generate and probe every move, rank, format.
//!
//! Run with `cargo bench --bench probe`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use retrograde::games::Isolation;
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::{Game, Storage, Tablebase};
use std::hint::black_box;
use std::time::Duration;

const PROBES: usize = 1 << 20;
/// Positioned reads are a system call each: fewer per iteration.
const PREAD_PROBES: usize = 1 << 16;

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
    solve_to_file(&game, &path, &SolveOptions::default(), &NoProgress).expect("solve");
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let tb = unsafe { Tablebase::open_mmap(&path) }.expect("open_mmap");
    let file = Tablebase::open(&path).expect("open");
    let memory = Tablebase::from_bytes(std::fs::read(&path).expect("read")).expect("from_bytes");

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
    fn by_index<D: Storage>(tb: &Tablebase<D>, indices: &[u64]) -> u64 {
        let mut sum = 0u64;
        for &i in indices {
            let o = tb.probe_index(black_box(i)).expect("in range");
            sum += o.and_then(|o| o.remoteness).unwrap_or(0) as u64;
        }
        sum
    }
    group.bench_function("probe_index", |b| b.iter(|| by_index(&tb, &indices)));
    group.bench_function("probe_index_vec", |b| {
        b.iter(|| by_index(&memory, &indices))
    });
    // By position: checked once with `bind`, then encode + one read each.
    fn by_position<G: Game, D: Storage>(
        bound: &retrograde::Bound<'_, G, D>,
        positions: &[G::Position],
    ) -> u64 {
        let mut sum = 0u64;
        for p in positions {
            let o = bound.probe(black_box(p)).expect("legal");
            sum += o.remoteness.unwrap_or(0) as u64;
        }
        sum
    }
    let bound = tb.bind(&game).expect("the table's own game");
    group.bench_function("probe_bound", |b| {
        b.iter(|| by_position(&bound, &positions))
    });
    let bound_vec = memory.bind(&game).expect("the table's own game");
    group.bench_function("probe_bound_vec", |b| {
        b.iter(|| by_position(&bound_vec, &positions))
    });
    group.throughput(Throughput::Elements(PREAD_PROBES as u64));
    group.bench_function("probe_index_pread", |b| {
        b.iter(|| by_index(&file, &indices[..PREAD_PROBES]))
    });
    let bound_file = file.bind(&game).expect("the table's own game");
    group.bench_function("probe_bound_pread", |b| {
        b.iter(|| by_position(&bound_file, &positions[..PREAD_PROBES]))
    });
    group.throughput(Throughput::Elements(PROBES as u64));
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
