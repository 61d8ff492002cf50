import Recording
/// JUnit XML for CI dashboards: one `testcase` per recording. Stale, missing and orphan
/// recordings are failures with their own `type`; ignored or deleted orphans are `skipped`;
/// unreadable input is an `error`. The suite's properties count every category. No timings,
/// so the report is as deterministic as the verification.
public enum JUnitReport {
  public static func render(_ report: VerifyReport, suite: String = "jpreplay.verify") -> String {
    let failures = report.cases.filter { $0.exitCode == .difference }.count
    let errors = report.cases.filter { $0.exitCode == .badInput }.count
    let skipped = report.cases.filter { $0.category == .orphan && $0.exitCode == .ok }.count
    var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    let counts = #"tests="\#(report.cases.count)" failures="\#(failures)" errors="\#(errors)""#
    out += #"<testsuites name="\#(escape(suite))" \#(counts)>"# + "\n"
    out += #"  <testsuite name="\#(escape(suite))" \#(counts) skipped="\#(skipped)">"# + "\n"
    out += "    <properties>\n"
    for c in VerifyCategory.allCases {
      out += #"      <property name="\#(c.rawValue)" value="\#(report.count(c))"/>"# + "\n"
    }
    out += "    </properties>\n"
    for c in report.cases {
      let open = #"    <testcase classname="\#(escape(suite))" name="\#(escape(c.name))""#
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
      body += c.written.map { "wrote Golden/\($0)" }
      out += #"      <\#(element) message="\#(escape(c.message))" type="\#(type(of: c))">"#
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

  /// XML text/attribute escaping (`XMLText`, the one XML escaper).
  static func escape(_ s: String, attribute: Bool = true) -> String { XMLText.escape(s, attribute: attribute) }
}
