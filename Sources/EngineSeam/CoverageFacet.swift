import CanonicalJSON

/// One thing `jpreplay coverage` looks for in another engine's corpus: the values a field takes
/// on an input event kind or on a trace line kind. An engine's vocabulary declares its facets
/// (from its own enumerations) and coverage reports, per value, the recordings that show it.
public struct CoverageFacet: Sendable, Equatable {
  /// Where the value is read.
  public enum Source: String, Sendable, Equatable {
    /// An input event's field (the recording).
    case input
    /// A trace line's field (the replay).
    case output
  }

  /// Input or output.
  public var source: Source
  /// The event kind (input) or the trace line's `out` (output).
  public var kind: String
  /// The field whose values are counted.
  public var field: String
  /// Every value the field can take, as it is written (a string, `true`/`false`, a number).
  public var values: [String]

  /// A facet.
  public init(_ source: Source, kind: String, field: String, values: [String]) {
    self.source = source
    self.kind = kind
    self.field = field
    self.values = values
  }

  /// `kind.field` (inputs) or `out=kind.field` (trace lines), as reports name it.
  public var name: String { source == .input ? "\(kind).\(field)" : "out=\(kind).\(field)" }

  /// The value of this facet's field in `fields`, written as `values` writes it; nil when absent
  /// or not a string, bool or number.
  public func value(in fields: JSONObject) -> String? {
    switch fields[field] {
    case .string(let s): s
    case .bool(let b): b ? "true" : "false"
    case .number(let d): JSONWriter.formatNumber(d)
    default: nil
    }
  }
}
