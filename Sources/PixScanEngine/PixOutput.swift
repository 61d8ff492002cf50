import CanonicalJSON

/// The kinds of trace line PixScan writes (the `out` member of each line).
public enum PixOutputKind: String, CaseIterable, Sendable {
  /// The app launched or was killed.
  case app
  /// What screen is shown.
  case screen
  /// The onboarding step.
  case onboarding
  /// A library snapshot was taken in.
  case library
  /// The filter mode changed.
  case filter
  /// A swipe was applied to a photo.
  case action
  /// An undo was applied.
  case undo
  /// The current photo (id, index in the sequence) and whether undo is available.
  case photo
  /// Progress counts.
  case progress
  /// A change of the delete queue.
  case queue
  /// A recognised-text entry was added (the list's length and its last entry).
  case text
  /// The delete-review sheet.
  case sheet
  /// A message the user is shown.
  case message
  /// An effect request.
  case effect
  /// An input the engine did not act on, and why.
  case ignored
  /// The store was written (its counts).
  case store

  /// The fields a line of this kind may carry after `out`, in the order they are written.
  public var fields: [String] {
    switch self {
    case .app: ["state", "permission", "onboarded", "restored"]
    case .screen: ["name", "limited"]
    case .onboarding: ["step", "cards_left", "icon"]
    case .library: ["count", "screenshots", "pruned_processed", "pruned_queued"]
    case .filter: ["mode"]
    case .action: ["photo", "index", "direction", "action"]
    case .undo: ["photo", "index", "queue_removed", "text_removed", "ocr_dropped"]
    case .photo: ["id", "index", "can_undo"]
    case .progress: ["processed", "total", "fraction", "kept", "deleted", "ocr"]
    case .queue: ["op", "photo", "changed", "count"]
    case .text: ["count", "photo", "text", "at"]
    case .sheet: ["state", "items", "bytes", "selected", "selected_bytes"]
    case .message: ["key", "photo", "batch", "count", "error", "en"]
    case .effect: ["kind", "photo", "batch", "ids", "bytes"]
    case .ignored: ["input", "reason"]
    case .store: ["processed", "queue", "texts", "filter", "onboarded", "next_batch"]
    }
  }
}

/// Progress over the current sequence (the photos the filter lets through).
public struct PixProgress: Equatable, Sendable {
  /// Processed photos of the sequence.
  public var processed: Int
  /// Photos in the sequence.
  public var total: Int
  /// Processed and not in the delete queue.
  public var kept: Int
  /// Processed and in the delete queue.
  public var deleted: Int
  /// Entries of the recognised-text list.
  public var ocr: Int
  /// processed / total (0 when the sequence is empty).
  public var fraction: Double { total == 0 ? 0 : Double(processed) / Double(total) }

  /// Progress counts.
  public init(processed: Int, total: Int, kept: Int, deleted: Int, ocr: Int) {
    self.processed = processed
    self.total = total
    self.kept = kept
    self.deleted = deleted
    self.ocr = ocr
  }
}

/// One trace line of PixScan, typed; `render()` gives its members.
public enum PixOutput: Equatable, Sendable {
  /// `launched` (with the permission at launch, the onboarding flag, and whether the state
  /// came from a harness store after a kill) or `killed`.
  case app(state: String, permission: PixPermission?, onboarded: Bool?, restored: Bool?)
  /// onboarding, permission, permission_denied, loading, main, completion.
  case screen(name: PixScreen, limited: Bool)
  /// welcome, practice (cards left), highlights (the icon to tap), permission, done.
  case onboarding(step: String, cardsLeft: Int?, icon: PixIcon?)
  /// A snapshot taken in: assets, screenshots among them, processed and queued ids dropped
  /// because they are gone.
  case library(count: Int, screenshots: Int, prunedProcessed: Int, prunedQueued: Int)
  /// The new filter mode.
  case filter(PixFilter)
  /// A swipe on `photo` at `index`.
  case action(photo: String, index: Int, direction: PixDirection)
  /// An undo of the swipe on `photo` (now current at `index`, nil when outside the sequence).
  case undo(photo: String, index: Int?, queueRemoved: Bool, textRemoved: Bool, ocrDropped: Bool)
  /// The current photo (nil: none) and whether undo is available.
  case photo(id: String?, index: Int?, canUndo: Bool)
  /// Progress counts.
  case progress(PixProgress)
  /// A queue change: `op` added/removed (one `photo`), deleted/pruned (`changed` ids); `count`
  /// is the queue's new length.
  case queue(op: PixQueueOp, photo: String?, changed: Int, count: Int)
  /// A text entry was appended; `count` is the list's new length.
  case text(count: Int, entry: PixTextEntry)
  /// The sheet: open/closed/deleting, items and bytes queued, selected ones.
  case sheet(state: String, items: Int, bytes: Int64, selected: Int, selectedBytes: Int64)
  /// A message shown to the user (`key` names it; the English text is derived).
  case message(key: PixMessageKey, photo: String? = nil, batch: Int64? = nil, count: Int? = nil, error: String? = nil)
  /// An effect request (also in `PixStep.effects`).
  case effect(PixEffectRequest)
  /// An input not acted on: its kind and the reason.
  case ignored(input: String, reason: PixIgnoreReason)
  /// The store was written: its counts (not its content: a line stays small).
  case store(PixStoreCounts)

  /// The line's kind.
  public var kind: PixOutputKind {
    switch self {
    case .app: .app
    case .screen: .screen
    case .onboarding: .onboarding
    case .library: .library
    case .filter: .filter
    case .action: .action
    case .undo: .undo
    case .photo: .photo
    case .progress: .progress
    case .queue: .queue
    case .text: .text
    case .sheet: .sheet
    case .message: .message
    case .effect: .effect
    case .ignored: .ignored
    case .store: .store
    }
  }

  /// The line's members: `out` (the kind) first, then the fields in `PixOutputKind.fields`
  /// order; absent optionals are left out. The harness adds `t`.
  public func render() -> JSONObject {
    var members: [JSONMember] = []
    members.reserveCapacity(Self.maxMembers + 1)
    members.append(JSONMember("out", .string(kind.rawValue)))
    appendFields(to: &members)
    return JSONObject(members)
  }

  /// The line's fields: ``render()`` without `out`, in the same order (what a trace record
  /// holds). Built in one array of reserved capacity: no lookup per member, no regrowth.
  public func fields() -> JSONObject {
    var members: [JSONMember] = []
    members.reserveCapacity(Self.maxMembers)
    appendFields(to: &members)
    return JSONObject(members)
  }

  /// The most fields a line carries (`PixOutputKind.fields`' longest list).
  static let maxMembers = PixOutputKind.allCases.lazy.map(\.fields.count).max() ?? 0

  /// Appends the line's fields (after `out`) to `f`, in `PixOutputKind.fields` order; absent
  /// optionals are left out.
  func appendFields(to f: inout [JSONMember]) {
    func n(_ i: Int) -> JSONValue { .number(Double(i)) }
    func n64(_ i: Int64) -> JSONValue { .number(Double(i)) }
    func add(_ key: String, _ value: JSONValue) { f.append(JSONMember(key, value)) }
    switch self {
    case .app(let state, let permission, let onboarded, let restored):
      add("state", .string(state))
      if let permission { add("permission", .string(permission.rawValue)) }
      if let onboarded { add("onboarded", .bool(onboarded)) }
      if let restored { add("restored", .bool(restored)) }
    case .screen(let name, let limited):
      add("name", .string(name.rawValue))
      add("limited", .bool(limited))
    case .onboarding(let step, let cards, let icon):
      add("step", .string(step))
      if let cards { add("cards_left", n(cards)) }
      if let icon { add("icon", .string(icon.rawValue)) }
    case .library(let count, let shots, let pp, let pq):
      add("count", n(count))
      add("screenshots", n(shots))
      add("pruned_processed", n(pp))
      add("pruned_queued", n(pq))
    case .filter(let m): add("mode", .string(m.rawValue))
    case .action(let photo, let index, let d):
      add("photo", .string(photo))
      add("index", n(index))
      add("direction", .string(d.rawValue))
      add("action", .string(d.action))
    case .undo(let photo, let index, let q, let t, let o):
      add("photo", .string(photo))
      add("index", index.map(n) ?? .null)
      add("queue_removed", .bool(q))
      add("text_removed", .bool(t))
      add("ocr_dropped", .bool(o))
    case .photo(let id, let index, let canUndo):
      add("id", id.map { .string($0) } ?? .null)
      add("index", index.map(n) ?? .null)
      add("can_undo", .bool(canUndo))
    case .progress(let p):
      add("processed", n(p.processed))
      add("total", n(p.total))
      add("fraction", .number(p.fraction))
      add("kept", n(p.kept))
      add("deleted", n(p.deleted))
      add("ocr", n(p.ocr))
    case .queue(let op, let photo, let changed, let count):
      add("op", .string(op.rawValue))
      if let photo { add("photo", .string(photo)) }
      add("changed", n(changed))
      add("count", n(count))
    case .text(let count, let e):
      add("count", n(count))
      add("photo", .string(e.photo))
      add("text", .string(e.text))
      add("at", n64(e.t))
    case .sheet(let state, let items, let bytes, let selected, let selectedBytes):
      add("state", .string(state))
      add("items", n(items))
      add("bytes", n64(bytes))
      add("selected", n(selected))
      add("selected_bytes", n64(selectedBytes))
    case .message(let key, let photo, let batch, let count, let error):
      Self.appendMessage(key, photo: photo, batch: batch, count: count, error: error, to: &f)
    case .effect(let request): request.appendFields(to: &f)
    case .ignored(let input, let reason):
      add("input", .string(input))
      add("reason", .string(reason.rawValue))
    case .store(let s):
      add("processed", n(s.processed))
      add("queue", n(s.queue))
      add("texts", n(s.texts))
      add("filter", .string(s.filter.rawValue))
      add("onboarded", .bool(s.onboarded))
      add("next_batch", n64(s.nextBatch))
    }
  }

  /// A `message` line's fields (``appendFields(to:)``).
  static func appendMessage(
    _ key: PixMessageKey, photo: String?, batch: Int64?, count: Int?, error: String?, to f: inout [JSONMember]
  ) {
    f.append(JSONMember("key", .string(key.rawValue)))
    if let photo { f.append(JSONMember("photo", .string(photo))) }
    if let batch { f.append(JSONMember("batch", .number(Double(batch)))) }
    if let count { f.append(JSONMember("count", .number(Double(count)))) }
    if let error { f.append(JSONMember("error", .string(error))) }
    f.append(JSONMember("en", .string(english(key, count: count))))
  }

  /// The English text of message `key`.
  public static func english(_ key: PixMessageKey, count: Int?) -> String {
    let c = count ?? 0
    let photos = c == 1 ? "1 photo" : "\(c) photos"
    switch key {
    case .ocrFailed: return "Couldn't read the text of this photo."
    case .ocrNoText: return "No text found in this photo."
    case .deleteCancelled: return "Nothing was deleted. Your queue is unchanged."
    case .deleteFailed: return "The photos could not be deleted. Your queue is unchanged; try again."
    case .deleted: return "Deleted \(photos)."
    case .queuePruned:
      return "\(photos) in your delete queue \(c == 1 ? "is" : "are") no longer in your library and left the queue."
    }
  }
}

/// The counts of a written store, for its trace line.
public struct PixStoreCounts: Equatable, Sendable {
  /// Processed ids.
  public var processed: Int
  /// Queued ids.
  public var queue: Int
  /// Text entries.
  public var texts: Int
  /// Filter mode.
  public var filter: PixFilter
  /// Onboarding flag.
  public var onboarded: Bool
  /// Next batch number.
  public var nextBatch: Int64

  /// The counts of `store`.
  public init(_ store: PixStore) {
    processed = store.processed.count
    queue = store.queue.count
    texts = store.texts.count
    filter = store.filter
    onboarded = store.onboarded
    nextBatch = store.nextBatch
  }
}

/// What one engine call produced: trace lines in order, effect requests (also among the
/// lines), and the store to persist when it changed.
public struct PixStep: Equatable, Sendable {
  /// Trace lines, in order.
  public var outputs: [PixOutput] = []
  /// Effect requests, in order.
  public var effects: [PixEffectRequest] = []
  /// The store after the call, when it changed (nil: nothing to write).
  public var persist: PixStore?

  /// An empty step.
  public init(outputs: [PixOutput] = [], effects: [PixEffectRequest] = [], persist: PixStore? = nil) {
    self.outputs = outputs
    self.effects = effects
    self.persist = persist
  }
}
