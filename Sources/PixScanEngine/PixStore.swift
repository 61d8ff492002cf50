import CanonicalJSON

/// What PixScan keeps across a kill: a key-value snapshot, written after each change. The
/// engine is restored from it alone (`PixScanEngine.relaunch`); the library, the undo history,
/// the sheet's selection and pending requests are not in it.
///
/// Keys (all optional when read: a missing key is its empty value): `onboarding_completed`,
/// `filter_mode`, `processed_ids`, `delete_queue`, `recognized_texts` (`{photo, text, t}`
/// entries) and `next_batch` (the number the next delete batch gets, so a batch number is
/// never reused across launches).
public struct PixStore: Equatable, Sendable {
  /// Whether onboarding was completed.
  public var onboarded: Bool
  /// The filter mode.
  public var filter: PixFilter
  /// Processed photo ids (a set; kept in the order they were processed, for stable output).
  public var processed: [String]
  /// The delete queue, in the order photos joined it.
  public var queue: [String]
  /// The recognised texts, oldest first.
  public var texts: [PixTextEntry]
  /// The number of the next delete batch (≥ 1).
  public var nextBatch: Int64

  /// A store; the defaults are a first launch's.
  public init(
    onboarded: Bool = false, filter: PixFilter = .all, processed: [String] = [], queue: [String] = [],
    texts: [PixTextEntry] = [], nextBatch: Int64 = 1
  ) {
    self.onboarded = onboarded
    self.filter = filter
    self.processed = processed
    self.queue = queue
    self.texts = texts
    self.nextBatch = nextBatch
  }

  /// The keys, in the order `json()` writes them.
  public static let keys = ["onboarding_completed", "filter_mode", "processed_ids", "delete_queue", "recognized_texts", "next_batch"]

  /// The snapshot as JSON, keys in `keys` order.
  public func json() -> JSONObject {
    [
      "onboarding_completed": .bool(onboarded),
      "filter_mode": .string(filter.rawValue),
      "processed_ids": .array(processed.map { .string($0) }),
      "delete_queue": .array(queue.map { .string($0) }),
      "recognized_texts": .array(
        texts.map { .object(["photo": .string($0.photo), "text": .string($0.text), "t": .number(Double($0.t))]) }),
      "next_batch": .number(Double(nextBatch)),
    ]
  }

  /// Reads a snapshot: unknown keys, wrong types, duplicate ids and counts or sizes past
  /// `PixLimits` are errors naming the key (checked before anything is allocated).
  public init(json: JSONObject) throws(PixDecodeError) {
    let r = try PixFieldReader(kind: "store", fields: json, allowed: Self.keys)
    self.init()
    if json["onboarding_completed"] != nil { onboarded = try r.bool("onboarding_completed") }
    if json["filter_mode"] != nil { filter = try r.choice("filter_mode", PixFilter.self) }
    if json["processed_ids"] != nil { processed = try Self.ids(r, "processed_ids", max: PixLimits.processedMax, bound: "PixLimits.processedMax") }
    if json["delete_queue"] != nil { queue = try Self.ids(r, "delete_queue", max: PixLimits.queueMax, bound: "PixLimits.queueMax") }
    if json["recognized_texts"] != nil { texts = try Self.texts(r) }
    if json["next_batch"] != nil { nextBatch = try r.int("next_batch", min: 1, max: PixLimits.batchMax, bound: "PixLimits.batchMax") }
  }

  static func ids(_ r: PixFieldReader, _ key: String, max: Int, bound: String) throws(PixDecodeError) -> [String] {
    let list = try r.array(key, max: max, bound: bound)
    var out: [String] = []
    out.reserveCapacity(list.count)
    var seen = Set<String>(minimumCapacity: list.count)
    for (i, v) in list.enumerated() {
      guard case .string(let s) = v else { throw r.error("\(key)[\(i)]", "expected a photo id string, found \(v.typeName)") }
      _ = try PixFieldReader.id(s) { m throws(PixDecodeError) in throw r.error("\(key)[\(i)]", m) }
      guard seen.insert(s).inserted else { throw r.error("\(key)[\(i)]", "photo id \"\(s)\" listed twice") }
      out.append(s)
    }
    return out
  }

  static func texts(_ r: PixFieldReader) throws(PixDecodeError) -> [PixTextEntry] {
    let key = "recognized_texts"
    let list = try r.array(key, max: PixLimits.textsMax, bound: "PixLimits.textsMax")
    var out: [PixTextEntry] = []
    out.reserveCapacity(list.count)
    for (i, v) in list.enumerated() {
      let path = "\(key)[\(i)]"
      guard case .object(let o) = v else { throw r.error(path, "expected an entry {photo, text, t}, found \(v.typeName)") }
      do throws(PixDecodeError) {
        let e = try PixFieldReader(kind: "store", fields: o, allowed: ["photo", "text", "t"])
        let text = try e.text("text")
        guard !text.isEmpty else { throw e.error("text", "expected a non-empty text") }
        out.append(
          PixTextEntry(
            photo: try e.id("photo"), text: text,
            t: try e.int("t", min: 0, max: PixLimits.createdMagnitudeMax, bound: "PixLimits.createdMagnitudeMax")))
      } catch {
        throw r.error("\(path).\(error.field ?? "")", error.message)
      }
    }
    return out
  }
}
