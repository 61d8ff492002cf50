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

  /// A timeline's series and golden series as the page writes them (thinned by ``strides``).
  package static func seriesValues(_ t: HTMLReportTimeline) -> (series: JSONValue, golden: JSONValue) {
    let s = t.series
    let sides = t.goldenSeries == nil ? 1 : 2
    let st = strides(evals: s.evalT.count * sides, cues: s.cues.count, frames: s.landmarkT.count, durationMs: t.durationMs)
    return (series(s, strides: st), t.goldenSeries.map { series($0, strides: (st.eval, 0)) } ?? .null)
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

  /// The series `s` thinned by `strides` (landmark stride 0: no landmarks).
  static func series(_ s: HTMLReportSeries, strides: (eval: Int, landmark: Int)) -> JSONValue {
    let (es, ls) = strides
    let ei = Array(stride(from: 0, to: s.evalT.count, by: es))
    let li = ls > 0 ? Array(stride(from: 0, to: s.landmarkT.count, by: ls)) : []
    var gateCues: [String] = []
    var shown = Bytes()
    for i in ei {
      guard let c = s.gateShown[i] else {
        shown.u8(0)
        continue
      }
      if !gateCues.contains(c) && gateCues.count < 254 { gateCues.append(c) }
      shown.u8((gateCues.firstIndex(of: c) ?? 253) + 1)
    }
    var t = Bytes()
    for i in ei { t.i32(s.evalT[i]) }
    var stable = Bytes()
    var persist = Bytes()
    var held = Bytes()
    var cooling = Bytes()
    for i in ei {
      stable.u8(min(s.gateStable[i], 255))
      persist.u8(min(i < s.gatePersist.count ? s.gatePersist[i] : s.persistFrames, 255))
      held.u16(Int(min(max(s.gateHeldMs[i], 0), 65_535)))
      cooling.u8(s.gateCooling[i] ? 1 : 0)
    }
    var states: [String] = []
    let metrics: [JSONValue] = s.cues.indices.map { c in
      var v = Bytes()
      var lv = Bytes()
      var sv = Bytes()
      for i in ei {
        v.f32(s.values[c][i])
        lv.u8(levelCode(s.levels[c][i]))
        let state = c < s.states.count && i < s.states[c].count ? s.states[c][i] : ""
        if !states.contains(state) && states.count < 255 { states.append(state) }
        sv.u8(states.firstIndex(of: state) ?? 0)
      }
      return .object([
        "cue": .string(HTMLText.shown(s.cues[c])), "value": .string(v.base64), "level": .string(lv.base64),
        "state": .string(sv.base64),
        "thresholds": s.thresholds[c].map(thresholds) ?? .null,
      ])
    }
    var lt = Bytes()
    var xy = Bytes()
    for i in li {
      lt.i32(s.landmarkT[i])
      for p in s.landmarks[i] {
        xy.u8(p.map { quantize($0.x) } ?? 255)
        xy.u8(p.map { quantize($0.y) } ?? 255)
      }
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
    mutating func u8(_ v: Int) { data.append(UInt8(truncatingIfNeeded: v)) }
    mutating func u16(_ v: Int) {
      data.append(UInt8(truncatingIfNeeded: v))
      data.append(UInt8(truncatingIfNeeded: v >> 8))
    }
    mutating func i32(_ v: Int64) {
      let x = UInt32(bitPattern: Int32(clamping: v))
      for k in 0..<4 { data.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) }
    }
    mutating func f32(_ v: Double?) {
      let x = Float(v ?? .nan).bitPattern
      for k in 0..<4 { data.append(UInt8(truncatingIfNeeded: x >> (8 * UInt32(k)))) }
    }
    var base64: String { Data(data).base64EncodedString() }
  }
}
