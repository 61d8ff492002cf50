import CanonicalJSON

/// What `jpreplay plot` draws of an engine whose vocabulary has no drawing of its own: panels
/// of step series, each value read from the latest trace line of one kind, and lanes of
/// markers at the lines of chosen kinds. Every value comes from a trace line as written (its
/// `out` and fields), so the plot shows the trace and nothing else.
public struct TraceTimeline: Sendable {
  /// One line of a panel: after each trace line of kind `out`, the series holds `value(fields)`
  /// until the next such line (nil: no value, a gap).
  public struct Series: Sendable {
    /// The panel it is drawn in (series of one panel share its vertical scale).
    public var panel: String
    /// The series' name in the panel's legend.
    public var name: String
    /// The trace kind whose lines set it.
    public var out: String
    /// Its value after a line of `out` with these fields (without `t` and `out`).
    public var value: @Sendable (JSONObject) -> Double?

    /// A series computed from each line's fields.
    ///
    /// - Parameters:
    ///   - panel: the panel it is drawn in.
    ///   - name: its legend name.
    ///   - out: the trace kind that sets it.
    ///   - value: its value after a line with these fields (nil: a gap).
    public init(panel: String, name: String, out: String, value: @escaping @Sendable (JSONObject) -> Double?) {
      self.panel = panel
      self.name = name
      self.out = out
      self.value = value
    }

    /// A series whose value is the number in field `field` (nil when absent or not a number).
    public init(panel: String, name: String, out: String, field: String) {
      self.init(panel: panel, name: name, out: out) { $0[field]?.doubleValue }
    }
  }

  /// One lane of marks: a mark at each trace line of kind `out`, titled `text(fields)`.
  public struct Markers: Sendable {
    /// The lane's name.
    public var lane: String
    /// The trace kind marked.
    public var out: String
    /// The mark's title (its tooltip).
    public var text: @Sendable (JSONObject) -> String

    /// A lane of marks.
    ///
    /// - Parameters:
    ///   - lane: its name.
    ///   - out: the trace kind marked.
    ///   - text: a mark's title from its line's fields.
    ///
    /// Example: `Markers(lane: "hints", out: "hint") { $0["advice"]?.stringValue ?? "" }`.
    public init(lane: String, out: String, text: @escaping @Sendable (JSONObject) -> String) {
      self.lane = lane
      self.out = out
      self.text = text
    }
  }

  /// The step series, grouped into panels by ``Series/panel``.
  public var series: [Series]
  /// The marker lanes.
  public var markers: [Markers]
  /// The lanes the HTML report (`report`, `verify --html`, `diff --html`) draws for a divergent
  /// recording, golden above new on one cursor: the engine's state the reader decides by (a
  /// series worth following is given here as a lane of its changes). By default the markers.
  public var pageLanes: [Markers]

  /// A timeline.
  ///
  /// - Parameters:
  ///   - series: its series (none by default).
  ///   - markers: its lanes (none by default).
  ///   - pageLanes: the report page's lanes (nil: the markers).
  public init(series: [Series] = [], markers: [Markers] = [], pageLanes: [Markers]? = nil) {
    self.series = series
    self.markers = markers
    self.pageLanes = pageLanes ?? markers
  }

  /// Nothing to draw.
  public static let none = TraceTimeline()

  /// True when `plot` has nothing to draw (no series, no markers).
  public var isEmpty: Bool { series.isEmpty && markers.isEmpty }

  /// The panels' names, in the order of their first series.
  public var panels: [String] {
    var out: [String] = []
    for s in series where !out.contains(s.panel) { out.append(s.panel) }
    return out
  }

  /// Every trace kind the timeline reads, in first-use order.
  public var kinds: [String] {
    var out: [String] = []
    for k in series.map(\.out) + markers.map(\.out) where !out.contains(k) { out.append(k) }
    return out
  }
}
