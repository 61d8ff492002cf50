import Foundation
import Testing

/// A recording of an engine this jpreplay has no plug-in for (header `engine`) is refused by
/// every command that replays it, with exit 2 naming the file, the header and the engines it
/// knows; commands that only read events (info, cat, doctor) still work; a malformed `engine`
/// is exit 2 naming the file and line.
@Suite("engine routing by the recording header")
struct EngineRoutingCLITests {
  static let jsonl = """
    {"format":"jp-replay/1","engine":"tally","duration_ms":500}
    {"t":0,"kind":"launch"}
    {"t":100,"kind":"push","n":1}

    """

  @Test func anUnknownEngineIsExitTwoNamingItAndTheKnownOnes() throws {
    let dir = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let rec = dir.appendingPathComponent("tally.jsonl")
    try Self.jsonl.write(to: rec, atomically: true, encoding: .utf8)
    for args in [["replay", rec.path], ["import", rec.path, "-o", dir.appendingPathComponent("t.jprec").path]] {
      let r = try CLI.run(args)
      #expect(r.code == 2, "\(args): \(r.stderr)")
      #expect(r.stderr.contains("tally.jsonl"), "\(args): \(r.stderr)")
      #expect(r.stderr.contains("unknown engine \"tally\" (this jpreplay knows cameracoach, justphoto, pixscan)"), "\(args): \(r.stderr)")
    }
    let cat = try CLI.run(["cat", rec.path])
    #expect(cat.code == 0, "\(cat.stderr)")
    #expect(cat.stdout.contains("\"kind\":\"push\""), "\(cat.stdout)")
    // Its kinds are unknown here: `--kind` selects by name, unchecked.
    let pushes = try CLI.run(["cat", rec.path, "--kind", "push", "--no-header"])
    #expect(pushes.code == 0 && pushes.stdout == "{\"t\":100,\"kind\":\"push\",\"n\":1}\n", "\(pushes.stdout)\(pushes.stderr)")
  }

  /// `jpreplay engines` lists Just Photo, then every registered engine with its corpus
  /// folders (which exist), and `scripts/verify` verifies what it lists: the script loops over
  /// that listing and names no engine itself (issue 36: a new engine needs no edit there).
  @Test func enginesListsEveryEngineAndScriptsVerifyLoopsOverIt() throws {
    let r = try CLI.run(["engines"])
    #expect(r.code == 0, "\(r.stderr)")
    let rows = r.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    #expect(rows.map(\.count) == Array(repeating: 4, count: rows.count), "\(r.stdout)")
    #expect(rows.first == ["justphoto", "Just Photo", "Recordings", "Golden"], "\(r.stdout)")
    #expect(Set(rows.map { $0[0] }) == ["justphoto", "pixscan", "cameracoach"], "\(r.stdout)")
    for row in rows.dropFirst() {
      #expect(row[2] == "Recordings/\(row[0])" && row[3] == "Golden/\(row[0])", "\(row)")
      var isDir: ObjCBool = false
      for folder in row[2...] {
        let exists = FileManager.default.fileExists(atPath: CLI.repoRoot.appendingPathComponent(folder).path, isDirectory: &isDir)
        #expect(exists && isDir.boolValue, "\(folder) is listed by jpreplay engines but is not a folder")
      }
    }
    let script = try String(contentsOf: CLI.repoRoot.appendingPathComponent("scripts/verify"), encoding: .utf8)
    let code = script.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
    #expect(code.contains("jpreplay engines"), "scripts/verify no longer loops over `jpreplay engines`")
    for row in rows.dropFirst() {
      #expect(!code.contains(row[0]), "scripts/verify names \(row[0]) in code; it should take the corpora from `jpreplay engines`")
    }
  }

  @Test func aMalformedEngineIsExitTwoNamingTheHeader() throws {
    let dir = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let rec = dir.appendingPathComponent("bad.jsonl")
    try #"{"format":"jp-replay/1","engine":"Pix Scan"}"#.appending("\n").write(to: rec, atomically: true, encoding: .utf8)
    let r = try CLI.run(["replay", rec.path])
    #expect(r.code == 2)
    #expect(r.stderr.contains("bad.jsonl:1"), "\(r.stderr)")
    #expect(r.stderr.contains("\"engine\": \"Pix Scan\" is not an engine name"), "\(r.stderr)")
  }
}

extension EngineRoutingCLITests {
  /// PixScan is registered: record writes a pixscan scenario's recording, replay and verify
  /// route it to the plug-in (the corpus in Recordings/pixscan has its goldens in Golden/pixscan).
  @Test func pixscanRecordReplayVerify() throws {
    let dir = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let yaml = dir.appendingPathComponent("tiny.yaml")
    try """
      engine: pixscan
      name: tiny
      library: {count: 2, seed: 1}
      script:
        - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}
        - {at: 100, do: library_snapshot}
        - {at: 200, do: swipe, direction: left}
      """.write(to: yaml, atomically: true, encoding: .utf8)
    let rec = try CLI.run(["record", yaml.path])
    #expect(rec.code == 0 && rec.stdout.contains("recorded 3 events"), "\(rec.stdout)\(rec.stderr)")
    let again = try CLI.run(["record", yaml.path])
    #expect(again.stdout.contains("unchanged"), "\(again.stdout)")
    let replay = try CLI.run(["replay", dir.appendingPathComponent("tiny.jprec").path])
    #expect(replay.code == 0, "\(replay.stderr)")
    #expect(replay.stdout.contains("{\"action\":\"delete\",\"direction\":\"left\",\"index\":0,\"out\":\"action\",\"photo\":\"IMG_0001\",\"t\":200}"))
    let verify = try CLI.run(["verify", "--recordings-dir", "Recordings/pixscan", "--golden-dir", "Golden/pixscan", "swipe-directions"])
    #expect(verify.code == 0, "\(verify.stdout)\(verify.stderr)")
  }
}

extension EngineRoutingCLITests {
  /// `coverage` reads PixScan's recordings through its vocabulary. The expectations come from
  /// the scenarios' scripts (what their authors wrote), not from a replay: undo-edges swipes
  /// left, right and down but never up, and presses undo with nothing to undo.
  /// Just Photo's summary names the cues no recording shows (issue 37), not a count alone: the
  /// plain `jpreplay coverage` of one recording (the corpus-wide run is `CorpusTests`').
  @Test func coverageOfAJustPhotoRecordingNamesTheCuesNotShown() throws {
    let dir = try CLI.tempDir("coverage-jp")
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"), to: dir.appendingPathComponent("s04-frame-left-enter.jprec"))
    let r = try CLI.run(["coverage", "--recordings", dir.path])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("coverage: 1 recordings; ENGINE §7 scenarios 1/"), "\(r.stdout)")
    let unshown = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("  not shown by any recording: ") })
    let names = Set(unshown.dropFirst("  not shown by any recording: ".count).split(separator: ", ").map(String.init))
    #expect(names.contains("FRAME_MOVE_RIGHT") && !names.contains("FRAME_MOVE_LEFT"), "\(unshown)")
  }

  @Test func coverageOfPixScanRecordings() throws {
    let dir = try CLI.tempDir("coverage")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for name in ["undo-edges", "delete-cancelled"] {
      try fm.copyItem(
        at: CLI.repoRoot.appendingPathComponent("Recordings/pixscan/\(name).jprec"), to: dir.appendingPathComponent("\(name).jprec"))
    }
    let r = try CLI.run(["coverage", "--recordings", dir.path])
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("coverage (pixscan): 2 recordings; input kinds "), "\(r.stdout)")
    #expect(r.stdout.contains("missing: swipe.direction = up: no recording"), "\(r.stdout)")
    #expect(!r.stdout.contains("missing: swipe.direction = left"), "\(r.stdout)")
    #expect(r.stdout.contains("missing: delete_result.outcome = ok: no recording"), "\(r.stdout)")
    #expect(!r.stdout.contains("missing: delete_result.outcome = cancelled"), "\(r.stdout)")
    let md = try CLI.run(["coverage", "--recordings", dir.path, "--markdown"])
    #expect(md.stdout.contains("| out=ignored.reason = nothing_to_undo | `undo-edges` |"), "\(md.stdout)")
    #expect(md.stdout.contains("| delete_sheet.action = delete_all | `delete-cancelled` |"), "\(md.stdout)")
    #expect(md.stdout.contains("| input undo | `undo-edges` |"), "\(md.stdout)")
    let strict = try CLI.run(["coverage", "--recordings", dir.path, "--strict"])
    #expect(strict.code == 1, "\(strict.stderr)")
    #expect(strict.stderr.contains("kind(s) or value(s) not exercised"), "\(strict.stderr)")
  }

  /// A folder with both engines' recordings gets both reports; a file given as the folder is
  /// exit 2 saying so.
  @Test func coverageOfAMixedFolderAndOfAFile() throws {
    let dir = try CLI.tempDir("coverage-mixed")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/pixscan/undo-edges.jprec"), to: dir.appendingPathComponent("undo-edges.jprec"))
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"),
      to: dir.appendingPathComponent("s04-frame-left-enter.jprec"))
    let r = try CLI.run(["coverage", "--recordings", dir.path], cwd: CLI.repoRoot)
    #expect(r.code == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("coverage: 1 recordings; ENGINE §7 scenarios 1/44"), "\(r.stdout)")
    #expect(r.stdout.contains("\ncoverage (pixscan): 1 recordings;"), "\(r.stdout)")
    let file = try CLI.run(["coverage", "--recordings", dir.appendingPathComponent("undo-edges.jprec").path])
    #expect(file.code == 2)
    #expect(file.stderr.contains("undo-edges.jprec: not a folder (expected a folder of .jprec recordings"), "\(file.stderr)")
  }
}

extension EngineRoutingCLITests {
  /// `score` judges Just Photo's cues against declared labels: a PixScan recording is exit 2
  /// naming the file, the engine and where PixScan's intent lives.
  @Test func scoreRefusesAPixScanRecordingByItsHeader() throws {
    let r = try CLI.run(["score", "Recordings/pixscan/undo-edges.jprec"])
    #expect(r.code == 2)
    #expect(r.stderr.contains("Recordings/pixscan/undo-edges.jprec: header: \"engine\": a pixscan recording; `jpreplay score` works on Just Photo recordings only"), "\(r.stderr)")
    #expect(r.stderr.contains("expect: rules"), "\(r.stderr)")
  }
}

extension EngineRoutingCLITests {
  /// verify of a PixScan-only corpus needs no PoseSpec.json, and its messages name the golden
  /// folder as given (`G/px/…`), not a fixed `Golden/`; a Just Photo recording in it then says
  /// it lacks a spec (exit 2).
  @Test func verifyOfAPixScanFolderNamesItsFoldersAndNeedsNoSpec() throws {
    let dir = try CLI.tempDir("pixverify")
    defer { try? FileManager.default.removeItem(at: dir) }
    let fm = FileManager.default
    for sub in ["R/px", "G/px"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/pixscan/undo-edges.jprec"), to: dir.appendingPathComponent("R/px/undo-edges.jprec"))
    let r = try CLI.run(["verify", "--recordings-dir", "R/px", "--golden-dir", "G/px", "--update", "new"], cwd: dir)
    #expect(r.code == 1, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("no golden G/px/undo-edges.trace.jsonl yet"), "\(r.stdout)")
    #expect(r.stdout.contains("wrote G/px/undo-edges.trace.jsonl.new"), "\(r.stdout)")
    #expect(!r.stderr.contains("PoseSpec"), "\(r.stderr)")
    let accept = try CLI.run(["accept", "--recordings-dir", "R/px", "--golden-dir", "G/px", "undo-edges"], cwd: dir)
    #expect(accept.code == 0, "\(accept.stderr)")
    #expect(try CLI.run(["verify", "--recordings-dir", "R/px", "--golden-dir", "G/px"], cwd: dir).code == 0)
    try fm.copyItem(
      at: CLI.repoRoot.appendingPathComponent("Recordings/s04-frame-left-enter.jprec"),
      to: dir.appendingPathComponent("R/px/s04-frame-left-enter.jprec"))
    let jp = try CLI.run(["verify", "--recordings-dir", "R/px", "--golden-dir", "G/px", "--update", "no"], cwd: dir)
    #expect(jp.code == 2, "\(jp.stdout)\(jp.stderr)")
    #expect(jp.stdout.contains("s04-frame-left-enter.jprec: a Just Photo recording: no PoseSpec.json in the current directory"), "\(jp.stdout)")
  }
}

extension EngineRoutingCLITests {
  /// `cat --kind` takes the recording's engine's kinds: a PixScan recording's `swipe` is kept
  /// (it used to be refused as "not an event kind", Just Photo's list being the only one read),
  /// a name of another engine is exit 2 naming the file, the engine and its kinds; a Just Photo
  /// JSONL whose header has an option its catalogue refuses is exit 2 at line 1, as `import`
  /// refuses it (nothing printed).
  @Test func catKindsAndHeaderFollowTheRecordingsEngine() throws {
    let pix = "Recordings/pixscan/long-session-5000.jprec"
    let swipes = try CLI.run(["cat", pix, "--kind", "swipe", "--no-header"])
    #expect(swipes.code == 0, "\(swipes.stderr)")
    let lines = swipes.stdout.split(separator: "\n")
    #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("\"kind\":\"swipe\"") }, "\(swipes.stdout.prefix(300))")
    let wrong = try CLI.run(["cat", pix, "--kind", "ui_scene"])
    #expect(wrong.code == 2 && wrong.stdout.isEmpty, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("--kind 'ui_scene': not an event kind of \(pix)'s engine, PixScan (expected one of "), "\(wrong.stderr)")
    #expect(wrong.stderr.contains("swipe"), "\(wrong.stderr)")
    let jp = try CLI.run(["cat", "Recordings/drift-left-and-back.jprec", "--kind", "swipe"])
    #expect(jp.code == 2 && jp.stderr.contains("engine, Just Photo (expected one of app_launch, "), "\(jp.stderr)")

    let dir = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let bad = dir.appendingPathComponent("bad-option.jsonl")
    try """
      {"format":"jp-replay/1","name":"x","options":{"strictEffects":"yes"}}
      {"t":0,"kind":"ui_scene","scene":"outdoor"}

      """.write(to: bad, atomically: true, encoding: .utf8)
    let r = try CLI.run(["cat", bad.path])
    #expect(r.code == 2 && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains("bad-option.jsonl:1: ") && r.stderr.contains("strictEffects"), "\(r.stderr)")
  }
}

extension EngineRoutingCLITests {
  /// Just Photo's options given for another engine's recording are exit 2 naming the file, the
  /// option and the engine: they used to be ignored (a replay with `--spec` or `--set` that
  /// changed nothing, a `--trace` naming no output of the engine that printed nothing, exit 0).
  /// Where several recordings are read (plot, export), `--spec`/`--set` are refused only when
  /// none of them is Just Photo's.
  @Test func justPhotoOptionsForAnotherEnginesRecordingAreExitTwo() throws {
    let rec = "Recordings/cameracoach/budget-per-minute.jprec"
    let golden = "Golden/cameracoach/budget-per-minute.trace.jsonl"
    let out = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: out) }
    let cases: [(args: [String], expect: String)] = [
      (["replay", rec, "--spec", "PoseSpec.json"], "\(rec): --spec names a Just Photo PoseSpec; a cameracoach recording has none (leave --spec out)"),
      (["replay", rec, "--set", "angleFix=on"], "\(rec): --set overrides a Just Photo engine option; a cameracoach recording has none (leave --set out)"),
      (["replay", rec, "--trace", "metrics", "--cue", "FRAME_MOVE_LEFT"], "\(rec): --cue names Just Photo cues; a cameracoach recording has none (leave --cue out)"),
      (["replay", rec, "--trace", "metrics"], "--trace: unknown trace kind 'metrics' for \(rec), a cameracoach recording ('metrics' adds Just Photo's cue_eval lines); known kinds: "),
      (["replay", rec, "--trace", "state,cue_display"], "--trace: unknown trace kind 'cue_display' for \(rec), a cameracoach recording; known kinds: "),
      (["diff", rec, golden, "--spec", "PoseSpec.json"], "\(rec): --spec names a Just Photo PoseSpec"),
      (["minimize", rec, "--expect", "state", "--set", "angleFix=on", "-o", out.appendingPathComponent("m.jprec").path], "\(rec): --set overrides"),
      (["plot", rec, "-o", out.appendingPathComponent("p.svg").path, "--spec", "PoseSpec.json"], "\(rec): --spec names"),
      (["export", rec, "--mcap", out.appendingPathComponent("e.mcap").path, "--set", "angleFix=on"], "\(rec): --set overrides"),
      (["verify", "--recordings-dir", "Recordings/cameracoach", "--golden-dir", "Golden/cameracoach", "budget-per-minute", "--set", "angleFix=on"], "\(rec): --set overrides"),
    ]
    for c in cases {
      let r = try CLI.run(c.args)
      #expect(r.code == 2 && r.stdout.isEmpty, "\(c.args): exit \(r.code)\n\(r.stdout.prefix(200))\(r.stderr)")
      #expect(r.stderr.contains(c.expect), "\(c.args): \(r.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("m.jprec").path))
    #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("e.mcap").path))
    // The engine's own kinds still select its lines; a Just Photo recording still takes --spec.
    let kept = try CLI.run(["replay", rec, "--trace", "state"])
    #expect(kept.code == 0 && !kept.stdout.isEmpty, "\(kept.stderr)")
    #expect(kept.stdout.split(separator: "\n").allSatisfy { $0.contains("\"out\":\"state\"") }, "\(kept.stdout.prefix(300))")
    let mixed = try CLI.run(["plot", rec, "Recordings/drift-left-and-back.jprec", "-o", out.appendingPathComponent("mixed").path, "--spec", "PoseSpec.json"])
    #expect(mixed.code == 0, "\(mixed.stderr)")
  }

  /// `replay` has one route (issue 36 item 1): an output it may not write is refused in the
  /// same words whatever the recording's engine (`PATH: cannot write (why)`, exit 2, nothing
  /// written); another engine's replay said `PATH: why` before.
  @Test func replaysRefuseAnUnwritableOutputInOneWayForEveryEngine() throws {
    let dir = try CLI.tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let target = dir.appendingPathComponent("target.jsonl")
    try "keep\n".write(to: target, atomically: true, encoding: .utf8)
    let link = dir.appendingPathComponent("link.jsonl")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    for rec in ["Recordings/drift-left-and-back.jprec", "Recordings/pixscan/completion.jprec", "Recordings/cameracoach/consent.jprec"] {
      for flag in ["-o", "--a13"] {
        let r = try CLI.run(["replay", rec, flag, link.path] + (flag == "--a13" ? ["-o", dir.appendingPathComponent("t.jsonl").path] : []))
        #expect(r.code == 2, "\(rec) \(flag): exit \(r.code) \(r.stderr)")
        #expect(r.stderr.hasPrefix("jpreplay: \(link.path): cannot write (is a symbolic link"), "\(rec) \(flag): \(r.stderr)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep\n")
      }
    }
  }
}
