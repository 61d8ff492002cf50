@testable import Lab
import Testing

/// `jpreplay bench` compares every figure with its target and marks misses (issue 38 item 6).
@Suite("bench targets")
struct BenchTargetTests {
  @Test("at-least and at-most bounds, the bound itself met, NaN never met")
  func met() {
    #expect(BenchTarget("a", measured: 600_000, .atLeast, 600_000, unit: "frames/s").met)
    #expect(!BenchTarget("a", measured: 599_999, .atLeast, 600_000, unit: "frames/s").met)
    #expect(BenchTarget("s", measured: 0.3, .atMost, 0.3, unit: "").met)
    #expect(!BenchTarget("s", measured: 0.343, .atMost, 0.3, unit: "").met)
    #expect(!BenchTarget("s", measured: .nan, .atMost, 0.3, unit: "").met)
    #expect(!BenchTarget("a", measured: .infinity, .atLeast, 1, unit: "").met)
  }

  @Test("the rendering marks each figure and names the misses; JSON carries the same")
  func rendering() {
    let targets = [
      BenchTarget("replay_cpu_fps", measured: 612_345, .atLeast, 600_000, unit: "frames/s"),
      BenchTarget("size_ratio", measured: 0.343, .atMost, 0.30, unit: "of JSONL+zstd -3"),
    ]
    let text = BenchTarget.render(targets)
    #expect(text.contains("ok      replay_cpu_fps         612,345 frames/s  (target ≥ 600,000)"), "\(text)")
    #expect(text.contains("MISSED  size_ratio             0.343 of JSONL+zstd -3  (target ≤ 0.300)"), "\(text)")
    #expect(text.hasSuffix("1 of 2 targets MISSED: size_ratio\n"), "\(text)")
    #expect(BenchTarget.render([targets[0]]).hasSuffix("all 1 targets met\n"))
    #expect(
      BenchTarget.json(targets)
        == #"[{"figure":"replay_cpu_fps","measured":612345.000,"direction":">=","target":600000.000,"met":true},{"figure":"size_ratio","measured":0.343,"direction":"<=","target":0.300,"met":false}]"#
    )
  }

  @Test("the replay bench's targets: luma recordings get the lower replay bound")
  func replayTargets() {
    var r = Bench.Report(
      recording: "x", frames: 10, events: 10, decodeFPS: 1, replayFPS: 1, decodeCPUFPS: 1, replayCPUFPS: 450_000,
      baselineDecodeFPS: 1, baselineReplayFPS: 1, jprecBytes: 1, jsonlBytes: 1, jsonlZstdBytes: 1, peakRSSBytes: 1)
    #expect(r.targets.map(\.figure) == ["decode_ratio", "decode_cpu_fps", "replay_ratio", "replay_cpu_fps", "size_ratio"])
    #expect(r.targets.first { $0.figure == "replay_cpu_fps" }?.met == false)
    r.lumaFrames = 5
    #expect(r.targets.first { $0.figure == "replay_cpu_fps" }?.met == true)
  }
}
