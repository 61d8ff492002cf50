import CoachEngine
import Foundation
import PoseSpec
import Recording
import Replay

/// Adapts a `Recording` reader (`.jprec`, `.jsonl`, `.jsonl.zst`) to the replayer's `EventSource`.
public struct RecordingSource: EventSource {
  let reader: any RecordingEventReader
  let path: String
  public var header: JSONObject { reader.header }

  public init(path: String) throws(RecordingError) {
    self.path = path
    reader = try RecordingFiles.open(path)
  }

  /// An already opened reader (e.g. a generated recording in memory).
  public init(reader: any RecordingEventReader, path: String) {
    self.reader = reader
    self.path = path
  }

  public mutating func next() throws -> InputEvent? {
    do { return try reader.nextEvent() } catch {
      // The replayer prefixes the recording's path; keep the place ("chunk 3 (…)", "line 7").
      if error.file == path, let place = error.place { throw BadInputError(message: "\(place): \(error.message)") }
      throw BadInputError(message: error.description)
    }
  }
}
