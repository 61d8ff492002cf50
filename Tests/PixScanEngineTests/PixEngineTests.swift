import CanonicalJSON
import PixScanEngine
import PixScanScenarios
import Testing

/// A small driver: inputs at times, kills and relaunches through the store, the rendered
/// records kept.
struct PixHarness {
  var engine = PixScanEngine()
  var stored: PixStore?
  var killed = false
  var records: [PixTraceRecord] = []
  var t: Int64 = 0

  init() { _ = engine.start() }

  @discardableResult
  mutating func send(_ input: PixInput, at time: Int64? = nil) -> PixStep {
    t = time ?? t + 100
    let step: PixStep
    if case .appLaunch = input, killed {
      killed = false
      step = engine.relaunch(input, restoring: stored ?? PixStore(), at: t)
    } else {
      if case .appKill = input { killed = true }
      step = engine.handle(input, at: t)
    }
    if let p = step.persist { stored = p }
    records += step.outputs.map { PixTraceRecord(t: t, output: $0) }
    return step
  }

  /// Launched with onboarding done, full access, the given library taken in.
  static func ready(_ assets: [PixAsset], store: PixStore = PixStore(onboarded: true)) -> PixHarness {
    var h = PixHarness()
    h.send(.appLaunch(permission: .authorized, store: store))
    h.send(.librarySnapshot(assets))
    return h
  }

  /// Photos p1…pn, p1 newest.
  static func photos(_ n: Int, screenshots: Set<Int> = []) -> [PixAsset] {
    (1...n).map { PixAsset(id: "p\($0)", created: Int64(1_000_000 - $0 * 1000), screenshot: screenshots.contains($0), bytes: Int64($0) * 100) }
  }

  func last(_ kind: PixOutputKind) -> JSONObject? { records.last { $0.kind == kind.rawValue }?.fields }
  var current: String? { last(.photo)?["id"]?.stringValue }
  func ignored(_ reason: String) -> Bool { records.last?.kind == "ignored" && records.last?.fields["reason"] == .string(reason) }
}

@Suite("PixScan engine")
struct PixEngineTests {
  @Test("D1: newest first, equal dates by id whatever the snapshot order")
  func ordering() {
    let assets = [
      PixAsset(id: "b", created: 5, screenshot: false, bytes: 1), PixAsset(id: "c", created: 9, screenshot: false, bytes: 1),
      PixAsset(id: "a", created: 5, screenshot: false, bytes: 1), PixAsset(id: "B", created: 5, screenshot: false, bytes: 1),
    ]
    var h = PixHarness.ready(assets)
    var seen: [String] = []
    for _ in 0..<4 {
      seen.append(h.current!)
      h.send(.swipe(.right))
    }
    #expect(seen == ["c", "B", "a", "b"])
  }

  @Test("swipe rows: action, queue and OCR request per direction")
  func swipeRows() {
    for (d, queues, ocr) in [(PixDirection.right, false, false), (.left, true, false), (.down, false, true), (.up, true, true)] {
      var h = PixHarness.ready(PixHarness.photos(3))
      let step = h.send(.swipe(d))
      #expect(step.outputs.first == .action(photo: "p1", index: 0, direction: d))
      #expect(step.effects.contains(.ocr(photo: "p1")) == ocr)
      #expect(step.persist?.queue == (queues ? ["p1"] : []))
      #expect(step.persist?.processed == ["p1"])
      #expect(h.current == "p2")
      #expect(h.last(.progress)?["deleted"] == (queues ? 1 : 0))
    }
  }

  @Test("D3/D6: undo removes the queue entry and the text entry, the photo is current again")
  func undoReverts() {
    var h = PixHarness.ready(PixHarness.photos(3))
    h.send(.swipe(.up))
    h.send(.ocrResult(photo: "p1", outcome: .text("hello")))
    #expect(h.stored?.texts.count == 1 && h.stored?.queue == ["p1"])
    let step = h.send(.undo)
    #expect(step.outputs.first == .undo(photo: "p1", index: 0, queueRemoved: true, textRemoved: true, ocrDropped: false))
    #expect(h.stored == PixStore(onboarded: true))
    #expect(h.current == "p1")
  }

  @Test("D3: undo while recognition is pending drops the late result")
  func undoDropsPendingOCR() {
    var h = PixHarness.ready(PixHarness.photos(3))
    h.send(.swipe(.down))
    h.send(.undo)
    h.send(.ocrResult(photo: "p1", outcome: .text("late")))
    #expect(h.ignored("no_pending_request"))
    #expect(h.stored?.texts == [])
  }

  @Test("D4: undo with nothing to undo is ignored, also after undoing every swipe")
  func undoPastFirst() {
    var h = PixHarness.ready(PixHarness.photos(3))
    h.send(.undo)
    #expect(h.ignored("nothing_to_undo"))
    h.send(.swipe(.right))
    h.send(.undo)
    h.send(.undo)
    #expect(h.ignored("nothing_to_undo"))
    #expect(h.current == "p1" && h.last(.photo)?["can_undo"] == false)
  }

  @Test("D5: undo after a relaunch, a filter switch or a delete has nothing to revert")
  func undoHistoryCleared() {
    var h = PixHarness.ready(PixHarness.photos(4, screenshots: [3, 4]))
    h.send(.swipe(.left))
    h.send(.appKill)
    h.send(.appLaunch(permission: .authorized, store: nil))
    h.send(.librarySnapshot(PixHarness.photos(4, screenshots: [3, 4])))
    h.send(.undo)
    #expect(h.ignored("nothing_to_undo"))
    h.send(.swipe(.right))
    h.send(.filterMode(.screenshots))
    h.send(.undo)
    #expect(h.ignored("nothing_to_undo"))
    h.send(.swipe(.right))
    h.send(.deleteSheet(.open))
    h.send(.deleteSheet(.deleteAll))
    h.send(.deleteResult(batch: 1, outcome: .ok))
    h.send(.deleteSheet(.close))
    h.send(.undo)
    #expect(h.ignored("nothing_to_undo"))
  }

  @Test("relaunch restores from the store alone; the launch event's own store is not used (D20)")
  func relaunchFromStoreOnly() {
    let assets = PixHarness.photos(5)
    var a = PixHarness.ready(assets)
    a.send(.swipe(.left))
    a.send(.swipe(.right))
    let stored = a.stored!
    // A fresh engine relaunched with the same store shows the same as the killed one.
    var b = PixScanEngine()
    var c = PixScanEngine()
    _ = c.handle(.appLaunch(permission: .authorized, store: PixStore(onboarded: true)), at: 0)
    _ = c.handle(.librarySnapshot(assets), at: 1)
    _ = c.handle(.swipe(.up), at: 2)
    let launch = PixInput.appLaunch(permission: .authorized, store: PixStore(onboarded: false, processed: ["p4"]))
    let s1 = b.relaunch(launch, restoring: stored, at: 10).outputs + b.handle(.librarySnapshot(assets), at: 11).outputs
    let s2 = c.relaunch(launch, restoring: stored, at: 10).outputs + c.handle(.librarySnapshot(assets), at: 11).outputs
    #expect(s1 == s2)
    #expect(s1.contains(.photo(id: "p3", index: 2, canUndo: false)))
    #expect(s1.contains(.app(state: "launched", permission: .authorized, onboarded: true, restored: true)))
    #expect(!s1.contains { $0.kind == .onboarding })
  }

  @Test("D7: the next unprocessed photo wraps to the start (a newer photo added mid-session)")
  func nextWraps() {
    var h = PixHarness.ready(PixHarness.photos(2))
    h.send(.swipe(.right))
    var assets = PixHarness.photos(2)
    assets.append(PixAsset(id: "new", created: 2_000_000, screenshot: false, bytes: 1))
    h.send(.librarySnapshot(assets))
    #expect(h.current == "p2")  // the current photo stays
    h.send(.swipe(.right))
    #expect(h.current == "new" && h.last(.photo)?["index"] == 0)
    h.send(.swipe(.right))
    #expect(h.last(.screen)?["name"] == "completion")
  }

  @Test("D9: ids gone from the library leave processed set and queue; texts stay")
  func pruning() {
    var h = PixHarness.ready(PixHarness.photos(4))
    h.send(.swipe(.up))
    h.send(.ocrResult(photo: "p1", outcome: .text("kept text")))
    h.send(.swipe(.right))
    h.send(.librarySnapshot(Array(PixHarness.photos(4).dropFirst())))
    #expect(h.records.contains { $0.kind == "library" && $0.fields["pruned_processed"] == 1 && $0.fields["pruned_queued"] == 1 })
    #expect(h.records.contains { $0.kind == "message" && $0.fields["key"] == "queue_pruned" })
    #expect(h.stored?.processed == ["p2"] && h.stored?.queue == [] && h.stored?.texts.count == 1)
  }

  @Test("D8: ok / cancelled / error of a delete batch")
  func deleteOutcomes() {
    for outcome in [PixDeleteOutcome.ok, .cancelled, .error("busy")] {
      var h = PixHarness.ready(PixHarness.photos(3))
      h.send(.swipe(.left))
      h.send(.deleteSheet(.open))
      h.send(.deleteSheet(.select("p1")))
      let req = h.send(.deleteSheet(.deleteSelected))
      #expect(req.effects == [.deleteBatch(batch: 1, ids: ["p1"], bytes: 100)])
      let step = h.send(.deleteResult(batch: 1, outcome: outcome))
      let message = step.outputs.first { $0.kind == .message }
      switch outcome {
      case .ok:
        #expect(message == .message(key: .deleted, batch: 1, count: 1))
        #expect(h.stored?.queue == [] && h.stored?.processed == [])
        #expect(h.last(.progress)?["total"] == 2)
        #expect(h.last(.sheet)?["state"] == "closed")
      case .cancelled, .error:
        #expect(message?.render()["key"] == (outcome == .cancelled ? "delete_cancelled" : "delete_failed"))
        #expect(step.persist == nil && h.stored?.queue == ["p1"])
        #expect(h.last(.sheet)?["state"] == "open" && h.last(.sheet)?["selected"] == 1)
      }
    }
  }

  @Test("D19: selection rules; one batch at a time")
  func sheetRules() {
    var h = PixHarness.ready(PixHarness.photos(3))
    h.send(.deleteSheet(.select("p1")))
    #expect(h.ignored("sheet_closed"))
    h.send(.swipe(.left))
    h.send(.deleteSheet(.open))
    h.send(.deleteSheet(.deleteSelected))
    #expect(h.ignored("empty_selection"))
    h.send(.deleteSheet(.select("p2")))
    #expect(h.ignored("not_queued"))
    h.send(.deleteSheet(.deleteAll))
    h.send(.deleteSheet(.deleteAll))
    #expect(h.ignored("delete_pending"))
    h.send(.deleteResult(batch: 2, outcome: .ok))
    #expect(h.ignored("no_pending_request"))
  }

  @Test("D2: OCR failure and blank text make no entry and a message")
  func ocrFailure() {
    var h = PixHarness.ready(PixHarness.photos(3))
    h.send(.swipe(.down))
    let fail = h.send(.ocrResult(photo: "p1", outcome: .failed(error: nil)))
    #expect(fail.outputs == [.message(key: .ocrFailed, photo: "p1")] && fail.persist == nil)
    h.send(.swipe(.down))
    let blank = h.send(.ocrResult(photo: "p2", outcome: .text(" \n\t")))
    #expect(blank.outputs == [.message(key: .ocrNoText, photo: "p2")])
    h.send(.swipe(.down))
    let ok = h.send(.ocrResult(photo: "p3", outcome: .text(" x ")), at: 5000)
    #expect(ok.outputs.first == .text(count: 1, entry: PixTextEntry(photo: "p3", text: " x ", t: 5000)))
  }

  @Test("D13/D14: onboarding on first launch only; completion stores the flag")
  func onboardingFirstVsReturning() {
    var first = PixHarness()
    first.send(.appLaunch(permission: .notDetermined, store: nil))
    #expect(first.last(.screen)?["name"] == "onboarding" && first.last(.onboarding)?["step"] == "welcome")
    for a in [PixOnboardingAction.next, .practiceSwipe(.left), .practiceSwipe(.left), .practiceSwipe(.left), .tapIcon(.trash), .tapIcon(.ocr)] {
      first.send(.onboarding(a))
    }
    #expect(first.last(.onboarding)?["step"] == "permission")
    #expect(first.stored == nil)
    first.send(.permissionTap)
    first.send(.permissionResult(.authorized))
    #expect(first.stored?.onboarded == true && first.last(.onboarding)?["step"] == "done")
    var returning = PixHarness()
    returning.send(.appLaunch(permission: .notDetermined, store: PixStore(onboarded: true)))
    #expect(returning.last(.screen)?["name"] == "permission" && returning.last(.onboarding) == nil)
  }

  @Test("D10: double-tap guard; asked once; denied and limited")
  func permission() {
    var h = PixHarness()
    h.send(.appLaunch(permission: .notDetermined, store: PixStore(onboarded: true)))
    #expect(h.send(.permissionTap).effects == [.requestPermission])
    #expect(h.send(.permissionTap).effects == [] && h.ignored("request_pending"))
    h.send(.permissionResult(.denied))
    #expect(h.last(.screen)?["name"] == "permission_denied")
    #expect(h.send(.permissionTap).effects == [] && h.ignored("already_answered"))
    h.send(.librarySnapshot(PixHarness.photos(2)))
    #expect(h.ignored("no_access"))
    var l = PixHarness()
    l.send(.appLaunch(permission: .limited, store: PixStore(onboarded: true)))
    l.send(.librarySnapshot(PixHarness.photos(2)))
    #expect(l.last(.screen) == ["name": "main", "limited": true])
  }

  @Test("D17: inputs before launch and after a kill are ignored until a launch")
  func notRunning() {
    var h = PixHarness()
    h.send(.swipe(.left))
    #expect(h.ignored("not_running"))
    h.send(.appLaunch(permission: .authorized, store: nil))
    h.send(.appLaunch(permission: .authorized, store: nil))
    #expect(h.ignored("already_running"))
  }

  @Test("D15: the prefetch window is the next three unprocessed photos")
  func prefetch() {
    var h = PixHarness.ready(PixHarness.photos(6))
    #expect(h.records.contains { $0.kind == "effect" && $0.fields["ids"] == ["p2", "p3", "p4"] })
    h.send(.swipe(.right))
    h.send(.swipe(.right))
    let step = h.send(.undo)
    #expect(step.effects == [.prefetch(["p3", "p4", "p5"])])
  }

  @Test("determinism: two runs of the long session render byte-identical lines")
  func determinism() throws {
    let s = try PixScenarioCorpusTests.load("long-session-5000.yaml")
    let a = try PixDirectRun.run(s.events).map(\.line)
    let b = try PixDirectRun.run(s.events).map(\.line)
    #expect(a.count > 20_000)
    #expect(a == b)
    // The scenario itself is generated the same way twice.
    let again = try PixScenarioCorpusTests.load("long-session-5000.yaml")
    #expect(again.events == s.events)
  }
}
