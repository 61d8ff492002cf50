import CanonicalJSON
import EngineIO
import EngineSeam
import Replay

/// Tally, a second engine on the seam for tests (not Just Photo): a counter with a queue.
///
/// Rules (what the tests' expectations are written from):
/// - `push {n}` queues `n` and outputs `queued {depth}`; when the queue reaches `flushAt`
///   (3; the planted bug makes it 2) and no flush is pending, it outputs `effect {kind: flush,
///   batch, count}` asking the platform to flush (batch = stored batches + 1).
/// - `flush_result {batch, ok}` answers it: with ok the queue's sum is added to the total,
///   the batch counted, the queue emptied and the store flushed (persist); it outputs
///   `flushed {batch, ok, total}`.
/// - A `tick` timer fires every `tickMs` (1000) from t = 0 and outputs `tick {depth}`.
/// - `kill` ends the process (the queue and a pending flush are lost); the next `launch`
///   restores the stored total and batches and outputs `restored {total, batches}`; a first
///   `launch` outputs `launched`.
/// - `label` events are ground truth the engine never sees.
/// - An event missing a field is rejected, naming the field (exit 2 for the replay).
struct TallyEngine: SeamEngine, Sendable {
  typealias Vocabulary = TallyVocabulary
  var flushAt = 3
  var tickMs: Millis = 1000
  var queue: [Int64] = []
  var pendingBatch: Int64?
  var stored = TallyStore()

  /// Return the flush request beside the outputs (`EngineStep.effectCalls`, as PixScan's
  /// plug-in does) instead of as an `effect` output.
  var requestsBeside = false

  init(bug: Bool = false, requestsBeside: Bool = false) {
    flushAt = bug ? 2 : 3
    self.requestsBeside = requestsBeside
  }

  mutating func start() -> TallyStep {
    TallyStep(timers: [.schedule(TimerID("tick"), at: tickMs)])
  }

  mutating func handle(_ event: InputEvent) -> TallyStep {
    guard case .named(let e) = event.payload else { return TallyStep(rejection: "not a tally event") }
    func int(_ name: String) -> Int64? { e.fields[name]?.int64Value }
    switch e.kind {
    case "launch": return TallyStep(outputs: [.launched])
    case "kill":
      queue = []
      pendingBatch = nil
      return TallyStep()
    case "push":
      guard let n = int("n") else { return TallyStep(rejection: "field \"n\": expected an integer") }
      queue.append(n)
      var step = TallyStep(outputs: [.queued(depth: queue.count)])
      if queue.count >= flushAt, pendingBatch == nil {
        let batch = stored.batches + 1
        pendingBatch = batch
        let request = TallyOutput.flushRequest(batch: batch, count: queue.count)
        if requestsBeside {
          step.effectCalls.append(TallyVocabulary.effectCall(request)!)
        } else {
          step.outputs.append(request)
        }
      }
      return step
    case "flush_result":
      guard let batch = int("batch") else { return TallyStep(rejection: "field \"batch\": expected an integer") }
      guard case .bool(let ok) = e.fields["ok"] else { return TallyStep(rejection: "field \"ok\": expected true or false") }
      guard batch == pendingBatch else { return TallyStep() }
      pendingBatch = nil
      var step = TallyStep()
      if ok {
        stored.total += queue.reduce(0, +)
        stored.batches = batch
        queue = []
        step.persist = stored
      }
      step.outputs.append(.flushed(batch: batch, ok: ok, total: stored.total))
      return step
    default:
      return TallyStep(rejection: "unknown tally event kind \"\(e.kind)\"")
    }
  }

  mutating func fire(_ timer: TimerID, at now: Millis) -> TallyStep {
    TallyStep(outputs: [.tick(depth: queue.count)], timers: [.schedule(timer, at: now + tickMs)])
  }

  mutating func relaunch(_ event: InputEvent, restoring stored: TallyStore) -> TallyStep {
    self.stored = stored
    queue = []
    pendingBatch = nil
    return TallyStep(outputs: [.restored(total: stored.total, batches: stored.batches)])
  }
}

/// Tally's persisted state.
struct TallyStore: Equatable, Sendable {
  var total: Int64 = 0
  var batches: Int64 = 0
}

enum TallyOutput: Equatable, Sendable {
  case launched
  case queued(depth: Int)
  case flushRequest(batch: Int64, count: Int)
  case flushed(batch: Int64, ok: Bool, total: Int64)
  case tick(depth: Int)
  case restored(total: Int64, batches: Int64)
}

struct TallyStep: EngineStep {
  var outputs: [TallyOutput] = []
  var diagnostics: [DiagnosticLine] = []
  var timers: [TimerRequest] = []
  var persist: TallyStore?
  var rejection: String?
  var effectCalls: [EffectCall] = []
}

enum TallyVocabulary: EngineVocabulary {
  static let engineName = "tally"
  static let kinds: [EventKindInfo] = [
    EventKindInfo(name: "launch", channel: "device", launches: true),
    EventKindInfo(name: "kill", channel: "device", endsProcessWhen: { _ in true }),
    EventKindInfo(name: "push", channel: "ui", required: [("n", .integer)]),
    EventKindInfo(name: "flush_result", channel: "effects", required: [("batch", .integer), ("ok", .bool)]),
    EventKindInfo(name: "label", channel: "label", role: .label),
  ]
  static let effectRules = [
    EffectRuleInfo(request: "flush", results: ["flush_result"], keyFields: ["batch"], successFields: ["ok": true])
  ]

  static func effectCall(_ output: TallyOutput) -> EffectCall? {
    guard case .flushRequest = output else { return nil }
    return EffectCall(kind: "flush", fields: traceRecord(output).fields)
  }

  static func traceRecord(_ output: TallyOutput) -> (out: String, fields: JSONObject) {
    func n<I: BinaryInteger>(_ i: I) -> JSONValue { .number(Double(i)) }
    switch output {
    case .launched: return ("launched", [:])
    case .queued(let d): return ("queued", ["depth": n(d)])
    case .flushRequest(let b, let c): return ("effect", ["kind": "flush", "batch": n(b), "count": n(c)])
    case .flushed(let b, let ok, let total): return ("flushed", ["batch": n(b), "ok": .bool(ok), "total": n(total)])
    case .tick(let d): return ("tick", ["depth": n(d)])
    case .restored(let total, let batches): return ("restored", ["total": n(total), "batches": n(batches)])
    }
  }

  static func outputKind(_ output: TallyOutput) -> String { traceRecord(output).out }

  static func snapshotJSON(_ s: TallyStore) -> JSONObject {
    ["total": .number(Double(s.total)), "batches": .number(Double(s.batches))]
  }

  static func snapshot(json: JSONObject) throws(SnapshotError) -> TallyStore {
    guard let t = json["total"]?.int64Value, let b = json["batches"]?.int64Value else {
      throw SnapshotError("expected {total, batches} integers")
    }
    return TallyStore(total: t, batches: b)
  }

  static let emptySnapshot = TallyStore()
}
