import Foundation
import Testing

/// Issue 36 item 1, "one route per command": Just Photo is a registration in the CLI's registry
/// like every other engine, and a command converted to one route has no Just Photo branch
/// beside its plug-in branch (no `legacyRoute`, no `plugin == nil`, no `Harness.driver`).
@Suite("One route per command (EngineRouting)")
struct OneRouteTests {
  static let root = SourceRulesTests.repoRoot

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The commands replaying through the registry only (their engine-specific parts from the
  /// routed engine's plug-in or its `EngineLab`).
  static let oneRoute = [
    "Replay.swift", "Verify.swift", "Diff.swift", "Minimize.swift", "Import.swift", "Cat.swift", "Doctor.swift", "Coverage.swift",
    "Bisect+Commits.swift", "Plot.swift", "Export.swift",
  ]

  /// The other files converted too, under Sources (their engine-specific parts come from the
  /// routed engine's `EngineLab`): `bisect commits`'s workspace, the HTML report.
  static let oneRouteFiles = [
    "jpreplay/Support/BisectWorkspace.swift", "jpreplay/Support/HTMLReportFile.swift", "Lab/Report/HTMLReportBuilder.swift",
  ]

  /// What a converted command may still name, and why: `minimize --against` is Just Photo's
  /// only (`requireJustPhoto`), its in-process side a PoseSpec driver.
  static let allowed: [String: [String]] = ["Minimize.swift": ["Harness.driver"]]

  @Test func justPhotoIsTheRegistrysFirstEngine() throws {
    let registry = try Self.text("Sources/jpreplay/Support/EngineRegistry.swift")
    guard let list = registry.range(of: "static let engines: [EngineRegistration] = [") else {
      Issue.record("EngineRegistry.engines not found")
      return
    }
    let entries = registry[list.upperBound...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .prefix { $0 != "]" }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
    #expect(entries.first?.hasPrefix("Harness.registration,") == true, "\(entries)")
    #expect(entries.count >= 3, "\(entries)")
  }

  /// No command has a way to route a Just Photo recording apart from the others: the registry
  /// has no `legacyRoute` (nil for Just Photo) and no `refuseJustPhotoOptions` (the options a
  /// plug-in refuses are its `configured(…)`'s).
  @Test func theRegistryHasNoJustPhotoRoute() throws {
    let registry = try Self.text("Sources/jpreplay/Support/EngineRegistry.swift")
    let lines = SourceRulesTests.codeLines(registry, containing: ["legacyRoute", "refuseJustPhotoOptions"])
    #expect(lines.isEmpty, "EngineRegistry still routes Just Photo apart: \(lines)")
  }

  @Test func convertedCommandsHaveOneRoute() throws {
    let needles = [
      "legacyRoute", "plugin == nil", "if let plugin", "guard let plugin", "Harness.driver", "refuseJustPhotoOptions",
      "CanonicalOutput",
    ]
    let files = Self.oneRoute.map { ($0, "jpreplay/Subcommands/\($0)") } + Self.oneRouteFiles.map { ($0, $0) }
    for (name, path) in files {
      let needles = needles.filter { !(Self.allowed[name] ?? []).contains($0) }
      let lines = SourceRulesTests.codeLines(try Self.text("Sources/\(path)"), containing: needles)
      #expect(lines.isEmpty, "\(name) still has a Just Photo branch: \(lines)")
    }
  }
}
