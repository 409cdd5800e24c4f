// The computing branch of a search job in the explorer (`serve --search`), as
// a person uses it in headless Chromium: a Sprouts position whose job
// computes for a few seconds, its branch's levels appearing (each with its
// children still unknown and Glop's colour), and a level asked for its next
// child. The values never depend on it (tests/search/watch.rs).
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retrograde-branch-browser-'));

let server;
let url;
let browser;
let page;
const pageErrors = [];

before(async () => {
  // 13 spots: each child of the start takes its job seconds; the request's
  // own search gets one node, so the job does the work.
  server = spawn(BIN, ['serve', '--search', 'sprouts:13', '--search-nodes', '1', '--addr', '127.0.0.1:0'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  url = await new Promise((resolve, reject) => {
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
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

after(async () => {
  await browser?.close();
  server?.kill();
  assert.deepEqual(pageErrors, [], 'the page threw');
});

// A bound of its own: a wait with no timeout must fail the run, not hang it.
test('the computing branch of a job shows its levels and steers one', { timeout: 120_000 }, async () => {
  await page.goto(new URL('/?table=sprouts-13', url).href);
  const levels = page.getByTestId('branch-level');
  await levels.first().waitFor();
  const first = levels.first();
  assert.equal(await first.getAttribute('data-depth'), '0');
  // The root level is the child of 0*13 being proved, in Glop's notation.
  const text = await first.textContent();
  assert.match(text, /^0\d+\/\d+/, text);
  // Children unknown at most the children, each level coloured as Glop (or not).
  // Read at once: the panel is drawn anew every second.
  const cells = await page.getByTestId('branch-unknown').evaluateAll((es) => es.map((e) => [e.textContent, e.className]));
  assert.ok(cells.length > 0);
  for (const [counts, cls] of cells) {
    const [unknown, children] = counts.split('/').map(Number);
    assert.ok(unknown <= children, `${unknown}/${children}`);
    const want = unknown === 1 ? 'branch-red' : unknown === 2 ? 'branch-orange' : unknown <= 4 && unknown >= 3 ? 'branch-yellow' : unknown >= 5 && unknown <= 10 ? 'branch-green' : '';
    assert.equal(cls, want, `${unknown} unknown`);
  }
  // The root level asked for its next unknown child: the server takes it.
  const steered = page.waitForResponse((r) => r.url().includes('/steer?') && r.request().method() === 'POST');
  await page.getByTestId('branch-next-0').click();
  const r = await steered;
  assert.equal(r.status(), 200);
  // The same request again, read here: Chromium does not always keep the
  // body of a response the page has already read, and Playwright then
  // waits for it forever.
  const again = await fetch(r.url(), { method: 'POST', headers: { Origin: new URL(url).origin } });
  assert.equal(again.status, 200);
  const body = await again.json();
  assert.equal(body.steered, true, JSON.stringify(body));
  // Another site's page may not steer.
  const foreign = await fetch(r.url(), { method: 'POST', headers: { Origin: 'http://evil.example' } });
  assert.equal(foreign.status, 403);
  // A GET does not steer.
  const get = await fetch(new URL('/api/tables/sprouts-13/steer?depth=0&level=1&next', url));
  assert.equal(get.status, 405);
});
