import CoachEngine
import Foundation
import PoseSpec
import Recording
import Replay

/// Adapts a `Recording` reader (`.jprec`, `.jsonl`, `.jsonl.zst`) to the replayer's `EventSource`.
public struct RecordingSource: EventSource {
  let reader: any RecordingEventReader
  public var header: JSONObject { reader.header }

  public init(path: String) throws(RecordingError) {
    reader = try RecordingFiles.open(path)
  }

  public mutating func next() throws -> InputEvent? {
    do { return try reader.nextEvent() } catch { throw BadInputError(message: error.description) }
  }
}
