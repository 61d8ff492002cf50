import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Lab
import JustPhotoScenarios
import Replay
import Testing

/// DESIGN §9 "Ground truth is intent": labels come from the scenario's declared intent, never
/// from the spec under test; staleness is the scenario's meaning only; a scenario's `expect:`
/// rules fail `verify` on their own.
@Suite struct GroundTruthStabilityTests {
  /// A scratch corpus: `names`' scenarios, recordings and goldens, the frozen base spec and a
  /// copy of PoseSpec.json, laid out as the repository (verify runs in `root`).
  struct Scratch {
    let root: URL
    var recordings: URL { root.appendingPathComponent("Recordings") }
    var spec: URL { root.appendingPathComponent("PoseSpec.json") }

    init(_ names: [String]) throws {
      root = try CLI.tempDir("truth")
      let fm = FileManager.default
      let repo = CLI.repoRoot
      try fm.createDirectory(at: root.appendingPathComponent("Golden"), withIntermediateDirectories: true)
      try fm.createDirectory(at: recordings, withIntermediateDirectories: true)
      try fm.copyItem(at: repo.appendingPathComponent("PoseSpec.json"), to: spec)
      try fm.copyItem(at: repo.appendingPathComponent("Recordings/specs"), to: recordings.appendingPathComponent("specs"))
      for n in names {
        for f in ["Recordings/\(n).scenario.yaml", "Recordings/\(n).jprec", "Golden/\(n).trace.jsonl", "Golden/\(n).a13.jsonl"] {
          try fm.copyItem(at: repo.appendingPathComponent(f), to: root.appendingPathComponent(f))
        }
      }
    }

    func run(_ args: [String]) throws -> CLI.Result { try CLI.run(args, cwd: root, env: ["CI": "true"]) }

    /// `verify --format json`'s counts.
    func verifyCounts(_ names: [String]) throws -> (code: Int32, counts: JSONValue?, text: String) {
      let r = try run(["verify", "--format", "json"] + names)
      let doc = try? JSONParser.parse(r.stdout)
      return (r.code, doc?["counts"], r.stdout + r.stderr)
    }

    /// Edits PoseSpec.json: `edit` gets the cue object `id`.
    func editCue(_ id: String, _ edit: (inout JSONObject) -> Void) throws {
      var doc = try JSONParser.parse(String(contentsOf: spec, encoding: .utf8))
      guard case .object(var root) = doc, case .array(var cues)? = root["cues"],
        let i = cues.firstIndex(where: { $0["id"]?.stringValue == id }), case .object(var cue) = cues[i]
      else { throw CocoaError(.fileReadCorruptFile) }
      edit(&cue)
      cues[i] = .object(cue)
      root["cues"] = .array(cues)
      doc = .object(root)
      try JSONWriter.write(doc).write(to: spec, atomically: true, encoding: .utf8)
    }

    func scenario(_ name: String) -> URL { recordings.appendingPathComponent("\(name).scenario.yaml") }

    /// The label lines and header of a recording (`jpreplay cat`).
    func labels(_ name: String) throws -> (header: JSONValue, labels: [String]) {
      let r = try run(["cat", "Recordings/\(name).jprec"])
      #expect(r.code == 0, "\(r.stderr)")
      let lines = r.stdout.split(separator: "\n").map(String.init)
      return (try JSONParser.parse(lines[0]), lines.filter { $0.contains("\"kind\":\"label\"") })
    }
  }

  /// FRAME_MOVE_LEFT's noRef threshold object path in PoseSpec.json (ENGINE §2.8).
  static func setLeftWarn(_ cue: inout JSONObject, _ value: Double) {
    guard case .object(var trigger)? = cue["trigger"], case .object(var noRef)? = trigger["noRef"] else { return }
    if case .object(var warn)? = noRef["warn"], let op = warn.members.first?.key {
      warn[op] = .number(value)
      noRef["warn"] = .object(warn)
    }
    trigger["noRef"] = .object(noRef)
    cue["trigger"] = .object(trigger)
  }

  static let names = ["drift-left-and-back", "s04-frame-left-enter", "s18-stale-decider", "s01-posespec-version"]

  @Test("editing a cue's qa text or a threshold leaves verify free of stale reports (labels are not re-derived)")
  func specEditsNeverMakeRecordingsStale() throws {
    let s = try Scratch(Self.names)
    defer { try? FileManager.default.removeItem(at: s.root) }
    let before = try s.verifyCounts(Self.names)
    #expect(before.code == 0, "\(before.text)")
    // A QA note: nothing the engine reads.
    try s.editCue("FRAME_MOVE_LEFT") { cue in
      guard case .object(var qa)? = cue["qa"] else { return }
      qa["beforeExpected"] = .string("edited by a test: a QA note only")
      cue["qa"] = .object(qa)
    }
    let qa = try s.verifyCounts(Self.names)
    #expect(qa.counts?["stale"] == 0 && qa.counts?["passed"]?.int64Value == Int64(Self.names.count), "\(qa.text)")
    // A threshold: the traces change (failed), the recordings are not stale — including the
    // scenarios deriving their spec, which derive it from the frozen copy.
    try s.editCue("FRAME_MOVE_LEFT") { Self.setLeftWarn(&$0, 0.11) }
    let value = try s.verifyCounts(Self.names)
    #expect(value.counts?["stale"] == 0, "\(value.text)")
    #expect(value.counts?["failed"]?.int64Value ?? 0 >= 1, "raising LEFT's warn to 0.11 changes drift-left-and-back: \(value.text)")
  }

  @Test("a comment or formatting edit of a scenario is not stale; a changed value is")
  func onlyScenarioSemanticsAreStale() throws {
    let s = try Scratch(["drift-left-and-back"])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.scenario("drift-left-and-back")
    let original = try String(contentsOf: url, encoding: .utf8)
    // Comments, blank lines, flow → block style, quoting: the same scenario.
    let reformatted = "# a new comment\n\n" + original
      .replacingOccurrences(of: "seed: 7", with: "seed: 7   # trailing comment")
      .replacingOccurrences(of: "scene: outdoor", with: "scene: \"outdoor\"")
      .replacingOccurrences(of: "noise: {landmark_sigma: 0.003, conf_sigma: 0.006}", with: "noise:\n  conf_sigma: 0.006\n  landmark_sigma: 0.0030")
    try reformatted.write(to: url, atomically: true, encoding: .utf8)
    let same = try s.verifyCounts(["drift-left-and-back"])
    #expect(same.code == 0 && same.counts?["stale"] == 0, "\(same.text)")
    // A different seed is another scenario.
    try original.replacingOccurrences(of: "seed: 7", with: "seed: 8").write(to: url, atomically: true, encoding: .utf8)
    let changed = try s.verifyCounts(["drift-left-and-back"])
    #expect(changed.code == 1 && changed.counts?["stale"] == 1, "\(changed.text)")
    // Notes are meaning too (they go into the header).
    try original.replacingOccurrences(of: "then comes back", with: "then returns").write(to: url, atomically: true, encoding: .utf8)
    let notes = try s.verifyCounts(["drift-left-and-back"])
    #expect(notes.counts?["stale"] == 1, "\(notes.text)")
  }

  /// Every number under every cue's `trigger` (warn, hard, exit, targets) scaled by `factor`.
  static func scaleThresholds(_ v: JSONValue, _ factor: Double, inTrigger: Bool = false) -> JSONValue {
    switch v {
    case .number(let d) where inTrigger: return .number(d * factor)
    case .object(var o):
      for i in o.members.indices {
        o.members[i].value = scaleThresholds(o.members[i].value, factor, inTrigger: inTrigger || o.members[i].key == "trigger")
      }
      return .object(o)
    case .array(let a): return .array(a.map { scaleThresholds($0, factor, inTrigger: inTrigger) })
    default: return v
    }
  }

  @Test("changing every threshold of the spec changes no label: record keeps the recordings byte for byte")
  func thresholdsNeverMoveLabels() throws {
    let names = ["drift-left-and-back", "tune-outdoor-framing"]
    let s = try Scratch(names)
    defer { try? FileManager.default.removeItem(at: s.root) }
    let before = try names.map { try s.labels($0).labels }
    #expect(before.allSatisfy { !$0.isEmpty })
    let doc = try JSONParser.parse(String(contentsOf: s.spec, encoding: .utf8))
    try JSONWriter.write(Self.scaleThresholds(doc, 1.37)).write(to: s.spec, atomically: true, encoding: .utf8)
    for (name, labels) in zip(names, before) {
      let r = try s.run(["record", name])
      #expect(r.code == 0 && r.stdout.hasPrefix("unchanged"), "\(r.stdout)\(r.stderr)")
      #expect(try s.labels(name).labels == labels)
    }
    // The traces change (the thresholds moved), the recordings are not stale.
    let v = try s.verifyCounts(names)
    #expect(v.counts?["stale"] == 0 && v.counts?["failed"]?.int64Value ?? 0 >= 1, "\(v.text)")
  }

  @Test("a planted formula bug (FRAME_MOVE_LEFT's centre off by 0.1) shows up in score as false alarms and misses")
  func formulaBugIsScored() throws {
    let s = try Scratch(["tune-outdoor-framing"])
    defer { try? FileManager.default.removeItem(at: s.root) }
    func totals() throws -> JSONValue? {
      let r = try s.run(["score", "Recordings/tune-outdoor-framing.jprec", "--json"])
      #expect(r.code == 0, "\(r.stderr)")
      return try JSONParser.parse(r.stdout)["total"]
    }
    let shipped = try totals()
    try s.editCue("FRAME_MOVE_LEFT") { cue in
      guard case .object(var metric)? = cue["metric"] else { return }
      metric["formula"] = "centerXOffset = center(bbox(bodyPoints)).x - 0.4"
      cue["metric"] = .object(metric)
    }
    let bug = try totals()
    let errors = { (t: JSONValue?) in (t?["false_alarms"]?.doubleValue ?? 0) + (t?["misses"]?.doubleValue ?? 0) }
    #expect(errors(bug) > errors(shipped), "shipped \(String(describing: shipped)) vs bug \(String(describing: bug))")
  }

  @Test("a broken expect: rule fails verify (category unmet, exit 1) while the goldens match")
  func violatedExpectationFailsVerify() throws {
    let s = try Scratch(["s04-frame-left-enter"])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.scenario("s04-frame-left-enter")
    let text = try String(contentsOf: url, encoding: .utf8)
    // ENGINE §7 S04 shows LEFT at 200 (persistFrames 4); claim 133 instead.
    try text.replacingOccurrences(of: "at: 200, within_ms: 0", with: "at: 133, within_ms: 0")
      .write(to: url, atomically: true, encoding: .utf8)
    let r = try s.verifyCounts(["s04-frame-left-enter"])
    #expect(r.code == 1, "\(r.text)")
    #expect(r.counts?["unmet"] == 1 && r.counts?["failed"] == 0 && r.counts?["stale"] == 0, "\(r.text)")
    #expect(r.text.contains("s04-frame-left-enter.scenario.yaml:") && r.text.contains("expect[1]"))
    let junit = s.root.appendingPathComponent("out/verify.xml")
    _ = try s.run(["verify", "s04-frame-left-enter", "--junit", junit.path])
    #expect(try String(contentsOf: junit, encoding: .utf8).contains("type=\"expectation_failed\""))
    let console = try s.run(["verify", "s04-frame-left-enter"])
    #expect(console.stdout.contains("UNMET") && console.stdout.contains("1 unmet"), "\(console.stdout)")
  }

  @Test(
    "a malformed expect: block is bad input (exit 2) naming the file, line and key",
    arguments: [
      ("  - {displayed: FRAME_MOVE_LEFT, within_ms: 200}", "expect[0]"),
      ("  - {saw: prompts, with: {key: x}}", "expect[0].saw"),
      ("  - {displayed: FRAME_MOVE_LEFT, at: 200, within_ms: -5}", "expect[0].within_ms"),
      ("  - {not_displayed: frame_move_left, from: 0, to: 100}", "expect[0].not_displayed"),
      ("  - {not_displayed: any, from: 500, to: 100}", "expect[0].to"),
      ("  - {praise: {at_least: 3, at_most: 1}}", "expect[0].praise"),
      ("  - {praise: {at_most: 1}, from: 0, to: 99999}", "expect[0].to"),
      ("  - {shown: FRAME_MOVE_LEFT}", "expect[0].shown"),
    ])
  func malformedExpectBlocksExitTwo(rule: String, key: String) throws {
    let s = try Scratch(["s04-frame-left-enter"])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let url = s.scenario("s04-frame-left-enter")
    let text = try String(contentsOf: url, encoding: .utf8)
    let head = text.components(separatedBy: "expect:\n")[0]
    try (head + "expect:\n" + rule + "\n").write(to: url, atomically: true, encoding: .utf8)
    let line = head.split(separator: "\n", omittingEmptySubsequences: false).count + 1
    for args in [["record", "s04-frame-left-enter"], ["verify", "s04-frame-left-enter"]] {
      let r = try s.run(args)
      #expect(r.code == 2, "\(args): \(r.stdout)\(r.stderr)")
      #expect((r.stdout + r.stderr).contains("s04-frame-left-enter.scenario.yaml:\(line)"), "\(r.stdout)\(r.stderr)")
      #expect((r.stdout + r.stderr).contains(key), "\(r.stdout)\(r.stderr)")
    }
  }
}

/// `tune`'s path: an in-process replay checked against the scenario's rules (issue 15).
@Suite struct InProcessExpectationTests {
  @Test(
    "ExpectationOutput sees what the golden trace text shows, and the corpus rules hold",
    arguments: ["s06-hold-and-cooldown", "s09-praise-cooldown", "gate-timeline-15hz"])
  func inProcessReplayMeetsTheRules(name: String) throws {
    let root = CLI.repoRoot
    let scenario = try Scenario.load(path: root.appendingPathComponent("Recordings/\(name).scenario.yaml").path)
    #expect(!scenario.expectations.isEmpty)
    let driver = try Harness.driver(specPath: root.appendingPathComponent("PoseSpec.json").path)
    var out = ExpectationOutput()
    _ = try driver.replay(root.appendingPathComponent("Recordings/\(name).jprec"), into: &out)
    let golden = try String(contentsOf: root.appendingPathComponent("Golden/\(name).trace.jsonl"), encoding: .utf8)
    var read = ExpectationTrace()
    for r in try GoldenTrace.records(golden) { read.add(t: r.t, out: r.out, fields: r.fields) }
    #expect(out.trace == read)
    #expect(Expectations.check(scenario.expectations, trace: out.trace) == [])
  }
}

/// `jpreplay score` counts a broken `expect:` rule (its `expect` column; tune's constraint).
@Suite struct ScoreExpectationTests {
  @Test func scoreCountsBrokenRules() throws {
    let s = try GroundTruthStabilityTests.Scratch(["s04-frame-left-enter"])
    defer { try? FileManager.default.removeItem(at: s.root) }
    let ok = try s.run(["score", "Recordings/s04-frame-left-enter.jprec", "--details"])
    #expect(ok.code == 0 && !ok.stdout.contains("expect[") , "\(ok.stdout)\(ok.stderr)")
    let url = s.scenario("s04-frame-left-enter")
    try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "at: 200, within_ms: 0", with: "at: 133, within_ms: 0")
      .write(to: url, atomically: true, encoding: .utf8)
    let broken = try s.run(["score", "Recordings/s04-frame-left-enter.jprec", "--details"])
    #expect(broken.code == 0 && broken.stdout.contains("expect[1] (FRAME_MOVE_LEFT displayed at t=133): not met"), "\(broken.stdout)\(broken.stderr)")
  }
}
