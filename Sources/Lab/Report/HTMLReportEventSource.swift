import CanonicalJSON
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
import Recording
import Replay

/// The recording a report timeline replays, streamed from its file (issue 38 item 5): read
/// ahead on a second thread (``PrefetchingSource``, as `replay` and `verify` read), never
/// held. The checks `CorpusScorer.load` made on the whole file before the replays are made
/// here as each event passes, with the same messages (``failure``): the events within
/// ``HTMLReportLimits/timelineEventsMax``, sorted by time, each label readable. The replay
/// using the source keeps the landmark frames in page form when asked
/// (``HTMLReportColumns/appendLandmarks(_:at:)``).
struct HTMLReportEventSource: EventSource {
  let header: JSONObject
  let path: String
  private var source: PrefetchingSource
  /// Why the recording cannot be drawn, in `CorpusScorer.load`'s words; set when the source
  /// stops the replay (the replay's own error then only says it stopped).
  private(set) var failure: HarnessFailure?
  /// Events read so far (labels included), and the last one's time.
  private(set) var events = 0
  private(set) var lastT: Millis = 0
  /// The events the recording's chunk index declares (a `.jprec`; nil for JSONL): room
  /// reserved for the series (``HTMLReportColumns/reserve(evaluations:frames:)``).
  let declaredEvents: Int?
  /// The landmark frames read, in page form (nil: not kept).
  var landmarks: HTMLReportColumns?
  /// Opens `path` (its chunk index checked against the bound before any event is read).
  init(path: String, keepLandmarks: Bool) throws(HarnessFailure) {
    let reader = try Harness.openReader(path)
    let eventsMax = HTMLReportLimits.timelineEventsMax
    if let r = reader as? RecordingReader, r.declaredEvents > Int64(eventsMax) {
      throw HarnessFailure.badInput(
        "\(path): \(r.declaredEvents) events (its chunk index), more than the corpus has left under ScoreLimits.corpusEventsMax = \(eventsMax); score fewer recordings at once")
    }
    header = reader.header
    self.path = path
    declaredEvents = (reader as? RecordingReader).map { Int($0.declaredEvents) }
    source = PrefetchingSource(reader)
    if keepLandmarks {
      var kept = HTMLReportColumns()
      kept.reserve(evaluations: 0, frames: declaredEvents ?? 0)
      landmarks = kept
    }
  }

  /// The end of the recording once read: the header's `duration_ms`, else the last event's t.
  var durationMs: Millis { RecordingHeader(header).durationMs ?? lastT }

  mutating func next() throws(RecordingError) -> InputEvent? {
    var read: InputEvent?
    do { read = try source.next() } catch { throw stop(.badInput(error.description)) }
    guard let e = read.take() else { return nil }
    let eventsMax = HTMLReportLimits.timelineEventsMax
    guard events < eventsMax else {
      throw stop(
        .badInput("\(path): the corpus has more than \(eventsMax) events (ScoreLimits.corpusEventsMax); score fewer recordings at once"))
    }
    guard e.t >= lastT else {
      throw stop(
        .badInput("\(path): event \(events + 1) at t=\(e.t) goes back in time (previous t=\(lastT)); events must be sorted by t"))
    }
    lastT = e.t
    events += 1
    if e.kind == .label {
      guard e.labelMark != nil else { throw stop(.badInput("\(path): label at t=\(e.t): expected {cue_id: string, holds: bool, since?: ms}")) }
    } else if landmarks != nil, case .landmarks(let f) = e.payload {
      landmarks?.appendLandmarks(f, at: e.t)
    }
    return e
  }

  /// Keeps `why` and stops the replay.
  private mutating func stop(_ why: HarnessFailure) -> RecordingError {
    failure = why
    return RecordingError(file: path, why.message)
  }
}
