import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Replay

/// What every fuzz driver shares: the bounds that keep one input cheap, the project spec, and
/// a replay of decoded events through the engine (the second half of `jpreplay replay`).
///
/// A driver turns an input into events, hands them to ``replay(header:events:)`` and returns;
/// any thrown error is an accepted outcome, a trap or sanitizer report is a finding.
public enum FuzzReplay {
  /// Events one input may feed the engine (more are read but not replayed).
  public static let eventsMax = 4_000
  /// Virtual time one replay may cover: the replayer stops there (ENGINE §1.3). Replay cost
  /// grows with `duration_ms` (issue 12 H1, being bounded elsewhere); this keeps an
  /// execution short until then.
  public static let replaySpanMsMax: Millis = 120_000
  /// Timer firings at one instant before the replayer reports a runaway timer.
  public static let firingsPerInstantMax = 1_000

  /// The repository root, found from this file's place (Fuzz/FuzzSupport/…).
  public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The project PoseSpec (the repository's PoseSpec.json), loaded once.
  public static let spec: PoseSpecDocument = {
    let url = repositoryRoot.appendingPathComponent("PoseSpec.json")
    guard let data = try? Data(contentsOf: url), let doc = try? PoseSpecLoader.load(bytes: [UInt8](data)) else {
      fatalError("fuzz: cannot load \(url.path); run from a checkout of justphoto-replay")
    }
    return doc
  }()

  /// Replays `events` (at most ``eventsMax``) under `header` with `spec`; errors
  /// (bad input, harness findings) are ignored: only a crash counts.
  public static func replay(
    header: JSONObject, events: ArraySlice<InputEvent>, spec: PoseSpecDocument = FuzzReplay.spec
  ) {
    let h = RecordingHeader(header)
    guard let config = try? EngineConfiguration(spec: spec, header: h) else { return }
    var options = ReplayOptions()
    options.stopAfterMs = replaySpanMsMax
    options.maxFiringsPerInstant = firingsPerInstantMax
    var replayer = Replayer(engine: Engine(configuration: config), options: options)
    var source = InMemoryEventSource(header: header, events: Array(events.prefix(eventsMax)))
    var output = CanonicalOutput(trace: DiscardLineSink(), a13: DiscardLineSink())
    _ = try? replayer.run(&source, into: &output, recording: "fuzz-input")
  }

  /// The event definitions every driver reads recordings with: Just Photo's (the seeds are
  /// its recordings).
  public static let definitions: any EventDefinitions.Type = JustPhotoVocabulary.eventDefinitions

  /// A scratch directory of this process (tmpfs when there is one), created once.
  public static let scratch: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("jpreplay-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: FuzzReplay.scratch) }
    return url
  }()
}
