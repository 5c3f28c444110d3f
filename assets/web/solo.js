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
    settings: null,    // the channel whose settings are open
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
    if (c.state === 'starting') return 'within seconds';
    if (c.paused) return 'when resumed';
    if (!c.next_crawl) return 'being scheduled';
    return Date.parse(c.next_crawl) <= Date.now() ? 'due now' : fmtWhen(c.next_crawl);
  }

  function lastWords(c) {
    const l = c.last;
    if (!l) return c.last_submit ? 'not finished yet' : 'not yet';
    let w = fmtWhen(l.at) + ' · ' + window.HC.fmtCount(l.pages) + (l.pages === 1 ? ' page' : ' pages');
    const errs = Object.values(l.errors || {}).reduce((a, b) => a + b, 0);
    if (errs) w += ', ' + errs + (errs === 1 ? ' error' : ' errors');
    return w;
  }

  const STATE_WORDS = { crawling: 'Crawling', starting: 'Starting', waiting: 'OK', paused: 'Paused', failing: 'Failing' };

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
    document.querySelectorAll('#solo-channels .needs-token').forEach(b => { b.disabled = !ok; });
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

  function button(text, label, cls, onClick) {
    const b = document.createElement('button');
    b.type = 'button'; b.className = cls; b.textContent = text;
    b.setAttribute('aria-label', label);
    b.addEventListener('click', onClick);
    return b;
  }

  // renderChannels updates the rows in place, so a focused button keeps
  // its focus across refreshes.
  function renderChannels(chs) {
    if (!chs.length) {
      emptyRow('No channels yet: add a seed URL above.');
      return;
    }
    const body = $('solo-channels');
    if (!R.rows.size) body.replaceChildren();
    const seen = new Set();
    chs.forEach((c, i) => {
      seen.add(c.id);
      let tr = R.rows.get(c.id);
      if (!tr) {
        tr = document.createElement('tr');
        tr.dataset.channel = c.id;
        for (const cls of ['', 'state', '', '', 'num', 'row-actions']) {
          const td = document.createElement('td');
          td.className = cls;
          tr.appendChild(td);
        }
        const host = document.createElement('span');
        host.className = 'host';
        const why = document.createElement('span');
        why.className = 'why';
        tr.cells[0].append(host, why);
        const id = c.id;
        tr.cells[5].append(
          button('Browse', 'Browse the pages of ' + id, 'link act-browse', () => loadPages(id, true)),
          button('Crawl now', 'Crawl ' + id + ' now', 'link needs-token act-crawl', () => act(id, 'crawl')),
          button('Pause', 'Pause ' + id, 'link needs-token act-pause', ev => act(id, ev.currentTarget.dataset.action)),
          button('Settings', 'Settings of ' + id, 'link act-settings', () => openSettings(id)),
          button('Remove', 'Remove ' + id, 'link needs-token act-remove', ev => removeClicked(id, ev.currentTarget)));
        for (const b of tr.cells[5].querySelectorAll('.needs-token')) b.disabled = !R.token;
        R.rows.set(c.id, tr);
      }
      // Keeps the manager's order, moving a row only when it is out of
      // place: a moved node loses focus and its identity for tools.
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null);
      const cells = tr.cells;
      tr.dataset.state = c.state;
      cells[0].querySelector('.host').textContent = c.id;
      cells[0].title = 'Seeds: ' + (c.seeds || []).join(' ');
      cells[0].querySelector('.why').textContent = c.reason || '';
      cells[1].textContent = STATE_WORDS[c.state] || c.state;
      cells[1].dataset.state = c.state;
      cells[2].textContent = nextWords(c);
      cells[2].title = (c.interval_seconds > 0 ? 'Recrawled every ' + fmtDuration(c.interval_seconds) : '') +
        (c.change_seconds > 0 ? '; estimated to change about every ' + fmtDuration(c.change_seconds) : '');
      cells[3].textContent = lastWords(c);
      cells[3].title = c.last ? window.HC.fmtTime(c.last.at) : '';
      cells[4].textContent = window.HC.fmtCount(c.pages);
      const pause = cells[5].querySelector('.act-pause');
      pause.dataset.action = c.paused ? 'resume' : 'pause';
      pause.textContent = c.paused ? 'Resume' : 'Pause';
      pause.setAttribute('aria-label', (c.paused ? 'Resume ' : 'Pause ') + c.id);
      // Hidden in place: the row's other buttons must not move under
      // the pointer when a crawl starts or ends.
      cells[5].querySelector('.act-crawl').style.visibility = c.crawling || c.state === 'starting' ? 'hidden' : '';
    });
    for (const [id, tr] of R.rows) {
      if (!seen.has(id)) { tr.remove(); R.rows.delete(id); }
    }
  }

  const ACT_WORDS = { crawl: 'will be crawled within seconds', pause: 'paused: no new crawl starts', resume: 'resumed', remove: 'removed' };

  async function act(id, action) {
    const msg = $('channels-msg');
    try {
      await window.HC.post('/api/solo/channels/' + encodeURIComponent(id) + '/' + action);
      window.HC.say(msg, id + ' ' + ACT_WORDS[action] + '.', true);
    } catch (e) {
      window.HC.say(msg, e.message, false);
    }
    load();
  }

  // removeClicked asks for a second click before removing a channel.
  function removeClicked(id, b) {
    if (b.dataset.armed) {
      delete b.dataset.armed;
      if (R.channel === id) closeBrowse();
      if (R.settings === id) closeSettings();
      act(id, 'remove');
      return;
    }
    b.dataset.armed = '1';
    b.textContent = 'Confirm remove';
    setTimeout(() => { delete b.dataset.armed; b.textContent = 'Remove'; }, 5000);
  }

  function openSettings(id) {
    const c = R.known.get(id);
    if (!c) return;
    R.settings = id;
    $('chset-channel').textContent = id;
    $('chset-depth').value = c.max_depth;
    $('chset-pages').value = c.max_pages;
    $('chset-other').checked = c.other_hosts;
    $('chset-msg').textContent = '';
    $('solo-settings').hidden = false;
    $('chset-depth').focus();
  }

  function closeSettings() {
    R.settings = null;
    $('solo-settings').hidden = true;
  }

  async function saveSettings(ev) {
    ev.preventDefault();
    const id = R.settings;
    const msg = $('chset-msg');
    const depth = Number($('chset-depth').value), pages = Number($('chset-pages').value);
    if (!Number.isInteger(depth) || !Number.isInteger(pages) || $('chset-depth').value === '' || $('chset-pages').value === '') {
      window.HC.say(msg, 'Depth and pages are whole numbers.', false);
      return;
    }
    try {
      await window.HC.post('/api/solo/channels/' + encodeURIComponent(id) + '/settings',
        { max_depth: depth, max_pages: pages, other_hosts: $('chset-other').checked });
      window.HC.say(msg, 'Saved: the next crawl of ' + id + ' uses them.', true);
      load();
    } catch (e) {
      window.HC.say(msg, e.message, false);
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
      const created = res.created || [], known = res.known || [];
      let text = (res.added === 1 ? 'Added 1 seed' : 'Added ' + res.added + ' seeds') +
        (created.length ? ': new ' + (created.length === 1 ? 'channel ' : 'channels ') + created.join(', ') : res.added ? ' to channels already known' : '');
      if (known.length) text += '. Already seeds, nothing changed: ' + known.join(', ');
      // A paused client starts no crawl: say why rather than promise one.
      text += res.paused ? '. Hivecrawl is paused (' + res.paused + '): the crawl starts when crawling resumes.' : '. The crawl starts within seconds.';
      window.HC.say(msg, text, true);
      $('solo-seeds').value = '';
      $('solo-seeds').removeAttribute('aria-invalid');
      load();
    } catch (e) {
      $('solo-seeds').setAttribute('aria-invalid', 'true');
      window.HC.say(msg, e.message, false);
    }
  }

  function closeBrowse() {
    R.channel = null;
    $('solo-browse').hidden = true;
  }

  // ---- full-text search over the stored text ----
  async function doSearch(ev) {
    ev.preventDefault();
    const q = $('search-q').value.trim();
    const msg = $('search-msg'), list = $('search-hits');
    if (!q) {
      window.HC.say(msg, 'Type a word to look for.', false);
      return;
    }
    let res;
    try {
      res = await window.HC.getJSON('/api/solo/search?n=20&q=' + encodeURIComponent(q));
    } catch (e) {
      window.HC.say(msg, e.message, false);
      list.replaceChildren();
      return;
    }
    window.HC.say(msg, !res.total ? 'No page crawled so far has those words.' :
      res.total + (res.total === 1 ? ' page' : ' pages') + (res.hits.length < res.total ? ', the best ' + res.hits.length + ' shown' : '') + '.', true);
    list.replaceChildren(...res.hits.map(h => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button'; b.className = 'link hit-title';
      b.textContent = h.title || h.url;
      b.addEventListener('click', async () => {
        await loadPages(h.channel, false);
        loadText(h.url);
        $('h-browse').scrollIntoView({ block: 'nearest' });
      });
      const where = document.createElement('span');
      where.className = 'sub hit-url'; where.textContent = h.url;
      const snip = document.createElement('p');
      snip.className = 'snippet';
      // The snippet comes as plain-text runs; matches are marked here.
      for (const seg of h.snippet || []) {
        if (seg.match) {
          const m = document.createElement('mark');
          m.textContent = seg.text;
          snip.appendChild(m);
        } else {
          snip.appendChild(document.createTextNode(seg.text));
        }
      }
      li.append(b, where, snip);
      return li;
    }));
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
      closeBrowse();
      const b = document.querySelector('#solo-channels button');
      if (b) b.focus();
    });
    $('chset-form').addEventListener('submit', saveSettings);
    $('search-form').addEventListener('submit', doSearch);
    $('btn-close-chset').addEventListener('click', closeSettings);
  });

  window.HCSolo = { status, show, signedIn };
})();
