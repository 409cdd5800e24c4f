//! One tablebase, many readers: threads sharing one `Tablebase`, and several
//! `retrograde probe` processes reading one file at once, all give the
//! answers of a single-threaded pass.

use retrograde::games::{AnyGame, Isolation};
use retrograde::{Game, Outcome, Storage, Tablebase};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use tempfile::TempDir;

use crate::common::solved_isolation;

/// Compile-time: an open tablebase (read, mapped or in memory) and the games can
/// be shared between threads.
#[allow(dead_code)]
fn assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<Tablebase>();
    is::<Tablebase<retrograde::Mmap>>();
    is::<Tablebase<Vec<u8>>>();
    is::<AnyGame>();
    is::<Isolation>();
    is::<retrograde::Error>();
}

const THREADS: usize = 8;

fn solved_4x4() -> (TempDir, PathBuf, Isolation) {
    solved_isolation("isolation:4x4", "isolation-4x4.rtb")
}

/// Every cell, in index order, read by one thread.
fn single_pass<D: Storage>(tb: &Tablebase<D>) -> Vec<Option<Outcome>> {
    (0..tb.len()).map(|i| tb.probe_index(i).unwrap()).collect()
}

/// `THREADS` threads each probe `steps` cells of `tb` and check them
/// against `want`.
fn threads_agree<D: Storage + Send + Sync + 'static>(
    tb: Arc<Tablebase<D>>,
    g: &Isolation,
    want: &Arc<Vec<Option<Outcome>>>,
    steps: u64,
) {
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (tb, want, g) = (Arc::clone(&tb), Arc::clone(want), g.clone());
            std::thread::spawn(move || {
                let n = tb.len();
                // Each thread starts elsewhere and walks with its own stride,
                // so the threads read the same pages at different times.
                let stride = [1, 7, 13, 31, 61, 127, 251, 509][t];
                let mut i = (t as u64 * n) / THREADS as u64;
                let mut by_position = 0u64;
                for k in 0..steps {
                    assert_eq!(tb.probe_index(i).unwrap(), want[i as usize], "index {i}");
                    // Through the game's notation too, for every 64th index.
                    if k % 64 == 0 {
                        if let (Some(p), Some(o)) = (g.decode(i), want[i as usize]) {
                            assert_eq!(tb.probe(&g, &p).unwrap(), o);
                            by_position += 1;
                        }
                    }
                    i = (i + stride) % n;
                }
                by_position
            })
        })
        .collect();
    for h in handles {
        // At least a quarter of the indices are positions.
        assert!(h.join().unwrap() > steps / 64 / 8);
    }
}

#[test]
fn threads_sharing_one_tablebase_agree_with_a_single_pass() {
    let (_dir, path, g) = solved_4x4();
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let mapped = Arc::new(unsafe { Tablebase::open_mmap(&path) }.unwrap());
    let want = Arc::new(single_pass(&mapped));
    assert!(want.iter().filter(|o| o.is_some()).count() > 1_000_000);
    let n = mapped.len();
    threads_agree(mapped, &g, &want, n);
    // Positioned reads cost a system call each: a 32nd of the walk.
    let file = Arc::new(Tablebase::open(&path).unwrap());
    threads_agree(file, &g, &want, n / 32);
}

#[test]
fn several_probe_processes_at_once_print_the_same_answers() {
    let (_dir, path, g) = solved_4x4();
    let tb = Tablebase::open(&path).unwrap();
    // 3,000 positions spread over the table, with their outcomes.
    let step = tb.len() / 3_000;
    let mut positions = Vec::new();
    let mut want = Vec::new();
    for i in (0..tb.len()).step_by(step as usize) {
        if let (Some(p), Some(o)) = (g.decode(i), tb.probe_index(i).unwrap()) {
            positions.push(g.format_position(&p));
            want.push(o);
        }
    }
    assert!(positions.len() > 1_000);
    let input = Arc::new(positions.join("\n") + "\n");

    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
                .args(["probe", path.to_str().unwrap(), "-", "--json"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Feed stdin from a thread so a full stdout pipe cannot stall it.
            let mut stdin = child.stdin.take().unwrap();
            let input = Arc::clone(&input);
            let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
            (child, feeder)
        })
        .collect();
    let outputs: Vec<String> = children
        .into_iter()
        .map(|(child, feeder)| {
            let out = child.wait_with_output().unwrap();
            feeder.join().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.stderr.is_empty());
            String::from_utf8(out.stdout).unwrap()
        })
        .collect();
    for o in &outputs[1..] {
        assert!(o == &outputs[0], "processes printed different answers");
    }
    let lines: Vec<&str> = outputs[0].lines().collect();
    assert_eq!(lines.len(), positions.len());
    for ((line, pos), o) in lines.iter().zip(&positions).zip(&want) {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(j["position"], pos.as_str());
        assert_eq!(j["value"], o.value.name(), "{pos}");
        assert_eq!(
            j["remoteness"].as_u64(),
            o.remoteness.map(u64::from),
            "{pos}"
        );
    }
}
