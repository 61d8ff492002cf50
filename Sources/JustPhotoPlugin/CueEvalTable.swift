import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import Replay

/// The "why" of a divergence: the engine's `cue_eval` records around it, as one compact
/// table per cue involved — metric value, level, hysteresis state, the gate's input and
/// counters — under a line with the thresholds the cue was judged against.
public enum CueEvalTable {
  /// Rows shown per cue before the table is cut (the window is ±500 ms: ~15 rows at 15 Hz).
  public static let rowsPerCueMax = 40

  public static func render(_ records: [TraceRecord], cues: [String]) -> [String] {
    var lines: [String] = []
    let t0 = records.compactMap { r in TraceLine(out: r.out, fields: r.fields).cueEvalT0.map { (r.t, $0) } }
    for cue in cues {
      let rows = t0.compactMap { r -> ((t: Millis, line: TraceLine.CueEvalT0), JSONObject)? in
        guard let o = r.1.entry(cue) else { return nil }
        return (r, o)
      }
      guard let first = rows.first else {
        lines.append("\(cue): not evaluated in this window")
        continue
      }
      // The gate's parameters as this cue meets them: those of a row where it is the gate's
      // input (a cue may persist for fewer frames than the default), else the first row's.
      let own = rows.first { $0.0.line.gate[.input]?.stringValue == cue } ?? first
      lines.append("\(cue)  \(thresholdText(first.1))\(gateParameterText(own.0.line))")
      lines.append(
        pad("t", 7) + pad("frame", 7) + pad("error", 11) + pad("level", 7) + pad("state", 13) + pad("gate input", 26)
          + pad("stable", 8) + pad("held ms", 9) + pad("reason", 9) + "shown")
      for (r, o) in rows.prefix(rowsPerCueMax) {
        let gate = r.line.gate
        let input = gate[.input]?.stringValue.map { id in
          let lvl = (r.line.entry(id)?[.state]?.stringValue ?? "").replacingOccurrences(of: "active:", with: "")
          return lvl.isEmpty ? id : "\(id)/\(lvl)"
        } ?? "—"
        let shown = gate[.cue_id]?.stringValue.map { "\($0)/\(gate[.level]?.stringValue ?? "")" } ?? "—"
        var stable = num(gate[.stable_frames]) + "/" + num(gate[.persist_frames])
        if stable == "/" { stable = "" }
        var cooldown = ""
        if let until = gate[.cooldown_until]?.int64Value { cooldown = " (cooldown until \(until))" }
        lines.append(
          pad(String(r.t), 7) + pad(num(r.line.frame), 7) + pad(o[.error].map(value) ?? "", 11)
            + pad(o[.level]?.stringValue ?? "", 7) + pad(o[.state]?.stringValue ?? "", 13) + pad(input, 26) + pad(stable, 8)
            + pad(num(gate[.held_ms]), 9) + pad(gate[.reason]?.stringValue ?? "", 9) + shown + cooldown)
      }
      if rows.count > rowsPerCueMax { lines.append("… \(rows.count - rowsPerCueMax) more rows") }
    }
    return lines
  }

  static func thresholdText(_ o: JSONObject) -> String {
    guard let th = o[.thresholds]?.objectValue else { return "thresholds: (not recorded)" }
    let parts = [TraceField.warn, .hard, .enter, .exit].compactMap { k in th[k]?.stringValue.map { "\(k.rawValue) \($0)" } }
    return "thresholds: " + parts.joined(separator: " · ")
  }

  static func gateParameterText(_ r: TraceLine.CueEvalT0) -> String {
    guard r.hasGate, let hold = r.gate[.min_hold_ms] else { return "" }
    return " · gate: persist \(num(r.gate[.persist_frames])) frames, min hold \(num(hold)) ms"
  }

  static func num(_ v: JSONValue?) -> String {
    guard let v else { return "" }
    if let i = v.int64Value { return String(i) }
    return value(v)
  }

  static func value(_ v: JSONValue) -> String {
    switch v {
    case .number(let d): String(format: "%.4f", d)
    case .null: "null"
    default: JSONWriter.write(v)
    }
  }

  static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
  }
}
