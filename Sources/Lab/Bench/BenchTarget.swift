import Foundation

/// One figure of `jpreplay bench` against its target (docs/PERFORMANCE.md lists them): what was
/// measured, the bound, and whether it was met. `bench` prints every target with a mark, and
/// `bench --require` exits 1 when one is missed.
package struct BenchTarget: Sendable, Equatable {
  /// Whether the figure must be at least (`atLeast`) or at most (`atMost`) the bound.
  package enum Direction: String, Sendable { case atLeast = "≥", atMost = "≤" }

  /// The figure's name as printed and in JSON (`replay_cpu_fps`).
  package var figure: String
  /// The measured value.
  package var measured: Double
  /// The bound.
  package var bound: Double
  package var direction: Direction
  /// The unit printed after the numbers (`frames/s`, `×`, `MiB`).
  package var unit: String

  package init(_ figure: String, measured: Double, _ direction: Direction, _ bound: Double, unit: String) {
    self.figure = figure
    self.measured = measured
    self.direction = direction
    self.bound = bound
    self.unit = unit
  }

  /// True when the measured value is on the right side of the bound (a NaN never is).
  package var met: Bool {
    guard measured.isFinite else { return false }
    return direction == .atLeast ? measured >= bound : measured <= bound
  }

  /// `  ok      replay_cpu_fps   612,345 frames/s  (target ≥ 600,000)` or `  MISSED  …`.
  package var line: String {
    let mark = met ? "ok    " : "MISSED"
    let name = figure.padding(toLength: 22, withPad: " ", startingAt: 0)
    return "  \(mark)  \(name) \(Self.number(measured)) \(unit)  (target \(direction.rawValue) \(Self.number(bound)))"
  }

  /// `{"figure":…,"measured":…,"target":…,"direction":"≥"|"≤","met":…}`.
  package var json: String {
    "{\"figure\":\"\(figure)\",\"measured\":\(Self.jsonNumber(measured)),\"direction\":\"\(direction == .atLeast ? ">=" : "<=")\",\"target\":\(Self.jsonNumber(bound)),\"met\":\(met)}"
  }

  /// The targets as printed: a heading, one line each, and a summary naming the misses.
  package static func render(_ targets: [BenchTarget]) -> String {
    let missed = targets.filter { !$0.met }.map(\.figure)
    let summary =
      missed.isEmpty
      ? "all \(targets.count) targets met"
      : "\(missed.count) of \(targets.count) targets MISSED: \(missed.joined(separator: ", "))"
    return "targets:\n" + targets.map { $0.line + "\n" }.joined() + "  \(summary)\n"
  }

  /// The JSON array of `targets`.
  package static func json(_ targets: [BenchTarget]) -> String {
    "[" + targets.map(\.json).joined(separator: ",") + "]"
  }

  /// A number with thousands separators and at most 3 decimals (`1,234,567`, `0.343`, `21.7`).
  package static func number(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    if abs(v) >= 1000 {
      let digits = String(Int64(v.rounded()))
      var out = ""
      for (i, c) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0, c != "-" { out.append(",") }
        out.append(c)
      }
      return String(out.reversed())
    }
    if abs(v) >= 10 { return String(format: "%.1f", v) }
    return String(format: "%.3f", v)
  }

  static func jsonNumber(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "null" }
}

extension Bench.Report {
  /// The replay bench's targets (issue 38; docs/PERFORMANCE.md): decode against JSONDecoder and
  /// in CPU time, replay against the JSONL baseline and per CPU-second (400k with luma frames,
  /// whose metrics cost more; 600k without), and the size against JSONL+zstd -3.
  package var targets: [BenchTarget] {
    [
      BenchTarget("decode_ratio", measured: decodeRatio, .atLeast, 50, unit: "× JSONDecoder"),
      BenchTarget("decode_cpu_fps", measured: decodeCPUFPS, .atLeast, 2_000_000, unit: "frames/s"),
      BenchTarget("replay_ratio", measured: replayRatio, .atLeast, 20, unit: "× JSONL baseline"),
      BenchTarget(
        "replay_cpu_fps", measured: replayCPUFPS, .atLeast, lumaFrames > 0 ? 400_000 : 600_000, unit: "frames/s"),
      BenchTarget("size_ratio", measured: sizeRatio, .atMost, 0.30, unit: "of JSONL+zstd -3"),
    ]
  }
}

extension TuneBench.Report {
  /// The tuning bench's targets: 1,000 trials in at most 45 s (22.2 trials/s) and a peak RSS
  /// under 400 MB.
  package var targets: [BenchTarget] {
    [
      BenchTarget("trials_per_second", measured: trialsPerSecond, .atLeast, 1000.0 / 45.0, unit: "trials/s"),
      BenchTarget("peak_rss_mib", measured: Double(peakRSSBytes) / 1_048_576, .atMost, 400, unit: "MiB"),
    ]
  }
}
