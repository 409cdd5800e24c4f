//! The manifest of known tablebases (tablebases/MANIFEST.tsv) must describe
//! what the generator produces today: a change to the rules, the index or the
//! cell encoding that alters a known file fails here before it ships.

use retrograde::internal::verify::{manifest, ManifestEntry};
use retrograde::solve::{solve_in_memory, SolveOptions, Solved};
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
        let Solved { cells: data, .. } = with_game!(&g, g => solve_in_memory(g, &options)).unwrap();
        assert_eq!(
            crc32fast::hash(&data),
            e.data_crc,
            "{} scheme {}",
            e.spec,
            e.index_scheme
        );
    }
}

/// Whole files, header included: the data rows above would not notice a
/// change to the header's layout, its statistics or the padding. The header
/// holds the generator string (`retrograde <version>`), so a version bump
/// changes these CRCs and must update them here, on purpose.
#[test]
fn small_files_are_byte_identical_to_their_golden_crc() {
    use retrograde::solve::{solve_to_file, NoProgress};
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, bool, TableKind, u64, u32)] = &[
        ("tictactoe", false, TableKind::Value, 10142, 0xf009c621),
        ("connect:4x4x4", true, TableKind::Value, 116957, 0xb5e3d5e6),
        ("cram:3x4", false, TableKind::Nimber, 8192, 0x07b383d3),
        ("dodgem:3", false, TableKind::Value, 6942, 0x7bfd15df),
        (
            "subtraction:100:1,3,4",
            false,
            TableKind::Value,
            4298,
            0x853bb47b,
        ),
    ];
    assert_eq!(
        retrograde::internal::format::generator(),
        "retrograde 0.1.0",
        "the version changed: re-derive the whole-file CRCs below"
    );
    for (i, &(spec, fold, kind, len, crc)) in cases.iter().enumerate() {
        let mut g = AnyGame::parse(spec).unwrap();
        if fold {
            g = g.folded().unwrap();
        }
        let path = dir.path().join(format!("{i}.rtb"));
        let options = SolveOptions {
            checkpoint_interval: None,
            ..SolveOptions::with_kind(kind)
        };
        with_game!(&g, g => solve_to_file(g, &path, &options, &NoProgress)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, len, "{spec} fold={fold}");
        assert_eq!(crc32fast::hash(&bytes), crc, "{spec} fold={fold} {kind:?}");
    }
}
