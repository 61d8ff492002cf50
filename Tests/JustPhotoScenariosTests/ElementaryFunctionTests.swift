import ScenarioYAML
import Testing

@testable import JustPhotoScenarios

/// The generator's `_cos` skips fmod when |x| < 2π (Box–Muller's angles; fmod was 2% of
/// `verify`'s CPU through the staleness check's regeneration, issue 38 item 5). Every recording
/// depends on its bits, so it must equal the function as it was on every input: compared here
/// bit for bit with it (fmod always), and a gaussian draw with the draw made through it.
@Suite("Generator cosine")
struct ElementaryFunctionTests {
  /// `_cos` as it was: fmod always, then 20 terms of the series.
  static func fullCos(_ x: Double) -> Double {
    var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if r > Double.pi { r -= 2 * Double.pi }
    if r < -Double.pi { r += 2 * Double.pi }
    let r2 = r * r
    var term = 1.0
    var sum = 1.0
    var n = 0.0
    while n < 40 {
      term *= -r2 / ((n + 1) * (n + 2))
      sum += term
      n += 2
    }
    return sum
  }

  /// The inputs the generators give (Box–Muller angles, `_sin`'s shifted angles, scene
  /// angles beyond 2π) and the edges, 200,000 of each kind.
  @Test func cosineWithoutFmodGivesTheSameBits() {
    var rng = SplitMix64(seed: 38)
    var cosInputs: [Double] = [0, -0.0, .pi, -.pi, 2 * .pi, -2 * .pi, .pi / 2, -.pi / 2, 1e-9, 7, -7, 100.25, 3 * .pi]
    for _ in 0..<200_000 {
      let u = rng.unit()
      cosInputs.append(2 * Double.pi * u)
      cosInputs.append(2 * Double.pi * u - Double.pi / 2)
      cosInputs.append((u - 0.5) * 40)
    }
    var mismatches = 0
    for x in cosInputs where _cos(x).bitPattern != Self.fullCos(x).bitPattern { mismatches += 1 }
    #expect(mismatches == 0, "of \(cosInputs.count) inputs")
  }

  /// A gaussian draw is the draw made with fmod: the same bits, draw after draw.
  @Test func gaussianDrawsAreTheFmodDraws() {
    var a = SplitMix64(seed: 7)
    var b = SplitMix64(seed: 7)
    var mismatches = 0
    for i in 0..<100_000 {
      let sigma = i % 3 == 0 ? 0.003 : 0.5
      let fast = a.gaussian(sigma: sigma)
      let u1 = max(b.unit(), 1e-300)
      let u2 = b.unit()
      let full = sigma * (-2 * _log(u1)).squareRoot() * Self.fullCos(2 * Double.pi * u2)
      if fast.bitPattern != full.bitPattern { mismatches += 1 }
    }
    #expect(mismatches == 0)
  }
}
