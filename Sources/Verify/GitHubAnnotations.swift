import Foundation
import Recording

/// GitHub Actions workflow commands for a `verify` report (printed when `GITHUB_ACTIONS=true`):
/// one `::error file=…,line=…,title=…::…` per failing golden, stale recording, orphan or bad
/// input, so the pull request shows each where the file is.
public enum GitHubAnnotations {
  /// Whether the environment is a GitHub Actions run.
  public static func isEnabled(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Bool
  {
    environment["GITHUB_ACTIONS"] == "true"
  }

  /// Annotation lines for every case that fails (exit 1 or 2), in name order. Paths are shown
  /// relative to `base` (the working directory) when they are inside it.
  public static func render(_ report: VerifyReport, store: GoldenStore, base: String) -> [String] {
    func rel(_ url: URL) -> String { relative(url.path, to: base) }
    var out: [String] = []
    for c in report.cases where c.exitCode != .ok {
      let title = "jpreplay verify \(c.name)"
      if let s = c.scenario {
        let scenario = store.recordingsDir.joined("\(c.name).scenario.yaml")
        out.append(line(file: rel(scenario), line: nil, title: title, message: s.message))
      }
      for u in c.unmet {
        // "Recordings/x.scenario.yaml:31: expect[0] (…)": the rule's own file and line.
        let scenario = rel(store.recordingsDir.joined("\(c.name).scenario.yaml"))
        let at = u.hasPrefix(scenario + ":") ? Int(u.dropFirst(scenario.count + 1).prefix { $0.isNumber }) : nil
        out.append(line(file: scenario, line: at, title: title + " (expect)", message: u))
      }
      switch c.status {
      case .failed(let problems):
        for p in problems {
          if case .mismatch(let d?) = p.kind {
            let more = p.hunkCount > 1 ? " (\(p.hunkCount) divergent hunks)" : ""
            out.append(
              line(
                file: rel(store.goldenURL(c.name, p.file)), line: d.golden?.line ?? d.anchorLine,
                title: title, message: p.message + more))
          } else {
            out.append(
              line(file: rel(store.recordingURL(c.name)), line: nil, title: title, message: p.message))
          }
        }
      case .orphanGolden:
        out.append(
          line(file: rel(store.goldenURL(c.name, .trace)), line: nil, title: title, message: c.message))
      case .badInput(let e):
        out.append(
          line(file: e.recording.map { relative($0, to: base) }, line: nil, title: title, message: e.description))
      case .harnessError(let e):
        out.append(line(file: rel(store.recordingURL(c.name)), line: nil, title: title, message: e.description))
      case .passed, .orphanIgnored, .orphanDeleted: break
      }
    }
    return out
  }

  /// One `::error` command; data and properties escaped as the runner expects.
  public static func line(file: String?, line: Int?, title: String, message: String) -> String {
    var props: [String] = []
    if let file { props.append("file=" + escapeProperty(file)) }
    if let line, line > 0 { props.append("line=\(line)") }
    props.append("title=" + escapeProperty(title))
    return "::error \(props.joined(separator: ","))::\(escapeData(message))"
  }

  /// The runner's escapes (% CR LF), after every other control character (ESC, NUL, C1, the
  /// line separators) was made a visible `\u{…}` as on the console (`ConsoleText.visible`).
  static func escapeData(_ s: String) -> String {
    ConsoleText.visible(s).replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }

  static func escapeProperty(_ s: String) -> String {
    escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
  }

  static func relative(_ path: String, to base: String) -> String {
    let prefix = base.hasSuffix("/") ? base : base + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
  }
}
