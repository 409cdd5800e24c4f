//! The manifest of known tablebases (tablebases/MANIFEST.tsv) must describe
//! what the generator produces today: a change to the rules, the index or the
//! cell encoding that alters a known file fails here before it ships.

use retrograde::solve::{solve_in_memory_with, SolveOptions};
use retrograde::verify::{manifest, ManifestEntry};
use retrograde::{with_game, AnyGame, TableKind};

/// The game a manifest line describes, folded if its index scheme says so.
fn game_of(e: &ManifestEntry) -> AnyGame {
    let g = AnyGame::parse(&e.spec).unwrap();
    if g.index_scheme() == e.index_scheme {
        g
    } else {
        let f = g.folded().unwrap();
        assert_eq!(f.index_scheme(), e.index_scheme, "{}", e.spec);
        f
    }
}

#[test]
fn manifest_lines_parse_and_name_canonical_specs() {
    let m = manifest();
    assert!(m.len() >= 4, "manifest has {} entries", m.len());
    for e in &m {
        let g = game_of(e);
        assert_eq!(g.spec(), e.spec, "manifest spec must be canonical");
        assert_eq!(g.size(), e.entries, "{}", e.spec);
        assert!(matches!(e.kind.as_str(), "value" | "nimber"), "{}", e.kind);
    }
}

#[test]
fn small_known_tablebases_match_their_manifest_crc() {
    // Entries small enough to regenerate in a test; the larger ones are
    // checked by `retrograde verify` after a manual solve.
    for e in manifest().iter().filter(|e| e.entries <= 4_000_000) {
        let g = game_of(e);
        let options = SolveOptions::with_kind(if e.kind == "nimber" {
            TableKind::Nimber
        } else {
            TableKind::Value
        });
        let (data, _, _) = with_game!(&g, g => solve_in_memory_with(g, &options)).unwrap();
        assert_eq!(
            crc32fast::hash(&data),
            e.data_crc,
            "{} scheme {}",
            e.spec,
            e.index_scheme
        );
    }
}
