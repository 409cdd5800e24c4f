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

// One small table of each family the page draws differently, and a nimber table.
const TABLES = [
  ['isolation:4x4', 'isolation-4x4'],
  ['connect:4x4', 'connect-4x4'],
  ['mnk:3x3x3', 'tictactoe'],
  ['cram:3x4', 'cram-3x4'],
  ['subtraction:20:1,3,4', 'subtraction'],
  ['sogo:2', 'sogo-2'],
  ['dodgem:3', 'dodgem-3'],
  ['cram:3x4 --nimbers', 'cram-3x4-nimbers'],
];

let server;
let base;
let browser;
let page;
const pageErrors = [];

before(async () => {
  for (const [spec, id] of TABLES) {
    const [game, ...flags] = spec.split(' ');
    execFileSync(BIN, ['solve', game, ...flags, '-o', path.join(dir, `${id}.rtb`)], { stdio: 'ignore' });
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
  if (d.remoteness === null) return `${d.value[0].toUpperCase()}${d.value.slice(1)}`;
  return `${d.value[0].toUpperCase()}${d.value.slice(1)} in ${d.remoteness}`;
}

// The move list once the answer is in (index.html's "Loading the moves…" row is not a move).
const MOVES_SHOWN = '[data-testid=move-list] li:not(.loading-row)';

async function open(query) {
  await page.goto(new URL(query, base).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
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
  // The game record is in the URL, to share: the move played from the start.
  assert.equal(new URL(page.url()).searchParams.get('moves'), win.move);
  // The chart has a point for each position of the game so far.
  assert.equal(await page.locator('[data-testid=history-chart] circle[data-ply]').count(), 2);
  await screenshot('isolation-after-winning-move');

  // Undo, redo.
  await page.locator('[data-testid=undo]').click();
  await waitForShown(start.position, start);
  await page.locator('[data-testid=redo]').click();
  await waitForShown(win.position, next);

  // A shared link opens the same position.
  // The record is replayed after the page loads: the start may show first.
  await page.reload();
  await waitForShown(win.position, next);
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
    // One marker per square a move can start from (its first step; any of its squares where
    // the board takes steps in any order), coloured by the best move through it.
    const firsts = new Map();
    for (const m of d.moves) {
      for (const c of d.board.steps_any_order ? m.steps : [m.steps[0]]) if (!firsts.has(c)) firsts.set(c, m);
    }
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

test('on phone-sized screens (320, 360, 390 px) every table\'s page fits the width and a move can be played', async () => {
  try {
    for (const width of [320, 360, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [, id] of TABLES) {
        await open(`/?table=${id}`);
        // Nothing widens the page past the screen: the table chooser shrinks, a wide chart
        // scrolls in its panel.
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= width, `${id}: the page is ${wide}px wide on a ${width}px screen`);
        const box = await page.locator('#board svg').boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${id} at ${width}px: the board is off screen: ${JSON.stringify(box)}`);
      }
      await open('/?table=isolation-4x4');
      await screenshot(`isolation-phone-${width}`);
      const start = await position('isolation-4x4');
      const m = start.moves[0];
      await page.locator(`[data-testid=move-list] li[data-move="${m.move}"] button`).first().click();
      await waitForShown(m.position, await position('isolation-4x4', m.position));
    }
  } finally {
    await page.setViewportSize({ width: 1200, height: 900 });
  }
});

test('a nimber table shows nimbers: each marker the nimber its move leads to, each move its child\'s nimber', async () => {
  const id = 'cram-3x4-nimbers';
  await open(`/?table=${id}`);
  const d = await position(id);
  assert.equal(d.remoteness, null, 'a nimber table has no remoteness');
  assert.equal(await page.locator('[data-testid=nimber]').textContent(), `Nimber *${d.nimber}`);
  // Markers: the child's nimber of the best move through the square, never a "D" (a draw).
  const firsts = new Map();
  for (const m of d.moves) for (const c of m.steps) if (!firsts.has(c)) firsts.set(c, m);
  const markers = page.locator('#board [data-target]');
  assert.equal(await markers.count(), firsts.size);
  for (const [cell, m] of firsts) {
    const marker = page.locator(`#board [data-target="${cell}"]`);
    assert.equal(await marker.getAttribute('data-text'), `*${m.nimber}`, `square ${cell}`);
    assert.equal(await marker.locator('text').textContent(), `*${m.nimber}`, `square ${cell}`);
  }
  // The move list: every child's nimber, as Glop's children tab.
  for (const m of d.moves) {
    const li = page.locator(`[data-testid=move-list] li[data-move="${m.move}"]`);
    assert.equal(await li.getAttribute('data-nimber'), String(m.nimber), m.move);
    assert.equal(await li.locator('.child-nimber').textContent(), `→ *${m.nimber}`, m.move);
  }
  const nimbers = new Set(d.moves.map((m) => m.nimber));
  assert.ok(nimbers.size > 2, `the start's children have nimbers ${[...nimbers]}`);
  assert.ok(await page.locator('#nimber-legend').isVisible());
  await screenshot('cram-nimbers');
  // A value table says nothing of nimbers.
  await open('/?table=cram-3x4');
  assert.equal(await page.locator('[data-testid=move-list] .child-nimber').count(), 0);
  assert.ok(!(await page.locator('#nimber-legend').isVisible()));
});

test('Cram: a domino is started from either of its squares', async () => {
  await open('/?table=cram-3x4');
  const d = await position('cram-3x4');
  // Square 11 of 3x4 starts no move in the notation's order (7-11 and 10-11), yet is marked.
  const through11 = d.moves.filter((m) => m.steps.includes(11));
  assert.deepEqual(through11.map((m) => m.move).sort(), ['10-11', '7-11']);
  assert.equal(d.board.steps_any_order, true);
  await page.locator('#board [data-target="11"]').click();
  // Then the squares that complete a domino with it, and nothing else.
  const next = await page.locator('#board [data-target]').evaluateAll((els) => els.map((e) => Number(e.dataset.target)).sort((a, b) => a - b));
  assert.deepEqual(next, [7, 10]);
  await page.locator('#board [data-target="10"]').click();
  const m = d.moves.find((x) => x.move === '10-11');
  await waitForShown(m.position, await position('cram-3x4', m.position));
});

// A rectangle (client coordinates) of an element, for the checks that nothing covers a label.
const rect = (loc) => loc.evaluate((e) => {
  const r = e.getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
});
const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('a move hovered in the list is previewed as its board says: numbered squares, a domino, an arrow', async () => {
  const joins = {};
  for (const id of ['isolation-4x4', 'cram-3x4', 'dodgem-3']) {
    await open(`/?table=${id}`);
    const d = await position(id);
    const m = d.moves[d.moves.length - 1];
    await page.locator(`[data-testid=move-list] li[data-move="${m.move}"] button`).hover();
    const preview = page.locator(`#board [data-preview="${m.move}"]`);
    await preview.waitFor();
    await screenshot(`preview-${id}`);
    const join = d.board.steps_join;
    joins[id] = join;
    assert.equal(await preview.locator('.domino-preview').count(), join === 'span' ? 1 : 0, id);
    assert.equal(await preview.locator('.preview-arrow').count(), join === 'arrow' ? 1 : 0, id);
    assert.equal(await preview.locator('.preview-cell').count(), join === 'span' ? 0 : m.steps.length, id);
    if (join === 'span') {
      // The domino covers both its squares.
      const dom = await rect(preview.locator('.domino-preview'));
      for (const k of m.steps) {
        const cell = await rect(page.locator(`#board [data-cell="${k}"] .square`));
        assert.ok(overlap(dom, cell), `${id} ${m.move}: square ${k} is not under the domino`);
      }
    }
    await page.mouse.move(0, 0);
  }
  assert.deepEqual(joins, { 'isolation-4x4': 'none', 'cram-3x4': 'span', 'dodgem-3': 'arrow' });
});

test('square and column numbers are in view and uncovered', async () => {
  // Connect: the column numbers above the frame, inside the drawing.
  await open('/?table=connect-4x4');
  const svgBox = await rect(page.locator('#board svg'));
  const frame = await rect(page.locator('#board .frame'));
  const labels = page.locator('#board .col-label');
  assert.equal(await labels.count(), 4);
  for (let i = 0; i < 4; i++) {
    const r = await rect(labels.nth(i));
    assert.ok(r.top >= svgBox.top && r.bottom <= frame.top, `column ${i + 1}: ${JSON.stringify(r)} frame ${JSON.stringify(frame)}`);
  }
  await screenshot('connect-columns');
  // Isolation's removed squares and Cram's covered ones: the block leaves the number clear.
  for (const [id, where, block] of [
    ['isolation-4x4', 'x0x./...x/.x../x..1', '.hole'],
    ['cram-3x4', '##../#.../#.##', '.domino-half'],
  ]) {
    await open(`/?table=${id}&position=${encodeURIComponent(where)}`);
    const cells = page.locator(`#board [data-state=${block === '.hole' ? 'removed' : 'covered'}]`);
    const n = await cells.count();
    assert.ok(n >= 4, `${id}: ${n}`);
    for (let i = 0; i < n; i++) {
      const label = await rect(cells.nth(i).locator('.cell-label'));
      const covering = await rect(cells.nth(i).locator(block));
      assert.ok(!overlap(label, covering), `${id} cell ${i}: number ${JSON.stringify(label)} under ${JSON.stringify(covering)}`);
    }
    await screenshot(`labels-${id}`);
  }
});

test('a position opened by link claims no ply it cannot know', async () => {
  const linked = '0.../...x/.x../...1';
  await open(`/?table=isolation-4x4&position=${encodeURIComponent(linked)}`);
  const turn = page.locator('[data-testid=turn]');
  assert.equal(await turn.textContent(), '0 (first player) to move');
  const d = await position('isolation-4x4', linked);
  await page.locator(`[data-testid=move-list] li[data-move="${d.moves[0].move}"] button`).click();
  await waitForShown(d.moves[0].position, await position('isolation-4x4', d.moves[0].position));
  assert.equal(await turn.textContent(), '1 ply on from the position opened: 1 (second player) to move');
  // The value history numbers its rows from there too.
  const rows = page.locator('[data-testid=history-chart] .chart-row .tick');
  assert.deepEqual(await rows.allTextContents(), ['+0', '+1']);
  // From the game's start the ply is known.
  await open('/?table=isolation-4x4');
  assert.equal(await turn.textContent(), 'Ply 0: 0 (first player) to move');
  assert.deepEqual(await rows.allTextContents(), ['0']);
});

test('the page shows it is loading from its first paint, before the script has an answer', async () => {
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/api/tables', async (route) => {
    await held;
    await route.continue();
  });
  try {
    await page.goto(new URL('/?table=isolation-4x4', base).href, { waitUntil: 'load' });
    const loading = page.locator('[data-testid=loading]');
    assert.ok(await loading.isVisible());
    assert.equal((await loading.textContent()).trim(), 'Loading the table…');
    const skeleton = await page.locator('.skeleton-board').boundingBox();
    assert.ok(skeleton && skeleton.width >= 200 && skeleton.height >= 200, JSON.stringify(skeleton));
    assert.equal(await page.locator('[data-testid=turn]').textContent(), 'Loading…');
    assert.equal(await page.locator('[data-testid=move-list] li').textContent(), 'Loading the moves…');
    await screenshot('loading');
  } finally {
    release();
  }
  await page.locator(MOVES_SHOWN).first().waitFor();
  assert.equal(await page.locator('[data-testid=loading]').count(), 0);
  await page.unroute('**/api/tables');
});
