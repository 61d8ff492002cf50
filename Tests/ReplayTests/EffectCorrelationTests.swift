import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
import Replay
import Testing

@Suite("Effect correlation (ENGINE §1.6)")
struct EffectCorrelationTests {
  /// An engine that asks for a capture on each shutter tap and a PhotoKit write on photo data.
  var camera: ScriptedEngine {
    var e = ScriptedEngine()
    e.onHandle = { ev in
      switch ev.kind {
      case .shutter_tap:
        return Effects(outputs: [effectRequest(ev.t, "capture_photo", ["shot": 1])])
      case .photo_data:
        return Effects(outputs: [effectRequest(ev.t, "photokit_write", ["shot": 1, "attempt": 1])])
      default: return Effects()
      }
    }
    return e
  }

  @Test func matchedResultsPassStrictReplay() throws {
    let r = try replay(
      camera,
      [
        event(100, .shutter_tap),
        event(180, .photo_data, ["shot": 1, "bytes": 2_000_000, "ext": "heic"]),
        event(
          400, .photokit_write_result,
          ["shot": 1, "attempt": 1, "ok": true, "asset_id": "A/L0/001"]),
      ])
    #expect(r.log == ["start", "shutter_tap@100", "photo_data@180", "photokit_write_result@400"])
    #expect(r.summary.notes.isEmpty)
  }

  @Test func aResultWithoutRequestIsAHarnessErrorWithTimeKindAndKey() {
    #expect {
      try replay(
        camera, [event(50, .photokit_write_result, ["shot": 3, "attempt": 2, "ok": true])])
    } throws: { error in
      guard case .harness(let h) = error as? ReplayError else { return false }
      return h.issues == [
        HarnessIssue(
          kind: .resultWithoutRequest, t: 50, effect: "photokit_write_result",
          key: "shot=3,attempt=2")
      ]
    }
  }

  @Test func aResultForAnotherKeyDoesNotAnswerTheRequest() {
    #expect {
      try replay(
        camera,
        [event(100, .shutter_tap), event(150, .photo_capture_error, ["shot": 2, "error": "x"])])
    } throws: { error in
      guard case .harness(let h) = error as? ReplayError else { return false }
      return h.issues.first?.key == "shot=2"
    }
  }

  @Test func aRequestLeftWithoutResultFailsStrictReplayAtTheEnd() {
    #expect {
      try replay(camera, [event(100, .shutter_tap), event(300, .network, ["status": "satisfied"])])
    } throws: { error in
      guard case .harness(let h) = error as? ReplayError else { return false }
      return h.issues == [
        HarnessIssue(kind: .requestWithoutResult, t: 100, effect: "capture_photo", key: "shot=1")
      ]
    }
  }

  @Test func requestsWithoutExpectedResultsAreNotTracked() throws {
    var e = ScriptedEngine()
    e.onStart = {
      Effects(outputs: [effectRequest(0, "start_camera"), effectRequest(0, "open_settings")])
    }
    let r = try replay(e, [event(10, .camera_ready)])
    #expect(r.records.count == 2)
  }

  @Test func thumbnailAttemptsAreAnsweredInRequestOrderByShot() throws {
    var e = ScriptedEngine()
    e.onHandle = { ev in
      ev.kind == .shutter_tap
        ? Effects(outputs: [
          effectRequest(ev.t, "generate_thumb", ["shot": 1, "attempt": 1]),
          effectRequest(ev.t, "generate_thumb", ["shot": 1, "attempt": 2]),
        ]) : Effects()
    }
    let r = try replay(
      e,
      [
        event(10, .shutter_tap), event(20, .thumb_result, ["shot": 1, "ok": false]),
        event(30, .thumb_result, ["shot": 1, "ok": true]),
      ])
    #expect(r.summary.inputs == 3)
  }

  @Test func strictnessComesFromTheHeaderOptionsUnlessOverridden() throws {
    let header: JSONObject = ["options": .object(["strictEffects": "false"])]
    let events = [event(100, .shutter_tap), event(300, .network, ["status": "satisfied"])]
    let r = try replay(camera, events, header: header)
    #expect(r.summary.synthesizedResults == 2)  // photo_data, then the PhotoKit write it asks for
    #expect(throws: ReplayError.self) {
      try replay(camera, events, header: header, options: ReplayOptions(strictEffects: true))
    }
  }

  @Test func lenientReplaySynthesizesMissingResultsAfterTheDefaultLatency() throws {
    var engine = camera
    engine.onHandle = { ev in
      switch ev.kind {
      case .shutter_tap: Effects(outputs: [effectRequest(ev.t, "capture_photo", ["shot": 1])])
      case .photo_data:
        Effects(outputs: [
          freeOutput(["shot": ev.fieldsForTest["shot"] ?? .null, "core": "writing"])
        ])
      default: Effects()
      }
    }
    let r = try replay(
      engine, [event(100, .shutter_tap), event(1000, .network, ["status": "satisfied"])],
      options: ReplayOptions(strictEffects: false))
    #expect(r.log == ["start", "shutter_tap@100", "photo_data@150", "network@1000"])
    #expect(r.records.last == record(150, "prompt", ["shot": 1, "core": "writing"]))
    #expect(r.summary.synthesizedResults == 1)
    #expect(r.summary.notes.map(\.kind) == [.synthesizedResult])
  }

  @Test func lenientReplayReportsRequestsWhoseSynthesizedResultFallsAfterTheEnd() throws {
    let r = try replay(
      camera, [event(100, .shutter_tap)], options: ReplayOptions(strictEffects: false))
    #expect(r.summary.synthesizedResults == 0)
    #expect(
      r.summary.notes == [
        HarnessIssue(kind: .requestWithoutResult, t: 100, effect: "capture_photo", key: "shot=1")
      ])
  }

  @Test func lenientReplayPrefersARecordedResultAndDropsALateOne() throws {
    let recordedInTime = try replay(
      camera,
      [event(100, .shutter_tap), event(120, .photo_capture_error, ["shot": 1, "error": "busy"])],
      options: ReplayOptions(strictEffects: false))
    #expect(recordedInTime.log == ["start", "shutter_tap@100", "photo_capture_error@120"])
    #expect(recordedInTime.summary.synthesizedResults == 0)

    let late = try replay(
      camera,
      [event(100, .shutter_tap), event(400, .photo_capture_error, ["shot": 1, "error": "busy"])],
      options: ReplayOptions(strictEffects: false, effectLatencyMs: 50))
    // photo_data is synthesized at 150, its PhotoKit write answered at 200; the recorded error
    // at 400 comes too late and never reaches the engine.
    #expect(
      late.log == ["start", "shutter_tap@100", "photo_data@150", "photokit_write_result@200"])
    #expect(late.summary.notes.contains { $0.kind == .lateResultDropped && $0.t == 400 })
  }

  @Test func synthesizedPhotoKitWritesGetDeterministicUUIDShapedAssetIDs() {
    let rule = EffectRule.forRequest(.photokit_write)!
    let e = rule.syntheticSuccess(for: ["shot": 2, "attempt": 1], at: 70)
    guard case .typed(let g) = e.payload else {
      Issue.record("not generic")
      return
    }
    #expect(g.eventKind == .photokit_write_result)
    #expect(g.fields["asset_id"] == "5E1F0000-0000-4000-8000-0000000007D1/L0/001")
    #expect(g.fields["ok"] == true)
    #expect(e.t == 70)
  }
}

extension InputEvent {
  var fieldsForTest: JSONObject {
    if case .typed(let g) = payload { return g.fields }
    return JSONObject()
  }
}
