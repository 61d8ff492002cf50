import CanonicalJSON
import Foundation

/// The self-contained HTML page of a report: inline CSS, the document as a JSON data block,
/// inline script (``HTMLReportScript``). No network: the Content-Security-Policy allows no
/// source but the page's own inline style, its own scripts — each named by the SHA-256 of its
/// text, computed as the page is written, so an inline script or event handler that reached
/// the page any other way never runs (issue 34.7) — and `data:` images; the decisions
/// download is a `blob:` link the page makes itself.
package enum HTMLReportPage {
  /// `preamble`: markup placed between the header and the divergence table, already escaped
  /// (`tune report --html` puts its front plot and trial table there); `preambleScript`, the
  /// text of a script run right after it (allowed by its hash like the page's own).
  package static func render(_ doc: HTMLReportDocument, preamble: String = "", preambleScript: String? = nil) -> String {
    var page = ""
    write(doc, preamble: preamble, preambleScript: preambleScript) { page += $0 }
    return page
  }

  /// The page of ``render(_:preamble:preambleScript:)`` handed to `emit` part by part, in
  /// order: the head and table markup, the data block, on a lazy page each recording's series
  /// block (``HTMLReportLimits/lazySeriesCharacters``), and the script; a block's text goes in
  /// parts of about ``HTMLText/scriptDataPartBytes`` (``HTMLText/scriptData(_:emit:)``), so
  /// no more than one part of it is held at a time. A small page is one data block, as it
  /// always was.
  package static func write<E: Error>(
    _ doc: HTMLReportDocument, preamble: String = "", preambleScript: String? = nil, emit: (String) throws(E) -> Void
  ) throws(E) {
    let lazy = HTMLReportEncoder.seriesCharacters(doc) > HTMLReportLimits.lazySeriesCharacters
    let main = "\n" + HTMLReportScript.source + "\n"
    let extra = preambleScript.map { "\n" + $0 + "\n" }
    try emit(head(title: doc.title, scripts: [main] + (extra.map { [$0] } ?? [])) + body(preamble: preamble, extra: extra))
    try HTMLText.scriptData(HTMLReportEncoder.json(doc, lazy: lazy), emit: emit)
    try emit("</script>\n")
    if lazy {
      for (k, t) in doc.timelines.enumerated() {
        try emit("<script type=\"application/json\" id=\"\(HTMLReportEncoder.seriesBlockID(k))\">")
        try HTMLText.scriptData(HTMLReportEncoder.seriesBlock(t), emit: emit)
        try emit("</script>\n")
      }
    }
    try emit(scriptElement(main) + "\n</body>\n</html>\n")
  }

  /// The body's markup up to the data block's opening tag.
  static func body(preamble: String, extra: String?) -> String {
    """
      <body data-status="loading">
      <header><h1 id="title"></h1><p id="counts"></p><p id="status" class="muted">rendering…</p></header>
      <div id="errors" hidden></div>
      \(preamble)\(extra.map(scriptElement) ?? "")
      <section id="summary"><h2>Divergences</h2>
      <div class="tools"><input id="filter" type="search" placeholder="filter rows (any column)" aria-label="filter rows">
      <select id="kind-filter" aria-label="kind"><option value="">every kind</option></select>
      <span id="row-count" class="muted"></span></div>
      <div class="summary-wrap"><table id="rows"><thead><tr><th data-key="rec">recording</th><th data-key="file">file</th><th data-key="t">t ms</th>
      <th data-key="cue">cue</th><th data-key="kind">kind</th><th data-key="detail">change</th><th data-key="explanation">explanation</th></tr></thead>
      <tbody></tbody></table></div><p id="rows-more" class="muted"></p>
      <pre id="cause" class="cause" hidden></pre></section>
      <section id="timeline-section"><h2>Timeline <span id="tl-name"></span></h2>
      <p id="golden-note" class="muted"></p>
      <div class="tools"><label>recording <select id="rec-select"></select></label>
      <label>cue in focus <select id="cue-select"></select></label>
      <button id="zoom-in" title="zoom in (+)">+</button><button id="zoom-out" title="zoom out (-)">−</button>
      <button id="zoom-reset" title="whole recording (0)">all</button>
      <button id="prev-div" title="previous divergence (p)">◀ div</button><button id="next-div" title="next divergence (n)">div ▶</button>
      <span class="muted">keys: ←/→ frame, p/n divergence, +/− zoom, drag to pan, wheel to zoom</span></div>
      <div class="tl-wrap"><div id="tl" tabindex="0" aria-label="timeline"></div>
      <div class="side"><svg id="pose" viewBox="0 0 150 250" width="150" height="250" role="img" aria-label="landmarks at the cursor"></svg>
      <div id="readout"></div></div></div>
      <div id="legend" class="legend"><svg width="0" height="0" aria-hidden="true"><defs id="legend-defs"></defs></svg></div></section>
      <section id="decisions"><h2>Decisions</h2>
      <p class="muted">Accept or reject each recording's pending goldens, then export the decisions and apply them with
      <code>jpreplay accept --decisions FILE</code> (the same checks as <code>accept</code>; a pending file changed since
      this report is refused).</p>
      <table id="decision-table"><tbody></tbody></table>
      <button id="export">export decisions</button> <a id="decisions-download" hidden download="decisions.json">decisions.json</a>
      <pre id="decisions-json"></pre></section>
      <script type="application/json" id="jp-data">
      """
  }

  /// `<script>TEXT</script>`: the element whose text `text` is, byte for byte (its hash is
  /// in the policy).
  static func scriptElement(_ text: String) -> String { "<script>" + text + "</script>" }

  /// The Content-Security-Policy of a page whose inline scripts are `scripts` (their exact
  /// texts): each allowed by its SHA-256, no `'unsafe-inline'` script, no other source.
  package static func policy(scripts: [String], images: Bool = true) -> String {
    let hashes = scripts.map { "'sha256-" + Data(SHA256.digest(Array($0.utf8))).base64EncodedString() + "'" }
    return "default-src 'none'; style-src 'unsafe-inline'; script-src \(hashes.joined(separator: " "))"
      + (images ? "; img-src data:" : "")
  }

  /// The document head with the page's style and policy; `title` escaped.
  static func head(title: String, scripts: [String]) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta http-equiv="Content-Security-Policy" content="\(policy(scripts: scripts))">
    <title>\(HTMLText.escape(title))</title>
    <style>
    \(css)
    </style>
    </head>

    """
  }

  static let css = """
    body{font:13px/1.4 system-ui,sans-serif;margin:0 16px 40px;color:#222;background:#fafafa}
    h1{font-size:18px;margin:12px 0 4px}h2{font-size:15px;margin:18px 0 6px}
    .muted{color:#777}.tools{display:flex;gap:8px;align-items:center;flex-wrap:wrap;margin:4px 0}
    table{border-collapse:collapse;width:100%;background:#fff}
    th,td{border-bottom:1px solid #e4e4e4;padding:3px 6px;text-align:left;vertical-align:top;white-space:pre-wrap;overflow-wrap:break-word}
    th{cursor:pointer;background:#f0f0f0;position:sticky;top:0}th.sorted::after{content:" ▾"}th.sorted.desc::after{content:" ▴"}
    #rows tbody tr{cursor:pointer}#rows tbody tr:hover{background:#eef4ff}#rows tbody tr.sel{background:#dbe8ff}
    .k-added{color:#0a7a2f}.k-removed{color:#b00020}.k-shifted{color:#8a5a00}.k-new-flicker{color:#c2185b;font-weight:600}
    .k-level-changed{color:#5e35b1}.k-prompt-changed{color:#00695c}
    #errors{background:#fde8e8;border:1px solid #b00020;padding:6px;color:#b00020;white-space:pre-wrap}
    .cause{background:#fff;border:1px solid #ddd;padding:6px;overflow:auto;max-height:170px;font:11px/1.3 ui-monospace,monospace;margin:6px 0}
    #rows td:nth-child(-n+5){white-space:nowrap}#rows td:nth-child(6){min-width:110px;max-width:260px}#rows td:nth-child(7){min-width:220px}
    .summary-wrap{max-height:240px;overflow:auto;border:1px solid #e4e4e4}
    .tl-wrap{display:flex;gap:10px;align-items:flex-start}#tl{flex:1;min-width:0;background:#fff;border:1px solid #ddd;outline:none}
    #tl:focus{border-color:#16c}#tl svg{display:block;width:100%;user-select:none}
    .side{width:230px}#pose{background:#fff;border:1px solid #ddd}#readout{font:11px/1.4 ui-monospace,monospace;white-space:pre-wrap}
    .lane-label{font-size:10px;fill:#555}.cursor{stroke:#d32f2f;stroke-width:1.5}.div-mark{stroke:#c2185b;stroke-dasharray:2 2}
    #decision-table td{border:none;padding:2px 8px}#decisions-json{font:11px ui-monospace,monospace}
    .cue-label{paint-order:stroke;stroke:#fff;stroke-width:2.5px;stroke-linejoin:round}
    .legend{display:flex;flex-wrap:wrap;gap:4px 12px;margin:6px 0;font-size:11px}.lg{display:inline-flex;align-items:center;gap:3px;white-space:nowrap}
    .lg svg{display:inline-block;vertical-align:middle}
    @media (max-width:1100px){.side{width:180px}#pose{width:120px;height:200px}}
    button{font:inherit}
    """
}
