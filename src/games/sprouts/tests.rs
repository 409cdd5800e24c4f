//! Unit tests of the notation, the moves and the canonical form.

use super::*;

fn p(s: &str) -> Position {
    Position::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn show(s: &str) -> String {
    p(s).to_string()
}

#[test]
fn start_positions_print_as_glop_does() {
    assert_eq!(Position::spots(1).to_string(), "0");
    assert_eq!(Position::spots(5).to_string(), "0*5");
    assert_eq!(show("0.0.0.0.0"), "0*5");
    assert_eq!(show("0*12"), "0*12");
}

#[test]
fn seed_examples_are_canonical_already() {
    for s in [
        "0*8.AB|0*3.AB",
        "0*4.A|0*4.A+0*3",
        "0*4.A|0*4.A+0*2.AB|AB",
        "0*4.A|0*4.A+0.1a2a",
    ] {
        assert_eq!(show(s), s);
    }
}

#[test]
fn children_of_one_spot() {
    let kids: Vec<String> = p("0").children().iter().map(|c| c.to_string()).collect();
    assert_eq!(kids, ["AB|AB"]);
}

fn nimber(l: &Land, memo: &mut std::collections::HashMap<Land, u32>) -> u32 {
    if let Some(&n) = memo.get(l) {
        return n;
    }
    let mut seen: Vec<u32> = l
        .children()
        .iter()
        .map(|c| c.iter().fold(0, |a, x| a ^ nimber(x, memo)))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let mut m = 0;
    while seen.binary_search(&m).is_ok() {
        m += 1;
    }
    memo.insert(l.clone(), m);
    m
}

/// xorshift64: seeded samples without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Another writing of the same position: lands and regions in another
/// order, some regions mirrored, boundaries in another order and rotated,
/// `0*x` spelled out, letters renamed (within their case).
fn rewrite(text: &str, rng: &mut Rng) -> String {
    let mut lands: Vec<String> = text
        .split('+')
        .map(|land| {
            // Letters of the land, renamed by a random permutation per case.
            let mut letters: Vec<char> = land.chars().filter(|c| c.is_ascii_alphabetic()).collect();
            letters.sort_unstable();
            letters.dedup();
            let (mut lower, mut upper): (Vec<char>, Vec<char>) = ('a'..='z').zip('A'..='Z').unzip();
            rng.shuffle(&mut lower);
            rng.shuffle(&mut upper);
            let rename = |c: char| -> char {
                if c.is_ascii_lowercase() {
                    lower[(c as u8 - b'a') as usize]
                } else if c.is_ascii_uppercase() {
                    upper[(c as u8 - b'A') as usize]
                } else {
                    c
                }
            };
            let mut regions: Vec<String> = land
                .split('|')
                .map(|region| {
                    let mirror = rng.below(2) == 1;
                    let mut bounds: Vec<String> = Vec::new();
                    for b in region.split('.') {
                        if let Some(x) = b.strip_prefix("0*") {
                            let x: usize = x.parse().unwrap();
                            bounds.extend(std::iter::repeat_n("0".to_string(), x));
                            continue;
                        }
                        let mut toks: Vec<char> = b.chars().map(rename).collect();
                        if mirror {
                            toks.reverse();
                        }
                        let k = rng.below(toks.len());
                        toks.rotate_left(k);
                        bounds.push(toks.into_iter().collect());
                    }
                    rng.shuffle(&mut bounds);
                    bounds.join(".")
                })
                .collect();
            rng.shuffle(&mut regions);
            regions.join("|")
        })
        .collect();
    rng.shuffle(&mut lands);
    lands.join("+")
}

#[test]
fn every_writing_of_a_position_has_one_canonical_form() {
    every_writing_of_lands_from(4);
}

/// The lands reachable from 5 spots (13,342 of them; run with `cargo test
/// --release -p retrograde --lib sprouts -- --ignored`).
#[test]
#[ignore = "seconds: every land reachable from 5 spots"]
fn every_writing_of_a_position_from_five_spots_has_one_canonical_form() {
    every_writing_of_lands_from(5);
}

/// Every land reachable from `n` spots, each written 8 other ways (seeded),
/// reads back as itself.
fn every_writing_of_lands_from(n: u32) {
    let mut rng = Rng(0x5eed_5eed);
    let mut memo = std::collections::HashMap::new();
    nimber(&Position::spots(n).lands()[0], &mut memo);
    let mut lands: Vec<Land> = memo.keys().cloned().collect();
    lands.sort();
    let mut bad = Vec::new();
    for land in &lands {
        let text = land.to_string();
        for _ in 0..8 {
            let other = rewrite(&text, &mut rng);
            let again = show(&other);
            if again != text {
                bad.push(format!("{text} written {other} reads back as {again}"));
                break;
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} lands: {:#?}",
        bad.len(),
        lands.len(),
        &bad[..bad.len().min(10)]
    );
}
