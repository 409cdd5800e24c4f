//! `analyze --svg`: the chart file, read back with an XML parser, holds
//! exactly the counts `analyze --json` prints, and is written as every
//! output is (checked and locked first, replaced whole by a rename).

use crate::common::{names, refused_line, run, solve};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn analysis(table: &Path) -> Json {
    let out = run(&["analyze", s(table), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The bars of `svg`: for each bar, its `data-*` attributes but the count,
/// and the count; in document order.
fn bars(svg: &str) -> Vec<(BTreeMap<String, String>, u64)> {
    let doc = roxmltree::Document::parse(svg).expect("the file is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(
        doc.root_element().tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("bar"))
        .map(|n| {
            let keys = n
                .attributes()
                .filter(|a| a.name().starts_with("data-") && a.name() != "data-count")
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect();
            (keys, n.attribute("data-count").unwrap().parse().unwrap())
        })
        .collect()
}

fn counts(j: &Json) -> Vec<u64> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect()
}

/// The tiers' bars, in the order of play (the highest tier, the start's,
/// first), as the JSON counts them.
fn tiers_of(j: &Json) -> Vec<(BTreeMap<String, String>, u64)> {
    let mut t: Vec<(u64, u64)> = j["tiers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, c)| (k.parse().unwrap(), c.as_u64().unwrap()))
        .collect();
    t.sort_by_key(|&(tier, _)| std::cmp::Reverse(tier));
    t.into_iter()
        .map(|(tier, c)| (BTreeMap::from([("data-tier".into(), tier.to_string())]), c))
        .collect()
}

#[test]
fn svg_bars_are_the_counts_of_analyze_json() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.rtb");
    solve("tictactoe", &table, &[]);
    let out = dir.path().join("t.svg");
    let o = run(&["analyze", s(&table), "--svg", s(&out), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j, analysis(&table), "--svg changes nothing of the JSON");
    let svg = std::fs::read_to_string(&out).unwrap();
    let got = bars(&svg);

    // Tic-tac-toe has wins, losses and ties: a bar for each at every
    // remoteness up to the longest, then the tiers.
    let mut want = Vec::new();
    let hist: Vec<(&str, Vec<u64>)> = ["win", "lose", "tie"]
        .iter()
        .map(|v| (*v, counts(&j["remoteness"][*v])))
        .collect();
    let longest = hist.iter().map(|(_, h)| h.len()).max().unwrap();
    assert_eq!(longest, 10, "tic-tac-toe lasts 9 moves");
    for r in 0..longest {
        for (v, h) in &hist {
            let keys = BTreeMap::from([
                ("data-remoteness".to_string(), r.to_string()),
                ("data-value".to_string(), v.to_string()),
            ]);
            want.push((keys, h.get(r).copied().unwrap_or(0)));
        }
    }
    want.extend(tiers_of(&j));
    assert_eq!(got, want);
    // Every reachable position is in a tier bar, and the values' bars add up
    // to the values' counts.
    let tiers: u64 = got
        .iter()
        .filter(|(k, _)| k.contains_key("data-tier"))
        .map(|(_, c)| c)
        .sum();
    assert_eq!(tiers, j["reachable"].as_u64().unwrap());
    for v in ["win", "lose", "tie"] {
        let sum: u64 = got
            .iter()
            .filter(|(k, _)| k.get("data-value").map(String::as_str) == Some(v))
            .map(|(_, c)| c)
            .sum();
        assert_eq!(sum, j[v].as_u64().unwrap(), "{v}");
    }
    assert_eq!(
        names(dir.path()),
        ["t.rtb", "t.svg"],
        "no working file left"
    );
}

#[test]
fn svg_of_a_nimber_table_draws_the_nimbers() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("c.rtb");
    solve("cram:3x3", &table, &["--nimbers"]);
    let out = dir.path().join("c.svg");
    let o = run(&["analyze", s(&table), "--svg", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = analysis(&table);
    let mut want: Vec<(BTreeMap<String, String>, u64)> = counts(&j["nimbers"])
        .into_iter()
        .enumerate()
        .map(|(k, c)| (BTreeMap::from([("data-nimber".into(), k.to_string())]), c))
        .collect();
    assert!(want.len() > 1, "{j}");
    want.extend(tiers_of(&j));
    assert_eq!(bars(&std::fs::read_to_string(&out).unwrap()), want);
}

#[test]
fn svg_output_is_refused_or_replaced_as_other_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.rtb");
    solve("subtraction:30:1,3,4", &table, &[]);
    // The table itself, standard output, a directory: refused in one line,
    // before any analysis, and nothing is written.
    let before = std::fs::read(&table).unwrap();
    refused_line(
        &run(&["analyze", s(&table), "--svg", s(&table)]),
        "is this run's own input",
    );
    assert_eq!(std::fs::read(&table).unwrap(), before);
    refused_line(
        &run(&["analyze", s(&table), "--svg", "-"]),
        "--svg needs a file name",
    );
    std::fs::create_dir(dir.path().join("d.svg")).unwrap();
    refused_line(
        &run(&["analyze", s(&table), "--svg", s(&dir.path().join("d.svg"))]),
        "not a regular file",
    );
    // An existing file is replaced whole.
    let out = dir.path().join("old.svg");
    std::fs::write(&out, "not a chart").unwrap();
    let o = run(&["analyze", s(&table), "--svg", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(!bars(&svg).is_empty());
    assert_eq!(names(dir.path()), ["d.svg", "old.svg", "t.rtb"]);
}
