import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import PoseSpec
import Recording
import Replay

/// Bounds of a scoring corpus held in memory.
package enum ScoreLimits {
  /// Events (labels included) of all recordings together: about 18 hours of 15 fps frames,
  /// some 600 MB decoded. Checked while decoding, before each event is kept.
  package static let corpusEventsMax = 1_000_000
  /// Recordings in one corpus.
  package static let recordingsMax = 10_000
  /// Pixel reads remembered per recording for a corpus replayed many times (`tune`,
  /// `LumaReadMemo`): some 100 bytes each, so at most ~20 MB per memo, one memo per recording
  /// and parallel replay. Reads past it are computed from the pixels each replay.
  package static let lumaReadsMax = 200_000
  /// Observations the ``ObservationTape``s of one study hold together, every corpus and draw
  /// (16 bytes each, so 256 MiB, and some 10 bytes an observation more for their entries),
  /// taken by each tape as it grows; replays past it compute their observations.
  package static let observationsMax = 16_000_000
  /// Observation keys (`ObservationKey`) with a tape, per recording: a study whose trials move
  /// what the observations read (formulas, ROIs, options) shares nothing past the first few.
  package static let observationTapesPerRecording = 4
  /// Decision keys (`DecisionKey`) with a ``DecisionTape``, per observation tape: the built-in
  /// space's `persistFrames` takes 7 values.
  package static let decisionTapesPerTape = 8
  /// Decisions the ``DecisionTape``s of one study hold together (~48 bytes each, a new Match
  /// result weighing 3), apart from `observationsMax`: with one bound for both, a study whose
  /// decision keys rarely repeat (`tune rebuild` of docs/tuned) spent the observations' room on
  /// decisions and replayed slower.
  package static let decisionsMax = 2_000_000
}

/// One recording decoded once, kept in memory for any number of replays.
package struct LoadedRecording: Sendable {
  /// The file name without its recording suffix.
  package let name: String
  package let path: String
  /// The header, with `duration_ms` set to the replay's end when the file has none.
  package let header: JSONObject
  /// The engine inputs in file order (labels removed).
  package let events: [InputEvent]
  /// The ground truth; nil when the recording has no `label` events and no header `labels`
  /// (a scenario that declares no intent, an imported session): unlabelled.
  package let labels: LabelTrack?
  /// The end of the replay: `duration_ms`, else the last event's t.
  package let durationMs: Millis
  /// Pixel reads of the recording's luma planes remembered across its replays
  /// (`CorpusScorer.memoizingLumaReads`); nil: each replay reads every plane's pixels.
  package internal(set) var lumaMemos: LumaMemoPool? = nil
  /// Cue observations of earlier replays of the recording, by observation key
  /// (`CorpusScorer.memoizingObservations`); nil: each replay computes its own.
  package internal(set) var observationTapes: ObservationTapes? = nil
  /// Which draw of its scenario this is (``SeedDraws``; 0: the committed recording), for the
  /// `known:` markers of its `expect:` rules.
  package internal(set) var draw: Int = 0
}

/// Checks a recording's expectations (`expect:` blocks, issue 15 item 1) on the records of one
/// replay (`cue_display`, `prompt`, `praise`); returns one message per failed expectation and
/// one per known miss (a rule whose `known:` marker names the recording's `draw`: reported, not
/// a failure).
package typealias ExpectationChecker = @Sendable (_ recording: LoadedRecording, _ records: [TraceRecord]) -> (
  failures: [String], known: [String]
)

/// Scores a corpus of recordings for any spec and options (issue 15 item 3): each recording is
/// decoded once (`init`), then every `score` replays all of them in process, in parallel on
/// `jobs` threads, and applies `ScoreRules`.
package struct CorpusScorer: Sendable {
  package private(set) var recordings: [LoadedRecording]
  package var windows = ScoreWindows()
  /// The guidance budgets of `verify --budgets`; a recording's header may set its own.
  package var budgets = BudgetLimits()
  package var jobs = 1
  package var expectations: ExpectationChecker?
  /// A planted fault of the scorer's view (issue 35 item 4): every displayed-cue change
  /// reaches the label rules this many ms late, at the first input event at or after it (a
  /// display that lags by one frame at most more). Only code sets it (tests that the latency
  /// objectives see a lag); budgets and `expect:` rules still read the engine's own output.
  package var plantedDisplayDelayMs: Millis = 0

  /// Decodes `paths` (recordings, not folders; see `recordingPaths`). Exit 2 on a file that
  /// cannot be read, events out of order, or more than `eventsMax` events in total.
  package init(paths: [String], eventsMax: Int = ScoreLimits.corpusEventsMax) throws(HarnessFailure) {
    guard paths.count <= ScoreLimits.recordingsMax else {
      throw .badInput("\(paths.count) recordings, more than ScoreLimits.recordingsMax = \(ScoreLimits.recordingsMax)")
    }
    var loaded: [LoadedRecording] = []
    var budget = eventsMax
    for path in paths {
      let r = try Self.load(path, eventsBudget: budget, eventsMax: eventsMax)
      budget -= r.events.count + (r.labels?.changes.count ?? 0)
      loaded.append(r)
    }
    recordings = loaded
  }

  /// The same scorer remembering each recording's pixel reads (``LumaReadMemo``) for the
  /// replays of every later `score` (a `tune` study replays the corpus once per trial; a pixel
  /// metric depends on the plane and the ROI alone). Replaced the per-study summed-area tables
  /// (`LumaTableCache`, ~0.9 GB for the tune and validation corpora; issue 38 item 2): no
  /// plane's tables are held, and a plane read once per replay is read from its pixels once.
  package func memoizingLumaReads(readsMax: Int = ScoreLimits.lumaReadsMax) -> CorpusScorer {
    var out = self
    for i in out.recordings.indices {
      let hasLuma = out.recordings[i].events.contains { if case .luma = $0.payload { true } else { false } }
      out.recordings[i].lumaMemos = hasLuma ? LumaMemoPool(readsMax: readsMax) : nil
    }
    return out
  }

  /// The same scorer keeping each recording's cue observations (``ObservationTape``) for the
  /// replays of every later `score` whose trial shares their observation key
  /// (``ObservationKey``: the spec and options without what is read after an observation). A
  /// tune study whose trials move anti-jitter, thresholds or gate options evaluates each
  /// frame's formulas in its first trial only. The tapes' observations come from `budget`,
  /// which a study shares between its corpora and draws.
  package func memoizingObservations(budget: ObservationBudget = ObservationBudget(ScoreLimits.observationsMax))
    -> CorpusScorer
  {
    var out = self
    for i in out.recordings.indices {
      let frames = out.recordings[i].events.reduce(0) { n, e in if case .landmarks = e.payload { n + 1 } else { n } }
      out.recordings[i].observationTapes = ObservationTapes(
        landmarkEvents: frames, durationMs: out.recordings[i].durationMs, budget: budget)
    }
    return out
  }

  /// Scorer over already loaded recordings (tests, subsets).
  package init(recordings: [LoadedRecording]) { self.recordings = recordings }

  static func load(_ path: String, eventsBudget: Int, eventsMax: Int) throws(HarnessFailure) -> LoadedRecording {
    try load(reader: Harness.openReader(path), path: path, eventsBudget: eventsBudget, eventsMax: eventsMax)
  }

  /// A recording from any reader (a file's, or a scenario drawn in memory: `SeedDraws`);
  /// `path` names it in messages and gives its name.
  package static func load(reader: any RecordingEventReader, path: String, eventsBudget: Int, eventsMax: Int) throws(HarnessFailure)
    -> LoadedRecording
  {
    if let r = reader as? RecordingReader, r.declaredEvents > Int64(eventsBudget) {
      throw HarnessFailure.badInput(
        "\(path): \(r.declaredEvents) events (its chunk index), more than the corpus has left under ScoreLimits.corpusEventsMax = \(eventsMax); score fewer recordings at once")
    }
    var events: [InputEvent] = []
    var labels: [LabelTrack.Change] = []
    var last: Millis = 0
    do {
      while let e = try reader.nextEvent() {
        guard events.count + labels.count < eventsBudget else {
          throw HarnessFailure.badInput(
            "\(path): the corpus has more than \(eventsMax) events (ScoreLimits.corpusEventsMax); score fewer recordings at once")
        }
        guard e.t >= last else {
          throw HarnessFailure.badInput("\(path): event \(events.count + labels.count + 1) at t=\(e.t) goes back in time (previous t=\(last)); events must be sorted by t")
        }
        last = e.t
        if e.kind == .label {
          guard let (cue, holds, since) = e.labelMark else {
            throw HarnessFailure.badInput("\(path): label at t=\(e.t): expected {cue_id: string, holds: bool, since?: ms}")
          }
          labels.append(LabelTrack.Change(t: e.t, cue: cue, holds: holds, since: since))
        } else {
          events.append(e)
        }
      }
    } catch let error as HarnessFailure {
      throw error
    } catch {
      throw .badInput("\((error as? RecordingError)?.description ?? "\(path): \(error)")")
    }
    var header = reader.header
    let end = RecordingHeader(header).durationMs ?? last
    if header["duration_ms"] == nil { header["duration_ms"] = .number(Double(end)) }
    // A recording whose scenario declares intent (header `labels`) is labelled even when no
    // cue should ever show (a still subject: every display is a false alarm). Recordings of
    // the earlier, spec-computed labels (`labels_spec_sha256`) still read as labelled.
    let labelled = !labels.isEmpty || header["labels"] != nil || header["labels_spec_sha256"] != nil
    return LoadedRecording(
      name: recordingName(path), path: path, header: header, events: events,
      labels: labelled ? LabelTrack(changes: labels, endMs: end) : nil, durationMs: end)
  }

  /// The file name without `.jprec`, `.jsonl` or `.jsonl.zst`.
  package static func recordingName(_ path: String) -> String {
    var name = Paths.name(path)
    for suffix in [".jprec", ".jsonl.zst", ".jsonl"] where name.hasSuffix(suffix) {
      name.removeLast(suffix.count)
      break
    }
    return name
  }

  /// Recording files for command-line arguments: a file as is, a folder as its recordings
  /// (`.jprec`, and `.jsonl`/`.jsonl.zst` recordings), sorted by name.
  package static func recordingPaths(_ arguments: [String]) throws(HarnessFailure) -> [String] {
    var out: [String] = []
    for arg in arguments {
      var isDir: ObjCBool = false
      guard FileManager.default.fileExists(atPath: arg, isDirectory: &isDir) else {
        throw .badInput("\(arg): no such recording or folder")
      }
      guard isDir.boolValue else {
        out.append(arg)
        continue
      }
      let names: [String]
      do { names = try FileManager.default.contentsOfDirectory(atPath: arg) } catch {
        throw .badInput("\(arg): cannot list the folder (\(SystemReason.of(error)))")
      }
      let base = URL(fileURLWithPath: arg)
      out += names.sorted().map { base.joined($0).path }
        .filter { $0.hasSuffix(".jprec") || ($0.hasSuffix(".jsonl") || $0.hasSuffix(".jsonl.zst")) && Harness.isRecording($0) }
    }
    return out
  }
}

extension CorpusScorer {
  /// Replays every recording with `spec` and engine options from each header then
  /// `overrides` (as `replay --set`), and scores it. Per-recording results keep corpus order.
  package func score(spec: PoseSpecDocument, overrides: [(name: String, value: String)] = []) throws(HarnessFailure)
    -> CorpusScore
  {
    try score(spec: spec, overrides: overrides, compile: { CompiledSpec(spec: spec, errorSourceFormulaFirst: $0) })
  }

  /// `score`, with the spec compiled by `compile` for each `errorSource` option in use (a
  /// trial's ``PreparedTrial`` compiles it once for all its corpora).
  /// `observationKey`: the trial's ``ObservationKey`` (nil: no tape is read or recorded);
  /// `decisionKey`, its ``DecisionKey`` (nil: no decisions).
  func score(
    spec: PoseSpecDocument, overrides: [(name: String, value: String)], compile: (Bool) -> CompiledSpec,
    observationKey: String? = nil, decisionKey: String? = nil
  ) throws(HarnessFailure) -> CorpusScore {
    var probe = EngineOptions()
    for o in overrides {
      do { try probe.set(o.name, o.value) } catch { throw .badInput("--set: \(error.description)") }
    }
    let priorities = Self.priorities(spec)
    var built: [EngineConfiguration] = []
    for rec in recordings {
      do { built.append(try EngineConfiguration(spec: spec, header: RecordingHeader(rec.header), overrides: overrides)) } catch {
        throw .badInput("\(rec.path): \(error.description)")
      }
    }
    let configs = built
    // The spec is compiled once per `errorSource` option in use, not once per recording, and the
    // immutable plans are shared by every replay (on every thread).
    let compiled = [false, true].filter { f in configs.contains { $0.options.errorSourceFormulaFirst == f } }
      .map(compile)
    let results = ParallelMap.run(Array(recordings.indices), jobs: jobs) { i in
      Result { () throws(HarnessFailure) in
        let config = configs[i]
        let shared = compiled.first { $0.formulaFirst == config.options.errorSourceFormulaFirst }
        return try self.scoreOne(
          self.recordings[i], config: config, compiled: shared, priorities: priorities, observationKey: observationKey,
          decisionKey: decisionKey)
      }
    }
    var per: [RecordingScore] = []
    for (i, r) in results.enumerated() {
      switch r {
      case .success(let o): per.append(RecordingScore(name: recordings[i].name, objectives: o))
      case .failure(let e): throw e
      }
    }
    return CorpusScore(recordings: per)
  }

  /// `displays` each moved to the first input event at or after `t + delay` (`t + delay` when
  /// no event follows); those landing after `end` are dropped (never seen in the replay).
  static func delayed(_ displays: [(t: Millis, cue: String?)], by delay: Millis, events: [InputEvent], end: Millis)
    -> [(t: Millis, cue: String?)]
  {
    var out: [(t: Millis, cue: String?)] = []
    var e = 0
    for d in displays {
      let due = d.t + delay
      while e < events.count && events[e].t < due { e += 1 }
      let at = e < events.count ? events[e].t : due
      if at <= end { out.append((at, d.cue)) }
    }
    return out
  }

  /// The spec priority of each cue id (the first cue with that id).
  static func priorities(_ spec: PoseSpecDocument) -> [String: Int] {
    Dictionary(spec.cues.map { ($0.id, $0.priority) }, uniquingKeysWith: { a, _ in a })
  }

  func scoreOne(
    _ rec: LoadedRecording, config: EngineConfiguration, compiled: CompiledSpec?, priorities: [String: Int],
    observationKey: String? = nil, decisionKey: String? = nil
  ) throws(HarnessFailure) -> RecordingObjectives {
    let memo = rec.lumaMemos?.take()
    defer { if let memo { rec.lumaMemos?.give(memo) } }
    let lent = observationKey.flatMap { rec.observationTapes?.lend(key: $0, decisionKey: decisionKey) }
    var completed = false
    defer { if let lent, let observationKey { rec.observationTapes?.give(lent, key: observationKey, completed: completed) } }
    var output = try replay(rec, config: config, compiled: compiled, memo: memo, tape: lent?.tape, decisions: lent?.decisions)
    completed = true
    if lent?.decisions?.reading != nil, lent?.decisions?.broken == true {
      // The replay left the decisions it read: its outputs are not the trial's. Again without.
      rec.observationTapes?.countRerun()
      output = try replay(rec, config: config, compiled: compiled, memo: memo, tape: nil, decisions: nil)
    }
    var displays = output.displays
    if plantedDisplayDelayMs > 0 { displays = Self.delayed(displays, by: plantedDisplayDelayMs, events: rec.events, end: rec.durationMs) }
    var o = ScoreRules.evaluate(
      displays: displays, labels: rec.labels, praises: output.praises, durationMs: rec.durationMs,
      windows: windows, priority: { priorities[$0] ?? Int.min })
    let limits = try ScoreBudgets.limits(header: rec.header, base: budgets, path: rec.path)
    o.budgetBreaches = BudgetCheck.check(name: rec.name, records: output.budgetRecords, limits: limits).breaches
    if let expectations { (o.expectationFailures, o.knownMisses) = expectations(rec, output.records) }
    return o
  }

  /// One replay of `rec` into a fresh score output.
  func replay(
    _ rec: LoadedRecording, config: EngineConfiguration, compiled: CompiledSpec?, memo: LumaReadMemo?,
    tape: ObservationTape?, decisions: DecisionRun?
  ) throws(HarnessFailure) -> ScoreOutput {
    var source = InMemoryEventSource(header: rec.header, events: rec.events)
    var output = ScoreOutput(keepRecords: expectations != nil)
    let engine = Engine(configuration: config, compiled: compiled, lumaMemo: memo, observationTape: tape, decisions: decisions)
    var replayer = Replayer(engine: engine, sessionStore: MemorySessionStore())
    do { _ = try replayer.run(&source, into: &output, recording: rec.path) } catch {
      throw HarnessFailure(code: error.exitCode.rawValue, message: error.description)
    }
    return output
  }

  /// The shared interface with `tune` (`TrialEvaluator`): the spec as a JSON value and engine
  /// options, whose non-default values override each recording's header options; returns
  /// `CorpusScore.objectiveKeys` for the whole corpus.
  package func objectives(specJSON: JSONValue, options: EngineOptions) throws -> [String: Double] {
    try objectives(trial: PreparedTrial(specJSON: specJSON, options: options))
  }

  /// ``objectives(specJSON:options:)`` with the trial's spec validated and compiled once for
  /// every corpus that scores it.
  package func objectives(trial: PreparedTrial) throws -> [String: Double] {
    let spec = try trial.spec()
    return try score(
      spec: spec, overrides: trial.overrides, compile: { trial.compiledSpec(spec, formulaFirst: $0) },
      observationKey: trial.observationKey, decisionKey: trial.decisionKey
    ).totals.dictionary
  }
}

/// The ``LumaReadMemo``s of one recording: each replay borrows one (a memo is used by one
/// engine at a time) and gives it back, so parallel replays (`--jobs`) each have their own and
/// at most `jobs` memos exist per recording. Every memo gives the same values, so which one a
/// replay borrows changes nothing.
package final class LumaMemoPool: @unchecked Sendable {
  private let lock = NSLock()
  private var free: [LumaReadMemo] = []
  private var all: [LumaReadMemo] = []
  let readsMax: Int

  init(readsMax: Int) { self.readsMax = readsMax }

  func take() -> LumaReadMemo {
    lock.lock()
    defer { lock.unlock() }
    if let m = free.popLast() { return m }
    let m = LumaReadMemo(readsMax: readsMax)
    all.append(m)
    return m
  }

  func give(_ memo: LumaReadMemo) {
    lock.lock()
    defer { lock.unlock() }
    free.append(memo)
  }

  /// Totals over this recording's memos (tests: work done, not time).
  package var counts: (memos: Int, planes: Int, computed: Int, hits: Int) {
    lock.lock()
    defer { lock.unlock() }
    return all.reduce(into: (all.count, 0, 0, 0)) { c, m in
      c.planes += m.planes
      c.computed += m.computed
      c.hits += m.hits
    }
  }
}
