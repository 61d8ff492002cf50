import CanonicalJSON
import PixScanEngine
import PixScanScenarios
import Testing

/// Scenario files: bad input is an error naming file, line and expectation; the generator is
/// seeded; the `expect:` evaluator fails rules the trace breaks.
@Suite("PixScan scenarios")
struct PixScenarioParseTests {
  static let head = """
    engine: pixscan
    name: t
    library: {count: 3, seed: 1}
    script:
      - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}

    """

  static func error(_ yaml: String) -> PixScenarioError? {
    do {
      _ = try PixScenario.parse(yaml: yaml, file: "x.yaml")
      return nil
    } catch { return error }
  }

  @Test func errorsNameFileLineAndExpectation() throws {
    var e = try #require(Self.error("name: t\n"))
    #expect(e.description.hasPrefix("x.yaml:") && e.message.contains("missing key \"engine\""))
    e = try #require(Self.error("engine: coach\nname: t\nlibrary: {}\nscript: []\n"))
    #expect(e.line == 1 && e.message.contains("engine: pixscan"))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: swip, direction: left}\n"))
    #expect(e.line == 6 && e.message.contains("did you mean \"swipe\""))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: swipe,\n     direction: sideways}\n"))
    #expect(e.line == 7 && e.message.contains("right, left, down, up"))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: swipe, direction: left}\n  - {at: 5, do: undo}\n"))
    #expect(e.line == 7 && e.message.contains("back in time"))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: change_library, remove: [IMG_0009]}\n"))
    #expect(e.message.contains("IMG_0009") && e.message.contains("not in the library"))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: library_snapshot, assets: []}\n"))
    #expect(e.message.contains("takes no fields"))
    e = try #require(Self.error(Self.head.replacingOccurrences(of: "count: 3", with: "count: 100001")))
    #expect(e.line == 3 && e.message.contains("PixScenarioLimits.libraryMax"))
    e = try #require(Self.error(Self.head + "  - {at: 10, do: run, swipes: 200001}\n"))
    #expect(e.message.contains("PixScenarioLimits.runSwipesMax"))
    e = try #require(Self.error(Self.head + "expect:\n  - {saw: acton}\n"))
    #expect(e.line == 7 && e.message.contains("did you mean \"action\""))
    e = try #require(Self.error(Self.head + "expect:\n  - {never: queue, with: {photo_id: IMG_0001}}\n"))
    #expect(e.message.contains("unknown field \"photo_id\" of queue lines"))
    e = try #require(Self.error(Self.head + "expect:\n  - {state: screen, at: 0}\n"))
    #expect(e.message.contains("needs with"))
    e = try #require(Self.error(Self.head + "expect:\n  - {saw: screen, at: 50}\n"))
    #expect(e.message.contains("after the end"))
    e = try #require(Self.error("engine: pixscan\nname: t\nlibrary: &a {count: 1}\nscript: []\n"))
    #expect(e.message.contains("anchors"))
  }

  @Test func generatorIsSeededAndNumbersNewestFirst() throws {
    let spec = PixLibrarySpec(count: 50, screenshotShare: 0.5, fromMs: 0, toMs: 86_400_000, seed: 9)
    var a = PixLibraryModel(spec)
    var b = PixLibraryModel(spec)
    #expect(a.assets == b.assets)
    #expect(a.snapshot() == b.snapshot())
    #expect(PixLibraryModel(PixLibrarySpec(count: 50, screenshotShare: 0.5, fromMs: 0, toMs: 86_400_000, seed: 10)).assets != a.assets)
    // Ids in id order are in the engine's order (D1).
    #expect(a.assets == a.assets.sorted(by: PixAsset.precedes))
    #expect(a.assets.first?.id == "IMG_0001" && a.assets.allSatisfy { $0.created >= 0 && $0.created <= 86_400_000 })
    let shots = a.assets.filter(\.screenshot).count
    #expect(shots > 10 && shots < 40)
    // The snapshot is shuffled but holds the same assets.
    let snap = a.snapshot()
    #expect(snap != a.assets && Set(snap.map(\.id)) == Set(a.assets.map(\.id)))
    a.add(2)
    #expect(a.assets.suffix(2).map(\.id) == ["IMG_0051", "IMG_0052"])
    #expect(a.assets.last!.created > a.assets.dropLast().map(\.created).max()!)
  }

  @Test func runStepAnswersRecognitions() throws {
    let s = try PixScenario.parse(
      yaml: Self.head + "  - {at: 100, do: run, swipes: 3, every_ms: 50, pattern: [down, right], ocr_latency_ms: 10, ocr_text: 'T {photo}', ocr_fail_every: 2}\n",
      file: "x.yaml")
    let tail = s.events.dropFirst().map { "\($0.t) \($0.kind) \(JSONWriter.write(.object($0.fields)))" }
    #expect(
      tail == [
        "100 swipe {\"direction\":\"down\"}", "110 ocr_result {\"photo\":\"IMG_0001\",\"ok\":true,\"text\":\"T IMG_0001\"}",
        "150 swipe {\"direction\":\"right\"}", "200 swipe {\"direction\":\"down\"}",
        "210 ocr_result {\"photo\":\"IMG_0003\",\"ok\":false,\"error\":\"recognition failed\"}",
      ])
    #expect(s.durationMs == 210)
  }

  @Test("the evaluator fails rules the trace breaks, and says what it saw")
  func evaluatorTeeth() throws {
    let s = try PixScenario.parse(
      yaml: Self.head + """
          - {at: 100, do: library_snapshot}
          - {at: 200, do: swipe, direction: left}
        expect:
          - {saw: action, with: {direction: right}}
          - {never: queue}
          - {state: photo, with: {id: IMG_0001}, at: end}
          - {saw: action, count: {at_least: 2}}
          - {state: photo, with: {id: IMG_0002}, at: 100, within_ms: 100}
          - {saw: screen, with: {name: main}, from: 100, to: 100}
        """, file: "x.yaml")
    let failures = PixExpectations.check(s.expectations, records: try PixDirectRun.run(s.events))
    #expect(failures.map(\.expectation.index) == [0, 1, 2, 3])
    #expect(failures[0].observed.contains("direction=left"))
    #expect(failures[2].observed.contains("IMG_0002"))
    #expect(failures[0].description.hasPrefix("x.yaml:9: expect[0]"))
  }
}

extension PixScenarioParseTests {
  @Test("the direct run reports results without a request and requests without a result, as the harness would")
  func correlation() throws {
    let s = try PixScenario.parse(
      yaml: Self.head + """
          - {at: 100, do: library_snapshot}
          - {at: 200, do: swipe, direction: down}
          - {at: 300, do: swipe, direction: down}
          - {at: 400, do: ocr_result, photo: IMG_0001, ok: true, text: a}
          - {at: 500, do: ocr_result, photo: IMG_0001, ok: true, text: b}
          - {at: 600, do: delete_result, batch: 1, outcome: ok}
        """, file: "x.yaml")
    let run = try PixDirectRun.checked(s.events)
    #expect(
      run.correlationIssues == [
        "t=500 ocr_result {\"photo\":\"IMG_0001\",\"ok\":true,\"text\":\"b\"}: no pending request",
        "t=600 delete_result {\"batch\":1,\"outcome\":\"ok\"}: no pending request", "t=300 ocr photo=IMG_0002: no result",
      ])
    // A kill ends what is pending: no result is owed.
    let killed = try PixScenario.parse(
      yaml: Self.head + """
          - {at: 100, do: library_snapshot}
          - {at: 200, do: swipe, direction: down}
          - {at: 300, do: app_kill}
        """, file: "x.yaml")
    #expect(try PixDirectRun.checked(killed.events).correlationIssues.isEmpty)
  }
}

extension PixScenarioParseTests {
  @Test("generator_sha256: formatting and expect: do not count, every value does")
  func semanticHash() throws {
    let a = try PixScenario.parse(yaml: Self.head + "  - {at: 10, do: swipe, direction: left}\n", file: "dir/t.yaml")
    let restyled = """
      # a comment
      name: t
      engine: "pixscan"
      library:
        seed: 1
        count: 3
      script:
        - at: 0
          do: app_launch
          permission: authorized
          store: {onboarding_completed: true}
        - {do: swipe, at: 10, direction: 'left'}
      expect:
        - {saw: action}
      """
    let b = try PixScenario.parse(yaml: restyled, file: "t.yaml")
    #expect(a.sha256 == b.sha256 && a.sha256.count == 64)
    let c = try PixScenario.parse(yaml: Self.head + "  - {at: 10, do: swipe, direction: right}\n", file: "t.yaml")
    #expect(c.sha256 != a.sha256)
    #expect(a.header.keys == ["format", "engine", "name", "duration_ms", "generator", "generator_sha256"])
    #expect(a.header["generator"] == "t.yaml" && a.header["engine"] == "pixscan" && a.header["duration_ms"] == 10)
  }
}
