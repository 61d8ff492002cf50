import CanonicalJSON
import EngineIO
import EngineSeam
import PixScanEngine
import Replay

/// PixScan on the engine seam: its name in recording headers (`engine: pixscan`), its event
/// kinds, its effect table, how its outputs become trace lines and how its store is written
/// (docs/PIXSCAN.md).
public enum PixScanVocabulary: EngineVocabulary {
  /// `pixscan`.
  public static let engineName = "pixscan"

  /// Every `PixInputKind`, with its channel, required fields and launch/kill roles.
  public static let kinds: [EventKindInfo] = PixInputKind.allCases.map(kindInfo)

  @Sendable static func always(_: JSONObject) -> Bool { true }

  /// The kinds that launch and the label kinds, from ``kinds``: the seam asks of every event
  /// whether it launches and whether it is an engine input, and a search of these short lists
  /// answers as the default's search of ``kinds`` does, without copying a kind's description.
  static let launchKinds: [String] = kinds.filter(\.launches).map(\.name)
  static let labelKinds: [String] = kinds.filter { $0.role == .label }.map(\.name)

  /// Whether `event`'s kind launches (``kinds``' `launches`).
  public static func launches(_ event: InputEvent) -> Bool { launchKinds.contains(event.kindName) }

  /// Whether `event`'s kind is not a label kind (an unknown kind is an input, as by default).
  public static func isEngineInput(_ event: InputEvent) -> Bool { !labelKinds.contains(event.kindName) }

  static func kindInfo(_ k: PixInputKind) -> EventKindInfo {
    var required: [(name: String, type: EventKindInfo.FieldType)] = []
    for r in k.required { required.append((r.name, EventKindInfo.FieldType(rawValue: r.type) ?? .string)) }
    var ends: (@Sendable (JSONObject) -> Bool)? = nil
    if k.endsProcess { ends = Self.always }
    return EventKindInfo(name: k.rawValue, channel: k.channel, required: required, launches: k.launches, endsProcessWhen: ends)
  }

  /// `PixEffectRule.all` as the seam's rules.
  public static let effectRules: [EffectRuleInfo] = PixEffectRule.all.map {
    EffectRuleInfo(request: $0.request, results: $0.results, keyFields: $0.keyFields, successFields: $0.successFields)
  }

  /// What `PixInput.decode` refuses (the engine rejects such an event at replay).
  public static func refusal(of event: InputEvent) -> EventRefusal? {
    switch PixScanSeamEngine.decode(event) {
    case .success: nil
    case .failure(let e): EventRefusal(field: e.field, message: e.message)
    }
  }

  /// Every `PixOutputKind`.
  public static let outputKinds: [String] = PixOutputKind.allCases.map(\.rawValue)

  /// The values coverage looks for, from the engine's own enumerations: each swipe direction,
  /// filter, permission answer, sheet, onboarding and delete outcome in the recordings; each
  /// action, screen, queue change, message and reason for ignoring an input in the traces.
  public static let coverageFacets: [CoverageFacet] = [
    CoverageFacet(.input, kind: "app_launch", field: "permission", values: PixPermission.allCases.map(\.rawValue)),
    CoverageFacet(.input, kind: "permission_result", field: "status", values: PixPermission.allCases.filter { $0 != .notDetermined }.map(\.rawValue)),
    CoverageFacet(.input, kind: "swipe", field: "direction", values: PixDirection.allCases.map(\.rawValue)),
    CoverageFacet(.input, kind: "filter_mode", field: "mode", values: PixFilter.allCases.map(\.rawValue)),
    CoverageFacet(.input, kind: "ocr_result", field: "ok", values: ["true", "false"]),
    CoverageFacet(.input, kind: "delete_sheet", field: "action", values: PixSheetAction.names),
    CoverageFacet(.input, kind: "delete_result", field: "outcome", values: PixDeleteOutcome.names),
    CoverageFacet(.input, kind: "onboarding", field: "action", values: PixOnboardingAction.names),
    CoverageFacet(.output, kind: "action", field: "action", values: PixDirection.allCases.map(\.action)),
    CoverageFacet(.output, kind: "screen", field: "name", values: PixScreen.allCases.map(\.rawValue)),
    CoverageFacet(.output, kind: "queue", field: "op", values: PixQueueOp.allCases.map(\.rawValue)),
    CoverageFacet(.output, kind: "message", field: "key", values: PixMessageKey.allCases.map(\.rawValue)),
    // not_a_launch only answers a relaunch called with another input, which no recording can
    // cause (the harness relaunches on app_launch), so coverage does not look for it.
    CoverageFacet(.output, kind: "ignored", field: "reason", values: PixIgnoreReason.allCases.filter { $0 != .notALaunch }.map(\.rawValue)),
  ]

  /// The request an `effect` output makes (its kind and fields, key fields among them).
  public static func effectCall(_ output: PixOutput) -> EffectCall? {
    guard case .effect(let r) = output else { return nil }
    return EffectCall(kind: r.kind, fields: r.ownFields())
  }

  /// `out` and the fields of `render()` after it (`PixOutput.fields()`: no `out` member to
  /// remove).
  public static func traceRecord(_ output: PixOutput) -> (out: String, fields: JSONObject) {
    (output.kind.rawValue, output.fields())
  }

  /// The `out` name.
  public static func outputKind(_ output: PixOutput) -> String { output.kind.rawValue }

  /// `jpreplay plot`: the triage position (`photo` index), the delete queue's length
  /// (`queue` count), the progress counts (`progress`: processed, kept, deleted, pending =
  /// total − processed, ocr), and lanes of swipes, undos, launches and kills, messages, ignored
  /// inputs, filter switches and the delete sheet. The report page: lanes of the photo shown
  /// (its index), the delete queue, filter switches, the delete sheet and messages.
  public static let timeline = TraceTimeline(
    series: [
      .init(panel: "photo index (current photo in the sequence)", name: "index", out: "photo", field: "index"),
      .init(panel: "delete queue", name: "queued", out: "queue", field: "count"),
      .init(panel: "progress", name: "processed", out: "progress", field: "processed"),
      .init(panel: "progress", name: "kept", out: "progress", field: "kept"),
      .init(panel: "progress", name: "deleted", out: "progress", field: "deleted"),
      .init(panel: "progress", name: "pending", out: "progress", value: Self.pending),
      .init(panel: "progress", name: "ocr", out: "progress", field: "ocr"),
    ],
    markers: [
      .init(lane: "swipes", out: "action") { "\(text($0["action"])) \(text($0["photo"])) (index \(text($0["index"])))" },
      .init(lane: "undo", out: "undo") { "undo \(text($0["photo"])) (index \(text($0["index"])))" },
      .init(lane: "app", out: "app") { "app \(text($0["state"]))" },
      messages,
      .init(lane: "ignored", out: "ignored") { "ignored \(text($0["input"])): \(text($0["reason"]))" },
      filterSwitches, deleteSheet,
    ],
    pageLanes: [
      .init(lane: "index", out: "photo") { f in
        f["id"] == nil || f["id"] == .null ? "no photo" : "\(text(f["id"])) (index \(text(f["index"])))"
      },
      .init(lane: "queue", out: "queue") {
        "\(text($0["op"]))\($0["photo"].map { " " + text($0) } ?? "") (\(text($0["count"])) queued)"
      },
      filterSwitches, deleteSheet, messages,
    ])

  /// A lane of the messages shown (key and English text).
  static let messages = TraceTimeline.Markers(lane: "messages", out: "message") { "\(text($0["key"])): \(text($0["en"]))" }
  /// A lane of filter switches (the mode switched to).
  static let filterSwitches = TraceTimeline.Markers(lane: "filter", out: "filter") { "filter \(text($0["mode"]))" }
  /// A lane of the delete sheet's states (open, deleting, closed) with its selection.
  static let deleteSheet = TraceTimeline.Markers(lane: "sheet", out: "sheet") {
    "sheet \(text($0["state"])): \(text($0["items"])) items, \(text($0["selected"])) selected"
  }

  /// `total − processed` of a `progress` line.
  @Sendable static func pending(_ f: JSONObject) -> Double? {
    guard let total = f["total"]?.doubleValue, let processed = f["processed"]?.doubleValue else { return nil }
    return total - processed
  }

  /// A field's text in a mark's title: a string as it is, anything else as canonical JSON.
  @Sendable static func text(_ v: JSONValue?) -> String {
    switch v {
    case nil: "none"
    case .string(let s)?: s
    case let v?: JSONWriter.write(v, sortKeys: true)
    }
  }

  /// `PixStore.json()`.
  public static func snapshotJSON(_ snapshot: PixStore) -> JSONObject { snapshot.json() }

  /// `PixStore(json:)`, its error as the seam's.
  public static func snapshot(json: JSONObject) throws(SnapshotError) -> PixStore {
    do { return try PixStore(json: json) } catch { throw SnapshotError(error.description) }
  }

  /// A first launch's store.
  public static let emptySnapshot = PixStore()
}

/// One call's results as the replayer reads them.
public struct PixSeamStep: EngineStep, Sendable {
  /// Trace lines in order.
  public var outputs: [PixOutput]
  /// PixScan writes no A.13 lines.
  public var diagnostics: [DiagnosticLine] { [] }
  /// PixScan uses no timers.
  public var timers: [TimerRequest] { [] }
  /// The store to write, when it changed.
  public var persist: PixStore?
  /// The decode error of an event the engine could not take (the replay stops, exit 2).
  public var rejection: String?

  /// A step of `step`.
  public init(_ step: PixStep) {
    outputs = step.outputs
    persist = step.persist
    rejection = nil
  }

  /// A rejected event.
  public init(rejecting message: String) {
    outputs = []
    persist = nil
    rejection = message
  }
}

/// `PixScanEngine` behind the seam: recorded events (named events) are decoded with
/// `PixInput.decode`; a decode error rejects the event with its field and expectation.
public struct PixScanSeamEngine: SeamEngine, Sendable {
  /// PixScan's vocabulary.
  public typealias Vocabulary = PixScanVocabulary
  /// The engine.
  public private(set) var engine: PixScanEngine

  /// An engine with `options`.
  public init(options: PixOptions = PixOptions()) { engine = PixScanEngine(options: options) }

  /// `start()` of the engine.
  public mutating func start() -> PixSeamStep { PixSeamStep(engine.start()) }

  /// Decodes and handles one recorded event.
  public mutating func handle(_ event: consuming InputEvent) -> PixSeamStep {
    switch Self.decode(event) {
    case .success(let input): PixSeamStep(engine.handle(input, at: event.t))
    case .failure(let e): PixSeamStep(rejecting: e.description)
    }
  }

  /// The engine's store now (``PixScanEngine/currentStore``): every change of it persists, so
  /// it is the last step's `persist` until a kill.
  public var snapshotOnDemand: PixStore? { engine.currentStore }

  /// PixScan schedules no timers: nothing fires.
  public mutating func fire(_ timer: TimerID, at now: Millis) -> PixSeamStep { PixSeamStep(PixStep()) }

  /// The launch after a kill, with the stored snapshot.
  public mutating func relaunch(_ event: InputEvent, restoring stored: PixStore) -> PixSeamStep {
    switch Self.decode(event) {
    case .success(let input): PixSeamStep(engine.relaunch(input, restoring: stored, at: event.t))
    case .failure(let e): PixSeamStep(rejecting: e.description)
    }
  }

  /// The typed input of a recorded event.
  public static func decode(_ event: InputEvent) -> Result<PixInput, PixDecodeError> {
    guard case .named(let e) = event.payload else {
      return .failure(PixDecodeError(kind: event.kindName, field: nil, "not a PixScan event (a Just Photo payload in a pixscan recording)"))
    }
    do { return .success(try PixInput.decode(kind: e.kind, fields: e.fields)) } catch { return .failure(error) }
  }
}

extension PixScanSeamEngine {
  /// PixScan for the CLI's engine registry (`"pixscan"`): replay, verify, import and diff
  /// route `engine: pixscan` recordings here.
  public static let plugin = EnginePlugin(PixScanSeamEngine.self) { _ in PixScanSeamEngine() }

  /// The planted faults (``PixPlantedFault``) by name, with what each does.
  public static var plantableFaults: [(name: String, summary: String)] { PixPlantedFault.allCases.map { ($0.rawValue, $0.summary) } }

  /// PixScan with the faults `names` planted in every engine it makes (the CLI's hidden
  /// `--plant-fault`, for tests that stand a faulty build in for a commit's); nil when a name
  /// is not a planted fault. No header or event can plant one.
  public static func plugin(plantedFaults names: [String]) -> EnginePlugin? {
    var faults = PixPlantedFaults()
    for n in names {
      guard let f = PixPlantedFault.named(n) else { return nil }
      faults.insert(f)
    }
    let options = PixOptions(plantedFaults: faults)
    return EnginePlugin(PixScanSeamEngine.self) { _ in PixScanSeamEngine(options: options) }
  }
}
