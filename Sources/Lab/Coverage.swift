import JustPhotoEngine
import Foundation
import JustPhotoPlugin
import Recording
import Replay

/// What the corpus exercises (issue: every ENGINE §7 scenario and every cue of the spec, in
/// its scene, noRef and — where it has one — withRef): each recording is replayed with
/// `cue_eval` lines, and a cue counts as exercised in a mode when it reaches warn or hard
/// there, and as shown when the gate displays it.
package struct CoverageReport: Sendable {
  package struct CueRow: Sendable {
    package var id: String
    package var scene: String
    package var hasNoRef: Bool
    package var hasWithRef: Bool
    /// Recordings where the cue reached warn/hard in each mode, in name order.
    package var noRef: [String] = []
    package var withRef: [String] = []
    /// Recordings where the gate displayed it.
    package var shown: [String] = []
  }
  package var cues: [CueRow]
  /// ENGINE §7 scenario id (S01…S44) → recordings named after it.
  package var scenarios: [(id: String, recordings: [String])]

  package var missing: [String] {
    var out: [String] = []
    for s in scenarios where s.recordings.isEmpty { out.append("§7 \(s.id): no recording") }
    for c in cues {
      if c.hasNoRef && c.noRef.isEmpty { out.append("\(c.id) (\(c.scene)) noRef: never warn/hard") }
      if c.hasWithRef && c.withRef.isEmpty { out.append("\(c.id) (\(c.scene)) withRef: never warn/hard") }
    }
    return out
  }

  /// The table of docs/CORPUS.md.
  package var markdown: String {
    func list(_ names: [String]) -> String {
      guard !names.isEmpty else { return "—" }
      let head = names.prefix(3).map { "`\($0)`" }.joined(separator: ", ")
      return names.count > 3 ? "\(head) +\(names.count - 3)" : head
    }
    var lines = ["| §7 | recordings |", "|---|---|"]
    for s in scenarios { lines.append("| \(s.id) | \(list(s.recordings)) |") }
    lines += ["", "| cue | scene | noRef warn/hard in | withRef warn/hard in | shown in |", "|---|---|---|---|---|"]
    for c in cues {
      let n = c.hasNoRef ? list(c.noRef) : "(no noRef rule)"
      let w = c.hasWithRef ? list(c.withRef) : "(no withRef rule)"
      lines.append("| \(c.id) | \(c.scene) | \(n) | \(w) | \(list(c.shown)) |")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

package enum Coverage {
  /// Replays every recording of `recordings` (URLs, name order) with `spec`.
  package static func run(recordings: [URL], specPath: String?) throws(HarnessFailure) -> CoverageReport {
    let spec = try Harness.loadSpec(path: specPath ?? Harness.defaultSpecPath)
    let driver = try Harness.driver(specPath: specPath, traceMetrics: true)
    var rows = spec.cues.map {
      CoverageReport.CueRow(
        id: $0.id, scene: $0.scene, hasNoRef: $0.trigger.noRef != nil, hasWithRef: $0.trigger.withRef != nil)
    }
    var index: [String: Int] = [:]
    for (i, r) in rows.enumerated() where index[r.id] == nil { index[r.id] = i }
    var scenarios: [(id: String, recordings: [String])] = (1...44).map {
      (id: String(format: "S%02d", $0), recordings: [])
    }
    for url in recordings {
      let name = url.fileStem
      if name.hasPrefix("s"), let n = Int(name.dropFirst().prefix(2)), (1...44).contains(n) {
        scenarios[n - 1].recordings.append(name)
      }
      var output = CollectingOutput { $0.output.kind == .cue_eval || $0.output.kind == .cue_display }
      do { _ = try driver.replay(url, into: &output) } catch {
        let text = "\(error)"
        throw .badInput(text.hasPrefix(url.path) ? text : "\(url.path): \(text)")
      }
      var noRef: Set<Int> = []
      var withRef: Set<Int> = []
      var shown: Set<Int> = []
      var mode = GuidanceMode.noRef
      for o in output.outputs {
        switch o.output {
        case .cueDisplay(let d):
          if let id = d.cueId, let i = index[id] { shown.insert(i) }
        case .cueEval(let e):
          // A T1 tick has no mode: it keeps the last T0 evaluation's.
          if case .t0(let t0) = e { mode = t0.mode }
          for entry in e.entries where entry.level == .warn || entry.level == .hard {
            guard let i = index[entry.id] else { continue }
            if mode == .withRef { withRef.insert(i) } else { noRef.insert(i) }
          }
        default: continue
        }
      }
      for i in noRef { rows[i].noRef.append(name) }
      for i in withRef { rows[i].withRef.append(name) }
      for i in shown { rows[i].shown.append(name) }
    }
    for i in rows.indices {
      rows[i].noRef.sort()
      rows[i].withRef.sort()
      rows[i].shown.sort()
    }
    return CoverageReport(cues: rows, scenarios: scenarios)
  }
}
