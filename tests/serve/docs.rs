//! docs/SERVE-API.md's examples are the server's answers: each JSON block
//! under a line "`GET PATH`:" (or "`GET PATH` (STATUS):") is compared with
//! what the server answers for PATH, on the tables the document names.
//! Where the document leaves something out it says so: an array ending in
//! "…" has more elements, an object with the member "…": "…" more members.

use super::{query, Server};
use crate::common;
use serde_json::Value as Json;

const DOC: &str = include_str!("../../docs/SERVE-API.md");
const MORE: &str = "…";

/// (request line, status, JSON text) of every example.
fn examples() -> Vec<(String, u16, String)> {
    let lines: Vec<&str> = DOC.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```json" {
            i += 1;
            continue;
        }
        let request = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_else(|| panic!("line {}: a JSON block with no request above", i + 1));
        let (path, status) = request
            .strip_prefix("`GET ")
            .and_then(|r| {
                if let Some(p) = r.strip_suffix("`:") {
                    Some((p, 200))
                } else {
                    let (p, s) = r.strip_suffix("):")?.split_once("` (")?;
                    Some((p, s.parse().ok()?))
                }
            })
            .unwrap_or_else(|| {
                panic!(
                    "line {}: the line above a JSON block must be \"`GET PATH`:\", not {request:?}",
                    i + 1
                )
            });
        let end = i + lines[i..]
            .iter()
            .position(|l| l.trim_end() == "```")
            .unwrap();
        out.push((path.to_string(), status, lines[i + 1..end].join("\n")));
        i = end + 1;
    }
    out
}

/// Whether `doc` shows `real`, up to what it says it leaves out; `Err`
/// names the first difference.
fn shows(doc: &Json, real: &Json, at: &str) -> Result<(), String> {
    match (doc, real) {
        (Json::Object(d), Json::Object(r)) => {
            let partial = d.get(MORE).is_some_and(|v| v == MORE);
            if partial && d.len() > r.len() {
                return Err(format!("{at}: says members are left out, but none are"));
            }
            for k in r.keys() {
                if !partial && !d.contains_key(k) {
                    return Err(format!("{at}: the answer has {k:?}, the document not"));
                }
            }
            for (k, v) in d.iter().filter(|(k, _)| *k != MORE) {
                let rv = r
                    .get(k)
                    .ok_or_else(|| format!("{at}: the document has {k:?}, the answer not"))?;
                shows(v, rv, &format!("{at}.{k}"))?;
            }
            Ok(())
        }
        (Json::Array(d), Json::Array(r)) => {
            let partial = d.last().is_some_and(|v| v == MORE);
            let shown = if partial { &d[..d.len() - 1] } else { &d[..] };
            if (partial && r.len() <= shown.len()) || (!partial && r.len() != shown.len()) {
                return Err(format!(
                    "{at}: {} elements shown{}, the answer has {}",
                    shown.len(),
                    if partial {
                        " and more said to follow"
                    } else {
                        ""
                    },
                    r.len()
                ));
            }
            for (n, (dv, rv)) in shown.iter().zip(r).enumerate() {
                shows(dv, rv, &format!("{at}[{n}]"))?;
            }
            Ok(())
        }
        _ if doc == real => Ok(()),
        _ => Err(format!(
            "{at}: the document says {doc}, the answer is {real}"
        )),
    }
}

#[test]
fn the_api_documents_examples_are_the_servers_answers() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().join("tablebases");
    common::solve("isolation:4x4", &tb.join("isolation-4x4.rtb"), &[]);
    common::solve("cram:3x4", &tb.join("cram-3x4-nimbers.rtb"), &["--nimbers"]);
    let server = Server::start_in(dir.path(), &[], &[]);
    let examples = examples();
    assert!(examples.len() >= 5, "{} examples found", examples.len());
    for (path, status, text) in examples {
        let doc: Json = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{path}: the document's JSON does not parse: {e}"));
        // The position is written as the notation spells it; a client
        // encodes it (`#` is `%23`).
        let sent = match path.split_once("?p=") {
            Some((route, p)) => format!("{route}?p={}", query(p)),
            None => path.clone(),
        };
        let (got, body) = server.get(&sent);
        assert_eq!(got, status, "{path}: {body}");
        let real: Json = serde_json::from_str(&body).unwrap();
        if let Err(e) = shows(&doc, &real, "answer") {
            panic!("docs/SERVE-API.md, {path}: {e}");
        }
    }
}

#[test]
fn what_the_document_leaves_out_is_checked_too() {
    let real: Json = serde_json::json!({"a": [1, 2, 3], "b": {"c": 1, "d": 2}});
    let ok = |doc: Json| shows(&doc, &real, "x");
    assert!(ok(serde_json::json!({"a": [1, 2, 3], "b": {"c": 1, "d": 2}})).is_ok());
    assert!(ok(serde_json::json!({"a": [1, "…"], "b": {"c": 1, "…": "…"}})).is_ok());
    // A wrong value, a member or element missing unannounced, "…" where
    // nothing is left out, a member the answer does not have.
    assert!(ok(serde_json::json!({"a": [1, 2, 4], "b": {"c": 1, "d": 2}})).is_err());
    assert!(ok(serde_json::json!({"a": [1, 2], "b": {"c": 1, "d": 2}})).is_err());
    assert!(ok(serde_json::json!({"a": [1, 2, 3], "b": {"c": 1}})).is_err());
    assert!(ok(serde_json::json!({"a": [1, 2, 3, "…"], "b": {"c": 1, "d": 2}})).is_err());
    assert!(ok(serde_json::json!({"a": [1, 2, 3], "b": {"c": 1, "d": 2, "…": "…"}})).is_err());
    assert!(ok(serde_json::json!({"a": [1, 2, 3], "b": {"c": 1, "e": 2, "…": "…"}})).is_err());
}
