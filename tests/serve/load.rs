//! A bounded load run on loopback: N clients, each on its own keep-alive
//! connection, ask for positions (with their moves and board, as the page
//! does) for T seconds. The short run checks that every answer under load is
//! right; `figures` (ignored; tools/serve-load.sh runs it) prints requests/s
//! and latency percentiles for the README.

use super::{query, tables, Server};
use serde_json::Value as Json;
use std::time::{Duration, Instant};

/// Positions of a game, by random playouts through the API, with each
/// position's answer: the expected bodies under load.
fn positions(server: &Server, id: &str, count: usize, seed: u64) -> Vec<(String, Json)> {
    let mut rng = seed;
    let mut next = move |n: usize| {
        // xorshift: reproducible and dependency-free.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = server.json(&format!("/api/tables/{id}/position"));
        loop {
            let path = format!(
                "/api/tables/{id}/position?p={}",
                query(p["position"].as_str().unwrap())
            );
            out.push((path, p.clone()));
            let moves = p["moves"].as_array().unwrap().clone();
            if moves.is_empty() || out.len() >= count {
                break;
            }
            let m = &moves[next(moves.len())];
            p = server.json(&format!(
                "/api/tables/{id}/position?p={}",
                query(m["position"].as_str().unwrap())
            ));
        }
    }
    out
}

/// What a load run saw.
struct Load {
    requests: usize,
    wrong: usize,
    seconds: f64,
    /// Latencies in microseconds, sorted.
    latencies: Vec<u64>,
}

impl Load {
    fn percentile(&self, q: f64) -> u64 {
        let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
        self.latencies[i]
    }
}

fn run_load(server: &Server, work: &[(String, Json)], clients: usize, seconds: f64) -> Load {
    let start = Instant::now();
    let stop = start + Duration::from_secs_f64(seconds);
    let per_client: Vec<(usize, Vec<u64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let url = server.url.clone();
                s.spawn(move || {
                    let agent = ureq::AgentBuilder::new().build();
                    let mut wrong = 0;
                    let mut lat = Vec::new();
                    let mut i = c * 7919;
                    while Instant::now() < stop {
                        let (path, expected) = &work[i % work.len()];
                        i += 1;
                        let t = Instant::now();
                        let body = agent
                            .get(&format!("{url}{path}"))
                            .call()
                            .ok()
                            .and_then(|r| r.into_string().ok());
                        lat.push(t.elapsed().as_micros() as u64);
                        let got: Option<Json> = body.and_then(|b| serde_json::from_str(&b).ok());
                        if got.as_ref() != Some(expected) {
                            wrong += 1;
                        }
                    }
                    (wrong, lat)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let wrong = per_client.iter().map(|c| c.0).sum();
    let mut latencies: Vec<u64> = per_client.into_iter().flat_map(|c| c.1).collect();
    latencies.sort_unstable();
    Load {
        requests: latencies.len(),
        wrong,
        seconds,
        latencies,
    }
}

#[test]
fn every_answer_under_concurrent_load_is_right() {
    let (_dir, paths) = tables(&[("isolation:4x4", "iso")]);
    let server = Server::start(&[paths[0].as_path()], &[]);
    let work = positions(&server, "iso", 200, 0x9e37_79b9_7f4a_7c15);
    let load = run_load(&server, &work, 8, 1.5);
    assert_eq!(load.wrong, 0, "of {} requests", load.requests);
    assert!(load.requests > 100, "{}", load.requests);
}

/// `SERVE_LOAD_CLIENTS` clients (default 16) for `SERVE_LOAD_SECONDS`
/// seconds (default 10) against `serve` with its default options on an
/// isolation:4x4 table; prints the figures.
#[test]
#[ignore = "a timed measurement: tools/serve-load.sh runs it"]
fn figures() {
    let env = |k: &str, d: f64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let clients = env("SERVE_LOAD_CLIENTS", 16.0) as usize;
    let seconds = env("SERVE_LOAD_SECONDS", 10.0);
    let (_dir, paths) = tables(&[("isolation:4x4", "isolation-4x4")]);
    let server = Server::start(&[paths[0].as_path()], &[]);
    let work = positions(&server, "isolation-4x4", 2000, 0x2545_f491_4f6c_dd1d);
    // Warm the page cache and the connections first.
    run_load(&server, &work, clients, 1.0);
    let load = run_load(&server, &work, clients, seconds);
    assert_eq!(load.wrong, 0);
    let ms = |us: u64| us as f64 / 1000.0;
    println!(
        "serve load: {clients} clients, {:.1} s, {} requests, {:.0} requests/s, latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms, {} wrong",
        load.seconds,
        load.requests,
        load.requests as f64 / load.seconds,
        ms(load.percentile(0.5)),
        ms(load.percentile(0.9)),
        ms(load.percentile(0.99)),
        ms(*load.latencies.last().unwrap()),
        load.wrong
    );
}
