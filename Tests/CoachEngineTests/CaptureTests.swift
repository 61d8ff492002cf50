import CanonicalJSON
@testable import CoachEngine
import EngineIO
import Testing


/// Drives a `CapturePipeline` like the engine does: a virtual clock, timers collected from the
/// `.timer` outputs and fired at their due times (ascending due, ties by creation order, ENGINE
/// §1.3 rule 3), and a log of every output stamped with its time.
struct CaptureRig {
  static let wall: Int64 = 1_770_860_000_000
  var p = CapturePipeline()
  var s = SessionSnapshot(sessionId: "S-0001", createdAtMs: wall, lastActiveAtMs: wall, scene: "cafe")
  var now: Millis = 0
  var photoAuth = "authorized"
  var freeMB: Int? = 10_000
  var c41 = false
  var pending: [(id: TimerID, at: Millis, seq: Int)] = []
  var seq = 0
  var log: [(t: Millis, out: CaptureOutput)] = []

  var ctx: CaptureContext {
    CaptureContext(now: now, wallMs: Self.wall + now, photoAuth: photoAuth, freeMB: freeMB, writeFailStringsC41: c41)
  }

  @discardableResult mutating func record(_ outs: [CaptureOutput]) -> [CaptureOutput] {
    for o in outs {
      if case .timer(let r) = o {
        switch r {
        case .schedule(let id, let at):
          pending.removeAll { $0.id == id }
          seq += 1
          pending.append((id, at, seq))
        case .cancel(let id):
          pending.removeAll { $0.id == id }
        }
      }
      log.append((now, o))
    }
    return outs
  }

  /// Fires every timer due ≤ t, then sets the clock to t.
  mutating func advance(to t: Millis) {
    precondition(t >= now)
    while let next = pending.filter({ $0.at <= t }).min(by: { ($0.at, $0.seq) < ($1.at, $1.seq) }) {
      pending.removeAll { $0.id == next.id }
      now = next.at
      record(p.fire(next.id, &s, ctx))
    }
    now = t
  }

  @discardableResult mutating func tap(at t: Millis) -> [CaptureOutput] {
    advance(to: t)
    return record(p.shutterTap(&s, ctx))
  }

  @discardableResult mutating func event(at t: Millis, _ kind: EventKind, _ fields: JSONObject) -> [CaptureOutput] {
    advance(to: t)
    return record(p.handle(GenericEvent(kind: kind, fields: fields), &s, ctx))
  }

  @discardableResult mutating func action(at t: Millis, _ id: String, item: Int? = nil) -> [CaptureOutput] {
    advance(to: t)
    return record(p.action(id, item: item, &s, ctx))
  }

  // Recorded effect results.
  mutating func photoData(at t: Millis, shot: Int = 1, bytes: Int = 2_100_000, ext: String = "heic") {
    event(at: t, .photo_data, ["shot": .number(Double(shot)), "bytes": .number(Double(bytes)), "ext": .string(ext)])
  }
  mutating func writeOK(at t: Millis, shot: Int = 1, attempt: Int = 1, asset: String = "ASSET-1/L0/001") {
    event(
      at: t, .photokit_write_result,
      ["shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": true, "asset_id": .string(asset)])
  }
  mutating func writeError(at t: Millis, shot: Int = 1, attempt: Int, domain: String, code: Int) {
    event(
      at: t, .photokit_write_result,
      [
        "shot": .number(Double(shot)), "attempt": .number(Double(attempt)), "ok": false,
        "error": .object(["domain": .string(domain), "code": .number(Double(code))]),
      ])
  }
  mutating func fetch(at t: Millis, asset: String = "ASSET-1/L0/001", attempt: Int, count: Int) {
    event(
      at: t, .asset_fetch_result,
      ["asset_id": .string(asset), "attempt": .number(Double(attempt)), "count": .number(Double(count))])
  }
  mutating func album(at t: Millis, asset: String = "ASSET-1/L0/001", attempt: Int, ok: Bool, kind: String = "other") {
    var f: JSONObject = ["asset_id": .string(asset), "attempt": .number(Double(attempt)), "ok": .bool(ok)]
    if !ok { f["error"] = .object(["kind": .string(kind), "domain": "PHPhotosErrorDomain", "code": 3300]) }
    event(at: t, .album_add_result, f)
  }
  /// Tap at t, data at t+180, write ok at t+420, fetch count 1 at t+423 (S28 timings).
  mutating func happyCapture(at t: Millis, shot: Int, asset: String) {
    tap(at: t)
    photoData(at: t + 180, shot: shot)
    writeOK(at: t + 420, shot: shot, asset: asset)
    fetch(at: t + 423, asset: asset, attempt: 1, count: 1)
  }

  // Queries over the log.
  func effects(_ kind: String) -> [(t: Millis, fields: JSONObject)] {
    log.compactMap { e in
      if case .effect(let request) = e.out, request.kind.rawValue == kind { return (e.t, request.fieldsWithoutKind) }
      return nil
    }
  }
  func prompts(_ key: String? = nil) -> [(t: Millis, key: String, payload: [String: PromptPayloadValue])] {
    log.compactMap { e in
      if case .prompt(let k, let p) = e.out, key == nil || k == key {
        return (e.t, k, Dictionary(uniqueKeysWithValues: p.map { ($0.key, $0.value) }))
      }
      return nil
    }
  }
  func withdrawals() -> [(t: Millis, key: String)] {
    log.compactMap { e in
      if case .withdraw(let k) = e.out { return (e.t, k) }
      return nil
    }
  }
  func diags(_ event: String) -> [(t: Millis, payload: [(key: String, value: String)])] {
    log.compactMap { e in
      if case .diagnostic(let ev, let p) = e.out, ev == event { return (e.t, p) }
      return nil
    }
  }
  /// "prev→next" of every item_state_changed line.
  func transitions() -> [String] {
    diags("item_state_changed").map { d in
      let m = Dictionary(uniqueKeysWithValues: d.payload.map { ($0.key, $0.value) })
      return "\(m["prev_state"]!)→\(m["next_state"]!)"
    }
  }
  func removals() -> [(t: Millis, shot: Int, reason: String)] {
    log.compactMap { e in
      if case .removed(let item, let r) = e.out { return (e.t, item.shotSeq, r) }
      return nil
    }
  }
  func item(_ shot: Int) -> SessionItem? { s.items.first { $0.shotSeq == shot } }
  func attempts(_ rows: [(t: Millis, fields: JSONObject)]) -> [Int] { rows.map { $0.fields.int("attempt") ?? -1 } }
}

/// The per-item capture pipeline (ENGINE §5.2–§5.11; scenarios of §7).
@Suite("CaptureTests (ENGINE §5)")
struct CaptureTests {
  static let asset = "ASSET-1/L0/001"

  // MARK: SHA-256 (A.13 asset_id_hash, §5.11 / G‑25)

  @Test func sha256KnownVectors_5_11() {
    #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(CapturePipeline.assetHash("abc") == SHA256.hex("abc"))
  }

  // MARK: §5.5 shutter tap

  @Test func shutterTapInsertsAtHeadWithMonotonicShotSeq_5_5() {
    var r = CaptureRig()
    r.s.ordinal = 3
    let out = r.tap(at: 0)
    r.tap(at: 100)
    #expect(r.s.items.map(\.itemId) == ["I-3-2", "I-3-1"])
    #expect(r.s.nextShotSeq == 3)
    #expect(r.item(1)?.createdAtMs == CaptureRig.wall)
    #expect(r.item(1)?.core == .captured_preview && r.item(1)?.thumb == .pending)
    #expect(r.effects("capture_photo").map { $0.fields.int("shot") } == [1, 2])
    #expect(out.contains(.timer(.schedule(TimerID("capture.deadline.I-3-1"), at: 2000))))
    #expect(out.contains(.timer(.schedule(TimerID("capture.thumb_attempt.I-3-1"), at: 300))))
    #expect(out.contains(.timer(.schedule(TimerID("capture.thumb_fail.I-3-1"), at: 5000))))
    #expect(out.contains(.timer(.schedule(TimerID("capture.thumb_permanent.I-3-1"), at: 30_000))))
    #expect(r.prompts(CapturePromptKey.lowSpaceWarn).isEmpty)
    // Every timer the unit asks for is a capture.* timer.
    for e in r.log {
      if case .timer(let t) = e.out, case .schedule(let id, _) = t { #expect(id.name.hasPrefix("capture.")) }
    }
  }

  @Test func lowSpaceWarnBelow500MB_5_15() {
    var r = CaptureRig()
    r.freeMB = 499
    r.tap(at: 0)
    #expect(r.prompts(CapturePromptKey.lowSpaceWarn).map(\.payload) == [["mb": .int(500)]])
    r.freeMB = 500
    r.tap(at: 100)
    #expect(r.prompts(CapturePromptKey.lowSpaceWarn).count == 1)
  }

  // MARK: S28 happy path + §5.7 verification

  @Test func s28HappyPathCaptureAndVerification_5_5_5_7() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    #expect(r.item(1)?.core == .writing)
    #expect(r.item(1)?.pendingFile == "pending/I-1-1.heic")
    #expect(r.item(1)?.writeAttempts == 1)
    #expect(r.effects("photokit_write").map(\.t) == [180])
    #expect(r.attempts(r.effects("photokit_write")) == [1])
    r.writeOK(at: 420)
    #expect(r.item(1)?.core == .write_success)
    #expect(r.item(1)?.assetId == Self.asset)
    #expect(r.effects("fetch_asset").map(\.t) == [420])
    #expect(r.effects("album_add").isEmpty)  // album add only after verification
    r.fetch(at: 423, attempt: 1, count: 1)
    let v = r.diags("photo_write_verification")
    #expect(v.count == 1)
    // The [C] key set of the reference export's records 6–15 (raw asset id, "0" when unused).
    #expect(v.first?.payload.map(\.key) == ["asset_id", "first_fetch_ms", "retry_used", "retry_delay_ms", "verified_within_2s"])
    #expect(v.first?.payload.map(\.value) == [Self.asset, "3", "false", "0", "true"])
    #expect(r.effects("album_add").map(\.t) == [423])
    #expect(r.effects("album_add").first?.fields == ["asset_id": .string(Self.asset), "attempt": 1])
    #expect(r.item(1)?.album == .queued)
    // The log line for the album request comes after the verification line.
    let vi = r.log.firstIndex { if case .diagnostic("photo_write_verification", _) = $0.out { true } else { false } }!
    let ai = r.log.firstIndex { if case .effect(.albumAdd) = $0.out { true } else { false } }!
    #expect(vi < ai)
    #expect(r.transitions() == ["none→captured_preview", "captured_preview→writing", "writing→write_success", "album_none→album_queued"])
    r.advance(to: 10_000)
    #expect(r.s.items.count == 1)
    #expect(r.removals().isEmpty)
    #expect(r.diags("post_write_verification_delayed").isEmpty)
    // item_state_changed: fixed key order, no error fields on success.
    #expect(
      r.diags("item_state_changed")[1].payload.map(\.key)
        == ["item_id", "shot_seq", "prev_state", "next_state", "write_attempts", "album_attempts", "thumb_attempts"])
  }

  // MARK: S29 fetch retry

  @Test func s29FetchRetryAfter500ms_5_7() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.writeOK(at: 420)
    r.fetch(at: 423, attempt: 1, count: 0)
    #expect(r.diags("photo_write_verification").isEmpty)
    r.advance(to: 922)
    #expect(r.effects("fetch_asset").count == 1)
    r.advance(to: 923)
    #expect(r.effects("fetch_asset").map(\.t) == [420, 923])
    #expect(r.attempts(r.effects("fetch_asset")) == [1, 2])
    r.fetch(at: 930, attempt: 2, count: 1)
    let v = r.diags("photo_write_verification")
    #expect(v.map { $0.payload.map(\.value) } == [[Self.asset, "3", "true", "500", "true"]])
    #expect(r.effects("album_add").map(\.t) == [930])
    r.advance(to: 5000)
    #expect(r.diags("post_write_verification_delayed").isEmpty)
    #expect(!r.transitions().contains { $0.hasSuffix("write_failed") })
    #expect(r.item(1)?.core == .write_success)
  }

  @Test func verificationStillEmptyAfter2sIsDelayedNeverDowngraded_5_7() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.writeOK(at: 420)
    r.fetch(at: 423, attempt: 1, count: 0)
    r.fetch(at: 1000, attempt: 2, count: 0)
    #expect(r.diags("photo_write_verification").map { $0.payload.map(\.value) } == [[Self.asset, "3", "true", "500", "false"]])
    r.advance(to: 2419)
    #expect(r.diags("post_write_verification_delayed").isEmpty)
    r.advance(to: 2420)
    let d = r.diags("post_write_verification_delayed")
    #expect(d.map(\.t) == [2420])
    #expect(d.first?.payload.map(\.key) == ["asset_id_hash", "elapsed_ms"])
    #expect(d.first?.payload.map(\.value) == [SHA256.hex(Self.asset), "2000"])
    #expect(r.item(1)?.core == .write_success)
  }

  // MARK: S30 deadline

  @Test func s30NoPhotoDataDeadlineRemovesItem_5_5_5_8() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.advance(to: 1999)
    #expect(r.s.worksetCount == 1)
    r.advance(to: 2000)
    #expect(r.removals().map { "\($0.t) \($0.shot) \($0.reason)" } == ["2000 1 deadline"])
    #expect(r.s.worksetCount == 0)
    #expect(r.prompts().map(\.key) == [CapturePromptKey.captureFailedToast])
    #expect(r.transitions().last == "captured_preview→removed")
    // Never write_failed; the shot number is not reused.
    #expect(!r.transitions().contains { $0.contains("write_failed") })
    r.tap(at: 3000)
    #expect(r.s.items.map(\.shotSeq) == [2])
    // Its pending thumbnail timers (+5 s, +30 s) went with it.
    r.advance(to: 40_000)
    #expect(!r.diags("item_state_changed").contains { d in d.t > 2000 && d.payload[0].value == "I-1-1" })
  }

  @Test func s30SmallPhotoDataOrCaptureErrorLeftToTheDeadline_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 150, bytes: 40_000)
    #expect(r.item(1)?.core == .captured_preview)
    #expect(r.item(1)?.pendingFile == nil)
    #expect(r.effects("photokit_write").isEmpty)
    r.tap(at: 200)
    r.event(at: 300, .photo_capture_error, ["shot": 2, "error": "boom"])
    #expect(r.item(2)?.core == .captured_preview)
    r.advance(to: 2200)
    #expect(r.removals().map(\.reason) == ["deadline", "deadline"])
    #expect(r.prompts(CapturePromptKey.captureFailedToast).count == 2)
  }

  @Test func photoDataAt50000BytesIsEnough_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 100, bytes: 50_000, ext: "jpg")
    #expect(r.item(1)?.core == .writing)
    #expect(r.item(1)?.pendingFile == "pending/I-1-1.jpg")
    r.advance(to: 3000)
    #expect(r.removals().isEmpty)
  }

  // MARK: S31 capture_failed tracker

  @Test func s31CaptureFailedEscalationAnd30sBoundary_5_8() {
    var r = CaptureRig()
    // Deadline failures at 2000, 12,000, 27,000, 42,000 (and 42,001).
    for t in [0, 10_000, 25_000, 40_000, 40_001] as [Millis] { r.tap(at: t) }
    r.advance(to: 42_000)
    let p = r.prompts().filter { $0.key != CapturePromptKey.inFlightSaving }
    #expect(p.map { "\($0.t) \($0.key)" } == [
      "2000 capture_failed_toast", "12000 capture_failed_toast", "27000 camera_abnormal", "42000 camera_abnormal",
    ])
    // 4th: the 12,000 entry is exactly 30 s old and kept; 2000 is pruned → count 3.
    #expect(p[2].payload == ["count": .int(3)])
    #expect(p[3].payload == ["count": .int(3)])
    // One ms later the 12,000 entry is gone: 27,000, 42,000, 42,001 → still 3, not 4.
    r.advance(to: 42_001)
    #expect(r.prompts(CapturePromptKey.cameraAbnormal).map(\.t) == [27_000, 42_000, 42_001])
    #expect(r.prompts(CapturePromptKey.cameraAbnormal).last?.payload == ["count": .int(3)])
  }

  @Test func resetCaptureFailuresStartsANewWindow_5_8() {
    var r = CaptureRig()
    for t in [0, 1000, 2000] as [Millis] { r.tap(at: t) }
    r.advance(to: 4000)
    #expect(r.prompts(CapturePromptKey.cameraAbnormal).count == 1)
    r.p.resetCaptureFailures()
    r.tap(at: 5000)
    r.advance(to: 7000)
    #expect(r.prompts().last?.key == CapturePromptKey.captureFailedToast)
  }

  // MARK: S32 in-flight

  @Test func s32TwoInFlightItemsShowSavingBannerUntilOneFinishes_4_5_5_3() {
    var r = CaptureRig()
    r.tap(at: 0)
    #expect(r.prompts(CapturePromptKey.inFlightSaving).isEmpty)
    r.tap(at: 50)
    #expect(r.s.inFlightCount == 2)
    #expect(r.prompts(CapturePromptKey.inFlightSaving).map(\.t) == [50])
    r.photoData(at: 180, shot: 1)
    r.photoData(at: 230, shot: 2)
    #expect(r.prompts(CapturePromptKey.inFlightSaving).count == 1)  // still 2 in flight: no re-emit
    #expect(r.withdrawals().isEmpty)
    r.writeOK(at: 3000, shot: 1, asset: "A1")
    #expect(r.s.inFlightCount == 1)
    #expect(r.withdrawals().map { "\($0.t) \($0.key)" } == ["3000 in_flight_saving"])
  }

  // MARK: S33 write_failed + block

  @Test func s33NoSpaceWriteFailedBlocksAndRetrySucceeds_5_6() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.writeError(at: 420, attempt: 1, domain: "PHPhotosErrorDomain", code: 3305)
    // not transient → no auto retry
    #expect(r.item(1)?.core == .write_failed)
    #expect(r.item(1)?.writeFailReason == "no_space")
    #expect(r.item(1)?.lastErrorAtMs == CaptureRig.wall + 420)
    #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("手机空间不够")]])
    #expect(r.diags("blocked_by_write_failed").map { $0.payload.map(\.value) } == [["1"]])
    let failed = r.diags("item_state_changed").last!.payload
    #expect(failed.map(\.key) == [
      "item_id", "shot_seq", "prev_state", "next_state", "write_attempts", "album_attempts", "thumb_attempts",
      "error_domain", "error_code", "error_desc", "free_mb", "photo_auth",
    ])
    #expect(Array(failed.map(\.value)[2...8]) == ["writing", "write_failed", "1", "0", "1", "PHPhotosErrorDomain", "3305"])
    #expect(failed.last?.value == "authorized")
    r.advance(to: 5000)
    #expect(r.effects("photokit_write").count == 1)
    #expect(r.s.writeFailedCount == 1)

    r.action(at: 6000, "retry_write")
    #expect(r.item(1)?.core == .writing)
    #expect(r.item(1)?.writeAttempts == 2)
    #expect(r.withdrawals().map(\.key) == [CapturePromptKey.writeFailed])
    #expect(r.attempts(r.effects("photokit_write")) == [1, 2])
    r.writeOK(at: 6300, attempt: 2)
    #expect(r.item(1)?.core == .write_success)
    #expect(r.s.writeFailedCount == 0)
    #expect(r.diags("blocked_by_write_failed").count == 1)

    // A new entry into the blocked state logs again (once per entry).
    r.tap(at: 7000)
    r.photoData(at: 7100, shot: 2)
    r.writeError(at: 7200, shot: 2, attempt: 1, domain: "NSPOSIXErrorDomain", code: 28)
    #expect(r.item(2)?.writeFailReason == "no_space")
    #expect(r.diags("blocked_by_write_failed").count == 2)
  }

  @Test func s33C41ReasonStrings_4_8() {
    var r = CaptureRig()
    r.c41 = true
    r.tap(at: 0)
    r.photoData(at: 180)
    r.writeError(at: 420, attempt: 1, domain: "PHPhotosErrorDomain", code: 3305)
    #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("空间不足")]])
  }

  @Test func retryWriteCooldownAndNewestFailedTarget_5_5() {
    var r = CaptureRig()
    r.photoAuth = "denied"
    r.tap(at: 0)
    r.photoData(at: 100, shot: 1)
    r.tap(at: 200)
    r.photoData(at: 300, shot: 2)
    #expect(r.s.writeFailedCount == 2)
    // Without an item: the newest write_failed (shot 2). Still denied → fails fast again.
    r.action(at: 1000, "retry_write")
    #expect(r.item(2)?.writeAttempts == 2)
    #expect(r.item(1)?.writeAttempts == 1)
    #expect(r.item(2)?.core == .write_failed)
    // Within 2000 ms of the accepted tap: ignored, attempt count unchanged (ASSERT‑C‑OBS‑002).
    #expect(r.action(at: 2999, "retry_write").isEmpty)
    #expect(r.item(2)?.writeAttempts == 2)
    r.photoAuth = "authorized"
    r.action(at: 3000, "retry_write")
    #expect(r.item(2)?.core == .writing)
    #expect(r.effects("photokit_write").map { "\($0.fields.int("shot")!)#\($0.fields.int("attempt")!)" } == ["2#3"])
    // Explicit item.
    r.action(at: 3001, "retry_write", item: 1)
    #expect(r.item(1)?.core == .writing)
  }

  @Test func prewriteAuthDeniedFailsFastWithoutPhotoKit_5_5() {
    for auth in ["denied", "restricted", "not_determined"] {
      var r = CaptureRig()
      r.photoAuth = auth
      r.tap(at: 0)
      r.photoData(at: 180)
      #expect(r.item(1)?.core == .write_failed)
      #expect(r.item(1)?.writeFailReason == "no_permission")
      #expect(r.effects("photokit_write").isEmpty)
      #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("没拿到相册权限")]])
      #expect(r.transitions().suffix(2) == ["captured_preview→writing", "writing→write_failed"])
    }
  }

  @Test func abandonItemRemovesTheFailedItem_5_5() {
    var r = CaptureRig()
    r.photoAuth = "denied"
    r.tap(at: 0)
    r.photoData(at: 100)
    r.action(at: 500, "abandon_item")
    #expect(r.s.items.isEmpty)
    #expect(r.removals().map(\.reason) == ["abandon"])
    #expect(r.withdrawals().map(\.key) == [CapturePromptKey.writeFailed])
    // Not write_failed → abandon does nothing.
    r.tap(at: 1000)
    #expect(r.action(at: 1100, "abandon_item", item: 2).isEmpty)
    #expect(r.s.items.count == 1)
  }

  @Test func retryWriteWithPendingMissingRemovesItem_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 100)
    r.writeError(at: 200, attempt: 1, domain: "PHPhotosErrorDomain", code: 3305)
    r.event(at: 300, .pending_write_failed, ["shot": 1])
    #expect(r.item(1)?.pendingFile == nil)
    r.action(at: 400, "retry_write")
    #expect(r.s.items.isEmpty)
    #expect(r.removals().map(\.reason) == ["pending_missing"])
    let d = r.diags("item_state_changed").last!.payload
    #expect(d.first { $0.key == "error_domain" }?.value == "JustPhoto")
    #expect(d.first { $0.key == "error_code" }?.value == "1002")
    #expect(d.first { $0.key == "error_desc" }?.value == "pending_missing")
  }

  @Test func pendingWriteFailedBeforeOrWithPhotoDataLeavesItToTheDeadline_1_6() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.event(at: 100, .pending_write_failed, ["shot": 1])
    r.photoData(at: 100)
    #expect(r.item(1)?.core == .captured_preview)
    r.tap(at: 150)
    r.photoData(at: 200, shot: 2)
    r.event(at: 200, .pending_write_failed, ["shot": 2])
    #expect(r.item(2)?.core == .captured_preview)
    #expect(r.item(2)?.pendingFile == nil)
    r.advance(to: 2150)
    #expect(r.removals().map { "\($0.t) \($0.shot)" } == ["2000 1", "2150 2"])
    // The undone attempt's timeout never fires.
    r.advance(to: 20_000)
    #expect(r.diags("blocked_by_write_failed").isEmpty)
  }

  @Test func writeTimeout12sBecomesPhotoLibUnavailable_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.advance(to: 12_179)
    #expect(r.item(1)?.core == .writing)
    r.advance(to: 12_180)
    #expect(r.item(1)?.core == .write_failed)
    #expect(r.item(1)?.writeFailReason == "photo_lib_unavailable")
    let d = Dictionary(uniqueKeysWithValues: r.diags("item_state_changed").last!.payload.map { ($0.key, $0.value) })
    #expect(d["error_domain"] == "JustPhoto" && d["error_code"] == "1001" && d["error_desc"] == "write_timeout")
    #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("系统相册暂时不可用")]])
    // A late result is ignored.
    r.writeOK(at: 13_000)
    #expect(r.item(1)?.core == .write_failed)
  }

  // MARK: S34 transient auto-retry

  @Test func s34TransientErrorAutoRetriesThenSucceeds_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.writeError(at: 400, attempt: 1, domain: "PHPhotosErrorDomain", code: 3302)
    #expect(r.item(1)?.core == .writing)
    r.advance(to: 699)
    #expect(r.effects("photokit_write").count == 1)
    r.advance(to: 700)
    #expect(r.effects("photokit_write").map(\.t) == [180, 700])
    #expect(r.attempts(r.effects("photokit_write")) == [1, 2])
    r.writeOK(at: 900, attempt: 2)
    #expect(r.item(1)?.core == .write_success)
    #expect(r.item(1)?.writeAttempts == 2)
    #expect(!r.transitions().contains { $0.contains("write_failed") })
    #expect(r.prompts(CapturePromptKey.writeFailed).isEmpty)
  }

  @Test func s34ThirdTransientFailureBecomesWriteFailed_5_5() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 100)
    r.writeError(at: 200, attempt: 1, domain: "PHPhotosErrorDomain", code: 3302)
    r.advance(to: 500)
    r.writeError(at: 600, attempt: 2, domain: "PHPhotosErrorDomain", code: 3114)
    r.advance(to: 1600)
    #expect(r.effects("photokit_write").map(\.t) == [100, 500, 1600])
    r.writeError(at: 1700, attempt: 3, domain: "PHPhotosErrorDomain", code: 3302)
    #expect(r.item(1)?.core == .write_failed)
    #expect(r.item(1)?.writeFailReason == "system_pressure")
    #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("系统太忙")]])
    r.advance(to: 10_000)
    #expect(r.effects("photokit_write").count == 3)
  }

  @Test func writeFailReasonMappingFirstMatchWins_5_6() {
    typealias P = CapturePipeline
    #expect(P.mapWriteFailReason(photoAuth: "denied", freeMB: 10, domain: "PHPhotosErrorDomain", code: 3305) == .no_permission)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: 10_000, domain: "PHPhotosErrorDomain", code: 3311) == .no_permission)
    #expect(P.mapWriteFailReason(photoAuth: "limited", freeMB: 199, domain: "PHPhotosErrorDomain", code: 3302) == .no_space)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: 200, domain: "PHPhotosErrorDomain", code: 3302) == .system_pressure)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: "NSCocoaErrorDomain", code: 640) == .no_space)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: "NSPOSIXErrorDomain", code: 28) == .no_space)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: "PHPhotosErrorDomain", code: 3305) == .no_space)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: "PHPhotosErrorDomain", code: 3114) == .photo_lib_unavailable)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: "JustPhoto", code: 1001) == .photo_lib_unavailable)
    #expect(P.mapWriteFailReason(photoAuth: "authorized", freeMB: nil, domain: nil, code: nil) == .system_pressure)
  }

  // MARK: S36 album retries

  @Test func s36AlbumRetriesAt1s4s14sBannerOnce_5_9() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    #expect(r.effects("album_add").map(\.t) == [423])
    r.album(at: 500, attempt: 1, ok: false)  // first failure at t = 500
    #expect(r.item(1)?.album == .failed)
    #expect(r.item(1)?.albumRetryNextAtMs == CaptureRig.wall + 1500)
    #expect(r.prompts(CapturePromptKey.albumAddFailed).map(\.payload) == [["album_add_failed_count": .int(1)]])
    r.advance(to: 1500)
    r.album(at: 1500, attempt: 2, ok: false)
    r.advance(to: 4500)
    r.album(at: 4500, attempt: 3, ok: false)
    r.advance(to: 14_500)
    r.album(at: 14_500, attempt: 4, ok: false)
    r.advance(to: 100_000)
    // Retries at first failure + 1 s, + 4 s, + 14 s; then no more.
    #expect(r.effects("album_add").map(\.t) == [423, 1500, 4500, 14_500])
    #expect(r.attempts(r.effects("album_add")) == [1, 2, 3, 4])
    #expect(r.item(1)?.albumRetryCount == 3)
    #expect(r.item(1)?.albumAttempts == 4)
    #expect(r.item(1)?.albumRetryNextAtMs == nil)
    #expect(r.item(1)?.album == .failed)
    #expect(r.prompts(CapturePromptKey.albumAddFailed).count == 1)
    // Album failures never touch the write/in-flight counters (the shutter is not blocked).
    #expect(r.s.writeFailedCount == 0 && r.s.inFlightCount == 0)
    #expect(r.diags("blocked_by_write_failed").isEmpty)
  }

  @Test func albumRetrySuccessStopsRetries_5_9() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.album(at: 500, attempt: 1, ok: false)
    r.advance(to: 1500)
    r.album(at: 1600, attempt: 2, ok: true)
    r.advance(to: 60_000)
    #expect(r.item(1)?.album == .success)
    #expect(r.effects("album_add").count == 2)
    #expect(r.withdrawals().map(\.key).contains(CapturePromptKey.albumAddFailed))
  }

  @Test func laterSuppressesAlbumBanners_5_9() {
    var r = CaptureRig()
    r.action(at: 0, "later")
    #expect(r.s.flags == [CapturePipeline.albumLaterFlag])
    r.happyCapture(at: 10, shot: 1, asset: Self.asset)
    r.album(at: 500, attempt: 1, ok: false)
    #expect(r.prompts(CapturePromptKey.albumAddFailed).isEmpty)
    #expect(r.effects("album_add").count == 1)
    r.advance(to: 1500)
    #expect(r.effects("album_add").count == 2)  // auto retries continue
  }

  @Test func manualAlbumRepairBatch_5_9() {
    var r = CaptureRig()
    r.action(at: 0, "retry_album_add")
    #expect(r.prompts().map(\.key) == [CapturePromptKey.albumRetryEmpty])
    r.happyCapture(at: 100, shot: 1, asset: "A1")
    r.happyCapture(at: 1000, shot: 2, asset: "A2")
    r.album(at: 1500, asset: "A1", attempt: 1, ok: false)
    r.album(at: 1500, asset: "A2", attempt: 1, ok: false)
    r.action(at: 1600, "retry_album_add")
    // One attempt each, scheduled auto retries cancelled, retry counts untouched.
    #expect(r.effects("album_add").filter { $0.t == 1600 }.map { $0.fields["asset_id"]!.stringValue! } == ["A2", "A1"])
    #expect(r.item(1)?.albumRetryCount == 0 && r.item(1)?.albumAttempts == 2)
    r.album(at: 1700, asset: "A1", attempt: 2, ok: true)
    #expect(r.prompts(CapturePromptKey.albumRetryResult).isEmpty)
    r.album(at: 1800, asset: "A2", attempt: 2, ok: false)
    #expect(
      r.prompts(CapturePromptKey.albumRetryResult).map(\.payload)
        == [["total": .int(2), "ok": .int(1), "failed": .int(1), "skipped": .int(0)]])
    r.advance(to: 60_000)
    #expect(r.effects("album_add").count == 4)  // no auto retry after a manual failure
  }

  // MARK: S37 thumbnails

  @Test func s37ThumbFailedAt5sSelfHealsAt7s_5_10() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.advance(to: 4999)
    #expect(r.effects("generate_thumb").map(\.t) == [300, 600, 1600])
    #expect(r.attempts(r.effects("generate_thumb")) == [1, 2, 3])
    #expect(r.item(1)?.thumb == .pending)
    r.advance(to: 5000)
    #expect(r.item(1)?.thumb == .failed)
    r.event(at: 6000, .viewer_open, ["item": 1])
    #expect(r.prompts(CapturePromptKey.thumbFailed).map(\.t) == [6000])
    r.event(at: 7000, .thumb_result, ["shot": 1, "ok": true])
    #expect(r.item(1)?.thumb == .ready)
    #expect(r.withdrawals().map { "\($0.t) \($0.key)" } == ["7000 thumb_failed"])
    r.advance(to: 40_000)
    #expect(r.item(1)?.thumb == .ready)  // no permanent after healing
    r.event(at: 40_001, .viewer_open, ["item": 1])
    #expect(r.prompts(CapturePromptKey.thumbFailed).count == 1)
  }

  @Test func s37EarlyThumbStopsAttempts_5_10() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)
    r.event(at: 350, .thumb_result, ["shot": 1, "ok": true])
    r.advance(to: 40_000)
    #expect(r.effects("generate_thumb").map(\.t) == [300])
    #expect(r.item(1)?.thumb == .ready)
  }

  @Test func s37PermanentAt30sAndRebuildCooldown_5_10() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.advance(to: 29_999)
    #expect(r.item(1)?.thumb == .failed)
    r.advance(to: 30_000)
    #expect(r.item(1)?.thumb == .failed_permanent)
    r.event(at: 31_000, .rebuild_thumb_tap, ["item": 1])
    r.event(at: 32_999, .rebuild_thumb_tap, ["item": 1])  // < 2 s → ignored
    r.event(at: 33_000, .rebuild_thumb_tap, ["item": 1])
    #expect(r.effects("generate_thumb").map(\.t) == [300, 600, 1600, 31_000, 33_000])
    #expect(r.attempts(r.effects("generate_thumb")) == [1, 2, 3, 4, 5])
    #expect(r.item(1)?.thumbAttempts == 5)
    r.event(at: 34_000, .thumb_result, ["shot": 1, "ok": true])
    #expect(r.item(1)?.thumb == .ready)
    #expect(r.transitions().filter { $0.hasPrefix("thumb_") } == [
      "thumb_pending→thumb_failed", "thumb_failed→thumb_failed_permanent", "thumb_failed_permanent→thumb_ready",
    ])
  }

  @Test func thumbNotMarkedFailedForWriteFailedItems_5_10() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 100)
    r.writeError(at: 200, attempt: 1, domain: "PHPhotosErrorDomain", code: 3305)
    r.event(at: 1000, .thumb_result, ["shot": 1, "ok": true])
    r.advance(to: 40_000)
    #expect(r.item(1)?.thumb == .pending)
    // Once saved, the thumb generated meanwhile is used.
    r.action(at: 40_000, "retry_write")
    r.writeOK(at: 40_100, attempt: 2)
    #expect(r.item(1)?.thumb == .ready)
  }

  // MARK: S38 phantom

  @Test func s38PhantomAssetUnderLimitedIsPruned_5_11() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.photoAuth = "limited"
    r.album(at: 500, attempt: 1, ok: false, kind: "asset_not_found")
    #expect(r.s.items.isEmpty)
    #expect(r.removals().map(\.reason) == ["phantom"])
    let d = r.diags("phantom_asset_detected")
    #expect(d.first?.payload.map(\.key) == ["asset_id_hash", "auth_snapshot", "heal_action"])
    #expect(d.first?.payload.map(\.value) == [SHA256.hex(Self.asset), "limited", "pruned"])
    #expect(r.prompts(CapturePromptKey.albumAddFailed).isEmpty)
    r.advance(to: 60_000)
    #expect(r.effects("album_add").count == 1)
  }

  @Test func s38AssetNotFoundWithoutReadAccessIsNotLogged_5_11() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.photoAuth = "denied"
    r.album(at: 500, attempt: 1, ok: false, kind: "asset_not_found")
    #expect(r.s.items.count == 1)
    #expect(r.item(1)?.album == .failed)
    #expect(r.diags("phantom_asset_detected").isEmpty)
  }

  // MARK: §5.4 clear_unliked

  @Test func clearUnlikedKeepsLikedAndInFlightAndFailed_5_4() {
    var r = CaptureRig()
    r.action(at: 0, "clear_unliked")
    #expect(r.prompts().map(\.key) == [CapturePromptKey.nothingToClear])
    r.happyCapture(at: 100, shot: 1, asset: "A1")  // unliked, saved → cleared
    r.happyCapture(at: 1000, shot: 2, asset: "A2")  // liked → kept
    r.event(at: 1500, .like_toggle, ["item": 2, "liked": true])
    #expect(r.effects("favorite_sync").map { $0.fields.int("item") } == [2])
    r.photoAuth = "denied"
    r.tap(at: 2000)
    r.photoData(at: 2100, shot: 3)  // write_failed → kept
    r.photoAuth = "authorized"
    r.tap(at: 2200)  // captured_preview → kept
    r.tap(at: 2300)
    r.photoData(at: 2400, shot: 5)  // writing → kept
    r.action(at: 2500, "clear_unliked")
    #expect(r.s.items.map(\.shotSeq) == [5, 4, 3, 2])
    #expect(r.removals().map { "\($0.shot) \($0.reason)" } == ["1 clear_unliked"])
    #expect(r.prompts(CapturePromptKey.clearUnlikedDone).map(\.payload) == [["deleted": .int(1)]])
  }

  // MARK: §5.1 recovery

  @Test func recoveryWritingWithPendingBecomesWriteFailed_5_1() {
    var r = CaptureRig()
    r.tap(at: 0)
    r.photoData(at: 180)  // writing, pending file written
    r.tap(at: 500)  // captured_preview, no pending
    // Kill at 600; relaunch at 60,000 with a fresh pipeline and the persisted snapshot.
    var fresh = CaptureRig()
    fresh.s = r.s
    fresh.advance(to: 60_000)
    let (outs, removed) = fresh.p.relaunch(&fresh.s, fresh.ctx)
    fresh.record(outs)
    #expect(removed == 1)
    #expect(fresh.removals().map { "\($0.shot) \($0.reason)" } == ["2 recovery"])
    #expect(fresh.s.items.map(\.shotSeq) == [1])
    #expect(fresh.item(1)?.core == .write_failed)
    #expect(fresh.item(1)?.writeFailReason == "photo_lib_unavailable")
    #expect(fresh.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("系统相册暂时不可用")]])
    #expect(fresh.diags("blocked_by_write_failed").map { $0.payload.map(\.value) } == [["1"]])
    #expect(fresh.effects("photokit_write").isEmpty)
    // Retry works after the relaunch.
    fresh.action(at: 61_000, "retry_write")
    #expect(fresh.effects("photokit_write").map { $0.fields.int("attempt") } == [2])
  }

  @Test func recoveryRemovesItemsWithoutPendingFiles_5_1() {
    var s = SessionSnapshot(sessionId: "S-0001", createdAtMs: CaptureRig.wall, lastActiveAtMs: CaptureRig.wall, scene: "cafe")
    let w = CaptureRig.wall
    s.items = [
      SessionItem(itemId: "I-1-5", shotSeq: 5, createdAtMs: w, core: .captured_preview),
      SessionItem(itemId: "I-1-4", shotSeq: 4, createdAtMs: w, core: .writing),
      SessionItem(
        itemId: "I-1-3", shotSeq: 3, createdAtMs: w, core: .write_failed, pendingFile: "pending/I-1-3.heic",
        writeFailReason: "no_space", writeAttempts: 1),
      SessionItem(itemId: "I-1-2", shotSeq: 2, createdAtMs: w, core: .write_failed, writeFailReason: "no_space"),
      SessionItem(itemId: "I-1-1", shotSeq: 1, createdAtMs: w, core: .write_success, thumb: .ready, album: .success, assetId: "A1"),
    ]
    s.nextShotSeq = 6
    var r = CaptureRig()
    r.s = s
    r.advance(to: 100_000)
    let (outs, removed) = r.p.relaunch(&r.s, r.ctx)
    r.record(outs)
    #expect(removed == 3)
    #expect(r.s.items.map(\.shotSeq) == [3, 1])
    #expect(r.removals().map(\.reason) == ["recovery", "recovery", "recovery"])
    #expect(r.item(3)?.core == .write_failed)
    #expect(r.s.nextShotSeq == 6)
    #expect(r.effects("album_add").isEmpty)
  }

  @Test func recoveryRearmsAlbumRetries_5_1_5_9() {
    let w = CaptureRig.wall
    var r = CaptureRig()
    r.s.items = [
      // Auto retry due 5 s after the relaunch instant.
      SessionItem(
        itemId: "I-1-2", shotSeq: 2, createdAtMs: w, core: .write_success, thumb: .ready, album: .failed, assetId: "A2",
        albumAttempts: 2, albumRetryCount: 1, albumRetryNextAtMs: w + 105_000),
      // Exhausted: one launch retry (G‑28), count not bumped.
      SessionItem(
        itemId: "I-1-1", shotSeq: 1, createdAtMs: w, core: .write_success, thumb: .ready, album: .failed, assetId: "A1",
        albumAttempts: 4, albumRetryCount: 3),
    ]
    r.advance(to: 100_000)
    let (outs, removed) = r.p.relaunch(&r.s, r.ctx)
    r.record(outs)
    #expect(removed == 0)
    #expect(r.effects("album_add").map { "\($0.t) \($0.fields["asset_id"]!.stringValue!)#\($0.fields.int("attempt")!)" } == ["100000 A1#5"])
    #expect(r.item(1)?.albumRetryCount == 3)
    r.advance(to: 105_000)
    #expect(r.effects("album_add").map { "\($0.t) \($0.fields["asset_id"]!.stringValue!)#\($0.fields.int("attempt")!)" } == [
      "100000 A1#5", "105000 A2#3",
    ])
    #expect(r.item(2)?.albumRetryCount == 2)
    // The launch retry fails: banner (first failure of this process), no further auto retry.
    r.album(at: 106_000, asset: "A1", attempt: 5, ok: false)
    #expect(r.prompts(CapturePromptKey.albumAddFailed).count == 1)
    r.advance(to: 200_000)
    #expect(r.effects("album_add").filter { $0.fields["asset_id"]!.stringValue! == "A1" }.count == 1)
  }

  @Test func recoveryRetriesFailedThumbOnce_5_1() {
    let w = CaptureRig.wall
    var r = CaptureRig()
    r.s.items = [
      SessionItem(
        itemId: "I-1-1", shotSeq: 1, createdAtMs: w, core: .write_success, thumb: .failed, album: .success,
        assetId: "A1", thumbAttempts: 3)
    ]
    r.advance(to: 10_000)
    let (outs, _) = r.p.relaunch(&r.s, r.ctx)
    r.record(outs)
    #expect(r.effects("generate_thumb").map { "\($0.t)#\($0.fields.int("attempt")!)" } == ["10000#4"])
    r.advance(to: 30_000)
    #expect(r.item(1)?.thumb == .failed_permanent)  // 30 s from createdAt
  }

  // MARK: favourites

  @Test func favoriteSyncFailureOnlyUnderFullAccess_5_15() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: "A1")
    r.event(at: 1000, .like_toggle, ["item": 1, "liked": true])
    #expect(r.item(1)?.liked == true)
    r.event(at: 1001, .like_toggle, ["item": 1, "liked": true])  // unchanged → nothing
    #expect(r.effects("favorite_sync").count == 1)
    r.photoAuth = "limited"
    r.event(at: 1100, .favorite_sync_result, ["item": 1, "result": "failed"])
    #expect(r.prompts(CapturePromptKey.favoriteSyncFailed).isEmpty)
    r.photoAuth = "authorized"
    r.event(at: 1200, .favorite_sync_result, ["item": 1, "result": "failed"])
    #expect(r.prompts(CapturePromptKey.favoriteSyncFailed).count == 1)
  }
}
