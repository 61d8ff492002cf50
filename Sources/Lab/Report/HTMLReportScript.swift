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
/// the selected row, `#rows[data-col-widths]` the header cells' widths in px,
/// `body[data-series-loaded]` how many recordings' series a lazy page has parsed. Deep link
/// `#rec=NAME&t=MS&cue=CUE`; test hooks `&click=N` (clicks row N of the table after the first
/// render), `&keys=K1,K2` (keydown events with those `key`s sent to the timeline),
/// `&decide=accept|reject` (sets every recording's decision) and `&export=1` (clicks the
/// export button).
enum HTMLReportScript {
  /// The whole script: ``head`` (decoding, colours, the table), ``timeline`` (drawing, cursor,
  /// zoom) and ``tail`` (wiring, decisions, deep links), one text.
  static let source = head + "\n" + timeline + "\n" + tail

  static let head = #"""
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
    // A lazy page (over HTMLReportLimits.lazySeriesCharacters) keeps each recording's series in
    // a data block of its own, named by `seriesBlock`: parsed when the recording is first opened.
    let seriesLoaded = 0;
    function loadSeries(T) {
      const block = $(T.seriesBlock);
      if (!block) throw new Error("no data block " + T.seriesBlock + " for " + T.name);
      const b = JSON.parse(block.textContent);
      T.series = b.series;
      T.goldenSeries = b.goldenSeries;
      delete T.seriesBlock;
      document.body.setAttribute("data-series-loaded", String(++seriesLoaded));
    }
    function timeline(i) {
      if (cache[i]) return cache[i];
      if (D.timelines[i].seriesBlock) loadSeries(D.timelines[i]);
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
      // Another engine's frames are its marks' times (arrow keys step from line to line).
      n.frames = T.lanes ? Array.from(new Set((T.golden.marks || []).concat(T.new.marks || []).map(m => m[0]))).sort((a, b) => a - b)
        : n.lt.length ? n.lt : n.t;
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

    """#

  static let tail = #"""
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
