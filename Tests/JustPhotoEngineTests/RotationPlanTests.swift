import JustPhotoEngine
import Testing

@Suite("A.13 diagnostics files: rotation plan, naming, export (ENGINE §6.5)")
struct RotationPlanTests {
  static let day: Int64 = 86_400_000
  static let mib: Int64 = 1_048_576
  /// 2026-02-12T01:36:51.502Z.
  static let now: Int64 = 1_770_860_211_502

  func plan(_ files: [DiagnosticsFile], now: Int64 = now) -> [String] {
    DiagnosticsRotation.plan(files: files, nowMs: now).map { "\($0.rule):\($0.file)" }
  }

  @Test func constants() {
    #expect(DiagnosticsRotation.sizeCapBytes == 50 * Self.mib)
    #expect(DiagnosticsRotation.maxAgeMs == 2_592_000_000)
  }

  /// ENGINE §7 S43: 40 MiB (day-31), 11 MiB (day-2), 2 MiB (today) = 53 MiB > 50 MiB. The age
  /// rule deletes the 31-day-old file; the remaining 13 MiB are within the cap.
  @Test func s43AgeRuleDeletesTheOldFileAndTheSizeCapIsThenSatisfied() {
    let n = Self.now
    let files = [
      DiagnosticsFile(name: DiagnosticsRotation.fileName(forWallMs: n), sizeBytes: 2 * Self.mib, mtimeMs: n),
      DiagnosticsFile(
        name: DiagnosticsRotation.fileName(forWallMs: n - 31 * Self.day), sizeBytes: 40 * Self.mib,
        mtimeMs: n - 31 * Self.day),
      DiagnosticsFile(
        name: DiagnosticsRotation.fileName(forWallMs: n - 2 * Self.day), sizeBytes: 11 * Self.mib,
        mtimeMs: n - 2 * Self.day),
    ]
    #expect(files.reduce(0) { $0 + $1.sizeBytes } > DiagnosticsRotation.sizeCapBytes)
    let p = DiagnosticsRotation.plan(files: files, nowMs: n)
    #expect(p.map(\.file) == ["diagnostics-2026-01-12.jsonl"])
    #expect(p.map(\.rule) == ["age"])
  }

  @Test func sizeRuleDeletesOldestFirstWithTiesBrokenByName() {
    let n = Self.now
    let files = [
      DiagnosticsFile(name: "diagnostics-2026-02-12.jsonl", sizeBytes: 20 * Self.mib, mtimeMs: n),
      // Two files with the same mtime: "-a" goes before "-b".
      DiagnosticsFile(name: "diagnostics-2026-02-03-b.jsonl", sizeBytes: 15 * Self.mib, mtimeMs: n - 9 * Self.day),
      DiagnosticsFile(name: "diagnostics-2026-02-03-a.jsonl", sizeBytes: 15 * Self.mib, mtimeMs: n - 9 * Self.day),
      DiagnosticsFile(name: "diagnostics-2026-02-10.jsonl", sizeBytes: 15 * Self.mib, mtimeMs: n - 2 * Self.day),
      // Not a log: never counted, never deleted.
      DiagnosticsFile(name: "export.txt", sizeBytes: 500 * Self.mib, mtimeMs: n - 60 * Self.day),
    ]
    // 65 MiB → delete -a (50 MiB, not > cap) and stop.
    #expect(plan(files) == ["size:diagnostics-2026-02-03-a.jsonl"])
    var bigger = files
    bigger[0].sizeBytes = 21 * Self.mib  // 66 MiB → -a (51), then -b (36)
    #expect(plan(bigger) == ["size:diagnostics-2026-02-03-a.jsonl", "size:diagnostics-2026-02-03-b.jsonl"])
    // Exactly at the cap: nothing to do.
    let atCap = [DiagnosticsFile(name: "diagnostics-2026-02-12.jsonl", sizeBytes: DiagnosticsRotation.sizeCapBytes, mtimeMs: n)]
    #expect(plan(atCap).isEmpty)
    // One byte over: the only file goes.
    var over = atCap
    over[0].sizeBytes += 1
    #expect(plan(over) == ["size:diagnostics-2026-02-12.jsonl"])
  }

  @Test func exactlyThirtyDaysOldIsKeptOneMillisecondOlderIsDeleted() {
    let n = Self.now
    let edge = DiagnosticsFile(name: "diagnostics-2026-01-13.jsonl", sizeBytes: 10, mtimeMs: n - 30 * Self.day)
    #expect(plan([edge]).isEmpty)
    var older = edge
    older.mtimeMs -= 1
    #expect(plan([older]) == ["age:diagnostics-2026-01-13.jsonl"])
  }

  @Test func ageDeletionsComeFirstThenSize() {
    let n = Self.now
    let files = [
      DiagnosticsFile(name: "old-b.jsonl", sizeBytes: 1, mtimeMs: n - 40 * Self.day),
      DiagnosticsFile(name: "old-a.jsonl", sizeBytes: 1, mtimeMs: n - 40 * Self.day),
      DiagnosticsFile(name: "new-1.jsonl", sizeBytes: 30 * Self.mib, mtimeMs: n - 1),
      DiagnosticsFile(name: "new-2.jsonl", sizeBytes: 30 * Self.mib, mtimeMs: n),
    ]
    #expect(plan(files) == ["age:old-a.jsonl", "age:old-b.jsonl", "size:new-1.jsonl"])
    #expect(plan([]).isEmpty)
  }

  @Test func fileNamesAreUTCDays() {
    func name(_ ms: Int64) -> String { DiagnosticsRotation.fileName(forWallMs: ms) }
    #expect(name(1_770_860_211_502) == "diagnostics-2026-02-12.jsonl")
    #expect(name(0) == "diagnostics-1970-01-01.jsonl")
    #expect(name(-1) == "diagnostics-1969-12-31.jsonl")
    // Leap day 2024 and its neighbours.
    #expect(name(1_709_164_799_999) == "diagnostics-2024-02-28.jsonl")
    #expect(name(1_709_164_800_000) == "diagnostics-2024-02-29.jsonl")
    #expect(name(1_709_251_199_999) == "diagnostics-2024-02-29.jsonl")
    #expect(name(1_709_251_200_000) == "diagnostics-2024-03-01.jsonl")
    // 2000 is a leap year (÷400); 1900 is not (÷100).
    #expect(name(951_782_400_000) == "diagnostics-2000-02-29.jsonl")
    #expect(name(-2_203_977_600_000) == "diagnostics-1900-02-28.jsonl")
    #expect(name(-2_203_891_200_000) == "diagnostics-1900-03-01.jsonl")
    // Year end.
    #expect(name(1_767_225_599_999) == "diagnostics-2025-12-31.jsonl")
    #expect(name(1_767_225_600_000) == "diagnostics-2026-01-01.jsonl")
  }

  @Test func exportNameAndContent() {
    #expect(DiagnosticsRotation.exportName(wallMs: 1_770_860_211_502) == "JustPhoto-Diagnostics-20260212-013651.txt")
    #expect(DiagnosticsRotation.exportName(wallMs: 1_767_225_599_999) == "JustPhoto-Diagnostics-20251231-235959.txt")
    let text = DiagnosticsRotation.export(files: [
      (name: "diagnostics-2026-02-12.jsonl", content: "{\"event\":\"b\"}"),
      (name: "diagnostics-2026-02-11.jsonl", content: "{\"event\":\"a\"}\n{\"event\":\"a2\"}"),
    ])
    #expect(
      text == """
        # file: diagnostics-2026-02-11.jsonl
        {"event":"a"}
        {"event":"a2"}
        # file: diagnostics-2026-02-12.jsonl
        {"event":"b"}

        """)
    #expect(DiagnosticsRotation.export(files: []) == "")
  }
}
