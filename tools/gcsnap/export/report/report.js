// gcsnap report page: draws the aggregates in #gcsnap-data (written by `gcsnap report`) with
// plain SVG and DOM; nothing is fetched. Layout of the data: tools/gcsnap/report_data.cpp.
'use strict';
(function () {
  const DATA = JSON.parse(document.getElementById('gcsnap-data').textContent);
  const SVGNS = 'http://www.w3.org/2000/svg';
  const GENS = ['gen0', 'gen1', 'gen2', 'LOH', 'POH'];
  const GEN_COLORS = ['var(--g0)', 'var(--g1)', 'var(--g2)', 'var(--loh)', 'var(--poh)'];
  const GC = {number: 0, gen: 1, induced: 2, compacted: 3, start: 4, pause: 5, heap: 6, surviving: 11, moved: 12,
              snapshot: 13, objects: 14};
  let rec = null;  // the recording shown

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }
  function sv(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  // The CLI's byte format: "0", "512 B", "1.5 KiB", "12.0 MiB".
  function bytes(b) {
    if (b === 0) return '0';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Math.abs(b), u = 0;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; ++u; }
    return (b < 0 ? '-' : '') + (u === 0 ? String(v) : v.toFixed(1)) + ' ' + units[u];
  }
  const signed = (n, f) => (n > 0 ? '+' : '') + f(n);
  const str = i => (i >= 0 ? rec.strings[i] : '');

  const tooltip = document.getElementById('tooltip');
  function showTip(ev, text) {
    tooltip.textContent = text;
    tooltip.hidden = false;
    const x = Math.min(ev.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
    tooltip.style.left = x + 'px';
    tooltip.style.top = (ev.clientY + 14) + 'px';
  }
  const hideTip = () => { tooltip.hidden = true; };

  // ---- memory: where the process's memory is (the last walked GC's record) ---------------
  const MEMORY_PARTS = [['live objects', 'var(--g2)'], ['free or fragmented', 'var(--g1)'],
                        ['native and other', '#9aa1ad'], ['held by gcsnap', '#d9b26f']];
  function drawMemory() {
    const m = rec.memory, box = document.getElementById('memory');
    box.hidden = !m;
    if (!m) return;
    document.getElementById('memory-summary').textContent = `GC ${m.gc}: ${m.summary}`;
    // parts[3], what gcsnap itself held, is 0 (not shown) when the record does not say.
    const parts = (m.parts[0] < 0 ? [[m.parts[1], 'managed heap', 'var(--g2)'], [m.parts[2], ...MEMORY_PARTS[2]]]
                                  : m.parts.slice(0, 3).map((v, k) => [v, ...MEMORY_PARTS[k]]))
                    .concat(m.parts[3] > 0 ? [[m.parts[3], ...MEMORY_PARTS[3]]] : []);
    const total = Math.max(1, parts.reduce((a, p) => a + p[0], 0));
    document.getElementById('memory-bar').replaceChildren(...parts.filter(p => p[0] > 0).map(([v, name, color]) =>
      el('span', {class: 'memory-part', 'data-part': name, title: `${name}: ${bytes(v)}`,
                  style: `width:${(100 * v / total).toFixed(2)}%;background:${color}`})));
    document.getElementById('memory-legend').replaceChildren(...parts.map(([v, name, color]) =>
      el('span', {}, el('i', {style: `background:${color}`}), `${name} ${bytes(v)}`)));
    document.getElementById('memory-advice').replaceChildren(...m.advice.map(a => el('li', {text: a})));
  }

  // ---- timeline -------------------------------------------------------------------------
  function drawTimeline() {
    const box = document.getElementById('timeline-chart');
    const rangesBox = document.getElementById('ranges-chart');
    box.replaceChildren();
    rangesBox.replaceChildren();
    const gcs = rec.gcs;
    const W = Math.max(600, Math.min(1240, box.clientWidth || 1000)), H = 200, L = 64, R = 10, T = 8, B = 22;
    const n = gcs.length;
    const x = i => L + (n <= 1 ? (W - L - R) / 2 : i * (W - L - R) / (n - 1));
    const totals = gcs.map(g => g.slice(GC.heap, GC.heap + 5).reduce((a, b) => a + b, 0));
    // The resident size of the GCs with a memory record, drawn as a line on its own scale
    // (right): scaled together, an RSS many times the heap flattened the heap's growth.
    const resident = new Map((rec.memory ? rec.memory.series : []).map(s => [s[0], s[1]]));
    const maxTotal = Math.max(1, ...totals);
    const maxResident = Math.max(1, ...resident.values());
    const y = v => T + (H - T - B) * (1 - v / maxTotal);
    const yResident = v => T + (H - T - B) * (1 - v / maxResident);
    const svg = sv('svg', {width: W, height: H, id: 'timeline-svg'});
    axis(svg, L, W - R, T, H - B, maxTotal, y);
    if (resident.size)
      svg.append(label(W - R, T + 10, `RSS (dashed, own scale): up to ${bytes(maxResident)}`, 'end'));
    // Stacked areas, gen0 at the bottom.
    const base = new Array(n).fill(0);
    for (let g = 0; g < 5; ++g) {
      if (!gcs.some(r => r[GC.heap + g] > 0)) continue;
      const top = base.map((b, i) => b + gcs[i][GC.heap + g]);
      let d = '';
      for (let i = 0; i < n; ++i) d += (i ? 'L' : 'M') + x(i).toFixed(1) + ',' + y(top[i]).toFixed(1);
      for (let i = n - 1; i >= 0; --i) d += 'L' + x(i).toFixed(1) + ',' + y(base[i]).toFixed(1);
      svg.append(sv('path', {d: d + 'Z', fill: GEN_COLORS[g], 'fill-opacity': 0.85, class: 'gen-area', 'data-gen': GENS[g]}));
      for (let i = 0; i < n; ++i) base[i] = top[i];
    }
    if (resident.size) {
      let d = '';
      gcs.forEach((g, i) => {
        if (resident.has(g[GC.number])) d += (d ? 'L' : 'M') + x(i).toFixed(1) + ',' + yResident(resident.get(g[GC.number])).toFixed(1);
      });
      svg.append(sv('path', {d, fill: 'none', stroke: '#1d2330', 'stroke-width': 1.5, 'stroke-dasharray': '4 3',
                             id: 'resident-line'}));
    }
    // One point per GC on the total; snapshots as rings.
    const points = sv('g', {id: 'gc-points'});
    gcs.forEach((g, i) => {
      const snap = g[GC.snapshot] === 1;
      const c = sv('circle', {cx: x(i).toFixed(1), cy: y(totals[i]).toFixed(1), r: snap ? 4.5 : 2.5,
        class: snap ? 'gc-point snapshot' : 'gc-point', 'data-gc': g[GC.number],
        fill: snap ? '#fff' : '#1d2330', stroke: snap ? '#c0392b' : 'none', 'stroke-width': 2});
      c.addEventListener('mousemove', ev => showTip(ev, gcText(g, totals[i])));
      c.addEventListener('mouseleave', hideTip);
      points.append(c);
    });
    svg.append(points);
    svg.append(label(L, H - 6, `GC ${gcs[0][GC.number]}`, 'start'));
    svg.append(label(W - R, H - 6, `GC ${gcs[n - 1][GC.number]}`, 'end'));
    box.append(svg);

    // Surviving and moved bytes per GC (from the ranges), as bars.
    const H2 = 90;
    const maxR = Math.max(1, ...gcs.map(g => Math.max(g[GC.surviving], g[GC.moved])));
    const y2 = v => T + (H2 - T - 14) * (1 - v / maxR);
    const svg2 = sv('svg', {width: W, height: H2, id: 'ranges-svg'});
    axis(svg2, L, W - R, T, H2 - 14, maxR, y2);
    const bw = Math.max(1, Math.min(8, (W - L - R) / Math.max(1, n) / 2.5));
    gcs.forEach((g, i) => {
      const tip = ev => showTip(ev, gcText(g, totals[i]));
      for (const [k, off, color] of [[GC.surviving, -bw, 'var(--surv)'], [GC.moved, 0, 'var(--moved)']]) {
        if (!g[k]) continue;
        const r = sv('rect', {x: (x(i) + off).toFixed(1), y: y2(g[k]).toFixed(1), width: bw,
          height: Math.max(0.5, H2 - 14 - y2(g[k])).toFixed(1), fill: color});
        r.addEventListener('mousemove', tip);
        r.addEventListener('mouseleave', hideTip);
        svg2.append(r);
      }
    });
    rangesBox.append(svg2);
    const legend = document.getElementById('timeline-legend');
    legend.replaceChildren(...GENS.map((g, i) => el('span', {}, el('i', {style: `background:${GEN_COLORS[i]}`}), g)),
      el('span', {}, el('i', {style: 'background:var(--surv)'}), 'surviving (ranges)'),
      el('span', {}, el('i', {style: 'background:var(--moved)'}), 'moved (ranges)'),
      el('span', {}, el('i', {style: 'border:2px solid #c0392b;border-radius:50%'}), 'snapshot (heap walk)'),
      ...(resident.size ? [el('span', {}, el('i', {style: 'border-top:2px dashed #1d2330'}), 'resident (RSS, own scale)')] : []),
      el('span', {text: `${n} GCs, ${rec.snaps.length} snapshots`}));
  }
  function gcText(g, total) {
    const lines = [`GC ${g[GC.number]}: gen${g[GC.gen]}${g[GC.induced] ? ', induced' : ''}${g[GC.compacted] ? ', compacting' : ''}` +
                   `${g[GC.snapshot] ? ', snapshot (' + g[GC.objects] + ' objects)' : ''}`,
                   `at ${(g[GC.start] / 1000).toFixed(3)} s, pause ${g[GC.pause].toFixed(2)} ms`,
                   `heap in use ${bytes(total)}`];
    GENS.forEach((name, k) => { if (g[GC.heap + k]) lines.push(`  ${name}: ${bytes(g[GC.heap + k])}`); });
    lines.push(`surviving ${bytes(g[GC.surviving])}, moved ${bytes(g[GC.moved])}`);
    return lines.join('\n');
  }
  function label(x, y, text, anchor) {
    const t = sv('text', {x, y, 'text-anchor': anchor, 'font-size': 11, fill: '#687083'});
    t.textContent = text;
    return t;
  }
  function axis(svg, x0, x1, y0, y1, max, y) {
    svg.append(sv('line', {x1: x0, x2: x0, y1: y0, y2: y1, stroke: '#d9dde6'}));
    svg.append(sv('line', {x1: x0, x2: x1, y1: y1, y2: y1, stroke: '#d9dde6'}));
    for (const f of [0.5, 1]) {
      svg.append(sv('line', {x1: x0, x2: x1, y1: y(max * f), y2: y(max * f), stroke: '#eef0f4'}));
      svg.append(label(x0 - 4, y(max * f) + 4, bytes(Math.round(max * f)), 'end'));
    }
  }

  // ---- types ----------------------------------------------------------------------------
  const typeSort = {key: 'retained', asc: false};
  const TYPE_ROWS = 30;
  let typesExpanded = false;
  function typeRows() {
    const last = rec.snaps.length - 1;
    return rec.types.map(t => ({name: str(t.n), count: t.c[last], bytes: t.b[last], retained: t.r, unreachable: t.u,
                                c: t.c, b: t.b}))
      .filter(t => t.count > 0);
  }
  function sparkline(t) {
    const W = 160, H = 26, n = t.b.length;
    const svg = sv('svg', {width: W, height: H, class: 'spark'});
    if (n < 2) return svg;
    for (const [series, dash, color] of [[t.b, '', '#2f6fd0'], [t.c, '3,2', '#c0392b']]) {
      const max = Math.max(1, ...series);
      const pts = series.map((v, i) => `${(2 + i * (W - 4) / (n - 1)).toFixed(1)},${(H - 2 - (H - 4) * v / max).toFixed(1)}`);
      svg.append(sv('polyline', {points: pts.join(' '), fill: 'none', stroke: color, 'stroke-width': 1.3,
                                 'stroke-dasharray': dash}));
    }
    const title = sv('title', {});
    const gcs = t.walks || rec.snaps;
    title.textContent = t.b.map((b, i) => `GC ${gcs[i]}: ${t.c[i]} objects, ${bytes(b)}`).join('\n');
    svg.append(title);
    return svg;
  }
  function drawTypes() {
    const filter = document.getElementById('types-filter').value.trim().toLowerCase();
    const rows = typeRows().filter(t => !filter || t.name.toLowerCase().includes(filter));
    const {key, asc} = typeSort;
    rows.sort((a, b) => {
      const d = key === 'name' ? a.name.localeCompare(b.name) : a[key] - b[key];
      return (asc ? d : -d) || a.name.localeCompare(b.name);
    });
    // The first TYPE_ROWS rows unless asked for all (or filtered): hundreds of rows pushed the
    // sections below thousands of pixels down.
    const shown = typesExpanded || filter ? rows : rows.slice(0, TYPE_ROWS);
    const more = document.getElementById('types-more');
    more.hidden = shown.length === rows.length && !typesExpanded;
    more.textContent = typesExpanded ? `Show the first ${TYPE_ROWS}` : `Show all ${rows.length} types`;
    const body = document.querySelector('#types-table tbody');
    body.replaceChildren(...shown.map(t => el('tr', {'data-type': t.name},
      el('td', {class: 'name', text: t.name}),
      el('td', {class: 'num count', 'data-value': t.count, text: String(t.count)}),
      el('td', {class: 'num bytes', 'data-value': t.bytes, title: `${t.bytes} bytes`, text: bytes(t.bytes)}),
      el('td', {class: 'num retained', 'data-value': t.retained, title: `${t.retained} bytes`, text: bytes(t.retained)}),
      el('td', {class: 'num unreachable', 'data-value': t.unreachable, text: String(t.unreachable)}),
      el('td', {}, sparkline(t)))));
    document.querySelectorAll('#types-table th[data-key]').forEach(th => {
      th.classList.toggle('sorted', th.dataset.key === key);
      th.classList.toggle('asc', th.dataset.key === key && asc);
    });
    const last = rec.snaps.length - 1;
    document.getElementById('types-note').textContent =
      `at GC ${rec.snaps[last]} (the last snapshot): ${shown.length} of ${rec.typeTotal} types shown` +
      (rec.types.length < rec.typeTotal ? ` (the ${rec.types.length} largest are carried; the rest sum to ` +
        `${rec.other.c[last]} objects, ${bytes(rec.other.b[last])})` : '');
  }

  // ---- leak suspects --------------------------------------------------------------------
  // The answer to "what leaks" comes first on the page when there is one; else after the timeline.
  function placeSuspects(first) {
    const section = document.getElementById('suspects');
    if (first) document.querySelector('main').prepend(section);
    else document.getElementById('timeline').after(section);
    const nav = document.getElementById('nav-suspects');
    if (first) nav.parentElement.prepend(nav);
    else document.querySelector('nav a[href="#timeline"]').after(nav);
  }
  // A suspect's example object's path, folded ("CallbackNode .Next ×4249 →"): one item per run.
  function foldedPathList(p) {
    const list = el('ol', {class: 'path example-path'});
    p.hops.forEach((h, k) => {
      const li = el('li', {});
      if (k === 0) li.append(el('span', {class: 'root', text: `[${str(p.root)} root] `}));
      li.append(`${str(h[0])} ${h[3]}`);
      if (h[1] >= 0) li.append(el('span', {class: 'field', text: ` .${str(h[1])}`}));
      if (h[2] > 1) li.append(el('b', {class: 'repeats', text: ` \u00d7${h[2]}`}));
      if (k + 1 < p.hops.length) li.append(' \u2192');
      list.append(li);
    });
    return list;
  }
  function holderText(pt) {
    return `held by ${str(pt.type)} ${pt.address}` + (pt.via >= 0 ? ` via ${str(pt.via)}` : '') +
      (pt.owner ? ` (owner: no object dominates them; entered from ${pt.entries} objects)`
                : ` (dominates ${pt.members} of the new members)`) + `, retains ${bytes(pt.retained)}`;
  }
  // gcsnap leaks' bounded list beside the suspects: groups that grew, then held flat (a cache
  // at its limit) or slowed beside the leaks; not suspects, shown so that they are not taken for one.
  function drawBounded(sus) {
    const list = sus.bounded || [];
    document.getElementById('bounded').hidden = list.length === 0;
    document.getElementById('bounded-note').textContent =
      `${list.length} group(s) grew, then held flat or slowed (not suspects, as gcsnap leaks lists them)`;
    document.getElementById('bounded-body').replaceChildren(...list.map(b => {
      const last = b.c.length - 1;
      const box = el('div', {class: 'suspect bounded-group', 'data-type': str(b.n)},
        el('b', {text: str(b.n)}),
        ` ${b.c[last]} objects (${signed(b.countGrowth, String)} since GC ${sus.walks[0]}), ${bytes(b.b[last])}: `,
        el('span', {class: 'why', text: str(b.why)}), ' ',
        sparkline({c: b.c, b: b.b, walks: sus.walks}));
      if (b.point) box.append(el('div', {class: 'holder', text: holderText(b.point)}));
      return box;
    }));
  }
  function drawSuspects() {
    const body = document.getElementById('suspects-body');
    const note = document.getElementById('suspects-note');
    const sus = rec.suspects;
    placeSuspects(!sus.tooFewWalks && sus.list.length > 0);
    drawBounded(sus);
    if (sus.tooFewWalks) {
      note.textContent = `${rec.snaps.length} heap walks: at least ${sus.minWalks} are needed to tell a leak from a filling cache`;
      body.replaceChildren();
      return;
    }
    note.textContent = `${sus.list.length} of ${sus.groups} groups (type + path shape) accumulate over ` +
      `${sus.walks.length} heap walks (as gcsnap leaks ranks them); click one for its path shapes`;
    body.replaceChildren(...sus.list.map((s, rank) => {
      const detail = el('div', {class: 'suspect-detail', hidden: ''});
      const last = s.c.length - 1;
      const box = el('div', {class: 'suspect', 'data-type': str(s.n), 'data-rank': rank + 1},
        el('b', {text: `${rank + 1}. ${str(s.n)}`}),
        ` ${s.c[last]} objects (${signed(s.countGrowth, String)} since GC ${sus.walks[0]}), ` +
        `${s.accCount} new and still alive${s.byIdentity ? '' : ' (by count)'}, retained ${bytes(s.r[last])} ` +
        `(${signed(s.retainedGrowth, bytes)}) `,
        sparkline({c: s.c, b: s.b, walks: sus.walks}));
      if (s.point) box.append(el('div', {class: 'holder', text: holderText(s.point)}));
      if (s.holds.length)
        box.append(el('div', {class: 'holds', text: 'accumulates with it: ' +
          s.holds.map(h => `${str(h[0])} \u00d7${h[1]} (${bytes(h[2])})`).join(', ')}));
      if (s.examplePath) {
        const pathBox = el('div', {class: 'example-box', hidden: ''}, foldedPathList(s.examplePath));
        const link = el('a', {href: '#', class: 'example-link', text: s.example});
        link.addEventListener('click', e => {
          e.preventDefault();
          e.stopPropagation();
          pathBox.hidden = !pathBox.hidden;
        });
        box.append(el('div', {class: 'example'}, 'newest member ', link, ': its path from a root (repeated hops folded)'),
                   pathBox);
      }
      box.append(detail);
      box.addEventListener('click', () => {
        box.classList.toggle('open');
        detail.hidden = !detail.hidden;
        if (detail.hidden || detail.childElementCount) return;
        s.shapes.forEach(shape => {
          const list = el('ol', {class: 'path shape'});
          shape.t.forEach((t, k) => list.append(el('li', {text: k === 0 ? `${str(shape.text).split(']')[0]}] ${str(t)}` : `\u2192 ${str(t)}`})));
          detail.append(el('div', {class: 'shape-head', text: `${shape.count} members, ${shape.minHops}` +
            (shape.maxHops !== shape.minHops ? `-${shape.maxHops}` : '') + ' hops:'}), list);
        });
      });
      return box;
    }));
  }

  // ---- dominators -----------------------------------------------------------------------
  let domChildren = null;
  let domCurrent = -1;  // -1: the virtual root
  function domInit() {
    domChildren = new Map();
    rec.dom.nodes.forEach((nd, i) => {
      const p = nd[0];
      if (!domChildren.has(p)) domChildren.set(p, []);
      domChildren.get(p).push(i);
    });
    domCurrent = -1;
  }
  function squarify(items, x, y, w, h) {
    // items: [{value}], sorted descending; returns [{item, x, y, w, h}] (Bruls, Huizing, van Wijk).
    const out = [];
    const total = items.reduce((a, b) => a + b.value, 0);
    if (total <= 0) return out;
    const scale = (w * h) / total;
    let rest = items.slice();
    while (rest.length) {
      const short = Math.min(w, h);
      let row = [], rowSum = 0, worst = Infinity;
      while (rest.length) {
        const v = rest[0].value * scale;
        const s = rowSum + v;
        const maxV = Math.max(v, ...row.map(r => r.value * scale)), minV = Math.min(v, ...row.map(r => r.value * scale));
        const wst = Math.max(short * short * maxV / (s * s), s * s / (short * short * minV));
        if (row.length && wst > worst) break;
        row.push(rest.shift());
        rowSum = s;
        worst = wst;
      }
      const thick = rowSum / short;
      let off = 0;
      for (const r of row) {
        const len = r.value * scale / thick;
        if (w >= h) out.push({item: r, x, y: y + off, w: thick, h: len});
        else out.push({item: r, x: x + off, y, w: len, h: thick});
        off += len;
      }
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
    }
    return out;
  }
  function drawDominators() {
    const dom = rec.dom;
    document.getElementById('dominators-note').textContent = dom ?
      `at GC ${dom.gc}: ${dom.reachCount} reachable objects, ${bytes(dom.reachBytes)}; the ${dom.nodes.length} ` +
      `largest retainers and their dominators are carried` : 'no snapshot in this recording';
    const map = document.getElementById('treemap');
    map.replaceChildren();
    if (!dom) return;
    const crumbs = document.getElementById('dominators-crumbs');
    const chain = [];
    for (let v = domCurrent; v >= 0; v = dom.nodes[v][0]) chain.unshift(v);
    crumbs.replaceChildren(el('a', {text: 'all roots', onclick: () => { domCurrent = -1; drawDominators(); }}),
      ...chain.flatMap(v => [' \u203a ', el('a', {text: `${str(dom.nodes[v][1])} ${dom.nodes[v][2]}`,
                                                  onclick: () => { domCurrent = v; drawDominators(); }})]));
    const total = domCurrent < 0 ? dom.reachBytes : dom.nodes[domCurrent][4];
    const kids = (domChildren.get(domCurrent) || []).map(i => ({i, value: dom.nodes[i][4]}))
      .sort((a, b) => b.value - a.value);
    const shown = kids.reduce((a, k) => a + k.value, 0);
    const items = kids.slice();
    const own = domCurrent < 0 ? 0 : dom.nodes[domCurrent][3];
    // The objects not carried one by one: a block per type (the largest six, then the rest).
    const restBytes = total - shown - own;
    if (restBytes > 0) {
      const byType = (dom.rest || {})[String(domCurrent)] || [];
      let left = restBytes;
      byType.forEach(([t, b, c]) => {
        const value = Math.min(b, left);
        if (value <= 0) return;
        left -= value;
        items.push({i: -1, value, rest: true, restType: t, restCount: c});
      });
      if (left > 0) items.push({i: -1, value: left, rest: true, restType: -1, restCount: 0});
    }
    if (own > 0) items.push({i: -2, value: own, rest: true});
    items.sort((a, b) => b.value - a.value);
    const W = Math.max(420, Math.min(820, (map.parentElement.clientWidth || 1100) - 320)), H = 420;
    const svg = sv('svg', {width: W, height: H, id: 'treemap-svg'});
    const palette = ['#2f6fd0', '#3b8f6f', '#b5651d', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d', '#d35400'];
    squarify(items, 0, 0, W, H).forEach((c, k) => {
      const nd = c.item.i >= 0 ? dom.nodes[c.item.i] : null;
      const byType = !nd && c.item.i === -1 && c.item.restType >= 0;
      const name = nd ? str(nd[1])
        : byType ? `${c.item.restCount} \u00d7 ${str(c.item.restType)}`
        : c.item.i === -1 ? 'other smaller objects' : 'its own size';
      const r = sv('rect', {x: c.x.toFixed(1), y: c.y.toFixed(1), width: Math.max(0, c.w).toFixed(1),
        height: Math.max(0, c.h).toFixed(1), fill: nd ? palette[k % palette.length] : byType ? '#8fa3bf' : '#b9bec9',
        'fill-opacity': byType ? 0.9 : 1, stroke: '#fff', class: nd ? 'dom-node' : byType ? 'rest rest-type' : 'rest',
        'data-node': c.item.i});
      if (byType) r.setAttribute('data-type', str(c.item.restType));
      const tip = nd ? `${name}\n${nd[2]}\nretained ${bytes(nd[4])} (${nd[4]} bytes), own ${bytes(nd[3])}` +
        `${(domChildren.get(c.item.i) || []).length ? '\nclick to open' : ''}` : `${name}: ${bytes(c.item.value)}`;
      r.addEventListener('mousemove', ev => showTip(ev, tip));
      r.addEventListener('mouseleave', hideTip);
      if (nd) r.addEventListener('click', () => selectDominator(c.item.i));
      svg.append(r);
      if (c.w > 60 && c.h > 16) {
        const t = sv('text', {x: (c.x + 4).toFixed(1), y: (c.y + 13).toFixed(1)});
        const short = name.length * 6.2 > c.w - 8 ? name.slice(0, Math.max(1, Math.floor((c.w - 8) / 6.2) - 1)) + '\u2026' : name;
        t.textContent = short;
        svg.append(t);
        if (c.h > 30) {
          const t2 = sv('text', {x: (c.x + 4).toFixed(1), y: (c.y + 26).toFixed(1)});
          t2.textContent = bytes(c.item.value);
          svg.append(t2);
        }
      }
    });
    map.append(svg);
  }
  function pathList(pathNode) {
    const hops = [];
    for (let p = pathNode; p >= 0; p = rec.paths[p][0]) hops.unshift(rec.paths[p]);
    const list = el('ol', {class: 'path'});
    hops.forEach((h, k) => {
      const li = el('li', {});
      if (k === 0) li.append(el('span', {class: 'root', text: `[${str(h[5])} root] `}));
      else if (h[4] >= 0) li.append(el('span', {class: 'field', text: `.${str(h[4])} \u2192 `}));
      else li.append(el('span', {class: 'field', text: '\u2192 '}));
      li.append(`${str(h[1])} ${h[2]} (${bytes(h[3])})`);
      list.append(li);
    });
    return list;
  }
  function selectDominator(i) {
    const nd = rec.dom.nodes[i];
    const detail = document.getElementById('object-detail');
    const kids = domChildren.get(i) || [];
    detail.replaceChildren(
      el('h3', {text: str(nd[1])}),
      el('div', {text: `${nd[2]}: own ${bytes(nd[3])}, retained ${bytes(nd[4])} (${nd[4]} bytes)`}),
      el('div', {class: 'hint', text: kids.length ? `${kids.length} dominated objects carried` : 'no larger dominated objects'}),
      el('h4', {text: 'Shortest path from a root'}),
      nd[5] >= 0 ? pathList(nd[5]) : el('p', {class: 'hint', text: 'path not carried (only the largest retainers have one)'}));
    detail.dataset.node = i;
    if (kids.length) { domCurrent = i; drawDominators(); }
  }

  // ---- diff -----------------------------------------------------------------------------
  function drawDiffSelectors() {
    const a = document.getElementById('diff-a'), b = document.getElementById('diff-b');
    const opts = () => rec.snaps.map((gc, i) => el('option', {value: i, text: `GC ${gc}`}));
    a.replaceChildren(...opts());
    b.replaceChildren(...opts());
    // The first snapshot against the last: the last two alone often show nothing (a steady
    // state between two late walks), the whole span shows what grew.
    a.value = '0';
    b.value = String(rec.snaps.length - 1);
  }
  function drawDiff() {
    if (!rec.snaps.length) return;
    const a = Number(document.getElementById('diff-a').value), b = Number(document.getElementById('diff-b').value);
    const rows = rec.types.map(t => ({name: str(t.n), ca: t.c[a], cb: t.c[b], ba: t.b[a], bb: t.b[b]}));
    rows.push({name: '(other types)', ca: rec.other.c[a], cb: rec.other.c[b], ba: rec.other.b[a], bb: rec.other.b[b]});
    const changed = rows.filter(r => r.ca !== r.cb || r.ba !== r.bb)
      .sort((x, y) => Math.abs(y.bb - y.ba) - Math.abs(x.bb - x.ba) || x.name.localeCompare(y.name));
    const cls = d => (d > 0 ? 'grow' : d < 0 ? 'shrink' : '');
    document.querySelector('#diff-table tbody').replaceChildren(...changed.map(r => el('tr', {'data-type': r.name},
      el('td', {class: 'name', text: r.name}),
      el('td', {class: 'num', text: String(r.ca)}), el('td', {class: 'num', text: String(r.cb)}),
      el('td', {class: 'num ' + cls(r.cb - r.ca), 'data-value': r.cb - r.ca, text: signed(r.cb - r.ca, String)}),
      el('td', {class: 'num', text: bytes(r.ba)}), el('td', {class: 'num', text: bytes(r.bb)}),
      el('td', {class: 'num ' + cls(r.bb - r.ba), 'data-value': r.bb - r.ba, text: signed(r.bb - r.ba, bytes)}))));
    const dc = rec.snapCount[b] - rec.snapCount[a], db = rec.snapBytes[b] - rec.snapBytes[a];
    document.getElementById('diff-total').textContent =
      ` whole heap: ${signed(dc, String)} objects, ${signed(db, bytes)}; ${changed.length} types changed`;
  }

  // ---- allocations ----------------------------------------------------------------------
  // The sampled allocations as an icicle: the outermost frame on top, each frame as wide as
  // the estimated bytes allocated under it (or still live at the last snapshot); the bottom
  // row is the allocated type. A click zooms into a frame. Node: [name, alloc, live, kids].
  let allocPath = [];
  function allocBy() { return Number(document.querySelector('input[name=alloc-by]:checked').value); }
  // "all > Main > AllocKept": each crumb zooms back out to its frame.
  function drawAllocCrumbs(tree) {
    const crumbs = document.getElementById('allocations-crumbs');
    crumbs.replaceChildren(el('a', {text: 'all', onclick: () => { allocPath = []; drawAllocations(); }}));
    allocPath.forEach((_, i) => {
      let n = tree;
      for (const k of allocPath.slice(0, i + 1)) n = n[3][k];
      crumbs.append(' \u203a ', el('a', {text: n[0], onclick: () => { allocPath = allocPath.slice(0, i + 1); drawAllocations(); }}));
    });
  }
  function drawAllocations() {
    const a = rec.allocations;
    const section = document.getElementById('allocations');
    section.hidden = !a;
    document.getElementById('nav-allocations').hidden = !a;
    if (!a) return;
    const by = allocBy();
    document.getElementById('allocations-note').textContent =
      `${a.samples} sampled allocations, ${a.live} still alive at GC ${a.gc}; ` +
      (a.ticks ? 'AllocationTick samples (one per ~100 KiB): shares, not estimates' : 'estimated bytes');
    let root = a.tree;
    for (const k of allocPath) root = root[3][k] || root;
    drawAllocCrumbs(a.tree);
    const box = document.getElementById('icicle');
    box.replaceChildren();
    const width = box.clientWidth || 1000, rowH = 18;
    let depth = 0;
    const place = (n, path, x, w, d) => {
      if (w < 1 || n[by] <= 0) return;
      depth = Math.max(depth, d + 1);
      const cell = el('div', {class: n[3].length ? 'frame' : 'frame leaf', text: n[0],
                              style: `left:${x}px;top:${d * rowH}px;width:${w}px`});
      cell.addEventListener('mousemove', ev => showTip(ev,
        `${n[0]}\nallocated ${bytes(n[1])}\nlive at GC ${a.gc} ${bytes(n[2])}`));
      cell.addEventListener('mouseleave', hideTip);
      cell.addEventListener('click', () => { allocPath = path; drawAllocations(); });
      box.append(cell);
      let cx = x;
      n[3].forEach((c, k) => {
        const cw = w * c[by] / n[by];
        place(c, path.concat([k]), cx, cw, d + 1);
        cx += cw;
      });
    };
    place(root, allocPath, 0, width, 0);
    box.style.height = `${depth * rowH}px`;
  }

  // ---- page -----------------------------------------------------------------------------
  function show(index) {
    rec = DATA.recordings[index];
    document.getElementById('meta').textContent =
      `${rec.file}: ${rec.gcs.length} GCs, ${rec.snaps.length} snapshots` + (rec.end !== 'complete' ? ` (file end: ${rec.end})` : '');
    drawMemory();
    drawTimeline();
    allocPath = [];
    drawAllocations();
    const hasSnaps = rec.snaps.length > 0;
    for (const id of ['types', 'dominators', 'diff', 'suspects']) document.getElementById(id).hidden = !hasSnaps;
    if (!hasSnaps) return;
    drawTypes();
    drawSuspects();
    domInit();
    drawDominators();
    drawDiffSelectors();
    drawDiff();
  }
  const pick = document.getElementById('recording');
  if (DATA.recordings.length > 1) {
    document.getElementById('recording-pick').hidden = false;
    pick.replaceChildren(...DATA.recordings.map((r, i) => el('option', {value: i, text: r.file})));
    pick.addEventListener('change', () => show(Number(pick.value)));
  }
  document.getElementById('types-filter').addEventListener('input', drawTypes);
  document.getElementById('types-more').addEventListener('click', () => { typesExpanded = !typesExpanded; drawTypes(); });
  document.querySelectorAll('#types-table th[data-key]').forEach(th => th.addEventListener('click', () => {
    if (typeSort.key === th.dataset.key) typeSort.asc = !typeSort.asc;
    else { typeSort.key = th.dataset.key; typeSort.asc = th.dataset.key === 'name'; }
    drawTypes();
  }));
  document.querySelectorAll('input[name=alloc-by]').forEach(r => r.addEventListener('change', drawAllocations));
  document.getElementById('diff-a').addEventListener('change', drawDiff);
  document.getElementById('diff-b').addEventListener('change', drawDiff);
  show(0);
  // When the page was drawn (ms after navigation start), for bench/report_render.js.
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = '1';
})();
