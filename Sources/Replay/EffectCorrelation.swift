import CanonicalJSON
import EngineIO
import EngineSeam

/// A request waiting for its result (``EffectLedger``). Not nested in the generic ledger:
/// the replay's code is not specialized for the engine, and an array of a type nested in the
/// ledger is handled through the ledger's generic metadata (with the queue's copy, taking a
/// PixScan OCR result's request cost ~4,000 instructions in `removeFirst` alone).
@usableFromInline
struct EffectPending {
  @usableFromInline var t: Millis
  @usableFromInline var order: UInt64
  @usableFromInline var request: String
  @usableFromInline var key: String
  @usableFromInline var synthesized = false
  @inlinable init(t: Millis, order: UInt64, request: String, key: String) {
    self.t = t
    self.order = order
    self.request = request
    self.key = key
  }
}

/// The requests waiting for results, and the checks of ENGINE §1.6, for the engine whose
/// vocabulary is `V` (its effect table, its kill event).
@usableFromInline
struct EffectLedger<V: EngineVocabulary> {
  @usableFromInline typealias Pending = EffectPending

  @usableFromInline let strict: Bool
  @usableFromInline let latencyMs: Millis
  /// Pending requests per `request|key`, oldest first.
  @usableFromInline var pending: [String: [Pending]] = [:]
  /// Keys whose result was synthesized (lenient), so a late recorded one is dropped.
  @usableFromInline var synthesizedKeys: [String: Int] = [:]
  @usableFromInline var order: UInt64 = 0
  @usableFromInline var notes: [HarnessIssue] = []

  @inlinable init(strict: Bool, latencyMs: Millis) {
    self.strict = strict
    self.latencyMs = latencyMs
  }

  /// Registers an effect request. Returns a synthesized result to deliver later (lenient).
  @inlinable mutating func request(_ call: EffectCall, at t: Millis) throws(HarnessError) -> InputEvent? {
    guard let rule = V.rule(forRequest: call.kind) else { return nil }
    let kind = call.kind
    let fields = call.fields
    guard let key = rule.key(of: fields) else {
      let issue = HarnessIssue(
        kind: .malformedRequest, t: t, effect: kind,
        key: rule.keyFields.joined(separator: ","))
      if strict { throw HarnessError(issues: [issue]) }
      notes.append(issue)
      return nil
    }
    order += 1
    pending["\(kind)|\(key)", default: []].append(
      Pending(t: t, order: order, request: kind, key: key))
    return strict ? nil : V.syntheticSuccess(rule, request: fields, at: t + latencyMs)
  }

  /// Checks a recorded input. Returns false when the event must not reach the engine.
  @inlinable mutating func recorded(_ event: InputEvent) throws(HarnessError) -> Bool {
    guard let rule = V.rule(forResult: event), let fields = event.jsonFields else { return true }
    let key = rule.key(of: fields) ?? "?"
    let slot = "\(rule.request)|\(key)"
    if takeOldest(slot) { return true }
    if let n = synthesizedKeys[slot], n > 0 {
      synthesizedKeys[slot] = n - 1
      notes.append(
        HarnessIssue(kind: .lateResultDropped, t: event.t, effect: event.kindName, key: key))
      return false
    }
    let issue = HarnessIssue(
      kind: .resultWithoutRequest, t: event.t, effect: event.kindName, key: key)
    if strict { throw HarnessError(issues: [issue]) }
    notes.append(issue)
    return true
  }

  /// A synthesized result is due: deliver it only if its request is still unanswered.
  @inlinable mutating func synthesized(_ event: InputEvent) -> Bool {
    guard let rule = V.rule(forResult: event), let fields = event.jsonFields, let key = rule.key(of: fields)
    else { return false }
    let slot = "\(rule.request)|\(key)"
    guard takeOldest(slot) else { return false }
    synthesizedKeys[slot, default: 0] += 1
    notes.append(
      HarnessIssue(kind: .synthesizedResult, t: event.t, effect: event.kindName, key: key))
    return true
  }

  /// Removes the oldest request pending under `slot` (and the slot when it is left empty);
  /// false when none is pending. In place: the queue is not copied out of the dictionary.
  @inlinable mutating func takeOldest(_ slot: String) -> Bool {
    guard let i = pending.index(forKey: slot), !pending.values[i].isEmpty else { return false }
    pending.values[i].removeFirst()
    if pending.values[i].isEmpty { pending.remove(at: i) }
    return true
  }

  /// The app was killed (`app_lifecycle terminated`): its requests die with the process and
  /// expect no result (a recorded one after the kill is a result without a request).
  @inlinable mutating func processKilled() {
    pending = [:]
    synthesizedKeys = [:]
  }

  /// Requests still unanswered, in request order.
  @inlinable var unanswered: [HarnessIssue] {
    pending.values.flatMap { $0 }.sorted { $0.order < $1.order }
      .map { HarnessIssue(kind: .requestWithoutResult, t: $0.t, effect: $0.request, key: $0.key) }
  }
}
