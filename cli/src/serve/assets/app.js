// The retrograde explorer: one page over the JSON API in docs/SERVE-API.md.
// Plain JavaScript, no build step: the server compiles this file into the binary and sends a
// CSP of `default-src 'self'`, so everything (SVG included) is built here with DOM calls.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const COLORS = { win: '#2e9d4a', lose: '#8b1a1a', tie: '#e0b400', draw: '#e0b400', unknown: '#8a8a8a' };
const COMPUTER_DELAY_MS = 400;
// Height of the strip at the bottom of a square that holds its number.
const LABEL_STRIP = 17;

// The whole state of the page. `history` holds the positions of the game so far (and any
// undone ones, for redo); `cursor` is the ply shown.
const state = {
  tables: [],
  table: null,
  history: [],
  played: [], // played[n]: the move that led to history[n] (null at the root)
  root: null, // the position the game record starts from, as typed or linked (null: the start)
  hideValues: false,
  cursor: 0,
  selection: [], // board cells clicked so far for a multi-step move
  hoverMove: null, // a move previewed on the board (list hover/focus, or a second-step marker)
  computer: 'none',
  computerTimer: null,
  request: 0, // bumped on every fetch so a slow answer cannot overwrite a newer one
  refreshTimer: null, // asks again for a searched position left computing
  searching: null, // the ticker of a search request in flight: { timer, started }
};
// How often a position left computing on the server is asked for again.
const REFRESH_MS = 1000;

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// ---------------------------------------------------------------- API

async function api(path) {
  const res = await fetch(path, { headers: { Accept: 'application/json' } });
  let body = null;
  try {
    body = await res.json();
  } catch (_) {
    throw new Error(`${res.status} ${res.statusText}: the server did not answer JSON`);
  }
  if (!res.ok) throw new Error((body && body.error) || `${res.status} ${res.statusText}`);
  return body;
}

const cache = new Map();
async function fetchPosition(tableId, text) {
  const key = `${tableId}\u0000${text === null ? '' : text}`;
  if (cache.has(key)) return cache.get(key);
  const q = text === null ? '' : `?p=${encodeURIComponent(text)}`;
  const data = await api(`/api/tables/${encodeURIComponent(tableId)}/position${q}`);
  // A searched position not settled yet is asked for again when shown again: the server
  // may have proven more since.
  if (data.search && !data.search.proven) return data;
  cache.set(key, data);
  // The canonical spelling answers the same, so later lookups by it skip the network.
  cache.set(`${tableId}\u0000${data.position}`, data);
  return data;
}

// ---------------------------------------------------------------- text helpers

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// "Win in 5", "Draw", "Game over: lose": the value for the player to move.
function valueText(d) {
  if (d.primitive) return `Game over: ${d.value}`;
  if (d.remoteness === null || d.remoteness === undefined) return cap(d.value);
  return `${cap(d.value)} in ${d.remoteness}`;
}

// "Win in 5" as the tables say it, where the distance is known (a search's too: Connect-Four's
// scores give it), then Pons' score where the search gave one; the value alone where only it is.
function moveValueText(m) {
  if (m.value === 'unknown') return current()?.search?.job ? 'Computing…' : 'Not proven';
  const text = present(m.remoteness) ? `${cap(m.value)} in ${m.remoteness}` : cap(m.value);
  return present(m.score) ? `${text} (score ${m.score > 0 ? '+' : ''}${m.score})` : text;
}

const present = (x) => x !== null && x !== undefined;

// Whether the table's positions carry nimbers: a nimber table, or an impartial game served by
// search (Sprouts: nimbers by Lemoine and Viennot's sums).
function hasNimbers(t) {
  return t.table === 'nimber' || (t.table === 'search' && t.impartial);
}

// What a board marker says of the best move through its square: the nimber of the position
// the move leads to in a nimber table (there is no remoteness there; a winning move leads to
// *0), else the remoteness, else "D" for a draw (a loopy game's position that never ends).
function markerText(m) {
  if (present(m.nimber)) return `*${m.nimber}`;
  if (present(m.score)) return m.score > 0 ? `+${m.score}` : String(m.score);
  if (present(m.remoteness)) return String(m.remoteness);
  return m.value === 'draw' ? 'D' : '';
}

// The move's value for the mover, and in a nimber table the nimber it leads to.
function moveLongText(m) {
  const nimber = present(m.nimber) ? `, to a position of nimber *${m.nimber}` : '';
  return `${moveValueText(m)}${nimber}`;
}

// Index (0 first player, 1 second) of the player to move at ply `ply` of the shown game.
// Partisan games say it; impartial ones count plies from the position the game began at.
function moverAt(ply) {
  const d = state.history[ply];
  if (d && d.to_move !== null && d.to_move !== undefined) return d.to_move;
  return ply % 2;
}

function playerName(i) {
  const t = state.table;
  const ordinal = i === 0 ? 'first player' : 'second player';
  if (t && t.players) return `${t.players[i]} (${ordinal})`;
  return ordinal;
}

function current() {
  return state.history[state.cursor] || null;
}

// "Ply 3: " when the game shown began at the game's start; a game opened at another position
// (a link, a typed position) counts its plies from there, since the plies before it are
// unknown: "2 plies on from the position opened: ", and nothing at that position itself.
function plyText() {
  const n = state.cursor;
  if (fromStart()) return `Ply ${n}: `;
  if (n === 0) return '';
  return `${n} ${n === 1 ? 'ply' : 'plies'} on from the position opened: `;
}

function fromStart() {
  return state.history.length > 0 && state.history[0].position === state.table.start;
}

// A row of the value history: its ply from the start, or "+n" from the position opened.
function plyName(n) {
  return fromStart() ? String(n) : `+${n}`;
}

// ---------------------------------------------------------------- loading

async function init() {
  bindControls();
  try {
    const { tables } = await api('/api/tables');
    state.tables = tables;
  } catch (e) {
    showGlobalError(`Could not list the tables: ${e.message}`);
    stopLoading();
    return;
  }
  const sel = $('table');
  sel.replaceChildren(
    ...state.tables.map((t) => el('option', { value: t.id, text: `${t.id} — ${t.game}` }))
  );
  if (state.tables.length === 0) {
    showGlobalError('The server has no tables loaded.');
    stopLoading();
    return;
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get('table');
  let table = state.tables.find((t) => t.id === wanted);
  if (wanted && !table) showGlobalError(`No table '${wanted}' on this server; showing the first one.`);
  table = table || state.tables[0];
  state.hideValues = params.get('hide') === '1';
  $('hide-values').checked = state.hideValues;
  document.body.classList.toggle('values-hidden', state.hideValues);
  await selectTable(table.id, params.has('position') ? params.get('position') : null, linkRecord(params));
}

async function selectTable(id, positionText, record = null) {
  cancelComputer();
  const t = state.tables.find((x) => x.id === id);
  state.table = t;
  $('table').value = id;
  const kind = t.table === 'nimber' ? ' (nimbers)' : t.table === 'search' ? ' (searched, no table)' : '';
  $('game').textContent = `${t.game}${kind}`;
  $('notation').textContent = `Notation: ${t.notation}`;
  $('nimber-legend').hidden = !hasNimbers(t);
  renderRules(t);
  // The note under "This table" speaks of a table's counts: a searched game has none.
  const note = $('about-note');
  if (note.dataset.table === undefined) note.dataset.table = note.textContent;
  note.textContent = t.table === 'search'
    ? 'No table: each position is searched when it is shown; values and scores are for the player to move.'
    : note.dataset.table;
  state.history = [];
  state.cursor = 0;
  renderTableInfo(id);
  const ok = await loadRoot(positionText);
  if (!ok && positionText !== null) {
    // A shared link with a bad position still shows the table, from its start.
    if (await loadRoot(null)) showPositionError(state.lastError);
  } else if (ok && record) {
    await replay(record);
  }
  if (!current()) stopLoading();
}

// The loading placeholders of index.html, taken down when there is nothing to show instead.
function stopLoading() {
  $('board').replaceChildren();
  $('move-list').replaceChildren();
  $('turn').textContent = '';
}

// Start a new game history at `text` (null = the game's start). Returns false on an error,
// leaving the current position as it was.
async function loadRoot(text) {
  const my = ++state.request;
  startSearching();
  try {
    const d = await fetchPosition(state.table.id, text);
    if (my !== state.request) return true;
    stopSearching();
    cancelComputer();
    state.history = [d];
    state.played = [null];
    state.root = text;
    state.cursor = 0;
    clearSelection();
    hidePositionError();
    render();
    return true;
  } catch (e) {
    state.lastError = e.message;
    if (my === state.request) {
      stopSearching();
      showPositionError(e.message);
    }
    return false;
  }
}

// While a searched position's request is in flight, the status says so, with the time it has
// taken (the server searches within its budget: `search` in the answer says how far it got).
function startSearching() {
  stopSearching();
  if (!state.table || state.table.table !== 'search') return;
  const started = performance.now();
  const tick = () => {
    const v = $('value');
    v.textContent = `Searching… ${((performance.now() - started) / 1000).toFixed(1)} s`;
    v.dataset.value = 'searching';
    v.className = 'value unknown';
  };
  tick();
  state.searching = { timer: setInterval(tick, 100), started };
}

function stopSearching() {
  if (state.searching) clearInterval(state.searching.timer);
  state.searching = null;
}

// A searched position left computing on the server is asked for again every REFRESH_MS while
// it is shown: what the job proves fills in (the moves' values, then the position's).
function scheduleRefresh() {
  if (state.refreshTimer !== null) clearTimeout(state.refreshTimer);
  state.refreshTimer = null;
  const d = current();
  if (!d || !d.search || !d.search.job) return;
  state.refreshTimer = setTimeout(async () => {
    state.refreshTimer = null;
    const shown = current();
    const table = state.table;
    const my = state.request;
    let fresh;
    try {
      fresh = await api(`/api/tables/${encodeURIComponent(table.id)}/position?p=${encodeURIComponent(shown.position)}`);
    } catch (_) {
      return; // the next render asks again
    }
    // Only if the page still shows that position and no move was made meanwhile.
    if (state.table !== table || current() !== shown || my !== state.request) return;
    if (fresh.search && fresh.search.proven) cache.set(`${table.id}\u0000${fresh.position}`, fresh);
    state.history[state.cursor] = fresh;
    render();
  }, REFRESH_MS);
}

// What the search did for the position shown: computing on, or how far the request got.
function searchText(d) {
  const s = d.search;
  if (!s) return '';
  const n = (x) => `${x.toLocaleString('en-US')} node${x === 1 ? '' : 's'}`;
  if (s.job) return `Computing on: ${s.job.seconds.toFixed(1)} s, ${n(s.job.nodes)} so far`;
  if (s.proven) return '';
  const unknown = d.moves.some((m) => m.value === 'unknown') || d.value === 'unknown';
  if (!unknown) return '';
  return `Not proven within the budget (${s.seconds.toFixed(1)} s, ${n(s.nodes)})`;
}

async function playMove(move) {
  const d = current();
  if (!d || d.primitive) return;
  cancelComputer();
  const my = ++state.request;
  startSearching();
  try {
    const next = await fetchPosition(state.table.id, move.position);
    if (my !== state.request) return;
    stopSearching();
    state.history = state.history.slice(0, state.cursor + 1);
    state.history.push(next);
    state.played = state.played.slice(0, state.cursor + 1);
    state.played.push(move.move);
    state.cursor += 1;
    clearSelection();
    hidePositionError();
    render();
  } catch (e) {
    if (my === state.request) {
      stopSearching();
      showGlobalError(`Could not play ${move.move}: ${e.message}`);
    }
  }
}

function goTo(ply) {
  if (ply < 0 || ply >= state.history.length || ply === state.cursor) return;
  cancelComputer();
  state.request++; // a move still in flight must not land on top of the jump
  state.cursor = ply;
  clearSelection();
  render();
}

// ---------------------------------------------------------------- the game record

// The moves of a shared link's record (`moves`, separated by spaces) and the ply it shows.
function linkRecord(params) {
  const text = (params.get('moves') || '').trim();
  if (!text) return null;
  const ply = params.has('ply') ? Number(params.get('ply')) : null;
  return { moves: text.split(/\s+/), ply: Number.isInteger(ply) && ply >= 0 ? ply : null };
}

// Plays a link's record from the position loaded, each move by its name among the moves of
// the position reached; a name that is not a legal move there stops the replay, said once.
async function replay(record) {
  const my = state.request;
  for (const [k, name] of record.moves.entries()) {
    const d = state.history[state.history.length - 1];
    const m = d.moves.find((x) => x.move === name);
    if (!m) {
      showGlobalError(`The link's move ${k + 1}, '${name}', is not a legal move there: the game stops before it.`);
      break;
    }
    let next;
    try {
      next = await fetchPosition(state.table.id, m.position);
    } catch (e) {
      showGlobalError(`Could not replay the link's move ${k + 1}, '${name}': ${e.message}`);
      break;
    }
    if (my !== state.request) return; // the user went elsewhere meanwhile
    state.history.push(next);
    state.played.push(name);
  }
  const last = state.history.length - 1;
  state.cursor = record.ply === null ? last : Math.min(record.ply, last);
  render();
}

// The moves played so far, one button each: a click shows the position after that move.
// Moves past the ply shown (undone, kept for redo) are greyed.
function renderRecord() {
  const list = $('record');
  const items = state.played.slice(1).map((name, i) => {
    const ply = i + 1;
    const before = state.history[i];
    const m = before && before.moves.find((x) => x.move === name);
    const value = !state.hideValues && m ? m.value : null;
    const cls = `record-move${ply === state.cursor ? ' current' : ''}${ply > state.cursor ? ' future' : ''}`;
    return el(
      'li',
      { 'data-ply': String(ply), 'data-move': name },
      el(
        'button',
        {
          type: 'button',
          class: cls,
          'aria-current': ply === state.cursor ? 'step' : null,
          'aria-label': `Go to ply ${plyName(ply)}, after ${playerName(moverAt(i))} played ${name}${value ? ` (${moveValueText(m)} for the mover)` : ''}`,
          onclick: () => goTo(ply),
        },
        el('span', { class: 'record-ply', text: `${plyName(ply)}.` }),
        el('span', { class: 'notation-cell', text: name }),
        value ? el('span', { class: `dot ${value}`, title: moveValueText(m) }) : null
      )
    );
  });
  if (!items.length) items.push(el('li', { class: 'none', text: 'No move played yet.' }));
  list.replaceChildren(...items);
  const now = list.querySelector('.current');
  if (now && now.scrollIntoView) now.scrollIntoView({ block: 'nearest' });
}

// The game's rules, as the game's own description words them.
function renderRules(t) {
  $('rules').hidden = !t.rules;
  $('rules-text').textContent = t.rules || '';
}

// Playing the perfect player blind: no value, remoteness, nimber or best move is shown (the
// moves listed by name), and the computer still plays a best move.
function setHideValues(on) {
  state.hideValues = on;
  $('hide-values').checked = on;
  document.body.classList.toggle('values-hidden', on);
  render();
}

// The "This table" panel: what `retrograde info` says of the file. It loads beside the
// position and never blocks play; a failure shows in the panel only.
async function renderTableInfo(id) {
  const box = $('table-info');
  box.replaceChildren();
  $('table-charts').replaceChildren();
  let info;
  try {
    ({ info } = await api(`/api/tables/${encodeURIComponent(id)}`));
  } catch (e) {
    box.append(el('dt', { text: 'Error' }), el('dd', { text: e.message }));
    return;
  }
  if (!state.table || state.table.id !== id) return; // another table was chosen meanwhile
  if (info.table === 'search') {
    // No table: each position is searched when shown, within a budget.
    const b = info.budget;
    const nodes = present(b.nodes) ? ` or ${b.nodes.toLocaleString('en-US')} nodes` : '';
    box.replaceChildren(
      el('dt', { text: 'Game' }),
      el('dd', { 'data-field': 'Game' }, info.game),
      el('dt', { text: 'Values' }),
      el('dd', { 'data-field': 'Values' }, `searched for each position shown, at most ${b.seconds} s${nodes} per request; then computed on (up to ${b.jobs} positions at once, ${b.job_seconds} s each) while the position is shown`)
    );
    return;
  }
  const n = (x) => x.toLocaleString('en-US');
  const c = info.counts;
  const positions = info.entries - c.non_positions;
  const pct = (x) => (positions > 0 ? ` (${((100 * x) / positions).toFixed(1)}%)` : '');
  const rows = [['Game', info.game], ['Positions', n(positions)]];
  if (c.non_positions > 0) rows.push(['Unused indices', n(c.non_positions)]);
  const nimbers = info.table === 'nimber';
  const kinds = nimbers
    ? [['lose', 'Nimber 0 (P-positions)'], ['win', 'Nimber > 0 (N-positions)']]
    : [['win', 'Win for the mover'], ['lose', 'Lose for the mover'], ['tie', 'Tie'], ['draw', 'Draw']];
  for (const [v, label] of kinds) {
    if (c[v] === 0 && (v === 'tie' || v === 'draw')) continue;
    const longest = nimbers || v === 'draw' ? '' : `, longest ${info.max_remoteness[v]} moves`;
    rows.push([label, [el('span', { class: `dot ${v}` }), `${n(c[v])}${pct(c[v])}${longest}`]]);
  }
  if (nimbers) rows.push(['Largest nimber', String(info.max_nimber)]);
  rows.push(['Data CRC32', info.data_crc32], ['Generator', info.generator]);
  box.replaceChildren(
    ...rows.flatMap(([k, v]) => [
      el('dt', { text: k }),
      el('dd', { 'data-field': k }, ...(Array.isArray(v) ? v : [v])),
    ])
  );
  renderTableCharts(id);
}

// ---------------------------------------------------------------- the table's charts

const ANALYSIS_POLL_MS = 300;
const CHART_W = 720;
const CHART_PANEL_H = 220;
const TIER_COLOUR = '#6b7280';
const NIMBER_COLOUR = '#2563eb';

// The "This table" panel's pictures: the remoteness histogram per value (a nimber table: the
// nimbers) and the positions per tier, of the positions reachable from the start, from the
// server's `analyze --json` (`/api/tables/ID/analysis`, made on first request: asked again
// until it is ready). `retrograde analyze FILE --svg OUT.svg` draws the same.
async function renderTableCharts(id) {
  const host = $('table-charts');
  host.replaceChildren(el('p', { class: 'about-note', 'data-loading': 'true', text: 'Analysing the positions reachable from the start (as retrograde analyze does)…' }));
  let a;
  for (;;) {
    try {
      a = await api(`/api/tables/${encodeURIComponent(id)}/analysis`);
    } catch (e) {
      if (state.table && state.table.id === id) host.replaceChildren(el('p', { class: 'error', text: `No charts: ${e.message}` }));
      return;
    }
    if (!state.table || state.table.id !== id) return;
    if (!a.pending) break;
    await new Promise((r) => setTimeout(r, ANALYSIS_POLL_MS));
  }
  host.replaceChildren(drawAnalysis(a));
}

// One panel of grouped bars (as cli/src/cmd/chart.rs draws them): `groups` is
// [label, [{attrs, count, colour, title}]].
function drawBarPanel(id, title, axis, groups, legend) {
  const top = 34;
  const plotH = CHART_PANEL_H - 64;
  const left = 84;
  const plotW = CHART_W - left - 16;
  const base = top + plotH;
  const max = Math.max(1, ...groups.flatMap(([, bars]) => bars.map((b) => b.count)));
  const root = svg('svg', { viewBox: `0 0 ${CHART_W} ${CHART_PANEL_H + 24}`, class: 'analysis-svg', 'data-chart': id, role: 'img', 'aria-label': title });
  root.append(svg('text', { x: left, y: 18, class: 'axis-title', text: title }));
  root.append(svg('line', { x1: left, y1: base, x2: CHART_W - 16, y2: base, class: 'axis-centre' }));
  root.append(svg('line', { x1: left, y1: top, x2: left, y2: base, class: 'axis-centre' }));
  root.append(svg('text', { x: left - 6, y: top + 4, 'text-anchor': 'end', class: 'tick', text: max.toLocaleString('en-US') }));
  root.append(svg('text', { x: left - 6, y: base + 4, 'text-anchor': 'end', class: 'tick', text: '0' }));
  root.append(svg('text', { x: left + plotW / 2, y: base + 34, 'text-anchor': 'middle', class: 'axis-sub', text: axis }));
  legend.forEach(([name, colour], i) => {
    const x = CHART_W - 16 - 60 * (legend.length - i);
    root.append(svg('rect', { x, y: base + 25, width: 10, height: 10, fill: colour }));
    root.append(svg('text', { x: x + 14, y: base + 34, class: 'tick', text: name }));
  });
  if (!groups.length) return root;
  const slot = plotW / groups.length;
  const every = Math.ceil(groups.length / 30);
  groups.forEach(([label, bars], i) => {
    const x0 = left + i * slot;
    const w = (slot * 0.8) / bars.length;
    bars.forEach((b, j) => {
      const h = (plotH * b.count) / max;
      const r = svg('rect', { x: x0 + slot * 0.1 + j * w, y: base - h, width: w, height: h, fill: b.colour, class: 'bar', ...b.attrs, 'data-count': String(b.count) });
      r.append(svg('title', { text: b.title }));
      root.append(r);
    });
    if (i % every === 0) root.append(svg('text', { x: x0 + slot / 2, y: base + 14, 'text-anchor': 'middle', class: 'tick', text: label }));
  });
  return root;
}

function drawAnalysis(a) {
  const n = (x) => x.toLocaleString('en-US');
  let first;
  if (Array.isArray(a.nimbers)) {
    const groups = a.nimbers.map((c, k) => [`*${k}`, [{ attrs: { 'data-nimber': String(k) }, count: c, colour: NIMBER_COLOUR, title: `nimber *${k}: ${n(c)} positions` }]]);
    first = drawBarPanel('remoteness', 'Reachable positions by nimber', 'nimber', groups, []);
  } else {
    const values = ['win', 'lose', 'tie'].filter((v) => (a.remoteness[v] || []).some((c) => c > 0));
    const longest = Math.max(0, ...values.map((v) => a.remoteness[v].length));
    const groups = [];
    for (let r = 0; r < longest; r++) {
      groups.push([String(r), values.map((v) => {
        const c = a.remoteness[v][r] || 0;
        return { attrs: { 'data-value': v, 'data-remoteness': String(r) }, count: c, colour: COLORS[v], title: `${v} in ${r}: ${n(c)} positions` };
      })]);
    }
    first = drawBarPanel('remoteness', 'Reachable positions by remoteness, per value for the player to move', 'remoteness', groups, values.map((v) => [v, COLORS[v]]));
  }
  // The solver numbers tiers from the end of the game up: the order of play is the reverse.
  const tiers = Object.entries(a.tiers).map(([t, c]) => [Number(t), c]).sort((x, y) => y[0] - x[0]);
  const tierGroups = tiers.map(([t, c]) => [String(t), [{ attrs: { 'data-tier': String(t) }, count: c, colour: TIER_COLOUR, title: `tier ${t}: ${n(c)} positions` }]]);
  const second = drawBarPanel('tiers', "Reachable positions per tier, in the order of play (the start's tier first)", 'tier', tierGroups, []);
  return el('div', { class: 'analysis', 'data-reachable': String(a.reachable) },
    el('p', { class: 'about-note', text: `${n(a.reachable)} positions are reachable from the start.` }),
    first, second);
}

// ---------------------------------------------------------------- computer play

function computerPlays(ply) {
  const c = state.computer;
  if (c === 'both') return true;
  if (c === 'none') return false;
  return moverAt(ply) === (c === 'first' ? 0 : 1);
}

function cancelComputer() {
  if (state.computerTimer !== null) clearTimeout(state.computerTimer);
  state.computerTimer = null;
}

// After every render: if it is the computer's turn at the end of the game so far, it plays a
// best move (random among equals). It waits at an undone ply so that undo stays usable.
function scheduleComputer() {
  cancelComputer();
  const d = current();
  if (!d || d.primitive || d.moves.length === 0) return;
  if (state.cursor !== state.history.length - 1) return;
  if (!computerPlays(state.cursor)) return;
  const ply = state.cursor;
  state.computerTimer = setTimeout(() => {
    state.computerTimer = null;
    if (state.cursor !== ply || current() !== d) return;
    const best = d.moves.filter((m) => m.best);
    const pool = best.length ? best : d.moves;
    playMove(pool[Math.floor(Math.random() * pool.length)]);
  }, COMPUTER_DELAY_MS);
}

// ---------------------------------------------------------------- selection on the board

function clearSelection() {
  state.selection = [];
  state.hoverMove = null;
}

// Whether the cells clicked so far, `sel`, begin move `m`: in order, or on a board whose
// moves' steps may come in any order (Cram's domino), as distinct cells of the move.
function begins(m, sel, anyOrder) {
  if (sel.length > m.steps.length) return false;
  if (!anyOrder) return sel.every((c, i) => m.steps[i] === c);
  return sel.every((c, i) => m.steps.includes(c) && sel.indexOf(c) === i);
}

// Moves still possible given the cells clicked so far.
function candidates() {
  const d = current();
  if (!d || !d.board) return [];
  const s = state.selection;
  return d.moves.filter((m) => m.steps.length > s.length && begins(m, s, d.board.steps_any_order));
}

// The cells that may be clicked next for move `m`.
function nextCells(m) {
  const d = current();
  const k = state.selection.length;
  if (!d.board.steps_any_order) return [m.steps[k]];
  return m.steps.filter((c) => !state.selection.includes(c));
}

// One marker per target cell of the next step, for the best move through it (moves come
// best first, so the first one met is the best).
function targets() {
  const out = new Map();
  for (const m of candidates()) {
    for (const cell of nextCells(m)) {
      if (!out.has(cell)) out.set(cell, { best: m, count: 0 });
      out.get(cell).count += 1;
    }
  }
  return out;
}

function clickCell(cell) {
  const d = current();
  if (!d || d.primitive) return;
  const t = targets();
  if (!t.has(cell)) {
    // Gravity boards: a click anywhere in a column means the column's landing cell.
    if (d.board.gravity && state.selection.length === 0) {
      const c = d.board.cells[cell];
      for (const k of t.keys()) {
        const o = d.board.cells[k];
        if (c && o.layer === c.layer && o.col === c.col && (d.board.layout === 'grid' || o.row === c.row)) {
          return clickCell(k);
        }
      }
    }
    if (state.selection.length) {
      clearSelection();
      render();
    }
    return;
  }
  const sel = [...state.selection, cell];
  const done = candidates().filter(
    (m) => m.steps.length === sel.length && begins(m, sel, d.board.steps_any_order)
  );
  if (done.length) {
    playMove(done[0]);
    return;
  }
  state.selection = sel;
  state.hoverMove = null;
  render();
}

// ---------------------------------------------------------------- rendering

function render() {
  const d = current();
  if (!d) return;
  renderStatus(d);
  renderBoard(d);
  renderMoves(d);
  renderChart();
  renderRecord();
  $('position').value = d.position;
  $('undo').disabled = state.cursor === 0;
  $('start').disabled = state.cursor === 0;
  $('redo').disabled = state.cursor >= state.history.length - 1;
  updateUrl();
  scheduleComputer();
  scheduleRefresh();
}

// The link holds the game record: the position it starts from as it was typed or linked
// (none: the game's start), the moves played from there (undone ones too, so redo survives a
// reload), the ply shown when it is not the last, and whether values are hidden.
function updateUrl() {
  const parts = [`table=${encodeURIComponent(state.table.id)}`];
  if (state.root !== null) parts.push(`position=${encodeURIComponent(state.root)}`);
  const moves = state.played.slice(1);
  if (moves.length) parts.push(`moves=${moves.map(encodeURIComponent).join('%20')}`);
  if (moves.length && state.cursor !== state.history.length - 1) parts.push(`ply=${state.cursor}`);
  if (state.hideValues) parts.push('hide=1');
  const q = `?${parts.join('&')}`;
  if (location.search !== q) history.replaceState(null, '', `${location.pathname}${q}`);
}

function renderStatus(d) {
  const v = $('value');
  const hidden = state.hideValues;
  if (hidden) v.textContent = d.primitive ? 'Game over' : 'Values hidden';
  else if (d.value === 'unknown' && d.search)
    v.textContent = d.search.job ? 'Not proven within the budget: computing on' : 'Not proven within the budget';
  else v.textContent = valueText(d);
  $('search-status').textContent = searchText(d);
  if (hidden) delete v.dataset.value;
  else v.dataset.value = d.value;
  v.className = hidden ? 'value hidden' : `value ${d.value}`;
  const mover = moverAt(state.cursor);
  const who = playerName(mover);
  const cpu = computerPlays(state.cursor) && !d.primitive ? ' — computer thinking…' : '';
  $('turn').textContent = `${plyText()}${who} to move${d.primitive ? ', and cannot' : cpu}`;
  $('nimber').textContent = hidden || d.nimber === null || d.nimber === undefined ? '' : `Nimber *${d.nimber}`;
  const selected = state.selection.length
    ? `Selected ${state.selection.map((c) => d.board.cells[c].label).join(' → ')}; click the next square, or Esc to cancel.`
    : '';
  $('hint').textContent = d.primitive
    ? 'Game over.'
    : selected || (!d.board ? 'Choose a move from the list.' : d.board.layout === 'pile' ? 'Choose how many to take.' : 'Click a marked square to move.');
}

function renderMoves(d) {
  if (state.hideValues) return renderMovesHidden(d);
  const list = $('move-list');
  const items = d.moves.map((m, i) => {
    const mover = moverAt(state.cursor);
    const li = el(
      'li',
      {
        'data-move': m.move,
        'data-value': m.value,
        'data-remoteness': m.remoteness === null ? '' : String(m.remoteness),
        'data-nimber': present(m.nimber) ? String(m.nimber) : null,
        'data-best': m.best ? 'true' : 'false',
        class: `move ${m.value}`,
      },
      el(
        'button',
        {
          type: 'button',
          class: 'move-button',
          'aria-label': `Play ${m.move}: ${moveLongText(m)} for ${playerName(mover)}${m.best ? ', best' : ''}`,
          onclick: () => playMove(m),
          onmouseenter: () => preview(m),
          onmouseleave: () => preview(null),
          onfocus: () => preview(m),
          onblur: () => preview(null),
          onkeydown: (ev) => listKey(ev, i),
        },
        el('span', { class: 'star', text: m.best ? '★' : '', 'aria-hidden': 'true' }),
        el('span', { class: 'notation-cell', text: m.move }),
        // A nimber table's point: the nimber of each child (Glop's "children" tab).
        present(m.nimber)
          ? el('span', { class: 'child-nimber', 'data-nimber': String(m.nimber), title: 'nimber of the position after this move', text: `→ *${m.nimber}` })
          : el('span'),
        el('span', { class: `badge ${m.value}`, text: moveValueText(m) })
      )
    );
    return li;
  });
  if (!items.length) items.push(el('li', { class: 'none', text: 'No legal moves: the game is over.' }));
  list.replaceChildren(...items);

  const pile = $('pile-moves');
  if (d.board && d.board.layout === 'pile') {
    pile.hidden = false;
    const byAmount = [...d.moves].sort((a, b) => Number(a.move) - Number(b.move));
    pile.replaceChildren(
      ...byAmount.map((m) =>
        el(
          'button',
          {
            type: 'button',
            class: `take ${m.value}`,
            'data-take': m.move,
            'aria-label': `Take ${m.move}: ${moveValueText(m)}`,
            onclick: () => playMove(m),
          },
          el('span', { class: 'take-n', text: `Take ${m.move}` }),
          el('span', { class: 'take-v', text: moveValueText(m) })
        )
      )
    );
  } else {
    pile.hidden = true;
    pile.replaceChildren();
  }
}

// The moves with nothing of their values, not even their order (best first would tell): by
// name, numbers in numeric order.
function renderMovesHidden(d) {
  const mover = moverAt(state.cursor);
  const byName = [...d.moves].sort((a, b) => a.move.localeCompare(b.move, 'en', { numeric: true }));
  const items = byName.map((m, i) =>
    el(
      'li',
      { 'data-move': m.move, class: 'move' },
      el(
        'button',
        {
          type: 'button',
          class: 'move-button',
          'aria-label': `Play ${m.move} for ${playerName(mover)}`,
          onclick: () => playMove(m),
          onmouseenter: () => preview(m),
          onmouseleave: () => preview(null),
          onfocus: () => preview(m),
          onblur: () => preview(null),
          onkeydown: (ev) => listKey(ev, i),
        },
        el('span', { class: 'star', 'aria-hidden': 'true' }),
        el('span', { class: 'notation-cell', text: m.move }),
        el('span'),
        el('span')
      )
    )
  );
  if (!items.length) items.push(el('li', { class: 'none', text: 'No legal moves: the game is over.' }));
  $('move-list').replaceChildren(...items);
  const pile = $('pile-moves');
  if (d.board && d.board.layout === 'pile') {
    pile.hidden = false;
    const byAmount = [...d.moves].sort((a, b) => Number(a.move) - Number(b.move));
    pile.replaceChildren(
      ...byAmount.map((m) =>
        el('button', { type: 'button', class: 'take', 'data-take': m.move, 'aria-label': `Take ${m.move}`, onclick: () => playMove(m) }, el('span', { class: 'take-n', text: `Take ${m.move}` }))
      )
    );
  } else {
    pile.hidden = true;
    pile.replaceChildren();
  }
}

function listKey(ev, i) {
  const buttons = [...$('move-list').querySelectorAll('button')];
  let j = null;
  if (ev.key === 'ArrowDown') j = Math.min(i + 1, buttons.length - 1);
  if (ev.key === 'ArrowUp') j = Math.max(i - 1, 0);
  if (ev.key === 'Home') j = 0;
  if (ev.key === 'End') j = buttons.length - 1;
  if (j !== null) {
    ev.preventDefault();
    ev.stopPropagation();
    buttons[j].focus();
  }
}

function preview(m) {
  state.hoverMove = m;
  fillPreview();
}

function fillPreview() {
  if (!state.geom) return;
  const { g, layer } = state.geom;
  const m = state.hoverMove;
  layer.replaceChildren();
  if (m && m.steps && m.steps.length) layer.append(drawPreview(m, g));
}

// ---------------------------------------------------------------- the board

// Pixel geometry of every cell: {x, y, s} (top-left corner and size), per layout.
function geometry(board) {
  const cells = board.cells;
  const layers = board.layout === 'layers';
  const big = Math.max(board.cols, board.rows);
  const s = layers ? (board.cols > 2 ? 52 : 64) : big > 6 ? 52 : big > 4 ? 68 : 84;
  const pad = 14;
  const gap = layers ? 28 : 0;
  // A strip above the board for the layers' names, or for the columns' names (above the frame,
  // so that it hides none of them).
  const columns = board.labels === 'columns';
  const labelH = layers || columns ? 22 : 0;
  let minRow = 0;
  let maxCol = board.cols - 1;
  for (const c of cells) {
    if (c.row < minRow) minRow = c.row;
    if (c.col > maxCol) maxCol = c.col;
  }
  const layerW = board.cols * s;
  const pos = cells.map((c) => {
    const lx = layers ? c.layer * (layerW + gap) : 0;
    return { x: pad + lx + c.col * s, y: pad + labelH + (c.row - minRow) * s, s };
  });
  const width = layers
    ? pad * 2 + board.layers * layerW + (board.layers - 1) * gap
    : pad * 2 + (maxCol + 1) * s;
  const height = pad * 2 + labelH + (board.rows - minRow) * s;
  return { pos, width, height, s, pad, labelH, layerW, gap };
}

function renderBoard(d) {
  const host = $('board');
  if (!d) return;
  const b = d.board;
  if (!b) {
    // A game with no board drawing (Sprouts): the position in its notation, one land a line.
    state.geom = null;
    host.replaceChildren(renderNotation(d));
    return;
  }
  if (b.layout === 'pile') {
    state.geom = null;
    host.replaceChildren(renderPile(d));
    return;
  }
  const g = geometry(b);
  const root = svg('svg', {
    viewBox: `0 0 ${g.width} ${g.height}`,
    width: g.width,
    height: g.height,
    class: 'board-svg',
    role: 'img',
    'aria-label': `Board: ${d.position}`,
  });

  if (b.layout === 'layers') {
    for (let l = 0; l < b.layers; l++) {
      const x = g.pad + l * (g.layerW + g.gap);
      const name = l === 0 ? ' (bottom)' : l === b.layers - 1 ? ' (top)' : '';
      root.append(svg('text', { x: x + g.layerW / 2, y: g.pad + 14, class: 'layer-label', 'text-anchor': 'middle', text: `layer ${l + 1}${name}` }));
    }
  }
  if (b.cell_shape === 'hole') {
    // The frame behind the holes.
    root.append(svg('rect', { x: g.pad - 6, y: g.pad + g.labelH - 6, width: b.cols * g.s + 12, height: b.rows * g.s + 12, rx: 10, class: 'frame' }));
  }
  // The exits beside the board: a faint strip around each player's, in the player's colour.
  for (const player of [0, 1]) {
    const ps = b.cells.map((c, i) => [c, g.pos[i]]).filter(([c]) => c.state === 'exit' && c.player === player).map(([, p]) => p);
    if (!ps.length) continue;
    const x0 = Math.min(...ps.map((p) => p.x));
    const y0 = Math.min(...ps.map((p) => p.y));
    const x1 = Math.max(...ps.map((p) => p.x + p.s));
    const y1 = Math.max(...ps.map((p) => p.y + p.s));
    root.append(svg('rect', { x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: `exit-strip p${player}` }));
  }

  b.cells.forEach((c, i) => root.append(drawCell(c, i, g.pos[i], b)));

  // Selection, previews and move markers go on top of the cells.
  const sel = state.selection;
  sel.forEach((k, n) => {
    const p = g.pos[k];
    root.append(svg('rect', { x: p.x + 3, y: p.y + 3, width: p.s - 6, height: p.s - 6, rx: 8, class: 'selected-cell', 'data-selected': k }));
    root.append(svg('text', { x: p.x + 9, y: p.y + 17, class: 'step-no', text: String(n + 1) }));
  });
  // Previews live in their own layer so hovering redraws only it, not the cells under the mouse.
  const layer = svg('g', { class: 'preview-layer' });
  root.append(layer);
  state.geom = { g, layer };
  fillPreview();

  if (!d.primitive) {
    for (const [cell, t] of targets()) root.append(drawMarker(cell, t, g.pos[cell], b.cells[cell], g, b));
  }
  host.replaceChildren(root);
}

function drawCell(c, i, p, b) {
  const grp = svg('g', {
    'data-cell': i,
    'data-state': c.state,
    'data-label': c.label,
    class: `cell ${c.state}`,
  });
  const { x, y, s } = p;
  const cx = x + s / 2;
  const cy = y + s / 2;
  if (c.state === 'exit') {
    grp.append(svg('rect', { x: x + 4, y: y + 4, width: s - 8, height: s - 8, rx: 6, class: 'exit-cell' }));
    grp.append(svg('title', { text: 'off the board' }));
    return grp;
  }
  const player = c.state === 'p0' ? 0 : c.state === 'p1' ? 1 : null;
  const holes = b.cell_shape === 'hole';
  if (holes) {
    // A round hole in the frame; a piece fills it.
    grp.append(svg('rect', { x, y, width: s, height: s, class: 'frame-bg' }));
    if (player === null) grp.append(svg('circle', { cx, cy, r: s * 0.38, class: 'frame-hole' }));
  } else {
    grp.append(svg('rect', { x: x + 1, y: y + 1, width: s - 2, height: s - 2, class: `square ${c.state === 'covered' ? 'covered' : ''}` }));
    // A removed square's hole, a covered square's domino: a block that stops short of the
    // bottom strip where the square's number is written, so that the number stays readable.
    if (c.state === 'removed' || c.state === 'covered') {
      const inset = c.state === 'removed' ? 7 : 5;
      grp.append(svg('rect', { x: x + inset, y: y + inset, width: s - 2 * inset, height: s - inset - LABEL_STRIP, rx: 6, class: c.state === 'removed' ? 'hole' : 'domino-half' }));
    }
  }
  if (player !== null && b.pieces[player]) grp.append(drawPiece(b.pieces[player], player, cx, cy, s));
  // The square's name, small in the corner, for reading moves off the board; a column's name
  // once, above the column.
  if (b.labels === 'columns') {
    if (c.row === 0) grp.append(svg('text', { x: cx, y: y - 12, class: 'col-label', 'text-anchor': 'middle', text: c.label }));
  } else if (c.label) {
    grp.append(svg('text', { x: x + s - 5, y: y + s - 5, class: 'cell-label', 'text-anchor': 'end', text: c.label }));
  }
  grp.append(svg('title', { text: `${c.label || i}: ${c.state}` }));
  return grp;
}

// Player `player`'s piece, as the board describes it, centred on (cx, cy) in a cell of size s.
function drawPiece(piece, player, cx, cy, s) {
  const cls = `p${player}`;
  switch (piece.shape) {
    case 'car':
      return drawCar(cls, piece.facing, cx, cy, s);
    case 'token': {
      // A round token bearing the player's name.
      const grp = svg('g');
      grp.append(svg('circle', { cx, cy, r: s * 0.32, class: `piece ${cls}` }));
      grp.append(svg('text', { x: cx, y: cy + s * 0.1, class: 'piece-label', 'text-anchor': 'middle', text: piece.name }));
      return grp;
    }
    case 'disc':
      return svg('circle', { cx, cy, r: s * 0.38, class: `disc ${cls}` });
    case 'cross': {
      const r = s * 0.27;
      return svg('path', { d: `M${cx - r} ${cy - r}L${cx + r} ${cy + r}M${cx + r} ${cy - r}L${cx - r} ${cy + r}`, class: `mark cross ${cls}` });
    }
    default:
      return svg('circle', { cx, cy, r: s * 0.28, class: `mark ring ${cls}` });
  }
}

const FACING_ANGLE = { right: 0, up: -90, left: 180, down: 90 };

// A car seen from above, pointing the way it drives.
function drawCar(cls, facing, cx, cy, s) {
  const g = svg('g', { class: `car ${cls}` });
  const angle = FACING_ANGLE[facing] || 0;
  g.setAttribute('transform', `translate(${cx} ${cy}) rotate(${angle})`);
  const L = s * 0.36;
  const W = s * 0.22;
  g.append(svg('rect', { x: -L, y: -W, width: 2 * L, height: 2 * W, rx: W * 0.6, class: 'car-body' }));
  g.append(svg('rect', { x: -L * 0.2, y: -W * 0.75, width: L * 0.6, height: W * 1.5, rx: 3, class: 'car-glass' }));
  for (const wx of [-L * 0.55, L * 0.55]) {
    for (const wy of [-W - 2, W - 2]) g.append(svg('rect', { x: wx - s * 0.08, y: wy, width: s * 0.16, height: 4, rx: 1.5, class: 'car-wheel' }));
  }
  // The arrow of travel, on the bonnet (inside the car so a neighbouring square cannot hide it).
  g.append(svg('path', { d: `M${L * 0.62} ${-W * 0.6}L${L * 0.98} 0L${L * 0.62} ${W * 0.6}Z`, class: 'car-arrow' }));
  return g;
}

function drawMarker(cell, t, p, c, g, b) {
  if (state.hideValues) return drawBlindMarker(cell, t, p, c);
  const m = t.best;
  const { x, y, s } = p;
  const cx = x + s / 2;
  const cy = y + s / 2;
  const label = markerText(m);
  const grp = svg('g', {
    'data-target': cell,
    'data-value': m.value,
    'data-remoteness': m.remoteness === null ? '' : String(m.remoteness),
    class: `marker ${m.value}`,
    role: 'button',
    tabindex: '0',
    'data-text': label,
    'aria-label': `${c.label || cell}: ${moveLongText(m)}${t.count > 1 ? ` (best of ${t.count} moves)` : ''}`,
  });
  const occupied = c.state === 'p0' || c.state === 'p1';
  // On a board of round discs (Connect-Four's red and yellow) a filled round marker would
  // read as a disc: there markers are white with the value's colour as their outline.
  const outlined = b.pieces.some((piece) => piece.shape === 'disc');
  grp.setAttribute('data-shape', MARKER_SHAPE[m.value] || 'circle');
  if (outlined) grp.classList.add('outlined');
  // A transparent square over the whole cell takes the click, whatever is drawn in it.
  grp.append(svg('rect', { x, y, width: s, height: s, class: 'marker-hit' }));
  if (occupied) {
    // A car to pick up: ring it and put the badge in the corner so the car stays visible.
    grp.append(svg('rect', { x: x + 2, y: y + 2, width: s - 4, height: s - 4, rx: 8, class: 'marker-ring', stroke: COLORS[m.value] }));
    grp.append(markerShape(m.value, x + s - 12, y + 12, 10, outlined));
    grp.append(svg('text', { x: x + s - 12, y: y + 16, class: `marker-text ${m.value}`, 'text-anchor': 'middle', text: label }));
  } else {
    grp.append(markerShape(m.value, cx, cy, s * 0.24, outlined));
    grp.append(svg('text', { x: cx, y: cy + 5, class: `marker-text ${m.value}`, 'text-anchor': 'middle', text: label }));
  }
  grp.append(svg('title', { text: `${m.move}: ${moveLongText(m)}` }));
  // Hovering the second step of a two-step move previews the whole move (Cram: the domino).
  if (state.selection.length > 0) {
    grp.addEventListener('mouseenter', () => preview(m));
    grp.addEventListener('mouseleave', () => preview(null));
  }
  return grp;
}

// Each value has its own marker shape as well as its colour, so that a marker is read without
// its colour (a colour-blind player, a board whose pieces share the colours): win a circle,
// lose a square, tie and draw a diamond.
const MARKER_SHAPE = { win: 'circle', lose: 'square', tie: 'diamond', draw: 'diamond', unknown: 'circle' };

function markerShape(value, cx, cy, r, outlined) {
  const colour = COLORS[value] || COLORS.unknown;
  // The outline's colour is the stylesheet's (per value), which a stroke attribute could not beat.
  const paint = outlined ? { fill: '#ffffff', class: `marker-dot outlined ${value}` } : { fill: colour, class: 'marker-dot' };
  switch (MARKER_SHAPE[value]) {
    case 'square': {
      const h = r * 0.9;
      return svg('rect', { x: cx - h, y: cy - h, width: 2 * h, height: 2 * h, rx: 3, ...paint });
    }
    case 'diamond': {
      const h = r * 1.2;
      return svg('path', { d: `M${cx} ${cy - h}L${cx + h} ${cy}L${cx} ${cy + h}L${cx - h} ${cy}Z`, ...paint });
    }
    default:
      return svg('circle', { cx, cy, r, ...paint });
  }
}

// A marker that says only "a move starts here": the values are hidden.
function drawBlindMarker(cell, t, p, c) {
  const { x, y, s } = p;
  const grp = svg('g', {
    'data-target': cell,
    class: 'marker blind',
    role: 'button',
    tabindex: '0',
    'aria-label': `${c.label || cell}: a move${t.count > 1 ? ` (${t.count} moves)` : ''}`,
  });
  grp.append(svg('rect', { x, y, width: s, height: s, class: 'marker-hit' }));
  const occupied = c.state === 'p0' || c.state === 'p1';
  if (occupied) grp.append(svg('rect', { x: x + 2, y: y + 2, width: s - 4, height: s - 4, rx: 8, class: 'marker-ring blind' }));
  else grp.append(svg('circle', { cx: x + s / 2, cy: y + s / 2, r: s * 0.1, class: 'marker-dot blind' }));
  // The preview of a second step's only move (a cell several moves share would show the best).
  if (state.selection.length > 0 && t.count === 1) {
    grp.addEventListener('mouseenter', () => preview(t.best));
    grp.addEventListener('mouseleave', () => preview(null));
  }
  return grp;
}

function drawPreview(m, g) {
  const grp = svg('g', { class: 'preview', 'data-preview': m.move });
  const ps = m.steps.map((k) => g.pos[k]);
  const join = current().board.steps_join;
  if (join === 'span' && ps.length > 1) {
    // One piece spanning every step's cell (a domino).
    const x0 = Math.min(...ps.map((p) => p.x));
    const y0 = Math.min(...ps.map((p) => p.y));
    const x1 = Math.max(...ps.map((p) => p.x + p.s));
    const y1 = Math.max(...ps.map((p) => p.y + p.s));
    grp.append(svg('rect', { x: x0 + 5, y: y0 + 5, width: x1 - x0 - 10, height: y1 - y0 - 10, rx: 8, class: 'domino-preview' }));
    return grp;
  }
  ps.forEach((p, n) => {
    grp.append(svg('rect', { x: p.x + 3, y: p.y + 3, width: p.s - 6, height: p.s - 6, rx: 8, class: 'preview-cell' }));
    if (ps.length > 1) grp.append(svg('text', { x: p.x + 9, y: p.y + 17, class: 'step-no', text: String(n + 1) }));
  });
  if (join === 'arrow' && ps.length > 1) {
    const a = ps[0];
    const c = ps[ps.length - 1];
    grp.append(svg('line', { x1: a.x + a.s / 2, y1: a.y + a.s / 2, x2: c.x + c.s / 2, y2: c.y + c.s / 2, class: 'preview-arrow' }));
  }
  return grp;
}

function renderNotation(d) {
  const lands = d.position.split('+');
  return el(
    'div',
    { class: 'notation-board', 'data-position': d.position, role: 'img', 'aria-label': `Position: ${d.position}` },
    el('p', { class: 'notation-note', text: lands.length > 1 ? `${lands.length} lands, played independently:` : 'One land:' }),
    ...lands.map((l) => el('code', { class: 'land', text: l })),
    d.search && !d.search.proven
      ? el('p', { class: 'notation-note', 'data-search': 'unproven', text: `The search stopped (${d.search.stopped || 'limit'}) after ${d.search.nodes.toLocaleString('en-US')} nodes: what it did not reach is unknown.` })
      : null
  );
}

function renderPile(d) {
  const n = d.board.pile;
  const chips = Math.min(n, 40);
  const perRow = 10;
  const rows = Math.ceil(chips / perRow);
  const w = 360;
  const h = 120 + rows * 28;
  const root = svg('svg', { viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: 'board-svg pile-svg', role: 'img', 'aria-label': `Pile of ${n}` });
  root.append(svg('text', { x: w / 2, y: 84, 'text-anchor': 'middle', class: 'pile-number', 'data-pile': n, text: String(n) }));
  for (let i = 0; i < chips; i++) {
    const r = Math.floor(i / perRow);
    const col = i % perRow;
    root.append(svg('circle', { cx: w / 2 - (perRow - 1) * 15 + col * 30, cy: 116 + r * 28, r: 11, class: 'chip' }));
  }
  if (n > chips) root.append(svg('text', { x: w - 10, y: h - 6, 'text-anchor': 'end', class: 'cell-label', text: `(${chips} of ${n} chips drawn)` }));
  return root;
}

// ---------------------------------------------------------------- the value history chart

// GamesmanUni's visual value history: one row per ply going down; the horizontal axis is
// remoteness, with the centre line = the end of the game. A position won by the first player
// sits left of the centre, one won by the second player right of it, at a distance equal to its
// remoteness; ties are drawn on both sides (neither player wins), draws on the centre line.
// Points are coloured by the value for the player to move at that ply. A tie is one point on
// the centre line with its remoteness written beside it: a point on each side, as it once was
// drawn, counted the tie twice and showed the line through the game on the first player's side.
// Each row names the move that led to it, at the right.
function renderChart() {
  const host = $('history-chart');
  const hist = state.history;
  if (!hist.length) return;
  if (state.hideValues) {
    host.replaceChildren(el('p', { class: 'chart-hidden', 'data-hidden': 'true', text: 'Values are hidden: the value history shows again when they are.' }));
    return;
  }
  let maxR = 1;
  for (const d of hist) if (d.remoteness !== null && d.remoteness > maxR) maxR = d.remoteness;
  const rowH = 22;
  const left = 54;
  // Room for the moves' names.
  const right = 20 + 8 * Math.min(24, Math.max(4, ...state.played.slice(1).map((n) => n.length)));
  const top = 60;
  const unit = Math.max(8, Math.min(26, Math.floor(300 / maxR)));
  // Wide enough for the titles above, however short the game.
  const half = Math.max(maxR * unit + 10, 150);
  const width = left + 2 * half + right;
  const height = top + hist.length * rowH + 12;
  const mid = left + half;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'chart-svg', role: 'img', 'aria-label': 'Value and remoteness of every position of the game so far' });

  const p0 = state.table.players ? `${state.table.players[0]} wins` : 'first player wins';
  const p1 = state.table.players ? `${state.table.players[1]} wins` : 'second player wins';
  root.append(svg('text', { x: mid - 8, y: 14, 'text-anchor': 'end', class: 'axis-title', text: `← ${p0}` }));
  root.append(svg('text', { x: mid + 8, y: 14, class: 'axis-title', text: `${p1} →` }));
  root.append(svg('text', { x: mid, y: 14, 'text-anchor': 'middle', class: 'axis-title', text: '|' }));
  root.append(svg('text', { x: 6, y: top - 8, class: 'axis-title', text: 'ply ↓' }));
  // A nimber table has no remoteness: its points stand at one distance, on the winner's side.
  const nimbers = hasNimbers(state.table);
  // Remoteness ticks on both sides of the centre line (the game's end).
  const step = maxR <= 12 ? 1 : maxR <= 30 ? 5 : 10;
  for (let r = 0; r <= (nimbers ? 0 : maxR); r += step) {
    for (const sgn of r === 0 ? [0] : [-1, 1]) {
      const x = mid + sgn * r * unit;
      root.append(svg('line', { x1: x, y1: top - 4, x2: x, y2: height - 8, class: r === 0 ? 'axis-centre' : 'grid-line' }));
      root.append(svg('text', { x, y: top - 10, 'text-anchor': 'middle', class: 'tick', text: String(r) }));
    }
  }
  const sub = nimbers ? 'no remoteness in a nimber table: the side shows who wins' : 'remoteness (centre = game over)';
  root.append(svg('text', { x: mid, y: 32, 'text-anchor': 'middle', class: 'axis-sub', text: sub }));

  const pts = hist.map((d, ply) => {
    const y = top + ply * rowH + rowH / 2;
    const mover = moverAt(ply);
    let xs;
    if (d.value === 'unknown') xs = [mid];
    else if (nimbers && !d.primitive) xs = [mid + ((d.value === 'win' ? mover : 1 - mover) === 0 ? -1 : 1) * half / 2];
    else if (d.value === 'draw' || d.remoteness === null) xs = [mid];
    else if (d.value === 'tie') xs = [mid];
    else {
      const winner = d.value === 'win' ? mover : 1 - mover;
      xs = [mid + (winner === 0 ? -1 : 1) * d.remoteness * unit];
    }
    return { d, ply, y, xs };
  });

  // Current ply band and row labels.
  pts.forEach(({ ply, y }) => {
    const row = svg('g', { class: `chart-row${ply === state.cursor ? ' current' : ''}${ply > state.cursor ? ' future' : ''}`, 'data-ply': ply });
    row.append(svg('rect', { x: 0, y: y - rowH / 2, width, height: rowH, class: 'row-band' }));
    row.append(svg('text', { x: left - 12, y: y + 4, 'text-anchor': 'end', class: 'tick', text: plyName(ply) }));
    if (state.played[ply]) {
      const name = state.played[ply].length > 24 ? `${state.played[ply].slice(0, 23)}…` : state.played[ply];
      row.setAttribute('data-move', state.played[ply]);
      row.append(svg('text', { x: width - 6, y: y + 4, 'text-anchor': 'end', class: 'row-move', text: name }));
    }
    row.addEventListener('click', () => goTo(ply));
    root.append(row);
  });
  // The line through the game, then the points.
  const line = pts.map((p) => `${p.xs[0]},${p.y}`).join(' ');
  if (pts.length > 1) root.append(svg('polyline', { points: line, class: 'history-line' }));
  pts.forEach(({ d, ply, y, xs }) => {
    for (const x of xs) {
      const c = svg('circle', {
        cx: x,
        cy: y,
        r: ply === state.cursor ? 7 : 5,
        fill: COLORS[d.value],
        class: `point ${d.value}${ply === state.cursor ? ' current' : ''}${ply > state.cursor ? ' future' : ''}`,
        'data-ply': ply,
        'data-value': d.value,
        tabindex: '0',
        role: 'button',
        'aria-label': `Ply ${plyName(ply)}: ${valueText(d)} for ${playerName(moverAt(ply))}`,
      });
      c.append(svg('title', { text: `ply ${plyName(ply)}: ${valueText(d)} (${d.position})` }));
      c.addEventListener('click', (ev) => {
        ev.stopPropagation();
        goTo(ply);
      });
      if (d.value === 'tie' && present(d.remoteness)) root.append(svg('text', { x: x + 10, y: y + 4, class: 'tick tie-remoteness', text: String(d.remoteness) }));
      c.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          goTo(ply);
        }
      });
      root.append(c);
    }
  });
  host.replaceChildren(root);
}

// ---------------------------------------------------------------- errors

function showGlobalError(msg) {
  const e = $('global-error');
  e.textContent = msg;
  e.hidden = false;
}

function showPositionError(msg) {
  const e = $('position-error');
  e.textContent = msg;
  e.hidden = false;
  $('position').setAttribute('aria-invalid', 'true');
}

function hidePositionError() {
  $('position-error').hidden = true;
  $('position-error').textContent = '';
  $('position').removeAttribute('aria-invalid');
  $('global-error').hidden = true;
}

// ---------------------------------------------------------------- controls

function bindControls() {
  $('table').addEventListener('change', (ev) => selectTable(ev.target.value, null));
  $('undo').addEventListener('click', () => goTo(state.cursor - 1));
  $('redo').addEventListener('click', () => goTo(state.cursor + 1));
  $('start').addEventListener('click', () => goTo(0));
  $('hide-values').addEventListener('change', (ev) => setHideValues(ev.target.checked));
  $('computer').addEventListener('change', (ev) => {
    state.computer = ev.target.value;
    render();
  });
  $('position-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('position').value.trim();
    loadRoot(text === '' ? null : text);
  });
  $('board').addEventListener('click', (ev) => {
    // The board redraws on a click, detaching ev.target: the document listener below must not
    // then mistake it for a click outside the board.
    ev.stopPropagation();
    const target = ev.target.closest('[data-target]');
    if (target) return clickCell(Number(target.dataset.target));
    const cell = ev.target.closest('[data-cell]');
    if (cell) return clickCell(Number(cell.dataset.cell));
    if (state.selection.length) {
      clearSelection();
      render();
    }
  });
  $('board').addEventListener('keydown', (ev) => {
    const target = ev.target.closest && ev.target.closest('[data-target]');
    if (target && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      clickCell(Number(target.dataset.target));
    }
  });
  // A click anywhere outside the board cancels a half-made move.
  document.addEventListener('click', (ev) => {
    if (state.selection.length && !$('board').contains(ev.target)) {
      clearSelection();
      render();
    }
  });
  document.addEventListener('keydown', (ev) => {
    const tag = ev.target && ev.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (ev.key === 'Escape' && state.selection.length) {
      clearSelection();
      render();
    } else if (ev.key === 'ArrowLeft') {
      ev.preventDefault();
      goTo(state.cursor - 1);
    } else if (ev.key === 'ArrowRight') {
      ev.preventDefault();
      goTo(state.cursor + 1);
    }
  });
}

// ---------------------------------------------------------------- computing branch

// The computing branch of the job left computing the position shown (Glop's "computing
// branch"): the line its search is on, from the root down, each level with its children still
// unknown (coloured as Glop does: green 5–10, yellow 3–4, orange 2, red 1) and the child being
// computed; ◀ and ▶ ask a level to compute its previous child or its next unknown one (the
// values never depend on it). Polled as the jobs are, on its own timer.
const BRANCH_MS = 1000;
const branchState = { inflight: false };

async function pollBranch() {
  const panel = $('branch');
  const d = current();
  const table = state.table;
  if (!panel || !table || table.table !== 'search' || !d || !d.search || !d.search.job) {
    if (panel) panel.hidden = true;
    return;
  }
  if (branchState.inflight) return;
  branchState.inflight = true;
  try {
    const b = await api(`/api/tables/${encodeURIComponent(table.id)}/branch?p=${encodeURIComponent(d.position)}`);
    if (state.table === table && current() === d) renderBranch(b);
  } catch (_) {
    // The next poll asks again.
  } finally {
    branchState.inflight = false;
  }
}

function renderBranch(b) {
  const panel = $('branch');
  if (!b.running || !b.levels.length) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const rows = b.levels.map((l) => {
    const child = l.current === null ? '–' : `${l.current + 1}${l.steered ? '*' : ''}`;
    const step = (label, title, choice) =>
      el('button', { type: 'button', title, 'data-testid': `branch-${choice}-${l.depth}`, onclick: () => steerBranch(b.position, l, choice) }, label);
    return el('tr', { 'data-testid': 'branch-level', 'data-depth': String(l.depth) },
      el('td', {}, String(l.depth)),
      el('td', { class: l.colour ? `branch-${l.colour}` : '', 'data-testid': 'branch-unknown' }, `${l.unknown}/${l.children}`),
      el('td', {}, step('◀', 'compute the previous child', 'previous'), ` ${child} `, step('▶', 'compute the next unknown child', 'next')),
      el('td', { class: 'branch-position' }, l.position));
  });
  panel.replaceChildren(
    el('h3', {}, `Computing branch (${b.nodes.toLocaleString('en-US')} nodes)`),
    el('table', {},
      el('thead', {}, el('tr', {}, el('th', {}, 'Depth'), el('th', {}, 'Unknown'), el('th', {}, 'Child'), el('th', {}, 'Position'))),
      el('tbody', {}, ...rows)));
}

async function steerBranch(position, level, choice) {
  const table = state.table;
  const q = [`p=${encodeURIComponent(position)}`, `depth=${level.depth}`, `level=${level.id}`];
  if (choice === 'next') q.push('next');
  else q.push(`child=${((level.current ?? 0) + level.children - 1) % Math.max(level.children, 1)}`);
  try {
    await fetch(`/api/tables/${encodeURIComponent(table.id)}/steer?${q.join('&')}`, { method: 'POST', headers: { Accept: 'application/json' } });
  } catch (_) {
    // Nothing to undo: the search goes on with its own choice.
  }
  pollBranch();
}

setInterval(pollBranch, BRANCH_MS);

init();
