//! The explorer's searches under load: a client that closes its connection
//! stops its search (a worker is free again within a fraction of a second,
//! not after the budget), a full queue is answered 503 at once with
//! Retry-After, a request's budget holds (listing hundreds of lands
//! included), and an answer is at most 1 MiB. Every search here is
//! `sprouts:30` or misère Sprouts of hundreds of lands, never proven within
//! the budget.

use super::Server;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const START: &str = "/api/tables/sprouts-30/position";

/// A request sent on a new connection (left open).
fn send(server: &Server, path: &str) -> TcpStream {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    s
}

/// The whole answer to a request sent with [`send`]: (status, head, body),
/// within `max`.
fn answer(mut s: TcpStream, max: Duration) -> (u16, String, String) {
    s.set_read_timeout(Some(max)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1 << 16];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("no whole answer within {max:?} ({e})"),
        }
    }
    let text = String::from_utf8(got).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    (
        head[9..12].parse().unwrap(),
        head.to_string(),
        body.to_string(),
    )
}

/// A request on a new connection: (status, head, body, how long).
fn timed(server: &Server, path: &str, max: Duration) -> (u16, String, String, Duration) {
    let start = Instant::now();
    let (status, head, body) = answer(send(server, path), max);
    (status, head, body, start.elapsed())
}

#[test]
fn a_client_that_leaves_stops_its_search() {
    // One worker, 2 s a request: three clients that give up after 0.3 s
    // each held it for their whole budget (6 s) before their searches were
    // stopped; now the next request waits for none of them.
    let server = Server::start(&[], &["--search", "sprouts:30", "--search-workers", "1"]);
    for _ in 0..3 {
        let s = send(&server, START);
        std::thread::sleep(Duration::from_millis(300));
        drop(s);
    }
    let (status, _, body, took) = timed(&server, START, Duration::from_secs(20));
    assert_eq!(status, 200, "{body}");
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["search"]["stopped"], "time", "{body}");
    assert!(j["search"]["nodes"].as_u64().unwrap() > 0);
    // Its own budget and a little: the others' searches had stopped.
    assert!(
        took < Duration::from_millis(2500),
        "answered after {took:?}"
    );
}

#[test]
fn a_full_queue_is_answered_503_at_once() {
    let server = Server::start(
        &[],
        &[
            "--search",
            "sprouts:30",
            "--search-workers",
            "1",
            "--search-queue",
            "1",
            "--search-time",
            "3",
        ],
    );
    // One searching, one waiting: the third finds no room.
    let running = send(&server, START);
    std::thread::sleep(Duration::from_millis(200));
    let waiting = send(&server, START);
    std::thread::sleep(Duration::from_millis(200));
    let (status, head, body, took) = timed(&server, START, Duration::from_secs(10));
    assert_eq!(status, 503, "{head}\n{body}");
    assert!(took < Duration::from_millis(500), "503 after {took:?}");
    assert!(
        head.to_ascii_lowercase().contains("\r\nretry-after: 3"),
        "{head}"
    );
    assert!(body.contains("busy"), "{body}");
    // Tables and pages are not searches: never refused for them.
    let (status, _, _, _) = timed(&server, "/api/tables", Duration::from_secs(5));
    assert_eq!(status, 200);
    // Both leave: the running search stops, the waiting one leaves the
    // queue, and the next request is searched at once, for its budget.
    drop((running, waiting));
    std::thread::sleep(Duration::from_millis(200));
    let (status, _, body, took) = timed(&server, START, Duration::from_secs(20));
    assert_eq!(status, 200, "{body}");
    assert!(
        took < Duration::from_millis(3500),
        "answered after {took:?}"
    );
}

/// Misère Sprouts of `lands` lands `0*1` .. `0*top` in turn, as a query
/// (`+` encoded).
fn lands(lands: usize, top: usize) -> String {
    let p: Vec<String> = (0..lands).map(|k| format!("0*{}", k % top + 1)).collect();
    p.join("%2B")
}

#[test]
fn a_request_ends_within_its_budget() {
    // 500 lands: listing the 53 children (each of 500 lands) takes a good
    // part of the budget, and was not counted in it: 1.43 s on 1 s.
    let server = Server::start(
        &[],
        &["--search", "sprouts:30:misere", "--search-time", "1"],
    );
    let path = format!(
        "/api/tables/sprouts-30-misere/position?p={}",
        lands(500, 12)
    );
    let (status, _, body, took) = timed(&server, &path, Duration::from_secs(20));
    assert_eq!(status, 200, "{}", &body[..body.len().min(300)]);
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["search"]["stopped"], "time");
    assert_eq!(j["moves"].as_array().unwrap().len(), 53);
    // The budget and 10%, 0.1 s to send 224 KB, and a little for a
    // machine busy with other tests.
    assert!(
        took < Duration::from_millis(1250),
        "answered after {took:?}"
    );
}

#[test]
fn an_answer_is_at_most_1_mib() {
    let server = Server::start(
        &[],
        &["--search", "sprouts:30:misere", "--search-time", "1"],
    );
    // 170 lands of two regions: 1,408 children of 2,400 characters, 6.8
    // MB to list (and 3 s to make) on a budget of 1 s. Refused before any
    // child is made.
    let p: Vec<String> = (0..170)
        .map(|i| {
            let pairs: Vec<(usize, usize)> =
                (1..12).flat_map(|a| (1..=a).map(move |b| (a, b))).collect();
            let (a, b) = pairs[i % pairs.len()];
            format!("0*{a}.AB%7C0*{b}.AB")
        })
        .collect();
    let path = format!("/api/tables/sprouts-30-misere/position?p={}", p.join("%2B"));
    let (status, _, body, took) = timed(&server, &path, Duration::from_secs(20));
    assert_eq!(status, 422, "{}", &body[..body.len().min(300)]);
    assert!(body.len() < 1000 && body.contains("1024 KiB"), "{body}");
    assert!(
        body.contains("retrograde search sprouts:30:misere"),
        "{body}"
    );
    assert!(took < Duration::from_millis(500), "answered after {took:?}");
    // What fits is answered whole.
    let (status, _, body, _) = timed(
        &server,
        &format!(
            "/api/tables/sprouts-30-misere/position?p={}",
            lands(500, 12)
        ),
        Duration::from_secs(20),
    );
    assert_eq!(status, 200);
    assert!(body.len() < 1 << 20);
}
