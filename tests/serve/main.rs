//! `retrograde serve` over real HTTP: the API against `probe --json
//! --moves`, the boards and move steps against the positions they lead to,
//! hostile requests and files, slow and idle connections under a limit,
//! and a short load run. Run one suite with
//! `cargo test --release --test serve api::`.

#[path = "../common/mod.rs"]
mod common;

mod analysis;
mod api;
mod busy;
mod docs;
mod hostile;
mod limits;
mod load;
mod search;

use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use tempfile::TempDir;

/// A running `retrograde serve` on a free loopback port, killed on drop.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub url: String,
}

impl Server {
    pub fn start(files: &[&Path], extra: &[&str]) -> Server {
        Server::start_in(Path::new("."), files, extra)
    }

    /// As [`Server::start`], run in the directory `cwd`.
    pub fn start_in(cwd: &Path, files: &[&Path], extra: &[&str]) -> Server {
        let mut cmd = common::bin();
        cmd.current_dir(cwd)
            .arg("serve")
            .args(files)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra);
        Server::spawn(cmd)
    }

    /// Runs `cmd` (a `retrograde serve`) and reads the URL it prints.
    pub fn spawn(mut cmd: Command) -> Server {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in the first line: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Server { child, url }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> &str {
        self.url.trim_start_matches("http://")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server: what it wrote on stderr.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err).unwrap();
        }
        err
    }

    /// GET `path`: (status, body).
    pub fn get(&self, path: &str) -> (u16, String) {
        answer(ureq::get(&format!("{}{path}", self.url)).call())
    }

    /// GET `path`, which must answer 200 with JSON.
    pub fn json(&self, path: &str) -> Json {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (status, body) of a ureq answer, errors with a status included.
pub fn answer(r: Result<ureq::Response, ureq::Error>) -> (u16, String) {
    match r {
        Ok(r) => (r.status(), r.into_string().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap()),
        Err(e) => panic!("transport error: {e}"),
    }
}

/// Small tables of every family, solved by the command into a fresh
/// directory: (dir, [(id, path)]).
pub fn tables(specs: &[(&str, &str)]) -> (TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (spec, name) in specs {
        let path = dir.path().join(format!("{name}.rtb"));
        // "SPEC --flag ...": the spec, then the solve's extra flags.
        let mut words = spec.split_whitespace();
        let spec = words.next().unwrap();
        let extra: Vec<&str> = words.collect();
        common::solve(spec, &path, &extra);
        paths.push(path);
    }
    (dir, paths)
}

/// A position's text as a query parameter.
pub fn query(position: &str) -> String {
    form_encode(position)
}

fn form_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
