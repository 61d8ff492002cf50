import CanonicalJSON
import Foundation
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
    var lines = ["\nspec edits in play (\(currentSpec) at \(id.prefix(10)), when the golden was blessed → now):"]
    lines += edits.prefix(editsShownMax).map { "  \($0)" }
    if edits.count > editsShownMax { lines.append("  … \(edits.count - editsShownMax) more (jpreplay bisect spec \(id.prefix(10)):\(currentSpec) \(currentSpec))") }
    return lines
  }
}
