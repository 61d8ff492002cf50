import Testing

@testable import JustPhotoScenarios

/// The generators' own `_log` and `_cos` stop their series once the remaining terms can no
/// longer change the sum's bits. Recordings are byte-identical only if that is exact: these
/// tests hold them to the full-length series (the functions as they were before the early
/// stop), bit for bit.
@Suite("the generators' log and cos")
struct ElementaryFunctionTests {
  /// `_log` with all 30 terms of its series.
  static func fullLog(_ x: Double) -> Double {
    var m = x
    var e = 0.0
    while m > 1.5 { m /= 2; e += 1 }
    while m < 0.75 { m *= 2; e -= 1 }
    let y = (m - 1) / (m + 1)
    let y2 = y * y
    var term = y
    var sum = 0.0
    var k = 1.0
    while k < 60 {
      sum += term / k
      term *= y2
      k += 2
    }
    return 2 * sum + e * 0.693_147_180_559_945_3
  }

  /// `_cos` with all 20 terms of its series.
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

  @Test("_log gives the full series' bits on every generator input: unit draws, 1 − unit, the clamp, edges")
  func logIsTheFullSeries() {
    var rng = SplitMix64(seed: 20_261_129)
    var inputs: [Double] = [1e-300, 1e-17, 0.5, 0.75, 0.75.nextDown, 0.75.nextUp, 1, 1.nextDown, 1.nextUp, 1.5, 1.5.nextUp, 2, 1e15]
    for _ in 0..<200_000 { inputs.append(max(rng.unit(), 1e-300)) }
    for _ in 0..<50_000 { inputs.append(1 - rng.unit()) }
    for _ in 0..<50_000 { inputs.append(Double(rng.next() >> 11) * 0x1.0p-40) }
    var differ = 0
    for x in inputs where _log(x).bitPattern != Self.fullLog(x).bitPattern { differ += 1 }
    #expect(differ == 0, "\(differ) of \(inputs.count) inputs differ")
  }

  @Test("_cos (and _sin through it) gives the full series' bits over whole turns and beyond")
  func cosIsTheFullSeries() {
    var rng = SplitMix64(seed: 7)
    var inputs: [Double] = [0, -0.0, Double.pi, -Double.pi, Double.pi / 2, -Double.pi / 2, 2 * Double.pi, 1e-9, 1e9]
    for _ in 0..<200_000 { inputs.append(2 * Double.pi * rng.unit()) }
    for _ in 0..<50_000 { inputs.append((rng.unit() - 0.5) * 400) }
    var differ = 0
    for x in inputs where _cos(x).bitPattern != Self.fullCos(x).bitPattern { differ += 1 }
    #expect(differ == 0, "\(differ) of \(inputs.count) inputs differ")
  }
}
