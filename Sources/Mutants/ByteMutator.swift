import ScenarioYAML

/// Deterministic mutants of an input file, for the decoders' robustness tests (issue 12).
///
/// Each mutant applies one to three edits drawn from a seeded `SplitMix64`: bit flips,
/// "interesting" bytes, truncation, inserted bytes, deleted or duplicated spans, and huge or
/// odd numbers spliced over a run of digits (`w: 160` → `w: 4294967296`). The same seed gives
/// the same mutants on every machine, so a failure names its mutant by index.
public struct ByteMutator {
  var rng: SplitMix64

  /// Numbers spliced over digit runs: type limits and their neighbours, overflow bait for
  /// `w·h`, sizes, times and counts, and forms a JSON or YAML reader may treat specially.
  public static let oddNumbers = [
    "0", "-1", "-0", "255", "256", "4096", "65536", "2147483648", "4294967296", "1099511627776",
    "9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "1e308", "1e999", "-1e999", "5e-324", "0.1e-7", "1.5", "NaN", "Infinity",
    "0x7fffffff", "99999999999999999999999999999999",
  ]
  /// Single bytes worth trying in any position: structure characters of JSON and YAML,
  /// control characters, and bytes that are invalid or special in UTF-8.
  static let oddBytes: [UInt8] = Array("{}[]\":,-&*!|>#'\\ \n\t0".utf8) + [0x00, 0x7F, 0x80, 0xC0, 0xFF, 0xFE]

  public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

  /// A uniform integer in `0..<n` (n > 0).
  public mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

  /// `input` with one to three random edits.
  public mutating func mutate(_ input: [UInt8]) -> [UInt8] {
    var out = input
    for _ in 0...below(3) { edit(&out) }
    return out
  }

  /// Applies one random edit to `bytes`.
  public mutating func edit(_ bytes: inout [UInt8]) {
    guard !bytes.isEmpty else {
      bytes = Array(Self.oddNumbers[below(Self.oddNumbers.count)].utf8)
      return
    }
    let i = below(bytes.count)
    switch below(8) {
    case 0: bytes[i] ^= 1 << UInt8(below(8))
    case 1: bytes[i] = Self.oddBytes[below(Self.oddBytes.count)]
    case 2: bytes.removeSubrange(below(bytes.count)...)
    case 3: bytes.insert(contentsOf: (0...below(4)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: i)
    case 4: bytes.removeSubrange(i..<min(bytes.count, i + 1 + below(16)))
    case 5:
      let span = bytes[i..<min(bytes.count, i + 1 + below(64))]
      bytes.insert(contentsOf: Array(span), at: below(bytes.count + 1))
    default: spliceNumber(&bytes, near: i)
    }
  }

  /// Replaces the run of digits at or after `start` (wrapping around) with an odd number.
  mutating func spliceNumber(_ bytes: inout [UInt8], near start: Int) {
    let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
    let order = Array(bytes.indices[start...]) + Array(bytes.indices[..<start])
    guard let first = order.first(where: { isDigit(bytes[$0]) }) else {
      bytes[start] ^= 0x01
      return
    }
    var lo = first, hi = first + 1
    while lo > 0, isDigit(bytes[lo - 1]) || bytes[lo - 1] == UInt8(ascii: "-") { lo -= 1 }
    while hi < bytes.count, isDigit(bytes[hi]) || bytes[hi] == UInt8(ascii: ".") { hi += 1 }
    bytes.replaceSubrange(lo..<hi, with: Array(Self.oddNumbers[below(Self.oddNumbers.count)].utf8))
  }
}
