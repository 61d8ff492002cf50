import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Lab

/// "Which spec edits are in play": the golden was blessed at the last commit that changed
/// it; when the PoseSpec of that commit differs from the one replayed now, the leaf edits
/// between them (those of the diverging cues, and every edit outside `cues`) are listed.
enum SpecHistory {
  /// Edits shown before the list is cut.
  static let editsShownMax = 20

  /// The spec `golden` was made with: `currentSpec` as it was at the last commit that changed
  /// the golden (nil when the golden is not committed in a git repository, or the spec file
  /// did not exist there).
  static func goldenSpec(golden: String, currentSpec: String) -> (commit: String, bytes: [UInt8])? {
    guard let commit = try? Git.run(["log", "-1", "--format=%H", "--", golden]), commit.status == 0 else { return nil }
    let id = String(decoding: commit.stdout, as: UTF8.self).trimmed
    guard !id.isEmpty, let top = try? Git.run(["rev-parse", "--show-prefix"]), top.status == 0 else { return nil }
    let prefix = String(decoding: top.stdout, as: UTF8.self).trimmed
    guard let old = try? Git.run(["show", "--end-of-options", "\(id):\(prefix)\(currentSpec)"]), old.status == 0 else { return nil }
    return (id, [UInt8](old.stdout))
  }

  /// The golden side of a report page: the spec `golden` was made with, parsed, and where it
  /// came from; or why it cannot be drawn.
  static func reportGoldenSpec(golden: String, currentSpec: String) -> HTMLReportGoldenSpec {
    guard let found = goldenSpec(golden: golden, currentSpec: currentSpec) else {
      return HTMLReportGoldenSpec(
        spec: nil,
        note: "golden side: the spec \(golden) was made with cannot be found (the golden is not committed in a git repository here, or \(currentSpec) did not exist at its commit); its metric and gate are not drawn")
    }
    do {
      let spec = try Harness.validateSpec(bytes: found.bytes, path: "\(currentSpec) at \(found.commit.prefix(10))")
      return HTMLReportGoldenSpec(
        spec: spec, note: "golden side: replayed under \(currentSpec) at \(found.commit.prefix(10)) (the commit that last changed \(golden)), by this build")
    } catch {
      return HTMLReportGoldenSpec(spec: nil, note: "golden side: the spec the golden was made with does not load here (\(error.message)); its metric and gate are not drawn")
    }
  }

  /// Members of the spec that are documentation only: an edit under one is prose.
  static let proseKeys: Set<String> = [
    "meaning", "notes", "note", "rule", "qa", "qaAssets", "changeLog", "generatedAt", "prdVersion", "requirement",
    "implementation", "namingConvention", "beforeExpected", "afterExpected", "beforeImage", "afterImage",
  ]

  static func proseField(_ e: SpecEdit) -> String? {
    for step in e.path {
      if case .key(let k) = step, proseKeys.contains(k) { return k }
    }
    return nil
  }

  static func isProse(_ e: SpecEdit) -> Bool { proseField(e) != nil }

  /// The spec edits since the golden that touch any of `cues` (and every edit outside the
  /// cues), behavioural first, prose folded.
  static func editsInPlay(golden: String, currentSpec: String, cues: [String]) -> [String] {
    guard let (id, oldBytes) = goldenSpec(golden: golden, currentSpec: currentSpec),
      let now = FileManager.default.contents(atPath: currentSpec),
      let oldJSON = try? JSONParser.parse(bytes: oldBytes),
      let newJSON = try? JSONParser.parse(bytes: [UInt8](now))
    else { return [] }
    let edits = SpecDiff.edits(from: oldJSON, to: newJSON).filter { e in
      guard case .key("cues")? = e.path.first else { return true }
      if case .id(let cue)? = e.path.dropFirst().first { return cues.contains(cue) }
      return true
    }
    guard !edits.isEmpty else { return [] }
    // Behavioural edits first (document order); prose (documentation fields no output reads)
    // folded into one line that names the fields.
    let behavioural = edits.filter { !isProse($0) }
    let prose = edits.filter(isProse)
    var lines = ["\nspec edits in play (\(currentSpec) at \(id.prefix(10)), when the golden was blessed → now):"]
    lines += behavioural.prefix(editsShownMax).map { "  \($0)" }
    if behavioural.count > editsShownMax {
      lines.append("  … \(behavioural.count - editsShownMax) more (jpreplay bisect spec \(id.prefix(10)):\(currentSpec) \(currentSpec))")
    }
    if !prose.isEmpty {
      var fields: [String] = []
      for e in prose {
        if let f = proseField(e), !fields.contains(f) { fields.append(f) }
      }
      lines.append("  + \(prose.count) prose edit\(prose.count == 1 ? "" : "s") folded (\(fields.joined(separator: ", "))): no output reads them")
    }
    return lines
  }
}
