import CanonicalJSON
import EngineIO
import EngineSeam
import Foundation
import JustPhotoPlugin
import Recording
import Replay

/// What a corpus of another engine's recordings exercises, read through the engine's
/// vocabulary (no engine type): each input event kind and each trace line kind, and each value
/// of the vocabulary's coverage facets (a swipe's direction in the recordings, an `ignored`
/// line's reason in the replays). `jpreplay coverage` prints it for every engine but Just
/// Photo, whose report is the cue and §7 table of ``Coverage``.
package struct SeamCoverageReport: Sendable {
  /// One thing looked for and the recordings (names, in name order) that show it.
  package struct Row: Sendable, Equatable {
    /// What is looked for: `input swipe`, `out=ignored`, `swipe.direction = left`.
    package var name: String
    /// The recordings that show it.
    package var recordings: [String]
  }

  /// The engine's name.
  package var engine: String
  /// The recordings read, in name order.
  package var recordings: [String]
  /// One row per input event kind of the vocabulary (labels left out).
  package var inputKinds: [Row]
  /// One row per declared trace line kind.
  package var outputKinds: [Row]
  /// One row per declared facet value.
  package var facetValues: [Row]
  /// Values seen for a facet's field that the vocabulary does not declare (`facet = value`
  /// with the recordings): the declaration is out of date.
  package var undeclared: [Row]

  /// Every row no recording shows, then every undeclared value, as report lines.
  package var missing: [String] {
    var out: [String] = []
    for r in inputKinds + outputKinds + facetValues where r.recordings.isEmpty { out.append("\(r.name): no recording") }
    for r in undeclared { out.append("\(r.name): seen in \(r.recordings.joined(separator: ", ")) but not declared by the engine") }
    return out
  }

  /// `coverage (pixscan): 19 recordings; input kinds 12/12; trace line kinds 16/16; values 61/63`.
  package var summary: String {
    func frac(_ rows: [Row]) -> String { "\(rows.filter { !$0.recordings.isEmpty }.count)/\(rows.count)" }
    return "coverage (\(engine)): \(recordings.count) recordings; input kinds \(frac(inputKinds)); "
      + "trace line kinds \(frac(outputKinds)); field values \(frac(facetValues))"
  }

  /// The tables a corpus document carries.
  package var markdown: String {
    func list(_ names: [String]) -> String {
      guard !names.isEmpty else { return "—" }
      let head = names.prefix(3).map { "`\($0)`" }.joined(separator: ", ")
      return names.count > 3 ? "\(head) +\(names.count - 3)" : head
    }
    var lines: [String] = []
    for (title, rows) in [("input kind", inputKinds), ("trace line", outputKinds), ("field value", facetValues)] {
      if !lines.isEmpty { lines.append("") }
      lines += ["| \(title) | recordings |", "|---|---|"]
      for r in rows { lines.append("| \(r.name) | \(list(r.recordings)) |") }
    }
    if !undeclared.isEmpty {
      lines += ["", "| not declared | recordings |", "|---|---|"]
      for r in undeclared { lines.append("| \(r.name) | \(list(r.recordings)) |") }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}

/// Builds a ``SeamCoverageReport``.
package enum SeamCoverage {
  /// Events of one recording held in memory for its replay (as `minimize`'s bound).
  package static let eventsMax = 2_000_000

  /// Reads each recording's events and replays it with `plugin` (URLs in name order).
  /// A recording that cannot be read or replayed is bad input naming it.
  package static func run(plugin: EnginePlugin, recordings: [URL]) throws(HarnessFailure) -> SeamCoverageReport {
    let inputs = plugin.kinds.filter { $0.role == .input }.map(\.name)
    var seenInputs: [String: Set<String>] = [:]
    var seenOutputs: [String: Set<String>] = [:]
    var seenValues: [String: [String: Set<String>]] = [:]  // facet name → value → recordings
    let facetsByKind = Dictionary(grouping: plugin.coverageFacets) { "\($0.source.rawValue) \($0.kind)" }
    var names: [String] = []
    for url in recordings {
      let name = url.fileStem
      names.append(name)
      // The events are read once: counted here, then replayed from memory into typed trace
      // records (no trace text written and parsed back).
      let header: JSONObject
      var events: [InputEvent] = []
      do {
        let reader = try RecordingFiles.open(url.path, definitions: plugin.definitions)
        header = reader.header
        while let event = try reader.nextEvent() {
          let kind = event.kindName
          seenInputs[kind, default: []].insert(name)
          guard events.count < eventsMax else { break }
          events.append(event)
          guard let facets = facetsByKind["input \(kind)"], let fields = event.jsonFields else { continue }
          for f in facets { if let v = f.value(in: fields) { seenValues[f.name, default: [:]][v, default: []].insert(name) } }
        }
      } catch {
        throw .badInput(error.description)
      }
      if events.count >= eventsMax {
        throw .badInput("\(url.path): more than \(eventsMax) events to replay in memory (SeamCoverage.eventsMax)")
      }
      let records: [TraceRecord]
      do { records = try plugin.records(header, events, .all, PluginSettings(), url.path) } catch { throw .badInput(error.description) }
      for record in records {
        seenOutputs[record.out, default: []].insert(name)
        guard let facets = facetsByKind["output \(record.out)"] else { continue }
        for f in facets { if let v = f.value(in: record.fields) { seenValues[f.name, default: [:]][v, default: []].insert(name) } }
      }
    }
    func row(_ label: String, _ set: Set<String>?) -> SeamCoverageReport.Row {
      SeamCoverageReport.Row(name: label, recordings: (set ?? []).sorted())
    }
    var values: [SeamCoverageReport.Row] = []
    var undeclared: [SeamCoverageReport.Row] = []
    for f in plugin.coverageFacets {
      let seen = seenValues[f.name] ?? [:]
      for v in f.values { values.append(row("\(f.name) = \(v)", seen[v])) }
      for v in seen.keys.sorted() where !f.values.contains(v) { undeclared.append(row("\(f.name) = \(v)", seen[v])) }
    }
    return SeamCoverageReport(
      engine: plugin.name, recordings: names,
      inputKinds: inputs.map { row("input \($0)", seenInputs[$0]) },
      outputKinds: plugin.outputKinds.map { row("out=\($0)", seenOutputs[$0]) },
      facetValues: values, undeclared: undeclared)
  }
}
