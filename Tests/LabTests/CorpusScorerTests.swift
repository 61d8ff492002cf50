import CanonicalJSON
import EngineIO
import JustPhotoIO
import Foundation
import JustPhotoPlugin
import Lab
import PoseSpec
import Testing

/// `CorpusScorer` on committed recordings: decoded once, replayed in process for any spec or
/// options, the same scores on 1 or 2 threads, the displays of the golden, the event limit.
@Suite("Corpus scorer")
struct CorpusScorerTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static func path(_ rel: String) -> String { root.appendingPathComponent(rel).path }
  static let names = ["drift-left-and-back", "s05-head-level-flicker", "s08-praise-freeze"]
  static var paths: [String] { names.map { path("Recordings/\($0).jprec") } }
  static func spec() throws -> PoseSpecDocument { try Harness.loadSpec(path: path("PoseSpec.json")) }

  @Test("the displayed-cue changes counted equal the golden trace's; recordings that declare intent are labelled")
  func matchesGolden() throws {
    let scorer = try CorpusScorer(paths: Self.paths)
    #expect(scorer.recordings.map(\.name) == Self.names)
    let score = try scorer.score(spec: Self.spec())
    for (i, name) in Self.names.enumerated() {
      let golden = try String(contentsOfFile: Self.path("Golden/\(name).trace.jsonl"), encoding: .utf8)
      let o = score.recordings[i].objectives
      #expect(try o.cueChanges == Self.cueChanges(golden), "\(name)")
      // Only drift-left-and-back declares its intent (`intent:` steps); the others are unlabelled.
      #expect(o.labelled == (name == "drift-left-and-back"), "\(name)")
      let praises = golden.split(separator: "\n").filter { $0.contains("\"out\":\"praise\"") && $0.contains("\"state\":\"on\"") }
      #expect(o.praises == praises.count, "\(name)")
    }
  }

  /// Changes of the displayed cue id in a canonical trace.
  static func cueChanges(_ trace: String) throws -> Int {
    var shown: String? = nil
    var changes = 0
    for line in trace.split(separator: "\n") where line.contains("\"out\":\"cue_display\"") {
      let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let cue = o["cue_id"] as? String
      if cue != shown { changes += 1 }
      shown = cue
    }
    return changes
  }

  @Test("scores are the same on 1 and 2 threads and across runs; a changed option changes the replay")
  func deterministicAndParallel() throws {
    var scorer = try CorpusScorer(paths: Self.paths)
    let spec = try Self.spec()
    let one = try scorer.score(spec: spec)
    scorer.jobs = 2
    #expect(try scorer.score(spec: spec) == one)
    #expect(try scorer.score(spec: spec).json() == one.json())
    let keys = try scorer.objectives(specJSON: spec.raw, options: EngineOptions())
    #expect(keys.keys.sorted() == CorpusScore.objectiveKeys.sorted())
    #expect(keys["misses"] == Double(one.totals.misses))
    #expect(throws: HarnessFailure.self) { try scorer.score(spec: spec, overrides: [("noSuchOption", "x")]) }
  }

  /// Issue 38 item 2: `tune` validates and compiles a trial's spec once for its fit and
  /// validation corpora (`PreparedTrial`); each corpus scores what it scored from the JSON.
  @Test("a prepared trial shared by two corpora scores each as its own spec and options would; a refused spec, the same message each time")
  func preparedTrialShared() throws {
    let fit = try CorpusScorer(paths: Array(Self.paths.prefix(2)))
    let validation = try CorpusScorer(paths: Array(Self.paths.suffix(1)))
    let spec = try Self.spec()
    for formulaFirst in [false, true] {
      var options = EngineOptions()
      if formulaFirst { try options.set("errorSource", "formulaFirst") }
      let trial = PreparedTrial(specJSON: spec.raw, options: options)
      #expect(try fit.objectives(trial: trial) == fit.objectives(specJSON: spec.raw, options: options))
      #expect(try validation.objectives(trial: trial) == validation.objectives(specJSON: spec.raw, options: options))
      #expect(try SeededScorer(draws: [fit, fit]).objectives(trial: trial).count > 0)
    }
    let refused = PreparedTrial(specJSON: .object(["prdVersion": "0"]), options: EngineOptions())
    var messages: [String] = []
    for scorer in [fit, validation] {
      do { _ = try scorer.objectives(trial: refused) } catch let e as HarnessFailure { messages.append(e.message) }
    }
    #expect(messages.count == 2 && messages[0] == messages[1] && messages[0].hasPrefix("trial spec"))
  }

  @Test("a spec edit reaches the replay: no cue fires when every trigger is null")
  func specEditChangesScore() throws {
    let scorer = try CorpusScorer(paths: [Self.paths[0]])
    let spec = try Self.spec()
    let base = try scorer.score(spec: spec)
    #expect(base.recordings[0].objectives.cueChanges > 0)
    let silent = try scorer.objectives(specJSON: Self.disablingCues(spec.raw), options: EngineOptions())
    #expect(silent["false_alarms"] == 0)
    #expect(silent["flicker_per_min"] == 0)
    #expect(silent["misses"]! >= Double(base.totals.misses))
  }

  /// The spec with every cue's `trigger.noRef` / `withRef` set to null (never triggers).
  static func disablingCues(_ raw: JSONValue) -> JSONValue {
    guard case .object(var doc) = raw, case .array(let cues)? = doc["cues"] else { return raw }
    doc["cues"] = .array(
      cues.map { cue in
        guard case .object(var c) = cue, case .object(var trigger)? = c["trigger"] else { return cue }
        for mode in ["noRef", "withRef"] where trigger[mode] != nil { trigger[mode] = .null }
        c["trigger"] = .object(trigger)
        return .object(c)
      })
    return .object(doc)
  }

  @Test("a recording whose intent is 'nothing should show' is labelled without label events; one without intent is not")
  func stillSubjectIsLabelled() throws {
    let scorer = try CorpusScorer(paths: [Self.path("Recordings/tune-cafe-still.jprec"), Self.path("Recordings/s28-capture-happy-path.jprec")])
    #expect(scorer.recordings[0].labels != nil)
    #expect(scorer.recordings[0].labels?.changes.isEmpty == true)
    #expect(scorer.recordings[1].labels == nil)  // declares no intent: unlabelled
  }

  @Test("memoizingLumaReads (tune's scorer): the scores of a plain scorer; a second score computes no pixel read; no memo for a recording without luma")
  func lumaReadsRemembered() throws {
    let paths = [Self.path("Recordings/val-cafe-dim.jprec"), Self.path("Recordings/drift-left-and-back.jprec")]
    let plain = try CorpusScorer(paths: paths)
    let memoized = plain.memoizingLumaReads()
    #expect(memoized.recordings[1].lumaMemos == nil)
    let pool = try #require(memoized.recordings[0].lumaMemos)
    let spec = try Self.spec()
    let expected = try plain.score(spec: spec).recordings.map { "\($0.objectives)" }
    #expect(try memoized.score(spec: spec).recordings.map { "\($0.objectives)" } == expected)
    let first = pool.counts
    // Not vacuous: the replay read pixel metrics of many planes.
    #expect(first.memos == 1)
    #expect(first.planes >= 100, "\(first)")
    #expect(first.computed >= 100, "\(first)")
    #expect(try memoized.score(spec: spec).recordings.map { "\($0.objectives)" } == expected)
    let second = pool.counts
    #expect(second.memos == 1)
    #expect(second.computed == first.computed, "the second score read pixels: \(second)")
    #expect(second.hits == first.hits + first.computed + first.hits)
  }

  @Test("the corpus event limit is checked while decoding and named in the message")
  func eventLimit() {
    do {
      _ = try CorpusScorer(paths: Self.paths, eventsMax: 50)
      Issue.record("no error")
    } catch {
      #expect(error.code == 2)
      #expect(error.message.contains("ScoreLimits.corpusEventsMax"))
      #expect(error.message.contains("drift-left-and-back"))
      // Refused from the chunk index's count, before an event is decoded (issue 23.7).
      #expect(error.message.contains("events (its chunk index)"), "\(error.message)")
    }
  }

  @Test("folders expand to their recordings; a missing file is bad input naming it")
  func paths() throws {
    let all = try CorpusScorer.recordingPaths([Self.path("Recordings")])
    #expect(all.count >= 50)
    #expect(all.allSatisfy { $0.hasSuffix(".jprec") })
    #expect(all == all.sorted())
    #expect(throws: HarnessFailure.self) { try CorpusScorer.recordingPaths(["/nonexistent/x.jprec"]) }
  }
}
