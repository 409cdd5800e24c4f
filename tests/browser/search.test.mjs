// Games with no table in the explorer (`retrograde serve --search SPEC`), as a
// person uses them in headless Chromium: Connect-Four 7×6 drawn as its table
// games are, every column's value in on a mid-game position within the
// request's budget, a column clicked and the next position's values shown;
// the empty board left computing while the page stays usable; Sprouts saying
// what its search did. Every expectation is read from the JSON API, which
// tests/serve/ checks against `retrograde search`.
//
//   RETROGRADE_BIN=target/release/retrograde node --test tests/browser/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BIN = path.resolve(process.env.RETROGRADE_BIN || 'target/release/retrograde');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// No tablebases/ here: `serve --search` needs none.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrograde-search-browser-'));
const shots = process.env.SCREENSHOT_DIR || dir;

// 13 discs, columns x o x o ...: moves that win, tie and lose, all proven in
// under a second of search on a loaded 2-core machine (the budget is 2 s).
const MIDGAME = '7214174457716';
const C4 = 'connect-7x6x4';

const servers = [];
let browser;
let page;
const pageErrors = [];

async function serve(...args) {
  const server = spawn(BIN, ['serve', ...args, '--addr', '127.0.0.1:0'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  servers.push(server);
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/\S+/);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`retrograde serve exited with ${code}`)));
  });
}

let base;
let sprouts;
let sogo;
let tictactoe;

before(async () => {
  base = await serve('--search', 'connect:7x6');
  sprouts = await serve('--search', 'sprouts:7', '--search-nodes', '1', '--search-jobs', '0');
  sogo = await serve('--search', 'sogo:4');
  tictactoe = await serve('--search', 'tictactoe');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
  assert.deepEqual(pageErrors, [], 'the page threw');
});

async function api(url, p) {
  const r = await fetch(new URL(p, url));
  assert.equal(r.status, 200, p);
  return r.json();
}

const MOVES_SHOWN = '[data-testid=move-list] li:not(.loading-row)';
const value = () => page.locator('[data-testid=value]').textContent();
const positionText = () => page.locator('[data-testid=position]').inputValue();

async function until(check, what, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The values the move list shows, by move.
async function listed() {
  const items = page.locator(MOVES_SHOWN);
  const out = {};
  for (let i = 0; i < (await items.count()); i++) {
    const li = items.nth(i);
    out[await li.getAttribute('data-move')] = await li.getAttribute('data-value');
  }
  return out;
}

// Each move's value on the board: the marker of the cell its disc lands in.
async function markers(d) {
  const out = {};
  for (const m of d.moves) {
    out[m.move] = await page.locator(`#board [data-target="${m.steps[0]}"]`).getAttribute('data-value');
  }
  return out;
}

const cap = (s) => s[0].toUpperCase() + s.slice(1);

// The text of each move's badge in the list, by move.
async function badgeTexts() {
  const items = page.locator(MOVES_SHOWN);
  const out = {};
  for (let i = 0; i < (await items.count()); i++) {
    const li = items.nth(i);
    out[await li.getAttribute('data-move')] = await li.locator('.badge').textContent();
  }
  return out;
}

const byMove = (d) => Object.fromEntries(d.moves.map((m) => [m.move, m.value]));

async function screenshot(name) {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

test('Connect-Four 7x6 by search: every column of a mid-game position within the budget, then a column clicked', async () => {
  const t0 = Date.now();
  await page.goto(new URL(`/?table=${C4}&position=${MIDGAME}`, base).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
  const first = await listed();
  const took = (Date.now() - t0) / 1000;
  console.log(`mid-game ${MIDGAME}: every column shown in ${took.toFixed(2)} s`);
  // The first answer, before any job: every column proven by the request's own search.
  assert.equal(Object.keys(first).length, 7);
  assert.ok(Object.values(first).every((v) => v !== 'unknown'), JSON.stringify(first));
  // The server remembers it: the API answers the same at once.
  const d = await api(base, `/api/tables/${C4}/position?p=${MIDGAME}`);
  assert.equal(d.search.proven, true);
  assert.deepEqual(first, byMove(d));
  assert.ok(new Set(Object.values(first)).size >= 2, 'moves of different values');
  // Drawn as the table games' boards are: 42 holes, 13 discs, one marker per column.
  assert.equal(d.board.cells.length, 42);
  assert.equal(await page.locator('#board [data-cell]').count(), 42);
  assert.equal(await page.locator('#board [data-state=p0], #board [data-state=p1]').count(), 13);
  assert.deepEqual(await markers(d), byMove(d));
  // No table's counts are spoken of.
  assert.match(await page.locator('[data-testid=about-note]').textContent(), /^No table: each position is searched/);
  // Pons' scores, on the board's markers of the best move through each cell.
  for (const m of d.moves) {
    assert.ok(Number.isInteger(m.score), JSON.stringify(m));
    const text = await page.locator(`#board [data-target="${m.steps[0]}"]`).getAttribute('data-text');
    assert.equal(text, m.score > 0 ? `+${m.score}` : String(m.score));
  }
  assert.ok(d.moves.filter((m) => m.best).every((m) => m.score === d.moves[0].score));
  // The distances the scores give, as the tables say them: the position's, and each move's badge.
  assert.ok(Number.isInteger(d.remoteness), JSON.stringify(d));
  assert.equal(await value(), `${cap(d.value)} in ${d.remoteness}`);
  const badges = await badgeTexts();
  for (const m of d.moves) {
    assert.ok(Number.isInteger(m.remoteness), JSON.stringify(m));
    assert.equal(badges[m.move], `${cap(m.value)} in ${m.remoteness} (score ${m.score > 0 ? '+' : ''}${m.score})`);
  }
  await screenshot('connect-7x6-midgame');

  // A column clicked: the next position, and its columns' values.
  const best = d.moves.find((m) => m.best);
  await page.locator(`#board [data-target="${best.steps[0]}"]`).click();
  await until(async () => (await positionText()) === best.position, 'the next position');
  await until(
    async () => Object.values(await listed()).every((v) => v !== 'unknown'),
    "the next position's values",
  );
  const next = await api(base, `/api/tables/${C4}/position?p=${encodeURIComponent(best.position)}`);
  assert.deepEqual(await listed(), byMove(next));
  assert.deepEqual(await markers(next), byMove(next));
  // The mover's best move wins or ties: the opponent's moves do not win then.
  assert.ok(next.moves.every((m) => m.value !== 'win') || best.value !== 'win');
  assert.equal(await page.locator('#board [data-state=p0], #board [data-state=p1]').count(), 14);
});

test('Connect-Four 7x6 by search: the empty board is left computing, and the page stays usable', async () => {
  await page.goto(new URL(`/?table=${C4}`, base).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
  const status = page.locator('[data-testid=search-status]');
  // Not settled in 2 s: the server computes on, and the page says so.
  await until(async () => /^Computing on: /.test(await status.textContent()), 'the job shown');
  assert.match(await value(), /^Not proven within the budget: computing on$|^Win$/);
  const jobs = await api(base, `/api/tables/${C4}/jobs`);
  assert.ok(jobs.jobs.some((j) => j.position === '......./......./......./......./......./.......'), JSON.stringify(jobs));
  // The page asks again while it is shown: the job's counters grow.
  const before = await status.textContent();
  await until(async () => (await status.textContent()) !== before, 'the job counters refreshed', 5_000);
  // Still usable: a column played at once.
  await page.locator('#board [data-target="38"]').click();
  await until(async () => (await positionText()) !== '......./......./......./......./......./.......', 'a move played');
  assert.equal(await page.locator('#board [data-state=p0]').count(), 1);
  await page.locator(MOVES_SHOWN).first().waitFor();
  await screenshot('connect-7x6-empty-computing');
});

test('Sprouts by search: the page says what the search did, not "Unknown"', async () => {
  await page.goto(new URL('/?table=sprouts-7', sprouts).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
  assert.equal(await value(), 'Not proven within the budget');
  assert.match(
    await page.locator('[data-testid=search-status]').textContent(),
    /^Not proven within the budget \(\d+\.\d s, 1 node\)$/,
  );
  const badges = await page.locator('[data-testid=move-list] .badge').allTextContents();
  assert.ok(badges.length > 0 && badges.every((b) => b === 'Not proven'), badges.join());
  assert.equal(await page.locator('[data-testid=turn]').textContent().then((t) => t.includes('Loading')), false);
});

// A Sogo 4x4x4 position late in the game (44 pieces, no line yet), whose 16 columns' values the
// request's own search proves: the cube drawn as four layers side by side, a marker on each
// playable column's landing cell, a column clicked and its piece seen landing.
const SOGO_LATE = 'c3a4a2d1b3a2d2a1d1c2a4a2c3a2d1c4b3a3b1c3c1b3c1a1b4d3c1c2d3c4d3b4d4c1a4a3a1d2c2b1b3d1d4b4';

test('Sogo 4x4x4 by search: four layers drawn, each column marked, a column clicked', async () => {
  await page.goto(new URL(`/?table=sogo-4&position=${SOGO_LATE}`, sogo).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
  const d = await api(sogo, `/api/tables/sogo-4/position?p=${SOGO_LATE}`);
  assert.equal(d.board.layout, 'layers');
  assert.equal(d.board.cells.length, 64);
  assert.equal(await page.locator('#board [data-cell]').count(), 64);
  const stones = d.board.cells.filter((c) => c.state !== 'empty').length;
  assert.equal(await page.locator('#board [data-state=p0], #board [data-state=p1]').count(), stones);
  await until(async () => Object.values(await listed()).every((v) => v !== 'unknown'), "the columns' values");
  const now = await api(sogo, `/api/tables/sogo-4/position?p=${SOGO_LATE}`);
  assert.ok(now.moves.length > 0 && now.moves.every((m) => m.value !== 'unknown'), JSON.stringify(now.moves));
  assert.deepEqual(await markers(now), byMove(now));
  await screenshot('sogo-4-late');
  // A column clicked: its piece lands on the marked cell, and the next position's values come.
  // A losing move: the game goes on after it (a winning one may end it).
  const m = now.moves.find((x) => x.value === 'lose') ?? now.moves[0];
  await page.locator(`#board [data-target="${m.steps[0]}"]`).click();
  await until(async () => (await positionText()) === m.position, 'the next position');
  await until(
    async () => (await page.locator(`#board [data-cell="${m.steps[0]}"]`).getAttribute('data-state')) !== 'empty',
    'the piece landed',
  );
  assert.equal(await page.locator('#board [data-state=p0], #board [data-state=p1]').count(), stones + 1);
  await until(async () => Object.values(await listed()).every((v) => v !== 'unknown'), "the next position's values");
  const next = await api(sogo, `/api/tables/sogo-4/position?p=${encodeURIComponent(m.position)}`);
  assert.deepEqual(await listed(), byMove(next));
});

test('a search that proves values only shows no distance', async () => {
  await page.goto(new URL('/?table=mnk-3x3x3', tictactoe).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
  await until(async () => Object.values(await listed()).every((v) => v !== 'unknown'), 'the values');
  const d = await api(tictactoe, '/api/tables/mnk-3x3x3/position');
  assert.equal(d.remoteness, null);
  assert.equal(await value(), cap(d.value));
  const badges = await badgeTexts();
  for (const m of d.moves) {
    assert.equal(m.remoteness, null);
    assert.equal(badges[m.move], cap(m.value));
  }
});
