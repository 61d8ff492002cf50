import Recording
/// JUnit XML for CI dashboards: one `testcase` per recording. Stale, missing and orphan
/// recordings are failures with their own `type`; ignored or deleted orphans are `skipped`;
/// unreadable input is an `error`. The suite's properties count every category. Each case
/// carries `file` (the recording, or the golden of an orphan, as `file` names it) and `time`
/// (seconds of its replay and comparison, `VerifyCase.elapsed`; 0 when not measured); the
/// suites carry the sum. Apart from `time` the report is as deterministic as the verification.
public enum JUnitReport {
  /// `file`: the path to show for a case's `file` attribute (nil: none).
  public static func render(
    _ report: VerifyReport, suite: String = "jpreplay.verify", file: ((VerifyCase) -> String?)? = nil
  ) -> String {
    let failures = report.cases.filter { $0.exitCode == .difference }.count
    let errors = report.cases.filter { $0.exitCode == .badInput }.count
    let skipped = report.cases.filter { $0.category == .orphan && $0.exitCode == .ok }.count
    var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    let total = report.cases.reduce(0.0) { $0 + ($1.elapsed.seconds ?? 0) }
    let counts = #"tests="\#(report.cases.count)" failures="\#(failures)" errors="\#(errors)" time="\#(seconds(total))""#
    out += #"<testsuites name="\#(escape(suite))" \#(counts)>"# + "\n"
    out += #"  <testsuite name="\#(escape(suite))" \#(counts) skipped="\#(skipped)">"# + "\n"
    out += "    <properties>\n"
    for c in VerifyCategory.allCases {
      out += #"      <property name="\#(c.rawValue)" value="\#(report.count(c))"/>"# + "\n"
    }
    out += "    </properties>\n"
    for c in report.cases {
      var open = #"    <testcase classname="\#(escape(suite))" name="\#(escape(c.name))""#
      if let path = file?(c) { open += #" file="\#(escape(path))""# }
      open += #" time="\#(seconds(c.elapsed.seconds ?? 0))""#
      if c.exitCode == .ok && c.category != .orphan {
        out += open + "/>\n"
        continue
      }
      out += open + ">\n"
      if c.exitCode == .ok {
        out += #"      <skipped message="\#(escape(c.message))"/>"# + "\n"
        out += "    </testcase>\n"
        continue
      }
      let element = c.exitCode == .badInput ? "error" : "failure"
      var body = c.details
      body += c.written.map { "wrote \(c.goldenDir)/\($0)" }
      // A failed, missing or stale case that also breaks its rules says both in its type.
      let kind = type(of: c) + (!c.unmet.isEmpty && c.category != .unmet ? "+expectation_failed" : "")
      out += #"      <\#(element) message="\#(escape(c.message))" type="\#(kind)">"#
      out += escape(body.joined(separator: "\n"), attribute: false)
      out += "</\(element)>\n"
      out += "    </testcase>\n"
    }
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  static func type(of c: VerifyCase) -> String {
    switch c.category {
    case .passed, .updated: "passed"
    case .missing: "missing_golden"
    case .stale: "stale_recording"
    case .unmet: "expectation_failed"
    case .orphan: "orphan_golden"
    case .error: c.scenario?.unreadable == true ? "bad_scenario" : "bad_input"
    case .failed:
      if case .harnessError = c.status { "harness_error" } else { "golden_mismatch" }
    }
  }

  /// Seconds with millisecond precision, as JUnit readers expect ("0.042").
  public static func seconds(_ s: Double) -> String {
    let ms = Int64((max(0, s.isFinite ? s : 0) * 1000).rounded())
    let frac = String(ms % 1000)
    return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
  }

  /// XML text/attribute escaping (`XMLText`, the one XML escaper).
  static func escape(_ s: String, attribute: Bool = true) -> String { XMLText.escape(s, attribute: attribute) }
}
