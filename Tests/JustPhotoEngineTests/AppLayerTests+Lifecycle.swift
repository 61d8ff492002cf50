import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import JustPhotoIO
import Replay
import Testing

/// Kill and relaunch, ODR, A.13 rotation, the write_failed Viewer bar, system dialogs.
extension AppLayerTests {
  // MARK: Kill and relaunch

  /// Shot 1 captured and written to its pending file (state writing) by t = 280.
  static func writingRig() -> AppRig {
    var r = R()
    r.tap(at: 100)
    r.photoData(at: 280, shot: 1)
    return r
  }

  @Test("§5.1 recovery after a kill: a writing item comes back write_failed(photo_lib_unavailable) and blocks the shutter")
  func killAndRelaunch() throws {
    var r = Self.writingRig()
    #expect(r.e.app.session.items.first?.core == .writing)
    let snapshot = try #require(r.lastPersist)
    #expect(snapshot.session?.items.first?.core == .writing)
    #expect(snapshot.session?.items.first?.pendingFile == "pending/I-1-1.heic")
    r.send(.app_lifecycle, at: 500, ["state": "terminated"])
    #expect(r.records("session").last.map { "\($0.t) \(R.str($0, "op"))" } == "500 killed")
    // Dead until app_launch: inputs and timers (the 2 s deadline, thumbnails) produce nothing.
    let ignoredTap = r.send(.shutter_tap, at: 600)
    let ignoredResult = r.send(.photokit_write_result, at: 700, ["shot": 1, "attempt": 1, "ok": true, "asset_id": "A"])
    #expect(ignoredTap.isEmpty && ignoredResult.isEmpty)
    r.advance(to: 9999)
    #expect(r.out.filter { $0.t > 500 }.isEmpty)
    #expect(r.diags.filter { $0.tsMs > R.wall + 500 }.isEmpty)

    // The typed relaunch entry (what the replayer does with its session store).
    r.relaunch(at: 10_000, restoring: snapshot)
    let item = r.records("item").last
    #expect(item.map { "\($0.t) \(R.str($0, "shot")) \(R.str($0, "core")) \(R.str($0, "reason"))" } == "10000 1 write_failed photo_lib_unavailable")
    #expect(r.e.app.session.items.first?.core == .write_failed)
    #expect(r.e.app.session.items.first?.writeFailReason == "photo_lib_unavailable")
    r.send(.camera_ready, at: 10_500)
    #expect(r.shutterReason == "blocked_by_write_failed")
    #expect(r.promptLines().contains("10000 shown write_failed_block"))
    // The relaunched engine asks for no timer in the past (§1.3 rule 2).
    r.advance(to: 12_000)
    #expect(r.pastSchedules.map { "\($0.at)→\($0.due) \($0.id)" } == [])
  }

  @Test("§5.1: the same capture without a kill stays writing; the shutter is not blocked")
  func noKillNoRecovery() {
    var r = Self.writingRig()
    r.send(.camera_ready, at: 10_000)
    r.advance(to: 10_500)
    #expect(r.e.app.session.items.first?.core == .writing)
    #expect(!r.shutterLines.contains { $0.hasSuffix("blocked_by_write_failed") })
    #expect(r.shutterReason == nil)
    #expect(!r.records("item").contains { $0.fields["core"] == "write_failed" })
  }

  @Test("§4.3/§5.1: app_launch {store} after a kill restores the installOnce flags (UserDefaults)")
  func relaunchRestoresInstallFlags() throws {
    var r = R()
    r.send(.app_lifecycle, at: 100, ["state": "background"])
    let snapshot = try #require(r.lastPersist)
    #expect(snapshot.installFlags.isEmpty)
    r.send(.app_lifecycle, at: 200, ["state": "terminated"])
    let store = StoreSnapshot(session: snapshot.session, installFlags: ["ref_first_save_notice"])
    r.send(.app_launch, at: 1000, ["store": store.json])
    #expect(r.e.app.prompts.installFlags == ["ref_first_save_notice"])
    // The installOnce gate holds: the notice is dropped (a fresh install shows it).
    let fx = r.e.emitPrompt(.ref_first_save_notice, at: 1100)
    #expect(fx.records(at: 1100).map { "\(R.str($0, "op")) \(R.str($0, "drop_reason"))" } == ["dropped gate"])
    var fresh = R()
    let shown = fresh.e.emitPrompt(.ref_first_save_notice, at: 0)
    #expect(shown.records(at: 0).map { R.str($0, "op") } == ["shown"])
    // …and the next flush writes them back.
    r.send(.app_lifecycle, at: 2000, ["state": "background"])
    #expect(r.lastPersist?.installFlags == ["ref_first_save_notice"])
  }

  // MARK: §5.14 ODR

  /// Sheet open, the download fails offline at 300 → failed_retry.
  static func odrFailedRig() -> AppRig {
    var r = R()
    r.send(.inspiration_open, at: 100)
    r.send(.network, at: 200, ["status": "unsatisfied"])
    r.send(.odr_result, at: 300, ["tag": "inspiration", "attempt": 1, "ok": false, "error": "offline"])
    return r
  }

  @Test("§5.14 / S42: network recovery in failed_retry → exactly one retry at +500; odr_auto_retry result=success")
  func odrAutoRetry() {
    var r = Self.odrFailedRig()
    #expect(r.effects("odr_request").map { "\($0.t) \(R.str($0, "attempt"))" } == ["100 1"])
    #expect(r.records("odr").map { "\($0.t) \(R.str($0, "state"))" } == ["100 downloading", "300 failed_retry"])
    r.send(.network, at: 1000, ["status": "satisfied"])
    // A flap inside the debounce does not add a second retry.
    r.send(.network, at: 1100, ["status": "unsatisfied"])
    r.send(.network, at: 1200, ["status": "satisfied"])
    r.advance(to: 1499)
    #expect(r.effects("odr_request").count == 1)
    r.advance(to: 1500)
    #expect(r.effects("odr_request").map { "\($0.t) \(R.str($0, "attempt"))" } == ["100 1", "1500 2"])
    r.send(.odr_result, at: 1700, ["tag": "inspiration", "attempt": 2, "ok": true])
    let line = r.a13("odr_auto_retry")
    #expect(line.map(\.tsMs) == [R.wall + 1700])
    #expect(line.first?.payload.map { "\($0.key)=\($0.value)" } == ["state_before=failed_retry", "debounce_ms=500", "result=success"])
    // A second flap after success: nothing.
    r.send(.network, at: 2000, ["status": "unsatisfied"])
    r.send(.network, at: 2100, ["status": "satisfied"])
    r.advance(to: 10_000)
    #expect(r.effects("odr_request").count == 2)
    #expect(r.a13("odr_auto_retry").count == 1)
  }

  @Test("§5.14 [D]: closing the sheet during the debounce logs result=skipped_left_page and sends no request")
  func odrSkippedLeftPage() {
    var r = Self.odrFailedRig()
    r.send(.network, at: 1000, ["status": "satisfied"])
    r.send(.inspiration_close, at: 1200)
    r.advance(to: 10_000)
    #expect(r.effects("odr_request").map(\.t) == [100])
    let line = r.a13("odr_auto_retry")
    #expect(line.map(\.tsMs) == [R.wall + 1200])
    #expect(line.first?.payload.map { "\($0.key)=\($0.value)" } == ["state_before=failed_retry", "debounce_ms=500", "result=skipped_left_page"])
  }

  @Test("§5.14/§4.6: inspiration_open while offline → L1 odr_unavailable toast, no request")
  func odrOffline() {
    var r = R(initial: ["network": "unsatisfied"])
    r.send(.inspiration_open, at: 100)
    let shown = r.records("prompt").filter { $0.fields["op"] == "shown" }
    #expect(shown.map { "\($0.t) \(R.str($0, "key")) \(R.str($0, "level")) \(R.str($0, "surface"))" } == ["100 odr_unavailable L1 cameraToastBottom"])
    #expect(shown.first?.fields["zh"] == "网络不可用，先用关键词")
    #expect(r.effects("odr_request").isEmpty)
  }

  // MARK: §6.5 rotation hook

  static func file(_ daysAgo: Int64, mib: Int64) -> (name: String, json: JSONValue) {
    let mtime = R.wall - daysAgo * R.dayMs
    let name = DiagnosticsRotation.fileName(forWallMs: mtime)
    return (name, .object(["name": .string(name), "size_bytes": .number(Double(mib * 1_048_576)), "mtime_ms": .number(Double(mtime))]))
  }

  @Test("§6.5 / S43: after the first A.13 line, one `diagnostics` delete line per file the plan removes (age rule)")
  func rotationAge() {
    let old = Self.file(31, mib: 40)
    let recent = Self.file(2, mib: 11)
    let today = Self.file(0, mib: 2)
    var r = R(initial: ["diagnostics_files": [old.json, recent.json, today.json]])
    #expect(r.records("diagnostics").isEmpty)  // nothing appended yet
    r.send(.reset_session_tap, at: 100)  // prompt_shown
    #expect(r.a13("prompt_shown").map(\.tsMs) == [R.wall + 100])
    r.action(at: 200, "reset_session_confirm", "dismiss")  // more A.13 lines
    let d = r.records("diagnostics")
    #expect(d.map { "\($0.t) \(R.str($0, "op")) \(R.str($0, "file")) \(R.str($0, "rule"))" } == ["100 delete \(old.name) age"])
    // The delete line follows the prompt line of the same call.
    let i = r.out.firstIndex { $0.out == "diagnostics" }!
    #expect(r.out[..<i].contains { $0.out == "prompt" && $0.t == 100 })
    #expect(r.a13("RotationBySizeTriggered").isEmpty)
  }

  @Test("§6.5: over the 50 MiB cap the oldest files go (rule size) and RotationBySizeTriggered is logged; other files ignored")
  func rotationSize() {
    let a = Self.file(5, mib: 30)
    let b = Self.file(3, mib: 25)
    let c = Self.file(0, mib: 1)
    let export: JSONValue = .object(["name": "JustPhoto-Diagnostics-20260101-000000.txt", "size_bytes": .number(Double(200 * 1_048_576)), "mtime_ms": .number(Double(R.wall - 40 * R.dayMs))])
    var r = R(initial: ["diagnostics_files": [c.json, b.json, a.json, export]])
    r.send(.reset_session_tap, at: 100)
    r.action(at: 200, "reset_session_confirm", "dismiss")
    #expect(r.records("diagnostics").map { "\($0.t) \(R.str($0, "file")) \(R.str($0, "rule"))" } == ["100 \(a.name) size"])
    let trig = r.a13("RotationBySizeTriggered")
    #expect(trig.map(\.tsMs) == [R.wall + 100])
    #expect(trig.first?.payload.map { "\($0.key)=\($0.value)" } == ["file=\(a.name)"])
  }

  // MARK: §4.6 / §5.6 write_failed Viewer bar

  /// Shot 1 saved (t 100–503), shot 2 write_failed(no_space) at 1400.
  static func writeFailedRig() -> AppRig {
    var r = R()
    r.tap(at: 100)
    r.photoData(at: 280, shot: 1)
    r.writeOK(at: 500, shot: 1)
    r.send(.asset_fetch_result, at: 503, ["asset_id": "ASSET-1/L0/001", "attempt": 1, "count": 1])
    r.tap(at: 1000)
    r.photoData(at: 1180, shot: 2)
    r.writeError(at: 1400, shot: 2)
    return r
  }

  @Test("§4.6/§5.6: the write_failed bar appears only while the Viewer shows the write_failed item; withdrawn on viewer_close")
  func writeFailedBarViewer() {
    var r = Self.writeFailedRig()
    #expect(r.records("item").last.map { "\(R.str($0, "shot")) \(R.str($0, "core")) \(R.str($0, "reason"))" } == "2 write_failed no_space")
    #expect(r.promptLines().filter { $0.hasPrefix("1400") } == ["1400 shown write_failed_block", "1400 shown blocked_by_write_failed"])
    // §4.9: the block modal's payload key is write_failed_count ([C] write_failed_block_modal).
    let shown = r.a13("prompt_shown").first { $0.payload.contains { $0.key == "key" && $0.value == "write_failed_block" } }
    let payload = shown?.payload.first { $0.key == "payload" }?.value ?? ""
    #expect(payload.contains("\"write_failed_count\"") && !payload.contains("\"count\""))
    #expect(r.shutterReason == "blocked_by_write_failed")
    r.send(.viewer_open, at: 2000, ["item": 1])
    #expect(r.promptLines("write_failed").isEmpty)
    r.send(.viewer_page, at: 2500, ["item": 2])
    r.send(.viewer_close, at: 3000, ["item": 2])
    #expect(r.promptLines("write_failed") == ["2500 shown write_failed", "3000 dismissed write_failed auto"])
    let bar = r.records("prompt").first { $0.fields["key"] == "write_failed" }
    #expect(bar?.fields["surface"] == "viewerBlockingBarTop")
    #expect(bar?.fields["zh"] == "未保存到系统相册（手机空间不够）")
    // The block itself stays (§5.6).
    #expect(r.shutterReason == "blocked_by_write_failed")
  }

  @Test("§4.7/§5.6: write_failed_block 查看并处理 (open_first_write_failed) opens the Viewer on the item and shows the bar")
  func writeFailedBarFromBlockModal() {
    var r = Self.writeFailedRig()
    r.action(at: 2000, "write_failed_block", "open_first_write_failed")
    #expect(
      r.promptLines().filter { $0.hasPrefix("2000") } == [
        "2000 action write_failed_block open_first_write_failed", "2000 dismissed write_failed_block action",
        "2000 shown write_failed",
      ])
    #expect(r.e.app.bridge.viewerItem == 2)
    r.send(.viewer_close, at: 2600, ["item": 2])
    #expect(r.promptLines("write_failed").last == "2600 dismissed write_failed auto")
  }

  @Test("§4.6: viewer_open on a write_failed item directly shows the bar, with the item's reason")
  func writeFailedBarDirect() {
    var r = Self.writeFailedRig()
    r.send(.viewer_open, at: 2000, ["item": 2])
    #expect(r.promptLines("write_failed") == ["2000 shown write_failed"])
    r.send(.viewer_close, at: 2100, ["item": 2])
    #expect(r.promptLines("write_failed") == ["2000 shown write_failed", "2100 dismissed write_failed auto"])
  }

  // MARK: §4.4 system dialogs

  @Test("§4.4 / G-39: an L3 emitted while a system dialog is open waits until it closes; an L2 does not wait")
  func systemDialogDefersL3() {
    var r = R(initial: ["camera_ready": false])
    r.send(.app_launch, at: 0)
    r.send(.system_dialog, at: 1000, ["open": true])
    r.send(.camera_interrupted, at: 2000, ["reason": "audio_device_in_use_by_another_client"])
    r.advance(to: 8500)
    #expect(r.cameraLines.last == "8000 failed")
    #expect(r.shutterReason == "warmup_failed")
    #expect(r.promptLines() == ["2000 shown camera_occupied"])
    r.send(.system_dialog, at: 9000, ["open": false])
    #expect(r.promptLines() == ["2000 shown camera_occupied", "9000 shown camera_init_failed"])
    let line = r.a13("prompt_shown").last
    #expect(line?.tsMs == R.wall + 9000)
    // emittedAt is the instant of the emission (A.2.2), not of the show.
    #expect(line?.payload.first { $0.key == "emittedAt" }?.value == String(R.wall + 8000))
  }
}
