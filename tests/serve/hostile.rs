//! Requests and files meant to break the server: each gets a clear 4xx (or,
//! for a table damaged under it, a 5xx) as JSON, never a file outside the
//! served set, and the server keeps answering.

use super::{answer, tables, Server};
use crate::common;
use serde_json::Value as Json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

fn error_of(status_body: (u16, String)) -> (u16, String) {
    let (status, body) = status_body;
    let j: Json =
        serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON ({status}): {body:?}"));
    let msg = j["error"].as_str().expect("an error message").to_string();
    assert!(!msg.is_empty() && !msg.contains('\n'), "{msg:?}");
    (status, msg)
}

#[test]
fn bad_requests_get_a_json_4xx_and_the_server_goes_on() {
    let (_dir, paths) = tables(&[("isolation:3x3", "iso")]);
    let mut server = Server::start(&[paths[0].as_path()], &[]);
    let long = format!("/api/tables/iso/position?p={}", "x".repeat(5000));
    let cases: [(&str, u16, &str); 15] = [
        ("/api/tables/nope", 404, "no table 'nope'"),
        ("/api/tables/nope/position", 404, "no table"),
        ("/api/tables/iso/position?p=0.../zzz", 400, "bad position"),
        ("/api/tables/iso/position?p=", 400, "bad position"),
        (
            "/api/tables/iso/position?p=.0./.../.1.&p=.0./.../.1.",
            400,
            "twice",
        ),
        ("/api/tables/iso/position?q=1", 400, "unknown parameter"),
        ("/api/tables?x=1", 400, "unknown parameter"),
        ("/api/tables/iso/position?p=%FF%FE", 400, "bad position"),
        ("/api/tables/%FF", 400, "UTF-8"),
        ("/../../etc/passwd", 404, "no such page"),
        ("/%2e%2e/%2e%2e/etc/passwd", 404, "no such page"),
        ("/api/tables/..%2F..%2FCargo.toml", 404, "no table"),
        ("/api/tables/iso/../../../etc/passwd", 404, "no such"),
        ("/src/main.rs", 404, "no such page"),
        (&long, 414, "at most 4096"),
    ];
    for (path, status, words) in cases {
        let (got, msg) = error_of(server.get(path));
        assert_eq!(got, status, "{path}: {msg}");
        assert!(msg.contains(words), "{path}: {msg}");
    }
    // Methods other than GET and HEAD.
    let url = format!("{}/api/tables", server.url);
    let (status, msg) = error_of(answer(ureq::post(&url).send_string("x")));
    assert_eq!(status, 405, "{msg}");
    let (status, _) = error_of(answer(ureq::delete(&url).call()));
    assert_eq!(status, 405);
    // A Host that is not loopback: what DNS rebinding would send.
    let (status, msg) = error_of(answer(ureq::get(&url).set("Host", "evil.example").call()));
    assert_eq!(status, 421, "{msg}");
    // A steering POST that a page of another site sends to loopback.
    let steer = format!(
        "{}/api/tables/iso/steer?p=x&depth=0&level=0&child=1",
        server.url
    );
    for origin in ["http://evil.example", "null"] {
        let (status, msg) = error_of(answer(
            ureq::post(&steer).set("Origin", origin).send_string(""),
        ));
        assert_eq!(status, 403, "{origin}: {msg}");
        assert!(msg.contains("another site"), "{msg}");
    }
    // The page's own origin passes the check (and meets the route's).
    let own = server.url.trim_end_matches('/').to_string();
    let (status, _) = error_of(answer(
        ureq::post(&steer).set("Origin", &own).send_string(""),
    ));
    assert_ne!(status, 403);
    // Raw bytes that are not HTTP, a header line of a megabyte, and a
    // connection closed mid-request: the server answers or closes, and lives.
    for raw in [
        b"\x00\x01\x02 garbage\r\n\r\n".to_vec(),
        format!(
            "GET / HTTP/1.1\r\nHost: localhost\r\nX: {}\r\n\r\n",
            "a".repeat(1 << 20)
        )
        .into_bytes(),
        b"GET /api/tables HTTP/1.1\r\nHost: local".to_vec(),
    ] {
        let addr = server.url.trim_start_matches("http://").to_string();
        let mut s = TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let _ = s.write_all(&raw);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut reply = Vec::new();
        let _ = s.read_to_end(&mut reply);
        let text = String::from_utf8_lossy(&reply);
        assert!(
            text.is_empty() || text.starts_with("HTTP/1.1 4"),
            "{}",
            &text[..text.len().min(200)]
        );
    }
    // Traversal sent as is: an HTTP client library would resolve the dots
    // before sending them.
    for target in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api/tables/iso/../../../Cargo.toml",
        "/api/tables/..%2f..%2fCargo.toml",
        "//etc/passwd",
        "/./index.html/..",
    ] {
        let (status, body) = raw_get(&server.url, target);
        assert!(status == 404, "{target}: {status} {body}");
        assert!(body.contains("\"error\""), "{target}: {body}");
    }
    assert!(server.alive());
    let ok = server.json("/api/tables/iso/position?p=.0./.../.1.");
    assert_eq!(ok["value"], "win");
}

/// GET `target` written byte for byte: (status, body).
fn raw_get(url: &str, target: &str) -> (u16, String) {
    raw(
        url,
        &format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    )
}

/// A request written byte for byte: (status, body).
fn raw(url: &str, request: &str) -> (u16, String) {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let status = reply[9..12].parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
    (status, body)
}

#[test]
fn the_host_is_parsed_strictly() {
    let (_dir, paths) = tables(&[("isolation:3x3", "iso")]);
    let server = Server::start(&[paths[0].as_path()], &[]);
    let port = server.url.rsplit(':').next().unwrap();
    let ask = |target: &str, hosts: &[&str]| {
        let hosts: String = hosts.iter().map(|h| format!("Host: {h}\r\n")).collect();
        raw(
            &server.url,
            &format!("GET {target} HTTP/1.1\r\n{hosts}Connection: close\r\n\r\n"),
        )
    };
    let cases: [(&str, &[&str], u16, &str); 12] = [
        (
            "/api/tables",
            &["[::1]evil"],
            400,
            "only ':PORT' may follow",
        ),
        (
            "/api/tables",
            &["[::1]@evil"],
            400,
            "only ':PORT' may follow",
        ),
        ("/api/tables", &["[::1"], 400, "not closed"),
        ("/api/tables", &["localhost@evil.example"], 400, "character"),
        ("/api/tables", &["localhost:8080:80"], 400, "port"),
        (
            "/api/tables",
            &["localhost", "localhost"],
            400,
            "2 Host headers",
        ),
        (
            "/api/tables",
            &["localhost", "evil.example"],
            400,
            "2 Host headers",
        ),
        ("/api/tables", &["evil.example"], 421, "localhost"),
        // Absolute-form: the target's host is the one that counts.
        (
            "http://evil.example/api/tables",
            &["localhost"],
            421,
            "localhost",
        ),
        (
            "http://localhost@evil.example/api/tables",
            &["localhost"],
            400,
            "character",
        ),
        // The same requests addressed to loopback are answered.
        ("/api/tables", &[&format!("[::1]:{port}")], 200, "tables"),
        (
            &format!("http://127.0.0.1:{port}/api/tables"),
            &["localhost"],
            200,
            "tables",
        ),
    ];
    for (target, hosts, status, words) in cases {
        let (got, body) = ask(target, hosts);
        assert_eq!(got, status, "{target} {hosts:?}: {body}");
        assert!(body.contains(words), "{target} {hosts:?}: {body}");
        if status != 200 {
            error_of((got, body));
        }
    }
}

#[test]
fn what_the_client_sent_is_quoted_in_errors_not_echoed() {
    let (_dir, paths) = tables(&[("isolation:3x3", "iso")]);
    let server = Server::start(&[paths[0].as_path()], &[]);
    let long = "n".repeat(3900);
    let quoted = format!("'{}…' (3900 bytes)", &long[..60]);
    for (request, status) in [
        (format!("{long} / HTTP/1.1\r\nHost: localhost\r\n"), 405),
        (
            format!("GET /api/tables/{long} HTTP/1.1\r\nHost: localhost\r\n"),
            404,
        ),
        (
            format!("GET /api/tables?{long}=1 HTTP/1.1\r\nHost: localhost\r\n"),
            400,
        ),
        (
            format!("GET /api/tables/iso/position?{long}=1 HTTP/1.1\r\nHost: localhost\r\n"),
            400,
        ),
        (
            format!("GET /api/tables/iso/position?p={long} HTTP/1.1\r\nHost: localhost\r\n"),
            400,
        ),
        (format!("GET / HTTP/1.1\r\nHost: {long}:x\r\n"), 400),
    ] {
        let (got, msg) = error_of(raw(
            &server.url,
            &format!("{request}Connection: close\r\n\r\n"),
        ));
        assert_eq!(got, status, "{msg}");
        assert!(
            msg.contains(&quoted) || msg.contains(&quoted.replace("3900", "3902")),
            "{msg}"
        );
        assert!(msg.len() < 250, "{msg}");
    }
    // Control characters are escaped, not sent back to a terminal.
    let (got, msg) = error_of(server.get("/api/tables/a%1Bb"));
    assert_eq!(
        (got, msg.as_str()),
        (404, "no table 'a\\u{1b}b' (served: iso)")
    );
}

#[test]
fn listening_on_port_0_of_every_address_the_warning_names_the_port_bound() {
    let (_dir, paths) = tables(&[("isolation:3x3", "iso")]);
    let mut cmd = common::bin();
    cmd.arg("serve")
        .arg(&paths[0])
        .args(["--addr", "0.0.0.0:0"]);
    let server = Server::spawn(cmd);
    let port = server.url.rsplit(':').next().unwrap().to_string();
    assert_ne!(port, "0");
    let err = server.stop();
    assert_eq!(
        err.trim_end(),
        format!(
            "retrograde: warning: listening on 0.0.0.0:{port}, not loopback: anyone who can reach it can read the tables"
        )
    );
}

#[test]
fn a_table_truncated_while_served_gives_errors_not_a_crash() {
    let (_dir, paths) = tables(&[("isolation:3x4", "a"), ("mnk:3x3x3", "b")]);
    let mut server = Server::start(&[paths[0].as_path(), paths[1].as_path()], &[]);
    let before = server.json("/api/tables/a/position");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&paths[0])
        .unwrap()
        .set_len(200)
        .unwrap();
    let (status, msg) = error_of(server.get("/api/tables/a/position"));
    assert_eq!(status, 500, "{msg}");
    assert!(msg.contains("changed or shrank"), "{msg}");
    assert!(server.alive());
    // The other table still answers, and the first answered before.
    assert_eq!(server.json("/api/tables/b/position")["value"], "tie");
    assert_eq!(before["value"], "win");
}

/// `serve ARGS` that must fail at once: exit 1 and one line on stderr.
fn refused(args: &[&str], cwd: Option<&Path>, words: &str) {
    let mut cmd = common::bin();
    cmd.arg("serve").args(args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(words), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_files_and_options_are_refused_before_serving() {
    let (dir, paths) = tables(&[("isolation:3x3", "iso")]);
    let table = paths[0].to_str().unwrap();
    let junk = dir.path().join("junk.rtb");
    std::fs::write(&junk, b"not a table at all, just some bytes").unwrap();
    let junk = junk.to_str().unwrap();
    let d = dir.path().to_str().unwrap();
    refused(&[junk], None, "junk.rtb");
    refused(&[d], None, "directory");
    refused(&["/nonexistent/x.rtb"], None, "/nonexistent/x.rtb");
    refused(&[table, "--addr", "localhost"], None, "not an IP:PORT");
    // A long --addr is quoted to its first 60 characters, not echoed whole.
    let long = "9".repeat(100_000);
    refused(
        &[table, "--addr", &long],
        None,
        "(100000 bytes) is not an IP:PORT",
    );
    refused(&[table, "--threads", "0"], None, "at least 1");
    refused(
        &[table, "--header-timeout", "0"],
        None,
        "not from 1 to 86400",
    );
    refused(
        &[table, "--idle-timeout", "86401"],
        None,
        "not from 1 to 86400",
    );
    refused(&[table, "--max-connections", "0"], None, "at least 1");
    // No FILE and no tablebases/ here: the error says how to make a table.
    refused(
        &[],
        Some(dir.path()),
        "no tablebases/ directory here (make a table: retrograde solve isolation:4x4)",
    );
    // A port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    refused(&[table, "--addr", &addr], None, "cannot listen");
    // A damaged data byte: `--verify` refuses the file.
    let mut bytes = std::fs::read(table).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let damaged = dir.path().join("damaged.rtb");
    std::fs::write(&damaged, &bytes).unwrap();
    refused(&[damaged.to_str().unwrap(), "--verify"], None, "checksum");
    common::solve("mnk:3x3x3", &dir.path().join("tablebases/t.rtb"), &[]);
    // With no FILE, every table in tablebases/ (the README's default).
    let server = Server::start_in(dir.path(), &[], &[]);
    let list = server.json("/api/tables");
    assert_eq!(list["tables"][0]["id"], "t");
    // One file named three ways (as given, through `..`, by a hard link) is
    // one table; another file is another.
    let t = dir.path().join("tablebases/t.rtb");
    let dotted = dir.path().join("tablebases/../tablebases/t.rtb");
    let link = dir.path().join("link.rtb");
    std::fs::hard_link(&t, &link).unwrap();
    let server = Server::start(&[&t, &dotted, &link, &paths[0]], &[]);
    let ids: Vec<_> = server.json("/api/tables")["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["t", "iso"]);
}
