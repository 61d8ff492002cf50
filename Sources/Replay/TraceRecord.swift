import CanonicalJSON
import EngineIO

/// One trace line as data (ENGINE §1.7): `{"t":…, "out":"cue_display", …fields}`.
///
/// The engine produces typed `EngineOutput`s; `TraceRecord(_:at:)` renders one (the only place
/// that knows the field names), and `TraceFormat` turns a record into its canonical line and a
/// golden's line back into a record.
public struct TraceRecord: Equatable, Sendable {
  /// The time of the output, ms from the recording's start.
  public var t: Millis
  /// The `out` discriminator as written (a golden's line may name any kind).
  public var out: String
  /// Every field besides `t` and `out`. Serialized with sorted keys by the trace writer.
  public var fields: JSONObject
  /// A record.
  public init(t: Millis, out: String, fields: JSONObject) {
    self.t = t
    self.out = out
    self.fields = fields
  }
}
