import CanonicalJSON
import Foundation
import Testing

@testable import JustPhotoScenarios

/// A scenario's geometry agrees with its declared intent (DESIGN §9): where the author labels
/// no CHIN_* cue, the subject's face is drawn with a level chin. The range is the spec's
/// (`trigger.noRef.idealRange` of CHIN_DOWN and CHIN_UP in PoseSpec.json), not a golden's.
/// Four far positions once drew `chin_gap` scaled with `face_h` but kept the nose tip's fixed
/// 0.01, giving 0.329–0.356 — within noise of CHIN_DOWN's warn (< 0.34) in sessions whose
/// author wanted only DIST_STEP_CLOSER there.
@Suite struct IntentGeometryTests {
  static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// CHIN_DOWN's and CHIN_UP's `idealRange`, which must agree.
  static func chinIdealRange() throws -> ClosedRange<Double> {
    let spec = try JSONParser.parse(String(contentsOf: repo.appendingPathComponent("PoseSpec.json"), encoding: .utf8))
    var ranges: [ClosedRange<Double>] = []
    for cue in spec["cues"]?.arrayValue ?? [] where ["CHIN_DOWN", "CHIN_UP"].contains(cue["id"]?.stringValue ?? "") {
      let ideal = cue["trigger"]?["noRef"]?["idealRange"]?.arrayValue ?? []
      let r = ideal.compactMap { $0.doubleValue }
      try #require(r.count == 2 && r[0] < r[1])
      ranges.append(r[0]...r[1])
    }
    try #require(ranges.count == 2 && ranges[0] == ranges[1], "\(ranges)")
    return ranges[0]
  }

  /// The scenarios whose rules come from intent: the fit, validation and test corpora.
  static func tuningScenarios() throws -> [URL] {
    let dir = repo.appendingPathComponent("Recordings")
    return try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
      .filter { n in n.hasSuffix(".scenario.yaml") && ["tune-", "val-", "test-"].contains { n.hasPrefix($0) } }
      .map { dir.appendingPathComponent($0) }
  }

  /// Every 100 ms of each tuning scenario with a face and no CHIN_* label holding: the
  /// noise-free noseToChinRatio lies in the spec's ideal range.
  @Test func aChinNobodyLabelledIsDrawnLevel() throws {
    let range = try Self.chinIdealRange()
    let files = try Self.tuningScenarios()
    #expect(files.count >= 31, "\(files.count)")
    var wrong: [String] = []
    for url in files {
      let s = try Scenario.parse(bytes: Array(try Data(contentsOf: url)), file: url.lastPathComponent)
      let labels = try #require(s.intent.labels(), "\(url.lastPathComponent) declares no intent")
      let chin = Set(labels.cueIDs.indices.filter { labels.cueIDs[$0].hasPrefix("CHIN_") }.map(Int32.init))
      var cursor = SubjectCursor(baseline: s.subject, track: s.track())
      var holding = Set<Int32>()
      var next = 0
      var firstWrong: String?
      for t in stride(from: Int64(0), to: s.durationMs, by: 100) {
        while next < labels.marks.count, labels.marks[next].t <= t {
          let m = labels.marks[next]
          if m.holds { holding.insert(m.cue) } else { holding.remove(m.cue) }
          next += 1
        }
        let state = cursor.state(at: t)
        guard !state.absent, !state.noFace, holding.isDisjoint(with: chin) else { continue }
        let r = SubjectModel.noseToChinRatio(state)
        if !range.contains(r), firstWrong == nil { firstWrong = "\(url.lastPathComponent) t=\(t): \(r)" }
      }
      if let firstWrong { wrong.append(firstWrong) }
    }
    #expect(wrong.isEmpty, "noseToChinRatio outside \(range) with no CHIN_* intent: \(wrong)")
  }

  /// The check can fail: the old far position of val-outdoor-dusk (chin_gap 0.04 at face_h
  /// 0.088) is 0.341, outside the range.
  @Test func theOldFarPositionIsOutside() throws {
    let range = try Self.chinIdealRange()
    var s = SubjectState()
    s[.face_h] = 0.088
    s[.chin_gap] = 0.04
    #expect(!range.contains(SubjectModel.noseToChinRatio(s)))
    s[.chin_gap] = 0.044
    #expect(range.contains(SubjectModel.noseToChinRatio(s)))
    #expect(abs(SubjectModel.noseToChinRatio(SubjectState()) - 0.05 / 0.13) < 1e-12)
  }
}
