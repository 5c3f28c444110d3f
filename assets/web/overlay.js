// The dashboard's overlay panel: this peer's zones in the CAN space
// ([0,1]^3, drawn projected on dimensions 0 and 1) with its neighbours'
// zones outlined, and the node's load and counters. Built with the DOM
// only, so the page's Content-Security-Policy holds.
'use strict';

(function () {
  const NS = 'http://www.w3.org/2000/svg';
  // The unit square's place in the 250 × 240 drawing.
  const X0 = 34, Y0 = 8, SIDE = 206;

  const $ = id => document.getElementById(id);

  function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // shortID is the end of a peer ID: their starts are all alike.
  function shortID(id) { return id && id.length > 6 ? '…' + id.slice(-6) : (id || '?'); }

  function volume(z) {
    let v = 1;
    for (let d = 0; d < z.lo.length; d++) v *= Math.max(0, z.hi[d] - z.lo[d]);
    return v;
  }

  function fmtLoad(v) { return Number(v || 0).toFixed(2); }
  function fmtShare(v) {
    const p = v * 100;
    return (p >= 10 || p === 0 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toPrecision(2)) + ' %';
  }

  // box draws zone z's projection as a rect with a tooltip, and a label
  // when it has room for one.
  function box(svg, z, cls, label, tip) {
    const x = X0 + SIDE * z.lo[0], w = SIDE * (z.hi[0] - z.lo[0]);
    const y = Y0 + SIDE * (1 - z.hi[1]), h = SIDE * (z.hi[1] - z.lo[1]);
    const r = el('rect', { x: x.toFixed(1), y: y.toFixed(1), width: w.toFixed(1), height: h.toFixed(1), class: cls });
    r.appendChild(el('title', {}, tip));
    svg.appendChild(r);
    if (label && w >= 44 && h >= 16) {
      svg.appendChild(el('text', { x: (x + w / 2).toFixed(1), y: (y + h / 2 + 4).toFixed(1), 'text-anchor': 'middle', class: 'zone-label ' + cls + '-label' }, label));
    }
  }

  function draw(svg, ov) {
    const title = svg.querySelector('title');
    svg.replaceChildren(title);
    svg.appendChild(el('rect', { x: X0, y: Y0, width: SIDE, height: SIDE, class: 'zone-space' }));
    for (const [v, t] of [[0, '0'], [0.5, '0.5'], [1, '1']]) {
      svg.appendChild(el('text', { x: X0 + SIDE * v, y: Y0 + SIDE + 16, 'text-anchor': 'middle', class: 'axis-label' }, t));
      svg.appendChild(el('text', { x: X0 - 5, y: Y0 + SIDE * (1 - v) + 4, 'text-anchor': 'end', class: 'axis-label' }, t));
    }
    for (const nb of ov.neighbours || []) {
      for (const z of nb.zones || []) {
        box(svg, z, 'zone-nb', shortID(nb.peer), 'Neighbour ' + nb.peer + ': [' + z.lo.map(fmtLoad) + '] to [' + z.hi.map(fmtLoad) + '], RTL ' + fmtLoad(nb.rtl) + ', RPL ' + fmtLoad(nb.rpl));
      }
    }
    for (const z of ov.zones || []) {
      box(svg, z, 'zone-own', 'you', 'This peer: [' + z.lo.map(fmtLoad) + '] to [' + z.hi.map(fmtLoad) + ']');
    }
    if (!(ov.zones || []).length) {
      svg.appendChild(el('text', { x: X0 + SIDE / 2, y: Y0 + SIDE / 2, 'text-anchor': 'middle', class: 'placeholder' }, 'Joining…'));
    }
  }

  // modeWords says how the client takes part.
  function modeWords(ov) {
    const n = (ov.neighbours || []).length;
    if (ov.mode === 'solo') return 'solo: a one-peer overlay';
    const words = 'network' + (ov.network ? ' ' + ov.network : '') + ': ' + n + (n === 1 ? ' neighbour' : ' neighbours');
    return ov.member ? words : words + ' · joining';
  }

  // localNote says why a client in local mode has no overlay. Until the
  // first status arrives the note says the page waits for the client: a
  // solo or network client is not in local mode for want of data.
  function localNote() {
    const code = t => Object.assign(document.createElement('code'), { textContent: t });
    $('zone-note').replaceChildren(Object.assign(document.createElement('strong'), { textContent: 'No overlay yet.' }),
      ' This client runs in local mode: it takes its tasks from a seeds file and joins no peer-to-peer overlay. Start it without ',
      code('--local'), ' to run solo mode, or join a network with ', code('hivecrawl join PROFILE'),
      '; its zone and neighbours are then drawn here.');
  }

  // render fills the panel from a status's overlay section; a status
  // without one is a client in local mode.
  function render(ov) {
    const svg = $('chart-zone');
    const has = !!ov;
    // An SVG element has no hidden property: set the attribute.
    svg.toggleAttribute('hidden', !has);
    $('zone-info').hidden = !has;
    $('zone-note').hidden = has;
    if (!has) {
      $('zone-neighbours').hidden = true;
      localNote();
      return;
    }
    draw(svg, ov);
    $('zone-mode').textContent = modeWords(ov);
    $('zone-peer').textContent = ov.peer;
    const share = (ov.zones || []).reduce((a, z) => a + volume(z), 0);
    const zs = (ov.zones || []).length;
    $('zone-share').textContent = zs ? fmtShare(share) + ' of the space, in ' + zs + (zs === 1 ? ' zone' : ' zones') : 'no zone yet';
    // Load balancing, forwarding and reports happen between peers: a
    // solo client has none of them to show.
    document.querySelectorAll('#zone-info .net-only').forEach(e => { e.hidden = ov.mode === 'solo'; });
    $('zone-rtl').textContent = fmtLoad(ov.rtl);
    $('zone-rpl').textContent = fmtLoad(ov.rpl);
    $('zone-accepted').textContent = ov.accepted;
    $('zone-forwarded').textContent = ov.forwarded;
    $('zone-refused').textContent = ov.refused;
    $('zone-reports').textContent = ov.reports;
    $('zone-handed').textContent = ov.handed_in;
    const nbs = ov.neighbours || [];
    $('zone-neighbours').hidden = nbs.length === 0;
    $('zone-nb-body').replaceChildren(...nbs.map(nb => {
      const tr = document.createElement('tr');
      [[shortID(nb.peer), ''], [linkWords(nb.link), 'link'], [(nb.zones || []).length, 'num'], [fmtLoad(nb.rtl), 'num'], [fmtLoad(nb.rpl), 'num']].forEach(([v, c]) => {
        const td = document.createElement('td');
        td.textContent = v; td.className = c;
        tr.appendChild(td);
      });
      tr.firstChild.title = nb.peer;
      return tr;
    }));
  }

  // linkWords says how this peer reaches a neighbour: directly, through a
  // hole punched in both NATs, or relayed by a third peer (slower, and on
  // someone else's bandwidth).
  function linkWords(link) {
    return { direct: 'direct', 'hole-punched': 'direct (hole punched)', relayed: 'relayed' }[link] || 'not connected';
  }

  window.HCOverlay = { render, modeWords, shortID };
})();
