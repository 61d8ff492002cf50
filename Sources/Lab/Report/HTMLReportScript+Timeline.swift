/// The timeline part of ``HTMLReportScript/source``: lanes, both sides' metric and gate, the
/// cursor and its readout, zoom and stepping (split from the rest for size only: one script).
extension HTMLReportScript {
  static let timeline = #"""
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
      // Another engine's timeline has no cue in focus and no landmarks: those controls hide.
      $("pose").style.display = n.T.lanes ? "none" : "";
      cs.parentElement.style.display = n.T.lanes ? "none" : "";
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
    // Another engine's lanes (its vocabulary's page lanes): per lane, the golden's marks above
    // and the new run's below; a mark per trace line, its line on hover.
    const LANE_H = 34;
    function engineHeight(T) { return Math.max(300, 16 + T.lanes.length * (LANE_H + 2) + 24); }
    function drawEngineLanes(svg, T) {
      T.lanes.forEach((name, i) => {
        const y = 16 + i * (LANE_H + 2), g = lane(svg, y, LANE_H, "engine-" + name, name);
        g.setAttribute("class", "lane engine-lane");
        const mine = side => (T[side].marks || []).filter(m => m[1] === i).map(m => [m[0], m[2]]);
        drawMarks(g, mine("golden"), y + 2, "dia", "#8d6e63");
        drawMarks(g, mine("new"), y + 18, "dia", "#1565c0");
      });
      const y = 16 + T.lanes.length * (LANE_H + 2);
      sv(svg, "text", { x: 4, y: y + 10, "font-size": 8, fill: "#999" }, "per lane: upper " + GOLD + " ◆, lower " + NEW + " ◆");
    }
    // The latest mark of lane `i` at or before `t` on one side ("—" when none).
    function markAt(marks, i, t) {
      let cur = null;
      for (const m of marks || []) { if (m[0] > t) break; if (m[1] === i) cur = m; }
      return cur ? cur[2] + " (" + cur[0] + " ms)" : "—";
    }
    function draw() {
      const n = timeline(S.rec), T = n.T, box = $("tl"), H = T.lanes ? engineHeight(T) : 300;
      box.textContent = "";
      const svg = sv(null, "svg", { viewBox: `0 0 ${W} ${H}`, "data-v0": S.v0, "data-v1": S.v1 });
      // Series drawn a point past the view on each side are clipped to the plot area.
      sv(sv(sv(svg, "defs"), "clipPath", { id: "plot-clip" }), "rect", { x: LEFT, y: 0, width: W - LEFT - RIGHT, height: H });
      // Time axis.
      const ax = sv(svg, "g", { class: "axis" });
      const span = S.v1 - S.v0, step = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000].find(s => span / s <= 10) || 600000;
      for (let t = Math.ceil(S.v0 / step) * step; t <= S.v1; t += step) {
        sv(ax, "line", { x1: X(t), x2: X(t), y1: 14, y2: H - 10, stroke: "#f2f2f2" });
        sv(ax, "text", { x: X(t), y: 11, "font-size": 9, "text-anchor": "middle", fill: "#777" }, t >= 1000 ? (t / 1000) + " s" : t + " ms");
      }
      if (T.lanes) drawEngineLanes(svg, T); else drawJustPhoto(svg, n, T);
      const dv = sv(svg, "g", { class: "divergences" });
      for (const k of n.rows) {
        const r = D.rows[k];
        if (r.t < S.v0 || r.t > S.v1) continue;
        const l = sv(dv, "line", { class: "div-mark", x1: X(r.t), x2: X(r.t), y1: 14, y2: H - 10, "data-row": k });
        sv(l, "title", {}, r.kind + " " + r.cue + " at " + r.t + " ms");
      }
      if (S.t >= S.v0 && S.t <= S.v1) sv(svg, "line", { class: "cursor", x1: X(S.t), x2: X(S.t), y1: 14, y2: H - 8 });
      box.appendChild(svg);
      box.setAttribute("data-cursor-t", String(S.t));
      box.setAttribute("data-v0", String(S.v0));
      box.setAttribute("data-v1", String(S.v1));
      box.setAttribute("data-rec", T.name);
      drawPose(n);
      readout(n);
    }
    function drawJustPhoto(svg, n, T) {
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
      if (T.lanes) {
        const lines = ["t " + S.t + " ms  (" + T.engine + ")"];
        T.lanes.forEach((name, k) => lines.push(name, "  " + GOLD.padEnd(7) + markAt(T.golden.marks, k, S.t), "  " + NEW.padEnd(7) + markAt(T.new.marks, k, S.t)));
        $("readout").textContent = lines.join("\n");
        return;
      }
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
    """#
}
