import CanonicalJSON
import JustPhotoEngine
import Foundation
import JustPhotoPlugin
import Recording
import Replay

/// `jpreplay bisect spec`: which of the leaf edits between two PoseSpecs change behaviour.
///
/// Every recording is replayed in-process with the old and the new spec. For each recording
/// whose trace or A.13 lines differ, delta debugging (``DeltaDebugging``) finds the smallest
/// set of edits that, applied to the old spec, reproduces the new spec's behaviour exactly on
/// that recording. Recordings are then grouped by that edit set.
package struct SpecBisect: Sendable {
  /// One side of the comparison: the spec's bytes and a name for messages.
  package struct Side: Sendable {
    package var name: String
    package var bytes: [UInt8]
    package init(name: String, bytes: [UInt8]) {
      self.name = name
      self.bytes = bytes
    }
  }

  /// What one recording showed.
  package struct Finding: Sendable {
    package var recording: String
    /// Indices into ``Report/edits``; empty when the recording did not change.
    package var culprits: [Int]
    package var changed: Bool
    /// Replays run by ddmin for this recording (0 when unchanged).
    package var tests: Int
  }

  package struct Report: Sendable {
    package var old: String
    package var new: String
    package var edits: [SpecEdit]
    package var findings: [Finding]
    /// Edits in no recording's smallest set (indices into ``edits``).
    package var inert: [Int] = []
    /// Whether NEW without the ``inert`` edits behaves exactly as NEW on every recording
    /// (replayed to check); nil when that spec does not validate, or there is nothing inert.
    package var inertConfirmed: Bool?
    /// Recordings on which removing the ``inert`` edits from NEW does change behaviour (their
    /// effect needs other edits), when ``inertConfirmed`` is false.
    package var inertMatters: [String] = []
    /// Recordings grouped by the edit set that explains them, largest group first.
    package var groups: [(culprits: [Int], recordings: [String])] {
      var order: [[Int]] = []
      var byKey: [[Int]: [String]] = [:]
      for f in findings where f.changed {
        if byKey[f.culprits] == nil { order.append(f.culprits) }
        byKey[f.culprits, default: []].append(f.recording)
      }
      return order.map { ($0, byKey[$0]!) }.sorted {
        $0.recordings.count != $1.recordings.count
          ? $0.recordings.count > $1.recordings.count : $0.culprits.lexicographicallyPrecedes($1.culprits)
      }
    }
  }

  package var old: Side
  package var new: Side
  package var overrides: [(name: String, value: String)]
  package var jobs: Int

  package init(old: Side, new: Side, overrides: [(name: String, value: String)] = [], jobs: Int = 1) {
    self.old = old
    self.new = new
    self.overrides = overrides
    self.jobs = jobs
  }

  /// Runs the bisection over `recordings`; `progress` is called once per finished recording.
  package func run(recordings: [URL], progress: (@Sendable (Int, Int) -> Void)? = nil) throws(HarnessFailure) -> Report {
    let oldJSON = try Self.parse(old)
    let newJSON = try Self.parse(new)
    let oldDoc = try Harness.validateSpec(bytes: old.bytes, path: old.name)
    let newDoc = try Harness.validateSpec(bytes: new.bytes, path: new.name)
    let edits = SpecDiff.edits(from: oldJSON, to: newJSON)
    let overrides = self.overrides
    let oldDriver = try Harness.driver(spec: oldDoc, overrides: overrides)
    let newDriver = try Harness.driver(spec: newDoc, overrides: overrides)
    let total = recordings.count
    let results = ParallelMap.run(
      recordings, jobs: jobs,
      work: { url -> Result<(Finding, [String]), HarnessFailure> in
        do throws(HarnessFailure) {
          let before = try Self.products(oldDriver, url)
          let after = try Self.products(newDriver, url)
          let name = url.fileStem
          guard before != after else { return .success((Finding(recording: name, culprits: [], changed: false, tests: 0), after)) }
          var specs: [[Int]: ReplayDriver<Engine>?] = [:]
          let (subset, tests) = DeltaDebugging.minimize(Array(edits.indices)) { s in
            if s.count == edits.count { return true }
            let driver: ReplayDriver<Engine>?
            if let cached = specs[s] {
              driver = cached
            } else {
              driver = Self.driver(applying: s.map { edits[$0] }, to: oldJSON, overrides: overrides)
              specs[s] = driver
            }
            guard let driver, let p = try? Self.products(driver, url) else { return false }
            return p == after
          }
          return .success((Finding(recording: name, culprits: subset, changed: true, tests: tests), after))
        } catch {
          return .failure(error)
        }
      },
      finished: { done, _, _ in progress?(done, total) })
    var findings: [Finding] = []
    var afters: [[String]] = []
    for r in results {
      switch r {
      case .success(let (f, after)):
        findings.append(f)
        afters.append(after)
      case .failure(let e): throw e
      }
    }
    var report = Report(old: old.name, new: new.name, edits: edits, findings: findings)
    // The edits no recording needed: NEW without them is replayed once per recording, so the
    // report can say they changed nothing (or that they matter only with other edits).
    let used = Set(findings.flatMap(\.culprits))
    report.inert = edits.indices.filter { !used.contains($0) }
    if !report.inert.isEmpty, !recordings.isEmpty {
      let inert = Set(report.inert)
      if let without = Self.driver(applying: edits.indices.filter { !inert.contains($0) }.map { edits[$0] }, to: oldJSON, overrides: overrides) {
        let differs = ParallelMap.run(
          Array(zip(recordings, afters)), jobs: jobs,
          work: { pair -> Bool in (try? Self.products(without, pair.0)) != pair.1 }, finished: { _, _, _ in })
        report.inertMatters = zip(findings, differs).filter(\.1).map(\.0.recording)
        report.inertConfirmed = report.inertMatters.isEmpty
      }
    }
    return report
  }

  static func parse(_ side: Side) throws(HarnessFailure) -> JSONValue {
    do { return try JSONParser.parse(bytes: side.bytes) } catch {
      throw .badInput("\(side.name): \(error.description)")
    }
  }

  /// A driver for the old spec with `edits` applied; nil when that spec does not validate.
  static func driver(applying edits: [SpecEdit], to base: JSONValue, overrides: [(name: String, value: String)])
    -> ReplayDriver<Engine>?
  {
    guard let json = try? SpecDiff.apply(edits, to: base) else { return nil }
    let bytes = Array(JSONWriter.write(json, sortKeys: false, numbers: .shortest).utf8)
    guard let doc = try? Harness.validateSpec(bytes: bytes, path: "bisect candidate") else { return nil }
    return try? Harness.driver(spec: doc, overrides: overrides)
  }

  static func products(_ driver: ReplayDriver<Engine>, _ url: URL) throws(HarnessFailure) -> [String] {
    do {
      let p = try driver.canonicalProducts(url)
      return [p.trace, p.a13 ?? ""]
    } catch {
      throw HarnessFailure(code: 2, message: error.description)
    }
  }
}

extension SpecBisect.Report {
  /// Unchanged recordings named in the text report; the rest are counted (``json()`` lists
  /// every recording).
  package static let unchangedShownMax = 30
  /// Edits that changed nothing written out in full; more are named by number ranges.
  package static let inertListedMax = 12

  /// "[1]–[3], [5], [9]–[298]" for 0-based indices.
  package static func ranges(_ indices: [Int]) -> String {
    var parts: [String] = []
    var i = 0
    while i < indices.count {
      var j = i
      while j + 1 < indices.count, indices[j + 1] == indices[j] + 1 { j += 1 }
      parts.append(j == i ? "[\(indices[i] + 1)]" : "[\(indices[i] + 1)]–[\(indices[j] + 1)]")
      i = j + 1
    }
    return parts.joined(separator: ", ")
  }

  /// The human-readable report: every changed recording under the edits that explain it,
  /// the unchanged ones (up to ``unchangedShownMax``, then how many more and where to see
  /// them), and the edits that changed nothing.
  package func render(unchangedShown: Int = unchangedShownMax) -> String {
    var s = "bisect spec: \(edits.count) leaf edit(s) from \(old) to \(new)\n"
    for (i, e) in edits.enumerated() { s += "  [\(i + 1)] \(e)\n" }
    let changed = findings.filter(\.changed)
    s += "\(findings.count) recording(s) replayed with both specs: \(changed.count) changed, \(findings.count - changed.count) unchanged\n"
    for g in groups {
      let names = g.culprits.map { "[\($0 + 1)]" }.joined(separator: " + ")
      let label = g.culprits.isEmpty ? "no single edit set (the change needs the whole new spec)" : names
      s += "\n\(label) explains \(g.recordings.count) recording(s):\n"
      for i in g.culprits { s += "    \(edits[i])\n" }
      s += "  " + g.recordings.joined(separator: ", ") + "\n"
    }
    let unchanged = findings.filter { !$0.changed }.map(\.recording)
    if !unchanged.isEmpty {
      s += "\nunchanged (\(unchanged.count)):\n  " + unchanged.prefix(unchangedShown).joined(separator: ", ") + "\n"
      if unchanged.count > unchangedShown {
        s += "  … and \(unchanged.count - unchangedShown) more unchanged recording(s) not listed here; --json lists every recording\n"
      }
    }
    if !inert.isEmpty {
      switch inertConfirmed {
      case true?:
        s += "\nedits that changed nothing (NEW without them behaves the same on all \(findings.count) recording(s)):\n"
      case false?:
        s += "\nedits in no recording's smallest set; without them NEW still differs on \(inertMatters.count) recording(s) (\(inertMatters.joined(separator: ", "))), so they matter only together with other edits:\n"
      case nil:
        s += "\nedits in no recording's smallest set (NEW without them is not a valid spec, so not checked further):\n"
      }
      // Each edit is listed in full above: a long list is named by its numbers.
      if inert.count <= Self.inertListedMax {
        for i in inert { s += "  [\(i + 1)] \(edits[i])\n" }
      } else {
        s += "  \(inert.count) of the \(edits.count) edits: \(Self.ranges(inert))\n"
      }
    }
    return s
  }

  /// The report as canonical JSON (`--json`).
  package func json() -> String {
    let editsJSON: [JSONValue] = edits.map { e in
      .object([
        "path": .string(e.pathText), "old": e.old ?? .null, "new": e.new ?? .null,
        "old_absent": .bool(e.old == nil), "new_absent": .bool(e.new == nil),
      ])
    }
    let groupsJSON: [JSONValue] = groups.map { g in
      .object([
        "edits": .array(g.culprits.map { .number(Double($0 + 1)) }),
        "recordings": .array(g.recordings.map { .string($0) }),
      ])
    }
    let findingsJSON: [JSONValue] = findings.map { f in
      .object([
        "recording": .string(f.recording), "changed": .bool(f.changed),
        "edits": .array(f.culprits.map { .number(Double($0 + 1)) }), "replays": .number(Double(f.tests)),
      ])
    }
    let root: JSONValue = .object([
      "old": .string(old), "new": .string(new), "edits": .array(editsJSON), "groups": .array(groupsJSON),
      "recordings": .array(findingsJSON),
      "inert_edits": .array(inert.map { .number(Double($0 + 1)) }),
      "inert_confirmed": inertConfirmed.map(JSONValue.bool) ?? .null,
    ])
    return JSONWriter.write(root, sortKeys: true, numbers: .shortest) + "\n"
  }
}
