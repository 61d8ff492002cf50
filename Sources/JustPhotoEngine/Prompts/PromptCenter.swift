import CanonicalJSON
import EngineIO
import JustPhotoIO

/// A prompt on screen (one per slot).
public struct VisiblePrompt: Sendable, Equatable {
  public var definition: PromptDefinition
  public var payload: [(key: String, value: PromptPayloadValue)]
  /// Virtual time of the `emit` call (A.2.2 `emittedAt`; wall = wallStartMs + emittedAt).
  public var emittedAt: Millis
  public var emittedAtWall: Int64
  public var shownAt: Millis
  /// Rendered texts (placeholders filled, §4.2).
  public var titleZh: String?
  public var titleEn: String?
  public var messageZh: String
  public var messageEn: String
  /// Due time of the auto-dismiss timer while it runs.
  public var autoDismissAt: Millis?
  /// Remaining auto-dismiss time while the app is in the background (A.5.3).
  public var pausedRemainingMs: Millis?

  public var key: PromptKey { definition.key }
  public var level: PromptLevel { definition.level }
  public var surface: PromptSurface { definition.surface }
  public var slot: PromptSlot { definition.slot }
  public var priority: Int { definition.priority }
  /// `[C]` prompt id: `<key>|<emittedAt wall ms>`.
  public var promptId: String { "\(definition.key.rawValue)|\(emittedAtWall)" }

  public static func == (a: VisiblePrompt, b: VisiblePrompt) -> Bool {
    a.definition == b.definition && a.payload.map(\.key) == b.payload.map(\.key)
      && a.payload.map(\.value) == b.payload.map(\.value) && a.emittedAt == b.emittedAt
      && a.emittedAtWall == b.emittedAtWall && a.shownAt == b.shownAt && a.titleZh == b.titleZh
      && a.titleEn == b.titleEn && a.messageZh == b.messageZh && a.messageEn == b.messageEn
      && a.autoDismissAt == b.autoDismissAt && a.pausedRemainingMs == b.pausedRemainingMs
  }
}

/// The prompt system of ENGINE §4 (PRD Appendix A, the PRD version of §4.4): four slots,
/// frequency gates, throttle, preemption, auto-dismiss timers, dismiss / action / close, and the
/// `prompt` trace lines and A.13 `prompt_*` lines they produce.
///
/// A pure value: no clock (times come in as `at`), no randomness, no I/O. Timers leave as
/// `TimerRequest`s on the slot's `PromptSlot.timerID`; button effects leave as `PromptAction`
/// values for the caller to execute. Dictionaries are used for lookups only.
public struct PromptCenter: Sendable, Equatable {
  /// §1.8 `promptGlobalWindowScope`.
  public enum WindowScope: String, Sendable, Equatable {
    /// [D] G-18: the A.5.2 window counts the prompts shown in the same slot.
    case slot
    /// The literal reading: every prompt shown counts.
    case all
  }
  /// §1.8 `writeFailReasonStrings` (G-24): the {reason} phrase set of `write_failed`.
  public enum WriteFailStrings: String, Sendable, Equatable {
    case a10, c41
  }

  public struct Options: Sendable, Equatable {
    public var windowScope: WindowScope
    public var writeFailStrings: WriteFailStrings
    public init(windowScope: WindowScope = .slot, writeFailStrings: WriteFailStrings = .a10) {
      self.windowScope = windowScope
      self.writeFailStrings = writeFailStrings
    }
    /// From the engine options `promptGlobalWindowScope` and `writeFailReasonStrings`.
    public init(_ options: EngineOptions) {
      self.init(
        windowScope: WindowScope(rawValue: options[.promptGlobalWindowScope]) ?? .slot,
        writeFailStrings: WriteFailStrings(rawValue: options[.writeFailReasonStrings]) ?? .a10)
    }
  }

  /// One `emit` waiting for a system dialog to close (G-39) or tried in a batch (A.5.4).
  public struct Emission: Sendable, Equatable {
    public var definition: PromptDefinition
    public var payload: [(key: String, value: PromptPayloadValue)]
    public var emittedAt: Millis
    public init(_ definition: PromptDefinition, payload: [(key: String, value: PromptPayloadValue)] = [], emittedAt: Millis) {
      self.definition = definition
      self.payload = payload
      self.emittedAt = emittedAt
    }
    public static func == (a: Emission, b: Emission) -> Bool {
      a.definition == b.definition && a.payload.map(\.key) == b.payload.map(\.key)
        && a.payload.map(\.value) == b.payload.map(\.value) && a.emittedAt == b.emittedAt
    }
  }

  public var options: Options
  /// Indexed by `PromptSlot.index`.
  private var slots: [VisiblePrompt?] = Array(repeating: nil, count: PromptSlot.allCases.count)
  /// A.5.2 per-key `lastShownAt`.
  private var lastShownAt: [PromptKey: Millis] = [:]
  /// A.5.2 `suppressedUntil[key]`.
  private var suppressedUntil: [PromptKey: Millis] = [:]
  /// Every show, in order (for the global window); pruned to the longest window.
  private var shows: [(slot: PromptSlot, t: Millis)] = []
  private var installOnceSet: Set<String>
  private var sessionOnceSet: Set<String> = []
  /// A.5.1 `stateTransitions[key]` = true while the condition of a stateOnly prompt holds.
  private var stateActive: Set<PromptKey> = []
  /// `system_dialog {open}` (G-39).
  public private(set) var systemDialogOpen = false
  /// L3 emissions deferred while a system dialog is open, in emission order.
  public private(set) var deferred: [Emission] = []
  /// App in background: auto-dismiss timers paused (A.5.3).
  public private(set) var inBackground = false

  /// `installFlags`: installOnce keys already shown on this install (header `install_flags`).
  public init(options: Options = Options(), installFlags: [String] = [], sessionFlags: [String] = []) {
    self.options = options
    self.installOnceSet = Set(installFlags)
    self.sessionOnceSet = Set(sessionFlags.compactMap(Self.sessionOnceKey(fromFlag:)))
  }

  public static func == (a: PromptCenter, b: PromptCenter) -> Bool {
    a.options == b.options && a.slots == b.slots && a.lastShownAt == b.lastShownAt
      && a.suppressedUntil == b.suppressedUntil && a.shows.map(\.slot) == b.shows.map(\.slot)
      && a.shows.map(\.t) == b.shows.map(\.t) && a.installOnceSet == b.installOnceSet
      && a.sessionOnceSet == b.sessionOnceSet && a.stateActive == b.stateActive
      && a.systemDialogOpen == b.systemDialogOpen && a.deferred == b.deferred && a.inBackground == b.inBackground
  }

  // MARK: State queries

  /// The prompts on screen, in slot order (toast, banner, modal, Viewer bar).
  public var visible: [VisiblePrompt] { slots.compactMap { $0 } }
  public func visible(in slot: PromptSlot) -> VisiblePrompt? { slots[slot.index] }
  public func visible(key: PromptKey) -> VisiblePrompt? { slots.first { $0?.key == key } ?? nil }
  /// True while a visible prompt has `blocksShutter` (A.2.2).
  public var blocksShutter: Bool { slots.contains { $0?.definition.blocksShutter == true } }
  /// installOnce keys shown so far (to persist as install flags), sorted.
  public var installFlags: [String] { installOnceSet.sorted() }
  /// sessionOnce flags as stored in `sessions.flags_json` (§4.3), sorted.
  public var sessionFlags: [String] { sessionOnceSet.sorted().map { Self.sessionFlagPrefix + $0 } }
  /// stateOnly keys whose condition currently holds, sorted.
  public var activeStates: [String] { stateActive.map(\.rawValue).sorted() }

  static let sessionFlagPrefix = "prompt.session_once."
  static func sessionOnceKey(fromFlag flag: String) -> String? {
    flag.hasPrefix(sessionFlagPrefix) ? String(flag.dropFirst(sessionFlagPrefix.count)) : nil
  }

  // MARK: Inputs

  /// A new session (reset, or a restored one): sessionOnce gates start from `sessionFlags`
  /// (`prompt.session_once.<key>` names). Visible prompts, throttle and install flags are kept.
  public mutating func reset(sessionFlags: [String] = []) {
    sessionOnceSet = Set(sessionFlags.compactMap(Self.sessionOnceKey(fromFlag:)))
  }

  /// `emit(key)` for a catalogue key (§4.5). An unknown key produces nothing.
  public mutating func emit(
    _ key: PromptKey, payload: [(key: String, value: PromptPayloadValue)] = [], at t: Millis, context: PromptContext
  ) -> Effects {
    guard let def = PromptCatalogue.definition(key) else { return Effects() }
    return emit(def, payload: payload, at: t, context: context)
  }

  /// `emit(prompt)` of §4.4 for any definition (catalogue variants, engine-specific prompts).
  public mutating func emit(
    _ definition: PromptDefinition, payload: [(key: String, value: PromptPayloadValue)] = [], at t: Millis,
    context: PromptContext
  ) -> Effects {
    let e = Emission(definition, payload: payload, emittedAt: t)
    // G-39: a system permission dialog outranks every L3; the L3 waits until it closes.
    if definition.level == .L3 && systemDialogOpen {
      deferred.append(e)
      return Effects()
    }
    return attempt(e, now: t, context: context)
  }

  /// A.5.4: prompts emitted in one evaluation are tried in `priority desc, emittedAt desc`
  /// order (stable for full ties).
  public mutating func emitBatch(_ emissions: [Emission], at t: Millis, context: PromptContext) -> Effects {
    var out = Effects()
    for e in Self.batchOrder(emissions) {
      if e.definition.level == .L3 && systemDialogOpen {
        deferred.append(e)
      } else {
        out.append(attempt(e, now: t, context: context))
      }
    }
    return out
  }

  static func batchOrder(_ emissions: [Emission]) -> [Emission] {
    emissions.enumerated().sorted { a, b in
      if a.element.definition.priority != b.element.definition.priority {
        return a.element.definition.priority > b.element.definition.priority
      }
      if a.element.emittedAt != b.element.emittedAt { return a.element.emittedAt > b.element.emittedAt }
      return a.offset < b.offset
    }.map(\.element)
  }

  /// `system_dialog {open}` (G-39). On close the deferred L3s are tried as one batch at `t`.
  public mutating func systemDialog(open: Bool, at t: Millis, context: PromptContext) -> Effects {
    systemDialogOpen = open
    guard !open, !deferred.isEmpty else { return Effects() }
    let pending = deferred
    deferred = []
    return emitBatch(pending, at: t, context: context)
  }

  /// The condition of a stateOnly prompt ended (subject back, interruption over, in_flight < 2…):
  /// re-arms the gate (A.5.1), forgets a deferred emission of `key`, and removes the prompt if it
  /// is visible (reason `auto`: "until closed / condition ends", §4.1).
  public mutating func conditionEnded(_ key: PromptKey, at t: Millis, context: PromptContext) -> Effects {
    stateActive.remove(key)
    deferred.removeAll { $0.definition.key == key }
    guard let p = visible(key: key) else { return Effects() }
    return dismiss(p.slot, reason: .auto, at: t, context: context)
  }

  /// Removes a visible prompt because the engine's state made it moot (e.g. the write_failed item
  /// was resolved elsewhere): reason `auto`; the stateOnly gate is untouched.
  public mutating func withdraw(_ key: PromptKey, at t: Millis, context: PromptContext) -> Effects {
    guard let p = visible(key: key) else { return Effects() }
    return dismiss(p.slot, reason: .auto, at: t, context: context)
  }

  /// `prompt_action {key, action_id}`: `prompt_action_tapped`, then `prompt_dismissed(action)`
  /// with the same `ts_ms` ([C] order). The action comes back to the caller; a tap on a prompt
  /// that is not visible, or on a button it does not have, is ignored.
  public mutating func action(
    key: PromptKey, actionId: String, at t: Millis, context: PromptContext
  ) -> (Effects, PromptAction?) {
    guard let p = visible(key: key), let button = p.definition.actions.first(where: { $0.id == actionId }) else {
      return (Effects(), nil)
    }
    var out = Effects()
    out.outputs.append(.prompt(trace(p, op: "action", extra: (.action_id, actionId), at: t)))
    out.diagnostics.append(line(p, event: "prompt_action_tapped", extra: ("actionId", actionId), at: t, context: context))
    let kind = PromptActionKind(rawValue: actionId)
    let dismissal = kind == .dismiss || kind == .later || ["取消", "稍后", "知道了"].contains(button.zh)
    out.append(dismiss(p.slot, reason: .action, suppress: dismissal, at: t, context: context))
    return (out, PromptAction(key: key, actionId: actionId, kind: kind, isDismissal: dismissal, payload: p.payload))
  }

  /// `prompt_close {key}`: × on a closable (L2) banner → `prompt_dismissed(close)` and suppression.
  public mutating func close(key: PromptKey, at t: Millis, context: PromptContext) -> Effects {
    guard let p = visible(key: key), p.definition.isClosable else { return Effects() }
    return dismiss(p.slot, reason: .close, suppress: true, at: t, context: context)
  }

  /// A timer of ours fired: the slot's prompt auto-dismisses if its timer is due.
  public mutating func timerFired(_ id: TimerID, at t: Millis, context: PromptContext) -> Effects {
    guard case .promptAutoDismiss(let slot)? = EngineTimer.fixed[id] else { return Effects() }
    return autoDismissDue(slot, at: t, context: context)
  }

  /// The auto-dismiss timer of `slot` fired: its prompt goes if the timer is still due.
  public mutating func autoDismissDue(_ slot: PromptSlot, at t: Millis, context: PromptContext) -> Effects {
    guard let p = slots[slot.index], let due = p.autoDismissAt, t >= due else { return Effects() }
    return dismiss(slot, reason: .auto, byTimer: true, at: t, context: context)
  }

  /// App lifecycle (A.5.3): in the background auto-dismiss timers pause and resume with the
  /// remaining time when the app is active again.
  public mutating func appLifecycle(background: Bool, at t: Millis) -> Effects {
    guard background != inBackground else { return Effects() }
    inBackground = background
    var out = Effects()
    for slot in PromptSlot.allCases {
      guard var p = slots[slot.index] else { continue }
      if background, let due = p.autoDismissAt {
        p.pausedRemainingMs = max(0, due - t)
        p.autoDismissAt = nil
        out.timers.append(.cancel(slot.timerID))
      } else if !background, let remaining = p.pausedRemainingMs {
        p.pausedRemainingMs = nil
        p.autoDismissAt = t + remaining
        out.timers.append(.schedule(slot.timerID, at: t + remaining))
      }
      slots[slot.index] = p
    }
    return out
  }

  // MARK: The §4.4 algorithm

  private mutating func attempt(_ e: Emission, now: Millis, context: PromptContext) -> Effects {
    let def = e.definition
    let key = def.key
    // 1. Gate (A.5.1).
    switch def.gate {
    case .none: break
    case .installOnce:
      if installOnceSet.contains(key.rawValue) { return dropped(e, .gate, at: now, context: context) }
    case .sessionOnce:
      if sessionOnceSet.contains(key.rawValue) { return dropped(e, .gate, at: now, context: context) }
    case .stateOnly:
      // Only the false→true transition passes; the transition is consumed even if a later
      // step drops the prompt.
      if stateActive.contains(key) { return dropped(e, .gate, at: now, context: context) }
      stateActive.insert(key)
    }
    // 2. Throttle (A.5.2): per key, then suppression.
    if !context.faults.contains(.promptThrottleOff), let last = lastShownAt[key], now - last < def.throttle.perKeyMinIntervalMs {
      return dropped(e, .throttle, at: now, context: context)
    }
    if !context.faults.contains(.promptSuppressionIgnored), let until = suppressedUntil[key], now < until {
      return dropped(e, .suppressed, at: now, context: context)
    }
    // 3–4. Slot and preemption (A.4.3). A prompt that loses to the occupant is dropped as
    // lower_priority (before the window check, S40 at 10 000); one that strictly outranks the
    // occupant is exempt from the global window ([D] §4.4 step 4).
    let slot = def.slot
    var strictlyPreempts = false
    if let cur = slots[slot.index] {
      if def.priority > cur.priority {
        strictlyPreempts = true
      } else if def.priority == cur.priority && e.emittedAt >= cur.emittedAt {
        // A.4.3 tie rule ([C] `>=`): the later emission wins.
      } else {
        return dropped(e, .lowerPriority, at: now, context: context)
      }
    }
    if !strictlyPreempts || context.faults.contains(.promptWindowBeforePreemption) {
      let inWindow = shows.filter {
        (options.windowScope == .all || $0.slot == slot) && now - $0.t < def.throttle.globalWindowMs
      }.count
      if inWindow >= def.throttle.globalMaxCountInWindow {
        return dropped(e, .throttle, at: now, context: context)
      }
    }
    // Show: the old occupant goes first (prompt_dismissed preempt, then prompt_shown, §6.3).
    var out = Effects()
    if slots[slot.index] != nil {
      out.append(dismiss(slot, reason: .preempt, at: now, context: context))
    }
    out.append(show(e, now: now, context: context))
    return out
  }

  private mutating func show(_ e: Emission, now: Millis, context: PromptContext) -> Effects {
    let def = e.definition
    var p = VisiblePrompt(
      definition: def, payload: e.payload, emittedAt: e.emittedAt, emittedAtWall: context.wallStartMs + e.emittedAt,
      shownAt: now, titleZh: nil, titleEn: nil, messageZh: "", messageEn: "", autoDismissAt: nil,
      pausedRemainingMs: nil)
    let (zhValues, enValues) = placeholderValues(def.key, e.payload)
    p.titleZh = def.titleZh.map { PromptText.render($0, zhValues) }
    p.titleEn = def.titleEn.map { PromptText.render($0, enValues) }
    p.messageZh = PromptText.render(def.messageZh, zhValues)
    p.messageEn = PromptText.render(def.messageEn, enValues)
    var out = Effects()
    if let ms = PromptTimings.autoDismissMs(def, voiceOver: context.voiceOver) {
      if inBackground {
        p.pausedRemainingMs = ms
      } else {
        p.autoDismissAt = now + ms + (context.faults.contains(.promptTTLOffByOne) ? 1 : 0)
        out.timers.append(.schedule(def.slot.timerID, at: now + ms))
      }
    }
    slots[def.slot.index] = p
    lastShownAt[def.key] = now
    shows.append((def.slot, now))
    let horizon = now - Self.windowHorizonMs
    if let first = shows.firstIndex(where: { $0.t > horizon }), first > 0 { shows.removeFirst(first) }
    switch def.gate {
    case .installOnce: installOnceSet.insert(def.key.rawValue)
    case .sessionOnce: sessionOnceSet.insert(def.key.rawValue)
    case .none, .stateOnly: break
    }
    var shownLine = trace(p, op: "shown", extra: nil, at: now)
    if let ms = PromptTimings.autoDismissMs(def, voiceOver: context.voiceOver) { shownLine[.auto_ms] = .number(Double(ms)) }
    out.outputs.append(.prompt(shownLine))
    out.diagnostics.append(line(p, event: "prompt_shown", extra: nil, at: now, context: context))
    return out
  }

  /// Shows older than this never count in any window (the longest catalogue window is 60 s).
  static let windowHorizonMs: Millis = 3_600_000

  private mutating func dismiss(
    _ slot: PromptSlot, reason: DismissReason, suppress: Bool = false, byTimer: Bool = false, at t: Millis,
    context: PromptContext
  ) -> Effects {
    guard let p = slots[slot.index] else { return Effects() }
    slots[slot.index] = nil
    var out = Effects()
    if p.autoDismissAt != nil && !byTimer { out.timers.append(.cancel(slot.timerID)) }
    if suppress && p.definition.throttle.suppressAfterDismissMs > 0 {
      suppressedUntil[p.key] = t + p.definition.throttle.suppressAfterDismissMs
    }
    var record = trace(p, op: "dismissed", extra: (.dismiss_reason, reason.rawValue), at: t)
    // `auto` covers both the timer and "the condition ended" (§4.1); the trace tells them apart.
    if reason == .auto { record[.by] = .string(byTimer ? "timer" : "condition") }
    out.outputs.append(.prompt(record))
    out.diagnostics.append(
      line(p, event: "prompt_dismissed", extra: ("dismissReason", reason.rawValue), at: t, context: context))
    return out
  }

  private func dropped(_ e: Emission, _ reason: PromptDropReason, at t: Millis, context: PromptContext) -> Effects {
    let (zhValues, enValues) = placeholderValues(e.definition.key, e.payload)
    var fields = Self.baseFields(e.definition, op: "dropped")
    fields[.drop_reason] = .string(reason.rawValue)
    fields[.zh] = .string(PromptText.render(e.definition.messageZh, zhValues))
    fields[.en] = .string(PromptText.render(e.definition.messageEn, enValues))
    return Effects(outputs: [.prompt(fields)])
  }

  // MARK: Outputs

  static func baseFields(_ def: PromptDefinition, op: String) -> JSONObject {
    JSONObject(trace: [
      .op: .string(op), .key: .string(def.key.rawValue), .level: .string(def.level.rawValue),
      .surface: .string(def.surface.rawValue), .priority: .number(Double(def.priority)),
    ])
  }

  /// `{"out":"prompt","op",key,level,surface,priority,(dismiss_reason|action_id)?,zh,en}` (§1.7).
  private func trace(_ p: VisiblePrompt, op: String, extra: (TraceField, String)?, at t: Millis) -> JSONObject {
    var fields = Self.baseFields(p.definition, op: op)
    if let extra { fields[extra.0] = .string(extra.1) }
    fields[.zh] = .string(p.messageZh)
    fields[.en] = .string(p.messageEn)
    return fields
  }

  /// A.13 `prompt_*` line (§4.10): the payload keys of the reference export records 1–3.
  private func line(
    _ p: VisiblePrompt, event: String, extra: (String, String)?, at t: Millis, context: PromptContext
  ) -> DiagnosticLine {
    var payload: [(key: String, value: String)] = [
      ("key", p.key.rawValue),
      ("level", p.level.rawValue),
      ("surface", p.surface.rawValue),
      ("priority", String(p.priority)),
      ("blocksShutter", p.definition.blocksShutter ? "true" : "false"),
      ("emittedAt", String(p.emittedAtWall)),
      ("payload", Self.payloadJSON(p.payload)),
      ("prompt_id", p.promptId),
    ]
    if let extra { payload.append((extra.0, extra.1)) }
    return DiagnosticLine(
      tsMs: context.wallStartMs + t, sessionId: context.sessionId, event: event, scene: context.scene,
      payload: payload)
  }

  /// The prompt payload as a JSON string: keys sorted, values tagged (`PromptPayloadValue`);
  /// "{}" when empty. A repeated key keeps its last value.
  static func payloadJSON(_ payload: [(key: String, value: PromptPayloadValue)]) -> String {
    var obj = JSONObject()
    for (k, v) in payload { obj[k] = v.tagged }
    return JSONWriter.write(.object(obj), sortKeys: true)
  }

  /// Placeholder texts (§4.2): `{reason}` of write_failed / ref_reject_not_suitable becomes its
  /// phrase (§4.8 / §3.14); `{seconds}` has one decimal; anything else is the value's text.
  private func placeholderValues(
    _ key: PromptKey, _ payload: [(key: String, value: PromptPayloadValue)]
  ) -> (zh: [String: String], en: [String: String]) {
    var zh: [String: String] = [:]
    var en: [String: String] = [:]
    for (name, value) in payload {
      var z = value.text
      var e = value.text
      if name == "seconds", case .double(let d) = value {
        z = PromptText.oneDecimal(d)
        e = z
      } else if name == "seconds", case .int(let i) = value {
        z = PromptText.oneDecimal(Double(i))
        e = z
      } else if name == "reason", case .string(let raw) = value {
        if key == .write_failed, let r = WriteFailReason(rawValue: raw) {
          let phrase = options.writeFailStrings == .a10 ? r.a10 : r.c41
          (z, e) = (phrase.zh, phrase.en)
        } else if key == .ref_reject_not_suitable, let r = RefRejectReason(rawValue: raw) {
          (z, e) = (r.text.zh, r.text.en)
        }
      }
      zh[name] = z
      en[name] = e
    }
    return (zh, en)
  }
}
