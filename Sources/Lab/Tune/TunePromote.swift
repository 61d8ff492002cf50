import CanonicalJSON
import Foundation
import JustPhotoPlugin
import PoseSpec

/// `tune promote`: a trial's values written into the PoseSpec text in place — only the tuned
/// literals change, so key order, indentation and every other byte stay as they were.
package enum TunePromote {
  package struct Edit: Sendable, Equatable {
    package var place: String
    package var old: String
    package var new: String
  }

  package struct Result: Sendable {
    package var text: String
    package var edits: [Edit]
    /// Engine options the trial set (not PoseSpec values: they go into `--set` or headers).
    package var options: [(name: String, value: String)]
  }

  /// Applies trial `trial` of the study described by `meta` to `specText` (the PoseSpec file
  /// `specFile`). Paths are resolved again against this text, so wildcards follow its cues.
  package static func apply(trial: TrialResult, meta: [String: String], specText: String, specFile: String)
    throws(HarnessFailure) -> Result
  {
    let bytes = Array(specText.utf8)
    let json: JSONValue
    do { json = try JSONParser.parse(bytes: bytes) } catch { throw .badInput("\(specFile): \(error)") }
    let space = try TuneSpace.parse(text: meta["space_text"] ?? "", file: meta["space_file"] ?? "space", spec: json)
    guard space.parameters.count == trial.values.count else {
      throw .badInput("trial \(trial.index) has \(trial.values.count) values, the space \(space.parameters.count) parameters")
    }
    let ranges = JSONTextScanner.scalarRanges(bytes)
    var replacements: [(range: Range<Int>, text: String)] = []
    var edits: [Edit] = []
    var options: [(name: String, value: String)] = []
    // A conditional parameter inactive in this trial is not applied (the spec keeps its value).
    for (p, v) in zip(space.parameters, trial.values) where v != .inactive {
      switch p.target {
      case .option(let name): options.append((name, v.description))
      case .spec(let places):
        for place in places {
          var steps = place.steps
          if let c = place.comparator { steps.append(.key(c)) }
          guard let r = ranges[JSONTextScanner.key(steps)] else { throw .badInput("\(specFile): \(place.display): no literal found") }
          let old = String(decoding: bytes[r], as: UTF8.self)
          let value = place.written(v)
          let new = literal(value, replacing: old)
          guard old != new, TuneValue(json: (try? JSONParser.parse(bytes: Array(old.utf8))) ?? .null) != value else { continue }
          replacements.append((r, new))
          edits.append(Edit(place: place.display + (place.comparator.map { " \($0)" } ?? ""), old: old, new: new))
        }
      }
    }
    var out = bytes
    for rep in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
      out.replaceSubrange(rep.range, with: Array(rep.text.utf8))
    }
    return Result(text: String(decoding: out, as: UTF8.self), edits: edits, options: options)
  }

  /// The JSON literal for `value`, in the style of `old` (`3000` stays integral, `0.5` → `1.0`).
  static func literal(_ value: TuneValue, replacing old: String) -> String {
    switch value {
    case .number(let d):
      let s = JSONWriter.shortest(d)
      let oldIsDecimal = old.contains(".") || old.contains("e") || old.contains("E")
      return oldIsDecimal && !s.contains(".") && !s.contains("e") ? s + ".0" : s
    case .bool(let b): return b ? "true" : "false"
    case .inactive: return old
    case .string(let s):
      var out = ""
      JSONWriter.appendString(s, to: &out)
      return out
    }
  }
}

/// Byte ranges of every scalar literal in a JSON text, by path (keys and array indices).
enum JSONTextScanner {
  static func key(_ steps: [SpecEdit.Step]) -> String {
    steps.map { step -> String in
      switch step {
      case .key(let k): "." + k
      case .index(let i): "#\(i)"
      case .id(let id): "@" + id
      }
    }.joined(separator: "\u{1}")
  }

  static func scalarRanges(_ b: [UInt8]) -> [String: Range<Int>] {
    var out: [String: Range<Int>] = [:]
    var i = 0
    value(b, &i, [], &out)
    return out
  }

  static func skipSpace(_ b: [UInt8], _ i: inout Int) {
    while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
  }

  static func value(_ b: [UInt8], _ i: inout Int, _ path: [SpecEdit.Step], _ out: inout [String: Range<Int>]) {
    skipSpace(b, &i)
    guard i < b.count else { return }
    switch b[i] {
    case UInt8(ascii: "{"):
      i += 1
      while true {
        skipSpace(b, &i)
        guard i < b.count, b[i] != UInt8(ascii: "}") else { break }
        if b[i] == UInt8(ascii: ",") { i += 1; continue }
        let start = i
        skipString(b, &i)
        let name = (try? JSONParser.parse(bytes: Array(b[start..<i])))?.stringValue ?? ""
        skipSpace(b, &i)
        if i < b.count, b[i] == UInt8(ascii: ":") { i += 1 }
        value(b, &i, path + [.key(name)], &out)
      }
      i += 1
    case UInt8(ascii: "["):
      i += 1
      var n = 0
      while true {
        skipSpace(b, &i)
        guard i < b.count, b[i] != UInt8(ascii: "]") else { break }
        if b[i] == UInt8(ascii: ",") { i += 1; continue }
        value(b, &i, path + [.index(n)], &out)
        n += 1
      }
      i += 1
    case UInt8(ascii: "\""):
      let start = i
      skipString(b, &i)
      out[key(path)] = start..<i
    default:
      let start = i
      while i < b.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09].contains(b[i]) { i += 1 }
      out[key(path)] = start..<i
    }
  }

  static func skipString(_ b: [UInt8], _ i: inout Int) {
    guard i < b.count, b[i] == UInt8(ascii: "\"") else { return }
    i += 1
    while i < b.count, b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
    i += 1
  }
}
