import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import EngineSeam
import Recording

/// Just Photo on the engine seam: its kinds (EngineIO's `EventKind`, channels from Recording),
/// its effect table (``EffectRule``), its trace rendering (`TraceRecord(_:at:)`) and its stored
/// session (`StoreSnapshot`, kept in the SQLite schema of ``SQLiteSessionStore``).
///
/// The lookups the replayer makes per event (input or label, launch, kill, effect result)
/// switch on the typed kind instead of searching the tables by name.
public enum JustPhotoVocabulary: EngineVocabulary {
  public typealias Output = EngineOutput
  public typealias Snapshot = StoreSnapshot

  public static let engineName = justPhotoEngineName
  /// Just Photo writes its A.13 log: every recording has a `.a13.jsonl` golden.
  public static let writesDiagnostics = true
  /// Just Photo's event definitions: what its recordings' readers, importer and recorder decode
  /// its kinds with.
  public static var eventDefinitions: any EventDefinitions.Type { JustPhotoEvents.self }

  public static let kinds: [EventKindInfo] = EventKind.allCases.map(info)

  static func info(_ k: EventKind) -> EventKindInfo {
    let ends: (@Sendable (JSONObject) -> Bool)?
    if k == .app_lifecycle {
      ends = { (f: JSONObject) -> Bool in f["state"]?.stringValue == "terminated" }
    } else {
      ends = nil
    }
    let role: EventKindInfo.Role = k == .label ? .label : .input
    return EventKindInfo(
      name: k.rawValue, channel: k.eventChannel.rawValue, role: role, launches: k == .app_launch, endsProcessWhen: ends)
  }

  public static let effectRules: [EffectRuleInfo] = EffectRule.all.map {
    EffectRuleInfo(request: $0.request.rawValue, results: $0.results.map(\.rawValue), keyFields: $0.keyFields)
  }

  static let rulesByResult: [EventKind: (EffectRule, EffectRuleInfo)] = {
    var d: [EventKind: (EffectRule, EffectRuleInfo)] = [:]
    for (r, info) in zip(EffectRule.all, effectRules) { for k in r.results { d[k] = (r, info) } }
    return d
  }()

  @inline(__always) public static func isEngineInput(_ event: InputEvent) -> Bool { event.kind != .label }

  @inline(__always) public static func launches(_ event: InputEvent) -> Bool { event.kind == .app_launch }

  @inline(__always) public static func endsProcess(_ event: InputEvent) -> Bool {
    guard case .typed(let g) = event.payload, g.eventKind == .app_lifecycle else { return false }
    return g.fields["state"]?.stringValue == "terminated"
  }

  public static func rule(forRequest request: String) -> EffectRuleInfo? {
    effectRules.first { $0.request == request }
  }

  @inline(__always) public static func rule(forResult event: InputEvent) -> EffectRuleInfo? {
    guard case .typed(let g) = event.payload, let kind = g.eventKind else { return nil }
    return rulesByResult[kind]?.1
  }

  public static func effectCall(_ output: EngineOutput) -> EffectCall? {
    guard case .effect(let request) = output else { return nil }
    return EffectCall(kind: request.kind.rawValue, fields: request.traceFields)
  }

  /// Just Photo's made-up successes carry kind-specific fields (a derived `asset_id`, …).
  public static func syntheticSuccess(_ rule: EffectRuleInfo, request fields: JSONObject, at t: Millis) -> InputEvent {
    guard let kind = EffectKind(rawValue: rule.request), let r = EffectRule.forRequest(kind) else {
      return InputEvent(t: t, payload: .named(NamedEvent(kind: rule.results[0])))
    }
    return r.syntheticSuccess(for: fields, at: t)
  }

  public static func traceRecord(_ output: EngineOutput) -> (out: String, fields: JSONObject) {
    (output.kind.rawValue, TraceRecord.fields(output))
  }

  public static func outputKind(_ output: EngineOutput) -> String { output.kind.rawValue }

  /// Every `OutputKind` (`TraceKinds.all`).
  public static var outputKinds: [String] { TraceKinds.all }

  public static func narrow(_ output: EngineOutput, toCues cues: Set<String>) -> EngineOutput? {
    TraceKinds.narrow(output, to: cues)
  }

  public static func snapshotJSON(_ snapshot: StoreSnapshot) -> JSONObject {
    snapshot.json.objectValue ?? JSONObject()
  }

  public static func snapshot(json: JSONObject) throws(SnapshotError) -> StoreSnapshot {
    StoreSnapshot(json: .object(json))
  }

  public static let emptySnapshot = StoreSnapshot(session: nil)
}
