//! `retrograde compare`: entry-by-entry comparison of two tablebases.

use crate::common::{run, solve};

#[test]
fn compare_finds_identity_and_every_difference() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    solve("isolation:3x4", &p("one.rtb"), &["--threads", "1"]);
    solve("isolation:3x4", &p("two.rtb"), &["--threads", "2"]);
    solve("isolation:3x4", &p("folded.rtb"), &["--fold"]);
    let s = |n: &str| p(n).to_str().unwrap().to_string();

    // Thread counts and folding: identical, exit 0.
    for other in ["two.rtb", "folded.rtb"] {
        let o = run(&["compare", &s("one.rtb"), &s(other), "--json"]);
        assert!(o.status.success(), "{other}");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["identical"], true);
        assert_eq!(j["positions"], 135_168);
    }

    // One changed cell: exit 1, counted, and named in the game's notation.
    let mut bytes = std::fs::read(p("two.rtb")).unwrap();
    let data_at = 4096 + 777;
    bytes[data_at] ^= 0x40 | 0x80; // win <-> lose, same remoteness bits
    std::fs::write(p("bad.rtb"), &bytes).unwrap();
    let o = run(&["compare", &s("one.rtb"), &s("bad.rtb"), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["identical"], false);
    assert_eq!(j["differ"]["value"], 1);
    let first = j["first"][0]["position"].as_str().unwrap();
    assert_eq!(first.split('/').count(), 3, "{first}");

    // Different games: a one-line error, exit 1.
    solve("isolation:3x4:misere", &p("misere.rtb"), &[]);
    let o = run(&["compare", &s("one.rtb"), &s("misere.rtb")]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("misere"), "{err}");
}
