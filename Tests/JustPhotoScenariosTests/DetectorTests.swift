import CanonicalJSON
import Foundation
import Testing

@testable import JustPhotoScenarios

/// The `detector:` key (issue 22 item 2, `DetectorModel`): frame rates, AR(1) jitter per
/// group, fluctuating confidence, luma noise, determinism, independence from the other noise,
/// and its parse errors at line:column.
@Suite("detector model")
struct DetectorTests {
  static let file = "Recordings/t.scenario.yaml"

  static func scenario(_ body: String, duration: Int = 10000, seed: Int = 7) throws(ScenarioError) -> Scenario {
    let text = "name: t\nduration_ms: \(duration)\nseed: \(seed)\n\(body)"
    return try Scenario.parse(bytes: Array(text.utf8), file: file)
  }

  static func events(_ s: Scenario, kind: String = "landmarks") -> [JSONObject] {
    var out: [JSONObject] = []
    var stream = s.events()
    while let e = stream.next() {
      if e.line["kind"] == .string(kind) { out.append(e.line) }
    }
    return out
  }

  static func joint(_ f: JSONObject, _ name: String) -> [Double]? {
    f["body"]?.objectValue?[name]?.arrayValue?.compactMap(\.doubleValue)
  }

  static func face(_ f: JSONObject) -> JSONObject? { f["faces"]?.arrayValue?.first?.objectValue }

  static func eyeDY(_ f: JSONObject) -> Double? {
    guard let face = face(f), let r = face["right_eye"]?.objectValue?["y"]?.doubleValue,
      let l = face["left_eye"]?.objectValue?["y"]?.doubleValue
    else { return nil }
    return r - l
  }

  /// Sample standard deviation and lag-1 autocorrelation.
  static func stats(_ v: [Double]) -> (sd: Double, r1: Double) {
    let mean = v.reduce(0, +) / Double(v.count)
    let d = v.map { $0 - mean }
    let variance = d.map { $0 * $0 }.reduce(0, +) / Double(d.count)
    let lag = zip(d, d.dropFirst()).map { $0 * $1 }.reduce(0, +) / Double(d.count - 1)
    return (variance.squareRoot(), lag / variance)
  }

  @Test func theSameSeedGivesTheSameBytesAndAnotherSeedOthers() throws {
    let body = "detector: {profile: poor_light}\nluma: {every: 3, w: 18, h: 32}\n"
    let a = try Self.scenario(body).generate().lines
    #expect(a == (try Self.scenario(body).generate().lines))
    let c = try Self.scenario(body, seed: 8).generate().lines
    #expect(a.count == c.count && a.dropFirst() != c.dropFirst())
  }

  @Test func deliveredFramesAreEveryThirdDetectorFrame() throws {
    let s = try Self.scenario("detector: {profile: daylight}\nluma: {every: 2, w: 9, h: 16}\n", duration: 1000)
    let frames = Self.events(s)
    #expect(frames.map { $0["t"]?.doubleValue ?? -1 } == (0...10).map { Double($0 * 100) })
    #expect(frames.map { $0["frame"]?.doubleValue ?? -1 } == (0...10).map { Double($0 * 3) })
    #expect(s.fps == 10 && s.header["fps"] == .number(10))
    // `luma.every` counts delivered frames: ids 0, 6, 12, …
    #expect(Self.events(s, kind: "luma").map { $0["frame"]?.doubleValue ?? -1 } == (0...5).map { Double($0 * 6) })
    // 15 of 30 fps: t = round(k·1000/30) for even k.
    let half = try Self.scenario("detector: {profile: daylight, delivered_fps: 15}\n", duration: 200)
    #expect(Self.events(half).map { $0["t"]?.doubleValue ?? -1 } == [0, 67, 133, 200])
  }

  /// 20,000 detector frames of a still subject, all delivered, without outliers or swaps: the
  /// empirical spread and lag-1 autocorrelation of each group's jitter match the profile.
  @Test(arguments: [("daylight", DetectorProfile.daylight), ("poor_light", DetectorProfile.poorLight)])
  func stationarySpreadAndAutocorrelationMatchTheProfile(name: String, p: DetectorProfile) throws {
    let s = try Self.scenario(
      "detector: {profile: \(name), delivered_fps: 30, outlier_rate: 0, swap_rate: 0}\n", duration: 666_667)
    let frames = Self.events(s)
    #expect(frames.count == 20_001)
    let groups: [(String, (JSONObject) -> Double?, Double)] = [
      ("core", { Self.joint($0, "leftShoulder")?[0] }, p.coreSigma),
      ("middle", { Self.joint($0, "rightKnee")?[1] }, p.middleSigma),
      ("extremity", { Self.joint($0, "leftWrist")?[0] }, p.extremitySigma),
      ("face", { Self.face($0)?["left_eye"]?.objectValue?["y"]?.doubleValue }, p.faceSigma),
    ]
    for (group, value, sigma) in groups {
      let (sd, r1) = Self.stats(frames.compactMap(value))
      #expect(abs(sd / sigma - 1) < 0.05, "\(name) \(group): sd \(sd) vs σ \(sigma)")
      #expect(abs(r1 - p.rho) < 0.03, "\(name) \(group): lag-1 \(r1) vs ρ \(p.rho)")
    }
    let conf = frames.compactMap { Self.joint($0, "rightWrist")?[2] }
    #expect(abs(Self.stats(conf).r1 - p.confRho) < 0.03)
  }

  @Test func theEyeLineTiltsFromFrameToFrame() throws {
    let noisy = Self.events(try Self.scenario("detector: {profile: daylight}\n")).compactMap(Self.eyeDY)
    #expect(Set(noisy).count > noisy.count / 2, "\(Set(noisy).count) distinct eye-line dy in \(noisy.count) frames")
    let clean = Self.events(try Self.scenario("fps: 10\n")).compactMap(Self.eyeDY)
    #expect(Set(clean).count == 1)
  }

  @Test func wristsDropUnderTheEnginesHalfConfidenceMoreInPoorLight() throws {
    func under(_ profile: String) throws -> Int {
      let frames = Self.events(try Self.scenario("detector: {profile: \(profile)}\n", duration: 600_000))
      return frames.flatMap { [Self.joint($0, "leftWrist")?[2], Self.joint($0, "rightWrist")?[2]] }.filter { ($0 ?? 1) < 0.5 }.count
    }
    let day = try under("daylight"), poor = try under("poor_light")
    #expect(day > 0 && day < 200, "daylight: \(day) of 12,002 wrist readings under 0.5")
    #expect(poor > 5 * day, "poor light: \(poor), daylight: \(day)")
  }

  @Test func lumaPlanesCarrySensorNoise() throws {
    let s = try Self.scenario("detector: {profile: poor_light}\nluma: {every: 1, w: 30, h: 40}\n", duration: 500)
    let planes = Self.events(s, kind: "luma").compactMap { $0["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } }
    #expect(planes.count == 6 && Set(planes).count == 6)
    var clean = s
    clean.detector?.profile = nil
    let flat = Self.events(clean, kind: "luma").compactMap { $0["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } }
    #expect(Set(flat).count == 1)
    let d = zip(planes[0], flat[0]).map { Double($0) - Double($1) }
    let sd = (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
    #expect(abs(sd - 6) < 0.6, "luma noise sd \(sd)")
  }

  @Test func theDetectorMovesNoOtherNoiseAndItsNoiseFreeFormIsTheModel() throws {
    let nuisance = "noise:\n  dropouts: {per_min: 6, min_ms: 130, max_ms: 700}\n  passersby: {per_min: 6, min_ms: 1500, max_ms: 4000}\n"
    let plain = Self.events(try Self.scenario("fps: 10\n" + nuisance, duration: 60000))
    let s = try Self.scenario("fps: 10\ndetector: {profile: daylight}\n" + nuisance, duration: 60000)
    let detected = Self.events(s)
    #expect(plain.count == detected.count)
    #expect(plain.map { $0["people"] } == detected.map { $0["people"] })
    #expect(plain.contains { $0["people"] == .number(2) } && plain.contains { $0["people"] == .number(0) })
    // The ground truth's subject: the same times, the model's numbers.
    let truth = Self.events(try Self.scenario("fps: 10\n", duration: 60000))
    let free = Self.events(s.noiseFree)
    #expect(truth.map { $0["body"] } == free.map { $0["body"] } && truth.map { $0["faces"] } == free.map { $0["faces"] })
    #expect(free.map { $0["frame"]?.doubleValue ?? -1 } == (0..<free.count).map { Double($0 * 3) })
  }

  @Test(arguments: [
    ("detector: {profile: dusk}\n", "4:21:", "unknown detector profile \"dusk\"; expected one of: daylight, poor_light"),
    ("detector: {rate_fps: 30}\n", "4:11:", "missing key \"profile\""),
    ("detector: {profile: daylight, rate_fps: 0}\n", "4:41:", "ScenarioLimits.detectorRateFpsMax"),
    ("detector: {profile: daylight, rate_fps: 25}\n", "4:41:", "the default delivered_fps 10"),
    ("detector: {profile: daylight, delivered_fps: 7}\n", "4:46:", "dividing rate_fps 30"),
    ("detector: {profile: daylight, core_sigma: 0.5}\n", "4:43:", "ScenarioLimits.detectorSigmaMax"),
    ("detector: {profile: daylight, rho: 1}\n", "4:36:", "ScenarioLimits.detectorRhoMax"),
    ("detector: {profile: daylight, luma_sigma: 100}\n", "4:43:", "ScenarioLimits.detectorLumaSigmaMax"),
    ("detector: {profile: daylight, outlier_min: 0.2}\n", "4:44:", "outlier_min ≤ outlier_max"),
    ("detector: {profile: daylight, blur: 1}\n", "4:31:", "unknown detector key"),
    ("fps: 15\ndetector: {profile: daylight}\n", "4:6:", "fps 15 conflicts with detector (line 5)"),
    ("frames: {every_ms: 100}\ndetector: {profile: daylight}\n", "4:9:", "frames and detector (line 5)"),
    ("noise: {landmark_sigma: 0.003}\ndetector: {profile: daylight}\n", "4:25:", "noise.landmark_sigma and detector (line 5)"),
  ])
  func badDetectorValuesAreRefusedAtTheirLineAndColumn(yaml: String, place: String, message: String) {
    #expect {
      _ = try Self.scenario(yaml)
    } throws: { e in
      let d = String(describing: e)
      return d.contains("t.scenario.yaml:\(place)") && d.contains(message)
    }
  }

  @Test func fpsEqualToDeliveredIsAccepted() throws {
    let s = try Self.scenario("fps: 10\ndetector: {profile: daylight, core_sigma: 0.003}\n")
    #expect(s.fps == 10 && s.detector?.stride == 3 && s.detector?.profile?.coreSigma == 0.003)
  }
}
