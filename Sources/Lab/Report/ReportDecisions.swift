import CanonicalJSON
import Foundation
import Recording
import Verify

/// One decision exported from an HTML report: accept or reject a recording's pending goldens,
/// optionally pinned to the SHA-256 of each `.new` file the report saw.
public struct ReportDecision: Equatable, Sendable {
  public var recording: String
  public var accept: Bool
  /// `trace` / `a13` → SHA-256 of the pending file when the report was written (may be empty).
  public var pending: [String: String]
  public init(recording: String, accept: Bool, pending: [String: String] = [:]) {
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
/// accepted file's recording exists), plus: names are exact (never globs), each at most once,
/// and a pending file whose bytes changed since the report (its SHA-256 differs) — or that
/// the report did not see — is refused. Every decision is checked before any file moves: one
/// refusal applies nothing.
public enum ReportDecisions {
  public static let format = "jpreplay-decisions"
  /// Bytes of a decisions file read at most.
  public static let fileBytesMax = 4 << 20
  /// Decisions in one file.
  public static let decisionsMax = 10_000

  public static func read(_ path: String) throws(HarnessFailure) -> [ReportDecision] {
    do { try InputFile.checkRegular(path, what: "decisions file") } catch { throw .badInput(error.description) }
    guard let h = FileHandle(forReadingAtPath: path) else { throw .badInput("\(path): cannot read the decisions file") }
    defer { try? h.close() }
    let data = h.readData(ofLength: fileBytesMax + 1)
    guard data.count <= fileBytesMax else {
      throw .badInput("\(path): more than ReportDecisions.fileBytesMax = \(fileBytesMax) bytes")
    }
    return try parse(String(decoding: data, as: UTF8.self), file: path)
  }

  public static func parse(_ text: String, file: String) throws(HarnessFailure) -> [ReportDecision] {
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
  public struct Outcome: Equatable, Sendable {
    /// ("accepted" | "rejected", file), in decision order, trace before a13.
    public var applied: [(verb: String, file: PendingGolden)] = []
    /// One message per refused decision (nothing was applied when any).
    public var refused: [String] = []
    public static func == (a: Outcome, b: Outcome) -> Bool {
      a.refused == b.refused && a.applied.elementsEqual(b.applied) { $0.verb == $1.verb && $0.file == $1.file }
    }
  }

  /// Checks every decision against the store, then, when none is refused, applies them all.
  public static func apply(_ decisions: [ReportDecision], store: GoldenStore) throws -> Outcome {
    var outcome = Outcome()
    let pending = try store.pending()
    var plan: [(ReportDecision, [PendingGolden])] = []
    for d in decisions {
      let name = ConsoleText.line(Excerpt.short(d.recording))
      let files = pending.filter { $0.name == d.recording }
      if files.isEmpty {
        outcome.refused.append("nothing pending for \(name) (see `jpreplay verify`)")
        continue
      }
      var ok = true
      for p in files {
        if d.accept && !store.hasRecording(p.name) {
          outcome.refused.append(ConsoleText.line(store.refusal(p)))
          ok = false
          continue
        }
        guard !d.pending.isEmpty else { continue }
        guard let expected = d.pending[p.kind.rawValue] else {
          outcome.refused.append("Golden/\(ConsoleText.line(p.description)): not in the report the decision was made on; verify again and decide anew")
          ok = false
          continue
        }
        let now = FileManager.default.contents(atPath: store.pendingURL(p.name, p.kind).path).map { SHA256.hex([UInt8]($0)) }
        if now != expected {
          outcome.refused.append("Golden/\(ConsoleText.line(p.description)): changed since the report (SHA-256 \(now?.prefix(12) ?? "none")… ≠ \(expected.prefix(12))…); verify again and decide anew")
          ok = false
        }
      }
      if ok { plan.append((d, files)) }
    }
    guard outcome.refused.isEmpty else { return outcome }
    for (d, files) in plan {
      for p in files {
        if d.accept { try store.accept(p) } else { try store.reject(p) }
        outcome.applied.append((d.accept ? "accepted" : "rejected", p))
      }
    }
    return outcome
  }
}
