import CanonicalJSON
import Foundation
import Testing

@testable import JustPhotoScenarios

/// The realistic-noise keys of `noise:` (issue 15.2, `Nuisance`): deterministic from the seed,
/// independent of each other and of the jitter, shaped as configured (episode lengths, rates,
/// drift spread, sway amplitude), and refused with the bound named when out of range.
@Suite("scenario nuisances")
struct NuisanceTests {
  static let file = "Recordings/t.scenario.yaml"

  static func scenario(_ noise: String, duration: Int = 60000, seed: Int = 7, extra: String = "") throws(ScenarioError) -> Scenario {
    let text = "name: t\nduration_ms: \(duration)\nseed: \(seed)\nnoise:\n\(noise)\(extra)"
    return try Scenario.parse(bytes: Array(text.utf8), file: file)
  }

  /// The landmark events as parsed JSON objects, in order.
  static func frames(_ s: Scenario) throws -> [JSONObject] {
    var out: [JSONObject] = []
    var stream = s.events()
    while let e = stream.next() {
      if e.line["kind"] == .string("landmarks") { out.append(e.line) }
    }
    return out
  }

  static func people(_ f: JSONObject) -> Int { Int(f["people"]?.doubleValue ?? -1) }
  static func hasBody(_ f: JSONObject) -> Bool { f["body"]?.objectValue != nil }
  static func faceCount(_ f: JSONObject) -> Int { f["faces"]?.arrayValue?.count ?? -1 }
  static func joint(_ f: JSONObject, _ name: String) -> [Double]? {
    f["body"]?.objectValue?[name]?.arrayValue?.compactMap(\.doubleValue)
  }

  /// Runs of consecutive frames where `p` holds: (first index, length).
  static func runs(_ frames: [JSONObject], _ p: (JSONObject) -> Bool) -> [(start: Int, count: Int)] {
    var out: [(start: Int, count: Int)] = []
    for (i, f) in frames.enumerated() where p(f) {
      if let last = out.last, last.start + last.count == i { out[out.count - 1].count += 1 } else { out.append((i, 1)) }
    }
    return out
  }

  static let everything =
    "  landmark_sigma: 0.003\n  conf_sigma: 0.05\n"
    + "  dropouts: {per_min: 3, min_ms: 130, max_ms: 700}\n"
    + "  occlusions: {per_min: 3, min_ms: 300, max_ms: 2000}\n"
    + "  passersby: {per_min: 3, min_ms: 1500, max_ms: 4000}\n"
    + "  drift: {sigma: 0.01, tau_ms: 20000}\n"
    + "  sway: {amplitude: 0.004, period_ms: 4000}\n"

  @Test func theSameFileGivesTheSameBytesAndAnotherSeedOthers() throws {
    let a = try Self.scenario(Self.everything).generate().lines
    let b = try Self.scenario(Self.everything).generate().lines
    #expect(a == b)
    let c = try Self.scenario(Self.everything, seed: 8).generate().lines
    #expect(a.count == c.count)
    #expect(a.dropFirst() != c.dropFirst())
  }

  @Test func episodesDoNotMoveTheJitterAndKindsDoNotMoveEachOther() throws {
    let jitter = "  landmark_sigma: 0.003\n  conf_sigma: 0.05\n"
    let plain = try Self.frames(Self.scenario(jitter))
    let withPassers = try Self.frames(Self.scenario(jitter + "  passersby: {per_min: 6, min_ms: 1500, max_ms: 4000}\n"))
    #expect(plain.count == withPassers.count)
    // Passers-by change `people` only: every frame's body is the same bytes.
    for (p, q) in zip(plain, withPassers) { #expect(p["body"] == q["body"]) }
    #expect(withPassers.contains { Self.people($0) == 2 })
    // Dropouts hide frames but do not shift the jitter of the frames after them.
    let withDrops = try Self.frames(Self.scenario(jitter + "  dropouts: {per_min: 6, min_ms: 130, max_ms: 700}\n"))
    var hidden = 0
    for (p, q) in zip(plain, withDrops) {
      if Self.hasBody(q) { #expect(p["body"] == q["body"]) } else { hidden += 1 }
    }
    #expect(hidden > 0)
    // Adding dropouts does not move the passers-by (each kind has its own stream).
    let both = try Self.frames(
      Self.scenario(
        jitter + "  passersby: {per_min: 6, min_ms: 1500, max_ms: 4000}\n  dropouts: {per_min: 6, min_ms: 130, max_ms: 700}\n"))
    for (p, q) in zip(withPassers, both) where Self.hasBody(q) { #expect(Self.people(p) == Self.people(q)) }
  }

  @Test func dropoutsArePoissonEpisodesOfTheConfiguredLength() throws {
    // 10 minutes at 6 a minute: about 60 episodes of 200-400 ms (3-7 frames at 15 fps).
    let frames = try Self.frames(Self.scenario("  dropouts: {per_min: 6, min_ms: 200, max_ms: 400}\n", duration: 600_000))
    let lost = Self.runs(frames) { !Self.hasBody($0) && Self.faceCount($0) == 0 && Self.people($0) == 0 }
    #expect(lost.count >= 35 && lost.count <= 90, "\(lost.count) episodes")
    // Each episode covers 3-7 frames; two episodes a frame apart may read as one run.
    #expect(lost.allSatisfy { $0.count >= 3 })
    #expect(lost.filter { $0.count <= 7 }.count >= lost.count - 2, "\(lost.map(\.count))")
    // A rate of 0 never starts one.
    let none = try Self.frames(Self.scenario("  dropouts: {per_min: 0, min_ms: 200, max_ms: 400}\n"))
    #expect(none.allSatisfy(Self.hasBody))
  }

  @Test func occlusionsHideOnlyTheListedParts() throws {
    let face = try Self.frames(Self.scenario("  occlusions: {per_min: 6, min_ms: 500, max_ms: 1000, parts: [face]}\n"))
    let faceless = face.filter { Self.faceCount($0) == 0 }
    #expect(!faceless.isEmpty)
    for f in faceless {
      #expect(Self.joint(f, "nose") == nil && Self.joint(f, "leftEar") == nil)
      #expect(Self.joint(f, "leftWrist") != nil && Self.joint(f, "leftAnkle") != nil)
    }
    let legs = try Self.frames(Self.scenario("  occlusions: {per_min: 6, min_ms: 500, max_ms: 1000, parts: [legs]}\n"))
    #expect(legs.allSatisfy { Self.faceCount($0) == 1 })
    let hidden = legs.filter { Self.joint($0, "leftKnee") == nil }
    #expect(!hidden.isEmpty)
    for f in hidden { #expect(Self.joint(f, "rightAnkle") == nil && Self.joint(f, "leftWrist") != nil) }
  }

  @Test func passersByAddOnePersonForTheEpisode() throws {
    let frames = try Self.frames(Self.scenario("  passersby: {per_min: 4, min_ms: 1500, max_ms: 3000}\n", duration: 300_000))
    let crowded = Self.runs(frames) { Self.people($0) == 2 }
    #expect(crowded.count >= 8, "\(crowded.count) passers-by")
    // 1.5-3 s at 15 fps: 22-46 frames (a boundary frame either side).
    #expect(crowded.allSatisfy { $0.count >= 22 }, "\(crowded.map(\.count))")
    #expect(crowded.filter { $0.count <= 46 }.count >= crowded.count - 1, "\(crowded.map(\.count))")
    #expect(frames.allSatisfy { Self.people($0) == 1 || Self.people($0) == 2 })
  }

  @Test func driftHasTheConfiguredSpreadAndSwayItsAmplitude() throws {
    // Root x − 0.5 without jitter is the drift: 300 s with tau 2 s is ~150 independent samples.
    let drift = try Self.frames(Self.scenario("  drift: {sigma: 0.01, tau_ms: 2000}\n", duration: 300_000))
    let dx = drift.compactMap { Self.joint($0, "root")?[0] }.map { $0 - 0.5 }
    let sd = (dx.map { $0 * $0 }.reduce(0, +) / Double(dx.count)).squareRoot()
    #expect(sd > 0.007 && sd < 0.013, "drift sd \(sd)")
    let sway = try Self.frames(Self.scenario("  sway: {amplitude: 0.004, period_ms: 4000}\n", duration: 20000))
    let sx = sway.compactMap { Self.joint($0, "root")?[0] }.map { $0 - 0.5 }
    let peak = sx.map(abs).max() ?? 0
    #expect(peak <= 0.004 + 1e-6 && peak > 0.0038, "sway peak \(peak)")
  }

  @Test func noiseFreeScenarioHasNoNuisance() throws {
    // GroundTruth labels the scenario with `noise` reset: the nuisances go with it.
    var s = try Self.scenario(Self.everything)
    #expect(!s.noise.nuisance.isEmpty)
    s.noise = Scenario.Noise()
    let frames = try Self.frames(s)
    #expect(frames.allSatisfy { Self.people($0) == 1 && Self.faceCount($0) == 1 && Self.joint($0, "root")?[0] == 0.5 })
  }

  static func refused(_ noise: String, line: Int, says: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
      _ = try scenario(noise)
      Issue.record("accepted: \(noise)", sourceLocation: sourceLocation)
    } catch {
      #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
      #expect(error.message.contains(says), "\(error)", sourceLocation: sourceLocation)
      #expect(error.description.hasPrefix("\(file):\(line):"), "\(error)", sourceLocation: sourceLocation)
    }
  }

  @Test func badValuesAreRefusedWithTheBoundNamed() {
    Self.refused("  dropouts: {per_min: 61, min_ms: 100, max_ms: 200}\n", line: 5, says: "ScenarioLimits.nuisancePerMinuteMax")
    Self.refused("  dropouts: {per_min: -1, min_ms: 100, max_ms: 200}\n", line: 5, says: "ScenarioLimits.nuisancePerMinuteMax")
    Self.refused("  passersby: {per_min: 1, min_ms: 0, max_ms: 200}\n", line: 5, says: "ScenarioLimits.nuisanceEpisodeMsMax")
    Self.refused("  passersby: {per_min: 1, min_ms: 300, max_ms: 200}\n", line: 5, says: "≥ min_ms")
    Self.refused("  passersby: {per_min: 1, min_ms: 300, max_ms: 60001}\n", line: 5, says: "ScenarioLimits.nuisanceEpisodeMsMax")
    Self.refused("  passersby: {per_min: 1, min_ms: 300}\n", line: 5, says: "missing key \"max_ms\"")
    Self.refused("  passersby: {per_min: 1, min_ms: 300, max_ms: 400, parts: [face]}\n", line: 5, says: "unknown key")
    Self.refused("  occlusions: {per_min: 1, min_ms: 300, max_ms: 400, parts: [fase]}\n", line: 5, says: "did you mean \"face\"")
    Self.refused("  occlusions: {per_min: 1, min_ms: 300, max_ms: 400, parts: []}\n", line: 5, says: "at least one part")
    Self.refused("  occlusions: {per_min: 1, min_ms: 300, max_ms: 400, parts: [legs, legs]}\n", line: 5, says: "twice")
    Self.refused("  drift: {sigma: 0.5, tau_ms: 20000}\n", line: 5, says: "ScenarioLimits.driftSigmaMax")
    Self.refused("  drift: {sigma: 0.01, tau_ms: 10}\n", line: 5, says: "ScenarioLimits.driftTauMs")
    Self.refused("  drift: {sigma: 0.01}\n", line: 5, says: "missing key \"tau_ms\"")
    Self.refused("  sway: {amplitude: -0.01, period_ms: 4000}\n", line: 5, says: "ScenarioLimits.swayAmplitudeMax")
    Self.refused("  sway: {amplitude: 0.01, period_ms: 10}\n", line: 5, says: "ScenarioLimits.swayPeriodMs")
    Self.refused("  sway: 0.01\n", line: 5, says: "expected a mapping")
    Self.refused("  swey: {amplitude: 0.01, period_ms: 4000}\n", line: 5, says: "did you mean \"sway\"")
  }
}
