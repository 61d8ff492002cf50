/// The report page's script (ES2017, no library). It reads the `jp-data` block, fills the
/// divergence table (sort, filter; a click opens the row's recording at its time), draws the
/// selected recording's timeline as SVG (golden and new display lanes, the focused cue's
/// metric against its thresholds with the hysteresis band shaded, the gate's counters, praise
/// and cards, prompts, divergence marks, one cursor) and the landmarks at the cursor frame.
/// Every string from the data goes into the DOM through `textContent` or an attribute value.
///
/// Both sides are drawn on one cursor: the golden side's metric, gate and thresholds (replayed
/// under the golden's spec, `goldenSeries`) beside the new side's, so a threshold change shows
/// both lines (`line.th[data-side]`). The page opens at the first divergence, its row
/// selected; a row click moves the cursor, and a cursor move (click, keys, p/n, deep link)
/// selects and scrolls the row of the last divergence at or before it. Cue colours come from
/// a colour-blind-safe palette (Paul Tol's muted nine and Okabe–Ito orange) crossed with five
/// fill patterns, assigned in order of first appearance on the page: 50 cues stay distinct;
/// the legend and every mark carry the full name on hover.
///
/// Status for tests: `body[data-status]` is `ok` after a clean first render (else `error`, the
/// messages in `#errors`), `body[data-render-ms]` the time from navigation start to the end of
/// the first render (`performance.now()`), `#tl[data-cursor-t]` the cursor, `#rows[data-sel-row]`
/// the selected row, `#rows[data-col-widths]` the header cells' widths in px. Deep link
/// `#rec=NAME&t=MS&cue=CUE`; test hooks `&click=N` (clicks row N of the table after the first
/// render), `&keys=K1,K2` (keydown events with those `key`s sent to the timeline),
/// `&decide=accept|reject` (sets every recording's decision) and `&export=1` (clicks the
/// export button).
enum HTMLReportScript {
  static let source = #"""
    "use strict";
    (function () {
    const errors = document.getElementById("errors");
    function fail(msg) {
      errors.hidden = false;
      const d = document.createElement("div");
      d.textContent = String(msg);
      errors.appendChild(d);
      document.body.setAttribute("data-status", "error");
    }
    window.addEventListener("error", e => fail("error: " + e.message + " (line " + e.lineno + ")"));
    window.addEventListener("unhandledrejection", e => fail("unhandled: " + e.reason));
    const $ = id => document.getElementById(id);
    const SVG = "http://www.w3.org/2000/svg";
    function el(tag, attrs, text) {
      const e = document.createElement(tag);
      for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
      if (text != null) e.textContent = text;
      return e;
    }
    function sv(parent, tag, attrs, text) {
      const e = document.createElementNS(SVG, tag);
      for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
      if (text != null) e.textContent = text;
      if (parent) parent.appendChild(e);
      return e;
    }
    function bytes(s) {
      const bin = atob(s || ""), a = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) a[i] = bin.charCodeAt(i);
      return a;
    }
    function typed(s, size, get) {
      const u = bytes(s), v = new DataView(u.buffer), n = Math.floor(u.length / size), out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = get(v, i * size);
      return out;
    }
    const i32 = s => typed(s, 4, (v, o) => v.getInt32(o, true));
    const f32 = s => typed(s, 4, (v, o) => { const x = v.getFloat32(o, true); return isNaN(x) ? null : x; });
    const u16 = s => typed(s, 2, (v, o) => v.getUint16(o, true));
    const LEVELS = ["none", "enter", "warn", "hard", "exit"];
    const D = JSON.parse($("jp-data").textContent);
    // The two sides' names: a tune page compares the shipped spec with a trial.
    const GOLD = D.kind === "tune" ? "shipped" : "golden", NEW = D.kind === "tune" ? "trial" : "new";
    const S = { rec: 0, t: 0, v0: 0, v1: 1, cue: 0, sortKey: null, desc: false, row: -1, decisions: new Map() };
    const cache = {};

    // ---- decoding -------------------------------------------------------------------
    function timeline(i) {
      if (cache[i]) return cache[i];
      const T = D.timelines[i], s = T.series, n = { T: T };
      n.t = i32(s.t);
      n.metrics = s.metrics.map(m => ({ cue: m.cue, value: f32(m.value), level: Array.from(bytes(m.level)), th: m.thresholds }));
      n.gateShown = Array.from(bytes(s.gateShown));
      n.gateStable = Array.from(bytes(s.gateStable));
      n.gatePersist = Array.from(bytes(s.gatePersist));
      n.states = s.states || [];
      n.metrics.forEach((m, k) => { m.state = Array.from(bytes(s.metrics[k].state)); });
      const g = T.goldenSeries;
      n.g = g ? {
        t: i32(g.t), states: g.states || [], gateStable: Array.from(bytes(g.gateStable)), gatePersist: Array.from(bytes(g.gatePersist)),
        gateShown: Array.from(bytes(g.gateShown)), gateCues: g.gateCues,
        metrics: g.metrics.map(m => ({ cue: m.cue, value: f32(m.value), level: Array.from(bytes(m.level)), state: Array.from(bytes(m.state)), th: m.thresholds })),
      } : null;
      n.gateHeld = u16(s.gateHeld);
      n.gateCooling = Array.from(bytes(s.gateCooling));
      n.lt = i32(s.landmarkT);
      n.lm = bytes(s.landmarks);
      n.frames = n.lt.length ? n.lt : n.t;
      n.rows = [];
      D.rows.forEach((r, k) => { if (r.rec === T.name) n.rows.push(k); });
      n.divT = Array.from(new Set(n.rows.map(k => D.rows[k].t))).sort((a, b) => a - b);
      return (cache[i] = n);
    }
    // The index of the last element of sorted `a` that is <= x (-1 when none).
    function floorIndex(a, x) {
      let lo = 0, hi = a.length - 1, r = -1;
      while (lo <= hi) { const m = (lo + hi) >> 1; if (a[m] <= x) { r = m; lo = m + 1; } else hi = m - 1; }
      return r;
    }
    // The span [t, end) of each display of a lane (end: next display or the duration).
    function spans(displays, end) {
      const out = [];
      for (let i = 0; i < displays.length; i++) {
        const d = displays[i], e = i + 1 < displays.length ? displays[i + 1][0] : end;
        if (d[1] != null && e > d[0]) out.push({ t0: d[0], t1: e, cue: d[1], level: d[2] });
      }
      return out;
    }
    function shownAt(displays, t) {
      let cur = null;
      for (const d of displays) { if (d[0] <= t) cur = d; else break; }
      return cur && cur[1] != null ? cur[1] + "/" + cur[2] : "—";
    }
    // Cue colours: ten colour-blind-safe colours (Paul Tol's muted, Okabe-Ito orange) times
    // five fills (solid, two hatchings, dots, cross), by first appearance on the page.
    const PALETTE = ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499", "#E69F00"];
    const DARK = new Set(["#332288", "#117733", "#882255", "#AA4499"]);
    const CUES = [];
    D.timelines.forEach(T => {
      const all = T.golden.displays.concat(T.new.displays).filter(d => d[1] != null).sort((a, b) => a[0] - b[0]);
      for (const d of all) if (!CUES.includes(d[1])) CUES.push(d[1]);
    });
    function cueIndex(cue) { let k = CUES.indexOf(cue); if (k < 0) { CUES.push(cue); k = CUES.length - 1; addPattern(k); } return k; }
    function colour(cue) { return PALETTE[cueIndex(cue) % PALETTE.length]; }
    function fillOf(cue) { const k = cueIndex(cue); return Math.floor(k / PALETTE.length) % 5 === 0 ? colour(cue) : "url(#cp-" + k + ")"; }
    function addPattern(k) {
      const defs = $("legend-defs"), kind = Math.floor(k / PALETTE.length) % 5, c = PALETTE[k % PALETTE.length];
      if (!defs || kind === 0) return;
      const p = sv(defs, "pattern", { id: "cp-" + k, width: 6, height: 6, patternUnits: "userSpaceOnUse" });
      sv(p, "rect", { width: 6, height: 6, fill: c });
      const ink = DARK.has(c) ? "#fff" : "#222";
      if (kind === 1) sv(p, "path", { d: "M0 6L6 0", stroke: ink, "stroke-width": 1.2 });
      else if (kind === 2) sv(p, "path", { d: "M0 0L6 6", stroke: ink, "stroke-width": 1.2 });
      else if (kind === 3) sv(p, "circle", { cx: 3, cy: 3, r: 1.3, fill: ink });
      else sv(p, "path", { d: "M3 0V6M0 3H6", stroke: ink, "stroke-width": 1 });
    }
    function fillLegend() {
      const box = $("legend");
      CUES.forEach((c, k) => addPattern(k));
      for (const c of CUES.slice()) {
        const item = el("span", { class: "lg", title: c, "data-cue": c });
        const sw = sv(null, "svg", { width: 18, height: 11 });
        sv(sw, "rect", { width: 18, height: 11, fill: fillOf(c), stroke: "#555", "stroke-width": 0.5 });
        item.appendChild(sw);
        item.appendChild(document.createTextNode(" " + c));
        box.appendChild(item);
      }
    }

    // ---- table ----------------------------------------------------------------------
    function fillHeader() {
      $("title").textContent = D.title;
      $("counts").textContent = D.counts.map(c => c[0] + " " + c[1]).join(" · ") + " · " + D.rows.length + " divergences";
      const kinds = Array.from(new Set(D.rows.map(r => r.kind))).sort();
      for (const k of kinds) $("kind-filter").appendChild(el("option", { value: k }, k));
      if (D.rowsOmitted > 0) $("rows-more").textContent = D.rowsOmitted + " more divergences are not in the table (see verify --format json)";
      for (const w of D.withoutTimeline) $("rows-more").appendChild(el("div", {}, "no timeline for " + w[0] + ": " + w[1]));
    }
    function rowOrder() {
      const idx = D.rows.map((r, i) => i);
      const q = $("filter").value.toLowerCase(), kind = $("kind-filter").value;
      const keep = idx.filter(i => {
        const r = D.rows[i];
        if (kind && r.kind !== kind) return false;
        if (!q) return true;
        return [r.rec, r.file, String(r.t), r.cue, r.kind, r.detail, r.explanation].some(x => x.toLowerCase().includes(q));
      });
      if (S.sortKey) {
        const k = S.sortKey, sign = S.desc ? -1 : 1;
        keep.sort((a, b) => {
          const x = D.rows[a][k], y = D.rows[b][k];
          return sign * (typeof x === "number" ? x - y : String(x).localeCompare(String(y))) || a - b;
        });
      }
      return keep;
    }
    function fillRows() {
      const body = document.querySelector("#rows tbody");
      body.textContent = "";
      const order = rowOrder();
      for (const i of order) {
        const r = D.rows[i];
        const tr = el("tr", { "data-row": String(i), "data-rec": r.rec, "data-t": String(r.t) });
        const cells = [r.rec, r.file, String(r.t), r.cue, r.kind, r.detail, r.explanation];
        cells.forEach((c, k) => tr.appendChild(el("td", k === 4 ? { class: "k-" + r.kind.replace(/ /g, "-") } : {}, c)));
        if (i === S.row) tr.classList.add("sel");
        tr.addEventListener("click", () => openRow(i));
        body.appendChild(tr);
      }
      $("row-count").textContent = order.length + " of " + D.rows.length + " rows";
      $("rows").setAttribute("data-sel-row", String(S.row));
    }
    function openRow(i) {
      const r = D.rows[i];
      S.row = i;
      const k = D.timelines.findIndex(T => T.name === r.rec);
      if (k >= 0) {
        selectRecording(k, false);
        const n = timeline(k), c = n.metrics.findIndex(m => m.cue === r.cue);
        if (c >= 0) { S.cue = c; $("cue-select").value = String(c); }
        centre(r.t);
        setCursor(r.t);
      }
      markRow(true);
    }
    // The selected row highlighted (and scrolled into view when `scroll`).
    function markRow(scroll) {
      $("rows").setAttribute("data-sel-row", String(S.row));
      for (const tr of document.querySelectorAll("#rows tbody tr")) {
        const on = Number(tr.getAttribute("data-row")) === S.row;
        tr.classList.toggle("sel", on);
        if (on && scroll) tr.scrollIntoView({ block: "nearest" });
      }
      const cause = $("cause");
      if (S.row < 0) { cause.hidden = true; return; }
      const r = D.rows[S.row];
      cause.hidden = false;
      cause.textContent = r.explanation + (r.cause.length ? "\n\nwhy (engine metrics within 500 ms):\n" + r.cause.join("\n") : "");
    }
    // The cursor selects the row of the last divergence of its recording at or before it (the
    // selected row stays when it is at that time).
    function rowAtCursor() {
      const n = timeline(S.rec), i = floorIndex(n.divT, S.t);
      let row = -1;
      if (i >= 0) {
        const t = n.divT[i], cur = D.rows[S.row];
        row = cur && cur.rec === n.T.name && cur.t === t ? S.row : n.rows.find(k => D.rows[k].t === t);
      }
      if (row !== S.row) { S.row = row; markRow(true); }
    }
    // The first divergence: the earliest row of the first recording with a timeline.
    function openFirst() {
      if (!D.timelines.length) return;
      const n = timeline(0);
      if (!n.divT.length) return;
      openRow(n.rows.find(k => D.rows[k].t === n.divT[0]));
    }

    // ---- timeline -------------------------------------------------------------------
    const W = 1000, LEFT = 110, RIGHT = 10;
    const X = t => LEFT + (t - S.v0) / (S.v1 - S.v0) * (W - LEFT - RIGHT);
    const T_OF = x => S.v0 + (x - LEFT) / (W - LEFT - RIGHT) * (S.v1 - S.v0);
    function selectRecording(k, reset) {
      if (k === S.rec && !reset && cache[k]) return;
      S.rec = k;
      const n = timeline(k);
      $("rec-select").value = String(k);
      const cs = $("cue-select");
      cs.textContent = "";
      n.metrics.forEach((m, i) => cs.appendChild(el("option", { value: String(i) }, m.cue)));
      S.cue = 0;
      S.v0 = 0;
      S.v1 = Math.max(1, n.T.duration);
      $("tl-name").textContent = n.T.name;
      $("golden-note").textContent = n.T.goldenNote || "";
      S.t = Math.min(S.t, n.T.duration);
    }
    function centre(t) {
      const w = S.v1 - S.v0, dur = timeline(S.rec).T.duration;
      const half = Math.min(w, Math.max(4000, dur / 8)) / 2;
      S.v0 = Math.max(0, t - half);
      S.v1 = Math.min(Math.max(dur, 1), t + half);
      if (S.v1 - S.v0 < 200) S.v1 = S.v0 + 200;
    }
    function lane(svg, y, h, name, label) {
      const g = sv(svg, "g", { class: "lane", "data-lane": name });
      sv(g, "text", { x: 4, y: y + h / 2 + 3, class: "lane-label" }, label);
      sv(g, "line", { x1: LEFT, x2: W - RIGHT, y1: y + h, y2: y + h, stroke: "#eee" });
      return g;
    }
    function drawDisplays(g, displays, end, y, h) {
      for (const s of spans(displays, end)) {
        if (s.t1 < S.v0 || s.t0 > S.v1) continue;
        const x0 = Math.max(LEFT, X(s.t0)), x1 = Math.min(W - RIGHT, X(s.t1));
        const r = sv(g, "rect", { x: x0, y: y + 2, width: Math.max(1, x1 - x0), height: h - 4, fill: fillOf(s.cue), "data-cue": s.cue, "data-t": s.t0 });
        sv(r, "title", {}, s.cue + "/" + s.level + "  " + s.t0 + "–" + s.t1 + " ms");
        if (x1 - x0 > 60) {
          const label = sv(g, "text", { x: x0 + 3, y: y + h / 2 + 3, "font-size": 10, class: "cue-label" }, s.cue + (s.level === "hard" ? " ▲" : ""));
          sv(label, "title", {}, s.cue + "/" + s.level);
        }
      }
    }
    function drawMarks(g, marks, y, shape, fill) {
      for (const m of marks) {
        if (m[0] < S.v0 || m[0] > S.v1) continue;
        const x = X(m[0]);
        const p = sv(g, "path", { d: shape === "up" ? `M${x - 4} ${y + 8}L${x} ${y}L${x + 4} ${y + 8}Z` : `M${x} ${y}L${x + 4} ${y + 4}L${x} ${y + 8}L${x - 4} ${y + 4}Z`, fill: fill, "data-t": m[0] });
        sv(p, "title", {}, m[0] + " ms  " + m[1]);
      }
    }
    function thresholdLines(th) {
      const out = [];
      for (const level of ["hard", "warn", "enter", "exit"]) {
        for (const t of (th && th[level]) || []) {
          const op = t[0], vals = op === "between" ? [t[1], t[2]] : op.startsWith("abs") ? [t[1], -t[1]] : [t[1]];
          for (const v of vals) if (v != null) out.push({ level: level, v: v });
        }
      }
      return out;
    }
    // The path of one metric series: one min/max pair per pixel column keeps it short however
    // long the recording.
    function seriesPath(t, values, Y) {
      const i0 = Math.max(0, floorIndex(t, S.v0)), i1 = Math.min(t.length - 1, floorIndex(t, S.v1) + 1);
      let d = "", col = -1, mn = 0, mx = 0, pen = false;
      const flush = () => { if (col >= 0) { d += (pen ? "L" : "M") + col + " " + Y(mn).toFixed(1) + "L" + col + " " + Y(mx).toFixed(1); pen = true; } };
      for (let i = i0; i <= i1; i++) {
        const v = values[i];
        if (v == null) { flush(); col = -1; pen = false; continue; }
        const c = Math.round(X(t[i]));
        if (c !== col) { flush(); col = c; mn = mx = v; } else { mn = Math.min(mn, v); mx = Math.max(mx, v); }
      }
      flush();
      return d;
    }
    const sameLine = (a, b) => a.level === b.level && Math.abs(a.v - b.v) < 1e-9;
    function drawMetric(svg, n, y, h) {
      const g = lane(svg, y, h, "metric", "metric");
      const m = n.metrics[S.cue];
      if (!m) { sv(g, "text", { x: LEFT + 4, y: y + h / 2, "font-size": 11 }, "no metric series for this recording"); return; }
      g.setAttribute("data-cue", m.cue);
      const gm = n.g ? n.g.metrics.find(x => x.cue === m.cue) : null;
      const lines = thresholdLines(m.th), glines = gm ? thresholdLines(gm.th) : [];
      const changed = gm != null && (glines.length !== lines.length || glines.some(a => !lines.some(b => sameLine(a, b))));
      let lo = Infinity, hi = -Infinity;
      const range = (t, vals) => {
        const i0 = Math.max(0, floorIndex(t, S.v0)), i1 = Math.min(t.length - 1, floorIndex(t, S.v1) + 1);
        for (let i = i0; i <= i1; i++) { const v = vals[i]; if (v != null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
      };
      range(n.t, m.value);
      if (gm) range(n.g.t, gm.value);
      for (const l of lines.concat(glines)) { lo = Math.min(lo, l.v); hi = Math.max(hi, l.v); }
      if (!isFinite(lo)) { lo = 0; hi = 1; }
      if (hi - lo < 1e-9) { hi = lo + 1; }
      const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
      const Y = v => y + h - 4 - (v - lo) / (hi - lo) * (h - 8);
      // The hysteresis band: between the exit line and the nearest entering line (enter, else warn).
      const exits = lines.filter(l => l.level === "exit"), enters = lines.filter(l => l.level === "enter" || l.level === "warn");
      for (const e of exits) {
        let best = null;
        for (const a of enters) if (Math.sign(a.v) === Math.sign(e.v) || e.v === 0) if (best == null || Math.abs(a.v - e.v) < Math.abs(best.v - e.v)) best = a;
        if (best) sv(g, "rect", { class: "band", x: LEFT, width: W - LEFT - RIGHT, y: Math.min(Y(e.v), Y(best.v)), height: Math.abs(Y(e.v) - Y(best.v)), fill: "#fff3c4" });
      }
      const stroke = { hard: "#b00020", warn: "#e08a00", enter: "#7b1fa2", exit: "#2e7d32" };
      // The new side's thresholds dashed (labelled at the right); where the golden's differ,
      // the golden's dotted (labelled at the left), so a threshold change shows both lines.
      for (const l of lines) {
        const ln = sv(g, "line", { class: "th th-" + l.level, "data-side": "new", "data-level": l.level, "data-v": String(l.v), x1: LEFT, x2: W - RIGHT, y1: Y(l.v), y2: Y(l.v), stroke: stroke[l.level], "stroke-dasharray": "4 3" });
        sv(ln, "title", {}, (changed ? NEW + " " : "") + l.level + " " + l.v);
        sv(g, "text", { x: W - RIGHT - 2, y: Y(l.v) - 2, "text-anchor": "end", "font-size": 9, fill: stroke[l.level] }, (changed ? NEW + " " : "") + l.level + " " + l.v);
      }
      if (changed) for (const l of glines) {
        if (lines.some(b => sameLine(l, b))) continue;
        const ln = sv(g, "line", { class: "th-golden th-golden-" + l.level, "data-side": "golden", "data-level": l.level, "data-v": String(l.v), x1: LEFT, x2: W - RIGHT, y1: Y(l.v), y2: Y(l.v), stroke: stroke[l.level], "stroke-dasharray": "1 3", "stroke-width": 1.5 });
        sv(ln, "title", {}, GOLD + " " + l.level + " " + l.v);
        sv(g, "text", { x: LEFT + 2, y: Y(l.v) - 2, "font-size": 9, fill: stroke[l.level] }, GOLD + " " + l.level + " " + l.v);
      }
      if (gm) sv(g, "path", { class: "metric-golden", d: seriesPath(n.g.t, gm.value, Y), fill: "none", stroke: "#8d6e63", "stroke-width": 1.2, "stroke-dasharray": "5 2", "clip-path": "url(#plot-clip)" });
      sv(g, "path", { class: "metric-new", d: seriesPath(n.t, m.value, Y), fill: "none", stroke: "#1565c0", "stroke-width": 1.2, "clip-path": "url(#plot-clip)" });
      const name = sv(g, "text", { x: 4, y: y + h / 2 + 15, class: "lane-label" }, m.cue.length > 18 ? m.cue.slice(0, 17) + "…" : m.cue);
      sv(name, "title", {}, m.cue);
      sv(g, "text", { x: 4, y: y + h / 2 + 27, class: "lane-label", "font-size": 8 }, gm ? NEW + " ─ " + GOLD + " ╌" : NEW + " ─ (no " + GOLD + ")");
    }
    function drawGate(svg, n, y, h) {
      const g = lane(svg, y, h, "gate", "gate");
      const i0 = Math.max(0, floorIndex(n.t, S.v0)), i1 = Math.min(n.t.length - 1, floorIndex(n.t, S.v1) + 1);
      let d = "", coolStart = null;
      for (let i = i0; i <= i1; i++) {
        const x = X(n.t[i]).toFixed(1), v = Math.min(1, n.gateStable[i] / Math.max(1, n.gatePersist[i]));
        d += (d ? "L" : "M") + x + " " + (y + h - 3 - v * (h - 6)).toFixed(1);
        if (n.gateCooling[i] && coolStart == null) coolStart = n.t[i];
        if ((!n.gateCooling[i] || i === i1) && coolStart != null) {
          sv(g, "rect", { class: "cooldown", x: X(coolStart), y: y, width: Math.max(1, X(n.t[i]) - X(coolStart)), height: h, fill: "#e3f2fd" });
          coolStart = null;
        }
      }
      // Held ms against the minimum hold, on the same 0…1 scale (dashed).
      const minHold = Math.max(1, D.timelines[S.rec].series.minHold);
      let h2 = "";
      for (let i = i0; i <= i1; i++) h2 += (h2 ? "L" : "M") + X(n.t[i]).toFixed(1) + " " + (y + h - 3 - Math.min(1, n.gateHeld[i] / minHold) * (h - 6)).toFixed(1);
      sv(g, "line", { x1: LEFT, x2: W - RIGHT, y1: y + 3, y2: y + 3, stroke: "#bbb", "stroke-dasharray": "2 2" });
      sv(g, "path", { class: "gate-held", d: h2, fill: "none", stroke: "#9e9e9e", "stroke-dasharray": "3 2", "clip-path": "url(#plot-clip)" });
      if (n.g) {
        const gt = n.g.t, j0 = Math.max(0, floorIndex(gt, S.v0)), j1 = Math.min(gt.length - 1, floorIndex(gt, S.v1) + 1);
        let gd = "";
        for (let i = j0; i <= j1; i++) gd += (gd ? "L" : "M") + X(gt[i]).toFixed(1) + " " + (y + h - 3 - Math.min(1, n.g.gateStable[i] / Math.max(1, n.g.gatePersist[i])) * (h - 6)).toFixed(1);
        sv(g, "path", { class: "gate-stable-golden", d: gd, fill: "none", stroke: "#bcaaa4", "stroke-width": 2.5, "clip-path": "url(#plot-clip)" });
      }
      sv(g, "path", { class: "gate-stable", d: d, fill: "none", stroke: "#6d4c41", "clip-path": "url(#plot-clip)" });
      sv(g, "text", { x: 4, y: y + h - 2, class: "lane-label", "font-size": 8 }, "persist ─ hold ┄ cool ▒" + (n.g ? " " + GOLD + " ━" : ""));
    }
    function draw() {
      const n = timeline(S.rec), T = n.T, box = $("tl");
      box.textContent = "";
      const svg = sv(null, "svg", { viewBox: `0 0 ${W} 300`, "data-v0": S.v0, "data-v1": S.v1 });
      // Series drawn a point past the view on each side are clipped to the plot area.
      sv(sv(sv(svg, "defs"), "clipPath", { id: "plot-clip" }), "rect", { x: LEFT, y: 0, width: W - LEFT - RIGHT, height: 300 });
      // Time axis.
      const ax = sv(svg, "g", { class: "axis" });
      const span = S.v1 - S.v0, step = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000].find(s => span / s <= 10) || 600000;
      for (let t = Math.ceil(S.v0 / step) * step; t <= S.v1; t += step) {
        sv(ax, "line", { x1: X(t), x2: X(t), y1: 14, y2: 290, stroke: "#f2f2f2" });
        sv(ax, "text", { x: X(t), y: 11, "font-size": 9, "text-anchor": "middle", fill: "#777" }, t >= 1000 ? (t / 1000) + " s" : t + " ms");
      }
      drawDisplays(lane(svg, 16, 22, "display-golden", GOLD + " cue"), T.golden.displays, T.duration, 16, 22);
      drawDisplays(lane(svg, 40, 22, "display-new", NEW + " cue"), T.new.displays, T.duration, 40, 22);
      drawMetric(svg, n, 64, 110);
      drawGate(svg, n, 176, 34);
      const pc = lane(svg, 212, 34, "praise-cards", "praise · cards");
      drawMarks(pc, T.golden.praise, 214, "up", "#2e7d32"); drawMarks(pc, T.golden.cards, 214, "dia", "#90a4ae");
      drawMarks(pc, T.new.praise, 230, "up", "#66bb6a"); drawMarks(pc, T.new.cards, 230, "dia", "#37474f");
      const pr = lane(svg, 248, 34, "prompts", "prompts");
      drawMarks(pr, T.golden.prompts, 250, "dia", "#00897b"); drawMarks(pr, T.new.prompts, 266, "dia", "#004d40");
      sv(svg, "text", { x: 4, y: 242, "font-size": 8, fill: "#999" }, "upper " + GOLD + ", lower " + NEW);
      sv(svg, "text", { x: 4, y: 278, "font-size": 8, fill: "#999" }, "upper " + GOLD + ", lower " + NEW);
      const dv = sv(svg, "g", { class: "divergences" });
      for (const k of n.rows) {
        const r = D.rows[k];
        if (r.t < S.v0 || r.t > S.v1) continue;
        const l = sv(dv, "line", { class: "div-mark", x1: X(r.t), x2: X(r.t), y1: 14, y2: 290, "data-row": k });
        sv(l, "title", {}, r.kind + " " + r.cue + " at " + r.t + " ms");
      }
      if (S.t >= S.v0 && S.t <= S.v1) sv(svg, "line", { class: "cursor", x1: X(S.t), x2: X(S.t), y1: 14, y2: 292 });
      box.appendChild(svg);
      box.setAttribute("data-cursor-t", String(S.t));
      box.setAttribute("data-v0", String(S.v0));
      box.setAttribute("data-v1", String(S.v1));
      box.setAttribute("data-rec", T.name);
      drawPose(n);
      readout(n);
    }
    const BONES = [[0, 1], [1, 2], [1, 3], [2, 4], [4, 6], [3, 5], [5, 7], [1, 8], [8, 9], [8, 10], [9, 11], [11, 13], [10, 12], [12, 14], [0, 15], [0, 16], [15, 17], [16, 18]];
    function drawPose(n) {
      const svg = $("pose");
      svg.textContent = "";
      sv(svg, "rect", { x: 25, y: 41.7, width: 100, height: 166.7, fill: "none", stroke: "#ccc" });
      const i = floorIndex(n.lt, S.t);
      svg.setAttribute("data-frame-t", i >= 0 ? String(n.lt[i]) : "");
      if (i < 0) return;
      const P = k => { const x = n.lm[i * 38 + 2 * k], y = n.lm[i * 38 + 2 * k + 1]; return x === 255 ? null : [25 + (x / 250 * 1.5 - 0.25) * 100, 41.7 + (y / 250 * 1.5 - 0.25) * 166.7]; };
      for (const b of BONES) { const a = P(b[0]), c = P(b[1]); if (a && c) sv(svg, "line", { x1: a[0], y1: a[1], x2: c[0], y2: c[1], stroke: "#555" }); }
      for (let k = 0; k < 19; k++) { const p = P(k); if (p) sv(svg, "circle", { class: "joint", cx: p[0], cy: p[1], r: 2.2, fill: "#1565c0" }); }
    }
    function readout(n) {
      const T = n.T, i = floorIndex(n.t, S.t), m = n.metrics[S.cue], s = T.series;
      const lines = ["t " + S.t + " ms", GOLD.padEnd(7) + shownAt(T.golden.displays, S.t), NEW.padEnd(7) + shownAt(T.new.displays, S.t)];
      const metric = (side, mm, k, states) => "  " + side + " error " + (mm.value[k] == null ? "—" : mm.value[k].toFixed(4)) + "  " + LEVELS[mm.level[k]] + "  " + (states[mm.state[k]] || "—");
      const gj = n.g ? floorIndex(n.g.t, S.t) : -1, gm = n.g && m ? n.g.metrics.find(x => x.cue === m.cue) : null;
      if (i >= 0) {
        if (m) {
          lines.push(m.cue, metric(NEW.padEnd(7), m, i, n.states));
          if (gm && gj >= 0) lines.push(metric(GOLD.padEnd(7), gm, gj, n.g.states));
        }
        const shown = n.gateShown[i] ? s.gateCues[n.gateShown[i] - 1] : "—";
        lines.push("gate shows " + shown, "  stable " + n.gateStable[i] + "/" + n.gatePersist[i] + "  held " + n.gateHeld[i] + "/" + s.minHold + " ms" + (n.gateCooling[i] ? "  cooling down" : ""));
        if (n.g && gj >= 0) lines.push("  " + GOLD + " stable " + n.g.gateStable[gj] + "/" + n.g.gatePersist[gj] + "  shows " + (n.g.gateShown[gj] ? n.g.gateCues[n.g.gateShown[gj] - 1] : "—"));
      }
      $("readout").textContent = lines.join("\n");
    }
    function setCursor(t) {
      const dur = timeline(S.rec).T.duration;
      S.t = Math.max(0, Math.min(dur, Math.round(t)));
      if (S.t < S.v0 || S.t > S.v1) centre(S.t);
      draw();
      rowAtCursor();
      const T = D.timelines[S.rec];
      const h = "#rec=" + encodeURIComponent(T.key) + "&t=" + S.t + (timeline(S.rec).metrics[S.cue] ? "&cue=" + encodeURIComponent(timeline(S.rec).metrics[S.cue].cue) : "");
      if (location.hash !== h) history.replaceState(null, "", h);
    }
    function zoom(f, at) {
      const dur = Math.max(1, timeline(S.rec).T.duration), c = at == null ? S.t : at;
      let w = Math.max(200, Math.min(dur, (S.v1 - S.v0) * f));
      S.v0 = Math.max(0, Math.min(dur - w, c - (c - S.v0) * w / (S.v1 - S.v0)));
      S.v1 = S.v0 + w;
      draw();
    }
    function step(dir) {
      const f = timeline(S.rec).frames, i = floorIndex(f, S.t);
      const j = dir > 0 ? (i >= 0 && f[i] === S.t ? i + 1 : i + 1) : (i >= 0 && f[i] === S.t ? i - 1 : i);
      if (j >= 0 && j < f.length) setCursor(f[j]);
    }
    function jump(dir) {
      const d = timeline(S.rec).divT;
      const next = dir > 0 ? d.find(t => t > S.t) : d.slice().reverse().find(t => t < S.t);
      if (next != null) setCursor(next);
    }
    function wire() {
      D.timelines.forEach((T, k) => $("rec-select").appendChild(el("option", { value: String(k) }, T.name)));
      $("rec-select").addEventListener("change", e => { selectRecording(Number(e.target.value), true); setCursor(0); });
      $("cue-select").addEventListener("change", e => { S.cue = Number(e.target.value); draw(); });
      $("filter").addEventListener("input", fillRows);
      $("kind-filter").addEventListener("change", fillRows);
      document.querySelectorAll("#rows th").forEach(th => th.addEventListener("click", () => {
        const k = th.getAttribute("data-key");
        S.desc = S.sortKey === k ? !S.desc : false;
        S.sortKey = k;
        document.querySelectorAll("#rows th").forEach(x => x.classList.remove("sorted", "desc"));
        th.classList.add("sorted");
        if (S.desc) th.classList.add("desc");
        fillRows();
      }));
      $("zoom-in").addEventListener("click", () => zoom(0.5));
      $("zoom-out").addEventListener("click", () => zoom(2));
      $("zoom-reset").addEventListener("click", () => { S.v0 = 0; S.v1 = Math.max(1, timeline(S.rec).T.duration); draw(); });
      $("prev-div").addEventListener("click", () => jump(-1));
      $("next-div").addEventListener("click", () => jump(1));
      const tl = $("tl");
      const svgX = e => { const r = tl.getBoundingClientRect(); return (e.clientX - r.left) / r.width * W; };
      let drag = null;
      tl.addEventListener("mousedown", e => { drag = { x: svgX(e), v0: S.v0, v1: S.v1, moved: false }; });
      window.addEventListener("mousemove", e => {
        if (!drag) return;
        const dx = svgX(e) - drag.x, dt = dx / (W - LEFT - RIGHT) * (drag.v1 - drag.v0);
        if (Math.abs(dx) > 3) drag.moved = true;
        if (!drag.moved) return;
        const dur = Math.max(1, timeline(S.rec).T.duration), w = drag.v1 - drag.v0;
        S.v0 = Math.max(0, Math.min(dur - w, drag.v0 - dt)); S.v1 = S.v0 + w;
        draw();
      });
      window.addEventListener("mouseup", e => { if (drag && !drag.moved && svgX(e) >= LEFT) setCursor(T_OF(svgX(e))); drag = null; });
      tl.addEventListener("wheel", e => { e.preventDefault(); zoom(e.deltaY > 0 ? 1.25 : 0.8, T_OF(svgX(e))); }, { passive: false });
      tl.addEventListener("keydown", key);
      window.addEventListener("hashchange", () => applyHash(false));
      $("export").addEventListener("click", exportDecisions);
    }
    function key(e) {
      const k = e.key;
      if (k === "ArrowRight") step(1); else if (k === "ArrowLeft") step(-1);
      else if (k === "n" || k === "PageDown") jump(1); else if (k === "p" || k === "PageUp") jump(-1);
      else if (k === "+" || k === "=") zoom(0.5); else if (k === "-") zoom(2);
      else if (k === "0") { S.v0 = 0; S.v1 = Math.max(1, timeline(S.rec).T.duration); draw(); }
      else return;
      e.preventDefault();
    }

    // ---- decisions ------------------------------------------------------------------
    function fillDecisions() {
      // A tune page compares a trial with the shipped spec: nothing to accept (tune promote does that).
      // A diff page compares two files: nothing pending to decide either.
      if (D.kind === "tune" || D.kind === "diff") { $("decisions").hidden = true; return; }
      const body = document.querySelector("#decision-table tbody");
      D.timelines.forEach((T, k) => {
        const tr = el("tr", { "data-rec": T.name });
        tr.appendChild(el("td", {}, T.name));
        for (const v of ["accept", "reject", "undecided"]) {
          const id = "dec-" + k + "-" + v, td = el("td");
          const input = el("input", { type: "radio", name: "dec-" + k, id: id, value: v });
          if (v === "undecided") input.checked = true;
          input.addEventListener("change", () => { S.decisions.set(T.key, v); });
          td.appendChild(input);
          td.appendChild(el("label", { for: id }, " " + v));
          tr.appendChild(td);
        }
        const pend = Object.keys(T.pending);
        tr.appendChild(el("td", { class: "muted" }, pend.length ? "pending: " + pend.join(", ") : "no pending file when the report was written"));
        body.appendChild(tr);
      });
    }
    function exportDecisions() {
      const list = [];
      D.timelines.forEach(T => {
        const v = S.decisions.get(T.key);
        if (v === "accept" || v === "reject") list.push({ recording: T.key, decision: v, pending: T.pending });
      });
      const text = JSON.stringify({ format: "jpreplay-decisions", version: 1, decisions: list }, null, 1) + "\n";
      $("decisions-json").textContent = text;
      const a = $("decisions-download");
      a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      a.hidden = false;
    }

    // ---- deep links and test hooks ----------------------------------------------------
    function applyHash(first) {
      const p = new URLSearchParams(location.hash.slice(1));
      const k = D.timelines.findIndex(T => T.key === p.get("rec"));
      if (k >= 0) selectRecording(k, false);
      const n = D.timelines.length ? timeline(S.rec) : null;
      if (n && p.get("cue")) { const c = n.metrics.findIndex(m => m.cue === p.get("cue")); if (c >= 0) { S.cue = c; $("cue-select").value = String(c); } }
      if (n && p.has("t") && isFinite(Number(p.get("t")))) { centre(Number(p.get("t"))); setCursor(Number(p.get("t"))); }
      if (!first) return;
      // Opened without a place: at the first divergence, its row selected.
      if (!p.has("rec") && !p.has("t") && !p.has("click")) {
        openFirst();
        if (n && p.get("cue")) { const c = timeline(S.rec).metrics.findIndex(m => m.cue === p.get("cue")); if (c >= 0) { S.cue = c; $("cue-select").value = String(c); draw(); } }
      }
      if (p.has("click")) {
        const tr = document.querySelectorAll("#rows tbody tr")[Number(p.get("click"))];
        if (tr) tr.click(); else fail("click hook: no row " + p.get("click"));
      }
      if (p.has("keys")) for (const k of p.get("keys").split(",")) $("tl").dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
      const dec = p.get("decide");
      if (dec === "accept" || dec === "reject") D.timelines.forEach((T, i) => { const r = $("dec-" + i + "-" + dec); r.checked = true; r.dispatchEvent(new Event("change")); });
      if (p.get("export") === "1") $("export").click();
    }
    try {
      fillHeader();
      wire();
      fillRows();
      fillDecisions();
      fillLegend();
      if (D.timelines.length) { selectRecording(0, true); draw(); } else $("timeline-section").hidden = true;
      applyHash(true);
      $("rows").setAttribute("data-col-widths", Array.from(document.querySelectorAll("#rows th")).map(th => Math.round(th.getBoundingClientRect().width)).join(","));
      const ms = performance.now();
      document.body.setAttribute("data-render-ms", ms.toFixed(1));
      $("status").textContent = "rendered in " + ms.toFixed(0) + " ms (from navigation start)";
      if (document.body.getAttribute("data-status") !== "error") document.body.setAttribute("data-status", "ok");
    } catch (e) {
      fail("error: " + (e && e.stack || e));
    }
    })();
    """#
}
