/// One A.13 diagnostics line (ENGINE §6.1); payload values are strings.
public struct DiagnosticLine: Equatable, Sendable {
  /// Wall-clock time of the line, Unix epoch ms: the header's `wall_start_ms` plus the virtual `t`.
  public var tsMs: Int64
  /// The session the line belongs to (`S-0001`, …), or the fallback session of ENGINE §6.1.
  public var sessionId: String
  /// The diagnostics event name, e.g. `prompt_shown` or `write_failed`.
  public var event: String
  /// `cafe` or `outdoor`; never `base`.
  public var scene: String
  /// The payload in the order the engine wrote it. Every value is already text, as the app
  /// logs it: booleans `true`/`false`, integers in decimal, lists joined by commas without spaces.
  public var payload: [(key: String, value: String)]
  /// A line with the payload in the order it is to be written.
  public init(tsMs: Int64, sessionId: String, event: String, scene: String, payload: [(key: String, value: String)]) {
    self.tsMs = tsMs
    self.sessionId = sessionId
    self.event = event
    self.scene = scene
    self.payload = payload
  }
  /// Equal when every field and every payload pair match, in order (the payload is an array
  /// of tuples, which are not `Equatable` themselves).
  public static func == (a: DiagnosticLine, b: DiagnosticLine) -> Bool {
    a.tsMs == b.tsMs && a.sessionId == b.sessionId && a.event == b.event && a.scene == b.scene
      && a.payload.map(\.key) == b.payload.map(\.key) && a.payload.map(\.value) == b.payload.map(\.value)
  }
}
