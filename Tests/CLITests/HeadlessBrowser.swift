import Foundation

/// Headless Chromium for the HTML report's browser tests: Debian's `chromium` (installed by
/// scripts/setup --tests when missing), else another Chromium or Chrome on PATH, or the one named by
/// `JPREPLAY_CHROMIUM`. Each run gets its own profile folder, so parallel tests never share one.
enum HeadlessBrowser {
  static let path: String? = {
    let env = ProcessInfo.processInfo.environment
    if let p = env["JPREPLAY_CHROMIUM"], FileManager.default.isExecutableFile(atPath: p) { return p }
    let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
    let dirs = (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    for n in names {
      for d in dirs where FileManager.default.isExecutableFile(atPath: "\(d)/\(n)") { return "\(d)/\(n)" }
    }
    let mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    return FileManager.default.isExecutableFile(atPath: mac) ? mac : nil
  }()

  /// Whether the browser tests can run; prints why not (once per test asking).
  static var available: Bool {
    if path == nil {
      print("HTML report browser tests skipped: no Chromium found (run scripts/setup --tests, which installs Debian's chromium; or set JPREPLAY_CHROMIUM)")
    }
    return path != nil
  }

  struct Run {
    var dom: String
    /// Chromium's log: console messages appear as `INFO:CONSOLE` lines.
    var log: String
    var code: Int32
    /// The page's console messages (any is a failure for the report, which logs nothing).
    var consoleLines: [String] { log.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") } }
  }

  /// Loads `file#fragment` (`fragment` already percent-encoded) and returns the DOM after the page's script ran (`--dump-dom`), or
  /// with `screenshot` writes a PNG of the page instead (the DOM is then empty).
  static func load(_ file: URL, fragment: String, screenshot: URL? = nil, size: String = "1400,1000") throws -> Run {
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent("jpreplay-chromium-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: profile) }
    var url = URLComponents(url: file, resolvingAgainstBaseURL: false)!
    url.percentEncodedFragment = fragment
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path!)
    p.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars", "--enable-logging=stderr",
      "--v=0", "--user-data-dir=\(profile.path)", "--window-size=\(size)", "--virtual-time-budget=3000",
    ] + (screenshot.map { ["--screenshot=\($0.path)"] } ?? ["--dump-dom"]) + [url.string!]
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    nonisolated(unsafe) var errData = Data()
    let errThread = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
    errThread.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    while !errThread.isFinished { usleep(1000) }
    return Run(
      dom: String(decoding: outData, as: UTF8.self), log: String(decoding: errData, as: UTF8.self), code: p.terminationStatus)
  }

  /// The value of attribute `name` on the first element with `id` (or on `<body>` when `id`
  /// is "body").
  static func attribute(_ name: String, of id: String, in dom: String) -> String? {
    let open = id == "body" ? "<body" : "id=\"\(id)\""
    guard let start = dom.range(of: open) else { return nil }
    let tagStart = dom[..<start.lowerBound].lastIndex(of: "<") ?? start.lowerBound
    guard let tagEnd = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
    let tag = dom[tagStart..<tagEnd]
    guard let a = tag.range(of: " \(name)=\"") else { return nil }
    return String(tag[a.upperBound...].prefix { $0 != "\"" })
  }

  /// The text content of the element with `id` (entities of text nodes decoded).
  static func text(of id: String, in dom: String) -> String? {
    guard let start = dom.range(of: "id=\"\(id)\""), let gt = dom[start.upperBound...].firstIndex(of: ">"),
      let end = dom[gt...].range(of: "</")
    else { return nil }
    return String(dom[dom.index(after: gt)..<end.lowerBound]).replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
