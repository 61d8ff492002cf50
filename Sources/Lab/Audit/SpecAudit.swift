import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec
import Recording

/// `jpreplay spec audit`: the grid replayed, the hazards found, the accepted ones set apart.
package struct SpecAuditReport: Sendable {
  package var spec: String
  package var points: Int
  package var failures: [String]
  package var findings: [AuditFinding]
  /// Cues whose error the grid never moved (not judged; e.g. pixel metrics without luma input).
  package var uncovered: [String]
  /// Keys of `findings` that an accepted-hazards line covers.
  package var accepted: Set<String> = []
  /// Evidence lines that are not hazards (ENGINE §8 G-54 either way).
  package var notes: [String] = []

  /// Findings no accepted-hazards line covers (exit 1 when any).
  package var new: [AuditFinding] { findings.filter { !accepted.contains($0.key) } }

  /// The readable report.
  package var text: String {
    var lines = ["spec audit \(spec): \(points) grid replays, \(findings.count) hazards (\(new.count) not accepted)"]
    for f in findings {
      let mark = accepted.contains(f.key) ? "accepted" : "HAZARD"
      lines.append("\(mark) \(f.key)  [angleFix \(f.angleFix)]")
      lines.append("  \(f.evidence)")
      if let p = f.repro { lines.append("  repro: \(p.name)\(AuditFiles.suffix)") }
    }
    if !uncovered.isEmpty { lines.append("not covered by the grid (error never moved): \(uncovered.joined(separator: ", "))") }
    for n in notes { lines.append("note: \(n)") }
    for f in failures { lines.append("replay failed: \(f)") }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The report as canonical JSON (`JSONWriter`).
  package var json: String {
    let items: [JSONValue] = findings.map { f in
      .object([
        "kind": .string(f.kind.rawValue), "cue": .string(f.cue), "level": f.level.map { .string($0) } ?? .null,
        "evidence": .string(f.evidence), "angleFix": .string(f.angleFix),
        "repro": f.repro.map { .string($0.name + AuditFiles.suffix) } ?? .null,
        "accepted": .bool(accepted.contains(f.key)), "key": .string(f.key),
      ])
    }
    let root: JSONObject = [
      "spec": .string(spec), "points": .number(Double(points)), "findings": .array(items),
      "uncovered": .array(uncovered.map { .string($0) }), "notes": .array(notes.map { .string($0) }), "failures": .array(failures.map { .string($0) }),
    ]
    return JSONWriter.write(.object(root), sortKeys: true) + "\n"
  }
}

/// Runs the audit and reads/writes its files.
package enum AuditFiles {
  package static let suffix = ".scenario.yaml"
  /// Bounds of the accepted-hazards file.
  package static let acceptBytesMax = 1 << 20
  package static let acceptLinesMax = 10_000

  /// Audits the spec at `path` on `jobs` threads.
  package static func audit(specPath: String, jobs: Int) throws(HarnessFailure) -> SpecAuditReport {
    let spec = try Harness.loadSpec(path: specPath)
    return try audit(spec: spec, name: specPath, jobs: jobs)
  }

  /// Audits an already loaded spec.
  /// `only` restricts the grid (tests audit one scene and one angleFix setting); `probes: false`
  /// leaves out the second pass of noisy threshold probes (``AuditGrid/probes(spec:results:)``).
  package static func audit(
    spec: PoseSpecDocument, name: String, jobs: Int, only: (@Sendable (AuditPoint) -> Bool)? = nil, probes withProbes: Bool = true
  ) throws(HarnessFailure) -> SpecAuditReport {
    let points = AuditGrid.points().filter { only?($0) ?? true }
    var results = try AuditRun.run(spec: spec, points: points, jobs: jobs)
    // Second pass: noisy probes where the first pass saw a cue cross its warn threshold.
    let probes = withProbes ? AuditGrid.probes(spec: spec, results: results).filter { only?($0) ?? true } : []
    results += try AuditRun.run(spec: spec, points: probes, jobs: jobs)
    let failures = results.compactMap { r in r.failure.map { "\(r.point.name): \($0)" } }
    return SpecAuditReport(
      spec: name, points: points.count + probes.count, failures: failures,
      findings: AuditHazards.analyse(spec: spec, results: results),
      uncovered: AuditHazards.uncovered(spec: spec, results: results),
      notes: [AuditHazards.fallbackNote(spec: spec, results: results)]
        + results.filter { $0.point.noisy && $0.failure == nil }.map {
          "noise \($0.point.name): \($0.displayChanges) display changes, \($0.praises) praises in \($0.point.durationMs / 1000) s, \($0.budgetBreaches.count) budget breaches"
        })
  }

  /// Reads an accepted-hazards file: one `kind CUE_ID[/level]` per line (`#` comments, blank
  /// lines ignored). A line without a level accepts every level of that cue and kind.
  package static func readAccepted(_ path: String) throws(HarnessFailure) -> [String] {
    // A regular file only: opening a FIFO for reading would wait for a writer forever.
    do { try InputFile.checkRegular(path, what: "list of accepted hazards") } catch { throw .badInput(error.description) }
    guard let h = FileHandle(forReadingAtPath: path) else { throw .badInput("\(path): cannot open the accepted-hazards file") }
    defer { try? h.close() }
    let data = (try? h.read(upToCount: acceptBytesMax + 1)) ?? nil
    guard let data, data.count <= acceptBytesMax else {
      throw .badInput("\(path): missing or larger than \(acceptBytesMax) bytes (AuditFiles.acceptBytesMax)")
    }
    guard let text = String(data: data, encoding: .utf8) else { throw .badInput("\(path): not valid UTF-8") }
    var out: [String] = []
    for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
      guard i < acceptLinesMax else { throw .badInput("\(path): more than \(acceptLinesMax) lines (AuditFiles.acceptLinesMax)") }
      let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      if words.isEmpty { continue }
      let kinds = AuditFinding.Kind.allCases.map(\.rawValue)
      guard words.count == 2, kinds.contains(String(words[0])) else {
        throw .badInput("\(path):\(i + 1): expected `KIND CUE_ID[/level]` with KIND one of \(kinds.joined(separator: ", "))")
      }
      out.append("\(words[0]) \(words[1])")
    }
    return out
  }

  /// Marks the findings an accepted line covers (`kind CUE` covers every level).
  package static func accept(_ lines: [String], in report: inout SpecAuditReport) {
    let set = Set(lines)
    for f in report.findings where set.contains(f.key) || set.contains("\(f.kind.rawValue) \(f.cue)") {
      report.accepted.insert(f.key)
    }
  }

  /// Writes each finding's repro scenario into `dir` (created if needed); returns the paths.
  package static func writeRepros(_ report: SpecAuditReport, to dir: String) throws(HarnessFailure) -> [String] {
    do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
      throw .badInput("\(dir): cannot create the folder (\(SystemReason.of(error)))")
    }
    var written: [String] = []
    for p in report.findings.compactMap(\.repro) {
      let path = Paths.join(dir, p.name + suffix)
      if written.contains(path) { continue }
      do { try SafeFile.write(p.yaml, to: path) } catch { throw .badInput("\(path): cannot write (\(error.message))") }
      written.append(path)
    }
    return written
  }
}
