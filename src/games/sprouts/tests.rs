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
                    // A region's surface stays after it; a non-orientable
                    // region's boundaries may each be walked either way.
                    let (region, surface) = match region.rsplit_once('~') {
                        Some((r, g)) => (r, format!("~{g}")),
                        None => (region, String::new()),
                    };
                    let cross = surface.starts_with("~-");
                    let mut bounds: Vec<String> = Vec::new();
                    for b in region.split('.') {
                        if let Some(x) = b.strip_prefix("0*") {
                            let x: usize = x.parse().unwrap();
                            bounds.extend(std::iter::repeat_n("0".to_string(), x));
                            continue;
                        }
                        let mut toks: Vec<char> = b.chars().map(rename).collect();
                        if mirror || (cross && rng.below(2) == 1) {
                            toks.reverse();
                        }
                        let k = rng.below(toks.len());
                        toks.rotate_left(k);
                        bounds.push(toks.into_iter().collect());
                    }
                    rng.shuffle(&mut bounds);
                    bounds.join(".") + &surface
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

/// Every land reachable from `n` spots (with the nimber memo).
fn lands_from(n: u32) -> Vec<Land> {
    let mut memo = std::collections::HashMap::new();
    nimber(&Position::spots(n).lands()[0], &mut memo);
    let mut lands: Vec<Land> = memo.keys().cloned().collect();
    lands.sort();
    lands
}

/// The children with the region's other boundaries shared out by shape
/// (polynomial) and every way (the former enumeration, 2^n for n
/// boundaries) are the same.
fn same_children_both_ways(land: &Land) {
    use super::rules::{land_children_shared, Share};
    let grouped = land_children_shared(land, Share::Grouped, &mut |_, _| false).unwrap();
    let each = land_children_shared(land, Share::Each, &mut |_, _| false).unwrap();
    assert_eq!(grouped, each, "{land}");
}

#[test]
fn boundaries_shared_by_shape_give_every_way_s_children() {
    // Every land from 4 spots, and the first moves of 5 and 6 (with their
    // children: regions of several boundaries, some of one shape).
    let mut lands = lands_from(4);
    for n in [5, 6] {
        for c in Position::spots(n).children() {
            for g in c.children() {
                lands.extend(g.lands().iter().cloned());
            }
        }
    }
    // Regions of many boundaries, of a few shapes, some linked to another
    // region by upper-case letters, some with 0s.
    let shapes = [
        "1x2x", "12", "1", "2", "11", "1x1x", "x2x12", "22", "1x2yxy",
    ];
    let mut rng = Rng(0xb0_4e_da_77);
    for _ in 0..300 {
        let mut letter = 0u8;
        let mut fresh = |s: &str| -> String {
            // The shape's own letters, named afresh.
            let (x, y) = ((b'a' + letter) as char, (b'a' + letter + 1) as char);
            letter += 2;
            s.replace('x', &x.to_string()).replace('y', &y.to_string())
        };
        let mut bounds: Vec<String> = (0..2 + rng.below(5))
            .map(|_| fresh(shapes[rng.below(shapes.len())]))
            .collect();
        for _ in 0..rng.below(3) {
            bounds.push("0".into());
        }
        let mut text = match rng.below(3) {
            0 => {
                bounds.push("A1B".into());
                format!("{}|0.AB", bounds.join("."))
            }
            1 => {
                bounds.push("A2".into());
                bounds.push("B".into());
                format!("{}|1AB", bounds.join("."))
            }
            _ => bounds.join("."),
        };
        if rng.below(4) == 0 {
            text.push_str("+0*2.1a2a");
        }
        lands.extend(p(&text).lands().iter().cloned());
    }
    lands.sort();
    lands.dedup();
    assert!(lands.len() > 500, "{} lands", lands.len());
    for land in &lands {
        same_children_both_ways(land);
    }
}

/// 40 boundaries of one shape (`1a2a.1b2b...`): every way was 2^39 per
/// move; by shape, 40 per move.
#[test]
fn forty_boundaries_of_one_shape_have_their_children_at_once() {
    let text: Vec<String> = (0..40)
        .map(|i| {
            let l = format!(
                "{}{}",
                (b'a' + i % 26) as char,
                "'".repeat(usize::from(i / 26))
            );
            format!("1{l}2{l}")
        })
        .collect();
    let q = p(&text.join("."));
    let t = std::time::Instant::now();
    let kids = q.children();
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    // Joining a boundary's `1` and `2` cuts the region: the two parts
    // `1a2a`-like pieces aside, k of the other 39 boundaries go inside, for
    // each k from 0 to 39: every one a child of its own.
    assert!(kids.len() >= 40, "{}", kids.len());
    let splits = kids
        .iter()
        .filter(|c| c.lands().len() == 1 && c.lands()[0].regions() == 2)
        .count();
    assert!(splits >= 40, "{splits} of {}", kids.len());
}

/// Child generation asks its caller every few hundred results whether to
/// go on, and gives up when told.
#[test]
fn child_generation_gives_up_when_asked() {
    let text: Vec<String> = (0..20).map(|k| format!("1{}", "2".repeat(k))).collect();
    let q = p(&text.join("."));
    let mut asked = 0;
    let t = std::time::Instant::now();
    let got = q.children_until(&mut |results, bytes| {
        asked += 1;
        assert!(results > 0 && bytes > 0);
        asked == 3
    });
    assert_eq!(got, None);
    assert_eq!(asked, 3);
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
}

#[test]
fn heaps_past_255_are_refused() {
    assert_eq!(p("*255").heap(), 255);
    assert_eq!(p("0+*200+*55").heap(), 200 ^ 55);
    for s in [
        "*256",
        "*4294967295",
        "1+*4000000000",
        "*99999999999999999999999",
    ] {
        let e = Position::parse(s).unwrap_err();
        assert!(e.contains("at most *255"), "{s}: {e}");
    }
    assert!(Position::try_new(Vec::new(), 256).is_err());
    assert_eq!(Position::try_new(Vec::new(), 3).unwrap(), p("*3"));
    // *255 has 255 children, the heaps below.
    assert_eq!(p("*255").children().len(), 255);
}

#[test]
fn a_letter_written_once_or_thrice_is_counted_in_words() {
    let e = Position::parse("0*3.a1").unwrap_err();
    assert!(e.contains("'a' is written once:"), "{e}");
    let e = Position::parse("1aaa").unwrap_err();
    assert!(e.contains("'a' is written 3 times:"), "{e}");
    let e = Position::parse("1A|2").unwrap_err();
    assert!(e.contains("'A' is written once:"), "{e}");
}

#[test]
fn surface_specs_are_read_and_refused_in_one_line() {
    let g = Sprouts::describe("5:genus=1").unwrap();
    assert_eq!((g.spots(), g.misere(), g.genus()), (5, false, 1));
    assert_eq!(g.spec(), "sprouts:5:genus=1");
    let g = Sprouts::describe("4:genus=-2:misere").unwrap();
    assert_eq!((g.misere(), g.genus()), (true, -2));
    assert_eq!(g.spec(), "sprouts:4:misere:genus=-2");
    // The plane is the default, written as before.
    assert_eq!(Sprouts::describe("6:genus=0").unwrap().spec(), "sprouts:6");
    for (bad, says) in [
        ("5:genus=abc", "genus=G with G a whole number"),
        ("5:genus=", "genus=G with G a whole number"),
        ("5:genus=65", "the genus must be from -64 to 64, not 65"),
        ("5:genus=-9999999999", "the genus must be from -64 to 64"),
        ("5:genus=1:genus=2", "'genus' is given twice"),
        ("5:genus=1:sideways", "unknown parameter"),
    ] {
        let e = Sprouts::describe(bad).unwrap_err();
        assert!(e.contains(says) && !e.contains('\n'), "{bad}: {e}");
    }
}

#[test]
fn surface_starts_and_texts() {
    let start = |n: &str| Sprouts::describe(n).unwrap().start().to_string();
    assert_eq!(start("3:genus=1"), "0*3~1");
    assert_eq!(start("2:genus=-2"), "0*2~-2");
    // One spot's region has three lives: no surface can matter.
    assert_eq!(start("1:genus=2"), "0");
    assert_eq!(show("0.0~-1"), "0*2~-1");
    // A spot on two boundaries of one region (a loop through a handle).
    assert_eq!(show("0.ab.ab~1"), show("0.ab.ba~1"));
    for (bad, says) in [
        ("0*2~0", "not 0"),
        ("0*2~x", "a region's surface is ~G"),
        ("0*2~99", "from -64 to 64"),
        ("~1", "a surface but no spot"),
    ] {
        let e = Position::parse(bad).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // Every text written reads back as itself, keys and all.
    for g in [1, 2, -1, -2] {
        let mut memo = std::collections::HashMap::new();
        let s = Sprouts::new(3, false).unwrap().on_surface(g).unwrap();
        nimber(&s.start().lands()[0], &mut memo);
        assert!(memo.len() > 20, "genus {g}: {} lands", memo.len());
        for land in memo.keys() {
            let again = Position::parse(&land.to_string()).unwrap();
            assert_eq!(again.lands(), std::slice::from_ref(land), "{land}");
            assert_eq!(Land::from_bytes(land.as_bytes()).as_ref(), Some(land));
        }
    }
}

/// Orientable surfaces' regions are written canonically whatever the
/// writing (lands from 3 spots on the torus and the double torus, each
/// rewritten 8 ways, boundaries rotated, reordered and mirrored with
/// their region); a non-orientable region's boundaries may each be turned
/// (its key may then differ on a tie, its value never).
#[test]
fn every_writing_of_a_surface_land_has_its_value() {
    let mut rng = Rng(0x5eed_0b1e);
    for g in [1, 2, -1, -2] {
        let mut memo = std::collections::HashMap::new();
        let s = Sprouts::new(3, false).unwrap().on_surface(g).unwrap();
        nimber(&s.start().lands()[0], &mut memo);
        let mut lands: Vec<Land> = memo.keys().cloned().collect();
        lands.sort();
        for land in &lands {
            let text = land.to_string();
            for _ in 0..8 {
                let other = rewrite(&text, &mut rng);
                let again = p(&other);
                if g > 0 {
                    assert_eq!(again.to_string(), text, "written {other}");
                } else {
                    let n = again
                        .lands()
                        .iter()
                        .fold(0, |a, l| a ^ nimber(l, &mut memo));
                    assert_eq!(n, memo[land], "{text} written {other} as {again}");
                }
            }
        }
    }
}
