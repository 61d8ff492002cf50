import CanonicalJSON
import EngineIO
import Foundation
import PoseSpec

/// The report document as the page's JSON data. Markers and rows are plain JSON; the dense
/// series are little-endian typed arrays in base64 (`i32`, `f32`, `u16`, `u8`), thinned by a
/// stride when they would exceed the recording's byte budget
/// (`HTMLReportLimits.seriesBytesPerTenMinutes`).
package enum HTMLReportEncoder {
  /// The page's data block. `lazy`: each timeline names the data block of its series
  /// (``seriesBlockID(_:)``, written by ``seriesBlock(_:)``) instead of carrying them.
  package static func json(_ doc: HTMLReportDocument, lazy: Bool = false) -> JSONValue {
    let s = HTMLText.shown
    var o: JSONObject = ["kind": .string(doc.kind), "title": .string(s(doc.title))]
    o["counts"] = .array(doc.counts.map { .array([.string($0.name), .number(Double($0.count))]) })
    o["rows"] = .array(doc.rows.map(row))
    o["rowsOmitted"] = .number(Double(doc.rowsOmitted))
    o["timelines"] = .array(doc.timelines.indices.map { timeline(doc.timelines[$0], block: lazy ? seriesBlockID($0) : nil) })
    o["withoutTimeline"] = .array(doc.withoutTimeline.map { .array([.string(s($0.name)), .string(s($0.why))]) })
    return .object(o)
  }

  static func row(_ r: HTMLReportRow) -> JSONValue {
    let s = HTMLText.shown
    var o: JSONObject = [
      "rec": .string(s(r.recording)), "file": .string(r.file), "t": .number(Double(r.t)), "cue": .string(s(r.cue)),
      "kind": .string(r.kind), "detail": .string(s(r.detail)), "explanation": .string(s(r.explanation)),
    ]
    o["delta"] = r.deltaMs.map { .number(Double($0)) } ?? .null
    o["cause"] = .array(r.cause.map { .string(s($0)) })
    return .object(o)
  }

  static func lanes(_ l: HTMLReportLanes) -> JSONValue {
    let s = HTMLText.shown
    func marks(_ m: [(t: Millis, text: String)]) -> JSONValue {
      .array(m.map { .array([.number(Double($0.t)), .string(s($0.text))]) })
    }
    var o: JSONObject = [
      "displays": .array(l.displays.map { .array([.number(Double($0.t)), $0.cue.map { .string(s($0)) } ?? .null, .string(s($0.level))]) }),
      "cards": marks(l.cards), "praise": marks(l.praise), "prompts": marks(l.prompts),
    ]
    // Another engine's marks: [t, lane, title] (absent for Just Photo, whose page data stays as it was).
    if !l.marks.isEmpty {
      o["marks"] = .array(l.marks.map { .array([.number(Double($0.t)), .number(Double($0.lane)), .string(s($0.text))]) })
    }
    return .object(o)
  }

  /// The id of the data block of timeline `index`'s series on a lazy page.
  package static func seriesBlockID(_ index: Int) -> String { "jp-series-\(index)" }

  /// The data block of a timeline's series on a lazy page: `{"series": …, "goldenSeries": …}`.
  package static func seriesBlock(_ t: HTMLReportTimeline) -> JSONValue {
    let (series, golden) = t.packedSeries ?? seriesValues(t)
    return .object(["series": series, "goldenSeries": golden])
  }

  /// The characters the series of `doc` take in the page (strings and numbers as written,
  /// without the punctuation): what decides a lazy page (``HTMLReportLimits/lazySeriesCharacters``).
  package static func seriesCharacters(_ doc: HTMLReportDocument) -> Int {
    doc.timelines.reduce(0) { n, t in
      let (series, golden) = t.packedSeries ?? seriesValues(t)
      return n + characters(series) + characters(golden)
    }
  }

  static func characters(_ v: JSONValue) -> Int {
    switch v {
    case .string(let s): s.utf8.count
    case .array(let a): a.reduce(0) { $0 + characters($1) }
    case .object(let o): o.members.reduce(0) { $0 + $1.key.utf8.count + characters($1.value) }
    default: 8
    }
  }

  /// A timeline's series and golden series as the page writes them (thinned by ``strides``):
  /// from the columns the builder collected, else from the raw series.
  package static func seriesValues(_ t: HTMLReportTimeline) -> (series: JSONValue, golden: JSONValue) {
    let s = t.columns ?? HTMLReportColumns(t.series)
    let golden = t.columns != nil ? t.goldenColumns : t.goldenSeries.map(HTMLReportColumns.init)
    let sides = golden == nil ? 1 : 2
    let st = strides(evals: s.evaluations * sides, cues: s.cues.count, frames: s.frames, durationMs: t.durationMs)
    return (series(s, strides: st), golden.map { series($0, strides: (st.eval, 0)) } ?? .null)
  }

  static func timeline(_ t: HTMLReportTimeline, block: String? = nil) -> JSONValue {
    var o: JSONObject = [
      "name": .string(HTMLText.shown(t.name)), "key": .string(t.name), "duration": .number(Double(t.durationMs)),
      "golden": lanes(t.golden), "new": lanes(t.new),
    ]
    o["pending"] = .object(JSONObject(t.pending.map { JSONMember($0.kind, .string($0.sha256)) }))
    if !t.laneNames.isEmpty {
      o["engine"] = .string(HTMLText.shown(t.engine))
      o["lanes"] = .array(t.laneNames.map { .string(HTMLText.shown($0)) })
    }
    if let block {
      o["seriesBlock"] = .string(block)
    } else {
      let (series, golden) = t.packedSeries ?? seriesValues(t)
      o["series"] = series
      o["goldenSeries"] = golden
    }
    o["goldenNote"] = .string(HTMLText.shown(t.goldenNote))
    return .object(o)
  }

  /// The strides (evaluations, landmark frames) that keep the series within the budget of a
  /// recording of `durationMs`: landmarks are thinned first (up to every 4th frame), then both.
  static func strides(evals: Int, cues: Int, frames: Int, durationMs: Millis) -> (eval: Int, landmark: Int) {
    let budget = max(
      HTMLReportLimits.seriesBytesFloor,
      Int(Double(HTMLReportLimits.seriesBytesPerTenMinutes) * Double(max(0, durationMs)) / 600_000))
    let raw = budget * 3 / 4  // base64 makes 4 characters of 3 bytes
    let evalBytes = evals * (4 + 6 * cues + 6)  // t; value, level, state per cue; gate shown, stable, persist, held (2), cooling
    let frameBytes = frames * (4 + 2 * Joint.allCases.count)
    var e = 1
    var l = 1
    while evalBytes / e + frameBytes / l > raw && (e < evals || l < frames) {
      if l < 4 || frameBytes / l > evalBytes / e { l += 1 } else { e += 1 }
    }
    return (e, l)
  }

  /// The series `s` thinned by `strides` (landmark stride 0: no landmarks). The names of the
  /// shown cues and of the states are numbered as the kept evaluations first show them (at
  /// most 254 and 255; a later one shows as the last code and the first state).
  static func series(_ s: HTMLReportColumns, strides: (eval: Int, landmark: Int)) -> JSONValue {
    let (es, ls) = strides
    let ei = stride(from: 0, to: s.evaluations, by: es)
    let li = ls > 0 ? stride(from: 0, to: s.frames, by: ls) : stride(from: 0, to: 0, by: 1)
    let kept = (s.evaluations + es - 1) / es
    let keptFrames = ls > 0 ? (s.frames + ls - 1) / ls : 0
    var gateCues: [String] = []
    var gateCode: [UInt16: Int] = [:]
    var shown = Bytes(capacity: kept)
    for i in ei {
      let g = s.gateShown[i]
      guard g != 0 else {
        shown.u8(0)
        continue
      }
      if let code = gateCode[g] {
        shown.u8(code)
        continue
      }
      let c = s.names[Int(g) - 1]
      if !gateCues.contains(c) && gateCues.count < 254 { gateCues.append(c) }
      let code = (gateCues.firstIndex(of: c) ?? 253) + 1
      gateCode[g] = code
      shown.u8(code)
    }
    var t = Bytes(capacity: 4 * kept)
    for i in ei { t.i32(s.evalT[i]) }
    var stable = Bytes(capacity: kept)
    var persist = Bytes(capacity: kept)
    var held = Bytes(capacity: 2 * kept)
    var cooling = Bytes(capacity: kept)
    for i in ei {
      stable.byte(s.gateStable[i])
      persist.byte(s.gatePersist[i])
      held.u16(Int(s.gateHeld[i]))
      cooling.byte(s.gateCooling[i])
    }
    var states: [String] = []
    var stateCode: [UInt16: Int] = [:]
    let metrics: [JSONValue] = s.cues.indices.map { c in
      var v = Bytes(capacity: 4 * kept)
      var lv = Bytes(capacity: kept)
      var sv = Bytes(capacity: kept)
      for i in ei {
        v.u32(s.values[c][i])
        lv.byte(s.levels[c][i])
        let k = s.states[c][i]
        if let code = stateCode[k] {
          sv.u8(code)
          continue
        }
        let state = s.names[Int(k)]
        if !states.contains(state) && states.count < 255 { states.append(state) }
        let code = states.firstIndex(of: state) ?? 0
        stateCode[k] = code
        sv.u8(code)
      }
      return .object([
        "cue": .string(HTMLText.shown(s.cues[c])), "value": .string(v.base64), "level": .string(lv.base64),
        "state": .string(sv.base64),
        "thresholds": s.thresholds[c].map(thresholds) ?? .null,
      ])
    }
    var lt = Bytes(capacity: 4 * keptFrames)
    var xy = Bytes(capacity: HTMLReportColumns.landmarkBytes * keptFrames)
    let n = HTMLReportColumns.landmarkBytes
    for i in li {
      lt.i32(s.landmarkT[i])
      xy.data.append(contentsOf: s.landmarks[(i * n)..<((i + 1) * n)])
    }
    return .object([
      "evalStride": .number(Double(es)), "landmarkStride": .number(Double(ls)), "t": .string(t.base64),
      "metrics": .array(metrics), "gateCues": .array(gateCues.map { .string(HTMLText.shown($0)) }),
      "states": .array(states.map { .string(HTMLText.shown($0)) }), "gatePersist": .string(persist.base64),
      "gateShown": .string(shown.base64), "gateStable": .string(stable.base64), "gateHeld": .string(held.base64),
      "gateCooling": .string(cooling.base64), "persist": .number(Double(s.persistFrames)),
      "minHold": .number(Double(s.minHoldMs)), "landmarkT": .string(lt.base64), "landmarks": .string(xy.base64),
    ])
  }

  /// Codes of `CueLevel` in the page: none 0, enter 1, warn 2, hard 3, exit 4.
  static func levelCode(_ l: CueLevel) -> Int {
    switch l {
    case .none: 0
    case .enter: 1
    case .warn: 2
    case .hard: 3
    case .exit: 4
    }
  }

  /// A normalized coordinate in [-0.25, 1.25] (a joint a little outside the frame still
  /// drawn) as 0…250; 255 is "absent".
  /// (Typed step by step: as one expression of literals it took the type checker 0.67 s.)
  static func quantize(_ v: Double) -> Int {
    let clamped: Double = min(max(v, -0.25), 1.25)
    let scaled: Double = (clamped + 0.25) / 1.5 * 250
    return Int(scaled.rounded())
  }

  static func thresholds(_ th: ThresholdSet) -> JSONValue {
    func list(_ ts: [Threshold]) -> JSONValue {
      .array(ts.map { .array([.string($0.op.rawValue), .number($0.a), $0.b.map { .number($0) } ?? .null]) })
    }
    return .object(["warn": list(th.warn), "hard": list(th.hard), "enter": list(th.enter), "exit": list(th.exit)])
  }

  /// Little-endian bytes of a typed array.
  struct Bytes {
    var data: [UInt8] = []
    init(capacity: Int = 0) { data.reserveCapacity(capacity) }
    mutating func byte(_ v: UInt8) { data.append(v) }
    mutating func u8(_ v: Int) { data.append(UInt8(truncatingIfNeeded: v)) }
    mutating func u16(_ v: Int) {
      data.append(UInt8(truncatingIfNeeded: v))
      data.append(UInt8(truncatingIfNeeded: v >> 8))
    }
    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    mutating func u32(_ x: UInt32) {
      for k in 0..<4 { data.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) }
    }
    /// The base64 text, read in place (no copy of the bytes: a long recording's landmarks are
    /// megabytes).
    var base64: String {
      data.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return "" }
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none).base64EncodedString()
      }
    }
  }
}
