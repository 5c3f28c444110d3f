// Small SVG charts for the Hivecrawl page: a time line chart with a cap
// line, and a stacked bar chart. No library; every element is built with the
// DOM, so the page's Content-Security-Policy holds.
//
// A chart is drawn at the width it has on the screen (its viewBox follows
// it, and it is drawn again when it changes), so its labels keep their size
// in a narrow window instead of shrinking with the drawing, and every label
// is placed inside the drawing.
'use strict';

(function () {
  const NS = 'http://www.w3.org/2000/svg';
  const PAD_L = 72, PAD_R = 10, PAD_T = 10, PAD_B = 22;
  // drawn remembers how each chart was last drawn, to draw it again when
  // its width changes.
  const drawn = new WeakMap();
  const resized = new ResizeObserver(entries => {
    for (const e of entries) {
      const d = drawn.get(e.target);
      if (d && Math.round(e.contentRect.width) !== d.w) d.draw(e.target, d.opts);
    }
  });

  function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }

  function height(svg) { return svg.viewBox.baseVal.height || 170; }

  // width sets svg's viewBox to its width on the screen (600 before it is
  // laid out) and returns it; draw is remembered for when it changes.
  function width(svg, draw, opts) {
    const w = Math.round(svg.getBoundingClientRect().width) || 600;
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + height(svg));
    if (!drawn.has(svg)) resized.observe(svg);
    drawn.set(svg, { w, draw, opts });
    return w;
  }

  // niceMax rounds v up to 1, 2 or 5 times a power of ten.
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  // axisWidth is the room the widest of the axis labels texts takes, and
  // a gap: where the plot starts. Before layout (a hidden page) nothing can
  // be measured, and the default is used until the chart is drawn again.
  function axisWidth(svg, texts) {
    let m = 0;
    for (const t of texts) {
      const e = el('text', { class: 'axis-label' }, t);
      svg.appendChild(e);
      m = Math.max(m, e.getComputedTextLength());
      svg.removeChild(e);
    }
    return m > 0 ? Math.ceil(m) + 10 : PAD_L;
  }

  function placeholder(svg, text) {
    const W = width(svg, placeholder, text);
    clear(svg);
    const H = height(svg);
    svg.appendChild(el('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'placeholder' }, text));
  }

  // line draws series over the span [t1 - spanMs, t1].
  // opts: {series: [{label, cls, points: [[t, v], ...]}], cap: [[t, v], ...]
  //        (0 = no cap), span (ms), now (ms), fmt (value → text), max (the
  //        least top of the scale), ceil (the greatest)}
  function line(svg, opts) {
    const W = width(svg, line, opts);
    const H = height(svg);
    const y0 = H - PAD_B, y1 = PAD_T;
    const tEnd = opts.now, tStart = tEnd - opts.span;
    let maxV = opts.max || 0;
    for (const s of opts.series) for (const p of s.points) if (p[0] >= tStart) maxV = Math.max(maxV, p[1]);
    // The scale takes in the cap in force when it is near the readings;
    // a cap far above them (or an old one) would flatten them to nothing,
    // so it is drawn at the top and named instead.
    const caps = opts.cap ? opts.cap.filter(p => p[0] >= tStart) : [];
    const capNow = caps.length ? caps[caps.length - 1][1] : 0;
    const capOff = capNow > 0 && capNow > 4 * Math.max(maxV, 1e-9);
    if (capNow > 0 && !capOff) maxV = Math.max(maxV, capNow);
    maxV = niceMax(maxV * 1.05);
    if (opts.ceil) maxV = Math.min(maxV, opts.ceil);
    clear(svg);
    const ticks = [0, 0.5, 1].map(f => [f, opts.fmt(maxV * f)]);
    const x0 = axisWidth(svg, ticks.map(t => t[1])), x1 = W - PAD_R;
    const X = t => x0 + (x1 - x0) * (t - tStart) / (tEnd - tStart);
    const Y = v => y0 - (y0 - y1) * Math.min(v, maxV) / maxV;
    svg.appendChild(el('title', {}, svg.getAttribute('aria-label') || ''));
    for (const [f, label] of ticks) {
      const y = Y(maxV * f);
      svg.appendChild(el('line', { x1: x0, x2: x1, y1: y, y2: y, class: 'grid-line' }));
      svg.appendChild(el('text', { x: x0 - 6, y: y + 4, 'text-anchor': 'end', class: 'axis-label' }, label));
    }
    const mins = Math.round(opts.span / 60000);
    [[0, '−' + mins + ' min'], [0.5, '−' + (mins / 2) + ' min'], [1, 'now']].forEach(([f, label], i) => {
      svg.appendChild(el('text', { x: x0 + (x1 - x0) * f, y: H - 6, 'text-anchor': ['start', 'middle', 'end'][i], class: 'axis-label' }, label));
    });
    opts.series.forEach(s => {
      const pts = s.points.filter(p => p[0] >= tStart);
      if (pts.length === 0) return;
      const d = pts.map(p => X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1)).join(' ');
      if (s.area) {
        const first = X(pts[0][0]).toFixed(1), last = X(pts[pts.length - 1][0]).toFixed(1);
        svg.appendChild(el('polygon', { points: first + ',' + y0 + ' ' + d + ' ' + last + ',' + y0, class: 'area ' + s.cls }));
      }
      svg.appendChild(el('polyline', { points: d, class: 'line ' + s.cls }, undefined));
    });
    if (opts.cap) {
      // The cap as a step line; a stretch without a cap (0) is left out.
      let seg = [];
      const flush = () => {
        if (seg.length > 1) svg.appendChild(el('polyline', { points: seg.join(' '), class: 'cap' }));
        seg = [];
      };
      opts.cap.filter(p => p[0] >= tStart).forEach((p, i, a) => {
        if (!(p[1] > 0)) { flush(); return; }
        if (seg.length && i > 0) seg.push(X(p[0]).toFixed(1) + ',' + Y(a[i - 1][1]).toFixed(1));
        seg.push(X(p[0]).toFixed(1) + ',' + Y(p[1]).toFixed(1));
      });
      flush();
    }
    if (opts.series.every(s => s.points.length === 0)) {
      svg.appendChild(el('text', { x: (x0 + x1) / 2, y: (y0 + y1) / 2, 'text-anchor': 'middle', class: 'placeholder' }, 'Collecting readings…'));
    }
    // The legend names the cap (a note inside the drawing would cross the
    // cap line and the top of the scale).
    return { capNow, capOff, capped: caps.some(p => p[1] > 0) };
  }

  // bars draws stacked bars: opts {labels: [...], stacks: [{cls, values}], fmt}.
  function bars(svg, opts) {
    const W = width(svg, bars, opts);
    const H = height(svg);
    const y0 = H - PAD_B, y1 = PAD_T;
    const n = opts.labels.length;
    let maxV = 0;
    for (let i = 0; i < n; i++) maxV = Math.max(maxV, opts.stacks.reduce((a, s) => a + s.values[i], 0));
    maxV = niceMax(maxV * 1.05);
    const Y = v => (y0 - y1) * v / maxV;
    clear(svg);
    const ticks = [0, 0.5, 1].map(f => [f, opts.fmt(maxV * f)]);
    const x0 = axisWidth(svg, ticks.map(t => t[1])), x1 = W - PAD_R;
    svg.appendChild(el('title', {}, svg.getAttribute('aria-label') || ''));
    for (const [f, label] of ticks) {
      const y = y0 - Y(maxV * f);
      svg.appendChild(el('line', { x1: x0, x2: x1, y1: y, y2: y, class: 'grid-line' }));
      svg.appendChild(el('text', { x: x0 - 6, y: y + 4, 'text-anchor': 'end', class: 'axis-label' }, label));
    }
    const bw = (x1 - x0) / Math.max(n, 1);
    for (let i = 0; i < n; i++) {
      let base = y0;
      for (const s of opts.stacks) {
        const h = Y(s.values[i]);
        if (h > 0) {
          const r = el('rect', { x: (x0 + i * bw + bw * 0.15).toFixed(1), y: (base - h).toFixed(1), width: (bw * 0.7).toFixed(1), height: h.toFixed(1), class: s.cls });
          r.appendChild(el('title', {}, opts.labels[i] + ': ' + opts.fmt(s.values[i]) + ' ' + s.label));
          svg.appendChild(r);
          base -= h;
        }
      }
      // The first and last labels line up with their bars' outer edges,
      // so they stay inside the drawing.
      const at = i === 0 ? ['start', x0 + bw * 0.15] : i === n - 1 ? ['end', x0 + (i + 0.85) * bw] : ['middle', x0 + i * bw + bw / 2];
      if (i === 0 || i === n - 1 || i === Math.floor(n / 2)) {
        svg.appendChild(el('text', { x: at[1].toFixed(1), y: H - 6, 'text-anchor': at[0], class: 'axis-label' }, opts.labels[i].slice(5)));
      }
    }
  }

  window.HCCharts = { line, bars, placeholder };
})();
