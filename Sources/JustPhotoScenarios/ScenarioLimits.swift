import ScenarioYAML
import Recording

/// The bounds of a scenario file (TigerBeetle style: every size, count, depth and duration a
/// scenario can ask for has a named limit, checked while parsing, before anything is
/// allocated or looped over). A scenario past one of them is a `ScenarioError` (exit 2) naming
/// the file, the line:column and the bound.
///
/// The bounds are generous for real use (the corpus' largest file is 14 KB, its longest
/// scenario 2 minutes) and small enough that any accepted scenario records in bounded memory
/// (the generator streams) and bounded time.
public enum ScenarioLimits {
  /// The largest scenario file, in bytes (read no further).
  public static let documentBytesMax = 1 << 20
  /// The deepest nesting of YAML mappings and lists (the parser recurses per level).
  public static let yamlDepthMax = 64
  /// The most YAML nodes (scalars, mappings, lists) in one file.
  public static let yamlNodesMax = 200_000
  /// The YAML reader's bounds and words for coaching scenario files (ScenarioYAML's guard).
  static let yamlRules = YAMLRules(
    depthMax: yamlDepthMax, nodesMax: yamlNodesMax, limitsName: "ScenarioLimits", fileNoun: "scenario files",
    expectedRoot: "a scenario mapping (name, duration_ms, …)")

  /// The longest recording a scenario may describe: 24 hours.
  public static let durationMsMax: Int64 = 24 * 60 * 60 * 1000
  /// The most landmark frames (duration × fps, duration / every_ms, or the `times` list): no
  /// more than a recording may hold events.
  public static let framesMax = Int64(RecordingLimits.eventsMax)
  /// The largest luma plane, w·h pixels (each side is also at most `lumaSideMax`).
  public static let lumaPixelsMax: Int64 = 1 << 20
  /// The longest luma plane side, in pixels.
  public static let lumaSideMax: Int64 = 4096
  /// The most luma pixels over the whole recording (planes × w·h): about 1 GiB of planes.
  public static let lumaPixelsTotalMax: Int64 = 1 << 30
  /// The most timeline entries (keyframes, ramps, oscillations, events).
  public static let timelineEntriesMax = 20_000
  /// The most oscillated parameters over all `oscillate` entries.
  public static let oscillationsMax = 1_000
  /// The most references (`ref_analysis` events).
  public static let referencesMax = 10_000
  /// The most faces one reference may list.
  public static let referenceFacesMax = 16
  /// The most people a subject may report.
  public static let peopleMax: Int64 = 100
  /// The largest magnitude of a subject parameter, joint coordinate or oscillation
  /// amplitude: keeps every computed coordinate finite.
  public static let subjectValueMagnitudeMax = 1_000_000.0
  /// The most events a scenario generates (frames, luma planes, timeline events, references
  /// and intent labels): what one recording may hold (`RecordingLimits.eventsMax`), so a
  /// scenario the parser accepts never fails at the recording's event bound after generating
  /// for minutes.
  public static let eventsMax = Int64(RecordingLimits.eventsMax)
  /// The highest frame rate, frames per second.
  public static let fpsMax: Int64 = 1000
  /// Cue ids in one timeline step's `intent` list.
  public static let intentCuesMax = 64
  /// Intervals in a `truth:` block.
  public static let truthIntervalsMax = 10_000
  /// Entries of a scenario's `expect:` block.
  public static let expectationsMax = 1_000
  /// A count in an `expect:` rule (`praise: {at_most: N}`).
  public static let expectationCountMax: Int64 = 1_000_000
  /// Fields in one rule's `with`, `has` or `lacks` (and items of a listed value).
  public static let expectationFieldsMax = 32
  /// Bytes of one text value in a rule's `with` (a card's or prompt's text).
  public static let expectationTextMax = 1_024
  /// Draws one rule's `known:` marker may name (draws 0 … `knownDrawsMax` − 1: the most
  /// `score --seeds` and a study draw, `SeedDraws.drawsMax`).
  public static let knownDrawsMax = 64
  /// Bytes of a `known:` marker's `why` (the finding id and the mechanism, one line).
  public static let knownWhyMax = 1_024
}

extension Int64 {
  /// `self · other`, or nil when it overflows.
  func timesChecked(_ other: Int64) -> Int64? {
    let (v, o) = multipliedReportingOverflow(by: other)
    return o ? nil : v
  }

  /// `self + other`, or nil when it overflows.
  func plusChecked(_ other: Int64) -> Int64? {
    let (v, o) = addingReportingOverflow(other)
    return o ? nil : v
  }
}

extension Scenario {
  /// The number of landmark frames, at most (overflow-safe; nil: past `Int64`).
  var frameCountBound: Int64? {
    switch frames {
    case .none: return 0
    case .times(let t): return Int64(t.count)
    case .every(let ms): return (durationMs / ms).plusChecked(1)
    case .fps:
      // round(k·1000/fps) ≤ duration ⇒ k ≤ (duration·fps + 500) / 1000.
      return durationMs.timesChecked(Int64(fps))?.plusChecked(500).map { $0 / 1000 + 1 }
    }
  }

  /// Refuses a scenario whose recording would pass `framesMax`, `lumaPixelsTotalMax` or
  /// `eventsMax`, at the key that sizes it, before anything is generated.
  func checkGeneratedSize(root: YNode, duration: YNode, fps: YNode?, frames: YNode?, luma: YNode?) throws(ScenarioError) {
    let framesAt = frames ?? fps ?? duration
    guard let n = frameCountBound, n <= ScenarioLimits.framesMax else {
      let how: String
      switch self.frames {
      case .every(let ms): how = "duration_ms \(durationMs) every \(ms) ms"
      default: how = "duration_ms \(durationMs) at \(self.fps) fps"
      }
      throw framesAt.error(
        "the recording would have \(frameCountBound.map(String.init) ?? "more than 2^63") frames (\(how)), more than the bound \(ScenarioLimits.framesMax) (ScenarioLimits.framesMax); shorten duration_ms or lower the frame rate")
    }
    var events = n
    if let every = lumaEvery {
      let planes = (n + Int64(every) - 1) / Int64(every)
      let pixels = planes.timesChecked(Int64(lumaW))?.timesChecked(Int64(lumaH))
      guard let pixels, pixels <= ScenarioLimits.lumaPixelsTotalMax else {
        throw (luma ?? root).error(
          "\(planes) luma planes of \(lumaW)×\(lumaH) are \(pixels.map(String.init) ?? "more than 2^63") pixels, more than the bound \(ScenarioLimits.lumaPixelsTotalMax) (ScenarioLimits.lumaPixelsTotalMax); raise every, lower w·h or shorten the scenario")
      }
      events += planes
    }
    for e in timeline { if case .event = e { events += 1 } }
    events += Int64(references.count)
    let labels = Int64(intent.labels()?.marks.count ?? 0)
    events += labels
    guard events <= ScenarioLimits.eventsMax else {
      let parts = labels > 0 ? " (\(labels) of them intent labels)" : ""
      throw framesAt.error(
        "the recording would have \(events) events\(parts), more than the bound \(ScenarioLimits.eventsMax) (ScenarioLimits.eventsMax); shorten duration_ms or lower the frame rate")
    }
  }
}
