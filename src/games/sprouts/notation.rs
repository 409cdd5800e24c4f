//! Glop's notation, read and written (the module doc of `super` describes
//! it). Reading checks that the text can be a position: each `0` alone in
//! its boundary, each upper-case letter once in each of two regions of its
//! land, each lower-case letter twice in one boundary; then the position is
//! reduced and written in canonical form.

use super::rules::reduce;
use super::working::{surface, Tok, WRegion, LETTER, T_ONE, T_TWO};
use super::{
    heap_too_large, Land, Position, BOUNDARY_END, LAND_END, LETTERS, MAX_HEAP, MAX_LETTERS, ONE,
    REGION_END, TWO, ZERO,
};
use crate::error::Error;

/// The longest text read: far past any position of a search (`0*80`'s
/// children are under 300 characters), it bounds the work a hostile
/// argument can ask for.
const MAX_TEXT: usize = 10_000;

/// Reads a position: lands separated by `+`, and heaps `*k` (their sizes
/// are nim-added).
pub(crate) fn parse_position(s: &str) -> Result<Position, String> {
    if s.is_empty() {
        return Err("empty position (the empty game is written *0)".into());
    }
    if s.len() > MAX_TEXT {
        return Err(format!(
            "a position of {} characters is too long (at most {MAX_TEXT})",
            s.len()
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_whitespace()) {
        return Err(format!(
            "a position has no spaces ({} found)",
            Error::quote(&c.to_string())
        ));
    }
    let mut lands = Vec::new();
    let mut heap = 0u32;
    for (i, term) in s.split('+').enumerate() {
        let no = i + 1;
        if term.is_empty() {
            return Err(format!(
                "land {no} is empty (a doubled, leading or trailing '+')"
            ));
        }
        if let Some(k) = term.strip_prefix('*') {
            if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
                // Checked before the value is read: any number of digits
                // is refused in one line, not as an overflow.
                let value = k.trim_start_matches('0');
                if value.len() > 3 || crate::games::parse_num::<u32>(k).unwrap_or(0) > MAX_HEAP {
                    return Err(heap_too_large(k));
                }
            }
            let k = crate::games::parse_num::<u32>(k).ok_or_else(|| {
                format!(
                    "a heap is '*' and a number, like *2, not {}",
                    Error::quote(term)
                )
            })?;
            heap ^= k;
            continue;
        }
        lands.extend(reduce(parse_land(term, no)?));
    }
    Position::try_new(lands, heap)
}

/// A letter as written: its case and its index (`a` 0, `z` 25, `a'` 26).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Name {
    upper: bool,
    index: usize,
}

impl Name {
    fn show(self) -> String {
        letter_text(self.upper, self.index)
    }
}

/// The text of the letter of `index` in its case: `a`..`z`, then `a'`..
fn letter_text(upper: bool, index: usize) -> String {
    let base = if upper { b'A' } else { b'a' };
    let mut s = String::new();
    s.push(char::from(base + (index % 26) as u8));
    for _ in 0..index / 26 {
        s.push('\'');
    }
    s
}

/// Where one letter of a land was written: (region, boundary) of each side.
struct Seen {
    name: Name,
    id: Tok,
    at: Vec<(usize, usize)>,
}

/// Reads land number `no`: its regions in the working form, letters as ids.
fn parse_land(text: &str, no: usize) -> Result<Vec<WRegion>, String> {
    let mut regions = Vec::new();
    let mut letters: Vec<Seen> = Vec::new();
    let mut half_lives = 0usize;
    for (ri, rtext) in text.split('|').enumerate() {
        if rtext.is_empty() {
            return Err(format!(
                "land {no}: region {} is empty (a doubled, leading or trailing '|')",
                ri + 1
            ));
        }
        let mut region = WRegion::default();
        let rtext = match rtext.rsplit_once('~') {
            Some((body, g)) => {
                region.surface =
                    parse_surface(g).map_err(|e| format!("land {no}, region {}: {e}", ri + 1))?;
                if body.is_empty() {
                    return Err(format!(
                        "land {no}: region {} has a surface but no spot",
                        ri + 1
                    ));
                }
                body
            }
            None => rtext,
        };
        for (bi, btext) in rtext.split('.').enumerate() {
            let at = || format!("land {no}, region {}, boundary {}", ri + 1, bi + 1);
            if btext.is_empty() {
                return Err(format!(
                    "{}: empty (a doubled, leading or trailing '.')",
                    at()
                ));
            }
            if btext == "0" {
                region.zeros += 1;
                half_lives += 6;
                continue;
            }
            if let Some(x) = btext.strip_prefix("0*") {
                let x = crate::games::parse_num::<usize>(x)
                    .filter(|x| (1..=MAX_TEXT).contains(x))
                    .ok_or_else(|| {
                        format!(
                            "{}: {} is not 0*x with x a number from 1 to {MAX_TEXT}",
                            at(),
                            Error::quote(btext)
                        )
                    })?;
                region.zeros += x as u32;
                half_lives += 6 * x;
                continue;
            }
            let mut bound: Vec<Tok> = Vec::new();
            let mut chars = btext.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '1' => {
                        bound.push(T_ONE);
                        half_lives += 4;
                    }
                    '2' => {
                        bound.push(T_TWO);
                        half_lives += 2;
                    }
                    '0' => {
                        return Err(format!(
                            "{}: a 0 (a spot with no curve) is a boundary of its own, as in 0.1a1a",
                            at()
                        ))
                    }
                    'a'..='z' | 'A'..='Z' => {
                        let mut primes = 0;
                        while chars.peek() == Some(&'\'') {
                            chars.next();
                            primes += 1;
                        }
                        let upper = c.is_ascii_uppercase();
                        let index = usize::from(c.to_ascii_lowercase() as u8 - b'a') + 26 * primes;
                        let name = Name { upper, index };
                        let k = match letters.iter().position(|s| s.name == name) {
                            Some(k) => k,
                            None => {
                                if letters.len() >= MAX_LETTERS {
                                    return Err(format!(
                                        "land {no} has more than {MAX_LETTERS} letters"
                                    ));
                                }
                                letters.push(Seen {
                                    name,
                                    id: LETTER + letters.len() as Tok,
                                    at: Vec::new(),
                                });
                                letters.len() - 1
                            }
                        };
                        letters[k].at.push((ri, bi));
                        bound.push(letters[k].id);
                        half_lives += 1;
                    }
                    '*' => {
                        return Err(format!(
                            "{}: '*' is read in 0*x (x spots) or a heap *k (a term of its own)",
                            at()
                        ))
                    }
                    _ => {
                        return Err(format!(
                            "{}: unexpected {} (a boundary is written with 0, 1, 2 and letters)",
                            at(),
                            Error::quote(&c.to_string())
                        ))
                    }
                }
            }
            region.bounds.push(bound);
        }
        regions.push(region);
    }
    for s in &letters {
        let name = Error::quote(&s.name.show());
        match (s.name.upper, s.at.as_slice()) {
            (true, [(r1, _), (r2, _)]) if r1 != r2 => {}
            (true, [_, _]) => {
                return Err(format!(
                    "land {no}: upper-case letter {name} is twice in one region (lower case is for that)"
                ))
            }
            (true, _) => {
                return Err(format!(
                    "land {no}: upper-case letter {name} is written {}: it is a spot on two regions, written once in each (a spot with one life written once is 2)",
                    times(s.at.len())
                ))
            }
            (false, [a, b]) if a == b => {}
            // On a surface a spot may lie on two boundaries of a region
            // (even one with no handle left: the annulus a torus cut
            // through its handle leaves).
            (false, [(r1, _), (r2, _)]) if r1 == r2 => {}
            (false, [_, _]) => {
                return Err(format!(
                    "land {no}: lower-case letter {name} is on two regions (upper case is for that)"
                ))
            }
            (false, _) => {
                return Err(format!(
                    "land {no}: lower-case letter {name} is written {}: it is a spot written twice in one boundary (a spot with one life written once is 2)",
                    times(s.at.len())
                ))
            }
        }
    }
    // A letter was counted once per side: one life for its two sides.
    if half_lives / 2 > MAX_LETTERS {
        return Err(format!(
            "land {no} has more than {MAX_LETTERS} lives (at most 80 spots' worth)"
        ));
    }
    Ok(regions)
}

/// A region's surface as written after `~`: Glop's topology number, `g`
/// handles or `-c` cross-caps (not 0: the plane is written without `~`).
fn parse_surface(g: &str) -> Result<u8, String> {
    let max = surface::MAX as i32;
    let bad = || {
        format!(
            "a region's surface is ~G, G from -{max} to {max} but not 0 (g handles, or -c cross-caps), not {}",
            Error::quote(&format!("~{g}"))
        )
    };
    let v: i32 = g.parse().map_err(|_| bad())?;
    if v == 0 || v.abs() > max {
        return Err(bad());
    }
    Ok(surface::of_genus(v))
}

/// How often, in words: "once", "twice", "3 times".
fn times(n: usize) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

/// Writes a land: regions separated by `|`, boundaries by `.`, a region's
/// `0`s first (`0*x` for two or more).
pub(crate) fn format_land(land: &Land) -> String {
    // Each region's surface, taken out of the bytes (a region's first
    // bytes: `BOUNDARY_END` and the code).
    let mut surfaces = Vec::new();
    let mut bytes = Vec::with_capacity(land.as_bytes().len());
    let mut start = true;
    let mut code = false;
    let mut here = 0u8;
    for &b in land.as_bytes() {
        if code {
            here = b;
            code = false;
            continue;
        }
        if start && b == BOUNDARY_END {
            code = true;
            start = false;
            continue;
        }
        start = b == REGION_END;
        if b == REGION_END {
            surfaces.push(here);
            here = 0;
        }
        bytes.push(b);
    }
    let bytes = &bytes[..];
    let mut written = 0;
    // Each letter's case: upper when its two sides are in two regions.
    let mut region_of = [usize::MAX; 256];
    let mut upper = [false; 256];
    let mut region = 0;
    for &b in bytes {
        match b {
            REGION_END => region += 1,
            b if (LETTERS..BOUNDARY_END).contains(&b) => {
                let i = usize::from(b);
                if region_of[i] == usize::MAX {
                    region_of[i] = region;
                } else if region_of[i] != region {
                    upper[i] = true;
                }
            }
            _ => {}
        }
    }
    // Names by first appearance, per case.
    let mut name: [Option<String>; 256] = std::array::from_fn(|_| None);
    let (mut lower_next, mut upper_next) = (0, 0);
    let mut out = String::new();
    let mut zeros = 0;
    let mut first = true;
    let flush = |out: &mut String, zeros: &mut usize, first: &mut bool| {
        if *zeros > 0 {
            if !*first {
                out.push('.');
            }
            if *zeros == 1 {
                out.push('0');
            } else {
                out.push_str(&format!("0*{zeros}"));
            }
            *zeros = 0;
            *first = false;
        }
    };
    let mut in_bound = false;
    for &b in bytes {
        match b {
            ZERO => {}
            BOUNDARY_END => {
                if in_bound {
                    in_bound = false;
                } else {
                    zeros += 1;
                }
            }
            REGION_END => {
                flush(&mut out, &mut zeros, &mut first);
                let surf = surfaces.get(written).copied().unwrap_or(0);
                if surf != 0 {
                    out.push_str(&format!("~{}", surface::genus(surf)));
                }
                written += 1;
                out.push('|');
                first = true;
            }
            LAND_END => {}
            _ => {
                if !in_bound {
                    flush(&mut out, &mut zeros, &mut first);
                    if !first {
                        out.push('.');
                    }
                    first = false;
                    in_bound = true;
                }
                match b {
                    ONE => out.push('1'),
                    TWO => out.push('2'),
                    _ => {
                        let i = usize::from(b);
                        let text = name[i].get_or_insert_with(|| {
                            let n = if upper[i] {
                                &mut upper_next
                            } else {
                                &mut lower_next
                            };
                            *n += 1;
                            letter_text(upper[i], *n - 1)
                        });
                        out.push_str(text);
                    }
                }
            }
        }
    }
    // The last region's '|' is not written.
    out.pop();
    out
}

/// Writes a position: its lands, then its heap as `*k` if there is one;
/// `*0` for the empty game.
pub(crate) fn format_position(p: &Position) -> String {
    let mut parts: Vec<String> = p.lands().iter().map(format_land).collect();
    if p.heap() > 0 || parts.is_empty() {
        parts.push(format!("*{}", p.heap()));
    }
    parts.join("+")
}
