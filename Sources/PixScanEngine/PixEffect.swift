import CanonicalJSON

/// Something the engine asks the platform to do. Results come back as inputs of
/// `resultKind`, correlated by `key`: an `ocr_result` by its photo id, a `delete_result` by its
/// batch number, a `permission_result` by being the one answer to the one request.
public enum PixEffectRequest: Equatable, Sendable {
  /// Recognise the text of `photo` (full resolution, off the main thread).
  case ocr(photo: String)
  /// Warm the image cache with the next photos (no result).
  case prefetch([String])
  /// Delete `ids` from the library in one request (the system asks the user to confirm);
  /// `bytes` is their total size.
  case deleteBatch(batch: Int64, ids: [String], bytes: Int64)
  /// Ask the system for photo-library access.
  case requestPermission

  /// The request's kind name: ocr, prefetch, delete_batch, request_permission.
  public var kind: String {
    switch self {
    case .ocr: "ocr"
    case .prefetch: "prefetch"
    case .deleteBatch: "delete_batch"
    case .requestPermission: "request_permission"
    }
  }

  /// The input kind that answers it (nil: fire and forget).
  public var resultKind: PixInputKind? {
    switch self {
    case .ocr: .ocrResult
    case .prefetch: nil
    case .deleteBatch: .deleteResult
    case .requestPermission: .permissionResult
    }
  }

  /// The fields a result must carry with equal values to answer this request.
  public var key: JSONObject {
    switch self {
    case .ocr(let photo): ["photo": .string(photo)]
    case .deleteBatch(let batch, _, _): ["batch": .number(Double(batch))]
    case .prefetch, .requestPermission: [:]
    }
  }

  /// Whether `input` is a result of this request (kind and key fields).
  public func isAnswered(by input: PixInput) -> Bool {
    switch (self, input) {
    case (.ocr(let a), .ocrResult(let b, _)): a == b
    case (.deleteBatch(let a, _, _), .deleteResult(let b, _)): a == b
    case (.requestPermission, .permissionResult): true
    default: false
    }
  }

  /// The trace line's fields after `out`: `kind`, then the request's own fields.
  public func fields() -> JSONObject {
    var members: [JSONMember] = []
    members.reserveCapacity(4)
    appendFields(to: &members)
    return JSONObject(members)
  }

  /// The request's own fields: ``fields()`` without `kind` (an effect ledger's call).
  public func ownFields() -> JSONObject {
    var members: [JSONMember] = []
    members.reserveCapacity(3)
    appendFields(to: &members, kind: false)
    return JSONObject(members)
  }

  /// Appends ``fields()``' members to `f`, in that order (an `effect` trace line's fields);
  /// without `kind` when `kind` is false.
  func appendFields(to f: inout [JSONMember], kind withKind: Bool = true) {
    if withKind { f.append(JSONMember("kind", .string(kind))) }
    switch self {
    case .ocr(let photo): f.append(JSONMember("photo", .string(photo)))
    case .prefetch(let ids): f.append(JSONMember("ids", .array(ids.map { .string($0) })))
    case .deleteBatch(let batch, let ids, let bytes):
      f.append(JSONMember("batch", .number(Double(batch))))
      f.append(JSONMember("ids", .array(ids.map { .string($0) })))
      f.append(JSONMember("bytes", .number(Double(bytes))))
    case .requestPermission: break
    }
  }
}

/// How a request kind is answered, for a harness's effect ledger: the result kinds, the key
/// fields request and result share, and the fields of a made-up success result (lenient
/// replay): an empty text for `ocr` (no entry, decision D2), `ok` for `delete_batch`,
/// `authorized` for `request_permission`. `prefetch` expects no result and has no rule.
public struct PixEffectRule: Equatable, Sendable {
  /// The request kind (`PixEffectRequest.kind`).
  public var request: String
  /// The input kinds that answer it.
  public var results: [String]
  /// The fields shared by the request's trace fields and the result's fields.
  public var keyFields: [String]
  /// The fields of a made-up success result besides the key fields.
  public var successFields: JSONObject

  /// Every request kind that expects a result.
  public static let all: [PixEffectRule] = [
    PixEffectRule(request: "ocr", results: ["ocr_result"], keyFields: ["photo"], successFields: ["ok": true, "text": ""]),
    PixEffectRule(request: "delete_batch", results: ["delete_result"], keyFields: ["batch"], successFields: ["outcome": "ok"]),
    PixEffectRule(request: "request_permission", results: ["permission_result"], keyFields: [], successFields: ["status": "authorized"]),
  ]
}

extension PixInputKind {
  /// Fields every event of the kind carries, with their JSON type (`string`, `integer`,
  /// `bool`, `object`, `array`), for a recording's import schema; the decoder checks the rest.
  public var required: [(name: String, type: String)] {
    switch self {
    case .appLaunch: [("permission", "string")]
    case .appKill, .permissionTap, .undo: []
    case .librarySnapshot: [("assets", "array")]
    case .permissionResult: [("status", "string")]
    case .swipe: [("direction", "string")]
    case .filterMode: [("mode", "string")]
    case .ocrResult: [("photo", "string"), ("ok", "bool")]
    case .deleteSheet, .onboarding: [("action", "string")]
    case .deleteResult: [("batch", "integer"), ("outcome", "string")]
    }
  }
  /// True for the kind that launches the app (after a kill it goes through `relaunch`).
  public var launches: Bool { self == .appLaunch }
  /// True for the kind that kills the process.
  public var endsProcess: Bool { self == .appKill }
}
