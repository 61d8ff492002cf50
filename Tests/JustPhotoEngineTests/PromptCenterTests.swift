import CanonicalJSON
@testable import JustPhotoEngine
import EngineIO
import Foundation
import Replay
import Testing


/// The prompt system (ENGINE §4): catalogue, §4.4 emission algorithm, timers, actions, logging.
@Suite("PromptCenter (ENGINE §4)")
struct PromptCenterTests {
  static let wall: Int64 = 1_770_860_000_000
  static let ctx = PromptContext(wallStartMs: wall, sessionId: "S-0001", scene: "cafe")
  static let voiceOverCtx = PromptContext(wallStartMs: wall, sessionId: "S-0001", scene: "cafe", voiceOver: true)

  /// "op key reason" for each prompt trace line, e.g. "dismissed session_full_20 preempt".
  static func ops(_ e: Effects) -> [String] {
    e.records(at: 0).filter { $0.out == "prompt" }.map { r in
      let f = r.fields
      let op = f["op"]!.stringValue!
      let key = f["key"]!.stringValue!
      let extra = f["dismiss_reason"]?.stringValue ?? f["action_id"]?.stringValue ?? f["drop_reason"]?.stringValue
      return ([op, key] + (extra.map { [$0] } ?? [])).joined(separator: " ")
    }
  }
  /// "event key [reason|action]" for each A.13 line.
  static func lines(_ e: Effects) -> [String] {
    e.diagnostics.map { d in
      let p = Dictionary(uniqueKeysWithValues: d.payload.map { ($0.key, $0.value) })
      return ([d.event, p["key"]!] + [p["dismissReason"], p["actionId"]].compactMap { $0 }).joined(separator: " ")
    }
  }

  // MARK: S40

  @Test func s40PreemptionLowerPriorityActionAndThrottle_S40_4_4() {
    var pc = PromptCenter()
    let c = Self.ctx

    let e0 = pc.emit(.session_full_20, at: 0, context: c)
    #expect(Self.ops(e0) == ["shown session_full_20"])
    #expect(Self.lines(e0) == ["prompt_shown session_full_20"])

    // Higher priority (90 > 80) replaces the modal and bypasses the slot window (1 per 60 s).
    let e1 = pc.emit(.camera_init_failed, at: 5000, context: c)
    #expect(Self.ops(e1) == ["dismissed session_full_20 preempt", "shown camera_init_failed"])
    #expect(Self.lines(e1) == ["prompt_dismissed session_full_20 preempt", "prompt_shown camera_init_failed"])
    #expect(e1.diagnostics.allSatisfy { $0.tsMs == Self.wall + 5000 })

    let e2 = pc.emit(.reset_session_confirm, at: 10_000, context: c)
    #expect(Self.ops(e2) == ["dropped reset_session_confirm lower_priority"])
    #expect(e2.diagnostics.isEmpty)

    let (e3, action) = pc.action(key: .camera_init_failed, actionId: "retry_camera_init", at: 12_000, context: c)
    #expect(Self.ops(e3) == ["action camera_init_failed retry_camera_init", "dismissed camera_init_failed action"])
    #expect(Self.lines(e3) == ["prompt_action_tapped camera_init_failed retry_camera_init", "prompt_dismissed camera_init_failed action"])
    #expect(e3.diagnostics.map(\.tsMs) == [Self.wall + 12_000, Self.wall + 12_000])
    #expect(action?.kind == .retry_camera_init)
    #expect(action?.isDismissal == false)
    #expect(pc.visible.isEmpty)

    // Slot empty, but 2 L3s were shown within 60 s (max 1): dropped by the window.
    let e4 = pc.emit(.reset_session_confirm, at: 15_000, context: c)
    #expect(Self.ops(e4) == ["dropped reset_session_confirm throttle"])
    #expect(pc.visible.isEmpty)

    // The window slides: 60 s after the last L3 show it is allowed again.
    #expect(Self.ops(pc.emit(.reset_session_confirm, at: 64_999, context: c)) == ["dropped reset_session_confirm throttle"])
    #expect(Self.ops(pc.emit(.reset_session_confirm, at: 65_000, context: c)) == ["shown reset_session_confirm"])
  }

  @Test func traceLineCarriesTheSection1_7PromptFields_1_7() {
    var pc = PromptCenter()
    let e = pc.emit(.session_full_20, at: 7, context: Self.ctx)
    let r = e.records(at: 7)[0]
    #expect(r.t == 7 && r.out == "prompt")
    #expect(r.fields.keys == ["op", "key", "level", "surface", "priority", "zh", "en"])
    #expect(r.fields["level"] == "L3")
    #expect(r.fields["surface"] == "cameraModalCenter")
    #expect(r.fields["priority"] == 80)
    #expect(r.fields["zh"] == "清理未喜欢，才能继续拍。不会删除系统相册照片。")
  }

  // MARK: S41 / §4.3 timings

  @Test(arguments: [(false, Millis(4000), Millis(6000)), (true, Millis(6000), Millis(8000))])
  func s41AutoDismissTimingsWithAndWithoutVoiceOver_S41_4_3(voiceOver: Bool, toastMs: Millis, bannerMs: Millis) {
    var pc = PromptCenter()
    let c = voiceOver ? Self.voiceOverCtx : Self.ctx
    let toast = pc.emit(.odr_unavailable, at: 1000, context: c)
    #expect(toast.timers == [.schedule(PromptSlot.toast.timerID, at: 1000 + toastMs)])
    let banner = pc.emit(.thumb_failed, at: 1000, context: c)  // L2 without a button
    #expect(banner.timers == [.schedule(PromptSlot.banner.timerID, at: 1000 + bannerMs)])
    #expect(pc.visible.map(\.key.rawValue) == ["odr_unavailable", "thumb_failed"])

    // A firing before the due time (stale) does nothing; at the due time → dismissed(auto).
    #expect(pc.timerFired(PromptSlot.toast.timerID, at: 1000 + toastMs - 1, context: c).isEmpty)
    let t1 = pc.timerFired(PromptSlot.toast.timerID, at: 1000 + toastMs, context: c)
    #expect(Self.ops(t1) == ["dismissed odr_unavailable auto"])
    #expect(t1.timers.isEmpty)
    let t2 = pc.timerFired(PromptSlot.banner.timerID, at: 1000 + bannerMs, context: c)
    #expect(Self.ops(t2) == ["dismissed thumb_failed auto"])
    #expect(pc.visible.isEmpty)
  }

  @Test func voiceOverRaisesAnExplicitBaseToItsMinimum_4_3() {
    var d = PromptCatalogue.definition(.nothing_to_clear)!
    d.autoDismiss = .seconds(2.0)  // [C] toasts pass base 2.0
    #expect(PromptTimings.autoDismissMs(d, voiceOver: false) == 2000)
    #expect(PromptTimings.autoDismissMs(d, voiceOver: true) == 6000)
    d.autoDismiss = .seconds(7.5)
    #expect(PromptTimings.autoDismissMs(d, voiceOver: true) == 7500)
    #expect(PromptTimings.autoDismissMs(PromptCatalogue.definition(.session_full_20)!, voiceOver: true) == nil)
  }

  @Test func autoDismissPausesInTheBackgroundAndResumesWithTheRemainder_A_5_3_4_4() {
    var pc = PromptCenter()
    _ = pc.emit(.odr_unavailable, at: 0, context: Self.ctx)  // due 4000
    #expect(pc.appLifecycle(background: true, at: 1500).timers == [.cancel(PromptSlot.toast.timerID)])
    #expect(pc.timerFired(PromptSlot.toast.timerID, at: 4000, context: Self.ctx).isEmpty)
    #expect(pc.appLifecycle(background: false, at: 10_000).timers == [.schedule(PromptSlot.toast.timerID, at: 12_500)])
    #expect(Self.ops(pc.timerFired(PromptSlot.toast.timerID, at: 12_500, context: Self.ctx)) == ["dismissed odr_unavailable auto"])
  }

  // MARK: G-19

  @Test func anL2WithAPrimaryButtonNeverAutoDismisses_G19_4_3() {
    var pc = PromptCenter()
    // Catalogue says auto=def for these, but they have a primary button (A.3.1 rule 2).
    for key: PromptKey in [.session_count_15, .album_add_failed, .viewer_load_failed] {
      let def = PromptCatalogue.definition(key)!
      #expect(def.autoDismiss == .standard && def.primaryAction != nil)
      #expect(PromptTimings.autoDismissMs(def, voiceOver: false) == nil)
      #expect(PromptTimings.autoDismissMs(def, voiceOver: true) == nil)
    }
    let e = pc.emit(.session_count_15, payload: [("count", 15)], at: 0, context: Self.ctx)
    #expect(Self.ops(e) == ["shown session_count_15"])
    #expect(e.timers.isEmpty)
    #expect(pc.visible(key: .session_count_15)?.autoDismissAt == nil)
    #expect(pc.visible(key: .session_count_15)?.messageZh == "已拍 15 张：请挑选/清空")
    #expect(pc.timerFired(PromptSlot.banner.timerID, at: 600_000, context: Self.ctx).isEmpty)
    #expect(pc.visible.map(\.key.rawValue) == ["session_count_15"])
  }

  // MARK: L3 mutual exclusion

  @Test func neverTwoL3VisibleUnderABurstOfTwentyL3Emissions_4_1_4_4() {
    var pc = PromptCenter()
    let keys = PromptCatalogue.all.filter { $0.level == .L3 && $0.slot == .modal }.map(\.key)
    #expect(keys.count >= 10)
    var onScreen: [String] = []  // rebuilt from the trace alone
    var shown = 0
    for i in 0..<20 {
      let key = keys[(i * 7) % keys.count]
      let e = pc.emit(key, at: Millis(i * 150), context: Self.ctx)
      for r in e.records(at: Millis(i * 150)) {
        let k = r.fields["key"]!.stringValue!
        switch r.fields["op"]!.stringValue! {
        case "shown":
          onScreen.append(k)
          shown += 1
        case "dismissed": onScreen.removeAll { $0 == k }
        default: break
        }
        #expect(onScreen.count <= 1, "two L3 on screen after \(key) at step \(i)")
      }
      #expect(pc.visible.filter { $0.level == .L3 && $0.slot == .modal }.count <= 1)
      // Every emission is accounted for: shown, or dropped with a reason.
      #expect(Self.ops(e).contains { $0.hasPrefix("shown \(key)") || $0.hasPrefix("dropped \(key)") })
      // Preemption logs the old prompt's dismissal before the new one's show (§6.3).
      if e.diagnostics.count == 2 {
        #expect(e.diagnostics.map(\.event) == ["prompt_dismissed", "prompt_shown"])
      }
    }
    #expect(shown >= 2)
    #expect(onScreen == pc.visible.filter { $0.level == .L3 }.map(\.key.rawValue))
  }

  @Test func equalPriorityLaterEmissionWinsButCountsAgainstTheWindow_A_4_3_G47() {
    var pc = PromptCenter()
    _ = pc.emit(.purchase_failed, at: 0, context: Self.ctx)  // 78, sheetModalCenter
    // restore_failed has the same priority: the A.4.3 tie rule lets it win, but it is not a
    // strict preemption, so the 1-per-60 s window of the modal slot still applies.
    #expect(Self.ops(pc.emit(.restore_failed, at: 100, context: Self.ctx)) == ["dropped restore_failed throttle"])
    var wide = PromptCenter()
    var d = PromptCatalogue.definition(.restore_failed)!
    d.throttle.globalMaxCountInWindow = 5
    _ = wide.emit(.purchase_failed, at: 0, context: Self.ctx)
    #expect(Self.ops(wide.emit(d, at: 100, context: Self.ctx)) == ["dismissed purchase_failed preempt", "shown restore_failed"])
  }

  @Test func aSameInstantBatchIsTriedByPriorityThenLatestEmission_A_5_4() {
    var pc = PromptCenter()
    let batch = [
      PromptCenter.Emission(PromptCatalogue.definition(.reset_session_confirm)!, emittedAt: 0),
      PromptCenter.Emission(PromptCatalogue.definition(.camera_init_failed)!, emittedAt: 0),
      PromptCenter.Emission(PromptCatalogue.definition(.session_full_20)!, emittedAt: 0),
    ]
    let e = pc.emitBatch(batch, at: 0, context: Self.ctx)
    #expect(
      Self.ops(e) == [
        "shown camera_init_failed", "dropped session_full_20 lower_priority", "dropped reset_session_confirm lower_priority",
      ])
  }

  @Test func windowScopeAllCountsEverySlot_G18_1_8() {
    var slot = PromptCenter()
    var all = PromptCenter(options: .init(windowScope: .all))
    for pc in [0, 1] {
      var c = pc == 0 ? slot : all
      _ = c.emit(.odr_unavailable, at: 0, context: Self.ctx)
      _ = c.emit(.nothing_to_clear, at: 3000, context: Self.ctx)
      if pc == 0 { slot = c } else { all = c }
    }
    // A toast and a toast were shown in the last 20 s: the banner window (2 per 20 s) is full
    // only when every slot counts.
    #expect(Self.ops(slot.emit(.thumb_failed, at: 5000, context: Self.ctx)) == ["shown thumb_failed"])
    #expect(Self.ops(all.emit(.thumb_failed, at: 5000, context: Self.ctx)) == ["dropped thumb_failed throttle"])
  }

  // MARK: Gates (A.5.1)

  @Test func sessionOnceGateHoldsForTheSessionAndResetRearmsIt_A_5_1() {
    var pc = PromptCenter()
    let c = Self.ctx
    #expect(Self.ops(pc.emit(.low_space_warn, payload: [("mb", 500)], at: 0, context: c)) == ["shown low_space_warn"])
    #expect(pc.visible(key: .low_space_warn)?.messageZh == "空间偏低（< 500MB）：建议先清理，避免保存失败")
    #expect(pc.sessionFlags == ["prompt.session_once.low_space_warn"])
    _ = pc.timerFired(PromptSlot.banner.timerID, at: 6000, context: c)
    #expect(Self.ops(pc.emit(.low_space_warn, payload: [("mb", 500)], at: 100_000, context: c)) == ["dropped low_space_warn gate"])
    // A restored session with the flag keeps the gate closed.
    var restored = PromptCenter(sessionFlags: pc.sessionFlags)
    #expect(Self.ops(restored.emit(.low_space_warn, at: 0, context: c)) == ["dropped low_space_warn gate"])
    // A new session re-arms it.
    pc.reset()
    #expect(pc.sessionFlags.isEmpty)
    #expect(Self.ops(pc.emit(.low_space_warn, payload: [("mb", 500)], at: 200_000, context: c)) == ["shown low_space_warn"])
  }

  @Test func aDroppedSessionOncePromptDoesNotCloseItsGate_A_5_1() {
    var pc = PromptCenter()
    _ = pc.emit(.blocked_by_write_failed, at: 0, context: Self.ctx)  // 95 holds the banner slot
    #expect(Self.ops(pc.emit(.favorite_sync_failed, at: 10, context: Self.ctx)) == ["dropped favorite_sync_failed lower_priority"])
    #expect(pc.sessionFlags.isEmpty)
  }

  @Test func installOnceGateSurvivesSessionsAndComesFromInstallFlags_A_5_1() {
    var pc = PromptCenter()
    let c = Self.ctx
    #expect(Self.ops(pc.emit(.ref_first_save_notice, at: 0, context: c)) == ["shown ref_first_save_notice"])
    #expect(pc.installFlags == ["ref_first_save_notice"])
    let (_, a) = pc.action(key: .ref_first_save_notice, actionId: "dismiss", at: 1000, context: c)
    #expect(a?.isDismissal == true)
    pc.reset()
    #expect(Self.ops(pc.emit(.ref_first_save_notice, at: 500_000, context: c)) == ["dropped ref_first_save_notice gate"])
    var fresh = PromptCenter(installFlags: ["ref_first_save_notice"])
    #expect(Self.ops(fresh.emit(.ref_first_save_notice, at: 0, context: c)) == ["dropped ref_first_save_notice gate"])
    var other = PromptCenter(installFlags: [])
    #expect(Self.ops(other.emit(.ref_first_save_notice, at: 0, context: c)) == ["shown ref_first_save_notice"])
  }

  @Test func stateOnlyPassesOnlyOnTheFalseToTrueTransition_A_5_1() {
    var pc = PromptCenter()
    let c = Self.ctx
    #expect(Self.ops(pc.emit(.subject_lost, at: 0, context: c)) == ["shown subject_lost"])
    #expect(Self.ops(pc.emit(.subject_lost, at: 20_000, context: c)) == ["dropped subject_lost gate"])
    #expect(Self.ops(pc.conditionEnded(.subject_lost, at: 21_000, context: c)) == ["dismissed subject_lost auto"])
    #expect(Self.ops(pc.emit(.subject_lost, at: 22_000, context: c)) == ["shown subject_lost"])
  }

  // MARK: Suppression, close, actions (§4.4, §4.7)

  @Test func closeAndDismissActionsStartSuppression_4_4_4_7() {
    var pc = PromptCenter()
    let c = Self.ctx
    _ = pc.emit(.blocked_by_write_failed, at: 0, context: c)
    #expect(Self.ops(pc.close(key: .blocked_by_write_failed, at: 1000, context: c)) == ["dismissed blocked_by_write_failed close"])
    // perKey 2 s has passed, suppression is 60 s.
    #expect(Self.ops(pc.emit(.blocked_by_write_failed, at: 30_000, context: c)) == ["dropped blocked_by_write_failed suppressed"])
    #expect(Self.ops(pc.emit(.blocked_by_write_failed, at: 61_000, context: c)) == ["shown blocked_by_write_failed"])

    // L3s are not closable; a non-dismiss action does not suppress; "稍后" does.
    _ = pc.emit(.purchase_failed, at: 0, context: c)
    #expect(pc.close(key: .purchase_failed, at: 100, context: c).isEmpty)
    let (e, a) = pc.action(key: .purchase_failed, actionId: "dismiss", at: 200, context: c)
    #expect(Self.ops(e) == ["action purchase_failed dismiss", "dismissed purchase_failed action"])
    #expect(a?.isDismissal == true)
    #expect(Self.ops(pc.emit(.purchase_failed, at: 29_000, context: c)) == ["dropped purchase_failed suppressed"])

    // Leaving the app comes back as a value for the engine to turn into an effect.
    _ = pc.emit(.permission_upgrade_required, at: 100_000, context: c)
    let (_, open) = pc.action(key: .permission_upgrade_required, actionId: "open_limited_picker", at: 100_500, context: c)
    #expect(open?.effect == .leaveApp(.open_limited_picker))
    // Unknown prompt or button: nothing.
    #expect(pc.action(key: .permission_upgrade_required, actionId: "open_settings", at: 100_600, context: c).1 == nil)
    _ = pc.emit(.write_failed, payload: [("reason", "no_space")], at: 200_000, context: c)
    #expect(pc.action(key: .write_failed, actionId: "dismiss", at: 200_100, context: c).1 == nil)
    #expect(pc.visible(key: .write_failed) != nil)
  }

  @Test func everyCatalogueActionIsInTheActionLibrary_4_7() {
    for def in PromptCatalogue.all {
      for b in def.actions { #expect(PromptActionKind(rawValue: b.id) != nil, "\(def.key): \(b.id)") }
      #expect(def.placeholders.allSatisfy { PromptText.known.contains($0) }, "\(def.key)")
      if def.level == .L3 { #expect(!def.actions.isEmpty, "\(def.key) needs explicit buttons") }
    }
    #expect(Set(PromptCatalogue.all.map(\.key)).count == PromptCatalogue.all.count)
    #expect(PromptCatalogue.catalogueRows.count == 22)
    #expect(PromptCatalogue.definition(.session_full_20)!.actions.map(\.id) == ["clear_unliked", "go_wrap", "reset_session", "dismiss"])
  }

  // MARK: Templates (§4.2, §4.8)

  @Test func writeFailedReasonPhrasesAndEmptyBrackets_4_2_4_8_G24() {
    var a10 = PromptCenter()
    _ = a10.emit(.write_failed, payload: [("reason", "no_space")], at: 0, context: Self.ctx)
    #expect(a10.visible(key: .write_failed)?.messageZh == "未保存到系统相册（手机空间不够）")
    #expect(a10.visible(key: .write_failed)?.messageEn == "Not saved to the system library (Phone storage is full)")
    #expect(a10.blocksShutter)
    var c41 = PromptCenter(options: .init(writeFailStrings: .c41))
    _ = c41.emit(.write_failed, payload: [("reason", "no_space")], at: 0, context: Self.ctx)
    #expect(c41.visible(key: .write_failed)?.messageZh == "未保存到系统相册（空间不足）")
    var none = PromptCenter()
    _ = none.emit(.write_failed, at: 0, context: Self.ctx)
    #expect(none.visible(key: .write_failed)?.messageZh == "未保存到系统相册")
    #expect(none.visible(key: .write_failed)?.messageEn == "Not saved to the system library")
    #expect(PromptText.render("{x} a  {y}b ()", [:]) == "a b")
    #expect(PromptText.oneDecimal(2.25) == "2.3" && PromptText.oneDecimal(3) == "3.0")
    var ref = PromptCenter()
    _ = ref.emit(.ref_reject_not_suitable, payload: [("reason", "face_too_small")], at: 0, context: Self.ctx)
    #expect(ref.visible(key: .ref_reject_not_suitable)?.messageZh == "原因：脸太小")
  }

  // MARK: A.13 (§4.10, §6.3)

  /// Records 1–3 of the app's diagnostics export (DIAG), verbatim.
  static let referenceRecords = [
    #"{"event":"prompt_shown","scene":"cafe","ts_ms":1770860211520,"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","payload":{"payload":"{}","key":"camera_permission_preprompt","prompt_id":"camera_permission_preprompt|1770860211502","priority":"90","level":"L3","surface":"cameraModalCenter","emittedAt":"1770860211502","blocksShutter":"true"}}"#,
    #"{"payload":{"payload":"{}","emittedAt":"1770860211502","prompt_id":"camera_permission_preprompt|1770860211502","actionId":"continue","priority":"90","level":"L3","surface":"cameraModalCenter","key":"camera_permission_preprompt","blocksShutter":"true"},"scene":"cafe","session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","event":"prompt_action_tapped","ts_ms":1770860213111}"#,
    #"{"session_id":"F40A4C16-58FE-44FE-80EB-B67B83A17D4A","event":"prompt_dismissed","ts_ms":1770860213111,"scene":"cafe","payload":{"payload":"{}","emittedAt":"1770860211502","prompt_id":"camera_permission_preprompt|1770860211502","priority":"90","level":"L3","surface":"cameraModalCenter","dismissReason":"action","key":"camera_permission_preprompt","blocksShutter":"true"}}"#,
  ]

  @Test func a13LinesReproduceReferenceRecords1To3_4_10_6_3() throws {
    // Emission at wall …502; the tap 1609 ms later (DIAG ts …3111). [C] logged the show 18 ms
    // late through an async Task; the engine logs at the instant of showing.
    let c = PromptContext(
      wallStartMs: 1_770_860_211_502, sessionId: "F40A4C16-58FE-44FE-80EB-B67B83A17D4A", scene: "cafe")
    var pc = PromptCenter()
    var out = pc.emit(.camera_permission_preprompt, at: 0, context: c)
    let (tap, action) = pc.action(key: .camera_permission_preprompt, actionId: "continue", at: 1609, context: c)
    out.append(tap)
    #expect(action?.effect == .requestCameraPermission)
    #expect(out.diagnostics.count == 3)
    for (mine, refText) in zip(out.diagnostics, Self.referenceRecords) {
      let ref = try JSONParser.parse(refText).objectValue!
      let refPayload = ref["payload"]!.objectValue!
      #expect(Set(mine.payload.map(\.key)) == Set(refPayload.keys))
      #expect(mine.payload.count == refPayload.count)
      for (k, v) in mine.payload { #expect(refPayload[k] == .string(v), "\(mine.event).\(k)") }
      #expect(mine.event == ref["event"]?.stringValue)
      #expect(mine.sessionId == ref["session_id"]?.stringValue)
      #expect(mine.scene == ref["scene"]?.stringValue)
    }
    #expect(out.diagnostics.map(\.tsMs) == [1_770_860_211_502, 1_770_860_213_111, 1_770_860_213_111])
  }

  @Test func a13PayloadIsTaggedSortedJSONText_4_10() {
    #expect(PromptCenter.payloadJSON([]) == "{}")
    #expect(PromptCenter.payloadJSON([("count", 15)]) == #"{"count":{"int":15,"type":"int"}}"#)
    #expect(
      PromptCenter.payloadJSON([("reason", "no_space"), ("count", 2)])
        == #"{"count":{"int":2,"type":"int"},"reason":{"string":"no_space","type":"string"}}"#)
    var pc = PromptCenter()
    let e = pc.emit(.session_count_15, payload: [("count", 15)], at: 3, context: Self.ctx)
    let p = Dictionary(uniqueKeysWithValues: e.diagnostics[0].payload.map { ($0.key, $0.value) })
    #expect(p["payload"] == #"{"count":{"int":15,"type":"int"}}"#)
    #expect(p["prompt_id"] == "session_count_15|\(Self.wall + 3)")
    #expect(p["emittedAt"] == String(Self.wall + 3))
    #expect(p["blocksShutter"] == "false" && p["priority"] == "40" && p["level"] == "L2")
  }

  // MARK: G-39

  @Test func l3WaitsForASystemDialogToClose_G39() {
    var pc = PromptCenter()
    let c = Self.ctx
    #expect(pc.systemDialog(open: true, at: 0, context: c).isEmpty)
    #expect(pc.emit(.reset_session_confirm, at: 100, context: c).isEmpty)
    #expect(pc.emit(.camera_init_failed, at: 200, context: c).isEmpty)
    // Non-L3 prompts are not held back.
    #expect(Self.ops(pc.emit(.odr_unavailable, at: 300, context: c)) == ["shown odr_unavailable"])
    let e = pc.systemDialog(open: false, at: 1000, context: c)
    #expect(Self.ops(e) == ["shown camera_init_failed", "dropped reset_session_confirm lower_priority"])
    #expect(pc.visible(key: .camera_init_failed)?.emittedAt == 200)
    #expect(pc.visible(key: .camera_init_failed)?.shownAt == 1000)
    #expect(pc.deferred.isEmpty)
  }

  // MARK: Determinism

  @Test func sameCallsGiveIdenticalOutputs_1_3() {
    func run() -> (Effects, PromptCenter) {
      var pc = PromptCenter(installFlags: ["b", "a"])
      var all = Effects()
      let keys = PromptCatalogue.all.map(\.key)
      for i in 0..<300 {
        let t = Millis(i * 333)
        let c = i % 5 == 0 ? Self.voiceOverCtx : Self.ctx
        switch i % 6 {
        case 0, 1, 2: all.append(pc.emit(keys[(i * 13) % keys.count], payload: [("count", .int(i)), ("reason", "no_space")], at: t, context: c))
        case 3:
          if let v = pc.visible.last, let b = v.definition.actions.first {
            all.append(pc.action(key: v.key, actionId: b.id, at: t, context: c).0)
          }
        case 4:
          if let v = pc.visible.first { all.append(pc.close(key: v.key, at: t, context: c)) }
          for s in PromptSlot.allCases { all.append(pc.timerFired(s.timerID, at: t, context: c)) }
        default:
          all.append(pc.conditionEnded(keys[i % keys.count], at: t, context: c))
          if i % 60 == 5 { pc.reset() }
        }
      }
      return (all, pc)
    }
    let (a, pa) = run()
    let (b, pb) = run()
    #expect(a == b)
    #expect(pa == pb)
    #expect(a.outputs.count > 100)
    #expect(pa.installFlags == pa.installFlags.sorted())
  }
}
