import Foundation

/// The outcome of feeding a decoder many mutants of one input (see ``ByteMutator``).
///
/// Reaching the end of a run already proves no mutant crashed the process; the report lets a
/// test also check that mutants were both accepted and refused, that every refusal names the
/// file (the project's error standard), and that no mutant took long (a hang in waiting).
public struct MutationReport: Sendable {
  public var accepted = 0
  public var refused = 0
  /// The slowest mutant: its index and how long the decoder took.
  public var slowest: (index: Int, duration: Duration) = (-1, .zero)
  /// Refusals whose message does not start with the file name, as "mutant N: message".
  public var unnamed: [String] = []
  /// The mutants' byte sizes, smallest and largest (a check that the edits vary).
  public var sizes: ClosedRange<Int> = 0...0

  /// One line for a test's log.
  public var summary: String {
    "\(accepted) accepted, \(refused) refused, slowest #\(slowest.index) \(slowest.duration), sizes \(sizes)"
  }
}

public enum MutationRun {
  /// Decodes `count` mutants of `input` (seeded by `seed`) with `decode`, which throws on
  /// refusal. `file` is the name decode's errors must start with.
  public static func run(
    _ input: [UInt8], count: Int, seed: UInt64, file: String, decode: ([UInt8]) throws -> Void
  ) -> MutationReport {
    var mutator = ByteMutator(seed: seed)
    let mutants = (0..<count).map { _ in mutator.mutate(input) }
    return run(mutants, file: file, decode: decode)
  }

  /// Decodes the given inputs (e.g. minimised crash cases) and reports as ``run(_:count:seed:file:decode:)``.
  public static func run(_ inputs: [[UInt8]], file: String, decode: ([UInt8]) throws -> Void) -> MutationReport {
    var report = MutationReport()
    let clock = ContinuousClock()
    var lo = Int.max, hi = 0
    for (i, bytes) in inputs.enumerated() {
      lo = min(lo, bytes.count)
      hi = max(hi, bytes.count)
      let start = clock.now
      do {
        try decode(bytes)
        report.accepted += 1
      } catch {
        report.refused += 1
        let message = "\(error)"
        if !message.hasPrefix(file) { report.unnamed.append("mutant \(i): \(message)") }
      }
      let took = clock.now - start
      if took > report.slowest.duration { report.slowest = (i, took) }
    }
    report.sizes = inputs.isEmpty ? 0...0 : lo...hi
    return report
  }
}
