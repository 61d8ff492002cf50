/// A recording that cannot be read or written as asked: corrupt, truncated, malformed, of a
/// newer format, or an I/O failure. `description` names the file, the place and what was
/// expected, e.g. `run.jsonl:12: field "state": expected one of active, inactive, …`.
///
/// It lives in the vocabulary because it is what an ``EventSource`` throws: the replayer
/// wraps it once as bad input, and the CLI maps every `RecordingError` to exit code 2.
public struct RecordingError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The file concerned, as the user named it.
  public var file: String
  /// Where in the file: "line 12", "chunk 7 (landmarks, 12000–15000 ms)", "header", … or nil.
  public var place: String?
  /// What was wrong and what was expected.
  public var message: String
  /// The top-level field of an event line the problem is about (`JSONLEventDecoder` sets it),
  /// so a caller can point at that field without reading the message; nil when none.
  public var field: String? = nil

  /// An error in `file` at `place` (nil when the problem concerns the whole file); ``field`` starts nil.
  public init(file: String, place: String? = nil, _ message: String) {
    self.file = file
    self.place = place
    self.message = message
  }

  /// `file: place: message`, or `file: message` without a place.
  public var description: String {
    if let place { return "\(file): \(place): \(message)" }
    return "\(file): \(message)"
  }
}

extension RecordingError {
  /// The place and the message without the file (`line 7: …`), for a caller whose message
  /// already names the file; the whole description when there is no place.
  public var withoutFile: String {
    if let place { return "\(place): \(message)" }
    return description
  }
}
