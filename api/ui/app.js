// The relayer's dashboard. It reads everything from the API in the browser:
//   GET /v1/overview every two seconds (counts, queues, stages, hint accuracy),
//   GET /v1/transitions, a Server-Sent Events stream read with fetch so that it can carry the
//     operator token (recent jobs, poison and rate-limit events),
//   GET /v1/jobs/{jobId}/events for a job's timeline,
//   GET and POST /admin/config, GET /admin/config/changes for tuning (admin token).
// The tokens go only to this relayer: the operator token stays in this tab (sessionStorage), the
// admin token only in memory (a reload asks for it again).
'use strict';

const $ = (sel) => document.querySelector(sel);
const maxJobs = 200;
const maxEvents = 50;
const overviewEvery = 2000;
// replayed is how many records of the log a new connection reads back, for the recent jobs.
const replayed = 2000;

const state = {
  operatorToken: sessionStorage.getItem('operatorToken') || '',
  adminToken: '', // kept in memory only: a reload asks for it again
  jobs: new Map(), // jobId -> {kind, status, label, at}, newest last
  lastEntered: null, // {total, at}
  lastEventId: null,
  stream: null, // AbortController of the open stream
  jobsDue: false, // a render of the recent jobs is scheduled
  timer: null,
};

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function time(t) {
  if (!t) return '';
  const d = new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

function secs(v) {
  return v === undefined || v === null ? '' : Number(v).toFixed(v < 10 ? 3 : 1);
}

function showError(msg) {
  const e = $('#error');
  e.textContent = msg;
  e.hidden = !msg;
}

function authHeaders(token) {
  return token ? { Authorization: 'Bearer ' + token } : {};
}

// refusal turns an error answer of the API into a sentence naming which token was refused.
async function refusal(res, what) {
  let msg = res.statusText;
  try {
    const body = await res.json();
    if (body && body.error) msg = body.error.message + ' (' + body.error.label + ')';
  } catch (_) { /* not JSON */ }
  if (res.status === 401) return `The ${what} token was refused (401): ${msg}. Check the token and connect again.`;
  if (res.status === 403) return `${what[0].toUpperCase() + what.slice(1)} access is off on this relayer (403): ${msg}`;
  return `${what} request failed (${res.status}): ${msg}`;
}

async function api(path, token, what, init) {
  const res = await fetch(path, { ...init, headers: { ...authHeaders(token), ...(init && init.headers) } });
  if (!res.ok) throw new Error(await refusal(res, what));
  return (await res.json()).result;
}

function jobLink(id) {
  const a = el('a', { class: 'job', href: '#', title: 'show its timeline', 'data-job-id': id }, id);
  a.addEventListener('click', (ev) => { ev.preventDefault(); showTimeline(id); });
  return a;
}

// --- overview ---

function renderCounts(o) {
  const kinds = o.kinds;
  const statuses = o.statuses;
  const head = $('#counts thead');
  head.replaceChildren(el('tr', {}, el('th', {}, 'kind'), ...statuses.map((s) => el('th', { class: 'num' }, s.replace('_', ' ')))));
  const body = $('#counts tbody');
  const total = {};
  body.replaceChildren(...kinds.map((k) => el('tr', { 'data-kind': k }, el('td', {}, k), ...statuses.map((s) => {
    total[s] = (total[s] || 0) + o.counts[k][s];
    return el('td', { class: 'num', 'data-status': s }, o.counts[k][s]);
  }))));
  body.append(el('tr', { 'data-kind': 'all' }, el('th', {}, 'all'), ...statuses.map((s) => el('th', { class: 'num', 'data-status': s }, total[s]))));
}

function renderQueues(o) {
  $('#queues').replaceChildren(...o.queues.map((q) => el('div', { 'data-queue': q.name },
    el('h3', {}, `${q.name.replaceAll('_', ' ')}: ${q.length}`),
    el('ol', {}, ...q.jobs.map((j) => el('li', { value: j.ahead + 1 }, jobLink(j.jobId), ` ${j.kind}, since ${time(j.since)}`))),
    q.length > q.jobs.length ? el('small', {}, `and ${q.length - q.jobs.length} more`) : '')));
}

function renderStages(o) {
  $('#stages tbody').replaceChildren(...(o.stages || []).map((s) => el('tr', {},
    el('td', {}, s.kind), el('td', {}, s.stage), el('td', { class: 'num' }, s.count),
    el('td', { class: 'num' }, secs(s.p50)), el('td', { class: 'num' }, secs(s.p99)),
    el('td', { class: 'num' }, secs(s.mean)), el('td', { class: 'num' }, secs(s.recentMedian)))));
}

const kindColours = { 'input-proof': '#0b5cad', 'user-decrypt': '#8250df', 'public-decrypt': '#1a7f37', 'delegated-user-decrypt': '#bf8700' };

// renderHints plots, for each job this instance accepted that has ended, the Retry-After it was
// given at acceptance (x) against how long it took (y); on the diagonal the hint was exact.
function renderHints(h) {
  const svg = $('#hints');
  const ns = 'http://www.w3.org/2000/svg';
  const mk = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const samples = h.samples || [];
  const W = 420, H = 300, L = 40, B = 30, T = 10, R = 10;
  const top = Math.max(1, ...samples.map((s) => Math.max(s.given, s.took))) * 1.1;
  const x = (v) => L + (v / top) * (W - L - R);
  const y = (v) => H - B - (v / top) * (H - B - T);
  const parts = [
    mk('line', { x1: x(0), y1: y(0), x2: x(top), y2: y(top), stroke: '#d0d7de', 'stroke-dasharray': '4 3' }),
    mk('line', { x1: L, y1: y(0), x2: W - R, y2: y(0), stroke: '#8c959f' }),
    mk('line', { x1: L, y1: y(0), x2: L, y2: T, stroke: '#8c959f' }),
    mk('text', { x: W - R, y: H - 5, 'text-anchor': 'end' }, 'Retry-After given at acceptance (s)'),
    mk('text', { x: 12, y: T + 4, transform: `rotate(90 12 ${T + 4})` }, 'took (s)'),
  ];
  for (const v of [0, top / 2, top]) {
    parts.push(mk('text', { x: x(v), y: H - B + 12, 'text-anchor': 'middle' }, v.toFixed(1)));
    parts.push(mk('text', { x: L - 4, y: y(v) + 3, 'text-anchor': 'end' }, v.toFixed(1)));
  }
  for (const s of samples) {
    const c = mk('circle', { cx: x(s.given), cy: y(s.took), r: 3, fill: kindColours[s.kind] || '#57606a', 'fill-opacity': 0.6, 'data-job-id': s.jobId });
    c.append(mk('title', {}, `${s.jobId} ${s.kind} ${s.status}: given ${s.given} s, took ${s.took} s`));
    c.addEventListener('click', () => showTimeline(s.jobId));
    parts.push(c);
  }
  svg.replaceChildren(...parts);
  if (samples.length === 0) {
    $('#hints-summary').textContent = `no job accepted by this instance has ended yet (${h.pending} followed)`;
    return;
  }
  const mean = (f) => samples.reduce((a, s) => a + f(s), 0) / samples.length;
  const early = samples.filter((s) => s.took <= s.given).length;
  $('#hints-summary').textContent = `${samples.length} jobs: hint ${mean((s) => s.given).toFixed(2)} s on average, took ` +
    `${mean((s) => s.took).toFixed(2)} s, off by ${mean((s) => Math.abs(s.given - s.took)).toFixed(2)} s; ` +
    `${Math.round((100 * early) / samples.length)}% ended within their hint (${h.pending} still followed)`;
}

async function refreshOverview() {
  try {
    const o = await api('/v1/overview', state.operatorToken, 'operator');
    const entered = Object.values(o.entered).reduce((a, m) => a + Object.values(m).reduce((b, n) => b + n, 0), 0);
    const at = Date.parse(o.at);
    if (state.lastEntered && at > state.lastEntered.at) {
      $('#rate').textContent = ((entered - state.lastEntered.total) / ((at - state.lastEntered.at) / 1000)).toFixed(1);
    }
    state.lastEntered = { total: entered, at };
    if (state.lastEventId === null) state.lastEventId = String(Math.max(0, o.position - replayed));
    $('#total-jobs').textContent = o.jobs;
    $('#position').textContent = o.position;
    $('#chain').textContent = o.chain.outage ? `unreachable since ${time(o.chain.since)}` : 'reachable';
    $('#chain').className = o.chain.outage ? 'bad' : 'ok';
    const providers = o.chain.providers || [];
    const down = providers.filter((p) => p.status !== 'ok');
    $('#providers').textContent = providers.length < 2 ? '' :
      ` · providers ${providers.length - down.length}/${providers.length} healthy` +
      down.map((p) => ` (${p.endpoint} ${p.status})`).join('');
    $('#providers').className = down.length ? 'bad' : 'ok';
    const paused = (o.signers && o.signers.paused) || [];
    $('#signers').textContent = paused.length === 0 ? '' :
      ` · signing keys paused for their balance: ` + paused.map((k) => `${k.address} (${k.balanceWei} wei, floor ${k.floorWei})`).join(', ');
    $('#signers').className = paused.length ? 'bad' : 'ok';
    renderCounts(o);
    renderQueues(o);
    renderStages(o);
    renderHints(o.hints);
    return true;
  } catch (err) {
    showError(err.message);
    return false;
  }
}

// --- the transitions stream ---

function renderJobs() {
  const rows = [...state.jobs.entries()].reverse().map(([id, j]) => el('tr', { 'data-job-id': id },
    el('td', {}, jobLink(id)), el('td', {}, j.kind),
    el('td', { class: 'status status-' + j.status, 'data-status': j.status }, j.status),
    el('td', {}, j.label || ''), el('td', {}, time(j.at))));
  $('#jobs tbody').replaceChildren(...rows);
}

function prepend(list, item) {
  list.prepend(item);
  while (list.children.length > maxEvents) list.lastChild.remove();
}

function onEvent(name, data) {
  if (name === 'transition') {
    const t = JSON.parse(data);
    state.jobs.delete(t.jobId);
    state.jobs.set(t.jobId, { kind: t.kind, status: t.to, label: t.label, at: t.at });
    while (state.jobs.size > maxJobs) state.jobs.delete(state.jobs.keys().next().value);
    if (!state.jobsDue) {
      // One render per frame, however many transitions arrive in it.
      state.jobsDue = true;
      requestAnimationFrame(() => { state.jobsDue = false; renderJobs(); });
    }
  } else if (name === 'poison') {
    const p = JSON.parse(data);
    prepend($('#poison'), el('li', { class: 'bad' }, `${time(p.at)} poison: ${p.handler} on ${p.topic} gave up on ${p.eventType || 'a message'}`,
      p.jobId ? ' of ' : '', p.jobId ? jobLink(p.jobId) : '', `: ${p.reason}`));
  } else if (name === 'ratelimit') {
    const r = JSON.parse(data);
    prepend($('#ratelimits'), el('li', {}, `${time(r.at)} ${r.eventType} ${r.source || ''} ${r.status || r.code || ''} ${r.reason || ''}`));
  }
}

// readStream follows /v1/transitions from the log's head (or from the last event seen, after a
// reconnection), until it is aborted.
async function readStream(signal) {
  const headers = authHeaders(state.operatorToken);
  if (state.lastEventId) headers['Last-Event-ID'] = state.lastEventId;
  const res = await fetch('/v1/transitions', { headers, signal });
  if (!res.ok) throw new Error(await refusal(res, 'operator'));
  $('#state').textContent = 'connected: live';
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let name = 'message', data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
        else if (line.startsWith('id: ')) state.lastEventId = line.slice(4);
      }
      if (data) onEvent(name, data);
    }
  }
}

async function follow(ctrl) {
  while (!ctrl.signal.aborted) {
    try {
      await readStream(ctrl.signal);
    } catch (err) {
      if (ctrl.signal.aborted) return;
      if (err.message.includes('refused') || err.message.includes('(403)')) {
        showError(err.message);
        $('#state').textContent = 'not connected';
        return;
      }
    }
    $('#state').textContent = 'reconnecting…';
    await new Promise((r) => setTimeout(r, 2000));
  }
}

// --- a job's timeline ---

async function showTimeline(id) {
  $('#job-id').value = id;
  const msg = $('#timeline-message');
  try {
    const r = await api('/v1/jobs/' + encodeURIComponent(id.trim()) + '/events', state.operatorToken, 'operator');
    msg.textContent = `${r.jobId} (${r.kind || 'unknown kind'}): ${r.events.length} events`;
    $('#timeline tbody').replaceChildren(...r.events.map((e) => el('tr', {},
      el('td', { class: 'num' }, e.version), el('td', {}, e.type), el('td', {}, time(e.at || e.recordedAt)),
      el('td', { class: 'num' }, e.position), el('td', { class: 'data' }, JSON.stringify(e.data)))));
    $('#timeline-section').scrollIntoView({ block: 'nearest' });
  } catch (err) {
    msg.textContent = err.message;
    $('#timeline tbody').replaceChildren();
  }
}

// --- tuning ---

async function loadTuning() {
  const msg = $('#tuning-message');
  if (!state.adminToken) {
    msg.textContent = 'give the admin token to see and change the runtime parameters';
    $('#tuning tbody').replaceChildren();
    $('#changes tbody').replaceChildren();
    return;
  }
  try {
    const cfg = await api('/admin/config', state.adminToken, 'admin');
    const rows = cfg.params.map((p) => {
      const editable = typeof p.value === 'number' || typeof p.value === 'boolean';
      const input = el('input', { value: editable ? String(p.value) : JSON.stringify(p.value), disabled: !editable, size: 10, 'data-param': p.name });
      const apply = el('button', { type: 'button', disabled: !editable, 'data-apply': p.name }, 'Apply');
      apply.addEventListener('click', () => changeParam(p, input.value));
      return el('tr', { 'data-param': p.name, title: p.description || '' },
        el('td', {}, p.name), el('td', {}, input), el('td', {}, p.unit || ''), el('td', {}, p.constraint), el('td', {}, apply));
    });
    $('#tuning tbody').replaceChildren(...rows);
    const ch = await api('/admin/config/changes', state.adminToken, 'admin');
    $('#changes tbody').replaceChildren(...ch.changes.map((c) => el('tr', {},
      el('td', {}, time(c.at)), el('td', {}, c.who), el('td', {}, c.param),
      el('td', {}, JSON.stringify(c.old)), el('td', {}, JSON.stringify(c.new)), el('td', { class: 'num' }, c.version))));
    if (!msg.dataset.kept) {
      msg.textContent = `configuration version ${cfg.version}`;
      msg.className = 'summary';
    }
    delete msg.dataset.kept;
  } catch (err) {
    msg.textContent = err.message;
    msg.className = 'summary bad';
    $('#tuning tbody').replaceChildren();
    $('#changes tbody').replaceChildren();
  }
}

async function changeParam(p, raw) {
  const msg = $('#tuning-message');
  let value;
  if (typeof p.value === 'boolean') value = raw.trim() === 'true' || raw.trim() === '1';
  else value = Number(raw);
  if (typeof p.value === 'number' && (raw.trim() === '' || Number.isNaN(value))) {
    msg.textContent = `${p.name}: "${raw}" is not a number`;
    msg.className = 'summary bad';
    return;
  }
  try {
    const c = await api('/admin/config', state.adminToken, 'admin', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ param: p.name, value }),
    });
    msg.textContent = `${c.param} changed from ${JSON.stringify(c.old)} to ${JSON.stringify(c.new)} by ${c.who} (version ${c.version})`;
    msg.className = 'summary ok';
    msg.dataset.kept = '1';
  } catch (err) {
    msg.textContent = err.message;
    msg.className = 'summary bad';
    return;
  }
  await loadTuning();
}

// --- connecting ---

async function connect() {
  showError('');
  if (state.stream) state.stream.abort();
  clearInterval(state.timer);
  state.lastEntered = null;
  state.lastEventId = null;
  state.jobs.clear();
  $('#state').textContent = 'connecting…';
  const ok = await refreshOverview();
  loadTuning();
  if (!ok) {
    $('#state').textContent = 'not connected';
    return;
  }
  state.timer = setInterval(refreshOverview, overviewEvery);
  state.stream = new AbortController();
  follow(state.stream);
}

document.addEventListener('DOMContentLoaded', () => {
  $('#operator-token').value = state.operatorToken;
  $('#admin-token').value = state.adminToken;
  $('#tokens').addEventListener('submit', (ev) => {
    ev.preventDefault();
    state.operatorToken = $('#operator-token').value.trim();
    state.adminToken = $('#admin-token').value.trim();
    sessionStorage.setItem('operatorToken', state.operatorToken);
    connect();
  });
  $('#timeline-form').addEventListener('submit', (ev) => { ev.preventDefault(); showTimeline($('#job-id').value); });
  // Connect at once when there is a token from earlier in this tab, or when the audit endpoints
  // are open (a development stack); else wait for the operator's token.
  if (state.operatorToken || document.body.dataset.auditOpen === 'true') connect();
  else $('#state').textContent = 'give the operator token and connect';
});
