// The explorer as a player uses it (GamesmanUni, lichess): the game record in
// the link, the move list, playing the perfect player with the values hidden,
// the rules, markers that are not mistaken for pieces, the value history, and
// the table's charts. Expectations are read from the JSON API and from
// `retrograde analyze --json` / `retrograde games --json`.
//
//   RETROGRADE_BIN=target/release/retrograde node --test tests/browser/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BIN = path.resolve(process.env.RETROGRADE_BIN || 'target/release/retrograde');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrograde-player-'));
const shots = process.env.SCREENSHOT_DIR || dir;

const TABLES = [
  ['mnk:3x3x3', 'tictactoe'],
  ['connect:4x4', 'connect-4x4'],
  ['cram:3x4 --nimbers', 'cram-3x4-nimbers'],
  ['subtraction:20:1,3,4', 'subtraction'],
];
const file = (id) => path.join(dir, `${id}.rtb`);

let server;
let base;
let browser;
let page;
const pageErrors = [];

before(async () => {
  for (const [spec, id] of TABLES) {
    const [game, ...flags] = spec.split(' ');
    execFileSync(BIN, ['solve', game, ...flags, '-o', file(id)], { stdio: 'ignore' });
  }
  server = spawn(BIN, ['serve', ...TABLES.map(([, id]) => file(id)), '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
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
const position = (id, text) => api(`/api/tables/${id}/position${text === undefined ? '' : `?p=${encodeURIComponent(text)}`}`);

function shown(d) {
  if (d.primitive) return `Game over: ${d.value}`;
  if (d.remoteness === null) return `${d.value[0].toUpperCase()}${d.value.slice(1)}`;
  return `${d.value[0].toUpperCase()}${d.value.slice(1)} in ${d.remoteness}`;
}

const MOVES_SHOWN = '[data-testid=move-list] li:not(.loading-row)';
async function open(query) {
  await page.goto(new URL(query, base).href);
  await page.locator(MOVES_SHOWN).first().waitFor();
}
const value = () => page.locator('[data-testid=value]').textContent();
const positionText = () => page.locator('[data-testid=position]').inputValue();
const param = (k) => new URL(page.url()).searchParams.get(k);

async function until(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function waitForShown(text, d) {
  await until(async () => (await positionText()) === text && (await value()) === shown(d), `position ${text} shown as ${shown(d)}`);
}
async function screenshot(name) {
  const f = path.join(shots, `${name}.png`);
  await page.screenshot({ path: f, fullPage: true });
  console.log(`screenshot: ${f}`);
}

// Plays `n` moves from the list (the first listed each time), returning the positions' answers.
async function playFromList(id, n) {
  const seen = [await position(id, await positionText())];
  const names = [];
  for (let i = 0; i < n; i++) {
    const d = seen[seen.length - 1];
    const m = d.moves[0];
    await page.locator(`[data-testid=move-list] li[data-move="${m.move}"] button`).click();
    const next = await position(id, m.position);
    await waitForShown(m.position, next);
    seen.push(next);
    names.push(m.move);
  }
  return { seen, names };
}

test('the link holds the game record: the moves, undo and redo survive a reload', async () => {
  await open('/?table=tictactoe');
  const { seen, names } = await playFromList('tictactoe', 3);
  assert.equal(param('moves'), names.join(' '));
  assert.equal(param('position'), null, 'a game from the start names no position');
  await page.locator('[data-testid=undo]').click();
  await page.locator('[data-testid=undo]').click();
  await waitForShown(seen[1].position, seen[1]);
  assert.equal(param('moves'), names.join(' '), 'undone moves stay in the record, for redo');
  assert.equal(param('ply'), '1');

  await page.reload();
  await page.locator(MOVES_SHOWN).first().waitFor();
  await waitForShown(seen[1].position, seen[1]);
  assert.equal(await page.locator('[data-testid=turn]').textContent(), 'Ply 1: o (second player) to move');
  assert.ok(await page.locator('[data-testid=redo]').isEnabled(), 'redo survives the reload');
  await page.locator('[data-testid=redo]').click();
  await waitForShown(seen[2].position, seen[2]);
  await page.locator('[data-testid=undo]').click();
  await page.locator('[data-testid=undo]').click();
  await waitForShown(seen[0].position, seen[0]);
  assert.equal(param('ply'), '0');

  // A move that is not legal where the record reaches stops the replay there, said once.
  await open(`/?table=tictactoe&moves=${names[0]}%20${names[0]}`);
  await waitForShown(seen[1].position, seen[1]);
  assert.match(await page.locator('#global-error').textContent(), /move 2, '.*', is not a legal move there/);
});

test('Connect: a position typed as the columns played is kept as typed in the link', async () => {
  await open('/?table=connect-4x4');
  const box = page.locator('[data-testid=position]');
  await box.fill('2231');
  await box.press('Enter');
  const typed = await position('connect-4x4', '2231');
  assert.equal(typed.position, '..../..../.o../oxx.');
  await waitForShown(typed.position, typed);
  assert.equal(param('position'), '2231');
  const m = typed.moves[0];
  await page.locator(`[data-testid=move-list] li[data-move="${m.move}"] button`).click();
  const next = await position('connect-4x4', m.position);
  await waitForShown(m.position, next);
  assert.equal(param('position'), '2231');
  assert.equal(param('moves'), m.move);
  await page.reload();
  await page.locator(MOVES_SHOWN).first().waitFor();
  await waitForShown(m.position, next);
  // The history is the record's: the typed position, then the move.
  const rows = page.locator('[data-testid=history-chart] .chart-row .tick');
  assert.deepEqual(await rows.allTextContents(), ['+0', '+1']);
});

test('the move list names every move played; a click goes back to it; the value history names them too', async () => {
  await open('/?table=tictactoe');
  const { seen, names } = await playFromList('tictactoe', 3);
  const record = page.locator('[data-testid=record] li[data-ply]');
  assert.deepEqual(await record.evaluateAll((els) => els.map((e) => e.dataset.move)), names);
  assert.deepEqual(
    await record.locator('.notation-cell').allTextContents(),
    names,
  );
  await page.locator('[data-testid=record] li[data-ply="1"] button').click();
  await waitForShown(seen[1].position, seen[1]);
  assert.equal(await page.locator('[data-testid=record] li[data-ply="1"] button').getAttribute('aria-current'), 'step');
  assert.equal(await page.locator('[data-testid=record] .record-move.future').count(), 2);
  // Each row of the value history after the first names the move that led to it.
  for (const [i, name] of names.entries()) {
    const row = page.locator(`[data-testid=history-chart] .chart-row[data-ply="${i + 1}"]`);
    assert.equal(await row.getAttribute('data-move'), name);
    assert.equal(await row.locator('.row-move').textContent(), name);
  }
  await page.locator('[data-testid=record] li[data-ply="3"] button').click();
  await waitForShown(seen[3].position, seen[3]);
  await screenshot('record-tictactoe');
});

test('a tie is drawn once in the value history, on the centre line', async () => {
  await open('/?table=tictactoe');
  const { seen } = await playFromList('tictactoe', 4);
  assert.ok(seen.every((d) => d.value === 'tie'), 'best play in tic-tac-toe ties');
  const points = page.locator('[data-testid=history-chart] circle[data-ply]');
  assert.equal(await points.count(), seen.length, 'one point per position');
  const xs = new Set(await points.evaluateAll((els) => els.map((e) => e.getAttribute('cx'))));
  assert.equal(xs.size, 1, 'every tie on the one centre line');
  const labels = await page.locator('[data-testid=history-chart] .tie-remoteness').allTextContents();
  assert.deepEqual(labels, seen.map((d) => String(d.remoteness)));
});

test('hide values: the computer still plays perfectly, the player sees no value', async () => {
  await open('/?table=tictactoe');
  await page.locator('[data-testid=hide-values]').check();
  await page.locator('[data-testid=computer]').selectOption('second');
  const start = await position('tictactoe');
  assert.equal(await value(), 'Values hidden');
  assert.equal(param('hide'), '1');
  // The moves by name, not best first; no badge, star, colour or number.
  const listed = await page.locator('[data-testid=move-list] li').evaluateAll((els) => els.map((e) => e.dataset.move));
  assert.deepEqual(listed, start.moves.map((m) => m.move).sort((a, b) => Number(a) - Number(b)));
  assert.equal(await page.locator('[data-testid=move-list] .badge').count(), 0);
  assert.equal(await page.locator('[data-testid=move-list] [data-value]').count(), 0);
  assert.equal((await page.locator('[data-testid=move-list] .star').allTextContents()).join(''), '');
  assert.equal(await page.locator('#board [data-value]').count(), 0);
  assert.equal(await page.locator('#board .marker-text').count(), 0);
  assert.equal(await page.locator('#board [data-target]').count(), start.moves.length);
  assert.equal(await page.locator('[data-testid=history-chart] [data-hidden]').count(), 1);
  const text = await page.locator('.info-panel').innerText();
  assert.doesNotMatch(text, /\b(Win|Lose|Tie) in\b/);

  // A corner: the perfect player answers with a best move.
  const mine = start.moves.find((m) => m.move === '0');
  await page.locator(`#board [data-target="${mine.steps[0]}"]`).click();
  const afterMine = await position('tictactoe', mine.position);
  const best = afterMine.moves.filter((m) => m.best).map((m) => m.position);
  await until(async () => best.includes(await positionText()), "the computer's reply");
  assert.equal(await value(), 'Values hidden');
  assert.equal(await page.locator('[data-testid=record] .dot').count(), 0, 'the record shows no value either');
  await screenshot('hidden-values');

  // The link keeps values hidden; unticking shows them again.
  await page.reload();
  await page.locator(MOVES_SHOWN).first().waitFor();
  assert.ok(await page.locator('[data-testid=hide-values]').isChecked());
  assert.equal(await value(), 'Values hidden');
  await page.locator('[data-testid=computer]').selectOption('none');
  await page.locator('[data-testid=hide-values]').uncheck();
  const now = await position('tictactoe', await positionText());
  assert.equal(await value(), shown(now));
  assert.equal(param('hide'), null);
  assert.ok((await page.locator('[data-testid=move-list] .badge').count()) > 0);
});

test('the rules are the game\'s own description, for every table', async () => {
  const games = JSON.parse(execFileSync(BIN, ['games', '--json']).toString());
  const { tables } = await api('/api/tables');
  for (const t of tables) {
    const described = games.find((g) => g.name === t.family);
    assert.ok(described && described.rules.length > 40, t.family);
    assert.equal(t.rules, described.rules, t.id);
    await open(`/?table=${t.id}`);
    const rules = page.locator('[data-testid=rules]');
    assert.ok(await rules.isVisible(), t.id);
    await rules.locator('summary').click();
    assert.equal(await page.locator('#rules-text').textContent(), described.rules, t.id);
    assert.ok(await page.locator('#rules-text').isVisible(), t.id);
  }
  await screenshot('rules-subtraction');
});

// A Connect position whose moves have more than one value, found by walking from the start.
async function mixedConnectPosition() {
  const queue = [undefined];
  for (let seen = 0; queue.length && seen < 200; seen++) {
    const d = await position('connect-4x4', queue.shift());
    if (new Set(d.moves.map((m) => m.value)).size >= 2) return d;
    queue.push(...d.moves.map((m) => m.position));
  }
  assert.fail('no Connect 4x4 position with moves of two values');
}

test('Connect-Four markers are outlined shapes, not discs of the pieces\' colours', async () => {
  const d = await mixedConnectPosition();
  await open(`/?table=connect-4x4&position=${encodeURIComponent(d.position)}`);
  const expected = { win: ['circle', 'circle'], lose: ['square', 'rect'], tie: ['diamond', 'path'] };
  const discFills = await page.locator('#board .disc').evaluateAll((els) => els.map((e) => getComputedStyle(e).fill));
  const values = new Set();
  for (const m of d.moves) {
    const cell = m.steps[0];
    const marker = page.locator(`#board [data-target="${cell}"]`);
    const v = await marker.getAttribute('data-value');
    values.add(v);
    const [shape, tag] = expected[v];
    assert.equal(await marker.getAttribute('data-shape'), shape, `${m.move}: ${v}`);
    assert.match(await marker.getAttribute('class'), /\boutlined\b/);
    const dot = marker.locator('.marker-dot');
    assert.equal(await dot.evaluate((e) => e.tagName), tag);
    const fill = await dot.evaluate((e) => getComputedStyle(e).fill);
    assert.equal(fill, 'rgb(255, 255, 255)', `${m.move}: a white marker`);
    assert.ok(!discFills.includes(fill));
    // The value's colour is the outline.
    const stroke = await dot.evaluate((e) => getComputedStyle(e).stroke);
    assert.notEqual(stroke, 'none');
  }
  assert.ok(values.size >= 2, [...values].join());
  await screenshot('connect-markers');
  // Elsewhere markers are filled, shaped the same way.
  await open('/?table=tictactoe&position=x.o%2F.x.%2F...');
  const marker = page.locator('#board [data-target]').first();
  assert.doesNotMatch(await marker.getAttribute('class'), /\boutlined\b/);
});

async function chartBars(chart) {
  const sel = `[data-testid=table-charts] [data-chart=${chart}] rect.bar`;
  await page.locator(sel).first().waitFor({ state: 'attached' });
  return page.locator(sel).evaluateAll((els) => els.map((e) => {
    const out = {};
    for (const a of e.attributes) if (a.name.startsWith('data-')) out[a.name] = a.value;
    return out;
  }));
}

test('"This table" draws the remoteness histogram per value and the positions per tier, as analyze --json counts them', async () => {
  const want = JSON.parse(execFileSync(BIN, ['analyze', file('tictactoe'), '--json']).toString());
  await open('/?table=tictactoe');
  const bars = await chartBars('remoteness');
  const hist = want.remoteness;
  const expected = [];
  const longest = Math.max(...['win', 'lose', 'tie'].map((v) => hist[v].length));
  for (let r = 0; r < longest; r++) {
    for (const v of ['win', 'lose', 'tie']) expected.push({ 'data-value': v, 'data-remoteness': String(r), 'data-count': String(hist[v][r] || 0) });
  }
  assert.deepEqual(bars, expected);
  const tiers = Object.entries(want.tiers).sort((a, b) => Number(b[0]) - Number(a[0]));
  assert.deepEqual(await chartBars('tiers'), tiers.map(([t, c]) => ({ 'data-tier': t, 'data-count': String(c) })));
  // The page asked until the server had made it: now it answers at once.
  assert.deepEqual(await api('/api/tables/tictactoe/analysis'), want, 'the server answers analyze --json');
  await page.locator('[data-testid=table-charts]').scrollIntoViewIfNeeded();
  await screenshot('table-charts-tictactoe');

  // A nimber table: the nimbers' histogram.
  const nim = JSON.parse(execFileSync(BIN, ['analyze', file('cram-3x4-nimbers'), '--json']).toString());
  await open('/?table=cram-3x4-nimbers');
  assert.deepEqual(await chartBars('remoteness'), nim.nimbers.map((c, k) => ({ 'data-nimber': String(k), 'data-count': String(c) })));
});
