import CanonicalJSON
import Foundation
import Testing

@testable import JustPhotoScenarios

/// Detector-model randomisation and the `noisy` profile (issue 35 item 6, `DetectorRandomisation`):
/// a draw is a pure function of the seed, stays inside the documented ranges, keeps the figures
/// the file sets, and without `randomise` nothing changes.
@Suite("detector randomisation")
struct DetectorRandomisationTests {
  static func scenario(_ body: String, duration: Int = 3000, seed: Int = 7) throws(ScenarioError) -> Scenario {
    try DetectorTests.scenario(body, duration: duration, seed: seed)
  }

  @Test func withoutRandomiseTheProfileIsTheNamedOneAndTheBytesAreUnchanged() throws {
    let plain = try Self.scenario("detector: {profile: daylight}\nluma: {every: 3, w: 9, h: 16}\n")
    let off = try Self.scenario("detector: {profile: daylight, randomise: false}\nluma: {every: 3, w: 9, h: 16}\n")
    #expect(plain.detector?.profile(seed: 7) == .daylight)
    #expect(off.detector?.profile(seed: 123) == .daylight)
    // Only the scenario's own hash (the file's bytes differ) may differ: every event is equal.
    #expect(DetectorTests.events(plain) == DetectorTests.events(off))
  }

  @Test func theDrawIsAPureFunctionOfTheSeed() throws {
    let body = "detector: {profile: daylight, randomise: true}\nluma: {every: 3, w: 9, h: 16}\n"
    let a = try Self.scenario(body)
    let b = try Self.scenario(body)
    #expect(a.detector?.profile(seed: a.seed) == b.detector?.profile(seed: b.seed))
    #expect(a.generate().lines == b.generate().lines)
    let other = try Self.scenario(body, seed: 8)
    #expect(a.detector?.profile(seed: 7) != other.detector?.profile(seed: 8))
    // The drawn profile is what the stream uses: a randomised session differs from the plain one.
    let plain = try Self.scenario("detector: {profile: daylight}\nluma: {every: 3, w: 9, h: 16}\n")
    #expect(DetectorTests.events(a) != DetectorTests.events(plain))
    // One jitter scale for the four σ (the test-* goldens pin the draw's stream itself).
    let p = try #require(a.detector?.profile(seed: 7))
    #expect(p.coreSigma / DetectorProfile.daylight.coreSigma == p.faceSigma / DetectorProfile.daylight.faceSigma)
  }

  /// 2,000 seeds: every figure inside the ranges of docs/SCENARIOS.md, the σ ratios kept, one
  /// confidence shift for the four means, and the ranges used (not a constant).
  @Test(arguments: [("daylight", DetectorProfile.daylight), ("poor_light", DetectorProfile.poorLight), ("noisy", DetectorProfile.noisy)])
  func everyDrawIsInsideTheDocumentedRanges(name: String, base: DetectorProfile) {
    var ks: [Double] = []
    for seed in UInt64(0)..<2000 {
      let p = DetectorRandomisation.draw(base, seed: seed)
      let k = p.coreSigma / base.coreSigma
      ks.append(k)
      #expect((0.5...1.5).contains(k))
      for (a, b) in [(p.faceSigma, base.faceSigma), (p.middleSigma, base.middleSigma), (p.extremitySigma, base.extremitySigma)] {
        #expect(abs(a / b - k) < 1e-12)
      }
      #expect(abs(p.rho - base.rho) <= 0.15 + 1e-12 && p.rho <= 0.95)
      #expect((0.5...2).contains(p.outlierRate / base.outlierRate))
      #expect((0.5...2).contains(p.swapRate / base.swapRate))
      #expect((0.8...1.2).contains(p.outlierMin / base.outlierMin))
      #expect(p.outlierMax >= p.outlierMin && p.outlierMax <= base.outlierMax * 1.2)
      let c = p.confCore - base.confCore
      #expect(abs(c) <= 0.05 + 1e-12)
      #expect(abs((p.confFace - base.confFace) - c) < 1e-12 && abs((p.confExtremity - base.confExtremity) - c) < 1e-12)
      #expect((0.75...1.25).contains(p.confSigma / base.confSigma))
      #expect(abs(p.confRho - base.confRho) <= 0.1 + 1e-12)
      #expect((0.5...2).contains(p.lumaSigma / base.lumaSigma))
    }
    // The draw spans its range (uniform: the extremes of 2,000 draws lie near the ends).
    #expect(ks.min()! < 0.55 && ks.max()! > 1.45, "\(name)")
  }

  @Test func aFigureSetByNameIsKeptAndMovesNoOtherDraw() throws {
    let free = try #require(try Self.scenario("detector: {profile: poor_light, randomise: true}\n").detector?.profile(seed: 7))
    let set = try #require(
      try Self.scenario("detector: {profile: poor_light, randomise: true, core_sigma: 0.02, luma_sigma: 1}\n").detector?.profile(seed: 7))
    #expect(set.coreSigma == 0.02 && set.lumaSigma == 1)
    var expected = free
    expected.coreSigma = 0.02
    expected.lumaSigma = 1
    #expect(set == expected)
  }

  @Test func noiseFreeRemovesTheRandomisedProfileToo() throws {
    let s = try Self.scenario("detector: {profile: noisy, randomise: true}\n")
    #expect(s.noiseFree.detector?.profile(seed: 7) == nil)
  }

  /// `noisy`: about 1 % of the frame between delivered frames for the body and the face.
  @Test func theNoisyProfileJittersAboutOnePercentOfTheFrameFaceIncluded() throws {
    let s = try Self.scenario("detector: {profile: noisy, outlier_rate: 0, swap_rate: 0}\n", duration: 300_000)
    let frames = DetectorTests.events(s)
    func diffSD(_ f: (JSONObject) -> Double?) -> Double {
      let v = frames.compactMap(f)
      let d = zip(v, v.dropFirst()).map { $1 - $0 }
      return (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
    }
    let shoulder = diffSD { DetectorTests.joint($0, "leftShoulder")?[0] }
    let nose = diffSD { DetectorTests.face($0)?["nose_tip"]?.objectValue?["x"]?.doubleValue }
    for v in [shoulder, nose] { #expect((0.0085...0.0115).contains(v), "\(v)") }
    // Daylight is about a tenth of that for the face.
    let day = try Self.scenario("detector: {profile: daylight, outlier_rate: 0, swap_rate: 0}\n", duration: 300_000)
    let dayFrames = DetectorTests.events(day)
    let v = dayFrames.compactMap { DetectorTests.face($0)?["nose_tip"]?.objectValue?["x"]?.doubleValue }
    let d = zip(v, v.dropFirst()).map { $1 - $0 }
    let dayNose = (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
    #expect(dayNose < 0.0015, "\(dayNose)")
  }

  @Test(arguments: [
    ("detector: {profile: daylight, randomise: 3}\n", "4:42:", "expected true or false"),
    ("detector: {profile: noisey}\n", "4:21:", "did you mean \"noisy\""),
  ])
  func badRandomiseValuesAreRefusedAtTheirPlace(yaml: String, place: String, message: String) {
    #expect {
      _ = try Self.scenario(yaml)
    } throws: { e in
      let d = String(describing: e)
      return d.contains("t.scenario.yaml:\(place)") && d.contains(message)
    }
  }
}
