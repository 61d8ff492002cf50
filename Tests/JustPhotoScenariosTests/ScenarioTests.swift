import CanonicalJSON
import Foundation
import Recording
@testable import JustPhotoScenarios
import Testing


/// Scenario files (DESIGN §6): strict parsing, deterministic generation,
/// the timeline's keyframes / ramps / oscillations, seeded noise.
@Suite("scenarios")
struct ScenarioTests {
  static let file = "Recordings/t.scenario.yaml"

  static func parse(_ text: String, file: String = file) throws -> Scenario {
    try Scenario.parse(bytes: Array(text.utf8), file: file)
  }

  static func parseError(_ text: String) -> ScenarioError? {
    do {
      _ = try parse(text)
      return nil
    } catch { return error as? ScenarioError }
  }

  static let base = """
    name: t
    duration_ms: 1000
    seed: 7

    """

  /// The landmark lines of a generated recording, decoded.
  static func frames(_ s: Scenario) throws -> [JSONObject] {
    try s.generate().lines.dropFirst().map { try #require(JSONParser.parse($0).objectValue) }
      .filter { $0["kind"]?.stringValue == "landmarks" }
  }

  static func joint(_ line: JSONObject, _ name: String) -> [Double]? {
    line["body"]?[name]?.arrayValue?.compactMap(\.doubleValue)
  }

  // MARK: Errors name the file, the line and the key

  @Test func aTypoedKeyNamesFileLineAndKey() throws {
    let e = try #require(Self.parseError(Self.base + "subjet:\n  x: 0.6\n"))
    #expect(e.file == Self.file)
    #expect(e.line == 4)
    #expect(e.key == "subjet")
    #expect(e.description.hasPrefix("Recordings/t.scenario.yaml:4:1: subjet: unknown key"), "\(e)")
    #expect(e.message.contains("did you mean \"subject\""))

    let p = try #require(Self.parseError(Self.base + "subject:\n  x: 0.6\n  hpi: 0.7\n"))
    #expect(p.line == 6 && p.key == "subject.hpi", "\(p)")
    #expect(p.message.contains("did you mean \"hip\""), "\(p)")
  }

  @Test func aNegativeOrMissingDurationIsRefused() throws {
    let e = try #require(Self.parseError("name: t\nseed: 1\nduration_ms: -40\n"))
    #expect(e.line == 3 && e.key == "duration_ms", "\(e)")
    #expect(e.message.contains("non-negative"), "\(e)")
    let m = try #require(Self.parseError("name: t\nseed: 1\n"))
    #expect(m.message.contains("missing key \"duration_ms\""), "\(m)")
  }

  @Test func anUnknownEventKindIsRefused() throws {
    let e = try #require(
      Self.parseError(Self.base + "timeline:\n  - at: 100\n    event: {kind: shuter_tap}\n"))
    #expect(e.line == 6, "\(e)")
    #expect(e.key == "timeline[0].event.kind", "\(e)")
    #expect(e.message.contains("unknown event kind \"shuter_tap\""), "\(e)")
    #expect(e.message.contains("did you mean \"shutter_tap\""), "\(e)")
  }

  @Test func eventsAreCheckedLikeImportedLines() throws {
    let e = try #require(
      Self.parseError(Self.base + "timeline:\n  - at: 100\n    event:\n      kind: thermal\n      state: hot\n"))
    #expect(e.line == 8 && e.key == "timeline[0].event.state", "\(e)")
    #expect(e.message.contains("nominal"), "\(e)")
  }

  @Test func wrongTypesAndShapesAreRefused() throws {
    let cases: [(String, Int, String, String)] = [
      ("fps: fast\n", 4, "fps", "expected an integer"),
      ("subject: {absent: yes}\n", 4, "subject.absent", "expected true or false"),
      ("timeline:\n  - {at: 5, from: 3}\n", 5, "timeline[0]", "expected one of"),
      ("timeline:\n  - {from: 500, to: 100, subject: {x: 0.6}}\n", 5, "timeline[0].to", "expected to > from"),
      ("timeline:\n  - {at: 2000, subject: {x: 0.6}}\n", 5, "timeline[0].at", "after the end"),
      ("timeline:\n  - {from: 0, to: 100, subject: {people: 2}}\n", 5, "timeline[0].subject", "numeric parameters only"),
      ("frames: {times: [0, 100, 50]}\n", 4, "frames.times[2]", "must increase"),
      ("noise: {landmark_sigma: 0.01, miss: 0.1}\n", 4, "noise.miss", "did you mean \"miss_rate\""),
      ("options: {angleFix: sideways}\n", 4, "options.angleFix", "angleFix"),
      ("subject: {drop: [leftHip, leftHop]}\n", 4, "subject.drop[1]", "unknown joint"),
    ]
    for (text, line, key, message) in cases {
      let e = try #require(Self.parseError(Self.base + text), "accepted: \(text)")
      #expect(e.line == line && e.key == key && e.message.contains(message), "\(text) → \(e)")
    }
  }

  @Test func theNameMustMatchTheFileName() throws {
    let e = try #require(Self.parseError("name: other\nduration_ms: 10\nseed: 1\n"))
    #expect(e.line == 1 && e.key == "name", "\(e)")
  }

  // MARK: Determinism

  static let noisy = base + """
    subject: {x: 0.55}
    noise: {landmark_sigma: 0.004, conf_sigma: 0.02, miss_rate: 0.1}
    luma: {every: 5}
    timeline:
      - {from: 100, to: 600, subject: {x: 0.7, eye_tilt: 10}}
      - {from: 0, to: 1000, oscillate: {top: {amplitude: 0.01, period_ms: 400}}}
      - {at: 300, event: {kind: thermal, state: fair}}
    references:
      - {at: 0, ref_id: ref-A, subject: {face_w: 0.14}, drop: [leftAnkle], conf: {rightShoulder: 0.4}}

    """

  @Test func theSameScenarioTwiceGivesIdenticalBytes() throws {
    let a = try Self.parse(Self.noisy).generate()
    let b = try Self.parse(Self.noisy).generate()
    #expect(a.jsonl == b.jsonl)
    #expect(a.lines.count == 23)  // header, 16 frames, 4 luma planes, 1 event, 1 reference

    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let p1 = dir.appendingPathComponent("1.jprec").path
    let p2 = dir.appendingPathComponent("2.jprec").path
    try a.writeRecording(to: p1)
    try b.writeRecording(to: p2)
    #expect(try Data(contentsOf: URL(fileURLWithPath: p1)) == Data(contentsOf: URL(fileURLWithPath: p2)))
    // The written recording holds what the scenario generates; a changed scenario does not.
    #expect(a.difference(fromRecordingAt: p1) == nil)
    let changed = try Self.parse(Self.noisy.replacingOccurrences(of: "x: 0.7", with: "x: 0.71")).generate()
    let diff = try #require(changed.difference(fromRecordingAt: p1))
    #expect(diff.contains("differs"), "\(diff)")
  }

  @Test func noiseIsSeeded() throws {
    let a = try Self.frames(Self.parse(Self.noisy))
    let b = try Self.frames(Self.parse(Self.noisy.replacingOccurrences(of: "seed: 7", with: "seed: 8")))
    #expect(a.count == b.count)
    #expect(a != b)
    // miss_rate 0.1 over 15 frames drops some detections with this seed: empty landmarks.
    let empty = a.filter { $0["body"] == .null }
    #expect(empty.allSatisfy { $0["faces"] == .array([]) && $0["people"] == .number(0) })
    // Without noise, two seeds give the same frames.
    let quiet = Self.base + "subject: {x: 0.6}\n"
    #expect(try Self.frames(Self.parse(quiet)) == Self.frames(Self.parse(quiet.replacingOccurrences(of: "seed: 7", with: "seed: 9"))))
  }

  // MARK: Timeline

  @Test func aStepKeyframeChangesAtItsTime() throws {
    let s = try Self.parse(Self.base + "frames: {every_ms: 100}\ntimeline:\n  - {at: 300, subject: {x: 0.65, people: 2}}\n")
    #expect(s.subjectState(at: 299)[.x] == 0.5)
    #expect(s.subjectState(at: 300)[.x] == 0.65)
    let f = try Self.frames(s)
    #expect(f.map { $0["t"]?.doubleValue } == (0...10).map { Double($0 * 100) })
    #expect(Self.joint(f[2], "nose")?.first == 0.5)
    #expect(Self.joint(f[3], "nose")?.first == 0.65)
    #expect(f[2]["people"] == .number(1) && f[3]["people"] == .number(2))
  }

  @Test func aRampIsLinearFromTheValueAtItsStart() throws {
    let s = try Self.parse(
      Self.base + """
        subject: {x: 0.4}
        timeline:
          - {at: 100, subject: {x: 0.5}}
          - {from: 200, to: 600, subject: {x: 0.7}}

        """)
    #expect(s.subjectState(at: 150)[.x] == 0.5)
    #expect(abs(s.subjectState(at: 400)[.x] - 0.6) < 1e-12)  // midpoint
    #expect(s.subjectState(at: 600)[.x] == 0.7)
    #expect(s.subjectState(at: 900)[.x] == 0.7)
    #expect(s.subjectState(at: 400)[.hip] == 0.66)  // untouched parameters keep their value
  }

  @Test func anOscillationAddsASine() throws {
    let s = try Self.parse(
      Self.base + "timeline:\n  - {from: 100, to: 900, oscillate: {x: {amplitude: 0.05, period_ms: 400}}}\n")
    #expect(s.subjectState(at: 50)[.x] == 0.5)
    #expect(abs(s.subjectState(at: 200)[.x] - 0.55) < 1e-12)  // a quarter period: + amplitude
    #expect(abs(s.subjectState(at: 300)[.x] - 0.5) < 1e-12)
    #expect(abs(s.subjectState(at: 400)[.x] - 0.45) < 1e-12)
    #expect(s.subjectState(at: 900)[.x] == 0.5)
  }

  @Test func defaultFrameTimesFollowPythonRounding() throws {
    let s = try Self.parse("name: t\nduration_ms: 200\nseed: 1\nfps: 16\n")
    // round(k · 1000 / 16): 62.5 → 62 and 187.5 → 188 (half to even), as scripts/corpus_jsonl.py.
    #expect(s.frameTimes == [0, 62, 125, 188])
  }

  @Test func eventsAndReferencesComeAfterFramesAtTheSameTime() throws {
    let s = try Self.parse(
      Self.base + """
        frames: {times: [0, 500]}
        luma: {every: 1}
        timeline:
          - {at: 500, event: {kind: shutter_tap}}
        references:
          - {at: 500, ref_id: r1, drop: [leftHip]}

        """)
    let kinds = s.generate().lines.dropFirst().compactMap { try? JSONParser.parse($0)["kind"]?.stringValue }
    #expect(kinds == ["luma", "landmarks", "luma", "landmarks", "shutter_tap", "ref_analysis"])
    let ref = try #require(s.generate().lines.last.map { try JSONParser.parse($0) })
    #expect(ref["body"]?["leftHip"] == nil && ref["body"]?["rightHip"] != nil)
  }

  // MARK: The port of the Python model

  @Test func r6MatchesPythonRound() {
    // (v, Python's round(v, 6)) for near-ties in binary, computed with CPython 3.
    let cases: [(Double, Double)] = [
      (0.745, 0.745), (0.5 + 0.075 + 0.02, 0.595), (1.0000005, 1.000001), (2.6749995, 2.675),
      (0.1234565, 0.123456), (-4e-07, 0), (5e-07, 0), (1.5e-06, 2e-06), (0.65 + 0.075 * 0.55 - 0.03, 0.66125),
      (0.39923835, 0.399238), (0.99428645, 0.994286), (0.91306515, 0.913065), (0.21881315, 0.218813),
      (0.62068175, 0.620682), (0.79532985, 0.79533),
    ]
    for (v, expected) in cases { #expect(SubjectModel.r6(v) == expected, "round(\(v), 6)") }
  }

  // Every corpus scenario generating its committed recording is `verify`'s staleness check,
  // which CorpusTests' whole-corpus `verify --determinism` runs on every scenario recording
  // (event lines compared, headers too): generating the corpus a second time here in process
  // checked the same thing less strictly (events compared with ==).

  // MARK: Reference faces

  @Test func referenceFacesAreEditsOfTheModelFace() throws {
    let s = try Self.parse(
      Self.base + """
        frames: none
        references:
          - {at: 0, ref_id: two, subject: {eye_conf: 0.9}, faces: [{conf: 0.7}, {bbox: [0.1, 0.1, 0.14, 0.18], conf: 0.7}]}
          - {at: 1, ref_id: eye, subject: {eye_conf: 0.9}, faces: [{left_eye: {conf: 0.3}}]}
          - {at: 2, ref_id: none, faces: []}

        """)
    let refs = try s.generate().lines.dropFirst().map { try JSONParser.parse($0) }
    let model = s.referenceEvent(Scenario.Reference(at: 0, refID: "m", subject: s.references[0].subject, drop: [], conf: []))
    let face = try #require(model["faces"]?.arrayValue?.first?.objectValue)
    let two = try #require(refs[0]["faces"]?.arrayValue)
    #expect(two.count == 2)
    #expect(two[0]["conf"] == .number(0.7) && two[0]["bbox"] == face["bbox"])
    #expect(two[1]["bbox"] == .array([0.1, 0.1, 0.14, 0.18]) && two[1]["conf"] == .number(0.7))
    // Fields keep the model face's order (Python's dict(face, conf=0.7)).
    #expect(two[1].objectValue?.keys == face.keys)
    let eye = try #require(refs[1]["faces"]?.arrayValue?.first)
    #expect(eye["left_eye"]?["conf"] == .number(0.3) && eye["left_eye"]?["x"] == face["left_eye"]?["x"])
    #expect(eye["right_eye"]?["conf"] == .number(0.9))
    #expect(refs[2]["faces"] == .array([]) && refs[2]["body"]?.objectValue != nil)

    let e = try #require(Self.parseError(Self.base + "references:\n  - {at: 0, ref_id: r, faces: [{cnof: 0.7}]}\n"))
    #expect(e.key == "references[0].faces[0].cnof" && e.message.contains("did you mean \"conf\""), "\(e)")
  }

  // MARK: posture and face parameters (issue 5, corpus coverage)

  @Test func postureParametersMoveTheirJoints() throws {
    let s = try Self.parse(
      Self.base + """
        frames: {times: [0, 100, 200]}
        timeline:
          - {at: 100, subject: {hip_tilt: 0.05, lean: -0.1, hip_ratio: 1.2}}
          - {at: 200, subject: {hip_tilt: 0, lean: 0, hip_ratio: 0.7}}

        """)
    let f = try Self.frames(s)
    // Defaults reproduce the model: hips at x ± 0.7 half, level; shoulders over the hips.
    #expect(Self.joint(f[0], "leftHip")?.prefix(2) == [0.5525, 0.66])
    #expect(Self.joint(f[0], "rightHip")?.prefix(2) == [0.4475, 0.66])
    #expect(Self.joint(f[0], "leftShoulder")?.first == 0.575)
    // hip_tilt lowers the left hip only; hip_ratio widens both; lean moves the upper body.
    #expect(Self.joint(f[1], "leftHip")?.prefix(2) == [0.59, 0.71])
    #expect(Self.joint(f[1], "rightHip")?.prefix(2) == [0.41, 0.66])
    #expect(Self.joint(f[1], "leftShoulder")?.first == 0.475)
    #expect(Self.joint(f[1], "nose")?.first == 0.4)
    #expect(Self.joint(f[1], "root")?.first == 0.5)  // hips and below stay
    #expect(f[1]["faces"]?.arrayValue?.first?["nose_tip"]?["x"] == .number(0.5))  // the face stays
    #expect(Self.joint(f[2], "leftHip")?.prefix(2) == [0.5525, 0.66])
  }

  @Test func jointOverridesReplaceModelPointsUntilCleared() throws {
    let s = try Self.parse(
      Self.base + """
        frames: {times: [0, 100, 200]}
        subject: {conf: 0.8}
        timeline:
          - {at: 100, subject: {joints: {rightWrist: [0.51, 0.23], leftElbow: [0.7, 0.4]}}}
          - {at: 200, subject: {joints: {}}}

        """)
    let f = try Self.frames(s)
    #expect(Self.joint(f[1], "rightWrist") == [0.51, 0.23, 0.8])
    #expect(Self.joint(f[1], "leftElbow") == [0.7, 0.4, 0.8])
    #expect(Self.joint(f[1], "leftWrist") == Self.joint(f[0], "leftWrist"))
    #expect(Self.joint(f[2], "rightWrist") == Self.joint(f[0], "rightWrist"))
    let e = try #require(Self.parseError(Self.base + "subject: {joints: {rightWirst: [0.5, 0.5]}}\n"))
    #expect(e.message.contains("did you mean \"rightWrist\""), "\(e)")
    #expect(Self.parseError(Self.base + "subject: {joints: {nose: [0.5]}}\n") != nil)
    // A ramp cannot move an override (discrete).
    #expect(Self.parseError(Self.base + "timeline:\n  - {from: 0, to: 100, subject: {joints: {}}}\n") != nil)
  }

  @Test func faceExtrasAreRecordedOnlyWhenSet() throws {
    let s = try Self.parse(
      Self.base + "frames: {times: [0, 100]}\ntimeline:\n  - {at: 100, subject: {eye_ar: 0.09, landmark_conf: 0.5}}\n")
    let f = try Self.frames(s)
    let face0 = try #require(f[0]["faces"]?.arrayValue?.first?.objectValue)
    #expect(face0["eye_ar"] == nil && face0["landmark_conf_avg"] == nil)
    let face1 = try #require(f[1]["faces"]?.arrayValue?.first?.objectValue)
    #expect(face1["eye_ar"] == .number(0.09) && face1["landmark_conf_avg"] == .number(0.5))
    #expect(face1.keys.suffix(2) == ["eye_ar", "landmark_conf_avg"])
    #expect(Self.parseError(Self.base + "subject: {eye_ar: 1.5}\n") != nil)
  }

  @Test func referenceFrameScalarsBecomeTheEventsValues() throws {
    let s = try Self.parse(
      Self.base + "frames: none\nreferences:\n  - {at: 0, ref_id: lit, frame_scalars: {faceLumaMean: 0.6, clip_faceROI: 0}}\n")
    let ref = try #require(JSONParser.parse(s.generate().lines[1]).objectValue)
    #expect(ref["frame_scalars"]?["values"] == .object(JSONObject([JSONMember("faceLumaMean", 0.6), JSONMember("clip_faceROI", 0)])))
    #expect(Self.parseError(Self.base + "references:\n  - {at: 0, ref_id: r, frame_scalars: {x: on}}\n") != nil)
  }

  // MARK: PoseSpec derivations

  static let spec = #"""
    {"name": "t", "n": 3, "z": 0.0, "one": 1.0, "e": 1e-05, "big": 1e16, "s": "引号\"\n/", "changeLog": [{"version": "a"}, {"version": "b"}], "cues": [{"id": "A", "trigger": {"withRef": null, "noRef": {"warn": {">": 0.1}}}}, {"id": "B", "x": [1, 2.5]}], "drop": {"k": 1}}
    """#

  static let derivation = """
    from: spec.json
    remove: ["changeLog[-1]", drop.k]
    set:
      "cues[id=A].trigger.withRef": {warn: {"<": -0.02}, n: 2}
      new: [0.5, 3]
    """

  /// A scenario file `t.scenario.yaml` beside spec.json in a fresh folder.
  static func withSpec(_ body: String) throws -> (dir: URL, file: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-spec-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try Data(spec.utf8).write(to: dir.appendingPathComponent("spec.json"))
    let file = dir.appendingPathComponent("t.scenario.yaml").path
    try Data((base + body).utf8).write(to: URL(fileURLWithPath: file))
    return (dir, file)
  }

  @Test func aReloadSpecDerivedFromAFileCarriesTheSHA256OfItsCanonicalText() throws {
    let indented = Self.derivation.split(separator: "\n").map { "        \($0)" }.joined(separator: "\n")
    let (dir, file) = try Self.withSpec("frames: none\ntimeline:\n  - at: 0\n    event:\n      kind: posespec_reload\n      spec:\n\(indented)\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    let generated = try Scenario.load(path: file).generate()
    let line = try JSONParser.parse(try #require(generated.lines.dropFirst().first))
    // The edited spec as JSONWriter.write prints it (the text the engine loads an inline spec
    // from, so the hash is the reloaded spec's own sha256): members in order, shortest numbers.
    let canonical = #"{"name":"t","n":3,"z":0,"one":1,"e":1e-05,"big":1e+16,"s":"引号\"\n/","changeLog":[{"version":"a"}],"cues":[{"id":"A","trigger":{"withRef":{"warn":{"<":-0.02},"n":2},"noRef":{"warn":{">":0.1}}}},{"id":"B","x":[1,2.5]}],"drop":{},"new":[0.5,3]}"#
    #expect(line.objectValue?.keys == ["t", "kind", "sha256", "spec"])
    #expect(line["spec"].map { JSONWriter.write($0) } == canonical)
    #expect(line["sha256"] == .string(SHA256.hex(canonical)))
  }

  @Test func aReloadKeepsAnExplicitSHA256() throws {
    let indented = Self.derivation.split(separator: "\n").map { "        \($0)" }.joined(separator: "\n")
    let (dir, file) = try Self.withSpec(
      "frames: none\ntimeline:\n  - at: 0\n    event:\n      kind: posespec_reload\n      sha256: abc\n      spec:\n\(indented)\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    let line = try JSONParser.parse(try #require(try Scenario.load(path: file).generate().lines.dropFirst().first))
    #expect(line["sha256"] == "abc")
  }

  @Test func initialPosespecMayBeDerived() throws {
    let indented = Self.derivation.split(separator: "\n").map { "    \($0)" }.joined(separator: "\n")
    let (dir, file) = try Self.withSpec("frames: none\ninitial:\n  camera_auth: authorized\n  posespec:\n\(indented)\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    let s = try Scenario.load(path: file)
    #expect(s.initial.keys == ["camera_auth", "posespec"])
    #expect(s.initial["posespec"]?["changeLog"]?.arrayValue?.count == 1)
    #expect(s.initial["posespec"]?["cues"]?.arrayValue?.first?["trigger"]?["withRef"]?["n"] == .number(2))
    // An inline spec (no `from`) passes through as written.
    let inline = try Self.parse(Self.base + "initial: {posespec: {prdVersion: v1}}\n")
    #expect(inline.initial["posespec"] == .object(["prdVersion": "v1"]))
  }

  @Test func aBadDerivationNamesTheLineAndThePath() throws {
    let cases: [(String, String, String)] = [
      ("remove: [nope.k]", "posespec.remove[0]", "no key \"nope\""),
      ("remove: [\"cues[id=Z]\"]", "posespec.remove[0]", "no element with id=Z"),
      ("remove: [\"changeLog[5]\"]", "posespec.remove[0]", "outside the list"),
      ("set: {\"cues[x]\": 1}", "posespec.set.cues[x]", "expected an index or field=value"),
      ("sett: {}", "posespec.sett", "did you mean \"set\""),
    ]
    for (edit, key, message) in cases {
      let (dir, file) = try Self.withSpec("initial:\n  posespec:\n    from: spec.json\n    \(edit)\n")
      defer { try? FileManager.default.removeItem(at: dir) }
      do {
        _ = try Scenario.load(path: file)
        Issue.record("accepted: \(edit)")
      } catch {
        #expect(error.key == "initial.\(key)" && error.line == 7 && error.message.contains(message), "\(edit) → \(error)")
      }
    }
    let (dir, file) = try Self.withSpec("initial:\n  posespec: {from: missing.json}\n")
    defer { try? FileManager.default.removeItem(at: dir) }
    #expect(throws: ScenarioError.self) { try Scenario.load(path: file) }
  }
}
