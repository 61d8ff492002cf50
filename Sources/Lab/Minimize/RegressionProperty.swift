import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoPlugin
import Replay
import Verify

/// `minimize --against`: the property "two engines' replays differ in the same way", so the
/// minimized recording is a regression repro by construction — the reference engine's
/// replay of it is its golden, and the tested engine's replay departs from that golden
/// exactly as it did on the original recording.
package enum RegressionProperty {
  /// An engine's canonical products for one candidate.
  package struct Products: Sendable, Equatable {
    package var trace: String
    package var a13: String
    package init(trace: String, a13: String) {
      self.trace = trace
      self.a13 = a13
    }
  }

  /// One engine: a name for messages and headers, and a run (nil when the engine refuses the
  /// candidate, e.g. an effect left without its result).
  package struct Side {
    package var label: String
    package var run: (Minimizer.Candidate) throws -> Products?
    package init(label: String, run: @escaping (Minimizer.Candidate) throws -> Products?) {
      self.label = label
      self.run = run
    }
  }

  /// Where two products first differ: in the trace, else in the A.13 lines; nil when equal.
  package struct Difference: Sendable, Equatable {
    /// "trace" or "a13".
    package var file: String
    package var divergence: Divergence

    /// What makes two differences "the same": the file, the kind, and both records as written
    /// (times included).
    package func sameAs(_ other: Difference) -> Bool {
      file == other.file && divergence.kind == other.divergence.kind
        && divergence.golden?.text == other.divergence.golden?.text && divergence.replay?.text == other.divergence.replay?.text
    }
  }

  package static func difference(reference: Products, tested: Products) -> Difference? {
    let differ = TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading))
    if let d = (try? differ.diffTraceFiles(golden: reference.trace, replay: tested.trace))?.divergence {
      return Difference(file: "trace", divergence: d)
    }
    if let d = (try? differ.diffA13(golden: reference.a13, replay: tested.a13))?.divergence {
      return Difference(file: "a13", divergence: d)
    }
    return nil
  }

  /// The property for `original`: both engines run, and their first difference is the one
  /// they show on `original` (same file, kind and records).
  package static func make(original: Minimizer.Candidate, reference: Side, tested: Side) throws
    -> (first: Difference, property: (Minimizer.Candidate) throws -> Bool)
  {
    guard let a = try reference.run(original) else { throw MinimizeError.engineRefuses(reference.label) }
    guard let b = try tested.run(original) else { throw MinimizeError.engineRefuses(tested.label) }
    guard let first = difference(reference: a, tested: b) else {
      throw MinimizeError.enginesAgree(reference.label, tested.label)
    }
    return (
      first,
      { c in
        guard let (a, b) = try both(reference, tested, c), let d = difference(reference: a, tested: b) else { return false }
        return d.sameAs(first)
      }
    )
  }

  /// Both engines' products for `c`, the reference's computed on a second thread (two
  /// external replays take the time of one); nil when either refuses it.
  static func both(_ reference: Side, _ tested: Side, _ c: Minimizer.Candidate) throws -> (Products, Products)? {
    nonisolated(unsafe) var other: Result<Products?, any Error> = .success(nil)
    nonisolated(unsafe) let run = reference.run
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      other = Result { try run(c) }
      done.signal()
    }
    thread.start()
    let mine = Result { try tested.run(c) }
    done.wait()
    guard let a = try other.get(), let b = try mine.get() else { return nil }
    return (a, b)
  }

  /// The in-process engine of `driver`, on the header the written recording will have.
  package static func inProcess(_ driver: ReplayDriver<Engine>, label: String, name: String) -> Side {
    Side(label: label) { c in
      var source = InMemoryEventSource(header: MinimizeFiles.writtenHeader(c.header, from: name), events: c.events)
      var out = CanonicalOutput(trace: MemoryLineSink(), a13: MemoryLineSink())
      guard (try? driver.replay(source: &source, into: &out, recording: "minimize candidate")) != nil else { return nil }
      return Products(trace: out.trace.text, a13: out.a13.text)
    }
  }

  /// Both engines' verdicts on the minimized recording, for its header (`regression`): where
  /// they differ, and what each shows there.
  package static func verdicts(_ d: Difference, reference: String, tested: String) -> JSONValue {
    let v = d.divergence
    let time = d.file == "a13" ? "ts_ms" : "t"
    func shows(_ l: StructuredLine?) -> String {
      l.map { "\(TraceDiffer(options: DiffOptions(reading: JustPhotoVocabulary.traceReading)).summary($0)) at \(time)=\($0.t)" } ?? "nothing at \(time)=\(v.t)"
    }
    return .object([
      "file": .string(d.file),
      "t": .number(Double(v.t)),
      "divergence": .string(v.explanation.replacingOccurrences(of: "golden", with: "reference").replacingOccurrences(of: "replay", with: "tested")),
      "reference": .object(["engine": .string(reference), "verdict": .string("expected (its replay is the golden)"), "shows": .string(shows(v.golden))]),
      "tested": .object(["engine": .string(tested), "verdict": .string("differs from the reference"), "shows": .string(shows(v.replay))]),
    ])
  }
}
