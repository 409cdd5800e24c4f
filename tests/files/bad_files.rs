//! Bad files never answer: every way a tablebase file can be damaged or
//! mislabelled is refused with its own error by `Tablebase::open` and
//! `Tablebase::from_bytes`, or, for the damage no header check can see, is
//! caught by `verify()` (the data checksum) or `verify::rederive` (the
//! rules). Library level; tests/cli/commands.rs checks what the command line prints.

use retrograde::format::Header;
use retrograde::games::AnyGame;
use retrograde::internal::format::PAGE;
use retrograde::internal::verify::rederive;
use retrograde::solve::{solve_to_file, NoProgress, SolveOptions};
use retrograde::{Error, Game, Tablebase, Value};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

use crate::common::{iso, refused, solved_isolation};

/// A solved isolation:3x3 file (13 KiB) in a fresh directory, and its bytes.
fn solved(spec: &str) -> (TempDir, PathBuf, Vec<u8>) {
    let (dir, path, _) = solved_isolation(spec, "t.rtb");
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

fn solved_3x3() -> (TempDir, PathBuf, Vec<u8>) {
    solved("isolation:3x3")
}

/// Opens `bytes` both ways, from memory and from a file, and returns the two
/// errors, which must be the same message.
fn both_refuse(dir: &Path, name: &str, bytes: &[u8]) -> Error {
    let Err(from_bytes) = Tablebase::from_bytes(bytes) else {
        panic!("{name}: a bad file opened");
    };
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let Err(from_file) = Tablebase::open(&path) else {
        panic!("{name}: a bad file opened");
    };
    assert_eq!(from_bytes.to_string(), from_file.to_string());
    let text = from_file.to_string();
    assert!(!text.contains('\n') && !text.is_empty(), "{text}");
    from_file
}

/// The file with its header decoded, edited and encoded again with a valid
/// CRC, the data offset kept (so the data stays where it was).
fn reheader(bytes: &[u8], edit: impl FnOnce(&mut Header)) -> Vec<u8> {
    let mut h = Header::decode(bytes, bytes.len() as u64).unwrap();
    let data = &bytes[h.data_offset as usize..];
    edit(&mut h);
    let head = h.encode();
    assert!(head.len() as u64 <= h.data_offset, "edited header too long");
    let mut out = head;
    out.resize(h.data_offset as usize, 0);
    out.extend_from_slice(data);
    out
}

fn header_len(bytes: &[u8]) -> usize {
    u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize
}

#[test]
fn the_good_file_opens_both_ways() {
    let (_dir, path, bytes) = solved_3x3();
    let a = Tablebase::open(&path).unwrap();
    let b = Tablebase::from_bytes(bytes.as_slice()).unwrap();
    a.verify().unwrap();
    b.verify().unwrap();
    assert_eq!(a.header(), b.header());
    // The positioned-read reader has no slice of the data; a map has.
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let mapped = unsafe { Tablebase::open_mmap(&path) }.unwrap();
    assert_eq!(mapped.data(), b.data());
    assert_eq!(a.cell(0).unwrap(), b.cell(0).unwrap());
}

#[test]
fn each_flipped_header_byte_gives_its_own_error() {
    let (dir, _path, bytes) = solved_3x3();
    let len = header_len(&bytes);
    let flip = |at: usize, bit: u8| {
        let mut b = bytes.clone();
        b[at] ^= bit;
        both_refuse(dir.path(), &format!("flip-{at}-{bit}.rtb"), &b)
    };
    // Magic.
    for at in 0..8 {
        assert!(matches!(flip(at, 0x01), Error::BadMagic), "byte {at}");
    }
    // Version: read before the CRC, so a damaged version says so.
    for (at, found) in [(8, 0), (9, 0x0101), (11, 0x0100_0001)] {
        let e = flip(at, 0x01);
        assert!(
            matches!(e, Error::UnsupportedVersion { found: f, supported: 1 } if f == found),
            "byte {at}: {e}"
        );
    }
    // Header length: a nearby length fails the CRC, an impossible one is
    // refused as such.
    assert!(matches!(flip(12, 0x01), Error::HeaderChecksum { .. }));
    assert!(matches!(flip(13, 0x01), Error::HeaderChecksum { .. }));
    assert!(matches!(flip(14, 0x01), Error::CorruptHeader(_)));
    assert!(matches!(flip(15, 0x80), Error::CorruptHeader(_)));
    // The CRC itself, and every byte it covers.
    let mut covered = vec![16, 17, 18, 19];
    covered.extend((20..len).step_by(3));
    covered.push(len - 1);
    for at in covered {
        for bit in [0x01, 0x80] {
            let e = flip(at, bit);
            assert!(
                matches!(e, Error::HeaderChecksum { stored, computed } if stored != computed),
                "byte {at} bit {bit:#x}: {e}"
            );
        }
    }
}

#[test]
fn the_padding_after_the_header_is_not_read() {
    // Bytes between the header and the data are covered by no checksum:
    // they are never read, so damage there changes no answer.
    let (_dir, _path, mut bytes) = solved_3x3();
    let good: Vec<_> = {
        let tb = Tablebase::from_bytes(bytes.as_slice()).unwrap();
        (0..tb.len()).map(|i| tb.probe_index(i).unwrap()).collect()
    };
    let len = header_len(&bytes);
    for b in &mut bytes[len..PAGE as usize] {
        *b = 0xa5;
    }
    let tb = Tablebase::from_bytes(bytes.as_slice()).unwrap();
    tb.verify().unwrap();
    let again: Vec<_> = (0..tb.len()).map(|i| tb.probe_index(i).unwrap()).collect();
    assert_eq!(again, good);
}

#[test]
fn a_flipped_data_byte_opens_but_fails_verify_and_rederive() {
    let (dir, _path, bytes) = solved_3x3();
    let g = iso("isolation:3x3");
    let start = g.start();
    let index = g.encode(&start);
    let good = Tablebase::from_bytes(bytes.as_slice()).unwrap();
    let before = good.probe(&g, &start).unwrap();
    assert_eq!(rederive(&g, &good).unwrap().mismatches, 0);

    let mut bad = bytes.clone();
    let at = good.header().data_offset as usize + index as usize;
    bad[at] ^= 0x01; // the start's remoteness, off by one
    let path = dir.path().join("data.rtb");
    std::fs::write(&path, &bad).unwrap();
    // Opening reads only the header: it succeeds both ways.
    assert!(Tablebase::from_bytes(bad.as_slice()).is_ok());
    let tb = Tablebase::open(&path).unwrap();
    let after = tb.probe(&g, &start).unwrap();
    assert_eq!(after.value, before.value);
    assert_ne!(after.remoteness, before.remoteness);
    // The checksum catches it...
    let e = tb.verify().unwrap_err();
    assert!(
        matches!(e, Error::DataChecksum { stored, computed } if stored == tb.header().data_crc && computed != stored),
        "{e}"
    );
    // ...and so do the rules, naming the position.
    let r = rederive(&g, &tb).unwrap();
    assert!(r.mismatches >= 1, "{r:?}");
    assert_eq!(r.checked, g.size());
    assert!(r.first.iter().any(|m| m.index == index), "{r:?}");
}

#[test]
fn truncated_and_extended_files_have_the_wrong_length() {
    let (dir, _path, bytes) = solved_3x3();
    let full = bytes.len() as u64;
    for (i, cut) in [full - 1, full - 100, PAGE, 200].into_iter().enumerate() {
        let e = both_refuse(dir.path(), &format!("cut{i}.rtb"), &bytes[..cut as usize]);
        assert!(
            matches!(e, Error::WrongLength { expected, found } if expected == full && found == cut),
            "{cut}: {e}"
        );
    }
    // Cut inside the header: the header's own length is missing.
    let len = header_len(&bytes) as u64;
    let e = both_refuse(dir.path(), "cut-h.rtb", &bytes[..len as usize - 1]);
    assert!(
        matches!(e, Error::WrongLength { expected, found } if expected == len && found == len - 1),
        "{e}"
    );
    let e = both_refuse(dir.path(), "cut-fixed.rtb", &bytes[..50]);
    assert!(
        matches!(
            e,
            Error::WrongLength {
                expected: 104,
                found: 50
            }
        ),
        "{e}"
    );
    // So short that not even the magic is whole: not recognisable at all.
    let e = both_refuse(dir.path(), "cut-magic.rtb", &bytes[..5]);
    assert!(matches!(e, Error::BadMagic), "{e}");
    // One byte too many.
    let mut long = bytes.clone();
    long.push(0);
    let e = both_refuse(dir.path(), "long.rtb", &long);
    assert!(
        matches!(e, Error::WrongLength { expected, found } if expected == full && found == full + 1),
        "{e}"
    );
}

#[test]
fn a_file_of_another_game_never_answers_for_this_one() {
    // A 3x3 table under the name the 4x4 table would have.
    let (dir, path, _bytes) = solved_3x3();
    let renamed = dir.path().join("isolation-4x4.rtb");
    std::fs::rename(&path, &renamed).unwrap();
    let tb = Tablebase::open(&renamed).unwrap();
    // The header, not the name, says what the file holds.
    assert_eq!(tb.game().spec(), "isolation:3x3:a=1,b=7");
    let g4 = iso("isolation:4x4");
    let p = g4.parse_position("0.../...x/.x../...1").unwrap();
    let e = tb.probe(&g4, &p).unwrap_err();
    assert!(matches!(e, Error::GameMismatch { .. }), "{e}");
    assert!(e.to_string().contains("isolation:4x4"), "{e}");
    // The 4x4 position is no position of the file's game either.
    let AnyGame::Isolation(g3) = tb.game() else {
        panic!()
    };
    assert!(g3.parse_position("0.../...x/.x../...1").is_err());
    // Nor does an index past the table answer.
    let e = tb.probe_index(tb.len()).unwrap_err();
    assert!(matches!(e, Error::IndexOutOfRange { .. }), "{e}");
}

#[test]
fn a_header_naming_another_board_is_a_game_mismatch() {
    // isolation:4x4 data relabelled isolation:3x3, with a valid CRC.
    let (dir, _path, bytes) = solved("isolation:4x4");
    let bad = reheader(&bytes, |h| h.spec = "isolation:3x3:a=1,b=7".into());
    let e = both_refuse(dir.path(), "4x4-as-3x3.rtb", &bad);
    assert!(
        matches!(&e, Error::GameMismatch { spec, reason } if spec == "isolation:3x3:a=1,b=7" && reason.contains("positions")),
        "{e}"
    );
    // Other start squares: another game with the same index size... still
    // the same rules, but the spec must be canonical.
    let bad = reheader(&bytes, |h| h.spec = "isolation:4x4".into());
    let e = both_refuse(dir.path(), "not-canonical.rtb", &bad);
    assert!(
        matches!(&e, Error::GameMismatch { reason, .. } if reason.contains("canonical")),
        "{e}"
    );
    // A game that does not exist, or a spec that is not a game.
    for (i, spec) in ["chess:8x8", "isolation:9x9", ""].into_iter().enumerate() {
        let bad = reheader(&bytes, |h| h.spec = spec.into());
        let e = both_refuse(dir.path(), &format!("spec{i}.rtb"), &bad);
        assert!(matches!(e, Error::CorruptHeader(_)), "{spec}: {e}");
    }
    // Another game of the same size: subtraction:N:1 has N+1 entries.
    let entries = Header::decode(&bytes, bytes.len() as u64).unwrap().entries;
    let spec = format!("subtraction:{}:1", entries - 1);
    let bad = reheader(&bytes, |h| h.spec = spec.clone());
    match Tablebase::from_bytes(bad.as_slice()) {
        // Same size and scheme: it opens, and only the rules can tell.
        Ok(tb) => {
            let AnyGame::Subtraction(g) = tb.game().clone() else {
                panic!()
            };
            assert!(rederive(&g, &tb).unwrap().mismatches > 0);
        }
        Err(e) => assert!(matches!(e, Error::GameMismatch { .. }), "{e}"),
    }
}

/// A misère spec over normal-play data names a game with the same index
/// (same size, same scheme), so no header check can tell: the file opens
/// and answers the other game's values. Only `rederive` (what `retrograde
/// verify` runs) catches it. The same holds for a value table relabelled as
/// a nimber table (the cell width is the same).
#[test]
fn a_misere_spec_on_normal_data_is_caught_only_by_rederive() {
    let (dir, _path, bytes) = solved_3x3();
    let bad = reheader(&bytes, |h| h.spec = "isolation:3x3:a=1,b=7:misere".into());
    let path = dir.path().join("misere.rtb");
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    // The data CRC is the data's: it matches.
    tb.verify().unwrap();
    let AnyGame::Isolation(g) = tb.game() else {
        panic!()
    };
    assert_eq!(g.spec(), "isolation:3x3:a=1,b=7:misere");
    let r = rederive(g, &tb).unwrap();
    assert!(r.mismatches > 0, "{r:?}");
    // A game-over position: the player to move loses in normal play and
    // wins in misère play; the file says lose.
    let over = g.parse_position("x0x/xxx/x1x").unwrap();
    assert_eq!(g.primitive(&over), Some(Value::Win));
    assert_eq!(tb.probe(g, &over).unwrap().value, Value::Lose);

    // Values relabelled as nimbers.
    let (dir2, _p, sub) = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.rtb");
        let AnyGame::Subtraction(g) = AnyGame::parse("subtraction:200:1,3,4").unwrap() else {
            panic!()
        };
        solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
        let b = std::fs::read(&path).unwrap();
        (dir, path, b)
    };
    let as_nimbers = reheader(&sub, |h| {
        h.cell_encoding = retrograde::TableKind::Nimber.id();
        h.summary.max_remoteness = [0; 3];
    });
    let path = dir2.path().join("nimbers.rtb");
    std::fs::write(&path, &as_nimbers).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    tb.verify().unwrap();
    let AnyGame::Subtraction(g) = tb.game() else {
        panic!()
    };
    assert!(rederive(g, &tb).unwrap().mismatches > 0);
}

#[test]
fn another_format_version_is_unsupported() {
    let (dir, _path, bytes) = solved_3x3();
    for v in [0, 2, u32::MAX] {
        let bad = reheader(&bytes, |h| h.version = v);
        let e = both_refuse(dir.path(), &format!("v{v}.rtb"), &bad);
        assert!(
            matches!(e, Error::UnsupportedVersion { found, supported: 1 } if found == v),
            "{e}"
        );
    }
}

#[test]
fn an_empty_file_a_directory_and_a_missing_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.rtb");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(refused(Tablebase::open(&empty)), Error::Empty));
    assert!(matches!(
        refused(Tablebase::from_bytes(&b""[..])),
        Error::Empty
    ));
    assert!(matches!(
        refused(Tablebase::open(dir.path())),
        Error::IsDirectory
    ));
    let e = refused(Tablebase::open(dir.path().join("missing.rtb")));
    assert!(
        matches!(&e, Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound),
        "{e}"
    );
    // Not a tablebase at all.
    let e = both_refuse(
        dir.path(),
        "text.rtb",
        b"isolation:4x4\n0.../..../..../...1\n",
    );
    assert!(matches!(e, Error::BadMagic), "{e}");
}

#[test]
fn impossible_header_fields_are_corrupt_headers() {
    let (dir, _path, bytes) = solved_3x3();
    type Edit = Box<dyn Fn(&mut Header)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("unknown flags", Box::new(|h| h.flags = 2)),
        ("unknown high flag", Box::new(|h| h.flags = 1 << 31)),
        ("cell width 3", Box::new(|h| h.cell_width = 3)),
        ("cell width 0", Box::new(|h| h.cell_width = 0)),
        ("cell encoding 0", Box::new(|h| h.cell_encoding = 0)),
        ("cell encoding 9", Box::new(|h| h.cell_encoding = 9)),
        ("counts", Box::new(|h| h.summary.counts[0] += 1)),
        ("non-positions", Box::new(|h| h.summary.non_positions -= 1)),
        ("offset off a page", Box::new(|h| h.data_offset -= 8)),
        (
            "entries overflow",
            Box::new(|h| {
                h.entries = u64::MAX / 2 + 1;
                h.cell_width = 2;
            }),
        ),
        (
            "a spec that is no game",
            Box::new(|h| h.spec = "x".repeat(10)),
        ),
    ];
    for (what, edit) in cases {
        let bad = reheader(&bytes, edit);
        let e = both_refuse(dir.path(), what, &bad);
        assert!(matches!(e, Error::CorruptHeader(_)), "{what}: {e}");
    }
    // A string that is not UTF-8 (written by hand: `encode` takes a String).
    let mut bad = bytes.clone();
    let at = 104 + 2; // the spec's first byte
    bad[at] = 0xff;
    bad[16..20].fill(0);
    let crc = crc32fast::hash(&bad[..header_len(&bytes)]);
    bad[16..20].copy_from_slice(&crc.to_le_bytes());
    let e = both_refuse(dir.path(), "utf8.rtb", &bad);
    assert!(
        matches!(&e, Error::CorruptHeader(m) if m.contains("UTF-8")),
        "{e}"
    );
    // A data offset that moves the data: the length no longer matches.
    let mut bad = reheader(&bytes, |h| h.data_offset += PAGE);
    bad.drain(PAGE as usize..2 * PAGE as usize);
    assert_eq!(bad.len(), bytes.len());
    let e = both_refuse(dir.path(), "offset.rtb", &bad);
    let full = bytes.len() as u64;
    assert!(
        matches!(e, Error::WrongLength { expected, found } if expected == full + PAGE && found == full),
        "{e}"
    );
}

#[test]
fn headers_that_name_another_index_are_game_mismatches() {
    let (dir, _path, bytes) = solved_3x3();
    // Another index scheme version.
    let bad = reheader(&bytes, |h| h.index_scheme += 1);
    let e = both_refuse(dir.path(), "scheme.rtb", &bad);
    assert!(
        matches!(&e, Error::GameMismatch { reason, .. } if reason.contains("scheme")),
        "{e}"
    );
    // Marked symmetry-folded: the folded index has fewer entries.
    let bad = reheader(&bytes, |h| h.flags = retrograde::format::FLAG_FOLDED);
    let e = both_refuse(dir.path(), "folded.rtb", &bad);
    assert!(matches!(e, Error::GameMismatch { .. }), "{e}");
    // Marked folded, for a game that has no folding.
    let dir2 = tempfile::tempdir().unwrap();
    let path = dir2.path().join("d.rtb");
    let AnyGame::Digits(g) = AnyGame::parse("digits:100").unwrap() else {
        panic!()
    };
    solve_to_file(&g, &path, &SolveOptions::default(), &NoProgress).unwrap();
    let digits = std::fs::read(&path).unwrap();
    let bad = reheader(&digits, |h| h.flags = retrograde::format::FLAG_FOLDED);
    let e = both_refuse(dir2.path(), "digits-folded.rtb", &bad);
    assert!(
        matches!(&e, Error::GameMismatch { reason, .. } if reason.contains("folded")),
        "{e}"
    );
}

/// A header whose spec names a pattern *file* (`pattern:PATH`) makes the
/// reader open that path while parsing the spec, before it finds the spec
/// is not canonical: opening a tablebase can read any file the process can
/// (a FIFO or `/dev/stdin` blocks forever, `/dev/zero` reads 4 MiB). The
/// canonical pattern spec is inline, so the reader should refuse a path
/// without touching the filesystem.
#[test]

fn a_header_naming_a_pattern_file_is_refused_without_reading_it() {
    let (dir, _path, bytes) = solved_3x3();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let bad = reheader(&bytes, |h| h.spec = format!("pattern:{}", fifo.display()));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = Tablebase::from_bytes(bad.as_slice()).map(|_| ());
        let _ = tx.send(r.map_err(|e| e.to_string()));
    });
    let r = rx
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("opening the file blocked on the FIFO its header names");
    assert!(r.is_err());
}

/// `Tablebase::probe(game, position)` must refuse a game with other rules and
/// the same index (the misère variant, other start squares, a folded index
/// of another file) rather than answer with this table's values.
#[test]
fn probing_with_a_game_of_other_rules_but_the_same_size_is_refused() {
    let (_dir, path, _bytes) = solved_3x3();
    let tb = Tablebase::open(&path).unwrap();
    let misere = iso("isolation:3x3:misere");
    assert_eq!(misere.size(), tb.len());
    let over = misere.parse_position("x0x/xxx/x1x").unwrap();
    // The misère rules say the player to move wins; the file says loses.
    assert_eq!(misere.primitive(&over), Some(Value::Win));
    let r = tb.probe(&misere, &over);
    assert!(
        matches!(r, Err(Error::GameMismatch { .. })),
        "answered {r:?} for another game"
    );
}
