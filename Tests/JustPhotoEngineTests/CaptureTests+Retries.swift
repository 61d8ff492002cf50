import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Testing

/// Auto-retry, album retries, thumbnails, phantoms, clear_unliked, recovery, favourites.
extension CaptureTests {
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

  /// With results that take 250 ms, "+1 s, +4 s, +14 s after the first failure" (true only at
  /// zero latency) and §5.9's rule (each backoff from the previous failure) part: failure 673 →
  /// retry 1673, failure 1923 → 4923 (+3 s), failure 5173 → 15173 (+10 s); not 4673 / 14673.
  @Test func albumRetryBackoffRunsFromEachFailure_5_9() {
    var r = CaptureRig()
    r.happyCapture(at: 0, shot: 1, asset: Self.asset)
    r.album(at: 673, attempt: 1, ok: false)  // first failure 250 ms after the request at 423
    r.advance(to: 1922)
    r.album(at: 1923, attempt: 2, ok: false)
    r.advance(to: 5172)
    r.album(at: 5173, attempt: 3, ok: false)
    r.advance(to: 15_422)
    r.album(at: 15_423, attempt: 4, ok: false)
    r.advance(to: 100_000)
    #expect(r.effects("album_add").map(\.t) == [423, 1673, 4923, 15_173])
    #expect(r.attempts(r.effects("album_add")) == [1, 2, 3, 4])
    #expect(r.item(1)?.albumRetryCount == 3)
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
      // Exhausted: one launch retry (G-28), count not bumped.
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
