// The explorer as a person uses it: `retrograde serve` on tables solved here,
// Debian's Chromium (headless) driven by playwright-core. Every expectation
// is read from the JSON API, which tests/serve/ checks against `probe`.
//
//   RETROGRADE_BIN=target/release/retrograde node --test tests/browser/
//
// CHROMIUM overrides /usr/bin/chromium; SCREENSHOT_DIR keeps the screenshots
// somewhere other than the run's temporary directory. Their paths are printed.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BIN = path.resolve(process.env.RETROGRADE_BIN || 'target/release/retrograde');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrograde-browser-'));
const shots = process.env.SCREENSHOT_DIR || dir;

// One small table of each family the page draws differently.
const TABLES = [
  ['isolation:4x4', 'isolation-4x4'],
  ['connect:4x4', 'connect-4x4'],
  ['mnk:3x3x3', 'tictactoe'],
  ['cram:3x4', 'cram-3x4'],
  ['subtraction:20:1,3,4', 'subtraction'],
  ['sogo:2', 'sogo-2'],
  ['dodgem:3', 'dodgem-3'],
];

let server;
let base;
let browser;
let page;
const pageErrors = [];

before(async () => {
  for (const [spec, id] of TABLES) {
    execFileSync(BIN, ['solve', spec, '-o', path.join(dir, `${id}.rtb`)], { stdio: 'ignore' });
  }
  const files = TABLES.map(([, id]) => path.join(dir, `${id}.rtb`));
  server = spawn(BIN, ['serve', ...files, '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/\S+/);
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`retrograde serve exited with ${code}`)));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  server?.kill();
  assert.deepEqual(pageErrors, [], 'the page threw');
});

async function api(p) {
  const r = await fetch(new URL(p, base));
  assert.equal(r.status, 200, p);
  return r.json();
}

function position(id, text) {
  const q = text === undefined ? '' : `?p=${encodeURIComponent(text)}`;
  return api(`/api/tables/${id}/position${q}`);
}

// What the page shows for a position: "Win in 11", "Game over: lose", "Draw".
function shown(d) {
  if (d.primitive) return `Game over: ${d.value}`;
  if (d.value === 'draw') return 'Draw';
  return `${d.value[0].toUpperCase()}${d.value.slice(1)} in ${d.remoteness}`;
}

async function open(query) {
  await page.goto(new URL(query, base).href);
  await page.locator('[data-testid=move-list] li').first().waitFor();
}

const value = () => page.locator('[data-testid=value]').textContent();
const positionText = () => page.locator('[data-testid=position]').inputValue();

// Polls from here: page.waitForFunction evaluates a string in the page, which
// the server's Content-Security-Policy (no 'unsafe-eval') rightly forbids.
async function until(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The box shows a typed position before the server has answered, so a
// position counts as shown once the box and the value both say so.
async function waitForShown(text, d) {
  await until(
    async () => (await positionText()) === text && (await value()) === shown(d),
    `position ${text} shown as ${shown(d)}`,
  );
}

async function screenshot(name) {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
}

test('Isolation: the page shows the value, a winning move clicked on the board is played', async () => {
  await open('/?table=isolation-4x4');
  const start = await position('isolation-4x4');
  assert.equal(await value(), shown(start));
  assert.equal(await positionText(), start.position);
  // The move list is the API's, best first, coloured by value.
  const items = page.locator('[data-testid=move-list] li');
  assert.equal(await items.count(), start.moves.length);
  assert.equal(await items.first().getAttribute('data-move'), start.moves[0].move);
  assert.equal(await items.first().getAttribute('data-value'), start.moves[0].value);

  // The table panel says what `info` says of the file.
  const { info } = await api('/api/tables/isolation-4x4');
  const field = (k) => page.locator(`[data-testid=table-info] dd[data-field="${k}"]`);
  await until(async () => (await field('Positions').count()) === 1, 'the table panel');
  const n = (x) => x.toLocaleString('en-US');
  assert.equal(await field('Positions').textContent(), n(info.entries - info.counts.non_positions));
  assert.match(
    await field('Win for the mover').textContent(),
    new RegExp(`^${n(info.counts.win)} \\(.*%\\), longest ${info.max_remoteness.win} moves$`),
  );
  assert.equal(await field('Data CRC32').textContent(), info.data_crc32);

  const win = start.moves.find((m) => m.best && m.value === 'win');
  assert.ok(win, 'the start of Isolation 4x4 is a win: some move wins');
  const [to, removed] = win.steps;
  await page.locator(`#board [data-target="${to}"]`).click();
  await page.locator(`#board [data-target="${removed}"]`).click();
  const next = await position('isolation-4x4', win.position);
  await waitForShown(win.position, next);
  assert.equal(next.value, 'lose', 'after a winning move the opponent loses');
  assert.equal(await page.locator(`#board [data-cell="${to}"]`).getAttribute('data-state'), 'p0');
  assert.equal(await page.locator(`#board [data-cell="${removed}"]`).getAttribute('data-state'), 'removed');
  const from = start.board.cells.findIndex((c) => c.state === 'p0');
  assert.equal(await page.locator(`#board [data-cell="${from}"]`).getAttribute('data-state'), 'empty');
  // The position is in the URL, to share.
  assert.equal(new URL(page.url()).searchParams.get('position'), win.position);
  // The chart has a point for each position of the game so far.
  assert.equal(await page.locator('[data-testid=history-chart] circle[data-ply]').count(), 2);
  await screenshot('isolation-after-winning-move');

  // Undo, redo.
  await page.locator('[data-testid=undo]').click();
  await waitForShown(start.position, start);
  await page.locator('[data-testid=redo]').click();
  await waitForShown(win.position, next);

  // A shared link opens the same position.
  await page.reload();
  await page.locator('[data-testid=move-list] li').first().waitFor();
  assert.equal(await positionText(), win.position);
  assert.equal(await value(), shown(next));
});

test('a bad position typed shows the error and keeps the position', async () => {
  await open('/?table=isolation-4x4');
  const before = await positionText();
  const box = page.locator('[data-testid=position]');
  await box.fill('0.../zzzz');
  await box.press('Enter');
  const error = page.locator('[data-testid=position-error]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /bad position/);
  assert.equal(await value(), shown(await position('isolation-4x4')));
  assert.equal(new URL(page.url()).searchParams.get('position') ?? before, before);
  // A good one typed is loaded.
  await box.fill('0.../...x/.x../...1');
  await box.press('Enter');
  const typed = await position('isolation-4x4', '0.../...x/.x../...1');
  assert.equal(shown(typed), 'Win in 7');
  await waitForShown('0.../...x/.x../...1', typed);
  assert.ok(!(await error.isVisible()));
});

test('the perfect player answers a move with a best move', async () => {
  await open('/?table=tictactoe');
  await page.locator('[data-testid=computer]').selectOption('second');
  const start = await position('tictactoe');
  const mine = start.moves.find((m) => m.move === '4');
  await page.locator(`#board [data-target="${mine.steps[0]}"]`).click();
  const afterMine = await position('tictactoe', mine.position);
  // The computer replies: the position moves on to one of its best moves.
  const best = afterMine.moves.filter((m) => m.best).map((m) => m.position);
  await until(async () => best.includes(await positionText()), 'the computer\'s reply');
  const now = await positionText();
  const reply = await position('tictactoe', now);
  assert.equal(shown(reply), 'Tie in 7');
  await waitForShown(now, reply);
  await page.locator('[data-testid=computer]').selectOption('none');
});

test('every family is drawn with the API board\'s cells and states, and each marker is a move', async () => {
  const where = {
    'connect-4x4': '..../..../.o../oxx.',
    tictactoe: 'x.o/.x./...',
    'cram-3x4': '##../..../....',
    'sogo-2': '../x.|../..',
  };
  for (const [, id] of TABLES) {
    await open(`/?table=${id}${where[id] ? `&position=${encodeURIComponent(where[id])}` : ''}`);
    const d = await position(id, where[id]);
    assert.equal(await value(), shown(d), id);
    if (d.board.layout === 'pile') {
      // Take-away: the pile as a number, a button per amount.
      assert.match(await page.locator('#board').textContent(), new RegExp(`\\b${d.board.pile}\\b`), id);
      assert.equal(await page.locator('[data-take]').count(), d.moves.length, id);
      continue;
    }
    const cells = d.board.cells.map((c, i) => [i, c]).filter(([, c]) => c.state !== 'exit');
    for (const [i, c] of cells) {
      const state = await page.locator(`#board [data-cell="${i}"]`).getAttribute('data-state');
      assert.equal(state, c.state, `${id} cell ${i}`);
    }
    // One marker per distinct first step, coloured by the best move through it.
    const firsts = new Map();
    for (const m of d.moves) if (!firsts.has(m.steps[0])) firsts.set(m.steps[0], m);
    const markers = page.locator('#board [data-target]');
    assert.equal(await markers.count(), firsts.size, id);
    for (const [cell, m] of firsts) {
      assert.equal(await page.locator(`#board [data-target="${cell}"]`).getAttribute('data-value'), m.value, `${id} ${m.move}`);
    }
    await screenshot(`family-${id}`);
  }
});

test('Cram and Dodgem moves are made with two clicks', async () => {
  for (const id of ['cram-3x4', 'dodgem-3']) {
    await open(`/?table=${id}`);
    const d = await position(id);
    const m = d.moves[d.moves.length - 1];
    await page.locator(`#board [data-target="${m.steps[0]}"]`).click();
    await page.locator(`#board [data-target="${m.steps[1]}"]`).click();
    await waitForShown(m.position, await position(id, m.position));
  }
});

test('on a phone-sized screen the page fits its width and a move can still be played', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await open('/?table=isolation-4x4');
    const start = await position('isolation-4x4');
    // Nothing widens the page past the screen: a wide chart scrolls in its panel.
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width}px wide on a 390px screen`);
    const box = await page.locator('#board svg').boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the board is off screen: ${JSON.stringify(box)}`);
    await screenshot('isolation-phone');
    const m = start.moves[0];
    await page.locator(`[data-testid=move-list] li[data-move="${m.move}"] button`).first().click();
    await waitForShown(m.position, await position('isolation-4x4', m.position));
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});
