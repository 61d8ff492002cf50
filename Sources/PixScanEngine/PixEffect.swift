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
    var f: JSONObject = ["kind": .string(kind)]
    switch self {
    case .ocr(let photo): f["photo"] = .string(photo)
    case .prefetch(let ids): f["ids"] = .array(ids.map { .string($0) })
    case .deleteBatch(let batch, let ids, let bytes):
      f["batch"] = .number(Double(batch))
      f["ids"] = .array(ids.map { .string($0) })
      f["bytes"] = .number(Double(bytes))
    case .requestPermission: break
    }
    return f
  }
}
