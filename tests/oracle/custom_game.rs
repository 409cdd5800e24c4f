//! The `Game` trait is pluggable: games defined here, outside the crate, are
//! solved by the unchanged generic solver and checked against tiny oracles.
//!
//! - `Subtraction`: one pile of chips, a move takes some number of chips from
//!   a subtraction set; the player who cannot move loses. With 200 chips and
//!   S = {1, 2} remoteness exceeds 63, so the solver needs two-byte cells.
//! - `Ties`: a pseudo-random acyclic game whose terminal positions are losses
//!   or ties, to check the tie remoteness rule.
#![cfg(feature = "solve")]

use retrograde::solve::{solve_in_memory, solve_into, NoProgress, SolveOptions, Solved};
use retrograde::{CellCodec, Error, Game, Outcome, TableKind, Value};

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
