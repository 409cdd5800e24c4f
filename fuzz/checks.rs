// The checks shared by the fuzz targets (fuzz/fuzz_targets/*.rs) and by the
// corpus replay test of the main crate (tests/files/fuzz_corpus.rs), which both
// `include!` this file inside a module. Each check takes arbitrary input and
// panics only when the library misbehaves: a panic inside the library, an
// answer that contradicts itself, or an error that is not one line.
//
// Only the reader's API is used (no `solve` feature), so the fuzz crate can
// depend on `retrograde` with `default-features = false`.

use retrograde::games::{AnyGame, PatternGame, GAMES};
use retrograde::{Game, Header, Tablebase};
use std::sync::OnceLock;

/// Errors are one-line messages (the CLI prints them as `error: ...`) when
/// the input is one line: messages quote the input, so a line break in the
/// input may show in the message.
fn one_line(input: &[u8], e: &impl std::fmt::Display) {
    let text = e.to_string();
    if !input.contains(&b'\n') {
        assert!(!text.contains('\n'), "error message spans lines: {text:?}");
    }
}

/// Whether `AnyGame::parse(spec)` would read a file: a `pattern:` spec that
/// is not the inline form `NAME:squares=..:lines=..` names a pattern file
/// (the same test as `PatternGame::from_params`). Fuzzing must not open
/// arbitrary paths (`pattern:/dev/stdin` would wait for input forever), so
/// such specs are skipped. See fuzz/README.md: the reader has the same
/// problem with a header whose spec names a path.
pub fn names_a_file(spec: &str) -> bool {
    let spec = spec.trim();
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    if !name.eq_ignore_ascii_case("pattern") {
        return false;
    }
    let params = params.trim();
    let fields: Vec<&str> = params.split(':').collect();
    let inline = fields.len() > 1
        && fields[1..].iter().all(|f| {
            ["squares=", "rows=", "lines="]
                .iter()
                .any(|k| f.trim_start().starts_with(k))
        });
    !params.is_empty() && !inline
}

/// The file length a header's fields imply (wrapping: any number will do),
/// so that truncated corpus files of real tablebases reach the checks after
/// the length check.
fn implied_len(bytes: &[u8]) -> Option<u64> {
    let u64_at = |at: usize| {
        bytes
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    };
    let offset = u64_at(24)?;
    let entries = u64_at(32)?;
    let width = u64::from(*bytes.get(40)?);
    Some(entries.wrapping_mul(width).wrapping_add(offset))
}

/// `Header::decode` on arbitrary bytes with several file lengths, and
/// `Tablebase::from_bytes` on the bytes as a whole file.
pub fn check_header(data: &[u8]) {
    let mut lens = vec![0, 1, data.len() as u64, u64::MAX];
    lens.extend(implied_len(data));
    for file_len in lens {
        match Header::decode(data, file_len) {
            Ok(h) => {
                assert_eq!(h.file_len(), file_len);
                assert_eq!(h.data_offset % retrograde::internal::format::PAGE, 0);
                assert!(h.data_offset >= h.encoded_len() as u64);
                assert!(matches!(h.cell_width, 1 | 2 | 4));
                // Re-encoding gives a header that decodes to the same thing.
                let again = Header::decode(&h.encode(), file_len).expect("re-encoded header");
                assert_eq!(again, h);
            }
            // A header's strings are quoted in errors.
            Err(e) => one_line(data, &e),
        }
    }
    check_image(data);
}

/// `Tablebase::from_bytes` on a whole file image; when it opens, every cell
/// is read and decoded, and the data checksum is checked.
pub fn check_image(data: &[u8]) {
    if let Ok(h) = Header::decode(data, data.len() as u64) {
        if names_a_file(&h.spec) {
            return;
        }
    }
    match Tablebase::from_bytes(data) {
        Ok(tb) => {
            assert_eq!(tb.game().size(), tb.len());
            assert_eq!(
                tb.data().len() as u64,
                tb.len() * u64::from(tb.codec().width())
            );
            for i in 0..tb.len() {
                tb.cell(i).expect("an index below len() has a cell");
                tb.probe_index(i).expect("an index below len() probes");
                tb.nimber_index(i).expect("an index below len() probes");
            }
            assert!(tb.cell(tb.len()).is_err());
            if let Err(e) = tb.verify() {
                assert!(matches!(e, retrograde::Error::DataChecksum { .. }), "{e}");
            }
        }
        Err(e) => one_line(data, &e),
    }
}

/// `AnyGame::parse` on arbitrary text; a game that parses has a canonical
/// spec that parses back to the same game.
pub fn check_spec(spec: &str) {
    if names_a_file(spec) {
        return;
    }
    match AnyGame::parse(spec) {
        Ok(g) => check_game(&g),
        Err(e) => one_line(spec.as_bytes(), &e),
    }
}

/// What every parsed game must satisfy: canonical spec round trip, a
/// non-empty index, and a start position inside it that formats and parses
/// back.
pub fn check_game(g: &AnyGame) {
    let spec = g.spec();
    let again = AnyGame::parse(&spec).unwrap_or_else(|e| panic!("canonical spec {spec}: {e}"));
    assert_eq!(&again, g, "{spec}");
    assert_eq!(again.spec(), spec);
    assert!(g.size() > 0, "{spec}");
    assert!(!g.file_stem().is_empty());
    if let AnyGame::Isolation(i) = g {
        // The board the spec names is the board the game has.
        let squares = u64::from(i.rows()) * u64::from(i.cols());
        assert!(squares <= 30, "{spec}: {squares} squares");
        assert!(i.start_squares().iter().all(|&s| u64::from(s) < squares));
    }
    retrograde::with_game!(g, x => {
        let start = x.start();
        assert!(x.encode(&start) < x.size(), "{spec}: start outside the index");
        check_position_of(x, &x.format_position(&start));
    });
    if let Ok(f) = g.folded() {
        assert!(f.is_folded());
        assert!(f.size() <= g.size());
        retrograde::with_game!(&f, x => {
            let start = x.start();
            assert!(x.encode(&start) < x.size(), "{spec}: folded start outside");
        });
    }
}

/// Small instances of every registered game, plus variants, for the position
/// fuzzer. Pattern games are built from the shipped pattern files' text.
pub fn position_games() -> &'static [AnyGame] {
    static GAMES_FOR_POSITIONS: OnceLock<Vec<AnyGame>> = OnceLock::new();
    GAMES_FOR_POSITIONS.get_or_init(|| {
        let mut v: Vec<AnyGame> = [
            "isolation:4x4",
            "isolation:2x3:a=0,b=5:misere",
            "isolation:5x5",
            "subtraction:100:1,3,4",
            "digits:100",
            "mnk:3x3x3",
            "mnk:2x5x2",
            "connect:4x4",
            "connect:5x4x3:misere",
            "cram:3x4",
            "cram:1x5:misere",
            "sogo:2",
            "sogo:3",
            "dodgem:3",
            "dodgem:4",
        ]
        .iter()
        .map(|s| AnyGame::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")))
        .collect();
        v.push(AnyGame::parse("isolation:4x4").unwrap().folded().unwrap());
        for (text, name) in [
            (include_str!("../games/tictactoe.txt"), "tictactoe.txt"),
            (include_str!("../games/cube.txt"), "cube.txt"),
            (include_str!("../games/qango4.txt"), "qango4.txt"),
        ] {
            let g = PatternGame::from_text(text, name).unwrap_or_else(|e| panic!("{e}"));
            v.push(AnyGame::Pattern(g));
        }
        for info in GAMES {
            assert!(
                v.iter()
                    .any(|g| g.spec().starts_with(&format!("{}:", info.name))),
                "game {} is registered but the position fuzzer has no instance",
                info.name
            );
        }
        v
    })
}

/// `parse_position` on arbitrary text for every game of [`position_games`].
pub fn check_position(s: &str) {
    for g in position_games() {
        retrograde::with_game!(g, x => check_position_of(x, s));
    }
}

/// A position that parses lies inside the index, and formats to text that
/// parses back to it (and formats the same again).
pub fn check_position_of<G: Game>(g: &G, s: &str) {
    let p = match g.parse_position(s) {
        Ok(p) => p,
        Err(e) => return one_line(s.as_bytes(), &e),
    };
    let spec = g.spec();
    let index = g.encode(&p);
    assert!(index < g.size(), "{spec}: '{s}' encodes to {index}");
    let text = g.format_position(&p);
    let q = g
        .parse_position(&text)
        .unwrap_or_else(|e| panic!("{spec}: '{s}' formats as '{text}', which is refused: {e}"));
    assert_eq!(q, p, "{spec}: '{s}' -> '{text}'");
    assert_eq!(g.format_position(&q), text);
    if !g.is_folded() {
        // A plain index names one position: decoding gives it back (or
        // nothing, for a parsed position the index calls illegal).
        if let Some(d) = g.decode(index) {
            assert_eq!(d, p, "{spec}: '{s}' -> index {index} -> another position");
        }
    }
    // Moves stay inside the index too.
    if g.primitive(&p).is_none() {
        for (_, c) in g.moves(&p) {
            assert!(g.encode(&c) < g.size(), "{spec}: a child of '{s}'");
        }
    }
}

/// A pattern file's text (no file is read), and the same text as the
/// inline spec `pattern:TEXT` when it has that form.
pub fn check_pattern_file(text: &str) {
    match PatternGame::from_text(text, "fuzz") {
        Ok(g) => {
            let b = g.board();
            assert!(b.squares() >= 1 && b.squares() <= retrograde::games::pattern::MAX_SQUARES);
            assert!(!b.patterns().is_empty());
            assert!(b.patterns().len() <= retrograde::games::pattern::MAX_PATTERNS);
            assert_eq!(b.rows().iter().sum::<u32>(), b.squares());
            // Minimal and sorted: no pattern contains another.
            for (i, &p) in b.patterns().iter().enumerate() {
                for &q in &b.patterns()[i + 1..] {
                    assert!(p & q != p && p & q != q, "{p:b} and {q:b}");
                }
            }
            check_game(&AnyGame::Pattern(g));
        }
        // Errors name the line and quote at most a token of it: one line
        // whatever the text.
        Err(e) => one_line(b"", &e),
    }
    let spec = format!("pattern:{}", text.trim());
    if !names_a_file(&spec) {
        check_spec(&spec);
    }
}
