//! The machine's random-access memory rate: the limit a tier solver that
//! reads its children at random approaches. Not the solver: plain byte reads
//! at random offsets of a buffer the size of a table.
//!
//! * `independent`: each read's offset comes from a generator, not from
//!   earlier reads, so the core keeps many misses in flight (what the
//!   solver's child reads are: a position's children do not depend on one
//!   another). Reported per thread count (1 and every core).
//! * `dependent`: each offset depends on the byte read before it, one miss
//!   at a time: the latency, the rate with no overlap at all.
//!
//! Throughput is in reads (elements/s). Buffers: Isolation 4×4's and 4×5's
//! table sizes (3.75 MiB and 95 MiB) by default; set `RETROGRADE_MEM_BYTES`
//! to a comma-separated list of sizes in bytes for others, e.g. 5×5's
//! 5033164800 (the buffer is filled first, so the pages are really there:
//! mind the memory). Run with `cargo bench --bench memory`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// Reads per thread per iteration.
const READS: u64 = 1 << 20;

/// A 64-bit mixer (SplitMix64's finaliser): cheap, and every output bit
/// depends on every input bit, so offsets do not follow a stride the
/// prefetcher could learn.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// An offset below `len` from 64 random bits (multiply-high: no division).
#[inline(always)]
fn offset(r: u64, len: u64) -> usize {
    ((u128::from(r) * u128::from(len)) >> 64) as usize
}

/// `READS` reads at independent random offsets from `seed`'s stream.
fn independent(buf: &[u8], seed: u64) -> u64 {
    let len = buf.len() as u64;
    let mut sum = 0u64;
    for i in 0..READS {
        sum += u64::from(buf[offset(mix(seed + i), len)]);
    }
    sum
}

/// `READS` reads, each at an offset that depends on the byte before.
fn dependent(buf: &[u8], seed: u64) -> u64 {
    let len = buf.len() as u64;
    let mut x = seed;
    for _ in 0..READS {
        x = mix(x ^ u64::from(buf[offset(x, len)]));
    }
    x
}

fn sizes() -> Vec<u64> {
    match std::env::var("RETROGRADE_MEM_BYTES") {
        Ok(s) => s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .expect("RETROGRADE_MEM_BYTES: sizes in bytes, comma-separated")
            })
            .collect(),
        // Isolation 4x4 and 4x5: 16·15·2^14 and 20·19·2^18 one-byte cells.
        Err(_) => vec![3_932_160, 99_614_720],
    }
}

fn memory(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("memory");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for len in sizes() {
        // Filled with varied bytes, so every page is backed and a read of
        // the zero page cannot stand in for a read of memory.
        let buf: Vec<u8> = (0..len).map(|i| mix(i) as u8).collect();
        let name = format!("{len}B");
        for threads in [1, cores] {
            group.throughput(Throughput::Elements(READS * threads as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("independent_{threads}t"), &name),
                &buf,
                |b, buf| {
                    let mut seed = 0u64;
                    b.iter(|| {
                        seed += READS * threads as u64;
                        std::thread::scope(|s| {
                            let runs: Vec<_> = (0..threads as u64)
                                .map(|t| s.spawn(move || independent(buf, seed + t * READS)))
                                .collect();
                            let total: u64 = runs.into_iter().map(|r| r.join().unwrap()).sum();
                            black_box(total)
                        })
                    })
                },
            );
            if threads > 1 {
                continue;
            }
            group.throughput(Throughput::Elements(READS));
            group.bench_with_input(BenchmarkId::new("dependent_1t", &name), &buf, |b, buf| {
                let mut seed = 1u64;
                b.iter(|| {
                    seed += 1;
                    black_box(dependent(buf, seed))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, memory);
criterion_main!(benches);
