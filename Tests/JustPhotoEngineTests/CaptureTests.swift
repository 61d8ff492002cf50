import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Testing

/// The per-item capture pipeline (ENGINE §5.2–§5.11; scenarios of §7).
@Suite("CaptureTests (ENGINE §5)")
struct CaptureTests {
  static let asset = "ASSET-1/L0/001"

  // MARK: SHA-256 (A.13 asset_id_hash, §5.11 / G-25)

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
    // §6.2 [D] / G-25: the SHA-256 of the asset id (never the raw id) and "" for an unused delay.
    #expect(v.first?.payload.map(\.key) == ["asset_id_hash", "first_fetch_ms", "retry_used", "retry_delay_ms", "verified_within_2s"])
    #expect(v.first?.payload.map(\.value) == [SHA256.hex(Self.asset), "3", "false", "", "true"])
    #expect(!r.diags("photo_write_verification").contains { $0.payload.contains { $0.value.contains(Self.asset) } })
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
    #expect(v.map { $0.payload.map(\.value) } == [[SHA256.hex(Self.asset), "3", "true", "500", "true"]])
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
    #expect(r.diags("photo_write_verification").map { $0.payload.map(\.value) } == [[SHA256.hex(Self.asset), "3", "true", "500", "false"]])
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

  @Test("§5.1/§6.4: an album failure's snapshot names its stage and the recorded underlying error")
  func albumFailureSnapshot_5_1() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.event(
      at: 1000, .album_add_result,
      [
        "asset_id": .string(Self.asset), "attempt": 1, "ok": false,
        "error": .object([
          "kind": "other", "domain": "PHPhotosErrorDomain", "code": 3300,
          "underlying": .object(["domain": "NSCocoaErrorDomain", "code": 4]),
        ]),
      ])
    let d = Dictionary(uniqueKeysWithValues: r.diags("item_state_changed").last!.payload.map { ($0.key, $0.value) })
    #expect(d["next_state"] == "album_failed")
    #expect(d["stage"] == "album" && d["error_domain"] == "PHPhotosErrorDomain" && d["error_code"] == "3300")
    #expect(d["underlying_domain"] == "NSCocoaErrorDomain" && d["underlying_code"] == "4")
    #expect(d["photo_auth_at_error"] == "authorized" && d["ts_ms"] == String(CaptureRig.wall + 1000))
    #expect(d["photo_auth"] == nil)
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
      // §5.1 SaveErrorSnapshot: stage, errorDomain, errorCode, errorDesc, underlying domain/code,
      // freeMB, photoAuthAtError, tsMs.
      "stage", "error_domain", "error_code", "error_desc", "underlying_domain", "underlying_code", "free_mb",
      "photo_auth_at_error", "ts_ms",
    ])
    #expect(Array(failed.map(\.value)[2...9]) == ["writing", "write_failed", "1", "0", "1", "write", "PHPhotosErrorDomain", "3305"])
    #expect(Array(failed.map(\.value)[11...]) == ["", "", "10000", "authorized", String(CaptureRig.wall + 420)])
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
    #expect(d["stage"] == "write" && d["ts_ms"] == String(CaptureRig.wall + 12_180))
    #expect(r.prompts(CapturePromptKey.writeFailed).map(\.payload) == [["reason": .string("系统相册暂时不可用")]])
    // A late result is ignored.
    r.writeOK(at: 13_000)
    #expect(r.item(1)?.core == .write_failed)
  }
}
