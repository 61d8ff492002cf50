import CanonicalJSON
import Foundation
import Lab

/// "Which spec edits are in play": the golden was blessed at the last commit that changed
/// it; when the PoseSpec of that commit differs from the one replayed now, the leaf edits
/// between them (those of the diverging cues, and every edit outside `cues`) are listed.
enum SpecHistory {
  /// Edits shown before the list is cut.
  static let editsShownMax = 20

  static func editsInPlay(golden: String, currentSpec: String, cues: [String]) -> [String] {
    guard let commit = try? Git.run(["log", "-1", "--format=%H", "--", golden]), commit.status == 0 else { return [] }
    let id = String(decoding: commit.stdout, as: UTF8.self).trimmed
    guard !id.isEmpty, let top = try? Git.run(["rev-parse", "--show-prefix"]), top.status == 0 else { return [] }
    let prefix = String(decoding: top.stdout, as: UTF8.self).trimmed
    guard let old = try? Git.run(["show", "--end-of-options", "\(id):\(prefix)\(currentSpec)"]), old.status == 0,
      let now = FileManager.default.contents(atPath: currentSpec),
      let oldJSON = try? JSONParser.parse(bytes: [UInt8](old.stdout)),
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
