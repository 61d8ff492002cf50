/// JUnit XML for CI dashboards: one `testcase` per recording; a failure's message is the first
/// divergence. No timings, so the report is as deterministic as the verification.
public enum JUnitReport {
  public static func render(_ report: VerifyReport, suite: String = "jpreplay.verify") -> String {
    let failures = report.cases.filter { $0.exitCode == .difference }.count
    let errors = report.cases.filter { $0.exitCode == .badInput }.count
    var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    let counts = #"tests="\#(report.cases.count)" failures="\#(failures)" errors="\#(errors)""#
    out += #"<testsuites name="\#(escape(suite))" \#(counts)>"# + "\n"
    out += #"  <testsuite name="\#(escape(suite))" \#(counts) skipped="0">"# + "\n"
    for c in report.cases {
      let open = #"    <testcase classname="\#(escape(suite))" name="\#(escape(c.name))""#
      guard !c.passed else {
        out += open + "/>\n"
        continue
      }
      let element = c.exitCode == .badInput ? "error" : "failure"
      var body = c.details
      body += c.written.map { "wrote Golden/\($0)" }
      out += open + ">\n"
      out += #"      <\#(element) message="\#(escape(c.message))" type="\#(type(of: c.status))">"#
      out += escape(body.joined(separator: "\n"), attribute: false)
      out += "</\(element)>\n"
      out += "    </testcase>\n"
    }
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  static func type(of status: VerifyStatus) -> String {
    switch status {
    case .passed: "passed"
    case .failed(let problems):
      problems.contains { if case .missing = $0.kind { true } else { false } }
        ? "missing_golden" : "golden_mismatch"
    case .orphanGolden: "orphan_golden"
    case .harnessError: "harness_error"
    case .badInput: "bad_input"
    }
  }

  /// XML text/attribute escaping; control characters other than tab and newline are dropped
  /// (XML 1.0 cannot carry them), ANSI colour included.
  static func escape(_ s: String, attribute: Bool = true) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for u in s.unicodeScalars {
      switch u {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"" where attribute: out += "&quot;"
      case "'" where attribute: out += "&apos;"
      case "\n", "\t": out.unicodeScalars.append(u)
      default: if u.value >= 0x20 { out.unicodeScalars.append(u) }
      }
    }
    return out
  }
}
