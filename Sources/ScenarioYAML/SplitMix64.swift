/// A small seeded PRNG (SplitMix64): the only randomness the scenario generators, the lab's
/// samplers and the input mutants use, so a seed fully determines what they make on every
/// machine. Every engine's scenarios share it (it was Just Photo's, and PixScan kept a copy).
/// Inlinable: the generators call it per sample from other modules.
@frozen public struct SplitMix64: RandomNumberGenerator, Sendable {
  @usableFromInline var state: UInt64
  /// A generator seeded with `seed`.
  @inlinable public init(seed: UInt64) { state = seed }
  /// The next 64 random bits.
  @inlinable public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A uniform double in [0, 1) built from the top 53 bits.
  @inlinable public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
  /// A uniform integer in 0..<n (n > 0).
  @inlinable public mutating func below(_ n: UInt64) -> UInt64 { next() % n }
  /// A normal deviate (Box–Muller, one value per call).
  @inlinable public mutating func gaussian(sigma: Double) -> Double {
    guard sigma > 0 else { return 0 }
    let u1 = max(unit(), 1e-300)
    let u2 = unit()
    return sigma * (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
  }
}

// Deterministic elementary functions without Foundation: the generator must give the same bits
// on every platform, so it avoids libm differences by using series good to ~1e-15.

/// The natural logarithm by a series (the same bits on every platform; the generators' own).
@inlinable @inline(__always) public func _log(_ x: Double) -> Double {
  // log(x) = 2 atanh((x-1)/(x+1)) after range reduction by powers of two.
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

/// The cosine by a series (the same bits on every platform; the generators' own).
@inlinable @inline(__always) public func _cos(_ x: Double) -> Double {
  // fmod is exact and returns x itself when |x| < 2π (Box–Muller's angles): skip the call.
  var r = abs(x) < 2 * Double.pi ? x : x.truncatingRemainder(dividingBy: 2 * Double.pi)
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
