//! Disk full or a write error while the finished table is written out: a
//! clear error, and nothing left under a name that looks complete.

use retrograde::games::Isolation;
use retrograde::internal::format::write_tablebase;
use retrograde::solve::{solve_in_memory, solve_to_file, NoProgress, SolveOptions, Solved};
use retrograde::{Game, Tablebase};
use std::io::{self, Write};

/// A writer that accepts `room` bytes, then fails like a full disk.
struct FullDisk {
    room: usize,
    written: Vec<u8>,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.room == 0 {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "No space left on device",
            ));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_full_disk_is_an_error_and_the_bytes_written_never_open_as_a_tablebase() {
    let dir = tempfile::tempdir().unwrap();
    let g = Isolation::new(3, 3).unwrap();
    let path = dir.path().join("ok.rtb");
    let report = solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    let Solved { cells: data, .. } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let whole = std::fs::read(&path).unwrap();
    for room in [0, 10, 200, 4096, 4096 + 100, whole.len() - 1] {
        let mut disk = FullDisk {
            room,
            written: Vec::new(),
        };
        let err = write_tablebase(&mut disk, &report.header, &data).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull, "room {room}");
        // What did reach the disk is refused by the reader.
        assert!(
            Tablebase::from_bytes(disk.written.as_slice()).is_err(),
            "room {room}"
        );
    }
    let mut disk = FullDisk {
        room: usize::MAX,
        written: Vec::new(),
    };
    write_tablebase(&mut disk, &report.header, &data).unwrap();
    assert_eq!(disk.written, whole);
}

#[test]
fn a_failed_solve_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    // The output's directory is a regular file: creating the output fails.
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"x").unwrap();
    let g = Isolation::new(3, 3).unwrap();
    let err = solve_to_file(
        &g,
        &blocker.join("t.rtb"),
        &SolveOptions::default(),
        &NoProgress,
    )
    .unwrap_err();
    assert!(err.to_string().contains("not-a-dir"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "only the blocker remains");
    assert_eq!(g.size(), 9216);
}
