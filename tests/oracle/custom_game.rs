//! The `Game` trait is pluggable: games defined here, outside the crate, are
//! solved by the unchanged generic solver and checked against tiny oracles.
//!
//! - `Subtraction`: one pile of chips, a move takes some number of chips from
//!   a subtraction set; the player who cannot move loses. With 200 chips and
//!   S = {1, 2} remoteness exceeds 63, so the solver needs two-byte cells.
//! - `Ties`: a pseudo-random acyclic game whose terminal positions are losses
//!   or ties, to check the tie remoteness rule.
//!
//! Their tables are also written to files and read back through the library
//! (`RawTable`, `bind`), and the games pass the conformance checks of
//! `retrograde::testing`.

use retrograde::raw::RawTable;
use retrograde::solve::{solve_in_memory, solve_into, NoProgress, SolveOptions, Solved};
use retrograde::{testing, CellCodec, Error, Game, Outcome, TableKind, Value};

use crate::common::cell;

/// One pile of up to `chips` chips; a move takes `k ∈ set` chips. Positions
/// are chip counts; index = chip count; tier = chip count.
#[derive(Clone)]
struct Subtraction {
    chips: u32,
    set: Vec<u32>,
    /// Deliberately broken tiering (one tier, largest pile first), to check
    /// the solver refuses rather than reads unsolved children.
    broken_tiers: bool,
}

impl Subtraction {
    fn new(chips: u32, set: &[u32]) -> Subtraction {
        Subtraction {
            chips,
            set: set.to_vec(),
            broken_tiers: false,
        }
    }
}

impl Game for Subtraction {
    type Position = u32;
    type Move = u32;

    fn spec(&self) -> String {
        let set: Vec<String> = self.set.iter().map(u32::to_string).collect();
        format!("subtraction:{}:{}", self.chips, set.join(","))
    }

    fn file_stem(&self) -> String {
        format!("subtraction-{}", self.chips)
    }

    fn index_scheme(&self) -> u16 {
        1
    }

    fn size(&self) -> u64 {
        u64::from(self.chips) + 1
    }

    fn encode(&self, p: &u32) -> u64 {
        u64::from(*p)
    }

    fn decode(&self, index: u64) -> Option<u32> {
        (index < self.size()).then_some(index as u32)
    }

    fn start(&self) -> u32 {
        self.chips
    }

    fn primitive(&self, p: &u32) -> Option<Value> {
        self.set.iter().all(|&k| k > *p).then_some(Value::Lose)
    }

    fn moves(&self, p: &u32) -> Vec<(u32, u32)> {
        self.set
            .iter()
            .filter(|&&k| k <= *p)
            .map(|&k| (k, p - k))
            .collect()
    }

    fn tier_count(&self) -> u32 {
        if self.broken_tiers {
            1
        } else {
            self.chips + 1
        }
    }

    fn tier(&self, p: &u32) -> u32 {
        if self.broken_tiers {
            0
        } else {
            *p
        }
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        1
    }

    fn for_each_in_unit(&self, tier: u32, _unit: u64, mut f: impl FnMut(u64, &u32)) {
        if self.broken_tiers {
            for p in (0..=self.chips).rev() {
                f(u64::from(p), &p);
            }
        } else {
            f(u64::from(tier), &tier);
        }
    }

    fn max_remoteness(&self) -> u32 {
        self.chips
    }

    /// Impartial under normal play: nimber tables are allowed.
    fn nimbers(&self) -> Result<(), String> {
        Ok(())
    }

    /// A mex never exceeds the number of moves.
    fn max_nimber(&self) -> u32 {
        self.set.len() as u32
    }

    fn player_to_move(&self, _p: &u32) -> Option<u8> {
        // Impartial: the position does not record who moves.
        None
    }

    fn parse_position(&self, s: &str) -> Result<u32, String> {
        let p: u32 = s.trim().parse().map_err(|e| format!("{e}"))?;
        if p > self.chips {
            return Err(format!("at most {} chips", self.chips));
        }
        Ok(p)
    }

    fn format_position(&self, p: &u32) -> String {
        p.to_string()
    }

    fn format_move(&self, m: &u32) -> String {
        format!("-{m}")
    }
}

/// Oracle for a subtraction game: value and remoteness of every pile size,
/// by the remoteness rules (REFERENCE.md): game over 0, win 1 + min among
/// losing children, lose 1 + max among children.
fn subtraction_oracle(chips: u32, set: &[u32]) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = Vec::new();
    for p in 0..=chips {
        let kids: Vec<Outcome> = set
            .iter()
            .filter(|&&k| k <= p)
            .map(|&k| out[(p - k) as usize])
            .collect();
        let o = if kids.is_empty() {
            Outcome::primitive(Value::Lose)
        } else if let Some(r) = kids
            .iter()
            .filter(|o| o.value == Value::Lose)
            .map(|o| o.remoteness.unwrap())
            .min()
        {
            Outcome {
                value: Value::Win,
                remoteness: Some(r + 1),
            }
        } else {
            let r = kids.iter().map(|o| o.remoteness.unwrap()).max().unwrap();
            Outcome {
                value: Value::Lose,
                remoteness: Some(r + 1),
            }
        };
        out.push(o);
    }
    out
}

fn check_subtraction(game: &Subtraction) -> CellCodec {
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(game, &SolveOptions::default()).expect("solve");
    let want = subtraction_oracle(game.chips, &game.set);
    for p in 0..=game.chips {
        assert_eq!(
            codec.decode(cell(&data, codec, u64::from(p))),
            Some(want[p as usize]),
            "{} at {p} chips",
            game.spec()
        );
    }
    let wins = want.iter().filter(|o| o.value == Value::Win).count() as u64;
    let losses = want.iter().filter(|o| o.value == Value::Lose).count() as u64;
    assert_eq!(summary.counts, [wins, losses, 0, 0]);
    assert_eq!(summary.non_positions, 0);
    codec
}

#[test]
fn chain_of_200_needs_two_byte_cells() {
    let g = Subtraction::new(200, &[1, 2]);
    let codec = check_subtraction(&g);
    assert!(g.max_remoteness() > 63);
    assert_eq!(codec.width(), 2, "remoteness bound > 63 needs two bytes");
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    let start = codec.decode(cell(&data, codec, 200)).unwrap();
    assert!(
        start.remoteness.unwrap() > 63,
        "the start's remoteness really exceeds one byte: {start}"
    );
    let max = summary.max_remoteness.iter().max().copied().unwrap();
    assert!(max > 63 && max <= g.max_remoteness());
    // Losing positions are the multiples of 3 (S = {1, 2}: n mod 3).
    for p in 0..=200u32 {
        let v = codec
            .decode(cell(&data, codec, u64::from(p)))
            .unwrap()
            .value;
        assert_eq!(v == Value::Lose, p % 3 == 0, "{p} chips");
    }
}

#[test]
fn one_byte_cells_overflow_instead_of_truncating() {
    let g = Subtraction::new(200, &[1, 2]);
    let mut data = vec![0u8; g.size() as usize];
    let r = solve_into(&g, &mut data, CellCodec::new(1), &NoProgress);
    match r {
        Err(Error::RemotenessOverflow {
            remoteness,
            width,
            max,
        }) => {
            assert_eq!(width, 1);
            assert_eq!(max, 63);
            assert!(remoteness > 63);
        }
        other => panic!("expected RemotenessOverflow, got {other:?}"),
    }
}

#[test]
fn short_chain_fits_one_byte() {
    let g = Subtraction::new(60, &[1, 2]);
    assert_eq!(check_subtraction(&g).width(), 1);
    let mut data = vec![0u8; g.size() as usize];
    solve_into(&g, &mut data, CellCodec::new(1), &NoProgress).expect("fits in one byte");
}

/// REFERENCE.md, take-away games (Ferguson, Game Theory I §1.4): with
/// S = {1, 3, 4}, the P-positions (losses for the mover) are exactly
/// n ≡ 0 or 2 (mod 7).
#[test]
fn subtraction_1_3_4_p_positions() {
    let g = Subtraction::new(100, &[1, 3, 4]);
    let codec = check_subtraction(&g);
    let Solved { cells: data, .. } = solve_in_memory(&g, &SolveOptions::default()).unwrap();
    for p in 0..=100u32 {
        let v = codec
            .decode(cell(&data, codec, u64::from(p)))
            .unwrap()
            .value;
        assert_eq!(v == Value::Lose, matches!(p % 7, 0 | 2), "{p} chips");
    }
}

/// REFERENCE.md, take-away games (Ferguson, Game Theory I §3.3): with
/// S = {1, 2, 3} the Sprague–Grundy value is n mod 4. The nimber table of a
/// game defined outside the crate, with an independent mex oracle.
#[test]
fn subtraction_1_2_3_nimbers() {
    let g = Subtraction::new(200, &[1, 2, 3]);
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &options).expect("solve");
    assert_eq!(codec.kind(), TableKind::Nimber);
    assert_eq!(codec.width(), 1);
    let mut grundy: Vec<u32> = Vec::new();
    for p in 0..=200u32 {
        let kids: Vec<u32> = g
            .moves(&p)
            .iter()
            .map(|&(_, c)| grundy[c as usize])
            .collect();
        let mex = (0..).find(|k| !kids.contains(k)).unwrap();
        grundy.push(mex);
        assert_eq!(mex, p % 4, "{p} chips");
        assert_eq!(
            codec.nimber(cell(&data, codec, u64::from(p))),
            Some(mex),
            "{p} chips"
        );
    }
    assert_eq!(summary.max_nimber, 3);
    assert_eq!(summary.counts, [150, 51, 0, 0]);
}

/// A game with ties is not impartial normal play: no nimber table.
#[test]
fn nimbers_refused_for_a_game_that_does_not_allow_them() {
    let g = Ties { size: 50 };
    let options = SolveOptions::with_kind(TableKind::Nimber);
    let r = solve_in_memory(&g, &options);
    assert!(
        matches!(r, Err(Error::NimbersUnsupported { .. })),
        "got {:?}",
        r.map(|s| (s.codec, s.summary))
    );
}

#[test]
fn badly_tiered_game_is_refused() {
    let mut g = Subtraction::new(20, &[1, 2]);
    g.broken_tiers = true;
    let r = solve_in_memory(&g, &SolveOptions::default());
    assert!(
        matches!(r, Err(Error::GameInvariant(_))),
        "children read before they are solved must be an error, got {r:?}"
    );
}

/// A pseudo-random acyclic game on positions `0..size`: each position moves
/// to a few smaller ones, or is terminal; a terminal position is a loss or a
/// tie for the player to move, chosen by a hash.
#[derive(Clone)]
struct Ties {
    size: u32,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64 finaliser.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Ties {
    fn children(&self, p: u32) -> Vec<u32> {
        let h = mix(u64::from(p));
        if p == 0 || h.is_multiple_of(6) {
            return Vec::new();
        }
        let mut kids: Vec<u32> = (1..=4u64)
            .filter(|k| (h >> (8 * k)) & 3 != 0)
            .map(|k| p - 1 - (mix(h ^ k) % u64::from(p.min(9))) as u32)
            .collect();
        if kids.is_empty() {
            kids.push(p - 1);
        }
        kids.sort_unstable();
        kids.dedup();
        kids
    }

    fn terminal_value(&self, p: u32) -> Value {
        if mix(u64::from(p) ^ 0xabcdef).is_multiple_of(3) {
            Value::Lose
        } else {
            Value::Tie
        }
    }
}

impl Game for Ties {
    type Position = u32;
    type Move = u32;

    fn spec(&self) -> String {
        format!("ties:{}", self.size)
    }

    fn file_stem(&self) -> String {
        format!("ties-{}", self.size)
    }

    fn index_scheme(&self) -> u16 {
        1
    }

    fn size(&self) -> u64 {
        u64::from(self.size)
    }

    fn encode(&self, p: &u32) -> u64 {
        u64::from(*p)
    }

    fn decode(&self, index: u64) -> Option<u32> {
        (index < self.size()).then_some(index as u32)
    }

    fn start(&self) -> u32 {
        self.size - 1
    }

    fn primitive(&self, p: &u32) -> Option<Value> {
        self.children(*p)
            .is_empty()
            .then(|| self.terminal_value(*p))
    }

    fn moves(&self, p: &u32) -> Vec<(u32, u32)> {
        self.children(*p).into_iter().map(|c| (c, c)).collect()
    }

    fn tier_count(&self) -> u32 {
        self.size
    }

    fn tier(&self, p: &u32) -> u32 {
        *p
    }

    fn tier_units(&self, _tier: u32) -> u64 {
        1
    }

    fn for_each_in_unit(&self, tier: u32, _unit: u64, mut f: impl FnMut(u64, &u32)) {
        f(u64::from(tier), &tier);
    }

    fn max_remoteness(&self) -> u32 {
        self.size
    }

    fn player_to_move(&self, _p: &u32) -> Option<u8> {
        None
    }

    fn parse_position(&self, s: &str) -> Result<u32, String> {
        s.trim().parse().map_err(|e| format!("{e}"))
    }

    fn format_position(&self, p: &u32) -> String {
        p.to_string()
    }

    fn format_move(&self, m: &u32) -> String {
        format!("to {m}")
    }
}

/// Oracle with ties: win = 1 + min remoteness among losing children; else
/// tie = 1 + min remoteness among tying children; else lose = 1 + max.
fn ties_oracle(g: &Ties) -> Vec<Outcome> {
    let mut out: Vec<Outcome> = Vec::new();
    for p in 0..g.size {
        let kids: Vec<Outcome> = g.children(p).iter().map(|&c| out[c as usize]).collect();
        let min_of = |v: Value| {
            kids.iter()
                .filter(|o| o.value == v)
                .map(|o| o.remoteness.unwrap())
                .min()
        };
        let o = if kids.is_empty() {
            Outcome::primitive(g.terminal_value(p))
        } else if let Some(r) = min_of(Value::Lose) {
            Outcome {
                value: Value::Win,
                remoteness: Some(r + 1),
            }
        } else if let Some(r) = min_of(Value::Tie) {
            Outcome {
                value: Value::Tie,
                remoteness: Some(r + 1),
            }
        } else {
            let r = kids.iter().map(|o| o.remoteness.unwrap()).max().unwrap();
            Outcome {
                value: Value::Lose,
                remoteness: Some(r + 1),
            }
        };
        out.push(o);
    }
    out
}

#[test]
fn ties_follow_the_tie_remoteness_rule() {
    let g = Ties { size: 400 };
    let want = ties_oracle(&g);
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(&g, &SolveOptions::default()).expect("solve");
    for p in 0..g.size {
        assert_eq!(
            codec.decode(cell(&data, codec, u64::from(p))),
            Some(want[p as usize]),
            "position {p} (children {:?})",
            g.children(p)
        );
    }
    let count = |v: Value| want.iter().filter(|o| o.value == v).count() as u64;
    assert_eq!(
        summary.counts,
        [count(Value::Win), count(Value::Lose), count(Value::Tie), 0]
    );
    // The game really exercises the rule: non-terminal ties, some reached
    // through long chains, some chosen although a winning child (a loss for
    // the mover) exists too, and terminal positions of both kinds.
    let non_terminal_tie =
        |p: u32| want[p as usize].value == Value::Tie && want[p as usize].remoteness > Some(0);
    assert!((0..g.size).filter(|&p| non_terminal_tie(p)).count() > 20);
    assert!(want
        .iter()
        .any(|o| o.value == Value::Tie && o.remoteness >= Some(3)));
    assert!((0..g.size).any(|p| {
        non_terminal_tie(p)
            && g.children(p)
                .iter()
                .any(|&c| want[c as usize].value == Value::Win)
            && g.children(p)
                .iter()
                .filter(|&&c| want[c as usize].value == Value::Tie)
                .count()
                >= 2
    }));
    assert!(count(Value::Win) > 20 && count(Value::Lose) > 20);
    assert!((0..g.size).any(|p| g.primitive(&p) == Some(Value::Tie)));
    assert!((0..g.size).any(|p| g.primitive(&p) == Some(Value::Lose)));
    // A tie with a losing child is impossible: a win is preferred.
    for p in 0..g.size {
        if want[p as usize].value == Value::Tie {
            assert!(g
                .children(p)
                .iter()
                .all(|&c| want[c as usize].value != Value::Lose));
        }
    }
}

/// A game that says it is `inner` but reports another index scheme or size:
/// what a program would bind by mistake after changing its index.
#[derive(Clone)]
struct Misreported {
    inner: Subtraction,
    size: u64,
    scheme: u16,
}

impl Game for Misreported {
    type Position = u32;
    type Move = u32;

    fn spec(&self) -> String {
        self.inner.spec()
    }
    fn file_stem(&self) -> String {
        self.inner.file_stem()
    }
    fn index_scheme(&self) -> u16 {
        self.scheme
    }
    fn size(&self) -> u64 {
        self.size
    }
    fn encode(&self, p: &u32) -> u64 {
        self.inner.encode(p)
    }
    fn decode(&self, index: u64) -> Option<u32> {
        self.inner.decode(index)
    }
    fn start(&self) -> u32 {
        self.inner.start()
    }
    fn primitive(&self, p: &u32) -> Option<Value> {
        self.inner.primitive(p)
    }
    fn moves(&self, p: &u32) -> Vec<(u32, u32)> {
        self.inner.moves(p)
    }
    fn tier_count(&self) -> u32 {
        self.inner.tier_count()
    }
    fn tier(&self, p: &u32) -> u32 {
        self.inner.tier(p)
    }
    fn max_remoteness(&self) -> u32 {
        self.inner.max_remoteness()
    }
    fn player_to_move(&self, p: &u32) -> Option<u8> {
        self.inner.player_to_move(p)
    }
    fn parse_position(&self, s: &str) -> Result<u32, String> {
        self.inner.parse_position(s)
    }
    fn format_position(&self, p: &u32) -> String {
        self.inner.format_position(p)
    }
    fn format_move(&self, m: &u32) -> String {
        self.inner.format_move(m)
    }
}

/// Solves `game` into a file in `dir` and returns its path.
fn solve_to_path<G: Game>(
    game: &G,
    options: &SolveOptions,
    dir: &std::path::Path,
) -> std::path::PathBuf {
    let path = dir.join(format!("{}.rtb", game.file_stem()));
    retrograde::solve::solve_to_file(game, &path, options, &NoProgress).expect("solve to file");
    path
}

/// A table solved from a game defined here, written to a file and read back
/// through the library's API (`RawTable`, then `bind`), entry by entry
/// against the cells the solver produced in memory.
fn read_back<G: Game<Position = u32>>(game: &G, kind: TableKind) {
    let options = SolveOptions::with_kind(kind);
    let Solved {
        cells: data,
        codec,
        summary,
    } = solve_in_memory(game, &options).expect("solve");
    let dir = tempfile::tempdir().unwrap();
    let path = solve_to_path(game, &options, dir.path());

    let raw = RawTable::open(&path).expect("open the custom table");
    raw.verify().expect("data CRC");
    assert_eq!(raw.header().spec, game.spec());
    assert_eq!(raw.header().index_scheme, game.index_scheme());
    assert_eq!(raw.header().summary, summary);
    assert_eq!(raw.codec(), codec);
    assert_eq!(raw.len(), game.size());
    assert!(!raw.is_folded());
    let bytes = std::fs::read(&path).unwrap();
    // The in-memory image is the file, byte for byte.
    let image = retrograde::solve::solve_to_bytes(game, &options).expect("solve to bytes");
    assert!(
        image == bytes,
        "{}: solve_to_bytes differs from the file",
        game.spec()
    );
    let in_memory = RawTable::from_bytes(&bytes[..]).expect("the same image in memory");
    // SAFETY: the test's own file; nothing modifies it while mapped.
    let mapped = unsafe { RawTable::open_mmap(&path) }.expect("mapped");
    assert_eq!(in_memory.data(), &data[..]);
    for i in 0..game.size() {
        let want = cell(&data, codec, i);
        assert_eq!(raw.cell(i).unwrap(), want, "{} cell {i}", game.spec());
        assert_eq!(in_memory.cell(i).unwrap(), want);
        assert_eq!(mapped.cell(i).unwrap(), want);
        assert_eq!(raw.outcome(i).unwrap(), codec.decode(want));
        assert_eq!(raw.nimber(i).unwrap(), codec.nimber(want));
    }
    assert!(matches!(
        raw.cell(game.size()),
        Err(Error::IndexOutOfRange { index, size }) if index == game.size() && size == game.size()
    ));

    let table = raw.bind(game.clone()).expect("the table's own game binds");
    for i in 0..game.size() {
        let Some(p) = game.decode(i) else { continue };
        let want = cell(&data, codec, i);
        match kind {
            TableKind::Value => {
                assert_eq!(Some(table.probe(&p).unwrap()), codec.decode(want))
            }
            TableKind::Nimber => assert_eq!(table.nimber(&p).unwrap(), codec.nimber(want)),
        }
    }
    if kind == TableKind::Value {
        // The ranked moves agree with the cells: the first is a best move.
        let start = game.start();
        let moves = table.moves(&start).unwrap();
        assert_eq!(moves.len(), game.moves(&start).len());
        let best = table
            .best_move(&start)
            .unwrap()
            .expect("the start has moves");
        assert_eq!(best, moves[0]);
        let outcome = table.probe(&start).unwrap();
        assert_eq!(best.for_mover().value, outcome.value);
        if let Some(r) = outcome.remoteness {
            assert_eq!(best.child.remoteness, Some(r - 1));
        }
    }
}

#[test]
fn custom_tables_read_back_through_the_library() {
    read_back(&Subtraction::new(200, &[1, 2]), TableKind::Value);
    read_back(&Subtraction::new(100, &[1, 2, 3]), TableKind::Nimber);
    read_back(&Ties { size: 400 }, TableKind::Value);
}

/// `Tablebase` knows only the built-in games; the raw layer reads any table.
#[test]
fn a_custom_game_needs_the_raw_layer() {
    let g = Ties { size: 50 };
    let dir = tempfile::tempdir().unwrap();
    let path = solve_to_path(&g, &SolveOptions::default(), dir.path());
    let e = retrograde::Tablebase::open(&path)
        .err()
        .expect("not a built-in game");
    assert!(matches!(e, Error::CorruptHeader(_)), "{e}");
    assert!(
        e.to_string().contains("game spec 'ties:50' is not usable"),
        "{e}"
    );
    let table = RawTable::open(&path).unwrap().bind(g.clone()).unwrap();
    assert_eq!(table.game().spec(), "ties:50");
    assert_eq!(table.raw().len(), 50);
}

/// A game that is not the table's is refused, whichever part differs: the
/// rules (spec), the index scheme or the number of positions.
#[test]
fn a_mismatching_game_is_refused() {
    let g = Subtraction::new(60, &[1, 2]);
    let dir = tempfile::tempdir().unwrap();
    let path = solve_to_path(&g, &SolveOptions::default(), dir.path());
    let refused = |r: retrograde::Result<()>, what: &str| match r {
        Err(Error::GameMismatch { spec, reason }) => {
            assert_eq!(spec, "subtraction:60:1,2");
            assert!(reason.contains(what), "{reason}");
        }
        other => panic!("expected GameMismatch naming {what}, got {other:?}"),
    };
    let raw = RawTable::open(&path).unwrap();
    refused(
        raw.check_game(&Subtraction::new(60, &[1, 3])),
        "subtraction:60:1,3",
    );
    refused(
        raw.check_game(&Subtraction::new(61, &[1, 2])),
        "subtraction:61:1,2",
    );
    let resized = Misreported {
        inner: g.clone(),
        size: 62,
        scheme: 1,
    };
    refused(raw.check_game(&resized), "62 positions");
    let rescheme = Misreported {
        inner: g.clone(),
        size: 61,
        scheme: 2,
    };
    refused(raw.check_game(&rescheme), "index scheme 2");
    let e = RawTable::open(&path)
        .unwrap()
        .bind(Ties { size: 61 })
        .err()
        .expect("another game");
    assert!(matches!(e, Error::GameMismatch { .. }));
    assert!(RawTable::open(&path).unwrap().bind(g).is_ok());
}

/// The conformance checks game authors run (feature `testing`) pass on the
/// games above, and catch a broken one with a message naming the fault.
#[test]
fn conformance_checks() {
    assert_eq!(testing::check_game(&Subtraction::new(60, &[1, 3, 4])), 61);
    assert_eq!(testing::check_game(&Ties { size: 300 }), 300);
    assert!(testing::check_moves(&Ties { size: 300 }) > 300);

    let mut broken = Subtraction::new(20, &[1, 2]);
    broken.broken_tiers = true;
    let panic = std::panic::catch_unwind(|| testing::check_game(&broken)).expect_err("caught");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("subtraction:20:1,2"), "{message}");
    assert!(message.contains("not below"), "{message}");
}
