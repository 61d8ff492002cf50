import CanonicalJSON
import JustPhotoPlugin
import EngineIO
import Replay
import Testing
import Verify

@Suite("Structural differ")
struct DifferTests {
  func trace(_ records: [TraceRecord]) -> String {
    records.map { TraceFormat.line($0) + "\n" }.joined()
  }
  func cue(_ t: Millis, _ id: String?, _ level: String, severity: Double = 1) -> TraceRecord {
    record(
      t, "cue_display",
      [
        "cue_id": id.map(JSONValue.string) ?? .null, "level": .string(level),
        "severity": .number(severity),
      ])
  }
  var golden: [TraceRecord] {
    [
      record(0, "shutter", ["enabled": true, "reason": "ok"]), cue(800, "DIST_STEP_BACK", "warn"),
      cue(1600, "FRAME_MOVE_LEFT", "hard"),
      record(1700, "praise", ["state": "on", "trigger": "exit_crossed"]),
      cue(2400, nil, "none"),
    ]
  }

  /// Verify names no engine: the cues, the clears, the subject and the summaries come from the
  /// reading the caller gives (Just Photo's here; the plain one knows no cue).
  @Test("the differ reads lines through the reading it is given: Just Photo's names cues and clears, the plain one none")
  func theReadingDecidesCuesAndSummaries() throws {
    var replay = golden
    replay.remove(at: 4)
    replay.remove(at: 2)
    let jp = DiffOptions(reading: JustPhotoVocabulary.traceReading)
    let r = try TraceDiffer(options: jp).diffTraceFiles(golden: trace(golden), replay: trace(replay))
    #expect(r.divergences.map(\.cueIDs) == [["FRAME_MOVE_LEFT"], ["FRAME_MOVE_LEFT"]])
    #expect(r.divergences.map(\.clearsCue) == [false, true])
    #expect(r.divergences.first?.explanation == "at t=1600 golden has cue_display FRAME_MOVE_LEFT/hard, replay has none")
    let plain = try TraceDiffer().diffTraceFiles(golden: trace(golden), replay: trace(replay))
    #expect(plain.divergences.map(\.t) == r.divergences.map(\.t))
    #expect(plain.divergences.allSatisfy { $0.cueIDs.isEmpty && !$0.clearsCue && $0.cuesOnScreen.isEmpty })
    #expect(
      plain.divergences.first?.explanation
        == "at t=1600 golden has cue_display cue_id=FRAME_MOVE_LEFT level=hard severity=1, replay has none")
    var prompt = golden
    prompt.insert(record(1650, "prompt", ["op": "shown", "key": "write_failed"]), at: 3)
    let subject = try #require(try TraceDiffer(options: jp).diffTraceFiles(golden: trace(golden), replay: trace(prompt)).divergence)
    #expect(subject.subject == "write_failed")
    #expect(try TraceDiffer().diffTraceFiles(golden: trace(golden), replay: trace(prompt)).divergence?.subject == nil)
  }

  @Test func identicalTracesMatch() throws {
    let r = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(golden))
    #expect(r.isMatch)
    #expect(r.exitCode == .ok)
  }

  @Test func aMissingRecordIsTheFirstDivergenceWithAnExplanation() throws {
    var replay = golden
    replay.remove(at: 2)
    let r = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay))
    let d = try #require(r.divergence)
    #expect(d.kind == .missingInReplay)
    #expect(d.t == 1600)
    #expect(
      d.explanation == "at t=1600 golden has cue_display FRAME_MOVE_LEFT/hard, replay has none")
    #expect(d.cueIDs == ["FRAME_MOVE_LEFT"])
    #expect(d.golden?.line == 3)
    #expect(d.context.contains { $0.hasPrefix("  - ") && $0.contains("FRAME_MOVE_LEFT") })
    #expect(d.context.contains { $0.contains("DIST_STEP_BACK") })
    #expect(r.goldenOnly == 1 && r.replayOnly == 0)
  }

  @Test func anExtraRecordIsReportedAsExtraInReplay() throws {
    var replay = golden
    replay.insert(record(1650, "prompt", ["op": "shown", "key": "write_failed"]), at: 3)
    let d = try #require(
      try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay)).divergence)
    #expect(d.kind == .extraInReplay)
    #expect(d.explanation == "at t=1650 replay has prompt shown write_failed, golden has none")
  }

  @Test func aChangedFieldAtTheSameTimeNamesTheField() throws {
    var replay = golden
    replay[2] = cue(1600, "FRAME_MOVE_LEFT", "warn")
    let d = try #require(
      try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay)).divergence)
    #expect(d.kind == .changed([FieldChange(field: "level", golden: "hard", replay: "warn")]))
    #expect(d.explanation.hasPrefix("at t=1600 cue_display differs"))
    #expect(d.explanation.contains("level hard → warn"))
  }

  @Test func onlyTheFirstOfSeveralDivergencesIsReported() throws {
    var replay = golden
    replay[4] = cue(2400, "CHIN_UP", "hard")
    replay[1] = cue(800, "DIST_STEP_BACK", "hard")
    let r = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay))
    #expect(r.divergence?.t == 800)
    #expect(r.goldenOnly == 2 && r.replayOnly == 2)
  }

  @Test func timingToleranceAlignsRecordsAFewMillisecondsApart() throws {
    var replay = golden
    replay[2].t = 1633
    let exact = try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(golden: trace(golden), replay: trace(replay))
    let d = try #require(exact.divergence)
    #expect(d.kind == .moved(byMs: 33))
    #expect(
      d.explanation
        == "at t=1600 golden has cue_display FRAME_MOVE_LEFT/hard, replay has it at t=1633 (+33 ms)"
    )
    let tolerant = try TraceDiffer(options: DiffOptions(timingToleranceMs: 40, reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(
      golden: trace(golden), replay: trace(replay))
    #expect(tolerant.isMatch)
    let tooTight = try TraceDiffer(options: DiffOptions(timingToleranceMs: 32, reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(
      golden: trace(golden), replay: trace(replay))
    #expect(!tooTight.isMatch)
  }

  @Test func numericToleranceIsPerField() throws {
    var replay = golden
    replay[1] = cue(800, "DIST_STEP_BACK", "warn", severity: 1.0004)
    let differ = { (tol: [String: Double]) in
      try TraceDiffer(options: DiffOptions(numericTolerance: tol, reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(
        golden: self.trace(self.golden), replay: self.trace(replay))
    }
    #expect(try !differ([:]).isMatch)
    #expect(try differ(["severity": 0.001]).isMatch)
    #expect(try !differ(["error": 0.001]).isMatch)
    #expect(try differ(["*": 0.001]).isMatch)
    #expect(try !differ(["severity": 0.0001]).isMatch)
  }

  @Test func unreadableLinesAreBadInputNamingTheLine() {
    #expect {
      try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTraceFiles(
        golden: trace(golden), replay: "{\"t\":1,\"out\":\"x\"}\nnot json\n")
    } throws: { error in
      (error as? BadInputError)?.recording == "replay:2"
    }
  }

  @Test func a13FilesAlignOnTsMsAndEvent() throws {
    let g =
      #"{"event":"prompt_shown","payload":{"key":"a"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1000}"#
      + "\n"
    let r =
      #"{"event":"prompt_shown","payload":{"key":"b"},"scene":"cafe","session_id":"<SESSION_1>","ts_ms":1000}"#
      + "\n"
    let d = try #require(try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffA13(golden: g, replay: r).divergence)
    #expect(d.explanation.hasPrefix("at ts_ms=1000 prompt_shown differs"))
    // The kind of file is recognised from its first line.
    #expect(
      try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTexts(golden: g, replay: r)
        == TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffA13(golden: g, replay: r))
  }

  @Test func theRenderedReportLeadsWithTheFirstDivergence() throws {
    var replay = golden
    replay.remove(at: 2)
    let r = try TraceDiffer(options: DiffOptions(contextLines: 1, reading: JustPhotoVocabulary.traceReading)).diffTexts(
      golden: trace(golden), replay: trace(replay))
    let lines = r.render().split(separator: "\n").map(String.init)
    #expect(
      lines.first
        == "first divergence: at t=1600 golden has cue_display FRAME_MOVE_LEFT/hard, replay has none"
    )
    #expect(lines.count == 7)  // explanation, "…", 3 context lines, "…", counts
    #expect(lines.last == "1 of 5 golden records and 0 of 4 replay records do not align")
    #expect(
      try TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).diffTexts(golden: trace(golden), replay: trace(golden)).render()
        == "no difference (5 records)\n")
  }
}

@Suite("Myers alignment and unified diffs")
struct MyersTests {
  /// Applies an edit script and checks it rebuilds `b` from `a` with only equal pairs kept.
  func check(_ a: [Character], _ b: [Character]) -> Int {
    let ops = Myers.diff(a.count, b.count) { a[$0] == b[$1] }
    var rebuilt: [Character] = []
    var ai = 0
    var edits = 0
    for op in ops {
      switch op {
      case .equal(let i, let j):
        #expect(i == ai && a[i] == b[j])
        rebuilt.append(a[i])
        ai += 1
      case .delete(let i):
        #expect(i == ai)
        ai += 1
        edits += 1
      case .insert(let j):
        rebuilt.append(b[j])
        edits += 1
      }
    }
    #expect(rebuilt == b && ai == a.count)
    return edits
  }

  @Test func editScriptsAreMinimalAndRebuildTheTarget() {
    #expect(check(Array("ABCABBA"), Array("CBABAC")) == 5)  // Myers' paper example: D = 5
    #expect(check(Array(""), Array("abc")) == 3)
    #expect(check(Array("abc"), Array("")) == 3)
    #expect(check(Array("same"), Array("same")) == 0)
    #expect(check(Array("xaaaay"), Array("aaaa")) == 2)
    var rng = SplitMix(seed: 7)
    for _ in 0..<200 {
      let a = (0..<rng.below(12)).map { _ in Character(String(UnicodeScalar(97 + rng.below(3))!)) }
      let b = (0..<rng.below(12)).map { _ in Character(String(UnicodeScalar(97 + rng.below(3))!)) }
      _ = check(a, b)
    }
  }

  @Test func unifiedDiffShowsHunksWithContextAndColourOnlyWhenAsked() {
    let old = (1...10).map { "line \($0)" }
    var new = old
    new[4] = "line five"
    let plain = UnifiedDiff.render(old: old, new: new, oldName: "a", newName: "b", context: 2)
    #expect(
      plain == """
        --- a
        +++ b
        @@ -3,5 +3,5 @@
         line 3
         line 4
        -line 5
        +line five
         line 6
         line 7

        """)
    #expect(!plain.contains("\u{1B}["))
    #expect(
      UnifiedDiff.render(old: old, new: new, oldName: "a", newName: "b", color: true).contains(
        "\u{1B}[31m-line 5"))
    #expect(UnifiedDiff.render(old: old, new: old, oldName: "a", newName: "b").isEmpty)
    #expect(
      UnifiedDiff.render(old: [], new: ["x"], oldName: "a", newName: "b").contains(
        "@@ -0,0 +1,1 @@"))
  }
}

/// A tiny deterministic generator for property tests.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
