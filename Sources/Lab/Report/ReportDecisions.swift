import CanonicalJSON
import Foundation
import JustPhotoPlugin
import Recording
import Verify

/// One decision exported from an HTML report: accept or reject a recording's pending goldens,
/// optionally pinned to the SHA-256 of each `.new` file the report saw.
package struct ReportDecision: Equatable, Sendable {
  package var recording: String
  package var accept: Bool
  /// `trace` / `a13` → SHA-256 of the pending file when the report was written (may be empty).
  package var pending: [String: String]
  package init(recording: String, accept: Bool, pending: [String: String] = [:]) {
    self.recording = recording
    self.accept = accept
    self.pending = pending
  }
}

/// The decisions file of the HTML report (`jpreplay accept --decisions FILE`):
///
///     {"format":"jpreplay-decisions","version":1,
///      "decisions":[{"recording":"drift-left-and-back","decision":"accept",
///                    "pending":{"trace":"<sha256 of Golden/….trace.jsonl.new>"}}]}
///
/// Applying it makes the checks of `accept` and `reject` (something pending for each name; an
/// accept goes through the one gate, `GoldenGate`, as `accept NAME` does), plus: names are
/// exact (never globs), each at most once, and a pending file whose bytes changed since the
/// report (its SHA-256 differs) — or that the report did not see (no SHA for it) — is
/// refused. Every decision is checked before any file moves: one refusal applies nothing.
package enum ReportDecisions {
  package static let format = "jpreplay-decisions"
  /// Bytes of a decisions file read at most.
  package static let fileBytesMax = 4 << 20
  /// Decisions in one file.
  package static let decisionsMax = 10_000

  package static func read(_ path: String) throws(HarnessFailure) -> [ReportDecision] {
    do { try InputFile.checkRegular(path, what: "decisions file") } catch { throw .badInput(error.description) }
    guard let h = FileHandle(forReadingAtPath: path) else { throw .badInput("\(path): cannot read the decisions file") }
    defer { try? h.close() }
    let data = h.readData(ofLength: fileBytesMax + 1)
    guard data.count <= fileBytesMax else {
      throw .badInput("\(path): more than ReportDecisions.fileBytesMax = \(fileBytesMax) bytes")
    }
    return try parse(String(decoding: data, as: UTF8.self), file: path)
  }

  package static func parse(_ text: String, file: String) throws(HarnessFailure) -> [ReportDecision] {
    let doc: JSONValue
    do { doc = try JSONParser.parse(text) } catch { throw .badInput("\(file): \(error.description)") }
    guard let o = doc.objectValue else { throw .badInput("\(file): expected a JSON object") }
    guard o["format"]?.stringValue == format else {
      throw .badInput("\(file): \"format\": expected \"\(format)\", found \(shown(o["format"]))")
    }
    guard o["version"]?.int64Value == 1 else { throw .badInput("\(file): \"version\": expected 1, found \(shown(o["version"]))") }
    guard let list = o["decisions"]?.arrayValue else { throw .badInput("\(file): \"decisions\": expected an array") }
    guard list.count <= decisionsMax else {
      throw .badInput("\(file): \(list.count) decisions, more than ReportDecisions.decisionsMax = \(decisionsMax)")
    }
    var out: [ReportDecision] = []
    for (i, item) in list.enumerated() {
      let place = "\(file): decisions[\(i)]"
      guard let d = item.objectValue, let name = d["recording"]?.stringValue, !name.isEmpty else {
        throw .badInput("\(place): expected an object with a non-empty string \"recording\"")
      }
      guard !name.contains("/"), name != ".", name != ".." else {
        throw .badInput("\(place).recording: expected a recording name, found \(ConsoleText.line(Excerpt.short(name)))")
      }
      let verb = d["decision"]?.stringValue
      guard verb == "accept" || verb == "reject" else {
        throw .badInput("\(place).decision: expected \"accept\" or \"reject\", found \(shown(d["decision"]))")
      }
      var pending: [String: String] = [:]
      if let p = d["pending"], p != .null {
        guard let po = p.objectValue else { throw .badInput("\(place).pending: expected an object") }
        for m in po.members {
          guard GoldenKind(rawValue: m.key) != nil, let sha = m.value.stringValue, sha.count == 64,
            sha.allSatisfy({ $0.isHexDigit })
          else {
            throw .badInput("\(place).pending: expected \"trace\"/\"a13\" → a SHA-256 in hex, found \(ConsoleText.line(Excerpt.short(m.key)))")
          }
          pending[m.key] = sha.lowercased()
        }
      }
      guard !out.contains(where: { $0.recording == name }) else {
        throw .badInput("\(place): \(ConsoleText.line(Excerpt.short(name))) is decided twice")
      }
      out.append(ReportDecision(recording: name, accept: verb == "accept", pending: pending))
    }
    return out
  }

  static func shown(_ v: JSONValue?) -> String {
    guard let v else { return "nothing" }
    return ConsoleText.line(Excerpt.short(JSONWriter.write(v)))
  }

  /// What applying decisions did, or why it did nothing.
  package struct Outcome: Equatable, Sendable {
    /// ("accepted" | "rejected", file), in decision order, trace before a13.
    package var applied: [(verb: String, file: PendingGolden)] = []
    /// One message per refused decision or gate finding (nothing was applied when any).
    package var refused: [String] = []
    /// Gate findings let through by --force.
    package var warnings: [String] = []
    /// nil when applied; else 2 for bad input (nothing pending, no recording, a pending file
    /// the decision did not see as it is), 1 when only the gate's behavioural checks refused.
    package var exitCode: Int32?
    /// The gate's closing line (which checks refused, how to override), when it refused.
    package var closing: String?
    package static func == (a: Outcome, b: Outcome) -> Bool {
      a.refused == b.refused && a.warnings == b.warnings && a.exitCode == b.exitCode
        && a.applied.elementsEqual(b.applied) { $0.verb == $1.verb && $0.file == $1.file }
    }
  }

  /// Checks every decision against the store, then, when none is refused, applies them all.
  /// An accept goes through the one gate (`GoldenGate`: recording, stale, rules, and the
  /// SHA-256 the report saw of each pending file — a decision that carries none for a file is
  /// refused); a reject through its SHA check when it carries any SHA. `force`: the gate's overridable findings warn.
  package static func apply(_ decisions: [ReportDecision], gate: GoldenGate, force: Bool = false) throws -> Outcome {
    let store = gate.store
    var outcome = Outcome()
    var codes: [Int32] = []
    var findings: [GoldenGate.Finding] = []
    let pending = try store.pending()
    var plan: [(ReportDecision, [PendingGolden])] = []
    for d in decisions {
      let name = ConsoleText.line(Excerpt.short(d.recording))
      let files = pending.filter { $0.name == d.recording }
      if files.isEmpty {
        outcome.refused.append("nothing pending for \(name) (see `jpreplay verify`)")
        codes.append(2)
        continue
      }
      var seen: [PendingGolden: String] = [:]
      for p in files { if let sha = d.pending[p.kind.rawValue] { seen[p] = sha } }
      // A reject that pins no file (the example file's) deletes only what verify writes
      // again; an accept must name what it blesses.
      let found =
        d.accept ? gate.check(files, seen: seen) : gate.check(files, seen: d.pending.isEmpty ? nil : seen).filter { $0.check == .seen }
      findings += found
      plan.append((d, files))
    }
    let verdict = GoldenGate.verdict(findings, force: force)
    outcome.warnings = verdict.warned.flatMap(\.lines)
    outcome.refused += verdict.refused.flatMap(\.lines)
    codes += verdict.refused.map(\.exitCode)
    if !verdict.refused.isEmpty {
      outcome.closing = GoldenGate.closing(verdict, nothing: "nothing decided", override: "pass --force to apply anyway")
    }
    outcome.exitCode = codes.max()
    guard outcome.exitCode == nil else { return outcome }
    for (d, files) in plan {
      for p in files {
        if d.accept { try store.accept(p) } else { try store.reject(p) }
        outcome.applied.append((d.accept ? "accepted" : "rejected", p))
      }
    }
    return outcome
  }
}
