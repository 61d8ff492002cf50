/// A JSON value that keeps object members in their original order.
///
/// Used for PoseSpec fragments, recording headers, generic input events and trace lines.
/// Numbers are `Double` (every integer this project stores fits in 2^53).
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
  public var doubleValue: Double? { if case .number(let d) = self { d } else { nil } }
  public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
  public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
  public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
  public var isNull: Bool { if case .null = self { true } else { false } }
  /// The number as an exact Int64, or nil when it is not an integer.
  public var int64Value: Int64? {
    guard case .number(let d) = self, d.rounded() == d, abs(d) < 9.2e18 else { return nil }
    return Int64(d)
  }
  /// A short name of the JSON type, for error messages ("string", "number", …).
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
  public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// One member of a JSON object.
public struct JSONMember: Hashable, Sendable {
  public var key: String
  public var value: JSONValue
  public init(_ key: String, _ value: JSONValue) {
    self.key = key
    self.value = value
  }
}

/// A JSON object whose members keep their order; lookups are linear (objects here are small).
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
  public var members: [JSONMember]

  public init() { members = [] }
  public init(_ members: [JSONMember]) { self.members = members }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    members = elements.map { JSONMember($0.0, $0.1) }
  }

  public var keys: [String] { members.map(\.key) }
  public var isEmpty: Bool { members.isEmpty }
  public var count: Int { members.count }

  /// The value for `key`; setting nil removes the member, setting a new key appends it.
  public subscript(key: String) -> JSONValue? {
    get { members.first(where: { $0.key == key })?.value }
    set {
      if let i = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[i].value = newValue } else { members.remove(at: i) }
      } else if let newValue {
        members.append(JSONMember(key, newValue))
      }
    }
  }

  /// The same members sorted by key (byte order of UTF-8), recursively.
  public func sortedRecursively() -> JSONObject {
    JSONObject(
      members.map { JSONMember($0.key, $0.value.sortedRecursively()) }
        .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
  }
}

extension JSONValue {
  /// The same value with every object's members sorted by key.
  public func sortedRecursively() -> JSONValue {
    switch self {
    case .object(let o): .object(o.sortedRecursively())
    case .array(let a): .array(a.map { $0.sortedRecursively() })
    default: self
    }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
  ExpressibleByArrayLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(nilLiteral: ()) { self = .null }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue {
  /// The value as one-line summaries of trace lines print it (the differ's explanations, the
  /// engines' trace readings, the report): a string bare, null as `none`, a number in the
  /// traces' 6-decimal form, anything else as canonical JSON (keys sorted, 6-decimal numbers).
  public var summaryText: String {
    switch self {
    case .null: "none"
    case .string(let s): s
    case .number(let d): JSONWriter.formatNumber(d)
    default: JSONWriter.write(self, sortKeys: true, numbers: .fixed6)
    }
  }
}

extension JSONValue {
  /// What `JSONParser.parse` reads back from `JSONWriter.write(self)` (shortest numbers),
  /// without writing and parsing the text: -0 reads back as 0 and a non-finite number as
  /// null (the writer prints it so); every other number, string and member order as it is.
  /// nil when the text would not parse back — an object naming a key twice, or containers
  /// nested deeper than `JSONParser.depthMax` — so a caller can take the text's way for its
  /// error. The value is copied only when a number changes. (A generated recording's events
  /// are read this way: the same values as their JSONL lines, at a fraction of the work.)
  public func readBack() -> JSONValue? {
    switch readBackScan(depth: 0) {
    case .refused: nil
    case .same: self
    case .changed: readBackCopy()
    }
  }

  private enum ReadBackScan: Comparable { case same, changed, refused }

  private func readBackScan(depth: Int) -> ReadBackScan {
    switch self {
    case .null, .bool, .string: return .same
    case .number(let d): return !d.isFinite || (d == 0 && d.sign == .minus) ? .changed : .same
    case .array(let a):
      guard depth < JSONParser.depthMax else { return .refused }
      var worst = ReadBackScan.same
      for v in a {
        worst = max(worst, v.readBackScan(depth: depth + 1))
        if worst == .refused { break }
      }
      return worst
    case .object(let o):
      guard depth < JSONParser.depthMax else { return .refused }
      var worst = ReadBackScan.same
      for (i, m) in o.members.enumerated() {
        if o.members[..<i].contains(where: { $0.key == m.key }) { return .refused }
        worst = max(worst, m.value.readBackScan(depth: depth + 1))
        if worst == .refused { break }
      }
      return worst
    }
  }

  /// The value with -0 as 0 and non-finite numbers as null (the scan has ruled out refusals).
  private func readBackCopy() -> JSONValue {
    switch self {
    case .null, .bool, .string: self
    case .number(let d): d.isFinite ? .number(d == 0 ? 0 : d) : .null
    case .array(let a): .array(a.map { $0.readBackCopy() })
    case .object(let o): .object(JSONObject(o.members.map { JSONMember($0.key, $0.value.readBackCopy()) }))
    }
  }
}
