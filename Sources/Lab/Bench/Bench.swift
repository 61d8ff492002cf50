import CanonicalJSON
import JustPhotoEngine
import EngineIO
import Foundation
import JustPhotoIO
import JustPhotoPlugin
import Recording
import Replay
import JustPhotoScenarios

/// `jpreplay bench`: decode and replay speed, against a Foundation `JSONDecoder` baseline, and
/// size against JSONL+zstd -3 — all measured in one run on the same frames (DESIGN §7).
package enum Bench {
  package struct Report: Sendable {
    package var recording: String
    package var frames: Int
    /// Luma frames among the events (their metrics cost more: the replay target is lower).
    package var lumaFrames: Int = 0
    package var events: Int
    package var decodeFPS: Double
    package var replayFPS: Double
    /// The same two figures against CPU time: the thread's for decoding, the whole process's
    /// for replaying (it decodes on a second thread): what the code costs, also on a machine
    /// other processes keep busy (where wall-clock figures measure the queue).
    package var decodeCPUFPS: Double
    package var replayCPUFPS: Double
    package var baselineDecodeFPS: Double
    package var baselineReplayFPS: Double
    package var jprecBytes: Int64
    package var jsonlBytes: Int64
    package var jsonlZstdBytes: Int64
    package var peakRSSBytes: Int64

    package var decodeRatio: Double { decodeFPS / baselineDecodeFPS }
    package var replayRatio: Double { replayFPS / baselineReplayFPS }
    package var sizeRatio: Double { Double(jprecBytes) / Double(jsonlZstdBytes) }

    package func render() -> String {
      func fps(_ v: Double) -> String { String(format: "%12.0f frames/s", v) }
      func mb(_ b: Int64) -> String { String(format: "%9.2f MiB", Double(b) / 1_048_576) }
      return """
        bench: \(recording) — \(frames) landmark frames (\(events) events)
          decode   .jprec                 \(fps(decodeFPS))
          decode   .jprec (CPU time)      \(fps(decodeCPUFPS))
          decode   JSONL + JSONDecoder    \(fps(baselineDecodeFPS))
          replay   .jprec → engine        \(fps(replayFPS))
          replay   .jprec → engine (CPU)  \(fps(replayCPUFPS))
          replay   JSONDecoder → engine   \(fps(baselineReplayFPS))
          size     .jprec                 \(mb(jprecBytes))
          size     JSONL                  \(mb(jsonlBytes))
          size     JSONL + zstd -3        \(mb(jsonlZstdBytes))
          peak RSS                        \(mb(peakRSSBytes))

        """ + BenchTarget.render(targets)
    }

    package var json: String {
      func f(_ d: Double) -> String { String(format: "%.3f", d) }
      return "{\"recording\":\"\(recording)\",\"frames\":\(frames),\"decode_fps\":\(f(decodeFPS)),\"baseline_decode_fps\":\(f(baselineDecodeFPS)),\"replay_fps\":\(f(replayFPS)),\"decode_cpu_fps\":\(f(decodeCPUFPS)),\"replay_cpu_fps\":\(f(replayCPUFPS)),\"baseline_replay_fps\":\(f(baselineReplayFPS)),\"jprec_bytes\":\(jprecBytes),\"jsonl_bytes\":\(jsonlBytes),\"jsonl_zstd3_bytes\":\(jsonlZstdBytes),\"decode_ratio\":\(f(decodeRatio)),\"replay_ratio\":\(f(replayRatio)),\"size_ratio\":\(f(sizeRatio)),\"peak_rss_bytes\":\(peakRSSBytes),\"luma_frames\":\(lumaFrames),\"targets\":\(BenchTarget.json(targets))}"
    }
  }

  /// Generates the default bench recording: a `minutes`-long one-person session at `fps`.
  package static func generate(to path: String, minutes: Double, fps: Int, seed: UInt64, specSHA: String) throws(HarnessFailure) {
    let session = SyntheticSession(durationMs: Int64(minutes * 60_000), fps: fps, seed: seed)
    var header: JSONObject = [
      "format": "jp-replay/1", "name": "bench-synthetic",
      "wall_start_ms": .number(1_770_860_000_000), "posespec_sha256": .string(specSHA),
      "duration_ms": .number(Double(session.durationMs)),
      "initial": .object(["scene": "outdoor"]),
    ]
    for (k, v) in session.headerFields { header.members.append(JSONMember(k, .string(v))) }
    do {
      let rec = try Recorder(path: path, header: header, definitions: JustPhotoVocabulary.eventDefinitions)
      for e in session { try rec.append(e) }
      try rec.finish()
    } catch { throw .badInput(error.description) }
  }

  /// Measures `recording` (a .jprec). `progress` gets one line per phase.
  package static func run(
    recording: String, specPath: String?, minSeconds: Double = 0.6, progress: (String) -> Void
  ) throws(HarnessFailure) -> Report {
    let driver = try Harness.driver(specPath: specPath, overrides: [("strictEffects", "false")])
    let url = URL(fileURLWithPath: recording)
    let size = Int64((try? FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int) ?? 0)

    // The same events as JSONL text (what `cat` prints), and its zstd -3 size.
    progress("converting to JSONL for the baseline")
    var jsonl = [UInt8]()
    var frames = 0
    var lumaFrames = 0
    var events = 0
    do {
      let r = try RecordingReader(path: recording, definitions: JustPhotoVocabulary.eventDefinitions)
      jsonl.append(contentsOf: JSONLEventEncoder.headerLine(r.header).utf8)
      jsonl.append(0x0A)
      while let e = try r.next() {
        jsonl.append(contentsOf: JSONLEventEncoder.line(e).utf8)
        jsonl.append(0x0A)
        events += 1
        if case .landmarks = e.payload { frames += 1 }
        if case .luma = e.payload { lumaFrames += 1 }
      }
    } catch { throw .badInput(error.description) }
    guard frames > 0 else { throw .badInput("\(recording): no landmark frames to measure") }
    let zstdBytes = Int64(Zstd.compress(jsonl, level: 3).count)
    let jsonlData = Data(jsonl)
    jsonl = []

    progress("decode .jprec")
    let decode = try measure(minSeconds, cpu: threadCPUSeconds) { () throws(HarnessFailure) in try decodeJprec(recording) }
    progress("decode JSONL with JSONDecoder")
    let baseDecode = try measure(minSeconds, cpu: threadCPUSeconds) { () throws(HarnessFailure) in
      try decodeBaseline(jsonlData)
    }
    progress("replay .jprec")
    let replay = try measure(minSeconds, cpu: processCPUSeconds) { () throws(HarnessFailure) in
      try replayJprec(driver, url)
      return frames
    }
    progress("replay JSONDecoder baseline")
    let baseReplay = try measure(minSeconds, cpu: processCPUSeconds) { () throws(HarnessFailure) in
      try replayBaseline(driver, jsonlData)
      return frames
    }
    return Report(
      recording: recording, frames: frames, lumaFrames: lumaFrames, events: events, decodeFPS: decode.wall, replayFPS: replay.wall,
      decodeCPUFPS: decode.cpu, replayCPUFPS: replay.cpu,
      baselineDecodeFPS: baseDecode.wall, baselineReplayFPS: baseReplay.wall, jprecBytes: size,
      jsonlBytes: Int64(jsonlData.count), jsonlZstdBytes: zstdBytes, peakRSSBytes: peakRSSBytes())
  }

  static func decodeJprec(_ path: String) throws(HarnessFailure) -> Int {
    do {
      let r = try RecordingReader(path: path, definitions: JustPhotoVocabulary.eventDefinitions)
      var n = 0
      while let e = try r.next() { if case .landmarks = e.payload { n += 1 } }
      return n
    } catch { throw .badInput(error.description) }
  }

  static func decodeBaseline(_ data: Data) throws(HarnessFailure) -> Int {
    var s = JSONDecoderSource(data: data)
    var n = 0
    do { while let e = try s.next() { if case .landmarks = e.payload { n += 1 } } } catch {
      throw .badInput(error.description)
    }
    return n
  }

  static func replayJprec(_ driver: ReplayDriver<Engine>, _ url: URL) throws(HarnessFailure) {
    var out = CanonicalOutput(trace: DiscardLineSink(), a13: DiscardLineSink())
    do { _ = try driver.replay(url, into: &out) } catch { throw HarnessFailure(code: error.exitCode.rawValue, message: error.description) }
  }

  static func replayBaseline(_ driver: ReplayDriver<Engine>, _ data: Data) throws(HarnessFailure) {
    var out = CanonicalOutput(trace: DiscardLineSink(), a13: DiscardLineSink())
    var s = JSONDecoderSource(data: data)
    do { _ = try driver.replay(source: &s, into: &out) } catch { throw HarnessFailure(code: error.exitCode.rawValue, message: error.description) }
  }

  /// Runs `body` (which processes some number of frames) until at least `minSeconds` have
  /// passed, at least twice, and returns the best frames/s of the runs, against wall-clock
  /// time and against `cpuSeconds`.
  static func measure(
    _ minSeconds: Double, cpu cpuSeconds: () -> Double, _ body: () throws(HarnessFailure) -> Int
  ) throws(HarnessFailure)
    -> (wall: Double, cpu: Double)
  {
    let clock = ContinuousClock()
    var best = 0.0
    var bestCPU = 0.0
    var total = 0.0
    var runs = 0
    while runs < 2 || (total < minSeconds && runs < 50) {
      let start = clock.now
      let cpuStart = cpuSeconds()
      let n = try body()
      let cpu = cpuSeconds() - cpuStart
      let d = clock.now - start
      let s = Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
      total += s
      runs += 1
      best = Swift.max(best, Double(n) / Swift.max(s, 1e-9))
      bestCPU = Swift.max(bestCPU, Double(n) / Swift.max(cpu, 1e-9))
    }
    return (best, bestCPU)
  }

  /// The process's peak resident set size in bytes (getrusage: KiB on Linux, bytes on macOS).
  package static func peakRSSBytes() -> Int64 {
    var usage = rusage()
    #if os(Linux)
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return Int64(usage.ru_maxrss) * 1024
    #else
      getrusage(RUSAGE_SELF, &usage)
      return Int64(usage.ru_maxrss)
    #endif
  }

  /// CPU time consumed by the calling thread, in seconds.
  static func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }

  /// CPU time consumed by the process (all its threads), in seconds.
  static func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }
}

/// The baseline's event source: JSONL lines decoded one at a time with `JSONDecoder`.
struct JSONDecoderSource: EventSource {
  let data: Data
  var header: JSONObject
  private var position: Data.Index
  private let decoder = JSONDecoder()

  init(data: Data) {
    self.data = data
    let end = data.firstIndex(of: 0x0A) ?? data.endIndex
    header = (try? JSONParser.parse(bytes: [UInt8](data[data.startIndex..<end])).objectValue) ?? JSONObject()
    position = end < data.endIndex ? data.index(after: end) : end
  }

  mutating func next() throws(RecordingError) -> InputEvent? {
    while position < data.endIndex {
      let end = data[position...].firstIndex(of: 0x0A) ?? data.endIndex
      let range = position..<end
      position = end < data.endIndex ? data.index(after: end) : end
      if range.isEmpty { continue }
      let line: JSONDecoderBaseline.Line
      do { line = try decoder.decode(JSONDecoderBaseline.Line.self, from: data[range]) } catch {
        throw RecordingError(file: "baseline", "\(error)")
      }
      guard EventKind(rawValue: line.kind) == .landmarks else { continue }
      return InputEvent(t: line.t, payload: .landmarks(JSONDecoderBaseline.convert(line)))
    }
    return nil
  }
}
