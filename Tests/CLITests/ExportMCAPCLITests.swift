import Foundation
import GRDB
import Testing

/// `jpreplay export --mcap` (issue 39) read back by the official Python `mcap` reader
/// (`scripts/setup --tests` installs it into .build/venv; the tests fail, not skip, without it):
/// every recording of the three engines, the metric channels against `replay --trace metrics`,
/// the range and cue options, and the output rule (a damaged recording leaves no OUT).
@Suite("jpreplay export --mcap (CLI)")
struct ExportMCAPCLITests {
  static let python = TuneExportCLITests.python
  static let checker = CLI.fixtures.appendingPathComponent("mcap-check.py").path

  /// The checker's verdict on every `.mcap` of `dir` (one JSON object per file), or nil after
  /// recording why not.
  static func check(_ dir: URL, recordings: String, golden: String, withGolden: Bool) throws -> [[String: Any]]? {
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
      Issue.record("no \(python.path): run scripts/setup --tests (scripts/test does) to install the mcap package")
      return nil
    }
    let root = CLI.repoRoot.path
    let py = try CLI.run(
      [checker, dir.path, "\(root)/\(recordings)", "\(root)/\(golden)"] + (withGolden ? ["--golden"] : []), executable: python)
    guard py.code == 0 else {
      Issue.record("mcap-check: exit \(py.code)\n\(py.stdout)\(py.stderr)")
      return nil
    }
    return try py.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// Recordings (`.jprec`) directly in a repository folder.
  static func recordings(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: CLI.repoRoot.appendingPathComponent(folder).path)
      .filter { $0.hasSuffix(".jprec") }
  }

  @Test("every recording of every engine exports, and the official reader validates each against its recording and golden")
  func everyRecordingOfEveryEngine() throws {
    let dir = try CLI.tempDir("mcap")
    defer { try? FileManager.default.removeItem(at: dir) }
    // One process per engine corpus; Just Photo's without the per-evaluation metrics (their
    // channels are checked on one recording below), which would multiply the replay's cost.
    for (sub, engineArgs) in [("", ["--no-metrics"]), ("pixscan", []), ("cameracoach", [])] {
      let recordings = sub.isEmpty ? "Recordings" : "Recordings/\(sub)"
      let golden = sub.isEmpty ? "Golden" : "Golden/\(sub)"
      let out = dir.appendingPathComponent(sub.isEmpty ? "justphoto" : sub)
      let r = try CLI.run(["export", "--mcap", out.path + "/", recordings, "--golden", "--golden-dir", golden] + engineArgs)
      #expect(r.code == 0, "\(recordings): \(r.stderr)")
      guard let files = try Self.check(out, recordings: recordings, golden: golden, withGolden: true) else { return }
      let names = try Self.recordings(in: recordings)
      #expect(files.count == names.count && !names.isEmpty, "\(recordings): \(files.count) files for \(names.count) recordings")
      #expect(Set(files.compactMap { $0["file"] as? String }) == Set(names.map { $0.replacingOccurrences(of: ".jprec", with: ".mcap") }))
      for f in files { #expect((f["messages"] as? Int ?? 0) > 0, "\(f)") }
    }
  }


  @Test("the metric channels hold one message per cue_eval entry; --cue keeps one cue, --from/--to a range of time")
  func metricsCueAndRange() throws {
    let dir = try CLI.tempDir("mcap")
    defer { try? FileManager.default.removeItem(at: dir) }
    let rec = "Recordings/drift-left-and-back.jprec"
    let all = dir.appendingPathComponent("all")
    let r = try CLI.run(["export", "--mcap", all.appendingPathComponent("drift-left-and-back.mcap").path, rec])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.contains("/metrics/FRAME_MOVE_LEFT: 181"), "\(r.stdout)")
    guard let whole = try Self.check(all, recordings: "Recordings", golden: "Golden", withGolden: false) else { return }
    let replay = try CLI.run(["replay", rec, "--trace", "metrics"])
    var expected: [String: Int] = [:]
    for line in replay.stdout.split(separator: "\n") {
      let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard o["out"] as? String == "cue_eval", let cues = o["cues"] as? [String: Any] else { continue }
      for k in cues.keys { expected["/metrics/\(k)", default: 0] += 1 }
    }
    #expect(!expected.isEmpty)
    #expect(whole.first?["metrics"] as? [String: Int] == expected)

    // --cue and a range: only that cue's metrics, every message inside the range.
    let part = dir.appendingPathComponent("part")
    let p = try CLI.run([
      "export", "--mcap", part.appendingPathComponent("drift-left-and-back.mcap").path, rec, "--cue", "FRAME_MOVE_LEFT",
      "--from", "1000", "--to", "6000",
    ])
    #expect(p.code == 0, "\(p.stderr)")
    #expect(p.stdout.contains("/metrics/FRAME_MOVE_LEFT: ") && !p.stdout.contains("/metrics/CHIN_UP"), "\(p.stdout)")
    let read = try CLI.run(
      ["-c", "import sys; from mcap.reader import make_reader; s = make_reader(open(sys.argv[1], 'rb')).get_summary().statistics; print(s.message_start_time, s.message_end_time, s.message_count)", part.appendingPathComponent("drift-left-and-back.mcap").path],
      executable: Self.python)
    #expect(read.code == 0, "\(read.stderr)")
    let nums = read.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    #expect(nums.count == 3 && nums[0] >= 1_000_000_000 && nums[1] <= 6_000_000_000 && nums[2] > 0, "\(read.stdout)")
    // An unknown cue, --cue with another engine's recording: exit 2, nothing written.
    let bad = dir.appendingPathComponent("bad.mcap")
    for args in [[rec, "--cue", "NO_SUCH_CUE"], ["Recordings/pixscan/undo-edges.jprec", "--cue", "FRAME_MOVE_LEFT"]] {
      let b = try CLI.run(["export", "--mcap", bad.path] + args)
      #expect(b.code == 2, "\(args): \(b.stderr)")
      #expect(!FileManager.default.fileExists(atPath: bad.path))
    }
  }

  @Test("a damaged recording is refused with exit 2 naming it; OUT is not written, an existing OUT is kept, no temporary is left")
  func damagedRecordingLeavesNoOutput() throws {
    let dir = try CLI.tempDir("mcap")
    defer { try? FileManager.default.removeItem(at: dir) }
    let rec = dir.appendingPathComponent("r.jprec")
    try FileManager.default.copyItem(at: CLI.repoRoot.appendingPathComponent("Recordings/drift-left-and-back.jprec"), to: rec)
    // The first landmarks chunk's bytes changed (its CRC no longer holds): found mid-replay,
    // after messages were already written to the temporary.
    let q = try DatabaseQueue(path: rec.path)
    try q.write { try $0.execute(sql: "UPDATE chunks SET data = zeroblob(length(data)) WHERE id = (SELECT MAX(id) FROM chunks WHERE channel_id = 1)") }
    try q.close()
    let out = dir.appendingPathComponent("out.mcap")
    let r = try CLI.run(["export", "--mcap", out.path, rec.path])
    #expect(r.code == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("r.jprec"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path))
    try Data("ours".utf8).write(to: out)
    let again = try CLI.run(["export", "--mcap", out.path, rec.path])
    #expect(again.code == 2)
    #expect(try String(contentsOf: out, encoding: .utf8) == "ours")
    // Damage found mid-replay, after most messages went to the temporary: the last line of
    // a JSONL recording.
    let cat = try CLI.run(["cat", "Recordings/drift-left-and-back.jprec"])
    try #require(cat.code == 0)
    var lines = cat.stdout.split(separator: "\n").map(String.init)
    lines[lines.count - 1] = #"{"t":11999,"kind":"landmarks","frame":"x"}"#
    let jsonl = dir.appendingPathComponent("j.jsonl")
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: jsonl)
    let late = dir.appendingPathComponent("late.mcap")
    let j = try CLI.run(["export", "--mcap", late.path, jsonl.path])
    #expect(j.code == 2, "\(j.stderr)")
    #expect(j.stderr.contains("j.jsonl:\(lines.count): field \"landmarks.frame\""), "\(j.stderr)")
    #expect(!FileManager.default.fileExists(atPath: late.path))
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["j.jsonl", "out.mcap", "r.jprec"], "\(left)")
    // A directory as OUT for one recording is a folder (one <name>.mcap inside); a symbolic
    // link to a file is refused (the outputs' rule).
    let link = dir.appendingPathComponent("link.mcap")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: out.path)
    let l = try CLI.run(["export", "--mcap", link.path, "Recordings/drift-left-and-back.jprec", "--no-metrics"])
    #expect(l.code == 2, "\(l.stderr)")
    #expect(try String(contentsOf: out, encoding: .utf8) == "ours")
  }

  /// What a reader sees in each export below (schemas, channels, every message's bytes, in
  /// file order; Tests/Fixtures/mcap-digest.py), as the export wrote it before its messages
  /// were written as text directly (issue 39: the same bytes, faster). A deliberate change of
  /// the content regenerates them: `mcap-digest.py OUT.mcap`.
  static let digests: [(name: String, args: [String], sha256: String)] = [
    ("drift", ["Recordings/drift-left-and-back.jprec"], "0dbad4a9cb94dd70714cbc4b7d0e922e54d5c60bca52596668d8cf8cee6d4797"),
    (
      "drift-golden",
      ["Recordings/drift-left-and-back.jprec", "--golden", "--cue", "FRAME_MOVE_LEFT", "--from", "1000", "--to", "6000"],
      "7941bed73ed56374234c302fba95488b8cce25aa7f6c12b0a4b4d90d8057f131"
    ),
    ("withref", ["Recordings/cov-cafe-withref-dark.jprec"], "e97e30e0b69d268e6b2fe6c124551ab10964fcbd3bc7075dbeb42bdf6031eb14"),
    ("crowd", ["Recordings/cov-outdoor-crowd.jprec", "--no-metrics"], "de7701c8d2312b3207280662375e86ab766e93a8e1cb4e371c277dab596728f1"),
    (
      "undo", ["Recordings/pixscan/undo-edges.jprec", "--golden", "--golden-dir", "Golden/pixscan"],
      "272cb42a05377f3145d50fe1dffbef32e59c49cde94caca10c40ca364f63c449"
    ),
    ("consent", ["Recordings/cameracoach/consent.jprec"], "a93807b6ad75200e726ace89f5b52c8e64211a5077f51961dd4fc1dde93a159f"),
  ]

  @Test("the messages are the bytes the export has always written: landmarks, annotations, metrics, traces, goldens of the three engines")
  func messagesKeepTheirBytes() throws {
    let dir = try CLI.tempDir("mcap")
    defer { try? FileManager.default.removeItem(at: dir) }
    guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
      Issue.record("no \(Self.python.path): run scripts/setup --tests (scripts/test does) to install the mcap package")
      return
    }
    var files: [String] = []
    for d in Self.digests {
      let out = dir.appendingPathComponent("\(d.name).mcap").path
      let r = try CLI.run(["export", "--mcap", out] + d.args)
      #expect(r.code == 0, "\(d.args): \(r.stderr)")
      files.append(out)
    }
    let digest = try CLI.run([CLI.fixtures.appendingPathComponent("mcap-digest.py").path] + files, executable: Self.python)
    #expect(digest.code == 0, "\(digest.stderr)")
    var got: [String: String] = [:]
    for line in digest.stdout.split(separator: "\n") {
      let parts = line.split(separator: " ")
      if parts.count == 2 { got[String(parts[0])] = String(parts[1]) }
    }
    for d in Self.digests {
      #expect(got["\(d.name).mcap"] == d.sha256, "\(d.name) (\(d.args.joined(separator: " "))): the messages changed")
    }
  }
}
