import CanonicalJSON
import ScenarioYAML
import PixScanEngine
import Yams

/// One input event of a scenario: time (ms from the start), kind and fields (the recording's
/// content), and the script line it came from.
public struct PixScenarioEvent: Equatable, Sendable {
  /// ms from the start.
  public var t: Int64
  /// A `PixInputKind` raw value.
  public var kind: String
  /// The event's fields (without `t` and `kind`).
  public var fields: JSONObject
  /// The scenario line that produced it.
  public var line: Int?

  /// An event.
  public init(t: Int64, kind: String, fields: JSONObject, line: Int? = nil) {
    self.t = t
    self.kind = kind
    self.fields = fields
    self.line = line
  }
}

/// A PixScan scenario (`engine: pixscan`): a library description, a triage script and the
/// author's `expect:` rules. `parse` turns the YAML into the time-ordered input events.
/// The format is described in docs/PIXSCAN.md ("JustPhotoScenarios").
public struct PixScenario: Sendable {
  /// The file name used in messages.
  public var file: String
  /// The scenario's name.
  public var name: String
  /// What it shows, in the author's words.
  public var notes: String?
  /// The session length: `duration_ms`, or the last event's time.
  public var durationMs: Int64
  /// The library description.
  public var library: PixLibrarySpec
  /// The input events in time order (equal times keep script order).
  public var events: [PixScenarioEvent]
  /// The author's rules.
  public var expectations: [PixExpectation]
  /// The SHA-256 of what the scenario means (without `expect:`): the header's
  /// `generator_sha256`, which tells a stale recording (`PixScenario+Header.swift`).
  public var sha256: String

  /// The top-level keys.
  public static let keys = ["engine", "name", "notes", "duration_ms", "library", "script", "expect"]
  /// Keys of `library`.
  public static let libraryKeys = ["count", "screenshots", "from", "to", "seed", "prefix", "assets"]
  /// Script-only step kinds besides the input kinds.
  public static let scriptKinds = ["change_library", "run"]

  /// Parses a scenario; any problem is an error naming `file`, the line and the expectation.
  public static func parse(yaml text: String, file: String) throws(PixScenarioError) -> PixScenario {
    guard text.utf8.count <= PixScenarioLimits.documentBytesMax else {
      throw PixScenarioError(
        file: file, "\(text.utf8.count) bytes, more than \(PixScenarioLimits.documentBytesMax) (PixScenarioLimits.documentBytesMax)")
    }
    let node = try composeYAML(text, file: file, rules: PixScenarioLimits.yamlRules)
    let root = YNode(node: node, file: file, path: "")
    let top = try root.mapping(allowed: keys)
    func v(_ k: String) -> YNode? { top.first(where: { $0.key == k })?.value }
    func need(_ k: String) throws(PixScenarioError) -> YNode {
      guard let n = v(k) else { throw root.error("missing key \"\(k)\"; a PixScan scenario has \(keys.joined(separator: ", "))") }
      return n
    }
    let engine = try need("engine")
    guard try engine.string() == "pixscan" else { throw engine.error("expected engine: pixscan") }
    let name = try need("name").string()
    let notes = try v("notes").map { n throws(PixScenarioError) in try n.string() }
    let library = try parseLibrary(try need("library"))
    var builder = PixScriptBuilder(model: PixLibraryModel(library))
    try builder.parse(try need("script"))
    let last = builder.events.last?.t ?? 0
    var duration = last
    if let d = v("duration_ms") {
      duration = try d.millis(max: PixScenarioLimits.durationMsMax, maxName: "PixScenarioLimits.durationMsMax")
      guard duration >= last else { throw d.error("duration_ms \(duration) ends before the last event (t=\(last))") }
    }
    let expect = try v("expect").map { n throws(PixScenarioError) in try PixExpectation.parseBlock(n, duration: duration) } ?? []
    return PixScenario(
      file: file, name: name, notes: notes, durationMs: duration, library: library, events: builder.events, expectations: expect,
      sha256: semanticSHA256(root: node))
  }

  static func parseLibrary(_ n: YNode) throws(PixScenarioError) -> PixLibrarySpec {
    let m = try n.mapping(allowed: libraryKeys, what: "library key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    var spec = PixLibrarySpec(count: 0)
    if let c = v("count") {
      let count = try c.int()
      guard count >= 0, count <= Int64(PixScenarioLimits.libraryMax) else {
        throw c.error("expected a count 0…\(PixScenarioLimits.libraryMax) (PixScenarioLimits.libraryMax), found \(count)")
      }
      spec.count = Int(count)
    }
    if let s = v("screenshots") {
      let share = try s.double()
      guard share >= 0, share <= 1 else { throw s.error("expected a share of screenshots 0…1, found \(share)") }
      spec.screenshotShare = share
    }
    spec.fromMs = try v("from").map { d throws(PixScenarioError) in try date(d) } ?? 1_767_225_600_000  // 2026-01-01
    spec.toMs = try v("to").map { d throws(PixScenarioError) in try date(d) } ?? spec.fromMs
    guard spec.toMs >= spec.fromMs else { throw v("to")!.error("expected to ≥ from") }
    if let s = v("seed") {
      let seed = try s.int()
      guard seed >= 0 else { throw s.error("expected a seed ≥ 0, found \(seed)") }
      spec.seed = UInt64(seed)
    }
    if let p = v("prefix") {
      let prefix = try p.string()
      guard !prefix.isEmpty, prefix.utf8.count <= 64 else { throw p.error("expected a prefix of 1…64 bytes") }
      spec.prefix = prefix
    }
    if let a = v("assets") {
      var ids = Set<String>()
      for item in try a.sequence(max: PixScenarioLimits.assetsMax, bound: "PixScenarioLimits.assetsMax") {
        let asset = try explicitAsset(item)
        guard ids.insert(asset.id).inserted else { throw item.error("asset id \"\(asset.id)\" listed twice") }
        spec.assets.append(asset)
      }
    }
    guard spec.count + spec.assets.count <= PixScenarioLimits.libraryMax else {
      throw n.error("\(spec.count + spec.assets.count) photos, more than \(PixScenarioLimits.libraryMax) (PixScenarioLimits.libraryMax)")
    }
    return spec
  }

  /// `{id, created: DATE|ms, screenshot: BOOL, bytes: N}` (screenshot and bytes optional).
  static func explicitAsset(_ n: YNode) throws(PixScenarioError) -> PixAsset {
    let m = try n.mapping(allowed: ["id", "created", "screenshot", "bytes"], what: "asset key")
    func v(_ k: String) -> YNode? { m.first(where: { $0.key == k })?.value }
    guard let idNode = v("id"), let createdNode = v("created") else { throw n.error("an asset needs id and created") }
    let id = try idNode.string()
    guard !id.isEmpty, id.utf8.count <= PixLimits.idBytesMax else {
      throw idNode.error("expected a photo id of 1…\(PixLimits.idBytesMax) bytes (PixLimits.idBytesMax)")
    }
    let bytes = try v("bytes").map { b throws(PixScenarioError) in try b.int() } ?? 2_000_000
    guard bytes >= 0, bytes <= PixLimits.assetBytesMax else { throw v("bytes")!.error("expected 0…\(PixLimits.assetBytesMax) bytes (PixLimits.assetBytesMax)") }
    return PixAsset(
      id: id, created: try date(createdNode), screenshot: try v("screenshot").map { b throws(PixScenarioError) in try b.bool() } ?? false,
      bytes: bytes)
  }

  /// A date: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or an integer of ms since 1970.
  static func date(_ n: YNode) throws(PixScenarioError) -> Int64 {
    if case .int(let i) = try n.scalar() {
      guard abs(i) <= PixLimits.createdMagnitudeMax else { throw n.error("expected |ms| ≤ 2^53 (PixLimits.createdMagnitudeMax)") }
      return i
    }
    let s = try n.string()
    guard let ms = PixDate.millis(s) else { throw n.error("expected a date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ, found \"\(s)\"") }
    return ms
  }
}
