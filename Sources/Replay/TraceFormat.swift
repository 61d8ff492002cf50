import CanonicalJSON

/// The canonical trace line (DESIGN §4): one JSON object per output with `t` and `out` among
/// its keys, keys sorted at every level, numbers with fixed 6-decimal precision (-0 → 0),
/// "/" not escaped, no trailing spaces.
///
/// Text exists only at the golden boundary: ``line(_:)`` is the one writer, ``GoldenTrace/read(_:)``
/// the one reader. A replay's own records reach every check in memory (``ReplayProducts/records``),
/// as ``canonical(_:)`` shows them: the record its line reads back as.
public enum TraceFormat {
  /// The canonical line of `record` (without the newline).
  public static func line(_ record: TraceRecord) -> String {
    var bytes = JSONBytes(capacity: 256)
    append(record, to: &bytes)
    return bytes.text
  }

  /// Appends the canonical line of `record` (without the newline) to `bytes`: the writer
  /// behind ``line(_:)``, for a sink that keeps its lines as bytes (`FileLineSink`). The
  /// record's fields with `t` and `out` set, keys sorted at every level, numbers in 6-decimal
  /// form (`JSONWriter.write(_:sortKeys:numbers:)`'s text, byte for byte). The fields are
  /// written in key order through a temporary index (no copy of the record, no sorted array,
  /// no `String`), `out` and `t` merged in at their places.
  public static func append(_ record: TraceRecord, to bytes: inout JSONBytes) {
    let members = record.fields.members
    let written = layOut(record, members, into: &bytes) { slot, bytes in writeValue(slot, record, members, &bytes) }
    if written { return }
    // A field named `t` or `out`, or a key twice: the record's `t` and `out` replace them and
    // the members are sorted as `JSONWriter` sorts them.
    var object = record.fields
    object["t"] = .number(Double(record.t))
    object["out"] = .string(record.out)
    bytes.value(.object(object), sortKeys: true, numbers: .fixed6)
  }

  /// The one walk of a line's layout, for ``append(_:to:)`` and ``TraceLineShapes``: `{`, the
  /// members of `members` in key order with `out` and `t` merged in at their places, `}`;
  /// `value(slot, &bytes)` writes each value where it goes (slot −1: `t`; else the member's
  /// index). False, with nothing written, for a line with a field named `t` or `out` or a key
  /// twice (``append(_:to:)``'s slow path).
  @inline(__always)
  static func layOut(
    _ record: TraceRecord, _ members: [JSONMember], into bytes: inout JSONBytes, value: (Int, inout JSONBytes) -> Void
  ) -> Bool {
    guard !members.contains(where: { isReserved($0.key) }) else { return false }
    return JSONBytes.withKeyOrderAndPrefixes(members) { order, prefixes in
      guard let order else { return false }
      bytes.byte(0x7B)
      var next = 0  // 0: `out` not written yet, 1: `t` not written yet, 2: both written
      var first = true
      for i in order {
        let key = members[i].key
        if next == 0, JSONBytes.keyPrecedes("out", outPrefix, key, prefixes[i]) {
          writeOut(record, first: first, &bytes)
          first = false
          next = 1
        }
        if next == 1, JSONBytes.keyPrecedes("t", tPrefix, key, prefixes[i]) {
          bytes.raw(first ? "\"t\":" : ",\"t\":")
          value(-1, &bytes)
          next = 2
        }
        if !first { bytes.byte(0x2C) }
        first = false
        bytes.key(key)
        value(i, &bytes)
      }
      if next == 0 {
        writeOut(record, first: first, &bytes)
        first = false
      }
      if next < 2 {
        bytes.raw(first ? "\"t\":" : ",\"t\":")
        value(-1, &bytes)
      }
      bytes.byte(0x7D)
      return true
    }
  }

  /// The value of `slot` of ``layOut(_:_:into:value:)`` (−1: the record's `t`; else the
  /// member's value), as the canonical line writes it.
  @inline(__always)
  static func writeValue(_ slot: Int, _ record: TraceRecord, _ members: [JSONMember], _ bytes: inout JSONBytes) {
    if slot < 0 {
      bytes.number(Double(record.t), .fixed6)
    } else {
      bytes.value(members[slot].value, sortKeys: true, numbers: .fixed6)
    }
  }

  /// The ``JSONBytes/keyPrefix(_:)`` of `out` and of `t`, the keys merged into each line.
  static let outPrefix = JSONBytes.keyPrefix("out")
  static let tPrefix = JSONBytes.keyPrefix("t")

  /// Whether `key` is `t` or `out` (the record's own members): the UTF-8 length first, so
  /// most keys are told apart without a string comparison.
  @inline(__always) static func isReserved(_ key: String) -> Bool {
    switch key.utf8.count {
    case 1: key == "t"
    case 3: key == "out"
    default: false
    }
  }

  static func writeOut(_ record: TraceRecord, first: Bool, _ bytes: inout JSONBytes) {
    bytes.raw(first ? "\"out\":" : ",\"out\":")
    bytes.string(record.out)
  }


  /// `record` as its canonical line reads back (``GoldenTrace/read(_:)`` of ``line(_:)``),
  /// computed without text: every object's members sorted by key (UTF-8 order), every number
  /// rounded to the 6 decimals the line shows (-0 → 0, a non-finite number → null). A check
  /// fed the replay's records sees exactly what it would see reading the replay's trace file.
  public static func canonical(_ record: TraceRecord) -> TraceRecord {
    var fields = canonical(record.fields)
    fields["t"] = nil
    fields["out"] = nil
    return TraceRecord(t: record.t, out: record.out, fields: fields)
  }

  static func canonical(_ object: JSONObject) -> JSONObject {
    JSONObject(
      object.members.map { JSONMember($0.key, canonical($0.value)) }
        .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
  }

  static func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let d): .number6(d)
    case .object(let o): .object(canonical(o))
    case .array(let a): .array(a.map(canonical))
    default: value
    }
  }
}

extension JSONValue {
  /// The number `JSONWriter.formatNumber(d)` writes, as a parser reads it back: the nearest
  /// double to d's micro-units over 10⁶ (both exact below 2⁵³, so one correctly rounded
  /// division equals the correctly rounded parse of the decimal); beyond the fixed range the
  /// writer prints the shortest form, which reads back as d; a non-finite number is null.
  static func number6(_ d: Double) -> JSONValue {
    guard d.isFinite else { return .null }
    let scaled = (d * 1_000_000).rounded(.toNearestOrAwayFromZero)
    if abs(scaled) >= 9.0e15 { return .number(d) }
    if scaled == 0 { return .number(0) }
    return .number(scaled / 1_000_000)
  }
}

/// A trace line that is not a trace record: its 1-based line number and what is wrong.
public struct TraceParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// 1-based line in its text (0: not known).
  public var line: Int
  /// What is wrong with the line (a JSON error, or the key that is missing).
  public var message: String
  /// Whether the line is JSON (of the wrong shape) rather than text that does not parse.
  public var isJSON: Bool
  /// ``message``.
  public var description: String { message }
  /// An error at `line`.
  public init(line: Int = 0, message: String, isJSON: Bool = false) {
    self.line = line
    self.message = message
    self.isJSON = isJSON
  }
}

/// The one reader of trace text: a golden, a pending `.new`, a trace file given to `diff`, or
/// another process's `--trace` file — text that crosses a file boundary. Nothing reads a
/// replay's own trace back: its records travel in memory (``ReplayProducts/records``), and
/// `Tests/ArchitectureTests/TraceReaderTests` keeps every other text→record parser out of
/// `Sources/`.
public enum GoldenTrace {
  /// One line of a trace text: its 1-based number, its record and the line as written.
  public struct Line: Equatable, Sendable {
    /// 1-based line number in its text.
    public var number: Int
    /// The record the line holds (`t` and `out` out of its fields).
    public var record: TraceRecord
    /// The line as written.
    public var text: String
    /// A line.
    public init(number: Int, record: TraceRecord, text: String) {
      self.number = number
      self.record = record
      self.text = text
    }
  }

  /// The records of `text` (canonical JSONL; blank lines are skipped). A line that is not a
  /// JSON object with an integer `t` and a string `out` is an error naming its number and
  /// the missing key.
  public static func read(_ text: String) throws(TraceParseError) -> [Line] {
    var out: [Line] = []
    var number = 0
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
      number += 1
      let line = String(raw)
      if line.trimmingSpaces.isEmpty { continue }
      do { out.append(Line(number: number, record: try record(line), text: line)) } catch {
        var e = error
        e.line = number
        throw e
      }
    }
    return out
  }

  /// The records of `text`, without line numbers or text.
  public static func records(_ text: String) throws(TraceParseError) -> [TraceRecord] {
    try read(text).map(\.record)
  }

  static func record(_ line: String) throws(TraceParseError) -> TraceRecord {
    let value: JSONValue
    do { value = try JSONParser.parse(line) } catch {
      throw TraceParseError(message: error.description)
    }
    guard var object = value.objectValue else {
      throw TraceParseError(message: "expected a JSON object, found \(value.typeName)", isJSON: true)
    }
    guard let t = object["t"]?.int64Value else {
      throw TraceParseError(message: "missing integer key \"t\"", isJSON: true)
    }
    guard let out = object["out"]?.stringValue else {
      throw TraceParseError(message: "missing string key \"out\"", isJSON: true)
    }
    object["t"] = nil
    object["out"] = nil
    return TraceRecord(t: t, out: out, fields: object)
  }
}
