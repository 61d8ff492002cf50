import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
import Foundation
import Replay
import Verify

/// An engine whose reactions are scripted by closures; it logs every call it receives.
struct ScriptedEngine: ReplayableEngine, Sendable {
  typealias Vocabulary = JustPhotoVocabulary
  var log: [String] = []
  var onStart: @Sendable () -> Effects = { Effects() }
  var onHandle: @Sendable (InputEvent) -> Effects = { _ in Effects() }
  var onFire: @Sendable (TimerID, Millis) -> Effects = { _, _ in Effects() }
  /// The relaunch entry; nil = like `handle`.
  var onRelaunch: (@Sendable (InputEvent, StoreSnapshot) -> Effects)?

  mutating func start() -> Effects {
    log.append("start")
    return onStart()
  }
  mutating func handle(_ event: InputEvent) -> Effects {
    log.append("\(event.kindName)@\(event.t)")
    return onHandle(event)
  }
  mutating func fire(_ timer: TimerID, at now: Millis) -> Effects {
    log.append("fire \(timer.name)@\(now)")
    return onFire(timer, now)
  }
  mutating func relaunch(_ event: InputEvent, restoring stored: StoreSnapshot) -> Effects {
    guard let onRelaunch else { return handle(event) }
    log.append("relaunch \(event.kindName)@\(event.t)")
    return onRelaunch(event, stored)
  }
}

/// A generic input event.
func event(_ t: Millis, _ kind: EventKind, _ fields: JSONObject = JSONObject()) -> InputEvent {
  InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: fields)))
}

func record(_ t: Millis, _ out: String, _ fields: JSONObject = JSONObject()) -> TraceRecord {
  TraceRecord(t: t, out: out, fields: fields)
}

/// A free-form engine output for scripted engines: a `prompt` carrying `fields` as written.
func freeOutput(_ fields: JSONObject) -> EngineOutput { .prompt(fields) }

/// The typed effect request of `kind` with the correlation fields `fields` (shot, attempt, …).
func effectRequest(_ t: Millis, _ kind: String, _ fields: JSONObject = JSONObject()) -> EngineOutput {
  let shot = Int(fields["shot"]?.doubleValue ?? 0)
  let attempt = Int(fields["attempt"]?.doubleValue ?? 0)
  let asset = fields["asset_id"]?.stringValue ?? ""
  let request: EffectRequest =
    switch EffectKind(rawValue: kind)! {
    case .start_camera: .startCamera
    case .request_camera_permission: .requestCameraPermission
    case .capture_photo: .capturePhoto(shot: shot)
    case .photokit_write: .photokitWrite(shot: shot, attempt: attempt)
    case .fetch_asset: .fetchAsset(assetId: asset, attempt: attempt)
    case .album_add: .albumAdd(assetId: asset, attempt: attempt)
    case .generate_thumb: .generateThumb(shot: shot, attempt: attempt)
    case .favorite_sync: .favoriteSync(item: Int(fields["item"]?.doubleValue ?? 0))
    case .odr_request: .odrRequest(tag: fields["tag"]?.stringValue ?? "", attempt: attempt)
    case let other: .leaveApp(other)
    }
  return .effect(request)
}

/// Runs a scripted engine over events; returns the engine log, the records and the summary.
func replay(
  _ engine: ScriptedEngine, _ events: [InputEvent], header: JSONObject = JSONObject(),
  options: ReplayOptions = ReplayOptions()
) throws(ReplayError) -> (log: [String], records: [TraceRecord], summary: ReplaySummary) {
  var source = InMemoryEventSource(header: header, events: events)
  var output = CollectingOutput()
  var replayer = Replayer(engine: engine, options: options)
  let summary = try replayer.run(&source, into: &output)
  return (replayer.engine.log, output.records, summary)
}

/// A fresh empty directory under the system temporary directory, removed with its contents
/// when the value goes away.
final class TemporaryDirectory {
  let url: URL
  init(_ label: String = #function) throws {
    let safe = label.filter { $0.isLetter || $0.isNumber }
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent(
        "replay-tests-\(safe)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }
}

func files(in dir: URL) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
}

/// A JSONL recording for tests: line 1 the header, then `{"t":…,"kind":…,…}` lines.
struct JSONLTestSource: EventSource {
  var path: String
  var header: JSONObject
  var lines: [Substring]
  var index = 0

  init(url: URL) throws {
    path = url.path
    let text = try String(contentsOf: url, encoding: .utf8)
    var all = text.split(separator: "\n")
    guard !all.isEmpty else { throw BadInputError(message: "empty recording") }
    header = try JSONParser.parse(String(all.removeFirst())).objectValue ?? JSONObject()
    lines = all
  }

  mutating func next() throws(RecordingError) -> InputEvent? {
    guard index < lines.count else { return nil }
    defer { index += 1 }
    let place = "line \(index + 2)"
    let value: JSONValue
    do { value = try JSONParser.parse(String(lines[index])) } catch {
      throw RecordingError(file: path, place: place, error.description)
    }
    guard var o = value.objectValue, let t = o["t"]?.int64Value,
      let k = o["kind"]?.stringValue, let kind = EventKind(rawValue: k)
    else { throw RecordingError(file: path, place: place, "not an event") }
    o["t"] = nil
    o["kind"] = nil
    return InputEvent(t: t, payload: .justPhoto(JustPhotoEvent(kind: kind, fields: o)))
  }
}

/// A small corpus on disk: recordings are JSONL files named `.jprec`.
struct TestCorpus {
  let directory: TemporaryDirectory
  let store: GoldenStore
  var root: URL { directory.url }

  init(_ label: String = #function) throws {
    directory = try TemporaryDirectory(label)
    let root = directory.url
    // A Just Photo corpus: its goldens read as Just Photo reads its traces (cues, subjects).
    var store = GoldenStore(root: root)
    store.traceReading = JustPhotoVocabulary.traceReading
    self.store = store
    try FileManager.default.createDirectory(
      at: store.recordingsDir, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: store.goldenDir, withIntermediateDirectories: true)
  }

  /// A corpus with accepted goldens for `names` (each a recording of taps at 100 and 200 ms).
  static func accepted(_ names: [String], _ label: String) throws -> TestCorpus {
    let c = try TestCorpus(label)
    for n in names { try c.addRecording(n, times: [100, 200]) }
    _ = try c.verifier().run()
    _ = try c.store.accept(names: nil)
    return c
  }

  /// Writes a recording whose events are `ui_scene` taps at the given times.
  func addRecording(_ name: String, times: [Millis], scene: String = "cafe") throws {
    var text = #"{"format":"jp-replay/1","wall_start_ms":1770860211000}"# + "\n"
    for t in times { text += #"{"t":\#(t),"kind":"ui_scene","scene":"\#(scene)"}"# + "\n" }
    try text.write(to: store.recordingURL(name), atomically: true, encoding: .utf8)
  }

  /// A driver whose engine echoes each input as a `cue_display` and an A.13 line; `variant`
  /// changes the displayed level ("a" = warn, else hard), to simulate a behaviour change.
  func driver(variant: String = "a") -> ReplayDriver<ScriptedEngine> {
    ReplayDriver(
      open: { url in try JSONLTestSource(url: url) },
      makeEngine: { header in
        let wall = header.wallStartMs
        var e = ScriptedEngine()
        e.onHandle = { ev in
          Effects(
            outputs: [
              .cueDisplay(
                CueDisplay(cueId: "FRAME_MOVE_LEFT", level: variant == "a" ? .warn : .hard, reason: .none, mode: .noRef))
            ],
            diagnostics: [
              DiagnosticLine(
                tsMs: wall + ev.t, sessionId: "F40A4C16-58FE-44FE-80EB-B67B83A17D4A",
                event: "prompt_shown",
                scene: "cafe", payload: [(key: "key", value: "k/\(ev.t)")])
            ])
        }
        return e
      })
  }

  func verifier(variant: String = "a", ci: Bool = false, jobs: Int = 1, names: [String]? = nil)
    -> Verifier
  {
    Verifier(
      store: store, options: VerifyOptions(names: names, jobs: jobs, ci: ci),
      driver: driver(variant: variant))
  }

  func goldenFiles() -> [String] { files(in: store.goldenDir) }
}
