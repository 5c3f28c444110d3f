// The Hivecrawl page: live status by server-sent events, settings and
// actions through the local API with the token this browser's session was
// given (see ui/web's package documentation).
'use strict';

(function () {
  const HOUR = 3600 * 1000;
  const PAGES = ['dashboard', 'settings', 'credits', 'solo'];
  const S = {
    token: null,     // the API token, once signed in
    samples: [],     // the last hour of readings
    status: null,    // the latest status
    config: null,    // the latest configuration
    page: null,
  };

  const $ = id => document.getElementById(id);

  // ---- formatting ----
  function fmtBytes(n) {
    if (!(n > 0)) return '0 B';
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
    return (i === 0 ? n.toFixed(0) : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)) + ' ' + units[i];
  }
  const fmtRate = n => fmtBytes(n) + '/s';
  const fmtPct = v => (v >= 10 || v === 0 ? v.toFixed(0) : v.toFixed(1)) + ' %';
  // fmtCredits rounds to a tenth (whole credits from 100). A total that
  // sums to nothing may be a hair below zero (the ledger adds and takes
  // away floats): it is 0, never −0.
  function fmtCredits(v) {
    v = Number(v) || 0;
    const r = Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 10) / 10;
    return (r === 0 ? 0 : r).toLocaleString();
  }
  function fmtCount(v) { return Number(v || 0).toLocaleString(); }
  function fmtElapsed(ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' min ' + (s % 60) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }
  function fmtTime(iso) {
    const d = new Date(iso);
    return isNaN(d) ? '' : d.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
  }
  // bytesInput writes a byte count the way the settings accept it back.
  function bytesInput(n, rate) {
    if (!(n > 0)) return '0';
    const units = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']];
    for (const [u, name] of units) {
      if (n >= u) {
        const v = Math.round(n / u * 1000) / 1000;
        return String(v) + name + (rate ? '/s' : '');
      }
    }
    return String(n) + (rate ? 'B/s' : 'B');
  }
  function localDate(d) {
    const p = v => String(v).padStart(2, '0');
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate());
  }
  function ofCap(cur, cap, fmt) { return fmt(cur) + (cap > 0 ? ' of ' + fmt(cap) : ' · no cap'); }

  // ---- talking to the client ----
  async function getJSON(path) {
    const r = await fetch(path, { credentials: 'same-origin' });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error || r.statusText);
    return body;
  }
  async function post(path, body) {
    if (!S.token) throw new Error('Read-only view: open the dashboard from the tray to change anything.');
    const init = { method: 'POST', credentials: 'same-origin', headers: { 'X-Hivecrawl-Token': S.token } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    const res = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(res.error || r.statusText);
    return res;
  }
  function say(node, text, ok) {
    node.textContent = text;
    node.className = 'msg ' + (ok ? 'ok' : 'err');
  }

  // The helpers the other pages' scripts (solo.js) share.
  window.HC = { getJSON, post, say, fmtTime, fmtCount, fmtElapsed, fmtCredits, page: () => S.page };

  // ---- navigation ----
  function show(page, focus) {
    if (!PAGES.includes(page)) page = 'dashboard';
    S.page = page;
    for (const p of PAGES) $('page-' + p).hidden = p !== page;
    document.querySelectorAll('nav a').forEach(a => {
      if (a.dataset.page === page) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    document.title = 'Hivecrawl · ' + page.charAt(0).toUpperCase() + page.slice(1);
    if (focus) $('main').focus();
    if (page === 'settings') loadConfig();
    if (page === 'credits') loadReceipts();
    if (page === 'dashboard') { drawCharts(); loadEvents(); }
    if (page === 'solo') window.HCSolo.show();
  }

  // ---- dashboard ----
  function stateWords(st) {
    const running = (st.tasks && st.tasks.running) ? st.tasks.running.length : 0;
    if (st.state === 'paused') return ['Paused', 'paused'];
    if (st.finishing) return ['Finishing ' + running + (running === 1 ? ' site' : ' sites') + ', then pausing', 'running'];
    if (st.state === 'throttled') return [running ? 'Crawling ' + running + (running === 1 ? ' site' : ' sites') + ', held back by a limit' : 'Throttled', 'throttled'];
    if (running) return ['Crawling ' + running + (running === 1 ? ' site' : ' sites') + ' · ' + fmtRate(st.download.current), 'running'];
    return ['Idle: waiting for tasks', 'idle'];
  }

  // renderButtons offers Resume while the contributor's pause or snooze
  // holds, Pause otherwise.
  function renderButtons(st) {
    const held = S.config ? (S.config.paused || (S.config.snooze_until && Date.parse(S.config.snooze_until) > Date.now())) : st.state === 'paused';
    $('btn-pause').hidden = !!held;
    // Resume also calls a finish off.
    $('btn-resume').hidden = !held && !st.finishing;
    $('btn-finish').hidden = !!held || !!st.finishing;
    // Paused for a reason of its own (load, schedule, quota): the button
    // keeps it paused after the reason ends.
    const auto = !held && st.state === 'paused';
    $('btn-pause').textContent = auto ? 'Stay paused' : 'Pause';
    $('btn-pause').title = auto ? 'Hivecrawl is paused for the reason shown; this keeps it paused until you resume it' : '';
  }

  function renderStatus(st) {
    const prev = S.status;
    S.status = st;
    // A pause or resume made elsewhere (tray, CLI) shows in the settings.
    if (prev && prev.state !== st.state) loadConfig().then(() => { if (S.status === st) renderButtons(st); });
    const [words, cls] = stateWords(st);
    $('state-text').textContent = words;
    $('state-dot').className = 'dot ' + cls;
    const reasons = $('reasons');
    reasons.replaceChildren(...(st.reasons || []).map(r => { const li = document.createElement('li'); li.textContent = r; return li; }));
    renderButtons(st);
    // Start at login is the desktop's: a headless client has no login to
    // start at, and says what does the same there.
    $('start-note').hidden = st.desktop !== false;
    $('s-start').disabled = !S.token || st.desktop === false;
    const cp = $('config-problem');
    cp.hidden = !st.config_problem;
    cp.textContent = st.config_problem ? 'Your settings file was not used, so Hivecrawl runs with safe defaults: ' + st.config_problem : '';

    $('pages-today').textContent = fmtCount(st.pages.today);
    $('pages-total').textContent = fmtCount(st.pages.total);
    $('credits-confirmed').textContent = fmtCredits(st.credits.confirmed);
    $('credits-pending').textContent = fmtCredits(st.credits.pending);
    $('credits-rac').textContent = fmtCredits(st.credits.recent_average);
    // The Credits page's totals follow the status too, so they show when
    // that page is the first one opened.
    $('c-confirmed').textContent = fmtCredits(st.credits.confirmed);
    $('c-pending').textContent = fmtCredits(st.credits.pending);
    $('c-revoked').textContent = fmtCredits(st.credits.revoked || 0);
    $('c-rac').textContent = fmtCredits(st.credits.recent_average);
    const running = st.tasks.running || [];
    // Pages count once their result is stored; a crawl under way shows its
    // own pages beside them.
    const crawling = running.reduce((n, t) => n + t.pages, 0);
    $('pages-running').textContent = crawling ? ' · ' + fmtCount(crawling) + ' in crawls under way' : '';
    $('tasks-running').textContent = running.length + ' running';
    $('tasks-queued').textContent = st.tasks.queued;
    $('tasks-threads').textContent = st.tasks.threads;
    $('transfer-today').textContent = fmtBytes(st.transfer.today);
    $('transfer-sub').textContent = (st.transfer.daily_quota > 0 ? 'of ' + fmtBytes(st.transfer.daily_quota) + ' a day' : 'no daily quota') +
      ' · month ' + fmtBytes(st.transfer.month) + (st.transfer.monthly_quota > 0 ? ' of ' + fmtBytes(st.transfer.monthly_quota) : '');
    $('conns').textContent = st.connections.open;
    $('conns-sub').textContent = st.connections.cap > 0 ? 'of ' + st.connections.cap + ' allowed' : 'no cap';
    // What Hivecrawl keeps on disk against its cap, and the volume's free
    // space against what Hivecrawl leaves free (Settings, Disk).
    const dk = st.disk || {};
    $('disk').textContent = dk.kept || dk.free ? fmtBytes(dk.kept) : '–';
    $('disk-sub').textContent = (dk.cap > 0 ? 'of a ' + fmtBytes(dk.cap) + ' cap' : 'no cap') +
      (dk.free ? ' · ' + fmtBytes(dk.free) + ' free' + (dk.min_free > 0 ? ', ' + fmtBytes(dk.min_free) + ' left to you' : '') : '');
    const ov = st.overlay;
    $('peers').textContent = ov ? ov.peers : '–';
    $('peers-sub').textContent = ov ? window.HCOverlay.modeWords(ov) : 'no overlay: local mode';
    drawZone(st);
    window.HCSolo.status(st);

    const body = $('tasks-body');
    if (running.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 5; td.className = 'empty';
      td.textContent = st.state === 'paused' ? 'Nothing runs while paused.' : 'No task is running.';
      tr.appendChild(td);
      body.replaceChildren(tr);
    } else {
      body.replaceChildren(...running.map(t => {
        const tr = document.createElement('tr');
        const pages = fmtCount(t.pages) + (t.known > t.pages ? ' of ' + fmtCount(t.known) + ' found' : '');
        const left = t.seconds_left ? 'about ' + fmtElapsed(t.seconds_left * 1000) : (t.pages_left ? 'estimating…' : '–');
        [[t.channel, ''], [pages, 'num'], [t.depth, 'num'], [fmtElapsed(Date.now() - Date.parse(t.started)), 'num'], [left, 'num']].forEach(([v, c]) => {
          const td = document.createElement('td');
          td.textContent = v; td.className = c;
          tr.appendChild(td);
        });
        return tr;
      }));
    }
    $('queued-line').textContent = st.tasks.queued ? st.tasks.queued + (st.tasks.queued === 1 ? ' task waits' : ' tasks wait') + ' in the queue.' : 'The queue is empty.';
    const aside = st.tasks.set_aside || [];
    $('aside-line').hidden = aside.length === 0;
    $('aside-line').textContent = aside.map(t => t.channel + ': ' + t.reason + '.').join(' ');

    $('now-down').textContent = ofCap(st.download.current, st.download.cap, fmtRate);
    $('now-up').textContent = ofCap(st.upload.current, st.upload.cap, fmtRate);
    $('now-cpu').textContent = fmtPct(st.cpu.own) + (st.cpu.cap > 0 ? ' of ' + fmtPct(st.cpu.cap) : '') + ' · others ' + fmtPct(st.cpu.other);
    // Memory is what Hivecrawl holds now (its resident set), in the units
    // the Memory cap setting takes; "537 MB · no cap" did not say which
    // of the two the figure was.
    $('now-mem').textContent = fmtBytes(st.memory.rss) + ' in use' + (st.memory.cap > 0 ? ' of a ' + fmtBytes(st.memory.cap) + ' cap' : ' · no cap set');
    $('now-mem').title = 'Memory Hivecrawl holds now (resident set size)' +
      (st.memory.cap > 0 ? '; crawling pauses above the cap' : '; set a memory cap in Settings to pause crawling above it');
    $('version').textContent = 'Hivecrawl ' + (st.version || '');
    $('uptime').textContent = st.started ? 'running since ' + fmtTime(st.started) : '';
  }

  function drawCharts() {
    if (S.page !== 'dashboard') return;
    const now = S.samples.length ? Math.max(Date.now(), S.samples[S.samples.length - 1].t) : Date.now();
    const pts = k => S.samples.map(s => [s.t, s[k]]);
    // The last hour, or less while there is less to show (at least 10 min).
    const first = S.samples.length ? S.samples[0].t : now;
    const span = Math.min(HOUR, Math.max(10 * 60000, Math.ceil((now - first) / 600000) * 600000));
    const C = window.HCCharts;
    const draw = (id, opts) => capLegend($(id), C.line($(id), Object.assign({ span, now }, opts)), opts.fmt);
    draw('chart-down', { series: [{ cls: 's0', area: true, points: pts('d') }], cap: pts('dc'), fmt: fmtRate, max: 1000 });
    draw('chart-up', { series: [{ cls: 's0', area: true, points: pts('u') }], cap: pts('uc'), fmt: fmtRate, max: 1000 });
    draw('chart-cpu', { series: [{ cls: 's0', area: true, points: pts('c') }, { cls: 's1', points: pts('co') }], cap: pts('cc'), fmt: fmtPct, max: 10, ceil: 100 });
    draw('chart-mem', { series: [{ cls: 's0', area: true, points: pts('m') }], cap: pts('mc'), fmt: fmtBytes, max: 1e6 });
  }

  // capLegend names a chart's cap under it: none while no cap was set in
  // the time shown, and its value when it is far above the readings and so
  // left off the scale.
  function capLegend(svg, cap, fmt) {
    const item = svg.parentElement.querySelector('.cap-item');
    item.hidden = !cap.capped;
    item.querySelector('.cap-text').textContent = cap.capOff ? 'cap ' + fmt(cap.capNow) + ', above the scale' : 'cap';
  }

  async function loadCreditDays() {
    try {
      const days = await getJSON('/ui/credits/days?days=30');
      const byDate = {};
      for (const d of days) byDate[d.date] = d;
      const labels = [], confirmed = [], pending = [];
      for (let i = 29; i >= 0; i--) {
        const d = new Date(); d.setDate(d.getDate() - i);
        const k = localDate(d);
        labels.push(k);
        confirmed.push(byDate[k] ? byDate[k].confirmed : 0);
        pending.push(byDate[k] ? byDate[k].pending : 0);
      }
      window.HCCharts.bars($('chart-credits'), {
        labels, fmt: fmtCredits,
        stacks: [{ cls: 'bar-confirmed', label: 'confirmed', values: confirmed }, { cls: 'bar-pending', label: 'pending', values: pending }],
      });
    } catch (e) {
      window.HCCharts.placeholder($('chart-credits'), 'Credits unavailable: ' + e.message);
    }
  }

  // drawZone shows this peer's place in the CAN space when the status has
  // an overlay section; in local mode the note under it says why there is
  // none (overlay.js).
  function drawZone(st) {
    window.HCOverlay.render(st ? st.overlay : null);
  }

  // ---- live updates ----
  function connect() {
    const conn = $('conn');
    const es = new EventSource('/ui/events');
    es.onopen = () => { conn.textContent = 'Live'; conn.className = 'conn'; };
    es.onerror = () => { conn.textContent = 'Not connected to Hivecrawl — retrying…'; conn.className = 'conn bad'; };
    es.addEventListener('history', ev => {
      S.samples = JSON.parse(ev.data) || [];
      drawCharts();
    });
    es.addEventListener('tick', ev => {
      const t = JSON.parse(ev.data);
      if (t.error) {
        conn.textContent = 'Hivecrawl is not answering: ' + t.error;
        conn.className = 'conn bad';
        return;
      }
      conn.textContent = 'Live'; conn.className = 'conn';
      if (t.sample) {
        const last = S.samples[S.samples.length - 1];
        if (!last || t.sample.t > last.t) S.samples.push(t.sample);
        const from = t.sample.t - HOUR;
        while (S.samples.length && S.samples[0].t < from) S.samples.shift();
      }
      if (t.status) renderStatus(t.status);
      drawCharts();
    });
  }

  // ---- actions ----
  async function act(path, done) {
    const msg = $('action-msg');
    try {
      const res = await post(path);
      done(res);
      await loadConfig();
      if (S.status) renderStatus(S.status);
    } catch (e) {
      say(msg, e.message, false);
    }
  }

  // ---- settings ----
  const fields = () => Array.from(document.querySelectorAll('#settings-form [name]'));

  function valueOf(cfg, name) {
    return name.split('.').reduce((o, k) => (o == null ? undefined : o[k]), cfg);
  }

  function fillSettings(cfg) {
    for (const input of fields()) {
      // Keep what is being typed, and a refused value until it is fixed.
      if (input === document.activeElement || input.getAttribute('aria-invalid') === 'true') continue;
      const v = valueOf(cfg, input.name);
      switch (input.dataset.kind) {
        case 'bool': input.checked = !!v; break;
        case 'radio': input.checked = input.value === v; break;
        case 'rate': input.value = bytesInput(v, true); break;
        case 'bytes': input.value = bytesInput(v, false); break;
        default: input.value = v == null ? '' : String(v);
      }
    }
    $('preset-custom').hidden = cfg.preset !== 'custom';
    if (!document.querySelector('#schedule-rows :focus')) renderSchedule((cfg.schedule && cfg.schedule.windows) || []);
  }

  async function loadConfig() {
    try {
      S.config = await getJSON('/api/config');
      fillSettings(S.config);
    } catch (e) { /* the connection line already says the client is away */ }
  }

  async function saveField(input) {
    // A radio group says Saved at its last choice.
    const msg = input.dataset.kind === 'radio' ? input.closest('fieldset').querySelector('.msg') : input.parentElement.querySelector('.msg');
    const value = input.dataset.kind === 'bool' ? String(input.checked) : input.value.trim();
    try {
      S.config = await post('/api/config', { [input.name]: value });
      input.setAttribute('aria-invalid', 'false');
      if (input.dataset.kind === 'radio') {
        // A preset replaces every limit, refused values being typed too.
        for (const f of fields()) {
          if (f.getAttribute('aria-invalid') !== 'true') continue;
          f.setAttribute('aria-invalid', 'false');
          say(f.parentElement.querySelector('.msg'), '', true);
        }
      }
      say(msg, 'Saved', true);
      const keep = document.activeElement;
      input.blur();
      fillSettings(S.config);
      if (keep && keep !== input) keep.focus();
    } catch (e) {
      input.setAttribute('aria-invalid', 'true');
      say(msg, e.message, false);
    }
  }

  // ---- weekly schedule editor ----
  const DAYS = [['mon', 'Mon'], ['tue', 'Tue'], ['wed', 'Wed'], ['thu', 'Thu'], ['fri', 'Fri'], ['sat', 'Sat'], ['sun', 'Sun']];
  let windowSeq = 0;

  function windowRow(w) {
    const id = 'w' + (++windowSeq);
    const fs = document.createElement('fieldset');
    fs.className = 'window';
    const lg = document.createElement('legend');
    fs.appendChild(lg);
    const days = document.createElement('div');
    days.className = 'days';
    for (const [d, label] of DAYS) {
      const lab = document.createElement('label');
      const cb = document.createElement('input');
      cb.type = 'checkbox'; cb.value = d; cb.className = 'day';
      cb.checked = (w.days || []).includes(d);
      lab.append(cb, ' ' + label);
      days.appendChild(lab);
    }
    const times = document.createElement('div');
    times.className = 'times';
    const input = (cls, label, value, placeholder) => {
      const lab = document.createElement('label');
      lab.htmlFor = id + cls;
      lab.textContent = label;
      const i = document.createElement('input');
      i.type = 'text'; i.id = id + cls; i.className = cls; i.value = value || ''; i.placeholder = placeholder;
      i.autocomplete = 'off';
      times.append(lab, i);
    };
    input('start', 'From', w.start || '18:00', 'HH:MM');
    input('end', 'to', w.end || '23:00', 'HH:MM');
    input('down', 'download cap', w.download ? bytesInput(w.download, true) : '', 'normal');
    input('up', 'upload cap', w.upload ? bytesInput(w.upload, true) : '', 'normal');
    const rm = document.createElement('button');
    rm.type = 'button'; rm.textContent = 'Remove'; rm.className = 'needs-token';
    rm.disabled = !S.token;
    rm.addEventListener('click', () => { fs.remove(); numberWindows(); });
    times.appendChild(rm);
    fs.append(days, times);
    if (!S.token) fs.querySelectorAll('input').forEach(i => { i.disabled = true; });
    return fs;
  }

  function numberWindows() {
    const rows = document.querySelectorAll('#schedule-rows .window');
    rows.forEach((fs, i) => { fs.querySelector('legend').textContent = 'Window ' + (i + 1); });
    if (rows.length === 0) {
      const p = document.createElement('p');
      p.className = 'sub empty-schedule';
      p.textContent = 'No windows: Hivecrawl may crawl at any time.';
      $('schedule-rows').appendChild(p);
    } else {
      document.querySelectorAll('#schedule-rows .empty-schedule').forEach(p => p.remove());
    }
  }

  function renderSchedule(windows) {
    $('schedule-rows').replaceChildren(...windows.map(windowRow));
    numberWindows();
  }

  function collectSchedule() {
    return Array.from(document.querySelectorAll('#schedule-rows .window')).map(fs => {
      const w = {
        days: Array.from(fs.querySelectorAll('.day:checked')).map(c => c.value),
        start: fs.querySelector('.start').value.trim(),
        end: fs.querySelector('.end').value.trim(),
      };
      const down = fs.querySelector('.down').value.trim(), up = fs.querySelector('.up').value.trim();
      if (down) w.download = down;
      if (up) w.upload = up;
      return w;
    });
  }

  async function saveSchedule() {
    const msg = $('schedule-msg');
    const windows = collectSchedule();
    try {
      S.config = await post('/api/config', { schedule: windows.length ? JSON.stringify({ windows }) : '' });
      say(msg, 'Schedule saved', true);
      renderSchedule((S.config.schedule && S.config.schedule.windows) || []);
    } catch (e) {
      say(msg, e.message, false);
    }
  }

  // ---- credits ----
  async function loadReceipts() {
    if (S.status) {
      $('c-confirmed').textContent = fmtCredits(S.status.credits.confirmed);
      $('c-pending').textContent = fmtCredits(S.status.credits.pending);
      $('c-revoked').textContent = fmtCredits(S.status.credits.revoked || 0);
      $('c-rac').textContent = fmtCredits(S.status.credits.recent_average);
    }
    const body = $('receipts-body');
    try {
      const res = await getJSON('/ui/receipts?limit=500');
      if (!res.receipts.length) {
        const tr = document.createElement('tr');
        const td = document.createElement('td');
        td.colSpan = 8; td.className = 'empty';
        td.textContent = res.available ? 'No receipts yet: they arrive as finished tasks are delivered.' : 'This client keeps no credits ledger.';
        tr.appendChild(td);
        body.replaceChildren(tr);
        return;
      }
      body.replaceChildren(...res.receipts.map(r => {
        const tr = document.createElement('tr');
        const status = r.state === 'revoked' ? 'revoked: ' + (r.reason || 'failed a spot-check')
          : r.confirmed ? 'confirmed' : r.signed ? 'pending spot-check' : 'pending (unsigned local receipt)';
        [[fmtTime(r.issued_at), ''], [r.channel || r.task_id, ''], [fmtCount(r.pages_accepted), 'num'], [fmtCount(r.pages_new), 'num'],
          [fmtCount(r.pages_changed), 'num'], [fmtBytes(r.bytes), 'num'], [fmtCredits(r.credits), 'num'], [status, '']].forEach(([v, c]) => {
          const td = document.createElement('td');
          td.textContent = v; td.className = c;
          tr.appendChild(td);
        });
        return tr;
      }));
    } catch (e) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 8; td.className = 'empty';
      td.textContent = 'Cannot read the receipts: ' + e.message;
      tr.appendChild(td);
      body.replaceChildren(tr);
    }
  }

  // ---- start ----
  async function signIn() {
    try {
      const s = await getJSON('/ui/session');
      S.token = s.signed_in ? s.token : null;
    } catch (e) {
      S.token = null;
    }
    $('readonly').hidden = !!S.token;
    document.body.dataset.signedIn = S.token ? 'yes' : 'no';
    document.querySelectorAll('.needs-token').forEach(b => { b.disabled = !S.token; });
    fields().forEach(i => { i.disabled = !S.token; });
    window.HCSolo.signedIn(!!S.token);
  }

  // ---- the event log: one line per change, newest first ----
  async function loadEvents() {
    let log;
    try {
      log = await getJSON('/api/events?n=30');
    } catch (e) {
      $('events-file').textContent = 'Cannot read the event log: ' + e.message;
      return;
    }
    $('events-file').replaceChildren(...(log.file ? ['Also written to ', Object.assign(document.createElement('code'), { textContent: log.file }), '.'] : ['Kept in memory only: the log file could not be opened.']));
    const list = $('events');
    if (!log.events.length) {
      list.replaceChildren(Object.assign(document.createElement('li'), { className: 'empty', textContent: 'No events yet.' }));
      return;
    }
    list.replaceChildren(...log.events.map(e => {
      const li = document.createElement('li');
      li.className = 'ev-' + e.level.toLowerCase();
      const when = document.createElement('time');
      when.dateTime = e.time;
      when.textContent = new Date(e.time).toLocaleTimeString([], { timeStyle: 'medium' });
      when.title = fmtTime(e.time);
      // A plain sentence; the record as the log file has it on demand.
      const body = document.createElement('div');
      body.className = 'ev-body';
      const msg = document.createElement('span');
      msg.className = 'ev-msg';
      msg.textContent = (e.level === 'INFO' ? '' : (e.level === 'WARN' ? 'Warning' : e.level.charAt(0) + e.level.slice(1).toLowerCase()) + ': ') + (e.text || e.message);
      body.appendChild(msg);
      const attrs = e.attrs || [];
      if (attrs.length || (e.text && e.text !== e.message)) {
        const details = document.createElement('details');
        details.className = 'ev-details';
        const summary = document.createElement('summary');
        summary.textContent = 'Details';
        const dl = document.createElement('dl');
        dl.className = 'ev-attrs';
        const row = (k, v) => dl.append(Object.assign(document.createElement('dt'), { textContent: k }), Object.assign(document.createElement('dd'), { textContent: v }));
        row('event', e.message);
        row('time', fmtTime(e.time));
        for (const a of attrs) {
          const i = a.indexOf('=');
          row(i < 0 ? a : a.slice(0, i), i < 0 ? '' : a.slice(i + 1));
        }
        details.append(summary, dl);
        body.appendChild(details);
      }
      li.append(when, body);
      return li;
    }));
  }

  async function start() {
    await signIn();
    fields().forEach(input => input.addEventListener('change', () => saveField(input)));
    $('btn-pause').addEventListener('click', () => act('/api/pause', st => { renderStatus(st); say($('action-msg'), 'Paused', true); }));
    $('btn-finish').addEventListener('click', () => act('/api/finish', st => { renderStatus(st); say($('action-msg'), st.finishing ? 'Finishing, then pausing' : 'Paused', true); }));
    $('btn-resume').addEventListener('click', () => act('/api/resume', st => { renderStatus(st); say($('action-msg'), 'Resumed', true); }));
    $('btn-snooze').addEventListener('click', () => act('/api/snooze?d=1h', res => {
      say($('action-msg'), 'Snoozed until ' + new Date(res.until).toLocaleTimeString([], { timeStyle: 'short' }), true);
    }));
    $('btn-add-window').addEventListener('click', () => {
      const row = windowRow({});
      $('schedule-rows').appendChild(row);
      numberWindows();
      row.querySelector('input').focus();
    });
    $('btn-save-schedule').addEventListener('click', saveSchedule);
    window.addEventListener('hashchange', () => show(location.hash.slice(1), true));
    show(location.hash.slice(1), false);
    await loadConfig();
    connect();
    loadCreditDays();
    setInterval(loadCreditDays, 60 * 1000);
    setInterval(() => { if (S.page === 'credits') loadReceipts(); }, 15 * 1000);
    setInterval(() => { if (S.page !== 'settings') loadConfig(); }, 10 * 1000);
  }

  document.addEventListener('DOMContentLoaded', start);
  setInterval(() => { if (S.page === 'dashboard' && !document.hidden) loadEvents(); }, 5000);
})();
