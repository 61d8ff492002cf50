import Foundation
import PoseSpec
import Testing

/// Loading the real PoseSpecs (ENGINE §2.1–2.2, §2.8, §3.6).
@Suite("PoseSpec loading")
struct PoseSpecLoaderTests {
  func load(_ url: URL) throws -> PoseSpecDocument {
    try PoseSpecLoader.load(bytes: SpecFixtures.bytes(url), fileName: url.lastPathComponent)
  }

  @Test("§0.1: the reference PoseSpec loads unchanged with its known fingerprint")
  func referenceLoads() throws {
    let doc = try load(SpecFixtures.referenceURL)
    #expect(doc.cues.count == 50)
    #expect(doc.sha256.hasPrefix("7f8e3f15"))
    #expect(doc.sha256.hasSuffix("6a39"))
    #expect(doc.prdVersion == "v1.1.4")
    #expect(doc.fingerprint == "v1.1.4|v1.1.4-final-hotreload|cues=50")
    #expect(doc.warnings.isEmpty)
    #expect(doc.defaults.selection == .standard)
    #expect(doc.defaults.antiJitter == AntiJitterParameters(persistFrames: 6, minHoldMs: 3000, cooldownMs: 800))
    #expect(doc.binding?.aliasOrder.count == 14)
    #expect(doc.rois.faceROI?.paddingX == 0.15)
  }

  @Test("The project PoseSpec has the reference's cues and thresholds, with its own wording")
  func projectSpecMatchesReference() throws {
    let project = try load(SpecFixtures.projectURL)
    let reference = try load(SpecFixtures.referenceURL)
    #expect(project.cues.map(\.id) == reference.cues.map(\.id))
    for (p, r) in zip(project.cues, reference.cues) {
      #expect(p.trigger == r.trigger, "\(p.id)")
      #expect(p.antiJitter == r.antiJitter, "\(p.id)")
      #expect(p.metric == r.metric, "\(p.id)")
      #expect(p.script.zh.count == r.script.zh.count, "\(p.id)")
      #expect(p.script.zh != r.script.zh, "\(p.id) keeps the reference wording")
    }
    #expect(project.fingerprint == reference.fingerprint)
  }

  @Test("§2.8: cue fields are typed in file order (FRAME_MOVE_LEFT, WEIGHT_SHIFT, CHIN_DOWN, OUT_07)")
  func cueFields() throws {
    let doc = try load(SpecFixtures.referenceURL)
    let left = try #require(doc.cue(id: "FRAME_MOVE_LEFT"))
    #expect(left.index == 0)
    #expect(left.priority == 4)
    #expect(left.mutexGroup == "FRAME_X")
    #expect(left.metric.landmarks == ["body.leftShoulder", "body.rightShoulder", "body.leftHip", "body.rightHip"])
    #expect(
      left.trigger.noRef
        == ThresholdSet(
          error: "centerXOffset", hard: [Threshold(.greater, 0.12)], warn: [Threshold(.greater, 0.07)],
          exit: [Threshold(.lessOrEqual, 0.04)]))
    #expect(left.trigger.withRef?.error == "centerXOffset - target.centerXOffset")
    #expect(left.script.zh.first == "FRAME_MOVE_LEFT 提示 v0")
    #expect(left.antiJitter.persistFrames == 4)
    let weight = try #require(doc.cue(id: "WEIGHT_SHIFT"))
    #expect(weight.trigger.noRef?.hard == [])
    #expect(weight.trigger.noRef?.warn == [Threshold(.absLess, 0.01)])
    #expect(weight.trigger.noRef?.exit == [Threshold(.absGreaterOrEqual, 0.02)])
    let chin = try #require(doc.cue(id: "CHIN_DOWN"))
    #expect(chin.trigger.noRef?.exit == [Threshold(.between, 0.36, 0.42)])
    #expect(chin.trigger.withRef == nil)
    let align = try #require(doc.cue(id: "OUT_07_LANDMARK_ALIGN_X"))
    #expect(align.trigger.noRef == nil)
    #expect(doc.cue(id: "FRAME_GENERAL")?.trigger.system != nil)
  }

  @Test("§2.8 / §3.2: noRef error sources of all 50 cues (E 4, O 11, V 5, F 25, none 5)")
  func errorSources() throws {
    let doc = try load(SpecFixtures.referenceURL)
    var counts: [String: Int] = [:]
    for cue in doc.cues { counts[cue.noRefError()?.source.rawValue ?? "-", default: 0] += 1 }
    #expect(counts == ["E": 4, "O": 11, "V": 5, "F": 25, "-": 5])
    #expect(doc.cue(id: "DIST_STEP_CLOSER")?.noRefError()?.expression == "bboxHeight")
    #expect(doc.cue(id: "FRAME_ADD_HEADROOM")?.noRefError()?.expression == "headroom")
    #expect(doc.cue(id: "HAND_OFF_FACE")?.noRefError()?.expression == "minDistRatio")
    let cafe01 = try #require(doc.cue(id: "CAFE_01_FACE_TOO_DARK"))
    #expect(cafe01.noRefError()?.expression == "0.42 - faceLumaMean")
    #expect(cafe01.noRefError(formulaFirst: false)?.expression == "faceLumaMean")
    #expect(doc.cue(id: "OUT_05_HORIZON_LEVEL")?.noRefError()?.expression == "horizonAngleDeg")
  }

  @Test("§3.6: each UI scene evaluates base ∪ scene, 20 + 15 cues in file order")
  func summaryPerScene() throws {
    let summary = try load(SpecFixtures.referenceURL).summary
    #expect(summary.cueCount == 50)
    #expect(summary.scenes.map(\.scene) == ["cafe", "outdoor"])
    for s in summary.scenes {
      #expect(s.cueIds.count == 35)
      #expect(s.sharedCount == 20)
      #expect(s.cueIds.first == "FRAME_MOVE_LEFT")
    }
    #expect(summary.scenes[0].cueIds.contains("CAFE_01_FACE_TOO_DARK"))
    // §3.11: tiers as scheduled, T1 capped at t1MaxHz = 2 (G-31).
    let cafe = Dictionary(uniqueKeysWithValues: zip(summary.scenes[0].cueIds, summary.scenes[0].tiers))
    #expect(cafe["FRAME_MOVE_LEFT"] == "T0 15 Hz")
    #expect(cafe["CAFE_05_WB_TOO_YELLOW"] == "T1 1 Hz")
    #expect(cafe["CAFE_10_LOW_LIGHT_STEADY"] == "T1 2 Hz (declared 30)")
    #expect(cafe["FRAME_GENERAL"] == "fallback")
    #expect(summary.description.contains("\n  CAFE_01_FACE_TOO_DARK"))
    #expect(!summary.scenes[0].cueIds.contains("OUT_01_FACE_IN_SHADOW"))
    #expect(summary.description.contains("50 cues"))
    #expect(summary.description.contains("cafe: 35 cues evaluated (base 20 + cafe 15)"))
  }

  @Test("§3.1: an unknown operator is skipped with a warning, the rest of the level kept")
  func unknownOperatorSkipped() throws {
    let bytes = try SpecFixtures.mutatedReference { root in
      SpecFixtures.set(
        .object(["~=": 0.3, ">": 0.2]), at: ["cues", "0", "trigger", "noRef", "hard"], in: &root)
    }
    let doc = try PoseSpecLoader.load(bytes: bytes)
    #expect(doc.cues[0].trigger.noRef?.hard == [Threshold(.greater, 0.2)])
    #expect(doc.warnings == ["cues[0].trigger.noRef.hard: unknown threshold operator \"~=\" skipped"])
  }
}
