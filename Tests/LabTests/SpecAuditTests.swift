import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Lab
import PoseSpec
import JustPhotoScenarios
import Testing

/// `jpreplay spec audit` (issue 16): hazards injected into the project spec are found, the
/// unmutated spec shows only ENGINE §8's known list.
@Suite("Spec audit: hazards by systematic replay")
struct SpecAuditTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func projectSpec() throws -> JSONValue {
    try JSONParser.parse(bytes: [UInt8](try Data(contentsOf: repoRoot.appendingPathComponent("PoseSpec.json"))))
  }

  /// The project spec with `edit` applied to the cue `id`'s JSON object.
  static func mutated(_ id: String, _ edit: (inout JSONObject) -> Void) throws -> PoseSpecDocument {
    var root = try #require(try projectSpec().objectValue)
    var cues = try #require(root["cues"]?.arrayValue)
    let i = try #require(cues.firstIndex { $0["id"]?.stringValue == id })
    var cue = try #require(cues[i].objectValue)
    edit(&cue)
    cues[i] = .object(cue)
    root["cues"] = .array(cues)
    return try Harness.validateSpec(bytes: Array(JSONWriter.write(.object(root)).utf8), path: "mutated.json")
  }

  static func setNoRef(_ cue: inout JSONObject, _ key: String, _ value: JSONValue) {
    var trigger = cue["trigger"]?.objectValue ?? JSONObject()
    var noRef = trigger["noRef"]?.objectValue ?? JSONObject()
    noRef[key] = value
    trigger["noRef"] = .object(noRef)
    cue["trigger"] = .object(trigger)
  }

  /// Outdoor, angleFix on: a quarter of the grid, enough for base and outdoor cues.
  /// Without the threshold probes (their own tests below): the grid's findings only.
  static func audit(_ spec: PoseSpecDocument) throws -> SpecAuditReport {
    try AuditFiles.audit(spec: spec, name: "test", jobs: 2, only: { $0.scene == "outdoor" && $0.angleFix }, probes: false)
  }

  static func keys(_ r: SpecAuditReport) -> Set<String> { Set(r.findings.map(\.key)) }

  /// The shipped spec's audit (outdoor, angleFix on), run once and read by every test that
  /// needs it (four did, each running the same deterministic audit again).
  static let shippedOutdoorAudit: Result<SpecAuditReport, any Error> = Result {
    try audit(try Harness.loadSpec(path: repoRoot.appendingPathComponent("PoseSpec.json").path))
  }

  @Test("the unmutated spec (outdoor, angleFix on): G-48 both cues, G-49 inversion and outranking, G-52, G-53")
  func knownList() throws {
    let r = try Self.shippedOutdoorAudit.get()
    let k = Self.keys(r)
    #expect(r.failures.isEmpty)
    for key in [
      "unreachable-level FRAME_ADD_HEADROOM/warn", "unreachable-level FRAME_DONT_CROP_FEET/warn",
      "inverted-advice DIST_STEP_CLOSER", "never-displayed DIST_STEP_BACK",
      "never-displayed OUT_11_CROWD_TOO_MUCH", "unreachable-level OUT_15_HAIR_COVERS_FACE/hard",
    ] {
      #expect(k.contains(key), "\(key) missing from \(k.sorted())")
    }
    // Each finding carries a repro that parses as a scenario file of its own name — but for a
    // static finding about a cafe cue, which an outdoor-only grid has no point to show.
    for f in r.findings where !(f.repro == nil && f.cue.hasPrefix("CAFE_")) {
      let p = try #require(f.repro, "\(f.key)")
      #expect(p.yaml.contains("name: \(p.name)\n"))
    }
    let outranker = r.findings.first { $0.key == "never-displayed DIST_STEP_BACK" }
    #expect(outranker?.evidence.contains("FRAME_MOVE_DOWN") == true)
  }

  @Test("a warn threshold outside the formula's range: unreachable on both levels (interval), and the grid agrees")
  func unreachableWarn() throws {
    let spec = try Self.mutated("FRAME_MOVE_LEFT") {
      Self.setNoRef(&$0, "warn", .object([">": 5]))
      Self.setNoRef(&$0, "hard", .object([">": 6]))
    }
    let r = try Self.audit(spec)
    let k = Self.keys(r)
    #expect(k.contains("unreachable-level FRAME_MOVE_LEFT/warn"))
    #expect(k.contains("unreachable-level FRAME_MOVE_LEFT/hard"))
    // The grid's own verdict ("never fires") is folded into the proof, not repeated.
    #expect(!k.contains("never-fires FRAME_MOVE_LEFT/warn"))
  }

  @Test("a flipped direction is reported as inverted advice")
  func flippedDirection() throws {
    let spec = try Self.mutated("FRAME_MOVE_LEFT") {
      $0["direction"] = .object(["type": "signed", "whenPositive": .object(["action": "move_right"]), "whenNegative": .object(["action": "none"])])
    }
    let r = try Self.audit(spec)
    let f = try #require(r.findings.first { $0.key == "inverted-advice FRAME_MOVE_LEFT" })
    #expect(f.evidence.contains("right of centre"))
    #expect(!Self.keys(try Self.shippedOutdoorAudit.get()).contains("inverted-advice FRAME_MOVE_LEFT"))
  }

  @Test("a cue that always fires is reported on the neutral pose")
  func firesOnNeutral() throws {
    let spec = try Self.mutated("HEAD_LEVEL") { Self.setNoRef(&$0, "warn", .object(["abs>=": 0])) }
    let r = try Self.audit(spec)
    let f = try #require(r.findings.first { $0.kind == .neutralFires && $0.cue == "HEAD_LEVEL" })
    #expect(f.repro?.axis == "neutral")
  }

  @Test("a hard level behind its own confidence gate is unreachable (G-52); lowering the gate removes the hazard; the accept file covers every level")
  func confidenceGate() throws {
    // OUT_15: error = 0.55 − landmark_conf_avg, hard > 0.1 needs avgConf < 0.45, and the
    // §3.4.2 gate on face.landmarks (minConfidence 0.45) removes the cue first.
    var r = try Self.shippedOutdoorAudit.get()
    let f = try #require(r.findings.first { $0.key == "unreachable-level OUT_15_HAIR_COVERS_FACE/hard" })
    #expect(f.evidence.contains("minConfidence 0.45"))
    // The same spec with the gate at 0.2: hard is reachable, nothing is reported.
    let lowered = try Self.mutated("OUT_15_HAIR_COVERS_FACE") {
      var c = $0["confidence"]?.objectValue ?? JSONObject()
      c["minConfidence"] = 0.2
      $0["confidence"] = .object(c)
    }
    #expect(!Self.keys(try Self.audit(lowered)).contains("unreachable-level OUT_15_HAIR_COVERS_FACE/hard"))
    let before = r.new.count
    AuditFiles.accept(["unreachable-level OUT_15_HAIR_COVERS_FACE"], in: &r)
    #expect(r.accepted.contains("unreachable-level OUT_15_HAIR_COVERS_FACE/hard"))
    #expect(r.new.count == before - 1)
  }

  @Test("a withRef exit no pose can reach deadlocks Match; a cue without hysteresis or hold flip-flops under noise")
  func deadlockAndFlipFlop() throws {
    let locked = try Self.mutated("FRAME_MOVE_LEFT") {
      var trigger = $0["trigger"]?.objectValue ?? JSONObject()
      var withRef = trigger["withRef"]?.objectValue ?? JSONObject()
      withRef["exit"] = .object(["<=": -1])
      trigger["withRef"] = .object(withRef)
      $0["trigger"] = .object(trigger)
    }
    let r = try Self.audit(locked)
    let f = try #require(r.findings.first { $0.kind == .withRefDeadlock })
    #expect(f.cue == "FRAME_MOVE_LEFT", "\(f.evidence)")
    #expect(f.repro?.reference != nil)

    let jittery = try Self.mutated("FRAME_MOVE_LEFT") {
      Self.setNoRef(&$0, "warn", .object([">": 0.1]))
      Self.setNoRef(&$0, "exit", .object(["<=": 0.1]))
      $0["antiJitter"] = .object(["persistFrames": 1, "minHoldMs": 0, "cooldownMs": 0])
    }
    // The shipped spec's only flip-flop under the detector profiles is DIST in poor light (G-49:
    // ankles under the 0.5 drop rule); the mutant adds one of its own.
    let shipped = Self.keys(try Self.shippedOutdoorAudit.get())
      .filter { $0.hasPrefix("flip-flop") }
    #expect(shipped == ["flip-flop DIST"])
    let j = try Self.audit(jittery)
    let flip = try #require(j.findings.first { $0.kind == .flipFlop && !shipped.contains($0.key) }, "\(Self.keys(j))")
    #expect(flip.repro?.noisy == true)
  }
}

extension SpecAuditTests {
  static var shipped: PoseSpecDocument { get throws { try Harness.loadSpec(path: repoRoot.appendingPathComponent("PoseSpec.json").path) } }

  static func staticKeys(_ spec: PoseSpecDocument) -> Set<String> { Set(AuditStatic.findings(spec: spec).map(\.key)) }

  @Test("static checks: overlapping warn/exit regions, hard easier than warn, warn inside the ideal range")
  func staticRegionChecks() throws {
    let overlap = try Self.mutated("FRAME_MOVE_LEFT") { Self.setNoRef(&$0, "exit", .object(["<=": 0.1])) }
    #expect(Self.staticKeys(overlap).contains("overlapping-regions FRAME_MOVE_LEFT/warn"))
    let f = try #require(AuditStatic.findings(spec: overlap).first { $0.key == "overlapping-regions FRAME_MOVE_LEFT/warn" })
    #expect(f.evidence.contains(">0.07") && f.evidence.contains("<=0.1"), "\(f.evidence)")
    let easier = try Self.mutated("FRAME_MOVE_LEFT") { Self.setNoRef(&$0, "hard", .object([">": 0.05])) }
    #expect(Self.staticKeys(easier).contains("hard-easier-than-warn FRAME_MOVE_LEFT/hard"))
    // CHIN_UP's ideal range is [0.36, 0.42]; a warn at > 0.40 covers part of it.
    let ideal = try Self.mutated("CHIN_UP") { Self.setNoRef(&$0, "warn", .object([">": 0.40])) }
    #expect(Self.staticKeys(ideal).contains("warn-covers-ideal CHIN_UP"))
    // None of the three on the shipped spec's cues mutated here.
    let k = Self.staticKeys(try Self.shipped)
    for key in ["overlapping-regions FRAME_MOVE_LEFT/warn", "hard-easier-than-warn FRAME_MOVE_LEFT/hard", "warn-covers-ideal CHIN_UP"] {
      #expect(!k.contains(key), "\(key)")
    }
  }

  @Test("interval arithmetic over the formula: CAFE_04's hard (G-55) and an out-of-range warn are unreachable, in-range levels are not")
  func intervalUnreachable() throws {
    let k = Self.staticKeys(try Self.shipped)
    // error = 0.06 − |meanLuma(L) − meanLuma(R)| ≤ 0.06, hard needs > 0.06.
    #expect(k.contains("unreachable-level CAFE_04_FACE_TOO_FLAT/hard"), "\(k.sorted())")
    #expect(!k.contains("unreachable-level CAFE_04_FACE_TOO_FLAT/warn"))
    #expect(!k.contains("unreachable-level FRAME_MOVE_LEFT/warn") && !k.contains("unreachable-level FRAME_MOVE_LEFT/hard"))
    // centerXOffset = center(bbox(bodyPoints)).x − 0.5 lies in [−0.5, 0.5]: warn > 0.6 cannot fire.
    let far = try Self.mutated("FRAME_MOVE_LEFT") { Self.setNoRef(&$0, "warn", .object([">": 0.6])) }
    #expect(Self.staticKeys(far).contains("unreachable-level FRAME_MOVE_LEFT/warn"))
  }

  @Test("a cue firing on the neutral pose is reported although another cue hides it, naming that cue")
  func hiddenNeutralFire() throws {
    // HEAD_LEVEL always at warn; on the cafe neutral pose CAFE_12 (G-51, hard) is shown instead.
    let spec = try Self.mutated("HEAD_LEVEL") { Self.setNoRef(&$0, "warn", .object(["abs>=": 0])) }
    let r = try AuditFiles.audit(
      spec: spec, name: "test", jobs: 2, only: { $0.axis == "neutral" && $0.scene == "cafe" && $0.angleFix }, probes: false)
    let f = try #require(r.findings.first { $0.key == "neutral-fires HEAD_LEVEL/warn" }, "\(Self.keys(r))")
    #expect(f.evidence.contains("hidden by CAFE_12_CAFE_THIRDS_COMPOSE"), "\(f.evidence)")
  }

  @Test("the grid moves every pose cue and the sensor and pixel-scalar cues; OUT_01 is displayed (no false finding); G-54's repro is outdoor")
  func coverageAndFalseFindings() throws {
    let r = try AuditFiles.audit(spec: try Self.shipped, name: "test", jobs: 2, only: { $0.angleFix }, probes: false)
    #expect(r.uncovered.isEmpty, "\(r.uncovered)")
    let k = Self.keys(r)
    #expect(!k.contains("never-displayed OUT_01_FACE_IN_SHADOW"), "\(k.sorted())")
    let g54 = try #require(r.findings.first { $0.key == "never-displayed FRAME_GENERAL" })
    #expect(g54.repro?.scene == "outdoor", "\(String(describing: g54.repro?.name))")
    // CAFE_04's hard is reported once, by the interval check, not also as "never fires".
    #expect(k.contains("unreachable-level CAFE_04_FACE_TOO_FLAT/hard") && !k.contains("never-fires CAFE_04_FACE_TOO_FLAT/hard"))
  }

  @Test("a dead band collapsed to 0.0001 with persist 1, hold 0, cooldown 0 flip-flops at the threshold probe; the shipped band does not")
  func collapsedDeadBand() throws {
    let collapsed = try Self.mutated("FRAME_MOVE_LEFT") {
      Self.setNoRef(&$0, "exit", .object(["<=": 0.0699]))
      $0["antiJitter"] = .object(["persistFrames": 1, "minHoldMs": 0, "cooldownMs": 0])
    }
    let only: @Sendable (AuditPoint) -> Bool = {
      $0.scene == "outdoor" && $0.angleFix && ($0.family == "x" || $0.axis.hasPrefix("probe-x"))
    }
    let r = try AuditFiles.audit(spec: collapsed, name: "test", jobs: 2, only: only)
    let f = try #require(r.findings.first { $0.key == "flip-flop FRAME_MOVE_LEFT" }, "\(Self.keys(r))")
    #expect(f.repro?.axis.hasPrefix("probe-x") == true, "\(String(describing: f.repro?.name))")
    // The repro is a scenario record accepts.
    let p = try #require(f.repro)
    #expect(throws: Never.self) { _ = try Scenario.parse(bytes: Array(p.yaml.utf8), file: p.name + ".scenario.yaml") }
    let control = try AuditFiles.audit(spec: try Self.shipped, name: "test", jobs: 2, only: only)
    #expect(!Self.keys(control).contains("flip-flop FRAME_MOVE_LEFT"), "\(Self.keys(control))")
  }
}
