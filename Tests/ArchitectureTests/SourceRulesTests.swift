import Foundation
import Testing

/// Rules about the source tree itself (issue 13): process spawning only in the CLI target, and
/// the size limits of `scripts/check-sizes` with its allowlist.
@Suite("Source rules")
struct SourceRulesTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Every Swift file under `dir` (relative to the repository), sorted.
  static func swiftFiles(under dir: String) -> [String] {
    let base = repoRoot.appendingPathComponent(dir)
    let e = FileManager.default.enumerator(atPath: base.path)
    var files: [String] = []
    while let p = e?.nextObject() as? String {
      if p.hasSuffix(".swift") { files.append("\(dir)/\(p)") }
    }
    return files.sorted()
  }

  /// Lines of `text` whose code (comments excluded) contains one of `needles`.
  static func codeLines(_ text: String, containing needles: [String]) -> [String] {
    text.split(separator: "\n").map(String.init).filter { line in
      let code = line.components(separatedBy: "//").first ?? ""
      return needles.contains { code.contains($0) }
    }
  }

  /// Lines of `text` that spawn a process, comments excluded.
  static func spawningLines(_ text: String) -> [String] {
    codeLines(text, containing: ["Process()", "posix_spawn", "/proc/self/exe", "execv", "system(", "popen("])
  }

  @Test("nothing under Sources/ outside the CLI target (Sources/jpreplay) spawns a process")
  func processSpawningOnlyInCLI() throws {
    let files = Self.swiftFiles(under: "Sources")
    #expect(files.count > 100, "the scan found \(files.count) files; is the repository root right?")
    var offenders: [String] = []
    for f in files where !f.hasPrefix("Sources/jpreplay/") {
      let text = try String(contentsOf: Self.repoRoot.appendingPathComponent(f), encoding: .utf8)
      offenders += Self.spawningLines(text).map { "\(f): \($0.trimmingCharacters(in: .whitespaces))" }
    }
    #expect(offenders == [])
    // The scan sees the CLI's own spawning (so it would see it elsewhere).
    let child = try String(
      contentsOf: Self.repoRoot.appendingPathComponent("Sources/jpreplay/Support/ChildReplay.swift"), encoding: .utf8)
    #expect(Self.spawningLines(child).count >= 1)
  }

  /// Lines of `text` that read a clock or compare a measured duration, comments excluded. The
  /// needles are split so this file does not match itself.
  static func clockLines(_ text: String) -> [String] {
    let needles = [
      "Continuous" + "Clock", "Suspending" + "Clock", "clock_" + "gettime", "Date" + "()", "Dispatch" + "Time",
      "mach_absolute" + "_time", "CFAbsolute" + "TimeGetCurrent", "system" + "Uptime", "gettime" + "ofday",
      "get" + "rusage", ".measure" + " {", ".measure" + "(", "slowest" + ".duration", "time" + "IntervalSince",
      // A time limit on a test is a clock too: under load, parallel cases outlive it.
      ".time" + "Limit(", "executionTime" + "Allowance",
      // A duration measured elsewhere (a page's render time, a child's report) and compared.
      "(ms" + " <", "Ms" + " <", "seconds" + " <", "Seconds" + " <",
    ]
    return codeLines(text, containing: needles)
  }

  /// Issue 38: a test asserts work done (counts, bytes, bounds), never wall or CPU time — a
  /// slower or busy machine must not turn the gate red. Speed lives in `jpreplay bench`.
  @Test("no test reads a clock: the suite asserts work done, never a duration")
  func noTimedTests() throws {
    let files = Self.swiftFiles(under: "Tests")
    #expect(files.count > 100, "the scan found \(files.count) files; is the repository root right?")
    var offenders: [String] = []
    for f in files {
      let text = try String(contentsOf: Self.repoRoot.appendingPathComponent(f), encoding: .utf8)
      offenders += Self.clockLines(text).map { "\(f): \($0.trimmingCharacters(in: .whitespaces))" }
    }
    #expect(offenders == [])
    // The scan would see a timed assertion.
    #expect(Self.clockLines("    let start = Continuous" + "Clock.now\n    #expect(x < .seconds(1))").count == 1)
    #expect(Self.clockLines("  let t = clock_" + "gettime(CLOCK_THREAD_CPUTIME_ID, &ts)  // cpu").count == 1)
    #expect(Self.clockLines("  // Continuous" + "Clock in a comment").isEmpty)
    #expect(Self.clockLines("    #expect(ms" + " < 1000, \"rendered in \\(ms) ms\")").count == 1)
  }

  @Test("no Linux-only path in Sources/: the CLI finds itself through Foundation, not /proc (users build on macOS)")
  func noLinuxOnlyPaths() throws {
    var offenders: [String] = []
    for f in Self.swiftFiles(under: "Sources") {
      let text = try String(contentsOf: Self.repoRoot.appendingPathComponent(f), encoding: .utf8)
      for line in text.split(separator: "\n") {
        let code = line.components(separatedBy: "//").first ?? ""
        if ["\"/proc/", "\"/sys/", "\"/dev/shm"].contains(where: code.contains) { offenders.append("\(f): \(line.trimmingCharacters(in: .whitespaces))") }
      }
    }
    #expect(offenders == [])
  }

  /// Lines of `text` that use an NSString/URL path method (comments excluded).
  static func pathAPILines(_ text: String) -> [String] {
    let needles = [
      "deletingLastPathComponent", "lastPathComponent", "appendingPathComponent", "pathExtension",
      "deletingPathExtension", "appendingPathExtension", "pathComponents", "standardizingPath",
      "expandingTildeInPath", "as NSString", "NSString(",
    ]
    return text.split(separator: "\n").map(String.init).filter { line in
      let code = line.components(separatedBy: "//").first ?? ""
      return needles.contains { code.contains($0) }
    }
  }

  /// Issue 34 item 1: NSString's path methods trap in Linux Foundation for some inputs (a
  /// one-character path: `replay … -o q` died with SIGILL), and URL's make relative paths
  /// absolute. Every path computation goes through `Paths` (Sources/Recording/Support/Paths.swift,
  /// swift-system's `FilePath`).
  @Test("no NSString or URL path method under Sources/: every path goes through Paths (FilePath)")
  func noNSStringPathAPIs() throws {
    var offenders: [String] = []
    let files = Self.swiftFiles(under: "Sources")
    for f in files {
      let text = try String(contentsOf: Self.repoRoot.appendingPathComponent(f), encoding: .utf8)
      offenders += Self.pathAPILines(text).map { "\(f): \($0.trimmingCharacters(in: .whitespaces))" }
    }
    #expect(offenders == [], "use Paths.parent/name/join/fileExtension/stem or URL.folder/fileName/joined instead")
    // The scan sees such a use (so it would see one in Sources).
    #expect(Self.pathAPILines("let d = (p as NSString).deletingLastPathComponent").count == 1)
    #expect(Self.pathAPILines("  let n = url.lastPathComponent  ").count == 1)
    #expect(Self.pathAPILines("// deletingLastPathComponent in a comment").isEmpty)
    #expect(files.contains("Sources/Recording/Support/Paths.swift"))
  }

  /// Runs scripts/check-sizes with `arguments`; returns (exit status, stdout + stderr).
  static func checkSizes(_ arguments: [String]) throws -> (code: Int32, output: String) {
    let p = Process()
    p.executableURL = repoRoot.appendingPathComponent("scripts/check-sizes")
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test("scripts/check-sizes passes on the repository")
  func repositoryWithinSizes() throws {
    let r = try Self.checkSizes([])
    #expect(r.code == 0, "\(r.output)")
  }

  /// A scratch tree with `files` (path → text) and an allowlist.
  static func tree(_ files: [String: String], allowlist: String) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sizes-\(UUID().uuidString)")
    for (path, text) in files {
      let url = root.appendingPathComponent(path)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
    }
    try FileManager.default.createDirectory(at: root.appendingPathComponent("scripts"), withIntermediateDirectories: true)
    try allowlist.write(to: root.appendingPathComponent("scripts/size-allowlist"), atomically: true, encoding: .utf8)
    return root
  }

  /// A function `name` whose body has `lines` lines, with braces in strings and comments that
  /// must not count.
  static func function(_ name: String, bodyLines: Int) -> String {
    var s = "  func \(name)(x: Int) -> Int {\n"
    s += "    let s = \"}}} \\(x) {\" // }\n"
    for i in 0..<(bodyLines - 1) { s += "    _ = \(i)\n" }
    return s + "  }\n"
  }

  @Test("check-sizes fails on a long function, a long file and a stale allowlist entry; allowlisted ones pass")
  func negativeCases() throws {
    let short = "struct A {\n" + Self.function("short", bodyLines: 78) + "}\n"
    let long = "struct B {\n" + Self.function("long", bodyLines: 79) + "}\n"
    let bigFile = String(repeating: "// line\n", count: 501)
    var root = try Self.tree(["Sources/M/A.swift": short], allowlist: "")
    #expect(try Self.checkSizes(["--root", root.path]).code == 0)

    root = try Self.tree(["Sources/M/A.swift": short, "Sources/M/B.swift": long], allowlist: "")
    var r = try Self.checkSizes(["--root", root.path])
    #expect(r.code == 1)
    #expect(r.output.contains("Sources/M/B.swift:2: func long is 81 lines (max 80)"), "\(r.output)")

    root = try Self.tree(["Sources/M/B.swift": long], allowlist: "func Sources/M/B.swift long  the reason\n")
    #expect(try Self.checkSizes(["--root", root.path]).code == 0)

    root = try Self.tree(["Tests/T/Big.swift": bigFile], allowlist: "")
    r = try Self.checkSizes(["--root", root.path])
    #expect(r.code == 1 && r.output.contains("Tests/T/Big.swift: 501 lines (max 500)"), "\(r.output)")

    // An entry that no longer exceeds fails, so the list can only shrink.
    root = try Self.tree(["Sources/M/A.swift": short], allowlist: "func Sources/M/A.swift short  pending: split\n")
    r = try Self.checkSizes(["--root", root.path])
    #expect(r.code == 1 && r.output.contains("stale entry 'func Sources/M/A.swift short'"), "\(r.output)")

    root = try Self.tree(["Sources/M/A.swift": short], allowlist: "fn Sources/M/A.swift\n")
    r = try Self.checkSizes(["--root", root.path])
    #expect(r.code == 2 && r.output.contains("size-allowlist:1:"), "\(r.output)")
  }
}
