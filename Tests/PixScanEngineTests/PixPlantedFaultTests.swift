import CanonicalJSON
import PixScanEngine
import PixScanScenarios
import Testing

/// PixScan's planted faults (issue 26): each one breaks exactly the decision its summary
/// names (checked here against docs/PIXSCAN.md, not against a trace), no run has one by
/// default, and the corpus's `expect:` rules catch every one of them.
@Suite("PixScan planted faults")
struct PixPlantedFaultTests {
  /// Launched, onboarded, full access, photos p1…pn, with `faults` planted.
  static func ready(_ n: Int, _ faults: [PixPlantedFault]) -> PixHarness {
    var h = PixHarness()
    h.engine = PixScanEngine(options: PixOptions(plantedFaults: PixPlantedFaults(faults)))
    _ = h.engine.start()
    h.send(.appLaunch(permission: .authorized, store: PixStore(onboarded: true)))
    h.send(.librarySnapshot(PixHarness.photos(n)))
    return h
  }

  @Test("no fault unless code plants one; names are unique, prefixed pix-, and found by name")
  func names() {
    #expect(PixOptions().plantedFaults.isEmpty)
    #expect(PixScanEngine().options.plantedFaults.isEmpty)
    let names = PixPlantedFault.allCases.map(\.rawValue)
    #expect(Set(names).count == names.count)
    for f in PixPlantedFault.allCases {
      #expect(f.rawValue.hasPrefix("pix-"))
      #expect(PixPlantedFault.named(f.rawValue) == f)
      #expect(PixPlantedFaults([f]).all == [f])
      #expect(!f.summary.isEmpty)
    }
    #expect(PixPlantedFault.named("gate-min-hold-ignored") == nil)
    #expect(PixPlantedFaults(PixPlantedFault.allCases).all == PixPlantedFault.allCases)
  }

  @Test("pix-undo-forgets-queue: the undone delete leaves its photo queued (D3 broken), the photo is current and unprocessed again (D6 holds)")
  func undoForgetsQueue() {
    for faulty in [false, true] {
      var h = Self.ready(3, faulty ? [.undoForgetsQueue] : [])
      h.send(.swipe(.left))
      let undo = h.send(.undo)
      // D6: the undone photo is current again; its swipe no longer counts as processed.
      #expect(h.current == "p1")
      #expect(undo.persist?.processed == [])
      #expect(h.last(.progress)?["processed"] == 0)
      // D3: the photo leaves the queue its swipe put it in — unless the fault forgets it.
      #expect(undo.persist?.queue == (faulty ? ["p1"] : []))
      #expect(h.last(.undo)?["queue_removed"] == .bool(!faulty))
      #expect(h.records.contains { $0.kind == "queue" && $0.fields["op"] == "removed" } == !faulty)
      // Keeping the photo now: kept by the spec; with the fault it still counts as deleted.
      h.send(.swipe(.right))
      #expect(h.last(.progress)?["kept"] == (faulty ? 0 : 1))
      #expect(h.last(.progress)?["deleted"] == (faulty ? 1 : 0))
    }
  }

  @Test("pix-undo-forgets-position: the swipe is reverted but the current photo stays where it moved on to (D6 broken)")
  func undoForgetsPosition() {
    for faulty in [false, true] {
      var h = Self.ready(3, faulty ? [.undoForgetsPosition] : [])
      h.send(.swipe(.right))
      #expect(h.current == "p2")
      let undo = h.send(.undo)
      #expect(undo.persist?.processed == [])
      #expect(h.current == (faulty ? "p2" : "p1"))
    }
  }

  @Test("pix-blank-text-kept: a blank recognised text makes an entry instead of ocr_no_text (D2 broken)")
  func blankTextKept() {
    for faulty in [false, true] {
      var h = Self.ready(2, faulty ? [.blankTextKept] : [])
      h.send(.swipe(.down))
      let r = h.send(.ocrResult(photo: "p1", outcome: .text(" \n ")))
      #expect((r.persist?.texts.count ?? 0) == (faulty ? 1 : 0))
      #expect(h.last(.message)?["key"] == (faulty ? nil : "ocr_no_text"))
    }
  }

  @Test("PixFaultCheck: the corpus's expect: rules catch every planted fault; undo-edges catches pix-undo-forgets-queue")
  func rulesCatchEachFault() throws {
    let scenarios = try PixScenarioCorpusTests.files().filter { $0 != "long-session-5000.yaml" }.map(PixScenarioCorpusTests.load)
    let run = PixFaultCheck.run(scenarios)
    #expect(run.unmetClean.isEmpty, "\(run.unmetClean)")
    #expect(run.outcomes.map(\.fault) == PixPlantedFault.allCases)
    let expected: [PixPlantedFault: String] = [
      .undoForgetsQueue: "undo-edges", .undoForgetsPosition: "undo-edges", .blankTextKept: "ocr-failure",
    ]
    for o in run.outcomes {
      #expect(o.errors.isEmpty)
      #expect(o.changed.contains(expected[o.fault]!), "\(o.name) changed \(o.changed)")
      #expect(o.caughtBy.contains { $0.hasPrefix(expected[o.fault]! + ": ") }, "\(o.name) caught by \(o.caughtBy)")
      // Caught means a rule broke; a scenario the fault leaves alone breaks none.
      #expect(o.caughtBy.allSatisfy { line in o.changed.contains { line.hasPrefix($0 + ": ") } })
    }
    // D3's queue revert is what undo-edges checks at t=1500 (the undo of its left swipe).
    let queue = try #require(run.outcomes.first { $0.fault == .undoForgetsQueue })
    #expect(queue.caughtBy.contains { $0.contains("queue_removed=true") && $0.contains("[1500, 1500]") }, "\(queue.caughtBy)")
    #expect(PixFaultCheck.faults(named: []) == PixPlantedFault.allCases)
    #expect(PixFaultCheck.faults(named: ["pix-blank-text-kept"]) == [.blankTextKept])
    #expect(PixFaultCheck.faults(named: ["gate-min-hold-ignored"]) == nil)
  }
}
