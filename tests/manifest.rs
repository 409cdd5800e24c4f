//! The manifest of known tablebases (tablebases/MANIFEST.tsv) must describe
//! what the generator produces today: a change to the rules, the index or the
//! cell encoding that alters a known file fails here before it ships.

use retrograde::solve::solve_in_memory;
use retrograde::verify::manifest;
use retrograde::{with_game, AnyGame};

#[test]
fn manifest_lines_parse_and_name_canonical_specs() {
    let m = manifest();
    assert!(m.len() >= 4, "manifest has {} entries", m.len());
    for e in &m {
        let g = AnyGame::parse(&e.spec).unwrap();
        assert_eq!(g.spec(), e.spec, "manifest spec must be canonical");
        assert_eq!(g.size(), e.entries, "{}", e.spec);
    }
}

#[test]
fn small_known_tablebases_match_their_manifest_crc() {
    // Entries small enough to regenerate in a test (4x5 is checked by hand:
    // `retrograde solve isolation:4x5 && retrograde verify tablebases/isolation-4x5.rtb`).
    for e in manifest().iter().filter(|e| e.entries <= 4_000_000) {
        let g = AnyGame::parse(&e.spec).unwrap();
        let (data, _, _) = with_game!(&g, g => solve_in_memory(g)).unwrap();
        assert_eq!(crc32fast::hash(&data), e.data_crc, "{}", e.spec);
    }
}
