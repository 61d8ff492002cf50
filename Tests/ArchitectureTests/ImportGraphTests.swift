import Foundation
import Testing

/// The module graph as docs/ARCHITECTURE.md draws it: Package.swift declares exactly the arrows
/// the `import` lines use (`scripts/check-imports`), Recording never imports the engine, and
/// the engine and its floor never use Foundation I/O (issue 13).
@Suite("Architecture: imports and arrows")
struct ImportGraphTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// `scripts/check-imports` on this repository passes.
  @Test func packageDeclaresExactlyTheImportedArrows() throws {
    let r = try Script.checkImports([])
    #expect(r.code == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("Package.swift matches the imports"), "\(r.stdout)")
  }

  /// The checker is not vacuous: on a small package it reports a missing arrow (an import
  /// with no declared dependency) and an extra one (a dependency no file imports), and
  /// accepts the package once the manifest matches.
  @Test func checkerCatchesMissingAndExtraArrows() throws {
    let pkg = try ScratchPackage(files: [
      "Sources/Low/Low.swift": "public struct Low {}\n",
      "Sources/Mid/Mid.swift": "import Foundation\nimport Low\n\npublic struct Mid { var l: Low }\n",
      "Sources/Top/Top.swift": "@testable import Mid\n",
    ])
    defer { pkg.remove() }

    let missing = try pkg.check(targets: [("Low", []), ("Mid", []), ("Top", ["Mid"])])
    #expect(missing.code == 1)
    #expect(missing.stdout.contains("undeclared arrow: Sources/Mid/Mid.swift imports Low"), "\(missing.stdout)")
    #expect(!missing.stdout.contains("Foundation"), "toolchain modules are not arrows: \(missing.stdout)")

    let extra = try pkg.check(targets: [("Low", []), ("Mid", ["Low"]), ("Top", ["Mid", "Low"])])
    #expect(extra.code == 1)
    #expect(extra.stdout.contains("unused arrow: Package.swift declares Top → Low"), "\(extra.stdout)")

    let exact = try pkg.check(targets: [("Low", []), ("Mid", ["Low"]), ("Top", ["Mid"])])
    #expect(exact.code == 0, "\(exact.stdout)\(exact.stderr)")
  }

  /// The checker enforces the two rules: a planted `import JustPhotoEngine` under Recording and a
  /// file API in the engine are reported with their files, even with every arrow declared.
  @Test func checkerCatchesBrokenFloorRules() throws {
    let pkg = try ScratchPackage(files: [
      "Sources/JustPhotoEngine/Engine.swift": "import Foundation\n\nlet s = try? String(contentsOfFile: \"x\")\n",
      "Sources/Recording/Reader.swift": "import JustPhotoEngine\n",
      "Sources/JustPhotoPlugin/Plugin.swift": "import JustPhotoEngine\n",
    ])
    defer { pkg.remove() }
    let r = try pkg.check(targets: [("JustPhotoEngine", []), ("Recording", ["JustPhotoEngine"]), ("JustPhotoPlugin", ["JustPhotoEngine"])])
    #expect(r.code == 1)
    #expect(r.stdout.contains("Sources/Recording/Reader.swift imports JustPhotoEngine"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/JustPhotoEngine/Engine.swift imports Foundation"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/JustPhotoEngine/Engine.swift:3 uses contentsOfFile"), "\(r.stdout)")
  }

  /// The seam rule: a harness module importing an engine (Just Photo's or PixScan's) or its
  /// plug-in is reported with the file, even with the arrow declared. The engines are read from
  /// the manifest (a `…Plugin` target and what only it depends on), not from a list.
  @Test func checkerCatchesAHarnessModuleImportingAnEngine() throws {
    let pkg = try ScratchPackage(files: [
      "Sources/JustPhotoEngine/Engine.swift": "public struct Engine {}\n",
      "Sources/PixScanEngine/Pix.swift": "public struct Pix {}\n",
      "Sources/Replay/Replayer.swift": "import JustPhotoEngine\n",
      "Sources/EngineSeam/Seam.swift": "import PixScanEngine\n",
      "Sources/Verify/Verifier.swift": "import JustPhotoPlugin\n",
      "Sources/JustPhotoPlugin/Plugin.swift": "import JustPhotoEngine\n",
      "Sources/PixScanPlugin/Plugin.swift": "import PixScanEngine\n",
    ])
    defer { pkg.remove() }
    let r = try pkg.check(targets: [
      ("JustPhotoEngine", []), ("PixScanEngine", []), ("Replay", ["JustPhotoEngine"]), ("EngineSeam", ["PixScanEngine"]),
      ("JustPhotoPlugin", ["JustPhotoEngine"]), ("Verify", ["JustPhotoPlugin"]), ("PixScanPlugin", ["PixScanEngine"]),
    ])
    #expect(r.code == 1)
    #expect(r.stdout.contains("Sources/Replay/Replayer.swift imports JustPhotoEngine (a harness module"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/EngineSeam/Seam.swift imports PixScanEngine"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/Verify/Verifier.swift imports JustPhotoPlugin"), "\(r.stdout)")
    #expect(!r.stdout.contains("Sources/JustPhotoPlugin"), "\(r.stdout)")
  }

  /// The drawings must equal the declared arrows: docs/ARCHITECTURE.md's table and
  /// Package.swift's header comment; a wrong row and a missing row are both reported.
  @Test func checkerCatchesDrawingsOfOtherArrows() throws {
    let table = "| module | imports |\n|---|---|\n| Low | — |\n| Mid | Low, *Extra* (a remark) |\n\n"
    let header = "// Arrows:\n//   Low → —   (the bottom)\n//   Mid → Low\n//   Top → Mid, Low\nlet package = 1\n"
    let pkg = try ScratchPackage(files: [
      "Sources/Low/Low.swift": "public struct Low {}\n",
      "Sources/Mid/Mid.swift": "import Low\n",
      "Sources/Top/Top.swift": "import Mid\n",
      "docs/ARCHITECTURE.md": "# Arrows\n\n" + table,
      "Package.swift": header,
    ])
    defer { pkg.remove() }
    let r = try pkg.check(targets: [("Low", []), ("Mid", ["Low"]), ("Top", ["Mid"])])
    #expect(r.code == 1)
    #expect(r.stdout.contains("arrow table draws Mid → {Extra Low} but Package.swift declares {Low}"), "\(r.stdout)")
    #expect(r.stdout.contains("arrow table has no arrows for Top"), "\(r.stdout)")
    #expect(r.stdout.contains("header comment draws Top → {Low Mid} but Package.swift declares {Mid}"), "\(r.stdout)")
    #expect(!r.stdout.contains("for Low") && !r.stdout.contains("draws Low"), "\(r.stdout)")
    #expect(!r.stdout.contains("header comment draws Mid"), "\(r.stdout)")
  }

  /// Checked here too, without the script: no file under Sources/Recording imports the engine.
  @Test func recordingNeverImportsTheEngine() throws {
    let offenders = try Self.swiftFiles(under: "Sources/Recording").filter { file in
      try Self.importedModules(file).contains("JustPhotoEngine")
    }
    #expect(offenders.isEmpty, "Recording imports JustPhotoEngine in \(offenders)")
    #expect(try Self.swiftFiles(under: "Sources/Recording").count > 10)
  }

  /// What `scripts/check-imports --engines` derives from the manifest: each engine's modules
  /// (a `<Name>Plugin` target and the targets only it depends on) and the pure floor.
  struct Engines {
    var modules: [String: [String]] = [:]
    var floor: [String] = []
    /// Every engine module.
    var all: Set<String> { Set(modules.values.joined()) }
  }

  static let engines: Result<Engines, Error> = Result {
    let r = try Script.checkImports(["--engines"])
    guard r.code == 0 else { throw ScriptFailure(message: "check-imports --engines: exit \(r.code): \(r.stderr)") }
    var out = Engines()
    for line in r.stdout.split(separator: "\n") {
      let words = line.split(separator: " ").map(String.init)
      if words.first == "engine", words.count >= 3 { out.modules[words[1]] = Array(words[2...]) }
      if words.first == "floor" { out.floor = Array(words.dropFirst()) }
    }
    return out
  }

  struct ScriptFailure: Error { var message: String }

  /// The manifest names the three engines, each with its own modules, and the pure floor: a
  /// new engine is found by the naming rule, never by editing a list.
  @Test func enginesAreReadFromTheManifest() throws {
    let e = try Self.engines.get()
    #expect(Set(e.modules["PixScan"] ?? []) == ["PixScanPlugin", "PixScanEngine", "PixScanScenarios"], "\(e.modules)")
    #expect(Set(e.modules["CameraCoach"] ?? []) == ["CameraCoachPlugin", "CameraCoachEngine", "CameraCoachScenarios"], "\(e.modules)")
    // Five modules of one shape with the others': its plug-in (registration, harness, drivers
    // included since ReplayHarness folded into it), engine, scenarios, and its spec and vocabulary.
    #expect(
      Set(e.modules["JustPhoto"] ?? [])
        == ["JustPhotoPlugin", "JustPhotoEngine", "JustPhotoScenarios", "JustPhotoIO", "PoseSpec"], "\(e.modules)")
    #expect(Set(e.floor).isSuperset(of: ["CanonicalJSON", "EngineIO", "JustPhotoEngine", "PixScanEngine", "CameraCoachEngine"]), "\(e.floor)")
    #expect(e.all.isDisjoint(with: ["CanonicalJSON", "EngineIO", "EngineSeam", "Recording", "Replay", "Verify", "ScenarioYAML"]))
  }

  /// Checked here too, without the script: the harness modules import no engine or plug-in.
  @Test func theHarnessImportsNoEngine() throws {
    let engineModules = try Self.engines.get().all
    var offenders: [String] = []
    for dir in ["CanonicalJSON", "EngineSeam", "Recording", "Replay", "Verify"] {
      let files = try Self.swiftFiles(under: "Sources/\(dir)")
      #expect(!files.isEmpty, "Sources/\(dir) has no Swift files")
      for file in files {
        for module in try Self.importedModules(file) where engineModules.contains(module) {
          offenders.append("\(file) imports \(module)")
        }
      }
    }
    #expect(offenders.isEmpty, "\(offenders)")
  }

  /// Every engine is imported only by its own modules and the CLI that registers it; Just Photo
  /// also by the tools above the plug-ins (Lab, JPReplayTesting), until they reach it through its
  /// registration (issue 36) — never by the harness, the floor, the other engines, ScenarioYAML
  /// or Mutants.
  @Test func anEngineIsImportedOnlyByItselfAndTheCLI() throws {
    var offenders: [String] = []
    let engines = try Self.engines.get().modules
    #expect(engines.count >= 3, "\(engines)")
    for (engine, modules) in engines {
      let above: Set<String> = engine == "JustPhoto" ? ["Lab", "JPReplayTesting"] : []
      var importers: Set<String> = []
      for file in try Self.swiftFiles(under: "Sources") {
        let top = file.split(separator: "/").dropFirst().first.map(String.init) ?? file
        for module in try Self.importedModules(file) where modules.contains(module) {
          importers.insert(top)
          if !modules.contains(top) && top != "jpreplay" && !above.contains(top) { offenders.append("\(file) imports \(module)") }
        }
      }
      #expect(importers.contains("jpreplay") && importers.contains("\(engine)Plugin"), "\(engine): \(importers)")
    }
    #expect(offenders.isEmpty, "\(offenders)")
  }

  /// Rule 2d: an engine is named in code only by its own modules, one registration line and
  /// Package.swift. A use of its plug-in's type outside them (an import too) is reported, and
  /// so is a second line in the registry; comments, string literals (multi-line ones too) and
  /// the import in the registry are not.
  @Test func checkerCatchesAnEngineNamedOutsideItsModules() throws {
    let pkg = try ScratchPackage(files: [
      "Sources/FooEngine/Foo.swift": "public struct FooThing {}\npublic func fooHelper() {}\n",
      "Sources/FooPlugin/Plugin.swift": "import FooEngine\n\npublic enum FooSeam {\n  public static let registration = 1\n}\n",
      "Sources/Lab/Lab.swift": "import FooPlugin\nlet a = FooSeam.registration\n// FooThing in a comment\nlet s = \"FooThing in a string\"\n",
      "Sources/Bar/Bar.swift": "let help = \"\"\"\n  fooHelper and FooThing, in help text\n  \"\"\"\nlet b = 1\n",
      "Sources/jpreplay/Support/EngineRegistry.swift":
        "import FooPlugin\n\nlet engines = [\n  FooSeam.registration,  // Foo\n]\nlet again = FooSeam.registration\n",
    ])
    defer { pkg.remove() }
    let r = try pkg.check(targets: [
      ("FooEngine", []), ("FooPlugin", ["FooEngine"]), ("Lab", ["FooPlugin"]), ("Bar", []), ("jpreplay", ["FooPlugin"]),
    ])
    #expect(r.code == 1)
    #expect(r.stdout.contains("Sources/Lab/Lab.swift:1 names Foo's FooPlugin"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/Lab/Lab.swift:2 names Foo's FooSeam"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/jpreplay/Support/EngineRegistry.swift:6 names Foo's FooSeam"), "\(r.stdout)")
    #expect(!r.stdout.contains("Lab.swift:3") && !r.stdout.contains("Lab.swift:4"), "\(r.stdout)")
    #expect(!r.stdout.contains("Bar.swift"), "\(r.stdout)")
    #expect(!r.stdout.contains("EngineRegistry.swift:1 ") && !r.stdout.contains("EngineRegistry.swift:4 "), "\(r.stdout)")
    #expect(!r.stdout.contains("Sources/FooPlugin"), "\(r.stdout)")
  }

  /// Rule 2d for Just Photo (issue 36): every module but the tools above the plug-ins (Lab,
  /// JPReplayTesting, jpreplay) names none of its modules or types — a use in Verify, EngineIO,
  /// ScenarioYAML or Mutants is reported, and so is one of its scenarios module's types (a module
  /// its plug-in alone depends on) — while a `typealias X = M.X` re-exporting a shared module's
  /// type is not its name, and Lab is not checked yet.
  @Test func checkerCatchesJustPhotoNamedBelowTheTools() throws {
    let pkg = try ScratchPackage(files: [
      "Sources/JustPhotoEngine/Engine.swift": "public struct CueEvalT0 {}\n",
      "Sources/ScenarioYAML/Error.swift": "public struct ScenarioError {}\npublic struct SplitMix64 {}\n",
      "Sources/JustPhotoScenarios/Scenario.swift":
        "import ScenarioYAML\n\npublic typealias ScenarioError = ScenarioYAML.ScenarioError\npublic struct Scenario {}\n",
      "Sources/JustPhotoPlugin/Plugin.swift":
        "import JustPhotoEngine\nimport JustPhotoScenarios\n\npublic enum JustPhotoVocabulary {}\nlet s: Scenario? = nil\n",
      "Sources/Verify/Table.swift": "// CueEvalT0 in a comment\nlet s = \"CueEvalT0 in a string\"\nlet rows: [CueEvalT0] = []\n",
      "Sources/EngineIO/Trace.swift": "// CueEvalT0 in a comment\npublic let traceRows: [CueEvalT0] = []\n",
      "Sources/Mutants/Mutant.swift": "import ScenarioYAML\n\nlet r = SplitMix64()\nlet e = ScenarioError()\nlet s: [Scenario] = []\n",
      "Sources/Lab/Lab.swift": "import JustPhotoPlugin\nlet v = JustPhotoVocabulary.self\n",
      // A second plug-in that uses ScenarioYAML makes it shared, not Just Photo's.
      "Sources/PixScanPlugin/Plugin.swift": "import ScenarioYAML\n",
    ])
    defer { pkg.remove() }
    let r = try pkg.check(targets: [
      ("JustPhotoEngine", []), ("ScenarioYAML", []), ("JustPhotoScenarios", ["ScenarioYAML"]), ("PixScanPlugin", ["ScenarioYAML"]),
      ("JustPhotoPlugin", ["JustPhotoEngine", "JustPhotoScenarios"]), ("EngineIO", []), ("Verify", []),
      ("Mutants", ["ScenarioYAML"]), ("Lab", ["JustPhotoPlugin"]),
    ])
    #expect(r.code == 1)
    #expect(r.stdout.contains("Sources/Verify/Table.swift:3 names JustPhoto's CueEvalT0"), "\(r.stdout)")
    #expect(!r.stdout.contains("Table.swift:1") && !r.stdout.contains("Table.swift:2"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/EngineIO/Trace.swift:2 names JustPhoto's CueEvalT0"), "\(r.stdout)")
    #expect(r.stdout.contains("Sources/Mutants/Mutant.swift:5 names JustPhoto's Scenario"), "\(r.stdout)")
    #expect(!r.stdout.contains("Mutant.swift:3") && !r.stdout.contains("Mutant.swift:4"), "\(r.stdout)")
    #expect(!r.stdout.contains("Sources/ScenarioYAML"), "\(r.stdout)")
    #expect(!r.stdout.contains("Trace.swift:1") && !r.stdout.contains("Sources/Lab"), "\(r.stdout)")
  }

  /// Checked here too, without the script: the engines, the spec and the floor import no
  /// Foundation and name no file, process or environment API.
  @Test func engineAndFloorUseNoFoundationIO() throws {
    let banned = ["FileManager", "FileHandle", "Process", "ProcessInfo", "fopen", "fread", "fwrite",
                  "popen", "posix_spawn", "getenv", "contentsOfFile", "String(contentsOf", "Data(contentsOf"]
    var offenders: [String] = []
    let floor = try Self.engines.get().floor
    #expect(floor.count >= 6, "\(floor)")
    for dir in floor {
      let files = try Self.swiftFiles(under: "Sources/\(dir)")
      #expect(!files.isEmpty, "Sources/\(dir) has no Swift files")
      for file in files {
        if try !Self.importedModules(file).isDisjoint(with: ["Foundation", "FoundationEssentials", "Dispatch"]) {
          offenders.append("\(file): imports Foundation")
        }
        let code = try Self.codeWithoutComments(file)
        for name in banned where Self.mentions(code, name) { offenders.append("\(file): \(name)") }
      }
    }
    #expect(offenders.isEmpty, "\(offenders)")
  }

  static func swiftFiles(under dir: String) throws -> [String] {
    let base = root.appendingPathComponent(dir)
    guard let e = FileManager.default.enumerator(atPath: base.path) else { return [] }
    return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
      .map { "\(dir)/\($0)" }
  }

  /// The module of every `import` line of a file (`@testable import X`, `import struct X.Y`).
  static func importedModules(_ file: String) throws -> Set<String> {
    var out: Set<String> = []
    for line in try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      .split(separator: "\n")
    {
      let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
      guard let i = words.firstIndex(of: "import"), i + 1 < words.count else { continue }
      let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
      let name = kinds.contains(words[i + 1]) && i + 2 < words.count ? words[i + 2] : words[i + 1]
      out.insert(String(name.split(separator: ".")[0]))
    }
    return out
  }

  static func codeWithoutComments(_ file: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
      .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
      .joined(separator: "\n")
  }

  /// Whether `name` occurs in `code` as a whole identifier (not inside a longer one).
  static func mentions(_ code: String, _ name: String) -> Bool {
    var rest = code[...]
    while let r = rest.range(of: name) {
      let before = r.lowerBound == code.startIndex ? nil : code[code.index(before: r.lowerBound)]
      let after = r.upperBound == code.endIndex ? nil : code[r.upperBound]
      let isIdent: (Character?) -> Bool = { c in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
      if !isIdent(before), name.last == "(" || !isIdent(after) { return true }
      rest = code[r.upperBound...]
    }
    return false
  }
}
