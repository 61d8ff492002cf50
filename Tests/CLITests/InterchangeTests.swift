import CanonicalJSON
import Foundation
import Testing

/// `import` → `cat` round trips, the documented example, and JSONL/.jprec replay parity
/// (DESIGN §3, docs/FORMAT.md).
@Suite("JSONL interchange")
struct InterchangeTests {
  /// One event of every kind of ENGINE §1.5–1.6, in the documented JSONL shape.
  static func everyKindJSONL() -> String {
    let lines = [
      #"{"format":"jp-replay/1","name":"all-kinds","wall_start_ms":1770860000000,"duration_ms":5000,"options":{"angleFix":"on"},"initial":{"scene":"outdoor"}}"#,
      #"{"t":0,"kind":"app_launch","store":{"session_id":"s1"}}"#,
      #"{"t":0,"kind":"posespec_reload","sha256":"abc","path":"PoseSpec.json"}"#,
      #"{"t":1,"kind":"app_lifecycle","state":"active"}"#,
      #"{"t":2,"kind":"memory_warning"}"#,
      #"{"t":3,"kind":"rotation","orientation":"landscapeLeft"}"#,
      #"{"t":4,"kind":"system_dialog","open":true}"#,
      #"{"t":5,"kind":"camera_auth","status":"authorized"}"#,
      #"{"t":6,"kind":"camera_permission_result","granted":true}"#,
      #"{"t":7,"kind":"camera_ready"}"#,
      #"{"t":8,"kind":"camera_start_failed","reason":"camera_in_use"}"#,
      #"{"t":9,"kind":"camera_interrupted","reason":"call"}"#,
      #"{"t":10,"kind":"camera_interruption_ended"}"#,
      #"{"t":11,"kind":"camera_flipped","facing":"front"}"#,
      #"{"t":12,"kind":"preview_stats","window_ms":1000,"dropped_frames":3,"avg_fps":27.5}"#,
      #"{"t":13,"kind":"landmarks","frame":1,"src_t":12,"image":{"w":1080,"h":1920},"coords":"vision","body":{"nose":[0.512345,0.771234,0.93],"leftShoulder":[0.6,0.7,0.2],"rightAnkle":[0.45,0.05,0.61]},"faces":[{"bbox":[0.4,0.7,0.2,0.12],"conf":0.97,"left_eye":{"x":0.53,"y":0.77,"conf":0.9,"prec_max":0.011,"ear":0.28},"right_eye":{"x":0.47,"y":0.77},"nose":{"x":0.5,"y":0.74},"nose_tip":{"x":0.5,"y":0.735},"chin":{"x":0.5,"y":0.7},"mouth":{"x":0.5,"y":0.72},"eye_ar":0.3,"landmark_conf_avg":0.88}],"people":1,"vision_ms":14.25}"#,
      #"{"t":13,"kind":"luma","frame":1,"w":4,"h":2,"enc":"u8-b64","data":"AAEC/wQFBgc="}"#,
      #"{"t":14,"kind":"frame_scalars","frame":1,"values":{"faceLumaMean":0.41}}"#,
      #"{"t":15,"kind":"device_motion","rms":0.02}"#,
      #"{"t":16,"kind":"white_balance","temp_k":4100,"left_k":3900,"right_k":4500}"#,
      #"{"t":17,"kind":"ref_registration","offset_x":0.01,"offset_y":-0.02,"rotation_deg":1.5,"scale":1.02}"#,
      #"{"t":18,"kind":"thermal","state":"serious"}"#,
      #"{"t":19,"kind":"voiceover","enabled":false}"#,
      #"{"t":20,"kind":"network","status":"unsatisfied"}"#,
      #"{"t":21,"kind":"free_space","mb":512}"#,
      #"{"t":22,"kind":"photo_auth","status":"limited"}"#,
      #"{"t":23,"kind":"entitlement","state":"trial"}"#,
      #"{"t":24,"kind":"ui_scene","scene":"cafe"}"#,
      #"{"t":25,"kind":"shutter_tap"}"#,
      #"{"t":26,"kind":"prompt_action","key":"write_failed","action_id":"retry"}"#,
      #"{"t":27,"kind":"prompt_close","key":"session_count_15"}"#,
      #"{"t":28,"kind":"viewer_open","item":1}"#,
      #"{"t":29,"kind":"viewer_close","item":1}"#,
      #"{"t":30,"kind":"viewer_page","item":2}"#,
      #"{"t":31,"kind":"like_toggle","item":1,"liked":true}"#,
      #"{"t":32,"kind":"reset_session_tap"}"#,
      #"{"t":33,"kind":"praise_feedback","vote":"down"}"#,
      #"{"t":34,"kind":"quiet_mode","on":true}"#,
      #"{"t":35,"kind":"praise_expand"}"#,
      #"{"t":36,"kind":"subject_tap","face_index":0}"#,
      #"{"t":37,"kind":"ref_pick","ref_id":"r1","source":"user"}"#,
      #"{"t":38,"kind":"ref_analysis","ref_id":"r1","body":{"nose":[0.5,0.2,0.9]},"faces":[]}"#,
      #"{"t":39,"kind":"ref_switch","dir":"next"}"#,
      #"{"t":40,"kind":"inspiration_open"}"#,
      #"{"t":41,"kind":"inspiration_close"}"#,
      #"{"t":42,"kind":"odr_tap","tag":"inspo-cafe"}"#,
      #"{"t":43,"kind":"odr_retry_tap"}"#,
      #"{"t":44,"kind":"wrap_open"}"#,
      #"{"t":45,"kind":"wrap_export"}"#,
      #"{"t":46,"kind":"down_reasons_open"}"#,
      #"{"t":47,"kind":"down_reason_select","reason":"too_pushy"}"#,
      #"{"t":48,"kind":"rebuild_thumb_tap","item":1}"#,
      #"{"t":49,"kind":"resume_engine"}"#,
      #"{"t":50,"kind":"photo_data","shot":1,"bytes":2400000,"ext":"heic"}"#,
      #"{"t":51,"kind":"photo_capture_error","shot":2,"error":{"domain":"AVFoundationErrorDomain","code":-11800}}"#,
      #"{"t":52,"kind":"photokit_write_result","shot":1,"attempt":1,"ok":false,"error":{"domain":"PHPhotosErrorDomain","code":3311}}"#,
      #"{"t":53,"kind":"asset_fetch_result","asset_id":"A-1","attempt":1,"count":1}"#,
      #"{"t":54,"kind":"album_add_result","asset_id":"A-1","attempt":1,"ok":true}"#,
      #"{"t":55,"kind":"thumb_result","shot":1,"ok":true}"#,
      #"{"t":56,"kind":"favorite_sync_result","item":1,"result":"skipped_not_full_access"}"#,
      #"{"t":57,"kind":"odr_result","tag":"inspo-cafe","attempt":1,"ok":false,"error":"timeout"}"#,
      #"{"t":58,"kind":"purchase_result","ok":true}"#,
      #"{"t":59,"kind":"restore_result","ok":false,"error":"cancelled"}"#,
      #"{"t":60,"kind":"pending_write_failed","shot":3}"#,
      #"{"t":61,"kind":"label","cue_id":"FRAME_MOVE_LEFT","holds":true}"#,
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// Parses JSONL text into (header, events) as JSON values.
  func parse(_ text: String) throws -> [JSONValue] {
    try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
  }

  /// Equal JSON, numbers compared within `tolerance`.
  func close(_ a: JSONValue, _ b: JSONValue, _ tolerance: Double) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return abs(x - y) <= tolerance
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { close($0, $1, tolerance) }
    case (.object(let x), .object(let y)):
      return x.count == y.count && x.members.allSatisfy { m in y[m.key].map { close(m.value, $0, tolerance) } ?? false }
    default: return a == b
    }
  }

  @Test func importThenCatRoundTripsEveryEventKind() throws {
    let dir = try CLI.tempDir("interchange")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("all.jsonl")
    let text = Self.everyKindJSONL()
    try Data(text.utf8).write(to: src)
    let out = dir.appendingPathComponent("all.jprec")
    let imp = try CLI.run(["import", src.path, "-o", out.path])
    try #require(imp.code == 0, "\(imp.stderr)")
    let cat = try CLI.run(["cat", out.path])
    try #require(cat.code == 0, "\(cat.stderr)")
    let original = try parse(text)
    let back = try parse(cat.stdout)
    #expect(back.count == original.count)
    // Every kind of ENGINE §1.5–1.6 appears once (plus the header).
    let kinds = Set(back.dropFirst().compactMap { $0["kind"]?.stringValue })
    #expect(kinds.count == original.count - 1)
    #expect(back.first == original.first, "header must round-trip exactly")
    for (a, b) in zip(original.dropFirst(), back.dropFirst()) {
      let kind = a["kind"]?.stringValue ?? "?"
      var a = a
      // cat spells out defaults the source omitted (coords), otherwise the same fields.
      if kind == "landmarks", case .object(var o) = a, o["coords"] == nil { o["coords"] = "canonical"; a = .object(o) }
      // Landmark numbers come back at the documented 1/65536 fixed point; the rest exactly.
      let tolerance = kind == "landmarks" ? 1.0 / 131072 + 1e-12 : 0
      #expect(close(a, b, tolerance), "\(kind): \(JSONWriter.write(a)) vs \(JSONWriter.write(b))")
    }
    // Quantization actually happened (0.512345 is not a multiple of 1/65536).
    #expect(!cat.stdout.contains("0.512345,"))
    // A second import of the cat output gives the same cat output (the fixed point is stable).
    let again = dir.appendingPathComponent("again.jsonl")
    try Data(cat.stdout.utf8).write(to: again)
    let out2 = dir.appendingPathComponent("again.jprec")
    #expect(try CLI.run(["import", again.path, "-o", out2.path]).code == 0)
    #expect(try CLI.run(["cat", out2.path]).stdout == cat.stdout)
  }

  @Test func compressedJSONLImportsAndCatsTheSame() throws {
    let dir = try CLI.tempDir("interchange")
    defer { try? FileManager.default.removeItem(at: dir) }
    let zst = dir.appendingPathComponent("drift.jsonl.zst")
    let r = try CLI.run(["cat", "Recordings/drift-left-and-back.jprec", "-o", zst.path])
    try #require(r.code == 0, "\(r.stderr)")
    let out = dir.appendingPathComponent("drift.jprec")
    #expect(try CLI.run(["import", zst.path, "-o", out.path]).code == 0)
    #expect(try CLI.run(["cat", out.path]).stdout == CLI.run(["cat", "Recordings/drift-left-and-back.jprec"]).stdout)
  }

  @Test func theExampleInFormatMdImportsAndReplays() throws {
    let doc = try String(contentsOf: CLI.repoRoot.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
    let start = try #require(doc.range(of: "```jsonl\n"))
    let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
    let example = String(doc[start.upperBound..<end.lowerBound])
    let dir = try CLI.tempDir("interchange")
    defer { try? FileManager.default.removeItem(at: dir) }
    let src = dir.appendingPathComponent("example.jsonl")
    try Data(example.utf8).write(to: src)
    let out = dir.appendingPathComponent("example.jprec")
    let imp = try CLI.run(["import", src.path, "-o", out.path])
    #expect(imp.code == 0, "\(imp.stderr)")
    let replay = try CLI.run(["replay", out.path, "--lenient"])
    #expect(replay.code == 0, "\(replay.stderr)")
  }

  @Test func aJSONLRecordingReplaysExactlyLikeItsImport() throws {
    let dir = try CLI.tempDir("interchange")
    defer { try? FileManager.default.removeItem(at: dir) }
    for name in ["drift-left-and-back", "feet-cropped"] {
      // The scenario's JSONL (what `jpreplay record` imports into the .jprec).
      let a = try CLI.run(["replay", CLI.corpusJSONL(name, in: dir).path])
      let b = try CLI.run(["replay", "Recordings/\(name).jprec"])
      #expect(a.code == 0 && b.code == 0, "\(a.stderr)\(b.stderr)")
      #expect(!a.stdout.isEmpty)
      #expect(a.stdout == b.stdout, "\(name): JSONL and .jprec replays differ")
    }
  }

  @Test func infoShowsCountsDurationSizesAndRatio() throws {
    let r = try CLI.run(["info", "Recordings/drift-left-and-back.jprec"])
    #expect(r.code == 0, "\(r.stderr)")
    // 181 frames and 2 ground-truth labels (FRAME_MOVE_LEFT on and off).
    #expect(r.stdout.contains("events:      183"))
    #expect(r.stdout.contains("duration:    12000 ms"))
    #expect(r.stdout.contains("landmarks"))
    #expect(r.stdout.contains("compression"))
    let j = try CLI.run(["info", "--json", "Recordings/drift-left-and-back.jprec"])
    let v = try JSONParser.parse(j.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(v["events"]?.int64Value == 183)
    #expect(v["events_by_kind"]?["landmarks"]?.int64Value == 181)
    #expect(v["events_by_kind"]?["label"]?.int64Value == 2)
  }
}
