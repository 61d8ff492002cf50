import PixScanEngine
import ScenarioYAML

/// A scenario's library description: generated photos (count, screenshot share, creation
/// dates in [from, to], seed, id prefix) plus explicitly listed assets.
public struct PixLibrarySpec: Equatable, Sendable {
  /// Generated photos.
  public var count: Int
  /// The share of screenshots among them, 0…1.
  public var screenshotShare: Double
  /// Earliest creation date, ms since 1970 (UTC).
  public var fromMs: Int64
  /// Latest creation date, ms since 1970 (UTC).
  public var toMs: Int64
  /// The generator's seed.
  public var seed: UInt64
  /// Generated ids are the prefix and a zero-padded number (`IMG_0001`).
  public var prefix: String
  /// Assets listed in the file, added as written.
  public var assets: [PixAsset]

  /// A description.
  public init(
    count: Int, screenshotShare: Double = 0, fromMs: Int64 = 0, toMs: Int64 = 0, seed: UInt64 = 1, prefix: String = "IMG_",
    assets: [PixAsset] = []
  ) {
    self.count = count
    self.screenshotShare = screenshotShare
    self.fromMs = fromMs
    self.toMs = toMs
    self.seed = seed
    self.prefix = prefix
    self.assets = assets
  }
}

/// The library as the scenario's script changes it: generated once from the spec; photos
/// are added and removed by `change_library` steps (a delete batch the script answers ok does
/// not change it: the author removes those ids when a later snapshot must lack them).
///
/// Generated ids are numbered newest first: `IMG_0001` is the newest generated photo, so with
/// the `all` filter and nothing processed the triage shows them in id order (equal dates keep
/// their numbering, which is also the engine's tie order). Photos added later get the next
/// numbers and dates after every existing one (one minute apart).
public struct PixLibraryModel: Sendable {
  /// The current assets, in id order of creation.
  public private(set) var assets: [PixAsset]
  var rng: SplitMix64
  var next: Int
  let spec: PixLibrarySpec
  var snapshots = 0

  /// Generates the library of `spec`.
  public init(_ spec: PixLibrarySpec) {
    self.spec = spec
    rng = SplitMix64(seed: spec.seed)
    var drawn: [(created: Int64, screenshot: Bool, bytes: Int64)] = []
    drawn.reserveCapacity(spec.count)
    let spanSeconds = UInt64(max(0, (spec.toMs - spec.fromMs) / 1000)) + 1
    for _ in 0..<spec.count {
      let created = spec.fromMs + Int64(rng.below(spanSeconds)) * 1000
      let shot = rng.unit() < spec.screenshotShare
      let bytes = shot ? 150_000 + Int64(rng.below(1_350_000)) : 1_500_000 + Int64(rng.below(4_500_000))
      drawn.append((created, shot, bytes))
    }
    // Newest first; equal dates keep their draw order (a stable sort).
    let order = drawn.indices.sorted { a, b in drawn[a].created != drawn[b].created ? drawn[a].created > drawn[b].created : a < b }
    assets = []
    assets.reserveCapacity(spec.count + spec.assets.count)
    for (n, i) in order.enumerated() {
      assets.append(PixAsset(id: Self.id(spec.prefix, n + 1, count: spec.count), created: drawn[i].created, screenshot: drawn[i].screenshot, bytes: drawn[i].bytes))
    }
    assets += spec.assets
    next = spec.count + 1
  }

  /// `prefix` + `n` zero-padded to the width of `count` (at least 4 digits).
  public static func id(_ prefix: String, _ n: Int, count: Int) -> String {
    let width = max(4, String(count).count)
    let digits = String(n)
    return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  /// Removes `ids`; returns the first id not in the library (nothing removed then).
  public mutating func remove(_ ids: [String]) -> String? {
    let present = Set(assets.map(\.id))
    if let missing = ids.first(where: { !present.contains($0) }) { return missing }
    let gone = Set(ids)
    assets.removeAll { gone.contains($0.id) }
    return nil
  }

  /// Adds `count` new photos, newer than every existing one.
  public mutating func add(_ count: Int) {
    var newest = assets.map(\.created).max() ?? spec.toMs
    for _ in 0..<count {
      newest += 60_000
      let shot = rng.unit() < spec.screenshotShare
      let bytes = shot ? 150_000 + Int64(rng.below(1_350_000)) : 1_500_000 + Int64(rng.below(4_500_000))
      assets.append(PixAsset(id: Self.id(spec.prefix, next, count: spec.count), created: newest, screenshot: shot, bytes: bytes))
      next += 1
    }
  }

  /// The assets as one fetch returns them: a seeded shuffle (the engine sorts them itself).
  public mutating func snapshot() -> [PixAsset] {
    snapshots += 1
    var r = SplitMix64(seed: spec.seed ^ (0xA5A5_0000 &+ UInt64(snapshots)))
    var out = assets
    if out.count > 1 {
      for i in stride(from: out.count - 1, to: 0, by: -1) {
        out.swapAt(i, Int(r.below(UInt64(i + 1))))
      }
    }
    return out
  }
}

/// Dates in scenario files: `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM:SSZ`.
enum PixDate {
  /// ms since 1970 for `text`, nil when it is not such a date.
  static func millis(_ text: String) -> Int64? {
    let u = Array(text.utf8)
    func num(_ from: Int, _ len: Int) -> Int64? {
      guard from + len <= u.count else { return nil }
      var v: Int64 = 0
      for b in u[from..<from + len] {
        guard b >= 0x30, b <= 0x39 else { return nil }
        v = v * 10 + Int64(b - 0x30)
      }
      return v
    }
    guard u.count == 10 || u.count == 20, let y = num(0, 4), u[4] == 0x2D, let m = num(5, 2), u[7] == 0x2D, let d = num(8, 2),
      (1...12).contains(m), (1...31).contains(d)
    else { return nil }
    var seconds: Int64 = 0
    if u.count == 20 {
      guard u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A, let hh = num(11, 2), let mm = num(14, 2), let ss = num(17, 2),
        hh < 24, mm < 60, ss < 60
      else { return nil }
      seconds = hh * 3600 + mm * 60 + ss
    }
    return (days(y, m, d) * 86_400 + seconds) * 1000
  }

  /// Days from 1970-01-01 to the civil date (proleptic Gregorian).
  static func days(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }
}
