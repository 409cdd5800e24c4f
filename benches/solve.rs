//! Solve throughput: the two ways the generator can hold its table.
//!
//! * `in_memory`: `solve_in_memory`, into zeroed anonymous memory, copied out
//!   to a `Vec<u8>` (allocation included).
//! * `to_file`: `solve_to_file`, into anonymous memory, then CRC, header, a
//!   `.partial` file in a temporary directory, `fsync` and rename, i.e.
//!   everything `retrograde solve` does except the progress bar (these
//!   solves finish before the default checkpoint interval, so none is taken).
//! * `to_file_checkpoint_every_tier`: the same with a checkpoint after every
//!   tier (`--checkpoint-every 0`): what checkpoints cost at most.
//!
//! Throughput is in positions (every index of Isolation is a legal position,
//! so that is `game.size()`). Run with `cargo bench --bench solve`.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use retrograde::games::Isolation;
use retrograde::solve::{solve_in_memory, solve_to_file, NoProgress, SolveOptions};
use retrograde::Game;
use std::hint::black_box;
use std::time::Duration;

const BOARDS: &[(u32, u32)] = &[(3, 4), (4, 4)];

fn solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group
        .sample_size(10)
        // Flat: every sample runs the same number of solves; a 4x4 solve
        // takes ~0.1 s, too long for criterion's default linear ramp.
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    let dir = tempfile::tempdir().expect("cannot create a temporary directory");
    for &(rows, cols) in BOARDS {
        let game = Isolation::new(rows, cols).expect("valid board");
        let name = format!("isolation-{rows}x{cols}");
        group.throughput(Throughput::Elements(game.size()));

        group.bench_with_input(BenchmarkId::new("in_memory", &name), &game, |b, g| {
            b.iter(|| black_box(solve_in_memory(g, &SolveOptions::default()).expect("solve")))
        });

        let path = dir.path().join(format!("{name}.rtb"));
        group.bench_with_input(BenchmarkId::new("to_file", &name), &game, |b, g| {
            b.iter(|| {
                black_box(
                    solve_to_file(g, &path, &SolveOptions::default(), &NoProgress).expect("solve"),
                )
            })
        });

        let every_tier = SolveOptions {
            checkpoint_interval: Some(Duration::ZERO),
            ..SolveOptions::default()
        };
        group.bench_with_input(
            BenchmarkId::new("to_file_checkpoint_every_tier", &name),
            &game,
            |b, g| {
                b.iter(|| {
                    black_box(solve_to_file(g, &path, &every_tier, &NoProgress).expect("solve"))
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);
