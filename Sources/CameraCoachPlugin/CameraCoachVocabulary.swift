import CameraCoachEngine
import CanonicalJSON
import EngineIO
import EngineSeam
import Replay

/// Camera Coach on the engine seam (docs/CAMERACOACH.md): its name in recording headers
/// (`engine: cameracoach`), its event kinds, how its outputs become trace lines. It has no
/// effects, no timers and nothing to persist.
public enum CameraCoachVocabulary: EngineVocabulary {
  /// `cameracoach`.
  public static let engineName = "cameracoach"

  /// Every `CCInputKind`, with its channel and required fields; `session_start` launches.
  public static let kinds: [EventKindInfo] = CCInputKind.allCases.map { k in
    EventKindInfo(
      name: k.rawValue, channel: k.channel,
      required: k.required.map { ($0.name, EventKindInfo.FieldType(rawValue: $0.type) ?? .string) }, launches: k.launches)
  }

  /// Camera Coach asks the platform for nothing.
  public static let effectRules: [EffectRuleInfo] = []

  /// What `CCInput.decode` refuses (the engine rejects such an event at replay).
  public static func refusal(of event: InputEvent) -> EventRefusal? {
    switch CameraCoachSeamEngine.decode(event) {
    case .success: nil
    case .failure(let e): EventRefusal(field: e.field, message: e.message)
    }
  }

  /// Every `CCOutputKind`.
  public static let outputKinds: [String] = CCOutputKind.allCases.map(\.rawValue)

  /// Values coverage looks for: each camera, thermal state and memory level in the recordings;
  /// each state, advice and telemetry event in the traces.
  public static let coverageFacets: [CoverageFacet] = [
    CoverageFacet(.input, kind: "session_start", field: "camera", values: CCCamera.allCases.map(\.rawValue)),
    CoverageFacet(.input, kind: "thermal_sample", field: "state", values: CCThermal.allCases.map(\.rawValue)),
    CoverageFacet(.input, kind: "memory_pressure", field: "level", values: CCMemory.allCases.map(\.rawValue)),
    CoverageFacet(.output, kind: "state", field: "state", values: CCState.allCases.map(\.rawValue)),
    CoverageFacet(.output, kind: "hint", field: "advice", values: CCAdvice.allCases.map(\.rawValue)),
    CoverageFacet(.output, kind: "telemetry", field: "event", values: CCTelemetry.allCases.map(\.rawValue)),
  ]

  /// No output is an effect request.
  public static func effectCall(_ output: CCOutput) -> EffectCall? { nil }

  /// `out` and the line's fields.
  public static func traceRecord(_ output: CCOutput) -> (out: String, fields: JSONObject) { (output.kind.rawValue, output.fields()) }

  /// The `out` name.
  public static func outputKind(_ output: CCOutput) -> String { output.kind.rawValue }

  /// `jpreplay plot`: hint values by advice, and lanes of states, hints and haptics.
  public static let timeline = TraceTimeline(
    series: [.init(panel: "hint value (share of the frame, or degrees for the horizon)", name: "value", out: "hint", field: "value")],
    markers: [
      .init(lane: "state", out: "state") { "state \(text($0["state"]))" },
      .init(lane: "hints", out: "hint") { "\(text($0["advice"])) \(text($0["direction"])) (\(text($0["value"])))" },
      .init(lane: "haptic", out: "haptic") { _ in "haptic: level" },
      .init(lane: "one-shot", out: "one_shot") { "one-shot \(text($0["advice"]))" },
    ])

  @Sendable static func text(_ v: JSONValue?) -> String {
    switch v {
    case nil: "none"
    case .string(let s)?: s
    case let v?: JSONWriter.write(v, sortKeys: true)
    }
  }

  /// Nothing is stored: `{}`.
  public static func snapshotJSON(_ snapshot: CCNoStore) -> JSONObject { JSONObject() }

  /// Any stored object reads as the empty store.
  public static func snapshot(json: JSONObject) throws(SnapshotError) -> CCNoStore { CCNoStore() }

  /// The empty store.
  public static let emptySnapshot = CCNoStore()
}

/// Camera Coach persists nothing.
public struct CCNoStore: Equatable, Sendable {
  public init() {}
}

/// One call's results as the replayer reads them.
public struct CCSeamStep: EngineStep, Sendable {
  public var outputs: [CCOutput]
  public var diagnostics: [DiagnosticLine] { [] }
  public var timers: [TimerRequest] { [] }
  public var persist: CCNoStore? { nil }
  public var rejection: String?

  public init(_ step: CCStep) {
    outputs = step.outputs
    rejection = nil
  }

  public init(rejecting message: String) {
    outputs = []
    rejection = message
  }
}

/// `CameraCoachEngine` behind the seam: named events decoded with `CCInput.decode`; a decode
/// error rejects the event (exit 2 naming the field).
public struct CameraCoachSeamEngine: SeamEngine, Sendable {
  public typealias Vocabulary = CameraCoachVocabulary
  public private(set) var engine: CameraCoachEngine

  public init(options: CCOptions = CCOptions()) { engine = CameraCoachEngine(options: options) }

  public mutating func start() -> CCSeamStep { CCSeamStep(engine.start()) }

  public mutating func handle(_ event: consuming InputEvent) -> CCSeamStep {
    switch Self.decode(event) {
    case .success(let input): CCSeamStep(engine.handle(input, at: event.t))
    case .failure(let e): CCSeamStep(rejecting: e.description)
    }
  }

  /// Camera Coach schedules no timers.
  public mutating func fire(_ timer: TimerID, at now: Millis) -> CCSeamStep { CCSeamStep(CCStep()) }

  /// The typed input of a recorded event.
  public static func decode(_ event: InputEvent) -> Result<CCInput, CCDecodeError> {
    guard case .named(let e) = event.payload else {
      return .failure(CCDecodeError(kind: event.kindName, field: nil, "not a Camera Coach event (a Just Photo payload in a cameracoach recording)"))
    }
    do { return .success(try CCInput.decode(kind: e.kind, fields: e.fields)) } catch { return .failure(error) }
  }
}

extension CameraCoachSeamEngine {
  /// Camera Coach for the CLI's engine registry (`"cameracoach"`).
  public static let plugin = EnginePlugin(CameraCoachSeamEngine.self) { _ in CameraCoachSeamEngine() }

  /// The planted faults by name, with what each does.
  public static var plantableFaults: [(name: String, summary: String)] { CCPlantedFault.allCases.map { ($0.rawValue, $0.summary) } }

  /// Camera Coach with the faults `names` planted; nil when a name is not one.
  public static func plugin(plantedFaults names: [String]) -> EnginePlugin? {
    var faults: [CCPlantedFault] = []
    for n in names {
      guard let f = CCPlantedFault.named(n) else { return nil }
      faults.append(f)
    }
    let options = CCOptions(plantedFaults: faults)
    return EnginePlugin(CameraCoachSeamEngine.self) { _ in CameraCoachSeamEngine(options: options) }
  }
}
