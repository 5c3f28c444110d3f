// The Solo mode page: add seed URLs to the client's own manager, follow
// its channels' schedule, and read the text crawled. It uses the helpers
// app.js shares as window.HC and is driven by it: status (every update),
// show (the page is opened) and signedIn.
'use strict';

(function () {
  const $ = id => document.getElementById(id);
  const R = {
    mode: null,        // 'solo', 'network' or 'local', from the status
    network: '',       // the network's name in network mode
    rows: new Map(),   // channel ID → its table row, kept so focus stays
    known: new Map(),  // channel ID → the channel as last listed
    shownUpdates: -1,  // the shown channel's results when its pages were read
    channel: null,     // the channel whose pages are shown
    timer: null,
    token: false,
  };

  function fmtDuration(sec) {
    if (!(sec > 0)) return '–';
    if (sec < 90) return Math.round(sec) + ' s';
    const min = sec / 60;
    if (min < 90) return Math.round(min) + ' min';
    const h = min / 60;
    if (h < 48) return (h < 10 ? h.toFixed(1) : Math.round(h)) + ' h';
    return (h / 24).toFixed(h / 24 < 10 ? 1 : 0) + ' days';
  }

  // fmtWhen says how far a time is from now: "in 12 min", "3 h ago".
  function fmtWhen(iso) {
    const t = Date.parse(iso);
    if (isNaN(t)) return '';
    const d = (t - Date.now()) / 1000;
    return d >= 0 ? 'in ' + fmtDuration(Math.max(d, 1)) : fmtDuration(Math.max(-d, 1)) + ' ago';
  }

  function nextWords(c) {
    if (c.crawling) return 'crawling now';
    if (!c.next_crawl) return 'being scheduled';
    return Date.parse(c.next_crawl) <= Date.now() ? 'due now' : fmtWhen(c.next_crawl);
  }

  function lastWords(c) {
    if (c.last_update) return fmtWhen(c.last_update);
    return c.last_submit ? 'not finished yet' : 'not yet';
  }

  // status follows the client's mode; the page changes only when it does.
  function status(st) {
    const mode = st.overlay ? st.overlay.mode : 'local';
    const network = st.overlay ? st.overlay.network || '' : '';
    if (mode === R.mode && network === R.network) return;
    R.mode = mode; R.network = network;
    const other = $('solo-other');
    $('solo-live').hidden = mode !== 'solo';
    other.hidden = mode === 'solo';
    switch (mode) {
      case 'solo':
        $('solo-intro').textContent = 'This client runs its own manager and a one-peer overlay: the sites you add here are crawled on this computer, and their text is kept with it.';
        if (window.HC.page() === 'solo') load();
        break;
      case 'network':
        $('solo-intro').textContent = 'Solo mode is off: this client takes part in ' + (network ? 'the network ' + network : 'a network') + '.';
        other.replaceChildren('Its tasks come from the network\'s manager, so seeds are added there, on the manager\'s machine: ',
          code('hivecrawl seed add --manager URL'), '. Without a stored network profile the client runs solo mode.');
        break;
      default:
        $('solo-intro').textContent = 'Solo mode is off: this client runs in local mode.';
        other.replaceChildren('It crawls the sites in its seeds file (', code('hivecrawl run --local --seeds FILE'),
          ') and joins no overlay. Start it without ', code('--local'), ' to run solo mode and add sites here.');
    }
  }

  function code(text) {
    const c = document.createElement('code');
    c.textContent = text;
    return c;
  }

  function show() {
    if (R.mode === 'solo') load();
    if (!R.timer) R.timer = setInterval(() => { if (window.HC.page() === 'solo' && R.mode === 'solo') load(); }, 5000);
  }

  function signedIn(ok) {
    R.token = ok;
    $('solo-seeds').disabled = !ok;
  }

  async function load() {
    let chs;
    try {
      chs = await window.HC.getJSON('/api/solo/channels');
    } catch (e) {
      emptyRow('Cannot list the channels: ' + e.message);
      return;
    }
    R.known = new Map(chs.map(c => [c.id, c]));
    renderChannels(chs);
    // A new result brings new pages: the list follows.
    const c = R.channel && R.known.get(R.channel);
    if (c && c.updates !== R.shownUpdates) loadPages(c.id, false);
  }

  function emptyRow(text) {
    const tr = document.createElement('tr');
    const td = document.createElement('td');
    td.colSpan = 6; td.className = 'empty'; td.textContent = text;
    tr.appendChild(td);
    $('solo-channels').replaceChildren(tr);
    R.rows.clear();
  }

  // renderChannels updates the rows in place, so a focused Browse button
  // keeps its focus across refreshes.
  function renderChannels(chs) {
    if (!chs.length) {
      emptyRow('No channels yet: add a seed URL above.');
      return;
    }
    const body = $('solo-channels');
    if (!R.rows.size) body.replaceChildren();
    const seen = new Set();
    for (const c of chs) {
      seen.add(c.id);
      let tr = R.rows.get(c.id);
      if (!tr) {
        tr = document.createElement('tr');
        tr.dataset.channel = c.id;
        for (const cls of ['', '', 'num', '', 'num', '']) {
          const td = document.createElement('td');
          td.className = cls;
          tr.appendChild(td);
        }
        const b = document.createElement('button');
        b.type = 'button'; b.className = 'link'; b.textContent = 'Browse';
        b.setAttribute('aria-label', 'Browse the pages of ' + c.id);
        b.addEventListener('click', () => loadPages(c.id, true));
        tr.cells[5].appendChild(b);
        R.rows.set(c.id, tr);
      }
      body.appendChild(tr); // keeps the manager's order
      const cells = tr.cells;
      cells[0].textContent = c.id;
      cells[0].title = 'Seeds: ' + (c.seeds || []).join(' ');
      cells[1].textContent = nextWords(c);
      cells[2].textContent = fmtDuration(c.interval_seconds);
      cells[2].title = c.change_seconds > 0 ? 'Estimated to change about every ' + fmtDuration(c.change_seconds) : '';
      cells[3].textContent = lastWords(c);
      cells[3].title = c.last_update ? window.HC.fmtTime(c.last_update) : '';
      cells[4].textContent = window.HC.fmtCount(c.pages);
    }
    for (const [id, tr] of R.rows) {
      if (!seen.has(id)) { tr.remove(); R.rows.delete(id); }
    }
  }

  async function addSeeds(ev) {
    ev.preventDefault();
    const msg = $('seeds-msg');
    const urls = $('solo-seeds').value.split('\n').map(s => s.trim()).filter(s => s && !s.startsWith('#'));
    if (!urls.length) {
      window.HC.say(msg, 'Type at least one URL, such as https://example.org/', false);
      return;
    }
    try {
      const res = await window.HC.post('/api/solo/seeds', { urls });
      const created = res.created || [];
      window.HC.say(msg, (res.added === 1 ? 'Added 1 seed' : 'Added ' + res.added + ' seeds') +
        (created.length ? ': new ' + (created.length === 1 ? 'channel ' : 'channels ') + created.join(', ') : ' to channels already known') +
        '. The crawl starts within seconds.', true);
      $('solo-seeds').value = '';
      $('solo-seeds').removeAttribute('aria-invalid');
      load();
    } catch (e) {
      $('solo-seeds').setAttribute('aria-invalid', 'true');
      window.HC.say(msg, e.message, false);
    }
  }

  async function loadPages(id, focus) {
    R.channel = id;
    const card = $('solo-browse');
    card.hidden = false;
    $('browse-channel').textContent = id;
    const list = $('solo-pages');
    let res;
    try {
      res = await window.HC.getJSON('/api/solo/pages?channel=' + encodeURIComponent(id));
    } catch (e) {
      $('browse-count').textContent = 'Cannot list the pages: ' + e.message;
      list.replaceChildren();
      return;
    }
    if (R.channel !== id) return;
    const c = R.known.get(id);
    R.shownUpdates = c ? c.updates : -1;
    $('browse-count').textContent = !res.total ? 'Nothing crawled yet: pages appear after the first crawl.' :
      res.total + (res.total === 1 ? ' page' : ' pages') + (res.pages.length < res.total ? ', the first ' + res.pages.length + ' shown' : '') + '.';
    list.replaceChildren(...res.pages.map(p => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button'; b.className = 'page-link';
      b.dataset.url = p.url;
      let path = p.url;
      try { const u = new URL(p.url); path = u.pathname + u.search; } catch (e) { /* shown whole */ }
      const name = document.createElement('span');
      name.className = 'path'; name.textContent = path;
      const when = document.createElement('span');
      when.className = 'when'; when.textContent = window.HC.fmtTime(p.crawled) + (p.has_text ? '' : ' · no text');
      b.append(name, when);
      b.title = p.url;
      b.disabled = !p.has_text;
      b.addEventListener('click', () => loadText(p.url));
      li.appendChild(b);
      return li;
    }));
    if (focus) $('h-browse').scrollIntoView({ block: 'nearest' });
  }

  async function loadText(url) {
    const out = $('solo-text');
    document.querySelectorAll('#solo-pages .page-link').forEach(b => {
      if (b.dataset.url === url) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current');
    });
    try {
      const t = await window.HC.getJSON('/api/solo/text?url=' + encodeURIComponent(url));
      const h = document.createElement('h3');
      h.textContent = t.title || t.target || t.url;
      const meta = document.createElement('p');
      meta.className = 'sub';
      // Only web addresses become links.
      const where = t.target || t.url;
      let a = document.createTextNode(where);
      if (/^https?:\/\//i.test(where)) {
        a = document.createElement('a');
        a.href = where; a.textContent = where; a.rel = 'noopener noreferrer'; a.target = '_blank';
      }
      meta.append(a, ' · crawled ' + window.HC.fmtTime(t.fetched) + ' · WARC ' + t.file + ' at byte ' + t.offset);
      const pre = document.createElement('div');
      pre.className = 'text';
      pre.textContent = t.text;
      out.replaceChildren(h, meta, pre);
      if (t.truncated) {
        const p = document.createElement('p');
        p.className = 'sub'; p.textContent = 'Only the first MiB of the text is shown.';
        out.appendChild(p);
      }
    } catch (e) {
      const p = document.createElement('p');
      p.className = 'msg err'; p.textContent = 'Cannot read the text: ' + e.message;
      out.replaceChildren(p);
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('solo-form').addEventListener('submit', addSeeds);
    $('btn-close-browse').addEventListener('click', () => {
      R.channel = null;
      $('solo-browse').hidden = true;
      const b = document.querySelector('#solo-channels button');
      if (b) b.focus();
    });
  });

  window.HCSolo = { status, show, signedIn };
})();
