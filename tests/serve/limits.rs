//! Connections that hold the server's descriptors without using them: a
//! silent or slow header, an idle keep-alive connection and a client that
//! stops reading are closed after `--header-timeout` / `--idle-timeout`;
//! no more than `--max-connections` (or what the open-file limit leaves
//! room for) are open at once; and when descriptors run out anyway the
//! server pauses accepting rather than stop. Timeouts of 1 and 2 s keep each
//! test to a few seconds; everything is on loopback.

use super::{tables, Server};
use crate::common;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tempfile::TempDir;

fn table() -> (TempDir, PathBuf) {
    let (dir, mut paths) = tables(&[("isolation:3x3", "iso")]);
    (dir, paths.remove(0))
}

/// Reads until the server closes the connection (end of file or reset):
/// how long that took, what was read. Fails if it is still open after
/// `max`.
fn until_closed(s: &mut TcpStream, max: Duration) -> (Duration, Vec<u8>) {
    let start = Instant::now();
    s.set_read_timeout(Some(max)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1 << 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!(
                "still open after {:?} ({e}); read {} bytes",
                start.elapsed(),
                got.len()
            ),
        }
        assert!(start.elapsed() < max, "still open after {max:?}");
    }
    (start.elapsed(), got)
}

/// One keep-alive request and its whole answer: (status, body).
fn request(s: &mut TcpStream, path: &str) -> (u16, String) {
    write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).unwrap(), 1, "closed mid-answer");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .expect("a content-length")
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; length];
    s.read_exact(&mut body).unwrap();
    (
        head[9..12].parse().unwrap(),
        String::from_utf8(body).unwrap(),
    )
}

/// A new client's request on a new connection, answered within `max`.
fn served_within(server: &Server, max: Duration) -> Duration {
    let start = Instant::now();
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.set_read_timeout(Some(max)).unwrap();
    write!(
        s,
        "GET /api/tables HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply)
        .unwrap_or_else(|e| panic!("no answer within {max:?}: {e}"));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    start.elapsed()
}

fn within(took: Duration, from: f64, to: f64, what: &str) {
    let s = took.as_secs_f64();
    assert!((from..=to).contains(&s), "{what}: {s:.2} s");
}

#[test]
fn slow_and_idle_connections_are_closed_and_working_ones_are_not() {
    let (_dir, path) = table();
    let server = Server::start(
        &[path.as_path()],
        &["--header-timeout", "1", "--idle-timeout", "2"],
    );
    let connect = || TcpStream::connect(server.addr()).unwrap();
    let max = Duration::from_secs(6);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let (took, got) = until_closed(&mut connect(), max);
            within(took, 0.9, 5.0, "a connection that sends nothing");
            assert!(got.is_empty() || got.starts_with(b"HTTP/1.1 408"));
        });
        scope.spawn(|| {
            let mut s = connect();
            s.write_all(b"GET /api/tables HTTP/1.1\r\nHost: local")
                .unwrap();
            let (took, _) = until_closed(&mut s, max);
            within(took, 0.9, 5.0, "half a header");
        });
        scope.spawn(|| {
            // A byte every 200 ms moves, but the header never ends: the
            // timeout is for the whole header, not between bytes.
            let mut s = connect();
            let start = Instant::now();
            let header = b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
            for b in header {
                if s.write_all(&[*b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            let (_, got) = until_closed(&mut s, max);
            within(start.elapsed(), 0.9, 7.0, "a header sent a byte at a time");
            assert!(!String::from_utf8_lossy(&got).contains(" 200 "));
        });
        scope.spawn(|| {
            let mut s = connect();
            assert_eq!(request(&mut s, "/api/tables").0, 200);
            let (took, _) = until_closed(&mut s, max);
            within(took, 0.9, 5.0, "a keep-alive connection left idle");
        });
        scope.spawn(|| {
            // A client that asks for the page's script a thousand times
            // (35 MB of answers) and reads none: once the buffers are full
            // nothing moves, and after --idle-timeout it is closed.
            let mut s = connect();
            let one = b"GET /app.js HTTP/1.1\r\nHost: localhost\r\n\r\n";
            s.write_all(&one.repeat(1000)).unwrap();
            std::thread::sleep(Duration::from_secs(4));
            let (_, got) = until_closed(&mut s, max);
            assert!(got.len() < 35_000 * 1000, "read {} bytes", got.len());
        });
        scope.spawn(|| {
            // A client that keeps asking, each time within the timeouts,
            // keeps its connection for longer than both.
            let mut s = connect();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(4) {
                let (status, body) = request(&mut s, "/api/tables/iso/position");
                assert_eq!(status, 200);
                assert!(body.contains("\"value\":\"win\""), "{body}");
                std::thread::sleep(Duration::from_millis(400));
            }
        });
    });
}

/// Sockets the process `pid` holds (the listener and its connections).
#[cfg(target_os = "linux")]
fn sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|l| l.to_string_lossy().starts_with("socket:"))
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn no_more_than_the_connection_limit_are_open_and_the_next_client_waits_its_turn() {
    let (_dir, path) = table();
    let server = Server::start(
        &[path.as_path()],
        &["--max-connections", "4", "--header-timeout", "1"],
    );
    let base = sockets(server.pid());
    let held: Vec<TcpStream> = (0..12)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sockets(server.pid()).saturating_sub(base), 4);
    // Twelve silent connections ahead of it, four at a time, each closed
    // after a second: the new client is answered after about three.
    let took = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut most = 0;
            for _ in 0..30 {
                most = most.max(sockets(server.pid()).saturating_sub(base));
                std::thread::sleep(Duration::from_millis(100));
            }
            most
        });
        let took = served_within(&server, Duration::from_secs(12));
        assert!(sampler.join().unwrap() <= 4);
        took
    });
    within(took, 1.5, 10.0, "the client after twelve silent ones");
    drop(held);
}

/// Runs `serve` with its open-file limit set to `n` (soft and hard), as
/// `ulimit -n n` would.
#[cfg(target_os = "linux")]
fn serve_with_fd_limit(path: &std::path::Path, n: u64, extra: &[&str]) -> Server {
    use std::os::unix::process::CommandExt;
    let mut cmd = common::bin();
    cmd.arg("serve")
        .arg(path)
        .args(["--addr", "127.0.0.1:0"])
        .args(extra);
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: n,
                rlim_max: n,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Server::spawn(cmd)
}

#[cfg(target_os = "linux")]
#[test]
fn under_ulimit_64_eighty_silent_clients_do_not_lock_out_the_next() {
    let (_dir, path) = table();
    // The case: before the limit and the timeouts, 80 idle
    // connections took every descriptor and new clients timed out.
    let server = serve_with_fd_limit(&path, 64, &["--header-timeout", "1"]);
    let base = sockets(server.pid());
    let held: Vec<TcpStream> = (0..80)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let open = sockets(server.pid()).saturating_sub(base);
    assert!((20..64).contains(&open), "{open} connections open");
    let took = served_within(&server, Duration::from_secs(10));
    within(took, 0.0, 6.0, "the client after eighty silent ones");
    drop(held);
    // The limit kept accept() from running out of descriptors.
    let err = server.stop();
    assert!(!err.contains("cannot accept"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn when_descriptors_run_out_the_server_waits_for_them_and_goes_on() {
    let (_dir, path) = table();
    let server = Server::start(
        &[path.as_path()],
        &["--header-timeout", "1", "--max-connections", "100"],
    );
    // Lowered under the server's feet to two more than it holds: its own
    // limit (computed at start) no longer protects it, and accept() fails
    // with EMFILE.
    let pid = server.pid() as libc::pid_t;
    let open = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count() as u64;
    let lim = libc::rlimit {
        rlim_cur: open + 2,
        rlim_max: open + 2,
    };
    // SAFETY: prlimit reads `lim` and writes nothing (no old limit asked).
    assert_eq!(
        unsafe { libc::prlimit(pid, libc::RLIMIT_NOFILE, &lim, std::ptr::null_mut()) },
        0
    );
    let held: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    drop(held);
    // Two descriptors: each new client is served once the held ones have
    // timed out or gone.
    for _ in 0..3 {
        served_within(&server, Duration::from_secs(10));
    }
    let err = server.stop();
    let warnings = err.matches("cannot accept a connection").count();
    assert_eq!(warnings, 1, "{err}");
    assert!(err.contains("Too many open files"), "{err}");
}
