import CanonicalJSON

/// How the harness's readers of trace lines beyond `t`, `out` and their fields — the differ,
/// its "why" block, divergence groups — read one engine's lines: which lines put a cue on
/// screen, the field that names a cue, what a line is about, and a line's short summary. An
/// engine without cues keeps ``plain``; Just Photo's is `JustPhotoVocabulary.traceReading`,
/// which the callers that diff its traces hand to Verify (`DiffOptions.reading`,
/// `GoldenStore.traceReading`).
///
/// Example (an engine whose `banner` lines show a cue named by `cue`):
/// ```swift
/// TraceReading(name: "beep", cueKinds: ["banner"], displayKind: "banner", cueField: "cue")
/// ```
public struct TraceReading: Sendable, Equatable {
  /// The reading's name (its engine's): two readings are equal when their names are.
  public var name: String
  /// The `out` kinds whose lines show a cue on screen: ``cueField`` names it, a null one clears it.
  public var cueKinds: Set<String>
  /// Of ``cueKinds``, the kind whose lines make the screen's timeline (the cue on screen at a time).
  public var displayKind: String?
  /// The field by which any line names a cue; nil for an engine without cues.
  public var cueField: String?
  /// The fields that say what a line naming no cue is about (a prompt's key, …), in the order
  /// they are looked for.
  public var subjectFields: [String]
  /// A line's own summary; nil gives the plain one (``plainSummary(out:fields:)``).
  public var summary: @Sendable (_ out: String, _ fields: JSONObject) -> String?

  /// A reading.
  ///
  /// - Parameters:
  ///   - name: the engine's name.
  ///   - cueKinds: the kinds whose lines show a cue.
  ///   - displayKind: the kind whose lines are the screen's timeline.
  ///   - cueField: the field naming a cue.
  ///   - subjectFields: what a line naming no cue is about.
  ///   - summary: a line's own summary, nil for the plain one.
  public init(
    name: String, cueKinds: Set<String> = [], displayKind: String? = nil, cueField: String? = nil,
    subjectFields: [String] = [], summary: @escaping @Sendable (_ out: String, _ fields: JSONObject) -> String? = { _, _ in nil }
  ) {
    self.name = name
    self.cueKinds = cueKinds
    self.displayKind = displayKind
    self.cueField = cueField
    self.subjectFields = subjectFields
    self.summary = summary
  }

  /// No cues, plain summaries: an engine that declares nothing.
  public static let plain = TraceReading(name: "plain")

  /// Equal names.
  public static func == (a: TraceReading, b: TraceReading) -> Bool { a.name == b.name }

  /// The short description of a line (what the differ's explanations print): the engine's
  /// summary, else ``plainSummary(out:fields:)``.
  ///
  /// - Parameters:
  ///   - out: the line's kind.
  ///   - fields: its fields.
  /// - Returns: e.g. `cue_display FRAME_MOVE_LEFT/hard`, or `hint advice=headroom direction=more`.
  public func summarize(out: String, fields: JSONObject) -> String {
    summary(out, fields) ?? Self.plainSummary(out: out, fields: fields)
  }

  /// `out` and the first four fields (`kind a=1 b=x`), each value as ``text(_:)`` prints it.
  public static func plainSummary(out: String, fields: JSONObject) -> String {
    let shown = fields.members.prefix(4).map { "\($0.key)=\(text($0.value))" }
    return ([out] + shown).joined(separator: " ")
  }

  /// A field value as a summary prints it: a string bare, null as `none`, a number in its
  /// shortest form, anything else as canonical JSON.
  public static func text(_ v: JSONValue) -> String {
    v.summaryText  // one definition for every summary (CanonicalJSON)
  }

  /// The cue a line of a ``cueKinds`` kind shows (`.some(nil)`: it clears the cue); nil for a
  /// line of any other kind.
  public func shownCue(out: String, fields: JSONObject) -> String?? {
    guard cueKinds.contains(out), let cueField else { return nil }
    return .some(fields[cueField]?.stringValue)
  }

  /// Whether a line of a ``cueKinds`` kind writes its cue as null.
  public func clearsCue(out: String, fields: JSONObject) -> Bool {
    guard cueKinds.contains(out), let cueField else { return false }
    return fields[cueField] == .null
  }

  /// The cue any line names in ``cueField``; nil when it names none.
  public func cueId(_ fields: JSONObject) -> String? {
    cueField.flatMap { fields[$0]?.stringValue }
  }

  /// The first of ``subjectFields`` a line has as a string.
  public func subject(_ fields: JSONObject) -> String? {
    for f in subjectFields { if let v = fields[f]?.stringValue { return v } }
    return nil
  }
}
