/// `tune report --html FILE`: one self-contained page with the Pareto front plot (the first
/// two objectives, and with a validation corpus the front's fit against validation values of
/// the study's objective: ``TuneSVG``, inline) and every trial's parameters and objectives in
/// a table that sorts by any column (front trials first, marked). With ``TuneTimelines`` the
/// page is the report page (``HTMLReportPage``) with this plot and table on top: each front
/// trial's row links to its worst fit recording's timeline (shipped spec against the trial).
package enum TuneHTML {
  package static func render(_ report: TuneReport, timelines: (document: HTMLReportDocument, worst: [TuneTimelines.Worst])? = nil)
    -> String
  {
    let e = HTMLText.escape
    let front = Set(report.front)
    let columns = report.objectives.flatMap {
      report.validation.isEmpty ? [$0] : [$0, TuneRunner.validationPrefix + $0]
    }
    var head = "<tr><th>trial</th><th>front</th><th>status</th><th>reason</th>"
    head += report.parameters.map { "<th>\(e($0))</th>" }.joined()
    head += columns.map { "<th>\(e($0))</th>" }.joined()
    head += report.validation.isEmpty ? "" : "<th>generalises</th>"
    let worst = Dictionary((timelines?.worst ?? []).map { ($0.trial, $0) }, uniquingKeysWith: { a, _ in a })
    if timelines != nil { head += "<th>worst fit recording (\(e(report.objective)): shipped → trial)</th>" }
    head += "</tr>"
    var rows = ""
    if let shipped = report.shipped {
      rows += "<tr class=\"shipped\"><td data-v=\"-1\">shipped</td><td></td><td>-</td><td></td>"
      rows += report.parameters.map { _ in "<td></td>" }.joined()
      rows += columns.map { c in cell(shipped[c]) }.joined()
      rows += report.validation.isEmpty ? "" : "<td>-</td>"
      rows += timelines == nil ? "" : "<td></td>"
      rows += "</tr>\n"
    }
    let ordered = report.trials.filter { front.contains($0.index) } + report.trials.filter { !front.contains($0.index) }
    for t in ordered {
      let onFront = front.contains(t.index)
      rows += "<tr\(onFront ? " class=\"front\"" : "") data-trial=\"\(t.index)\"><td data-v=\"\(t.index)\">#\(t.index)</td>"
      // The reason a trial is infeasible or failed, as `tune report`'s reason column says it.
      rows += "<td>\(onFront ? "●" : "")</td><td>\(e(t.status.rawValue))</td><td class=\"reason\">\(e(t.reason ?? ""))</td>"
      rows += report.parameters.indices.map { i in "<td>\(i < t.values.count ? e(t.values[i].description) : "")</td>" }.joined()
      rows += columns.map { cell(t.objectives[$0]) }.joined()
      if let g = report.generalisation(t) {
        rows += "<td>\(g.generalises ? "yes" : e("no: " + g.reasons.joined(separator: "; ")))</td>"
      }
      if timelines != nil { rows += worstCell(worst[t.index]) }
      rows += "</tr>\n"
    }
    let ok = report.trials.filter { $0.status == .ok }.count
    let summary = "\(report.trials.count) trials: \(ok) feasible; \(report.front.count) on the Pareto front over \(e(report.objectives.joined(separator: ", ")))\(report.validation.isEmpty ? "; no validation corpus" : "; validation corpus: \(e(report.validation.joined(separator: ", ")))")"
    let section = """
      <section id="tune"><h2>Trials</h2>
      <p id="summary">\(summary)</p>
      <div id="plot">\(TuneSVG.render(report))</div>
      <table id="trials"><thead>\(head)</thead><tbody>
      \(rows)</tbody></table>
      </section>
      """
    if let timelines { return HTMLReportPage.render(timelines.document, preamble: section, preambleScript: script(standalone: false)) }
    // The one inline script, allowed by its hash (issue 34.7: no 'unsafe-inline' script).
    let sorter = "\n" + script(standalone: true) + "\n"
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="\(HTMLReportPage.policy(scripts: [sorter], images: false))">
      <title>tune report</title>
      <style>
      body{font:13px/1.4 system-ui,sans-serif;margin:0 16px 40px;color:#222}h1{font-size:18px}
      table{border-collapse:collapse}th,td{border-bottom:1px solid #e4e4e4;padding:3px 6px;text-align:right}
      th{cursor:pointer;background:#f0f0f0}tr.front{background:#e8f0fe}tr.shipped{font-style:italic}td.reason{text-align:left}
      </style>
      </head>
      <body data-status="loading">
      <h1>tune report</h1>
      \(section)
      \(HTMLReportPage.scriptElement(sorter))
      </body>
      </html>

      """
  }

  /// The worst-recording cell of a front trial: a deep link to its timeline at the first
  /// divergence, with the objective on that recording for the shipped spec and the trial.
  static func worstCell(_ w: TuneTimelines.Worst?) -> String {
    guard let w else { return "<td></td>" }
    let e = HTMLText.escape
    let figures = "\(TuneReport.number(w.shipped)) → \(TuneReport.number(w.value))"
    var fragment = "rec=" + percentEncoded(w.timeline)
    if let t = w.firstDivergence { fragment += "&t=\(t)" }
    let note = w.firstDivergence == nil ? " (same trace)" : ""
    return "<td class=\"worst\"><a href=\"#\(e(fragment))\">\(e(w.recording))</a> \(e(figures))\(note)</td>"
  }

  /// `text` with every byte outside the URL-safe set percent-encoded (as encodeURIComponent).
  static func percentEncoded(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF")
    var out = ""
    for b in text.utf8 {
      let c = Character(Unicode.Scalar(b))
      if b < 0x80, c.isLetter || c.isNumber || "-_.!~*'()".contains(c) {
        out.append(c)
      } else {
        out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)])
      }
    }
    return out
  }

  static func cell(_ v: Double?) -> String {
    guard let v else { return "<td>-</td>" }
    return "<td data-v=\"\(v.isFinite ? TuneReport.number(v) : "0")\">\(TuneReport.number(v))</td>"
  }

  /// Sorts the trial table by a clicked column (numbers by value), the shipped row kept first.
  /// Standalone, it also marks the page rendered (`body[data-status]`); inside the report page
  /// that page's script does.
  static func script(standalone: Bool) -> String {
    sortScript + (standalone ? "document.body.setAttribute(\"data-status\", \"ok\");\n" : "")
  }

  static let sortScript = #"""
    "use strict";
    (function () {
    const table = document.getElementById("trials"), body = table.tBodies[0];
    let last = -1, desc = false;
    table.querySelectorAll("th").forEach((th, c) => th.addEventListener("click", () => {
      desc = last === c ? !desc : false; last = c;
      const rows = Array.from(body.rows).filter(r => !r.classList.contains("shipped"));
      const key = r => { const td = r.cells[c]; const v = td.getAttribute("data-v"); return v != null ? Number(v) : td.textContent; };
      rows.sort((a, b) => { const x = key(a), y = key(b); const s = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y)); return desc ? -s : s; });
      for (const r of rows) body.appendChild(r);
    }));
    })();
    """#
}
